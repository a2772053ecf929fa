"""Activation functions by name, for `Dense(activation="relu")` and `Activation("softmax")`."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, nn_ops
from kerasish.core.tensor import convert_to_tensor


def linear(x):
    """The identity (what `activation=None` means).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        `x` as a tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.linear([1.0, -2.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[ 1., -2.]>
    """
    return convert_to_tensor(x)


def softmax(x, axis: int = -1):
    """`ks.nn.softmax` under the activation's argument name.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        axis: the axis normalized over.

    Returns:
        A tensor of `x`'s shape whose entries along `axis` sum to 1.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.softmax([[0.0, 0.0]])
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[0.5, 0.5]]>
    """
    return nn_ops.softmax(x, axis)


def log_softmax(x, axis: int = -1):
    """`ks.nn.log_softmax` under the activation's argument name.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        axis: the axis normalized over.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.log_softmax([0.0, 0.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.6931472, -0.6931472]>
    """
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

selu = math_ops.selu
gelu = math_ops.gelu
exponential = math_ops.exp


def hard_sigmoid(x):
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, linear between (Keras 3's formula).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.hard_sigmoid([-4.0, 0.0, 4.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[0. , 0.5, 1. ]>
    """
    return math_ops.relu6(convert_to_tensor(x) + 3.0) * (1.0 / 6.0)


def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard swish).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.hard_silu([-4.0, 1.0, 4.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[-0.       ,  0.6666667,  4.       ]>
    """
    x = convert_to_tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def mish(x):
    """x * tanh(softplus(x)) (Misra, 2019).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.mish([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8650984]>
    """
    x = convert_to_tensor(x)
    return x * math_ops.tanh(math_ops.softplus(x))


_BY_NAME = {
    f.__name__ if f is not linear else "linear": f
    for f in (linear, softmax, log_softmax, relu, relu6, elu, sigmoid, tanh, softplus, softsign)
}
_BY_NAME.update({"swish": swish, "silu": silu, "leaky_relu": leaky_relu})
_BY_NAME.update({
    "selu": selu, "gelu": gelu, "exponential": exponential, "hard_sigmoid": hard_sigmoid,
    "hard_swish": hard_swish, "hard_silu": hard_silu, "mish": mish,
})


# The name each built-in is written under in a config ('silu' for swish, as Keras 3).
_NAME_OF = {fn: name for name, fn in _BY_NAME.items()}


def builtin(name: str):
    """The built-in activation called `name`, or None.

    Args:
        name: a name such as 'relu' (no registered custom objects are looked at).

    Returns:
        The function, or None.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.builtin("relu") is ks.nn.relu, ks.activations.builtin("nope")
        (True, None)
    """
    return _BY_NAME.get(name)


def builtin_name(fn) -> str | None:
    """The name a built-in activation is serialized as ('relu'), or None for other callables.

    Args:
        fn: a callable.

    Returns:
        The name (swish is written 'silu', as Keras 3 does), or None.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.builtin_name(ks.activations.swish)
        'silu'
    """
    try:
        return _NAME_OF.get(fn)
    except TypeError:  # an unhashable callable
        return None


def serialize(activation):
    """The name of a built-in activation, or Keras 3's serialized form of a registered one.

    Args:
        activation: a built-in activation or a registered callable.

    Returns:
        A string or a dict (see `ks.saving.serialize_keras_object`).

    Example:
        >>> import kerasish as ks
        >>> ks.activations.serialize(ks.activations.relu)
        'relu'
    """
    from kerasish.saving import serialize_keras_object

    return serialize_keras_object(activation)


def deserialize(config, custom_objects: dict | None = None):
    """An activation from `serialize`'s result (a name or a dict).

    Args:
        config: a name or a serialized dict.
        custom_objects: name -> function, for activations of your own.

    Returns:
        The activation function.

    Raises:
        InvalidArgumentError: an unknown name.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.deserialize("gelu") is ks.activations.gelu
        True
    """
    from kerasish.saving import deserialize_keras_object

    if isinstance(config, str):
        return get(config)
    return deserialize_keras_object(config, custom_objects, module_objects=_BY_NAME)


def get(identifier):
    """An activation from a name ('relu'), None (linear), a serialized dict, or any callable.

    Args:
        identifier: what to turn into an activation.

    Returns:
        A callable `x -> tensor`.

    Raises:
        InvalidArgumentError: an unknown name (the known ones are listed) or a value that
            is not callable.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.get("relu") is ks.activations.relu, ks.activations.get(None).__name__
        (True, 'linear')
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        from kerasish.saving import get_registered_object

        custom = get_registered_object(identifier)
        if identifier not in _BY_NAME and custom is not None:
            return custom
        if identifier not in _BY_NAME:
            raise InvalidArgumentError(
                f"unknown activation {identifier!r}; choose one of: {', '.join(sorted(_BY_NAME))}"
            )
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as an activation")
