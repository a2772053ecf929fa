"""Metrics from confusion counts at fixed thresholds: Precision, Recall, AUC, the counts
themselves (TruePositives, ...) and one rate at a fixed other (PrecisionAtRecall, ...).

At each threshold t a prediction p counts as positive when p > t; a label is
positive when it is non-zero. The counts (true/false positives/negatives,
weighted by `sample_weight`) are accumulated in state variables of shape
(num_thresholds,), with one matrix product per batch: (thresholds x examples)
indicators times (examples x {positive, negative}) weights.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import backend, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import activation_ops, creation_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.ops.math_ops import divide_no_nan
from kerasish.core.primitive import apply, primitive
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import (
    Metric,
    align_sample_weight,
    as_float,
    as_pair,
    match_shapes,
)


def _threshold_list(thresholds, what: str) -> list:
    values = [thresholds] if np.ndim(thresholds) == 0 else list(np.ravel(thresholds))
    values = [float(t) for t in values]
    if not values:
        raise InvalidArgumentError(f"{what}: thresholds must not be empty")
    bad = [t for t in values if not 0.0 <= t <= 1.0]
    if bad:
        raise InvalidArgumentError(
            f"{what}: thresholds must lie in [0, 1], got {bad}; for logits pass "
            "from_logits=True (thresholds then apply to sigmoid(y_pred))"
        )
    return values


class _ConfusionMetric(Metric):
    """Shared update: confusion counts of (y_true, y_pred) at the metric's thresholds."""

    def _init_options(self, thresholds, top_k, class_id, from_logits) -> None:
        """Precision's and Recall's options: one threshold (scalar result) or several."""
        if thresholds is None:  # with top_k, every kept prediction counts as positive
            values = [0.5 if top_k is None else -math.inf]
        else:
            values = _threshold_list(thresholds, self._describe())
        self._init_thresholds(values)
        self._scalar = thresholds is None or np.ndim(thresholds) == 0
        self._given_thresholds = (
            None if thresholds is None else (values[0] if self._scalar else list(values))
        )
        self.top_k = None if top_k is None else int(top_k)
        self.class_id = None if class_id is None else int(class_id)
        self.from_logits = bool(from_logits)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "thresholds": self._given_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
            "from_logits": self.from_logits,
        }

    def _init_thresholds(self, thresholds: list) -> None:
        self._threshold_values = np.asarray(thresholds, dtype=self._dtype)
        self._thresholds_on: dict = {}  # device -> Tensor, so each device copies them once

    @property
    def thresholds(self) -> np.ndarray:
        """The thresholds, as a NumPy array of the metric's dtype."""
        return self._threshold_values.copy()

    def _thresholds_like(self, array) -> Tensor:
        where = backend.device_of(array)
        cached = self._thresholds_on.get(where)
        if cached is None:
            cached = Tensor(backend.to_device(self._threshold_values, where))
            self._thresholds_on[where] = cached
        return cached

    def _confusion(
        self, y_true, y_pred, sample_weight, class_id=None, top_k=None, from_logits=False,
        label_weights=None, by_label=False,
    ) -> tuple:
        """(tp, fp, tn, fn), each of shape (num_thresholds,), for one batch; with `by_label`
        (AUC's multi_label), of shape (num_thresholds, labels) for y_pred of rank 2.
        `label_weights` (one per label, the last axis) multiply the sample weights."""
        what = self._describe()
        y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), what)
        y_pred = math_ops.cast(as_float(y_pred), self._dtype)
        self._follow_device(y_pred._value)
        if from_logits:
            y_pred = activation_ops.sigmoid(y_pred)
        if top_k is not None:
            y_pred = _keep_top_k(y_pred, top_k, what)
        weight = None
        if sample_weight is not None:
            weight = align_sample_weight(sample_weight, y_pred, what)
            weight = shape_ops.broadcast_to(weight, y_pred.shape)
        if class_id is not None:
            if y_pred.ndim < 1 or not 0 <= class_id < y_pred.shape[-1]:
                raise InvalidArgumentError(
                    f"{what}: class_id={class_id} does not index the last dimension of y_pred "
                    f"(shape {y_pred.shape})"
                )
            y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
            weight = None if weight is None else weight[..., class_id]
        if label_weights is not None:
            label_weights = shape_ops.broadcast_to(
                math_ops.cast(as_float(label_weights), self._dtype), y_pred.shape)
            weight = label_weights if weight is None else weight * label_weights
        if by_label:
            return self._confusion_by_label(y_true, y_pred, weight)
        predictions = shape_ops.reshape(y_pred, (-1,))
        positive = math_ops.cast(
            math_ops.not_equal(shape_ops.reshape(y_true, (-1,)), 0), self._dtype
        )
        negative = 1.0 - positive
        if weight is not None:
            weight = shape_ops.reshape(weight, (-1,))
            positive, negative = positive * weight, negative * weight
        columns = shape_ops.stack([positive, negative], axis=1)  # (examples, 2)
        thresholds = self._thresholds_like(predictions._value)
        above = math_ops.greater(
            shape_ops.reshape(predictions, (1, -1)), shape_ops.reshape(thresholds, (-1, 1))
        )
        above_counts = math_ops.matmul(math_ops.cast(above, self._dtype), columns)
        below_counts = math_ops.matmul(
            math_ops.cast(math_ops.logical_not(above), self._dtype), columns
        )
        tp, fp = above_counts[:, 0], above_counts[:, 1]
        fn, tn = below_counts[:, 0], below_counts[:, 1]
        return tp, fp, tn, fn

    def _confusion_by_label(self, y_true, y_pred, weight) -> tuple:
        """(tp, fp, tn, fn) of shape (num_thresholds, labels) for (examples, labels) inputs."""
        if y_pred.ndim != 2:
            raise InvalidArgumentError(
                f"{self._describe()}: y_pred must have rank 2 (examples, labels) with "
                f"multi_label=True, got shape {y_pred.shape}")
        positive = math_ops.cast(math_ops.not_equal(y_true, 0), self._dtype)
        negative = 1.0 - positive
        if weight is not None:
            positive, negative = positive * weight, negative * weight
        thresholds = shape_ops.reshape(self._thresholds_like(y_pred._value), (-1, 1, 1))
        above = math_ops.cast(math_ops.greater(shape_ops.expand_dims(y_pred, 0), thresholds),
                              self._dtype)  # (thresholds, examples, labels)
        below = 1.0 - above
        tp = reduction_ops.reduce_sum(above * positive, axis=1)
        fp = reduction_ops.reduce_sum(above * negative, axis=1)
        fn = reduction_ops.reduce_sum(below * positive, axis=1)
        tn = reduction_ops.reduce_sum(below * negative, axis=1)
        return tp, fp, tn, fn


