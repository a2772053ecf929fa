"""`ks.ops` elementwise math (NumPy spellings): `exp`, `power`, `arctan2`, `isnan`, `clip`,
`round`, ...; ops with real results take integers as float32, as Keras does."""

from __future__ import annotations

import numpy as np

from kerasish.core.ops import clip_ops, math_ops
from kerasish.core.ops.math_ops import (
    abs,
    divide,
    equal,
    logical_not,
    logical_or,
    multiply,
    not_equal,
    where,
)
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.keras_dtypes import floating, on_floats

__all__ = [
    "absolute",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "ceil",
    "clip",
    "cos",
    "cosh",
    "erf",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "log10",
    "log1p",
    "log2",
    "nan_to_num",
    "power",
    "reciprocal",
    "round",
    "rsqrt",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "true_divide",
]


exp, expm1, log, log1p, sqrt, rsqrt, reciprocal = map(on_floats, (
    math_ops.exp, math_ops.expm1, math_ops.log, math_ops.log1p, math_ops.sqrt, math_ops.rsqrt,
    math_ops.reciprocal))
floor, ceil = map(on_floats, (math_ops.floor, math_ops.ceil))
sin, cos, tanh, erf = map(on_floats, (math_ops.sin, math_ops.cos, math_ops.tanh, math_ops.erf))
absolute = abs
power = math_ops.pow
true_divide = divide
floor_divide = math_ops.floordiv
tan, sinh, cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh = map(on_floats, (
    math_ops.tan, math_ops.sinh, math_ops.cosh, math_ops.asin, math_ops.acos, math_ops.atan,
    math_ops.asinh, math_ops.acosh, math_ops.atanh))


def isnan(x) -> Tensor:
    """Where `x` is NaN.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isnan([1.0, float("nan"), float("inf")])).tolist()
        [False, True, False]
    """
    return not_equal(x, x)


def isinf(x) -> Tensor:
    """Where `x` is +inf or -inf.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isinf([1.0, float("nan"), float("-inf")])).tolist()
        [False, False, True]
    """
    return equal(abs(x), np.inf)


def isfinite(x) -> Tensor:
    """Where `x` is neither NaN nor infinite.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isfinite([1.0, float("nan"), float("inf")])).tolist()
        [True, False, False]
    """
    return logical_not(logical_or(isnan(x), isinf(x)))


def clip(x, x_min, x_max) -> Tensor:
    """`x` limited to [x_min, x_max].

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        x_min: the lower bound.
        x_max: the upper bound.

    Returns:
        The clipped tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.clip([-2, 0, 5], 0, 3)).tolist()
        [0, 0, 3]
    """
    return clip_ops.clip_by_value(x, x_min, x_max)


def round(x, decimals: int = 0) -> Tensor:  # noqa: A001
    """`x` rounded half to even to `decimals` places; integers are returned as they are.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        decimals: the number of decimal places.

    Returns:
        A tensor of `x`'s shape and dtype.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.round([0.5, 1.5, 2.5])).tolist()
        [0.0, 2.0, 2.0]
    """
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        return x
    if decimals == 0:
        return math_ops.round(x)
    scale = 10.0**decimals
    return divide(math_ops.round(multiply(x, scale)), scale)




def arctan2(x1, x2) -> Tensor:
    """The angle of the point (x2, x1) from the positive x axis, in (-pi, pi].

    Args:
        x1: the second coordinate (y).
        x2: the first coordinate (x), broadcast against x1.

    Returns:
        The angles (float32 for integer inputs).

    Example:
        >>> from kerasish import ops
        >>> print(f"{float(ops.arctan2([1.0], [1.0])[0]):.5f}")  # (the last digit varies)
        0.78540
    """
    return math_ops.atan2(floating(x1), floating(x2))


def log2(x) -> Tensor:
    """The base-2 logarithm elementwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float32 for integers).

    Example:
        >>> from kerasish import ops
        >>> ops.log2([1, 8])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(2.0))


def log10(x) -> Tensor:
    """The base-10 logarithm elementwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float32 for integers).

    Example:
        >>> from kerasish import ops
        >>> ops.log10([1.0, 1000.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(10.0))


def nan_to_num(x, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """`x` with NaN, +inf and -inf replaced (by default: 0 and the dtype's largest and
    lowest finite values).

    Args:
        x: a tensor.
        nan: the value for NaN.
        posinf: the value for +inf; None: the largest finite value.
        neginf: the value for -inf; None: the lowest finite value.

    Returns:
        A tensor of `x`'s shape and dtype (integers unchanged).

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.nan_to_num([np.nan, np.inf, 1.0], posinf=9.0)).tolist()
        [0.0, 9.0, 1.0]
    """
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        return x
    info = np.finfo(x.dtype)
    x = where(not_equal(x, x), float(nan), x)
    x = where(equal(x, np.inf), float(info.max if posinf is None else posinf), x)
    return where(equal(x, -np.inf), float(info.min if neginf is None else neginf), x)
