"""Finding and loading the four IDX files of an MNIST-format dataset.

Used by `mnist` and `fashion_mnist`. Lookup order: the explicit `path`
(only it, when given), the cache directories (`_files.cache_dirs`), extra
system directories (Debian's package for Fashion-MNIST), then a download
from the mirrors into the cache. A directory counts when it holds all four
files, each plain or gzipped.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from kerasish.datasets import _files, _safe_pickle
from kerasish.datasets._files import CorruptFileError, DatasetNotFoundError, DownloadError
from kerasish.datasets.idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx

# (key, file stem, magic number), in the order load_data returns them.
FILES = (
    ("x_train", "train-images-idx3-ubyte", IMAGES_MAGIC),
    ("y_train", "train-labels-idx1-ubyte", LABELS_MAGIC),
    ("x_test", "t10k-images-idx3-ubyte", IMAGES_MAGIC),
    ("y_test", "t10k-labels-idx1-ubyte", LABELS_MAGIC),
)
STEMS = tuple(stem for _, stem, _ in FILES)


@dataclasses.dataclass(frozen=True)
class Spec:
    """What is needed to find, download and check one MNIST-format dataset."""

    name: str  # cache directory name, e.g. "mnist"
    title: str  # for messages, e.g. "MNIST"
    mirrors: tuple  # base URLs ending with '/'
    archives: dict  # "<stem>.gz" -> (size in bytes, SHA-256 of the .gz)
    fix: str  # the instruction printed when nothing is found


@dataclasses.dataclass(frozen=True)
class Location:
    """Where a dataset was found: origin is 'path', 'cache', 'system' or 'download'."""

    origin: str
    directory: str
    files: dict  # stem -> file path


def _candidates(stem: str):
    dotted = stem.replace("-idx", ".idx")  # train-images.idx3-ubyte, as some archives unpack
    return (stem + ".gz", stem, dotted + ".gz", dotted)


def files_in(directory: str):
    """({stem: path} of the files present, [missing stems])."""
    found, missing = {}, []
    for stem in STEMS:
        for candidate in _candidates(stem):
            path = os.path.join(directory, candidate)
            if os.path.isfile(path):
                found[stem] = path
                break
        else:
            missing.append(stem)
    return found, missing


def _files_hint() -> str:
    return ", ".join(STEMS[:-1]) + " and " + STEMS[-1] + " (each may be gzipped, .gz)"


def locate(spec: Spec, path=None, system_dirs=(), download: bool = True) -> Location:
    """Find (or download) the dataset; raise DatasetNotFoundError listing every place looked.

    Published archives found in a cache directory are checked against their recorded size
    and SHA-256; one that differs is downloaded again, or is a CorruptFileError naming it
    when it cannot be."""
    if path is not None:
        directory = os.path.expanduser(os.fspath(path))
        if not os.path.isdir(directory):
            raise DatasetNotFoundError(
                f"{spec.title}: path {directory!r} is not a directory; pass the directory "
                f"holding {_files_hint()}"
            )
        found, missing = files_in(directory)
        if missing:
            raise DatasetNotFoundError(
                f"{spec.title}: {directory} lacks {', '.join(missing)} (looked for each name "
                f"with and without .gz); it must hold {_files_hint()}"
            )
        return Location("path", directory, found)

    looked = ["path argument: not given"]
    if not os.environ.get(_files.ENV_VAR):
        looked.append(f"${_files.ENV_VAR}: not set")
    places = [(label, d, "cache") for label, d in _files.cache_dirs(spec.name)]
    places += [(d, d, "system") for d in system_dirs]
    damaged = None  # (path, how it differs) of a cached archive that is not the published one
    for label, directory, origin in places:
        if not os.path.isdir(directory):
            looked.append(f"{label}: no such directory ({directory})")
            continue
        found, missing = files_in(directory)
        if missing:
            looked.append(f"{label}: {directory} lacks {', '.join(missing)}")
            continue
        problems = _damaged(spec, found) if origin == "cache" else []
        if not problems:
            return Location(origin, directory, found)
        damaged = damaged or problems[0]
        looked += [f"{label}: {path} is not the published file ({why})" for path, why in problems]

    if not download or _files.offline():
        why = "download=False" if not download else f"${_files.OFFLINE_ENV_VAR} is set"
        if damaged:
            raise CorruptFileError(_files.damaged_cache_message(
                *damaged, why, f"path={os.path.dirname(damaged[0])!r}"))
        looked.append(f"download: skipped ({why})")
        raise DatasetNotFoundError(_files.not_found_message(spec.title, looked, spec.fix))
    target = _files.download_dir(spec.name)
    present, _ = files_in(target) if os.path.isdir(target) else ({}, None)
    for stem in STEMS:
        if stem in present and not _damaged(spec, {stem: present[stem]}):
            continue
        archive = stem + ".gz"
        size, sha256 = spec.archives[archive]
        errors = []
        for mirror in spec.mirrors:
            try:
                _files.download(mirror + archive, os.path.join(target, archive), size, sha256)
                break
            except DownloadError as exc:
                errors.append(str(exc))
        else:
            if damaged:
                raise CorruptFileError(_files.damaged_cache_message(
                    *damaged, "the download failed: " + "; ".join(errors),
                    f"path={os.path.dirname(damaged[0])!r}"))
            looked += [f"download into {target}: {error}" for error in errors]
            raise DatasetNotFoundError(_files.not_found_message(spec.title, looked, spec.fix))
    found, missing = files_in(target)
    return Location("download", target, found)


def _damaged(spec: Spec, found: dict) -> list:
    """[(path, how it differs)] of the found files that are published archives (`.gz` under
    their published names) and differ from them; plain IDX files carry no recorded checksum."""
    problems = []
    for path in found.values():
        published = spec.archives.get(os.path.basename(path))
        if published is not None:
            problem = _files.differs(path, *published)
            if problem is not None:
                problems.append((path, problem))
    return problems


def read(location: Location, title: str):
    """((x_train, y_train), (x_test, y_test)) from the located files, with consistency checks."""
    arrays = {}
    for key, stem, magic in FILES:
        array = read_idx(location.files[stem], expected_magic=magic)
        if array.dtype != np.uint8:
            raise CorruptFileError(
                f"{location.files[stem]}: holds {array.dtype} values; {title} stores uint8"
            )
        arrays[key] = array
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if len(x) != len(y):
            raise CorruptFileError(
                f"{title} {split} set: {location.files[FILES[0 if split == 'train' else 2][1]]} "
                f"has {len(x)} images but "
                f"{location.files[FILES[1 if split == 'train' else 3][1]]} has {len(y)} labels"
            )
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def load_npz(path: str, title: str):
    """Keras's mnist.npz layout: arrays x_train, y_train, x_test, y_test."""
    arrays = _safe_pickle.load_npz(path)
    missing = [k for k, _, _ in FILES if k not in arrays]
    if missing:
        raise CorruptFileError(f"{path}: lacks {', '.join(missing)} ({title} .npz layout)")
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def load_data(spec: Spec, path=None, system_dirs=(), download: bool = True):
    if path is not None and os.path.isfile(os.path.expanduser(os.fspath(path))):
        path = os.path.expanduser(os.fspath(path))
        if path.endswith(".npz"):
            return load_npz(path, spec.title)
        raise DatasetNotFoundError(
            f"{spec.title}: path {path!r} is a file; pass the directory holding {_files_hint()} "
            "(or a Keras-style .npz)"
        )
    return read(locate(spec, path, system_dirs, download), spec.title)
