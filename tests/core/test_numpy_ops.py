"""NumPy's remaining functions (`kerasish.core.ops.numpy_ops`, shown as `ks.ops.*`): values
against NumPy, gradients against finite differences (float64), the errors that name what is
wrong, and Keras's argument names on the core ops."""

import inspect

import numpy as np
import pytest

import kerasish as ks
from kerasish import ops
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4))
B = RNG.normal(size=(3, 4))


def _np(t):
    return ops.convert_to_numpy(t)


UNARY = [
    ("cbrt", np.cbrt), ("exp2", np.exp2), ("sinc", np.sinc), ("i0", np.i0),
    ("deg2rad", np.deg2rad), ("rad2deg", np.rad2deg), ("fabs", np.fabs), ("trunc", np.trunc),
    ("signbit", np.signbit), ("isneginf", np.isneginf), ("isposinf", np.isposinf),
    ("ravel", np.ravel), ("flipud", np.flipud), ("fliplr", np.fliplr), ("copy", np.copy),
    ("real", np.real), ("imag", np.imag), ("conj", np.conj), ("angle", np.angle),
    ("isreal", np.isreal),
]


@pytest.mark.parametrize("name,reference", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_match_numpy(name, reference):
    x = A.copy()
    x[0, 0], x[0, 1] = 0.0, -np.inf
    if name in ("i0", "cbrt", "sinc", "exp2"):
        x = A
    np.testing.assert_allclose(_np(getattr(ops, name)(x)), reference(x), rtol=1e-12)


BINARY = [
    ("hypot", np.hypot), ("logaddexp", np.logaddexp), ("logaddexp2", np.logaddexp2),
    ("fmax", np.fmax), ("fmin", np.fmin), ("fmod", np.fmod), ("heaviside", np.heaviside),
    ("nextafter", np.nextafter), ("kron", np.kron), ("isclose", np.isclose),
]


@pytest.mark.parametrize("name,reference", BINARY, ids=[b[0] for b in BINARY])
def test_binary_values_match_numpy(name, reference):
    a, b = A.copy(), B.copy()
    a[0, 0], b[0, 1], a[1, 1], b[1, 1] = np.nan, np.nan, 0.0, 0.0
    np.testing.assert_allclose(_np(getattr(ops, name)(a, b)), reference(a, b), rtol=1e-12)


def test_integer_and_bitwise_ops_match_numpy():
    x, y = np.array([12, 7, -5, 0]), np.array([8, 3, 3, 5])
    for name, ref in [("gcd", np.gcd), ("lcm", np.lcm), ("bitwise_and", np.bitwise_and),
                      ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor),
                      ("fmod", np.fmod)]:
        np.testing.assert_array_equal(_np(getattr(ops, name)(x, y)), ref(x, y))
    np.testing.assert_array_equal(_np(ops.left_shift(x, 2)), np.left_shift(x, 2))
    np.testing.assert_array_equal(_np(ops.bitwise_right_shift(x, 1)), np.right_shift(x, 1))
    np.testing.assert_array_equal(_np(ops.bitwise_not(x)), np.invert(x))
    np.testing.assert_array_equal(_np(ops.isin(x, [7, 0])), np.isin(x, [7, 0]))
    np.testing.assert_array_equal(_np(ops.isin(x, [7, 0], invert=True)), [True, False] * 2)
    np.testing.assert_array_equal(_np(ops.ldexp([1.0, 3.0], [3, -1])), [8.0, 1.5])
    np.testing.assert_array_equal(_np(ops.view(np.float32([1.0, 2.0]), "int32")),
                                  np.float32([1.0, 2.0]).view(np.int32))


