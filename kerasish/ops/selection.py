"""`ks.ops` sorting, searching and selection: `sort`, `top_k`, `take_along_axis`, `unique`,
`quantile`, ..."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    creation_ops,
    indexing_ops,
    math_ops,
    reduction_ops,
    shape_ops,
    sorting_ops,
)
from kerasish.core.ops.math_ops import not_equal
from kerasish.core.ops.shape_ops import reshape, squeeze
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.creation import convert_to_numpy, full
from kerasish.ops.keras_dtypes import floating
from kerasish.ops.shapes import concatenate, moveaxis, take

__all__ = [
    "argsort",
    "bincount",
    "digitize",
    "in_top_k",
    "median",
    "nonzero",
    "quantile",
    "searchsorted",
    "sort",
    "take_along_axis",
    "top_k",
    "unique",
]


def sort(x, axis: int = -1) -> Tensor:
    """`x` sorted ascending along `axis`; the gradient goes back to where each value came from.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.

    Returns:
        A tensor of `x`'s shape and dtype.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.sort([[3, 1, 2], [0, 5, 4]])).tolist()
        [[1, 2, 3], [0, 4, 5]]
    """
    return sorting_ops.sort(x, axis)


def argsort(x, axis: int = -1) -> Tensor:
    """The indices that sort `x` ascending along `axis` (stable), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.

    Returns:
        An int32 tensor of `x`'s shape (not differentiable).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.argsort([3, 1, 2])).tolist()
        [1, 2, 0]
    """
    return sorting_ops.argsort(x, axis)


def top_k(x, k: int, sorted: bool = True) -> tuple:  # noqa: A002 - Keras's name
    """The `k` largest values along the last axis, largest first, and their int32 indices
    (the lower index first among equal values).

    Args:
        x: a tensor of rank >= 1.
        k: how many, at most the last axis' length.
        sorted: Keras's flag; the values always come sorted here.

    Returns:
        (values, indices), each of `x`'s shape with the last axis k long; the gradient of
        the values flows to the picked entries.

    Raises:
        InvalidArgumentError: `k` is out of range.

    Example:
        >>> from kerasish import ops
        >>> values, indices = ops.top_k([[1.0, 5.0, 3.0]], k=2)
        >>> ops.convert_to_numpy(values).tolist(), ops.convert_to_numpy(indices).tolist()
        ([[5.0, 3.0]], [[1, 2]])
    """
    return sorting_ops.top_k(x, k, sorted)


def in_top_k(targets, predictions, k: int) -> Tensor:
    """Whether each target's score is among the `k` largest of its row (ties at the boundary
    count as in).

    Args:
        targets: (batch,) integer class ids.
        predictions: (batch, classes) scores.
        k: how many of the largest count.

    Returns:
        A (batch,) bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.in_top_k([1, 2], [[0.1, 0.9, 0.0], [0.5, 0.4, 0.1]], 2))
        array([ True, False])
    """
    return sorting_ops.in_top_k(targets, predictions, k)


def take_along_axis(x, indices, axis=None) -> Tensor:
    """`x`'s values at `indices` along `axis` (NumPy's take_along_axis; the other axes of
    `indices` broadcast against `x`'s); axis None: the flattened `x` and 1-D indices.

    Args:
        x: a tensor.
        indices: integers of `x`'s rank (negative ones count from the end).
        axis: the axis they index, or None.

    Returns:
        The picked values; the gradient flows back to them.

    Raises:
        InvalidArgumentError: the shapes do not fit, or an index is out of range.

    Example:
        >>> from kerasish import ops
        >>> x = [[10.0, 30.0, 20.0], [5.0, 4.0, 6.0]]
        >>> ops.convert_to_numpy(ops.take_along_axis(x, ops.argsort(x), axis=1)).tolist()
        [[10.0, 20.0, 30.0], [4.0, 5.0, 6.0]]
    """
    if axis is None:
        return sorting_ops.take_along_axis(reshape(x, [-1]), reshape(indices, [-1]), 0)
    return sorting_ops.take_along_axis(x, indices, axis)


searchsorted = sorting_ops.searchsorted
digitize = sorting_ops.digitize


def nonzero(x) -> tuple:
    """The indices of the non-zero elements: one int32 tensor per axis, in row-major order.

    Args:
        x: a tensor of rank >= 1.

    Returns:
        A tuple of `ndim(x)` 1-D int32 tensors.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.nonzero([[0, 3], [4, 0]])]
        [[0, 1], [1, 0]]
    """
    x = convert_to_tensor(x)
    found = math_ops.cast(math_ops.where(x if x.dtype.kind == "b" else not_equal(x, 0)), np.int32)
    return tuple(indexing_ops.getitem(found, (builtins.slice(None), d)) for d in range(x.ndim))


def unique(x, sorted: bool = True, return_index: bool = False,  # noqa: A002 - Keras's names
           return_inverse: bool = False, return_counts: bool = False, axis=None, size=None,
           fill_value=None):
    """The distinct values of `x` (eager: the result's length depends on the values).

    Args:
        x: a tensor.
        sorted: True: ascending; False: in order of first appearance.
        return_index: also return the index of each value's first occurrence.
        return_inverse: also return each element's position among the values.
        return_counts: also return how often each value occurs.
        axis: None: the flattened `x`; an int: distinct slices along it.
        size: pad (with `fill_value`) or cut the values to this length (axis None only).
        fill_value: the padding; None: the smallest value.

    Returns:
        The values, or a tuple (values, then index, inverse and counts as asked), the
        last three int32.

    Raises:
        InvalidArgumentError: `size` with an axis.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.unique([3, 1, 3, 2], sorted=False)).tolist()
        [3, 1, 2]
    """
    values, index, inverse, counts = sorting_ops.unique_with_counts(x, axis)
    along = 0 if axis is None else axis
    if not sorted:
        order = argsort(index)
        values, index, counts = (take(values, order, axis=along), take(index, order),
                                 take(counts, order))
        inverse = take(argsort(order), inverse)
    if size is not None:
        if axis is not None:
            raise InvalidArgumentError(f"unique: size is taken only with axis None, got {axis}")
        missing = builtins.max(int(size) - values.shape[0], 0)
        fill = reduction_ops.reduce_min(values) if fill_value is None else fill_value
        values = concatenate([values[:size], full((missing,), fill, values.dtype)])
        index, counts = (concatenate([t[:size], creation_ops.zeros((missing,), np.int32)])
                         for t in (index, counts))
    asked = [t for t, wanted in ((index, return_index), (inverse, return_inverse),
                                 (counts, return_counts)) if wanted]
    return (values, *asked) if asked else values


def bincount(x, weights=None, minlength: int = 0, sparse: bool = False) -> Tensor:
    """How often each non-negative integer occurs in `x` (the sum of its `weights`), per row
    for a 2-D `x`.

    Args:
        x: a 1-D or 2-D tensor of non-negative integers.
        weights: None (counts, int32), or a tensor of `x`'s shape whose entries are summed
            (differentiable with respect to them).
        minlength: the least length of the result.
        sparse: Keras's flag for a sparse result; only False.

    Returns:
        (length,) or (rows, length), length = max(max(x) + 1, minlength).

    Raises:
        InvalidArgumentError: `x` is not integer of rank 1 or 2, a value is negative, or
            `sparse` is True.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.bincount([0, 2, 2], minlength=4)).tolist()
        [1, 0, 2, 0]
    """
    ids = convert_to_tensor(x)
    if sparse or ids.dtype.kind not in "iu" or ids.ndim not in (1, 2):
        raise InvalidArgumentError(
            f"bincount: needs dense counts (sparse=False) of a 1-D or 2-D integer tensor, got "
            f"sparse={sparse} and {ids.dtype} of shape {ids.shape}"
        )
    host = convert_to_numpy(ids)
    length = builtins.max(int(minlength), int(host.max()) + 1 if host.size else 0)
    values = creation_ops.ones_like(ids, dtype=np.int32) if weights is None else convert_to_tensor(
        weights)
    if ids.ndim == 1:
        return indexing_ops.unsorted_segment_sum(values, ids, length)
    rows = ids.shape[0]
    shifted = reshape(ids + np.arange(rows).reshape(-1, 1) * length, [-1])
    counts = indexing_ops.unsorted_segment_sum(reshape(values, [-1]), shifted, rows * length)
    return reshape(counts, (rows, length))


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


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
        The quantiles (float32 for integer `x`); for a sequence `q`, its axis comes first.

    Raises:
        InvalidArgumentError: `q` is outside [0, 1] or of rank 2, or another method.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.quantile([[1.0, 2.0, 3.0, 4.0]], [0.5, 1.0], axis=1))
        array([[2.5],
               [4. ]], dtype=float32)
    """
    x = floating(x)
    qs = np.asarray(convert_to_numpy(q), dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)) or method not in _QUANTILE_METHODS:
        raise InvalidArgumentError(
            f"quantile: q must be a number or a 1-D sequence in [0, 1] (got {qs.tolist()}) and "
            f"method one of {_QUANTILE_METHODS} (got {method!r})"
        )
    reduced = sorted_axes = tuple(range(x.ndim)) if axis is None else tuple(
        builtins.sorted(reduction_ops.normalize_axis(axis, x.ndim, "quantile")))
    kept = [a for a in range(x.ndim) if a not in sorted_axes]
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
    result = moveaxis(result, -1, 0)
    if keepdims:
        result = reshape(result, [len(low)] + [1 if a in reduced else x.shape[a]
                                               for a in range(x.ndim)])
    return result if qs.ndim else squeeze(result, 0)


def median(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median over `axis` (all axes when None): the mean of the middle two for an even
    count.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The medians (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> float(ops.median([3, 1, 4, 2]))
        2.5
    """
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)
