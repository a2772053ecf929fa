"""Shape manipulation: reshape, transpose (and `swapaxes`, `moveaxis`), expand and squeeze,
broadcast (its adjoint `unbroadcast`, and `meshgrid`), concat, stack, split, tile and pad:
each primitive with its gradient, the composites through theirs."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import reduction_ops
from kerasish.core.ops.creation_ops import identity, shape_tuple
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor


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
    shape = shape_tuple(shape)
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
    perm = tuple(builtins.range(x.ndim))[::-1] if perm is None else shape_tuple(perm)
    if sorted(p % max(x.ndim, 1) for p in perm) != list(builtins.range(x.ndim)):
        raise InvalidArgumentError(
            f"transpose: perm {perm} is not a permutation of the {x.ndim} axes of shape {x.shape}"
        )
    return apply(_transpose, (x,), {"perm": tuple(p % x.ndim for p in perm)})


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged (a `transpose`).

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
    axes = list(builtins.range(x.ndim))
    first, second = (reduction_ops.normalize_axis(a, x.ndim, "swapaxes")[0] for a in (axis1, axis2))
    axes[first], axes[second] = second, first
    return transpose(x, axes)


def moveaxis(x, source, destination) -> Tensor:
    """`x` with the axes `source` (an int or a sequence) moved to `destination`, the others
    keeping their order (a `transpose`).

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
        [reduction_ops.normalize_axis(a, x.ndim, "moveaxis")[0]
         for a in ([axes] if isinstance(axes, (int, np.integer)) else axes)]
        for axes in (source, destination)
    )
    if len(sources) != len(destinations):
        raise InvalidArgumentError(
            f"moveaxis: source {source} and destination {destination} need as many axes"
        )
    order = [a for a in builtins.range(x.ndim) if a not in sources]
    for destination_axis, source_axis in sorted(zip(destinations, sources)):
        order.insert(destination_axis, source_axis)
    return transpose(x, order)


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
        axes = set(reduction_ops.normalize_axis(axis, x.ndim, "squeeze"))
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
    shape = shape_tuple(shape)
    if x._value.shape == shape:
        return x
    return apply(_broadcast_to, (x,), {"shape": shape})


@symbolic_fallback
def meshgrid(*x, indexing: str = "xy") -> list:
    """Coordinate grids from 1-D coordinate vectors (NumPy's meshgrid): each vector
    reshaped and broadcast to the grid's shape.

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
    axes = list(builtins.range(len(vectors)))
    if indexing == "xy" and len(vectors) >= 2:
        axes[0], axes[1] = 1, 0
    grid = [0] * len(vectors)
    for v, a in zip(vectors, axes):
        grid[a] = v.shape[0]
    return [broadcast_to(reshape(v, [-1 if d == a else 1 for d in builtins.range(len(grid))]),
                         grid)
            for v, a in zip(vectors, axes)]


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
    return reshape(reduction_ops.reduce_sum(grad, axes), shape)


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
    axis = reduction_ops.normalize_axis(axis, ndim, "concat")[0]
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
    axis = reduction_ops.normalize_axis(axis, x.ndim, "unstack")[0]
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
    axis = reduction_ops.normalize_axis(axis, x.ndim, "split")[0]
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
    repeats = tuple(builtins.range(0, 2 * x.ndim, 2))
    summed = reduction_ops.reduce_sum(reshape(dy, interleaved), repeats)
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
    multiples = shape_tuple(multiples)
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


