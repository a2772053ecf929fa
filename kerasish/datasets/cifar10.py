"""CIFAR-10: 50,000 training and 10,000 test colour images of 32x32 pixels in 10 classes.

The data is the "CIFAR-10 python version" tarball (`cifar-10-python.tar.gz`) that
Keras also reads: five training batches and a test batch, each a Python pickle of a
dict with the pixels (`data`, uint8 rows of 3072 values, channel-major) and the
`labels`. The pickles are read with an unpickler that can build nothing but NumPy
arrays and plain values (see `kerasish.datasets._safe_pickle`), so a tampered file
cannot run code; the batches are read straight from the tarball (nothing is extracted,
so no archive path can write outside the cache).

Lookup order: `path` (the tarball, an extracted ``cifar-10-batches-py`` directory, or
a directory holding either); ``$KERASISH_DATA/cifar10``; ``~/.kerasish/datasets/cifar10``
(each: the extracted directory or the tarball); a download of `ARCHIVE.url` into the
first cache directory, checked against its size and SHA-256 (the values Keras records).
"""

from __future__ import annotations

import io
import os
import tarfile

import numpy as np

from kerasish.core import limits
from kerasish.datasets import _files, _remote_file
from kerasish.datasets._files import CorruptFileError, DatasetNotFoundError
from kerasish.datasets._safe_pickle import load_pickle

ARCHIVE = _remote_file.RemoteFile(
    name="cifar10",
    title="CIFAR-10",
    filename="cifar-10-python.tar.gz",
    url="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
    size=170_498_071,
    sha256="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
)
FOLDER = "cifar-10-batches-py"  # the directory inside the tarball
TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
TEST_BATCH = "test_batch"
CLASS_NAMES = (
    "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck",
)
_PIXELS = 3 * 32 * 32


def _extracted(directory: str) -> str | None:
    """The directory holding the six batch files: `directory` itself or its FOLDER."""
    for candidate in (directory, os.path.join(directory, FOLDER)):
        if all(os.path.isfile(os.path.join(candidate, b))
               for b in TRAIN_BATCHES + (TEST_BATCH,)):
            return candidate
    return None


def locate(path=None, download: bool = True) -> str:
    """The tarball or the extracted batch directory, downloading the tarball if needed.

    Args:
        path: the tarball, the extracted `cifar-10-batches-py` directory, or a
            directory holding either; None: the cache directories, then a download.
        download: whether the tarball may be downloaded when it is nowhere on disk.

    Returns:
        The path of the batch directory or of the tarball.

    Raises:
        DatasetNotFoundError: listing every place looked, and where to put which file.

    Example:
        >>> import os, pickle, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets import cifar10
        >>> directory = tempfile.mkdtemp()
        >>> for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        ...     with open(os.path.join(directory, name), "wb") as f:
        ...         pickle.dump({"data": np.zeros((2, 3072), np.uint8), "labels": [3, 5]}, f)
        >>> cifar10.locate(directory) == directory
        True
    """
    if path is not None:
        given = os.path.expanduser(os.fspath(path))
        if os.path.isdir(given):
            found = _extracted(given)
            if found:
                return found
            if os.path.isfile(os.path.join(given, ARCHIVE.filename)):
                return os.path.join(given, ARCHIVE.filename)
            raise DatasetNotFoundError(
                f"CIFAR-10: {given} holds neither {ARCHIVE.filename} nor the batch files "
                f"({', '.join(TRAIN_BATCHES)}, {TEST_BATCH}), directly or in {FOLDER}/"
            )
        if os.path.isfile(given):
            return given
        raise DatasetNotFoundError(f"CIFAR-10: {given} does not exist")
    looked = []
    for label, directory in _files.cache_dirs(ARCHIVE.name):
        found = _extracted(directory) if os.path.isdir(directory) else None
        if found:
            return found
        looked.append(f"{label}/{FOLDER}: no extracted batches")
    return _remote_file.locate(ARCHIVE, None, download, looked=looked)


