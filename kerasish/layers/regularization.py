"""Regularization and noise layers: SpatialDropout1D/2D/3D, AlphaDropout, GaussianNoise,
GaussianDropout, ActivityRegularization.

The random layers act only when training (``layer(x, training=True)``, or inside
a model called with ``training=True``) and are the identity otherwise. Their
draws come from `ks.random`, so `ks.random.set_seed` reproduces them; a layer's
own `seed` gives it a separate reproducible stream.

Example:
    >>> import kerasish as ks
    >>> layer = ks.layers.GaussianNoise(0.1)
    >>> bool((layer(ks.ones([2, 3])) == 1.0).numpy().all())  # inference: unchanged
    True
"""

from __future__ import annotations

import math

from kerasish import regularizers
from kerasish.core import arguments
from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, nn_ops
from kerasish.layers.base import SameShapeLayer, in_training_mode

__all__ = [
    "ActivityRegularization",
    "AlphaDropout",
    "GaussianDropout",
    "GaussianNoise",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
]


class _SpatialDropout(SameShapeLayer):
    """Dropout of whole feature maps: one keep/drop draw per (example, channel)."""

    _rank = 0  # the input rank the layer expects

    def __init__(self, rate: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = arguments.number(rate, "rate", type(self).__name__, 0, 1, high_open=True)
        self.seed = seed

    def _noise_shape(self, shape) -> tuple:
        raise NotImplementedError

    def call(self, inputs, training=None):
        if inputs.ndim != self._rank:
            raise InvalidArgumentError(
                f"expects inputs of rank {self._rank}, got shape {inputs.shape}"
            )
        if not in_training_mode(self, training) or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, self.rate, self._noise_shape(inputs.shape), self.seed)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["trainable"]  # not an argument of Keras's spatial dropouts: Keras refuses it
        return {**config, "rate": self.rate, "seed": self.seed}


class SpatialDropout1D(_SpatialDropout):
    """Drop entire channels of (batch, steps, channels) inputs with probability `rate`.

    Neighbouring steps of one channel are strongly correlated, so dropping
    single elements regularizes little; this drops a channel at every step at
    once (and scales the kept ones by 1 / (1 - rate)), only when training.

    Args:
        rate: the probability of dropping a channel, in [0, 1).
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> y = ks.layers.SpatialDropout1D(0.5)(ks.ones([1, 4, 3]), training=True).numpy()
        >>> bool((y == y[:, :1]).all())  # each channel kept or dropped at every step
        True
    """

    _rank = 3

    def _noise_shape(self, shape) -> tuple:
        return (shape[0], 1, shape[2])


class SpatialDropout2D(_SpatialDropout):
    """Drop entire feature maps of 4-D image inputs with probability `rate`, when training.

    Args:
        rate: the probability of dropping a channel, in [0, 1).
        data_format: 'channels_last' (default, (batch, rows, cols, channels)) or
            'channels_first' ((batch, channels, rows, cols)).
        seed: an op seed for a separate reproducible stream.

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> y = ks.layers.SpatialDropout2D(0.5)(ks.ones([1, 2, 2, 4]), training=True)
        >>> y.numpy()[0, 0, 0], bool((y.numpy() == y.numpy()[:, :1, :1]).all())
        (array([2., 0., 0., 0.], dtype=float32), True)
    """

    _rank = 4

    def __init__(self, rate: float, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise InvalidArgumentError(
                "SpatialDropout2D: data_format must be 'channels_last' or 'channels_first', "
                f"got {data_format!r}"
            )
        self.data_format = data_format

    def _noise_shape(self, shape) -> tuple:
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1)
        return (shape[0], 1, 1, shape[3])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


class SpatialDropout3D(SpatialDropout2D):
    """Drop entire feature maps of 5-D volume inputs with probability `rate`, when training.

    Args:
        rate: the probability of dropping a channel, in [0, 1).
        data_format: 'channels_last' (default, (batch, depth, rows, cols, channels)) or
            'channels_first' ((batch, channels, depth, rows, cols)).
        seed: an op seed for a separate reproducible stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> y = ks.layers.SpatialDropout3D(0.5)(ks.ones([2, 2, 2, 2, 4]), training=True).numpy()
        >>> bool((y == y[:, :1, :1, :1]).all())  # each channel kept or dropped everywhere
        True
    """

    _rank = 5

    def _noise_shape(self, shape) -> tuple:
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1, 1)
        return (shape[0], 1, 1, 1, shape[4])


