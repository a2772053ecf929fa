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

import builtins
import threading

import numpy as np

from kerasish.core import backend
from kerasish.core import tape as tape_module
from kerasish.core.tensor import Tensor, as_dtype
from kerasish.data import structure as st
from kerasish.data._prefetch import PrefetchIterator, close_iterator
from kerasish.data._shuffle import ShuffleSeed, shuffle_elements, shuffle_indices
from kerasish.data.structure import TensorSpec

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
_AUTOTUNE_PREFETCH = 2  # prefetch(AUTOTUNE): two elements ahead


class _PeekState(threading.local):
    active = False  # True while element_spec looks at the first element


_peek = _PeekState()
_MISSING = object()


# ------------------------------------------------------------------ index plans


class _Plan:
    """Elements that are rows of in-memory arrays, in the order of an index stream.

    `gather(index)` returns the flat list of arrays for an int (one element),
    a slice or an int64 array (a batch); `chunks()` starts a new pass and
    returns an iterator of index chunks (ranges or int64 arrays).
    """

    __slots__ = ("structure", "gather", "chunks")

    def __init__(self, structure, gather, chunks):
        self.structure = structure
        self.gather = gather
        self.chunks = chunks

    def with_chunks(self, chunks) -> _Plan:
        return _Plan(self.structure, self.gather, chunks)

    def element(self, index):
        return st.pack(self.structure, [st.to_tensor(a) for a in self.gather(index)])


def _as_index(chunk):
    if isinstance(chunk, builtins.range):
        return slice(chunk.start, chunk.stop, chunk.step)
    return chunk


def _as_array(chunk):
    if isinstance(chunk, builtins.range):
        return np.arange(chunk.start, chunk.stop, chunk.step, dtype=np.int64)
    return chunk


def _iterate_plan(plan: _Plan):
    for chunk in plan.chunks():
        indices = chunk if isinstance(chunk, builtins.range) else chunk.tolist()
        for i in indices:
            yield plan.element(i)


def _take_chunks(chunks, count: int):
    if count < 0:
        yield from chunks
        return
    left = count
    if left == 0:
        return
    for chunk in chunks:
        if len(chunk) >= left:
            yield chunk[:left]
            return
        left -= len(chunk)
        yield chunk


def _skip_chunks(chunks, count: int):
    left = count
    for chunk in chunks:
        if count < 0:
            continue
        if left >= len(chunk):
            left -= len(chunk)
            continue
        yield chunk[left:]
        left = 0


# ------------------------------------------------------------------ iteration


class DatasetIterator:
    """One pass over a Dataset (what `iter(dataset)` returns).

    Elements come out on the device that was current when the iterator was
    created, and producing them is never recorded on a GradientTape. Close it
    (or use it in a `with` block) to stop a prefetch thread before the end.
    """

    __slots__ = ("_source", "_device", "__weakref__")

    def __init__(self, dataset: Dataset):
        self._device = backend.current_device()
        with tape_module.paused():
            self._source = dataset._iterate()

    def __iter__(self):
        return self

    def __next__(self):
        source = self._source
        if source is None:
            raise StopIteration
        if tape_module.active_tapes():
            with tape_module.paused():
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


