"""Reductions (sum, mean, max, min, variance, any, all, argmax, norm, count_nonzero) and
`broadcast_reduced`, the adjoint of a sum: each primitive with its gradient."""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops.math_ops import (
    abs,
    cast,
    equal,
    factory_doc,
    not_equal,
    sqrt,
    square,
    truncatediv,
)
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

_AXIS_ARGS = (
    "input_tensor: the tensor to reduce.",
    "axis: an axis or a sequence of axes (negative counts from the end); None: all axes.",
    "keepdims: keep each reduced axis with length 1, so the result broadcasts against"
    " the input.",
)


def normalize_axis(axis, ndim: int, op_name: str):
    """A sorted tuple of non-negative axes, or None for all axes."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    result = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                f"{op_name}: axis {a} is out of range for a tensor of rank {ndim}"
            )
        result.append(a % ndim if ndim else 0)
    return tuple(sorted(set(result)))


def _kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


_ROW_BLOCK = 2048  # elements per row when summing many short rows


def _sum_leading(x, count: int):
    """x summed over its first `count` axes, for a C-contiguous array whose kept part is short.

    `x.sum(axis=0)` over (n, m) with a small m runs NumPy's inner loop n times on m
    elements (a bias gradient: (86528, 32) takes 1.2 ms). Summing (n/b, b*m) blocks
    first keeps the inner loop b*m long (about 8x faster here), and the b partial sums
    are also more accurate than one running sum.
    """
    kept = x.shape[count:]
    m = int(np.prod(kept))
    rows = x.reshape(-1, m)
    n = rows.shape[0]
    b = _ROW_BLOCK // m
    body = (n // b) * b
    total = rows[:body].reshape(-1, b * m).sum(axis=0).reshape(b, m).sum(axis=0)
    if body < n:
        total += rows[body:].sum(axis=0)
    return total.reshape(kept)


@primitive("reduce_sum")
def _reduce_sum(x, axis, keepdims):
    total = None
    if (axis is not None and axis == tuple(range(len(axis))) and len(axis) < x.ndim
            and x.flags.c_contiguous):  # leading axes of a contiguous array
        if (type(x) is np.ndarray and x.size >= 16 * _ROW_BLOCK and x.dtype.kind in "fc"
                and int(np.prod(x.shape[len(axis):])) <= 64):  # short kept rows: a bias grad
            total = _sum_leading(x, len(axis))
        elif backend.is_gpu_array(x) and x.dtype.char in "efd" and x.size:
            total = backend.sum_leading_axes(x, len(axis))
    if total is not None:
        return total.reshape((1,) * len(axis) + total.shape) if keepdims else total
    if x.dtype.kind in "iu":  # NumPy widens int32 sums to int64; TF keeps the dtype
        return x.sum(axis=axis, keepdims=keepdims, dtype=x.dtype)
    return x.sum(axis=axis, keepdims=keepdims)


@_reduce_sum.defgrad
def _(op, dy):
    return (broadcast_reduced(dy, op.attrs["axis"], op.inputs[0].shape),)


@primitive("broadcast_reduced", views=True)
def _broadcast_reduced(dy, axis, shape):
    return backend.array_module(dy).broadcast_to(dy.reshape(_kept_shape(shape, axis)), shape)


@_broadcast_reduced.defgrad
def _(op, g):
    dy = op.inputs[0]  # reduced with or without keepdims: sum g back to the same shape
    return (reduce_sum(g, op.attrs["axis"], keepdims=dy.ndim == g.ndim),)


def broadcast_reduced(dy, axis, shape) -> Tensor:
    """`dy`, the result of summing a `shape` tensor over `axis`, repeated back to `shape`.

    The adjoint of `reduce_sum` as one op (a reshape and a broadcast view),
    like JAX's `broadcast_in_dim`; `axis` is normalized (None: all axes).
    """
    return apply(_broadcast_reduced, (dy,), {"axis": axis, "shape": tuple(shape)})


def reduce_sum(input_tensor, axis=None, keepdims: bool = False):
    """Sum over `axis` (all axes if None).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> x = [[1.0, 2.0], [3.0, 4.0]]
        >>> float(ks.reduce_sum(x)), ks.reduce_sum(x, axis=0).numpy().tolist()
        (10.0, [4.0, 6.0])
        >>> ks.reduce_sum(x, axis=1, keepdims=True).numpy().tolist()
        [[3.0], [7.0]]
    """
    x = convert_to_tensor(input_tensor)
    axes = normalize_axis(axis, x.ndim, "reduce_sum")
    return apply(_reduce_sum, (x,), {"axis": axes, "keepdims": keepdims})


@symbolic_fallback
def reduce_mean(input_tensor, axis=None, keepdims: bool = False):
    """Mean over `axis` (all axes if None).

    Integer inputs give an integer mean of the same dtype, rounded toward zero
    (C integer division), as in TF: the mean of [-3, 0] is -1.

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy().tolist()
        [1.5, 3.5]
        >>> int(ks.reduce_mean([-3, 0]))
        -1
    """
    x = convert_to_tensor(input_tensor)
    axes = normalize_axis(axis, x.ndim, "reduce_mean")
    count = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    total = reduce_sum(x, axes, keepdims)
    if x.dtype.kind in "iu":
        return truncatediv(total, max(count, 1))
    return total / float(max(count, 1)) if count != 1 else total


def _extreme(name, method, shown):
    @primitive(name)
    def prim(x, axis, keepdims):
        if x.size == 0:
            raise InvalidArgumentError(f"{name}: cannot reduce an empty tensor (shape {x.shape})")
        return getattr(x, method)(axis=axis, keepdims=keepdims)

    @prim.defgrad
    def _(op, dy):
        x, axis = op.inputs[0], op.attrs["axis"]
        picked = cast(equal(x, broadcast_reduced(op.output, axis, x.shape)), x.dtype)
        share = picked / reduce_sum(picked, axis, keepdims=True)
        return (broadcast_reduced(dy, axis, x.shape) * share,)

    def op(input_tensor, axis=None, keepdims: bool = False):
        x = convert_to_tensor(input_tensor)
        axes = normalize_axis(axis, x.ndim, name)
        return apply(prim, (x,), {"axis": axes, "keepdims": keepdims})

    op.__name__ = name
    op.__doc__ = factory_doc(
        f"{method.capitalize()} over `axis`; the gradient is shared equally between ties.",
        _AXIS_ARGS,
        "The reduced tensor, of the input's dtype.",
        f"ks.{name}([[1.0, 5.0], [3.0, 2.0]], axis=1).numpy().tolist()", shown,
        raises=("InvalidArgumentError: the input is empty, or an axis is out of range.",),
    )
    return op


reduce_max = _extreme("reduce_max", "max", "[5.0, 3.0]")
reduce_min = _extreme("reduce_min", "min", "[1.0, 2.0]")


@symbolic_fallback
def reduce_variance(input_tensor, axis=None, keepdims: bool = False):
    """Population variance over `axis` (the mean squared deviation: divided by n).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_variance([[1.0, 2.0], [3.0, 4.0]], axis=0).numpy().tolist()
        [1.0, 1.0]
    """
    x = convert_to_tensor(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(x - mean), axis, keepdims)


@symbolic_fallback
def reduce_std(input_tensor, axis=None, keepdims: bool = False):
    """Population standard deviation over `axis` (the square root of `reduce_variance`).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> float(ks.reduce_std([1.0, 3.0]))
        1.0
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


