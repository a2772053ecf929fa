"""Activation layers: ReLU, LeakyReLU, PReLU, ELU, Softmax (values, masks, weights, gradients,
errors, configs, Keras parity)."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients, check_layer_gradients, layer_test

L = ks.layers


def _relu_reference(x, max_value=None, negative_slope=0.0, threshold=0.0):
    y = np.where(x > threshold, x, 0.0)
    if max_value is not None:
        y = np.minimum(y, max_value)
    return y - negative_slope * np.maximum(threshold - x, 0.0)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"max_value": 6.0}, {"negative_slope": 0.1}, {"threshold": 0.5},
     {"max_value": 1.5, "negative_slope": 0.2, "threshold": 0.3}],
)
def test_relu_values_and_gradients(kwargs):
    x = np.random.default_rng(0).normal(size=(4, 5)) * 2
    layer = L.ReLU(**kwargs)
    np.testing.assert_allclose(layer(x).numpy(), _relu_reference(x, **kwargs), rtol=1e-12)
    check_gradients(lambda t: layer(t), [x])
    assert layer.compute_output_shape((None, 5)) == (None, 5)
    config = layer.get_config()
    assert {k: config[k] for k in ("max_value", "negative_slope", "threshold")} == {
        "max_value": kwargs.get("max_value"),
        "negative_slope": kwargs.get("negative_slope", 0.0),
        "threshold": kwargs.get("threshold", 0.0),
    }
    assert L.ReLU.from_config(config).get_config() == config


def test_leaky_relu_and_elu():
    x = np.random.default_rng(1).normal(size=(3, 4))
    np.testing.assert_allclose(L.LeakyReLU()(x).numpy(), np.where(x > 0, x, 0.3 * x))
    np.testing.assert_allclose(
        L.LeakyReLU(negative_slope=0.05)(x).numpy(), np.where(x > 0, x, 0.05 * x)
    )
    assert L.LeakyReLU().get_config()["negative_slope"] == 0.3
    for alpha in (1.0, 0.5):
        np.testing.assert_allclose(
            L.ELU(alpha)(x).numpy(), np.where(x > 0, x, alpha * np.expm1(x)), rtol=1e-12
        )
        check_gradients(lambda t, a=alpha: L.ELU(a)(t), [x])
    check_gradients(lambda t: L.LeakyReLU()(t), [x])


def test_prelu_weights_shapes_and_training():
    layer = L.PReLU(shared_axes=[1, 2])
    out = layer(np.ones((2, 5, 6, 3), np.float32))
    assert out.shape == (2, 5, 6, 3)
    assert [v.name for v in layer.variables] == [f"{layer.name}/alpha"]
    assert layer.alpha.shape == (1, 1, 3) and np.all(layer.alpha.numpy() == 0)
    x = np.random.default_rng(2).normal(size=(4, 3))
    slopes = L.PReLU(alpha_initializer=ks.initializers.Constant(0.25))
    np.testing.assert_allclose(slopes(x).numpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    layer_test(L.PReLU(alpha_initializer=ks.initializers.Constant(0.1)), (8, 3),
               expected_output_shape=(8, 3), expected_num_weights=1)
    check_layer_gradients(L.PReLU(alpha_initializer="ones", dtype="float64"),
                          np.random.default_rng(3).normal(size=(4, 3)))
    config = L.PReLU(alpha_regularizer="l2", alpha_constraint="non_neg", shared_axes=2).get_config()
    assert config["shared_axes"] == [2]
    rebuilt = ks.saving.deserialize_keras_object(ks.saving.serialize_keras_object(
        L.PReLU(alpha_constraint="non_neg", shared_axes=[1])))
    assert type(rebuilt.alpha_constraint).__name__ == "NonNeg" and rebuilt.shared_axes == [1]


def test_prelu_errors():
    with pytest.raises(ks.InvalidArgumentError, match=r"shared_axes must name axes 1\.\.2"):
        L.PReLU(shared_axes=[3])(np.ones((2, 3, 4), np.float32))
    layer = L.PReLU()
    layer(np.ones((2, 3), np.float32))
    with pytest.raises(ks.InvalidArgumentError, match=r"shape \(2, 4\) do not fit alpha of shape"):
        layer(np.ones((2, 4), np.float32))


def test_softmax_axes_and_masks():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 4))
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(L.Softmax()(x).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-12)
    both = np.exp(x) / np.exp(x).sum((1, 2), keepdims=True)
    np.testing.assert_allclose(L.Softmax(axis=[1, 2])(x).numpy(), both, rtol=1e-12)
    mask = rng.uniform(size=(2, 1, 4)) > 0.4
    mask[0, 0, :] = False  # a slice with nothing unmasked: all zeros
    got = L.Softmax()(x, mask=mask).numpy()
    masked = np.where(mask, np.exp(x), 0.0)
    with np.errstate(invalid="ignore"):
        expected = np.nan_to_num(masked / masked.sum(-1, keepdims=True))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
    assert np.all(got[~np.broadcast_to(mask, x.shape)] == 0)
    check_gradients(lambda t: L.Softmax()(t, mask=mask), [x])
    check_gradients(lambda t: L.Softmax(axis=[1, 2])(t), [x])
    with pytest.raises(ks.InvalidArgumentError, match=r"mask of shape \(2, 3\) does not broadcast"):
        L.Softmax()(x, mask=np.ones((2, 3), bool))
    assert L.Softmax(axis=[1, 2]).get_config()["axis"] == [1, 2]


def test_argument_errors():
    for make, message in [
        (lambda: L.ReLU(max_value=-1), "ReLU: max_value must be a number >= 0 or None, got -1"),
        (lambda: L.ReLU(negative_slope=-0.1), "ReLU: negative_slope must be a number >= 0"),
        (lambda: L.ReLU(threshold=None), "ReLU: threshold must be a number >= 0, got None"),
        (lambda: L.LeakyReLU(negative_slope=-1), "LeakyReLU: negative_slope must be"),
    ]:
        with pytest.raises(ks.InvalidArgumentError, match=message):
            make()


def test_matches_keras3():
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(5)
    x = (rng.normal(size=(3, 4, 5)) * 3).astype(np.float32)
    for name, kwargs in [
        ("ReLU", {}), ("ReLU", {"max_value": 2.0, "negative_slope": 0.1, "threshold": 0.5}),
        ("ReLU", {"max_value": 6.0}), ("LeakyReLU", {}), ("LeakyReLU", {"negative_slope": 0.01}),
        ("ELU", {"alpha": 0.7}), ("Softmax", {}), ("Softmax", {"axis": 1}),
        ("Softmax", {"axis": [1, 2]}),
    ]:
        expected = np.asarray(getattr(keras.layers, name)(**kwargs)(x))
        got = getattr(L, name)(**kwargs)(x).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=f"{name}{kwargs}")
    mask = rng.uniform(size=(3, 1, 5)) > 0.3
    expected = np.asarray(keras.layers.Softmax()(x, mask=mask))
    np.testing.assert_allclose(L.Softmax()(x, mask=mask).numpy(), expected, atol=1e-6)
    theirs = keras.layers.PReLU(shared_axes=[1])
    theirs.build((None, 4, 5))
    alpha = rng.uniform(size=(1, 5)).astype(np.float32)
    theirs.set_weights([alpha])
    ours = L.PReLU(shared_axes=[1])
    ours(x)
    assert [w.shape for w in ours.get_weights()] == [w.shape for w in theirs.get_weights()]
    ours.set_weights([alpha])
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-6)
