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

Huber: `huber` and `Huber` follow the standard definition (and Keras's):
``0.5 * t**2`` for ``|t| <= delta`` and ``delta * (|t| - 0.5 * delta)`` outside,
``t = y_pred - y_true``. The CS20 lecture seeds define Huber as ``t**2`` inside
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
import re
import warnings

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops, math_ops, nn_ops
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
    "mse",
    "MSE",
    "mae",
    "MAE",
    "Loss",
    "LossFunctionWrapper",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "Huber",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "get",
    "serialize",
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


def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true) ** 2) over the last axis: one value per example.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.mean_squared_error([[1., 2.]], [[2., 4.]]).numpy()
        array([2.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_squared_error")
    return _mean_last_axis(math_ops.square(y_pred - y_true))


def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|) over the last axis: one value per example.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.mean_absolute_error([[1., 2.]], [[2., 4.]]).numpy()
        array([1.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, "mean_absolute_error")
    return _mean_last_axis(math_ops.abs(y_pred - y_true))


def huber(y_true, y_pred, delta: float = 1.0):
    """Huber loss (standard definition), averaged over the last axis.

    With ``t = y_pred - y_true``: ``0.5 * t**2`` if ``|t| <= delta``, else
    ``delta * (|t| - 0.5 * delta)``. Quadratic near 0, linear (robust to
    outliers) beyond `delta`; continuous with a continuous first derivative.
    The seeds' Huber (``t**2`` / ``m * (2|t| - m)``) is twice this.

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
    kind = labels.dtype.kind
    if kind == "b":
        labels = math_ops.cast(labels, np.int64)
    elif kind == "f":
        host = np.asarray(backend.to_numpy(labels._value))
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(host) | (host != np.floor(host))
        if bad.any():
            where = np.argwhere(bad)[0] if host.ndim else ()
            value = host[tuple(where)].item()
            raise InvalidArgumentError(
                f"{name}: y_true must hold integer class ids, but it is {labels.dtype} with the "
                f"non-integral value y_true[{_format_index(where)}] = {value!r}; pass integer "
                "labels (or use categorical_crossentropy for probability targets)"
            )
        labels = math_ops.cast(labels, np.int64)
    elif kind not in "iu":
        raise InvalidArgumentError(
            f"{name}: y_true must hold integer class ids, got dtype {labels.dtype}"
        )
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


def sparse_categorical_crossentropy(y_true, y_pred, from_logits: bool = False):
    """Cross-entropy of integer class ids against per-class scores (last axis).

    Args:
        y_true: class ids of shape y_pred.shape[:-1] (or with a trailing 1, e.g.
            (batch,) or (batch, 1)); integers, or floats holding integral values.
        y_pred: (..., C) probabilities (renormalized per row, then clipped), or
            logits with ``from_logits=True`` (fused, stable op).

    Raises:
        InvalidArgumentError: naming this loss and the bad value, for a label
            outside [0, C), a non-integral float label, or a label shape that
            does not fit y_pred.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.sparse_categorical_crossentropy([1], [[0.5, 0.5]]).numpy()
        array([0.6931472], dtype=float32)
    """
    name = "sparse_categorical_crossentropy"
    y_pred = _prediction(y_pred, name)
    if y_pred.ndim == 0:
        raise InvalidArgumentError(f"{name}: y_pred must have a class axis (last), got a scalar")
    labels = _sparse_labels(y_true, y_pred, name)
    if from_logits:
        return nn_ops.sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    _warn_if_not_probabilities(y_pred, name)
    log_p = _clipped_log_probabilities(y_pred)
    hot = array_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    return math_ops.negative(math_ops.reduce_sum(hot * log_p, -1))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


# ---------------------------------------------------------------- weighted reduction


class Reduction:
    """The reductions a `Loss` accepts (``tf.keras.losses.Reduction`` spelling)."""

    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    SUM = "sum"
    NONE = "none"
    AUTO = "auto"  # = SUM_OVER_BATCH_SIZE

    @classmethod
    def all(cls) -> tuple:
        return (cls.SUM_OVER_BATCH_SIZE, cls.SUM, cls.NONE)

    @classmethod
    def validate(cls, reduction) -> str:
        """The canonical name of `reduction` (None means 'none', 'auto' the default)."""
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
    losses, sample_weight=None, reduction: str = "sum_over_batch_size", name: str = "loss"
):
    """Weight per-example `losses` by `sample_weight` and reduce them.

    The one weighted reduction of kerasish losses (see the module docstring):
    ``'sum_over_batch_size'`` gives ``sum(w * l) / N`` with N the number of
    elements of `losses` (0 for an empty batch), ``'sum'`` gives ``sum(w * l)``,
    ``'none'`` gives ``w * l``.

    Args:
        losses: per-example losses, e.g. shape (batch,) or (batch, time).
        sample_weight: None, a scalar, or weights broadcastable to `losses`; a
            (batch,) weight against (batch, time) losses weighs each row, a
            (batch, 1) weight against (batch,) losses is squeezed.
        reduction: 'sum_over_batch_size' (default), 'sum' or 'none'.
        name: used in error messages.

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.compute_weighted_loss([1., 2., 3., 4.], [1., 1., 0., 0.]))
        0.75
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
    if reduction == Reduction.NONE:
        return losses
    total = math_ops.reduce_sum(losses)
    if reduction == Reduction.SUM:
        return total
    return total / float(max(losses.size, 1))


# ---------------------------------------------------------------- Loss objects


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


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
        self.name = name or _snake_case(type(self).__name__)

    def call(self, y_true, y_pred):
        """Per-example losses (override in subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        return compute_weighted_loss(losses, sample_weight, self.reduction, self.name)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class LossFunctionWrapper(Loss):
    """A `Loss` around a per-example loss function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(
        self, fn, reduction: str = "sum_over_batch_size", name: str | None = None, **kwargs
    ):
        super().__init__(reduction, name or getattr(fn, "__name__", "loss"))
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    """`mean_squared_error` as a `Loss` object."""

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_error"):
        super().__init__(mean_squared_error, reduction, name)


class MeanAbsoluteError(LossFunctionWrapper):
    """`mean_absolute_error` as a `Loss` object."""

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction, name)


