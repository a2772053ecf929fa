"""Statistics beside the reductions (NumPy's): `quantile`, `median` and the weighted
`average`.

Each is composed of sorts, gathers, sums and elementwise ops, so its gradient comes from
theirs: a quantile's flows to the sorted values it interpolates. Integer inputs are taken
as float64, as NumPy does (`ks.ops` takes them as float32, Keras's rule).
"""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import indexing_ops, math_ops, reduction_ops, shape_ops, sorting_ops
from kerasish.core.ops.creation_ops import ones_like
from kerasish.core.ops.shape_ops import reshape
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _floating(x) -> Tensor:
    """`x` as a tensor, integers and bools as float64 (NumPy's rule for these statistics)."""
    x = convert_to_tensor(x)
    return x if x.dtype.kind in "fc" else math_ops.cast(x, np.float64)


@symbolic_fallback
def quantile(x, q, axis=None, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The q-th quantiles over `axis` (NumPy's, with its methods), from a sort, so the
    gradient flows to the values they interpolate.

    Args:
        x: a tensor.
        q: a quantile in [0, 1], or a 1-D sequence of them.
        axis: an axis or a sequence of axes; None: all axes.
        method: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The quantiles (`ks.ops.quantile`: float32 for integer `x`); for a sequence `q`,
        its axis comes first.

    Raises:
        InvalidArgumentError: `q` is outside [0, 1] or of rank 2, or another method.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.quantile([[1.0, 2.0, 3.0, 4.0]], [0.5, 1.0], axis=1))
        array([[2.5],
               [4. ]], dtype=float32)
    """
    x = _floating(x)
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)) or method not in _QUANTILE_METHODS:
        raise InvalidArgumentError(
            f"quantile: q must be a number or a 1-D sequence in [0, 1] (got {qs.tolist()}) and "
            f"method one of {_QUANTILE_METHODS} (got {method!r})"
        )
    reduced = tuple(range(x.ndim)) if axis is None else tuple(
        builtins.sorted(reduction_ops.normalize_axis(axis, x.ndim, "quantile")))
    kept = [a for a in range(x.ndim) if a not in reduced]
    values = reshape(shape_ops.transpose(x, kept + list(reduced)),
                     [x.shape[a] for a in kept] + [-1])
    values = sorting_ops.sort(values, -1)
    last, position = values.ndim - 1, qs.reshape(-1) * (values.shape[-1] - 1)
    low, high = np.floor(position).astype(np.int64), np.ceil(position).astype(np.int64)
    if method == "nearest":
        low = high = np.around(position).astype(np.int64)
    below, above = (indexing_ops.gather(values, i, axis=last) for i in (low, high))
    if method in ("lower", "nearest"):
        result = below
    elif method == "higher":
        result = above
    elif method == "midpoint":
        result = (below + above) * 0.5
    else:
        result = below + (above - below) * math_ops.cast(position - low, x.dtype)
    result = shape_ops.moveaxis(result, -1, 0)
    if keepdims:
        result = reshape(result, [len(low)] + [1 if a in reduced else x.shape[a]
                                               for a in range(x.ndim)])
    return result if qs.ndim else shape_ops.squeeze(result, 0)


@symbolic_fallback
def median(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median over `axis` (all axes when None): the mean of the middle two for an even
    count (the 0.5 `quantile`).

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The medians (`ks.ops.median`: float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> float(ops.median([3, 1, 4, 2]))
        2.5
    """
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


@symbolic_fallback
def average(x, axis=None, weights=None) -> Tensor:
    """The mean over `axis`, weighted by `weights` (of `x`'s shape, or 1-D along `axis`):
    sum(x * w) / sum(w).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to average over; None: all axes.
        weights: a tensor of `x`'s shape, or 1-D along `axis`; None: the plain mean.

    Returns:
        The weighted mean (`ks.ops.average`: float32 for integer `x`).

    Raises:
        InvalidArgumentError: 1-D weights for a tensor of rank 2 or more without an axis.

    Example:
        >>> from kerasish import ops
        >>> ops.average([1.0, 3.0], weights=[3.0, 1.0])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.5>
    """
    x = _floating(x)
    if weights is None:
        return reduction_ops.reduce_mean(x, axis)
    weights = math_ops.cast(convert_to_tensor(weights), x.dtype)
    if weights.ndim == 1 and x.ndim > 1:
        if axis is None:
            raise InvalidArgumentError(
                f"average: 1-D weights of shape {weights.shape} need an axis for x of shape "
                f"{x.shape}"
            )
        axis = reduction_ops.normalize_axis(axis, x.ndim, "average")[0]
        weights = reshape(weights, [-1 if a == axis else 1 for a in range(x.ndim)])
    return reduction_ops.reduce_sum(x * weights, axis) / reduction_ops.reduce_sum(
        weights * ones_like(x), axis)
