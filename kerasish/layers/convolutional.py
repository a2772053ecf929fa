"""Convolution layers: Conv1D/2D/3D, Conv1D/2D/3DTranspose, DepthwiseConv1D/2D,
SeparableConv1D/2D.

Keras 3's arguments, defaults, weight names and layouts: kernels are
(window..., in / groups, filters), Conv2DTranspose's (h, w, filters, in),
DepthwiseConv2D's `depthwise_kernel` (h, w, in, depth_multiplier). Inputs are
channels last by default; 'channels_first' inputs are transposed to channels
last and the outputs back. The arithmetic is `ks.nn`'s convolutions, whose
gradients come from the patch primitives.
"""

from __future__ import annotations

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import conv_ops, shape_ops
from kerasish.layers.base import Layer
from kerasish.layers.core import _floating_input


def normalize_data_format(value, layer: str) -> str:
    """'channels_last' (the default, for None) or 'channels_first'."""
    value = "channels_last" if value is None else str(value).lower()
    if value not in ("channels_last", "channels_first"):
        raise InvalidArgumentError(
            f"{layer}: data_format must be 'channels_last' or 'channels_first', got {value!r}"
        )
    return value


def normalize_padding(value, layer: str, allowed=("valid", "same")) -> str:
    padding = str(value).lower()
    if padding not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise InvalidArgumentError(f"{layer}: padding must be one of {choices}, got {value!r}")
    return padding


