"""Gradient tests: every differentiable primitive, composite ops, closed forms, stability, Hessians.

`SAMPLES` maps each differentiable primitive in `REGISTRY` to the cases that
exercise it; `test_primitive_gradients` is parametrized over the registry
itself, so a primitive registered without a sample entry makes it fail.
Every case is checked to order 2 with `ks.testing.check_gradients` (float64,
central finite differences along random directions), and each case must
actually run the primitive it is filed under.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    indexing_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    numpy_ops,
    product_ops,
    reduction_ops,
    rnn_ops,
    sampled_loss_ops,
    shape_ops,
    sorting_ops,
    statistics_ops,
)
from kerasish.core.primitive import NONDIFFERENTIABLE, REGISTRY, apply
from kerasish.testing import check_gradients

F32 = ks.float32
F64 = ks.float64
RNG = np.random.default_rng(20240607)


# ---------------------------------------------------------------- sample inputs


def normal(*shape, scale=1.0):
    """Standard normal float64 values."""
    return RNG.standard_normal(shape) * scale


def uniform(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


def positive(*shape, low=0.5, high=2.0):
    return RNG.uniform(low, high, shape)


def away_from_zero(*shape, low=0.2, high=1.5):
    """Values with |x| in [low, high] and random signs (never near a kink at 0)."""
    return RNG.uniform(low, high, shape) * RNG.choice([-1.0, 1.0], shape)


def distinct(*shape, gap=0.15):
    """Distinct values (no ties anywhere), pairwise at least `gap` apart, shuffled."""
    n = int(np.prod(shape)) if shape else 1
    values = (np.arange(n) - n / 2) * gap + RNG.uniform(0, gap / 4, n)
    return RNG.permutation(values).reshape(shape)


def apart(x, gap=0.2):
    """A second operand that differs from `x` by at least `gap` everywhere (no ties)."""
    return x + away_from_zero(*np.shape(x), low=gap, high=1.0)


class Case(NamedTuple):
    fn: Callable  # fn(*float_tensors, *other_inputs) -> tensor
    inputs: list  # float64 arrays: differentiated
    ints: tuple = ()  # integer or boolean arrays passed after them, not differentiated
    label: str = ""
    options: dict = {}  # check_gradients tolerances, only where float32 rounding needs them


def _patches_to_image(patches, image_shape, ksize, strides, padding):
    attrs = {"image_shape": image_shape, "ksize": ksize, "strides": strides, "padding": padding}
    return apply(REGISTRY["patches_to_image"], (patches,), attrs)


def _taps(name, inputs, padding, dilations, **shapes):
    attrs = {"padding": padding, "dilations": dilations, **shapes}
    return apply(REGISTRY[name], inputs, attrs)


def _blocks(name, inputs, strides, padding, dilations, **shapes):
    attrs = {"strides": strides, "padding": padding, "dilations": dilations, **shapes}
    return apply(REGISTRY[name], inputs, attrs)


def _mirror_unpad(padded, paddings, mode, shape):
    attrs = {"paddings": paddings, "mode": mode, "shape": shape}
    return apply(REGISTRY["mirror_unpad"], (padded,), attrs)


def _block_spread(blocks, image_shape, ksize, padding):
    attrs = {"image_shape": image_shape, "ksize": ksize, "padding": padding}
    return apply(REGISTRY["block_spread"], (blocks,), attrs)


def _max_pool_blocks_grad(x, dy, ksize, padding):
    """The max-pool gradient primitive applied to dy, for x and its pooled maximum."""
    attrs = {"ksize": ksize, "padding": padding}
    y = apply(REGISTRY["max_pool_blocks"], (x,), attrs)
    return apply(REGISTRY["max_pool_blocks_grad"], (x, y, dy), attrs)


def _flat(*tensors):
    """The tensors flattened and joined into one vector."""
    return ks.concat([ks.reshape(t, [-1]) for t in tensors], 0)


def _scatter_into(values, key, shape):
    return apply(REGISTRY["scatter_into"], (values,), {"key": key, "shape": shape})


# sampled logits: 3 examples, dim 4, 2 sampled rows; num_true 1 (with a log-Q offset) and
# 2 (with one masked logit, as an accidental hit is)
_OFFSET_T1 = normal(5)  # one per row: 3 label rows, 2 sampled
_MASK_T2 = np.zeros((3, 4), dtype=bool)
_MASK_T2[1, 3] = True


def _sampled_logits_t1(x, w, b):
    return sampled_loss_ops.sampled_logits(x, w, b, 1, offset=_OFFSET_T1)


def _sampled_logits_t2(x, w, b):
    return sampled_loss_ops.sampled_logits(x, w, b, 2, mask=_MASK_T2, fill=-30.0)


def _sampled_logits_grads(num_true, mask=None):
    """All three outputs of the sampled-logits gradient primitive, flattened into one tensor."""

    def fn(x, w, g):
        dx, dw, db = sampled_loss_ops.sampled_logits_grad(x, w, g, num_true, mask)
        return ks.concat([ks.reshape(dx, [-1]), ks.reshape(dw, [-1]), db], 0)

    return fn


def _transpose_grads(strides, padding, needs=(True, True)):
    """Both outputs of the transposed convolution's gradient primitive, as one tensor."""

    def fn(dy, y, w):
        attrs = {"needs": needs, "strides": strides, "padding": padding, "dilations": (1, 1)}
        d_input, d_filter = apply(REGISTRY["conv2d_transpose_grads"], (dy, y, w), attrs)
        return ks.concat([ks.reshape(d_input, [-1]), ks.reshape(d_filter, [-1])], 0)

    return fn


_X34 = normal(3, 4)