class AlphaDropout(SameShapeLayer):
    """Dropout that keeps a SELU network's self-normalizing mean and variance, when training.

    Dropped units are set to SELU's negative saturation value -alpha * scale rather than
    0, then an affine map `a * x + b` restores zero mean and unit variance (Klambauer et
    al., 2017), with Keras's constants and rule.

    Args:
        rate: the drop probability, in [0, 1).
        noise_shape: None (one draw per element) or the shape of the keep/drop draws,
            broadcast over the inputs (None entries: the input's size).
        seed: an op seed for a separate reproducible stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> y = ks.layers.AlphaDropout(0.2)(ks.random.normal([20000]), training=True).numpy()
        >>> abs(float(y.mean())) < 0.05, abs(float(y.std()) - 1) < 0.05  # still about 0, 1
        (True, True)
    """

    _ALPHA = 1.6732632423543772848170429916717
    _SCALE = 1.0507009873554804934193349852946

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = arguments.number(rate, "rate", "AlphaDropout", 0, 1, high_open=True)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed

    def call(self, inputs, training=None):
        if not in_training_mode(self, training) or self.rate == 0:
            return inputs
        shape = inputs.shape if self.noise_shape is None else tuple(
            size if wanted is None else wanted
            for size, wanted in zip(inputs.shape, self.noise_shape))
        kept = math_ops.cast(
            ks_random.uniform(shape, seed=self.seed) >= self.rate, inputs.dtype)
        alpha_p = -self._ALPHA * self._SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return (inputs * kept + alpha_p * (1 - kept)) * a + b

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}


class GaussianNoise(SameShapeLayer):
    """Add zero-mean Gaussian noise of standard deviation `stddev`, only when training.

    Args:
        stddev: the noise's standard deviation.
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(1)
        >>> y = ks.layers.GaussianNoise(0.5)(ks.zeros([1000]), training=True).numpy()
        >>> 0.45 < float(y.std()) < 0.55
        True
    """

    def __init__(self, stddev: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev = arguments.number(stddev, "stddev", "GaussianNoise", 0)
        self.seed = seed

    def call(self, inputs, training=None):
        if not in_training_mode(self, training) or self.stddev == 0:
            return inputs
        noise = ks_random.normal(inputs.shape, 0.0, self.stddev, inputs.dtype, seed=self.seed)
        return inputs + noise

    def get_config(self) -> dict:
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(SameShapeLayer):
    """Multiply by Gaussian noise of mean 1 and variance rate / (1 - rate), only when training.

    The multiplicative-noise counterpart of `Dropout` with the same `rate`
    (the same mean and variance of the mask), as in Srivastava et al. (2014).

    Args:
        rate: the drop probability whose noise variance it matches, rate / (1 - rate); in [0, 1).
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(2)
        >>> y = ks.layers.GaussianDropout(0.2)(ks.ones([4000]), training=True).numpy()
        >>> round(float(y.mean()), 1), round(float(y.var()), 2)  # 1 and 0.2 / 0.8
        (1.0, 0.25)
    """

    def __init__(self, rate: float, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = arguments.number(rate, "rate", "GaussianDropout", 0, 1, high_open=True)
        self.seed = seed

    def call(self, inputs, training=None):
        if not in_training_mode(self, training) or self.rate == 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = ks_random.normal(inputs.shape, 1.0, stddev, inputs.dtype, seed=self.seed)
        return inputs * noise

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class ActivityRegularization(SameShapeLayer):
    """The identity that adds ``(l1 * sum|x| + l2 * sum x**2) / batch size`` to `losses`.

    The penalty is added at every call (training or not), as Keras does for
    any layer's `activity_regularizer`; `model.losses` (and `fit`) include it.

    Args:
        l1: the weight of the L1 penalty.
        l2: the weight of the squared-L2 penalty.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.ActivityRegularization(l1=0.5)
        >>> _ = layer(ks.constant([[1.0, -2.0], [3.0, 0.0]]))
        >>> [float(loss) for loss in layer.losses]  # 0.5 * 6 / 2
        [1.5]
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs):
        l1 = arguments.number(l1, "l1", "ActivityRegularization", 0)
        l2 = arguments.number(l2, "l2", "ActivityRegularization", 0)
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}
