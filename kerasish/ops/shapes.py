"""`ks.ops` shape and layout ops (NumPy spellings): `transpose`, `concatenate`, `split`, `take`,
`tril`, `slice_update`, `scatter`, segments, ..."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import indexing_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.ops.creation_ops import zeros_like
from kerasish.core.ops.math_ops import multiply, where
from kerasish.core.ops.shape_ops import reshape
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.creation import convert_to_numpy

__all__ = [
    "concatenate",
    "diag",
    "diagonal",
    "flip",
    "moveaxis",
    "pad",
    "repeat",
    "roll",
    "scatter",
    "scatter_update",
    "segment_max",
    "segment_sum",
    "slice",
    "slice_update",
    "split",
    "stack",
    "swapaxes",
    "take",
    "tile",
    "trace",
    "transpose",
    "tril",
    "triu",
]


def transpose(x, axes=None) -> Tensor:
    """Permute the axes (reversed when `axes` is None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axes: result axis i is input axis axes[i]; None: reversed.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: `axes` is not a permutation of the axes.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.transpose(ops.zeros((2, 3, 4)), axes=(1, 0, 2)))
        (3, 2, 4)
    """
    return shape_ops.transpose(x, axes)


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis1: one axis.
        axis2: the other.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.swapaxes(ops.zeros((2, 3, 4)), 0, 2))
        (4, 3, 2)
    """
    x = convert_to_tensor(x)
    axes = list(range(x.ndim))
    first, second = (reduction_ops.normalize_axis(a, x.ndim, "swapaxes")[0] for a in (axis1, axis2))
    axes[first], axes[second] = second, first
    return shape_ops.transpose(x, axes)


def moveaxis(x, source, destination) -> Tensor:
    """`x` with the axes `source` (an int or a sequence) moved to `destination`, the others
    keeping their order.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        source: the axis or axes to move.
        destination: their positions in the result, as many.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: `source` and `destination` differ in length, or an axis is out
            of range.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.moveaxis(ops.zeros((2, 3, 4)), 0, -1))
        (3, 4, 2)
    """
    x = convert_to_tensor(x)
    sources, destinations = (
        [reduction_ops.normalize_axis(a, x.ndim, "moveaxis")[0]
         for a in ([axes] if isinstance(axes, (int, np.integer)) else axes)]
        for axes in (source, destination)
    )
    if len(sources) != len(destinations):
        raise InvalidArgumentError(
            f"moveaxis: source {source} and destination {destination} need as many axes"
        )
    order = [a for a in range(x.ndim) if a not in sources]
    for destination_axis, source_axis in sorted(zip(destinations, sources)):
        order.insert(destination_axis, source_axis)
    return shape_ops.transpose(x, order)


