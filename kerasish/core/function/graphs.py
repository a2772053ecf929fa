"""CUDA-graph replay of `ks.function` programs on the GPU.

A replayed GPU step is bound by its launches: each op is a kernel of a few
microseconds and some microseconds of Python and CuPy around it. Captured once
as a CUDA graph (CuPy's stream capture), the program's kernels run as one
launch, and each later call is: copy the arguments into the graph's own input
arrays, run the effects' host side (step counters, versions, the update rules'
per-step numbers), copy those numbers to the device, launch the graph, copy
the results out.

A program is captured when (`capture_reason` says why not, and the listing shows it):

- it is one segment: a guard (a tensor turned into a Python value) needs the
  value on the host, so a program with guards replays without a graph;
- it serves one signature (not `reduce_retracing`'s several shapes);
- every array an op reads or makes is on the GPU (an array read from the host
  would be copied in once, at capture);
- every effect is an in-place device update whose host side is known: an
  optimizer's update rules (their per-step numbers are read from device memory,
  see `optimizers/rules.py`) or an exact variable assignment. `ks.print`,
  summaries and gradient exchanges run on the host on every call;
- every random draw comes from a device's counter-based stream
  (`core/philox.py`): the graph advances the counter on the device, so each
  replay draws new numbers, the ones eager and the plain replay would draw
  (a `ks.random.Generator` draws on the host).

The capture runs the program once with its effects in "capture" mode
(`backend.graph_state`: they launch their device work and change no host
state) on a side stream, allocating from a memory pool of the graph's own, so
every array the graph writes keeps its address for the graph's life. If the
capture fails (an op that waits for the host), the program keeps the plain
replay and the reason is recorded. A graph is used while the variables and
optimizer slots it updates keep their arrays and the random streams are not
reseeded; otherwise it is captured again at the next call (after
`MAX_CAPTURES`, the plain replay takes over). Results are those of the plain
replay bit for bit: the same kernels in the same order, reading the same numbers.

`KERASISH_CUDA_GRAPHS=0` in the environment (or `enable(False)`) turns capture off.
"""

from __future__ import annotations

import os

import numpy as np

from kerasish.core import backend, philox
from kerasish.core.function.program import Return
from kerasish.core.tensor import IndexedSlices, Tensor

MAX_CAPTURES = 3  # captures of one program before it keeps the plain replay
SCALAR_CAPACITY = 1 << 14  # per-step numbers of update rules one graph can hold
_enabled = os.environ.get("KERASISH_CUDA_GRAPHS", "1").strip() != "0"


def enable(flag: bool = True) -> None:
    """Capture GPU programs as CUDA graphs (the default) or not; programs captured
    before keep their graphs."""
    global _enabled
    _enabled = bool(flag)


def enabled() -> bool:
    return _enabled


def capture_reason(concrete) -> str | None:
    """Why `concrete`'s program cannot be replayed as a CUDA graph, or None if it can.

    Decided from the recorded program alone (no GPU needed), so it is tested on the CPU.

    Args:
        concrete: a compiled `ConcreteFunction`.

    Returns:
        A sentence naming the obstacle and where it was recorded, or None.
    """
    on_gpu = concrete.gpu_slots
    if not on_gpu:
        return "the program runs on the CPU"
    if concrete.eager_reason is not None or concrete.root.end is None:
        return "the program runs eagerly"
    if concrete.owner._relaxes:
        return "the program serves several input shapes (reduce_retracing or None dimensions)"
    root = concrete.root
    if not isinstance(root.end, Return):
        return (f"a tensor is turned into a Python value at {root.end.where or 'a line'} "
                "(a guard), which the host must read on every call")
    for slot in range(concrete.n_inputs):
        if slot not in on_gpu:
            return f"argument {slot} is a host array"
    fixed = set(concrete.constants) | set(concrete.folded)  # (0-d ones: kernel arguments)
    changed = False  # an effect came earlier in the program
    for instr in root.code:
        where = f" at {instr.where}" if instr.where else ""
        if instr.kind == "effect":
            if getattr(instr.op, "graph_state", None) is None:
                return f"`{instr.label}`{where} runs on the host on every call"
            changed = True
        elif instr.kind == "draw":
            if not instr.attrs.get("device_stream"):
                return (f"the random draw{where} is made on the host (a ks.random.Generator); "
                        "draw with seed=None or an integer to draw on the GPU")
        elif instr.kind == "prim":
            if changed and instr.op.device_check is not None:
                return (f"`{instr.label}`{where} checks its input after a change of state (a "
                        "graph checks inputs before the first variable update)")
            for slot in instr.reads() + instr.outs:
                if slot not in on_gpu and not (slot in fixed
                                               and concrete.slot_info[slot][0] == ()):
                    return f"`{instr.label}`{where} reads or makes a host array (%{slot})"
    for kind, *data in root.end.leaves:
        if kind == "slot" and data[0] not in on_gpu:
            return f"the result %{data[0]} is a host array"
        if kind == "slices":
            return "the result holds IndexedSlices"
    return None


