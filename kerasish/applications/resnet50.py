"""`keras.applications.resnet50`: ResNet50 with its preprocessing and decoding (the same
objects as `ks.applications.resnet`'s).

Example:
    >>> import kerasish as ks
    >>> ks.applications.resnet50.ResNet50 is ks.applications.resnet.ResNet50
    True
"""

from kerasish.applications.resnet import (  # noqa: F401
    ResNet50,
    decode_predictions,
    preprocess_input,
)
