"""cifar10 / imdb / boston_housing loaders on small files written here in the published
formats: lookup, values and Keras's processing, downloads (served from memory, checksums),
offline messages, damaged and hostile files. Nothing touches the network; the Keras
comparisons skip without keras."""

import dataclasses
import hashlib
import io
import json
import os
import pickle
import struct
import tarfile
import urllib.error

import numpy as np
import pytest

from kerasish.datasets import (
    CorruptFileError,
    DatasetNotFoundError,
    _files,
    boston_housing,
    cifar10,
    imdb,
)


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No KERASISH_DATA, a fresh HOME, and no real network."""
    monkeypatch.delenv(_files.ENV_VAR, raising=False)
    monkeypatch.delenv(_files.OFFLINE_ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def no_network(url, timeout=None):
        raise urllib.error.URLError("network disabled in tests")

    monkeypatch.setattr(_files, "urlopen", no_network)
    return tmp_path


class FakeResponse(io.BytesIO):
    def __init__(self, data):
        super().__init__(data)
        self.headers = {"Content-Length": str(len(data))}


def serve(monkeypatch, routes, log):
    def urlopen(url, timeout=None):
        log.append(url)
        if url not in routes:
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        return FakeResponse(routes[url])

    monkeypatch.setattr(_files, "urlopen", urlopen)


def published_as(monkeypatch, module, attribute, data, **checksums):
    """Record `data`'s size and SHA-256 (or the checksums given) as the published ones."""
    spec = getattr(module, attribute)
    checks = checksums or {"sha256": hashlib.sha256(data).hexdigest()}
    monkeypatch.setattr(module, attribute, dataclasses.replace(spec, size=len(data), **checks))
    return getattr(module, attribute)


# ------------------------------------------------------------------ CIFAR-10


class Python2Pickler(pickle._Pickler):
    """Protocol 2 as Python 2 and NumPy 1 wrote the CIFAR tarball: bytes and str both as
    Python 2's `str` (SHORT_BINSTRING/BINSTRING; Python 3 would call _codecs.encode)."""

    dispatch = dict(pickle._Pickler.dispatch)

    def save_python2_str(self, obj):
        obj = obj.encode("latin-1") if isinstance(obj, str) else obj
        if len(obj) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(obj)]) + obj)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(obj)) + obj)
        self.memoize(obj)

    dispatch[bytes] = dispatch[str] = save_python2_str


