"""The 3-D convolution and pooling family, the 1-D transposed, depthwise and separable
convolutions and the adaptive poolings, against Keras 3: a `.keras` file built in Keras
loads here and predicts the same (float32 tolerance), and ours loads back in Keras. The
Keras tests skip without keras; the round trip and the errors run everywhere."""

import numpy as np
import pytest

import kerasish as ks

RNG = np.random.default_rng(7)
VOLUME = RNG.standard_normal((2, 6, 7, 8, 3)).astype("float32")
SEQUENCE = RNG.standard_normal((2, 12, 4)).astype("float32")


def _volume_model(library, data_format="channels_last"):
    layers = library.layers
    first = data_format == "channels_first"
    inputs = library.Input((3, 6, 7, 8) if first else (6, 7, 8, 3))
    x = layers.Conv3D(4, 3, padding="same", activation="relu", data_format=data_format)(inputs)
    x = layers.Conv3D(4, (2, 3, 1), strides=(1, 2, 1), groups=2, data_format=data_format)(x)
    x = layers.Conv3DTranspose(3, 3, strides=2, padding="same", data_format=data_format)(x)
    x = layers.Conv3DTranspose(2, (2, 3, 2), strides=(2, 1, 1), data_format=data_format,
                               output_padding=(1, 0, 0), dilation_rate=1)(x)
    a = layers.MaxPooling3D((2, 2, 3), strides=(1, 2, 2), padding="same",
                            data_format=data_format)(x)
    a = layers.AveragePooling3D(2, padding="same", data_format=data_format)(a)
    b = layers.AdaptiveAveragePooling3D((2, 3, 2), data_format=data_format)(x)
    c = layers.AdaptiveMaxPooling3D(2, data_format=data_format)(x)
    pooled = [layers.GlobalAveragePooling3D(data_format=data_format)(a),
              layers.GlobalMaxPooling3D(data_format=data_format)(a),
              layers.Flatten()(b), layers.Flatten()(c)]
    return library.Model(inputs, layers.Dense(3)(layers.Concatenate()(pooled)))


def _sequence_model(library):
    layers = library.layers
    inputs = library.Input((12, 4))
    x = layers.Conv1DTranspose(5, 3, strides=2, padding="same")(inputs)
    x = layers.Conv1DTranspose(4, 4, strides=3, output_padding=2, dilation_rate=1)(x)
    x = layers.DepthwiseConv1D(3, depth_multiplier=2, padding="same", activation="tanh")(x)
    x = layers.SeparableConv1D(6, 5, strides=2, depth_multiplier=2)(x)
    x = layers.DepthwiseConv1D(2, dilation_rate=2, data_format="channels_first")(x)
    x = layers.AdaptiveMaxPooling1D(5)(x)
    y = layers.AdaptiveAveragePooling1D(3)(x)
    x = layers.Concatenate(axis=1)([x, y])
    z = layers.AdaptiveAveragePooling2D((3, 2))(layers.Reshape((8, 4, 1))(x))
    w = layers.AdaptiveMaxPooling2D(2, data_format="channels_first")(layers.Reshape((1, 8, 4))(x))
    return library.Model(inputs, layers.Concatenate()([layers.Flatten()(z),
                                                        layers.Flatten()(w)]))


CASES = [
    (lambda lib: _volume_model(lib), VOLUME),
    (lambda lib: _volume_model(lib, "channels_first"), np.moveaxis(VOLUME, -1, 1).copy()),
    (_sequence_model, SEQUENCE),
]


@pytest.mark.parametrize("build, inputs", CASES)
def test_kerasish_round_trip(tmp_path, build, inputs):
    model = build(ks)
    expected = model(inputs).numpy()
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = ks.models.load_model(path)
    np.testing.assert_array_equal(loaded(inputs).numpy(), expected)


@pytest.mark.parametrize("build, inputs", CASES)
def test_keras_files_load_and_predict_the_same(tmp_path, build, inputs):
    keras = pytest.importorskip("keras")
    theirs = build(keras)
    expected = np.asarray(theirs(inputs))
    keras_path = str(tmp_path / "from_keras.keras")
    theirs.save(keras_path)
    ours = ks.models.load_model(keras_path)
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    np.testing.assert_allclose(ours(inputs).numpy(), expected, rtol=1e-4, atol=1e-5)
    ours_path = str(tmp_path / "from_kerasish.keras")
    ours.save(ours_path)
    back = keras.models.load_model(ours_path)
    np.testing.assert_allclose(np.asarray(back(inputs)), expected, rtol=1e-4, atol=1e-5)


