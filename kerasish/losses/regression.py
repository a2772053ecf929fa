"""Regression losses: squared, absolute, Huber, percentage, logarithmic, log-cosh, cosine.

Huber: `huber` and `Huber` follow the standard definition (and Keras's):
``0.5 * t**2`` for ``|t| <= delta`` and ``delta * (|t| - 0.5 * delta)`` outside,
``t = y_pred - y_true``. Stanford's CS20 lecture notes define Huber as ``t**2`` inside
and ``m * (2|t| - m)`` outside, which is exactly twice this (same minimizer,
gradients twice as large).
"""

from __future__ import annotations

import math

from kerasish.core import settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import activation_ops, math_ops, nn_ops, reduction_ops
from kerasish.losses.base import (
    LossFunctionWrapper,
    _mean_last_axis,
    _prepare,
    loss_function,
)


@loss_function
def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true) ** 2) over the last axis: one value per example.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.mean_squared_error([[1., 2.]], [[2., 4.]]).numpy()
        array([2.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_squared_error")
    return _mean_last_axis(math_ops.square(y_pred - y_true))


@loss_function
def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|) over the last axis: one value per example.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.mean_absolute_error([[1., 2.]], [[2., 4.]]).numpy()
        array([1.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_absolute_error")
    return _mean_last_axis(math_ops.abs(y_pred - y_true))


@loss_function
def huber(y_true, y_pred, delta: float = 1.0):
    """Huber loss (standard definition), averaged over the last axis.

    With ``t = y_pred - y_true``: ``0.5 * t**2`` if ``|t| <= delta``, else
    ``delta * (|t| - 0.5 * delta)``. Quadratic near 0, linear (robust to
    outliers) beyond `delta`; continuous with a continuous first derivative.
    CS20's lecture Huber (``t**2`` / ``m * (2|t| - m)``) is twice this.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).
        delta: where the quadratic part turns linear; must be > 0.

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Raises:
        InvalidArgumentError: if delta is not > 0, or the shapes do not fit.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.huber([[0., 0.]], [[0.5, 3.]]).numpy()  # (0.125 + 2.5) / 2
        array([1.3125], dtype=float32)
    """
    delta = float(delta)
    if not delta > 0:
        raise InvalidArgumentError(f"huber: delta must be > 0, got {delta}")
    y_true, y_pred = _prepare(y_true, y_pred, "huber")
    error = y_pred - y_true
    abs_error = math_ops.abs(error)
    loss = math_ops.where(
        math_ops.less_equal(abs_error, delta),
        math_ops.square(error) * 0.5,
        abs_error * delta - 0.5 * delta * delta,
    )
    return _mean_last_axis(loss)


@loss_function
def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / max(|y_true|, epsilon)) over the last axis.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.mean_absolute_percentage_error([[2., 4.]], [[1., 5.]]).numpy()
        array([37.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_absolute_percentage_error")
    scale = math_ops.maximum(math_ops.abs(y_true), settings.epsilon())
    return _mean_last_axis(math_ops.abs(y_true - y_pred) / scale) * 100.0


@loss_function
def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + y_pred) - log(1 + y_true)) ** 2) over the last axis.

    Values below epsilon (zero and negatives) are raised to epsilon first, as
    in Keras, so the logs stay finite.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.mean_squared_logarithmic_error([[0.]], [[1.]])[0]), 4)
        0.4805
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_squared_logarithmic_error")
    first = math_ops.log1p(math_ops.maximum(y_pred, settings.epsilon()))
    second = math_ops.log1p(math_ops.maximum(y_true, settings.epsilon()))
    return _mean_last_axis(math_ops.square(first - second))


@loss_function
def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, finite for any error.

    Written as ``t + softplus(-2t) - log(2)``, which never forms cosh(t) (that
    overflows float32 beyond |t| ~ 89). About ``t**2 / 2`` for small errors and
    ``|t| - log(2)`` for large ones.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.log_cosh([[0., 0.]], [[0., 1000.]]).numpy()  # (1000 - log 2) / 2
        array([499.6534], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "log_cosh")
    error = y_pred - y_true
    return _mean_last_axis(error + activation_ops.softplus(error * -2.0) - math.log(2.0))


