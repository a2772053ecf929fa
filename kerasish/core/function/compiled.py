"""`ks.function`: trace a Python function once per signature, then replay its program.

See the package docstring for what is recorded and how guards work; this
module holds the user-facing `Function` (signatures, the cache of programs,
methods, retracing warnings) and `ConcreteFunction` (one signature's program
and its replay).
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref

import numpy as np

from kerasish.core import backend, nest, primitive, recording
from kerasish.core.errors import KerasishError
from kerasish.core.function import fusion, graphs, program
from kerasish.core.function.program import Guard, Return, Segment
from kerasish.core.function.tracer import NotRepeated, Tracer
from kerasish.core.tensor import IndexedSlices, Tensor, Variable, as_dtype

RETRACE_WARNING_AFTER = 5  # signatures of one function before the retracing warning
CHECK_ATTEMPTS = 8  # calls that may retrace to compare before a program is taken as it is
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


class _SideExit(Exception):
    """A guard met an outcome with no recorded segment."""

    def __init__(self, guard: Guard, env: list):
        super().__init__()
        self.guard = guard
        self.env = env


class ConcreteFunction:
    """The program traced for one signature: a tree of segments, and how to replay it.

    Attributes:
        name: the traced function's name.
        n_inputs: how many tensor arguments fill the first slots.
        constants: slot -> array, captured while tracing.
        variables: slot -> the live `Variable` read there.
        eager_reason: why calls with this signature run eagerly, or None.
    """

    def __init__(self, owner: Function, key, inputs: list):
        self.owner = owner
        self.name = owner.__name__
        self.key = key
        self.n_inputs = len(inputs)
        self.n_slots = 0
        self.slot_info: dict[int, tuple] = {}
        self.gpu_slots: set[int] = set()  # slots whose arrays were CuPy arrays when traced
        self.constants: dict[int, object] = {}
        self.folded: dict[int, object] = {}
        self.variables: dict[int, Variable] = {}
        self._variable_slots: dict[int, int] = {}
        self._constant_slots: dict[int, int] = {}
        self._segments: list[Segment] = []
        self.eager_reason: str | None = None
        self._warned = True  # (set False by give_up: warn_if_eager then warns once)
        for tensor in inputs:
            self.new_slot(tensor._value, "input")
        self.root = self.new_segment()
        self._template: list = []
        self._variable_pairs: tuple = ()
        # the first replayable call traces again and compares (see `Function._check`)
        self.checked = False
        self.check_attempts = 0
        self.built_variables = False  # this trace also created variables (lazy builds)
        # CUDA-graph replay (see graphs.py): the captured graph, why the program has none,
        # what happened to it, and how many times it was captured
        self.graph = None
        self.graph_reason: str | None = None
        self.graph_status = "not captured yet"
        self.graph_captures = 0
        self._wants_graph = False

    # -- building (used by the tracer) ---------------------------------------------------
    def new_slot(self, array, origin: str = "") -> int:
        slot = self.n_slots
        self.n_slots += 1
        self.slot_info[slot] = (tuple(array.shape), array.dtype, origin)
        if backend.is_gpu_array(array):
            self.gpu_slots.add(slot)
        return slot

    def variable_slot(self, variable: Variable) -> int:
        slot = self._variable_slots.get(id(variable))
        if slot is None:
            slot = self._variable_slots[id(variable)] = self.new_slot(variable._value, "variable")
            self.variables[slot] = variable
        return slot

    def constant_slot(self, array) -> int:
        slot = self._constant_slots.get(id(array))
        if slot is None:
            slot = self._constant_slots[id(array)] = self.new_slot(array, "constant")
            self.constants[slot] = array
        return slot

    def new_segment(self) -> Segment:
        segment = Segment(len(self._segments))
        self._segments.append(segment)
        return segment

    def segments(self) -> list:
        return list(self._segments)

    def give_up(self, reason: str, quietly: bool = False) -> None:
        """Make this signature run eagerly (`warn_if_eager` says so, once, unless `quietly`:
        a reason the caller cannot act on)."""
        if self.eager_reason is None:
            self.eager_reason = reason
            self._warned = quietly

    def warn_if_eager(self) -> None:
        if self.eager_reason is not None and not self._warned:
            self._warned = True
            warnings.warn(
                f"ks.function '{self.name}': {self.eager_reason}; calls with this signature "
                "run eagerly",
                RuntimeWarning,
                stacklevel=4,  # the line calling the compiled function
            )

    def prune(self) -> None:
        """Drop branches whose tracing did not finish (it raised)."""
        for segment in self._segments:
            if isinstance(segment.end, Guard):
                for key, child in list(segment.end.children.items()):
                    if child.end is None:
                        del segment.end.children[key]

    def compile(self) -> None:
        """Optimise and compile every finished segment; refresh the slot template."""
        variable_slots = set(self.variables)
        pending = [(self.root, {})]  # parents first: a branch reuses what its path computed
        while pending:
            segment, seen = pending.pop()
            if segment.end is None:
                continue
            code, seen = program.optimise(segment, self.constants, self.folded, variable_slots,
                                          seen)
            if self.gpu_slots and isinstance(segment.end, Return):
                code = fusion.fuse(code, segment.end.slots(), self.slot_info, self.gpu_slots)
            # a program serving several shapes (reduce_retracing) reuses no buffers
            program.compile_segment(segment, code, None if self.owner._relaxes else self.slot_info)
            pending.extend((child, seen) for child in segment.children())
        template = [None] * self.n_slots
        for slot, value in self.constants.items():
            template[slot] = value
        for slot, value in self.folded.items():
            template[slot] = value
        self._template = template
        self._variable_pairs = tuple(self.variables.items())
        self.graph = None
        self.graph_reason = graphs.capture_reason(self)
        self._wants_graph = self.graph_reason is None and graphs.enabled()

    # -- replay -------------------------------------------------------------------------
    def replay(self, arrays: list):
        """Run the program on the input arrays; raises `_SideExit` at an unknown outcome."""
        if self._wants_graph:
            result = graphs.replay(self, arrays)
            if result is not graphs.PLAIN:
                return result
            self._wants_graph = False
        env = self._template[:]
        env[: self.n_inputs] = arrays
        for slot, variable in self._variable_pairs:
            env[slot] = variable._value
        segment = self.root
        try:
            while True:
                segment.run(env)
                end = segment.end
                if end.__class__ is Return:
                    return end.build(env, Tensor, IndexedSlices)
                child = end.children.get(env[end.slot].tobytes())
                if child is None:
                    raise _SideExit(end, env)
                segment = child
        except _SideExit:
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised, naming the recorded line
            raise self._replay_error(segment, exc, env) from exc

    def _replay_error(self, segment: Segment, exc: Exception, env: list) -> Exception:
        instr = program.failing_instr(segment, exc.__traceback__)
        if instr is None:
            return exc
        where = f" recorded at {instr.where}" if instr.where else ""
        prefix = f"ks.function '{self.name}': {instr.label}{where} failed when replayed: "
        if instr.kind == "prim" and not isinstance(exc, KerasishError):
            inputs = [Tensor(env[s]) for s in instr.ins]
            error = primitive.op_error(instr.op, exc, inputs, instr.attrs)
        else:
            error = exc
        try:
            return type(error)(prefix + str(error))
        except TypeError:
            return error

    def path_to(self, guard: Guard, env: list) -> list:
        """The recorded steps from the start to `guard`, with the outcomes the replay took."""
        expected, segment = [], self.root
        while True:
            expected.extend((instr, None) for instr in segment.instrs)
            end = segment.end
            if end is guard:
                expected.append((guard, None))
                return expected
            key = env[end.slot].tobytes()
            expected.append((end, key))
            segment = end.children[key]

    # -- introspection ------------------------------------------------------------------
    @property
    def replay_kind(self) -> str:
        """How calls are replayed: as a CUDA graph, or plainly and why (see graphs.py)."""
        if self.eager_reason is not None:
            return f"eagerly: {self.eager_reason}"
        if self.graph is not None:
            return "as a CUDA graph"
        if self.graph_reason is not None:
            return f"plain replay: {self.graph_reason}"
        if not graphs.enabled():
            return "plain replay: CUDA graphs are turned off (KERASISH_CUDA_GRAPHS=0)"
        return "as a CUDA graph from its next call"

    def signature_text(self) -> str:
        inputs = ", ".join(program.slot_type(self.slot_info, s) for s in range(self.n_inputs))
        branches = sum(1 for s in self._segments if isinstance(s.end, Return))
        ops = sum(len(s.code) for s in self._segments)
        return f"({inputs}) -> {branches} branch(es), {len(self._segments)} segment(s), {ops} ops"

    def pretty_printed_program(self) -> str:
        """The program as text: inputs, variables, constants, each segment's ops and guards."""
        return program.listing(self)

    def __str__(self) -> str:
        return self.pretty_printed_program()

    def __repr__(self) -> str:
        return f"<ks.ConcreteFunction {self.name}{self.signature_text()}>"


