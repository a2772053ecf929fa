"""Keras 3's `backend.result_type`, `set_epsilon`, `config.set_backend(backend)`, the fan axes
of the VarianceScaling family and the STFT initializer (issue 20); the Keras comparisons skip
without keras (run them with the interop venv's python, KERAS_BACKEND=numpy)."""

import itertools
import os

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError

_DTYPES = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "int64", "float16",
           "bfloat16", "float32", "float64", int, float, bool]


def test_result_type_follows_keras_lattice():
    rt = ks.backend.result_type
    assert rt("int32", "float16") == "float16"
    assert rt("uint8", int) == "uint8" and rt("bfloat16", float) == "bfloat16"
    assert rt("int64", "float32") == "float32" and rt("uint32", "int32") == "int32"
    assert rt("bfloat16", "float16") == "float32"
    assert rt() == "float32" and rt(int, float) == "float32"
    with pytest.raises(ValueError, match="not a dtype of Keras's type promotion"):
        rt("string", "int32")


def test_result_type_matches_keras_on_every_pair_and_triple():
    os.environ.setdefault("KERAS_BACKEND", "numpy")
    keras = pytest.importorskip("keras")

    def both(*dtypes):
        try:
            want = keras.backend.result_type(*dtypes)
        except ValueError:
            want = "error"
        try:
            got = ks.backend.result_type(*dtypes)
        except ValueError:
            got = "error"
        return got, want

    for dtypes in itertools.chain(itertools.product(_DTYPES, repeat=2),
                                  itertools.product(_DTYPES[::2], repeat=3)):
        got, want = both(*dtypes)
        assert got == want, dtypes


def test_set_epsilon():
    assert ks.backend.epsilon() == 1e-7
    try:
        ks.backend.set_epsilon(1e-4)
        assert ks.config.epsilon() == 1e-4
        y = ks.ops.rms_normalization(np.zeros((1, 2), np.float32)).numpy()
        assert y.tolist() == [[0.0, 0.0]]
    finally:
        ks.config.set_epsilon(1e-7)
    for bad in (0.0, -1.0, "x"):
        with pytest.raises(ValueError, match="expected a positive float"):
            ks.config.set_epsilon(bad)


def test_set_backend_takes_keras_argument_name():
    ks.config.set_backend(backend="numpy")
    with pytest.raises(ValueError, match="'jax' is not available"):
        ks.config.set_backend("jax")


def test_variance_scaling_fan_axes():
    init = ks.initializers.VarianceScaling(1.0, "fan_avg", "uniform", seed=3, input_axes=[0],
                                           output_axes=[1, 2])
    values = init((4, 5, 6)).numpy()
    limit = np.sqrt(3.0 / ((4 + 30) / 2))
    assert np.abs(values).max() <= limit and np.abs(values).max() > 0.9 * limit
    he = ks.initializers.HeUniform(seed=1, input_axes=[1], output_axes=[0])
    assert np.abs(he((40, 2)).numpy()).max() <= np.sqrt(6.0 / 2)
    assert np.abs(he((40, 2)).numpy()).max() > np.sqrt(6.0 / 40)  # fan_in is 2, not 40
    config = ks.initializers.GlorotNormal(seed=2, input_axes=[0], output_axes=[1]).get_config()
    assert config == {"seed": 2, "input_axes": [0], "output_axes": [1]}
    again = ks.initializers.deserialize(ks.initializers.serialize(he))
    assert (again.input_axes, again.output_axes) == ([1], [0])
    with pytest.raises(InvalidArgumentError, match="name an axis the shape \\(3,\\) lacks"):
        ks.initializers.LecunNormal(input_axes=[0], output_axes=[2])((3,))


def test_stft_initializer_kernels_and_errors():
    kernel = ks.initializers.STFT("imag", "hann", "spectrum", True)((8, 1, 5)).numpy()
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)
    t, f = np.arange(8)[:, None], np.arange(5)[None, :] / 8
    want = np.sin(-2 * np.pi * t * f) * window[:, None] / window.sum()
    np.testing.assert_allclose(kernel[:, 0, :], want, atol=1e-6)
    assert ks.initializers.get("stft").__class__ is ks.initializers.STFTInitializer
    with pytest.raises(InvalidArgumentError, match="side must be 'real' or 'imag'"):
        ks.initializers.STFT(side="both")
    with pytest.raises(InvalidArgumentError, match="is not computed here"):
        ks.initializers.STFT(window="kaiser")
    with pytest.raises(InvalidArgumentError, match="scaling must be None"):
        ks.initializers.STFT(scaling="power")
    with pytest.raises(InvalidArgumentError, match="\\(frame_length, 1, bins\\)"):
        ks.initializers.STFT()((8, 5))
    with pytest.raises(InvalidArgumentError, match="window must have shape \\(8,\\)"):
        ks.initializers.STFT(window=np.ones(4))((8, 1, 5))


def test_stft_initializer_matches_keras():
    os.environ.setdefault("KERAS_BACKEND", "numpy")
    keras = pytest.importorskip("keras")
    for args in [("real", "hann", "density", False), ("imag", "hamming", "spectrum", True),
                 ("real", None, None, False), ("imag", "blackman", "density", False),
                 ("real", np.linspace(0.0, 1.0, 16).astype(np.float32), "density", False)]:
        want = np.asarray(keras.initializers.STFT(*args)((16, 1, 9)))
        np.testing.assert_allclose(ks.initializers.STFT(*args)((16, 1, 9)).numpy(), want,
                                   atol=1e-6)
    config = keras.initializers.serialize(keras.initializers.STFT("imag", "hann", None, True))
    loaded = ks.initializers.deserialize(config)
    assert ks.initializers.serialize(loaded)["config"] == config["config"]
    glorot = keras.initializers.serialize(
        keras.initializers.GlorotUniform(seed=1, input_axes=[0], output_axes=[1, 2]))
    assert ks.initializers.deserialize(glorot).get_config() == glorot["config"]
