"""Shape, indexing, gathering and creation ops: each primitive with its gradient."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops
from kerasish.core.primitive import apply, apply1, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import IndexedSlices, Tensor, Variable, as_dtype, convert_to_tensor

# ---------------------------------------------------------------- creation (constants)


def _new(array) -> Tensor:
    return Tensor(backend.to_device(array))


def zeros(shape, dtype=np.float32) -> Tensor:
    """A tensor of zeros on the current device.

    Args:
        shape: an int or a sequence of ints (a 1-D integer tensor too).
        dtype: the element type.

    Returns:
        A new tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.zeros((2, 3)).shape, ks.zeros(2, dtype="int32").numpy().tolist()
        ((2, 3), [0, 0])
    """
    return _new(np.zeros(_shape_tuple(shape), dtype=as_dtype(dtype)))


def ones(shape, dtype=np.float32) -> Tensor:
    """A tensor of ones on the current device.

    Args:
        shape: an int or a sequence of ints (a 1-D integer tensor too).
        dtype: the element type.

    Returns:
        A new tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.ones(2, dtype="int32")
        <ks.Tensor: shape=(2,), dtype=int32, numpy=[1, 1]>
    """
    return _new(np.ones(_shape_tuple(shape), dtype=as_dtype(dtype)))


def fill(dims, value, dtype=None) -> Tensor:
    """A tensor of shape `dims` filled with `value`.

    Args:
        dims: the shape: an int or a sequence of ints.
        value: a scalar.
        dtype: the element type; None: the type `convert_to_tensor` gives `value`.

    Returns:
        A new tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.fill([2, 2], 7).numpy().tolist()
        [[7, 7], [7, 7]]
    """
    value = convert_to_tensor(value, dtype=dtype, _allow_cast=True).numpy()
    return _new(np.full(_shape_tuple(dims), value, dtype=value.dtype))


@symbolic_fallback
def zeros_like(input, dtype=None) -> Tensor:  # noqa: A002 - TF's name
    """Zeros with the shape (and dtype, unless given) of `input`, on its device.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        dtype: the element type; None: `input`'s.

    Returns:
        A new tensor, not connected to `input` on any tape.

    Example:
        >>> import kerasish as ks
        >>> ks.zeros_like([[1, 2]])
        <ks.Tensor: shape=(1, 2), dtype=int32, numpy=[[0, 0]]>
    """
    x = convert_to_tensor(input)
    xp = backend.array_module(x._value)
    return Tensor(xp.zeros(x._value.shape, dtype=as_dtype(dtype) or x.dtype))


@symbolic_fallback
def ones_like(input, dtype=None) -> Tensor:  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`, on its device.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        dtype: the element type; None: `input`'s.

    Returns:
        A new tensor, not connected to `input` on any tape.

    Example:
        >>> import kerasish as ks
        >>> ks.ones_like([1.0, 2.0], dtype="int64")
        <ks.Tensor: shape=(2,), dtype=int64, numpy=[1, 1]>
    """
    x = convert_to_tensor(input)
    xp = backend.array_module(x._value)
    return Tensor(xp.ones(x._value.shape, dtype=as_dtype(dtype) or x.dtype))


