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
float64).

Sorting and selection (`sort`, `top_k`, `take_along_axis`, `quantile`) gather with the
indices an `argsort` finds, so gradients flow to the picked values. The decompositions
(`inv`, `solve`, `det`, `cholesky`, `eigh`, `svd`, `qr`; also as `ops.linalg.*`) have
closed-form gradients (`svd`'s for distinct singular values, `qr`'s for M >= N). The
control-flow ops (`cond`, `while_loop`, `fori_loop`, `scan`, `map`, `vectorized_map`) run
their Python loop eagerly; `ks.function` records the ops each iteration runs (the loop is
unrolled, and a data-dependent trip count is checked on every call). `unique` and
`nonzero` return shapes that depend on the values, so they run eagerly only.

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
import types

import numpy as np

from kerasish import activations, losses
from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import symbolic_fallback
from kerasish.core.ops import array_ops, cumulative_ops, image_ops, linalg_ops, math_ops, nn_ops
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
tan, sinh, cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh = map(_on_floats, (
    math_ops.tan, math_ops.sinh, math_ops.cosh, math_ops.asin, math_ops.acos, math_ops.atan,
    math_ops.asinh, math_ops.acosh, math_ops.atanh))


# -- conversion ------------------------------------------------------------------------------


def convert_to_numpy(x) -> np.ndarray:
    """A NumPy array of `x`'s values (copied to the host from a GPU).

    Args:
        x: a tensor, or anything `np.asarray` takes.

    Returns:
        A NumPy array.

    Example:
        >>> from kerasish import ops
        >>> import kerasish as ks
        >>> ops.convert_to_numpy(ks.constant([1, 2])).tolist()
        [1, 2]
    """
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def cast(x, dtype) -> Tensor:
    """`x` converted to `dtype` (a name such as 'float32' or a NumPy dtype).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        dtype: the target dtype; floats become integers by truncation toward zero.

    Returns:
        The converted tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.cast([1.5, 2.5], "int32")
        <ks.Tensor: shape=(2,), dtype=int32, numpy=[1, 2]>
    """
    return math_ops.cast(x, dtype)


def shape(x) -> tuple:
    """The static shape of `x` as a tuple of ints (Keras 3: `ops.shape`, not a tensor).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tuple of ints.

    Example:
        >>> from kerasish import ops
        >>> ops.shape([[1, 2, 3]])
        (1, 3)
    """
    return tuple(convert_to_tensor(x).shape)


def ndim(x) -> int:
    """The rank of `x`.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        An int.

    Example:
        >>> from kerasish import ops
        >>> ops.ndim([[1, 2, 3]])
        2
    """
    return convert_to_tensor(x).ndim


def size(x) -> int:
    """The number of elements of `x`.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        An int.

    Example:
        >>> from kerasish import ops
        >>> ops.size([[1, 2, 3]])
        3
    """
    return int(np.prod(shape(x), dtype=np.int64))


# -- creation ---------------------------------------------------------------------------------


def zeros(shape, dtype=None) -> Tensor:  # noqa: A002 - Keras's name
    """Zeros of `shape` (float32 by default).

    Args:
        shape: an int or a sequence of ints.
        dtype: the element type; None: float32.

    Returns:
        A new tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.zeros((2,))
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 0.]>
    """
    return array_ops.zeros(shape, dtype or np.float32)


def ones(shape, dtype=None) -> Tensor:  # noqa: A002
    """Ones of `shape` (float32 by default).

    Args:
        shape: an int or a sequence of ints.
        dtype: the element type; None: float32.

    Returns:
        A new tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.ones((2,), dtype="int32")
        <ks.Tensor: shape=(2,), dtype=int32, numpy=[1, 1]>
    """
    return array_ops.ones(shape, dtype or np.float32)


def full(shape, fill_value, dtype=None) -> Tensor:  # noqa: A002
    """`shape` filled with `fill_value` (float32 unless `dtype` says otherwise, as in Keras).

    Args:
        shape: an int or a sequence of ints.
        fill_value: a scalar.
        dtype: the element type; None: float32.

    Returns:
        A new tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.full((2,), 3)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[3., 3.]>
    """
    return array_ops.fill(shape, fill_value, dtype=dtype or np.float32)


def full_like(x, fill_value, dtype=None) -> Tensor:
    """A tensor like `x` filled with `fill_value`.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        fill_value: a scalar.
        dtype: the element type; None: `x`'s.

    Returns:
        A new tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.full_like([1, 2], 7)
        <ks.Tensor: shape=(2,), dtype=int32, numpy=[7, 7]>
    """
    x = convert_to_tensor(x)
    return array_ops.fill(x.shape, fill_value, dtype=dtype or x.dtype)


def eye(N, M=None, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """The identity matrix (N, M).

    Args:
        N: the number of rows.
        M: the number of columns; None: N.
        dtype: the element type; None: float32.

    Returns:
        A 2-D tensor with ones on the main diagonal.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.eye(2, 3)).tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    return array_ops.eye(N, M, dtype=dtype or np.float32)


def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """Evenly spaced values in [start, stop), as `np.arange`.

    Args:
        start: the first value, or the stop when `stop` is None.
        stop: the end, not included.
        step: the spacing.
        dtype: the element type; None: int32 for int bounds, else float32.

    Returns:
        A 1-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.arange(0, 1, 0.5)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0. , 0.5]>
    """
    return array_ops.range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, dtype=None) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` inclusive.

    Args:
        start: the first value.
        stop: the last value.
        num: how many values.
        dtype: the element type; None: float32.

    Returns:
        A 1-D tensor of length `num`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.linspace(0, 1, 3)).tolist()
        [0.0, 0.5, 1.0]
    """
    return array_ops.linspace(start, stop, num, dtype=dtype or np.float32)


# -- shape and layout -------------------------------------------------------------------------


def transpose(x, axes=None) -> Tensor:
    """Permute the axes (reversed when `axes` is None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axes: result axis i is input axis axes[i]; None: reversed.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: `axes` is not a permutation of the axes.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.transpose(ops.zeros((2, 3, 4)), axes=(1, 0, 2)))
        (3, 2, 4)
    """
    return array_ops.transpose(x, axes)


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis1: one axis.
        axis2: the other.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.swapaxes(ops.zeros((2, 3, 4)), 0, 2))
        (4, 3, 2)
    """
    x = convert_to_tensor(x)
    axes = list(range(x.ndim))
    first, second = (math_ops.normalize_axis(a, x.ndim, "swapaxes")[0] for a in (axis1, axis2))
    axes[first], axes[second] = second, first
    return array_ops.transpose(x, axes)


def moveaxis(x, source, destination) -> Tensor:
    """`x` with the axes `source` (an int or a sequence) moved to `destination`, the others
    keeping their order.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        source: the axis or axes to move.
        destination: their positions in the result, as many.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: `source` and `destination` differ in length, or an axis is out
            of range.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.moveaxis(ops.zeros((2, 3, 4)), 0, -1))
        (3, 4, 2)
    """
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
    """Join tensors along an existing axis.

    Args:
        xs: a non-empty sequence of tensors of one rank.
        axis: the axis to join along.

    Returns:
        The joined tensor.

    Raises:
        InvalidArgumentError: `xs` is empty or the ranks differ.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.concatenate([[1, 2], [3]])).tolist()
        [1, 2, 3]
    """
    return array_ops.concat(list(xs), axis)


def stack(x, axis: int = 0) -> Tensor:
    """Join tensors along a new axis.

    Args:
        x: a non-empty sequence of tensors of one shape.
        axis: where the new axis goes.

    Returns:
        A tensor of rank one higher.

    Raises:
        InvalidArgumentError: `x` is empty, or two shapes differ.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.stack([[1, 2], [3, 4]], axis=1)).tolist()
        [[1, 3], [2, 4]]
    """
    return array_ops.stack(list(x), axis)


def split(x, indices_or_sections, axis: int = 0) -> list:
    """NumPy's split: `n` equal parts, or cut before each of the given indices.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        indices_or_sections: a number of equal parts, or the indices to cut before.
        axis: the axis to split along.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: the axis does not divide into that many equal parts.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.split([1, 2, 3, 4, 5], [2, 3])]
        [[1, 2], [3], [4, 5]]
    """
    if isinstance(indices_or_sections, (int, np.integer)):
        return array_ops.split(x, int(indices_or_sections), axis)
    length = convert_to_tensor(x).shape[axis]
    cuts = [0] + [int(i) for i in indices_or_sections] + [length]
    return array_ops.split(x, [b - a for a, b in zip(cuts, cuts[1:])], axis)


def tile(x, repeats) -> Tensor:
    """Repeat `x` `repeats[i]` times along axis i.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        repeats: one repeat count per axis.

    Returns:
        The tiled tensor.

    Raises:
        InvalidArgumentError: `repeats` does not have one entry per axis.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tile([1, 2], [2])).tolist()
        [1, 2, 1, 2]
    """
    return array_ops.tile(x, repeats)


def pad(x, pad_width, mode: str = "constant", constant_values=None) -> Tensor:
    """Pad with `pad_width` = [(before, after), ...] per axis ('constant', 'reflect',
    'symmetric').

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        pad_width: one (before, after) pair per axis.
        mode: 'constant', 'reflect' or 'symmetric'.
        constant_values: the fill of constant mode; None: 0.

    Returns:
        The padded tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.pad([1, 2, 3], [(2, 0)], mode="reflect")).tolist()
        [3, 2, 1, 2, 3]
    """
    return array_ops.pad(x, pad_width, mode.upper(), constant_values or 0)


def take(x, indices, axis=None) -> Tensor:
    """Elements of `x` at `indices` along `axis` (of the flattened `x` when axis is None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        indices: integer positions along `axis`.
        axis: the axis to index; None: the flattened `x`.

    Returns:
        The gathered tensor.

    Raises:
        InvalidArgumentError: an index is out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.take([[1, 2], [3, 4]], [3, 0])).tolist()
        [4, 1]
    """
    if axis is None:
        return array_ops.gather(reshape(x, [-1]), indices)
    return array_ops.gather(x, indices, axis=axis)


def segment_sum(data, segment_ids, num_segments=None) -> Tensor:
    """Sums of the rows of `data` sharing a segment id.

    Args:
        data: a tensor of rows.
        segment_ids: one integer segment id per row.
        num_segments: the number of segments; None: the largest id + 1.

    Returns:
        A tensor with one summed row per segment.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_sum([1, 2, 3], [0, 0, 2])).tolist()
        [3, 0, 3]
    """
    if num_segments is None:
        num_segments = int(convert_to_numpy(segment_ids).max()) + 1
    return array_ops.unsorted_segment_sum(data, segment_ids, num_segments)


def repeat(x, repeats, axis=None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        repeats: a count, or one count per element along `axis`.
        axis: the axis; None: the flattened `x`.

    Returns:
        The repeated tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.repeat([[1, 2]], [1, 3], axis=1)).tolist()
        [[1, 2, 2, 2]]
    """
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    index = np.repeat(np.arange(x.shape[axis]), repeats)
    return array_ops.gather(x, index, axis=axis)


