"""compile / fit / evaluate / predict and the callbacks that drive them."""

import io
import os

import numpy as np
import pytest

import kerasish as ks


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def _classification_data(n=256, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32) + (x[:, 2] > 1).astype(np.int32)
    return x, y


def _mlp(units=3):
    return ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dense(units)])


def test_fit_and_a_custom_tape_loop_reach_the_same_weights():
    x, y = _classification_data(96)
    ks.random.set_seed(7)
    fitted = _mlp()
    fitted.build((None, 6))
    ks.random.set_seed(7)
    manual = _mlp()
    manual.build((None, 6))
    np.testing.assert_array_equal(fitted.get_weights()[0], manual.get_weights()[0])

    loss = ks.losses.SparseCategoricalCrossentropy(from_logits=True)
    fitted.compile(ks.optimizers.SGD(0.1, momentum=0.9), loss)
    fitted.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)

    optimizer = ks.optimizers.SGD(0.1, momentum=0.9)
    for _ in range(2):
        for start in range(0, 96, 32):
            xb, yb = x[start:start + 32], y[start:start + 32]
            with ks.GradientTape() as tape:
                value = loss(yb, manual(xb, training=True))
            grads = tape.gradient(value, manual.trainable_variables)
            optimizer.apply_gradients(zip(grads, manual.trainable_variables))
    for a, b in zip(fitted.get_weights(), manual.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_compile_accepts_string_names_and_resolves_accuracy_visibly():
    x, y = _classification_data()
    model = _mlp()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    assert model.metrics_names == ["loss", "accuracy"]
    model.fit(x, y, epochs=1, verbose=0)
    assert type(model.metrics[1]).__name__ == "SparseCategoricalAccuracy"
    assert model.metrics_names == ["loss", "accuracy"]


def test_fit_learns_and_history_records_every_epoch():
    x, y = _classification_data(512)
    model = _mlp()
    model.compile(ks.optimizers.Adam(0.02), ks.losses.SparseCategoricalCrossentropy(True),
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=8, verbose=0)
    assert history.epoch == list(range(8))
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.85
    loss, accuracy = model.evaluate(x, y, batch_size=64)
    assert accuracy > 0.85 and loss < history.history["loss"][0]
    assert model.predict(x, batch_size=100).shape == (512, 3)


def test_metrics_are_reset_every_epoch():
    x, y = _classification_data(64)
    seen = []

    class Spy(ks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 0:
                seen.append(float(self.model.metrics[0].count))

    model = _mlp()
    model.compile("sgd", ks.losses.SparseCategoricalCrossentropy(True))
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=[Spy()])
    assert seen == [16.0, 16.0, 16.0]


def test_validation_split_takes_the_last_fraction():
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    y = np.arange(10, dtype=np.float32).reshape(10, 1)
    seen = []

    class Identity(ks.Model):
        def __init__(self):
            super().__init__()
            self.scale = ks.Variable(1.0)

        def call(self, inputs):
            seen.append(inputs.numpy().ravel().tolist())
            return inputs * self.scale

    model = Identity()
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=10, epochs=1, validation_split=0.2, shuffle=False, verbose=0)
    assert seen == [list(range(8)), [8.0, 9.0]]


def test_fit_on_an_iterable_of_batches_and_validation_data():
    x, y = _classification_data(64)
    batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    model = _mlp()
    model.compile("adam", ks.losses.SparseCategoricalCrossentropy(True), metrics=["accuracy"])
    history = model.fit(batches, epochs=2, validation_data=(x, y), verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}


@pytest.mark.parametrize("one_hot", [False, True])
def test_class_weight_for_sparse_and_one_hot_labels(one_hot):
    x = np.ones((4, 2), np.float32)
    labels = np.array([0, 0, 1, 1])
    y = np.eye(2, dtype=np.float32)[labels] if one_hot else labels
    loss = (ks.losses.CategoricalCrossentropy(from_logits=True) if one_hot
            else ks.losses.SparseCategoricalCrossentropy(from_logits=True))

    def loss_after_one_epoch(class_weight):
        ks.random.set_seed(3)
        model = ks.Sequential([ks.layers.Dense(2, kernel_initializer="ones")])
        model.compile(ks.optimizers.SGD(0.0), loss)
        return model.fit(x, y, batch_size=4, epochs=1, verbose=0,
                         class_weight=class_weight).history["loss"][0]

    # all examples have the same logits, so per-example losses are equal: weights scale it
    base = loss_after_one_epoch(None)
    assert loss_after_one_epoch({0: 3.0, 1: 1.0}) == pytest.approx(base * (3 + 3 + 1 + 1) / 4)


