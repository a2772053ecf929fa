"""`Dataset`: tf.data's input pipeline, eager, on NumPy/CuPy arrays.

A Dataset describes a sequence of elements; nothing runs until it is iterated.
Each `for` loop (each `fit` epoch) starts a fresh pass. Elements are tensors or
nested tuples/dicts of tensors, created on the device current when the
iteration starts (`ks.device`), and never recorded on a GradientTape.

Pipelines over in-memory arrays stay fast: `from_tensor_slices(arrays)`
followed by any of `shuffle`, `repeat`, `take`, `skip`, `shard` is handled as
a stream of row indices, and `batch` then gathers whole batches with one
slice (or one fancy index) per array instead of stacking element tensors.
Everything else (map, filter, generators, ...) works element by element as
in TF.

Example:
    >>> import numpy as np
    >>> from kerasish.data import Dataset
    >>> x = np.arange(10, dtype="float32").reshape(5, 2)
    >>> y = np.arange(5)
    >>> ds = Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2, b)).batch(2)
    >>> [b.shape for b, _ in ds]
    [(2, 2), (2, 2), (1, 2)]
    >>> len(ds)
    3
"""

from __future__ import annotations

import threading

import numpy as np

from kerasish.core import backend, recording
from kerasish.core.tracking import Trackable
from kerasish.data import structure as st
from kerasish.data._prefetch import close_iterator
from kerasish.data.structure import TensorSpec

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
AUTOTUNE_PREFETCH = 2  # prefetch(AUTOTUNE): two elements ahead


class _PeekState(threading.local):
    active = False  # True while element_spec looks at the first element


peek = _PeekState()
MISSING = object()


# ------------------------------------------------------------------ iteration


