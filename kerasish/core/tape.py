"""GradientTape: records the ops that touch watched values and plays them back.

Recording only happens while a tape is active (core/recording.py keeps which
tapes are): with no tape, an op checks one thread-local tuple and does nothing
else. A recorded op is an `Op` entry
(primitive, input tensors, output, attributes). `gradient` walks the entries
in reverse recording order (a valid reverse topological order), pruned to
those that depend on the sources, dropping each gradient once consumed.
Gradient rules are written with kerasish ops, so an outer tape records the
backward pass of an inner one: that is how higher-order gradients work.

Once something takes them (a `ks.distribute` gradient exchange in a job of several
ranks), `gradient` hands over the large gradient arrays it made that nothing else
holds, so the taker may overwrite them instead of copying them (`set_gradient_taker`).
"""

from __future__ import annotations

import collections
import contextlib
import math
import warnings

from kerasish.core import backend, nest, recording
from kerasish.core import tensor as tensor_module
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, indexing_ops, math_ops, shape_ops
from kerasish.core.primitive import REGISTRY


class Op:
    """One recorded op: what ran, on what, producing what.

    `output` is a tensor, or a tuple of tensors for multi-output primitives.
    `needs` says which inputs were watched by the recording tape when it ran
    (the inputs that may need a gradient).
    """

    __slots__ = ("prim", "inputs", "output", "attrs", "needs")

    def __init__(self, prim, inputs, output, attrs, needs):
        self.prim = prim
        self.inputs = inputs
        self.output = output
        self.attrs = attrs
        self.needs = needs

    def outputs(self) -> tuple:
        return self.output if self.prim.multi_output else (self.output,)


def _is_differentiable(value) -> bool:
    return value.dtype.kind == "f"


UNCONNECTED = ("none", "zero", "raise")


