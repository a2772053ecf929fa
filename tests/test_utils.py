"""ks.utils: Keras 3's helpers, with Keras's defaults and clear errors."""

import importlib.util

import numpy as np
import pytest

import kerasish as ks
from kerasish import utils


def test_unpack_and_pack_x_y_sample_weight():
    assert utils.unpack_x_y_sample_weight(1) == (1, None, None)
    assert utils.unpack_x_y_sample_weight((1,)) == (1, None, None)
    assert utils.unpack_x_y_sample_weight([1, 2]) == (1, 2, None)
    assert utils.unpack_x_y_sample_weight((1, 2, 3)) == (1, 2, 3)
    with pytest.raises(ks.InvalidArgumentError, match="got a tuple of 4 items"):
        utils.unpack_x_y_sample_weight((1, 2, 3, 4))
    assert utils.pack_x_y_sample_weight(1) == 1
    assert utils.pack_x_y_sample_weight([1, 2]) == ([1, 2],)  # two inputs, not (x, y)
    assert utils.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert utils.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)
    for data in (1, ([1, 2],), (1, 2), (1, 2, 3)):
        x, y, w = utils.unpack_x_y_sample_weight(data)
        assert utils.unpack_x_y_sample_weight(utils.pack_x_y_sample_weight(x, y, w)) == (x, y, w)


def test_to_categorical():
    got = utils.to_categorical(np.array([[1], [0], [3]]))
    assert got.shape == (3, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got, np.eye(4)[[1, 0, 3]])
    assert utils.to_categorical(np.zeros((2, 5), np.int64), 3).shape == (2, 5, 3)
    assert utils.to_categorical(ks.constant([1, 2]), 3).shape == (2, 3)
    np.testing.assert_array_equal(utils.to_categorical([2.0, 0.0], 3), [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"label 5 at flat index 1 is not in \[0, num_classes=3\)"):
        utils.to_categorical([0, 5], 3)
    with pytest.raises(ks.InvalidArgumentError, match=r"label -1 at flat index 0"):
        utils.to_categorical([-1, 1])
    with pytest.raises(ks.InvalidArgumentError, match="whole numbers, got float64 .* 1.5"):
        utils.to_categorical([1.5, 0.0])


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
    np.testing.assert_allclose(utils.normalize(x), [[0.6, 0.8], [0, 0], [2**-0.5, -(2**-0.5)]],
                               rtol=1e-6)
    np.testing.assert_allclose(utils.normalize(x, order=1), [[3 / 7, 4 / 7], [0, 0], [0.5, -0.5]],
                               rtol=1e-6)
    np.testing.assert_allclose(utils.normalize(x, axis=0)[:, 0], [3 / 10**0.5, 0, 1 / 10**0.5],
                               rtol=1e-6)
    assert isinstance(utils.normalize(ks.constant(x)), ks.Tensor)
    with pytest.raises(ks.InvalidArgumentError, match="order must be 1 or 2, got 3"):
        utils.normalize(x, order=3)


def test_pad_sequences_keras_defaults_and_options():
    seqs = [[1, 2, 3], [4], [], [5, 6, 7, 8]]
    got = utils.pad_sequences(seqs)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [[0, 1, 2, 3], [0, 0, 0, 4], [0, 0, 0, 0], [5, 6, 7, 8]])
    np.testing.assert_array_equal(
        utils.pad_sequences(seqs, maxlen=2, padding="post", truncating="post", value=-1),
        [[1, 2], [4, -1], [-1, -1], [5, 6]])
    np.testing.assert_array_equal(utils.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [0, 0],
                                                                        [7, 8]])
    vectors = utils.pad_sequences([np.ones((2, 3)), np.ones((1, 3))], dtype="float32")
    assert vectors.shape == (2, 2, 3) and vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors[1, 0], np.zeros(3))
    assert utils.pad_sequences([[1, 2]], maxlen=0).shape == (1, 0)
    with pytest.raises(ks.InvalidArgumentError, match="padding must be 'pre' or 'post'"):
        utils.pad_sequences(seqs, padding="both")
    with pytest.raises(ks.InvalidArgumentError, match="sequence 1 have shape \\(2,\\)"):
        utils.pad_sequences([np.ones((2, 3)), np.ones((1, 2))])
    with pytest.raises(ks.InvalidArgumentError, match="sequence 0 is a scalar"):
        utils.pad_sequences([3])


def test_img_to_array():
    assert utils.img_to_array(np.zeros((4, 5), np.uint8)).shape == (4, 5, 1)
    grey = utils.img_to_array(np.zeros((4, 5)), data_format="channels_first")
    assert grey.shape == (1, 4, 5) and grey.dtype == np.float32
    assert utils.img_to_array(np.zeros((4, 5, 3)), data_format="channels_first").shape == (3, 4, 5)
    with pytest.raises(ks.InvalidArgumentError, match=r"rank 2 or 3, got shape \(1, 2, 3, 4\)"):
        utils.img_to_array(np.zeros((1, 2, 3, 4)))


def test_array_to_img_needs_pillow_or_round_trips():
    image = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    if importlib.util.find_spec("PIL") is None:
        with pytest.raises(ImportError, match="needs the Pillow package.*pip install pillow"):
            utils.array_to_img(image)
        return
    back = utils.img_to_array(utils.array_to_img(image, scale=False))
    np.testing.assert_array_equal(back, image)
    with pytest.raises(ks.InvalidArgumentError, match="1, 3 or 4 channels, got 2"):
        utils.array_to_img(np.zeros((2, 2, 2)))


def test_set_random_seed_makes_every_source_repeat():
    import random

    def draws():
        return (random.random(), np.random.rand(), ks.random.normal([2]).numpy().tolist())

    utils.set_random_seed(11)
    first = draws()
    utils.set_random_seed(11)
    assert draws() == first
    with pytest.raises(ks.InvalidArgumentError, match="must be an integer, got float"):
        utils.set_random_seed(1.5)


def test_serialization_helpers_are_reachable_as_in_keras():
    @utils.register_keras_serializable(package="utils_test")
    class Doubling(ks.layers.Layer):
        def call(self, inputs):
            return 2 * inputs

    config = utils.serialize_keras_object(Doubling(name="twice"))
    assert config["registered_name"] == "utils_test>Doubling"
    again = utils.deserialize_keras_object(config)
    assert isinstance(again, Doubling) and again.name == "twice"
    assert utils.get_registered_object("utils_test>Doubling") is Doubling
    assert utils.custom_object_scope is ks.saving.custom_object_scope
