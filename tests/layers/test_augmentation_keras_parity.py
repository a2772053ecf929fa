"""Keras 3 parity of the image augmentation layers: with fixed factors (a rotation by
exactly 90 degrees, a fixed zoom, shift, contrast, ...) the output equals Keras's on the
same input; where Keras draws a random sign, ours is one of Keras's outcomes; configs carry
Keras's keys and read both ways; a Keras `.keras` model holding them loads and predicts the
same. Skips without keras (run with the interop venv, KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, size=(2, 7, 9, 3)).astype("float32")


def _close(ours, theirs, atol=1e-3):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape
    assert np.max(np.abs(ours - theirs), initial=0.0) <= atol


def _both(name, *args, images=IMAGES, **kwargs):
    ours = getattr(ks.layers, name)(*args, **kwargs)(images, training=True).numpy()
    theirs = np.asarray(getattr(keras.layers, name)(*args, **kwargs)(images, training=True))
    return ours, theirs


@pytest.mark.parametrize("fill_mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_geometric_layers_with_fixed_factors_as_keras(fill_mode, interpolation):
    options = {"fill_mode": fill_mode, "interpolation": interpolation, "fill_value": 7.0}
    _close(*_both("RandomRotation", (0.25, 0.25), **options))  # exactly 90 degrees
    _close(*_both("RandomRotation", (-0.1, -0.1), **options))
    _close(*_both("RandomZoom", (-0.3, -0.3), (0.2, 0.2), **options))
    _close(*_both("RandomZoom", (0.5, 0.5), **options))
    _close(*_both("RandomTranslation", (0.2, 0.2), (-0.3, -0.3), **options))


def test_channels_first_and_single_images_as_keras():
    first = np.moveaxis(IMAGES, -1, 1)
    _close(*_both("RandomRotation", (0.25, 0.25), images=first, data_format="channels_first"))
    _close(*_both("RandomZoom", (0.3, 0.3), images=IMAGES[0]))
    _close(*_both("RandomContrast", (-0.5, 0.5), images=first, data_format="channels_first"))


def test_colour_layers_with_fixed_factors_as_keras():
    _close(*_both("RandomContrast", (-0.5, 0.5)))  # a contrast of exactly 1.5
    _close(*_both("RandomContrast", (-0.5, 0.5), value_range=(0, 100)))
    _close(*_both("RandomBrightness", (0.1, 0.1)))
    _close(*_both("RandomBrightness", (-0.3, -0.3), value_range=(0, 300)))
    _close(*_both("RandomGrayscale", 1.0))
    _close(*_both("RandomInvert", (1.0, 1.0)))
    _close(*_both("RandomPosterization", (3, 3)))
    _close(*_both("RandomColorDegeneration", (0.4, 0.4)))
    _close(*_both("RandomSharpness", (0.3, 0.3)))
    unit = IMAGES / 255.0
    _close(*_both("RandomSaturation", (0.7, 0.7), images=unit, value_range=(0, 1)), atol=1e-5)
    _close(*_both("Solarization", value_range=(0, 255)))
    _close(*_both("AutoContrast"))
    _close(*_both("AutoContrast", images=unit, value_range=(0, 1)), atol=1e-5)
    _close(*_both("Equalization"))
    _close(*_both("Equalization", images=unit, value_range=(0, 1), bins=64), atol=1e-5)


def _one_of_kerass(name, *args, **kwargs):
    """Ours, for images all equal, is one of the outcomes Keras draws for them."""
    images = np.repeat(IMAGES[:1], 8, axis=0)
    ours, theirs = _both(name, *args, images=images, **kwargs)
    for image in ours:
        assert min(np.max(np.abs(image - t)) for t in theirs) <= 1e-3


def test_random_sign_layers_land_on_kerass_outcomes():
    _one_of_kerass("RandomShear", (0.2, 0.2), (0.1, 0.1))
    _one_of_kerass("RandomHue", (0.4, 0.4))


NAMES_AND_ARGS = {
    "RandomRotation": (0.1,), "RandomZoom": (0.1,), "RandomTranslation": (0.1, 0.2),
    "RandomContrast": (0.1,), "RandomBrightness": (0.1,), "RandomShear": (0.1,),
    "RandomGrayscale": (), "RandomHue": (0.1,), "RandomSaturation": (0.1,),
    "RandomColorJitter": (), "RandomColorDegeneration": (0.1,), "RandomSharpness": (0.1,),
    "RandomPosterization": (4,), "RandomInvert": (), "Solarization": (), "AutoContrast": (),
    "Equalization": (), "RandomErasing": (), "RandomGaussianBlur": (),
    "RandomPerspective": (), "RandomElasticTransform": (), "MixUp": (), "CutMix": (),
    "MaxNumBoundingBoxes": (3,),
}


@pytest.mark.parametrize("name", sorted(NAMES_AND_ARGS))
def test_configs_have_kerass_keys_and_read_both_ways(name):
    args = NAMES_AND_ARGS[name]
    theirs = getattr(keras.layers, name)(*args).get_config()
    ours = getattr(ks.layers, name)(*args).get_config()
    assert set(ours) == set(theirs)
    for key in set(ours) - {"name", "dtype"}:
        assert np.all(np.asarray(ours[key], object) == np.asarray(theirs[key], object)), key
    strip = {k: v for k, v in theirs.items() if k != "dtype"}
    again = getattr(ks.layers, name).from_config(strip).get_config()
    assert {k: again[k] for k in strip} == {k: ours[k] if k != "name" else again[k]
                                            for k in strip}
    if name != "RandomShear":  # Keras 3.15 refuses the (-f, f) its own config stores
        getattr(keras.layers, name).from_config({k: v for k, v in ours.items()
                                                 if k != "dtype"})


def test_a_keras_model_holding_them_loads_and_predicts_the_same(tmp_path):
    model = keras.Sequential([
        keras.Input((8, 8, 3)),
        keras.layers.RandomRotation(0.1, seed=1),
        keras.layers.RandomZoom(0.2),
        keras.layers.RandomTranslation(0.1, 0.1),
        keras.layers.RandomContrast(0.3),
        keras.layers.RandomBrightness(0.2),
        keras.layers.Conv2D(4, 3),
        keras.layers.Flatten(),
        keras.layers.Dense(2),
    ])
    path = str(tmp_path / "augmented.keras")
    model.save(path)
    ours = ks.models.load_model(path)
    x = RNG.uniform(0, 255, (4, 8, 8, 3)).astype("float32")
    _close(ours.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-3)
