"""Buffer reuse for `ks.function` programs: outputs written with `out=` into dead buffers.

An eager step allocates a new array for every op's result. A replayed
program knows every slot's last reader, so an op with an `out=` form (a
NumPy/CuPy ufunc, `matmul`, `relu`) can write into a buffer whose previous
value is dead: the buffers are allocated on the first replay and rewritten
on every later one. The planner keeps three rules:

- a buffer is rewritten only after the last read of the value it holds, and
  of every value that may share its memory: a result computed from it by an
  op that is not `fresh` (one declared to return views, with several
  outputs, or whose output shared memory with an input when traced);
- a value that leaves the call (returned to the user, or read by an effect
  that may keep it, such as a variable assignment or `ks.print`) never lives
  in a buffer, so results the user holds are never overwritten;
  only an effect marked `borrows` (the optimizer update, which reads its
  gradients during the call) reads buffers;
- the `out=` form computes the same bits as the op's forward: it is the same
  ufunc loop (inputs of one dtype, the output dtype the trace recorded) or
  the same BLAS product.

Only segments that end the program are planned (a segment ending in a guard
may be followed by segments traced later, reading any of its values).
"""

from __future__ import annotations

import operator

import numpy as np

from kerasish.core import backend
from kerasish.core.primitive import REGISTRY

# Smaller results are allocated as in eager: NumPy and the C allocator hand back a recently
# freed, cache-warm block for them as fast as `out=` writes into a kept one (measured in
# BENCHMARKS.md, "Buffer reuse"); larger ones cost page faults when allocated afresh.
MIN_BUFFER_BYTES = 1 << 21

_OPERATORS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply}


def _relu_into(x, out=None):
    return np.maximum(x, 0, out=out)


def _matmul_into(a, b, transpose_a, transpose_b, out=None):
    if transpose_a:
        a = a.swapaxes(-1, -2)
    if transpose_b:
        b = b.swapaxes(-1, -2)
    return backend.matmul(a, b, out=out)


def may_share_memory(a, b) -> bool:
    """Whether arrays `a` and `b` may overlap in memory (False for other values).

    Args:
        a, b: NumPy or CuPy arrays, or other values (scalars).

    Returns:
        True where their memory bounds overlap (a view, or the same array).
    """
    if not (hasattr(a, "shape") and hasattr(b, "shape")) or type(a) is not type(b):
        return False  # scalars, or arrays on different devices' kinds
    return bool(backend.array_module(a).may_share_memory(a, b))


def out_form(instr, info: dict):
    """`f(*arrays, **attrs, out=buffer)` giving `instr`'s output bit for bit, or None.

    `out=None` makes a new array (the first replay); NumPy dispatches the
    ufuncs and `matmul` to CuPy for CuPy arrays.

    Args:
        instr: a recorded instruction.
        info: slot -> (shape, dtype, origin), as recorded.

    Returns:
        The function, or None where the op has no such form or its result is
        smaller than `MIN_BUFFER_BYTES`.
    """
    if instr.kind != "prim" or len(instr.outs) != 1 or instr.copy or instr.attr_slots:
        return None
    shape, dtype, _ = info[instr.outs[0]]
    in_dtypes = {info[s][1] for s in instr.ins}
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if len(shape) == 0 or nbytes < MIN_BUFFER_BYTES or len(in_dtypes) != 1:
        return None  # (0-d results are NumPy scalars in eager; mixed dtypes: other loops)
    prim, forward = instr.op, instr.op.forward
    if isinstance(forward, np.ufunc) and forward.nout == 1 and not instr.attrs:
        return forward
    if forward in _OPERATORS and not instr.attrs:
        return _OPERATORS[forward]
    if prim is REGISTRY["relu"] and dtype in in_dtypes:
        return _relu_into
    if prim is REGISTRY["matmul"] and dtype in in_dtypes:
        return _matmul_into
    return None


