"""NumPy's remaining functions (Keras 3's `ops.numpy`): elementwise math (`cbrt`, `exp2`,
`hypot`, `logaddexp`, `sinc`, `i0`, ...), bitwise and integer ops, complex parts,
layouts (`hstack`, `rot90`, `kron`, ...), windows, `nan*` statistics and `vectorize`.

Each differentiable one is a primitive with its gradient or a composite of other ops (so its
gradient comes from theirs); the integer, boolean and bit-level ones (`bitwise_and`, `gcd`,
`isin`, `signbit`, `view`, ...) are not differentiable, as comparisons are not. Results
follow NumPy's dtypes (`ks.ops` applies Keras's float32 rule on top).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    cumulative_ops,
    indexing_ops,
    linalg_ops,
    math_ops,
    reduction_ops,
    shape_ops,
    sorting_ops,
    statistics_ops,
)
from kerasish.core.ops.math_ops import factory_doc, unary
from kerasish.core.primitive import apply, apply1, apply2, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

_X = "x: a tensor, or a number, list or array that `convert_to_tensor` takes."
_X1 = "x1: a tensor, or a number, list or array that `convert_to_tensor` takes."
_X2 = "x2: the second operand, broadcast against x1 (NumPy rules)."
_Y = "y: the second operand, broadcast against x (NumPy rules)."


def _xp(x: Tensor):
    return backend.array_module(x._value)


def _binary(name, forward, grad, summary, example, shown, keras_xy=False):
    """A two-input primitive and its public function `name(x1, x2)` (`name(x, y)` where
    Keras names them so: the bitwise ops)."""
    prim = primitive(name, differentiable=grad is not None)(forward)
    if grad is not None:
        prim.defgrad(grad)

    if keras_xy:
        def op(x, y):
            return apply2(prim, x, y)
    else:
        def op(x1, x2):
            return apply2(prim, x1, x2)

    op.__name__, op.__qualname__ = name, name
    op.__doc__ = factory_doc(
        summary, (_X, _Y) if keras_xy else (_X1, _X2), "A tensor of the broadcast shape.",
        f"ks.ops.{name}({example}).numpy().tolist()", shown)
    return op


# ---------------------------------------------------------------- elementwise math

cbrt = unary(
    "cbrt", np.cbrt, lambda x, y, dy: dy / (3.0 * y * y), "The real cube root elementwise.",
    ("ks.ops.cbrt([-8.0, 27.0]).numpy().tolist()", "[-2.0, 3.0]"), __name__)
exp2 = unary(
    "exp2", np.exp2, lambda x, y, dy: dy * y * math.log(2.0), "2 ** x elementwise.",
    ("ks.ops.exp2([0.0, 3.0]).numpy().tolist()", "[1.0, 8.0]"), __name__)
trunc = unary(
    "trunc", np.trunc, None, "Round toward zero; not differentiable.",
    ("ks.ops.trunc([-1.7, 1.7]).numpy().tolist()", "[-1.0, 1.0]"), __name__)
signbit = unary(
    "signbit", np.signbit, None, "Where the sign bit is set (-0.0 included); not differentiable.",
    ("ks.ops.signbit([-1.0, -0.0, 2.0]).numpy().tolist()", "[True, True, False]"), __name__)


def _sinc_grad(x, y, dy):
    zero = math_ops.equal(x, 0)
    safe = math_ops.where(zero, math_ops.ones_like_values(x), x)
    slope = (math_ops.cos(safe * math.pi) - y) / safe
    return dy * math_ops.where(zero, 0.0, slope)


sinc = unary(
    "sinc", np.sinc, _sinc_grad, "sin(pi x) / (pi x), 1 at 0 (NumPy's normalized sinc).",
    ("ks.ops.sinc([0.0, 0.5]).numpy().astype(float).round(6).tolist()", "[1.0, 0.63662]"), __name__)


def _i1_values(x):
    """I1(x) = 1/pi * integral of exp(x cos t) cos t over [0, pi], by the trapezoid rule, which
    converges exponentially for this smooth periodic integrand (NumPy has no i1)."""
    xp = backend.array_module(x)
    t = xp.linspace(0.0, np.pi, 129)
    weights = xp.full(129, 1.0 / 128)
    weights[0] = weights[-1] = 0.5 / 128
    values = xp.exp(x.astype(np.float64)[..., None] * xp.cos(t)) * xp.cos(t)
    return (values @ weights).astype(x.dtype)


_i1 = primitive("i1")(_i1_values)


@_i1.defgrad
def _(op, dy):  # I1'(x) = I0(x) - I1(x) / x, 1/2 at 0
    x = op.inputs[0]
    zero = math_ops.equal(x, 0)
    safe = math_ops.where(zero, math_ops.ones_like_values(x), x)
    return (dy * math_ops.where(zero, 0.5, i0(x) - op.output / safe),)


i0 = unary(
    "i0", lambda x: backend.array_module(x).i0(x).astype(x.dtype),
    lambda x, y, dy: dy * apply1(_i1, x),
    "The modified Bessel function of the first kind, order 0 (its gradient is I1).",
    ("ks.ops.i0([0.0, 1.0]).numpy().astype(float).round(6).tolist()", "[1.0, 1.266066]"), __name__)


def _hypot_grad(op, dy):
    x1, x2 = op.inputs
    zero = math_ops.equal(op.output, 0)
    scale = dy / math_ops.where(zero, math_ops.ones_like_values(op.output), op.output)
    return (math_ops.where(zero, 0.0, scale * x1) if op.needs[0] else None,
            math_ops.where(zero, 0.0, scale * x2) if op.needs[1] else None)


hypot = _binary("hypot", np.hypot, _hypot_grad, "sqrt(x1**2 + x2**2) without overflow.",
                "[3.0], [4.0]", "[5.0]")


def _logaddexp_grad(base):
    def grad(op, dy):
        x1, x2 = op.inputs
        share1 = math_ops.exp((x1 - op.output) * math.log(base))
        share2 = math_ops.exp((x2 - op.output) * math.log(base))
        return (dy * share1 if op.needs[0] else None), (dy * share2 if op.needs[1] else None)

    return grad


logaddexp = _binary("logaddexp", np.logaddexp, _logaddexp_grad(math.e),
                    "log(exp(x1) + exp(x2)), computed stably.", "[0.0], [0.0]",
                    "[0.6931471824645996]")
logaddexp2 = _binary("logaddexp2", np.logaddexp2, _logaddexp_grad(2.0),
                     "log2(2**x1 + 2**x2), computed stably.", "[1.0], [1.0]", "[2.0]")


def _fmod_grad(op, dy):
    x1, x2 = op.inputs
    quotient = apply1(_trunc_prim, x1 / x2)
    return ((dy if op.needs[0] else None),
            (math_ops.negative(dy * quotient) if op.needs[1] else None))


_trunc_prim = primitive("trunc_values", differentiable=False)(np.trunc)
fmod = _binary("fmod", lambda a, b: backend.array_module(a).fmod(a, b), _fmod_grad,
               "The remainder of x1 / x2 with the sign of x1 (C's fmod).", "[-5, 5], [3, 3]",
               "[-2, 2]")


def _ldexp_grad(op, dy):
    return (dy * apply2(_ldexp_prim, math_ops.ones_like_values(op.inputs[0]), op.inputs[1])
            if op.needs[0] else None), None


_ldexp_prim = primitive("ldexp")(lambda a, b: backend.array_module(a).ldexp(a, b))
_ldexp_prim.defgrad(_ldexp_grad)


def ldexp(x1, x2) -> Tensor:
    """x1 * 2**x2, exactly (x2 an integer tensor).

    Args:
        x1: the mantissas (floating).
        x2: the integer exponents, broadcast against x1.

    Returns:
        A floating tensor of the broadcast shape; the gradient flows to x1.

    Raises:
        InvalidArgumentError: x2 is not integer.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.ldexp([1.0, 3.0], [2, -1])).tolist()
        [4.0, 1.5]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if x2.dtype.kind not in "iu":
        raise InvalidArgumentError(f"ldexp: x2 must be an integer tensor, got {x2.dtype}")
    if x1.dtype.kind not in "fc":
        x1 = math_ops.cast(x1, np.float32)
    return apply(_ldexp_prim, (x1, x2))


