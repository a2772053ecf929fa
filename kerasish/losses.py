"""Losses: per-example functions and Keras-style `Loss` objects.

Functions (``mean_squared_error(y_true, y_pred)``, ...) return one loss per
example: they reduce the last axis, as in Keras, so a (batch, d) prediction
gives a (batch,) loss. Every function is a composition of kerasish ops, so its
gradients (and gradients of gradients) come from the tape with no loss-specific
rules.

Shapes: if y_true and y_pred differ in rank by one and the longer one ends in a
1, they are aligned as Keras does (a (batch,) target against a (batch, 1)
prediction is expanded to (batch, 1), never broadcast to (batch, batch)).
After that y_true must broadcast to y_pred's shape; anything else raises an
error that prints both shapes.

Weighted reduction (the one definition, `compute_weighted_loss`, used by every
`Loss` object and by string names resolved with `get`): with per-example losses
``l`` (any shape) and ``w = sample_weight`` (broadcast to ``l``'s shape, default 1):

- ``'sum_over_batch_size'`` (default): ``sum(w * l) / N``, where N is the
  number of elements of ``l``, *not* ``sum(w)``; so a weight of 0 still counts in
  N, as in Keras. An empty batch gives 0.
- ``'sum'``: ``sum(w * l)``.
- ``'none'``: ``w * l``, unreduced.
- ``'mean_with_sample_weight'``: ``sum(w * l) / sum(w)`` (Keras 3: the weights as
  given, not broadcast), ``'sum_over_batch_size'`` when no weights are given.

A mask (``SparseCategoricalCrossentropy(ignore_class=...)`` makes one) leaves
its False positions out of the sum, of N and of ``sum(w)``.

Huber: `huber` and `Huber` follow the standard definition (and Keras's):
``0.5 * t**2`` for ``|t| <= delta`` and ``delta * (|t| - 0.5 * delta)`` outside,
``t = y_pred - y_true``. Stanford's CS20 lecture notes define Huber as ``t**2`` inside
and ``m * (2|t| - m)`` outside, which is exactly twice this (same minimizer,
gradients twice as large).

Cross-entropies: with ``from_logits=True`` they use the fused, stable ops of
`ks.nn` (``sigmoid_cross_entropy_with_logits``,
``softmax_cross_entropy_with_logits``,
``sparse_softmax_cross_entropy_with_logits``), finite at any logit. On
probabilities they clip to ``[EPSILON, 1 - EPSILON]`` (``EPSILON = 1e-7``, as
Keras) before the log, and the categorical forms first renormalize each row to
sum to 1. Probabilities outside [0, 1] give a warning that suggests
``from_logits=True``.

Example:
    >>> import kerasish as ks
    >>> ks.losses.mean_squared_error([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]]).numpy()
    array([0.5, 0.5], dtype=float32)
    >>> float(ks.losses.MeanSquaredError()([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]]))
    0.5
    >>> float(ks.losses.get("mse")([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]], [1., 0.]))
    0.25
"""

from __future__ import annotations

import difflib
import math
import warnings

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import symbolic_fallback
from kerasish.core.naming import snake_case
from kerasish.core.ops import array_ops, math_ops, nn_ops
from kerasish.core.serialization import deserialize_keras_object
from kerasish.core.tensor import Tensor, convert_to_tensor

EPSILON = 1e-7
"""Probabilities are clipped to [EPSILON, 1 - EPSILON] before a log (Keras's value)."""

__all__ = [
    "EPSILON",
    "Reduction",
    "compute_weighted_loss",
    "mean_squared_error",
    "mean_absolute_error",
    "huber",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "log_cosh",
    "kl_divergence",
    "poisson",
    "cosine_similarity",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "dice",
    "tversky",
    "circle",
    "categorical_generalized_cross_entropy",
    "mse",
    "MSE",
    "mae",
    "MAE",
    "mape",
    "MAPE",
    "msle",
    "MSLE",
    "logcosh",
    "kld",
    "KLD",
    "kullback_leibler_divergence",
    "Loss",
    "LossFunctionWrapper",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "Huber",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "LogCosh",
    "KLDivergence",
    "Poisson",
    "CosineSimilarity",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "Dice",
    "Tversky",
    "Circle",
    "CategoricalGeneralizedCrossEntropy",
    "get",
    "serialize",
    "deserialize",
]


# ---------------------------------------------------------------- shared helpers


def _prediction(y_pred, name: str) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    if y_pred.dtype.kind != "f":
        y_pred = math_ops.cast(y_pred, np.float32)
    return y_pred


