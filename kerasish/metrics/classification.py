"""Accuracy metrics: per-example functions and their streaming-mean classes.

Every function returns one 0/1 value per example (per element for the
elementwise ones); the classes average them with `MeanMetricWrapper`, so
`sample_weight` means the same thing everywhere. `from_logits=True` is
accepted by all of them: it changes the answer for the thresholded binary
accuracy (the threshold applies to sigmoid(logits)) and is a no-op for the
argmax-based ones (softmax keeps the order of the logits).
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import activation_ops, indexing_ops, math_ops, reduction_ops, shape_ops
from kerasish.metrics.base import as_float, as_pair, match_shapes
from kerasish.metrics.reduction import MeanMetricWrapper


def _hits(condition):
    return math_ops.cast(condition, np.float32)


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred elementwise, else 0.0.

    Args:
        y_true: the labels.
        y_pred: the predictions, y_true's shape.

    Returns:
        1.0 or 0.0 per element (float32).

    Raises:
        InvalidArgumentError: if the shapes differ.

    Example:
        >>> import kerasish as ks
        >>> ks.metrics.accuracy([1, 2, 3], [1, 2, 0]).numpy()
        array([1., 1., 0.], dtype=float32)
    """
    y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), "accuracy")
    return _hits(math_ops.equal(y_true, y_pred))


def binary_accuracy(y_true, y_pred, threshold: float = 0.5, from_logits: bool = False):
    """1.0 where (y_pred > threshold) equals y_true elementwise (labels 0/1 or booleans).

    With `from_logits=True` the threshold applies to sigmoid(y_pred).

    Args:
        y_true: 0/1 (or boolean) labels.
        y_pred: scores, y_true's shape.
        threshold: predictions above it count as 1.
        from_logits: apply the threshold to sigmoid(y_pred).

    Returns:
        1.0 or 0.0 per element (float32).

    Example:
        >>> import kerasish as ks
        >>> ks.metrics.binary_accuracy([1, 0, 1], [0.9, 0.6, 0.2]).numpy()
        array([1., 0., 0.], dtype=float32)
    """
    y_true, y_pred = match_shapes(*as_pair(y_true, y_pred), "binary_accuracy")
    y_pred = as_float(y_pred)
    if from_logits:
        y_pred = activation_ops.sigmoid(y_pred)
    predicted = math_ops.cast(math_ops.greater(y_pred, float(threshold)), y_true.dtype)
    return _hits(math_ops.equal(y_true, predicted))


def _check_classes(y_pred, what: str, hint: str) -> int:
    if y_pred.ndim < 1 or y_pred.shape[-1] < 2:
        raise InvalidArgumentError(
            f"{what}: y_pred of shape {y_pred.shape} does not have a class dimension of size "
            f">= 2 (an argmax over one class is always right); {hint}"
        )
    return y_pred.shape[-1]


def _sparse_labels(y_true, y_pred, what: str):
    """Class-index labels of shape y_pred.shape[:-1]; (batch, 1) is squeezed to (batch,).
    Floats holding whole numbers are cast to integers (as Keras takes them); 2.5 is an error."""
    if y_true.ndim == y_pred.ndim and y_true.ndim and y_true.shape[-1] == 1:
        y_true = shape_ops.squeeze(y_true, -1)
    if y_true.shape != y_pred.shape[:-1]:
        raise InvalidArgumentError(
            f"{what}: y_true has shape {y_true.shape} but y_pred has shape {y_pred.shape}; "
            f"sparse labels are class indices of shape {y_pred.shape[:-1]} (or "
            f"{y_pred.shape[:-1] + (1,)}). For one-hot labels use the categorical metric"
        )
    return indexing_ops.integer_ids(y_true, what, "y_true")


