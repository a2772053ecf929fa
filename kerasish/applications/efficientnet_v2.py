"""EfficientNetV2 B0..B3, S, M, L: MBConv and fused-MBConv stages, as Keras builds them.

Reference: Tan and Le, "EfficientNetV2: Smaller Models and Faster Training" (ICML 2021).
The input preprocessing is part of the model unless `include_preprocessing=False`
(B variants: `Rescaling(1/255)` and ImageNet's mean and variance; S/M/L: a rescaling
to [-1, 1]), so `preprocess_input` passes its input through. Keras's layer names and
weight order: a Keras `.weights.h5` or `.keras` file loads and predicts the same.
"""

from __future__ import annotations

import math

from kerasish import initializers, layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.efficientnet import (
    CONV_KERNEL_INITIALIZER,
    DENSE_KERNEL_INITIALIZER,
    squeeze_excite,
)
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401

BASE_WEIGHTS_PATH = (
    "https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/"
)

WEIGHTS_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "-s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "-m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "-l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}

_KEYS = ("kernel_size", "num_repeat", "input_filters", "output_filters", "expand_ratio",
         "se_ratio", "strides", "conv_type")
_B = [(3, 1, 32, 16, 1, 0, 1, 1), (3, 2, 16, 32, 4, 0, 2, 1), (3, 2, 32, 48, 4, 0, 2, 1),
      (3, 3, 48, 96, 4, 0.25, 2, 0), (3, 5, 96, 112, 6, 0.25, 1, 0),
      (3, 8, 112, 192, 6, 0.25, 2, 0)]
_ROWS = {
    "efficientnetv2-s": [(3, 2, 24, 24, 1, 0, 1, 1), (3, 4, 24, 48, 4, 0, 2, 1),
                         (3, 4, 48, 64, 4, 0, 2, 1), (3, 6, 64, 128, 4, 0.25, 2, 0),
                         (3, 9, 128, 160, 6, 0.25, 1, 0), (3, 15, 160, 256, 6, 0.25, 2, 0)],
    "efficientnetv2-m": [(3, 3, 24, 24, 1, 0, 1, 1), (3, 5, 24, 48, 4, 0, 2, 1),
                         (3, 5, 48, 80, 4, 0, 2, 1), (3, 7, 80, 160, 4, 0.25, 2, 0),
                         (3, 14, 160, 176, 6, 0.25, 1, 0), (3, 18, 176, 304, 6, 0.25, 2, 0),
                         (3, 5, 304, 512, 6, 0.25, 1, 0)],
    "efficientnetv2-l": [(3, 4, 32, 32, 1, 0, 1, 1), (3, 7, 32, 64, 4, 0, 2, 1),
                         (3, 7, 64, 96, 4, 0, 2, 1), (3, 10, 96, 192, 4, 0.25, 2, 0),
                         (3, 19, 192, 224, 6, 0.25, 1, 0), (3, 25, 224, 384, 6, 0.25, 2, 0),
                         (3, 7, 384, 640, 6, 0.25, 1, 0)],
    **{f"efficientnetv2-b{i}": _B for i in range(4)},
}
DEFAULT_BLOCKS_ARGS = {
    name: [dict(zip(_KEYS, row)) for row in rows] for name, rows in _ROWS.items()
}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    """`filters` scaled by `width_coefficient`, rounded to a multiple of `depth_divisor`.

    Args:
        filters: the unscaled number of filters.
        width_coefficient: the width multiplier.
        min_depth: the least result (`None`: `depth_divisor`).
        depth_divisor: the multiple to round to.

    Returns:
        The number of filters.

    >>> round_filters(32, 1.1, 8, 8)
    32
    """
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(max(minimum_depth,
                   int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    """`repeats` scaled by `depth_coefficient`, rounded up.

    Args:
        repeats: the unscaled number of blocks.
        depth_coefficient: the depth multiplier.

    Returns:
        The number of blocks.

    >>> round_repeats(3, 1.1)
    4
    """
    return int(math.ceil(depth_coefficient * repeats))


def _block(fused, input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1,
           se_ratio=0.0, bn_momentum=0.9, activation="swish", survival_probability=0.8,
           name=None):
    """An MBConv (`fused=False`) or fused-MBConv block, as a function of its input."""
    bn_axis = 3 if _family.channel_axis() == -1 else 1

    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(
                filters=filters, kernel_size=kernel_size if fused else 1,
                strides=strides if fused else 1, kernel_initializer=CONV_KERNEL_INITIALIZER,
                padding="same", use_bias=False, name=f"{name}expand_conv",
            )(x)
            x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                          name=f"{name}expand_bn")(x)
            x = layers.Activation(activation, name=f"{name}expand_activation")(x)
        if not fused:
            x = layers.DepthwiseConv2D(
                kernel_size=kernel_size, strides=strides,
                depthwise_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                use_bias=False, name=f"{name}dwconv2",
            )(x)
            x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                          name=f"{name}bn")(x)
            x = layers.Activation(activation, name=f"{name}activation")(x)
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation,
                               name)
        project_full = fused and expand_ratio == 1
        x = layers.Conv2D(
            filters=output_filters, kernel_size=kernel_size if project_full else 1,
            strides=strides if project_full else 1,
            kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same", use_bias=False,
            name=f"{name}project_conv",
        )(x)
        x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                      name=f"{name}project_bn")(x)
        if fused and expand_ratio == 1:
            x = layers.Activation(activation, name=f"{name}project_activation")(x)
        if strides == 1 and input_filters == output_filters:
            if survival_probability:
                # Keras passes the survival probability as the dropout rate; kept as is.
                x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1),
                                   name=f"{name}drop")(x)
            x = layers.add([x, inputs], name=f"{name}add")
        return x

    return apply


