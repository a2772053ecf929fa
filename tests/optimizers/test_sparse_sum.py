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


@pytest.fixture(params=["numba", "numpy"])
def scatter_form(request, monkeypatch):
    """backend.scatter_add with its compiled loop (numba, where installed) or without."""
    if request.param == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(backend, "_numba_module", None)  # (loaded again on first use)
    else:
        monkeypatch.setattr(backend, "_numba_module", False)
    return request.param


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6,), (2, 3), ()])
def test_scatter_add_of_rows_adds_every_repeat_scaled(scatter_form, dtype, shape):
    rng = np.random.default_rng(len(shape))
    ids = np.concatenate([_zipf_ids(rng, 300, 40), [-1, -40]])  # (negatives: from the end)
    values = rng.standard_normal((302,) + shape).astype(dtype)
    expected = rng.standard_normal((40,) + shape)
    target = expected.astype(dtype)
    np.add.at(expected, ids, -0.3 * values.astype(np.float64))
    backend.scatter_add(target, ids, values, -0.3)
    assert backend.numba_kernels() is (None if scatter_form == "numpy" else
                                        backend._numba_module)
    np.testing.assert_allclose(target, expected, rtol=1e-5, atol=1e-5)


def test_scatter_add_of_rows_refuses_an_index_past_the_end(scatter_form):
    target = np.zeros((4, 2), np.float32)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        backend.scatter_add(target, np.array([1, 4, 2] * 30), np.ones((90, 2), np.float32))
    if scatter_form == "numba":  # (the compiled loop checks every index before adding any)
        assert not target.any()


@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_sgd_sparse_update_equals_the_dense_one(scatter_form, momentum):
    # without momentum SGD adds each repeated row (no sum first); with it, rows are summed
    # and the velocity of the touched rows is updated
    rng = np.random.default_rng(4)
    ids = _zipf_ids(rng, 500, 60)
    values = rng.standard_normal((500, 3)).astype(np.float32)
    dense = np.zeros((60, 3), np.float32)
    np.add.at(dense, ids, values)
    sparse_var, dense_var = (ks.Variable(np.ones((60, 3), np.float32)) for _ in range(2))
    sparse_opt, dense_opt = ks.optimizers.SGD(0.1, momentum), ks.optimizers.SGD(0.1, momentum)
    for _ in range(2):
        sparse_opt.apply_gradients([(ks.IndexedSlices(ks.constant(values), ids, (60, 3)),
                                     sparse_var)])
        dense_opt.apply_gradients([(ks.constant(dense), dense_var)])
    np.testing.assert_allclose(sparse_var.numpy(), dense_var.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", [-1, 6])
def test_sgd_refuses_a_sparse_index_outside_the_variable_and_changes_nothing(scatter_form, bad):
    var = ks.Variable(np.zeros((6, 2), np.float32), name="emb")
    grad = ks.IndexedSlices(ks.constant(np.ones((3, 2), np.float32)), np.array([1, bad, 1]),
                            (6, 2))
    with pytest.raises(ks.InvalidArgumentError,
                       match=rf"SGD: the sparse gradient for variable 'emb' has index {bad}, "
                             r"which is not in \[0, 6\)"):
        ks.optimizers.SGD(0.1).apply_gradients([(grad, var)])
    assert not var.numpy().any()


def test_sgd_applies_repeated_sparse_rows_summed():
    var = ks.Variable(np.zeros((6, 2), np.float32))
    ids = np.array([1, 3, 1, 1, 5, 3] * 20)
    values = np.ones((len(ids), 2), np.float32)
    grad = ks.IndexedSlices(ks.constant(values), ids, (6, 2))
    ks.optimizers.SGD(0.5).apply_gradients([(grad, var)])
    np.testing.assert_allclose(var.numpy()[:, 0], [0, -30, 0, -20, 0, -10])


def test_row_groups_are_reused_for_rows_and_scalars_with_the_same_indices():
    rng = np.random.default_rng(2)
    ids = _zipf_ids(rng, 300, 40)
    rows = rng.standard_normal((300, 5)).astype(np.float32)
    scalars = rng.standard_normal(300).astype(np.float32)
    groups = backend.RowGroups(ids)
    for values in (rows, scalars):
        unique, sums = backend.unique_sum_rows(ids, values, groups)
        expected_unique, expected = backend.unique_sum_rows(ids, values)
        np.testing.assert_array_equal(unique, expected_unique)
        np.testing.assert_array_equal(sums, expected)


@pytest.mark.cpu
def test_sgd_sparse_gradients_sharing_indices_match_separate_ones():
    # nce_loss's weights and biases get gradients keyed by one index array; the optimizer
    # sorts it once for both, with the same result as for two separate arrays
    rng = np.random.default_rng(3)
    ids = _zipf_ids(rng, 200, 30)
    dw = rng.standard_normal((200, 4)).astype(np.float32)
    db = rng.standard_normal(200).astype(np.float32)
    shared = [ks.Variable(np.ones((30, 4), np.float32)), ks.Variable(np.ones(30, np.float32))]
    apart = [ks.Variable(np.ones((30, 4), np.float32)), ks.Variable(np.ones(30, np.float32))]
    ks.optimizers.SGD(0.1).apply_gradients([
        (ks.IndexedSlices(ks.constant(dw), ids, (30, 4)), shared[0]),
        (ks.IndexedSlices(ks.constant(db), ids, (30,)), shared[1])])
    ks.optimizers.SGD(0.1).apply_gradients([
        (ks.IndexedSlices(ks.constant(dw), ids.copy(), (30, 4)), apart[0]),
        (ks.IndexedSlices(ks.constant(db), ids.copy(), (30,)), apart[1])])
    expected_w = np.ones((30, 4))
    np.add.at(expected_w, ids, -0.1 * dw.astype(np.float64))
    np.testing.assert_allclose(shared[0].numpy(), expected_w, rtol=1e-5, atol=1e-5)
    for a, b in zip(shared, apart):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("width", [8, 5])
def test_few_repeats_path_is_exact_for_each_float_type_and_width(dtype, width):
    # the small-batch path adds pairs of floats as one complex number where it can
    # (float32/float64, even widths): the sums must be bit-identical to adding floats,
    # infinities and NaNs included
    rng = np.random.default_rng(width)
    ids = np.repeat(rng.integers(0, 50, 64), 2)
    values = rng.standard_normal((128, width)).astype(dtype)
    values[5, 1], values[9, 0] = np.inf, np.nan
    unique, sums = backend.unique_sum_rows(ids, values)
    expected = np.zeros((50, width), dtype)
    for i in backend.RowGroups(ids).order:  # the same order of addition, row by row
        expected[ids[i]] += values[i]
    np.testing.assert_array_equal(sums, expected[unique])
