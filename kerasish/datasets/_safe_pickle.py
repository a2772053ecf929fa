"""Reading the pickles inside published datasets without running code from them.

CIFAR-10's batches are Python pickles, and IMDB's `.npz` stores its ragged
sequences as NumPy object arrays, which NumPy can only save as pickles (so
`np.load(..., allow_pickle=False)` refuses them). A pickle may name any importable
callable and have it called with arguments of its choosing (`os.system`, ...), so
loading one with `pickle.load` or `allow_pickle=True` trusts the file completely.

Here the unpickler resolves only the three names that rebuilding a NumPy array needs:
`numpy.ndarray`, `numpy.dtype` and the array reconstructor (its NumPy 1 and NumPy 2
module paths). Everything else a pickle can hold without naming a callable (dicts,
lists, tuples, ints, floats, strings, bytes) is built by the unpickler itself, so
dataset files load while a file that names anything else is refused, naming it.
"""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np

from kerasish.datasets._files import CorruptFileError

_ALLOWED = frozenset({
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
})


class _ArraysOnlyUnpickler(pickle.Unpickler):
    def __init__(self, file, source: str, **kwargs):
        super().__init__(file, **kwargs)
        self.source = source

    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise CorruptFileError(
            f"{self.source}: refusing to unpickle {module}.{name}: a dataset file may only "
            "hold NumPy arrays and plain Python values (the file is damaged or not what it "
            "claims to be)"
        )


def load_pickle(file, source: str, encoding: str = "ASCII"):
    """Unpickle `file` (a binary file object), allowing NumPy arrays and plain values only.

    Args:
        file: an open binary file.
        source: the file's name, for messages.
        encoding: how Python 2 strings are read ('bytes' keeps them as bytes, as
            CIFAR's batches need).

    Raises:
        CorruptFileError: naming `source`, for a refused name or a damaged pickle.
    """
    try:
        return _ArraysOnlyUnpickler(file, source, encoding=encoding).load()
    except CorruptFileError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as exc:
        raise CorruptFileError(f"{source}: not a readable pickle ({exc})") from exc


def _read_npy(buffer: io.BytesIO, source: str) -> np.ndarray:
    """One `.npy` member: numeric arrays without pickle; object arrays through
    `load_pickle` (the data after the header is a pickle of the array)."""
    version = np.lib.format.read_magic(buffer)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(buffer)
    elif version in ((2, 0), (3, 0)):  # 3.0 differs only in the header's text encoding
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(buffer)
    else:
        raise CorruptFileError(f"{source}: unsupported .npy format version {version}")
    if not dtype.hasobject:
        buffer.seek(0)
        return np.lib.format.read_array(buffer, allow_pickle=False)
    array = load_pickle(buffer, source)
    if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
        raise CorruptFileError(
            f"{source}: its header announces an array of shape {tuple(shape)}, its data is "
            f"{type(array).__name__} {getattr(array, 'shape', '')}"
        )
    return array


def load_npz(path: str) -> dict:
    """{name: array} of an `.npz` file; object arrays are read with `load_pickle`.

    Raises:
        CorruptFileError: naming the file (and member) that cannot be read.
    """
    arrays = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                if member.endswith(".npy"):
                    buffer = io.BytesIO(archive.read(member))
                    arrays[member[: -len(".npy")]] = _read_npy(buffer, f"{path}:{member}")
    except CorruptFileError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise CorruptFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    return arrays
