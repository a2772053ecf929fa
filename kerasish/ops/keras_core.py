"""`ks.ops` names of Keras 3's `ops.core` and `ops.math` that are adapters over the core ops:
`convert_to_tensor` (Keras's arguments), `dtype`, `is_tensor`, `saturate_cast`,
`stop_gradient(variable)`, `custom_gradient`, `unstack(x)`, `logdet(x)`, the segment
reductions Keras adds (`segment_min`, `segment_prod`), `rearrange`
(einops patterns, Keras's subset) and `view_as_complex`/`view_as_real`.

Each computes with the core ops (gradients come from them); where Keras's behaviour needs
something NumPy/CuPy cannot give (sparse or ragged tensors), they raise and say so.
"""

from __future__ import annotations

import re

import numpy as np

from kerasish.core import autodiff, backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    creation_ops,
    cumulative_ops,
    indexing_ops,
    linalg_ops,
    math_ops,
    shape_ops,
)
from kerasish.core.tensor import Tensor, Variable, as_dtype, dtype_name
from kerasish.core.tensor import convert_to_tensor as _convert_to_tensor

__all__ = [
    "convert_to_tensor",
    "custom_gradient",
    "dtype",
    "is_tensor",
    "logdet",
    "rearrange",
    "saturate_cast",
    "segment_min",
    "segment_prod",
    "stop_gradient",
    "unstack",
    "view_as_complex",
    "view_as_real",
]

custom_gradient = autodiff.custom_gradient


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None) -> Tensor:
    """`x` as a tensor of `dtype` (a tensor of another dtype is cast, as Keras's).

    Args:
        x: a tensor, array, number or nested list.
        dtype: the dtype wanted; None: the value's own (Python floats float32, ints int32).
        sparse: Keras's request for a sparse tensor; kerasish's tensors are dense, so True
            raises.
        ragged: Keras's request for a ragged tensor; True raises (no ragged tensors here).

    Returns:
        A dense tensor.

    Raises:
        InvalidArgumentError: `sparse=True` or `ragged=True`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_tensor([1, 2], dtype="float32")
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[1., 2.]>
    """
    if sparse:
        raise InvalidArgumentError(
            "convert_to_tensor: sparse=True is not supported: kerasish's tensors are dense "
            "NumPy/CuPy arrays (as on Keras's numpy backend)")
    if ragged:
        raise InvalidArgumentError(
            "convert_to_tensor: ragged=True is not supported: ragged tensors are TensorFlow's; "
            "kerasish's tensors are dense NumPy/CuPy arrays")
    return _convert_to_tensor(x, dtype, _allow_cast=True)


def dtype(x) -> str:
    """The standardized name of `x`'s dtype ('float32', 'int64', ...).

    Args:
        x: a tensor, variable, array or anything with a `dtype`.

    Returns:
        The dtype's name.

    Example:
        >>> from kerasish import ops
        >>> ops.dtype(ops.zeros((2, 3)))
        'float32'
    """
    return dtype_name(as_dtype(x.dtype))


def is_tensor(x) -> bool:
    """Whether `x` is a kerasish tensor (not a variable, an array or a number; as Keras's,
    which checks for the backend's own tensors).

    Args:
        x: anything.

    Returns:
        True for a `ks.Tensor`.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.is_tensor(ops.ones(2)), ops.is_tensor(np.ones(2))
        (True, False)
    """
    return isinstance(x, Tensor) and not isinstance(x, Variable)


def _on_device_of(ref: Tensor, values) -> Tensor:
    """NumPy `values` as a constant tensor of `ref`'s dtype on `ref`'s device."""
    return Tensor(backend.to_device(np.asarray(values, dtype=ref.dtype),
                                    backend.device_of(ref._value)))


def _limits(dtype) -> tuple:
    if dtype.kind == "b":
        return 0, 1
    info = np.iinfo if dtype.kind in "iu" else np.finfo
    return info(dtype).min, info(dtype).max


