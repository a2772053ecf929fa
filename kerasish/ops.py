"""`ks.ops`: Keras 3's backend-neutral op names (NumPy spellings) on kerasish's ops.

Keras 3 code writes `ops.sum(x, axis=1)`, `ops.concatenate([a, b])`,
`ops.shape(x)`; with `import kerasish as keras` (or `from kerasish import
ops`) those names are here. Each is the kerasish op that already computes it
(same gradient, same checks), renamed, or a thin adapter where only the
argument spelling differs (`axes` for `perm`, `num_classes` for `depth`, NumPy's
split points, `x_min`/`x_max`). The Keras names kerasish had no op for (`dot`,
`full`, `take` with no axis, `repeat`, `flip`, `tril`, `triu`, `isnan`, `elu`
with an `alpha`, `einsum`) are compositions of existing ops, so their gradients
come for free. Ops with real results (`exp`, `sqrt`, `mean`, `softmax`, ...) turn
integer inputs into float32, as Keras does (kerasish's own ops follow NumPy's
float64). Not here yet: `sort`/`argsort`/`top_k`, and the control-flow ops
(`cond`, `scan`, `fori_loop`): write Python control flow, which runs eagerly.

Example:
    >>> import numpy as np
    >>> from kerasish import ops
    >>> x = ops.reshape(ops.arange(6, dtype="float32"), (2, 3))
    >>> ops.shape(x), float(ops.sum(ops.square(x)))
    ((2, 3), 55.0)
    >>> ops.convert_to_numpy(ops.mean(x, axis=1, keepdims=True)).tolist()
    [[1.0], [4.0]]
"""

from __future__ import annotations

import builtins
import functools
import inspect

import numpy as np

from kerasish import activations
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import symbolic_fallback
from kerasish.core.ops import array_ops, math_ops, nn_ops, scan_ops
from kerasish.core.ops.array_ops import (  # noqa: F401 - the same op under the same name
    broadcast_to,
    expand_dims,
    ones_like,
    reshape,
    squeeze,
    stop_gradient,
    unstack,
    zeros_like,
)
from kerasish.core.ops.math_ops import (  # noqa: F401
    abs,
    add,
    divide,
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    relu,
    relu6,
    sign,
    square,
    subtract,
    where,
)
from kerasish.core.ops.nn_ops import moments  # noqa: F401
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor  # noqa: F401


def _floating(x) -> Tensor:
    """Keras 3's dtype rule for ops with real results: integer and bool inputs become float32
    (kerasish's own ops follow NumPy, which gives float64)."""
    x = convert_to_tensor(x)
    return x if x.dtype.kind in "fc" else math_ops.cast(x, np.float32)


def _on_floats(op):
    """`op` with its first argument put through `_floating`."""

    @functools.wraps(op)
    def keras_dtypes(x, *args, **kwargs):
        return op(_floating(x), *args, **kwargs)

    return keras_dtypes


exp, expm1, log, log1p, sqrt, rsqrt, reciprocal = map(_on_floats, (
    math_ops.exp, math_ops.expm1, math_ops.log, math_ops.log1p, math_ops.sqrt, math_ops.rsqrt,
    math_ops.reciprocal))
floor, ceil = map(_on_floats, (math_ops.floor, math_ops.ceil))
sin, cos, tanh, erf = map(_on_floats, (math_ops.sin, math_ops.cos, math_ops.tanh, math_ops.erf))
sigmoid, log_sigmoid, softplus, softsign, silu, selu, gelu = map(_on_floats, (
    math_ops.sigmoid, math_ops.log_sigmoid, math_ops.softplus, math_ops.softsign, math_ops.silu,
    math_ops.selu, math_ops.gelu))
softmax, log_softmax = map(_on_floats, (nn_ops.softmax, nn_ops.log_softmax))
hard_sigmoid = _on_floats(activations.hard_sigmoid)
absolute = abs
power = math_ops.pow
true_divide = divide
floor_divide = math_ops.floordiv
swish = silu


# -- conversion ------------------------------------------------------------------------------


def convert_to_numpy(x) -> np.ndarray:
    """A NumPy array of `x`'s values (copied to the host from a GPU)."""
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def cast(x, dtype) -> Tensor:
    """`x` converted to `dtype` (a name such as 'float32' or a NumPy dtype)."""
    return math_ops.cast(x, dtype)


