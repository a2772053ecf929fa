"""`ks.ops` reductions (NumPy spellings): `sum`, `mean`, `max`, `var`, `norm`, `cumsum`, ..."""

from __future__ import annotations

import numpy as np

from kerasish.core.ops import (
    cumulative_ops,
    math_ops,
    nn_ops,
    numpy_ops,
    reduction_ops,
    shape_ops,
    statistics_ops,
)
from kerasish.core.ops.shape_ops import reshape
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.keras_dtypes import floating, on_floats

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "average",
    "cumprod",
    "cumsum",
    "logsumexp",
    "max",
    "mean",
    "min",
    "norm",
    "nanmean",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "nanstd",
    "nanvar",
    "percentile",
    "prod",
    "corrcoef",
    "trapezoid",
    "std",
    "sum",
    "var",
]


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.sum([[1, 2], [3, 4]], axis=0)).tolist()
        [4, 6]
    """
    return reduction_ops.reduce_sum(x, axis, keepdims)


def mean(x, axis=None, keepdims: bool = False) -> Tensor:
    """Mean over `axis` (all axes when None); integers give float32, as in Keras.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.mean([[1, 2], [3, 4]])
        <ks.Tensor: shape=(), dtype=float32, numpy=2.5>
    """
    return reduction_ops.reduce_mean(floating(x), axis, keepdims)


def max(x, axis=None, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """Maximum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.
        initial: a value the maximum also takes in; None: none.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: `x` is empty.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.max([[1, 2], [3, 4]], axis=1, initial=3)).tolist()
        [3, 4]
    """
    result = reduction_ops.reduce_max(x, axis, keepdims)
    return result if initial is None else math_ops.maximum(result, initial)


def min(x, axis=None, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """Minimum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.
        initial: a value the minimum also takes in; None: none.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: `x` is empty.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.min([[1, 2], [3, 4]], axis=0)).tolist()
        [1, 2]
    """
    result = reduction_ops.reduce_min(x, axis, keepdims)
    return result if initial is None else math_ops.minimum(result, initial)


def prod(x, axis=None, keepdims: bool = False, dtype=None) -> Tensor:
    """Product over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.
        dtype: the dtype to multiply in; None: `x`'s.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.prod([[1, 2], [3, 4]], axis=1)).tolist()
        [2, 12]
    """
    return cumulative_ops.reduce_prod(_as(x, dtype), axis, keepdims)


def _as(x, dtype) -> Tensor:
    return convert_to_tensor(x) if dtype is None else math_ops.cast(x, dtype)


def var(x, axis=None, keepdims: bool = False) -> Tensor:
    """Variance over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The population variance (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.var([1, 3])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return reduction_ops.reduce_variance(floating(x), axis, keepdims)


def std(x, axis=None, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The population standard deviation (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.std([1, 3])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return reduction_ops.reduce_std(floating(x), axis, keepdims)


def logsumexp(x, axis=None, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.logsumexp([0.0, 0.0])
        <ks.Tensor: shape=(), dtype=float32, numpy=0.6931472>
    """
    return nn_ops.reduce_logsumexp(floating(x), axis, keepdims)


def all(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element over `axis` is true.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        A bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.all([[True, False], [True, True]], axis=1)).tolist()
        [False, True]
    """
    return reduction_ops.reduce_all(x, axis, keepdims)


def any(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element over `axis` is true.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        A bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.any([[True, False], [False, False]], axis=1)).tolist()
        [True, False]
    """
    return reduction_ops.reduce_any(x, axis, keepdims)


def argmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the largest value along `axis` (of the flattened `x` when None), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices (the first one on ties).

    Example:
        >>> from kerasish import ops
        >>> ops.argmax([[1, 5], [7, 2]])
        <ks.Tensor: shape=(), dtype=int32, numpy=2>
    """
    return _arg_reduce(reduction_ops.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the smallest value along `axis` (of the flattened `x` when None), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices (the first one on ties).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.argmin([[1, 5], [7, 2]], axis=1)).tolist()
        [0, 1]
    """
    return _arg_reduce(reduction_ops.argmin, x, axis, keepdims)


def _arg_reduce(op, x, axis, keepdims):
    x = convert_to_tensor(x)
    if axis is None:
        result = op(reshape(x, [-1]), axis=0, output_type=np.int32)
        return reshape(result, [1] * x.ndim) if keepdims else result
    result = op(x, axis=axis, output_type=np.int32)
    return shape_ops.expand_dims(result, axis) if keepdims else result


def cumsum(x, axis=None, dtype=None) -> Tensor:
    """Running sums along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis; None: the flattened `x`.
        dtype: the dtype to accumulate in; None: `x`'s.

    Returns:
        A tensor of the running sums.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cumsum([1, 2, 3])).tolist()
        [1, 3, 6]
    """
    x = _as(x, dtype)
    return cumulative_ops.cumsum(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def cumprod(x, axis=None, dtype=None) -> Tensor:
    """Running products along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis; None: the flattened `x`.
        dtype: the dtype to accumulate in; None: `x`'s.

    Returns:
        A tensor of the running products.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cumprod([[1, 2], [3, 4]], axis=1)).tolist()
        [[1, 2], [3, 12]]
    """
    x = _as(x, dtype)
    return cumulative_ops.cumprod(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """The 2-norm (default, also 'fro') or the 1-norm over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        ord: None, 2, 'fro' or 'euclidean' for the 2-norm; 1 for the 1-norm.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The norm (float32 for integer `x`).

    Raises:
        InvalidArgumentError: another `ord`.

    Example:
        >>> from kerasish import ops
        >>> float(ops.norm([3.0, 4.0])), float(ops.norm([3.0, -4.0], ord=1))
        (5.0, 7.0)
    """
    return reduction_ops.norm(floating(x), "euclidean" if ord is None else ord, axis, keepdims)


amax = max
amin = min
average = on_floats(statistics_ops.average)
nanmean, nanvar, nanstd, nanmedian, nanquantile, nanpercentile, percentile = map(on_floats, (
    numpy_ops.nanmean, numpy_ops.nanvar, numpy_ops.nanstd, numpy_ops.nanmedian,
    numpy_ops.nanquantile, numpy_ops.nanpercentile, numpy_ops.percentile))
corrcoef = on_floats(numpy_ops.corrcoef)


def trapezoid(y, x=None, dx=1.0, axis: int = -1) -> Tensor:
    """The integral of `y` along `axis` by the trapezoid rule (float32 for integer `y`, as
    Keras's).

    Args:
        y: the sampled values.
        x: the sample points along `axis`; None: spaced `dx` apart.
        dx: the spacing when `x` is None.
        axis: the axis to integrate along.

    Returns:
        `y` with `axis` reduced.

    Example:
        >>> from kerasish import ops
        >>> ops.trapezoid([1, 2, 3])
        <ks.Tensor: shape=(), dtype=float32, numpy=4.0>
    """
    return numpy_ops.trapezoid(floating(y), x, dx, axis)
