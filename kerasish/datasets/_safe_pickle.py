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
import math
import pickle
import reprlib
import zipfile

import numpy as np

from kerasish.core import limits
from kerasish.datasets._files import CorruptFileError

_DEPTH = 100  # containers nested deeper than this in a dataset pickle are refused


class _CheckedArray(np.ndarray):
    """The arrays this unpickler makes. A pickle makes an array in two steps: an empty one
    (`_reconstruct`), then its shape, dtype and data (`__setstate__`). NumPy's
    `__setstate__` allocates the declared shape of an object array before looking at the
    data (and crashes the process when the data holds fewer values), so here the declared
    size is compared with the values the pickle holds first. `numpy.ndarray` itself may
    only be named, never called (it would allocate any shape it is given). Errors are
    UnpicklingErrors, which `load_pickle` reports naming the file."""

    def __new__(cls, *args, **kwargs):
        raise pickle.UnpicklingError("it calls numpy.ndarray directly, which pickles of "
                                     "arrays never do")

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) != 5:
            raise pickle.UnpicklingError("an array's state is not (version, shape, dtype, "
                                         "fortran order, data)")
        version, shape, dtype, fortran, data = state
        if (not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape)
                or not isinstance(dtype, np.dtype)):
            raise pickle.UnpicklingError(f"an array's state declares shape "
                                         f"{reprlib.repr(shape)} and dtype {reprlib.repr(dtype)}")
        count = math.prod(shape)
        if dtype.hasobject:
            held = len(data) if isinstance(data, list) else None
            needed = f"{count:,} values"
        else:
            held = len(data) if isinstance(data, bytes) else None
            count *= dtype.itemsize
            needed = f"{count:,} bytes"
        if held != count:
            raise pickle.UnpicklingError(
                f"an array declares shape {shape} and dtype {dtype}, which need {needed}, but "
                f"its data holds {'none' if held is None else f'{held:,}'}"
            )
        if dtype.hasobject:
            data = [_plain(item) for item in data]
        super().__setstate__((version, shape, dtype, fortran, data))


def _reconstruct(subtype, shape, dtype):
    """NumPy's `_reconstruct` as pickles call it: an empty array that `__setstate__` fills
    (NumPy always asks for shape (0,) here; any other is refused, not allocated)."""
    if subtype is not _CheckedArray or shape != (0,):
        raise pickle.UnpicklingError(
            f"it makes an array of shape {reprlib.repr(shape)}; pickles of arrays make one of "
            "shape (0,) and declare their shape in its state"
        )
    return np.ndarray.__new__(_CheckedArray, (0,), np.int8)


_ALLOWED = {
    ("numpy", "ndarray"): _CheckedArray,
    ("numpy", "dtype"): np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
}


def _plain(value, depth: int = 0):
    """`value` with the unpickler's arrays as plain NumPy arrays, through dicts, lists and
    tuples (an array's object elements were converted when it was made)."""
    if isinstance(value, _CheckedArray):
        return value.view(np.ndarray)
    if not isinstance(value, (dict, list, tuple)):
        return value
    if depth >= _DEPTH:
        raise pickle.UnpicklingError(f"containers nested more than {_DEPTH} levels deep")
    if isinstance(value, dict):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    return type(value)(_plain(item, depth + 1) for item in value)


class _ArraysOnlyUnpickler(pickle.Unpickler):
    def __init__(self, file, source: str, **kwargs):
        super().__init__(file, **kwargs)
        self.source = source

    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return _ALLOWED[module, name]
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
        return _plain(_ArraysOnlyUnpickler(file, source, encoding=encoding).load())
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
        declared = math.prod(shape) * dtype.itemsize
        held = len(buffer.getbuffer()) - buffer.tell()
        if declared != held:  # read_array would allocate the declared size first
            raise CorruptFileError(
                f"{source}: its header declares shape {tuple(shape)} and dtype {dtype} "
                f"({declared:,} bytes) but it holds {held:,} bytes of data"
            )
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
                    buffer = io.BytesIO(limits.read_member(archive, member, path,
                                                           CorruptFileError))
                    arrays[member[: -len(".npy")]] = _read_npy(buffer, f"{path}:{member}")
    except CorruptFileError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise CorruptFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    return arrays
