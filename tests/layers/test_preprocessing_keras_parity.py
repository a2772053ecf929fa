"""Keras 3 parity of the preprocessing layers: outputs on the same inputs, vocabularies
learned by `adapt`, and configs read both ways. Skips without keras (run it with the
venv holding keras and tensorflow-cpu)."""

import json

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, size=(2, 7, 9, 3)).astype("float32")
TEXTS = [
    "The quick brown fox; the lazy dog.", "A dog's life: quick, QUICK!", "brown bread",
    "the fox and the dog", "Über café, naïve résumé", "x  y\tz\nx",
]


def _close(ours, theirs, atol=1e-4):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape
    difference = float(np.max(np.abs(ours.astype("float64") - theirs.astype("float64")),
                              initial=0.0))
    assert difference <= atol, difference
    return difference


@pytest.mark.parametrize("size", [(3, 4), (14, 18), (7, 9), (5, 13), (1, 1)])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop", [False, True])
def test_resizing_as_keras(size, interpolation, crop):
    kwargs = {"interpolation": interpolation, "crop_to_aspect_ratio": crop}
    _close(ks.layers.Resizing(*size, **kwargs)(IMAGES),
           keras.layers.Resizing(*size, **kwargs)(IMAGES))


def test_resizing_integer_images_as_keras():
    images = IMAGES.astype("uint8")
    ours = ks.layers.Resizing(5, 4)(images).numpy()
    theirs = np.asarray(keras.layers.Resizing(5, 4)(images))
    assert ours.dtype == theirs.dtype == np.uint8
    _close(ours, theirs, atol=1)  # float32 rounding may put a value on the other side of .5


@pytest.mark.parametrize("size", [(3, 4), (7, 9), (10, 4), (8, 12)])
def test_center_crop_as_keras(size):
    _close(ks.layers.CenterCrop(*size)(IMAGES), keras.layers.CenterCrop(*size)(IMAGES))
    _close(ks.layers.CenterCrop(*size)(IMAGES[0]), keras.layers.CenterCrop(*size)(IMAGES[0]))


@pytest.mark.parametrize("size", [(3, 4), (10, 4)])
def test_random_crop_inference_is_keras_documented_smart_resize(size):
    from keras.src.utils.image_utils import smart_resize

    _close(ks.layers.RandomCrop(*size)(IMAGES, training=False), smart_resize(IMAGES, size))


def test_random_layers_keep_keras_shapes_and_inference_identity():
    ours = ks.layers.RandomFlip()(IMAGES, training=False)
    _close(ours, keras.layers.RandomFlip()(IMAGES, training=False))
    assert ks.layers.RandomCrop(3, 4)(IMAGES).shape == keras.layers.RandomCrop(3, 4)(IMAGES).shape


def test_rescaling_as_keras():
    data = IMAGES.astype("uint8")
    _close(ks.layers.Rescaling(1 / 127.5, -1)(data), keras.layers.Rescaling(1 / 127.5, -1)(data),
           atol=1e-6)


@pytest.mark.parametrize("axis", [-1, None, (1, 2), 1])
def test_normalization_adapt_as_keras(axis):
    data = RNG.normal(2.0, 3.0, size=(40, 4, 3)).astype("float32")
    ours, theirs = ks.layers.Normalization(axis=axis), keras.layers.Normalization(axis=axis)
    ours.adapt(data)
    theirs.adapt(data)
    _close(ours(data[:5]), theirs(data[:5]), atol=1e-5)
    batches = ks.data.Dataset.from_tensor_slices(data).batch(7)
    streamed = ks.layers.Normalization(axis=axis)
    streamed.adapt(batches)
    _close(streamed(data[:5]), theirs(data[:5]), atol=1e-5)
    inverse = keras.layers.Normalization(axis=axis, invert=True)
    inverse.adapt(data)
    back = ks.layers.Normalization(axis=axis, invert=True)
    back.adapt(data)
    _close(back(data[:5]), inverse(data[:5]), atol=1e-4)


def test_normalization_weights_load_into_keras():
    data = RNG.normal(size=(30, 3)).astype("float32")
    ours = ks.layers.Normalization()
    ours.adapt(data)
    theirs = keras.layers.Normalization()
    theirs.build((None, 3))
    assert [w.name for w in theirs.weights] == [v.name.rsplit("/", 1)[1] for v in ours.weights]
    theirs.set_weights(ours.get_weights())
    theirs.finalize_state()
    _close(ours(data), theirs(data), atol=1e-5)


LOOKUP_CASES = [
    {}, {"mask_token": ""}, {"num_oov_indices": 0}, {"max_tokens": 5},
    {"output_mode": "multi_hot"}, {"output_mode": "count", "mask_token": "[M]"},
    {"output_mode": "tf_idf"}, {"output_mode": "count", "max_tokens": 9,
                                "pad_to_max_tokens": True},
]


