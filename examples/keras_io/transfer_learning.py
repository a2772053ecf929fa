"""keras-io's "Transfer learning & fine-tuning" guide, end to end, on Fashion-MNIST.

The guide takes an ImageNet-trained Xception, freezes it, trains a new head on
cats vs dogs, then unfreezes it and fine-tunes everything at a low learning rate.
ImageNet weights cannot be downloaded here, so the port first trains its own base
(a `keras.applications.MobileNetV2`, alpha 0.35, 32x32 inputs) on five Fashion-MNIST
classes, then transfers it to a new task on the other five (footwear against shirts
and bags), following the guide's steps:
- `base_model.trainable = False`, then `base_model(x, training=False)` inside the new
  model, with the guide's augmentation layers and `Rescaling` in front;
- training the new head: the frozen base's BatchNormalization layers run in
  inference mode, their moving statistics never change (checked here);
- fine-tuning: `base_model.trainable = True`, recompiling (needed for the change to
  take effect), `Adam(1e-5)`. The guide says BatchNormalization stays in inference
  mode because the base was called with `training=False`; in Keras 3 the `training=True`
  of `fit`'s call replaces the one recorded in the graph (keras-team/keras#20285), so
  the statistics move again while fine-tuning, in Keras as here (the port reports it).

Usage (from the repository root):

    python examples/keras_io/transfer_learning.py            # 6,000 images per phase
    python examples/keras_io/transfer_learning.py --quick    # 384 images per phase
    KERAS_IO_LIBRARY=keras python examples/keras_io/transfer_learning.py --quick
"""

from __future__ import annotations

import argparse

import numpy as np
from _library import LIBRARY, fashion_mnist, keras

layers = keras.layers


def as_rgb_32(images: np.ndarray) -> np.ndarray:
    """28x28 grayscale uint8 -> 32x32x3 values in [0, 255] (padded, repeated channels)."""
    padded = np.pad(images, ((0, 0), (2, 2), (2, 2))).astype("float32")
    return np.repeat(padded[..., np.newaxis], 3, axis=-1)


def moving_statistics(model) -> list[np.ndarray]:
    return [np.array(weight) for layer in model.layers
            if isinstance(layer, layers.BatchNormalization)
            for weight in (layer.moving_mean, layer.moving_variance)]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="384 images per phase, 1 epoch")
    parser.add_argument("--data-dir", default=None, help="a folder with the Fashion-MNIST files")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    size, epochs = (384, 1) if args.quick else (6000, args.epochs)

    (x_train, y_train), (x_test, y_test) = fashion_mnist(args.data_dir)
    first = y_train < 5  # T-shirt, trouser, pullover, dress, coat: the "pretraining" task
    x_pre, y_pre = as_rgb_32(x_train[first][:size]), y_train[first][:size]
    new_train, new_test = y_train >= 5, y_test >= 5
    footwear = (5, 7, 9)  # sandal, sneaker, ankle boot; against shirt and bag
    x_new = as_rgb_32(x_train[new_train][:size])
    y_new = np.isin(y_train[new_train][:size], footwear).astype("float32")
    x_new_test = as_rgb_32(x_test[new_test][:size])
    y_new_test = np.isin(y_test[new_test][:size], footwear).astype("float32")

    base_model = keras.applications.MobileNetV2(
        weights=None, input_shape=(32, 32, 3), alpha=0.35, include_top=False)
    pretrain = keras.Sequential([
        keras.Input((32, 32, 3)), layers.Rescaling(scale=1 / 127.5, offset=-1), base_model,
        layers.GlobalAveragePooling2D(), layers.Dense(5, activation="softmax")])
    pretrain.compile(optimizer=keras.optimizers.Adam(1e-3),
                     loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    pretrain.fit(x_pre, y_pre, batch_size=32, epochs=epochs, verbose=2)

    # The guide's steps from here on: freeze the base, put a new head on it.
    base_model.trainable = False
    data_augmentation = keras.Sequential(
        [layers.RandomFlip("horizontal"), layers.RandomRotation(0.1)])
    inputs = keras.Input(shape=(32, 32, 3))
    x = data_augmentation(inputs)
    x = layers.Rescaling(scale=1 / 127.5, offset=-1)(x)
    x = base_model(x, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)
    head_weights = len(model.trainable_weights)
    print(f"trainable weights: {head_weights} "
          f"(the base's {len(base_model.weights)} are frozen)")

    frozen_statistics = moving_statistics(base_model)
    model.compile(optimizer=keras.optimizers.Adam(),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy()])
    model.fit(x_new, y_new, batch_size=32, epochs=epochs, verbose=2)
    statistics_kept = all(np.array_equal(before, after) for before, after in
                          zip(frozen_statistics, moving_statistics(base_model)))
    _, head_accuracy = model.evaluate(x_new_test, y_new_test, verbose=0)

    base_model.trainable = True
    model.compile(optimizer=keras.optimizers.Adam(1e-5),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy()])
    model.fit(x_new, y_new, batch_size=32, epochs=epochs, verbose=2)
    fine_tuned_statistics_kept = all(np.array_equal(before, after) for before, after in
                                     zip(frozen_statistics, moving_statistics(base_model)))
    _, fine_tuned_accuracy = model.evaluate(x_new_test, y_new_test, verbose=0)
    print(f"transfer_learning ({LIBRARY}): new head {head_accuracy:.4f}, fine-tuned "
          f"{fine_tuned_accuracy:.4f}; BatchNormalization statistics unchanged while frozen: "
          f"{statistics_kept}, while fine-tuning: "
          f"{fine_tuned_statistics_kept}")
    return {"head_accuracy": float(head_accuracy),
            "fine_tuned_accuracy": float(fine_tuned_accuracy),
            "statistics_kept": statistics_kept,
            "fine_tuned_statistics_kept": fine_tuned_statistics_kept,
            "trainable_weights": head_weights,
            "fine_tuned_trainable_weights": len(model.trainable_weights)}


if __name__ == "__main__":
    main()