nextafter = _binary(
    "nextafter", lambda a, b: backend.array_module(a).nextafter(a, b), None,
    "The next floating value after x1 toward x2; not differentiable.", "[1.0], [2.0]",
    "[1.0000001192092896]")
gcd = _binary("gcd", lambda a, b: backend.array_module(a).gcd(a, b), None,
              "The greatest common divisor of integers; not differentiable.", "[12, 7], [8, 3]",
              "[4, 1]")
lcm = _binary("lcm", lambda a, b: backend.array_module(a).lcm(a, b), None,
              "The least common multiple of integers; not differentiable.", "[4, 3], [6, 5]",
              "[12, 15]")


def _bitwise(name, ufunc, example, shown):
    op = _binary(name, lambda a, b: getattr(backend.array_module(a), ufunc)(a, b), None,
                 f"Bitwise {ufunc.replace('bitwise_', '')} of integers or bools; not "
                 "differentiable.", example, shown, keras_xy=True)
    return op


bitwise_and = _bitwise("bitwise_and", "bitwise_and", "[12], [10]", "[8]")
bitwise_or = _bitwise("bitwise_or", "bitwise_or", "[12], [10]", "[14]")
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor", "[12], [10]", "[6]")
left_shift = _bitwise("left_shift", "left_shift", "[1, 3], [2, 1]", "[4, 6]")
right_shift = _bitwise("right_shift", "right_shift", "[8, 7], [2, 1]", "[2, 3]")
bitwise_invert = unary(
    "bitwise_invert", np.invert, None, "Bitwise not of integers or bools; not differentiable.",
    ("ks.ops.bitwise_invert([0, 5]).numpy().tolist()", "[-1, -6]"), __name__)

# ---------------------------------------------------------------- complex parts

# kerasish differentiates floating tensors only (the tape skips complex ones), so these are
# not differentiable; on a real tensor `real` and `conj` return it as it is (gradient intact)
_real = primitive("real", differentiable=False)(lambda x: backend.array_module(x).real(x).copy())
_imag = primitive("imag", differentiable=False)(lambda x: backend.array_module(x).imag(x).copy())
_conj = primitive("conj", differentiable=False)(lambda x: backend.array_module(x).conj(x))
_angle = primitive("angle", differentiable=False)(
    lambda x: backend.array_module(x).angle(x).astype(
        x.real.dtype if x.dtype.kind in "fc" else np.float64))


def real(x) -> Tensor:
    """The real part of `x` (a real `x` as it is; kerasish's complex dtypes are complex64 and
    complex128, NumPy's).

    Args:
        x: a tensor.

    Returns:
        A real tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.real([1 + 2j, 3])).tolist()
        [1.0, 3.0]
    """
    x = convert_to_tensor(x)
    return apply1(_real, x) if x.dtype.kind == "c" else x


def imag(x) -> Tensor:
    """The imaginary part of `x` (zeros for a real `x`).

    Args:
        x: a tensor.

    Returns:
        A real tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.imag([1 + 2j, 3])).tolist()
        [2.0, 0.0]
    """
    return apply1(_imag, x)


def conj(x) -> Tensor:
    """The complex conjugate of `x` (a real `x` as it is).

    Args:
        x: a tensor.

    Returns:
        A tensor of `x`'s shape and dtype.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.conj([1 + 2j])).tolist()
        [(1-2j)]
    """
    x = convert_to_tensor(x)
    return apply1(_conj, x) if x.dtype.kind == "c" else x


def angle(x) -> Tensor:
    """The argument of each complex value, in (-pi, pi] (0 or pi for reals); not
    differentiable.

    Args:
        x: a tensor.

    Returns:
        A real tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.angle([1j, -1.0])).astype(float).round(6).tolist()
        [1.570796, 3.141593]
    """
    return apply1(_angle, x)


def isreal(x) -> Tensor:
    """Where the imaginary part is zero (everywhere for a real `x`).

    Args:
        x: a tensor.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isreal([1 + 0j, 1j])).tolist()
        [True, False]
    """
    return math_ops.equal(imag(x), 0)


# ---------------------------------------------------------------- composites of elementwise ops


def deg2rad(x) -> Tensor:
    """Degrees to radians.

    Args:
        x: a tensor of angles in degrees.

    Returns:
        The angles in radians.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.deg2rad([180.0])).astype(float).round(6).tolist()
        [3.141593]
    """
    return math_ops.multiply(x, math.pi / 180.0)


def rad2deg(x) -> Tensor:
    """Radians to degrees.

    Args:
        x: a tensor of angles in radians.

    Returns:
        The angles in degrees.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.rad2deg([np.pi])).astype(float).round(4).tolist()
        [180.0]
    """
    return math_ops.multiply(x, 180.0 / math.pi)


def fmax(x1, x2) -> Tensor:
    """The elementwise maximum, ignoring NaNs (NaN only where both are).

    Args:
        x1: a tensor.
        x2: the second operand, broadcast against x1.

    Returns:
        A tensor of the broadcast shape; the gradient flows to the picked side.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.fmax([1.0, np.nan], [np.nan, 2.0])).tolist()
        [1.0, 2.0]
    """
    x1, x2 = math_ops.binary_args(x1, x2)
    take = math_ops.logical_or(math_ops.greater_equal(x1, x2), math_ops.not_equal(x2, x2))
    return math_ops.where(take, x1, x2)


def fmin(x1, x2) -> Tensor:
    """The elementwise minimum, ignoring NaNs (NaN only where both are).

    Args:
        x1: a tensor.
        x2: the second operand, broadcast against x1.

    Returns:
        A tensor of the broadcast shape; the gradient flows to the picked side.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.fmin([1.0, np.nan], [np.nan, 2.0])).tolist()
        [1.0, 2.0]
    """
    x1, x2 = math_ops.binary_args(x1, x2)
    take = math_ops.logical_or(math_ops.less_equal(x1, x2), math_ops.not_equal(x2, x2))
    return math_ops.where(take, x1, x2)


def heaviside(x1, x2) -> Tensor:
    """The step function: 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0.

    Args:
        x1: the input.
        x2: the value at 0, broadcast against x1.

    Returns:
        A tensor of the broadcast shape (the gradient flows to x2 where x1 == 0).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.heaviside([-1.0, 0.0, 2.0], 0.5)).tolist()
        [0.0, 0.5, 1.0]
    """
    x1, x2 = math_ops.binary_args(x1, x2)
    step = math_ops.cast(math_ops.greater(x1, 0), x2.dtype)
    step = math_ops.where(math_ops.equal(x1, 0), x2, step)
    return math_ops.where(math_ops.not_equal(x1, x1), x1, step)  # NaN stays NaN


