"""MobileNetV3 Small and Large: inverted residuals with squeeze-excite and hard-swish.

Reference: Howard et al., "Searching for MobileNetV3" (ICCV 2019). The input
preprocessing (a `Rescaling` to [-1, 1]) is part of the model unless
`include_preprocessing=False`, so `preprocess_input` passes its input through.
Keras's layer names and weight order: a Keras `.weights.h5` or `.keras` file loads.
"""

from __future__ import annotations

import warnings

from kerasish import layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.core.keras_tensor import KerasTensor

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"

# (expansion, filters, kernel ("k": 3 when minimalistic, else 5), stride, squeeze-excite,
#  activation ("relu" or "act": the family's)) of each block.
_SMALL = [
    (1, 16, 3, 2, True, "relu"), (72.0 / 16, 24, 3, 2, False, "relu"),
    (88.0 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, "act"),
    (6, 40, "k", 1, True, "act"), (6, 40, "k", 1, True, "act"),
    (3, 48, "k", 1, True, "act"), (3, 48, "k", 1, True, "act"),
    (6, 96, "k", 2, True, "act"), (6, 96, "k", 1, True, "act"), (6, 96, "k", 1, True, "act"),
]
_LARGE = [
    (1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"), (3, 24, 3, 1, False, "relu"),
    (3, 40, "k", 2, True, "relu"), (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
    (6, 80, 3, 2, False, "act"), (2.5, 80, 3, 1, False, "act"), (2.3, 80, 3, 1, False, "act"),
    (2.3, 80, 3, 1, False, "act"), (6, 112, 3, 1, True, "act"), (6, 112, 3, 1, True, "act"),
    (6, 160, "k", 2, True, "act"), (6, 160, "k", 1, True, "act"), (6, 160, "k", 1, True, "act"),
]


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def MobileNetV3(
    stack_fn,
    last_point_ch,
    input_shape=None,
    alpha=1.0,
    model_type="large",
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name=None,
):
    """The MobileNetV3 trunk and head around a `stack_fn(x, kernel, activation, se_ratio)`.

    Args:
        stack_fn: builds the inverted residual blocks.
        last_point_ch: the width of the head's last 1x1 convolution.
        input_shape: the image shape without the batch axis (at least 32x32).
        alpha: the width multiplier.
        model_type: `"small"` or `"large"` (names the ImageNet file).
        minimalistic: 3x3 kernels, ReLU and no squeeze-excite.
        include_top: whether to end with the classifier.
        weights: `None`, `"imagenet"` or the path of a weights file.
        input_tensor: an optional Keras tensor to build on.
        classes: the number of classes.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        dropout_rate: the dropout rate before the logits.
        classifier_activation: the top layer's activation.
        include_preprocessing: start with `Rescaling(1/127.5, offset=-1)`.
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> MobileNetV3  # doctest: +ELLIPSIS
    <function MobileNetV3 at ...>
    """
    _family.check_weights_argument(weights, include_top, classes)
    _family.check_input_tensor_shape(input_tensor, input_shape)
    channels_first = settings.image_data_format() == "channels_first"
    if input_shape is None and input_tensor is not None:
        if isinstance(input_tensor, KerasTensor):
            rows, cols = _family.spatial_size(tuple(input_tensor.shape)[1:])
            input_shape = (3, cols, rows) if channels_first else (cols, rows, 3)
    if input_shape is None:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    rows, cols = _family.spatial_size(input_shape)
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(
            f"Input size must be at least 32x32; Received `input_shape={input_shape}`"
        )
    if weights == "imagenet":
        if (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for "
                "non minimalistic or `1.0` for minimalistic only."
            )
        if rows != cols or rows != 224:
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not 224. Weights for "
                "input shape (224, 224) will be loaded as the default.",
                stacklevel=2,
            )
    img_input = _family.image_input(input_tensor, input_shape)
    axis = _family.channel_axis()
    if minimalistic:
        kernel, activation, se_ratio = 3, _relu, None
    else:
        kernel, activation, se_ratio = 5, _hard_swish, 0.25
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="conv_bn")(x)
    x = activation(x)
    x = stack_fn(x, kernel, activation, se_ratio)
    last_conv_ch = _family.make_divisible(x.shape[axis] * 6)
    if alpha > 1.0:
        last_point_ch = _family.make_divisible(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="conv_1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = _family.make_model(input_tensor, img_input, x, name)
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    suffix = "" if include_top else "_no_top_v2"
    file_name = f"weights_mobilenet_v3_{model_name}{suffix}.h5"
    _family.load_family_weights(model, weights, file_name, BASE_WEIGHT_PATH + file_name)
    return model


def _stack(plan, alpha):
    """The `stack_fn` that builds the blocks of `plan` at width `alpha`."""

    def stack_fn(x, kernel, activation, se_ratio):
        for block_id, (expansion, filters, k, stride, se, act) in enumerate(plan):
            x = _inverted_res_block(
                x, expansion, _family.make_divisible(filters * alpha), kernel if k == "k" else k,
                stride, se_ratio if se else None, _relu if act == "relu" else activation,
                block_id,
            )
        return x

    return stack_fn


def MobileNetV3Small(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Small",
):
    """Builds MobileNetV3Small, as `keras.applications.MobileNetV3Small` does.

    Args:
        input_shape: the image shape without the batch axis (default `(None, None, 3)`).
        alpha: the width multiplier (ImageNet weights: 0.75 or 1.0; 1.0 if minimalistic).
        minimalistic: 3x3 kernels, ReLU only, no squeeze-excite.
        include_top: whether to end with the classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        classes: the number of classes.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        dropout_rate: the dropout rate before the logits.
        classifier_activation: the top layer's activation (`None` for logits).
        include_preprocessing: whether the model rescales [0, 255] inputs itself.
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = MobileNetV3Small(input_shape=(32, 32, 3), weights=None, classes=4)
    >>> model.output_shape
    (None, 4)
    """
    return MobileNetV3(
        _stack(_SMALL, alpha), 1024, input_shape, alpha, "small", minimalistic, include_top,
        weights, input_tensor, classes, pooling, dropout_rate, classifier_activation,
        include_preprocessing, name=name,
    )


def MobileNetV3Large(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Large",
):
    """Builds MobileNetV3Large, as `keras.applications.MobileNetV3Large` does.

    Args:
        input_shape: the image shape without the batch axis (default `(None, None, 3)`).
        alpha: the width multiplier (ImageNet weights: 0.75 or 1.0; 1.0 if minimalistic).
        minimalistic: 3x3 kernels, ReLU only, no squeeze-excite.
        include_top: whether to end with the classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        classes: the number of classes.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        dropout_rate: the dropout rate before the logits.
        classifier_activation: the top layer's activation (`None` for logits).
        include_preprocessing: whether the model rescales [0, 255] inputs itself.
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = MobileNetV3Large(input_shape=(32, 32, 3), weights=None, include_top=False,
    ...                          pooling="avg", minimalistic=True)
    >>> model.output_shape
    (None, 960)
    """
    return MobileNetV3(
        _stack(_LARGE, alpha), 1280, input_shape, alpha, "large", minimalistic, include_top,
        weights, input_tensor, classes, pooling, dropout_rate, classifier_activation,
        include_preprocessing, name=name,
    )


def _se_block(inputs, filters, se_ratio, prefix):
    """Squeeze-excite: pooled channel weights through two 1x1 convolutions, hard sigmoid."""
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs
    )
    x = layers.Conv2D(_family.make_divisible(filters * se_ratio), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation,
                        block_id):
    """Expand, depthwise, optional squeeze-excite, project; a residual add where it fits."""
    axis = _family.channel_axis()
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[axis]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_family.make_divisible(infilters * expansion), kernel_size=1,
                          padding="same",
                          use_bias=False, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                      name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _family.make_divisible(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=f"{prefix}project_bn")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: MobileNetV3 rescales its input itself (a `Rescaling` layer).

    Args:
        x: images in [0, 255].
        data_format: unused, kept for Keras's signature.

    Returns:
        `x`.

    >>> preprocess_input([1.0, 2.0])
    [1.0, 2.0]
    """
    return x