def window_output_length(size, window: int, stride: int, padding: str, dilation: int = 1):
    """Output length of `window` cells `dilation` apart slid by `stride` (None stays None)."""
    if size is None:
        return None
    span = (window - 1) * dilation + 1
    if padding in ("same", "causal"):
        return -(-size // stride)
    return max(size - span + stride, 0) // stride


def check_window_fits(layer: Layer, what: str, window: tuple, input_shape, output_sizes,
                      padding: str, dilation: tuple | None = None) -> None:
    """Refuse a window that does not fit in its input (an output of spatial size 0), naming
    the layer, the input shape and the window."""
    if 0 not in output_sizes:
        return
    dilated = f" with dilation_rate {dilation}" if dilation and max(dilation) > 1 else ""
    raise InvalidArgumentError(
        f"layer '{layer.name}' ({type(layer).__name__}): {what} {window}{dilated} does not fit in "
        f"input shape {tuple(input_shape)} with padding {padding!r}: the output would have "
        f"spatial size {tuple(output_sizes)}; use a smaller {what}, padding='same' or larger "
        "inputs"
    )


def to_channels_last(x, data_format: str):
    """x with its channel axis moved from 1 to the end when channels first."""
    if data_format == "channels_last":
        return x
    return shape_ops.transpose(x, (0,) + tuple(range(2, x.ndim)) + (1,))


def from_channels_last(x, data_format: str):
    if data_format == "channels_last":
        return x
    return shape_ops.transpose(x, (0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))


def channels_of(input_shape, data_format: str, rank: int, layer: str):
    """The channel count of a (batch, spatial..., channels) input shape (channels first too)."""
    if len(input_shape) != rank + 2:
        raise InvalidArgumentError(
            f"{layer}: expects inputs of rank {rank + 2} (batch, {rank} spatial axes, "
            f"channels), got shape {tuple(input_shape)}"
        )
    channels = input_shape[1] if data_format == "channels_first" else input_shape[-1]
    if channels is None:
        raise InvalidArgumentError(
            f"{layer}: the channel axis of the input must be known, got shape "
            f"{tuple(input_shape)}"
        )
    return int(channels)


def _with_spatial(input_shape, spatial, channels, data_format: str) -> tuple:
    if data_format == "channels_first":
        return (input_shape[0], channels, *spatial)
    return (input_shape[0], *spatial, channels)


def _spatial_of(input_shape, data_format: str) -> tuple:
    return tuple(input_shape[2:] if data_format == "channels_first" else input_shape[1:-1])


class _Convolution(Layer):
    """What every convolution layer shares: windows, padding, data format, activation, bias.

    Subclasses create their kernels in `build` (after calling `_build_bias`), implement
    `_convolve(channels_last_inputs)` (or `_convolve_with_bias(inputs, bias)`, where their
    op adds the bias itself) and `_output_channels(input_channels)`.
    """

    rank = 2
    _paddings = ("valid", "same")

    def __init__(
        self,
        kernel_size,
        strides=1,
        padding: str = "valid",
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias: bool = True,
        bias_initializer="zeros",
        bias_regularizer=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        what = type(self).__name__
        self.kernel_size = arguments.integers(kernel_size, "kernel_size", what, self.rank)
        self.strides = arguments.integers(strides, "strides", what, self.rank)
        self.padding = normalize_padding(padding, what, self._paddings)
        self.data_format = normalize_data_format(data_format, what)
        self.dilation_rate = arguments.integers(dilation_rate, "dilation_rate", what, self.rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise InvalidArgumentError(
                f"{what}: strides > 1 together with dilation_rate > 1 is not supported (as in "
                f"Keras), got strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.bias_initializer = initializers.get(bias_initializer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.bias_constraint = constraints.get(bias_constraint)

    def _input_channels(self, input_shape) -> int:
        what = f"{type(self).__name__} '{self.name}'"
        return channels_of(input_shape, self.data_format, self.rank, what)

    def _build_bias(self, units: int) -> None:
        self.bias = (
            self.add_weight(
                "bias", (units,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )

    def call(self, inputs):
        x = to_channels_last(_floating_input(self, inputs), self.data_format)
        outputs = self._convolve_with_bias(x, self.bias)
        return from_channels_last(self.activation(outputs), self.data_format)

    def _convolve_with_bias(self, x, bias):
        """`_convolve(x)` plus `bias` (None: no bias). Layers whose op adds the bias to the
        output while it is in cache override this instead of `_convolve`."""
        outputs = self._convolve(x)
        return outputs if bias is None else outputs + bias

    def _output_spatial(self, spatial) -> tuple:
        return tuple(
            window_output_length(size, k, s, self.padding, d)
            for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Conv2D(8, 3, strides=2).compute_output_shape((None, 28, 28, 3))
            (None, 13, 13, 8)
        """
        channels = self._output_channels(self._input_channels(input_shape))
        spatial = self._output_spatial(_spatial_of(input_shape, self.data_format))
        check_window_fits(self, "kernel_size", self.kernel_size, input_shape, spatial,
                          self.padding, self.dilation_rate)
        return _with_spatial(input_shape, spatial, channels, self.data_format)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": self.activation,
            "use_bias": self.use_bias,
            "bias_initializer": self.bias_initializer,
            "bias_regularizer": self.bias_regularizer,
            "bias_constraint": self.bias_constraint,
            "activity_regularizer": self.activity_regularizer,  # Keras lists it, None too
        }


class _Conv(_Convolution):
    """Conv1D/Conv2D: `filters` outputs from an (window..., in / groups, filters) kernel."""

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=1,
        padding: str = "valid",
        data_format=None,
        dilation_rate=1,
        groups: int = 1,
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer, bias_regularizer, bias_constraint, **kwargs,
        )
        what = type(self).__name__
        self.filters = arguments.integer(filters, "filters", what)
        self.groups = arguments.integer(groups, "groups", what)
        if self.filters % self.groups:
            raise InvalidArgumentError(
                f"{what}: filters ({filters}) must be a multiple of groups ({groups})"
            )
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels % self.groups:
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': the {channels} input channels of shape "
                f"{tuple(input_shape)} are not divisible by groups={self.groups}"
            )
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_size + (channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._build_bias(self.filters)

    def _output_channels(self, input_channels: int) -> int:
        return self.filters

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "groups": self.groups,
            "kernel_initializer": self.kernel_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "kernel_constraint": self.kernel_constraint,
        }


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels): kernel (kernel_size, in / groups, filters).

    padding='causal' pads (kernel_size - 1) * dilation_rate steps on the left only, so
    output step t sees no input after t.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding), 'same' (pad so the output has ceil(size / stride)
            positions) or 'causal' (see above).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        groups: how many groups the input channels are split into, each with its own filters.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Conv1D(8, 3, padding="causal", dilation_rate=2)(ks.ones([2, 10, 4])).shape
        (2, 10, 8)
    """

    rank = 1
    _paddings = ("valid", "same", "causal")

    def _convolve_with_bias(self, x, bias):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = shape_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        return conv_ops.conv1d(
            x, self.kernel, self.strides[0], padding.upper(), self.dilation_rate[0], bias=bias
        )


class Conv2D(_Conv):
    """2-D convolution over (batch, rows, cols, channels): kernel (h, w, in / groups, filters).

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        groups: how many groups the input channels are split into, each with its own filters.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Conv2D(6, 3, padding="same", groups=2)(ks.ones([1, 8, 8, 4])).shape
        (1, 8, 8, 6)
    """

    def _convolve_with_bias(self, x, bias):
        return conv_ops.conv2d(
            x, self.kernel, self.strides, self.padding.upper(), self.dilation_rate, bias=bias
        )


class Conv3D(_Conv):
    """3-D convolution over (batch, depth, rows, cols, channels) (videos, medical volumes):
    kernel (d, h, w, in / groups, filters), as Keras.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        groups: how many groups the input channels are split into, each with its own filters.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Conv3D(4, 3, padding="same", strides=2)(ks.ones([1, 8, 8, 8, 2])).shape
        (1, 4, 4, 4, 4)
    """

    rank = 3

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=(1, 1, 1),
        padding: str = "valid",
        data_format=None,
        dilation_rate=(1, 1, 1),
        groups: int = 1,
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters, kernel_size, strides, padding, data_format, dilation_rate, groups,
            activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, kernel_constraint, bias_constraint, **kwargs,
        )

    def _convolve(self, x):
        return conv_ops.conv3d(
            x, self.kernel, self.strides, self.padding.upper(), self.dilation_rate
        )


class _ConvTranspose(_Convolution):
    """What Conv1DTranspose/Conv2DTranspose/Conv3DTranspose share: a kernel (window...,
    filters, in), Keras's output sizes (with or without `output_padding`)."""

    def __init__(
        self, filters, kernel_size, strides, padding, output_padding, data_format,
        dilation_rate, activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint, **kwargs,
    ):
        super().__init__(
            kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer, bias_regularizer, bias_constraint, **kwargs,
        )
        what = type(self).__name__
        self.filters = arguments.integer(filters, "filters", what)
        self.output_padding = None
        if output_padding is not None:
            values = (output_padding,) * self.rank if isinstance(output_padding, int) else tuple(
                output_padding
            )
            if len(values) != self.rank or any(
                not 0 <= p < s for p, s in zip(values, self.strides)
            ):
                raise InvalidArgumentError(
                    f"{what}: output_padding must be {self.rank} ints, each >= 0 and smaller "
                    f"than its stride {self.strides}, got {output_padding!r}"
                )
            self.output_padding = values
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._build_bias(self.filters)

    def _output_channels(self, input_channels: int) -> int:
        return self.filters

    def _output_spatial(self, spatial) -> tuple:
        extra = self.output_padding or (None,) * self.rank
        return tuple(
            conv_ops.transpose_output_length(size, k, s, self.padding, p, d)
            for size, k, s, p, d in zip(spatial, self.kernel_size, self.strides, extra,
                                        self.dilation_rate)
        )

    def _output_shape(self, x) -> tuple:
        return (x.shape[0], *self._output_spatial(x.shape[1:-1]), self.filters)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "output_padding": self.output_padding,
            "kernel_initializer": self.kernel_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "kernel_constraint": self.kernel_constraint,
        }




class Conv1DTranspose(_ConvTranspose):
    """The transpose of Conv1D (a learned upsampling of sequences): kernel (k, filters, in).

    Output lengths are Keras's: `size * stride + max(k - stride, 0)` ('valid') or
    `size * stride` ('same') without `output_padding`, k the dilated kernel size; with it,
    `(size - 1) * stride + k - 2 * pad + output_padding`, pad being k // 2 for 'same'.
    It runs as Conv2DTranspose of height 1.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has size * stride
            positions).
        output_padding: extra cells on one side of each spatial axis of the output, each
            smaller than its stride (None: as Keras infers).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Conv1DTranspose(3, 3, strides=2, padding="same")(ks.ones([2, 5, 4])).shape
        (2, 10, 3)
    """

    rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=1,
        padding: str = "valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, kernel_constraint, bias_constraint, **kwargs,
        )

    def _convolve_with_bias(self, x, bias):
        n, _, _ = x.shape
        out = conv_ops.conv2d_transpose(
            shape_ops.expand_dims(x, 1), shape_ops.expand_dims(self.kernel, 0),
            (n, 1, *self._output_spatial(x.shape[1:2]), self.filters),
            (1, self.strides[0]), self.padding.upper(), (1, self.dilation_rate[0]), bias=bias,
        )
        return shape_ops.squeeze(out, 1)


class Conv2DTranspose(_ConvTranspose):
    """The transpose of Conv2D (a learned upsampling): kernel (h, w, filters, in), as Keras.

    The output size along each spatial axis is, as Keras computes it, with k the dilated
    kernel size: `size * stride + max(k - stride, 0)` ('valid') or `size * stride`
    ('same') without `output_padding`; with it, `(size - 1) * stride + k - 2 * pad +
    output_padding`, pad being k // 2 for 'same' and 0 for 'valid'.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has size * stride
            positions).
        output_padding: extra cells on one side of each spatial axis of the output, each
            smaller than its stride (None: as Keras infers).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Conv2DTranspose(3, 3, strides=2, padding="same")(ks.ones([1, 4, 4, 8])).shape
        (1, 8, 8, 3)
    """

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=(1, 1),
        padding: str = "valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, kernel_constraint, bias_constraint, **kwargs,
        )

    def _convolve_with_bias(self, x, bias):
        return conv_ops.conv2d_transpose(
            x, self.kernel, self._output_shape(x), self.strides, self.padding.upper(),
            self.dilation_rate, bias=bias,
        )


class Conv3DTranspose(_ConvTranspose):
    """The transpose of Conv3D (a learned upsampling of volumes): kernel (d, h, w, filters,
    in), as Keras; output sizes as Conv2DTranspose's, per axis. Note Keras's argument order:
    `data_format` comes before `output_padding` here.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has size * stride
            positions).
        output_padding: extra cells on one side of each spatial axis of the output, each
            smaller than its stride (None: as Keras infers).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Conv3DTranspose(2, 3, strides=2, padding="same")
        >>> layer(ks.ones([1, 2, 3, 4, 5])).shape
        (1, 4, 6, 8, 2)
    """

    rank = 3

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=(1, 1, 1),
        padding: str = "valid",
        data_format=None,
        output_padding=None,
        dilation_rate=(1, 1, 1),
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, kernel_constraint, bias_constraint, **kwargs,
        )

    def _convolve(self, x):
        return conv_ops.conv3d_transpose(
            x, self.kernel, self._output_shape(x), self.strides, self.padding.upper(),
            self.dilation_rate,
        )


class DepthwiseConv2D(_Convolution):
    """Each input channel convolved with its own `depth_multiplier` filters.

    Weights: `depthwise_kernel` (h, w, in, depth_multiplier) and `bias`
    (in * depth_multiplier,); output channel c * depth_multiplier + m comes from
    input channel c and filter m.

    Args:
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        depth_multiplier: how many filters each input channel gets.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        depthwise_initializer: how `depthwise_kernel` starts: a name, an initializer or a
            callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        depthwise_regularizer: a penalty on `depthwise_kernel`, added to `losses` (None:
            none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        depthwise_constraint: applied to `depthwise_kernel` after each optimizer update (None:
            none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.DepthwiseConv2D(3, depth_multiplier=2)(ks.ones([1, 5, 5, 3])).shape
        (1, 3, 3, 6)
    """

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias: bool = True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer, bias_regularizer, bias_constraint, **kwargs,
        )
        self.depth_multiplier = arguments.integer(depth_multiplier, "depth_multiplier",
                                                  type(self).__name__)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def _build_depthwise(self, input_shape) -> int:
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        return channels

    def build(self, input_shape):
        channels = self._build_depthwise(input_shape)
        self._build_bias(channels * self.depth_multiplier)

    def _output_channels(self, input_channels: int) -> int:
        return input_channels * self.depth_multiplier

    def _convolve(self, x):
        return conv_ops.depthwise_conv2d(
            x, self.depthwise_kernel, self.strides, self.padding.upper(), self.dilation_rate
        )

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": self.depthwise_initializer,
            "depthwise_regularizer": self.depthwise_regularizer,
            "depthwise_constraint": self.depthwise_constraint,
        }


