"""Keras 3's `ops.core`/`ops.math` names that kerasish adds (issue 20): the Fourier ops on
(real, imag) pairs, framing, segment reductions, `associative_scan`, `rearrange`,
`saturate_cast`, `erfinv`, `cdist`, the dtype helpers, and their error messages. Gradients
against finite differences (float64); values against NumPy."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import ops
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients

RNG = np.random.default_rng(7)


def _normal(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- Fourier transforms


def test_complex_transforms_match_numpy():
    a, b = _normal(3, 4, 6), _normal(3, 4, 6)
    for op, ref in [(ops.fft, np.fft.fft), (ops.fft2, np.fft.fft2), (ops.ifft2, np.fft.ifft2)]:
        real, imag = op((a, b))
        want = ref(a + 1j * b)
        np.testing.assert_allclose(real.numpy(), want.real, atol=1e-12)
        np.testing.assert_allclose(imag.numpy(), want.imag, atol=1e-12)


@pytest.mark.parametrize("n", [None, 4, 7, 10])
def test_rfft_and_irfft_match_numpy(n):
    x = _normal(2, 8)
    real, imag = ops.rfft(x, n)
    want = np.fft.rfft(x, n)
    np.testing.assert_allclose(real.numpy(), want.real, atol=1e-12)
    np.testing.assert_allclose(imag.numpy(), want.imag, atol=1e-12)
    c = _normal(2, 5) + 1j * _normal(2, 5)
    np.testing.assert_allclose(ops.irfft((c.real, c.imag), n).numpy(), np.fft.irfft(c, n),
                               atol=1e-12)
    assert ops.rfft(x.astype(np.float32))[0].dtype == np.float32
    assert ops.rfft([1, 2, 3])[0].dtype == np.float32  # integers: Keras's float32


@pytest.mark.parametrize("n", [5, 6])
def test_fourier_gradients_against_finite_differences(n):
    a, b = _normal(2, 4), _normal(2, 4)
    check_gradients(lambda r, i: ks.concat(list(ops.fft2((r, i))), 0), [a, b])
    check_gradients(lambda x: ks.concat(list(ops.rfft(x, n)), 0), [a])
    check_gradients(lambda r, i: ops.irfft((r, i), n), [a, b])


def test_stft_inverts_with_istft_and_has_gradients():
    signal = _normal(2, 40)
    spectrum = ops.stft(signal, 12, 3, 16, window="hamming")
    assert ops.shape(spectrum[0]) == (2, 14, 9)
    back = ops.istft(spectrum, 12, 3, 16, length=40, window="hamming")
    np.testing.assert_allclose(back.numpy(), signal, atol=1e-10)
    check_gradients(lambda x: ks.concat(list(ops.stft(x, 4, 2, 6, window="hann")), 0),
                    [_normal(12)])
    check_gradients(lambda r, i: ops.istft((r, i), 4, 2, 6, window=None),
                    [_normal(5, 4), _normal(5, 4)])


def test_stft_of_a_signal_shorter_than_half_the_fft_reflects_again_as_keras_numpy():
    """Centred frames pad fft_length // 2 on each side; a shorter signal is reflected
    repeatedly (NumPy's reflect mode, Keras's numpy backend) instead of refused.
    The expected values are Keras 3.15.1's."""
    real, imag = ops.stft(np.arange(3, dtype=np.float32), 8, 4, 8)
    np.testing.assert_allclose(real.numpy(), [[4.0, -1.0, -2.0, 1.0, 0.0]], atol=1e-6)
    assert ops.shape(ops.stft(np.ones(1, np.float32), 8, 4, 8)[0]) == (1, 5)
    check_gradients(lambda x: ks.concat(list(ops.stft(x, 8, 4, 8)), 0), [_normal(3)])


def test_extract_sequences_frames_and_gradient():
    frames = ops.extract_sequences(np.arange(7), 3, 2)
    assert frames.numpy().tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    check_gradients(lambda x: ops.extract_sequences(x, 4, 3), [_normal(2, 10)])


