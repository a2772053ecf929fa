"""The sources of a Dataset: from_tensor_slices, from_tensors, range, from_generator."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.tensor import Tensor, as_dtype
from kerasish.data import _plan
from kerasish.data import structure as st
from kerasish.data._prefetch import close_iterator
from kerasish.data.dataset import Dataset
from kerasish.data.structure import TensorSpec


class TensorSlicesDataset(Dataset):
    def __init__(self, tensors):
        if isinstance(tensors, Dataset):
            raise TypeError("from_tensor_slices: got a Dataset; it takes arrays or tensors")
        leaves = st.flatten(tensors)
        if not leaves:
            raise ValueError("from_tensor_slices: got an empty structure; pass arrays to slice")
        names = st.paths(tensors)
        arrays = []
        for path, leaf in zip(names, leaves, strict=False):
            try:
                array = st.host_array(leaf)
            except (TypeError, ValueError) as exc:
                hint = (
                    " (a list of arrays of different lengths? pass a tuple: (x, y))"
                    if isinstance(leaf, list)
                    else ""
                )
                raise TypeError(
                    f"from_tensor_slices: cannot convert {st.describe(path)} to a tensor"
                    f"{hint}: {exc}"
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
        for path, n in zip(names, lengths, strict=False):
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
        return _plan.Plan(self._structure, self._gather, self._chunks)

    def _iterate(self):
        return _plan.iterate(self._plan())

    def _cardinality(self):
        return self._n

    def _spec(self):
        return st.pack(self._structure, [TensorSpec(a.shape[1:], a.dtype) for a in self._arrays])


class TensorsDataset(Dataset):
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


class RangeDataset(Dataset):
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
        return _plan.Plan(0, self._gather, self._chunks)

    def _iterate(self):
        return _plan.iterate(self._plan())

    def _cardinality(self):
        return len(self._range)

    def _spec(self):
        return TensorSpec((), self._dtype)


def _signature_from_types(output_types, output_shapes):
    if output_shapes is None:
        return st.map_structure(lambda t: TensorSpec(None, t), output_types)
    types = st.flatten(output_types)
    try:
        shapes = _flatten_shapes(output_shapes, output_types)
    except (KeyError, TypeError, ValueError) as exc:
        raise TypeError(
            f"from_generator: output_shapes {output_shapes!r} does not follow the structure of "
            f"output_types {output_types!r}"
        ) from exc
    return st.pack(output_types, [TensorSpec(s, t) for t, s in zip(types, shapes, strict=True)])


def _flatten_shapes(shapes, types):
    """Shapes are tuples of ints themselves, so flatten them up to the structure of `types`."""
    if isinstance(types, tuple):
        return [
            s
            for sub_shapes, sub in zip(shapes, types, strict=True)
            for s in _flatten_shapes(sub_shapes, sub)
        ]
    if isinstance(types, dict):
        return [s for key in sorted(types) for s in _flatten_shapes(shapes[key], types[key])]
    return [shapes]


class GeneratorDataset(Dataset):
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
                    yield st.to_element(value, f"from_generator: element {index}")
                else:
                    yield _conform(value, self._signature, index)
        finally:
            close_iterator(source)

    def _spec(self):
        return self._signature


def _conform(value, signature, index: int):
    what = f"from_generator: element {index}"

    def walk(v, spec, path):
        if isinstance(spec, tuple):
            if not isinstance(v, (tuple, list)) or len(v) != len(spec):
                got = (
                    f"{type(v).__name__} of length {len(v)}"
                    if isinstance(v, (tuple, list))
                    else type(v).__name__
                )
                raise TypeError(
                    f"{what}{path}: expected a tuple of {len(spec)} components as in "
                    f"output_signature, got a {got}"
                )
            items = [
                walk(x, s, f"{path}[{i}]") for i, (x, s) in enumerate(zip(v, spec, strict=False))
            ]
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