def _align_ranks(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Keras's squeeze-or-expand: make ranks equal when they differ by a trailing 1."""
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        if b.ndim == 1:
            return a, array_ops.expand_dims(b, -1)
        return array_ops.squeeze(a, -1), b
    if b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        if a.ndim == 1:
            return array_ops.expand_dims(a, -1), b
        return a, array_ops.squeeze(b, -1)
    return a, b


def _prepare(y_true, y_pred, name: str, exact: bool = False) -> tuple[Tensor, Tensor]:
    """y_true cast to y_pred's float dtype, ranks aligned, broadcast to y_pred's shape.

    Broadcasting is allowed only from a scalar or between equal ranks (size-1
    axes), never by prepending axes: (n,) against (n, n) is an error, not an
    outer difference. With `exact`, shapes must be equal after rank alignment.
    """
    y_pred = _prediction(y_pred, name)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = _align_ranks(y_true, y_pred)
    shape = None
    if y_true.shape == y_pred.shape or (
        not exact and (y_true.ndim == 0 or y_true.ndim == y_pred.ndim)
    ):
        try:
            shape = np.broadcast_shapes(y_true.shape, y_pred.shape)
        except ValueError:
            pass
    if shape != y_pred.shape:
        raise InvalidArgumentError(
            f"{name}: y_true shape {y_true.shape} does not match y_pred shape {y_pred.shape}; "
            "give targets with the prediction's shape"
            + (
                " (integer class ids need sparse_categorical_crossentropy)"
                if exact and y_true.ndim + 1 == y_pred.ndim
                else ""
            )
        )
    if y_true.shape != y_pred.shape:
        y_true = array_ops.broadcast_to(y_true, y_pred.shape)
    return y_true, y_pred


def _mean_last_axis(values: Tensor) -> Tensor:
    return math_ops.reduce_mean(values, -1) if values.ndim else values


_warned_not_probabilities: set = set()


def _warn_if_not_probabilities(y_pred: Tensor, name: str) -> None:
    """Warn once per loss name when 'probabilities' look like logits."""
    if y_pred.size == 0 or name in _warned_not_probabilities:
        return
    xp = backend.array_module(y_pred._value)
    low, high = backend.to_numpy(xp.stack([y_pred._value.min(), y_pred._value.max()])).tolist()
    if low < 0 or high > 1.001:
        _warned_not_probabilities.add(name)
        warnings.warn(
            f"{name}: y_pred holds values in [{low:.4g}, {high:.4g}], outside [0, 1], but "
            "from_logits=False treats them as probabilities (they are clipped); if the model "
            "outputs logits, pass from_logits=True",
            stacklevel=3,
        )


def _check_label_smoothing(label_smoothing: float, name: str) -> float:
    label_smoothing = float(label_smoothing)
    if not 0 <= label_smoothing <= 1:
        raise InvalidArgumentError(
            f"{name}: label_smoothing must be in [0, 1], got {label_smoothing}"
        )
    return label_smoothing


# ---------------------------------------------------------------- regression losses


@symbolic_fallback  # on symbolic tensors of unknown batch size: one node
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


@symbolic_fallback
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


@symbolic_fallback
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


# ---------------------------------------------------------------- cross-entropies


@symbolic_fallback
def binary_crossentropy(y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0):
    """Binary cross-entropy, averaged over the last axis: one value per example.

    Args:
        y_true: targets in [0, 1] (0/1 labels), any dtype.
        y_pred: probabilities, or logits with ``from_logits=True``.
        from_logits: use the stable ``max(x, 0) - x*z + log(1 + e**-|x|)``.
        label_smoothing: squeeze targets towards 0.5: ``z * (1 - s) + 0.5 * s``.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.binary_crossentropy([[1.]], [[1e4]], from_logits=True).numpy()
        array([0.], dtype=float32)
    """
    name = "binary_crossentropy"
    label_smoothing = _check_label_smoothing(label_smoothing, name)
    y_true, y_pred = _prepare(y_true, y_pred, name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return _mean_last_axis(nn_ops.sigmoid_cross_entropy_with_logits(y_true, y_pred))
    _warn_if_not_probabilities(y_pred, name)
    p = array_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    loss = y_true * math_ops.log(p) + (1.0 - y_true) * math_ops.log(1.0 - p)
    return _mean_last_axis(math_ops.negative(loss))


def _check_classes(y_pred: Tensor, name: str) -> None:
    if y_pred.ndim == 0:
        raise InvalidArgumentError(f"{name}: y_pred must have a class axis (last), got a scalar")
    if y_pred.shape[-1] == 1:
        raise InvalidArgumentError(
            f"{name}: y_pred has shape {y_pred.shape}, a single class along the last axis, "
            "for which the categorical cross-entropy is identically 0 (nothing would be "
            "learned). For one sigmoid output with 0/1 labels use binary_crossentropy; for C "
            "classes the model must output C values per example"
        )


@symbolic_fallback
def categorical_crossentropy(
    y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0
):
    """Cross-entropy of one-hot (or soft) targets over the last (class) axis.

    Args:
        y_true: (..., C) one-hot or probability targets.
        y_pred: (..., C) probabilities (renormalized per row, then clipped), or
            logits with ``from_logits=True`` (fused, stable softmax cross-entropy).
        label_smoothing: ``y_true * (1 - s) + s / C``.

    Raises:
        InvalidArgumentError: if C is 1 (a (batch, 1) output), where the loss would
            be 0 whatever the model does; or if the shapes differ.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.categorical_crossentropy([[0., 1.]], [[0.5, 0.5]]).numpy()
        array([0.6931472], dtype=float32)
    """
    name = "categorical_crossentropy"
    label_smoothing = _check_label_smoothing(label_smoothing, name)
    y_pred = _prediction(y_pred, name)
    _check_classes(y_pred, name)
    y_true, y_pred = _prepare(y_true, y_pred, name, exact=True)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[-1]
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(y_true, y_pred)
    _warn_if_not_probabilities(y_pred, name)
    log_p = _clipped_log_probabilities(y_pred)
    return math_ops.negative(math_ops.reduce_sum(y_true * log_p, -1))


def _clipped_log_probabilities(y_pred: Tensor) -> Tensor:
    """log of rows renormalized to sum to 1 and clipped to [EPSILON, 1 - EPSILON]."""
    p = y_pred / math_ops.reduce_sum(y_pred, -1, keepdims=True)
    return math_ops.log(array_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON))


def _format_index(index) -> str:
    return ", ".join(str(int(i)) for i in index)


def _sparse_labels(y_true, y_pred: Tensor, name: str) -> Tensor:
    """Validated int64 class ids of shape y_pred.shape[:-1]."""
    labels = convert_to_tensor(y_true)
    classes = y_pred.shape[-1]
    expected = y_pred.shape[:-1]
    if labels.shape != expected and labels.shape != expected + (1,):
        hint = ""
        if labels.shape == y_pred.shape:
            hint = "; labels shaped like y_pred look one-hot: use categorical_crossentropy"
        raise InvalidArgumentError(
            f"{name}: y_true shape {labels.shape} does not fit y_pred shape {y_pred.shape}: "
            f"expected integer class ids of shape {expected} or {expected + (1,)}{hint}"
        )
    labels = array_ops.integer_ids(labels, name, "y_true")
    ids = labels._value
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= classes):
        host = np.asarray(backend.to_numpy(ids))
        where = np.argwhere((host < 0) | (host >= classes))[0] if host.ndim else ()
        value = int(host[tuple(where)])
        hint = (
            "; for 0/1 labels with one sigmoid output use binary_crossentropy"
            if classes == 1
            else ""
        )
        raise InvalidArgumentError(
            f"{name}: y_true[{_format_index(where)}] = {value} is not a valid class id in "
            f"[0, {classes}) (y_pred has {classes} classes along its last axis){hint}"
        )
    return array_ops.reshape(math_ops.cast(labels, np.int64), expected)


@symbolic_fallback
def sparse_categorical_crossentropy(
    y_true, y_pred, from_logits: bool = False, ignore_class: int | None = None
):
    """Cross-entropy of integer class ids against per-class scores (last axis).

    Args:
        y_true: class ids of shape y_pred.shape[:-1] (or with a trailing 1, e.g.
            (batch,) or (batch, 1)); integers, or floats holding integral values.
        y_pred: (..., C) probabilities (renormalized per row, then clipped), or
            logits with ``from_logits=True`` (fused, stable op).
        ignore_class: a label value (e.g. -1 or 255 for "void" pixels) whose
            positions get a loss of 0; it need not be a valid class id.
            `SparseCategoricalCrossentropy` also leaves them out of the mean.

    Raises:
        InvalidArgumentError: naming this loss and the bad value, for a label
            outside [0, C), a non-integral float label, or a label shape that
            does not fit y_pred.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.sparse_categorical_crossentropy([1], [[0.5, 0.5]]).numpy()
        array([0.6931472], dtype=float32)
    """
    return _sparse_crossentropy_and_mask(y_true, y_pred, from_logits, ignore_class)[0]


