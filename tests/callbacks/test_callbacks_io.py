"""ModelCheckpoint, the TensorBoard callback, and model.save_weights / load_weights."""

import os
import warnings

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.checkpoint import CheckpointError

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def load(logdir):
    acc = event_accumulator.EventAccumulator(
        str(logdir), size_guidance={event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def classification_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64)
    return x, y


def make_model(optimizer="adam"):
    model = ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dense(2)])
    model.compile(optimizer=optimizer,
                  loss=ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def h5_datasets(path):
    names = []
    with h5py.File(path, "r") as f:
        f["values"].visititems(
            lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return names


# ---------------------------------------------------------------- ModelCheckpoint


def drive(callback, model, logs_per_epoch):
    callback.set_model(model)
    callback.set_params({"epochs": len(logs_per_epoch)})
    callback.on_train_begin()
    for epoch, logs in enumerate(logs_per_epoch):
        callback.on_epoch_begin(epoch)
        callback.on_epoch_end(epoch, dict(logs))
    callback.on_train_end()


@pytest.fixture
def built_model():
    model = make_model()
    model(np.zeros((1, 4), np.float32))
    return model


def test_save_best_only_min(tmp_path, built_model):
    callback = ks.callbacks.ModelCheckpoint(str(tmp_path / "best-{epoch}.h5"), monitor="val_loss",
                                            save_best_only=True, mode="min")
    drive(callback, built_model, [{"val_loss": 1.0}, {"val_loss": 2.0}, {"val_loss": 0.5},
                                  {"val_loss": 0.5}, {"val_loss": 0.7}])
    assert sorted(os.listdir(tmp_path)) == ["best-1.h5", "best-3.h5"]
    assert callback.best == 0.5


@pytest.mark.parametrize("mode", ["max", "auto"])
def test_save_best_only_max_and_auto(tmp_path, built_model, mode):
    callback = ks.callbacks.ModelCheckpoint(str(tmp_path / "acc-{epoch}-{val_accuracy:.2f}.h5"),
                                            monitor="val_accuracy", save_best_only=True, mode=mode)
    drive(callback, built_model, [{"val_accuracy": 0.5}, {"val_accuracy": 0.75},
                                  {"val_accuracy": 0.6}, {"val_accuracy": 0.9}])
    assert sorted(os.listdir(tmp_path)) == ["acc-1-0.50.h5", "acc-2-0.75.h5", "acc-4-0.90.h5"]


def test_save_best_only_missing_monitor_warns_and_skips(tmp_path, built_model):
    callback = ks.callbacks.ModelCheckpoint(str(tmp_path / "w.h5"), monitor="val_loss",
                                            save_best_only=True)
    with pytest.warns(UserWarning, match="'val_loss' is not in the logs"):
        drive(callback, built_model, [{"loss": 1.0}])
    assert os.listdir(tmp_path) == []


def test_filename_template_with_an_unknown_key(tmp_path, built_model):
    callback = ks.callbacks.ModelCheckpoint(str(tmp_path / "w-{val_auc}.h5"))
    with pytest.raises(KeyError, match="val_auc.*available: epoch, loss"):
        drive(callback, built_model, [{"loss": 1.0}])


def test_bad_save_freq():
    with pytest.raises(ValueError, match="save_freq"):
        ks.callbacks.ModelCheckpoint("w.h5", save_freq=0)


def test_every_epoch_with_metric_values_in_the_name(tmp_path):
    x, y = classification_data()
    model = make_model()
    template = str(tmp_path / "w-{epoch:02d}-{val_loss:.4f}-{accuracy:.3f}.h5")
    history = model.fit(x[:48], y[:48], batch_size=16, epochs=3, verbose=0,
                        validation_data=(x[48:], y[48:]),
                        callbacks=[ks.callbacks.ModelCheckpoint(template)])
    h = history.history
    expected = sorted(f"w-{e + 1:02d}-{h['val_loss'][e]:.4f}-{h['accuracy'][e]:.3f}.h5"
                      for e in range(3))
    assert sorted(os.listdir(tmp_path)) == expected


def test_save_freq_in_batches(tmp_path):
    x, y = classification_data()  # 64 examples, batches of 16: 4 batches per epoch
    model = make_model()
    callback = ks.callbacks.ModelCheckpoint(str(tmp_path / "b-{epoch}-{loss:.5f}.h5"), save_freq=3)
    seen = []

    class Spy(ks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(logs["loss"])

    model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False, callbacks=[Spy(), callback])
    # batches 3 and 6 overall: the 3rd of epoch 1 and the 2nd of epoch 2
    expected = [f"b-1-{seen[2]:.5f}.h5", f"b-2-{seen[5]:.5f}.h5"]
    assert sorted(os.listdir(tmp_path)) == sorted(expected)


def test_save_weights_only_false_writes_the_optimizer_and_resumes_exactly(tmp_path):
    x, y = classification_data()
    model = make_model(ks.optimizers.Adam(0.01))
    model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False, callbacks=[
        ks.callbacks.ModelCheckpoint(str(tmp_path / "full-{epoch}.h5"), save_weights_only=False),
        ks.callbacks.ModelCheckpoint(str(tmp_path / "weights-{epoch}.h5")),
    ])
    full = h5_datasets(tmp_path / "full-2.h5")
    assert "optimizer/iterations" in full
    assert "optimizer/.slots/model/_layers/0/kernel/m" in full
    assert "optimizer/.slots/model/_layers/1/bias/v" in full
    assert not any(n.startswith("optimizer") or "/optimizer/" in n
                   for n in h5_datasets(tmp_path / "weights-2.h5"))

    model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    uninterrupted = [v.numpy() for v in model.variables]

    resumed = make_model(ks.optimizers.Adam(0.01))
    status = ks.Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(
        tmp_path / "full-2.h5")
    assert int(resumed.optimizer.iterations) == 8
    resumed.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    status.assert_consumed()
    for a, b in zip(uninterrupted, [v.numpy() for v in resumed.variables], strict=True):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- save_weights / load_weights


def test_save_weights_load_weights_round_trip(tmp_path):
    x, y = classification_data()
    model = make_model()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    path = model.save_weights(tmp_path / "weights.h5")
    assert path == str(tmp_path / "weights.h5")
    names = h5_datasets(path)
    assert sorted(names) == ["model/_layers/0/bias", "model/_layers/0/kernel",
                             "model/_layers/1/bias", "model/_layers/1/kernel", "save_counter"]

    built = make_model()
    built(x[:1])
    built.load_weights(path).assert_consumed()
    np.testing.assert_array_equal(built.predict(x), model.predict(x))

    # not built yet: restored when it is, with no warning
    lazy = ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dense(2)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = lazy.load_weights(path)
        assert len(status.pending) == 4
        np.testing.assert_array_equal(lazy.predict(x), model.predict(x))
        assert status.pending == []


def test_save_weights_overwrites_atomically_in_place(tmp_path):
    model = make_model()
    model(np.zeros((1, 4), np.float32))
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    model.layers[0].kernel.assign(np.ones((4, 8), np.float32))
    model.save_weights(path)
    assert sorted(os.listdir(tmp_path)) == ["w.h5"]  # no temporaries, no index
    other = make_model()
    other(np.zeros((1, 4), np.float32))
    other.load_weights(path)
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), np.ones((4, 8), np.float32))


