"""LayerNormalization, GroupNormalization, UnitNormalization, and mask propagation (Masking,
Embedding(mask_zero=True), supports_masking / compute_mask in Layer.__call__)."""

import warnings

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_layer_gradients

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- LayerNormalization


def test_layer_normalization_normalizes_each_example_then_scales_and_shifts():
    layer = ks.layers.LayerNormalization(epsilon=1e-6, dtype="float64")
    x = normal(4, 6, dtype=np.float64) * 3 + 2
    y = layer(x).numpy()
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y, expected, rtol=1e-10)
    assert [w.name.split("/")[-1] for w in layer.weights] == ["gamma", "beta"]
    layer.gamma.assign(np.full(6, 2.0))
    layer.beta.assign(np.full(6, -1.0))
    np.testing.assert_allclose(layer(x).numpy(), 2 * expected - 1, rtol=1e-10)


def test_layer_normalization_over_several_axes_and_without_weights():
    x = normal(2, 3, 4, dtype=np.float64)
    layer = ks.layers.LayerNormalization(axis=[1, 2], center=False, scale=False, epsilon=0.0,
                                         dtype="float64")
    y = layer(x).numpy()
    assert layer.weights == []
    np.testing.assert_allclose(y.reshape(2, -1).mean(1), 0, atol=1e-12)
    np.testing.assert_allclose(y.reshape(2, -1).std(1), 1, rtol=1e-10)
    with_weights = ks.layers.LayerNormalization(axis=[-2, -1])
    with_weights(x.astype(np.float32))
    assert with_weights.gamma.shape == (3, 4)


def test_layer_normalization_gradients_and_errors():
    check_layer_gradients(ks.layers.LayerNormalization(dtype="float64"), normal(3, 5))
    check_layer_gradients(ks.layers.LayerNormalization(axis=1, dtype="float64"), normal(2, 3, 4))
    with pytest.raises(ks.InvalidArgumentError, match="axis 3 is out of range.*rank 2"):
        ks.layers.LayerNormalization(axis=3)(normal(2, 3))
    assert ks.layers.LayerNormalization().compute_output_shape((None, 7)) == (None, 7)


def test_layer_normalization_constraints_and_keras_rms_scaling():
    layer = ks.layers.LayerNormalization(gamma_constraint="non_neg", beta_constraint="max_norm")
    layer(normal(2, 3))
    assert [type(w.constraint).__name__ for w in layer.weights] == ["NonNeg", "MaxNorm"]
    with pytest.warns(UserWarning, match="deprecated"):
        rms = ks.layers.LayerNormalization(rms_scaling=True, dtype="float64")
    x = normal(2, 5, dtype=np.float64) + 3.0
    y = rms(x).numpy()  # Keras's form: x / sqrt(variance + epsilon), not centred; gamma only
    np.testing.assert_allclose(y, x / np.sqrt(x.var(-1, keepdims=True) + 1e-3), rtol=1e-12)
    assert [w.name.split("/")[-1] for w in rms.weights] == ["gamma"]


# ---------------------------------------------------------------- GroupNormalization


