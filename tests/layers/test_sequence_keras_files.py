"""`.keras` files holding recurrent, attention and normalization layers: kerasish's own round
trip, and both directions with Keras 3 (those skip without keras)."""

import numpy as np
import pytest

import kerasish as ks

IDS = np.array([[1, 2, 3, 0], [4, 5, 0, 0]])


def _build(library):
    layers = library.layers
    inputs = library.Input((4,), dtype="int32")
    x = layers.Embedding(10, 8)(inputs)
    x = layers.Bidirectional(layers.LSTM(4, return_sequences=True))(x)
    x = layers.LayerNormalization()(x)
    x = layers.MultiHeadAttention(2, 4)(x, x)
    x = layers.TimeDistributed(layers.Dense(5))(x)
    x = layers.GroupNormalization(groups=5)(x)
    x = layers.GRU(3)(x)
    return library.Model(inputs, layers.Dense(1)(x))


def test_kerasish_round_trip(tmp_path):
    model = _build(ks)
    expected = model(IDS).numpy()
    path = str(tmp_path / "sequence.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    np.testing.assert_array_equal(loaded(IDS).numpy(), expected)
    assert [v.shape for v in loaded.weights] == [v.shape for v in model.weights]


def test_files_carry_over_to_and_from_keras(tmp_path):
    keras = pytest.importorskip("keras")
    theirs = _build(keras)
    expected = np.asarray(theirs(IDS))
    keras_path = str(tmp_path / "from_keras.keras")
    theirs.save(keras_path)
    ours = ks.models.load_model(keras_path)
    np.testing.assert_allclose(ours(IDS).numpy(), expected, atol=1e-5)
    ours_path = str(tmp_path / "from_kerasish.keras")
    ours.save(ours_path)
    back = keras.models.load_model(ours_path)
    np.testing.assert_allclose(np.asarray(back(IDS)), expected, atol=1e-5)
