"""Sampled losses for large output vocabularies: `nce_loss` and `sampled_softmax_loss`.

Both follow TF's `_compute_sampled_logits`: a few candidate classes are
sampled for the whole batch (log-uniform by default, see
`ks.random.log_uniform_candidate_sampler`), the logits of the true and the
sampled classes are computed from rows of `weights` and `biases` fetched with
`embedding_lookup` (so the gradient with respect to `weights` is an
`ks.IndexedSlices` touching only those rows), and the sampling probability is
corrected for by subtracting ``log(Q)``, Q being each class's expected count:

    logits = inputs @ weights[ids].T + biases[ids] - log(expected_count)

NCE then scores every column with a sigmoid cross-entropy (label 1/num_true for
the true classes, 0 for the sampled ones) and sums over columns; sampled
softmax takes a softmax cross-entropy over [true, sampled] columns.

These are compositions of kerasish ops: no gradient code lives here.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops, math_ops, nn_ops
from kerasish.core.tensor import Tensor, convert_to_tensor


def _masked_value(dtype) -> float:
    """A huge but finite negative logit (TF uses -FLT_MAX; half of it leaves headroom).

    Finite matters: with -inf, the softmax cross-entropy would compute 0 * -inf = nan.
    """
    return float(np.finfo(dtype).min) / 2


def compute_accidental_hits(true_classes, sampled_candidates):
    """Boolean (batch, num_sampled) mask: sampled candidate j equals a true class of row i."""
    true_classes = convert_to_tensor(true_classes)
    sampled = convert_to_tensor(sampled_candidates)
    labels = true_classes._value
    xp = backend.array_module(labels)
    hits = (labels[:, :, None] == sampled._value.reshape(1, 1, -1)).any(axis=1)
    return Tensor(xp.asarray(hits))


def _check_args(name, weights, biases, labels, inputs, num_sampled, num_classes, num_true):
    if isinstance(weights, (list, tuple)) or isinstance(biases, (list, tuple)):
        raise InvalidArgumentError(
            f"{name}: partitioned (list) weights or biases are not supported; pass one tensor "
            "(concatenate the shards with ks.concat(shards, 0))"
        )
    weights = convert_to_tensor(weights)
    biases = convert_to_tensor(biases)
    inputs = convert_to_tensor(inputs)
    labels = convert_to_tensor(labels)
    if labels.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{name}: labels must be integer class ids, got {labels.dtype}; "
            "cast with ks.cast(labels, 'int64')"
        )
    if inputs.ndim != 2:
        raise InvalidArgumentError(
            f"{name}: inputs must have shape (batch, dim), got {inputs.shape}"
        )
    if weights.ndim != 2 or biases.ndim != 1:
        raise InvalidArgumentError(
            f"{name}: weights must have shape (num_classes, dim) and biases (num_classes,), "
            f"got weights {weights.shape} and biases {biases.shape}"
        )
    if weights.shape[1] != inputs.shape[1]:
        raise InvalidArgumentError(
            f"{name}: inputs shape {inputs.shape} does not match weights shape {weights.shape}: "
            f"weights must be (num_classes, dim) with dim = {inputs.shape[1]} (the last axis "
            "of inputs); a transposed (dim, num_classes) matrix is a common cause"
        )
    batch = inputs.shape[0]
    if labels.ndim == 1 and num_true == 1:
        labels = array_ops.reshape(labels, (-1, 1))
    if labels.shape != (batch, num_true):
        raise InvalidArgumentError(
            f"{name}: labels must have shape (batch, num_true) = ({batch}, {num_true}), "
            f"got {labels.shape}"
        )
    if int(num_sampled) < 1 or int(num_classes) < 1:
        raise InvalidArgumentError(
            f"{name}: num_sampled and num_classes must be >= 1, got {num_sampled} and {num_classes}"
        )
    if not inputs.dtype.kind == "f":
        raise InvalidArgumentError(f"{name}: inputs must be floating point, got {inputs.dtype}")
    return weights, biases, labels, inputs


def _lookup(params, ids, what: str, name: str, n_labels: int, num_classes: int):
    """embedding_lookup, with the op's context added to an out-of-range error."""
    try:
        return nn_ops.embedding_lookup(params, ids)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(
            f"{exc}\n  in {name}: looking up rows of {what} (shape {params.shape}) for the "
            f"{n_labels} label ids followed by the sampled ids, which lie in "
            f"[0, num_classes={num_classes}); labels must be in [0, {params.shape[0]}) and "
            f"{what} needs num_classes rows"
        ) from None


