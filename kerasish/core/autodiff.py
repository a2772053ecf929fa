"""Function-style gradients (autograd-like), custom gradients, Jacobians and Hessians."""

from __future__ import annotations

import functools
import inspect

from kerasish.core import nest, recording
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.primitive import Primitive
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor


def _selected(f, params, n_args: int) -> list:
    """Indices of the arguments to differentiate: all, or those named in `params`."""
    if params is None:
        return list(range(n_args))
    names = list(inspect.signature(f).parameters)
    indices = []
    for p in params:
        if isinstance(p, str):
            if p not in names:
                raise InvalidArgumentError(
                    f"gradients_function: {f.__name__} has no argument {p!r}"
                )
            indices.append(names.index(p))
        else:
            indices.append(int(p))
    return indices


def _value_and_gradients(f, params, args, kwargs):
    args = [convert_to_tensor(a) for a in args]
    chosen = _selected(f, params, len(args))
    with GradientTape(watch_accessed_variables=False) as tape:
        for i in chosen:
            tape.watch(args[i])
        value = f(*args, **kwargs)
    grads = tape.gradient(value, [args[i] for i in chosen])
    return value, grads


def gradients_function(f, params=None):
    """A function returning the gradients of `f` with respect to its arguments.

    Args:
        f: a function of tensors returning a tensor (a non-scalar output is summed, as
            `GradientTape.gradient` does).
        params: the arguments to differentiate, by name or position; None: all of them.

    Returns:
        A function taking `f`'s arguments (positional ones are converted to tensors) and
        returning the list of gradients, one per selected argument. A `params` name `f`
        does not have raises InvalidArgumentError at that call.

    Example:
        >>> import kerasish as ks
        >>> grad = ks.gradients_function(lambda x: x * x)
        >>> float(grad(3.0)[0])
        6.0
    """

    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        return _value_and_gradients(f, params, args, kwargs)[1]

    return grad_fn


def value_and_gradients_function(f, params=None):
    """Like `gradients_function`, returning `(value, gradients)`.

    Args:
        f: a function of tensors returning a tensor (a non-scalar output is summed, as
            `GradientTape.gradient` does).
        params: the arguments to differentiate, by name or position; None: all of them.

    Returns:
        A function taking `f`'s arguments and returning `(f's value, [gradients])`.

    Example:
        >>> import kerasish as ks
        >>> value_and_grad = ks.value_and_gradients_function(lambda x, y: x * y, params=["y"])
        >>> value, grads = value_and_grad(3.0, 4.0)
        >>> float(value), [float(g) for g in grads]
        (12.0, [3.0])
    """

    @functools.wraps(f)
    def value_and_grad_fn(*args, **kwargs):
        return _value_and_gradients(f, params, args, kwargs)

    return value_and_grad_fn


def _implicit(f, args, kwargs):
    with GradientTape() as tape:
        value = f(*args, **kwargs)
    variables = tape.watched_variables()
    if not variables:
        raise InvalidArgumentError(
            f"implicit_gradients: {getattr(f, '__name__', 'the function')} read no trainable "
            "variable; use gradients_function to differentiate with respect to arguments"
        )
    grads = tape.gradient(value, variables)
    return value, list(zip(grads, variables))


def implicit_gradients(f):
    """A function returning `[(gradient, variable), ...]` for every trainable variable `f` reads.

    Args:
        f: a function returning a tensor, reading trainable variables.

    Returns:
        A function taking `f`'s arguments. It raises InvalidArgumentError when `f` read no
        trainable variable.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(2.0)
        >>> [(float(g), v is w) for g, v in ks.implicit_gradients(lambda x: w * x)(5.0)]
        [(5.0, True)]
    """

    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        return _implicit(f, args, kwargs)[1]

    return grad_fn


def implicit_value_and_gradients(f):
    """Like `implicit_gradients`, returning `(value, [(gradient, variable), ...])`.

    Args:
        f: a function returning a tensor, reading trainable variables.

    Returns:
        A function taking `f`'s arguments. It raises InvalidArgumentError when `f` read no
        trainable variable.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(2.0)
        >>> value, pairs = ks.implicit_value_and_gradients(lambda x: w * w * x)(5.0)
        >>> float(value), float(pairs[0][0])
        (20.0, 20.0)
    """

    @functools.wraps(f)
    def value_and_grad_fn(*args, **kwargs):
        return _implicit(f, args, kwargs)

    return value_and_grad_fn


# ---------------------------------------------------------------- custom gradients


