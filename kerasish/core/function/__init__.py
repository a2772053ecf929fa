"""`ks.function` (alias `ks.defun`): compile a Python step into a replayable program.

The first call with a new signature (shapes, dtypes and devices of the
tensor arguments, values of the other arguments) *traces*: the Python
function runs once, eagerly, and every primitive it applies is recorded, as
are the tape's backward ops, optimizer updates, variable assignments, random
draws and `ks.print` calls. Later calls with that signature *replay* the
recorded program on the new arrays: no tensor wrapping per op, no tape
bookkeeping, no Python-level optimizer loop.

What this means for the code you compile:

- Python side effects (the built-in `print`, appending to a list, counters)
  happen while tracing only. Use `ks.print` to print on every call (and
  `ks.summary` writers, which are replayed too).
- Python values the function reads but does not receive (a global, an
  attribute holding a number, a NumPy array it captures) are taken as they
  were when it was traced, as are the variable objects it found: pass values
  that change as arguments, and assign new values to variables rather than
  replacing them with new objects.
- Converting a tensor to a Python value (`if loss > 1:`, `float(x)`,
  `int(n)`, `x.numpy()`) records a *guard*: each replay checks the value and
  follows the program recorded for it, tracing the other outcome the first
  time it is met, so Python control flow stays exactly as eager. A value with
  more than 8 outcomes at one place (a float printed every step) makes the
  calls meeting a new one run eagerly from there, with a warning; a tensor of
  more than 64 elements turned into Python makes the signature run eagerly.
- Variables are read and written live: assignments from outside, checkpoint
  restores and optimizer state are seen by the next call. A function may
  create variables (a layer building, optimizer slots) on its first trace
  only; later, it is an error naming the variable.
- Under an active `GradientTape`, or inside another traced function, the
  Python function runs as is, so the tape records its ops (gradients of any
  order) and the outer trace inlines them.
- Arguments that are NumPy arrays are passed to the function as tensors.
- Before its first replay a program is optimised, keeping eager's results:
  ops on constants are folded, a repeated op is computed once, unused ops are
  dropped, and results of 2 MiB or more are written into buffers reused from
  call to call. On the GPU, a chain of elementwise ops whose intermediate
  results nothing else reads runs as one CuPy kernel (the same bits for
  arithmetic, sqrt, comparisons, selections and casts; exp, log and tanh
  within a few ulp), as does each variable's optimizer update. The listing
  shows such a chain as one `fused(...)` instruction.
- The second call of a signature runs the Python function again and
  compares what it records with the program: an op reading a constant that
  changed (an index array some code computed with NumPy from a tensor's
  value, outside the recorded ops) makes that signature run eagerly, with a
  warning naming the op and line, rather than replay a stale value.

Example:
    >>> import kerasish as ks
    >>> w = ks.Variable(2.0)
    >>> @ks.function
    ... def step(x):
    ...     with ks.GradientTape() as tape:
    ...         loss = (w * x - 1.0) ** 2
    ...     w.assign_sub(0.1 * tape.gradient(loss, w))
    ...     return loss
    >>> [round(float(step(ks.constant(1.0))), 4) for _ in range(3)]
    [1.0, 0.64, 0.4096]
    >>> step.trace_count
    1
"""

from __future__ import annotations

from kerasish.core.function.compiled import ConcreteFunction, Function


def function(fn=None, *, input_signature=None, reduce_retracing: bool = False):
    """Compile `fn` (a function or a method) into a `Function` that traces once per signature.

    Usable as `@ks.function` or `@ks.function(input_signature=...)`. On a
    method, each instance keeps its own programs.

    Args:
        fn: the Python function to compile.
        input_signature: a list of specs (objects with `shape` and `dtype`,
            such as `ks.data.TensorSpec`; `None` dimensions match any size)
            that the positional arguments must fit; a call that does not fit
            raises a TypeError naming the argument. Calls differing only in
            `None` dimensions share one program where the ops allow it (below).
        reduce_retracing: let calls whose tensors differ only in shape share
            one program where the ops allow it: the first call with a new
            shape is traced and compared with the program, and if they are
            the same (no shape-dependent attribute, constant or draw: a
            Dense layer is, a mean over the batch is not, as it divides by
            the batch size) the program serves both shapes from then on;
            otherwise each shape keeps its own program.

    Returns:
        A `Function`, or a decorator making one when `fn` is omitted.

    Example:
        >>> import kerasish as ks
        >>> @ks.function
        ... def step(x):
        ...     return x * 2.0 + 1.0
        >>> step(ks.constant([1.0, 2.0])).numpy().tolist()  # traced, then run
        [3.0, 5.0]
        >>> step(ks.constant([3.0, 4.0])).numpy().tolist()  # the same program, replayed
        [7.0, 9.0]
    """
    if fn is None:
        return lambda f: Function(f, input_signature, reduce_retracing)
    return Function(fn, input_signature, reduce_retracing)


defun = function  # the seeds' name (tfe.defun)

__all__ = ["ConcreteFunction", "Function", "defun", "function"]
