"""`ks.ops` sorting and its statistics under Keras's signatures: `sort`, `argsort`, `top_k`
(adapters: argument names), `quantile`, `median` (Keras's float32 for integers). The core
ops `take_along_axis`, `in_top_k`, `unique`, `searchsorted`, ... are shown as they are."""

from __future__ import annotations

from kerasish.core.ops import sorting_ops, statistics_ops
from kerasish.core.tensor import Tensor
from kerasish.ops.keras_dtypes import on_floats

__all__ = [
    "argsort",
    "median",
    "quantile",
    "sort",
    "top_k",
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


quantile, median = map(on_floats, (statistics_ops.quantile, statistics_ops.median))