SAMPLES: dict[str, list[Case]] = {
    # -- binary arithmetic, with broadcasting: (3,4) with (4,), (3,1), () and (2,1,4) with (3,1)
    "add": [
        Case(ks.add, [normal(3, 4), normal(3, 4)], label="same shape"),
        Case(ks.add, [normal(3, 4), normal(4)], label="(3,4)+(4,)"),
        Case(ks.add, [normal(3, 1), normal(3, 4)], label="(3,1)+(3,4)"),
        Case(ks.add, [normal(2, 1, 4), normal(3, 1)], label="(2,1,4)+(3,1)"),
        Case(lambda x, y: x + y, [normal(3, 4), normal()], label="operator, scalar"),
        Case(lambda x: x + 2.5, [normal(3, 4)], label="Python scalar"),
    ],
    "subtract": [
        Case(ks.subtract, [normal(3, 4), normal(4)], label="(3,4)-(4,)"),
        Case(ks.subtract, [normal(3, 1), normal(3, 4)], label="(3,1)-(3,4)"),
        Case(lambda x: 1.5 - x, [normal(2, 3)], label="rsub"),
    ],
    "multiply": [
        Case(ks.multiply, [normal(3, 4), normal(4)], label="(3,4)*(4,)"),
        Case(ks.multiply, [normal(3, 1), normal(3, 4)], label="(3,1)*(3,4)"),
        Case(ks.multiply, [normal(2, 1, 4), normal(3, 1)], label="(2,1,4)*(3,1)"),
        Case(lambda x: x * x * x, [normal(5)], label="x*x*x"),
    ],
    "divide": [
        Case(ks.divide, [normal(3, 4), away_from_zero(4, low=0.5)], label="(3,4)/(4,)"),
        Case(ks.divide, [normal(3, 1), away_from_zero(3, 4, low=0.5)], label="(3,1)/(3,4)"),
        Case(lambda x: 2.0 / x, [away_from_zero(5, low=0.5)], label="rtruediv"),
    ],
    "pow": [
        Case(ks.pow, [positive(3, 4), normal(3, 4)], label="tensor ** tensor"),
        Case(ks.pow, [positive(3, 4), normal(4)], label="(3,4)**(4,)"),
        Case(ks.pow, [positive(3, 1), normal(3, 4)], label="(3,1)**(3,4)"),
        Case(lambda x: x**3, [normal(2, 3)], label="x**3, any sign"),
        Case(lambda x: x**0.5, [positive(4)], label="x**0.5"),
        Case(lambda y: 2.0**y, [normal(4)], label="2**y"),
    ],
    "maximum": [
        Case(ks.maximum, [_X34, apart(_X34)], label="same shape, no ties"),
        Case(ks.maximum, [distinct(3, 4), distinct(4) + 0.07], label="(3,4) with (4,)"),
        Case(ks.maximum, [distinct(3, 1) + 0.05, distinct(3, 4)], label="(3,1) with (3,4)"),
        Case(lambda x: ks.maximum(x, 0.1), [away_from_zero(3, 4, low=0.3)], label="scalar"),
    ],
    "minimum": [
        Case(ks.minimum, [_X34, apart(_X34)], label="same shape, no ties"),
        Case(ks.minimum, [distinct(3, 4), distinct(4) + 0.07], label="(3,4) with (4,)"),
        Case(ks.minimum, [distinct(3, 1) + 0.05, distinct(3, 4)], label="(3,1) with (3,4)"),
        Case(lambda x: ks.minimum(x, 0.1), [away_from_zero(3, 4, low=0.3)], label="scalar"),
    ],
    # -- unary math
    "negative": [Case(ks.negative, [normal(3, 4)]), Case(lambda x: -x, [normal(2)])],
    "abs": [
        Case(ks.abs, [away_from_zero(3, 4, low=0.1)]),
        Case(lambda x: abs(x) * x, [away_from_zero(5)]),
    ],
    "square": [Case(ks.square, [normal(3, 4)])],
    "sqrt": [Case(ks.sqrt, [positive(3, 4)])],
    "rsqrt": [Case(ks.rsqrt, [positive(3, 4)])],
    "reciprocal": [Case(ks.reciprocal, [away_from_zero(3, 4, low=0.4)])],
    "exp": [Case(ks.exp, [normal(3, 4)])],
    "expm1": [
        Case(ks.expm1, [normal(3, 4)]),
        Case(ks.expm1, [normal(4, scale=1e-3)], label="near 0"),
    ],
    "log": [Case(ks.log, [positive(3, 4)])],
    "log1p": [Case(ks.log1p, [uniform(3, 4, low=-0.5, high=2.0)])],
    "sin": [Case(ks.sin, [normal(3, 4)])],
    "cos": [Case(ks.cos, [normal(3, 4)])],
    "tanh": [
        Case(ks.tanh, [normal(3, 4)]),
        Case(ks.tanh, [np.array([-6.0, -3.0, 3.0, 6.0])], label="large"),
    ],
    "sigmoid": [
        Case(ks.sigmoid, [normal(3, 4, scale=2.0)]),
        Case(ks.sigmoid, [np.array([-12.0, -6.0, 6.0, 12.0])], label="large |x|"),
    ],
    "relu": [
        Case(ks.nn.relu, [away_from_zero(3, 4, low=0.1)]),
        Case(lambda x: ks.nn.relu(x) ** 2, [away_from_zero(6)]),
    ],
    "softplus": [
        Case(ks.nn.softplus, [normal(3, 4, scale=2.0)]),
        Case(ks.nn.softplus, [np.array([-20.0, -8.0, 8.0, 20.0])], label="large |x|"),
    ],
    "elu": [
        Case(ks.nn.elu, [away_from_zero(3, 4, low=0.1)]),
        Case(ks.nn.elu, [np.array([-15.0, -4.0, 4.0, 15.0])], label="large |x|"),
    ],
    "relu6": [
        Case(ks.nn.relu6, [np.array([-1.0, 0.5, 3.0, 5.5, 7.0])]),
        Case(lambda x: ks.nn.relu6(x * x), [uniform(3, 4, low=-3.0, high=3.0)], label="of x*x"),
    ],
    # erf and erfc switch from a series to a continued fraction at |x| = 2
    "erf": [
        Case(math_ops.erf, [normal(3, 4)]),
        Case(math_ops.erf, [np.array([-3.5, -2.2, -1.9, 1.95, 2.05, 4.0])], label="both sides"),
        Case(lambda x: math_ops.erf(x * x) * x, [normal(5)], label="of x*x"),
    ],
    "erfc": [
        Case(math_ops.erfc, [normal(3, 4)]),
        Case(math_ops.erfc, [np.array([-3.5, -2.2, -1.9, 1.95, 2.05, 4.0])], label="both sides"),
        Case(ks.nn.gelu, [normal(3, 4, scale=2.0)], label="gelu"),
    ],
    # -- cast and select
    "cast": [
        # float64 -> float32 -> float64: float32 rounding (~6e-8 relative) limits the finite
        # differences, hence a larger step and tolerance for this case only.
        Case(
            lambda x: ks.cast(ks.cast(x, F32), F64) ** 2,
            [positive(3, 4)],
            label="float64 -> float32 -> float64",
            options={"eps": 1e-3, "rtol": 1e-3, "atol": 1e-6},
        ),
        Case(
            lambda x, y: ks.cast(ks.cast(x, F32) * ks.cast(y, F32), F64) * x,
            [positive(3), positive(3)],
            label="float32 products cast back",
            options={"eps": 1e-3, "rtol": 1e-3, "atol": 1e-6},
        ),
    ],
    "where": [
        Case(
            lambda x, y, c: ks.where(c, x, y),
            [normal(3, 4), normal(3, 4)],
            (RNG.random((3, 4)) > 0.5,),
        ),
        Case(
            lambda x, y, c: ks.where(c, x, y),
            [normal(3, 4), normal(4)],
            (RNG.random((3, 1)) > 0.5,),
            "broadcast",
        ),
        Case(
            lambda x: ks.where(ks.greater(x, 0.0), x * x, ks.sin(x)),
            [away_from_zero(3, 4)],
            label="data-dependent",
        ),
        Case(
            lambda x: ks.where(ks.greater(x, 0.0), x, 0.5),
            [away_from_zero(3, 4)],
            label="scalar branch",
        ),
    ],
    # -- reductions
    "broadcast_reduced": [
        Case(lambda x: reduction_ops.broadcast_reduced(x, (1,), (3, 4, 2)), [normal(3, 2)],
             label="axis 1"),
        Case(lambda x: reduction_ops.broadcast_reduced(x, (0, 2), (2, 3, 4)), [normal(1, 3, 1)],
             label="keepdims"),
        Case(lambda x: reduction_ops.broadcast_reduced(x, None, (2, 3)) * x, [normal()],
             label="all axes"),
    ],
    "reduce_sum": [
        Case(ks.reduce_sum, [normal(3, 4)], label="all"),
        Case(lambda x: ks.reduce_sum(x, 1), [normal(3, 4)], label="axis 1"),
        Case(
            lambda x: ks.reduce_sum(x, -1, keepdims=True), [normal(3, 4)], label="axis -1 keepdims"
        ),
        Case(
            lambda x: ks.reduce_sum(x, (0, 2), keepdims=True),
            [normal(2, 3, 4)],
            label="(0,2) keepdims",
        ),
        Case(
            lambda x: ks.reduce_sum(x, None, keepdims=True) * x,
            [normal(2, 3)],
            label="all keepdims",
        ),
    ],
    "reduce_max": [
        Case(ks.reduce_max, [distinct(3, 4)], label="all"),
        Case(lambda x: ks.reduce_max(x, 0), [distinct(3, 4)], label="axis 0"),
        Case(
            lambda x: ks.reduce_max(x, (0, 2), keepdims=True),
            [distinct(2, 3, 4)],
            label="(0,2) keepdims",
        ),
        Case(lambda x: ks.reduce_max(x * x, -1), [distinct(3, 4) + 0.05], label="of x*x"),
    ],
    "reduce_min": [
        Case(ks.reduce_min, [distinct(3, 4)], label="all"),
        Case(
            lambda x: ks.reduce_min(x, 1, keepdims=True), [distinct(3, 4)], label="axis 1 keepdims"
        ),
        Case(lambda x: ks.reduce_min(x, (1, 2)), [distinct(2, 3, 4)], label="(1,2)"),
    ],
    "reduce_logsumexp": [
        Case(ks.reduce_logsumexp, [normal(3, 4)], label="all"),
        Case(lambda x: ks.reduce_logsumexp(x, 1), [normal(3, 4)], label="axis 1"),
        Case(
            lambda x: ks.reduce_logsumexp(x, 0, keepdims=True),
            [normal(3, 4)],
            label="axis 0 keepdims",
        ),
        Case(lambda x: ks.reduce_logsumexp(x, (0, 2)), [normal(2, 3, 4)], label="(0,2)"),
        Case(
            lambda x: ks.reduce_logsumexp(x, None, keepdims=True),
            [normal(2, 3)],
            label="all keepdims",
        ),
    ],
    # -- cumulative sums and products, every mode; products with zeros in the rows
    "cumsum": [
        Case(lambda x: ks.cumsum(x, 1) ** 2, [normal(3, 4)], label="axis 1"),
        Case(lambda x: ks.cumsum(x * x, 0, exclusive=True), [normal(3, 4)], label="exclusive"),
        Case(lambda x: ks.cumsum(x, -1, reverse=True) ** 2, [normal(2, 3)], label="reverse"),
        Case(
            lambda x: ks.cumsum(x, 1, exclusive=True, reverse=True) ** 2,
            [normal(2, 4)],
            label="exclusive reverse",
        ),
    ],
    "cumprod": [
        Case(lambda x: ks.cumprod(x, 1), [normal(3, 4)], label="axis 1"),
        Case(lambda x: ks.cumprod(x, 0, exclusive=True, reverse=True), [normal(3, 4)],
             label="exclusive reverse"),
        Case(
            lambda x: ks.cumprod(x, 1),
            [np.array([[0.0, 1.5, -0.7, 2.0], [0.8, 0.0, 1.3, 0.0], [1.1, -0.9, 0.6, 0.0]])],
            label="zeros: first, repeated, last",
        ),
        Case(
            lambda x: ks.reduce_prod(x, 1),
            [np.array([[1.2, 0.0, -0.7, 2.0], [0.0, 0.0, 1.3, 0.5], [1.1, -0.9, 0.6, 1.4]])],
            label="reduce_prod, with zeros",
        ),
        Case(lambda x: ks.reduce_prod(x, (0, 2), keepdims=True), [normal(2, 3, 2)],
             label="reduce_prod (0,2)"),
    ],
    # -- matmul: every transpose combination, batched, broadcast batch dimensions
    "matmul": [
        Case(ks.matmul, [normal(3, 4), normal(4, 2)], label="plain"),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_a=True), [normal(4, 3), normal(4, 2)], label="ta"
        ),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_b=True), [normal(3, 4), normal(2, 4)], label="tb"
        ),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_a=True, transpose_b=True),
            [normal(4, 3), normal(2, 4)],
            label="ta tb",
        ),
        Case(ks.matmul, [normal(2, 3, 4), normal(2, 4, 5)], label="batched"),
        Case(ks.matmul, [normal(2, 3, 4), normal(4, 5)], label="batch x matrix"),
        Case(ks.matmul, [normal(3, 4), normal(2, 4, 5)], label="matrix x batch"),
        Case(ks.matmul, [normal(2, 1, 3, 4), normal(3, 4, 2)], label="broadcast batch dims"),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_a=True, transpose_b=True),
            [normal(1, 4, 3), normal(2, 5, 4)],
            label="broadcast batch, ta tb",
        ),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_a=True),
            [normal(2, 4, 3), normal(1, 4, 2)],
            label="broadcast batch, ta",
        ),
        Case(
            lambda a, b: ks.matmul(a, b, transpose_b=True),
            [normal(2, 3, 4), normal(2, 4)],
            label="batch x matrix, tb",
        ),
        Case(lambda a: a @ a, [normal(3, 3)], label="a @ a"),
    ],
    # -- shape ops
    "identity": [Case(ks.identity, [normal(3, 4)])],
    "copy_to_device": [Case(lambda x: (x * x).cpu(), [normal(3, 4)], label="to /cpu:0")],
    "reshape": [
        Case(lambda x: ks.reshape(x, (4, 3)), [normal(3, 4)]),
        Case(lambda x: ks.reshape(x, (-1,)) ** 2, [normal(2, 3, 2)], label="flatten"),
        Case(lambda x: ks.expand_dims(x, 1), [normal(3, 4)], label="expand_dims"),
        Case(lambda x: ks.squeeze(x), [normal(3, 1, 4, 1)], label="squeeze"),
    ],
    "transpose": [
        Case(ks.transpose, [normal(3, 4)], label="default"),
        Case(lambda x: ks.transpose(x, (1, 2, 0)), [normal(2, 3, 4)], label="perm (1,2,0)"),
        Case(lambda x: ks.transpose(x * x, (2, 0, 1)), [normal(2, 3, 4)], label="perm (2,0,1)"),
        Case(lambda x: x.T, [normal(3, 4)], label=".T"),
    ],
    "broadcast_to": [
        Case(lambda x: ks.broadcast_to(x, (3, 4)), [normal(4)], label="(4,)->(3,4)"),
        Case(lambda x: ks.broadcast_to(x, (2, 3, 4)), [normal(3, 1)], label="(3,1)->(2,3,4)"),
        Case(lambda x: ks.broadcast_to(x, (2, 3)), [normal()], label="()->(2,3)"),
        Case(lambda x: ks.broadcast_to(x * x, (2, 3, 4)), [normal(1, 4)], label="of x*x"),
    ],
    "concat": [
        Case(
            lambda a, b, c: ks.concat([a, b, c], 1),
            [normal(2, 1), normal(2, 3), normal(2, 2)],
            label="axis 1",
        ),
        Case(lambda a, b: ks.concat([a, b], 0), [normal(1, 3), normal(2, 3)], label="axis 0"),
        Case(
            lambda a, b: ks.concat([a * b, b], -1),
            [normal(2, 3), normal(2, 3)],
            label="axis -1, shared",
        ),
    ],
    "split": [
        Case(lambda x: ks.split(x, [1, 3], 1)[1], [normal(2, 4)], label="sizes, one piece used"),
        Case(
            lambda x: ks.concat([p * p for p in ks.split(x, 3, 0)], 1),
            [normal(3, 2)],
            label="equal parts, all used",
        ),
        Case(lambda x: ks.stack(ks.unstack(x * x, axis=1)[::-1], 0), [normal(2, 3)],
             label="unstack"),
    ],
    "tile": [
        Case(lambda x: ks.tile(x, (2, 3)), [normal(2, 3)]),
        Case(lambda x: ks.tile(x * x, (1, 2, 2)), [normal(2, 1, 3)], label="rank 3"),
    ],
    "pad": [
        Case(lambda x: ks.pad(x, [[1, 2], [0, 1]]), [normal(2, 3)]),
        Case(
            lambda x: ks.pad(x * x, [[0, 0], [2, 1], [1, 1]], constant_values=3.0),
            [normal(1, 2, 3)],
            label="constant 3",
        ),
    ],
    "mirror_pad": [
        Case(lambda x: ks.pad(x, [[1, 2], [2, 0]], mode="REFLECT"), [normal(3, 4)],
             label="REFLECT"),
        Case(lambda x: ks.pad(x * x, [[0, 3], [2, 2]], mode="SYMMETRIC"), [normal(3, 4)],
             label="SYMMETRIC, full size"),
    ],
    "mirror_unpad": [
        Case(lambda g: _mirror_unpad(g, ((1, 2), (2, 0)), "REFLECT", (3, 4)), [normal(6, 6)],
             label="REFLECT"),
        Case(lambda g: _mirror_unpad(g * g, ((0, 3), (2, 2)), "SYMMETRIC", (3, 4)),
             [normal(6, 8)], label="SYMMETRIC"),
    ],
    # -- indexing
    "getitem": [
        Case(lambda x: x[1], [normal(3, 4)], label="int"),
        Case(lambda x: x[-1, 2], [normal(3, 4)], label="two ints"),
        Case(lambda x: x[1:, ::2], [normal(3, 4)], label="slices"),
        Case(lambda x: x[::-1, 1:3], [normal(3, 4)], label="negative step"),
        Case(lambda x: x[None, ..., 1], [normal(2, 3, 4)], label="None and Ellipsis"),
        Case(lambda x: x[np.array([0, 2, 0, 0])], [normal(3, 4)], label="int array, duplicates"),
        Case(
            lambda x, i: x[:, i],
            [normal(3, 4)],
            (np.array([[1, 1], [3, 0]]),),
            "slice + 2-D int tensor",
        ),
        Case(
            lambda x: x[np.array([0, 2, 2]), :, np.array([1, 1, 3])],
            [normal(3, 2, 4)],
            label="split advanced",
        ),
        Case(lambda x, m: x[m], [normal(3, 4)], (RNG.random((3, 4)) > 0.4,), "boolean mask"),
        Case(lambda x: x[np.array([True, False, True])], [normal(3, 4)], label="boolean rows"),
        Case(
            lambda x: ks.unstack(x)[1] * ks.split(x, [1, 3], axis=1)[1][0, 0],
            [normal(2, 4)],
            label="unstack/split",
        ),
    ],
    "scatter_into": [
        Case(lambda v: _scatter_into(v, (slice(1, 3), 2), (4, 3)), [normal(2)], label="basic key"),
        Case(
            lambda v: _scatter_into(v * v, (np.array([0, 3, 0]),), (4, 3)),
            [normal(3, 3)],
            label="duplicates",
        ),
        Case(
            lambda v: _scatter_into(v, np.array([[True, False], [True, True]]), (2, 2)),
            [normal(3)],
            label="boolean mask",
        ),
    ],
    "gather": [
        Case(lambda p, i: ks.gather(p, i), [normal(5, 3)], (np.array([0, 2, 2, 4]),), "duplicates"),
        Case(
            lambda p, i: ks.gather(p * p, i),
            [normal(4, 2)],
            (np.array([[3, 1], [1, 1]]),),
            "2-D ids of p*p",
        ),
        Case(
            lambda p, i: ks.gather(p, i, axis=1),
            [normal(2, 4, 3)],
            (np.array([3, 0, 3]),),
            "axis 1",
        ),
        Case(lambda p: ks.gather(p, 2), [normal(4, 3)], label="scalar index"),
        Case(
            lambda p, i: ks.gather(p, i) ** 3,
            [normal(4, 2)],
            (np.array([1, 3, 1]),),
            "cubed: 2nd order via slices",
        ),
        Case(
            lambda p: ks.gather(p, [0, 2]) * ks.gather(p, [2, 2]),
            [normal(3, 2)],
            label="two gathers of one params",
        ),
        Case(
            lambda p, i: ks.nn.embedding_lookup(p, i),
            [normal(6, 2)],
            (np.array([5, 0, 5]),),
            "embedding",
        ),
        Case(
            lambda p: ks.boolean_mask(p, np.array([True, False, True])),
            [normal(3, 2)],
            label="boolean_mask",
        ),
    ],
    "scatter_rows": [
        Case(lambda v, i: ks.scatter_rows(v, i, 5), [normal(4, 2)], (np.array([0, 3, 3, 1]),)),
        Case(
            lambda v, i: ks.unsorted_segment_sum(v * v, i, 3),
            [normal(4)],
            (np.array([2, 2, 0, 1]),),
            "segment sum",
        ),
    ],
    # -- softmax family and cross-entropies
    "softmax": [
        Case(ks.nn.softmax, [normal(3, 4)], label="axis -1"),
        Case(lambda x: ks.nn.softmax(x, axis=0), [normal(3, 4)], label="axis 0"),
        Case(lambda x: ks.nn.softmax(x, axis=1), [normal(2, 3, 2)], label="rank 3, axis 1"),
    ],
    "log_softmax": [
        Case(ks.nn.log_softmax, [normal(3, 4)], label="axis -1"),
        Case(lambda x: ks.nn.log_softmax(x, axis=0), [normal(3, 4)], label="axis 0"),
    ],
    "softmax_cross_entropy_with_logits": [
        Case(
            lambda logits, labels: ks.nn.softmax_cross_entropy_with_logits(labels, logits),
            [normal(3, 4)],
            (np.eye(4)[[0, 3, 1]],),
            "one-hot labels",
        ),
        Case(
            lambda logits, labels: ks.nn.softmax_cross_entropy_with_logits(labels, logits),
            [normal(3, 4), positive(3, 4)],
            label="soft labels (not normalized), both differentiated",
        ),
        Case(
            lambda logits, labels: ks.nn.softmax_cross_entropy_with_logits(labels, logits, axis=0),
            [normal(4, 3), positive(4, 3)],
            label="axis 0",
        ),
    ],
    "sparse_softmax_cross_entropy_with_logits": [
        Case(
            lambda logits, labels: ks.nn.sparse_softmax_cross_entropy_with_logits(labels, logits),
            [normal(3, 4)],
            (np.array([0, 3, 3]),),
        ),
        Case(
            lambda logits, labels: ks.nn.sparse_softmax_cross_entropy_with_logits(labels, logits),
            [normal(2, 2, 3)],
            (np.array([[2, 0], [1, 1]]),),
            "rank 3",
        ),
    ],
    "sparse_softmax_cross_entropy_grad": [
        Case(
            lambda logits, dy, labels: nn_ops.sparse_softmax_cross_entropy_grad(labels, logits, dy),
            [normal(3, 4), normal(3)],
            (np.array([0, 3, 3]),),
        ),
        Case(
            lambda logits, dy, labels: nn_ops.sparse_softmax_cross_entropy_grad(labels, logits, dy),
            [normal(2, 2, 3), normal(2, 2)],
            (np.array([[2, 0], [1, 1]]),),
            "rank 3",
        ),
    ],
    # -- patches (im2col) and their adjoint
    "extract_patches": [
        Case(
            lambda x: ks.nn.extract_patches(x, (2, 3), 1, "VALID"),
            [normal(1, 4, 5, 2)],
            label="VALID s1",
        ),
        Case(
            lambda x: ks.nn.extract_patches(x, (3, 2), 2, "VALID"),
            [normal(2, 5, 4, 1)],
            label="VALID s2",
        ),
        Case(
            lambda x: ks.nn.extract_patches(x, (2, 3), 1, "SAME"),
            [normal(1, 4, 4, 2)],
            label="SAME s1",
        ),
        Case(
            lambda x: ks.nn.extract_patches(x * x, (3, 3), (2, 1), "SAME"),
            [normal(1, 5, 4, 1)],
            label="SAME s(2,1)",
        ),
        Case(  # kw * channels >= 16: the strided-view copy
            lambda x: ks.nn.extract_patches(x * x, (2, 3), (1, 2), "SAME"),
            [normal(1, 4, 5, 8)],
            label="SAME s(1,2), 8 channels",
        ),
        Case(
            lambda x: ks.nn.extract_patches(x * x, (2, 2), 1, "VALID", dilations=(2, 3)),
            [normal(1, 5, 6, 2)],
            label="VALID dilated",
        ),
        Case(
            lambda x: ks.nn.extract_patches(x, (3, 2), (2, 1), "SAME", dilations=2),
            [normal(1, 5, 4, 8)],
            label="SAME dilated, strided view",
        ),
    ],
    "patches_to_image": [
        Case(
            lambda p: _patches_to_image(p, (1, 4, 5, 2), (2, 3), (1, 1), "VALID"),
            [normal(1, 3, 3, 2, 3, 2)],
            label="VALID s1",
        ),
        Case(
            lambda p: _patches_to_image(p * p, (1, 5, 4, 1), (3, 2), (2, 2), "VALID"),
            [normal(1, 2, 2, 3, 2, 1)],
            label="VALID s2",
        ),
        Case(
            lambda p: _patches_to_image(p, (1, 4, 4, 1), (3, 2), (2, 1), "SAME"),
            [normal(1, 2, 4, 3, 2, 1)],
            label="SAME",
        ),
        Case(
            lambda p: ks.nn.patches_to_image(p * p, (1, 5, 6, 2), (2, 2), 1, "VALID", (2, 3)),
            [normal(1, 3, 3, 2, 2, 2)],
            label="VALID dilated",
        ),
    ],
    "extract_volume_patches": [
        Case(
            lambda x: ks.nn.extract_volume_patches(x, (2, 3, 2), 1, "VALID"),
            [normal(1, 3, 4, 3, 2)],
            label="VALID s1",
        ),
        Case(
            lambda x: ks.nn.extract_volume_patches(x * x, (2, 2, 3), (2, 1, 2), "SAME",
                                                   dilations=(1, 2, 1)),
            [normal(1, 3, 4, 4, 1)],
            label="SAME strided, dilated",
        ),
    ],
    "patches_to_volume": [
        Case(
            lambda p: ks.nn.patches_to_volume(p, (1, 3, 4, 3, 2), (2, 3, 2), 1, "VALID"),
            [normal(1, 2, 2, 2, 2, 3, 2, 2)],
            label="VALID s1",
        ),
        Case(
            lambda p: ks.nn.patches_to_volume(p * p, (1, 4, 3, 3, 1), 2, 2, "SAME"),
            [normal(1, 2, 2, 2, 2, 2, 2, 1)],
            label="SAME s2",
        ),
    ],
    "conv2d_taps": [
        Case(lambda x, w: _taps("conv2d_taps", (x, w), "SAME", (1, 1)),
             [normal(1, 4, 5, 2), normal(2, 3, 2, 3)], label="SAME"),
        Case(lambda x, w: _taps("conv2d_taps", (x, w), "VALID", (2, 1)),
             [normal(2, 5, 4, 2), normal(2, 2, 2, 3)], label="VALID dilated"),
        Case(lambda x, w, b: _taps("conv2d_taps", (x, w, b), "SAME", (1, 1)),
             [normal(1, 4, 5, 2), normal(2, 3, 2, 3), normal(3)], label="SAME, fused bias"),
        Case(lambda x, w, b: _taps("conv2d_taps", (x, w, b), "SAME", (1, 1)),
             [normal(2, 2, 6, 2), normal(1, 5, 2, 3), normal(3)],
             label="one filter row (Winograd with numba), fused bias"),
    ],
    "conv2d_taps_input_grad": [
        Case(lambda dy, w: _taps("conv2d_taps_input_grad", (dy, w), "SAME", (1, 1),
                                 image_shape=(1, 4, 5, 2)),
             [normal(1, 4, 5, 3), normal(2, 3, 2, 3)], label="SAME"),
        Case(lambda dy, w: _taps("conv2d_taps_input_grad", (dy, w), "VALID", (2, 1),
                                 image_shape=(2, 5, 4, 2)),
             [normal(2, 3, 3, 3), normal(2, 2, 2, 3)], label="VALID dilated"),
        Case(lambda dy, w: _taps("conv2d_taps_input_grad", (dy, w), "VALID", (1, 1),
                                 image_shape=(2, 2, 7, 2)),
             [normal(2, 2, 4, 3), normal(1, 4, 2, 3)], label="one filter row (Winograd)"),
    ],
    "conv2d_taps_filter_grad": [
        Case(lambda x, dy: _taps("conv2d_taps_filter_grad", (x, dy), "SAME", (1, 1),
                                 filter_shape=(2, 3, 2, 3)),
             [normal(1, 4, 5, 2), normal(1, 4, 5, 3)], label="SAME"),
        Case(lambda x, dy: _taps("conv2d_taps_filter_grad", (x, dy), "VALID", (2, 1),
                                 filter_shape=(2, 2, 2, 3)),
             [normal(2, 5, 4, 2), normal(2, 3, 3, 3)], label="VALID dilated"),
        Case(lambda x, dy: _taps("conv2d_taps_filter_grad", (x, dy), "SAME", (1, 1),
                                 filter_shape=(1, 3, 2, 3)),
             [normal(2, 2, 6, 2), normal(2, 2, 6, 3)], label="one filter row (Winograd)"),
    ],
    "conv2d_blocks": [
        Case(lambda x, w: _blocks("conv2d_blocks", (x, w), (2, 1), "SAME", (1, 1)),
             [normal(2, 5, 4, 2), normal(3, 2, 2, 3)], label="SAME s(2,1)"),
        Case(lambda x, w: _blocks("conv2d_blocks", (x, w), (1, 1), "VALID", (1, 2)),
             [normal(1, 4, 5, 2), normal(2, 2, 2, 3)], label="VALID dilated"),
        Case(lambda x, w, b: _blocks("conv2d_blocks", (x, w, b), (2, 2), "SAME", (1, 1)),
             [normal(2, 5, 4, 2), normal(3, 2, 2, 3), normal(3)], label="SAME s2, fused bias"),
    ],
    "conv2d_blocks_input_grad": [
        Case(lambda dy, w: _blocks("conv2d_blocks_input_grad", (dy, w), (2, 1), "SAME", (1, 1),
                                   image_shape=(2, 5, 4, 2)),
             [normal(2, 3, 4, 3), normal(3, 2, 2, 3)], label="SAME s(2,1)"),
        Case(lambda dy, w: _blocks("conv2d_blocks_input_grad", (dy, w), (2, 2), "VALID", (1, 1),
                                   image_shape=(1, 5, 5, 2)),
             [normal(1, 2, 2, 3), normal(2, 2, 2, 3)], label="VALID s2"),
    ],
    "conv2d_blocks_filter_grad": [
        Case(lambda x, dy: _blocks("conv2d_blocks_filter_grad", (x, dy), (2, 1), "SAME", (1, 1),
                                   filter_shape=(3, 2, 2, 3)),
             [normal(2, 5, 4, 2), normal(2, 3, 4, 3)], label="SAME s(2,1)"),
        Case(lambda x, dy: _blocks("conv2d_blocks_filter_grad", (x, dy), (1, 1), "VALID", (1, 2),
                                   filter_shape=(2, 2, 2, 3)),
             [normal(1, 4, 5, 2), normal(1, 3, 3, 3)], label="VALID dilated"),
    ],
    "conv2d_transpose_grads": [
        Case(_transpose_grads((2, 2), "SAME"),
             [normal(2, 5, 4, 2), normal(2, 3, 2, 3), normal(3, 2, 2, 3)], label="SAME s2"),
        Case(_transpose_grads((1, 2), "VALID", (False, True)),
             [normal(1, 4, 5, 2), normal(1, 2, 2, 3), normal(3, 2, 2, 3)],
             label="VALID s(1,2), filters' gradient only"),
    ],
    "conv2d_transpose": [
        Case(
            lambda y, w, b: ks.nn.conv2d_transpose(y, w, (2, 5, 4, 2), 2, "SAME", bias=b),
            [normal(2, 3, 2, 3), normal(3, 2, 2, 3), normal(2)],
            label="SAME s2, fused bias",
        ),
        Case(  # the bias also fills a phase that no filter tap reaches
            lambda y, w, b: ks.nn.conv2d_transpose(y, w, (1, 7, 4, 1), (3, 1), "VALID", bias=b),
            [normal(1, 2, 3, 2), normal(2, 2, 1, 2), normal(1)],
            label="VALID s(3,1), fused bias",
        ),
        Case(
            lambda y, w: ks.nn.conv2d_transpose(y, w, (1, 5, 4, 2), 2, "SAME"),
            [normal(1, 3, 2, 3), normal(3, 2, 2, 3)],
            label="SAME s2",
        ),
        Case(  # taps that share a stride phase overlap; a phase no tap reaches stays zero
            lambda y, w: ks.nn.conv2d_transpose(y * y, w, (2, 7, 4, 1), (3, 1), "VALID"),
            [normal(2, 2, 3, 2), normal(2, 2, 1, 2)],
            label="VALID s(3,1)",
        ),
        Case(
            lambda y, w: ks.nn.conv2d_transpose(y, w * w, (1, 5, 6, 2), 1, "VALID", (2, 3)),
            [normal(1, 3, 3, 1), normal(2, 2, 2, 1)],
            label="VALID dilated",
        ),
        Case(
            lambda y, w: ks.nn.conv2d_transpose(y, w, (1, 6, 5, 2), (2, 2), "SAME", 2),
            [normal(1, 3, 3, 2), normal(2, 3, 2, 2)],
            label="SAME s2 dilated",
        ),
    ],
    # -- pooling over windows that tile the image (strides == ksize)
    "max_pool_blocks": [
        Case(lambda x: ks.nn.max_pool2d(x, 2, 2, "VALID"), [distinct(2, 5, 4, 2)], label="VALID"),
        Case(
            lambda x: ks.nn.max_pool2d(x, (3, 2), (3, 2), "SAME") ** 2,
            [distinct(1, 5, 5, 2)],
            label="SAME, squared",
        ),
    ],
    "max_pool_blocks_grad": [
        Case(
            lambda x, dy: _max_pool_blocks_grad(x, dy, (2, 2), "VALID") ** 2,
            [distinct(2, 5, 4, 2), normal(2, 2, 2, 2)],
            label="VALID",
        ),
        Case(
            lambda x, dy: _max_pool_blocks_grad(x * x, dy, (3, 2), "SAME"),
            [distinct(1, 5, 5, 2), normal(1, 2, 3, 2)],
            label="SAME",
        ),
    ],
    "block_sum": [
        Case(lambda x: ks.nn.avg_pool2d(x, 2, 2, "VALID"), [normal(2, 5, 4, 2)], label="VALID"),
        Case(
            lambda x: ks.nn.avg_pool2d(x * x, (2, 3), (2, 3), "SAME"),
            [normal(1, 5, 4, 1)],
            label="SAME",
        ),
    ],
    "sampled_logits": [
        Case(_sampled_logits_t1, [normal(3, 4), normal(5, 4), normal(5)], label="num_true 1"),
        Case(_sampled_logits_t2, [normal(3, 4), normal(8, 4), normal(8)], label="num_true 2, mask"),
    ],
    "sampled_logits_grad": [
        Case(_sampled_logits_grads(1), [normal(3, 4), normal(5, 4), normal(3, 3)],
             label="num_true 1"),
        Case(_sampled_logits_grads(2, _MASK_T2), [normal(3, 4), normal(8, 4), normal(3, 4)],
             label="num_true 2, mask"),
    ],
    "sigmoid_cross_entropy": [
        Case(
            lambda logits, labels: ks.nn.sigmoid_cross_entropy_with_logits(labels, logits),
            [away_from_zero(3, 4, low=0.1, high=3.0), uniform(3, 4, low=0.0, high=1.0)],
        ),
        # smooth everywhere, so it must be right at 0 too (zero-initialized logits are common)
        Case(
            lambda logits, labels: ks.nn.sigmoid_cross_entropy_with_logits(labels, logits),
            [np.array([0.0, 0.0, 0.0, 1e-9, -1e-9]), np.array([0.0, 1.0, 0.3, 0.6, 0.6])],
            label="at 0",
        ),
    ],
    "sigmoid_cross_entropy_grad": [
        Case(
            lambda labels, logits, dy: nn_ops.sigmoid_cross_entropy_grad(labels, logits, dy),
            [uniform(3, 4, low=0.0, high=1.0), normal(3, 4, scale=2.0), normal(3, 4)],
        ),
    ],
    "block_spread": [
        Case(
            lambda b: _block_spread(b * b, (1, 5, 4, 2), (2, 2), "VALID"),
            [normal(1, 2, 2, 2)],
            label="VALID",
        ),
        Case(
            lambda b: _block_spread(b, (2, 5, 4, 1), (3, 3), "SAME"),
            [normal(2, 2, 2, 1)],
            label="SAME",
        ),
    ],
    # -- trigonometric and hyperbolic, inside each one's domain
    "tan": [Case(ks.math.tan, [uniform(3, 4, low=-1.2, high=1.2)])],
    "sinh": [Case(ks.math.sinh, [normal(3, 4)])],
    "cosh": [Case(ks.math.cosh, [normal(3, 4)])],
    "asin": [Case(ks.math.asin, [uniform(3, 4, low=-0.9, high=0.9)])],
    "acos": [Case(ks.math.acos, [uniform(3, 4, low=-0.9, high=0.9)])],
    "atan": [Case(ks.math.atan, [normal(3, 4, scale=2.0)])],
    "asinh": [Case(ks.math.asinh, [normal(3, 4, scale=2.0)])],
    "acosh": [Case(ks.math.acosh, [uniform(3, 4, low=1.2, high=3.0)])],
    "atanh": [Case(ks.math.atanh, [uniform(3, 4, low=-0.8, high=0.8)])],
    "atan2": [
        Case(ks.math.atan2, [away_from_zero(3, 4), away_from_zero(3, 4)], label="same shape"),
        Case(ks.math.atan2, [away_from_zero(3, 4), away_from_zero(4)], label="(3,4) with (4,)"),
        Case(lambda y: ks.math.atan2(y * y, -0.7), [away_from_zero(5)], label="scalar x"),
    ],
    # -- segment maximum: no ties and no empty segment (a kink and a constant of -1.8e308)
    "segment_max": [
        Case(lambda d, ids: ks.math.unsorted_segment_max(d, ids, 3), [distinct(5, 2)],
             (np.array([0, 2, 0, 1, 2]),), "rows"),
        Case(lambda d, ids: ks.math.unsorted_segment_max(d * d, ids, 2), [distinct(4) + 3.0],
             (np.array([1, 1, 0, 1]),), "of d*d"),
    ],
    # -- linear algebra on well-conditioned matrices (symmetric positive definite ones built
    # from x x^T, so finite differences move the input within the matrices the op reads)
    "matrix_inverse": [
        Case(ks.linalg.inv, [normal(3, 3) + 3.0 * np.eye(3)], label="matrix"),
        Case(ks.linalg.inv, [normal(2, 3, 3) + 3.0 * np.eye(3)], label="batch"),
    ],
    "matrix_solve": [
        Case(ks.linalg.solve, [normal(3, 3) + 3.0 * np.eye(3), normal(3, 2)], label="matrix"),
        Case(ks.linalg.solve, [normal(3, 3) + 3.0 * np.eye(3), normal(2, 3, 2)],
             label="broadcast batch"),
        Case(ks.linalg.solve, [normal(3, 3) + 3.0 * np.eye(3), normal(3)], label="vector"),
    ],
    "log_abs_determinant": [
        Case(lambda a: ks.linalg.slogdet(a)[1], [normal(3, 3) + 3.0 * np.eye(3)], label="log"),
        Case(ks.linalg.det, [normal(2, 3, 3) - 3.0 * np.eye(3)], label="det, negative"),
    ],
    "pinv": [  # full rank, where the pseudo-inverse is smooth
        Case(ks.ops.linalg.pinv, [normal(3, 5)], label="wide"),
        Case(ks.ops.linalg.pinv, [normal(2, 4, 3)], label="tall, batch"),
        Case(ks.ops.linalg.lstsq, [normal(5, 3), normal(5, 2)], label="lstsq"),
    ],
    "lu_factor": [  # distinct pivots, so small changes keep the row order
        Case(lambda x: ks.ops.linalg.lu_factor(x)[0], [normal(4, 4)], label="matrix"),
        Case(lambda x: ks.ops.linalg.lu_factor(x)[0], [normal(2, 3, 3)], label="batch"),
    ],
    "cholesky": [
        Case(lambda x: ks.linalg.cholesky(ks.matmul(x, x, transpose_b=True) + 2.0 * np.eye(3)),
             [normal(3, 3)], label="matrix"),
        Case(lambda x: ks.linalg.cholesky(ks.matmul(x, x, transpose_b=True) + np.eye(2)),
             [normal(2, 2, 3)], label="batch"),
    ],
    # the LSTM's sequence op: outputs, last h and last c all used, every input watched
    "lstm_sequence": [
        Case(lambda x, r, h, c: sum(ks.reduce_sum(t * t) for t in rnn_ops.lstm_sequence(
            x, r, h, c)), [normal(3, 2, 8), normal(2, 8), normal(2, 2), normal(2, 2)],
             label="3 steps, batch 2, 2 units"),
        Case(lambda x, r, h, c: rnn_ops.lstm_sequence(x, r, h, c)[2],
             [normal(2, 1, 4), normal(1, 4), normal(1, 1), normal(1, 1)],
             label="the last cell state only"),
    ],
    "self_adjoint_eig": [
        Case(lambda x: ks.linalg.eigh(x + ks.linalg.matrix_transpose(x))[0], [normal(4, 4)],
             label="eigenvalues"),
        Case(lambda x: ks.linalg.eigh(x + ks.linalg.matrix_transpose(x))[1] ** 2,
             [normal(2, 3, 3)], label="squared eigenvectors (sign-free), batch"),
    ],
    # svd and qr: functions that do not depend on the singular vectors' signs (squares), or
    # on nothing a small change flips (qr's Householder signs)
    "svd": [
        Case(lambda x: _flat(*ks.ops.svd(x)[1:2], *(t * t for t in ks.ops.svd(x)[::2])),
             [normal(3, 3)], label="square"),
        Case(lambda x: _flat(*(t * t for t in ks.ops.svd(x, full_matrices=False))),
             [normal(4, 3)], label="tall"),
        Case(lambda x: _flat(*(t * t for t in ks.ops.svd(x, full_matrices=False))),
             [normal(2, 2, 4)], label="wide, batch"),
    ],
    "singular_values": [
        Case(lambda x: ks.ops.svd(x, compute_uv=False), [normal(4, 3)], label="tall"),
        Case(lambda x: ks.ops.svd(x * x, compute_uv=False), [normal(2, 2, 3)], label="batch"),
    ],
    "qr": [
        Case(lambda x: _flat(*ks.ops.qr(x)), [normal(4, 3)], label="tall"),
        Case(lambda x: _flat(*ks.ops.qr(x * x)), [normal(2, 3, 3)], label="square, batch"),
    ],
    "erfinv": [
        Case(lambda x: ks.math.erfinv(x), [uniform(5, low=-0.9, high=0.9)]),
    ],
    # the Fourier transforms on (real, imag) pairs (kerasish.core.ops.fft_ops)
    "fft_complex": [
        Case(lambda r, i: _flat(*(t * t for t in ks.ops.fft((r, i)))), [normal(2, 5), normal(2, 5)],
             label="fft"),
        Case(lambda r, i: _flat(*(t * t for t in ks.ops.ifft2((r, i)))),
             [normal(3, 4), normal(3, 4)], label="ifft2"),
    ],
    "rfft": [
        Case(lambda x: _flat(*(t * t for t in ks.ops.rfft(x))), [normal(2, 6)], label="even"),
        Case(lambda x: _flat(*(t * t for t in ks.ops.rfft(x, 7))), [normal(5)], label="padded"),
        Case(lambda x: _flat(*ks.ops.stft(x * x, 4, 2, 6)), [normal(12)], label="stft"),
    ],
    "irfft": [
        Case(lambda r, i: ks.square(ks.ops.irfft((r, i), 6)), [normal(2, 4), normal(2, 4)],
             label="even"),
        Case(lambda r, i: ks.square(ks.ops.irfft((r, i), 5)), [normal(3), normal(3)],
             label="odd"),
        Case(lambda r, i: ks.square(ks.ops.istft((r, i), 4, 2, 6)), [normal(5, 4), normal(5, 4)],
             label="istft"),
    ],
}

