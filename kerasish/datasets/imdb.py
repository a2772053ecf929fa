"""IMDB movie reviews: 25,000 training and 25,000 test reviews labelled by sentiment.

Each review is a list of word ids, the words ranked by how often they occur (id 1 is
the most frequent word in the file; `get_word_index()` maps words to these ranks).
`load_data` shifts them by `index_from` and marks each review's start with
`start_char`, exactly as Keras does, so ids 0 (padding), 1 (start) and 2 (out of
vocabulary) are free with the defaults.

The data is Keras's `imdb.npz`, whose ragged reviews are NumPy object arrays: NumPy
can only store those as pickles, so `np.load(allow_pickle=False)` refuses them. They
are read with an unpickler that can build nothing but NumPy arrays and plain values
(see `kerasish.datasets._safe_pickle`), so a tampered file cannot run code; numeric
members are read with pickling disabled.

Lookup order for `path` (a file name, as in Keras; a path with a directory part is
used as it is): ``$KERASISH_DATA/imdb/<path>``, ``~/.kerasish/datasets/imdb/<path>``,
then a download into the first of them, checked against the size and checksum Keras
records (SHA-256 for the data, MD5 for the word index: all Keras publishes for it).
"""

from __future__ import annotations

import json

import numpy as np

from kerasish.datasets import _remote_file
from kerasish.datasets._files import CorruptFileError
from kerasish.datasets._safe_pickle import load_npz

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
DATA = _remote_file.RemoteFile(
    name="imdb",
    title="IMDB",
    filename="imdb.npz",
    url=_ORIGIN + "imdb.npz",
    size=17_464_789,
    sha256="69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
)
WORD_INDEX = _remote_file.RemoteFile(
    name="imdb",
    title="IMDB word index",
    filename="imdb_word_index.json",
    url=_ORIGIN + "imdb_word_index.json",
    size=1_641_221,
    md5="bfafd718b763782e994055a2d397834f",
)
_KEYS = ("x_train", "y_train", "x_test", "y_test")


def _object_array(sequences: list) -> np.ndarray:
    """A 1-D object array of lists (np.array would make a 2-D array of equal lengths)."""
    array = np.empty(len(sequences), dtype=object)
    for i, sequence in enumerate(sequences):
        array[i] = sequence
    return array


def load_data(path="imdb.npz", num_words=None, skip_top: int = 0, maxlen=None,
              seed: int = 113, start_char=1, oov_char=2, index_from: int = 3,
              download: bool = True):
    """((x_train, y_train), (x_test, y_test)): reviews as lists of word ids, labels 0/1.

    The reviews are shuffled (each split with one `np.random.RandomState(seed)`, train
    first) and re-indexed as Keras does, so the same arguments give the same arrays.

    Args:
        path: the file name in the cache (or a path to your own copy).
        num_words: keep the `num_words` most frequent words (ids below `num_words`
            after the shift); others become `oov_char`. None: keep all.
        skip_top: ids below `skip_top` (the most frequent words, and the special
            ids) also become `oov_char`.
        maxlen: keep only reviews shorter than `maxlen` ids (start mark included);
            longer ones are dropped, not truncated, as in Keras. None: keep all.
        seed: the shuffling seed.
        start_char: the id that starts every review (None: no start mark).
        oov_char: the id of words cut by `num_words`/`skip_top` (None: drop them).
        index_from: added to every word id.
        download: whether the file may be downloaded when it is nowhere on disk.

    Returns:
        x arrays: 1-D object arrays of lists of ints; y arrays: int labels (1 positive).

    Raises:
        DatasetNotFoundError: listing every place looked, and where to put which file.
        CorruptFileError: naming a damaged file or one without the four arrays.
        ValueError: if `maxlen` leaves no review in a split.

    Example:
        >>> from kerasish.datasets import imdb
        >>> (x_train, y_train), _ = imdb.load_data(num_words=10_000)  # doctest: +SKIP
        >>> x_train[0][:3]  # doctest: +SKIP
        [1, 14, 22]
    """
    file = _remote_file.locate(DATA, path, download)
    arrays = load_npz(file)
    missing = [key for key in _KEYS if key not in arrays]
    if missing:
        raise CorruptFileError(f"{file}: lacks {', '.join(missing)} (Keras's imdb.npz layout)")
    x_train, labels_train = arrays["x_train"], arrays["y_train"]
    x_test, labels_test = arrays["x_test"], arrays["y_test"]
    for x, y, split in ((x_train, labels_train, "train"), (x_test, labels_test, "test")):
        if len(x) != len(y):
            raise CorruptFileError(f"{file}: {len(x)} {split} reviews but {len(y)} labels")

    rng = np.random.RandomState(seed)
    order = np.arange(len(x_train))
    rng.shuffle(order)
    x_train, labels_train = x_train[order], labels_train[order]
    order = np.arange(len(x_test))
    rng.shuffle(order)
    x_test, labels_test = x_test[order], labels_test[order]

    prefix = [] if start_char is None else [start_char]
    shift = index_from or 0
    train = [prefix + [w + shift for w in x] for x in x_train]
    test = [prefix + [w + shift for w in x] for x in x_test]
    if maxlen:
        kept_train = [i for i, x in enumerate(train) if len(x) < maxlen]
        kept_test = [i for i, x in enumerate(test) if len(x) < maxlen]
        if not kept_train or not kept_test:
            raise ValueError(
                f"imdb.load_data: no {'training' if not kept_train else 'test'} review is "
                f"shorter than maxlen={maxlen}; increase maxlen"
            )
        train, labels_train = [train[i] for i in kept_train], labels_train[kept_train]
        test, labels_test = [test[i] for i in kept_test], labels_test[kept_test]

    reviews = train + test
    if not num_words:
        num_words = max(max(x) for x in reviews if x)
    if oov_char is not None:
        reviews = [[w if skip_top <= w < num_words else oov_char for w in x] for x in reviews]
    else:
        reviews = [[w for w in x if skip_top <= w < num_words] for x in reviews]
    split = len(train)
    return ((_object_array(reviews[:split]), np.asarray(labels_train)),
            (_object_array(reviews[split:]), np.asarray(labels_test)))


def get_word_index(path="imdb_word_index.json", download: bool = True) -> dict:
    """{word: rank}: the word of each id in the reviews, before `index_from` is added.

    Args:
        path: the file name in the cache (or a path to your own copy).
        download: whether the file may be downloaded when it is nowhere on disk.

    Returns:
        The dict.

    Raises:
        DatasetNotFoundError: listing every place looked, and where to put which file.
        CorruptFileError: naming a file that is not a JSON word index.

    Example:
        >>> import json, os, tempfile
        >>> from kerasish.datasets import imdb
        >>> path = os.path.join(tempfile.mkdtemp(), "imdb_word_index.json")
        >>> with open(path, "w") as f:
        ...     json.dump({"the": 1, "and": 2}, f)
        >>> imdb.get_word_index(path)
        {'the': 1, 'and': 2}
        >>> index = imdb.get_word_index()  # doctest: +SKIP
        >>> words = {rank + 3: word for word, rank in index.items()}  # doctest: +SKIP
    """
    file = _remote_file.locate(WORD_INDEX, path, download)
    try:
        with open(file, encoding="utf-8") as f:
            index = json.load(f)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorruptFileError(f"{file}: not a JSON word index ({exc})") from exc
    if not isinstance(index, dict):
        raise CorruptFileError(f"{file}: holds a {type(index).__name__}, not a word index")
    return index
