"""Normalization layers: BatchNormalization (moving statistics in non-trainable variables),
LayerNormalization, GroupNormalization and UnitNormalization."""

from __future__ import annotations

import warnings

from kerasish import constraints, initializers, regularizers
from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.core.tensor import Variable
from kerasish.layers.base import Layer, in_training_mode
from kerasish.layers.wrapper import Wrapper


class BatchNormalization(Layer):
    """Normalize over the batch (training) or with moving averages (inference).

    In training, outputs use the batch mean and variance, and the moving
    statistics move towards them: moving = moving * momentum + batch * (1 - momentum).
    A frozen layer (``trainable = False``, set on it or on a model holding it) runs in
    inference mode even with ``training=True``, as in Keras 3: the moving statistics
    are used and never updated (the transfer-learning recipe relies on it).

    Args:
        axis: the features axis: one mean and variance per entry along it, over every other
            axis.
        momentum: how much of the moving statistics each batch keeps.
        epsilon: added to the variance, for stability.
        center: whether to learn an offset `beta`.
        scale: whether to learn a scale `gamma`.
        beta_initializer: how `beta` starts: a name, an initializer or a callable.
        gamma_initializer: how `gamma` starts: a name, an initializer or a callable.
        moving_mean_initializer: how `moving_mean` starts: a name, an initializer or a
            callable.
        moving_variance_initializer: how `moving_variance` starts: a name, an initializer or a
            callable.
        beta_regularizer: a penalty on `beta`, added to `losses` (None: none).
        gamma_regularizer: a penalty on `gamma`, added to `losses` (None: none).
        beta_constraint: applied to `beta` after each optimizer update (None: none).
        gamma_constraint: applied to `gamma` after each optimizer update (None: none).
        renorm: Batch Renormalization (Ioffe, 2017), as Keras: in training, the normalized
            batch is corrected by r = batch std / renorm_stddev and d = (batch mean -
            renorm_mean) / renorm_stddev (constants for the gradient), and the moving
            statistics are kept as a mean and a standard deviation (`moving_stddev`,
            `renorm_mean`, `renorm_stddev` are added, after Keras's four weights).
            Inference is the same either way.
        renorm_clipping: with renorm, a dict of optional "rmax", "rmin", "dmax": r is
            clipped to [rmin, rmax] and d to [-dmax, dmax].
        renorm_momentum: with renorm, the momentum of `renorm_mean` and `renorm_stddev`.
        synchronized: batch statistics across devices; Keras allows it only on its
            TensorFlow backend, and kerasish refuses True as Keras's other backends do
            (within one process it would change nothing).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Raises:
        ValueError: synchronized=True, or renorm_clipping with unknown keys, rmax < rmin or
            dmax < 0.

    Example:
        >>> import kerasish as ks
        >>> bn = ks.layers.BatchNormalization()
        >>> bn(ks.constant([[0., 2.], [2., 6.]]), training=True).numpy().round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> bn.moving_mean.numpy()  # 0.99 * 0 + 0.01 * the batch mean
        array([0.01, 0.04], dtype=float32)
    """

    supports_masking = True

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
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm: bool = False,
        renorm_clipping=None,
        renorm_momentum: float = 0.99,
        synchronized: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if synchronized:
            raise InvalidArgumentError(
                "BatchNormalization: synchronized=True (batch statistics gathered across "
                "devices) is only supported by Keras's TensorFlow backend; kerasish, like "
                "Keras's other backends, refuses it. Use synchronized=False (in one process "
                "the statistics are the same)."
            )
        self.synchronized = False
        self.axis = axis
        self.momentum = arguments.number(momentum, "momentum", "BatchNormalization", 0, 1)
        self.epsilon = arguments.number(epsilon, "epsilon", "BatchNormalization", 0)
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.renorm = bool(renorm)
        if self.renorm:
            renorm_clipping = dict(renorm_clipping or {})
            unknown = set(renorm_clipping) - {"rmax", "rmin", "dmax"}
            if unknown:
                raise InvalidArgumentError(
                    f"BatchNormalization: renorm_clipping has unknown keys {sorted(unknown)}; "
                    "the keys are 'rmax', 'rmin' and 'dmax'"
                )
            rmax, rmin = renorm_clipping.get("rmax"), renorm_clipping.get("rmin")
            dmax = renorm_clipping.get("dmax")
            if rmax is not None and rmin is not None and rmax < rmin:
                raise InvalidArgumentError(
                    f"BatchNormalization: renorm_clipping needs rmax >= rmin, got rmax={rmax}, "
                    f"rmin={rmin}"
                )
            if dmax is not None and dmax < 0:
                raise InvalidArgumentError(
                    f"BatchNormalization: renorm_clipping needs dmax >= 0, got dmax={dmax}"
                )
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = arguments.number(renorm_momentum, "renorm_momentum",
                                                "BatchNormalization", 0, 1)

    def build(self, input_shape):
        self._axis = self.axis % len(input_shape)
        size = (input_shape[self._axis],)
        _add_gamma_beta(self, size, self.scale, self.center)
        self.moving_mean = self.add_weight(
            "moving_mean", size, initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", size, initializer=self.moving_variance_initializer, trainable=False
        )
        if self.renorm:
            variance_init = initializers.get(self.moving_variance_initializer)

            def stddev_init(shape, dtype=None):
                return math_ops.sqrt(variance_init(shape, dtype=dtype))

            self.moving_stddev = self.add_weight("moving_stddev", size, initializer=stddev_init,
                                                 trainable=False)
            self.renorm_mean = self.add_weight(
                "renorm_mean", size, initializer=self.moving_mean_initializer, trainable=False)
            self.renorm_stddev = self.add_weight("renorm_stddev", size, initializer=stddev_init,
                                                 trainable=False)

    def call(self, inputs, training=None):
        reduce_axes = tuple(i for i in range(inputs.ndim) if i != self._axis)
        shape = [1] * inputs.ndim
        shape[self._axis] = inputs.shape[self._axis]
        gamma, beta = self.gamma, self.beta
        if self.trainable and in_training_mode(self, training):
            mean, variance = nn_ops.moments(inputs, reduce_axes)
            batch_mean = creation_ops.stop_gradient(mean)
            batch_variance = creation_ops.stop_gradient(variance)
            if self.renorm:
                gamma, beta = self._renorm_step(batch_mean, batch_variance)
            else:
                keep = self.momentum
                self.moving_mean.assign(self.moving_mean * keep + batch_mean * (1 - keep))
                self.moving_variance.assign(
                    self.moving_variance * keep + batch_variance * (1 - keep))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        outputs = (inputs - shape_ops.reshape(mean, shape)) * shape_ops.reshape(
            math_ops.rsqrt(variance + self.epsilon), shape
        )
        if gamma is not None:
            outputs = outputs * shape_ops.reshape(gamma, shape)
        if beta is not None:
            outputs = outputs + shape_ops.reshape(beta, shape)
        return outputs

    def _renorm_step(self, mean, variance):
        """Batch renormalization's training step (Keras's rule): the effective gamma and beta
        x * (r * gamma) + (d * gamma + beta), then the renorm and moving statistics updated.
        `mean` and `variance` are the batch's, their gradient already stopped."""
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_stddev = math_ops.maximum(self.renorm_stddev.value(), self.epsilon ** 0.5)
        r = stddev / renorm_stddev
        d = (mean - self.renorm_mean.value()) / renorm_stddev
        clipping = self.renorm_clipping or {}
        if clipping.get("rmin") is not None:
            r = math_ops.maximum(r, clipping["rmin"])
        if clipping.get("rmax") is not None:
            r = math_ops.minimum(r, clipping["rmax"])
        if clipping.get("dmax") is not None:
            d = math_ops.minimum(math_ops.maximum(d, -clipping["dmax"]), clipping["dmax"])
        gamma, beta = (r, d) if self.gamma is None else (r * self.gamma, d * self.gamma)
        if self.beta is not None:
            beta = beta + self.beta
        keep = self.renorm_momentum
        self.renorm_mean.assign(self.renorm_mean * keep + mean * (1 - keep))
        self.renorm_stddev.assign(self.renorm_stddev * keep + stddev * (1 - keep))
        keep = self.momentum
        self.moving_mean.assign(self.moving_mean * keep + mean * (1 - keep))
        moving_stddev = self.moving_stddev * keep + stddev * (1 - keep)
        self.moving_stddev.assign(moving_stddev)
        self.moving_variance.assign(
            math_ops.maximum(moving_stddev * moving_stddev - self.epsilon, 0.0))
        return gamma, beta

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.BatchNormalization().compute_output_shape((None, 4))
            (None, 4)
        """
        return tuple(input_shape)

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
            "beta_regularizer": self.beta_regularizer,
            "gamma_regularizer": self.gamma_regularizer,
            "beta_constraint": self.beta_constraint,
            "gamma_constraint": self.gamma_constraint,
            "synchronized": self.synchronized,
            "renorm": self.renorm,
            "renorm_clipping": self.renorm_clipping,
            "renorm_momentum": self.renorm_momentum,
        }


def _normalized_axes(layer: Layer, axis, rank: int) -> list:
    """`axis` (an int or a list of ints) as sorted non-negative axes of a rank-`rank` input."""
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(
                f"{type(layer).__name__} '{layer.name}': axis {a} is out of range for an "
                f"input of rank {rank} (axis={axis})"
            )
    return sorted(a % rank for a in axes)


def _add_gamma_beta(layer: Layer, shape: tuple, scale: bool, center: bool) -> None:
    """Give `layer` its `gamma` (when `scale`) and `beta` (when `center`) weights of `shape`,
    from its gamma_/beta_ initializer, regularizer and constraint; None where left out."""
    layer.gamma = layer.beta = None
    if scale:
        layer.gamma = layer.add_weight(
            "gamma", shape, initializer=layer.gamma_initializer,
            regularizer=layer.gamma_regularizer, constraint=layer.gamma_constraint,
        )
    if center:
        layer.beta = layer.add_weight(
            "beta", shape, initializer=layer.beta_initializer,
            regularizer=layer.beta_regularizer, constraint=layer.beta_constraint,
        )


def _gamma_beta_config(layer: Layer) -> dict:
    """The config entries of `layer`'s gamma_/beta_ initializers, regularizers, constraints."""
    return {
        "beta_initializer": layer.beta_initializer,
        "gamma_initializer": layer.gamma_initializer,
        "beta_regularizer": layer.beta_regularizer,
        "gamma_regularizer": layer.gamma_regularizer,
        "beta_constraint": layer.beta_constraint,
        "gamma_constraint": layer.gamma_constraint,
    }