def shape(x) -> tuple:
    """The static shape of `x` as a tuple of ints (Keras 3: `ops.shape`, not a tensor)."""
    return tuple(convert_to_tensor(x).shape)


def ndim(x) -> int:
    """The rank of `x`."""
    return convert_to_tensor(x).ndim


def size(x) -> int:
    """The number of elements of `x`."""
    return int(np.prod(shape(x), dtype=np.int64))


# -- creation ---------------------------------------------------------------------------------


def zeros(shape, dtype=None) -> Tensor:  # noqa: A002 - Keras's name
    """Zeros of `shape` (float32 by default)."""
    return array_ops.zeros(shape, dtype or np.float32)


def ones(shape, dtype=None) -> Tensor:  # noqa: A002
    """Ones of `shape` (float32 by default)."""
    return array_ops.ones(shape, dtype or np.float32)


def full(shape, fill_value, dtype=None) -> Tensor:  # noqa: A002
    """`shape` filled with `fill_value` (float32 unless `dtype` says otherwise, as in Keras)."""
    return array_ops.fill(shape, fill_value, dtype=dtype or np.float32)


def full_like(x, fill_value, dtype=None) -> Tensor:
    """A tensor like `x` filled with `fill_value`."""
    x = convert_to_tensor(x)
    return array_ops.fill(x.shape, fill_value, dtype=dtype or x.dtype)


