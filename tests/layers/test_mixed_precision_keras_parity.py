"""A Keras 3 `.keras` file of a mixed_float16 model loads here with its policies and predicts
what Keras predicts; our file loads in Keras. Skips without keras (run it with the venv that
holds keras, KERAS_BACKEND=numpy)."""

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402


@pytest.fixture(autouse=True)
def _float32_policies_after():
    yield
    keras.mixed_precision.set_global_policy("float32")
    ks.config.set_floatx("float32")  # (also drops the global policy set by a test)


def _keras_mixed_model():
    keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(0)
    inputs = keras.Input((6,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    logits = keras.layers.Dense(3)(hidden)
    outputs = keras.layers.Activation("softmax", dtype="float32")(logits)
    model = keras.Model(inputs, outputs)
    keras.mixed_precision.set_global_policy("float32")
    return model


def test_keras_mixed_model_loads_and_predicts_the_same(tmp_path):
    model = _keras_mixed_model()
    path = str(tmp_path / "mixed.keras")
    model.save(path)
    x = np.random.default_rng(1).normal(size=(5, 6)).astype("float32")
    theirs = np.asarray(model.predict(x, verbose=0))
    loaded = ks.models.load_model(path)
    dense = [layer for layer in loaded.layers if isinstance(layer, ks.layers.Dense)]
    assert [layer.dtype_policy.name for layer in dense] == ["mixed_float16"] * 2
    assert [layer.kernel.dtype for layer in dense] == [np.float32] * 2
    assert loaded.layers[-1].dtype_policy.name == "float32"
    ours = loaded.predict(x, verbose=0)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, atol=2e-3)  # float16 compute on both sides
    hidden_ours = loaded.layers[1](x)
    hidden_theirs = model.layers[1](x)
    assert hidden_ours.dtype == np.dtype(str(hidden_theirs.dtype)) == np.float16


def test_our_mixed_model_loads_in_keras(tmp_path):
    ks.mixed_precision.set_global_policy("mixed_float16")
    inputs = ks.Input((4,))
    outputs = ks.layers.Activation("softmax", dtype="float32")(ks.layers.Dense(3)(inputs))
    model = ks.Model(inputs, outputs)
    path = str(tmp_path / "ours.keras")
    model.save(path)
    theirs = keras.models.load_model(path)
    assert theirs.layers[1].dtype_policy.name == "mixed_float16"
    x = np.ones((2, 4), "float32")
    np.testing.assert_allclose(np.asarray(theirs(x)), model(x).numpy(), atol=2e-3)


def test_policy_objects_match_keras():
    for name in ("mixed_float16", "float32", "float64"):
        ours, theirs = ks.DTypePolicy(name), keras.DTypePolicy(name)
        assert (ours.compute_dtype, ours.variable_dtype) == (
            theirs.compute_dtype, theirs.variable_dtype)
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