# NumPy's remaining functions (core/ops/numpy_ops.py)
SAMPLES.update({
    "cbrt": [Case(numpy_ops.cbrt, [away_from_zero(3, 4)]),
             Case(lambda x: numpy_ops.cbrt(-x), [positive(5)], label="negative")],
    "exp2": [Case(numpy_ops.exp2, [normal(3, 4)])],
    "sinc": [Case(numpy_ops.sinc, [normal(3, 4)])],
    "i0": [Case(numpy_ops.i0, [normal(3, 4, scale=2.0)])],
    "i1": [Case(lambda x: apply(numpy_ops._i1, (x,)) * x, [normal(3, 4, scale=2.0)]),
           Case(lambda x: apply(numpy_ops._i1, (x,)), [np.array([0.3, -2.5, 6.0])],
                label="both signs")],
    "hypot": [Case(numpy_ops.hypot, [away_from_zero(3, 4), normal(4)], label="(3,4),(4,)")],
    "logaddexp": [Case(numpy_ops.logaddexp, [normal(3, 4), normal(3, 1)])],
    "logaddexp2": [Case(numpy_ops.logaddexp2, [normal(3, 4), normal(4)])],
    "fmod": [Case(numpy_ops.fmod, [np.array([[0.3, 1.7, -2.4, 5.1], [-0.6, 2.2, 3.3, -4.5]]),
                                   np.array([1.0, 1.0, -1.0, 2.0])])],
    "ldexp": [Case(lambda x: numpy_ops.ldexp(x, np.array([1, -2, 0, 3])) * x, [normal(3, 4)])],
})


