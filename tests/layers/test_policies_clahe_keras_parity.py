"""Keras 3 parity of ContrastLimitedAdaptiveHistogramEqualization (deterministic: the same
outputs exactly), and of RandAugment/AugMix's configs and operation lists (random: their
draws come from other generators, so outputs are compared by properties). Skips without
keras (run with the interop venv, KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 16, 16, 3), {}),
    ((1, 13, 10, 1), {"tile_grid_size": (3, 4)}),
    ((2, 9, 9, 2), {"clip_limit": 0.0, "tile_grid_size": (2, 2)}),
    ((1, 8, 8, 3), {"value_range": (0, 1), "clip_limit": 2.0}),
    ((2, 3, 7, 6), {"data_format": "channels_first", "tile_grid_size": (2, 3)}),
])
def test_clahe_equals_keras(shape, kwargs):
    high = kwargs.get("value_range", (0, 255))[1]
    x = (RNG.random(shape) * high).astype("float32")
    theirs = np.asarray(keras.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)(x))
    ours = ks.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)(x).numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-4, rtol=1e-6)


@pytest.mark.parametrize("name, kwargs", [
    ("RandAugment", {"num_ops": 3, "factor": (0.1, 0.7), "value_range": (0, 1), "seed": 2}),
    ("AugMix", {"num_chains": 2, "chain_depth": 4, "alpha": 0.5, "all_ops": False}),
    ("ContrastLimitedAdaptiveHistogramEqualization", {"clip_limit": 3.0,
                                                      "tile_grid_size": (4, 2)}),
])
def test_configs_read_both_ways(name, kwargs):
    theirs = getattr(keras.layers, name)(**kwargs)
    ours = getattr(ks.layers, name).from_config(theirs.get_config())
    for key in kwargs:
        assert tuple(np.ravel(ours.get_config()[key])) == tuple(np.ravel(
            theirs.get_config()[key])), key
    back = getattr(keras.layers, name).from_config(ours.get_config())
    assert back.get_config().keys() <= set(ours.get_config()) | {"dtype"}


def test_the_operation_lists_are_keras_s():
    assert list(ks.layers.RandAugment._AUGMENT_LAYERS) == keras.layers.RandAugment._AUGMENT_LAYERS
    assert (list(ks.layers.AugMix()._augment_layers)
            == list(keras.layers.AugMix()._augment_layers))
    assert (list(ks.layers.AugMix(all_ops=False)._augment_layers)
            == list(keras.layers.AugMix(all_ops=False)._augment_layers))


@pytest.mark.parametrize("name", ["RandAugment", "AugMix"])
def test_random_outputs_have_keras_s_properties(name):
    x = (RNG.random((8, 16, 16, 3)) * 255).astype("float32")
    theirs = np.stack([np.asarray(getattr(keras.layers, name)(seed=s)(x)) for s in range(3)])
    ours = np.stack([getattr(ks.layers, name)(seed=s)(x).numpy() for s in range(3)])
    assert ours.shape == theirs.shape == (3,) + x.shape
    assert ours.min() >= 0 and theirs.min() >= 0  # (Keras's RandAugment may exceed 255)
    # the mean change a call makes is of the same size (a loose band: few draws)
    their_change, our_change = np.abs(theirs - x).mean(), np.abs(ours - x).mean()
    assert our_change < 4 * their_change + 5 and their_change < 4 * our_change + 5