def isneginf(x) -> Tensor:
    """Where `x` is -inf.

    Args:
        x: a tensor.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isneginf([-np.inf, np.inf, 0.0])).tolist()
        [True, False, False]
    """
    return math_ops.equal(x, -np.inf)


def isposinf(x) -> Tensor:
    """Where `x` is +inf.

    Args:
        x: a tensor.

    Returns:
        A bool tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isposinf([-np.inf, np.inf, 0.0])).tolist()
        [False, True, False]
    """
    return math_ops.equal(x, np.inf)


_isclose = primitive("isclose", differentiable=False)(
    lambda a, b, rtol, atol, equal_nan: backend.array_module(a).isclose(
        a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Tensor:
    """Where |x1 - x2| <= atol + rtol * |x2| (NumPy's test).

    Args:
        x1: a tensor.
        x2: the second operand, broadcast against x1.
        rtol: the relative tolerance.
        atol: the absolute tolerance.
        equal_nan: whether two NaNs count as close.

    Returns:
        A bool tensor of the broadcast shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isclose([1.0, 1.1], [1.0, 1.0])).tolist()
        [True, False]
    """
    x1, x2 = math_ops.binary_args(x1, x2)
    return apply(_isclose, (x1, x2), {"rtol": float(rtol), "atol": float(atol),
                                       "equal_nan": bool(equal_nan)})


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Tensor:
    """Whether `isclose` holds everywhere.

    Args:
        x1: a tensor.
        x2: the second operand, broadcast against x1.
        rtol: the relative tolerance.
        atol: the absolute tolerance.
        equal_nan: whether two NaNs count as close.

    Returns:
        A bool scalar tensor.

    Example:
        >>> from kerasish import ops
        >>> bool(ops.allclose([1.0, 2.0], [1.0, 2.0 + 1e-9]))
        True
    """
    return reduction_ops.reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


_isin = primitive("isin", differentiable=False)(
    lambda a, b, assume_unique, invert: backend.array_module(a).isin(
        a, b, assume_unique=assume_unique, invert=invert))


def isin(x1, x2, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Where each element of `x1` occurs in `x2`.

    Args:
        x1: a tensor.
        x2: the values to look for (any shape).
        assume_unique: NumPy's hint that both hold unique values.
        invert: give where each element does not occur.

    Returns:
        A bool tensor of `x1`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.isin([1, 2, 3], [3, 1])).tolist()
        [True, False, True]
    """
    return apply(_isin, (convert_to_tensor(x1), convert_to_tensor(x2)),
                 {"assume_unique": bool(assume_unique), "invert": bool(invert)})


_view = primitive("view", differentiable=False)(lambda x, dtype: x.view(dtype))


def view(x, dtype=None) -> Tensor:
    """The bits of `x` read as `dtype` (the last axis scaled by the ratio of the item sizes);
    not differentiable.

    Args:
        x: a tensor.
        dtype: the dtype to read the bits as; None: `x`'s.

    Returns:
        A tensor of `dtype`.

    Raises:
        InvalidArgumentError: the last axis does not divide into whole items of `dtype`.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.view([1.0], "int32")).tolist()
        [1065353216]
    """
    x = convert_to_tensor(x)
    if dtype is None:
        return x
    return apply(_view, (x,), {"dtype": as_dtype(dtype)})


# ---------------------------------------------------------------- layouts


def _as_tensors(xs) -> list:
    return [convert_to_tensor(x) for x in xs]


def _at_least(x: Tensor, rank: int) -> Tensor:
    if x.ndim >= rank:
        return x
    if rank == 3 and x.ndim == 1:
        return shape_ops.reshape(x, (1, x.shape[0], 1))
    if rank == 3 and x.ndim == 2:
        return shape_ops.expand_dims(x, 2)
    return shape_ops.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape))


def hstack(xs) -> Tensor:
    """Join along the second axis (the first for 1-D tensors), as NumPy's `hstack`.

    Args:
        xs: a non-empty sequence of tensors.

    Returns:
        The joined tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.hstack([[1, 2], [3]])).tolist()
        [1, 2, 3]
    """
    xs = [_at_least(x, 1) for x in _as_tensors(xs)]
    return shape_ops.concat(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(xs) -> Tensor:
    """Join along the first axis, 1-D tensors taken as rows, as NumPy's `vstack`.

    Args:
        xs: a non-empty sequence of tensors.

    Returns:
        The joined tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.vstack([[1, 2], [3, 4]])).tolist()
        [[1, 2], [3, 4]]
    """
    return shape_ops.concat([_at_least(x, 2) for x in _as_tensors(xs)], 0)


def dstack(xs) -> Tensor:
    """Join along the third axis (2-D tensors get a third axis, 1-D ones (1, n, 1)).

    Args:
        xs: a non-empty sequence of tensors.

    Returns:
        The joined tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.dstack([[1, 2], [3, 4]]))
        (1, 2, 2)
    """
    return shape_ops.concat([_at_least(x, 3) for x in _as_tensors(xs)], 2)


def array_split(x, indices_or_sections, axis: int = 0) -> list:
    """Split into `n` parts, the first `len % n` one longer (or at the given indices).

    Args:
        x: a tensor.
        indices_or_sections: a number of parts, or the indices to cut before.
        axis: the axis to split along.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: the number of parts is not positive.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.array_split([1, 2, 3, 4, 5], 3)]
        [[1, 2], [3, 4], [5]]
    """
    x = convert_to_tensor(x)
    axis = axis % x.ndim
    length = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        parts = int(indices_or_sections)
        if parts <= 0:
            raise InvalidArgumentError(
                f"array_split: the number of sections must be positive, got {parts}")
        size, extra = divmod(length, parts)
        edges = np.cumsum([0] + [size + 1] * extra + [size] * (parts - extra)).tolist()
    else:
        cuts = [builtins.min(builtins.max(int(i) if i >= 0 else int(i) + length, 0), length)
                for i in indices_or_sections]
        edges = [0] + cuts + [length]
    return [_axis_slice(x, axis, a, builtins.max(a, b)) for a, b in zip(edges, edges[1:])]


def _split_along(name, axis, min_rank):
    def split(x, indices_or_sections) -> list:
        x = convert_to_tensor(x)
        if x.ndim < min_rank:
            raise InvalidArgumentError(
                f"{name}: needs a tensor of rank >= {min_rank}, got rank {x.ndim}")
        along = 0 if (name == "hsplit" and x.ndim == 1) else axis
        if isinstance(indices_or_sections, (int, np.integer)) and \
                x.shape[along] % int(indices_or_sections):
            raise InvalidArgumentError(
                f"{name}: axis {along} of length {x.shape[along]} does not split into "
                f"{int(indices_or_sections)} equal parts")
        return array_split(x, indices_or_sections, along)

    split.__name__ = split.__qualname__ = name
    return split


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)
for _split, _what in ((hsplit, "the second axis (the first of a 1-D tensor)"),
                      (vsplit, "the first axis"), (dsplit, "the third axis")):
    _split.__doc__ = (
        f"NumPy's `{_split.__name__}`: `array_split` along {_what}, equal parts only.\n\n"
        "Args:\n    x: a tensor.\n    indices_or_sections: a number of equal parts, or the "
        "indices to cut before.\n\nReturns:\n    A list of tensors.\n\nRaises:\n"
        "    InvalidArgumentError: the rank is too low or the parts are not equal.\n\n"
        "Example:\n    >>> from kerasish import ops\n"
        f"    >>> len(ops.{_split.__name__}(ops.zeros((2, 2, 2)), 2))\n    2")


def append(x1, x2, axis=None) -> Tensor:
    """`x2` joined after `x1` along `axis` (both flattened when None).

    Args:
        x1: a tensor.
        x2: a tensor.
        axis: the axis to join along; None: flatten both first.

    Returns:
        The joined tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.append([[1, 2]], [3])).tolist()
        [1, 2, 3]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if axis is None:
        x1, x2 = shape_ops.reshape(x1, [-1]), shape_ops.reshape(x2, [-1])
        axis = 0
    return shape_ops.concat([x1, x2], axis)