def _affine_normalize(x, mean, variance, epsilon, gamma, beta):
    """x * inv + (beta - mean * inv) with inv = gamma / sqrt(variance + epsilon) (Keras's form)."""
    inv = math_ops.rsqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * gamma
    shift = -mean * inv
    if beta is not None:
        shift = shift + beta
    return x * inv + shift


class LayerNormalization(Layer):
    """Normalize each example over `axis` (the features), then scale by gamma and shift by beta.

    Unlike BatchNormalization the statistics come from the example itself, so
    training and inference compute the same thing.

    Args:
        axis: the axis (or list of axes) normalized over, per example.
        epsilon: added to the variance, for stability.
        center: whether to learn an offset `beta`.
        scale: whether to learn a scale `gamma`.
        beta_initializer: how `beta` starts: a name, an initializer or a callable.
        gamma_initializer: how `gamma` starts: a name, an initializer or a callable.
        beta_regularizer: a penalty on `beta`, added to `losses` (None: none).
        gamma_regularizer: a penalty on `gamma`, added to `losses` (None: none).
        beta_constraint: applied to `beta` after each optimizer update (None: none).
        gamma_constraint: applied to `gamma` after each optimizer update (None: none).
        rms_scaling: scale by the root mean square only (no centering, no beta).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> y = ks.layers.LayerNormalization()(ks.constant([[1.0, 2.0, 3.0]]))
        >>> [round(float(v), 3) for v in y[0]]
        [-1.224, 0.0, 1.224]
    """

    supports_masking = True

    def __init__(
        self,
        axis=-1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        rms_scaling: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if rms_scaling:
            warnings.warn(
                "LayerNormalization(rms_scaling=True) is deprecated in Keras: it scales by the "
                "variance, not the root mean square (kept only to load such models)",
                stacklevel=2,
            )
        if not isinstance(axis, (int, list, tuple)):
            raise TypeError(
                f"LayerNormalization: axis must be an int or a list of ints, got {axis!r}"
            )
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon = arguments.number(epsilon, "epsilon", "LayerNormalization", 0)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.rms_scaling = bool(rms_scaling)

    def build(self, input_shape):
        self._axes = _normalized_axes(self, self.axis, len(input_shape))
        shape = tuple(input_shape[a] for a in self._axes)
        _add_gamma_beta(self, shape, self.scale or self.rms_scaling,
                        self.center and not self.rms_scaling)

    def call(self, inputs):
        rank = inputs.ndim
        broadcast = [inputs.shape[a] if a in self._axes else 1 for a in range(rank)]

        def spread(weight):
            if weight is None or self._axes == [rank - 1]:
                return weight
            return shape_ops.reshape(weight, broadcast)

        mean, variance = nn_ops.moments(inputs, tuple(self._axes), keepdims=True)
        if self.rms_scaling:  # Keras's (deprecated) form: no centering, no beta
            return inputs * math_ops.rsqrt(variance + self.epsilon) * spread(self.gamma)
        return _affine_normalize(
            inputs, mean, variance, self.epsilon, spread(self.gamma), spread(self.beta)
        )

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.LayerNormalization().compute_output_shape((None, 4))
            (None, 4)
        """
        _normalized_axes(self, self.axis, len(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **_gamma_beta_config(self),
            "rms_scaling": self.rms_scaling,
        }


class GroupNormalization(Layer):
    """Split the channels (`axis`) into `groups` and normalize each example within each group.

    `groups=-1` makes one group per channel (instance normalization); with
    `groups=1` it is layer normalization over all non-batch axes.

    Args:
        groups: how many groups the channels form (-1: one per channel); must divide the
            channels.
        axis: the channels axis.
        epsilon: added to the variance, for stability.
        center: whether to learn an offset `beta`.
        scale: whether to learn a scale `gamma`.
        beta_initializer: how `beta` starts: a name, an initializer or a callable.
        gamma_initializer: how `gamma` starts: a name, an initializer or a callable.
        beta_regularizer: a penalty on `beta`, added to `losses` (None: none).
        gamma_regularizer: a penalty on `gamma`, added to `losses` (None: none).
        beta_constraint: applied to `beta` after each optimizer update (None: none).
        gamma_constraint: applied to `gamma` after each optimizer update (None: none).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GroupNormalization(groups=2)(ks.ones([3, 5, 4])).shape
        (3, 5, 4)
    """

    supports_masking = True

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.groups = arguments.integer(groups, "groups", "GroupNormalization", minimum=-1)
        if self.groups == 0:
            raise InvalidArgumentError("GroupNormalization: groups must be a positive integer "
                                       "or -1 (one group per channel), got 0")
        self.axis = int(axis)
        self.epsilon = arguments.number(epsilon, "epsilon", "GroupNormalization", 0)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def _check(self, input_shape) -> tuple:
        """(channel axis, number of groups) for an input shape, or a clear error."""
        axis = _normalized_axes(self, self.axis, len(input_shape))[0]
        channels = input_shape[axis]
        if channels is None:
            raise InvalidArgumentError(
                f"GroupNormalization '{self.name}': axis {self.axis} of the input shape "
                f"{tuple(input_shape)} must be known"
            )
        groups = channels if self.groups == -1 else self.groups
        if not 0 < groups <= channels or channels % groups:
            raise InvalidArgumentError(
                f"GroupNormalization '{self.name}': {channels} channels (axis {self.axis} of "
                f"input shape {tuple(input_shape)}) cannot be split into groups={self.groups} "
                "equal groups; use a divisor of the channel count"
            )
        return axis, groups

    def build(self, input_shape):
        axis, _ = self._check(input_shape)
        shape = (input_shape[axis],)
        _add_gamma_beta(self, shape, self.scale, self.center)

    def call(self, inputs):
        axis, groups = self._check(inputs.shape)
        shape = inputs.shape
        grouped_shape = shape[:axis] + (groups, shape[axis] // groups) + shape[axis + 1:]
        grouped = shape_ops.reshape(inputs, grouped_shape)
        reduce_axes = tuple(a for a in range(1, len(grouped_shape)) if a != axis)
        mean, variance = nn_ops.moments(grouped, reduce_axes, keepdims=True)
        weight_shape = [1] * len(grouped_shape)
        weight_shape[axis], weight_shape[axis + 1] = groups, shape[axis] // groups

        def spread(weight):
            return None if weight is None else shape_ops.reshape(weight, weight_shape)

        outputs = _affine_normalize(
            grouped, mean, variance, self.epsilon, spread(self.gamma), spread(self.beta)
        )
        return shape_ops.reshape(outputs, shape)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.GroupNormalization(groups=2).compute_output_shape((None, 8))
            (None, 8)
        """
        _normalized_axes(self, self.axis, len(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **_gamma_beta_config(self),
        }


class UnitNormalization(Layer):
    """Scale each example to unit L2 norm along `axis` (an int or a list of ints).

    Args:
        axis: the axis (or list of axes) of the norm.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.UnitNormalization()(ks.constant([[3.0, 4.0]])).numpy().tolist()
        [[0.6000000238418579, 0.800000011920929]]
    """

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)

    def call(self, inputs):
        axes = tuple(_normalized_axes(self, self.axis, inputs.ndim))
        # rsqrt(max(sum, 1e-24)) = min(rsqrt(sum), 1e12): Keras's bound, and a finite gradient at 0
        return nn_ops.l2_normalize(inputs, axes, epsilon=1e-24)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.UnitNormalization().compute_output_shape((None, 4))
            (None, 4)
        """
        _normalized_axes(self, self.axis, len(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class RMSNormalization(Layer):
    """Root-mean-square normalization (Zhang and Sennrich, 2019): x / sqrt(mean(x**2) +
    epsilon) over `axis`, times a learned `scale` (Keras's single weight, initialized to
    ones). No mean is subtracted and there is no offset, which makes it cheaper than
    LayerNormalization; transformer blocks of recent language models use it.

    Args:
        axis: the axis (or list of axes) the mean square runs over; `scale` has their sizes.
        epsilon: added to the mean square, for stability.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RMSNormalization(epsilon=0.0)(ks.constant([[3.0, 4.0]])).numpy().round(4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    def __init__(self, axis=-1, epsilon: float = 1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)
        self.epsilon = arguments.number(epsilon, "epsilon", "RMSNormalization", 0)

    def build(self, input_shape):
        axes = _normalized_axes(self, self.axis, len(input_shape))
        self.scale = self.add_weight("scale", tuple(input_shape[a] for a in axes),
                                     initializer="ones")

    def call(self, inputs):
        axes = _normalized_axes(self, self.axis, inputs.ndim)
        inputs = _floating(self, inputs)
        mean_square = reduction_ops.reduce_mean(math_ops.square(inputs), tuple(axes), keepdims=True)
        shape = [inputs.shape[a] if a in axes else 1 for a in range(inputs.ndim)]
        return inputs * math_ops.rsqrt(mean_square + self.epsilon) * shape_ops.reshape(
            self.scale, shape)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`: the same.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.RMSNormalization().compute_output_shape((None, 4))
            (None, 4)
        """
        _normalized_axes(self, self.axis, len(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


def _floating(layer: Layer, inputs):
    return inputs if inputs.dtype.kind == "f" else math_ops.cast(inputs, layer.dtype)


class SpectralNormalization(Wrapper):
    """Divide the wrapped layer's kernel by its largest singular value (Miyato et al., 2018),
    estimated by `power_iterations` steps of power iteration from the kept vector
    `vector_u`; as in Keras, training calls normalize the kernel variable in place (the
    wrapped layer then runs with it), inference calls leave it as it is.

    It stabilizes GAN discriminators by bounding each layer's Lipschitz constant. The
    wrapped layer must have a `kernel` (Dense, the convolutions) or `embeddings`.

    Args:
        layer: the wrapped layer.
        power_iterations: power-iteration steps per training call (> 0).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Raises:
        ValueError: power_iterations <= 0, or (at build) a layer with neither `kernel` nor
            `embeddings`.

    Example:
        >>> import kerasish as ks
        >>> import numpy as np
        >>> layer = ks.layers.SpectralNormalization(ks.layers.Dense(4), power_iterations=50)
        >>> _ = layer(ks.ones([1, 6]), training=True)
        >>> round(float(np.linalg.svd(layer.kernel.numpy(), compute_uv=False)[0]), 3)
        1.0
    """

    def __init__(self, layer, power_iterations: int = 1, **kwargs):
        super().__init__(layer, **kwargs)
        if isinstance(power_iterations, bool) or not isinstance(power_iterations, int) or (
                power_iterations <= 0):
            raise InvalidArgumentError(
                f"SpectralNormalization: power_iterations must be an integer > 0, got "
                f"{power_iterations!r}"
            )
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        for name in ("kernel", "embeddings"):
            variable = getattr(self.layer, name, None)
            if variable is not None:
                break
        else:
            raise InvalidArgumentError(
                f"SpectralNormalization '{self.name}': the wrapped {type(self.layer).__name__} "
                "has neither a 'kernel' nor an 'embeddings' weight to normalize"
            )
        # held here too, as Keras does: the wrapper's own weights, in a weights file, are
        # [kernel, vector_u] (the kernel is still counted once in `weights`)
        self.kernel = variable
        self.vector_u = self.add_weight(
            "vector_u", (1, variable.shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02), trainable=False,
        )
        self._weights.insert(0, variable)

    def _tracked_children(self) -> list:
        # Keras lists a wrapper's own variables before its layer's: weights are
        # [kernel, vector_u, the layer's other weights]
        children = super()._tracked_children()
        own = [pair for pair in children if isinstance(pair[1], Variable)]
        return own + [pair for pair in children if not isinstance(pair[1], Variable)]

    def call(self, inputs, training=None):
        if in_training_mode(self, training) and bool(
                reduction_ops.reduce_any(math_ops.not_equal(self.kernel.value(), 0))):
            vector_u, kernel = self.normalized_weights()
            self.vector_u.assign(vector_u)
            self.kernel.assign(kernel)
        return self.layer(inputs)

    def normalized_weights(self):
        """The next `vector_u` and the kernel divided by its estimated spectral norm.

        Returns:
            (vector_u, kernel), neither assigned yet.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.SpectralNormalization(ks.layers.Dense(2))
            >>> layer.build((None, 3))
            >>> [tuple(t.shape) for t in layer.normalized_weights()]
            [(1, 2), (3, 2)]
        """
        shape = self.kernel.shape
        weights = shape_ops.reshape(self.kernel.value(), (-1, shape[-1]))
        vector_u = self.vector_u.value()
        for _ in range(self.power_iterations):
            vector_v = _unit(math_ops.matmul(vector_u, weights, transpose_b=True))
            vector_u = _unit(math_ops.matmul(vector_v, weights))
        vector_u = creation_ops.stop_gradient(vector_u)
        vector_v = creation_ops.stop_gradient(vector_v)
        sigma = math_ops.matmul(math_ops.matmul(vector_v, weights), vector_u, transpose_b=True)
        return vector_u, shape_ops.reshape(self.kernel.value() / shape_ops.reshape(sigma, ()),
                                           shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}


def _unit(x):
    """x / its L2 norm (over every entry; Keras's bound of 1e-12 on the squared norm)."""
    return x * math_ops.rsqrt(math_ops.maximum(reduction_ops.reduce_sum(math_ops.square(x)), 1e-12))
