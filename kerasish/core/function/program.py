"""The program a `ks.function` trace records: a tree of straight-line segments.

A trace turns one run of a Python function into instructions on numbered
*slots* (the arrays an eager run would have wrapped in tensors):

- `prim`: a primitive's forward function on slot arrays, with its attributes;
- `draw`: a random draw, made afresh on every replay from the live generator;
- `effect`: a change of live state (a variable assignment, an optimizer
  update, `ks.print`), run on every replay.

Slots are filled from the call's tensor arguments, from constants captured
while tracing, and from the live variables (read at the start of every call,
so assignments from outside are seen). Where the traced Python turned a
tensor into a Python value (`if x > 0:`, `float(x)`), the segment ends with a
`Guard`: replay checks the value and continues in the segment recorded for
that outcome, and the first time an outcome has no segment, the call leaves
the program there (a side exit) and the rest is traced (see `tracer.py`).

Before a segment runs, it is compiled to one generated Python function of
plain statements (`env[7] = f3(env[2], env[5])`), after three passes that
keep results bit for bit equal to eager: constant folding (ops on constants
only), common-subexpression elimination (between changes of state) and
dead-code elimination (in segments that end the program). In segments that
end the program, outputs are then written into reused buffers where their
lifetimes allow, and large gradients that nothing reads after an optimizer
update exchanging them across ranks are handed over to it, to be reduced in
place (`buffers.py`).
"""

from __future__ import annotations

import functools
import linecache
import os

from kerasish.core import backend, nest
from kerasish.core import tape as tape_module
from kerasish.core.function import buffers

_PRIM, _DRAW, _EFFECT, _ALIAS = "prim", "draw", "effect", "alias"
_SEGMENT_FILE = "<ks.function segment {}>"


class Instr:
    """One recorded step: `kind`, the callable `op`, input and output slots, where recorded.

    For `prim`, `op` is the Primitive and `attrs` its attributes; `copy` says
    the output must be copied (a view of a variable, as eager copies it). For
    `draw`, `op()` makes the array; for `effect`, `op(*arrays)` changes state
    (`borrows`: without keeping the arrays). `fresh`: see `buffers.plan`.
    """

    __slots__ = ("kind", "op", "ins", "outs", "attrs", "where", "copy", "label", "attr_slots",
                 "borrows", "fresh")

    def __init__(self, kind, op, ins, outs, attrs=None, where="", copy=False, label="",
                 attr_slots=(), borrows=False, fresh=False):
        self.kind = kind
        self.op = op
        self.ins = tuple(ins)
        self.outs = tuple(outs)
        self.attrs = attrs or {}
        self.where = where
        self.copy = copy
        self.label = label or (op.name if kind == _PRIM else kind)
        # (name, slot): attributes that are arrays an earlier op computed (an op's indices)
        self.attr_slots = tuple(attr_slots)
        # an effect that only reads its inputs during the call (an optimizer update): they
        # may live in reused buffers (see `buffers.py`)
        self.borrows = borrows
        # a prim whose outputs shared no memory with its inputs when traced (not a view)
        self.fresh = fresh

    def callable(self):
        if self.kind == _PRIM:
            forward = self.op.forward
            fixed = {k: v for k, v in self.attrs.items() if k not in dict(self.attr_slots)}
            return functools.partial(forward, **fixed) if fixed else forward
        return self.op

    def renamed(self, ins: tuple, attr_slots: tuple) -> Instr:
        """This instruction reading other slots (after common-subexpression elimination)."""
        if ins == self.ins and attr_slots == self.attr_slots:
            return self
        return Instr(self.kind, self.op, ins, self.outs, self.attrs, self.where, self.copy,
                     self.label, attr_slots, self.borrows, self.fresh)

    def reads(self) -> tuple:
        """Every slot the instruction reads: its inputs and its array attributes."""
        return self.ins + tuple(slot for _, slot in self.attr_slots)


