"""Hinge metrics: streaming (weighted) means of the hinge losses of `ks.losses`."""

from __future__ import annotations

from kerasish import losses
from kerasish.metrics.reduction import MeanMetricWrapper


class Hinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.hinge` (labels -1/1, or 0/1 mapped to them).

    Args:
        name: the metric's name in logs (default 'hinge').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.Hinge()([[1., 0.]], [[0.5, -2.]]))
        0.25
    """

    _default_name = "hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.hinge, name=name, dtype=dtype)


class SquaredHinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.squared_hinge`.

    Args:
        name: the metric's name in logs (default 'squared_hinge').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.SquaredHinge()([[1., 0.]], [[0.5, 2.]]))
        4.625
    """

    _default_name = "squared_hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.categorical_hinge` (one-hot labels).

    Args:
        name: the metric's name in logs (default 'categorical_hinge').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.CategoricalHinge()([[0., 1., 0.]], [[0.2, 0.7, 0.5]])), 4)
        0.8
    """

    _default_name = "categorical_hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.categorical_hinge, name=name, dtype=dtype)
