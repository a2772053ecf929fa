"""ks.ops: Keras 3's NumPy-spelled names give NumPy's answers, on kerasish's ops."""

import warnings

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


@pytest.mark.cpu
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
    # ks.ops.matmul is ks.matmul's code under Keras's argument names (x1, x2)
    assert keras.ops.matmul.__code__.co_code == ks.matmul.__code__.co_code


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


# -- the Keras 3 names added for sorting, selection, shapes, control flow, nn and linalg ------


def test_sort_argsort_and_top_k_follow_numpy():
    t3 = RNG.standard_normal((2, 3, 4))
    ties = np.array([[3.0, 1.0, 3.0, 2.0, 1.0]])
    for axis in (-1, 0, 1):
        np.testing.assert_array_equal(_np(ops.sort(t3, axis=axis)), np.sort(t3, axis=axis))
        np.testing.assert_array_equal(_np(ops.argsort(t3, axis=axis)), np.argsort(t3, axis))
    assert ops.argsort(t3).dtype == np.int32
    np.testing.assert_array_equal(_np(ops.argsort(ties)), np.argsort(ties, kind="stable"))
    values, indices = ops.top_k(ties, 3)
    np.testing.assert_array_equal(_np(values), [[3.0, 3.0, 2.0]])
    np.testing.assert_array_equal(_np(indices), [[0, 2, 3]])  # ties: the lower index first
    assert indices.dtype == np.int32
    values, indices = ops.top_k(t3, 2)
    np.testing.assert_array_equal(_np(values), -np.sort(-t3, axis=-1)[..., :2])
    np.testing.assert_array_equal(_np(indices), np.argsort(-t3, axis=-1)[..., :2])
    with pytest.raises(ks.InvalidArgumentError, match=r"top_k: k = 5 must be in \[0, 4\]"):
        ops.top_k(t3, 5)
    check_gradients(lambda x: ops.concatenate([ops.sort(x, axis=0), ops.top_k(x, 2)[0] ** 2], 1),
                    [t3[0]])


def test_take_along_axis_and_in_top_k():
    x = RNG.standard_normal((3, 4))
    idx = np.array([[0, 3], [1, 1], [-1, 2]])
    np.testing.assert_array_equal(_np(ops.take_along_axis(x, idx, axis=1)),
                                  np.take_along_axis(x, idx, axis=1))
    np.testing.assert_array_equal(_np(ops.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0)),
                                  np.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0))
    np.testing.assert_array_equal(_np(ops.take_along_axis(x, np.array([5, 0]))), x.ravel()[[5, 0]])
    with pytest.raises(ks.InvalidArgumentError, match=r"take_along_axis: indices\[1, 0\] = 7"):
        ops.take_along_axis(x, np.array([[0], [7], [1]]), axis=1)
    with pytest.raises(ks.InvalidArgumentError, match=r"indices of shape \(2,\) do not fit x "
                                                      r"of shape \(3, 4\)"):
        ops.take_along_axis(x, np.array([0, 1]), axis=1)
    check_gradients(lambda v: ops.take_along_axis(v, idx, axis=1) ** 2, [x])
    scores = np.array([[0.1, 0.9, 0.5], [0.3, 0.3, 0.2], [0.0, 0.1, 0.2]])
    np.testing.assert_array_equal(_np(ops.in_top_k([2, 1, 0], scores, 2)), [True, True, False])


