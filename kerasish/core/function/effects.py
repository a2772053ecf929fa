"""Host-side calls that a `ks.function` program makes on every call, not only when traced.

`ks.print` and the `ks.summary` writers read tensor values on the host and write them
somewhere. Called while tracing, such a function is recorded as one effect: the program
calls it again on every replay with the tensors of that call (and re-evaluates whatever
it decides then, such as whether a summary is recorded at this step). Such a function is
declared with `@host_effect`; `record_host_call` records any other host call.
"""

from __future__ import annotations

import functools

from kerasish.core import nest
from kerasish.core.recording import current_tracer
from kerasish.core.tensor import Tensor, Variable

RUN_NOW = object()  # record_host_call's answer when the function should just run


def record_host_call(fn, *args, **kwargs):
    """Record `fn(*args, **kwargs)` as an effect of the program being traced.

    Tensor arguments (anywhere in lists, tuples and dicts) are the effect's inputs;
    variables and other values are passed as they are. Returns what the call returned
    while tracing (None when re-run after a side exit), or `RUN_NOW` when nothing is
    being recorded (the call itself, run once by the tracer, or an eager stretch).

    Args:
        fn: the host function (printing, writing a summary, appending to a list).
        *args: its positional arguments.
        **kwargs: its keyword arguments.

    Returns:
        What `fn` returned while tracing, None, or `RUN_NOW` (then the caller runs `fn`
        itself).

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.function.effects import RUN_NOW, record_host_call
        >>> seen = []
        >>> @ks.function
        ... def double(x):
        ...     if record_host_call(seen.append, x) is RUN_NOW:
        ...         seen.append(x)
        ...     return x * 2.0
        >>> _ = double(ks.constant(1.0)), double(ks.constant(2.0))
        >>> [float(x) for x in seen]  # the effect ran on every call, replays included
        [1.0, 2.0]
    """
    tracer = current_tracer()
    if tracer is None or not tracer.recording:
        return RUN_NOW
    structure = (list(args), kwargs)
    flat = nest.flatten(structure)
    is_input = [isinstance(x, Tensor) and x.__class__ is not Variable for x in flat]

    def run(*arrays):
        values = iter(arrays)
        rebuilt = [Tensor(next(values)) if tensor else x for x, tensor in zip(flat, is_input)]
        call_args, call_kwargs = nest.pack_sequence_as(structure, rebuilt)
        fn(*call_args, **call_kwargs)

    returned = []
    tracer.effect(fn.__name__, run, tuple(x for x, t in zip(flat, is_input) if t),
                  lambda: returned.append(fn(*args, **kwargs)))
    return returned[0] if returned else None


def host_effect(fn):
    """Declare `fn` a host effect: called under `ks.function` it is recorded (with
    `record_host_call`) and runs on every call of the program; called eagerly it just runs.

    The eager call goes through one more frame (this wrapper), which a warning's
    `stacklevel` inside `fn` counts.

    Args:
        fn: the host function (printing, writing a summary).

    Returns:
        The function, wrapped.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.function.effects import host_effect
        >>> seen = []
        >>> @host_effect
        ... def note(x):
        ...     seen.append(float(x))
        >>> @ks.function
        ... def double(x):
        ...     note(x)
        ...     return x * 2.0
        >>> _ = double(ks.constant(1.0)), double(ks.constant(2.0))
        >>> seen  # written on every call, replays included
        [1.0, 2.0]
    """

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if current_tracer() is not None:
            recorded = record_host_call(call, *args, **kwargs)
            if recorded is not RUN_NOW:
                return recorded
        return fn(*args, **kwargs)

    return call
