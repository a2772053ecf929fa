"""`ks.ops` neural-network ops (Keras's `ops.nn` spellings): activations, cross-entropies,
`conv`, pooling, `batch_normalization`, `normalize`, ..."""

from __future__ import annotations

import numpy as np

from kerasish import activations, losses
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    activation_ops,
    clip_ops,
    conv_ops,
    indexing_ops,
    math_ops,
    nn_ops,
    reduction_ops,
)
from kerasish.core.ops.math_ops import greater, minimum, multiply, negative, where
from kerasish.core.ops.shape_ops import expand_dims, moveaxis, reshape, squeeze
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.ops.elementwise import expm1
from kerasish.ops.keras_dtypes import floating, on_floats

__all__ = [
    "adaptive_average_pool",
    "adaptive_max_pool",
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


sigmoid, log_sigmoid, softplus, softsign, silu, selu, gelu = map(on_floats, (
    activation_ops.sigmoid, activation_ops.log_sigmoid, activation_ops.softplus,
    activation_ops.softsign, activation_ops.silu, activation_ops.selu, activation_ops.gelu))
softmax, log_softmax = map(on_floats, (nn_ops.softmax, nn_ops.log_softmax))
hard_sigmoid = on_floats(activations.hard_sigmoid)
swish = silu


def one_hot(x, num_classes: int, axis: int = -1, dtype=None) -> Tensor:
    """One-hot vectors of `num_classes` for integer `x` (out-of-range ids give zeros).

    Args:
        x: an integer tensor of class ids.
        num_classes: the number of classes.
        axis: where the class axis goes.
        dtype: the element type; None: float32.

    Returns:
        The one-hot tensor.

    Raises:
        InvalidArgumentError: `x` is not an integer tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.one_hot([1, 0], 3)).tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    return indexing_ops.one_hot(x, num_classes, axis=axis, dtype=dtype or np.float32)




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


def normalize(x, axis: int = -1, order: int = 2) -> Tensor:
    """`x` scaled to unit L2 norm along `axis` (Keras: `ops.normalize`; only order 2).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        axis: the axis the norm is taken over.
        order: the norm; only 2.

    Returns:
        A tensor of `x`'s shape.

    Raises:
        InvalidArgumentError: `order` is not 2.

    Example:
        >>> from kerasish import ops
        >>> ops.normalize([[3.0, 4.0]])
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0.6, 0.8]]>
    """
    if order != 2:
        raise InvalidArgumentError(f"normalize: only order=2 is available, got {order}")
    return nn_ops.l2_normalize(x, axis=axis)




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
    p = clip_ops.clip_by_value(output, losses.EPSILON, 1.0 - losses.EPSILON)
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
    y = x * math_ops.rsqrt(mean_square + (1e-7 if epsilon is None else epsilon))
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
