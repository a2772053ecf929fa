"""`ks.config.enable_unsafe_deserialization()` (Keras 3's name, used in keras-io's saving
guide): after it, a `.keras` file holding a lambda loads without `safe_mode=False`."""

import numpy as np
import pytest

import kerasish as keras
from kerasish.saving import SerializationError, serialization


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