def custom_gradient(f):
    """Decorate `f(*args) -> (outputs, grad_fn)` to use `grad_fn` as its gradient.

    `grad_fn(*output_gradients)` returns one gradient (or None) per argument.
    If `f` reads trainable variables, `grad_fn` must accept `variables=` and
    return `(argument_gradients, variable_gradients)`. The forward ops are
    still recorded, so `grad_fn` may use forward values and remain
    differentiable (higher-order gradients work through custom gradients).

    Args:
        f: the function to decorate.

    Returns:
        The decorated function. Its backward pass raises InvalidArgumentError, naming `f`,
        when `grad_fn` returns the wrong number of gradients or a gradient of the wrong
        shape, or does not take `variables=` although `f` read variables.

    Example:
        >>> import kerasish as ks
        >>> @ks.custom_gradient
        ... def clip_gradient(x):
        ...     return ks.identity(x), lambda dy: ks.clip_by_value(dy, -1.0, 1.0)
        >>> x = ks.constant(2.0)
        >>> with ks.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = clip_gradient(x) * 10.0
        >>> float(tape.gradient(y, x))
        1.0
    """
    label = f"custom_gradient({getattr(f, '__name__', 'f')})"
    prim = Primitive(label, None, multi_output=True, register=False)

    @prim.defgrad
    def _(op, dys):
        return _call_grad_fn(label, op, dys)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        # a Variable argument is an input, read here (as TF converts it), not a captured one
        inputs = tuple(a.read_value() if isinstance(a, Variable) else convert_to_tensor(a)
                       for a in args)
        outer = recording.active_tapes()
        collector = GradientTape(watch_accessed_variables=True)
        with recording.paused(outer + (collector,)):
            result, grad_fn = f(*inputs, **kwargs)
        variables = tuple(collector.watched_variables())
        single = not isinstance(result, (list, tuple))
        produced = [convert_to_tensor(r) for r in nest.flatten(result)]
        outputs = tuple(Tensor(r._value) for r in produced)  # fresh outputs owned by this op
        if outer:
            attrs = {"grad_fn": grad_fn, "n_args": len(inputs), "variables": variables}
            for tape in outer:
                tape._record(prim, inputs + variables, outputs, attrs)
        if single:
            return outputs[0]
        return nest.pack_sequence_as(result, list(outputs))

    return wrapper


def _call_grad_fn(label: str, op, dys):
    attrs = op.attrs
    variables = attrs["variables"]
    n_args = attrs["n_args"]
    if variables:
        try:
            returned = attrs["grad_fn"](*dys, variables=list(variables))
        except TypeError as exc:
            if "variables" not in str(exc):
                raise
            names = ", ".join(v.name for v in variables)
            raise InvalidArgumentError(
                f"{label}: the function reads trainable variable(s) {names}, so its gradient "
                "function must accept a `variables=` keyword and return "
                "(input_gradients, variable_gradients)"
            ) from exc
        if not (isinstance(returned, (list, tuple)) and len(returned) == 2):
            raise InvalidArgumentError(
                f"{label}: with variables, the gradient function must return a pair "
                "(input_gradients, variable_gradients)"
            )
        input_grads, var_grads = returned
        var_grads = _as_list(var_grads)
    else:
        input_grads, var_grads = attrs["grad_fn"](*dys), []
    input_grads = _as_list(input_grads)
    if len(input_grads) != n_args:
        raise InvalidArgumentError(
            f"{label}: the gradient function returned {len(input_grads)} gradient(s) for "
            f"{n_args} input(s); return one gradient (or None) per input, in order"
        )
    if len(var_grads) != len(variables):
        raise InvalidArgumentError(
            f"{label}: the gradient function returned {len(var_grads)} variable gradient(s) "
            f"for {len(variables)} variable(s) read: {', '.join(v.name for v in variables)}"
        )
    checked = []
    for position, (source, grad) in enumerate(zip(op.inputs, input_grads + var_grads)):
        if grad is not None:
            grad = convert_to_tensor(grad)
            if grad.shape != source.shape:
                what = (
                    f"input {position}"
                    if position < n_args
                    else f"variable '{variables[position - n_args].name}'"
                )
                raise InvalidArgumentError(
                    f"{label}: the gradient for {what} has shape {grad.shape} but the "
                    f"{what.split()[0]} has shape {source.shape}"
                )
        checked.append(grad)
    return tuple(checked)


def _as_list(grads) -> list:
    if isinstance(grads, (list, tuple)):
        return list(grads)
    return [grads]


# ---------------------------------------------------------------- Jacobians and Hessians


def jacobian(f, x):
    """The Jacobian of `f` at `x`: shape f(x).shape + x.shape.

    Args:
        f: a function of one tensor.
        x: the point (a tensor or a value `convert_to_tensor` takes).

    Returns:
        The Jacobian; zeros where an output does not depend on `x`.

    Example:
        >>> import kerasish as ks
        >>> ks.jacobian(lambda x: x * x, [1.0, 2.0]).numpy().tolist()
        [[2.0, 0.0], [0.0, 4.0]]
    """
    x = convert_to_tensor(x)
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x, unconnected_gradients="zero")


def hessian(f, x):
    """The Hessian of a scalar function `f` at `x`: shape x.shape + x.shape.

    Args:
        f: a function of one tensor returning a scalar.
        x: the point (a tensor or a value `convert_to_tensor` takes).

    Returns:
        The matrix of second derivatives.

    Example:
        >>> import kerasish as ks
        >>> ks.hessian(lambda x: ks.reduce_sum(x * x * x), [1.0, 2.0]).numpy().tolist()
        [[6.0, 0.0], [0.0, 12.0]]
    """
    x = convert_to_tensor(x)
    with GradientTape(watch_accessed_variables=False) as outer:
        outer.watch(x)
        with GradientTape(watch_accessed_variables=False) as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients="zero")
    return outer.jacobian(g, x, unconnected_gradients="zero")
