"""Probabilistic metrics: streaming (weighted) means of the KL divergence, the Poisson loss
and the cross-entropies."""

from __future__ import annotations

from kerasish import losses
from kerasish.core.ops import reduction_ops, shape_ops
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import as_pair
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


def _classes_last(x: Tensor, axis: int) -> Tensor:
    """`x` with its class axis `axis` moved to the end, where the losses expect it."""
    axis = reduction_ops.normalize_axis(axis, x.ndim, "crossentropy metric")[0]
    if axis == x.ndim - 1:
        return x
    return shape_ops.transpose(x, [a for a in range(x.ndim) if a != axis] + [axis])


def _categorical(y_true, y_pred, axis: int, **kwargs) -> Tensor:
    y_true, y_pred = as_pair(y_true, y_pred)
    return losses.categorical_crossentropy(
        _classes_last(y_true, axis), _classes_last(y_pred, axis), **kwargs
    )


def _sparse_categorical(y_true, y_pred, axis: int, **kwargs) -> Tensor:
    y_true, y_pred = as_pair(y_true, y_pred)
    return losses.sparse_categorical_crossentropy(y_true, _classes_last(y_pred, axis), **kwargs)


class BinaryCrossentropy(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.binary_crossentropy`.

    Args:
        name: the metric's name in logs (default 'binary_crossentropy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], squeezes targets towards 0.5.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.BinaryCrossentropy()([[1.], [0.]], [[0.5], [0.5]])), 4)
        0.6931
    """

    _default_name = "binary_crossentropy"

    def __init__(
        self,
        name: str | None = None,
        dtype=None,
        from_logits: bool = False,
        label_smoothing: float = 0,
    ):
        super().__init__(
            losses.binary_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            label_smoothing=label_smoothing,
        )


class CategoricalCrossentropy(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.categorical_crossentropy` over `axis`.

    Args:
        name: the metric's name in logs (default 'categorical_crossentropy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], mixes targets with the uniform distribution.
        axis: the class axis.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.CategoricalCrossentropy()([[0., 1.]], [[0.5, 0.5]])), 4)
        0.6931
    """

    _default_name = "categorical_crossentropy"

    def __init__(
        self,
        name: str | None = None,
        dtype=None,
        from_logits: bool = False,
        label_smoothing: float = 0,
        axis: int = -1,
    ):
        super().__init__(
            _categorical,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            label_smoothing=label_smoothing,
            axis=int(axis),
        )


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The streaming (weighted) mean of `ks.losses.sparse_categorical_crossentropy`.

    Args:
        name: the metric's name in logs (default 'sparse_categorical_crossentropy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: whether y_pred holds logits rather than probabilities.
        ignore_class: a label value whose positions give a loss of 0 (they still count in
            the mean, as in Keras's metric).
        axis: the class axis of y_pred.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.metrics.SparseCategoricalCrossentropy()([1], [[0.5, 0.5]])), 4)
        0.6931
    """

    _default_name = "sparse_categorical_crossentropy"

    def __init__(
        self,
        name: str | None = None,
        dtype=None,
        from_logits: bool = False,
        ignore_class: int | None = None,
        axis: int = -1,
    ):
        super().__init__(
            _sparse_categorical,
            name=name,
            dtype=dtype,
            from_logits=bool(from_logits),
            ignore_class=ignore_class,
            axis=int(axis),
        )
