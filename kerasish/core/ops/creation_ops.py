"""New tensors: constants, ranges, `eye`, the `*_like` ops, a tensor's shape, size and rank
as tensors, and copies (`identity`, `stop_gradient`, `copy_to_device`)."""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.primitive import apply, apply1, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

# ---------------------------------------------------------------- constants, ranges and shapes


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
    return _new(np.zeros(shape_tuple(shape), dtype=as_dtype(dtype)))


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
    return _new(np.ones(shape_tuple(shape), dtype=as_dtype(dtype)))


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
    return _new(np.full(shape_tuple(dims), value, dtype=value.dtype))


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


def shape_tuple(shape) -> tuple:
    """`shape` (an int, a sequence of ints or a 1-D integer tensor) as a tuple of ints."""
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


# ---------------------------------------------------------------- copies: identity and devices


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


