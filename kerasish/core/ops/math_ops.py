"""Elementwise math, comparisons, reductions and matmul: each primitive with its gradient."""

from __future__ import annotations

import math
import operator

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.primitive import apply, apply1, apply2, binary_args, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

# ---------------------------------------------------------------- binary arithmetic
# (forwards are the C-level operator functions where they exist: the cheapest call)


_add = primitive("add")(operator.add)


@_add.defgrad
def _(op, dy):
    return dy, dy


_subtract = primitive("subtract")(operator.sub)


@_subtract.defgrad
def _(op, dy):
    return dy, (negative(dy) if op.needs[1] else None)


_multiply = primitive("multiply")(operator.mul)


@_multiply.defgrad
def _(op, dy):
    x, y = op.inputs
    return (dy * y if op.needs[0] else None), (dy * x if op.needs[1] else None)


def _true_divide(x, y):
    if x.dtype.kind in "iub" and y.dtype.kind in "iub":
        wide = x.dtype.itemsize > 4 or y.dtype.itemsize > 4
        dtype = np.float64 if wide else np.float32
        return np.true_divide(x, y, dtype=dtype)
    return x / y


_divide = primitive("divide")(_true_divide)


@_divide.defgrad
def _(op, dy):
    x, y = op.inputs
    dx = dy / y if op.needs[0] else None
    dyy = negative(dy) * op.output / y if op.needs[1] else None
    return dx, dyy


@primitive("pow")
def _pow(x, y):
    return x**y


@_pow.defgrad
def _(op, dy):
    x, y = op.inputs
    dx = dy * y * x ** (y - 1) if op.needs[0] else None
    if op.needs[1]:
        safe_log = log(where(greater(x, 0), x, ones_like_values(x)))
        dyy = dy * op.output * safe_log
    else:
        dyy = None
    return dx, dyy


@primitive("maximum")
def _maximum(x, y):
    return np.maximum(x, y)


@_maximum.defgrad
def _(op, dy):
    x, y = op.inputs
    take_x = greater_equal(x, y)
    dx = where(take_x, dy, 0.0) if op.needs[0] else None
    dyy = where(take_x, 0.0, dy) if op.needs[1] else None
    return dx, dyy


@primitive("minimum")
def _minimum(x, y):
    return np.minimum(x, y)


@_minimum.defgrad
def _(op, dy):
    x, y = op.inputs
    take_x = less_equal(x, y)
    dx = where(take_x, dy, 0.0) if op.needs[0] else None
    dyy = where(take_x, 0.0, dy) if op.needs[1] else None
    return dx, dyy


