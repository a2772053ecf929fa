"""Keras 3 parity of ConvLSTM1D/2D/3D: a `.keras` file built in Keras loads here and
predicts the same (weights kernel, recurrent_kernel, bias in Keras's order), with
return_sequences/state, go_backwards, strides, dilation, padding and channels_first;
configs read both ways. Skips without keras (run with the interop venv,
KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)


def _load_and_compare(tmp_path, model, inputs, atol=1e-5):
    path = str(tmp_path / "model.keras")
    model.save(path)
    ours = ks.models.load_model(path)
    theirs = model.predict(inputs, verbose=0)
    got = ours.predict(inputs, verbose=0)
    as_list = lambda r: list(r) if isinstance(r, (list, tuple)) else [r]  # noqa: E731
    assert len(as_list(got)) == len(as_list(theirs))
    for a, b in zip(as_list(got), as_list(theirs)):
        np.testing.assert_allclose(a, b, atol=atol, rtol=1e-5)
    return ours


@pytest.mark.parametrize("kind, shape, kwargs", [
    ("ConvLSTM2D", (4, 7, 6, 2), {}),
    ("ConvLSTM2D", (4, 7, 6, 2), {"padding": "same", "return_sequences": True,
                                   "go_backwards": True}),
    ("ConvLSTM2D", (4, 9, 8, 2), {"strides": 2, "use_bias": False}),
    ("ConvLSTM2D", (4, 9, 8, 2), {"dilation_rate": 2, "return_state": True}),
    ("ConvLSTM2D", (4, 2, 7, 6), {"data_format": "channels_first",
                                   "return_sequences": True}),
    ("ConvLSTM1D", (5, 9, 3), {"padding": "same", "return_sequences": True}),
    ("ConvLSTM3D", (3, 5, 4, 4, 2), {"return_state": True}),
])
def test_conv_lstm_keras_file_predicts_the_same(tmp_path, kind, shape, kwargs):
    if kwargs.get("data_format") == "channels_first" and keras.backend.backend() == "tensorflow":
        # (KERAS_BACKEND is only a default here: a module imported keras first with TF,
        # whose CPU convolutions take channels_last only)
        pytest.skip("Keras's TensorFlow backend has no channels_first convolution on the CPU")
    x = keras.Input(shape)
    layer = getattr(keras.layers, kind)(3, 3 if kind != "ConvLSTM3D" else 2,
                                        bias_initializer="random_normal", **kwargs)
    out = layer(x)
    model = keras.Model(x, out)
    inputs = RNG.normal(size=(2,) + shape).astype("float32")
    ours = _load_and_compare(tmp_path, model, inputs)
    assert [w.name.split("/")[-1] for w in ours.weights] == [w.name for w in model.weights]


def test_conv_lstm_config_reads_both_ways():
    layer = keras.layers.ConvLSTM2D(4, (3, 2), strides=(1, 2), padding="same",
                                    recurrent_dropout=0.1, unit_forget_bias=False,
                                    return_sequences=True, stateful=False)
    config = layer.get_config()
    ours = ks.layers.ConvLSTM2D.from_config(config)
    assert set(ours.get_config()) >= set(config) - {"dtype"}
    assert ours.kernel_size == (3, 2) and ours.strides == (1, 2)
    back = keras.layers.ConvLSTM2D.from_config(
        ks.saving.serialize_keras_object(ours)["config"])
    assert back.filters == 4 and back.padding == "same" and back.return_sequences
