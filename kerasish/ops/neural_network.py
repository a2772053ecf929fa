"""`ks.ops` neural-network ops (Keras's `ops.nn` spellings): activations, cross-entropies,
`conv`, pooling, `batch_normalization`, `normalize`, ..."""

from __future__ import annotations

import numpy as np

from kerasish import activations, losses
from kerasish.core import backend, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    activation_ops,
    clip_ops,
    conv_ops,
    ctc_ops,
    einsum_ops,
    indexing_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
)
from kerasish.core.ops.math_ops import greater, minimum, multiply, negative, where
from kerasish.core.ops.shape_ops import expand_dims, moveaxis, reshape, squeeze
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.elementwise import expm1
from kerasish.ops.keras_dtypes import floating, on_floats

__all__ = [
    "adaptive_average_pool",
    "adaptive_max_pool",
    "celu",
    "ctc_decode",
    "ctc_loss",
    "depth_to_space",
    "dot_product_attention",
    "fold",
    "glu",
    "hard_shrink",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "layer_normalization",
    "moments",
    "multi_hot",
    "polar",
    "psnr",
    "soft_shrink",
    "space_to_depth",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "tanh_shrink",
    "threshold",
    "unfold",
    "average_pool",
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "conv",
    "conv_transpose",
    "depthwise_conv",
    "elu",
    "gelu",
    "hard_sigmoid",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "max_pool",
    "normalize",
    "one_hot",
    "rms_normalization",
    "selu",
    "separable_conv",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "swish",
]


sigmoid, log_sigmoid, softplus, softsign, silu, selu = map(on_floats, (
    activation_ops.sigmoid, activation_ops.log_sigmoid, activation_ops.softplus,
    activation_ops.softsign, activation_ops.silu, activation_ops.selu))
hard_sigmoid = on_floats(activations.hard_sigmoid)
swish = silu
# The activations Keras's `ops.nn` shares with `keras.activations`: the same functions
# (composed of core ops, so their gradients come for free), under Keras's dtypes.
(celu, glu, hard_shrink, hard_silu, hard_tanh, soft_shrink, tanh_shrink, threshold,
 sparse_plus, sparse_sigmoid, sparsemax, squareplus) = map(on_floats, (
    activations.celu, activations.glu, activations.hard_shrink, activations.hard_silu,
    activations.hard_tanh, activations.soft_shrink, activations.tanh_shrink,
    activations.threshold, activations.sparse_plus, activations.sparse_sigmoid,
    activations.sparsemax, activations.squareplus))
hard_swish = hard_silu
ctc_loss, ctc_decode = ctc_ops.ctc_loss, ctc_ops.ctc_decode


