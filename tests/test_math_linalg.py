"""`ks.math` and `ks.linalg`: the TF2 spellings of the flat ops and the linear-algebra
compositions."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients


@pytest.mark.parametrize("name", ["reduce_mean", "reduce_sum", "log1p", "exp", "sigmoid",
                                  "softplus", "abs", "maximum", "squared_difference", "add_n"])
def test_math_names_are_the_flat_ops_themselves(name):
    assert getattr(ks.math, name) is (getattr(ks.nn, name, None) or getattr(ks, name))


def test_math_has_the_scan_and_segment_ops():
    from kerasish.core.ops import cumulative_ops, indexing_ops, nn_ops

    assert ks.math.cumsum is cumulative_ops.cumsum
    assert ks.math.reduce_prod is cumulative_ops.reduce_prod
    assert ks.math.unsorted_segment_sum is indexing_ops.unsorted_segment_sum
    assert ks.math.log_softmax is nn_ops.log_softmax
    np.testing.assert_array_equal(ks.math.cumsum([1, 2, 3]).numpy(), [1, 3, 6])


def test_math_reduce_mean_matches_numpy():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(ks.math.reduce_mean(x, axis=1).numpy(), x.mean(axis=1))


def test_linalg_matrix_transpose_diag_part_and_trace():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(ks.linalg.matrix_transpose(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(ks.linalg.diag_part(x).numpy(),
                                  np.diagonal(x, axis1=-2, axis2=-1))
    tall = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(ks.linalg.diag_part(tall).numpy(), np.diagonal(tall))
    np.testing.assert_array_equal(ks.linalg.trace(x).numpy(), np.trace(x, axis1=1, axis2=2))
    assert ks.linalg.matmul is ks.matmul and ks.linalg.norm is ks.norm


def test_linalg_compositions_have_second_order_gradients():
    rng = np.random.default_rng(3)
    check_gradients(lambda x: ks.linalg.trace(x * x), [rng.standard_normal((2, 3, 3))], order=2)
    weights = rng.standard_normal((2, 4, 3))
    check_gradients(lambda x: ks.square(ks.linalg.matrix_transpose(x)) * weights,
                    [rng.standard_normal((2, 3, 4))], order=2)


def test_linalg_rejects_vectors_naming_the_shape():
    with pytest.raises(ks.InvalidArgumentError, match=r"linalg.diag_part: .*got shape \(3,\)"):
        ks.linalg.diag_part(ks.zeros([3]))