def _keep_top_k(y_pred: Tensor, k: int, what: str) -> Tensor:
    """y_pred with everything below each row's k-th largest value set to -inf (ties kept)."""
    if y_pred.ndim < 1 or k < 1:
        raise InvalidArgumentError(f"{what}: top_k needs k >= 1 and y_pred of rank >= 1")
    classes = y_pred.shape[-1]
    if k >= classes:
        return y_pred
    return apply(_top_k_kept, (y_pred,), {"k": k})


@primitive("top_k_kept", differentiable=False)  # a primitive: ks.function replays it
def _top_k_kept(values, *, k: int):
    classes = values.shape[-1]
    xp = backend.array_module(values)
    kth = xp.partition(values, classes - k, axis=-1)[..., classes - k : classes - k + 1]
    return xp.where(values >= kth, values, -xp.inf).astype(values.dtype, copy=False)


class Precision(_ConfusionMetric):
    """Precision tp / (tp + fp): how many predicted positives are positive.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with
            several, `result()` has one precision per threshold.
        top_k: only the k highest predictions of each example count as
            positive (the others are never above a threshold).
        class_id: compute the metric for this column of y_pred only.
        name, dtype: as for every metric (default name 'precision').
        from_logits: y_pred are logits; thresholds apply to sigmoid(y_pred).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.Precision()([0, 1, 1, 1], [1, 0, 1, 1]))
        0.6666666865348816
    """

    _default_name = "precision"

    def __init__(
        self,
        thresholds=None,
        top_k=None,
        class_id=None,
        name=None,
        dtype=None,
        from_logits: bool = False,
    ):
        super().__init__(name=name, dtype=dtype)
        self._init_options(thresholds, top_k, class_id, from_logits)
        count = len(self._threshold_values)
        self.true_positives = self.add_weight("true_positives", (count,))
        self.false_positives = self.add_weight("false_positives", (count,))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        tp, fp, _, _ = self._confusion(
            y_true, y_pred, sample_weight, self.class_id, self.top_k, self.from_logits
        )
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)

    def result(self) -> Tensor:
        tp = self.true_positives
        value = divide_no_nan(tp, tp + self.false_positives)
        return shape_ops.reshape(value, ()) if self._scalar else value