@pytest.mark.parametrize("kwargs", LOOKUP_CASES, ids=lambda k: json.dumps(k))
def test_string_lookup_as_keras(kwargs):
    data = np.array([["a", "b", "b", "c"], ["c", "c", "d", "e"], ["f", "a", "g", "c"]])
    ours, theirs = ks.layers.StringLookup(**kwargs), keras.layers.StringLookup(**kwargs)
    ours.adapt(data)
    theirs.adapt(data)
    assert ours.get_vocabulary() == [str(t) for t in theirs.get_vocabulary()]
    query = data if kwargs.get("num_oov_indices") == 0 else np.array(
        [["a", "zz", "c", ""], ["g", "[M]", "b", "d"]])
    _close(ours(query), np.asarray(theirs(query)), atol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"mask_token": 0, "num_oov_indices": 3},
                                    {"output_mode": "multi_hot"}, {"max_tokens": 4}])
def test_integer_lookup_as_keras(kwargs):
    data = RNG.integers(-3, 12, size=(6, 5))
    ours, theirs = ks.layers.IntegerLookup(**kwargs), keras.layers.IntegerLookup(**kwargs)
    ours.adapt(data)
    theirs.adapt(data)
    assert ours.get_vocabulary() == [int(t) for t in theirs.get_vocabulary()]
    query = RNG.integers(-5, 20, size=(3, 5))
    _close(ours(query), np.asarray(theirs(query)), atol=1e-6)
    inverse_ours = ks.layers.IntegerLookup(vocabulary=ours.get_vocabulary(), invert=True,
                                           **{k: v for k, v in kwargs.items()
                                              if k != "output_mode"})
    inverse_theirs = keras.layers.IntegerLookup(vocabulary=theirs.get_vocabulary(), invert=True,
                                                **{k: v for k, v in kwargs.items()
                                                   if k != "output_mode"})
    indices = RNG.integers(0, 8, size=(2, 4))
    _close(inverse_ours(indices), np.asarray(inverse_theirs(indices)))


TEXT_CASES = [
    {}, {"output_sequence_length": 4}, {"output_sequence_length": 12},
    {"ngrams": 2}, {"ngrams": (1, 3), "max_tokens": 12}, {"split": "character"},
    {"standardize": "lower"}, {"standardize": None}, {"standardize": "strip_punctuation"},
    {"output_mode": "multi_hot"}, {"output_mode": "count", "ngrams": 2},
    {"output_mode": "tf_idf"}, {"output_mode": "multi_hot", "max_tokens": 20,
                                "pad_to_max_tokens": True},
    {"split": None, "standardize": None},
]


@pytest.mark.parametrize("kwargs", TEXT_CASES, ids=lambda k: json.dumps(k))
def test_text_vectorization_as_keras(kwargs):
    ours = ks.layers.TextVectorization(**kwargs)
    theirs = keras.layers.TextVectorization(**kwargs)
    ours.adapt(TEXTS)
    theirs.adapt(TEXTS)
    assert ours.get_vocabulary() == [str(t) for t in theirs.get_vocabulary()]
    query = ["the dog and THE cat", "unknown words only", "Über fox"]
    _close(ours(query), np.asarray(theirs(query)), atol=1e-5)


LAYER_CONFIGS = [
    ("Rescaling", {"scale": 0.5, "offset": 1.0}),
    ("Normalization", {"axis": [1, 2], "mean": [1.0, 2.0], "variance": [4.0, 9.0]}),
    ("Resizing", {"height": 3, "width": 4, "interpolation": "nearest",
                  "crop_to_aspect_ratio": True}),
    ("CenterCrop", {"height": 3, "width": 4}),
    ("RandomFlip", {"mode": "horizontal", "seed": 3}),
    ("RandomCrop", {"height": 3, "width": 4, "seed": 1}),
    ("StringLookup", {"vocabulary": ["a", "b"], "mask_token": "", "output_mode": "int"}),
    ("IntegerLookup", {"vocabulary": [4, 9], "output_mode": "count"}),
    ("TextVectorization", {"vocabulary": ["the", "dog"], "output_sequence_length": 3,
                           "ngrams": 2}),
]


@pytest.mark.parametrize("name,kwargs", LAYER_CONFIGS, ids=[c[0] for c in LAYER_CONFIGS])
def test_configs_carry_over_both_ways(name, kwargs):
    ours = getattr(ks.layers, name)(**kwargs)
    theirs = getattr(keras.layers, name)(**kwargs)
    mine_in_keras = keras.saving.deserialize_keras_object(
        json.loads(json.dumps(ks.saving.serialize_keras_object(ours))))
    theirs_in_mine = ks.saving.deserialize_keras_object(
        json.loads(json.dumps(keras.saving.serialize_keras_object(theirs))))
    assert type(mine_in_keras).__name__ == type(theirs_in_mine).__name__ == name
    if name in ("StringLookup", "IntegerLookup", "TextVectorization"):
        assert ([str(t) for t in mine_in_keras.get_vocabulary()]
                == [str(t) for t in theirs_in_mine.get_vocabulary()])