def test_searching_counting_and_unique_follow_numpy():
    seq, values = np.array([1.0, 2.0, 2.0, 5.0]), np.array([[0.0, 2.0], [3.0, 9.0]])
    for side in ("left", "right"):
        got = ops.searchsorted(seq, values, side=side)
        np.testing.assert_array_equal(_np(got), np.searchsorted(seq, values, side=side))
        assert got.dtype == np.int32
    np.testing.assert_array_equal(_np(ops.digitize(values, seq)), np.digitize(values, seq))
    ids = np.array([[0, 0, 3], [0, 1, 3]])
    found = ops.nonzero(ids)
    assert len(found) == 2 and found[0].dtype == np.int32
    for got, want in zip(found, np.nonzero(ids)):
        np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(ops.bincount(ids[0])), np.bincount(ids[0]))
    np.testing.assert_array_equal(_np(ops.bincount(ids, minlength=5)),
                                  [np.bincount(row, minlength=5) for row in ids])
    weights = RNG.standard_normal(3)
    np.testing.assert_allclose(_np(ops.bincount(ids[1], weights=weights)),
                               np.bincount(ids[1], weights=weights))
    check_gradients(lambda w: ops.bincount(ids[1], weights=w), [weights])
    with pytest.raises(ks.InvalidArgumentError, match="bincount: needs dense counts"):
        ops.bincount(ids[0], sparse=True)
    data = np.array([3, 1, 3, 2, 1, 3])
    values, index, inverse, counts = ops.unique(data, return_index=True, return_inverse=True,
                                                return_counts=True)
    for got, want in zip((values, index, inverse, counts),
                         np.unique(data, return_index=True, return_inverse=True,
                                   return_counts=True)):
        np.testing.assert_array_equal(_np(got), want)
    values, inverse = ops.unique(data, sorted=False, return_inverse=True)
    np.testing.assert_array_equal(_np(values), [3, 1, 2])
    np.testing.assert_array_equal(_np(values)[_np(inverse)], data)
    np.testing.assert_array_equal(_np(ops.unique(data, size=5, fill_value=-1)), [1, 2, 3, -1, -1])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_and_median_follow_numpy(method):
    t3 = RNG.standard_normal((3, 5, 4))
    for axis, q in ((None, 0.3), (1, [0.0, 0.25, 0.5, 1.0]), ((0, 2), [0.9]), (-1, 0.5)):
        for keepdims in (False, True):
            np.testing.assert_allclose(
                _np(ops.quantile(t3, q, axis=axis, method=method, keepdims=keepdims)),
                np.quantile(t3, q, axis=axis, method=method, keepdims=keepdims), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.median(t3, axis=1)), np.median(t3, axis=1), rtol=1e-12)
    assert ops.median(np.arange(5)).dtype == np.float32
    with pytest.raises(ks.InvalidArgumentError, match=r"quantile: q must be .* \(got \[1.5\]\)"):
        ops.quantile(t3, [1.5])
    check_gradients(lambda x: ops.quantile(x, [0.3, 0.5], axis=1), [t3])


def test_shape_and_product_ops_follow_numpy():
    t3 = RNG.standard_normal((2, 3, 4))
    m = RNG.standard_normal((3, 3))
    for shift, axis in ((1, None), (-2, 1), ((1, 2), (0, 2)), (5, -1)):
        np.testing.assert_array_equal(_np(ops.roll(t3, shift, axis)), np.roll(t3, shift, axis))
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(_np(ops.diag(m, k)), np.diag(m, k))
        v = np.arange(1, 4)
        np.testing.assert_array_equal(_np(ops.diag(v, k)), np.diag(v, k))
        np.testing.assert_array_equal(_np(ops.diagonal(t3, k, 1, 2)), np.diagonal(t3, k, 1, 2))
        np.testing.assert_array_equal(_np(ops.diagonal(t3, k, 2, 0)), np.diagonal(t3, k, 2, 0))
        np.testing.assert_allclose(_np(ops.trace(t3, k, 0, 2)), np.trace(t3, k, 0, 2))
    for axes in (1, 0, ([1, 2], [1, 0]), (2, 0)):
        b = RNG.standard_normal((4, 3, 5))
        np.testing.assert_allclose(_np(ops.tensordot(t3, b, axes)), np.tensordot(t3, b, axes),
                                   rtol=1e-12)
    with pytest.raises(ks.InvalidArgumentError, match=r"tensordot: axes \[2\] of shape "
                                                      r"\(2, 3, 4\) and axes \[0\] of shape"):
        ops.tensordot(t3, np.ones((3, 2)), 1)
    v, w = RNG.standard_normal(4), RNG.standard_normal(4)
    np.testing.assert_allclose(_np(ops.outer(m, v)), np.outer(m, v))
    np.testing.assert_allclose(_np(ops.inner(t3, RNG.standard_normal((5, 4)) * 0 + 1)),
                               np.inner(t3, np.ones((5, 4))), rtol=1e-12)
    np.testing.assert_allclose(float(ops.vdot(v, w)), np.vdot(v, w))
    a3, b3 = RNG.standard_normal((4, 3)), RNG.standard_normal((3,))
    np.testing.assert_allclose(_np(ops.cross(a3, b3)), np.cross(a3, b3), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.cross(a3.T, a3.T[::-1], axis=0)),
                               np.cross(a3.T, a3.T[::-1], axis=0), rtol=1e-12)
    flat = np.concatenate([a3[:, :2], np.zeros((4, 1))], axis=1)  # 2-vectors: z = 0
    np.testing.assert_allclose(_np(ops.cross(a3[:, :2], b3[:2])),
                               np.cross(flat, np.append(b3[:2], 0.0))[:, 2])
    np.testing.assert_allclose(_np(ops.cross(a3[:, :2], b3)), np.cross(flat, b3))
    for indexing in ("xy", "ij"):
        for got, want in zip(ops.meshgrid([1, 2], [3, 4, 5], [6], indexing=indexing),
                             np.meshgrid([1, 2], [3, 4, 5], [6], indexing=indexing)):
            np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(ops.amax(t3, axis=1)), np.amax(t3, axis=1))
    np.testing.assert_array_equal(_np(ops.amin(t3, axis=(0, 2))), np.amin(t3, axis=(0, 2)))
    assert ops.identity(3).dtype == np.float32
    np.testing.assert_array_equal(_np(ops.identity(3)), np.eye(3))
    check_gradients(lambda x, y: ops.trace(ops.tensordot(x, y, ([1, 2], [1, 0])))
                    + ops.sum(ops.cross(ops.roll(x, 1, 1)[:, :3, 0], ops.diag(y[0, :, 0])[:2])),
                    [t3, RNG.standard_normal((4, 3, 2))])