def ravel(x) -> Tensor:
    """`x` flattened to 1-D (row-major).

    Args:
        x: a tensor.

    Returns:
        A 1-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.ravel([[1, 2], [3, 4]])).tolist()
        [1, 2, 3, 4]
    """
    return shape_ops.reshape(x, [-1])


def fliplr(x) -> Tensor:
    """`x` reversed along its second axis.

    Args:
        x: a tensor of rank >= 2.

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: `x` has rank < 2.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.fliplr([[1, 2]])).tolist()
        [[2, 1]]
    """
    x = convert_to_tensor(x)
    if x.ndim < 2:
        raise InvalidArgumentError(f"fliplr: needs a tensor of rank >= 2, got rank {x.ndim}")
    return indexing_ops.flip(x, 1)


def flipud(x) -> Tensor:
    """`x` reversed along its first axis.

    Args:
        x: a tensor of rank >= 1.

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: `x` is a scalar.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.flipud([1, 2])).tolist()
        [2, 1]
    """
    x = convert_to_tensor(x)
    if x.ndim < 1:
        raise InvalidArgumentError("flipud: needs a tensor of rank >= 1, got a scalar")
    return indexing_ops.flip(x, 0)


def rot90(array, k: int = 1, axes=(0, 1)) -> Tensor:
    """`array` rotated by 90 degrees `k` times in the plane of `axes` (from the first axis
    toward the second).

    Args:
        array: a tensor of rank >= 2.
        k: the number of quarter turns (negative: the other way).
        axes: the two distinct axes of the plane.

    Returns:
        The rotated tensor.

    Raises:
        InvalidArgumentError: rank < 2, or `axes` is not two distinct axes.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.rot90([[1, 2], [3, 4]])).tolist()
        [[2, 4], [1, 3]]
    """
    x = convert_to_tensor(array)
    if x.ndim < 2 or len(axes) != 2 or axes[0] % builtins.max(x.ndim, 1) == \
            axes[1] % builtins.max(x.ndim, 1):
        raise InvalidArgumentError(
            f"rot90: needs rank >= 2 and two distinct axes, got rank {x.ndim} and {axes}")
    a0, a1 = axes[0] % x.ndim, axes[1] % x.ndim
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return indexing_ops.flip(indexing_ops.flip(x, a0), a1)
    perm = list(builtins.range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return shape_ops.transpose(indexing_ops.flip(x, a1), perm)
    return indexing_ops.flip(shape_ops.transpose(x, perm), a1)


def kron(x1, x2) -> Tensor:
    """The Kronecker product: blocks x1[i] * x2.

    Args:
        x1: a tensor.
        x2: a tensor.

    Returns:
        A tensor whose shape is the product of the two shapes (ranks padded with leading 1s).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.kron([1, 10], [1, 2])).tolist()
        [1, 2, 10, 20]
    """
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    rank = builtins.max(x1.ndim, x2.ndim)
    s1 = (1,) * (rank - x1.ndim) + tuple(x1.shape)
    s2 = (1,) * (rank - x2.ndim) + tuple(x2.shape)
    a = shape_ops.reshape(x1, [d for n in s1 for d in (n, 1)])
    b = shape_ops.reshape(x2, [d for n in s2 for d in (1, n)])
    return shape_ops.reshape(math_ops.multiply(a, b), [p * q for p, q in zip(s1, s2)])


def diagflat(x, k: int = 0) -> Tensor:
    """A 2-D tensor with the flattened `x` on its k-th diagonal.

    Args:
        x: a tensor.
        k: the diagonal (positive: above the main one).

    Returns:
        A square 2-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diagflat([[1, 2]])).tolist()
        [[1, 0], [0, 2]]
    """
    return linalg_ops.diag(shape_ops.reshape(x, [-1]), k)


def get_item(x, key) -> Tensor:
    """`x[key]` (Keras's functional spelling of indexing).

    Args:
        x: a tensor.
        key: an int, slice, tuple of them, or an index tensor.

    Returns:
        The indexed tensor; the gradient flows to the picked entries.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.get_item([[1, 2], [3, 4]], (1, 0))).tolist()
        3
    """
    return indexing_ops.getitem(convert_to_tensor(x), key)


def _axis_slice(x: Tensor, axis: int, start, stop):
    key = [builtins.slice(None)] * x.ndim
    key[axis] = builtins.slice(start, stop)
    return indexing_ops.getitem(x, tuple(key))


def diff(a, n: int = 1, axis: int = -1) -> Tensor:
    """The n-th discrete difference along `axis`: a[1:] - a[:-1], `n` times.

    Args:
        a: a tensor of rank >= 1.
        n: how many times to difference (0: `a` itself).
        axis: the axis.

    Returns:
        A tensor with `axis` `n` shorter.

    Raises:
        InvalidArgumentError: `n` is negative.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diff([1, 4, 9, 16])).tolist()
        [3, 5, 7]
    """
    x = convert_to_tensor(a)
    if n < 0:
        raise InvalidArgumentError(f"diff: n must be non-negative, got {n}")
    axis = axis % x.ndim
    for _ in builtins.range(n):
        x = math_ops.subtract(_axis_slice(x, axis, 1, None), _axis_slice(x, axis, None, -1))
    return x


def trapezoid(y, x=None, dx=1.0, axis: int = -1) -> Tensor:
    """The integral of `y` along `axis` by the trapezoid rule.

    Args:
        y: the sampled values.
        x: the sample points along `axis` (1-D, or `y`'s shape); None: spaced `dx` apart.
        dx: the spacing when `x` is None.
        axis: the axis to integrate along.

    Returns:
        `y` with `axis` reduced.

    Example:
        >>> from kerasish import ops
        >>> float(ops.trapezoid([1.0, 2.0, 3.0]))
        4.0
    """
    y = convert_to_tensor(y)
    if y.dtype.kind not in "fc":
        y = math_ops.cast(y, np.float64)
    axis = axis % y.ndim
    if x is None:
        spacing = dx
    else:
        x = convert_to_tensor(x)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = x.shape[0]
            x = shape_ops.reshape(x, shape)
        spacing = diff(x, axis=axis)
    pairs = math_ops.add(_axis_slice(y, axis, 1, None), _axis_slice(y, axis, None, -1))
    return reduction_ops.reduce_sum(math_ops.multiply(pairs, spacing), axis) * 0.5


def select(condlist, choicelist, default=0) -> Tensor:
    """From `choicelist[i]` where `condlist[i]` is the first true condition, else `default`.

    Args:
        condlist: a sequence of bool tensors.
        choicelist: a sequence of tensors, as long as `condlist`.
        default: the value where no condition holds.

    Returns:
        A tensor of the broadcast shape; the gradient flows to the picked choices.

    Raises:
        InvalidArgumentError: the two lists differ in length or are empty.

    Example:
        >>> from kerasish import ops
        >>> x = ops.arange(5)
        >>> ops.convert_to_numpy(ops.select([x < 2, x > 3], [x, x * 10], -1)).tolist()
        [0, 1, -1, -1, 40]
    """
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist) or not condlist:
        raise InvalidArgumentError(
            f"select: condlist and choicelist must be non-empty and equally long, got "
            f"{len(condlist)} and {len(choicelist)}")
    result = default
    for condition, choice in zip(reversed(condlist), reversed(choicelist)):
        choice, result = math_ops.binary_args(choice, result)
        result = math_ops.where(convert_to_tensor(condition), choice, result)
    return result