def _differentiable_primitives() -> list:
    return sorted(name for name in REGISTRY if name not in NONDIFFERENTIABLE)


def _counting(monkeypatch, name):
    """Count calls of primitive `name`'s forward function."""
    prim = REGISTRY[name]
    calls = []
    forward = prim.forward

    def counted(*args, **kwargs):
        calls.append(1)
        return forward(*args, **kwargs)

    monkeypatch.setattr(prim, "forward", counted)
    return calls


@pytest.mark.parametrize("name", _differentiable_primitives())
def test_primitive_gradients(name, monkeypatch):
    """Every differentiable primitive has sample cases, and they pass to second order."""
    if name not in SAMPLES:
        pytest.fail(
            f"primitive {name!r} is registered and differentiable but has no entry in "
            "tests/core/test_gradients.py::SAMPLES; add sample inputs so its gradient is tested"
        )
    cases = SAMPLES[name]
    assert cases, f"SAMPLES[{name!r}] is empty"
    for case in cases:
        label = f"{name} [{case.label or 'default'}]"
        calls = _counting(monkeypatch, name)
        case.fn(*[ks.constant(v) for v in case.inputs], *case.ints)
        assert calls, f"{label}: the sample never runs the primitive {name!r}"
        monkeypatch.undo()
        try:
            check_gradients(case.fn, [*case.inputs, *case.ints], order=2, **case.options)
        except AssertionError as exc:
            raise AssertionError(f"{label}: {exc}") from None


def test_samples_only_name_registered_primitives():
    stale = sorted(set(SAMPLES) - set(_differentiable_primitives()))
    assert not stale, f"SAMPLES has entries for unknown or non-differentiable primitives: {stale}"


def test_every_primitive_is_differentiable_or_declared_not():
    missing = sorted(
        n for n, p in REGISTRY.items() if n not in NONDIFFERENTIABLE and p.grad is None
    )
    assert not missing, (
        f"primitives with neither a gradient rule nor a NONDIFFERENTIABLE mark: {missing}"
    )
    both = sorted(n for n in NONDIFFERENTIABLE if n in REGISTRY and REGISTRY[n].grad is not None)
    assert not both, f"primitives marked non-differentiable that also have a gradient: {both}"
    unknown = sorted(NONDIFFERENTIABLE - set(REGISTRY))
    assert not unknown, f"NONDIFFERENTIABLE names unregistered primitives: {unknown}"
    assert set(_differentiable_primitives()).isdisjoint(NONDIFFERENTIABLE)


def test_check_gradients_catches_a_wrong_rule():
    """The checker is not vacuous: a wrong first- or second-order rule is reported."""

    @ks.custom_gradient
    def wrong_first(x):
        return x * x, lambda dy: dy * x * 3.0  # should be 2x

    with pytest.raises(AssertionError, match="order-1"):
        check_gradients(wrong_first, [normal(3)], order=1)

    @ks.custom_gradient
    def wrong_second(x):
        # right first derivative 3x**2, but written with a constant, so d2 is 0 instead of 6x
        return x * x * x, lambda dy: dy * ks.constant(3.0 * np.square(x.numpy()))

    check_gradients(wrong_second, [positive(3)], order=1)
    with pytest.raises(AssertionError, match="order-2"):
        check_gradients(wrong_second, [positive(3)], order=2)


def test_gather_gradient_is_indexed_slices_and_densifies():
    params = ks.constant(normal(5, 3))
    ids = ks.constant(np.array([[4, 1], [4, 4]]))
    with ks.GradientTape() as tape:
        tape.watch(params)
        y = ks.gather(params, ids) * 2.0
    grad = tape.gradient(y, params)
    assert isinstance(grad, ks.IndexedSlices)
    assert grad.dense_shape == (5, 3)
    dense = ks.convert_to_tensor(grad)
    expected = np.zeros((5, 3))
    expected[4] = 6.0
    expected[1] = 2.0
    np.testing.assert_allclose(dense.numpy(), expected)
    assert dense.dtype == F64


def test_gather_gradient_accumulates_with_dense_paths():
    params = ks.constant(normal(4, 2))
    with ks.GradientTape() as tape:
        tape.watch(params)
        y = ks.reduce_sum(ks.gather(params, [0, 0, 3])) + ks.reduce_sum(params * params)
    grad = ks.convert_to_tensor(tape.gradient(y, params)).numpy()
    expected = 2 * params.numpy()
    expected[0] += 2.0
    expected[3] += 1.0
    np.testing.assert_allclose(grad, expected)


def test_cast_gradient_keeps_the_source_dtype():
    for source, target in ((F32, F64), (F64, F32)):
        x = ks.constant([1.0, -2.0], dtype=source)
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = ks.cast(x, target) * 3.0
        g = tape.gradient(y, x)
        assert g.dtype == source
        np.testing.assert_allclose(g.numpy(), [3.0, 3.0])


# ---------------------------------------------------------------- composite ops


def _conv(padding, strides):
    return lambda x, w: ks.nn.conv2d(x, w, strides=strides, padding=padding)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, 2])
