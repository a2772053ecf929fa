"""Cumulative sums and products along an axis, and the product reduction built on them.

`cumsum` is one primitive for TF's four modes (`exclusive`, `reverse`): its
gradient is `cumsum` of dy in the opposite direction with the same
exclusivity. `cumprod` is one primitive for the inclusive forward scan (the
other modes are a flip and a shift around it) whose gradient stays correct
when the input holds zeros, where TF's divides by them. `reduce_prod` is the
last entry of a `cumprod` over the reduced axes, so its gradient (to any
order) is right with zeros too.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, reduction_ops, shape_ops
from kerasish.core.primitive import apply, primitive
from kerasish.core.tensor import Tensor, convert_to_tensor


def _flip(x, axis: int):
    return x[(slice(None),) * axis + (slice(None, None, -1),)]


def _scan_dtype(x):
    """NumPy widens int32 scans to int64; TF keeps the input's dtype."""
    return x.dtype if x.dtype.kind in "iu" else None


@primitive("cumsum")
def _cumsum(x, axis, exclusive, reverse):
    xp = backend.array_module(x)
    if reverse:
        x = _flip(x, axis)
    out = xp.cumsum(x, axis=axis, dtype=_scan_dtype(x))
    if exclusive:
        shifted = xp.zeros_like(out)
        head = (slice(None),) * axis
        shifted[head + (slice(1, None),)] = out[head + (slice(None, -1),)]
        out = shifted
    return _flip(out, axis) if reverse else out


@_cumsum.defgrad
def _(op, dy):
    attrs = op.attrs
    return (cumsum(dy, attrs["axis"], attrs["exclusive"], not attrs["reverse"]),)


def cumsum(x, axis: int = 0, exclusive: bool = False, reverse: bool = False):
    """Running sums along `axis`, as tf.math.cumsum.

    Args:
        x: a tensor.
        axis: the axis to scan.
        exclusive: each entry leaves itself out (the first one is 0).
        reverse: scan from the end of the axis.

    Example:
        >>> import kerasish as ks
        >>> ks.cumsum([1, 2, 3], exclusive=True, reverse=True).numpy().tolist()
        [5, 3, 0]
    """
    x = convert_to_tensor(x)
    axis = _scan_axis(x, axis, "cumsum")
    attrs = {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply(_cumsum, (x,), attrs)


def _scan_axis(x: Tensor, axis, name: str) -> int:
    if x.ndim == 0:
        raise InvalidArgumentError(f"{name}: needs a tensor of rank >= 1, got a scalar")
    return reduction_ops.normalize_axis(int(axis), x.ndim, name)[0]


@primitive("cumprod")
def _cumprod(x, axis):
    return backend.array_module(x).cumprod(x, axis=axis, dtype=_scan_dtype(x))


@_cumprod.defgrad
def _(op, dy):
    # d y_k / d x_i = prod_{j <= k, j != i} x_j for i <= k, so the gradient at i is
    # sum_{k >= i} dy_k y_k / x_i. With a zero in the input that division is not possible:
    # the gradient is then prod_{j < i} x_j (an exclusive cumprod) times
    # r_i = sum_{k >= i} dy_k prod_{i < j <= k} x_j, from r_i = dy_i + x_{i+1} r_{i+1}
    # (a loop along the axis, taken only when a zero is present). Both are polynomials
    # in x, so gradients of this gradient are right too.
    x, y = op.inputs[0], op.output
    axis = op.attrs["axis"]
    if not (x._value == 0).any():
        return (cumsum(dy * y, axis, reverse=True) / x,)
    head = (slice(None),) * axis
    n = x.shape[axis]
    rest = [dy[head + (n - 1,)]]
    for i in range(n - 2, -1, -1):
        rest.append(dy[head + (i,)] + x[head + (i + 1,)] * rest[-1])
    return (cumprod(x, axis, exclusive=True) * shape_ops.stack(rest[::-1], axis),)


def cumprod(x, axis: int = 0, exclusive: bool = False, reverse: bool = False):
    """Running products along `axis`, as tf.math.cumprod; gradients are right with zeros.

    Args:
        x: a tensor.
        axis: the axis to scan.
        exclusive: each entry leaves itself out (the first one is 1).
        reverse: scan from the end of the axis.

    Example:
        >>> import kerasish as ks
        >>> ks.cumprod([2, 3, 4], exclusive=True).numpy().tolist()
        [1, 2, 6]
    """
    x = convert_to_tensor(x)
    axis = _scan_axis(x, axis, "cumprod")
    if reverse:
        x = _flip(x, axis)
    if exclusive and x.shape[axis]:
        head = (slice(None),) * axis
        ones = creation_ops.ones_like(x[head + (slice(0, 1),)])
        x = shape_ops.concat([ones, x[head + (slice(None, -1),)]], axis)
    out = apply(_cumprod, (x,), {"axis": axis})
    return _flip(out, axis) if reverse else out


def reduce_prod(input_tensor, axis=None, keepdims: bool = False):
    """Product over `axis` (all axes if None); its gradient is right with zeros in the input.

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_prod([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy().tolist()
        [2.0, 12.0]
    """
    x = convert_to_tensor(input_tensor)
    axes = reduction_ops.normalize_axis(axis, x.ndim, "reduce_prod")
    reduced = tuple(range(x.ndim)) if axes is None else axes
    kept = tuple(i for i in range(x.ndim) if i not in reduced)
    kept_shape = tuple(x.shape[i] for i in kept)
    out_shape = (
        tuple(1 if i in reduced else d for i, d in enumerate(x.shape)) if keepdims else kept_shape
    )
    count = int(np.prod([x.shape[i] for i in reduced]))
    if count == 0:
        return creation_ops.ones(out_shape, dtype=x.dtype)
    rows = shape_ops.reshape(shape_ops.transpose(x, kept + reduced), kept_shape + (count,))
    product = cumprod(rows, axis=len(kept))[(Ellipsis, -1)]
    return shape_ops.reshape(product, out_shape)
