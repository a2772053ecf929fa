"""Keras 3's top-level building blocks for ops and scopes: `Operation` (a user op that runs
eagerly and records a node on symbolic tensors), `Function` (a graph of them between
symbolic inputs and outputs), `StatelessScope`, `SymbolicScope`,
`RematScope` with `remat`, and `Quantizer` (which says quantization is not supported).

`remat(f)` is real rematerialization on kerasish's tape: the forward pass keeps nothing
of `f`'s intermediates, and the backward pass runs `f` again under a tape to get them.
"""

from __future__ import annotations

import functools
import threading
import warnings

from kerasish.core import autodiff, nest, recording
from kerasish.core import tensor as tensor_module
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor, Node, any_symbolic, inbound_nodes
from kerasish.core.naming import snake_case, unique_name
from kerasish.core.symbolic import infer_output_specs
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor

# ---------------------------------------------------------------- Operation


class Operation:
    """The base of an op a user writes, as Keras's `keras.Operation`: override `call` (the
    computation on tensors) and, optionally, `compute_output_spec` (the output's
    `KerasTensor` for symbolic inputs; by default found by running `call` on zeros).

    Called on concrete tensors it runs `call`; called on symbolic tensors (`ks.Input` and
    what it feeds) it records a node, so a functional model can hold it.

    Args:
        name: the op's name (default: the class name in snake case, made unique).

    Example:
        >>> import kerasish as ks
        >>> class Double(ks.Operation):
        ...     def call(self, x):
        ...         return x * 2.0
        >>> float(Double()(ks.constant(3.0)))
        6.0
        >>> Double()(ks.Input((4,))).shape
        (None, 4)
    """

    def __init__(self, name=None, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected arguments {sorted(kwargs)}")
        self.name = name or unique_name(snake_case(type(self).__name__))
        self._inbound_nodes = []

    def __call__(self, *args, **kwargs):
        if any_symbolic((args, kwargs)):
            return self.symbolic_call(*args, **kwargs)
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        """The computation; subclasses override it.

        Args:
            *args: the op's tensors and other arguments.
            **kwargs: its keyword arguments.

        Raises:
            NotImplementedError: on a subclass that does not override it.

        Example:
            >>> import kerasish as ks
            >>> try:
            ...     ks.Operation().call(1.0)
            ... except NotImplementedError as error:
            ...     print(error)
            Operation must implement call()
        """
        raise NotImplementedError(f"{type(self).__name__} must implement call()")

    def compute_output_spec(self, *args, **kwargs):
        """The outputs' `KerasTensor`s for symbolic arguments: by default `call` run once on
        zeros (each unknown dimension tried at two sizes). Override it where that cannot run.

        Args:
            *args: `call`'s arguments, some symbolic.
            **kwargs: its keyword arguments.

        Returns:
            A structure of `KerasTensor`s.

        Example:
            >>> import kerasish as ks
            >>> class Double(ks.Operation):
            ...     def call(self, x):
            ...         return x * 2.0
            >>> Double().compute_output_spec(ks.KerasTensor((None, 3))).shape
            (None, 3)
        """
        return infer_output_specs(self.call, args, kwargs)

    def symbolic_call(self, *args, **kwargs):
        """Record a node of this op on symbolic arguments; its symbolic outputs.

        Args:
            *args: `call`'s arguments, some symbolic.
            **kwargs: its keyword arguments.

        Returns:
            The outputs `compute_output_spec` describes, as tensors of the new node.

        Example:
            >>> import kerasish as ks
            >>> class Double(ks.Operation):
            ...     def call(self, x):
            ...         return x * 2.0
            >>> Double().symbolic_call(ks.Input((4,))).shape
            (None, 4)
        """
        specs = self.compute_output_spec(*args, **kwargs)
        return Node(self, args, kwargs, specs).outputs

    def _node_tensors(self, which: str) -> list:
        nodes = inbound_nodes(self)
        if not nodes:
            raise AttributeError(f"{self.name} has not been called on symbolic tensors")
        return getattr(nodes[0], which)

    @property
    def input(self):
        """The symbolic input(s) of the op's first call."""
        found = self._node_tensors("input_tensors")
        return found[0] if len(found) == 1 else found

    @property
    def output(self):
        """The symbolic output(s) of the op's first call."""
        return self._node_tensors("outputs")

    def get_config(self) -> dict:
        """The constructor's arguments (the name; subclasses add theirs)."""
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        """An op made from `get_config`'s dict.

        Args:
            config: the constructor's keyword arguments.

        Returns:
            A new op.

        Example:
            >>> import kerasish as ks
            >>> ks.Operation.from_config({"name": "op"}).name
            'op'
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f"<Operation name={self.name}>"


class Function:
    """A function of symbolic inputs to symbolic outputs (Keras's `keras.Function`): the ops
    and layers recorded between them, run in order on concrete values when called.

    Unlike a functional `Model`, it owns no weights of its own and takes any symbolic
    tensors as inputs (`ks.KerasTensor(shape)` or `ks.Input`), also from inside a graph.

    Args:
        inputs: a symbolic tensor or a structure of them.
        outputs: a symbolic tensor or a structure of them, computed from `inputs`.
        name: the function's name.

    Raises:
        InvalidArgumentError: an input or output that is not symbolic, or an output that
            depends on a symbolic tensor not among the inputs.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> x = ks.KerasTensor((None, 3))
        >>> f = ks.Function(x, ks.ops.sum(x * 2.0, axis=1))
        >>> ks.ops.convert_to_numpy(f(np.ones((2, 3), "float32"))).tolist()
        [6.0, 6.0]
    """

    def __init__(self, inputs, outputs, name=None):
        self.name = name or unique_name("function")
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self._flat_inputs, self._flat_outputs = nest.flatten(inputs), nest.flatten(outputs)
        for what, tensors in (("inputs", self._flat_inputs), ("outputs", self._flat_outputs)):
            wrong = [t for t in tensors if not isinstance(t, KerasTensor)]
            if wrong or not tensors:
                raise InvalidArgumentError(
                    f"Function: {what} must be symbolic tensors (ks.KerasTensor or ks.Input), "
                    f"got {wrong[0] if wrong else 'none'!r}")
        self._nodes = self._walk()

    def _walk(self) -> list:
        """The nodes between the inputs and the outputs, each after those it reads."""
        given = {id(t) for t in self._flat_inputs}
        order, done = [], set()
        stack = [(t, False) for t in reversed(self._flat_outputs)]
        while stack:
            tensor, expanded = stack.pop()
            if id(tensor) in given:
                continue
            history = tensor._keras_history
            if history is None:
                raise InvalidArgumentError(
                    f"Function: the outputs depend on {tensor!r}, which is not among the inputs")
            node = inbound_nodes(history.operation)[history.node_index]
            if id(node) in done:
                continue
            if not node.input_tensors and not node.args and not node.kwargs:
                raise InvalidArgumentError(
                    f"Function: the outputs depend on the input {tensor.name!r}, which is not "
                    "among the inputs")
            if expanded:
                done.add(id(node))
                order.append(node)
                continue
            stack.append((tensor, True))
            stack.extend((t, False) for t in reversed(node.input_tensors)
                         if id(t) not in given)
        return order

    @property
    def inputs(self) -> list:
        """The symbolic inputs, flat."""
        return list(self._flat_inputs)

    @property
    def outputs(self) -> list:
        """The symbolic outputs, flat."""
        return list(self._flat_outputs)

    @property
    def operations(self) -> list:
        """The ops and layers the function runs, in order (each once)."""
        seen, found = set(), []
        for node in self._nodes:
            if id(node.operation) not in seen:
                seen.add(id(node.operation))
                found.append(node.operation)
        return found

    def call(self, inputs):
        """Run the graph on `inputs` (the structure of the symbolic inputs); the outputs.

        Args:
            inputs: values (or symbolic tensors) in the structure of the function's inputs.

        Returns:
            The outputs, in the structure of the function's outputs.

        Raises:
            InvalidArgumentError: a different number of input tensors.

        Example:
            >>> import kerasish as ks
            >>> x = ks.KerasTensor((2,))
            >>> ks.Function(x, x + 1.0).call(ks.constant([1.0, 2.0])).numpy().tolist()
            [2.0, 3.0]
        """
        values = nest.flatten(inputs)
        if len(values) != len(self._flat_inputs):
            raise InvalidArgumentError(
                f"Function {self.name}: expected {len(self._flat_inputs)} input tensor(s), "
                f"got {len(values)}")
        known = {id(t): v for t, v in zip(self._flat_inputs, values)}
        for node in self._nodes:
            leaves = [known[id(x)] if isinstance(x, KerasTensor) else x
                      for x in nest.flatten((node.args, node.kwargs))]
            args, kwargs = nest.pack_sequence_as((node.args, node.kwargs), leaves)
            result = node.operation(*args, **kwargs)
            for tensor, value in zip(node.output_tensors, nest.flatten(result)):
                known[id(tensor)] = value
        return nest.pack_sequence_as(self._outputs_struct,
                                     [known[id(t)] for t in self._flat_outputs])

    __call__ = call

    def compute_output_spec(self, inputs):
        """The outputs' `KerasTensor`s for inputs of these shapes (found on zeros).

        Args:
            inputs: symbolic tensors in the structure of the function's inputs.

        Returns:
            `KerasTensor`s in the structure of the function's outputs.

        Example:
            >>> import kerasish as ks
            >>> x = ks.KerasTensor((None, 2))
            >>> ks.Function(x, x * 2.0).compute_output_spec(ks.KerasTensor((5, 2))).shape
            (5, 2)
        """
        return infer_output_specs(self.call, (inputs,), {})

    def __repr__(self) -> str:
        return f"<Function name={self.name}: {len(self._nodes)} nodes>"


# ---------------------------------------------------------------- scopes


class _Scopes(threading.local):
    def __init__(self):
        self.stateless = []
        self.symbolic = 0
        self.remat = []


_scopes = _Scopes()


def _before_update(variable) -> None:
    if _scopes.stateless:
        _scopes.stateless[-1]._keep(variable)


tensor_module.variable_update_hooks.append(_before_update)


class StatelessScope:
    """A block in which variables read the values given for them and assignments change
    nothing outside: Keras's `StatelessScope`. After the block, `get_current_value(v)` gives
    what `v` held at its end, and `v` itself holds what it held before.

    Args:
        state_mapping: pairs (variable, value) the variables read inside the block.
        collect_losses: Keras's collection of `add_loss` losses in the scope; not
            supported here (True raises).
        initialize_variables: True (kerasish initializes a variable when it is created;
            False, deferring it, raises).

    Raises:
        NotImplementedError: `collect_losses=True` or `initialize_variables=False`.
        InvalidArgumentError: a mapping entry that is not (variable, value of its shape).

    Example:
        >>> import kerasish as ks
        >>> v = ks.Variable(1.0)
        >>> with ks.StatelessScope(state_mapping=[(v, 5.0)]) as scope:
        ...     doubled = v * 2.0
        ...     _ = v.assign(7.0)
        >>> float(doubled), float(scope.get_current_value(v)), float(v)
        (10.0, 7.0, 1.0)
    """

    def __init__(self, state_mapping=None, collect_losses: bool = False,
                 initialize_variables: bool = True):
        if collect_losses:
            raise NotImplementedError(
                "StatelessScope: collect_losses=True is not supported; read the layers' "
                "`losses` after the call instead")
        if not initialize_variables:
            raise NotImplementedError(
                "StatelessScope: initialize_variables=False is not supported: kerasish "
                "initializes each variable when it is created")
        self._mapping = []
        for entry in state_mapping or []:
            if not (isinstance(entry, (tuple, list)) and len(entry) == 2
                    and isinstance(entry[0], Variable)):
                raise InvalidArgumentError(
                    f"StatelessScope: state_mapping holds (variable, value) pairs, got {entry!r}")
            variable, value = entry
            value = convert_to_tensor(value, variable.dtype, _allow_cast=True)
            if tuple(value.shape) != tuple(variable.shape):
                raise InvalidArgumentError(
                    f"StatelessScope: the value for variable '{variable.name}' has shape "
                    f"{value.shape}, the variable {variable.shape}")
            self._mapping.append((variable, value))
        self._originals = {}
        self._final = {}

    def _keep(self, variable) -> None:
        if id(variable) not in self._originals:
            self._originals[id(variable)] = (variable, variable._value)
            variable._value = variable._value.copy()

    def __enter__(self):
        for variable, value in self._mapping:
            self._originals[id(variable)] = (variable, variable._value)
            variable._value = value._value.copy()
        _scopes.stateless.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _scopes.stateless.remove(self)
        for variable, original in self._originals.values():
            self._final[id(variable)] = Tensor(variable._value)
            variable._value = original
        self._originals = {}

    def get_current_value(self, variable):
        """The value `variable` holds in the scope (at its end, once it has ended); None for
        a variable the scope neither mapped nor saw assigned.

        Args:
            variable: a variable.

        Returns:
            A tensor, or None.

        Example:
            >>> import kerasish as ks
            >>> v = ks.Variable(1.0)
            >>> with ks.StatelessScope() as scope:
            ...     _ = v.assign(3.0)
            >>> float(scope.get_current_value(v)), float(v)
            (3.0, 1.0)
        """
        if id(variable) in self._originals:
            return Tensor(variable._value.copy())
        return self._final.get(id(variable))


class SymbolicScope:
    """A block marked as symbolic tracing (Keras's `SymbolicScope`, which Keras opens while it
    computes output specs); `SymbolicScope.active()` says whether one is open. Nothing else
    changes: kerasish's symbolic tensors work in and out of it.

    Example:
        >>> import kerasish as ks
        >>> with ks.SymbolicScope():
        ...     inside = ks.SymbolicScope.active()
        >>> inside, ks.SymbolicScope.active()
        (True, False)
    """

    def __enter__(self):
        _scopes.symbolic += 1
        return self

    def __exit__(self, *exc) -> None:
        _scopes.symbolic -= 1

    @staticmethod
    def active() -> bool:
        """Whether a `SymbolicScope` is open in this thread."""
        return _scopes.symbolic > 0


_REMAT_MODES = (None, "full", "activations", "larger_than", "list_of_layers")


class RematScope:
    """Keras's `RematScope`: which layers created inside recompute their activations in the
    backward pass instead of keeping them.

    kerasish's layers keep what their gradient needs; they do not consult the scope, so
    entering one with a mode warns that nothing is rematerialized. Wrap the function with
    `ks.remat` to trade the recomputation for memory.

    Args:
        mode: None, 'full', 'activations', 'larger_than' or 'list_of_layers'.
        output_size_threshold: Keras's size threshold for 'larger_than'.
        layer_names: Keras's layer names for 'list_of_layers'.

    Raises:
        InvalidArgumentError: an unknown mode.

    Example:
        >>> import warnings
        >>> import kerasish as ks
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with ks.RematScope(mode="full") as scope:
        ...         pass
        >>> scope.mode
        'full'
    """

    def __init__(self, mode="full", output_size_threshold: int = 1024, layer_names=None):
        if mode not in _REMAT_MODES:
            raise InvalidArgumentError(
                f"RematScope: mode must be one of {list(_REMAT_MODES)}, got {mode!r}")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names or [])

    def __enter__(self):
        if self.mode is not None:
            warnings.warn(
                "RematScope: kerasish's layers do not rematerialize (they keep their "
                "activations); wrap a function with ks.remat to recompute it in the backward "
                "pass", stacklevel=2)
        _scopes.remat.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _scopes.remat.remove(self)


def remat(f):
    """`f` rematerialized: the forward pass keeps none of its intermediate values, and the
    backward pass runs `f` again under a tape to differentiate it (less memory, one more
    forward computation), as Keras's `remat`.

    Args:
        f: a function of tensors (it may read trainable variables) returning a tensor or a
            structure of tensors.

    Returns:
        A function with `f`'s arguments, values and gradients.

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant(3.0)
        >>> with ks.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = ks.remat(lambda t: ks.sin(t) * t)(x)
        >>> round(float(tape.gradient(y, x)), 4)  # sin(3) + 3 cos(3)
        -2.8289
    """

    @functools.wraps(f)
    def rematerialized(*args, **kwargs):
        if not recording.active_tapes():
            return f(*args, **kwargs)

        @autodiff.custom_gradient
        def checkpointed(*inputs):
            outputs = f(*inputs, **kwargs)

            def gradient(*output_gradients, variables=None):
                sources = list(inputs) + list(variables or ())
                with GradientTape() as tape:
                    for x in inputs:
                        tape.watch(x)
                    again = f(*inputs, **kwargs)
                grads = tape.gradient(nest.flatten(again), sources,
                                      output_gradients=list(output_gradients))
                if variables:
                    return grads[:len(inputs)], grads[len(inputs):]
                return grads

            return outputs, gradient

        return checkpointed(*args)

    return rematerialized


class Quantizer:
    """Keras's quantizer base (`keras.Quantizer`): kerasish does not quantize (no int8 or
    float8 kernels on NumPy/CuPy), so making one raises.

    Args:
        output_dtype: Keras's quantized dtype.

    Raises:
        NotImplementedError: always, saying so.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.Quantizer()
        ... except NotImplementedError as error:
        ...     print(str(error).split(":")[0])
        Quantizer
    """

    def __init__(self, output_dtype="int8"):
        raise NotImplementedError(
            f"Quantizer: quantization (output_dtype={output_dtype!r}) is not supported: "
            "kerasish computes in float16/32/64 with NumPy/CuPy, which have no int8 or float8 "
            "matrix kernels")


__all__ = ["Function", "Operation", "Quantizer", "RematScope", "StatelessScope",
           "SymbolicScope", "remat"]
