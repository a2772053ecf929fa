"""Keras's applications, built in Keras 3 (numpy backend) with `weights=None` and perturbed
weights, saved as `.weights.h5` (or Keras 2's `.h5`, or `.keras`), load into kerasish's and
predict the same (skipped without Keras). One variant per family; `test_structure.py` covers
the others. Run with Keras's Python:
`KERAS_BACKEND=numpy python -m pytest tests/applications/test_keras_parity.py`."""

import h5py
import numpy as np
import pytest

import kerasish as ks

keras = pytest.importorskip("keras")
legacy_h5_format = pytest.importorskip("keras.src.legacy.saving.legacy_h5_format")


def _perturbed(model, seed=0):
    """`model` with weights moved off their initial values (batch-norm statistics too), so
    a weight that lands in the wrong place changes the output."""
    rng = np.random.default_rng(seed)
    values = []
    for weight in model.weights:
        value = np.asarray(weight.numpy() if hasattr(weight, "numpy") else weight)
        if weight.path.endswith(("moving_variance", "gamma")):
            value = rng.uniform(0.5, 1.5, value.shape)
        else:
            value = value + rng.normal(0.0, 0.05, value.shape)
        values.append(value.astype("float32"))
    model.set_weights(values)
    return model


def _compare(name, size, tmp_path, file="weights", **kwargs):
    kwargs = {"weights": None, "input_shape": (size, size, 3), **kwargs}
    source = _perturbed(getattr(keras.applications, name)(**kwargs))
    x = np.random.default_rng(1).uniform(0.0, 1.0, (1, size, size, 3)).astype("float32")
    expected = np.asarray(source(x))
    if file == "keras":
        path = str(tmp_path / "model.keras")
        source.save(path)
        model = ks.saving.load_model(path)
    else:
        model = getattr(ks.applications, name)(**kwargs)
        if file == "legacy":
            path = str(tmp_path / "keras2.h5")
            with h5py.File(path, "w") as handle:
                legacy_h5_format.save_weights_to_hdf5_group(handle, source)
        else:
            path = str(tmp_path / "model.weights.h5")
            source.save_weights(path)
        model.load_weights(path)
    assert [w.path for w in model.weights] == [w.path for w in source.weights]
    got = model(x).numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=2e-4 * np.abs(expected).max())
    return model


def test_vgg16_with_top(tmp_path):
    _compare("VGG16", 32, tmp_path, classes=10, classifier_activation=None)


@pytest.mark.slow
def test_resnet50_keras_file(tmp_path):
    model = _compare("ResNet50", 32, tmp_path, file="keras", include_top=False, pooling="avg")
    assert model.name == "resnet50"


def test_resnet50v2_with_top(tmp_path):
    _compare("ResNet50V2", 32, tmp_path, classes=5, classifier_activation=None)


def test_densenet121(tmp_path):
    _compare("DenseNet121", 32, tmp_path, include_top=False, pooling="max")


def test_xception_with_top(tmp_path):
    _compare("Xception", 71, tmp_path, classes=7, classifier_activation=None)


def test_inception_v3_from_a_keras2_file(tmp_path):
    """Keras 2's layout, by position: InceptionV3's convolutions are unnamed, as in the
    ImageNet file."""
    _compare("InceptionV3", 75, tmp_path, file="legacy", include_top=False)


@pytest.mark.slow  # the largest graph: 782 layers
def test_inception_resnet_v2(tmp_path):
    _compare("InceptionResNetV2", 75, tmp_path, include_top=False, pooling="avg")


def test_custom_scale_layer_keras_files_both_ways(tmp_path):
    inputs = keras.Input((3, 3, 2))
    scaled = keras.src.applications.inception_resnet_v2.CustomScaleLayer(0.3)(
        [inputs, inputs * 2.0])
    path = str(tmp_path / "keras.keras")
    keras.Model(inputs, scaled).save(path)
    model = ks.saving.load_model(path)
    x = np.random.default_rng(0).standard_normal((1, 3, 3, 2)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), x * 1.6, rtol=1e-6)
    back = str(tmp_path / "kerasish.keras")
    model.save(back)
    np.testing.assert_allclose(np.asarray(keras.saving.load_model(back)(x)), x * 1.6, rtol=1e-6)