def concatenate(xs, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis.

    Args:
        xs: a non-empty sequence of tensors of one rank.
        axis: the axis to join along.

    Returns:
        The joined tensor.

    Raises:
        InvalidArgumentError: `xs` is empty or the ranks differ.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.concatenate([[1, 2], [3]])).tolist()
        [1, 2, 3]
    """
    return shape_ops.concat(list(xs), axis)


def stack(x, axis: int = 0) -> Tensor:
    """Join tensors along a new axis.

    Args:
        x: a non-empty sequence of tensors of one shape.
        axis: where the new axis goes.

    Returns:
        A tensor of rank one higher.

    Raises:
        InvalidArgumentError: `x` is empty, or two shapes differ.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.stack([[1, 2], [3, 4]], axis=1)).tolist()
        [[1, 3], [2, 4]]
    """
    return shape_ops.stack(list(x), axis)


def split(x, indices_or_sections, axis: int = 0) -> list:
    """NumPy's split: `n` equal parts, or cut before each of the given indices.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        indices_or_sections: a number of equal parts, or the indices to cut before.
        axis: the axis to split along.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: the axis does not divide into that many equal parts.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.split([1, 2, 3, 4, 5], [2, 3])]
        [[1, 2], [3], [4, 5]]
    """
    if isinstance(indices_or_sections, (int, np.integer)):
        return shape_ops.split(x, int(indices_or_sections), axis)
    length = convert_to_tensor(x).shape[axis]
    cuts = [0] + [int(i) for i in indices_or_sections] + [length]
    return shape_ops.split(x, [b - a for a, b in zip(cuts, cuts[1:])], axis)


def tile(x, repeats) -> Tensor:
    """Repeat `x` `repeats[i]` times along axis i.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        repeats: one repeat count per axis.

    Returns:
        The tiled tensor.

    Raises:
        InvalidArgumentError: `repeats` does not have one entry per axis.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tile([1, 2], [2])).tolist()
        [1, 2, 1, 2]
    """
    return shape_ops.tile(x, repeats)


def pad(x, pad_width, mode: str = "constant", constant_values=None) -> Tensor:
    """Pad with `pad_width` = [(before, after), ...] per axis ('constant', 'reflect',
    'symmetric').

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        pad_width: one (before, after) pair per axis.
        mode: 'constant', 'reflect' or 'symmetric'.
        constant_values: the fill of constant mode; None: 0.

    Returns:
        The padded tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.pad([1, 2, 3], [(2, 0)], mode="reflect")).tolist()
        [3, 2, 1, 2, 3]
    """
    return shape_ops.pad(x, pad_width, mode.upper(), constant_values or 0)


def take(x, indices, axis=None) -> Tensor:
    """Elements of `x` at `indices` along `axis` (of the flattened `x` when axis is None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        indices: integer positions along `axis`.
        axis: the axis to index; None: the flattened `x`.

    Returns:
        The gathered tensor.

    Raises:
        InvalidArgumentError: an index is out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.take([[1, 2], [3, 4]], [3, 0])).tolist()
        [4, 1]
    """
    if axis is None:
        return indexing_ops.gather(reshape(x, [-1]), indices)
    return indexing_ops.gather(x, indices, axis=axis)


def segment_sum(data, segment_ids, num_segments=None) -> Tensor:
    """Sums of the rows of `data` sharing a segment id.

    Args:
        data: a tensor of rows.
        segment_ids: one integer segment id per row.
        num_segments: the number of segments; None: the largest id + 1.

    Returns:
        A tensor with one summed row per segment.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_sum([1, 2, 3], [0, 0, 2])).tolist()
        [3, 0, 3]
    """
    if num_segments is None:
        num_segments = int(convert_to_numpy(segment_ids).max()) + 1
    return indexing_ops.unsorted_segment_sum(data, segment_ids, num_segments)


def repeat(x, repeats, axis=None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        repeats: a count, or one count per element along `axis`.
        axis: the axis; None: the flattened `x`.

    Returns:
        The repeated tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.repeat([[1, 2]], [1, 3], axis=1)).tolist()
        [[1, 2, 2, 2]]
    """
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    index = np.repeat(np.arange(x.shape[axis]), repeats)
    return indexing_ops.gather(x, index, axis=axis)


def flip(x, axis=None) -> Tensor:
    """`x` with the order of its elements reversed along `axis` (an int, a tuple, or all).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis, a tuple of axes, or None for all.

    Returns:
        The flipped tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.flip([[1, 2], [3, 4]], axis=1)).tolist()
        [[2, 1], [4, 3]]
    """
    x = convert_to_tensor(x)
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    for a in axes:
        x = indexing_ops.gather(x, np.arange(x.shape[a] - 1, -1, -1), axis=a)
    return x


def tril(x, k: int = 0) -> Tensor:
    """`x` with the elements above the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tril(ops.ones((2, 2)))).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return _band(x, k, lower=True)


def triu(x, k: int = 0) -> Tensor:
    """`x` with the elements below the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.triu(ops.ones((2, 2)), k=1)).tolist()
        [[0.0, 1.0], [0.0, 0.0]]
    """
    return _band(x, k, lower=False)


def _band(x, k, lower):
    x = convert_to_tensor(x)
    rows, cols = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return where(keep, x, zeros_like(x))




def roll(x, shift, axis=None) -> Tensor:
    """`x` shifted by `shift` places along `axis`, the end wrapping around to the front.

    Args:
        x: a tensor.
        shift: an int, or one per axis.
        axis: an int, a sequence, or None: the flattened `x` (reshaped back).

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.roll([1, 2, 3, 4], 1)).tolist()
        [4, 1, 2, 3]
    """
    x = convert_to_tensor(x)
    if axis is None:
        return reshape(roll(reshape(x, [-1]), shift, 0), x.shape)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    for step, a in zip(shifts.reshape(-1).tolist(), axes.reshape(-1).tolist()):
        a = reduction_ops.normalize_axis(a, x.ndim, "roll")[0]
        n = x.shape[a]
        if n is None:  # a symbolic tensor's unknown axis: one node rolls it when it runs
            raise InvalidArgumentError(f"roll: axis {a} of shape {x.shape} has no known size")
        if n and step % n:
            x = indexing_ops.gather(x, (np.arange(n) - step) % n, axis=a)
    return x


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal `offset` above the main one (below for negative) of the matrices in the
    axes `axis1` and `axis2`; it becomes the last axis, as in NumPy.

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The diagonals: the other axes, then the diagonal's.

    Raises:
        InvalidArgumentError: the two axes are the same or out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diagonal([[1, 2], [3, 4]], offset=1)).tolist()
        [2]
    """
    x = convert_to_tensor(x)
    rows_axis, cols_axis = (reduction_ops.normalize_axis(a, x.ndim, "diagonal")[0]
                            for a in (axis1, axis2))
    if rows_axis == cols_axis:
        raise InvalidArgumentError(
            f"diagonal: axis1 and axis2 are the same axis ({axis1}, {axis2}) of shape {x.shape}")
    rest = [a for a in range(x.ndim) if a not in (rows_axis, cols_axis)]
    x = shape_ops.transpose(x, rest + [rows_axis, cols_axis])
    first_row, first_col = builtins.max(0, -offset), builtins.max(0, offset)
    n = builtins.max(0, builtins.min(x.shape[-2] - first_row, x.shape[-1] - first_col))
    return indexing_ops.getitem(x, (Ellipsis, np.arange(n) + first_row, np.arange(n) + first_col))


