"""Fourier transforms and framing, each on (real, imaginary) pairs as Keras 3's `ops.fft` family
takes and returns them: `fft`, `fft2`, `ifft2`, `rfft`, `irfft`, `stft`, `istft`,
`extract_sequences`.

kerasish has no complex tensors: a complex signal travels as two float tensors of one shape,
and the transforms run NumPy's (or CuPy's) FFT on the complex array they make. Three
primitives carry the gradients: the complex transform (`fft`, `fft2`, `ifft2`; its adjoint is
the inverse transform scaled by the length), the real-input `rfft` (adjoint: the inverse
transform of the zero-padded half spectrum, real part) and `irfft` (adjoint: `rfft` with the
Hermitian weights, 1/n on the bins without a mirror image, 2/n on the others). The gradient
rules call the primitives again, so they are differentiable twice. `stft` and `istft` are
composed of framing (a gather), the window product, these transforms and an overlap-add (a
segment sum), so their gradients come for free.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import indexing_ops, math_ops, shape_ops
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor

# ---------------------------------------------------------------- the primitives


@primitive("fft_complex", multi_output=True)
def _fft_complex(real, imag, axes, inverse):
    xp = backend.array_module(real)
    transform = xp.fft.ifftn if inverse else xp.fft.fftn
    out = transform(real + 1j * imag, axes=axes)
    return out.real.astype(real.dtype), out.imag.astype(real.dtype)


@_fft_complex.defgrad
def _(op, dys):
    # the transform is complex-linear, y = F x; the gradient of a real loss is F^H g: the
    # other direction's transform, scaled by the number of points
    axes, inverse = op.attrs["axes"], op.attrs["inverse"]
    real = op.inputs[0]
    points = int(np.prod([real.shape[a] for a in axes]))
    gr, gi = apply(_fft_complex, tuple(dys), {"axes": axes, "inverse": not inverse})
    scale = 1.0 / points if inverse else float(points)
    return gr * scale, gi * scale


@primitive("rfft", multi_output=True)
def _rfft(x, n):
    out = backend.array_module(x).fft.rfft(x, n=n, axis=-1)
    return out.real.astype(x.dtype), out.imag.astype(x.dtype)


@_rfft.defgrad
def _(op, dys):
    # dL/dx_j = Re(sum_k g_k e^{+2 pi i jk/n}) over the half spectrum: the inverse transform
    # of g padded with zeros to n bins, times n, real part; cut or padded to x's length
    n, length = op.attrs["n"], op.inputs[0].shape[-1]
    gr, gi = dys
    bins = gr.shape[-1]
    pad = [[0, 0]] * (gr.ndim - 1) + [[0, n - bins]]
    full = apply(_fft_complex, (shape_ops.pad(gr, pad), shape_ops.pad(gi, pad)),
                 {"axes": (-1,), "inverse": True})[0] * float(n)
    return (_fit_last(full, length),)


@primitive("irfft")
def _irfft(real, imag, n):
    out = backend.array_module(real).fft.irfft(real + 1j * imag, n=n, axis=-1)
    return out.astype(real.dtype)


@_irfft.defgrad
def _(op, dy):
    # x_j = (1/n) (c_0 + 2 sum Re(c_k e^{2 pi i jk/n}) + c_{n/2} (-1)^j): the gradient is
    # rfft(g) with weight 1/n on the bins without a mirror image (their imaginary parts are
    # not read) and 2/n on the others; bins past n // 2 are not read either
    n, bins = op.attrs["n"], op.inputs[0].shape[-1]
    gr, gi = apply(_rfft, (dy,), {"n": n})
    used = n // 2 + 1
    weight = np.full(used, 2.0 / n)
    keep = np.ones(used)
    weight[0], keep[0] = 1.0 / n, 0.0
    if n % 2 == 0:
        weight[-1], keep[-1] = 1.0 / n, 0.0
    weight, keep = _like(weight, dy), _like(weight * keep, dy)
    return _fit_last(gr * weight, bins), _fit_last(gi * keep, bins)


def _like(values: np.ndarray, ref: Tensor) -> Tensor:
    """NumPy `values` as a constant tensor of `ref`'s dtype, on `ref`'s device."""
    return Tensor(backend.to_device(np.asarray(values, dtype=ref.dtype),
                                    backend.device_of(ref._value)))


def _fit_last(x: Tensor, length: int) -> Tensor:
    """`x` cut or zero-padded along its last axis to `length`."""
    have = x.shape[-1]
    if have > length:
        return x[..., :length]
    if have < length:
        return shape_ops.pad(x, [[0, 0]] * (x.ndim - 1) + [[0, length - have]])
    return x


# ---------------------------------------------------------------- checks


def _pair(x, op_name: str) -> tuple:
    """The (real, imag) pair `x` as two float tensors of one shape."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise InvalidArgumentError(
            f"{op_name}: x must be a pair (real, imag) of tensors, as Keras's; got "
            f"{type(x).__name__}"
        )
    real, imag = convert_to_tensor(x[0]), convert_to_tensor(x[1])
    if real.shape != imag.shape:
        raise InvalidArgumentError(
            f"{op_name}: the real and imaginary parts need one shape, got {real.shape} and "
            f"{imag.shape}"
        )
    if real.dtype.kind != "f" or imag.dtype.kind != "f":
        raise InvalidArgumentError(
            f"{op_name}: the real and imaginary parts must be floating point, got "
            f"{real.dtype} and {imag.dtype}"
        )
    if real.dtype != imag.dtype:
        imag = math_ops.cast(imag, real.dtype)
    return real, imag


