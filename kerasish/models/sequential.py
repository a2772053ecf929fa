"""Sequential: a linear stack of layers."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.core.tensor import name_scope
from kerasish.layers.base import Layer
from kerasish.layers.input_layer import InputLayer
from kerasish.models.functional import conform_input
from kerasish.models.model import Model


class Sequential(Model):
    """Layers applied one after the other.

    Start with `ks.Input(shape)` (or give the first layer an `input_shape`) to
    build at once, so `summary()` works before any data is seen; otherwise it
    builds on the first call. With an Input, each added layer is called on the
    symbolic output of the previous one, so shapes are known without data, and
    inputs are checked against it as a functional model checks them (Keras 3 too):
    a shape that does not fit is an error naming both shapes.

    Args:
        layers: the layers, in order (a `ks.Input` may come first); more can be `add`ed.
        trainable: False freezes the model (and every layer in it), as `trainable = False`.
            (Keras 3's second argument; a string here is taken as the name, as tf.keras's
            `Sequential(layers, name)` order gives it, since no trainable is a string.)
        name: the model's name.

    Example:
        >>> import kerasish as ks
        >>> model = ks.Sequential([
        ...     ks.layers.Dense(10, input_shape=(784,)),
        ...     ks.layers.Dense(10),
        ... ])
        >>> model.count_params()
        7960
        >>> ks.Sequential([ks.Input((784,)), ks.layers.Dense(10)]).layers[0].output_shape
        (None, 10)
    """

    _untracked_attributes = Model._untracked_attributes | {"_input_layer", "_symbolic_outputs"}

    def __init__(self, layers=None, trainable: bool = True, name=None):
        if isinstance(trainable, str) and name is None:  # tf.keras's Sequential(layers, name)
            trainable, name = True, trainable
        if not isinstance(trainable, (bool, int)):
            raise TypeError(
                f"Sequential: trainable must be a bool, got {trainable!r} (Keras's order is "
                "layers, trainable, name: pass the name as name=)")
        super().__init__(name=name)
        self._layers = []
        self._input_layer = None  # the InputLayer of ks.Input, when the model starts with one
        self._symbolic_outputs = []  # with an Input: each layer's symbolic output
        for layer in layers or []:
            self.add(layer)
        if not trainable:  # Keras's argument: frozen, with every layer inside
            self.trainable = False

    @property
    def layers(self) -> list:
        return list(self._layers)

    @property
    def input_dtype(self):
        """The dtype of the inputs when the first layer names one (str for TextVectorization
        and StringLookup), else None: inputs are converted to the model's dtype."""
        return getattr(self._layers[0], "input_dtype", None) if self._layers else None

    def add(self, layer: Layer) -> None:
        """Append a layer; builds the model if it starts with an Input or an input shape.

        Args:
            layer: a layer, or `ks.Input(...)` as the very first addition.

        Raises:
            InvalidArgumentError: for something that is not a layer, an Input after other
                layers, or the symbolic output of a layer.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((4,))])
            >>> model.add(ks.layers.Dense(2))
            >>> model.output_shape
            (None, 2)
        """
        if isinstance(layer, KerasTensor):  # Sequential([ks.Input(...), ...])
            if not isinstance(layer._keras_history.operation, InputLayer):
                raise InvalidArgumentError(
                    f"Sequential.add: got the symbolic output of layer "
                    f"'{layer._keras_history.operation.name}'; add layers, or a ks.Input first"
                )
            layer = layer._keras_history.operation
        if isinstance(layer, InputLayer):
            if self._layers or self._input_layer is not None:
                raise InvalidArgumentError(
                    f"Sequential '{self.name}': an Input can only come first, before any layer"
                )
            self._input_layer = layer
            self.built = True
            return
        if not isinstance(layer, Layer):
            raise InvalidArgumentError(
                f"Sequential.add expects a layer, got {type(layer).__name__}"
            )
        self._layers.append(layer)
        if self._input_layer is not None:
            previous = self._symbolic_outputs[-1] if self._symbolic_outputs else (
                self._input_layer.output
            )
            try:
                with name_scope(self.name, caller=self):  # ('sequential/dense/kernel', as Keras)
                    self._symbolic_outputs.append(layer(previous))
            except Exception:
                self._layers.pop()
                raise
            return
        first_shape = self._layers[0]._batch_input_shape
        if first_shape is not None:
            self.built = False
            self.build(first_shape)

    def pop(self) -> Layer:
        """Remove and return the last layer."""
        if not self._layers:
            raise InvalidArgumentError("Sequential.pop: there are no layers")
        if self._symbolic_outputs:
            self._symbolic_outputs.pop()
        return self._layers.pop()

    @property
    def inputs(self) -> list:
        """The symbolic input (a one-item list) when the model starts with ks.Input."""
        return [self.input]

    @property
    def outputs(self) -> list:
        """The symbolic output of the last layer (a one-item list), with ks.Input."""
        return [self.output]

    @property
    def input(self):
        if self._input_layer is None:
            raise AttributeError(
                f"Sequential '{self.name}' has no symbolic input: start it with ks.Input(shape)"
            )
        return self._input_layer.output

    @property
    def output(self):
        return self._symbolic_outputs[-1] if self._symbolic_outputs else self.input

    # -- serialization ------------------------------------------------------------
    def get_config(self) -> dict:
        """Keras 3's Sequential config: the layers' serialized configs (an InputLayer first when
        the model starts with ks.Input) and `build_input_shape` once it is known."""
        layers = ([self._input_layer] if self._input_layer is not None else []) + self._layers
        config = {
            **super().get_config(),
            "layers": [serialize_keras_object(layer) for layer in layers],
        }
        build_config = self.get_build_config()
        if build_config is not None:
            config["build_input_shape"] = build_config["input_shape"]
        return config

    def get_build_config(self) -> dict | None:
        if self._input_layer is not None:
            return {"input_shape": list(self._input_layer.batch_shape)}
        if self._layers and self._layers[0]._batch_input_shape is not None:
            return {"input_shape": list(self._layers[0]._batch_input_shape)}
        return super().get_build_config()

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A new Sequential (fresh weights) from `get_config()`'s dict or Keras 3's; built when
        the config gives its input shape.

        Args:
            config: the dict `get_config` returned.
            custom_objects: {name: class or function} for your own layers.

        Returns:
            The new model.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
            >>> ks.Sequential.from_config(model.get_config()).count_params()
            8
        """
        model = cls(name=config.get("name"))
        for layer_config in config.get("layers", []):
            model.add(deserialize_keras_object(layer_config, custom_objects))
        shape = config.get("build_input_shape")
        if not model.built and shape:
            model.build(shape)
        model.trainable = config.get("trainable", True)
        return model

    def call(self, inputs, training=None):
        outputs = inputs
        if self._input_layer is not None:  # checked and cast as a functional model does
            outputs = conform_input(self._input_layer.output, inputs)
        for layer in self._layers:
            outputs = layer(outputs, training=training)
        return outputs
