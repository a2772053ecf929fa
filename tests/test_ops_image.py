"""`ks.ops.image`: Keras 3's image ops (resize, crops and pads, colour spaces, patches)."""

import colorsys

import numpy as np
import pytest

import kerasish as ks
from kerasish.ops import image


def _images(*shape, seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def test_resize_is_what_the_resizing_layer_computes():
    x = _images(2, 5, 7, 3)
    for interpolation in ("bilinear", "nearest"):
        want = ks.layers.Resizing(3, 4, interpolation=interpolation)(x).numpy()
        got = image.resize(x, (3, 4), interpolation=interpolation).numpy()
        assert np.array_equal(got, want)
    cropped = image.resize(x, (2, 2), crop_to_aspect_ratio=True).numpy()
    want = ks.layers.Resizing(2, 2, crop_to_aspect_ratio=True)(x).numpy()
    np.testing.assert_allclose(cropped, want, rtol=1e-6)


def test_resize_pads_to_the_aspect_ratio_with_the_fill_value():
    x = np.ones((2, 4, 1), np.float32)
    out = image.resize(x, (4, 4), pad_to_aspect_ratio=True, fill_value=-1.0,
                       interpolation="nearest").numpy()[:, :, 0]
    assert out.tolist() == [[-1.0] * 4, [1.0] * 4, [1.0] * 4, [-1.0] * 4]


def test_resize_refuses_what_it_cannot_do_by_name():
    with pytest.raises(NotImplementedError, match="antialias=True"):
        image.resize(_images(4, 4, 1), (2, 2), antialias=True)
    with pytest.raises(ks.InvalidArgumentError, match="interpolation must be one of"):
        image.resize(_images(4, 4, 1), (2, 2), interpolation="bicubic")
    with pytest.raises(ks.InvalidArgumentError, match=r"size must be \(height, width\)"):
        image.resize(_images(4, 4, 1), (2, 0))
    with pytest.raises(ks.InvalidArgumentError, match="expects an image of rank 3"):
        image.resize(_images(4, 4), (2, 2))


def test_crop_and_pad_take_two_of_the_three_sizes_per_axis():
    x = _images(1, 6, 8, 2)
    got = image.crop_images(x, top_cropping=1, bottom_cropping=2, left_cropping=3,
                            target_width=4).numpy()
    assert np.array_equal(got, x[:, 1:4, 3:7])
    padded = image.pad_images(x, top_padding=2, target_height=9, left_padding=1,
                              right_padding=0).numpy()
    assert padded.shape == (1, 9, 9, 2) and np.array_equal(padded[:, 2:8, 1:], x)
    assert padded.sum() == pytest.approx(x.sum(), rel=1e-6)
    first = image.crop_images(np.moveaxis(x, -1, 1), 1, 3, 2, target_width=4,
                              data_format="channels_first").numpy()
    assert np.array_equal(np.moveaxis(first, 1, -1), got)
    with pytest.raises(ks.InvalidArgumentError, match="give exactly two of top_cropping"):
        image.crop_images(x, top_cropping=1, left_cropping=1, right_cropping=1)
    with pytest.raises(ks.InvalidArgumentError, match="does not fit images of height 6"):
        image.crop_images(x, top_cropping=4, bottom_cropping=2, left_cropping=0,
                          right_cropping=0)


def test_colour_spaces_agree_with_pythons_colorsys():
    rgb = _images(4, 5, 3, seed=3)
    hsv = image.rgb_to_hsv(rgb).numpy()
    want = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    np.testing.assert_allclose(hsv, want, atol=1e-6)
    np.testing.assert_allclose(image.hsv_to_rgb(hsv).numpy(), rgb, atol=1e-6)
    gray = image.rgb_to_grayscale(rgb).numpy()
    np.testing.assert_allclose(gray[..., 0], rgb @ np.array([0.2989, 0.5870, 0.1140]),
                               rtol=1e-6)
    with pytest.raises(ks.InvalidArgumentError, match="expects 3 channels"):
        image.rgb_to_hsv(_images(2, 2, 4))


def test_extract_patches_flattens_each_window():
    x = _images(2, 5, 5, 3)
    got = image.extract_patches(x, 2, strides=1).numpy()
    windows = ks.nn.extract_patches(x, 2, 1).numpy()
    assert got.shape == (2, 4, 4, 12) and np.array_equal(got, windows.reshape(2, 4, 4, 12))
    assert image.extract_patches(x[0], (3, 2), padding="same").shape == (2, 3, 18)


def test_resize_gradient_is_its_adjoint():
    from kerasish.testing import check_gradients

    check_gradients(lambda t: image.resize(t, (3, 2)), [_images(4, 5, 1).astype(np.float64)])