class Function:
    """A Python function compiled by `ks.function`; see `function` for the behaviour.

    Attributes:
        trace_count: how many times the Python function was traced (a new
            signature, or a new outcome of a guard).
    """

    def __init__(self, fn, input_signature=None, reduce_retracing: bool = False):
        functools.update_wrapper(self, fn)
        self._python_function = fn
        self._instance = None  # for a method: a weak reference to its instance
        self.input_signature = None if input_signature is None else list(input_signature)
        self.reduce_retracing = bool(reduce_retracing)
        self._concrete: dict = {}
        self._bound = weakref.WeakKeyDictionary()
        self.trace_count = 0
        self.may_create_variables = False
        self._retrace_warned = False
        self._keys: list = []
        # shape-generic programs (reduce_retracing, or None dimensions in input_signature):
        # relaxed signature -> the program, and the relaxed signatures found not generic
        self._relaxes = self.reduce_retracing or any(
            None in tuple(getattr(spec, "shape", ()) or ()) for spec in self.input_signature or ())
        self._generic: dict = {}
        self._not_generic: set = set()
        self._discarded = False  # a first trace dropped because it failed while building

    # -- methods ------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # unhashable or no weak references: no cache
            bound = None
        if bound is None:
            bound = Function(self._python_function, self.input_signature,
                             self.reduce_retracing)
            try:  # weakly: the cache must not keep the instance alive
                bound._instance = weakref.ref(instance)
            except TypeError:
                bound = Function(self._python_function.__get__(instance, owner),
                                 self.input_signature, self.reduce_retracing)
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    @property
    def python_function(self):
        """The original Python function (bound to its instance, for a method)."""
        if self._instance is not None:
            return self._python_function.__get__(self._instance())
        return self._python_function

    def _call_python(self, args, kwargs):
        if self._instance is not None:
            return self._python_function(self._instance(), *args, **kwargs)
        return self._python_function(*args, **kwargs)

    # -- calls --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if recording.is_recording():
            # under a GradientTape the ops must reach it, and inside another trace they
            # belong to that program: run the Python function (TF inlines it the same way)
            return self._call_python(args, kwargs)
        if self.input_signature is not None:
            self._check_signature(args)
        arrays: list = []
        key = (_key(args, arrays), _key(kwargs, arrays) if kwargs else ())
        concrete = self._concrete.get(key)
        if concrete is None:
            if self._relaxes:
                return self._trace_relaxed(key, args, kwargs)
            return self._trace(key, args, kwargs)
        if concrete.eager_reason is not None:
            return self._call_python(args, kwargs)
        if not concrete.checked:
            return self._check(concrete, key, args, kwargs)
        try:
            return concrete.replay(arrays)
        except _SideExit as side_exit:
            return self._resume(concrete, side_exit, args, kwargs)

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The program for these arguments' signature, tracing it (by calling) if needed."""
        arrays: list = []
        key = (_key(args, arrays), _key(kwargs, arrays) if kwargs else ())
        if key not in self._concrete:
            self(*args, **kwargs)
        return self._concrete[key]

    def concrete_functions(self) -> list:
        """Every program traced so far (one may serve several signatures)."""
        return list({id(c): c for c in self._concrete.values()}.values())

    def _live_trace(self, key, args, kwargs):
        """A new program for signature `key` and a live tracer with this call's tensors bound
        as its inputs; returns both and the arguments to run the function on."""
        tensors: list = []
        args, kwargs = _as_tensors(args, tensors), _as_tensors(kwargs, tensors)
        concrete = ConcreteFunction(self, key, tensors)
        tracer = Tracer(concrete, concrete.root, "live")
        for slot, tensor in enumerate(tensors):
            tracer.bind(tensor, slot)
        return concrete, tracer, args, kwargs

    def _trace(self, key, args, kwargs):
        concrete, tracer, args, kwargs = self._live_trace(key, args, kwargs)
        self.may_create_variables = self.trace_count == 0 and not self._discarded
        try:
            result = self._run(tracer, args, kwargs)
        finally:
            self.may_create_variables = False
        if concrete.eager_reason is not None and tracer.created and not self._discarded:
            # it failed while building (an initializer converting a matrix to NumPy): that
            # happens once, so the next call traces again, with everything built
            self._discarded = True
            return result
        self.trace_count += 1
        concrete.built_variables = bool(tracer.created)
        self._concrete[key] = concrete
        concrete.compile()
        concrete.warn_if_eager()
        self._note_signature(key)
        return result

    def _relaxed_key(self, args, kwargs):
        """The signature with the dimensions allowed to vary left out."""
        specs = self.input_signature
        relaxed = []
        for i, arg in enumerate(args):
            key = _key(arg, [])
            if specs is not None and i < len(specs) and isinstance(key, tuple) and len(key) == 3:
                want = tuple(specs[i].shape)
                key = (tuple(None if w is None else d for w, d in zip(want, key[0])),) + key[1:]
            elif self.reduce_retracing:
                key = _rank_only(key)
            relaxed.append(key)
        kwargs_key = _rank_only(_key(kwargs, [])) if self.reduce_retracing else _key(kwargs, [])
        return tuple(relaxed), kwargs_key

    def _trace_relaxed(self, key, args, kwargs):
        """A new signature whose relaxed form has a program: replay that program if tracing
        this call gives the same program (ops, attributes, constants, draw shapes); else
        keep the new trace as the program for this signature alone."""
        relaxed = self._relaxed_key(args, kwargs)
        generic = self._generic.get(relaxed)
        if relaxed in self._not_generic or generic is None or generic.eager_reason:
            result = self._trace(key, args, kwargs)
            self._generic.setdefault(relaxed, self._concrete[key])
            return result
        again, tracer, args, kwargs = self._live_trace(key, args, kwargs)
        result = self._run(tracer, args, kwargs)
        if _compare(generic, again, shapes=True) is True:
            self._concrete[key] = generic  # one program for both shapes
        else:
            self._not_generic.add(relaxed)
            self.trace_count += 1
            self._concrete[key] = again
            again.compile()
            again.warn_if_eager()
        return result

    def _check(self, concrete: ConcreteFunction, key, args, kwargs):
        """Trace this call afresh and compare with the program: a constant that differs
        between the two was computed from the data by code outside the recorded ops (an
        index array made with NumPy, say), and the signature then runs eagerly."""
        again, tracer, args, kwargs = self._live_trace(key, args, kwargs)
        result = self._run(tracer, args, kwargs)
        if again.eager_reason is not None:
            concrete.give_up(again.eager_reason)
            concrete.warn_if_eager()
            return result
        concrete.check_attempts += 1
        verdict = _compare(concrete, again)
        if verdict is None and concrete.built_variables:
            # the first trace also built layers: their initial values were taken out of its
            # program, which numbers its slots apart from every later trace's; this trace is
            # the program from now on, and the next call checks it
            again.compile()
            self._concrete[key] = again
            return result
        if verdict is True or concrete.check_attempts >= CHECK_ATTEMPTS:
            concrete.checked = True
        elif verdict is not None:
            strings = _takes_strings(args, kwargs)  # (a string lookup's ids: no warning,
            # since the user has nothing to change)
            concrete.give_up(verdict + ("; the function takes strings, which Python code turns "
                                        "into numbers outside the recorded ops" if strings
                                        else ""), quietly=strings)
            concrete.warn_if_eager()
        return result

    def _resume(self, concrete: ConcreteFunction, side_exit: _SideExit, args, kwargs):
        """Run the Python function again, matching the replayed steps, and trace the rest."""
        tensors: list = []
        args, kwargs = _as_tensors(args, tensors), _as_tensors(kwargs, tensors)
        env = side_exit.env
        expected = concrete.path_to(side_exit.guard, env)
        tracer = Tracer(concrete, None, "match", env, expected)
        for slot, tensor in enumerate(tensors):
            tracer.bind(tensor, slot)
        try:
            result = self._run(tracer, args, kwargs)
        except NotRepeated as exc:
            concrete.prune()
            raise RuntimeError(
                f"ks.function '{self.__name__}': after a guard at {side_exit.guard.where} took "
                f"a new value, running the Python function again did not repeat the recorded "
                f"computation ({exc}). The function depends on Python state that changed "
                "between calls: pass such values as arguments."
            ) from None
        if tracer.mode == "match":
            raise RuntimeError(
                f"ks.function '{self.__name__}': after a guard at {side_exit.guard.where} took "
                "a new value, running the Python function again never reached that guard"
            )
        self.trace_count += int(tracer.segment is not None and tracer.segment.end is not None)
        concrete.compile()
        concrete.warn_if_eager()
        return result

    def _run(self, tracer: Tracer, args, kwargs):
        try:
            with recording.tracing(tracer):
                result = self._call_python(args, kwargs)
        except BaseException:
            tracer.concrete.prune()
            raise
        if tracer.mode == "live":
            tracer.finish(result)
        return result

    # -- signatures -----------------------------------------------------------------------
    def _check_signature(self, args) -> None:
        specs = self.input_signature
        if len(args) != len(specs):
            raise TypeError(
                f"ks.function '{self.__name__}': input_signature has {len(specs)} entries but "
                f"the call has {len(args)} positional arguments"
            )
        for i, (arg, spec) in enumerate(zip(args, specs)):
            shape = tuple(getattr(arg, "shape", ()))
            dtype = as_dtype(getattr(arg, "dtype", None))
            want = tuple(spec.shape)
            fits = len(shape) == len(want) and all(w is None or w == d
                                                   for w, d in zip(want, shape))
            spec_dtype = as_dtype(spec.dtype)
            if not fits or (spec_dtype is not None and dtype != spec_dtype):
                raise TypeError(
                    f"ks.function '{self.__name__}': argument {i} has shape {shape} and dtype "
                    f"{dtype}, which does not fit input_signature[{i}] (shape "
                    f"{list(want)}, dtype {spec_dtype})"
                )

    def _note_signature(self, key) -> None:
        self._keys.append(key)
        if self._retrace_warned or len(self._keys) <= RETRACE_WARNING_AFTER:
            return
        self._retrace_warned = True
        changing = _changing_argument(self.python_function, self._keys)
        warnings.warn(
            f"ks.function '{self.__name__}' was traced {len(self._keys)} times for different "
            f"signatures{changing}; each new signature runs the Python function again. Pass "
            "tensors of one shape, or Python values that stay the same, between calls.",
            RuntimeWarning,
            stacklevel=3,
        )

    def __repr__(self) -> str:
        return f"<ks.function {self.__name__}: {len(self.concrete_functions())} program(s)>"


