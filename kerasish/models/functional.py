"""Functional models: `ks.Model(inputs, outputs)` over a graph of recorded layer calls.

`ks.Input` and the layers and ops called on it record nodes (see
`kerasish.layers.symbolic` and `kerasish.core.symbolic`); `Functional` walks back
from the outputs to the inputs once, keeps the nodes in topological order, and,
when called on data, runs them in that order with eager ops, so gradients flow
through the normal tape and `training` reaches every layer as in any other call (as in
Keras 3, a `training` given to the model's call also replaces one a node was recorded with:
`base(x, training=False)` trains under `fit` unless `base.trainable` is False). Shared layers
(one layer called on two inputs) keep one set of weights; a functional model
called on symbolic tensors records one node, like any layer.

Checkpoint paths name each layer: `layers/<layer name>/<weight>`, so they do not
depend on the order in which the graph was walked.

Example:
    >>> import kerasish as ks
    >>> inputs = ks.Input((4,), name="features")
    >>> hidden = ks.layers.Dense(8, activation="relu", name="hidden")(inputs)
    >>> outputs = ks.layers.Dense(1, name="score")(hidden)
    >>> model = ks.Model(inputs, outputs, name="scorer")
    >>> [layer.name for layer in model.layers]
    ['features', 'hidden', 'score']
    >>> model(ks.ones([2, 4])).shape
    (2, 1)
"""

from __future__ import annotations

import inspect

from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor, inbound_nodes, producing_node
from kerasish.core.ops import math_ops, shape_ops
from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.core.symbolic import KerasOp, PrimitiveOp, keras_op_form
from kerasish.core.tensor import Tensor, dtype_name
from kerasish.layers.base import Layer
from kerasish.layers.input_layer import InputLayer
from kerasish.models.model import Model

_functional_subclasses: dict = {}


class _NotYetCalled(Exception):
    """A node of a config reads a layer call that has not been rebuilt yet."""


def _accepted_kwargs(operation, kwargs: dict) -> dict:
    """`kwargs` without the None-valued ones the layer's `call` does not take (Keras records
    e.g. `mask=None` for layers whose Keras `call` has a mask argument)."""
    call = getattr(operation, "call", None)
    if call is None or not kwargs:
        return kwargs
    parameters = inspect.signature(call).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if v is not None or k in parameters}


def _describe(tensor) -> str:
    return f"'{tensor.name}' (shape {tensor.shape})"


def conform_input(expected: KerasTensor, value):
    """`value` with the rank and dtype of the symbolic input `expected`, as Keras 3 does for
    functional and Sequential models: a missing or extra trailing axis of size 1 is added
    or squeezed, then a rank or size that differs is an error naming both shapes.
    """
    if not isinstance(value, Tensor):
        raise InvalidArgumentError(
            f"input {_describe(expected)} was given a {type(value).__name__}, not a tensor"
        )
    shape = value.shape
    symbolic = isinstance(value, KerasTensor)  # a nested call: check only, record nothing
    if not symbolic and len(shape) == len(expected.shape) - 1 and expected.shape[-1] == 1:
        value = shape_ops.expand_dims(value, -1)  # (batch,) for (None, 1), as Keras does
    elif not symbolic and len(shape) == len(expected.shape) + 1 and shape[-1] == 1:
        value = shape_ops.squeeze(value, -1)
    if len(value.shape) != len(expected.shape) or any(
        want is not None and got is not None and want != got
        for want, got in zip(expected.shape, value.shape)
    ):
        raise InvalidArgumentError(
            f"input {_describe(expected)} was given shape {shape}; expected shape "
            f"{expected.shape} (None: any size)"
        )
    if value.dtype != expected.dtype and not symbolic:
        value = math_ops.cast(value, expected.dtype)
    return value


def _check_symbolic(what: str, structure) -> list:
    flat = nest.flatten(structure)
    if not flat:
        raise InvalidArgumentError(f"Model: `{what}` is empty; pass at least one ks.Input")
    for index, item in enumerate(flat):
        if not isinstance(item, KerasTensor):
            raise InvalidArgumentError(
                f"Model: every value of `{what}` must be a symbolic tensor (from ks.Input or a "
                f"layer called on one); {what}[{index}] is a {type(item).__name__}"
            )
    return flat


