"""AUC's multi_label, num_labels and label_weights against Keras 3 itself: the same result
and state (shapes and values) on the same batches, Keras's config keys, and the errors.

The Keras comparisons skip without keras; run with the interop venv:
    KERAS_BACKEND=numpy python -m pytest tests/metrics/test_keras_parity_auc_multi_label.py
"""

import os

import numpy as np
import pytest

import kerasish as ks

os.environ.setdefault("KERAS_BACKEND", "numpy")

CASES = [
    {"multi_label": True, "num_labels": 3},
    {"multi_label": True},
    {"multi_label": True, "label_weights": [0.2, 0.5, 0.3]},
    {"multi_label": True, "curve": "PR", "num_labels": 3, "label_weights": [1.0, 0.0, 2.0]},
    {"multi_label": True, "curve": "PR", "summation_method": "minoring"},
    {"label_weights": [0.2, 0.5, 0.3]},
    {"curve": "PR", "label_weights": [1.0, 3.0, 0.5]},
]


def _batches(seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        y_true = (rng.random((8, 3)) > 0.5).astype("float32")
        y_pred = rng.random((8, 3)).astype("float32")
        weight = rng.random(8).astype("float32")
        yield y_true, y_pred, weight


@pytest.mark.parametrize("settings", CASES)
def test_same_result_and_state_as_keras(settings):
    keras = pytest.importorskip("keras")
    theirs = keras.metrics.AUC(num_thresholds=11, **settings)
    ours = ks.metrics.AUC(num_thresholds=11, **settings)
    for i, (y_true, y_pred, weight) in enumerate(_batches()):
        sample_weight = weight if i % 2 else None
        theirs.update_state(y_true, y_pred, sample_weight=sample_weight)
        ours.update_state(y_true, y_pred, sample_weight=sample_weight)
    np.testing.assert_allclose(float(ours.result()), float(theirs.result()), rtol=1e-5,
                               atol=1e-6)
    for a, b in zip(theirs.variables, ours.variables, strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=1e-5, atol=1e-5)
    assert set(ours.get_config()) == set(theirs.get_config())


def test_keras_file_with_multi_label_auc_state_loads(tmp_path):
    keras = pytest.importorskip("keras")

    def build(lib):
        model = lib.Sequential([lib.Input((4,)), lib.layers.Dense(3, activation="sigmoid")])
        model.compile(optimizer="sgd", loss="binary_crossentropy",
                      metrics=[lib.metrics.AUC(multi_label=True, num_labels=3,
                                               label_weights=[1.0, 2.0, 0.5])])
        return model

    keras.utils.set_random_seed(2)
    theirs = build(keras)
    rng = np.random.default_rng(4)
    x = rng.random((16, 4)).astype("float32")
    y = (rng.random((16, 3)) > 0.5).astype("float32")
    theirs.evaluate(x, y, verbose=0)
    theirs.save(tmp_path / "auc.keras")
    ours = ks.models.load_model(tmp_path / "auc.keras")
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-6)
    np.testing.assert_allclose(ours.evaluate(x, y, verbose=0), theirs.evaluate(x, y, verbose=0),
                               rtol=1e-5)


def test_num_labels_without_multi_label_is_refused():
    with pytest.raises(ValueError, match="num_labels=3 is needed only when multi_label=True"):
        ks.metrics.AUC(num_labels=3)


def test_multi_label_needs_rank_two_predictions():
    with pytest.raises(ks.InvalidArgumentError, match="must have rank 2"):
        ks.metrics.AUC(multi_label=True).update_state([1.0, 0.0], [0.3, 0.6])
    with pytest.raises(ks.InvalidArgumentError, match="must have rank 2"):
        ks.metrics.AUC(multi_label=True, num_labels=2).update_state([1.0, 0.0], [0.3, 0.6])


def test_multi_label_state_is_made_at_the_first_update_and_config_round_trips():
    metric = ks.metrics.AUC(multi_label=True, label_weights=[1.0, 3.0])
    assert float(metric.result()) == 0.0 and metric.variables == []
    metric.update_state([[1, 0], [0, 1]], [[0.9, 0.2], [0.1, 0.8]])
    assert metric.true_positives.shape == (200, 2)
    assert float(metric.result()) == pytest.approx(1.0)
    again = ks.metrics.AUC.from_config(metric.get_config())
    assert again.multi_label and list(again.label_weights) == [1.0, 3.0]
