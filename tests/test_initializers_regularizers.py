"""Keras 3's LecunUniform, Identity and OrthogonalRegularizer, and the initializer aliases:
closed forms, gradients, configs, and Keras 3's numbers when Keras is importable."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import initializers, regularizers
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients


def test_lecun_uniform_range_and_variance():
    ks.random.set_seed(7)
    w = initializers.LecunUniform(seed=3)((400, 300)).numpy()
    limit = np.sqrt(3 / 400)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    assert w.var() == pytest.approx(1 / 400, rel=0.02)
    ks.random.set_seed(7)
    again = initializers.LecunUniform(seed=3)((400, 300)).numpy()
    np.testing.assert_array_equal(w, again)


def test_identity():
    np.testing.assert_array_equal(initializers.Identity(gain=3.0)((3, 2)).numpy(),
                                  3 * np.eye(3, 2))
    assert initializers.Identity()((2, 2), dtype="float64").numpy().dtype == np.float64
    with pytest.raises(InvalidArgumentError, match="2-D"):
        initializers.Identity()((2, 2, 2))


def test_aliases_and_names():
    assert initializers.OrthogonalInitializer is initializers.orthogonal is initializers.Orthogonal
    assert initializers.IdentityInitializer is initializers.identity is initializers.Identity
    assert initializers.lecun_uniform is initializers.LecunUniform
    assert initializers.constant is initializers.Constant
    assert initializers.variance_scaling is initializers.VarianceScaling
    for name, cls in (("identity", initializers.Identity),
                      ("lecun_uniform", initializers.LecunUniform),
                      ("LecunUniform", initializers.LecunUniform)):
        assert type(initializers.get(name)) is cls
    for init in (initializers.Identity(gain=0.5), initializers.LecunUniform(seed=2)):
        again = initializers.deserialize(initializers.serialize(init))
        assert type(again) is type(init) and again.get_config() == init.get_config()
    layer = ks.layers.Dense(4, kernel_initializer="identity")
    layer.build((None, 4))
    np.testing.assert_array_equal(layer.kernel.numpy(), np.eye(4))


def _ref_orthogonal(w, factor, mode):
    u = w if mode == "rows" else w.T
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    products = np.abs(u @ u.T)
    n = len(u)
    return factor * products[~np.eye(n, dtype=bool)].sum() / 2 / (n * (n - 1) / 2)


@pytest.mark.parametrize("mode", ["rows", "columns"])
def test_orthogonal_regularizer_matches_numpy_and_gradients(mode):
    w = np.random.default_rng(0).normal(size=(4, 6))
    reg = regularizers.OrthogonalRegularizer(factor=0.3, mode=mode)
    assert float(reg(w)) == pytest.approx(_ref_orthogonal(w, 0.3, mode), rel=1e-12)
    check_gradients(lambda x: reg(x), [w])
    q = np.linalg.qr(np.random.default_rng(1).normal(size=(5, 5)))[0]
    assert float(reg(q)) == pytest.approx(0.0, abs=1e-12)


def test_orthogonal_regularizer_checks_and_config():
    with pytest.raises(InvalidArgumentError, match="mode"):
        regularizers.OrthogonalRegularizer(mode="diagonal")
    with pytest.raises(InvalidArgumentError, match="factor"):
        regularizers.OrthogonalRegularizer(factor=-1.0)
    with pytest.raises(InvalidArgumentError, match="2-D"):
        regularizers.OrthogonalRegularizer()(np.ones((2, 2, 2)))
    reg = regularizers.OrthogonalRegularizer(factor=0.2, mode="columns")
    assert reg.get_config() == {"factor": 0.2, "mode": "columns"}
    again = regularizers.deserialize(regularizers.serialize(reg))
    assert type(again) is type(reg) and again.get_config() == reg.get_config()
    assert type(regularizers.get("orthogonal_regularizer")) is regularizers.OrthogonalRegularizer
    layer = ks.layers.Dense(3, kernel_regularizer="orthogonal_regularizer")
    layer(np.ones((2, 5), np.float32))
    assert len(layer.losses) == 1 and float(layer.losses[0]) > 0


# ---------------------------------------------------------------- Keras 3 (interop venv)


def test_matches_keras3():
    keras = pytest.importorskip("keras")
    w = np.random.default_rng(2).normal(size=(5, 3)).astype(np.float32)
    # rows only: on NumPy arrays Keras 3.15's normalize turns axis=0 into -1, so its
    # 'columns' mode normalizes rows (the NumPy reference above checks 'columns')
    for mode in ("rows",):
        theirs = keras.regularizers.OrthogonalRegularizer(factor=0.1, mode=mode)
        ours = regularizers.OrthogonalRegularizer(factor=0.1, mode=mode)
        assert float(ours(w)) == pytest.approx(float(theirs(w)), rel=1e-5)
        theirs_config = theirs.get_config()  # Keras keeps the factor as a float32 tensor
        assert ours.get_config() == {**theirs_config, "factor": pytest.approx(0.1)}
    np.testing.assert_array_equal(
        initializers.Identity(gain=2.0)((3, 4)).numpy(),
        keras.ops.convert_to_numpy(keras.initializers.Identity(gain=2.0)((3, 4))))
    # Keras 3.15's Identity writes an empty config (its gain is lost); ours keeps the gain,
    # and Keras rebuilds the same initializer from it
    rebuilt = keras.initializers.Identity.from_config(initializers.Identity(2.0).get_config())
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(rebuilt((2, 2))), 2 * np.eye(2))
    theirs = keras.ops.convert_to_numpy(keras.initializers.LecunUniform(seed=1)((400, 300)))
    ours = initializers.LecunUniform(seed=1)((400, 300)).numpy()
    assert np.abs(ours).max() == pytest.approx(np.abs(theirs).max(), rel=1e-3)
    assert ours.var() == pytest.approx(theirs.var(), rel=0.03)
    # Keras 3.15 adds input_axes/output_axes to the whole VarianceScaling family, as here
    theirs_config = keras.initializers.LecunUniform(seed=1).get_config()
    assert initializers.LecunUniform(seed=1).get_config() == theirs_config
