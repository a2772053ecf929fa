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

    Example:
        >>> import io, os, pickle
        >>> import kerasish as ks
        >>> from kerasish.datasets._safe_pickle import load_pickle
        >>> load_pickle(io.BytesIO(pickle.dumps({"labels": [1, 2]})), "memory")
        {'labels': [1, 2]}
        >>> class Payload:
        ...     def __reduce__(self):
        ...         return (os.system, ("echo owned",))
        >>> try:
        ...     load_pickle(io.BytesIO(pickle.dumps(Payload())), "evil.pkl")
        ... except ks.datasets.CorruptFileError as error:
        ...     print(str(error).split(" unpickle ")[0])
        evil.pkl: refusing to
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

    Args:
        path: the `.npz` file.

    Returns:
        A dict of NumPy arrays, by member name.

    Raises:
        CorruptFileError: naming the file (and member) that cannot be read.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets._safe_pickle import load_npz
        >>> path = os.path.join(tempfile.mkdtemp(), "a.npz")
        >>> np.savez(path, x=np.arange(3))
        >>> {name: array.tolist() for name, array in load_npz(path).items()}
        {'x': [0, 1, 2]}
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