def diag(x, k: int = 0) -> Tensor:
    """The k-th diagonal of a matrix, or the square matrix with a vector on its k-th diagonal.

    Args:
        x: a 1-D or 2-D tensor.
        k: which diagonal (above the main one for k > 0).

    Returns:
        A 1-D tensor for a matrix; a (n + |k|, n + |k|) matrix for a vector of length n.

    Raises:
        InvalidArgumentError: `x` has another rank.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diag([1, 2], k=1)).tolist()
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    x = convert_to_tensor(x)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise InvalidArgumentError(f"diag: needs a 1-D or 2-D tensor, got shape {x.shape}")
    n = x.shape[0] + builtins.abs(k)
    padded = shape_ops.pad(x, [[0, builtins.abs(k)]])
    line = reshape(padded, (-1, 1) if k >= 0 else (1, -1))
    return multiply(line, np.eye(n, k=k, dtype=x.dtype))


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The sum of a diagonal (see `diagonal`) of the matrices in `axis1` and `axis2`.

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The sums, with the two axes removed.

    Example:
        >>> from kerasish import ops
        >>> int(ops.trace([[1, 2], [3, 4]]))
        5
    """
    return reduction_ops.reduce_sum(diagonal(x, offset, axis1, axis2), -1)


def _box(op_name: str, x: Tensor, start_indices, sizes) -> tuple:
    """The slices of the box at `start_indices` of `sizes`, checked to lie inside `x`."""
    starts = [int(s) for s in start_indices]
    sizes = [int(s) for s in sizes]
    fits = len(starts) == len(sizes) == x.ndim and builtins.all(
        0 <= s and 0 <= n and s + n <= dim for s, n, dim in zip(starts, sizes, x.shape))
    if not fits:
        raise InvalidArgumentError(
            f"{op_name}: a box at {starts} of shape {tuple(sizes)} does not fit inside inputs of "
            f"shape {x.shape}"
        )
    return tuple(builtins.slice(s, s + n) for s, n in zip(starts, sizes))


def slice(inputs, start_indices, shape) -> Tensor:  # noqa: A001 - Keras's name
    """The box of `shape` starting at `start_indices`.

    Args:
        inputs: a tensor.
        start_indices: one start per axis.
        shape: one size per axis.

    Returns:
        A tensor of `shape`.

    Raises:
        InvalidArgumentError: the box does not fit inside `inputs`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.slice([[1, 2, 3], [4, 5, 6]], (0, 1), (2, 2))).tolist()
        [[2, 3], [5, 6]]
    """
    x = convert_to_tensor(inputs)
    return indexing_ops.getitem(x, _box("slice", x, start_indices, shape))


def slice_update(inputs, start_indices, updates) -> Tensor:
    """`inputs` with the box at `start_indices` replaced by `updates` (differentiable in both).

    Args:
        inputs: a tensor.
        start_indices: one start per axis.
        updates: the new values of the box (cast to `inputs`' dtype).

    Returns:
        A tensor of `inputs`' shape.

    Raises:
        InvalidArgumentError: the box does not fit inside `inputs`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.slice_update([0, 0, 0, 0], (1,), [7, 8])).tolist()
        [0, 7, 8, 0]
    """
    x = convert_to_tensor(inputs)
    values = math_ops.cast(convert_to_tensor(updates), x.dtype)
    key = _box("slice_update", x, start_indices, values.shape)
    inside = np.zeros(x.shape, dtype=bool)
    inside[key] = True
    return where(inside, indexing_ops.scatter_into(values, key, x.shape), x)