def vander(x, N=None, increasing: bool = False) -> Tensor:  # noqa: N803 - NumPy's name
    """The Vandermonde matrix: columns of powers of the 1-D `x`.

    Args:
        x: a 1-D tensor.
        N: the number of columns; None: len(x).
        increasing: powers 0, 1, ... left to right (default: decreasing).

    Returns:
        A 2-D tensor (len(x), N).

    Raises:
        InvalidArgumentError: `x` is not 1-D or `N` is negative.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.vander([1, 2, 3])).tolist()
        [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    x = convert_to_tensor(x)
    if x.ndim != 1 or (N is not None and N < 0):
        raise InvalidArgumentError(
            f"vander: x must be 1-D and N non-negative, got rank {x.ndim} and N={N}")
    n = x.shape[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    powers = Tensor(backend.to_device(powers.astype(x.dtype)))
    return math_ops.pow(shape_ops.expand_dims(x, 1), powers)


def tri(N, M=None, k: int = 0, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """Ones at and below the k-th diagonal of an (N, M) matrix, zeros above.

    Args:
        N: the number of rows.
        M: the number of columns; None: N.
        k: the diagonal (positive: above the main one).
        dtype: the element type; None: float32.

    Returns:
        A 2-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tri(2, 3, dtype="int32")).tolist()
        [[1, 0, 0], [1, 1, 0]]
    """
    return Tensor(backend.to_device(np.tri(N, M, k, dtype=as_dtype(dtype or np.float32))))


def eye(N, M=None, k: int = 0, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """Ones on the k-th diagonal of an (N, M) matrix, zeros elsewhere.

    Args:
        N: the number of rows.
        M: the number of columns; None: N.
        k: the diagonal (positive: above the main one).
        dtype: the element type; None: float32.

    Returns:
        A 2-D tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.eye(2, 3, k=1)).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return Tensor(backend.to_device(np.eye(N, M, k, dtype=as_dtype(dtype or np.float32))))


def _window(name, summary):
    def window(x) -> Tensor:
        return Tensor(backend.to_device(getattr(np, name)(int(x)).astype(np.float32)))

    window.__name__ = window.__qualname__ = name
    window.__doc__ = (
        f"The {summary} window of `x` points (float32), as NumPy's `{name}`.\n\n"
        "Args:\n    x: the number of points.\n\nReturns:\n    A 1-D float32 tensor.\n\n"
        f"Example:\n    >>> from kerasish import ops\n    >>> ops.shape(ops.{name}(5))\n"
        "    (5,)")
    return window


bartlett = _window("bartlett", "triangular (Bartlett)")
blackman = _window("blackman", "Blackman")
hamming = _window("hamming", "Hamming")
hanning = _window("hanning", "Hann")


def kaiser(x, beta) -> Tensor:
    """The Kaiser window of `x` points (float32), as NumPy's `kaiser`.

    Args:
        x: the number of points.
        beta: the shape parameter.

    Returns:
        A 1-D float32 tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.kaiser(3, 0.0)).tolist()
        [1.0, 1.0, 1.0]
    """
    return Tensor(backend.to_device(np.kaiser(int(x), float(beta)).astype(np.float32)))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0):
    """`num` evenly spaced values from `start` to `stop` (included when `endpoint`); tensor
    bounds give one such run per element, along `axis`.

    Args:
        start: the first value (a scalar or a tensor).
        stop: the last value, or the bound past the last when not `endpoint`.
        num: how many values.
        endpoint: whether `stop` is the last value.
        retstep: also return the spacing.
        dtype: the element type; None: float32.
        axis: where the new axis goes when the bounds are tensors.

    Returns:
        The values, or (values, step) when `retstep`.

    Raises:
        InvalidArgumentError: `num` is negative.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.linspace(0, 1, 4, endpoint=False)).tolist()
        [0.0, 0.25, 0.5, 0.75]
    """
    if num < 0:
        raise InvalidArgumentError(f"linspace: num must be non-negative, got {num}")
    dtype = as_dtype(dtype or np.float32)
    work = np.float64 if dtype.kind != "f" else dtype
    start, stop = math_ops.cast(start, work), math_ops.cast(stop, work)
    if start.shape != stop.shape:
        common = np.broadcast_shapes(start.shape, stop.shape)
        start, stop = shape_ops.broadcast_to(start, common), shape_ops.broadcast_to(stop, common)
    divisions = (num - 1) if endpoint else num
    fractions = np.arange(num, dtype=np.float64) / builtins.max(divisions, 1)
    shape = [1] * builtins.max(start.ndim, stop.ndim)
    span = math_ops.subtract(stop, start)
    position = builtins.range(len(shape) + 1)[axis]
    fractions_t = Tensor(backend.to_device(fractions.astype(work).reshape(
        shape[:position] + [num] + shape[position:])))
    values = math_ops.add(shape_ops.expand_dims(start, position),
                          math_ops.multiply(shape_ops.expand_dims(span, position), fractions_t))
    if endpoint and num > 1:
        values = _set_last(values, position, stop)
    values = math_ops.cast(values, dtype)
    if retstep:
        step = math_ops.divide(span, float(divisions)) if divisions > 0 else span * np.nan
        return values, step
    return values


def _set_last(values: Tensor, axis: int, stop: Tensor) -> Tensor:
    """`values` with its last entry along `axis` exactly `stop` (as NumPy's linspace)."""
    head = _axis_slice(values, axis, None, -1)
    stop = shape_ops.broadcast_to(shape_ops.expand_dims(stop, axis),
                                  [1 if a == axis else n for a, n in enumerate(values.shape)])
    return shape_ops.concat([head, stop], axis)


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10, dtype=None,
             axis: int = 0) -> Tensor:
    """`base ** linspace(start, stop, num)`.

    Args:
        start: the first exponent.
        stop: the last exponent (or the bound past it when not `endpoint`).
        num: how many values.
        endpoint: whether `stop` is included.
        base: the base of the powers.
        dtype: the element type; None: float32.
        axis: where the new axis goes for tensor bounds.

    Returns:
        The values.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.logspace(0, 2, 3)).tolist()
        [1.0, 10.0, 100.0]
    """
    dtype = as_dtype(dtype or np.float32)
    exponents = linspace(start, stop, num, endpoint, dtype=np.float64, axis=axis)
    return math_ops.cast(math_ops.pow(math_ops.cast(base, np.float64), exponents), dtype)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None,
              axis: int = 0) -> Tensor:
    """`num` values from `start` to `stop` spaced evenly on a log scale.

    Args:
        start: the first value (non-zero).
        stop: the last value (same sign as `start`).
        num: how many values.
        endpoint: whether `stop` is included.
        dtype: the element type; None: float32.
        axis: where the new axis goes for tensor bounds.

    Returns:
        The values.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.geomspace(1, 1000, 4)).astype(float).round(3).tolist()
        [1.0, 10.0, 100.0, 1000.0]
    """
    dtype = as_dtype(dtype or np.float32)
    start, stop = math_ops.cast(start, np.float64), math_ops.cast(stop, np.float64)
    sign = math_ops.sign(start)
    exponents = linspace(math_ops.log10(math_ops.abs(start)), math_ops.log10(math_ops.abs(stop)),
                         num, endpoint, dtype=np.float64, axis=axis)
    values = math_ops.pow(math_ops.cast(10.0, np.float64), exponents)
    position = builtins.range(exponents.ndim)[axis]
    values = math_ops.multiply(values, shape_ops.expand_dims(sign, position))
    if num > 0:
        first = shape_ops.broadcast_to(
            shape_ops.expand_dims(start, position),
            [1 if a == position else n for a, n in enumerate(values.shape)])
        values = shape_ops.concat([first, _axis_slice(values, position, 1, None)], position)
        if endpoint and num > 1:
            values = _set_last(values, position, stop)
    return math_ops.cast(values, dtype)


