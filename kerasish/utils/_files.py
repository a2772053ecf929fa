"""`ks.utils.get_file`: a file from a URL, kept in Keras's cache folder.

The cache is Keras's own: `$KERAS_HOME` when set, else `~/.keras` (or `/tmp/.keras` when
that is not writable), with the file under `cache_subdir` ("datasets"). So a file that a
Keras program downloaded before, or that was placed there by hand, is used as it is; a
download goes through `kerasish.datasets`' downloader (checked, written atomically), and
where there is no network the error names the URL and the path to place the file at.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import tempfile
import urllib.parse
import warnings
import zipfile

from kerasish.datasets import _files


def keras_home() -> str:
    """Keras's cache folder: `$KERAS_HOME`, else `~/.keras`."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def _algorithm(algorithm: str, file_hash) -> str:
    """"sha256" or "md5": Keras's "auto" takes SHA-256 for a 64-digit hash."""
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None
                                 and len(file_hash) == 64):
        return "sha256"
    if algorithm in ("md5", "auto"):
        return "md5"
    raise ValueError(f"get_file: hash_algorithm must be 'auto', 'sha256' or 'md5', got "
                     f"{algorithm!r}")


def _matches(path: str, file_hash: str, algorithm: str) -> bool:
    digest = hashlib.new(algorithm, usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == str(file_hash).lower()


def _extract(archive: str, destination: str, archive_format) -> bool:
    """Unpack `archive` into `destination` (refusing members that leave it); True if done."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    root = os.path.realpath(destination)
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(archive):
            with tarfile.open(archive) as bundle:
                bundle.extractall(destination, filter="data")
            return True
        if kind == "zip" and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as bundle:
                for member in bundle.namelist():
                    target = os.path.realpath(os.path.join(destination, member))
                    if os.path.commonpath([root, target]) != root:
                        raise ValueError(f"get_file: {archive} holds {member!r}, which would "
                                         f"be written outside {destination}")
                bundle.extractall(destination)
            return True
    return False


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """The path of a file from `origin`, downloaded into Keras's cache folder unless there.

    The file goes to `cache_dir/cache_subdir/fname` (`cache_dir`: `$KERAS_HOME`, else
    `~/.keras`), as in Keras, so files Keras fetched before are found. A file already
    there is used (when `file_hash` is given and does not match, it is fetched again).
    With `extract`, a tar or zip archive is unpacked next to it and the folder's path is
    returned. Without network, the error names the URL and where to put the file.

    Args:
        fname: the file's name in the cache (None: the last part of `origin`'s path).
        origin: the URL.
        untar: deprecated spelling of `extract=True` for tar archives.
        md5_hash: deprecated spelling of `file_hash` with `hash_algorithm="md5"`.
        file_hash: the expected SHA-256 or MD5 of the file (hex).
        cache_subdir: the folder under `cache_dir` (an absolute path is used as it is).
        hash_algorithm: "auto" (SHA-256 for a 64-digit hash, else MD5), "sha256" or "md5".
        extract: unpack the archive and return the folder it was unpacked into.
        archive_format: "auto" (tar then zip), "tar", "zip", a list of them, or None.
        cache_dir: the cache folder (None: `$KERAS_HOME` or `~/.keras`).
        force_download: fetch the file even if it is in the cache.

    Returns:
        The path of the file (or of the folder it was extracted into).

    Raises:
        ValueError: without `origin`, for an `fname` holding a folder, or when the
            file's hash does not match `file_hash`.
        kerasish.datasets.DownloadError: when the download fails (naming the URL and the
            path where the file can be placed by hand).

    Example:
        >>> import kerasish as ks
        >>> path = ks.utils.get_file(  # doctest: +SKIP
        ...     origin="https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz")
        >>> path.endswith("datasets/mnist.npz")  # doctest: +SKIP
        True
    """
    if origin is None:
        raise ValueError('get_file: give the "origin" argument (the URL of the file)')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(keras_home() if cache_dir is None else os.fspath(cache_dir))
    folder = os.path.join(base, cache_subdir)
    try:
        os.makedirs(folder, exist_ok=True)
        writable = os.access(folder, os.W_OK)
    except OSError:
        writable = False
    if not writable:  # as Keras: an unwritable cache falls back to the temporary folder's
        folder = os.path.join(tempfile.gettempdir(), ".keras", cache_subdir)
        os.makedirs(folder, exist_ok=True)

    given = fname
    fname = os.fspath(fname) if fname is not None else ""
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"get_file: cannot take a file name from origin={origin!r}; "
                             "give `fname`")
    elif os.sep in fname:
        raise ValueError(f"get_file: fname must be a file name, not a path (put the folder in "
                         f"cache_dir or cache_subdir), got fname={fname!r}")

    if extract or untar:
        if given and "." in fname:
            target = os.path.join(folder, fname)
            extracted = os.path.join(folder, f"{fname[:fname.find('.')]}_extracted")
        else:
            target = os.path.join(folder, f"{fname}_archive")
            extracted = os.path.join(folder, fname)
    else:
        target = os.path.join(folder, fname)

    if file_hash is not None:
        hash_algorithm = _algorithm(hash_algorithm, file_hash)
    fetch = force_download or not os.path.exists(target)
    if not fetch and file_hash is not None and not _matches(target, file_hash, hash_algorithm):
        warnings.warn(f"get_file: {target} is in the cache but its {hash_algorithm} hash does "
                      f"not match {file_hash}; fetching it again", stacklevel=2)
        fetch = True
    if fetch:
        try:
            _files.download(origin, target)
        except _files.DownloadError as exc:
            raise _files.DownloadError(
                f"get_file: could not download {origin} ({exc}). Without network, download "
                f"it elsewhere and place it at {target}"
            ) from exc
        if file_hash is not None and not _matches(target, file_hash, hash_algorithm):
            os.remove(target)
            raise ValueError(f"get_file: the file from {origin} does not match the "
                             f"{hash_algorithm} hash {file_hash} (incomplete or corrupted)")
    if extract or untar:
        if not _extract(target, extracted, "tar" if untar else archive_format):
            warnings.warn(f"get_file: could not extract {target} (not a {archive_format} "
                          "archive)", stacklevel=2)
        return extracted
    return target
