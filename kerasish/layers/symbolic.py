"""A layer's call on symbolic tensors (the functional API): build it, infer its outputs, and
record a `Node`, without computing anything.

How output shapes are inferred (without running the model on data):

1. A layer with `compute_output_spec(*args, **kwargs)` (symbolic tensors in,
   symbolic tensors out, as in Keras 3) or `compute_output_shape(input_shape)`
   answers directly; the built-in layers have the latter. Its weights are built
   first, from the symbolic input shape, as Keras does. The output dtype is the
   layer's dtype when the layer has weights (it casts its inputs, as Dense does
   for integers), else the dtype of its first input; a floating one is the layer's
   compute dtype (float16 under 'mixed_float16').
2. Any other layer is run once on zeros by `kerasish.core.symbolic.infer_output_specs`,
   under no tape, in inference mode (`training=False`); `add_loss` terms it adds are
   dropped. It costs one call on a few examples, and it builds the layer's weights.

`Layer.__call__` comes here when an argument is symbolic; `kerasish.models.functional`
turns the recorded nodes into a model.

Example:
    >>> import kerasish as ks
    >>> dense = ks.layers.Dense(4)
    >>> dense(ks.Input((3,))).shape, dense.kernel.shape
    ((None, 4), (3, 4))
"""

from __future__ import annotations

import inspect

import numpy as np

from kerasish.core import nest
from kerasish.core.errors import KerasishError
from kerasish.core.keras_tensor import KerasTensor, Node, any_symbolic
from kerasish.core.symbolic import SENTINEL_SIZES, infer_output_specs
from kerasish.core.tensor import Tensor


def node_attribute(layer, which: str):
    """`layer.input` / `layer.output`: the tensors of its first call, as Keras 3 returns them."""
    nodes = getattr(layer, "_inbound_nodes", None)
    if not nodes:
        raise AttributeError(
            f"layer '{layer.name}' has never been called on a symbolic tensor (ks.Input), "
            f"so it has no {which}"
        )
    tensors = nodes[0].input_tensors if which == "input" else nodes[0].output_tensors
    return tensors[0] if len(tensors) == 1 else list(tensors)


def layer_call(layer, inputs, args: tuple, kwargs: dict):
    """Record a call of `layer` on symbolic tensors: build it, infer outputs, add a node."""
    try:
        if not layer.built:
            layer._build_from(inputs)
        specs = _layer_output_specs(layer, inputs, args, kwargs)
    except KerasishError as exc:
        if str(exc).startswith(f"layer '{layer.name}'"):
            raise
        raise type(exc)(f"layer '{layer.name}' ({type(layer).__name__}): {exc}") from exc
    node = Node(layer, (inputs,) + tuple(args), kwargs, specs)
    layer.output_shape_seen = node.output_tensors[0].shape
    return node.outputs


def _layer_output_specs(layer, inputs, args: tuple, kwargs: dict):
    compute_spec = getattr(layer, "compute_output_spec", None)
    if compute_spec is not None:
        return compute_spec(inputs, *args, **kwargs)
    compute_shape = getattr(layer, "compute_output_shape", None)
    if compute_shape is not None:
        shapes = compute_shape(_shapes_of(inputs), **_other_shapes(layer, compute_shape,
                                                                   inputs, args, kwargs))
        first = nest.flatten(inputs)[0]
        dtype = layer.dtype if layer.weights or not isinstance(first, Tensor) else first.dtype
        compute = np.dtype(layer.compute_dtype) if layer.compute_dtype != "string" else None
        if dtype.kind == "f" and layer.autocast and compute is not None and compute.kind == "f":
            dtype = compute  # floating inputs are cast to the compute dtype (mixed precision)
        return _specs_from_shapes(shapes, dtype)

    def run(*call_args, **call_kwargs):
        watched = [(each, len(each._added_losses)) for each in [layer] + layer.submodules]
        try:
            return layer(*call_args, **call_kwargs, training=False)
        finally:
            for each, count in watched:
                del each._added_losses[count:]

    kwargs = {k: v for k, v in kwargs.items() if k != "training"}
    try:
        return infer_output_specs(run, (inputs,) + tuple(args), kwargs)
    except KerasishError as exc:
        shapes = ", ".join(str(t.shape) for t in nest.flatten(inputs))
        raise type(exc)(
            f"while inferring the output of a call on symbolic inputs of shape {shapes} "
            f"(run on zeros, unknown dimensions set to {SENTINEL_SIZES[0]}): {exc}"
        ) from exc


def _shapes_of(structure):
    return nest.pack_sequence_as(
        structure, [getattr(t, "shape", None) for t in nest.flatten(structure)]
    )


def _other_shapes(layer, compute_shape, inputs, args: tuple, kwargs: dict) -> dict:
    """Shapes of the call's other symbolic arguments, as `<argument>_shape` keywords that
    `compute_output_shape` takes (as Keras passes `value_shape` to MultiHeadAttention)."""
    if not args and not any_symbolic(kwargs):
        return {}
    try:
        bound = inspect.signature(layer.call).bind(inputs, *args, **kwargs).arguments
    except TypeError:
        return {}
    accepted = inspect.signature(compute_shape).parameters
    return {
        f"{name}_shape": _shapes_of(value)
        for name, value in list(bound.items())[1:]
        if any_symbolic(value) and f"{name}_shape" in accepted
    }


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    )


def _specs_from_shapes(shapes, dtype):
    """KerasTensors (no history) for a shape or a nested list/tuple/dict of shapes."""
    if _is_shape(shapes):
        return KerasTensor(tuple(shapes), dtype)
    if isinstance(shapes, dict):
        return {key: _specs_from_shapes(value, dtype) for key, value in shapes.items()}
    return type(shapes)(_specs_from_shapes(value, dtype) for value in shapes)