def _sparse_crossentropy_and_mask(y_true, y_pred, from_logits: bool, ignore_class):
    """(per-example losses, boolean mask of the counted positions or None)."""
    name = "sparse_categorical_crossentropy"
    y_pred = _prediction(y_pred, name)
    if y_pred.ndim == 0:
        raise InvalidArgumentError(f"{name}: y_pred must have a class axis (last), got a scalar")
    valid = None
    if ignore_class is not None:
        y_true = convert_to_tensor(y_true)
        valid = math_ops.not_equal(y_true, ignore_class)
        y_true = math_ops.where(valid, y_true, array_ops.zeros_like(y_true))
    labels = _sparse_labels(y_true, y_pred, name)
    if from_logits:
        loss = nn_ops.sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    else:
        _warn_if_not_probabilities(y_pred, name)
        log_p = _clipped_log_probabilities(y_pred)
        hot = array_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
        loss = math_ops.negative(math_ops.reduce_sum(hot * log_p, -1))
    if valid is not None:
        valid = array_ops.reshape(valid, labels.shape)
        loss = math_ops.where(valid, loss, array_ops.zeros_like(loss))
    return loss, valid


@symbolic_fallback
def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / max(|y_true|, EPSILON)) over the last axis.

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
    scale = math_ops.maximum(math_ops.abs(y_true), EPSILON)
    return _mean_last_axis(math_ops.abs(y_true - y_pred) / scale) * 100.0


@symbolic_fallback
def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + y_pred) - log(1 + y_true)) ** 2) over the last axis.

    Values below EPSILON (zero and negatives) are raised to EPSILON first, as
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
    first = math_ops.log1p(math_ops.maximum(y_pred, EPSILON))
    second = math_ops.log1p(math_ops.maximum(y_true, EPSILON))
    return _mean_last_axis(math_ops.square(first - second))


@symbolic_fallback
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
    return _mean_last_axis(error + math_ops.softplus(error * -2.0) - math.log(2.0))


@symbolic_fallback
def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis.

    Both are clipped to [EPSILON, 1] first (Keras's rule), so zeros in either
    give finite values.

    Args:
        y_true: the target distribution along the last axis.
        y_pred: the predicted distribution, y_true's shape.

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.kl_divergence([[0.5, 0.5]], [[0.25, 0.75]])[0]), 4)
        0.1438
    """
    y_true, y_pred = _prepare(y_true, y_pred, "kl_divergence")
    y_true = array_ops.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = array_ops.clip_by_value(y_pred, EPSILON, 1.0)
    loss = y_true * math_ops.log(y_true / y_pred)
    return math_ops.reduce_sum(loss, -1) if loss.ndim else loss


@symbolic_fallback
def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + EPSILON)) over the last axis.

    Args:
        y_true: observed counts, broadcastable to y_pred's shape.
        y_pred: predicted rates (non-negative).

    Returns:
        The per-example losses, of y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.poisson([[1.]], [[2.]])[0]), 4)  # 2 - log 2
        1.3069
    """
    y_true, y_pred = _prepare(y_true, y_pred, "poisson")
    return _mean_last_axis(y_pred - y_true * math_ops.log(y_pred + EPSILON))