def flip(x, axis=None) -> Tensor:
    """`x` with the order of its elements reversed along `axis` (an int, a tuple, or all).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis, a tuple of axes, or None for all.

    Returns:
        The flipped tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.flip([[1, 2], [3, 4]], axis=1)).tolist()
        [[2, 1], [4, 3]]
    """
    x = convert_to_tensor(x)
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    for a in axes:
        x = array_ops.gather(x, np.arange(x.shape[a] - 1, -1, -1), axis=a)
    return x


def tril(x, k: int = 0) -> Tensor:
    """`x` with the elements above the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tril(ops.ones((2, 2)))).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return _band(x, k, lower=True)


def triu(x, k: int = 0) -> Tensor:
    """`x` with the elements below the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.triu(ops.ones((2, 2)), k=1)).tolist()
        [[0.0, 1.0], [0.0, 0.0]]
    """
    return _band(x, k, lower=False)


def _band(x, k, lower):
    x = convert_to_tensor(x)
    rows, cols = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return where(keep, x, zeros_like(x))


def isnan(x) -> Tensor:
    """Where `x` is NaN.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isnan([1.0, float("nan"), float("inf")])).tolist()
        [False, True, False]
    """
    return not_equal(x, x)


def isinf(x) -> Tensor:
    """Where `x` is +inf or -inf.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isinf([1.0, float("nan"), float("-inf")])).tolist()
        [False, False, True]
    """
    return equal(abs(x), np.inf)


def isfinite(x) -> Tensor:
    """Where `x` is neither NaN nor infinite.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isfinite([1.0, float("nan"), float("inf")])).tolist()
        [True, False, False]
    """
    return logical_not(logical_or(isnan(x), isinf(x)))


def one_hot(x, num_classes: int, axis: int = -1, dtype=None) -> Tensor:
    """One-hot vectors of `num_classes` for integer `x` (out-of-range ids give zeros).

    Args:
        x: an integer tensor of class ids.
        num_classes: the number of classes.
        axis: where the class axis goes.
        dtype: the element type; None: float32.

    Returns:
        The one-hot tensor.

    Raises:
        InvalidArgumentError: `x` is not an integer tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.one_hot([1, 0], 3)).tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    return array_ops.one_hot(x, num_classes, axis=axis, dtype=dtype or np.float32)


def clip(x, x_min, x_max) -> Tensor:
    """`x` limited to [x_min, x_max].

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        x_min: the lower bound.
        x_max: the upper bound.

    Returns:
        The clipped tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.clip([-2, 0, 5], 0, 3)).tolist()
        [0, 0, 3]
    """
    return array_ops.clip_by_value(x, x_min, x_max)


