"""Xception (Chollet, CVPR 2017), as `keras.applications.xception`: depthwise separable
convolutions with residual connections, Keras's layer names and weight order, `tf`
preprocessing; default input 299x299, at least 71x71.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.xception.Xception(weights=None, include_top=False,
    ...                                           input_shape=(71, 71, 3))
    >>> model.output.shape
    (None, 3, 3, 2048)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.models import Functional

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                "xception/xception_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "xception/xception_weights_tf_dim_ordering_tf_kernels_notop.h5")
_FILES = {True: ("xception_weights_tf_dim_ordering_tf_kernels.h5", WEIGHTS_PATH,
                 "0a58e3b7378bc2990ea3b43d5981f1f6"),
          False: ("xception_weights_tf_dim_ordering_tf_kernels_notop.h5", WEIGHTS_PATH_NO_TOP,
                  "b0042744bf5b25fce3cb969f33bebb97")}


def _separable(x, filters, name, channel_axis, activate=True):
    """(ReLU,) a 3x3 separable convolution and its batch norm."""
    if activate:
        x = layers.Activation("relu", name=f"{name}_act")(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=channel_axis, name=f"{name}_bn")(x)


def _downsampling_block(x, filters, block, channel_axis, first_relu=True):
    """Two separable convolutions and a strided max pooling, added to a strided 1x1
    convolution of the input (the entry flow's blocks, and block 13)."""
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same",
                             use_bias=False)(x)
    residual = layers.BatchNormalization(axis=channel_axis)(residual)
    if first_relu:
        x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
    x = _separable(x, filters[0], f"block{block}_sepconv1", channel_axis, activate=False)
    x = _separable(x, filters[1], f"block{block}_sepconv2", channel_axis)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same",
                            name=f"block{block}_pool")(x)
    return layers.Add()([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="xception"):
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=71, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    channel_axis = 1 if settings.image_data_format() == "channels_first" else -1
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(
        img_input)
    x = layers.BatchNormalization(axis=channel_axis, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=channel_axis, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _downsampling_block(x, (128, 128), 2, channel_axis, first_relu=False)
    x = _downsampling_block(x, (256, 256), 3, channel_axis)
    x = _downsampling_block(x, (728, 728), 4, channel_axis)
    for i in range(8):  # the middle flow
        residual = x
        prefix = f"block{i + 5}"
        for conv in (1, 2, 3):
            x = _separable(x, 728, f"{prefix}_sepconv{conv}", channel_axis)
        x = layers.Add()([x, residual])
    x = _downsampling_block(x, (728, 1024), 13, channel_axis)
    x = _separable(x, 1536, "block14_sepconv1", channel_axis, activate=False)
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _separable(x, 2048, "block14_sepconv2", channel_axis, activate=False)
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    x = imagenet_utils.average_pool_head(x, include_top, pooling, classes,
                                         classifier_activation, weights)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    fname, origin, file_hash = _FILES[bool(include_top)]
    return imagenet_utils.load_model_weights(model, weights, fname, origin, file_hash)


Xception.__doc__ = imagenet_utils.APPLICATION_DOC.format(
    title="Xception", module="xception", default_size=299, min_size=71,
    preprocessing="scaled to [-1, 1]", features=2048)


def preprocess_input(x, data_format=None):
    """Preprocess images for Xception: pixels scaled to [-1, 1]
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
