"""Merging layers: values, Keras broadcasting, shapes, masks, errors, gradients, Keras parity."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients

L = ks.layers


def _rng(seed=0):
    return np.random.default_rng(seed)


_ELEMENTWISE = {
    "Add": lambda xs: sum(xs),
    "Multiply": lambda xs: np.prod(np.broadcast_arrays(*xs), axis=0),
    "Average": lambda xs: sum(xs) / len(xs),
    "Maximum": lambda xs: np.maximum.reduce(np.broadcast_arrays(*xs)),
    "Minimum": lambda xs: np.minimum.reduce(np.broadcast_arrays(*xs)),
}


@pytest.mark.parametrize("name", sorted(_ELEMENTWISE))
def test_elementwise_values_and_broadcasting(name):
    rng = _rng()
    a, b, c = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 1, 3)), rng.normal(size=(2, 4, 1))
    layer = getattr(L, name)()
    got = layer([a, b, c]).numpy()
    np.testing.assert_allclose(got, _ELEMENTWISE[name]([a, b, c]), rtol=1e-12)
    # an input of lower rank gains axes after the batch axis: (2, 3) acts as (2, 1, 3)
    low = rng.normal(size=(2, 3))
    got = getattr(L, name)()([a, low]).numpy()
    np.testing.assert_allclose(got, _ELEMENTWISE[name]([a, low[:, None, :]]), rtol=1e-12)
    functional = getattr(L, name.lower())
    np.testing.assert_allclose(functional([a, b]).numpy(), _ELEMENTWISE[name]([a, b]))
    assert layer.compute_output_shape([(None, 4, 3), (None, 1, 3), (None, 4, 1)]) == (None, 4, 3)
    assert layer.compute_output_shape([(None, None, 3), (5, 7, 1)]) == (5, None, 3)
    assert getattr(L, name).from_config(layer.get_config()).get_config() == layer.get_config()


def test_subtract_and_single_inputs():
    a, b = np.array([[5.0, 1.0]]), np.array([[2.0, 3.0]])
    np.testing.assert_array_equal(L.subtract([a, b]).numpy(), [[3.0, -2.0]])
    with pytest.raises(ks.InvalidArgumentError) as err:
        L.Subtract()([a, b, b])
    assert "layer 'subtract" in str(err.value) and "expects exactly 2 inputs, got 3" in str(
        err.value
    )
    np.testing.assert_array_equal(L.Average()([a]).numpy(), a)  # one input: itself


def test_elementwise_errors_name_the_layer_and_all_shapes():
    layer = L.Add(name="skip_sum")
    with pytest.raises(ks.InvalidArgumentError) as err:
        layer([np.ones((2, 3)), np.ones((2, 4))])
    message = str(err.value)
    assert message.startswith("layer 'skip_sum' (Add):")
    assert "(2, 3), (2, 4)" in message and "must match or be 1" in message
    with pytest.raises(ks.InvalidArgumentError, match=r"different batch sizes: shapes \(2, 3\), "
                                                      r"\(3, 3\)"):
        L.Maximum()([np.ones((2, 3)), np.ones((3, 3))])
    with pytest.raises(ks.InvalidArgumentError, match="expects a list of input tensors"):
        L.Add()(np.ones((2, 3)))
    with pytest.raises(ks.InvalidArgumentError, match="inputs need a batch axis"):
        L.Add().compute_output_shape([(), (3,)])
    with pytest.raises(ks.InvalidArgumentError, match=r"layer 'mul' \(Multiply\): .*\(None, 3\), "
                                                      r"\(None, 5\)"):
        L.Multiply(name="mul").compute_output_shape([(None, 3), (None, 5)])


def test_concatenate():
    rng = _rng(1)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    np.testing.assert_array_equal(L.Concatenate(axis=1)([a, b]).numpy(), np.concatenate([a, b], 1))
    c = rng.normal(size=(2, 3, 2))
    np.testing.assert_array_equal(L.concatenate([a, c]).numpy(), np.concatenate([a, c], -1))
    layer = L.Concatenate(axis=1)
    assert layer.compute_output_shape([(None, 3, 4), (None, 5, 4)]) == (None, 8, 4)
    assert layer.compute_output_shape([(None, None, 4), (None, 5, 4)]) == (None, None, 4)
    assert layer.get_config()["axis"] == 1
    with pytest.raises(ks.InvalidArgumentError) as err:
        L.Concatenate(name="cat")([a, b])
    assert str(err.value).startswith("layer 'cat' (Concatenate):")
    assert "(2, 3, 4), (2, 5, 4)" in str(err.value) and "differ in axis 1" in str(err.value)
    with pytest.raises(ks.InvalidArgumentError, match="same rank; got shapes"):
        L.Concatenate()([a, np.ones((2, 3))])
    with pytest.raises(ks.InvalidArgumentError, match="axis=0 is not a non-batch axis"):
        L.Concatenate(axis=0)([a, a])


def test_dot_matches_einsum():
    rng = _rng(2)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(L.Dot(axes=1)([a, b]).numpy(), np.sum(a * b, 1, keepdims=True))
    x, y = rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 6, 4))
    np.testing.assert_allclose(
        L.Dot(axes=(2, 2))([x, y]).numpy(), np.einsum("bik,bjk->bij", x, y), rtol=1e-12
    )
    z = rng.normal(size=(3, 5, 6))
    np.testing.assert_allclose(
        L.dot([x, z], axes=[1, 1]).numpy(), np.einsum("bki,bkj->bij", x, z), rtol=1e-12
    )
    unit = lambda v: v / np.linalg.norm(v, axis=-1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(
        L.Dot(axes=-1, normalize=True)([a, b]).numpy(),
        np.sum(unit(a) * unit(b), -1, keepdims=True),
        rtol=1e-12,
    )
    assert L.Dot(axes=2).compute_output_shape([(None, 5, 4), (None, 6, 4)]) == (None, 5, 6)
    assert L.Dot(axes=1).compute_output_shape([(None, 4), (None, 4)]) == (None, 1)
    assert L.Dot(axes=[1, 2], normalize=True).get_config()["axes"] == [1, 2]
    with pytest.raises(ks.InvalidArgumentError) as err:
        L.Dot(axes=-1, name="scores")([x, z])
    assert str(err.value).startswith("layer 'scores' (Dot):")
    assert "(3, 5, 4), (3, 5, 6)" in str(err.value) and "sizes 4 and 6 differ" in str(err.value)
    with pytest.raises(ks.InvalidArgumentError, match="not name a non-batch axis"):
        L.Dot(axes=0)([a, b])
    with pytest.raises(ks.InvalidArgumentError, match="axes must be an integer or a pair"):
        L.Dot(axes=(1, 2, 3))


@pytest.mark.parametrize("name", ["Add", "Subtract", "Multiply", "Average", "Maximum",
                                  "Minimum", "Concatenate", "Dot"])
def test_gradients_to_second_order(name):
    rng = _rng(3)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    layer = getattr(L, name)(axes=-1) if name == "Dot" else getattr(L, name)()
    check_gradients(lambda x, y: layer([x, y]), [a, b])
    if name == "Dot":
        normalized = L.Dot(axes=1, normalize=True)
        check_gradients(lambda x, y: normalized([x, y]), [a, b])


def test_masks_follow_keras():
    a = ks.constant(np.arange(6.0).reshape(1, 3, 2))
    b = ks.constant(np.ones((1, 3, 2)) * 10)
    a._keras_mask = ks.constant([[True, False, True]])
    b._keras_mask = ks.constant([[True, True, False]])
    out = L.Maximum()([a, b])
    # where one input is masked out, only the other contributes
    np.testing.assert_array_equal(out.numpy(), [[[10.0, 10.0], [10.0, 10.0], [4.0, 5.0]]])
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, True, True]])
    total = L.Add()([a, b])  # Add (like Keras) merges every value; only the mask is combined
    np.testing.assert_array_equal(total.numpy(), a.numpy() + b.numpy())
    np.testing.assert_array_equal(total._keras_mask.numpy(), [[True, True, True]])
    joined = L.Concatenate(axis=1)([a, b])
    np.testing.assert_array_equal(
        joined._keras_mask.numpy(), [[True, False, True, True, True, False]]
    )
    plain = L.Add()([a, ks.ones((1, 3, 2))])  # an unmasked input: no output mask
    assert getattr(plain, "_keras_mask", None) is None


def test_layers_in_a_functional_model():
    inputs = ks.Input((4,))
    branch = ks.layers.Dense(4)(inputs)
    merged = L.concatenate([L.add([inputs, branch]), L.multiply([inputs, branch])])
    model = ks.Model(inputs, L.Dot(axes=1)([merged, merged]))
    assert merged.shape == (None, 8)
    x = _rng(4).normal(size=(5, 4)).astype(np.float32)
    assert model(x).shape == (5, 1)


def test_matches_keras3():
    keras = pytest.importorskip("keras")
    rng = _rng(5)
    a, b = rng.normal(size=(3, 4, 5)).astype(np.float32), rng.normal(size=(3, 1, 5))
    b = b.astype(np.float32)
    c = rng.normal(size=(3, 4, 5)).astype(np.float32)
    cases = [
        ("Add", {}, [a, b]), ("Subtract", {}, [a, b]), ("Multiply", {}, [a, b, c]),
        ("Average", {}, [a, b, c]), ("Maximum", {}, [a, c]), ("Minimum", {}, [a, b]),
        ("Concatenate", {"axis": 1}, [a, c]), ("Concatenate", {}, [a, c]),
        ("Dot", {"axes": 2}, [a, c]), ("Dot", {"axes": [1, 1], "normalize": True}, [a, c]),
        ("Add", {}, [a, rng.normal(size=(3, 5)).astype(np.float32)]),
    ]
    for name, kwargs, inputs in cases:
        expected = np.asarray(getattr(keras.layers, name)(**kwargs)(inputs))
        got = getattr(L, name)(**kwargs)(inputs).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=name)
        theirs = getattr(keras.layers, name)(**kwargs).compute_output_shape(
            [(None,) + x.shape[1:] for x in inputs]
        )
        ours = getattr(L, name)(**kwargs).compute_output_shape(
            [(None,) + x.shape[1:] for x in inputs]
        )
        assert tuple(ours) == tuple(theirs), name
