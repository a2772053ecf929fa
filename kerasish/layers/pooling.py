"""Pooling layers: MaxPooling1D/2D/3D, AveragePooling1D/2D/3D, GlobalAveragePooling1D/2D/3D,
GlobalMaxPooling1D/2D/3D and the adaptive poolings, with Keras 3's arguments and defaults.

1-D pooling runs as 2-D pooling of height 1; 'channels_first' inputs are transposed
to channels last and back.
"""

from __future__ import annotations

from kerasish.core import arguments
from kerasish.core.ops import conv_ops, math_ops, reduction_ops, shape_ops
from kerasish.layers.base import Layer
from kerasish.layers.convolutional import (
    channels_of,
    check_window_fits,
    from_channels_last,
    normalize_data_format,
    normalize_padding,
    to_channels_last,
    window_output_length,
)


class _Pooling(Layer):
    """A reduction over windows of `pool_size` slid by `strides` (default: pool_size)."""

    rank = 2
    _pool = None  # conv_ops.max_pool2d or conv_ops.avg_pool2d
    _pool3d = None  # conv_ops.max_pool3d or conv_ops.avg_pool3d, for rank 3

    def __init__(self, pool_size, strides=None, padding: str = "valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        what = type(self).__name__
        self.pool_size = arguments.integers(pool_size, "pool_size", what, self.rank)
        self.strides = (
            self.pool_size if strides is None
            else arguments.integers(strides, "strides", what, self.rank)
        )
        self.padding = normalize_padding(padding, what)
        self.data_format = normalize_data_format(data_format, what)

    def call(self, inputs):
        channels_of(inputs.shape, self.data_format, self.rank, f"{type(self).__name__} "
                    f"'{self.name}'")
        x = to_channels_last(inputs, self.data_format)
        pool = type(self)._pool
        if self.rank == 1:  # as 2-D pooling of height 1
            pooled = pool(shape_ops.expand_dims(x, 1), (1,) + self.pool_size,
                          (1,) + self.strides, self.padding.upper())
            outputs = shape_ops.squeeze(pooled, 1)
        elif self.rank == 3:
            pool = type(self)._pool3d
            outputs = pool(x, self.pool_size, self.strides, self.padding.upper())
        else:
            outputs = pool(x, self.pool_size, self.strides, self.padding.upper())
        return from_channels_last(outputs, self.data_format)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.MaxPooling2D(2).compute_output_shape((None, 28, 28, 3))
            (None, 14, 14, 3)
        """
        input_shape = tuple(input_shape)
        first = self.data_format == "channels_first"
        spatial = input_shape[2:] if first else input_shape[1:-1]
        sizes = tuple(
            window_output_length(size, k, s, self.padding)
            for size, k, s in zip(spatial, self.pool_size, self.strides)
        )
        check_window_fits(self, "pool_size", self.pool_size, input_shape, sizes, self.padding)
        if first:
            return input_shape[:2] + sizes
        return (input_shape[0],) + sizes + (input_shape[-1],)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling1D(_Pooling):
    """Max over windows of `pool_size` steps of (batch, steps, channels) inputs.

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.MaxPooling1D()(ks.ones([2, 9, 3])).shape
        (2, 4, 3)
    """

    rank = 1
    _pool = staticmethod(conv_ops.max_pool2d)

    def __init__(self, pool_size=2, strides=None, padding: str = "valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    """Mean over windows of `pool_size` steps ('same' padding: padded steps not counted).

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AveragePooling1D(3, strides=1, padding="same")(ks.ones([2, 9, 3])).shape
        (2, 9, 3)
    """

    rank = 1
    _pool = staticmethod(conv_ops.avg_pool2d)

    def __init__(self, pool_size, strides=None, padding: str = "valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling2D(_Pooling):
    """Max over pool_size windows (stride defaults to pool_size).

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(16, dtype="float32"), (1, 4, 4, 1))
        >>> ks.layers.MaxPooling2D()(x).numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """

    _pool = staticmethod(conv_ops.max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding: str = "valid",
                 data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """Mean over pool_size windows (stride defaults to pool_size; 'same' padding: padded
    cells are not counted).

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(16, dtype="float32"), (1, 4, 4, 1))
        >>> ks.layers.AveragePooling2D()(x).numpy()[0, :, :, 0]
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """

    _pool = staticmethod(conv_ops.avg_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding: str = "valid",
                 data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(_Pooling):
    """Max over pool_size windows of (batch, depth, rows, cols, channels) (stride defaults
    to pool_size).

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(8, dtype="float32"), (1, 2, 2, 2, 1))
        >>> ks.layers.MaxPooling3D()(x).numpy().reshape(-1).tolist()
        [7.0]
    """

    rank = 3
    _pool3d = staticmethod(conv_ops.max_pool3d)

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding: str = "valid",
                 data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling):
    """Mean over pool_size windows of (batch, depth, rows, cols, channels) (stride defaults
    to pool_size; 'same' padding: padded cells are not counted).

    Args:
        pool_size: the window's size: an int, or one int per spatial axis.
        strides: the step between windows: an int, or one per spatial axis (default:
            pool_size).
        padding: 'valid' (no padding) or 'same' (pad so the output has ceil(size / stride)
            positions).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(8, dtype="float32"), (1, 2, 2, 2, 1))
        >>> ks.layers.AveragePooling3D(2)(x).numpy().reshape(-1).tolist()
        [3.5]
    """

    rank = 3
    _pool3d = staticmethod(conv_ops.avg_pool3d)

    def __init__(self, pool_size, strides=None, padding: str = "valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    """A reduction over every spatial axis: (batch, channels), or kept as size 1."""

    rank = 1

    def __init__(self, data_format=None, keepdims: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)

    def _spatial_axes(self, inputs) -> tuple:
        channels_of(inputs.shape, self.data_format, self.rank, f"{type(self).__name__} "
                    f"'{self.name}'")
        start = 2 if self.data_format == "channels_first" else 1
        return tuple(range(start, start + self.rank))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.GlobalAveragePooling1D().compute_output_shape((None, 10, 3))
            (None, 3)
        """
        input_shape = tuple(input_shape)
        first = self.data_format == "channels_first"
        channels = input_shape[1] if first else input_shape[-1]
        if not self.keepdims:
            return (input_shape[0], channels)
        ones = (1,) * self.rank
        return (input_shape[0], channels) + ones if first else (input_shape[0],) + ones + (
            channels,
        )

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling):
    """Mean over the steps of (batch, steps, channels); with a mask (batch, steps), the
    mean of the unmasked steps only (an `Embedding(mask_zero=True)`'s padding left out).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([[[1.0], [3.0], [8.0]]])
        >>> ks.layers.GlobalAveragePooling1D()(x, mask=ks.constant([[True, True, False]])).numpy()
        array([[2.]], dtype=float32)
    """

    supports_masking = True

    def call(self, inputs, mask=None):
        axes = self._spatial_axes(inputs)
        if mask is None:
            return reduction_ops.reduce_mean(inputs, axes, keepdims=self.keepdims)
        weights = math_ops.cast(mask, inputs.dtype)
        weights = shape_ops.expand_dims(weights, 1 if self.data_format == "channels_first" else 2)
        total = reduction_ops.reduce_sum(inputs * weights, axes, keepdims=self.keepdims)
        return total / reduction_ops.reduce_sum(weights, axes, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None  # the steps are gone


class GlobalMaxPooling1D(_GlobalPooling):
    """Max over the steps of (batch, steps, channels).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GlobalMaxPooling1D()(ks.constant([[[1., 5.], [3., 2.]]])).numpy()
        array([[3., 5.]], dtype=float32)
    """

    def call(self, inputs):
        return reduction_ops.reduce_max(inputs, self._spatial_axes(inputs), keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """Mean over rows and columns of (batch, rows, cols, channels).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GlobalAveragePooling2D(keepdims=True)(ks.ones([2, 4, 4, 3])).shape
        (2, 1, 1, 3)
    """

    rank = 2

    def call(self, inputs):
        return reduction_ops.reduce_mean(inputs, self._spatial_axes(inputs), keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """Max over rows and columns of (batch, rows, cols, channels).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(16, dtype="float32"), (1, 4, 4, 1))
        >>> ks.layers.GlobalMaxPooling2D()(x).numpy()
        array([[15.]], dtype=float32)
    """

    rank = 2

    def call(self, inputs):
        return reduction_ops.reduce_max(inputs, self._spatial_axes(inputs), keepdims=self.keepdims)


class GlobalAveragePooling3D(_GlobalPooling):
    """Mean over depth, rows and columns of (batch, depth, rows, cols, channels).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GlobalAveragePooling3D()(ks.ones([2, 3, 4, 4, 5])).shape
        (2, 5)
    """

    rank = 3

    def call(self, inputs):
        return reduction_ops.reduce_mean(inputs, self._spatial_axes(inputs), keepdims=self.keepdims)


class GlobalMaxPooling3D(_GlobalPooling):
    """Max over depth, rows and columns of (batch, depth, rows, cols, channels).

    Args:
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        keepdims: keep the pooled axes with size 1.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.GlobalMaxPooling3D(data_format="channels_first", keepdims=True)
        >>> layer(ks.ones([2, 5, 3, 4, 4])).shape
        (2, 5, 1, 1, 1)
    """

    rank = 3

    def call(self, inputs):
        return reduction_ops.reduce_max(inputs, self._spatial_axes(inputs), keepdims=self.keepdims)


class _AdaptivePooling(Layer):
    """Pooling to a fixed `output_size`, whatever the input's spatial size (Keras's
    adaptive pooling, as PyTorch's): `ks.ops.adaptive_average_pool`/`adaptive_max_pool`."""

    rank = 1
    _mode = "average"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        what = type(self).__name__
        if isinstance(output_size, int) and not isinstance(output_size, bool):
            output_size = (output_size,) * self.rank
        if not isinstance(output_size, (tuple, list)) or len(output_size) != self.rank:
            raise TypeError(
                f"{what}: output_size must be an integer or a tuple of {self.rank} integers, "
                f"got {output_size!r} of type {type(output_size).__name__}"
            )
        self.output_size = arguments.integers(tuple(output_size), "output_size", what,
                                              self.rank)
        self.data_format = normalize_data_format(data_format, what)

    def call(self, inputs):
        channels_of(inputs.shape, self.data_format, self.rank, f"{type(self).__name__} "
                    f"'{self.name}'")
        x = to_channels_last(inputs, self.data_format)
        return from_channels_last(conv_ops.adaptive_pool(x, self.output_size, self._mode),
                                  self.data_format)

    def compute_output_shape(self, input_shape):
        """The output's shape: `output_size` in place of the spatial axes.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.AdaptiveMaxPooling2D(4).compute_output_shape((None, 28, 28, 3))
            (None, 4, 4, 3)
        """
        input_shape = tuple(input_shape)
        if self.data_format == "channels_first":
            return (input_shape[0], input_shape[1], *self.output_size)
        return (input_shape[0], *self.output_size, input_shape[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "output_size": self.output_size,
                "data_format": self.data_format}



class AdaptiveAveragePooling1D(_AdaptivePooling):
    """The mean over windows dividing each spatial axis of (batch, steps, channels) into
    `output_size` cells: output i of an axis of size n pools [floor(i n / out),
    ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveAveragePooling1D(4)(ks.ones([2, 10, 3])).shape
        (2, 4, 3)
    """

    rank = 1
    _mode = "average"


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """The maximum over windows dividing each spatial axis of (batch, steps, channels) into
    `output_size` cells: output i of an axis of size n pools [floor(i n / out),
    ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveMaxPooling1D(4)(ks.ones([2, 10, 3])).shape
        (2, 4, 3)
    """

    rank = 1
    _mode = "max"


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """The mean over windows dividing each spatial axis of (batch, rows, cols, channels) into
    `output_size` cells: output i of an axis of size n pools [floor(i n / out),
    ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveAveragePooling2D((3, 2))(ks.ones([1, 9, 7, 3])).shape
        (1, 3, 2, 3)
    """

    rank = 2
    _mode = "average"


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """The maximum over windows dividing each spatial axis of (batch, rows, cols, channels) into
    `output_size` cells: output i of an axis of size n pools [floor(i n / out),
    ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveMaxPooling2D((3, 2))(ks.ones([1, 9, 7, 3])).shape
        (1, 3, 2, 3)
    """

    rank = 2
    _mode = "max"


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """The mean over windows dividing each spatial axis of
    (batch, depth, rows, cols, channels) into `output_size` cells: output i of an axis of
    size n pools [floor(i n / out), ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveAveragePooling3D(2)(ks.ones([1, 5, 6, 7, 2])).shape
        (1, 2, 2, 2, 2)
    """

    rank = 3
    _mode = "average"


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """The maximum over windows dividing each spatial axis of
    (batch, depth, rows, cols, channels) into `output_size` cells: output i of an axis of
    size n pools [floor(i n / out), ceil((i + 1) n / out)), as Keras and PyTorch.

    Args:
        output_size: the output's spatial size: an int (every axis) or one int per axis.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AdaptiveMaxPooling3D(2)(ks.ones([1, 5, 6, 7, 2])).shape
        (1, 2, 2, 2, 2)
    """

    rank = 3
    _mode = "max"


MaxPool1D, AvgPool1D = MaxPooling1D, AveragePooling1D
MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