def test_layouts_match_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    checks = [
        (ops.hstack([A, B]), np.hstack([A, B])), (ops.vstack([A[0], B[0]]), np.vstack([A[0], B[0]])),
        (ops.dstack([A, B]), np.dstack([A, B])), (ops.append(A, B), np.append(A, B)),
        (ops.append(A, B, axis=1), np.append(A, B, axis=1)),
        (ops.rot90(x), np.rot90(x)), (ops.rot90(x, 3, (1, 2)), np.rot90(x, 3, (1, 2))),
        (ops.rot90(x, -2), np.rot90(x, -2)), (ops.diagflat([[1, 2]], 1), np.diagflat([[1, 2]], 1)),
        (ops.diff(x, 2, axis=1), np.diff(x, 2, axis=1)), (ops.tri(3, 4, -1), np.tri(3, 4, -1)),
        (ops.vander([1.0, 2.0, 3.0], 4, True), np.vander([1.0, 2.0, 3.0], 4, True)),
        (ops.get_item(x, (1, slice(None), 2)), x[1, :, 2]), (ops.eye(3, 4, k=-1), np.eye(3, 4, -1)),
        (ops.kaiser(6, 2.0), np.kaiser(6, 2.0)), (ops.hanning(5), np.hanning(5)),
        (ops.trapezoid(x, axis=1), np.trapezoid(x, axis=1)),
        (ops.trapezoid(x, x=[0.0, 1.0, 3.0, 7.0]), np.trapezoid(x, x=[0.0, 1.0, 3.0, 7.0])),
        (ops.ptp(x, axis=2), np.ptp(x, axis=2)), (ops.corrcoef(A), np.corrcoef(A)),
        (ops.cdist(A, B), np.sqrt(((A[:, None] - B[None]) ** 2).sum(-1))),
    ]
    for mode in ("valid", "same", "full"):
        checks.append((ops.correlate(A[0], B[1, :3], mode), np.correlate(A[0], B[1, :3], mode)))
        checks.append((ops.correlate(A[0, :2], B[1], mode), np.correlate(A[0, :2], B[1], mode)))
    for ours, numpy_result in checks:
        np.testing.assert_allclose(_np(ours), numpy_result, rtol=1e-6, atol=1e-6)
    for ours, theirs in [(ops.array_split(np.arange(7), 3), np.array_split(np.arange(7), 3)),
                         (ops.array_split(np.arange(7), [2, 9]), np.array_split(np.arange(7), [2, 9])),
                         (ops.hsplit(x, 3), np.hsplit(x, 3)), (ops.vsplit(x, [1]), np.vsplit(x, [1])),
                         (ops.dsplit(x, 2), np.dsplit(x, 2))]:
        assert [_np(t).tolist() for t in ours] == [t.tolist() for t in theirs]
    cond = [x < 5, x > 20]
    np.testing.assert_array_equal(_np(ops.select(cond, [x, -x], 7.0)), np.select(cond, [x, -x], 7.0))
    rows, cols = ops.unravel_index([0, 5, 11], (3, 4))
    assert (_np(rows).tolist(), _np(cols).tolist()) == ([0, 1, 2], [0, 1, 3])
    counts, edges = ops.histogram(A.ravel(), bins=4)
    reference = np.histogram(A.ravel(), bins=4)
    np.testing.assert_array_equal(_np(counts), reference[0])
    np.testing.assert_allclose(_np(edges), reference[1], rtol=1e-6)
    part = _np(ops.argpartition(A, 1, axis=1))
    np.testing.assert_array_equal(np.take_along_axis(A, part, 1)[:, 1], np.sort(A, 1)[:, 1])


def test_spaces_match_numpy():
    np.testing.assert_allclose(_np(ops.linspace(2, 3, 5, endpoint=False)),
                               np.linspace(2, 3, 5, endpoint=False), rtol=1e-6)
    values, step = ops.linspace(0.0, 1.0, 5, retstep=True, dtype="float64")
    assert float(step) == 0.25 and _np(values).tolist() == np.linspace(0, 1, 5).tolist()
    starts, stops = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    for axis in (0, 1, -1):
        np.testing.assert_allclose(_np(ops.linspace(starts, stops, 4, axis=axis, dtype="float64")),
                                   np.linspace(starts, stops, 4, axis=axis))
    np.testing.assert_allclose(_np(ops.logspace(0, 3, 4, base=2.0)), np.logspace(0, 3, 4, base=2.0))
    np.testing.assert_allclose(_np(ops.geomspace(-1, -1000, 4, dtype="float64")),
                               np.geomspace(-1, -1000, 4))
    np.testing.assert_allclose(_np(ops.geomspace(1, 16, 4, endpoint=False)),
                               np.geomspace(1, 16, 4, endpoint=False), rtol=1e-6)


