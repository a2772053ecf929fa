"""Correlation metrics: the streaming (weighted) mean of per-example Pearson and concordance
correlation coefficients, each computed along `axis` (Keras 3's definitions)."""

from __future__ import annotations

from kerasish.core import settings
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import as_float, as_pair, match_shapes
from kerasish.metrics.reduction import MeanMetricWrapper


def _centred(y_true, y_pred, axis: int, what: str) -> tuple:
    y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), what)
    y_pred = as_float(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return (
        y_true - reduction_ops.reduce_mean(y_true, axis, keepdims=True),
        y_pred - reduction_ops.reduce_mean(y_pred, axis, keepdims=True),
        y_true,
        y_pred,
    )


def pearson_correlation(y_true, y_pred, axis: int = -1) -> Tensor:
    """Pearson's r between y_true and y_pred along `axis`: ``cov(t, p) / (std(t) * std(p))``.

    A constant row has no correlation: it gives NaN, as in Keras.

    Args:
        y_true: the targets.
        y_pred: the predictions, of y_true's shape (a trailing 1 on one side is squeezed).
        axis: the axis the coefficient is computed along.

    Returns:
        The coefficients, the shape without `axis`.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.pearson_correlation([[1., 2., 3.]], [[2., 4., 7.]])[0]), 4)
        0.9934
    """
    t, p, _, _ = _centred(y_true, y_pred, axis, "pearson_correlation")
    covariance = reduction_ops.reduce_mean(t * p, axis)
    return covariance / (reduction_ops.reduce_std(t, axis) * reduction_ops.reduce_std(p, axis))


def concordance_correlation(y_true, y_pred, axis: int = -1) -> Tensor:
    """Lin's concordance correlation along `axis`.

    ``2 cov(t, p) / (var(t) + var(p) + (mean(t) - mean(p))**2 + epsilon)``: Pearson's r
    scaled down when the predictions are shifted or scaled away from the targets.

    Args:
        y_true: the targets.
        y_pred: the predictions, of y_true's shape (a trailing 1 on one side is squeezed).
        axis: the axis the coefficient is computed along.

    Returns:
        The coefficients, the shape without `axis`.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.concordance_correlation([[1., 2., 3.]], [[1., 2., 3.]])[0]), 4)
        1.0
    """
    t, p, y_true, y_pred = _centred(y_true, y_pred, axis, "concordance_correlation")
    covariance = reduction_ops.reduce_mean(t * p, axis)
    shift = reduction_ops.reduce_mean(y_true, axis) - reduction_ops.reduce_mean(y_pred, axis)
    norm = (
        reduction_ops.reduce_mean(math_ops.square(t), axis)
        + reduction_ops.reduce_mean(math_ops.square(p), axis)
        + math_ops.square(shift)
    )
    return 2.0 * covariance / (norm + settings.epsilon())


class PearsonCorrelation(MeanMetricWrapper):
    """The streaming (weighted) mean of per-example `pearson_correlation` along `axis`.

    Args:
        name: the metric's name in logs (default 'pearson_correlation').
        dtype: the dtype of the state and the result (default float32).
        axis: the axis the coefficient is computed along.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.PearsonCorrelation()
        >>> round(float(m([[1., 2., 3.], [1., 2., 3.]], [[1., 2., 3.], [3., 2., 1.]])), 4)
        0.0
    """

    _default_name = "pearson_correlation"

    def __init__(self, name: str | None = None, dtype=None, axis: int = -1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=int(axis))


class ConcordanceCorrelation(MeanMetricWrapper):
    """The streaming (weighted) mean of per-example `concordance_correlation` along `axis`.

    Args:
        name: the metric's name in logs (default 'concordance_correlation').
        dtype: the dtype of the state and the result (default float32).
        axis: the axis the coefficient is computed along.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.ConcordanceCorrelation()
        >>> round(float(m([[1., 2., 3.]], [[2., 3., 4.]])), 4)  # shifted by 1: 4/3 / (4/3 + 1)
        0.5714
    """

    _default_name = "concordance_correlation"

    def __init__(self, name: str | None = None, dtype=None, axis: int = -1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=int(axis))
