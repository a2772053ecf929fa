"""keras-io's "Timeseries classification from scratch", on synthetic univariate series.

keras-io trains a fully convolutional network on the FordA engine-noise series
(3,601 series of 500 steps, two classes), which cannot be downloaded here. This
port makes series of the same shape from two generating processes that differ
only in a short burst hidden in noise, and trains keras-io's model on them: three
Conv1D-BatchNormalization-ReLU blocks, global average pooling and a softmax, with
`sparse_categorical_crossentropy`, `ModelCheckpoint` (best model by val_loss),
`ReduceLROnPlateau` and `EarlyStopping`, then reloads the best checkpoint and
evaluates it, as the keras-io program does.

Usage (from the repository root):

    python examples/keras_io/timeseries_classification.py            # 40 epochs
    python examples/keras_io/timeseries_classification.py --quick    # 400 series, 4 epochs
    KERAS_IO_LIBRARY=keras python examples/keras_io/timeseries_classification.py --quick
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
from _library import LIBRARY, keras

layers = keras.layers


def make_series(count: int, length: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Noisy series; in class 1 a 40-step sine burst at a random place."""
    x = rng.normal(0.0, 1.0, (count, length)).cumsum(axis=1) * 0.1
    x += rng.normal(0.0, 0.5, (count, length))
    y = rng.integers(0, 2, count)
    steps = np.arange(40)
    for index in np.flatnonzero(y):
        start = rng.integers(0, length - 40)
        x[index, start:start + 40] += 1.5 * np.sin(steps * np.pi / 5)
    x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
    return x[..., np.newaxis].astype("float32"), y


def make_model(input_shape, num_classes: int) -> keras.Model:
    input_layer = keras.layers.Input(input_shape)
    x = input_layer
    for _ in range(3):
        x = layers.Conv1D(filters=64, kernel_size=3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    gap = layers.GlobalAveragePooling1D()(x)
    output_layer = layers.Dense(num_classes, activation="softmax")(gap)
    return keras.models.Model(inputs=input_layer, outputs=output_layer)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--quick", action="store_true", help="400 series of 200 steps, 4 epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    count, length, epochs = (400, 200, 4) if args.quick else (3600, 500, args.epochs)
    x_train, y_train = make_series(count, length, rng)
    x_test, y_test = make_series(count // 4, length, rng)

    model = make_model(x_train.shape[1:], num_classes=2)
    with tempfile.TemporaryDirectory() as folder:
        best = os.path.join(folder, "best_model.keras")
        callbacks = [
            keras.callbacks.ModelCheckpoint(best, save_best_only=True, monitor="val_loss"),
            keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=20,
                                              min_lr=0.0001),
            keras.callbacks.EarlyStopping(monitor="val_loss", patience=50, verbose=1),
        ]
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["sparse_categorical_accuracy"])
        history = model.fit(x_train, y_train, batch_size=args.batch_size, epochs=epochs,
                            callbacks=callbacks, validation_split=0.2, verbose=2)
        model = keras.models.load_model(best)
        test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)
    print(f"timeseries_classification ({LIBRARY}): {len(history.history['loss'])} epochs, "
          f"test loss {test_loss:.4f}, test accuracy {test_acc:.4f}")
    return {"loss": float(test_loss), "accuracy": float(test_acc),
            "train_accuracy": float(history.history["sparse_categorical_accuracy"][-1])}


if __name__ == "__main__":
    main()