@symbolic_fallback
def cosine_similarity(y_true, y_pred, axis: int = -1):
    """-sum(unit(y_true) * unit(y_pred)) along `axis`: -1 for parallel vectors, 0 if either is 0.

    ``unit(x) = x / max(||x||, EPSILON)``, as Keras normalizes.

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
    axis = math_ops.normalize_axis(axis, y_pred.ndim, "cosine_similarity")
    y_true = nn_ops.l2_normalize(y_true, axis, epsilon=EPSILON * EPSILON)
    y_pred = nn_ops.l2_normalize(y_pred, axis, epsilon=EPSILON * EPSILON)
    return math_ops.negative(math_ops.reduce_sum(y_true * y_pred, axis))


def _hinge_labels(y_true: Tensor) -> Tensor:
    """Labels in {-1, 1}: all-0/1 labels are mapped with 2y - 1, any others kept (Keras's rule)."""
    values = y_true._value
    xp = backend.array_module(values)
    if bool(xp.all((values == 0) | (values == 1))):
        return y_true * 2.0 - 1.0
    return y_true


@symbolic_fallback
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


@symbolic_fallback
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


@symbolic_fallback
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
    positive = math_ops.reduce_sum(y_true * y_pred, -1)
    negative = math_ops.reduce_max((1.0 - y_true) * y_pred, -1)
    return math_ops.maximum(negative - positive + 1.0, 0.0)


def _check_focal(alpha: float, gamma: float, name: str) -> tuple[float, float]:
    alpha, gamma = float(alpha), float(gamma)
    if not gamma >= 0:
        raise InvalidArgumentError(f"{name}: gamma must be >= 0, got {gamma}")
    return alpha, gamma


def _focal_factor(miss: Tensor, gamma: float):
    """miss ** gamma; 1 for gamma = 0 (pow's gradient would be 0 * inf where miss is 0)."""
    return math_ops.pow(miss, gamma) if gamma else 1.0


@symbolic_fallback
def binary_focal_crossentropy(
    y_true,
    y_pred,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
):
    """Binary cross-entropy scaled by ``(1 - p_t) ** gamma``, averaged along `axis`.

    ``p_t = y * p + (1 - y) * (1 - p)`` is the probability given to the true
    label, so confident right answers weigh little (Lin et al., 2017). With
    `apply_class_balancing` each term is also weighted ``alpha`` for positives
    and ``1 - alpha`` for negatives. With ``from_logits=True`` the
    cross-entropy is the fused stable one and ``p = sigmoid(logits)``, so any
    logit gives a finite loss; on probabilities, p is clipped to
    [EPSILON, 1 - EPSILON] in the log as for `binary_crossentropy`.

    Args:
        y_true: 0/1 targets, broadcastable to y_pred's shape.
        y_pred: probabilities, or logits with ``from_logits=True``.
        apply_class_balancing: weigh positives by `alpha` and negatives by ``1 - alpha``.
        alpha: the positives' weight when balancing.
        gamma: the focusing exponent, >= 0 (0 gives plain binary cross-entropy).
        from_logits: whether y_pred holds logits.
        label_smoothing: squeeze targets towards 0.5: ``y * (1 - s) + 0.5 * s``.
        axis: the axis averaged over.

    Returns:
        The per-example losses, y_pred's shape without `axis`.

    Raises:
        InvalidArgumentError: if gamma < 0 or label_smoothing is outside [0, 1].

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.binary_focal_crossentropy([[1.]], [[0.5]])[0]), 4)
        0.1733
    """
    name = "binary_focal_crossentropy"
    alpha, gamma = _check_focal(alpha, gamma, name)
    label_smoothing = _check_label_smoothing(label_smoothing, name)
    y_true, y_pred = _prepare(y_true, y_pred, name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        cross_entropy = nn_ops.sigmoid_cross_entropy_with_logits(y_true, y_pred)
        p = math_ops.sigmoid(y_pred)
    else:
        _warn_if_not_probabilities(y_pred, name)
        p = y_pred
        clipped = array_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
        cross_entropy = math_ops.negative(
            y_true * math_ops.log(clipped) + (1.0 - y_true) * math_ops.log(1.0 - clipped)
        )
    p_true = y_true * p + (1.0 - y_true) * (1.0 - p)
    loss = _focal_factor(1.0 - p_true, gamma) * cross_entropy
    if apply_class_balancing:
        loss = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * loss
    if loss.ndim == 0:
        return loss
    return math_ops.reduce_mean(loss, math_ops.normalize_axis(axis, loss.ndim, name))


@symbolic_fallback
def categorical_focal_crossentropy(
    y_true,
    y_pred,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
):
    """Categorical cross-entropy with each class's term scaled by ``alpha * (1 - p) ** gamma``.

    On probabilities, rows are renormalized and clipped to [EPSILON, 1 - EPSILON]
    as in `categorical_crossentropy`; with ``from_logits=True`` log p is the
    stable ``log_softmax`` (no clipping), so any logit gives a finite loss.

    Args:
        y_true: (..., C) one-hot or probability targets.
        y_pred: (..., C) probabilities, or logits with ``from_logits=True``.
        alpha: the weight of every class's term.
        gamma: the focusing exponent, >= 0.
        from_logits: whether y_pred holds logits.
        label_smoothing: ``y_true * (1 - s) + s / C``.
        axis: the class axis, summed over.

    Returns:
        The per-example losses, y_pred's shape without `axis`.

    Raises:
        InvalidArgumentError: if gamma < 0, label_smoothing is outside [0, 1], C is 1 or
            the shapes differ.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.categorical_focal_crossentropy([[0., 1.]], [[0.5, 0.5]])[0]), 4)
        0.0433
    """
    name = "categorical_focal_crossentropy"
    alpha, gamma = _check_focal(alpha, gamma, name)
    label_smoothing = _check_label_smoothing(label_smoothing, name)
    y_pred = _prediction(y_pred, name)
    _check_classes(y_pred, name)
    y_true, y_pred = _prepare(y_true, y_pred, name, exact=True)
    axis = math_ops.normalize_axis(axis, y_pred.ndim, name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[axis[0]]
    if from_logits:
        log_p = nn_ops.log_softmax(y_pred, axis)
        p = math_ops.exp(log_p)
    else:
        _warn_if_not_probabilities(y_pred, name)
        p = array_ops.clip_by_value(
            y_pred / math_ops.reduce_sum(y_pred, axis, keepdims=True), EPSILON, 1.0 - EPSILON
        )
        log_p = math_ops.log(p)
    loss = _focal_factor(1.0 - p, gamma) * alpha * math_ops.negative(y_true * log_p)
    return math_ops.reduce_sum(loss, axis)



# -------------------------------------------------------- overlap and metric-learning losses


def _overlap_sums(y_true, y_pred, axis, name: str):
    """(y_true, y_pred, reduction axes) for the Dice and Tversky sums (None: all axes)."""
    y_true, y_pred = _prepare(y_true, y_pred, name)
    if axis is not None:
        axis = math_ops.normalize_axis(axis, y_pred.ndim, name)
    return y_true, y_pred, axis


@symbolic_fallback
def dice(y_true, y_pred, axis=None):
    """Dice loss: ``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + EPSILON)``.

    Args:
        y_true: targets in [0, 1] (masks), broadcastable to y_pred's shape.
        y_pred: predicted probabilities.
        axis: the axes summed over (an int or a tuple); None (Keras's default) sums
            everything, giving one scalar for the batch.

    Returns:
        The loss, y_pred's shape without `axis` (a scalar for ``axis=None``).

    Example:
        >>> import kerasish as ks
        >>> ks.losses.dice([[1., 1.], [1., 0.]], [[1., 0.], [0.5, 0.5]], axis=1).numpy()
        array([0.3333333, 0.5      ], dtype=float32)
    """
    y_true, y_pred, axis = _overlap_sums(y_true, y_pred, axis, "dice")
    intersection = math_ops.reduce_sum(y_true * y_pred, axis)
    total = math_ops.reduce_sum(y_true, axis) + math_ops.reduce_sum(y_pred, axis)
    return 1.0 - 2.0 * intersection / (total + EPSILON)


@symbolic_fallback
def tversky(y_true, y_pred, alpha: float = 0.5, beta: float = 0.5, axis=None):
    """Tversky loss: ``1 - TP / (TP + alpha * FP + beta * FN + EPSILON)`` (Salehi et al., 2017).

    With soft counts ``TP = sum(y_true * y_pred)``, ``FP = sum((1 - y_pred) * y_true)``
    and ``FN = sum(y_pred * (1 - y_true))``, named as Keras names them (so `alpha`
    weighs the target mass the prediction misses). ``alpha = beta = 0.5`` is the
    Dice loss.

    Args:
        y_true: targets in [0, 1], broadcastable to y_pred's shape.
        y_pred: predicted probabilities.
        alpha: the weight of FP.
        beta: the weight of FN.
        axis: the axes summed over; None sums everything.

    Returns:
        The loss, y_pred's shape without `axis` (a scalar for ``axis=None``).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.tversky([[1., 0.]], [[0.5, 0.5]], alpha=0.7, beta=0.3)), 4)
        0.5
    """
    y_true, y_pred, axis = _overlap_sums(y_true, y_pred, axis, "tversky")
    intersection = math_ops.reduce_sum(y_true * y_pred, axis)
    fp = math_ops.reduce_sum((1.0 - y_pred) * y_true, axis)
    fn = math_ops.reduce_sum(y_pred * (1.0 - y_true), axis)
    return 1.0 - intersection / (intersection + fp * alpha + fn * beta + EPSILON)


def _pair_masks(labels: Tensor, ref_labels: Tensor, remove_diagonal: bool):
    """(same-label, different-label) boolean (n, m) masks; same-label without i == j."""
    positive = math_ops.equal(
        array_ops.reshape(labels, (-1, 1)), array_ops.reshape(ref_labels, (1, -1))
    )
    negative = math_ops.logical_not(positive)
    if remove_diagonal:
        diagonal = array_ops.eye(positive.shape[0], positive.shape[1], dtype=np.bool_)
        positive = math_ops.logical_and(positive, math_ops.logical_not(diagonal))
    return positive, negative


def _masked_logsumexp(values: Tensor, mask: Tensor) -> Tensor:
    """logsumexp over the last axis of the `mask`ed values; a row with none gives ~ -inf.

    Masked entries are replaced by a quarter of the dtype's lowest value (not -inf) so an
    empty row stays finite in value and gradient; two such rows added still fit.
    """
    lowest = float(np.finfo(values.dtype).min) / 4
    return math_ops.reduce_logsumexp(math_ops.where(mask, values, lowest), -1)


@symbolic_fallback
def circle(
    y_true,
    y_pred,
    ref_labels=None,
    ref_embeddings=None,
    remove_diagonal: bool = True,
    gamma: float = 80,
    margin: float = 0.4,
):
    """Circle loss (Sun et al., 2020) over cosine distances of L2-normalized embeddings.

    With ``d = max(1 - y_pred @ ref_embeddings.T, 0)``, each same-label pair adds
    ``-gamma * relu(margin + d) * (margin - d)`` and each different-label pair
    ``gamma * relu(1 + margin - d) * (1 - margin - d)`` to a row's logsumexp; the loss
    of example i is ``softplus(lse_positive_i + lse_negative_i)`` (0 for an example
    with no positive or no negative pair).

    Args:
        y_true: (n,) integer labels.
        y_pred: (n, d) L2-normalized embeddings.
        ref_labels: (m,) labels of the reference embeddings (default y_true).
        ref_embeddings: (m, d) reference embeddings (default y_pred).
        remove_diagonal: leave each example's pair with itself out of the positives.
        gamma: the scale of the similarity scores.
        margin: the relaxation margin.

    Returns:
        (n,) per-example losses.

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.circle([0, 0, 1], [[1., 0.], [1., 0.], [0., 1.]], gamma=1.0)
        >>> [round(v, 4) for v in loss.numpy().tolist()]
        [0.5459, 0.5459, 0.0]
    """
    y_pred = _prediction(y_pred, "circle")
    labels = array_ops.integer_ids(convert_to_tensor(y_true), "circle", "y_true")
    ref_embeddings = y_pred if ref_embeddings is None else _prediction(ref_embeddings, "circle")
    ref_labels = (
        labels
        if ref_labels is None
        else array_ops.integer_ids(convert_to_tensor(ref_labels), "circle", "ref_labels")
    )
    distances = math_ops.maximum(
        1.0 - math_ops.matmul(y_pred, ref_embeddings, transpose_b=True), 0.0
    )
    positive, negative = _pair_masks(labels, ref_labels, remove_diagonal)
    pos_weights = math_ops.relu(margin + distances)
    neg_weights = math_ops.relu(1.0 + margin - distances)
    pos_logits = -gamma * pos_weights * (margin - distances)
    neg_logits = gamma * neg_weights * (1.0 - margin - distances)
    return math_ops.softplus(
        _masked_logsumexp(pos_logits, positive) + _masked_logsumexp(neg_logits, negative)
    )


@symbolic_fallback
def categorical_generalized_cross_entropy(y_true, y_pred, q: float):
    """Generalized cross-entropy ``(1 - p ** q) / q`` (Zhang and Sabuncu, 2018).

    `p` is the probability y_pred gives the true class: near ``q = 0`` this is the
    cross-entropy, at ``q = 1`` the mean absolute error, robust to noisy labels.

    Args:
        y_true: integer class ids, of shape y_pred.shape[:-1] (or with a trailing 1).
        y_pred: (..., C) class probabilities.
        q: the noise parameter, in (0, 1).

    Returns:
        The per-example losses, y_pred's shape without its last axis.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.categorical_generalized_cross_entropy([1], [[0.75, 0.25]], q=0.5).numpy()
        array([1.], dtype=float32)
    """
    name = "categorical_generalized_cross_entropy"
    y_pred = _prediction(y_pred, name)
    labels = _sparse_labels(y_true, y_pred, name)
    hot = array_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = math_ops.reduce_sum(y_pred * hot, -1)
    return (1.0 - math_ops.pow(p, q)) / q


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh
kld = KLD = kullback_leibler_divergence = kl_divergence


# ---------------------------------------------------------------- weighted reduction


class Reduction:
    """The reductions a `Loss` accepts (``tf.keras.losses.Reduction`` spelling)."""

    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    SUM = "sum"
    NONE = "none"
    MEAN_WITH_SAMPLE_WEIGHT = "mean_with_sample_weight"
    AUTO = "auto"  # = SUM_OVER_BATCH_SIZE

    @classmethod
    def all(cls) -> tuple:
        return (cls.SUM_OVER_BATCH_SIZE, cls.SUM, cls.NONE, cls.MEAN_WITH_SAMPLE_WEIGHT)

    @classmethod
    def validate(cls, reduction) -> str:
        """The canonical name of `reduction` (None means 'none', 'auto' the default).

        Args:
            reduction: a reduction name, 'auto' or None.

        Returns:
            One of `Reduction.all()`.

        Raises:
            InvalidArgumentError: for an unknown name, listing the valid ones.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Reduction.validate("auto")
            'sum_over_batch_size'
        """
        if reduction is None:
            return cls.NONE
        if reduction == cls.AUTO:
            return cls.SUM_OVER_BATCH_SIZE
        if reduction not in cls.all():
            raise InvalidArgumentError(
                f"unknown loss reduction {reduction!r}; use one of {list(cls.all())}"
            )
        return reduction


def compute_weighted_loss(
    losses,
    sample_weight=None,
    reduction: str = "sum_over_batch_size",
    name: str = "loss",
    mask=None,
):
    """Weight per-example `losses` by `sample_weight` and reduce them.

    The one weighted reduction of kerasish losses (see the module docstring):
    ``'sum_over_batch_size'`` gives ``sum(w * l) / N`` with N the number of
    elements of `losses` (0 for an empty batch), ``'sum'`` gives ``sum(w * l)``,
    ``'none'`` gives ``w * l``, and ``'mean_with_sample_weight'`` gives
    ``sum(w * l) / sum(w)`` (Keras 3: the sum of the weights as given, not
    broadcast to the losses' shape; without weights it is
    ``'sum_over_batch_size'``). Zero total weight gives 0.

    Args:
        losses: per-example losses, e.g. shape (batch,) or (batch, time).
        sample_weight: None, a scalar, or weights broadcastable to `losses`; a
            (batch,) weight against (batch, time) losses weighs each row, a
            (batch, 1) weight against (batch,) losses is squeezed.
        reduction: 'sum_over_batch_size' (default), 'sum', 'none' or
            'mean_with_sample_weight'.
        name: used in error messages.
        mask: None, or booleans of the losses' shape: False positions count
            neither in the sum nor in N (nor in the weight total), as Keras
            treats a mask (e.g. `SparseCategoricalCrossentropy(ignore_class=)`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.compute_weighted_loss([1., 2., 3., 4.], [1., 1., 0., 0.]))
        0.75
        >>> float(ks.losses.compute_weighted_loss(
        ...     [1., 2., 3., 4.], [1., 1., 0., 0.], reduction="mean_with_sample_weight"))
        1.5
    """
    reduction = Reduction.validate(reduction)
    losses = convert_to_tensor(losses)
    if losses.dtype.kind != "f":
        losses = math_ops.cast(losses, np.float32)
    if sample_weight is not None:
        w = math_ops.cast(convert_to_tensor(sample_weight), losses.dtype)
        if w.ndim == losses.ndim + 1 and w.shape[-1] == 1:
            w = array_ops.squeeze(w, -1)
        elif w.ndim >= 1 and w.ndim + 1 == losses.ndim:
            w = array_ops.expand_dims(w, -1)
        try:
            shape = np.broadcast_shapes(w.shape, losses.shape)
        except ValueError:
            shape = None
        if shape != losses.shape:
            hint = ""
            if losses.ndim == 0:
                hint = (
                    "; the loss reduced the last axis of rank-1 y_true/y_pred to a scalar: "
                    "give them shape (batch, 1) for one loss per example"
                )
            raise InvalidArgumentError(
                f"{name}: sample_weight shape {tuple(np.shape(sample_weight))} does not fit the "
                f"per-example losses of shape {losses.shape}{hint}"
            )
        losses = losses * w
    if mask is not None:
        mask = math_ops.cast(convert_to_tensor(mask), losses.dtype)
        if mask.shape != losses.shape:
            raise InvalidArgumentError(
                f"{name}: mask shape {mask.shape} does not match the per-example losses' "
                f"shape {losses.shape}"
            )
        losses = losses * mask
    if reduction == Reduction.NONE:
        return losses
    total = math_ops.reduce_sum(losses)
    if reduction == Reduction.SUM:
        return total
    if reduction == Reduction.MEAN_WITH_SAMPLE_WEIGHT and sample_weight is not None:
        if mask is not None:
            w = array_ops.broadcast_to(w, losses.shape) * mask
        return math_ops.divide_no_nan(total, math_ops.reduce_sum(w))  # all weights 0: 0, not NaN
    if mask is not None:
        return math_ops.divide_no_nan(total, math_ops.reduce_sum(mask))
    return total / float(max(losses.size, 1))


# ---------------------------------------------------------------- Loss objects


class Loss:
    """Base of loss objects: ``loss(y_true, y_pred, sample_weight=None)`` -> reduced loss.

    Subclasses implement ``call(y_true, y_pred)`` (given tensors) returning
    per-example losses; ``__call__`` weights and reduces them with
    `compute_weighted_loss`.

    Args:
        reduction: 'sum_over_batch_size' (default), 'sum' or 'none'.
        name: a name for logs (default: the class name in snake_case).

    Example:
        >>> import kerasish as ks
        >>> class Cube(ks.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return ks.reduce_mean(ks.abs(y_pred - y_true) ** 3, -1)
        >>> float(Cube()([[0.], [0.]], [[1.], [2.]]))
        4.5
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str | None = None):
        self.reduction = Reduction.validate(reduction)
        self.name = name or snake_case(type(self).__name__)

    def call(self, y_true, y_pred):
        """The per-example losses, before weighting and reduction; subclasses override it.

        Args:
            y_true: the targets, as a tensor.
            y_pred: the predictions, as a tensor.

        Returns:
            The unreduced losses, e.g. one per example.

        Raises:
            NotImplementedError: on a subclass that does not override it.

        Example:
            >>> import kerasish as ks
            >>> loss = ks.losses.MeanAbsoluteError()
            >>> loss.call(ks.constant([[1.], [1.]]), ks.constant([[3.], [0.]])).numpy()
            array([2., 1.], dtype=float32)
        """
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        return compute_weighted_loss(losses, sample_weight, self.reduction, self.name)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        """A loss of this class made from `get_config`'s dict.

        Args:
            config: the constructor's keyword arguments, as `get_config` returns them.

        Returns:
            A new loss equal to the one the config came from.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Huber.from_config(ks.losses.Huber(delta=2.0).get_config())
            Huber(reduction='sum_over_batch_size', name='huber_loss', delta=2.0)
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class LossFunctionWrapper(Loss):
    """A `Loss` around a per-example loss function ``fn(y_true, y_pred, **kwargs)``.

    As in Keras 3, `fn` gets y_true and y_pred with their ranks aligned when they differ
    by a trailing axis of size 1 (`_align_ranks`): (batch,) labels against a (batch, 1)
    prediction reach `fn` as (batch, 1), so ``mean(square(y_true - y_pred))`` is not an
    outer difference. `compile` wraps a plain function in this class; a `Loss` subclass
    that overrides `call` gets the tensors as they are, as in Keras.

    Args:
        fn: ``fn(y_true, y_pred, **kwargs)`` returning per-example losses.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default: fn's ``__name__``).
        **kwargs: keyword arguments passed to every call of `fn` (and kept in the config).

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.LossFunctionWrapper(lambda t, p, power: abs(p - t) ** power, power=3)
        >>> float(loss([0., 0.], [1., 2.]))
        4.5
    """

    def __init__(
        self, fn, reduction: str = "sum_over_batch_size", name: str | None = None, **kwargs
    ):
        super().__init__(reduction, name or getattr(fn, "__name__", "loss"))
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        """``fn(y_true, y_pred, **kwargs)``: the wrapped function's per-example losses.

        Args:
            y_true: the targets.
            y_pred: the predictions.

        Returns:
            What the wrapped function returns.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Huber(delta=1.0).call([[0.]], [[3.]]).numpy()
            array([2.5], dtype=float32)
        """
        y_true, y_pred = _align_ranks(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    """`mean_squared_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_squared_error').

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanSquaredError()([[0.], [0.]], [[1.], [3.]]))
        5.0
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_error"):
        super().__init__(mean_squared_error, reduction, name)


class MeanAbsoluteError(LossFunctionWrapper):
    """`mean_absolute_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_absolute_error').

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanAbsoluteError()([[0.], [0.]], [[1.], [-3.]]))
        2.0
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction, name)


class Huber(LossFunctionWrapper):
    """`huber` (standard definition, ``0.5 t**2`` inside `delta`) as a `Loss` object.

    Args:
        delta: where the quadratic part turns linear; > 0.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'huber_loss').

    Raises:
        InvalidArgumentError: if delta is not > 0.

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.Huber(delta=1.0)([[0.], [0.]], [[0.5], [3.]]))  # (0.125 + 2.5) / 2
        1.3125
    """

    def __init__(
        self, delta: float = 1.0, reduction: str = "sum_over_batch_size", name: str = "huber_loss"
    ):
        delta = float(delta)
        if not delta > 0:
            raise InvalidArgumentError(f"Huber: delta must be > 0, got {delta}")
        super().__init__(huber, reduction, name, delta=delta)


class BinaryCrossentropy(LossFunctionWrapper):
    """`binary_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``).

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], squeezes targets towards 0.5.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'binary_crossentropy').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.BinaryCrossentropy(from_logits=True)([[1.]], [[0.]])), 4)
        0.6931
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        reduction: str = "sum_over_batch_size",
        name: str = "binary_crossentropy",
    ):
        super().__init__(
            binary_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
        )


