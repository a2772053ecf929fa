"""Keras 3's dtype rule for ops with real results, shared by the `ks.ops` modules."""

from __future__ import annotations

import functools

import numpy as np

from kerasish.core.ops import math_ops
from kerasish.core.tensor import Tensor, convert_to_tensor


def floating(x) -> Tensor:
    """Keras 3's dtype rule for ops with real results: integer and bool inputs become float32
    (kerasish's own ops follow NumPy, which gives float64).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        `x` as a tensor, cast to float32 unless it is floating or complex.

    Example:
        >>> from kerasish.ops.keras_dtypes import floating
        >>> floating([1, 2]).dtype.name
        'float32'
    """
    x = convert_to_tensor(x)
    return x if x.dtype.kind in "fc" else math_ops.cast(x, np.float32)


def on_floats(op):
    """`op` with its first argument put through `floating`: a core op under Keras's dtypes.

    Args:
        op: a function whose first argument is a tensor.

    Returns:
        The wrapped function (named and documented as `op`).

    Example:
        >>> from kerasish.core.ops import math_ops
        >>> from kerasish.ops.keras_dtypes import on_floats
        >>> root = on_floats(math_ops.sqrt)(4)
        >>> float(root), root.dtype.name
        (2.0, 'float32')
    """

    @functools.wraps(op, updated=())  # not op's __wrapped_op__: a loaded node runs this
    def keras_dtypes(x, *args, **kwargs):
        return op(floating(x), *args, **kwargs)

    return keras_dtypes
