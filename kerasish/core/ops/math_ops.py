"""Arithmetic, comparisons and logic, elementwise math (exp, log, trigonometric, erf), cast,
where and matmul: each primitive with its gradient. NumPy's `log2`, `log10`, `isnan`,
`isinf`, `isfinite` and `nan_to_num` are composed of them.

Activations are in `activation_ops`, reductions in `reduction_ops`; they declare their ops
with the factories here (`unary`, `factory_doc`).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.primitive import apply, apply1, apply2, binary_args, primitive
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


def factory_doc(summary: str, args, returns: str, example: str, shown: str, raises=()) -> str:
    """The docstring of an op made by a factory: Args, Returns, Raises and a doctest.

    Args:
        summary: the first line.
        args: the lines of Args, one per argument.
        returns: the text of Returns.
        example: the doctest's call, after `import kerasish as ks`.
        shown: what the call shows.
        raises: the lines of Raises, if any.

    Returns:
        The docstring.
    """
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
    op.__doc__ = factory_doc(
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


def unary(name, forward, rule, doc, example, module=__name__):
    """Declare a one-input primitive, its gradient and its public function.

    Args:
        name: the op's name (the primitive's and the function's).
        forward: the array function.
        rule: `rule(x, y, dy)`, the gradient from the input, the output and the output's
            gradient; None: not differentiable.
        doc: the docstring's first line.
        example: (a call, its repr) for the docstring's doctest.
        module: the declaring module's `__name__`, which the function reports as its own
            (configs name a function by module and name).

    Returns:
        The public function of one tensor.
    """
    prim = primitive(name, differentiable=rule is not None)(forward)
    if rule is not None:
        prim.defgrad(lambda op, dy: (rule(op.inputs[0], op.output, dy),))

    def op(x):
        return apply1(prim, x)

    op.__name__, op.__module__ = name, module
    op.__doc__ = factory_doc(doc, (_X_ARG,), "A tensor of x's shape and dtype.", *example)
    return op


negative = unary(
    "negative", np.negative, lambda x, y, dy: negative(dy), "-x elementwise.",
    ("ks.negative([1.0, -2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.,  2.]>"),
)
abs = unary(  # noqa: A001
    "abs", np.abs, lambda x, y, dy: dy * sign(x), "|x| elementwise.",
    ("ks.abs([-1.5, 2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.5, 2. ]>"),
)
sign = unary(
    "sign", np.sign, None, "Sign of x (-1, 0, 1); not differentiable.",
    ("ks.sign([-2.0, 0.0, 3.0])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[-1.,  0.,  1.]>"),
)
floor = unary(
    "floor", np.floor, None, "Round down; not differentiable.",
    ("ks.floor([-1.5, 1.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-2.,  1.]>"),
)
ceil = unary(
    "ceil", np.ceil, None, "Round up; not differentiable.",
    ("ks.ceil([-1.5, 1.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.,  2.]>"),
)
round = unary(  # noqa: A001
    "round", np.rint, None, "Round half to even; not differentiable.",
    ("ks.round([0.5, 1.5, 2.5])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[0., 2., 2.]>"),
)
square = unary(
    "square", np.square, lambda x, y, dy: dy * (x * 2.0), "x ** 2 elementwise.",
    ("ks.square([1.0, -3.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1., 9.]>"),
)
sqrt = unary(
    "sqrt", np.sqrt, lambda x, y, dy: dy * 0.5 / y, "Square root elementwise.",
    ("ks.sqrt([4.0, 9.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[2., 3.]>"),
)
rsqrt = unary(
    "rsqrt", lambda x: 1.0 / np.sqrt(x), lambda x, y, dy: dy * -0.5 * y * y * y, "1 / sqrt(x).",
    ("ks.rsqrt([4.0, 0.25])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5, 2. ]>"),
)
reciprocal = unary(
    "reciprocal", lambda x: 1.0 / x, lambda x, y, dy: negative(dy) * y * y, "1/x.",
    ("ks.reciprocal([2.0, -0.5])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[ 0.5, -2. ]>"),
)
exp = unary(
    "exp", np.exp, lambda x, y, dy: dy * y, "e ** x elementwise.",
    ("ks.exp([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.      , 2.718282]>"),
)
expm1 = unary(
    "expm1", np.expm1, lambda x, y, dy: dy * (y + 1.0), "e ** x - 1, accurate near 0.",
    (
        "ks.expm1([0.0, 1e-05])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.000000e+00, 1.000005e-05]>",
    ),
)
log = unary(
    "log", np.log, lambda x, y, dy: dy / x, "Natural logarithm elementwise.",
    (
        "ks.log([1.0, 100.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 4.6051702]>",
    ),
)
log1p = unary(
    "log1p", np.log1p, lambda x, y, dy: dy / (x + 1.0), "log(1 + x), accurate near 0.",
    (
        "ks.log1p([0.0, 1e-05])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.00000e+00, 9.99995e-06]>",
    ),
)
sin = unary(
    "sin", np.sin, lambda x, y, dy: dy * cos(x), "Sine elementwise.",
    ("ks.sin([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.      , 0.841471]>"),
)
cos = unary(
    "cos", np.cos, lambda x, y, dy: negative(dy) * sin(x), "Cosine elementwise.",
    ("ks.cos([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.       , 0.5403023]>"),
)
tanh = unary(
    "tanh", np.tanh, lambda x, y, dy: dy * (1.0 - y * y), "Hyperbolic tangent.",
    ("ks.tanh([0.0, 1.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7615942]>"),
)


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


erf = unary(
    "erf",
    _erf_values,
    lambda x, y, dy: dy * exp(negative(square(x))) * (2.0 / math.sqrt(math.pi)),
    "The error function 2 / sqrt(pi) * integral of e**-t**2 from 0 to x, elementwise.",
    (
        "ks.math.erf([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8427008]>",
    ),
)
erfc = unary(
    "erfc",
    _erfc_values,
    lambda x, y, dy: dy * exp(negative(square(x))) * (-2.0 / math.sqrt(math.pi)),
    "1 - erf(x), accurate where erf(x) is near 1 (it decays like e**-x**2 / x).",
    (
        "ks.math.erfc([0.0, 3.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.0000000e+00, 2.2090497e-05]>",
    ),
)


def _erfinv_values(x):
    # Giles' single-precision approximation ("Approximating the erfinv function", 2010),
    # then Newton steps on erf (its derivative 2/sqrt(pi) e**-y**2) in float64: |x| = 1 gives
    # +-inf and |x| > 1 nan, as scipy's
    xp = backend.array_module(x)
    v = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -xp.log((1.0 - v) * (1.0 + v))
        central, tail = w - 2.5, xp.sqrt(xp.maximum(w, 5.0)) - 3.0
        p_c, p_t = 2.81022636e-08, -0.000200214257
        for a, b in zip(_ERFINV_CENTRAL, _ERFINV_TAIL):
            p_c, p_t = a + p_c * central, b + p_t * tail
        y = xp.where(w < 5.0, p_c, p_t) * v
        for _ in range(3):
            error = _erf_values(y) - v
            y = y - error / (2.0 / math.sqrt(math.pi) * xp.exp(-y * y))
        y = xp.where(xp.abs(v) == 1.0, xp.copysign(xp.inf, v), y)
        y = xp.where(xp.abs(v) > 1.0, xp.nan, y)
    return y.astype(x.dtype, copy=False)


_ERFINV_CENTRAL = (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                0.00943887047, 1.00167406, 2.83297682)

erfinv = unary(
    "erfinv",
    _erfinv_values,
    lambda x, y, dy: dy * exp(square(y)) * (math.sqrt(math.pi) / 2.0),
    "The inverse of erf on (-1, 1): y with erf(y) = x (+-inf at +-1, nan outside).",
    (
        "ks.math.erfinv([0.0, 0.5])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.        , 0.47693628]>",
    ),
)


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


tan = unary(
    "tan", np.tan, lambda x, y, dy: dy * (1.0 + y * y), "Tangent elementwise.",
    (
        "ks.math.tan([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.5574077]>",
    ),
)
sinh = unary(
    "sinh", np.sinh, lambda x, y, dy: dy * cosh(x), "Hyperbolic sine elementwise.",
    (
        "ks.math.sinh([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.1752012]>",
    ),
)
cosh = unary(
    "cosh", np.cosh, lambda x, y, dy: dy * sinh(x), "Hyperbolic cosine elementwise.",
    (
        "ks.math.cosh([0.0, 1.0]).numpy().astype(float).round(5).tolist()  # (last digit varies)",
        "[1.0, 1.54308]",
    ),
)
asin = unary(
    "asin", np.arcsin, lambda x, y, dy: dy * rsqrt(_one_minus_square(x)),
    "Inverse sine elementwise (NaN outside [-1, 1]).",
    (
        "ks.math.asin([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 1.5707964]>",
    ),
)
acos = unary(
    "acos", np.arccos, lambda x, y, dy: negative(dy) * rsqrt(_one_minus_square(x)),
    "Inverse cosine elementwise (NaN outside [-1, 1]).",
    (
        "ks.math.acos([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[1.5707964, 0.       ]>",
    ),
)
atan = unary(
    "atan", np.arctan, lambda x, y, dy: dy / (1.0 + x * x), "Inverse tangent elementwise.",
    (
        "ks.math.atan([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7853982]>",
    ),
)
asinh = unary(
    "asinh", np.arcsinh, lambda x, y, dy: dy * rsqrt(x * x + 1.0),
    "Inverse hyperbolic sine elementwise.",
    (
        "ks.math.asinh([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8813736]>",
    ),
)
acosh = unary(
    "acosh", np.arccosh, lambda x, y, dy: dy * rsqrt(x * x - 1.0),
    "Inverse hyperbolic cosine elementwise (NaN below 1).",
    (
        "ks.math.acosh([1.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.      , 1.316958]>",
    ),
)
atanh = unary(
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



def log2(x) -> Tensor:
    """The base-2 logarithm elementwise: `log(x) / log(2)`.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float64 for integers, as NumPy's).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.log2([1.0, 8.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(2.0))


def log10(x) -> Tensor:
    """The base-10 logarithm elementwise: `log(x) / log(10)`.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A floating tensor of `x`'s shape (float64 for integers, as NumPy's).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.log10([1.0, 1000.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 3.]>
    """
    return multiply(log(x), 1.0 / np.log(10.0))


def isnan(x) -> Tensor:
    """Where `x` is NaN (the values unequal to themselves); not differentiable.

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
    """Where `x` is +inf or -inf; not differentiable.

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
    """Where `x` is neither NaN nor infinite; not differentiable.

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


def nan_to_num(x, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """`x` with NaN, +inf and -inf replaced (by default: 0 and the dtype's largest and
    lowest finite values); the gradient flows to the entries kept, through `where`.

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