def eye(N, M=None, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """The identity matrix (N, M)."""
    return array_ops.eye(N, M, dtype=dtype or np.float32)


def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """Evenly spaced values in [start, stop), as `np.arange`."""
    return array_ops.range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, dtype=None) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` inclusive."""
    return array_ops.linspace(start, stop, num, dtype=dtype or np.float32)


# -- shape and layout -------------------------------------------------------------------------


def transpose(x, axes=None) -> Tensor:
    """Permute the axes (reversed when `axes` is None)."""
    return array_ops.transpose(x, axes)


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged."""
    x = convert_to_tensor(x)
    axes = list(range(x.ndim))
    first, second = (math_ops.normalize_axis(a, x.ndim, "swapaxes")[0] for a in (axis1, axis2))
    axes[first], axes[second] = second, first
    return array_ops.transpose(x, axes)


def moveaxis(x, source, destination) -> Tensor:
    """`x` with the axes `source` (an int or a sequence) moved to `destination`, the others
    keeping their order."""
    x = convert_to_tensor(x)
    sources, destinations = (
        [math_ops.normalize_axis(a, x.ndim, "moveaxis")[0]
         for a in ([axes] if isinstance(axes, (int, np.integer)) else axes)]
        for axes in (source, destination)
    )
    if len(sources) != len(destinations):
        raise InvalidArgumentError(
            f"moveaxis: source {source} and destination {destination} need as many axes"
        )
    order = [a for a in range(x.ndim) if a not in sources]
    for destination_axis, source_axis in sorted(zip(destinations, sources)):
        order.insert(destination_axis, source_axis)
    return array_ops.transpose(x, order)


def concatenate(xs, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis."""
    return array_ops.concat(list(xs), axis)


def stack(x, axis: int = 0) -> Tensor:
    """Join tensors along a new axis."""
    return array_ops.stack(list(x), axis)


def split(x, indices_or_sections, axis: int = 0) -> list:
    """NumPy's split: `n` equal parts, or cut before each of the given indices."""
    if isinstance(indices_or_sections, (int, np.integer)):
        return array_ops.split(x, int(indices_or_sections), axis)
    length = convert_to_tensor(x).shape[axis]
    cuts = [0] + [int(i) for i in indices_or_sections] + [length]
    return array_ops.split(x, [b - a for a, b in zip(cuts, cuts[1:])], axis)


def tile(x, repeats) -> Tensor:
    """Repeat `x` `repeats[i]` times along axis i."""
    return array_ops.tile(x, repeats)


def pad(x, pad_width, mode: str = "constant", constant_values=None) -> Tensor:
    """Pad with `pad_width` = [(before, after), ...] per axis ('constant', 'reflect',
    'symmetric')."""
    return array_ops.pad(x, pad_width, mode.upper(), constant_values or 0)


def take(x, indices, axis=None) -> Tensor:
    """Elements of `x` at `indices` along `axis` (of the flattened `x` when axis is None)."""
    if axis is None:
        return array_ops.gather(reshape(x, [-1]), indices)
    return array_ops.gather(x, indices, axis=axis)


def segment_sum(data, segment_ids, num_segments=None) -> Tensor:
    """Sums of the rows of `data` sharing a segment id."""
    if num_segments is None:
        num_segments = int(convert_to_numpy(segment_ids).max()) + 1
    return array_ops.unsorted_segment_sum(data, segment_ids, num_segments)


def repeat(x, repeats, axis=None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (of the flattened `x` when None)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    index = np.repeat(np.arange(x.shape[axis]), repeats)
    return array_ops.gather(x, index, axis=axis)


def flip(x, axis=None) -> Tensor:
    """`x` with the order of its elements reversed along `axis` (an int, a tuple, or all)."""
    x = convert_to_tensor(x)
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    for a in axes:
        x = array_ops.gather(x, np.arange(x.shape[a] - 1, -1, -1), axis=a)
    return x


def tril(x, k: int = 0) -> Tensor:
    """`x` with the elements above the k-th diagonal of its last two axes set to zero."""
    return _band(x, k, lower=True)


def triu(x, k: int = 0) -> Tensor:
    """`x` with the elements below the k-th diagonal of its last two axes set to zero."""
    return _band(x, k, lower=False)


def _band(x, k, lower):
    x = convert_to_tensor(x)
    rows, cols = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return where(keep, x, zeros_like(x))


def isnan(x) -> Tensor:
    """Where `x` is NaN."""
    return not_equal(x, x)


def isinf(x) -> Tensor:
    """Where `x` is +inf or -inf."""
    return equal(abs(x), np.inf)


def isfinite(x) -> Tensor:
    """Where `x` is neither NaN nor infinite."""
    return logical_not(logical_or(isnan(x), isinf(x)))


def one_hot(x, num_classes: int, axis: int = -1, dtype=None) -> Tensor:
    """One-hot vectors of `num_classes` for integer `x` (out-of-range ids give zeros)."""
    return array_ops.one_hot(x, num_classes, axis=axis, dtype=dtype or np.float32)


def clip(x, x_min, x_max) -> Tensor:
    """`x` limited to [x_min, x_max]."""
    return array_ops.clip_by_value(x, x_min, x_max)


# -- reductions -------------------------------------------------------------------------------


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (all axes when None)."""
    return math_ops.reduce_sum(x, axis, keepdims)


def mean(x, axis=None, keepdims: bool = False) -> Tensor:
    """Mean over `axis` (all axes when None); integers give float32, as in Keras."""
    return math_ops.reduce_mean(_floating(x), axis, keepdims)


def max(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Maximum over `axis` (all axes when None)."""
    return math_ops.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Minimum over `axis` (all axes when None)."""
    return math_ops.reduce_min(x, axis, keepdims)


def prod(x, axis=None, keepdims: bool = False) -> Tensor:
    """Product over `axis` (all axes when None)."""
    return scan_ops.reduce_prod(x, axis, keepdims)


def var(x, axis=None, keepdims: bool = False) -> Tensor:
    """Variance over `axis` (all axes when None)."""
    return math_ops.reduce_variance(_floating(x), axis, keepdims)


def std(x, axis=None, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis` (all axes when None)."""
    return math_ops.reduce_std(_floating(x), axis, keepdims)


def logsumexp(x, axis=None, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably."""
    return math_ops.reduce_logsumexp(_floating(x), axis, keepdims)