def test_conv2d_gradients(padding, strides):
    x = normal(2, 5, 4, 2)
    w = normal(3, 2, 2, 3, scale=0.5)  # non-square kernel, HWIO
    check_gradients(_conv(padding, strides), [x, w], order=2)
    check_gradients(lambda x: ks.nn.conv2d(x, ks.constant(w), strides, padding), [x], order=2)
    check_gradients(lambda w: ks.nn.conv2d(ks.constant(x), w, strides, padding), [w], order=2)
    # a nonlinearity between two uses makes the second derivative non-trivial
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w, (2, 1), padding)), [x, w], order=2)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, 2])
def test_pool_gradients(padding, strides):
    x = distinct(2, 5, 4, 2)  # no ties inside any window
    check_gradients(lambda x: ks.nn.max_pool2d(x, 2, strides, padding), [x], order=2)
    check_gradients(lambda x: ks.nn.max_pool2d(x, (3, 2), strides, padding) ** 2, [x], order=2)
    check_gradients(lambda x: ks.nn.avg_pool2d(x, 2, strides, padding), [x], order=2)
    check_gradients(lambda x: ks.nn.avg_pool2d(x * x, (2, 3), strides, padding), [x], order=2)


COMPOSITES = {
    "clip_by_value": Case(
        lambda x: ks.clip_by_value(x, -0.5, 0.7), [np.array([-1.3, -0.2, 0.1, 0.4, 1.2, 2.0])]
    ),
    "clip_by_value tensors": Case(
        lambda x, lo, hi: ks.clip_by_value(x, lo, hi),
        [
            np.array([-1.3, -0.2, 0.4, 1.2]),
            np.array([-0.8, -0.8, -0.8, 0.0]),
            np.array([0.7, 0.7, 1.0, 0.9]),
        ],
    ),
    "clip_by_norm clipped": Case(lambda x: ks.clip_by_norm(x, 1.0), [normal(3, 4)]),
    "clip_by_norm axes": Case(lambda x: ks.clip_by_norm(x, 0.8, axes=1), [normal(3, 4) + 0.5]),
    "clip_by_norm unclipped": Case(lambda x: ks.clip_by_norm(x, 100.0), [normal(3, 4)]),
    "reduce_mean": Case(lambda x: ks.reduce_mean(x, 1) + ks.reduce_mean(x * x), [normal(3, 4)]),
    "reduce_mean keepdims": Case(
        lambda x: ks.reduce_mean(x, (0, 2), keepdims=True), [normal(2, 3, 4)]
    ),
    "reduce_variance": Case(lambda x: ks.reduce_variance(x, 0), [normal(4, 3)]),
    "reduce_variance all": Case(ks.reduce_variance, [normal(2, 3)]),
    "reduce_std": Case(lambda x: ks.reduce_std(x, -1), [normal(3, 4)]),
    "moments": Case(lambda x: ks.stack(ks.nn.moments(x, [0])), [normal(4, 3)]),
    "sigmoid_cross_entropy_with_logits": Case(
        lambda logits, labels: ks.nn.sigmoid_cross_entropy_with_logits(labels, logits),
        [away_from_zero(3, 4, low=0.1, high=3.0), uniform(3, 4, low=0.0, high=1.0)],
    ),
    # smooth everywhere, so it must be right at 0 too (zero-initialized logits are common)
    "sigmoid_cross_entropy_with_logits at 0": Case(
        lambda logits, labels: ks.nn.sigmoid_cross_entropy_with_logits(labels, logits),
        [np.array([0.0, 0.0, 0.0, 1e-9, -1e-9]), np.array([0.0, 1.0, 0.3, 0.6, 0.6])],
    ),
    "leaky_relu": Case(lambda x: ks.nn.leaky_relu(x, 0.1) ** 2, [away_from_zero(3, 4, low=0.1)]),
    "relu6": Case(ks.nn.relu6, [np.array([-1.0, 0.5, 3.0, 5.5, 7.0])]),
    "l2_normalize": Case(lambda x: ks.nn.l2_normalize(x, axis=1), [normal(3, 4)]),
    "l2_normalize all": Case(ks.nn.l2_normalize, [normal(2, 3)]),
    "l2_loss": Case(ks.nn.l2_loss, [normal(3, 4)]),
    "stack": Case(lambda a, b: ks.stack([a, b * a, b], axis=1), [normal(2, 3), normal(2, 3)]),
    "stack axis -1": Case(lambda a, b: ks.stack([a, b], axis=-1), [normal(3), normal(3)]),
    "unstack": Case(lambda x: ks.unstack(x, axis=1)[0] * ks.unstack(x, axis=1)[2], [normal(3, 4)]),
    "split": Case(
        lambda x: ks.concat([p * p for p in ks.split(x, 2, axis=1)][::-1], 1), [normal(3, 4)]
    ),
    "split sizes": Case(lambda x: ks.split(x, [1, 2], axis=0)[1] ** 3, [normal(3, 2)]),
    "squeeze/expand_dims": Case(
        lambda x: ks.expand_dims(ks.squeeze(x, 1), -1) ** 2, [normal(3, 1, 2)]
    ),
    "softplus large": Case(ks.nn.softplus, [np.array([-30.0, -15.0, 15.0, 30.0])]),
    "elu large": Case(ks.nn.elu, [np.array([-30.0, -10.0, 10.0, 30.0])]),
    "sigmoid large": Case(ks.sigmoid, [np.array([-30.0, -15.0, 15.0, 30.0])]),
    "tanh large": Case(ks.tanh, [np.array([-20.0, -9.0, 9.0, 20.0])]),
    "log_sigmoid": Case(ks.nn.log_sigmoid, [np.array([-30.0, -2.0, 0.5, 30.0])]),
    "swish": Case(ks.nn.swish, [normal(5)]),
    "softsign": Case(ks.nn.softsign, [away_from_zero(5)]),
    "embedding_lookup": Case(
        lambda p, ids: ks.tanh(ks.nn.embedding_lookup(p, ids)),
        [normal(6, 3)],
        (np.array([[5, 0], [2, 5]]),),
    ),
    "squared_difference": Case(ks.squared_difference, [normal(3, 4), normal(4)]),
    "norm": Case(lambda x: ks.norm(x, axis=1), [normal(3, 4)]),
    "add_n": Case(lambda a, b: ks.add_n([a, b, a * b]), [normal(3), normal(3)]),
    "bias_add": Case(ks.nn.bias_add, [normal(2, 3), normal(3)]),
    "global_norm": Case(lambda a, b: ks.global_norm([a, None, b]), [normal(3), normal(2, 2)]),
    "clip_by_global_norm": Case(
        lambda a, b: ks.concat(ks.clip_by_global_norm([a, b], 1.0)[0], 0), [normal(3), normal(2)]
    ),
    # NumPy's composites (`ks.ops` shows them)
    "dot matrix vector": Case(product_ops.dot, [normal(3, 4), normal(4)]),
    "dot vector matrix": Case(lambda a, b: product_ops.dot(a, b) ** 2, [normal(3), normal(3, 2)]),
    "tensordot": Case(lambda a, b: product_ops.tensordot(a, b, ([1, 2], [1, 0])) ** 2,
                      [normal(2, 3, 4), normal(4, 3, 2)]),
    "outer": Case(lambda a, b: product_ops.outer(a * a, b), [normal(3), normal(2, 2)]),
    "inner": Case(lambda a, b: product_ops.inner(a, b) ** 2, [normal(2, 3), normal(4, 3)]),
    "vdot": Case(lambda a, b: product_ops.vdot(a, b) ** 2, [normal(2, 3), normal(6)]),
    "cross": Case(lambda a, b: product_ops.cross(a, b, axisa=0) ** 2, [normal(3, 2), normal(2, 3)]),
    "cross 2-vectors": Case(lambda a, b: product_ops.cross(a, b) ** 2,
                            [normal(4, 2), normal(4, 2)]),
    "swapaxes/moveaxis": Case(
        lambda x: shape_ops.moveaxis(shape_ops.swapaxes(x * x, 0, 2), [0, 1], [2, 0]),
        [normal(2, 3, 4)]),
    "meshgrid": Case(lambda a, b: ks.add_n(shape_ops.meshgrid(a * a, b)), [normal(3), normal(2)]),
    "repeat/flip/roll": Case(
        lambda x: indexing_ops.roll(
            indexing_ops.flip(indexing_ops.repeat(x, [1, 2, 0], 0), 1), [1, -1], [0, 1]) ** 2,
        [normal(3, 4)]),
    "slice/slice_update": Case(
        lambda x, u: indexing_ops.slice_update(x, (1, 0), u * u) * indexing_ops.slice(
            x, (0, 0), (3, 4)), [normal(3, 4), normal(2, 2)]),
    "scatter/scatter_update": Case(
        lambda x, u: indexing_ops.scatter_update(x, [[2], [0], [2]], u * x[:3])
        + indexing_ops.scatter([[1], [1], [0]], u * u, (4, 2)),
        [normal(4, 2), normal(3, 2)]),
    "bincount weights": Case(lambda w: indexing_ops.bincount([[0, 2, 2], [1, 1, 3]], w * w),
                             [normal(2, 3)]),
    "diagonal/trace": Case(
        lambda x: linalg_ops.diagonal(x * x, 1, 0, 2) + linalg_ops.trace(x, -1, 2, 0),
        [normal(3, 2, 3)]),
    "diag": Case(lambda v: linalg_ops.diag(v * v, -1) @ linalg_ops.diag(v, 1), [normal(3)]),
    "tril/triu": Case(lambda x: linalg_ops.tril(x, -1) @ linalg_ops.triu(x * x, 1),
                      [normal(2, 3, 3)]),
    "log2/log10": Case(lambda x: math_ops.log2(x) * math_ops.log10(x), [positive(4)]),
    "nan_to_num": Case(lambda x: math_ops.nan_to_num(x * x), [normal(4)]),
    "quantile": Case(
        lambda x: statistics_ops.quantile(x * x, [0.3, 0.5], axis=1, keepdims=True),
        [distinct(2, 5, 3)]),
    "quantile midpoint": Case(
        lambda x: statistics_ops.quantile(x, 0.4, method="midpoint") ** 2, [distinct(7)]),
    "median": Case(lambda x: statistics_ops.median(x, axis=0) ** 2, [distinct(4, 3)]),
    "average": Case(lambda x, w: statistics_ops.average(x * x, 1, w * w + 1.0),
                    [normal(2, 3), normal(3)]),
    "take_along_axis flattened": Case(
        lambda x: sorting_ops.take_along_axis(x * x, [5, 0, 5, 2]), [normal(2, 3)]),
}


def test_clip_by_norm_and_l2_normalize_are_finite_at_zero():
    x = ks.constant(np.zeros((2, 3)))
    _, (g,) = _grad(lambda x: ks.clip_by_norm(x, 1.0), x.numpy())
    np.testing.assert_array_equal(g, np.ones((2, 3)))  # inside the ball: the identity
    _, (g,) = _grad(lambda x: ks.clip_by_norm(x, 1.0, axes=1), x.numpy())
    np.testing.assert_array_equal(g, np.ones((2, 3)))
    _, (g,) = _grad(lambda x: ks.nn.l2_normalize(x, axis=1), x.numpy())
    assert _finite(g)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradients(name):
    case = COMPOSITES[name]
    check_gradients(case.fn, [*case.inputs, *case.ints], order=2, **case.options)


# ---------------------------------------------------------------- closed forms


def _grad(f, *xs, output_gradients=None):
    xs = [ks.constant(x) for x in xs]
    with ks.GradientTape(persistent=True) as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    grads = tape.gradient(y, xs, output_gradients=output_gradients)
    return y, [ks.convert_to_tensor(g).numpy() for g in grads]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_sigmoid_derivatives_closed_form():
    x = np.linspace(-6.0, 6.0, 13)
    s = _sigmoid(x)
    xt = ks.constant(x)
    with ks.GradientTape() as outer:
        outer.watch(xt)
        with ks.GradientTape() as inner:
            inner.watch(xt)
            y = ks.sigmoid(xt)
        g = inner.gradient(y, xt)
    gg = outer.gradient(g, xt)
    np.testing.assert_allclose(y.numpy(), s, rtol=1e-14)
    np.testing.assert_allclose(g.numpy(), s * (1 - s), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), s * (1 - s) * (1 - 2 * s), rtol=1e-10, atol=1e-15)


