"""text8: the first 10^8 characters of cleaned English Wikipedia (17M lowercase words).

Lookup order: `path` (the `text8` file, `text8.zip`, or a directory holding
one of them); ``$KERASISH_DATA/text8``; ``~/.kerasish/datasets/text8``; a
download of `URL` into the first cache directory, checked against its
well-known size. No SHA-256 of the archive is recorded (none could be
verified offline), so the size and the zip's own CRC-32 are the checks. A
`text8.zip` found in a cache directory is checked as a download is.

The corpus helpers (`load_corpus`, `tokenize`, `build_vocabulary`,
`tokens_to_ids`, `encode`) are those of `kerasish.datasets.text`, re-exported here.
"""

from __future__ import annotations

import os

from kerasish.datasets import _files
from kerasish.datasets._files import CorruptFileError, DatasetNotFoundError, DownloadError
from kerasish.datasets.text import (  # noqa: F401 - re-exported
    UNK,
    build_vocabulary,
    encode,
    load_corpus,
    read_text,
    tokenize,
    tokens_to_ids,
)

NAME = "text8"
URL = "http://mattmahoney.net/dc/text8.zip"
ZIP_NAME = "text8.zip"
ZIP_SIZE = 31_344_016  # bytes, as checked by TensorFlow's word2vec tutorial
ZIP_SHA256 = None  # unknown offline: size-only check (fill in to enable the SHA-256 check)
TEXT_SIZE = 100_000_000  # bytes of the extracted `text8` file
FIX = (
    f"download {URL} yourself (it is {ZIP_SIZE} bytes) and pass its path, or put it in "
    "$KERASISH_DATA/text8/; or use any plain-text file with load_corpus(path) "
    "(recipes: --corpus FILE)"
)


def _in_directory(directory: str):
    for name in (ZIP_NAME, NAME, NAME + ".txt"):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def locate(path=None, download: bool = True) -> str:
    """The path of the text8 corpus file (`text8` or `text8.zip`), downloading it if needed.

    Args:
        path: the file, or a directory holding it; None: the cache directories, then a
            download.
        download: whether `text8.zip` may be downloaded when it is nowhere on disk.

    Returns:
        The path.

    Raises:
        DatasetNotFoundError: listing every place looked and the fix.
        CorruptFileError: a cached `text8.zip` is not the published file (its size) and
            could not be downloaded again.

    Example:
        >>> import os, tempfile
        >>> from kerasish.datasets import text8
        >>> path = os.path.join(tempfile.mkdtemp(), "text8")
        >>> with open(path, "w") as f:
        ...     _ = f.write(" anarchism originated as a term")
        >>> text8.locate(os.path.dirname(path)) == path
        True
    """
    if path is not None:
        path = os.path.expanduser(os.fspath(path))
        if os.path.isfile(path):
            return path
        if os.path.isdir(path):
            found = _in_directory(path)
            if found:
                return found
            raise DatasetNotFoundError(f"text8: {path} holds neither {ZIP_NAME} nor {NAME}")
        raise DatasetNotFoundError(f"text8: {path} does not exist")
    looked = ["path argument: not given"]
    if not os.environ.get(_files.ENV_VAR):
        looked.append(f"${_files.ENV_VAR}: not set")
    damaged = None  # (path, how it differs) of a cached text8.zip that is not the published one
    for label, directory in _files.cache_dirs(NAME):
        if not os.path.isdir(directory):
            looked.append(f"{label}: no such directory ({directory})")
            continue
        found = _in_directory(directory)
        if not found:
            looked.append(f"{label}: {directory} holds neither {ZIP_NAME} nor {NAME}")
            continue
        problem = (_files.differs(found, ZIP_SIZE, ZIP_SHA256)
                   if os.path.basename(found) == ZIP_NAME else None)
        if problem is None:
            return found
        damaged = damaged or (found, problem)
        looked.append(f"{label}: {found} is not the published file ({problem})")
    if not download or _files.offline():
        why = "download=False" if not download else f"${_files.OFFLINE_ENV_VAR} is set"
        if damaged:
            raise CorruptFileError(_files.damaged_cache_message(
                *damaged, why, f"path={damaged[0]!r}"))
        looked.append(f"download: skipped ({why})")
        raise DatasetNotFoundError(_files.not_found_message("text8", looked, FIX))
    destination = os.path.join(_files.download_dir(NAME), ZIP_NAME)
    try:
        return _files.download(URL, destination, ZIP_SIZE, ZIP_SHA256)
    except DownloadError as exc:
        if damaged:
            raise CorruptFileError(_files.damaged_cache_message(
                *damaged, f"the download failed: {exc}", f"path={damaged[0]!r}")) from None
        looked.append(f"download into {os.path.dirname(destination)}: {exc}")
        raise DatasetNotFoundError(_files.not_found_message("text8", looked, FIX)) from None


def load_data(path=None, download: bool = True, lowercase: bool = False) -> list:
    """The text8 corpus as a list of words (like TF's word2vec example's `read_data`).

    Args:
        path: the file (`text8` or `text8.zip`), or a directory holding it; None: the
            cache directories, then a download.
        download: whether `text8.zip` may be downloaded when it is nowhere on disk.
        lowercase: lowercase the words (text8 already is).

    Returns:
        The list of words.

    Raises:
        DatasetNotFoundError: listing every place looked and the fix.
        CorruptFileError: naming a damaged archive.

    Example:
        >>> import os, tempfile
        >>> from kerasish.datasets import text8
        >>> path = os.path.join(tempfile.mkdtemp(), "text8")
        >>> with open(path, "w") as f:
        ...     _ = f.write(" anarchism originated as a term")
        >>> text8.load_data(path)
        ['anarchism', 'originated', 'as', 'a', 'term']
    """
    corpus = locate(path, download)
    tokens = load_corpus(corpus, lowercase=lowercase)
    if not tokens:
        raise CorruptFileError(f"{corpus}: the corpus is empty")
    return tokens
