"""The transformations of a Dataset (each a Dataset wrapping its input), and zip."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.tensor import Tensor
from kerasish.data import _plan
from kerasish.data import structure as st
from kerasish.data._prefetch import PrefetchIterator, close_iterator
from kerasish.data._shuffle import ShuffleSeed, shuffle_elements, shuffle_indices
from kerasish.data.dataset import (
    AUTOTUNE,
    AUTOTUNE_PREFETCH,
    INFINITE_CARDINALITY,
    MISSING,
    UNKNOWN_CARDINALITY,
    Dataset,
    peek,
)
from kerasish.data.structure import TensorSpec


class ZipDataset(Dataset):
    def __init__(self, datasets):
        if isinstance(datasets, list):
            raise TypeError("Dataset.zip: pass a tuple or dict of datasets, not a list")
        self._structure = datasets
        self._inputs = st.flatten(datasets)
        for path, d in zip(st.paths(datasets), self._inputs, strict=False):
            if not isinstance(d, Dataset):
                raise TypeError(
                    f"Dataset.zip: expected Datasets, but {st.describe(path)} is {type(d).__name__}"
                )

    def _input_datasets(self):
        return [(f"input/{i}", d) for i, d in enumerate(self._inputs)]

    def _iterate(self):
        sources = [d._iterate() for d in self._inputs]
        try:
            while True:
                elements = []
                for source in sources:
                    element = next(source, MISSING)
                    if element is MISSING:
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


class UnaryDataset(Dataset):
    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a Dataset, got {type(input_dataset).__name__}")
        self._input = input_dataset

    def _input_datasets(self):
        return [("input", self._input)]

    def _cardinality(self):
        return self._input._cardinality()

    def _spec(self):
        return self._input._spec()


class IndexTransform(UnaryDataset):
    """A transform that selects or reorders elements: shuffle, repeat, take, skip, shard.

    On an index plan (rows of in-memory arrays) it rewrites the index stream and touches
    no data, so a later `batch` gathers a whole batch at once; otherwise it works on the
    elements. Both ways give the same elements in the same order.
    """

    def _chunks(self, inner: _plan.Plan):
        """A new pass's index chunks, made from the input plan's (`inner.chunks()`)."""
        raise NotImplementedError

    def _elements(self):
        """A new iterator over the elements, read from the input's `_iterate()`."""
        raise NotImplementedError

    def _plan(self):
        inner = self._input._plan()
        if inner is None:
            return None
        return inner.with_chunks(lambda: self._chunks(inner))

    def _iterate(self):
        plan = self._plan()
        if plan is not None:
            return _plan.iterate(plan)
        return self._elements()


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


class ShuffleDataset(IndexTransform):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        self._buffer_size = _positive_int(buffer_size, "shuffle: buffer_size")
        self._seed = ShuffleSeed(seed, reshuffle_each_iteration)

    def _input_datasets(self):
        return super()._input_datasets() + [("passes", self._seed.passes)]

    def _generators(self):
        return self._seed.generators(advance=not peek.active)

    def _chunks(self, inner):
        slot_rng, tail_rng = self._generators()
        return shuffle_indices(inner.chunks(), self._buffer_size, slot_rng, tail_rng)

    def _elements(self):
        slot_rng, tail_rng = self._generators()
        source = self._input._iterate()
        try:
            yield from shuffle_elements(source, self._buffer_size, slot_rng, tail_rng)
        finally:
            close_iterator(source)


class RepeatDataset(IndexTransform):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "repeat: count")

    def _chunks(self, inner):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for chunk in inner.chunks():
                if len(chunk):
                    produced = True
                    yield chunk
            if not produced:
                return
            epoch += 1

    def _elements(self):
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


class TakeDataset(IndexTransform):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "take: count")

    def _chunks(self, inner):
        return _plan.take_chunks(inner.chunks(), self._count)

    def _elements(self):
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