def saturate_cast(x, dtype) -> Tensor:
    """`x` cast to `dtype`, values beyond the target's range clipped to it (not wrapped).

    Args:
        x: a tensor.
        dtype: the target dtype.

    Returns:
        The cast tensor; the gradient passes where the values were not clipped.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.saturate_cast([-5.0, 100.0, 300.0], "uint8")).tolist()
        [0, 100, 255]
    """
    x = _convert_to_tensor(x)
    target = as_dtype(dtype)
    in_min, in_max = _limits(x.dtype)
    out_min, out_max = _limits(target)
    # the limits as values of x's dtype, nudged inside the target's range where the nearest
    # value of x's dtype falls outside it (float32's nearest to 2**32 - 1 is 2**32)
    low = np.asarray(max(in_min, out_min)).astype(x.dtype)
    if low.item() < out_min:  # (compared exactly, as Python numbers)
        low = np.nextafter(low, 0, dtype=x.dtype)
    high = np.asarray(min(in_max, out_max)).astype(x.dtype)
    if high.item() > out_max:
        high = np.nextafter(high, 0, dtype=x.dtype)
    clipped = math_ops.minimum(math_ops.maximum(x, _on_device_of(x, low)), _on_device_of(x, high))
    return math_ops.cast(clipped, target)


def stop_gradient(variable) -> Tensor:
    """The same values, treated as a constant by every tape (Keras's argument name).

    Args:
        variable: a tensor or variable.

    Returns:
        A tensor with no gradient path back to `variable`.

    Example:
        >>> import kerasish as ks
        >>> x = ks.Variable(3.0)
        >>> with ks.GradientTape() as tape:
        ...     y = x * ks.ops.stop_gradient(x)
        >>> float(tape.gradient(y, x))
        3.0
    """
    return creation_ops.stop_gradient(variable)


def unstack(x, num=None, axis: int = 0) -> list:
    """The slices of `x` along `axis`, as a list.

    Args:
        x: a tensor.
        num: the number of slices expected; None: the axis' length.
        axis: the axis to take apart.

    Returns:
        A list of tensors of rank one less.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.unstack([[1, 2], [3, 4]], axis=1)]
        [[1, 3], [2, 4]]
    """
    return shape_ops.unstack(x, num=num, axis=axis)


def logdet(x) -> Tensor:
    """The log of the determinant of symmetric positive definite matrices.

    Args:
        x: a tensor of shape (..., M, M).

    Returns:
        A tensor of shape (...).

    Example:
        >>> from kerasish import ops
        >>> float(ops.logdet([[1.0, 0.0], [0.0, 4.0]])) == float(ops.log(4.0))
        True
    """
    return linalg_ops.logdet(x)


def _segments(data, segment_ids, num_segments, op_name: str) -> tuple:
    """(data rows with an id >= 0, their ids as a NumPy array, the number of segments)."""
    data = _convert_to_tensor(data)
    ids = np.asarray(backend.to_numpy(_convert_to_tensor(segment_ids)._value))
    if ids.ndim != 1 or data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise InvalidArgumentError(
            f"{op_name}: segment_ids of shape {ids.shape} need one id per row of data, shape "
            f"{data.shape}")
    if ids.dtype.kind not in "iu":
        raise InvalidArgumentError(f"{op_name}: segment_ids must be integers, got {ids.dtype}")
    if num_segments is None:
        num_segments = int(ids.max()) + 1 if ids.size else 0
    keep = ids >= 0  # Keras drops the rows of id -1
    if not keep.all():
        data = indexing_ops.gather(data, np.flatnonzero(keep).astype(np.int32))
        ids = ids[keep]
    if ids.size and ids.max() >= num_segments:
        raise InvalidArgumentError(
            f"{op_name}: segment id {int(ids.max())} is out of range for num_segments="
            f"{num_segments}")
    return data, ids.astype(np.int64), int(num_segments)


