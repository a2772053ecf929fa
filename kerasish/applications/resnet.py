"""ResNet50, ResNet101 and ResNet152 (He et al., CVPR 2015), as `keras.applications.resnet`,
and the residual stacks ResNetV2 shares: Keras's layer names and weight order.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.resnet.ResNet50(weights=None, include_top=False,
    ...                                         input_shape=(32, 32, 3))
    >>> model.output.shape
    (None, 1, 1, 2048)
"""

from __future__ import annotations

from kerasish import layers
from kerasish.applications import imagenet_utils
from kerasish.applications.imagenet_utils import decode_predictions  # noqa: F401
from kerasish.core import settings
from kerasish.models import Functional

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}

def _bn_axis() -> int:
    return 3 if settings.image_data_format() == "channels_last" else 1


def ResNet(stack_fn, preact, use_bias, include_top=True, weights="imagenet",
           input_tensor=None, input_shape=None, pooling=None, classes=1000,
           classifier_activation="softmax", name="resnet", weights_name=None):
    """A ResNet (`preact=False`) or ResNetV2 (`preact=True`) around the residual stacks
    `stack_fn` builds, as Keras's `keras.src.applications.resnet.ResNet`.

    Args:
        stack_fn: a function from the stem's output to the last stack's.
        preact: pre-activation (ResNetV2): no batch norm after the stem, one after the
            stacks (`post_bn`).
        use_bias: whether the stem's convolution has a bias.
        include_top: include the classifier.
        weights: None, `"imagenet"` or the path of a weights file.
        input_tensor: a symbolic tensor to build on, or None.
        input_shape: the input shape (without the batch).
        pooling: None, `"avg"` or `"max"`, without the top.
        classes: the classifier's classes.
        classifier_activation: the classifier's activation.
        name: the model's name.
        weights_name: the key of Keras's ImageNet files (`"resnet50"`, ...).

    Returns:
        A functional model.

    Example:
        >>> def stack_fn(x):
        ...     return stack_residual_blocks_v1(x, 8, 1, name="conv2")
        >>> model = ResNet(stack_fn, False, True, include_top=False, weights=None,
        ...                input_shape=(32, 32, 3), pooling="avg")
        >>> model.output.shape
        (None, 32)
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=settings.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    bn_axis = _bn_axis()
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = Functional(imagenet_utils.model_inputs(input_tensor, img_input), x, name=name)
    if weights == "imagenet" and weights_name not in WEIGHTS_HASHES:
        return model  # as Keras: no ImageNet file for this architecture
    fname = origin = file_hash = None
    if weights == "imagenet":
        suffix = "" if include_top else "_notop"
        fname = f"{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        origin = BASE_WEIGHTS_PATH + fname
        file_hash = WEIGHTS_HASHES[weights_name][0 if include_top else 1]
    return imagenet_utils.load_model_weights(model, weights, fname, origin, file_hash)


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A bottleneck residual block of ResNet (v1): 1x1, kxk, 1x1 convolutions with batch
    norms, added to the shortcut, then a ReLU.

    Args:
        x: the input tensor.
        filters: the filters of the bottleneck (the block outputs 4 times as many).
        kernel_size: the middle convolution's kernel size.
        stride: the stride of the first convolution (and of the shortcut's).
        conv_shortcut: a 1x1 convolution as shortcut, else the identity.
        name: the block's label, the prefix of its layer names.

    Returns:
        The block's output.

    Example:
        >>> import kerasish as ks
        >>> residual_block_v1(ks.Input((8, 8, 16)), 4, name="b").shape
        (None, 8, 8, 16)
    """
    bn_axis = _bn_axis()
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5,
                                             name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="same", name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """`blocks` residual blocks (v1): the first with a convolution shortcut and stride
    `stride1`, the others with the identity.

    Args:
        x: the input tensor.
        filters: the bottleneck's filters in each block.
        blocks: the number of blocks.
        stride1: the stride of the first block.
        name: the stack's label.

    Returns:
        The stack's output.

    Example:
        >>> import kerasish as ks
        >>> stack_residual_blocks_v1(ks.Input((8, 8, 3)), 4, 2, name="s").shape
        (None, 4, 4, 16)
    """
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A pre-activation bottleneck block of ResNetV2: batch norm and ReLU first, then 1x1,
    kxk (strided), 1x1 convolutions, added to the shortcut.

    Args:
        x: the input tensor.
        filters: the filters of the bottleneck (the block outputs 4 times as many).
        kernel_size: the middle convolution's kernel size.
        stride: the stride of the middle convolution (and of the shortcut).
        conv_shortcut: a 1x1 convolution as shortcut, else the identity (max-pooled when
            strided).
        name: the block's label.

    Returns:
        The block's output.

    Example:
        >>> import kerasish as ks
        >>> residual_block_v2(ks.Input((8, 8, 16)), 4, stride=2, name="b").shape
        (None, 4, 4, 16)
    """
    bn_axis = _bn_axis()
    preact = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5,
                                       name=f"{name}_preact_bn")(x)
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride,
                                 name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters, blocks, stride1=2, name=None):
    """`blocks` pre-activation blocks (v2): the first with a convolution shortcut, the
    last strided by `stride1`.

    Args:
        x: the input tensor.
        filters: the bottleneck's filters in each block.
        blocks: the number of blocks.
        stride1: the stride of the last block.
        name: the stack's label.

    Returns:
        The stack's output.

    Example:
        >>> import kerasish as ks
        >>> stack_residual_blocks_v2(ks.Input((8, 8, 3)), 4, 2, name="s").shape
        (None, 4, 4, 16)
    """
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v1_stacks(blocks: tuple):
    def stack_fn(x):
        x = stack_residual_blocks_v1(x, 64, blocks[0], stride1=1, name="conv2")
        x = stack_residual_blocks_v1(x, 128, blocks[1], name="conv3")
        x = stack_residual_blocks_v1(x, 256, blocks[2], name="conv4")
        return stack_residual_blocks_v1(x, 512, blocks[3], name="conv5")
    return stack_fn


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="resnet50"):
    return ResNet(_v1_stacks((3, 4, 6, 3)), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet50")


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet101"):
    return ResNet(_v1_stacks((3, 4, 23, 3)), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet101")


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet152"):
    return ResNet(_v1_stacks((3, 8, 36, 3)), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet152")


_CAFFE = "RGB to BGR, each channel zero-centred on ImageNet's mean, no scaling"
for _model in (ResNet50, ResNet101, ResNet152):
    _model.__doc__ = imagenet_utils.APPLICATION_DOC.format(
        title=_model.__name__, module="resnet", default_size=224, min_size=32,
        preprocessing=_CAFFE, features=2048)


def preprocess_input(x, data_format=None):
    """Preprocess images for ResNet: RGB to BGR, each channel zero-centred on ImageNet's
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

