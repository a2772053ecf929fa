"""Values, dtypes and error messages of the ops: reductions, activations, scans, gathers,
mirror padding and the convolutions.

Gradients of the primitives are checked to second order in test_gradients.py (SAMPLES);
here: closed forms, references computed directly with NumPy loops, and the composite
convolutions' gradients.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.ops import math_ops
from kerasish.testing import check_gradients

RNG = np.random.default_rng(1212)


def _grad(f, x):
    x = ks.constant(x)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


# ---------------------------------------------------------------- fixed ops


def test_integer_reduce_sum_and_mean_keep_int32():
    x = ks.constant(np.array([[1, -2], [3, 4]], dtype=np.int32))
    assert ks.reduce_sum(x).dtype == ks.int32
    assert ks.reduce_sum(x, 0).dtype == ks.int32
    assert ks.reduce_mean(x, 1).dtype == ks.int32
    assert ks.reduce_sum(ks.constant(np.array([1, 2], dtype=np.uint8))).dtype == ks.uint8


def test_integer_reduce_mean_rounds_toward_zero():
    x = ks.constant(np.array([[-3, 0], [3, 0], [-7, 2], [7, -2]], dtype=np.int32))
    assert ks.reduce_mean(x, 1).numpy().tolist() == [-1, 1, -2, 2]  # TF: C division
    assert int(ks.reduce_mean(ks.constant(np.array([-1, -2], dtype=np.int64)))) == -1
    assert ks.truncatediv(ks.constant([-7, 7, -6]), 2).numpy().tolist() == [-3, 3, -3]


def test_logsumexp_float32_gradient_for_large_magnitudes():
    x = np.array([-1000.0, -1001.0, -1000.5], dtype=np.float32)
    g = _grad(ks.reduce_logsumexp, x)
    wide = x.astype(np.float64)
    reference = np.exp(wide - wide.max()) / np.exp(wide - wide.max()).sum()
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, reference, rtol=1e-7)
    rows = np.array([[500.0, 499.0], [-2000.0, -2000.25]], dtype=np.float32)
    g = _grad(lambda t: ks.reduce_logsumexp(t, 1), rows)
    np.testing.assert_allclose(g.sum(axis=1), [1.0, 1.0], rtol=1e-7)
    np.testing.assert_allclose(g[1, 0], 1 / (1 + math.exp(-0.25)), rtol=1e-7)


def test_relu6_gradient_is_zero_at_0_and_6():
    x = np.array([-1.0, 0.0, 3.0, 6.0, 7.0])
    np.testing.assert_array_equal(_grad(ks.nn.relu6, x), [0.0, 0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(ks.nn.relu6(x).numpy(), [0.0, 0.0, 3.0, 6.0, 6.0])
    assert np.isnan(ks.nn.relu6(np.array([np.nan])).numpy()[0])


# ---------------------------------------------------------------- activations


def test_erf_and_erfc_match_math_module():
    x = np.concatenate([np.linspace(-7.0, 7.0, 2801), [0.0, 1e-300, -2.0, 2.0, 40.0, -40.0]])
    erf = math_ops.erf(x).numpy()
    erfc = math_ops.erfc(x).numpy()
    np.testing.assert_allclose(erf, [math.erf(v) for v in x], rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(erfc, [math.erfc(v) for v in x], rtol=1e-12, atol=1e-300)
    x32 = x.astype(np.float32)
    erfc32 = math_ops.erfc(x32).numpy()
    assert erfc32.dtype == np.float32
    np.testing.assert_allclose(erfc32, [math.erfc(float(v)) for v in x32], rtol=2e-7, atol=1e-38)


def test_erf_rejects_integers():
    with pytest.raises(TypeError, match="erf: needs a floating-point input, got int"):
        math_ops.erf(ks.constant([1, 2]))


@pytest.mark.cpu
def test_gelu_selu_closed_forms():
    x = np.array([-6.0, -4.0, -1.0, 0.0, 0.5, 3.0])
    exact = [v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x]
    np.testing.assert_allclose(ks.nn.gelu(x).numpy(), exact, rtol=1e-13)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(ks.nn.gelu(x, approximate=True).numpy(), tanh_form, rtol=1e-13)
    # float32 far in the left tail: no cancellation in 1 + erf
    g32 = ks.nn.gelu(np.array([-5.0], dtype=np.float32)).numpy()
    np.testing.assert_allclose(g32, [-5.0 * 0.5 * math.erfc(5 / math.sqrt(2))], rtol=1e-6)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    selu = np.where(x > 0, scale * x, scale * alpha * np.expm1(x))
    np.testing.assert_allclose(ks.nn.selu(x).numpy(), selu, rtol=1e-14)
    np.testing.assert_allclose(
        _grad(ks.nn.selu, x), np.where(x > 0, scale, scale * alpha * np.exp(x)), rtol=1e-14
    )


def test_activation_names_follow_keras_formulas():
    x = np.array([-4.0, -3.0, -1.0, 0.0, 1.0, 2.5, 3.0, 4.0])
    hard_sigmoid = np.clip(x / 6 + 0.5, 0, 1)
    expected = {
        "hard_sigmoid": hard_sigmoid,
        "hard_silu": x * hard_sigmoid,
        "hard_swish": x * hard_sigmoid,
        "mish": x * np.tanh(np.log1p(np.exp(x))),
        "exponential": np.exp(x),
        "gelu": [v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x],
        "selu": ks.nn.selu(x).numpy(),
    }
    for name, values in expected.items():
        np.testing.assert_allclose(
            ks.activations.get(name)(x).numpy(), values, rtol=1e-13, err_msg=name
        )
    check_gradients(ks.activations.get("mish"), [RNG.standard_normal(5)])
    check_gradients(ks.activations.get("hard_silu"), [np.array([-4.0, -1.0, 0.5, 2.0, 5.0])])


# ---------------------------------------------------------------- scans and products


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod_modes_match_numpy(exclusive, reverse):
    x = RNG.standard_normal((3, 4))
    for op, np_op, unit in ((ks.cumsum, np.cumsum, 0.0), (ks.cumprod, np.cumprod, 1.0)):
        source = x[:, ::-1] if reverse else x
        expected = np_op(source, axis=1)
        if exclusive:
            expected = np.concatenate([np.full((3, 1), unit), expected[:, :-1]], axis=1)
        if reverse:
            expected = expected[:, ::-1]
        got = op(x, axis=1, exclusive=exclusive, reverse=reverse).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-14, err_msg=op.__name__)


def test_scans_keep_integer_dtype_and_reject_scalars():
    x = ks.constant(np.array([1, 2, 3], dtype=np.int32))
    assert ks.cumsum(x).dtype == ks.int32
    assert ks.cumprod(x).numpy().tolist() == [1, 2, 6]
    assert ks.reduce_prod(x).dtype == ks.int32
    with pytest.raises(ks.InvalidArgumentError, match="cumsum: needs a tensor of rank >= 1"):
        ks.cumsum(3.0)


def test_reduce_prod_values_and_gradient_with_zeros():
    x = RNG.standard_normal((2, 3, 4))
    for axis in (None, 0, (1, 2), -1):
        for keepdims in (False, True):
            np.testing.assert_allclose(
                ks.reduce_prod(x, axis, keepdims).numpy(),
                np.prod(x, axis=axis, keepdims=keepdims),
                rtol=1e-13,
            )
    np.testing.assert_array_equal(
        _grad(ks.reduce_prod, np.array([2.0, 0.0, 3.0, 4.0])), [0.0, 24.0, 0.0, 0.0]
    )
    np.testing.assert_array_equal(
        _grad(ks.reduce_prod, np.array([2.0, 0.0, 3.0, 0.0])), [0.0, 0.0, 0.0, 0.0]
    )
    np.testing.assert_array_equal(ks.reduce_prod(np.zeros((2, 0)), 1).numpy(), [1.0, 1.0])


def test_cumprod_gradient_with_zeros_is_exact():
    # y = cumprod([a, 0, c]) = [a, 0, 0]; d(sum y)/dx = [1, a + a c, 0]
    a, c = 1.5, -2.0
    np.testing.assert_allclose(
        _grad(ks.cumprod, np.array([a, 0.0, c])), [1.0, a + a * c, 0.0], rtol=1e-15
    )


# ---------------------------------------------------------------- gathers


def test_gather_batch_dims_matches_a_loop():
    params = RNG.standard_normal((2, 3, 5, 4))
    ids = RNG.integers(0, 5, (2, 3, 6))
    got = ks.gather(params, ids, axis=2, batch_dims=2).numpy()
    expected = np.stack([np.stack([params[i, j][ids[i, j]] for j in range(3)]) for i in range(2)])
    np.testing.assert_array_equal(got, expected)
    ids1 = RNG.integers(0, 5, (2, 7))
    got = ks.gather(params, ids1, axis=2, batch_dims=1).numpy()
    np.testing.assert_array_equal(got, np.stack([params[i][:, ids1[i]] for i in range(2)]))
    assert got.shape == (2, 3, 7, 4)
    np.testing.assert_array_equal(ks.gather(params, ids, batch_dims=-1).numpy(),
                                  ks.gather(params, ids, axis=2, batch_dims=2).numpy())
    check_gradients(lambda p: ks.gather(p, ids1, axis=2, batch_dims=1) ** 2, [params])


def test_gather_batch_dims_errors():
    params = np.zeros((2, 3, 5))
    with pytest.raises(ks.InvalidArgumentError, match=r"gather: with batch_dims=1, params "
                       r"shape \(2, 3, 5\) and indices shape \(3, 2\) must agree"):
        ks.gather(params, np.zeros((3, 2), dtype=np.int32), axis=2, batch_dims=1)
    with pytest.raises(ks.InvalidArgumentError, match="axis 0 must not be smaller than"):
        ks.gather(params, np.zeros((2, 2), dtype=np.int32), axis=0, batch_dims=1)
    with pytest.raises(ks.InvalidArgumentError, match=r"gather: indices\[1, 0\] = 5 is not in"):
        ks.gather(params, np.array([[0], [5]]), axis=2, batch_dims=1)


def test_gather_nd_values_batch_dims_and_gradient():
    params = RNG.standard_normal((3, 4, 2))
    ids = np.array([[[1, 2], [0, 0]], [[2, 3], [1, 1]]])
    np.testing.assert_array_equal(
        ks.gather_nd(params, ids).numpy(), params[ids[..., 0], ids[..., 1]]
    )
    np.testing.assert_array_equal(ks.gather_nd(params, [[2, 3, 1]]).numpy(), [params[2, 3, 1]])
    batched = ks.gather_nd(params, np.array([[[1]], [[3]], [[0]]]), batch_dims=1).numpy()
    np.testing.assert_array_equal(batched[:, 0], params[[0, 1, 2], [1, 3, 0]])
    check_gradients(lambda p: ks.gather_nd(p, ids) ** 2, [params])


def test_gather_nd_errors():
    params = np.zeros((3, 4))
    with pytest.raises(ks.InvalidArgumentError, match=r"gather_nd: indices\[1\] = \[0, 4\] "
                       r"does not index into params of shape \(3, 4\)"):
        ks.gather_nd(params, [[2, 3], [0, 4]])
    with pytest.raises(ks.InvalidArgumentError, match="has 3 coordinates per index"):
        ks.gather_nd(params, [[0, 0, 0]])
    with pytest.raises(ks.InvalidArgumentError, match="indices must be integers"):
        ks.gather_nd(params, [[0.0, 1.0]])


# ---------------------------------------------------------------- mirror padding


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad_matches_numpy(mode):
    x = RNG.standard_normal((3, 4, 2))
    limit = 2 if mode == "REFLECT" else 3
    paddings = [[limit, 1], [0, limit], [1, 1]]
    np.testing.assert_array_equal(
        ks.pad(x, paddings, mode=mode.lower()).numpy(), np.pad(x, paddings, mode=mode.lower())
    )


def test_mirror_pad_errors():
    with pytest.raises(ks.InvalidArgumentError, match=r"pad: REFLECT padding of axis 1 by "
                       r"\(0, 3\) needs each side to be at most 2 for a size of 3"):
        ks.pad(np.zeros((2, 3)), [[1, 1], [0, 3]], mode="REFLECT")
    with pytest.raises(ks.InvalidArgumentError, match="mode must be 'CONSTANT', 'REFLECT'"):
        ks.pad(np.zeros((2, 3)), [[1, 1], [0, 3]], mode="EDGE")


# ---------------------------------------------------------------- convolutions


def _reference_conv(x, w, strides, padding, dilations):
    """A direct loop over output cells: grouped when x has a multiple of w's in-channels."""
    kh, kw, cin, cout = w.shape
    n, h, wd, c = x.shape
    span = ((kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1)
    if padding == "SAME":
        out_h, out_w = -(-h // strides[0]), -(-wd // strides[1])
        th = max((out_h - 1) * strides[0] + span[0] - h, 0)
        tw = max((out_w - 1) * strides[1] + span[1] - wd, 0)
        x = np.pad(x, ((0, 0), (th // 2, th - th // 2), (tw // 2, tw - tw // 2), (0, 0)))
    else:
        out_h = (h - span[0]) // strides[0] + 1
        out_w = (wd - span[1]) // strides[1] + 1
    out = np.zeros((n, out_h, out_w, cout))
    per_group = cout // (c // cin)
    for o in range(cout):
        g = o // per_group
        for i in range(out_h):
            for j in range(out_w):
                r, q = i * strides[0], j * strides[1]
                window = x[:, r : r + span[0] : dilations[0], q : q + span[1] : dilations[1],
                           g * cin : (g + 1) * cin]
                out[:, i, j, o] = (window * w[..., o]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize(
    "strides,dilations", [((1, 1), (2, 2)), ((2, 1), (1, 3)), ((2, 2), (2, 1))]
)
def test_conv2d_dilations_and_groups_match_reference(padding, strides, dilations):
    x = RNG.standard_normal((2, 7, 8, 4))
    for w in (RNG.standard_normal((2, 2, 4, 3)), RNG.standard_normal((3, 2, 2, 6))):
        np.testing.assert_allclose(
            ks.nn.conv2d(x, w, strides, padding, dilations).numpy(),
            _reference_conv(x, w, strides, padding, dilations),
            rtol=1e-12, atol=1e-12,
        )


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_dilated_grouped_gradients(padding):
    x = RNG.standard_normal((1, 6, 5, 4))
    w = RNG.standard_normal((2, 3, 2, 4)) * 0.5
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w, 1, padding, (2, 1))), [x, w])
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w, 2, padding)), [x, w])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), ((3, 2), 1), (1, (2, 1))])
def test_conv2d_transpose_is_the_adjoint_of_conv2d(padding, strides, dilations):
    x = RNG.standard_normal((2, 7, 6, 3))
    w = RNG.standard_normal((3, 2, 3, 5))  # conv2d HWIO == conv2d_transpose (h, w, out, in)
    y = RNG.standard_normal(ks.nn.conv2d(x, w, strides, padding, dilations).shape)
    forward = ks.nn.conv2d(x, w, strides, padding, dilations).numpy()
    adjoint = ks.nn.conv2d_transpose(y, w, x.shape, strides, padding, dilations).numpy()
    np.testing.assert_allclose((forward * y).sum(), (x * adjoint).sum(), rtol=1e-12)
    check_gradients(
        lambda y, w: ks.tanh(ks.nn.conv2d_transpose(y, w, (1,) + x.shape[1:], strides, padding,
                                                    dilations)),
        [y[:1], w * 0.5],
    )