def test_nan_statistics_match_numpy():
    x = A.copy()
    x[0, 1], x[2, :] = np.nan, np.nan
    x[1, 3] = np.nan
    finite = np.where(np.isnan(x), 0.0, x)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        refs = {name: getattr(np, name)(x, axis=1) for name in (
            "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanmedian")}
    for name, ref in refs.items():
        np.testing.assert_allclose(_np(getattr(ops, name)(x, axis=1)), ref, rtol=1e-12,
                                   err_msg=name)
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        with pytest.warns(RuntimeWarning):
            ref = np.nanquantile(x, [0.3, 0.8], axis=1, method=method, keepdims=True)
        np.testing.assert_allclose(
            _np(ops.nanquantile(x, [0.3, 0.8], axis=1, method=method, keepdims=True)), ref)
    np.testing.assert_allclose(_np(ops.nanpercentile(x[:2], 40)), np.nanpercentile(x[:2], 40))
    np.testing.assert_allclose(_np(ops.percentile(finite, [10, 90], axis=0)),
                               np.percentile(finite, [10, 90], axis=0))
    np.testing.assert_array_equal(_np(ops.nanargmax(x[:2], axis=1)), np.nanargmax(x[:2], axis=1))
    assert int(ops.nanargmin(x)) == np.nanargmin(x)
    np.testing.assert_allclose(_np(ops.nancumsum(x, axis=0)), np.nancumsum(x, axis=0))
    np.testing.assert_allclose(_np(ops.nancumprod(x)), np.nancumprod(x))


DIFFERENTIABLE = {
    "cbrt": (lambda a: ops.cbrt(a), [A + 3.0]),
    "exp2": (lambda a: ops.exp2(a), [A]),
    "i0_at_0": (lambda a: ops.i0(a) * ops.i0(a), [np.array([0.0, 1e-4, -0.2])]),
    "sinc": (lambda a: ops.sinc(a), [np.array([0.0, 0.3, -1.7])]),
    "i0": (lambda a: ops.i0(a), [A]),
    "erfinv": (lambda a: ops.erfinv(a), [np.array([-0.7, 0.0, 0.4, 0.9])]),
    "erfc": (lambda a: ops.erfc(a), [A]),
    "hypot": (lambda a, b: ops.hypot(a, b), [A, B]),
    "logaddexp": (lambda a, b: ops.logaddexp(a, b), [A, B]),
    "logaddexp2": (lambda a, b: ops.logaddexp2(a, b), [A, B]),
    "fmax_fmin": (lambda a, b: ops.fmax(a, b) * ops.fmin(a, b), [A, B]),
    "fmod": (lambda a, b: ops.fmod(a, b), [A * 3.0, np.abs(B) + 0.5]),
    "ldexp": (lambda a: ops.ldexp(a, np.array([1, -2, 0, 3])), [A]),
    "heaviside": (lambda b: ops.heaviside(np.array([-1.0, 0.0, 2.0]), b), [np.array([0.3, 0.5, 0.7])]),
    "real_imag": (lambda a: ops.real(ops.conj(a)) + ops.imag(a), [A]),
    "kron": (lambda a, b: ops.kron(a, b), [A[:2, :2], B[:2, :3]]),
    "rot90_flips": (lambda a: ops.rot90(ops.fliplr(ops.flipud(a)), 3), [A]),
    "stacks": (lambda a, b: ops.hstack([a, b])[:, 2:6] * ops.vstack([b, a])[2:5]
               - ops.dstack([a, b])[..., 1], [A, B]),
    "diff_trapezoid": (lambda a: ops.trapezoid(ops.diff(a, 2), x=[0.0, 1.5]), [A]),
    "select": (lambda a, b: ops.select([a > 0, b > 0], [a, b * 2.0], 1.0), [A, B]),
    "vander": (lambda a: ops.vander(a, 4), [A[0]]),
    "nan_stats": (lambda a: ops.nanmean(a, 0) + ops.nanstd(a, 1)[0] + ops.nanmax(a) +
                  ops.nanmedian(a, axis=1)[1] + ops.nansum(a) * ops.nanprod(a[0]), [A]),
    "quantiles": (lambda a: ops.nanquantile(a, [0.2, 0.7], axis=0) + ops.percentile(a, 40, axis=0), [A]),
    "nancumsum": (lambda a: ops.nancumsum(a, axis=1) * ops.nancumprod(a, axis=0), [A]),
    "ptp": (lambda a: ops.ptp(a, axis=0), [A]),
    "corrcoef": (lambda a: ops.corrcoef(a), [A]),
    "correlate": (lambda a, b: ops.correlate(a, b, "full") + ops.correlate(b[:2], a, "same")[0], [A[0], B[0, :3]]),
    "cdist": (lambda a, b: ops.cdist(a, b), [A, B]),
    "spaces": (lambda a, b: ops.linspace(a, b, 4, axis=1, dtype="float64") +
               ops.logspace(a, b, 4, axis=1, dtype="float64"), [A[0], B[0]]),
    "geomspace": (lambda a, b: ops.geomspace(a, b, 3, dtype="float64"), [np.abs(A[0]) + 1, np.abs(B[0]) + 1]),
    "append_split": (lambda a: ops.append(a, a) * 2.0 + ops.concatenate(ops.array_split(a, 3, axis=1), 1)[0, 0], [A]),
    "get_item": (lambda a: ops.get_item(a, (slice(1, None), 2)) + ops.ravel(a)[:2], [A]),
    "diagflat": (lambda a: ops.diagflat(a[:2, :2], 1), [A]),
    "vectorize": (lambda a: ops.vectorize(lambda v: ops.sin(v) * v)(a), [A[0]]),
    "copy": (lambda a: ops.copy(a) * a, [A]),
}


