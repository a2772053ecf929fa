"""`ks.ops.numpy` against Keras 3's `keras.ops.numpy` (numpy backend): every name present
with Keras's parameter names, and a sample of values and result dtypes of the names this
issue added (int inputs to real-valued ops give float32, as Keras's).

Skipped without Keras; run with a Python that has Keras 3:
`KERAS_BACKEND=numpy python -m pytest tests/test_keras_numpy_parity.py`.
"""

import inspect
import os

import numpy as np
import pytest

import kerasish as ks

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

RNG = np.random.default_rng(1)
F = RNG.standard_normal((3, 4)).astype(np.float32)
G = RNG.standard_normal((3, 4)).astype(np.float32)
I = np.array([[3, -1, 4, 0], [5, 9, -2, 6], [12, 8, 7, 1]], dtype=np.int32)  # noqa: E741
J = np.array([[2, 3, 1, 5], [4, 2, 7, 3], [8, 6, 5, 2]], dtype=np.int32)
N = F.copy()
N[0, 1] = N[2, 3] = np.nan
V = np.arange(1, 6, dtype=np.int32)

CASES = [
    ("allclose", (F, F + 1e-9), {}), ("angle", (I,), {}), ("append", (I, J), {"axis": 0}),
    ("array", ([1.5, 2.0],), {}), ("array", ([1, 2],), {"dtype": "int64"}),
    ("array_split", (V, 3), {}), ("bartlett", (6,), {}), ("blackman", (6,), {}),
    ("hamming", (6,), {}), ("hanning", (6,), {}), ("kaiser", (6, 3.0), {}),
    ("bitwise_and", (I, J), {}), ("bitwise_or", (I, J), {}), ("bitwise_xor", (I, J), {}),
    ("bitwise_invert", (I,), {}), ("bitwise_not", (I,), {}),
    ("bitwise_left_shift", (I, 2), {}), ("left_shift", (I, J), {}),
    ("bitwise_right_shift", (I, 1), {}), ("right_shift", (I, J), {}),
    ("cbrt", (I,), {}), ("cbrt", (F,), {}), ("conj", (F,), {}), ("conjugate", (I,), {}),
    ("real", (F,), {}), ("imag", (F,), {}), ("isreal", (F,), {}), ("copy", (I,), {}),
    ("corrcoef", (F,), {}), ("corrcoef", (I,), {}), ("correlate", (F[0], G[1, :3]), {}),
    ("correlate", (V, V[:3]), {"mode": "full"}), ("correlate", (F[0], G[0, :2]), {"mode": "same"}),
    ("deg2rad", (I,), {}), ("rad2deg", (F,), {}), ("diagflat", (J[:, :2],), {"k": 1}),
    ("diff", (I,), {"n": 2, "axis": 0}), ("diff", (F,), {}), ("divide_no_nan", (I, I * 0 + J), {}),
    ("divide_no_nan", (F, np.where(G > 0, G, 0)), {}),
    ("dsplit", (F.reshape(3, 2, 2), 2), {}), ("hsplit", (F, 2), {}), ("vsplit", (F, [1]), {}),
    ("dstack", ([F, G],), {}), ("hstack", ([I, J],), {}), ("vstack", ([V, V],), {}),
    ("empty", ((2, 3),), {}), ("empty_like", (I,), {}), ("exp2", (I,), {}), ("exp2", (F,), {}),
    ("fabs", (I,), {}), ("fliplr", (F,), {}), ("flipud", (I,), {}),
    ("fmax", (N, G), {}), ("fmin", (I, J), {}), ("fmod", (I, J), {}), ("fmod", (F, G), {}),
    ("gcd", (I, J), {}), ("lcm", (I, J), {}),
    ("geomspace", (1, 1000), {"num": 4}), ("geomspace", (2.0, 32.0, 5), {"endpoint": False}),
    ("logspace", (0, 2), {"num": 3}), ("logspace", (0.0, 3.0, 4), {"base": 2.0}),
    ("get_item", (F, 1), {}), ("heaviside", (I, 0.5), {}), ("heaviside", (F, G), {}),
    ("histogram", (F.ravel(),), {"bins": 4}), ("hypot", (I, J), {}), ("i0", (F,), {}),
    ("i0", (I,), {}), ("isclose", (F, F + 1e-7), {}), ("isin", (I, J), {}),
    ("isin", (I, J), {"invert": True}), ("isneginf", (N,), {}), ("isposinf", (F,), {}),
    ("kron", (I[:2, :2], J[:2, :3]), {}), ("kron", (F[0], G[0]), {}),
    ("ldexp", (F, J), {}), ("logaddexp", (F, G), {}), ("logaddexp2", (I, J), {}),
    ("nanargmax", (N,), {"axis": 1}), ("nanargmin", (N,), {}),
    ("nancumprod", (N,), {"axis": 0}), ("nancumsum", (N,), {}), ("nancumsum", (I,), {"axis": 1}),
    ("nanmax", (N,), {"axis": 0}), ("nanmin", (N,), {"keepdims": True}),
    ("nanmean", (N,), {"axis": 1}), ("nanmean", (I,), {}), ("nanmedian", (N,), {"axis": 1}),
    ("nanmedian", (I,), {}), ("nanpercentile", (N, 30), {"axis": 0}),
    ("nanquantile", (N, [0.2, 0.9]), {"axis": 1}), ("nanquantile", (I, 0.5), {}),
    ("nanprod", (N,), {"axis": 1}), ("nanstd", (N,), {}), ("nansum", (N,), {"axis": 0}),
    ("nansum", (I,), {}), ("nanvar", (N,), {"axis": 1}), ("nanvar", (I,), {}),
    ("nextafter", (F, G), {}), ("percentile", (F, [25, 75]), {"axis": 1}),
    ("percentile", (I, 50), {}), ("ptp", (I,), {"axis": 1}), ("ptp", (F,), {}),
    ("ravel", (I,), {}), ("rot90", (I,), {}), ("rot90", (F,), {"k": 3, "axes": (1, 0)}),
    ("select", ([I > 4, I < 0], [I, -I]), {"default": 7}), ("signbit", (F,), {}),
    ("sinc", (F,), {}), ("sinc", (I,), {}), ("trapezoid", (F,), {}), ("trapezoid", (I,), {"dx": 0.5}),
    ("trapezoid", (F,), {"x": [0.0, 1.0, 3.0, 4.0]}), ("tri", (3,), {"M": 4, "k": 1}),
    ("trunc", (F * 3,), {}), ("trunc", (I,), {}), ("unravel_index", (V, (2, 3)), {}),
    ("vander", (V,), {}), ("vander", (F[0],), {"N": 3, "increasing": True}),
    ("view", (F, "int32"), {}), ("erfc", (F,), {}), ("erfc", (I,), {}),
    ("erfinv", (F / 4,), {}), ("cdist", (F, G), {}),
    ("linspace", (0, 1, 4), {"endpoint": False}), ("linspace", (np.float32([0, 1]), 3.0, 3), {"axis": 1}),
    ("linspace", (0.0, 2.0, 5), {"retstep": True}), ("eye", (3, 4), {"k": -1}),
    ("max", (I,), {"initial": 20}), ("min", (F,), {"axis": 0, "initial": -0.5}),
    ("cumsum", (I,), {"dtype": "float32"}), ("cumprod", (J,), {"axis": 0, "dtype": "float32"}),
    ("prod", (J,), {"axis": 1, "dtype": "float32"}), ("argpartition", (I[0], 1), {}),
    ("add", (), {"x1": I, "x2": J}), ("where", (I > 2,), {"x1": I, "x2": J}),
    ("reshape", (), {"x": I, "newshape": (4, 3)}), ("power", (), {"x1": J, "x2": 2}),
]


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [part for item in result for part in _flat(item)]
    return [result]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_and_dtypes_match_keras(name, args, kwargs):
    with np.errstate(all="ignore"):
        keras_op = getattr(keras.ops.numpy, name, None) or getattr(keras.ops, name)
        theirs = _flat(keras_op(*args, **kwargs))
        ours = _flat((getattr(ks.ops.numpy, name, None) or getattr(ks.ops, name))(*args, **kwargs))
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        reference = np.asarray(reference)
        mine = ks.ops.convert_to_numpy(mine)
        if name == "argpartition":  # only the kth place is fixed
            np.testing.assert_array_equal(np.sort(args[0])[1], args[0][mine[1]])
            continue
        if name in ("histogram",) and reference.dtype == np.int64:
            reference = reference.astype(np.int32)  # Keras gives NumPy's int64 counts here
        if name == "linspace" and kwargs.get("retstep") and reference.ndim == 0:
            reference = reference.astype(np.float32)  # Keras returns NumPy's float64 step
        assert str(mine.dtype) == str(reference.dtype), (name, mine.dtype, reference.dtype)
        if name.startswith("empty"):  # Keras's are uninitialized memory
            assert mine.shape == reference.shape
            continue
        np.testing.assert_allclose(mine, reference, rtol=2e-6, atol=2e-6, err_msg=name)


def test_every_keras_numpy_name_is_there_with_its_parameters():
    missing, lacking = [], []
    for name in dir(keras.ops.numpy):
        if name.startswith("_"):
            continue
        ours = getattr(ks.ops.numpy, name, None)
        if ours is None:
            missing.append(name)
            continue
        theirs = inspect.signature(getattr(keras.ops.numpy, name)).parameters
        have = inspect.signature(ours).parameters
        if any(p not in have for p, v in theirs.items()
               if v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)):
            lacking.append(name)
    assert not missing and not lacking, (missing, lacking)
