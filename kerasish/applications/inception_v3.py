"""InceptionV3 (Szegedy et al., CVPR 2016), as `keras.applications.inception_v3`: Keras's
layers in Keras's order (its convolutions are unnamed, so the weight files are read by
position), `tf` preprocessing; default input 299x299, at least 75x75.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.inception_v3.InceptionV3(weights=None, include_top=False,
    ...                                                  input_shape=(75, 75, 3))
    >>> model.output.shape
    (None, 1, 1, 2048)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.models import Functional

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5")
_FILES = {True: ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5", WEIGHTS_PATH,
                 "9a0d58056eeedaa3f26cb7ebd46da564"),
          False: ("inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
                  WEIGHTS_PATH_NO_TOP, "bcbd6486424b2319ff4ef7d526e38f63")}


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """A convolution without bias, a batch norm without scale, and a ReLU.

    Args:
        x: the input tensor.
        filters: the convolution's filters.
        num_row: the kernel's height.
        num_col: the kernel's width.
        padding: the convolution's padding.
        strides: the convolution's strides.
        name: the ReLU's name; the convolution is `name + "_conv"`, the batch norm
            `name + "_bn"` (all auto-named when None).

    Returns:
        The output tensor.

    Example:
        >>> import kerasish as ks
        >>> conv2d_bn(ks.Input((8, 8, 3)), 4, 3, 3, strides=(2, 2)).shape
        (None, 4, 4, 4)
    """
    bn_axis = 1 if settings.image_data_format() == "channels_first" else 3
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=None if name is None else f"{name}_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, scale=False,
                                  name=None if name is None else f"{name}_bn")(x)
    return layers.Activation("relu", name=name)(x)


def _average_branch(x, filters):
    x = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def _block_35(x, pool_filters, name, channel_axis):
    """mixed0 to mixed2: 1x1, 5x5, double 3x3 and pooling branches."""
    branch1x1 = conv2d_bn(x, 64, 1, 1)
    branch5x5 = conv2d_bn(x, 48, 1, 1)
    branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch_pool = _average_branch(x, pool_filters)
    return layers.Concatenate(axis=channel_axis, name=name)(
        [branch1x1, branch5x5, branch3x3dbl, branch_pool])


def _block_17(x, width, name, channel_axis):
    """mixed4 to mixed7: 1x1, factorized 7x7, double factorized 7x7 and pooling branches."""
    branch1x1 = conv2d_bn(x, 192, 1, 1)
    branch7x7 = conv2d_bn(x, width, 1, 1)
    branch7x7 = conv2d_bn(branch7x7, width, 1, 7)
    branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
    branch7x7dbl = conv2d_bn(x, width, 1, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, width, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, width, 1, 7)
    branch7x7dbl = conv2d_bn(branch7x7dbl, width, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
    branch_pool = _average_branch(x, 192)
    return layers.Concatenate(axis=channel_axis, name=name)(
        [branch1x1, branch7x7, branch7x7dbl, branch_pool])


def _block_8(x, index, channel_axis):
    """mixed9 and mixed10: 1x1, split 3x3, double split 3x3 and pooling branches."""
    branch1x1 = conv2d_bn(x, 320, 1, 1)
    branch3x3 = conv2d_bn(x, 384, 1, 1)
    branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
    branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
    branch3x3 = layers.Concatenate(axis=channel_axis, name=f"mixed9_{index}")(
        [branch3x3_1, branch3x3_2])
    branch3x3dbl = conv2d_bn(x, 448, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
    branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
    branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
    branch3x3dbl = layers.Concatenate(axis=channel_axis)([branch3x3dbl_1, branch3x3dbl_2])
    branch_pool = _average_branch(x, 192)
    return layers.Concatenate(axis=channel_axis, name=f"mixed{9 + index}")(
        [branch1x1, branch3x3, branch3x3dbl, branch_pool])


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="inception_v3"):
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    channel_axis = 1 if settings.image_data_format() == "channels_first" else 3
    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for index, pool_filters in enumerate((32, 64, 64)):
        x = _block_35(x, pool_filters, f"mixed{index}", channel_axis)
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.Concatenate(axis=channel_axis, name="mixed3")(
        [branch3x3, branch3x3dbl, branch_pool])
    for index, width in enumerate((128, 160, 160, 192)):
        x = _block_17(x, width, f"mixed{4 + index}", channel_axis)
    branch3x3 = conv2d_bn(x, 192, 1, 1)
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.Concatenate(axis=channel_axis, name="mixed8")(
        [branch3x3, branch7x7x3, branch_pool])
    for index in range(2):
        x = _block_8(x, index, channel_axis)
    x = imagenet_utils.average_pool_head(x, include_top, pooling, classes,
                                         classifier_activation, weights)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    fname, origin, file_hash = _FILES[bool(include_top)]
    return imagenet_utils.load_model_weights(model, weights, fname, origin, file_hash)


InceptionV3.__doc__ = imagenet_utils.APPLICATION_DOC.format(
    title="InceptionV3", module="inception_v3", default_size=299, min_size=75,
    preprocessing="scaled to [-1, 1]", features=2048)


def preprocess_input(x, data_format=None):
    """Preprocess images for InceptionV3: pixels scaled to [-1, 1]
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