# -- reductions -------------------------------------------------------------------------------


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.sum([[1, 2], [3, 4]], axis=0)).tolist()
        [4, 6]
    """
    return math_ops.reduce_sum(x, axis, keepdims)


def mean(x, axis=None, keepdims: bool = False) -> Tensor:
    """Mean over `axis` (all axes when None); integers give float32, as in Keras.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.mean([[1, 2], [3, 4]])
        <ks.Tensor: shape=(), dtype=float32, numpy=2.5>
    """
    return math_ops.reduce_mean(_floating(x), axis, keepdims)


def max(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Maximum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: `x` is empty.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.max([[1, 2], [3, 4]], axis=1)).tolist()
        [2, 4]
    """
    return math_ops.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Minimum over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: `x` is empty.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.min([[1, 2], [3, 4]], axis=0)).tolist()
        [1, 2]
    """
    return math_ops.reduce_min(x, axis, keepdims)


def prod(x, axis=None, keepdims: bool = False) -> Tensor:
    """Product over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.prod([[1, 2], [3, 4]], axis=1)).tolist()
        [2, 12]
    """
    return cumulative_ops.reduce_prod(x, axis, keepdims)


def var(x, axis=None, keepdims: bool = False) -> Tensor:
    """Variance over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The population variance (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.var([1, 3])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return math_ops.reduce_variance(_floating(x), axis, keepdims)


def std(x, axis=None, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The population standard deviation (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.std([1, 3])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return math_ops.reduce_std(_floating(x), axis, keepdims)


def logsumexp(x, axis=None, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> ops.logsumexp([0.0, 0.0])
        <ks.Tensor: shape=(), dtype=float32, numpy=0.6931472>
    """
    return nn_ops.reduce_logsumexp(_floating(x), axis, keepdims)


def all(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element over `axis` is true.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        A bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.all([[True, False], [True, True]], axis=1)).tolist()
        [False, True]
    """
    return math_ops.reduce_all(x, axis, keepdims)


def any(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element over `axis` is true.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        A bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.any([[True, False], [False, False]], axis=1)).tolist()
        [True, False]
    """
    return math_ops.reduce_any(x, axis, keepdims)


def count_nonzero(x, axis=None) -> Tensor:
    """The number of non-zero elements over `axis` (all axes when None), as int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: an axis or a sequence of axes; None: all axes.

    Returns:
        An int32 tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.count_nonzero([[0, 1], [2, 0]])
        <ks.Tensor: shape=(), dtype=int32, numpy=2>
    """
    return math_ops.reduce_sum(math_ops.cast(not_equal(x, 0), np.int32), axis)


def average(x, axis=None, weights=None) -> Tensor:
    """The mean over `axis`, weighted by `weights` (of `x`'s shape, or 1-D along `axis`).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to average over; None: all axes.
        weights: a tensor of `x`'s shape, or 1-D along `axis`; None: the plain mean.

    Returns:
        The weighted mean (float32 for integer `x`).

    Raises:
        InvalidArgumentError: 1-D weights for a tensor of rank 2 or more without an axis.

    Example:
        >>> from kerasish import ops
        >>> ops.average([1.0, 3.0], weights=[3.0, 1.0])
        <ks.Tensor: shape=(), dtype=float32, numpy=1.5>
    """
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
    """Index of the largest value along `axis` (of the flattened `x` when None), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices (the first one on ties).

    Example:
        >>> from kerasish import ops
        >>> ops.argmax([[1, 5], [7, 2]])
        <ks.Tensor: shape=(), dtype=int32, numpy=2>
    """
    return _arg_reduce(math_ops.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the smallest value along `axis` (of the flattened `x` when None), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices (the first one on ties).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.argmin([[1, 5], [7, 2]], axis=1)).tolist()
        [0, 1]
    """
    return _arg_reduce(math_ops.argmin, x, axis, keepdims)


def _arg_reduce(op, x, axis, keepdims):
    x = convert_to_tensor(x)
    if axis is None:
        result = op(reshape(x, [-1]), axis=0, output_type=np.int32)
        return reshape(result, [1] * x.ndim) if keepdims else result
    result = op(x, axis=axis, output_type=np.int32)
    return array_ops.expand_dims(result, axis) if keepdims else result


def cumsum(x, axis=None) -> Tensor:
    """Running sums along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis; None: the flattened `x`.

    Returns:
        A tensor of the running sums.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cumsum([1, 2, 3])).tolist()
        [1, 3, 6]
    """
    return cumulative_ops.cumsum(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def cumprod(x, axis=None) -> Tensor:
    """Running products along `axis` (of the flattened `x` when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis; None: the flattened `x`.

    Returns:
        A tensor of the running products.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cumprod([[1, 2], [3, 4]], axis=1)).tolist()
        [[1, 2], [3, 12]]
    """
    return cumulative_ops.cumprod(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """The 2-norm (default, also 'fro') or the 1-norm over `axis` (all axes when None).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        ord: None, 2, 'fro' or 'euclidean' for the 2-norm; 1 for the 1-norm.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The norm (float32 for integer `x`).

    Raises:
        InvalidArgumentError: another `ord`.

    Example:
        >>> from kerasish import ops
        >>> float(ops.norm([3.0, 4.0])), float(ops.norm([3.0, -4.0], ord=1))
        (5.0, 7.0)
    """
    return math_ops.norm(_floating(x), "euclidean" if ord is None else ord, axis, keepdims)


def round(x, decimals: int = 0) -> Tensor:  # noqa: A001
    """`x` rounded half to even to `decimals` places; integers are returned as they are.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        decimals: the number of decimal places.

    Returns:
        A tensor of `x`'s shape and dtype.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.round([0.5, 1.5, 2.5])).tolist()
        [0.0, 2.0, 2.0]
    """
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
    the last axis of `x1` and the first (1-D) or second-to-last (2-D) axis of `x2`.

    Args:
        x1: a tensor.
        x2: a tensor of rank 0, 1 or 2.

    Returns:
        The product.

    Raises:
        InvalidArgumentError: the shapes do not align, or `x2` has rank 3 or more.

    Example:
        >>> from kerasish import ops
        >>> float(ops.dot([1, 2], [3, 4]))
        11.0
    """
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

    Args:
        subscripts: one group of letters per operand, comma-separated, and optionally
            `->` and the output's letters (else the letters used once, sorted).
        *operands: the tensors, one per group.

    Returns:
        The contracted tensor.

    Raises:
        InvalidArgumentError: the subscripts have an ellipsis or a repeated letter in one
            term, do not match the operands in number or rank, give one letter two sizes,
            or name an output letter no input has.

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
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        alpha: the scale of the negative part.

    Returns:
        A floating tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.elu([-1.0, 1.0], alpha=2.0)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.2642411,  1.       ]>
    """
    x = _floating(x)
    if alpha == 1.0:
        return math_ops.elu(x)
    return where(greater(x, 0), x, multiply(alpha, expm1(minimum(x, 0))))


def leaky_relu(x, negative_slope: float = 0.2) -> Tensor:
    """x for x >= 0, negative_slope * x otherwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        negative_slope: the slope for negative x.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.leaky_relu([-1.0, 1.0], negative_slope=0.5)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.5,  1. ]>
    """
    return math_ops.leaky_relu(x, alpha=negative_slope)


def normalize(x, axis: int = -1, order: int = 2) -> Tensor:
    """`x` scaled to unit L2 norm along `axis` (Keras: `ops.normalize`; only order 2).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis the norm is taken over.
        order: the norm; only 2.

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: `order` is not 2.

    Example:
        >>> from kerasish import ops
        >>> ops.normalize([[3.0, 4.0]])
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0.6, 0.8]]>
    """
    if order != 2:
        raise InvalidArgumentError(f"normalize: only order=2 is available, got {order}")
    return nn_ops.l2_normalize(x, axis=axis)


# -- more math -------------------------------------------------------------------------------


def arctan2(x1, x2) -> Tensor:
    """The angle of the point (x2, x1) from the positive x axis, in (-pi, pi].

    Args:
        x1: the second coordinate (y).
        x2: the first coordinate (x), broadcast against x1.

    Returns:
        The angles (float32 for integer inputs).

    Example:
        >>> from kerasish import ops
        >>> print(f"{float(ops.arctan2([1.0], [1.0])[0]):.5f}")  # (the last digit varies)
        0.78540
    """
    return math_ops.atan2(_floating(x1), _floating(x2))


def log2(x) -> Tensor:
    """The base-2 logarithm elementwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float32 for integers).

    Example:
        >>> from kerasish import ops
        >>> ops.log2([1, 8])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(2.0))


def log10(x) -> Tensor:
    """The base-10 logarithm elementwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float32 for integers).

    Example:
        >>> from kerasish import ops
        >>> ops.log10([1.0, 1000.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(10.0))


# -- sorting, searching and selection ----------------------------------------------------------


def sort(x, axis: int = -1) -> Tensor:
    """`x` sorted ascending along `axis`; the gradient goes back to where each value came from.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.

    Returns:
        A tensor of `x`'s shape and dtype.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.sort([[3, 1, 2], [0, 5, 4]])).tolist()
        [[1, 2, 3], [0, 4, 5]]
    """
    return array_ops.sort(x, axis)


def argsort(x, axis: int = -1) -> Tensor:
    """The indices that sort `x` ascending along `axis` (stable), int32.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis to sort along.

    Returns:
        An int32 tensor of `x`'s shape (not differentiable).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.argsort([3, 1, 2])).tolist()
        [1, 2, 0]
    """
    return array_ops.argsort(x, axis)


def top_k(x, k: int, sorted: bool = True) -> tuple:  # noqa: A002 - Keras's name
    """The `k` largest values along the last axis, largest first, and their int32 indices
    (the lower index first among equal values).

    Args:
        x: a tensor of rank >= 1.
        k: how many, at most the last axis' length.
        sorted: Keras's flag; the values always come sorted here.

    Returns:
        (values, indices), each of `x`'s shape with the last axis k long; the gradient of
        the values flows to the picked entries.

    Raises:
        InvalidArgumentError: `k` is out of range.

    Example:
        >>> from kerasish import ops
        >>> values, indices = ops.top_k([[1.0, 5.0, 3.0]], k=2)
        >>> ops.convert_to_numpy(values).tolist(), ops.convert_to_numpy(indices).tolist()
        ([[5.0, 3.0]], [[1, 2]])
    """
    return array_ops.top_k(x, k, sorted)


def in_top_k(targets, predictions, k: int) -> Tensor:
    """Whether each target's score is among the `k` largest of its row (ties at the boundary
    count as in).

    Args:
        targets: (batch,) integer class ids.
        predictions: (batch, classes) scores.
        k: how many of the largest count.

    Returns:
        A (batch,) bool tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.in_top_k([1, 2], [[0.1, 0.9, 0.0], [0.5, 0.4, 0.1]], 2))
        array([ True, False])
    """
    return array_ops.in_top_k(targets, predictions, k)


def take_along_axis(x, indices, axis=None) -> Tensor:
    """`x`'s values at `indices` along `axis` (NumPy's take_along_axis; the other axes of
    `indices` broadcast against `x`'s); axis None: the flattened `x` and 1-D indices.

    Args:
        x: a tensor.
        indices: integers of `x`'s rank (negative ones count from the end).
        axis: the axis they index, or None.

    Returns:
        The picked values; the gradient flows back to them.

    Raises:
        InvalidArgumentError: the shapes do not fit, or an index is out of range.

    Example:
        >>> from kerasish import ops
        >>> x = [[10.0, 30.0, 20.0], [5.0, 4.0, 6.0]]
        >>> ops.convert_to_numpy(ops.take_along_axis(x, ops.argsort(x), axis=1)).tolist()
        [[10.0, 20.0, 30.0], [4.0, 5.0, 6.0]]
    """
    if axis is None:
        return array_ops.take_along_axis(reshape(x, [-1]), reshape(indices, [-1]), 0)
    return array_ops.take_along_axis(x, indices, axis)


searchsorted = array_ops.searchsorted
digitize = array_ops.digitize


def nonzero(x) -> tuple:
    """The indices of the non-zero elements: one int32 tensor per axis, in row-major order.

    Args:
        x: a tensor of rank >= 1.

    Returns:
        A tuple of `ndim(x)` 1-D int32 tensors.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.nonzero([[0, 3], [4, 0]])]
        [[0, 1], [1, 0]]
    """
    x = convert_to_tensor(x)
    found = math_ops.cast(math_ops.where(x if x.dtype.kind == "b" else not_equal(x, 0)), np.int32)
    return tuple(array_ops.getitem(found, (builtins.slice(None), d)) for d in range(x.ndim))


def unique(x, sorted: bool = True, return_index: bool = False,  # noqa: A002 - Keras's names
           return_inverse: bool = False, return_counts: bool = False, axis=None, size=None,
           fill_value=None):
    """The distinct values of `x` (eager: the result's length depends on the values).

    Args:
        x: a tensor.
        sorted: True: ascending; False: in order of first appearance.
        return_index: also return the index of each value's first occurrence.
        return_inverse: also return each element's position among the values.
        return_counts: also return how often each value occurs.
        axis: None: the flattened `x`; an int: distinct slices along it.
        size: pad (with `fill_value`) or cut the values to this length (axis None only).
        fill_value: the padding; None: the smallest value.

    Returns:
        The values, or a tuple (values, then index, inverse and counts as asked), the
        last three int32.

    Raises:
        InvalidArgumentError: `size` with an axis.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.unique([3, 1, 3, 2], sorted=False)).tolist()
        [3, 1, 2]
    """
    values, index, inverse, counts = array_ops.unique_with_counts(x, axis)
    along = 0 if axis is None else axis
    if not sorted:
        order = argsort(index)
        values, index, counts = (take(values, order, axis=along), take(index, order),
                                 take(counts, order))
        inverse = take(argsort(order), inverse)
    if size is not None:
        if axis is not None:
            raise InvalidArgumentError(f"unique: size is taken only with axis None, got {axis}")
        missing = builtins.max(int(size) - values.shape[0], 0)
        fill = math_ops.reduce_min(values) if fill_value is None else fill_value
        values = concatenate([values[:size], full((missing,), fill, values.dtype)])
        index, counts = (concatenate([t[:size], array_ops.zeros((missing,), np.int32)])
                         for t in (index, counts))
    asked = [t for t, wanted in ((index, return_index), (inverse, return_inverse),
                                 (counts, return_counts)) if wanted]
    return (values, *asked) if asked else values


def bincount(x, weights=None, minlength: int = 0, sparse: bool = False) -> Tensor:
    """How often each non-negative integer occurs in `x` (the sum of its `weights`), per row
    for a 2-D `x`.

    Args:
        x: a 1-D or 2-D tensor of non-negative integers.
        weights: None (counts, int32), or a tensor of `x`'s shape whose entries are summed
            (differentiable with respect to them).
        minlength: the least length of the result.
        sparse: Keras's flag for a sparse result; only False.

    Returns:
        (length,) or (rows, length), length = max(max(x) + 1, minlength).

    Raises:
        InvalidArgumentError: `x` is not integer of rank 1 or 2, a value is negative, or
            `sparse` is True.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.bincount([0, 2, 2], minlength=4)).tolist()
        [1, 0, 2, 0]
    """
    ids = convert_to_tensor(x)
    if sparse or ids.dtype.kind not in "iu" or ids.ndim not in (1, 2):
        raise InvalidArgumentError(
            f"bincount: needs dense counts (sparse=False) of a 1-D or 2-D integer tensor, got "
            f"sparse={sparse} and {ids.dtype} of shape {ids.shape}"
        )
    host = convert_to_numpy(ids)
    length = builtins.max(int(minlength), int(host.max()) + 1 if host.size else 0)
    values = array_ops.ones_like(ids, dtype=np.int32) if weights is None else convert_to_tensor(
        weights)
    if ids.ndim == 1:
        return array_ops.unsorted_segment_sum(values, ids, length)
    rows = ids.shape[0]
    shifted = reshape(ids + np.arange(rows).reshape(-1, 1) * length, [-1])
    counts = array_ops.unsorted_segment_sum(reshape(values, [-1]), shifted, rows * length)
    return reshape(counts, (rows, length))


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(x, q, axis=None, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The q-th quantiles over `axis` (NumPy's, with its methods), from a sort, so the
    gradient flows to the values they interpolate.

    Args:
        x: a tensor.
        q: a quantile in [0, 1], or a 1-D sequence of them.
        axis: an axis or a sequence of axes; None: all axes.
        method: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The quantiles (float32 for integer `x`); for a sequence `q`, its axis comes first.

    Raises:
        InvalidArgumentError: `q` is outside [0, 1] or of rank 2, or another method.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.quantile([[1.0, 2.0, 3.0, 4.0]], [0.5, 1.0], axis=1))
        array([[2.5],
               [4. ]], dtype=float32)
    """
    x = _floating(x)
    qs = np.asarray(convert_to_numpy(q), dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)) or method not in _QUANTILE_METHODS:
        raise InvalidArgumentError(
            f"quantile: q must be a number or a 1-D sequence in [0, 1] (got {qs.tolist()}) and "
            f"method one of {_QUANTILE_METHODS} (got {method!r})"
        )
    reduced = sorted_axes = tuple(range(x.ndim)) if axis is None else tuple(
        builtins.sorted(math_ops.normalize_axis(axis, x.ndim, "quantile")))
    kept = [a for a in range(x.ndim) if a not in sorted_axes]
    values = reshape(array_ops.transpose(x, kept + list(reduced)),
                     [x.shape[a] for a in kept] + [-1])
    values = array_ops.sort(values, -1)
    last, position = values.ndim - 1, qs.reshape(-1) * (values.shape[-1] - 1)
    low, high = np.floor(position).astype(np.int64), np.ceil(position).astype(np.int64)
    if method == "nearest":
        low = high = np.around(position).astype(np.int64)
    below, above = (array_ops.gather(values, i, axis=last) for i in (low, high))
    if method in ("lower", "nearest"):
        result = below
    elif method == "higher":
        result = above
    elif method == "midpoint":
        result = (below + above) * 0.5
    else:
        result = below + (above - below) * math_ops.cast(position - low, x.dtype)
    result = moveaxis(result, -1, 0)
    if keepdims:
        result = reshape(result, [len(low)] + [1 if a in reduced else x.shape[a]
                                               for a in range(x.ndim)])
    return result if qs.ndim else squeeze(result, 0)


def median(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median over `axis` (all axes when None): the mean of the middle two for an even
    count.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The medians (float32 for integer `x`).

    Example:
        >>> from kerasish import ops
        >>> float(ops.median([3, 1, 4, 2]))
        2.5
    """
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


# -- more shape and array ops -------------------------------------------------------------------


def roll(x, shift, axis=None) -> Tensor:
    """`x` shifted by `shift` places along `axis`, the end wrapping around to the front.

    Args:
        x: a tensor.
        shift: an int, or one per axis.
        axis: an int, a sequence, or None: the flattened `x` (reshaped back).

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.roll([1, 2, 3, 4], 1)).tolist()
        [4, 1, 2, 3]
    """
    x = convert_to_tensor(x)
    if axis is None:
        return reshape(roll(reshape(x, [-1]), shift, 0), x.shape)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    for step, a in zip(shifts.reshape(-1).tolist(), axes.reshape(-1).tolist()):
        a = math_ops.normalize_axis(a, x.ndim, "roll")[0]
        n = x.shape[a]
        if n is None:  # a symbolic tensor's unknown axis: one node rolls it when it runs
            raise InvalidArgumentError(f"roll: axis {a} of shape {x.shape} has no known size")
        if n and step % n:
            x = array_ops.gather(x, (np.arange(n) - step) % n, axis=a)
    return x


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal `offset` above the main one (below for negative) of the matrices in the
    axes `axis1` and `axis2`; it becomes the last axis, as in NumPy.

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The diagonals: the other axes, then the diagonal's.

    Raises:
        InvalidArgumentError: the two axes are the same or out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diagonal([[1, 2], [3, 4]], offset=1)).tolist()
        [2]
    """
    x = convert_to_tensor(x)
    rows_axis, cols_axis = (math_ops.normalize_axis(a, x.ndim, "diagonal")[0]
                            for a in (axis1, axis2))
    if rows_axis == cols_axis:
        raise InvalidArgumentError(
            f"diagonal: axis1 and axis2 are the same axis ({axis1}, {axis2}) of shape {x.shape}")
    rest = [a for a in range(x.ndim) if a not in (rows_axis, cols_axis)]
    x = array_ops.transpose(x, rest + [rows_axis, cols_axis])
    first_row, first_col = builtins.max(0, -offset), builtins.max(0, offset)
    n = builtins.max(0, builtins.min(x.shape[-2] - first_row, x.shape[-1] - first_col))
    return array_ops.getitem(x, (Ellipsis, np.arange(n) + first_row, np.arange(n) + first_col))


def diag(x, k: int = 0) -> Tensor:
    """The k-th diagonal of a matrix, or the square matrix with a vector on its k-th diagonal.

    Args:
        x: a 1-D or 2-D tensor.
        k: which diagonal (above the main one for k > 0).

    Returns:
        A 1-D tensor for a matrix; a (n + |k|, n + |k|) matrix for a vector of length n.

    Raises:
        InvalidArgumentError: `x` has another rank.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diag([1, 2], k=1)).tolist()
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    x = convert_to_tensor(x)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise InvalidArgumentError(f"diag: needs a 1-D or 2-D tensor, got shape {x.shape}")
    n = x.shape[0] + builtins.abs(k)
    padded = array_ops.pad(x, [[0, builtins.abs(k)]])
    line = reshape(padded, (-1, 1) if k >= 0 else (1, -1))
    return multiply(line, np.eye(n, k=k, dtype=x.dtype))


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The sum of a diagonal (see `diagonal`) of the matrices in `axis1` and `axis2`.

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The sums, with the two axes removed.

    Example:
        >>> from kerasish import ops
        >>> int(ops.trace([[1, 2], [3, 4]]))
        5
    """
    return math_ops.reduce_sum(diagonal(x, offset, axis1, axis2), -1)


def tensordot(x1, x2, axes=2) -> Tensor:
    """The sum of products over `axes` (NumPy's tensordot): the last `axes` of x1 with the
    first of x2, or the axes listed as (x1's, x2's).

    Args:
        x1: a tensor.
        x2: a tensor.
        axes: an int, or a pair of axis lists (or ints) of equal length.

    Returns:
        x1's other axes followed by x2's.

    Raises:
        InvalidArgumentError: the summed axes differ in number or size.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.tensordot(np.ones((2, 3, 4)), np.ones((4, 3, 5)), ([1, 2], [1, 0])))
        (2, 5)
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if isinstance(axes, (int, np.integer)):
        a_axes, b_axes = list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes)))
    else:
        a_axes, b_axes = ([ax] if isinstance(ax, (int, np.integer)) else list(ax) for ax in axes)
    a_axes = [math_ops.normalize_axis(ax, a.ndim, "tensordot")[0] for ax in a_axes]
    b_axes = [math_ops.normalize_axis(ax, b.ndim, "tensordot")[0] for ax in b_axes]
    if [a.shape[i] for i in a_axes] != [b.shape[i] for i in b_axes]:
        raise InvalidArgumentError(
            f"tensordot: axes {a_axes} of shape {a.shape} and axes {b_axes} of shape {b.shape} "
            "differ in number or size"
        )
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]

    def volume(shape, picked):
        return int(np.prod([shape[i] for i in picked], dtype=np.int64))

    left = reshape(array_ops.transpose(a, a_free + a_axes),
                   (volume(a.shape, a_free), volume(a.shape, a_axes)))
    right = reshape(array_ops.transpose(b, b_axes + b_free),
                    (volume(b.shape, b_axes), volume(b.shape, b_free)))
    return reshape(matmul(left, right), [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])


def outer(x1, x2) -> Tensor:
    """Every product x1[i] * x2[j] of the flattened inputs, as a matrix.

    Args:
        x1: a tensor (flattened).
        x2: a tensor (flattened).

    Returns:
        A (size(x1), size(x2)) tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.outer([1, 2], [3, 4, 5])).tolist()
        [[3, 4, 5], [6, 8, 10]]
    """
    return multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def inner(x1, x2) -> Tensor:
    """The sum of products over the last axes (NumPy's inner); a product when one is a scalar.

    Args:
        x1: a tensor.
        x2: a tensor whose last axis matches x1's.

    Returns:
        x1's other axes followed by x2's.

    Example:
        >>> from kerasish import ops
        >>> float(ops.inner([1.0, 2.0], [3.0, 4.0]))
        11.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


def vdot(x1, x2) -> Tensor:
    """The dot product of the flattened inputs.

    Args:
        x1: a tensor.
        x2: a tensor of as many elements.

    Returns:
        A scalar.

    Example:
        >>> from kerasish import ops
        >>> float(ops.vdot([[1.0, 2.0]], [3.0, 4.0]))
        11.0
    """
    return dot(reshape(x1, [-1]), reshape(x2, [-1]))


def cross(x1, x2, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None) -> Tensor:
    """The cross product of 3-vectors (or 2-vectors, with a zero third component) along the
    given axes, the other axes broadcast (NumPy's cross).

    Args:
        x1: vectors along `axisa`.
        x2: vectors along `axisb`.
        axisa: x1's vector axis.
        axisb: x2's vector axis.
        axisc: the result's vector axis.
        axis: when given, the vector axis of all three.

    Returns:
        The cross products; for two 2-vectors, the scalar third component (the axis
        removed).

    Raises:
        InvalidArgumentError: a vector axis is not of length 2 or 3.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])).tolist()
        [0.0, 0.0, 1.0]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise InvalidArgumentError(
            f"cross: the vector axes must have length 2 or 3, got shapes {a.shape} and "
            f"{b.shape} (vectors last)"
        )

    def components(v):
        parts = unstack(v, axis=-1)
        return parts if len(parts) == 3 else [*parts, array_ops.zeros_like(parts[0])]

    (ax, ay, az), (bx, by, bz) = components(a), components(b)
    z = ax * by - ay * bx
    if a.shape[-1] == b.shape[-1] == 2:
        return z
    return moveaxis(stack([ay * bz - az * by, az * bx - ax * bz, z], axis=-1), -1, axisc)