_floordiv = primitive("floordiv", differentiable=False)(lambda x, y: x // y)
# integer division rounded toward zero: fmod has the dividend's sign, so x - fmod(x, y)
# is an exact multiple of y
_truncatediv = primitive("truncatediv", differentiable=False)(
    lambda x, y: (x - backend.array_module(x).fmod(x, y)) // y
)
_floormod = primitive("floormod", differentiable=False)(lambda x, y: x % y)


def add(x, y):
    """x + y elementwise, with broadcasting.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.add([1, 2], 10).numpy().tolist()
        [11, 12]
    """
    return apply2(_add, x, y)


def subtract(x, y):
    """x - y elementwise, with broadcasting.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.subtract([5.0, 3.0], [1.0, 4.0]).numpy().tolist()
        [4.0, -1.0]
    """
    return apply2(_subtract, x, y)


def multiply(x, y):
    """x * y elementwise, with broadcasting.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.multiply([[1.0], [2.0]], [3.0, 4.0]).numpy().tolist()
        [[3.0, 4.0], [6.0, 8.0]]
    """
    return apply2(_multiply, x, y)


def divide(x, y):
    """x / y elementwise (true division: integers give float32, or float64 for 64-bit ints).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A floating tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.divide([1, 3], 2)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5, 1.5]>
    """
    return apply2(_divide, x, y)


truediv = divide


def divide_no_nan(x, y):
    """x / y, and 0 where y is 0 (even where x is 0, inf or NaN): TF's `tf.math.divide_no_nan`.

    For ratios over counts that may be empty (a metric before any example, a loss whose
    weights are all 0). The gradient is 0 where y is 0.

    Args:
        x: a floating tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the divisor, broadcast against x.

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.math.divide_no_nan([3.0, 1.0], [2.0, 0.0]).numpy().tolist()
        [1.5, 0.0]
    """
    x, y = binary_args(x, y)
    zero = equal(y, 0)
    quotient = x / where(zero, ones_like_values(y), y)
    return where(zero, 0.0, quotient)


def pow(x, y):  # noqa: A001 - TF's name
    """x ** y elementwise (x ** 2 runs as `square`: same values, a cheaper gradient).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.pow([2.0, 3.0], 3.0).numpy().tolist()
        [8.0, 27.0]
    """
    if y.__class__ in (int, float) and y == 2:
        return square(x)
    return apply2(_pow, x, y)


def maximum(x, y):
    """Elementwise maximum; the gradient goes to x where x >= y.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.maximum([1.0, 5.0], 3.0).numpy().tolist()
        [3.0, 5.0]
    """
    return apply2(_maximum, x, y)


def minimum(x, y):
    """Elementwise minimum; the gradient goes to x where x <= y.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.minimum([1.0, 5.0], 3.0).numpy().tolist()
        [1.0, 3.0]
    """
    return apply2(_minimum, x, y)


def floordiv(x, y):
    """x // y elementwise (not differentiable).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape, rounded toward minus infinity.

    Example:
        >>> import kerasish as ks
        >>> ks.floordiv([-7, 7], 2).numpy().tolist()
        [-4, 3]
    """
    return apply2(_floordiv, x, y)


def truncatediv(x, y):
    """x / y for integers, rounded toward zero as in C (TF's truncatediv; not differentiable).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        An integer tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.truncatediv(ks.constant([-7, 7]), 2).numpy().tolist()
        [-3, 3]
    """
    return apply2(_truncatediv, x, y)


def floormod(x, y):
    """x % y elementwise, sign of y as in Python (not differentiable).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.floormod([-7, 7], 3).numpy().tolist()
        [2, 1]
    """
    return apply2(_floormod, x, y)


mod = floormod


def squared_difference(x, y):
    """(x - y) ** 2 elementwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        y: the second operand, broadcast against x (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.squared_difference([1.0, 4.0], [3.0, 4.0]).numpy().tolist()
        [4.0, 0.0]
    """
    return square(subtract(x, y))


# ---------------------------------------------------------------- comparisons and logic


_X_ARG = "x: a tensor, or a number, list or array that `convert_to_tensor` takes."
_Y_ARG = "y: the second operand, broadcast against x (NumPy rules)."
_AXIS_ARGS = (
    "input_tensor: the tensor to reduce.",
    "axis: an axis or a sequence of axes (negative counts from the end); None: all axes.",
    "keepdims: keep each reduced axis with length 1, so the result broadcasts against"
    " the input.",
)


def _factory_doc(summary: str, args, returns: str, example: str, shown: str, raises=()) -> str:
    """The docstring of an op made by a factory below: Args, Returns, Raises and a doctest."""
    lines = [summary, "", "Args:", *(f"    {a}" for a in args), "", "Returns:", f"    {returns}"]
    if raises:
        lines += ["", "Raises:", *(f"    {r}" for r in raises)]
    lines += ["", "Example:", "    >>> import kerasish as ks", f"    >>> {example}"]
    lines += [f"    {line}" for line in shown.splitlines()]
    return "\n".join(lines)


def _nondiff2(name, fn, example, shown):
    prim = primitive(name, differentiable=False)(fn)

    def op(x, y):
        return apply2(prim, x, y)

    op.__name__ = name
    op.__doc__ = _factory_doc(
        f"Elementwise {name} (boolean result, not differentiable).",
        (_X_ARG, _Y_ARG), "A bool tensor of the broadcast shape.",
        f"ks.{name}({example}).numpy().tolist()", shown,
    )
    return op


_BOOLS = "[True, True, False], [True, False, False]"
equal = _nondiff2("equal", np.equal, "[1, 2, 3], 2", "[False, True, False]")
not_equal = _nondiff2("not_equal", np.not_equal, "[1, 2, 3], 2", "[True, False, True]")
less = _nondiff2("less", np.less, "[1, 2, 3], 2", "[True, False, False]")
less_equal = _nondiff2("less_equal", np.less_equal, "[1, 2, 3], 2", "[True, True, False]")
greater = _nondiff2("greater", np.greater, "[1, 2, 3], 2", "[False, False, True]")
greater_equal = _nondiff2(
    "greater_equal", np.greater_equal, "[1, 2, 3], 2", "[False, True, True]"
)
logical_and = _nondiff2("logical_and", np.logical_and, _BOOLS, "[True, False, False]")
logical_or = _nondiff2("logical_or", np.logical_or, _BOOLS, "[True, True, False]")
logical_xor = _nondiff2("logical_xor", np.logical_xor, _BOOLS, "[False, True, False]")

_logical_not = primitive("logical_not", differentiable=False)(np.logical_not)


def logical_not(x):
    """Elementwise not (boolean result).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A bool tensor of x's shape.

    Example:
        >>> import kerasish as ks
        >>> ks.logical_not([True, False]).numpy().tolist()
        [False, True]
    """
    return apply1(_logical_not, x)


# ---------------------------------------------------------------- unary math


def _unary(name, forward, rule, doc, example):
    """Declare a one-input primitive and its public function; `example`: (a call, its repr)."""
    prim = primitive(name, differentiable=rule is not None)(forward)
    if rule is not None:
        prim.defgrad(lambda op, dy: (rule(op.inputs[0], op.output, dy),))

    def op(x):
        return apply1(prim, x)

    op.__name__ = name
    op.__doc__ = _factory_doc(doc, (_X_ARG,), "A tensor of x's shape and dtype.", *example)
    return op


negative = _unary(
    "negative", np.negative, lambda x, y, dy: negative(dy), "-x elementwise.",
    ("ks.negative([1.0, -2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.,  2.]>"),
)
abs = _unary(  # noqa: A001
    "abs", np.abs, lambda x, y, dy: dy * sign(x), "|x| elementwise.",
    ("ks.abs([-1.5, 2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.5, 2. ]>"),
)
sign = _unary(
    "sign", np.sign, None, "Sign of x (-1, 0, 1); not differentiable.",
    ("ks.sign([-2.0, 0.0, 3.0])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[-1.,  0.,  1.]>"),
)
floor = _unary(
    "floor", np.floor, None, "Round down; not differentiable.",
    ("ks.floor([-1.5, 1.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-2.,  1.]>"),
)
ceil = _unary(
    "ceil", np.ceil, None, "Round up; not differentiable.",
    ("ks.ceil([-1.5, 1.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.,  2.]>"),
)
round = _unary(  # noqa: A001
    "round", np.rint, None, "Round half to even; not differentiable.",
    ("ks.round([0.5, 1.5, 2.5])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[0., 2., 2.]>"),
)
square = _unary(
    "square", np.square, lambda x, y, dy: dy * (x * 2.0), "x ** 2 elementwise.",
    ("ks.square([1.0, -3.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1., 9.]>"),
)
sqrt = _unary(
    "sqrt", np.sqrt, lambda x, y, dy: dy * 0.5 / y, "Square root elementwise.",
    ("ks.sqrt([4.0, 9.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[2., 3.]>"),
)
rsqrt = _unary(
    "rsqrt", lambda x: 1.0 / np.sqrt(x), lambda x, y, dy: dy * -0.5 * y * y * y, "1 / sqrt(x).",
    ("ks.rsqrt([4.0, 0.25])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5, 2. ]>"),
)
reciprocal = _unary(
    "reciprocal", lambda x: 1.0 / x, lambda x, y, dy: negative(dy) * y * y, "1/x.",
    ("ks.reciprocal([2.0, -0.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[ 0.5, -2. ]>"),
)
exp = _unary(
    "exp", np.exp, lambda x, y, dy: dy * y, "e ** x elementwise.",
    ("ks.exp([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.      , 2.718282]>"),
)
expm1 = _unary(
    "expm1", np.expm1, lambda x, y, dy: dy * (y + 1.0), "e ** x - 1, accurate near 0.",
    (
        "ks.expm1([0.0, 1e-05])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.000000e+00, 1.000005e-05]>",
    ),
)
log = _unary(
    "log", np.log, lambda x, y, dy: dy / x, "Natural logarithm elementwise.",
    (
        "ks.log([1.0, 100.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 4.6051702]>",
    ),
)
log1p = _unary(
    "log1p", np.log1p, lambda x, y, dy: dy / (x + 1.0), "log(1 + x), accurate near 0.",
    (
        "ks.log1p([0.0, 1e-05])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.00000e+00, 9.99995e-06]>",
    ),
)
sin = _unary(
    "sin", np.sin, lambda x, y, dy: dy * cos(x), "Sine elementwise.",
    ("ks.sin([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.      , 0.841471]>"),
)
cos = _unary(
    "cos", np.cos, lambda x, y, dy: negative(dy) * sin(x), "Cosine elementwise.",
    ("ks.cos([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.       , 0.5403023]>"),
)
tanh = _unary(
    "tanh", np.tanh, lambda x, y, dy: dy * (1.0 - y * y), "Hyperbolic tangent.",
    ("ks.tanh([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7615942]>"),
)


def sigmoid_values(x):
    """1 / (1 + e**-x) of an array, as a new array (0-d included), to a few ulp.

    e**-x overflows to inf only where the result is below the smallest normal
    number, so 0 is the right answer there. The 0.5 * (tanh(x / 2) + 1) form
    loses everything below ~1e-8 to cancellation, and NumPy's exp is
    vectorized where its tanh may not be.
    """
    flat = x.reshape(-1)  # at least 1-d: the steps below are in place on arrays
    with np.errstate(over="ignore"):
        s = np.exp(np.negative(flat))
    s += 1.0
    np.divide(1.0, s, out=s)
    return s.reshape(x.shape)


sigmoid = _unary(
    "sigmoid",
    sigmoid_values,
    lambda x, y, dy: dy * y * (1.0 - y),
    "Logistic sigmoid 1 / (1 + e**-x), computed stably.",
    (
        "ks.sigmoid([0.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5     , 0.880797]>",
    ),
)
relu = _unary(
    "relu",
    lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
    lambda x, y, dy: where(greater(y, 0), dy, 0.0),  # the output: x may be freed, or fused
    "max(x, 0) elementwise.",
    ("ks.nn.relu([-1.0, 2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 2.]>"),
)
softplus = _unary(
    "softplus",
    lambda x: np.logaddexp(x, 0).astype(x.dtype, copy=False),
    lambda x, y, dy: dy * sigmoid(x),
    "log(1 + e**x), computed stably.",
    (
        "ks.math.softplus([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.6931472, 1.3132617]>",
    ),
)
elu = _unary(
    "elu",
    lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False),
    lambda x, y, dy: where(greater(x, 0), dy, dy * (y + 1.0)),
    "x if x > 0 else e**x - 1.",
    (
        "ks.nn.elu([-1.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.63212055,  2.        ]>",
    ),
)