@loss_function
def cosine_similarity(y_true, y_pred, axis: int = -1):
    """-sum(unit(y_true) * unit(y_pred)) along `axis`: -1 for parallel vectors, 0 if either is 0.

    ``unit(x) = x / max(||x||, epsilon)``, as Keras normalizes.

    Args:
        y_true: targets, broadcastable to y_pred's shape.
        y_pred: predictions, shape (..., d).
        axis: the axis (or axes) holding the vectors.

    Returns:
        The per-example losses, y_pred's shape without `axis`.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.cosine_similarity([[0., 1.], [1., 1.]], [[1., 0.], [2., 2.]]).numpy().round(4)
        array([-0., -1.], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "cosine_similarity")
    axis = reduction_ops.normalize_axis(axis, y_pred.ndim, "cosine_similarity")
    y_true = nn_ops.l2_normalize(y_true, axis, epsilon=settings.epsilon() ** 2)
    y_pred = nn_ops.l2_normalize(y_pred, axis, epsilon=settings.epsilon() ** 2)
    return math_ops.negative(reduction_ops.reduce_sum(y_true * y_pred, axis))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh


# ---------------------------------------------------------------- Loss objects


class MeanSquaredError(LossFunctionWrapper):
    """`mean_squared_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_squared_error').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanSquaredError()([[0.], [0.]], [[1.], [3.]]))
        5.0
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_error",
                 dtype=None):
        super().__init__(mean_squared_error, reduction, name, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """`mean_absolute_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_absolute_error').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanAbsoluteError()([[0.], [0.]], [[1.], [-3.]]))
        2.0
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, reduction, name, dtype=dtype)


class Huber(LossFunctionWrapper):
    """`huber` (standard definition, ``0.5 t**2`` inside `delta`) as a `Loss` object.

    Args:
        delta: where the quadratic part turns linear; > 0.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'huber_loss').
        dtype: the dtype of the computation (see `Loss`).

    Raises:
        InvalidArgumentError: if delta is not > 0.

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.Huber(delta=1.0)([[0.], [0.]], [[0.5], [3.]]))  # (0.125 + 2.5) / 2
        1.3125
    """

    def __init__(
        self, delta: float = 1.0, reduction: str = "sum_over_batch_size", name: str = "huber_loss",
        dtype=None
    ):
        delta = float(delta)
        if not delta > 0:
            raise InvalidArgumentError(f"Huber: delta must be > 0, got {delta}")
        super().__init__(huber, reduction, name, delta=delta, dtype=dtype)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """`mean_absolute_percentage_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_absolute_percentage_error').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanAbsolutePercentageError()([[2.], [4.]], [[1.], [5.]]))
        37.5
    """

    def __init__(
        self,
        reduction: str = "sum_over_batch_size",
        name: str = "mean_absolute_percentage_error",
        dtype=None,
    ):
        super().__init__(mean_absolute_percentage_error, reduction, name, dtype=dtype)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """`mean_squared_logarithmic_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_squared_logarithmic_error').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.MeanSquaredLogarithmicError()([[0.]], [[1.]])), 4)
        0.4805
    """

    def __init__(
        self,
        reduction: str = "sum_over_batch_size",
        name: str = "mean_squared_logarithmic_error",
        dtype=None,
    ):
        super().__init__(mean_squared_logarithmic_error, reduction, name, dtype=dtype)


class LogCosh(LossFunctionWrapper):
    """`log_cosh` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'log_cosh').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.LogCosh()([[0.], [0.]], [[1.], [-1.]])), 4)
        0.4338
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "log_cosh", dtype=None):
        super().__init__(log_cosh, reduction, name, dtype=dtype)


class CosineSimilarity(LossFunctionWrapper):
    """`cosine_similarity` along `axis` as a `Loss` object (minimizing it aligns the vectors).

    Args:
        axis: the axis holding the vectors.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'cosine_similarity').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.CosineSimilarity()([[0., 1.]], [[0., 3.]]))
        -1.0
    """

    def __init__(
        self,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "cosine_similarity",
        dtype=None,
    ):
        super().__init__(cosine_similarity, reduction, name, axis=int(axis), dtype=dtype)
