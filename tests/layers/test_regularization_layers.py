"""Regularization and noise layers, and `activity_regularizer=` on any layer."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients

L = ks.layers


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: L.SpatialDropout1D(0.5), (2, 5, 3)),
        (lambda: L.SpatialDropout2D(0.5), (2, 4, 4, 3)),
        (lambda: L.GaussianNoise(0.3), (2, 5)),
        (lambda: L.GaussianDropout(0.4), (2, 5)),
        (lambda: L.ActivityRegularization(l1=0.1), (2, 5)),
    ],
)
def test_identity_at_inference_and_reproducible_in_training(make, shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    layer = make()
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    assert layer.compute_output_shape((None,) + shape[1:]) == (None,) + shape[1:]
    ks.random.set_seed(7)
    first = layer(x, training=True).numpy()
    ks.random.set_seed(7)
    second = layer(x, training=True).numpy()
    np.testing.assert_array_equal(first, second)
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()


def test_spatial_dropout_drops_whole_channels():
    ks.random.set_seed(1)
    x = np.ones((8, 6, 5), np.float32)
    y = L.SpatialDropout1D(0.5)(x, training=True).numpy()
    assert np.all(y == y[:, :1, :])  # the same decision at every step
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < np.mean(y == 0) < 1
    images = np.ones((8, 3, 3, 4), np.float32)
    y = L.SpatialDropout2D(0.5)(images, training=True).numpy()
    assert np.all(y == y[:, :1, :1, :])
    first = L.SpatialDropout2D(0.5, data_format="channels_first")(images, training=True).numpy()
    assert np.all(first == first[:, :, :1, :1])
    assert L.SpatialDropout2D(0.2, seed=3).get_config()["data_format"] == "channels_last"


def test_noise_statistics():
    ks.random.set_seed(2)
    x = np.full((200, 100), 2.0, np.float32)
    noisy = L.GaussianNoise(0.5)(x, training=True).numpy() - x
    assert abs(noisy.mean()) < 0.01 and abs(noisy.std() - 0.5) < 0.01
    scaled = L.GaussianDropout(0.3)(x, training=True).numpy() / x
    assert abs(scaled.mean() - 1) < 0.01 and abs(scaled.var() - 0.3 / 0.7) < 0.01


def test_noise_layers_pass_gradients():
    x = np.random.default_rng(3).normal(size=(3, 4))
    for layer in (L.GaussianNoise(0.2), L.GaussianDropout(0.2), L.SpatialDropout1D(0.3)):
        xs = x[:, :, None] if isinstance(layer, L.SpatialDropout1D) else x

        def f(t, layer=layer):
            ks.random.set_seed(11)  # the same draw at every evaluation
            return layer(t, training=True)

        check_gradients(f, [xs])


def test_argument_and_shape_errors():
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"SpatialDropout1D: rate must be a number in \[0, 1"):
        L.SpatialDropout1D(1.0)
    with pytest.raises(ks.InvalidArgumentError, match="GaussianDropout: rate must be"):
        L.GaussianDropout(-0.1)
    with pytest.raises(ks.InvalidArgumentError,
                       match="GaussianNoise: stddev must be a number >= 0"):
        L.GaussianNoise(-1)
    with pytest.raises(ks.InvalidArgumentError, match="data_format must be 'channels_last'"):
        L.SpatialDropout2D(0.1, data_format="nhwc")
    with pytest.raises(ks.InvalidArgumentError) as err:
        L.SpatialDropout2D(0.1, name="sd")(np.ones((2, 3, 4), np.float32))
    assert "layer 'sd'" in str(err.value) and "expects inputs of rank 4, got shape (2, 3, 4)" in (
        str(err.value)
    )


def test_activity_regularization_penalty_per_call():
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    x = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    layer(x)
    expected = (0.1 * np.abs(x).sum() + 0.01 * (x**2).sum()) / 2  # divided by the batch size
    assert [float(v) for v in layer.losses] == [pytest.approx(expected)]
    assert layer.get_config()["l1"] == 0.1 and "activity_regularizer" not in layer.get_config()
    layer(x)  # a new outermost call replaces the terms of the last one (Keras)
    assert len(layer.losses) == 1


def test_activity_regularizer_on_any_layer():
    dense = L.Dense(3, activity_regularizer=ks.regularizers.L2(0.5), kernel_initializer="ones")
    x = np.ones((4, 2), np.float32)
    out = dense(x)
    assert [float(v) for v in dense.losses] == [pytest.approx(0.5 * float(np.sum(out.numpy() ** 2))
                                                              / 4)]
    config = dense.get_config()
    assert type(config["activity_regularizer"]).__name__ == "L2"
    assert L.Dense(3).get_config().get("activity_regularizer") is None
    model = ks.Sequential([L.Dense(2, activity_regularizer="l1"), L.Dense(1)])
    with ks.GradientTape() as tape:
        model(x)
        penalty = ks.add_n(model.losses)
    grads = tape.gradient(penalty, model.trainable_variables)
    assert grads[0] is not None and float(ks.reduce_sum(ks.abs(grads[0]))) > 0
    assert grads[2] is None  # the second layer has no penalty


def test_activity_regularization_matches_keras3():
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(4).normal(size=(6, 3)).astype(np.float32)
    theirs = keras.layers.ActivityRegularization(l1=0.2, l2=0.3)
    theirs(x)
    ours = L.ActivityRegularization(l1=0.2, l2=0.3)
    ours(x)
    assert float(ours.losses[0]) == pytest.approx(float(theirs.losses[0]), rel=1e-5)