class Recall(_ConfusionMetric):
    """Recall tp / (tp + fn): how many positives are predicted positive.

    Arguments as for `Precision` (default name 'recall').

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with several,
            `result()` has one recall per threshold.
        top_k: only the k highest predictions of each example count as positive.
        class_id: compute the metric for this column of y_pred only.
        name: the metric's name in logs (default 'recall').
        dtype: the dtype of the state and the result (default float32).
        from_logits: y_pred are logits; thresholds apply to sigmoid(y_pred).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.Recall()([0, 1, 1, 1], [1, 0, 1, 1]))
        0.6666666865348816
    """

    _default_name = "recall"

    def __init__(
        self,
        thresholds=None,
        top_k=None,
        class_id=None,
        name=None,
        dtype=None,
        from_logits: bool = False,
    ):
        super().__init__(name=name, dtype=dtype)
        self._init_options(thresholds, top_k, class_id, from_logits)
        count = len(self._threshold_values)
        self.true_positives = self.add_weight("true_positives", (count,))
        self.false_negatives = self.add_weight("false_negatives", (count,))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        tp, _, _, fn = self._confusion(
            y_true, y_pred, sample_weight, self.class_id, self.top_k, self.from_logits
        )
        self.true_positives.assign_add(tp)
        self.false_negatives.assign_add(fn)

    def result(self) -> Tensor:
        tp = self.true_positives
        value = divide_no_nan(tp, tp + self.false_negatives)
        return shape_ops.reshape(value, ()) if self._scalar else value


_CURVES = ("ROC", "PR")
_SUMMATIONS = ("interpolation", "minoring", "majoring")


