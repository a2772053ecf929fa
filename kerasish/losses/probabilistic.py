"""Probabilistic losses: the cross-entropies (plain, sparse, focal, generalized), KL, Poisson.

Cross-entropies: with ``from_logits=True`` they use the fused, stable ops of
`ks.nn` (``sigmoid_cross_entropy_with_logits``,
``softmax_cross_entropy_with_logits``,
``sparse_softmax_cross_entropy_with_logits``), finite at any logit. On
probabilities they clip to ``[epsilon, 1 - epsilon]`` before the log, epsilon being
``ks.config.epsilon()`` (1e-7 unless `set_epsilon` changed it) read at each call as
Keras reads it; the categorical forms first renormalize each row to
sum to 1. Probabilities outside [0, 1] give a warning that suggests
``from_logits=True``.
"""

from __future__ import annotations

import warnings

import numpy as np

from kerasish.core import backend, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    activation_ops,
    clip_ops,
    creation_ops,
    indexing_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
)
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.losses.base import (
    LossFunctionWrapper,
    _mean_last_axis,
    _prediction,
    _prepare,
    compute_weighted_loss,
    loss_function,
)

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


@loss_function
def binary_crossentropy(y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0,
                        axis: int = -1):
    """Binary cross-entropy, averaged over `axis` (the last): one value per example.

    Args:
        y_true: targets in [0, 1] (0/1 labels), any dtype.
        y_pred: probabilities, or logits with ``from_logits=True``.
        from_logits: use the stable ``max(x, 0) - x*z + log(1 + e**-|x|)``.
        label_smoothing: squeeze targets towards 0.5: ``z * (1 - s) + 0.5 * s``.
        axis: the axis the mean is taken over.

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
        return _mean_over(nn_ops.sigmoid_cross_entropy_with_logits(y_true, y_pred), axis)
    _warn_if_not_probabilities(y_pred, name)
    p = _clipped(y_pred)
    loss = y_true * math_ops.log(p) + (1.0 - y_true) * math_ops.log(1.0 - p)
    return _mean_over(math_ops.negative(loss), axis)


def _mean_over(values: Tensor, axis: int) -> Tensor:
    return reduction_ops.reduce_mean(values, axis) if values.ndim else values


def _classes_last(x, axis: int, name: str) -> Tensor:
    """`x` with its class axis `axis` moved to the end, where the computation expects it."""
    x = convert_to_tensor(x)
    if axis == -1 or x.ndim == 0:
        return x
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(
            f"{name}: axis {axis} is out of range for y_pred of rank {x.ndim}")
    return shape_ops.moveaxis(x, axis, -1)


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


@loss_function
def categorical_crossentropy(
    y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
):
    """Cross-entropy of one-hot (or soft) targets over the last (class) axis.

    Args:
        y_true: (..., C) one-hot or probability targets.
        y_pred: (..., C) probabilities (renormalized per row, then clipped), or
            logits with ``from_logits=True`` (fused, stable softmax cross-entropy).
        label_smoothing: ``y_true * (1 - s) + s / C``, C the size of the last axis (as
            Keras, even when `axis` is another).
        axis: the class axis (default the last).

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
    # Keras divides the smoothing by the size of the last axis, whatever `axis` is
    smoothing_classes = y_pred.shape[-1] if y_pred.ndim else 1
    y_pred = _classes_last(y_pred, axis, name)
    if axis != -1:
        y_true = _classes_last(y_true, axis, name)
    _check_classes(y_pred, name)
    y_true, y_pred = _prepare(y_true, y_pred, name, exact=True)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / smoothing_classes
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(y_true, y_pred)
    _warn_if_not_probabilities(y_pred, name)
    log_p = _clipped_log_probabilities(y_pred)
    return math_ops.negative(reduction_ops.reduce_sum(y_true * log_p, -1))


def _clipped(p: Tensor) -> Tensor:
    """Probabilities clipped to [epsilon, 1 - epsilon] (`ks.config.epsilon()`), for a log."""
    return clip_ops.clip_by_value(p, settings.epsilon(), 1.0 - settings.epsilon())


def _clipped_log_probabilities(y_pred: Tensor) -> Tensor:
    """log of rows renormalized to sum to 1 and clipped to [epsilon, 1 - epsilon]."""
    return math_ops.log(_clipped(y_pred / reduction_ops.reduce_sum(y_pred, -1, keepdims=True)))


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
    labels = indexing_ops.integer_ids(labels, name, "y_true")
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
    return shape_ops.reshape(math_ops.cast(labels, np.int64), expected)