class DatasetIterator:
    """One pass over a Dataset (what `iter(dataset)` returns).

    Elements come out on the device that was current when the iterator was
    created, and producing them is never recorded on a GradientTape. Close it
    (or use it in a `with` block) to stop a prefetch thread before the end.

    Args:
        dataset: the dataset to go through (usually given by `iter(dataset)`).

    Example:
        >>> import kerasish as ks
        >>> with iter(ks.data.Dataset.range(3)) as iterator:
        ...     [int(x) for x in iterator]
        [0, 1, 2]
    """

    __slots__ = ("_source", "_device", "__weakref__")

    def __init__(self, dataset: Dataset):
        self._device = backend.current_device()
        with recording.paused():
            self._source = dataset._iterate()

    def __iter__(self):
        return self

    def __next__(self):
        source = self._source
        if source is None:
            raise StopIteration
        if recording.active_tapes():
            with recording.paused():
                return self._next(source)
        return self._next(source)

    def _next(self, source):
        if backend.current_device() == self._device:
            return next(source)
        with backend._device_scope(*self._device):
            return next(source)

    get_next = __next__

    def close(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            close_iterator(source)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


# ------------------------------------------------------------------ Dataset


class Dataset(Trackable):
    """A sequence of elements, built from sources and transformations (tf.data's API).

    Build one with `Dataset.from_tensor_slices`, `from_tensors`,
    `from_generator`, `range` or `zip`, then chain transformations; iterate
    it with a `for` loop or pass it to `Model.fit`. Each transformation returns
    a new dataset and leaves its input unchanged; nothing runs until iteration.

    A dataset is checkpointable: `ks.Checkpoint(data=dataset)` saves how many
    passes each of its reshuffling `shuffle`s has made (reached through the
    inputs, as `data/input/passes`), so after a restore the next pass has the
    order the saved program's next pass would have had. `BackupAndRestore`
    does this for `fit`.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> features, labels = np.arange(10.0).reshape(5, 2), np.arange(5)
        >>> dataset = (ks.data.Dataset.from_tensor_slices((features, labels))
        ...            .map(lambda x, y: (x * 2.0, y)).batch(2))
        >>> [(tuple(x.shape), y.numpy().tolist()) for x, y in dataset]
        [((2, 2), [0, 1]), ((2, 2), [2, 3]), ((1, 2), [4])]
    """

    # -- what subclasses provide --------------------------------------------
    def _iterate(self):
        """A new iterator over the elements (the pipeline's internal protocol)."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _spec(self):
        """The element spec when it is known without producing an element, else None."""
        return None

    def _plan(self):
        """An index plan when the elements are rows of in-memory arrays, else None."""
        return None

    def _input_datasets(self) -> list:
        """(name, dataset) for the datasets this one reads."""
        return []

    def _tracked_children(self) -> list:
        # only the pipeline's own state (shuffle pass counters), never what map functions
        # or source tensors refer to
        return self._input_datasets()

    # -- sources --------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors) -> Dataset:
        """One element per row of `tensors` (an array, or a tuple/dict of arrays of equal length).

        Args:
            tensors: an array, tensor or list, or a tuple/dict (nested) of them,
                all with the same first dimension.

        Returns:
            A dataset whose elements are the rows, in the structure of `tensors`.

        Raises:
            ValueError: if the components have different first dimensions, or one
                is a scalar.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.from_tensor_slices([1, 2, 3])]
            [1, 2, 3]
        """
        return _sources.TensorSlicesDataset(tensors)

    @staticmethod
    def from_tensors(tensors) -> Dataset:
        """A dataset of exactly one element, `tensors` (a tensor or a tuple/dict of them).

        Args:
            tensors: an array, tensor or number, or a tuple/dict (nested) of them.

        Returns:
            A dataset whose single element has the structure of `tensors`.

        Example:
            >>> from kerasish.data import Dataset
            >>> [t.numpy().tolist() for t in Dataset.from_tensors([1, 2, 3])]
            [[1, 2, 3]]
        """
        return _sources.TensorsDataset(tensors)

    @staticmethod
    def from_generator(
        generator, output_types=None, output_shapes=None, args=None, output_signature=None
    ) -> Dataset:
        """Elements yielded by `generator(*args)`, called anew for every pass over the data.

        Args:
            generator: a callable returning an iterator (a generator function),
                not a generator object, which could only be iterated once.
            output_types, output_shapes: dtypes and shapes of the components
                (structures like the elements); the older spelling of
            output_signature: a `TensorSpec` or tuple/dict of them. Yielded
                values are converted to its dtypes and checked against its
                shapes (None matches any size). Without a signature, values are
                converted like `ks.convert_to_tensor` and the element spec is
                learnt from the first element.
            args: a tuple of arguments for `generator`.

        Example:
            >>> from kerasish.data import Dataset, TensorSpec
            >>> def pairs():
            ...     for i in range(3):
            ...         yield i, [float(i)] * 2
            >>> ds = Dataset.from_generator(
            ...     pairs, output_signature=(TensorSpec((), "int64"), TensorSpec((2,), "float32")))
            >>> [(int(a), b.numpy().tolist()) for a, b in ds]
            [(0, [0.0, 0.0]), (1, [1.0, 1.0]), (2, [2.0, 2.0])]
        """
        return _sources.GeneratorDataset(
            generator, output_types, output_shapes, args, output_signature
        )

    @staticmethod
    def range(*args, dtype=np.int64) -> Dataset:
        """Like Python's range, as scalar elements: range(5), range(2, 5), range(1, 10, 3).

        Args:
            *args: stop, or start and stop, or start, stop and step (integers).
            dtype: the elements' dtype (int64).

        Returns:
            A dataset of scalars.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(1, 10, 3)]
            [1, 4, 7]
        """
        return _sources.RangeDataset(*args, dtype=dtype)

    @staticmethod
    def zip(*datasets) -> Dataset:
        """Elements combined from several datasets, stopping at the shortest.

        Pass a tuple or dict of datasets (nested as you like) or several
        datasets as arguments: ``Dataset.zip((a, b))`` and ``Dataset.zip(a, b)``
        both yield (element of a, element of b).

        Args:
            *datasets: one tuple or dict of datasets, or several datasets.

        Returns:
            A dataset whose elements have the structure of what was passed.

        Raises:
            TypeError: without datasets, for a list, or for something in the
                structure that is not a Dataset (named by its position).

        Example:
            >>> from kerasish.data import Dataset
            >>> pairs = Dataset.zip(Dataset.range(3), Dataset.range(10, 20))
            >>> [(int(a), int(b)) for a, b in pairs]
            [(0, 10), (1, 11), (2, 12)]
        """
        if not datasets:
            raise TypeError("Dataset.zip: needs at least one dataset")
        return _transforms.ZipDataset(datasets[0] if len(datasets) == 1 else tuple(datasets))

    # -- transformations -----------------------------------------------------------
    def shuffle(
        self, buffer_size: int, seed=None, reshuffle_each_iteration: bool = True
    ) -> Dataset:
        """Randomly shuffle through a buffer of `buffer_size` elements (tf.data semantics).

        A buffer at least as large as the dataset gives a uniform shuffle; a
        smaller one only mixes nearby elements. With
        `reshuffle_each_iteration` every pass (every epoch; each repetition
        when shuffle comes before `repeat`) has a new order.

        With `seed` (a non-negative integer), the order of the k-th pass over
        this dataset is a function of `seed` and k alone: the global seed and
        the moment the dataset is built do not change it. A training loop that
        builds each epoch's pipeline with a seed derived from its own flags and
        the epoch number therefore resumes exactly after a restore. Without
        `seed`, the order is reproducible after `ks.random.set_seed` (from the
        number of seed-less shuffles built since), else random.

        Args:
            buffer_size: how many elements are drawn from at a time (positive).
            seed: a non-negative integer, or None.
            reshuffle_each_iteration: a new order every pass (else every pass
                repeats the first one's order).

        Returns:
            The shuffled dataset.

        Raises:
            ValueError: for a non-positive `buffer_size` or a negative or
                non-integer `seed`.

        Example:
            >>> import kerasish as ks
            >>> first = ks.data.Dataset.range(5).shuffle(5, seed=3)
            >>> ks.random.set_seed(99)  # no effect on an explicit seed
            >>> later = ks.data.Dataset.range(5).shuffle(5, seed=3)
            >>> [int(v) for v in first] == [int(v) for v in later]
            True
        """
        return _transforms.ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_calls=None,
        deterministic=None,
    ) -> Dataset:
        """Stack `batch_size` consecutive elements; the last batch may be smaller unless dropped.

        Args:
            batch_size: elements per batch (a positive integer).
            drop_remainder: drop a last batch smaller than `batch_size` (so every
                batch has the same shape).
            num_parallel_calls, deterministic: accepted for TF compatibility.

        Returns:
            A dataset of batches: each component gains a leading batch axis.

        Raises:
            ValueError: if `batch_size` is not a positive integer.

        Example:
            >>> import kerasish as ks
            >>> [b.numpy().tolist() for b in ks.data.Dataset.range(5).batch(2)]
            [[0, 1], [2, 3], [4]]
            >>> [b.numpy().tolist() for b in ks.data.Dataset.range(5).batch(2, drop_remainder=True)]
            [[0, 1], [2, 3]]
        """
        return _transforms.BatchDataset(self, batch_size, drop_remainder)

    def unbatch(self) -> Dataset:
        """Split each element along its first dimension into separate elements.

        Returns:
            A dataset of the rows of every element (the inverse of `batch`).

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.from_tensors([1, 2, 3]).unbatch()]
            [1, 2, 3]
        """
        return _transforms.UnbatchDataset(self)

    def repeat(self, count=None) -> Dataset:
        """Pass over the data `count` times (None or -1: forever).

        Each repetition is a new pass over the input, so a `shuffle` before
        `repeat` gives every repetition its own order.

        Args:
            count: the number of passes; None or -1 repeats forever.

        Returns:
            The repeated dataset (infinite for None or -1, unless the input is empty).

        Raises:
            ValueError: if `count` is not an integer >= -1.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(3).repeat(2)]
            [0, 1, 2, 0, 1, 2]
        """
        return _transforms.RepeatDataset(self, count)

    def map(self, map_func, num_parallel_calls=None, deterministic=None) -> Dataset:
        """Apply `map_func` to every element.

        A tuple element is passed as separate arguments (``map(lambda x, y: ...)``),
        anything else (a tensor, a dict) as one argument. The function may return
        a tensor, array, number, or a tuple/dict of them; a returned list becomes
        a tuple. `num_parallel_calls` is accepted for TF compatibility; elements
        are mapped in order on the iterating thread (use `prefetch` to move the
        work off the training loop).

        Args:
            map_func: the function applied to each element.
            num_parallel_calls, deterministic: accepted for TF compatibility.

        Returns:
            A dataset of `map_func`'s results.

        Example:
            >>> import kerasish as ks
            >>> pairs = ks.data.Dataset.from_tensor_slices(([1, 2], [10, 20]))
            >>> [int(v) for v in pairs.map(lambda x, y: x + y)]
            [11, 22]
        """
        return _transforms.MapDataset(self, map_func)

    def flat_map(self, map_func) -> Dataset:
        """Replace every element with the elements of the Dataset `map_func` returns for it.

        Args:
            map_func: called like `map`'s function; must return a Dataset.

        Returns:
            The concatenation of the datasets returned, in order.

        Example:
            >>> from kerasish.data import Dataset
            >>> ds = Dataset.range(1, 4).flat_map(lambda n: Dataset.range(n))
            >>> [int(t) for t in ds]
            [0, 0, 1, 0, 1, 2]
        """
        return _transforms.FlatMapDataset(self, map_func)

    def filter(self, predicate) -> Dataset:
        """Keep the elements for which `predicate` (called like `map`'s function) is True.

        Args:
            predicate: returns a boolean (a Python bool or a scalar tensor).

        Returns:
            The dataset of the elements kept (its length is unknown until iterated).

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(6).filter(lambda t: t % 2 == 0)]
            [0, 2, 4]
        """
        return _transforms.FilterDataset(self, predicate)

    def take(self, count: int) -> Dataset:
        """The first `count` elements (all of them if count is -1).

        Args:
            count: how many elements to keep; -1 keeps all.

        Returns:
            The shortened dataset.

        Raises:
            ValueError: if `count` is not an integer >= -1.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(10).take(3)]
            [0, 1, 2]
        """
        return _transforms.TakeDataset(self, count)

    def skip(self, count: int) -> Dataset:
        """All but the first `count` elements (none of them if count is -1).

        Args:
            count: how many elements to drop; -1 drops all.

        Returns:
            The rest of the dataset.

        Raises:
            ValueError: if `count` is not an integer >= -1.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(5).skip(3)]
            [3, 4]
        """
        return _transforms.SkipDataset(self, count)

    def shard(self, num_shards: int, index: int) -> Dataset:
        """Every `num_shards`-th element starting at `index` (one worker's share).

        Args:
            num_shards: how many workers share the data (positive).
            index: this worker's number, in [0, num_shards).

        Returns:
            The elements at positions index, index + num_shards, ...

        Raises:
            ValueError: for a non-positive `num_shards` or an `index` outside
                [0, num_shards).

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(10).shard(3, 1)]
            [1, 4, 7]
        """
        return _transforms.ShardDataset(self, num_shards, index)

    def prefetch(self, buffer_size) -> Dataset:
        """Produce up to `buffer_size` elements ahead in a background thread.

        Exceptions raised by the pipeline reach the consumer with their
        original traceback; the thread stops when the iteration ends, is
        closed, or its iterator is dropped (e.g. `break`). `AUTOTUNE` picks a
        small buffer; 0 disables prefetching.

        Args:
            buffer_size: how many elements to prepare ahead, `AUTOTUNE`, or 0.

        Returns:
            A dataset with the same elements, produced ahead.

        Example:
            >>> from kerasish.data import AUTOTUNE, Dataset
            >>> [int(t) for t in Dataset.range(4).map(lambda t: t * t).prefetch(AUTOTUNE)]
            [0, 1, 4, 9]
        """
        return _transforms.PrefetchDataset(self, buffer_size)

    def cache(self, filename: str = "") -> Dataset:
        """Keep the elements in memory after the first complete pass and replay them after.

        Args:
            filename: must be empty (the in-memory cache); files are not supported.

        Returns:
            A dataset whose later passes replay the first one's elements.

        Raises:
            NotImplementedError: if `filename` is given.

        Example:
            >>> from kerasish.data import Dataset
            >>> calls = []
            >>> ds = Dataset.range(3).map(lambda t: calls.append(1) or t).cache()
            >>> [int(t) for t in ds] == [int(t) for t in ds], len(calls)
            (True, 3)
        """
        if filename:
            raise NotImplementedError(
                "cache: only the in-memory cache is supported; call cache() without a filename"
            )
        return _transforms.CacheDataset(self)

    def enumerate(self, start: int = 0) -> Dataset:
        """Pair each element with its int64 position: (i, element).

        Args:
            start: the position of the first element.

        Returns:
            A dataset of (position, element) pairs.

        Example:
            >>> from kerasish.data import Dataset
            >>> [(int(i), int(t)) for i, t in Dataset.range(10, 13).enumerate(start=1)]
            [(1, 10), (2, 11), (3, 12)]
        """
        return _transforms.EnumerateDataset(self, start)

    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements followed by those of `dataset` (same structure and dtypes).

        Args:
            dataset: the dataset that follows.

        Returns:
            The concatenated dataset.

        Raises:
            TypeError: if `dataset` is not a Dataset, or its elements have another
                structure or other dtypes.

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.range(2).concatenate(Dataset.range(5, 7))]
            [0, 1, 5, 6]
        """
        return _transforms.ConcatenateDataset(self, dataset)

    def apply(self, transformation_func) -> Dataset:
        """`transformation_func(self)`: for reusable chains of transformations.

        Args:
            transformation_func: takes a Dataset and returns a Dataset.

        Returns:
            What `transformation_func` returns.

        Raises:
            TypeError: if it does not return a Dataset.

        Example:
            >>> from kerasish.data import Dataset
            >>> def evens(ds):
            ...     return ds.filter(lambda t: t % 2 == 0)
            >>> [int(t) for t in Dataset.range(5).apply(evens)]
            [0, 2, 4]
        """
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(
                f"apply: the function must return a Dataset, got {type(result).__name__}"
            )
        return result

    # -- iteration and inspection ------------------------------------------------
    def __iter__(self) -> DatasetIterator:
        return DatasetIterator(self)

    def as_numpy_iterator(self):
        """Iterate with the components as NumPy arrays (NumPy scalars for scalars)."""
        for element in self:
            yield st.map_structure(_to_numpy, element)

    def cardinality(self) -> int:
        """Number of elements; INFINITE_CARDINALITY (-1) or UNKNOWN_CARDINALITY (-2)."""
        return self._cardinality()

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError(
                "len() of an infinite Dataset (it repeats forever) is undefined; use take(n) "
                "to bound it, or cardinality(), which returns INFINITE_CARDINALITY (-1)"
            )
        if n < 0:
            raise TypeError(
                "the length of this Dataset is unknown without iterating it (it comes from "
                "from_generator, filter, flat_map or unbatch); cardinality() returns "
                "UNKNOWN_CARDINALITY (-2); count it with sum(1 for _ in dataset)"
            )
        return n

    def __bool__(self) -> bool:
        return True  # not len(): a Dataset of unknown length is still a Dataset

    @property
    def element_spec(self):
        """`TensorSpec`s (in the element's structure) of the components.

        Known without running anything for most pipelines; after `map`, or
        for a generator without output_signature, the first element is
        produced once to find out (None if the dataset is empty).
        """
        spec = self._spec()
        if spec is None:
            spec = self._peek_spec()
        return spec

    def _peek_spec(self):
        saved = peek.active
        peek.active = True
        try:
            with recording.paused():
                source = self._iterate()
                try:
                    first = next(source, MISSING)
                finally:
                    close_iterator(source)
        finally:
            peek.active = saved
        if first is MISSING:
            return None
        return st.map_structure(TensorSpec.from_value, first)

    def __repr__(self):
        spec = self._spec()
        text = "<known after the first element>" if spec is None else repr(spec)
        return f"<{type(self).__name__.lstrip('_')} element_spec={text}>"


def _to_numpy(tensor):
    value = tensor.numpy()
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


# The sources and transformations subclass Dataset, so they come after it.
from kerasish.data import _sources, _transforms  # noqa: E402
