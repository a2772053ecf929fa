"""keras-io's "Simple MNIST convnet", run on kerasish with `import kerasish as keras`.

Two convolution blocks, dropout and a softmax classifier trained with `fit` on
Fashion-MNIST (the MNIST files are not installed offline; Debian's
`dataset-fashion-mnist` package puts Fashion-MNIST in /usr/share/datasets). The
program is written as a Keras 3 user writes it: `keras.Input`, `Sequential`,
`keras.utils.to_categorical`, `summary`, `compile`/`fit` with `validation_split`,
`evaluate`, and `model.save` to a `.keras` file that Keras 3 can load too.

Usage (from the repository root):

    python examples/keras_io/mnist_convnet.py                 # 15 epochs, about 90% accuracy
    python examples/keras_io/mnist_convnet.py --quick         # 2,000 images, 1 epoch
    python examples/keras_io/mnist_convnet.py --save convnet.keras
"""

from __future__ import annotations

import argparse

import numpy as np

import kerasish as keras
from kerasish import layers

NUM_CLASSES = 10
INPUT_SHAPE = (28, 28, 1)


def load_data(data_dir: str | None, train_size: int | None, test_size: int | None):
    """Fashion-MNIST scaled to [0, 1] with a channel axis; labels one-hot."""
    (x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data(data_dir)
    x_train, y_train = x_train[:train_size], y_train[:train_size]
    x_test, y_test = x_test[:test_size], y_test[:test_size]
    x_train = np.expand_dims(x_train.astype("float32") / 255, -1)
    x_test = np.expand_dims(x_test.astype("float32") / 255, -1)
    y_train = keras.utils.to_categorical(y_train, NUM_CLASSES)
    y_test = keras.utils.to_categorical(y_test, NUM_CLASSES)
    return (x_train, y_train), (x_test, y_test)


def build_model() -> keras.Model:
    return keras.Sequential([
        keras.Input(shape=INPUT_SHAPE),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(NUM_CLASSES, activation="softmax"),
    ])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--data-dir", default=None,
                        help="a folder with the four Fashion-MNIST IDX files (default: the "
                             "usual places, see kerasish.datasets.fashion_mnist)")
    parser.add_argument("--quick", action="store_true",
                        help="2,000 training and 500 test images, 1 epoch")
    parser.add_argument("--save", default=None, help="write the trained model to this .keras file")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    sizes = (2000, 500) if args.quick else (None, None)
    epochs = 1 if args.quick else args.epochs

    (x_train, y_train), (x_test, y_test) = load_data(args.data_dir, *sizes)
    print(f"x_train shape: {x_train.shape}; {len(x_train)} train and {len(x_test)} test samples")
    model = build_model()
    model.summary()
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=epochs,
              validation_split=0.1, verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    if args.save:
        model.save(args.save)
        print(f"saved to {args.save}")
    print(f"mnist_convnet: test loss {loss:.4f}, test accuracy {accuracy:.4f}")
    return {"loss": loss, "accuracy": accuracy}


if __name__ == "__main__":
    main()
