"""Regression metrics: streaming (weighted) mean squared / absolute error and its root.

The errors are averaged elementwise with the one weighted reduction of
`Mean`; for per-example weights that equals the weighted mean of the
per-example means over the last axis (what Keras reports).
"""

from __future__ import annotations

from kerasish.core.ops import math_ops
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import as_float, as_pair, divide_no_nan, match_shapes
from kerasish.metrics.reduction import MeanMetricWrapper


def _difference(y_true, y_pred, what: str) -> Tensor:
    y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), what)
    y_pred = as_float(y_pred)
    return y_pred - math_ops.cast(y_true, y_pred.dtype)


def squared_error(y_true, y_pred) -> Tensor:
    """(y_pred - y_true)**2 elementwise; shapes must match (a trailing 1 may be squeezed)."""
    return math_ops.square(_difference(y_true, y_pred, "squared_error"))


def absolute_error(y_true, y_pred) -> Tensor:
    """|y_pred - y_true| elementwise; shapes must match (a trailing 1 may be squeezed)."""
    return math_ops.abs(_difference(y_true, y_pred, "absolute_error"))


class MeanSquaredError(MeanMetricWrapper):
    """The streaming (weighted) mean of (y_pred - y_true)**2.

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.MeanSquaredError()([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        0.25
    """

    _default_name = "mean_squared_error"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The streaming (weighted) mean of |y_pred - y_true|.

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.MeanAbsoluteError()([[0, 1], [0, 0]], [[1, 1], [0, 2]]))
        0.75
    """

    _default_name = "mean_absolute_error"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(absolute_error, name=name, dtype=dtype)


class RootMeanSquaredError(MeanMetricWrapper):
    """sqrt of the streaming (weighted) mean of (y_pred - y_true)**2 (not a mean of roots).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.RootMeanSquaredError()([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        0.5
    """

    _default_name = "root_mean_squared_error"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(squared_error, name=name, dtype=dtype)

    def result(self) -> Tensor:
        return math_ops.sqrt(divide_no_nan(self.total, self.count))