def test_layer_weights_and_configs_match_keras():
    keras = pytest.importorskip("keras")
    for name, args, shape in [
        ("Conv3D", (4, 3), (1, 5, 5, 5, 2)),
        ("Conv3DTranspose", (4, 3), (1, 3, 3, 3, 2)),
        ("Conv1DTranspose", (4, 3), (1, 5, 2)),
        ("DepthwiseConv1D", (3,), (1, 5, 2)),
        ("SeparableConv1D", (4, 3), (1, 5, 2)),
        ("AdaptiveMaxPooling2D", (3,), (1, 6, 6, 2)),
        ("MaxPooling3D", (), (1, 4, 4, 4, 2)),
        ("GlobalAveragePooling3D", (), (1, 4, 4, 4, 2)),
    ]:
        theirs, ours = getattr(keras.layers, name)(*args), getattr(ks.layers, name)(*args)
        theirs.build(shape)
        ours.build(shape)
        # the weights' order and shapes (what a .weights.h5 file relies on); DepthwiseConv1D's
        # kernel is `depthwise_kernel` here as DepthwiseConv2D's (Keras names it `kernel`)
        assert [tuple(w.shape) for w in theirs.weights] == [
            tuple(w.shape) for w in ours.weights], name
        keras_config = {k: v for k, v in theirs.get_config().items() if k != "name"}
        our_config = ks.saving.serialize_keras_object(ours)["config"]
        for key, value in keras_config.items():
            assert key in our_config, (name, key)
            if isinstance(value, (int, str, tuple, list, type(None))):
                mine = our_config[key]
                assert (list(mine) if isinstance(mine, tuple) else mine) == (
                    list(value) if isinstance(value, tuple) else value), (name, key)


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match=r"output_size must be an integer or a tuple of 2"):
        ks.layers.AdaptiveAveragePooling2D((2, 2, 2))
    with pytest.raises(ValueError, match="output_padding must be 3 ints"):
        ks.layers.Conv3DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match=r"expects inputs of rank 5"):
        ks.layers.Conv3D(2, 3)(ks.ones([1, 4, 4, 2]))
    with pytest.raises(ValueError, match=r"rank 5"):
        ks.layers.MaxPooling3D()(ks.ones([1, 4, 4, 2]))
    with pytest.raises(ValueError, match=r"output_size must be a positive int or 1 of them"):
        ks.ops.adaptive_max_pool(np.ones((1, 4, 2)), (2, 2))
    with pytest.raises(ValueError, match=r"mode must be 'average' or 'max'"):
        ks.nn.adaptive_pool(np.ones((1, 4, 2)), 2, "median")
    with pytest.raises(ValueError, match=r"1 to 3 spatial axes"):
        ks.nn.adaptive_pool(np.ones((4, 2)), 2)
    with pytest.raises(ValueError, match=r"1, 2 or 3 spatial axes"):
        ks.ops.conv(np.ones((1, 2, 2, 2, 2, 1)), np.ones((1, 1, 1, 1, 1, 1)))


def test_adaptive_pool_gradients_match_finite_differences():
    from kerasish.testing import check_gradients

    x = RNG.permutation(np.arange(2 * 7 * 5 * 3) * 0.1).reshape(2, 7, 5, 3)  # no ties
    check_gradients(lambda v: ks.ops.adaptive_max_pool(v, (3, 2)), [x], order=2)
    check_gradients(lambda v: ks.ops.adaptive_average_pool(v * v, (4, 3),
                                                           data_format="channels_first"),
                    [RNG.standard_normal((2, 3, 7, 5))], order=2)


@pytest.mark.parametrize("shape, kernel, strides, padding, output_padding, data_format", [
    ((2, 5, 3), (3, 4, 3), 2, "valid", None, None),
    ((2, 5, 3), (4, 4, 3), 3, "same", 1, None),
    ((1, 4, 5, 3), (3, 2, 2, 3), (2, 1), "same", None, None),
    ((1, 3, 4, 5), (2, 3, 2, 3), 2, "valid", (1, 0), "channels_first"),
    ((1, 3, 4, 3, 2), (3, 3, 2, 4, 2), (2, 1, 2), "same", None, None),
])
def test_ops_conv_transpose_matches_keras(shape, kernel, strides, padding, output_padding,
                                          data_format):
    keras = pytest.importorskip("keras")
    x = RNG.standard_normal(shape).astype("float32")
    w = RNG.standard_normal(kernel).astype("float32")
    ours = ks.ops.conv_transpose(x, w, strides, padding, output_padding, data_format)
    theirs = keras.ops.conv_transpose(x, w, strides, padding, output_padding, data_format)
    np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-4, atol=1e-5)


def test_ops_pools_and_rms_normalization_match_keras():
    keras = pytest.importorskip("keras")
    for shape, size in [((2, 11, 3), 4), ((2, 7, 9, 3), (3, 4)), ((1, 5, 6, 7, 2), (2, 3, 4))]:
        x = RNG.standard_normal(shape).astype("float32")
        for name in ("adaptive_average_pool", "adaptive_max_pool"):
            np.testing.assert_allclose(getattr(ks.ops, name)(x, size).numpy(),
                                       np.asarray(getattr(keras.ops, name)(x, size)),
                                       rtol=1e-5, atol=1e-6)
    x = RNG.standard_normal((2, 5, 6, 7, 3)).astype("float32")
    w = RNG.standard_normal((2, 3, 2, 3, 4)).astype("float32")
    np.testing.assert_allclose(ks.ops.conv(x, w, (1, 2, 1), "same").numpy(),
                               np.asarray(keras.ops.conv(x, w, (1, 2, 1), "same")),
                               rtol=1e-4, atol=1e-5)
    for name in ("max_pool", "average_pool"):
        np.testing.assert_allclose(
            getattr(ks.ops, name)(x, (2, 3, 2), (1, 2, 2), "same").numpy(),
            np.asarray(getattr(keras.ops, name)(x, (2, 3, 2), (1, 2, 2), "same")),
            rtol=1e-5, atol=1e-6)
    scale = RNG.standard_normal(3).astype("float32")
    np.testing.assert_allclose(
        ks.ops.rms_normalization(x, scale, axis=-1, epsilon=1e-3).numpy(),
        np.asarray(keras.ops.rms_normalization(x, scale, axis=-1, epsilon=1e-3)), rtol=1e-5)


def test_ops_conv_transpose_gradient_and_errors():
    from kerasish.testing import check_gradients

    check_gradients(lambda x, w: ks.ops.conv_transpose(x, w, 2, "same"),
                    [RNG.standard_normal((1, 4, 2)), RNG.standard_normal((3, 3, 2))], order=2)
    with pytest.raises(ValueError, match="conv_transpose: needs inputs with 1 to 3 spatial"):
        ks.ops.conv_transpose(np.ones((1, 4, 2)), np.ones((3, 3, 3, 2)))
