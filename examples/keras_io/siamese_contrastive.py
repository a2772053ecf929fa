"""keras-io's "Image similarity estimation using a Siamese Network with a contrastive
loss", on Fashion-MNIST.

Two images go through one shared tower (BatchNormalization, two tanh convolutions
with average pooling, a tanh Dense embedding); a `Lambda` layer takes the Euclidean
distance of the two embeddings and a sigmoid unit turns it into a score. The loss
is the contrastive loss, written as a plain function of `(y_true, y_pred)`: labels
have shape `(n,)` and the model's output `(n, 1)`, so it trains only when the
library aligns `y_true` to `y_pred`'s rank before calling the loss, as Keras does
(without that, `y_true - y_pred` broadcasts to an `(n, n)` matrix and the model
learns a constant: accuracy 0.50).

Labels follow keras-io: 0 for a pair of one class, 1 for two classes.

Usage (from the repository root):

    python examples/keras_io/siamese_contrastive.py             # 10 epochs, 60,000 pairs
    python examples/keras_io/siamese_contrastive.py --quick     # 4,000 pairs, 3 epochs
    KERAS_IO_LIBRARY=keras python examples/keras_io/siamese_contrastive.py --quick
"""

from __future__ import annotations

import argparse

import numpy as np
from _library import LIBRARY, fashion_mnist, keras

layers, ops = keras.layers, keras.ops


def make_pairs(x, y, rng):
    """For each image one pair with an image of its class (label 0) and one with an
    image of another class (label 1)."""
    by_class = [np.flatnonzero(y == label) for label in range(10)]
    pairs, labels = [], []
    for index, label in enumerate(y):
        same = rng.choice(by_class[label])
        other_label = (label + rng.integers(1, 10)) % 10
        other = rng.choice(by_class[other_label])
        pairs += [[x[index], x[same]], [x[index], x[other]]]
        labels += [0, 1]
    return np.array(pairs), np.array(labels, dtype="float32")


def euclidean_distance(vects):
    x, y = vects
    sum_square = ops.sum(ops.square(x - y), axis=1, keepdims=True)
    return ops.sqrt(ops.maximum(sum_square, keras.backend.epsilon()))


def contrastive_loss(margin=1.0):
    def loss(y_true, y_pred):
        square_pred = ops.square(y_pred)
        margin_square = ops.square(ops.maximum(margin - y_pred, 0))
        return ops.mean((1 - y_true) * square_pred + y_true * margin_square)
    return loss


def build_model() -> keras.Model:
    inputs = keras.Input((28, 28, 1))
    x = layers.BatchNormalization()(inputs)
    x = layers.Conv2D(4, (5, 5), activation="tanh")(x)
    x = layers.AveragePooling2D(pool_size=(2, 2))(x)
    x = layers.Conv2D(16, (5, 5), activation="tanh")(x)
    x = layers.AveragePooling2D(pool_size=(2, 2))(x)
    x = layers.Flatten()(x)
    x = layers.BatchNormalization()(x)
    x = layers.Dense(10, activation="tanh")(x)
    tower = keras.Model(inputs, x)

    input_1, input_2 = keras.Input((28, 28, 1)), keras.Input((28, 28, 1))
    merged = layers.Lambda(euclidean_distance, output_shape=(1,))(
        [tower(input_1), tower(input_2)])
    normal = layers.BatchNormalization()(merged)
    output = layers.Dense(1, activation="sigmoid")(normal)
    return keras.Model(inputs=[input_1, input_2], outputs=output)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--data-dir", default=None, help="a folder with the Fashion-MNIST files")
    parser.add_argument("--quick", action="store_true", help="2,000 images, 3 epochs")
    parser.add_argument("--seed", type=int, default=1,
                        help="keras-io's network stays at chance from some starting weights, "
                             "in Keras as here (seed 0: from the same weights, 0.48 in Keras "
                             "and 0.49 here after 3 epochs); seed 1 trains in both")
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    (x_train, y_train), (x_test, y_test) = fashion_mnist(args.data_dir)
    train_size, test_size, epochs = (2000, 500, 3) if args.quick else (30000, 5000, args.epochs)
    x_train = np.expand_dims(x_train[:train_size], -1).astype("float32") / 255
    x_test = np.expand_dims(x_test[:test_size], -1).astype("float32") / 255
    pairs_train, labels_train = make_pairs(x_train, y_train[:train_size], rng)
    pairs_test, labels_test = make_pairs(x_test, y_test[:test_size], rng)
    split = len(pairs_train) * 9 // 10
    pairs_val, labels_val = pairs_train[split:], labels_train[split:]
    pairs_train, labels_train = pairs_train[:split], labels_train[:split]

    siamese = build_model()
    siamese.compile(loss=contrastive_loss(margin=args.margin), optimizer="RMSprop",
                    metrics=["accuracy"])
    siamese.summary()
    siamese.fit([pairs_train[:, 0], pairs_train[:, 1]], labels_train,
                validation_data=([pairs_val[:, 0], pairs_val[:, 1]], labels_val),
                batch_size=args.batch_size, epochs=epochs, verbose=2)
    loss, accuracy = siamese.evaluate([pairs_test[:, 0], pairs_test[:, 1]], labels_test,
                                      verbose=0)
    print(f"siamese_contrastive ({LIBRARY}): test loss {loss:.4f}, test accuracy {accuracy:.4f}")
    return {"loss": float(loss), "accuracy": float(accuracy)}


if __name__ == "__main__":
    main()
