"""Plain-text corpora: reading, tokenizing, and word2vec-style vocabularies.

Fast enough for text8 (17M tokens): splitting uses `str.split` (or one
compiled regex), counting `collections.Counter` (its C counting loop), and
id conversion a C-level `map` of `dict.get` into `numpy.fromiter`.

Example:
    >>> from kerasish.datasets.text import build_vocabulary, tokenize, tokens_to_ids
    >>> tokens = tokenize("the cat and the dog and the bird")
    >>> word_to_id, id_to_word, counts = build_vocabulary(tokens, max_size=3)
    >>> id_to_word, counts.tolist()
    (['UNK', 'the', 'and'], [3, 3, 2])
    >>> tokens_to_ids(["the", "cat"], word_to_id).tolist()
    [1, 0]
"""

from __future__ import annotations

import collections
import gzip
import itertools
import os
import re
import zipfile
import zlib

import numpy as np

from kerasish.core import limits
from kerasish.datasets._files import CorruptFileError

UNK = "UNK"


def read_text(path, encoding: str = "utf-8", errors: str = "replace") -> str:
    """The text of `path`: a plain file, a .gz file, or the first member of a .zip.

    Args:
        path: the file (its content decides the format, not its name).
        encoding: the text encoding.
        errors: what to do with bytes that do not decode (see `bytes.decode`).

    Returns:
        The text.

    Raises:
        FileNotFoundError: `path` does not exist.
        CorruptFileError: naming the file, when the archive is damaged or empty.

    Example:
        >>> import gzip, os, tempfile
        >>> from kerasish.datasets.text import read_text
        >>> path = os.path.join(tempfile.mkdtemp(), "corpus.txt.gz")
        >>> with gzip.open(path, "wt") as f:
        ...     _ = f.write("Hello world")
        >>> read_text(path)
        'Hello world'
    """
    path = os.fspath(path)
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
                if not names:
                    raise CorruptFileError(f"{path}: the zip archive holds no file")
                data = limits.read_member(archive, names[0], path, CorruptFileError)
        else:
            with open(path, "rb") as f:
                magic = f.read(2)
            if magic == b"\x1f\x8b":  # gzip: inflated in blocks, up to the budget
                with gzip.open(path, "rb") as f:
                    data = limits.read_stream(f, path, CorruptFileError,
                                              limits.inflate_budget(os.path.getsize(path)))
            else:
                with open(path, "rb") as f:
                    data = f.read()
    except (zipfile.BadZipFile, EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise CorruptFileError(f"{path}: cannot read the corpus: {exc}") from exc
    return data.decode(encoding, errors=errors)


def tokenize(text: str, lowercase: bool = False, pattern=None) -> list:
    """Split `text` into tokens: on whitespace, or the matches of regex `pattern`.

    `pattern=r"[a-z]+"` with `lowercase=True` gives text8-style tokens from
    any English text.

    Args:
        text: the text.
        lowercase: lowercase it first.
        pattern: a regular expression a token matches; None: split on whitespace.

    Returns:
        The list of tokens.

    Example:
        >>> from kerasish.datasets.text import tokenize
        >>> tokenize("The cat, the dog.", lowercase=True, pattern=r"[a-z]+")
        ['the', 'cat', 'the', 'dog']
    """
    if lowercase:
        text = text.lower()
    if pattern is None:
        return text.split()
    return re.findall(pattern, text)


def load_corpus(path, lowercase: bool = False, pattern=None, encoding: str = "utf-8") -> list:
    """The tokens of the text file `path` (plain, .gz, or .zip), see `tokenize`.

    Args:
        path: the file.
        lowercase: lowercase the text first.
        pattern: a regular expression a token matches; None: split on whitespace.
        encoding: the text encoding.

    Returns:
        The list of tokens.

    Raises:
        CorruptFileError: naming the file, when the archive is damaged.

    Example:
        >>> import os, tempfile
        >>> from kerasish.datasets.text import load_corpus
        >>> path = os.path.join(tempfile.mkdtemp(), "corpus.txt")
        >>> with open(path, "w") as f:
        ...     _ = f.write("Hello world")
        >>> load_corpus(path, lowercase=True)
        ['hello', 'world']
    """
    return tokenize(read_text(path, encoding), lowercase=lowercase, pattern=pattern)


def build_vocabulary(tokens, max_size=50000, min_count: int = 1, unk: str = UNK):
    """The word2vec vocabulary of `tokens`, most frequent words first, `unk` at id 0.

    As in TF's eager word2vec example: ``[('UNK', ...)] + Counter(words).most_common(max_size - 1)``
    (ties keep first-occurrence order), here also dropping words seen fewer
    than `min_count` times.

    Args:
        tokens: a list (or iterable) of words.
        max_size: vocabulary size including `unk`; None for no limit.
        min_count: minimum count of a word to get its own id.
        unk: the out-of-vocabulary token (id 0).

    Returns:
        (word_to_id dict, id_to_word list, counts int64 array), where
        counts[0] is the number of tokens that map to `unk`.

    Raises:
        ValueError: `max_size` is below 1.

    Example:
        >>> from kerasish.datasets.text import build_vocabulary
        >>> word_to_id, id_to_word, counts = build_vocabulary("a b a c".split(), min_count=2)
        >>> id_to_word, counts.tolist()
        (['UNK', 'a'], [2, 2])
    """
    if max_size is not None and int(max_size) < 1:
        raise ValueError(
            f"build_vocabulary: max_size must be >= 1 (room for {unk!r}), got {max_size}"
        )
    counter = collections.Counter(tokens)
    total = sum(counter.values())
    counter.pop(unk, None)  # a literal UNK in the text counts as unknown
    limit = None if max_size is None else int(max_size) - 1
    ranked = counter.most_common(limit)
    if min_count > 1:
        ranked = [(w, c) for w, c in ranked if c >= min_count]
    id_to_word = [unk] + [w for w, _ in ranked]
    counts = np.empty(len(id_to_word), dtype=np.int64)
    counts[1:] = [c for _, c in ranked]
    counts[0] = total - int(counts[1:].sum())
    word_to_id = {w: i for i, w in enumerate(id_to_word)}
    return word_to_id, id_to_word, counts


def encode(tokens, max_size=50000, min_count: int = 1, unk: str = UNK, dtype=np.int32):
    """`build_vocabulary` and `tokens_to_ids` in one pass (faster for large corpora).

    Returns (ids, word_to_id, id_to_word, counts), with the same vocabulary as
    `build_vocabulary`: words are numbered by first occurrence (a C-level
    `dict.fromkeys`), counted with `numpy.bincount`, ranked with a stable sort
    (ties keep first-occurrence order, as `Counter.most_common` does), and
    the ids renumbered with one table lookup.

    Args:
        tokens: a list (or iterable) of words.
        max_size: vocabulary size including `unk`; None for no limit.
        min_count: minimum count of a word to get its own id.
        unk: the out-of-vocabulary token (id 0).
        dtype: the integer dtype of the ids.

    Returns:
        (ids array, word_to_id dict, id_to_word list, counts int64 array).

    Raises:
        ValueError: `max_size` is below 1.

    Example:
        >>> from kerasish.datasets.text import encode
        >>> ids, word_to_id, id_to_word, counts = encode("a b a c a b".split(), max_size=3)
        >>> ids.tolist(), id_to_word, counts.tolist()
        ([1, 2, 1, 0, 1, 2], ['UNK', 'a', 'b'], [1, 3, 2])
    """
    if max_size is not None and int(max_size) < 1:
        raise ValueError(f"encode: max_size must be >= 1 (room for {unk!r}), got {max_size}")
    if not isinstance(tokens, (list, tuple)):
        tokens = list(tokens)
    words = list(dict.fromkeys(tokens))
    index = {w: i for i, w in enumerate(words)}
    first = np.fromiter(map(index.__getitem__, tokens), dtype=np.int64, count=len(tokens))
    counts_all = np.bincount(first, minlength=len(words))
    ranking = counts_all.copy()
    if unk in index:
        ranking[index[unk]] = 0  # a literal UNK in the text counts as unknown
    order = np.argsort(-ranking, kind="stable")
    order = order[ranking[order] >= max(min_count, 1)]
    if max_size is not None:
        order = order[: int(max_size) - 1]
    remap = np.zeros(len(words), dtype=dtype)
    remap[order] = np.arange(1, len(order) + 1)
    ids = remap[first]
    id_to_word = [unk] + [words[i] for i in order.tolist()]
    counts = np.empty(len(id_to_word), dtype=np.int64)
    counts[1:] = counts_all[order]
    counts[0] = len(tokens) - int(counts[1:].sum())
    word_to_id = {w: i for i, w in enumerate(id_to_word)}
    return ids, word_to_id, id_to_word, counts


def tokens_to_ids(tokens, word_to_id: dict, dtype=np.int32) -> np.ndarray:
    """Ids of `tokens` under `word_to_id`; unknown words map to 0 (UNK).

    Args:
        tokens: a list (or iterable) of words.
        word_to_id: the vocabulary, e.g. from `build_vocabulary`.
        dtype: the integer dtype of the ids.

    Returns:
        A 1-D NumPy array of ids.

    Example:
        >>> from kerasish.datasets.text import tokens_to_ids
        >>> tokens_to_ids(["the", "cat", "sat"], {"UNK": 0, "the": 1, "sat": 2}).tolist()
        [1, 0, 2]
    """
    count = len(tokens) if hasattr(tokens, "__len__") else -1
    return np.fromiter(map(word_to_id.get, tokens, itertools.repeat(0)), dtype=dtype, count=count)