def meshgrid(*x, indexing: str = "xy") -> list:
    """Coordinate grids from 1-D coordinate vectors (NumPy's meshgrid).

    Args:
        *x: 1-D tensors, one per dimension.
        indexing: 'xy' (the first two axes swapped: x along columns) or 'ij'.

    Returns:
        A list of tensors, all of the grid's shape.

    Raises:
        InvalidArgumentError: another indexing.

    Example:
        >>> from kerasish import ops
        >>> [ops.shape(g) for g in ops.meshgrid([1, 2, 3], [4, 5])]
        [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise InvalidArgumentError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vectors = [reshape(v, [-1]) for v in x]
    axes = list(range(len(vectors)))
    if indexing == "xy" and len(vectors) >= 2:
        axes[0], axes[1] = 1, 0
    grid = [0] * len(vectors)
    for v, a in zip(vectors, axes):
        grid[a] = v.shape[0]
    return [broadcast_to(reshape(v, [-1 if d == a else 1 for d in range(len(grid))]), grid)
            for v, a in zip(vectors, axes)]


def identity(n: int, dtype=None) -> Tensor:
    """The n x n identity matrix (Keras's `ops.identity`, not TF's copy op).

    Args:
        n: the size.
        dtype: the element type; None: float32.

    Returns:
        A 2-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.identity(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return array_ops.eye(n, dtype=dtype or np.float32)


def _box(op_name: str, x: Tensor, start_indices, sizes) -> tuple:
    """The slices of the box at `start_indices` of `sizes`, checked to lie inside `x`."""
    starts = [int(s) for s in start_indices]
    sizes = [int(s) for s in sizes]
    fits = len(starts) == len(sizes) == x.ndim and builtins.all(
        0 <= s and 0 <= n and s + n <= dim for s, n, dim in zip(starts, sizes, x.shape))
    if not fits:
        raise InvalidArgumentError(
            f"{op_name}: a box at {starts} of shape {tuple(sizes)} does not fit inside inputs of "
            f"shape {x.shape}"
        )
    return tuple(builtins.slice(s, s + n) for s, n in zip(starts, sizes))


def slice(inputs, start_indices, shape) -> Tensor:  # noqa: A001 - Keras's name
    """The box of `shape` starting at `start_indices`.

    Args:
        inputs: a tensor.
        start_indices: one start per axis.
        shape: one size per axis.

    Returns:
        A tensor of `shape`.

    Raises:
        InvalidArgumentError: the box does not fit inside `inputs`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.slice([[1, 2, 3], [4, 5, 6]], (0, 1), (2, 2))).tolist()
        [[2, 3], [5, 6]]
    """
    x = convert_to_tensor(inputs)
    return array_ops.getitem(x, _box("slice", x, start_indices, shape))


def slice_update(inputs, start_indices, updates) -> Tensor:
    """`inputs` with the box at `start_indices` replaced by `updates` (differentiable in both).

    Args:
        inputs: a tensor.
        start_indices: one start per axis.
        updates: the new values of the box (cast to `inputs`' dtype).

    Returns:
        A tensor of `inputs`' shape.

    Raises:
        InvalidArgumentError: the box does not fit inside `inputs`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.slice_update([0, 0, 0, 0], (1,), [7, 8])).tolist()
        [0, 7, 8, 0]
    """
    x = convert_to_tensor(inputs)
    values = math_ops.cast(convert_to_tensor(updates), x.dtype)
    key = _box("slice_update", x, start_indices, values.shape)
    inside = np.zeros(x.shape, dtype=bool)
    inside[key] = True
    return where(inside, array_ops.scatter_into(values, key, x.shape), x)


def _scatter_key(op_name: str, indices, shape: tuple, values: Tensor):
    """(indices as one row per update, the NumPy key they make, values one row per update),
    checked against `shape`."""
    ids = convert_to_tensor(indices)
    host = convert_to_numpy(ids)
    depth = host.shape[-1] if host.ndim else 0
    expected = host.shape[:-1] + tuple(shape[depth:])
    if host.ndim == 0 or host.dtype.kind not in "iu" or not 1 <= depth <= len(shape) or (
            values.shape != expected):
        raise InvalidArgumentError(
            f"{op_name}: integer indices of shape {host.shape} (one row of up to {len(shape)} "
            f"coordinates per update) and updates of shape {values.shape} do not fit a tensor "
            f"of shape {tuple(shape)} (the updates' shape would be {expected})"
        )
    rows = host.reshape(-1, depth)
    bad = np.argwhere((rows < 0) | (rows >= np.asarray(shape[:depth])))
    if bad.size:
        row, column = bad[0]
        raise InvalidArgumentError(
            f"{op_name}: indices row {row} = {rows[row].tolist()} is outside the shape "
            f"{tuple(shape)} (coordinate {column})"
        )
    flat_ids = reshape(ids, (-1, depth))._value
    key = tuple(flat_ids[:, d] for d in range(depth))
    return rows, key, reshape(values, (-1,) + tuple(shape[depth:]))


def scatter(indices, values, shape) -> Tensor:
    """A zero tensor of `shape` with `values` added at `indices` (repeated ones accumulate,
    as tf.scatter_nd).

    Args:
        indices: integers of shape (..., d): each row the first d coordinates of one update.
        values: (..., *shape[d:]) updates.
        shape: the result's shape.

    Returns:
        A tensor of `shape` and `values`' dtype; differentiable with respect to `values`.

    Raises:
        InvalidArgumentError: the shapes do not fit, or an index is outside `shape`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.scatter([[0, 1], [0, 1], [1, 0]], [1.0, 2.0, 3.0], (2, 2)))
        array([[0., 3.],
               [3., 0.]], dtype=float32)
    """
    values = convert_to_tensor(values)
    shape = tuple(int(s) for s in shape)
    _, key, rows = _scatter_key("scatter", indices, shape, values)
    return array_ops.scatter_into(rows, key, shape)


def scatter_update(inputs, indices, updates, reduction=None) -> Tensor:
    """`inputs` with the entries (or slices) at `indices` replaced by `updates` (the last one
    wins among repeated indices), or with them added (`reduction='add'`).

    Args:
        inputs: a tensor.
        indices: integers of shape (..., d): each row the first d coordinates of one update.
        updates: (..., *inputs.shape[d:]) values (cast to `inputs`' dtype).
        reduction: None (replace) or 'add'.

    Returns:
        A tensor of `inputs`' shape; differentiable in `inputs` and `updates`.

    Raises:
        InvalidArgumentError: the shapes do not fit, an index is out of range, or another
            reduction.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.scatter_update([0, 0, 0], [[2], [0], [2]], [5, 6, 7]))
        array([6, 0, 7], dtype=int32)
    """
    x = convert_to_tensor(inputs)
    values = math_ops.cast(convert_to_tensor(updates), x.dtype)
    if reduction not in (None, "add"):
        raise InvalidArgumentError(
            f"scatter_update: reduction must be None or 'add', got {reduction!r}")
    rows, key, values = _scatter_key("scatter_update", indices, x.shape, values)
    if reduction == "add":
        return x + array_ops.scatter_into(values, key, x.shape)
    flat = np.ravel_multi_index(rows.T, x.shape[:rows.shape[1]])
    _, last_from_end = np.unique(flat[::-1], return_index=True)
    if len(last_from_end) < len(flat):  # repeated indices: keep each one's last update
        keep = np.sort(len(flat) - 1 - last_from_end)
        values = array_ops.gather(values, keep)
        key = tuple(array_ops.gather(Tensor(k), keep)._value for k in key)
    inside = np.zeros(x.shape, dtype=bool)
    inside[tuple(rows[:, d] for d in range(rows.shape[1]))] = True
    return where(inside, array_ops.scatter_into(values, key, x.shape), x)


def segment_max(data, segment_ids, num_segments=None, sorted: bool = False) -> Tensor:  # noqa: A002
    """The maximum of the rows of `data` in each segment; an empty one holds the dtype's
    lowest value.

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer ids in [0, num_segments).
        num_segments: the number of segments; None: max(segment_ids) + 1.
        sorted: Keras's hint that the ids are sorted; not needed here.

    Returns:
        (num_segments, ...); the gradient goes to each segment's maximum (shared among ties).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.segment_max([1.0, 5.0, 2.0], [0, 0, 1])).tolist()
        [5.0, 2.0]
    """
    if num_segments is None:
        num_segments = int(convert_to_numpy(segment_ids).max()) + 1
    return array_ops.unsorted_segment_max(data, segment_ids, num_segments)


def nan_to_num(x, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """`x` with NaN, +inf and -inf replaced (by default: 0 and the dtype's largest and
    lowest finite values).

    Args:
        x: a tensor.
        nan: the value for NaN.
        posinf: the value for +inf; None: the largest finite value.
        neginf: the value for -inf; None: the lowest finite value.

    Returns:
        A tensor of `x`'s shape and dtype (integers unchanged).

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.nan_to_num([np.nan, np.inf, 1.0], posinf=9.0)).tolist()
        [0.0, 9.0, 1.0]
    """
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        return x
    info = np.finfo(x.dtype)
    x = where(not_equal(x, x), float(nan), x)
    x = where(equal(x, np.inf), float(info.max if posinf is None else posinf), x)
    return where(equal(x, -np.inf), float(info.min if neginf is None else neginf), x)


amax = max
amin = min


# -- control flow (eager: Python runs the loop; ks.function traces it by running it) ---------


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` is true, else `false_fn()`.

    Args:
        pred: a boolean scalar (a tensor or a Python bool).
        true_fn: a function of no arguments.
        false_fn: a function of no arguments.

    Returns:
        What the called function returns.

    Example:
        >>> from kerasish import ops
        >>> ops.cond(ops.convert_to_tensor(2.0) > 1.0, lambda: "big", lambda: "small")
        'big'
    """
    return true_fn() if bool(pred) else false_fn()


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range (as Keras's switch).

    Args:
        index: an integer scalar.
        branches: a sequence of functions.
        *operands: their arguments.

    Returns:
        What the chosen function returns.

    Example:
        >>> from kerasish import ops
        >>> ops.switch(5, [lambda x: x + 1, lambda x: x * 10], 3)
        30
    """
    chosen = builtins.min(builtins.max(int(index), 0), len(branches) - 1)
    return branches[chosen](*operands)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` holds (a single tensor
    is passed as one argument), at most `maximum_iterations` times.

    Args:
        cond: a function of the loop variables returning a boolean scalar.
        body: a function of the loop variables returning new ones, of the same structure.
        loop_vars: a tuple or list of loop variables, or a single one.
        maximum_iterations: None, or the most times `body` runs.

    Returns:
        The final loop variables: a tuple for a tuple or list, else the single value.

    Example:
        >>> from kerasish import ops
        >>> ops.while_loop(lambda i, total: i < 4, lambda i, total: (i + 1, total + i), (0, 0))
        (4, 6)
    """
    several = isinstance(loop_vars, (list, tuple))
    state = tuple(loop_vars) if several else loop_vars
    count = 0
    while maximum_iterations is None or count < maximum_iterations:
        if not bool(cond(*state) if several else cond(state)):
            break
        state = body(*state) if several else body(state)
        if several:
            state = tuple(state) if isinstance(state, (list, tuple)) else (state,)
        count += 1
    return state


def fori_loop(lower: int, upper: int, body_fun, init_val):
    """`val = body_fun(i, val)` for i from `lower` up to `upper` (excluded).

    Args:
        lower: the first i.
        upper: the end.
        body_fun: a function of (i, val) returning the new val.
        init_val: the first val (any structure).

    Returns:
        The final val.

    Example:
        >>> from kerasish import ops
        >>> ops.fori_loop(0, 4, lambda i, total: total + i, 10)
        16
    """
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def _stacked(results: list):
    """Per-step results (one structure each) stacked leaf by leaf along a new first axis."""
    if not results or builtins.any(leaf is None for leaf in nest.flatten(results[0])):
        return None
    leaves = zip(*(nest.flatten(r) for r in results))
    return nest.pack_sequence_as(results[0], [array_ops.stack(list(column)) for column in leaves])


def _slices(xs, op_name: str):
    """(length, i -> the structure `xs` at step i) for a structure of tensors."""
    leaves = [convert_to_tensor(t) for t in nest.flatten(xs)]
    lengths = {t.shape[0] if t.ndim else None for t in leaves}
    if len(lengths) != 1 or None in lengths:
        raise InvalidArgumentError(
            f"{op_name}: every tensor in xs needs the same leading axis, got shapes "
            f"{[t.shape for t in leaves]}"
        )
    return lengths.pop(), lambda i: nest.pack_sequence_as(xs, [t[i] for t in leaves])


def scan(f, init, xs=None, length=None, reverse: bool = False, unroll=1):
    """`carry, y = f(carry, x)` for each slice x of `xs` along its first axis (JAX's scan);
    the y's are stacked.

    Args:
        f: a function of (carry, x) returning (carry, y); y may be None.
        init: the first carry (any structure).
        xs: a tensor or a structure of tensors with one leading axis, or None.
        length: the number of steps when `xs` is None.
        reverse: run from the last slice to the first (the y's keep xs' order).
        unroll: Keras's compilation hint; not needed here.

    Returns:
        (final carry, stacked y's or None).

    Raises:
        InvalidArgumentError: neither xs nor length, or xs' leading axes differ.

    Example:
        >>> from kerasish import ops
        >>> carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, ops.arange(4.0))
        >>> float(carry), ops.convert_to_numpy(ys).tolist()
        (6.0, [0.0, 0.0, 2.0, 9.0])
    """
    if xs is None:
        if length is None:
            raise InvalidArgumentError("scan: give xs or length")
        steps, at = int(length), lambda i: None
    else:
        steps, at = _slices(xs, "scan")
    carry, ys = init, [None] * steps
    for i in (reversed(range(steps)) if reverse else range(steps)):
        carry, ys[i] = f(carry, at(i))
    return carry, _stacked(ys)


def map(f, xs):  # noqa: A001 - Keras's name
    """`f` applied to each slice of `xs` along its first axis, the results stacked.

    Args:
        f: a function of one slice (of the structure of `xs`).
        xs: a tensor or a structure of tensors with one leading axis.

    Returns:
        The stacked results (of `f`'s output structure).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.map(lambda x: x * 2, ops.arange(3))).tolist()
        [0, 2, 4]
    """
    steps, at = _slices(xs, "map")
    return _stacked([f(at(i)) for i in range(steps)])


def vectorized_map(function, elements):
    """`function` applied to each slice of `elements` along the first axis, stacked (a loop
    here: eager ops run at array speed).

    Args:
        function: a function of one slice.
        elements: a tensor or a structure of tensors with one leading axis.

    Returns:
        The stacked results.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.vectorized_map(lambda row: ops.sum(row), ops.ones((3, 2))))
        (3,)
    """
    return map(function, elements)


# -- neural-network ops ------------------------------------------------------------------------


def binary_crossentropy(target, output, from_logits: bool = False) -> Tensor:
    """Elementwise binary cross-entropy (no mean): -t log p - (1 - t) log(1 - p), with p
    clipped to [1e-7, 1 - 1e-7], or from logits by the stable formula.

    Args:
        target: targets in [0, 1], of `output`'s shape.
        output: probabilities, or logits with `from_logits`.
        from_logits: whether `output` holds logits.

    Returns:
        A tensor of `output`'s shape.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> from kerasish import ops
        >>> ops.binary_crossentropy([1.0, 0.0], [0.9, 0.2])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.10536055, 0.22314353]>
    """
    output = _floating(output)
    target = math_ops.cast(convert_to_tensor(target), output.dtype)
    if target.shape != output.shape:
        raise InvalidArgumentError(
            f"binary_crossentropy: target of shape {target.shape} and output of shape "
            f"{output.shape} must have the same shape")
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(target, output)
    p = array_ops.clip_by_value(output, losses.EPSILON, 1.0 - losses.EPSILON)
    return negative(target * math_ops.log(p) + (1.0 - target) * math_ops.log(1.0 - p))


def categorical_crossentropy(target, output, from_logits: bool = False, axis: int = -1):
    """Cross-entropy of probability targets over the class axis: one value per example.

    Args:
        target: one-hot or soft targets, of `output`'s shape.
        output: probabilities (renormalized, then clipped), or logits with `from_logits`.
        from_logits: whether `output` holds logits (fused, stable softmax cross-entropy).
        axis: the class axis.

    Returns:
        `output`'s shape without `axis`.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> from kerasish import ops
        >>> float(ops.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]])[0])
        0.6931471824645996
    """
    output, target = _floating(output), convert_to_tensor(target)
    if target.shape != output.shape:
        raise InvalidArgumentError(
            f"categorical_crossentropy: target of shape {target.shape} and output of shape "
            f"{output.shape} must have the same shape")
    target, output = moveaxis(target, axis, -1), moveaxis(output, axis, -1)
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits: bool = False, axis: int = -1):
    """Cross-entropy of integer class ids against the scores along `axis`.

    Args:
        target: class ids, `output`'s shape without `axis`.
        output: probabilities, or logits with `from_logits`.
        from_logits: whether `output` holds logits.
        axis: the class axis of `output`.

    Returns:
        `target`'s shape.

    Raises:
        InvalidArgumentError: an id is out of range, or the shapes do not fit.

    Example:
        >>> from kerasish import ops
        >>> float(ops.sparse_categorical_crossentropy([1], [[0.5, 0.5]])[0])
        0.6931471824645996
    """
    output = moveaxis(_floating(output), axis, -1)
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits)


def _layout(data_format, op_name: str) -> bool:
    """True for channels_first (Keras's default: channels_last)."""
    if data_format not in (None, "channels_last", "channels_first"):
        raise InvalidArgumentError(
            f"{op_name}: data_format must be 'channels_last' or 'channels_first', got "
            f"{data_format!r}")
    return data_format == "channels_first"


def _spatial(op_name: str, inputs, data_format, padding: str, run2d, *per_axis):
    """Run the 2-D op `run2d(x, padding, *per_axis)` on a channels-last batch of 1 or 2
    spatial axes (one of height 1 for 1-D), moving channels first and back as asked.

    `per_axis` holds window-shaped arguments (a kernel, strides, sizes); for 1-D inputs
    each gets a leading 1 (a kernel: a leading axis of length 1)."""
    x = convert_to_tensor(inputs)
    first = _layout(data_format, op_name)
    if first:
        x = moveaxis(x, 1, -1)
    if padding.lower() not in ("valid", "same") or x.ndim not in (3, 4):
        raise InvalidArgumentError(
            f"{op_name}: needs inputs with 1 or 2 spatial axes (rank 3 or 4, got shape "
            f"{x.shape}) and padding 'valid' or 'same' (got {padding!r})")
    if x.ndim == 3:
        def widened(value):
            if isinstance(value, Tensor) or hasattr(value, "shape"):
                return expand_dims(value, 0)
            return (1, value if isinstance(value, (int, np.integer)) else value[0])

        y = squeeze(run2d(expand_dims(x, 1), padding.upper(), *[widened(v) for v in per_axis]), 1)
    else:
        y = run2d(x, padding.upper(), *per_axis)
    return moveaxis(y, -1, 1) if first else y


def conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
         dilation_rate=1) -> Tensor:
    """N-D convolution (cross-correlation) for 1 or 2 spatial axes; `kernel` is (spatial...,
    in_channels, out_channels), grouped when the input has a multiple of its in_channels.

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        kernel: (spatial..., in_channels, out_channels).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch, in `data_format`.

    Raises:
        InvalidArgumentError: 3 spatial axes, another padding, or shapes that do not fit.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.conv(np.ones((2, 8, 3)), np.ones((3, 3, 4)), padding="same"))
        (2, 8, 4)
    """
    return _spatial("conv", inputs, data_format, padding,
                    lambda x, pad, w, s, d: nn_ops.conv2d(x, w, s, pad, d),
                    convert_to_tensor(kernel), strides, dilation_rate)


