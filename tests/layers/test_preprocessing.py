"""Preprocessing layers: Rescaling, Normalization, the image layers and the lookup layers."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops.image_ops import resize_matrix

L = ks.layers


# ---------------------------------------------------------------- Rescaling, Normalization

def test_rescaling_casts_integers_and_keeps_shape():
    layer = L.Rescaling(scale=0.5, offset=[1.0, 2.0])
    out = layer(np.array([[[2, 4]]], "uint8"))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), [[[2.0, 4.0]]])
    assert layer.compute_output_shape((None, 1, 2)) == (None, 1, 2)


def test_normalization_adapt_matches_numpy_and_stores_keras_weights():
    data = np.random.default_rng(0).normal(3.0, 2.0, size=(50, 4))
    layer = L.Normalization()
    layer.adapt(data)
    assert [v.name.rsplit("/", 1)[1] for v in layer.weights] == ["mean", "variance", "count"]
    assert all(not v.trainable for v in layer.weights)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0), rtol=1e-6)
    np.testing.assert_allclose(layer.adapt_variance.numpy(), data.var(0), rtol=1e-6)
    assert int(layer.count.numpy()) == 50 and layer.count.dtype == np.int64
    out = layer(data).numpy()
    np.testing.assert_allclose(out.mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(out.std(0), 1.0, atol=1e-5)


def test_normalization_streams_dataset_batches_like_the_whole_array():
    data = np.random.default_rng(1).uniform(-5, 5, size=(23, 3, 2))
    labels = np.zeros(23)
    whole = L.Normalization(axis=(1, 2))
    whole.adapt(data)
    streamed = L.Normalization(axis=(1, 2))
    streamed.adapt(ks.data.Dataset.from_tensor_slices((data, labels)).batch(5))
    np.testing.assert_allclose(streamed.adapt_mean.numpy(), whole.adapt_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(streamed.adapt_variance.numpy(), whole.adapt_variance.numpy(),
                               rtol=1e-5)
    generator = L.Normalization(axis=(1, 2))
    generator.adapt(data[i:i + 7] for i in range(0, 23, 7))
    np.testing.assert_allclose(generator.adapt_mean.numpy(), whole.adapt_mean.numpy(), rtol=1e-6)


def test_normalization_unbatched_dataset_is_batched_and_axis_none_uses_one_mean():
    vectors = np.arange(12.0).reshape(6, 2)
    layer = L.Normalization()
    layer.adapt(ks.data.Dataset.from_tensor_slices(vectors))
    np.testing.assert_allclose(layer.adapt_mean.numpy(), vectors.mean(0))
    scalar = L.Normalization(axis=None)
    scalar.adapt(vectors)
    assert scalar.adapt_mean.shape == ()
    np.testing.assert_allclose(scalar(vectors).numpy(), (vectors - 5.5) / vectors.std(),
                               rtol=1e-6)


def test_normalization_given_mean_and_variance_and_invert():
    layer = L.Normalization(mean=3.0, variance=2.0)
    np.testing.assert_allclose(layer(np.array([[1.0], [3.0]])).numpy(),
                               [[-2 / np.sqrt(2)], [0.0]], rtol=1e-6)
    assert layer.weights == []
    per_feature = L.Normalization(axis=-1, mean=[1.0, 2.0], variance=[4.0, 16.0], invert=True)
    np.testing.assert_allclose(per_feature(np.array([[1.0, 1.0]])).numpy(), [[3.0, 6.0]])


def test_normalization_survives_a_keras_file(tmp_path):
    data = np.random.default_rng(2).normal(size=(20, 3)).astype("float32") * 4 + 1
    norm = L.Normalization()
    norm.adapt(data)
    model = ks.Sequential([ks.Input((3,)), norm, L.Dense(2)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0),
                               rtol=1e-6)
    # without an Input the loaded model is built by a run on zeros before its weights are read
    unbuilt = ks.Sequential([norm, L.Dense(2)])
    expected = unbuilt.predict(data, verbose=0)
    unbuilt.save(path)
    np.testing.assert_allclose(ks.models.load_model(path).predict(data, verbose=0), expected,
                               rtol=1e-6)


def test_normalization_errors_name_what_is_wrong():
    with pytest.raises(InvalidArgumentError, match="call layer.adapt"):
        L.Normalization(name="norm_before_adapt")(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="both mean and variance"):
        L.Normalization(mean=1.0)
    with pytest.raises(InvalidArgumentError, match=r"mean has shape \(2,\) but variance has "
                                                   r"shape \(3,\)"):
        L.Normalization(mean=[1.0, 2.0], variance=[1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match=r"axis 3 is outside inputs of shape \(2, 3\)"):
        L.Normalization(axis=3).adapt(np.ones((2, 3)))
    layer = L.Normalization()
    layer.adapt(np.ones((4, 3)))
    with pytest.raises(InvalidArgumentError, match=r"expects inputs of rank 2 .* got shape "
                                                   r"\(2, 3, 1\)"):
        layer(np.ones((2, 3, 1)))
    with pytest.raises(InvalidArgumentError, match=r"adapt got data of shape \(4, 5\)"):
        layer.adapt(np.ones((4, 5)))
    with pytest.raises(InvalidArgumentError, match="cannot adapt"):
        L.Normalization(mean=0.0, variance=1.0).adapt(np.ones((2, 1)))
    with pytest.raises(InvalidArgumentError, match="no data"):
        L.Normalization().adapt(iter([]))


# ---------------------------------------------------------------- images

def test_resize_matrix_agrees_with_upsampling_and_preserves_constants():
    image = np.random.default_rng(5).normal(size=(1, 3, 4, 2)).astype("float32")
    np.testing.assert_allclose(L.Resizing(6, 12)(image).numpy(),
                               L.UpSampling2D((2, 3), interpolation="bilinear")(image).numpy(),
                               rtol=1e-6, atol=1e-6)
    for method in ("bilinear", "nearest"):
        for n, m in ((5, 3), (3, 7), (4, 4)):
            np.testing.assert_allclose(resize_matrix(n, m, method).sum(1), 1.0)
    np.testing.assert_array_equal(resize_matrix(4, 2, "nearest").argmax(1), [1, 3])


def test_resizing_dtypes_formats_and_aspect_crop():
    image = np.arange(4 * 6 * 2, dtype="uint8").reshape(1, 4, 6, 2)
    out = L.Resizing(2, 3)(image)
    assert out.dtype == np.uint8 and out.shape == (1, 2, 3, 2)
    floats = L.Resizing(2, 3)(image.astype("float32")).numpy()
    np.testing.assert_array_equal(out.numpy(), np.clip(np.rint(floats), 0, 255))
    first = L.Resizing(3, 5, data_format="channels_first")(
        np.transpose(image, (0, 3, 1, 2)).astype("float32"))
    last = L.Resizing(3, 5)(image.astype("float32"))
    np.testing.assert_allclose(np.transpose(first.numpy(), (0, 2, 3, 1)), last.numpy(),
                               rtol=1e-6)
    square = L.Resizing(2, 2, crop_to_aspect_ratio=True, interpolation="nearest")
    # the centred 4x4 window (rows 0..3, columns 1..4) sampled at its cells 1 and 3
    expected = image[0][[1, 3]][:, [2, 4]]
    np.testing.assert_array_equal(square(image).numpy()[0], expected)
    assert L.Resizing(7, 9).compute_output_shape((None, 4, 6, 3)) == (None, 7, 9, 3)


def test_resizing_gradients_to_second_order():
    layer = L.Resizing(3, 5, dtype="float64")
    x = np.random.default_rng(3).normal(size=(1, 4, 3, 2))
    ks.testing.check_gradients(lambda t: layer(t) ** 2, [x], order=2)


def test_center_crop_exact_and_resized():
    image = np.arange(5 * 6, dtype="float32").reshape(5, 6, 1)
    np.testing.assert_array_equal(L.CenterCrop(3, 2)(image).numpy()[:, :, 0],
                                  image[1:4, 2:4, 0])
    assert L.CenterCrop(8, 4)(image[None]).shape == (1, 8, 4, 1)
    assert L.CenterCrop(2, 3).compute_output_shape((7, 8, 3)) == (2, 3, 3)


def test_image_layers_reject_other_ranks_and_arguments():
    with pytest.raises(InvalidArgumentError, match=r"rank 3 .* got shape \(4, 4\)"):
        L.CenterCrop(2, 2)(np.ones((4, 4)))
    with pytest.raises(InvalidArgumentError, match="interpolation must be one of"):
        L.Resizing(2, 2, interpolation="bicubic")
    with pytest.raises(InvalidArgumentError, match="defaults only"):
        L.Resizing(2, 2, antialias=True)
    with pytest.raises(InvalidArgumentError, match="height must be a positive integer"):
        L.RandomCrop(0, 2)
    with pytest.raises(InvalidArgumentError, match="mode must be one of"):
        L.RandomFlip("diagonal")


def test_random_flip_only_when_training_and_reproducible():
    x = np.random.default_rng(4).normal(size=(16, 3, 4, 1)).astype("float32")
    layer = L.RandomFlip(seed=5)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    ks.random.set_seed(11)
    first = layer(x).numpy()  # a direct call augments, as in Keras 3
    rotated = x[:, ::-1, ::-1]
    same = [np.array_equal(a, b) for a, b in zip(first, x)]
    turned = [np.array_equal(a, b) for a, b in zip(first, rotated)]
    assert all(s or t for s, t in zip(same, turned)) and any(same) and any(turned)
    ks.random.set_seed(11)
    np.testing.assert_array_equal(L.RandomFlip(seed=5)(x).numpy(), first)
    horizontal = L.RandomFlip("horizontal")(x, training=True).numpy()
    assert all(np.array_equal(a, b) or np.array_equal(a, b[:, ::-1])
               for a, b in zip(horizontal, x))
    model = ks.Sequential([ks.Input((3, 4, 1)), L.RandomFlip()])
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)


def test_random_crop_windows_inference_and_seed():
    image = np.arange(6 * 7, dtype="float32").reshape(1, 6, 7, 1)
    layer = L.RandomCrop(3, 4, seed=2)
    ks.random.set_seed(0)
    windows = {tuple(layer(image, training=True).numpy()[0, 0, :, 0]) for _ in range(20)}
    assert len(windows) > 1
    for window in windows:  # each is a run of 4 consecutive values of one row
        assert np.all(np.diff(window) == 1) and window[0] % 7 <= 3
    inference = layer(image, training=False).numpy()
    np.testing.assert_array_equal(inference, L.Resizing(3, 4, crop_to_aspect_ratio=True)(
        image).numpy())
    ks.random.set_seed(0)
    again = {tuple(L.RandomCrop(3, 4, seed=2)(image).numpy()[0, 0, :, 0]) for _ in range(20)}
    assert again == windows


# ---------------------------------------------------------------- lookups

def test_string_lookup_order_masks_and_oov():
    layer = L.StringLookup(mask_token="")
    layer.adapt(np.array([["a", "b", "b"], ["c", "c", "d"]]))
    assert layer.get_vocabulary() == ["", "[UNK]", "c", "b", "d", "a"]  # ties: highest first
    assert layer.get_vocabulary(include_special_tokens=False) == ["c", "b", "d", "a"]
    np.testing.assert_array_equal(layer(np.array([["a", "zz", "c"], ["d", "", "b"]])).numpy(),
                                  [[5, 1, 2], [4, 0, 3]])
    np.testing.assert_array_equal(layer([b"c", b"q"]).numpy(), [2, 1])
    inverse = L.StringLookup(vocabulary=["a", "b"], invert=True, mask_token="")
    assert (inverse(np.array([[0, 1, 2, 3, 9]])).numpy().tolist()
            == [["", "[UNK]", "a", "b", "[UNK]"]])
    indices = ks.Input((2,), dtype="int64")
    words = ks.Model(indices, inverse(indices))
    assert words.outputs[0].dtype.kind == "U"
    assert words.predict(np.array([[2, 3]]), verbose=0).tolist() == [["a", "b"]]
    buckets = L.StringLookup(vocabulary=["a"], num_oov_indices=3)
    out = buckets(["x", "y", "x", "a"]).numpy()
    assert out[0] == out[2] and 0 <= out[1] < 3 and out[3] == 3


def test_lookup_counting_modes_match_keras_values():
    vocab = ["c", "b", "d", "a"]
    data = np.array([["a", "zz", "c"], ["d", "", "b"]])
    expected = {"multi_hot": [[1, 1, 0, 0, 1], [1, 0, 1, 1, 0]],
                "count": [[1, 1, 0, 0, 1], [1, 0, 1, 1, 0]]}
    for mode, values in expected.items():
        out = L.StringLookup(vocabulary=vocab, output_mode=mode)(data)
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out.numpy(), values)
    one_hot = L.StringLookup(vocabulary=vocab, output_mode="one_hot")(np.array(["a", "zz", "c"]))
    np.testing.assert_array_equal(one_hot.numpy(), np.eye(5)[[4, 0, 1]])
    masked = L.StringLookup(vocabulary=["b", "a"], mask_token="[M]", output_mode="multi_hot")
    np.testing.assert_array_equal(masked(np.array([["a", "[M]"]])).numpy(), [[0, 0, 1]])
    padded = L.StringLookup(vocabulary=vocab, output_mode="count", max_tokens=8,
                            pad_to_max_tokens=True)
    assert padded(np.array([["a", "a"]])).numpy().tolist() == [[0, 0, 0, 0, 2, 0, 0, 0]]
    assert padded.compute_output_shape((None, 3)) == (None, 8)


def test_integer_lookup_as_keras():
    layer = L.IntegerLookup()
    layer.adapt(np.array([5, 5, 3, 3, 7, 0, -1]))
    assert layer.get_vocabulary() == [-1, 5, 3, 7, 0]
    np.testing.assert_array_equal(layer(np.array([5, 3, 7, 0, -1, 100])).numpy(),
                                  [1, 2, 3, 4, 0, 0])
    two = L.IntegerLookup(mask_token=0, num_oov_indices=2)
    two.adapt(np.array([5, 5, 3, 3, 7, 0, -1]))
    assert two.get_vocabulary() == [0, -1, -1, 5, 3, 7]
    np.testing.assert_array_equal(two(np.array([5, 3, 7, 0, -1, 100, 101])).numpy(),
                                  [3, 4, 5, 0, 2, 1, 2])
    inverse = L.IntegerLookup(vocabulary=[12, 36], invert=True)
    np.testing.assert_array_equal(inverse(np.array([1, 2, 0, 7])).numpy(), [12, 36, -1, -1])


def test_tf_idf_matches_keras_values():
    layer = L.TextVectorization(output_mode="tf_idf")
    layer.adapt(["x y z", "x y", "x"])
    assert layer.get_vocabulary() == ["[UNK]", "x", "y", "z"]
    np.testing.assert_allclose(layer(["x y q x"]).numpy(),
                               [[0.7230179, 1.1192316, 0.6931472, 0.0]], rtol=1e-6)


def test_lookup_configs_before_and_after_adapt():
    for layer in (L.StringLookup(output_mode="tf_idf"), L.IntegerLookup(mask_token=0),
                  L.TextVectorization(output_mode="tf_idf")):
        assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
        layer.adapt(["a b", "b"] if isinstance(layer, L.TextVectorization)
                    else np.array([[1, 2], [2, 3]]) if isinstance(layer, L.IntegerLookup)
                    else np.array([["a", "b"], ["b", "c"]]))
        copy = type(layer).from_config(layer.get_config())
        assert copy.get_vocabulary() == layer.get_vocabulary()
        assert copy.get_config() == layer.get_config()


def test_lookup_adapt_from_dataset_and_steps():
    tokens = np.array([["a", "b"], ["b", "c"], ["c", "c"]])
    ds = ks.data.Dataset.from_tensor_slices((tokens, np.arange(3))).batch(1)
    layer = L.StringLookup()
    layer.adapt(ds, steps=2)
    assert layer.get_vocabulary() == ["[UNK]", "b", "c", "a"]


def test_lookup_errors_name_what_is_wrong():
    with pytest.raises(InvalidArgumentError, match="no vocabulary yet"):
        L.StringLookup(name="lookup_no_vocab")(["a"])
    with pytest.raises(InvalidArgumentError, match=r"repeats \['a'\]"):
        L.StringLookup(vocabulary=["a", "b", "a"])
    with pytest.raises(InvalidArgumentError, match="the mask token '' is at index 1"):
        L.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(InvalidArgumentError, match="larger than max_tokens=2"):
        L.StringLookup(vocabulary=["a", "b"], max_tokens=2)
    with pytest.raises(InvalidArgumentError, match="vocabulary files are not read"):
        L.StringLookup(vocabulary="vocab.txt")
    with pytest.raises(InvalidArgumentError, match=r"not in the vocabulary \['q'\]"):
        L.StringLookup(vocabulary=["a"], num_oov_indices=0)(["a", "q"])
    with pytest.raises(InvalidArgumentError, match="invert=True needs output_mode='int'"):
        L.StringLookup(invert=True, output_mode="count")
    with pytest.raises(InvalidArgumentError, match="needs idf_weights"):
        L.StringLookup(vocabulary=["a"], output_mode="tf_idf")
    np.testing.assert_array_equal(L.IntegerLookup(vocabulary=[7, 3])(np.array([3.0, 7.0, 5.0])),
                                  [2, 1, 0])  # float ids holding whole numbers, as Keras
    np.testing.assert_array_equal(
        L.IntegerLookup(vocabulary=[7, 3], invert=True)(np.array([2.0, 1.0])), [3, 7])
    with pytest.raises(InvalidArgumentError, match=r"IntegerLookup 'integer_lookup(_\d+)?': inputs "
                       r"must hold integers, but it is float64 with the non-integral value "
                       r"inputs\[0\] = 1.5"):
        L.IntegerLookup(vocabulary=[1])(np.array([1.5]))
    with pytest.raises(InvalidArgumentError, match=r"StringLookup 'string_lookup(_\d+)?': "
                       r"indices must hold integers, .* indices\[1\] = 0.5"):
        L.StringLookup(vocabulary=["a"], invert=True)(np.array([1.0, 0.5]))
    with pytest.raises(InvalidArgumentError, match=r"inputs must hold integers, got dtype <U1"):
        L.IntegerLookup(vocabulary=[1])(np.array(["a"]))
    with pytest.raises(InvalidArgumentError,
                       match="takes strings: give it a ks.Input with dtype='string', not float32"):
        L.StringLookup(vocabulary=["a"])(ks.Input((1,)))
    with pytest.raises(InvalidArgumentError, match="defaults only"):
        L.IntegerLookup(oov_method="farmhash")


# ---------------------------------------------------------------- TextVectorization

def test_text_vectorization_int_sequences_padding_and_truncation():
    layer = L.TextVectorization(output_sequence_length=5)
    layer.adapt(["The cat, the hat!", "a Cat's hat... hat", "zebra"])
    assert layer.get_vocabulary() == ["", "[UNK]", "hat", "the", "zebra", "cats", "cat", "a"]
    out = layer(["the cat sat on the mat today", "hat"])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy(), [[3, 6, 1, 1, 3], [2, 0, 0, 0, 0]])
    free = L.TextVectorization(vocabulary=["a", "b"])
    np.testing.assert_array_equal(free(np.array([["a b a"], ["b"]])).numpy(),
                                  [[2, 3, 2], [3, 0, 0]])
    np.testing.assert_array_equal(free("b q").numpy(), [3, 1])
    assert layer.compute_output_shape((None,)) == (None, 5)


def test_text_vectorization_ngrams_characters_and_counts():
    grams = L.TextVectorization(ngrams=2, output_mode="count", max_tokens=6)
    grams.adapt(["x y z", "x y"])
    assert grams.get_vocabulary() == ["[UNK]", "y", "x y", "x", "z", "y z"]
    np.testing.assert_array_equal(grams(["x y q"]).numpy(), [[2, 1, 1, 1, 0, 0]])
    chars = L.TextVectorization(split="character")
    chars.adapt(["héllo"])
    assert chars.get_vocabulary() == ["", "[UNK]", "l", "é", "o", "h"]
    np.testing.assert_array_equal(chars("hé").numpy(), [5, 3])
    whole = L.TextVectorization(split=None, standardize=None, vocabulary=["Hi there"])
    np.testing.assert_array_equal(whole(["Hi there", "hi there"]).numpy(), [2, 1])


def test_text_vectorization_config_keeps_an_adapted_vocabulary():
    layer = L.TextVectorization(max_tokens=5, output_mode="multi_hot")
    layer.adapt(ks.data.Dataset.from_tensor_slices(np.array(["b a", "b c", "d"])).batch(2))
    copy = L.TextVectorization.from_config(layer.get_config())
    texts = ["a b", "c z"]
    np.testing.assert_array_equal(copy(texts).numpy(), layer(texts).numpy())
    assert copy.get_vocabulary() == layer.get_vocabulary() == ["[UNK]", "b", "d", "c", "a"]


def test_text_vectorization_errors():
    with pytest.raises(InvalidArgumentError, match="standardize must be one of"):
        L.TextVectorization(standardize="upper")
    with pytest.raises(InvalidArgumentError, match="output_sequence_length is for"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)
    layer = L.TextVectorization(vocabulary=["a"])
    with pytest.raises(InvalidArgumentError, match=r"last dimension of 1; got shape \(1, 2\)"):
        layer(np.array([["a", "b"]]))
    with pytest.raises(InvalidArgumentError, match="no vocabulary yet"):
        L.TextVectorization()(["a"])
    with pytest.raises(InvalidArgumentError, match="takes strings"):
        layer(np.array([1, 2]))


def test_a_sequential_starting_with_text_vectorization_trains_saves_and_loads(tmp_path):
    texts = np.array(["good movie", "bad film", "great fun", "awful bad"] * 4)
    labels = np.array([1, 0, 1, 0] * 4)
    vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=3)
    vectorize.adapt(texts)
    model = ks.Sequential([vectorize, L.Embedding(20, 4), L.GlobalAveragePooling1D(),
                           L.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy")
    model.fit(texts, labels, epochs=1, verbose=0)
    path = str(tmp_path / "text.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(texts, verbose=0), model.predict(texts, verbose=0))
    assert loaded.layers[0].get_vocabulary() == vectorize.get_vocabulary()


def test_a_functional_text_model_on_a_string_input(tmp_path):
    texts = np.array(["good movie", "bad film", "great fun", "awful bad"] * 4)
    labels = np.array([1, 0, 1, 0] * 4)
    vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=3)
    vectorize.adapt(texts)
    inputs = ks.Input((1,), dtype="string")
    indices = vectorize(inputs)
    assert indices.shape == (None, 3) and indices.dtype == np.int64
    counts = L.StringLookup(vocabulary=["good", "bad"], output_mode="count")(inputs)
    assert counts.shape == (None, 3) and counts.dtype == np.float32
    pooled = L.GlobalAveragePooling1D()(L.Embedding(20, 4)(indices))
    model = ks.Model(inputs, L.Dense(1, activation="sigmoid")(pooled))
    model.compile(optimizer="adam", loss="binary_crossentropy")
    model.fit(texts, labels, epochs=1, verbose=0)
    path = str(tmp_path / "functional_text.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    assert loaded.inputs[0].dtype.kind == "U"
    np.testing.assert_allclose(loaded.predict(texts, verbose=0), model.predict(texts, verbose=0))


def test_load_assets_reads_a_keras_vocabulary_file(tmp_path):
    (tmp_path / "vocabulary.txt").write_text("\n[UNK]\nthe\ncat\n", encoding="utf-8")
    layer = L.TextVectorization()
    layer.load_assets(str(tmp_path))
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "cat"]
    (tmp_path / "vocabulary.txt").write_text("-1\n7\n3", encoding="utf-8")
    integers = L.IntegerLookup()
    integers.load_assets(str(tmp_path))
    assert integers.get_vocabulary() == [-1, 7, 3]
    given = L.IntegerLookup(vocabulary=[1, 2])
    given.load_assets(str(tmp_path))  # a vocabulary from the config wins
    assert given.get_vocabulary() == [-1, 1, 2]


@pytest.mark.gpu
def test_strings_stay_on_the_host_under_a_gpu_device():
    with ks.device("/gpu:0"):
        text = ks.convert_to_tensor(np.array(["a b", "b"]))
        assert isinstance(text._value, np.ndarray)
        indices = L.TextVectorization(vocabulary=["a", "b"])(text)
        assert indices.device == "/gpu:0"
        np.testing.assert_array_equal(indices.numpy(), [[2, 3], [3, 0]])