def _rank_only(key):
    """A signature with each tensor's shape replaced by its rank (reduce_retracing)."""
    if isinstance(key, tuple) and len(key) == 3 and isinstance(key[0], tuple) and all(
            isinstance(d, int) for d in key[0]) and isinstance(key[1], str):
        return (("rank", len(key[0])),) + key[1:]
    if isinstance(key, tuple):
        return tuple(_rank_only(k) for k in key)
    return key


def _compare(first: ConcreteFunction, again: ConcreteFunction, shapes: bool = False):
    """True if `again` (one path) repeats the first trace's path; a reason if it does not;
    None when it took a guard outcome the first trace did not (nothing to compare yet).

    With `shapes`, `again` was traced for other input shapes: random draws must also have
    the same shapes (a draw's shape is part of its recorded call).
    """
    mine, theirs = first.root, again.root
    while True:
        if len(mine.instrs) != len(theirs.instrs):
            return None
        for a, b in zip(mine.instrs, theirs.instrs):
            same = (a.kind == b.kind and a.label == b.label and a.ins == b.ins
                    and a.outs == b.outs and a.attr_slots == b.attr_slots)
            if not same:
                return None
            if shapes and a.kind == "draw" and (first.slot_info[a.outs[0]][0]
                                                != again.slot_info[b.outs[0]][0]):
                return "a random draw's shape depends on the input shapes"
            if a.kind == "prim" and not _equal_attrs(a.attrs, b.attrs, dict(a.attr_slots)):
                return (f"`{b.label}` at {b.where} has attributes computed from the data "
                        "outside the recorded ops (they differ between calls)")
        for slot in _constants_read(theirs, again):
            if slot not in first.constants or not _equal_values(first.constants[slot],
                                                                again.constants[slot]):
                user = next((i for i in theirs.instrs if slot in i.reads()), None)
                where = f"`{user.label}` at {user.where}" if user is not None else "an op"
                return (f"{where} reads a constant computed from the data outside the "
                        "recorded ops (it differs between calls)")
        end, other = mine.end, theirs.end
        if isinstance(other, Return):
            return isinstance(end, Return) and len(end.leaves) == len(other.leaves)
        if not isinstance(end, Guard) or end.slot != other.slot:
            return None
        (key, child), = other.children.items()
        if key not in end.children or end.children[key].number != child.number:
            return None
        mine, theirs = end.children[key], child