def python2_pickle(obj) -> bytes:
    buffer = io.BytesIO()
    Python2Pickler(buffer, protocol=2).dump(obj)
    # NumPy 1 named its array reconstructor numpy.core.multiarray (NumPy 2: numpy._core)
    return buffer.getvalue().replace(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n")


def cifar_batch(rng, n):
    """A batch as the CIFAR python tarball holds it: a Python 2 pickle of a dict with
    str (bytes) keys, uint8 rows of 3072 channel-major pixels and a list of labels."""
    data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    labels = [int(v) for v in rng.integers(0, 10, n)]
    batch = {b"batch_label": b"testing", b"labels": labels, b"data": data,
             b"filenames": [b"img_%d.png" % i for i in range(n)]}
    return python2_pickle(batch), data, labels


def cifar_files(seed=0):
    rng = np.random.default_rng(seed)
    files, expected = {}, {}
    for name, n in [(f"data_batch_{i}", 2 + i) for i in range(1, 6)] + [("test_batch", 3)]:
        files[name], data, labels = cifar_batch(rng, n)
        expected[name] = (data, labels)
    return files, expected


def write_tarball(path, files, folder="cifar-10-batches-py"):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return str(path)


def check_cifar(result, expected):
    (x_train, y_train), (x_test, y_test) = result
    train_data = np.concatenate([expected[f"data_batch_{i}"][0] for i in range(1, 6)])
    train_labels = sum((expected[f"data_batch_{i}"][1] for i in range(1, 6)), [])
    assert x_train.dtype == y_train.dtype == x_test.dtype == y_test.dtype == np.uint8
    assert x_train.shape == (len(train_data), 32, 32, 3) and y_train.shape == (len(train_data), 1)
    # pixel (row r, column c, channel k) is entry k * 1024 + r * 32 + c of the row
    np.testing.assert_array_equal(x_train[4, 5, 6], train_data[4, [0 * 1024 + 166,
                                                                   1 * 1024 + 166,
                                                                   2 * 1024 + 166]])
    np.testing.assert_array_equal(x_train.transpose(0, 3, 1, 2).reshape(-1, 3072), train_data)
    np.testing.assert_array_equal(y_train[:, 0], train_labels)
    np.testing.assert_array_equal(x_test.transpose(0, 3, 1, 2).reshape(-1, 3072),
                                  expected["test_batch"][0])
    np.testing.assert_array_equal(y_test[:, 0], expected["test_batch"][1])


def test_cifar10_from_tarball_extracted_directory_and_cache(isolated, monkeypatch):
    files, expected = cifar_files()
    tarball = write_tarball(isolated / "cifar-10-python.tar.gz", files)
    check_cifar(cifar10.load_data(tarball), expected)
    check_cifar(cifar10.load_data(isolated), expected)  # a directory holding the tarball
    extracted = isolated / "x" / "cifar-10-batches-py"
    extracted.mkdir(parents=True)
    for name, data in files.items():
        (extracted / name).write_bytes(data)
    check_cifar(cifar10.load_data(extracted), expected)
    check_cifar(cifar10.load_data(isolated / "x"), expected)
    monkeypatch.setenv(_files.ENV_VAR, str(isolated / "x"))
    os.rename(isolated / "x" / "cifar-10-batches-py", isolated / "x" / "cifar10")
    check_cifar(cifar10.load_data(), expected)  # $KERASISH_DATA/cifar10 holds the batches


def test_cifar10_download_checks_and_reuses_the_tarball(isolated, monkeypatch):
    files, expected = cifar_files(1)
    data = open(write_tarball(isolated / "served.tar.gz", files), "rb").read()
    spec = published_as(monkeypatch, cifar10, "ARCHIVE", data)
    log = []
    serve(monkeypatch, {spec.url: data}, log)
    check_cifar(cifar10.load_data(), expected)
    cache = isolated / "home" / ".kerasish" / "datasets" / "cifar10"
    assert os.listdir(cache) == ["cifar-10-python.tar.gz"]
    check_cifar(cifar10.load_data(), expected)
    assert log == [spec.url]  # the second load used the cached tarball


def test_cifar10_checksum_mismatch_keeps_nothing(isolated, monkeypatch):
    files, _ = cifar_files(2)
    data = open(write_tarball(isolated / "served.tar.gz", files), "rb").read()
    spec = published_as(monkeypatch, cifar10, "ARCHIVE", data)
    serve(monkeypatch, {spec.url: data[:-1] + bytes([data[-1] ^ 1])}, [])
    with pytest.raises(DatasetNotFoundError, match=r"SHA-256 mismatch: expected "
                       + spec.sha256):
        cifar10.load_data()
    cache = isolated / "home" / ".kerasish" / "datasets" / "cifar10"
    assert not cache.exists() or not os.listdir(cache)


def test_cifar10_offline_error_says_which_file_goes_where(isolated, monkeypatch):
    monkeypatch.setenv(_files.OFFLINE_ENV_VAR, "1")
    with pytest.raises(DatasetNotFoundError) as info:
        cifar10.load_data()
    message = str(info.value)
    for expected in ("CIFAR-10 was not found", "~/.kerasish/datasets/cifar10/cifar-10-batches-py",
                     "download: skipped ($KERASISH_OFFLINE is set)",
                     "download https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz "
                     "(170,498,071 bytes) and put it at ~/.kerasish/datasets/cifar10/"
                     "cifar-10-python.tar.gz"):
        assert expected in message, expected
    with pytest.raises(DatasetNotFoundError, match=r"holds neither cifar-10-python\.tar\.gz "
                       r"nor the batch files"):
        cifar10.load_data(isolated)


class _Payload:
    """Unpickling this would call os.makedirs(target)."""

    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.makedirs, (self.target,))