def test_early_stopping_restores_best_weights_even_when_it_did_not_stop():
    x, y = _classification_data(64)
    model = _mlp()
    model.compile(ks.optimizers.SGD(0.5), ks.losses.SparseCategoricalCrossentropy(True))
    snapshots = []

    class Snap(ks.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            snapshots.append((logs["loss"], self.model.get_weights()))

    stopper = ks.callbacks.EarlyStopping(monitor="loss", patience=100, restore_best_weights=True)
    model.fit(x, y, epochs=5, verbose=0, callbacks=[Snap(), stopper])
    assert stopper.stopped_epoch is None
    best = min(range(5), key=lambda i: snapshots[i][0])
    for a, b in zip(model.get_weights(), snapshots[best][1]):
        np.testing.assert_array_equal(a, b)


def test_early_stopping_stops_training():
    x, y = _classification_data(64)
    model = _mlp()
    model.compile(ks.optimizers.SGD(0.0), ks.losses.SparseCategoricalCrossentropy(True))
    history = model.fit(x, y, epochs=20, verbose=0,
                        callbacks=[ks.callbacks.EarlyStopping(monitor="loss", patience=1)])
    assert len(history.epoch) == 2


def test_stop_training_from_a_callback_is_honoured_mid_epoch():
    x, y = _classification_data(64)

    class Stop(ks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    model = _mlp()
    model.compile("sgd", ks.losses.SparseCategoricalCrossentropy(True))
    history = model.fit(x, y, batch_size=8, epochs=5, verbose=0, callbacks=[Stop()])
    assert history.epoch == [0]
    assert float(model.optimizer.iterations) == 2


def test_learning_rate_scheduler_sets_the_rate_each_epoch():
    x, y = _classification_data(32)
    model = _mlp()
    model.compile(ks.optimizers.SGD(0.1), ks.losses.SparseCategoricalCrossentropy(True))
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[
        ks.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3])


def test_csv_logger_writes_a_row_per_epoch(tmp_path):
    x, y = _classification_data(32)
    model = _mlp()
    model.compile("sgd", ks.losses.SparseCategoricalCrossentropy(True), metrics=["accuracy"])
    path = tmp_path / "log.csv"
    model.fit(x, y, epochs=3, verbose=0, callbacks=[ks.callbacks.CSVLogger(path)])
    lines = path.read_text().strip().splitlines()
    assert lines[0] == "epoch,loss,accuracy" and len(lines) == 4


def test_verbose_two_prints_one_line_per_epoch_and_zero_is_silent(capsys):
    x, y = _classification_data(32)
    model = _mlp()
    model.compile("sgd", ks.losses.SparseCategoricalCrossentropy(True), metrics=["accuracy"])
    model.fit(x, y, epochs=2, verbose=2)
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 2 and out[0].startswith("Epoch 1/2 - loss: ") and "accuracy: " in out[0]
    model.fit(x, y, epochs=2, verbose=0)
    assert capsys.readouterr().out == ""


def test_progress_bar_in_a_terminal_and_lines_in_a_file():
    class FakeTTY(io.StringIO):
        def isatty(self):
            return True

    terminal, plain = FakeTTY(), io.StringIO()
    bar = ks.callbacks.ProgbarLogger(1, stream=terminal)
    lines = ks.callbacks.ProgbarLogger(1, stream=plain)
    for logger in (bar, lines):
        logger.set_params({"epochs": 1, "steps": 2})
        logger.on_epoch_begin(0)
        logger.on_train_batch_end(0, {"loss": 1.0})
        logger.on_train_batch_end(1, {"loss": 0.5})
        logger.on_epoch_end(0, {"loss": 0.5})
    assert "2/2" in terminal.getvalue() and "loss=0.5000" in terminal.getvalue()
    assert plain.getvalue() == "Epoch 1/1 - loss: 0.5000\n"


def test_regularization_losses_are_part_of_the_training_loss():
    x = np.ones((4, 3), np.float32)
    y = np.zeros((4, 1), np.float32)
    model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="ones",
                                           kernel_regularizer=ks.regularizers.l2(0.1))])
    model.compile(ks.optimizers.SGD(0.0), "mse")
    loss = model.fit(x, y, batch_size=4, verbose=0).history["loss"][0]
    assert loss == pytest.approx(9.0 + 0.1 * 3)