def _constants_read(segment: Segment, concrete: ConcreteFunction) -> list:
    """The constant slots `segment`'s instructions read."""
    return sorted({s for i in segment.instrs for s in i.reads() if s in concrete.constants})


def _equal_values(a, b) -> bool:
    if _is_array(a) or _is_array(b):
        a = np.asarray(backend.to_numpy(a)) if _is_array(a) else np.asarray(a)
        b = np.asarray(backend.to_numpy(b)) if _is_array(b) else np.asarray(b)
        return (a.shape == b.shape and a.dtype == b.dtype
                and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal_values(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are taken as different
        return a is b


def _is_array(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic)) or backend.is_gpu_array(value)


def _equal_attrs(a: dict, b: dict, from_slots: dict) -> bool:
    return a.keys() == b.keys() and all(
        _equal_values(a[k], b[k]) for k in a if k not in from_slots)


def _key(value, arrays: list):
    """The signature of an argument (shapes, dtypes, values), collecting tensor arrays."""
    cls = value.__class__
    if cls is Tensor:
        array = value._value
        arrays.append(array)
        return (array.shape, array.dtype.char, _device(array))
    if cls is np.ndarray or backend.is_gpu_array(value):
        if cls is np.ndarray:
            value = _placed(value)
        arrays.append(value)
        return (value.shape, value.dtype.char, _device(value))
    if cls in _SCALARS:
        return (cls, value)
    if cls is tuple or cls is list:
        keys = []
        for item in value:
            if item.__class__ is Tensor:  # the common argument, without a call
                array = item._value
                arrays.append(array)
                keys.append((array.shape, array.dtype.char,
                             None if backend.cupy is None else backend.device_of(array)))
            else:
                keys.append(_key(item, arrays))
        return (cls, tuple(keys))
    if cls is dict:
        return (cls, tuple((k, _key(value[k], arrays)) for k in sorted(value)))
    if isinstance(value, Variable):
        return ("variable", id(value))
    if isinstance(value, Tensor):
        array = value._value
        arrays.append(array)
        return (cls, array.shape, array.dtype.char, _device(array))
    if isinstance(value, (tuple, list)):  # named tuples and other sequences
        return (cls, tuple([_key(item, arrays) for item in value]))
    return (cls, id(value))


def _as_tensors(value, tensors: list):
    """`value` with arrays turned into tensors, collecting the tensors in `_key`'s order."""
    cls = value.__class__
    if cls is np.ndarray or backend.is_gpu_array(value):
        tensor = Tensor(_placed(value) if cls is np.ndarray else value)
        tensors.append(tensor)
        return tensor
    if isinstance(value, Tensor) and cls is not Variable:
        tensors.append(value)
        return value
    if cls is tuple or cls is list:
        return cls([_as_tensors(item, tensors) for item in value])
    if cls is dict:
        converted = {k: _as_tensors(value[k], tensors) for k in sorted(value)}
        return {k: converted[k] for k in value}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return cls(*[_as_tensors(item, tensors) for item in value])
    if isinstance(value, (tuple, list)) and cls not in _SCALARS:
        return cls([_as_tensors(item, tensors) for item in value])
    return value


def _takes_strings(args, kwargs) -> bool:
    """True if a tensor among the arguments holds strings (or Python objects)."""
    return any(isinstance(leaf, Tensor) and leaf.dtype.kind in "OSU"
               for leaf in nest.flatten((args, kwargs)))


def _placed(array: np.ndarray):
    """A NumPy argument where eager code would put it: on the current device (see ks.device)."""
    current = backend.current_device()
    return array if current[0] == "cpu" else backend.to_device(array, current)


def _device(array):
    return None if backend.cupy is None else backend.device_of(array)


def _changing_argument(fn, keys: list) -> str:
    """', mostly because argument `x` changes' for the argument whose signature varies most."""
    positional = [k[0][1] for k in keys]
    counts: dict = {}
    for i in range(max(len(p) for p in positional)):
        values = {p[i] if i < len(p) else None for p in positional}
        counts[i] = len(values)
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    if not counts or max(counts.values()) <= 1:
        return ""
    worst = max(counts, key=counts.get)
    name = names[worst] if worst < len(names) else f"#{worst}"
    return f", mostly because argument `{name}` (position {worst}) keeps changing"
