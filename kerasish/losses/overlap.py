"""Overlap losses for segmentation (Dice, Tversky) and the metric-learning Circle loss."""

from __future__ import annotations

import numpy as np

from kerasish.core import settings
from kerasish.core.ops import (
    activation_ops,
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
    _prediction,
    _prepare,
    compute_weighted_loss,
    loss_function,
)


def _overlap_sums(y_true, y_pred, axis, name: str):
    """(y_true, y_pred, reduction axes) for the Dice and Tversky sums (None: all axes)."""
    y_true, y_pred = _prepare(y_true, y_pred, name)
    if axis is not None:
        axis = reduction_ops.normalize_axis(axis, y_pred.ndim, name)
    return y_true, y_pred, axis


@loss_function
def dice(y_true, y_pred, axis=None):
    """Dice loss: ``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)``,
    with epsilon `ks.config.epsilon()` (1e-7 unless set), as in Keras.

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
    intersection = reduction_ops.reduce_sum(y_true * y_pred, axis)
    total = reduction_ops.reduce_sum(y_true, axis) + reduction_ops.reduce_sum(y_pred, axis)
    return 1.0 - 2.0 * intersection / (total + settings.epsilon())


@loss_function
def tversky(y_true, y_pred, alpha: float = 0.5, beta: float = 0.5, axis=None):
    """Tversky loss: ``1 - TP / (TP + alpha * FP + beta * FN + epsilon)`` (Salehi et al.,
    2017), with epsilon `ks.config.epsilon()`.

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
    intersection = reduction_ops.reduce_sum(y_true * y_pred, axis)
    fp = reduction_ops.reduce_sum((1.0 - y_pred) * y_true, axis)
    fn = reduction_ops.reduce_sum(y_pred * (1.0 - y_true), axis)
    return 1.0 - intersection / (intersection + fp * alpha + fn * beta + settings.epsilon())


def _pair_masks(labels: Tensor, ref_labels: Tensor, remove_diagonal: bool):
    """(same-label, different-label) boolean (n, m) masks; same-label without i == j."""
    positive = math_ops.equal(
        shape_ops.reshape(labels, (-1, 1)), shape_ops.reshape(ref_labels, (1, -1))
    )
    negative = math_ops.logical_not(positive)
    if remove_diagonal:
        diagonal = creation_ops.eye(positive.shape[0], positive.shape[1], dtype=np.bool_)
        positive = math_ops.logical_and(positive, math_ops.logical_not(diagonal))
    return positive, negative


def _masked_logsumexp(values: Tensor, mask: Tensor) -> Tensor:
    """logsumexp over the last axis of the `mask`ed values; a row with none gives ~ -inf.

    Masked entries are replaced by a quarter of the dtype's lowest value (not -inf) so an
    empty row stays finite in value and gradient; two such rows added still fit.
    """
    lowest = float(np.finfo(values.dtype).min) / 4
    return nn_ops.reduce_logsumexp(math_ops.where(mask, values, lowest), -1)


@loss_function
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
    labels = indexing_ops.integer_ids(convert_to_tensor(y_true), "circle", "y_true")
    ref_embeddings = y_pred if ref_embeddings is None else _prediction(ref_embeddings, "circle")
    ref_labels = (
        labels
        if ref_labels is None
        else indexing_ops.integer_ids(convert_to_tensor(ref_labels), "circle", "ref_labels")
    )
    distances = math_ops.maximum(
        1.0 - math_ops.matmul(y_pred, ref_embeddings, transpose_b=True), 0.0
    )
    positive, negative = _pair_masks(labels, ref_labels, remove_diagonal)
    pos_weights = activation_ops.relu(margin + distances)
    neg_weights = activation_ops.relu(1.0 + margin - distances)
    pos_logits = -gamma * pos_weights * (margin - distances)
    neg_logits = gamma * neg_weights * (1.0 - margin - distances)
    return activation_ops.softplus(
        _masked_logsumexp(pos_logits, positive) + _masked_logsumexp(neg_logits, negative)
    )


# ---------------------------------------------------------------- Loss objects


class Dice(LossFunctionWrapper):
    """`dice` as a `Loss` object.

    Args:
        reduction: how the losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'dice').
        dtype: the dtype of the computation (see `Loss`).
        axis: the axes summed over; None (the default) sums everything, one loss per batch.

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.Dice(axis=1)
        >>> round(float(loss([[1., 1.], [1., 0.]], [[1., 0.], [0.5, 0.5]])), 4)  # (1/3 + 1/2) / 2
        0.4167
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "dice", axis=None,
                 dtype=None):
        super().__init__(dice, reduction, name, axis=axis, dtype=dtype)


class Tversky(LossFunctionWrapper):
    """`tversky` as a `Loss` object.

    Args:
        alpha: the weight of the false positives (as `tversky` counts them).
        beta: the weight of the false negatives.
        reduction: how the losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'tversky').
        dtype: the dtype of the computation (see `Loss`).
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
        dtype=None,
    ):
        super().__init__(tversky, reduction, name, alpha=alpha, beta=beta, axis=axis,
                         dtype=dtype)


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
        dtype: the dtype of the computation (see `Loss`).

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
        dtype=None,
    ):
        super().__init__(
            circle,
            reduction,
            name,
            gamma=float(gamma),
            margin=float(margin),
            remove_diagonal=bool(remove_diagonal),
            dtype=dtype,
        )

    def __call__(self, y_true, y_pred, sample_weight=None):
        """As `Loss.__call__`, counting only the examples whose loss is above 0."""
        losses = circle(*self._cast_inputs(y_true, y_pred), **self._fn_kwargs)
        return compute_weighted_loss(
            losses, sample_weight, self.reduction, self.name, math_ops.greater(losses, 0.0)
        )
