"""ConvNeXt Tiny/Small/Base/Large/XLarge, as Keras builds them.

Reference: Liu et al., "A ConvNet for the 2020s" (CVPR 2022). The ImageNet mean and
variance are a `Normalization` at the model's start (unless
`include_preprocessing=False`), so `preprocess_input` passes its input through. Its two
helper layers, `LayerScale` and `StochasticDepth`, keep Keras's names, arguments and
config keys, so a Keras `.weights.h5` or `.keras` file of a ConvNeXt loads here.
"""

from __future__ import annotations

import numpy as np

from kerasish import initializers, layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import naming, settings
from kerasish.core import random as ks_random
from kerasish.core.ops import math_ops
from kerasish.core.serialization import register_keras_serializable
from kerasish.models import Sequential

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"

WEIGHTS_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}

MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768],
             "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768],
              "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024],
             "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536],
              "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048],
               "default_size": 224},
}


@register_keras_serializable(package="kerasish.applications")
class StochasticDepth(layers.Layer):
    """Drops a residual branch for whole samples in training (DropPath), scaling the kept.

    Args:
        drop_path_rate: the probability of dropping a sample's branch, in [0, 1].
        **kwargs: `Layer` arguments (`name`, ...).

    >>> import numpy as np
    >>> StochasticDepth(0.5)(np.ones((2, 3)), training=False).numpy().tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if training:
            keep_prob = 1 - self.drop_path_rate
            shape = (x.shape[0],) + (1,) * (len(x.shape) - 1)
            keep = math_ops.floor(keep_prob + ks_random.uniform(shape, 0, 1))
            return (x / keep_prob) * keep
        return x

    def get_config(self):
        config = super().get_config()
        config.update({"drop_path_rate": self.drop_path_rate})
        return config


@register_keras_serializable(package="kerasish.applications")
class LayerScale(layers.Layer):
    """Multiplies its input by a learned per-channel scale `gamma`, started at `init_values`.

    Args:
        init_values: the scale's initial value.
        projection_dim: the number of channels (the last axis).
        **kwargs: `Layer` arguments (`name`, ...).

    >>> import numpy as np
    >>> LayerScale(0.5, 2)(np.ones((1, 2))).numpy().tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, _):
        self.gamma = self.add_weight(
            shape=(self.projection_dim,),
            initializer=initializers.Constant(self.init_values),
            trainable=True,
        )

    def call(self, x):
        return x * self.gamma

    def get_config(self):
        config = super().get_config()
        config.update({"init_values": self.init_values, "projection_dim": self.projection_dim})
        return config


def ConvNeXtBlock(projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=None):
    """One ConvNeXt block: depthwise 7x7, LayerNorm, two pointwise `Dense`, scale, residual.

    Args:
        projection_dim: the block's channels.
        drop_path_rate: the stochastic depth rate of its branch.
        layer_scale_init_value: the `LayerScale` start value (`None`: no scale).
        name: the prefix of its layer names.

    Returns:
        A function of the block's input.

    >>> ConvNeXtBlock(8, name="demo")  # doctest: +ELLIPSIS
    <function ConvNeXtBlock.<locals>.apply at ...>
    """
    if name is None:
        name = f"prestem{naming.next_uid('prestem')}"

    def apply(inputs):
        x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same",
                          groups=projection_dim, name=f"{name}_depthwise_conv")(inputs)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=f"{name}_gelu")(x)
        x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim,
                           name=f"{name}_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
        else:
            layer = layers.Activation("linear", name=f"{name}_identity")
        return inputs + layer(x)

    return apply


def PreStem(name=None):
    """ImageNet's mean and variance (in [0, 255]) as a `Normalization`.

    Args:
        name: the prefix of its layer name.

    Returns:
        A function of the image input.

    >>> PreStem(name="demo")  # doctest: +ELLIPSIS
    <function PreStem.<locals>.apply at ...>
    """
    if name is None:
        name = f"prestem{naming.next_uid('prestem')}"

    def apply(x):
        return layers.Normalization(
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
            variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
            name=f"{name}_prestem_normalization",
        )(x)

    return apply


def Head(num_classes=1000, classifier_activation=None, name=None):
    """The classifier: global average pooling, LayerNorm, `Dense`.

    Args:
        num_classes: the number of classes.
        classifier_activation: the `Dense` layer's activation.
        name: the prefix of its layer names.

    Returns:
        A function of the features.

    >>> Head(10, name="demo")  # doctest: +ELLIPSIS
    <function Head.<locals>.apply at ...>
    """
    if name is None:
        name = str(naming.next_uid("head"))

    def apply(x):
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        return layers.Dense(num_classes, activation=classifier_activation,
                            name=f"{name}_head_dense")(x)

    return apply


