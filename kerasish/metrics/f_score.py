"""F-scores: F1Score and FBetaScore, from per-class (or global) confusion counts."""

from __future__ import annotations

import numpy as np

from kerasish.core import settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import Metric, align_sample_weight, as_float, as_pair

_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """F-beta = (1 + beta**2) * precision * recall / (beta**2 * precision + recall), streamed.

    Inputs are (batch, classes), multi-class or multi-label. A prediction
    counts as positive where it is > `threshold`, or, with `threshold=None`,
    where it is its row's largest value (and not 0). As in Keras, epsilon (``ks.config.epsilon()``)
    (1e-7) is added to every denominator, so a class never seen scores 0.

    Args:
        average: None (one score per class), 'micro' (one score from the
            counts of all classes pooled), 'macro' (the mean of the per-class
            scores) or 'weighted' (their mean weighted by each class's number
            of true labels).
        beta: weight of recall relative to precision (> 0).
        threshold: a float in (0, 1], or None for the row maximum.
        name, dtype: as for every metric (default name 'fbeta_score').

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.FBetaScore(beta=2.0, threshold=0.5)
        >>> m([[1, 1, 1], [1, 0, 0], [1, 1, 0]],
        ...   [[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]]).numpy().round(4)
        array([0.3846, 0.9091, 0.8333], dtype=float32)
    """

    _default_name = "fbeta_score"

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str | None = None,
        dtype=None,
    ):
        super().__init__(name=name, dtype=dtype)
        what = self._describe()
        if average not in _AVERAGES:
            raise InvalidArgumentError(
                f"{what}: average must be one of {_AVERAGES}, got {average!r}"
            )
        if not float(beta) > 0:
            raise InvalidArgumentError(f"{what}: beta must be > 0, got {beta}")
        if threshold is not None and not 0.0 < float(threshold) <= 1.0:
            raise InvalidArgumentError(
                f"{what}: threshold must be in (0, 1] (or None for the row maximum), "
                f"got {threshold}"
            )
        self.average = average
        self.beta = float(beta)
        self.threshold = None if threshold is None else float(threshold)
        self.true_positives = self.false_positives = None
        self.false_negatives = self.intermediate_weights = None

    def _build(self, classes: int) -> None:
        shape = () if self.average == "micro" else (classes,)
        self.true_positives = self.add_weight("true_positives", shape)
        self.false_positives = self.add_weight("false_positives", shape)
        self.false_negatives = self.add_weight("false_negatives", shape)
        self.intermediate_weights = self.add_weight("intermediate_weights", shape)
        self._classes = classes

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        what = self._describe()
        y_true, y_pred = as_pair(y_true, y_pred)
        if y_pred.ndim != 2 or y_true.shape != y_pred.shape:
            raise InvalidArgumentError(
                f"{what}: expects y_true and y_pred of the same shape (batch, classes), got "
                f"y_true {y_true.shape} and y_pred {y_pred.shape}"
            )
        if self.true_positives is None:
            self._build(y_pred.shape[1])
        elif y_pred.shape[1] != self._classes:
            raise InvalidArgumentError(
                f"{what}: was built for {self._classes} classes, got y_pred of shape "
                f"{y_pred.shape}"
            )
        y_pred = math_ops.cast(as_float(y_pred), self._dtype)
        self._follow_device(y_pred._value)
        if self.threshold is None:
            top = reduction_ops.reduce_max(y_pred, -1, keepdims=True)
            predicted = math_ops.logical_and(
                math_ops.greater_equal(y_pred, top), math_ops.greater(math_ops.abs(y_pred), 1e-9)
            )
        else:
            predicted = math_ops.greater(y_pred, self.threshold)
        predicted = math_ops.cast(predicted, self._dtype)
        actual = math_ops.cast(y_true, self._dtype)
        weight = None
        if sample_weight is not None:
            weight = align_sample_weight(sample_weight, actual, what)
        axis = None if self.average == "micro" else 0

        def weighted_sum(values):
            return reduction_ops.reduce_sum(values if weight is None else values * weight, axis)

        self.true_positives.assign_add(weighted_sum(predicted * actual))
        self.false_positives.assign_add(weighted_sum(predicted * (1.0 - actual)))
        self.false_negatives.assign_add(weighted_sum((1.0 - predicted) * actual))
        self.intermediate_weights.assign_add(weighted_sum(actual))

    def result(self) -> Tensor:
        if self.true_positives is None:
            shape = () if self.average is not None else (0,)
            return Tensor(np.zeros(shape, self._dtype))
        tp, eps = self.true_positives, settings.epsilon()
        precision = tp / (tp + self.false_positives + eps)
        recall = tp / (tp + self.false_negatives + eps)
        beta2 = self.beta * self.beta
        score = precision * recall / (precision * beta2 + recall + eps) * (1.0 + beta2)
        if self.average == "weighted":
            support = self.intermediate_weights
            weights = support / (reduction_ops.reduce_sum(support) + eps)
            return reduction_ops.reduce_sum(score * weights)
        if self.average is not None:
            return reduction_ops.reduce_mean(score)
        return score

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score 2 * precision * recall / (precision + recall): `FBetaScore` with beta = 1.

    Args:
        average: None, 'micro', 'macro' or 'weighted', as for `FBetaScore`.
        threshold: a float in (0, 1], or None for the row maximum.
        name: the metric's name in logs (default 'f1_score').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.F1Score(threshold=0.5)
        >>> m([[1, 1, 1], [1, 0, 0], [1, 1, 0]],
        ...   [[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]]).numpy().round(4)
        array([0.5   , 0.8   , 0.6667], dtype=float32)
    """

    _default_name = "f1_score"

    def __init__(
        self,
        average: str | None = None,
        threshold: float | None = None,
        name: str | None = None,
        dtype=None,
    ):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config
