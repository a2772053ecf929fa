"""Finding (or downloading) one published data file: the loaders of cifar10, imdb and
boston_housing.

Lookup order for a file `filename` of dataset `name`: an explicit path (a file, or a
directory holding `filename`; only it, when given); ``$KERASISH_DATA/<name>/<filename>``;
``~/.kerasish/datasets/<name>/<filename>``; then a download of the published URL into
the first cache directory, checked against the recorded size and checksum (SHA-256, or
MD5 where that is all the publisher recorded). A file found in a cache directory is
checked the same way every time; one that differs is downloaded again, or, where it cannot
be, is a `CorruptFileError` naming it. Offline, the error lists every place looked and
says which file (URL, size) to put where.
"""

from __future__ import annotations

import dataclasses
import os

from kerasish.datasets import _files
from kerasish.datasets._files import CorruptFileError, DatasetNotFoundError, DownloadError


@dataclasses.dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset as its publisher serves it."""

    name: str  # cache directory name, e.g. "imdb"
    title: str  # for messages, e.g. "IMDB"
    filename: str  # the file's name in the cache, e.g. "imdb.npz"
    url: str
    size: int  # bytes
    sha256: str | None = None
    md5: str | None = None


def _fix(spec: RemoteFile, filename: str, argument: str) -> str:
    places = " or ".join(f"{label}/{filename}" for label, _ in _files.cache_dirs(spec.name))
    return (
        f"download {spec.url} ({spec.size:,} bytes) and put it at {places}, or pass "
        f"{argument}=<its path>"
    )


def locate(spec: RemoteFile, path=None, download: bool = True, argument: str = "path",
           looked: list | None = None) -> str:
    """The path of the file, downloading it if needed.

    Args:
        spec: the published file.
        path: None (`spec.filename`); a bare file name (as Keras's `path`: looked up
            in the cache directories under that name, and downloaded under it); or a
            path with a directory part: an existing file, used as it is without a
            checksum (your own copy), or a directory holding `spec.filename`.
        download: whether a missing file may be downloaded.
        argument: the name of the loader's argument, for messages.
        looked: places the caller already searched, for the message.

    Raises:
        DatasetNotFoundError: listing every place looked and the fix.
        CorruptFileError: a cached file is not the published one and could not be
            downloaded again.
    """
    filename = spec.filename
    looked = list(looked or [])
    if path is not None:
        given = os.path.expanduser(os.fspath(path))
        if os.path.dirname(given) or os.path.isdir(given):
            return _explicit(spec, given, argument)
        filename = given
        looked.append(f"{argument}={given!r}: a file name, looked up in the cache directories")
    else:
        looked.append(f"{argument} argument: not given")
    if not os.environ.get(_files.ENV_VAR):
        looked.append(f"${_files.ENV_VAR}: not set")
    damaged = None  # (path, how it differs) of a cached file that is not the published one
    for label, directory in _files.cache_dirs(spec.name):
        candidate = os.path.join(directory, filename)
        if not os.path.isfile(candidate):
            looked.append(f"{label}/{filename}: no such file ({candidate})")
            continue
        problem = _files.differs(candidate, spec.size, spec.sha256, spec.md5)
        if problem is None:
            return candidate
        damaged = damaged or (candidate, problem)
        looked.append(f"{label}/{filename}: not the published file ({problem})")
    fix = _fix(spec, filename, argument)
    if not download or _files.offline():
        why = "download=False" if not download else f"${_files.OFFLINE_ENV_VAR} is set"
        if damaged:
            raise CorruptFileError(_files.damaged_cache_message(
                *damaged, why, f"{argument}={damaged[0]!r}"))
        looked.append(f"download: skipped ({why})")
        raise DatasetNotFoundError(_files.not_found_message(spec.title, looked, fix))
    destination = os.path.join(_files.download_dir(spec.name), filename)
    try:
        return _files.download(spec.url, destination, spec.size, spec.sha256, md5=spec.md5)
    except DownloadError as exc:
        if damaged:
            raise CorruptFileError(_files.damaged_cache_message(
                *damaged, f"the download failed: {exc}", f"{argument}={damaged[0]!r}")) from exc
        looked.append(f"download into {destination}: {exc}")
        raise DatasetNotFoundError(_files.not_found_message(spec.title, looked, fix)) from exc


def _explicit(spec: RemoteFile, given: str, argument: str) -> str:
    if os.path.isfile(given):
        return given
    if os.path.isdir(given):
        candidate = os.path.join(given, spec.filename)
        if os.path.isfile(candidate):
            return candidate
        raise DatasetNotFoundError(
            f"{spec.title}: directory {given} holds no {spec.filename}; "
            + _fix(spec, spec.filename, argument)
        )
    raise DatasetNotFoundError(
        f"{spec.title}: {given} does not exist; " + _fix(spec, spec.filename, argument)
    )