def EfficientNetV2(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    min_depth=8,
    bn_momentum=0.9,
    activation="swish",
    blocks_args="default",
    name="efficientnetv2",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    include_preprocessing=True,
    weights_name=None,
):
    """The EfficientNetV2 family's builder.

    Args:
        width_coefficient: the filters' multiplier.
        depth_coefficient: the blocks' repeats' multiplier.
        default_size: the default image size.
        dropout_rate: the dropout rate before the classifier.
        drop_connect_rate: the largest residual dropout rate.
        depth_divisor: filters are rounded to multiples of it.
        min_depth: the least number of filters.
        bn_momentum: the batch normalizations' momentum.
        activation: the blocks' activation.
        blocks_args: the blocks' arguments (`"default"`: the variant's, by `name`).
        name: the model's name (`"efficientnetv2-b0"`, ...).
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` or the path of a weights file.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes.
        classifier_activation: the top layer's activation.
        include_preprocessing: whether the model rescales its input itself.
        weights_name: the ImageNet file's key (`"b0"`, `"-s"`, ...).

    Returns:
        A functional `Model`.

    >>> EfficientNetV2  # doctest: +ELLIPSIS
    <function EfficientNetV2 at ...>
    """
    if blocks_args == "default":
        if name not in DEFAULT_BLOCKS_ARGS:
            raise ValueError(
                f"EfficientNetV2 takes its default blocks by model name, one of "
                f"{sorted(DEFAULT_BLOCKS_ARGS)}; received name={name!r}: pass blocks_args"
            )
        blocks_args = DEFAULT_BLOCKS_ARGS[name]
    _family.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=None,
        require_flatten=include_top, weights=weights,
    )
    img_input = _family.image_input(input_tensor, input_shape)
    bn_axis = 3 if _family.channel_axis() == -1 else 1
    x = img_input
    if include_preprocessing:
        num_channels = input_shape[bn_axis - 1]
        variant = weights_name or name.split("-")[-1]
        if variant.startswith("b") and num_channels == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(
                mean=[0.485, 0.456, 0.406], variance=[0.229**2, 0.224**2, 0.225**2],
                axis=bn_axis,
            )(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)

    def filters_of(n):
        return round_filters(filters=n, width_coefficient=width_coefficient,
                             min_depth=min_depth, depth_divisor=depth_divisor)

    x = layers.Conv2D(filters=filters_of(blocks_args[0]["input_filters"]), kernel_size=3,
                      strides=2, kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      use_bias=False, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, original in enumerate(blocks_args):
        args = dict(original)
        if args["num_repeat"] <= 0:
            raise ValueError(
                "The number of repeats in `EfficientNetV2` must be > 0. "
                f"Received: num_repeat={args['num_repeat']}"
            )
        args["input_filters"] = filters_of(args["input_filters"])
        args["output_filters"] = filters_of(args["output_filters"])
        fused = bool(args.pop("conv_type"))
        repeats = round_repeats(repeats=args.pop("num_repeat"),
                                depth_coefficient=depth_coefficient)
        for j in range(repeats):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = _block(fused, activation=activation, bn_momentum=bn_momentum,
                       survival_probability=drop_connect_rate * b / blocks,
                       name=f"block{i + 1}{chr(j + 97)}_", **args)(x)
            b += 1

    x = layers.Conv2D(filters=filters_of(1280), kernel_size=1, strides=1,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      use_bias=False, name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="top_bn")(x)
    x = layers.Activation(activation=activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER,
                         bias_initializer=initializers.Constant(0.0), name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = _family.make_model(input_tensor, img_input, x, name)
    if weights == "imagenet":
        file_name = name + (".h5" if include_top else "_notop.h5")
        _family.load_family_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name,
                            file_hash=WEIGHTS_HASHES[weights_name][0 if include_top else 1])
    else:
        _family.load_family_weights(model, weights, None, None)
    return model


def _variant(public, key, width, depth, size):
    """The public constructor of one variant."""
    default_name = f"efficientnetv2-{key.lstrip('-')}"

    def constructor(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                    pooling=None, classes=1000, classifier_activation="softmax",
                    include_preprocessing=True, name=default_name):
        return EfficientNetV2(
            width_coefficient=width, depth_coefficient=depth, default_size=size,
            blocks_args=DEFAULT_BLOCKS_ARGS[f"efficientnetv2-{key.lstrip('-')}"], name=name,
            include_top=include_top, weights=weights, input_tensor=input_tensor,
            input_shape=input_shape, pooling=pooling, classes=classes,
            classifier_activation=classifier_activation,
            include_preprocessing=include_preprocessing, weights_name=key,
        )

    constructor.__name__ = constructor.__qualname__ = public
    constructor.__doc__ = f"""Builds {public}, as `keras.applications.{public}` does.

    Its default input is {size}x{size}; the model preprocesses [0, 255] inputs itself
    unless `include_preprocessing=False`.

    Args:
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis (at least 32x32).
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        include_preprocessing: whether the model rescales its input itself.
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = {public}(weights=None, include_top=False,
    ...                  input_shape=(32, 32, 3))  # doctest: +SKIP
    """
    return constructor


EfficientNetV2B0 = _variant("EfficientNetV2B0", "b0", 1.0, 1.0, 224)
EfficientNetV2B1 = _variant("EfficientNetV2B1", "b1", 1.0, 1.1, 240)
EfficientNetV2B2 = _variant("EfficientNetV2B2", "b2", 1.1, 1.2, 260)
EfficientNetV2B3 = _variant("EfficientNetV2B3", "b3", 1.2, 1.4, 300)
EfficientNetV2S = _variant("EfficientNetV2S", "-s", 1.0, 1.0, 384)
EfficientNetV2M = _variant("EfficientNetV2M", "-m", 1.0, 1.0, 480)
EfficientNetV2L = _variant("EfficientNetV2L", "-l", 1.0, 1.0, 480)


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: EfficientNetV2 preprocesses its input itself.

    Args:
        x: images in [0, 255].
        data_format: unused, kept for Keras's signature.

    Returns:
        `x`.

    >>> preprocess_input([1.0, 2.0])
    [1.0, 2.0]
    """
    return x