def test_cifar10_pickle_naming_other_callables_is_refused_without_running(isolated):
    files, _ = cifar_files(3)
    marker = str(isolated / "ran")
    files["data_batch_2"] = python2_pickle({b"data": _Payload(marker), b"labels": []})
    tarball = write_tarball(isolated / "evil.tar.gz", files)
    with pytest.raises(CorruptFileError, match=r"evil\.tar\.gz:cifar-10-batches-py/data_batch_2: "
                       r"refusing to unpickle (posix|os|nt)\.makedirs"):
        cifar10.load_data(tarball)
    assert not os.path.exists(marker)


def test_cifar10_damaged_files_are_named(isolated):
    files, _ = cifar_files(4)
    del files["test_batch"]
    with pytest.raises(CorruptFileError, match=r"lacks cifar-10-batches-py/test_batch"):
        cifar10.load_data(write_tarball(isolated / "short.tar.gz", files))
    files, _ = cifar_files(4)
    files["data_batch_1"] = python2_pickle({b"data": np.zeros((2, 10), np.uint8),
                                            b"labels": [0, 1]})
    with pytest.raises(CorruptFileError, match=r"data_batch_1: 'data' is uint8 of shape \(2, 10\)"):
        cifar10.load_data(write_tarball(isolated / "bad.tar.gz", files))
    (isolated / "junk.tar.gz").write_bytes(b"not a tarball")
    with pytest.raises(CorruptFileError, match=r"junk\.tar\.gz: not a readable \.tar\.gz"):
        cifar10.load_data(isolated / "junk.tar.gz")


# ------------------------------------------------------------------ IMDB


def imdb_arrays(seed=0, n_train=7, n_test=5):
    rng = np.random.default_rng(seed)

    def reviews(n):
        array = np.empty(n, dtype=object)
        for i in range(n):
            array[i] = [int(w) for w in rng.integers(1, 40, rng.integers(3, 12))]
        return array

    return {"x_train": reviews(n_train), "y_train": rng.integers(0, 2, n_train),
            "x_test": reviews(n_test), "y_test": rng.integers(0, 2, n_test)}


def write_npz(path, arrays):
    np.savez(path, **arrays)
    return str(path)


def keras_imdb_reference(arrays, num_words=None, skip_top=0, maxlen=None, seed=113,
                         start_char=1, oov_char=2, index_from=3):
    """Keras's documented processing, written out step by step for the test."""
    rng = np.random.RandomState(seed)
    out = []
    for split in ("train", "test"):
        order = np.arange(len(arrays[f"x_{split}"]))
        rng.shuffle(order)
        xs = [list(arrays[f"x_{split}"][i]) for i in order]
        ys = [arrays[f"y_{split}"][i] for i in order]
        xs = [([start_char] if start_char is not None else []) + [w + index_from for w in x]
              for x in xs]
        if maxlen:
            keep = [i for i, x in enumerate(xs) if len(x) < maxlen]
            xs, ys = [xs[i] for i in keep], [ys[i] for i in keep]
        out.append((xs, ys))
    top = num_words or max(max(x) for xs, _ in out for x in xs)
    result = []
    for xs, ys in out:
        if oov_char is None:
            xs = [[w for w in x if skip_top <= w < top] for x in xs]
        else:
            xs = [[w if skip_top <= w < top else oov_char for w in x] for x in xs]
        result.append((xs, ys))
    return result


