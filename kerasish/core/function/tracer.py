"""The tracer: watches one run of a Python function and records it into a program.

While a trace runs, the tracer sits in the tape state like a tape (so
`primitive.apply` reports every op to it with no extra test on the eager
path) and is `tape.current_tracer()` (so variable assignments, optimizer
updates, random draws, `ks.print`, variable creation and tensor-to-Python
conversions report to it too). It has three modes:

- `live`: everything runs eagerly and is recorded into the current segment;
- `match`: after a side exit, the Python function runs again from the start.
  The ops it repeats are matched against the recorded ones and given the
  values the replay computed (effects and draws are not repeated); at the
  guard that exited, the new outcome starts a new segment and the tracer
  turns `live`;
- `off`: the rest of the call runs eagerly, unrecorded (an unstable guard,
  or something that cannot be traced).
"""

from __future__ import annotations

import os

from kerasish.core import backend, nest, philox
from kerasish.core.function import buffers, program
from kerasish.core.function.program import Guard, Instr, Return, Segment
from kerasish.core.tensor import IndexedSlices, Tensor, Variable, convert_to_tensor

_KERASISH_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the frames a recorded op is attributed past: the core, ops and optimizers (not layers or
# models, whose lines are what a user recognises)
_INTERNAL_DIRS = tuple(
    os.path.join(_KERASISH_DIR, part) + os.sep for part in ("core", "optimizers")
) + (os.path.join(_KERASISH_DIR, "random.py"), os.path.join(_KERASISH_DIR, "printing.py"),
     os.path.join(_KERASISH_DIR, "ops.py"), os.path.join(_KERASISH_DIR, "nn.py"))

GUARD_MAX_SIZE = 64  # elements: a larger tensor turned into Python makes the call eager


class NotRepeated(RuntimeError):
    """The Python function did not repeat the recorded computation after a side exit."""


class Tracer:
    """Records (or matches) the ops of one call of a traced function into `concrete`."""

    _is_tracer = True

    def __init__(self, concrete, segment: Segment, mode: str, env=None, expected=None):
        self.concrete = concrete
        self.segment = segment
        self.mode = mode
        self.env = env  # match mode: the values the replay computed
        self.expected = expected  # match mode: [(instr or guard, outcome key)], in order
        self.cursor = 0
        self.slot_of: dict[int, int] = {}  # id(tensor) -> slot
        self.array_slot: dict[int, int] = {}  # id(array) -> slot, for tensors re-wrapped
        self.keep: list = []  # tensors and arrays whose ids are keys above
        self.created: list = []  # variables created while tracing
        self._inner = 0  # > 0 while an effect or draw runs its own ops (not recorded)

    # -- slots --------------------------------------------------------------------------
    def bind(self, tensor, slot: int) -> None:
        self.slot_of[id(tensor)] = slot
        self.array_slot[id(tensor._value)] = slot
        self.keep.append(tensor)

    def _new_slot(self, tensor, origin: str = "") -> int:
        slot = self.concrete.new_slot(tensor._value, origin)
        self.bind(tensor, slot)
        return slot

    def slot(self, tensor) -> int:
        """The slot of an input tensor: known, a live variable, or a new constant."""
        found = self.slot_of.get(id(tensor))
        if found is not None:
            return found
        if tensor.__class__ is Variable:
            slot = self.concrete.variable_slot(tensor)
            self.bind(tensor, slot)
            return slot
        found = self.array_slot.get(id(tensor._value))
        if found is not None:  # the same array re-wrapped (custom_gradient's outputs)
            self.bind(tensor, found)
            return found
        slot = self.concrete.constant_slot(tensor._value)
        self.bind(tensor, slot)
        return slot

    def array_input(self, array, what: str):
        """The slot of a raw array an op produced, or None (and the call turns eager)."""
        found = self.array_slot.get(id(array))
        if found is None:
            self.give_up(f"{what} is an array computed outside the recorded ops")
        return found

    def give_up(self, reason: str) -> None:
        """Run the rest of this call eagerly, and every later call of this signature."""
        self.mode = "off"
        self.concrete.give_up(reason)

    # -- recording ----------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        return self.mode != "off" and not self._inner

    def _emit(self, instr: Instr) -> None:
        self.segment.instrs.append(instr)

    def _expect(self, kind: str, op=None):
        """Match mode: the next recorded step, checked to be the same kind of step."""
        if self.cursor >= len(self.expected):
            raise NotRepeated(f"it ran a {kind} the recorded program does not have")
        step, outcome = self.expected[self.cursor]
        self.cursor += 1
        label = step.how if isinstance(step, Guard) else step.kind
        if label != kind and not (kind == "guard" and isinstance(step, Guard)):
            raise NotRepeated(f"it ran a {kind} where the program recorded a {label}")
        if op is not None and step.op is not op:
            raise NotRepeated(f"it ran `{op.name}` where the program recorded `{step.label}`")
        return step, outcome

    def _record(self, prim, inputs: tuple, output, attrs: dict) -> None:
        """Called by `primitive.apply` after each op ran (the tape protocol)."""
        if self.mode == "off" or self._inner or prim.forward is None:
            return
        outputs = output if prim.multi_output else (output,)
        if self.mode == "match":
            step, _ = self._expect("prim", prim)
            env = self.env
            for tensor, slot in zip(outputs, step.outs):
                if env[slot] is not None:
                    tensor._value = env[slot]  # the replay's value, computed before any update
                else:
                    env[slot] = tensor._value
                self.bind(tensor, slot)
            return
        ins = [self.slot(t) for t in inputs]
        copy = prim.views and any(t.__class__ is Variable for t in inputs)
        # an attribute holding an array an earlier op made (scatter_rows' indices) is read
        # from its slot on replay, not frozen
        attr_slots = [(name, self.array_slot[id(value)]) for name, value in attrs.items()
                      if hasattr(value, "shape") and id(value) in self.array_slot]
        outs = [self._new_slot(o) for o in outputs]
        where = program.user_frame(_INTERNAL_DIRS)
        read = [t._value for t in inputs] + [v for v in attrs.values() if hasattr(v, "shape")]
        fresh = prim.plain and not any(buffers.may_share_memory(output._value, array)
                                       for array in read)
        self._emit(Instr("prim", prim, ins, outs, dict(attrs), where, copy,
                         attr_slots=attr_slots, fresh=fresh))

    def draw(self, make) -> Tensor:
        """A random draw `make()` (an array): recorded to be drawn afresh on every replay."""
        if self.mode == "match":
            step, _ = self._expect("draw")
            tensor = Tensor(self.env[step.outs[0]])
            self.bind(tensor, step.outs[0])
            return tensor
        if not self.recording:
            return Tensor(make())
        self._inner += 1
        drawn_before = philox.device_draws
        try:
            tensor = Tensor(make())
        finally:
            self._inner -= 1
        slot = self._new_slot(tensor, "random draw")
        # a draw from a device stream only (its counter on the device) can be graph-captured
        on_device = philox.device_draws > drawn_before and backend.is_gpu_array(tensor._value)
        self._emit(Instr("draw", make, (), (slot,), where=program.user_frame(_INTERNAL_DIRS),
                         label="random", attrs={"device_stream": True} if on_device else None))
        return tensor

    def check_random(self, what: str) -> None:
        """A random generator used outside a recorded draw: that cannot be replayed."""
        if self.recording:
            self.give_up(f"{what} draws random numbers in a way ks.function cannot record")

    def effect(self, label: str, run, tensors: tuple, eager) -> None:
        """A change of live state: `eager()` now, `run(*arrays of tensors)` on every replay."""
        if self.mode == "match":
            self._expect("effect")
            return
        if not self.recording:
            eager()
            return
        ins = [self.slot(t) for t in tensors]
        self._inner += 1
        try:
            eager()
        finally:
            self._inner -= 1
        self._emit(Instr("effect", run, ins, (), where=program.user_frame(_INTERNAL_DIRS),
                         label=label))

    def update_variable(self, variable: Variable, how: str, value) -> Variable:
        """`variable.assign/assign_add/assign_sub(value)`, recorded as an effect."""
        if self.mode == "off" or self._inner:
            return variable._update(how, variable._converted(value, how))
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value)
        array = variable._converted(value, how)  # errors now, at trace time
        exact = array is value._value

        def run(new):
            variable._update(how, new if exact else variable._converted(Tensor(new), how))

        # an exact assignment is one in-place device update: a CUDA graph can capture it
        run.graph_state = (lambda: (variable._value,)) if exact else None
        self.effect(f"{how}['{variable.name}']", run, (value,),
                    lambda: variable._update(how, array))
        return variable

    def optimizer_update(self, optimizer, pairs: list) -> None:
        """`optimizer.apply_gradients`, recorded as one effect on the gradients' slots: replayed
        with `optimizer.apply_eagerly`, or the optimizer's `replay_plan` once it has one."""
        if self.mode == "off" or self._inner:
            optimizer.apply_eagerly(pairs)
            return
        tensors, specs = [], []
        for grad, var in pairs:
            if isinstance(grad, IndexedSlices):
                indices = grad.indices
                if self.mode == "live" and not isinstance(indices, Tensor):
                    slot = self.array_input(indices, f"the sparse gradient of '{var.name}'")
                    if slot is None:
                        optimizer.apply_eagerly(pairs)
                        return
                    indices = Tensor(indices)
                    self.bind(indices, slot)
                tensors += [convert_to_tensor(grad.values), indices]
                specs.append((var, grad.dense_shape))
            else:
                tensors.append(convert_to_tensor(grad))
                specs.append((var, None))

        def run(*arrays):
            rebuilt, i = [], 0
            for var, dense_shape in specs:
                if dense_shape is None:
                    rebuilt.append((arrays[i], var))
                    i += 1
                else:
                    slices = IndexedSlices(Tensor(arrays[i]), arrays[i + 1], dense_shape)
                    rebuilt.append((slices, var))
                    i += 2
            optimizer.apply_eagerly(rebuilt)

        # an exchange across ranks may reduce the gradients in place (see buffers.handed_over)
        run.takes_handed_over = getattr(optimizer.gradient_exchange, "takes_handed_over", False)
        label = f"{type(optimizer).__name__}.apply[{len(pairs)} variables]"
        variables = [var for var, _ in specs]
        ready = all(shape is None for _, shape in specs) and all(
            t._value.dtype == v._value.dtype and t._value.shape == v._value.shape
            and backend.device_of(t._value) == backend.device_of(v._value)
            for t, v in zip(tensors, variables))
        self.effect(label, run, tuple(tensors), lambda: optimizer.apply_eagerly(pairs))
        # once the slots exist: the update rule on the arrays, without the per-call checks
        plan = optimizer.replay_plan(variables) if ready and self.mode == "live" else None
        if plan is not None and self.segment.instrs and self.segment.instrs[-1].op is run:
            self.segment.instrs[-1].op = plan
            self.segment.instrs[-1].borrows = True  # it reads the gradients, keeps none

    def created_variable(self, variable: Variable, initial_value) -> None:
        """A variable made inside the trace: allowed on a function's first trace only.

        The ops that computed its initial value (an initializer's random draw) ran once,
        as the creation does: they are taken out of the program.
        """
        if not self.recording:
            return
        slot = self.array_slot.get(id(initial_value))
        if slot is not None and slot >= self.concrete.n_inputs:
            self._drop_producers(slot)
        if not self.concrete.owner.may_create_variables:
            where = program.user_frame(_INTERNAL_DIRS)
            raise ValueError(
                f"ks.function '{self.concrete.name}': variable '{variable.name}' was created "
                f"at {where or 'an unknown line'} on a later trace (trace "
                f"{self.concrete.owner.trace_count + 1}); variables can only be created on the "
                "first trace. Create it outside the function, or build layers and optimizer "
                "slots on the first call."
            )
        self.created.append(variable)

    def _drop_producers(self, slot: int) -> None:
        """Remove the ops of the current segment that only served to compute `slot`."""
        pending, read_later, removed = {slot}, set(), set()
        instrs = self.segment.instrs
        for i in range(len(instrs) - 1, -1, -1):
            instr = instrs[i]
            if (instr.kind in ("prim", "draw") and all(o in pending for o in instr.outs)
                    and not any(o in read_later for o in instr.outs)):
                del instrs[i]
                pending.update(instr.reads())
                removed.update(instr.outs)
            else:
                read_later.update(instr.reads())
        for table in (self.slot_of, self.array_slot):  # later uses see a constant
            for key in [key for key, found in table.items() if found in removed]:
                del table[key]

    # -- guards -------------------------------------------------------------------------
    def guard(self, tensor) -> None:
        """A tensor becomes a Python value: the program branches on its value here."""
        if self.mode == "off" or self._inner:
            return
        slot = self.slot_of.get(id(tensor))
        if slot is None and tensor.__class__ is Variable:
            slot = self.slot(tensor)
        if slot is None or slot in self.concrete.constants:
            return  # a constant: always the same value
        value = tensor._value
        key = backend.to_numpy(value).tobytes()
        if self.mode == "match":
            step, outcome = self._expect("guard")
            if step.slot != slot:
                raise NotRepeated("it converted a different tensor to a Python value")
            if self.cursor < len(self.expected):
                if key != outcome:
                    raise NotRepeated("a converted value differs from the recorded one")
                return
            self._branch(step, key)  # the guard that exited: record what follows
            return
        if value.size > GUARD_MAX_SIZE:
            self.give_up(
                f"a tensor of shape {tuple(value.shape)} is turned into a Python value at "
                f"{program.user_frame(_INTERNAL_DIRS) or 'an unknown line'}, which is too "
                "large to check on every call"
            )
            return
        guard = Guard(slot, program.user_frame(_INTERNAL_DIRS), _how(tensor))
        self.segment.end = guard
        self._branch(guard, key)

    def _branch(self, guard: Guard, key: bytes) -> None:
        if guard.unstable:
            if not guard.warned:
                guard.warned = True
                import warnings

                warnings.warn(
                    f"ks.function '{self.concrete.name}': the value converted to Python at "
                    f"{guard.where} took more than {Guard.MAX_OUTCOMES} different values; "
                    "calls meeting a new one run eagerly from there (pass such values as "
                    "arguments, or keep them as tensors)",
                    RuntimeWarning,
                    stacklevel=2,
                )
            self.mode = "off"
            return
        segment = self.concrete.new_segment()
        guard.children[key] = segment
        if len(guard.children) >= Guard.MAX_OUTCOMES:
            guard.unstable = True
        self.segment = segment
        self.mode = "live"

    # -- results ------------------------------------------------------------------------
    def finish(self, result) -> None:
        """Record the function's result as the current segment's Return."""
        leaves = []
        for leaf in nest.flatten(result):
            if leaf.__class__ is Variable:
                leaves.append(("value", leaf))
            elif isinstance(leaf, Tensor):
                leaves.append(("slot", self.slot(leaf)))
            elif isinstance(leaf, IndexedSlices):
                indices = leaf.indices
                index_slot = (self.slot(indices) if isinstance(indices, Tensor)
                              else self.array_input(indices, "a returned IndexedSlices' indices"))
                if index_slot is None:
                    return
                leaves.append(("slices", self.slot(leaf.values), index_slot, leaf.dense_shape))
            else:
                leaves.append(("value", leaf))
        self.segment.end = Return(result, leaves)


def _how(tensor) -> str:
    value = tensor._value
    if value.dtype.kind == "b" and value.size == 1:
        return "bool"
    return "value"
