"""Activation functions as layers: ReLU, LeakyReLU, PReLU (learned slopes), ELU, Softmax.

Each is a composition of kerasish ops, so gradients (of any order) come from the
tape. The generic `Activation('name')` layer lives in `core`.

Example:
    >>> import kerasish as ks
    >>> ks.layers.ReLU(max_value=1.0)(ks.constant([[-1.0, 0.5, 3.0]])).numpy()
    array([[0. , 0.5, 1. ]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import activation_ops, creation_ops, math_ops, nn_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor
from kerasish.layers.base import SameShapeLayer

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax"]


class ReLU(SameShapeLayer):
    """Rectified linear unit with an optional cap, threshold and negative slope (Keras's ReLU).

    ``f(x) = min(x, max_value)`` for ``x > threshold``, ``0`` for ``x <= threshold``
    (capped at 0 below), minus ``negative_slope * max(threshold - x, 0)``.

    Args:
        max_value: the largest output (None: no cap); >= 0.
        negative_slope: the slope below the threshold; >= 0.
        threshold: the input value where the unit switches on; >= 0.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.ReLU(negative_slope=0.5, threshold=1.0)
        >>> layer(ks.constant([[-1.0, 0.5, 2.0]])).numpy()
        array([[-1.  , -0.25,  2.  ]], dtype=float32)
    """

    def __init__(
        self, max_value=None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs
    ):
        super().__init__(**kwargs)
        self.max_value = arguments.number(max_value, "max_value", "ReLU", 0, none=True)
        self.negative_slope = arguments.number(negative_slope, "negative_slope", "ReLU", 0)
        self.threshold = arguments.number(threshold, "threshold", "ReLU", 0)

    def call(self, inputs):
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class LeakyReLU(SameShapeLayer):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise (Keras 3 default slope 0.3).

    Args:
        negative_slope: the slope for negative inputs (>= 0).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.LeakyReLU()(ks.constant([[-1.0, 2.0]])).numpy()
        array([[-0.3,  2. ]], dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs):
        super().__init__(**kwargs)
        self.negative_slope = arguments.number(negative_slope, "negative_slope", "LeakyReLU", 0)

    def call(self, inputs):
        return math_ops.where(math_ops.greater(inputs, 0), inputs, inputs * self.negative_slope)

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(SameShapeLayer):
    """Leaky ReLU with learned slopes: ``x`` for ``x > 0``, ``alpha * x`` otherwise.

    `alpha` has the input's shape without the batch axis, with size 1 along
    `shared_axes` (e.g. ``shared_axes=[1, 2]`` for one slope per channel of an
    image).

    Args:
        alpha_initializer: initial slopes (default zeros: starts as ReLU).
        alpha_regularizer: a regularizer of the slopes.
        alpha_constraint: a constraint on the slopes, applied after each update.
        shared_axes: input axes (1-based, as Keras: 1 is the first after the
            batch) along which one slope is shared.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.PReLU(alpha_initializer=ks.initializers.Constant(0.1))
        >>> layer(ks.constant([[-2.0, 3.0]])).numpy()
        array([[-0.2,  3. ]], dtype=float32)
    """

    def __init__(
        self,
        alpha_initializer="Zeros",
        alpha_regularizer=None,
        alpha_constraint=None,
        shared_axes=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [int(a) for a in shared_axes]
        else:
            self.shared_axes = [int(shared_axes)]

    def _alpha_shape(self, input_shape) -> tuple:
        shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            if not 1 <= axis <= len(shape):
                raise InvalidArgumentError(
                    f"PReLU '{self.name}': shared_axes must name axes 1..{len(shape)} of inputs "
                    f"of shape {tuple(input_shape)}, got {self.shared_axes}"
                )
            shape[axis - 1] = 1
        if None in shape:
            raise InvalidArgumentError(
                f"PReLU '{self.name}': every non-batch input axis without a shared slope must be "
                f"known, got shape {tuple(input_shape)}; share the unknown ones (shared_axes)"
            )
        return tuple(shape)

    def build(self, input_shape):
        self.alpha = self.add_weight(
            "alpha",
            self._alpha_shape(input_shape),
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )

    def call(self, inputs):
        expected = self.alpha.shape
        got = inputs.shape[1:]
        if len(got) != len(expected) or any(
            a != 1 and a != g for a, g in zip(expected, got, strict=True)
        ):
            raise InvalidArgumentError(
                f"inputs of shape {inputs.shape} do not fit alpha of shape {expected} (the "
                f"layer was built for inputs of shape (batch, {', '.join(map(str, expected))}) "
                "up to its shared axes)"
            )
        return activation_ops.relu(inputs) - self.alpha * activation_ops.relu(-inputs)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "alpha_initializer": self.alpha_initializer,
            "alpha_regularizer": self.alpha_regularizer,
            "alpha_constraint": self.alpha_constraint,
            "shared_axes": self.shared_axes,
        }


class ELU(SameShapeLayer):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        alpha: the scale of the negative part.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.ELU(alpha=2.0)(ks.constant([[0.0, 1.0]])).numpy()
        array([[0., 1.]], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = arguments.number(alpha, "alpha", "ELU")

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class Softmax(SameShapeLayer):
    """Softmax along `axis` (an int, or a list of axes normalized together).

    With a mask (``layer(x, mask=m)``, or one attached by a masking layer), the
    positions where the mask is False get probability 0 and the others share
    all of it; a slice with no unmasked position is all zeros. The mask must
    broadcast to the inputs (e.g. (batch, 1, keys) against attention scores).

    Args:
        axis: the axis, or a list of axes normalized together.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([[1.0, 1.0, 5.0]])
        >>> ks.layers.Softmax()(x, mask=ks.constant([[True, True, False]])).numpy()
        array([[0.5, 0.5, 0. ]], dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else int(axis)

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = self._broadcast_mask(inputs, mask)
            inputs = math_ops.where(mask, inputs, -1e9)
        if isinstance(self.axis, list) and len(self.axis) > 1:
            outputs = math_ops.exp(
                inputs - nn_ops.reduce_logsumexp(inputs, self.axis, keepdims=True)
            )
        else:
            axis = self.axis[0] if isinstance(self.axis, list) else self.axis
            outputs = nn_ops.softmax(inputs, axis)
        if mask is not None:
            outputs = math_ops.where(mask, outputs, creation_ops.zeros_like(outputs))
        return outputs

    def _broadcast_mask(self, inputs, mask):
        """The mask as booleans of the inputs' shape (numbers: True above 0.5, as Keras)."""
        mask = convert_to_tensor(mask)
        if mask.dtype.kind != "b":
            mask = math_ops.greater(mask, 0.5)
        try:
            shape = np.broadcast_shapes(mask.shape, inputs.shape)
        except ValueError:
            shape = None
        if shape != inputs.shape:
            raise InvalidArgumentError(
                f"mask of shape {mask.shape} does not broadcast to the inputs' shape "
                f"{inputs.shape}"
            )
        return shape_ops.broadcast_to(mask, inputs.shape)

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
