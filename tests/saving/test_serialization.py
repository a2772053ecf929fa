"""The serialization registry: Keras-3-form dicts, custom objects, safe mode, Keras-only keys."""

import json

import numpy as np
import pytest

import kerasish as ks
from kerasish.saving import (
    SerializationError,
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)


def _through_json(obj):
    return json.loads(json.dumps(serialize_keras_object(obj)))


def test_layer_serializes_in_keras_form_and_round_trips():
    layer = ks.layers.Dense(3, activation="relu", kernel_regularizer="l2", name="hidden")
    config = _through_json(layer)
    assert config["module"] == "keras.layers"
    assert config["class_name"] == "Dense"
    assert config["registered_name"] is None
    assert config["config"]["activation"] == "relu"
    assert config["config"]["dtype"] == {
        "module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
        "registered_name": None,
    }
    assert config["config"]["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert config["config"]["kernel_regularizer"] == {
        "module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.01},
        "registered_name": None,
    }
    copy = deserialize_keras_object(config)
    assert isinstance(copy, ks.layers.Dense) and copy is not layer
    assert copy.name == "hidden" and copy.units == 3 and not copy.built
    assert serialize_keras_object(copy) == config


def test_built_layer_carries_build_config_and_is_built_on_load():
    layer = ks.layers.Dense(2)
    layer(ks.zeros([5, 4]))
    config = _through_json(layer)
    assert config["build_config"] == {"input_shape": [None, 4]}
    copy = deserialize_keras_object(config)
    assert copy.built and copy.kernel.shape == (4, 2)


def test_kerasish_module_names_resolve_too():
    config = _through_json(ks.layers.Dropout(0.25))
    config["module"] = "kerasish.layers"
    assert deserialize_keras_object(config).rate == 0.25


def test_numpy_values_use_keras_numpy_form():
    value = np.arange(3, dtype=np.float32)
    config = serialize_keras_object({"v": value, "s": np.float64(2.5), "t": (1, 2)})
    assert config["v"] == {"class_name": "__numpy__",
                           "config": {"value": [0.0, 1.0, 2.0], "dtype": "float32"}}
    assert config["s"] == 2.5 and config["t"] == [1, 2]
    back = deserialize_keras_object(config)
    np.testing.assert_array_equal(back["v"], value)


