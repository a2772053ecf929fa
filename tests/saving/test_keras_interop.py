"""Two-way `.keras` interop with Keras 3: a file either side writes loads on the other side and
predicts the same (float32 tolerance), with the optimizer state carried over.

Skipped without keras; run with a Python that has Keras 3 and tensorflow-cpu installed:
    python -m pytest tests/saving/test_keras_interop.py
Each model is built by one function from either library's namespaces, so both sides build
the same architecture. Results are recorded in COMPATIBILITY.md.
"""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
keras = pytest.importorskip("keras")

from keras.src.layers.preprocessing.feature_space import TFDIdentity  # noqa: E402

import kerasish as ks  # noqa: E402
from kerasish.saving import weights_layout  # noqa: E402

TOLERANCE = 2e-5


def cnn(lib):
    L = lib.layers
    return lib.Sequential([
        lib.Input((8, 8, 1)),
        L.Conv2D(4, 3, padding="same", activation="relu"),
        L.BatchNormalization(),
        L.MaxPooling2D(),
        L.Conv2D(3, 2, strides=1, activation="tanh", use_bias=False),
        L.AveragePooling2D(pool_size=1),
        L.Flatten(),
        L.Dropout(0.2),
        L.Dense(5, activation="softmax"),
    ])


def two_headed(lib):
    L = lib.layers
    a = lib.Input((4,), name="a")
    b = lib.Input((6,), name="b")
    h = L.Concatenate()([L.Dense(5, name="from_a")(a), L.Dense(5, activation="relu")(b)])
    out = L.Dense(2, name="out")(L.LayerNormalization()(h))
    prob = L.Dense(1, activation="sigmoid", name="prob")(h)
    return lib.Model([a, b], [out, prob])


def recurrent(lib):
    L = lib.layers
    tokens = lib.Input((5,), dtype="int32")
    h = L.Embedding(20, 4)(tokens)
    h = L.LSTM(6, return_sequences=True)(h)
    h = L.GRU(3)(h)
    return lib.Model(tokens, L.Dense(2)(h))


def attention(lib):
    L = lib.layers
    x = lib.Input((5, 4))
    h = L.Bidirectional(L.SimpleRNN(3, return_sequences=True))(x)
    h = L.MultiHeadAttention(num_heads=2, key_dim=3)(h, h)
    h = L.GlobalAveragePooling1D()(h)
    return lib.Model(x, L.Dense(1)(h))


def conv1d(lib):
    L = lib.layers
    return lib.Sequential([
        lib.Input((10, 3)),
        L.Conv1D(4, 3, activation="relu"),
        L.MaxPooling1D(2),
        L.LayerNormalization(),
        L.GlobalMaxPooling1D(),
        L.Dense(2),
    ])


def image_catalogue(lib):
    L = lib.layers
    x = lib.Input((8, 8, 2))
    h = L.ZeroPadding2D(1)(x)
    h = L.SeparableConv2D(4, 3, activation="relu")(h)
    h = L.DepthwiseConv2D(3, padding="same")(h)
    skip = L.Conv2DTranspose(4, 2, strides=2)(h)
    h = L.UpSampling2D(2)(h)
    h = L.Add()([h, skip])
    h = L.Cropping2D(2)(h)
    h = L.GroupNormalization(groups=2)(h)
    h = L.PReLU()(h)
    h = L.GlobalAveragePooling2D()(h)
    return lib.Model(x, L.Dense(3, activation="softmax")(h))


def sequence_catalogue(lib):
    L = lib.layers
    x = lib.Input((6, 3))
    h = L.Masking(0.0)(x)
    h = L.TimeDistributed(L.Dense(4, activation="relu"))(h)
    h = L.GRU(5, return_sequences=True)(h)
    h = L.Conv1D(3, 2, padding="same")(h)
    h = L.LSTM(4)(h)
    return lib.Model(x, L.Dense(2)(h))