@pytest.mark.parametrize("kwargs", [
    {},
    {"num_words": 20, "skip_top": 5},
    {"maxlen": 9, "seed": 3},
    {"start_char": None, "oov_char": None, "num_words": 25, "index_from": 0},
])
def test_imdb_processing_follows_keras(isolated, kwargs):
    arrays = imdb_arrays()
    path = write_npz(isolated / "imdb.npz", arrays)
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path, **kwargs)
    expected = keras_imdb_reference(arrays, **kwargs)
    assert x_train.dtype == object and x_train.ndim == 1
    assert [list(x) for x in x_train] == expected[0][0]
    assert y_train.tolist() == [int(v) for v in expected[0][1]]
    assert [list(x) for x in x_test] == expected[1][0]
    assert y_test.tolist() == [int(v) for v in expected[1][1]]


def test_imdb_file_name_is_looked_up_in_the_cache(isolated, monkeypatch):
    arrays = imdb_arrays(1)
    monkeypatch.setenv(_files.ENV_VAR, str(isolated / "data"))
    os.makedirs(isolated / "data" / "imdb")
    path = write_npz(isolated / "data" / "imdb" / "mine.npz", arrays)
    published_as(monkeypatch, imdb, "DATA", open(path, "rb").read())  # cached files are checked
    (x_train, _), _ = imdb.load_data(path="mine.npz")
    assert len(x_train) == 7
    with pytest.raises(ValueError, match=r"imdb\.load_data: no training review is shorter than "
                       r"maxlen=2; increase maxlen"):
        imdb.load_data(path="mine.npz", maxlen=2)