def ConvNeXt(
    depths,
    projection_dims,
    drop_path_rate=0.0,
    layer_scale_init_value=1e-6,
    default_size=224,
    name="convnext",
    include_preprocessing=True,
    include_top=True,
    weights=None,
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """The ConvNeXt family's builder.

    Args:
        depths: the number of blocks of each of the four stages.
        projection_dims: the channels of each stage.
        drop_path_rate: the largest stochastic depth rate.
        layer_scale_init_value: the `LayerScale` start value.
        default_size: the default image size.
        name: the model's name (and its layers' prefix).
        include_preprocessing: start with ImageNet's normalization.
        include_top: whether to end with the classifier head.
        weights: `None`, `"imagenet"` or the path of a weights file.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes.
        classifier_activation: the head's activation.
        weights_name: the ImageNet file's key (`"convnext_tiny"`, ...).

    Returns:
        A functional `Model`.

    Raises:
        ValueError: under `channels_first`, which ConvNeXt does not support (as in Keras).

    >>> ConvNeXt  # doctest: +ELLIPSIS
    <function ConvNeXt at ...>
    """
    if settings.image_data_format() == "channels_first":
        raise ValueError(
            "ConvNeXt does not support the `channels_first` image data format. Switch to "
            "`channels_last` with `ks.config.set_image_data_format('channels_last')`"
        )
    _family.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=None,
        require_flatten=include_top, weights=weights,
    )
    img_input = _family.image_input(input_tensor, input_shape)
    x = img_input
    if include_preprocessing and input_shape[-1] == 3:
        x = PreStem(name=name)(x)
    stem = Sequential(
        [layers.Conv2D(projection_dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
         layers.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm")],
        name=f"{name}_stem",
    )
    downsample_layers = [stem]
    for i in range(3):
        downsample_layers.append(Sequential(
            [layers.LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
             layers.Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                           name=f"{name}_downsampling_conv_{i}")],
            name=f"{name}_downsampling_block_{i}",
        ))
    depth_drop_rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        x = downsample_layers[i](x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(projection_dim=projection_dims[i],
                              drop_path_rate=depth_drop_rates[cur + j],
                              layer_scale_init_value=layer_scale_init_value,
                              name=name + f"_stage_{i}_block_{j}")(x)
        cur += depths[i]
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Head(num_classes=classes, classifier_activation=classifier_activation, name=name)(x)
    else:
        if pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    model = _family.make_model(input_tensor, img_input, x, name)
    if weights == "imagenet":
        expected = MODEL_CONFIGS[weights_name.split("convnext_")[-1]]
        if depths != expected["depths"] or projection_dims != expected["projection_dims"]:
            raise ValueError(
                f"Architecture configuration does not match {weights_name} variant. When "
                "using pre-trained weights, the model architecture must match the pre-trained "
                f"configuration exactly. Expected depths: {expected['depths']}, got: {depths}. "
                f"Expected projection_dims: {expected['projection_dims']}, got: "
                f"{projection_dims}."
            )
        if weights_name not in name:
            raise ValueError(
                f'Model name "{name}" does not match weights variant "{weights_name}". When '
                "using imagenet weights, model name must contain the weights variant (e.g., "
                f'"{weights_name}").'
            )
        file_name = name + (".h5" if include_top else "_notop.h5")
        _family.load_family_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name,
                            file_hash=WEIGHTS_HASHES[weights_name][0 if include_top else 1])
    else:
        _family.load_family_weights(model, weights, None, None)
    return model


def _variant(public, size):
    """The public constructor of one variant."""
    key = f"convnext_{size}"

    def constructor(include_top=True, include_preprocessing=True, weights="imagenet",
                    input_tensor=None, input_shape=None, pooling=None, classes=1000,
                    classifier_activation="softmax", name=key):
        config = MODEL_CONFIGS[size]
        return ConvNeXt(
            weights_name=key, depths=config["depths"],
            projection_dims=config["projection_dims"], drop_path_rate=0.0,
            layer_scale_init_value=1e-6, default_size=config["default_size"], name=name,
            include_top=include_top, include_preprocessing=include_preprocessing,
            weights=weights, input_tensor=input_tensor, input_shape=input_shape,
            pooling=pooling, classes=classes, classifier_activation=classifier_activation,
        )

    constructor.__name__ = constructor.__qualname__ = public
    constructor.__doc__ = f"""Builds {public}, as `keras.applications.{public}` does.

    The model normalizes [0, 255] inputs itself unless `include_preprocessing=False`.

    Args:
        include_top: whether to end with the classifier head.
        include_preprocessing: whether the model normalizes its input itself.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        input_shape: the image shape without the batch axis (at least 32x32).
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = {public}(weights=None, input_shape=(32, 32, 3))  # doctest: +SKIP
    """
    return constructor


ConvNeXtTiny = _variant("ConvNeXtTiny", "tiny")
ConvNeXtSmall = _variant("ConvNeXtSmall", "small")
ConvNeXtBase = _variant("ConvNeXtBase", "base")
ConvNeXtLarge = _variant("ConvNeXtLarge", "large")
ConvNeXtXLarge = _variant("ConvNeXtXLarge", "xlarge")


def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: ConvNeXt normalizes its input itself.

    Args:
        x: images in [0, 255].
        data_format: unused, kept for Keras's signature.

    Returns:
        `x`.

    >>> preprocess_input([1.0, 2.0])
    [1.0, 2.0]
    """
    return x