class CategoricalCrossentropy(LossFunctionWrapper):
    """`categorical_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``).

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], mixes targets with the uniform distribution.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_crossentropy').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.CategoricalCrossentropy()([[0., 1.]], [[0.5, 0.5]])), 4)
        0.6931
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
    ):
        super().__init__(
            categorical_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
        )


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """`sparse_categorical_crossentropy` as a `Loss` object.

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        ignore_class: a label value whose positions count neither in the sum nor in
            the mean (None: every position counts).
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'sparse_categorical_crossentropy').

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> round(float(loss([0, 1], [[2., 0.], [0., 2.]])), 4)
        0.1269
    """

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: str = "sum_over_batch_size",
        name: str = "sparse_categorical_crossentropy",
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            ignore_class=None if ignore_class is None else int(ignore_class),
        )

    def __call__(self, y_true, y_pred, sample_weight=None):
        """As `Loss.__call__`; positions labelled `ignore_class` are left out of the mean too."""
        losses, valid = _sparse_crossentropy_and_mask(y_true, y_pred, **self._fn_kwargs)
        return compute_weighted_loss(losses, sample_weight, self.reduction, self.name, valid)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """`mean_absolute_percentage_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_absolute_percentage_error').

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.MeanAbsolutePercentageError()([[2.], [4.]], [[1.], [5.]]))
        37.5
    """

    def __init__(
        self,
        reduction: str = "sum_over_batch_size",
        name: str = "mean_absolute_percentage_error",
    ):
        super().__init__(mean_absolute_percentage_error, reduction, name)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """`mean_squared_logarithmic_error` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'mean_squared_logarithmic_error').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.MeanSquaredLogarithmicError()([[0.]], [[1.]])), 4)
        0.4805
    """

    def __init__(
        self,
        reduction: str = "sum_over_batch_size",
        name: str = "mean_squared_logarithmic_error",
    ):
        super().__init__(mean_squared_logarithmic_error, reduction, name)


class LogCosh(LossFunctionWrapper):
    """`log_cosh` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'log_cosh').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.LogCosh()([[0.], [0.]], [[1.], [-1.]])), 4)
        0.4338
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "log_cosh"):
        super().__init__(log_cosh, reduction, name)


class KLDivergence(LossFunctionWrapper):
    """`kl_divergence` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'kl_divergence').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 4)
        0.1438
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "kl_divergence"):
        super().__init__(kl_divergence, reduction, name)


class Poisson(LossFunctionWrapper):
    """`poisson` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'poisson').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.Poisson()([[1.]], [[2.]])), 4)
        1.3069
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "poisson"):
        super().__init__(poisson, reduction, name)


class CosineSimilarity(LossFunctionWrapper):
    """`cosine_similarity` along `axis` as a `Loss` object (minimizing it aligns the vectors).

    Args:
        axis: the axis holding the vectors.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'cosine_similarity').

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
    ):
        super().__init__(cosine_similarity, reduction, name, axis=int(axis))


class Hinge(LossFunctionWrapper):
    """`hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'hinge').

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.Hinge()([[1., 0.]], [[0.5, -2.]]))
        0.25
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "hinge"):
        super().__init__(hinge, reduction, name)


