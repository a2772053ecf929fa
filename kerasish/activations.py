"""Activation functions by name, for `Dense(activation="relu")` and `Activation("softmax")`."""

from __future__ import annotations

import numpy as np

from kerasish.core import serialization
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    activation_ops,
    clip_ops,
    creation_ops,
    cumulative_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
    sorting_ops,
)
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


relu6 = activation_ops.relu6
sigmoid = activation_ops.sigmoid
tanh = math_ops.tanh
softplus = activation_ops.softplus
softsign = activation_ops.softsign
swish = silu = activation_ops.swish
selu = activation_ops.selu
exponential = math_ops.exp
log_sigmoid = activation_ops.log_sigmoid


def relu(x, negative_slope: float = 0.0, max_value=None, threshold: float = 0.0):
    """Rectified linear unit, with Keras's optional slope, cap and threshold.

    ``min(x, max_value)`` for ``x > threshold``, else ``negative_slope * (x - threshold)``
    (0 with the defaults, which give the plain ``max(x, 0)``).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        negative_slope: the slope below the threshold.
        max_value: the largest output (None: no cap).
        threshold: the input value where the unit switches on.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.relu([-10.0, -5.0, 0.0, 5.0, 10.0], negative_slope=0.5, max_value=5.0)
        <ks.Tensor: shape=(5,), dtype=float32, numpy=[-5. , -2.5,  0. ,  5. ,  5. ]>
    """
    x = convert_to_tensor(x)
    if threshold:
        out = math_ops.where(math_ops.greater(x, threshold), x, creation_ops.zeros_like(x))
    else:
        out = activation_ops.relu(x)
    if max_value is not None:
        out = math_ops.minimum(out, max_value)
    if negative_slope:
        out = out - activation_ops.relu(threshold - x) * negative_slope
    return out


def elu(x, alpha: float = 1.0):
    """Exponential linear unit: x for x > 0, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        alpha: the scale of the negative part.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.elu([-100.0, 2.0], alpha=0.5)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.5,  2. ]>
    """
    x = convert_to_tensor(x)
    if alpha == 1.0:
        return activation_ops.elu(x)
    return math_ops.where(math_ops.greater(x, 0), x, activation_ops.elu(x) * alpha)


def leaky_relu(x, negative_slope: float = 0.2):
    """x for x >= 0, ``negative_slope * x`` otherwise.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        negative_slope: the slope for negative inputs.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.leaky_relu([-2.0, 3.0], negative_slope=0.1)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.2,  3. ]>
    """
    return activation_ops.leaky_relu(x, negative_slope)


def gelu(x, approximate: bool = False):
    """Gaussian error linear unit, ``x * Phi(x)`` (the tanh approximation if `approximate`).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        approximate: use the tanh approximation.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.gelu([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.8413447]>
    """
    return activation_ops.gelu(x, approximate)


