"""CategoryEncoding, Hashing, HashedCrossing, Discretization without Keras: errors that name
what is wrong, the hashes' known values, configs, and use inside `ks.data.Dataset.map`."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.layers.preprocessing.fingerprint import fingerprint64, siphash


def test_hashes_match_known_values():
    # TensorFlow's to_hash_bucket_fast / _strong (checked against it in the parity tests)
    assert fingerprint64(b"") == 0x9AE16A3B2F90404F
    assert siphash((0, 0), b"") == 0x1E924B9D737700D7
    long_text = bytes(range(256)) * 3  # the > 64-byte loop
    assert fingerprint64(long_text) != fingerprint64(long_text[:-1])


def test_category_encoding_modes_and_float_ids():
    layer = ks.layers.CategoryEncoding(4, output_mode="multi_hot")
    out = layer(ks.constant([[0.0, 3.0, 3.0]])).numpy()
    np.testing.assert_array_equal(out, [[1, 0, 0, 1]])
    with pytest.raises(InvalidArgumentError, match="1.5"):
        layer(np.array([[1.5]]))


@pytest.mark.parametrize("kwargs, message", [
    ({}, "num_tokens must be set"),
    ({"num_tokens": 0}, "num_tokens must be >= 1"),
    ({"num_tokens": 3, "output_mode": "tf_idf"}, "output_mode must be one of"),
    ({"num_tokens": 3, "sparse": True}, "sparse=True returns TensorFlow sparse tensors"),
])
def test_category_encoding_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.CategoryEncoding(**kwargs)


def test_count_weights_only_in_count_mode():
    with pytest.raises(InvalidArgumentError, match="count_weights is only used"):
        ks.layers.CategoryEncoding(3, "one_hot")([0], count_weights=[1.0])


@pytest.mark.parametrize("kwargs, message", [
    ({"num_bins": 0}, "num_bins must be a positive integer"),
    ({"num_bins": 3, "salt": "x"}, "salt must be an int or a pair"),
    ({"num_bins": 3, "output_mode": "tf_idf"}, "output_mode must be one of"),
    ({"num_bins": 3, "dtype": "float32"}, "needs an integer dtype"),
    ({"num_bins": 3, "sparse": True, "output_mode": "count"}, "sparse=True"),
])
def test_hashing_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.Hashing(**kwargs)


def test_hashing_mask_value_takes_bin_zero():
    out = ks.layers.Hashing(5, mask_value="")(np.array(["", "a", "", "b"])).numpy()
    assert out[0] == 0 and out[2] == 0 and (out[[1, 3]] > 0).all()


@pytest.mark.parametrize("inputs, message", [
    (np.array([1, 2]), "list or tuple"),
    ([np.array([1, 2])], "at least two inputs"),
    ([np.array([1, 2]), np.array([1, 2, 3])], "equal shapes"),
    ([np.ones((2, 2), int), np.ones((2, 2), int)], r"\(batch_size, 1\)"),
    ([np.ones(2), np.ones(2)], "integers or strings"),
])
def test_hashed_crossing_errors(inputs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.HashedCrossing(4)(inputs)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "set either num_bins or bin_boundaries"),
    ({"num_bins": 2, "bin_boundaries": [0.0]}, "not both"),
    ({"num_bins": -1}, "num_bins must be >= 0"),
    ({"num_bins": 2, "sparse": True}, "sparse=True"),
])
def test_discretization_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.Discretization(**kwargs)


def test_discretization_needs_boundaries_and_adapt_needs_num_bins():
    with pytest.raises(InvalidArgumentError, match="call adapt"):
        ks.layers.Discretization(num_bins=3)(np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="cannot adapt"):
        ks.layers.Discretization([0.0]).adapt(np.zeros(3))


def test_discretization_config_keeps_learnt_boundaries():
    layer = ks.layers.Discretization(num_bins=4)
    layer.adapt(np.arange(8.0))
    again = ks.layers.Discretization.from_config(layer.get_config())
    assert again.bin_boundaries == layer.bin_boundaries == [1.0, 3.0, 5.0]
    assert again.num_bins == 4


def test_layers_inside_dataset_map():
    ids = np.array([[0, 2], [1, 1], [3, 0]])
    ds = ks.data.Dataset.from_tensor_slices(ids).batch(2)
    encode = ks.layers.CategoryEncoding(4, output_mode="count")
    got = np.concatenate([b.numpy() for b in ds.map(encode)])
    np.testing.assert_array_equal(got, encode(ids).numpy())
    numbers = ks.data.Dataset.from_tensor_slices(np.array([[-1.0], [0.5], [2.0]])).batch(3)
    bins = ks.layers.Discretization([0.0, 1.0])
    assert [b.numpy().ravel().tolist() for b in numbers.map(bins)] == [[0, 1, 2]]
    hashing = ks.layers.Hashing(7)
    hashed = [b.numpy() for b in ds.map(hashing)]
    np.testing.assert_array_equal(np.concatenate(hashed), hashing(ids).numpy())


def test_functional_model_with_hashing_and_crossing():
    a = ks.Input((1,), dtype="string")
    b = ks.Input((1,), dtype="int64")
    crossed = ks.layers.HashedCrossing(8, output_mode="one_hot")([a, b])
    hashed = ks.layers.Hashing(8, output_mode="one_hot")(a)
    model = ks.Model([a, b], ks.layers.Concatenate()([crossed, hashed]))
    out = model([np.array([["x"], ["y"]]), np.array([[1], [2]])])
    assert out.shape == (2, 16) and out.numpy().sum() == 4