class Guard:
    """A point where the trace turned slot `slot` into a Python value.

    `children` maps each outcome met so far (the value's bytes) to the
    segment recorded after it. After `MAX_OUTCOMES` outcomes the guard is
    `unstable`: calls meeting yet another outcome run eagerly from there.
    """

    MAX_OUTCOMES = 8

    __slots__ = ("slot", "where", "how", "children", "unstable", "warned")

    def __init__(self, slot: int, where: str, how: str):
        self.slot = slot
        self.where = where
        self.how = how
        self.children: dict = {}
        self.unstable = False
        self.warned = False


class Return:
    """The end of the program: how to build the function's result from slots."""

    __slots__ = ("structure", "leaves", "single_slot")

    def __init__(self, structure, leaves: list):
        self.structure = structure
        self.leaves = leaves  # per flattened leaf: ("slot", s) | ("value", x) | ("slices", ...)
        single = len(leaves) == 1 and leaves[0][0] == "slot" and not isinstance(
            structure, nest._CONTAINERS)
        self.single_slot = leaves[0][1] if single else None

    def slots(self) -> set:
        used = set()
        for kind, *data in self.leaves:
            if kind == "slot":
                used.add(data[0])
            elif kind == "slices":
                used.update(s for s in data[:2] if isinstance(s, int))
        return used

    def build(self, env, tensor_class, slices_class):
        if self.single_slot is not None:
            return tensor_class(env[self.single_slot])
        flat = []
        for kind, *data in self.leaves:
            if kind == "slot":
                flat.append(tensor_class(env[data[0]]))
            elif kind == "value":
                flat.append(data[0])
            else:
                values, indices, shape = data
                flat.append(slices_class(tensor_class(env[values]), env[indices], shape))
        return nest.pack_sequence_as(self.structure, flat)


class Segment:
    """Straight-line instructions ending in a `Guard` or a `Return` (None while recording)."""

    __slots__ = ("instrs", "end", "run", "code", "number", "buffers", "handed", "first_line")

    def __init__(self, number: int):
        self.number = number
        self.instrs: list[Instr] = []
        self.end = None
        self.run = None  # the compiled function, made by `compile_segment`
        self.code: list[Instr] = []  # the instructions after the passes
        self.buffers: dict[int, int] = {}  # index in `code` -> the buffer its output reuses
        self.handed: dict[int, list] = {}  # index in `code` -> the slots handed over to it
        self.first_line = 2  # the generated line of code[0]

    def children(self) -> list:
        return list(self.end.children.values()) if isinstance(self.end, Guard) else []


# -------------------------------------------------------------------------------- passes


def _attrs_key(attrs: dict):
    """A hashable form of an op's attributes, or None where they hold arrays or the like."""
    try:
        key = tuple(sorted(attrs.items()))
        hash(key)
    except TypeError:
        return None
    return key


def optimise(segment: Segment, constants: dict, folded: dict, variable_slots: set,
             seen: dict | None = None) -> tuple:
    """The segment's instructions after constant folding, CSE and (for leaves) DCE.

    `constants` (slot -> array) are the captured constants; `folded` gains
    the results of ops computed from constants only. Every pass keeps
    results bit for bit equal to the recorded ones: folded ops ran once on
    the same constants, a common subexpression is the same op on the same
    slots with no change of state in between, and dead ops have no effects.
    `seen` holds the expressions computed before the segment (by its parents).

    Returns:
        (instructions, the expressions available at the segment's end).
    """
    rename: dict[int, int] = {}
    seen = dict(seen or {})
    code: list[Instr] = []
    leaf = isinstance(segment.end, Return)
    known = dict(constants)
    known.update(folded)
    for instr in segment.instrs:
        instr = instr.renamed(tuple(rename.get(s, s) for s in instr.ins),
                              tuple((name, rename.get(s, s)) for name, s in instr.attr_slots))
        ins = instr.ins
        if instr.kind != _PRIM:
            seen.clear()  # state may change: later reads are not the same values
            code.append(instr)
            continue
        if ins and all(s in known for s in ins) and not instr.copy and not instr.attr_slots:
            try:
                result = instr.callable()(*[known[s] for s in ins])
            except Exception:  # noqa: BLE001 - left to fail at run time, with its message
                result = None
            if result is not None:
                outs = result if len(instr.outs) > 1 else (result,)
                known.update(zip(instr.outs, outs))
                folded.update(zip(instr.outs, outs))
                continue
        attrs_key = _attrs_key(instr.attrs)
        key = None if attrs_key is None else (instr.op, ins, attrs_key, instr.attr_slots)
        if key is not None and not any(s in variable_slots for s in ins):
            earlier = seen.get(key)
            if earlier is not None:
                for mine, theirs in zip(instr.outs, earlier):
                    if leaf:
                        rename[mine] = theirs
                    else:  # a later branch may read this slot: keep it, as a cheap alias
                        code.append(Instr(_ALIAS, None, (theirs,), (mine,), label="alias"))
                continue
            seen[key] = instr.outs
        code.append(instr)
    if leaf:
        segment.end = _renamed_return(segment.end, rename)
        code = _without_dead_code(code, segment.end.slots())
    return code, seen