def segment_min(data, segment_ids, num_segments=None, sorted: bool = False) -> Tensor:  # noqa: A002
    """The minimum of the rows of `data` in each segment; an empty one holds the dtype's
    largest value (as `segment_max` holds its lowest).

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer ids in [0, num_segments); rows of id -1 are left out.
        num_segments: the number of segments; None: max(segment_ids) + 1.
        sorted: Keras's hint that the ids are sorted; not needed here.

    Returns:
        (num_segments, ...); the gradient goes to each segment's minimum (shared among ties).

    Raises:
        InvalidArgumentError: not one id per row, or an id out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_min([1.0, 5.0, 2.0], [0, 0, 1])).tolist()
        [1.0, 2.0]
    """
    data, ids, count = _segments(data, segment_ids, num_segments, "segment_min")
    return math_ops.negative(indexing_ops.unsorted_segment_max(math_ops.negative(data), ids,
                                                               count))


def segment_prod(data, segment_ids, num_segments=None, sorted: bool = False) -> Tensor:  # noqa: A002
    """The product of the rows of `data` in each segment (1 for an empty one).

    The rows are laid out in a (num_segments, longest segment, ...) block padded with ones
    and multiplied along the second axis, so the gradient is right with zeros in the data.

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer ids in [0, num_segments); rows of id -1 are left out.
        num_segments: the number of segments; None: max(segment_ids) + 1.
        sorted: Keras's hint that the ids are sorted; not needed here.

    Returns:
        (num_segments, ...).

    Raises:
        InvalidArgumentError: not one id per row, or an id out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_prod([2.0, 3.0, 4.0], [0, 0, 2])).tolist()
        [6.0, 1.0, 4.0]
    """
    data, ids, count = _segments(data, segment_ids, num_segments, "segment_prod")
    counts = np.bincount(ids, minlength=count)
    width = max(int(counts.max()) if counts.size else 0, 1)
    order = np.argsort(ids, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slots = np.empty_like(ids)
    slots[order] = ids[order] * width + (np.arange(ids.size) - starts[ids[order]])
    block = indexing_ops.scatter_rows(data, slots, count * width)
    empty = np.ones(count * width, dtype=bool)
    empty[slots] = False
    fill = np.zeros((count * width,) + (1,) * (data.ndim - 1), dtype=data.dtype)
    fill[empty] = 1
    block = block + _on_device_of(data, fill)
    block = shape_ops.reshape(block, (count, width) + tuple(data.shape[1:]))
    return cumulative_ops.reduce_prod(block, axis=1)


_GROUP = re.compile(r"\(([\w\s]*)\)")


def _pattern_side(text: str, pattern: str) -> list:
    """The axis groups of one side of a pattern: 'b (h w) c' -> [['b'], ['h', 'w'], ['c']]."""
    groups = []
    for token in re.findall(r"\([^)]*\)|[^\s()]+", text):
        names = _GROUP.match(token).group(1).split() if token.startswith("(") else [token]
        for name in names:
            if not name.isidentifier():
                raise InvalidArgumentError(
                    f"rearrange: {name!r} in {pattern!r} is not an axis name (Keras's "
                    "rearrange takes names and parenthesised groups, no '...' or numbers)")
        groups.append(names)
    return groups


def rearrange(tensor, pattern: str, **axes_lengths) -> Tensor:
    """The axes of `tensor` rearranged by an einops pattern: transposed, merged ('(h w)' on
    the right) and split ('(h1 h)' on the left, with the lengths given by name).

    Args:
        tensor: the tensor.
        pattern: 'input axes -> output axes', e.g. 'b h w c -> b (c h w)'.
        **axes_lengths: the lengths of split axes (one per group may be left to infer).

    Returns:
        The rearranged tensor (a reshape and a transpose: gradients come with them).

    Raises:
        InvalidArgumentError: no '->', a different number of axes than the tensor has, an
            axis on one side only or twice, or a group whose lengths do not divide its axis.

    Example:
        >>> from kerasish import ops
        >>> images = ops.zeros((8, 30, 40, 3))
        >>> ops.shape(ops.rearrange(images, "b h w c -> b c h w"))
        (8, 3, 30, 40)
        >>> ops.shape(ops.rearrange(images, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2))
        (32, 15, 20, 3)
    """
    tensor = _convert_to_tensor(tensor)
    if "->" not in pattern:
        raise InvalidArgumentError(f"rearrange: the pattern needs '->', got {pattern!r}")
    left, right = pattern.split("->", 1)
    inputs, outputs = _pattern_side(left, pattern), _pattern_side(right, pattern)
    if len(inputs) != tensor.ndim:
        raise InvalidArgumentError(
            f"rearrange: {pattern!r} names {len(inputs)} axes but the tensor has shape "
            f"{tensor.shape}")
    in_names = [n for group in inputs for n in group]
    out_names = [n for group in outputs for n in group]
    if len(set(in_names)) != len(in_names) or len(set(out_names)) != len(out_names):
        raise InvalidArgumentError(f"rearrange: an axis is named twice on one side of {pattern!r}")
    if set(in_names) != set(out_names):
        raise InvalidArgumentError(
            f"rearrange: {pattern!r} names {sorted(set(in_names) ^ set(out_names))} on one "
            "side only")
    lengths = {}
    for group, size in zip(inputs, tensor.shape):
        known = [n for n in group if n in axes_lengths]
        unknown = [n for n in group if n not in axes_lengths]
        product = int(np.prod([int(axes_lengths[n]) for n in known]))
        if len(unknown) > 1 or (not unknown and product != size) or (
                unknown and (product == 0 or size % product)):
            raise InvalidArgumentError(
                f"rearrange: the axis of length {size} cannot split into {group} with "
                f"{ {n: axes_lengths[n] for n in known} }")
        lengths.update({n: int(axes_lengths[n]) for n in known})
        if unknown:
            lengths[unknown[0]] = size // product
    split = [lengths[n] for n in in_names]
    if tuple(split) != tensor.shape:
        tensor = shape_ops.reshape(tensor, split)
    order = [in_names.index(n) for n in out_names]
    if order != list(range(len(order))):
        tensor = shape_ops.transpose(tensor, order)
    merged = [int(np.prod([lengths[n] for n in group])) for group in outputs]
    if tuple(merged) != tensor.shape:
        tensor = shape_ops.reshape(tensor, merged)
    return tensor


def view_as_complex(x) -> Tensor:
    """A complex tensor from a real one whose last axis (of length 2) holds the real and
    imaginary parts.

    kerasish's tensors can hold complex values, but its tapes differentiate real tensors
    only: the result carries no gradient (the Fourier ops take and return (real, imag) pairs
    and are differentiable).

    Args:
        x: a float tensor of shape (..., 2).

    Returns:
        A complex64 (from float32) or complex128 tensor of shape (...).

    Raises:
        InvalidArgumentError: the last axis is not of length 2.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.view_as_complex([[1.0, 2.0], [3.0, 4.0]])).tolist()
        [(1+2j), (3+4j)]
    """
    x = _convert_to_tensor(x)
    if x.ndim == 0 or x.shape[-1] != 2:
        raise InvalidArgumentError(
            f"view_as_complex: the last axis must hold (real, imag), length 2; got shape "
            f"{x.shape}")
    values = x._value if x.dtype.kind == "f" else x._value.astype(np.float32)
    kind = np.complex128 if values.dtype == np.float64 else np.complex64
    return Tensor((values[..., 0] + 1j * values[..., 1]).astype(kind))


def view_as_real(x) -> Tensor:
    """A real tensor of shape (..., 2) holding the real and imaginary parts of `x` (values
    only: no gradient, as `view_as_complex`).

    Args:
        x: a complex (or real) tensor.

    Returns:
        A float tensor of shape x.shape + (2,).

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.view_as_real(np.array([1 + 2j, 3 + 4j]))).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    values = _convert_to_tensor(x)._value
    xp = backend.array_module(values)
    return Tensor(xp.stack([xp.real(values), xp.imag(values)], axis=-1))
