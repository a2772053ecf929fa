"""Fashion-MNIST: 60,000 training and 10,000 test images of clothing, 28x28 uint8.

Lookup order: `path` (a directory with the four IDX files, plain or .gz, or a
Keras-style .npz); ``$KERASISH_DATA/fashion_mnist``;
``~/.kerasish/datasets/fashion_mnist``; Debian's ``dataset-fashion-mnist``
package (`DEBIAN_DIR`, four gzipped IDX files); a download from Zalando's
servers into the first cache directory, checked against the sizes and
SHA-256 sums recorded here.
"""

from __future__ import annotations

from kerasish.datasets import _mnist_format

DEBIAN_DIR = "/usr/share/datasets/fashion-mnist"
DEBIAN_PACKAGE = "dataset-fashion-mnist"
MIRRORS = (
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/",
)
# Sizes and SHA-256 of the original .gz archives (as published with the
# dataset and by TensorFlow Datasets). Debian recompressed them (same data,
# gzip headers without file names, so different archive checksums).
ARCHIVES = {
    "train-images-idx3-ubyte.gz": (
        26_421_880,
        "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
    ),
    "train-labels-idx1-ubyte.gz": (
        29_515,
        "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
    ),
    "t10k-images-idx3-ubyte.gz": (
        4_422_102,
        "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
    ),
    "t10k-labels-idx1-ubyte.gz": (
        5_148,
        "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
    ),
}
# SHA-256 of the decompressed IDX files, verified against Debian's package.
RAW_SHA256 = {
    "train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "t10k-images-idx3-ubyte": "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "t10k-labels-idx1-ubyte": "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}
CLASS_NAMES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)

SPEC = _mnist_format.Spec(
    name="fashion_mnist",
    title="Fashion-MNIST",
    mirrors=MIRRORS,
    archives=ARCHIVES,
    fix=(
        f"apt-get install {DEBIAN_PACKAGE}  (installs the four files into {DEBIAN_DIR}); "
        "or pass path=DIR (recipes: --data-dir DIR) for a directory holding them"
    ),
)


def locate(path=None, download: bool = True) -> _mnist_format.Location:
    """Where the files are (downloading them if needed); `.origin` says how they were found.

    Args:
        path: the directory holding the four IDX files (each plain or gzipped); None:
            the cache directories, Debian's package directory, then a download.
        download: whether the files may be downloaded when they are nowhere on disk.

    Returns:
        A `Location`: `origin` ('path', 'cache', 'system' or 'download'), `directory` and
        `files` (file stem -> path).

    Raises:
        DatasetNotFoundError: listing every place looked and the fix.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets import fashion_mnist, write_idx
        >>> directory = tempfile.mkdtemp()
        >>> for stem, array in [
        ...     ("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8)),
        ...     ("train-labels-idx1-ubyte", np.array([1, 2, 3], np.uint8)),
        ...     ("t10k-images-idx3-ubyte", np.zeros((1, 28, 28), np.uint8)),
        ...     ("t10k-labels-idx1-ubyte", np.array([7], np.uint8)),
        ... ]:
        ...     write_idx(os.path.join(directory, stem + ".gz"), array)
        >>> fashion_mnist.locate(directory).origin
        'path'
    """
    return _mnist_format.locate(SPEC, path, (DEBIAN_DIR,), download)


def load_data(path=None, download: bool = True):
    """((x_train, y_train), (x_test, y_test)) as uint8 NumPy arrays, like Keras.

    x arrays have shape (n, 28, 28), y arrays (n,) with class ids 0-9 (see
    `CLASS_NAMES`).

    Args:
        path: the directory holding the four IDX files (each plain or gzipped); None:
            the cache directories, Debian's package directory, then a download.
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
        >>> from kerasish.datasets import fashion_mnist, write_idx
        >>> directory = tempfile.mkdtemp()
        >>> for stem, array in [
        ...     ("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8)),
        ...     ("train-labels-idx1-ubyte", np.array([1, 2, 3], np.uint8)),
        ...     ("t10k-images-idx3-ubyte", np.zeros((1, 28, 28), np.uint8)),
        ...     ("t10k-labels-idx1-ubyte", np.array([7], np.uint8)),
        ... ]:
        ...     write_idx(os.path.join(directory, stem + ".gz"), array)
        >>> (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data(directory)
        >>> x_train.shape, y_train.tolist(), y_test.tolist()
        ((3, 28, 28), [1, 2, 3], [7])
    """
    return _mnist_format.load_data(SPEC, path, (DEBIAN_DIR,), download)
