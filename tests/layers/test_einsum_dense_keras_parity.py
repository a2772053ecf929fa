"""EinsumDense against Keras 3: shapes by Keras's rules for every equation form, a Keras
file that loads and predicts the same, the gradient against finite differences, the errors."""

import numpy as np
import pytest

import kerasish as ks

RNG = np.random.default_rng(9)
X = RNG.standard_normal((2, 5, 6)).astype("float32")

CASES = [  # equation, output_shape, bias_axes, input shape
    ("ab,bc->ac", 4, "c", (2, 6)),
    ("abc,cd->abd", (None, 4), "d", (2, 5, 6)),
    ("abc,cde->abde", (None, 3, 4), "de", (2, 5, 6)),
    ("...b,bc->...c", 4, None, (2, 5, 6)),
    ("...cb,bd->...cd", (5, 3), "c", (2, 7, 5, 6)),
    ("abc...,cd->abd...", (5, 4), "b", (2, 5, 6, 7)),
    ("abcd,cde->abe", (5, 3), "e", (2, 5, 4, 6)),
    ("abc,ec->abe", (None, 3), "e", (2, 5, 6)),
]


@pytest.mark.parametrize("equation, output_shape, bias_axes, shape", CASES)
def test_shapes_and_values_match_keras(equation, output_shape, bias_axes, shape):
    x = RNG.standard_normal(shape).astype("float32")
    ours = ks.layers.EinsumDense(equation, output_shape, bias_axes=bias_axes,
                                 bias_initializer="random_normal")
    y = ours(x)
    static = ours.compute_output_shape((None,) + shape[1:])  # None where output_shape has None
    assert all(a in (b, None) for a, b in zip(static, (None,) + y.shape[1:]))
    keras = pytest.importorskip("keras")
    theirs = keras.layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)
    theirs.build(shape)
    assert tuple(theirs.compute_output_shape((None,) + shape[1:])) == static
    assert [tuple(w.shape) for w in theirs.weights] == [w.shape for w in ours.weights]
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(y.numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5)
    config = ks.layers.serialize(ours)
    again = keras.layers.deserialize(config)
    assert again.equation == equation and again.bias_axes == bias_axes


def test_keras_file_loads_and_predicts_the_same(tmp_path):
    keras = pytest.importorskip("keras")

    def build(library):
        inputs = library.Input((5, 6))
        x = library.layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de",
                                       activation="relu")(inputs)
        x = library.layers.Reshape((5, 6))(x)
        return library.Model(inputs, library.layers.EinsumDense("...b,bc->...c", 4)(x))

    theirs = build(keras)
    path = str(tmp_path / "einsum.keras")
    theirs.save(path)
    ours = ks.models.load_model(path)
    np.testing.assert_allclose(ours(X).numpy(), np.asarray(theirs(X)), rtol=1e-5, atol=1e-5)


def test_gradient_matches_finite_differences():
    layer = ks.layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="e",
                                  dtype="float64")
    x = RNG.standard_normal((2, 3, 4))
    layer.build(x.shape)
    ks.testing.check_gradients(lambda v: layer(v), [x], order=2)


def test_glorot_fans_span_the_input_and_output_letters():
    ks.random.set_seed(0)
    layer = ks.layers.EinsumDense("abc,cde->abde", (None, 16, 16))
    layer.build((None, 8, 64))
    limit = np.sqrt(6 / (64 + 256))  # fan_in 64, fan_out 16 * 16
    kernel = layer.kernel.numpy()
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.9 * limit


def test_errors_are_named():
    with pytest.raises(ValueError, match="invalid equation 'ab->b'"):
        ks.layers.EinsumDense("ab->b", 3)
    with pytest.raises(ValueError, match="do not match at shared dimension 'b'"):
        ks.layers.EinsumDense("abc,cd->abd", (4, 3))(ks.ones([2, 5, 6]))
    with pytest.raises(ValueError, match="weight dimension 'z'"):
        ks.layers.EinsumDense("ab,bz->ab", (6,))(ks.ones([2, 6]))
    with pytest.raises(ValueError, match="dimension 'q' of the output"):
        ks.layers.EinsumDense("ab,bc->aq", 3)(ks.ones([2, 6]))
    with pytest.raises(ValueError, match="bias dimension 'x'"):
        ks.layers.EinsumDense("ab,bc->ac", 3, bias_axes="x")(ks.ones([2, 6]))
    with pytest.raises(NotImplementedError, match="quantization"):
        ks.layers.EinsumDense("ab,bc->ac", 3, quantization_config={"mode": "int8"})