def depthwise_conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
                   dilation_rate=1) -> Tensor:
    """Each input channel convolved with its own filters: `kernel` is (spatial..., channels,
    multiplier) and output channel c * multiplier + m comes from channel c.

    Args:
        inputs: (batch, spatial..., channels) (or channels first), 1 or 2 spatial axes.
        kernel: (spatial..., channels, multiplier).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch with channels * multiplier channels.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.depthwise_conv(np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 2))))
        (1, 3, 3, 4)
    """
    return _spatial("depthwise_conv", inputs, data_format, padding,
                    lambda x, pad, w, s, d: nn_ops.depthwise_conv2d(x, w, s, pad, d),
                    convert_to_tensor(kernel), strides, dilation_rate)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1,
                   padding: str = "valid", data_format=None, dilation_rate=1) -> Tensor:
    """A depthwise convolution followed by a 1x1 convolution mixing the channels.

    Args:
        inputs: (batch, spatial..., channels) (or channels first), 1 or 2 spatial axes.
        depthwise_kernel: (spatial..., channels, multiplier).
        pointwise_kernel: (1..., channels * multiplier, out_channels).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch with out_channels channels.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.separable_conv(np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 1)),
        ...                              np.ones((1, 1, 2, 6))))
        (1, 3, 3, 6)
    """
    return _spatial("separable_conv", inputs, data_format, padding,
                    lambda x, pad, w, p, s, d: nn_ops.separable_conv2d(x, w, p, s, pad, d),
                    convert_to_tensor(depthwise_kernel), convert_to_tensor(pointwise_kernel),
                    strides, dilation_rate)


