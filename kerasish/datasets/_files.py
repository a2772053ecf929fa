"""Where datasets live on disk, and how they are downloaded (checked, atomically).

Cache directories for a dataset `name`, in lookup order:
``$KERASISH_DATA/<name>`` (when the variable is set) and
``~/.kerasish/datasets/<name>``. Downloads go into the first of them.

`download` streams a URL into a temporary file next to the destination,
checks its size and SHA-256, fsyncs it and renames it into place, so a
crash or a bad transfer never leaves a partial file under the final name.
Network access goes through the module attribute `urlopen` (tests replace
it) with a short per-read timeout and an overall deadline, so nothing hangs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import tempfile
import time
import urllib.error
import urllib.request

ENV_VAR = "KERASISH_DATA"
OFFLINE_ENV_VAR = "KERASISH_OFFLINE"
TIMEOUT = 15.0  # seconds of silence before a connection or read is abandoned
MIN_RATE = 20_000  # bytes/second: a transfer slower than this on average is abandoned
_BLOCK = 1 << 16

urlopen = urllib.request.urlopen  # replaced in tests; never called by the test suite


class DatasetNotFoundError(FileNotFoundError):
    """A dataset is neither on disk nor downloadable; the message lists where we looked."""


class DownloadError(OSError):
    """A download failed: network error, wrong size or wrong checksum."""


class CorruptFileError(ValueError):
    """A data file is damaged or not in the expected format; the message names it."""


def cache_dirs(name: str) -> list:
    """(label, directory) pairs searched for dataset `name`, in order."""
    dirs = []
    root = os.environ.get(ENV_VAR)
    if root:
        dirs.append((f"${ENV_VAR}/{name}", os.path.join(os.path.expanduser(root), name)))
    home = os.path.join(os.path.expanduser("~"), ".kerasish", "datasets", name)
    dirs.append((f"~/.kerasish/datasets/{name}", home))
    return dirs


def download_dir(name: str) -> str:
    """Where a download of dataset `name` is stored."""
    return cache_dirs(name)[0][1]


def offline() -> bool:
    return os.environ.get(OFFLINE_ENV_VAR, "").strip().lower() not in ("", "0", "false", "no")


def differs(path: str, size=None, sha256=None, md5=None) -> str | None:
    """How the file at `path` differs from the published one (`size` in bytes, `sha256`,
    `md5`, each checked when given), or None when it is the published file."""
    actual = os.path.getsize(path)
    if size is not None and actual != size:
        return f"it holds {actual:,} bytes, the published file {size:,}"
    checks = [(label, expected.lower(), digest) for label, expected, digest in (
        ("SHA-256", sha256, hashlib.sha256()),
        ("MD5", md5, hashlib.md5(usedforsecurity=False)),
    ) if expected is not None]
    if checks:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                for _, _, digest in checks:
                    digest.update(block)
    for label, expected, digest in checks:
        if digest.hexdigest() != expected:
            return f"{label} mismatch: expected {expected}, got {digest.hexdigest()}"
    return None


def damaged_cache_message(path: str, problem: str, why: str, use: str) -> str:
    """The error for a cached file that is not the published one and was not replaced;
    `use` says which argument takes it as it is."""
    return (
        f"{path}: a cached file that is not the published one ({problem}), and it was not "
        f"downloaded again ({why}). Delete it so that it is downloaded again, or pass {use} "
        "to use it as it is (a path you give is not checked)"
    )


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def download(
    url: str,
    destination: str,
    size=None,
    sha256=None,
    timeout: float = TIMEOUT,
    progress: bool = True,
    md5=None,
) -> str:
    """Fetch `url` into `destination`, checking `size` (bytes), `sha256` and `md5` when given.

    (`md5` is for files whose publisher recorded only an MD5, as Keras did for the IMDB
    word index; SHA-256 is preferred whenever it is known.)

    Returns `destination`. Raises `DownloadError` naming the URL and what went
    wrong; the destination is untouched unless everything checked out.
    """
    from tqdm.auto import tqdm

    directory = os.path.dirname(os.path.abspath(destination))
    created = []  # the directories made here, deepest first: removed again if this fails
    missing = directory
    while not os.path.isdir(missing):
        created.append(missing)
        missing = os.path.dirname(missing)
    os.makedirs(directory, exist_ok=True)
    name = os.path.basename(destination)
    fd, partial = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=directory)
    received = 0
    digest = hashlib.sha256()
    md5_digest = hashlib.md5(usedforsecurity=False) if md5 is not None else None
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                response = urlopen(url, timeout=timeout)
            except (urllib.error.URLError, socket.timeout, OSError, ValueError) as exc:
                raise DownloadError(f"{url}: {_reason(exc)}") from exc
            with contextlib.closing(response):
                announced = _content_length(response)
                if size is not None and announced is not None and announced != size:
                    raise DownloadError(
                        f"{url}: the server announces {announced} bytes, expected {size}"
                    )
                total = size if size is not None else announced
                deadline = time.monotonic() + 30 + (total or 0) / MIN_RATE
                with tqdm(
                    total=total,
                    unit="B",
                    unit_scale=True,
                    unit_divisor=1024,
                    desc=f"Downloading {name}",
                    disable=not progress,
                    leave=False,
                ) as bar:
                    while True:
                        try:
                            block = response.read(_BLOCK)
                        except (socket.timeout, OSError) as exc:
                            raise DownloadError(
                                f"{url}: {_reason(exc)} after {received} bytes"
                            ) from exc
                        if not block:
                            break
                        out.write(block)
                        digest.update(block)
                        if md5_digest is not None:
                            md5_digest.update(block)
                        received += len(block)
                        bar.update(len(block))
                        if size is not None and received > size:
                            raise DownloadError(f"{url}: more than the expected {size} bytes")
                        if time.monotonic() > deadline:
                            raise DownloadError(
                                f"{url}: too slow ({received} bytes in the time allowed); "
                                "download it yourself and put it in the cache directory"
                            )
            out.flush()
            os.fsync(out.fileno())
        if size is not None and received != size:
            raise DownloadError(
                f"{url}: received {received} bytes, expected {size} (truncated transfer)"
            )
        actual = digest.hexdigest()
        if sha256 is not None and actual != sha256.lower():
            raise DownloadError(
                f"{url}: SHA-256 mismatch: expected {sha256}, got {actual} "
                "(corrupted transfer or a changed file on the server)"
            )
        if md5_digest is not None and md5_digest.hexdigest() != md5.lower():
            raise DownloadError(
                f"{url}: MD5 mismatch: expected {md5}, got {md5_digest.hexdigest()} "
                "(corrupted transfer or a changed file on the server)"
            )
        os.replace(partial, destination)
        _fsync_dir(directory)
        return destination
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(partial)
        for made in created:
            try:
                os.rmdir(made)  # only succeeds if nothing else landed there
            except OSError:
                break
        raise


def _content_length(response):
    headers = getattr(response, "headers", None)
    value = headers.get("Content-Length") if headers is not None else None
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _reason(exc) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot connect ({exc.reason})"
    if isinstance(exc, socket.timeout):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"


def not_found_message(title: str, looked: list, fix: str) -> str:
    lines = [f"{title} was not found. Looked in, in order:"]
    lines += [f"  - {entry}" for entry in looked]
    lines.append(f"To fix: {fix}")
    return "\n".join(lines)
