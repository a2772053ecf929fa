"""Element structures of a Dataset, and `TensorSpec`, the shape and dtype of a component.

An element is a tensor, or a (nested) tuple, namedtuple or dict of tensors:
tf.data's rule. Unlike `kerasish.core.nest`, a *list* is a value here, not a
structure: ``from_tensor_slices([1, 2, 3])`` slices one tensor, as in TF.
Dict components are visited in sorted-key order, like `nest.flatten`.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor


def _is_flat_tuple(structure) -> bool:
    return type(structure) is tuple and not any(isinstance(x, (tuple, dict)) for x in structure)


def flatten(structure) -> list:
    """The leaves of `structure` (tuples and dicts are containers, anything else a leaf)."""
    if _is_flat_tuple(structure):
        return list(structure)
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack(structure, flat):
    """Rebuild `structure` with leaves taken in order from `flat`."""
    if not isinstance(structure, (tuple, dict)):
        return flat[0]
    if _is_flat_tuple(structure):
        return tuple(flat)
    leaves = iter(flat)

    def build(item):
        if isinstance(item, tuple):
            rebuilt = [build(x) for x in item]
            return type(item)(*rebuilt) if hasattr(item, "_fields") else tuple(rebuilt)
        if isinstance(item, dict):
            built = {key: build(item[key]) for key in sorted(item)}
            return type(item)((key, built[key]) for key in item)
        return next(leaves)

    return build(structure)


def map_structure(fn, structure):
    if not isinstance(structure, (tuple, dict)):
        return fn(structure)
    if _is_flat_tuple(structure):
        return tuple(fn(leaf) for leaf in structure)
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def packer(structure):
    """A function rebuilding `structure` from a flat list, specialized once for speed."""
    if not isinstance(structure, (tuple, dict)):
        return lambda flat: flat[0]
    if _is_flat_tuple(structure):
        return tuple
    return lambda flat: pack(structure, flat)


def paths(structure, prefix: str = "") -> list:
    """A readable path per leaf, in `flatten` order: '[0]', "['image']", '' for a lone tensor."""
    if isinstance(structure, tuple):
        return [p for i, item in enumerate(structure) for p in paths(item, f"{prefix}[{i}]")]
    if isinstance(structure, dict):
        return [p for key in sorted(structure) for p in paths(structure[key], f"{prefix}[{key!r}]")]
    return [prefix]


def same_structure(a, b) -> bool:
    """True if `a` and `b` nest tuples and dicts the same way (leaves may differ)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same_structure(x, y) for x, y in zip(a, b, strict=False))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and sorted(a) == sorted(b)
            and all(same_structure(a[k], b[k]) for k in a)
        )
    return True


def describe(path: str) -> str:
    return f"component {path}" if path else "the element"


def to_tensor(value) -> Tensor:
    """A tensor for one component (tensors pass through; arrays keep their dtype)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value)


def arrays_to_tensors(arrays) -> list:
    """Tensors on the current device for freshly gathered arrays (NumPy or CuPy)."""
    if backend.current_device()[0] == "cpu":
        # what convert_to_tensor does for host arrays on the CPU, without its checks per call
        return [
            Tensor(a)
            if type(a) is np.ndarray
            else Tensor(np.asarray(a))
            if isinstance(a, np.generic)
            else convert_to_tensor(a)
            for a in arrays
        ]
    return [convert_to_tensor(a) for a in arrays]


def host_array(value):
    """The array behind a component: a tensor's array, or a NumPy array (TF dtypes for lists)."""
    if isinstance(value, Tensor):
        return value._value
    if isinstance(value, np.ndarray) or backend.is_gpu_array(value):
        return value
    with backend.device("/cpu:0"):
        return convert_to_tensor(value)._value


class TensorSpec:
    """The shape (None for an unknown dimension or rank) and dtype of one component.

    Args:
        shape: a tuple of ints and None (negative numbers also mean unknown), an int for
            a vector, or None for an unknown rank.
        dtype: the dtype or its name.
        name: an optional label (not compared).

    Example:
        >>> from kerasish.data import TensorSpec
        >>> spec = TensorSpec((None, 28, 28), "uint8")
        >>> spec
        TensorSpec(shape=(None, 28, 28), dtype=uint8)
        >>> spec.is_compatible_with(TensorSpec((32, 28, 28), "uint8"))
        True
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape=None, dtype=np.float32, name=None):
        if shape is not None:
            if isinstance(shape, (int, np.integer)):
                shape = (int(shape),)
            shape = tuple(None if d is None or int(d) < 0 else int(d) for d in shape)
        self.shape = shape
        self.dtype = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_value(cls, value) -> TensorSpec:
        """The spec of a value: its full shape and dtype.

        Args:
            value: a tensor, or a value `ks.convert_to_tensor` takes.

        Returns:
            A `TensorSpec`.

        Example:
            >>> from kerasish.data import TensorSpec
            >>> TensorSpec.from_value([[1.0, 2.0]])
            TensorSpec(shape=(1, 2), dtype=float32)
        """
        value = value if isinstance(value, Tensor) else to_tensor(value)
        return cls(value.shape, value.dtype)

    @property
    def rank(self):
        return None if self.shape is None else len(self.shape)

    def is_compatible_with(self, other) -> bool:
        """Same dtype, and shapes that agree wherever both are known.

        Args:
            other: a `TensorSpec`, or a value (compared by `from_value`).

        Returns:
            True or False.

        Example:
            >>> import kerasish as ks
            >>> from kerasish.data import TensorSpec
            >>> TensorSpec((None, 2)).is_compatible_with(ks.constant([[1.0, 2.0]]))
            True
        """
        if not isinstance(other, TensorSpec):
            other = TensorSpec.from_value(other)
        return self.dtype == other.dtype and shapes_compatible(self.shape, other.shape)

    def most_specific_compatible(self, other: TensorSpec) -> TensorSpec:
        """The spec that covers both: dimensions that differ become None.

        Args:
            other: another `TensorSpec` (of the same dtype; this spec's is kept).

        Returns:
            A `TensorSpec`; an unknown rank when the ranks differ.

        Example:
            >>> from kerasish.data import TensorSpec
            >>> TensorSpec((2, 3)).most_specific_compatible(TensorSpec((4, 3)))
            TensorSpec(shape=(None, 3), dtype=float32)
        """
        if self.shape is None or other.shape is None or len(self.shape) != len(other.shape):
            shape = None
        else:
            shape = tuple(
                a if a == b else None for a, b in zip(self.shape, other.shape, strict=False)
            )
        return TensorSpec(shape, self.dtype)

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype == other.dtype
        )

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        shape = "<unknown>" if self.shape is None else _shape_text(self.shape)
        return f"TensorSpec(shape={shape}, dtype={self.dtype})"


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def shapes_compatible(a, b) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=False)
    )


def to_element(value, what: str):
    """A yielded or returned value as an element (lists are tensors; tuples and dicts nest)."""
    if value is None:
        raise TypeError(f"{what}: got None, which is not a tensor")
    try:
        return map_structure(to_tensor, value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: cannot convert to tensors: {exc}") from exc
