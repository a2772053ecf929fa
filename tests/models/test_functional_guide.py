"""The patterns of keras-io's "The Functional API" guide, written with `import kerasish as keras`.

Our own small programs on synthetic data (a few steps each), one per section of the
guide: a plain classifier trained, evaluated, saved and reloaded; models nested as
layers (an autoencoder, an ensemble); several inputs and outputs trained with
per-output losses; a residual network; a shared layer; feature extraction; a custom
layer rebuilt from its config.
"""

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def data(*shape, seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def test_classifier_trains_evaluates_and_reloads(tmp_path):
    keras.random.set_seed(3)
    inputs = keras.Input(shape=(16,), name="pixels")
    x = layers.Dense(32, activation="relu")(inputs)
    x = layers.Dense(32, activation="relu")(x)
    outputs = layers.Dense(4)(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="classifier")
    model.compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    x_train = data(256, 16)
    y_train = x_train[:, :4].argmax(axis=1)  # a learnable rule
    history = model.fit(x_train, y_train, batch_size=32, epochs=8, verbose=0,
                        validation_split=0.25)
    assert history.history["accuracy"][-1] > 0.6
    loss, accuracy = model.evaluate(x_train, y_train, verbose=0)
    assert accuracy > 0.6

    path = str(tmp_path / "classifier.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    np.testing.assert_allclose(restored.predict(x_train[:8]), model.predict(x_train[:8]),
                               rtol=1e-6)


def test_models_are_layers_autoencoder_and_ensemble():
    image = keras.Input(shape=(8, 8, 1), name="image")
    x = layers.Conv2D(4, 3, activation="relu", padding="same")(image)
    x = layers.MaxPooling2D(2)(x)
    code = layers.Flatten()(x)
    encoder = keras.Model(image, code, name="encoder")

    code_input = keras.Input(shape=(64,), name="code")
    x = layers.Dense(64, activation="sigmoid")(code_input)
    decoded = layers.Reshape((8, 8, 1))(x)
    decoder = keras.Model(code_input, decoded, name="decoder")

    autoencoder_input = keras.Input(shape=(8, 8, 1), name="img")
    autoencoder = keras.Model(autoencoder_input, decoder(encoder(autoencoder_input)))
    assert [layer.name for layer in autoencoder.layers] == ["img", "encoder", "decoder"]
    assert autoencoder.output_shape == (None, 8, 8, 1)
    autoencoder.compile(optimizer="adam", loss="mse")
    images = data(16, 8, 8, 1)
    first, last = autoencoder.fit(images, images, epochs=3, verbose=0).history["loss"][::2]
    assert last < first

    def member():
        inputs = keras.Input(shape=(5,))
        return keras.Model(inputs, layers.Dense(1)(inputs))

    members = [member() for _ in range(3)]
    inputs = keras.Input(shape=(5,))
    ensemble = keras.Model(inputs, layers.average([m(inputs) for m in members]))
    batch = data(4, 5)
    expected = np.mean([m(batch).numpy() for m in members], axis=0)
    np.testing.assert_allclose(ensemble(batch).numpy(), expected, rtol=1e-5)


def test_several_inputs_and_outputs_trained_by_output_name():
    vocabulary, tags = 50, 6
    title = keras.Input(shape=(None,), dtype="int32", name="title")
    body = keras.Input(shape=(None,), dtype="int32", name="body")
    tag_input = keras.Input(shape=(tags,), name="tags")
    title_features = layers.LSTM(8)(layers.Embedding(vocabulary, 8)(title))
    body_features = layers.LSTM(4)(layers.Embedding(vocabulary, 8)(body))
    x = layers.concatenate([title_features, body_features, tag_input])
    priority = layers.Dense(1, name="priority")(x)
    department = layers.Dense(3, name="department")(x)
    model = keras.Model([title, body, tag_input], {"priority": priority,
                                                   "department": department})
    model.compile(
        optimizer=keras.optimizers.RMSprop(0.01),
        loss={"priority": keras.losses.BinaryCrossentropy(from_logits=True),
              "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2},
    )
    rng = np.random.default_rng(1)
    inputs = {"title": rng.integers(1, vocabulary, (32, 7)),
              "body": rng.integers(1, vocabulary, (32, 11)),
              "tags": rng.integers(0, 2, (32, tags)).astype(np.float32)}
    targets = {"priority": rng.random((32, 1)).astype(np.float32),
               "department": np.eye(3, dtype=np.float32)[rng.integers(0, 3, 32)]}
    logs = model.fit(inputs, targets, epochs=2, batch_size=8, verbose=0).history
    assert {"loss", "priority_loss", "department_loss"} <= set(logs)
    assert logs["loss"][-1] < logs["loss"][0]


def test_residual_network_with_skip_connections():
    inputs = keras.Input(shape=(12, 12, 3), name="img")
    x = layers.Conv2D(8, 3, activation="relu")(inputs)
    block_1_output = layers.MaxPooling2D(2, name="pool")(x)
    x = layers.Conv2D(8, 3, activation="relu", padding="same", name="conv_2")(block_1_output)
    block_2_output = layers.Add(name="skip_1")([x, block_1_output])
    x = layers.Conv2D(8, 3, activation="relu", padding="same")(block_2_output)
    x = layers.add([x, block_2_output])
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(2)(layers.Dropout(0.5)(x))
    model = keras.Model(inputs, outputs, name="toy_resnet")
    lines = []
    model.summary(print_fn=lines.append)
    skip_row = next(line for line in lines if line.startswith("skip_1 (Add)"))
    assert "(None, 5, 5, 8)" in skip_row and "conv_2[0][0], pool[0][0]" in skip_row
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    images, labels = data(16, 12, 12, 3), np.arange(16) % 2
    assert np.isfinite(model.fit(images, labels, epochs=1, verbose=0).history["loss"][0])


def test_shared_layer_and_feature_extraction():
    shared_embedding = layers.Embedding(20, 4)
    text_a = keras.Input(shape=(None,), dtype="int32")
    text_b = keras.Input(shape=(None,), dtype="int32")
    model = keras.Model([text_a, text_b], [shared_embedding(text_a), shared_embedding(text_b)])
    assert len(model.weights) == 1
    same = np.array([[1, 2, 3]])
    first, second = model([same, same])
    np.testing.assert_array_equal(first.numpy(), second.numpy())

    inputs = keras.Input(shape=(10, 10, 1))
    x = layers.Conv2D(2, 3, name="conv_a")(inputs)
    x = layers.Conv2D(2, 3, name="conv_b")(x)
    cnn = keras.Model(inputs, layers.Dense(1)(layers.Flatten()(x)))
    extractor = keras.Model(cnn.inputs, [layer.output for layer in cnn.layers])
    features = extractor(data(1, 10, 10, 1))
    assert [f.shape for f in features] == [(1, 10, 10, 1), (1, 8, 8, 2), (1, 6, 6, 2),
                                           (1, 72), (1, 1)]


def test_custom_layer_in_a_functional_model_comes_back_from_its_config():
    class Scaled(layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    inputs = keras.Input((3,))
    model = keras.Model(inputs, Scaled(3.0)(layers.Dense(2)(inputs)))
    config = model.get_config()
    with pytest.raises(keras.saving.SerializationError, match="Scaled"):
        keras.Model.from_config(config)
    rebuilt = keras.Model.from_config(config, custom_objects={"Scaled": Scaled})
    rebuilt.set_weights(model.get_weights())
    batch = data(2, 3)
    np.testing.assert_allclose(rebuilt(batch).numpy(), model(batch).numpy(), rtol=1e-6)