def test_fourier_errors_name_the_problem():
    with pytest.raises(InvalidArgumentError, match="pair \\(real, imag\\)"):
        ops.fft(np.ones(4))
    with pytest.raises(InvalidArgumentError, match="need one shape"):
        ops.fft((np.ones(4), np.ones(3)))
    with pytest.raises(InvalidArgumentError, match="must be floating point"):
        ops.ifft2((np.ones((2, 2), int), np.ones((2, 2), int)))
    with pytest.raises(InvalidArgumentError, match="at least 2 axes"):
        ops.fft2((np.ones(4), np.ones(4)))
    with pytest.raises(InvalidArgumentError, match="fft_length must be positive"):
        ops.rfft(np.ones(4), 0)
    with pytest.raises(InvalidArgumentError, match="got a scalar"):
        ops.rfft(1.0)
    with pytest.raises(InvalidArgumentError, match="got scalars"):
        ops.irfft((1.0, 1.0))
    with pytest.raises(InvalidArgumentError, match="output length must be positive"):
        ops.irfft(([1.0], [0.0]))
    with pytest.raises(InvalidArgumentError, match="longer than the last axis"):
        ops.extract_sequences(np.ones(3), 4, 1)
    with pytest.raises(InvalidArgumentError, match="must be positive"):
        ops.extract_sequences(np.ones(3), 0, 1)
    with pytest.raises(InvalidArgumentError, match="float32 or float64"):
        ops.stft(np.ones(8, int), 4, 2, 4)
    with pytest.raises(InvalidArgumentError, match="at least sequence_length"):
        ops.stft(np.ones(8), 4, 2, 3)
    with pytest.raises(InvalidArgumentError, match="must be positive"):
        ops.istft((np.ones((3, 3)), np.ones((3, 3))), 4, 0, 4)
    with pytest.raises(InvalidArgumentError, match="'hann' or 'hamming'"):
        ops.stft(np.ones(8), 4, 2, 4, window="blackman")
    with pytest.raises(InvalidArgumentError, match="must have shape \\(4,\\)"):
        ops.stft(np.ones(8), 4, 2, 4, window=np.ones(3))
    with pytest.raises(InvalidArgumentError, match="\\(..., frames, bins\\)"):
        ops.istft((np.ones(3), np.ones(3)), 4, 2, 4)


# ---------------------------------------------------------------- segments, scans, shapes


def test_segment_min_prod_sum():
    data = np.array([[2.0, 1.0], [3.0, 0.0], [4.0, 5.0], [7.0, 7.0]])
    ids = np.array([0, 0, 2, -1])  # -1: left out, as Keras's
    assert ops.segment_prod(data, ids).numpy().tolist() == [[6.0, 0.0], [1.0, 1.0], [4.0, 5.0]]
    assert ops.segment_min(data, ids, 3).numpy()[[0, 2]].tolist() == [[2.0, 0.0], [4.0, 5.0]]
    assert ops.segment_min(data, ids, 3).numpy()[1, 0] == np.finfo(np.float64).max
    assert ops.segment_sum([1, 2, 3], [0, 0, 1], sorted=True).numpy().tolist() == [3, 3]
    rows = np.array([0, 1, 0, 1, 0])
    d = _normal(5, 2)
    d[1, 0] = 0.0  # a zero in a product: the gradient still holds
    check_gradients(lambda x: ops.segment_prod(x, rows, 3), [d])
    check_gradients(lambda x: ops.segment_min(x, rows, 2), [d])


def test_segment_errors():
    with pytest.raises(InvalidArgumentError, match="one id per row"):
        ops.segment_prod(np.ones((3, 2)), [0, 1])
    with pytest.raises(InvalidArgumentError, match="must be integers"):
        ops.segment_min(np.ones(2), np.array([0.0, 1.0]))
    with pytest.raises(InvalidArgumentError, match="out of range for num_segments=2"):
        ops.segment_prod(np.ones(2), [0, 3], 2)


def test_associative_scan():
    x = _normal(6, 3)
    np.testing.assert_allclose(ops.associative_scan(lambda a, b: a + b, x, axis=1).numpy(),
                               np.cumsum(x, 1))
    np.testing.assert_allclose(
        ops.associative_scan(lambda a, b: a + b, x, reverse=True).numpy(),
        np.cumsum(x[::-1], 0)[::-1])
    both = ops.associative_scan(lambda a, b: (a[0] + b[0], ops.maximum(a[1], b[1])), (x, x))
    np.testing.assert_allclose(both[1].numpy(), np.maximum.accumulate(x, 0))
    check_gradients(lambda t: ops.associative_scan(lambda a, b: a * b, t), [x[:5]])
    with pytest.raises(TypeError, match="must be callable"):
        ops.associative_scan(3, x)
    with pytest.raises(InvalidArgumentError, match="same length along axis 0"):
        ops.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))