def max_pool(inputs, pool_size, strides=None, padding: str = "valid", data_format=None):
    """The maximum over windows, for 1 or 2 spatial axes (padding never wins).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        pool_size: an int or one per spatial axis.
        strides: the same; None: `pool_size`.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.max_pool(np.arange(4.0).reshape(1, 4, 1), 2))[0, :, 0]
        array([1., 3.])
    """
    return _spatial("max_pool", inputs, data_format, padding,
                    lambda x, pad, k, s: nn_ops.max_pool2d(x, k, s, pad),
                    pool_size, pool_size if strides is None else strides)


def average_pool(inputs, pool_size, strides=None, padding: str = "valid", data_format=None):
    """The mean over windows, for 1 or 2 spatial axes (with 'same' padding, padded cells are
    not counted).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        pool_size: an int or one per spatial axis.
        strides: the same; None: `pool_size`.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.average_pool(np.arange(4.0).reshape(1, 4, 1), 2))[0, :, 0]
        array([0.5, 2.5])
    """
    return _spatial("average_pool", inputs, data_format, padding,
                    lambda x, pad, k, s: nn_ops.avg_pool2d(x, k, s, pad),
                    pool_size, pool_size if strides is None else strides)


def batch_normalization(x, mean, variance, axis: int, offset=None, scale=None,
                        epsilon: float = 1e-3) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics given per
    entry of `axis`.

    Args:
        x: a tensor.
        mean: the means, one per entry of `axis`.
        variance: the variances, likewise.
        axis: the axis the statistics run along (the channels).
        offset: None, or the added beta, likewise.
        scale: None, or the gamma, likewise.
        epsilon: added to the variance.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.batch_normalization([[1.0, 2.0]], [1.0, 0.0], [4.0, 1.0], axis=1, epsilon=0.0)
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0., 2.]]>
    """
    x = _floating(x)
    axis = math_ops.normalize_axis(axis, x.ndim, "batch_normalization")[0]
    shape = [-1 if a == axis else 1 for a in range(x.ndim)]

    def along(v):
        return reshape(math_ops.cast(convert_to_tensor(v), x.dtype), shape)

    factor = math_ops.rsqrt(along(variance) + epsilon)
    if scale is not None:
        factor = factor * along(scale)
    y = (x - along(mean)) * factor
    return y if offset is None else y + along(offset)


# -- linear algebra (also as ops.linalg.*) -------------------------------------------------------

inv, solve, det, slogdet, logdet, eigh, svd, qr = (
    linalg_ops.inv, linalg_ops.solve, linalg_ops.det, linalg_ops.slogdet, linalg_ops.logdet,
    linalg_ops.eigh, linalg_ops.svd, linalg_ops.qr)


def cholesky(x, upper: bool = False) -> Tensor:
    """The Cholesky factor of symmetric positive definite matrices: lower L with L L^T = x,
    or its transpose.

    Args:
        x: a tensor of shape (..., M, M).
        upper: return the upper factor U = L^T (x = U^T U).

    Returns:
        The factor, same shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cholesky([[4.0, 2.0], [2.0, 5.0]], upper=True)).tolist()
        [[2.0, 1.0], [0.0, 2.0]]
    """
    lower = linalg_ops.cholesky(x)
    return swapaxes(lower, -1, -2) if upper else lower


def solve_triangular(a, b, lower: bool = False) -> Tensor:
    """X with a @ X = b, reading only the lower (or upper) triangle of `a`.

    Args:
        a: a tensor of shape (..., M, M).
        b: (..., M, K) right-hand sides, or one vector (M,).
        lower: read the lower triangle; False: the upper.

    Returns:
        X, of `b`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.solve_triangular([[2.0, 9.0], [1.0, 4.0]], [2.0, 4.0],
        ...                                            lower=True)).tolist()
        [1.0, 0.75]
    """
    return linalg_ops.solve(tril(a) if lower else triu(a), b)


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

linalg = types.SimpleNamespace(**{name: globals()[name] for name in (
    "cholesky", "det", "eigh", "inv", "norm", "qr", "solve", "solve_triangular", "svd")})
"""Keras's `ops.linalg` names: the same functions as `ops.inv`, `ops.solve`, ..."""

