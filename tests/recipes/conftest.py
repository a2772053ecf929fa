"""Fixtures of the recipe tests: tiny MNIST-format data written here, never downloaded."""

import numpy as np
import pytest

from kerasish.datasets import write_idx


def _images(labels, rng):
    """28x28 uint8 images where class k lights a 7x7 square at a place of its own, plus noise."""
    images = rng.integers(0, 60, (len(labels), 28, 28), dtype=np.uint8)
    for i, label in enumerate(labels):
        row, col = divmod(int(label), 4)
        images[i, 7 * row : 7 * row + 7, 7 * col : 7 * col + 7] = 255
    return images


@pytest.fixture(scope="session")
def idx_dir(tmp_path_factory):
    """A directory holding the four MNIST-format IDX files (384 train, 64 test images)."""
    directory = tmp_path_factory.mktemp("idx")
    rng = np.random.default_rng(7)
    y_train = rng.integers(0, 10, 384).astype(np.uint8)
    y_test = rng.integers(0, 10, 64).astype(np.uint8)
    write_idx(str(directory / "train-images-idx3-ubyte"), _images(y_train, rng))
    write_idx(str(directory / "train-labels-idx1-ubyte"), y_train)
    write_idx(str(directory / "t10k-images-idx3-ubyte.gz"), _images(y_test, rng))
    write_idx(str(directory / "t10k-labels-idx1-ubyte.gz"), y_test)
    return str(directory)