class SeparableConv2D(DepthwiseConv2D):
    """A depthwise convolution, then a 1x1 convolution mixing its channels into `filters`.

    Weights, in Keras's order: `depthwise_kernel` (h, w, in, depth_multiplier),
    `pointwise_kernel` (1, 1, in * depth_multiplier, filters) and `bias` (filters,).

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int, or one per spatial axis.
        depth_multiplier: how many filters each input channel gets.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        depthwise_initializer: how `depthwise_kernel` starts: a name, an initializer or a
            callable.
        pointwise_initializer: how `pointwise_kernel` starts: a name, an initializer or a
            callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        depthwise_regularizer: a penalty on `depthwise_kernel`, added to `losses` (None:
            none).
        pointwise_regularizer: a penalty on `pointwise_kernel`, added to `losses` (None:
            none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        depthwise_constraint: applied to `depthwise_kernel` after each optimizer update (None:
            none).
        pointwise_constraint: applied to `pointwise_kernel` after each optimizer update (None:
            none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.SeparableConv2D(4, 3, padding="same")(ks.ones([1, 5, 5, 3])).shape
        (1, 5, 5, 4)
    """

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=(1, 1),
        padding: str = "valid",
        data_format=None,
        dilation_rate=(1, 1),
        depth_multiplier: int = 1,
        activation=None,
        use_bias: bool = True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate,
            activation, use_bias, depthwise_initializer, bias_initializer,
            depthwise_regularizer, bias_regularizer, depthwise_constraint, bias_constraint,
            **kwargs,
        )
        self.filters = arguments.integer(filters, "filters", "SeparableConv2D")
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._build_depthwise(input_shape)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            (1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self._build_bias(self.filters)

    def _output_channels(self, input_channels: int) -> int:
        return self.filters

    def _convolve(self, x):
        return conv_ops.separable_conv2d(
            x, self.depthwise_kernel, self.pointwise_kernel, self.strides,
            self.padding.upper(), self.dilation_rate,
        )

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "pointwise_initializer": self.pointwise_initializer,
            "pointwise_regularizer": self.pointwise_regularizer,
            "pointwise_constraint": self.pointwise_constraint,
        }