# Keras 3's listings of `keras.ops.numpy` and `keras.ops.nn`: which of the ops above each
# sub-namespace holds (the same functions; a name kerasish does not have yet is absent)
_KERAS_NUMPY = (
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "argmax", "argmin", "argpartition", "argsort", "array", "array_split", "average",
    "bartlett", "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman",
    "broadcast_to", "cbrt", "ceil", "clip", "concatenate", "conj", "conjugate", "copy",
    "corrcoef", "correlate", "cos", "cosh", "count_nonzero", "cross", "cumprod", "cumsum",
    "deg2rad", "diag", "diagflat", "diagonal", "diff", "digitize", "divide", "divide_no_nan",
    "dot", "dsplit", "dstack", "einsum", "empty", "empty_like", "equal", "exp", "exp2",
    "expand_dims", "expm1", "eye", "fabs", "flip", "fliplr", "flipud", "floor", "floor_divide",
    "fmax", "fmin", "fmod", "full", "full_like", "gcd", "geomspace", "get_item", "greater",
    "greater_equal", "hamming", "hanning", "heaviside", "histogram", "hsplit", "hstack",
    "hypot", "i0", "identity", "imag", "inner", "isclose", "isfinite", "isin", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "kaiser", "kron", "lcm", "ldexp", "left_shift", "less",
    "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "matmul", "max",
    "maximum", "mean", "median", "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply",
    "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum",
    "nanvar", "ndim", "negative", "nextafter", "nonzero", "not_equal", "ones", "ones_like",
    "outer", "pad", "percentile", "power", "prod", "ptp", "quantile", "rad2deg", "ravel",
    "real", "reciprocal", "repeat", "reshape", "right_shift", "roll", "rot90", "round",
    "searchsorted", "select", "sign", "signbit", "sin", "sinc", "sinh", "size", "slogdet",
    "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes",
    "take", "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose",
    "trapezoid", "tri", "tril", "triu", "true_divide", "trunc", "unique", "unravel_index",
    "vander", "var", "vdot", "vectorize", "view", "vsplit", "vstack", "where", "zeros",
    "zeros_like"
)
_KERAS_NN = (
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention",
    "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool",
    "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu", "relu6",
    "rms_normalization", "selu", "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax",
    "softplus", "softsign", "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold"
)
numpy = types.SimpleNamespace(**{name: globals()[name] for name in _KERAS_NUMPY
                                 if name in globals()})
"""Keras's `ops.numpy` names: the same functions as `ops.add`, `ops.matmul`, ..."""
nn = types.SimpleNamespace(**{name: globals()[name] for name in _KERAS_NN
                              if name in globals()})
"""Keras's `ops.nn` names: the same functions as `ops.relu`, `ops.softmax`, ..."""
image = types.SimpleNamespace(**{name: getattr(image_ops, name) for name in (
    "crop_images", "extract_patches", "hsv_to_rgb", "pad_images", "resize", "rgb_to_grayscale",
    "rgb_to_hsv")})
"""Keras's `ops.image` names (those kerasish has): resizing, crops, pads, colour spaces."""
