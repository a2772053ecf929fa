"""Sorting and searching: `sort`, `argsort`, `top_k`, `in_top_k`, `take_along_axis`,
`searchsorted`, `digitize`, `unique_with_counts` and NumPy's `unique`.
"""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, reduction_ops
from kerasish.core.ops.creation_ops import zeros_like
from kerasish.core.ops.indexing_ops import checked_indices, gather, getitem
from kerasish.core.ops.shape_ops import concat, reshape
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import convert_to_tensor

# ---------------------------------------------------------------- sorting and searching
# (argsort, searchsorted, digitize and unique have integer results: not differentiable. sort,
# top_k and take_along_axis gather with the found indices, so their gradients are getitem's.)


@primitive("argsort", differentiable=False)
def _argsort(x, axis, descending):
    xp = backend.array_module(x)
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable").astype(np.int32)
    # a stable ascending sort of the reversed axis, reversed: largest first, ties in order
    order = xp.flip(xp.argsort(xp.flip(x, axis), axis=axis, kind="stable"), axis)
    return (x.shape[axis] - 1 - order).astype(np.int32)


def argsort(values, axis: int = -1, direction: str = "ASCENDING"):
    """The indices that sort `values` along `axis` (stable: equal values keep their order).

    Args:
        values: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.
        direction: 'ASCENDING' or 'DESCENDING'.

    Returns:
        An int32 tensor of `values`' shape (not differentiable).

    Raises:
        InvalidArgumentError: `direction` is neither, or `axis` is out of range.

    Example:
        >>> from kerasish.core.ops import sorting_ops
        >>> sorting_ops.argsort([3, 1, 2, 1], direction="DESCENDING").numpy().tolist()
        [0, 2, 1, 3]
    """
    x = convert_to_tensor(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError(
            f"argsort: direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}"
        )
    if x.ndim == 0:
        return math_ops.cast(zeros_like(x), np.int32)
    axis = reduction_ops.normalize_axis(axis, x.ndim, "argsort")[0]
    return apply(_argsort, (x,), {"axis": axis, "descending": direction == "DESCENDING"})


@symbolic_fallback
def take_along_axis(x, indices, axis=None):
    """The values of `x` at `indices` along `axis` (NumPy's take_along_axis): result[..., i,
    ...] = x[..., indices[..., i, ...], ...]; the other axes of `indices` broadcast.

    Args:
        x: a tensor.
        indices: integers of `x`'s rank; negative ones count from the end.
        axis: the axis they index; None: the flattened `x` and `indices`.

    Returns:
        The gathered tensor, of `indices`' shape (broadcast with `x` off `axis`); the
        gradient flows back to the picked entries.

    Raises:
        InvalidArgumentError: the ranks differ, another axis does not broadcast, or an index
            is out of range (the first bad one is named).

    Example:
        >>> from kerasish.core.ops import sorting_ops
        >>> x = [[10.0, 30.0, 20.0], [5.0, 4.0, 6.0]]
        >>> sorting_ops.take_along_axis(x, [[1], [2]], axis=1).numpy().tolist()
        [[30.0], [6.0]]
    """
    x, ids = convert_to_tensor(x), convert_to_tensor(indices)
    if axis is None:
        x, ids, axis = reshape(x, [-1]), reshape(ids, [-1]), 0
    mismatched = ids.ndim != x.ndim or not builtins.all(
        i in (1, n) or n == 1 for d, (i, n) in enumerate(zip(ids.shape, x.shape))
        if d != axis % builtins.max(x.ndim, 1))
    if mismatched:
        raise InvalidArgumentError(
            f"take_along_axis: indices of shape {ids.shape} do not fit x of shape {x.shape} "
            f"along axis {axis} (same rank, the other axes equal or 1)"
        )
    axis = reduction_ops.normalize_axis(axis, x.ndim, "take_along_axis")[0]
    size = x.shape[axis]
    if ids.dtype.kind not in "iu":
        raise InvalidArgumentError(f"take_along_axis: indices must be integers, got {ids.dtype}")
    # recorded ops all the way (no index read on the host), so a ks.function replay follows
    # indices that earlier ops computed: one gather from the flattened x
    ids = math_ops.cast(ids, np.int64)
    ids = checked_indices("take_along_axis", math_ops.where(math_ops.less(ids, 0), ids + size,
                                                            ids), size)
    strides = [int(np.prod(x.shape[d + 1:], dtype=np.int64)) for d in range(x.ndim)]
    offsets = builtins.sum(
        np.arange(n).reshape([-1 if e == d else 1 for e in range(x.ndim)]) * strides[d]
        for d, n in enumerate(x.shape) if d != axis)
    return gather(reshape(x, [-1]), ids * strides[axis] + offsets)


def sort(values, axis: int = -1, direction: str = "ASCENDING"):
    """`values` sorted along `axis`; the gradient goes back to where each value came from.

    Args:
        values: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.
        direction: 'ASCENDING' or 'DESCENDING'.

    Returns:
        A tensor of `values`' shape and dtype.

    Example:
        >>> from kerasish.core.ops import sorting_ops
        >>> sorting_ops.sort([[3.0, 1.0, 2.0]]).numpy().tolist()
        [[1.0, 2.0, 3.0]]
    """
    x = convert_to_tensor(values)
    if x.ndim == 0:
        return x
    return take_along_axis(x, argsort(x, axis, direction), axis)


def top_k(input, k: int = 1, sorted: bool = True):  # noqa: A002 - TF's names
    """The `k` largest values along the last axis and their indices (the lower index first
    among equal values), as tf.math.top_k.

    Args:
        input: a tensor of rank >= 1.
        k: how many values, at most the last axis' length.
        sorted: kept for TF's signature; the values always come largest first.

    Returns:
        (values, indices): `input`'s shape with the last axis k long; indices int32.

    Raises:
        InvalidArgumentError: `k` is negative or above the last axis' length.

    Example:
        >>> import kerasish as ks
        >>> values, indices = ks.math.top_k([1.0, 5.0, 3.0, 5.0], k=2)
        >>> values.numpy().tolist(), indices.numpy().tolist()
        ([5.0, 5.0], [1, 3])
    """
    x = convert_to_tensor(input)
    if x.ndim == 0 or not 0 <= k <= x.shape[-1]:
        raise InvalidArgumentError(
            f"top_k: k = {k} must be in [0, {x.shape[-1] if x.ndim else 0}] (the last axis of "
            f"shape {x.shape})"
        )
    indices = getitem(argsort(x, -1, "DESCENDING"), (Ellipsis, builtins.slice(0, k)))
    return take_along_axis(x, indices, -1), indices


@symbolic_fallback
def in_top_k(targets, predictions, k: int):
    """Whether each target's prediction is among the `k` largest of its row (ties at the
    boundary count as in, as TF's in_top_k); not differentiable.

    Args:
        targets: (batch,) integer class ids.
        predictions: (batch, classes) scores.
        k: how many of the largest count.

    Returns:
        A (batch,) bool tensor.

    Raises:
        InvalidArgumentError: the shapes do not fit, or a target is not in [0, classes).

    Example:
        >>> import kerasish as ks
        >>> ks.math.in_top_k([1, 1], [[0.1, 0.9, 0.0], [0.5, 0.4, 0.1]], k=1).numpy().tolist()
        [True, False]
    """
    ids, scores = convert_to_tensor(targets), convert_to_tensor(predictions)
    if scores.ndim != 2 or ids.shape != scores.shape[:1]:
        raise InvalidArgumentError(
            f"in_top_k: targets of shape {ids.shape} need predictions of shape (batch, "
            f"classes) with the same batch, got {scores.shape}"
        )
    picked = take_along_axis(scores, reshape(ids, (-1, 1)), 1)
    larger = reduction_ops.reduce_sum(math_ops.cast(math_ops.greater(scores, picked), np.int32), 1)
    return math_ops.less(larger, k)


@primitive("searchsorted", differentiable=False)
def _searchsorted(sorted_sequence, values, side):
    xp = backend.array_module(values)
    return xp.searchsorted(sorted_sequence, values, side=side).astype(np.int32)


def searchsorted(sorted_sequence, values, side: str = "left"):
    """Where each of `values` would go in the 1-D ascending `sorted_sequence` to keep it
    sorted (before equal entries for 'left', after them for 'right').

    Args:
        sorted_sequence: a 1-D ascending tensor.
        values: a tensor of values to place.
        side: 'left' or 'right'.

    Returns:
        An int32 tensor of `values`' shape (not differentiable).

    Raises:
        InvalidArgumentError: `sorted_sequence` is not 1-D, or `side` is neither.

    Example:
        >>> from kerasish.core.ops import sorting_ops
        >>> sorting_ops.searchsorted([1.0, 2.0, 3.0], [2.0, 2.5], side="right").numpy().tolist()
        [2, 2]
    """
    sequence, values = convert_to_tensor(sorted_sequence), convert_to_tensor(values)
    if sequence.ndim != 1 or side not in ("left", "right"):
        raise InvalidArgumentError(
            f"searchsorted: needs a 1-D sorted_sequence (got shape {sequence.shape}) and side "
            f"'left' or 'right' (got {side!r})"
        )
    return apply(_searchsorted, (sequence, values), {"side": side})


@primitive("digitize", differentiable=False)
def _digitize(x, bins):
    return backend.array_module(x).digitize(x, bins).astype(np.int32)


def digitize(x, bins):
    """The bin of each value (NumPy's digitize): i with bins[i-1] <= x < bins[i] for
    increasing `bins` (bins[i-1] > x >= bins[i] for decreasing ones).

    Args:
        x: a tensor of values.
        bins: a 1-D monotonic tensor of bin edges.

    Returns:
        An int32 tensor of `x`'s shape (not differentiable).

    Raises:
        InvalidArgumentError: `bins` is not 1-D or not monotonic.

    Example:
        >>> import kerasish as ks
        >>> ks.ops.digitize([0.5, 1.0, 2.5], [1.0, 2.0]).numpy().tolist()
        [0, 1, 2]
    """
    x, bins = convert_to_tensor(x), convert_to_tensor(bins)
    if bins.ndim != 1:
        raise InvalidArgumentError(f"digitize: bins must be 1-D, got shape {bins.shape}")
    return apply(_digitize, (x, bins))


@primitive("unique", differentiable=False, multi_output=True)
def _unique(x, axis):
    xp = backend.array_module(x)
    values, index, inverse, counts = xp.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    return values, index.astype(np.int32), inverse.reshape(-1).astype(np.int32), counts.astype(
        np.int32)


def unique_with_counts(x, axis=None) -> tuple:
    """The sorted distinct values of `x` (or its distinct slices along `axis`), the index of
    each one's first occurrence, each element's position among them, and their counts.

    Args:
        x: a tensor.
        axis: None: the flattened `x`; else the axis whose slices are compared.

    Returns:
        (values, first_index, inverse, counts); the last three int32, inverse 1-D.

    Example:
        >>> import kerasish as ks
        >>> [t.numpy().tolist() for t in ks.ops.unique([3, 1, 3, 2], return_counts=True)]
        [[1, 2, 3], [1, 1, 2]]
    """
    return apply(_unique, (convert_to_tensor(x),), {"axis": axis})


@symbolic_fallback
def unique(x, sorted: bool = True, return_index: bool = False,  # noqa: A002 - Keras's names
           return_inverse: bool = False, return_counts: bool = False, axis=None, size=None,
           fill_value=None):
    """The distinct values of `x`, NumPy's and Keras's way (`unique_with_counts`, reordered
    and padded as asked; eager only: the result's length depends on the values).

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
    values, index, inverse, counts = unique_with_counts(x, axis)
    if not sorted:
        order = argsort(index)
        values, index, counts = (gather(values, order, axis=0 if axis is None else axis),
                                 gather(index, order), gather(counts, order))
        inverse = gather(argsort(order), inverse)
    if size is not None:
        if axis is not None:
            raise InvalidArgumentError(f"unique: size is taken only with axis None, got {axis}")
        missing = builtins.max(int(size) - values.shape[0], 0)
        fill = reduction_ops.reduce_min(values) if fill_value is None else fill_value
        values = concat([values[:size], creation_ops.fill((missing,), fill, values.dtype)], 0)
        index, counts = (concat([t[:size], creation_ops.zeros((missing,), np.int32)], 0)
                         for t in (index, counts))
    asked = [t for t, wanted in ((index, return_index), (inverse, return_inverse),
                                 (counts, return_counts)) if wanted]
    return (values, *asked) if asked else values
