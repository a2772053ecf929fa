"""Weight regularizers: callables `reg(weight) -> scalar` added to a layer's `losses`."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops


class Regularizer:
    """Base class: subclasses implement `__call__(weight)` and `get_config()`."""

    def __call__(self, weight):
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this regularizer (Keras 3 key names)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class L1L2(Regularizer):
    """l1 * sum(|w|) + l2 * sum(w**2)."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, weight):
        total = 0.0
        if self.l1:
            total = total + math_ops.reduce_sum(math_ops.abs(weight)) * self.l1
        if self.l2:
            total = total + math_ops.reduce_sum(math_ops.square(weight)) * self.l2
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """l1 * sum(|w|)."""

    def __init__(self, l1: float = 0.01):  # noqa: E741 - Keras's argument name
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """l2 * sum(w**2)."""

    def __init__(self, l2: float = 0.01):
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


def l1(l1: float = 0.01) -> L1:  # noqa: E743 - Keras's name
    return L1(l1)


def l2(l2: float = 0.01) -> L2:
    return L2(l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E743
    return L1L2(l1=l1, l2=l2)


_CLASSES = {"L1L2": L1L2, "L1": L1, "L2": L2}


def serialize(regularizer) -> dict:
    """Keras 3's serialized form of a regularizer (see `ks.saving.serialize_keras_object`)."""
    from kerasish.saving import serialize_keras_object

    return serialize_keras_object(regularizer)


def deserialize(config: dict, custom_objects: dict | None = None):
    """A regularizer from `serialize`'s dict (`module` may be omitted)."""
    from kerasish.saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects, module_objects=_CLASSES)


def get(identifier):
    """A regularizer from a name ('l2' or 'L2'), an instance, a serialized dict, or any
    callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        from kerasish.saving import get_registered_object

        factories = {"l1": l1, "l2": l2, "l1_l2": l1_l2, **_CLASSES}
        found = factories.get(identifier) or get_registered_object(identifier)
        if found is None:
            raise InvalidArgumentError(
                f"unknown regularizer {identifier!r}; choose one of: l1, l2, l1_l2"
            )
        return found()
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as a regularizer")
