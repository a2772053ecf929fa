"""STFTSpectrogram and MelSpectrogram: outputs against NumPy's FFT, shapes in every layout,
gradients against finite differences, trainable kernels, configs, saving and every error."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.layers.spectrogram import linear_to_mel_weight_matrix
from kerasish.testing import check_gradients

RNG = np.random.default_rng(0)
SIGNAL = RNG.standard_normal((2, 64, 3)).astype("float32")
MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]


def _numpy_stft(signal, frame_length, step, fft_length):
    """(batch, time) signals: rfft of hann-windowed frames, (batch, frames, bins)."""
    n = np.arange(frame_length)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * n / (frame_length - 1))  # symmetric hann
    count = (signal.shape[-1] - frame_length) // step + 1
    frames = np.stack([signal[:, i * step:i * step + frame_length] for i in range(count)], 1)
    return np.fft.rfft(frames * window, n=fft_length)


def test_real_imag_and_magnitude_are_numpys_rfft_of_windowed_frames():
    kwargs = {"frame_length": 16, "frame_step": 6, "fft_length": 32, "scaling": None}
    expected = _numpy_stft(SIGNAL[..., 1], 16, 6, 32)
    real = ks.layers.STFTSpectrogram("real", **kwargs)(SIGNAL).numpy()
    imag = ks.layers.STFTSpectrogram("imag", **kwargs)(SIGNAL).numpy()
    magnitude = ks.layers.STFTSpectrogram("magnitude", **kwargs)(SIGNAL).numpy()
    angle = ks.layers.STFTSpectrogram("angle", **kwargs)(SIGNAL).numpy()
    bins = 17
    channel = slice(bins, 2 * bins)  # channels_last: channel-major blocks of bins
    np.testing.assert_allclose(real[..., channel], expected.real, atol=1e-4)
    np.testing.assert_allclose(imag[..., channel], expected.imag, atol=1e-4)
    np.testing.assert_allclose(magnitude[..., channel], np.abs(expected), atol=1e-4)
    np.testing.assert_allclose(np.cos(angle[..., channel]) * np.abs(expected), expected.real,
                               atol=1e-3)


def test_psd_doubles_the_bins_between_dc_and_nyquist_and_log_is_log_magnitude():
    kwargs = {"frame_length": 16, "frame_step": 8, "expand_dims": True}
    psd = ks.layers.STFTSpectrogram("psd", **kwargs)(SIGNAL).numpy()
    magnitude = ks.layers.STFTSpectrogram("magnitude", **kwargs)(SIGNAL).numpy()
    log = ks.layers.STFTSpectrogram("log", **kwargs)(SIGNAL).numpy()
    power = np.square(magnitude)
    power[:, :, 1:-1] *= 2
    np.testing.assert_allclose(psd, power, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(log, np.log(magnitude), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("expand_dims", [False, True])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_shapes_match_compute_output_shape_and_the_symbolic_call(mode, data_format,
                                                                 expand_dims, padding):
    layer = ks.layers.STFTSpectrogram(mode, frame_length=16, frame_step=5, fft_length=32,
                                      padding=padding, expand_dims=expand_dims,
                                      data_format=data_format)
    x = SIGNAL if data_format == "channels_last" else np.swapaxes(SIGNAL, 1, 2)
    out = layer(x)
    assert tuple(out.shape) == layer.compute_output_shape(x.shape)
    symbolic = layer(ks.Input(x.shape[1:]))
    assert tuple(symbolic.shape) == (None,) + tuple(out.shape[1:])


def test_channels_first_is_channels_last_transposed():
    last = ks.layers.STFTSpectrogram(frame_length=16, expand_dims=True)(SIGNAL).numpy()
    first = ks.layers.STFTSpectrogram(frame_length=16, expand_dims=True,
                                      data_format="channels_first")(np.swapaxes(SIGNAL, 1, 2))
    np.testing.assert_allclose(np.transpose(first.numpy(), (0, 2, 3, 1)), last, atol=1e-5)


def test_weights_are_named_as_keras_and_mode_decides_which_exist():
    layer = ks.layers.STFTSpectrogram(frame_length=16, fft_length=16)
    layer(SIGNAL)
    assert [w.name.split("/")[-1] for w in layer.weights] == ["real_kernel", "imag_kernel"]
    assert tuple(layer.real_kernel.shape) == (16, 1, 9)
    real_only = ks.layers.STFTSpectrogram("real", frame_length=16)
    real_only(SIGNAL)
    assert [w.name.split("/")[-1] for w in real_only.weights] == ["real_kernel"]
    frozen = ks.layers.STFTSpectrogram(frame_length=16, trainable=False)
    frozen(SIGNAL)
    assert not frozen.trainable_weights and len(frozen.non_trainable_weights) == 2


@pytest.mark.parametrize("mode", ["magnitude", "angle", "psd", "stft"])
def test_gradients_of_inputs_match_finite_differences(mode):
    layer = ks.layers.STFTSpectrogram(mode, frame_length=8, frame_step=3, fft_length=8,
                                      dtype="float64")
    x = RNG.standard_normal((1, 20, 2))
    check_gradients(layer, [x], order=1, rtol=1e-4, atol=1e-6)


def test_gradients_of_kernels_match_finite_differences():
    layer = ks.layers.STFTSpectrogram("log", frame_length=8, frame_step=4, padding="same",
                                      dtype="float64")
    x = ks.constant(RNG.standard_normal((1, 20, 1)))
    layer(x)

    def f_of_tensors(real, imag):  # differentiate through the kernels as function inputs
        saved = layer.real_kernel, layer.imag_kernel
        try:
            layer.__dict__["real_kernel"], layer.__dict__["imag_kernel"] = real, imag
            return layer.call(x)
        finally:
            layer.__dict__["real_kernel"], layer.__dict__["imag_kernel"] = saved

    real, imag = layer.real_kernel.numpy(), layer.imag_kernel.numpy()
    check_gradients(f_of_tensors, [real, imag], order=1, rtol=1e-4, atol=1e-6)


def test_trainable_kernels_learn():
    model = ks.Sequential([ks.Input((64, 1)),
                           ks.layers.STFTSpectrogram("magnitude", frame_length=16),
                           ks.layers.GlobalAveragePooling1D(), ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    before = model.layers[0].real_kernel.numpy().copy()
    model.fit(SIGNAL[..., :1], np.ones((2, 1)), epochs=1, verbose=0)
    assert not np.allclose(model.layers[0].real_kernel.numpy(), before)


def test_config_round_trip_and_saved_model_predicts_the_same(tmp_path):
    layer = ks.layers.STFTSpectrogram("psd", frame_length=20, frame_step=7, fft_length=32,
                                      window="hamming", periodic=True, scaling="spectrum",
                                      padding="same", expand_dims=True,
                                      data_format="channels_first")
    config = layer.get_config()
    assert {"mode", "frame_length", "frame_step", "fft_length", "window", "periodic",
            "scaling", "padding", "data_format", "expand_dims"} <= set(config)
    assert ks.layers.STFTSpectrogram.from_config(config).get_config() == config
    model = ks.Sequential([ks.Input((2, 100)), layer])
    model.save(tmp_path / "m.keras")
    x = RNG.standard_normal((3, 2, 100)).astype("float32")
    loaded = ks.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_custom_window_values():
    window = np.linspace(0.1, 1.0, 16)
    layer = ks.layers.STFTSpectrogram("real", frame_length=16, window=window, scaling=None)
    out = layer(SIGNAL[..., :1]).numpy()
    assert out.shape == (2, 7, 9)
    np.testing.assert_allclose(out[0, 0, 0], np.sum(SIGNAL[0, :16, 0] * window), rtol=1e-5)
    assert layer.get_config()["window"] == pytest.approx(window.tolist())


@pytest.mark.parametrize("kwargs, message", [
    ({"frame_length": 16, "frame_step": 17}, "frame_step must be a positive integer"),
    ({"frame_length": 16, "frame_step": 0}, "frame_step must be a positive integer"),
    ({"frame_length": 16, "fft_length": 8}, "fft_length must be at least frame_length"),
    ({"mode": "power"}, "mode must be one of log, magnitude"),
    ({"padding": "causal"}, "padding must be 'valid' or 'same'"),
    ({"scaling": "energy"}, "scaling must be None, 'density' or 'spectrum'"),
    ({"window": "kaiser"}, "window 'kaiser' is not computed here"),
    ({"data_format": "nwc"}, "data_format must be 'channels_last' or 'channels_first'"),
])
def test_stft_spectrogram_argument_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ks.layers.STFTSpectrogram(**kwargs)


def test_stft_spectrogram_call_errors_and_warning():
    with pytest.warns(UserWarning, match="recommended to be a power of two"):
        ks.layers.STFTSpectrogram(frame_length=16, fft_length=20)
    with pytest.raises(TypeError, match="inputs must be float16, float32 or float64, got int32"):
        ks.layers.STFTSpectrogram(frame_length=16)(np.ones((1, 32, 1), "int32"))
    with pytest.raises(ValueError, match="ndim"):
        ks.layers.STFTSpectrogram(frame_length=16)(np.ones((32, 1), "float32"))


def test_mel_matrix_has_triangles_peaking_at_most_one_and_skips_dc():
    matrix = linear_to_mel_weight_matrix(10, 129, 16000, 20.0, 8000.0)
    assert matrix.shape == (129, 10) and matrix.dtype == np.float32
    assert np.all(matrix[0] == 0) and np.all(matrix >= 0) and np.all(matrix <= 1)
    assert np.all(np.argmax(matrix, axis=0)[1:] >= np.argmax(matrix, axis=0)[:-1])


def test_mel_spectrogram_of_a_tone_peaks_in_its_band_and_is_in_db():
    rate = 8000
    t = np.arange(4000) / rate
    tone = np.sin(2 * np.pi * 1000 * t).astype("float32")
    layer = ks.layers.MelSpectrogram(fft_length=256, sequence_stride=128, sampling_rate=rate,
                                     num_mel_bins=20)
    out = layer(tone[None]).numpy()
    assert out.shape == (1, 20, 32) == layer.compute_output_shape((1, 4000))
    matrix = linear_to_mel_weight_matrix(20, 129, rate, 20.0, 4000.0)
    band = np.argmax(matrix[32])  # bin 32 of 256 at 8 kHz is 1000 Hz
    assert np.argmax(out[0, :, 16]) == band
    assert out.max() - out.min() <= 80.0 + 1e-4  # top_db
    linear = ks.layers.MelSpectrogram(fft_length=256, sequence_stride=128, sampling_rate=rate,
                                      num_mel_bins=20, power_to_db=False)(tone).numpy()
    assert linear.shape == (20, 32)
    np.testing.assert_allclose(out[0], np.maximum(10 * np.log10(np.maximum(linear, 1e-10)),
                                                  out.max() - 80.0), atol=1e-3)


def test_mel_spectrogram_gradients_match_finite_differences():
    layer = ks.layers.MelSpectrogram(fft_length=16, sequence_stride=8, sampling_rate=800,
                                     num_mel_bins=4, dtype="float64", top_db=1e6)
    x = RNG.standard_normal((1, 40))
    check_gradients(layer, [x], order=1, rtol=1e-4, atol=1e-6)
    layer.power_to_db = False
    check_gradients(layer, [x], order=1, rtol=1e-4, atol=1e-6)


def test_mel_spectrogram_config_and_errors():
    layer = ks.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8)
    config = layer.get_config()
    assert config["sequence_length"] == 64 and config["max_freq"] == 8000
    assert ks.layers.MelSpectrogram.from_config(config).get_config() == config
    assert tuple(layer(ks.Input((400,))).shape) == (None, 8, 13)
    with pytest.raises(InvalidArgumentError,
                       match="fft_length must be at least sequence_length, got "
                             "sequence_length=128, fft_length=64"):
        ks.layers.MelSpectrogram(fft_length=64, sequence_length=128)
    with pytest.raises(InvalidArgumentError, match="must be 'hann' or 'hamming', got 'kaiser'"):
        ks.layers.MelSpectrogram(fft_length=64, window="kaiser")(np.ones((1, 400), "float32"))