class SquaredHinge(LossFunctionWrapper):
    """`squared_hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'squared_hinge').

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.SquaredHinge()([[1., 0.]], [[0.5, 2.]]))
        4.625
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "squared_hinge"):
        super().__init__(squared_hinge, reduction, name)


class CategoricalHinge(LossFunctionWrapper):
    """`categorical_hinge` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_hinge').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.CategoricalHinge()([[0., 1., 0.]], [[0.2, 0.7, 0.5]])), 4)
        0.8
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "categorical_hinge"):
        super().__init__(categorical_hinge, reduction, name)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """`binary_focal_crossentropy` as a `Loss` object.

    Args:
        apply_class_balancing: weigh positives by `alpha`, negatives by ``1 - alpha``.
        alpha: the positives' weight when balancing.
        gamma: the focusing exponent, >= 0.
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], squeezes targets towards 0.5.
        axis: the axis averaged over.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'binary_focal_crossentropy').

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.BinaryFocalCrossentropy(gamma=2.0, from_logits=True)
        >>> round(float(loss([[1.], [0.]], [[0.], [0.]])), 4)
        0.1733
    """

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "binary_focal_crossentropy",
    ):
        alpha, gamma = _check_focal(alpha, gamma, name)
        super().__init__(
            binary_focal_crossentropy,
            reduction,
            name,
            apply_class_balancing=bool(apply_class_balancing),
            alpha=alpha,
            gamma=gamma,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
            axis=int(axis),
        )


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """`categorical_focal_crossentropy` as a `Loss` object.

    Args:
        alpha: the weight of every class's term.
        gamma: the focusing exponent, >= 0.
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], mixes targets with the uniform distribution.
        axis: the class axis.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_focal_crossentropy').

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.CategoricalFocalCrossentropy()([[0., 1.]], [[0.5, 0.5]])), 4)
        0.0433
    """

    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_focal_crossentropy",
    ):
        alpha, gamma = _check_focal(alpha, gamma, name)
        super().__init__(
            categorical_focal_crossentropy,
            reduction,
            name,
            alpha=alpha,
            gamma=gamma,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
            axis=int(axis),
        )



