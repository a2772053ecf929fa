"""Wrapper, SpectralNormalization, RMSNormalization, layers.serialize/deserialize and the
3-D reshaping and dropout layers: Keras 3's behaviour, weights and files (the Keras tests
skip without keras)."""

import numpy as np
import pytest

import kerasish as ks

RNG = np.random.default_rng(5)
IMAGES = RNG.standard_normal((2, 6, 6, 3)).astype("float32")


def _model(library):
    layers = library.layers
    inputs = library.Input((6, 6, 3))
    x = layers.SpectralNormalization(layers.Conv2D(4, 3), power_iterations=2)(inputs)
    x = layers.RMSNormalization(axis=[-2, -1], epsilon=1e-3)(x)
    x = layers.ZeroPadding3D(((1, 0), (0, 1), (1, 1)))(layers.Reshape((4, 4, 4, 1))(x))
    x = layers.Cropping3D(((0, 1), (1, 0), (1, 1)))(x)
    x = layers.UpSampling3D((1, 2, 1))(x)
    x = layers.SpatialDropout3D(0.5)(x)
    x = layers.AlphaDropout(0.3)(layers.Flatten(data_format="channels_first")(x))
    x = layers.SpectralNormalization(layers.Dense(5))(x)
    return library.Model(inputs, layers.RMSNormalization()(x))


def test_keras_file_loads_and_predicts_the_same(tmp_path):
    keras = pytest.importorskip("keras")
    theirs = _model(keras)
    theirs(IMAGES, training=True)  # a training call normalizes the kernels in place
    expected = np.asarray(theirs(IMAGES))
    path = str(tmp_path / "spectral.keras")
    theirs.save(path)
    ours = ks.models.load_model(path)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    np.testing.assert_allclose(ours(IMAGES).numpy(), expected, rtol=1e-4, atol=1e-5)
    # one more training call on each: the same power iteration, the same kernels
    wrapper_t = [la for la in theirs.layers if "spectral" in la.name][0]
    wrapper_o = [la for la in ours.layers if "spectral" in la.name][0]
    wrapper_t(IMAGES, training=True)
    wrapper_o(IMAGES, training=True)
    np.testing.assert_allclose(wrapper_o.kernel.numpy(), np.asarray(wrapper_t.kernel),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(wrapper_o.vector_u.numpy(), np.asarray(wrapper_t.vector_u),
                               rtol=1e-4, atol=1e-6)
    back_path = str(tmp_path / "back.keras")
    ours.save(back_path)
    back = keras.models.load_model(back_path)
    np.testing.assert_allclose(np.asarray(back(IMAGES)), ours(IMAGES).numpy(), rtol=1e-4,
                               atol=1e-5)


def test_kerasish_round_trip(tmp_path):
    model = _model(ks)
    model(IMAGES, training=True)
    expected = model(IMAGES).numpy()
    path = str(tmp_path / "spectral.keras")
    model.save(path)
    np.testing.assert_array_equal(ks.models.load_model(path)(IMAGES).numpy(), expected)


def test_spectral_normalization_bounds_the_norm_and_leaves_zero_kernels():
    layer = ks.layers.SpectralNormalization(ks.layers.Dense(4), power_iterations=30)
    layer(ks.ones([1, 6]), training=True)
    assert abs(np.linalg.svd(layer.kernel.numpy(), compute_uv=False)[0] - 1) < 1e-4
    before = layer.kernel.numpy().copy()
    layer(ks.ones([1, 6]))  # inference: unchanged
    np.testing.assert_array_equal(layer.kernel.numpy(), before)
    zero = ks.layers.SpectralNormalization(ks.layers.Dense(2, kernel_initializer="zeros"))
    zero(ks.ones([1, 3]), training=True)
    assert not zero.kernel.numpy().any()


def test_rms_normalization_matches_keras_and_its_gradient():
    x = RNG.standard_normal((3, 4, 5))
    layer = ks.layers.RMSNormalization(axis=[1, 2], dtype="float64")
    layer.build(x.shape)
    layer.scale.assign(RNG.standard_normal((4, 5)))
    expected = x / np.sqrt((x**2).mean(axis=(1, 2), keepdims=True) + 1e-6) * layer.scale.numpy()
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-12)
    ks.testing.check_gradients(lambda v: layer(v), [x], order=2)
    keras = pytest.importorskip("keras")
    theirs = keras.layers.RMSNormalization(axis=[1, 2])
    theirs.build(x.shape)
    theirs.set_weights([layer.scale.numpy()])
    np.testing.assert_allclose(np.asarray(theirs(x.astype("float32"))), expected, rtol=1e-5)


