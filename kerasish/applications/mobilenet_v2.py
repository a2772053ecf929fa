"""MobileNetV2: inverted residual blocks with linear bottlenecks, as Keras builds it.

Reference: Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks"
(CVPR 2018). Keras's layer names and weight order, so a Keras `.weights.h5` or
`.keras` file of the same configuration loads and predicts the same.
"""

from __future__ import annotations

import warnings

from kerasish import layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"

_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of the 17 inverted residual blocks, in order.
_BLOCKS = (
    [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]
)


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """Builds MobileNetV2, as `keras.applications.MobileNetV2` does.

    Args:
        input_shape: the image shape without the batch axis (at least 32x32, 3 channels).
        alpha: the width multiplier (ImageNet weights exist for 0.35, 0.5, 0.75, 1.0,
            1.3 and 1.4).
        include_top: whether to end with the pooled `Dense` classifier.
        weights: `None`, `"imagenet"` (Keras's file, from Keras's cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name (default `mobilenetv2_{alpha:0.2f}_{rows}`).

    Returns:
        A functional `Model`.

    >>> model = MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None,
    ...                     include_top=False, pooling="max")
    >>> model.output_shape
    (None, 1280)
    """
    _family.check_weights_argument(weights, include_top, classes)
    _family.check_input_tensor_shape(input_tensor, input_shape)
    if input_shape is None and input_tensor is not None:
        rows, cols = _family.spatial_size(tuple(input_tensor.shape)[1:])
        default_size = rows if rows == cols and rows in _SIZES else 224
    elif input_shape is None:
        default_size = 224
    else:
        rows, cols = _family.spatial_size(input_shape)
        default_size = rows if rows == cols and rows in _SIZES else 224
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        data_format=None,
        require_flatten=include_top,
        weights=weights,
    )
    rows, cols = _family.spatial_size(input_shape)
    if weights == "imagenet":
        if alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
            raise ValueError(
                "If imagenet weights are being loaded, alpha must be one of `0.35`, "
                f"`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received `alpha={alpha}`"
            )
        if rows != cols or rows not in _SIZES:
            rows = 224
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not in "
                "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                "loaded as the default.",
                stacklevel=2,
            )
    img_input = _family.image_input(input_tensor, input_shape)
    axis = _family.channel_axis()
    x = layers.Conv2D(
        _family.make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same",
        use_bias=False, name="Conv1",
    )(img_input)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(
            x, filters=filters, alpha=alpha, stride=stride, expansion=expansion,
            block_id=block_id,
        )
    last_block_filters = _family.make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _family.pool_features(x, pooling)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    model = _family.make_model(input_tensor, img_input, x, name)
    suffix = "" if include_top else "_no_top"
    file_name = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{suffix}.h5"
    _family.load_family_weights(model, weights, file_name, BASE_WEIGHT_PATH + file_name)
    return model


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """Expand (1x1), depthwise 3x3, project (1x1); a residual add where shapes allow."""
    axis = _family.channel_axis()
    in_channels = inputs.shape[axis]
    pointwise_filters = _family.make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(
            expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
            activation=None, name=f"{prefix}expand",
        )(x)
        x = layers.BatchNormalization(
            axis=axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}expand_BN"
        )(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(
            padding=imagenet_utils.correct_pad(x, 3), name=f"{prefix}pad"
        )(x)
    x = layers.DepthwiseConv2D(
        kernel_size=3, strides=stride, activation=None, use_bias=False,
        padding="same" if stride == 1 else "valid", name=f"{prefix}depthwise",
    )(x)
    x = layers.BatchNormalization(
        axis=axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}depthwise_BN"
    )(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(
        pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None,
        name=f"{prefix}project",
    )(x)
    x = layers.BatchNormalization(
        axis=axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}project_BN"
    )(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] ("tf" mode), as MobileNetV2 was trained.

    Args:
        x: an array or tensor of images in [0, 255].
        data_format: the images' layout (`None`: the configured one).

    Returns:
        The scaled images.

    >>> import numpy as np
    >>> preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]])).tolist()
    [[[[-1.0, 0.0, 1.0]]]]
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