def plan(code: list, returned: set, info: dict) -> tuple:
    """Which instructions of a program-ending segment write into which buffer.

    Args:
        code: the segment's instructions, in order.
        returned: the slots the segment's `Return` reads.
        info: slot -> (shape, dtype, origin), as recorded.

    Returns:
        ({instruction index: (buffer number, out= form)}, number of buffers).
    """
    forms = {}
    for i, instr in enumerate(code):
        form = out_form(instr, info)
        if form is not None:
            forms[i] = form
    if not forms:
        return {}, 0
    # the buffered values each slot may share memory with, the last read of each, and
    # the values that leave the call
    shares: dict[int, frozenset] = {}
    last_read: dict[int, int] = {}
    leaving = set(returned)
    for i, instr in enumerate(code):
        reads = instr.reads()
        for slot in reads:
            for value in shares.get(slot, ()):
                last_read[value] = i
        if instr.kind == "effect" and not instr.borrows:
            leaving.update(reads)
        if i in forms:
            shares[instr.outs[0]] = frozenset(instr.outs)
        elif not instr.fresh:
            mixed = frozenset().union(*(shares.get(s, ()) for s in reads))
            for slot in instr.outs:
                shares[slot] = mixed
    escaped = frozenset().union(*(shares.get(s, ()) for s in leaving))
    assigned, free, count = {}, {}, 0
    release: dict[int, list] = {}
    for i, instr in enumerate(code):
        value = instr.outs[0] if i in forms else None
        if value is not None and value not in escaped:
            shape, dtype, _ = info[value]
            key = (tuple(shape), dtype)
            spare = free.setdefault(key, [])
            number = spare.pop() if spare else count
            count = max(count, number + 1)
            assigned[i] = (number, forms[i])
            release.setdefault(max(last_read.get(value, i), i), []).append((key, number))
        for key, number in release.pop(i, ()):  # after the op: never its own input's buffer
            free[key].append(number)
    return assigned, count


def handed_over(code: list, returned: set, info: dict, min_bytes: int) -> dict:
    """Gradients a segment that ends the program may hand over to the effect taking them.

    An effect whose op has `takes_handed_over` (an optimizer update with a gradient
    exchange across ranks) may overwrite an input it is handed (see
    `tape.set_gradient_taker`): one of at least `min_bytes` that a prim of this segment made
    (fresh, not a view), that is given to it once, and with which no value that is
    returned, read after the effect, read by an effect that may keep it, or given to
    the effect besides may share memory.

    Args:
        code: the segment's instructions, in order.
        returned: the slots the segment's `Return` reads.
        info: slot -> (shape, dtype, origin), as recorded.
        min_bytes: the smallest array handed over.

    Returns:
        {instruction index: the input slots handed over to it before it runs}.
    """
    shares: dict[int, frozenset] = {}  # slot -> the fresh values it may share memory with
    kept = set()  # fresh values an effect may keep, or read after a taking effect
    takers = []
    for i, instr in enumerate(code):
        reads = instr.reads()
        mixed = frozenset().union(*(shares.get(slot, ()) for slot in reads))
        if instr.kind == "prim" and (instr.fresh or instr.copy) and len(instr.outs) == 1:
            shares[instr.outs[0]] = frozenset(instr.outs)
        else:
            for slot in instr.outs:
                shares[slot] = mixed
        if takers:
            kept.update(mixed)  # read after an effect that takes (or by a later one)
        if instr.kind == "effect":
            if getattr(instr.op, "takes_handed_over", False):
                takers.append(i)
            elif not instr.borrows:
                kept.update(mixed)
    kept.update(*(shares.get(slot, ()) for slot in returned))
    result = {}
    for i in takers:
        ins = code[i].ins
        handed = []
        for slot in dict.fromkeys(ins):
            shape, dtype, _ = info[slot]
            others = frozenset().union(*(shares.get(s, ()) for s in ins if s != slot))
            if (shares.get(slot) == frozenset((slot,)) and ins.count(slot) == 1
                    and slot not in kept and slot not in others
                    and int(np.prod(shape)) * dtype.itemsize >= min_bytes):
                handed.append(slot)
        if handed:
            result[i] = handed
    return result
