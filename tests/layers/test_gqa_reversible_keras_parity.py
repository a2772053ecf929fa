"""Keras 3 parity of GroupQueryAttention and ReversibleEmbedding: a `.keras` file built in
Keras loads here and predicts the same (weights in Keras's names and order), masks, causal
and sliding-window attention included; configs read both ways. Skips without keras (run
with the interop venv, KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)


def _load_and_compare(tmp_path, model, inputs, atol=1e-5):
    path = str(tmp_path / "model.keras")
    model.save(path)
    ours = ks.models.load_model(path)
    theirs = model.predict(inputs, verbose=0)
    got = ours.predict(inputs, verbose=0)
    np.testing.assert_allclose(got, theirs, atol=atol, rtol=1e-5)
    return ours


@pytest.mark.parametrize("kwargs, call", [
    ({}, {}),
    ({"use_gate": True}, {"use_causal_mask": True}),
    ({"sliding_window": 2, "use_bias": False}, {}),
    ({"sliding_window": 3}, {"use_causal_mask": True}),
])
def test_gqa_keras_file_predicts_the_same(tmp_path, kwargs, call):
    q = keras.Input((6, 8))
    v = keras.Input((6, 8))
    layer = keras.layers.GroupQueryAttention(4, 6, 2, **kwargs)
    model = keras.Model([q, v], layer(q, v, **call))
    inputs = [RNG.normal(size=(3, 6, 8)).astype("float32") for _ in range(2)]
    ours = _load_and_compare(tmp_path, model, inputs)
    names = ["/".join(w.path.split("/")[-2:]) for w in model.weights]
    assert ["/".join(w.path.split("/")[-2:]) for w in ours.weights] == names


def test_gqa_with_masked_embeddings_and_scores_as_keras():
    emb = RNG.normal(size=(2, 5, 8)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    theirs = keras.layers.GroupQueryAttention(2, 4, 1)
    out_k, scores_k = theirs(emb, emb, value_mask=mask, return_attention_scores=True)
    ours = ks.layers.GroupQueryAttention(2, 4, 1)
    ours(emb, emb)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    out, scores = ours(emb, emb, value_mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), out_k, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), scores_k, atol=1e-6)


def test_gqa_config_reads_both_ways():
    layer = keras.layers.GroupQueryAttention(4, 6, 3, dropout=0.1, use_gate=True,
                                             sliding_window=5)
    config = layer.get_config()
    ours = ks.layers.GroupQueryAttention.from_config(config)
    assert set(ours.get_config()) >= set(config) - {"dtype"}
    back = keras.layers.GroupQueryAttention.from_config(ours.get_config())
    assert back.num_key_value_heads == 3 and back.sliding_window == 5


@pytest.mark.parametrize("tie", [True, False])
def test_reversible_embedding_keras_file_predicts_the_same(tmp_path, tie):
    ids = keras.Input((4,), dtype="int32")
    layer = keras.layers.ReversibleEmbedding(20, 6, tie_weights=tie, logit_soft_cap=3.0)
    x = layer(ids)
    x = keras.layers.Dense(6)(x)
    model = keras.Model(ids, layer(x, reverse=True))
    inputs = RNG.integers(0, 20, size=(3, 4)).astype("int32")
    ours = _load_and_compare(tmp_path, model, inputs)
    assert [w.name.split("/")[-1] for w in ours.weights] == [w.name for w in model.weights]
