"""`Wrapper`: the base of layers that hold one other layer and add to its behaviour
(SpectralNormalization here; Keras's TimeDistributed and Bidirectional follow the same
contract). The wrapped layer is built with the wrapper and saved in its config as
`layer`, as Keras does."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.serialization import deserialize_keras_object
from kerasish.layers.base import Layer


class Wrapper(Layer):
    """A layer that wraps another: subclasses implement `call` around `self.layer`.

    Args:
        layer: the wrapped `Layer`.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``trainable``, ...).

    Raises:
        ValueError: `layer` is not a Layer.

    Example:
        >>> import kerasish as ks
        >>> class Doubled(ks.layers.Wrapper):
        ...     def call(self, inputs):
        ...         return 2 * self.layer(inputs)
        >>> Doubled(ks.layers.Dense(3, kernel_initializer="ones"))(ks.ones([1, 2])).numpy()
        array([[4., 4., 4.]], dtype=float32)
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise InvalidArgumentError(
                f"{type(self).__name__}: the wrapped layer must be a Layer, got {layer!r} "
                f"(a {type(layer).__name__})"
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape if input_shape is None else tuple(input_shape))
            self.layer.built = True

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__name__}: a Wrapper subclass must implement call() (Wrapper itself "
            "only holds the wrapped layer)"
        )

    def compute_output_shape(self, input_shape):
        """The wrapped layer's output shape (a wrapper that reshapes overrides this).

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.SpectralNormalization(ks.layers.Dense(3)).compute_output_shape(
            ...     (None, 5))
            (None, 3)
        """
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": self.layer}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """The wrapper described by `config`, its `layer` entry deserialized.

        Args:
            config: a `get_config()` dict (from kerasish or Keras).
            custom_objects: names of user classes the nested layer may use.

        Returns:
            The wrapper.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.SpectralNormalization(ks.layers.Dense(3), power_iterations=2)
            >>> config = layer.get_config()
            >>> ks.layers.SpectralNormalization.from_config(config).power_iterations
            2
        """
        config = dict(config)
        if "layer" not in config:
            raise InvalidArgumentError(
                f"{cls.__name__}: its config needs the wrapped layer under 'layer', got the keys "
                f"{sorted(config)}"
            )
        layer = config.pop("layer")
        if isinstance(layer, dict):
            layer = deserialize_keras_object(layer, custom_objects=custom_objects)
        return cls(layer, **config)
