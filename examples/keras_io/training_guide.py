"""The Keras guide "Training & evaluation with the built-in methods", as one program.

Each part of the guide, on the synthetic data the guide itself uses (random
arrays) or on Fashion-MNIST where it uses MNIST:
- an MLP with `compile(optimizer, loss, metrics)`, `fit` with `validation_data`,
  `evaluate` and `predict`;
- a custom loss function and a `keras.losses.Loss` subclass, a custom
  `keras.metrics.Metric` (true positives), and `self.add_loss` in a layer;
- `validation_split`, a `keras.utils.PyDataset`, `class_weight` and `sample_weight`;
- a model with two inputs and two outputs: losses, loss weights and metrics given
  as dicts keyed by output name, data given as dicts keyed by input and output name;
- callbacks: `EarlyStopping`, `ModelCheckpoint`, a learning-rate schedule.

Usage (from the repository root):

    python examples/keras_io/training_guide.py             # 3 epochs per part
    python examples/keras_io/training_guide.py --quick     # 5,000 images, 1 epoch per part
    KERAS_IO_LIBRARY=keras python examples/keras_io/training_guide.py --quick
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
from _library import LIBRARY, fashion_mnist, keras

layers, ops = keras.layers, keras.ops


def get_uncompiled_model():
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    return keras.Model(inputs=inputs, outputs=outputs)


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    return model


def custom_mean_squared_error(y_true, y_pred):
    return ops.mean(ops.square(y_true - y_pred), axis=-1)


class CustomMSE(keras.losses.Loss):
    def __init__(self, regularization_factor=0.1, name="custom_mse"):
        super().__init__(name=name)
        self.regularization_factor = regularization_factor

    def call(self, y_true, y_pred):
        mse = ops.mean(ops.square(y_true - y_pred), axis=-1)
        reg = ops.mean(ops.square(0.5 - y_pred), axis=-1)
        return mse + reg * self.regularization_factor


class CategoricalTruePositives(keras.metrics.Metric):
    def __init__(self, name="categorical_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), name="ctp", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = ops.reshape(ops.argmax(y_pred, axis=1), (-1, 1))
        values = ops.cast(y_true, "int32") == ops.cast(y_pred, "int32")
        values = ops.cast(values, "float32")
        if sample_weight is not None:
            sample_weight = ops.cast(sample_weight, "float32")
            values = ops.multiply(values, sample_weight)
        self.true_positives.assign_add(ops.sum(values))

    def result(self):
        return self.true_positives.value

    def reset_state(self):
        self.true_positives.assign(0.0)


class ActivityRegularizationLayer(layers.Layer):
    def call(self, inputs):
        self.add_loss(ops.sum(inputs) * 0.1)
        return inputs


class ExamplePyDataset(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / float(self.batch_size)))

    def __getitem__(self, idx):
        batch = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return self.x[batch], self.y[batch]


def two_input_two_output_model(num_tags=12, num_words=10000, num_departments=4):
    title_input = keras.Input(shape=(None,), name="title")
    body_input = keras.Input(shape=(None,), name="body")
    tags_input = keras.Input(shape=(num_tags,), name="tags")
    title_features = layers.LSTM(32)(layers.Embedding(num_words, 64)(title_input))
    body_features = layers.LSTM(16)(layers.Embedding(num_words, 64)(body_input))
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    return keras.Model(inputs=[title_input, body_input, tags_input],
                       outputs={"priority": priority_pred, "department": department_pred})


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="5,000 images, 1 epoch per part")
    parser.add_argument("--data-dir", default=None, help="a folder with the Fashion-MNIST files")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    epochs = 1 if args.quick else args.epochs
    results = {}

    (x_train, y_train), (x_test, y_test) = fashion_mnist(args.data_dir)
    size = 5000 if args.quick else len(x_train)
    x_train = x_train[:size].reshape(-1, 784).astype("float32") / 255
    x_test = x_test[:1000].reshape(-1, 784).astype("float32") / 255
    y_train, y_test = y_train[:size].astype("float32"), y_test[:1000].astype("float32")
    x_val, y_val = x_train[-1000:], y_train[-1000:]
    x_train, y_train = x_train[:-1000], y_train[:-1000]

    print("-- fit, evaluate, predict")
    model = get_compiled_model()
    history = model.fit(x_train, y_train, batch_size=64, epochs=epochs,
                        validation_data=(x_val, y_val), verbose=2)
    results["mlp"] = model.evaluate(x_test, y_test, batch_size=128, verbose=0)
    print("test loss, test acc:", results["mlp"])
    print("predictions shape:", model.predict(x_test[:3], verbose=0).shape)
    print("history keys:", sorted(history.history))

    print("-- custom losses and a custom metric")
    y_train_one_hot = keras.utils.to_categorical(y_train, num_classes=10)
    for loss in (custom_mean_squared_error, CustomMSE()):
        model = get_uncompiled_model()
        model.compile(optimizer=keras.optimizers.Adam(), loss=loss)
        model.fit(x_train, y_train_one_hot, batch_size=64, epochs=epochs, verbose=2)
    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[CategoricalTruePositives()])
    history = model.fit(x_train, y_train, batch_size=64, epochs=epochs, verbose=2)
    results["true_positives"] = float(history.history["categorical_true_positives"][-1])

    print("-- add_loss in a layer")
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    results["add_loss"] = float(model.fit(x_train, y_train, batch_size=64, epochs=1,
                                          verbose=2).history["loss"][-1])

    print("-- validation_split, PyDataset, class_weight, sample_weight")
    model = get_compiled_model()
    model.fit(x_train, y_train, batch_size=64, validation_split=0.2, epochs=1, verbose=2)
    model = get_compiled_model()
    model.fit(ExamplePyDataset(x_train, y_train, batch_size=64), epochs=epochs, verbose=2,
              validation_data=ExamplePyDataset(x_val, y_val, batch_size=64))
    class_weight = {label: 1.0 for label in range(10)}
    class_weight[5] = 2.0
    model = get_compiled_model()
    model.fit(x_train, y_train, class_weight=class_weight, batch_size=64, epochs=1, verbose=2)
    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0
    model = get_compiled_model()
    model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=64, epochs=1, verbose=2)
    results["weighted"] = model.evaluate(x_test, y_test, verbose=0)

    print("-- two inputs, two outputs")
    model = two_input_two_output_model()
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={"priority": keras.losses.MeanSquaredError(),
              "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2},
        metrics={"priority": [keras.metrics.MeanAbsolutePercentageError(),
                              keras.metrics.MeanAbsoluteError()],
                 "department": [keras.metrics.CategoricalAccuracy()]})
    rng = np.random.default_rng(args.seed)
    title_data = rng.integers(0, 10000, size=(256, 10))
    body_data = rng.integers(0, 10000, size=(256, 100))
    tags_data = rng.integers(0, 2, size=(256, 12)).astype("float32")
    priority_targets = rng.random(size=(256, 1))
    dept_targets = rng.integers(0, 2, size=(256, 4))
    history = model.fit({"title": title_data, "body": body_data, "tags": tags_data},
                        {"priority": priority_targets, "department": dept_targets},
                        batch_size=32, epochs=1, verbose=2)
    results["two_outputs"] = sorted(history.history)

    print("-- callbacks and a learning-rate schedule")
    with tempfile.TemporaryDirectory() as folder:
        lr_schedule = keras.optimizers.schedules.ExponentialDecay(
            0.1, decay_steps=100000, decay_rate=0.96, staircase=True)
        model = get_uncompiled_model()
        model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=lr_schedule),
                      loss="sparse_categorical_crossentropy",
                      metrics=["sparse_categorical_accuracy"])
        callbacks = [
            keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=1e-2, patience=2,
                                          verbose=1),
            keras.callbacks.ModelCheckpoint(
                filepath=os.path.join(folder, "mymodel_{epoch}.keras"),
                save_best_only=True, monitor="val_loss", verbose=1),
        ]
        model.fit(x_train, y_train, epochs=epochs + 1, batch_size=64, callbacks=callbacks,
                  validation_split=0.2, verbose=2)
        results["checkpoints"] = sorted(os.listdir(folder))
    print(f"training_guide ({LIBRARY}): MLP test accuracy {results['mlp'][1]:.4f}")
    return results


if __name__ == "__main__":
    main()
