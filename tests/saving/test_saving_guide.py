"""The workflows of keras-io's "Save, serialize, and export models" guide, written for kerasish
(our own code and data): custom objects in a saved model, configs with nested objects,
JSON architectures, weight transfer, and the registration / scope / custom_objects routes."""

import numpy as np
import pytest

import kerasish as keras


@keras.saving.register_keras_serializable(package="Guide")
def gated(x):
    return x * keras.nn.sigmoid(x)


@keras.saving.register_keras_serializable(package="Guide")
class Block(keras.layers.Layer):
    """A layer whose config holds other objects: a sublayer and an initializer."""

    def __init__(self, units, projection=None, kernel_initializer="he_normal", **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.projection = projection or keras.layers.Dense(units, activation=gated)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)

    def build(self, input_shape):
        self.gain = self.add_weight("gain", (self.units,), initializer=self.kernel_initializer)

    def call(self, inputs):
        return self.projection(inputs) * self.gain

    def get_config(self):
        return {**super().get_config(), "units": self.units, "projection": self.projection,
                "kernel_initializer": self.kernel_initializer}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["projection"] = keras.saving.deserialize_keras_object(config["projection"])
        return cls(**config)


@keras.saving.register_keras_serializable(package="Guide")
class Classifier(keras.Model):
    def __init__(self, hidden=8, classes=3, **kwargs):
        super().__init__(**kwargs)
        self.hidden, self.classes = hidden, classes
        self.block = Block(hidden)
        self.head = keras.layers.Dense(classes)

    def call(self, inputs):
        return self.head(self.block(inputs))

    def get_config(self):
        return {**super().get_config(), "hidden": self.hidden, "classes": self.classes}


def _data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(32, 5)).astype("float32"), rng.integers(0, 3, 32)


def test_subclassed_model_with_custom_objects_saves_and_trains_on(tmp_path):
    x, y = _data()
    model = Classifier()
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    model.save(tmp_path / "classifier.keras")
    restored = keras.models.load_model(tmp_path / "classifier.keras")
    assert isinstance(restored.block, Block) and restored.block.projection.activation is gated
    np.testing.assert_allclose(restored.predict(x), model.predict(x), rtol=0, atol=0)
    before = restored.evaluate(x, y)
    restored.fit(x, y, batch_size=8, epochs=3, verbose=0)
    assert restored.evaluate(x, y)[0] < before[0]


def test_layer_config_with_nested_objects_round_trips():
    layer = Block(4, kernel_initializer=keras.initializers.RandomNormal(stddev=0.1, seed=1))
    config = layer.get_config()
    assert isinstance(config["projection"], keras.layers.Dense)  # objects stay objects here
    serialized = keras.saving.serialize_keras_object(layer)
    inner = serialized["config"]
    assert inner["projection"]["class_name"] == "Dense"
    assert inner["projection"]["config"]["activation"]["config"] == "Guide>gated"
    assert inner["kernel_initializer"]["config"] == {"mean": 0.0, "stddev": 0.1, "seed": 1}
    copy = keras.saving.deserialize_keras_object(serialized)
    assert copy.kernel_initializer.stddev == 0.1 and copy.projection.units == 4


def test_json_architecture_and_weight_transfer():
    inputs = keras.Input((5,), name="features")
    outputs = keras.layers.Dense(3)(Block(6, name="block")(inputs))
    model = keras.Model(inputs, outputs, name="functional_guide")
    twin = keras.models.model_from_json(model.to_json())
    assert [layer.name for layer in twin.layers] == [layer.name for layer in model.layers]
    twin.set_weights(model.get_weights())
    x, _ = _data()
    np.testing.assert_array_equal(twin.predict(x), model.predict(x))
    rebuilt = keras.Model.from_config(model.get_config())
    assert rebuilt.count_params() == model.count_params()


def test_three_ways_to_name_an_unregistered_object(tmp_path):
    class Shift(keras.layers.Layer):
        def __init__(self, by=1.0, **kwargs):
            super().__init__(**kwargs)
            self.by = by

        def call(self, inputs):
            return inputs + self.by

        def get_config(self):
            return {**super().get_config(), "by": self.by}

    model = keras.Sequential([keras.Input((2,)), Shift(2.0), keras.layers.Dense(1)])
    path = model.save(tmp_path / "shift.keras")
    with pytest.raises(keras.saving.SerializationError, match="unknown class 'Shift'"):
        keras.models.load_model(path)
    x = np.ones((1, 2), np.float32)
    first = keras.models.load_model(path, custom_objects={"Shift": Shift})
    with keras.saving.custom_object_scope({"Shift": Shift}):
        second = keras.models.load_model(path)
    keras.saving.get_custom_objects()["Shift"] = Shift
    try:
        third = keras.models.load_model(path)
    finally:
        del keras.saving.get_custom_objects()["Shift"]
    for loaded in (first, second, third):
        np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
