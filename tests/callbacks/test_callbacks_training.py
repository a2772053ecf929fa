"""ReduceLROnPlateau, TerminateOnNaN, LambdaCallback and BackupAndRestore in `fit`; fit's
argument checks for datasets."""

from __future__ import annotations

import os

import numpy as np
import pytest

import kerasish as ks


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ rng.standard_normal((4, 3))).argmax(axis=1).astype(np.int32)
    return x, y


def _model(seed=1):
    ks.random.set_seed(seed)
    model = ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dropout(0.3),
                           ks.layers.Dense(3)])
    model.compile(ks.optimizers.Adam(0.01),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


# ---------------------------------------------------------------- BackupAndRestore


class _Interrupt(ks.callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.at = (epoch, batch)

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise KeyboardInterrupt(f"interrupted at epoch {self.epoch} batch {batch}")


class _Record(ks.callbacks.Callback):
    """The (epoch, batch) pairs that were trained."""

    def __init__(self):
        super().__init__()
        self.trained = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self.trained.append((self.epoch, batch))


def _state(model):
    return [v.numpy().copy() for v in model.variables] + [
        v.numpy().copy() for _, _, v in model.optimizer.slot_variables()] + [
        int(model.optimizer.iterations)]


@pytest.mark.cpu
@pytest.mark.parametrize("save_freq", ["epoch", 1, 2])
def test_backup_and_restore_resumes_at_the_same_epoch_and_batch_bit_for_bit(tmp_path, save_freq):
    x, y = _data()
    fit_args = dict(batch_size=8, epochs=4, verbose=0, shuffle=True)

    reference = _model()
    reference.fit(x, y, **fit_args)
    expected = _state(reference)

    backup_dir = tmp_path / "backup"
    interrupted = _model()
    with pytest.raises(KeyboardInterrupt, match="epoch 2 batch 3"):
        interrupted.fit(x, y, callbacks=[ks.callbacks.BackupAndRestore(backup_dir, save_freq),
                                         _Interrupt(2, 3)], **fit_args)
    assert (backup_dir / "backup.h5").exists()

    ks.random.set_seed(12345)  # a new process: other weights, another random stream
    resumed, record = _model(seed=99), _Record()
    resumed.fit(x, y, callbacks=[ks.callbacks.BackupAndRestore(backup_dir, save_freq), record],
                **fit_args)
    last_saved = {"epoch": (2, 0), 1: (2, 3), 2: (2, 2)}[save_freq]  # 5 batches per epoch
    assert record.trained[0] == last_saved and record.trained[-1] == (3, 4)
    assert len(record.trained) == 20 - (last_saved[0] * 5 + last_saved[1])
    for got, want in zip(_state(resumed), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    assert not backup_dir.exists()  # delete_checkpoint=True: removed after a finished fit


@pytest.mark.cpu
def test_double_checkpoint_resumes_from_the_previous_backup_when_the_latest_is_damaged(
        tmp_path):
    x, y = _data()
    fit_args = dict(batch_size=8, epochs=4, verbose=0, shuffle=True)
    reference = _model()
    reference.fit(x, y, **fit_args)
    expected = _state(reference)

    interrupted = _model()
    backup = ks.callbacks.BackupAndRestore(tmp_path, 1, True)  # Keras's positional order
    with pytest.raises(KeyboardInterrupt):
        interrupted.fit(x, y, callbacks=[backup, _Interrupt(2, 3)], **fit_args)
    assert sorted(os.listdir(tmp_path)) == ["backup.h5", "backup.previous.h5"]
    (tmp_path / "backup.h5").write_bytes(b"damaged")

    resumed, record = _model(seed=99), _Record()
    with pytest.warns(UserWarning, match=r"backup.h5.*using the previous backup instead"):
        resumed.fit(x, y, callbacks=[ks.callbacks.BackupAndRestore(tmp_path, 1, True), record],
                    **fit_args)
    assert record.trained[0] == (2, 2)  # the previous backup was taken one batch earlier
    for got, want in zip(_state(resumed), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    assert not tmp_path.exists()  # both backups removed, then the empty directory


def test_a_damaged_backup_without_a_previous_one_is_a_checkpoint_error(tmp_path):
    x, y = _data()
    (tmp_path / "backup.h5").write_bytes(b"damaged")
    with pytest.raises(ks.checkpoint.CheckpointError, match="backup.h5"):
        _model().fit(x, y, verbose=0, callbacks=[ks.callbacks.BackupAndRestore(tmp_path)])


def test_backup_is_kept_when_asked_and_a_finished_run_is_not_repeated(tmp_path):
    x, y = _data()
    model, record = _model(), _Record()
    backup = ks.callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False)
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[backup])
    assert (tmp_path / "backup.h5").exists()
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[backup, record])
    assert record.trained == []  # the backup says both epochs are done
    model.fit(x, y, batch_size=8, epochs=3, verbose=0, callbacks=[backup, record])
    assert record.trained == [(2, b) for b in range(5)]


def test_backup_and_restore_rejects_a_bad_save_freq(tmp_path):
    for bad in (0, -1, "batch", 1.5, True):
        with pytest.raises(ValueError, match=r"save_freq must be 'epoch' or a positive number"):
            ks.callbacks.BackupAndRestore(tmp_path, save_freq=bad)


# ---------------------------------------------------------------- ReduceLROnPlateau


class _Losses(ks.callbacks.Callback):
    """Replaces the monitored value with a scripted sequence."""

    def __init__(self, values):
        super().__init__()
        self.values = list(values)

    def on_epoch_end(self, epoch, logs=None):
        logs["loss"] = self.values[epoch]


def _rates(values, **kwargs):
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(1.0), "mse")
    reduce = ks.callbacks.ReduceLROnPlateau(monitor="loss", **kwargs)
    history = model.fit(np.zeros((4, 2)), np.zeros((4, 1)), epochs=len(values), verbose=0,
                        callbacks=[_Losses(values), reduce])
    return [round(r, 6) for r in history.history["learning_rate"]], float(
        model.optimizer.learning_rate)


