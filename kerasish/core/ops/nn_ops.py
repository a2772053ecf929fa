"""Neural-network ops: the stable softmax family (with `reduce_logsumexp`), fused
cross-entropies, normalization helpers, embeddings and dropout. Convolution and pooling are
in `conv_ops`.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend, random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import activation_ops, indexing_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor

# ---------------------------------------------------------------- softmax family


def _axis(x: Tensor, axis: int, name: str) -> int:
    if x.ndim == 0:
        raise InvalidArgumentError(f"{name}: needs a tensor of rank >= 1, got a scalar")
    return reduction_ops.normalize_axis(axis, x.ndim, name)[0]


def _few_classes(x) -> bool:
    """Whether x (a NumPy array) has a short last axis (<= 64) and many rows (>= 32): then
    NumPy reduces along the long axis of a transposed copy 3-10x faster than along the
    short contiguous one (which runs one inner loop per row)."""
    return (type(x) is np.ndarray and x.ndim >= 2 and x.shape[-1] <= 64
            and x.size >= 32 * x.shape[-1])


def _max_keepdims(x, axis):
    """x.max(axis, keepdims=True), exactly; over a short last axis, from a transposed copy."""
    if axis in (-1, x.ndim - 1) and _few_classes(x):
        rows = np.ascontiguousarray(x.reshape(-1, x.shape[-1]).T)
        return rows.max(axis=0).reshape(x.shape[:-1] + (1,))
    return x.max(axis=axis, keepdims=True)


def _shifted_rows(logits):
    """(rows, class axis): the logits as a new 2-D array, classes along `class axis`, each
    example less its maximum; classes first (transposed) where `_few_classes`."""
    flat = logits.reshape(-1, logits.shape[-1])
    if _few_classes(logits):
        rows = np.ascontiguousarray(flat.T)
        rows -= rows.max(axis=0)
        return rows, 0
    return flat - flat.max(axis=1, keepdims=True), 1


def _at_labels(rows, axis: int, labels) -> tuple:
    """The index of each example's label entry in `_shifted_rows`' array."""
    examples = backend.array_module(rows).arange(rows.shape[1 - axis])
    labels = labels.reshape(-1)
    return (labels, examples) if axis == 0 else (examples, labels)


def _log_softmax_array(x, axis):
    shifted = x - _max_keepdims(x, axis)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _softmax_array(x, axis):
    e = np.exp(x - _max_keepdims(x, axis))
    e /= e.sum(axis=axis, keepdims=True)
    return e


@primitive("softmax")
def _softmax(x, axis):
    return _softmax_array(x, axis)


@_softmax.defgrad
def _(op, dy):
    y = op.output
    inner = reduction_ops.reduce_sum(dy * y, op.attrs["axis"], keepdims=True)
    return (y * (dy - inner),)


def softmax(logits, axis: int = -1):
    """exp(x) / sum(exp(x)) along `axis`, computed without overflow.

    Args:
        logits: a floating tensor of rank at least 1.
        axis: the axis normalized over.

    Returns:
        A tensor of `logits`' shape whose entries along `axis` are positive and sum to 1.

    Raises:
        InvalidArgumentError: `logits` is a scalar, or `axis` is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.softmax([0.0, 0.0, 0.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[0.33333334, 0.33333334, 0.33333334]>
    """
    x = convert_to_tensor(logits)
    return apply(_softmax, (x,), {"axis": _axis(x, axis, "softmax")})


def softmax_over(x: Tensor, axes) -> Tensor:
    """softmax normalized over several axes at once (a normalized tuple, or None for all)."""
    return apply(_softmax, (x,), {"axis": axes})


@primitive("reduce_logsumexp")
def _reduce_logsumexp(x, axis, keepdims):
    peak = x.max(axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0)
    total = np.log(np.exp(x - peak).sum(axis=axis, keepdims=True)) + peak
    return total if keepdims else total.reshape(
        tuple(d for i, d in enumerate(x.shape) if axis is not None and i not in axis)
    )


@_reduce_logsumexp.defgrad
def _(op, dy):
    # the softmax over the reduced axes, computed from the max-shifted inputs: exp(x - out)
    # would carry out's rounding error (~ulp(out) absolute, 3e-5 relative at |x| ~ 1000 in
    # float32) into every entry
    x, axis = op.inputs[0], op.attrs["axis"]
    return (reduction_ops.broadcast_reduced(dy, axis, x.shape) * softmax_over(x, axis),)


def reduce_logsumexp(input_tensor, axis=None, keepdims: bool = False):
    """log(sum(exp(x))) over `axis`, without overflow.

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_logsumexp([1000.0, 1000.0])
        <ks.Tensor: shape=(), dtype=float32, numpy=1000.6932>
    """
    x = convert_to_tensor(input_tensor)
    axes = reduction_ops.normalize_axis(axis, x.ndim, "reduce_logsumexp")
    return apply(_reduce_logsumexp, (x,), {"axis": axes, "keepdims": keepdims})


@primitive("log_softmax")
def _log_softmax(x, axis):
    return _log_softmax_array(x, axis)


@_log_softmax.defgrad
def _(op, dy):
    total = reduction_ops.reduce_sum(dy, op.attrs["axis"], keepdims=True)
    return (dy - math_ops.exp(op.output) * total,)


def log_softmax(logits, axis: int = -1):
    """log(softmax(x)) along `axis`, computed as x - logsumexp(x) (no log of 0).

    Args:
        logits: a floating tensor of rank at least 1.
        axis: the axis normalized over.

    Returns:
        A tensor of `logits`' shape.

    Raises:
        InvalidArgumentError: `logits` is a scalar, or `axis` is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.log_softmax([0.0, 0.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.6931472, -0.6931472]>
    """
    x = convert_to_tensor(logits)
    return apply(_log_softmax, (x,), {"axis": _axis(x, axis, "log_softmax")})


@primitive("softmax_cross_entropy_with_logits")
def _softmax_xent(labels, logits, axis):
    return -(labels * _log_softmax_array(logits, axis)).sum(axis=axis)


@_softmax_xent.defgrad
def _(op, dy):
    labels, logits = op.inputs
    axis = op.attrs["axis"]
    dy = shape_ops.expand_dims(dy, axis)
    d_labels = d_logits = None
    if op.needs[1]:
        mass = reduction_ops.reduce_sum(labels, axis, keepdims=True)
        d_logits = dy * (softmax(logits, axis) * mass - labels)
    if op.needs[0]:
        d_labels = dy * math_ops.negative(log_softmax(logits, axis))
    return d_labels, d_logits


def softmax_cross_entropy_with_logits(labels, logits, axis: int = -1):
    """-sum(labels * log_softmax(logits)) along `axis`: one loss per example, stable.

    Args:
        labels: a distribution over the classes per example (e.g. one-hot), `logits`' shape.
        logits: unnormalized log-probabilities.
        axis: the class axis.

    Returns:
        The losses, of `logits`' shape without `axis`; differentiable in both arguments.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[0.0, 0.0]])
        <ks.Tensor: shape=(1,), dtype=float32, numpy=[0.6931472]>
    """
    labels = convert_to_tensor(labels)
    logits = convert_to_tensor(logits)
    if labels.shape != logits.shape:
        raise InvalidArgumentError(
            f"softmax_cross_entropy_with_logits: labels shape {labels.shape} must equal "
            f"logits shape {logits.shape}"
        )
    labels = math_ops.cast(labels, logits.dtype)
    return apply(_softmax_xent, (labels, logits), {"axis": _axis(logits, axis, "softmax_xent")})


@primitive("sparse_softmax_cross_entropy_with_logits")
def _sparse_xent(labels, logits):
    # log(sum(exp(shifted))) - shifted[label]: -log_softmax at the label, without the
    # log-softmax of the other classes
    rows, axis = _shifted_rows(logits)
    picked = rows[_at_labels(rows, axis, labels)]
    total = np.log(np.exp(rows, out=rows).sum(axis=axis))
    total -= picked
    return total.reshape(labels.shape)


@_sparse_xent.defgrad
def _(op, dy):
    labels, logits = op.inputs
    return None, sparse_softmax_cross_entropy_grad(labels, logits, dy)


@primitive("sparse_softmax_cross_entropy_grad")
def _sparse_xent_grad(labels, logits, dy):
    rows, axis = _shifted_rows(logits)  # a new array: the rest is in place
    np.exp(rows, out=rows)
    rows /= rows.sum(axis=axis, keepdims=True)
    rows[_at_labels(rows, axis, labels)] -= 1.0
    rows *= dy.reshape(-1) if axis == 0 else dy.reshape(-1, 1)
    grad = rows.T if axis == 0 else rows
    return backend.array_module(rows).ascontiguousarray(grad).reshape(logits.shape)


@_sparse_xent_grad.defgrad
def _(op, c):
    # dy * (softmax(x) - one_hot) is linear in dy; in x it is softmax's Jacobian times dy
    labels, logits, dy = op.inputs
    probs = softmax(logits)
    d_logits = d_dy = None
    if op.needs[1]:
        scaled = c * shape_ops.expand_dims(dy, -1)
        d_logits = probs * (scaled - reduction_ops.reduce_sum(scaled * probs, -1, keepdims=True))
    if op.needs[2]:
        hot = indexing_ops.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        d_dy = reduction_ops.reduce_sum(c * (probs - hot), -1)
    return None, d_logits, d_dy


def sparse_softmax_cross_entropy_grad(labels, logits, dy):
    """dy[..., None] * (softmax(logits) - one_hot(labels)): the logits' gradient of the
    sparse softmax cross-entropy, fused (no one-hot array, one softmax pass)."""
    return apply(_sparse_xent_grad, tuple(map(convert_to_tensor, (labels, logits, dy))))


def sparse_softmax_cross_entropy_with_logits(labels, logits):
    """Cross-entropy of integer class `labels` against `logits` (last axis = classes).

    Args:
        labels: integer class ids, `logits`' shape without its last axis.
        logits: unnormalized log-probabilities, classes on the last axis.

    Returns:
        The losses, of `labels`' shape.

    Raises:
        InvalidArgumentError: the shapes do not fit, or a label is not in [0, classes).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.sparse_softmax_cross_entropy_with_logits([1], [[0.0, 0.0]])
        <ks.Tensor: shape=(1,), dtype=float32, numpy=[0.6931472]>
    """
    labels = convert_to_tensor(labels)
    logits = convert_to_tensor(logits)
    name = "sparse_softmax_cross_entropy_with_logits"
    if logits.ndim == 0 or labels.shape != logits.shape[:-1]:
        raise InvalidArgumentError(
            f"{name}: labels shape {labels.shape} must equal logits shape {logits.shape} "
            "without its last (class) axis"
        )
    labels = indexing_ops.checked_indices(name, labels, logits.shape[-1])
    return apply(_sparse_xent, (labels, logits))


def _log1p_of_unit(e):
    """log(1 + e), to a few ulp, for an array `e` (at least 1-d) of values in [0, 1].

    Kahan's trick, as Eigen's log1p: log(u) * e / (u - 1) with u = 1 + e rounded, whose
    rounding error cancels in the ratio. NumPy's float32 log1p is a scalar loop, several
    times slower than its log.
    """
    xp = backend.array_module(e)
    u = e + 1.0
    d = u - 1.0
    xp.log(u, out=u)
    with np.errstate(divide="ignore", invalid="ignore"):
        xp.divide(u, d, out=u)
    xp.copyto(u, 1.0, where=d == 0)  # e below half an ulp of 1: log1p(e) == e
    u *= e
    return u


@primitive("sigmoid_cross_entropy")
def _sigmoid_cross_entropy(z, x):
    # max(x, 0) - x*z + log(1 + e**-|x|): never overflows. Flattened (a view when
    # contiguous) so that every step below works in place on arrays, 0-d inputs included.
    xp = backend.array_module(x)
    flat = x.reshape(-1)
    e = xp.abs(flat)
    xp.negative(e, out=e)
    xp.exp(e, out=e)
    loss = xp.maximum(flat, 0)
    loss -= flat * z.reshape(-1)  # first: for labels 0 and 1 this is exact (often 0)
    loss += _log1p_of_unit(e)
    return loss.reshape(x.shape)


@_sigmoid_cross_entropy.defgrad
def _(op, dy):
    z, x = op.inputs
    dz = math_ops.negative(dy * x) if op.needs[0] else None
    dx = sigmoid_cross_entropy_grad(z, x, dy) if op.needs[1] else None
    return dz, dx


@primitive("sigmoid_cross_entropy_grad")
def _sigmoid_cross_entropy_grad(z, x, dy):
    g = activation_ops.sigmoid_values(x)  # a new array: the rest is in place
    g -= z
    g *= dy
    return g


@_sigmoid_cross_entropy_grad.defgrad
def _(op, c):
    # dy * (sigmoid(x) - z) is linear in dy, so d/d(dy) is this op again with c for dy
    z, x, dy = op.inputs
    dz = math_ops.negative(c * dy) if op.needs[0] else None
    dx = None
    if op.needs[1]:
        s = activation_ops.sigmoid(x)
        dx = c * dy * s * (1.0 - s)
    d_dy = sigmoid_cross_entropy_grad(z, x, c) if op.needs[2] else None
    return dz, dx, d_dy


def sigmoid_cross_entropy_grad(labels, logits, dy):
    """dy * (sigmoid(logits) - labels): the logits' gradient of the sigmoid cross-entropy, fused."""
    return apply(_sigmoid_cross_entropy_grad, (labels, logits, dy))


def sigmoid_cross_entropy_with_logits(labels, logits):
    """Binary cross-entropy from logits, elementwise: max(x, 0) - x*z + log(1 + e**-|x|).

    One primitive (stable for any logit) whose gradient is sigmoid(x) - z for
    the logits, sigmoid(0) - z at 0 included, and -x for the labels.

    Args:
        labels: targets z in [0, 1], `logits`' shape.
        logits: floating logits x.

    Returns:
        The losses, elementwise.

    Raises:
        InvalidArgumentError: the shapes differ, or `logits` are not floating point.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.sigmoid_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.6931472, 0.6931472]>
    """
    labels = convert_to_tensor(labels)
    logits = convert_to_tensor(logits)
    if labels.shape != logits.shape:
        raise InvalidArgumentError(
            f"sigmoid_cross_entropy_with_logits: labels shape {labels.shape} must equal logits "
            f"shape {logits.shape}"
        )
    if logits.dtype.kind != "f":
        raise InvalidArgumentError(
            f"sigmoid_cross_entropy_with_logits: logits must be floating point, got "
            f"{logits.dtype}; cast with ks.cast(logits, 'float32')"
        )
    labels = math_ops.cast(labels, logits.dtype)
    return apply(_sigmoid_cross_entropy, (labels, logits))


def l2_loss(t):
    """sum(t ** 2) / 2.

    Args:
        t: a tensor.

    Returns:
        A 0-d tensor.

    Example:
        >>> import kerasish as ks
        >>> float(ks.nn.l2_loss([1.0, 2.0]))
        2.5
    """
    return reduction_ops.reduce_sum(math_ops.square(t)) * 0.5


def l2_normalize(x, axis=None, epsilon: float = 1e-12):
    """x / sqrt(max(sum(x**2), epsilon)) along `axis`: unit L2 norm, safe at zero.

    Args:
        x: the values.
        axis: the axis or axes of the norm (None: all).
        epsilon: the floor of the squared norm (so zero vectors stay zero).

    Returns:
        A tensor like `x`.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1).numpy().tolist()
        [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    x = convert_to_tensor(x)
    squared = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
    return x * math_ops.rsqrt(math_ops.maximum(squared, epsilon))


@symbolic_fallback
def moments(x, axes, keepdims: bool = False):
    """(mean, variance) over `axes`.

    Args:
        x: a tensor.
        axes: the axes to reduce.
        keepdims: keep the reduced axes with length 1.

    Returns:
        (mean, population variance).

    Example:
        >>> import kerasish as ks
        >>> mean, variance = ks.nn.moments([[1.0, 2.0], [3.0, 6.0]], axes=[0])
        >>> mean.numpy().tolist(), variance.numpy().tolist()
        ([2.0, 4.0], [1.0, 4.0])
    """
    x = convert_to_tensor(x)
    mean = reduction_ops.reduce_mean(x, axes, keepdims=True)
    variance = reduction_ops.reduce_mean(math_ops.square(x - mean), axes, keepdims=True)
    if not keepdims:
        mean = shape_ops.squeeze(mean, axes)
        variance = shape_ops.squeeze(variance, axes)
    return mean, variance


def bias_add(value, bias):
    """value + bias, with `bias` a vector matching the last axis.

    Args:
        value: a tensor of rank at least 1.
        bias: a vector of `value`'s last-axis length.

    Returns:
        The sum, of `value`'s shape.

    Raises:
        InvalidArgumentError: `bias` is not such a vector.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.bias_add([[1.0, 2.0]], [10.0, 20.0]).numpy().tolist()
        [[11.0, 22.0]]
    """
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias)
    if bias.ndim != 1 or value.ndim == 0 or bias.shape[0] != value.shape[-1]:
        raise InvalidArgumentError(
            f"bias_add: bias shape {bias.shape} must be a vector matching the last axis of "
            f"{value.shape}"
        )
    return value + bias


def embedding_lookup(params, ids):
    """Rows of `params` at `ids`; an id outside [0, rows) raises at the call.

    Example error: ``embedding_lookup: indices[0] = 3081 is not in [0, 128)``.

    Args:
        params: the embedding table, shape (rows, ...).
        ids: an integer tensor of row numbers.

    Returns:
        A tensor of shape `ids.shape + params.shape[1:]`; its gradient is sparse
        (`IndexedSlices`).

    Raises:
        InvalidArgumentError: an id is not an integer in [0, rows).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.embedding_lookup([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [2, 0]).numpy().tolist()
        [[3.0, 3.0], [1.0, 1.0]]
    """
    return indexing_ops.gather(params, ids, name="embedding_lookup")


# ---------------------------------------------------------------- dropout


@symbolic_fallback
def dropout(x, rate: float, noise_shape=None, seed=None):
    """Zero each element with probability `rate` and scale the rest by 1 / (1 - rate).

    Args:
        x: a floating tensor.
        rate: the probability of dropping each element, in [0, 1).
        noise_shape: the shape of the keep mask, broadcast against `x` (e.g. (batch, 1,
            features) drops the same features at every step); None: `x`'s shape.
        seed: an int for a repeatable mask; None: the global random state.

    Returns:
        A tensor of `x`'s shape (`x` itself when `rate` is 0).

    Raises:
        InvalidArgumentError: `rate` is outside [0, 1).

    Example:
        >>> import kerasish as ks
        >>> kept = ks.nn.dropout(ks.ones([1000]), 0.5, seed=1)
        >>> sorted(set(kept.numpy().tolist()))
        [0.0, 2.0]
    """
    x = convert_to_tensor(x)
    if not 0 <= rate < 1:
        raise InvalidArgumentError(f"dropout: rate must be in [0, 1), got {rate}")
    if rate == 0:
        return x
    shape = x.shape if noise_shape is None else tuple(noise_shape)
    keep = math_ops.greater_equal(random.uniform(shape, dtype=x.dtype, seed=seed), rate)
    return x * math_ops.cast(keep, x.dtype) * (1.0 / (1.0 - rate))
