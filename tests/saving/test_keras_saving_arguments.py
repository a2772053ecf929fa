"""Keras 3's saving and model arguments: load_weights(skip_mismatch), save_model(zipped),
save_weights(max_shard_size), custom_object_scope(custom_objects), clone_model(call_function,
recursive), Sequential(trainable)."""

import numpy as np
import pytest

import kerasish as ks


def _dense(units):
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(units, name="a"),
                           ks.layers.Dense(1, name="b")])
    return model


def test_load_weights_skip_mismatch_keeps_the_layer_that_does_not_fit(tmp_path):
    path = ks.saving.save_weights(_dense(2), str(tmp_path / "m.weights.h5"))
    other = _dense(4)
    before = other.layers[0].kernel.numpy().copy()
    with pytest.raises(ValueError, match="has shape"):
        ks.saving.load_weights(other, path)
    with pytest.warns(UserWarning, match="skip_mismatch"):
        ks.saving.load_weights(other, path, skip_mismatch=True)
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), before)


def test_unzipped_and_sharded_files_are_refused_with_the_reason(tmp_path):
    model = _dense(2)
    with pytest.raises(NotImplementedError, match="zipped .keras archive only"):
        ks.saving.save_model(model, str(tmp_path / "m.keras"), zipped=False)
    with pytest.raises(NotImplementedError, match="sharded weights files are not written"):
        ks.saving.save_weights(model, str(tmp_path / "m.weights.h5"), max_shard_size="1GB")


def test_custom_object_scope_takes_keras_argument_name():
    def cube(x):
        return x ** 3
    with ks.saving.custom_object_scope(custom_objects={"cube": cube}):
        assert ks.activations.get("cube") is cube
    with ks.saving.CustomObjectScope(custom_objects={"cube": cube}):
        assert ks.activations.get("cube") is cube


def test_clone_model_call_function_and_recursive():
    inner = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)], name="inner")
    inputs = ks.Input((3,))
    model = ks.Model(inputs, ks.layers.Dense(1)(inner(inputs)))
    calls = []

    def call_function(layer, *args, **kwargs):
        calls.append(layer.name)
        return layer(*args, **kwargs)

    clone = ks.models.clone_model(model, call_function=call_function, recursive=True)
    assert calls
    assert clone.layers[1] is not inner and clone.layers[1].layers[0] is not inner.layers[0]
    with pytest.raises(ValueError, match="call_function needs a functional model's graph"):
        ks.models.clone_model(inner, call_function=call_function)


def test_sequential_trainable_false_freezes_every_layer():
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)], trainable=False)
    assert not model.trainable and not model.layers[0].trainable
    assert model.trainable_variables == []


def test_metric_add_variable_is_keras_spelling_of_add_weight():
    metric = ks.metrics.Mean()
    total = metric.add_variable((2,), "ones", name="extra")
    assert total.name == "extra" and any(v is total for v in metric.variables)
    with pytest.raises(ValueError, match="aggregation must be one of"):
        metric.add_variable((), "zeros", aggregation="max")


def test_model_load_weights_takes_skip_mismatch(tmp_path):
    path = _dense(2).save_weights(str(tmp_path / "m.weights.h5"))
    other = _dense(4)
    before = other.layers[0].kernel.numpy().copy()
    with pytest.warns(UserWarning, match="skip_mismatch"):
        other.load_weights(path, skip_mismatch=True)
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), before)
    ckpt = _dense(2).save_weights(str(tmp_path / "ckpt"))
    with pytest.raises(ValueError, match="apply to Keras's .weights.h5 files"):
        _dense(2).load_weights(ckpt, skip_mismatch=True)
