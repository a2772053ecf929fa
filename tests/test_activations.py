"""Keras 3's activations in ks.activations: closed forms, gradients, names, Keras parity."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import activations
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients

X = np.array([[-3.0, -1.5, -0.7, -0.2, 0.3, 0.8, 1.6, 4.0]])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name, kwargs, NumPy closed form
CASES = [
    ("celu", {"alpha": 1.5}, lambda x: np.maximum(x, 0) + 1.5 * np.expm1(np.minimum(x, 0) / 1.5)),
    ("glu", {}, lambda x: x[:, :4] * _sigmoid(x[:, 4:])),
    ("hard_shrink", {"threshold": 0.6}, lambda x: np.where(np.abs(x) > 0.6, x, 0)),
    ("hard_tanh", {}, lambda x: np.clip(x, -1, 1)),
    ("log_sigmoid", {}, lambda x: np.log(_sigmoid(x))),
    ("soft_shrink", {"threshold": 0.5},
     lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    ("sparse_plus", {}, lambda x: np.where(x <= -1, 0, np.where(x < 1, (x + 1) ** 2 / 4, x))),
    ("sparse_sigmoid", {}, lambda x: np.where(x <= -1, 0, np.where(x < 1, (x + 1) / 2, 1))),
    ("squareplus", {"b": 2.0}, lambda x: (x + np.sqrt(x**2 + 2)) / 2),
    ("tanh_shrink", {}, lambda x: x - np.tanh(x)),
    ("threshold", {"threshold": 0.5, "default_value": -2.0}, lambda x: np.where(x > 0.5, x, -2.0)),
    ("relu", {"negative_slope": 0.1, "max_value": 2.0, "threshold": 0.5},
     lambda x: np.where(x > 0.5, np.minimum(x, 2.0), 0.1 * (x - 0.5))),
    ("elu", {"alpha": 0.3}, lambda x: np.where(x > 0, x, 0.3 * np.expm1(x))),
    ("leaky_relu", {"negative_slope": 0.05}, lambda x: np.where(x > 0, x, 0.05 * x)),
]


@pytest.mark.parametrize("name, kwargs, reference", CASES, ids=[c[0] for c in CASES])
def test_matches_closed_form(name, kwargs, reference):
    got = getattr(activations, name)(X, **kwargs).numpy()
    np.testing.assert_allclose(got, reference(X), rtol=1e-12, atol=1e-15)
    assert activations.get(name) is getattr(activations, name)
    assert activations.builtin_name(getattr(activations, name)) == name


SMOOTH = np.array([[-2.3, -1.2, -0.35, 0.1, 0.45, 1.3, 2.2, 3.1]])  # away from the kinks


@pytest.mark.parametrize("name, kwargs", [(c[0], c[1]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_gradients(name, kwargs):
    fn = getattr(activations, name)
    check_gradients(lambda x: fn(x, **kwargs), [SMOOTH])


def test_sparsemax_is_the_projection_onto_the_simplex():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 7)) * 2
    got = activations.sparsemax(x).numpy()
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-12)
    assert (got >= 0).all() and (got == 0).any()
    # the projection: closest point of the simplex, found by bisection on tau
    for row, out in zip(x, got):
        lo, hi = row.min() - 1, row.max()
        for _ in range(200):
            tau = (lo + hi) / 2
            lo, hi = (tau, hi) if np.maximum(row - tau, 0).sum() > 1 else (lo, tau)
        np.testing.assert_allclose(out, np.maximum(row - tau, 0), atol=1e-12)
    np.testing.assert_allclose(activations.sparsemax([[1.0, 0.5, 0.0]]).numpy(),
                               [[0.75, 0.25, 0.0]])
    on_axis_0 = activations.sparsemax(x.T, axis=0).numpy()
    np.testing.assert_allclose(on_axis_0, got.T, rtol=1e-12)


def test_sparsemax_gradient_is_the_projections():
    x = np.array([[0.9, 0.4, 0.2, -1.0], [2.0, 1.7, -0.5, 0.0]])
    check_gradients(lambda v: activations.sparsemax(v), [x])
    # d out / d x on the support S: identity minus 1/|S|
    v = ks.Variable(x[:1])
    with ks.GradientTape() as tape:
        y = activations.sparsemax(v)[0, 0]
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [[2 / 3, -1 / 3, -1 / 3, 0.0]])


def test_glu_needs_an_even_axis():
    with pytest.raises(InvalidArgumentError, match="even size"):
        activations.glu(np.ones((2, 3)))
    assert activations.glu(np.ones((4, 2)), axis=0).shape == (2, 2)


def test_layers_take_the_new_names():
    dense = ks.layers.Dense(3, activation="sparsemax")
    out = dense(np.ones((2, 4), np.float32)).numpy()
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-6)
    config = ks.saving.serialize_keras_object(ks.layers.Dense(2, activation="celu"))
    assert ks.saving.deserialize_keras_object(config).activation is activations.celu


# ---------------------------------------------------------------- Keras 3 (interop venv)


@pytest.mark.parametrize("name, kwargs", [(c[0], c[1]) for c in CASES] + [("gelu", {})],
                         ids=[c[0] for c in CASES] + ["gelu"])
def test_matches_keras3(name, kwargs):
    keras = pytest.importorskip("keras")
    x = X.astype(np.float32)
    expected = keras.ops.convert_to_numpy(getattr(keras.activations, name)(x, **kwargs))
    got = getattr(activations, name)(x, **kwargs).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_sparsemax_matches_keras3_where_one_score_is_kept():
    """Keras 3.15 agrees on supports of size one; with more it does not sum to 1
    (keras-team/keras#23425), and kerasish keeps the paper's definition."""
    keras = pytest.importorskip("keras")
    x = np.array([[4.0, 1.0, 0.0], [0.0, -2.0, 3.5]], np.float32)
    expected = keras.ops.convert_to_numpy(keras.activations.sparsemax(x))
    np.testing.assert_allclose(activations.sparsemax(x).numpy(), expected)
