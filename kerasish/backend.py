"""`ks.backend`: Keras 3's `keras.backend` functions (settings, dtypes, the session's names).

Example:
    >>> import kerasish as ks
    >>> ks.backend.backend(), ks.backend.floatx(), ks.backend.standardize_dtype(float)
    ('numpy', 'float32', 'float32')
"""

from __future__ import annotations

import numpy as np

from kerasish.config import backend
from kerasish.core import naming
from kerasish.core import random as ks_random
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.settings import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

__all__ = [
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
    "is_float_dtype", "is_int_dtype", "is_keras_tensor", "result_type", "set_epsilon",
    "set_floatx",
    "set_image_data_format", "standardize_dtype",
]

_PYTHON_TYPES = {bool: "bool", int: "int64", float: "float32", complex: "complex64",
                 str: "string"}
_ALIASES = {"float": "float32", "int": "int64", "uint": "uint64", "complex": "complex64",
            "string": "string", "str": "string"}


def clear_session(free_memory: bool = True) -> None:
    """Start afresh: layer names count from the start again (`dense`, `dense_1`, ...), and
    the random streams restart from the global seed (fresh entropy if none was set).

    Args:
        free_memory: accepted for Keras's signature; Python frees what nothing references.

    Example:
        >>> import kerasish as ks
        >>> ks.backend.clear_session()
        >>> ks.layers.Dense(1).name
        'dense'
    """
    del free_memory
    naming.reset_names()
    ks_random.restart_streams()


def get_uid(prefix: str = "") -> int:
    """1, 2, 3, ... for successive calls with one prefix (the counter of layer names).

    Example:
        >>> import kerasish as ks
        >>> ks.backend.clear_session()
        >>> ks.backend.get_uid("block"), ks.backend.get_uid("block")
        (1, 2)
    """
    return naming.next_uid(prefix)


def is_keras_tensor(x) -> bool:
    """Whether `x` is a symbolic tensor of the functional API (`ks.Input` and what it feeds)."""
    return isinstance(x, KerasTensor)


def standardize_dtype(dtype=None) -> str:
    """A dtype's Keras name: None -> `floatx()`, Python `float` -> 'float32', `int` ->
    'int64', NumPy dtypes and names -> their name.

    Raises:
        ValueError: for something that names no dtype.
    """
    if dtype is None:
        return floatx()
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    if isinstance(dtype, str) and dtype in _ALIASES:
        return _ALIASES[dtype]
    try:
        return np.dtype(getattr(dtype, "name", dtype) if not isinstance(dtype, np.dtype)
                        else dtype).name
    except TypeError:
        raise ValueError(f"standardize_dtype: {dtype!r} names no dtype") from None


def is_float_dtype(dtype) -> bool:
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype) -> bool:
    return standardize_dtype(dtype).startswith(("int", "uint"))


# Keras's dtype promotion (JAX's lattice): each dtype's next wider ones; "int" and "float"
# are the weak types of Python numbers, which take the other operand's width
_WIDER = {
    "bool": ("int",), "uint8": ("int16", "uint16"), "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"), "uint64": ("float",), "int": ("uint8", "int8", "complex64"),
    "int8": ("int16",), "int16": ("int32",), "int32": ("int64",), "int64": ("float",),
    "float": ("bfloat16", "float16"), "bfloat16": ("float32",), "float16": ("float32",),
    "float32": ("float64", "complex64"), "float64": ("complex128",),
    "complex64": ("complex128",), "complex128": (),
}


def _above(node: str) -> frozenset:
    """`node` and every dtype it promotes to."""
    seen, todo = {node}, [node]
    while todo:
        for wider in _WIDER[todo.pop()]:
            if wider not in seen:
                seen.add(wider)
                todo.append(wider)
    return frozenset(seen)


_ABOVE = {node: _above(node) for node in _WIDER}
# Keras off TensorFlow computes 64-bit results in 32 bits (JAX without x64)
_TO_32_BITS = {"int64": "int32", "uint64": "uint32", "float64": "float32",
               "complex128": "complex64"}


def result_type(*dtypes) -> str:
    """The dtype Keras 3 gives an op on operands of `dtypes`: the least upper bound on JAX's
    promotion lattice, Python `int`/`float` taking the other operand's width, 64-bit results
    given in 32 bits (as Keras on every backend but TensorFlow); `floatx()` for none.

    Args:
        *dtypes: dtypes, their names, or the Python types `int`, `float`, `bool`.

    Returns:
        The result's dtype name.

    Raises:
        ValueError: a dtype outside the lattice, or dtypes with no common one.

    Example:
        >>> import kerasish as ks
        >>> ks.backend.result_type("int32", "float16"), ks.backend.result_type("uint8", int)
        ('float16', 'uint8')
    """
    if not dtypes:
        return floatx()
    names = [dtype if isinstance(dtype, str) and dtype in _WIDER else standardize_dtype(dtype)
             for dtype in dtypes]  # ('bfloat16' has no NumPy dtype without ml_dtypes)
    for name in names:
        if name not in _WIDER:
            raise ValueError(f"result_type: {name!r} is not a dtype of Keras's type promotion")
    weak = [dtype is int or dtype is float for dtype in dtypes]
    if all(weak):  # only Python numbers: their promotion, at floatx's precision
        nodes = set(names)
    else:
        nodes = {("float" if "float" in n else "int") if w and n != "bool" else n
                 for n, w in zip(names, weak)}
    if len(nodes) == 1:
        out = nodes.pop()
    else:
        common = frozenset.intersection(*(_ABOVE[n] for n in nodes))
        least = (common & nodes) or {c for c in common if common <= _ABOVE[c]}
        if len(least) != 1:
            raise ValueError(f"result_type: {dtypes} have no common dtype; cast them first")
        out = set(least).pop()
    if (all(weak) and out != "bool") or out in ("int", "float"):  # at floatx's precision
        out = ("float" if "float" in out else "int") + floatx()[-2:]
    return _TO_32_BITS.get(out, out)