def _operations_by_depth(nodes: list, entry_order: dict, flat_inputs: list) -> list:
    """The graph's operations ordered as Keras orders `model.layers`: by depth (the longest
    path to an output) from the inputs down, ties in the order the walk first met them."""
    node_depth: dict = {}
    operation_depth: dict = {}
    operations: dict = {}
    for node in reversed(nodes):
        depth = max(node_depth.get(id(node), 0), operation_depth.get(id(node.operation), 0))
        operation_depth[id(node.operation)] = node_depth[id(node)] = depth
        operations[id(node.operation)] = node.operation
        for tensor in node.input_tensors:
            parent = id(producing_node(tensor))
            node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
    for tensor in flat_inputs:  # inputs no output depends on still belong to the model
        operation = tensor._keras_history.operation
        if id(operation) not in operations and isinstance(operation, InputLayer):
            operations[id(operation)] = operation
            operation_depth[id(operation)], entry_order[id(operation)] = 0, -1
    return sorted(
        operations.values(),
        key=lambda op: (-operation_depth[id(op)], entry_order[id(op)]),
    )


class Functional(Model, functional=True):
    """A model defined by its inputs and outputs; made by `ks.Model(inputs, outputs)`.

    Args:
        inputs: a symbolic tensor from `ks.Input`, or a list or dict of them.
        outputs: a symbolic tensor computed from the inputs, or a list or dict.
        name: the model name.
        **kwargs: the `Layer` arguments (``trainable``, ``dtype``).

    Raises:
        InvalidArgumentError: when two layers of the graph share a name, or an output does
            not depend on the inputs given.

    Example:
        >>> import kerasish as ks
        >>> inputs = ks.Input((4,))
        >>> hidden = ks.layers.Dense(8, activation="relu")(inputs)
        >>> model = ks.Model(inputs, ks.layers.Dense(1)(hidden))
        >>> type(model).__name__, model(ks.ones([2, 4])).shape
        ('Functional', (2, 1))
    """

    _untracked_attributes = Model._untracked_attributes | {
        "_inputs_struct", "_outputs_struct", "_flat_inputs", "_flat_outputs", "_nodes",
        "_operations", "_plan", "output_names", "input_names",
    }

    def __init__(self, inputs, outputs, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        flat_inputs = _check_symbolic("inputs", inputs)
        flat_outputs = _check_symbolic("outputs", outputs)
        self._inputs_struct = nest.pack_sequence_as(inputs, flat_inputs)
        self._outputs_struct = nest.pack_sequence_as(outputs, flat_outputs)
        self._flat_inputs, self._flat_outputs = flat_inputs, flat_outputs
        graph_nodes, entry_order = self._walk_graph()
        self._nodes = [n for n in graph_nodes if not isinstance(n.operation, InputLayer)]
        self._plan = self._execution_plan()
        operations = _operations_by_depth(graph_nodes, entry_order, flat_inputs)
        names: dict = {}
        for operation in operations:
            if operation.name in names:
                raise InvalidArgumentError(
                    f"model '{self.name}': the name '{operation.name}' is used by two layers "
                    f"({names[operation.name]!r} and {operation!r}); names in a model must be "
                    "unique: pass name=... to one of them"
                )
            names[operation.name] = operation
        self._operations = operations
        self.input_names = [t._keras_history.operation.name for t in flat_inputs]
        self.output_names = [t._keras_history.operation.name for t in flat_outputs]
        self.built = True

    @classmethod
    def class_for(cls, model_class: type) -> type:
        """The class of `model_class(inputs, outputs)`: Functional for `Model`, a functional
        class as it is, and any other Model subclass with Functional mixed in (made once per
        class), keeping its own methods (a `train_step`, say).

        Args:
            model_class: `Model` or a subclass of it.

        Returns:
            The class the functional model is made as.

        Example:
            >>> import kerasish as ks
            >>> from kerasish.models.functional import Functional
            >>> Functional.class_for(ks.Model) is Functional
            True
        """
        if model_class is Model:
            return cls
        if issubclass(model_class, cls):
            return model_class
        made = _functional_subclasses.get(model_class)
        if made is None:
            made = type(model_class.__name__, (model_class, cls), {
                "__module__": model_class.__module__, "__qualname__": model_class.__qualname__,
                "__doc__": model_class.__doc__,
            })
            _functional_subclasses[model_class] = made
        return made

    @staticmethod
    def rebuild(model_class: type, config: dict, custom_objects=None):
        """`rebuild_from_config`, for `Model.from_config` (model.py cannot import this module).

        Args:
            model_class: the class to rebuild as (`Model`, `Functional` or a subclass).
            config: a functional model's config (ours or Keras 3's).
            custom_objects: {name: class or function} for your own layers and functions.

        Returns:
            A new `model_class` model with fresh weights.

        Example:
            >>> import kerasish as ks
            >>> from kerasish.models.functional import Functional
            >>> inputs = ks.Input((3,))
            >>> model = ks.Model(inputs, ks.layers.Dense(2)(inputs))
            >>> Functional.rebuild(ks.Model, model.get_config()).output_shape
            (None, 2)
        """
        return rebuild_from_config(model_class, config, custom_objects)

    def _walk_graph(self) -> tuple:
        """(the graph's nodes, each after the nodes it reads; {operation id: order of first
        visit}), walking back from the outputs depth first, as Keras does."""
        input_ids = {id(t) for t in self._flat_inputs}
        done: set = set()
        order: list = []
        entry_order: dict = {}

        cut: set = set()  # nodes whose outputs are given as inputs (not run by the model)

        def enter(tensor, stack, index, output) -> None:
            node = producing_node(tensor)
            if id(node) in cut and id(tensor) not in input_ids:
                raise InvalidArgumentError(
                    f"model '{self.name}': output {index} {_describe(output)} needs "
                    f"{_describe(tensor)}, made by '{node.operation.name}' together with a "
                    "tensor given in `inputs`; give this one in `inputs` too"
                )
            if id(node) in done:
                return
            is_input = isinstance(node.operation, InputLayer)
            if id(tensor) in input_ids and not is_input:
                done.add(id(node))  # an intermediate tensor given as an input: a graph edge
                cut.add(id(node))
                return
            if is_input and id(tensor) not in input_ids:
                self._raise_disconnected(tensor, [n for n, _ in stack], index, output)
            entry_order.setdefault(id(node.operation), len(entry_order))
            stack.append((node, 0))

        for index, output in enumerate(self._flat_outputs):
            stack: list = []
            enter(output, stack, index, output)
            while stack:
                node, next_input = stack[-1]
                if next_input == len(node.input_tensors):
                    stack.pop()
                    done.add(id(node))
                    order.append(node)
                    continue
                stack[-1] = (node, next_input + 1)
                enter(node.input_tensors[next_input], stack, index, output)
        return order, entry_order

    def _raise_disconnected(self, tensor, path_nodes, index, output) -> None:
        given = ", ".join(repr(t.name) for t in self._flat_inputs)
        if not path_nodes:  # the output is that input itself
            where = "it is the output itself"
        else:
            path = " -> ".join([tensor.name] + [n.operation.name for n in reversed(path_nodes)])
            where = f"it is read by layer '{path_nodes[-1].operation.name}', on the path {path}"
        raise InvalidArgumentError(
            f"model '{self.name}': output {index} {_describe(output)} depends on the input "
            f"{_describe(tensor)}, which is not among the model's inputs ({given}); {where}. "
            "Add it to `inputs`, or compute the output from the given inputs only"
        )

    # -- structure ------------------------------------------------------------
    @property
    def layers(self) -> list:
        """The graph's layers in Keras's order: by depth from the inputs, InputLayers included,
        op nodes left out."""
        return [op for op in self._operations if isinstance(op, Layer)]

    @property
    def inputs(self) -> list:
        """The symbolic inputs, as a flat list."""
        return list(self._flat_inputs)

    @property
    def outputs(self) -> list:
        """The symbolic outputs, as a flat list."""
        return list(self._flat_outputs)

    @property
    def input(self):
        """The symbolic inputs in the structure given to the constructor."""
        return self._inputs_struct

    @property
    def output(self):
        """The symbolic outputs in the structure given to the constructor."""
        return self._outputs_struct

    @property
    def input_shape(self):
        shapes = [t.shape for t in self._flat_inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [t.shape for t in self._flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def _tracked_children(self) -> list:
        children = super()._tracked_children()
        children.extend((f"layers/{layer.name}", layer) for layer in self.layers)
        return children

    # -- running --------------------------------------------------------------
    def _execution_plan(self) -> list:
        """Per node: how to fill in its arguments, worked out once (the call runs it per batch).

        Kinds: 0, one symbolic argument; 1, flat positional arguments; 2, anything else.
        """
        plan = []
        for node in self._nodes:
            leaves = nest.flatten((node.args, node.kwargs))
            slots = [(i, x) for i, x in enumerate(leaves) if isinstance(x, KerasTensor)]
            if not node.kwargs and len(node.args) == 1 and isinstance(node.args[0], KerasTensor):
                kind, leaves = 0, list(node.args)
            elif not node.kwargs and not any(isinstance(a, (list, tuple, dict)) for a in node.args):
                kind, leaves = 1, list(node.args)
            else:
                kind = 2
            single = isinstance(node.outputs, KerasTensor)
            plan.append((node, kind, leaves, slots, node.output_tensors, single))
        return plan

    def call(self, inputs, training=None, mask=None):
        # `mask` is accepted for Keras's signature; masks travel on the tensors themselves
        values = {id(t): v for t, v in zip(self._flat_inputs, self._match_inputs(inputs))}
        for node, kind, leaves, slots, output_tensors, single in self._plan:
            if kind == 0:
                outputs = node.operation(values[id(slots[0][1])])
            else:
                filled = list(leaves)
                for index, tensor in slots:
                    filled[index] = values[id(tensor)]
                if kind == 1:
                    outputs = node.operation(*filled)
                else:
                    args, kwargs = nest.pack_sequence_as((node.args, node.kwargs), filled)
                    if training is not None and "training" in kwargs:
                        # Keras 3: the call's `training` replaces the one the node was
                        # recorded with (fit trains a base called with training=False)
                        kwargs["training"] = training
                    outputs = node.operation(*args, **kwargs)
            if single:
                values[id(output_tensors[0])] = outputs
            else:
                for tensor, value in zip(output_tensors, nest.flatten(outputs)):
                    values[id(tensor)] = value
        return nest.pack_sequence_as(
            self._outputs_struct, [values[id(t)] for t in self._flat_outputs]
        )

    def compute_output_spec(self, inputs, training=None, mask=None):
        """Symbolic outputs for symbolic `inputs` (checked like data), used when nesting.

        Args:
            inputs: symbolic tensors in the structure of the model's inputs.
            training: unused (the outputs' specs do not depend on it).
            mask: unused.

        Returns:
            Symbolic tensors with the shapes and dtypes of the model's outputs.

        Example:
            >>> import kerasish as ks
            >>> inputs = ks.Input((4,))
            >>> model = ks.Model(inputs, ks.layers.Dense(3)(inputs))
            >>> model.compute_output_spec(ks.Input((4,))).shape
            (None, 3)
        """
        self._match_inputs(inputs)
        return nest.pack_sequence_as(
            self._outputs_struct, [KerasTensor(t.shape, t.dtype) for t in self._flat_outputs]
        )

    def _expected(self) -> str:
        return ", ".join(_describe(t) for t in self._flat_inputs)

    def _match_inputs(self, inputs) -> list:
        """The given inputs in the order of `self.inputs`, checked and cast to their dtypes."""
        expected = self._inputs_struct
        if isinstance(expected, dict):
            given = self._by_name(inputs, dict(expected), "keys")
            flat = nest.flatten({key: given[key] for key in expected})
        elif isinstance(inputs, dict):
            names = {t.name: t for t in self._flat_inputs}
            given = self._by_name(inputs, names, "input names")
            flat = [given[t.name] for t in self._flat_inputs]
        else:
            flat = nest.flatten(inputs)
            if len(flat) != len(self._flat_inputs):
                shapes = ", ".join(
                    str(x.shape) if hasattr(x, "shape") else type(x).__name__ for x in flat
                )
                raise InvalidArgumentError(
                    f"expects {len(self._flat_inputs)} input(s): {self._expected()}; got "
                    f"{len(flat)}: {shapes or 'nothing'}"
                )
        return [conform_input(t, x) for t, x in zip(self._flat_inputs, flat)]

    def _by_name(self, inputs, expected: dict, what: str) -> dict:
        if not isinstance(inputs, dict):
            raise InvalidArgumentError(
                f"expects a dict of inputs with {what} {sorted(expected)}, got a "
                f"{type(inputs).__name__}"
            )
        missing = [key for key in expected if key not in inputs]
        unexpected = [key for key in inputs if key not in expected]
        if missing or unexpected:
            raise InvalidArgumentError(
                f"expects inputs with {what} {sorted(expected)}; got {sorted(inputs)} "
                f"(missing: {missing or 'none'}; unexpected: {unexpected or 'none'})"
            )
        return inputs

    # -- serialization ------------------------------------------------------------
    def get_config(self) -> dict:
        """The graph in Keras 3's functional config: layers with their inbound nodes.

        Each layer is serialized with `ks.saving.serialize_keras_object`; a symbolic
        argument of a node is `{"class_name": "__keras_tensor__", "config": {"shape",
        "dtype", "keras_history": [layer name, node index, tensor index]}}`, with node
        indices counted over this model's nodes only (a shared layer may have others).
        """
        own = {id(node) for node in self._nodes}
        own.update(id(producing_node(t)) for t in self._flat_inputs)

        def reference(tensor, endpoint: bool) -> list:
            operation, node_index, tensor_index = tensor._keras_history
            index = sum(1 for node in inbound_nodes(operation)[:node_index] if id(node) in own)
            if endpoint and isinstance(operation, Functional):
                index += 1  # Keras counts a nested model's own graph as its node 0 here
            return [operation.name, index, tensor_index]

        def serialize_argument(value):
            if isinstance(value, KerasTensor):
                return {"class_name": "__keras_tensor__", "config": {
                    "shape": list(value.shape), "dtype": dtype_name(value.dtype),
                    "keras_history": reference(value, endpoint=False)}}
            if isinstance(value, (list, tuple)):
                return [serialize_argument(item) for item in value]
            if isinstance(value, dict):
                return {key: serialize_argument(item) for key, item in value.items()}
            if isinstance(value, slice):  # an index of a GetItem node, in Keras's form
                return {"class_name": "__slice__", "config": {
                    "start": value.start, "stop": value.stop, "step": value.step}}
            if value is Ellipsis:
                return {"class_name": "__ellipsis__", "config": {}}
            return serialize_keras_object(value)

        def endpoints(structure):
            if isinstance(structure, KerasTensor):
                return reference(structure, endpoint=True)
            if isinstance(structure, dict):
                return {key: endpoints(item) for key, item in structure.items()}
            return [endpoints(item) for item in structure]

        layers = []
        for operation in self._operations:
            nodes = [node for node in inbound_nodes(operation)
                     if id(node) in own and node.input_tensors]
            node_args = [node.args for node in nodes]
            if isinstance(operation, KerasOp):
                layer_config = operation.keras_form()
            elif isinstance(operation, PrimitiveOp) and nodes and (
                keras_op_form(operation, nodes[0].args) is not None
            ):  # an op Keras 3 has too: written as Keras writes it, so Keras can load it
                layer_config = keras_op_form(operation, nodes[0].args)[0]
                node_args = [keras_op_form(operation, node.args)[1] for node in nodes]
            else:
                layer_config = serialize_keras_object(operation)
            layer_config["name"] = operation.name
            layer_config["inbound_nodes"] = [
                {"args": serialize_argument(list(args)),
                 "kwargs": serialize_argument(node.kwargs)}
                for node, args in zip(nodes, node_args)
            ]
            layers.append(layer_config)
        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": layers,
            "input_layers": endpoints(self._inputs_struct),
            "output_layers": endpoints(self._outputs_struct),
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """Rebuild the graph of `get_config()` (ours or Keras 3's) with new layers.

        Args:
            config: the dict `get_config` returned.
            custom_objects: {name: class or function} for your own layers and functions.

        Returns:
            A new functional model with fresh weights.

        Example:
            >>> import kerasish as ks
            >>> inputs = ks.Input((4,), name="x")
            >>> model = ks.Model(inputs, ks.layers.Dense(3)(inputs))
            >>> model.from_config(model.get_config()).input_names
            ['x']
        """
        return rebuild_from_config(cls, config, custom_objects)

    # -- display (Model.summary's rows) ------------------------------------------
    def _summary_entries(self) -> tuple:
        """(header, [(operation, cells)]): every layer and op of the graph with its output
        shape, parameters and the inputs it reads ("Connected to"), for `summary`."""
        own = {id(node) for node in self._nodes}
        entries = []
        for operation in self._operations:
            nodes = [node for node in inbound_nodes(operation) if id(node) in own]
            if not nodes:  # an input layer
                nodes = inbound_nodes(operation)[:1]
            shapes = [t.shape for t in nodes[0].output_tensors]
            params = operation.count_params() if isinstance(operation, Layer) else 0
            kind = operation.primitive.name if isinstance(operation, PrimitiveOp) else (
                type(operation).__name__
            )
            sources = [
                f"{t._keras_history.operation.name}[{t._keras_history.node_index}]"
                f"[{t._keras_history.tensor_index}]"
                for node in nodes for t in node.input_tensors
            ]
            entries.append((operation, [f"{operation.name} ({kind})",
                                        str(shapes[0] if len(shapes) == 1 else shapes),
                                        f"{params:,}", ", ".join(sources) or "-"]))
        return ("Layer (type)", "Output Shape", "Param #", "Connected to"), entries


def rebuild_from_config(cls, config: dict, custom_objects=None):
    """A `cls` model (Model, Functional or a subclass) rebuilt from a functional config
    (ours or Keras 3's): new layers called on each other in the recorded order."""
    created: dict = {}
    pending: dict = {}
    for layer_config in config["layers"]:
        name = layer_config["name"]
        if str(layer_config.get("module", "")).startswith("keras.src.ops."):
            operation = KerasOp(layer_config)  # keras.ops.add, x[:, 0], ...
        else:
            operation = deserialize_keras_object(layer_config, custom_objects=custom_objects)
        created[name] = operation
        pending[name] = list(layer_config.get("inbound_nodes") or [])

    def revive(value):
        if isinstance(value, list):
            return [revive(item) for item in value]
        if not isinstance(value, dict):
            return value
        if value.get("class_name") == "__keras_tensor__":
            name, node_index, tensor_index = value["config"]["keras_history"]
            if name not in created:
                raise InvalidArgumentError(
                    f"model config '{config.get('name')}': a node reads layer '{name}', "
                    "which is not in the config's layers"
                )
            nodes = inbound_nodes(created[name])
            if node_index >= len(nodes):
                raise _NotYetCalled(name)
            return nodes[node_index].output_tensors[tensor_index]
        if value.get("class_name") == "__slice__":
            return slice(*(value["config"][k] for k in ("start", "stop", "step")))
        if value.get("class_name") == "__ellipsis__":
            return Ellipsis
        if "class_name" in value:
            return deserialize_keras_object(value, custom_objects=custom_objects)
        return {key: revive(item) for key, item in value.items()}

    while any(pending.values()):
        progressed = False
        for name, node_configs in pending.items():
            while node_configs:
                try:
                    args = revive(node_configs[0].get("args", []))
                    kwargs = _accepted_kwargs(
                        created[name], revive(node_configs[0].get("kwargs", {}))
                    )
                except _NotYetCalled:
                    break
                created[name](*args, **kwargs)
                node_configs.pop(0)
                progressed = True
        if not progressed:
            waiting = sorted(name for name, nodes in pending.items() if nodes)
            raise InvalidArgumentError(
                f"model config '{config.get('name')}': the calls of {waiting} read "
                "outputs no layer produces (a cycle or a missing layer)"
            )

    def tensors(structure):
        if (isinstance(structure, list) and len(structure) == 3
                and isinstance(structure[0], str)):
            name, node_index, tensor_index = structure
            operation = created[name]
            if isinstance(operation, Functional):
                node_index -= 1
            return inbound_nodes(operation)[node_index].output_tensors[tensor_index]
        if isinstance(structure, dict):
            return {key: tensors(item) for key, item in structure.items()}
        return [tensors(item) for item in structure]

    model = cls(tensors(config["input_layers"]), tensors(config["output_layers"]),
                name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model
