"""Sequential: a linear stack of layers."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.layers.base import Layer
from kerasish.models.model import Model


class Sequential(Model):
    """Layers applied one after the other.

    Give the first layer an `input_shape` to build at once (so `summary()`
    works before any data is seen); otherwise it builds on the first call.

    Example:
        >>> import kerasish as ks
        >>> model = ks.Sequential([
        ...     ks.layers.Dense(10, input_shape=(784,)),
        ...     ks.layers.Dense(10),
        ... ])
        >>> model.count_params()
        7960
    """

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._layers = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> list:
        return list(self._layers)

    def add(self, layer: Layer) -> None:
        """Append a layer; builds the model if the first layer declares an input shape."""
        if not isinstance(layer, Layer):
            raise InvalidArgumentError(
                f"Sequential.add expects a layer, got {type(layer).__name__}"
            )
        self._layers.append(layer)
        first_shape = self._layers[0]._batch_input_shape
        if first_shape is not None:
            self.built = False
            self.build(first_shape)

    def pop(self) -> Layer:
        """Remove and return the last layer."""
        if not self._layers:
            raise InvalidArgumentError("Sequential.pop: there are no layers")
        return self._layers.pop()

    def call(self, inputs, training=None):
        outputs = inputs
        for layer in self._layers:
            outputs = layer(outputs, training=training)
        return outputs
