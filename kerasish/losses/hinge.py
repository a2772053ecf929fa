"""Hinge losses, for -1/1 (or 0/1) labels: hinge, squared hinge, categorical hinge."""

from __future__ import annotations

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.tensor import Tensor
from kerasish.losses.base import LossFunctionWrapper, _mean_last_axis, _prepare, loss_function


def _hinge_labels(y_true: Tensor) -> Tensor:
    """Labels in {-1, 1}: all-0/1 labels are mapped with 2y - 1, any others kept (Keras's rule)."""
    values = y_true._value
    xp = backend.array_module(values)
    if bool(xp.all((values == 0) | (values == 1))):
        return y_true * 2.0 - 1.0
    return y_true


@loss_function
def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis; labels -1/1 (or 0/1, mapped).

    Args:
        y_true: labels -1/1 (all-0/1 labels are mapped to -1/1).
        y_pred: scores, y_true's shape.

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.hinge([[1., 0.]], [[0.5, -2.]]).numpy()
        array([0.25], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "hinge")
    margin = 1.0 - _hinge_labels(y_true) * y_pred
    return _mean_last_axis(math_ops.maximum(margin, 0.0))


@loss_function
def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0) ** 2) over the last axis; labels -1/1 (or 0/1).

    Args:
        y_true: labels -1/1 (all-0/1 labels are mapped to -1/1).
        y_pred: scores, y_true's shape.

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.squared_hinge([[1., 0.]], [[0.5, 2.]]).numpy()
        array([4.625], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "squared_hinge")
    margin = 1.0 - _hinge_labels(y_true) * y_pred
    return _mean_last_axis(math_ops.square(math_ops.maximum(margin, 0.0)))


@loss_function
def categorical_hinge(y_true, y_pred):
    """max(neg - pos + 1, 0) per example: pos the true class's score, neg the best other one.

    ``pos = sum(y_true * y_pred)`` and ``neg = max((1 - y_true) * y_pred)`` over
    the last axis, for one-hot `y_true`.

    Args:
        y_true: (..., C) one-hot targets.
        y_pred: (..., C) scores.

    Returns:
        The per-example losses, shape (...).

    Raises:
        InvalidArgumentError: if y_pred is a scalar or the shapes differ.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.categorical_hinge([[0., 1., 0.]], [[0.2, 0.7, 0.5]]).numpy()
        array([0.8], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "categorical_hinge", exact=True)
    if y_pred.ndim == 0:
        raise InvalidArgumentError("categorical_hinge: y_pred must have a class axis (last)")
    positive = reduction_ops.reduce_sum(y_true * y_pred, -1)
    negative = reduction_ops.reduce_max((1.0 - y_true) * y_pred, -1)
    return math_ops.maximum(negative - positive + 1.0, 0.0)


# ---------------------------------------------------------------- Loss objects


class Hinge(LossFunctionWrapper):
    """`hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'hinge').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.Hinge()([[1., 0.]], [[0.5, -2.]]))
        0.25
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "hinge", dtype=None):
        super().__init__(hinge, reduction, name, dtype=dtype)


class SquaredHinge(LossFunctionWrapper):
    """`squared_hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'squared_hinge').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.SquaredHinge()([[1., 0.]], [[0.5, 2.]]))
        4.625
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "squared_hinge",
                 dtype=None):
        super().__init__(squared_hinge, reduction, name, dtype=dtype)


class CategoricalHinge(LossFunctionWrapper):
    """`categorical_hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_hinge').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.CategoricalHinge()([[0., 1., 0.]], [[0.2, 0.7, 0.5]])), 4)
        0.8
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "categorical_hinge",
                 dtype=None):
        super().__init__(categorical_hinge, reduction, name, dtype=dtype)