def _floating(x) -> Tensor:
    x = convert_to_tensor(x)
    return x if x.dtype.kind == "f" else math_ops.cast(x, np.float32)


def _complex_transform(x, op_name: str, axes: tuple, inverse: bool) -> tuple:
    real, imag = _pair(x, op_name)
    if real.ndim < len(axes):
        raise InvalidArgumentError(
            f"{op_name}: needs at least {len(axes)} axes, got shape {real.shape}"
        )
    return apply(_fft_complex, (real, imag), {"axes": axes, "inverse": inverse})


# ---------------------------------------------------------------- the public ops


@symbolic_fallback
def fft(x) -> tuple:
    """The discrete Fourier transform along the last axis of a complex signal given as a pair.

    Args:
        x: a pair (real, imag) of float tensors of one shape.

    Returns:
        The pair (real, imag) of the transform, in the input's dtype.

    Raises:
        InvalidArgumentError: `x` is not a pair of float tensors of one shape.

    Example:
        >>> from kerasish import ops
        >>> real, imag = ops.fft(([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]))
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])
    """
    return _complex_transform(x, "fft", (-1,), False)


@symbolic_fallback
def fft2(x) -> tuple:
    """The two-dimensional discrete Fourier transform over the last two axes.

    Args:
        x: a pair (real, imag) of float tensors of one shape, of rank >= 2.

    Returns:
        The pair (real, imag) of the transform.

    Raises:
        InvalidArgumentError: `x` is not a pair of float tensors of one shape and rank >= 2.

    Example:
        >>> from kerasish import ops
        >>> real, imag = ops.fft2(([[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]))
        >>> ops.convert_to_numpy(real).tolist()
        [[4.0, 0.0], [0.0, 0.0]]
    """
    return _complex_transform(x, "fft2", (-2, -1), False)


