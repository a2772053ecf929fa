"""ks.utils.timeseries_dataset_from_array: windows, targets, bounds, shuffling, errors, and
the same windows as Keras 3 (skips without keras)."""

import numpy as np
import pytest

import kerasish as ks

make = ks.utils.timeseries_dataset_from_array


def _collect(dataset, batched=True):
    """All windows (and targets) of a dataset, batches concatenated."""
    xs, ys = [], []
    for element in dataset:
        x, y = element if isinstance(element, tuple) else (element, None)
        xs.append(np.asarray(x) if batched else np.asarray(x)[None])
        if y is not None:
            ys.append(np.asarray(y) if batched else np.asarray(y)[None])
    return np.concatenate(xs), (np.concatenate(ys) if ys else None)


def test_windows_and_targets_predict_the_next_step():
    data = np.arange(100, dtype="float32").reshape(50, 2)
    dataset = make(data[:-5], targets=data[5:, 0], sequence_length=5, batch_size=8)
    x, y = _collect(dataset)
    assert x.shape == (41, 5, 2) and len(dataset) == 6
    for i in (0, 17, 40):
        np.testing.assert_array_equal(x[i], data[i:i + 5])
        assert y[i] == data[i + 5, 0]
    assert [b[0].shape[0] for b in dataset] == [8] * 5 + [1]


def test_stride_sampling_rate_and_bounds():
    data = np.arange(30)
    x, y = _collect(make(data, data * 10, sequence_length=3, sequence_stride=4, sampling_rate=2,
                         batch_size=None, start_index=5, end_index=25), batched=False)
    starts = np.arange(5, 25 - 4, 4)  # windows [s, s + 2, s + 4] that end before 25
    np.testing.assert_array_equal(x, starts[:, None] + np.array([0, 2, 4]))
    np.testing.assert_array_equal(y, starts * 10)


def test_fewer_targets_than_rows_limits_the_windows_and_none_gives_windows_only():
    data = np.arange(20)
    x, y = _collect(make(data, targets=np.arange(6), sequence_length=4, batch_size=4))
    assert len(x) == 6 and y.tolist() == list(range(6))
    x, y = _collect(make(data, None, sequence_length=4, batch_size=5))
    assert y is None and len(x) == 17
    assert list(make(data, None, sequence_length=30)) == []


def test_shuffle_is_a_permutation_reproducible_from_the_seed():
    data = np.arange(200)
    plain, _ = _collect(make(data, None, sequence_length=3, batch_size=16))
    first, _ = _collect(make(data, None, sequence_length=3, batch_size=16, shuffle=True, seed=7))
    again, _ = _collect(make(data, None, sequence_length=3, batch_size=16, shuffle=True, seed=7))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, plain)
    assert sorted(map(tuple, first)) == sorted(map(tuple, plain))
    ks.random.set_seed(3)  # without a seed: reproducible from the global seed
    unseeded, _ = _collect(make(data, None, sequence_length=3, batch_size=16, shuffle=True))
    ks.random.set_seed(3)
    again, _ = _collect(make(data, None, sequence_length=3, batch_size=16, shuffle=True))
    np.testing.assert_array_equal(unseeded, again)


@pytest.mark.parametrize("kwargs, message", [
    ({"sequence_length": 0}, r"sequence_length must be a positive integer, got 0"),
    ({"sequence_length": 2, "sampling_rate": 10},
     r"sampling_rate must be lower than the length of the data \(10\), got sampling_rate=10"),
    ({"sequence_length": 2, "sequence_stride": -1}, r"sequence_stride must be a positive integer"),
    ({"sequence_length": 2, "batch_size": 0}, r"batch_size must be a positive integer, got 0"),
    ({"sequence_length": 2, "start_index": 10}, r"start_index must be in \[0, 10\) .* got "
                                                r"start_index=10"),
    ({"sequence_length": 2, "end_index": 10}, r"end_index must be in \(0, 10\)"),
    ({"sequence_length": 2, "start_index": 5, "end_index": 3},
     r"end_index must be higher than start_index, got start_index=5, end_index=3"),
])
def test_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match="timeseries_dataset_from_array: " + message):
        make(np.arange(10), None, **kwargs)


@pytest.mark.parametrize("kwargs", [
    {"sequence_length": 6, "batch_size": 7},
    {"sequence_length": 4, "sequence_stride": 3, "sampling_rate": 2, "batch_size": 5,
     "start_index": 3, "end_index": 40},
    {"sequence_length": 5, "batch_size": None, "targets_offset": 5},
    {"sequence_length": 3, "batch_size": 4, "shuffle": True, "seed": 11},
])
def test_same_windows_as_keras(kwargs):
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(0)
    data = rng.normal(size=(60, 3)).astype("float32")
    kwargs = dict(kwargs)
    offset = kwargs.pop("targets_offset", 0)
    targets = rng.integers(0, 9, size=60 - offset)
    batched = kwargs["batch_size"] is not None
    ours = _collect(make(data[: 60 - offset], targets, **kwargs), batched)
    theirs = _collect(keras.utils.timeseries_dataset_from_array(
        data[: 60 - offset], targets, **kwargs), batched)
    if kwargs.get("shuffle"):  # Keras's own local shuffle is TF's; compare as sets
        def key(pair):
            return tuple(pair[0].ravel()) + (pair[1],)
        assert sorted(map(key, zip(*ours))) == sorted(map(key, zip(*theirs)))
    else:
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1], theirs[1])