class Huber(LossFunctionWrapper):
    """`huber` (standard definition, ``0.5 t**2`` inside `delta`) as a `Loss` object.

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
    """`binary_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``)."""

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
    """`categorical_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``)."""

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

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> round(float(loss([0, 1], [[2., 0.], [0., 2.]])), 4)
        0.1269
    """

    def __init__(
        self,
        from_logits: bool = False,
        reduction: str = "sum_over_batch_size",
        name: str = "sparse_categorical_crossentropy",
    ):
        super().__init__(
            sparse_categorical_crossentropy, reduction, name, from_logits=bool(from_logits)
        )


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
    **_CLASSES,
}

_FUNCTIONS = {
    mean_squared_error: MeanSquaredError,
    mean_absolute_error: MeanAbsoluteError,
    huber: Huber,
    binary_crossentropy: BinaryCrossentropy,
    categorical_crossentropy: CategoricalCrossentropy,
    sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
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

    Example:
        >>> import kerasish as ks
        >>> ks.losses.get("sparse_categorical_crossentropy")
        SparseCategoricalCrossentropy(reduction='sum_over_batch_size', \
name='sparse_categorical_crossentropy', from_logits=False)
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
    if isinstance(identifier, dict):
        if set(identifier) != {"class_name", "config"} or identifier["class_name"] not in _CLASSES:
            raise InvalidArgumentError(
                f"cannot build a loss from {identifier!r}; expected {{'class_name': one of "
                f"{sorted(_CLASSES)}, 'config': {{...}}}}"
            )
        return _CLASSES[identifier["class_name"]].from_config(identifier["config"])
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
    """``{'class_name': ..., 'config': ...}`` for a built-in `Loss` (inverse of `get`)."""
    if type(loss).__name__ not in _CLASSES:
        raise InvalidArgumentError(
            f"serialize: only the built-in loss classes {sorted(_CLASSES)} can be serialized, "
            f"got {loss!r}"
        )
    return {"class_name": type(loss).__name__, "config": loss.get_config()}