def test_sigmoid_cross_entropy_derivatives_closed_form():
    logits = np.array([-3.0, -0.5, 0.0, 0.0, 0.0, 0.5, 3.0])
    labels = np.array([1.0, 0.0, 0.0, 1.0, 0.3, 1.0, 0.2])
    s = _sigmoid(logits)
    z, t = ks.constant(logits), ks.constant(labels)
    with ks.GradientTape() as outer:
        outer.watch(z)
        with ks.GradientTape() as inner:
            inner.watch(z)
            loss = ks.nn.sigmoid_cross_entropy_with_logits(t, z)
        g = inner.gradient(loss, z)
    gg = outer.gradient(g, z)
    expected = -(labels * np.log(s) + (1 - labels) * np.log(1 - s))
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(g.numpy(), s - labels, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gg.numpy(), s * (1 - s), rtol=1e-12)


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_cross_entropy_gradient_is_softmax_minus_labels():
    logits = normal(4, 5)
    labels = _softmax(normal(4, 5))  # rows sum to 1
    loss, (d_logits, d_labels) = _grad(
        lambda z, t: ks.nn.softmax_cross_entropy_with_logits(t, z), logits, labels
    )
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -(labels * log_p).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(d_logits, _softmax(logits) - labels, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(d_labels, -log_p, rtol=1e-12)


def test_sparse_softmax_cross_entropy_gradient_is_softmax_minus_one_hot():
    logits = normal(4, 5)
    ids = np.array([0, 4, 4, 2])
    weights = np.array([1.0, -2.0, 0.5, 3.0])
    loss, (d_logits,) = _grad(
        lambda z: ks.nn.sparse_softmax_cross_entropy_with_logits(ids, z),
        logits,
        output_gradients=ks.constant(weights),
    )
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -log_p[np.arange(4), ids], rtol=1e-12)
    expected = weights[:, None] * (_softmax(logits) - np.eye(5)[ids])
    np.testing.assert_allclose(d_logits, expected, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_gradient_closed_form(ta, tb):
    a_used, b_used = normal(3, 4), normal(4, 2)
    a = a_used.T.copy() if ta else a_used
    b = b_used.T.copy() if tb else b_used
    dy = normal(3, 2)
    y, (da, db) = _grad(
        lambda a, b: ks.matmul(a, b, transpose_a=ta, transpose_b=tb),
        a,
        b,
        output_gradients=ks.constant(dy),
    )
    np.testing.assert_allclose(y.numpy(), a_used @ b_used, rtol=1e-12)
    da_used, db_used = dy @ b_used.T, a_used.T @ dy
    np.testing.assert_allclose(da, da_used.T if ta else da_used, rtol=1e-12)
    np.testing.assert_allclose(db, db_used.T if tb else db_used, rtol=1e-12)


def test_batched_broadcast_matmul_gradient_sums_over_broadcast_batch():
    a, b = normal(2, 3, 4), normal(4, 5)
    dy = normal(2, 3, 5)
    _, (da, db) = _grad(ks.matmul, a, b, output_gradients=ks.constant(dy))
    np.testing.assert_allclose(da, dy @ b.T, rtol=1e-12)
    np.testing.assert_allclose(db, np.einsum("bik,bij->kj", a, dy), rtol=1e-12)


def _same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2


def _window_reference(x, ksize, strides, padding, reduce, pad_value=0.0):
    """Apply `reduce(window) -> value per channel` to each window of an NHWC array (naive loops)."""
    n, h, w, c = x.shape
    kh, kw = ksize
    sh, sw = strides
    if padding == "VALID":
        ho, wo, top, left = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    else:
        (ho, top), (wo, left) = _same_pads(h, kh, sh), _same_pads(w, kw, sw)
    out = None
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                cells, valid = [], []
                for di in range(kh):
                    for dj in range(kw):
                        r, q = i * sh + di - top, j * sw + dj - left
                        inside = 0 <= r < h and 0 <= q < w
                        cells.append(x[b, r, q] if inside else np.full(c, pad_value))
                        valid.append(inside)
                value = reduce(np.array(cells).reshape(kh, kw, c), np.array(valid).reshape(kh, kw))
                if out is None:
                    out = np.zeros((n, ho, wo) + np.shape(value))
                out[b, i, j] = value
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (2, 1)])
def test_conv2d_forward_matches_naive_loops(padding, strides):
    x = normal(2, 6, 5, 3)
    w = normal(3, 2, 3, 4)
    reference = _window_reference(
        x, (3, 2), strides, padding, lambda win, _: np.einsum("hwi,hwio->o", win, w)
    )
    got = ks.nn.conv2d(ks.constant(x), ks.constant(w), strides=strides, padding=padding).numpy()
    assert got.shape == reference.shape
    np.testing.assert_allclose(got, reference, rtol=1e-12, atol=1e-12)


@pytest.fixture
def taps_always(monkeypatch):
    """Route every stride-1 convolution with a few channels through the per-tap products."""
    from kerasish.core.ops import conv_ops

    monkeypatch.setattr(conv_ops, "TAPS_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_ops, "TAPS_MAX_WASTE", 1e9)
    monkeypatch.setattr(conv_ops, "TAPS_BLOCK_ROWS", 40)  # blocks of one image (6x5 = 30 rows)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("dilations", [1, (2, 1)])
def test_conv2d_taps_match_naive_loops_and_finite_differences(taps_always, padding, dilations):
    """Stride-1 convolutions as per-tap products: the values of direct loops, and first and
    second derivatives (the three tap primitives are each other's gradients)."""
    x = normal(2, 6, 5, 3)
    w = normal(3, 2, 3, 4, scale=0.5)
    dilated = np.zeros((5, 2, 3, 4)) if dilations != 1 else w
    if dilations != 1:
        dilated[::2] = w  # a (2, 1)-dilated 3x2 kernel is a 5x2 kernel with zero rows
    reference = _window_reference(x, dilated.shape[:2], (1, 1), padding,
                                  lambda win, _: np.einsum("hwi,hwio->o", win, dilated))
    got = ks.nn.conv2d(ks.constant(x), ks.constant(w), padding=padding, dilations=dilations)
    np.testing.assert_allclose(got.numpy(), reference, rtol=1e-12, atol=1e-12)
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w, 1, padding, dilations)), [x, w],
                    order=2)
    check_gradients(lambda x: ks.nn.conv2d(x, ks.constant(w), 1, padding, dilations) ** 2, [x],
                    order=2)


@pytest.mark.parametrize("width", [3, 4, 5])
def test_winograd_transforms_give_the_correlation_exactly(width):
    """A^T [(G g) * (B^T d)] is the correlation of a tile d with the filter g: the identity
    holds to rounding, and B^T (solved, then rounded to quarters) is exact."""
    from kerasish.core.ops import conv_ops

    at, g, bt = conv_ops._winograd_transforms(width)
    step, size = at.shape
    assert (step, g.shape, bt.shape) == (4, (size, width), (size, size))
    identity = np.einsum("ik,ks,kj->isj", at, g, bt)
    wanted = np.arange(size) == (np.arange(step)[:, None, None] + np.arange(width)[:, None])
    np.testing.assert_allclose(identity, wanted, atol=1e-14)
    np.testing.assert_array_equal(bt * 4, np.round(bt * 4))


@pytest.fixture
def winograd_both_ways(monkeypatch):
    """run(f) -> (f's arrays with Winograd's filtering, the same by per-tap products), each
    path asserted taken; every stride-1 convolution goes through the taps family."""
    pytest.importorskip("numba")  # (the transforms are numba loops: kerasish[fast])
    from kerasish.core.numba_kernels import winograd_untile
    from kerasish.core.ops import conv_ops

    monkeypatch.setattr(conv_ops, "TAPS_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_ops, "TAPS_MAX_WASTE", 1e9)
    kernels = conv_ops.backend.numba_kernels()
    untiled = []
    monkeypatch.setattr(kernels, "winograd_untile",
                        lambda *a: untiled.append(1) or winograd_untile(*a))

    def run(f):
        results = []
        for widths in ((3, 4, 5), ()):
            monkeypatch.setattr(conv_ops, "WINOGRAD_WIDTHS", widths)
            untiled.clear()
            results.append([np.asarray(r) for r in f()])
            assert bool(untiled) == bool(widths)
        return results

    return run


@pytest.mark.cpu  # Winograd's filtering is a CPU path (numba)
@pytest.mark.parametrize("width", [3, 4, 5])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("length, block_rows", [(1, 6), (6, 1), (13, 4)])
@pytest.mark.parametrize("rows, row_dilation", [(1, 1), (3, 1), (2, 2)])
def test_filters_by_winograd_along_rows_equal_the_taps(winograd_both_ways, monkeypatch, width,
                                                      padding, length, block_rows, rows,
                                                      row_dilation):
    """Winograd's F(4, width) along rows, the filter's rows (one: Conv1D's; three; two
    dilated) as shifted sums: the taps' values and the gradients of x, the filters and the
    fused bias, for outputs shorter than a tile, a whole number of tiles and a partial last
    tile; 6 images of 3 rows in one block, in blocks of one image and in blocks of 4 (a
    partial last block)."""
    from kerasish.core.ops import conv_ops

    tiles, points = -(-length // 4), 3 + width
    monkeypatch.setattr(conv_ops, "WINOGRAD_BLOCK_VALUES", block_rows * 3 * tiles * points * 5)
    span = (rows - 1) * row_dilation + 1
    valid = padding == "VALID"
    x = normal(6, 3 + span - 1 if valid else 3, length + width - 1 if valid else length, 4)
    w, b, upstream = normal(rows, width, 4, 5), normal(5), normal(6, 3, length, 5)

    def f():
        tensors = [ks.constant(v) for v in (x, w, b)]
        with ks.GradientTape() as tape:
            tape.watch(tensors)
            y = ks.nn.conv2d(tensors[0], tensors[1], padding=padding,
                             dilations=(row_dilation, 1), bias=tensors[2])
        return [y, *tape.gradient(y, tensors, output_gradients=ks.constant(upstream))]

    winograd, taps = winograd_both_ways(f)
    for got, want in zip(winograd, taps):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.cpu
@pytest.mark.parametrize("rows, width", [(1, 5), (3, 3)])
def test_winograd_has_float32_error_near_the_taps(winograd_both_ways, rows, width):
    """In float32, a Conv1D(64, 5)'s and a 3x3 Conv2D's values and gradients by Winograd stay
    within 5e-6 of the largest exact value (float64), as the per-tap products do (measured:
    about 1e-6 against 4e-7)."""
    x, dy = normal(4, rows, 64, 64), normal(4, rows, 64, 64)
    w = normal(rows, width, 64, 64, scale=0.1)

    def f(dtype):
        tensors = [ks.constant(v.astype(dtype)) for v in (x, w)]
        with ks.GradientTape() as tape:
            tape.watch(tensors)
            y = ks.nn.conv2d(*tensors, padding="SAME")
        return [y, *tape.gradient(y, tensors, output_gradients=ks.constant(dy.astype(dtype)))]

    exact = [r.numpy() for r in f("float64")]
    for results in winograd_both_ways(lambda: f("float32")):
        for got, want in zip(results, exact):
            assert np.abs(got - want).max() <= 5e-6 * np.abs(want).max()


@pytest.mark.cpu  # the per-tap products are a CPU path
@pytest.mark.parametrize("shape, dilations", [((1, 3, 2, 2), 3), ((3, 4, 5, 2), (1, 4))])
def test_conv2d_taps_with_taps_beyond_the_image_match_im2col(monkeypatch, shape, dilations):
    """A dilated SAME filter whose outer taps read only padding (on one image the first
    tap's sources are all before the batch): the taps give im2col's values and gradients."""
    from kerasish.core.ops import conv_ops

    x, w = ks.constant(normal(*shape)), ks.constant(normal(3, 3, shape[3], 3))

    def run():
        with ks.GradientTape() as tape:
            tape.watch([x, w])
            y = ks.nn.conv2d(x, w, padding="SAME", dilations=dilations)
            loss = ks.reduce_sum(y * y)
        return [y.numpy(), *(g.numpy() for g in tape.gradient(loss, [x, w]))]

    monkeypatch.setattr(conv_ops, "TAPS_MIN_CHANNELS", 10**9)
    expected = run()
    monkeypatch.setattr(conv_ops, "TAPS_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_ops, "TAPS_MAX_WASTE", 1e9)
    forward = conv_ops._conv2d_taps.forward
    calls = []
    monkeypatch.setattr(conv_ops._conv2d_taps, "forward",
                        lambda *a, **k: calls.append(a[0].shape) or forward(*a, **k))
    for got, want in zip(run(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert calls == [shape]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_strided_conv2d_by_blocks_of_one_image_matches_loops_and_gradients(monkeypatch, padding):
    """im2col by blocks: with one image per block (three blocks, the last patch buffer
    reused), values of direct loops and first and second derivatives; a transposed
    convolution's gradients through the same blocks."""
    from kerasish.core.ops import conv_ops

    monkeypatch.setattr(conv_ops, "IM2COL_BLOCK_VALUES", 1)
    x, w = normal(3, 7, 6, 2), normal(3, 2, 2, 4, scale=0.5)
    reference = _window_reference(x, (3, 2), (2, 3), padding,
                                  lambda win, _: np.einsum("hwi,hwio->o", win, w))
    got = ks.nn.conv2d(ks.constant(x), ks.constant(w), (2, 3), padding)
    np.testing.assert_allclose(got.numpy(), reference, rtol=1e-12, atol=1e-12)
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w, (2, 3), padding)), [x, w], order=2)
    shape = (3, 7, 6, 4)
    y = normal(*ks.nn.conv2d(ks.zeros(shape), ks.zeros([3, 2, 4, 2]), (2, 3), padding).shape)
    check_gradients(lambda y, w: ks.nn.conv2d_transpose(y, w, shape, (2, 3), padding) ** 2,
                    [y, normal(3, 2, 4, 2)], order=1)


def test_a_fused_bias_equals_adding_it_and_a_wrong_shape_is_named():
    x, w, b = ks.constant(normal(2, 6, 5, 16)), ks.constant(normal(3, 3, 16, 4)), normal(4)
    for strides, padding in [(1, "SAME"), (2, "VALID"), (1, "VALID")]:
        with ks.GradientTape() as tape:
            bias = ks.constant(b)
            tape.watch(bias)
            fused = ks.nn.conv2d(x, w, strides, padding, bias=bias)
        plain = ks.nn.conv2d(x, w, strides, padding) + b
        np.testing.assert_allclose(fused.numpy(), plain.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(tape.gradient(fused, bias).numpy(),
                                   np.full(4, np.prod(fused.shape[:3])))
    with pytest.raises(InvalidArgumentError,
                       match=r"conv2d: bias shape \(5,\) must be \(4,\), one value per output"):
        ks.nn.conv2d(x, w, bias=ks.ones([5], dtype="float64"))
    with pytest.raises(InvalidArgumentError,
                       match=r"conv2d_transpose: bias shape \(2, 1\)"):
        ks.nn.conv2d_transpose(ks.ones([1, 3, 3, 4]), ks.ones([3, 3, 2, 4]), [1, 6, 6, 2], 2,
                               bias=ks.ones([2, 1]))


def test_a_transposed_convolutions_bias_gradient_alone_builds_no_patches(monkeypatch):
    """With only the bias watched, its gradient is the sum of dy and the patch pass that
    gives the input and filter gradients does not run."""
    prim = REGISTRY["conv2d_transpose_grads"]
    monkeypatch.setattr(prim, "forward", lambda *a, **k: pytest.fail("patches built"))
    y, w, b = ks.constant(normal(2, 3, 3, 4)), ks.constant(normal(3, 3, 2, 4)), ks.ones([2])
    with ks.GradientTape() as tape:
        tape.watch(b)
        out = ks.nn.conv2d_transpose(y, w, [2, 6, 6, 2], 2, bias=ks.cast(b, "float64"))
    np.testing.assert_allclose(tape.gradient(out, b).numpy(), [72.0, 72.0])


@pytest.mark.parametrize("layer, shape", [
    pytest.param(lambda: ks.layers.Conv1D(8, 5, padding="same"), (2, 30, 16),
                 marks=pytest.mark.cpu),  # per-tap products (a CPU path)
    pytest.param(lambda: ks.layers.Conv2D(8, 3, strides=2), (2, 9, 8, 16),
                 marks=pytest.mark.cpu),  # im2col by blocks (a CPU path)
    (lambda: ks.layers.Conv2DTranspose(8, 3, strides=2, padding="same"), (2, 5, 4, 16)),
    (lambda: ks.layers.Conv1DTranspose(8, 3, strides=2), (2, 7, 16)),
])
def test_convolution_layers_add_their_bias_inside_the_op(monkeypatch, layer, shape):
    """The bias goes into the convolution primitive as its third input (added while the
    output is in cache) and gives what adding it afterwards gives, values and gradients."""
    from kerasish.core.ops import conv_ops

    monkeypatch.setattr(conv_ops, "IM2COL_BLOCK_VALUES", 1000)  # (a small batch in blocks)
    x = ks.constant(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    conv = layer()
    conv.build(x.shape)
    conv.bias.assign(np.linspace(-1, 1, 8, dtype=np.float32))
    inputs_seen = []

    def spy(prim, inputs, attrs=None):
        if prim.name in ("conv2d_taps", "conv2d_blocks", "conv2d_transpose"):
            inputs_seen.append(len(inputs))
        return apply(prim, inputs, attrs or {})

    monkeypatch.setattr(conv_ops, "apply", spy)
    with ks.GradientTape() as tape:
        out = conv(x)
        loss = ks.reduce_sum(out * out)
    grads = tape.gradient(loss, [conv.kernel, conv.bias])
    monkeypatch.undo()
    assert inputs_seen == [3]
    with ks.GradientTape() as tape:
        plain = conv._convolve_with_bias(x, None) + conv.bias
        plain_loss = ks.reduce_sum(plain * plain)
    expected = tape.gradient(plain_loss, [conv.kernel, conv.bias])
    np.testing.assert_allclose(out.numpy(), plain.numpy(), rtol=1e-5, atol=1e-5)
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides, padding, channels", [
    (2, "SAME", 3),  # im2col by blocks
    (1, "SAME", 16),  # per-tap products
])
def test_convolutions_of_an_empty_batch_give_empty_outputs_and_zero_filter_gradients(
        strides, padding, channels):
    x = ks.constant(np.zeros((0, 9, 8, channels), np.float32))
    w = ks.constant(np.ones((3, 3, channels, 4), np.float32))
    y = ks.constant(np.zeros((0, 4, 4, 4), np.float32))
    t = ks.constant(np.ones((3, 3, 2, 4), np.float32))
    with ks.GradientTape(persistent=True) as tape:
        tape.watch([x, w, y, t])
        out = ks.nn.conv2d(x, w, strides, padding, bias=ks.ones([4]))
        up = ks.nn.conv2d_transpose(y, t, [0, 8, 8, 2], 2, bias=ks.ones([2]))
    assert out.shape[0] == 0 and up.shape == (0, 8, 8, 2)
    dx, dw = tape.gradient(out, [x, w])
    dy, dt = tape.gradient(up, [y, t])
    assert dx.shape == x.shape and dy.shape == y.shape
    for grad, shape in ((dw, w.shape), (dt, t.shape)):
        assert grad.shape == shape and not np.any(grad.numpy())
        grad.numpy()[...] = 1.0  # a real array, not a read-only broadcast
    flat = ks.nn.conv2d_transpose(ks.ones([1, 0, 3, 4]), t, [1, 0, 6, 2], 2)  # no rows
    assert flat.shape == (1, 0, 6, 2)


def test_conv2d_chooses_taps_by_channels_and_wasted_rows():
    from kerasish.core.ops.conv_ops import _taps_pay

    assert _taps_pay((32, 1, 256, 64), (1, 5), "SAME", (1, 1))  # the Conv1D benchmark
    assert _taps_pay((None, 16, 16, 64), (3, 3), "SAME", (1, 1))  # 18*18 / 16*16 = 1.27
    assert not _taps_pay((128, 13, 13, 32), (3, 3), "VALID", (1, 1))  # 169 / 121 = 1.40
    assert not _taps_pay((128, 28, 28, 1), (3, 3), "VALID", (1, 1))  # one channel
    assert not _taps_pay((None, None, None, 64), (3, 3), "SAME", (1, 1))  # unknown sizes
    x, w = ks.ones([2, 1, 40, 32]), ks.ones([1, 3, 32, 8])
    with ks.GradientTape() as tape:
        tape.watch(w)
        y = ks.nn.conv2d(x, w, padding="SAME")
    assert y.shape == (2, 1, 40, 8) and float(y[0, 0, 5, 0]) == 96.0
    assert tape.gradient(y, w).shape == (1, 3, 32, 8)


def test_a_functional_conv1d_model_takes_the_taps_and_matches_im2col(monkeypatch):
    from kerasish.core.ops import conv_ops

    x = np.random.default_rng(0).standard_normal((4, 50, 16)).astype(np.float32)
    ks.random.set_seed(3)
    inputs = ks.Input((50, 16))
    model = ks.Model(inputs, ks.layers.Conv1D(8, 5, padding="same")(inputs))
    taps = model(x).numpy()
    monkeypatch.setattr(conv_ops, "TAPS_MIN_CHANNELS", 10**9)
    ks.random.set_seed(3)
    inputs = ks.Input((50, 16))
    im2col = ks.Model(inputs, ks.layers.Conv1D(8, 5, padding="same")(inputs))
    im2col.set_weights(model.get_weights())
    np.testing.assert_allclose(taps, im2col(x).numpy(), rtol=1e-5, atol=1e-5)


def test_conv2d_output_shapes_follow_tf():
    x = ks.zeros((1, 7, 6, 1))
    w = ks.zeros((3, 2, 1, 5))
    assert ks.nn.conv2d(x, w, 1, "SAME").shape == (1, 7, 6, 5)
    assert ks.nn.conv2d(x, w, 2, "SAME").shape == (1, 4, 3, 5)
    assert ks.nn.conv2d(x, w, 1, "VALID").shape == (1, 5, 5, 5)
    assert ks.nn.conv2d(x, w, 2, "VALID").shape == (1, 3, 3, 5)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (1, 2), (2, 3)])  # (2, 3): tiling windows