def test_group_normalization_normalizes_within_groups():
    x = normal(2, 5, 6, dtype=np.float64)
    y = ks.layers.GroupNormalization(groups=3, epsilon=0.0, dtype="float64")(x).numpy()
    grouped = y.reshape(2, 5, 3, 2)
    np.testing.assert_allclose(grouped.mean(axis=(1, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(grouped.std(axis=(1, 3)), 1, rtol=1e-10)


def test_group_normalization_one_group_is_layer_normalization_over_all_axes():
    x = normal(2, 4, 6)
    group = ks.layers.GroupNormalization(groups=1)(x).numpy()
    layer = ks.layers.LayerNormalization(axis=[1, 2])(x).numpy()
    np.testing.assert_allclose(group, layer, rtol=1e-5, atol=1e-6)
    instance = ks.layers.GroupNormalization(groups=-1, axis=1)
    instance(x)
    assert instance.gamma.shape == (4,)


def test_group_normalization_gradients_and_errors():
    check_layer_gradients(ks.layers.GroupNormalization(groups=2, dtype="float64"), normal(2, 3, 4))
    check_layer_gradients(
        ks.layers.GroupNormalization(groups=2, axis=1, dtype="float64"), normal(2, 4, 3)
    )
    with pytest.raises(ks.InvalidArgumentError, match="6 channels.*groups=4"):
        ks.layers.GroupNormalization(groups=4)(normal(2, 6))


# ---------------------------------------------------------------- UnitNormalization


def test_unit_normalization_and_its_finite_gradient_at_zero():
    x = normal(3, 4, dtype=np.float64)
    x[1] = 0.0
    layer = ks.layers.UnitNormalization(dtype="float64")
    y = layer(x).numpy()
    np.testing.assert_allclose(np.linalg.norm(y[[0, 2]], axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(y[1], 0.0)
    xt = ks.constant(x)
    with ks.GradientTape() as tape:
        tape.watch(xt)
        out = ks.reduce_sum(layer(xt))
    assert np.isfinite(tape.gradient(out, xt).numpy()).all()
    check_layer_gradients(ks.layers.UnitNormalization(axis=[1, 2], dtype="float64"),
                          normal(2, 3, 2))


# ---------------------------------------------------------------- masking


def test_masking_layer_zeroes_masked_steps_and_attaches_the_mask():
    x = normal(2, 4, 3)
    x[0, 1] = 0.0
    x[1, 3] = -1.0
    out = ks.layers.Masking(mask_value=-1.0)(x)
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[1, 1, 1, 1], [1, 1, 1, 0]])
    np.testing.assert_array_equal(out.numpy()[1, 3], 0.0)
    out = ks.layers.Masking()(x)
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[1, 0, 1, 1], [1, 1, 1, 1]])


def test_masks_flow_through_layers_that_support_masking_and_reach_mask_arguments():
    seen = {}

    class Probe(ks.layers.Layer):
        def call(self, inputs, mask=None):
            seen["mask"] = mask
            return inputs

    ids = np.array([[4, 2, 0]])
    x = ks.layers.Embedding(5, 3, mask_zero=True)(ids)
    x = ks.layers.Dense(3)(x)  # passes the mask on
    x = ks.layers.LayerNormalization()(x)
    Probe()(x)
    np.testing.assert_array_equal(seen["mask"].numpy(), [[True, True, False]])
    assert getattr(ks.layers.Embedding(5, 3)(ids), "_keras_mask", None) is None


def test_a_layer_without_mask_support_drops_the_mask_with_a_warning():
    class Plain(ks.layers.Layer):
        pass

    x = ks.layers.Masking()(normal(1, 2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = Plain()(x)
    assert getattr(out, "_keras_mask", None) is x._keras_mask  # the very same tensor came back
    assert any("neither uses nor supports masking" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = ks.layers.Flatten()(ks.layers.Masking()(normal(1, 2, 3)))
    assert getattr(y, "_keras_mask", None) is None


def test_masks_reach_pooling_and_recurrent_layers_inside_models():
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    embedding = ks.layers.Embedding(5, 3, mask_zero=True)
    pooled = ks.layers.GlobalAveragePooling1D()(embedding(ids)).numpy()
    np.testing.assert_allclose(pooled[1], embedding(ids[1:, :1]).numpy()[0, 0], rtol=1e-6)

    lstm = ks.layers.LSTM(4)
    sequential = ks.Sequential([embedding, lstm])
    np.testing.assert_allclose(sequential(ids).numpy()[1], lstm(embedding(ids[1:, :1])).numpy()[0],
                               rtol=1e-6)
    inputs = ks.Input((4,), dtype="int32")
    functional = ks.Model(inputs, lstm(embedding(inputs)))
    np.testing.assert_allclose(functional(ids).numpy(), sequential(ids).numpy(), rtol=1e-6)


def test_configs_round_trip():
    for layer in (
        ks.layers.LayerNormalization(axis=[1, 2], epsilon=0.01, center=False),
        ks.layers.GroupNormalization(groups=2, axis=1, scale=False),
        ks.layers.UnitNormalization(axis=[1, 2]),
        ks.layers.Masking(mask_value=-1.0),
        ks.layers.Embedding(5, 2, mask_zero=True),
    ):
        config = layer.get_config()
        clone = type(layer).from_config(config)
        assert clone.get_config() == {**config, "name": clone.name}


# ---------------------------------------------------------------- Keras 3 parity


@pytest.mark.parametrize("name,kwargs,shape", [
    ("LayerNormalization", {}, (3, 7)),
    ("LayerNormalization", {"axis": [1, 2], "epsilon": 1e-5}, (2, 3, 4)),
    ("LayerNormalization", {"rms_scaling": True}, (3, 7)),
    ("GroupNormalization", {"groups": 2}, (2, 5, 6)),
    ("GroupNormalization", {"groups": -1, "axis": 1}, (2, 3, 4)),
    ("UnitNormalization", {"axis": -1}, (3, 5)),
])
def test_forward_matches_keras(name, kwargs, shape):
    keras = pytest.importorskip("keras")
    x = normal(*shape) * 2 + 0.5
    theirs = getattr(keras.layers, name)(**kwargs)
    ours = getattr(ks.layers, name)(**kwargs)
    theirs(x)
    ours(x)
    weights = [RNG.standard_normal(w.shape).astype(np.float32) for w in theirs.get_weights()]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), atol=1e-5)


def test_masking_matches_keras():
    keras = pytest.importorskip("keras")
    x = normal(2, 4, 3)
    x[0, 2] = 0.0
    theirs = keras.layers.Masking()(x)
    ours = ks.layers.Masking()(x)
    np.testing.assert_array_equal(ours.numpy(), np.asarray(theirs))
    np.testing.assert_array_equal(ours._keras_mask.numpy(), np.asarray(theirs._keras_mask))


def test_a_layer_defining_compute_mask_supports_masking_by_default():
    class FirstFeatureNonZero(ks.layers.Layer):
        def compute_mask(self, inputs, mask=None):
            return ks.not_equal(inputs[..., 0], 0.0)

    layer = FirstFeatureNonZero()
    assert layer.supports_masking and not ks.layers.Flatten().supports_masking
    out = layer(np.array([[[1.0], [0.0]]], np.float32))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False]])
    layer.supports_masking = False
    assert getattr(layer(np.ones((1, 2, 1), np.float32)), "_keras_mask", None) is None