@symbolic_fallback
def ifft2(x) -> tuple:
    """The inverse of `fft2`: the two-dimensional inverse transform over the last two axes.

    Args:
        x: a pair (real, imag) of float tensors of one shape, of rank >= 2.

    Returns:
        The pair (real, imag) of the inverse transform.

    Raises:
        InvalidArgumentError: `x` is not a pair of float tensors of one shape and rank >= 2.

    Example:
        >>> from kerasish import ops
        >>> real, imag = ops.ifft2(([[4.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]))
        >>> ops.convert_to_numpy(real).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    return _complex_transform(x, "ifft2", (-2, -1), True)


@symbolic_fallback
def rfft(x, fft_length=None) -> tuple:
    """The transform of a real signal along the last axis: its `fft_length // 2 + 1`
    non-negative frequencies.

    Args:
        x: a real tensor (integers are cast to float32).
        fft_length: the transform's length (the signal is cut or zero-padded to it); None:
            the last axis' length.

    Returns:
        The pair (real, imag), of shape (..., fft_length // 2 + 1).

    Raises:
        InvalidArgumentError: `fft_length` is not positive, or `x` is a scalar.

    Example:
        >>> from kerasish import ops
        >>> real, imag = ops.rfft([1.0, 2.0, 3.0, 4.0])
        >>> ops.convert_to_numpy(real).tolist(), ops.convert_to_numpy(imag).tolist()
        ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
    """
    x = _floating(x)
    if x.ndim == 0:
        raise InvalidArgumentError("rfft: needs a signal along the last axis, got a scalar")
    n = x.shape[-1] if fft_length is None else int(fft_length)
    if n < 1:
        raise InvalidArgumentError(f"rfft: fft_length must be positive, got {fft_length}")
    return apply(_rfft, (x,), {"n": n})


@symbolic_fallback
def irfft(x, fft_length=None) -> tuple:
    """The inverse of `rfft`: a real signal from its non-negative frequencies.

    Args:
        x: a pair (real, imag) of float tensors, the half spectrum along the last axis.
        fft_length: the output's length; None: 2 * (bins - 1).

    Returns:
        A real tensor of shape (..., fft_length).

    Raises:
        InvalidArgumentError: `x` is not a pair of float tensors of one shape, or the length
            is not positive.

    Example:
        >>> from kerasish import ops
        >>> signal = ops.irfft(([10.0, -2.0, -2.0], [0.0, 2.0, 0.0]))
        >>> ops.convert_to_numpy(signal).tolist()
        [1.0, 2.0, 3.0, 4.0]
    """
    real, imag = _pair(x, "irfft")
    if real.ndim == 0:
        raise InvalidArgumentError("irfft: needs a spectrum along the last axis, got scalars")
    n = 2 * (real.shape[-1] - 1) if fft_length is None else int(fft_length)
    if n < 1:
        raise InvalidArgumentError(
            f"irfft: the output length must be positive, got {n} (give fft_length)"
        )
    return apply(_irfft, (real, imag), {"n": n})


@symbolic_fallback
def extract_sequences(x, sequence_length: int, sequence_stride: int) -> Tensor:
    """Overlapping frames of `x`'s last axis: frame i holds the `sequence_length` values from
    `i * sequence_stride`.

    Args:
        x: a tensor of shape (..., length).
        sequence_length: the frame length.
        sequence_stride: the step between frame starts.

    Returns:
        A tensor of shape (..., 1 + (length - sequence_length) // sequence_stride,
        sequence_length); the gradient adds up where frames overlap.

    Raises:
        InvalidArgumentError: a length or stride that is not positive, or frames longer than
            the signal.

    Example:
        >>> from kerasish import ops
        >>> frames = ops.extract_sequences([1, 2, 3, 4, 5], sequence_length=3, sequence_stride=2)
        >>> ops.convert_to_numpy(frames).tolist()
        [[1, 2, 3], [3, 4, 5]]
    """
    x = convert_to_tensor(x)
    size, step = int(sequence_length), int(sequence_stride)
    if size < 1 or step < 1:
        raise InvalidArgumentError(
            f"extract_sequences: sequence_length and sequence_stride must be positive, got "
            f"{sequence_length} and {sequence_stride}"
        )
    if x.ndim == 0 or x.shape[-1] < size:
        raise InvalidArgumentError(
            f"extract_sequences: sequence_length {size} is longer than the last axis of x, "
            f"shape {x.shape}"
        )
    count = 1 + (x.shape[-1] - size) // step
    index = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    return indexing_ops.gather(x, index.astype(np.int32), axis=-1, name="extract_sequences")


def _window(window, sequence_length: int, fft_length: int, dtype, op_name: str) -> np.ndarray:
    """The analysis window, centred in `fft_length` points (ones for None), as NumPy values."""
    if window is None:
        values = np.ones(fft_length)
    else:
        if isinstance(window, str):
            if window not in ("hann", "hamming"):
                raise InvalidArgumentError(
                    f"{op_name}: a window given by name must be 'hann' or 'hamming', got "
                    f"{window!r}"
                )
            # periodic windows, as scipy.signal.get_window gives them for spectral analysis
            a = 0.5 if window == "hann" else 0.54
            values = a - (1.0 - a) * np.cos(2.0 * np.pi * np.arange(sequence_length)
                                             / sequence_length)
        else:
            values = np.asarray(backend.to_numpy(convert_to_tensor(window)._value),
                                dtype=np.float64)
            if values.shape != (sequence_length,):
                raise InvalidArgumentError(
                    f"{op_name}: the window must have shape ({sequence_length},) "
                    f"(sequence_length), got {values.shape}"
                )
        left = (fft_length - sequence_length) // 2
        values = np.pad(values, (left, fft_length - sequence_length - left))
    return values.astype(dtype)


def _stft_sizes(sequence_length, sequence_stride, fft_length, op_name: str) -> tuple:
    size, step, n = int(sequence_length), int(sequence_stride), int(fft_length)
    if size < 1 or step < 1:
        raise InvalidArgumentError(
            f"{op_name}: sequence_length and sequence_stride must be positive, got "
            f"{sequence_length} and {sequence_stride}"
        )
    if n < size:
        raise InvalidArgumentError(
            f"{op_name}: fft_length must be at least sequence_length, got "
            f"sequence_length={size}, fft_length={n}"
        )
    return size, step, n


@symbolic_fallback
def stft(x, sequence_length: int, sequence_stride: int, fft_length: int, window="hann",
         center: bool = True) -> tuple:
    """The short-time Fourier transform along the last axis, as Keras's `ops.stft`.

    Frames of `fft_length` points every `sequence_stride` (after reflect-padding
    `fft_length // 2` on each side when `center`), each multiplied by the window (of
    `sequence_length` points, centred and zero-padded to `fft_length`), then `rfft`.

    Args:
        x: a float32 or float64 tensor of shape (..., length).
        sequence_length: the window's length.
        sequence_stride: the hop between frames.
        fft_length: the transform's length (>= sequence_length).
        window: 'hann', 'hamming', a tensor of `sequence_length` values, or None (no
            window).
        center: pad the signal so that frame t is centred at `t * sequence_stride`.

    Returns:
        The pair (real, imag), of shape (..., frames, fft_length // 2 + 1).

    Raises:
        InvalidArgumentError: a size that is not positive, fft_length < sequence_length, an
            unknown window name or a window of another length, or `x` not float32/float64.

    Example:
        >>> from kerasish import ops
        >>> real, imag = ops.stft(ops.ones((16,)), 8, 4, 8, window=None, center=False)
        >>> ops.shape(real), float(real[0, 0])
        ((3, 5), 8.0)
    """
    x = convert_to_tensor(x)
    if x.dtype not in (np.float32, np.float64):
        raise InvalidArgumentError(
            f"stft: x must be float32 or float64, got {x.dtype}"
        )
    size, step, n = _stft_sizes(sequence_length, sequence_stride, fft_length, "stft")
    win = _window(window, size, n, x.dtype, "stft")
    if center:
        x = _reflect_pad_last(x, n // 2)
    frames = extract_sequences(x, n, step) * _like(win, x)
    return apply(_rfft, (frames,), {"n": n})


def _reflect_pad_last(x: Tensor, pad: int) -> Tensor:
    """`x` reflect-padded by `pad` on both ends of its last axis. A pad longer than the
    signal reflects again, as NumPy's `pad(mode="reflect")` (Keras's numpy backend) does:
    a signal shorter than half the FFT still gets frames."""
    if pad < x.shape[-1]:
        return shape_ops.pad(x, [[0, 0]] * (x.ndim - 1) + [[pad, pad]], mode="REFLECT")
    ids = np.pad(np.arange(x.shape[-1]), (pad, pad), mode="reflect")
    return indexing_ops.gather(x, ids.astype(np.int32), axis=-1)


def _overlap_add(frames: Tensor, step: int) -> Tensor:
    """Frames (..., count, n) added into one signal (..., (count - 1) * step + n)."""
    count, n = frames.shape[-2:]
    batch = frames.shape[:-2]
    rows = shape_ops.reshape(shape_ops.moveaxis(shape_ops.moveaxis(frames, -1, 0), -1, 0),
                             (count * n,) + batch)  # (count, n, ...) flattened
    ids = (np.arange(count)[:, None] * step + np.arange(n)[None, :]).reshape(-1)
    total = (count - 1) * step + n
    summed = indexing_ops.unsorted_segment_sum(rows, ids.astype(np.int32), total)
    return shape_ops.moveaxis(summed, 0, -1)


@symbolic_fallback
def istft(x, sequence_length: int, sequence_stride: int, fft_length: int, length=None,
          window="hann", center: bool = True) -> Tensor:
    """The inverse of `stft`: `irfft` of each frame, times the window, overlap-added and
    divided by the overlap-added squared window (as Keras's `ops.istft`).

    Args:
        x: the pair (real, imag) of shape (..., frames, fft_length // 2 + 1).
        sequence_length: the window's length.
        sequence_stride: the hop between frames.
        fft_length: the transform's length.
        length: the output's length (cut after the centre padding); None: all of it.
        window: 'hann', 'hamming', a tensor of `sequence_length` values, or None.
        center: whether `stft` padded the signal (the padding is removed).

    Returns:
        A real tensor of shape (..., length).

    Raises:
        InvalidArgumentError: as `stft`, or `x` not a pair of float tensors of one shape.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> signal = np.sin(np.arange(32.0))
        >>> spectrum = ops.stft(signal, 8, 2, 8)
        >>> back = ops.istft(spectrum, 8, 2, 8, length=32)
        >>> bool(np.allclose(ops.convert_to_numpy(back), signal))
        True
    """
    real, imag = _pair(x, "istft")
    if real.ndim < 2:
        raise InvalidArgumentError(
            f"istft: x needs shape (..., frames, bins), got {real.shape}"
        )
    size, step, n = _stft_sizes(sequence_length, sequence_stride, fft_length, "istft")
    win = _window(window, size, n, real.dtype, "istft")
    frames = apply(_irfft, (real, imag), {"n": n}) * _like(win, real)
    signal = _overlap_add(frames, step)
    count = real.shape[-2]
    norm = np.zeros((count - 1) * step + n)
    squares = win.astype(np.float64) ** 2
    for i in range(count):
        norm[i * step:i * step + n] += squares
    scale = float(np.sum(win, dtype=np.float64))
    divisor = scale if window is not None else float(step)
    norm = scale / (np.where(norm > 1e-10, norm, 1.0) * divisor)
    signal = signal * _like(norm, real)
    start = n // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = signal.shape[-1] - n // 2
    else:
        end = signal.shape[-1]
    return signal[..., start:end]