class Dice(LossFunctionWrapper):
    """`dice` as a `Loss` object.

    Args:
        reduction: how the losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'dice').
        axis: the axes summed over; None (the default) sums everything, one loss per batch.

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.Dice(axis=1)
        >>> round(float(loss([[1., 1.], [1., 0.]], [[1., 0.], [0.5, 0.5]])), 4)  # (1/3 + 1/2) / 2
        0.4167
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "dice", axis=None):
        super().__init__(dice, reduction, name, axis=axis)


class Tversky(LossFunctionWrapper):
    """`tversky` as a `Loss` object.

    Args:
        alpha: the weight of the false positives (as `tversky` counts them).
        beta: the weight of the false negatives.
        reduction: how the losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'tversky').
        axis: the axes summed over; None (the default) sums everything.

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.Tversky(alpha=0.7, beta=0.3)([[1., 0.]], [[0.5, 0.5]])), 4)
        0.5
    """

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: str = "sum_over_batch_size",
        name: str = "tversky",
        axis=None,
    ):
        super().__init__(tversky, reduction, name, alpha=alpha, beta=beta, axis=axis)


class Circle(LossFunctionWrapper):
    """`circle` as a `Loss` object: integer labels against L2-normalized embeddings.

    As in Keras, examples whose loss is 0 (no positive or no negative pair, or all
    pairs already past the margins) are left out of the mean.

    Args:
        gamma: the scale of the similarity scores.
        margin: the relaxation margin.
        remove_diagonal: leave each example's pair with itself out of the positives.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'circle').

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.Circle(gamma=1.0)
        >>> round(float(loss([0, 0, 1], [[1., 0.], [1., 0.], [0., 1.]])), 4)  # the 0 left out
        0.5459
    """

    def __init__(
        self,
        gamma: float = 80.0,
        margin: float = 0.4,
        remove_diagonal: bool = True,
        reduction: str = "sum_over_batch_size",
        name: str = "circle",
    ):
        super().__init__(
            circle,
            reduction,
            name,
            gamma=float(gamma),
            margin=float(margin),
            remove_diagonal=bool(remove_diagonal),
        )

    def __call__(self, y_true, y_pred, sample_weight=None):
        """As `Loss.__call__`, counting only the examples whose loss is above 0."""
        losses = circle(y_true, y_pred, **self._fn_kwargs)
        return compute_weighted_loss(
            losses, sample_weight, self.reduction, self.name, math_ops.greater(losses, 0.0)
        )


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """`categorical_generalized_cross_entropy` as a `Loss` object.

    Args:
        q: the noise parameter, in (0, 1).
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_generalized_cross_entropy').

    Raises:
        InvalidArgumentError: if q is not in (0, 1).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.CategoricalGeneralizedCrossEntropy()([1], [[0.75, 0.25]]))
        1.0
    """

    def __init__(
        self,
        q: float = 0.5,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_generalized_cross_entropy",
    ):
        if not 0 < q < 1:
            raise InvalidArgumentError(f"{name}: q must be in (0, 1), got {q}")
        super().__init__(categorical_generalized_cross_entropy, reduction, name, q=float(q))


# ---------------------------------------------------------------- lookup by name

_CLASSES = {
    cls.__name__: cls
    for cls in (
        MeanSquaredError,
        MeanAbsoluteError,
        Huber,
        BinaryCrossentropy,
        CategoricalCrossentropy,
        SparseCategoricalCrossentropy,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        LogCosh,
        KLDivergence,
        Poisson,
        CosineSimilarity,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        BinaryFocalCrossentropy,
        CategoricalFocalCrossentropy,
        Dice,
        Tversky,
        Circle,
        CategoricalGeneralizedCrossEntropy,
    )
}

_NAMES = {
    "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError,
    "MSE": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError,
    "MAE": MeanAbsoluteError,
    "huber": Huber,
    "huber_loss": Huber,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "mape": MeanAbsolutePercentageError,
    "MAPE": MeanAbsolutePercentageError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "msle": MeanSquaredLogarithmicError,
    "MSLE": MeanSquaredLogarithmicError,
    "log_cosh": LogCosh,
    "logcosh": LogCosh,
    "kl_divergence": KLDivergence,
    "kld": KLDivergence,
    "KLD": KLDivergence,
    "kullback_leibler_divergence": KLDivergence,
    "poisson": Poisson,
    "cosine_similarity": CosineSimilarity,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "binary_focal_crossentropy": BinaryFocalCrossentropy,
    "categorical_focal_crossentropy": CategoricalFocalCrossentropy,
    "dice": Dice,
    "tversky": Tversky,
    "circle": Circle,
    "categorical_generalized_cross_entropy": CategoricalGeneralizedCrossEntropy,
    **_CLASSES,
}

_FUNCTIONS = {
    mean_squared_error: MeanSquaredError,
    mean_absolute_error: MeanAbsoluteError,
    huber: Huber,
    binary_crossentropy: BinaryCrossentropy,
    categorical_crossentropy: CategoricalCrossentropy,
    sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
    mean_absolute_percentage_error: MeanAbsolutePercentageError,
    mean_squared_logarithmic_error: MeanSquaredLogarithmicError,
    log_cosh: LogCosh,
    kl_divergence: KLDivergence,
    poisson: Poisson,
    cosine_similarity: CosineSimilarity,
    hinge: Hinge,
    squared_hinge: SquaredHinge,
    categorical_hinge: CategoricalHinge,
    binary_focal_crossentropy: BinaryFocalCrossentropy,
    categorical_focal_crossentropy: CategoricalFocalCrossentropy,
    dice: Dice,
    tversky: Tversky,
    circle: Circle,
}


def get(identifier) -> Loss | None:
    """Resolve a loss given by name, class, instance, function or config to a `Loss` object.

    Always returns a `Loss` (or None for None), so whoever calls it (``compile``)
    has one reduction path and a string gives exactly the values of the
    corresponding object: ``get('mse')`` is ``MeanSquaredError()``,
    ``get(ks.losses.huber)`` is ``Huber()``, any other callable
    ``fn(y_true, y_pred)`` returning per-example losses is wrapped in a
    `LossFunctionWrapper`, and a ``{'class_name': ..., 'config': ...}`` dict (from
    `serialize`) is rebuilt. String names use the default arguments
    (``from_logits=False``); pass an object for other settings.

    Raises:
        InvalidArgumentError: for an unknown name, listing the valid names.
        TypeError: for anything else.

    Args:
        identifier: None, a name ('mse'), a `Loss` class or instance, a loss function, or a
            ``{'class_name': ..., 'config': ...}`` dict.

    Returns:
        A `Loss` object (the one given, if it is one), or None for None.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.get("sparse_categorical_crossentropy")
        SparseCategoricalCrossentropy(reduction='sum_over_batch_size', \
name='sparse_categorical_crossentropy', from_logits=False, ignore_class=None)
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        cls = _NAMES.get(identifier)
        if cls is None:
            close = difflib.get_close_matches(identifier, list(_NAMES), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidArgumentError(
                f"unknown loss {identifier!r}.{hint} Valid names: {', '.join(sorted(_NAMES))}; "
                "or pass a ks.losses.Loss object or a function fn(y_true, y_pred)"
            )
        return cls()
    if isinstance(identifier, dict):  # `serialize`'s form, or Keras 3's (through the registry)
        return get(deserialize_keras_object(identifier, module_objects=_CLASSES))
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier) and identifier in _FUNCTIONS:
        return _FUNCTIONS[identifier]()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise TypeError(
        f"cannot interpret {identifier!r} as a loss; pass a name like 'mse', a "
        "ks.losses.Loss object or class, or a function fn(y_true, y_pred)"
    )


