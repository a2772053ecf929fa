"""LoRA against Keras 3: a Keras `.keras` file whose Dense/EinsumDense/Embedding layers have
LoRA enabled (factors trained away from zero) loads here and predicts the same (Keras
writes the merged kernel), and a file saved here loads in Keras and predicts the same;
weight names and order as Keras. Skips without keras (run with the interop venv,
KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(1)


def _keras_model():
    inputs = keras.Input((4,), dtype="int32")
    embedding = keras.layers.Embedding(10, 6)
    x = embedding(inputs)
    einsum = keras.layers.EinsumDense("abc,cd->abd", (4, 3), bias_axes="d")
    x = einsum(x)
    outputs = keras.layers.Dense(2, lora_rank=3)(x)
    model = keras.Model(inputs, outputs)
    embedding.enable_lora(2)
    einsum.enable_lora(2, lora_alpha=4)
    for w in model.weights:
        if "lora" in w.path:
            w.assign(RNG.normal(size=w.shape).astype("float32"))
    return model


def test_keras_lora_file_loads_and_predicts_the_same(tmp_path):
    model = _keras_model()
    ids = RNG.integers(0, 10, size=(3, 4)).astype("int32")
    path = str(tmp_path / "lora.keras")
    model.save(path)
    ours = ks.models.load_model(path)
    np.testing.assert_allclose(ours.predict(ids, verbose=0), model.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-5)
    assert [w.name for w in ours.weights] == [w.path for w in model.weights]
    assert [w.trainable for w in ours.weights] == [w.trainable for w in model.weights]


def test_a_file_saved_here_loads_in_keras(tmp_path):
    inputs = ks.Input((4,), dtype="int32")
    x = ks.layers.Embedding(10, 6, lora_rank=2)(inputs)
    outputs = ks.layers.Dense(2, lora_rank=3)(x)
    model = ks.Model(inputs, outputs)
    for w in model.weights:
        if "lora" in w.name:
            w.assign(RNG.normal(size=w.shape).astype("float32"))
    ids = RNG.integers(0, 10, size=(3, 4)).astype("int32")
    path = str(tmp_path / "ours.keras")
    model.save(path)
    theirs = keras.models.load_model(path)
    np.testing.assert_allclose(theirs.predict(ids, verbose=0), model.predict(ids, verbose=0),
                               rtol=1e-5, atol=1e-5)
    assert theirs.layers[1].lora_enabled and theirs.layers[2].lora_rank == 3
