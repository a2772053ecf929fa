"""Keras's argument names on the core ops `ks.ops` shows as they are: `add(x1, x2)`,
`where(condition, x1, x2)`, `reshape(x, newshape)`, ...

Each entry is the core op itself under other parameter names: the same code object with its
arguments renamed (`CodeType.replace`), so a positional call runs exactly the op's code, with
no adapter frame in between (`ks.ops.add` runs in training loops). `ks`, `ks.math` and the
other TF-style namespaces keep the core names (`x`, `y`, `tensor`, ...).
"""

from __future__ import annotations

import types

from kerasish.core.symbolic import symbolic_fallback

# ks.ops name: the Keras parameter names, in order, of the core op's first parameters
KERAS_PARAMETERS = {
    "add": ("x1", "x2"),
    "subtract": ("x1", "x2"),
    "multiply": ("x1", "x2"),
    "divide": ("x1", "x2"),
    "true_divide": ("x1", "x2"),
    "floor_divide": ("x1", "x2"),
    "mod": ("x1", "x2"),
    "power": ("x1", "x2"),
    "maximum": ("x1", "x2"),
    "minimum": ("x1", "x2"),
    "matmul": ("x1", "x2"),
    "equal": ("x1", "x2"),
    "not_equal": ("x1", "x2"),
    "less": ("x1", "x2"),
    "less_equal": ("x1", "x2"),
    "greater": ("x1", "x2"),
    "greater_equal": ("x1", "x2"),
    "logical_and": ("x1", "x2"),
    "logical_or": ("x1", "x2"),
    "logical_xor": ("x1", "x2"),
    "where": ("condition", "x1", "x2"),
    "reshape": ("x", "newshape"),
    "squeeze": ("x",),
    "expand_dims": ("x",),
    "broadcast_to": ("x",),
    "ones_like": ("x",),
    "zeros_like": ("x",),
    "slogdet": ("x",),
}


def renamed(function, names):
    """`function` with its first parameters called `names` (a new function over the same
    code; one wrapped by `symbolic_fallback` is renamed inside and wrapped again, as a
    `kerasish.ops` function, so a saved node finds it by its `ks.ops` name).

    Args:
        function: a plain Python function (not a closure over its parameters).
        names: the new names of its first `len(names)` parameters.

    Returns:
        The renamed function (named, documented and placed in the module as `function`).

    Raises:
        ValueError: `function` has fewer parameters than `names`, or a closure reads one.

    Example:
        >>> from kerasish.core.ops import math_ops
        >>> from kerasish.ops.keras_names import renamed
        >>> add = renamed(math_ops.add, ("x1", "x2"))
        >>> add(x1=1, x2=2).numpy().tolist()
        3
    """
    inner = getattr(function, "__wrapped_op__", None)
    if inner is not None:  # its node names it by its ks.ops name, which takes Keras's names
        inner = renamed(inner, names)
        inner.__module__ = "kerasish.ops"
        return symbolic_fallback(inner)
    code = function.__code__
    count = code.co_argcount + code.co_kwonlyargcount
    if len(names) > code.co_argcount or set(code.co_varnames[: len(names)]) & set(
            code.co_cellvars):
        raise ValueError(
            f"renamed: cannot rename {function.__name__}{code.co_varnames[:count]} to {names}")
    varnames = tuple(names) + code.co_varnames[len(names):]
    new = types.FunctionType(code.replace(co_varnames=varnames), function.__globals__,
                             function.__name__, function.__defaults__, function.__closure__)
    new.__kwdefaults__ = function.__kwdefaults__
    new.__module__, new.__qualname__ = function.__module__, function.__qualname__
    new.__doc__ = function.__doc__
    new.__dict__.update(function.__dict__)
    return new


def keras_named(namespace: dict) -> dict:
    """The ops of `namespace` (a `ks.ops` dict) that `KERAS_PARAMETERS` names, renamed.

    Args:
        namespace: a dict of public name to function.

    Returns:
        A dict of the same names to the renamed functions.

    Example:
        >>> import inspect
        >>> from kerasish.core.ops import math_ops
        >>> from kerasish.ops.keras_names import keras_named
        >>> str(inspect.signature(keras_named({"maximum": math_ops.maximum})["maximum"]))
        '(x1, x2)'
    """
    return {name: renamed(namespace[name], names)
            for name, names in KERAS_PARAMETERS.items() if name in namespace}