def test_slices_scatters_segments_and_nan_to_num():
    x = RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(_np(ops.slice(x, (1, 1), (2, 3))), x[1:3, 1:4])
    with pytest.raises(ks.InvalidArgumentError, match=r"slice: a box at \[2, 0\] of shape "
                                                      r"\(2, 2\) does not fit inside inputs of "
                                                      r"shape \(3, 4\)"):
        ops.slice(x, (2, 0), (2, 2))
    updated = x.copy()
    updated[0:2, 2:4] = 9.0
    np.testing.assert_array_equal(_np(ops.slice_update(x, (0, 2), np.full((2, 2), 9.0))), updated)
    indices = np.array([[0, 1], [2, 3], [0, 1]])
    want = np.zeros((3, 4))
    np.add.at(want, (indices[:, 0], indices[:, 1]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_np(ops.scatter(indices, [1.0, 2.0, 3.0], (3, 4))), want)
    rows = ops.scatter([[2], [0]], np.ones((2, 4)), (3, 4))
    np.testing.assert_array_equal(_np(rows), [[1] * 4, [0] * 4, [1] * 4])
    replaced = x.copy()
    replaced[0, 1], replaced[2, 3] = 3.0, 2.0  # the last of the repeated (0, 1) wins
    np.testing.assert_array_equal(_np(ops.scatter_update(x, indices, [1.0, 2.0, 3.0])), replaced)
    added = x.copy()
    added[0, 1] += 4.0
    added[2, 3] += 2.0
    np.testing.assert_allclose(_np(ops.scatter_update(x, indices, [1.0, 2.0, 3.0], "add")), added)
    with pytest.raises(ks.InvalidArgumentError, match=r"scatter_update: indices row 1 = \[3, 0\] "
                                                      r"is outside the shape \(3, 4\)"):
        ops.scatter_update(x, [[0, 0], [3, 0]], [1.0, 2.0])
    with pytest.raises(ks.InvalidArgumentError, match=r"updates of shape \(2,\) do not fit a "
                                                      r"tensor of shape \(3, 4\)"):
        ops.scatter(indices, [1.0, 2.0], (3, 4))
    check_gradients(lambda v, u: ops.slice_update(v, (1, 0), u) * ops.scatter_update(
        v, indices, ops.sum(u) * np.ones(3)), [x, RNG.standard_normal((2, 2))])
    check_gradients(lambda u: ops.scatter(indices, u * u, (3, 4)), [RNG.standard_normal(3)])
    data = np.array([[1.0, 2.0], [5.0, 0.0], [5.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(_np(ops.segment_max(data, [0, 0, 0, 2])),
                                  [[5.0, 2.0], [np.finfo(np.float64).min] * 2, [2.0, 3.0]])
    np.testing.assert_array_equal(_np(ops.segment_sum(data, [0, 0, 0, 2])),
                                  [[11.0, 3.0], [0.0, 0.0], [2.0, 3.0]])
    _, (grad,) = _value_and_grad(lambda d: ops.segment_max(d, [0, 0, 0, 2], num_segments=3), data)
    np.testing.assert_array_equal(grad, [[0, 1], [0.5, 0], [0.5, 0], [1, 1]])  # ties share
    signed = RNG.standard_normal((7, 2, 3))
    ids = np.array([3, 0, 3, 1, 0, 3, 1])
    want = np.full((5, 2, 3), -np.inf)
    np.maximum.at(want, ids, signed)
    want[np.isinf(want)] = np.finfo(np.float64).min
    np.testing.assert_array_equal(_np(ops.segment_max(signed, ids, num_segments=5)), want)
    np.testing.assert_array_equal(_np(ops.segment_max(-np.arange(6), [1, 1, 0, 0, 0, 2])),
                                  [-2, 0, -5])
    special = np.array([np.nan, np.inf, -np.inf, 2.0], np.float32)
    np.testing.assert_array_equal(_np(ops.nan_to_num(special)), np.nan_to_num(special))
    np.testing.assert_array_equal(_np(ops.nan_to_num(special, nan=1.0, posinf=5.0, neginf=-5.0)),
                                  np.nan_to_num(special, nan=1.0, posinf=5.0, neginf=-5.0))


def _value_and_grad(f, *xs):
    xs = [ks.constant(x) for x in xs]
    with ks.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return y, [ks.convert_to_tensor(g).numpy() for g in tape.gradient(y, xs)]


def test_math_names_follow_numpy_and_closed_forms():
    x = RNG.uniform(-0.9, 0.9, (3, 4))
    for name in ("tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arctanh",
                 "log2", "log10"):
        value = np.abs(x) + 0.1 if name.startswith("log") else x
        np.testing.assert_allclose(_np(getattr(ops, name)(value)), getattr(np, name)(value),
                                   rtol=1e-14, err_msg=name)
    np.testing.assert_allclose(_np(ops.arccosh(1.0 + np.abs(x))), np.arccosh(1.0 + np.abs(x)))
    y = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(_np(ops.arctan2(x, y)), np.arctan2(x, y), rtol=1e-14)
    assert ops.log2(np.array([1, 2])).dtype == np.float32 and ops.arctan2([1], [1]).dtype == \
        np.float32
    _, (d_first, d_second) = _value_and_grad(ops.arctan2, x, y)
    np.testing.assert_allclose(d_first, y / (x * x + y * y), rtol=1e-12)
    np.testing.assert_allclose(d_second, -x / (x * x + y * y), rtol=1e-12)
    for name, derivative in (("arcsin", 1 / np.sqrt(1 - x * x)), ("arctanh", 1 / (1 - x * x)),
                             ("sinh", np.cosh(x)), ("tan", 1 / np.cos(x) ** 2)):
        _, (grad,) = _value_and_grad(getattr(ops, name), x)
        np.testing.assert_allclose(grad, derivative, rtol=1e-12, err_msg=name)


def test_control_flow_runs_eagerly_with_keras_structures():
    assert ops.cond(ops.convert_to_tensor(True), lambda: 1, lambda: 2) == 1
    assert ops.switch(-3, [lambda: "a", lambda: "b"]) == "a"
    assert int(ops.while_loop(lambda i: i < 3, lambda i: i + 1, ops.convert_to_tensor(0))) == 3
    assert ops.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, j * 2], [0, 1]) == (3, 8)
    assert ops.while_loop(lambda i: i < 30, lambda i: i + 1, 0, maximum_iterations=5) == 5
    assert ops.fori_loop(0, 4, lambda i, v: v + i, 10) == 16
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, np.arange(4.0))
    assert float(carry) == 6.0
    np.testing.assert_array_equal(_np(ys), [0.0, 0.0, 2.0, 9.0])
    carry, ys = ops.scan(lambda c, x: (c + x["a"], {"b": c}), 0.0, {"a": np.arange(3.0)},
                         reverse=True)
    np.testing.assert_array_equal(_np(ys["b"]), [3.0, 2.0, 0.0])
    carry, ys = ops.scan(lambda c, x: (c * 2, None), 1.0, length=3)
    assert float(carry) == 8.0 and ys is None
    pairs = ops.map(lambda xy: (xy[0] + xy[1], xy[0]), (np.arange(3), np.ones(3)))
    np.testing.assert_array_equal(_np(pairs[0]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_np(ops.vectorized_map(ops.sum, np.ones((2, 3)))), [3.0, 3.0])
    with pytest.raises(ks.InvalidArgumentError, match="map: every tensor in xs needs the same"):
        ops.map(lambda a: a, (np.ones(2), np.ones(3)))
    v = ks.Variable(2.0)
    with ks.GradientTape() as tape:
        y = ops.fori_loop(0, 3, lambda i, acc: acc * v, ops.convert_to_tensor(1.0))
    assert float(tape.gradient(y, v)) == pytest.approx(12.0)  # d v**3 / dv


def test_crossentropy_ops_follow_keras_formulas():
    logits = RNG.standard_normal((3, 4))
    probs = 1 / (1 + np.exp(-logits))
    target = (RNG.random((3, 4)) > 0.5).astype(np.float64)
    want = -(target * np.log(probs) + (1 - target) * np.log(1 - probs))
    np.testing.assert_allclose(_np(ops.binary_crossentropy(target, probs)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(ops.binary_crossentropy(target, logits, from_logits=True)),
                               want, rtol=1e-10)
    soft = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    onehot = np.eye(4)[[0, 3, 1]]
    want = -(onehot * np.log(soft)).sum(-1)
    np.testing.assert_allclose(_np(ops.categorical_crossentropy(onehot, soft)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(ops.categorical_crossentropy(onehot.T, logits.T,
                                                                from_logits=True, axis=0)),
                               want, rtol=1e-10)
    np.testing.assert_allclose(_np(ops.sparse_categorical_crossentropy([0, 3, 1], soft)), want,
                               rtol=1e-6)
    np.testing.assert_allclose(_np(ops.sparse_categorical_crossentropy(
        [0, 3, 1], logits.T, from_logits=True, axis=0)), want, rtol=1e-10)
    with pytest.raises(ks.InvalidArgumentError, match=r"binary_crossentropy: target of shape "
                                                      r"\(3,\) and output of shape \(3, 4\)"):
        ops.binary_crossentropy(np.ones(3), probs)
    check_gradients(lambda z: ops.categorical_crossentropy(onehot, z, from_logits=True), [logits])


def test_conv_pool_and_batch_normalization_match_the_nn_ops():
    x = RNG.standard_normal((2, 6, 5, 3))
    w = RNG.standard_normal((3, 2, 3, 4))
    want = ks.nn.conv2d(x, w, 2, "SAME").numpy()
    np.testing.assert_allclose(_np(ops.conv(x, w, 2, "same")), want, rtol=1e-12)
    first = ops.conv(np.moveaxis(x, -1, 1), w, 2, "same", data_format="channels_first")
    np.testing.assert_allclose(_np(first), np.moveaxis(want, -1, 1), rtol=1e-12)
    x1, w1 = x[:, 0], w[0]  # 1-D: (batch, width, channels), (width, in, out)
    np.testing.assert_allclose(_np(ops.conv(x1, w1, dilation_rate=2)),
                               ks.nn.conv1d(x1, w1, 1, "VALID", 2).numpy(), rtol=1e-12)
    depthwise = RNG.standard_normal((2, 2, 3, 2))
    np.testing.assert_allclose(_np(ops.depthwise_conv(x, depthwise, padding="same")),
                               ks.nn.depthwise_conv2d(x, depthwise, 1, "SAME").numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(ops.max_pool(x, 2)), ks.nn.max_pool2d(x, 2, 2).numpy())
    np.testing.assert_allclose(_np(ops.average_pool(x, (3, 2), 1, "same")),
                               ks.nn.avg_pool2d(x, (3, 2), 1, "SAME").numpy(), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.max_pool(x1, 2, 1))[:, :, 0],
                               np.maximum(x1[:, :-1, 0], x1[:, 1:, 0]))
    with pytest.raises(ks.InvalidArgumentError, match=r"conv: needs inputs with 1, 2 or 3 "
                                                      r"spatial axes \(rank 3 to 5, got shape"):
        ops.conv(np.ones((1, 2, 2, 2, 2, 1)), np.ones((1, 1, 1, 1, 1, 1)))
    with pytest.raises(ks.InvalidArgumentError, match=r"depthwise_conv: needs inputs with 1 or "
                                                      r"2 spatial axes \(rank 3 or 4, got"):
        ops.depthwise_conv(np.ones((1, 2, 2, 2, 1)), np.ones((1, 1, 1, 1, 1)))
    mean, variance = RNG.standard_normal(3), RNG.uniform(0.5, 2.0, 3)
    scale, offset = RNG.standard_normal(3), RNG.standard_normal(3)
    got = ops.batch_normalization(np.moveaxis(x, -1, 1), mean, variance, axis=1, offset=offset,
                                  scale=scale)
    want = (x - mean) / np.sqrt(variance + 1e-3) * scale + offset
    np.testing.assert_allclose(_np(got), np.moveaxis(want, -1, 1), rtol=1e-12)


def test_linalg_follows_numpy_with_closed_form_gradients():
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((2, 3, 2))
    spd = a @ np.swapaxes(a, -1, -2) + np.eye(3)
    np.testing.assert_allclose(_np(ops.inv(a)), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.solve(a, b)), np.linalg.solve(a, b), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.det(a)), np.linalg.det(a), rtol=1e-12)
    sign, logabs = ops.slogdet(-a)
    np.testing.assert_allclose(_np(sign), np.linalg.slogdet(-a)[0])
    np.testing.assert_allclose(_np(logabs), np.linalg.slogdet(-a)[1], rtol=1e-12)
    np.testing.assert_allclose(_np(ops.logdet(spd)), np.linalg.slogdet(spd)[1], rtol=1e-12)
    assert np.isnan(float(ops.logdet(-np.eye(3))))
    lower = _np(ops.cholesky(spd))
    np.testing.assert_allclose(lower, np.linalg.cholesky(spd), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.cholesky(spd, upper=True)), np.swapaxes(lower, -1, -2))
    np.testing.assert_allclose(_np(ops.solve_triangular(lower, b, lower=True)),
                               np.linalg.solve(lower, b), rtol=1e-12)
    w, v = ops.eigh(spd)
    np.testing.assert_allclose(_np(w), np.linalg.eigvalsh(spd), rtol=1e-12)
    np.testing.assert_allclose(_np(v) @ (_np(w)[..., None] * np.swapaxes(_np(v), -1, -2)), spd,
                               rtol=1e-10)
    u, s, vh = ops.svd(RNG.standard_normal((4, 3)))
    assert (ops.shape(u), ops.shape(s), ops.shape(vh)) == ((4, 4), (3,), (3, 3))
    np.testing.assert_allclose(_np(ops.svd(a[0], compute_uv=False)),
                               np.linalg.svd(a[0], compute_uv=False), rtol=1e-12)
    q, r = ops.qr(a[0], mode="complete")
    np.testing.assert_allclose(_np(q) @ _np(r), a[0], rtol=1e-12, atol=1e-12)
    assert ops.linalg.inv is ops.inv and ops.linalg.solve_triangular is ops.solve_triangular
    assert ops.linalg.norm is ops.norm
    with pytest.raises(ks.InvalidArgumentError, match=r"inv: needs a square matrix .* got shape "
                                                      r"\(2, 3\)"):
        ops.inv(np.ones((2, 3)))
    with pytest.raises(ks.InvalidArgumentError, match=r"solve: the right-hand side of shape "
                                                      r"\(2,\) does not fit the matrix of shape"):
        ops.solve(a[0], np.ones(2))
    # closed forms: d inv = -inv^T dY inv^T, d log|det| = inv^T, d w_i = v_i v_i^T
    dy = RNG.standard_normal((2, 3, 3))
    _, (grad,) = _value_and_grad(lambda m: ops.inv(m) * dy, a)
    inverse_t = np.swapaxes(np.linalg.inv(a), -1, -2)
    np.testing.assert_allclose(grad, -inverse_t @ dy @ inverse_t, rtol=1e-10)
    _, (grad,) = _value_and_grad(lambda m: ops.slogdet(m)[1], a)
    np.testing.assert_allclose(grad, inverse_t, rtol=1e-10)
    _, (grad,) = _value_and_grad(lambda m: ops.eigh(m)[0][..., 1], spd)
    vectors = np.linalg.eigh(spd)[1][..., 1]
    np.testing.assert_allclose(grad, vectors[..., :, None] * vectors[..., None, :], rtol=1e-8,
                               atol=1e-12)
    _, (grad,) = _value_and_grad(lambda m: ops.svd(m, compute_uv=False)[..., 0], a)
    u, _, vh = np.linalg.svd(a)
    np.testing.assert_allclose(grad, u[..., :, :1] * vh[..., :1, :], rtol=1e-10)  # u_0 v_0^T
    wide = ks.constant(RNG.standard_normal((2, 3)))
    with ks.GradientTape(persistent=True) as tape:
        tape.watch(wide)
        full_u = ops.svd(wide)[0]
        q = ops.qr(wide)[0]
    with pytest.raises(ks.InvalidArgumentError, match=r"svd: no gradient with "
                                                      r"full_matrices=True for a non-square"):
        tape.gradient(full_u, wide)
    with pytest.raises(ks.InvalidArgumentError, match=r"qr: gradients need .* \(got shape "
                                                      r"\(2, 3\), mode 'reduced'\)"):
        tape.gradient(q, wide)