def test_max_pool2d_forward_matches_naive_loops(padding, strides):
    x = normal(2, 5, 6, 2) - 10.0  # all negative: zero padding would win if it were counted
    reference = _window_reference(
        x, (2, 3), strides, padding, lambda win, _: win.max(axis=(0, 1)), pad_value=-np.inf
    )
    got = ks.nn.max_pool2d(ks.constant(x), (2, 3), strides, padding).numpy()
    np.testing.assert_array_equal(got, reference)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (3, 2)])  # (3, 2): tiling windows
def test_avg_pool2d_does_not_count_padding(padding, strides):
    x = normal(2, 5, 4, 2)

    def mean_of_valid(win, valid):
        return win[valid].mean(axis=0)

    reference = _window_reference(x, (3, 2), strides, padding, mean_of_valid)
    got = ks.nn.avg_pool2d(ks.constant(x), (3, 2), strides, padding).numpy()
    np.testing.assert_allclose(got, reference, rtol=1e-12)


def test_avg_pool2d_same_corner_values_as_tf():
    # 3x3 image of ones-to-nine, 2x2 window, stride 1, SAME: TF pads after, and the last
    # row/column windows average only the real cells.
    x = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)
    got = ks.nn.avg_pool2d(ks.constant(x), 2, 1, "SAME").numpy()[0, :, :, 0]
    expected = np.array([[3.0, 4.0, 4.5], [6.0, 7.0, 7.5], [7.5, 8.5, 9.0]])
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("ksize", [(2, 2), (3, 2)])
def test_tiling_pools_match_the_patch_route_with_ties(padding, ksize):
    """Windows that tile the image take the block primitives; values, gradients and
    second derivatives equal those of extract_patches + reduce_max/reduce_sum, ties
    included (a tie shares the max's gradient equally)."""
    x = np.round(normal(2, 7, 5, 3) * 1.5)  # many ties
    w = normal(*ks.nn.max_pool2d(ks.constant(x), ksize, ksize, padding).shape)

    def patch_max(x):
        patches = ks.nn.extract_patches(x, ksize, ksize, padding, pad_value=-np.inf)
        return ks.reduce_max(patches, axis=(3, 4))

    def patch_avg(x):
        total = ks.reduce_sum(ks.nn.extract_patches(x, ksize, ksize, padding), axis=(3, 4))
        ones = ks.nn.extract_patches(ks.ones_like(x[:1, :, :, :1]), ksize, ksize, padding)
        return total / ks.reduce_sum(ones, axis=(3, 4))

    def both_orders(pool):
        v = ks.constant(x)
        with ks.GradientTape() as outer:
            outer.watch(v)
            with ks.GradientTape() as inner:
                inner.watch(v)
                y = pool(v)
                loss = ks.reduce_sum(ks.constant(w) * y * y)
            g = inner.gradient(loss, v)
            second = ks.reduce_sum(g * g)
        return y.numpy(), g.numpy(), outer.gradient(second, v).numpy()

    for fast, reference in (
        (lambda v: ks.nn.max_pool2d(v, ksize, ksize, padding), patch_max),
        (lambda v: ks.nn.avg_pool2d(v, ksize, ksize, padding), patch_avg),
    ):
        for got, expected in zip(both_orders(fast), both_orders(reference)):
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_max_pool2d_gradient_routes_to_the_maximum():
    x = np.array([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0], [8.0, 6.0, 7.0]]).reshape(1, 3, 3, 1)
    _, (g,) = _grad(lambda x: ks.nn.max_pool2d(x, 2, 1, "VALID"), x)
    expected = np.zeros((3, 3))
    expected[0, 1] = 2.0  # 5 wins both top windows
    expected[2, 0] = 1.0
    expected[2, 1] = 0.0
    expected[2, 2] = 1.0
    expected[1, 2] = 0.0
    np.testing.assert_array_equal(g[0, :, :, 0], expected)


# ---------------------------------------------------------------- numerical stability

EXTREME = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -999.0]])


