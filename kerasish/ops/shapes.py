"""`ks.ops` shape and layout ops under Keras's signatures: `transpose`, `concatenate`, `split`,
`take`, `trace`, segments, ... (adapters of the core ops: argument names and NumPy's
defaults; `moveaxis`, `roll`, `tril`, `slice_update`, `scatter`, ... are core ops shown as
they are)."""

from __future__ import annotations

import numpy as np

from kerasish.core.ops import indexing_ops, linalg_ops, shape_ops
from kerasish.core.ops.shape_ops import reshape
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.creation import convert_to_numpy

__all__ = [
    "concatenate",
    "pad",
    "segment_max",
    "segment_sum",
    "split",
    "stack",
    "take",
    "tile",
    "trace",
    "transpose",
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


def segment_sum(data, segment_ids, num_segments=None, sorted: bool = False) -> Tensor:  # noqa: A002
    """Sums of the rows of `data` sharing a segment id.

    Args:
        data: a tensor of rows.
        segment_ids: one integer segment id per row.
        num_segments: the number of segments; None: the largest id + 1.
        sorted: Keras's hint that the ids are sorted; not needed here.

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


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The sum of a diagonal (see `diagonal`) of the matrices in `axis1` and `axis2`: the core
    `trace` with NumPy's default axes (the first two).

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
    return linalg_ops.trace(x, offset, axis1, axis2)


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
