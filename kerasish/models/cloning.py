"""`ks.models.clone_model`: the same architecture with new weights."""

from __future__ import annotations

from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.layers.base import Layer
from kerasish.layers.input_layer import Input
from kerasish.models.functional import Functional
from kerasish.models.model import Model
from kerasish.models.sequential import Sequential


def _fresh_copy(layer: Layer) -> Layer:
    """Keras's default clone_function: the layer rebuilt from its config (new weights)."""
    return type(layer).from_config(layer.get_config())


def clone_model(model, input_tensors=None, clone_function=None, call_function=None,
                recursive=False, **kwargs):
    """A new model with `model`'s architecture and newly initialized weights.

    Sequential models are rebuilt layer by layer and functional models node by
    node from their config, each layer passed through `clone_function` (default:
    a fresh copy from the layer's config; return the layer itself to share it).
    The clone is not compiled.

    Args:
        model: a Sequential or functional model.
        input_tensors: symbolic inputs (`ks.Input`) to build the clone on,
            instead of new ones like the original's.
        clone_function: `fn(layer) -> layer` applied to every layer but the inputs.
        call_function: `fn(layer, *args, **kwargs) -> outputs`, called in place of each
            layer call of a functional model's graph (Keras's argument: wrap or replace
            calls); default: the layer itself.
        recursive: also clone the models nested inside (with the same functions) rather
            than passing them to `clone_function` whole.
        **kwargs: Keras's other keyword arguments; a given one is refused.

    Example:
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(2, input_shape=(3,))])
        >>> clone = ks.models.clone_model(model)
        >>> clone.layers[0].kernel is model.layers[0].kernel, clone.count_params()
        (False, 8)
    """
    if kwargs:
        raise TypeError(f"clone_model: unexpected argument(s) {sorted(kwargs)}")
    base = clone_function or _fresh_copy
    if recursive:
        def clone_function(layer):
            if isinstance(layer, (Sequential, Functional)):
                calls = None if isinstance(layer, Sequential) else call_function
                return clone_model(layer, clone_function=base, call_function=calls,
                                   recursive=True)
            return base(layer)
    else:
        clone_function = base
    if isinstance(model, Sequential):
        if call_function is not None:
            raise InvalidArgumentError(
                f"clone_model: call_function needs a functional model's graph; model "
                f"'{model.name}' is Sequential: clone ks.Model(model.inputs, model.outputs)")
        return _clone_sequential(model, input_tensors, clone_function)
    if isinstance(model, Functional):
        return _clone_functional(model, input_tensors, clone_function, call_function)
    raise InvalidArgumentError(
        f"clone_model: model '{model.name}' is a subclassed {type(model).__name__}; only "
        "Sequential and functional models can be cloned. Rebuild it with its constructor "
        f"(or {type(model).__name__}.from_config(model.get_config()))"
    )


def _clone_sequential(model, input_tensors, clone_function):
    layers = [clone_function(layer) for layer in model.layers]
    if input_tensors is not None:
        first = input_tensors[0] if isinstance(input_tensors, (list, tuple)) else input_tensors
        return Sequential([first, *layers], name=model.name)
    clone = Sequential(layers, name=model.name)
    build_config = model.get_build_config()
    if not clone.built and build_config is not None:
        clone.build(build_config["input_shape"])
    return clone


def _clone_functional(model, input_tensors, clone_function, call_function=None):
    """Replay the model's nodes on new inputs, calling each layer's clone (each layer cloned
    once, so a shared layer stays shared)."""
    if input_tensors is None:
        new_inputs = [
            Input(batch_shape=t.shape, dtype=t.dtype, name=t._keras_history.operation.name)
            for t in model._flat_inputs
        ]
    else:
        new_inputs = nest.flatten(input_tensors)
        if len(new_inputs) != len(model._flat_inputs):
            raise InvalidArgumentError(
                f"clone_model: model '{model.name}' has {len(model._flat_inputs)} inputs but "
                f"input_tensors has {len(new_inputs)}"
            )
    mapping = {id(old): new for old, new in zip(model._flat_inputs, new_inputs)}
    clones: dict = {}
    for node in model._nodes:
        operation = node.operation
        if isinstance(operation, Layer):
            if id(operation) not in clones:
                clones[id(operation)] = clone_function(operation)
            operation = clones[id(operation)]
        leaves = nest.flatten((node.args, node.kwargs))
        args, kwargs = nest.pack_sequence_as(
            (node.args, node.kwargs),
            [mapping[id(leaf)] if isinstance(leaf, KerasTensor) else leaf for leaf in leaves],
        )
        if call_function is not None and isinstance(operation, Layer):
            outputs = call_function(operation, *args, **kwargs)
        else:
            outputs = operation(*args, **kwargs)
        for old, new in zip(node.output_tensors, nest.flatten(outputs)):
            mapping[id(old)] = new
    outputs = nest.pack_sequence_as(model._outputs_struct,
                                    [mapping[id(t)] for t in model._flat_outputs])
    inputs = nest.pack_sequence_as(model._inputs_struct, new_inputs)
    return Model(inputs, outputs, name=model.name)