def categorical_accuracy(y_true, y_pred, from_logits: bool = False):
    """1.0 where argmax(y_pred) == argmax(y_true) (one-hot labels), per example.

    Args:
        y_true: (..., C) one-hot labels.
        y_pred: (..., C) scores.
        from_logits: accepted for Keras's signature; argmax is the same on logits.
        from_sorted_ids: y_pred holds class ids sorted from the highest score down,
            shape (..., N), rather than scores (Keras's argument): a hit is y_true among
            its first k.

    Returns:
        1.0 or 0.0 per example, shape (...).

    Raises:
        InvalidArgumentError: if the shapes differ (suggesting the sparse form for
            class-index labels) or C < 2.

    Example:
        >>> import kerasish as ks
        >>> ks.metrics.categorical_accuracy([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true, y_pred = as_pair(y_true, y_pred)
    what = "categorical_accuracy"
    if y_true.shape != y_pred.shape:
        hint = (
            "; labels of shape (batch,) or (batch, 1) are class indices: use "
            "sparse_categorical_accuracy"
            if y_true.shape == y_pred.shape[:-1] or y_true.shape == y_pred.shape[:-1] + (1,)
            else ""
        )
        raise InvalidArgumentError(
            f"{what}: y_true has shape {y_true.shape} but y_pred has shape {y_pred.shape}; "
            f"one-hot labels must have the shape of y_pred{hint}"
        )
    _check_classes(y_pred, what, "for one output unit use binary_accuracy")
    return _hits(math_ops.equal(reduction_ops.argmax(y_true, -1), reduction_ops.argmax(y_pred, -1)))


def sparse_categorical_accuracy(y_true, y_pred, from_logits: bool = False):
    """1.0 where argmax(y_pred) equals the integer label, per example.

    Labels have shape (batch,) or (batch, 1); a label outside [0, classes) is never right.

    Args:
        y_true: class indices, shape (...) or (..., 1).
        y_pred: (..., C) scores.
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Returns:
        1.0 or 0.0 per example, shape (...).

    Raises:
        InvalidArgumentError: if the label shape does not fit y_pred, a label is a
            non-integral float, or C < 2.

    Example:
        >>> import kerasish as ks
        >>> ks.metrics.sparse_categorical_accuracy([1, 0], [[0.2, 0.8], [0.3, 0.7]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true, y_pred = as_pair(y_true, y_pred)
    what = "sparse_categorical_accuracy"
    _check_classes(y_pred, what, "for one output unit use binary_accuracy")
    labels = _sparse_labels(y_true, y_pred, what)
    return _hits(math_ops.equal(labels, reduction_ops.argmax(y_pred, -1)))


def _in_top_k(labels, y_pred, k: int):
    """True where the label's score is among the k largest (ties at the boundary count as in).

    That is TF's `in_top_k`: fewer than k classes score strictly higher than
    the label. A label outside [0, classes) is never in the top k.
    """
    if k < 1:
        raise InvalidArgumentError(f"top-k accuracy: k must be >= 1, got {k}")
    if labels.dtype.kind not in "iu":
        labels = math_ops.cast(labels, np.int64)
    mask = indexing_ops.one_hot(labels, y_pred.shape[-1], on_value=True, off_value=False,
                                dtype=bool)
    label_score = reduction_ops.reduce_sum(math_ops.where(mask, y_pred, 0.0), axis=-1,
                                           keepdims=True)
    higher = reduction_ops.reduce_sum(
        math_ops.cast(math_ops.greater(y_pred, label_score), np.int32), axis=-1
    )
    return math_ops.logical_and(math_ops.less(higher, k), reduction_ops.reduce_any(mask, axis=-1))


def top_k_categorical_accuracy(y_true, y_pred, k: int = 5, from_logits: bool = False):
    """1.0 where the one-hot label's class is among the k highest scores, per example.

    Args:
        y_true: (..., C) one-hot labels.
        y_pred: (..., C) scores.
        k: how many of the highest scores count.
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Returns:
        1.0 or 0.0 per example, shape (...).

    Raises:
        InvalidArgumentError: if the shapes differ, C < 2 or k < 1.

    Example:
        >>> import kerasish as ks
        >>> y_true = [[0, 0, 1], [1, 0, 0]]
        >>> y_pred = [[0.1, 0.5, 0.4], [0.1, 0.2, 0.7]]
        >>> ks.metrics.top_k_categorical_accuracy(y_true, y_pred, k=2).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true, y_pred = as_pair(y_true, y_pred)
    if y_true.shape != y_pred.shape:
        raise InvalidArgumentError(
            f"top_k_categorical_accuracy: y_true has shape {y_true.shape} but y_pred has shape "
            f"{y_pred.shape}; one-hot labels must have the shape of y_pred (for class indices "
            "use sparse_top_k_categorical_accuracy)"
        )
    _check_classes(y_pred, "top_k_categorical_accuracy", "use binary_accuracy")
    return _hits(_in_top_k(reduction_ops.argmax(y_true, -1), as_float(y_pred), int(k)))


def sparse_top_k_categorical_accuracy(y_true, y_pred, k: int = 5, from_logits: bool = False,
                                      from_sorted_ids: bool = False):
    """1.0 where the integer label is among the k highest scores, per example.

    Args:
        y_true: class indices, shape (...) or (..., 1).
        y_pred: (..., C) scores.
        k: how many of the highest scores count.
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Returns:
        1.0 or 0.0 per example, shape (...).

    Raises:
        InvalidArgumentError: if the label shape does not fit y_pred, a label is a
            non-integral float, C < 2 or k < 1.

    Example:
        >>> import kerasish as ks
        >>> y_pred = [[0.1, 0.5, 0.4], [0.1, 0.2, 0.7]]
        >>> ks.metrics.sparse_top_k_categorical_accuracy([2, 0], y_pred, k=2).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true, y_pred = as_pair(y_true, y_pred)
    what = "sparse_top_k_categorical_accuracy"
    if from_sorted_ids:
        labels = shape_ops.reshape(y_true, y_pred.shape[:-1] + (1,))
        top = y_pred[..., : int(k)]
        return _hits(reduction_ops.reduce_any(math_ops.equal(
            math_ops.cast(labels, top.dtype), top), -1))
    _check_classes(y_pred, what, "use binary_accuracy")
    labels = _sparse_labels(y_true, y_pred, what)
    return _hits(_in_top_k(labels, as_float(y_pred), int(k)))


# ---------------------------------------------------------------- classes


class Accuracy(MeanMetricWrapper):
    """How often y_pred equals y_true, elementwise (weighted mean of `accuracy`).

    Args:
        name: the metric's name in logs (default 'accuracy').
        dtype: the dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.Accuracy()([1, 2, 3, 4], [0, 2, 3, 4]))
        0.75
    """

    _default_name = "accuracy"

    def __init__(self, name: str | None = None, dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often (y_pred > threshold) matches the 0/1 labels.

    Args:
        name, dtype: as for every metric (default name 'binary_accuracy').
        threshold: predictions above it count as 1.
        from_logits: y_pred are logits; the threshold applies to sigmoid(y_pred).

    Example:
        >>> import kerasish as ks
        >>> float(ks.metrics.BinaryAccuracy()([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]))
        0.75
        >>> float(ks.metrics.BinaryAccuracy(from_logits=True)([1, 0], [2.0, -1.0]))
        1.0
    """

    _default_name = "binary_accuracy"

    def __init__(
        self,
        name: str | None = None,
        dtype=None,
        threshold: float = 0.5,
        from_logits: bool = False,
    ):
        super().__init__(
            binary_accuracy, name=name, dtype=dtype, threshold=threshold, from_logits=from_logits
        )
        self.threshold = float(threshold)
        self.from_logits = bool(from_logits)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often argmax(y_pred) matches argmax of the one-hot labels.

    Args:
        name: the metric's name in logs (default 'categorical_accuracy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.CategoricalAccuracy()
        >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    _default_name = "categorical_accuracy"

    def __init__(self, name: str | None = None, dtype=None, from_logits: bool = False):
        super().__init__(categorical_accuracy, name=name, dtype=dtype, from_logits=from_logits)
        self.from_logits = bool(from_logits)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often argmax(y_pred) matches the integer labels (shape (batch,) or (batch, 1)).

    Args:
        name: the metric's name in logs (default 'sparse_categorical_accuracy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.SparseCategoricalAccuracy()
        >>> float(m([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]))
        0.5
    """

    _default_name = "sparse_categorical_accuracy"

    def __init__(self, name: str | None = None, dtype=None, from_logits: bool = False):
        super().__init__(
            sparse_categorical_accuracy, name=name, dtype=dtype, from_logits=from_logits
        )
        self.from_logits = bool(from_logits)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the `k` highest scores.

    Args:
        k: how many of the highest scores count.
        name: the metric's name in logs (default 'top_k_categorical_accuracy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.TopKCategoricalAccuracy(k=1)
        >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    _default_name = "top_k_categorical_accuracy"

    def __init__(self, k: int = 5, name: str | None = None, dtype=None, from_logits: bool = False):
        super().__init__(
            top_k_categorical_accuracy, name=name, dtype=dtype, k=int(k), from_logits=from_logits
        )
        self.k = int(k)
        self.from_logits = bool(from_logits)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the `k` highest scores.

    Args:
        k: how many of the highest scores count.
        name: the metric's name in logs (default 'sparse_top_k_categorical_accuracy').
        dtype: the dtype of the state and the result (default float32).
        from_logits: accepted for Keras's signature; argmax is the same on logits.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.SparseTopKCategoricalAccuracy(k=1)
        >>> float(m([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    _default_name = "sparse_top_k_categorical_accuracy"

    def __init__(self, k: int = 5, name: str | None = None, dtype=None, from_logits: bool = False,
                 from_sorted_ids: bool = False):
        super().__init__(
            sparse_top_k_categorical_accuracy,
            name=name,
            dtype=dtype,
            k=int(k),
            from_logits=from_logits,
            from_sorted_ids=bool(from_sorted_ids),
        )
        self.k = int(k)
        self.from_logits = bool(from_logits)
        self.from_sorted_ids = bool(from_sorted_ids)