def test_load_weights_errors(tmp_path):
    model = make_model()
    with pytest.raises(CheckpointError, match="not found"):
        model.load_weights(tmp_path / "missing.h5")
    small = ks.Sequential([ks.layers.Dense(3), ks.layers.Dense(2)])
    small(np.zeros((1, 4), np.float32))
    path = small.save_weights(tmp_path / "small.h5")
    model(np.zeros((1, 4), np.float32))
    with pytest.raises(CheckpointError, match=r"model/_layers/0/kernel.*\(4, 3\).*\(4, 8\)"):
        model.load_weights(path)


# ---------------------------------------------------------------- TensorBoard callback


def test_tensorboard_train_and_validation_runs(tmp_path):
    x, y = classification_data()
    model = make_model(ks.optimizers.SGD(0.05))
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, validation_split=0.25,
                        callbacks=[ks.callbacks.TensorBoard(tmp_path)])
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train, validation = load(tmp_path / "train"), load(tmp_path / "validation")
    assert sorted(train.Tags()["scalars"]) == ["epoch_accuracy", "epoch_learning_rate",
                                               "epoch_loss"]
    assert sorted(validation.Tags()["scalars"]) == ["epoch_accuracy", "epoch_loss"]
    h = history.history
    assert scalars(train, "epoch_loss") == [(e, pytest.approx(h["loss"][e])) for e in range(3)]
    assert scalars(train, "epoch_accuracy") == [(e, pytest.approx(h["accuracy"][e]))
                                                for e in range(3)]
    assert scalars(validation, "epoch_loss") == [(e, pytest.approx(h["val_loss"][e]))
                                                 for e in range(3)]
    assert scalars(validation, "epoch_accuracy") == [(e, pytest.approx(h["val_accuracy"][e]))
                                                     for e in range(3)]
    assert scalars(train, "epoch_learning_rate") == [(e, pytest.approx(0.05)) for e in range(3)]
    assert train.Tags()["histograms"] == []


