"""`ks.ops` elementwise math under Keras's dtypes: `exp`, `log2`, `arctan2`, `sin`, ... take
integers as float32, as Keras does (kerasish's core ops follow NumPy's float64), and
adapters of Keras's signatures (`clip`, `round`). `isnan`, `nan_to_num`, `power`, ... are
core ops shown as they are."""

from __future__ import annotations

from kerasish.core.ops import clip_ops, math_ops, numpy_ops
from kerasish.core.ops.math_ops import divide, multiply
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.keras_dtypes import floating, on_floats

__all__ = [
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "angle",
    "cbrt",
    "correlate",
    "deg2rad",
    "divide_no_nan",
    "erfc",
    "erfinv",
    "exp2",
    "fabs",
    "heaviside",
    "hypot",
    "i0",
    "logaddexp",
    "logaddexp2",
    "nextafter",
    "rad2deg",
    "sinc",
    "ceil",
    "clip",
    "cos",
    "cosh",
    "erf",
    "exp",
    "expm1",
    "floor",
    "log",
    "log10",
    "log1p",
    "log2",
    "reciprocal",
    "round",
    "rsqrt",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
]


exp, expm1, log, log1p, sqrt, rsqrt, reciprocal = map(on_floats, (
    math_ops.exp, math_ops.expm1, math_ops.log, math_ops.log1p, math_ops.sqrt, math_ops.rsqrt,
    math_ops.reciprocal))
floor, ceil = map(on_floats, (math_ops.floor, math_ops.ceil))
sin, cos, tanh, erf = map(on_floats, (math_ops.sin, math_ops.cos, math_ops.tanh, math_ops.erf))
log2, log10 = map(on_floats, (math_ops.log2, math_ops.log10))
tan, sinh, cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh = map(on_floats, (
    math_ops.tan, math_ops.sinh, math_ops.cosh, math_ops.asin, math_ops.acos, math_ops.atan,
    math_ops.asinh, math_ops.acosh, math_ops.atanh))


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




def on_floats2(op):
    """`op` of two tensors with both put through `floating` (Keras's float32 for integers).

    Args:
        op: a function whose first two arguments are tensors.

    Returns:
        The wrapped function (named and documented as `op`).

    Example:
        >>> from kerasish import ops
        >>> ops.hypot(3, 4)
        <ks.Tensor: shape=(), dtype=float32, numpy=5.0>
    """

    def keras_dtypes(x1, x2, *args, **kwargs):
        return op(floating(x1), floating(x2), *args, **kwargs)

    keras_dtypes.__name__ = keras_dtypes.__qualname__ = op.__name__
    keras_dtypes.__doc__, keras_dtypes.__wrapped__ = op.__doc__, op
    return keras_dtypes


cbrt, exp2, sinc, i0, erfinv, erfc, deg2rad, rad2deg, angle = map(on_floats, (
    numpy_ops.cbrt, numpy_ops.exp2, numpy_ops.sinc, numpy_ops.i0, math_ops.erfinv,
    math_ops.erfc, numpy_ops.deg2rad, numpy_ops.rad2deg, numpy_ops.angle))
hypot, logaddexp, logaddexp2, nextafter, heaviside, correlate = map(on_floats2, (
    numpy_ops.hypot, numpy_ops.logaddexp, numpy_ops.logaddexp2, numpy_ops.nextafter,
    numpy_ops.heaviside, numpy_ops.correlate))


def fabs(x) -> Tensor:
    """|x| elementwise, as floats (float32 for integers, as Keras's).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.fabs([-2, 3])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[2., 3.]>
    """
    return math_ops.abs(floating(x))


def divide_no_nan(x1, x2) -> Tensor:
    """x1 / x2, 0 where x2 is 0 (float32 for integers, as Keras's).

    Args:
        x1: the dividend.
        x2: the divisor, broadcast against x1.

    Returns:
        A floating tensor of the broadcast shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.divide_no_nan([1, 2], [0, 4])).tolist()
        [0.0, 0.5]
    """
    return math_ops.divide_no_nan(floating(x1), floating(x2))