def leaky_relu(x, alpha: float = 0.2):
    """x if x > 0 else alpha * x.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        alpha: the slope for negative x.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.leaky_relu([-1.0, 2.0], alpha=0.1)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.1,  2. ]>
    """
    x = convert_to_tensor(x)
    return where(greater(x, 0), x, x * alpha)


relu6 = _unary(
    "relu6",
    lambda x: np.clip(x, 0, 6).astype(x.dtype, copy=False),
    lambda x, y, dy: where(logical_and(greater(x, 0), less(x, 6)), dy, 0.0),
    "min(max(x, 0), 6); the gradient is 0 at 0 and at 6, as in TF.",
    ("ks.nn.relu6([-1.0, 3.0, 8.0])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[0., 3., 6.]>"),
)

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """scale * (x if x > 0 else alpha * (e**x - 1)), the self-normalizing constants of
    Klambauer et al. (2017), as TF and Keras.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> f"{float(ks.nn.selu(1.0)):.6f}"
        '1.050701'
    """
    x = convert_to_tensor(x)
    return where(greater(x, 0), x, elu(x) * _SELU_ALPHA) * _SELU_SCALE


def _erf_magnitudes(x):
    """(erf(|x|), erfc(|x|)) of a floating array, in float64, to about 1e-15 and 1e-13
    relative.

    NumPy has no erf. |x| < 2: the Taylor series sum (-1)**n t**(2n+1) / (n! (2n+1)),
    30 terms in Horner form, and erfc = 1 - erf (at least 0.0047 there, so little is
    lost); |x| >= 2: erfc from its continued fraction e**-t**2 / sqrt(pi) /
    (t + (1/2) / (t + 1 / (t + (3/2) / (t + ...)))), 80 terms evaluated from the tail,
    and erf = 1 - erfc. Checked against `math.erf` and `math.erfc`.
    """
    if x.dtype.kind != "f":
        raise TypeError(f"needs a floating-point input, got {x.dtype}")
    xp = backend.array_module(x)
    magnitude = xp.abs(x).astype(np.float64)
    erf_part = xp.empty_like(magnitude)
    erfc_part = xp.empty_like(magnitude)
    small = magnitude < 2.0
    s = magnitude[small]
    z = s * s
    acc = xp.full_like(s, _ERF_TAYLOR[-1])
    for c in reversed(_ERF_TAYLOR[:-1]):
        acc *= z
        acc += c
    acc *= s * (2.0 / math.sqrt(math.pi))
    erf_part[small] = acc
    erfc_part[small] = 1.0 - acc
    b = xp.minimum(magnitude[~small], 30.0)  # erfc(30) is 0 in float64
    t = b.copy()
    for k in range(_ERFC_TERMS, 0, -1):
        t = b + (k / 2.0) / t
    tail = xp.exp(-b * b) / (t * math.sqrt(math.pi))
    erfc_part[~small] = tail
    erf_part[~small] = 1.0 - tail
    return erf_part, erfc_part