# ---------------------------------------------------------------- statistics


def _nan_filled(x, fill) -> Tensor:
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        return x
    return math_ops.where(math_ops.not_equal(x, x), fill, x)


def nansum(x, axis=None, keepdims: bool = False) -> Tensor:
    """The sum over `axis`, NaNs taken as 0.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nansum([1.0, np.nan, 2.0]))
        3.0
    """
    return reduction_ops.reduce_sum(_nan_filled(x, 0.0), axis, keepdims)


def nanprod(x, axis=None, keepdims: bool = False) -> Tensor:
    """The product over `axis`, NaNs taken as 1.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanprod([2.0, np.nan, 3.0]))
        6.0
    """
    return cumulative_ops.reduce_prod(_nan_filled(x, 1.0), axis, keepdims)


def _count(x: Tensor, axis, keepdims) -> Tensor:
    return reduction_ops.reduce_sum(
        math_ops.cast(math_ops.equal(x, x), x.dtype), axis, keepdims)


def nanmean(x, axis=None, keepdims: bool = False) -> Tensor:
    """The mean over `axis` of the values that are not NaN (NaN where all are).

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanmean([1.0, np.nan, 2.0]))
        1.5
    """
    x = _floating64(x)
    return math_ops.divide(nansum(x, axis, keepdims), _count(x, axis, keepdims))


def _floating64(x) -> Tensor:
    x = convert_to_tensor(x)
    return x if x.dtype.kind in "fc" else math_ops.cast(x, np.float64)


def nanvar(x, axis=None, keepdims: bool = False) -> Tensor:
    """The population variance over `axis` of the values that are not NaN.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanvar([1.0, np.nan, 3.0]))
        1.0
    """
    x = _floating64(x)
    centred = math_ops.subtract(x, nanmean(x, axis, keepdims=True))
    return nanmean(math_ops.square(centred), axis, keepdims)


def nanstd(x, axis=None, keepdims: bool = False) -> Tensor:
    """The population standard deviation over `axis` of the values that are not NaN.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanstd([1.0, np.nan, 3.0]))
        1.0
    """
    return math_ops.sqrt(nanvar(x, axis, keepdims))


def _nan_extreme(reduce, fill, x, axis, keepdims):
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        return reduce(x, axis, keepdims)
    nan = math_ops.not_equal(x, x)
    result = reduce(math_ops.where(nan, fill, x), axis, keepdims)
    return math_ops.where(reduction_ops.reduce_all(nan, axis, keepdims), np.nan, result)


def nanmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """The maximum over `axis`, ignoring NaNs (NaN where all are).

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanmax([1.0, np.nan, 2.0]))
        2.0
    """
    return _nan_extreme(reduction_ops.reduce_max, -np.inf, x, axis, keepdims)


def nanmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """The minimum over `axis`, ignoring NaNs (NaN where all are).

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanmin([1.0, np.nan, 2.0]))
        1.0
    """
    return _nan_extreme(reduction_ops.reduce_min, np.inf, x, axis, keepdims)


def _nan_arg(name, op, fill, x, axis, keepdims):
    x = convert_to_tensor(x)
    if x.dtype.kind in "fc":
        nan = math_ops.not_equal(x, x)
        if bool(reduction_ops.reduce_any(reduction_ops.reduce_all(
                nan, None if axis is None else axis))):
            raise InvalidArgumentError(f"{name}: an all-NaN slice has no arg index")
        x = math_ops.where(nan, fill, x)
    flat = axis is None
    values = shape_ops.reshape(x, [-1]) if flat else x
    result = op(values, axis=0 if flat else axis, output_type=np.int32)
    if keepdims:
        return shape_ops.reshape(result, [1] * x.ndim) if flat else \
            shape_ops.expand_dims(result, axis)
    return result


def nanargmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """The index of the largest value along `axis`, ignoring NaNs (of the flattened `x` when
    None), int32.

    Args:
        x: a tensor.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices.

    Raises:
        InvalidArgumentError: a searched slice is all NaN.

    Example:
        >>> from kerasish import ops
        >>> int(ops.nanargmax([1.0, np.nan, 2.0]))
        2
    """
    return _nan_arg("nanargmax", reduction_ops.argmax, -np.inf, x, axis, keepdims)


def nanargmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """The index of the smallest value along `axis`, ignoring NaNs (of the flattened `x` when
    None), int32.

    Args:
        x: a tensor.
        axis: the axis to search; None: the flattened `x`.
        keepdims: keep the searched axis with length 1.

    Returns:
        An int32 tensor of indices.

    Raises:
        InvalidArgumentError: a searched slice is all NaN.

    Example:
        >>> from kerasish import ops
        >>> int(ops.nanargmin([1.0, np.nan, 0.5]))
        2
    """
    return _nan_arg("nanargmin", reduction_ops.argmin, np.inf, x, axis, keepdims)


def _cumulative(op, x, axis, dtype):
    x = convert_to_tensor(x)
    if dtype is not None:
        x = math_ops.cast(x, dtype)
    if axis is None:
        return op(shape_ops.reshape(x, [-1]), axis=0)
    return op(x, axis=axis)


def nancumsum(x, axis=None, dtype=None) -> Tensor:
    """Running sums along `axis` (of the flattened `x` when None), NaNs taken as 0.

    Args:
        x: a tensor.
        axis: the axis; None: the flattened `x`.
        dtype: the accumulation dtype; None: `x`'s.

    Returns:
        The running sums.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.nancumsum([1.0, np.nan, 2.0])).tolist()
        [1.0, 1.0, 3.0]
    """
    return _cumulative(cumulative_ops.cumsum, _nan_filled(x, 0.0), axis, dtype)


def nancumprod(x, axis=None, dtype=None) -> Tensor:
    """Running products along `axis` (of the flattened `x` when None), NaNs taken as 1.

    Args:
        x: a tensor.
        axis: the axis; None: the flattened `x`.
        dtype: the accumulation dtype; None: `x`'s.

    Returns:
        The running products.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.nancumprod([2.0, np.nan, 3.0])).tolist()
        [2.0, 2.0, 6.0]
    """
    return _cumulative(cumulative_ops.cumprod, _nan_filled(x, 1.0), axis, dtype)


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


