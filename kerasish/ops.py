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
    return scan_ops.reduce_prod(x, axis, keepdims)


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
    return math_ops.reduce_logsumexp(_floating(x), axis, keepdims)


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
    return scan_ops.cumsum(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


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
    return scan_ops.cumprod(reshape(x, [-1]) if axis is None else x, axis=axis or 0)


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