class Dataset:
    """A sequence of elements, built from sources and transformations (tf.data's API).

    Build one with `Dataset.from_tensor_slices`, `from_tensors`,
    `from_generator`, `range` or `zip`, then chain transformations; iterate
    it with a `for` loop or pass it to `Model.fit`.
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

    # -- sources --------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors) -> Dataset:
        """One element per row of `tensors` (an array, or a tuple/dict of arrays of equal length).

        Example:
            >>> from kerasish.data import Dataset
            >>> [int(t) for t in Dataset.from_tensor_slices([1, 2, 3])]
            [1, 2, 3]
        """
        return _TensorSlicesDataset(tensors)

    @staticmethod
    def from_tensors(tensors) -> Dataset:
        """A dataset of exactly one element, `tensors` (a tensor or a tuple/dict of them)."""
        return _TensorsDataset(tensors)

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
        return _GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args, dtype=np.int64) -> Dataset:
        """Like Python's range, as int64 scalar elements: range(5), range(2, 5), range(1, 10, 3)."""
        return _RangeDataset(*args, dtype=dtype)

    @staticmethod
    def zip(*datasets) -> Dataset:
        """Elements combined from several datasets, stopping at the shortest.

        Pass a tuple or dict of datasets (nested as you like) or several
        datasets as arguments: ``Dataset.zip((a, b))`` and ``Dataset.zip(a, b)``
        both yield (element of a, element of b).
        """
        if not datasets:
            raise TypeError("Dataset.zip: needs at least one dataset")
        return _ZipDataset(datasets[0] if len(datasets) == 1 else tuple(datasets))

    # -- transformations -----------------------------------------------------------
    def shuffle(self, buffer_size: int, seed=None, reshuffle_each_iteration: bool = True) -> Dataset:
        """Randomly shuffle through a buffer of `buffer_size` elements (tf.data semantics).

        A buffer at least as large as the dataset gives a uniform shuffle; a
        smaller one only mixes nearby elements. The order is reproducible
        after `ks.random.set_seed`, or from `seed`. With
        `reshuffle_each_iteration` every pass (every epoch; each repetition
        when shuffle comes before `repeat`) has a new order.
        """
        return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_calls=None,
              deterministic=None) -> Dataset:
        """Stack `batch_size` consecutive elements; the last batch may be smaller unless dropped."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def unbatch(self) -> Dataset:
        """Split each element along its first dimension into separate elements."""
        return _UnbatchDataset(self)

    def repeat(self, count=None) -> Dataset:
        """Pass over the data `count` times (None or -1: forever)."""
        return _RepeatDataset(self, count)

    def map(self, map_func, num_parallel_calls=None, deterministic=None) -> Dataset:
        """Apply `map_func` to every element.

        A tuple element is passed as separate arguments (``map(lambda x, y: ...)``),
        anything else (a tensor, a dict) as one argument. The function may return
        a tensor, array, number, or a tuple/dict of them; a returned list becomes
        a tuple. `num_parallel_calls` is accepted for TF compatibility; elements
        are mapped in order on the iterating thread (use `prefetch` to move the
        work off the training loop).
        """
        return _MapDataset(self, map_func)

    def flat_map(self, map_func) -> Dataset:
        """Replace every element with the elements of the Dataset `map_func` returns for it."""
        return _FlatMapDataset(self, map_func)

    def filter(self, predicate) -> Dataset:
        """Keep the elements for which `predicate` (called like `map`'s function) is True."""
        return _FilterDataset(self, predicate)

    def take(self, count: int) -> Dataset:
        """The first `count` elements (all of them if count is -1)."""
        return _TakeDataset(self, count)

    def skip(self, count: int) -> Dataset:
        """All but the first `count` elements (none of them if count is -1)."""
        return _SkipDataset(self, count)

    def shard(self, num_shards: int, index: int) -> Dataset:
        """Every `num_shards`-th element starting at `index` (one worker's share)."""
        return _ShardDataset(self, num_shards, index)

    def prefetch(self, buffer_size) -> Dataset:
        """Produce up to `buffer_size` elements ahead in a background thread.

        Exceptions raised by the pipeline reach the consumer with their
        original traceback; the thread stops when the iteration ends, is
        closed, or its iterator is dropped (e.g. `break`). `AUTOTUNE` picks a
        small buffer; 0 disables prefetching.
        """
        return _PrefetchDataset(self, buffer_size)

    def cache(self, filename: str = "") -> Dataset:
        """Keep the elements in memory after the first complete pass and replay them after."""
        if filename:
            raise NotImplementedError(
                "cache: only the in-memory cache is supported; call cache() without a filename"
            )
        return _CacheDataset(self)

    def enumerate(self, start: int = 0) -> Dataset:
        """Pair each element with its int64 position: (i, element)."""
        return _EnumerateDataset(self, start)

    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements followed by those of `dataset` (same structure and dtypes)."""
        return _ConcatenateDataset(self, dataset)

    def apply(self, transformation_func) -> Dataset:
        """`transformation_func(self)`: for reusable chains of transformations."""
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
        saved = _peek.active
        _peek.active = True
        try:
            with tape_module.paused():
                source = self._iterate()
                try:
                    first = next(source, _MISSING)
                finally:
                    close_iterator(source)
        finally:
            _peek.active = saved
        if first is _MISSING:
            return None
        return st.map_structure(TensorSpec.from_value, first)

    def __repr__(self):
        spec = self._spec()
        text = "<known after the first element>" if spec is None else repr(spec)
        return f"<{type(self).__name__.lstrip('_')} element_spec={text}>"


def _to_numpy(tensor):
    value = tensor.numpy()
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


# ------------------------------------------------------------------ sources


class _TensorSlicesDataset(Dataset):
    def __init__(self, tensors):
        if isinstance(tensors, Dataset):
            raise TypeError("from_tensor_slices: got a Dataset; it takes arrays or tensors")
        leaves = st.flatten(tensors)
        if not leaves:
            raise ValueError("from_tensor_slices: got an empty structure; pass arrays to slice")
        names = st.paths(tensors)
        arrays = []
        for path, leaf in zip(names, leaves):
            try:
                array = st.host_array(leaf)
            except (TypeError, ValueError) as exc:
                hint = (
                    " (a list of arrays of different lengths? pass a tuple: (x, y))"
                    if isinstance(leaf, list) else ""
                )
                raise TypeError(
                    f"from_tensor_slices: cannot convert {st.describe(path)} to a tensor{hint}: {exc}"
                ) from exc
            if array.ndim == 0:
                raise ValueError(
                    f"from_tensor_slices: {st.describe(path)} is a scalar (shape ()); every "
                    "component needs a first dimension to slice along (use from_tensors for "
                    "a single element)"
                )
            if isinstance(array, np.ndarray) and array.flags.writeable:
                array = array.view()
                array.flags.writeable = False  # batches are views: keep them from writing back
            arrays.append(array)
        lengths = [a.shape[0] for a in arrays]
        for path, n in zip(names, lengths):
            if n != lengths[0]:
                raise ValueError(
                    "from_tensor_slices: all components must have the same size in the first "
                    f"dimension, but {st.describe(names[0])} has {lengths[0]} rows and "
                    f"{st.describe(path)} has {n}"
                )
        self._structure = tensors
        self._arrays = arrays
        self._n = lengths[0]

    def _gather(self, index):
        return [a[index] for a in self._arrays]

    def _chunks(self):
        return iter((builtins.range(self._n),) if self._n else ())

    def _plan(self):
        return _Plan(self._structure, self._gather, self._chunks)

    def _iterate(self):
        return _iterate_plan(self._plan())

    def _cardinality(self):
        return self._n

    def _spec(self):
        return st.pack(self._structure, [TensorSpec(a.shape[1:], a.dtype) for a in self._arrays])


class _TensorsDataset(Dataset):
    def __init__(self, tensors):
        if isinstance(tensors, Dataset):
            raise TypeError("from_tensors: got a Dataset; it takes arrays or tensors")
        self._structure = tensors
        self._arrays = [st.host_array(leaf) for leaf in st.flatten(tensors)]

    def _iterate(self):
        yield st.pack(self._structure, [st.to_tensor(a) for a in self._arrays])

    def _cardinality(self):
        return 1

    def _spec(self):
        return st.pack(self._structure, [TensorSpec(a.shape, a.dtype) for a in self._arrays])


class _RangeDataset(Dataset):
    def __init__(self, *args, dtype=np.int64):
        try:
            self._range = builtins.range(*(int(a) for a in args))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"Dataset.range{args}: {exc}") from exc
        self._dtype = as_dtype(dtype)

    def _gather(self, index):
        r = self._range
        if isinstance(index, (int, np.integer)):
            return [np.asarray(r[index], dtype=self._dtype)]
        if isinstance(index, slice):
            index = np.arange(index.start, index.stop, index.step, dtype=np.int64)
        return [(r.start + r.step * index).astype(self._dtype)]

    def _chunks(self):
        n = len(self._range)
        return iter((builtins.range(n),) if n else ())

    def _plan(self):
        return _Plan(0, self._gather, self._chunks)

    def _iterate(self):
        return _iterate_plan(self._plan())

    def _cardinality(self):
        return len(self._range)

    def _spec(self):
        return TensorSpec((), self._dtype)


def _signature_from_types(output_types, output_shapes):
    if output_shapes is None:
        return st.map_structure(lambda t: TensorSpec(None, t), output_types)
    types = st.flatten(output_types)
    shapes = _flatten_shapes(output_shapes, output_types)
    return st.pack(output_types, [TensorSpec(s, t) for t, s in zip(types, shapes)])


def _flatten_shapes(shapes, types):
    """Shapes are tuples of ints themselves, so flatten them up to the structure of `types`."""
    if isinstance(types, tuple):
        return [s for sub_shapes, sub in zip(shapes, types) for s in _flatten_shapes(sub_shapes, sub)]
    if isinstance(types, dict):
        return [s for key in sorted(types) for s in _flatten_shapes(shapes[key], types[key])]
    return [shapes]


class _GeneratorDataset(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError(
                "from_generator: `generator` must be a callable returning an iterator (it is "
                "called again for every pass over the data), got "
                f"{type(generator).__name__}; pass the function itself: "
                "from_generator(gen), not from_generator(gen())"
            )
        if output_signature is not None and (output_types is not None or output_shapes is not None):
            raise TypeError(
                "from_generator: pass either output_signature or output_types/output_shapes"
            )
        if output_signature is None and output_types is not None:
            output_signature = _signature_from_types(output_types, output_shapes)
        elif output_shapes is not None:
            raise TypeError("from_generator: output_shapes needs output_types")
        if output_signature is not None:
            for spec in st.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(
                        "from_generator: output_signature must be a TensorSpec or a tuple/dict "
                        f"of them, found {spec!r}"
                    )
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        self._signature = output_signature

    def _iterate(self):
        source = iter(self._generator(*self._args))
        try:
            for index, value in enumerate(source):
                if self._signature is None:
                    yield _free_element(value, f"from_generator: element {index}")
                else:
                    yield _conform(value, self._signature, index)
        finally:
            close_iterator(source)

    def _spec(self):
        return self._signature


def _free_element(value, what: str):
    """Convert a yielded or returned value into an element (lists are tensors; tuples, dicts nest)."""
    if value is None:
        raise TypeError(f"{what}: got None, which is not a tensor")
    try:
        return st.map_structure(st.to_tensor, value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: cannot convert to tensors: {exc}") from exc


def _conform(value, signature, index: int):
    what = f"from_generator: element {index}"

    def walk(v, spec, path):
        if isinstance(spec, tuple):
            if not isinstance(v, (tuple, list)) or len(v) != len(spec):
                got = f"{type(v).__name__} of length {len(v)}" if isinstance(v, (tuple, list)) else type(v).__name__
                raise TypeError(
                    f"{what}{path}: expected a tuple of {len(spec)} components as in "
                    f"output_signature, got a {got}"
                )
            items = [walk(x, s, f"{path}[{i}]") for i, (x, s) in enumerate(zip(v, spec))]
            return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
        if isinstance(spec, dict):
            if not isinstance(v, dict) or sorted(v) != sorted(spec):
                got = sorted(v) if isinstance(v, dict) else type(v).__name__
                raise TypeError(
                    f"{what}{path}: expected a dict with keys {sorted(spec)} as in "
                    f"output_signature, got {got}"
                )
            return {k: walk(v[k], spec[k], f"{path}[{k!r}]") for k in spec}
        return _conform_leaf(v, spec, f"{what}{path}")

    return walk(value, signature, "")


def _conform_leaf(value, spec: TensorSpec, what: str) -> Tensor:
    if isinstance(value, Tensor):
        if value.dtype != spec.dtype:
            raise TypeError(
                f"{what}: got a tensor of dtype {value.dtype}, output_signature says {spec.dtype}"
            )
        tensor = value
    else:
        array = np.asarray(value) if not backend.is_gpu_array(value) else value
        if array.dtype.kind in "OUS":
            raise TypeError(f"{what}: cannot convert {value!r} to a tensor of {spec.dtype}")
        if array.dtype != spec.dtype:
            if not np.can_cast(array.dtype, spec.dtype, casting="same_kind"):
                raise TypeError(
                    f"{what}: got {array.dtype} values, which do not safely convert to the "
                    f"output_signature's {spec.dtype}"
                )
            array = array.astype(spec.dtype)
        tensor = st.to_tensor(array)
    if not st.shapes_compatible(spec.shape, tensor.shape):
        raise ValueError(
            f"{what}: has shape {tensor.shape}, which does not match the output_signature "
            f"shape {spec.shape} (None matches any size)"
        )
    return tensor


class _ZipDataset(Dataset):
    def __init__(self, datasets):
        if isinstance(datasets, list):
            raise TypeError("Dataset.zip: pass a tuple or dict of datasets, not a list")
        self._structure = datasets
        self._inputs = st.flatten(datasets)
        for path, d in zip(st.paths(datasets), self._inputs):
            if not isinstance(d, Dataset):
                raise TypeError(
                    f"Dataset.zip: expected Datasets, but {st.describe(path)} is "
                    f"{type(d).__name__}"
                )

    def _iterate(self):
        sources = [d._iterate() for d in self._inputs]
        try:
            while True:
                elements = []
                for source in sources:
                    element = next(source, _MISSING)
                    if element is _MISSING:
                        return
                    elements.append(element)
                yield st.pack(self._structure, elements)
        finally:
            for source in sources:
                close_iterator(source)

    def _cardinality(self):
        result = INFINITE_CARDINALITY
        for d in self._inputs:
            n = d._cardinality()
            if n == UNKNOWN_CARDINALITY:
                return n
            if n != INFINITE_CARDINALITY and (result == INFINITE_CARDINALITY or n < result):
                result = n
        return result

    def _spec(self):
        specs = [d._spec() for d in self._inputs]
        if any(s is None for s in specs):
            return None
        return st.pack(self._structure, specs)


# ------------------------------------------------------------------ transformations


class _UnaryDataset(Dataset):
    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a Dataset, got {type(input_dataset).__name__}")
        self._input = input_dataset

    def _cardinality(self):
        return self._input._cardinality()

    def _spec(self):
        return self._input._spec()


def _positive_int(value, what: str) -> int:
    if isinstance(value, Tensor):
        value = int(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def _count(value, what: str) -> int:
    if value is None:
        return -1
    if isinstance(value, Tensor):
        value = int(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < -1:
        raise ValueError(f"{what} must be an integer >= -1 (-1: all), got {value!r}")
    return int(value)


class _ShuffleDataset(_UnaryDataset):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        self._buffer_size = _positive_int(buffer_size, "shuffle: buffer_size")
        self._seed = ShuffleSeed(seed, reshuffle_each_iteration)

    def _generators(self):
        return self._seed.generators(advance=not _peek.active)

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None

        def chunks():
            slot_rng, tail_rng = self._generators()
            return shuffle_indices(inner.chunks(), self._buffer_size, slot_rng, tail_rng)

        return inner.with_chunks(chunks)

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _iterate_plan(plan)
        return self._shuffle_elements()

    def _shuffle_elements(self):
        slot_rng, tail_rng = self._generators()
        source = self._input._iterate()
        try:
            yield from shuffle_elements(source, self._buffer_size, slot_rng, tail_rng)
        finally:
            close_iterator(source)


class _RepeatDataset(_UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "repeat: count")

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None
        count = self._count

        def chunks():
            epoch = 0
            while count < 0 or epoch < count:
                produced = False
                for chunk in inner.chunks():
                    if len(chunk):
                        produced = True
                        yield chunk
                if not produced:
                    return
                epoch += 1

        return inner.with_chunks(chunks)

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _iterate_plan(plan)
        return self._repeat_elements()

    def _repeat_elements(self):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            source = self._input._iterate()
            try:
                for element in source:
                    produced = True
                    yield element
            finally:
                close_iterator(source)
            if not produced:
                return  # an empty pass: repeating it forever would hang
            epoch += 1

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY
        if self._count == 0:
            return 0
        if n < 0:
            return n
        return n * self._count


class _TakeDataset(_UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "take: count")

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None
        return inner.with_chunks(lambda: _take_chunks(inner.chunks(), self._count))

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _iterate_plan(plan)
        return self._take_elements()

    def _take_elements(self):
        if self._count == 0:
            return
        source = self._input._iterate()
        try:
            taken = 0
            for element in source:
                yield element
                taken += 1
                if taken == self._count:
                    return
        finally:
            close_iterator(source)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        if n == UNKNOWN_CARDINALITY:
            return n
        return min(n, self._count)


class _SkipDataset(_UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "skip: count")

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None
        return inner.with_chunks(lambda: _skip_chunks(inner.chunks(), self._count))

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _iterate_plan(plan)
        return self._skip_elements()

    def _skip_elements(self):
        source = self._input._iterate()
        try:
            skipped = 0
            for element in source:
                if self._count < 0 or skipped < self._count:
                    skipped += 1
                    continue
                yield element
        finally:
            close_iterator(source)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._count < 0:
            return 0
        return max(0, n - self._count)


class _ShardDataset(_UnaryDataset):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._num = _positive_int(num_shards, "shard: num_shards")
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self._num:
            raise ValueError(f"shard: index must be in [0, {self._num}), got {index!r}")
        self._index = int(index)

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None
        num, index = self._num, self._index

        def chunks():
            position = 0
            for chunk in inner.chunks():
                first = (index - position) % num
                position += len(chunk)
                part = chunk[first::num]
                if len(part):
                    yield part

        return inner.with_chunks(chunks)

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _iterate_plan(plan)
        return self._shard_elements()

    def _shard_elements(self):
        source = self._input._iterate()
        try:
            for position, element in enumerate(source):
                if position % self._num == self._index:
                    yield element
        finally:
            close_iterator(source)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._num + (1 if n % self._num > self._index else 0)


class _BatchDataset(_UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._batch_size = _positive_int(batch_size, "batch: batch_size")
        self._drop = bool(drop_remainder)

    def _iterate(self):
        plan = self._input._plan()
        if plan is not None:
            return self._batch_plan(plan)
        return self._batch_elements()

    def _batch_plan(self, plan: _Plan):
        size = self._batch_size
        carry, carried = [], 0
        for chunk in plan.chunks():
            n, pos = len(chunk), 0
            if carried:
                pos = min(size - carried, n)
                carry.append(chunk[:pos])
                carried += pos
                if carried < size:
                    continue
                yield plan.element(_join(carry))
                carry, carried = [], 0
            while n - pos >= size:
                yield plan.element(_as_index(chunk[pos:pos + size]))
                pos += size
            if pos < n:
                carry.append(chunk[pos:])
                carried = n - pos
        if carried and not self._drop:
            yield plan.element(_join(carry))

    def _batch_elements(self):
        size = self._batch_size
        source = self._input._iterate()
        try:
            while True:
                elements = []
                for element in source:
                    elements.append(element)
                    if len(elements) == size:
                        break
                if not elements or (len(elements) < size and self._drop):
                    return
                yield _stack(elements)
                if len(elements) < size:
                    return
        finally:
            close_iterator(source)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else -(-n // self._batch_size)

    def _spec(self):
        spec = self._input._spec()
        if spec is None:
            return None
        size = self._batch_size if self._drop else None

        def batched(s):
            return TensorSpec(None if s.shape is None else (size,) + s.shape, s.dtype)

        return st.map_structure(batched, spec)


def _join(parts):
    if len(parts) == 1:
        return _as_index(parts[0])
    return np.concatenate([_as_array(p) for p in parts])


def _stack(elements):
    first = elements[0]
    names = st.paths(first)
    flats = []
    for k, element in enumerate(elements):
        if not st.same_structure(element, first):
            raise ValueError(
                f"batch: element {k} has a different structure from element 0 "
                f"({_kind(element)} vs {_kind(first)}); all elements must have the same structure"
            )
        flats.append(st.flatten(element))
    out = []
    for c, path in enumerate(names):
        values = [flat[c]._value for flat in flats]
        shape, dtype = values[0].shape, values[0].dtype
        for k, v in enumerate(values):
            if v.shape != shape or v.dtype != dtype:
                raise ValueError(
                    f"batch: cannot stack {st.describe(path)} of elements 0 and {k}: "
                    f"shape {tuple(shape)} {dtype} vs shape {tuple(v.shape)} {v.dtype}; "
                    "map the elements to one shape and dtype first, or use batch(1)"
                )
        out.append(Tensor(backend.array_module(values[0]).stack(values)))
    return st.pack(first, out)


def _kind(element) -> str:
    if isinstance(element, tuple):
        return f"a tuple of {len(element)}"
    if isinstance(element, dict):
        return f"a dict with keys {sorted(element)}"
    return "a tensor"


class _UnbatchDataset(_UnaryDataset):
    def _iterate(self):
        source = self._input._iterate()
        try:
            for element in source:
                flat = st.flatten(element)
                names = st.paths(element)
                n = None
                for path, t in zip(names, flat):
                    if t.ndim == 0:
                        raise ValueError(
                            f"unbatch: {st.describe(path)} is a scalar; unbatch needs a first "
                            "dimension to split along"
                        )
                    if n is None:
                        n = t.shape[0]
                    elif t.shape[0] != n:
                        raise ValueError(
                            f"unbatch: components of one element have different first "
                            f"dimensions: {n} and {t.shape[0]} ({st.describe(path)})"
                        )
                values = [t._value for t in flat]
                for i in builtins.range(n):
                    yield st.pack(element, [Tensor(v[i]) for v in values])
        finally:
            close_iterator(source)

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n in (0, INFINITE_CARDINALITY) else UNKNOWN_CARDINALITY

    def _spec(self):
        spec = self._input._spec()
        if spec is None:
            return None
        return st.map_structure(
            lambda s: TensorSpec(None if s.shape is None else s.shape[1:], s.dtype), spec
        )


def _call(fn, element):
    if type(element) is tuple:  # noqa: E721 - namedtuples and dicts go in whole, as in TF
        return fn(*element)
    return fn(element)


class _MapDataset(_UnaryDataset):
    def __init__(self, input_dataset, map_func):
        super().__init__(input_dataset)
        if not callable(map_func):
            raise TypeError(f"map: map_func must be callable, got {type(map_func).__name__}")
        self._fn = map_func

    def _iterate(self):
        fn = self._fn
        name = getattr(fn, "__name__", type(fn).__name__)
        source = self._input._iterate()
        try:
            for element in source:
                value = _call(fn, element)
                if isinstance(value, list):
                    value = tuple(value)
                yield _free_element(value, f"map: the function {name!r} returned a value that")
        finally:
            close_iterator(source)

    def _spec(self):
        return None


class _FlatMapDataset(_UnaryDataset):
    def __init__(self, input_dataset, map_func):
        super().__init__(input_dataset)
        if not callable(map_func):
            raise TypeError(f"flat_map: map_func must be callable, got {type(map_func).__name__}")
        self._fn = map_func

    def _iterate(self):
        source = self._input._iterate()
        try:
            for element in source:
                inner = _call(self._fn, element)
                if not isinstance(inner, Dataset):
                    raise TypeError(
                        f"flat_map: the function must return a Dataset, got {type(inner).__name__}"
                    )
                inner_source = inner._iterate()
                try:
                    yield from inner_source
                finally:
                    close_iterator(inner_source)
        finally:
            close_iterator(source)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _spec(self):
        return None


class _FilterDataset(_UnaryDataset):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {type(predicate).__name__}")
        self._predicate = predicate

    def _iterate(self):
        source = self._input._iterate()
        try:
            for element in source:
                if _as_bool(_call(self._predicate, element)):
                    yield element
        finally:
            close_iterator(source)

    def _cardinality(self):
        return 0 if self._input._cardinality() == 0 else UNKNOWN_CARDINALITY


def _as_bool(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.dtype == np.bool_ and value.ndim == 0:
        return bool(value)
    if isinstance(value, np.ndarray) and value.dtype == np.bool_ and value.ndim == 0:
        return bool(value)
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", type(value).__name__)
    raise TypeError(
        f"filter: the predicate must return a scalar boolean, got {dtype}"
        + (f" of shape {tuple(shape)}" if shape is not None else "")
    )


class _PrefetchDataset(_UnaryDataset):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        if buffer_size == AUTOTUNE or buffer_size is None:
            buffer_size = _AUTOTUNE_PREFETCH
        if isinstance(buffer_size, Tensor):
            buffer_size = int(buffer_size)
        if not isinstance(buffer_size, (int, np.integer)) or buffer_size < 0:
            raise ValueError(
                f"prefetch: buffer_size must be a non-negative integer or AUTOTUNE, got {buffer_size!r}"
            )
        self._buffer_size = int(buffer_size)

    def _iterate(self):
        if self._buffer_size == 0 or _peek.active:
            return self._input._iterate()
        return PrefetchIterator(self._input._iterate, self._buffer_size)


class _CacheDataset(_UnaryDataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self._elements = None

    def _iterate(self):
        if self._elements is not None:
            yield from self._elements
            return
        elements = []
        source = self._input._iterate()
        try:
            for element in source:
                elements.append(element)
                yield element
        finally:
            close_iterator(source)
        if not _peek.active:
            self._elements = elements  # only a complete pass is kept


class _EnumerateDataset(_UnaryDataset):
    def __init__(self, input_dataset, start):
        super().__init__(input_dataset)
        self._start = int(start)

    def _iterate(self):
        source = self._input._iterate()
        try:
            for i, element in enumerate(source, self._start):
                yield st.to_tensor(np.int64(i)), element
        finally:
            close_iterator(source)

    def _spec(self):
        spec = self._input._spec()
        return None if spec is None else (TensorSpec((), np.int64), spec)


class _ConcatenateDataset(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate: expected a Dataset, got {type(second).__name__}")
        a, b = first._spec(), second._spec()
        if a is not None and b is not None:
            if not st.same_structure(a, b):
                raise TypeError(
                    f"concatenate: the datasets have different element structures: {a} and {b}"
                )
            for x, y in zip(st.flatten(a), st.flatten(b)):
                if x.dtype != y.dtype:
                    raise TypeError(
                        f"concatenate: the datasets have different dtypes: {a} and {b}"
                    )
        self._first, self._second = first, second

    def _iterate(self):
        for dataset in (self._first, self._second):
            source = dataset._iterate()
            try:
                yield from source
            finally:
                close_iterator(source)

    def _cardinality(self):
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b

    def _spec(self):
        a, b = self._first._spec(), self._second._spec()
        if a is None or b is None:
            return None
        return st.pack(
            a, [x.most_specific_compatible(y) for x, y in zip(st.flatten(a), st.flatten(b))]
        )
