"""`ks.ops` control flow: `cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map`,
`vectorized_map`. Python runs the loop eagerly; `ks.function` records the ops each iteration
runs (the loop is unrolled, and a data-dependent trip count is checked on every call)."""

from __future__ import annotations

import builtins

from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import indexing_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor

__all__ = [
    "associative_scan",
    "cond",
    "fori_loop",
    "map",
    "scan",
    "switch",
    "vectorized_map",
    "while_loop",
]


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` is true, else `false_fn()`.

    Args:
        pred: a boolean scalar (a tensor or a Python bool).
        true_fn: a function of no arguments.
        false_fn: a function of no arguments.

    Returns:
        What the called function returns.

    Example:
        >>> from kerasish import ops
        >>> ops.cond(ops.convert_to_tensor(2.0) > 1.0, lambda: "big", lambda: "small")
        'big'
    """
    return true_fn() if bool(pred) else false_fn()


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range (as Keras's switch).

    Args:
        index: an integer scalar.
        branches: a sequence of functions.
        *operands: their arguments.

    Returns:
        What the chosen function returns.

    Example:
        >>> from kerasish import ops
        >>> ops.switch(5, [lambda x: x + 1, lambda x: x * 10], 3)
        30
    """
    chosen = builtins.min(builtins.max(int(index), 0), len(branches) - 1)
    return branches[chosen](*operands)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` holds (a single tensor
    is passed as one argument), at most `maximum_iterations` times.

    Args:
        cond: a function of the loop variables returning a boolean scalar.
        body: a function of the loop variables returning new ones, of the same structure.
        loop_vars: a tuple or list of loop variables, or a single one.
        maximum_iterations: None, or the most times `body` runs.

    Returns:
        The final loop variables: a tuple for a tuple or list, else the single value.

    Example:
        >>> from kerasish import ops
        >>> ops.while_loop(lambda i, total: i < 4, lambda i, total: (i + 1, total + i), (0, 0))
        (4, 6)
    """
    several = isinstance(loop_vars, (list, tuple))
    state = tuple(loop_vars) if several else loop_vars
    count = 0
    while maximum_iterations is None or count < maximum_iterations:
        if not bool(cond(*state) if several else cond(state)):
            break
        state = body(*state) if several else body(state)
        if several:
            state = tuple(state) if isinstance(state, (list, tuple)) else (state,)
        count += 1
    return state


def fori_loop(lower: int, upper: int, body_fun, init_val):
    """`val = body_fun(i, val)` for i from `lower` up to `upper` (excluded).

    Args:
        lower: the first i.
        upper: the end.
        body_fun: a function of (i, val) returning the new val.
        init_val: the first val (any structure).

    Returns:
        The final val.

    Example:
        >>> from kerasish import ops
        >>> ops.fori_loop(0, 4, lambda i, total: total + i, 10)
        16
    """
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def _stacked(results: list):
    """Per-step results (one structure each) stacked leaf by leaf along a new first axis."""
    if not results or builtins.any(leaf is None for leaf in nest.flatten(results[0])):
        return None
    leaves = zip(*(nest.flatten(r) for r in results))
    return nest.pack_sequence_as(results[0], [shape_ops.stack(list(column)) for column in leaves])


def _slices(xs, op_name: str):
    """(length, i -> the structure `xs` at step i) for a structure of tensors."""
    leaves = [convert_to_tensor(t) for t in nest.flatten(xs)]
    lengths = {t.shape[0] if t.ndim else None for t in leaves}
    if len(lengths) != 1 or None in lengths:
        raise InvalidArgumentError(
            f"{op_name}: every tensor in xs needs the same leading axis, got shapes "
            f"{[t.shape for t in leaves]}"
        )
    return lengths.pop(), lambda i: nest.pack_sequence_as(xs, [t[i] for t in leaves])


def scan(f, init, xs=None, length=None, reverse: bool = False, unroll=1):
    """`carry, y = f(carry, x)` for each slice x of `xs` along its first axis (JAX's scan);
    the y's are stacked.

    Args:
        f: a function of (carry, x) returning (carry, y); y may be None.
        init: the first carry (any structure).
        xs: a tensor or a structure of tensors with one leading axis, or None.
        length: the number of steps when `xs` is None.
        reverse: run from the last slice to the first (the y's keep xs' order).
        unroll: Keras's compilation hint; not needed here.

    Returns:
        (final carry, stacked y's or None).

    Raises:
        InvalidArgumentError: neither xs nor length, or xs' leading axes differ.

    Example:
        >>> from kerasish import ops
        >>> carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, ops.arange(4.0))
        >>> float(carry), ops.convert_to_numpy(ys).tolist()
        (6.0, [0.0, 0.0, 2.0, 9.0])
    """
    if xs is None:
        if length is None:
            raise InvalidArgumentError("scan: give xs or length")
        steps, at = int(length), lambda i: None
    else:
        steps, at = _slices(xs, "scan")
    carry, ys = init, [None] * steps
    for i in (reversed(range(steps)) if reverse else range(steps)):
        carry, ys[i] = f(carry, at(i))
    return carry, _stacked(ys)


def map(f, xs):  # noqa: A001 - Keras's name
    """`f` applied to each slice of `xs` along its first axis, the results stacked.

    Args:
        f: a function of one slice (of the structure of `xs`).
        xs: a tensor or a structure of tensors with one leading axis.

    Returns:
        The stacked results (of `f`'s output structure).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.map(lambda x: x * 2, ops.arange(3))).tolist()
        [0, 2, 4]
    """
    steps, at = _slices(xs, "map")
    return _stacked([f(at(i)) for i in range(steps)])


def vectorized_map(function, elements):
    """`function` applied to each slice of `elements` along the first axis, stacked (a loop
    here: eager ops run at array speed).

    Args:
        function: a function of one slice.
        elements: a tensor or a structure of tensors with one leading axis.

    Returns:
        The stacked results.

    Example:
        >>> from kerasish import ops
        >>> ops.shape(ops.vectorized_map(lambda row: ops.sum(row), ops.ones((3, 2))))
        (3,)
    """
    return map(function, elements)


def _along(x, axis: int, start, stop, step=None):
    """x[start:stop:step] along `axis`."""
    return x[(slice(None),) * axis + (slice(start, stop, step),)]


def _interleave(evens, odds, axis: int):
    """evens at the even positions along `axis`, odds at the odd ones."""
    n_even, n_odd = evens.shape[axis], odds.shape[axis]
    order = [0] * (n_even + n_odd)
    order[0::2] = range(n_even)
    order[1::2] = range(n_even, n_even + n_odd)
    joined = shape_ops.concat([evens, odds], axis)
    return indexing_ops.gather(joined, order, axis=axis)


def associative_scan(f, elems, reverse: bool = False, axis: int = 0):
    """The inclusive scan of `elems` along `axis` with an associative `f`: result i is
    f(...f(f(x0, x1), x2)..., xi), computed in about 2 log2(n) vectorized calls of `f` (the
    parallel prefix of JAX's `associative_scan`, as Keras runs it).

    Args:
        f: an associative function of two structures like `elems` (whose tensors hold
            several steps along `axis`), returning one; it is called on slices.
        elems: a tensor or a structure of tensors with one length along `axis`.
        reverse: scan from the end (result i combines x_i ... x_{n-1}).
        axis: the axis to scan along.

    Returns:
        The scanned structure, shaped as `elems`.

    Raises:
        TypeError: `f` is not callable.
        InvalidArgumentError: the tensors' lengths along `axis` differ.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.associative_scan(lambda a, b: a + b, ops.arange(5))).tolist()
        [0, 1, 3, 6, 10]
    """
    if not callable(f):
        raise TypeError(f"associative_scan: f must be callable, got {f!r}")
    leaves = [convert_to_tensor(t) for t in nest.flatten(elems)]
    axis = axis % leaves[0].ndim if leaves and leaves[0].ndim else 0
    lengths = {t.shape[axis] if t.ndim > axis else None for t in leaves}
    if len(lengths) != 1 or None in lengths:
        raise InvalidArgumentError(
            f"associative_scan: every tensor needs the same length along axis {axis}, got "
            f"shapes {[t.shape for t in leaves]}")
    if reverse:
        leaves = [indexing_ops.flip(t, axis) for t in leaves]

    def combine(a, b):
        out = f(nest.pack_sequence_as(elems, a), nest.pack_sequence_as(elems, b))
        return [convert_to_tensor(t) for t in nest.flatten(out)]

    def scan(parts):
        n = parts[0].shape[axis]
        if n < 2:
            return parts
        odd = scan(combine([_along(p, axis, 0, -1, 2) for p in parts],
                           [_along(p, axis, 1, None, 2) for p in parts]))
        tails = [_along(p, axis, 2, None, 2) for p in parts]
        if n % 2 == 0:
            even = combine([_along(o, axis, 0, -1) for o in odd], tails)
        else:
            even = combine(odd, tails)
        even = [shape_ops.concat([_along(p, axis, 0, 1), e], axis) for p, e in zip(parts, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    result = scan(leaves)
    if reverse:
        result = [indexing_ops.flip(t, axis) for t in result]
    return nest.pack_sequence_as(elems, result)