def _as_2d(x, kernel):
    """A (batch, steps, channels) input and a (k, ...) kernel as height-1 2-D ones."""
    return shape_ops.expand_dims(x, 1), shape_ops.expand_dims(kernel, 0)


class DepthwiseConv1D(DepthwiseConv2D):
    """Each input channel of (batch, steps, channels) convolved with its own
    `depth_multiplier` filters: `depthwise_kernel` (k, in, depth_multiplier), `bias`
    (in * depth_multiplier,); it runs as DepthwiseConv2D of height 1.

    Args:
        kernel_size: the window's size: an int, or a one-element sequence.
        strides: the step between windows: an int, or a one-element sequence.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        depth_multiplier: how many filters each input channel gets.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int or a one-element sequence.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        depthwise_initializer: how `depthwise_kernel` starts: a name, an initializer or a
            callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        depthwise_regularizer: a penalty on `depthwise_kernel`, added to `losses` (None:
            none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        depthwise_constraint: applied to `depthwise_kernel` after each optimizer update (None:
            none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.DepthwiseConv1D(3, depth_multiplier=2)(ks.ones([2, 10, 3])).shape
        (2, 8, 6)
    """

    rank = 1

    def __init__(
        self,
        kernel_size,
        strides=1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias: bool = True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate,
            activation, use_bias, depthwise_initializer, bias_initializer,
            depthwise_regularizer, bias_regularizer, depthwise_constraint, bias_constraint,
            **kwargs,
        )

    def _convolve(self, x):
        x2, kernel = _as_2d(x, self.depthwise_kernel)
        out = conv_ops.depthwise_conv2d(x2, kernel, (1, self.strides[0]), self.padding.upper(),
                                        (1, self.dilation_rate[0]))
        return shape_ops.squeeze(out, 1)


