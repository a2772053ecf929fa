"""`ks.debugging`: the assertions' messages and `check_numerics`."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks


def test_assertions_pass_silently():
    ks.debugging.assert_equal(ks.constant([1, 2]), [1, 2])
    ks.debugging.assert_less(ks.constant([1.0, 2.0]), 3.0)
    ks.debugging.assert_greater_equal(ks.constant([3, 2]), 2)
    ks.debugging.assert_near(ks.constant([1.0]), [1.0 + 1e-6])


def test_assert_equal_names_the_first_difference_and_the_count():
    x = ks.constant([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"^labels: assert_equal: x == y fails at 2 of 6 elements; "
                             r"first at index \(0, 1\): x = 2, y = 0$"):
        ks.debugging.assert_equal(x, [[1, 0, 3], [4, 5, 0]], message="labels")


def test_assert_less_and_near_messages():
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_less: x < y fails at 1 of 3 elements; "
                             r"first at index \(2,\): x = 3.0, y = 3.0"):
        ks.debugging.assert_less(ks.constant([1.0, 2.0, 3.0]), 3.0)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_near: \|x - y\| <= atol \+ rtol \* \|y\| fails at 1 of 2 "
                             r"elements; first at index \(1,\): x = 2.0, y = 2.5 "
                             r"\(atol=0.1, rtol=0\)"):
        ks.debugging.assert_near([1.0, 2.0], [1.0, 2.5], atol=0.1, rtol=0.0)


def test_assert_near_default_tolerance_follows_the_dtype():
    ks.debugging.assert_near(np.float64(1.0), np.float64(1.0 + 1e-15))
    with pytest.raises(ks.InvalidArgumentError, match="assert_near"):
        ks.debugging.assert_near(np.float64(1.0), np.float64(1.0 + 1e-9))


def test_assertions_report_shapes_that_do_not_broadcast():
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_equal: x has shape \(2,\) and y has shape \(3,\)"):
        ks.debugging.assert_equal([1, 2], [1, 2, 3])


def test_check_numerics_returns_its_input_and_keeps_the_gradient():
    x = ks.Variable([1.0, 2.0])
    with ks.GradientTape() as tape:
        y = ks.debugging.check_numerics(x * x, "square")
        loss = ks.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [2.0, 4.0])
    ints = ks.constant([1, 2])
    assert ks.debugging.check_numerics(ints, "ints") is ints


def test_check_numerics_counts_nan_and_inf_and_names_the_first():
    x = ks.constant([[0.0, 1.0], [np.nan, -np.inf]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"^logits: check_numerics found 1 NaN and 1 infinite of 4 values; "
                             r"first at index \(1, 0\) = nan$"):
        ks.debugging.check_numerics(x, "logits")