def softmax(x, axis=-1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis` (or over several axes together).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes (integers become float32).
        axis: an axis, or a tuple of axes normalized together.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.softmax([0.0, 0.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5, 0.5]>
    """
    x = floating(x)
    if isinstance(axis, (tuple, list)):
        return nn_ops.softmax_over(x, tuple(axis))
    return nn_ops.softmax(x, axis)


def log_softmax(x, axis=-1) -> Tensor:
    """x - logsumexp(x) along `axis` (or over several axes together): log of `softmax`.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes (integers become float32).
        axis: an axis, or a tuple of axes normalized together.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.log_softmax([0.0, 0.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.6931472, -0.6931472]>
    """
    x = floating(x)
    if isinstance(axis, (tuple, list)):
        return x - nn_ops.reduce_logsumexp(x, tuple(axis), keepdims=True)
    return nn_ops.log_softmax(x, axis)


def gelu(x, approximate: bool = True) -> Tensor:
    """Gaussian error linear unit, x * Phi(x): by default (as Keras's `ops.gelu`) the tanh
    approximation; `keras.activations.gelu` defaults to the exact form.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes (integers become float32).
        approximate: use the tanh approximation.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.gelu([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.      , 0.841192]>
    """
    return activation_ops.gelu(floating(x), approximate)


def moments(x, axes, keepdims: bool = False, synchronized: bool = False) -> tuple:
    """The mean and variance of `x` over `axes`.

    Args:
        x: a tensor.
        axes: the axes reduced.
        keepdims: keep the reduced axes with length 1.
        synchronized: Keras's all-replica statistics; kerasish's eager ops run on one
            process, so True raises.

    Returns:
        (mean, variance).

    Raises:
        NotImplementedError: `synchronized` is True.

    Example:
        >>> from kerasish import ops
        >>> [float(v) for v in ops.moments([1.0, 3.0], axes=[0])]
        [2.0, 1.0]
    """
    if synchronized:
        raise NotImplementedError(
            "moments: synchronized=True needs statistics all-reduced across replicas inside "
            "a distribution strategy; kerasish's ops run on one process (use "
            "synchronized=False)")
    axes = tuple(axes) if isinstance(axes, list) else axes
    return nn_ops.moments(floating(x), axes, keepdims=keepdims)


def one_hot(x, num_classes: int, axis: int = -1, dtype=None, sparse: bool = False) -> Tensor:
    """One-hot vectors of `num_classes` for integer `x` (out-of-range ids give zeros).

    Args:
        x: an integer tensor of class ids.
        num_classes: the number of classes.
        axis: where the class axis goes.
        dtype: the element type; None: float32.
        sparse: Keras's sparse result; kerasish has no sparse tensors, so True raises.

    Returns:
        The one-hot tensor.

    Raises:
        InvalidArgumentError: `x` is not an integer tensor.
        NotImplementedError: `sparse` is True.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.one_hot([1, 0], 3)).tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    if sparse:
        raise NotImplementedError(
            "one_hot: sparse=True is not supported: kerasish has no sparse tensors (its "
            "arrays are dense NumPy/CuPy arrays); use sparse=False")
    return indexing_ops.one_hot(x, num_classes, axis=axis, dtype=dtype or np.float32)


def multi_hot(inputs, num_classes=None, axis: int = -1, dtype=None, sparse: bool = False,
              **kwargs) -> Tensor:
    """Multi-hot vectors: for each example (each row of a 2-D `inputs`, or a 1-D `inputs`
    as one example) a 1 at every class id it holds.

    Args:
        inputs: integer class ids, (batch, ids) or (ids,).
        num_classes: the number of classes (Keras's old name `num_tokens` is accepted).
        axis: where the class axis goes.
        dtype: the element type; None: float32.
        sparse: as `one_hot`'s; True raises.
        **kwargs: only `num_tokens`.

    Returns:
        (batch, num_classes) (or (num_classes,)).

    Raises:
        InvalidArgumentError: no `num_classes`, or another keyword.
        NotImplementedError: `sparse` is True.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.multi_hot([[0, 2], [1, 1]], 3)).tolist()
        [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    if "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if kwargs or num_classes is None:
        raise InvalidArgumentError(
            f"multi_hot: needs num_classes and takes no other keyword, got "
            f"num_classes={num_classes!r} and {sorted(kwargs)}")
    x = math_ops.cast(convert_to_tensor(inputs), np.int64)
    hot = one_hot(x, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    return reduction_ops.reduce_max(hot, 1 if x.ndim > 1 else 0)




def elu(x, alpha: float = 1.0) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        alpha: the scale of the negative part.

    Returns:
        A floating tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.elu([-1.0, 1.0], alpha=2.0)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-1.2642411,  1.       ]>
    """
    x = floating(x)
    if alpha == 1.0:
        return activation_ops.elu(x)
    return where(greater(x, 0), x, multiply(alpha, expm1(minimum(x, 0))))


def leaky_relu(x, negative_slope: float = 0.2) -> Tensor:
    """x for x >= 0, negative_slope * x otherwise.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        negative_slope: the slope for negative x.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.leaky_relu([-1.0, 1.0], negative_slope=0.5)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.5,  1. ]>
    """
    return activation_ops.leaky_relu(x, alpha=negative_slope)


def normalize(x, axis: int = -1, order: int = 2, epsilon=None) -> Tensor:
    """`x` scaled to unit norm along `axis`: x / max(norm, epsilon) (for order 2,
    x * min(rsqrt(sum of squares), 1 / epsilon), as Keras computes it).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis the norm is taken over.
        order: the norm's order (an int >= 1).
        epsilon: the smallest norm divided by (None: `ks.backend.epsilon()`, 1e-7).

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: `order` is not an int >= 1.

    Example:
        >>> from kerasish import ops
        >>> ops.normalize([[3.0, 4.0]])
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0.6, 0.8]]>
    """
    if not isinstance(order, (int, np.integer)) or order < 1:
        raise InvalidArgumentError(f"normalize: order must be an int >= 1, got {order!r}")
    x = floating(x)
    if x.ndim == 0:
        x = expand_dims(x, 0)
    epsilon = settings.epsilon() if epsilon is None else epsilon
    if order == 2:
        squares = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        return x * minimum(math_ops.rsqrt(squares), 1.0 / epsilon)
    powers = math_ops.pow(math_ops.abs(x), float(order))
    norm = math_ops.pow(reduction_ops.reduce_sum(powers, axis, keepdims=True), 1.0 / order)
    return x / math_ops.maximum(norm, epsilon)




def binary_crossentropy(target, output, from_logits: bool = False) -> Tensor:
    """Elementwise binary cross-entropy (no mean): -t log p - (1 - t) log(1 - p), with p
    clipped to [1e-7, 1 - 1e-7], or from logits by the stable formula.

    Args:
        target: targets in [0, 1], of `output`'s shape.
        output: probabilities, or logits with `from_logits`.
        from_logits: whether `output` holds logits.

    Returns:
        A tensor of `output`'s shape.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> from kerasish import ops
        >>> ops.binary_crossentropy([1.0, 0.0], [0.9, 0.2])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.10536055, 0.22314353]>
    """
    output = floating(output)
    target = math_ops.cast(convert_to_tensor(target), output.dtype)
    if target.shape != output.shape:
        raise InvalidArgumentError(
            f"binary_crossentropy: target of shape {target.shape} and output of shape "
            f"{output.shape} must have the same shape")
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(target, output)
    p = clip_ops.clip_by_value(output, settings.epsilon(), 1.0 - settings.epsilon())
    return negative(target * math_ops.log(p) + (1.0 - target) * math_ops.log(1.0 - p))


def categorical_crossentropy(target, output, from_logits: bool = False, axis: int = -1):
    """Cross-entropy of probability targets over the class axis: one value per example.

    Args:
        target: one-hot or soft targets, of `output`'s shape.
        output: probabilities (renormalized, then clipped), or logits with `from_logits`.
        from_logits: whether `output` holds logits (fused, stable softmax cross-entropy).
        axis: the class axis.

    Returns:
        `output`'s shape without `axis`.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> from kerasish import ops
        >>> float(ops.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]])[0])
        0.6931471824645996
    """
    output, target = floating(output), convert_to_tensor(target)
    if target.shape != output.shape:
        raise InvalidArgumentError(
            f"categorical_crossentropy: target of shape {target.shape} and output of shape "
            f"{output.shape} must have the same shape")
    target, output = moveaxis(target, axis, -1), moveaxis(output, axis, -1)
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits: bool = False, axis: int = -1):
    """Cross-entropy of integer class ids against the scores along `axis`.

    Args:
        target: class ids, `output`'s shape without `axis`.
        output: probabilities, or logits with `from_logits`.
        from_logits: whether `output` holds logits.
        axis: the class axis of `output`.

    Returns:
        `target`'s shape.

    Raises:
        InvalidArgumentError: an id is out of range, or the shapes do not fit.

    Example:
        >>> from kerasish import ops
        >>> float(ops.sparse_categorical_crossentropy([1], [[0.5, 0.5]])[0])
        0.6931471824645996
    """
    output = moveaxis(floating(output), axis, -1)
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits)


def _layout(data_format, op_name: str) -> bool:
    """True for channels_first (Keras's default: channels_last)."""
    if data_format not in (None, "channels_last", "channels_first"):
        raise InvalidArgumentError(
            f"{op_name}: data_format must be 'channels_last' or 'channels_first', got "
            f"{data_format!r}")
    return data_format == "channels_first"


def _spatial(op_name: str, inputs, data_format, padding: str, run2d, *per_axis, run3d=None):
    """Run the 2-D op `run2d(x, padding, *per_axis)` on a channels-last batch of 1 or 2
    spatial axes (one of height 1 for 1-D), or `run3d` alike on 3 spatial axes where the
    op has one, moving channels first and back as asked.

    `per_axis` holds window-shaped arguments (a kernel, strides, sizes); for 1-D inputs
    each gets a leading 1 (a kernel: a leading axis of length 1)."""
    x = convert_to_tensor(inputs)
    first = _layout(data_format, op_name)
    if first:
        x = moveaxis(x, 1, -1)
    ranks = (3, 4, 5) if run3d is not None else (3, 4)
    if padding.lower() not in ("valid", "same") or x.ndim not in ranks:
        axes = ("1, 2 or 3 spatial axes (rank 3 to 5" if run3d
                else "1 or 2 spatial axes (rank 3 or 4")
        raise InvalidArgumentError(
            f"{op_name}: needs inputs with {axes}, got shape "
            f"{x.shape}) and padding 'valid' or 'same' (got {padding!r})")
    if x.ndim == 5:
        y = run3d(x, padding.upper(), *per_axis)
    elif x.ndim == 3:
        def widened(value):
            if isinstance(value, Tensor) or hasattr(value, "shape"):
                return expand_dims(value, 0)
            return (1, value if isinstance(value, (int, np.integer)) else value[0])

        y = squeeze(run2d(expand_dims(x, 1), padding.upper(), *[widened(v) for v in per_axis]), 1)
    else:
        y = run2d(x, padding.upper(), *per_axis)
    return moveaxis(y, -1, 1) if first else y


def conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
         dilation_rate=1) -> Tensor:
    """N-D convolution (cross-correlation) for 1 to 3 spatial axes; `kernel` is (spatial...,
    in_channels, out_channels), grouped when the input has a multiple of its in_channels.

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        kernel: (spatial..., in_channels, out_channels).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch, in `data_format`.

    Raises:
        InvalidArgumentError: another padding, or shapes that do not fit.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.conv(np.ones((2, 8, 3)), np.ones((3, 3, 4)), padding="same"))
        (2, 8, 4)
    """
    return _spatial("conv", inputs, data_format, padding,
                    lambda x, pad, w, s, d: conv_ops.conv2d(x, w, s, pad, d),
                    convert_to_tensor(kernel), strides, dilation_rate,
                    run3d=lambda x, pad, w, s, d: conv_ops.conv3d(x, w, s, pad, d))


def depthwise_conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
                   dilation_rate=1) -> Tensor:
    """Each input channel convolved with its own filters: `kernel` is (spatial..., channels,
    multiplier) and output channel c * multiplier + m comes from channel c.

    Args:
        inputs: (batch, spatial..., channels) (or channels first), 1 or 2 spatial axes.
        kernel: (spatial..., channels, multiplier).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch with channels * multiplier channels.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.depthwise_conv(np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 2))))
        (1, 3, 3, 4)
    """
    return _spatial("depthwise_conv", inputs, data_format, padding,
                    lambda x, pad, w, s, d: conv_ops.depthwise_conv2d(x, w, s, pad, d),
                    convert_to_tensor(kernel), strides, dilation_rate)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1,
                   padding: str = "valid", data_format=None, dilation_rate=1) -> Tensor:
    """A depthwise convolution followed by a 1x1 convolution mixing the channels.

    Args:
        inputs: (batch, spatial..., channels) (or channels first), 1 or 2 spatial axes.
        depthwise_kernel: (spatial..., channels, multiplier).
        pointwise_kernel: (1..., channels * multiplier, out_channels).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The convolved batch with out_channels channels.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.separable_conv(np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 1)),
        ...                              np.ones((1, 1, 2, 6))))
        (1, 3, 3, 6)
    """
    return _spatial("separable_conv", inputs, data_format, padding,
                    lambda x, pad, w, p, s, d: conv_ops.separable_conv2d(x, w, p, s, pad, d),
                    convert_to_tensor(depthwise_kernel), convert_to_tensor(pointwise_kernel),
                    strides, dilation_rate)


def max_pool(inputs, pool_size, strides=None, padding: str = "valid", data_format=None):
    """The maximum over windows, for 1 to 3 spatial axes (padding never wins).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        pool_size: an int or one per spatial axis.
        strides: the same; None: `pool_size`.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.max_pool(np.arange(4.0).reshape(1, 4, 1), 2))[0, :, 0]
        array([1., 3.])
    """
    return _spatial("max_pool", inputs, data_format, padding,
                    lambda x, pad, k, s: conv_ops.max_pool2d(x, k, s, pad),
                    pool_size, pool_size if strides is None else strides,
                    run3d=lambda x, pad, k, s: conv_ops.max_pool3d(x, k, s, pad))


def average_pool(inputs, pool_size, strides=None, padding: str = "valid", data_format=None):
    """The mean over windows, for 1 to 3 spatial axes (with 'same' padding, padded cells are
    not counted).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        pool_size: an int or one per spatial axis.
        strides: the same; None: `pool_size`.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.average_pool(np.arange(4.0).reshape(1, 4, 1), 2))[0, :, 0]
        array([0.5, 2.5])
    """
    return _spatial("average_pool", inputs, data_format, padding,
                    lambda x, pad, k, s: conv_ops.avg_pool2d(x, k, s, pad),
                    pool_size, pool_size if strides is None else strides,
                    run3d=lambda x, pad, k, s: conv_ops.avg_pool3d(x, k, s, pad))


def adaptive_average_pool(inputs, output_size, data_format=None) -> Tensor:
    """The mean over windows that divide each spatial axis into `output_size` cells (1 to 3
    spatial axes): output i of an axis of size n pools [floor(i n / out), ceil((i+1) n / out)).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        output_size: an int, or one per spatial axis.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch, of spatial shape `output_size`.

    Raises:
        InvalidArgumentError: a rank outside 3..5, or a wrong `output_size`.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> x = np.arange(5.0).reshape(1, 5, 1)
        >>> ops.convert_to_numpy(ops.adaptive_average_pool(x, 2))[0, :, 0]
        array([1., 3.])
    """
    return _adaptive("adaptive_average_pool", inputs, output_size, data_format, "average")


def adaptive_max_pool(inputs, output_size, data_format=None) -> Tensor:
    """The maximum over windows that divide each spatial axis into `output_size` cells (1 to
    3 spatial axes), placed as `adaptive_average_pool`'s.

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        output_size: an int, or one per spatial axis.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The pooled batch, of spatial shape `output_size`.

    Raises:
        InvalidArgumentError: a rank outside 3..5, or a wrong `output_size`.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> x = np.arange(5.0).reshape(1, 5, 1)
        >>> ops.convert_to_numpy(ops.adaptive_max_pool(x, 2))[0, :, 0]
        array([2., 4.])
    """
    return _adaptive("adaptive_max_pool", inputs, output_size, data_format, "max")


def _adaptive(op_name, inputs, output_size, data_format, mode) -> Tensor:
    x = floating(inputs)
    first = _layout(data_format, op_name)
    y = conv_ops.adaptive_pool(moveaxis(x, 1, -1) if first else x, output_size, mode)
    return moveaxis(y, -1, 1) if first else y


def conv_transpose(inputs, kernel, strides=1, padding: str = "valid", output_padding=None,
                   data_format=None, dilation_rate=1) -> Tensor:
    """The transpose of `conv` (a learned upsampling) for 1 to 3 spatial axes; `kernel` is
    (spatial..., out_channels, in_channels), and the output size per axis is Keras's
    (see `kerasish.core.ops.conv_ops.transpose_output_length`).

    Args:
        inputs: (batch, spatial..., channels) (or channels first).
        kernel: (spatial..., out_channels, in_channels).
        strides: an int or one per spatial axis.
        padding: 'valid' or 'same'.
        output_padding: None, an int or one per spatial axis (each smaller than its stride).
        data_format: 'channels_last' (None) or 'channels_first'.
        dilation_rate: an int or one per spatial axis.

    Returns:
        The upsampled batch with out_channels channels, in `data_format`.

    Raises:
        InvalidArgumentError: a rank outside 3..5, another padding, or shapes that do not fit.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.conv_transpose(np.ones((2, 4, 3)), np.ones((3, 5, 3)), 2))
        (2, 9, 5)
    """
    x = floating(inputs)
    kernel = convert_to_tensor(kernel)
    first = _layout(data_format, "conv_transpose")
    if first:
        x = moveaxis(x, 1, -1)
    rank = x.ndim - 2
    if rank not in (1, 2, 3) or kernel.ndim != rank + 2 or str(padding).lower() not in (
            "valid", "same"):
        raise InvalidArgumentError(
            f"conv_transpose: needs inputs with 1 to 3 spatial axes and a kernel of rank "
            f"inputs' rank (spatial..., out, in), and padding 'valid' or 'same'; got shapes "
            f"{x.shape} and {kernel.shape}, padding {padding!r}")

    def per_axis(value):
        return (value,) * rank if isinstance(value, (int, np.integer)) else tuple(value)

    strides_, dilations = per_axis(strides), per_axis(dilation_rate)
    extra = (None,) * rank if output_padding is None else per_axis(output_padding)
    spatial = tuple(
        conv_ops.transpose_output_length(size, k, s, padding, p, d)
        for size, k, s, p, d in zip(x.shape[1:-1], kernel.shape[:rank], strides_, extra,
                                    dilations))
    shape = (x.shape[0], *spatial, kernel.shape[-2])
    pad = str(padding).upper()
    if rank == 3:
        y = conv_ops.conv3d_transpose(x, kernel, shape, strides_, pad, dilations)
    elif rank == 2:
        y = conv_ops.conv2d_transpose(x, kernel, shape, strides_, pad, dilations)
    else:
        y = squeeze(conv_ops.conv2d_transpose(
            expand_dims(x, 1), expand_dims(kernel, 0), (shape[0], 1, *shape[1:]),
            (1, *strides_), pad, (1, *dilations)), 1)
    return moveaxis(y, -1, 1) if first else y


def rms_normalization(x, scale=None, axis=-1, epsilon=None) -> Tensor:
    """x / sqrt(mean(x**2 over `axis`) + epsilon), times `scale` (broadcast), as Keras's.

    Args:
        x: a tensor.
        scale: None, or a factor broadcast against the result.
        axis: the axis, or axes, of the mean square.
        epsilon: added to the mean square (None: `ks.backend.epsilon()`, 1e-7).

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.rms_normalization([[3.0, 4.0]], epsilon=0.0)).round(4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
    x = floating(x)
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    mean_square = reduction_ops.reduce_mean(math_ops.square(x), axes, keepdims=True)
    y = x * math_ops.rsqrt(mean_square + (settings.epsilon() if epsilon is None else epsilon))
    return y if scale is None else y * math_ops.cast(convert_to_tensor(scale), x.dtype)


def batch_normalization(x, mean, variance, axis: int, offset=None, scale=None,
                        epsilon: float = 1e-3) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics given per
    entry of `axis`.

    Args:
        x: a tensor.
        mean: the means, one per entry of `axis`.
        variance: the variances, likewise.
        axis: the axis the statistics run along (the channels).
        offset: None, or the added beta, likewise.
        scale: None, or the gamma, likewise.
        epsilon: added to the variance.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.batch_normalization([[1.0, 2.0]], [1.0, 0.0], [4.0, 1.0], axis=1, epsilon=0.0)
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0., 2.]]>
    """
    x = floating(x)
    axis = reduction_ops.normalize_axis(axis, x.ndim, "batch_normalization")[0]
    shape = [-1 if a == axis else 1 for a in range(x.ndim)]

    def along(v):
        return reshape(math_ops.cast(convert_to_tensor(v), x.dtype), shape)

    factor = math_ops.rsqrt(along(variance) + epsilon)
    if scale is not None:
        factor = factor * along(scale)
    y = (x - along(mean)) * factor
    return y if offset is None else y + along(offset)


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs) -> Tensor:
    """Layer normalization (Ba et al., 2016): (x - mean) / sqrt(variance + epsilon) over
    `axis`, times `gamma`, plus `beta`; with `rms_scaling=True`, x / sqrt(variance +
    epsilon) * gamma (Keras's RMS variant, which keeps using the variance).

    Args:
        x: a tensor.
        gamma: None, or the scale (of the normalized axes' shape).
        beta: None, or the offset, likewise.
        axis: the axis, or axes, normalized over.
        epsilon: added to the variance (None: `ks.backend.epsilon()`, 1e-7).
        **kwargs: only `rms_scaling` (bool).

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: another keyword.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.layer_normalization([[1.0, 3.0]], epsilon=0.0)).tolist()
        [[-1.0, 1.0]]
    """
    rms_scaling = bool(kwargs.pop("rms_scaling", False))
    if kwargs:
        raise InvalidArgumentError(
            f"layer_normalization: takes no keyword but rms_scaling, got {sorted(kwargs)}")
    x = floating(x)
    axes = reduction_ops.normalize_axis(axis, x.ndim, "layer_normalization")
    shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]

    def along(v):
        v = math_ops.cast(convert_to_tensor(v), x.dtype)
        return reshape(v, shape) if v.ndim != x.ndim and axes != (x.ndim - 1,) else v

    mean, variance = nn_ops.moments(x, axes, keepdims=True)
    epsilon = settings.epsilon() if epsilon is None else epsilon
    y = (x if rms_scaling else x - mean) * math_ops.rsqrt(variance + epsilon)
    if gamma is not None:
        y = y * along(gamma)
    if beta is not None and not rms_scaling:
        y = y + along(beta)
    return y


def polar(abs_, angle) -> Tensor:
    """The complex numbers of magnitude `abs_` and angle `angle`: abs_ * (cos + i sin).

    Args:
        abs_: magnitudes.
        angle: angles in radians (broadcast against `abs_`).

    Returns:
        A complex tensor (complex64 from float32 inputs, complex128 from float64).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.polar([2.0], [0.0])).tolist()
        [(2+0j)]
    """
    abs_, angle = floating(abs_), floating(angle)
    unit = np.complex128(1j) if np.float64 in (abs_.dtype, angle.dtype) else np.complex64(1j)
    return abs_ * math_ops.cos(angle) + abs_ * math_ops.sin(angle) * unit


def psnr(x1, x2, max_val) -> Tensor:
    """Peak signal-to-noise ratio in decibels: 20 log10(max_val) - 10 log10(mean((x1 -
    x2)**2)), over all elements.

    Args:
        x1: a tensor (images, say).
        x2: a tensor of `x1`'s shape.
        max_val: the largest possible value (1.0 for images in [0, 1], 255 for bytes).

    Returns:
        A scalar.

    Raises:
        InvalidArgumentError: the shapes differ.

    Example:
        >>> from kerasish import ops
        >>> print(f"{float(ops.psnr([0.0, 1.0], [0.0, 0.9], 1.0)):.3f}")
        23.010
    """
    x1, x2 = floating(x1), floating(x2)
    if x1.shape != x2.shape:
        raise InvalidArgumentError(
            f"psnr: x1 of shape {x1.shape} and x2 of shape {x2.shape} must have the same shape")
    mse = reduction_ops.reduce_mean(math_ops.square(x1 - x2))
    peak = math_ops.cast(convert_to_tensor(max_val), x2.dtype)
    return (20.0 * math_ops.log(peak) - 10.0 * math_ops.log(mse)) * (1.0 / np.log(10.0))


def _blocks(name: str, x, block_size, data_format) -> tuple:
    x = convert_to_tensor(x)
    if data_format not in ("channels_last", "channels_first") or x.ndim != 4 or not (
            isinstance(block_size, (int, np.integer)) and block_size >= 2):
        raise InvalidArgumentError(
            f"{name}: needs a rank-4 batch of images, an int block_size >= 2 and data_format "
            f"'channels_last' or 'channels_first'; got shape {x.shape}, block_size "
            f"{block_size!r}, data_format {data_format!r}")
    return (moveaxis(x, 1, -1) if data_format == "channels_first" else x), int(block_size)


def depth_to_space(x, block_size, data_format="channels_last") -> Tensor:
    """Pixel shuffle: each pixel's channels spread over a block_size x block_size square,
    (n, h, w, c) to (n, h * b, w * b, c / b**2), channel (i * b + j) * c' + k going to row
    i, column j of the block.

    Args:
        x: (n, h, w, c) (or (n, c, h, w) channels first), c divisible by block_size**2.
        block_size: the block's side.
        data_format: 'channels_last' or 'channels_first'.

    Returns:
        The rearranged batch.

    Raises:
        InvalidArgumentError: another rank, block size or data_format, or channels not
            divisible by block_size**2.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> x = np.arange(4.0).reshape(1, 1, 1, 4)
        >>> ops.convert_to_numpy(ops.depth_to_space(x, 2))[0, ..., 0]
        array([[0., 1.],
               [2., 3.]])
    """
    y, b = _blocks("depth_to_space", x, block_size, data_format)
    n, h, w, c = y.shape
    if c % (b * b):
        raise InvalidArgumentError(
            f"depth_to_space: {c} channels are not divisible by block_size**2 = {b * b}")
    if data_format == "channels_first":  # Keras's layout: channel k * b * b + i * b + j
        y = reshape(y, (n, h, w, c // (b * b), b, b))
        y = shape_ops.transpose(y, (0, 1, 4, 2, 5, 3))
    else:
        y = reshape(y, (n, h, w, b, b, c // (b * b)))
        y = shape_ops.transpose(y, (0, 1, 3, 2, 4, 5))
    y = reshape(y, (n, h * b, w * b, c // (b * b)))
    return moveaxis(y, -1, 1) if data_format == "channels_first" else y


def space_to_depth(x, block_size, data_format="channels_last") -> Tensor:
    """The inverse of `depth_to_space`: each block_size x block_size square of pixels
    stacked into the channels, (n, h, w, c) to (n, h / b, w / b, c * b**2).

    Args:
        x: (n, h, w, c) (or (n, c, h, w) channels first), h and w divisible by block_size.
        block_size: the block's side.
        data_format: 'channels_last' or 'channels_first'.

    Returns:
        The rearranged batch.

    Raises:
        InvalidArgumentError: another rank, block size or data_format, or sides not
            divisible by block_size.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> x = np.arange(4.0).reshape(1, 2, 2, 1)
        >>> ops.convert_to_numpy(ops.space_to_depth(x, 2)).ravel()
        array([0., 1., 2., 3.])
    """
    y, b = _blocks("space_to_depth", x, block_size, data_format)
    n, h, w, c = y.shape
    if h % b or w % b:
        raise InvalidArgumentError(
            f"space_to_depth: height {h} and width {w} must be divisible by block_size {b}")
    y = reshape(y, (n, h // b, b, w // b, b, c))
    if data_format == "channels_first":
        y = shape_ops.transpose(y, (0, 1, 3, 5, 2, 4))
    else:
        y = shape_ops.transpose(y, (0, 1, 3, 2, 4, 5))
    y = reshape(y, (n, h // b, w // b, c * b * b))
    return moveaxis(y, -1, 1) if data_format == "channels_first" else y


def _on_device(array: np.ndarray, like: Tensor) -> Tensor:
    """A NumPy constant on `like`'s device."""
    return Tensor(backend.to_device(array, backend.device_of(like._value)))


def _pair(name: str, what: str, value) -> tuple:
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, (int, np.integer)) for v in pair):
        raise InvalidArgumentError(f"{name}: {what} must be an int or a pair of ints, got "
                                   f"{value!r}")
    return int(pair[0]), int(pair[1])


def _window_indices(size, kernel, dilation, stride) -> tuple:
    """The flat (row * width + column) positions each window reads of a padded image of
    `size`, (kh * kw, blocks), and the number of blocks per axis."""
    counts = [(n - d * (k - 1) - 1) // s + 1 for n, k, d, s in zip(size, kernel, dilation,
                                                                     stride)]
    rows = (np.arange(kernel[0])[:, None] * dilation[0]
            + np.arange(counts[0])[None, :] * stride[0])
    cols = (np.arange(kernel[1])[:, None] * dilation[1]
            + np.arange(counts[1])[None, :] * stride[1])
    flat = rows[:, None, :, None] * size[1] + cols[None, :, None, :]
    return flat.reshape(kernel[0] * kernel[1], counts[0] * counts[1]), counts


def unfold(x, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a channels-first batch (PyTorch's `unfold`, im2col):
    (n, c, h, w) to (n, c * kh * kw, blocks), block entries ordered channel, row, column.

    Args:
        x: (n, c, h, w).
        kernel_size: an int or (kh, kw).
        dilation: an int or a pair: the spacing of a block's cells.
        padding: an int or a pair: zeros added on both sides of each spatial axis.
        stride: an int or a pair: the step between blocks.

    Returns:
        (n, c * kh * kw, blocks), blocks in row-major order.

    Raises:
        InvalidArgumentError: another rank, or a size that is not an int or a pair.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.unfold(np.arange(9.0).reshape(1, 1, 3, 3), 2))[0]
        array([[0., 1., 3., 4.],
               [1., 2., 4., 5.],
               [3., 4., 6., 7.],
               [4., 5., 7., 8.]])
    """
    x = floating(x)
    if x.ndim != 4:
        raise InvalidArgumentError(f"unfold: needs a rank-4 (n, c, h, w) batch, got shape "
                                   f"{x.shape}")
    kernel, dilation, padding, stride = (
        _pair("unfold", what, v) for what, v in (("kernel_size", kernel_size),
                                                ("dilation", dilation), ("padding", padding),
                                                ("stride", stride)))
    n, c = x.shape[:2]
    if any(padding):
        x = shape_ops.pad(x, [(0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2])
    size = x.shape[2:]
    flat, _ = _window_indices(size, kernel, dilation, stride)
    cells = reshape(x, (n, c, size[0] * size[1]))
    patches = indexing_ops.gather(cells, _on_device(flat, x), axis=2)
    return reshape(patches, (n, c * flat.shape[0], flat.shape[1]))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The adjoint of `unfold` (col2im): sliding blocks summed back into a channels-first
    batch, overlapping cells added (so fold(unfold(x)) counts each pixel once per block
    that covers it).

    Args:
        x: (n, c * kh * kw, blocks).
        output_size: an int or (h, w): the image's size.
        kernel_size: an int or (kh, kw).
        dilation: an int or a pair.
        padding: an int or a pair: cropped off both sides after summing.
        stride: an int or a pair.

    Returns:
        (n, c, h, w).

    Raises:
        InvalidArgumentError: another rank, a size that is not an int or a pair, or a block
            count that does not fit the sizes.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.fold(np.ones((1, 4, 4)), 3, 2))[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    x = floating(x)
    output, kernel, dilation, padding, stride = (
        _pair("fold", what, v) for what, v in (
            ("output_size", output_size), ("kernel_size", kernel_size),
            ("dilation", dilation), ("padding", padding), ("stride", stride)))
    size = (output[0] + 2 * padding[0], output[1] + 2 * padding[1])
    flat, _ = _window_indices(size, kernel, dilation, stride)
    cells = kernel[0] * kernel[1]
    if x.ndim != 3 or x.shape[1] % cells or x.shape[2] != flat.shape[1]:
        raise InvalidArgumentError(
            f"fold: needs (n, c * {cells}, {flat.shape[1]}) blocks for output_size {output}, "
            f"kernel_size {kernel}, dilation {dilation}, padding {padding} and stride "
            f"{stride}; got shape {x.shape}")
    n, c = x.shape[0], x.shape[1] // cells
    rows = shape_ops.transpose(reshape(x, (n * c, cells * flat.shape[1])), (1, 0))
    summed = indexing_ops.unsorted_segment_sum(rows, _on_device(flat.reshape(-1), x),
                                               size[0] * size[1])
    y = reshape(shape_ops.transpose(summed, (1, 0)), (n, c, size[0], size[1]))
    return y[:, :, padding[0]:size[0] - padding[0], padding[1]:size[1] - padding[1]]


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal: bool = False, flash_attention=None,
                          attn_logits_soft_cap=None) -> Tensor:
    """softmax(q k^T * scale + bias, masked) v per head, for (batch, length, heads,
    head_dim) inputs (Keras's and JAX's layout); `key`/`value` may have fewer heads that
    divide `query`'s (grouped-query attention).

    Args:
        query: (B, T, N, H).
        key: (B, S, K, H), K dividing N.
        value: (B, S, K, H).
        bias: None, or added to the logits, broadcast against (B, N, T, S).
        mask: None, or a boolean broadcast against (B, N, T, S): False drops the pair.
        scale: the logits' factor (None: 1 / sqrt(H)).
        is_causal: also drop key positions after each query's position.
        flash_attention: Keras's fused kernel switch; there is no flash kernel on
            NumPy/CuPy, so True raises (None and False compute the same result).
        attn_logits_soft_cap: Keras's logit capping, JAX on TPU only; not None raises.

    Returns:
        (B, T, N, H).

    Raises:
        NotImplementedError: `flash_attention` is True, or `attn_logits_soft_cap` is set.
        InvalidArgumentError: inputs not of rank 4, or head counts that do not divide.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> q = np.ones((1, 2, 1, 4), np.float32)
        >>> ops.shape(ops.dot_product_attention(q, q, q, is_causal=True))
        (1, 2, 1, 4)
    """
    if flash_attention:
        raise NotImplementedError(
            "dot_product_attention: flash_attention=True needs a fused flash-attention "
            "kernel (JAX/TPU, cuDNN, PyTorch); there is none on NumPy/CuPy: use "
            "flash_attention=None or False")
    if attn_logits_soft_cap is not None:
        raise NotImplementedError(
            "dot_product_attention: attn_logits_soft_cap is only supported by Keras for JAX "
            "on TPU (its Splash kernel); kerasish has no such kernel: use None")
    query, key, value = floating(query), floating(key), floating(value)
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4 or query.shape[2] % key.shape[2]:
        raise InvalidArgumentError(
            f"dot_product_attention: needs rank-4 (batch, length, heads, head_dim) inputs "
            f"whose key heads divide the query heads; got query {query.shape}, key "
            f"{key.shape}, value {value.shape}")
    groups = query.shape[2] // key.shape[2]
    if groups > 1:
        key = indexing_ops.repeat(key, groups, axis=2)
        value = indexing_ops.repeat(value, groups, axis=2)
    scale = 1.0 / np.sqrt(key.shape[-1]) if scale is None else scale
    logits = einsum_ops.einsum("btnh,bsnh->bnts", query, key) * scale
    if bias is not None:
        logits = logits + math_ops.cast(convert_to_tensor(bias), logits.dtype)
    keep = None if mask is None else math_ops.cast(convert_to_tensor(mask), np.bool_)
    if is_causal:
        causal = _on_device(np.tril(np.ones(logits.shape[-2:], np.bool_)), logits)
        keep = causal if keep is None else math_ops.logical_and(keep, causal)
    if keep is not None:
        large_negative = np.asarray(-0.7 * np.finfo(np.float32).max, logits.dtype)
        logits = where(keep, logits, _on_device(large_negative, logits))
    probs = nn_ops.softmax(logits, -1)
    return einsum_ops.einsum("bnts,bsnh->btnh", probs, value)
