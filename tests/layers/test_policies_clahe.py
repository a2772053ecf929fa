"""RandAugment, AugMix and ContrastLimitedAdaptiveHistogramEqualization: shapes, ranges,
inference behaviour, channels_first, configs, `Dataset.map`, and the error messages."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError

RNG = np.random.default_rng(2)
IMAGES = (RNG.random((3, 12, 12, 3)) * 255).astype("float32")


@pytest.mark.parametrize("make", [
    lambda: ks.layers.RandAugment(seed=1),
    lambda: ks.layers.RandAugment(num_ops=4, factor=(0.2, 0.8), interpolation="nearest"),
    lambda: ks.layers.AugMix(seed=1),
    lambda: ks.layers.AugMix(num_chains=2, chain_depth=1, all_ops=False, alpha=0.5),
])
def test_random_policies_keep_shape_and_range_and_pass_through_at_inference(make):
    layer = make()
    out = layer(IMAGES).numpy()
    assert out.shape == IMAGES.shape and out.dtype == np.float32
    assert out.min() >= 0 and out.max() <= 255
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), IMAGES)
    clone = type(layer).from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_rand_augment_with_no_ops_is_the_identity_and_changes_images_otherwise():
    np.testing.assert_allclose(ks.layers.RandAugment(num_ops=0)(IMAGES).numpy(), IMAGES)
    changed = [not np.allclose(ks.layers.RandAugment(seed=s)(IMAGES).numpy(), IMAGES)
               for s in range(4)]
    assert any(changed)


def test_aug_mix_is_a_convex_blend_within_the_value_range():
    images = (RNG.random((2, 10, 10, 3))).astype("float32")
    out = ks.layers.AugMix(value_range=(0, 1), seed=3)(images).numpy()
    assert out.min() >= 0 and out.max() <= 1


def test_channels_first_and_single_images():
    first = np.moveaxis(IMAGES, -1, 1)
    assert ks.layers.AugMix(data_format="channels_first")(first).shape == first.shape
    assert ks.layers.RandAugment()(IMAGES[0]).shape == IMAGES[0].shape
    clahe = ks.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(3, 3))
    np.testing.assert_allclose(
        np.moveaxis(ks.layers.ContrastLimitedAdaptiveHistogramEqualization(
            tile_grid_size=(3, 3), data_format="channels_first")(first).numpy(), 1, -1),
        clahe(IMAGES).numpy())
    np.testing.assert_allclose(clahe(IMAGES[0]).numpy(), clahe(IMAGES).numpy()[0])


def test_clahe_acts_at_inference_and_maps_a_flat_image_to_a_flat_one():
    layer = ks.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), layer(IMAGES).numpy())
    flat = np.full((1, 8, 8, 1), 90.0, np.float32)
    out = layer(flat).numpy()  # one value everywhere (the clipped histogram's map of it)
    assert np.all(out == out.flat[0])
    ramp = np.tile(np.arange(16.0, dtype=np.float32) * 10, (1, 16, 1))[..., None]
    out = layer(ramp).numpy()
    assert out.min() >= 0 and out.max() <= 255 and out.std() > ramp.std()


def test_in_a_dataset_map():
    ds = ks.data.Dataset.from_tensor_slices(IMAGES).batch(2)
    for layer in (ks.layers.RandAugment(seed=0), ks.layers.AugMix(seed=0),
                  ks.layers.ContrastLimitedAdaptiveHistogramEqualization()):
        shapes = [tuple(batch.shape) for batch in ds.map(layer)]
        assert shapes == [(2, 12, 12, 3), (1, 12, 12, 3)]


@pytest.mark.parametrize("make, message", [
    (lambda: ks.layers.RandAugment(num_ops=-1), "num_ops must be a non-negative integer"),
    (lambda: ks.layers.RandAugment(factor=2.0), "the `factor` argument should be"),
    (lambda: ks.layers.RandAugment(value_range=(1, 0)), "value_range must be two numbers"),
    (lambda: ks.layers.AugMix(num_chains=0), "num_chains must be a positive integer"),
    (lambda: ks.layers.AugMix(chain_depth=1.5), "chain_depth must be a positive integer"),
    (lambda: ks.layers.AugMix(alpha=0), "alpha must be positive"),
    (lambda: ks.layers.AugMix(value_range=(0,)), "value_range must be two numbers"),
    (lambda: ks.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(0, 2)),
     "tile_grid_size must be two positive integers"),
    (lambda: ks.layers.ContrastLimitedAdaptiveHistogramEqualization(value_range=(5, 5)),
     "value_range must be two numbers"),
])
def test_error_messages(make, message):
    with pytest.raises(InvalidArgumentError, match=message):
        make()