_ERF_TAYLOR = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(30)]
_ERFC_TERMS = 80


def _erf_values(x):
    erf_part, _ = _erf_magnitudes(x)
    return backend.array_module(x).copysign(erf_part, x).astype(x.dtype, copy=False)


def _erfc_values(x):
    _, erfc_part = _erf_magnitudes(x)
    negative_x = backend.array_module(x).signbit(x)
    return (erfc_part + negative_x * (2.0 - 2.0 * erfc_part)).astype(x.dtype, copy=False)


erf = _unary(
    "erf",
    _erf_values,
    lambda x, y, dy: dy * exp(negative(square(x))) * (2.0 / math.sqrt(math.pi)),
    "The error function 2 / sqrt(pi) * integral of e**-t**2 from 0 to x, elementwise.",
    (
        "ks.math.erf([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8427008]>",
    ),
)
erfc = _unary(
    "erfc",
    _erfc_values,
    lambda x, y, dy: dy * exp(negative(square(x))) * (-2.0 / math.sqrt(math.pi)),
    "1 - erf(x), accurate where erf(x) is near 1 (it decays like e**-x**2 / x).",
    (
        "ks.math.erfc([0.0, 3.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.0000000e+00, 2.2090497e-05]>",
    ),
)


def gelu(features, approximate: bool = False):
    """Gaussian error linear unit x * P(X <= x) for a standard normal X (as tf.nn.gelu).

    Args:
        features: a floating tensor.
        approximate: False for the exact 0.5 * x * (1 + erf(x / sqrt(2))); True for the
            tanh approximation 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).

    Example:
        >>> import kerasish as ks
        >>> f"{float(ks.nn.gelu(1.0)):.6f} {float(ks.nn.gelu(1.0, approximate=True)):.6f}"
        '0.841345 0.841192'
    """
    x = convert_to_tensor(features)
    if approximate:
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * (tanh(inner) + 1.0) * 0.5
    # 1 + erf(x / sqrt(2)) written as erfc(-x / sqrt(2)): no cancellation for x << 0
    return x * erfc(x * -math.sqrt(0.5)) * 0.5


def softsign(x):
    """x / (1 + |x|).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype, in (-1, 1).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.softsign([-3.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.75,  0.5 ]>
    """
    return x / (abs(x) + 1.0)


def swish(x):
    """x * sigmoid(x) (also called SiLU).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.swish([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7310586]>
    """
    x = convert_to_tensor(x)
    return x * sigmoid(x)


