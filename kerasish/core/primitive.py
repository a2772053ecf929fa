"""Primitive ops: a forward function on raw arrays plus its gradient rule.

A primitive is declared once, next to its gradient:

    @primitive("exp")
    def _exp(x):                    # arrays in, array out
        return np.exp(x)

    @_exp.defgrad
    def _(op, dy):                  # tensors in, one gradient (or None) per input
        return (dy * op.output,)

Gradient rules receive the recorded `Op` (`op.inputs`, `op.output`,
`op.attrs`, and `op.needs`: which inputs need a gradient, so expensive
products nobody needs can be skipped) and are written with kerasish ops, so
that they are themselves differentiable. Broadcast gradients are reduced to
the input shape centrally by the tape, not in every rule.

`REGISTRY` holds every primitive; `NONDIFFERENTIABLE` names those that have no
gradient by design (comparisons, integer results, random draws).
"""

from __future__ import annotations

import threading

import numpy as np

from kerasish.core import backend, symbolic
from kerasish.core.errors import DeviceError, InvalidArgumentError, KerasishError
from kerasish.core.keras_tensor import SymbolicValue
from kerasish.core.recording import _state as _tape_state
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor

REGISTRY: dict[str, "Primitive"] = {}
_TENSOR_CLASSES = frozenset({Tensor, Variable})
NONDIFFERENTIABLE: set[str] = set()
_EMPTY: dict = {}


class _Autocast(threading.local):
    # inside a layer call whose dtype policy computes in another dtype than its weights
    # (mixed_float16): the compute dtype, which `apply` reads autocast variables in
    # (set by `core.dtype_policy.AutocastScope`)
    dtype = None


autocast_state = _Autocast()


class Primitive:
    """An op the tape knows how to differentiate (or knows it cannot)."""

    __slots__ = (
        "name", "forward", "grad", "multi_output", "views", "plain", "single_differentiable",
        "explain", "device_check",
    )

    def __init__(
        self,
        name: str,
        forward,
        *,
        differentiable: bool = True,
        multi_output: bool = False,
        views: bool = False,
        explain=None,
        register: bool = True,
    ):
        self.name = name
        self.forward = forward
        self.grad = None
        self.multi_output = multi_output
        self.views = views  # forward may return a view of an input (copied for variables)
        self.plain = not (multi_output or views)  # one output, never a view: the fast path
        self.single_differentiable = False  # one output and a gradient rule: the tape's fast path
        self.explain = explain  # (inputs, attrs) -> message, used when forward fails
        # for an op whose forward checks its input on the host (index ranges): the same
        # computation without reading the device, (*arrays, **attrs) -> (output, a device
        # bool that is True where the check fails); a CUDA graph reads it after running
        self.device_check = None
        if register:
            if name in REGISTRY:
                raise ValueError(f"primitive {name!r} is defined twice")
            REGISTRY[name] = self
            if not differentiable:
                NONDIFFERENTIABLE.add(name)

    def defgrad(self, rule):
        """Attach the gradient rule `rule(op, dy) -> tuple of per-input gradients`."""
        if self.name in NONDIFFERENTIABLE:
            raise ValueError(f"primitive {self.name!r} is declared non-differentiable")
        self.grad = rule
        self.single_differentiable = not self.multi_output
        return rule

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


def primitive(name: str, **options):
    """Decorator: turn a forward function on arrays into a registered Primitive.

    Args:
        name: the op's name, unique in `REGISTRY` (it names the op in errors and in
            `GradientTape.explain`).
        **options: `Primitive`'s keywords: `differentiable` (False: listed in
            `NONDIFFERENTIABLE`, no rule allowed), `multi_output`, `views`, `explain`,
            `register`.

    Returns:
        A decorator returning the `Primitive`; attach its gradient with `defgrad`.

    Raises:
        ValueError: a registered primitive already has `name`.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.primitive import apply, primitive
        >>> @primitive("doc_cube", register=False)  # an example: kept out of the registry
        ... def cube(x):
        ...     return x ** 3
        >>> @cube.defgrad
        ... def _(op, dy):
        ...     return (dy * 3.0 * op.inputs[0] * op.inputs[0],)
        >>> x = ks.constant(2.0)
        >>> with ks.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = apply(cube, (x,))
        >>> float(y), float(tape.gradient(y, x))
        (8.0, 12.0)
    """

    def wrap(forward):
        return Primitive(name, forward, **options)

    return wrap


def apply(prim: Primitive, inputs: tuple, attrs: dict = _EMPTY):
    """Run `prim` on tensors `inputs`, record it on active tapes, return the result.

    Args:
        prim: the primitive.
        inputs: a tuple of tensors (not converted here: see `apply1`, `apply2`).
        attrs: keyword arguments of the forward function, kept on the recorded op.

    Returns:
        A tensor, or a tuple of tensors for a multi-output primitive. On symbolic
        (functional-API) inputs the forward's failure records an op node instead.

    Raises:
        InvalidArgumentError: the forward function failed; the message names the op and
            its inputs' shapes and dtypes (TypeError when the failure was one).
        DeviceError: the inputs are on different devices.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.primitive import apply, primitive
        >>> @primitive("doc_cube", register=False)  # an example: kept out of the registry
        ... def cube(x):
        ...     return x ** 3
        >>> @cube.defgrad
        ... def _(op, dy):
        ...     return (dy * 3.0 * op.inputs[0] * op.inputs[0],)
        >>> x = ks.constant(2.0)
        >>> with ks.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = apply(cube, (x,))
        >>> float(y), float(tape.gradient(y, x))
        (8.0, 12.0)
    """
    if autocast_state.dtype is not None and Variable in map(type, inputs):
        inputs = _autocast_variables(inputs, autocast_state.dtype)
    try:
        if attrs:
            out = prim.forward(*[t._value for t in inputs], **attrs)
        elif len(inputs) == 2:  # the common arities, without building argument lists
            out = prim.forward(inputs[0]._value, inputs[1]._value)
        elif len(inputs) == 1:
            out = prim.forward(inputs[0]._value)
        else:
            out = prim.forward(*[t._value for t in inputs])
    except KerasishError:
        raise
    except Exception as exc:
        if SymbolicValue in {t._value.__class__ for t in inputs if isinstance(t, Tensor)}:
            return symbolic.primitive_call(prim, inputs, attrs)  # the functional API
        raise op_error(prim, exc, inputs, attrs) from exc
    if prim.plain:
        result = Tensor(out)
    elif prim.multi_output:
        result = tuple(Tensor(o) for o in out)
    else:
        if Variable in map(type, inputs):  # a view of a variable: copy, as it changes in place
            out = out.copy()
        result = Tensor(out)
    tapes = _tape_state.tapes
    if tapes:  # without a tape, nothing else happens
        for tape in tapes:
            tape._record(prim, inputs, result, attrs)
    return result


