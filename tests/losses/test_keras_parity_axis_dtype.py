"""The cross-entropies' `axis` and every loss's `dtype` against Keras 3 (skipped without keras):
    KERAS_BACKEND=numpy python -m pytest tests/losses/test_keras_parity_axis_dtype.py
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402

RNG = np.random.default_rng(0)
PROBS = RNG.dirichlet(np.ones(4), size=(2, 3)).transpose(0, 2, 1).astype("float32")  # (2, 4, 3)
ONE_HOT = np.eye(4, dtype="float32")[RNG.integers(0, 4, (2, 3))].transpose(0, 2, 1)
IDS = RNG.integers(0, 4, (2, 3))


@pytest.mark.parametrize("name", ["binary_crossentropy", "categorical_crossentropy"])
@pytest.mark.parametrize("from_logits", [False, True])
def test_crossentropy_functions_over_axis_1(name, from_logits):
    y_true = ONE_HOT
    theirs = getattr(keras.losses, name)(y_true, PROBS, from_logits=from_logits, axis=1)
    ours = getattr(ks.losses, name)(y_true, PROBS, from_logits=from_logits, axis=1)
    np.testing.assert_allclose(ours.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-6)
    metric = getattr(ks.metrics, name)(y_true, PROBS, from_logits=from_logits, axis=1)
    np.testing.assert_allclose(metric.numpy(), np.asarray(theirs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_crossentropy_over_axis_1(from_logits):
    # Keras's numpy backend refuses axis=1 here; its value is that of the classes moved last
    theirs = keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    ours = ks.losses.SparseCategoricalCrossentropy(from_logits=from_logits, axis=1)
    expected = float(theirs(IDS, np.moveaxis(PROBS, 1, -1)))
    np.testing.assert_allclose(float(ours(IDS, PROBS)), expected, rtol=1e-5)
    assert ours.get_config()["axis"] == 1


@pytest.mark.parametrize("cls", ["BinaryCrossentropy", "CategoricalCrossentropy"])
def test_crossentropy_classes_with_axis(cls):
    theirs = getattr(keras.losses, cls)(axis=1, label_smoothing=0.1)
    ours = getattr(ks.losses, cls)(axis=1, label_smoothing=0.1)
    np.testing.assert_allclose(float(ours(ONE_HOT, PROBS)), float(theirs(ONE_HOT, PROBS)),
                               rtol=1e-5)


@pytest.mark.parametrize("cls", ["MeanSquaredError", "Huber", "LogCosh", "Hinge", "Poisson",
                                 "KLDivergence", "CosineSimilarity", "Dice", "Tversky"])
def test_dtype_is_the_dtype_of_the_computation(cls):
    y_true = RNG.uniform(size=(4, 3))
    y_pred = RNG.uniform(0.1, 1.0, size=(4, 3))
    theirs = getattr(keras.losses, cls)(dtype="float64")
    ours = getattr(ks.losses, cls)(dtype="float64")
    assert ours.dtype == "float64"
    value = ours(y_true.astype("float32"), y_pred.astype("float32"))
    assert value.dtype == np.float64
    np.testing.assert_allclose(value.numpy(), np.asarray(theirs(y_true, y_pred)), rtol=1e-5)


def test_a_non_float_dtype_is_refused():
    with pytest.raises(ValueError, match="dtype must be a floating-point dtype"):
        ks.losses.MeanSquaredError(dtype="int32")


def test_an_axis_out_of_range_is_refused():
    with pytest.raises(ValueError, match="axis 5 is out of range for y_pred of rank 3"):
        ks.losses.categorical_crossentropy(ONE_HOT, PROBS, axis=5)


def test_sparse_top_k_from_sorted_ids():
    ids = np.array([[2, 0, 1], [1, 2, 0], [0, 1, 2]])
    labels = np.array([0, 0, 1])
    theirs = keras.metrics.sparse_top_k_categorical_accuracy(labels, ids, k=2,
                                                             from_sorted_ids=True)
    ours = ks.metrics.sparse_top_k_categorical_accuracy(labels, ids, k=2, from_sorted_ids=True)
    np.testing.assert_array_equal(ours.numpy(), np.asarray(theirs))
    metric = ks.metrics.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)
    metric.update_state(labels, ids)
    assert float(metric.result()) == pytest.approx(float(np.mean(np.asarray(theirs))))
