"""VGG19 (Simonyan & Zisserman, ICLR 2015), as `keras.applications.vgg19`: VGG16's network
with four convolutions in each of the last three blocks.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.vgg19.VGG19(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3))
    >>> len(model.layers)
    22
"""

from __future__ import annotations

from kerasish.applications.vgg16 import build_vgg, decode_predictions, preprocess_input

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5")
_FILES = {True: ("vgg19_weights_tf_dim_ordering_tf_kernels.h5", WEIGHTS_PATH,
                 "cbe5617147190e668d6c5d5026f83318"),
          False: ("vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", WEIGHTS_PATH_NO_TOP,
                  "253f8cb515780f3b799900260a226db6")}

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """The VGG19 model (Keras's `keras.applications.VGG19`), default input 224x224.

    Call `ks.applications.vgg19.preprocess_input` on the images first (`caffe` mode).
    `weights="imagenet"` loads Keras's file from Keras's cache folder (nothing is
    downloaded; the error names the file, its URL and the folder).

    Args:
        include_top: include the three fully-connected layers at the top.
        weights: None (random initialization), `"imagenet"`, or the path of a weights file.
        input_tensor: a symbolic tensor (from `ks.Input`) to use as the image input.
        input_shape: the input shape, only without the top (else `(224, 224, 3)`); at
            least 32x32.
        pooling: without the top, None, `"avg"` or `"max"`.
        classes: the number of classes, with the top and no pretrained weights.
        classifier_activation: the top layer's activation (None for the logits).
        name: the model's name.

    Returns:
        A functional `Model`.

    Raises:
        ValueError: for an invalid `weights`, `classes` or `input_shape`.
        FileNotFoundError: for `"imagenet"` when Keras's file is not in its cache folder.

    Example:
        >>> import kerasish as ks
        >>> model = ks.applications.VGG19(weights=None, include_top=False,
        ...                               input_shape=(32, 32, 3), pooling="max")
        >>> model.output.shape
        (None, 512)
    """
    return build_vgg((2, 2, 4, 4, 4), _FILES, include_top, weights, input_tensor,
                     input_shape, pooling, classes, classifier_activation, name)
