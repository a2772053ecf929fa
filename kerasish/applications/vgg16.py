"""VGG16 (Simonyan & Zisserman, ICLR 2015), as `keras.applications.vgg16`: Keras's layer
names and weight order, so Keras's weight files load, and its `caffe` preprocessing.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.vgg16.VGG16(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3))
    >>> model.output.shape
    (None, 1, 1, 512)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.models import Functional

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5")
_FILES = {True: ("vgg16_weights_tf_dim_ordering_tf_kernels.h5", WEIGHTS_PATH,
                 "64373286793e3c8b2b4e3219cbf3544b"),
          False: ("vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5", WEIGHTS_PATH_NO_TOP,
                  "6d6bbae143d832006294945121d1f1fc")}


def build_vgg(convs_per_block: tuple, files: dict, include_top, weights, input_tensor,
              input_shape, pooling, classes, classifier_activation, name):
    """A VGG network: five blocks of 3x3 convolutions (64, 128, 256, 512, 512 filters),
    each closed by a 2x2 max pooling, then two dense layers of 4096 and the classifier.

    Args:
        convs_per_block: the number of convolutions of each of the five blocks.
        files: {include_top: (file name, URL, hash)} of Keras's ImageNet weights.
        include_top: include the three dense layers at the top.
        weights: None, `"imagenet"` or the path of a weights file.
        input_tensor: a symbolic tensor to build on, or None.
        input_shape: the input shape (without the batch).
        pooling: None, `"avg"` or `"max"`, without the top.
        classes: the classifier's classes.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        A functional model.

    Example:
        >>> model = build_vgg((1, 1, 1, 1, 1), _FILES, False, None, None, (32, 32, 3),
        ...                   "max", 1000, "softmax", "tiny_vgg")
        >>> model.output.shape
        (None, 512)
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = img_input
    for block, (filters, count) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block),
                                             start=1):
        for conv in range(1, count + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{conv}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool_features(x, pooling)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    fname, origin, file_hash = files[bool(include_top)]
    return imagenet_utils.load_model_weights(model, weights, fname, origin, file_hash)


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg16"):
    """The VGG16 model (Keras's `keras.applications.VGG16`), default input 224x224.

    Call `ks.applications.vgg16.preprocess_input` on the images first (RGB to BGR, each
    channel zero-centred on ImageNet's mean). `weights="imagenet"` loads Keras's file
    from Keras's cache folder (`$KERAS_HOME/models` or `~/.keras/models`); kerasish
    downloads nothing, and the error names the file, its URL and the folder.

    Args:
        include_top: include the three fully-connected layers at the top.
        weights: None (random initialization), `"imagenet"`, or the path of a weights file.
        input_tensor: a symbolic tensor (from `ks.Input`) to use as the image input.
        input_shape: the input shape, only without the top (else `(224, 224, 3)`); at
            least 32x32, 3 channels with ImageNet weights.
        pooling: without the top, None (the 4D output of the last block), `"avg"` or
            `"max"` (global pooling, a 2D output).
        classes: the number of classes, with the top and no pretrained weights.
        classifier_activation: the top layer's activation (None for the logits); only
            None or `"softmax"` with pretrained weights.
        name: the model's name.

    Returns:
        A functional `Model`.

    Raises:
        ValueError: for an invalid `weights`, `classes` or `input_shape`.
        FileNotFoundError: for `"imagenet"` when Keras's file is not in its cache folder.

    Example:
        >>> import kerasish as ks
        >>> model = ks.applications.VGG16(weights=None, include_top=False,
        ...                               input_shape=(32, 32, 3), pooling="avg")
        >>> model.output.shape
        (None, 512)
    """
    return build_vgg((2, 2, 3, 3, 3), _FILES, include_top, weights, input_tensor,
                     input_shape, pooling, classes, classifier_activation, name)


def preprocess_input(x, data_format=None):
    """Preprocess images for VGG16: RGB to BGR, each channel zero-centred on ImageNet's
    mean pixel, no scaling (`imagenet_utils.preprocess_input` with `mode="caffe"`).

    Args:
        x: images, 3D or 4D, 3 channels, values in [0, 255] (a float array is written over).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.

    Example:
        >>> import numpy as np
        >>> preprocess_input(np.full((1, 1, 3), 100.0))
        array([[[ -3.939, -16.779, -23.68 ]]])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")