@pytest.mark.parametrize("name", list(DIFFERENTIABLE))
def test_gradients_match_finite_differences(name):
    function, args = DIFFERENTIABLE[name]
    check_gradients(function, args, order=1, rtol=1e-4, atol=1e-6)


ERRORS = [
    (lambda: ops.ldexp([1.0], [1.5]), "ldexp: x2 must be an integer tensor, got float32"),
    (lambda: ops.array_split([1, 2], 0), "array_split: the number of sections must be positive"),
    (lambda: ops.hsplit(ops.zeros((2, 3)), 2), "hsplit: axis 1 of length 3 does not split into 2"),
    (lambda: ops.vsplit(ops.zeros((2,)), 2), "vsplit: needs a tensor of rank >= 2, got rank 1"),
    (lambda: ops.dsplit(ops.zeros((2, 2)), 2), "dsplit: needs a tensor of rank >= 3, got rank 2"),
    (lambda: ops.fliplr([1, 2]), "fliplr: needs a tensor of rank >= 2, got rank 1"),
    (lambda: ops.flipud(1.0), "flipud: needs a tensor of rank >= 1, got a scalar"),
    (lambda: ops.rot90([[1]], axes=(0, 0)), "rot90: needs rank >= 2 and two distinct axes"),
    (lambda: ops.diff([1, 2], n=-1), "diff: n must be non-negative, got -1"),
    (lambda: ops.select([True], [1, 2]), "select: condlist and choicelist must be non-empty"),
    (lambda: ops.vander([[1]]), "vander: x must be 1-D and N non-negative, got rank 2"),
    (lambda: ops.linspace(0, 1, -1), "linspace: num must be non-negative, got -1"),
    (lambda: ops.nanargmax([np.nan, np.nan]), "nanargmax: an all-NaN slice has no arg index"),
    (lambda: ops.nanquantile([1.0], 2.0), "nanquantile: q must be a number or a 1-D sequence"),
    (lambda: ops.nanquantile([1.0], 0.5, method="cubic"), "method one of"),
    (lambda: ops.percentile([1.0], 101), "percentile: q must be in [0, 100], got 101.0"),
    (lambda: ops.nanpercentile([1.0], -1), "nanpercentile: q must be in [0, 100], got -1.0"),
    (lambda: ops.corrcoef(ops.zeros((2, 2, 2))), "corrcoef: x must be 1-D or 2-D, got rank 3"),
    (lambda: ops.correlate([[1.0]], [1.0]), "correlate: needs two non-empty 1-D tensors"),
    (lambda: ops.correlate([1.0], [1.0], mode="wide"), "and mode 'wide'"),
    (lambda: ops.histogram([[1.0]]), "histogram: x must be 1-D and bins positive, got rank 2"),
    (lambda: ops.unravel_index([6], (2, 3)), "unravel_index: indices must be in [0, 6)"),
    (lambda: ops.vectorize(lambda a: a, signature="(n)")(ops.zeros(2)), "cannot read the signature"),
    (lambda: ops.vectorize(lambda a, b: a, signature="(n),(n)->()")(ops.zeros(2)),
     "the signature '(n),(n)->()' names 2 inputs, got 1"),
    (lambda: ops.vectorize(lambda a: a)(ops.zeros((0,))), "vectorize: the arguments have no elements"),
]