def test_bad_inputs_are_clear_errors():
    x, y = _classification_data(32)
    model = _mlp()
    with pytest.raises(RuntimeError, match=r"call compile\(optimizer, loss, metrics\) before fit"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match="adamm"):
        model.compile("adamm", "mse")
    with pytest.raises(ValueError, match="msee"):
        model.compile("adam", "msee")
    model.compile("adam", ks.losses.SparseCategoricalCrossentropy(True))
    with pytest.raises(ks.InvalidArgumentError, match="x has 32, y has 31"):
        model.fit(x, y[:31], verbose=0)
    with pytest.raises(ks.InvalidArgumentError, match="7"):
        model.fit(x, np.full(32, 7), verbose=0)


def test_dropout_and_batch_norm_get_training_true_in_fit_and_false_in_evaluate():
    modes = []

    class Probe(ks.layers.Layer):
        def call(self, inputs, training=None):
            modes.append(training)
            return inputs

    model = ks.Sequential([Probe(), ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.ones((4, 2), np.float32)
    model.fit(x, np.ones((4, 1), np.float32), batch_size=4, verbose=0)
    model.evaluate(x, np.ones((4, 1), np.float32))
    model.predict(x)
    assert modes == [True, False, False]


def test_save_and_load_weights(tmp_path):
    model = _mlp()
    model.build((None, 6))
    path = os.fspath(tmp_path / "w.h5")
    model.save_weights(path)
    other = _mlp()
    other.load_weights(path)
    other.build((None, 6))
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_steps_per_epoch_on_an_infinite_dataset():
    x, y = _classification_data(64)
    data = ks.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)
    model = _mlp()
    model.compile("sgd", ks.losses.SparseCategoricalCrossentropy(True))
    history = model.fit(data, epochs=3, steps_per_epoch=5, verbose=0)
    assert history.epoch == [0, 1, 2]
    assert int(model.optimizer.iterations) == 15


def test_fit_reads_a_compiled_steps_logs_only_where_they_are_used(monkeypatch):
    """On a GPU, reading a step's loss waits for the step: fit turns the logs into Python
    values at the epoch's end (and for callbacks that want each batch's logs), not per step."""
    from kerasish.core import recording
    from kerasish.models import model as model_module

    conversions = []
    original = model_module._pythonify_logs

    def counting(logs):
        if recording.current_tracer() is None:  # (while traced, the logs stay tensors)
            conversions.append(1)
        return original(logs)

    monkeypatch.setattr(model_module, "_pythonify_logs", counting)
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.ones((40, 3), np.float32)
    history = model.fit(x, np.zeros((40, 1), np.float32), batch_size=4, verbose=0)
    assert len(conversions) <= 2  # ten steps (the two traced ones run Python)
    assert set(history.history) == {"loss", "mae"}
    logs = model.train_on_batch(x[:4], np.zeros((4, 1), np.float32), return_dict=True)
    assert isinstance(logs["loss"], float)


def test_compile_takes_keras_3s_positional_order_and_names_the_old_one():
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse", None, ["mae"])  # optimizer, loss, loss_weights, metrics
    history = model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    assert set(history.history) == {"loss", "mae"}
    with pytest.raises(TypeError, match=r"the third argument is loss_weights in Keras 3 .* "
                                        r"pass metrics=\['accuracy'\]"):
        model.compile("sgd", "mse", ["accuracy"])
    with pytest.raises(ValueError, match="steps_per_execution must be 1"):
        model.compile("sgd", "mse", steps_per_execution=4)
    model.compile("sgd", "mse", jit_compile=True, auto_scale_loss=False)
