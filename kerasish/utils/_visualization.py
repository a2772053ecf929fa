"""`ks.utils.model_to_dot` and `ks.utils.plot_model`: a model's layers as a Graphviz graph.

The graph is written as DOT text here (one box per layer: name, class, and optionally
shapes, dtype, activation and trainability; one edge per connection), so the drawing
needs only what draws it: pydot to hand back a `pydot.Dot` (`model_to_dot`) and the
Graphviz programs to render a file (`plot_model`). Neither is a kerasish dependency
(`pip install pydot`, and Graphviz from the system's packages); without them these
functions raise an ImportError that says so.
"""

from __future__ import annotations

import os
import sys

from kerasish.core.keras_tensor import inbound_nodes

_INSTALL = ("pip install pydot, and install Graphviz (https://graphviz.org/download/, e.g. "
            "apt-get install graphviz)")


def _pydot(function: str):
    try:
        import pydot  # optional dependency: only the model diagrams need it
    except ImportError as exc:
        raise ImportError(f"{function} needs pydot and Graphviz, which kerasish does not "
                          f"depend on: {_INSTALL}") from exc
    return pydot


def _quote(text: str) -> str:
    return '"' + str(text).replace('"', "'") + '"'


def _shape_text(shapes) -> str:
    shapes = [tuple(s) if s is not None else None for s in shapes]
    return str(shapes[0]) if len(shapes) == 1 else str(shapes)


def _label(layer, show_shapes, show_dtype, show_layer_names, show_layer_activations,
           show_trainable) -> str:
    kind = type(layer).__name__
    lines = [f"{layer.name} ({kind})" if show_layer_names else kind]
    if show_layer_activations:
        activation = getattr(layer, "activation", None)
        if activation is not None:
            lines.append(f"Activation: {getattr(activation, '__name__', activation)}")
    if show_dtype:
        lines.append(f"dtype: {getattr(layer, 'dtype', None)}")
    if show_shapes:
        nodes = inbound_nodes(layer)
        if nodes:
            ins = [t.shape for t in nodes[0].input_tensors] or [
                t.shape for t in nodes[0].output_tensors]
            outs = [t.shape for t in nodes[0].output_tensors]
            lines.append(f"Input shape: {_shape_text(ins)}")
            lines.append(f"Output shape: {_shape_text(outs)}")
        else:
            seen = getattr(layer, "output_shape_seen", None)
            lines.append(f"Output shape: {seen if seen is not None else '?'}")
    if show_trainable:
        lines.append(f"Trainable: {'Y' if getattr(layer, 'trainable', True) else 'N'}")
    return "\\n".join(line.replace('"', "'") for line in lines)


def _layers_and_edges(model) -> tuple:
    """(the layers, in order, and (source, destination) pairs) of a model's graph."""
    operations = getattr(model, "_operations", None)
    if operations is None:  # a Sequential (or a subclassed model): its layers in a chain
        layers = list(model.layers)
        return layers, list(zip(layers, layers[1:]))
    own = {id(node) for node in getattr(model, "_nodes", [])}
    edges = []
    for operation in operations:
        for node in inbound_nodes(operation):
            if id(node) not in own:
                continue
            for tensor in node.input_tensors:
                edges.append((tensor._keras_history.operation, operation))
    return list(operations), edges


