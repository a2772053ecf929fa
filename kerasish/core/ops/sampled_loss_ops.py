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

The logits are one fused primitive, `sampled_logits` (dot products with the
true and sampled rows, biases, the log Q correction and the accidental-hit
mask in one NumPy/CuPy pass), with its gradient `sampled_logits_grad` beside
it: a handful of ops per step instead of a few dozen, which is what makes the
batch-128 NCE loop of TF's eager word2vec example fast. Both are linear in each
input, so each one's gradient is written with the two of them and every order of
gradient works.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend, random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.core.primitive import apply, primitive
from kerasish.core.tensor import Tensor, convert_to_tensor


def _masked_value(dtype) -> float:
    """A huge but finite negative logit (TF uses -FLT_MAX; half of it leaves headroom).

    Finite matters: with -inf, the softmax cross-entropy would compute 0 * -inf = nan.
    """
    return float(np.finfo(dtype).min) / 2


def compute_accidental_hits(true_classes, sampled_candidates):
    """Boolean (batch, num_sampled) mask: sampled candidate j equals a true class of row i.

    Args:
        true_classes: integer (batch, num_true) labels.
        sampled_candidates: the (num_sampled,) classes drawn for the whole batch.

    Returns:
        A bool tensor (not differentiable).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.compute_accidental_hits([[1], [3]], [1, 2, 3]).numpy().tolist()
        [[True, False, False], [False, False, True]]
    """
    return apply(_accidental_hits, (convert_to_tensor(true_classes),
                                    convert_to_tensor(sampled_candidates)))


def _hits(labels, sampled):
    """The accidental-hit mask of (batch, num_true) labels and (num_sampled,) candidates."""
    return (labels[:, :, None] == sampled.reshape(1, 1, -1)).any(axis=1)


# primitives (so that ks.function replays them on each call's labels and candidates)
_accidental_hits = primitive("accidental_hits", differentiable=False)(_hits)


@primitive("sampled_logits_inputs", multi_output=True, differentiable=False)
def _sampled_logits_inputs(labels, sampled, true_count, sampled_count, *, dtype, masked):
    """(ids of the label rows then the sampled rows, their log Q, and with `masked` the
    (batch, num_true + num_sampled) accidental-hit mask): what `sampled_logits` takes."""
    xp = backend.array_module(labels)
    ids = xp.concatenate([labels.reshape(-1).astype(np.int64, copy=False), sampled])
    counts = xp.concatenate([true_count.reshape(-1), sampled_count])
    log_q = xp.log(counts.astype(dtype, copy=False))
    if not masked:
        return ids, log_q
    mask = xp.concatenate([xp.zeros(labels.shape, dtype=bool), _hits(labels, sampled)], axis=1)
    return ids, log_q, mask


# ---------------------------------------------------------------- the fused logits
# Layout: `rows` stacks the rows looked up for the labels (batch * num_true of them,
# row b * num_true + t for label t of example b) and then those of the sampled classes;
# logits[b] holds example b's num_true label columns, then one column per sampled class.


def _split_rows(rows, batch: int, num_true: int):
    """(label rows as (batch, num_true, ...), sampled rows) of a stacked rows array."""
    n_true = batch * num_true
    return rows[:n_true].reshape((batch, num_true) + rows.shape[1:]), rows[n_true:]


@primitive("sampled_logits")
def _sampled_logits(x, w, b, *, num_true, offset, mask, fill):
    xp = backend.array_module(x)
    batch = x.shape[0]
    if offset is not None:  # per row, so folded into the biases: no (batch, columns) pass
        b = b - offset
    true_w, sampled_w = _split_rows(w, batch, num_true)
    true_b, sampled_b = _split_rows(b, batch, num_true)
    logits = xp.empty((batch, num_true + sampled_w.shape[0]), dtype=xp.result_type(x, w, b))
    # each part written in place: no concatenated copies
    logits[:, :num_true] = xp.einsum("bd,btd->bt", x, true_w)
    logits[:, :num_true] += true_b
    xp.matmul(x, sampled_w.T, out=logits[:, num_true:])
    logits[:, num_true:] += sampled_b
    if mask is not None:
        logits[mask] = fill
    return logits


@_sampled_logits.defgrad
def _(op, dy):
    x, w, _ = op.inputs
    return sampled_logits_grad(x, w, dy, op.attrs["num_true"], op.attrs["mask"])


@primitive("sampled_logits_grad", multi_output=True)
def _sampled_logits_grad(x, w, g, *, num_true, mask):
    xp = backend.array_module(g)
    if mask is not None:
        g = xp.where(mask, xp.zeros((), g.dtype), g)
    batch, dim = x.shape
    true_g, sampled_g = g[:, :num_true], g[:, num_true:]
    true_w, sampled_w = _split_rows(w, batch, num_true)
    n_true = batch * num_true
    dx = sampled_g @ sampled_w
    dx += xp.einsum("bt,btd->bd", true_g, true_w)
    dtype = xp.result_type(x, w, g)
    dw = xp.empty((n_true + sampled_w.shape[0], dim), dtype=dtype)  # parts written in place
    xp.multiply(true_g[:, :, None], x[:, None, :], out=dw[:n_true].reshape(batch, num_true, dim))
    xp.matmul(sampled_g.T, x, out=dw[n_true:])
    db = xp.empty(n_true + sampled_w.shape[0], dtype=g.dtype)
    db[:n_true] = true_g.reshape(-1)
    sampled_g.sum(axis=0, out=db[n_true:])
    return dx, dw, db


