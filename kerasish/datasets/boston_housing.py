"""Boston housing prices: 506 Boston suburbs of the 1970s, 13 features each, and the
median home value (in $1000s) as the regression target.

The data is Keras's `boston_housing.npz` (arrays `x` (506, 13) and `y` (506,)), read
with pickling disabled. Lookup order for `path` (a file name, as in Keras; a path with
a directory part is used as it is): ``$KERASISH_DATA/boston_housing/<path>``,
``~/.kerasish/datasets/boston_housing/<path>``, then a download into the first of them,
checked against the size and SHA-256 that Keras records.
"""

from __future__ import annotations

import numpy as np

from kerasish.datasets import _remote_file
from kerasish.datasets._files import CorruptFileError
from kerasish.datasets._safe_pickle import load_npz

DATA = _remote_file.RemoteFile(
    name="boston_housing",
    title="Boston housing",
    filename="boston_housing.npz",
    url="https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz",
    size=57_026,
    sha256="f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
)


def load_data(path="boston_housing.npz", test_split: float = 0.2, seed: int = 113,
              download: bool = True):
    """((x_train, y_train), (x_test, y_test)) as NumPy arrays, split as Keras splits them.

    The rows are shuffled with `np.random.RandomState(seed)`; the first
    `int(n * (1 - test_split))` are the training set (404 of 506 by default).

    Args:
        path: the file name in the cache (or a path to your own copy).
        test_split: the fraction held out for testing, in [0, 1).
        seed: the shuffling seed.
        download: whether the file may be downloaded when it is nowhere on disk.

    Raises:
        ValueError: if `test_split` is not in [0, 1).
        DatasetNotFoundError: listing every place looked, and where to put which file.
        CorruptFileError: naming a damaged file or one without `x` and `y`.

    Example:
        >>> from kerasish.datasets import boston_housing
        >>> (x_train, y_train), (x_test, y_test) = boston_housing.load_data()  # doctest: +SKIP
        >>> x_train.shape, x_test.shape  # doctest: +SKIP
        ((404, 13), (102, 13))
    """
    if not 0 <= test_split < 1:
        raise ValueError(
            f"boston_housing.load_data: test_split must be in [0, 1), got {test_split}"
        )
    file = _remote_file.locate(DATA, path, download)
    arrays = load_npz(file)
    missing = [key for key in ("x", "y") if key not in arrays]
    if missing:
        raise CorruptFileError(
            f"{file}: lacks {', '.join(missing)} (Keras's boston_housing.npz layout)"
        )
    x, y = arrays["x"], arrays["y"]
    if len(x) != len(y):
        raise CorruptFileError(f"{file}: {len(x)} rows of features but {len(y)} targets")
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])
