"""ks.random.SeedGenerator and Keras 3's random names (randint, dropout)."""

import numpy as np
import pytest

import kerasish as ks


def test_seed_generator_streams_repeat_from_their_seed_and_advance():
    a, b = ks.random.SeedGenerator(7), ks.random.SeedGenerator(7)
    first = ks.random.normal([4], seed=a).numpy()
    np.testing.assert_array_equal(first, ks.random.normal([4], seed=b).numpy())
    assert not np.array_equal(first, ks.random.normal([4], seed=a).numpy())
    u = ks.random.uniform([3], minval=2.0, maxval=3.0, seed=a).numpy()
    assert ((u >= 2) & (u < 3)).all()
    t = ks.random.truncated_normal([100], seed=a, dtype="float64").numpy()
    assert t.dtype == np.float64 and np.abs(t).max() <= 2


def test_seed_generator_does_not_touch_the_global_stream():
    ks.random.set_seed(3)
    expected = ks.random.normal([3]).numpy()
    ks.random.set_seed(3)
    generator = ks.random.SeedGenerator(1)
    ks.random.normal([5], seed=generator)
    ks.random.set_seed(3)  # a SeedGenerator(None) draws its seed from the global stream
    np.testing.assert_array_equal(ks.random.normal([3]).numpy(), expected)


def test_seed_generator_without_a_seed_is_reproducible_from_set_seed():
    ks.random.set_seed(5)
    first = ks.random.normal([2], seed=ks.random.SeedGenerator()).numpy()
    ks.random.set_seed(5)
    np.testing.assert_array_equal(
        ks.random.normal([2], seed=ks.random.SeedGenerator()).numpy(), first)


def test_seed_generator_state_is_checkpointed(tmp_path):
    class Noisy(ks.layers.Layer):
        def __init__(self):
            super().__init__()
            self.seed_generator = ks.random.SeedGenerator(9)

        def call(self, x):
            return x + ks.random.normal(ks.ops.shape(x), seed=self.seed_generator)

    layer = Noisy()
    path = ks.Checkpoint(layer=layer).write(str(tmp_path / "noisy"))
    x = np.zeros((2, 2), np.float32)
    first = layer(x).numpy()
    layer(x)
    ks.Checkpoint(layer=layer).read(path).assert_consumed()
    np.testing.assert_array_equal(layer(x).numpy(), first)


def test_seed_generator_rejects_non_integer_seeds():
    with pytest.raises(ks.InvalidArgumentError, match="seed must be an integer or None, got str"):
        ks.random.SeedGenerator("7")


def test_randint_and_dropout():
    generator = ks.random.SeedGenerator(0)
    values = ks.random.randint((1000,), 2, 6, seed=generator).numpy()
    assert values.dtype == np.int32 and set(values.tolist()) == {2, 3, 4, 5}
    with pytest.raises(ks.InvalidArgumentError, match="integer type, got float32"):
        ks.random.randint((2,), 0, 3, dtype="float32")
    x = np.ones((200, 50), np.float32)
    dropped = ks.random.dropout(x, 0.3, seed=ks.random.SeedGenerator(1)).numpy()
    assert set(np.unique(dropped).tolist()) == {0.0, np.float32(1 / 0.7)}
    assert abs((dropped == 0).mean() - 0.3) < 0.02
    again = ks.random.dropout(x, 0.3, seed=ks.random.SeedGenerator(1)).numpy()
    np.testing.assert_array_equal(dropped, again)
    shuffled = ks.random.shuffle(np.arange(10), seed=ks.random.SeedGenerator(2)).numpy()
    assert sorted(shuffled.tolist()) == list(range(10))


def test_shuffle_along_an_axis():
    x = np.arange(12).reshape(3, 4)
    shuffled = ks.random.shuffle(x, seed=ks.random.SeedGenerator(3), axis=1).numpy()
    np.testing.assert_array_equal(shuffled, x[:, shuffled[0]])  # whole columns moved
    assert sorted(shuffled[0].tolist()) == [0, 1, 2, 3]
    with pytest.raises(ks.InvalidArgumentError, match=r"axis 2 is out of range .* \(3, 4\)"):
        ks.random.shuffle(x, axis=2)


def test_shuffle_takes_keras_x_or_tf_value_once():
    data = np.arange(12).reshape(6, 2)
    by_keras = ks.random.shuffle(x=data, seed=ks.random.SeedGenerator(3), axis=0).numpy()
    by_tf = ks.random.shuffle(value=data, seed=ks.random.SeedGenerator(3)).numpy()
    np.testing.assert_array_equal(by_keras, by_tf)
    assert sorted(by_keras.tolist()) == data.tolist()
    with pytest.raises(TypeError, match="random.shuffle: give the tensor once, as x"):
        ks.random.shuffle(data, value=data)
    with pytest.raises(TypeError, match="random.shuffle: give the tensor once"):
        ks.random.shuffle()
