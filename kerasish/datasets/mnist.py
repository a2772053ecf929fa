"""MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28 uint8.

Lookup order: `path` (a directory with the four IDX files, plain or .gz, or a
Keras-style mnist.npz); ``$KERASISH_DATA/mnist``; ``~/.kerasish/datasets/mnist``;
a download from the mirrors below into the first cache directory, checked
against the sizes and SHA-256 sums recorded here.
"""

from __future__ import annotations

from kerasish.datasets import _mnist_format

MIRRORS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
# Sizes and SHA-256 of the .gz archives as served by the mirrors (the values
# published by TensorFlow Datasets and torchvision; not re-verified offline).
ARCHIVES = {
    "train-images-idx3-ubyte.gz": (
        9_912_422,
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    ),
    "train-labels-idx1-ubyte.gz": (
        28_881,
        "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    ),
    "t10k-images-idx3-ubyte.gz": (
        1_648_877,
        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    ),
    "t10k-labels-idx1-ubyte.gz": (
        4_542,
        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    ),
}

SPEC = _mnist_format.Spec(
    name="mnist",
    title="MNIST",
    mirrors=MIRRORS,
    archives=ARCHIVES,
    fix=(
        "put train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
        "t10k-labels-idx1-ubyte (each may be .gz) in a directory DIR and pass "
        "mnist.load_data(path=DIR) (recipes: --data-dir DIR), or put them in "
        "$KERASISH_DATA/mnist"
    ),
)


def locate(path=None, download: bool = True) -> _mnist_format.Location:
    """Where the files are (downloading them if needed); `.origin` says how they were found.

    Args:
        path: the directory holding the four IDX files (each plain or gzipped); None:
            the cache directories, then a download.
        download: whether the files may be downloaded when they are nowhere on disk.

    Returns:
        A `Location`: `origin` ('path', 'cache', 'system' or 'download'), `directory` and
        `files` (file stem -> path).

    Raises:
        DatasetNotFoundError: listing every place looked and the fix.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets import mnist, write_idx
        >>> directory = tempfile.mkdtemp()
        >>> for stem, array in [
        ...     ("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8)),
        ...     ("train-labels-idx1-ubyte", np.array([1, 2, 3], np.uint8)),
        ...     ("t10k-images-idx3-ubyte", np.zeros((1, 28, 28), np.uint8)),
        ...     ("t10k-labels-idx1-ubyte", np.array([7], np.uint8)),
        ... ]:
        ...     write_idx(os.path.join(directory, stem + ".gz"), array)
        >>> mnist.locate(directory).origin
        'path'
    """
    return _mnist_format.locate(SPEC, path, (), download)


def load_data(path=None, download: bool = True):
    """((x_train, y_train), (x_test, y_test)) as uint8 NumPy arrays, like Keras.

    x arrays have shape (n, 28, 28), y arrays (n,) with digits 0-9.

    Args:
        path: the directory holding the four IDX files (each plain or gzipped); None:
            the cache directories, then a download.
        download: whether the files may be downloaded when they are nowhere on disk.

    Returns:
        ((x_train, y_train), (x_test, y_test)).

    Raises:
        DatasetNotFoundError: when the data is neither on disk nor downloadable (listing
            every place looked and the fix).
        CorruptFileError: naming the file that is damaged.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets import mnist, write_idx
        >>> directory = tempfile.mkdtemp()
        >>> for stem, array in [
        ...     ("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8)),
        ...     ("train-labels-idx1-ubyte", np.array([1, 2, 3], np.uint8)),
        ...     ("t10k-images-idx3-ubyte", np.zeros((1, 28, 28), np.uint8)),
        ...     ("t10k-labels-idx1-ubyte", np.array([7], np.uint8)),
        ... ]:
        ...     write_idx(os.path.join(directory, stem + ".gz"), array)
        >>> (x_train, y_train), (x_test, y_test) = mnist.load_data(directory)
        >>> x_train.shape, y_train.tolist(), y_test.tolist()
        ((3, 28, 28), [1, 2, 3], [7])
    """
    return _mnist_format.load_data(SPEC, path, (), download)