def _renamed_return(end: Return, rename: dict) -> Return:
    if not rename:
        return end
    leaves = []
    for kind, *data in end.leaves:
        if kind == "slot":
            leaves.append(("slot", rename.get(data[0], data[0])))
        elif kind == "slices":
            values, indices, shape = data
            leaves.append(("slices", rename.get(values, values), rename.get(indices, indices),
                           shape))
        else:
            leaves.append((kind, *data))
    return Return(end.structure, leaves)


def _without_dead_code(code: list, live: set) -> list:
    kept = []
    live = set(live)
    for instr in reversed(code):
        if instr.kind in (_PRIM, _ALIAS) and not any(s in live for s in instr.outs):
            continue
        live.update(instr.reads())
        kept.append(instr)
    kept.reverse()
    return kept


# -------------------------------------------------------------------------------- codegen


def compile_segment(segment: Segment, code: list, info: dict | None = None) -> None:
    """Generate `segment.run(env)`: the instructions as plain Python statements.

    With `info` (slot -> shape, dtype, origin), a segment that ends the program
    writes the outputs `buffers.plan` picks into reused buffers: one set per
    concurrent call, taken from the segment's pool and put back at its end.
    """
    plan, count, handed = {}, 0, {}
    taker = tape_module.gradient_taker()  # (hand_over, min_bytes), or None
    if info is not None and isinstance(segment.end, Return):
        plan, count = buffers.plan(code, segment.end.slots(), info)
        if taker is not None:
            handed = buffers.handed_over(code, segment.end.slots(), info, taker[1])
    namespace: dict = {"pool": [], "hand_over": taker[0] if taker else None}
    lines = ["def run(env):"]
    if count:
        lines.append(f"    b = pool.pop() if pool else [None] * {count}")
    first_line = len(lines) + 1
    for i, instr in enumerate(code):
        args = ", ".join([f"env[{s}]" for s in instr.ins]
                         + [f"{key}=env[{s}]" for key, s in instr.attr_slots])
        name = f"f{i}"
        if instr.kind == _ALIAS:
            lines.append(f"    env[{instr.outs[0]}] = env[{instr.ins[0]}]")
            continue
        if i in plan:
            number, form = plan[i]
            namespace[name] = functools.partial(form, **instr.attrs) if instr.attrs else form
            lines.append(f"    env[{instr.outs[0]}] = b[{number}] = {name}({args}, "
                         f"out=b[{number}])")
            continue
        namespace[name] = instr.callable()
        call = f"{name}({args})"
        if instr.kind == _EFFECT:
            handing = "".join(f"hand_over(env[{slot}]); " for slot in handed.get(i, ()))
            lines.append(f"    {handing}{call}")
        elif len(instr.outs) > 1:
            targets = ", ".join(f"env[{s}]" for s in instr.outs)
            lines.append(f"    {targets}, = {call}")
        else:
            suffix = ".copy()" if instr.copy else ""
            lines.append(f"    env[{instr.outs[0]}] = {call}{suffix}")
    if count:
        lines.append("    pool.append(b)")
    if len(lines) == 1:
        lines.append("    pass")
    filename = _SEGMENT_FILE.format(id(segment))
    source = "\n".join(lines) + "\n"
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    segment.run = namespace["run"]
    segment.code = code
    segment.buffers = {i: number for i, (number, _) in plan.items()}
    segment.handed = handed
    segment.first_line = first_line


