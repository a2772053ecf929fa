"""Weight regularizers: callables `reg(weight) -> scalar` added to a layer's `losses`."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops


class Regularizer:
    def __call__(self, weight):
        raise NotImplementedError


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


def l1(l1: float = 0.01) -> L1L2:  # noqa: E743 - Keras's name
    return L1L2(l1=l1)


def l2(l2: float = 0.01) -> L1L2:
    return L1L2(l2=l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E743
    return L1L2(l1=l1, l2=l2)


def get(identifier):
    """A regularizer from a name ('l2'), an instance, or any callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        factories = {"l1": l1, "l2": l2, "l1_l2": l1_l2}
        if identifier not in factories:
            raise InvalidArgumentError(
                f"unknown regularizer {identifier!r}; choose one of: l1, l2, l1_l2"
            )
        return factories[identifier]()
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as a regularizer")