@_sampled_logits_grad.defgrad
def _(op, dys):
    # (dx, dw, db) is linear in g and in each of x and w, so its adjoints are the same
    # two primitives again: d<cw, dw>/dx = dx(x, cw, g), d<ca, dx>/dw = dw(ca, w, g), and
    # d/dg = logits(ca, w, cb) + logits(x, cw, 0) without offset, masked to 0.
    x, w, g = op.inputs
    ca, cw, cb = dys
    num_true, mask = op.attrs["num_true"], op.attrs["mask"]
    dx = sampled_logits_grad(x, cw, g, num_true, mask)[0] if op.needs[0] else None
    dw = sampled_logits_grad(ca, w, g, num_true, mask)[1] if op.needs[1] else None
    dg = None
    if op.needs[2]:
        dg = sampled_logits(ca, w, cb, num_true, mask=mask) + sampled_logits(
            x, cw, creation_ops.zeros_like(cb), num_true, mask=mask
        )
    return dx, dw, dg


def sampled_logits_grad(x, w, g, num_true: int, mask=None) -> tuple:
    """(d x, d w, d b) of the sampled logits for their gradient `g` (zero where masked)."""
    if mask is not None:
        mask = backend.to_device(mask, backend.device_of(convert_to_tensor(g)._value))
    return apply(_sampled_logits_grad, (x, w, g), {"num_true": num_true, "mask": mask})


def sampled_logits(inputs, rows_w, rows_b, num_true: int = 1, offset=None, mask=None,
                   fill: float = 0.0):
    """Logits of each example against its label rows and the shared sampled rows, fused.

    Args:
        inputs: (batch, dim).
        rows_w: (batch * num_true + num_sampled, dim): the label rows of each example
            (example-major), then the sampled rows.
        rows_b: (batch * num_true + num_sampled,) biases in the same order.
        offset: optional constant array shaped like `rows_b`, subtracted from the
            biases (the log Q correction of each label and sampled class).
        mask: optional boolean array of the logits' shape; masked logits are `fill`
            and get no gradient (accidental hits).

    Returns:
        (batch, num_true + num_sampled) logits: the label columns, then the sampled ones.
    """
    inputs = convert_to_tensor(inputs)
    offset, mask = (None if a is None else backend.to_device(a, backend.device_of(inputs._value))
                    for a in (offset, mask))  # host constants go where the logits are computed
    attrs = {"num_true": int(num_true), "offset": offset, "mask": mask, "fill": float(fill)}
    return apply(_sampled_logits, (inputs, rows_w, rows_b), attrs)


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
        labels = shape_ops.reshape(labels, (-1, 1))
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


def _check_sampled_values(name, sampled_values, batch: int, num_true: int, num_sampled: int):
    """A caller's (sampled_candidates, true_expected_count, sampled_expected_count), checked."""
    # constants: only their values are read, never recorded
    sampled, true_count, sampled_count = (convert_to_tensor(v) for v in sampled_values)
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
    return math_ops.cast(sampled, np.int64), true_count, sampled_count


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
    num_true, num_sampled, num_classes = int(num_true), int(num_sampled), int(num_classes)
    weights, biases, labels, inputs = _check_args(
        name, weights, biases, labels, inputs, num_sampled, num_classes, num_true
    )
    batch = inputs.shape[0]
    if sampled_values is None:  # our sampler's results have the right shapes and dtypes
        sampled, true_count, sampled_count = random.log_uniform_candidate_sampler(
            labels, num_true, num_sampled, unique=True, range_max=num_classes, seed=seed
        )
    else:
        sampled, true_count, sampled_count = _check_sampled_values(
            name, sampled_values, batch, num_true, num_sampled
        )
    n_true = batch * num_true
    dtype = inputs.dtype
    # The rows to look up and log Q, which corrects for how often each class is sampled (one
    # value per looked-up row); the mask of the sampled classes that are labels of a row.
    all_ids, log_q, *mask = apply(_sampled_logits_inputs,
                                  (labels, sampled, true_count, sampled_count),
                                  {"dtype": dtype, "masked": bool(remove_accidental_hits)})

    # One lookup each for weights and biases: sparse gradients, and one range check.
    all_w = _lookup(weights, all_ids, "weights", name, n_true, num_classes)
    all_b = _lookup(biases, all_ids, "biases", name, n_true, num_classes)

    logits = sampled_logits(inputs, all_w, all_b, num_true, log_q._value,
                            mask[0]._value if mask else None, _masked_value(dtype))
    xp = backend.array_module(log_q._value)
    targets = xp.zeros(logits.shape, dtype=dtype)
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
    return reduction_ops.reduce_sum(per_column, 1)


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

    Args:
        weights, biases, labels, inputs: as in `nce_loss`.
        num_sampled, num_classes, num_true, sampled_values: as in `nce_loss`.
        seed, partition_strategy, name: as in `nce_loss`.
        remove_accidental_hits: mask the sampled classes equal to a true label of the row
            (True by default here, False in `nce_loss`, as in TF).

    Returns:
        A (batch,) tensor of losses; take `ks.reduce_mean` of it for a training loss.

    Raises:
        InvalidArgumentError: as `nce_loss`: a label outside the rows of `weights`, or
            shapes that do not fit.

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