def failing_instr(segment: Segment, traceback) -> Instr | None:
    """The instruction of `segment` whose line the traceback passed through, if any."""
    filename = _SEGMENT_FILE.format(id(segment))
    tb = traceback
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            index = tb.tb_lineno - segment.first_line
            if 0 <= index < len(segment.code):
                return segment.code[index]
        tb = tb.tb_next
    return None


# -------------------------------------------------------------------------------- listing


def slot_type(info: dict, slot: int) -> str:
    shape, dtype, _ = info.get(slot, ((), "?", ""))
    return f"{dtype}{list(shape)}"


def listing(concrete) -> str:
    """A readable listing: inputs, constants, variables, then each segment's code."""
    info = concrete.slot_info
    lines = [f"ks.function {concrete.name}: {concrete.signature_text()}"]
    if concrete.eager_reason:
        lines.append(f"  runs eagerly: {concrete.eager_reason}")
        return "\n".join(lines)
    if concrete.gpu_slots:
        lines.append(f"  replayed {concrete.replay_kind}")
    for slot in range(concrete.n_inputs):
        lines.append(f"  input     %{slot}: {slot_type(info, slot)}")
    for slot, variable in sorted(concrete.variables.items()):
        lines.append(f"  variable  %{slot}: {slot_type(info, slot)} '{variable.name}'")
    for table, kind in ((concrete.constants, "constant"), (concrete.folded, "folded  ")):
        for slot in sorted(table):
            value = table[slot]
            lines.append(f"  {kind}  %{slot}: {value.dtype}{list(value.shape)}"
                         + (f" = {backend.to_numpy(value).item()!r}" if value.size == 1 else ""))
    for segment in concrete.segments():
        lines.append(f"segment {segment.number}:")
        for i, instr in enumerate(segment.code):
            outs = ", ".join(f"%{s}" for s in instr.outs)
            args = ", ".join(f"%{s}" for s in instr.ins)
            types = ", ".join(slot_type(info, s) for s in instr.outs)
            where = f"  # {instr.where}" if instr.where else ""
            if instr.kind == _EFFECT:
                handed = ", ".join(f"%{slot}" for slot in segment.handed.get(i, ()))
                handed = f" handed over: {handed}" if handed else ""
                lines.append(f"    {instr.label}({args}){handed}{where}")
            else:
                number = segment.buffers.get(i)
                reused = "" if number is None else f" in buffer {number}"
                lines.append(f"    {outs} = {instr.label}({args}) : {types}{reused}{where}")
        end = segment.end
        if isinstance(end, Guard):
            outcomes = ", ".join(
                f"{_outcome_text(key, info, end.slot)} -> segment {child.number}"
                for key, child in end.children.items()
            )
            state = ", unstable: other outcomes run eagerly" if end.unstable else ""
            lines.append(f"    guard {end.how}(%{end.slot}) at {end.where}: {outcomes}{state}")
        elif isinstance(end, Return):
            outs = ", ".join(
                f"%{data[0]}" if kind == "slot" else kind for kind, *data in end.leaves
            )
            lines.append(f"    return {outs}")
    return "\n".join(lines)


def _outcome_text(key: bytes, info: dict, slot: int) -> str:
    import numpy as np

    shape, dtype, _ = info.get(slot, ((), None, ""))
    if dtype is None:
        return repr(key)
    value = np.frombuffer(key, dtype=dtype).reshape(shape)
    return repr(value.item()) if value.size == 1 else np.array2string(value, separator=",")


def user_frame(skip_dirs: tuple) -> str:
    """'file:line (function)' of the innermost frame outside the given directories."""
    import sys

    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(skip_dirs) and not filename.startswith("<ks.function"):
            return f"{os.path.basename(filename)}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back
    return ""
