"""`ks.ops.image`'s sampling ops: affine and perspective transforms, map_coordinates and
gaussian_blur; their gradients against finite differences and their error messages."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.ops import image
from kerasish.testing import check_gradients


def _images(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).random(shape).astype(dtype)


_TURN = [0.9, -0.3, 1.37, 0.25, 1.1, -0.63, 0.01, -0.02]  # coordinates away from integers


def test_affine_transform_by_the_identity_and_a_quarter_turn():
    x = _images(2, 4, 4, 3, dtype=np.float32)
    identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(image.affine_transform(x, identity).numpy(), x, atol=1e-6)
    # output (x, y) reads input (y, 3 - x): the image turned a quarter clockwise
    turn = [0.0, 1.0, 0.0, -1.0, 0.0, 3.0, 0.0, 0.0]
    got = image.affine_transform(x, turn, interpolation="nearest").numpy()
    np.testing.assert_array_equal(got, np.rot90(x, -1, axes=(1, 2)))


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_affine_transform_gradients(fill_mode):
    check_gradients(lambda x, t: image.affine_transform(x, t, fill_mode=fill_mode,
                                                        fill_value=0.5),
                    [_images(2, 4, 5, 2), np.array([_TURN, _TURN]) * [[1], [0.93]]], order=1)


def test_map_coordinates_gradients():
    coords = np.random.default_rng(1).uniform(-1.5, 4.5, (2, 3, 4)) + 0.013
    check_gradients(lambda x, c: image.map_coordinates(x, c, 1, "reflect"),
                    [_images(4, 4), coords], order=1)
    check_gradients(lambda x: image.map_coordinates(x, coords, 0, "constant", 2.0),
                    [_images(4, 4)], order=1)


def test_perspective_transform_and_gaussian_blur_gradients():
    start = np.array([[0.0, 0.0], [4.1, 0.2], [0.3, 3.9], [4.2, 4.1]])
    end = np.array([[0.2, 0.1], [4.0, 0.0], [0.0, 4.0], [3.9, 3.8]])
    check_gradients(lambda x, s: image.perspective_transform(x, s, end),
                    [_images(5, 5, 1), start], order=1)
    check_gradients(lambda x, s: image.gaussian_blur(x, (3, 5), (s, s * 0.5)),
                    [_images(1, 5, 4, 2), np.array(1.2)], order=1)


def test_sobel_edges_and_elastic_transform():
    ramp = np.broadcast_to(np.arange(5.0)[None, None, :, None], (1, 4, 5, 1))
    edges = image.sobel_edges(ramp).numpy()
    assert edges.shape == (1, 4, 5, 1, 2) and (edges[..., 0] == 0).all()
    assert (edges[0, :, 1:-1, 0, 1] == 8.0).all()  # 2 * (1 + 2 + 1) per unit step
    check_gradients(image.sobel_edges, [_images(1, 4, 5, 2)], order=1)
    x = _images(2, 9, 9, 1)
    np.testing.assert_allclose(image.elastic_transform(x, alpha=0.0, seed=1).numpy(), x)
    ks.random.set_seed(3)
    a = image.elastic_transform(x, 5.0, 2.0, seed=7).numpy()
    ks.random.set_seed(3)
    np.testing.assert_array_equal(image.elastic_transform(x, 5.0, 2.0, seed=7).numpy(), a)
    assert not np.allclose(a, x)

    def warp(t):
        ks.random.set_seed(0)
        return image.elastic_transform(t, 3.0, 1.5, fill_mode="constant", seed=2)
    check_gradients(warp, [x], order=1)
    with pytest.raises(ks.InvalidArgumentError, match="expects a batch of images"):
        image.sobel_edges(x[0])


def test_gaussian_blur_keeps_the_mass_inside_and_the_channels_first_layout():
    x = _images(1, 9, 9, 2, dtype=np.float32) * 0
    x[0, 4, 4] = 1.0
    out = image.gaussian_blur(x, (5, 5), (1.0, 1.0)).numpy()
    assert out.sum() == pytest.approx(2.0, rel=1e-5) and out[0, 4, 4, 0] == out.max()
    first = image.gaussian_blur(np.moveaxis(x, -1, 1), (5, 5), (1.0, 1.0),
                                data_format="channels_first").numpy()
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), out, atol=1e-7)


def test_sampling_ops_name_what_is_wrong():
    x = _images(4, 4, 1)
    with pytest.raises(ks.InvalidArgumentError, match="fill_mode must be one of"):
        image.affine_transform(x, _TURN, fill_mode="edge")
    with pytest.raises(ks.InvalidArgumentError, match="interpolation must be one of"):
        image.affine_transform(x, _TURN, interpolation="bicubic")
    with pytest.raises(ks.InvalidArgumentError, match=r"transform must have shape \(8,\)"):
        image.affine_transform(x, _TURN[:6])
    with pytest.raises(ks.InvalidArgumentError, match="expects an image of rank 3"):
        image.affine_transform(x[..., 0], _TURN)
    with pytest.raises(ks.InvalidArgumentError, match=r"coordinates must have shape \(rank"):
        image.map_coordinates(x, [[0.0], [0.0]], 1)
    with pytest.raises(ks.InvalidArgumentError, match="order must be 0 or 1"):
        image.map_coordinates(x, [[0.0], [0.0], [0.0]], 3)
    with pytest.raises(ks.InvalidArgumentError, match=r"start_points must have shape \(4, 2\)"):
        image.perspective_transform(x, np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ks.InvalidArgumentError, match="must have one shape"):
        image.perspective_transform(x, np.zeros((4, 2)), np.zeros((1, 4, 2)))
    with pytest.raises(ks.InvalidArgumentError, match="kernel_size and sigma must be two"):
        image.gaussian_blur(x, (3, 3, 3))
