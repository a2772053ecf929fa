"""ConvLSTM1D/2D/3D: the step's equations, gradients against finite differences, states
(stateful, initial_state, return_state), masks, dropout, channels_first, config round trip
and the error messages."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_layer_gradients

RNG = np.random.default_rng(3)


def _x(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def test_conv_lstm1d_matches_the_equations():
    layer = ks.layers.ConvLSTM1D(2, 3, padding="same", return_sequences=True,
                                 bias_initializer="random_normal", dtype="float64")
    x = _x(1, 2, 5, 1, dtype=np.float64)
    out = layer(x).numpy()
    w, u, b = (v.numpy() for v in layer.weights)

    def conv_same(seq, kernel):  # (5, c) * (3, c, n) -> (5, n), 'same'
        padded = np.pad(seq, [(1, 1), (0, 0)])
        return np.stack([np.einsum("kc,kcn->n", padded[i:i + 3], kernel) for i in range(5)])

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    h = c = np.zeros((5, 2))
    for t in range(2):
        z = conv_same(x[0, t], w) + conv_same(h, u) + b
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        np.testing.assert_allclose(out[0, t], h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("layer_class, shape, kwargs", [
    (ks.layers.ConvLSTM1D, (2, 3, 5, 2), {"padding": "same"}),
    (ks.layers.ConvLSTM2D, (1, 2, 4, 4, 1), {"return_sequences": True, "go_backwards": True}),
    (ks.layers.ConvLSTM2D, (1, 2, 1, 5, 5), {"strides": 2, "data_format": "channels_first"}),
])
def test_gradients_match_finite_differences(layer_class, shape, kwargs):
    layer = layer_class(2, 2, dtype="float64", bias_initializer="random_normal", **kwargs)
    check_layer_gradients(layer, _x(*shape, dtype=np.float64))


def test_states_stateful_and_initial_state():
    x = _x(2, 3, 4, 4, 1)
    layer = ks.layers.ConvLSTM2D(3, 3, padding="same", return_state=True)
    out, h, c = layer(x)
    assert out.shape == h.shape == c.shape == (2, 4, 4, 3)
    np.testing.assert_array_equal(out.numpy(), h.numpy())
    # running the sequence in two halves with the states carried equals one run
    first = layer(x[:, :2])
    second = layer(x[:, 2:], initial_state=list(first[1:]))
    np.testing.assert_allclose(second[0].numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    stateful = ks.layers.ConvLSTM2D(3, 3, padding="same", stateful=True)
    stateful(x[:, :2])
    stateful.set_weights(layer.get_weights())
    stateful.reset_states()
    stateful(x[:, :2])
    np.testing.assert_allclose(stateful(x[:, 2:]).numpy(), out.numpy(), rtol=1e-5, atol=1e-6)


def test_a_masked_step_carries_the_states():
    x = _x(2, 3, 5, 2)
    layer = ks.layers.ConvLSTM1D(2, 3, padding="same")
    full = layer(x[:, :2]).numpy()
    masked = layer(x, mask=np.array([[1, 1, 0], [1, 1, 0]], bool)).numpy()
    np.testing.assert_allclose(masked, full, rtol=1e-6)


def test_dropout_only_in_training():
    x = _x(2, 3, 5, 2)
    layer = ks.layers.ConvLSTM1D(2, 3, dropout=0.5, recurrent_dropout=0.5, seed=1)
    np.testing.assert_array_equal(layer(x).numpy(), layer(x).numpy())
    assert not np.allclose(layer(x, training=True).numpy(), layer(x).numpy())


def test_channels_first_equals_channels_last():
    x = _x(2, 3, 5, 4, 2)
    last = ks.layers.ConvLSTM2D(3, 2, return_sequences=True, return_state=True)
    first = ks.layers.ConvLSTM2D(3, 2, return_sequences=True, return_state=True,
                                 data_format="channels_first")
    outs_last = last(x)
    first(np.moveaxis(x, -1, 2))
    first.set_weights(last.get_weights())
    outs_first = first(np.moveaxis(x, -1, 2))
    np.testing.assert_allclose(np.moveaxis(outs_first[0].numpy(), 2, -1),
                               outs_last[0].numpy(), rtol=1e-5)
    np.testing.assert_allclose(np.moveaxis(outs_first[1].numpy(), 1, -1),
                               outs_last[1].numpy(), rtol=1e-5)
    assert first.compute_output_shape((2, 3, 2, 5, 4)) == [(2, 3, 3, 4, 3), (2, 3, 4, 3),
                                                           (2, 3, 4, 3)]


def test_config_round_trip_and_weights():
    layer = ks.layers.ConvLSTM3D(2, (2, 1, 2), use_bias=False, return_sequences=True)
    layer(_x(1, 2, 3, 3, 3, 1))
    assert [w.name.split("/")[-1] for w in layer.weights] == ["kernel", "recurrent_kernel"]
    clone = ks.layers.ConvLSTM3D.from_config(layer.get_config())
    assert clone.kernel_size == (2, 1, 2) and clone.return_sequences and not clone.use_bias


def test_unit_forget_bias():
    layer = ks.layers.ConvLSTM1D(2, 1)
    layer(_x(1, 1, 3, 1))
    np.testing.assert_array_equal(layer.weights[2].numpy(), [0, 0, 1, 1, 0, 0, 0, 0])


@pytest.mark.parametrize("make, inputs, message", [
    (lambda: ks.layers.ConvLSTM2D(2, 3), _x(2, 3, 4, 4), "expects inputs of rank 5"),
    (lambda: ks.layers.ConvLSTM2D(2, 5), _x(1, 2, 3, 3, 1), "does not fit"),
    (lambda: ks.layers.ConvLSTM2D(2, 3, strides=2, dilation_rate=2), None,
     "strides > 1 together with dilation_rate > 1"),
    (lambda: ks.layers.ConvLSTM2D(2, 3, padding="causal"), None, "padding must be one of"),
    (lambda: ks.layers.ConvLSTM2D(2, 3, data_format="nhwc"), None, "data_format must be"),
    (lambda: ks.layers.ConvLSTM2D(2, 3, nonsense=1), None, "unexpected argument"),
])
def test_error_messages(make, inputs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        layer = make()
        layer(inputs)


def test_unknown_spatial_axes_are_refused():
    cell_layer = ks.layers.ConvLSTM2D(2, 3)
    with pytest.raises(InvalidArgumentError, match="static frame shapes"):
        cell_layer.build((None, 4, None, 5, 1))