_F = RNG.standard_normal((3, 5)).astype(np.float32)
_SPD = (_F[:, :3].T @ _F[:, :3] + np.eye(3)).astype(np.float32)
# the same call on keras.ops and ks.ops (o is the namespace); results compared as arrays
_AGAINST_KERAS = {
    "sort": lambda o: o.sort(_F, axis=0),
    "argsort": lambda o: o.argsort(_F),
    "top_k": lambda o: o.top_k(_F, 3),
    "in_top_k": lambda o: o.in_top_k(np.array([0, 4, 2]), _F, 2),
    "take_along_axis": lambda o: o.take_along_axis(_F, np.array([[0, 4], [1, 1], [3, 2]]), 1),
    "searchsorted": lambda o: o.searchsorted(np.array([-1.0, 0.0, 1.0], np.float32), _F[0],
                                             side="right"),
    "digitize": lambda o: o.digitize(_F, np.array([-1.0, 0.0, 1.0])),
    "unique": lambda o: o.unique(np.array([3, 1, 3, 2]), return_inverse=True,
                                 return_counts=True),
    "nonzero": lambda o: o.nonzero(_F > 0),
    "bincount": lambda o: o.bincount(np.array([[0, 2, 2], [1, 1, 3]]), minlength=5),
    "median": lambda o: o.median(_F, axis=1, keepdims=True),
    "quantile": lambda o: o.quantile(_F, np.array([0.1, 0.5]), axis=0, method="midpoint"),
    "roll": lambda o: o.roll(_F, (1, -2), (0, 1)),
    "diag": lambda o: o.diag(_F[0], k=-1),
    "diagonal_trace": lambda o: (o.diagonal(_F, 1), o.trace(_F, -1)),
    "tensordot": lambda o: o.tensordot(_F, _F, axes=[[1], [1]]),
    "outer_inner_vdot": lambda o: (o.outer(_F[0], _F[1]), o.inner(_F, _F), o.vdot(_F, _F)),
    "cross": lambda o: o.cross(_F[:, :3], _F[:, 2:]),
    "meshgrid": lambda o: o.meshgrid(_F[0], _F[1, :3]),
    "slice_update": lambda o: (o.slice(_F, (1, 2), (2, 2)),
                               o.slice_update(_F, (1, 2), np.ones((2, 2), np.float32))),
    "scatter": lambda o: (o.scatter(np.array([[0, 1], [2, 2]]), np.array([1.0, 2.0]), (3, 3)),
                          o.scatter_update(_F, np.array([[0, 1], [2, 2]]),
                                           np.array([7.0, 8.0], np.float32))),
    "segment_max": lambda o: o.segment_max(_F, np.array([0, 2, 0]), num_segments=3),
    "nan_to_num": lambda o: o.nan_to_num(np.array([np.nan, np.inf, -np.inf], np.float32)),
    "math": lambda o: (o.log2(np.abs(_F)), o.log10(np.abs(_F)), o.arctan2(_F, _F[::-1]),
                       o.sinh(_F), o.cosh(_F), o.tan(_F), o.arcsinh(_F), o.arctan(_F),
                       o.arccosh(np.abs(_F) + 1), o.arcsin(_F / 3), o.arccos(_F / 3),
                       o.arctanh(_F / 3)),
    "control_flow": lambda o: (o.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0),
                                            (0, _F)),
                               o.fori_loop(0, 3, lambda i, x: x * 2.0, _F),
                               o.cond(True, lambda: _F, lambda: -_F)),
    "scan_map": lambda o: (o.scan(lambda c, x: (c + x, c * x), np.zeros(5, np.float32), _F),
                           o.map(lambda x: x * 2.0, _F)),
    "crossentropies": lambda o: (
        o.binary_crossentropy((_F > 0).astype(np.float32), 1 / (1 + np.exp(-_F))),
        o.binary_crossentropy((_F > 0).astype(np.float32), _F, from_logits=True),
        o.categorical_crossentropy(np.eye(5, dtype=np.float32)[[0, 3, 1]], _F,
                                   from_logits=True),
        o.sparse_categorical_crossentropy(np.array([0, 3, 1]), _F, from_logits=True),
        o.categorical_crossentropy(np.eye(5, dtype=np.float32)[[0, 3, 1]],
                                   np.abs(_F) / np.abs(_F).sum(1, keepdims=True))),
    "conv_pool": lambda o: (
        o.conv(_F[None, :, :, None] * np.ones(2, np.float32), np.ones((2, 2, 2, 3), np.float32),
               padding="same"),
        o.depthwise_conv(_F[None, :, :, None], np.ones((2, 3, 1, 2), np.float32), strides=2),
        o.max_pool(_F[None, :, :, None], 2, padding="same"),
        o.average_pool(_F[None, :, :, None], (2, 3), 1, padding="same"),
        o.average_pool(_F[None], 2, data_format="channels_first")),
    "batch_normalization": lambda o: o.batch_normalization(
        _F, np.ones(5, np.float32), np.full(5, 2.0, np.float32), axis=1,
        offset=np.zeros(5, np.float32), scale=np.full(5, 3.0, np.float32)),
    "linalg": lambda o: (o.inv(_SPD), o.solve(_SPD, _F[:, :2]), o.det(_SPD), o.slogdet(-_SPD),
                         o.logdet(_SPD), o.cholesky(_SPD), o.eigh(_SPD)[0],
                         o.svd(_F, compute_uv=False),
                         o.solve_triangular(np.triu(_SPD), _F[:, :2])),
}


