"""Keras 3 parity of STFTSpectrogram and MelSpectrogram: the same outputs on the same audio
in every mode and layout, the same config keys and output shapes, and Keras `.keras` and
`.weights.h5` files (with fine-tuned kernels) that load here and predict the same. Skips
without keras (run with the interop venv, KERAS_BACKEND=numpy)."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)
SIGNAL = RNG.standard_normal((2, 300, 2)).astype("float32")
AUDIO = RNG.standard_normal((3, 4000)).astype("float32")
STFT_KWARGS = {"frame_length": 20, "frame_step": 7, "fft_length": 32, "window": "hamming",
               "periodic": True, "scaling": "spectrum"}


def _close(ours, theirs, atol):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape
    assert np.max(np.abs(ours - theirs), initial=0.0) <= atol


@pytest.mark.parametrize("mode", ["log", "magnitude", "psd", "real", "imag", "angle", "stft"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("expand_dims", [False, True])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_stft_spectrogram_as_keras(mode, data_format, expand_dims, padding):
    kwargs = dict(STFT_KWARGS, mode=mode, padding=padding, expand_dims=expand_dims,
                  data_format=data_format)
    x = SIGNAL if data_format == "channels_last" else np.swapaxes(SIGNAL, 1, 2)
    ours, theirs = ks.layers.STFTSpectrogram(**kwargs), keras.layers.STFTSpectrogram(**kwargs)
    _close(ours(x).numpy(), theirs(x), 1e-4)
    assert ours.compute_output_shape(x.shape) == theirs.compute_output_shape(x.shape)
    assert set(ours.get_config()) == set(theirs.get_config())
    assert [w.name.split("/")[-1] for w in ours.weights] == [w.name for w in theirs.weights]


def _fine_tuned_keras_model():
    model = keras.Sequential([keras.Input((300, 2)),
                              keras.layers.STFTSpectrogram("log", **STFT_KWARGS, padding="same"),
                              keras.layers.Dense(3)])
    for weight in model.weights:  # fine-tuned kernels: the file, not the initializer, counts
        value = np.asarray(weight.numpy())
        weight.assign(value + 0.01 * RNG.standard_normal(value.shape).astype(value.dtype))
    return model


def test_keras_file_with_stft_spectrogram_loads_and_predicts_the_same(tmp_path):
    theirs = _fine_tuned_keras_model()
    theirs.save(tmp_path / "m.keras")
    ours = ks.models.load_model(tmp_path / "m.keras")
    _close(ours.predict(SIGNAL, verbose=0), theirs.predict(SIGNAL, verbose=0), 1e-4)


def test_keras_weights_file_loads_into_the_same_kerasish_model(tmp_path):
    theirs = _fine_tuned_keras_model()
    theirs.save_weights(tmp_path / "m.weights.h5")
    ours = ks.Sequential([ks.Input((300, 2)),
                          ks.layers.STFTSpectrogram("log", **STFT_KWARGS, padding="same"),
                          ks.layers.Dense(3)])
    ours.load_weights(tmp_path / "m.weights.h5")
    _close(ours.predict(SIGNAL, verbose=0), theirs.predict(SIGNAL, verbose=0), 1e-4)


@pytest.mark.parametrize("kwargs", [
    {},
    {"fft_length": 64, "sequence_stride": 32, "num_mel_bins": 8},
    {"fft_length": 128, "sequence_stride": 50, "sequence_length": 100, "window": "hamming",
     "sampling_rate": 8000, "num_mel_bins": 20, "min_freq": 50.0, "max_freq": 3000,
     "top_db": 40.0, "mag_exp": 1.0, "min_power": 1e-6, "ref_power": 2.0},
    {"fft_length": 64, "sequence_stride": 16, "num_mel_bins": 16, "power_to_db": False},
])
def test_mel_spectrogram_as_keras(kwargs):
    ours, theirs = ks.layers.MelSpectrogram(**kwargs), keras.layers.MelSpectrogram(**kwargs)
    expected = np.asarray(theirs(AUDIO))
    scale = max(1.0, float(np.max(np.abs(expected))))
    _close(ours(AUDIO).numpy(), expected, 1e-5 * scale)
    _close(ours(AUDIO[0]).numpy(), theirs(AUDIO[0]), 1e-5 * scale)
    ours_config, their_config = ours.get_config(), theirs.get_config()
    assert set(ours_config) == set(their_config)
    assert {k: v for k, v in ours_config.items() if k != "dtype"} == \
        {k: v for k, v in their_config.items() if k != "dtype"}


def test_keras_file_with_mel_spectrogram_loads_and_predicts_the_same(tmp_path):
    theirs = keras.Sequential([keras.Input((4000,)),
                               keras.layers.MelSpectrogram(fft_length=128, sequence_stride=64,
                                                           num_mel_bins=16),
                               keras.layers.Flatten(), keras.layers.Dense(2)])
    theirs.save(tmp_path / "m.keras")
    ours = ks.models.load_model(tmp_path / "m.keras")
    expected = theirs.predict(AUDIO, verbose=0)
    _close(ours.predict(AUDIO, verbose=0), expected, 1e-4 * max(1.0, np.abs(expected).max()))
