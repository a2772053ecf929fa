"""Convolution, pooling and resizing layers: shapes, weights, gradients, configs, errors,
and forward outputs equal to Keras 3's on the same weights (skipped without keras)."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_layer_gradients, layer_test

RNG = np.random.default_rng(4242)
L = ks.layers

# (class name, constructor arguments, input shape): each is built, compared with Keras,
# gradient-checked and round-tripped through get_config
CASES = [
    ("Conv1D", dict(filters=4, kernel_size=3), (2, 9, 3)),
    ("Conv1D", dict(filters=4, kernel_size=3, strides=2, padding="same"), (2, 9, 3)),
    ("Conv1D", dict(filters=4, kernel_size=3, padding="causal", dilation_rate=2), (2, 9, 3)),
    ("Conv1D", dict(filters=6, kernel_size=2, groups=2, activation="relu"), (2, 7, 4)),
    ("Conv2D", dict(filters=3, kernel_size=(3, 2)), (2, 7, 6, 2)),
    ("Conv2D", dict(filters=3, kernel_size=3, strides=(2, 1), padding="same"), (2, 7, 6, 2)),
    ("Conv2D", dict(filters=4, kernel_size=2, dilation_rate=(2, 3), padding="same"),
     (2, 7, 8, 2)),
    ("Conv2D", dict(filters=6, kernel_size=3, groups=3, use_bias=False), (2, 6, 6, 3)),
    ("Conv2D", dict(filters=3, kernel_size=3, data_format="channels_first"), (2, 2, 6, 5)),
    ("Conv2DTranspose", dict(filters=3, kernel_size=3), (2, 4, 5, 2)),
    ("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2, padding="same"), (2, 4, 5, 2)),
    ("Conv2DTranspose", dict(filters=2, kernel_size=(2, 3), strides=(3, 2)), (2, 3, 4, 2)),
    ("Conv2DTranspose", dict(filters=2, kernel_size=3, strides=2, padding="same",
                             output_padding=1), (2, 3, 4, 2)),
    ("Conv2DTranspose", dict(filters=2, kernel_size=4, strides=2, output_padding=(1, 0)),
     (2, 3, 3, 2)),
    ("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=2), (2, 6, 5, 3)),
    ("DepthwiseConv2D", dict(kernel_size=(2, 3), strides=2, padding="same"), (2, 6, 5, 3)),
    ("DepthwiseConv2D", dict(kernel_size=2, dilation_rate=2, padding="same"), (2, 6, 5, 3)),
    ("SeparableConv2D", dict(filters=4, kernel_size=3, depth_multiplier=2), (2, 6, 5, 3)),
    ("SeparableConv2D", dict(filters=4, kernel_size=2, strides=2, padding="same"),
     (2, 6, 5, 3)),
    ("MaxPooling1D", dict(), (2, 9, 3)),
    ("MaxPooling1D", dict(pool_size=3, strides=2, padding="same"), (2, 8, 3)),
    ("AveragePooling1D", dict(pool_size=3, strides=1, padding="same"), (2, 8, 3)),
    ("AveragePooling1D", dict(pool_size=2, data_format="channels_first"), (2, 3, 8)),
    ("MaxPooling2D", dict(pool_size=(3, 2), strides=(1, 2), padding="same"), (2, 5, 6, 2)),
    ("AveragePooling2D", dict(pool_size=2, padding="same"), (2, 5, 5, 2)),
    ("GlobalAveragePooling1D", dict(), (2, 7, 3)),
    ("GlobalAveragePooling1D", dict(keepdims=True, data_format="channels_first"), (2, 3, 7)),
    ("GlobalMaxPooling1D", dict(keepdims=True), (2, 7, 3)),
    ("GlobalAveragePooling2D", dict(keepdims=True), (2, 4, 5, 3)),
    ("GlobalMaxPooling2D", dict(), (2, 4, 5, 3)),
    ("GlobalMaxPooling2D", dict(data_format="channels_first"), (2, 3, 4, 5)),
    ("UpSampling1D", dict(size=3), (2, 4, 3)),
    ("UpSampling2D", dict(size=(2, 3)), (2, 3, 4, 2)),
    ("UpSampling2D", dict(size=(3, 2), interpolation="bilinear"), (2, 3, 4, 2)),
    ("UpSampling2D", dict(size=2, interpolation="bilinear", data_format="channels_first"),
     (2, 2, 3, 4)),
    ("ZeroPadding1D", dict(padding=(1, 2)), (2, 4, 3)),
    ("ZeroPadding2D", dict(padding=((1, 0), (2, 3))), (2, 3, 4, 2)),
    ("ZeroPadding2D", dict(padding=(1, 2), data_format="channels_first"), (2, 2, 3, 4)),
    ("Cropping1D", dict(cropping=(2, 1)), (2, 6, 3)),
    ("Cropping2D", dict(cropping=((1, 0), (2, 1))), (2, 4, 6, 2)),
    ("Cropping2D", dict(cropping=1, data_format="channels_first"), (2, 2, 4, 5)),
]

def _ids():
    return [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def _inputs(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=_ids())
def test_output_shape_matches_compute_output_shape(name, kwargs, shape):
    layer = getattr(L, name)(**kwargs)
    out = layer(_inputs(shape))
    symbolic = (None,) + tuple(shape[1:])
    assert layer.compute_output_shape(shape) == out.shape
    assert layer.compute_output_shape(symbolic) == (None,) + out.shape[1:]


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=_ids())
def test_config_round_trip_rebuilds_the_same_layer(name, kwargs, shape):
    layer = getattr(L, name)(**kwargs)
    config = layer.get_config()
    for key in kwargs:
        assert key in config, f"{name}.get_config() lacks {key!r}"
    copy = type(layer).from_config(config)
    assert copy.get_config() == config
    x = _inputs(shape)
    layer(x)
    copy(x)
    assert [v.shape for v in copy.weights] == [v.shape for v in layer.weights]
    copy.set_weights(layer.get_weights())
    np.testing.assert_array_equal(copy(x).numpy(), layer(x).numpy())


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=_ids())
def test_layer_gradients(name, kwargs, shape):
    if name.startswith("GlobalMax") or name.startswith("MaxPool"):
        x = RNG.permutation(np.arange(np.prod(shape)) * 0.1).reshape(shape)  # no ties
    else:
        x = RNG.standard_normal(shape)
    layer = getattr(L, name)(dtype="float64", **kwargs)
    check_layer_gradients(layer, x)


def test_numpy_integers_are_accepted_as_sizes():
    layer = L.Conv2D(np.int64(2), np.int64(3), strides=(np.int32(1), 1))
    assert layer.kernel_size == (3, 3) and type(layer.kernel_size[0]) is int


def test_weight_names_and_layouts():
    x = _inputs((1, 6, 6, 4))
    conv = L.Conv2D(6, (3, 2), groups=2, name="conv2d")
    conv(x)
    assert [(v.name, v.shape) for v in conv.weights] == [
        ("conv2d/kernel", (3, 2, 2, 6)), ("conv2d/bias", (6,))
    ]
    transpose = L.Conv2DTranspose(5, 3, name="up")
    transpose(x)
    assert [(v.name, v.shape) for v in transpose.weights] == [
        ("up/kernel", (3, 3, 5, 4)), ("up/bias", (5,))
    ]
    depthwise = L.DepthwiseConv2D(3, depth_multiplier=2, name="dw")
    depthwise(x)
    assert [(v.name, v.shape) for v in depthwise.weights] == [
        ("dw/depthwise_kernel", (3, 3, 4, 2)), ("dw/bias", (8,))
    ]
    separable = L.SeparableConv2D(7, 3, depth_multiplier=2, name="sep")
    separable(x)
    assert [(v.name, v.shape) for v in separable.weights] == [
        ("sep/depthwise_kernel", (3, 3, 4, 2)), ("sep/pointwise_kernel", (1, 1, 8, 7)),
        ("sep/bias", (7,)),
    ]
    conv1d = L.Conv1D(5, 3, name="c1")
    conv1d(_inputs((2, 8, 4)))
    assert [(v.name, v.shape) for v in conv1d.weights] == [
        ("c1/kernel", (3, 4, 5)), ("c1/bias", (5,))
    ]


def test_layers_train():
    layer_test(L.Conv1D(4, 3, padding="causal"), (4, 10, 3), (4, 10, 4), 2)
    layer_test(L.Conv2DTranspose(2, 3, strides=2, padding="same"), (2, 4, 4, 3), (2, 8, 8, 2), 2)
    layer_test(L.SeparableConv2D(4, 3), (2, 6, 6, 3), (2, 4, 4, 4), 3)
    layer_test(L.DepthwiseConv2D(3, padding="same"), (2, 6, 6, 3), (2, 6, 6, 3), 2)


def test_causal_conv1d_does_not_look_ahead():
    layer = L.Conv1D(2, 3, padding="causal", dilation_rate=2)
    x = _inputs((1, 10, 2))
    before = layer(x).numpy()
    changed = x.copy()
    changed[0, 6:] += 5.0
    after = layer(changed).numpy()
    np.testing.assert_array_equal(before[0, :6], after[0, :6])
    assert not np.allclose(before[0, 6:], after[0, 6:])


def test_global_average_pooling1d_honours_a_mask():
    x = _inputs((2, 4, 3))
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    layer = L.GlobalAveragePooling1D()
    out = layer(x, mask=mask).numpy()
    np.testing.assert_allclose(out[0], x[0, :2].mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(out[1], x[1].mean(axis=0), rtol=1e-6)
    assert layer.compute_mask(x, mask) is None
    # a mask from Embedding(mask_zero=True) reaches it through the call
    ids = np.array([[3, 1, 0, 0]])
    embedded = L.Embedding(5, 3, mask_zero=True)
    vectors = embedded(ids)
    pooled = L.GlobalAveragePooling1D()(vectors, mask=embedded.compute_mask(ids))
    np.testing.assert_allclose(pooled.numpy()[0], vectors.numpy()[0, :2].mean(axis=0), rtol=1e-6)


def test_upsampling_values():
    x = np.arange(4.0, dtype=np.float32).reshape(1, 2, 2, 1)
    nearest = L.UpSampling2D((2, 1))(x).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(nearest, [[0, 1], [0, 1], [2, 3], [2, 3]])
    row = np.array([[[0.0], [4.0]]], dtype=np.float32).reshape(1, 1, 2, 1)
    bilinear = L.UpSampling2D((1, 2), interpolation="bilinear")(row).numpy()[0, 0, :, 0]
    np.testing.assert_allclose(bilinear, [0.0, 1.0, 3.0, 4.0])  # half-pixel, clamped edges


def test_padding_and_cropping_values():
    x = np.ones((1, 2, 2, 1), dtype=np.float32)
    padded = L.ZeroPadding2D(((1, 0), (0, 2)))(x).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(padded, [[0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]])
    seq = np.arange(6.0, dtype=np.float32).reshape(1, 6, 1)
    np.testing.assert_array_equal(L.Cropping1D((2, 1))(seq).numpy()[0, :, 0], [2, 3, 4])


def test_argument_errors():
    with pytest.raises(ks.InvalidArgumentError, match=r"Conv2D: filters \(5\) must be a "
                       r"multiple of groups \(2\)"):
        L.Conv2D(5, 3, groups=2)
    with pytest.raises(ks.InvalidArgumentError, match="strides > 1 together with "
                       "dilation_rate > 1"):
        L.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ks.InvalidArgumentError, match="Conv2D: padding must be one of "
                       "'valid', 'same', got 'causal'"):
        L.Conv2D(2, 3, padding="causal")
    with pytest.raises(ks.InvalidArgumentError, match="data_format must be 'channels_last' or "
                       "'channels_first'"):
        L.MaxPooling2D(data_format="nhwc")
    with pytest.raises(ks.InvalidArgumentError, match="Conv2DTranspose: output_padding must "
                       "be 2 ints, each >= 0 and smaller than its stride"):
        L.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ks.InvalidArgumentError, match="UpSampling2D: interpolation must be"):
        L.UpSampling2D(interpolation="bicubic")
    with pytest.raises(ks.InvalidArgumentError, match="ZeroPadding2D: padding must be a "
                       "non-negative int"):
        L.ZeroPadding2D(((1, 2, 3), (0, 0)))


def test_build_and_call_errors_name_the_layer_and_shapes():
    with pytest.raises(ks.InvalidArgumentError, match=r"Conv2D 'grouped': the 3 input channels "
                       r"of shape \(1, 5, 5, 3\) are not divisible by groups=2"):
        L.Conv2D(4, 3, groups=2, name="grouped")(_inputs((1, 5, 5, 3)))
    with pytest.raises(ks.InvalidArgumentError, match=r"Conv1D 'c': expects inputs of rank 3 "
                       r"\(batch, 1 spatial axes, channels\), got shape \(2, 5, 5, 3\)"):
        L.Conv1D(4, 3, name="c")(_inputs((2, 5, 5, 3)))
    with pytest.raises(ks.InvalidArgumentError, match=r"Cropping1D 'crop': cropping \(\(3, 3\),\) "
                       r"leaves nothing of axis 1 \(size 5\)"):
        L.Cropping1D(3, name="crop")(_inputs((1, 5, 2)))


# ---------------------------------------------------------------- against Keras 3


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=_ids())
def test_forward_matches_keras(name, kwargs, shape):
    keras = pytest.importorskip("keras")
    x = _inputs(shape)
    ours = getattr(L, name)(**kwargs)
    expected_ours = ours(x).numpy()
    if "Conv" in name and kwargs.get("data_format") == "channels_first":
        # TF's CPU convolutions take channels last only: compare on transposed data
        kwargs = {k: v for k, v in kwargs.items() if k != "data_format"}
        x, expected_ours = np.moveaxis(x, 1, -1), np.moveaxis(expected_ours, 1, -1)
        shape = x.shape
    theirs = getattr(keras.layers, name)(**kwargs)
    theirs.build(shape)
    assert [tuple(w.shape) for w in theirs.weights] == [v.shape for v in ours.weights]
    theirs.set_weights(ours.get_weights())
    expected = np.asarray(theirs(x))
    np.testing.assert_allclose(expected_ours, expected, rtol=1e-5, atol=1e-5)


def test_masked_average_matches_keras():
    keras = pytest.importorskip("keras")
    x = _inputs((3, 5, 2))
    mask = RNG.random((3, 5)) > 0.4
    mask[:, 0] = True
    ours = L.GlobalAveragePooling1D()(x, mask=mask).numpy()
    theirs = np.asarray(keras.layers.GlobalAveragePooling1D()(x, mask=mask))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_constraints_and_activity_regularizer_reach_the_weights():
    layer = L.SeparableConv2D(
        3, 2, depthwise_constraint="non_neg", pointwise_constraint="non_neg",
        bias_constraint="non_neg", activity_regularizer="l2",
    )
    x = _inputs((2, 5, 5, 2))
    layer(x)
    optimizer = ks.optimizers.SGD(1.0)
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(layer(x))
    optimizer.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables),
                                  layer.trainable_variables))
    for variable in layer.trainable_variables:  # the sum is lowered by negative weights
        assert variable.numpy().min() >= 0, variable.name
    assert len(layer.losses) == 1  # the activity penalty of the last call
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config
    conv = L.Conv2DTranspose(2, 2, kernel_constraint="non_neg")
    conv(x)
    assert conv.kernel.constraint is not None and conv.bias.constraint is None


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=_ids())
def test_config_keys_match_keras(name, kwargs, shape):
    keras = pytest.importorskip("keras")
    ours = set(getattr(L, name)(**kwargs).get_config())
    theirs = set(getattr(keras.layers, name)(**kwargs).get_config())
    assert theirs - ours <= {"activity_regularizer"}  # written by the base layer when set
    assert ours <= theirs


@pytest.mark.parametrize("make,message", [
    (lambda: L.Conv2DTranspose(0, 3), "Conv2DTranspose: filters must be a positive integer"),
    (lambda: L.DepthwiseConv2D(3, depth_multiplier=0),
     "DepthwiseConv2D: depth_multiplier must be a positive integer, got 0"),
    (lambda: L.SeparableConv2D(-1, 3), "SeparableConv2D: filters must be a positive integer"),
    (lambda: L.Conv1D(2, (3, 3)), r"Conv1D: kernel_size must be a positive integer or 1 of "
                                  r"them, got \(3, 3\)"),
    (lambda: L.MaxPooling1D(0), "MaxPooling1D: pool_size must be a positive integer"),
    (lambda: L.Conv2D(2, 2.5), "Conv2D: kernel_size must be a positive integer or 2 of them, "
                               "got 2.5"),
    (lambda: L.UpSampling2D(size=(2, 0)),
     "UpSampling2D: size must be a positive integer or 2 of them"),
    (lambda: L.Cropping2D(-1), "Cropping2D: cropping must be a non-negative int"),
])
def test_constructor_errors(make, message):
    with pytest.raises(ks.InvalidArgumentError, match=message):
        make()


def test_unknown_channel_axis_is_refused_at_shape_inference():
    with pytest.raises(ks.InvalidArgumentError, match=r"Conv2D 'c': the channel axis of the "
                       r"input must be known, got shape \(None, 5, 5, None\)"):
        L.Conv2D(2, 3, name="c").compute_output_shape((None, 5, 5, None))
