"""Keras 3's `PyDataset` (and its older name `Sequence`): batches from Python code.

A subclass says how many batches an epoch has (`__len__`) and how to make batch `index`
(`__getitem__`); `fit`, `evaluate` and `predict` take it as they take a dataset. With
`workers` > 1, that many threads make the next batches ahead of the training loop (up to
`max_queue_size` of them), and the loop receives them in index order.
"""

from __future__ import annotations

import concurrent.futures

from kerasish.core import arguments


class PyDataset:
    """Batches made by Python code: override `__len__` and `__getitem__(index)`.

    `__getitem__` returns a batch: x, (x, y) or (x, y, sample_weight), arrays or tensors.
    `on_epoch_begin` and `on_epoch_end` are called around each pass (shuffle there).

    Args:
        workers: how many threads make batches ahead of the loop (1: made when needed).
        use_multiprocessing: processes instead of threads; refused here (the batches
            would be pickled between processes), so pass threads' `workers`.
        max_queue_size: how many batches may be made ahead.

    Raises:
        NotImplementedError: `use_multiprocessing=True`.
        InvalidArgumentError: `workers` or `max_queue_size` that is not a positive integer.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> class Squares(ks.utils.PyDataset):
        ...     def __len__(self):
        ...         return 3
        ...     def __getitem__(self, index):
        ...         x = np.full((4, 1), float(index), np.float32)
        ...         return x, x * x
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> len(model.fit(Squares(workers=2), epochs=2, verbose=0).history["loss"])
        2
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = arguments.integer(workers, "workers", "PyDataset")
        self._max_queue_size = arguments.integer(max_queue_size, "max_queue_size", "PyDataset")
        if use_multiprocessing:
            raise NotImplementedError(
                "PyDataset: use_multiprocessing=True is not available in kerasish; threads make "
                "batches ahead with workers=N")
        self._use_multiprocessing = False

    # (a subclass that does not call super().__init__ gets the defaults)
    @property
    def workers(self) -> int:
        return getattr(self, "_workers", 1)

    @property
    def use_multiprocessing(self) -> bool:
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self) -> int:
        return getattr(self, "_max_queue_size", 10)

    @property
    def num_batches(self):
        """Batches per epoch: `len(self)`."""
        return len(self)

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def on_epoch_begin(self) -> None:
        """Called before each pass."""

    def on_epoch_end(self) -> None:
        """Called after each complete pass (shuffle the order here, for instance)."""


Sequence = PyDataset  # Keras's older name


class PyDatasetEpochs:
    """An iterable over a `PyDataset`: each `iter()` is one epoch, its batches in index
    order, made `workers` at a time ahead of the loop; `len()` is the dataset's."""

    def __init__(self, dataset: PyDataset):
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __iter__(self):
        dataset = self.dataset
        dataset.on_epoch_begin()
        count = len(dataset)
        workers = dataset.workers
        if workers <= 1:
            for index in range(count):
                yield dataset[index]
        else:
            ahead = max(dataset.max_queue_size, workers)
            with concurrent.futures.ThreadPoolExecutor(
                    workers, thread_name_prefix="PyDataset") as pool:
                pending = {}
                for index in range(count):
                    for upcoming in range(index, min(index + ahead, count)):
                        if upcoming not in pending:
                            pending[upcoming] = pool.submit(dataset.__getitem__, upcoming)
                    yield pending.pop(index).result()
        dataset.on_epoch_end()