silu = swish


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), computed stably.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype; finite where sigmoid(x) rounds to 0.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.log_sigmoid([0.0, -100.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[  -0.6931472, -100.       ]>
    """
    return negative(softplus(negative(x)))


def ones_like_values(x: Tensor) -> Tensor:
    """Ones with x's shape and dtype (a constant: not connected to x)."""
    return Tensor(backend.array_module(x._value).ones_like(x._value))


# ---------------------------------------------------------------- cast and select


@primitive("cast")
def _cast(x, dtype):
    return x.astype(dtype)


@_cast.defgrad
def _(op, dy):
    source = op.inputs[0]
    if source.dtype.kind != "f":
        return (None,)
    return (cast(dy, source.dtype),)


def cast(x, dtype):
    """x converted to `dtype`; differentiable between floating dtypes.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        dtype: a NumPy dtype or its name ("float32", "int64", ...). Floats become
            integers by truncation toward zero.

    Returns:
        A tensor of x's shape (x itself when it already has `dtype`).

    Example:
        >>> import kerasish as ks
        >>> ks.cast([1.7, -1.7], "int32")
        <ks.Tensor: shape=(2,), dtype=int32, numpy=[ 1, -1]>
    """
    x = convert_to_tensor(x)
    dtype = as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return apply(_cast, (x,), {"dtype": dtype})


_INT_OF_SIZE = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_SELECT_MIN_SIZE = 4096  # below this, np.where's per-call cost is the smaller


def _select(condition, x, y):
    """np.where(condition, x, y), bit for bit.

    On the CPU, for large numeric arrays of one dtype, the selection is done
    with bit masks: `(x & m) | (y & ~m)` on the values' integer views, with
    m = -condition. NumPy's `where` loop branches on every element and runs
    about 10x slower than that on an unpredictable mask (a ReLU's, a
    maximum's), and gradient rules select a lot.
    """
    if (
        type(x) is np.ndarray
        and type(y) is np.ndarray
        and type(condition) is np.ndarray
        and x.dtype == y.dtype
        and x.dtype.kind in "fiu"
        and condition.dtype == np.bool_
        and max(condition.size, x.size, y.size) >= _SELECT_MIN_SIZE
    ):
        ints = _INT_OF_SIZE.get(x.dtype.itemsize)
        if ints is not None:
            xi, yi = x.view(ints), y.view(ints)
            if (condition.shape == x.shape and y.size == 1 and y.ndim <= x.ndim
                    and not yi.any()):
                # where(c, x, 0), the usual gradient mask: c as int8 0 / -1 (all bits set),
                # widened by the ufunc itself (a separate widening pass costs twice as much)
                return np.bitwise_and(xi, np.negative(condition.view(np.int8))).view(x.dtype)
            shape = np.broadcast_shapes(condition.shape, x.shape, y.shape)
            cond = condition if condition.shape == shape else np.broadcast_to(condition, shape)
            mask = np.negative(cond.view(np.int8), dtype=ints)  # all bits set where True
            if y.size == 1 and not yi.any():  # where(c, x, 0), x broadcast
                np.bitwise_and(mask, xi, out=mask)
            elif x.size == 1 and not xi.any():  # where(c, 0, y)
                np.invert(mask, out=mask)
                np.bitwise_and(mask, yi, out=mask)
            else:
                picked = np.bitwise_and(mask, xi)
                np.invert(mask, out=mask)
                np.bitwise_and(mask, yi, out=mask)
                np.bitwise_or(mask, picked, out=mask)
            return mask.view(x.dtype)
    return backend.array_module(condition).where(condition, x, y)


@primitive("where")
def _where(condition, x, y):
    return _select(condition, x, y)


@_where.defgrad
def _(op, dy):
    condition = op.inputs[0]
    dx = where(condition, dy, 0.0) if op.needs[1] else None
    dyy = where(condition, 0.0, dy) if op.needs[2] else None
    return None, dx, dyy


_nonzero = primitive("where_indices", differentiable=False)(
    lambda c: backend.array_module(c).argwhere(c).astype(np.int64)
)


def where(condition, x=None, y=None):
    """Elementwise select: x where condition else y; with only `condition`, its true indices.

    Args:
        condition: a bool tensor.
        x: the values taken where `condition` is true; broadcast with `condition` and `y`.
        y: the values taken where `condition` is false.

    Returns:
        With x and y: a tensor of the broadcast shape (the gradient flows to the picked
        side). With neither: an int64 tensor of shape (number of true entries, rank of
        `condition`), the index of each true entry in row-major order.

    Raises:
        InvalidArgumentError: `condition` is not boolean, or only one of x and y is given.

    Example:
        >>> import kerasish as ks
        >>> ks.where([True, False], [1, 2], [10, 20]).numpy().tolist()
        [1, 20]
        >>> ks.where([[False, True], [True, True]]).numpy().tolist()
        [[0, 1], [1, 0], [1, 1]]
    """
    condition = convert_to_tensor(condition)
    if condition.dtype.kind != "b":
        raise InvalidArgumentError(
            f"where: condition must be boolean, got {condition.dtype}; "
            "compare first (e.g. ks.greater(x, 0))"
        )
    if x is None and y is None:
        return apply(_nonzero, (condition,))
    if x is None or y is None:
        raise InvalidArgumentError("where: give both x and y, or neither")
    x, y = binary_args(x, y)
    return apply(_where, (condition, x, y))


# ---------------------------------------------------------------- reductions


def normalize_axis(axis, ndim: int, op_name: str):
    """A sorted tuple of non-negative axes, or None for all axes."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    result = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                f"{op_name}: axis {a} is out of range for a tensor of rank {ndim}"
            )
        result.append(a % ndim if ndim else 0)
    return tuple(sorted(set(result)))


def _kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


_ROW_BLOCK = 2048  # elements per row when summing many short rows


def _sum_leading(x, count: int):
    """x summed over its first `count` axes, for a C-contiguous array whose kept part is short.

    `x.sum(axis=0)` over (n, m) with a small m runs NumPy's inner loop n times on m
    elements (a bias gradient: (86528, 32) takes 1.2 ms). Summing (n/b, b*m) blocks
    first keeps the inner loop b*m long (about 8x faster here), and the b partial sums
    are also more accurate than one running sum.
    """
    kept = x.shape[count:]
    m = int(np.prod(kept))
    rows = x.reshape(-1, m)
    n = rows.shape[0]
    b = _ROW_BLOCK // m
    body = (n // b) * b
    total = rows[:body].reshape(-1, b * m).sum(axis=0).reshape(b, m).sum(axis=0)
    if body < n:
        total += rows[body:].sum(axis=0)
    return total.reshape(kept)


@primitive("reduce_sum")
def _reduce_sum(x, axis, keepdims):
    if (
        axis is not None
        and type(x) is np.ndarray
        and x.size >= 16 * _ROW_BLOCK
        and axis == tuple(range(len(axis)))
        and len(axis) < x.ndim
        and x.flags.c_contiguous
        and x.dtype.kind in "fc"
        and int(np.prod(x.shape[len(axis):])) <= 64  # short kept rows: a bias gradient
    ):
        total = _sum_leading(x, len(axis))
        return total.reshape((1,) * len(axis) + total.shape) if keepdims else total
    if x.dtype.kind in "iu":  # NumPy widens int32 sums to int64; TF keeps the dtype
        return x.sum(axis=axis, keepdims=keepdims, dtype=x.dtype)
    return x.sum(axis=axis, keepdims=keepdims)


@_reduce_sum.defgrad
def _(op, dy):
    return (broadcast_reduced(dy, op.attrs["axis"], op.inputs[0].shape),)


@primitive("broadcast_reduced", views=True)
def _broadcast_reduced(dy, axis, shape):
    return backend.array_module(dy).broadcast_to(dy.reshape(_kept_shape(shape, axis)), shape)


@_broadcast_reduced.defgrad
def _(op, g):
    dy = op.inputs[0]  # reduced with or without keepdims: sum g back to the same shape
    return (reduce_sum(g, op.attrs["axis"], keepdims=dy.ndim == g.ndim),)


def broadcast_reduced(dy, axis, shape) -> Tensor:
    """`dy`, the result of summing a `shape` tensor over `axis`, repeated back to `shape`.

    The adjoint of `reduce_sum` as one op (a reshape and a broadcast view),
    like JAX's `broadcast_in_dim`; `axis` is normalized (None: all axes).
    """
    return apply(_broadcast_reduced, (dy,), {"axis": axis, "shape": tuple(shape)})


def reduce_sum(input_tensor, axis=None, keepdims: bool = False):
    """Sum over `axis` (all axes if None).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> x = [[1.0, 2.0], [3.0, 4.0]]
        >>> float(ks.reduce_sum(x)), ks.reduce_sum(x, axis=0).numpy().tolist()
        (10.0, [4.0, 6.0])
        >>> ks.reduce_sum(x, axis=1, keepdims=True).numpy().tolist()
        [[3.0], [7.0]]
    """
    x = convert_to_tensor(input_tensor)
    axes = normalize_axis(axis, x.ndim, "reduce_sum")
    return apply(_reduce_sum, (x,), {"axis": axes, "keepdims": keepdims})


@symbolic_fallback
def reduce_mean(input_tensor, axis=None, keepdims: bool = False):
    """Mean over `axis` (all axes if None).

    Integer inputs give an integer mean of the same dtype, rounded toward zero
    (C integer division), as in TF: the mean of [-3, 0] is -1.

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy().tolist()
        [1.5, 3.5]
        >>> int(ks.reduce_mean([-3, 0]))
        -1
    """
    x = convert_to_tensor(input_tensor)
    axes = normalize_axis(axis, x.ndim, "reduce_mean")
    count = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    total = reduce_sum(x, axes, keepdims)
    if x.dtype.kind in "iu":
        return truncatediv(total, max(count, 1))
    return total / float(max(count, 1)) if count != 1 else total


def _extreme(name, method, shown):
    @primitive(name)
    def prim(x, axis, keepdims):
        if x.size == 0:
            raise InvalidArgumentError(f"{name}: cannot reduce an empty tensor (shape {x.shape})")
        return getattr(x, method)(axis=axis, keepdims=keepdims)

    @prim.defgrad
    def _(op, dy):
        x, axis = op.inputs[0], op.attrs["axis"]
        picked = cast(equal(x, broadcast_reduced(op.output, axis, x.shape)), x.dtype)
        share = picked / reduce_sum(picked, axis, keepdims=True)
        return (broadcast_reduced(dy, axis, x.shape) * share,)

    def op(input_tensor, axis=None, keepdims: bool = False):
        x = convert_to_tensor(input_tensor)
        axes = normalize_axis(axis, x.ndim, name)
        return apply(prim, (x,), {"axis": axes, "keepdims": keepdims})

    op.__name__ = name
    op.__doc__ = _factory_doc(
        f"{method.capitalize()} over `axis`; the gradient is shared equally between ties.",
        _AXIS_ARGS,
        "The reduced tensor, of the input's dtype.",
        f"ks.{name}([[1.0, 5.0], [3.0, 2.0]], axis=1).numpy().tolist()", shown,
        raises=("InvalidArgumentError: the input is empty, or an axis is out of range.",),
    )
    return op


reduce_max = _extreme("reduce_max", "max", "[5.0, 3.0]")
reduce_min = _extreme("reduce_min", "min", "[1.0, 2.0]")


@symbolic_fallback
def reduce_variance(input_tensor, axis=None, keepdims: bool = False):
    """Population variance over `axis` (the mean squared deviation: divided by n).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> ks.reduce_variance([[1.0, 2.0], [3.0, 4.0]], axis=0).numpy().tolist()
        [1.0, 1.0]
    """
    x = convert_to_tensor(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(x - mean), axis, keepdims)


@symbolic_fallback
def reduce_std(input_tensor, axis=None, keepdims: bool = False):
    """Population standard deviation over `axis` (the square root of `reduce_variance`).

    Args:
        input_tensor: the tensor to reduce.
        axis: an axis or a sequence of axes (negative counts from the end); None: all axes.
        keepdims: keep each reduced axis with length 1, so the result broadcasts against
            the input.

    Returns:
        The reduced tensor.

    Raises:
        InvalidArgumentError: an axis is out of range.

    Example:
        >>> import kerasish as ks
        >>> float(ks.reduce_std([1.0, 3.0]))
        1.0
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


def _nondiff_reduction(name, method, shown):
    prim = primitive(name, differentiable=False)(
        lambda x, axis, keepdims: getattr(x, method)(axis=axis, keepdims=keepdims)
    )

    def op(input_tensor, axis=None, keepdims: bool = False):
        x = convert_to_tensor(input_tensor)
        axes = normalize_axis(axis, x.ndim, name)
        return apply(prim, (x,), {"axis": axes, "keepdims": keepdims})

    op.__name__ = name
    op.__doc__ = _factory_doc(
        f"Logical {method} over `axis` (boolean result, not differentiable).",
        _AXIS_ARGS, "A bool tensor.",
        f"ks.{name}([[True, False], [True, True]], axis=1).numpy().tolist()", shown,
    )
    return op


reduce_any = _nondiff_reduction("reduce_any", "any", "[True, True]")
reduce_all = _nondiff_reduction("reduce_all", "all", "[False, True]")


def _arg_extreme(name, method, shown):
    prim = primitive(name, differentiable=False)(
        lambda x, axis, output_type: getattr(x, method)(axis=axis).astype(output_type)
    )

    def op(input, axis=None, output_type=np.int64):  # noqa: A002 - TF's name
        x = convert_to_tensor(input)
        axis = 0 if axis is None else normalize_axis(axis, x.ndim, name)[0]
        return apply(prim, (x,), {"axis": axis, "output_type": as_dtype(output_type)})

    op.__name__ = name
    op.__doc__ = _factory_doc(
        f"Index of the {method[3:]} along `axis` (default 0), as in TF (not differentiable).",
        (
            "input: the tensor to search.",
            "axis: the one axis to search along; None means 0.",
            "output_type: the integer dtype of the indices.",
        ),
        "The indices, with `axis` removed from the input's shape; the first one on ties.",
        f"ks.{name}([[1, 5, 2], [7, 0, 3]], axis=1).numpy().tolist()", shown,
    )
    return op


argmax = _arg_extreme("argmax", "argmax", "[1, 0]")
argmin = _arg_extreme("argmin", "argmin", "[0, 1]")


# ---------------------------------------------------------------- matmul


def _matmul_explain(inputs, attrs):
    a, b = inputs
    if a.ndim < 2 or b.ndim < 2:
        return f"both operands need rank >= 2, got shapes {a.shape} and {b.shape}"
    inner_a = a.shape[-2] if attrs["transpose_a"] else a.shape[-1]
    inner_b = b.shape[-1] if attrs["transpose_b"] else b.shape[-2]
    if inner_a != inner_b:
        return (
            f"inner dimensions do not match: a has shape {a.shape}"
            f"{' (transposed)' if attrs['transpose_a'] else ''} and b has shape {b.shape}"
            f"{' (transposed)' if attrs['transpose_b'] else ''} ({inner_a} != {inner_b})"
        )
    return f"batch dimensions of {a.shape} and {b.shape} cannot be broadcast together"


@primitive("matmul", explain=_matmul_explain)
def _matmul(a, b, transpose_a, transpose_b):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("rank < 2")
    if transpose_a:
        a = a.swapaxes(-1, -2)
    if transpose_b:
        b = b.swapaxes(-1, -2)
    return backend.matmul(a, b)


@_matmul.defgrad
def _(op, dy):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    da = db = None
    if op.needs[0]:
        if ta:
            da = matmul(b, dy, transpose_a=tb, transpose_b=True)
        else:
            da = matmul(dy, b, transpose_b=not tb)
    if op.needs[1]:
        if tb:
            db = matmul(dy, a, transpose_a=True, transpose_b=ta)
        else:
            db = matmul(a, dy, transpose_a=not ta)
    return da, db


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False):
    """Matrix product of the last two axes, batched (and broadcast) over leading axes.

    Args:
        a, b: tensors of rank >= 2 (or values convertible to them).
        transpose_a, transpose_b: use the transpose of the last two axes of `a` / `b`.

    Returns:
        A tensor of shape (..., rows of a, columns of b).

    Raises:
        InvalidArgumentError: if the inner dimensions differ (naming both shapes)
            or the leading axes do not broadcast.

    Example:
        >>> import kerasish as ks
        >>> ks.matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy().tolist()
        [[11.0]]
        >>> ks.matmul(ks.ones([5, 2, 3]), ks.ones([2, 3]), transpose_b=True).shape
        (5, 2, 2)
    """
    a, b = binary_args(a, b)
    return apply(_matmul, (a, b), {"transpose_a": transpose_a, "transpose_b": transpose_b})


def norm(tensor, ord="euclidean", axis=None, keepdims: bool = False):  # noqa: A002
    """Euclidean (default) or 1-norm over `axis`.

    Args:
        tensor: the values.
        ord: "euclidean" (also 2 or "fro": the square root of the sum of squares)
            or 1 (the sum of absolute values).
        axis: the axis or axes reduced (None: all).
        keepdims: keep the reduced axes with size 1.

    Returns:
        The norms.

    Raises:
        InvalidArgumentError: for another `ord`.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.norm([[3.0, 4.0], [6.0, 8.0]], axis=1).numpy().tolist()
        [5.0, 10.0]
        >>> float(ks.linalg.norm([3.0, -4.0], ord=1))
        7.0
    """
    if ord in ("euclidean", 2, "fro"):
        return sqrt(reduce_sum(square(tensor), axis, keepdims))
    if ord == 1:
        return reduce_sum(abs(tensor), axis, keepdims)
    raise InvalidArgumentError(f"norm: ord must be 'euclidean', 2 or 1, got {ord!r}")


def add_n(inputs):
    """Sum of a list of tensors of the same shape.

    Args:
        inputs: a non-empty sequence of tensors (or values `convert_to_tensor` takes).

    Returns:
        Their elementwise sum.

    Raises:
        InvalidArgumentError: `inputs` is empty.

    Example:
        >>> import kerasish as ks
        >>> ks.add_n([[1, 2], [3, 4], [5, 6]]).numpy().tolist()
        [9, 12]
    """
    inputs = list(inputs)
    if not inputs:
        raise InvalidArgumentError("add_n: needs at least one tensor")
    total = convert_to_tensor(inputs[0])
    for x in inputs[1:]:
        total = add(total, x)
    return total


# ---------------------------------------------------------------- trigonometric and hyperbolic
# (TF's names; ks.ops offers them under NumPy's: arcsin, arctan2, ...)


def _one_minus_square(x):
    return 1.0 - x * x


tan = _unary(
    "tan", np.tan, lambda x, y, dy: dy * (1.0 + y * y), "Tangent elementwise.",
    (
        "ks.math.tan([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.5574077]>",
    ),
)
sinh = _unary(
    "sinh", np.sinh, lambda x, y, dy: dy * cosh(x), "Hyperbolic sine elementwise.",
    (
        "ks.math.sinh([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.1752012]>",
    ),
)
cosh = _unary(
    "cosh", np.cosh, lambda x, y, dy: dy * sinh(x), "Hyperbolic cosine elementwise.",
    (
        "ks.math.cosh([0.0, 1.0]).numpy().astype(float).round(5).tolist()  # (last digit varies)",
        "[1.0, 1.54308]",
    ),
)
asin = _unary(
    "asin", np.arcsin, lambda x, y, dy: dy * rsqrt(_one_minus_square(x)),
    "Inverse sine elementwise (NaN outside [-1, 1]).",
    (
        "ks.math.asin([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.5707964]>",
    ),
)
acos = _unary(
    "acos", np.arccos, lambda x, y, dy: negative(dy) * rsqrt(_one_minus_square(x)),
    "Inverse cosine elementwise (NaN outside [-1, 1]).",
    (
        "ks.math.acos([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.5707964, 0.       ]>",
    ),
)
atan = _unary(
    "atan", np.arctan, lambda x, y, dy: dy / (1.0 + x * x), "Inverse tangent elementwise.",
    (
        "ks.math.atan([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7853982]>",
    ),
)
asinh = _unary(
    "asinh", np.arcsinh, lambda x, y, dy: dy * rsqrt(x * x + 1.0),
    "Inverse hyperbolic sine elementwise.",
    (
        "ks.math.asinh([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8813736]>",
    ),
)
acosh = _unary(
    "acosh", np.arccosh, lambda x, y, dy: dy * rsqrt(x * x - 1.0),
    "Inverse hyperbolic cosine elementwise (NaN below 1).",
    (
        "ks.math.acosh([1.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.      , 1.316958]>",
    ),
)
atanh = _unary(
    "atanh", np.arctanh, lambda x, y, dy: dy / _one_minus_square(x),
    "Inverse hyperbolic tangent elementwise (NaN outside [-1, 1]).",
    (
        "ks.math.atanh([0.0, 0.5])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.        , 0.54930615]>",
    ),
)


@primitive("atan2")
def _atan2(y, x):
    return np.arctan2(y, x)


@_atan2.defgrad
def _(op, dy):
    y, x = op.inputs
    scale = dy / (x * x + y * y)
    return (scale * x if op.needs[0] else None, negative(scale * y) if op.needs[1] else None)


def atan2(y, x):
    """The angle of the point (x, y) from the positive x axis, in (-pi, pi] (TF's argument
    order: y first).

    Args:
        y: the second coordinate.
        x: the first coordinate, broadcast against y (NumPy rules).

    Returns:
        A tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.math.atan2([1.0, -1.0], [0.0, -1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[ 1.5707964, -2.3561945]>
    """
    return apply2(_atan2, y, x)
