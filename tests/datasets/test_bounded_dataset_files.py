"""Hostile dataset files cost bounded memory and never crash the process: pickles built from
the allowed NumPy names, `.npy` headers and `.npz` members declaring more than they hold are
refused with a CorruptFileError naming the file, before anything of that size is made.

The memory and crash cases run in a subprocess with a capped address space (`run_capped`)."""

from __future__ import annotations

import io
import pickle
import re
import zipfile

import numpy as np
import pytest

from kerasish.core import limits
from kerasish.datasets import CorruptFileError
from kerasish.datasets._safe_pickle import load_npz, load_pickle

# _reconstruct(ndarray, (2130706432,), dtype('f8')): 16 GB declared in 72 bytes
HUGE_RECONSTRUCT = (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
                    b"J\x00\x00\x00\x7f\x85cnumpy\ndtype\nX\x02\x00\x00\x00f8\x89\x88\x87R\x87R.")


def _object_array_pickle(declared: int) -> bytes:
    """A protocol-3 pickle of a 2-element object array whose state declares `declared`."""
    array = np.empty(2, object)
    array[0], array[1] = [1, 2], [3]
    data = pickle.dumps(array, 3)
    assert data.count(b"K\x02\x85") == 1  # the state's shape, (2,)
    return data.replace(b"K\x02\x85", b"J" + declared.to_bytes(4, "little") + b"\x85")


def _load_in_capped_process(run_capped, data: bytes) -> str:
    status, output = run_capped(
        "import io\nfrom kerasish.datasets._safe_pickle import load_pickle\n"
        f"try:\n    load_pickle(io.BytesIO({data!r}), 'x.pkl')\n"
        "except Exception as error:\n    print(type(error).__name__, error)\n")
    assert status == 0, output  # a crash (SIGSEGV) or a MemoryError fails here
    return output.strip()


def test_an_array_made_with_a_huge_shape_is_refused_not_allocated(run_capped):
    assert _load_in_capped_process(run_capped, HUGE_RECONSTRUCT) == (
        "CorruptFileError x.pkl: not a readable pickle (it makes an array of shape "
        "(2130706432,); pickles of arrays make one of shape (0,) and declare their shape in "
        "its state)"
    )


def test_an_object_array_declaring_more_values_than_it_holds_is_refused(run_capped):
    # NumPy allocates the declared shape first, and crashes the process on a short list
    for declared in (400_000_000, 5):
        assert _load_in_capped_process(run_capped, _object_array_pickle(declared)) == (
            f"CorruptFileError x.pkl: not a readable pickle (an array declares shape "
            f"({declared},) and dtype object, which need {declared:,} values, but its data "
            "holds 2)"
        )


def test_a_numeric_array_declaring_more_bytes_than_it_holds_is_refused():
    data = pickle.dumps(np.arange(3, dtype=np.int64), 3).replace(b"K\x03\x85", b"K\x04\x85")
    with pytest.raises(CorruptFileError, match=re.escape(
            "x.pkl: not a readable pickle (an array declares shape (4,) and dtype int64, which "
            "need 32 bytes, but its data holds 24)")):
        load_pickle(io.BytesIO(data), "x.pkl")


def test_calling_ndarray_directly_is_refused():
    data = b"\x80\x02cnumpy\nndarray\nK\x05\x85\x85R."  # ndarray((5,))
    with pytest.raises(CorruptFileError, match=re.escape(
            "x.pkl: not a readable pickle (it calls numpy.ndarray directly, which pickles of "
            "arrays never do)")):
        load_pickle(io.BytesIO(data), "x.pkl")


def test_containers_nested_too_deeply_are_refused():
    nested: list = []
    for _ in range(150):
        nested = [nested]
    with pytest.raises(CorruptFileError, match=re.escape(
            "x.pkl: not a readable pickle (containers nested more than 100 levels deep)")):
        load_pickle(io.BytesIO(pickle.dumps(nested)), "x.pkl")


