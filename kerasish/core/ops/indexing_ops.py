"""Indexing: `one_hot`, getitem and its adjoint, the checks on index tensors, gather and
gather_nd, scatter, the segment sums and maxima, and boolean masks: each primitive with its
gradient. Composed of these (gradients through theirs): `nonzero`, `bincount`, the gathers
`repeat`, `flip` and `roll`, and NumPy/Keras's boxes and scatters (`slice`, `slice_update`,
`scatter`, `scatter_update`)."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.ops.creation_ops import ones_like
from kerasish.core.ops.shape_ops import reshape, transpose
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import IndexedSlices, Tensor, as_dtype, convert_to_tensor


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
        k is None or k is Ellipsis or isinstance(k, (builtins.slice, int, np.integer))
        for k in parts
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
        >>> from kerasish.core.ops.indexing_ops import integer_ids
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
        axis = reduction_ops.normalize_axis(axis, params.ndim, name)[0]
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
    axis = b if axis is None else reduction_ops.normalize_axis(axis, params.ndim, name)[0]
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
        >>> from kerasish.core.ops.indexing_ops import scatter_into
        >>> scatter_into([1.0, 2.0, 3.0], ([0, 1, 0],), (2,)).numpy().tolist()
        [4.0, 2.0]
    """
    return apply(_scatter_into, (convert_to_tensor(values),),
                 {"key": _normalize_key(key), "shape": tuple(shape)})


@symbolic_fallback
def nonzero(x) -> tuple:
    """The indices of the non-zero elements: one int32 tensor per axis, in row-major order
    (eager only: their number depends on the values).

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
    found = math_ops.cast(math_ops.where(x if x.dtype.kind == "b" else math_ops.not_equal(x, 0)),
                          np.int32)
    return tuple(getitem(found, (builtins.slice(None), d)) for d in range(x.ndim))


@symbolic_fallback
def bincount(x, weights=None, minlength: int = 0, sparse: bool = False) -> Tensor:
    """How often each non-negative integer occurs in `x` (the sum of its `weights`), per row
    for a 2-D `x`: a segment sum.

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
    host = ids.numpy()
    length = builtins.max(int(minlength), int(host.max()) + 1 if host.size else 0)
    values = ones_like(ids, dtype=np.int32) if weights is None else convert_to_tensor(weights)
    if ids.ndim == 1:
        return unsorted_segment_sum(values, ids, length)
    rows = ids.shape[0]
    shifted = reshape(ids + np.arange(rows).reshape(-1, 1) * length, [-1])
    counts = unsorted_segment_sum(reshape(values, [-1]), shifted, rows * length)
    return reshape(counts, (rows, length))


@symbolic_fallback
def repeat(x, repeats, axis=None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (of the flattened `x` when None):
    a gather.

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
    return gather(x, np.repeat(np.arange(x.shape[axis]), repeats), axis=axis)


@symbolic_fallback
def flip(x, axis=None) -> Tensor:
    """`x` with the order of its elements reversed along `axis` (an int, a tuple, or all):
    a gather per axis.

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
        x = gather(x, np.arange(x.shape[a] - 1, -1, -1), axis=a)
    return x


@symbolic_fallback
def roll(x, shift, axis=None) -> Tensor:
    """`x` shifted by `shift` places along `axis`, the end wrapping around to the front:
    a gather per axis.

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
        a = reduction_ops.normalize_axis(a, x.ndim, "roll")[0]
        n = x.shape[a]
        if n is None:  # a symbolic tensor's unknown axis: one node rolls it when it runs
            raise InvalidArgumentError(f"roll: axis {a} of shape {x.shape} has no known size")
        if n and step % n:
            x = gather(x, (np.arange(n) - step) % n, axis=a)
    return x


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


@symbolic_fallback
def slice(inputs, start_indices, shape) -> Tensor:  # noqa: A001 - Keras's name
    """The box of `shape` starting at `start_indices` (a checked getitem).

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
    return getitem(x, _box("slice", x, start_indices, shape))


@symbolic_fallback
def slice_update(inputs, start_indices, updates) -> Tensor:
    """`inputs` with the box at `start_indices` replaced by `updates` (differentiable in both:
    a `where` over a scatter).

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
    return math_ops.where(inside, scatter_into(values, key, x.shape), x)


def _scatter_key(op_name: str, indices, shape: tuple, values: Tensor):
    """(indices as one row per update, the NumPy key they make, values one row per update),
    checked against `shape`."""
    ids = convert_to_tensor(indices)
    host = ids.numpy()
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


@symbolic_fallback
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
    return scatter_into(rows, key, shape)


@symbolic_fallback
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
        return x + scatter_into(values, key, x.shape)
    flat = np.ravel_multi_index(rows.T, x.shape[:rows.shape[1]])
    _, last_from_end = np.unique(flat[::-1], return_index=True)
    if len(last_from_end) < len(flat):  # repeated indices: keep each one's last update
        keep = np.sort(len(flat) - 1 - last_from_end)
        values = gather(values, keep)
        key = tuple(gather(Tensor(k), keep)._value for k in key)
    inside = np.zeros(x.shape, dtype=bool)
    inside[tuple(rows[:, d] for d in range(rows.shape[1]))] = True
    return math_ops.where(inside, scatter_into(values, key, x.shape), x)