@loss_function
def sparse_categorical_crossentropy(
    y_true, y_pred, from_logits: bool = False, ignore_class: int | None = None, axis: int = -1
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
        axis: the class axis of y_pred (default the last).

    Raises:
        InvalidArgumentError: naming this loss and the bad value, for a label
            outside [0, C), a non-integral float label, or a label shape that
            does not fit y_pred.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.sparse_categorical_crossentropy([1], [[0.5, 0.5]]).numpy()
        array([0.6931472], dtype=float32)
    """
    return _sparse_crossentropy_and_mask(y_true, y_pred, from_logits, ignore_class, axis)[0]


def _sparse_crossentropy_and_mask(y_true, y_pred, from_logits: bool, ignore_class,
                                  axis: int = -1):
    """(per-example losses, boolean mask of the counted positions or None)."""
    name = "sparse_categorical_crossentropy"
    y_pred = _classes_last(_prediction(y_pred, name), axis, name)
    if y_pred.ndim == 0:
        raise InvalidArgumentError(f"{name}: y_pred must have a class axis (last), got a scalar")
    valid = None
    if ignore_class is not None:
        y_true = convert_to_tensor(y_true)
        valid = math_ops.not_equal(y_true, ignore_class)
        y_true = math_ops.where(valid, y_true, creation_ops.zeros_like(y_true))
    labels = _sparse_labels(y_true, y_pred, name)
    if from_logits:
        loss = nn_ops.sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    else:
        _warn_if_not_probabilities(y_pred, name)
        log_p = _clipped_log_probabilities(y_pred)
        hot = indexing_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
        loss = math_ops.negative(reduction_ops.reduce_sum(hot * log_p, -1))
    if valid is not None:
        valid = shape_ops.reshape(valid, labels.shape)
        loss = math_ops.where(valid, loss, creation_ops.zeros_like(loss))
    return loss, valid


@loss_function
def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis.

    Both are clipped to [epsilon, 1] first (Keras's rule), so zeros in either
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
    y_true = clip_ops.clip_by_value(y_true, settings.epsilon(), 1.0)
    y_pred = clip_ops.clip_by_value(y_pred, settings.epsilon(), 1.0)
    loss = y_true * math_ops.log(y_true / y_pred)
    return reduction_ops.reduce_sum(loss, -1) if loss.ndim else loss


@loss_function
def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + settings.epsilon())) over the last axis.

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
    return _mean_last_axis(y_pred - y_true * math_ops.log(y_pred + settings.epsilon()))


def _check_focal(alpha: float, gamma: float, name: str) -> tuple[float, float]:
    alpha, gamma = float(alpha), float(gamma)
    if not gamma >= 0:
        raise InvalidArgumentError(f"{name}: gamma must be >= 0, got {gamma}")
    return alpha, gamma


def _focal_factor(miss: Tensor, gamma: float):
    """miss ** gamma; 1 for gamma = 0 (pow's gradient would be 0 * inf where miss is 0)."""
    return math_ops.pow(miss, gamma) if gamma else 1.0


@loss_function
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
    [epsilon, 1 - epsilon] in the log as for `binary_crossentropy`.

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
        p = activation_ops.sigmoid(y_pred)
    else:
        _warn_if_not_probabilities(y_pred, name)
        p = y_pred
        clipped = _clipped(p)
        cross_entropy = math_ops.negative(
            y_true * math_ops.log(clipped) + (1.0 - y_true) * math_ops.log(1.0 - clipped)
        )
    p_true = y_true * p + (1.0 - y_true) * (1.0 - p)
    loss = _focal_factor(1.0 - p_true, gamma) * cross_entropy
    if apply_class_balancing:
        loss = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * loss
    if loss.ndim == 0:
        return loss
    return reduction_ops.reduce_mean(loss, reduction_ops.normalize_axis(axis, loss.ndim, name))


@loss_function
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

    On probabilities, rows are renormalized and clipped to [epsilon, 1 - epsilon]
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
    axis = reduction_ops.normalize_axis(axis, y_pred.ndim, name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[axis[0]]
    if from_logits:
        log_p = nn_ops.log_softmax(y_pred, axis)
        p = math_ops.exp(log_p)
    else:
        _warn_if_not_probabilities(y_pred, name)
        p = _clipped(y_pred / reduction_ops.reduce_sum(y_pred, axis, keepdims=True))
        log_p = math_ops.log(p)
    loss = _focal_factor(1.0 - p, gamma) * alpha * math_ops.negative(y_true * log_p)
    return reduction_ops.reduce_sum(loss, axis)


@loss_function
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
    hot = indexing_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = reduction_ops.reduce_sum(y_pred * hot, -1)
    return (1.0 - math_ops.pow(p, q)) / q


kld = KLD = kullback_leibler_divergence = kl_divergence


# ---------------------------------------------------------------- Loss objects


class BinaryCrossentropy(LossFunctionWrapper):
    """`binary_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``).

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], squeezes targets towards 0.5.
        axis: the class axis (binary: the axis of the mean), default the last.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'binary_crossentropy').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.BinaryCrossentropy(from_logits=True)([[1.]], [[0.]])), 4)
        0.6931
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "binary_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
            axis=int(axis),
            dtype=dtype,
        )


class CategoricalCrossentropy(LossFunctionWrapper):
    """`categorical_crossentropy` as a `Loss` object (``from_logits``, ``label_smoothing``).

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        label_smoothing: in [0, 1], mixes targets with the uniform distribution.
        axis: the class axis (binary: the axis of the mean), default the last.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_crossentropy').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.CategoricalCrossentropy()([[0., 1.]], [[0.5, 0.5]])), 4)
        0.6931
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            label_smoothing=_check_label_smoothing(label_smoothing, name),
            axis=int(axis),
            dtype=dtype,
        )


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """`sparse_categorical_crossentropy` as a `Loss` object.

    Args:
        from_logits: whether y_pred holds logits rather than probabilities.
        ignore_class: a label value whose positions count neither in the sum nor in
            the mean (None: every position counts).
        axis: the class axis (binary: the axis of the mean), default the last.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'sparse_categorical_crossentropy').
        dtype: the dtype of the computation (see `Loss`).

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
        axis: int = -1,
        name: str = "sparse_categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            reduction,
            name,
            from_logits=bool(from_logits),
            ignore_class=None if ignore_class is None else int(ignore_class),
            axis=int(axis),
            dtype=dtype,
        )

    def get_config(self) -> dict:
        """Keras's keys: `axis` only when it is not the last (Keras's config never has it)."""
        config = super().get_config()
        if config.get("axis") == -1:
            del config["axis"]
        return config

    def __call__(self, y_true, y_pred, sample_weight=None):
        """As `Loss.__call__`; positions labelled `ignore_class` are left out of the mean too."""
        losses, valid = _sparse_crossentropy_and_mask(*self._cast_inputs(y_true, y_pred),
                                                      **self._fn_kwargs)
        return compute_weighted_loss(losses, sample_weight, self.reduction, self.name, valid)


class KLDivergence(LossFunctionWrapper):
    """`kl_divergence` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'kl_divergence').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 4)
        0.1438
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "kl_divergence",
                 dtype=None):
        super().__init__(kl_divergence, reduction, name, dtype=dtype)


class Poisson(LossFunctionWrapper):
    """`poisson` as a `Loss` object.

    Args:
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'poisson').
        dtype: the dtype of the computation (see `Loss`).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.losses.Poisson()([[1.]], [[2.]])), 4)
        1.3069
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "poisson", dtype=None):
        super().__init__(poisson, reduction, name, dtype=dtype)


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
        dtype: the dtype of the computation (see `Loss`).

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
        dtype=None,
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
            dtype=dtype,
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
        dtype: the dtype of the computation (see `Loss`).

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
        dtype=None,
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
            dtype=dtype,
        )


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """`categorical_generalized_cross_entropy` as a `Loss` object.

    Args:
        q: the noise parameter, in (0, 1).
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'categorical_generalized_cross_entropy').
        dtype: the dtype of the computation (see `Loss`).

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
        dtype=None,
    ):
        if not 0 < q < 1:
            raise InvalidArgumentError(f"{name}: q must be in (0, 1), got {q}")
        super().__init__(categorical_generalized_cross_entropy, reduction, name, q=float(q),
              dtype=dtype)
