"""Keras 3 parity of CategoryEncoding, Hashing, HashedCrossing and Discretization: the same
outputs on the same inputs (Hashing's buckets as Keras's TensorFlow string hashes give them),
the boundaries Discretization learns, and Keras `.keras` files holding them load here and
predict the same. Skips without keras (run with the interop venv, KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)
WORDS = np.array([["apple"], ["banana"], [""], ["a much longer string of text" * 5], ["x"]])


def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), atol=1e-6)


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
@pytest.mark.parametrize("ids", [np.array([[0, 1, 1, 3], [2, 2, 0, 0]]), np.array([3, 1, 1]),
                                 np.array([[1.0], [3.0]], "float32"), np.array(2)])
def test_category_encoding_as_keras(mode, ids):
    ours = ks.layers.CategoryEncoding(5, output_mode=mode)(ids).numpy()
    theirs = keras.layers.CategoryEncoding(5, output_mode=mode)(ids.astype("int64"))
    _same(ours, theirs)  # float ids holding whole numbers: as Keras on TensorFlow casts them


def test_category_encoding_count_weights_as_keras():
    ids, weights = np.array([[0, 1, 1]]), np.array([[0.5, 2.0, 1.0]], "float32")
    ours = ks.layers.CategoryEncoding(3, "count")(ids, count_weights=weights).numpy()
    theirs = keras.layers.CategoryEncoding(3, "count")(ids, count_weights=weights)
    _same(ours, theirs)


@pytest.mark.parametrize("kwargs", [{}, {"salt": 133}, {"salt": (7, 11)}, {"mask_value": "x"}])
@pytest.mark.parametrize("num_bins", [3, 1000, 2**31 - 1])
def test_hashing_strings_in_keras_buckets(kwargs, num_bins):
    ours = ks.layers.Hashing(num_bins, **kwargs)(WORDS).numpy()
    theirs = keras.layers.Hashing(num_bins, **kwargs)(WORDS.tolist())
    _same(ours, theirs)


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_hashing_numbers_in_keras_buckets(mode):
    ints = RNG.integers(-1000, 10**12, size=(6, 1))
    ours = ks.layers.Hashing(7, output_mode=mode, mask_value=ints[0, 0])(ints).numpy()
    theirs = keras.layers.Hashing(7, output_mode=mode, mask_value=ints[0, 0])(ints)
    _same(ours, theirs)
    floats = np.array([[1.7], [-2.2], [3.0]], "float32")
    _same(ks.layers.Hashing(5)(floats).numpy(), keras.layers.Hashing(5)(floats))


@pytest.mark.parametrize("mode", ["int", "one_hot"])
@pytest.mark.parametrize("shape", [(), (4,), (4, 1)])
def test_hashed_crossing_as_keras(mode, shape):
    tf = pytest.importorskip("tensorflow")  # Keras's HashedCrossing takes tensors of strings
    a = np.array(["a", "bb", "ccc", "dddd"])[: (shape[0] if shape else 1)]
    b = np.array([1, -2, 30, 4_000_000_000])[: (shape[0] if shape else 1)]
    a, b = a.reshape(shape), b.reshape(shape)
    ours = ks.layers.HashedCrossing(11, output_mode=mode)((a, b)).numpy()
    theirs = keras.layers.HashedCrossing(11, output_mode=mode)((tf.constant(a), tf.constant(b)))
    _same(ours, theirs)
    three = ks.layers.HashedCrossing(11)((a, b, a)).numpy()
    _same(three, keras.layers.HashedCrossing(11)((tf.constant(a), tf.constant(b), tf.constant(a))))


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_discretization_as_keras(mode):
    x = RNG.normal(size=(5, 3)).astype("float32")
    ours = ks.layers.Discretization([-0.5, 0.0, 0.7], output_mode=mode)(x).numpy()
    theirs = keras.layers.Discretization([-0.5, 0.0, 0.7], output_mode=mode)(x)
    _same(ours, theirs)
    assert ours.dtype == np.asarray(theirs).dtype


@pytest.mark.parametrize("epsilon", [0.01, 0.1])
def test_discretization_adapt_learns_keras_boundaries(epsilon):
    data = RNG.normal(size=(1000, 2)).astype("float32")
    ours, theirs = (m.layers.Discretization(num_bins=5, epsilon=epsilon) for m in (ks, keras))
    ours.adapt(ks.data.Dataset.from_tensor_slices(data).batch(64))
    theirs.adapt([data[i:i + 64] for i in range(0, 1000, 64)])
    np.testing.assert_allclose(ours.bin_boundaries, theirs.bin_boundaries, rtol=1e-6)


def test_keras_files_load_and_predict_the_same(tmp_path):
    inputs = keras.Input((4,))
    bins = keras.layers.Discretization(num_bins=4, output_mode="count")
    bins.adapt(RNG.normal(size=(200, 4)).astype("float32"))
    ids = keras.layers.Input((3,), dtype="int32")
    encoded = keras.layers.CategoryEncoding(6, output_mode="multi_hot")(ids)
    x = keras.layers.Concatenate()([bins(inputs), encoded])
    model = keras.Model([inputs, ids], keras.layers.Dense(2)(x))
    path = str(tmp_path / "categorical.keras")
    model.save(path)
    ours = ks.models.load_model(path)
    x_num = RNG.normal(size=(5, 4)).astype("float32")
    x_ids = RNG.integers(0, 6, size=(5, 3)).astype("int32")
    _same(ours.predict([x_num, x_ids], verbose=0), model.predict([x_num, x_ids], verbose=0))


def test_hashing_config_reads_both_ways():
    layer = keras.layers.Hashing(9, salt=3, mask_value="m", output_mode="multi_hot")
    ours = ks.layers.Hashing.from_config(layer.get_config())
    assert ours.salt == [3, 3] and ours.mask_value == "m" and ours.num_bins == 9
    back = keras.layers.Hashing.from_config(ours.get_config())
    _same(back(WORDS.tolist()), ours(WORDS).numpy())
