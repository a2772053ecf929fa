"""Conv2D and 2-D pooling layers (NHWC, channels last)."""

from __future__ import annotations

from kerasish import activations, initializers, regularizers
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import nn_ops
from kerasish.layers.base import Layer
from kerasish.layers.core import _floating_input


def _pair(value, what: str) -> tuple:
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) != 2:
        raise InvalidArgumentError(f"{what} must be an int or a pair, got {value}")
    return value


def _padding(padding: str) -> str:
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"padding must be 'same' or 'valid', got {padding.lower()!r}")
    return padding


class Conv2D(Layer):
    """2-D convolution over NHWC inputs with an (h, w, in, filters) kernel."""

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=(1, 1),
        padding: str = "valid",
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "Conv2D kernel_size")
        self.strides = _pair(strides, "Conv2D strides")
        self.padding = _padding(padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer

    def build(self, input_shape):
        if len(input_shape) != 4:
            raise InvalidArgumentError(
                f"Conv2D '{self.name}': expects NHWC inputs (rank 4), got shape {input_shape}"
            )
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_size + (input_shape[-1], self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.bias = (
            self.add_weight(
                "bias", (self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
            )
            if self.use_bias
            else None
        )

    def call(self, inputs):
        inputs = _floating_input(self, inputs)
        outputs = nn_ops.conv2d(inputs, self.kernel, self.strides, self.padding)
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": list(self.kernel_size),
            "strides": list(self.strides),
            "padding": self.padding.lower(),
            "activation": self.activation,
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.get(self.kernel_initializer),
            "bias_initializer": initializers.get(self.bias_initializer),
            "kernel_regularizer": regularizers.get(self.kernel_regularizer),
            "bias_regularizer": regularizers.get(self.bias_regularizer),
        }


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding: str = "valid", **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, f"{type(self).__name__} pool_size")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides")
        self.padding = _padding(padding)

    def call(self, inputs):
        return type(self)._pool(inputs, self.pool_size, self.strides, self.padding)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": list(self.pool_size),
                "padding": self.padding.lower(), "strides": list(self.strides)}


class MaxPooling2D(_Pooling2D):
    """Max over pool_size windows (stride defaults to pool_size)."""

    _pool = staticmethod(nn_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """Mean over pool_size windows (stride defaults to pool_size)."""

    _pool = staticmethod(nn_ops.avg_pool2d)


MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