def test_adapted_text_vectorization_config_loads_in_keras():
    ours = ks.layers.TextVectorization(output_sequence_length=6)
    ours.adapt(TEXTS)
    theirs = keras.layers.TextVectorization.from_config(
        json.loads(json.dumps(ks.saving.serialize_keras_object(ours)))["config"])
    _close(ours(TEXTS), np.asarray(theirs(TEXTS)))


def test_keras_files_with_an_adapted_normalization_carry_over_both_ways(tmp_path):
    data = RNG.normal(1.0, 2.0, size=(32, 3)).astype("float32")
    norm = keras.layers.Normalization()
    norm.adapt(data)
    theirs = keras.Sequential([keras.Input((3,)), norm, keras.layers.Dense(2)])
    keras_path = str(tmp_path / "keras.keras")
    theirs.save(keras_path)
    loaded = ks.models.load_model(keras_path)
    _close(loaded.predict(data, verbose=0), theirs.predict(data, verbose=0), atol=1e-5)
    ours_path = str(tmp_path / "ours.keras")
    loaded.save(ours_path)
    back = keras.models.load_model(ours_path)
    _close(back.predict(data, verbose=0), theirs.predict(data, verbose=0), atol=1e-5)


def test_a_kerasish_text_model_file_loads_in_keras(tmp_path):
    import tensorflow as tf

    texts = np.array(TEXTS)
    vectorize = ks.layers.TextVectorization(max_tokens=30, output_sequence_length=5)
    vectorize.adapt(texts)
    ours = ks.Sequential([vectorize, ks.layers.Embedding(30, 4),
                          ks.layers.GlobalAveragePooling1D(), ks.layers.Dense(2)])
    expected = ours.predict(texts, verbose=0)
    ours.save(tmp_path / "text.keras")
    theirs = keras.models.load_model(tmp_path / "text.keras")
    _close(np.asarray(theirs(tf.constant(TEXTS))), expected, atol=1e-6)


def test_keras_text_models_with_vocabularies_in_assets_load_here(tmp_path):
    import tensorflow as tf

    vectorize = keras.layers.TextVectorization(max_tokens=30, output_sequence_length=5)
    vectorize.adapt(TEXTS)
    inputs = keras.Input((1,), dtype="string")
    pooled = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(30, 4)(vectorize(inputs)))
    functional = keras.Model(inputs, keras.layers.Dense(2)(pooled))
    sequential = keras.Sequential([vectorize, keras.layers.Embedding(30, 3),
                                   keras.layers.GlobalAveragePooling1D()])
    integers = keras.layers.IntegerLookup(output_mode="multi_hot")
    integers.adapt(RNG.integers(0, 9, size=(10, 3)))
    int_inputs = keras.Input((3,), dtype="int64")
    counting = keras.Model(int_inputs, integers(int_inputs))
    cases = [(functional, np.array(TEXTS)[:, None]), (sequential, np.array(TEXTS)),
             (counting, RNG.integers(0, 12, size=(4, 3)))]
    for i, (theirs, x) in enumerate(cases):
        path = str(tmp_path / f"model{i}.keras")
        expected = np.asarray(theirs(tf.constant(x)))
        theirs.save(path)  # the adapted vocabulary goes to assets/, not to the config
        ours = ks.models.load_model(path)
        _close(ours.predict(x, verbose=0), expected, atol=1e-6)
        ours.save(str(tmp_path / f"back{i}.keras"))
        back = keras.models.load_model(str(tmp_path / f"back{i}.keras"))
        _close(np.asarray(back(tf.constant(x))), expected, atol=1e-6)


def test_a_keras_text_transformer_file_loads_here(tmp_path):
    import tensorflow as tf

    vectorize = keras.layers.TextVectorization(max_tokens=40, output_sequence_length=6)
    vectorize.adapt(TEXTS)
    inputs = keras.Input((1,), dtype="string")
    x = keras.layers.Embedding(40, 8)(vectorize(inputs))
    x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    theirs = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.GlobalAveragePooling1D()(x)))
    expected = np.asarray(theirs(tf.constant(np.array(TEXTS)[:, None])))
    theirs.save(tmp_path / "transformer.keras")
    ours = ks.models.load_model(tmp_path / "transformer.keras")  # weights made by a run
    _close(ours.predict(np.array(TEXTS)[:, None], verbose=0), expected, atol=1e-5)


def test_a_keras_tf_idf_file_says_what_it_lacks(tmp_path):
    vectorize = keras.layers.TextVectorization(output_mode="tf_idf")
    vectorize.adapt(TEXTS)
    inputs = keras.Input((1,), dtype="string")
    keras.Model(inputs, vectorize(inputs)).save(tmp_path / "tf_idf.keras")
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"tf_idf\.keras: layer 'text_vectorization\w*': Keras keeps the idf"):
        ks.models.load_model(tmp_path / "tf_idf.keras")