def celu(x, alpha: float = 1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)``.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        alpha: the scale of the negative part (> 0).

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.celu([-100.0, 2.0], alpha=2.0)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-2.,  2.]>
    """
    x = convert_to_tensor(x)
    return activation_ops.relu(x) + math_ops.expm1(math_ops.minimum(x, 0.0) / alpha) * alpha


def glu(x, axis: int = -1):
    """Gated linear unit: `x` split in halves ``a, b`` along `axis`, ``a * sigmoid(b)``.

    Args:
        x: a tensor whose `axis` has even size.
        axis: the axis split.

    Returns:
        A tensor of `x`'s shape with `axis` halved.

    Raises:
        InvalidArgumentError: if the axis has odd size.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.glu([[2.0, 4.0, 0.0, 100.0]])
        <ks.Tensor: shape=(1, 2), dtype=float32, numpy=[[1., 4.]]>
    """
    x = convert_to_tensor(x)
    if x.ndim == 0 or x.shape[axis] % 2:
        raise InvalidArgumentError(
            f"glu: axis {axis} of x must have an even size, got shape {x.shape}"
        )
    a, b = shape_ops.split(x, 2, axis)
    return a * activation_ops.sigmoid(b)


def hard_tanh(x):
    """x clipped to [-1, 1].

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.hard_tanh([-2.0, 0.5, 3.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[-1. ,  0.5,  1. ]>
    """
    return clip_ops.clip_by_value(convert_to_tensor(x), -1.0, 1.0)


def hard_shrink(x, threshold: float = 0.5):
    """x where ``|x| > threshold``, 0 elsewhere.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        threshold: the half-width of the zeroed band.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.hard_shrink([-1.0, 0.3, 0.6])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[-1. ,  0. ,  0.6]>
    """
    x = convert_to_tensor(x)
    kept = math_ops.greater(math_ops.abs(x), threshold)
    return math_ops.where(kept, x, creation_ops.zeros_like(x))


def soft_shrink(x, threshold: float = 0.5):
    """x moved `threshold` towards 0, and 0 within ``[-threshold, threshold]``.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        threshold: the half-width of the zeroed band.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.soft_shrink([-1.0, 0.3, 2.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[-0.5,  0. ,  1.5]>
    """
    x = convert_to_tensor(x)
    return x - clip_ops.clip_by_value(x, -threshold, threshold)


def tanh_shrink(x):
    """x - tanh(x).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.tanh_shrink([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.        , 0.23840582]>
    """
    x = convert_to_tensor(x)
    return x - math_ops.tanh(x)


def sparse_plus(x):
    """0 for x <= -1, ``(x + 1)**2 / 4`` for -1 < x < 1, x for x >= 1 (a smooth relu).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.sparse_plus([-2.0, 0.0, 3.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[0.  , 0.25, 3.  ]>
    """
    x = convert_to_tensor(x)
    inside = clip_ops.clip_by_value(x, -1.0, 1.0) + 1.0
    return math_ops.square(inside) * 0.25 + activation_ops.relu(x - 1.0)


def sparse_sigmoid(x):
    """0 for x <= -1, ``(x + 1) / 2`` for -1 < x < 1, 1 for x >= 1.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.sparse_sigmoid([-2.0, 0.5, 3.0])
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[0.  , 0.75, 1.  ]>
    """
    return (clip_ops.clip_by_value(convert_to_tensor(x), -1.0, 1.0) + 1.0) * 0.5


def squareplus(x, b: float = 4):
    """``(x + sqrt(x**2 + b)) / 2``, a smooth relu (b = 0 gives relu).

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        b: the smoothness, >= 0.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.squareplus([0.0, 1.5])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[1., 2.]>
    """
    x = convert_to_tensor(x)
    return (x + math_ops.sqrt(math_ops.square(x) + b)) * 0.5


def threshold(x, threshold: float, default_value: float):
    """x where ``x > threshold``, `default_value` elsewhere.

    Args:
        x: a tensor, or a value `convert_to_tensor` takes.
        threshold: the value to exceed.
        default_value: what replaces the values that do not.

    Returns:
        A tensor of `x`'s shape.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.threshold([-1.0, 0.5, 2.0], 0.5, -9.0)
        <ks.Tensor: shape=(3,), dtype=float32, numpy=[-9., -9.,  2.]>
    """
    x = convert_to_tensor(x)
    return math_ops.where(math_ops.greater(x, threshold), x, default_value)


def sparsemax(x, axis: int = -1):
    """Euclidean projection of `x` onto the probability simplex along `axis` (Martins, 2016).

    ``max(x - tau, 0)`` with tau chosen so the outputs sum to 1: like softmax, but exact
    zeros for the low scores. (Keras 3.15's sparsemax computes tau from the sum of the
    cumulative sums over the support, so its outputs do not sum to 1 whenever two or
    more scores are kept; this is the paper's tau, keras-team/keras#23425.)

    Args:
        x: a tensor of scores.
        axis: the axis normalized over.

    Returns:
        A tensor of `x`'s shape, non-negative, summing to 1 along `axis`.

    Example:
        >>> import kerasish as ks
        >>> ks.activations.sparsemax([[1.0, 0.5, 0.0], [3.0, 0.0, 0.0]]).numpy()
        array([[0.75, 0.25, 0.  ],
               [1.  , 0.  , 0.  ]], dtype=float32)
    """
    x = convert_to_tensor(x)
    axis = reduction_ops.normalize_axis(axis, x.ndim, "sparsemax")[0]
    # The support {j: x_j > tau}, found without gradient from the sorted scores: the k
    # largest with k * z_(k) > z_(1) + ... + z_(k) - 1.
    ordered = sorting_ops.sort(creation_ops.stop_gradient(x), axis, "DESCENDING")
    ranks_shape = [1] * x.ndim
    ranks_shape[axis] = x.shape[axis]
    ranks = shape_ops.reshape(creation_ops.range(1, x.shape[axis] + 1, dtype=x.dtype), ranks_shape)
    kept = math_ops.greater(ordered * ranks, cumulative_ops.cumsum(ordered, axis) - 1.0)
    smallest_kept = reduction_ops.reduce_min(
        math_ops.where(kept, ordered, ordered.dtype.type(np.inf)), axis, keepdims=True
    )
    support = math_ops.cast(math_ops.greater_equal(x, smallest_kept), x.dtype)
    # tau from x itself, so the gradient is the projection's: d out_i / d x_j = [i = j] - 1/k.
    total = reduction_ops.reduce_sum(x * support, axis, keepdims=True)
    tau = (total - 1.0) / reduction_ops.reduce_sum(support, axis, keepdims=True)
    return activation_ops.relu(x - tau)


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
    return activation_ops.relu6(convert_to_tensor(x) + 3.0) * (1.0 / 6.0)


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
    return x * math_ops.tanh(activation_ops.softplus(x))


_BY_NAME = {
    f.__name__ if f is not linear else "linear": f
    for f in (linear, softmax, log_softmax, relu, relu6, elu, sigmoid, tanh, softplus, softsign)
}
_BY_NAME.update({"swish": swish, "silu": silu, "leaky_relu": leaky_relu})
_BY_NAME.update({
    "selu": selu, "gelu": gelu, "exponential": exponential, "hard_sigmoid": hard_sigmoid,
    "hard_swish": hard_swish, "hard_silu": hard_silu, "mish": mish,
})
_BY_NAME.update({
    f.__name__: f
    for f in (celu, glu, hard_shrink, hard_tanh, log_sigmoid, soft_shrink, sparse_plus,
              sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold)
})


# The name each built-in is written under in a config ('silu' for swish, as Keras 3).
_NAME_OF = {fn: name for name, fn in _BY_NAME.items()}


serialization.register_builtin_functions(_BY_NAME, _NAME_OF)


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
    return serialization.serialize_keras_object(activation)


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
    if isinstance(config, str):
        return get(config)
    return serialization.deserialize_keras_object(config, custom_objects, module_objects=_BY_NAME)


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
    return serialization.resolve_callable(identifier, "activation", _BY_NAME, _BY_NAME,
                                          none=linear, instantiate=False)