def run_instructions(code: list, env: list, checks: list) -> None:
    """Run `code` on `env` one instruction at a time, as the capture records it.

    The plain replay's generated function (`program.compile_segment`) is not used: a capture
    runs once, may stop at the first change of state (below), and computes each op with a
    host-side check (`Primitive.device_check`: index ranges, whole-number ids) without
    reading the device, appending `(instruction, device flag)` to `checks`.
    """
    for instr in code:
        if instr.kind == "alias":
            env[instr.outs[0]] = env[instr.ins[0]]
            continue
        args = [env[s] for s in instr.ins]
        kwargs = {name: env[s] for name, s in instr.attr_slots}
        if instr.kind == "effect":
            instr.op(*args, **kwargs)
            continue
        if instr.kind == "draw":
            env[instr.outs[0]] = instr.op()
            continue
        check = instr.op.device_check
        if check is None:
            result = instr.callable()(*args, **kwargs)
        else:
            fixed = {k: v for k, v in instr.attrs.items() if k not in kwargs}
            result, flag = check(*args, **fixed, **kwargs)
            checks.append((instr, flag))
        if len(instr.outs) > 1:
            for slot, value in zip(instr.outs, result):
                env[slot] = value
        else:
            env[instr.outs[0]] = result.copy() if instr.copy else result


def split_at_first_effect(code: list) -> int:
    """Where a program with checks is cut in two graphs: its first change of state (the
    first part is pure, so a failed check stops the call before anything changed)."""
    return next((i for i, instr in enumerate(code) if instr.kind == "effect"), len(code))


