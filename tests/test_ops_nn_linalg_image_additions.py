"""The Keras 3 names added to `ks.ops.nn`, `ks.ops.linalg`, `ks.ops.image` and `ks.losses`
(CTC): gradients against finite differences (float64, to second order where the op is
smooth), values from first principles, and every error message. Their values against Keras
itself are in test_ops_nn_linalg_image_keras_parity.py."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import ops
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients


def _x(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


# ---------------------------------------------------------------- gradients


@pytest.mark.parametrize("name,kwargs", [
    ("celu", {"alpha": 0.7}), ("glu", {}), ("hard_silu", {}), ("soft_shrink", {}),
    ("tanh_shrink", {}), ("sparse_plus", {}), ("squareplus", {"b": 2}), ("sparsemax", {}),
    ("gelu", {}), ("softmax", {"axis": (0, 1)}), ("log_softmax", {"axis": (0, 1)}),
])
def test_activation_gradients(name, kwargs):
    x = _x(3, 4) + 0.05  # away from the kinks at 0, +-0.5, +-1
    check_gradients(lambda v: getattr(ops.nn, name)(v, **kwargs), [x])


def test_normalization_gradients():
    x, gamma, beta = _x(2, 3, 4), _x(4, seed=1), _x(4, seed=2)
    check_gradients(lambda v, g, b: ops.nn.layer_normalization(v, g, b, epsilon=1e-3),
                    [x, gamma, beta])
    check_gradients(lambda v: ops.nn.layer_normalization(v, axis=(1, 2)), [x])
    check_gradients(lambda v, g: ops.nn.layer_normalization(v, g, rms_scaling=True), [x, gamma])
    for order in (1, 2, 3):
        check_gradients(lambda v, order=order: ops.nn.normalize(v, order=order), [x], order=1)


def test_layer_normalization_values():
    x = _x(2, 5)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(ops.nn.layer_normalization(x).numpy(), want, atol=1e-6)


def test_psnr_polar_and_rearrangement_gradients():
    a, b = _x(3, 4), _x(3, 4, seed=1)
    check_gradients(lambda u, v: ops.nn.psnr(u, v, 2.0), [a, b])
    # polar's complex result: values only (the tape follows real floating outputs)
    np.testing.assert_allclose(ops.nn.polar(np.abs(a), b).numpy(), np.abs(a) * np.exp(1j * b))
    x = _x(2, 4, 6, 8)
    for data_format in ("channels_last", "channels_first"):
        check_gradients(lambda v, f=data_format: ops.nn.depth_to_space(v, 2, f), [x], order=1)
        check_gradients(lambda v, f=data_format: ops.nn.space_to_depth(v, 2, f), [x], order=1)


def test_depth_and_space_are_inverses():
    x = _x(2, 4, 6, 8)
    for data_format in ("channels_last", "channels_first"):
        there = ops.nn.space_to_depth(x, 2, data_format)
        np.testing.assert_array_equal(ops.nn.depth_to_space(there, 2, data_format).numpy(), x)


def test_fold_and_unfold_gradients_and_adjointness():
    x = _x(2, 3, 7, 6)
    args = ((3, 2), (2, 1), (1, 0), (1, 2))
    blocks = ops.nn.unfold(x, *args)
    check_gradients(lambda v: ops.nn.unfold(v, *args), [x], order=1)
    y = _x(*blocks.shape, seed=4)
    check_gradients(lambda v: ops.nn.fold(v, (7, 6), *args), [y], order=1)
    # <unfold(x), y> = <x, fold(y)>: fold is unfold's adjoint
    left = float(np.sum(blocks.numpy() * y))
    right = float(np.sum(x * ops.nn.fold(y, (7, 6), *args).numpy()))
    assert left == pytest.approx(right, rel=1e-10)


def test_dot_product_attention_gradients_and_grouped_heads():
    q, k, v = _x(1, 3, 4, 2), _x(1, 5, 2, 2, seed=1), _x(1, 5, 2, 2, seed=2)
    mask = np.ones((1, 1, 3, 5), bool)
    mask[..., 1] = False
    check_gradients(lambda a, b, c: ops.nn.dot_product_attention(a, b, c, mask=mask),
                    [q, k, v], order=1)
    check_gradients(lambda a, b, c, d: ops.nn.dot_product_attention(a, b, c, bias=d,
                                                                    is_causal=True),
                    [q, k, v, _x(1, 4, 3, 5, seed=3)], order=1)
    grouped = ops.nn.dot_product_attention(q, k, v, is_causal=True)
    repeated = ops.nn.dot_product_attention(q, np.repeat(k, 2, 2), np.repeat(v, 2, 2),
                                            is_causal=True)
    np.testing.assert_allclose(grouped.numpy(), repeated.numpy(), atol=1e-12)


def test_dot_product_attention_values():
    q, k, v = _x(1, 2, 1, 3), _x(1, 4, 1, 3, seed=1), _x(1, 4, 1, 3, seed=2)
    logits = q[0, :, 0] @ k[0, :, 0].T / np.sqrt(3)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(ops.nn.dot_product_attention(q, k, v).numpy()[0, :, 0],
                               probs @ v[0, :, 0], atol=1e-12)


def test_ctc_loss_gradient_and_value():
    logits = _x(2, 5, 4, seed=7)
    labels = np.array([[1, 3, 3], [2, 0, 0]])
    check_gradients(lambda x: ops.nn.ctc_loss(labels, x, [3, 1], [5, 4]), [logits], order=1)
    # two frames, one label: the alignments (1, b), (b, 1), (1, 1) of a uniform output
    value = ops.nn.ctc_loss([[1]], np.zeros((1, 2, 2)), [1], [2])
    np.testing.assert_allclose(value.numpy(), [-np.log(3 / 4)], atol=1e-6)


def test_ctc_loss_object_and_registry():
    logits = _x(2, 6, 4, seed=8).astype(np.float32)
    labels = np.array([[1, 2, 0], [3, 0, 0]])
    per_sequence = ks.losses.ctc(labels, logits)
    want = ops.nn.ctc_loss(labels, logits, [2, 1], [6, 6])
    np.testing.assert_allclose(per_sequence.numpy(), want.numpy())
    loss = ks.losses.get("ctc")
    assert isinstance(loss, ks.losses.CTC)
    assert float(loss(labels, logits)) == pytest.approx(float(np.mean(want.numpy())))
    again = ks.losses.deserialize(ks.losses.serialize(ks.losses.CTC(reduction="sum")))
    assert again.reduction == "sum" and again.name == "ctc"
    assert ks.losses.CTC(dtype="float64")(labels, logits).dtype == np.float64  # cast at the call


def test_ctc_decode_known_paths():
    probs = np.array([[[.1, .9, 0.0], [.1, .9, 0.0], [.9, .1, 0.0], [.1, .9, 0.0],
                       [.1, 0.0, .9]]])
    paths, scores = ops.nn.ctc_decode(np.log(probs + 1e-9), [5])
    assert paths.numpy().tolist() == [[[1, 1, 2, -1, -1]]]
    np.testing.assert_allclose(scores.numpy(), -np.log(probs + 1e-9).max(-1).sum(-1,
                                                                                 keepdims=True))
    paths, _ = ops.nn.ctc_decode(np.log(probs + 1e-9), [4], merge_repeated=False)
    assert paths.numpy().tolist() == [[[1, 1, 1, -1, -1]]]
    paths, scores = ops.nn.ctc_decode(np.log(probs + 1e-9), [5], "beam_search", beam_width=8,
                                      top_paths=2)
    assert paths.shape == (2, 1, 5) and paths.numpy()[0, 0].tolist() == [1, 1, 2, -1, -1]
    assert scores.numpy()[0, 0] >= scores.numpy()[0, 1]


def test_linalg_gradients_and_values():
    a = _x(4, 4, seed=3)
    spd = a @ a.T + 4 * np.eye(4)
    lower = np.linalg.cholesky(spd)
    np.testing.assert_allclose(ops.linalg.cholesky_inverse(lower).numpy(), np.linalg.inv(spd),
                               atol=1e-12)
    np.testing.assert_allclose(ops.linalg.cholesky_inverse(lower.T, upper=True).numpy(),
                               np.linalg.inv(spd), atol=1e-12)
    check_gradients(ops.linalg.cholesky_inverse, [lower])
    check_gradients(lambda u: ops.linalg.cholesky_inverse(u, upper=True), [lower.T])
    lu, pivots = ops.linalg.lu_factor(a)
    l_factor, u_factor = np.tril(lu.numpy(), -1) + np.eye(4), np.triu(lu.numpy())
    rows = np.arange(4)
    for k, p in enumerate(pivots.numpy()):
        rows[[k, p]] = rows[[p, k]]
    np.testing.assert_allclose(l_factor @ u_factor, a[rows], atol=1e-12)
    wide = _x(3, 5, seed=4)
    np.testing.assert_allclose(ops.linalg.pinv(wide).numpy(), np.linalg.pinv(wide), atol=1e-12)
    b = _x(5, 2, seed=5)
    np.testing.assert_allclose(ops.linalg.lstsq(wide.T, b).numpy(),
                               np.linalg.lstsq(wide.T, b, rcond=None)[0], atol=1e-12)
    assert ops.linalg.matrix_rank(np.ones((3, 3))).numpy().tolist() == 1
    values, vectors = ops.linalg.eig(np.array([[0.0, -1.0], [1.0, 0.0]]))
    assert values.dtype == np.complex128
    np.testing.assert_allclose(sorted(values.numpy().imag), [-1.0, 1.0])


def test_jvp_is_the_forward_derivative():
    x, t = _x(3, 3, seed=6), _x(3, 3, seed=7)
    y, dy = ops.linalg.jvp(lambda m: ops.matmul(m, m), (x,), (t,))
    np.testing.assert_allclose(y.numpy(), x @ x)
    np.testing.assert_allclose(dy.numpy(), x @ t + t @ x, atol=1e-12)
    (y1, y2), (d1, d2), aux = ops.linalg.jvp(
        lambda u, v: ((u * v, ops.sin(u)), "aux"), [x, t], [t, x], has_aux=True)
    assert aux == "aux"
    np.testing.assert_allclose(d1.numpy(), t * t + x * x, atol=1e-12)
    np.testing.assert_allclose(d2.numpy(), np.cos(x) * t, atol=1e-12)


def test_image_op_gradients():
    volumes = _x(1, 4, 4, 3, 2)
    check_gradients(lambda v: ops.image.extract_patches_3d(v, 2, 1, padding="same"), [volumes],
                    order=1)
    images = _x(2, 6, 5, 2)
    check_gradients(lambda v: ops.image.scale_and_translate(v, (2, 9, 3, 2), [1.5, 0.6],
                                                            [0.3, -0.2], (1, 2), "cubic"),
                    [images])
    a, b = _x(1, 8, 8, 2, low=0, high=1), _x(1, 8, 8, 2, seed=1, low=0, high=1)
    check_gradients(lambda u, v: ops.image.ssim(u, v, filter_size=3), [a, b], order=1)


def test_scale_and_translate_identity_and_integers():
    images = _x(2, 6, 5, 2)
    same = ops.image.scale_and_translate(images, images.shape, [1.0, 1.0], [0.0, 0.0],
                                         (1, 2), "linear")
    np.testing.assert_allclose(same.numpy(), images, atol=1e-12)
    ints = np.arange(12, dtype=np.int32).reshape(1, 12)
    half = ops.image.scale_and_translate(ints, (1, 6), [0.5], [0.0], (1,), "linear")
    assert half.dtype == np.int32 and half.numpy().min() >= 0 and half.numpy().max() <= 11


def test_ssim_of_identical_images_is_one():
    x = _x(2, 12, 12, 3, low=0, high=1)
    np.testing.assert_allclose(ops.image.ssim(x, x).numpy(), [1.0, 1.0], atol=1e-12)
    assert ops.image.ssim(np.uint8(x * 255), np.uint8(x * 255), 255.0).dtype == np.float32


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("call,error,message", [
    (lambda: ops.one_hot([1], 3, sparse=True), NotImplementedError, "no sparse tensors"),
    (lambda: ops.nn.multi_hot([[1]], 3, sparse=True), NotImplementedError, "no sparse"),
    (lambda: ops.nn.multi_hot([[1]]), InvalidArgumentError, "needs num_classes"),
    (lambda: ops.nn.multi_hot([[1]], 3, depth=2), InvalidArgumentError, "no other keyword"),
    (lambda: ops.nn.moments([1.0], [0], synchronized=True), NotImplementedError,
     "synchronized=True needs statistics all-reduced"),
    (lambda: ops.nn.normalize([1.0], order=0), InvalidArgumentError, "order must be an int"),
    (lambda: ops.nn.layer_normalization([1.0], scale=2), InvalidArgumentError,
     "takes no keyword but rms_scaling"),
    (lambda: ops.nn.psnr([1.0], [1.0, 2.0], 1.0), InvalidArgumentError,
     "must have the same shape"),
    (lambda: ops.nn.depth_to_space(np.ones((1, 2, 2)), 2), InvalidArgumentError,
     "needs a rank-4 batch"),
    (lambda: ops.nn.depth_to_space(np.ones((1, 2, 2, 3)), 2), InvalidArgumentError,
     "not divisible by block_size**2"),
    (lambda: ops.nn.space_to_depth(np.ones((1, 3, 2, 1)), 2), InvalidArgumentError,
     "must be divisible by block_size"),
    (lambda: ops.nn.space_to_depth(np.ones((1, 2, 2, 1)), 2, "nhwc"), InvalidArgumentError,
     "data_format 'channels_last' or 'channels_first'"),
    (lambda: ops.nn.unfold(np.ones((2, 3, 3)), 2), InvalidArgumentError,
     "needs a rank-4 (n, c, h, w) batch"),
    (lambda: ops.nn.unfold(np.ones((1, 1, 3, 3)), (2, 2, 2)), InvalidArgumentError,
     "kernel_size must be an int or a pair"),
    (lambda: ops.nn.fold(np.ones((1, 4, 3)), 3, 2), InvalidArgumentError,
     "fold: needs (n, c * 4, 4) blocks"),
    (lambda: ops.nn.dot_product_attention(*[np.ones((1, 2, 1, 2))] * 3, flash_attention=True),
     NotImplementedError, "there is none on NumPy/CuPy"),
    (lambda: ops.nn.dot_product_attention(*[np.ones((1, 2, 1, 2))] * 3,
                                          attn_logits_soft_cap=5.0),
     NotImplementedError, "JAX on TPU"),
    (lambda: ops.nn.dot_product_attention(*[np.ones((2, 1, 2))] * 3), InvalidArgumentError,
     "needs rank-4"),
    (lambda: ops.nn.ctc_loss([[1]], np.ones((1, 2)), [1], [2]), InvalidArgumentError,
     "needs target (batch, labels)"),
    (lambda: ops.nn.ctc_loss([[1]], np.ones((1, 2, 2)), [1], [2], mask_index=2),
     InvalidArgumentError, "mask_index 2 is out of range"),
    (lambda: ops.nn.ctc_loss([[1.0]], np.ones((1, 2, 2)), [1], [2]), InvalidArgumentError,
     "target must hold integers"),
    (lambda: ops.nn.ctc_decode(np.ones((1, 2, 2)), [2], "best"), InvalidArgumentError,
     "strategy must be 'greedy' or 'beam_search'"),
    (lambda: ops.nn.ctc_decode(np.ones((2, 2)), [2]), InvalidArgumentError,
     "needs inputs (batch, frames, classes)"),
    (lambda: ks.losses.ctc([1], np.ones((1, 2, 2))), InvalidArgumentError,
     "needs labels y_true of shape (batch, max_length)"),
    (lambda: ops.linalg.lstsq(np.ones((3, 2)), np.ones(2)), InvalidArgumentError,
     "does not fit the matrix of shape (3, 2)"),
    (lambda: ops.linalg.eig(np.ones((2, 3))), InvalidArgumentError, "eig: needs a square"),
    (lambda: ops.linalg.matrix_rank(np.ones(3)), InvalidArgumentError, "matrix_rank: needs a"),
    (lambda: ops.linalg.cholesky_inverse(np.ones((2, 3))), InvalidArgumentError,
     "cholesky_inverse: needs a square"),
    (lambda: ops.linalg.jvp(ops.sin, np.ones(2), (np.ones(2),)), InvalidArgumentError,
     "primals must be a list or tuple"),
    (lambda: ops.linalg.jvp(ops.sin, (np.ones(2),), (np.ones(3),)), InvalidArgumentError,
     "needs one tangent of each primal's shape"),
    (lambda: ops.image.extract_patches_3d(np.ones((4, 4, 4)), 2), InvalidArgumentError,
     "needs a volume (rank 4)"),
    (lambda: ops.image.scale_and_translate(np.ones((4, 4)), (2, 2), [1.0], [0.0], (0, 1),
                                           "linear"),
     InvalidArgumentError, "one scale and one translation per spatial axis"),
    (lambda: ops.image.scale_and_translate(np.ones((4, 4)), (2, 2), [1.0], [0.0], (0,),
                                           "area"),
     InvalidArgumentError, "method must be one of"),
    (lambda: ops.image.ssim(np.ones((4, 4, 1)), np.ones((4, 5, 1))), InvalidArgumentError,
     "of the same shape"),
])
def test_error_messages(call, error, message):
    with pytest.raises(error, match=None) as info:
        call()
    assert message in str(info.value)
