"""Weighted reduction, the one definition every averaging metric uses: sum(w*x) / sum(w).

`Mean` and `Sum` reduce values; `MeanMetricWrapper` turns any per-example
function `fn(y_true, y_pred)` into a streaming mean of it, which is how
accuracies and regression metrics are built (and how a plain function passed
to `compile(metrics=[...])` becomes a metric).
"""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.naming import snake_case
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.ops.math_ops import divide_no_nan
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import (
    Metric,
    align_sample_weight,
    as_pair,
    as_tensor,
)


def weighted_sum_and_count(values: Tensor, sample_weight, what: str) -> tuple:
    """(sum(w * x), sum(w)) over every element of `values`, w broadcast from `sample_weight`.

    Without weights, w is 1 everywhere: (sum(x), number of elements). A weight
    per example of shape (batch,) counts once per element of that example's
    values, so the weighted mean of elementwise values equals the weighted
    mean of their per-example means.

    Args:
        values: the values, any shape.
        sample_weight: None, or weights broadcastable to `values` (a per-example weight
            of shape (batch,) covers every value of its example).
        what: the metric's description, for error messages.

    Returns:
        The pair (weighted sum, total weight), as scalars.

    Raises:
        InvalidArgumentError: naming `what` and both shapes, if the weights do not fit.

    Example:
        >>> import kerasish as ks
        >>> total, count = ks.metrics.weighted_sum_and_count(
        ...     ks.constant([[1., 3.], [5., 7.]]), [1., 0.], "example")
        >>> float(total), float(count)
        (4.0, 2.0)
    """
    if sample_weight is None:
        return reduction_ops.reduce_sum(values), values.size
    weight = align_sample_weight(sample_weight, values, what)
    total = values * weight
    if total.ndim:  # (a scalar, such as a batch's loss, is its own sum)
        total = reduction_ops.reduce_sum(total)
    count = reduction_ops.reduce_sum(weight)
    repeats = values.size // weight.size if weight.size else 0  # elements sharing each weight
    if repeats != 1:
        count = count * repeats
    return total, count


class Mean(Metric):
    """The (weighted) mean of every value seen: sum(w * x) / sum(w).

    Args:
        name: the metric's name (default 'mean').
        dtype: dtype of the state and result (default float32).

    Example (the eager user guide's):
        >>> import kerasish as ks
        >>> m = ks.metrics.Mean("loss")
        >>> _ = m(0)
        >>> _ = m(5)
        >>> float(m.result())
        2.5
        >>> _ = m([8, 9])
        >>> float(m.result())
        5.5
        >>> m.reset_state()
        >>> float(m([1.0, 3.0], sample_weight=[1.0, 3.0]))
        2.5
    """

    _default_name = "mean"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None) -> None:
        """Add `values` (any shape), each weighted by `sample_weight` (default 1).

        Args:
            values: the values to average, any shape.
            sample_weight: None, or weights broadcastable to `values`.

        Raises:
            InvalidArgumentError: naming the metric and both shapes, if the weights do not fit.

        Example:
            >>> import kerasish as ks
            >>> mean = ks.metrics.Mean()
            >>> mean.update_state([1., 3.], sample_weight=[1., 3.])
            >>> float(mean.result())  # (1 + 9) / 4
            2.5
        """
        values = math_ops.cast(as_tensor(values), self._dtype)
        self._follow_device(values._value)
        total, count = weighted_sum_and_count(values, sample_weight, self._describe())
        self.total.assign_add(total)
        self.count.assign_add(count)

    def result(self) -> Tensor:
        return divide_no_nan(self.total, self.count)


class Sum(Metric):
    """The (weighted) sum of every value seen: sum(w * x).

    Args:
        name: the metric's name in logs (default 'sum').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> s = ks.metrics.Sum()
        >>> float(s([1, 3, 5, 7]))
        16.0
    """

    _default_name = "sum"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")

    def update_state(self, values, sample_weight=None) -> None:
        """Add the sum of `values`, each weighted by `sample_weight` (default 1).

        Args:
            values: the values to add, any shape.
            sample_weight: None, or weights broadcastable to `values`.

        Raises:
            InvalidArgumentError: naming the metric and both shapes, if the weights do not fit.

        Example:
            >>> import kerasish as ks
            >>> total = ks.metrics.Sum()
            >>> total.update_state([1., 3.], sample_weight=[2., 0.])
            >>> float(total.result())
            2.0
        """
        values = math_ops.cast(as_tensor(values), self._dtype)
        self._follow_device(values._value)
        total, _ = weighted_sum_and_count(values, sample_weight, self._describe())
        self.total.assign_add(total)

    def result(self) -> Tensor:
        return self.total.read_value()


class MeanMetricWrapper(Mean):
    """The streaming weighted mean of a per-example function `fn(y_true, y_pred, **kwargs)`.

    `fn` returns one value per example (or per element); `update_state(y_true,
    y_pred, sample_weight)` averages them with the one weighted reduction of
    `Mean`. Shape errors from `fn` are re-raised naming this metric.

    Args:
        fn: the per-example function.
        name: the metric's name (default: `fn.__name__`).
        dtype: dtype of the state and result.
        **kwargs: passed to `fn` on every call (e.g. `threshold=0.5`).

    Example:
        >>> import kerasish as ks
        >>> def hit(y_true, y_pred):
        ...     return ks.cast(ks.equal(y_true, y_pred), ks.float32)
        >>> m = ks.metrics.MeanMetricWrapper(hit)
        >>> m.name, float(m([1, 2, 3, 4], [1, 2, 0, 0]))
        ('hit', 0.5)
    """

    _default_name = None  # named after fn unless a subclass names itself

    def __init__(self, fn, name: str | None = None, dtype=None, **kwargs):
        if not callable(fn):
            raise InvalidArgumentError(
                f"MeanMetricWrapper: fn must be a callable fn(y_true, y_pred), got {fn!r}"
            )
        if name is None and self._default_name is None:
            name = getattr(fn, "__name__", None) or snake_case(type(fn).__name__)
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = dict(kwargs)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Average `fn(y_true, y_pred)` into the state, weighted by `sample_weight`.

        Args:
            y_true: the labels.
            y_pred: the predictions.
            sample_weight: None, or weights broadcastable to fn's per-example values.

        Raises:
            InvalidArgumentError: naming the metric, when `fn` rejects the inputs or the
                weights do not fit.

        Example:
            >>> import kerasish as ks
            >>> mse = ks.metrics.MeanSquaredError()
            >>> mse.update_state([[0.], [0.]], [[1.], [3.]], sample_weight=[1., 0.])
            >>> float(mse.result())
            1.0
        """
        y_true, y_pred = as_pair(y_true, y_pred)
        try:
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"{self._describe()}: {exc}") from None
        super().update_state(values, sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}
