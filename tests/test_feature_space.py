"""ks.utils.FeatureSpace: Keras's feature types, crosses, adapt, output modes; compared with
Keras's own FeatureSpace where Keras is installed."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks

DATA = {
    "age": np.array([21.0, 35.0, 50.0, 64.0, 35.0, 42.0], "float32"),
    "income": np.array([10.0, 30.0, 20.0, 60.0, 40.0, 50.0], "float32"),
    "score": np.array([0.5, 0.1, 0.9, 0.3, 0.7, 0.2], "float32"),
    "rooms": np.array([1, 2, 2, 3, 5, 2], "int64"),
    "city": np.array(["paris", "rome", "paris", "oslo", "rome", "paris"]),
}
ONE_HOT = hasattr(ks.layers, "CategoryEncoding")
HASHING = all(hasattr(ks.layers, n) for n in ("Hashing", "HashedCrossing", "Discretization"))


def _int_features(space):
    return {"age": "float_normalized", "income": space.float_rescaled(scale=0.01, offset=1.0),
            "score": "float",
            "rooms": space.integer_categorical(output_mode="int", num_oov_indices=1),
            "city": space.string_categorical(output_mode="int")}


def test_dict_output_as_keras_describes():
    space = ks.utils.FeatureSpace(_int_features(ks.utils.FeatureSpace), output_mode="dict")
    space.adapt(ks.data.Dataset.from_tensor_slices(DATA).batch(4))
    out = space(DATA)
    assert sorted(out) == ["age", "city", "income", "rooms", "score"]
    np.testing.assert_allclose(out["income"].numpy()[:, 0], DATA["income"] * 0.01 + 1.0)
    age = DATA["age"]
    np.testing.assert_allclose(out["age"].numpy()[:, 0], (age - age.mean()) / age.std(),
                               rtol=1e-5)
    assert out["city"].numpy()[:, 0].tolist() == [1, 2, 1, 3, 2, 1]  # by frequency, then name
    assert out["rooms"].shape == (6, 1)
    single = space({key: value[0] for key, value in DATA.items()})
    assert single["score"].shape == (1,)


def test_concat_of_float_features_and_the_symbolic_graph():
    space = ks.utils.FeatureSpace({"age": "float_normalized", "score": "float",
                                   "income": "float_rescaled"})
    space.adapt(DATA)
    encoded = space(DATA)
    assert encoded.shape == (6, 3)
    np.testing.assert_allclose(encoded.numpy()[:, 2], DATA["score"])  # sorted by name
    inputs, features = space.get_inputs(), space.get_encoded_features()
    assert sorted(inputs) == ["age", "income", "score"] and features.shape == (None, 3)
    head = ks.layers.Dense(1, kernel_initializer="ones")
    model = ks.Model(inputs, head(features))
    np.testing.assert_allclose(model.predict({k: DATA[k][:, None] for k in inputs}),
                               encoded.numpy().sum(axis=1, keepdims=True), rtol=1e-5)
    dataset = ks.data.Dataset.from_tensor_slices((DATA, np.zeros(6))).batch(3).map(
        lambda x, y: (space(x), y))
    trainer = ks.Sequential([ks.Input((3,)), ks.layers.Dense(1)])
    trainer.compile("sgd", "mse")
    trainer.fit(dataset, epochs=1, verbose=0)


def test_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="features must be a non-empty dict"):
        ks.utils.FeatureSpace({})
    with pytest.raises(ValueError, match="invalid feature type 'floaty'"):
        ks.utils.FeatureSpace({"a": "floaty"})
    with pytest.raises(ValueError, match="output_mode must be 'dict' or 'concat'"):
        ks.utils.FeatureSpace({"a": "float"}, output_mode="list")
    with pytest.raises(ValueError, match="names features that are not in features: \\['b'\\]"):
        ks.utils.FeatureSpace({"a": "float"}, crosses=[("a", "b")])
    with pytest.raises(ValueError, match="output_mode must be 'int' or 'one_hot'"):
        ks.utils.FeatureSpace.cross(("a", "b"), 4, output_mode="float")
    with pytest.raises(ValueError, match="output_mode must be 'int', 'one_hot' or 'float'"):
        ks.utils.FeatureSpace.feature("float32", ks.layers.Rescaling(1.0), "dense")
    space = ks.utils.FeatureSpace({"a": "float_normalized"})
    with pytest.raises(ValueError, match="call .adapt\\(dataset\\) before using it"):
        space({"a": np.ones(2)})
    with pytest.raises(ValueError, match="call it with a dict of features"):
        ks.utils.FeatureSpace({"a": "float"})(np.ones(2))
    with pytest.raises(ValueError, match="takes a dataset of dicts or a dict of arrays"):
        space.adapt(np.ones(3))
    with pytest.raises(ValueError, match="the data has no feature 'a'"):
        space.adapt({"b": np.ones(3)})
    ints = ks.utils.FeatureSpace({"n": ks.utils.FeatureSpace.integer_categorical(
        output_mode="int")})
    with pytest.raises(ValueError, match="cannot concatenate feature 'n': it is not encoded"):
        ints.adapt({"n": np.array([1, 2])})
    with pytest.raises(ValueError, match="must give integer ids"):
        ks.utils.FeatureSpace({"x": ks.utils.FeatureSpace.feature(
            "float32", ks.layers.Rescaling(1.0), "one_hot")}).get_encoded_features()


def test_config_round_trip():
    space = ks.utils.FeatureSpace(_int_features(ks.utils.FeatureSpace), output_mode="dict",
                                  crossing_dim=8)
    again = ks.utils.FeatureSpace.from_config(space.get_config())
    assert again.output_mode == "dict" and sorted(again.features) == sorted(space.features)
    assert type(again.features["income"].preprocessor).__name__ == "Rescaling"
    assert again.features["income"].preprocessor.scale == 0.01


@pytest.mark.skipif(not ONE_HOT, reason="needs ks.layers.CategoryEncoding")
def test_one_hot_categoricals_concatenate():
    space = ks.utils.FeatureSpace({"city": "string_categorical", "rooms": "integer_categorical",
                                   "age": "float"})
    space.adapt(DATA)
    out = space(DATA).numpy()
    assert out.shape == (6, 1 + 4 + 5)
    np.testing.assert_array_equal(out[:, 1:5].argmax(1), [1, 2, 1, 3, 2, 1])


@pytest.mark.skipif(not (ONE_HOT and HASHING), reason="needs the hashing layers")
def test_hashed_discretized_and_crossed_features():
    space = ks.utils.FeatureSpace(
        {"city": "string_hashed", "rooms": "integer_hashed", "score": "float_discretized",
         "c2": "string_categorical"},
        crosses=[("city", "rooms")], hashing_dim=8, crossing_dim=4,
        num_discretization_bins=3, output_mode="dict")
    space.adapt({**DATA, "c2": DATA["city"]})
    out = space({**DATA, "c2": DATA["city"]})
    assert out["city"].shape == (6, 8) and out["score"].shape == (6, 3)
    assert out["city_X_rooms"].shape == (6, 4)


def _keras_feature_space(keras, output_mode):
    fs = keras.utils.FeatureSpace
    features = {"age": "float_normalized",
                "income": fs.float_rescaled(scale=0.01, offset=1.0),
                "score": "float",
                "rooms": fs.integer_categorical(output_mode="int"),
                "city": fs.string_categorical(output_mode="int")}
    if output_mode == "concat":
        features = {k: features[k] for k in ("age", "income", "score")}
    return fs(features, output_mode=output_mode)


@pytest.mark.parametrize("output_mode", ["dict", "concat"])
def test_matches_keras(output_mode):
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    theirs = _keras_feature_space(keras, output_mode)
    theirs.adapt(tf.data.Dataset.from_tensor_slices(DATA))
    ours = _keras_feature_space(ks, output_mode)
    ours.adapt(ks.data.Dataset.from_tensor_slices(DATA))
    data = {key: DATA[key] for key in theirs.features}  # Keras refuses other keys
    want, got = theirs(data), ours(data)
    if output_mode == "concat":
        np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-5, atol=1e-6)
    else:
        assert sorted(got) == sorted(want)
        for key in want:
            np.testing.assert_allclose(got[key].numpy(), np.asarray(want[key]), rtol=1e-5,
                                       atol=1e-6, err_msg=key)
    # adapting from a tf.data.Dataset works here too
    again = _keras_feature_space(ks, output_mode)
    again.adapt(tf.data.Dataset.from_tensor_slices(DATA).batch(2))
    np.testing.assert_allclose(ks.tree.flatten(again(data))[0].numpy(),
                               ks.tree.flatten(got)[0].numpy(), rtol=1e-6)


@pytest.mark.skipif(not (ONE_HOT and HASHING), reason="needs the hashing layers")
def test_one_hot_hashed_discretized_crossed_match_keras():
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")

    def make(library):
        return library.utils.FeatureSpace(
            {"city": "string_categorical", "rooms": "integer_categorical",
             "c_hash": "string_hashed", "r_hash": "integer_hashed",
             "score": "float_discretized", "age": "float_normalized"},
            crosses=[("city", "rooms")], hashing_dim=8, crossing_dim=4,
            num_discretization_bins=3, output_mode="concat")

    data = {"city": DATA["city"], "rooms": DATA["rooms"], "c_hash": DATA["city"],
            "r_hash": DATA["rooms"], "score": DATA["score"], "age": DATA["age"]}
    theirs, ours = make(keras), make(ks)
    theirs.adapt(tf.data.Dataset.from_tensor_slices(data))
    ours.adapt(data)
    np.testing.assert_allclose(ours(data).numpy(), np.asarray(theirs(data)), rtol=1e-5,
                               atol=1e-6)