def test_arrays_come_back_as_plain_ndarrays_inside_containers():
    inner = np.arange(3)
    outer = np.empty(2, object)
    outer[0], outer[1] = inner, [1]
    loaded = load_pickle(io.BytesIO(pickle.dumps({"a": (inner,), "b": [outer]}, 3)), "x.pkl")
    assert type(loaded["a"][0]) is np.ndarray and loaded["a"][0].tolist() == [0, 1, 2]
    assert type(loaded["b"][0]) is np.ndarray and type(loaded["b"][0][0]) is np.ndarray


def _npz_with_header(path, shape: tuple) -> None:
    """An .npz whose member `x.npy` declares `shape` (float32) and holds 16 bytes of data."""
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<f4", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", member.getvalue() + bytes(16))


def test_an_npy_header_declaring_more_than_the_member_holds_is_refused(tmp_path, run_capped):
    path = str(tmp_path / "huge.npz")
    _npz_with_header(path, (500_000_000,))
    status, output = run_capped(
        "from kerasish.datasets._safe_pickle import load_npz\n"
        f"try:\n    load_npz({path!r})\n"
        "except Exception as error:\n    print(type(error).__name__, error)\n")
    assert status == 0, output
    assert output.strip() == (
        f"CorruptFileError {path}:x.npy: its header declares shape (500000000,) and dtype "
        "float32 (2,000,000,000 bytes) but it holds 16 bytes of data"
    )
    _npz_with_header(path, (4,))
    assert load_npz(path)["x"].tolist() == [0.0] * 4


def test_an_npz_member_over_the_inflation_budget_is_refused(tmp_path, monkeypatch):
    path = str(tmp_path / "zeros.npz")
    np.savez_compressed(path, x=np.zeros(100_000, np.float32))
    monkeypatch.setattr(limits, "INFLATE_FLOOR", 1 << 16)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("x.npy")
    with pytest.raises(CorruptFileError, match=re.escape(
            f"{path}: member 'x.npy' declares {info.file_size:,} bytes (0.4 MiB) when inflated, "
            f"more than the 65,536 bytes (0.1 MiB) allowed for a member of "
            f"{info.compress_size:,} bytes (0.0 MiB) compressed")):
        load_npz(path)


def _report(call: str) -> str:
    return ("try:\n    " + call + "\n    print('read')\n"
            "except Exception as error:\n    print(type(error).__name__, error)\n")


def test_an_idx_header_declaring_more_than_its_file_can_inflate_to_is_refused(tmp_path,
                                                                             run_capped):
    import gzip
    import struct

    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(struct.pack(">IIII", 0x803, 1000, 1000, 1000) + bytes(10)))
    status, output = run_capped(_report(
        "from kerasish.datasets.idx import read_idx; read_idx(" + repr(str(path)) + ")"))
    assert status == 0, output
    assert output.startswith(f"CorruptFileError {path}: the header (shape (1000, 1000, 1000)) "
                             "declares 1,000,000,000 bytes"), output  # before: MemoryError


def test_a_gzipped_corpus_stops_inflating_at_its_budget(tmp_path, run_capped):
    import gzip

    path = tmp_path / "corpus.txt.gz"
    with gzip.open(path, "wb") as f:
        block = b"a " * (1 << 19)
        for _ in range(200):  # 200 MiB of text in about 200 KiB
            f.write(block)
    status, output = run_capped(_report(
        "from kerasish.datasets.text import read_text; read_text(" + repr(str(path)) + ")"))
    assert status == 0, output
    assert output.startswith(f"CorruptFileError {path}: inflates to more than 67,108,864 "
                             "bytes (64.0 MiB)"), output  # before: MemoryError


def test_a_cifar_archive_member_declaring_more_than_the_archive_can_hold_is_refused(tmp_path):
    import gzip
    import tarfile

    from kerasish.datasets import cifar10

    info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
    info.size = 1 << 30  # declared; the archive holds a few bytes of it
    path = tmp_path / "cifar-10-python.tar.gz"
    path.write_bytes(gzip.compress(info.tobuf() + bytes(512)))
    with pytest.raises(CorruptFileError, match=re.escape(
            f"{path}:cifar-10-batches-py/data_batch_1: the archive member declares "
            "1,073,741,824 bytes")):
        cifar10._read_batches(str(path))
