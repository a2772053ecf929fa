"""The Optimizer base class: gradients in, in-place variable updates out.

An optimizer owns plain variables, so a checkpoint captures all of its state:
`iterations` (int64, counts `apply_gradients` calls), the learning rate (a
float32 variable, or a schedule object), and per-variable *slots* (Adam's
`m` and `v`, momentum's velocity, ...), created lazily the first time a
variable receives a gradient and named after it (`dense/kernel/m`).

Each optimizer writes its update rule once, in `update_arrays`, on raw
arrays, with in-place NumPy/CuPy ufuncs (`out=`, `*=`), so the same code runs
on both backends, no tape ever records an update, and no parameter or slot
array is reallocated per step. The built-in ones state it as an `UpdateRule`
(`rules.py`): the same statements run as those ufunc passes, or on the GPU
as one CuPy kernel per variable, with the same bits. Sparse gradients (`ks.IndexedSlices`, from
`gather` and `Embedding`) go through the same rule on the touched rows only:
duplicates are summed, the rows of the variable and of its slots are
gathered, updated, and written back. A variable with a `constraint` (from
`kernel_constraint=` and the like) is then projected by it, after every update.
Optimizers with slots update with subnormal floats flushed to zero on the CPU (as TF
and XLA run): decaying slots (Adam's moments for an input that stays 0) would otherwise
pass through the subnormal range, where x86 arithmetic is many times slower.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from kerasish.core import arguments, backend, recording, tracking
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import IndexedSlices, Tensor, Variable, constant, convert_to_tensor
from kerasish.core.tracking import Trackable
from kerasish.optimizers import schedules
from kerasish.optimizers.schedules import LearningRateSchedule


def _host_variable(value, dtype, name: str) -> Variable:
    """A non-trainable scalar variable kept in host memory (read every step without a sync)."""
    return Variable(Tensor(np.asarray(value, dtype=dtype)), name=name, trainable=False)


class SparseGrad:
    """An IndexedSlices gradient as raw arrays, with unique indices (duplicates summed): the
    form `apply` hands the update rules and a gradient exchange (`ks.distribute`) sums.
    For an optimizer whose update adds each row as it comes (`_applies_repeated_rows`:
    plain SGD), the indices may repeat."""

    __slots__ = ("values", "indices")

    def __init__(self, values, indices):
        self.values = values
        self.indices = indices


_CLIP_ARGS = ("clipnorm", "clipvalue", "global_clipnorm")


class Optimizer(Trackable):
    """Base class of the optimizers.

    Args:
        learning_rate: a float, a `ks.optimizers.schedules.LearningRateSchedule`
            (evaluated at `iterations` on each step), or a zero-argument callable.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to [-clipvalue, clipvalue].
        global_clipnorm: clip all gradients together so their global L2 norm is
            at most this. At most one of the three clipping arguments may be set.
        weight_decay: decoupled weight decay: before each update,
            `var -= learning_rate * weight_decay * var` (for a sparse gradient,
            on the touched rows only). See `exclude_from_weight_decay`.
        use_ema: keep an exponential moving average of each variable (Keras's
            `use_ema`): after every step `average = ema_momentum * average +
            (1 - ema_momentum) * variable` (the first step copies the variable).
            `finalize_variable_values` (called at the end of `fit`) writes the averages
            into the variables; the `SwapEMAWeights` callback swaps them in and out.
        ema_momentum: the momentum of that average, in [0, 1].
        ema_overwrite_frequency: write the averages into the variables every this many
            steps (None: only at the end of `fit`).
        loss_scale_factor: multiply the loss by this in `scale_loss` and divide the
            gradients by it before applying them (a fixed loss scale).
        gradient_accumulation_steps: an int >= 2: add up the gradients of this many
            calls and update the variables with their mean on the last of them (as Keras
            does; `iterations` then counts the updates, the raw call count is kept).

    Raises:
        ValueError: if more than one clipping argument is set, or a clipping or
            decay value is negative or not finite (naming the argument and value).
        TypeError: for an argument the optimizer does not have.

    Writing an optimizer: subclass, set hyperparameters in `__init__`, declare
    the slots in `_slot_specs()` as `(name, initial_value)` pairs, and
    implement `update_arrays(grad, param, slots, lr)`, which changes `param`
    and the arrays of the `slots` dict in place. `self._step` is the 1-based
    number of the step being applied. `param` is the variable's whole array
    for a dense gradient, and a copy of the touched rows (written back
    afterwards) for a sparse one, so one rule serves both, on NumPy and CuPy.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 2.0], name="w")
        >>> opt = ks.optimizers.SGD(learning_rate=0.5)
        >>> _ = opt.apply_gradients([(ks.constant([1.0, -1.0]), w)])
        >>> w.numpy(), int(opt.iterations)
        (array([0.5, 2.5], dtype=float32), 1)
    """

    # set by ks.distribute.DistributedOptimizer: called on the prepared (gradient, variable)
    # pairs before clipping, it returns them averaged over the processes of an MPI job;
    # its `combines_ranks` is False when the job has one process
    gradient_exchange = None
    # a sparse gradient is applied as a dense one (see `sparse_update_step`)
    _dense_sparse_updates = False

    _untracked_attributes = frozenset(
        {
            "_iterations",
            "_learning_rate",
            "_slots",
            "_slot_owners",
            "_slot_initial_values",
            "_slot_observers",
            "_excluded_from_decay",
            "_excluded_names",
            "_built",
            "_warned_missing",
            "_aux",
        }
    )

    def __init__(
        self,
        learning_rate,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        weight_decay=None,
        name=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        **kwargs,
    ):
        _reject_unknown(type(self).__name__, kwargs)
        kind = type(self).__name__
        self.use_ema = bool(use_ema)
        self.ema_momentum = arguments.number(ema_momentum, "ema_momentum", kind, 0, 1)
        self.ema_overwrite_frequency = arguments.integer(
            ema_overwrite_frequency or None, "ema_overwrite_frequency", kind, 1, none=True)
        self.loss_scale_factor = arguments.number(loss_scale_factor, "loss_scale_factor", kind,
                                                  0, low_open=True, none=True)
        self.gradient_accumulation_steps = arguments.integer(
            gradient_accumulation_steps or None, "gradient_accumulation_steps", kind, 2,
            none=True)
        clipping = dict(zip(_CLIP_ARGS, (clipnorm, clipvalue, global_clipnorm), strict=True))
        given = {arg: value for arg, value in clipping.items() if value is not None}
        if len(given) > 1:
            raise ValueError(
                f"{kind}: only one of clipnorm, clipvalue and global_clipnorm can be set, got "
                + ", ".join(f"{arg}={value}" for arg, value in given.items())
            )
        self.name = name or kind.lower()
        self.clipnorm, self.clipvalue, self.global_clipnorm, self.weight_decay = (
            arguments.number(value, arg, kind, 0, none=True)
            for arg, value in dict(clipping, weight_decay=weight_decay).items()
        )
        self._iterations = _host_variable(0, np.int64, "iterations")
        self._learning_rate = _learning_rate_state(kind, learning_rate)
        self._slots: dict[int, dict[str, Variable]] = {}
        self._slot_owners: dict[int, Variable] = {}
        self._slot_initial_values: dict[int, dict[str, float]] = {}
        self._slot_observers: list = []
        self._built: set[int] = set()  # ids of variables whose declared slots all exist
        self._excluded_from_decay: set[int] = set()
        self._excluded_names: list = []
        self._warned_missing: set = set()  # sets of variables (ids) already warned about
        # per variable, Keras's "average" (use_ema) and "gradient_accumulator" variables
        self._aux: dict[int, dict[str, Variable]] = {}
        self._step = 1

    # -- state ----------------------------------------------------------------
    @property
    def iterations(self):
        """The number of `apply_gradients` calls that updated something (int64 variable).

        With `gradient_accumulation_steps`, the number of updates made (Keras's
        `iterations // gradient_accumulation_steps`, a tensor); the variable counting the
        calls is then `_iterations`.
        """
        if self.gradient_accumulation_steps:
            return constant(int(self._iterations._value) // self.gradient_accumulation_steps,
                            dtype=np.int64)
        return self._iterations

    def _updates_made(self) -> int:
        """Keras's `iterations` as an int: the updates made so far."""
        count = int(self._iterations._value)
        return count // self.gradient_accumulation_steps if self.gradient_accumulation_steps \
            else count

    @property
    def learning_rate(self):
        """The learning-rate variable (float32), or the schedule's current value as a tensor.

        Assign a number to change it (as a LearningRateScheduler callback
        does), or a schedule to replace it.
        """
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return constant(self._current_learning_rate(), dtype=np.float32)

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(value, LearningRateSchedule) or (
            callable(value) and not isinstance(value, Tensor)
        ):
            self._learning_rate = value
            return
        if not isinstance(self._learning_rate, Variable):
            raise TypeError(
                f"{type(self).__name__}: this optimizer's learning rate is a "
                f"{type(self._learning_rate).__name__} schedule, so it cannot be set to the number "
                f"{value!r}; create the optimizer with a float learning_rate to change it during "
                "training, or assign a new schedule"
            )
        self._learning_rate.assign(_learning_rate_float(type(self).__name__, value))

    lr = learning_rate  # Keras 2 spelling

    def _current_learning_rate(self) -> float:
        """The learning rate for the next step, as a Python float."""
        lr = self._learning_rate
        if isinstance(lr, Variable):
            return float(lr._value)
        if isinstance(lr, LearningRateSchedule):
            return float(lr(int(self._iterations._value)))
        return float(lr())

    def _tracked_children(self) -> list:
        """`iterations` and `learning_rate` by name; slots are not walked as attributes.

        A checkpoint names each slot by the path of its variable (see `slot_variables`).
        """
        children = [("iterations", self._iterations)]
        if isinstance(self._learning_rate, (Variable, Trackable)):
            children.append(("learning_rate", self._learning_rate))
        children.extend(super()._tracked_children())
        return children

    # -- slots ----------------------------------------------------------------
    def _slot_specs(self) -> list:
        """(slot name, initial value) for each slot this optimizer keeps per variable."""
        return []

    def get_slot_names(self) -> list:
        """Names of the slots this optimizer creates for each variable (e.g. ['m', 'v'])."""
        return [name for name, _ in self._slot_specs()]

    def add_slot(self, var: Variable, slot_name: str, initial_value=0.0,
                 shape: tuple | None = None) -> Variable:
        """Create (or return) slot `slot_name` of `var`: a non-trainable variable like it.

        It lives on the variable's device, has its dtype and shape (or `shape`), and is
        named `f"{var.name}/{slot_name}"`. Every observer in
        `_slot_observers` is called with (var, slot_name, slot) after creation.

        Args:
            var: the variable the slot belongs to.
            slot_name: the slot's name, e.g. 'm'.
            initial_value: the value every element of a new slot starts at.
            shape: the slot's shape, if not the variable's (Adafactor's factored moments).

        Returns:
            The slot variable (the existing one if it was made before).

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0], name="w")
            >>> slot = ks.optimizers.SGD().add_slot(var, "trace", initial_value=0.5)
            >>> slot.name, slot.numpy()
            ('w/trace', array([0.5, 0.5], dtype=float32))
        """
        slots = self._slots.setdefault(id(var), {})
        if slot_name in slots:
            return slots[slot_name]
        shape = var.shape if shape is None else shape  # CuPy's full_like reads () as None
        value = backend.array_module(var._value).full(shape, initial_value, var._value.dtype)
        slot = Variable(Tensor(value), name=f"{var.name}/{slot_name}", trainable=False)
        slots[slot_name] = slot
        self._slot_owners[id(var)] = var
        self._slot_initial_values.setdefault(id(var), {})[slot_name] = initial_value
        self._slot_created(var, slot_name, slot)
        return slot

    def _slot_created(self, var: Variable, slot_name: str, slot: Variable) -> None:
        """Called once right after each slot is created; notifies `_slot_observers`.

        A checkpoint registers an observer here to restore a slot whose value
        it read before the slot existed (deferred restoration).
        """
        for observer in list(self._slot_observers):
            observer(var, slot_name, slot)
        tracking.notify_created()  # a pending checkpoint restore assigns the slot's saved value

    def _create_slots(self, var: Variable) -> None:
        self._slot_owners[id(var)] = var
        self._slots.setdefault(id(var), {})
        aux = self._aux.setdefault(id(var), {})
        wanted = (["average"] if self.use_ema else []) + (
            ["gradient_accumulator"] if self.gradient_accumulation_steps else [])
        for aux_name in wanted:
            if aux_name not in aux:
                value = backend.array_module(var._value).zeros_like(var._value)
                aux[aux_name] = Variable(Tensor(value), name=f"{var.name}/{aux_name}",
                                         trainable=False)
                self._slot_created(var, aux_name, aux[aux_name])
        for slot_name, initial_value in self._slot_specs_for(var):
            self.add_slot(var, slot_name, initial_value, self._slot_shape(var, slot_name))
        self._built.add(id(var))

    def _slot_specs_for(self, var: Variable) -> list:
        """The (slot name, initial value) pairs `var` gets: `_slot_specs()`, unless an
        optimizer keeps different slots for different variables (Muon)."""
        return self._slot_specs()

    def _slot_shape(self, var: Variable, slot_name: str) -> tuple | None:
        """The shape of slot `slot_name` of `var`; None: the variable's."""
        return None

    def _begin_step(self) -> None:
        """Called once per step, after `self._step` is set and before the updates: for state
        kept per optimizer rather than per variable (Nadam's running product)."""

    def build(self, var_list) -> None:
        """Create the slots of every variable in `var_list` now instead of at its first update.

        Args:
            var_list: the variables that will be trained.

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0], name="w")
            >>> adam = ks.optimizers.Adam()
            >>> adam.build([var])
            >>> adam.get_slot(var, "m").numpy()
            array([0., 0.], dtype=float32)
        """
        for var in var_list:
            if id(var) not in self._built:
                self._create_slots(var)

    def get_slot(self, var: Variable, name: str) -> Variable:
        """The slot variable `name` of `var`.

        Args:
            var: a variable this optimizer has updated (or built slots for).
            name: the slot's name, one of `get_slot_names()`.

        Returns:
            The slot variable.

        Raises:
            KeyError: if `var` has no slots yet, or none called `name` (listing those it has).

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0], name="w")
            >>> sgd = ks.optimizers.SGD(0.1, momentum=0.9)
            >>> _ = sgd.apply_gradients([(ks.constant([1.0]), var)])
            >>> sgd.get_slot(var, "momentum").numpy()
            array([-0.1], dtype=float32)
        """
        slots = self._slots.get(id(var))
        if slots is not None and name in self._aux.get(id(var), {}):
            return self._aux[id(var)][name]
        if slots is None:
            raise KeyError(
                f"{type(self).__name__} has no slots for variable '{var.name}': it has not "
                "received a gradient yet (slots are created on its first update, or by "
                "optimizer.build)"
            )
        if name not in slots:
            raise KeyError(
                f"{type(self).__name__} has no slot {name!r} for variable '{var.name}'; "
                f"its slots are {sorted(slots)}"
            )
        return slots[name]

    def slot_variables(self):
        """Yield (variable, slot name, slot variable) for every slot created so far (with
        the EMA `average` and `gradient_accumulator` of each variable, when kept)."""
        for key, slots in self._slots.items():
            var = self._slot_owners[key]
            for name, slot in slots.items():
                yield var, name, slot
            for name, slot in self._aux.get(key, {}).items():
                yield var, name, slot

    @property
    def variables(self) -> list:
        """`iterations`, the learning-rate variable (if any) and every slot variable."""
        result = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            result.append(self._learning_rate)
        result.extend(slot for _, _, slot in self.slot_variables())
        return result

    def _step_variables(self) -> list:
        """The host variables besides the slots that every update changes."""
        return [self._iterations]

    def _restore_point(self):
        """A callable that puts `_step_variables` back as they are now (a CUDA-graph replay
        runs an update's host side before its input check is known to have passed)."""
        saved = [(variable, variable._value.copy()) for variable in self._step_variables()]

        def restore():
            for variable, value in saved:
                variable._value[...] = value
                variable._version += 1
        return restore

    def reset_state(self) -> None:
        """Return to the state of a new optimizer: slots to their initial values, iterations to 0.

        The slot variables themselves are kept (same objects), so checkpoints
        and references to them stay valid. The learning rate is not changed.
        """
        for key, slots in self._slots.items():
            initial = self._slot_initial_values.get(key, {})
            for name, slot in slots.items():
                slot._value.fill(initial[name])
                slot._version += 1
            for slot in self._aux.get(key, {}).values():
                slot._value.fill(0)
                slot._version += 1
        self._iterations._value.fill(0)
        self._iterations._version += 1

    # -- weight decay -----------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Exempt variables from weight decay: these objects, or any whose name matches.

        Args:
            var_list: variables to exclude.
            var_names: substrings / regular expressions searched in variable
                names (e.g. ["bias", "batch_normalization"]).

        Example:
            >>> import kerasish as ks
            >>> kernel, bias = ks.Variable([1.0], name="kernel"), ks.Variable([1.0], name="bias")
            >>> adamw = ks.optimizers.AdamW(learning_rate=0.5, weight_decay=0.5)
            >>> adamw.exclude_from_weight_decay(var_names=["bias"])
            >>> zero = ks.constant([0.0])
            >>> _ = adamw.apply_gradients([(zero, kernel), (zero, bias)])
            >>> float(kernel.numpy()[0]), float(bias.numpy()[0])  # decayed by lr * wd, kept
            (0.75, 1.0)
        """
        self._excluded_from_decay.update(id(v) for v in var_list or ())
        self._excluded_names.extend(re.compile(n) for n in var_names or ())

    def _decay_factor(self, var: Variable, lr: float):
        """The multiplier 1 - lr * weight_decay for `var`, or None when it is not decayed."""
        if not self.weight_decay or id(var) in self._excluded_from_decay:
            return None
        if any(pattern.search(var.name) for pattern in self._excluded_names):
            return None
        return 1.0 - lr * self.weight_decay

    # -- applying gradients -------------------------------------------------------
    def scale_loss(self, loss):
        """The loss to differentiate (Keras 3's name): `loss` itself, except in `fit` under
        `ks.distribute`, where it is this rank's share of the global batch's loss, so the
        ranks' gradients are summed as they are (`GradientExchange.scale_loss`).

        Args:
            loss: the step's loss, a scalar tensor.

        Returns:
            The loss to pass to `tape.gradient`.

        Example:
            >>> import kerasish as ks
            >>> float(ks.optimizers.SGD().scale_loss(ks.constant(2.0)))  # alone: unchanged
            2.0
        """
        if self.loss_scale_factor is not None:
            loss = loss * self.loss_scale_factor
        if self.gradient_exchange is None:
            return loss
        return self.gradient_exchange.scale_loss(loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Update each variable from its gradient; returns `iterations`.

        Args:
            grads_and_vars: (gradient, variable) pairs: a list, or `zip(grads, vars)`.
                A gradient is a tensor (or array) of the variable's shape, an
                `ks.IndexedSlices` (only the touched rows are updated), or None
                (the pair is skipped, and a warning names such variables the
                first time a given set of them is missing).
            global_step: TF1-style step variable (`ks.get_or_create_global_step()`)
                to add one to.
            name: ignored (TF1 compatibility).

        Returns:
            The `iterations` variable (one more than before, unless no pairs were given).

        Raises:
            ValueError: if every gradient is None (naming the variables), or a
                variable appears twice.
            TypeError: if an item is not a (gradient, variable) pair.

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0])
            >>> sgd = ks.optimizers.SGD(learning_rate=0.1)
            >>> int(sgd.apply_gradients([(ks.constant([10.0, -10.0]), var)]))
            1
            >>> var.numpy()
            array([0., 3.], dtype=float32)
        """
        del name
        pairs, skipped, seen = [], [], set()
        for item in grads_and_vars:
            try:
                grad, var = item
            except (TypeError, ValueError):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients expects (gradient, variable) pairs, "
                    f"e.g. zip(grads, model.trainable_variables); got an item {item!r}"
                ) from None
            if not isinstance(var, Variable):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients: expected a ks.Variable to update, got "
                    f"{type(var).__name__}; only variables can be changed in place"
                )
            if id(var) in seen:
                raise ValueError(
                    f"{type(self).__name__}.apply_gradients: variable '{var.name}' appears more "
                    "than once; add its gradients together and pass it once"
                )
            seen.add(id(var))
            if grad is None:
                skipped.append(var)
            else:
                pairs.append((grad, var))
        if not pairs:
            if not skipped:
                return self._iterations  # no variables at all (a model with no weights)
            raise ValueError(
                f"{type(self).__name__}.apply_gradients: no gradient was provided for any variable "
                f"({', '.join(repr(v.name) for v in skipped)}). Check that the loss is computed "
                "from these variables inside the GradientTape block (tape.gradient returns None "
                "for a variable the loss does not depend on)."
            )
        if skipped and tuple(map(id, skipped)) not in self._warned_missing:
            self._warned_missing.add(tuple(map(id, skipped)))
            warnings.warn(
                f"{type(self).__name__}.apply_gradients: gradients do not exist for variables "
                f"{[v.name for v in skipped]}, so they were not updated (the loss does not "
                "depend on them; tape.explain(loss, variable) says why).",
                UserWarning,
                stacklevel=2,
            )
        self._apply(pairs)
        if global_step is not None:
            global_step.assign_add(1)
        return self._iterations

    def apply(self, grads, trainable_variables) -> Variable:
        """Keras 3 spelling: `apply_gradients(zip(grads, trainable_variables))`.

        Args:
            grads: one gradient (or None) per variable.
            trainable_variables: the variables, in the order of `grads`.

        Returns:
            The `iterations` variable.

        Raises:
            ValueError: if the two lists differ in length.

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0])
            >>> _ = ks.optimizers.SGD(0.5).apply([ks.constant([2.0, 2.0])], [var])
            >>> var.numpy()
            array([0., 1.], dtype=float32)
        """
        return self.apply_gradients(zip(grads, trainable_variables, strict=True))

    def _apply(self, pairs) -> None:
        tracer = recording.current_tracer()
        if tracer is not None:  # inside ks.function: one recorded update, replayed live
            tracer.optimizer_update(self, pairs)
            return
        self.apply_eagerly(pairs)

    # -- the interface of ks.function's tracer (core/function/tracer.py) ------------------
    def apply_eagerly(self, pairs) -> None:
        """Apply `(gradient, variable)` pairs now: gradients prepared (dense or sparse),
        exchanged across ranks (ks.distribute), clipped, then the update rule, constraints
        and the step count.

        `apply_gradients` ends here outside ks.function. Inside, ks.function's tracer
        records the update as one effect and calls this on every replay with that call's
        gradients, unless `replay_plan` gives a faster plan.

        Args:
            pairs: `(gradient, variable)` pairs, gradients dense or `ks.IndexedSlices`.

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0])
            >>> ks.optimizers.SGD(0.5).apply_eagerly([(ks.constant([2.0, 2.0]), var)])
            >>> var.numpy()
            array([0., 1.], dtype=float32)
        """
        groups: dict = {}  # id(indices) -> backend.RowGroups, shared by sparse gradients
        prepared = [(self._prepare_gradient(grad, var, groups), var) for grad, var in pairs]
        if self.gradient_exchange is not None:  # ks.distribute: the average over the ranks
            prepared = self.gradient_exchange(prepared)
        if self.loss_scale_factor is not None:
            scale = self.loss_scale_factor
            prepared = [(_map_grad(g, lambda a: a / a.dtype.type(scale)), v)
                        for g, v in prepared]
        for _, var in prepared:
            if id(var) not in self._built:
                self._create_slots(var)
        if self.gradient_accumulation_steps:
            prepared = self._accumulate(prepared)
        if prepared is not None:
            prepared = self._clip_gradients(prepared)
            lr = self._current_learning_rate()
            self._step = self._updates_made() + 1
            self._begin_step()
            with backend.subnormals_flushed(bool(self._slot_specs())):  # decaying slots
                for grad, var in prepared:
                    if isinstance(grad, SparseGrad):
                        self.sparse_update_step(grad.values, grad.indices, var, lr)
                    else:
                        self.update_step(grad, var, lr)
            if self.gradient_accumulation_steps:
                for aux in self._aux.values():  # every accumulator starts again from 0
                    aux["gradient_accumulator"]._value.fill(0)
                    aux["gradient_accumulator"]._version += 1
        _apply_constraints([var for _, var in pairs])
        if self.use_ema:
            self._update_averages()
        self._iterations._value += 1
        self._iterations._version += 1

    def _accumulate(self, prepared: list):
        """Gradient accumulation (Keras's): on all but every N-th call, add the gradients
        to the accumulators and return None (no update); on the N-th, return the dense
        gradients (this call's plus the accumulated) divided by N."""
        steps = self.gradient_accumulation_steps
        update = (int(self._iterations._value) + 1) % steps == 0
        result = []
        for grad, var in prepared:
            accumulator = self._aux[id(var)]["gradient_accumulator"]
            total = accumulator._value.copy() if update else accumulator._value
            if isinstance(grad, SparseGrad):
                total[grad.indices] += grad.values
            else:
                total += grad
            if update:
                result.append((total / total.dtype.type(steps), var))  # (CuPy takes a scalar)
            else:
                accumulator._version += 1
        return result if update else None

    def _update_averages(self) -> None:
        """EMA step (Keras's `use_ema`): every average moves toward its variable (the first
        update copies it); every `ema_overwrite_frequency` updates, the variables take the
        averages."""
        made = self._updates_made()
        for key, aux in self._aux.items():
            var, average = self._slot_owners[key], aux["average"]
            momentum = average.dtype.type(self.ema_momentum if made != 0 else 0.0)
            one = average.dtype.type(1.0)
            average._value[...] = momentum * average._value + (one - momentum) * var._value
            average._version += 1
        if self.ema_overwrite_frequency and (made + 1) % self.ema_overwrite_frequency == 0:
            self._overwrite_with_averages()

    def _overwrite_with_averages(self, var_list=None) -> None:
        wanted = None if var_list is None else {id(v) for v in var_list}
        for key, aux in self._aux.items():
            if "average" in aux and (wanted is None or key in wanted):
                self._slot_owners[key].assign(aux["average"])

    def finalize_variable_values(self, var_list) -> None:
        """Set the variables' final values: with `use_ema`, their moving averages (as
        Keras's `fit` does at its end); otherwise nothing changes.

        Args:
            var_list: the model's trainable variables.

        Example:
            >>> import kerasish as ks
            >>> w = ks.Variable([1.0])
            >>> opt = ks.optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5)
            >>> for _ in range(2):
            ...     _ = opt.apply_gradients([(ks.constant([1.0]), w)])
            >>> opt.finalize_variable_values([w])
            >>> w.numpy()  # the average of 0 (first step) and -1: 0.5 * 0 + 0.5 * -1
            array([-0.5], dtype=float32)
        """
        if self.use_ema:
            self._overwrite_with_averages(list(var_list))

    def replay_plan(self, variables: list):
        """`run(*gradient_arrays)` applying dense gradients (arrays of each variable's shape,
        dtype and device) as `apply_eagerly` does, without its per-call checks; None where
        those checks do work (clipping, weight decay, constraints, a gradient exchange,
        slots not made yet).

        ks.function's tracer asks for it once the update it records has run (the slots
        exist) and replays `run` in place of `apply_eagerly` on every call; `run.graph_state`
        names the arrays a captured CUDA graph updates.

        Args:
            variables: the variables the gradients are for, in the order `run` takes them.

        Returns:
            `run`, or None.

        Example:
            >>> import numpy as np, kerasish as ks
            >>> var, sgd = ks.Variable([1.0, 2.0]), ks.optimizers.SGD(0.5)
            >>> sgd.build([var])
            >>> sgd.replay_plan([var])(np.array([2.0, 2.0], np.float32))
            >>> var.numpy()
            array([0., 1.], dtype=float32)
        """
        if (self.gradient_exchange is not None or self.weight_decay or self.use_ema
                or self.gradient_accumulation_steps or self.loss_scale_factor is not None
                or any(getattr(self, c) is not None for c in _CLIP_ARGS)
                or any(v.constraint is not None or id(v) not in self._built for v in variables)):
            return None
        iterations, update, all_slots = self._iterations, self.update_arrays, self._slots
        flush = bool(self._slot_specs())

        def run(*grads):
            if self.gradient_exchange is not None:  # made since (fit under MPI): exchange
                self.apply_eagerly(list(zip(grads, variables)))
                return
            # while captured, the update rules take offsets, not numbers: nothing is read (a
            # learning rate on the GPU would be a transfer) and no host state changes
            capturing = backend.graph_state.mode == "capture"
            lr = 0.0 if capturing else self._current_learning_rate()
            if not capturing:
                undo = backend.graph_state.undo  # (a replayed graph's check may yet fail)
                if undo is not None:
                    undo.append(self._restore_point())
                self._step = int(iterations._value) + 1
                self._begin_step()
            with backend.subnormals_flushed(flush):
                for grad, var in zip(grads, variables):
                    slots = all_slots[id(var)]
                    update(grad, var._value, {name: s._value for name, s in slots.items()}, lr)
                    if not capturing:
                        var._version += 1
                        for slot in slots.values():
                            slot._version += 1
            if not capturing:
                iterations._value += 1
                iterations._version += 1

        def graph_state():
            """The arrays a captured graph updates, or None once an exchange is made (the
            update then runs on the host): a graph is valid while these stay the same."""
            if self.gradient_exchange is not None:
                return None
            return tuple(array for var in variables for array in (
                var._value, *(slot._value for slot in all_slots[id(var)].values())))

        run.graph_state = graph_state
        return run

    def update_step(self, grad, var: Variable, lr: float) -> None:
        """Apply a dense gradient (an array of the variable's shape) to `var` in place.

        Weight decay (if any) is applied first, then `update_arrays` on the raw arrays.
        `apply_gradients` calls it after clipping; call it directly only to bypass that.

        Args:
            grad: a raw array (NumPy or CuPy) of the variable's shape, on its device.
            var: the variable to update; its slots must exist (`build`).
            lr: the learning rate for this step.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0, 2.0])
            >>> sgd = ks.optimizers.SGD()
            >>> sgd.build([var])
            >>> sgd.update_step(np.array([1.0, 1.0], np.float32), var, lr=0.5)
            >>> var.numpy()
            array([0.5, 1.5], dtype=float32)
        """
        param = var._value
        factor = self._decay_factor(var, lr)
        if factor is not None:
            param *= factor
        slots = self._slots[id(var)]
        self.update_arrays(grad, param, {name: s._value for name, s in slots.items()}, lr)
        var._version += 1
        for slot in slots.values():
            slot._version += 1

    def sparse_update_step(self, values, indices, var: Variable, lr: float) -> None:
        """Apply a sparse gradient: rows `indices` (unique) of `var` receive `values`.

        Only those rows of the variable and of its slots are read and written:
        the same `update_arrays` rule runs on copies of the rows, which are
        then written back (for Adam this is "lazy Adam"). An optimizer whose rule reads
        the whole variable (Lamb's and Adafactor's norms) sets `_dense_sparse_updates`:
        the gradient is then made dense (zeros elsewhere) and applied by `update_step`.

        Args:
            values: a raw array of the new gradients of those rows, shape
                ``(len(indices),) + var.shape[1:]``.
            indices: a raw integer array of distinct row indices.
            var: the variable to update; its slots must exist (`build`).
            lr: the learning rate for this step.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> var = ks.Variable(np.ones((3, 2), np.float32))
            >>> sgd = ks.optimizers.SGD()
            >>> sgd.build([var])
            >>> sgd.sparse_update_step(np.ones((1, 2), np.float32), np.array([1]), var, lr=1.0)
            >>> var.numpy()[:, 0]
            array([1., 0., 1.], dtype=float32)
        """
        if self._dense_sparse_updates:
            dense = backend.array_module(var._value).zeros_like(var._value)
            dense[indices] = values
            self.update_step(dense, var, lr)
            return
        param = var._value
        rows = param.take(indices, axis=0)  # take: faster than param[indices] for rows
        factor = self._decay_factor(var, lr)
        if factor is not None:
            rows *= factor
        slots = self._slots[id(var)]
        slot_rows = {name: s._value.take(indices, axis=0) for name, s in slots.items()}
        self.update_arrays(values, rows, slot_rows, lr)
        param[indices] = rows
        var._version += 1
        for name, slot in slots.items():
            slot._value[indices] = slot_rows[name]
            slot._version += 1

    def update_arrays(self, grad, param, slots: dict, lr: float) -> None:
        """The update rule on raw arrays, in place: implemented by each optimizer.

        Written once for NumPy and CuPy (through `backend.array_module`); it reads
        ``self._step`` (the 1-based step number) where the rule needs it.

        Args:
            grad: the gradient array, `param`'s shape.
            param: the variable's array, updated in place.
            slots: this variable's slot arrays by slot name, updated in place.
            lr: the learning rate for this step.

        Raises:
            NotImplementedError: on an optimizer class that does not define it.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> param = np.array([1.0, 2.0], np.float32)
            >>> ks.optimizers.SGD().update_arrays(np.array([1.0, -1.0], np.float32), param, {}, 0.1)
            >>> param
            array([0.9, 2.1], dtype=float32)
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement update_arrays(grad, param, slots, lr)"
        )

    # -- gradient preparation and clipping ------------------------------------------
    def _prepare_gradient(self, grad, var: Variable, groups: dict):
        """The gradient as a raw array on the variable's device and dtype (or a SparseGrad)."""
        kind = type(self).__name__
        if var.dtype.kind != "f":
            raise InvalidArgumentError(
                f"{kind}: cannot apply a gradient to variable '{var.name}' of dtype {var.dtype}; "
                "only floating-point variables are trained"
            )
        where = backend.device_of(var._value)
        if isinstance(grad, IndexedSlices):
            return self._prepare_sparse(grad, var, where, groups)
        array = convert_to_tensor(grad)._value
        if tuple(array.shape) != var.shape:
            raise InvalidArgumentError(
                f"{kind}: the gradient for variable '{var.name}' has shape {tuple(array.shape)} "
                f"but the variable has shape {var.shape}; gradients and variables are paired in "
                "order, so check the order of the zip(grads, variables) lists"
            )
        if backend.device_of(array) != where:
            array = backend.to_device(array, where)
        if array.dtype != var.dtype:
            array = array.astype(var.dtype)
        return array

    def _prepare_sparse(self, grad: IndexedSlices, var: Variable, where, groups: dict):
        """A SparseGrad with distinct rows (repeats summed); `groups` caches the index sorts."""
        kind = type(self).__name__
        values = convert_to_tensor(grad.values)._value
        indices = grad.indices._value if isinstance(grad.indices, Tensor) else grad.indices
        if not hasattr(indices, "dtype"):
            indices = np.asarray(indices)
        if tuple(grad.dense_shape) != var.shape or tuple(values.shape[1:]) != var.shape[1:]:
            raise InvalidArgumentError(
                f"{kind}: the sparse gradient for variable '{var.name}' has dense_shape "
                f"{tuple(grad.dense_shape)} and rows of shape {tuple(values.shape[1:])}, but the "
                f"variable has shape {var.shape}"
            )
        if indices.dtype.kind not in "iu":
            raise InvalidArgumentError(
                f"{kind}: the sparse gradient for variable '{var.name}' has {indices.dtype} "
                "indices; they must be integers"
            )
        if indices.ndim != 1:
            indices = indices.reshape(-1)
        if values.shape[0] != indices.shape[0]:
            raise InvalidArgumentError(
                f"{kind}: the sparse gradient for variable '{var.name}' has {values.shape[0]} rows "
                f"of values but {indices.shape[0]} indices"
            )
        if backend.device_of(values) != where:
            values = backend.to_device(values, where)
        if backend.device_of(indices) != where:
            indices = backend.to_device(indices, where)
        if values.dtype != var.dtype:
            values = values.astype(var.dtype)
        if self._applies_repeated_rows():  # (the update checks the index range)
            return SparseGrad(values, indices)
        # one sort per index array (each plan keeps its array alive, so ids are not reused
        # while `groups` lives): the distinct rows, and the sum of the values of each
        plan = groups.get(id(indices))
        if plan is None:
            plan = groups[id(indices)] = backend.RowGroups(indices)
        unique, summed = backend.unique_sum_rows(indices, values, plan)
        if unique.shape[0] and (int(unique[0]) < 0 or int(unique[-1]) >= var.shape[0]):
            self._raise_bad_index(var, int(unique[0]) if int(unique[0]) < 0 else int(unique[-1]))
        return SparseGrad(summed, unique)

    def _applies_repeated_rows(self) -> bool:
        """Whether a sparse gradient goes to `sparse_update_step` with its repeated rows as
        they are (the update adds each one; nothing clips or exchanges the rows first)."""
        return False

    def _raise_bad_index(self, var: Variable, index: int):
        raise InvalidArgumentError(
            f"{type(self).__name__}: the sparse gradient for variable '{var.name}' has index "
            f"{index}, which is not in [0, {var.shape[0]})"
        )

    def _clip_gradients(self, prepared: list) -> list:
        """Apply clipvalue / clipnorm / global_clipnorm to raw gradients (new arrays)."""
        if self.clipvalue is not None:
            c = self.clipvalue
            return [(_map_grad(g, lambda a: a.clip(-c, c)), v) for g, v in prepared]
        if self.clipnorm is not None:
            c = self.clipnorm
            return [(_map_grad(g, lambda a: a * _clip_scale(_sum_of_squares(a), c)), v)
                    for g, v in prepared]
        if self.global_clipnorm is not None:
            total = sum(_sum_of_squares(_grad_array(g)) for g, _ in prepared)
            scale = _clip_scale(total, self.global_clipnorm)
            return [(_map_grad(g, lambda a: a * scale), v) for g, v in prepared]
        return prepared

    # -- minimize ------------------------------------------------------------------
    def minimize(self, loss, var_list=None, global_step=None, tape=None):
        """Compute gradients of `loss` and apply them; returns the loss value.

        Args:
            loss: a zero-argument callable returning the loss (run under a new
                GradientTape), or a loss tensor together with the `tape` that recorded it.
            var_list: the variables to update (or a callable returning them);
                default: the trainable variables the loss read.
            global_step: TF1-style step variable to add one to.
            tape: the GradientTape that recorded a loss tensor.

        Returns:
            The loss value that was differentiated.

        Raises:
            ValueError: for a loss tensor given without its `tape`.

        Example:
            >>> import kerasish as ks
            >>> x = ks.Variable(3.0)
            >>> float(ks.optimizers.SGD(learning_rate=0.25).minimize(lambda: x * x, [x]))
            9.0
            >>> float(x)  # 3 - 0.25 * 2 * 3
            1.5
        """
        if callable(loss) and not isinstance(loss, Tensor):
            with GradientTape() as tape:
                if var_list is not None and not callable(var_list):
                    tape.watch([v for v in var_list if v.dtype.kind == "f"])
                loss_value = loss()
        elif tape is None:
            raise ValueError(
                f"{type(self).__name__}.minimize: a loss tensor needs the GradientTape that "
                "recorded it (pass tape=...), or pass a zero-argument callable such as "
                "lambda: loss_fn(model, x, y)"
            )
        else:
            loss_value = loss
        if callable(var_list):
            var_list = var_list()
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
            if not var_list:
                warnings.warn(
                    f"{type(self).__name__}.minimize: the loss read no trainable variable, so "
                    "nothing was updated; pass var_list=[...] or compute the loss from the "
                    "model's variables",
                    UserWarning,
                    stacklevel=2,
                )
                return loss_value
        var_list = list(var_list)
        grads = tape.gradient(loss_value, var_list)
        self.apply_gradients(zip(grads, var_list, strict=True), global_step=global_step)
        return loss_value

    # -- configuration -----------------------------------------------------------------
    def get_config(self) -> dict:
        lr = self._learning_rate
        if isinstance(lr, Variable):
            lr = float(lr._value)
        elif isinstance(lr, LearningRateSchedule):
            lr = schedules.serialize(lr)
        return {
            "name": self.name,
            "learning_rate": lr,
            "clipnorm": self.clipnorm,
            "clipvalue": self.clipvalue,
            "global_clipnorm": self.global_clipnorm,
            "weight_decay": self.weight_decay,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        """An optimizer of this class made from `get_config`'s dict.

        Args:
            config: the constructor's keyword arguments; a learning rate given as a
                serialized schedule is rebuilt.
            custom_objects: name -> class, for custom schedule classes.

        Returns:
            A new optimizer with no slots and ``iterations`` at 0.

        Example:
            >>> import kerasish as ks
            >>> config = ks.optimizers.Adam(learning_rate=0.01).get_config()
            >>> round(float(ks.optimizers.Adam.from_config(config).learning_rate), 6)
            0.01
        """
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        lr = self._learning_rate
        lr_text = f"{float(lr._value):g}" if isinstance(lr, Variable) else repr(lr)
        return (
            f"<{type(self).__name__} '{self.name}' learning_rate={lr_text} "
            f"iterations={int(self._iterations._value)}>"
        )


# -- helpers ------------------------------------------------------------------------


def _apply_constraints(variables) -> None:
    """var <- var.constraint(var) for each updated variable with a constraint (Keras applies
    them after every update), off the tape."""
    constrained = [var for var in variables if var.constraint is not None]
    if constrained:
        with recording.paused():
            for var in constrained:
                var.assign(var.constraint(var))


def _reject_unknown(kind: str, kwargs: dict) -> None:
    if not kwargs:
        return
    hints = {
        "lr": "use learning_rate=",
        "decay": "use a schedule, e.g. learning_rate=ks.optimizers.schedules.ExponentialDecay(...)",
        "use_locking": "not needed: updates happen in place, eagerly",
    }
    details = "; ".join(
        f"{key}" + (f" ({hints[key]})" if key in hints else "") for key in sorted(kwargs)
    )
    raise TypeError(f"{kind}: unexpected argument(s): {details}")


def _learning_rate_float(kind: str, value) -> float:
    if isinstance(value, (Tensor, np.ndarray)) and value.ndim == 0:  # a scalar tensor, as Keras
        value = (value.numpy() if isinstance(value, Tensor) else value)[()]
    return arguments.number(value, "learning_rate", kind, 0,
                            other="a LearningRateSchedule or a callable")


def _learning_rate_state(kind: str, value):
    if isinstance(value, LearningRateSchedule) or (
        callable(value) and not isinstance(value, Tensor)
    ):
        return value
    return _host_variable(_learning_rate_float(kind, value), np.float32, "learning_rate")


def array_passes(optimizer) -> None:
    """Called by an `update_arrays` written with array operations rather than `UpdateRule`s:
    such an update keeps this step's numbers, so it refuses a CUDA-graph capture (the
    program then replays without a graph)."""
    if backend.graph_state.mode is not None:
        raise backend.NotCapturable(
            f"{type(optimizer).__name__} updates with array operations, not update rules")


def _grad_array(grad):
    return grad.values if isinstance(grad, SparseGrad) else grad


def _map_grad(grad, fn):
    if isinstance(grad, SparseGrad):
        return SparseGrad(fn(grad.values), grad.indices)
    return fn(grad)


def _sum_of_squares(array):
    """sum(array**2), kept on the array's device (no host synchronisation)."""
    flat = array.reshape(-1)
    return flat.dot(flat)


def _clip_scale(sum_of_squares, clip_norm: float):
    """clip_norm / max(norm, clip_norm): 1 when the norm is within bounds."""
    xp = backend.array_module(sum_of_squares)
    return clip_norm / xp.maximum(xp.sqrt(sum_of_squares), clip_norm)
