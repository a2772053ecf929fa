"""Indexing: `one_hot`, getitem and its adjoint, the checks on index tensors, gather and
gather_nd, scatter, the segment sums and maxima, and boolean masks: each primitive with its
gradient."""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, reduction_ops
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