class AUC(_ConfusionMetric):
    """Area under the ROC (or precision-recall) curve, from counts at fixed thresholds.

    As in Keras: `num_thresholds` thresholds evenly spaced over [0, 1], the
    first just below 0 and the last just above 1; at each a prediction p is
    positive when p > t. The area is a Riemann sum over consecutive thresholds,
    with trapezoids for `summation_method='interpolation'` (for the PR curve,
    Davis & Goadrich's interpolation), or the lower ('minoring') or upper
    ('majoring') of the two heights. Predictions should be probabilities
    (or logits with `from_logits=True`); multi-label inputs are flattened.

    Args:
        num_thresholds: number of thresholds (> 1); ignored if `thresholds` is given.
        curve: 'ROC' (default) or 'PR'.
        summation_method: 'interpolation' (default), 'minoring' or 'majoring'.
        name, dtype: as for every metric (default name 'auc').
        thresholds: explicit thresholds in [0, 1]; -eps and 1 + eps are added.
        multi_label: (examples, labels) inputs give one curve per label (state of shape
            (num_thresholds, labels)) and the result is the mean of their areas, weighted
            by `label_weights`; False flattens the labels into one curve.
        num_labels: with `multi_label`, the number of labels, so the state exists before
            the first update (else it is made then, from y_pred's shape).
        label_weights: one non-negative weight per label: with `multi_label`, the
            weights of the labels' areas in the mean; without, they multiply the sample
            weights of each label's column.
        from_logits: y_pred are logits (sigmoid is applied first).

    Raises:
        ValueError: `num_labels` without `multi_label`.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.AUC(num_thresholds=3)
        >>> float(m([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]))
        0.75
        >>> by_label = ks.metrics.AUC(num_thresholds=3, multi_label=True, num_labels=2)
        >>> by_label.true_positives.shape
        (3, 2)
    """

    _default_name = "auc"

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label: bool = False,
        num_labels=None,
        label_weights=None,
        from_logits: bool = False,
    ):
        super().__init__(name=name, dtype=dtype)
        what = self._describe()
        if num_labels and not multi_label:
            raise ValueError(f"{what}: num_labels={num_labels} is needed only when "
                             "multi_label=True")
        curve = str(curve).upper()
        if curve not in _CURVES:
            raise InvalidArgumentError(f"{what}: curve must be one of {_CURVES}, got {curve!r}")
        if summation_method not in _SUMMATIONS:
            raise InvalidArgumentError(
                f"{what}: summation_method must be one of {_SUMMATIONS}, got {summation_method!r}"
            )
        self._given_thresholds = None
        if thresholds is not None:
            inner = sorted(_threshold_list(thresholds, what))
            self._given_thresholds = list(inner)
        else:
            if int(num_thresholds) <= 1:
                raise InvalidArgumentError(
                    f"{what}: num_thresholds must be > 1, got {num_thresholds}"
                )
            n = int(num_thresholds)
            inner = [(i + 1) / (n - 1) for i in range(n - 2)]
        eps = settings.epsilon()  # (Keras's end thresholds: they catch predictions of 0 and 1)
        values = [0.0 - eps] + inner + [1.0 + eps]
        self.num_thresholds = len(values)
        self.curve, self.summation_method = curve, summation_method
        self.from_logits = bool(from_logits)
        self._init_thresholds(values)
        self.multi_label = bool(multi_label)
        self.num_labels = None if num_labels is None else int(num_labels)
        self.label_weights = None if label_weights is None else np.asarray(
            label_weights.numpy() if isinstance(label_weights, Tensor) else label_weights,
            dtype=self._dtype).reshape(-1)
        self._built = False
        if not self.multi_label:
            self._build_state((self.num_thresholds,))
        elif self.num_labels:
            self._build_state((self.num_thresholds, self.num_labels))

    def _build_state(self, shape: tuple) -> None:
        """The four count variables, in Keras's order and shape."""
        self.true_positives = self.add_weight("true_positives", shape)
        self.false_positives = self.add_weight("false_positives", shape)
        self.true_negatives = self.add_weight("true_negatives", shape)
        self.false_negatives = self.add_weight("false_negatives", shape)
        self._built = True

    def get_config(self) -> dict:
        config = {
            **Metric.get_config(self),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else
            [float(w) for w in self.label_weights],
            "from_logits": self.from_logits,
        }
        if self._given_thresholds is not None:
            config["thresholds"] = list(self._given_thresholds)
        return config

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        if not self._built:  # multi_label without num_labels: the labels of y_pred
            shape = np.shape(y_pred.numpy() if isinstance(y_pred, Tensor) else y_pred)
            if len(shape) != 2:
                raise InvalidArgumentError(
                    f"{self._describe()}: y_pred must have rank 2 (examples, labels) with "
                    f"multi_label=True, got shape {tuple(shape)}")
            self._build_state((self.num_thresholds, int(shape[1])))
        tp, fp, tn, fn = self._confusion(
            y_true, y_pred, sample_weight, from_logits=self.from_logits,
            label_weights=None if self.multi_label else self.label_weights,
            by_label=self.multi_label,
        )
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.true_negatives.assign_add(tn)
        self.false_negatives.assign_add(fn)

    def result(self) -> Tensor:
        if not self._built:
            return creation_ops.zeros((), dtype=self._dtype)
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._average(_interpolated_pr_auc(tp, fp, fn))
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) * 0.5
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[:-1], y[1:])
        else:
            heights = math_ops.maximum(y[:-1], y[1:])
        return self._average((x[:-1] - x[1:]) * heights)

    def _average(self, terms: Tensor) -> Tensor:
        """The area from its terms: their sum, or with `multi_label` each label's sum (over
        axis 0) averaged, weighted by `label_weights` when given."""
        if not self.multi_label:
            return reduction_ops.reduce_sum(terms)
        by_label = reduction_ops.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return reduction_ops.reduce_mean(by_label)
        weights = Tensor(backend.to_device(self.label_weights, backend.device_of(terms._value)))
        return divide_no_nan(reduction_ops.reduce_sum(by_label * weights),
                             reduction_ops.reduce_sum(weights))


def _interpolated_pr_auc(tp: Tensor, fp: Tensor, fn: Tensor) -> Tensor:
    """The terms of PR-AUC with precision interpolated between thresholds (Davis & Goadrich
    2006), as Keras."""
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    dp = p[:-1] - p[1:]
    slope = divide_no_nan(dtp, math_ops.maximum(dp, 0.0))
    intercept = tp[1:] - slope * p[1:]
    both_positive = math_ops.logical_and(
        math_ops.greater(p[:-1], 0.0), math_ops.greater(p[1:], 0.0)
    )
    ratio = math_ops.where(
        both_positive,
        divide_no_nan(p[:-1], math_ops.maximum(p[1:], 0.0)),
        math_ops.ones_like_values(p[1:]),
    )
    return divide_no_nan(
        slope * (dtp + intercept * math_ops.log(ratio)), math_ops.maximum(tp[1:] + fn[1:], 0.0)
    )


