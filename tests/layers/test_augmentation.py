"""The image augmentation layers (Keras 3's RandomRotation, RandomZoom, ..., MixUp): identity
at inference, seeded reproducibility, the statistics of their draws, gradients, use inside
`Dataset.map` and `fit`, configs and error messages. Keras parity: in
test_augmentation_keras_parity.py."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients

L = ks.layers
RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, (4, 6, 7, 3)).astype(np.float32)

ALL = {
    "RandomRotation": (0.2,), "RandomZoom": (0.2, 0.1), "RandomTranslation": (0.2, 0.1),
    "RandomShear": (0.2, 0.1), "RandomContrast": (0.3,), "RandomBrightness": (0.2,),
    "RandomGrayscale": (0.5,), "RandomHue": (0.3,), "RandomSaturation": (0.3,),
    "RandomColorJitter": ((0, 255), 0.1, 0.1, 0.1, 0.1), "RandomColorDegeneration": (0.3,),
    "RandomSharpness": (0.3,), "RandomPosterization": (5,), "RandomInvert": (0.5,),
    "Solarization": (0.2, 0.5), "RandomErasing": (), "RandomGaussianBlur": (),
    "RandomPerspective": (0.8, 0.3), "MixUp": (), "CutMix": (),
    "RandomElasticTransform": (0.9, 0.8),
}


@pytest.mark.parametrize("name", sorted(ALL))
def test_inference_is_the_identity_and_training_augments(name):
    layer = getattr(L, name)(*ALL[name], seed=5)
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), IMAGES)
    out = layer(IMAGES, training=True).numpy()
    assert out.shape == IMAGES.shape and out.dtype == np.float32
    assert layer(IMAGES[0]).shape == IMAGES[0].shape  # one image
    model = ks.Sequential([ks.Input((6, 7, 3)), getattr(L, name)(*ALL[name])])
    np.testing.assert_array_equal(model.predict(IMAGES, verbose=0), IMAGES)


@pytest.mark.parametrize("name", sorted(ALL))
def test_a_set_seed_repeats_the_draws(name):
    def run():
        ks.random.set_seed(11)
        layer = getattr(L, name)(*ALL[name], seed=2)
        return layer(IMAGES).numpy(), layer(IMAGES).numpy()
    (a1, a2), (b1, b2) = run(), run()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)


def test_configs_read_back_and_channels_first_matches_channels_last():
    for name, args in ALL.items():
        layer = getattr(L, name)(*args)
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config(), name
    first = np.moveaxis(IMAGES, -1, 1)
    for layer, layer_first in (
            (L.RandomRotation((0.1, 0.1)), L.RandomRotation((0.1, 0.1),
                                                            data_format="channels_first")),
            (L.RandomContrast((-0.3, 0.3)), L.RandomContrast((-0.3, 0.3),
                                                             data_format="channels_first"))):
        np.testing.assert_allclose(np.moveaxis(layer_first(first).numpy(), 1, -1),
                                   layer(IMAGES).numpy(), atol=1e-3)


def test_a_quarter_turn_and_fixed_zoom_shift_contrast_and_brightness():
    x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    turned = L.RandomRotation((0.25, 0.25), interpolation="nearest")(x).numpy()
    np.testing.assert_array_equal(turned, np.rot90(x, 1, axes=(1, 2)))
    zoomed = L.RandomZoom((-0.5, -0.5), interpolation="nearest")(np.ones((1, 5, 5, 1)))
    assert zoomed.numpy().min() == 1.0  # zoomed in: all inside
    shifted = L.RandomTranslation((0.5, 0.5), 0.0, fill_mode="constant", fill_value=-1.0)(x)
    np.testing.assert_array_equal(shifted.numpy()[0, 2:], x[0, :2])
    assert (shifted.numpy()[0, :2] == -1).all()
    contrasted = L.RandomContrast((-1.0, 1.0), value_range=(-100, 100))(x).numpy()
    np.testing.assert_allclose(contrasted - contrasted.mean(), 2 * (x - x.mean()), rtol=1e-6)
    brighter = L.RandomBrightness((0.1, 0.1), value_range=(0, 100))(x).numpy()
    np.testing.assert_allclose(brighter, np.minimum(x + 10.0, 100.0))


def test_the_draws_have_the_documented_distributions():
    ks.random.set_seed(0)
    half = np.full((2000, 1, 1, 3), 0.5, np.float32)
    delta = L.RandomBrightness(0.2, value_range=(0, 1))(half).numpy()[:, 0, 0, 0] - 0.5
    assert -0.2 <= delta.min() < -0.19 and 0.19 < delta.max() <= 0.2
    assert abs(delta.mean()) < 0.01 and abs(delta.std() - 0.4 / np.sqrt(12)) < 0.01
    colours = np.tile(np.array([1.0, 0.0, 0.0], np.float32), (2000, 1, 1, 1))
    gray = L.RandomGrayscale(0.3)(colours).numpy()
    assert abs((gray[:, 0, 0, 1] > 0).mean() - 0.3) < 0.04
    inverted = L.RandomInvert(0.5, value_range=(0, 1))(np.zeros((2000, 1, 1, 1))).numpy()
    assert abs(inverted.mean() - 0.25) < 0.03  # probability ~ U[0, 0.5], so 1/4 inverted
    # a horizontal shift of U[-0.5, 0.5] widths leaves |shift| of the row filled
    row = np.ones((2000, 1, 40, 1), np.float32)
    shifted = L.RandomTranslation(0.0, 0.5, fill_mode="constant", fill_value=0.0,
                                  interpolation="nearest")(row).numpy()
    filled = (shifted == 0).mean(axis=(1, 2, 3))
    assert abs(filled.mean() - 0.25) < 0.02 and filled.max() <= 0.5 + 1 / 40
    pair = {"images": np.stack([np.zeros((3, 3, 1)), np.ones((3, 3, 1))] * 500),
            "labels": np.tile(np.eye(2, dtype=np.float32), (500, 1))}
    mixed = L.MixUp(alpha=0.5)(pair)
    labels = mixed["labels"].numpy()
    np.testing.assert_allclose(labels.sum(1), 1.0, rtol=1e-5)
    weights = labels[:, 0]  # MixUp's w (or 1 - w) where the partner has the other label
    assert 0.0 <= weights.min() and weights.max() <= 1.0 and abs(weights.mean() - 0.5) < 0.05
    cut = L.CutMix()(pair)
    np.testing.assert_allclose(cut["labels"].numpy().sum(1), 1.0, rtol=1e-5)
    assert not np.array_equal(cut["images"].numpy(), pair["images"])


def test_gradients_flow_through_the_fixed_transforms():
    x = RNG.random((1, 4, 5, 2))
    for layer in (L.RandomRotation((0.07, 0.07), dtype="float64"),
                  L.RandomZoom((0.3, 0.3), dtype="float64"),
                  L.RandomContrast((-0.4, 0.4), value_range=(-10, 10), dtype="float64"),
                  L.RandomShear((0.13, 0.13), dtype="float64", seed=1)):
        def augment(t, layer=layer):
            ks.random.set_seed(0)  # the same draw (the shear's sign) at every evaluation
            return layer(t, training=True)
        check_gradients(augment, [x], order=1)


def test_layers_run_inside_dataset_map_and_fit():
    ds = ks.data.Dataset.from_tensor_slices((IMAGES, np.arange(4))).batch(2)
    augment = ks.Sequential([L.RandomRotation(0.1), L.RandomZoom(0.1), L.RandomContrast(0.2)])
    shapes = [tuple(x.shape) for x, _ in ds.map(lambda x, y: (augment(x), y))]
    assert shapes == [(2, 6, 7, 3), (2, 6, 7, 3)]
    model = ks.Sequential([ks.Input((6, 7, 3)), L.RandomFlip(), L.RandomRotation(0.1),
                           L.RandomTranslation(0.1, 0.1), L.Rescaling(1 / 255), L.Flatten(),
                           L.Dense(1)])
    model.compile("adam", "mse")
    history = model.fit(IMAGES, np.ones((4, 1)), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_pipeline_applies_its_layers_in_turn_and_reads_back():
    pipe = L.Pipeline([L.RandomBrightness((0.1, 0.1)), L.RandomInvert((1.0, 1.0))])
    np.testing.assert_allclose(pipe(IMAGES).numpy(),
                               255 - np.minimum(IMAGES + 25.5, 255), rtol=1e-5)
    np.testing.assert_array_equal(pipe(IMAGES, training=False).numpy(), IMAGES)
    again = L.Pipeline.from_config(ks.saving.serialize_keras_object(pipe)["config"])
    assert [type(layer).__name__ for layer in again.layers] == ["RandomBrightness",
                                                                "RandomInvert"]


def test_errors_name_the_argument():
    with pytest.raises(ks.InvalidArgumentError, match=r"`factor` argument .* \[-1, 1\]"):
        L.RandomRotation(1.5)
    with pytest.raises(ks.InvalidArgumentError, match=r"`height_factor` .*\(-1.0, 1.0\]"):
        L.RandomZoom(-1.0)
    with pytest.raises(ks.InvalidArgumentError, match=r"`width_factor` .*\[-1.0, 1.0\]"):
        L.RandomTranslation(0.1, 2.0)
    with pytest.raises(NotImplementedError, match="unknown `fill_mode` 'mirror'"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="unknown `interpolation` 'bicubic'"):
        L.RandomZoom(0.1, interpolation="bicubic")
    with pytest.raises(NotImplementedError, match="bounding boxes are not supported"):
        L.RandomRotation(0.1, bounding_box_format="xyxy")
    with pytest.raises(NotImplementedError, match="'bounding_boxes' inputs are not supported"):
        L.RandomZoom(0.1)({"images": IMAGES, "bounding_boxes": {"boxes": np.zeros((4, 1, 4))}})
    with pytest.raises(NotImplementedError, match="'bounding_boxes' inputs are not supported"):
        L.MaxNumBoundingBoxes(3)({"images": IMAGES, "bounding_boxes": {}})
    with pytest.raises(ks.InvalidArgumentError, match="a dict input needs an 'images' entry"):
        L.RandomZoom(0.1)({"labels": np.zeros(4)})
    with pytest.raises(ks.InvalidArgumentError, match="expects RGB images"):
        L.RandomHue(0.1)(IMAGES[..., :1])
    with pytest.raises(ks.InvalidArgumentError, match="kernel_size must be an odd number"):
        L.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ks.InvalidArgumentError, match="`factor` should be between 0 and 1"):
        L.RandomGrayscale(2.0)
    with pytest.raises(ks.InvalidArgumentError, match="`value_range` argument should be"):
        L.RandomBrightness(0.1, value_range=3)
    with pytest.raises(ks.InvalidArgumentError, match="`addition_factor` and"):
        L.Solarization(addition_factor=2.0)
    with pytest.raises(ks.InvalidArgumentError, match="`x_factor` argument"):
        L.RandomShear(x_factor=1.5)
    with pytest.raises(ks.InvalidArgumentError, match="scale must be in"):
        L.RandomPerspective(scale=2.0)
    with pytest.raises(ks.InvalidArgumentError, match="fill_value must be None, a number"):
        L.RandomErasing(fill_value="red")
    with pytest.raises(ks.InvalidArgumentError, match="max_number must be a positive"):
        L.MaxNumBoundingBoxes(0)
    with pytest.raises(ks.InvalidArgumentError, match="does not take a `factor`"):
        L.RandomZoom(0.1, factor=0.2)
    with pytest.raises(ks.InvalidArgumentError, match="expects an image of rank 3"):
        L.RandomContrast(0.1)(np.ones((2, 3)))
