"""The `ops.core`/`ops.math` names kerasish adds (issue 20) against Keras 3 (numpy backend):
the Fourier ops, `stft`/`istft`, framing, segments, `associative_scan`, `rearrange`,
`saturate_cast`, `erfinv`, `cdist`.

Skipped without keras; run with the interop venv's python (KERAS_BACKEND=numpy).
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

from kerasish import ops  # noqa: E402

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 50)).astype(np.float32)


def _close(got, want, atol=1e-5):
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            _close(g, w, atol)
        return
    got = ops.convert_to_numpy(got)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, np.asarray(want), atol=atol)


@pytest.mark.parametrize("name", ["fft", "fft2", "ifft2"])
def test_complex_transforms(name):
    pair = (X.reshape(2, 5, 10), X[::-1].reshape(2, 5, 10).copy())
    _close(getattr(ops, name)(pair), getattr(keras.ops, name)(pair))


@pytest.mark.parametrize("n", [None, 16, 33])
def test_rfft_irfft(n):
    spectrum = keras.ops.rfft(X, n)
    _close(ops.rfft(X, n), spectrum)
    _close(ops.irfft(spectrum, n), keras.ops.irfft(spectrum, n))


@pytest.mark.parametrize("sizes", [(16, 4, 16, "hann", True), (10, 3, 16, "hamming", True),
                                   (8, 8, 8, None, False), (10, 3, 15, "hann", True),
                                   (12, 5, 16, "array", False)])
def test_stft_istft(sizes):
    length, stride, n, window, center = sizes
    if window == "array":
        window = np.linspace(0.1, 1.0, length).astype(np.float32)
    want = keras.ops.stft(X, length, stride, n, window=window, center=center)
    _close(ops.stft(X, length, stride, n, window=window, center=center), want)
    for out in (None, 30):
        _close(ops.istft(want, length, stride, n, length=out, window=window, center=center),
               keras.ops.istft(want, length, stride, n, length=out, window=window,
                               center=center))


def test_extract_sequences_segments_scan():
    _close(ops.extract_sequences(X, 7, 3), keras.ops.extract_sequences(X, 7, 3))
    data, ids = RNG.standard_normal((6, 3)).astype(np.float32), np.array([0, 2, 0, 2, 1, 2])
    for name in ("segment_min", "segment_prod", "segment_sum", "segment_max"):
        _close(getattr(ops, name)(data, ids, 3, sorted=False),
               getattr(keras.ops, name)(data, ids, 3, sorted=False))
    for reverse in (False, True):
        want = keras.ops.associative_scan(lambda a, b: a * b + b, data, reverse=reverse, axis=1)
        _close(ops.associative_scan(lambda a, b: a * b + b, data, reverse=reverse, axis=1),
               np.asarray(want, np.float32), atol=1e-4)  # (Keras's numpy gives float64)


@pytest.mark.parametrize("pattern, lengths", [
    ("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2})])
def test_rearrange(pattern, lengths):
    images = RNG.random((3, 4, 6, 2)).astype(np.float32)
    _close(ops.rearrange(images, pattern, **lengths),
           keras.ops.rearrange(images, pattern, **lengths))


def test_saturate_cast_erfinv_cdist_dtype():
    values = np.array([-5.0, 1.5, 300.0, 7e9, -np.inf], np.float32)
    for dtype in ("uint8", "int8", "float16"):  # (Keras's numpy backend wraps 7e9 to int32)
        _close(ops.saturate_cast(values, dtype), keras.ops.saturate_cast(values, dtype))
    grid = np.linspace(-0.99, 0.99, 9).astype(np.float32)
    _close(ops.erfinv(grid), keras.ops.erfinv(grid))
    _close(ops.erfc(grid), keras.ops.erfc(grid))
    a, b = X[:, :6].reshape(3, 4), X[:, 6:14].reshape(4, 4)
    _close(ops.cdist(a, b), keras.ops.cdist(a, b))
    assert ops.dtype(ops.ones(2)) == keras.ops.dtype(keras.ops.ones(2))
    _close(ops.view_as_real(ops.view_as_complex(a[:, :2])),
           keras.ops.view_as_real(keras.ops.view_as_complex(a[:, :2])))
