"""ks.constraints: Keras 3 formulas, look-up, and application after every optimizer update."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import constraints

EPS = ks.config.epsilon()


def _norms(w, axis):
    return np.sqrt(np.sum(w**2, axis=tuple(np.atleast_1d(axis)), keepdims=True))


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_formulas(axis):
    w = np.random.default_rng(0).normal(size=(4, 3, 2)) * 2
    n = _norms(w, axis)
    cases = [
        (constraints.MaxNorm(1.5, axis=axis), w * np.clip(n, 0, 1.5) / (EPS + n)),
        (constraints.UnitNorm(axis=axis), w / (EPS + n)),
        (constraints.MinMaxNorm(1.0, 2.0, rate=0.5, axis=axis),
         w * (0.5 * np.clip(n, 1.0, 2.0) + 0.5 * n) / (EPS + n)),
        (constraints.NonNeg(), np.maximum(w, 0)),
        (constraints.Constraint(), w),
    ]
    for constraint, expected in cases:
        np.testing.assert_allclose(constraint(w).numpy(), expected, rtol=1e-12)


def test_zero_vectors_stay_zero():
    w = np.zeros((3, 2))
    for constraint in (constraints.MaxNorm(), constraints.UnitNorm(), constraints.MinMaxNorm(1, 2)):
        assert np.all(constraint(w).numpy() == 0)


def test_get_and_configs():
    assert constraints.get(None) is None
    for name, cls in [("max_norm", constraints.MaxNorm), ("MaxNorm", constraints.MaxNorm),
                      ("non_neg", constraints.NonNeg), ("unit_norm", constraints.UnitNorm),
                      ("MinMaxNorm", constraints.MinMaxNorm)]:
        assert type(constraints.get(name)) is cls
    assert type(constraints.get(constraints.NonNeg)) is constraints.NonNeg
    instance = constraints.MaxNorm(3, axis=[0, 1])
    assert constraints.get(instance) is instance
    assert instance.get_config() == {"max_value": 3, "axis": [0, 1]}
    assert constraints.MinMaxNorm().get_config() == {
        "min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0
    }
    data = constraints.serialize(constraints.MinMaxNorm(0.5, 2.0, 0.3, 1))
    assert data["class_name"] == "MinMaxNorm" and data["module"] == "keras.constraints"
    rebuilt = constraints.get(data)
    assert type(rebuilt) is constraints.MinMaxNorm and rebuilt.get_config()["rate"] == 0.3

    def clip(w):
        return ks.clip_by_value(w, -1.0, 1.0)

    assert constraints.get(clip) is clip
    with pytest.raises(ks.InvalidArgumentError, match="unknown constraint 'max_nrom'.*max_norm"):
        constraints.get("max_nrom")
    with pytest.raises(ks.InvalidArgumentError, match="cannot interpret 3 as a constraint"):
        constraints.get(3)
    with pytest.raises(ks.InvalidArgumentError, match=r"min_value \(2\) must not exceed"):
        constraints.MinMaxNorm(min_value=2, max_value=1)


@pytest.mark.parametrize("optimizer", [lambda: ks.optimizers.SGD(0.5),
                                       lambda: ks.optimizers.Adam(0.5)])
def test_dense_constraints_apply_after_each_update(optimizer):
    layer = ks.layers.Dense(
        3, kernel_constraint=constraints.MaxNorm(1.0), bias_constraint="non_neg",
        kernel_initializer="ones",
    )
    x = np.random.default_rng(1).normal(size=(8, 4)).astype(np.float32)
    layer(x)
    assert isinstance(layer.kernel.constraint, constraints.MaxNorm)
    assert layer.kernel.numpy().max() == 1.0  # initial values are not projected (Keras)
    opt = optimizer()
    for _ in range(3):
        with ks.GradientTape() as tape:
            loss = ks.reduce_sum(layer(x)) * -1.0  # pushes weights and biases up
        opt.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables),
                                layer.trainable_variables))
        norms = np.linalg.norm(layer.kernel.numpy(), axis=0)
        assert np.all(norms <= 1.0 + 1e-6)
        assert np.all(layer.bias.numpy() >= 0)
    assert layer.get_config()["kernel_constraint"] is layer.kernel_constraint
    rebuilt = ks.saving.deserialize_keras_object(ks.saving.serialize_keras_object(layer))
    assert type(rebuilt.kernel_constraint).__name__ == "MaxNorm"
    assert type(rebuilt.bias_constraint).__name__ == "NonNeg"


def test_embedding_constraint_with_sparse_updates():
    layer = ks.layers.Embedding(10, 4, embeddings_constraint=constraints.UnitNorm(axis=1))
    ids = np.array([[1, 2], [2, 7]])
    opt = ks.optimizers.SGD(1.0)
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(ks.square(layer(ids)))
    opt.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables),
                            layer.trainable_variables))
    norms = np.linalg.norm(layer.embeddings.numpy(), axis=1)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)  # the whole table, as in Keras
    assert layer.get_config()["embeddings_constraint"] is layer.embeddings_constraint


def test_constraint_on_a_plain_variable_and_off_the_tape():
    v = ks.Variable([-1.0, 2.0])
    assert v.constraint is None
    v.constraint = constraints.NonNeg()
    with ks.GradientTape(persistent=True) as tape:
        ks.optimizers.SGD(1.0).apply_gradients([(ks.constant([-1.0, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])
    assert not tape.watched_variables()  # the projection ran off the tape


def test_constraints_match_keras3():
    keras = pytest.importorskip("keras")
    w = (np.random.default_rng(2).normal(size=(5, 4)) * 2).astype(np.float32)
    for name, kwargs in [("MaxNorm", {"max_value": 1.2}), ("MaxNorm", {"axis": 1}),
                         ("NonNeg", {}), ("UnitNorm", {"axis": [0, 1]}),
                         ("MinMaxNorm", {"min_value": 0.5, "max_value": 3.0, "rate": 0.7})]:
        expected = np.asarray(getattr(keras.constraints, name)(**kwargs)(w))
        got = getattr(constraints, name)(**kwargs)(w).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7, err_msg=name)
        assert getattr(constraints, name)(**kwargs).get_config() == getattr(
            keras.constraints, name)(**kwargs).get_config()
