"""MobileNet (V1): depthwise-separable convolutions, Keras's layer names and weight order.

Reference: Howard et al., "MobileNets: Efficient Convolutional Neural Networks for
Mobile Vision Applications" (2017). A Keras `.weights.h5` or `.keras` file of the same
configuration loads into the model built here and predicts the same; the ImageNet
file Keras downloads (`mobilenet_1_0_224_tf.h5`, ...) is read from Keras's cache folder.
"""

from __future__ import annotations

import warnings

from kerasish import layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """Builds MobileNet, as `keras.applications.MobileNet` does.

    Args:
        input_shape: the image shape without the batch axis, e.g. `(224, 224, 3)`;
            at least 32x32 with 3 channels. Required as `(224, 224, 3)` (or one of
            128/160/192) when `include_top` with ImageNet weights.
        alpha: the width multiplier: the number of filters of every layer is scaled by it.
        depth_multiplier: the depthwise convolutions' depth multiplier.
        dropout: the dropout rate before the classifier.
        include_top: whether to end with the classifier (pooling, dropout, a 1x1
            convolution to `classes`, the activation).
        weights: `None` (random initialization), `"imagenet"` (Keras's file, from
            Keras's cache folder) or the path of a weights file.
        input_tensor: an optional Keras tensor (from `layers.Input`) to build on.
        pooling: without the top: `None` (4D features), `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name (default `mobilenet_{alpha:0.2f}_{rows}`).

    Returns:
        A functional `Model`.

    >>> model = MobileNet(input_shape=(32, 32, 3), alpha=0.25, weights=None,
    ...                   include_top=False, pooling="avg")
    >>> model.output_shape
    (None, 256)
    """
    _family.check_weights_argument(weights, include_top, classes)
    if input_shape is None:
        default_size = 224
    else:
        rows, cols = _family.spatial_size(input_shape)
        default_size = rows if rows == cols and rows in (128, 160, 192, 224) else 224
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
        if depth_multiplier != 1:
            raise ValueError(
                "If imagenet weights are being loaded, depth multiplier must be 1.  "
                f"Received depth_multiplier={depth_multiplier}"
            )
        if alpha not in (0.25, 0.50, 0.75, 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of "
                f"`0.25`, `0.50`, `0.75` or `1.0` only.  Received alpha={alpha}"
            )
        if rows != cols or rows not in (128, 160, 192, 224):
            rows = 224
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not in "
                "[128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                "loaded as the default.",
                stacklevel=2,
            )
    img_input = _family.image_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
    plan += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(plan, start=1):
        x = _depthwise_conv_block(
            x, filters, alpha, depth_multiplier, strides=(stride, stride), block_id=block_id
        )
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _family.pool_features(x, pooling)
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    model = _family.make_model(input_tensor, img_input, x, name)
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0"}.get(alpha, "2_5")
    suffix = "" if include_top else "_no_top"
    file_name = f"mobilenet_{alpha_text}_{rows}_tf{suffix}.h5"
    _family.load_family_weights(model, weights, file_name, BASE_WEIGHT_PATH + file_name)
    return model


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    """The first convolution, batch normalization and ReLU6."""
    x = layers.Conv2D(
        int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides,
        name="conv1",
    )(inputs)
    x = layers.BatchNormalization(axis=_family.channel_axis(), name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(
    inputs, pointwise_conv_filters, alpha, depth_multiplier=1, strides=(1, 1), block_id=1
):
    """A depthwise 3x3 and a pointwise 1x1 convolution, each with batch norm and ReLU6."""
    x = inputs
    if strides != (1, 1):
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(
        (3, 3),
        padding="same" if strides == (1, 1) else "valid",
        depth_multiplier=depth_multiplier,
        strides=strides,
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=_family.channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(
        int(pointwise_conv_filters * alpha), (1, 1), padding="same", use_bias=False,
        strides=(1, 1), name=f"conv_pw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=_family.channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1], as MobileNet was trained ("tf" mode).

    Args:
        x: an array or tensor of images, floats or integers in [0, 255].
        data_format: the images' layout (`None`: the configured one).

    Returns:
        The scaled images.

    >>> import numpy as np
    >>> preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]])).tolist()
    [[[[-1.0, 0.0, 1.0]]]]
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
