"""backend.unique_sum_rows / scatter_add (the sparse-gradient reduction) against numpy.add.at."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend


def _zipf_ids(rng, n, vocab):
    return np.minimum(rng.zipf(1.3, n) - 1, vocab - 1)


@pytest.mark.parametrize("vocab,n,shape", [
    (10, 1000, (7,)), (5000, 6000, (3,)), (5, 3, (2,)), (1000, 100, (2, 3)), (1, 400, (4,)),
    (3, 2, ()), (200, 20000, (16,)),  # the last has too many repeats for the flat add.at path
])
@pytest.mark.parametrize("kind", ["uniform", "zipf"])
def test_unique_sum_rows_matches_add_at(vocab, n, shape, kind):
    rng = np.random.default_rng(vocab + n)
    ids = rng.integers(0, vocab, n) if kind == "uniform" else _zipf_ids(rng, n, vocab)
    values = rng.standard_normal((n,) + shape).astype(np.float32)
    expected = np.zeros((vocab,) + shape)
    np.add.at(expected, ids, values.astype(np.float64))
    unique, sums = backend.unique_sum_rows(ids, values)
    np.testing.assert_array_equal(unique, np.unique(ids))
    assert sums.dtype == np.float32
    np.testing.assert_allclose(sums, expected[unique], rtol=1e-4, atol=1e-4)


def test_unique_sum_rows_is_deterministic_and_handles_empty():
    rng = np.random.default_rng(0)
    ids = _zipf_ids(rng, 5000, 300)
    values = rng.standard_normal((5000, 8)).astype(np.float32)
    a = backend.unique_sum_rows(ids, values)[1]
    b = backend.unique_sum_rows(ids.copy(), values.copy())[1]
    np.testing.assert_array_equal(a, b)
    unique, sums = backend.unique_sum_rows(np.zeros(0, np.int64), np.zeros((0, 8), np.float32))
    assert unique.shape == (0,) and sums.shape == (0, 8)


def test_scatter_add_rows_fast_path_with_negative_indices():
    rng = np.random.default_rng(1)
    ids = rng.integers(-50, 50, 3000)
    values = rng.standard_normal((3000, 4)).astype(np.float32)
    expected = np.zeros((50, 4), np.float32)
    np.add.at(expected, ids, values)
    out = np.zeros((50, 4), np.float32)
    backend.scatter_add(out, ids, values)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_sgd_applies_repeated_sparse_rows_summed():
    var = ks.Variable(np.zeros((6, 2), np.float32))
    ids = np.array([1, 3, 1, 1, 5, 3] * 20)
    values = np.ones((len(ids), 2), np.float32)
    grad = ks.IndexedSlices(ks.constant(values), ids, (6, 2))
    ks.optimizers.SGD(0.5).apply_gradients([(grad, var)])
    np.testing.assert_allclose(var.numpy()[:, 0], [0, -30, 0, -20, 0, -10])
