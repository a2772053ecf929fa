"""ks.random.Generator: a host generator whose state a checkpoint saves and restores."""

import numpy as np
import pytest

import kerasish as ks


@pytest.fixture
def keep_global_generator():
    previous = ks.random.get_global_generator()
    yield
    ks.random.set_global_generator(previous)


@pytest.mark.cpu
def test_set_seed_streams_are_numpys_default_rng_streams():
    # the global generator is NumPy's default_rng(seed): the numbers seen before it existed
    ks.random.set_seed(5)
    got = ks.random.uniform([4], dtype=ks.float64).numpy()
    np.testing.assert_array_equal(got, np.random.default_rng(5).random(4))
    ks.random.set_seed(5)
    np.testing.assert_array_equal(ks.random.uniform([4], dtype=ks.float64).numpy(), got)


@pytest.mark.cpu
def test_set_seed_resets_the_global_generator_in_place():
    g = ks.random.get_global_generator()
    ks.random.set_seed(11)
    first = ks.random.normal([3]).numpy()
    ks.random.set_seed(11)
    assert ks.random.get_global_generator() is g
    np.testing.assert_array_equal(g.normal([3]).numpy(), first)


def test_a_checkpoint_restores_the_stream_exactly(tmp_path):
    g = ks.random.Generator.from_seed(3)
    g.uniform([7])  # some draws before the save
    ckpt = ks.Checkpoint(rng=g)
    path = ckpt.write(str(tmp_path / "rng"))
    after_save = [g.uniform([5]).numpy(), g.normal([2, 3]).numpy(), g.truncated_normal([4]).numpy()]
    ckpt.read(path).assert_consumed()
    again = [g.uniform([5]).numpy(), g.normal([2, 3]).numpy(), g.truncated_normal([4]).numpy()]
    for a, b in zip(after_save, again):
        np.testing.assert_array_equal(a, b)
    # a generator seeded differently takes over the saved stream when restored
    other = ks.random.Generator.from_seed(99)
    ks.Checkpoint(rng=other).read(path).assert_consumed()
    np.testing.assert_array_equal(other.uniform([5]).numpy(), after_save[0])


def test_the_global_generator_in_a_checkpoint_resumes_the_candidate_sampler(tmp_path):
    ks.random.set_seed(1)
    ckpt = ks.Checkpoint(rng=ks.random.get_global_generator())
    labels = [[3], [9], [4]]
    ks.random.log_uniform_candidate_sampler(labels, 1, 8, True, 100)
    path = ckpt.write(str(tmp_path / "rng"))
    expected = [ks.random.log_uniform_candidate_sampler(labels, 1, 8, True, 100)[0].numpy()
                for _ in range(3)]
    ks.random.set_seed(2)  # a different stream, as a fresh process would have
    ckpt.read(path)
    for want in expected:
        got = ks.random.log_uniform_candidate_sampler(labels, 1, 8, True, 100)[0].numpy()
        np.testing.assert_array_equal(got, want)


def test_state_follows_the_draws_and_assigning_it_rewinds():
    g = ks.random.Generator.from_seed(4)
    saved = g.state.numpy()
    assert saved.dtype == np.uint64 and saved.shape == (6,)
    first = g.uniform([3]).numpy()
    assert not np.array_equal(g.state.numpy(), saved)
    g.state.assign(saved)
    np.testing.assert_array_equal(g.uniform([3]).numpy(), first)


def test_a_state_that_is_not_pcg64s_is_refused_by_name():
    g = ks.random.Generator.from_seed(4)
    g.state.assign(np.array([1, 2, 3, 4, 0, 0], dtype=np.uint64))  # even increment
    with pytest.raises(ks.InvalidArgumentError, match="is not a PCG64 state"):
        g.normal([2])


@pytest.mark.cpu
def test_set_global_generator(keep_global_generator):
    g = ks.random.Generator.from_seed(8)
    expected = ks.random.Generator.from_seed(8).uniform([3]).numpy()
    ks.random.set_global_generator(g)
    np.testing.assert_array_equal(ks.random.uniform([3]).numpy(), expected)
    with pytest.raises(TypeError, match="expected a ks.random.Generator, got Generator"):
        ks.random.set_global_generator(np.random.default_rng(0))


def test_generator_draws_have_the_asked_dtypes_and_ranges():
    g = ks.random.Generator.from_seed(0)
    assert g.normal([2, 3], dtype=ks.float64).dtype == ks.float64
    ints = g.uniform([1000], 2, 5, dtype=ks.int32).numpy()
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {2, 3, 4}
    t = g.truncated_normal([1000], mean=1.0, stddev=0.5).numpy()
    assert np.abs(t - 1.0).max() <= 1.0
    with pytest.raises(ks.InvalidArgumentError, match="floating point"):
        g.normal([2], dtype=ks.int32)