def test_a_tampered_cached_imdb_npz_is_named_or_downloaded_again(isolated, monkeypatch):
    published = io.BytesIO()
    np.savez(published, **imdb_arrays(3))
    data = published.getvalue()
    spec = published_as(monkeypatch, imdb, "DATA", data)
    cache = isolated / "home" / ".kerasish" / "datasets" / "imdb"
    cache.mkdir(parents=True)
    tampered = bytearray(data)
    tampered[len(data) // 2] ^= 1  # same size, other bytes
    (cache / "imdb.npz").write_bytes(bytes(tampered))
    actual = hashlib.sha256(tampered).hexdigest()
    cached = str(cache / "imdb.npz")
    with pytest.raises(CorruptFileError) as info:
        imdb.load_data(download=False)
    assert str(info.value) == (
        f"{cached}: a cached file that is not the published one (SHA-256 mismatch: expected "
        f"{spec.sha256}, got {actual}), and it was not downloaded again (download=False). "
        f"Delete it so that it is downloaded again, or pass path={cached!r} to use it as it is "
        "(a path you give is not checked)")
    with pytest.raises(CorruptFileError, match=r"not downloaded again \(the download failed: "
                       r".*network disabled in tests\)"):
        imdb.load_data()
    (cache / "imdb.npz").write_bytes(data[:-1])
    with pytest.raises(CorruptFileError, match=rf"it holds {len(data) - 1:,} bytes, the "
                       rf"published file {len(data):,}\), and it was not downloaded again "
                       r"\(\$KERASISH_OFFLINE is set\)"):
        monkeypatch.setenv(_files.OFFLINE_ENV_VAR, "1")
        imdb.load_data()
    monkeypatch.delenv(_files.OFFLINE_ENV_VAR)
    write_npz(cached, imdb_arrays(4, n_train=9))  # well-formed, but not the published file
    (x_train, _), _ = imdb.load_data(cached, download=False)  # a path given is used as it is
    assert len(x_train) == 9
    log = []
    serve(monkeypatch, {spec.url: data}, log)
    (x_train, _), _ = imdb.load_data()
    assert log == [spec.url] and (cache / "imdb.npz").read_bytes() == data
    assert len(x_train) == 7


def test_a_failed_download_leaves_no_empty_cache_folder(isolated, monkeypatch):
    for load in (imdb.load_data, boston_housing.load_data, cifar10.load_data):
        with pytest.raises(DatasetNotFoundError, match="network disabled in tests"):
            load()
    monkeypatch.setenv(_files.ENV_VAR, str(isolated / "data" / "sets"))
    with pytest.raises(DatasetNotFoundError, match="network disabled in tests"):
        imdb.get_word_index()
    assert sorted(os.listdir(isolated)) == []  # neither home/.kerasish/... nor data/sets/imdb
    (isolated / "data").mkdir()
    (isolated / "data" / "mine.txt").write_text("kept")
    with pytest.raises(DatasetNotFoundError, match="network disabled in tests"):
        imdb.load_data()
    assert os.listdir(isolated / "data") == ["mine.txt"]


def test_imdb_object_arrays_load_without_arbitrary_unpickling(isolated):
    marker = str(isolated / "ran")
    hostile = np.empty(2, dtype=object)
    hostile[0], hostile[1] = [1, 2], _Payload(marker)
    path = write_npz(isolated / "evil.npz", {"x_train": hostile, "y_train": np.zeros(2),
                                             "x_test": hostile, "y_test": np.zeros(2)})
    with pytest.raises(CorruptFileError, match=r"evil\.npz:x_(train|test)\.npy: refusing to "
                       r"unpickle (posix|os|nt)\.makedirs"):
        imdb.load_data(path)
    assert not os.path.exists(marker)
    arrays = imdb_arrays(2)
    del arrays["y_test"]
    with pytest.raises(CorruptFileError, match=r"lacks y_test \(Keras's imdb\.npz layout\)"):
        imdb.load_data(write_npz(isolated / "three.npz", arrays))


def test_imdb_word_index_download_checks_md5(isolated, monkeypatch):
    index = {"the": 1, "and": 2, "film": 19}
    data = json.dumps(index).encode()
    spec = published_as(monkeypatch, imdb, "WORD_INDEX", data, sha256=None,
                        md5=hashlib.md5(data).hexdigest())
    log = []
    serve(monkeypatch, {spec.url: data}, log)
    assert imdb.get_word_index() == index
    assert imdb.get_word_index() == index and log == [spec.url]
    os.remove(isolated / "home" / ".kerasish" / "datasets" / "imdb" / "imdb_word_index.json")
    serve(monkeypatch, {spec.url: data.replace(b"film", b"flim")}, [])
    with pytest.raises(DatasetNotFoundError, match="MD5 mismatch: expected " + spec.md5):
        imdb.get_word_index()


def test_imdb_offline_errors_say_which_file_goes_where(isolated):
    with pytest.raises(DatasetNotFoundError) as info:
        imdb.load_data(download=False)
    message = str(info.value)
    for expected in ("IMDB was not found", "path='imdb.npz': a file name, looked up in the "
                     "cache directories", "$KERASISH_DATA: not set",
                     "download: skipped (download=False)",
                     "download https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
                     "imdb.npz (17,464,789 bytes) and put it at ~/.kerasish/datasets/imdb/"
                     "imdb.npz, or pass path=<its path>"):
        assert expected in message, expected
    with pytest.raises(DatasetNotFoundError, match="network disabled in tests"):
        imdb.get_word_index()
    with pytest.raises(DatasetNotFoundError, match=r"IMDB: .*nowhere\.npz does not exist"):
        imdb.load_data(isolated / "nowhere.npz")


# ------------------------------------------------------------------ Boston housing


def boston_arrays(n=11, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.normal(size=(n, 13)), "y": rng.uniform(5, 50, n)}


def test_boston_housing_split_follows_keras(isolated):
    arrays = boston_arrays()
    path = write_npz(isolated / "boston.npz", arrays)
    (x_train, y_train), (x_test, y_test) = boston_housing.load_data(path, test_split=0.3, seed=5)
    order = np.arange(11)
    np.random.RandomState(5).shuffle(order)
    cut = int(11 * 0.7)
    np.testing.assert_array_equal(x_train, arrays["x"][order[:cut]])
    np.testing.assert_array_equal(y_test, arrays["y"][order[cut:]])
    assert x_test.shape == (11 - cut, 13) and y_train.shape == (cut,)
    with pytest.raises(ValueError, match=r"test_split must be in \[0, 1\), got 1\.0"):
        boston_housing.load_data(path, test_split=1.0)


def test_boston_housing_download_offline_and_damage(isolated, monkeypatch):
    buffer = io.BytesIO()
    np.savez(buffer, **boston_arrays(seed=1))
    data = buffer.getvalue()
    with pytest.raises(DatasetNotFoundError) as info:
        boston_housing.load_data()
    assert ("download https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
            "boston_housing.npz (57,026 bytes)") in str(info.value)
    spec = published_as(monkeypatch, boston_housing, "DATA", data)
    serve(monkeypatch, {spec.url: data}, [])
    (x_train, _), (x_test, _) = boston_housing.load_data()
    assert len(x_train) + len(x_test) == 11
    path = write_npz(isolated / "only_x.npz", {"x": np.zeros((3, 13))})
    with pytest.raises(CorruptFileError, match=r"only_x\.npz: lacks y"):
        boston_housing.load_data(path)
    (isolated / "junk.npz").write_bytes(b"junk")
    with pytest.raises(CorruptFileError, match=r"junk\.npz: not a readable \.npz archive"):
        boston_housing.load_data(str(isolated / "junk.npz"))


# ------------------------------------------------------------------ Keras 3 on the same files


def _keras_datasets(monkeypatch, path):
    """Keras's loaders, with their download step pointed at our file."""
    pytest.importorskip("keras")
    from keras.src.datasets import boston_housing as keras_boston
    from keras.src.datasets import imdb as keras_imdb

    for module in (keras_boston, keras_imdb):
        monkeypatch.setattr(module, "get_file", lambda *args, **kwargs: str(path))
    return keras_imdb, keras_boston


@pytest.mark.parametrize("kwargs", [{}, {"num_words": 15, "skip_top": 4, "maxlen": 10}])
def test_imdb_equals_keras_on_the_same_file(isolated, monkeypatch, kwargs):
    path = write_npz(isolated / "imdb.npz", imdb_arrays(5, 30, 20))
    keras_imdb, _ = _keras_datasets(monkeypatch, path)
    ours, theirs = imdb.load_data(path, **kwargs), keras_imdb.load_data(**kwargs)
    for (x, y), (kx, ky) in zip(ours, theirs):
        assert [list(r) for r in x] == [list(r) for r in kx]
        np.testing.assert_array_equal(y, ky)


def test_boston_housing_equals_keras_on_the_same_file(isolated, monkeypatch):
    path = write_npz(isolated / "boston.npz", boston_arrays(40, 3))
    _, keras_boston = _keras_datasets(monkeypatch, path)
    for ours, theirs in zip(boston_housing.load_data(path), keras_boston.load_data()):
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)


def test_cifar10_equals_keras_on_the_same_batches(isolated, monkeypatch):
    pytest.importorskip("keras")
    from keras.src.datasets import cifar10 as keras_cifar10

    files, _ = cifar_files(6)
    # Keras reads 10,000 images per training batch into a fixed array: give it full batches
    rng = np.random.default_rng(6)
    for name in list(files):
        files[name] = cifar_batch(rng, 10000)[0]
    root = isolated / "keras"
    (root / "cifar-10-batches-py").mkdir(parents=True)
    for name, data in files.items():
        (root / "cifar-10-batches-py" / name).write_bytes(data)
    monkeypatch.setattr(keras_cifar10, "get_file", lambda *args, **kwargs: str(root))
    for ours, theirs in zip(cifar10.load_data(root), keras_cifar10.load_data()):
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