def test_rearrange_patterns_and_errors():
    x = np.arange(2 * 6 * 4).reshape(2, 6, 4)
    got = ops.rearrange(x, "b (h w) c -> (b w) c h", h=2)
    want = x.reshape(2, 2, 3, 4).transpose(0, 2, 3, 1).reshape(6, 4, 2)
    assert (got.numpy() == want).all()
    check_gradients(lambda t: ops.rearrange(t, "a (b c) -> (c a) b", c=2), [_normal(3, 4)])
    with pytest.raises(InvalidArgumentError, match="needs '->'"):
        ops.rearrange(x, "b h w")
    with pytest.raises(InvalidArgumentError, match="names 2 axes"):
        ops.rearrange(x, "b h -> h b")
    with pytest.raises(InvalidArgumentError, match="on one side only"):
        ops.rearrange(x, "b h w -> b h c")
    with pytest.raises(InvalidArgumentError, match="named twice"):
        ops.rearrange(x, "b h h -> b h")
    with pytest.raises(InvalidArgumentError, match="cannot split"):
        ops.rearrange(x, "b (h w) c -> b h w c", h=4)
    with pytest.raises(InvalidArgumentError, match="not an axis name"):
        ops.rearrange(x, "b ... -> b")


# ---------------------------------------------------------------- casts and dtypes


def test_saturate_cast_clips_to_the_target_range():
    assert ops.saturate_cast([-5.0, 100.0, 300.0, np.inf], "uint8").numpy().tolist() == [
        0, 100, 255, 255]
    assert ops.saturate_cast(np.array([300, -400]), "int8").numpy().tolist() == [127, -128]
    big = np.array([7e9, -7e9], np.float32)  # float32's nearest to 2**31 - 1 is 2**31: nudged
    assert ops.saturate_cast(big, "int32").numpy().tolist() == [2147483520, -2147483648]
    check_gradients(lambda t: ops.saturate_cast(t * 3.0, "float64"), [_normal(4)])


def test_erfinv_erfc_cdist():
    x = np.linspace(-0.99, 0.99, 41)
    y = ops.erfinv(x).numpy()
    np.testing.assert_allclose(ks.math.erf(y).numpy(), x, atol=1e-14)
    assert ops.erfinv([1, -1]).numpy().tolist() == [np.inf, -np.inf]  # ints: float32
    assert ops.erfc([0]).dtype == np.float32
    check_gradients(ops.erfinv, [np.array([-0.9, 0.1, 0.5, 0.95])])
    a, b = _normal(3, 2), _normal(4, 2)
    np.testing.assert_allclose(ops.cdist(a, b).numpy(),
                               np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)))
    check_gradients(ops.cdist, [a, b])
    with pytest.raises(InvalidArgumentError, match="\\(..., N, D\\)"):
        ops.cdist(a, _normal(4, 3))


def test_dtype_is_tensor_convert_to_tensor_and_variables():
    assert ops.dtype(ops.zeros((2,), "int64")) == "int64"
    assert ops.is_tensor(ops.ones(2)) and not ops.is_tensor(np.ones(2))
    assert not ops.is_tensor(ks.Variable(1.0))
    assert ops.convert_to_tensor(ops.ones(2, "int32"), dtype="float32").dtype == np.float32
    with pytest.raises(InvalidArgumentError, match="sparse=True is not supported"):
        ops.convert_to_tensor([1.0], sparse=True)
    with pytest.raises(InvalidArgumentError, match="ragged=True is not supported"):
        ops.convert_to_tensor([1.0], ragged=True)
    v = ks.Variable(3.0)
    with ks.GradientTape() as tape:
        y = v * ops.stop_gradient(variable=v)
    assert float(tape.gradient(y, v)) == 3.0
    assert [t.numpy().tolist() for t in ops.unstack(x=np.eye(2))] == [[1.0, 0.0], [0.0, 1.0]]
    assert round(float(ops.logdet(x=np.diag([2.0, 3.0]))), 6) == round(np.log(6.0), 6)


def test_view_as_complex_and_real():
    z = ops.view_as_complex(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert z.dtype == np.complex64 and z.numpy().tolist() == [1 + 2j, 3 + 4j]
    assert ops.view_as_real(z).numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(InvalidArgumentError, match="length 2"):
        ops.view_as_complex(np.ones((2, 3)))


def test_custom_gradient_as_keras_writes_it():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad

    x = ks.constant(3.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == pytest.approx(1.0 / (1.0 + np.exp(-3.0)))


def test_functional_model_with_the_new_ops_saves_and_loads(tmp_path):
    inputs = ks.Input((32,))
    real, imag = ops.stft(inputs, 8, 4, 8)
    spectrum = ops.rearrange(ops.sqrt(real * real + imag * imag), "b t f -> b f t")
    back = ops.irfft(ops.rfft(inputs))
    model = ks.Model(inputs, [spectrum, back, ops.erfinv(ops.tanh(inputs) * 0.5)])
    assert (spectrum.shape, back.shape) == ((None, 5, 9), (None, 32))
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = ks.saving.load_model(path)
    data = RNG.random((2, 32)).astype(np.float32)
    for a, b in zip(model(data), loaded(data)):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    np.testing.assert_allclose(model(data)[1].numpy(), data, atol=1e-6)