def range(start, limit=None, delta=1, dtype=None) -> Tensor:  # noqa: A001
    """[start, limit) in steps of delta; like Python's range, `range(n)` counts from 0.

    Args:
        start: the first value, or the limit when `limit` is None.
        limit: the end, not included.
        delta: the step (may be negative or fractional).
        dtype: the element type; None: int32 when every bound is an int, else float32.

    Returns:
        A 1-D tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.range(4).numpy().tolist(), ks.range(1.0, 2.0, 0.25).numpy().tolist()
        ([0, 1, 2, 3], [1.0, 1.25, 1.5, 1.75])
    """
    if limit is None:
        start, limit = 0, start
    values = [float(v) if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    array = np.arange(*values)
    if dtype is None and all(isinstance(v, (int, np.integer)) for v in values):
        dtype = np.int32
    elif dtype is None and array.dtype == np.float64:
        dtype = np.float32
    return _new(array.astype(as_dtype(dtype) or array.dtype))


def linspace(start, stop, num, dtype=np.float32) -> Tensor:
    """`num` evenly spaced values from start to stop inclusive.

    Args:
        start: the first value.
        stop: the last value.
        num: how many values.
        dtype: the element type.

    Returns:
        A 1-D tensor of length `num`.

    Example:
        >>> import kerasish as ks
        >>> ks.linspace(0.0, 1.0, 5).numpy().tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    return _new(np.linspace(float(start), float(stop), int(num)).astype(as_dtype(dtype)))


def eye(num_rows, num_columns=None, dtype=np.float32) -> Tensor:
    """An identity matrix (ones on the diagonal), on the current device.

    Args:
        num_rows: the number of rows.
        num_columns: the number of columns (None: square).
        dtype: the dtype.

    Returns:
        A (num_rows, num_columns) tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.eye(2, 3).numpy().tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    return _new(np.eye(num_rows, num_columns, dtype=as_dtype(dtype)))


@symbolic_fallback
def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=np.float32) -> Tensor:
    """One-hot encoding along a new last axis; out-of-range indices give all `off_value`.

    Args:
        indices: class ids: integers, or floats holding whole numbers (as Keras takes them).
        depth: the number of classes.
        on_value: the value at each id's position.
        off_value: the value everywhere else.
        axis: where the new axis of length `depth` goes (-1: last).
        dtype: the element type.

    Returns:
        A tensor of `indices.shape` with a `depth` axis inserted (not differentiable).

    Raises:
        InvalidArgumentError: `indices` hold a non-integral value.

    Example:
        >>> import kerasish as ks
        >>> ks.one_hot([0, 2, 5], 3).numpy().tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    ids = integer_ids(indices, "one_hot")
    attrs = {"depth": int(depth), "on_value": on_value, "off_value": off_value, "axis": axis,
             "dtype": as_dtype(dtype)}
    return apply(_one_hot, (ids,), attrs)


@primitive("one_hot", differentiable=False)
def _one_hot(ids, depth, on_value, off_value, axis, dtype):
    xp = backend.array_module(ids)
    hot = ids[..., None] == xp.arange(depth)
    out = xp.where(hot, on_value, off_value).astype(dtype)
    return out if axis == -1 else xp.moveaxis(out, -1, axis)


def _shape_tuple(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


@symbolic_fallback
def shape(input, out_type=np.int32) -> Tensor:  # noqa: A002
    """The shape of `input` as a 1-D integer tensor.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        out_type: the integer dtype of the result.

    Returns:
        A tensor with one entry per axis (use `x.shape` for a Python tuple).

    Example:
        >>> import kerasish as ks
        >>> ks.shape([[1, 2, 3], [4, 5, 6]]).numpy().tolist()
        [2, 3]
    """
    return _new(np.asarray(convert_to_tensor(input).shape, dtype=as_dtype(out_type)))


@symbolic_fallback
def size(input, out_type=np.int32) -> Tensor:  # noqa: A002
    """The number of elements of `input` as a scalar tensor.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        out_type: the integer dtype of the result.

    Returns:
        A 0-d integer tensor.

    Example:
        >>> import kerasish as ks
        >>> int(ks.size([[1, 2, 3], [4, 5, 6]]))
        6
    """
    return _new(np.asarray(convert_to_tensor(input).size, dtype=as_dtype(out_type)))


def rank(input) -> Tensor:  # noqa: A002
    """The number of dimensions of `input` as a scalar int32 tensor.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.

    Returns:
        A 0-d int32 tensor.

    Example:
        >>> import kerasish as ks
        >>> int(ks.rank([[1, 2, 3], [4, 5, 6]]))
        2
    """
    return _new(np.asarray(convert_to_tensor(input).ndim, dtype=np.int32))


# ---------------------------------------------------------------- identity and devices


@primitive("identity", views=True)
def _identity(x):
    return x


@_identity.defgrad
def _(op, dy):
    return (dy,)


def identity(input):  # noqa: A002
    """The same values as a new tensor (a snapshot when given a variable).

    Args:
        input: a tensor, variable or value `convert_to_tensor` takes.

    Returns:
        A tensor with `input`'s values; gradients pass through unchanged.

    Example:
        >>> import kerasish as ks
        >>> v = ks.Variable([1.0, 2.0])
        >>> snapshot = ks.identity(v)
        >>> _ = v.assign([5.0, 6.0])
        >>> snapshot.numpy().tolist()
        [1.0, 2.0]
    """
    return apply1(_identity, input)


_stop_gradient = primitive("stop_gradient", differentiable=False, views=True)(lambda x: x)


def stop_gradient(input):  # noqa: A002
    """The same values, treated as a constant by every tape.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.

    Returns:
        A tensor with `input`'s values and no gradient path back to it.

    Example:
        >>> import kerasish as ks
        >>> x = ks.Variable(3.0)
        >>> with ks.GradientTape() as tape:
        ...     y = x * ks.stop_gradient(x)
        >>> float(tape.gradient(y, x))
        3.0
    """
    return apply1(_stop_gradient, input)


@primitive("copy_to_device")
def _copy_to_device(x, device):
    return backend.to_device(x, device)


@_copy_to_device.defgrad
def _(op, dy):
    return (copy_to_device(dy, backend.device_of(op.inputs[0]._value)),)


def copy_to_device(x, device: tuple) -> Tensor:
    """A copy of `x` on `device` ((kind, index)); the gradient flows back to x's device."""
    x = convert_to_tensor(x)
    if device[0] == "gpu":
        backend.check_gpu(device[1])
    return apply(_copy_to_device, (x,), {"device": device})


# ---------------------------------------------------------------- shape ops


def _reshape_explain(inputs, attrs):
    x = inputs[0]
    return (
        f"cannot reshape a tensor of shape {x.shape} ({x.size} elements) into shape "
        f"{attrs['shape']}"
    )


@primitive("reshape", views=True, explain=_reshape_explain)
def _reshape(x, shape):
    return x.reshape(shape)


@_reshape.defgrad
def _(op, dy):
    return (reshape(dy, op.inputs[0].shape),)


def reshape(tensor, shape):
    """The same values in a new shape (one dimension may be -1).

    Args:
        tensor: a tensor or a value `convert_to_tensor` takes.
        shape: the new shape, with as many elements in all; one entry may be -1, inferred.

    Returns:
        A tensor of `shape` (`tensor` itself when the shape is unchanged).

    Example:
        >>> import kerasish as ks
        >>> ks.reshape(ks.range(6), (2, -1)).numpy().tolist()
        [[0, 1, 2], [3, 4, 5]]
    """
    x = convert_to_tensor(tensor)
    shape = _shape_tuple(shape)
    if x._value.shape == shape:
        return x
    return apply(_reshape, (x,), {"shape": shape})


@primitive("transpose", views=True)
def _transpose(x, perm):
    return x.transpose(perm)


@_transpose.defgrad
def _(op, dy):
    return (transpose(dy, tuple(np.argsort(op.attrs["perm"]).tolist())),)


def transpose(a, perm=None):
    """Permute axes (default: reverse them).

    Args:
        a: a tensor or a value `convert_to_tensor` takes.
        perm: result axis i is input axis perm[i]; None: the axes reversed.

    Returns:
        The permuted tensor.

    Raises:
        InvalidArgumentError: `perm` is not a permutation of the axes.

    Example:
        >>> import kerasish as ks
        >>> ks.transpose([[1, 2, 3], [4, 5, 6]]).numpy().tolist()
        [[1, 4], [2, 5], [3, 6]]
    """
    x = convert_to_tensor(a)
    perm = tuple(builtins.range(x.ndim))[::-1] if perm is None else _shape_tuple(perm)
    if sorted(p % max(x.ndim, 1) for p in perm) != list(builtins.range(x.ndim)):
        raise InvalidArgumentError(
            f"transpose: perm {perm} is not a permutation of the {x.ndim} axes of shape {x.shape}"
        )
    return apply(_transpose, (x,), {"perm": tuple(p % x.ndim for p in perm)})


