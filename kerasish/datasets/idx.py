"""Reading IDX files (the MNIST format), plain or gzipped, with their damage reported.

An IDX file is a 4-byte magic number (two zero bytes, a type code, the number
of dimensions), one big-endian uint32 per dimension, then the values in C
order. Images are 0x00000803 (uint8, 3 dimensions), labels 0x00000801.
"""

from __future__ import annotations

import gzip
import math
import os
import struct
import zlib

import numpy as np

from kerasish.core import limits
from kerasish.datasets._files import CorruptFileError

IMAGES_MAGIC = 0x00000803
LABELS_MAGIC = 0x00000801
_TYPES = {0x08: "u1", 0x09: "i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_MAX_BYTES = 1 << 36  # a header promising more than this is garbage, not data


def is_gzip(path: str) -> bool:
    """Whether the file `path` starts with gzip's magic bytes.

    Args:
        path: a file.

    Returns:
        True or False.

    Example:
        >>> import gzip, os, tempfile
        >>> from kerasish.datasets.idx import is_gzip
        >>> path = os.path.join(tempfile.mkdtemp(), "a.gz")
        >>> with gzip.open(path, "wb") as f:
        ...     _ = f.write(b"data")
        >>> is_gzip(path)
        True
    """
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _read_exact(f, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        block = f.read(n - got)
        if not block:
            break
        chunks.append(block)
        got += len(block)
    return b"".join(chunks)


def _readinto_full(f, buffer: np.ndarray) -> int:
    view = memoryview(buffer).cast("B")
    got = 0
    while got < len(view):
        n = f.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def _describe_magic(magic: int) -> str:
    names = {IMAGES_MAGIC: "images", LABELS_MAGIC: "labels"}
    return f"0x{magic:08x}" + (f" ({names[magic]})" if magic in names else "")


def read_idx(path, expected_magic=None) -> np.ndarray:
    """The array stored in IDX file `path` (gzip detected from its content).

    Args:
        path: an IDX file, plain or gzipped.
        expected_magic: the magic number the file must have (`IMAGES_MAGIC`,
            `LABELS_MAGIC`); None: any IDX type.

    Returns:
        A NumPy array of the stored shape and type.

    Raises:
        CorruptFileError: naming the file and the problem: a bad or unexpected magic
            number, a truncated header or body, trailing bytes, or a damaged gzip stream.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets.idx import read_idx, write_idx
        >>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte")
        >>> write_idx(path, np.array([3, 1, 4], dtype=np.uint8))
        >>> read_idx(path).tolist()
        [3, 1, 4]
    """
    path = os.fspath(path)
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as f:
            header = _read_exact(f, 4)
            if len(header) < 4:
                raise CorruptFileError(
                    f"{path}: truncated: {len(header)} bytes, too short for an IDX header"
                )
            magic = struct.unpack(">I", header)[0]
            code, ndim = header[2], header[3]
            if header[:2] != b"\0\0" or code not in _TYPES or ndim == 0:
                raise CorruptFileError(
                    f"{path}: not an IDX file: bad magic number 0x{magic:08x} (expected "
                    f"{_describe_magic(IMAGES_MAGIC)} or {_describe_magic(LABELS_MAGIC)})"
                )
            if expected_magic is not None and magic != expected_magic:
                raise CorruptFileError(
                    f"{path}: magic number {_describe_magic(magic)}, expected "
                    f"{_describe_magic(expected_magic)}; is it the right file?"
                )
            raw_dims = _read_exact(f, 4 * ndim)
            if len(raw_dims) < 4 * ndim:
                raise CorruptFileError(
                    f"{path}: truncated inside the header ({ndim} dimensions announced)"
                )
            dims = struct.unpack(f">{ndim}I", raw_dims)
            dtype = np.dtype(_TYPES[code])
            nbytes = math.prod(dims) * dtype.itemsize
            if nbytes > _MAX_BYTES:
                raise CorruptFileError(f"{path}: implausible dimensions {dims} in the header")
            # before allocating: a plain file holds at most its size, a gzipped one inflates
            # to at most the budget for its compressed size
            size = os.path.getsize(path)
            if opener is gzip.open:
                limits.check_declared(nbytes, limits.inflate_budget(size), path,
                                      CorruptFileError, f"the header (shape {dims})")
            elif nbytes > size - 4 - 4 * ndim:
                raise CorruptFileError(
                    f"{path}: truncated: the header announces shape {dims} ({nbytes} bytes of "
                    f"data) but the file holds {size - 4 - 4 * ndim}"
                )
            data = np.empty(nbytes, dtype=np.uint8)
            got = _readinto_full(f, data)
            if got < nbytes:
                raise CorruptFileError(
                    f"{path}: truncated: the header announces shape {dims} ({nbytes} bytes of "
                    f"data) but the file holds {got}"
                )
            extra = len(f.read())
            if extra:
                raise CorruptFileError(
                    f"{path}: {extra} unexpected bytes after the {nbytes} bytes of data that "
                    f"the header (shape {dims}) announces"
                )
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise CorruptFileError(f"{path}: damaged gzip stream ({exc})") from exc
    array = data.view(dtype).reshape(dims)
    if dtype.byteorder == ">":
        array = array.astype(dtype.newbyteorder("="))
    return array


def write_idx(path, array) -> None:
    """Write `array` as an IDX file (gzipped if `path` ends with .gz).

    Args:
        path: the file to write.
        array: an array of uint8, int8, int16, int32, float32 or float64 values.

    Raises:
        TypeError: IDX cannot store the array's dtype.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from kerasish.datasets.idx import read_idx, write_idx
        >>> path = os.path.join(tempfile.mkdtemp(), "images-idx3-ubyte.gz")
        >>> write_idx(path, np.zeros((2, 3, 3), np.uint8))
        >>> read_idx(path).shape
        (2, 3, 3)
    """
    array = np.asarray(array)
    codes = {np.dtype(v).newbyteorder("="): k for k, v in _TYPES.items()}
    code = codes.get(array.dtype.newbyteorder("="))
    if code is None:
        raise TypeError(f"write_idx: IDX cannot store dtype {array.dtype}")
    body = array.astype(np.dtype(_TYPES[code]), copy=False).tobytes()
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(header + body)