def _data(name):
    rng = np.random.default_rng(0)
    if name == "cnn":
        return rng.normal(size=(8, 8, 8, 1)).astype("float32"), rng.integers(0, 5, 8)
    if name == "two_headed":
        x = [rng.normal(size=(8, 4)).astype("float32"), rng.normal(size=(8, 6)).astype("float32")]
        return x, [rng.normal(size=(8, 2)).astype("float32"),
                   rng.integers(0, 2, (8, 1)).astype("float32")]
    if name == "recurrent":
        return rng.integers(0, 20, (8, 5)).astype("int32"), rng.normal(size=(8, 2)).astype("f4")
    if name == "attention":
        return rng.normal(size=(8, 5, 4)).astype("float32"), rng.normal(size=(8, 1)).astype("f4")
    if name == "image_catalogue":
        return rng.normal(size=(8, 8, 8, 2)).astype("float32"), rng.integers(0, 3, 8)
    if name == "sequence_catalogue":
        x = rng.normal(size=(8, 6, 3)).astype("float32")
        x[:, 4:] = 0.0  # masked steps
        return x, rng.normal(size=(8, 2)).astype("f4")
    return rng.normal(size=(8, 10, 3)).astype("float32"), rng.normal(size=(8, 2)).astype("f4")


BUILDERS = {f.__name__: f for f in (cnn, two_headed, recurrent, attention, conv1d,
                                     image_catalogue, sequence_catalogue)}


def _compile_args(lib, name):
    if name in ("cnn", "image_catalogue"):
        return {"optimizer": lib.optimizers.Adam(0.01), "loss": "sparse_categorical_crossentropy",
                "metrics": ["accuracy"]}
    if name == "two_headed":
        return {"optimizer": lib.optimizers.RMSprop(0.01, momentum=0.5),
                "loss": ["mse", "binary_crossentropy"], "loss_weights": [1.0, 0.5]}
    return {"optimizer": lib.optimizers.SGD(0.05, momentum=0.9), "loss": "mse"}


def _predictions(model, x):
    out = model.predict(x, verbose=0) if hasattr(model, "make_predict_function") \
        else model.predict(x)
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def _max_difference(a, b):
    return max(float(np.max(np.abs(p - q))) for p, q in zip(a, b, strict=True))


def _optimizer_state(model):
    """The optimizer's variables in Keras's order (kerasish keeps its slots per variable)."""
    if isinstance(model, ks.Model):
        variables = weights_layout.optimizer_variables(model.optimizer, model.trainable_variables)
    else:
        variables = model.optimizer.variables
    return [np.asarray(v.numpy()) for v in variables]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_keras_file_loads_in_kerasish(name, tmp_path):
    keras.utils.set_random_seed(1)
    model = BUILDERS[name](keras)
    model.compile(**_compile_args(keras, name))
    x, y = _data(name)
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    model.save(tmp_path / "keras_made.keras")
    loaded = ks.models.load_model(tmp_path / "keras_made.keras")
    difference = _max_difference(_predictions(loaded, x), _predictions(model, x))
    print(f"\nkeras -> kerasish {name}: max |difference| {difference:.3g}")
    assert difference < TOLERANCE
    theirs, ours = _optimizer_state(model), _optimizer_state(loaded)
    assert len(theirs) == len(ours)
    for a, b in zip(theirs, ours):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
    loaded.fit(x, y, batch_size=4, epochs=1, verbose=0)  # training goes on


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_kerasish_file_loads_in_keras(name, tmp_path):
    ks.random.set_seed(1)
    model = BUILDERS[name](ks)
    model.compile(**_compile_args(ks, name))
    x, y = _data(name)
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    model.save(tmp_path / "kerasish_made.keras")
    loaded = keras.models.load_model(tmp_path / "kerasish_made.keras")
    difference = _max_difference(_predictions(loaded, x), _predictions(model, x))
    print(f"\nkerasish -> keras {name}: max |difference| {difference:.3g}")
    assert difference < TOLERANCE
    ours, theirs = _optimizer_state(model), _optimizer_state(loaded)
    assert len(theirs) == len(ours)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_weights_files_both_ways(tmp_path):
    keras.utils.set_random_seed(2)
    theirs = cnn(keras)
    ours = cnn(ks)
    x, _ = _data("cnn")
    theirs.save_weights(tmp_path / "keras.weights.h5")
    ours.load_weights(tmp_path / "keras.weights.h5")
    assert _max_difference(_predictions(ours, x), _predictions(theirs, x)) < TOLERANCE
    ks.random.set_seed(3)
    ours = cnn(ks)
    ours.save_weights(tmp_path / "kerasish.weights.h5")
    theirs.load_weights(tmp_path / "kerasish.weights.h5")
    assert _max_difference(_predictions(ours, x), _predictions(theirs, x)) < TOLERANCE


