"""`ks.layers.serialize` and `ks.layers.deserialize`: a layer to and from Keras's
`{"module", "class_name", "config", "registered_name"}` dict, the form `.keras` files hold.
Thin names over the one registry in `kerasish.core.serialization`."""

from __future__ import annotations

from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.layers.base import Layer


def serialize(layer: Layer) -> dict:
    """The layer as Keras's serialized dict (its class, module and `get_config()`).

    Args:
        layer: a layer.

    Returns:
        A JSON-ready dict that `deserialize` (here or in Keras) turns back into a layer.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.serialize(ks.layers.Dense(3))["class_name"]
        'Dense'
    """
    return serialize_keras_object(layer)


def deserialize(config: dict, custom_objects: dict | None = None) -> Layer:
    """The layer a `serialize` dict describes (a new, unbuilt layer).

    Args:
        config: a dict from `serialize` (kerasish's or Keras's).
        custom_objects: user classes or functions the config names, by name.

    Returns:
        The layer.

    Raises:
        ValueError: the config names a class that is neither built in nor given.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.deserialize(ks.layers.serialize(ks.layers.Dense(3, name="d")))
        >>> type(layer).__name__, layer.name, layer.units
        ('Dense', 'd', 3)
    """
    return deserialize_keras_object(config, custom_objects=custom_objects)