class SkipDataset(IndexTransform):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "skip: count")

    def _chunks(self, inner):
        return _plan.skip_chunks(inner.chunks(), self._count)

    def _elements(self):
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


class ShardDataset(IndexTransform):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._num = _positive_int(num_shards, "shard: num_shards")
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self._num:
            raise ValueError(f"shard: index must be in [0, {self._num}), got {index!r}")
        self._index = int(index)

    def _chunks(self, inner):
        position = 0
        for chunk in inner.chunks():
            first = (self._index - position) % self._num
            position += len(chunk)
            part = chunk[first::self._num]
            if len(part):
                yield part

    def _elements(self):
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


class BatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._batch_size = _positive_int(batch_size, "batch: batch_size")
        self._drop = bool(drop_remainder)

    def _iterate(self):
        plan = self._input._plan()
        if plan is not None:
            return self._batch_plan(plan)
        return self._batch_elements()

    def _batch_plan(self, plan: _plan.Plan):
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
                yield plan.element(_plan.join(carry))
                carry, carried = [], 0
            while n - pos >= size:
                yield plan.element(_plan.as_index(chunk[pos : pos + size]))
                pos += size
            if pos < n:
                carry.append(chunk[pos:])
                carried = n - pos
        if carried and not self._drop:
            yield plan.element(_plan.join(carry))

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


def _stack(elements):
    first = elements[0]
    names = st.paths(first)
    flats = []
    flat_tuple = st._is_flat_tuple(first)
    for k, element in enumerate(elements):
        if flat_tuple:
            same = (
                type(element) is tuple and len(element) == len(first) and st._is_flat_tuple(element)
            )
        else:
            same = st.same_structure(element, first)
        if not same:
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


class UnbatchDataset(UnaryDataset):
    def _iterate(self):
        source = self._input._iterate()
        try:
            for element in source:
                flat = st.flatten(element)
                names = st.paths(element)
                n = None
                for path, t in zip(names, flat, strict=False):
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


class MapDataset(UnaryDataset):
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
                yield st.to_element(value, f"map: the function {name!r} returned a value that")
        finally:
            close_iterator(source)

    def _spec(self):
        return None


class FlatMapDataset(UnaryDataset):
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


class FilterDataset(UnaryDataset):
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


class PrefetchDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        if buffer_size == AUTOTUNE or buffer_size is None:
            buffer_size = AUTOTUNE_PREFETCH
        if isinstance(buffer_size, Tensor):
            buffer_size = int(buffer_size)
        if not isinstance(buffer_size, (int, np.integer)) or buffer_size < 0:
            raise ValueError(
                "prefetch: buffer_size must be a non-negative integer or AUTOTUNE, "
                f"got {buffer_size!r}"
            )
        self._buffer_size = int(buffer_size)

    def _iterate(self):
        if self._buffer_size == 0 or peek.active:
            return self._input._iterate()
        return PrefetchIterator(self._input._iterate, self._buffer_size)


class CacheDataset(UnaryDataset):
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
        if not peek.active:
            self._elements = elements  # only a complete pass is kept


class EnumerateDataset(UnaryDataset):
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


class ConcatenateDataset(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate: expected a Dataset, got {type(second).__name__}")
        a, b = first._spec(), second._spec()
        if a is not None and b is not None:
            if not st.same_structure(a, b):
                raise TypeError(
                    f"concatenate: the datasets have different element structures: {a} and {b}"
                )
            for x, y in zip(st.flatten(a), st.flatten(b), strict=False):
                if x.dtype != y.dtype:
                    raise TypeError(f"concatenate: the datasets have different dtypes: {a} and {b}")
        self._first, self._second = first, second

    def _input_datasets(self):
        return [("input/0", self._first), ("input/1", self._second)]

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
            a,
            [
                x.most_specific_compatible(y)
                for x, y in zip(st.flatten(a), st.flatten(b), strict=False)
            ],
        )