def test_tensorboard_learning_rate_follows_the_scheduler(tmp_path):
    x, y = classification_data()
    model = make_model(ks.optimizers.SGD(0.1))
    model.fit(x, y, batch_size=32, epochs=3, verbose=0, callbacks=[
        ks.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1)),
        ks.callbacks.TensorBoard(tmp_path),
    ])
    values = [v for _, v in scalars(load(tmp_path / "train"), "epoch_learning_rate")]
    assert values == [pytest.approx(0.1), pytest.approx(0.05), pytest.approx(0.1 / 3)]


def test_tensorboard_histograms_and_batch_updates(tmp_path):
    x, y = classification_data()  # 4 batches per epoch
    model = make_model()
    model.fit(x, y, batch_size=16, epochs=3, verbose=0,
              callbacks=[ks.callbacks.TensorBoard(tmp_path, histogram_freq=2, update_freq=3)])
    train = load(tmp_path / "train")
    names = [v.name for v in model.variables]
    assert sorted(train.Tags()["histograms"]) == sorted(names)
    for name in names:
        assert [e.step for e in train.Histograms(name)] == [0, 2]
        assert train.Histograms(name)[-1].histogram_value.num == np.prod(
            [v for v in model.variables if v.name == name][0].shape)
    # every 3 batches, stepped by the optimizer's iterations
    assert [s for s, _ in scalars(train, "batch_loss")] == [3, 6, 9, 12]
    assert [s for s, _ in scalars(train, "batch_accuracy")] == [3, 6, 9, 12]


def test_tensorboard_update_freq_batch_and_resume_with_purge(tmp_path):
    x, y = classification_data()
    model = make_model()
    model.fit(x, y, batch_size=32, epochs=3, verbose=0,
              callbacks=[ks.callbacks.TensorBoard(tmp_path, update_freq="batch")])
    assert [s for s, _ in scalars(load(tmp_path / "train"), "batch_loss")] == [1, 2, 3, 4, 5, 6]
    # resume at epoch 1 (as from a checkpoint taken then): the old epochs >= 1 are hidden
    model.fit(x, y, batch_size=32, epochs=3, initial_epoch=1, verbose=0,
              callbacks=[ks.callbacks.TensorBoard(tmp_path, purge_step=1)])
    steps = [s for s, _ in scalars(load(tmp_path / "train"), "epoch_loss")]
    assert steps == [0, 1, 2]
    with pytest.raises(ValueError, match="update_freq"):
        ks.callbacks.TensorBoard(tmp_path, update_freq="sometimes")


def test_tensorboard_writers_are_closed_at_train_end(tmp_path):
    x, y = classification_data()
    model = make_model()
    callback = ks.callbacks.TensorBoard(tmp_path)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0, callbacks=[callback])
    assert callback._writers == {}
    assert len(scalars(load(tmp_path / "train"), "epoch_loss")) == 1