def _finite(*arrays):
    return all(np.all(np.isfinite(a)) for a in arrays)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_softmax_family_is_stable_at_extreme_logits(dtype):
    logits = EXTREME.astype(dtype)
    labels = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]], dtype=dtype)

    def all_of(z, t):
        return [
            ks.nn.softmax(z),
            ks.nn.log_softmax(z),
            ks.nn.softmax_cross_entropy_with_logits(t, z),
            ks.nn.sparse_softmax_cross_entropy_with_logits(np.array([1, 2]), z),
            ks.reduce_logsumexp(z, 1),
        ]

    z, t = ks.constant(logits), ks.constant(labels)
    for i, out in enumerate(all_of(z, t)):
        with ks.GradientTape() as tape:
            tape.watch([z, t])
            y = all_of(z, t)[i]
        gz, gt = tape.gradient(y, [z, t])
        assert _finite(out.numpy(), gz.numpy()), f"output {i}: {out.numpy()} / {gz.numpy()}"
        if gt is not None:
            assert _finite(gt.numpy())
    np.testing.assert_allclose(ks.nn.softmax(z).numpy()[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(ks.nn.log_softmax(z).numpy()[0], [0.0, -2000.0, -1000.0])
    # label mass on the -1000 logit costs 2000 nats, exactly
    np.testing.assert_allclose(ks.nn.softmax_cross_entropy_with_logits(t, z).numpy()[0], 2000.0)
    np.testing.assert_allclose(
        ks.nn.sparse_softmax_cross_entropy_with_logits(np.array([1, 2]), z).numpy(),
        [2000.0, -np.log(_softmax(EXTREME[1].astype(np.float64))[2])],
        rtol=1e-6,
    )
    np.testing.assert_allclose(ks.reduce_logsumexp(z, 1).numpy()[0], 1000.0)


def test_cross_entropy_gradient_at_extreme_logits_is_exact():
    logits = EXTREME[:1]
    labels = np.array([[0.0, 1.0, 0.0]])
    _, (g,) = _grad(
        lambda z: ks.nn.softmax_cross_entropy_with_logits(ks.constant(labels), z), logits
    )
    np.testing.assert_allclose(g, [[1.0, -1.0, 0.0]])
    _, (g,) = _grad(lambda z: ks.nn.log_softmax(z)[0, 1], logits)
    np.testing.assert_allclose(g, [[-1.0, 1.0, 0.0]])


@pytest.mark.parametrize("dtype", [F32, F64])
def test_sigmoid_and_softplus_are_stable(dtype):
    x = ks.constant([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype=dtype)
    with ks.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = ks.sigmoid(x)
        sp = ks.nn.softplus(x)
        xent = ks.nn.sigmoid_cross_entropy_with_logits(ks.ones_like(x), x)
        ls = ks.nn.log_sigmoid(x)
    for y in (s, sp, xent, ls):
        assert _finite(y.numpy(), tape.gradient(y, x).numpy()), y
    np.testing.assert_array_equal(s.numpy()[[0, -1]], [0.0, 1.0])
    assert float(sp[-1]) == 1000.0
    assert float(sp[0]) == 0.0
    np.testing.assert_allclose(xent.numpy()[[0, -1]], [1000.0, 0.0])
    np.testing.assert_allclose(ls.numpy()[[0, -1]], [-1000.0, 0.0])
    np.testing.assert_allclose(tape.gradient(sp, x).numpy()[[0, -1]], [0.0, 1.0])
    assert float(ks.nn.softplus(ks.constant(1000.0))) == 1000.0


@pytest.mark.parametrize("dtype", [np.float16, F32, F64])
def test_sigmoid_and_sigmoid_cross_entropy_are_accurate_in_the_tails(dtype):
    # against an extended-precision reference: a few ulp everywhere, tiny values included
    # (a tanh-based sigmoid returns 0 below ~1e-8; a plain log(1 + e) returns 0 for the
    # loss of a confidently right logit)
    x = np.linspace(-60, 60, 24001).astype(dtype)
    wide = x.astype(np.longdouble)
    eps, tiny = np.finfo(dtype).eps, np.finfo(dtype).tiny
    s_ref = 1 / (1 + np.exp(-wide))
    s = ks.sigmoid(ks.constant(x)).numpy()
    assert s.dtype == dtype
    normal = s_ref >= tiny
    assert (np.abs(s[normal] - s_ref[normal]) <= 4 * eps * s_ref[normal]).all()
    assert (s[~normal] <= tiny).all()  # below the normal range: 0 or a subnormal
    for label in (0.0, 1.0, 0.25):
        ce_ref = np.maximum(wide, 0) - wide * label + np.log1p(np.exp(-np.abs(wide)))
        ce = ks.nn.sigmoid_cross_entropy_with_logits(np.full_like(x, label), x).numpy()
        assert ce.dtype == dtype
        normal = ce_ref >= tiny
        err = np.abs(ce[normal] - ce_ref[normal]) / ce_ref[normal]
        assert err.max() <= 4 * eps, (label, float(err.max() / eps))
    # 0-d logits; NaN stays NaN and a wrong infinite logit costs inf
    assert float(ks.nn.sigmoid_cross_entropy_with_logits(0.0, -30.0)) == pytest.approx(
        9.357623e-14, rel=1e-6)
    odd = ks.nn.sigmoid_cross_entropy_with_logits([0.0, 1.0], [np.nan, -np.inf])
    np.testing.assert_array_equal(odd.numpy(), [np.nan, np.inf])


# ---------------------------------------------------------------- higher order, Jacobians


def test_hessian_of_sum_of_cubes():
    x = normal(4)
    h = ks.hessian(lambda x: ks.reduce_sum(x**3), ks.constant(x)).numpy()
    np.testing.assert_allclose(h, np.diag(6 * x), rtol=1e-12, atol=1e-14)
    v = normal(4)
    np.testing.assert_allclose(h @ v, 6 * x * v, rtol=1e-12)


def test_hessian_of_quadratic_form():
    a = normal(3, 3)  # not symmetric
    x = normal(3)
    f = lambda x: ks.reduce_sum(x * ks.matmul(ks.constant(a), ks.reshape(x, (3, 1)))[:, 0])  # noqa: E731
    np.testing.assert_allclose(float(f(ks.constant(x))), x @ a @ x, rtol=1e-12)
    h = ks.hessian(f, ks.constant(x)).numpy()
    np.testing.assert_allclose(h, a + a.T, rtol=1e-12, atol=1e-14)


def _hvp(f, x, v):
    """Hessian-vector product by reverse-over-reverse: grad of <grad f(x), v>."""
    x, v = ks.constant(x), ks.constant(v)
    with ks.GradientTape() as outer:
        outer.watch(x)
        with ks.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
        dot = ks.reduce_sum(g * v)
    return outer.gradient(dot, x).numpy()


def test_hessian_vector_products():
    x, v = normal(5), normal(5)
    np.testing.assert_allclose(_hvp(lambda x: ks.reduce_sum(x**3), x, v), 6 * x * v, rtol=1e-12)
    a = normal(5, 5)
    quad = lambda x: ks.reduce_sum(ks.matmul(ks.reshape(x, (1, 5)), ks.constant(a)) * x)  # noqa: E731
    np.testing.assert_allclose(_hvp(quad, x, v), (a + a.T) @ v, rtol=1e-12)
    # and a non-polynomial one: f = logsumexp(x), H = diag(p) - p p^T
    p = _softmax(x)
    np.testing.assert_allclose(
        _hvp(ks.reduce_logsumexp, x, v), (np.diag(p) - np.outer(p, p)) @ v, rtol=1e-10, atol=1e-14
    )


def test_hessian_through_gather_sparse_gradients():
    """Second order through gather: the inner gradient is an IndexedSlices, differentiated again."""
    p = normal(4, 2)
    ids = [0, 2, 2]
    f = lambda p: ks.reduce_sum(ks.gather(p, ids) ** 3)  # noqa: E731
    counts = np.bincount(ids, minlength=4)[:, None]
    expected = np.diag((6 * p * counts).ravel()).reshape(4, 2, 4, 2)
    np.testing.assert_allclose(ks.hessian(f, ks.constant(p)).numpy(), expected, rtol=1e-12)

    x = ks.constant(p)
    w = normal(4, 2)
    with ks.GradientTape() as outer:
        outer.watch(x)
        with ks.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    assert isinstance(g, ks.IndexedSlices)
    hvp = ks.convert_to_tensor(outer.gradient(g, x, output_gradients=ks.constant(w)))
    np.testing.assert_allclose(hvp.numpy(), 6 * p * counts * w, rtol=1e-12)


def test_hessian_of_a_linear_function_is_zero():
    a = normal(3)
    h = ks.hessian(lambda x: ks.reduce_sum(x * ks.constant(a)), ks.constant(normal(3)))
    np.testing.assert_array_equal(h.numpy(), np.zeros((3, 3)))


def test_third_derivative_through_nested_tapes():
    x = ks.constant(0.7, dtype=F64)
    with ks.GradientTape() as t3:
        t3.watch(x)
        with ks.GradientTape() as t2:
            t2.watch(x)
            with ks.GradientTape() as t1:
                t1.watch(x)
                y = ks.sin(x) * x
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    g3 = t3.gradient(g2, x)
    xv = 0.7
    np.testing.assert_allclose(float(g1), np.cos(xv) * xv + np.sin(xv), rtol=1e-12)
    np.testing.assert_allclose(float(g2), 2 * np.cos(xv) - xv * np.sin(xv), rtol=1e-12)
    np.testing.assert_allclose(float(g3), -3 * np.sin(xv) - xv * np.cos(xv), rtol=1e-12)


def test_jacobian_closed_forms():
    a = normal(2, 3)
    x = normal(3)
    j = ks.jacobian(
        lambda x: ks.matmul(ks.constant(a), ks.reshape(x, (3, 1)))[:, 0], ks.constant(x)
    )
    np.testing.assert_allclose(j.numpy(), a, rtol=1e-12)
    j = ks.jacobian(ks.sin, ks.constant(x)).numpy()
    np.testing.assert_allclose(j, np.diag(np.cos(x)), rtol=1e-12, atol=1e-15)
    m = normal(2, 2)
    j = ks.jacobian(lambda m: m * m, ks.constant(m)).numpy()
    assert j.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(j.reshape(4, 4), np.diag(2 * m.ravel()), rtol=1e-12)
    j = ks.jacobian(lambda x: ks.reduce_sum(x * x), ks.constant(x)).numpy()
    np.testing.assert_allclose(j, 2 * x)


def test_tape_jacobian_with_several_sources():
    x, y = ks.constant(normal(3)), ks.constant(normal(2))
    unused = ks.constant(normal(2))
    with ks.GradientTape(persistent=True) as tape:
        tape.watch([x, y, unused])
        z = ks.reshape(x, (3, 1)) * ks.exp(y)  # (3, 2)
    jx, jy, ju = tape.jacobian(z, [x, y, unused])
    ex = np.zeros((3, 2, 3))
    ey = np.zeros((3, 2, 2))
    for i in range(3):
        for k in range(2):
            ex[i, k, i] = np.exp(y.numpy()[k])
            ey[i, k, k] = x.numpy()[i] * np.exp(y.numpy()[k])
    np.testing.assert_allclose(jx.numpy(), ex, rtol=1e-12)
    np.testing.assert_allclose(jy.numpy(), ey, rtol=1e-12)
    assert ju is None
    ju = tape.jacobian(z, unused, unconnected_gradients="zero")
    np.testing.assert_array_equal(ju.numpy(), np.zeros((3, 2, 2)))


def test_batch_jacobian_closed_form():
    w = normal(3, 4)
    x = ks.constant(normal(5, 3))
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = ks.tanh(ks.matmul(x, ks.constant(w)))  # (5, 4)
    bj = tape.batch_jacobian(y, x).numpy()
    assert bj.shape == (5, 4, 3)
    d = 1 - y.numpy() ** 2
    expected = d[:, :, None] * w.T[None, :, :]
    np.testing.assert_allclose(bj, expected, rtol=1e-12)
    # it agrees with the diagonal blocks of the full Jacobian
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = ks.tanh(ks.matmul(x, ks.constant(w)))
    full = tape.jacobian(y, x).numpy()
    np.testing.assert_allclose(full[np.arange(5), :, np.arange(5), :], bj, rtol=1e-12)


@pytest.fixture
def compiled_loops_both_ways(monkeypatch):
    """run(f, names) -> (f's arrays with the compiled loops of im2col, col2im and max
    pooling's gradient, the same by NumPy), the loops `names` asserted to be those taken."""
    pytest.importorskip("numba")  # (the loops are numba's: kerasish[fast])
    from kerasish.core import numba_kernels
    from kerasish.core.ops import conv_ops

    kernels = conv_ops.backend.numba_kernels()
    calls = []
    for name in ("windows", "patches_to_image", "max_pool_blocks_grad"):
        compiled = getattr(numba_kernels, name)
        monkeypatch.setattr(kernels, name,
                            lambda *a, _f=compiled, _n=name: calls.append(_n) or _f(*a))
    loops = conv_ops._compiled_loops

    def run(f, expected_calls):
        results = []
        for compiled in (True, False):
            monkeypatch.setattr(conv_ops, "_compiled_loops", loops if compiled else
                                lambda x: None)
            calls.clear()
            results.append([np.asarray(r) for r in f()])
            assert set(calls) == (set(expected_calls) if compiled else set())
        return results

    return run


@pytest.mark.cpu  # the compiled loops are a CPU path
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ksize, strides, padding, dilations, pad_value", [
    ((3, 3), (2, 2), "SAME", (1, 1), 0.0),
    ((2, 3), (1, 2), "VALID", (1, 1), 0.0),
    ((3, 2), (2, 1), "SAME", (2, 3), -np.inf),  # a max pool's padding
    ((1, 4), (3, 3), "SAME", (1, 1), 2.5),
])
def test_compiled_windows_and_col2im_give_numpys_bits(compiled_loops_both_ways, dtype, ksize,
                                                      strides, padding, dilations, pad_value):
    """extract_patches by the compiled loop copies NumPy's windows (padding cells holding
    pad_value), and patches_to_image's gather adds each pixel's entries in NumPy's order:
    both bit for bit, on a strided (non-contiguous) image too."""
    x = normal(2, 7, 8, 3).astype(dtype)
    shape = np.asarray(ks.nn.extract_patches(x, ksize, strides, padding, 0, dilations)).shape
    entries = normal(*shape).astype(dtype)

    def f():
        image = ks.constant(x)[:, ::-1]  # (a view with a negative stride)
        patches = ks.nn.extract_patches(image, ksize, strides, padding, pad_value, dilations)
        back = ks.nn.patches_to_image(ks.constant(entries), x.shape, ksize, strides, padding,
                                      dilations)
        return [patches, back]

    compiled, numpy = compiled_loops_both_ways(f, ["windows", "patches_to_image"])
    for got, want in zip(compiled, numpy):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.cpu
@pytest.mark.parametrize("image, kernel, strides, padding, dilations", [
    ((3, 28, 28, 16), (3, 3), 2, "SAME", 1),  # a decoder step, in blocks of images
    ((1, 7, 6, 2), (2, 2), (3, 1), "VALID", 1),  # stride 3 > kernel: an empty phase
    ((2, 9, 8, 2), (3, 2), (2, 3), "SAME", (2, 1)),
    ((2, 6, 6, 4), (4, 4), 2, "SAME", 1),
])
def test_transposed_convolution_gathered_equals_its_phases(
        compiled_loops_both_ways, monkeypatch, image, kernel, strides, padding, dilations):
    """The transposed convolution by products gathered onto the output (the compiled path)
    gives the per-phase shifted sums' values and gradients of y, the filters and the fused
    bias, with the products in one block and in blocks of one image."""
    from kerasish.core.ops import conv_ops

    rng = np.random.default_rng(0)
    n, h, w, cout = image
    ho, wo, _ = conv_ops._plan(image, kernel, conv_ops._pair(strides, "test"), padding, "test",
                               conv_ops._pair(dilations, "test"))
    y, filters = rng.standard_normal((n, ho, wo, 5)), rng.standard_normal(kernel + (cout, 5))
    bias, upstream = rng.standard_normal(cout), rng.standard_normal(image)

    def f():
        tensors = [ks.constant(v) for v in (y, filters, bias)]
        with ks.GradientTape() as tape:
            tape.watch(tensors)
            out = ks.nn.conv2d_transpose(tensors[0], tensors[1], image, strides, padding,
                                         dilations, bias=tensors[2])
        return [out, *tape.gradient(out, tensors, output_gradients=ks.constant(upstream))]

    for block in (1 << 19, 1):
        monkeypatch.setattr(conv_ops, "IM2COL_BLOCK_VALUES", block)
        gathered, phases = compiled_loops_both_ways(f, ["windows", "patches_to_image"])
        for got, want in zip(gathered, phases):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.cpu
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's route: a NaN block's dy / 0)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, ksize, padding", [
    ((2, 6, 8, 3), (2, 2), "VALID"),
    ((2, 7, 9, 3), (2, 2), "VALID"),  # the last row and column in no block: gradient 0
    ((2, 7, 5, 3), (2, 3), "SAME"),  # padded blocks (-inf cells)
    ((2, 5, 5, 3), (3, 3), "SAME"),
])
def test_compiled_max_pooling_gradient_gives_numpys_bits(compiled_loops_both_ways, dtype,
                                                         shape, ksize, padding):
    """Max pooling's gradient over tiling blocks by the compiled loop gives NumPy's bits:
    ties (0.0 and -0.0 too) sharing the gradient, NaN winning its
    block and making its gradient NaN, a block of -inf."""
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, shape).astype(dtype)  # many ties
    x[0, 0, 0, 0], x[0, 0, 1, 0] = 0.0, -0.0
    x[0, 2, 2, 1] = np.nan
    x[1, :3, :3, 2] = -np.inf
    upstream = rng.standard_normal(np.asarray(
        ks.nn.max_pool2d(x, ksize, ksize, padding)).shape).astype(dtype)

    def f():
        image = ks.constant(x)
        with ks.GradientTape() as tape:
            tape.watch(image)
            y = ks.nn.max_pool2d(image, ksize, ksize, padding)
        return [y, tape.gradient(y, image, output_gradients=ks.constant(upstream))]

    compiled, numpy = compiled_loops_both_ways(f, ["max_pool_blocks_grad"])
    assert np.isnan(numpy[1]).any() and (numpy[1] == 0).any()
    for got, want in zip(compiled, numpy):
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("size, dtype", [(16, "float32"), (17, "float64")])
def test_max_pooling_shares_the_gradient_of_hundreds_of_tied_cells(monkeypatch, size, dtype):
    """A 16x16 or 17x17 block of equal values (a region a ReLU zeroed) shares its gradient
    equally, by the compiled loop and by NumPy's masks: the count of tied cells does not
    wrap at 256 (it did, and every share was inf)."""
    from kerasish.core.ops import conv_ops

    for path in (conv_ops._compiled_loops, lambda x: None):
        monkeypatch.setattr(conv_ops, "_compiled_loops", path)
        x = ks.zeros([1, size, size, 2], dtype=dtype)
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = ks.nn.max_pool2d(x, size, size, "VALID")
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(),
                                      np.full((1, size, size, 2), 1 / size**2, dtype))
