"""Keras's parameters on existing layers: LSTM/GRU/SimpleRNN take their cell's arguments by
name, use_cudnn, Embedding(weights), Bidirectional(weights), and the clear errors of what
is not supported (quantization_config, use_cudnn=True)."""

import inspect

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError


@pytest.mark.parametrize("name, extra", [
    ("SimpleRNN", []), ("LSTM", ["recurrent_activation", "unit_forget_bias", "use_cudnn"]),
    ("GRU", ["recurrent_activation", "reset_after", "use_cudnn"]),
])
def test_recurrent_layers_name_their_cell_arguments(name, extra):
    params = inspect.signature(getattr(ks.layers, name)).parameters
    for arg in ["activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
                "bias_regularizer", "activity_regularizer", "kernel_constraint",
                "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout",
                "seed", "return_sequences", "return_state", "go_backwards", "stateful",
                "unroll"] + extra:
        assert arg in params, arg
    layer = getattr(ks.layers, name)(3, dropout=0.2, recurrent_dropout=0.1, seed=4,
                                     return_sequences=True)
    assert (layer.dropout, layer.recurrent_dropout, layer.seed) == (0.2, 0.1, 4)
    assert layer(np.ones((2, 4, 5), "float32")).shape == (2, 4, 3)
    again = getattr(ks.layers, name).from_config(layer.get_config())
    assert again.get_config() == layer.get_config() | {"name": again.name}


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_use_cudnn_true_raises_and_auto_runs(name):
    with pytest.raises(InvalidArgumentError, match="use_cudnn=True asks for cuDNN"):
        getattr(ks.layers, name)(2, use_cudnn=True)
    with pytest.raises(InvalidArgumentError, match="use_cudnn must be"):
        getattr(ks.layers, name)(2, use_cudnn="yes")
    assert getattr(ks.layers, name)(2, use_cudnn=False)(np.ones((1, 3, 2))).shape == (1, 2)


def test_embedding_weights_and_uniform_initializer():
    table = np.arange(12.0).reshape(4, 3)
    layer = ks.layers.Embedding(4, 3, weights=table, embeddings_initializer="uniform")
    np.testing.assert_array_equal(layer(np.array([[3, 0]])).numpy(), table[[[3, 0]]])
    layer = ks.layers.Embedding(4, 3, weights=[table])
    np.testing.assert_array_equal(layer.embeddings.numpy(), table)


@pytest.mark.parametrize("kwargs, message", [
    ({"quantization_config": {"mode": "int8"}}, "quantization_config is not supported"),
])
def test_embedding_refuses_quantization(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.Embedding(4, 3, **kwargs)


def test_bidirectional_weights_set_at_build():
    source = ks.layers.Bidirectional(ks.layers.GRU(2))
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")
    expected = source(x).numpy()
    copy = ks.layers.Bidirectional(ks.layers.GRU(2), weights=source.get_weights())
    np.testing.assert_allclose(copy(x).numpy(), expected, atol=1e-6)


@pytest.mark.parametrize("kwargs, message", [
    ({"quantization_config": {"mode": "int8"}}, "quantization_config is not supported"),
])
def test_dense_refuses_quantization(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.Dense(3, **kwargs)
    assert ks.layers.Dense(3, lora_rank=None, lora_alpha=None, quantization_config=None)