@pytest.mark.parametrize("name", sorted(_AGAINST_KERAS))
def test_new_names_give_keras_values(name):
    keras = pytest.importorskip("keras")
    from kerasish.core import nest

    want = nest.flatten(_AGAINST_KERAS[name](keras.ops))
    got = nest.flatten(_AGAINST_KERAS[name](ops))
    assert len(got) == len(want)
    for mine, theirs in zip(got, want):
        theirs = keras.ops.convert_to_numpy(theirs)
        np.testing.assert_allclose(_np(mine), theirs, rtol=2e-5, atol=2e-6)


def test_compiled_functions_follow_indices_that_earlier_ops_compute():
    """ks.function replays: indices made by argsort/argmax are followed, not frozen, and the
    steps compile (ks.function warns and runs eagerly when an op's attributes change)."""
    steps = {
        "top_k": lambda x: ops.top_k(x, 2)[0] + ops.cast(ops.top_k(x, 2)[1], "float32"),
        "take_along_axis": lambda x: ops.take_along_axis(x, ops.argsort(x, axis=1), axis=1),
        "quantile": lambda x: ops.quantile(x, [0.2, 0.7], axis=1),
        "segment_max": lambda x: ops.segment_max(x, ops.cast(x[:, 0] > 0, "int32"),
                                                 num_segments=2),
        "scatter_update": lambda x: ops.scatter_update(
            x, ops.reshape(ops.argmax(x[:, 0]), (1, 1)), ops.ones((1, 4))),
        "while_loop": lambda x: ops.while_loop(lambda v: ops.sum(v) < 50.0,
                                               lambda v: v * 2.0 + 1.0, x),
    }
    for name, step in steps.items():
        compiled = ks.function(step)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):
                x = ks.constant(RNG.standard_normal((3, 4)).astype(np.float32))
                np.testing.assert_allclose(_np(compiled(x)), _np(step(x)), rtol=1e-6,
                                           err_msg=name)


