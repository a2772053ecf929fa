"""DenseNet121, DenseNet169 and DenseNet201 (Huang et al., CVPR 2017), as
`keras.applications.densenet`: Keras's layer names and weight order, `torch`
preprocessing.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.densenet.DenseNet121(weights=None, include_top=False,
    ...                                              input_shape=(32, 32, 3))
    >>> model.output.shape
    (None, 1, 1, 1024)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.models import Functional

BASE_WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                     "densenet/")
_HASHES = {
    121: ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    169: ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    201: ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_BLOCKS = {121: (6, 12, 24, 16), 169: (6, 12, 32, 32), 201: (6, 12, 48, 32)}


def _bn_axis() -> int:
    return 3 if settings.image_data_format() == "channels_last" else 1


def dense_block(x, blocks, name):
    """`blocks` building blocks, each adding 32 feature maps to `x`.

    Args:
        x: the input tensor.
        blocks: the number of building blocks.
        name: the block's label.

    Returns:
        The block's output.

    Example:
        >>> import kerasish as ks
        >>> dense_block(ks.Input((8, 8, 16)), 2, name="d").shape
        (None, 8, 8, 80)
    """
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    """Batch norm, ReLU, a 1x1 convolution to `reduction` times the channels, and a 2x2
    average pooling.

    Args:
        x: the input tensor.
        reduction: the compression rate of the channels.
        name: the block's label.

    Returns:
        The block's output.

    Example:
        >>> import kerasish as ks
        >>> transition_block(ks.Input((8, 8, 16)), 0.5, name="t").shape
        (None, 4, 4, 8)
    """
    bn_axis = _bn_axis()
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[bn_axis] * reduction), 1, use_bias=False,
                      name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def conv_block(x, growth_rate, name):
    """A building block of a dense block: batch norm, ReLU, 1x1 convolution, batch norm,
    ReLU, 3x3 convolution to `growth_rate` maps, concatenated to `x`.

    Args:
        x: the input tensor.
        growth_rate: the feature maps the block adds.
        name: the block's label.

    Returns:
        The block's output.

    Example:
        >>> import kerasish as ks
        >>> conv_block(ks.Input((8, 8, 16)), 32, name="c").shape
        (None, 8, 8, 48)
    """
    bn_axis = _bn_axis()
    x1 = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_0_bn")(x)
    x1 = layers.Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_1_bn")(x1)
    x1 = layers.Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False,
                       name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=bn_axis, name=f"{name}_concat")([x, x1])


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None,
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
             name="densenet"):
    """A DenseNet of four dense blocks of `blocks` building blocks, as Keras's
    `keras.src.applications.densenet.DenseNet`.

    Args:
        blocks: the building blocks of each of the four dense blocks; Keras's ImageNet
            files exist for (6, 12, 24, 16), (6, 12, 32, 32) and (6, 12, 48, 32).
        include_top: include the classifier.
        weights: None, `"imagenet"` or the path of a weights file.
        input_tensor: a symbolic tensor to build on, or None.
        input_shape: the input shape (without the batch).
        pooling: None, `"avg"` or `"max"`, without the top.
        classes: the classifier's classes.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        A functional model.

    Raises:
        ValueError: for invalid arguments, or ImageNet weights for other `blocks`.

    Example:
        >>> model = DenseNet([1, 1, 1, 1], include_top=False, weights=None,
        ...                  input_shape=(32, 32, 3), pooling="max")
        >>> model.output.shape
        (None, 68)
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    depth = next((d for d, b in _BLOCKS.items() if tuple(blocks) == b), None)
    if weights == "imagenet" and depth is None:
        raise ValueError(
            f"Keras has ImageNet weights only for DenseNet121, 169 and 201; received "
            f"blocks={blocks}")
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    bn_axis = _bn_axis()
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, start=2):
        x = dense_block(x, count, name=f"conv{stage}")
        if stage < 5:
            x = transition_block(x, 0.5, name=f"pool{stage}")
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    fname = origin = file_hash = None
    if weights == "imagenet":
        suffix = "" if include_top else "_notop"
        fname = f"densenet{depth}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        origin = BASE_WEIGHTS_PATH + fname
        file_hash = _HASHES[depth][0 if include_top else 1]
    return imagenet_utils.load_model_weights(model, weights, fname, origin, file_hash)


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet121"):
    return DenseNet(_BLOCKS[121], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet169"):
    return DenseNet(_BLOCKS[169], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet201"):
    return DenseNet(_BLOCKS[201], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


for _model, _features in ((DenseNet121, 1024), (DenseNet169, 1664), (DenseNet201, 1920)):
    _model.__doc__ = imagenet_utils.APPLICATION_DOC.format(
        title=_model.__name__, module="densenet", default_size=224, min_size=32,
        preprocessing="scaled to [0, 1], then each channel normalized by ImageNet's mean "
                      "and standard deviation", features=_features)


def preprocess_input(x, data_format=None):
    """Preprocess images for DenseNet: scaled to [0, 1], then each channel normalized by
    ImageNet's mean and standard deviation (`imagenet_utils.preprocess_input` with
    `mode="torch"`).

    Args:
        x: images, 3D or 4D, 3 channels, values in [0, 255] (a float array is written over).
        data_format: None (the global setting), `"channels_last"` or `"channels_first"`.

    Returns:
        The preprocessed images.

    Example:
        >>> import numpy as np
        >>> preprocess_input(np.full((1, 1, 3), 255.0)).round(3)
        array([[[2.249, 2.429, 2.64 ]]])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")
