"""NASNet-A Mobile and Large: cells found by architecture search, as Keras builds them.

Reference: Zoph et al., "Learning Transferable Architectures for Scalable Image
Recognition" (CVPR 2018). Keras's layer names and weight order, so a Keras
`.weights.h5` or `.keras` file loads here and predicts the same.
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import _family, imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
NASNET_MOBILE_WEIGHT_PATH = f"{BASE_WEIGHTS_PATH}NASNet-mobile.h5"
NASNET_MOBILE_WEIGHT_PATH_NO_TOP = f"{BASE_WEIGHTS_PATH}NASNet-mobile-no-top.h5"
NASNET_LARGE_WEIGHT_PATH = f"{BASE_WEIGHTS_PATH}NASNet-large.h5"
NASNET_LARGE_WEIGHT_PATH_NO_TOP = f"{BASE_WEIGHTS_PATH}NASNet-large-no-top.h5"
_FILES = {  # (default_size, include_top) -> (file name, URL, md5)
    (224, True): ("nasnet_mobile.h5", NASNET_MOBILE_WEIGHT_PATH,
                  "020fb642bf7360b370c678b08e0adf61"),
    (224, False): ("nasnet_mobile_no_top.h5", NASNET_MOBILE_WEIGHT_PATH_NO_TOP,
                   "1ed92395b5b598bdda52abe5c0dbfd63"),
    (331, True): ("nasnet_large.h5", NASNET_LARGE_WEIGHT_PATH,
                  "11577c9a518f0070763c2b964a382f17"),
    (331, False): ("nasnet_large_no_top.h5", NASNET_LARGE_WEIGHT_PATH_NO_TOP,
                   "d81d89dc07e6e56530c4e77faddd61b5"),
}


def _bn(name):
    return layers.BatchNormalization(axis=_family.channel_axis(), momentum=0.9997, epsilon=1e-3,
                                      name=name)


def NASNet(
    input_shape=None,
    penultimate_filters=4032,
    num_blocks=6,
    stem_block_filters=96,
    skip_reduction=True,
    filter_multiplier=2,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    default_size=None,
    classifier_activation="softmax",
    name="NASNet",
):
    """The NASNet-A builder.

    Args:
        input_shape: the image shape without the batch axis.
        penultimate_filters: the filters of the last cells (a multiple of
            `24 * filter_multiplier ** 2`).
        num_blocks: the normal cells between reductions.
        stem_block_filters: the stem convolution's filters.
        skip_reduction: whether the cells after a reduction skip its output.
        filter_multiplier: the filters' growth at each reduction.
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` or the path of a weights file.
        input_tensor: an optional Keras tensor to build on.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes.
        default_size: the default image size (331).
        classifier_activation: the top layer's activation.
        name: the model's name.

    Returns:
        A functional `Model`.

    Raises:
        ValueError: under `channels_first` (as in Keras), for a `penultimate_filters` that
            is not a multiple of `24 * filter_multiplier ** 2`, or ImageNet weights with an
            input shape holding None.

    >>> NASNet  # doctest: +ELLIPSIS
    <function NASNet at ...>
    """
    if settings.image_data_format() == "channels_first":
        raise ValueError(
            "NASNet does not support the `channels_first` image data format. Switch to "
            "`channels_last` with `ks.config.set_image_data_format('channels_last')`"
        )
    _family.check_weights_argument(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(
            "When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
            f"input_shape argument must be static (no None entries). Got: "
            f"`input_shape={input_shape}`."
        )
    if default_size is None:
        default_size = 331
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=None,
        require_flatten=include_top, weights=weights,
    )
    img_input = _family.image_input(input_tensor, input_shape)
    if penultimate_filters % (24 * (filter_multiplier**2)) != 0:
        raise ValueError(
            "For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
            f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}"
        )
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                      use_bias=False, name="stem_conv1", kernel_initializer="he_normal")(
        img_input)
    x = _bn("stem_bn1")(x)
    p = None
    x, p = _reduction_a_cell(x, p, filters // (filter_multiplier**2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        width = filters * filter_multiplier**stage
        if stage:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block_id = f"{i}" if stage == 0 else f"{stage * num_blocks + i + 1}"
            x, p = _normal_a_cell(x, p, width, block_id=block_id)
    x = layers.Activation("relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _family.pool_features(x, pooling)
    model = _family.make_model(input_tensor, img_input, x, name)
    if weights == "imagenet":
        if default_size not in (224, 331):
            raise ValueError(
                "ImageNet weights can only be loaded with NASNetLarge or NASNetMobile"
            )
        file_name, url, file_hash = _FILES[(default_size, bool(include_top))]
        _family.load_family_weights(model, weights, file_name, url, file_hash=file_hash)
    else:
        _family.load_family_weights(model, weights, None, None)
    return model


def NASNetMobile(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_mobile",
):
    """Builds NASNetMobile (224x224 by default), as `keras.applications.NASNetMobile` does.

    Args:
        input_shape: the image shape without the batch axis (at least 32x32).
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = NASNetMobile(weights=None, include_top=False,
    ...                      input_shape=(32, 32, 3))  # doctest: +SKIP
    """
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(
        input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32,
        skip_reduction=False, filter_multiplier=2, include_top=include_top, weights=weights,
        input_tensor=input_tensor, pooling=pooling, classes=classes, default_size=224,
        classifier_activation=classifier_activation, name=name,
    )


def NASNetLarge(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_large",
):
    """Builds NASNetLarge (331x331 by default), as `keras.applications.NASNetLarge` does.

    Args:
        input_shape: the image shape without the batch axis (at least 32x32).
        include_top: whether to end with the `Dense` classifier.
        weights: `None`, `"imagenet"` (Keras's file from its cache folder) or a path.
        input_tensor: an optional Keras tensor to build on.
        pooling: without the top: `None`, `"avg"` or `"max"`.
        classes: the number of classes (1000 for ImageNet weights).
        classifier_activation: the top layer's activation (`None` for logits).
        name: the model's name.

    Returns:
        A functional `Model`.

    >>> model = NASNetLarge(weights=None, include_top=False,
    ...                     input_shape=(32, 32, 3))  # doctest: +SKIP
    """
    return NASNet(
        input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
        skip_reduction=True, filter_multiplier=2, include_top=include_top, weights=weights,
        input_tensor=input_tensor, pooling=pooling, classes=classes, default_size=331,
        classifier_activation=classifier_activation, name=name,
    )


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """ReLU, separable convolution, batch norm, twice (the first may stride)."""
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               name=f"separable_conv_1_{block_id}", padding=conv_pad,
                               use_bias=False)(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                               padding="same", use_bias=False)(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p, ip, filters, block_id=None):
    """Brings the previous cell's output `p` to the shape of `ip` (halving or projecting)."""
    axis = _family.channel_axis()
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_1_{block_id}", kernel_initializer="he_normal")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_2_{block_id}", kernel_initializer="he_normal")(p2)
        p = layers.concatenate([p1, p2], axis=axis)
        return _bn(f"adjust_bn_{block_id}")(p)
    if p.shape[axis] != filters:
        p = layers.Activation("relu")(p)
        p = layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same",
                          name=f"adjust_conv_projection_{block_id}", use_bias=False,
                          kernel_initializer="he_normal")(p)
        return _bn(f"adjust_bn_{block_id}")(p)
    return p


def _normal_a_cell(ip, p, filters, block_id=None):
    """A normal cell: five branches over the two previous outputs, concatenated."""
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same",
                      name=f"normal_conv_1_{block_id}", use_bias=False,
                      kernel_initializer="he_normal")(h)
    h = _bn(f"normal_bn_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, kernel_size=(5, 5),
                                 block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"normal_left3_{block_id}")(h)
    x3 = layers.add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_left4_{block_id}")(p)
    x4_2 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_right4_{block_id}")(p)
    x4 = layers.add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.add([x5, h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=_family.channel_axis(),
                           name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    """A reduction cell: halves the spatial size through five strided branches."""
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same",
                      name=f"reduction_conv_1_{block_id}", use_bias=False,
                      kernel_initializer="he_normal")(h)
    h = _bn(f"reduction_bn_1_{block_id}")(h)
    h3 = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(h, 3),
                              name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = layers.AveragePooling2D((3, 3), strides=(2, 2), padding="valid",
                                   name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_right3_{block_id}")
    x3 = layers.add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=_family.channel_axis(),
                           name=f"reduction_concat_{block_id}")
    return x, ip


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] ("tf" mode), as NASNet was trained.

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
