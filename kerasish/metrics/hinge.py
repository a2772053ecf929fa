"""Hinge metrics: streaming (weighted) means of the hinge losses of `ks.losses`."""

from __future__ import annotations

from kerasish import losses
from kerasish.metrics.reduction import MeanMetricWrapper


class Hinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.hinge` (labels -1/1, or 0/1 mapped to them).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.Hinge()([[1., 0.]], [[0.5, -2.]]))
        0.25
    """

    _default_name = "hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.hinge, name=name, dtype=dtype)


class SquaredHinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.squared_hinge`."""

    _default_name = "squared_hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.categorical_hinge` (one-hot labels)."""

    _default_name = "categorical_hinge"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.categorical_hinge, name=name, dtype=dtype)
