"""`fit` on a `ks.data.Dataset` that reshuffles every epoch resumes exactly with
BackupAndRestore: the dataset's pass counters and where the pass stood are part of the
backup, so a new process (a freshly built pipeline, another global seed) ends bit for bit
where an uninterrupted run ends."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks
from kerasish.data import Dataset

EPOCHS = 4


def _arrays(n=48):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ rng.standard_normal((4, 3))).argmax(axis=1).astype(np.int32)
    return x, y


def _pipeline(kind):
    """A freshly built pipeline, as a new process would build it (seeds are non-zero)."""
    x, y = _arrays()
    if kind == "slices":  # index plan: vectorized shuffle, gathered batches
        return Dataset.from_tensor_slices((x, y)).shuffle(48, seed=7).batch(8)
    if kind == "elements":  # element loop, small buffer, prefetch thread
        return (Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2.0, b))
                .shuffle(10, seed=11).batch(8).prefetch(2))
    if kind == "repeat":  # reshuffles inside an infinite repeat; fit uses steps_per_epoch
        return Dataset.from_tensor_slices((x, y)).shuffle(48, seed=5).batch(8).repeat()
    raise AssertionError(kind)


def _fit_args(kind):
    # "repeat": 4 steps per epoch out of 6-batch passes, so passes straddle epochs
    return dict(epochs=EPOCHS, verbose=0, steps_per_epoch=4 if kind == "repeat" else None)


def _model(seed=1):
    ks.random.set_seed(seed)
    model = ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dropout(0.25),
                           ks.layers.Dense(3)])
    model.compile(ks.optimizers.Adam(0.01),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _state(model):
    return [v.numpy().copy() for v in model.variables] + [
        v.numpy().copy() for _, _, v in model.optimizer.slot_variables()] + [
        int(model.optimizer.iterations)]


class _Interrupt(ks.callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.at, self.epoch = (epoch, batch), None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise KeyboardInterrupt(f"interrupted at epoch {self.epoch} batch {batch}")


class _Record(ks.callbacks.Callback):
    """The (epoch, batch) pairs trained."""

    def __init__(self):
        super().__init__()
        self.trained, self.epoch = [], None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self.trained.append((self.epoch, batch))


@pytest.mark.parametrize("kind", ["slices", "elements", "repeat"])
@pytest.mark.parametrize("save_freq, stop", [("epoch", (2, 1)), (3, (2, 3))],
                         ids=["later-epoch", "mid-epoch"])
@pytest.mark.cpu
def test_a_reshuffling_dataset_resumes_bit_for_bit(tmp_path, kind, save_freq, stop):
    reference = _model()
    reference.fit(_pipeline(kind), **_fit_args(kind))
    expected = _state(reference)

    backup_dir = tmp_path / "backup"
    with pytest.raises(KeyboardInterrupt):
        _model().fit(_pipeline(kind), **_fit_args(kind),
                     callbacks=[ks.callbacks.BackupAndRestore(backup_dir, save_freq),
                                _Interrupt(*stop)])

    ks.random.set_seed(4321)  # a new process: other weights, another global stream
    resumed, record = _model(seed=99), _Record()
    resumed.fit(_pipeline(kind), **_fit_args(kind),
                callbacks=[ks.callbacks.BackupAndRestore(backup_dir, save_freq), record])
    steps = 4 if kind == "repeat" else 6
    # the last backup before the stop: an epoch end, or every 3 batches (mid-epoch)
    done = 2 * steps if save_freq == "epoch" else (2 * steps + stop[1]) // 3 * 3
    assert record.trained[0] == divmod(done, steps)
    assert len(record.trained) == EPOCHS * steps - done
    if save_freq == 3:
        assert record.trained[0][1] != 0  # really resumed inside an epoch
    for got, want in zip(_state(resumed), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_without_the_pass_counters_the_resumed_order_would_differ():
    """What the backup holds matters: a rebuilt pipeline's first pass is not the third."""
    third = None
    dataset = _pipeline("slices")
    for _ in range(3):
        third = [y.numpy().tolist() for _, y in dataset]
    rebuilt_first = [y.numpy().tolist() for _, y in _pipeline("slices")]
    assert third != rebuilt_first


def test_data_that_runs_out_under_steps_per_epoch_stops_training_with_a_warning():
    """As in Keras: a generator used up (or an empty dataset) ends fit, it does not hang."""
    x, y = _arrays(16)

    def eight_batches():  # a generator object: iterated once only
        for i in range(0, 16, 2):
            yield x[i:i + 2], y[i:i + 2]

    model = _model()
    with pytest.warns(UserWarning, match=r"ran out before the epoch's 3 steps"):
        history = model.fit(eight_batches(), epochs=5, steps_per_epoch=3, verbose=0)
    assert len(history.history["loss"]) == 3 and int(model.optimizer.iterations) == 8
    empty = Dataset.from_tensor_slices((x[:0], y[:0])).batch(4)
    with pytest.warns(UserWarning, match="ran out"):
        history = _model().fit(empty, epochs=2, steps_per_epoch=2, verbose=0)
    assert len(history.history["loss"]) == 1


def test_the_pass_counters_are_found_through_an_mpi_ranks_share_of_the_batches():
    """Under MPI, fit wraps the batches in this rank's share; the backup still finds them."""
    from kerasish.core.tracking import named_variables
    from kerasish.distribute.training import ShardedBatches
    from kerasish.models import data_adapter

    dataset = _pipeline("elements")
    [(_, passes)] = named_variables(dataset)
    share = ShardedBatches(data_adapter.batches(dataset, batch_size=None))
    assert [id(v) for v in data_adapter.pass_counters(share)] == [id(passes)]
    assert data_adapter.pass_counters(ShardedBatches(data_adapter.batches(*_arrays()))) == []


def test_resuming_with_less_data_than_the_backup_drew_is_a_clear_error(tmp_path):
    x, y = _arrays()
    with pytest.raises(KeyboardInterrupt):
        _model().fit(_pipeline("slices"), epochs=2, verbose=0,
                     callbacks=[ks.callbacks.BackupAndRestore(tmp_path, 4), _Interrupt(0, 5)])
    smaller = Dataset.from_tensor_slices((x[:16], y[:16])).shuffle(16, seed=7).batch(8)
    with pytest.raises(ks.InvalidArgumentError,
                       match="resuming after batch 4 of a pass over the data, but the data "
                             "gives only 2 batches"):
        _model().fit(smaller, epochs=2, verbose=0,
                     callbacks=[ks.callbacks.BackupAndRestore(tmp_path, 4)])
