"""mnist / fashion_mnist loaders: every lookup path, downloads (served from memory), damaged files.

Nothing here touches the network: downloads go through a replaced
`_files.urlopen`, or through a local HTTP server on 127.0.0.1.
"""

import dataclasses
import functools
import gzip
import hashlib
import http.server
import io
import os
import threading
import urllib.error

import numpy as np
import pytest

from kerasish.datasets import (
    CorruptFileError,
    DatasetNotFoundError,
    _files,
    fashion_mnist,
    mnist,
    read_idx,
    write_idx,
)

STEMS = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)


def small_arrays(seed=0, n_train=6, n_test=4):
    rng = np.random.default_rng(seed)
    return {
        "train-images-idx3-ubyte": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte": rng.integers(0, 10, n_train, dtype=np.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, n_test, dtype=np.uint8),
    }


def write_dataset(directory, arrays, gz=True):
    os.makedirs(directory, exist_ok=True)
    for stem, array in arrays.items():
        write_idx(os.path.join(directory, stem + (".gz" if gz else "")), array)
    return str(directory)


def check_loaded(result, arrays):
    (x_train, y_train), (x_test, y_test) = result
    for got, stem in zip((x_train, y_train, x_test, y_test), STEMS, strict=False):
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, arrays[stem])


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No KERASISH_DATA, a fresh HOME, no Debian directory, and no real network."""
    monkeypatch.delenv(_files.ENV_VAR, raising=False)
    monkeypatch.delenv(_files.OFFLINE_ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(fashion_mnist, "DEBIAN_DIR", str(tmp_path / "no-debian"))

    def no_network(url, timeout=None):
        raise urllib.error.URLError("network disabled in tests")

    monkeypatch.setattr(_files, "urlopen", no_network)
    return tmp_path


# ------------------------------------------------------------------ local lookup


@pytest.mark.parametrize("gz", [True, False])
def test_explicit_path_with_plain_or_gzipped_files(isolated, gz):
    arrays = small_arrays()
    directory = write_dataset(isolated / "data", arrays, gz=gz)
    check_loaded(mnist.load_data(path=directory), arrays)
    check_loaded(fashion_mnist.load_data(path=directory), arrays)
    assert mnist.locate(directory).origin == "path"


def test_explicit_path_missing_a_file_names_it(isolated):
    arrays = small_arrays()
    directory = write_dataset(isolated / "data", arrays)
    os.remove(os.path.join(directory, "t10k-labels-idx1-ubyte.gz"))
    with pytest.raises(DatasetNotFoundError, match="t10k-labels-idx1-ubyte"):
        mnist.load_data(path=directory)
    with pytest.raises(DatasetNotFoundError, match="not a directory"):
        mnist.load_data(path=isolated / "nowhere")


def test_keras_npz_file(isolated):
    arrays = small_arrays()
    path = isolated / "mnist.npz"
    np.savez(
        path,
        x_train=arrays[STEMS[0]],
        y_train=arrays[STEMS[1]],
        x_test=arrays[STEMS[2]],
        y_test=arrays[STEMS[3]],
    )
    check_loaded(mnist.load_data(path=path), arrays)


def test_kerasish_data_environment_variable(isolated, monkeypatch):
    arrays = small_arrays(1)
    root = isolated / "shared-data"
    write_dataset(root / "mnist", arrays)
    write_dataset(root / "fashion_mnist", small_arrays(2))
    as_published(monkeypatch, mnist, root / "mnist")
    as_published(monkeypatch, fashion_mnist, root / "fashion_mnist")
    monkeypatch.setenv(_files.ENV_VAR, str(root))
    check_loaded(mnist.load_data(), arrays)
    assert mnist.locate().origin == "cache"
    check_loaded(fashion_mnist.load_data(), small_arrays(2))


def test_home_cache_directory(isolated):
    arrays = small_arrays(3)
    write_dataset(isolated / "home" / ".kerasish" / "datasets" / "mnist", arrays, gz=False)
    check_loaded(mnist.load_data(), arrays)


def test_debian_directory_for_fashion_mnist_only(isolated, monkeypatch):
    arrays = small_arrays(4)
    debian = write_dataset(
        isolated / "debian" / "fashion-mnist", arrays
    )  # gzipped, like the package
    monkeypatch.setattr(fashion_mnist, "DEBIAN_DIR", debian)
    check_loaded(fashion_mnist.load_data(), arrays)
    assert fashion_mnist.locate().origin == "system"
    with pytest.raises(DatasetNotFoundError):
        mnist.load_data()  # MNIST never picks up Fashion-MNIST files


def test_cache_takes_precedence_over_debian(isolated, monkeypatch):
    monkeypatch.setattr(
        fashion_mnist, "DEBIAN_DIR", write_dataset(isolated / "deb", small_arrays(5))
    )
    cached = small_arrays(6)
    write_dataset(isolated / "home" / ".kerasish" / "datasets" / "fashion_mnist", cached)
    as_published(monkeypatch, fashion_mnist,
                 isolated / "home" / ".kerasish" / "datasets" / "fashion_mnist")
    check_loaded(fashion_mnist.load_data(), cached)


# ------------------------------------------------------------------ downloads


class FakeResponse(io.BytesIO):
    def __init__(self, data, announce=None):
        super().__init__(data)
        self.headers = {"Content-Length": str(len(data) if announce is None else announce)}


def gz_bytes(array):
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as f:
        header = bytes([0, 0, 8, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
        f.write(header + array.tobytes())
    return buffer.getvalue()


def served(arrays):
    return {stem + ".gz": gz_bytes(array) for stem, array in arrays.items()}


def with_archives(monkeypatch, module, files, mirrors=("http://mirror-a/", "http://mirror-b/")):
    archives = {name: (len(data), hashlib.sha256(data).hexdigest()) for name, data in files.items()}
    monkeypatch.setattr(
        module, "SPEC", dataclasses.replace(module.SPEC, archives=archives, mirrors=mirrors)
    )


def as_published(monkeypatch, module, directory):
    """Record the archives in `directory` as the published ones (cached archives are checked)."""
    with_archives(monkeypatch, module, {name: open(os.path.join(directory, name), "rb").read()
                                        for name in os.listdir(directory)})


def fake_opener(routes, log):
    def urlopen(url, timeout=None):
        log.append(url)
        assert timeout is not None and timeout <= 60
        if url not in routes:
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        data = routes[url]
        return data() if callable(data) else FakeResponse(data)

    return urlopen


def test_download_into_the_cache_then_reuse_it(isolated, monkeypatch):
    arrays = small_arrays(7)
    files = served(arrays)
    with_archives(monkeypatch, mnist, files)
    monkeypatch.setenv(_files.ENV_VAR, str(isolated / "cache"))
    log = []
    monkeypatch.setattr(
        _files, "urlopen", fake_opener({"http://mirror-a/" + k: v for k, v in files.items()}, log)
    )
    check_loaded(mnist.load_data(), arrays)
    assert len(log) == 4
    target = isolated / "cache" / "mnist"
    assert sorted(os.listdir(target)) == sorted(files)  # no partial files left behind
    assert mnist.locate().origin == "cache"
    check_loaded(mnist.load_data(), arrays)
    assert len(log) == 4  # the second load did not download again


def test_a_tampered_cached_archive_is_downloaded_again_or_named(isolated, monkeypatch):
    arrays = small_arrays(11)
    files = served(arrays)
    with_archives(monkeypatch, mnist, files)
    cache = isolated / "home" / ".kerasish" / "datasets" / "mnist"
    cache.mkdir(parents=True)
    for name, data in files.items():
        (cache / name).write_bytes(data)
    other = small_arrays(12)[STEMS[1]]
    (cache / "train-labels-idx1-ubyte.gz").write_bytes(gz_bytes(other))  # a readable stand-in
    actual = hashlib.sha256(gz_bytes(other)).hexdigest()
    expected = files_sha(files, "train-labels-idx1-ubyte.gz")
    with pytest.raises(CorruptFileError) as info:
        mnist.load_data(download=False)
    assert str(info.value) == (
        f"{cache / 'train-labels-idx1-ubyte.gz'}: a cached file that is not the published one "
        f"(SHA-256 mismatch: expected {expected}, got {actual}), and it was not downloaded "
        f"again (download=False). Delete it so that it is downloaded again, or pass "
        f"path={str(cache)!r} to use it as it is (a path you give is not checked)")
    with pytest.raises(CorruptFileError, match=r"the download failed: http://mirror-a/train-"
                       r"labels-idx1-ubyte\.gz: cannot connect \(network disabled in tests\)"):
        mnist.load_data()
    np.testing.assert_array_equal(mnist.load_data(path=cache)[0][1], other)  # as it is
    log = []
    routes = {"http://mirror-a/" + name: data for name, data in files.items()}
    monkeypatch.setattr(_files, "urlopen", fake_opener(routes, log))
    check_loaded(mnist.load_data(), arrays)
    assert log == ["http://mirror-a/train-labels-idx1-ubyte.gz"]  # only the tampered one


def test_a_checksum_failure_falls_back_to_the_next_mirror(isolated, monkeypatch):
    arrays = small_arrays(8)
    files = served(arrays)
    with_archives(monkeypatch, mnist, files)
    routes = {}
    for name, data in files.items():
        routes["http://mirror-a/" + name] = data[:-1] + bytes(
            [data[-1] ^ 0xFF]
        )  # same size, bad bytes
        routes["http://mirror-b/" + name] = data
    log = []
    monkeypatch.setattr(_files, "urlopen", fake_opener(routes, log))
    check_loaded(mnist.load_data(), arrays)
    assert len(log) == 8


def test_checksum_failure_everywhere_is_reported_and_nothing_is_kept(isolated, monkeypatch):
    files = served(small_arrays(9))
    with_archives(monkeypatch, mnist, files, mirrors=("http://mirror-a/",))
    corrupt = {"http://mirror-a/" + k: v[:-1] + bytes([v[-1] ^ 1]) for k, v in files.items()}
    monkeypatch.setattr(_files, "urlopen", fake_opener(corrupt, []))
    with pytest.raises(DatasetNotFoundError, match="SHA-256 mismatch") as info:
        mnist.load_data()
    assert files_sha(files, "train-images-idx3-ubyte.gz") in str(info.value)
    assert not os.path.exists(isolated / "home" / ".kerasish" / "datasets" / "mnist")


def files_sha(files, name):
    return hashlib.sha256(files[name]).hexdigest()


def test_size_failures_truncated_transfer_and_wrong_announced_length(isolated, monkeypatch):
    files = served(small_arrays(10))
    with_archives(monkeypatch, mnist, files, mirrors=("http://mirror-a/", "http://mirror-b/"))
    name = "train-images-idx3-ubyte.gz"
    routes = {
        "http://mirror-a/" + name: lambda: FakeResponse(files[name][:100], announce=100),
        "http://mirror-b/" + name: lambda: FakeResponse(
            files[name][:100], announce=len(files[name])
        ),
    }
    monkeypatch.setattr(_files, "urlopen", fake_opener(routes, []))
    with pytest.raises(DatasetNotFoundError) as info:
        mnist.load_data()
    message = str(info.value)
    assert f"announces 100 bytes, expected {len(files[name])}" in message
    assert f"received 100 bytes, expected {len(files[name])}" in message
    cache = isolated / "home" / ".kerasish" / "datasets" / "mnist"
    assert not cache.exists() or not os.listdir(cache)


def test_offline_error_lists_every_place_and_the_fix(isolated):
    with pytest.raises(DatasetNotFoundError) as info:
        mnist.load_data()
    message = str(info.value)
    for expected in (
        "path argument: not given",
        "$KERASISH_DATA: not set",
        "~/.kerasish/datasets/mnist",
        "storage.googleapis.com",
        "network disabled in tests",
        "--data-dir",
    ):
        assert expected in message, expected
    with pytest.raises(DatasetNotFoundError) as info:
        fashion_mnist.load_data()
    message = str(info.value)
    assert "apt-get install dataset-fashion-mnist" in message
    assert str(isolated / "no-debian") in message
    assert "fashion-mnist.s3-website.eu-central-1.amazonaws.com" in message
    assert isinstance(info.value, FileNotFoundError)


def test_offline_switches_skip_the_download(isolated, monkeypatch):
    log = []
    monkeypatch.setattr(_files, "urlopen", fake_opener({}, log))
    with pytest.raises(DatasetNotFoundError, match="download=False"):
        mnist.load_data(download=False)
    monkeypatch.setenv(_files.OFFLINE_ENV_VAR, "1")
    with pytest.raises(DatasetNotFoundError, match="KERASISH_OFFLINE"):
        mnist.load_data()
    assert log == []


def test_download_through_urllib_from_a_local_http_server(isolated, monkeypatch):
    arrays = small_arrays(11)
    files = served(arrays)
    root = isolated / "www"
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with_archives(monkeypatch, fashion_mnist, files, mirrors=(base + "missing/", base))
        monkeypatch.setattr(_files, "urlopen", urllib.request.urlopen)
        check_loaded(fashion_mnist.load_data(), arrays)
        assert fashion_mnist.locate().origin == "cache"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# ------------------------------------------------------------------ damaged files


def test_corrupt_and_truncated_idx_files_are_named(isolated):
    arrays = small_arrays(12)
    directory = isolated / "bad"
    path = lambda stem: os.path.join(write_dataset(directory, arrays, gz=False), stem)  # noqa: E731

    images = path("train-images-idx3-ubyte")
    data = open(images, "rb").read()
    open(images, "wb").write(data[:-10])
    with pytest.raises(CorruptFileError, match="train-images-idx3-ubyte: truncated: .*6, 28, 28"):
        mnist.load_data(path=directory)

    open(path("train-images-idx3-ubyte"), "wb").write(data + b"xyz")
    with pytest.raises(CorruptFileError, match="3 unexpected bytes"):
        mnist.load_data(path=directory)

    open(path("train-images-idx3-ubyte"), "wb").write(b"\x89PNG\r\n\x1a\n" + data)
    with pytest.raises(CorruptFileError, match="not an IDX file: bad magic number 0x89504e47"):
        mnist.load_data(path=directory)

    open(path("train-images-idx3-ubyte"), "wb").write(data[:10])
    with pytest.raises(CorruptFileError, match="truncated inside the header"):
        mnist.load_data(path=directory)

    labels = open(path("train-labels-idx1-ubyte"), "rb").read()
    open(path("train-images-idx3-ubyte"), "wb").write(labels)  # the wrong file
    with pytest.raises(
        CorruptFileError, match=r"0x00000801 \(labels\), expected 0x00000803 \(images\)"
    ):
        mnist.load_data(path=directory)


def test_truncated_gzip_and_count_mismatch(isolated):
    arrays = small_arrays(13)
    directory = write_dataset(isolated / "gz", arrays)
    archive = os.path.join(directory, "t10k-images-idx3-ubyte.gz")
    data = open(archive, "rb").read()
    open(archive, "wb").write(data[: len(data) // 2])
    with pytest.raises(CorruptFileError, match="t10k-images-idx3-ubyte.gz"):
        mnist.load_data(path=directory)

    arrays = small_arrays(14)
    arrays["train-labels-idx1-ubyte"] = arrays["train-labels-idx1-ubyte"][:-1]
    directory = write_dataset(isolated / "mismatch", arrays)
    with pytest.raises(CorruptFileError, match="6 images but .* 5 labels"):
        mnist.load_data(path=directory)


def test_read_idx_other_types_round_trip(tmp_path):
    for dtype in ("int16", "int32", "float32", "float64", "int8"):
        array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
        write_idx(tmp_path / f"a-{dtype}.gz", array)
        got = read_idx(tmp_path / f"a-{dtype}.gz")
        assert got.dtype == np.dtype(dtype) and got.dtype.isnative
        np.testing.assert_array_equal(got, array)


@pytest.mark.skipif(
    not os.path.isdir("/usr/share/datasets/fashion-mnist"),
    reason="Debian's dataset-fashion-mnist is not installed",
)
def test_the_real_debian_package_when_installed(monkeypatch, tmp_path):
    monkeypatch.delenv(_files.ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    location = fashion_mnist.locate(download=False)
    assert location.origin == "system"
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data(download=False)
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert y_train[:5].tolist() == [9, 0, 0, 3, 0]
