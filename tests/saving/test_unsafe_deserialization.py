"""`ks.config.enable_unsafe_deserialization()` (Keras 3's name, used in keras-io's saving
guide): after it, a `.keras` file holding a lambda loads without `safe_mode=False`."""

import re

import numpy as np
import pytest

import kerasish as keras
from kerasish.core import serialization
from kerasish.saving import SerializationError


@pytest.fixture
def restore_safe_mode(monkeypatch):
    monkeypatch.setattr(serialization, "_unsafe_enabled", False)  # undone after the test


def test_enabling_unsafe_deserialization_lets_a_lambda_load(tmp_path, restore_safe_mode):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Lambda(lambda x: x * 3.0 + 1.0)])
    path = model.save(tmp_path / "lambda.keras")
    with pytest.raises(SerializationError, match="refusing to load a Python lambda"):
        keras.models.load_model(path)
    assert serialization.in_safe_mode()
    keras.config.enable_unsafe_deserialization()
    assert not serialization.in_safe_mode()
    loaded = keras.models.load_model(path)  # safe_mode=True by default, as in Keras: overridden
    np.testing.assert_allclose(loaded.predict(np.ones((1, 2), np.float32)), [[4.0, 4.0]])


def test_a_config_naming_a_namespace_function_never_calls_it():
    before = keras.layers.Dense(1)  # clear_session would reset the name counters
    config = {"module": "keras.layers", "class_name": "clear_session", "config": {},
              "registered_name": None}
    with pytest.raises(SerializationError, match=re.escape(
            "unsupported layer class 'clear_session' (module 'keras.layers'): kerasish has no "
            "built-in layer of that name")):
        keras.saving.deserialize_keras_object(config)
    assert keras.layers.Dense(1).name not in ("dense", before.name)  # the counters kept


@pytest.mark.parametrize("module, name", [("keras.losses", "get"), ("keras.layers", "add"),
                                          ("keras.metrics", "serialize")])
def test_a_config_may_name_only_loss_and_metric_functions(module, name):
    config = {"module": module, "class_name": "function", "config": name,
              "registered_name": "function"}
    with pytest.raises(SerializationError, match=re.escape(
            f"unknown function {name!r} (module {module!r})")):
        keras.saving.deserialize_keras_object(config)
    loss = {"module": "keras.losses", "class_name": "function", "config": "mean_squared_error",
            "registered_name": "function"}
    assert keras.saving.deserialize_keras_object(loss) is keras.losses.mean_squared_error