def test_keras_ops_sub_namespaces_hold_the_same_functions():
    from kerasish import ops

    assert ops.numpy.add is ops.add and ops.numpy.matmul is ops.matmul
    assert ops.nn.relu is ops.relu and ops.nn.softmax is ops.softmax
    assert not hasattr(ops.nn, "add") and not hasattr(ops.numpy, "softmax")  # Keras's split
    assert float(ops.numpy.sum(ops.numpy.arange(4))) == 6.0


@pytest.mark.parametrize("namespace", ["ks", "math", "nn", "linalg", "ops"])
def test_the_public_namespaces_show_the_ops_of_the_one_table(namespace):
    from kerasish.ops import keras_names, namespaces

    module = ks if namespace == "ks" else getattr(ks, namespace)
    ops_shown = namespaces.public_ops(namespace)
    assert ops_shown, namespace
    for name, op in ops_shown.items():
        shown = getattr(module, name)
        shown, op = getattr(shown, "__wrapped_op__", shown), getattr(op, "__wrapped_op__", op)
        if namespace == "ops" and name in keras_names.KERAS_PARAMETERS:  # renamed arguments
            assert shown.__code__.co_code == op.__code__.co_code, name
        else:
            assert shown is op, name
    with pytest.raises(ValueError, match="namespace must be one of"):
        namespaces.public_ops("tf")
