"""`Dataset.shuffle(seed=s)`: the order depends on `s` (and the pass number) only.

A training loop rebuilds its pipeline after restoring a checkpoint, usually after
other code has called `ks.random.set_seed`; the order must not change with that.
"""

import numpy as np
import pytest

import kerasish as ks
from kerasish.data import Dataset


def _order(dataset):
    return [int(v) for v in dataset]


def test_an_explicit_seed_ignores_the_global_seed_and_the_moment_of_building():
    ks.random.set_seed(1)
    built_first = Dataset.range(40).shuffle(40, seed=11)
    ks.random.set_seed(2)
    ks.random.normal([3])  # the global stream moves on
    built_later = Dataset.range(40).shuffle(40, seed=11)
    ks.random.set_seed(3)
    assert _order(built_first) == _order(built_later)
    assert _order(built_first) != list(range(40))


def test_the_kth_pass_is_a_function_of_the_seed_and_k():
    ks.random.set_seed(5)
    dataset = Dataset.range(30).shuffle(30, seed=4)
    passes = [_order(dataset) for _ in range(3)]
    ks.random.set_seed(6)
    again = Dataset.range(30).shuffle(30, seed=4)
    assert [_order(again) for _ in range(3)] == passes
    assert passes[0] != passes[1] != passes[2]


def test_a_small_buffer_and_an_element_pipeline_follow_the_same_rule():
    ks.random.set_seed(7)
    a = _order(Dataset.range(50).map(lambda t: t * 2).shuffle(8, seed=9))
    ks.random.set_seed(8)
    b = _order(Dataset.range(50).map(lambda t: t * 2).shuffle(8, seed=9))
    assert a == b


def test_seedless_shuffles_still_follow_the_global_seed():
    ks.random.set_seed(12)
    a = _order(Dataset.range(20).shuffle(20))
    ks.random.set_seed(12)
    assert _order(Dataset.range(20).shuffle(20)) == a


def test_integer_tensors_and_numpy_integers_are_seeds_too():
    expected = _order(Dataset.range(10).shuffle(10, seed=6))
    assert _order(Dataset.range(10).shuffle(10, seed=ks.constant(6))) == expected
    assert _order(Dataset.range(10).shuffle(10, seed=np.int64(6))) == expected


@pytest.mark.parametrize("seed", [-1, 2.5, "3", True])
def test_a_seed_that_is_not_a_non_negative_integer_is_refused(seed):
    with pytest.raises(ValueError, match=r"shuffle: seed must be a non-negative integer, got "):
        Dataset.range(3).shuffle(3, seed=seed)
