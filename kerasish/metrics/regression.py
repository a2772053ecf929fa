"""Regression metrics: streaming (weighted) means of per-example errors, and R2Score.

The errors are averaged elementwise with the one weighted reduction of
`Mean`; for per-example weights that equals the weighted mean of the
per-example means over the last axis (what Keras reports).
"""

from __future__ import annotations

import warnings

from kerasish import losses
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, reduction_ops
from kerasish.core.ops.math_ops import divide_no_nan
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import (
    Metric,
    align_sample_weight,
    as_float,
    as_pair,
    match_shapes,
)
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

    Args:
        name: the metric's name in logs (default 'mean_squared_error').
        dtype: the dtype of the state and the result (default float32).

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

    Args:
        name: the metric's name in logs (default 'mean_absolute_error').
        dtype: the dtype of the state and the result (default float32).

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

    Args:
        name: the metric's name in logs (default 'root_mean_squared_error').
        dtype: the dtype of the state and the result (default float32).

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


def cosine_similarity(y_true, y_pred, axis: int = -1) -> Tensor:
    """sum(unit(y_true) * unit(y_pred)) along `axis`: 1 for parallel vectors, -1 for opposite.

    The metric's sign is the opposite of the loss `ks.losses.cosine_similarity`.

    Args:
        y_true: vectors along `axis`.
        y_pred: vectors along `axis`, y_true's shape.
        axis: the axis holding the vectors.

    Returns:
        One similarity per vector, y_pred's shape without `axis`.

    Example:
        >>> import kerasish as ks
        >>> similarity = ks.metrics.cosine_similarity([[0., 1.], [1., 1.]], [[1., 0.], [2., 2.]])
        >>> similarity.numpy().round(4)
        array([0., 1.], dtype=float32)
    """
    return math_ops.negative(losses.cosine_similarity(y_true, y_pred, axis))


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.mean_absolute_percentage_error`.

    Args:
        name: the metric's name in logs (default 'mean_absolute_percentage_error').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.MeanAbsolutePercentageError()([[2., 4.]], [[1., 5.]]))
        37.5
    """

    _default_name = "mean_absolute_percentage_error"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.mean_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.mean_squared_logarithmic_error`.

    Args:
        name: the metric's name in logs (default 'mean_squared_logarithmic_error').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.MeanSquaredLogarithmicError()([[0.]], [[1.]])), 4)
        0.4805
    """

    _default_name = "mean_squared_logarithmic_error"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.mean_squared_logarithmic_error, name=name, dtype=dtype)


class CosineSimilarity(MeanMetricWrapper):
    """The streaming (weighted) mean of `cosine_similarity` along `axis` (1 is best).

    Args:
        name: the metric's name in logs (default 'cosine_similarity').
        dtype: the dtype of the state and the result (default float32).
        axis: the axis holding the vectors.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.CosineSimilarity()
        >>> round(float(m([[0., 1.], [1., 1.]], [[1., 0.], [2., 2.]])), 4)
        0.5
    """

    _default_name = "cosine_similarity"

    def __init__(self, name: str | None = None, dtype=None, axis: int = -1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=int(axis))


class LogCoshError(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.log_cosh` (Keras's default name 'logcosh').

    Args:
        name: the metric's name in logs (default 'logcosh').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.LogCoshError()([[0.], [0.]], [[1.], [-1.]])), 4)
        0.4338
    """

    _default_name = "logcosh"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.log_cosh, name=name, dtype=dtype)


_R2_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination 1 - SS_res / SS_tot, per output column, streamed.

    Inputs are (batch, outputs). Per column the state holds the weighted sums
    of y, y**2 and the squared residuals and the total weight, so the score of
    many batches equals the score of their concatenation. A column whose
    targets are all equal has SS_tot = 0: its score is 0 (Keras's rule).

    Args:
        class_aggregation: 'uniform_average' (default: the mean over columns),
            'variance_weighted_average' (weighted by each column's SS_tot), or
            None (one score per column).
        num_regressors: p > 0 gives the adjusted score
            ``1 - (1 - R2) (n - 1) / (n - p - 1)``, n the number of values seen
            (it falls back to plain R2, with a warning, when n - p - 1 <= 0).
        name, dtype: as for every metric (default name 'r2_score').

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.R2Score()([[1.], [2.], [3.]], [[1.], [2.], [4.]]))
        0.5
    """

    _default_name = "r2_score"

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str | None = None,
        dtype=None,
    ):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _R2_AGGREGATIONS:
            raise InvalidArgumentError(
                f"{self._describe()}: class_aggregation must be one of {_R2_AGGREGATIONS}, "
                f"got {class_aggregation!r}"
            )
        if int(num_regressors) < 0:
            raise InvalidArgumentError(
                f"{self._describe()}: num_regressors must be >= 0, got {num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.num_samples = self.add_weight("num_samples")
        self.squared_sum = self.sum = self.total_mse = self.count = None

    def _build(self, outputs: int) -> None:
        self.squared_sum = self.add_weight("squared_sum", (outputs,))
        self.sum = self.add_weight("sum", (outputs,))
        self.total_mse = self.add_weight("residual", (outputs,))
        self.count = self.add_weight("count", (outputs,))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        what = self._describe()
        y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), what)
        if y_pred.ndim == 1:
            y_true, y_pred = y_true[:, None], y_pred[:, None]
        if y_pred.ndim != 2:
            raise InvalidArgumentError(
                f"{what}: expects inputs of shape (batch, outputs), got {y_pred.shape}"
            )
        if self.sum is None:
            self._build(y_pred.shape[1])
        elif self.sum.shape[0] != y_pred.shape[1]:
            raise InvalidArgumentError(
                f"{what}: was built for {self.sum.shape[0]} outputs, got inputs of shape "
                f"{y_pred.shape}"
            )
        y_pred = math_ops.cast(as_float(y_pred), self._dtype)
        y_true = math_ops.cast(y_true, self._dtype)
        self._follow_device(y_pred._value)
        weight = creation_ops.ones_like(y_true)
        if sample_weight is not None:
            weight = weight * align_sample_weight(sample_weight, y_true, what)
        weighted = y_true * weight
        self.sum.assign_add(reduction_ops.reduce_sum(weighted, 0))
        self.squared_sum.assign_add(reduction_ops.reduce_sum(y_true * weighted, 0))
        squared_errors = math_ops.square(y_true - y_pred) * weight
        self.total_mse.assign_add(reduction_ops.reduce_sum(squared_errors, 0))
        self.count.assign_add(reduction_ops.reduce_sum(weight, 0))
        self.num_samples.assign_add(float(y_true.size))

    def result(self) -> Tensor:
        if self.sum is None:
            return creation_ops.zeros((), self._dtype)
        mean = divide_no_nan(self.sum, self.count)
        total = self.squared_sum - self.sum * mean
        raw = 1.0 - divide_no_nan(self.total_mse, total)
        raw = math_ops.where(math_ops.equal(total, 0.0), creation_ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = reduction_ops.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = divide_no_nan(reduction_ops.reduce_sum(total * raw),
                                  reduction_ops.reduce_sum(total))
        else:
            score = raw
        if self.num_regressors:
            n, p = float(self.num_samples.numpy()), float(self.num_regressors)
            if n - p - 1 <= 0:
                warnings.warn(
                    f"{self._describe()}: adjusted R2 needs more values ({n:g}) than "
                    f"num_regressors + 1 ({p + 1:g}); returning the plain R2 score",
                    stacklevel=2,
                )
            else:
                score = 1.0 - (1.0 - score) * ((n - 1.0) / (n - p - 1.0))
        return score

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }
