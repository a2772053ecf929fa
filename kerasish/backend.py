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
    set_floatx,
    set_image_data_format,
)

__all__ = [
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
    "is_float_dtype", "is_int_dtype", "is_keras_tensor", "set_floatx",
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