def all(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element over `axis` is true."""
    return math_ops.reduce_all(x, axis, keepdims)


def any(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element over `axis` is true."""
    return math_ops.reduce_any(x, axis, keepdims)


def count_nonzero(x, axis=None) -> Tensor:
    """The number of non-zero elements over `axis` (all axes when None), as int32."""
    return math_ops.reduce_sum(math_ops.cast(not_equal(x, 0), np.int32), axis)


def average(x, axis=None, weights=None) -> Tensor:
    """The mean over `axis`, weighted by `weights` (of `x`'s shape, or 1-D along `axis`)."""
    x = _floating(x)
    if weights is None:
        return mean(x, axis)
    weights = math_ops.cast(convert_to_tensor(weights), x.dtype)
    if weights.ndim == 1 and x.ndim > 1:
        if axis is None:
            raise InvalidArgumentError(
                f"average: 1-D weights of shape {weights.shape} need an axis for x of shape "
                f"{x.shape}"
            )
        axis = math_ops.normalize_axis(axis, x.ndim, "average")[0]
        weights = array_ops.reshape(weights, [-1 if a == axis else 1 for a in range(x.ndim)])
    return math_ops.reduce_sum(x * weights, axis) / math_ops.reduce_sum(
        weights * ones_like(x), axis)


def argmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the largest value along `axis` (of the flattened `x` when None), int32."""
    return _arg_reduce(math_ops.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the smallest value along `axis` (of the flattened `x` when None), int32."""
    return _arg_reduce(math_ops.argmin, x, axis, keepdims)


def _arg_reduce(op, x, axis, keepdims):
    x = convert_to_tensor(x)
    if axis is None:
        result = op(reshape(x, [-1]), axis=0, output_type=np.int32)
        return reshape(result, [1] * x.ndim) if keepdims else result
    result = op(x, axis=axis, output_type=np.int32)
    return array_ops.expand_dims(result, axis) if keepdims else result


def cumsum(x, axis=None) -> Tensor:
    """Running sums along `axis` (of the flattened `x` when None)."""
    return scan_ops.cumsum(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def cumprod(x, axis=None) -> Tensor:
    """Running products along `axis` (of the flattened `x` when None)."""
    return scan_ops.cumprod(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """The 2-norm (default, also 'fro') or the 1-norm over `axis` (all axes when None)."""
    return math_ops.norm(_floating(x), "euclidean" if ord is None else ord, axis, keepdims)


def round(x, decimals: int = 0) -> Tensor:  # noqa: A001
    """`x` rounded half to even to `decimals` places; integers are returned as they are."""
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        return x
    if decimals == 0:
        return math_ops.round(x)
    scale = 10.0**decimals
    return divide(math_ops.round(multiply(x, scale)), scale)


# -- products ---------------------------------------------------------------------------------


def dot(x1, x2) -> Tensor:
    """NumPy's dot: a product for scalars, the inner product of vectors, else a sum over
    the last axis of `x1` and the first (1-D) or second-to-last (2-D) axis of `x2`."""
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim == 1:
        if a.shape[-1] != b.shape[0]:
            raise InvalidArgumentError(
                f"dot: shapes {a.shape} and {b.shape} do not align ({a.shape[-1]} != "
                f"{b.shape[0]})"
            )
        return math_ops.reduce_sum(multiply(a, b), axis=-1)
    if b.ndim == 2:
        if a.ndim == 1:
            return squeeze(matmul(expand_dims(a, 0), b), 0)
        return matmul(a, b)
    raise InvalidArgumentError(
        f"dot: the second operand has rank {b.ndim} (shape {b.shape}); kerasish's dot takes "
        "rank 0, 1 or 2 there: use matmul for batched products"
    )


def einsum(subscripts: str, *operands) -> Tensor:
    """Einstein summation, as `np.einsum` (explicit `->` or NumPy's implicit output).

    Composed of transposes, reshapes, sums and one batched `matmul` per pair of
    operands (left to right), so it is differentiable to any order. Each letter
    names one axis per operand: ellipses and repeated letters within one operand
    (diagonals) are not taken.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> q, k = np.ones((2, 3, 4, 5)), np.ones((2, 6, 4, 5))
        >>> ops.shape(ops.einsum("bqhd,bkhd->bhqk", q, k))
        (2, 4, 3, 6)
    """
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    terms = inputs.split(",")
    letters_only = builtins.all(term.isalpha() for term in terms)
    if "." in subscripts or len(terms) != len(operands) or not letters_only:
        raise InvalidArgumentError(
            f"einsum: {subscripts!r} for {len(operands)} operand(s): give one group of "
            "letters per operand (ellipses are not taken), e.g. 'ij,jk->ik'"
        )
    if not arrow:
        once = [c for c in sorted(set(inputs)) if c.isalpha() and inputs.count(c) == 1]
        output = "".join(once)
    tensors = [convert_to_tensor(t) for t in operands]
    for term, tensor in zip(terms, tensors):
        if len(set(term)) != len(term) or len(term) != tensor.ndim:
            raise InvalidArgumentError(
                f"einsum: term {term!r} does not fit an operand of shape {tensor.shape} (one "
                "distinct letter per axis)"
            )
    term, result = terms[0], tensors[0]
    for index in range(1, len(terms)):
        later = output + "".join(terms[index + 1:])
        term, result = _contract(term, result, terms[index], tensors[index], later)
    return _reduce_to(term, result, output)


def _reduce_to(term: str, x: Tensor, output: str) -> Tensor:
    """Sum the axes of `x` (lettered by `term`) not in `output`, then order them as `output`."""
    summed = [i for i, c in enumerate(term) if c not in output]
    if summed:
        x = math_ops.reduce_sum(x, axis=summed)
        term = "".join(c for c in term if c in output)
    missing = set(output) - set(term)
    if missing:
        raise InvalidArgumentError(f"einsum: output letter(s) {sorted(missing)} are in no input")
    return x if term == output else array_ops.transpose(x, [term.index(c) for c in output])


def _contract(a_term, a, b_term, b, later):
    """a and b combined into one tensor keeping the letters in `later` (batch, a's, b's)."""
    a_term_kept = "".join(c for c in a_term if c in b_term or c in later)
    b_term_kept = "".join(c for c in b_term if c in a_term or c in later)
    a, b = _reduce_to(a_term, a, a_term_kept), _reduce_to(b_term, b, b_term_kept)
    batch = [c for c in a_term_kept if c in b_term_kept and c in later]
    summed = [c for c in a_term_kept if c in b_term_kept and c not in later]
    left = [c for c in a_term_kept if c not in b_term_kept]
    right = [c for c in b_term_kept if c not in a_term_kept]
    sizes = {**dict(zip(b_term_kept, b.shape)), **dict(zip(a_term_kept, a.shape))}
    for c in batch + summed:
        if a.shape[a_term_kept.index(c)] != b.shape[b_term_kept.index(c)]:
            raise InvalidArgumentError(
                f"einsum: axis {c!r} has size {a.shape[a_term_kept.index(c)]} in one operand and "
                f"{b.shape[b_term_kept.index(c)]} in the other (shapes {a.shape} and {b.shape})"
            )

    def volume(letters):
        return int(np.prod([sizes[c] for c in letters], dtype=np.int64))

    a = reshape(_reduce_to(a_term_kept, a, "".join(batch + left + summed)),
                (volume(batch), volume(left), volume(summed)))
    b = reshape(_reduce_to(b_term_kept, b, "".join(batch + summed + right)),
                (volume(batch), volume(summed), volume(right)))
    term = "".join(batch + left + right)
    return term, reshape(matmul(a, b), [sizes[c] for c in term])


# -- activations and neural-network helpers ---------------------------------------------------


def elu(x, alpha: float = 1.0) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    x = _floating(x)
    if alpha == 1.0:
        return math_ops.elu(x)
    return where(greater(x, 0), x, multiply(alpha, expm1(minimum(x, 0))))


def leaky_relu(x, negative_slope: float = 0.2) -> Tensor:
    """x for x >= 0, negative_slope * x otherwise."""
    return math_ops.leaky_relu(x, alpha=negative_slope)


def normalize(x, axis: int = -1, order: int = 2) -> Tensor:
    """`x` scaled to unit L2 norm along `axis` (Keras: `ops.normalize`; only order 2)."""
    if order != 2:
        raise InvalidArgumentError(f"normalize: only order=2 is available, got {order}")
    return nn_ops.l2_normalize(x, axis=axis)


# The functional API: a function here that fails on symbolic tensors because it needs
# concrete shapes records one node running it whole (see kerasish.models.symbolic). The
# re-exported kerasish ops stay the same objects (those that read static shapes, such as
# zeros_like, are defined with the fallback), except these two, kept bare for their speed.
_READ_SHAPES = {"broadcast_to", "reshape"}
for _name, _value in list(globals().items()):
    if inspect.isfunction(_value) and not _name.startswith("_") and (
        _value.__module__ == __name__ or _name in _READ_SHAPES
    ):
        globals()[_name] = symbolic_fallback(_value)
