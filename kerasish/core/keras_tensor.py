"""KerasTensor: a symbolic tensor of the functional API (a shape and dtype, no value).

`ks.Input(...)` returns one, and so does every layer or op applied to one. A
KerasTensor is a `Tensor` subclass, so every op accepts it without a check of
its own; its `_value` is a `SymbolicValue` that knows its shape and dtype and
raises `SymbolicValueUsed` the moment anything asks for numbers. The primitive
dispatcher (`kerasish.core.primitive.apply`) catches that on its error path and
records an op node instead (see `kerasish.core.symbolic`), so the eager hot
path pays nothing for the functional API.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from kerasish.core import nest
from kerasish.core.tensor import Tensor
from kerasish.core.tensor_shape import TensorShape

KerasHistory = namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])


class SymbolicValueUsed(TypeError):
    """Raised when code asks a symbolic tensor for its values."""


def _refuse(*_args, **_kwargs):
    raise SymbolicValueUsed(
        "a symbolic tensor (from ks.Input or a layer called on one) has no values; "
        "build the model with ks.Model(inputs, outputs) and call it on data"
    )


class SymbolicValue:
    """The `_value` of a KerasTensor: `shape`, `dtype` and `ndim` only.

    Every NumPy protocol (ufuncs, array functions, conversion), indexing,
    arithmetic and any other attribute raise `SymbolicValueUsed`.
    """

    __slots__ = ("shape", "dtype", "ndim")
    __array_ufunc__ = _refuse
    __array_function__ = _refuse
    __array__ = _refuse
    __getitem__ = __setitem__ = __len__ = __iter__ = __bool__ = _refuse
    __float__ = __int__ = __index__ = __complex__ = _refuse

    def __init__(self, shape: tuple, dtype: np.dtype):
        self.shape, self.dtype, self.ndim = shape, dtype, len(shape)

    def __getattr__(self, name):
        if name.startswith("__"):  # protocol probes (copy, pickle, NumPy) find nothing here
            raise AttributeError(name)
        _refuse()


for _name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lt", "le", "gt", "ge",
):
    setattr(SymbolicValue, f"__{_name}__", _refuse)
    setattr(SymbolicValue, f"__r{_name}__", _refuse)
for _name in ("neg", "pos", "abs", "invert"):
    setattr(SymbolicValue, f"__{_name}__", _refuse)


def _shape_tuple(shape) -> tuple:
    return tuple(None if d is None else int(d) for d in shape)


class KerasTensor(Tensor):
    """A symbolic tensor: shape (None for unknown dims), dtype, name, and where it came from.

    `_keras_history` is `(operation, node_index, tensor_index)`: the layer or op
    that produced it, which of its calls, and which of that call's outputs.

    Args:
        shape: the shape, None for unknown dimensions.
        dtype: the dtype (default float32).
        sparse: Keras's flag for a sparse tensor; kerasish's tensors are dense, so True
            raises.
        ragged: Keras's flag for a ragged tensor; True raises (no ragged tensors here).
        record_history: accepted for Keras's signature; a tensor made here has no history
            until a node makes it.
        name: a name (the `Input`'s).
        keras_history: `(operation, node_index, tensor_index)`, or None for a new input.

    Raises:
        ValueError: `sparse=True` or `ragged=True`.

    Example:
        >>> import kerasish as ks
        >>> x = ks.Input((3,), name="features")
        >>> x.shape, str(x.dtype), x.name
        ((None, 3), 'float32', 'features')
    """

    __slots__ = ("name", "_keras_history")

    def __init__(self, shape, dtype="float32", sparse: bool = False, ragged: bool = False,
                 record_history: bool = True, name: str | None = None, keras_history=None,
                 **kwargs):
        if sparse or ragged:
            kind = "sparse" if sparse else "ragged"
            raise ValueError(
                f"KerasTensor: {kind}=True is not supported: kerasish's tensors are dense "
                "NumPy/CuPy arrays")
        super().__init__(SymbolicValue(_shape_tuple(shape), np.dtype(dtype)))
        self.name = name
        self._keras_history = keras_history

    @property
    def shape(self) -> TensorShape:
        """The dimensions, None where unknown (a tuple with `as_list()`, like `Tensor.shape`)."""
        return TensorShape(self._value.shape)

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self):
        """The number of elements, or None when a dimension is unknown."""
        if any(d is None for d in self.shape):
            return None
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def device(self) -> str:
        return "symbolic"

    def numpy(self):
        _refuse()

    def __array__(self, dtype=None, copy=None):
        _refuse()

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise TypeError(f"len() of a symbolic tensor of shape {self.shape} is unknown")
        return self.shape[0]

    def __iter__(self):
        raise TypeError(
            "iterating over a symbolic tensor is not supported; index it (x[:, 0]) or use "
            "ks.unstack inside a layer"
        )

    def __bool__(self) -> bool:
        raise TypeError(
            "a symbolic tensor cannot be used as a Python bool (in `if`, `while`, `and`): its "
            "value is only known when the model runs; use ks.where, or put the logic in a "
            "Layer's call()"
        )

    def _scalar(self, what: str):
        raise TypeError(
            f"{what}() of a symbolic tensor: its value is only known when the model runs"
        )

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, name={self.name}>"

    __str__ = __repr__


class Node:
    """One call of a layer or op on symbolic tensors.

    `args`/`kwargs` are the call's arguments as given (symbolic tensors included);
    `outputs` is the returned structure of symbolic tensors, `output_tensors` and
    `input_tensors` their flat lists.
    """

    __slots__ = ("operation", "args", "kwargs", "outputs", "output_tensors", "input_tensors")

    def __init__(self, operation, args: tuple, kwargs: dict, output_specs):
        nodes = inbound_nodes(operation)
        node_index = len(nodes)
        self.operation = operation
        self.args, self.kwargs = tuple(args), dict(kwargs)
        self.input_tensors = [t for t in nest.flatten((self.args, self.kwargs))
                              if isinstance(t, KerasTensor)]
        specs = nest.flatten(output_specs)
        single = len(specs) == 1
        self.output_tensors = [
            KerasTensor(
                spec.shape,
                spec.dtype,
                name=operation.name if single else f"{operation.name}_{i}",
                keras_history=KerasHistory(operation, node_index, i),
            )
            for i, spec in enumerate(specs)
        ]
        self.outputs = nest.pack_sequence_as(output_specs, self.output_tensors)
        nodes.append(self)

    def __repr__(self) -> str:
        return f"<Node of {self.operation.name}: {len(self.input_tensors)} symbolic inputs>"


def inbound_nodes(operation) -> list:
    """The nodes recorded for `operation` so far (created empty on first use)."""
    return operation.__dict__.setdefault("_inbound_nodes", [])


def producing_node(tensor: KerasTensor) -> Node:
    history = tensor._keras_history
    return inbound_nodes(history.operation)[history.node_index]


def any_symbolic(structure) -> bool:
    """Whether a (nested) list, tuple or dict holds a KerasTensor."""
    if structure.__class__ is KerasTensor:
        return True
    if isinstance(structure, (list, tuple)):
        return any(any_symbolic(item) for item in structure)
    if isinstance(structure, dict):
        return any(any_symbolic(item) for item in structure.values())
    return False
