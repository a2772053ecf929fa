"""`ks.ops` conversion and creation: `convert_to_numpy`, `cast`, `shape`, `zeros`, `full`,
`arange`, ..."""

from __future__ import annotations

import numpy as np

from kerasish.core.ops import creation_ops, math_ops
from kerasish.core.tensor import Tensor, convert_to_tensor

__all__ = [
    "arange",
    "array",
    "copy",
    "empty",
    "empty_like",
    "cast",
    "convert_to_numpy",
    "full",
    "full_like",
    "identity",
    "ndim",
    "ones",
    "shape",
    "size",
    "zeros",
]


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
    return creation_ops.zeros(shape, dtype or np.float32)


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
    return creation_ops.ones(shape, dtype or np.float32)


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
    return creation_ops.fill(shape, fill_value, dtype=dtype or np.float32)


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
    return creation_ops.fill(x.shape, fill_value, dtype=dtype or x.dtype)


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
    return creation_ops.range(start, stop, step, dtype=dtype)


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
    return creation_ops.eye(n, dtype=dtype or np.float32)


def array(x, dtype=None) -> Tensor:
    """`x` as a tensor (Keras's `ops.array`: `convert_to_tensor`).

    Args:
        x: a number, list or array.
        dtype: the element type; None: inferred (float32 for Python floats).

    Returns:
        A tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.array([1, 2], dtype="float32")
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[1., 2.]>
    """
    return convert_to_tensor(x, dtype=dtype)


def copy(x) -> Tensor:
    """A copy of `x` (the gradient passes through).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor equal to `x`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.copy([1, 2])).tolist()
        [1, 2]
    """
    return creation_ops.identity(x)


def empty(shape, dtype=None) -> Tensor:  # noqa: A002
    """A tensor of `shape` (zeros here: NumPy's uninitialized memory has no use in a graph).

    Args:
        shape: an int or a sequence of ints.
        dtype: the element type; None: float32.

    Returns:
        A new tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.empty((2, 3)))
        (2, 3)
    """
    return creation_ops.zeros(shape, dtype or np.float32)


def empty_like(x, dtype=None) -> Tensor:
    """A tensor like `x` (zeros here).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        dtype: the element type; None: `x`'s.

    Returns:
        A new tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.empty_like([1, 2]).dtype.name
        'int32'
    """
    return creation_ops.zeros_like(x, dtype=dtype)
