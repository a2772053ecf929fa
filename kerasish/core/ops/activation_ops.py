"""Activations: sigmoid, the ReLU family, softplus, ELU and SELU, GELU, softsign, swish
and log-sigmoid, each with its gradient (as a primitive, or composed of primitives)."""

from __future__ import annotations

import math

import numpy as np

from kerasish.core.ops.math_ops import (
    abs,
    erfc,
    greater,
    less,
    logical_and,
    negative,
    tanh,
    unary,
    where,
)
from kerasish.core.tensor import convert_to_tensor


def sigmoid_values(x):
    """1 / (1 + e**-x) of an array, as a new array (0-d included), to a few ulp.

    e**-x overflows to inf only where the result is below the smallest normal
    number, so 0 is the right answer there. The 0.5 * (tanh(x / 2) + 1) form
    loses everything below ~1e-8 to cancellation, and NumPy's exp is
    vectorized where its tanh may not be.
    """
    flat = x.reshape(-1)  # at least 1-d: the steps below are in place on arrays
    with np.errstate(over="ignore"):
        s = np.exp(np.negative(flat))
    s += 1.0
    np.divide(1.0, s, out=s)
    return s.reshape(x.shape)


sigmoid = unary(
    "sigmoid",
    sigmoid_values,
    lambda x, y, dy: dy * y * (1.0 - y),
    "Logistic sigmoid 1 / (1 + e**-x), computed stably.",
    (
        "ks.sigmoid([0.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.5     , 0.880797]>",
    ),
    module=__name__,
)
relu = unary(
    "relu",
    lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
    lambda x, y, dy: where(greater(y, 0), dy, 0.0),  # the output: x may be freed, or fused
    "max(x, 0) elementwise.",
    ("ks.nn.relu([-1.0, 2.0])", "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0., 2.]>"),
    module=__name__,
)
softplus = unary(
    "softplus",
    lambda x: np.logaddexp(x, 0).astype(x.dtype, copy=False),
    lambda x, y, dy: dy * sigmoid(x),
    "log(1 + e**x), computed stably.",
    (
        "ks.math.softplus([0.0, 1.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[0.6931472, 1.3132617]>",
    ),
    module=__name__,
)
elu = unary(
    "elu",
    lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False),
    lambda x, y, dy: where(greater(x, 0), dy, dy * (y + 1.0)),
    "x if x > 0 else e**x - 1.",
    (
        "ks.nn.elu([-1.0, 2.0])",
        "<ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.63212055,  2.        ]>",
    ),
    module=__name__,
)


def leaky_relu(x, alpha: float = 0.2):
    """x if x > 0 else alpha * x.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.
        alpha: the slope for negative x.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.leaky_relu([-1.0, 2.0], alpha=0.1)
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.1,  2. ]>
    """
    x = convert_to_tensor(x)
    return where(greater(x, 0), x, x * alpha)


relu6 = unary(
    "relu6",
    lambda x: np.clip(x, 0, 6).astype(x.dtype, copy=False),
    lambda x, y, dy: where(logical_and(greater(x, 0), less(x, 6)), dy, 0.0),
    "min(max(x, 0), 6); the gradient is 0 at 0 and at 6, as in TF.",
    ("ks.nn.relu6([-1.0, 3.0, 8.0])", "<ks.Tensor: shape=(3,), dtype=float32, numpy=[0., 3., 6.]>"),
    module=__name__,
)

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """scale * (x if x > 0 else alpha * (e**x - 1)), the self-normalizing constants of
    Klambauer et al. (2017), as TF and Keras.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> f"{float(ks.nn.selu(1.0)):.6f}"
        '1.050701'
    """
    x = convert_to_tensor(x)
    return where(greater(x, 0), x, elu(x) * _SELU_ALPHA) * _SELU_SCALE


def gelu(features, approximate: bool = False):
    """Gaussian error linear unit x * P(X <= x) for a standard normal X (as tf.nn.gelu).

    Args:
        features: a floating tensor.
        approximate: False for the exact 0.5 * x * (1 + erf(x / sqrt(2))); True for the
            tanh approximation 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).

    Example:
        >>> import kerasish as ks
        >>> f"{float(ks.nn.gelu(1.0)):.6f} {float(ks.nn.gelu(1.0, approximate=True)):.6f}"
        '0.841345 0.841192'
    """
    x = convert_to_tensor(features)
    if approximate:
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * (tanh(inner) + 1.0) * 0.5
    # 1 + erf(x / sqrt(2)) written as erfc(-x / sqrt(2)): no cancellation for x << 0
    return x * erfc(x * -math.sqrt(0.5)) * 0.5


def softsign(x):
    """x / (1 + |x|).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype, in (-1, 1).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.softsign([-3.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[-0.75,  0.5 ]>
    """
    return x / (abs(x) + 1.0)


def swish(x):
    """x * sigmoid(x) (also called SiLU).

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.swish([0.0, 1.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[0.       , 0.7310586]>
    """
    x = convert_to_tensor(x)
    return x * sigmoid(x)


silu = swish


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), computed stably.

    Args:
        x: a tensor, or a number, list or array that `convert_to_tensor` takes.

    Returns:
        A tensor of x's shape and dtype; finite where sigmoid(x) rounds to 0.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.log_sigmoid([0.0, -100.0])
        <ks.Tensor: shape=(2,), dtype=float32, numpy=[  -0.6931472, -100.       ]>
    """
    return negative(softplus(negative(x)))


