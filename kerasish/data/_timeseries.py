"""Sliding windows over a time series as a `Dataset` (`ks.utils.timeseries_dataset_from_array`).

Windows are never materialized all at once: the dataset holds the start positions of
the windows (shuffled once, as Keras does), batches them, and gathers each batch of
windows from the array with one fancy index when the batch is produced.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import random as ks_random
from kerasish.data.dataset import Dataset


def _positive(value, name: str, length: int | None = None) -> int:
    """`value` as an int; it must be positive, and below `length` when one is given."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(
            f"timeseries_dataset_from_array: {name} must be a positive integer, got {value!r}"
        )
    if length is not None and value >= length:
        raise ValueError(
            f"timeseries_dataset_from_array: {name} must be lower than the length of the data "
            f"({length}), got {name}={value}"
        )
    return int(value)


def _check_bounds(start_index, end_index, length: int) -> tuple:
    if start_index is not None and not 0 <= start_index < length:
        raise ValueError(
            f"timeseries_dataset_from_array: start_index must be in [0, {length}) (the data "
            f"has {length} rows), got start_index={start_index}"
        )
    if end_index is not None:
        if not 0 < end_index < length:
            raise ValueError(
                f"timeseries_dataset_from_array: end_index must be in (0, {length}) (the data "
                f"has {length} rows; None for the end), got end_index={end_index}"
            )
        if start_index is not None and end_index <= start_index:
            raise ValueError(
                f"timeseries_dataset_from_array: end_index must be higher than start_index, "
                f"got start_index={start_index}, end_index={end_index}"
            )
    return (0 if start_index is None else int(start_index),
            length if end_index is None else int(end_index))


def timeseries_dataset_from_array(
    data,
    targets,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    format: str = "tf",  # noqa: A002 - Keras's argument name
) -> Dataset:
    """A dataset of sliding windows over `data` (rows are time steps), as Keras 3 makes it.

    Window i starts at row `start_index + i * sequence_stride` and takes
    `sequence_length` rows, `sampling_rate` apart; only windows that end before
    `end_index` are made. Its target is `targets[start_index + i * sequence_stride]`
    (the row where the window starts: to predict the step after a window, pass
    `targets=data[sequence_length:]`, as in Keras's examples).

    Args:
        data: an array (or tensor, or list) whose first axis is time.
        targets: an array of targets aligned with `data`'s rows, or None (elements
            are then windows alone). There may be fewer targets than rows: windows
            are made only for starts that have a target.
        sequence_length: rows per window.
        sequence_stride: rows between the starts of successive windows.
        sampling_rate: rows between the steps of a window (2: every other row).
        batch_size: windows per batch; None: the elements are single windows.
        shuffle: shuffle the windows (once, from `seed`, as Keras does; then, like
            Keras, within a buffer of `8 * batch_size` windows on every pass).
        seed: an integer for reproducible shuffles (None: from `ks.random`).
        start_index, end_index: only rows in [start_index, end_index) are used
            (e.g. the first 80% for training, the rest for validation).
        format: "tf" (Keras's default): a dataset with `tf.data`'s interface, here a
            `ks.data.Dataset`. Keras's other choice, "grain", is a Google library for JAX
            input pipelines that kerasish does not use: it raises, saying so.

    Returns:
        A `ks.data.Dataset` of `(windows, targets)` batches of shape
        (batch, sequence_length, *features) and (batch, *target_shape), or of
        windows alone when `targets` is None.

    Raises:
        ValueError: naming the argument, for a non-positive length, stride or rate,
            a stride or rate not below the data's length, bounds outside the data, or
            another `format`.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> data = np.arange(10)
        >>> ds = ks.utils.timeseries_dataset_from_array(
        ...     data[:-3], targets=data[3:], sequence_length=3, batch_size=2)
        >>> x, y = next(iter(ds))
        >>> x.numpy().tolist(), y.numpy().tolist()
        ([[0, 1, 2], [1, 2, 3]], [3, 4])
    """
    if format == "grain":
        raise ValueError(
            'timeseries_dataset_from_array: format="grain" makes a Grain dataset, a JAX input '
            'library kerasish does not use; use format="tf" (a ks.data.Dataset, which fit, '
            "evaluate and predict take)"
        )
    if format != "tf":
        raise ValueError(
            f'timeseries_dataset_from_array: format must be "tf", got format={format!r}'
        )
    data = np.asarray(data)
    if data.ndim == 0:
        raise ValueError("timeseries_dataset_from_array: data must have a time axis, got a "
                         "scalar")
    length = len(data)
    sequence_length = _positive(sequence_length, "sequence_length")
    sampling_rate = _positive(sampling_rate, "sampling_rate", length)
    sequence_stride = _positive(sequence_stride, "sequence_stride", length)
    if batch_size is not None:
        batch_size = _positive(batch_size, "batch_size")
    start_index, end_index = _check_bounds(start_index, end_index, length)
    targets = None if targets is None else np.asarray(targets)

    count = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        count = min(count, len(targets) - start_index)
    starts = np.arange(0, max(count, 0), sequence_stride, dtype=np.int64) + start_index
    if shuffle:
        if seed is None:
            seed = int(ks_random.randint((), 0, 2**31 - 1, dtype="int64").numpy())
        np.random.RandomState(seed).shuffle(starts)
    offsets = np.arange(sequence_length, dtype=np.int64) * sampling_rate

    def gather(positions):
        positions = positions.numpy()
        windows = data[positions[..., None] + offsets]
        return windows if targets is None else (windows, targets[positions])

    dataset = Dataset.from_tensor_slices(starts)
    if shuffle:
        dataset = dataset.shuffle(1024 if batch_size is None else 8 * batch_size, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset.map(gather)
