"""Activation functions by name, for `Dense(activation="relu")` and `Activation("softmax")`."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, nn_ops
from kerasish.core.tensor import convert_to_tensor


def linear(x):
    """The identity."""
    return convert_to_tensor(x)


def softmax(x, axis: int = -1):
    return nn_ops.softmax(x, axis)


def log_softmax(x, axis: int = -1):
    return nn_ops.log_softmax(x, axis)


relu = math_ops.relu
relu6 = math_ops.relu6
elu = math_ops.elu
sigmoid = math_ops.sigmoid
tanh = math_ops.tanh
softplus = math_ops.softplus
softsign = math_ops.softsign
swish = silu = math_ops.swish
leaky_relu = math_ops.leaky_relu

_BY_NAME = {
    f.__name__ if f is not linear else "linear": f
    for f in (linear, softmax, log_softmax, relu, relu6, elu, sigmoid, tanh, softplus, softsign)
}
_BY_NAME.update({"swish": swish, "silu": silu, "leaky_relu": leaky_relu})


def get(identifier):
    """An activation from a name ('relu'), None (linear), or any callable."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise InvalidArgumentError(
                f"unknown activation {identifier!r}; choose one of: {', '.join(sorted(_BY_NAME))}"
            )
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as an activation")