@symbolic_fallback
def nanquantile(x, q, axis=None, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The q-th quantiles over `axis` of the values that are not NaN (NaN where all are),
    from a sort, so the gradient flows to the values they interpolate.

    Args:
        x: a tensor.
        q: a quantile in [0, 1], or a 1-D sequence of them.
        axis: an axis or a sequence of axes; None: all axes.
        method: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The quantiles; for a sequence `q`, its axis comes first.

    Raises:
        InvalidArgumentError: `q` is outside [0, 1] or of rank 2, or another method.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanquantile([1.0, np.nan, 3.0, 2.0], 0.5))
        2.0
    """
    x = _floating64(x)
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)) or method not in _METHODS:
        raise InvalidArgumentError(
            f"nanquantile: q must be a number or a 1-D sequence in [0, 1] (got {qs.tolist()}) "
            f"and method one of {_METHODS} (got {method!r})")
    reduced = tuple(builtins.range(x.ndim)) if axis is None else tuple(
        builtins.sorted(reduction_ops.normalize_axis(axis, x.ndim, "nanquantile")))
    kept = [a for a in builtins.range(x.ndim) if a not in reduced]
    values = shape_ops.reshape(shape_ops.transpose(x, kept + list(reduced)),
                               [x.shape[a] for a in kept] + [-1])
    values = sorting_ops.sort(values, -1)  # NaNs sort last
    count = reduction_ops.reduce_sum(
        math_ops.cast(math_ops.equal(values, values), np.float64), -1, keepdims=True).numpy()
    last = builtins.max(values.shape[-1] - 1, 0)
    results = []
    for quantile in qs.reshape(-1):
        position = quantile * np.maximum(count - 1, 0)
        low, high = np.floor(position), np.ceil(position)
        if method == "nearest":
            low = high = np.around(position)
        low_i = np.clip(low, 0, last).astype(np.int64)
        high_i = np.clip(high, 0, last).astype(np.int64)
        below = sorting_ops.take_along_axis(values, Tensor(backend.to_device(low_i)), -1)
        above = sorting_ops.take_along_axis(values, Tensor(backend.to_device(high_i)), -1)
        if method in ("lower", "nearest"):
            result = below
        elif method == "higher":
            result = above
        elif method == "midpoint":
            result = (below + above) * 0.5
        else:
            weight = Tensor(backend.to_device((position - low).astype(x.dtype)))
            result = below + (above - below) * weight
        result = math_ops.where(Tensor(backend.to_device(count == 0)), np.nan, result)
        results.append(shape_ops.squeeze(result, -1))
    result = shape_ops.stack(results, 0)
    if keepdims:
        result = shape_ops.reshape(result, [len(results)] + [
            1 if a in reduced else x.shape[a] for a in builtins.range(x.ndim)])
    return result if qs.ndim else shape_ops.squeeze(result, 0)


def nanmedian(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median over `axis` of the values that are not NaN.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The medians.

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanmedian([4.0, np.nan, 1.0, 2.0]))
        2.0
    """
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


def _percent(name, q):
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if np.any((qs < 0) | (qs > 100)):
        raise InvalidArgumentError(f"{name}: q must be in [0, 100], got {qs.tolist()}")
    return qs / 100.0