def _autocast_variables(inputs: tuple, dtype) -> tuple:
    """`inputs` with each floating autocast variable of another dtype read as `dtype`."""
    cast = REGISTRY["cast"]
    autocast_state.dtype = None  # (the casts below are ops too)
    try:
        return tuple(
            apply(cast, (t,), {"dtype": dtype})
            if (t.__class__ is Variable and t._autocast and t._value.dtype.kind == "f"
                and t._value.dtype != dtype) else t
            for t in inputs)
    finally:
        autocast_state.dtype = dtype


def apply1(prim: Primitive, x, attrs: dict = _EMPTY):
    """`apply` for a one-input primitive, converting the input."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    return apply(prim, (x,), attrs)


def apply2(prim: Primitive, x, y, attrs: dict = _EMPTY):
    """`apply` for an elementwise two-input primitive, with scalar promotion."""
    if autocast_state.dtype is not None and Variable in (x.__class__, y.__class__):
        x, y = _autocast_variables((x, y), autocast_state.dtype)  # before a scalar's dtype
    if x.__class__ not in _TENSOR_CLASSES or y.__class__ not in _TENSOR_CLASSES:
        x, y = binary_args(x, y)
    return apply(prim, (x, y), attrs)


# Scalar constants made for Python numbers, reused (tensors are immutable): the same few
# numbers (1.0, 2.0, a learning rate) meet tensors in every step.
_scalar_cache: dict = {}
_SCALAR_CACHE_SIZE = 512


def _weak_scalar(value, other: Tensor):
    """A Python scalar takes the dtype of the tensor it meets (NumPy's rule for scalars).

    Returns (scalar tensor, other): a Python float meeting an integer tensor
    makes both float32 rather than float64.
    """
    if isinstance(value, float) and other._value.dtype.kind in "iub":
        other = apply(REGISTRY["cast"], (other,), {"dtype": np.dtype(np.float32)})  # ops are above
    dtype = other._value.dtype
    on_gpu = backend.is_gpu_array(other._value)
    key = (value.__class__, value, dtype)
    if not on_gpu:
        cached = _scalar_cache.get(key)
        if cached is not None:
            return cached, other
    if isinstance(value, bool) and dtype.kind != "b":
        value = int(value)
    try:
        array = np.asarray(value, dtype=dtype)
    except OverflowError as exc:
        raise InvalidArgumentError(f"the Python value {value!r} does not fit in {dtype}") from exc
    if on_gpu:
        return Tensor(backend.to_device(array, backend.device_of(other._value))), other
    if len(_scalar_cache) >= _SCALAR_CACHE_SIZE:
        _scalar_cache.clear()
    scalar = _scalar_cache[key] = Tensor(array)
    return scalar, other


_PY_SCALARS = (bool, int, float)


def binary_args(x, y) -> tuple:
    """Convert two operands to tensors; Python scalars adopt the other operand's dtype."""
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):
            return x, y
        if isinstance(y, _PY_SCALARS):
            y, x = _weak_scalar(y, x)
            return x, y
        return x, convert_to_tensor(y)
    if isinstance(y, Tensor):
        if isinstance(x, _PY_SCALARS):
            return _weak_scalar(x, y)
        return convert_to_tensor(x), y
    return convert_to_tensor(x), convert_to_tensor(y)


def describe_inputs(inputs) -> str:
    parts = []
    for t in inputs:
        if isinstance(t, Tensor):
            parts.append(f"shape {t.shape} {t.dtype} on {t.device}")
        else:
            parts.append(repr(t))
    return "; ".join(parts)


def op_error(prim: Primitive, exc: Exception, inputs, attrs) -> Exception:
    """Turn a backend exception into one that names the op and its inputs."""
    devices = {backend.device_of(t._value) for t in inputs  # symbolic inputs have no device
               if isinstance(t, Tensor) and t._value.__class__ is not SymbolicValue}
    if len(devices) > 1:
        names = " and ".join(sorted(backend.device_name(d) for d in devices))
        return DeviceError(
            f"{prim.name}: inputs are on different devices ({names}); move them to one device "
            "with x.cpu() or x.gpu() first"
        )
    detail = prim.explain(inputs, attrs) if prim.explain is not None else None
    if detail is None:
        detail = f"{exc} (inputs: {describe_inputs(inputs)})"
    if isinstance(exc, TypeError):
        return TypeError(f"{prim.name}: {detail}")
    return InvalidArgumentError(f"{prim.name}: {detail}")
