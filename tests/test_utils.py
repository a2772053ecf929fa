"""ks.utils: Keras 3's helpers, with Keras's defaults and clear errors: packing x/y/weights,
text and image datasets from folders, split_dataset, Progbar, and the random distributions
drawn on the host (gamma, beta, binomial)."""

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


@pytest.fixture
def reviews(tmp_path):
    for label, texts in (("neg", ["bad", "awful", "poor"]), ("pos", ["good", "great"])):
        (tmp_path / label).mkdir()
        for i, text in enumerate(texts):
            (tmp_path / label / f"{i}.txt").write_text(text)
    (tmp_path / "pos" / "notes.md").write_text("ignored: not .txt")
    return tmp_path


def test_text_dataset_labels_files_by_folder_in_sorted_order(reviews, capsys):
    ds = ks.utils.text_dataset_from_directory(reviews, batch_size=None, shuffle=False)
    pairs = [(str(t.numpy()), int(y.numpy())) for t, y in ds]  # 0.txt, 1.txt, 2.txt
    assert pairs == [("bad", 0), ("awful", 0), ("poor", 0), ("good", 1), ("great", 1)]
    assert ds.class_names == ["neg", "pos"]
    assert "Found 5 files belonging to 2 classes." in capsys.readouterr().out


def test_text_dataset_splits_without_overlap_and_encodes_labels(reviews):
    train, val = ks.utils.text_dataset_from_directory(
        reviews, label_mode="categorical", batch_size=2, seed=3, validation_split=0.4,
        subset="both", verbose=False)
    seen = [str(t) for batch, _ in train for t in batch.numpy()]
    held = [str(t) for batch, _ in val for t in batch.numpy()]
    assert len(seen) == 3 and len(held) == 2 and not set(seen) & set(held)
    assert sorted(seen + held) == ["awful", "bad", "good", "great", "poor"]
    _, labels = next(iter(train))
    assert labels.dtype == np.float32 and labels.shape[-1] == 2
    again = ks.utils.text_dataset_from_directory(
        reviews, batch_size=2, seed=3, validation_split=0.4, subset="validation", verbose=False)
    assert sorted(str(t) for batch, _ in again for t in batch.numpy()) == sorted(held)


def test_text_dataset_refuses_what_keras_refuses(reviews):
    make = ks.utils.text_dataset_from_directory
    with pytest.raises(ValueError, match="subset='training' needs a validation_split"):
        make(reviews, subset="training")
    with pytest.raises(ValueError, match="does not exist"):
        make(reviews / "missing")
    with pytest.raises(ValueError, match="class_names .* do not match"):
        make(reviews, class_names=["a", "b"])
    (reviews / "third").mkdir()
    with pytest.raises(ValueError, match="'binary' needs exactly 2 classes, found 3"):
        make(reviews, label_mode="binary", verbose=False)


def test_split_dataset_takes_fractions_or_counts():
    left, right = ks.utils.split_dataset((np.arange(10), np.arange(10) * 2), left_size=0.7)
    assert [int(x) for x, _ in left] == list(range(7)) and len(right) == 3
    left, right = ks.utils.split_dataset(ks.data.Dataset.from_tensor_slices(np.arange(6)),
                                         right_size=2, shuffle=True, seed=1)
    assert len(left) == 4 and len(right) == 2
    assert sorted([int(x) for x in left] + [int(x) for x in right]) == list(range(6))
    with pytest.raises(ValueError, match="ask for 8 \\+ 5 examples of 10"):
        ks.utils.split_dataset(np.arange(10), left_size=8, right_size=5)


def test_progbar_averages_values_and_keeps_stateful_ones(capsys):
    bar = ks.utils.Progbar(4, verbose=2, stateful_metrics=["acc"])
    bar.update(2, [("loss", 1.0), ("acc", 0.5)])
    bar.add(2, [("loss", 3.0), ("acc", 0.75)])
    assert bar.averages() == {"loss": 2.0, "acc": 0.75}
    assert "4/4 steps - loss: 2.0000 - acc: 0.7500" in capsys.readouterr().out


@pytest.mark.parametrize("draw, mean", [
    (lambda seed: ks.random.gamma([20000], 2.0, seed=seed), 2.0),
    (lambda seed: ks.random.beta([20000], 1.0, 3.0, seed=seed), 0.25),
    (lambda seed: ks.random.binomial([20000], 10, 0.3, seed=seed), 3.0),
])
def test_host_distributions_have_their_means_and_repeat_with_a_seed(draw, mean):
    a = draw(ks.random.SeedGenerator(5)).numpy()
    assert a.dtype == np.float32 and abs(a.mean() - mean) < 0.05 * mean + 0.02
    assert np.array_equal(a, draw(ks.random.SeedGenerator(5)).numpy())
    with pytest.raises(ks.InvalidArgumentError, match="probabilities must be in"):
        ks.random.binomial([2], 3, 1.5)


def test_image_dataset_decodes_resizes_and_labels(tmp_path):
    image = pytest.importorskip("PIL.Image")
    for label, value in (("cats", 10), ("dogs", 250)):
        (tmp_path / label).mkdir()
        for i in range(3):
            pixels = np.full((8 + i, 6, 3), value, np.uint8)
            image.fromarray(pixels).save(tmp_path / label / f"{i}.png")
    (tmp_path / "cats" / "notes.txt").write_text("not an image")
    train, val = ks.utils.image_dataset_from_directory(
        tmp_path, image_size=(4, 4), batch_size=2, seed=1, validation_split=0.5,
        subset="both", color_mode="grayscale", label_mode="binary", verbose=False)
    images = [(x.numpy(), y.numpy()) for x, y in train] + [(x.numpy(), y.numpy()) for x, y in val]
    assert sum(len(x) for x, _ in images) == 6
    for x, y in images:
        assert x.shape[1:] == (4, 4, 1) and x.dtype == np.float32 and y.dtype == np.float32
        assert np.array_equal(x[:, 0, 0, 0], np.where(y[:, 0] == 1, 250.0, 10.0))
    with pytest.raises(ValueError, match="color_mode must be one of"):
        ks.utils.image_dataset_from_directory(tmp_path, color_mode="cmyk")