class GradientTape:
    """Record operations for automatic differentiation.

    Args:
        persistent: allow several `gradient`/`jacobian` calls on one recording.
        watch_accessed_variables: watch every trainable variable an op reads
            while the tape is active (default True).

    Raises:
        RuntimeError: when a recording tape is entered again.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([[1.0]])
        >>> with ks.GradientTape() as tape:
        ...     loss = w * w
        >>> tape.gradient(loss, w).numpy()
        array([[2.]], dtype=float32)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._ops: list[Op] = []
        self._watched: dict[int, object] = {}  # id -> tensor, keeps ids valid
        self._roots: set[int] = set()  # ids watched directly (not computed on the tape)
        # id -> (variable, version when first read): a variable changed in place after
        # an op read it would silently give that op's gradient from the new value
        self._variable_versions: dict[int, tuple] = {}
        self._variables: list = []  # watched variables, in order of first use
        self._blocked: dict[int, tuple] = {}  # id(output) -> (op name, output, inputs)
        self._escaped: dict[int, object] = {}
        self._used = False
        self._recording = False

    # -- context ------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise RuntimeError("this GradientTape is already recording; tapes cannot be re-entered")
        self._recording = True
        recording.start(self)
        return self

    def __exit__(self, *exc_info) -> None:
        self._recording = False
        recording.stop(self)

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stop this tape recording (e.g. for logging inside the block)."""
        if not self._recording:
            raise RuntimeError("stop_recording() is only valid while the tape is recording")
        recording.stop(self)
        try:
            yield
        finally:
            recording.start(self)

    def reset(self) -> None:
        """Forget everything recorded and watched so far."""
        self._ops.clear()
        self._watched.clear()
        self._roots.clear()
        self._variable_versions.clear()
        self._variables.clear()
        self._blocked.clear()
        self._escaped.clear()
        self._used = False

    # -- watching -----------------------------------------------------------
    def watch(self, tensor) -> None:
        """Watch a tensor, a variable, or a nested structure of them.

        Args:
            tensor: a floating tensor or variable, or a list/tuple/dict of them.

        Raises:
            InvalidArgumentError: an item is not a tensor (a Python number or a NumPy
                array: convert it with `ks.constant`), or is not floating point.

        Example:
            >>> import kerasish as ks
            >>> x = ks.constant([1.0, 2.0])
            >>> with ks.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.gradient(y, x).numpy().tolist()
            [2.0, 4.0]
        """
        for item in nest.flatten(tensor):
            if not isinstance(item, tensor_module.Tensor):
                raise InvalidArgumentError(
                    f"GradientTape.watch: expected a tensor or variable, got "
                    f"{type(item).__name__}; convert it first with ks.constant(...)"
                )
            if not _is_differentiable(item._value):
                raise InvalidArgumentError(
                    f"GradientTape.watch: cannot watch a {item.dtype} tensor (shape {item.shape}): "
                    "only floating-point values have gradients; cast it first with "
                    "ks.cast(x, ks.float32)"
                )
            self._watch(item)

    def _watch(self, item) -> None:
        if id(item) not in self._watched:
            self._watched[id(item)] = item
            self._roots.add(id(item))
            if isinstance(item, tensor_module.Variable):
                self._variables.append(item)
                self._variable_versions[id(item)] = (item, item._version)

    def _note_escape(self, tensor) -> None:
        """Remember that `tensor`, if watched, left for NumPy (see `recording.note_escape`)."""
        if id(tensor) in self._watched:
            self._escaped[id(tensor)] = tensor

    def watched_variables(self) -> list:
        """The variables this tape watched, in the order they were first used."""
        return list(self._variables)

    def _record(self, prim, inputs: tuple, output, attrs: dict) -> None:
        """Record an op if it reads a watched input (auto-watching trainable variables).

        The op's `needs` says which inputs were watched. Its floating outputs
        become watched in turn; integer or boolean outputs, and those of ops
        without a gradient, are remembered as blocked (for `explain`).
        """
        watched = self._watched
        if len(inputs) == 2:  # the common arity, without a loop
            a, b = inputs
            needs = (
                id(a) in watched or (a._trainable and self._auto_watch(a)),
                id(b) in watched or (b._trainable and self._auto_watch(b)),
            )
        else:
            needs = tuple(
                [id(t) in watched or (t._trainable and self._auto_watch(t)) for t in inputs]
            )
        if True not in needs:
            return
        if prim.single_differentiable and output._value.dtype.kind == "f":
            watched[id(output)] = output
        else:
            outputs = output if prim.multi_output else (output,)
            if prim.grad is None or not all(o._value.dtype.kind == "f" for o in outputs):
                for o in outputs:  # no gradient flows on: only remembered for explain()
                    self._blocked[id(o)] = (prim.name, o, inputs)
                return
            for o in outputs:
                watched[id(o)] = o
        if False in needs:  # unwatched variables read by a recorded op: remember their version
            for t, need in zip(inputs, needs):
                if not need and t.__class__ is tensor_module.Variable:
                    self._variable_versions.setdefault(id(t), (t, t._version))
        self._ops.append(Op(prim, inputs, output, attrs, needs))

    def _auto_watch(self, variable) -> bool:
        """Watch a trainable variable an op reads, unless told not to; True if watched."""
        if self._watch_accessed:
            self._watch(variable)
            return True
        return False

    # -- gradients ----------------------------------------------------------
    def _consume(self, what: str) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(
                f"GradientTape.{what} can only be called once on a non-persistent tape: the "
                "recording is released after the first call. Create the tape with "
                "ks.GradientTape(persistent=True) to compute several gradients from one recording."
            )
        if self._recording and self._persistent:
            warnings.warn(
                f"GradientTape.{what} was called inside the tape's own `with` block; the "
                "gradient computation is not recorded on this tape",
                stacklevel=3,
            )

    def _release(self) -> None:
        self._used = True
        if not self._persistent:
            self._ops = []
            self._blocked = {}

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """Gradient of `target` (summed if not scalar) with respect to `sources`.

        Args:
            target: a tensor or a nested structure of tensors (their sum is differentiated).
            sources: a tensor, variable, or nested structure (list, tuple, dict) of them.
            output_gradients: gradients of some scalar with respect to `target`
                (default: ones, i.e. the gradient of the sum of `target`).
            unconnected_gradients: 'none' (default) returns None for a source
                the target does not depend on, 'zero' returns zeros, 'raise'
                raises an error that explains why the source is not connected.

        Returns:
            Gradients in the structure of `sources`. The gradient for the params
            of a `gather`/`embedding_lookup` is an `ks.IndexedSlices`.

        Raises:
            RuntimeError: on a second call to a non-persistent tape, or if a
                variable the recorded ops read was changed in place since.
            InvalidArgumentError: if a source is not a tensor, or with
                `unconnected_gradients='raise'` when a source is not connected
                (the message says why).

        Example:
            >>> import kerasish as ks
            >>> x, y = ks.Variable(3.0), ks.Variable(4.0)
            >>> with ks.GradientTape() as tape:
            ...     z = x * x + 2.0 * y
            >>> [float(g) for g in tape.gradient(z, [x, y])]
            [6.0, 2.0]
        """
        if unconnected_gradients not in UNCONNECTED:
            raise InvalidArgumentError(
                f"gradient: unconnected_gradients must be one of {UNCONNECTED}, "
                f"got {unconnected_gradients!r}"
            )
        self._consume("gradient")
        targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        seeds = None if output_gradients is None else nest.flatten(output_gradients)
        grads = self._backward(targets, seeds, flat_sources)
        if unconnected_gradients != "none":
            for i, source in enumerate(flat_sources):
                if grads[i] is not None:
                    continue
                if unconnected_gradients == "zero":
                    grads[i] = creation_ops.zeros_like(source)
                else:
                    message = self._explain(targets, source)
                    self._release()
                    raise InvalidArgumentError(message)
        if _taker is not None and output_gradients is None and all(
                t is self for t in recording.active_tapes()) and recording.current_tracer() is None:
            self._hand_over(grads, *_taker)
        self._release()
        return nest.pack_sequence_as(sources, grads)

    def _hand_over(self, grads: list, hand_over, min_bytes: int) -> None:
        """Hand the gradient arrays of at least `min_bytes` that this backward pass made, and
        nothing else holds, to `hand_over` (see `set_gradient_taker`).

        Left out: an array recorded on this tape (an op's input or output, a variable's
        value), one shared with another gradient (the same array, or a view of it), one
        that is not C-contiguous, writeable and the owner of its memory, and every array
        when a custom gradient (an op not in the registry, whose gradient function may
        return arrays it keeps) took part. The caller (`gradient`) hands nothing over when the
        seeds came from the user or another tape or ks.function records this one's backward
        pass (the arrays are then values of that recording).
        """
        dense = [g._value for g in grads if g is not None
                 and g.__class__ is not tensor_module.IndexedSlices]
        large = [a for a in dense if a.nbytes >= min_bytes]
        if not large:
            return
        recorded = set()
        for op in self._ops:
            if REGISTRY.get(op.prim.name) is not op.prim:
                return
            recorded.update(id(t._value) for t in op.inputs)
            recorded.update(id(t._value) for t in op.outputs())
        owners = collections.Counter(id(a) if a.base is None else id(a.base) for a in dense)
        owners.update(id(g.values._value) for g in grads
                      if g.__class__ is tensor_module.IndexedSlices)
        for array in large:
            flags = array.flags
            if (array.base is None and flags.c_contiguous and getattr(flags, "writeable", True)
                    and id(array) not in recorded and owners[id(array)] == 1):
                hand_over(array)

    def _backward(self, targets, seeds, sources) -> list:
        """Reverse-mode pass over the recorded ops; returns one gradient per source."""
        for source in sources:
            if not isinstance(source, tensor_module.Tensor):
                raise InvalidArgumentError(
                    f"gradient: sources must be tensors or variables, got {type(source).__name__}"
                )
        self._check_versions()
        # outer tapes (not this one) record the rules: higher-order gradients
        with recording.paused(tuple(t for t in recording.active_tapes() if t is not self)):
            grads = self._seed_gradients(targets, seeds)
            source_ids = set(map(id, sources))
            for op in reversed(self._ops_from(source_ids)):
                prim = op.prim
                if prim.multi_output:
                    dy = self._output_gradients(op, grads, source_ids)
                    if dy is None:
                        continue
                else:
                    key = id(op.output)
                    dy = grads.get(key) if key in source_ids else grads.pop(key, None)
                    if dy is None:
                        continue
                    if dy.__class__ is tensor_module.IndexedSlices:
                        dy = dy.to_dense()
                for t, need, g in zip(op.inputs, op.needs, prim.grad(op, dy)):
                    if need and g is not None:
                        if g.__class__ is not tensor_module.IndexedSlices:
                            value, g_value = t._value, g._value
                            if g_value.shape != value.shape or (
                                g_value.dtype is not value.dtype and g_value.dtype != value.dtype
                            ):  # a broadcast input, or another dtype
                                g = _match(prim.name, t, g)
                        key = id(t)
                        previous = grads.get(key)
                        grads[key] = g if previous is None else _sum(previous, g)
            return [grads.get(id(s)) for s in sources]

    def _check_versions(self) -> None:
        """Raise if a variable read under the tape was changed in place since."""
        for variable, version in self._variable_versions.values():
            if variable._version != version:
                users = sorted({op.prim.name for op in self._ops
                                if any(t is variable for t in op.inputs)})
                raise RuntimeError(
                    f"gradient: variable '{variable.name}' was modified in place (assign...) "
                    f"after {', '.join(f'`{u}`' for u in users) or 'an op'} used it under the "
                    "tape, and its old value is needed for the gradient. Compute gradients "
                    "before updating variables."
                )

    def _ops_from(self, source_ids: set) -> list:
        """The recorded ops that depend on a watched source, in recording order.

        When the sources include every directly watched tensor (the usual
        case: all the variables a loss used), that is every op, as recorded.
        Otherwise the ops are pruned to the paths from the sources, each with
        `needs` narrowed to the inputs on such a path. Only watched sources
        start a path: an unwatched one gets None even if a recorded op
        happened to read it (as with TF's tape).
        """
        if self._roots <= source_ids:
            return self._ops
        reach = {i for i in source_ids if i in self._watched}
        relevant = []
        for op in self._ops:
            needs = tuple([id(t) in reach for t in op.inputs])
            if True in needs:
                if needs != op.needs:
                    op = Op(op.prim, op.inputs, op.output, op.attrs, needs)
                relevant.append(op)
                if op.prim.multi_output:
                    reach.update(id(o) for o in op.output)
                else:
                    reach.add(id(op.output))
        return relevant

    def _seed_gradients(self, targets, seeds) -> dict:
        """{id(target): initial gradient}: ones, or the given output gradients."""
        grads: dict[int, object] = {}
        for i, t in enumerate(targets):
            if t.__class__ is not tensor_module.IndexedSlices:
                t = tensor_module.convert_to_tensor(t)
            seed = None
            if seeds is not None:
                seed = tensor_module.convert_to_tensor(seeds[i])
                if seed.shape != t.shape:
                    raise InvalidArgumentError(
                        f"gradient: output_gradients[{i}] has shape {seed.shape} but the "
                        f"target has shape {t.shape}"
                    )
            if t.__class__ is tensor_module.IndexedSlices:
                # a sparse gradient as target (second order through gather): its values
                # are what was recorded, and the adjoint of densifying them gathers the
                # seed's rows (a dense copy made here would be a constant to this tape)
                t, seed = t.values, None if seed is None else indexing_ops.gather(seed, t.indices)
            _accumulate(grads, t, _ones_like(t) if seed is None else seed)
        return grads

    @staticmethod
    def _output_gradients(op, grads: dict, source_ids: set):
        """The gradients of a multi-output op's outputs (zeros where one got none), or None."""
        found = [
            _dense(grads.get(id(o)) if id(o) in source_ids else grads.pop(id(o), None))
            for o in op.output
        ]
        if all(g is None for g in found):
            return None
        return tuple(creation_ops.zeros_like(o) if g is None else g
                     for o, g in zip(op.output, found))

    def jacobian(self, target, sources, unconnected_gradients="none"):
        """d target[i...] / d source[j...] for every element: shape target.shape + source.shape.

        One backward pass per element of `target`.

        Args:
            target: a tensor computed under this tape.
            sources: a tensor or variable, or a nested structure of them.
            unconnected_gradients: "none" (None for a source the target does not depend
                on) or "zero" (zeros of the Jacobian's shape).

        Returns:
            The Jacobians, in the structure of `sources`.

        Raises:
            RuntimeError: a non-persistent tape was already used.

        Example:
            >>> import kerasish as ks
            >>> x = ks.constant([1.0, 2.0])
            >>> with ks.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.jacobian(y, x).numpy().tolist()
            [[2.0, 0.0], [0.0, 4.0]]
        """
        self._consume("jacobian")
        if not isinstance(target, tensor_module.IndexedSlices):
            target = tensor_module.convert_to_tensor(target)
        flat_sources = nest.flatten(sources)
        n = math.prod(target.shape)
        rows = [[] for _ in flat_sources]
        for k in range(n):
            seed = shape_ops.reshape(indexing_ops.one_hot(k, n, dtype=target.dtype), target.shape)
            grads = self._backward([target], [seed], flat_sources)
            for i, (s, g) in enumerate(zip(flat_sources, grads)):
                if g is None:
                    g = creation_ops.zeros_like(s)
                rows[i].append(_dense(g))
        results = []
        for s, row in zip(flat_sources, rows):
            if unconnected_gradients == "none" and self._unconnected(target, s):
                results.append(None)
                continue
            stacked = shape_ops.stack(row) if row else creation_ops.zeros((0,) + s.shape, s.dtype)
            results.append(shape_ops.reshape(stacked, target.shape + s.shape))
        self._release()
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source):
        """Per-example Jacobian: target (B, ...) and source (B, ...) -> (B, target..., source...).

        Assumes example b of the target depends only on example b of the source: one
        backward pass per element of one example, not of the whole batch.

        Args:
            target: a tensor computed under this tape, batch first.
            source: a watched tensor or variable with the same batch size.

        Returns:
            A tensor of shape (B,) + target.shape[1:] + source.shape[1:].

        Raises:
            InvalidArgumentError: target and source do not share a leading batch axis.
            RuntimeError: a non-persistent tape was already used.

        Example:
            >>> import kerasish as ks
            >>> x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
            >>> with ks.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.batch_jacobian(y, x).numpy().tolist()
            [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
        """
        self._consume("batch_jacobian")
        target = tensor_module.convert_to_tensor(target)
        if not target.shape or not source.shape or target.shape[0] != source.shape[0]:
            raise InvalidArgumentError(
                f"batch_jacobian: target {target.shape} and source {source.shape} must share a "
                "leading batch dimension"
            )
        batch = target.shape[0]
        per_example = int(target.size // batch) if batch else 0
        columns = []
        for k in range(per_example):
            one = indexing_ops.one_hot(k, per_example, dtype=target.dtype)
            seed = shape_ops.broadcast_to(one, (batch, per_example))
            (g,) = self._backward([target], [shape_ops.reshape(seed, target.shape)], [source])
            columns.append(creation_ops.zeros_like(source) if g is None else _dense(g))
        stacked = shape_ops.stack(columns, axis=1)
        self._release()
        return shape_ops.reshape(stacked, target.shape + source.shape[1:])

    def _reach(self, source) -> set:
        """Ids of every recorded tensor computed from `source`."""
        reach = {id(source)}
        for op in self._ops:
            if any(id(t) in reach for t in op.inputs):
                reach.update(id(o) for o in op.outputs())
        return reach

    def _unconnected(self, target, source) -> bool:
        recorded = target.values if isinstance(target, tensor_module.IndexedSlices) else target
        return id(recorded) not in self._reach(source)

    # -- diagnostics --------------------------------------------------------
    def explain(self, target, source) -> str:
        """Explain, in one paragraph, why `source` does or does not reach `target`.

        Args:
            target: a tensor (or nested structure) computed under this tape.
            source: a tensor or variable that `gradient` returned None for, or did not.

        Returns:
            The explanation: not watched (and why), or the non-differentiable ops or NumPy
            conversions on the way.

        Example:
            >>> import kerasish as ks
            >>> v = ks.Variable(1.0)
            >>> with ks.GradientTape() as tape:
            ...     y = ks.cast(ks.cast(v, "int32"), "float32")
            >>> "non-differentiable op(s) cast" in tape.explain(y, v)
            True
        """
        return self._explain(nest.flatten(target), source)

    def _explain(self, targets, source) -> str:
        name = _describe(source)
        if id(source) not in self._watched:
            if isinstance(source, tensor_module.Variable) and not source.trainable:
                why = "it is a non-trainable variable, which tapes do not watch automatically"
            elif isinstance(source, tensor_module.Variable) and not self._watch_accessed:
                why = "the tape was created with watch_accessed_variables=False"
            elif isinstance(source, tensor_module.Variable):
                why = "no op under the tape read it"
            else:
                why = "plain tensors are only watched when passed to tape.watch()"
            return (
                f"No gradient for {name}: it was not watched by this tape ({why}). "
                "Call tape.watch(x) inside the `with` block before using it."
            )
        reach = self._reach(source)
        blocked = [
            op_name
            for op_name, _, inputs in self._blocked.values()
            if any(id(t) in reach for t in inputs)
        ]
        escaped = [t for key, t in self._escaped.items() if key in reach]
        target_names = ", ".join(_describe(t) for t in targets)
        reasons = []
        if blocked:
            names = ", ".join(sorted(set(blocked)))
            reasons.append(
                f"the path from it passes through non-differentiable op(s) {names} "
                "(integer or boolean results, or ops without a gradient, such as a cast to an "
                "integer, argmax or a comparison)"
            )
        if escaped:
            reasons.append(
                "a value computed from it was converted to NumPy (.numpy(), float() or a NumPy "
                "function), and whatever was computed from that NumPy value is a constant to "
                "the tape"
            )
        if not reasons and not any(id(t) in self._watched for t in targets):
            reasons.append(
                "the target was not computed by ops recorded on this tape: it was computed "
                "outside the `with` block, or from values that were not watched"
            )
        if not reasons:
            reasons.append("the target does not depend on it")
        return f"No gradient for {name} with respect to target {target_names}: " + "; ".join(
            reasons
        ) + "."


def _describe(t) -> str:
    if isinstance(t, tensor_module.Variable):
        return f"variable '{t.name}' (shape {t.shape})"
    if isinstance(t, tensor_module.Tensor):
        return f"tensor of shape {t.shape} and dtype {t.dtype}"
    return type(t).__name__


_scalar_ones: dict = {}


# -- gradients handed over to a taker ---------------------------------------------------------

_taker = None  # (hand_over, min_bytes) from set_gradient_taker, or None


def set_gradient_taker(hand_over=None, min_bytes: int = 0) -> None:
    """Hand the large gradients backward passes make, and hold nowhere else, to a taker.

    From now on `GradientTape.gradient` calls `hand_over(array)` for each such gradient
    array of at least `min_bytes` (and a ks.function replay for each its program reads
    no more after the optimizer update): the taker may overwrite the array instead of
    copying it. `kerasish.distribute` sets one, so that its gradient exchange reduces
    large gradients in place; until then nothing is handed over and nothing is paid.
    `set_gradient_taker()` stops it.

    Args:
        hand_over: called with each array handed over (a NumPy or CuPy array), or None.
        min_bytes: the smallest array worth handing over.
    """
    global _taker
    _taker = None if hand_over is None else (hand_over, int(min_bytes))


def gradient_taker():
    """`(hand_over, min_bytes)` as `set_gradient_taker` set them, or None."""
    return _taker


def _ones_like(t):
    """The default seed: ones shaped like the target (one shared, immutable 0-d one per dtype)."""
    value = t._value
    if value.ndim == 0 and not backend.is_gpu_array(value):
        ones = _scalar_ones.get(value.dtype)
        if ones is None:
            ones = _scalar_ones[value.dtype] = tensor_module.Tensor(value.dtype.type(1))
        return ones
    return tensor_module.Tensor(backend.array_module(value).ones_like(value))


def _dense(grad):
    if isinstance(grad, tensor_module.IndexedSlices):
        return grad.to_dense()
    return grad


def _accumulate(grads: dict, tensor, grad) -> None:
    key = id(tensor)
    previous = grads.get(key)
    grads[key] = grad if previous is None else _sum(previous, grad)


def _sum(a, b):
    """a + b for gradients; two sparse gradients stay sparse (rows concatenated)."""
    sparse = tensor_module.IndexedSlices
    if a.__class__ is sparse and b.__class__ is sparse:
        return sparse(
            shape_ops.concat([a.values, b.values], axis=0),
            _concat_indices(a.indices, b.indices),
            a.dense_shape,
        )
    return _dense(a) + _dense(b)


def _concat_indices(a, b):
    """Two index arrays joined by a recorded op, so a ks.function replay follows the result
    (a variable looked up twice in one step has a sparse gradient with both sets of rows)."""
    a, b = tensor_module.convert_to_tensor(a), tensor_module.convert_to_tensor(b)
    if a.dtype != b.dtype:
        a, b = math_ops.cast(a, "int64"), math_ops.cast(b, "int64")
    return shape_ops.concat([a, b], axis=0)._value


def _match(op_name: str, tensor, grad):
    """Bring a gradient to its input's shape (summing broadcast axes) and floating dtype.

    Done here, once, for every op; a float32 input of a float64 computation gets
    a float32 gradient.
    """
    if grad.__class__ is tensor_module.IndexedSlices:
        return grad
    value = tensor._value
    if grad._value.shape != value.shape:
        grad = shape_ops.unbroadcast(grad, value.shape, op_name)
    if grad._value.dtype != value.dtype and value.dtype.kind == "f":
        grad = math_ops.cast(grad, value.dtype)
    return grad