@symbolic_fallback
def expand_dims(input, axis: int):  # noqa: A002
    """Insert a size-1 axis at `axis`.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        axis: the new axis's position in the result, in [-rank - 1, rank].

    Returns:
        A tensor of rank one higher.

    Raises:
        InvalidArgumentError: `axis` is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.expand_dims([1, 2], 0).shape, ks.expand_dims([1, 2], -1).shape
        ((1, 2), (2, 1))
    """
    x = convert_to_tensor(input)
    axis = int(axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise InvalidArgumentError(f"expand_dims: axis {axis} is out of range for shape {x.shape}")
    axis = axis % (x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


@symbolic_fallback
def squeeze(input, axis=None):  # noqa: A002
    """Remove size-1 axes (all of them, or those in `axis`).

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        axis: an axis or axes to remove; None: every size-1 axis.

    Returns:
        The tensor without those axes.

    Raises:
        InvalidArgumentError: an axis in `axis` is out of range or not of size 1.

    Example:
        >>> import kerasish as ks
        >>> x = ks.zeros((1, 3, 1))
        >>> ks.squeeze(x).shape, ks.squeeze(x, axis=0).shape
        ((3,), (3, 1))
    """
    x = convert_to_tensor(input)
    if axis is None:
        axes = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        axes = set(math_ops.normalize_axis(axis, x.ndim, "squeeze"))
        for a in axes:
            if x.shape[a] != 1:
                raise InvalidArgumentError(
                    f"squeeze: axis {a} of shape {x.shape} has size {x.shape[a]}, not 1"
                )
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


@primitive("broadcast_to", views=True)
def _broadcast_to(x, shape):
    return backend.array_module(x).broadcast_to(x, shape)


@_broadcast_to.defgrad
def _(op, dy):
    return (dy,)  # the tape reduces it back to the input's shape


def broadcast_to(input, shape):  # noqa: A002
    """`input` broadcast to `shape` (NumPy rules).

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        shape: the target shape; `input`'s shape must broadcast to it.

    Returns:
        A tensor of `shape`; its gradient is summed back to `input`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.broadcast_to([1, 2], (2, 2)).numpy().tolist()
        [[1, 2], [1, 2]]
    """
    x = convert_to_tensor(input)
    shape = _shape_tuple(shape)
    if x._value.shape == shape:
        return x
    return apply(_broadcast_to, (x,), {"shape": shape})


def unbroadcast(grad: Tensor, shape: tuple, op_name: str = "gradient") -> Tensor:
    """Sum `grad` over the axes that broadcasting added or stretched, to get `shape`."""
    shape = tuple(shape)
    extra = grad.ndim - len(shape)
    stretched = []
    compatible = extra >= 0
    if compatible:
        for i, d in enumerate(shape):
            g = grad.shape[extra + i]
            if d == g:
                continue
            if d == 1:
                stretched.append(extra + i)
            else:
                compatible = False
    if not compatible:
        raise InvalidArgumentError(
            f"{op_name}: a gradient of shape {grad.shape} cannot be reduced to the input's "
            f"shape {shape}"
        )
    axes = tuple(builtins.range(extra)) + tuple(stretched)
    return reshape(math_ops.reduce_sum(grad, axes), shape)


def _concat_explain(inputs, attrs):
    shapes = ", ".join(str(t.shape) for t in inputs)
    return f"shapes {shapes} must match except along axis {attrs['axis']}"


@primitive("concat", explain=_concat_explain)
def _concat(*arrays, axis):
    return backend.array_module(arrays[0]).concatenate(arrays, axis=axis)


@_concat.defgrad
def _(op, dy):
    axis = op.attrs["axis"]
    grads, start = [], 0
    for t, need in zip(op.inputs, op.needs):
        stop = start + t.shape[axis]
        if need:
            grads.append(dy[(slice(None),) * axis + (slice(start, stop),)])
        else:
            grads.append(None)
        start = stop
    return tuple(grads)


def concat(values, axis: int):
    """Join tensors along an existing axis.

    Args:
        values: a non-empty sequence of tensors of one rank, equal in every other axis.
        axis: the axis to join along.

    Returns:
        The joined tensor.

    Raises:
        InvalidArgumentError: `values` is empty, the ranks differ, or `axis` is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.concat([[[1, 2]], [[3, 4]]], axis=1).numpy().tolist()
        [[1, 2, 3, 4]]
    """
    tensors = tuple(convert_to_tensor(v) for v in values)
    if not tensors:
        raise InvalidArgumentError("concat: needs at least one tensor")
    ndim = tensors[0].ndim
    if any(t.ndim != ndim for t in tensors):
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise InvalidArgumentError(f"concat: all tensors need the same rank, got shapes {shapes}")
    axis = math_ops.normalize_axis(axis, ndim, "concat")[0]
    if len(tensors) == 1:
        return tensors[0]
    return apply(_concat, tensors, {"axis": axis})


def stack(values, axis: int = 0):
    """Join tensors of the same shape along a new axis.

    Args:
        values: a non-empty sequence of tensors of one shape.
        axis: where the new axis goes in the result.

    Returns:
        A tensor of rank one higher, with `len(values)` along `axis`.

    Raises:
        InvalidArgumentError: `values` is empty, or two shapes differ (both are named).

    Example:
        >>> import kerasish as ks
        >>> ks.stack([[1, 2], [3, 4]], axis=1).numpy().tolist()
        [[1, 3], [2, 4]]
    """
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise InvalidArgumentError("stack: needs at least one tensor")
    first = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != first:
            raise InvalidArgumentError(
                f"stack: all tensors need the same shape; values[0] has {first} but "
                f"values[{i}] has {t.shape}"
            )
    return concat([expand_dims(t, axis) for t in tensors], axis)


@primitive("split", multi_output=True)
def _split(x, sizes, axis):
    boundaries = np.cumsum(sizes[:-1]).tolist()
    return tuple(backend.array_module(x).split(x, boundaries, axis=axis))


@_split.defgrad
def _(op, dys):
    return (concat(dys, op.attrs["axis"]),)


def _split_parts(x: Tensor, sizes: tuple, axis: int) -> list:
    """Views of consecutive pieces of `x`: one recorded op whose gradient is one concat.

    (Slicing piece by piece would record one op per piece, and each slice's
    gradient is a zero array of the whole input's shape.)
    """
    if len(sizes) == 1:
        return [x]
    if isinstance(x, Variable):  # the pieces are views: do not let them change with the variable
        x = identity(x)
    return list(apply(_split, (x,), {"sizes": sizes, "axis": axis}))


@symbolic_fallback
def unstack(value, num=None, axis: int = 0) -> list:
    """Split along `axis` into a list of tensors with that axis removed.

    Args:
        value: a tensor of rank at least 1.
        num: the expected length of `axis`, checked when given.
        axis: the axis to split along.

    Returns:
        A list of `value.shape[axis]` tensors.

    Raises:
        InvalidArgumentError: `num` differs from the axis's length, or `axis` is out of range.

    Example:
        >>> import kerasish as ks
        >>> [t.numpy().tolist() for t in ks.unstack([[1, 2], [3, 4]], axis=1)]
        [[1, 3], [2, 4]]
    """
    x = convert_to_tensor(value)
    axis = math_ops.normalize_axis(axis, x.ndim, "unstack")[0]
    count = x.shape[axis]
    if num is not None and num != count:
        raise InvalidArgumentError(f"unstack: num={num} but axis {axis} has size {count}")
    if count == 0:
        return []
    piece_shape = x.shape[:axis] + x.shape[axis + 1:]
    return [reshape(part, piece_shape) for part in _split_parts(x, (1,) * count, axis)]


def split(value, num_or_size_splits, axis: int = 0) -> list:
    """Split along `axis` into equal parts (an int) or parts of the given sizes (a list).

    Args:
        value: a tensor of rank at least 1.
        num_or_size_splits: the number of equal parts, or the size of each part.
        axis: the axis to split along.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: the axis does not divide into that many equal parts, or the
            sizes do not add up to its length.

    Example:
        >>> import kerasish as ks
        >>> [t.numpy().tolist() for t in ks.split([1, 2, 3, 4, 5, 6], [1, 5])]
        [[1], [2, 3, 4, 5, 6]]
    """
    x = convert_to_tensor(value)
    axis = math_ops.normalize_axis(axis, x.ndim, "split")[0]
    total = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        if num_or_size_splits <= 0 or total % num_or_size_splits:
            raise InvalidArgumentError(
                f"split: axis {axis} of size {total} cannot be split into "
                f"{num_or_size_splits} equal parts"
            )
        sizes = [total // num_or_size_splits] * int(num_or_size_splits)
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sum(sizes) != total or min(sizes, default=0) < 0:
            raise InvalidArgumentError(
                f"split: sizes {sizes} add up to {sum(sizes)}, not the axis size {total}"
            )
    return _split_parts(x, tuple(sizes), axis)


@primitive("tile")
def _tile(x, multiples):
    return backend.array_module(x).tile(x, multiples)


@_tile.defgrad
def _(op, dy):
    x = op.inputs[0]
    interleaved = []
    for m, d in zip(op.attrs["multiples"], x.shape):
        interleaved += [m, d]
    summed = math_ops.reduce_sum(reshape(dy, interleaved), tuple(builtins.range(0, 2 * x.ndim, 2)))
    return (summed,)


def tile(input, multiples):  # noqa: A002
    """Repeat `input` `multiples[i]` times along axis i.

    Args:
        input: a tensor or a value `convert_to_tensor` takes.
        multiples: one repeat count per axis.

    Returns:
        A tensor whose axis i is `multiples[i]` times longer.

    Raises:
        InvalidArgumentError: `multiples` does not have one entry per axis.

    Example:
        >>> import kerasish as ks
        >>> ks.tile([[1, 2]], [2, 2]).numpy().tolist()
        [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = convert_to_tensor(input)
    multiples = _shape_tuple(multiples)
    if len(multiples) != x.ndim:
        raise InvalidArgumentError(
            f"tile: multiples {multiples} must have one entry per axis of shape {x.shape}"
        )
    return apply(_tile, (x,), {"multiples": multiples})


@primitive("pad")
def _pad(x, paddings, constant_values):
    return backend.array_module(x).pad(x, paddings, constant_values=constant_values)


@_pad.defgrad
def _(op, dy):
    paddings, shape = op.attrs["paddings"], op.inputs[0].shape
    key = tuple(slice(before, before + d) for (before, _), d in zip(paddings, shape))
    return (dy[key],)


# Mirror padding: "REFLECT" repeats the edge's neighbours (without the edge), "SYMMETRIC"
# the edge cells themselves. Its gradient folds each padded border back onto the cells it
# copied (`mirror_unpad`), whose own gradient is the padding again.


def _mirror_slices(n: int, before: int, after: int, mode: str) -> tuple:
    """(cells copied into the before border, cells copied into the after border), as slices
    of an axis of size n, in the order they appear once flipped."""
    edge = 1 if mode == "REFLECT" else 0
    return slice(edge, edge + before), slice(n - edge - after, n - edge)


@primitive("mirror_pad")
def _mirror_pad(x, paddings, mode):
    return backend.array_module(x).pad(x, paddings, mode=mode.lower())


@_mirror_pad.defgrad
def _(op, dy):
    attrs = op.attrs
    return (apply(_mirror_unpad, (dy,), {**attrs, "shape": op.inputs[0].shape}),)


@primitive("mirror_unpad")
def _mirror_unpad(padded, paddings, mode, shape):
    """The adjoint of mirror_pad: each border, flipped, added onto the cells it copies."""
    out = padded
    for axis in reversed(builtins.range(len(shape))):  # undo the axes in reverse order
        before, after = paddings[axis]
        if not before and not after:
            continue
        n = shape[axis]
        head = (slice(None),) * axis
        core = out[head + (slice(before, before + n),)].copy()
        first, last = _mirror_slices(n, before, after, mode)
        flip = head + (slice(None, None, -1),)
        if before:
            core[head + (first,)] += out[head + (slice(0, before),)][flip]
        if after:
            core[head + (last,)] += out[head + (slice(before + n, None),)][flip]
        out = core
    return out


@_mirror_unpad.defgrad
def _(op, dy):
    attrs = op.attrs
    return (apply(_mirror_pad, (dy,), {"paddings": attrs["paddings"], "mode": attrs["mode"]}),)


def pad(tensor, paddings, mode: str = "CONSTANT", constant_values=0):
    """Pad each axis i with paddings[i] = (before, after) cells, as tf.pad.

    Args:
        tensor: the tensor to pad.
        paddings: one (before, after) pair per axis.
        mode: "CONSTANT" (fill with `constant_values`), "REFLECT" (mirror the cells next
            to the edge; at most size - 1 per side) or "SYMMETRIC" (mirror including the
            edge; at most size per side).
        constant_values: the fill value of "CONSTANT" mode.

    Example:
        >>> import kerasish as ks
        >>> ks.pad([1, 2, 3], [[2, 1]], mode="REFLECT").numpy().tolist()
        [3, 2, 1, 2, 3, 2]
    """
    x = convert_to_tensor(tensor)
    mode = str(mode).upper()
    paddings = tuple((int(a), int(b)) for a, b in np.asarray(paddings).reshape(-1, 2).tolist())
    if len(paddings) != x.ndim:
        raise InvalidArgumentError(
            f"pad: paddings has {len(paddings)} rows but the tensor has rank {x.ndim}"
        )
    if any(a < 0 or b < 0 for a, b in paddings):
        raise InvalidArgumentError(f"pad: paddings must be non-negative, got {paddings}")
    if mode == "CONSTANT":
        return apply(_pad, (x,), {"paddings": paddings, "constant_values": constant_values})
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise InvalidArgumentError(
            f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}"
        )
    limit = 1 if mode == "REFLECT" else 0
    for axis, ((before, after), n) in enumerate(zip(paddings, x.shape)):
        if max(before, after) > n - limit:
            raise InvalidArgumentError(
                f"pad: {mode} padding of axis {axis} by ({before}, {after}) needs each side "
                f"to be at most {n - limit} for a size of {n} (tensor shape {x.shape})"
            )
    return apply(_mirror_pad, (x,), {"paddings": paddings, "mode": mode})


# ---------------------------------------------------------------- indexing


def _normalize_key(key):
    """Replace tensors inside an index by their arrays; reject float indices."""
    if isinstance(key, tuple):
        return tuple(_normalize_key(k) for k in key)
    if isinstance(key, (float, np.floating)):
        raise InvalidArgumentError(
            f"index: {key!r} is a float; indices must be integers, slices, None, ... or "
            "integer/boolean tensors (use int(i) or ks.cast(i, 'int32'))"
        )
    if isinstance(key, Tensor):
        key = key._value
    if isinstance(key, list):
        key = np.asarray(key)
    if hasattr(key, "dtype") and key.dtype.kind == "f":
        raise InvalidArgumentError(
            f"index: tensors used as indices must be integer or boolean, got {key.dtype}"
        )
    return key


def _is_basic(key) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return all(
        k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) for k in parts
    )


def _getitem_explain(inputs, attrs):
    return f"index {attrs['key']!r} is out of range for shape {inputs[0].shape}"


@primitive("getitem", views=True, explain=_getitem_explain)
def _getitem(x, key):
    return x[key]


@_getitem.defgrad
def _(op, dy):
    return (apply(_scatter_into, (dy,), {"key": op.attrs["key"], "shape": op.inputs[0].shape}),)


@primitive("scatter_into")
def _scatter_into(values, key, shape):
    out = backend.array_module(values).zeros(shape, dtype=values.dtype)
    if _is_basic(key):
        out[key] = values
    else:
        backend.scatter_add(out, key, values)
    return out


@_scatter_into.defgrad
def _(op, dy):
    return (apply(_getitem, (dy,), {"key": op.attrs["key"]}),)


def getitem(tensor, key):
    """tensor[key] with NumPy indexing (ints, slices, None, ..., integer or boolean arrays)."""
    x = convert_to_tensor(tensor)
    return apply(_getitem, (x,), {"key": _normalize_key(key)})


_UNSIGNED = {np.dtype(f"int{bits}"): np.dtype(f"uint{bits}") for bits in (8, 16, 32, 64)}


def _check_indices(op_name: str, ids, limit: int) -> None:
    """Raise `op: indices[i] = v is not in [0, limit)` for the first bad index."""
    if ids.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{op_name}: indices must be integers, got {ids.dtype}; "
            "cast with ks.cast(indices, 'int32')"
        )
    if ids.size == 0:
        return
    # one pass for both bounds: seen as unsigned, a negative id is at least 2**(bits - 1)
    unsigned = _UNSIGNED.get(ids.dtype)
    if int((ids if unsigned is None else ids.view(unsigned)).max()) < limit:
        return
    host = backend.to_numpy(ids)
    bad = np.argwhere((host < 0) | (host >= limit))[0]
    where = ", ".join(str(int(i)) for i in bad) if host.ndim else ""
    value = host[tuple(bad)] if host.ndim else host
    raise InvalidArgumentError(
        f"{op_name}: indices[{where}] = {int(value)} is not in [0, {limit})"
    )


@primitive("checked_indices", differentiable=False)
def _checked_indices_array(ids, *, op, limit):
    _check_indices(op, ids, limit)
    return ids


def _indices_outside(ids, *, op, limit):
    """`checked_indices` without a host read: (ids, True on the device if one is outside
    [0, limit)); a negative id seen as unsigned is at least 2**(bits - 1)."""
    xp = backend.array_module(ids)
    if ids.size == 0:
        return ids, xp.zeros((), bool)
    unsigned = _UNSIGNED.get(ids.dtype)
    return ids, (ids if unsigned is None else ids.view(unsigned)).max() >= limit


_checked_indices_array.device_check = _indices_outside


def checked_indices(op_name: str, ids: Tensor, limit: int) -> Tensor:
    """`ids` after checking that each is an integer in [0, limit) (`op: indices[i] = v is not
    in [0, limit)` otherwise). A recorded op, so that a ks.function replay checks every
    call's indices: NumPy wraps negative indices and CuPy wraps all, silently."""
    return apply(_checked_indices_array, (ids,), {"op": op_name, "limit": int(limit)})


@primitive("integer_ids", differentiable=False)
def _integer_ids_array(ids, *, op, arg):
    xp = backend.array_module(ids)
    whole = xp.isfinite(ids) & (ids == xp.floor(ids))
    if not bool(whole.all()):
        host = backend.to_numpy(ids)
        bad = np.argwhere(~backend.to_numpy(whole))[0] if host.ndim else ()
        at = f"{arg}[{', '.join(str(int(i)) for i in bad)}]" if host.ndim else arg
        raise InvalidArgumentError(
            f"{op}: {arg} must hold integers, but it is {ids.dtype} with the non-integral "
            f"value {at} = {host[tuple(bad)].item()!r}"
        )
    return ids.astype(np.int64)


def _not_integral(ids, *, op, arg):
    """`integer_ids` without a host read: (the int64 ids, True on the device if one is not a
    whole number)."""
    xp = backend.array_module(ids)
    whole = xp.isfinite(ids) & (ids == xp.floor(ids))
    return ids.astype(np.int64), ~whole.all()


_integer_ids_array.device_check = _not_integral


def integer_ids(ids, op: str, arg: str = "indices") -> Tensor:
    """`ids` as integers, as Keras casts the ids its layers, one-hot and sparse losses take.

    Integer tensors are returned as they are, booleans and floats holding whole numbers
    (the float32 ids of a `ks.Input(shape=(n,))`) are cast to int64; a non-integral or
    non-finite float is an error naming the op, the argument and the value. A recorded op,
    so a ks.function replay checks every call's ids.

    Args:
        ids: the ids (a tensor or anything `convert_to_tensor` takes).
        op: the op or layer taking them, for the error message.
        arg: the argument's name, for the error message.

    Returns:
        An integer tensor of the same shape.

    Raises:
        InvalidArgumentError: for a non-integral value, or ids neither numbers nor booleans.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.ops.array_ops import integer_ids
        >>> integer_ids(ks.constant([2.0, 0.0]), "one_hot").numpy()
        array([2, 0])
    """
    ids = convert_to_tensor(ids)
    kind = ids.dtype.kind
    if kind in "iu":
        return ids
    if kind == "b":
        return math_ops.cast(ids, np.int64)
    if kind != "f":
        raise InvalidArgumentError(f"{op}: {arg} must hold integers, got dtype {ids.dtype}")
    return apply(_integer_ids_array, (ids,), {"op": op, "arg": arg})


@primitive("gather")
def _gather(params, indices):
    return params.take(indices, axis=0)


@_gather.defgrad
def _(op, dy):
    params, indices = op.inputs
    ids = indices._value
    if ids.ndim != 1:  # (the indices reshaped by the op, so a ks.function replay follows them)
        dy, ids = reshape(dy, (-1,) + params.shape[1:]), reshape(indices, (-1,))._value
    return IndexedSlices(dy, ids, params.shape), None


def gather(params, indices, axis=None, batch_dims: int = 0, name: str = "gather"):
    """Slices of `params` along `axis` at `indices`; out-of-range indices raise at the call.

    The gradient with respect to `params` is an `ks.IndexedSlices` (for axis 0),
    so only the gathered rows are touched.

    Args:
        params: the tensor to gather from.
        indices: integer indices into `params`' axis `axis`.
        axis: the axis to gather along (default: `batch_dims`, which is 0 by default).
        batch_dims: the number of leading axes that `params` and `indices` share: example
            b of the result gathers from params[b] with indices[b], as tf.gather. Negative
            values count from the rank of `indices`.

    Example:
        >>> import kerasish as ks
        >>> ks.gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]], axis=1, batch_dims=1).numpy()
        array([[3, 1],
               [5, 5]], dtype=int32)
    """
    params = convert_to_tensor(params)
    ids = convert_to_tensor(indices)
    if params.ndim == 0:
        raise InvalidArgumentError(f"{name}: params must have rank >= 1, got a scalar")
    if batch_dims:
        return _batched_gather(params, ids, axis, int(batch_dims), name)
    if axis:  # (None and 0, the usual case, need no normalization)
        axis = math_ops.normalize_axis(axis, params.ndim, name)[0]
    if axis:
        others = tuple(i for i in builtins.range(params.ndim) if i != axis)
        moved = transpose(params, (axis,) + others)
        out = gather(moved, ids, 0, name=name)
        k = ids.ndim
        perm = tuple(builtins.range(k, k + axis)) + tuple(builtins.range(k)) + tuple(
            builtins.range(k + axis, out.ndim)
        )
        return transpose(out, perm)
    return apply(_gather, (params, checked_indices(name, ids, params.shape[0])))


def _batched_gather(params: Tensor, ids: Tensor, axis, batch_dims: int, name: str) -> Tensor:
    """gather with batch_dims > 0: one flat row gather over (batch, axis) pairs.

    params is transposed to (batch..., axis, between..., after...) and flattened to rows
    (batch * axis size, between..., after...); index i of batch entry b becomes row
    b * size + i.
    """
    b = batch_dims + ids.ndim if batch_dims < 0 else batch_dims
    if not 0 <= b <= ids.ndim:
        raise InvalidArgumentError(
            f"{name}: batch_dims={batch_dims} is out of range for indices of rank {ids.ndim}"
        )
    axis = b if axis is None else math_ops.normalize_axis(axis, params.ndim, name)[0]
    if axis < b:
        raise InvalidArgumentError(
            f"{name}: axis {axis} must not be smaller than batch_dims {b}"
        )
    if params.shape[:b] != ids.shape[:b]:
        raise InvalidArgumentError(
            f"{name}: with batch_dims={b}, params shape {params.shape} and indices shape "
            f"{ids.shape} must agree on their first {b} axes"
        )
    ids = checked_indices(name, ids, params.shape[axis])
    batch, size = params.shape[:b], params.shape[axis]
    between = tuple(builtins.range(b, axis))
    after = tuple(builtins.range(axis + 1, params.ndim))
    moved = transpose(params, tuple(builtins.range(b)) + (axis,) + between + after)
    rows = reshape(moved, (-1,) + moved.shape[b + 1 :])
    flat_ids = apply(_batched_row_ids, (ids,), {"count": int(np.prod(batch)), "size": size})
    picked = apply(_gather, (rows, flat_ids))
    index_shape = ids.shape[b:]
    mid_shape = tuple(params.shape[i] for i in between)
    picked = reshape(picked, batch + index_shape + moved.shape[b + 1 :])
    k, m = len(index_shape), len(mid_shape)
    perm = (
        tuple(builtins.range(b))
        + tuple(builtins.range(b + k, b + k + m))
        + tuple(builtins.range(b, b + k))
        + tuple(builtins.range(b + k + m, picked.ndim))
    )
    return transpose(picked, perm)


# Index arrays computed from index tensors are primitives (not differentiable), so that
# ks.function replays them on each call's indices.


@primitive("batched_row_ids", differentiable=False)
def _batched_row_ids(ids, *, count: int, size: int):
    """Row b * size + i of the flattened (batch, axis) rows for index i of batch entry b."""
    offsets = backend.array_module(ids).arange(count, dtype=np.int64).reshape(-1, 1) * size
    return (ids.reshape(count, -1).astype(np.int64) + offsets).reshape(-1)


@primitive("nd_row_ids", differentiable=False)
def _nd_row_ids(ids, *, batch_dims: int, shape: tuple):
    """The flat row numbers of gather_nd's coordinates `ids` into params of `shape` (checked)."""
    xp = backend.array_module(ids)
    coords = ids.astype(np.int64)
    if batch_dims:
        grids = xp.meshgrid(*[xp.arange(d) for d in ids.shape[:-1]], indexing="ij")[:batch_dims]
        coords = xp.concatenate([g[..., None] for g in grids] + [coords], axis=-1)
    m = coords.shape[-1]
    bounds = xp.asarray(shape[:m], dtype=np.int64)
    bad = ((coords < 0) | (coords >= bounds)).any(axis=-1)
    if bad.any():
        where = tuple(int(i) for i in backend.to_numpy(xp.argwhere(bad)[0]))
        raise InvalidArgumentError(
            f"gather_nd: indices[{', '.join(map(str, where))}] = "
            f"{backend.to_numpy(ids[where]).tolist()} does not index into params of "
            f"shape {shape}"
        )
    strides = np.cumprod((shape[1:m] + (1,))[::-1])[::-1].copy()
    return (coords * xp.asarray(strides, dtype=np.int64)).sum(axis=-1).reshape(-1)


@primitive("flatnonzero", differentiable=False)
def _flatnonzero(mask):
    return backend.array_module(mask).flatnonzero(mask)


def gather_nd(params, indices, batch_dims: int = 0):
    """Slices of `params` at multi-dimensional indices, as tf.gather_nd.

    `indices[..., :]` holds m coordinates into the first m axes of `params` (after the
    `batch_dims` leading axes that both share); the result has shape
    indices.shape[:-1] + params.shape[batch_dims + m:].

    Args:
        params: the tensor to read from.
        indices: an integer tensor whose last axis holds coordinates into `params`.
        batch_dims: how many leading axes `params` and `indices` share as batch axes.

    Returns:
        The gathered slices; the gradient scatters back into `params`.

    Raises:
        InvalidArgumentError: `indices` are not integers or a scalar, have more coordinates
            than `params` has axes, disagree with `params` on the batch axes, or point
            outside `params`.

    Example:
        >>> import kerasish as ks
        >>> ks.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]]).numpy().tolist()
        [3, 2]
    """
    params = convert_to_tensor(params)
    ids = convert_to_tensor(indices)
    if ids.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"gather_nd: indices must be integers, got {ids.dtype}; "
            "cast with ks.cast(indices, 'int32')"
        )
    if ids.ndim == 0:
        raise InvalidArgumentError("gather_nd: indices must have rank >= 1, got a scalar")
    b = int(batch_dims)
    if b and (not 0 < b < ids.ndim or params.shape[:b] != ids.shape[:b]):
        raise InvalidArgumentError(
            f"gather_nd: with batch_dims={b}, params shape {params.shape} and indices "
            f"shape {ids.shape} must agree on their first {b} axes (and indices need "
            "one more axis)"
        )
    m = ids.shape[-1] + b  # coordinates per index, the batch axes' included
    if m > params.ndim:
        raise InvalidArgumentError(
            f"gather_nd: indices shape {ids.shape} has {m - b} coordinates per index but "
            f"params shape {params.shape} has only {params.ndim - b} axes to index"
        )
    flat_ids = apply(_nd_row_ids, (ids,), {"batch_dims": b, "shape": tuple(params.shape)})
    rows = reshape(params, (-1,) + params.shape[m:])
    picked = apply(_gather, (rows, flat_ids))
    return reshape(picked, ids.shape[:-1] + params.shape[m:])


@primitive("scatter_rows")
def _scatter_rows(values, indices, num_rows):
    _check_indices("scatter_rows", indices, num_rows)  # here, so that replays check too
    out = backend.array_module(values).zeros((num_rows,) + values.shape[1:], dtype=values.dtype)
    backend.scatter_add(out, indices, values)
    return out


@_scatter_rows.defgrad
def _(op, dy):
    return (apply(_gather, (dy, Tensor(op.attrs["indices"]))),)


def scatter_rows(values, indices, num_rows: int) -> Tensor:
    """A (num_rows, ...) tensor with values[i] added into row indices[i] (repeats accumulate).

    Args:
        values: a tensor of rows, shape (n, ...).
        indices: an integer tensor or array of n row numbers in [0, num_rows).
        num_rows: the number of rows of the result.

    Returns:
        The scattered tensor; its gradient gathers the rows back.

    Raises:
        InvalidArgumentError: an index is not an integer or not in [0, num_rows) (the first
            bad one is named).

    Example:
        >>> import kerasish as ks
        >>> ks.scatter_rows([[1.0], [2.0], [4.0]], ks.constant([0, 2, 0]), 3).numpy().tolist()
        [[5.0], [0.0], [2.0]]
    """
    values = convert_to_tensor(values)
    ids = indices._value if isinstance(indices, Tensor) else indices
    return apply(_scatter_rows, (values,), {"indices": ids, "num_rows": int(num_rows)})


def unsorted_segment_sum(data, segment_ids, num_segments):
    """Sum rows of `data` into `num_segments` buckets given by `segment_ids`.

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer bucket ids in [0, num_segments), in any order.
        num_segments: the number of buckets.

    Returns:
        A tensor of shape (num_segments, ...); an empty bucket is zero.

    Raises:
        InvalidArgumentError: an id is not an integer or out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.unsorted_segment_sum([1, 2, 3, 4], [1, 0, 1, 1], 2).numpy().tolist()
        [2, 8]
    """
    return scatter_rows(data, convert_to_tensor(segment_ids), num_segments)


@primitive("segment_max")
def _segment_max(data, ids, num_segments):
    # sorted, not `maximum.at` (CuPy 14's rounds float64 maxima to float32, so they match no
    # input and the gradient finds no maximum): each column ordered by id and, within an id,
    # by value; a segment's maximum is its last row
    _check_indices("segment_max", ids, num_segments)
    xp = backend.array_module(data)
    columns = data.reshape(data.shape[0], -1)
    by_value = xp.argsort(columns, axis=0, kind="stable")
    order = xp.take_along_axis(by_value, xp.argsort(ids[by_value], axis=0, kind="stable"), 0)
    counts = xp.bincount(ids, minlength=num_segments)
    filled = counts > 0
    kind = np.finfo if data.dtype.kind == "f" else np.iinfo
    out = xp.full((num_segments, columns.shape[1]), kind(data.dtype).min, dtype=data.dtype)
    out[filled] = xp.take_along_axis(columns, order, 0)[(xp.cumsum(counts) - 1)[filled]]
    return out.reshape((num_segments,) + data.shape[1:])


@_segment_max.defgrad
def _(op, dy):
    # each segment's gradient is shared equally by the rows that reach its maximum (TF's rule)
    data, ids = op.inputs[0], Tensor(op.attrs["ids"])
    hit = math_ops.cast(math_ops.equal(data, gather(op.output, ids)), data.dtype)
    count = gather(scatter_rows(hit, ids, op.attrs["num_segments"]), ids)
    return (gather(dy, ids) * hit / count,)


def unsorted_segment_max(data, segment_ids, num_segments):
    """The elementwise maximum of the rows of `data` in each of `num_segments` buckets.

    Args:
        data: a tensor of rows, shape (n, ...).
        segment_ids: n integer bucket ids in [0, num_segments), in any order.
        num_segments: the number of buckets.

    Returns:
        A tensor of shape (num_segments, ...); an empty bucket holds the dtype's lowest value
        (as TF's). The gradient goes to the rows that reach the maximum, shared among ties.

    Raises:
        InvalidArgumentError: an id is out of range, or there are not n of them.

    Example:
        >>> import kerasish as ks
        >>> ks.math.unsorted_segment_max([1.0, 5.0, 2.0], [0, 0, 1], 2).numpy().tolist()
        [5.0, 2.0]
    """
    data, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    if ids.ndim != 1 or data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise InvalidArgumentError(
            f"segment_max: segment_ids of shape {ids.shape} need one id per row of data, "
            f"shape {data.shape}"
        )
    return apply(_segment_max, (data,), {"ids": ids._value, "num_segments": int(num_segments)})


def boolean_mask(tensor, mask):
    """The elements (or rows) of `tensor` where the boolean `mask` is true.

    Args:
        tensor: a tensor whose leading axes have `mask`'s shape.
        mask: a bool tensor.

    Returns:
        A tensor of the selected entries, flattened over `mask`'s axes.

    Raises:
        InvalidArgumentError: `mask` is not boolean or its shape does not start `tensor`'s.

    Example:
        >>> import kerasish as ks
        >>> ks.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True]).numpy().tolist()
        [[1, 2], [5, 6]]
    """
    x = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    if mask.dtype.kind != "b" or x.shape[: mask.ndim] != mask.shape:
        raise InvalidArgumentError(
            f"boolean_mask: mask must be boolean with a shape {mask.shape} that starts the "
            f"tensor's shape {x.shape}"
        )
    flat = reshape(x, (-1,) + x.shape[mask.ndim :])
    return apply(_gather, (flat, apply(_flatnonzero, (mask,))))


# ---------------------------------------------------------------- clipping


def clip_by_value(t, clip_value_min, clip_value_max):
    """Clamp to [min, max]; the gradient passes where the value was inside.

    Args:
        t: a tensor or a value `convert_to_tensor` takes.
        clip_value_min: the lower bound (broadcast against `t`).
        clip_value_max: the upper bound (broadcast against `t`).

    Returns:
        The clipped tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0).numpy().tolist()
        [-1.0, 0.5, 1.0]
    """
    return math_ops.minimum(math_ops.maximum(t, clip_value_min), clip_value_max)


def clip_by_norm(t, clip_norm, axes=None):
    """Rescale `t` so its L2 norm over `axes` is at most `clip_norm` (safe at zero).

    Args:
        t: a floating tensor.
        clip_norm: the largest norm kept.
        axes: the axes the norm is taken over; None: all of them.

    Returns:
        `t` scaled by clip_norm / max(norm, clip_norm).

    Example:
        >>> import kerasish as ks
        >>> ks.clip_by_norm([6.0, 8.0], 5.0).numpy().tolist()
        [3.0, 4.0]
    """
    t = convert_to_tensor(t)
    squared = math_ops.reduce_sum(t * t, axes, keepdims=True)
    positive = math_ops.greater(squared, 0)
    safe = math_ops.where(positive, squared, 1.0)
    l2 = math_ops.where(positive, math_ops.sqrt(safe), squared)
    return t * clip_norm / math_ops.maximum(l2, clip_norm)


def global_norm(tensors):
    """sqrt(sum of squares) over a list of tensors (None entries are skipped).

    Args:
        tensors: a sequence of tensors or None.

    Returns:
        A 0-d tensor (0 for no tensors).

    Example:
        >>> import kerasish as ks
        >>> float(ks.global_norm([[3.0], [4.0], None]))
        5.0
    """
    total = None
    for t in tensors:
        if t is None:
            continue
        t = convert_to_tensor(t)
        part = math_ops.reduce_sum(t * t)
        total = part if total is None else total + part
    return math_ops.sqrt(total) if total is not None else zeros(())


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """Scale all tensors by clip_norm / max(global_norm, clip_norm); returns (list, norm).

    Args:
        t_list: a sequence of tensors or None (kept as None).
        clip_norm: the largest global norm kept.
        use_norm: the global norm, when already computed.

    Returns:
        (the scaled tensors, the global norm before clipping).

    Example:
        >>> import kerasish as ks
        >>> clipped, norm = ks.clip_by_global_norm([[6.0], [8.0]], 5.0)
        >>> [t.numpy().tolist() for t in clipped], float(norm)
        ([[3.0], [4.0]], 10.0)
    """
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    scale = clip_norm / math_ops.maximum(norm, clip_norm)
    return [None if t is None else convert_to_tensor(t) * scale for t in t_list], norm


def scatter_into(values, key, shape) -> Tensor:
    """A zero tensor of `shape` with `values` added at `key` (repeated indices accumulate):
    the adjoint of `tensor[key]`, differentiable both ways.

    Args:
        values: the values, of the shape `zeros(shape)[key]` has.
        key: a NumPy index: ints, slices, None, ..., integer or boolean arrays.
        shape: the result's shape.

    Returns:
        A tensor of `shape` and `values`' dtype.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.ops.array_ops import scatter_into
        >>> scatter_into([1.0, 2.0, 3.0], ([0, 1, 0],), (2,)).numpy().tolist()
        [4.0, 2.0]
    """
    return apply(_scatter_into, (convert_to_tensor(values),),
                 {"key": _normalize_key(key), "shape": tuple(shape)})
