"""`ks.ops.nn`, `ks.ops.linalg`, `ks.ops.image` and `ks.losses.CTC` against Keras 3 (numpy
backend, and TF's `tf.nn.ctc_loss` for the CTC gradients) on the same inputs.

Skipped without keras; run with the interop venv's python (KERAS_BACKEND=numpy).
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402
from kerasish import ops  # noqa: E402

RNG = np.random.default_rng(0)


def _x(*shape, seed=0, low=-3.0, high=3.0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def _close(got, want, atol=1e-5, rtol=1e-5):
    np.testing.assert_allclose(ops.convert_to_numpy(got), np.asarray(want), atol=atol, rtol=rtol)


@pytest.mark.parametrize("name,kwargs", [
    ("celu", {"alpha": 0.7}), ("glu", {}), ("hard_shrink", {"threshold": 0.4}),
    ("hard_silu", {}), ("hard_swish", {}), ("hard_tanh", {}), ("soft_shrink", {}),
    ("tanh_shrink", {}), ("threshold", {"threshold": 0.2, "default_value": -1.0}),
    ("sparse_plus", {}), ("sparse_sigmoid", {}), ("squareplus", {"b": 2}),
    ("gelu", {}), ("gelu", {"approximate": False}), ("softmax", {"axis": 0}),
    ("log_softmax", {"axis": -1}), ("softmax", {"axis": (0, 1)}),
])
def test_activations_match_keras(name, kwargs):
    x = _x(4, 6)
    _close(getattr(ops.nn, name)(x, **kwargs), getattr(keras.ops.nn, name)(x, **kwargs))


def test_sparsemax_matches_keras_where_keras_is_right():
    # Keras 3.15's tau is wrong when two or more scores are kept (keras-team/keras#23425):
    # compare where one score is kept, and check the simplex projection otherwise
    x = np.array([[3.0, 0.0, -1.0], [0.2, 5.0, 0.1]], np.float32)
    _close(ops.nn.sparsemax(x), keras.ops.nn.sparsemax(x))
    y = ops.convert_to_numpy(ops.nn.sparsemax(_x(5, 7)))
    np.testing.assert_allclose(y.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, (1, 2)])
def test_normalizations_match_keras(axis):
    x, gamma, beta = _x(2, 3, 4), _x(4, seed=1), _x(4, seed=2)
    if axis == -1:
        _close(ops.nn.layer_normalization(x, gamma, beta, axis, 1e-3),
               keras.ops.nn.layer_normalization(x, gamma, beta, axis, 1e-3))
        _close(ops.nn.layer_normalization(x, gamma, axis=axis, rms_scaling=True),
               keras.ops.nn.layer_normalization(x, gamma, axis=axis, rms_scaling=True))
    else:
        _close(ops.nn.layer_normalization(x, axis=axis),
               keras.ops.nn.layer_normalization(x, axis=axis), atol=1e-4)
    for order in (1, 2, 3):
        _close(ops.nn.normalize(x, -1, order, 1e-4), keras.ops.nn.normalize(x, -1, order, 1e-4))
    mean, var = ops.nn.moments(x, [0, 2], keepdims=True)
    want_mean, want_var = keras.ops.nn.moments(x, [0, 2], keepdims=True)
    _close(mean, want_mean)
    _close(var, want_var, atol=1e-4)


def test_hot_encodings_polar_psnr_match_keras():
    ids = np.array([[0, 2, 2], [1, 3, 0]])
    _close(ops.nn.multi_hot(ids, 5), keras.ops.nn.multi_hot(ids, 5))
    _close(ops.nn.multi_hot(ids[0], 5), keras.ops.nn.multi_hot(ids[0], 5))
    _close(ops.nn.one_hot(ids, 4, axis=1), keras.ops.nn.one_hot(ids, 4, axis=1))
    a, b = _x(3, 4, low=0.0), _x(3, 4, seed=1)
    _close(ops.nn.polar(a, b), keras.ops.nn.polar(a, b))
    _close(ops.nn.psnr(a, b, 3.0), keras.ops.nn.psnr(a, b, 3.0), atol=1e-4)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_depth_space_rearrangements_match_keras(data_format):
    x = _x(2, 4, 6, 8) if data_format == "channels_last" else _x(2, 8, 4, 6)
    _close(ops.nn.depth_to_space(x, 2, data_format),
           keras.ops.nn.depth_to_space(x, 2, data_format))
    _close(ops.nn.space_to_depth(x, 2, data_format),
           keras.ops.nn.space_to_depth(x, 2, data_format))


@pytest.mark.parametrize("kernel,dilation,padding,stride", [
    (2, 1, 0, 1), ((3, 2), (1, 2), (1, 0), (2, 1)), (3, 2, 2, 3)])
def test_fold_unfold_match_keras(kernel, dilation, padding, stride):
    x = _x(2, 3, 9, 8)
    blocks = ops.nn.unfold(x, kernel, dilation, padding, stride)
    _close(blocks, keras.ops.nn.unfold(x, kernel, dilation, padding, stride))
    b = _x(*blocks.shape, seed=3)
    _close(ops.nn.fold(b, (9, 8), kernel, dilation, padding, stride),
           keras.ops.nn.fold(b, (9, 8), kernel, dilation, padding, stride))


@pytest.mark.parametrize("causal", [False, True])
def test_dot_product_attention_matches_keras(causal):
    q, k, v = _x(2, 5, 4, 3), _x(2, 6, 4, 3, seed=1), _x(2, 6, 4, 3, seed=2)
    bias = _x(1, 4, 5, 6, seed=3)
    mask = np.random.default_rng(4).random((2, 1, 5, 6)) > 0.3
    mask[..., 0] = True
    for kwargs in ({}, {"bias": bias, "mask": mask, "scale": 0.3}):
        _close(ops.nn.dot_product_attention(q, k, v, is_causal=causal, **kwargs),
               keras.ops.nn.dot_product_attention(q, k, v, is_causal=causal, **kwargs))


def _ctc_batch():
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((3, 8, 5)).astype(np.float32)
    labels = np.array([[1, 2, 2, 0], [3, 3, 1, 4], [4, 0, 0, 0]], np.int32)
    return logits, labels, np.array([3, 4, 1], np.int32), np.array([8, 8, 5], np.int32)


def test_ctc_loss_matches_keras_and_tf_gradients():
    logits, labels, label_length, frame_length = _ctc_batch()
    got = ops.nn.ctc_loss(labels, logits, label_length, frame_length)
    _close(got, keras.ops.nn.ctc_loss(labels, logits, label_length, frame_length), atol=1e-4)
    tf = pytest.importorskip("tensorflow")
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        want = tf.nn.ctc_loss(labels, x, label_length, frame_length, logits_time_major=False,
                              blank_index=0)
        want_total = tf.reduce_sum(want)
    _close(got, want.numpy(), atol=1e-4)
    w = ks.constant(logits)
    with ks.GradientTape() as ks_tape:
        ks_tape.watch(w)
        total = ks.reduce_sum(ops.nn.ctc_loss(labels, w, label_length, frame_length))
    _close(ks_tape.gradient(total, w), tape.gradient(want_total, x).numpy(), atol=1e-4)


def test_ctc_loss_objects_match_keras():
    logits, labels, _, _ = _ctc_batch()
    _close(ks.losses.ctc(labels, logits), keras.losses.ctc(labels, logits), atol=1e-4)
    for reduction in ("sum_over_batch_size", "sum", "none"):
        _close(ks.losses.CTC(reduction=reduction)(labels, logits),
               keras.losses.CTC(reduction=reduction)(labels, logits), atol=1e-4)
    assert ks.losses.CTC().get_config() == {"reduction": "sum_over_batch_size", "name": "ctc"}
    # a Keras model's compile config names the loss so: it loads here
    loaded = ks.losses.deserialize(keras.losses.serialize(keras.losses.CTC(reduction="sum")))
    assert isinstance(loaded, ks.losses.CTC) and loaded.reduction == "sum"


@pytest.mark.parametrize("merge_repeated", [True, False])
def test_ctc_greedy_decode_matches_keras(merge_repeated):
    logits, _, _, frame_length = _ctc_batch()
    for mask_index in (0, None):
        paths, scores = ops.nn.ctc_decode(logits, frame_length, "greedy",
                                          merge_repeated=merge_repeated, mask_index=mask_index)
        want_paths, want_scores = keras.ops.nn.ctc_decode(
            logits, frame_length, "greedy", merge_repeated=merge_repeated,
            mask_index=mask_index)
        np.testing.assert_array_equal(ops.convert_to_numpy(paths), np.asarray(want_paths))
        _close(scores, want_scores)


@pytest.mark.parametrize("beam_width,top_paths", [(50, 3), (3, 2), (2, 1)])
def test_ctc_beam_search_matches_keras(beam_width, top_paths):
    logits, _, _, frame_length = _ctc_batch()
    paths, scores = ops.nn.ctc_decode(logits, frame_length, "beam_search",
                                      beam_width=beam_width, top_paths=top_paths)
    want_paths, want_scores = keras.ops.nn.ctc_decode(logits, frame_length, "beam_search",
                                                      beam_width=beam_width,
                                                      top_paths=top_paths)
    np.testing.assert_array_equal(ops.convert_to_numpy(paths), np.asarray(want_paths))
    _close(scores, want_scores, atol=1e-4)


def test_linalg_matches_keras():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 4, 4)).astype(np.float32)
    wide = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((5, 2)).astype(np.float32)
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    lower = np.linalg.cholesky(spd)
    for upper in (False, True):  # Keras's takes one matrix
        factor = lower[0].T if upper else lower[0]
        _close(ops.linalg.cholesky_inverse(factor, upper),
               keras.ops.linalg.cholesky_inverse(factor, upper), atol=1e-4)
    _close(ops.linalg.pinv(wide), keras.ops.linalg.pinv(wide), atol=1e-4)
    _close(ops.linalg.lstsq(wide.T, b), keras.ops.linalg.lstsq(wide.T, b), atol=1e-4)
    _close(ops.linalg.lstsq(wide.T, b[:, 0]), keras.ops.linalg.lstsq(wide.T, b[:, 0]),
           atol=1e-4)
    deficient = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]], np.float32)
    assert int(ops.linalg.matrix_rank(deficient)) == int(keras.ops.linalg.matrix_rank(deficient))
    assert int(ops.linalg.matrix_rank(deficient, tol=10.0)) == int(
        keras.ops.linalg.matrix_rank(deficient, tol=10.0))
    lu, pivots = ops.linalg.lu_factor(a)
    want_lu, want_pivots = keras.ops.linalg.lu_factor(a)
    _close(lu, want_lu, atol=1e-5)
    np.testing.assert_array_equal(ops.convert_to_numpy(pivots), np.asarray(want_pivots))
    values, vectors = ops.linalg.eig(a[0])
    want_values, want_vectors = keras.ops.linalg.eig(a[0])
    _close(values, want_values, atol=1e-5)
    _close(vectors, want_vectors, atol=1e-5)
    for name in ("det", "inv"):
        _close(getattr(ops.linalg, name)(x=a), getattr(keras.ops.linalg, name)(x=a), atol=1e-4)
    _close(ops.linalg.solve(a=a, b=spd), keras.ops.linalg.solve(a=a, b=spd), atol=1e-3)
    _close(ops.linalg.eigh(x=spd)[0], keras.ops.linalg.eigh(x=spd)[0], atol=1e-4)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_image_ops_match_keras(data_format):
    volumes = _x(2, 6, 5, 7, 2) if data_format == "channels_last" else _x(2, 2, 6, 5, 7)
    for kwargs in ({"size": 2}, {"size": (3, 2, 2), "strides": 1, "padding": "same"},
                   {"size": 2, "strides": 1, "dilation_rate": 2}):
        _close(ops.image.extract_patches_3d(volumes, data_format=data_format, **kwargs),
               keras.ops.image.extract_patches_3d(volumes, data_format=data_format, **kwargs))
    _close(ops.image.extract_patches_3d(volumes[0], 2, data_format=data_format),
           keras.ops.image.extract_patches_3d(volumes[0], 2, data_format=data_format))
    images = _x(2, 16, 15, 3, low=0.0, high=1.0) if data_format == "channels_last" else _x(
        2, 3, 16, 15, low=0.0, high=1.0)
    noisy = np.clip(images + _x(*images.shape, seed=9, low=-0.2, high=0.2), 0, 1)
    for kwargs in ({}, {"filter_size": 5, "filter_sigma": 1.0, "max_val": 2.0}):
        _close(ops.image.ssim(images, noisy, data_format=data_format, **kwargs),
               keras.ops.image.ssim(images, noisy, data_format=data_format, **kwargs))
    _close(ops.image.ssim(images[0], noisy[0], data_format=data_format),
           keras.ops.image.ssim(images[0], noisy[0], data_format=data_format))


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "lanczos5"])
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_matches_keras(method, antialias):
    images = _x(2, 9, 8, 3)
    for shape, scale, shift in (((2, 5, 13, 3), [0.6, 1.7], [0.5, -1.0]),
                                ((2, 18, 4, 3), [2.0, 0.5], [0.0, 0.0])):
        _close(ops.image.scale_and_translate(images, shape, scale, shift, (1, 2), method,
                                             antialias),
               keras.ops.image.scale_and_translate(images, shape, np.float32(scale),
                                                   np.float32(shift), (1, 2), method,
                                                   antialias), atol=1e-4)