def dot_source(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
               expand_nested=False, dpi=200, subgraph=False, show_layer_activations=False,
               show_trainable=False, splines="ortho") -> str:
    """The DOT text of a model's graph (what `model_to_dot` hands to pydot)."""
    layers, edges = _layers_and_edges(model)
    name = _quote(model.name)
    header = (f"subgraph {_quote('cluster_' + model.name)} {{" if subgraph
              else f"digraph {name} {{")
    lines = [header,
             f"  rankdir={rankdir};", "  concentrate=true;", f"  dpi={dpi};",
             f"  splines={splines};", "  node [shape=record];"]
    if subgraph:
        lines.append(f"  label={name};")
    for layer in layers:
        nested = expand_nested and hasattr(layer, "layers") and layer is not model
        if nested:
            lines.append("  " + dot_source(layer, show_shapes, show_dtype, show_layer_names,
                                           rankdir, expand_nested, dpi, True,
                                           show_layer_activations, show_trainable, splines))
        label = _label(layer, show_shapes, show_dtype, show_layer_names,
                       show_layer_activations, show_trainable)
        lines.append(f"  {_quote(id(layer))} [label={_quote(label)}];")
    for source, destination in edges:
        lines.append(f"  {_quote(id(source))} -> {_quote(id(destination))};")
    lines.append("}")
    return "\n".join(lines)


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho",
                 **kwargs):
    """A model's layers and connections as a `pydot.Dot` graph; needs pydot.

    Args:
        model: a built model.
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's dtype.
        show_layer_names: show the layers' names (else only their classes).
        rankdir: Graphviz's direction: "TB" (top to bottom) or "LR" (left to right).
        expand_nested: draw the layers of nested models inside them.
        dpi: the resolution of a rendered image.
        subgraph: make a cluster subgraph (for a nested model) instead of a graph.
        show_layer_activations: show the layers' activations.
        show_trainable: show whether each layer is trainable.
        splines: Graphviz's edge style ("ortho", "curved", ...).
        **kwargs: Keras's other keyword arguments (accepted, unused).

    Returns:
        A `pydot.Dot` graph.

    Raises:
        ImportError: without pydot, naming what to install.

    Example:
        >>> import kerasish as ks
        >>> inputs = ks.Input((3,))
        >>> model = ks.Model(inputs, ks.layers.Dense(2)(inputs))
        >>> dot = ks.utils.model_to_dot(model, show_shapes=True)  # doctest: +SKIP
    """
    pydot = _pydot("model_to_dot")
    source = dot_source(model, show_shapes, show_dtype, show_layer_names, rankdir,
                        expand_nested, dpi, subgraph, show_layer_activations, show_trainable,
                        splines)
    graphs = pydot.graph_from_dot_data(source)
    return graphs[0]


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho", **kwargs):
    """Draw a model's graph into an image file; needs pydot and Graphviz.

    Args:
        model: a built model.
        to_file: the file to write; its extension ("png", "svg", "pdf", "dot", ...) sets the
            format.
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's dtype.
        show_layer_names: show the layers' names (else only their classes).
        rankdir: "TB" (top to bottom) or "LR" (left to right).
        expand_nested: draw the layers of nested models inside them.
        dpi: the image's resolution.
        show_layer_activations: show the layers' activations.
        show_trainable: show whether each layer is trainable.
        splines: Graphviz's edge style.
        **kwargs: Keras's other keyword arguments (accepted, unused).

    Returns:
        In a notebook, an `IPython.display.Image` of the picture; else None.

    Raises:
        ImportError: without pydot or Graphviz, naming what to install.

    Example:
        >>> import kerasish as ks
        >>> inputs = ks.Input((3,))
        >>> model = ks.Model(inputs, ks.layers.Dense(2)(inputs))
        >>> ks.utils.plot_model(model, "model.png", show_shapes=True)  # doctest: +SKIP
    """
    pydot = _pydot("plot_model")
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines)
    extension = os.path.splitext(os.fspath(to_file))[1][1:].lower() or "png"
    try:
        dot.write(os.fspath(to_file), format="raw" if extension == "dot" else extension)
    except (OSError, getattr(pydot, "PydotException", OSError)) as exc:
        raise ImportError(f"plot_model: Graphviz could not render {to_file} ({exc}); "
                          f"{_INSTALL}") from exc
    display = sys.modules.get("IPython.display")  # in a notebook: show the picture
    if extension == "dot" or display is None:
        return None
    return display.Image(filename=os.fspath(to_file))