class SeparableConv1D(SeparableConv2D):
    """A depthwise convolution of (batch, steps, channels), then a pointwise (size 1)
    convolution mixing its channels into `filters`.

    Weights, in Keras's order: `depthwise_kernel` (k, in, depth_multiplier),
    `pointwise_kernel` (1, in * depth_multiplier, filters) and `bias` (filters,).

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or a one-element sequence.
        strides: the step between windows: an int, or a one-element sequence.
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        dilation_rate: the spacing between the kernel's taps: an int or a one-element sequence.
        depth_multiplier: how many filters each input channel gets.
        activation: applied to the output: a name ('relu'), a callable, or None for none.
        use_bias: whether to add a learned bias.
        depthwise_initializer: how `depthwise_kernel` starts: a name, an initializer or a
            callable.
        pointwise_initializer: how `pointwise_kernel` starts: a name, an initializer or a
            callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        depthwise_regularizer: a penalty on `depthwise_kernel`, added to `losses` (None:
            none).
        pointwise_regularizer: a penalty on `pointwise_kernel`, added to `losses` (None:
            none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        depthwise_constraint: applied to `depthwise_kernel` after each optimizer update (None:
            none).
        pointwise_constraint: applied to `pointwise_kernel` after each optimizer update (None:
            none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.SeparableConv1D(4, 3, padding="same")(ks.ones([2, 10, 3])).shape
        (2, 10, 4)
    """

    rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=1,
        padding: str = "valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier: int = 1,
        activation=None,
        use_bias: bool = True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            filters, kernel_size, strides, padding, data_format, dilation_rate,
            depth_multiplier, activation, use_bias, depthwise_initializer,
            pointwise_initializer, bias_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer, depthwise_constraint,
            pointwise_constraint, bias_constraint, **kwargs,
        )

    def _convolve(self, x):
        x2, kernel = _as_2d(x, self.depthwise_kernel)
        out = conv_ops.separable_conv2d(
            x2, kernel, shape_ops.expand_dims(self.pointwise_kernel, 0), (1, self.strides[0]),
            self.padding.upper(), (1, self.dilation_rate[0]),
        )
        return shape_ops.squeeze(out, 1)


Convolution1D, Convolution2D = Conv1D, Conv2D
Convolution3D = Conv3D
Convolution1DTranspose, Convolution2DTranspose = Conv1DTranspose, Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