def test_conv2d_transpose_shape_errors():
    with pytest.raises(ks.InvalidArgumentError, match=r"conv2d_transpose: a convolution of an "
                       r"output_shape \(1, 5, 5, 2\) image .* has shape \(1, 3, 3, 4\), not the "
                       r"input's \(1, 2, 2, 4\)"):
        ks.nn.conv2d_transpose(np.zeros((1, 2, 2, 4)), np.zeros((3, 3, 2, 4)), (1, 5, 5, 2), 2)
    with pytest.raises(ks.InvalidArgumentError, match="must have the 4 and 2 channels"):
        ks.nn.conv2d_transpose(np.zeros((1, 2, 2, 3)), np.zeros((3, 3, 2, 4)), (1, 4, 4, 2), 2)


def test_depthwise_separable_and_1d_convolutions():
    x = RNG.standard_normal((2, 6, 5, 3))
    depthwise = RNG.standard_normal((3, 2, 3, 2))
    got = ks.nn.depthwise_conv2d(x, depthwise, 1, "SAME", (1, 2)).numpy()
    expected = np.concatenate(
        [_reference_conv(x[..., c : c + 1], depthwise[:, :, c : c + 1], (1, 1), "SAME", (1, 2))
         for c in range(3)], axis=-1,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    pointwise = RNG.standard_normal((1, 1, 6, 4))
    separable = ks.nn.separable_conv2d(x, depthwise, pointwise, 1, "SAME", (1, 2)).numpy()
    np.testing.assert_allclose(separable, expected @ pointwise[0, 0], rtol=1e-12, atol=1e-12)
    sequence = RNG.standard_normal((2, 9, 4))
    filters = RNG.standard_normal((3, 2, 6))  # 2 groups
    got = ks.nn.conv1d(sequence, filters, 2, "SAME", 1).numpy()
    expected = _reference_conv(sequence[:, None], filters[None], (1, 2), "SAME", (1, 1))[:, 0]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_conv2d_channel_errors_name_both_shapes():
    with pytest.raises(ks.InvalidArgumentError, match=r"conv2d: input shape \(1, 4, 4, 3\) "
                       r"\(NHWC\) has 3 channels but filters shape \(2, 2, 2, 4\)"):
        ks.nn.conv2d(np.zeros((1, 4, 4, 3)), np.zeros((2, 2, 2, 4)))
    with pytest.raises(ks.InvalidArgumentError, match="depthwise_conv2d: input shape"):
        ks.nn.depthwise_conv2d(np.zeros((1, 4, 4, 3)), np.zeros((2, 2, 2, 1)))


def test_tf_math_spellings():
    assert ks.math.erf is math_ops.erf and ks.math.erfc is math_ops.erfc
    assert ks.math.cumsum is ks.cumsum and ks.math.cumprod is ks.cumprod
    assert ks.math.reduce_prod is ks.reduce_prod and ks.math.truncatediv is ks.truncatediv


def test_pointwise_and_depthwise_paths_match_reference_and_gradients():
    x = RNG.standard_normal((2, 4, 5, 3))
    pointwise = RNG.standard_normal((1, 1, 3, 4))
    for padding in ("SAME", "VALID"):
        np.testing.assert_allclose(
            ks.nn.conv2d(x, pointwise, 1, padding).numpy(),
            _reference_conv(x, pointwise, (1, 1), padding, (1, 1)), rtol=1e-12, atol=1e-12,
        )
    check_gradients(lambda x, w: ks.tanh(ks.nn.conv2d(x, w)), [x, pointwise])
    depthwise = RNG.standard_normal((2, 3, 3, 2)) * 0.5  # multiplier 2
    check_gradients(
        lambda x, w: ks.tanh(ks.nn.depthwise_conv2d(x, w, 1, "SAME")), [x[:1], depthwise]
    )


def test_mirror_unpad_is_the_adjoint_of_mirror_pad():
    x = RNG.standard_normal((3, 4))
    for mode, paddings in (("REFLECT", [[2, 1], [3, 0]]), ("SYMMETRIC", [[3, 3], [1, 4]])):
        padded = ks.pad(x, paddings, mode=mode).numpy()
        g = RNG.standard_normal(padded.shape)
        back = _grad(lambda t, p=paddings, m=mode, g=g: ks.reduce_sum(ks.pad(t, p, mode=m) * g),
                     x)
        np.testing.assert_allclose((padded * g).sum(), (x * back).sum(), rtol=1e-12)


@pytest.mark.parametrize("call,message", [
    (lambda: ks.gather(np.zeros((2, 3)), np.zeros((2, 1), np.int32), batch_dims=3),
     "gather: batch_dims=3 is out of range for indices of rank 2"),
    (lambda: ks.gather_nd(np.zeros((2, 3)), np.zeros((3, 1), np.int32), batch_dims=1),
     r"gather_nd: with batch_dims=1, params shape \(2, 3\) and indices shape \(3, 1\)"),
    (lambda: ks.gather_nd(np.zeros((2, 3)), 1), "gather_nd: indices must have rank >= 1"),
    (lambda: ks.pad(np.zeros((2, 3)), [[1, -1], [0, 0]]),
     r"pad: paddings must be non-negative, got \(\(1, -1\), \(0, 0\)\)"),
    (lambda: ks.nn.conv1d(np.zeros((2, 5)), np.zeros((3, 1, 2))),
     r"conv1d: input must be NWC \(rank 3\) .* got shapes \(2, 5\) and \(3, 1, 2\)"),
    (lambda: ks.nn.conv1d(np.zeros((2, 5, 1)), np.zeros((3, 1, 2)), stride=(1, 2)),
     r"conv1d: expected an int or 1 value, got \(1, 2\)"),
    (lambda: ks.nn.conv2d_transpose(np.zeros((1, 2, 2, 1)), np.zeros((3, 3, 1)), (1, 4, 4, 1)),
     r"conv2d_transpose: filters must be \(height, width, out, in\) \(rank 4\), got shape"),
])
def test_op_argument_errors(call, message):
    with pytest.raises(ks.InvalidArgumentError, match=message):
        call()


def test_divide_no_nan_is_zero_where_the_divisor_is_zero_with_a_zero_gradient():
    x = ks.Variable([3.0, np.inf, np.nan, 1.0])
    y = ks.Variable([2.0, 0.0, 0.0, 0.0])
    with ks.GradientTape() as tape:
        out = ks.math.divide_no_nan(x, y)
    assert out.numpy().tolist() == [1.5, 0.0, 0.0, 0.0]
    dx, dy = tape.gradient(out, [x, y])
    assert dx.numpy().tolist() == [0.5, 0.0, 0.0, 0.0]
    assert dy.numpy().tolist() == [-0.75, 0.0, 0.0, 0.0]
    check_gradients(ks.math.divide_no_nan, [np.array([1.0, -2.0]), np.array([0.5, 3.0])])
