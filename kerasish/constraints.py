"""Weight constraints: projections applied to a variable after each optimizer update.

A constraint is a callable ``c(w) -> w'`` returning the projected value. Give one
to a layer (``Dense(..., kernel_constraint=ks.constraints.MaxNorm(2.0))``) and the
layer sets it as the weight's `Variable.constraint`; every optimizer then assigns
``constraint(variable)`` right after updating that variable (in
`Optimizer.apply_gradients`, one place for all optimizers). The norms are taken
along `axis` (default 0: for a Dense kernel of shape (inputs, units), the
incoming weights of each unit; for a Conv2D kernel use ``axis=[0, 1, 2]``).
Norm-based constraints divide by ``epsilon + norm`` (``ks.config.epsilon()``) as Keras
does, so a zero vector stays zero.

Example:
    >>> import kerasish as ks
    >>> ks.constraints.MaxNorm(max_value=1.0)(ks.constant([[3.0], [4.0]])).numpy().round(4)
    array([[0.6],
           [0.8]], dtype=float32)
    >>> ks.constraints.NonNeg()(ks.constant([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
"""

from __future__ import annotations

from kerasish.core import serialization, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, math_ops, reduction_ops
from kerasish.core.tensor import Tensor, convert_to_tensor

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "unit_norm",
    "get",
    "serialize",
    "deserialize",
]


class Constraint:
    """Base class: ``__call__(w)`` returns the projected weight (the base returns `w`).

    Subclass it and override ``__call__`` (and `get_config` if it has arguments).

    Example:
        >>> import kerasish as ks
        >>> class Clip(ks.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return ks.clip_by_value(w, -1.0, 1.0)
        >>> Clip()(ks.constant([-3.0, 0.5])).numpy()
        array([-1. ,  0.5], dtype=float32)
    """

    def __call__(self, w) -> Tensor:
        return convert_to_tensor(w)

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this constraint (Keras 3 key names)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """The constraint `get_config` describes.

        Args:
            config: the constructor arguments, by name.

        Returns:
            A new constraint of this class.

        Example:
            >>> import kerasish as ks
            >>> ks.constraints.MaxNorm.from_config({"max_value": 2.0})
            MaxNorm(max_value=2.0, axis=0)
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _axis(axis):
    return [int(a) for a in axis] if isinstance(axis, (list, tuple)) else int(axis)


def _norms(w: Tensor, axis) -> Tensor:
    return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(w), axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescale each weight vector along `axis` whose L2 norm exceeds `max_value` down to it.

    Args:
        max_value: the largest norm allowed (default 2).
        axis: the axis (or axes) the norms are taken over (default 0).

    Example:
        >>> import kerasish as ks
        >>> w = ks.constant([[3.0, 0.6], [4.0, 0.8]])  # column norms 5 and 1
        >>> ks.constraints.MaxNorm(2.0)(w).numpy().round(4)
        array([[1.2, 0.6],
               [1.6, 0.8]], dtype=float32)
    """

    def __init__(self, max_value: float = 2, axis=0):
        self.max_value = max_value
        self.axis = _axis(axis)

    def __call__(self, w) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (norms + settings.epsilon()))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Set negative weights to zero.

    Example:
        >>> import kerasish as ks
        >>> ks.constraints.NonNeg()(ks.constant([[-0.5, 0.5]])).numpy()
        array([[0. , 0.5]], dtype=float32)
    """

    def __call__(self, w) -> Tensor:
        w = convert_to_tensor(w)
        return math_ops.where(math_ops.greater_equal(w, 0.0), w, 0.0)


class UnitNorm(Constraint):
    """Rescale each weight vector along `axis` to L2 norm 1.

    Args:
        axis: the axis (or axes) the norms are taken over (default 0).

    Example:
        >>> import kerasish as ks
        >>> ks.constraints.UnitNorm()(ks.constant([[3.0], [4.0]])).numpy().round(4)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, axis=0):
        self.axis = _axis(axis)

    def __call__(self, w) -> Tensor:
        w = convert_to_tensor(w)
        return w / (_norms(w, self.axis) + settings.epsilon())

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Move each weight vector's L2 norm (along `axis`) into [min_value, max_value].

    The norm is rescaled to ``rate * clip(norm, min_value, max_value) + (1 - rate) * norm``:
    rate 1 enforces the bounds at once, a smaller rate moves towards them at each step.

    Args:
        min_value: the smallest norm allowed (default 0).
        max_value: the largest norm allowed (default 1).
        rate: how far to move towards the bounds per application (default 1).
        axis: the axis (or axes) the norms are taken over (default 0).

    Example:
        >>> import kerasish as ks
        >>> w = ks.constant([[0.3], [0.4]])  # norm 0.5
        >>> ks.constraints.MinMaxNorm(min_value=1.0, max_value=2.0)(w).numpy().round(4)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis=0):
        if float(min_value) > float(max_value):
            raise InvalidArgumentError(
                f"MinMaxNorm: min_value ({min_value}) must not exceed max_value ({max_value})"
            )
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = _axis(axis)

    def __call__(self, w) -> Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = clip_ops.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = clipped * float(self.rate) + norms * (1.0 - float(self.rate))
        return w * (desired / (norms + settings.epsilon()))

    def get_config(self) -> dict:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


# Keras's lower-case aliases of the classes
max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm

_CLASSES = {cls.__name__: cls for cls in (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)}
_NAMES = {
    **_CLASSES,
    "max_norm": MaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
    "min_max_norm": MinMaxNorm,
    "constraint": Constraint,
}


def serialize(constraint) -> dict:
    """Keras 3's serialized form of a constraint (see `ks.saving.serialize_keras_object`).

    Args:
        constraint: a constraint object.

    Returns:
        A dict with `module`, `class_name`, `config` and `registered_name`.

    Example:
        >>> import kerasish as ks
        >>> ks.constraints.serialize(ks.constraints.MaxNorm(3.0))["config"]
        {'max_value': 3.0, 'axis': 0}
    """
    return serialization.serialize_keras_object(constraint)


def deserialize(config: dict, custom_objects: dict | None = None):
    """A constraint from `serialize`'s dict (`module` may be omitted).

    Args:
        config: the dict `serialize` returns (or Keras 3 writes).
        custom_objects: name -> class, for constraints of your own.

    Returns:
        The constraint.

    Example:
        >>> import kerasish as ks
        >>> ks.constraints.deserialize({"class_name": "MaxNorm", "config": {"max_value": 3.0}})
        MaxNorm(max_value=3.0, axis=0)
    """
    return serialization.deserialize_keras_object(config, custom_objects, module_objects=_CLASSES)


def get(identifier):
    """A constraint from None, a name ('max_norm', 'MaxNorm', ...), a class, an instance,
    a serialized dict, or any callable ``w -> w'``.

    Args:
        identifier: what to turn into a constraint (None gives None).

    Returns:
        A constraint (a callable ``w -> w'``), or None.

    Raises:
        InvalidArgumentError: for an unknown name (listing the known ones) or a
            value that is not callable.

    Example:
        >>> import kerasish as ks
        >>> ks.constraints.get("unit_norm")
        UnitNorm(axis=0)
    """
    return serialization.resolve_callable(
        identifier, "constraint", _NAMES, _CLASSES,
        hint="; pass a name such as 'max_norm', a ks.constraints.Constraint, or a callable w -> w",
    )
