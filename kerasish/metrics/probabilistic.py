"""Probabilistic metrics: streaming (weighted) means of the KL divergence and the Poisson loss."""

from __future__ import annotations

from kerasish import losses
from kerasish.metrics.reduction import MeanMetricWrapper


class KLDivergence(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.kl_divergence` (one value per example).

    Args:
        name: the metric's name in logs (default 'kl_divergence').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 4)
        0.1438
    """

    _default_name = "kl_divergence"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.kl_divergence, name=name, dtype=dtype)


class Poisson(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.poisson`.

    Args:
        name: the metric's name in logs (default 'poisson').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.Poisson()([[1.]], [[2.]])), 4)
        1.3069
    """

    _default_name = "poisson"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(losses.poisson, name=name, dtype=dtype)
