"""Keras 3's `keras.utils` additions: text datasets from folders, split_dataset, Progbar,
and the random distributions drawn on the host (gamma, beta, binomial)."""

import numpy as np
import pytest

import kerasish as ks


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
