"""LoRA on Dense, EinsumDense and Embedding: the frozen weight and trainable factors,
the merged weight, gradients against finite differences, training moves only the factors,
saving writes the merged weight (and loading zeroes the factors), configs, errors."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_layer_gradients

RNG = np.random.default_rng(5)


def _randomize_factors(layer, names):
    for name in names:
        factor = getattr(layer, name)
        factor.assign(RNG.normal(size=factor.shape).astype(factor.dtype))


def test_dense_lora_weights_and_merged_kernel():
    layer = ks.layers.Dense(4, lora_rank=2, lora_alpha=6)
    x = RNG.normal(size=(3, 5)).astype("float32")
    y0 = layer(x).numpy()
    assert [w.name.split("/")[-1] for w in layer.weights] == [
        "kernel", "bias", "lora_kernel_a", "lora_kernel_b"]
    assert [w.name.split("/")[-1] for w in layer.trainable_weights] == [
        "bias", "lora_kernel_a", "lora_kernel_b"]
    np.testing.assert_allclose(y0, x @ layer.weights[0].numpy(), rtol=1e-5)  # B starts at 0
    _randomize_factors(layer, ["lora_kernel_a", "lora_kernel_b"])
    merged = layer.weights[0].numpy() + 3.0 * (
        layer.lora_kernel_a.numpy() @ layer.lora_kernel_b.numpy())
    np.testing.assert_allclose(layer.kernel.numpy(), merged, rtol=1e-5)
    np.testing.assert_allclose(layer(x).numpy(), x @ merged, rtol=1e-4, atol=1e-5)
    assert layer.get_config()["lora_rank"] == 2 and layer.get_config()["lora_alpha"] == 6


@pytest.mark.parametrize("make, inputs", [
    (lambda: ks.layers.Dense(3, dtype="float64"), RNG.normal(size=(2, 4))),
    (lambda: ks.layers.EinsumDense("abc,cde->abde", (5, 2, 3), bias_axes="e",
                                   dtype="float64"), RNG.normal(size=(2, 5, 4))),
])
def test_gradients_match_finite_differences(make, inputs):
    layer = make()
    layer(inputs)
    layer.enable_lora(2, lora_alpha=3)
    _randomize_factors(layer, ["lora_kernel_a", "lora_kernel_b"])
    check_layer_gradients(layer, inputs)


def test_embedding_lora_and_gradients():
    layer = ks.layers.Embedding(6, 3, dtype="float64")
    ids = np.array([[0, 2, 5], [1, 1, 4]])
    layer(ids)
    layer.enable_lora(2)
    assert [w.name.split("/")[-1] for w in layer.weights] == [
        "embeddings", "lora_embeddings_a", "lora_embeddings_b"]
    _randomize_factors(layer, ["lora_embeddings_a", "lora_embeddings_b"])
    merged = layer.weights[0].numpy() + (
        layer.lora_embeddings_a.numpy() @ layer.lora_embeddings_b.numpy())
    np.testing.assert_allclose(layer(ids).numpy(), merged[ids], rtol=1e-12)
    with ks.GradientTape() as tape:
        out = ks.math.reduce_sum(layer(ids) * np.arange(3.0))
    grad_a = tape.gradient(out, layer.lora_embeddings_a)
    grad_a = grad_a.numpy() if hasattr(grad_a, "numpy") else np.asarray(grad_a)
    onehot = np.zeros((6,))
    np.add.at(onehot, ids.ravel(), 1.0)
    expected = np.outer(onehot, layer.lora_embeddings_b.numpy() @ np.arange(3.0))
    np.testing.assert_allclose(grad_a, expected, rtol=1e-10)


def test_training_moves_only_the_factors_and_bias():
    model = ks.Sequential([ks.Input((4,)), ks.layers.Dense(2, lora_rank=1)])
    frozen = model.layers[0].weights[0].numpy()
    model.compile("sgd", "mse")
    model.fit(RNG.normal(size=(8, 4)), RNG.normal(size=(8, 2)), epochs=2, verbose=0)
    np.testing.assert_array_equal(model.layers[0].weights[0].numpy(), frozen)
    assert np.abs(model.layers[0].lora_kernel_b.numpy()).sum() > 0


def test_saving_writes_the_merged_kernel_and_loading_zeroes_the_factors(tmp_path):
    inputs = ks.Input((4,), dtype="int32")
    x = ks.layers.Embedding(10, 6, lora_rank=2)(inputs)
    x = ks.layers.EinsumDense("abc,cd->abd", (4, 3), bias_axes="d", lora_rank=2)(x)
    outputs = ks.layers.Dense(2, lora_rank=3, lora_alpha=1.5)(x)
    model = ks.Model(inputs, outputs)
    for layer in model.layers[1:]:
        names = [w.name.split("/")[-1] for w in layer.weights if "lora" in w.name]
        _randomize_factors(layer, names)
    ids = RNG.integers(0, 10, size=(3, 4))
    expected = model.predict(ids, verbose=0)
    path = str(tmp_path / "lora.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), expected, rtol=1e-5, atol=1e-6)
    for layer in loaded.layers[1:]:
        assert layer.lora_enabled
        for w in layer.weights:
            if "lora" in w.name:
                assert not np.any(w.numpy())
    weights = str(tmp_path / "lora.weights.h5")
    model.save_weights(weights)
    loaded.load_weights(weights)
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, message", [
    (lambda: ks.layers.Dense(2, kernel_constraint="non_neg"), "incompatible with a constraint"),
    (lambda: ks.layers.Embedding(4, 2, embeddings_constraint="non_neg"),
     "incompatible with a constraint"),
])
def test_a_constrained_weight_refuses_lora(make, message):
    layer = make()
    layer.build((None, 3))
    with pytest.raises(InvalidArgumentError, match=message):
        layer.enable_lora(2)


def test_enable_lora_errors():
    layer = ks.layers.Dense(2)
    with pytest.raises(InvalidArgumentError, match="not built yet"):
        layer.enable_lora(2)
    layer.build((None, 3))
    layer.enable_lora(2)
    with pytest.raises(InvalidArgumentError, match="already enabled"):
        layer.enable_lora(2)
    with pytest.raises(InvalidArgumentError, match="lora_rank"):
        ks.layers.Dense(2, lora_rank=0)