def _read_batch(file, source: str):
    batch = load_pickle(file, source, encoding="bytes")
    if not isinstance(batch, dict):
        raise CorruptFileError(f"{source}: holds a {type(batch).__name__}, not a CIFAR batch")
    batch = {k.decode("utf-8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
    data, labels = batch.get("data"), batch.get("labels")
    if not isinstance(data, np.ndarray) or labels is None:
        raise CorruptFileError(f"{source}: lacks 'data' (an array) or 'labels'")
    labels = np.asarray(labels)
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != _PIXELS:
        raise CorruptFileError(
            f"{source}: 'data' is {data.dtype} of shape {data.shape}; a CIFAR batch holds "
            f"uint8 rows of {_PIXELS} values"
        )
    if labels.shape != (len(data),) or labels.dtype.kind not in "iu":
        raise CorruptFileError(
            f"{source}: {labels.shape[0] if labels.ndim else 'no'} labels for {len(data)} images"
        )
    images = data.reshape(len(data), 3, 32, 32).transpose(0, 2, 3, 1)
    return images, labels.astype(np.uint8).reshape(-1, 1)


def _read_batches(location: str) -> dict:
    names = TRAIN_BATCHES + (TEST_BATCH,)
    if os.path.isdir(location):
        batches = {}
        for name in names:
            path = os.path.join(location, name)
            with open(path, "rb") as f:
                batches[name] = _read_batch(f, path)
        return batches
    wanted = {f"{FOLDER}/{name}": name for name in names}
    batches = {}
    try:
        budget = limits.inflate_budget(os.path.getsize(location))
        with tarfile.open(location, "r:gz") as archive:
            for member in archive:
                name = wanted.get(member.name)
                if name is not None and member.isfile():
                    source = f"{location}:{member.name}"
                    limits.check_declared(member.size, budget, source, CorruptFileError,
                                          "the archive member")
                    data = archive.extractfile(member).read()
                    batches[name] = _read_batch(io.BytesIO(data), source)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorruptFileError(f"{location}: not a readable .tar.gz archive ({exc})") from exc
    missing = [f"{FOLDER}/{n}" for n in names if n not in batches]
    if missing:
        raise CorruptFileError(f"{location}: the archive lacks {', '.join(missing)}")
    return batches


def load_data(path=None, download: bool = True):
    """((x_train, y_train), (x_test, y_test)) as uint8 NumPy arrays, like Keras.

    x arrays have shape (n, 32, 32, 3) (channels last), y arrays (n, 1) with class ids
    0-9 (see `CLASS_NAMES`): 50,000 training and 10,000 test images.

    Args:
        path: the tarball, the extracted `cifar-10-batches-py` directory, or a
            directory holding either; None: the cache directories, then a download.
        download: whether the tarball may be downloaded when it is nowhere on disk.

    Raises:
        DatasetNotFoundError: listing every place looked, and where to put which file.
        CorruptFileError: naming the file (and batch) that is damaged.

    Example:
        >>> import os, pickle, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets import cifar10
        >>> directory = tempfile.mkdtemp()
        >>> for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        ...     with open(os.path.join(directory, name), "wb") as f:
        ...         pickle.dump({"data": np.zeros((2, 3072), np.uint8), "labels": [3, 5]}, f)
        >>> (x_train, y_train), (x_test, y_test) = cifar10.load_data(directory)
        >>> x_train.shape, y_test.ravel().tolist()
        ((10, 32, 32, 3), [3, 5])
    """
    batches = _read_batches(locate(path, download))
    x_train = np.concatenate([batches[name][0] for name in TRAIN_BATCHES])
    y_train = np.concatenate([batches[name][1] for name in TRAIN_BATCHES])
    x_test, y_test = batches[TEST_BATCH]
    return (x_train, y_train), (np.ascontiguousarray(x_test), y_test)
