"""BatchNormalization with moving statistics held in non-trainable variables."""

from __future__ import annotations

from kerasish import initializers
from kerasish.core.ops import array_ops, math_ops, nn_ops
from kerasish.layers.base import Layer, in_training_mode


class BatchNormalization(Layer):
    """Normalize over the batch (training) or with moving averages (inference).

    In training, outputs use the batch mean and variance, and the moving
    statistics move towards them: moving = moving * momentum + batch * (1 - momentum).
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer

    def build(self, input_shape):
        self._axis = self.axis % len(input_shape)
        size = (input_shape[self._axis],)
        self.gamma = (self.add_weight("gamma", size, initializer=self.gamma_initializer)
                      if self.scale else None)
        self.beta = (self.add_weight("beta", size, initializer=self.beta_initializer)
                     if self.center else None)
        self.moving_mean = self.add_weight(
            "moving_mean", size, initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", size, initializer=self.moving_variance_initializer, trainable=False
        )

    def call(self, inputs, training=None):
        reduce_axes = tuple(i for i in range(inputs.ndim) if i != self._axis)
        shape = [1] * inputs.ndim
        shape[self._axis] = inputs.shape[self._axis]
        if in_training_mode(self, training):
            mean, variance = nn_ops.moments(inputs, reduce_axes)
            keep = self.momentum
            batch_mean = array_ops.stop_gradient(mean)
            batch_variance = array_ops.stop_gradient(variance)
            self.moving_mean.assign(self.moving_mean * keep + batch_mean * (1 - keep))
            self.moving_variance.assign(self.moving_variance * keep + batch_variance * (1 - keep))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        outputs = (inputs - array_ops.reshape(mean, shape)) * array_ops.reshape(
            math_ops.rsqrt(variance + self.epsilon), shape
        )
        if self.gamma is not None:
            outputs = outputs * array_ops.reshape(self.gamma, shape)
        if self.beta is not None:
            outputs = outputs + array_ops.reshape(self.beta, shape)
        return outputs

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.get(self.beta_initializer),
            "gamma_initializer": initializers.get(self.gamma_initializer),
            "moving_mean_initializer": initializers.get(self.moving_mean_initializer),
            "moving_variance_initializer": initializers.get(self.moving_variance_initializer),
        }