@pytest.mark.parametrize("call,message", ERRORS, ids=[m.split(":")[0] for _, m in ERRORS])
def test_errors_name_what_is_wrong(call, message):
    with pytest.raises(InvalidArgumentError, match=None) as info:
        call()
    assert message in str(info.value)


def test_vectorize_with_a_signature_maps_the_loop_axes():
    rows = RNG.normal(size=(2, 3, 4))
    dots = ops.vectorize(lambda a, b: ops.sum(a * b), signature="(n),(n)->()")(rows, rows[0, 0])
    np.testing.assert_allclose(_np(dots), (rows * rows[0, 0]).sum(-1))
    scale = ops.vectorize(lambda a, s: a * s, excluded={1})
    np.testing.assert_allclose(_np(scale([1.0, 2.0], 3.0)), [3.0, 6.0])


def test_complex_parts():
    z = np.array([1 + 2j, -3 - 0.5j], dtype=np.complex64)
    np.testing.assert_array_equal(_np(ops.real(z)), z.real)
    np.testing.assert_array_equal(_np(ops.imag(z)), z.imag)
    np.testing.assert_array_equal(_np(ops.conjugate(z)), z.conj())
    np.testing.assert_allclose(_np(ops.angle(z)), np.angle(z), rtol=1e-6)
    np.testing.assert_array_equal(_np(ops.isreal(z)), [False, False])


def test_keras_argument_names_on_the_core_ops():
    for name, names in ks.ops.keras_names.KERAS_PARAMETERS.items():
        parameters = list(inspect.signature(getattr(ops, name)).parameters)
        assert parameters[: len(names)] == list(names), name
        assert getattr(ops.numpy, name) is getattr(ops, name)
    assert _np(ops.add(x1=[1, 2], x2=3)).tolist() == [4, 5]
    assert _np(ops.where(condition=[True, False], x1=1, x2=2)).tolist() == [1, 2]
    assert ops.shape(ops.reshape(x=ops.zeros(6), newshape=(2, 3))) == (2, 3)
    assert "y" in inspect.signature(ks.add).parameters  # ks's own names stay
    assert float(ops.max([1.0, 2.0], initial=5.0)) == 5.0
    assert float(ops.min([1.0, 2.0], initial=0.5)) == 0.5
    assert ops.cumsum([1, 2], dtype="float32").dtype == np.float32
    assert ops.prod([1, 2], dtype="float64").dtype == np.float64
    with pytest.raises(ValueError, match="renamed: cannot rename"):
        ks.ops.keras_names.renamed(lambda a: a, ("x1", "x2"))


def test_the_renamed_add_is_the_same_code():
    from kerasish.core.ops import math_ops

    assert ops.add.__code__.co_code == math_ops.add.__code__.co_code
    x = ks.Variable([1.0, 2.0])
    with ks.GradientTape() as tape:
        y = ops.sum(ops.multiply(ops.add(x, 1.0), x))
    assert _np(tape.gradient(y, x)).tolist() == [3.0, 5.0]


def test_functional_models_take_the_new_ops():
    inputs = ks.Input((4,))
    outputs = ops.logaddexp(ops.nanmax(inputs, axis=1, keepdims=True), ops.hstack([inputs, inputs])[:, :1])
    model = ks.Model(inputs, outputs)
    x = A.astype(np.float32)
    np.testing.assert_allclose(_np(model(x)), np.logaddexp(x.max(1, keepdims=True), x[:, :1]),
                               rtol=1e-6)
