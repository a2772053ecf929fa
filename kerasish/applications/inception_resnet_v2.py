"""InceptionResNetV2 (Szegedy et al., AAAI 2017), as `keras.applications.inception_resnet_v2`:
Keras's layers in Keras's order (the branches' convolutions are unnamed, so the weight files
are read by position) and its `CustomScaleLayer`; `tf` preprocessing; default input
299x299, at least 75x75.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.inception_resnet_v2.InceptionResNetV2(
    ...     weights=None, include_top=False, input_shape=(75, 75, 3))
    >>> model.output.shape
    (None, 1, 1, 1536)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.core.serialization import get_custom_objects
from kerasish.models import Functional

BASE_WEIGHT_URL = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                   "inception_resnet_v2/")
_HASHES = {True: "e693bd0210a403b3192acc6073ad2e96", False: "d19885ff4a710c122648d3b5c3b684e4"}


class CustomScaleLayer(layers.Layer):
    """`inputs[0] + inputs[1] * scale`: the scaled residual sum of an Inception-ResNet block
    (Keras's `CustomScaleLayer`, found by that name when a `.keras` file names it).

    Args:
        scale: the factor of the residual branch.
        **kwargs: the `Layer` arguments (`name`, `dtype`, ...).

    Example:
        >>> import numpy as np
        >>> CustomScaleLayer(0.5)([np.ones(2, "float32"), np.full(2, 4.0, "float32")]).numpy()
        array([3., 3.], dtype=float32)
    """

    keras_module = "keras.src.applications.inception_resnet_v2"  # written in .keras files

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        """The layer's config, with `scale`.

        Returns:
            A dict of the constructor's arguments.

        Example:
            >>> CustomScaleLayer(0.2).get_config()["scale"]
            0.2
        """
        return {**super().get_config(), "scale": self.scale}

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale


# Keras's files name it "CustomScaleLayer" (module keras.src.applications....), registered
# under that plain name: found by deserialization as Keras finds it
get_custom_objects().setdefault("CustomScaleLayer", CustomScaleLayer)


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu",
              use_bias=False, name=None):
    """A convolution, a batch norm without scale (when the convolution has no bias) and an
    activation.

    Args:
        x: the input tensor.
        filters: the convolution's filters.
        kernel_size: its kernel size.
        strides: its strides.
        padding: its padding.
        activation: the activation, or None.
        use_bias: whether the convolution has a bias (then no batch norm).
        name: the convolution's name; the batch norm is `name + "_bn"`, the activation
            `name + "_ac"` (all auto-named when None).

    Returns:
        The output tensor.

    Example:
        >>> import kerasish as ks
        >>> conv2d_bn(ks.Input((8, 8, 3)), 4, 3, strides=2).shape
        (None, 4, 4, 4)
    """
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        bn_axis = 1 if settings.image_data_format() == "channels_first" else 3
        x = layers.BatchNormalization(axis=bn_axis, scale=False,
                                      name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """An Inception-ResNet block: inception branches, concatenated, a 1x1 convolution back
    to `x`'s channels, `x + scale * that`, and the activation.

    Args:
        x: the input tensor.
        scale: the factor of the residual branch.
        block_type: `"block35"`, `"block17"` or `"block8"` (the branches' structure).
        block_idx: the block's index, in its layer names (`block35_1_mixed`, ...).
        activation: the activation at the end, or None.

    Returns:
        The block's output.

    Raises:
        ValueError: for an unknown `block_type`.

    Example:
        >>> import kerasish as ks
        >>> inception_resnet_block(ks.Input((8, 8, 16)), 0.1, "block35", 1).shape
        (None, 8, 8, 16)
    """
    if block_type == "block35":
        branch_0 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(branch_1, 32, 3)
        branch_2 = conv2d_bn(x, 32, 1)
        branch_2 = conv2d_bn(branch_2, 48, 3)
        branch_2 = conv2d_bn(branch_2, 64, 3)
        branches = [branch_0, branch_1, branch_2]
    elif block_type == "block17":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(x, 128, 1)
        branch_1 = conv2d_bn(branch_1, 160, [1, 7])
        branch_1 = conv2d_bn(branch_1, 192, [7, 1])
        branches = [branch_0, branch_1]
    elif block_type == "block8":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(branch_1, 224, [1, 3])
        branch_1 = conv2d_bn(branch_1, 256, [3, 1])
        branches = [branch_0, branch_1]
    else:
        raise ValueError(
            'Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", '
            f"but got: {block_type}")
    block_name = f"{block_type}_{block_idx}"
    channel_axis = 1 if settings.image_data_format() == "channels_first" else 3
    mixed = layers.Concatenate(axis=channel_axis, name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[channel_axis], 1, activation=None, use_bias=True,
                   name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{block_name}_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", name="inception_resnet_v2"):
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    channel_axis = 1 if settings.image_data_format() == "channels_first" else 3
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    branch_0 = conv2d_bn(x, 96, 1)
    branch_1 = conv2d_bn(x, 48, 1)
    branch_1 = conv2d_bn(branch_1, 64, 5)
    branch_2 = conv2d_bn(x, 64, 1)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_pool = layers.AveragePooling2D(3, strides=1, padding="same")(x)
    branch_pool = conv2d_bn(branch_pool, 64, 1)
    x = layers.Concatenate(axis=channel_axis, name="mixed_5b")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    branch_0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 256, 3)
    branch_1 = conv2d_bn(branch_1, 384, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=channel_axis, name="mixed_6a")([branch_0, branch_1, branch_pool])
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    branch_0 = conv2d_bn(x, 256, 1)
    branch_0 = conv2d_bn(branch_0, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(x, 256, 1)
    branch_2 = conv2d_bn(branch_2, 288, 3)
    branch_2 = conv2d_bn(branch_2, 320, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=channel_axis, name="mixed_7a")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    x = imagenet_utils.average_pool_head(x, include_top, pooling, classes,
                                         classifier_activation, weights)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    suffix = "" if include_top else "_notop"
    fname = f"inception_resnet_v2_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return imagenet_utils.load_model_weights(model, weights, fname, BASE_WEIGHT_URL + fname,
                                             _HASHES[bool(include_top)])


InceptionResNetV2.__doc__ = imagenet_utils.APPLICATION_DOC.format(
    title="InceptionResNetV2", module="inception_resnet_v2", default_size=299, min_size=75,
    preprocessing="scaled to [-1, 1]", features=1536)


def preprocess_input(x, data_format=None):
    """Preprocess images for InceptionResNetV2: pixels scaled to [-1, 1]
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