def test_registered_class_round_trips_by_registered_name():
    @register_keras_serializable(package="TestPkg")
    class Scale(ks.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    assert get_registered_name(Scale) == "TestPkg>Scale"
    assert get_registered_object("TestPkg>Scale") is Scale
    config = _through_json(Scale(3.0))
    assert config["registered_name"] == "TestPkg>Scale"
    assert config["module"] == Scale.__module__
    copy = deserialize_keras_object(config)
    assert type(copy) is Scale and copy.factor == 3.0


def test_registering_a_class_without_get_config_is_refused():
    with pytest.raises(ValueError, match="class Plain has no get_config"):
        @register_keras_serializable()
        class Plain:
            pass


def test_unregistered_class_needs_custom_objects_or_scope():
    class Shift(ks.layers.Layer):
        def __init__(self, by=1.0, **kwargs):
            super().__init__(**kwargs)
            self.by = by

        def get_config(self):
            return {**super().get_config(), "by": self.by}

    config = _through_json(Shift(0.5))
    with pytest.raises(SerializationError, match=r"unknown class 'Shift' \(module '.*test_"):
        deserialize_keras_object(config)
    assert deserialize_keras_object(config, custom_objects={"Shift": Shift}).by == 0.5
    with custom_object_scope({"Shift": Shift}):
        assert deserialize_keras_object(config).by == 0.5
    with pytest.raises(SerializationError, match="custom_objects"):
        deserialize_keras_object(config)


def test_unknown_builtin_class_names_its_family_and_class():
    config = {"module": "keras.layers", "class_name": "NoSuchLayer", "config": {},
              "registered_name": None}
    with pytest.raises(SerializationError,
                       match="unsupported layer class 'NoSuchLayer' .*keras.layers"):
        deserialize_keras_object(config)


def test_custom_activation_function_through_registry_and_scope():
    def cube(x):
        return x ** 3

    with custom_object_scope({"cube": cube}):
        assert ks.activations.get("cube") is cube
        layer = ks.layers.Dense(2, activation="cube")
    assert layer.activation is cube
    register_keras_serializable(package="TestPkg")(cube)
    config = _through_json(ks.layers.Dense(2, activation=cube))
    assert config["config"]["activation"] == {
        "module": cube.__module__, "class_name": "function", "config": "TestPkg>cube",
        "registered_name": "function",
    }
    assert deserialize_keras_object(config).activation is cube


def test_lambda_is_refused_in_safe_mode_and_runs_when_trusted():
    config = _through_json({"fn": lambda x: x + 1})
    assert config["fn"]["class_name"] == "__lambda__"
    with pytest.raises(SerializationError, match="safe_mode=False"):
        deserialize_keras_object(config)
    fn = deserialize_keras_object(config, safe_mode=False)["fn"]
    assert fn(2) == 3


def test_unknown_function_names_how_to_register_it():
    config = {"module": "mymodule", "class_name": "function", "config": "swoosh",
              "registered_name": "function"}
    with pytest.raises(SerializationError, match="unknown function 'swoosh'.*custom_objects"):
        ks.activations.get(config)


@pytest.mark.parametrize("family, obj", [
    ("initializers", ks.initializers.HeNormal(seed=3)),
    ("initializers", ks.initializers.RandomNormal(0.5, 2.0)),
    ("initializers", ks.initializers.VarianceScaling(2.0, "fan_out", "uniform")),
    ("initializers", ks.initializers.Constant(0.3)),
    ("regularizers", ks.regularizers.L1L2(0.1, 0.2)),
    ("regularizers", ks.regularizers.l1(0.3)),
])
def test_get_accepts_serialized_dicts(family, obj):
    module = getattr(ks, family)
    config = _through_json(obj)
    assert config["module"] == f"keras.{family}"
    copy = module.get(config)
    assert type(copy) is type(obj) and copy.get_config() == obj.get_config()
    config.pop("module")  # a dict without module resolves within the family asked
    assert module.get(config).get_config() == obj.get_config()


def test_initializer_class_names_as_strings():
    assert isinstance(ks.initializers.get("GlorotUniform"), ks.initializers.GlorotUniform)
    assert isinstance(ks.regularizers.get("L2"), ks.regularizers.L2)


def test_keras_only_keys_with_their_default_are_dropped_others_refused():
    keras_config = {
        "module": "keras.layers", "class_name": "Conv2D",
        "config": {"name": "c", "filters": 2, "kernel_size": [3, 3], "data_format":
                   "channels_last", "dilation_rate": [1, 1], "groups": 1,
                   "kernel_constraint": None, "activity_regularizer": None},
        "registered_name": None,
    }
    layer = deserialize_keras_object(keras_config)
    assert layer.filters == 2 and layer.kernel_size == (3, 3)
    keras_config["config"]["lora_rank"] = 4
    with pytest.raises(SerializationError,
                       match=r"Conv2D: the config sets lora_rank=4, which kerasish"):
        deserialize_keras_object(keras_config)


def test_constructor_errors_name_the_class_and_config():
    config = {"module": "keras.layers", "class_name": "Dense", "config": {"name": "d"},
              "registered_name": None}
    with pytest.raises(SerializationError, match="cannot rebuild Dense from its config"):
        deserialize_keras_object(config)


def test_object_without_get_config_cannot_be_serialized():
    class Opaque:
        pass

    with pytest.raises(SerializationError, match="Opaque.*no get_config"):
        serialize_keras_object(Opaque())


def test_losses_and_metrics_get_accept_keras_form_dicts():
    loss = ks.losses.Huber(delta=2.0, name="robust")
    copy = ks.losses.get(_through_json(loss))
    assert type(copy) is ks.losses.Huber and copy.get_config() == loss.get_config()
    keras_written = {
        "module": "keras.losses", "class_name": "SparseCategoricalCrossentropy",
        "config": {"name": "scce", "reduction": "sum_over_batch_size", "from_logits": True,
                   "ignore_class": None},
        "registered_name": None,
    }
    assert ks.losses.get(keras_written).get_config()["from_logits"] is True
    metric = ks.metrics.SparseCategoricalAccuracy(name="acc")
    config = _through_json(metric)
    assert "from_logits" not in config["config"]  # left out at its default: Keras has no such key
    copy = ks.metrics.get(config)
    assert type(copy) is ks.metrics.SparseCategoricalAccuracy and copy.name == "acc"
    assert ks.metrics.get({"class_name": "MeanSquaredError", "config": {"name": "m"}}).name == "m"


def test_get_custom_objects_is_the_registry():
    def halve(x):
        return x * 0.5

    ks.saving.get_custom_objects()["halve"] = halve
    try:
        assert ks.activations.get("halve") is halve
        assert get_registered_object("halve") is halve
    finally:
        del ks.saving.get_custom_objects()["halve"]


def test_remaining_serialization_errors_say_what_was_wrong():
    with pytest.raises(ValueError, match="package 'a>b' may not contain"):
        register_keras_serializable(package="a>b")
    with pytest.raises(SerializationError, match="cannot serialize the class Dense itself"):
        serialize_keras_object(ks.layers.Dense)
    with pytest.raises(SerializationError, match=r"cannot deserialize \{1\} \(set\)"):
        deserialize_keras_object({1})


def test_lambda_capturing_variables_is_refused_at_serialization():
    factor = 3.0
    with pytest.raises(SerializationError, match=r"lambda that uses variables .*\(factor\)"):
        serialize_keras_object(lambda x: x * factor)
