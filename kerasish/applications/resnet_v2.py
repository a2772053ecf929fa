"""ResNet50V2, ResNet101V2 and ResNet152V2 (He et al., ECCV 2016: identity mappings), as
`keras.applications.resnet_v2`: pre-activation blocks and `tf` preprocessing.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.resnet_v2.ResNet50V2(weights=None, include_top=False,
    ...                                              input_shape=(32, 32, 3))
    >>> model.output.shape
    (None, 1, 1, 2048)
"""

from __future__ import annotations

from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.applications.resnet import ResNet, stack_residual_blocks_v2


def _v2_stacks(blocks: tuple):
    def stack_fn(x):
        x = stack_residual_blocks_v2(x, 64, blocks[0], name="conv2")
        x = stack_residual_blocks_v2(x, 128, blocks[1], name="conv3")
        x = stack_residual_blocks_v2(x, 256, blocks[2], name="conv4")
        return stack_residual_blocks_v2(x, 512, blocks[3], stride1=1, name="conv5")
    return stack_fn


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax",
               name="resnet50v2"):
    return ResNet(_v2_stacks((3, 4, 6, 3)), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet50v2")


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet101v2"):
    return ResNet(_v2_stacks((3, 4, 23, 3)), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet101v2")


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet152v2"):
    return ResNet(_v2_stacks((3, 8, 36, 3)), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet152v2")


for _model in (ResNet50V2, ResNet101V2, ResNet152V2):
    _model.__doc__ = imagenet_utils.APPLICATION_DOC.format(
        title=_model.__name__, module="resnet_v2", default_size=224, min_size=32,
        preprocessing="scaled to [-1, 1]", features=2048)


def preprocess_input(x, data_format=None):
    """Preprocess images for ResNetV2: pixels scaled to [-1, 1]
    (`imagenet_utils.preprocess_input` with `mode="tf"`).

    Args:
        x: images, 3D or 4D, values in [0, 255] (a float array is written over).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.

    Example:
        >>> import numpy as np
        >>> preprocess_input(np.array([[[0.0, 127.5, 255.0]]]))
        array([[[-1.,  0.,  1.]]])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")

