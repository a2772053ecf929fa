"""MultiHeadAttention, Attention and AdditiveAttention: shapes, weights, masks, gradients,
configs, and forward outputs against Keras 3."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients, check_layer_gradients

RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# ---------------------------------------------------------------- MultiHeadAttention


def test_mha_weights_have_keras_names_and_shapes():
    layer = ks.layers.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=5)
    out = layer(normal(2, 6, 8), normal(2, 7, 10))
    assert out.shape == (2, 6, 8) == layer.compute_output_shape((2, 6, 8), (2, 7, 10))
    assert [(w.path.removeprefix(f"{layer.name}/"), w.shape)
            for w in layer.weights] == [  # (Keras 3's paths, under the layer's name)
        ("query/kernel", (8, 3, 4)), ("query/bias", (3, 4)),
        ("key/kernel", (10, 3, 4)), ("key/bias", (3, 4)),
        ("value/kernel", (10, 3, 5)), ("value/bias", (3, 5)),
        ("attention_output/kernel", (3, 5, 8)), ("attention_output/bias", (8,)),
    ]
    assert layer.weights[0].path == f"{layer.name}/query/kernel"
    no_bias = ks.layers.MultiHeadAttention(2, 4, use_bias=False, output_shape=6)
    assert no_bias(normal(1, 3, 8), normal(1, 3, 8)).shape == (1, 3, 6)
    assert len(no_bias.weights) == 4


def test_mha_matches_the_attention_formula():
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float64")
    query, value, key = normal(2, 4, 5, dtype=np.float64), normal(2, 6, 5, dtype=np.float64), \
        normal(2, 6, 5, dtype=np.float64)
    out, scores = layer(query, value, key, return_attention_scores=True)
    wq, bq, wk, bk, wv, bv, wo, bo = (w.numpy() for w in layer.weights)
    q = np.einsum("btd,dhk->bthk", query, wq) + bq
    k = np.einsum("bsd,dhk->bshk", key, wk) + bk
    v = np.einsum("bsd,dhk->bshk", value, wv) + bv
    expected_scores = softmax(np.einsum("bthk,bshk->bhts", q, k) / np.sqrt(3))
    mixed = np.einsum("bhts,bshk->bthk", expected_scores, v)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-10)
    np.testing.assert_allclose(out.numpy(), np.einsum("bthk,hkd->btd", mixed, wo) + bo,
                               rtol=1e-10)


def test_mha_masked_keys_do_not_change_the_result():
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    query, value = normal(2, 3, 8), normal(2, 5, 8)
    short = layer(query, value[:, :3]).numpy()
    garbage = value.copy()
    garbage[:, 3:] = 50.0
    mask = np.ones((2, 3, 5), bool)
    mask[:, :, 3:] = False
    np.testing.assert_allclose(layer(query, garbage, attention_mask=mask).numpy(), short,
                               rtol=1e-5, atol=1e-6)


def test_mha_uses_masks_attached_to_its_inputs():
    embedding = ks.layers.Embedding(10, 8, mask_zero=True)
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    ids = np.array([[3, 4, 5, 0, 0]])
    x = embedding(ids)
    out = layer(x, x)
    np.testing.assert_array_equal(out._keras_mask.numpy(), ids != 0)
    explicit = layer(x.numpy(), x.numpy(), attention_mask=(ids != 0)[:, None, :]
                     & (ids != 0)[:, :, None])
    np.testing.assert_allclose(out.numpy(), explicit.numpy(), rtol=1e-6)
    unpadded = layer(embedding(ids[:, :3]), embedding(ids[:, :3])).numpy()
    np.testing.assert_allclose(out.numpy()[:, :3], unpadded, rtol=1e-5, atol=1e-6)


def test_mha_causal_mask_hides_the_future():
    layer = ks.layers.MultiHeadAttention(num_heads=1, key_dim=4)
    x = normal(1, 4, 6)
    _, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(scores.numpy()[0, 0], k=1) < 1e-6)
    changed = x.copy()
    changed[:, 3] += 10.0  # the last step cannot affect earlier outputs
    np.testing.assert_allclose(layer(changed, changed, use_causal_mask=True).numpy()[:, :3],
                               layer(x, x, use_causal_mask=True).numpy()[:, :3], rtol=1e-5)


def test_mha_sliding_window_limits_the_band_and_gate_adds_weights():
    layer = ks.layers.MultiHeadAttention(num_heads=1, key_dim=2, sliding_window=2, use_gate=True)
    x = normal(1, 5, 4)
    _, scores = layer(x, x, return_attention_scores=True)
    band = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]) < 2
    assert np.all(scores.numpy()[0, 0][~band] < 1e-6)
    assert [w.path for w in layer.weights][4:6] == [f"{layer.name}/gate/kernel",
                                                    f"{layer.name}/gate/bias"]
    with pytest.raises(ks.InvalidArgumentError, match="sliding_window must be a positive"):
        ks.layers.MultiHeadAttention(1, 2, sliding_window=0)


def test_mha_attention_over_other_axes():
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=3, attention_axes=(1, 2))
    x = normal(2, 3, 4, 6)
    out, scores = layer(x, x, return_attention_scores=True)
    assert out.shape == (2, 3, 4, 6) and scores.shape == (2, 2, 3, 4, 3, 4)
    np.testing.assert_allclose(scores.numpy().reshape(2, 2, 12, 12).sum(-1), 1.0, rtol=1e-5)


def test_mha_gradients():
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    mask = RNG.random((2, 3, 4)) > 0.3
    mask[..., 0] = True
    layer(normal(2, 3, 4), normal(2, 4, 4))
    weights = layer.trainable_variables
    check_gradients(lambda q, v: layer(q, v, attention_mask=mask),
                    [normal(2, 3, 4, dtype=np.float64), normal(2, 4, 4, dtype=np.float64)])
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(layer(normal(2, 3, 4, dtype=np.float64),
                                   normal(2, 4, 4, dtype=np.float64)) ** 2)
    assert all(g is not None for g in tape.gradient(loss, weights))


def test_mha_errors_name_the_argument():
    with pytest.raises(ks.InvalidArgumentError, match="num_heads must be a positive integer"):
        ks.layers.MultiHeadAttention(num_heads=0, key_dim=2)
    layer = ks.layers.MultiHeadAttention(num_heads=1, key_dim=2)
    with pytest.raises(ks.InvalidArgumentError, match="value and key must have the same shape"):
        layer(normal(1, 2, 3), normal(1, 4, 3), normal(1, 5, 3))


def test_mha_dropout_only_in_training():
    layer = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.5)
    x = normal(2, 5, 8)
    np.testing.assert_array_equal(layer(x, x).numpy(), layer(x, x, training=False).numpy())
    assert not np.allclose(layer(x, x, training=True).numpy(), layer(x, x).numpy())


# ---------------------------------------------------------------- Attention, AdditiveAttention


def test_dot_attention_formula_and_masks():
    query, value = normal(2, 3, 4, dtype=np.float64), normal(2, 5, 4, dtype=np.float64)
    value_mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    query_mask = np.array([[1, 0, 1], [1, 1, 1]], bool)
    layer = ks.layers.Attention(dtype="float64")
    out, scores = layer([query, value], mask=[query_mask, value_mask],
                        return_attention_scores=True)
    logits = np.where(value_mask[:, None, :], query @ value.transpose(0, 2, 1), -np.inf)
    expected = softmax(logits)
    np.testing.assert_allclose(scores.numpy(), expected, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(out.numpy(), (expected @ value) * query_mask[..., None],
                               rtol=1e-10)
    np.testing.assert_array_equal(out._keras_mask.numpy(), query_mask)


def test_attention_layers_gradients_and_weights():
    q, v = normal(2, 3, 4, dtype=np.float64), normal(2, 5, 4, dtype=np.float64)
    for layer, names in [
        (ks.layers.Attention(use_scale=True, score_mode="concat", dtype="float64"),
         ["scale", "concat_score_weight"]),
        (ks.layers.AdditiveAttention(dtype="float64"), ["scale"]),
    ]:
        layer([q, v])
        assert [w.name.split("/")[-1] for w in layer.weights] == names
        check_gradients(lambda a, b, layer=layer: layer([a, b], use_causal_mask=True), [q, v])


def test_attention_needs_a_list_of_two_or_three():
    with pytest.raises(ks.InvalidArgumentError, match=r"\[query, value\].*length 1"):
        ks.layers.Attention()([normal(1, 2, 3)])
    with pytest.raises(ks.InvalidArgumentError, match="score_mode"):
        ks.layers.Attention(score_mode="general")


@pytest.mark.parametrize("make", [
    lambda: ks.layers.MultiHeadAttention(2, 3, value_dim=4, output_shape=5, dropout=0.1),
    lambda: ks.layers.Attention(use_scale=True, score_mode="concat"),
    lambda: ks.layers.AdditiveAttention(use_scale=False),
])
def test_configs_round_trip(make):
    layer = make()
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == {**config, "name": config["name"]}


# ---------------------------------------------------------------- Keras 3 parity


@pytest.mark.parametrize("kwargs,call", [
    ({}, {}),
    ({"value_dim": 3, "output_shape": 7}, {"attention_mask": True}),
    ({"use_bias": False}, {"use_causal_mask": True}),
    ({"attention_axes": (2,)}, {"rank4": True}),
    ({"use_gate": True}, {}),
    ({"sliding_window": 2}, {"use_causal_mask": True}),
])
def test_mha_matches_keras(kwargs, call):
    keras = pytest.importorskip("keras")
    rank4 = call.pop("rank4", False)
    query = normal(2, 3, 4, 8) if rank4 else normal(2, 5, 8)
    value = query if rank4 else normal(2, 6, 8)
    if call.pop("attention_mask", False):
        call["attention_mask"] = RNG.random((2, 5, 6)) > 0.3
    theirs = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, **kwargs)
    ours = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4, **kwargs)
    out_k, scores_k = theirs(query, value, return_attention_scores=True, **call)
    ours(query, value)
    ours.set_weights(theirs.get_weights())
    out, scores = ours(query, value, return_attention_scores=True, **call)
    np.testing.assert_allclose(out.numpy(), np.asarray(out_k), atol=2e-6)
    np.testing.assert_allclose(scores.numpy(), np.asarray(scores_k), atol=2e-6)


@pytest.mark.parametrize("name,kwargs", [
    ("Attention", {}),
    ("Attention", {"use_scale": True, "score_mode": "concat"}),
    ("AdditiveAttention", {}),
])
def test_attention_matches_keras_with_masks(name, kwargs):
    keras = pytest.importorskip("keras")
    query, value = normal(2, 5, 8), normal(2, 6, 8)
    masks = [np.array([[1, 1, 1, 0, 1], [1, 1, 1, 1, 1]], bool),
             np.array([[1, 1, 0, 0, 1, 1], [1, 1, 1, 1, 1, 0]], bool)]
    theirs, ours = getattr(keras.layers, name)(**kwargs), getattr(ks.layers, name)(**kwargs)
    theirs([query, value])
    ours([query, value])
    weights = [RNG.standard_normal(w.shape).astype(np.float32) for w in theirs.get_weights()]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    expected = theirs([query, value], mask=masks, use_causal_mask=True)
    np.testing.assert_allclose(ours([query, value], mask=masks, use_causal_mask=True).numpy(),
                               np.asarray(expected), atol=2e-6)


def test_symbolic_calls_give_the_output_and_score_shapes():
    inputs = ks.Input((5, 3))
    mha_out, mha_scores = ks.layers.MultiHeadAttention(2, 4)(inputs, inputs,
                                                             return_attention_scores=True)
    att_out, att_scores = ks.layers.Attention()([inputs, inputs], return_attention_scores=True)
    assert [t.shape for t in (mha_out, mha_scores, att_out, att_scores)] == [
        (None, 5, 3), (None, 2, 5, 5), (None, 5, 3), (None, 5, 5)]
    model = ks.Model(inputs, [mha_out, mha_scores, att_out, att_scores])
    assert len(model.weights) == 8  # the projections exist before the first real call
    outputs = model(np.ones((2, 5, 3), np.float32))
    assert [o.shape for o in outputs] == [(2, 5, 3), (2, 2, 5, 5), (2, 5, 3), (2, 5, 5)]


def test_mha_axis_and_mask_errors():
    layer = ks.layers.MultiHeadAttention(1, 2, attention_axes=(3,))
    with pytest.raises(ks.InvalidArgumentError, match=r"attention_axes \(3,\) must name axes"):
        layer(normal(1, 2, 3, 4), normal(1, 2, 3, 4))
    layer = ks.layers.MultiHeadAttention(1, 2)
    with pytest.raises(ks.InvalidArgumentError, match=r"attention_mask of shape \(1, 1, 1, 2, 2\)"):
        layer(normal(1, 2, 4), normal(1, 2, 4), attention_mask=np.ones((1, 1, 1, 2, 2), bool))
    layer(normal(1, 2, 4), normal(1, 2, 4))
    with pytest.raises(ks.InvalidArgumentError, match=r"query.*ending in \(4,\).*\(1, 2, 5\)"):
        layer(normal(1, 2, 5), normal(1, 2, 4))


class _SelfAttention(ks.layers.Layer):
    """Calls an attention layer on (x, x), so check_layer_gradients (one input) can drive it."""

    def __init__(self, inner, as_list=False, **kwargs):
        super().__init__(**kwargs)
        self.inner, self.as_list = inner, as_list

    def call(self, x):
        return self.inner([x, x]) if self.as_list else self.inner(x, x, use_causal_mask=True)


@pytest.mark.parametrize("make,as_list", [
    (lambda: ks.layers.MultiHeadAttention(2, 2, dtype="float64"), False),
    (lambda: ks.layers.MultiHeadAttention(2, 2, use_gate=True, output_shape=3, dtype="float64"),
     False),
    (lambda: ks.layers.Attention(use_scale=True, score_mode="concat", dtype="float64"), True),
    (lambda: ks.layers.AdditiveAttention(dtype="float64"), True),
])
def test_weight_gradients_match_finite_differences(make, as_list):
    check_layer_gradients(_SelfAttention(make(), as_list, dtype="float64"),
                          normal(2, 3, 4, dtype=np.float64))