def _compute_sampled_logits(
    name,
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true,
    sampled_values,
    remove_accidental_hits,
    seed,
):
    """(logits, targets) of shape (batch, num_true + num_sampled), as in TF."""
    from kerasish import random as ks_random

    num_true, num_sampled, num_classes = int(num_true), int(num_sampled), int(num_classes)
    weights, biases, labels, inputs = _check_args(
        name, weights, biases, labels, inputs, num_sampled, num_classes, num_true
    )
    labels = math_ops.cast(labels, np.int64)
    if sampled_values is None:
        sampled_values = ks_random.log_uniform_candidate_sampler(
            labels, num_true, num_sampled, unique=True, range_max=num_classes, seed=seed
        )
    sampled, true_count, sampled_count = (
        array_ops.stop_gradient(convert_to_tensor(v)) for v in sampled_values
    )
    sampled = math_ops.cast(sampled, np.int64)
    batch, dim = inputs.shape
    for what, value, shape in (
        ("sampled_values[0] (sampled candidates)", sampled, (num_sampled,)),
        ("sampled_values[1] (true expected counts)", true_count, (batch, num_true)),
        ("sampled_values[2] (sampled expected counts)", sampled_count, (num_sampled,)),
    ):
        if value.shape != shape:
            raise InvalidArgumentError(
                f"{name}: {what} must have shape {shape} (batch={batch}, num_true={num_true}, "
                f"num_sampled={num_sampled}), got {value.shape}"
            )
    n_true = batch * num_true
    all_ids = array_ops.concat([array_ops.reshape(labels, (-1,)), sampled], 0)

    # One lookup each for weights and biases: sparse gradients, and one range check.
    all_w = _lookup(weights, all_ids, "weights", name, n_true, num_classes)
    all_b = _lookup(biases, all_ids, "biases", name, n_true, num_classes)
    true_w = array_ops.reshape(all_w[:n_true], (batch, num_true, dim))
    sampled_w = all_w[n_true:]
    true_b = array_ops.reshape(all_b[:n_true], (batch, num_true))
    sampled_b = all_b[n_true:]

    dtype = inputs.dtype
    true_logits = math_ops.reduce_sum(array_ops.expand_dims(inputs, 1) * true_w, -1) + true_b
    sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True) + sampled_b
    # Subtract log Q: corrects for how often each class is sampled.
    true_logits = true_logits - math_ops.log(math_ops.cast(true_count, dtype))
    sampled_logits = sampled_logits - math_ops.log(math_ops.cast(sampled_count, dtype))
    if remove_accidental_hits:
        hits = compute_accidental_hits(labels, sampled)
        sampled_logits = math_ops.where(hits, _masked_value(dtype), sampled_logits)

    logits = array_ops.concat([true_logits, sampled_logits], 1)
    targets = backend.array_module(logits._value).zeros(logits.shape, dtype=dtype)
    targets[:, :num_true] = 1.0 / num_true
    return logits, Tensor(targets)


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values=None,
    remove_accidental_hits: bool = False,
    seed=None,
    partition_strategy: str = "mod",
    name: str = "nce_loss",
):
    """Noise-contrastive estimation loss, one value per example (TF's semantics).

    Args:
        weights: (num_classes, dim) output embeddings (a Variable, usually).
        biases: (num_classes,) output biases.
        labels: integer (batch, num_true) target classes ((batch,) is accepted for num_true=1).
        inputs: (batch, dim) input embeddings.
        num_sampled: number of negative classes sampled for the whole batch.
        num_classes: number of possible classes.
        num_true: number of target classes per example.
        sampled_values: optional (sampled_candidates, true_expected_count,
            sampled_expected_count), e.g. from a `ks.random.*_candidate_sampler`;
            default: `ks.random.log_uniform_candidate_sampler(unique=True)`.
        remove_accidental_hits: drop sampled classes that equal a true label of the row.
        seed: op-level seed for the default sampler.
        partition_strategy, name: accepted for TF compatibility; only unpartitioned
            weights are supported.

    Returns:
        A (batch,) tensor: sum over the num_true + num_sampled columns of
        ``sigmoid_cross_entropy(label, logit)``, with labels 1/num_true for the
        true classes and 0 for the sampled ones, and logits corrected by ``-log(Q)``.
        Take ``ks.reduce_mean`` of it for a training loss.

    Raises:
        InvalidArgumentError: a label outside the rows of `weights` raises the
            lookup error at the call, e.g. ``embedding_lookup: indices[0] = 3081
            is not in [0, 128)``, with the op's context; bad shapes name both shapes.

    Example:
        >>> import kerasish as ks
        >>> w, b = ks.random.normal((50, 8)), ks.zeros((50,))
        >>> x = ks.random.normal((4, 8))
        >>> ks.nn.nce_loss(w, b, [[1], [2], [3], [4]], x, num_sampled=5, num_classes=50).shape
        (4,)
    """
    logits, targets = _compute_sampled_logits(
        name,
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        seed,
    )
    per_column = nn_ops.sigmoid_cross_entropy_with_logits(targets, logits)
    return math_ops.reduce_sum(per_column, 1)


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values=None,
    remove_accidental_hits: bool = True,
    seed=None,
    partition_strategy: str = "mod",
    name: str = "sampled_softmax_loss",
):
    """Sampled softmax loss, one value per example (TF's semantics).

    The softmax cross-entropy over the num_true + num_sampled columns
    [true classes, sampled classes] with targets 1/num_true on the true ones,
    logits corrected by ``-log(Q)``. Sampled classes equal to a true label are
    removed by default (``remove_accidental_hits=True``, as in TF). Arguments,
    errors and gradients as in `nce_loss`. Use it for training only; evaluate
    with the full softmax.

    Example:
        >>> import kerasish as ks
        >>> w, b = ks.random.normal((50, 8)), ks.zeros((50,))
        >>> x = ks.random.normal((4, 8))
        >>> loss = ks.nn.sampled_softmax_loss(w, b, [[1], [2], [3], [4]], x, 5, 50, seed=1)
        >>> loss.shape
        (4,)
    """
    logits, targets = _compute_sampled_logits(
        name,
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        seed,
    )
    return nn_ops.softmax_cross_entropy_with_logits(targets, logits)