class CapturedProgram:
    """One program captured as CUDA graphs, with the arrays they read and write.

    A program whose ops check their inputs on the host (`Primitive.device_check`) is
    captured as two graphs: the ops before its first change of state, which also compute
    the checks' flags on the device, and the rest. A call launches the first, runs the
    effects' host side while the GPU works, reads the flags (a wait for that part), and
    if one is set undoes the host side and raises the op's own error (nothing on the
    device has changed yet, as in eager); else it launches the second graph.
    A check after a change of state is not captured. Raises `backend.NotCapturable`
    (with the reason) when the capture fails.
    """

    def __init__(self, concrete, arrays: list):
        cupy = backend.cupy
        segment = concrete.root
        self.name = concrete.name
        self.pool = cupy.cuda.MemoryPool()  # the graph's own: its arrays keep their addresses
        self.stream = cupy.cuda.Stream(non_blocking=True)
        with cupy.cuda.using_allocator(self.pool.malloc):
            self.inputs = [cupy.empty(a.shape, a.dtype) for a in arrays]
            scalars = cupy.zeros(SCALAR_CAPACITY, np.float64)
        env = concrete._template[:]
        env[: concrete.n_inputs] = self.inputs
        self.variables = concrete._variable_pairs
        for slot, variable in self.variables:
            env[slot] = variable._value
        self.arrays_of_variables = tuple(variable._value for _, variable in self.variables)
        code = segment.code
        self.effects = [(instr.op, instr.ins) for instr in code if instr.kind == "effect"]
        self.effect_arrays = [op.graph_state() for op, _ in self.effects]
        self.reseeds = philox.reseeds
        cut = split_at_first_effect(code)
        checked_first = any(instr.kind == "prim" and instr.op.device_check is not None
                            for instr in code[:cut])
        # with checks before the first change of state: two graphs, else one
        pieces = [code[:cut], code[cut:]] if checked_first else [code]
        self.checks: list = []
        self.flags = None
        graphs = []
        state = backend.graph_state
        state.mode, state.scalars, state.position = "capture", scalars, 0
        try:
            with cupy.cuda.using_allocator(self.pool.malloc), self.stream:
                for number, piece in enumerate(pieces):
                    if not piece:
                        continue
                    self.stream.begin_capture()
                    try:
                        run_instructions(piece, env, self.checks)
                        if checked_first and number == 0:
                            self.flags = cupy.stack([flag for _, flag in self.checks])
                    finally:
                        graphs.append(self.stream.end_capture())
        except backend.NotCapturable:
            raise
        except Exception as exc:  # noqa: BLE001 - the program keeps its plain replay
            raise backend.NotCapturable(
                f"capturing it failed ({type(exc).__name__}: {exc})") from None
        finally:
            count = state.position
            state.mode, state.scalars, state.position = None, None, 0
        if count > SCALAR_CAPACITY:
            raise backend.NotCapturable(f"its update rules need {count} numbers per step, "
                                        f"more than {SCALAR_CAPACITY}")
        self.first = graphs[0] if checked_first else None
        self.graphs = graphs[1:] if checked_first else graphs
        self.env = env
        self.end = segment.end
        self.returned = sorted(self.end.slots())
        self.results = [None] * concrete.n_slots
        # per-step numbers: written on the host into pinned memory, copied before each
        # launch; two buffers, each reused only once its last copy has finished
        self.n_scalars = count
        self.scalars = scalars[:count]
        self.host = []
        for _ in range(2 if count else 0):
            memory = cupy.cuda.alloc_pinned_memory(count * 8)
            self.host.append((memory, np.frombuffer(memory, np.float64, count),
                              cupy.cuda.Event(block=False, disable_timing=True)))
        self.turn = 0

    def stale(self) -> str | None:
        """Why the graph no longer fits the live state (captured again then), or None."""
        if philox.reseeds != self.reseeds:
            return "the random streams were reseeded"
        for (_, variable), array in zip(self.variables, self.arrays_of_variables):
            if variable._value is not array:
                return f"variable '{variable.name}' holds a new array"
        for (op, _), arrays in zip(self.effects, self.effect_arrays):
            now = op.graph_state()
            if now is None:
                return "an optimizer now exchanges its gradients on the host"
            if len(now) != len(arrays) or any(a is not b for a, b in zip(now, arrays)):
                return "an optimizer's variables or slots hold new arrays"
        return None

    def launch(self, arrays: list):
        """Run one call: inputs in, (the checked part and its checks,) the host side of the
        effects, the graph, results out."""
        for buffer, array in zip(self.inputs, arrays):
            if not backend.is_gpu_array(array):
                buffer.set(array)
            elif array.flags.c_contiguous:
                buffer.data.copy_from_device_async(array.data, array.nbytes)
            else:
                buffer[...] = array
        if self.first is not None:
            self.first.launch()
        undo = self._host_side()  # (while the GPU runs the checked part)
        if self.first is not None:
            failed = self.flags.get()  # (waits for the checked part)
            if failed.any():
                for restore in reversed(undo):
                    restore()
                self._raise_check(int(failed.argmax()))
        for graph in self.graphs:
            graph.launch()
        results, env = self.results, self.env
        for slot in self.returned:  # (the graph rewrites its arrays on the next call)
            value = env[slot]
            if value.flags.c_contiguous:
                copy = backend.cupy.empty(value.shape, value.dtype)
                copy.data.copy_from_device_async(value.data, value.nbytes)
            else:  # a view (a slice, a broadcast): copied element by element
                copy = value.copy()
            results[slot] = copy
        return self.end.build(results, Tensor, IndexedSlices)

    def _host_side(self) -> list:
        """The effects' host side (step counts, versions, the update rules' per-step numbers,
        copied to the device behind the checked part); returns the callables that undo it."""
        if not self.effects:
            return []
        env, state = self.env, backend.graph_state
        if self.n_scalars:
            memory, host, copied = self.host[self.turn]
            copied.synchronize()  # (the copy from this buffer two calls ago)
            state.host_scalars = host
        state.mode, state.position, state.undo = "host", 0, []
        try:
            for op, ins in self.effects:
                op(*[env[s] for s in ins])
            undo = state.undo
        finally:
            state.mode, state.host_scalars, state.undo = None, None, None
        if self.n_scalars:
            self.scalars.data.copy_from_host_async(memory.ptr, self.n_scalars * 8)
            copied.record()
            self.turn ^= 1
        return undo

    def _raise_check(self, index: int):
        """The error of the failed check: its op run on the host on this call's values."""
        instr = self.checks[index][0]
        kwargs = {name: self.env[s] for name, s in instr.attr_slots}
        where = f" recorded at {instr.where}" if instr.where else ""
        try:
            instr.callable()(*[self.env[s] for s in instr.ins], **kwargs)
        except Exception as exc:  # noqa: BLE001 - re-raised with the program's name
            raise type(exc)(f"ks.function '{self.name}': {instr.label}{where} failed when "
                            f"replayed: {exc}") from None
        raise AssertionError(f"{instr.label}: its device check failed but its host check "
                             "passed")


def replay(concrete, arrays: list):
    """Run `concrete` on `arrays` through its CUDA graph (capturing it first if needed);
    returns `PLAIN` when the plain replay must run instead."""
    captured = concrete.graph
    if captured is not None:
        why = captured.stale()
        if why is None:
            return captured.launch(arrays)
        concrete.graph = None
        concrete.graph_status = f"captured again: {why}"
    if concrete.graph_captures >= MAX_CAPTURES:
        concrete.graph_reason = (f"its graph went stale {MAX_CAPTURES} times (last: "
                                 f"{concrete.graph_status})")
        return PLAIN
    try:
        captured = CapturedProgram(concrete, arrays)
    except backend.NotCapturable as exc:
        concrete.graph_reason = str(exc)
        return PLAIN
    concrete.graph = captured
    concrete.graph_captures += 1
    concrete.graph_status = "replayed as a CUDA graph"
    return captured.launch(arrays)


PLAIN = object()  # `replay`'s answer when the program runs without a graph