def test_serialize_deserialize_and_keras_configs():
    layer = ks.layers.SpectralNormalization(ks.layers.Conv2D(3, 2), power_iterations=3)
    config = ks.layers.serialize(layer)
    assert config["class_name"] == "SpectralNormalization"
    again = ks.layers.deserialize(config)
    assert type(again.layer).__name__ == "Conv2D" and again.power_iterations == 3
    keras = pytest.importorskip("keras")
    theirs = keras.layers.deserialize(config)
    assert theirs.power_iterations == 3 and theirs.layer.filters == 3
    for name, args in [("SpectralNormalization", (keras.layers.Dense(2),)),
                       ("AlphaDropout", (0.2,)), ("SpatialDropout3D", (0.1,)),
                       ("UpSampling3D", ()), ("ZeroPadding3D", ()), ("Cropping3D", ()),
                       ("RMSNormalization", ()), ("Flatten", ())]:
        ours = ks.layers.deserialize(keras.layers.serialize(getattr(keras.layers, name)(*args)))
        assert type(ours).__name__ == name
        back = keras.layers.deserialize(ks.layers.serialize(ours))
        assert type(back).__name__ == name


def test_errors_are_named():
    with pytest.raises(ValueError, match="the wrapped layer must be a Layer"):
        ks.layers.Wrapper("dense")
    with pytest.raises(NotImplementedError, match="must implement call"):
        ks.layers.Wrapper(ks.layers.Dense(2))(ks.ones([1, 2]))
    with pytest.raises(ValueError, match="power_iterations must be an integer > 0"):
        ks.layers.SpectralNormalization(ks.layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="neither a 'kernel' nor an 'embeddings'"):
        ks.layers.SpectralNormalization(ks.layers.LayerNormalization())(ks.ones([1, 2]))
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        ks.layers.RMSNormalization(axis=3)(ks.ones([1, 2]))
    with pytest.raises(ValueError, match="data_format must be"):
        ks.layers.Flatten(data_format="nchw")
    with pytest.raises(ValueError, match="expects inputs of rank 5"):
        ks.layers.SpatialDropout3D(0.5)(ks.ones([1, 2, 2, 2]), training=True)
    with pytest.raises(ValueError, match="padding must be a non-negative int, 3 ints"):
        ks.layers.ZeroPadding3D((1, 2))
    with pytest.raises(ValueError, match="rate"):
        ks.layers.AlphaDropout(1.5)


def test_alpha_dropout_keeps_selu_statistics_and_is_identity_in_inference():
    ks.random.set_seed(3)
    x = ks.random.normal([200, 100])
    layer = ks.layers.AlphaDropout(0.4)
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    y = layer(x, training=True).numpy()
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.4) * (1 + 0.4 * alpha_p**2)) ** -0.5
    rows = ks.layers.AlphaDropout(0.4, noise_shape=(None, 1))(x, training=True).numpy()
    dropped = np.isclose(rows, a * alpha_p - a * alpha_p * 0.4)
    assert (dropped == dropped[:, :1]).all() and 0 < dropped[:, 0].sum() < 200  # whole rows


def test_a_config_without_its_layer_is_named():
    with pytest.raises(ValueError, match="needs the wrapped layer under 'layer'"):
        ks.layers.SpectralNormalization.from_config({"power_iterations": 2})