def test_reduce_lr_on_plateau_waits_patience_epochs_then_multiplies():
    rates, final = _rates([5, 4, 4, 4, 4, 4, 4], factor=0.5, patience=2)
    # epochs 2 and 3 do not improve on 4: reduced after epoch 3, then again after epoch 5
    assert rates == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.25] and final == 0.25


def test_reduce_lr_on_plateau_min_delta_cooldown_min_lr_and_max_mode():
    rates, _ = _rates([5, 4.99995, 4.9999, 4.99985], factor=0.5, patience=1)
    assert rates == [1.0, 1.0, 0.5, 0.25]  # improvements below min_delta=1e-4 do not count
    rates, _ = _rates([5, 6, 6, 6, 6, 6], factor=0.5, patience=1, cooldown=2)
    # reduced after epoch 1; epoch 2 is in the cooldown; epoch 3 ends it and waits 1 epoch
    assert rates == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    rates, final = _rates([5, 6, 6, 6, 6], factor=0.1, patience=1, min_lr=0.05)
    assert rates == [1.0, 1.0, 0.1, 0.05, 0.05] and final == pytest.approx(0.05)
    rates, _ = _rates([1, 2, 3, 3], factor=0.5, patience=1, mode="max")
    assert rates == [1.0, 1.0, 1.0, 1.0]


def test_reduce_lr_on_plateau_errors_and_missing_monitor(capsys):
    with pytest.raises(ValueError, match=r"factor must be in \[0, 1\), got 1.0"):
        ks.callbacks.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(ValueError, match=r"mode must be 'auto', 'min' or 'max', got 'up'"):
        ks.callbacks.ReduceLROnPlateau(mode="up")
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.warns(UserWarning, match=r"monitor 'val_loss' is not in the logs \(available: "):
        model.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0,
                  callbacks=[ks.callbacks.ReduceLROnPlateau()])


# ---------------------------------------------------------------- TerminateOnNaN, LambdaCallback


def test_terminate_on_nan_stops_at_the_first_bad_batch(capsys):
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(1.0), "mse")
    x = np.ones((16, 2), np.float32)
    y = np.where(np.arange(16) == 9, np.nan, 1.0).astype(np.float32)[:, None]
    record = _Record()
    history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                        callbacks=[ks.callbacks.TerminateOnNaN(), record])
    assert record.trained == [(0, 0), (0, 1), (0, 2)] and len(history.epoch) == 1
    assert capsys.readouterr().out == "Batch 2: the loss is nan; terminating training\n"


def test_lambda_callback_calls_the_given_functions_with_their_arguments():
    calls = []
    callback = ks.callbacks.LambdaCallback(
        on_train_begin=lambda logs: calls.append(("train_begin", logs)),
        on_epoch_begin=lambda epoch, logs: calls.append(("epoch_begin", epoch)),
        on_batch_end=lambda batch, logs: calls.append(("batch_end", batch, sorted(logs))),
        on_epoch_end=lambda epoch, logs: calls.append(("epoch_end", epoch, sorted(logs))),
        on_train_end=lambda logs: calls.append(("train_end",)),
        on_test_batch_end=lambda batch, logs: calls.append(("test_batch_end", batch)),
    )
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, epochs=1, verbose=0,
              callbacks=[callback])
    assert calls == [("train_begin", {}), ("epoch_begin", 0), ("batch_end", 0, ["loss"]),
                     ("batch_end", 1, ["loss"]), ("epoch_end", 0, ["loss"]), ("train_end",)]
    model.evaluate(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, callbacks=[callback])
    assert calls[-2:] == [("test_batch_end", 0), ("test_batch_end", 1)]


def test_lambda_callback_rejects_unknown_and_doubled_hooks():
    with pytest.raises(TypeError, match=r"on_epoch_finish is not a callback hook"):
        ks.callbacks.LambdaCallback(on_epoch_finish=print)
    with pytest.raises(TypeError, match=r"give on_train_batch_end or on_batch_end, not both"):
        ks.callbacks.LambdaCallback(on_batch_end=print, on_train_batch_end=print)


# ---------------------------------------------------------------- fit's arguments


def test_fit_on_a_dataset_ignores_batch_size_as_keras_does():
    x, y = _data()
    dataset = ks.data.Dataset.from_tensor_slices((x, y)).batch(8)
    model = _model()
    steps = []
    callback = ks.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: steps.append(b))
    model.fit(dataset, batch_size=3, verbose=0, callbacks=[callback])
    assert len(steps) == len(dataset)  # the dataset's own batches
    model.evaluate(dataset, batch_size=4)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"sample_weight must not be given when x is a dataset or iterable "
                             r"\(BatchDataset\)"):
        model.fit(dataset, sample_weight=np.ones(len(x)), verbose=0)