def _nondiff_reduction(name, method, shown):
    prim = primitive(name, differentiable=False)(
        lambda x, axis, keepdims: getattr(x, method)(axis=axis, keepdims=keepdims)
    )

    def op(input_tensor, axis=None, keepdims: bool = False):
        x = convert_to_tensor(input_tensor)
        axes = normalize_axis(axis, x.ndim, name)
        return apply(prim, (x,), {"axis": axes, "keepdims": keepdims})

    op.__name__ = name
    op.__doc__ = factory_doc(
        f"Logical {method} over `axis` (boolean result, not differentiable).",
        _AXIS_ARGS, "A bool tensor.",
        f"ks.{name}([[True, False], [True, True]], axis=1).numpy().tolist()", shown,
    )
    return op


reduce_any = _nondiff_reduction("reduce_any", "any", "[True, True]")
reduce_all = _nondiff_reduction("reduce_all", "all", "[False, True]")


def _arg_extreme(name, method, shown):
    prim = primitive(name, differentiable=False)(
        lambda x, axis, output_type: getattr(x, method)(axis=axis).astype(output_type)
    )

    def op(input, axis=None, output_type=np.int64):  # noqa: A002 - TF's name
        x = convert_to_tensor(input)
        axis = 0 if axis is None else normalize_axis(axis, x.ndim, name)[0]
        return apply(prim, (x,), {"axis": axis, "output_type": as_dtype(output_type)})

    op.__name__ = name
    op.__doc__ = factory_doc(
        f"Index of the {method[3:]} along `axis` (default 0), as in TF (not differentiable).",
        (
            "input: the tensor to search.",
            "axis: the one axis to search along; None means 0.",
            "output_type: the integer dtype of the indices.",
        ),
        "The indices, with `axis` removed from the input's shape; the first one on ties.",
        f"ks.{name}([[1, 5, 2], [7, 0, 3]], axis=1).numpy().tolist()", shown,
    )
    return op


argmax = _arg_extreme("argmax", "argmax", "[1, 0]")
argmin = _arg_extreme("argmin", "argmin", "[0, 1]")


def norm(tensor, ord="euclidean", axis=None, keepdims: bool = False):  # noqa: A002
    """Euclidean (default) or 1-norm over `axis`.

    Args:
        tensor: the values.
        ord: "euclidean" (also 2 or "fro": the square root of the sum of squares)
            or 1 (the sum of absolute values).
        axis: the axis or axes reduced (None: all).
        keepdims: keep the reduced axes with size 1.

    Returns:
        The norms.

    Raises:
        InvalidArgumentError: for another `ord`.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.norm([[3.0, 4.0], [6.0, 8.0]], axis=1).numpy().tolist()
        [5.0, 10.0]
        >>> float(ks.linalg.norm([3.0, -4.0], ord=1))
        7.0
    """
    if ord in ("euclidean", 2, "fro"):
        return sqrt(reduce_sum(square(tensor), axis, keepdims))
    if ord == 1:
        return reduce_sum(abs(tensor), axis, keepdims)
    raise InvalidArgumentError(f"norm: ord must be 'euclidean', 2 or 1, got {ord!r}")


def count_nonzero(x, axis=None) -> Tensor:
    """The number of non-zero elements over `axis` (all axes when None), as int32; not
    differentiable.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.

    Returns:
        An int32 tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.count_nonzero([[0, 1], [2, 0]])
        <ks.Tensor: shape=(), dtype=int32, numpy=2>
    """
    return reduce_sum(cast(not_equal(x, 0), np.int32), axis)
