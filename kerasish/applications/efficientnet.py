"""EfficientNet B0 to B7: compound-scaled MBConv networks, as Keras builds them.

Reference: Tan and Le, "EfficientNet: Rethinking Model Scaling for Convolutional
Neural Networks" (ICML 2019). The input preprocessing is part of the model
(`Rescaling(1/255)`, then a `Normalization` whose mean and variance are weights, set
by the ImageNet file), so `preprocess_input` passes its input through. Keras's
layer names and weight order: a Keras `.weights.h5` or `.keras` file loads.
"""

from __future__ import annotations

import math

from kerasish import layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"

WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}

_KEYS = ("kernel_size", "repeats", "filters_in", "filters_out", "expand_ratio", "id_skip",
         "strides", "se_ratio")
DEFAULT_BLOCKS_ARGS = [
    dict(zip(_KEYS, row))
    for row in (
        (3, 1, 32, 16, 1, True, 1, 0.25),
        (3, 2, 16, 24, 6, True, 2, 0.25),
        (5, 2, 24, 40, 6, True, 2, 0.25),
        (3, 3, 40, 80, 6, True, 2, 0.25),
        (5, 3, 80, 112, 6, True, 1, 0.25),
        (5, 4, 112, 192, 6, True, 2, 0.25),
        (3, 1, 192, 320, 6, True, 1, 0.25),
    )
]

CONV_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
DENSE_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def EfficientNet(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    activation="swish",
    blocks_args="default",
    name="efficientnet",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """The EfficientNet family's builder, scaled by width and depth coefficients.

    Args:
        width_coefficient: the filters' multiplier.
        depth_coefficient: the blocks' repeats' multiplier.
        default_size: the default image size.
        dropout_rate: the dropout rate before the classifier.
        drop_connect_rate: the largest rate of the blocks' residual dropout.
        depth_divisor: filters are rounded to multiples of it.
        activation: the activation of the blocks.
        blocks_args: the blocks' arguments (`"default"`: EfficientNet's).
        name: the model's name.
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` or the path of a weights file.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes.
        classifier_activation: the top layer's activation.
        weights_name: the ImageNet file's key (`"b0"`...).

    Returns:
        A functional `Model`.

    >>> EfficientNet  # doctest: +ELLIPSIS
    <function EfficientNet at ...>
    """
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    _family.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=None,
        require_flatten=include_top, weights=weights,
    )
    img_input = _family.image_input(input_tensor, input_shape)
    bn_axis = 3 if _family.channel_axis() == -1 else 1

    def round_filters(filters, divisor=depth_divisor):
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    normalization = layers.Normalization(axis=bn_axis)
    x = normalization(x)
    # Keras's Normalization that was never adapted divides by its initial weights (mean 0,
    # variance 1); kerasish's refuses to run unset, so set them to those values here. The
    # ImageNet file (or any weights file) then overwrites them.
    for variable in (normalization.adapt_mean, normalization.adapt_variance):
        variable.assign(variable.numpy())
    if weights == "imagenet":
        # The ImageNet file's Normalization holds the variance as the std (a quirk of
        # the original weights); Keras corrects it with this second rescaling.
        x = layers.Rescaling([1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, original in enumerate(blocks_args):
        args = dict(original)
        if args["repeats"] <= 0:
            raise ValueError(
                "The number of repeats in `EfficientNet` must be > 0. "
                f"Received: repeats={args['repeats']}"
            )
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = _family.make_model(input_tensor, img_input, x, name)
    if weights == "imagenet":
        top = 0 if include_top else 1
        file_name = name + (".h5" if include_top else "_notop.h5")
        _family.load_family_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name,
                            file_hash=WEIGHTS_HASHES[weights_name][top])
    else:
        _family.load_family_weights(model, weights, None, None)
    return model


def block(inputs, activation="swish", drop_rate=0.0, name="", filters_in=32, filters_out=16,
          kernel_size=3, strides=1, expand_ratio=1, se_ratio=0.0, id_skip=True):
    """One MBConv block: expand, depthwise, squeeze-excite, project, residual.

    Args:
        inputs: the block's input tensor.
        activation: the block's activation.
        drop_rate: the residual branch's dropout rate.
        name: the prefix of the block's layer names.
        filters_in: the input's channels.
        filters_out: the output's channels.
        kernel_size: the depthwise kernel's size.
        strides: the depthwise convolution's strides.
        expand_ratio: the expansion of the input's channels.
        se_ratio: the squeeze-excite width, as a fraction of `filters_in`.
        id_skip: whether to add the input back when shapes allow.

    Returns:
        The block's output tensor.

    >>> block  # doctest: +ELLIPSIS
    <function block at ...>
    """
    bn_axis = 3 if _family.channel_axis() == -1 else 1
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER,
                          name=f"{name}expand_conv")(inputs)
        x = layers.BatchNormalization(axis=bn_axis, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"{name}dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=conv_pad, use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER,
                      name=f"{name}project_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def squeeze_excite(x, filters, filters_se, activation, name):
    """EfficientNet's squeeze-excite: pooled, reshaped, reduced, expanded, multiplied.

    Args:
        x: the features.
        filters: their channels.
        filters_se: the reduced width.
        activation: the reduction's activation.
        name: the prefix of the layer names.

    Returns:
        The features scaled per channel.

    >>> squeeze_excite  # doctest: +ELLIPSIS
    <function squeeze_excite at ...>
    """
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se_shape = (filters, 1, 1) if _family.channel_axis() == 1 else (1, 1, filters)
    se = layers.Reshape(se_shape, name=f"{name}se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_expand")(se)
    return layers.multiply([x, se], name=f"{name}se_excite")


def _variant(key, width, depth, size, dropout):
    """The public constructor of one variant (B0..B7)."""

    def constructor(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                    pooling=None, classes=1000, classifier_activation="softmax",
                    name=f"efficientnet{key}"):
        return EfficientNet(
            width, depth, size, dropout, name=name, include_top=include_top, weights=weights,
            input_tensor=input_tensor, input_shape=input_shape, pooling=pooling,
            classes=classes, classifier_activation=classifier_activation, weights_name=key,
        )

    constructor.__name__ = constructor.__qualname__ = f"EfficientNet{key.upper()}"
    constructor.__doc__ = f"""Builds EfficientNet{key.upper()}, as
    `keras.applications.EfficientNet{key.upper()}` does.

    Its default input is {size}x{size}; the model rescales [0, 255] inputs itself.

    Args:
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis (at least 32x32).
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = EfficientNet{key.upper()}(weights=None, include_top=False,
    ...                       input_shape=(32, 32, 3), pooling="avg")  # doctest: +SKIP
    """
    return constructor


EfficientNetB0 = _variant("b0", 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _variant("b1", 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _variant("b2", 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _variant("b3", 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _variant("b4", 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _variant("b5", 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _variant("b6", 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _variant("b7", 2.0, 3.1, 600, 0.5)


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: EfficientNet rescales and normalizes its input itself.

    Args:
        x: images in [0, 255].
        data_format: unused, kept for Keras's signature.

    Returns:
        `x`.

    >>> preprocess_input([1.0, 2.0])
    [1.0, 2.0]
    """
    return x