def _scatter_key(op_name: str, indices, shape: tuple, values: Tensor):
    """(indices as one row per update, the NumPy key they make, values one row per update),
    checked against `shape`."""
    ids = convert_to_tensor(indices)
    host = convert_to_numpy(ids)
    depth = host.shape[-1] if host.ndim else 0
    expected = host.shape[:-1] + tuple(shape[depth:])
    if host.ndim == 0 or host.dtype.kind not in "iu" or not 1 <= depth <= len(shape) or (
            values.shape != expected):
        raise InvalidArgumentError(
            f"{op_name}: integer indices of shape {host.shape} (one row of up to {len(shape)} "
            f"coordinates per update) and updates of shape {values.shape} do not fit a tensor "
            f"of shape {tuple(shape)} (the updates' shape would be {expected})"
        )
    rows = host.reshape(-1, depth)
    bad = np.argwhere((rows < 0) | (rows >= np.asarray(shape[:depth])))
    if bad.size:
        row, column = bad[0]
        raise InvalidArgumentError(
            f"{op_name}: indices row {row} = {rows[row].tolist()} is outside the shape "
            f"{tuple(shape)} (coordinate {column})"
        )
    flat_ids = reshape(ids, (-1, depth))._value
    key = tuple(flat_ids[:, d] for d in range(depth))
    return rows, key, reshape(values, (-1,) + tuple(shape[depth:]))


def scatter(indices, values, shape) -> Tensor:
    """A zero tensor of `shape` with `values` added at `indices` (repeated ones accumulate,
    as tf.scatter_nd).

    Args:
        indices: integers of shape (..., d): each row the first d coordinates of one update.
        values: (..., *shape[d:]) updates.
        shape: the result's shape.

    Returns:
        A tensor of `shape` and `values`' dtype; differentiable with respect to `values`.

    Raises:
        InvalidArgumentError: the shapes do not fit, or an index is outside `shape`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.scatter([[0, 1], [0, 1], [1, 0]], [1.0, 2.0, 3.0], (2, 2)))
        array([[0., 3.],
               [3., 0.]], dtype=float32)
    """
    values = convert_to_tensor(values)
    shape = tuple(int(s) for s in shape)
    _, key, rows = _scatter_key("scatter", indices, shape, values)
    return indexing_ops.scatter_into(rows, key, shape)


def scatter_update(inputs, indices, updates, reduction=None) -> Tensor:
    """`inputs` with the entries (or slices) at `indices` replaced by `updates` (the last one
    wins among repeated indices), or with them added (`reduction='add'`).

    Args:
        inputs: a tensor.
        indices: integers of shape (..., d): each row the first d coordinates of one update.
        updates: (..., *inputs.shape[d:]) values (cast to `inputs`' dtype).
        reduction: None (replace) or 'add'.

    Returns:
        A tensor of `inputs`' shape; differentiable in `inputs` and `updates`.

    Raises:
        InvalidArgumentError: the shapes do not fit, an index is out of range, or another
            reduction.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.scatter_update([0, 0, 0], [[2], [0], [2]], [5, 6, 7]))
        array([6, 0, 7], dtype=int32)
    """
    x = convert_to_tensor(inputs)
    values = math_ops.cast(convert_to_tensor(updates), x.dtype)
    if reduction not in (None, "add"):
        raise InvalidArgumentError(
            f"scatter_update: reduction must be None or 'add', got {reduction!r}")
    rows, key, values = _scatter_key("scatter_update", indices, x.shape, values)
    if reduction == "add":
        return x + indexing_ops.scatter_into(values, key, x.shape)
    flat = np.ravel_multi_index(rows.T, x.shape[:rows.shape[1]])
    _, last_from_end = np.unique(flat[::-1], return_index=True)
    if len(last_from_end) < len(flat):  # repeated indices: keep each one's last update
        keep = np.sort(len(flat) - 1 - last_from_end)
        values = indexing_ops.gather(values, keep)
        key = tuple(indexing_ops.gather(Tensor(k), keep)._value for k in key)
    inside = np.zeros(x.shape, dtype=bool)
    inside[tuple(rows[:, d] for d in range(rows.shape[1]))] = True
    return where(inside, indexing_ops.scatter_into(values, key, x.shape), x)


def segment_max(data, segment_ids, num_segments=None, sorted: bool = False) -> Tensor:  # noqa: A002
    """The maximum of the rows of `data` in each segment; an empty one holds the dtype's
    lowest value.

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer ids in [0, num_segments).
        num_segments: the number of segments; None: max(segment_ids) + 1.
        sorted: Keras's hint that the ids are sorted; not needed here.

    Returns:
        (num_segments, ...); the gradient goes to each segment's maximum (shared among ties).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_max([1.0, 5.0, 2.0], [0, 0, 1])).tolist()
        [5.0, 2.0]
    """
    if num_segments is None:
        num_segments = int(convert_to_numpy(segment_ids).max()) + 1
    return indexing_ops.unsorted_segment_max(data, segment_ids, num_segments)
