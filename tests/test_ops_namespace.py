"""ks.ops: Keras 3's NumPy-spelled names give NumPy's answers, on kerasish's ops."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import ops
from kerasish.testing import check_gradients

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
POSITIVE = np.abs(X) + 0.5


def _np(t):
    return ops.convert_to_numpy(t)


@pytest.mark.parametrize("name, reference", [
    ("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
    ("prod", np.prod), ("var", np.var), ("std", np.std),
])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True), ((0, 1), True)])
def test_reductions_follow_numpy(name, reference, axis, keepdims):
    got = _np(getattr(ops, name)(X, axis=axis, keepdims=keepdims))
    np.testing.assert_allclose(got, reference(X, axis=axis, keepdims=keepdims), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "square", "abs", "absolute", "tanh",
                                  "sign", "floor", "ceil", "negative", "reciprocal", "log1p"])
def test_elementwise_names_follow_numpy(name):
    reference = getattr(np, name)
    np.testing.assert_allclose(_np(getattr(ops, name)(POSITIVE)), reference(POSITIVE),
                               rtol=1e-6)


def test_creation_and_shape():
    assert ops.shape(ops.zeros((2, 3))) == (2, 3)
    assert ops.zeros((2,)).dtype == np.float32 and ops.ones((1,), dtype="int32").dtype == np.int32
    np.testing.assert_array_equal(_np(ops.full((2, 2), 7.0)), np.full((2, 2), 7.0))
    np.testing.assert_array_equal(_np(ops.full_like(X, 1)), np.ones_like(X))
    np.testing.assert_array_equal(_np(ops.arange(1, 7, 2)), np.arange(1, 7, 2))
    np.testing.assert_array_equal(_np(ops.arange(4, dtype="float32")), np.arange(4.0))
    np.testing.assert_allclose(_np(ops.linspace(0, 1, 5)), np.linspace(0, 1, 5))
    np.testing.assert_array_equal(_np(ops.eye(2, 3)), np.eye(2, 3))
    assert ops.ndim(X) == 2 and ops.size(X) == 12
    np.testing.assert_array_equal(_np(ops.zeros_like(X)), np.zeros_like(X))
    assert ops.cast(X, "int32").dtype == np.int32
    assert isinstance(ops.convert_to_tensor([1.0]), ks.Tensor)


def test_layout_ops():
    a, b = X, X + 1
    np.testing.assert_array_equal(_np(ops.concatenate([a, b], axis=1)),
                                  np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(_np(ops.stack([a, b])), np.stack([a, b]))
    np.testing.assert_array_equal(_np(ops.expand_dims(a, 1)), np.expand_dims(a, 1))
    np.testing.assert_array_equal(_np(ops.squeeze(np.ones((1, 3, 1)), axis=2)), np.ones((1, 3)))
    np.testing.assert_array_equal(_np(ops.reshape(a, (4, 3))), a.reshape(4, 3))
    np.testing.assert_array_equal(_np(ops.transpose(a)), a.T)
    t3 = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(_np(ops.transpose(t3, axes=(2, 0, 1))),
                                  np.transpose(t3, (2, 0, 1)))
    for parts in (2, [1, 3]):
        for got, want in zip(ops.split(a, parts, axis=1), np.split(a, parts, axis=1)):
            np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(ops.tile(a, (2, 1))), np.tile(a, (2, 1)))
    np.testing.assert_array_equal(_np(ops.pad(a, ((1, 0), (0, 2)))), np.pad(a, ((1, 0), (0, 2))))
    np.testing.assert_array_equal(_np(ops.take(a, [0, 2], axis=0)), np.take(a, [0, 2], axis=0))
    np.testing.assert_array_equal(_np(ops.take(a, [5, 1])), np.take(a, [5, 1]))
    np.testing.assert_array_equal(_np(ops.clip(a, -0.5, 0.5)), np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(_np(ops.where(a > 0, a, 0.0)), np.where(a > 0, a, 0.0))
    np.testing.assert_array_equal(_np(ops.one_hot([2, 0], 3)), np.eye(3)[[2, 0]])
    np.testing.assert_array_equal(
        _np(ops.segment_sum(np.ones((4, 2)), [0, 0, 2, 1])), [[2, 2], [1, 1], [1, 1]])


def test_arg_reductions_flatten_when_axis_is_none_as_numpy():
    got = ops.argmax(X)
    assert int(got) == np.argmax(X) and got.dtype == np.int32
    np.testing.assert_array_equal(_np(ops.argmin(X, axis=1)), np.argmin(X, axis=1))
    np.testing.assert_array_equal(_np(ops.argmax(X, axis=1, keepdims=True)),
                                  np.argmax(X, axis=1)[:, None])
    np.testing.assert_array_equal(_np(ops.cumsum(X)), np.cumsum(X))
    np.testing.assert_allclose(_np(ops.cumprod(X, axis=1)), np.cumprod(X, axis=1), rtol=1e-6)


def test_dot_follows_numpy_for_ranks_it_takes():
    v, m = RNG.standard_normal(4), RNG.standard_normal((4, 2))
    t3 = RNG.standard_normal((2, 3, 4))
    for a, b in ((v, v), (X, m), (v, m), (t3, m), (t3, v), (2.0, X)):
        np.testing.assert_allclose(_np(ops.dot(a, b)), np.dot(a, b), rtol=1e-6, atol=1e-12)
    with pytest.raises(ks.InvalidArgumentError, match=r"shapes \(3, 4\) and \(3,\) do not align"):
        ops.dot(X, np.ones(3))
    with pytest.raises(ks.InvalidArgumentError, match="rank 3.*use matmul"):
        ops.dot(X, t3.transpose(1, 2, 0))
    check_gradients(lambda a, b: ops.dot(a, b), [RNG.standard_normal((2, 3)),
                                                RNG.standard_normal(3)])


def test_activation_names_and_arguments():
    np.testing.assert_allclose(_np(ops.relu(X)), np.maximum(X, 0))
    np.testing.assert_allclose(_np(ops.sigmoid(X)), 1 / (1 + np.exp(-X)), rtol=1e-6)
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(_np(ops.softmax(X)), e / e.sum(-1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(_np(ops.leaky_relu(X, negative_slope=0.1)),
                               np.where(X > 0, X, 0.1 * X), rtol=1e-6)
    np.testing.assert_allclose(_np(ops.elu(X, alpha=0.5)), np.where(X > 0, X, 0.5 * np.expm1(X)),
                               rtol=1e-6)
    np.testing.assert_allclose(_np(ops.elu(X)), np.where(X > 0, X, np.expm1(X)), rtol=1e-6)
    np.testing.assert_allclose(_np(ops.silu(X)), X / (1 + np.exp(-X)), rtol=1e-5)
    np.testing.assert_allclose(_np(ops.logsumexp(X, axis=1)),
                               np.log(np.exp(X).sum(axis=1)), rtol=1e-6)
    np.testing.assert_allclose(_np(ops.norm(X, axis=1)), np.linalg.norm(X, axis=1), rtol=1e-6)
    np.testing.assert_allclose(_np(ops.normalize(X)),
                               X / np.linalg.norm(X, axis=-1, keepdims=True), rtol=1e-6)
    check_gradients(lambda x: ops.elu(x, alpha=0.5), [RNG.standard_normal(5)])


def test_stop_gradient_and_tape():
    x = ks.Variable([1.0, 2.0])
    with ks.GradientTape() as tape:
        y = ops.sum(ops.square(x)) + ops.sum(ops.stop_gradient(x) * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 6.0])


def test_keras_style_import():
    import kerasish as keras
    from kerasish import layers
    from kerasish import ops as ops_again

    assert ops_again is ops and layers is keras.layers
    assert keras.ops.matmul is ks.matmul


def test_composed_layout_and_predicates_follow_numpy():
    t3 = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(_np(ops.repeat(X, 2, axis=1)), np.repeat(X, 2, axis=1))
    np.testing.assert_array_equal(_np(ops.repeat(X, [1, 0, 2], axis=0)),
                                  np.repeat(X, [1, 0, 2], axis=0))
    np.testing.assert_array_equal(_np(ops.repeat(X, 3)), np.repeat(X, 3))
    np.testing.assert_array_equal(_np(ops.flip(t3, axis=1)), np.flip(t3, axis=1))
    np.testing.assert_array_equal(_np(ops.flip(t3, axis=(0, 2))), np.flip(t3, axis=(0, 2)))
    np.testing.assert_array_equal(_np(ops.flip(t3)), np.flip(t3))
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(_np(ops.tril(t3, k)), np.tril(t3, k))
        np.testing.assert_array_equal(_np(ops.triu(t3, k)), np.triu(t3, k))
    special = np.array([0.0, np.nan, np.inf, -np.inf, 1.0], np.float32)
    np.testing.assert_array_equal(_np(ops.isnan(special)), np.isnan(special))
    np.testing.assert_array_equal(_np(ops.isinf(special)), np.isinf(special))
    np.testing.assert_array_equal(_np(ops.isfinite(special)), np.isfinite(special))
    check_gradients(lambda x: ops.tril(ops.flip(ops.repeat(x, 2, axis=0), axis=1)),
                    [RNG.standard_normal((3, 3))])


def test_integer_inputs_follow_keras_dtype_rules():
    ints = np.array([1, 2, 4], np.int32)
    for name in ("exp", "log", "sqrt", "sin", "tanh", "sigmoid", "softmax", "floor", "erf"):
        assert getattr(ops, name)(ints).dtype == np.float32, name
    assert float(ops.mean(ints)) == pytest.approx(7 / 3) and ops.mean(ints).dtype == np.float32
    assert ops.var(ints).dtype == np.float32 and ops.norm(ints).dtype == np.float32
    assert ops.full((2,), 3).dtype == np.float32 and ops.full((2,), 3, dtype="int32").dtype == \
        np.int32
    assert ops.round(ints).dtype == np.int32 and ops.abs(ints).dtype == np.int32
    np.testing.assert_allclose(_np(ops.round(np.array([1.234, -5.678]), 1)), [1.2, -5.7])
    assert ops.exp(np.ones(2)).dtype == np.float64  # floats keep their precision


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ba,ca->bc", [(2, 3), (4, 3)]),
    ("bqhd,bkhd->bhqk", [(2, 3, 4, 5), (2, 6, 4, 5)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]),
    ("i,i->", [(4,), (4,)]), ("i,j->ij", [(3,), (4,)]), ("ij,ij->i", [(3, 4), (3, 4)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]), ("ijk,jl->il", [(2, 3, 4), (3, 5)]),
    ("ij,kl->ijkl", [(2, 3), (4, 5)]), ("abc->ca", [(2, 3, 4)]),
])
def test_einsum_follows_numpy(subscripts, shapes):
    operands = [RNG.standard_normal(shape) for shape in shapes]
    np.testing.assert_allclose(_np(ops.einsum(subscripts, *operands)),
                               np.einsum(subscripts, *operands), rtol=1e-10, atol=1e-12)


def test_einsum_gradients_and_errors():
    check_gradients(lambda a, b: ops.einsum("bij,bjk->bik", a, b),
                    [RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 2, 3))])
    check_gradients(lambda a, b: ops.einsum("ij,jk->k", a, b),
                    [RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))])
    with pytest.raises(ks.InvalidArgumentError, match="ellipses are not taken"):
        ops.einsum("...i,...i->...", np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ks.InvalidArgumentError, match=r"term 'ii' does not fit .* \(2, 2\)"):
        ops.einsum("ii->i", np.ones((2, 2)))
    with pytest.raises(ks.InvalidArgumentError, match=r"axis 'j' has size 3 in one operand and 4"):
        ops.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(ks.InvalidArgumentError, match=r"letter\(s\) \['z'\] are in no input"):
        ops.einsum("ij->iz", np.ones((2, 3)))
