"""Keras 3's correlation, IoU and cross-entropy metrics: closed forms, streaming state,
configs, and Keras 3's numbers when Keras is importable."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import losses, metrics

RNG = np.random.default_rng(0)
T = RNG.normal(size=(6, 5))
P = 0.7 * T + RNG.normal(size=(6, 5)) * 0.5 + 0.3
W = RNG.uniform(0.1, 2.0, 6)


def _pearson(t, p):
    return np.array([np.corrcoef(a, b)[0, 1] for a, b in zip(t, p)])


def _concordance(t, p):
    cov = ((t - t.mean(1, keepdims=True)) * (p - p.mean(1, keepdims=True))).mean(1)
    return 2 * cov / (t.var(1) + p.var(1) + (t.mean(1) - p.mean(1)) ** 2 + ks.config.epsilon())


@pytest.mark.parametrize("fn, cls, reference", [
    (metrics.pearson_correlation, metrics.PearsonCorrelation, _pearson),
    (metrics.concordance_correlation, metrics.ConcordanceCorrelation, _concordance),
])
def test_correlations_match_numpy_and_stream(fn, cls, reference):
    want = reference(T, P)
    np.testing.assert_allclose(fn(T, P).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(fn(T.T, P.T, axis=0).numpy(), want, rtol=1e-12)
    m = cls(dtype="float64")
    m.update_state(T[:4], P[:4], sample_weight=W[:4])
    m.update_state(T[4:], P[4:], sample_weight=W[4:])
    assert float(m.result()) == pytest.approx(np.sum(want * W) / np.sum(W), rel=1e-12)
    m.reset_state()
    m.update_state(T[:1], P[:1])
    assert float(m.result()) == pytest.approx(want[0], rel=1e-12)


def test_concordance_is_below_pearson_for_shifted_predictions():
    t = np.array([[1.0, 2.0, 4.0, 3.0]])
    assert float(metrics.pearson_correlation(t, t + 5)[0]) == pytest.approx(1.0)
    assert float(metrics.concordance_correlation(t, t)[0]) == pytest.approx(1.0)
    assert float(metrics.concordance_correlation(t, t + 5)[0]) < 0.1


def _iou_per_class(truth, predicted, num_classes, weight=None):
    cm = np.zeros((num_classes, num_classes))
    np.add.at(cm, (truth, predicted), 1.0 if weight is None else weight)
    tp = np.diag(cm)
    return tp / (cm.sum(0) + cm.sum(1) - tp)


def test_iou_variants_match_a_numpy_confusion_matrix():
    truth = RNG.integers(0, 4, 40)
    predicted = np.where(RNG.uniform(size=40) < 0.6, truth, RNG.integers(0, 4, 40))
    weight = RNG.uniform(0.1, 2, 40)
    per_class = _iou_per_class(truth, predicted, 4, weight)
    hot_truth, scores = np.eye(4)[truth], np.eye(4)[predicted] + RNG.uniform(0, 0.5, (40, 4))
    cases = [
        (metrics.IoU(4, [0, 2]), truth, predicted, per_class[[0, 2]].mean()),
        (metrics.IoU(4, [1], sparse_y_pred=False), truth, scores, per_class[1]),
        (metrics.MeanIoU(4), truth, predicted, per_class.mean()),
        (metrics.OneHotIoU(4, [3, 1]), hot_truth, scores, per_class[[3, 1]].mean()),
        (metrics.OneHotMeanIoU(4), hot_truth, scores, per_class.mean()),
        (metrics.OneHotMeanIoU(4, sparse_y_pred=True), hot_truth, predicted, per_class.mean()),
    ]
    for m, y_true, y_pred, want in cases:
        m.update_state(y_true[:25], y_pred[:25], sample_weight=weight[:25])
        m.update_state(y_true[25:], y_pred[25:], sample_weight=weight[25:])
        assert float(m.result()) == pytest.approx(want, rel=1e-6), type(m).__name__
        m.reset_state()
        assert float(m.result()) == 0.0


def test_one_hot_iou_on_the_class_axis_first():
    truth = np.array([0, 1, 1, 2])
    predicted = np.array([0, 1, 2, 2])
    m = metrics.OneHotMeanIoU(3, axis=0)
    m.update_state(np.eye(3)[truth].T, np.eye(3)[predicted].T)
    assert float(m.result()) == pytest.approx(_iou_per_class(truth, predicted, 3).mean())


def test_crossentropy_metrics_are_weighted_means_of_the_losses():
    probs = RNG.dirichlet(np.ones(3), size=6)
    labels = RNG.integers(0, 3, 6)
    hot = np.eye(3)[labels]
    binary = (RNG.uniform(size=(6, 1)) > 0.5).astype(float)
    cases = [
        (metrics.BinaryCrossentropy(label_smoothing=0.1), binary, probs[:, :1],
         losses.binary_crossentropy(binary, probs[:, :1], label_smoothing=0.1)),
        (metrics.CategoricalCrossentropy(from_logits=True), hot, probs,
         losses.categorical_crossentropy(hot, probs, from_logits=True)),
        (metrics.CategoricalCrossentropy(axis=0), hot.T, probs.T,
         losses.categorical_crossentropy(hot, probs)),
        (metrics.SparseCategoricalCrossentropy(), labels, probs,
         losses.sparse_categorical_crossentropy(labels, probs)),
        (metrics.SparseCategoricalCrossentropy(axis=0), labels, probs.T,
         losses.sparse_categorical_crossentropy(labels, probs)),
    ]
    for m, y_true, y_pred, per_example in cases:
        weight = W if m._fn_kwargs.get("axis", -1) == -1 else None
        m.update_state(y_true, y_pred, sample_weight=weight)
        want = np.average(per_example.numpy(), weights=weight)
        assert float(m.result()) == pytest.approx(want, rel=1e-6), m.name


def test_sparse_crossentropy_metric_counts_ignored_positions_as_zero():
    """As Keras's metric does (its loss object, unlike its metric, leaves them out)."""
    probs = np.array([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    m = metrics.SparseCategoricalCrossentropy(ignore_class=-1)
    m.update_state([1, -1, 0], probs)
    assert float(m.result()) == pytest.approx((np.log(2) + np.log(5)) / 3, rel=1e-6)


def test_configs_round_trip_and_names():
    for m in (
        metrics.PearsonCorrelation(axis=0, name="r"),
        metrics.ConcordanceCorrelation(),
        metrics.IoU(5, [1, 3], ignore_class=255, sparse_y_pred=False),
        metrics.OneHotIoU(3, [0]),
        metrics.OneHotMeanIoU(3, ignore_class=0),
        metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.2),
        metrics.CategoricalCrossentropy(axis=1),
        metrics.SparseCategoricalCrossentropy(ignore_class=-1),
    ):
        for again in (type(m).from_config(m.get_config()),
                      metrics.deserialize(metrics.serialize(m)),
                      metrics.get(metrics.serialize(m))):
            assert type(again) is type(m) and again.get_config() == m.get_config()
    assert metrics.IoU(3, [0]).name == "io_u"
    assert metrics.OneHotMeanIoU(3).name == "one_hot_mean_io_u"
    assert "sparse_y_true" not in metrics.OneHotIoU(3, [0]).get_config()
    assert "target_class_ids" not in metrics.MeanIoU(3).get_config()
    assert isinstance(metrics.get("pearson_correlation"), metrics.PearsonCorrelation)
    assert isinstance(metrics.get("binary_crossentropy"), metrics.BinaryCrossentropy)
    for name in ("hinge", "huber", "log_cosh", "poisson", "binary_focal_crossentropy"):
        assert getattr(metrics, name) is getattr(losses, name)


# ---------------------------------------------------------------- Keras 3 (interop venv)


def _keras_cases():
    rng = np.random.default_rng(3)
    t = rng.normal(size=(8, 5)).astype(np.float32)
    p = (t + rng.normal(size=(8, 5))).astype(np.float32)
    truth = rng.integers(0, 3, 8)
    hot = np.eye(3, dtype=np.float32)[truth]
    scores = rng.uniform(size=(8, 3)).astype(np.float32)
    probs = scores / scores.sum(1, keepdims=True)
    binary = (rng.uniform(size=(8, 1)) > 0.5).astype(np.float32)
    return [
        ("PearsonCorrelation", {}, t, p),
        ("ConcordanceCorrelation", {}, t, p),
        ("IoU", {"num_classes": 3, "target_class_ids": [0, 2], "sparse_y_pred": False},
         truth.astype(np.float32), scores),
        ("OneHotIoU", {"num_classes": 3, "target_class_ids": [1]}, hot, scores),
        ("OneHotMeanIoU", {"num_classes": 3}, hot, scores),
        ("BinaryCrossentropy", {"label_smoothing": 0.1}, binary, probs[:, :1]),
        ("CategoricalCrossentropy", {"from_logits": True}, hot, scores),
        ("SparseCategoricalCrossentropy", {}, truth.astype(np.float32), probs),
    ]


def test_matches_keras3():
    keras = pytest.importorskip("keras")
    weights = np.linspace(0.2, 2.0, 8).astype(np.float32)
    for class_name, kwargs, y_true, y_pred in _keras_cases():
        iou = "IoU" in class_name  # Keras's IoU state is int unless asked for floats
        theirs = getattr(keras.metrics, class_name)(**kwargs, dtype="float32")
        ours = getattr(metrics, class_name)(**kwargs)
        for part in (slice(0, 5), slice(5, None)):
            theirs.update_state(y_true[part], y_pred[part], sample_weight=weights[part])
            ours.update_state(y_true[part], y_pred[part], sample_weight=weights[part])
        np.testing.assert_allclose(ours.result().numpy(), np.asarray(theirs.result()),
                                   rtol=2e-5, atol=1e-6, err_msg=class_name)
        theirs_config = {k: v for k, v in theirs.get_config().items() if k != "dtype"}
        ours_config = {k: v for k, v in ours.get_config().items() if k != "dtype"}
        assert ours_config == theirs_config, class_name
        assert iou or ours.name == theirs.name