def test_keras_layer_kerasish_lacks_is_named(tmp_path):
    # every public keras.layers name exists here; FeatureSpace's TFDIdentity, a layer tied to
    # tf.data (Keras's own, not exported), does not
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), TFDIdentity()])
    model.save(tmp_path / "m.keras")
    with pytest.raises(ks.saving.SerializationError,
                       match="unsupported layer class 'TFDIdentity'"):
        ks.models.load_model(tmp_path / "m.keras")


def _default_instances(namespace, base, other):
    """(name, instance) for the classes of `namespace` that `other` also has, made with their
    default arguments (classes that need arguments are left to the model tests)."""
    for name in sorted(set(dir(namespace)) & set(dir(other))):
        cls = getattr(namespace, name)
        if name.startswith("_") or not isinstance(cls, type) or not issubclass(cls, base):
            continue
        if cls is base:
            continue
        try:
            yield name, cls()
        except (TypeError, ValueError):  # needs arguments: covered by the model tests
            continue


FAMILY_PAIRS = {
    "layers": (keras.layers, "Layer", ks.layers, ks.layers.Layer),
    "losses": (keras.losses, "Loss", ks.losses, ks.losses.Loss),
    "metrics": (keras.metrics, "Metric", ks.metrics, ks.metrics.Metric),
    "optimizers": (keras.optimizers, "Optimizer", ks.optimizers, ks.optimizers.Optimizer),
    "initializers": (keras.initializers, "Initializer", ks.initializers,
                     ks.initializers.Initializer),
    "regularizers": (keras.regularizers, "Regularizer", ks.regularizers,
                     ks.regularizers.Regularizer),
    "constraints": (keras.constraints, "Constraint", ks.constraints, ks.constraints.Constraint),
}


@pytest.mark.parametrize("family", sorted(FAMILY_PAIRS))
def test_keras_configs_of_classes_both_have_load_here(family):
    keras_namespace, base_name, ours, _ = FAMILY_PAIRS[family]
    failures = []
    for name, obj in _default_instances(keras_namespace, getattr(keras_namespace, base_name),
                                        ours):
        config = keras.saving.serialize_keras_object(obj)
        try:
            ks.saving.deserialize_keras_object(config)
        except Exception as exc:  # collected, so one run lists every class that fails
            failures.append(f"{name}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("family", sorted(FAMILY_PAIRS))
def test_kerasish_configs_of_classes_both_have_load_in_keras(family):
    keras_namespace, _, ours, base = FAMILY_PAIRS[family]
    failures = []
    for name, obj in _default_instances(ours, base, keras_namespace):
        config = json.loads(json.dumps(ks.saving.serialize_keras_object(obj)))
        try:
            keras.saving.deserialize_keras_object(config)
        except Exception as exc:  # collected, so one run lists every class that fails
            failures.append(f"{name}: {str(exc).splitlines()[0]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("optimizer", ["adam", "rmsprop", "sgd"])
def test_training_started_in_keras_goes_on_in_kerasish_as_in_keras(optimizer, tmp_path):
    def build(lib):
        L = lib.layers
        model = lib.Sequential([lib.Input((4,)), L.Dense(8, activation="tanh"),
                                L.BatchNormalization(), L.Dense(1)])
        settings = {"adam": lib.optimizers.Adam(0.01),
                    "rmsprop": lib.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
                    "sgd": lib.optimizers.SGD(0.05, momentum=0.9, nesterov=True)}
        model.compile(optimizer=settings[optimizer], loss="mse")
        return model

    rng = np.random.default_rng(4)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = rng.normal(size=(32, 1)).astype("float32")
    keras.utils.set_random_seed(5)
    theirs = build(keras)
    theirs.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    theirs.save(tmp_path / "half.keras")
    ours = ks.models.load_model(tmp_path / "half.keras")
    theirs.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    ours.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    difference = _max_difference(_predictions(ours, x), _predictions(theirs, x))
    print(f"\nkeras 2 epochs, then 2 more in each ({optimizer}): max |difference| {difference:.3g}")
    assert difference < 1e-4
