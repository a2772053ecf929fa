"""GroupQueryAttention, ReversibleEmbedding, flash_attention and the backend-tied layer
names without Keras: shapes, masks, gradients flowing, and every error's message."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError

X = np.random.default_rng(0).normal(size=(2, 5, 8)).astype("float32")


def test_gqa_equals_mha_when_heads_are_not_grouped():
    gqa = ks.layers.GroupQueryAttention(4, 2, 2)
    mha = ks.layers.MultiHeadAttention(2, 4)
    gqa(X, X), mha(X, X)
    mha.set_weights(gqa.get_weights())
    np.testing.assert_allclose(gqa(X, X, use_causal_mask=True).numpy(),
                               mha(X, X, use_causal_mask=True).numpy(), atol=1e-6)


def test_gqa_shares_key_value_heads_and_trains():
    gqa = ks.layers.GroupQueryAttention(3, 4, 1, use_gate=True, name="gqa")
    with ks.GradientTape() as tape:
        out, scores = gqa(X, X, return_attention_scores=True)
        loss = ks.reduce_sum(out * out)
    assert scores.shape == (2, 4, 5, 5)
    assert gqa._key_dense.kernel.shape == (8, 1, 3)
    grads = tape.gradient(loss, gqa.trainable_variables)
    assert all(g is not None for g in grads)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_key_value_heads": 3}, "must be divisible by num_key_value_heads"),
    ({"num_key_value_heads": 2, "sliding_window": 0}, "sliding_window must be None or a posi"),
    ({"num_key_value_heads": 2, "flash_attention": True}, "flash_attention=True needs"),
])
def test_gqa_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.GroupQueryAttention(4, 4, **kwargs)


def test_gqa_value_of_another_width_is_an_error():
    with pytest.raises(InvalidArgumentError, match="last axes of the query and the value"):
        ks.layers.GroupQueryAttention(4, 2, 1).compute_output_shape((None, 3, 8), (None, 3, 6))


def test_mha_flash_attention_true_raises_false_computes():
    with pytest.raises(InvalidArgumentError, match="no.*fused|does not have"):
        ks.layers.MultiHeadAttention(2, 4, flash_attention=True)
    assert ks.layers.MultiHeadAttention(2, 4, flash_attention=False)(X, X).shape == X.shape


def test_reversible_embedding_masks_forward_only_and_soft_caps():
    layer = ks.layers.ReversibleEmbedding(10, 8, mask_zero=True, logit_soft_cap=0.5)
    vectors = layer(np.array([[0, 3, 4]]))
    assert vectors._keras_mask.numpy().tolist() == [[False, True, True]]
    logits = layer(vectors, reverse=True)
    assert logits.shape == (1, 3, 10) and getattr(logits, "_keras_mask", None) is None
    assert np.abs(logits.numpy()).max() <= 0.5
    expected = 0.5 * np.tanh(vectors.numpy() @ layer.embeddings.numpy().T / 0.5)
    np.testing.assert_allclose(logits.numpy(), expected, atol=1e-6)


def test_reversible_embedding_config_round_trip():
    layer = ks.layers.ReversibleEmbedding(10, 4, tie_weights=False, reverse_dtype="float64")
    again = ks.layers.ReversibleEmbedding.from_config(layer.get_config())
    assert (again.tie_weights, again.reverse_dtype) == (False, "float64")
    again(np.array([[1]]))
    assert [w.name.split("/")[-1] for w in again.weights] == ["embeddings", "reverse_embeddings"]


@pytest.mark.parametrize("name, args, library", [
    ("FlaxLayer", (None,), "Flax"),
    ("JaxLayer", (None,), "JAX"),
    ("TFSMLayer", ("saved_model",), "TensorFlow SavedModel"),
    ("TorchModuleWrapper", (None,), "PyTorch"),
])
def test_backend_tied_layers_say_why(name, args, library):
    with pytest.raises(NotImplementedError, match=f"{library}.*NumPy/CuPy"):
        getattr(ks.layers, name)(*args)