def serialize(loss: Loss) -> dict:
    """``{'class_name': ..., 'config': ...}`` for a built-in `Loss` (inverse of `get`).

    Args:
        loss: an instance of one of the built-in loss classes.

    Returns:
        A dict that `get` turns back into an equal loss.

    Raises:
        InvalidArgumentError: for a loss that is not of a built-in class.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.serialize(ks.losses.Huber(delta=2.0))["config"]["delta"]
        2.0
    """
    if type(loss).__name__ not in _CLASSES:
        raise InvalidArgumentError(
            f"serialize: only the built-in loss classes {sorted(_CLASSES)} can be serialized, "
            f"got {loss!r}"
        )
    return {"class_name": type(loss).__name__, "config": loss.get_config()}


def deserialize(name, custom_objects: dict | None = None) -> Loss:
    """The loss a `serialize` (or Keras 3) dict describes.

    Args:
        name: the ``{'class_name': ..., 'config': ...}`` dict.
        custom_objects: name -> class, for losses of your own.

    Returns:
        The rebuilt `Loss`.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.deserialize({"class_name": "Dice", "config": {"axis": [1, 2]}})
        Dice(reduction='sum_over_batch_size', name='dice', axis=[1, 2])
    """
    return deserialize_keras_object(name, custom_objects, module_objects=_CLASSES)