# ---------------------------------------------------------------- single counts


class _ConfusionCount(_ConfusionMetric):
    """The weighted count of one confusion cell at each threshold (scalar for one threshold)."""

    _cell = 0  # index in _confusion's (tp, fp, tn, fn)

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        values = [0.5] if thresholds is None else _threshold_list(thresholds, self._describe())
        self._init_thresholds(values)
        self._given_thresholds = thresholds if thresholds is None else (
            values[0] if np.ndim(thresholds) == 0 else list(values)
        )
        self.accumulator = self.add_weight("accumulator", (len(values),))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Add this batch's count (labels are positive when non-zero, predictions when > t).

        Args:
            y_true: the labels.
            y_pred: the predicted scores, y_true's shape.
            sample_weight: None, or weights broadcastable to the labels.

        Example:
            >>> import kerasish as ks
            >>> positives = ks.metrics.TruePositives()
            >>> positives.update_state([1, 1, 0], [0.9, 0.2, 0.8])
            >>> float(positives.result())
            1.0
        """
        self.accumulator.assign_add(self._confusion(y_true, y_pred, sample_weight)[self._cell])

    def result(self) -> Tensor:
        if len(self._threshold_values) == 1:
            return shape_ops.reshape(self.accumulator, ())
        return self.accumulator.read_value()

    def get_config(self) -> dict:
        return {**Metric.get_config(self), "thresholds": self._given_thresholds}


class TruePositives(_ConfusionCount):
    """The (weighted) number of positive labels predicted above each threshold (default 0.5).

    Args:
        thresholds: a float or a list of floats in [0, 1]; with one threshold
            (the default 0.5) the result is a scalar, otherwise one count each.
        name, dtype: as for every metric.

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.TruePositives()([0, 1, 1, 1], [1, 0, 1, 1]))
        2.0
    """

    _cell = 0


class FalsePositives(_ConfusionCount):
    """The (weighted) number of negative labels predicted above each threshold (default 0.5).

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with several,
            `result()` has one count per threshold.
        name: the metric's name in logs (default 'false_positives').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.FalsePositives()([0, 1, 0, 0], [0, 0, 1, 1]))
        2.0
    """

    _cell = 1


class TrueNegatives(_ConfusionCount):
    """The (weighted) number of negative labels predicted at or below each threshold.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with several,
            `result()` has one count per threshold.
        name: the metric's name in logs (default 'true_negatives').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.TrueNegatives()([0, 1, 0, 0], [1, 1, 0, 0]))
        2.0
    """

    _cell = 2


class FalseNegatives(_ConfusionCount):
    """The (weighted) number of positive labels predicted at or below each threshold.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with several,
            `result()` has one count per threshold.
        name: the metric's name in logs (default 'false_negatives').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.FalseNegatives()([0, 1, 1, 1], [0, 1, 0, 0]))
        2.0
    """

    _cell = 3


# ---------------------------------------------------------------- one rate at a fixed other


class _RateAtRate(_ConfusionMetric):
    """The best `dependent` rate over thresholds where the `constrained` rate is >= `value`.

    As Keras: `num_thresholds` thresholds 0, 1/(n-1), ..., 1 (just 0.5 when
    n is 1), prediction p positive when p > t, and 0 when no threshold
    meets the constraint.
    """

    _value_name = ""  # the constructor argument naming the fixed rate, e.g. 'recall'

    def __init__(self, value, num_thresholds: int = 200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        what = self._describe()
        value = float(value)
        if not 0.0 <= value <= 1.0:
            raise InvalidArgumentError(
                f"{what}: {self._value_name} must be in [0, 1], got {value}"
            )
        if int(num_thresholds) <= 0:
            raise InvalidArgumentError(
                f"{what}: num_thresholds must be a positive integer, got {num_thresholds}"
            )
        self.value = value
        self.num_thresholds = int(num_thresholds)
        self.class_id = None if class_id is None else int(class_id)
        n = self.num_thresholds
        values = [0.5] if n == 1 else [i / (n - 1) for i in range(n)]
        self._init_thresholds(values)
        shape = (len(values),)
        self.true_positives = self.add_weight("true_positives", shape)
        self.false_positives = self.add_weight("false_positives", shape)
        self.true_negatives = self.add_weight("true_negatives", shape)
        self.false_negatives = self.add_weight("false_negatives", shape)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        tp, fp, tn, fn = self._confusion(y_true, y_pred, sample_weight, self.class_id)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.true_negatives.assign_add(tn)
        self.false_negatives.assign_add(fn)

    def _rates(self) -> tuple:
        """(constrained, dependent) rates per threshold."""
        raise NotImplementedError

    def result(self) -> Tensor:
        constrained, dependent = self._rates()
        feasible = math_ops.greater_equal(constrained, self.value)
        return reduction_ops.reduce_max(
            math_ops.where(feasible, dependent, creation_ops.zeros_like(dependent))
        )

    def _recall(self) -> Tensor:
        tp = self.true_positives
        return divide_no_nan(tp, tp + self.false_negatives)

    def _precision(self) -> Tensor:
        tp = self.true_positives
        return divide_no_nan(tp, tp + self.false_positives)

    def _specificity(self) -> Tensor:
        tn = self.true_negatives
        return divide_no_nan(tn, tn + self.false_positives)

    def get_config(self) -> dict:
        return {
            **Metric.get_config(self),
            self._value_name: self.value,
            "num_thresholds": self.num_thresholds,
            "class_id": self.class_id,
        }


class PrecisionAtRecall(_RateAtRate):
    """The best precision over the thresholds whose recall is >= `recall`.

    Args:
        recall: the minimum recall, in [0, 1].
        num_thresholds: thresholds 0, 1/(n-1), ..., 1 to search (default 200).
        class_id: compute the metric for this column of y_pred only.
        name, dtype: as for every metric.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.PrecisionAtRecall(0.5)
        >>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
        0.5
    """

    _value_name = "recall"

    def __init__(self, recall, num_thresholds: int = 200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        return self._recall(), self._precision()


class RecallAtPrecision(_RateAtRate):
    """The best recall over the thresholds whose precision is >= `precision`.

    Args:
        precision: the least precision accepted, in [0, 1].
        num_thresholds: how many thresholds, evenly spaced over [0, 1], are tried.
        class_id: compute the metric for this column of y_pred only.
        name: the metric's name in logs (default 'recall_at_precision').
        dtype: the dtype of the state and the result (default float32).

    Raises:
        InvalidArgumentError: if precision is outside [0, 1] or num_thresholds is not a
            positive integer.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.RecallAtPrecision(0.8)
        >>> float(m([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]))
        0.5
    """

    _value_name = "precision"

    def __init__(
        self, precision, num_thresholds: int = 200, class_id=None, name=None, dtype=None
    ):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        return self._precision(), self._recall()


class SensitivityAtSpecificity(_RateAtRate):
    """The best sensitivity (recall) over the thresholds whose specificity is >= `specificity`.

    Args:
        specificity: the least specificity accepted, in [0, 1].
        num_thresholds: how many thresholds, evenly spaced over [0, 1], are tried.
        class_id: compute the metric for this column of y_pred only.
        name: the metric's name in logs (default 'sensitivity_at_specificity').
        dtype: the dtype of the state and the result (default float32).

    Raises:
        InvalidArgumentError: if specificity is outside [0, 1] or num_thresholds is not a
            positive integer.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.SensitivityAtSpecificity(0.5)
        >>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
        0.5
    """

    _value_name = "specificity"

    def __init__(
        self, specificity, num_thresholds: int = 200, class_id=None, name=None, dtype=None
    ):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        return self._specificity(), self._recall()


class SpecificityAtSensitivity(_RateAtRate):
    """The best specificity over the thresholds whose sensitivity (recall) is >= `sensitivity`.

    Args:
        sensitivity: the least sensitivity accepted, in [0, 1].
        num_thresholds: how many thresholds, evenly spaced over [0, 1], are tried.
        class_id: compute the metric for this column of y_pred only.
        name: the metric's name in logs (default 'specificity_at_sensitivity').
        dtype: the dtype of the state and the result (default float32).

    Raises:
        InvalidArgumentError: if sensitivity is outside [0, 1] or num_thresholds is not a
            positive integer.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.SpecificityAtSensitivity(0.5)
        >>> round(float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])), 4)
        0.6667
    """

    _value_name = "sensitivity"

    def __init__(
        self, sensitivity, num_thresholds: int = 200, class_id=None, name=None, dtype=None
    ):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        return self._recall(), self._specificity()
