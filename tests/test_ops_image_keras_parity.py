"""`ks.ops.image`'s sampling ops against Keras 3 (numpy backend) on the same inputs.

Skipped without keras; run with the interop venv's python (KERAS_BACKEND=numpy).
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

from kerasish.ops import image  # noqa: E402


def _images(*shape, seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def _transforms(n, seed=1):
    rng = np.random.default_rng(seed)
    angle = rng.uniform(-0.6, 0.6, n)
    scale = rng.uniform(0.7, 1.3, n)
    t = np.zeros((n, 8), np.float32)
    t[:, 0], t[:, 1], t[:, 2] = scale * np.cos(angle), -np.sin(angle), rng.uniform(-2, 2, n)
    t[:, 3], t[:, 4], t[:, 5] = np.sin(angle), scale * np.cos(angle), rng.uniform(-2, 2, n)
    return t


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_affine_transform_matches_keras(fill_mode, interpolation):
    x, t = _images(3, 7, 9, 2), _transforms(3)
    want = keras.ops.image.affine_transform(x, t, interpolation, fill_mode, 0.5)
    got = image.affine_transform(x, t, interpolation, fill_mode, 0.5).numpy()
    np.testing.assert_allclose(got, np.asarray(want), atol=1e-5)
    first = image.affine_transform(np.moveaxis(x, -1, 1), t, interpolation, fill_mode, 0.5,
                                   data_format="channels_first").numpy()
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), got, atol=1e-6)


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_map_coordinates_matches_keras(fill_mode):
    x = _images(5, 6)
    coords = np.random.default_rng(2).uniform(-4, 9, (2, 4, 7)).astype(np.float32)
    for order in (0, 1):
        want = keras.ops.image.map_coordinates(x, coords, order, fill_mode, 0.25)
        got = image.map_coordinates(x, coords, order, fill_mode, 0.25).numpy()
        np.testing.assert_allclose(got, np.asarray(want), atol=1e-5)


def test_perspective_transform_matches_keras():
    x = _images(2, 8, 8, 3)
    start = np.array([[0, 0], [7, 0], [0, 7], [7, 7]], np.float32)
    end = np.array([[[1, 0], [6, 1], [0, 7], [7, 6]], [[0, 1], [7, 0], [1, 6], [6, 7]]],
                   np.float32)
    start = np.broadcast_to(start, end.shape)
    for interpolation in ("bilinear", "nearest"):
        want = keras.ops.image.perspective_transform(x, start, end, interpolation, 0.0)
        got = image.perspective_transform(x, start, end, interpolation, 0.0).numpy()
        np.testing.assert_allclose(got, np.asarray(want), atol=1e-4)


def test_gaussian_blur_matches_keras():
    x = _images(2, 7, 6, 3)
    for size, sigma in (((3, 3), (1.0, 1.0)), ((5, 3), (2.0, 0.7)), ((4, 2), (1.5, 1.0))):
        want = keras.ops.image.gaussian_blur(x, size, sigma)
        got = image.gaussian_blur(x, size, sigma).numpy()
        np.testing.assert_allclose(got, np.asarray(want), atol=1e-5)


def test_sobel_edges_match_keras():
    x = _images(2, 6, 7, 3)
    np.testing.assert_allclose(image.sobel_edges(x).numpy(),
                               np.asarray(keras.ops.image.sobel_edges(x)), atol=1e-5)


def test_elastic_transform_displaces_as_much_as_kerass():
    ramp = np.broadcast_to(np.arange(32.0, dtype=np.float32)[None, :, None],
                           (16, 32, 32, 1)).copy()  # value = x, so |out - in| = |dx|
    ours = np.abs(image.elastic_transform(ramp, 20.0, 3.0, seed=4).numpy() - ramp)
    theirs = np.abs(np.asarray(keras.ops.image.elastic_transform(ramp, 20.0, 3.0, seed=4))
                    - ramp)
    inner = (slice(None), slice(4, -4), slice(4, -4))  # away from the reflected edges
    assert 0.8 < ours[inner].mean() / theirs[inner].mean() < 1.25
