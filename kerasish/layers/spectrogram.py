"""Spectrogram layers: STFTSpectrogram (an STFT as a trainable strided convolution) and
MelSpectrogram (a fixed mel-scaled power spectrogram), with Keras 3's arguments, config
keys and weights, so Keras files that use them load here and predict the same."""

from __future__ import annotations

import math
import warnings

import numpy as np

from kerasish.core import settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import conv_ops, fft_ops, math_ops, product_ops, reduction_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor
from kerasish.initializers import STFT
from kerasish.layers.base import Layer
from kerasish.layers.convolutional import normalize_data_format
from kerasish.layers.input_spec import InputSpec

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")
_FLOATS = ("float16", "float32", "float64")


def _conv_length(length, frame_length: int, step: int, padding: str):
    """The number of frames a strided convolution gives (None for an unknown length)."""
    if length is None:
        return None
    if padding == "same":
        return -(-length // step)
    return max(length - frame_length, -1) // step + 1 if length >= frame_length else 0


class STFTSpectrogram(Layer):
    """The short-time Fourier transform of each channel of a 1-D signal, as a convolution.

    Each frame of `frame_length` samples, every `frame_step`, is multiplied by the kernels
    `real_kernel` and `imag_kernel` of shape (frame_length, 1, fft_length // 2 + 1): the
    windowed cosines and sines of the DFT, made by the `STFT` initializer. Being weights,
    they can be fine-tuned (`trainable=True`, the default) or frozen for preprocessing.
    Every input channel is transformed by the same kernels.

    Args:
        mode: the output: 'log' (log magnitude, the default), 'magnitude', 'psd' (power
            spectral density: power, interior bins doubled), 'real', 'imag', 'angle' (the
            phase) or 'stft' (real and imaginary parts side by side).
        frame_length: the samples in a frame (the window's length).
        frame_step: the hop between frames; None: frame_length // 2.
        fft_length: the DFT's length (>= frame_length); None: the smallest power of two
            at least frame_length.
        window: 'hann', 'hamming', 'blackman', 'boxcar', the window's values, or None.
        periodic: use the periodic form of a named window (else the symmetric one).
        scaling: 'density' (divide by the window's L2 norm), 'spectrum' (by its L1 norm)
            or None.
        padding: 'valid' or 'same' (ceil(length / frame_step) frames).
        expand_dims: give the frequency axis its own dimension (an image per channel).
        data_format: 'channels_last' (None; (batch, time, channels)) or 'channels_first'.
        **kwargs: the Layer arguments.

    Raises:
        InvalidArgumentError: a frame_step outside [1, frame_length], fft_length below
            frame_length, or an unknown mode, scaling, padding, window or data_format.
        TypeError: (when called) inputs that are not float16, float32 or float64.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.STFTSpectrogram(frame_length=16, frame_step=8, fft_length=16)
        >>> layer(ks.ones((2, 64, 3))).shape
        (2, 7, 27)
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise InvalidArgumentError(
                "STFTSpectrogram: frame_step must be a positive integer not greater than "
                f"frame_length, got frame_step={frame_step}, frame_length={frame_length}")
        if fft_length is not None and fft_length < frame_length:
            raise InvalidArgumentError(
                "STFTSpectrogram: fft_length must be at least frame_length, got "
                f"fft_length={fft_length}, frame_length={frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn("STFTSpectrogram: fft_length is recommended to be a power of two, "
                          f"got fft_length={fft_length}", stacklevel=2)
        if mode not in _MODES:
            raise InvalidArgumentError(
                f"STFTSpectrogram: mode must be one of {', '.join(_MODES)}, got {mode!r}")
        if padding not in ("valid", "same"):
            raise InvalidArgumentError(
                f"STFTSpectrogram: padding must be 'valid' or 'same', got {padding!r}")
        STFT("real", window, scaling, periodic)  # checks the window name and the scaling
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = normalize_data_format(data_format, "STFTSpectrogram")
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape=None):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                "real_kernel", shape,
                initializer=STFT("real", self.window, self.scaling, self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                "imag_kernel", shape,
                initializer=STFT("imag", self.window, self.scaling, self.periodic))
        self.built = True

    def _transform(self, signals, kernel, batch: int, channels: int):
        """(batch * channels, time, 1) signals convolved: (batch, channels, bins, frames)."""
        out = conv_ops.conv1d(signals, math_ops.cast(kernel, signals.dtype), self._frame_step,
                              self.padding.upper())
        frames, bins = out.shape[1], out.shape[2]
        out = shape_ops.reshape(out, (batch, channels, frames, bins))
        return shape_ops.transpose(out, (0, 1, 3, 2))

    def _arrange(self, outputs):
        """(batch, channels, bins, frames) into the layer's output layout."""
        batch, channels, bins, frames = outputs.shape
        if self.expand_dims:
            order = (0, 3, 2, 1) if self.data_format == "channels_last" else (0, 1, 3, 2)
            return shape_ops.transpose(outputs, order)
        outputs = shape_ops.reshape(outputs, (batch, channels * bins, frames))
        if self.data_format == "channels_last":
            return shape_ops.transpose(outputs, (0, 2, 1))
        return outputs

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype.name not in _FLOATS:
            raise TypeError("STFTSpectrogram: inputs must be float16, float32 or float64, "
                            f"got {inputs.dtype.name}")
        if inputs.dtype.name != self.compute_dtype:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        if self.data_format == "channels_last":
            batch, time, channels = inputs.shape
            inputs = shape_ops.transpose(inputs, (0, 2, 1))
        else:
            batch, channels, time = inputs.shape
        signals = shape_ops.reshape(inputs, (batch * channels, time, 1))
        real = imag = None
        if self.mode != "imag":
            real = self._transform(signals, self.real_kernel, batch, channels)
        if self.mode != "real":
            imag = self._transform(signals, self.imag_kernel, batch, channels)
        if self.mode == "real":
            return self._arrange(real)
        if self.mode == "imag":
            return self._arrange(imag)
        if self.mode == "angle":
            return self._arrange(math_ops.atan2(imag, real))
        if self.mode == "stft":
            return self._arrange(shape_ops.concat([real, imag], axis=2))
        power = math_ops.square(real) + math_ops.square(imag)
        if self.mode == "psd":  # one-sided: the bins between DC and Nyquist count twice
            interior = shape_ops.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._arrange(power + interior)
        eps = settings.epsilon()
        magnitude = self._arrange(math_ops.sqrt(math_ops.maximum(power, eps)))
        if self.mode == "magnitude":
            return magnitude
        return math_ops.log(math_ops.maximum(magnitude, eps))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: (batch, time, channels) (or channels first).

        Returns:
            The output's shape (see the class's description).

        Example:
            >>> import kerasish as ks
            >>> ks.layers.STFTSpectrogram(frame_length=16).compute_output_shape((None, 64, 2))
            (None, 7, 18)
        """
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            batch, time, channels = input_shape
        else:
            batch, channels, time = input_shape
        bins = self._fft_length // 2 + 1
        if self.mode == "stft":
            bins *= 2
        frames = _conv_length(time, self.frame_length, self._frame_step, self.padding)
        if self.expand_dims:
            if self.data_format == "channels_last":
                return (batch, frames, bins, channels)
            return (batch, channels, frames, bins)
        width = None if channels is None else channels * bins
        if self.data_format == "channels_last":
            return (batch, frames, width)
        return (batch, width, frames)

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, str):
            window = np.asarray(convert_to_tensor(window).numpy()).tolist()
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length,
                "window": window, "periodic": self.periodic, "scaling": self.scaling,
                "padding": self.padding, "data_format": self.data_format,
                "expand_dims": self.expand_dims}


_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    """The HTK mel scale: 1127 ln(1 + f / 700)."""
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + hertz / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sampling_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype="float32") -> np.ndarray:
    """The (num_spectrogram_bins, num_mel_bins) matrix of triangular mel filters (HTK
    convention, peaks of 1, the DC bin left out), computed in `dtype` as Keras does.

    Args:
        num_mel_bins: the mel bands.
        num_spectrogram_bins: the linear bins (fft_length // 2 + 1), from 0 to Nyquist.
        sampling_rate: the signal's samples per second.
        lower_edge_hertz: the lower edge of the lowest band.
        upper_edge_hertz: the upper edge of the highest band.
        dtype: the matrix's dtype.

    Returns:
        A NumPy array; `spectrogram @ matrix` is the mel spectrogram.

    Example:
        >>> from kerasish.layers.spectrogram import linear_to_mel_weight_matrix
        >>> linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 4000.0).shape
        (9, 4)
    """
    dtype = np.dtype(dtype)
    nyquist = dtype.type(sampling_rate) / dtype.type(2.0)
    linear = np.linspace(dtype.type(0.0), nyquist, num_spectrogram_bins, dtype=dtype)[1:]
    bins_mel = _hertz_to_mel(linear).astype(dtype)[:, None]
    edges = np.linspace(_hertz_to_mel(dtype.type(lower_edge_hertz)),
                        _hertz_to_mel(dtype.type(upper_edge_hertz)), num_mel_bins + 2,
                        dtype=dtype)
    lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = np.maximum(dtype.type(0.0), np.minimum(lower_slopes, upper_slopes))
    return np.pad(weights, [[1, 0], [0, 0]]).astype(dtype)


class MelSpectrogram(Layer):
    """The mel spectrogram of audio: STFT magnitudes to the power `mag_exp`, mapped onto
    `num_mel_bins` triangular mel bands, optionally in decibels.

    Frames are centred (the signal reflect-padded by fft_length // 2), so a signal of
    `length` samples gives 1 + length // sequence_stride frames. The output is
    (batch, num_mel_bins, frames) (or (num_mel_bins, frames) for one unbatched signal).
    In decibels, values below the tensor's maximum minus `top_db` are raised to it.

    Args:
        fft_length: the DFT's length.
        sequence_stride: the hop between frames.
        sequence_length: the window's length (<= fft_length); None: fft_length.
        window: 'hann', 'hamming', the window's values, or None.
        sampling_rate: the audio's samples per second.
        num_mel_bins: the mel bands.
        min_freq: the lowest band's lower edge (Hz).
        max_freq: the highest band's upper edge (Hz); None: sampling_rate / 2.
        power_to_db: convert to decibels: 10 log10(max(x, min_power) / ref).
        top_db: the dynamic range kept below the maximum, in decibels.
        mag_exp: the exponent of the magnitudes (2: power, 1: magnitude).
        min_power: the floor of the power (and of `ref_power`) before the logarithm.
        ref_power: the power taken as 0 dB.
        **kwargs: the Layer arguments.

    Raises:
        InvalidArgumentError: fft_length below sequence_length, or (when called) an
            unknown window name.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8)
        >>> layer(ks.ones((2, 400))).shape
        (2, 8, 13)
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise InvalidArgumentError(
                "MelSpectrogram: fft_length must be at least sequence_length, got "
                f"sequence_length={self.sequence_length}, fft_length={self.fft_length}")
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") \
            else "float32"
        x = math_ops.cast(convert_to_tensor(inputs), dtype)
        real, imag = fft_ops.stft(x, self.sequence_length, self.sequence_stride,
                                  self.fft_length, window=self.window, center=True)
        spec = math_ops.sqrt(math_ops.square(real) + math_ops.square(imag))
        spec = math_ops.pow(spec, self.mag_exp)
        matrix = linear_to_mel_weight_matrix(self.num_mel_bins, spec.shape[-1],
                                             self.sampling_rate, self.min_freq,
                                             self.max_freq).astype(dtype)
        mel = product_ops.tensordot(spec, matrix, axes=1)
        if self.power_to_db:
            mel = self._decibels(mel)
        mel = shape_ops.swapaxes(mel, -1, -2)
        return math_ops.cast(mel, self.compute_dtype)

    def _decibels(self, power):
        floor = self.min_power
        log_spec = math_ops.log10(math_ops.maximum(power, floor)) * 10.0
        ref = max(abs(float(self.ref_power)), floor)
        log_spec = log_spec - 10.0 * math.log10(ref)
        return math_ops.maximum(log_spec, reduction_ops.reduce_max(log_spec) - self.top_db)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: (batch, length) or (length,).

        Returns:
            (batch, num_mel_bins, frames), or (num_mel_bins, frames) for rank-1 inputs.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.MelSpectrogram(fft_length=64, sequence_stride=32)
            >>> layer.compute_output_shape((None, 400))
            (None, 128, 13)
        """
        input_shape = tuple(input_shape)
        length = input_shape[-1]
        n = self.fft_length
        frames = None if length is None else 1 + (length + 2 * (n // 2) - n) // \
            self.sequence_stride
        return input_shape[:-1] + (self.num_mel_bins, frames)

    def get_config(self) -> dict:
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}