def nanpercentile(x, q, axis=None, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The q-th percentiles over `axis` of the values that are not NaN (`nanquantile` of
    q / 100).

    Args:
        x: a tensor.
        q: a percentile in [0, 100], or a 1-D sequence of them.
        axis: an axis or a sequence of axes; None: all axes.
        method: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The percentiles.

    Raises:
        InvalidArgumentError: `q` is outside [0, 100].

    Example:
        >>> from kerasish import ops
        >>> float(ops.nanpercentile([1.0, np.nan, 3.0], 50))
        2.0
    """
    return nanquantile(x, _percent("nanpercentile", q), axis, method, keepdims)


def percentile(x, q, axis=None, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The q-th percentiles over `axis` (`quantile` of q / 100).

    Args:
        x: a tensor.
        q: a percentile in [0, 100], or a 1-D sequence of them.
        axis: an axis or a sequence of axes; None: all axes.
        method: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The percentiles; for a sequence `q`, its axis comes first.

    Raises:
        InvalidArgumentError: `q` is outside [0, 100].

    Example:
        >>> from kerasish import ops
        >>> float(ops.percentile([1.0, 2.0, 3.0, 4.0], 50))
        2.5
    """
    return statistics_ops.quantile(x, _percent("percentile", q), axis, method, keepdims)


def ptp(x, axis=None, keepdims: bool = False) -> Tensor:
    """The range (maximum - minimum) over `axis`.

    Args:
        x: a tensor.
        axis: an axis or a sequence of axes; None: all axes.
        keepdims: keep each reduced axis with length 1.

    Returns:
        The reduced tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.ptp([[1, 5], [2, 2]], axis=1)).tolist()
        [4, 0]
    """
    return math_ops.subtract(reduction_ops.reduce_max(x, axis, keepdims),
                             reduction_ops.reduce_min(x, axis, keepdims))


def corrcoef(x) -> Tensor:
    """Pearson correlation coefficients between the rows (variables) of `x`.

    Args:
        x: a 1-D or 2-D tensor, one variable per row.

    Returns:
        A (rows, rows) tensor (a scalar for 1-D `x`).

    Raises:
        InvalidArgumentError: `x` has rank above 2.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.corrcoef([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    x = _floating64(x)
    if x.ndim > 2:
        raise InvalidArgumentError(f"corrcoef: x must be 1-D or 2-D, got rank {x.ndim}")
    rows = x if x.ndim == 2 else shape_ops.reshape(x, (1, -1))
    centred = rows - reduction_ops.reduce_mean(rows, 1, keepdims=True)
    cov = math_ops.matmul(centred, centred, transpose_b=True)
    scale = math_ops.sqrt(linalg_ops.diag_part(cov))
    result = cov / (shape_ops.expand_dims(scale, 1) * shape_ops.expand_dims(scale, 0))
    result = math_ops.minimum(math_ops.maximum(result, -1.0), 1.0)
    return result if x.ndim == 2 else shape_ops.reshape(result, ())


def correlate(x1, x2, mode: str = "valid") -> Tensor:
    """The cross-correlation of two 1-D tensors: c[k] = sum_n x1[n + k] * x2[n].

    Args:
        x1: a 1-D tensor.
        x2: a 1-D tensor.
        mode: 'valid' (full overlaps only), 'same' (x1's length, centred) or 'full'.

    Returns:
        A 1-D tensor; the gradient flows to both inputs.

    Raises:
        InvalidArgumentError: an input is not 1-D or empty, or another mode.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])).tolist()
        [3.5]
    """
    a, v = _floating64(x1), _floating64(x2)
    if a.ndim != 1 or v.ndim != 1 or not a.shape[0] or not v.shape[0] or \
            mode not in ("valid", "same", "full"):
        raise InvalidArgumentError(
            f"correlate: needs two non-empty 1-D tensors and mode 'valid', 'same' or 'full', "
            f"got shapes {a.shape} and {v.shape} and mode {mode!r}")
    if v.shape[0] > a.shape[0]:
        return indexing_ops.flip(correlate(v, a, mode), 0)
    n, m = a.shape[0], v.shape[0]
    left = {"valid": 0, "same": m // 2, "full": m - 1}[mode]
    right = {"valid": 0, "same": m - 1 - m // 2, "full": m - 1}[mode]
    padded = shape_ops.pad(a, [(left, right)])
    length = n + left + right - m + 1
    rows = np.arange(length)[:, None] + np.arange(m)[None, :]
    windows = indexing_ops.gather(padded, Tensor(backend.to_device(rows)))
    return math_ops.matmul(windows, shape_ops.expand_dims(v, 1))[:, 0]


def cdist(x, y) -> Tensor:
    """The Euclidean distances between the rows of `x` and those of `y` (leading axes are
    batch axes).

    Args:
        x: a tensor (..., P, M).
        y: a tensor (..., R, M).

    Returns:
        A tensor (..., P, R); the gradient is 0 where two rows coincide.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cdist([[0.0, 0.0]], [[3.0, 4.0], [0.0, 0.0]])).tolist()
        [[5.0, 0.0]]
    """
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-1]:
        raise InvalidArgumentError(
            f"cdist: x and y need shapes (..., N, D) and (..., M, D), got {x.shape} and "
            f"{y.shape}")
    difference = shape_ops.expand_dims(x, -2) - shape_ops.expand_dims(y, -3)
    squared = reduction_ops.reduce_sum(math_ops.square(difference), -1)
    zero = math_ops.equal(squared, 0)
    safe = math_ops.where(zero, math_ops.ones_like_values(squared), squared)
    return math_ops.where(zero, 0.0, math_ops.sqrt(safe))


_argpartition = primitive("argpartition", differentiable=False)(
    lambda x, kth, axis: backend.array_module(x).argpartition(x, kth, axis=axis).astype(np.int32))


def argpartition(x, kth, axis: int = -1) -> Tensor:
    """Indices that put the kth element where a sort would, smaller ones before it and
    larger ones after (in no given order), int32.

    Args:
        x: a tensor.
        kth: the position (or positions) to partition at.
        axis: the axis.

    Returns:
        An int32 tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> int(ops.argpartition([3, 1, 2], 0)[0])
        1
    """
    kth = tuple(int(k) for k in np.atleast_1d(kth))
    return apply(_argpartition, (convert_to_tensor(x),), {"kth": kth, "axis": int(axis)})


def histogram(x, bins: int = 10, range=None) -> tuple:  # noqa: A002 - NumPy's name
    """Counts of the values of a 1-D `x` in `bins` equal bins (eager: NumPy's histogram).

    Args:
        x: a 1-D tensor.
        bins: the number of bins.
        range: (low, high) of the bins; None: the values' minimum and maximum.

    Returns:
        (counts int32, bin edges float32 of length bins + 1); not differentiable.

    Raises:
        InvalidArgumentError: `x` is not 1-D or `bins` is not positive.

    Example:
        >>> from kerasish import ops
        >>> counts, edges = ops.histogram([0.0, 1.0, 1.0, 2.0], bins=2)
        >>> ops.convert_to_numpy(counts).tolist(), ops.convert_to_numpy(edges).tolist()
        ([1, 3], [0.0, 1.0, 2.0])
    """
    x = convert_to_tensor(x)
    if x.ndim != 1 or int(bins) <= 0:
        raise InvalidArgumentError(
            f"histogram: x must be 1-D and bins positive, got rank {x.ndim} and bins={bins}")
    counts, edges = np.histogram(x.numpy(), bins=int(bins), range=range)
    return (Tensor(backend.to_device(counts.astype(np.int32))),
            Tensor(backend.to_device(edges.astype(np.float32))))


def unravel_index(indices, shape) -> tuple:
    """The coordinates in an array of `shape` of flat (row-major) `indices`.

    Args:
        indices: an integer tensor of flat indices.
        shape: the array's shape.

    Returns:
        A tuple of int tensors, one per axis, each of `indices`' shape.

    Raises:
        InvalidArgumentError: an index is outside the array.

    Example:
        >>> from kerasish import ops
        >>> [ops.convert_to_numpy(t).tolist() for t in ops.unravel_index([4, 5], (2, 3))]
        [[1, 1], [1, 2]]
    """
    flat = convert_to_tensor(indices)
    total = int(np.prod(shape, dtype=np.int64))
    values = flat.numpy()
    if values.size and (values.min() < 0 or values.max() >= total):
        raise InvalidArgumentError(
            f"unravel_index: indices must be in [0, {total}) for shape {tuple(shape)}, got "
            f"{values.min()} to {values.max()}")
    dtype = flat.dtype if flat.dtype.kind in "iu" else np.int64
    coordinates = []
    remainder = math_ops.cast(flat, dtype)
    for size in reversed(tuple(shape)):
        coordinates.append(math_ops.floormod(remainder, size))
        remainder = math_ops.floordiv(remainder, size)
    return tuple(reversed(coordinates))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """`pyfunc` over the broadcast elements of its tensor arguments (or, with a `signature`
    such as '(n),(n)->()', over its loop axes), as NumPy's `vectorize`: it runs once per
    element (eagerly), its ops recorded, so gradients flow.

    Args:
        pyfunc: a function of tensors returning a tensor.
        excluded: the positions or names of arguments passed as they are.
        signature: NumPy's generalized signature of the core axes; None: scalars.

    Returns:
        The vectorized function.

    Raises:
        InvalidArgumentError: a signature that cannot be read, or arguments that do not
            match it.

    Example:
        >>> from kerasish import ops
        >>> step = ops.vectorize(lambda a: a if float(a) > 0 else a * 0.0)
        >>> ops.convert_to_numpy(step([-1.0, 2.0])).tolist()
        [-0.0, 2.0]
    """
    excluded = set(excluded or ())
    cores_in, cores_out = _parse_signature(signature)

    def vectorized(*args, **kwargs):
        positions = [i for i in builtins.range(len(args)) if i not in excluded]
        tensors = [convert_to_tensor(args[i]) for i in positions]
        cores = cores_in if cores_in is not None else [()] * len(tensors)
        if len(cores) != len(tensors):
            raise InvalidArgumentError(
                f"vectorize: the signature {signature!r} names {len(cores)} inputs, got "
                f"{len(tensors)}")
        loops = [t.shape[: t.ndim - len(c)] for t, c in zip(tensors, cores)]
        loop_shape = np.broadcast_shapes(*loops) if loops else ()
        tensors = [shape_ops.broadcast_to(t, tuple(loop_shape) + tuple(t.shape[len(s):]))
                   for t, s in zip(tensors, loops)]
        count = int(np.prod(loop_shape, dtype=np.int64))
        flat = [shape_ops.reshape(t, (count,) + tuple(t.shape[len(loop_shape):]))
                for t in tensors]
        results = []
        for index in builtins.range(count):
            call = list(args)
            for position, t in zip(positions, flat):
                call[position] = t[index]
            results.append(pyfunc(*call, **kwargs))
        if count == 0:
            raise InvalidArgumentError("vectorize: the arguments have no elements to map over")
        if isinstance(results[0], tuple):
            return tuple(_stack_to(list(parts), loop_shape) for parts in zip(*results))
        return _stack_to(results, loop_shape)

    vectorized.__name__ = getattr(pyfunc, "__name__", "vectorized")
    vectorized.__doc__ = pyfunc.__doc__
    del cores_out
    return vectorized


def _stack_to(parts, loop_shape) -> Tensor:
    stacked = shape_ops.stack([convert_to_tensor(p) for p in parts], 0)
    return shape_ops.reshape(stacked, tuple(loop_shape) + tuple(stacked.shape[1:]))


def _parse_signature(signature):
    if signature is None:
        return None, None
    try:
        inputs, outputs = signature.replace(" ", "").split("->")

        def groups(text):
            return [tuple(d for d in group.split(",") if d)
                    for group in text[1:-1].split("),(")] if text else []

        return groups(inputs), groups(outputs)
    except ValueError:
        raise InvalidArgumentError(
            f"vectorize: cannot read the signature {signature!r} (NumPy's form: "
            "'(m,n),(n)->(m)')") from None
