"""`ks.saving`: the serialization registry, `.keras` files and Keras 3 interop.

Example:
    >>> import kerasish as ks
    >>> layer = ks.layers.Dense(4, activation="relu", name="hidden")
    >>> copy = ks.saving.deserialize_keras_object(ks.saving.serialize_keras_object(layer))
    >>> type(copy).__name__, copy.units, copy.name
    ('Dense', 4, 'hidden')
"""

from kerasish.core.serialization import (  # noqa: F401
    CustomObjectScope,
    SerializationError,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from kerasish.saving.file_editor import KerasFileEditor  # noqa: F401
from kerasish.saving.keras_file import (  # noqa: F401
    KerasFileError,
    load_model,
    load_weights,
    save_model,
    save_weights,
)
from kerasish.saving.weights_layout import WeightsFileError  # noqa: F401
