"""Python operators on Tensor, and the tensor methods that are ops, each delegating to the
op that defines it (core/tensor.py sits below the ops and cannot import them)."""

from kerasish.core.ops import creation_ops, indexing_ops, math_ops, shape_ops
from kerasish.core.tensor import IndexedSlices, Tensor, Variable


def _swap(op):
    return lambda self, other: op(other, self)


Tensor.__add__ = math_ops.add
Tensor.__radd__ = math_ops.add  # commutative: no argument swap needed
Tensor.__sub__ = math_ops.subtract
Tensor.__rsub__ = _swap(math_ops.subtract)
Tensor.__mul__ = math_ops.multiply
Tensor.__rmul__ = math_ops.multiply
Tensor.__truediv__ = math_ops.divide
Tensor.__rtruediv__ = _swap(math_ops.divide)
Tensor.__floordiv__ = math_ops.floordiv
Tensor.__rfloordiv__ = _swap(math_ops.floordiv)
Tensor.__mod__ = math_ops.floormod
Tensor.__rmod__ = _swap(math_ops.floormod)
Tensor.__pow__ = math_ops.pow
Tensor.__rpow__ = _swap(math_ops.pow)
Tensor.__matmul__ = math_ops.matmul
Tensor.__rmatmul__ = _swap(math_ops.matmul)
Tensor.__neg__ = math_ops.negative
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = math_ops.abs
Tensor.__invert__ = math_ops.logical_not
Tensor.__and__ = math_ops.logical_and
Tensor.__rand__ = _swap(math_ops.logical_and)
Tensor.__or__ = math_ops.logical_or
Tensor.__ror__ = _swap(math_ops.logical_or)
Tensor.__xor__ = math_ops.logical_xor
Tensor.__eq__ = math_ops.equal
Tensor.__ne__ = math_ops.not_equal
Tensor.__lt__ = math_ops.less
Tensor.__le__ = math_ops.less_equal
Tensor.__gt__ = math_ops.greater
Tensor.__ge__ = math_ops.greater_equal
Tensor.__getitem__ = indexing_ops.getitem
Tensor.T = property(lambda self: shape_ops.transpose(self))


def _cpu(self) -> Tensor:
    """A copy of this tensor on the CPU (differentiable)."""
    return creation_ops.copy_to_device(self, ("cpu", 0))


def _gpu(self, index: int = 0) -> Tensor:
    """A copy of this tensor on GPU `index` (differentiable).

    Args:
        index: the GPU's number.

    Returns:
        The copy, whose gradient comes back to this tensor's device.

    Raises:
        DeviceError: CuPy is not installed or there is no GPU `index` (the message
            says how to install it).

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([1.0, 2.0])
        >>> on_gpu = x.gpu() if ks.config.list_physical_devices("GPU") else x
        >>> on_gpu.numpy().tolist()
        [1.0, 2.0]
    """
    return creation_ops.copy_to_device(self, ("gpu", index))


def _read_value(self) -> Tensor:
    """A snapshot of the variable's current value as a plain tensor."""
    return creation_ops.identity(self)


def _to_dense(self) -> Tensor:
    """The dense tensor these rows stand for (rows not given are zeros, repeated ones add)."""
    return indexing_ops.scatter_rows(self.values, self.indices, self.dense_shape[0])


Tensor.cpu = _cpu
Tensor.gpu = _gpu
Variable.read_value = _read_value
IndexedSlices.to_dense = _to_dense
