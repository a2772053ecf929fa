"""Metrics streamed against NumPy references (means, confusion rates, F-beta, R2, IoU),
errors, configs, and the same numbers as Keras 3 (those tests skip without keras)."""

import re

import numpy as np
import pytest

import kerasish as ks
from kerasish import metrics

EPS = 1e-7


def _rng(seed=0):
    return np.random.default_rng(seed)


def _stream(metric, batches):
    for batch in batches:
        metric.update_state(*batch)
    return metric.result().numpy()


# ---------------------------------------------------------------- means of per-example values


def _unit(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), EPS)


_MEAN_CASES = {
    "MeanAbsolutePercentageError": (
        lambda t, p: 100 * np.mean(np.abs(t - p) / np.maximum(np.abs(t), EPS), -1),
        lambda r, s: (r.normal(size=s), r.normal(size=s)),
    ),
    "MeanSquaredLogarithmicError": (
        lambda t, p: np.mean((np.log1p(p) - np.log1p(t)) ** 2, -1),
        lambda r, s: (r.uniform(0.1, 3, s), r.uniform(0.1, 3, s)),
    ),
    "CosineSimilarity": (
        lambda t, p: np.sum(_unit(t) * _unit(p), -1),
        lambda r, s: (r.normal(size=s), r.normal(size=s)),
    ),
    "LogCoshError": (
        lambda t, p: np.mean(np.log(np.cosh(p - t)), -1),
        lambda r, s: (r.normal(size=s), r.normal(size=s)),
    ),
    "KLDivergence": (
        lambda t, p: np.sum(t * np.log(t / p), -1),
        lambda r, s: (r.uniform(0.1, 1, s), r.uniform(0.1, 1, s)),
    ),
    "Poisson": (
        lambda t, p: np.mean(p - t * np.log(p + EPS), -1),
        lambda r, s: (r.uniform(0, 3, s), r.uniform(0.1, 3, s)),
    ),
    "Hinge": (
        lambda t, p: np.mean(np.maximum(1 - t * p, 0), -1),
        lambda r, s: (r.choice([-1.0, 1.0], s), r.normal(size=s)),
    ),
    "SquaredHinge": (
        lambda t, p: np.mean(np.maximum(1 - t * p, 0) ** 2, -1),
        lambda r, s: (r.choice([-1.0, 1.0], s), r.normal(size=s)),
    ),
    "CategoricalHinge": (
        lambda t, p: np.maximum(np.max((1 - t) * p, -1) - np.sum(t * p, -1) + 1, 0),
        lambda r, s: (np.eye(s[1])[r.integers(0, s[1], s[0])], r.normal(size=s)),
    ),
}


@pytest.mark.parametrize("class_name", sorted(_MEAN_CASES))
def test_mean_metrics_stream_the_weighted_mean_of_the_reference(class_name):
    reference, draw = _MEAN_CASES[class_name]
    rng = _rng(sorted(_MEAN_CASES).index(class_name))
    batches = [draw(rng, (5, 3)) + (rng.uniform(0, 2, 5),) for _ in range(3)]
    metric = getattr(metrics, class_name)()
    got = _stream(metric, [(t, p, w) for t, p, w in batches])
    values = np.concatenate([reference(t, p) for t, p, _ in batches])
    weights = np.concatenate([w for _, _, w in batches])
    assert got == pytest.approx(np.sum(values * weights) / np.sum(weights), rel=1e-5)
    metric.reset_state()
    assert float(metric.result()) == 0.0
    assert metrics.get(metric.name).__class__ is type(metric)


def test_mean_metric_names_and_configs():
    assert metrics.LogCoshError().name == "logcosh"
    assert metrics.CosineSimilarity(axis=0).get_config() == {
        "name": "cosine_similarity", "dtype": "float32", "axis": 0
    }
    assert type(metrics.get("mape")) is metrics.MeanAbsolutePercentageError
    assert type(metrics.get("kld")) is metrics.KLDivergence
    assert type(metrics.get({"class_name": "MeanIoU", "config": {"num_classes": 3}})) is (
        metrics.MeanIoU
    )


# ---------------------------------------------------------------- confusion counts


def test_confusion_counts_by_hand():
    y_true = [0, 1, 1, 0, 1, 0]
    y_pred = [0.1, 0.9, 0.4, 0.6, 0.7, 0.5]
    expected = {"TruePositives": 2, "FalsePositives": 1, "TrueNegatives": 2, "FalseNegatives": 1}
    for name, count in expected.items():
        metric = getattr(metrics, name)()
        value = metric(y_true, y_pred)
        assert value.shape == () and float(value) == count
        weighted = getattr(metrics, name)()(y_true, y_pred, sample_weight=[1, 2, 3, 4, 5, 6])
        assert float(weighted) == {"TruePositives": 7, "FalsePositives": 4,
                                   "TrueNegatives": 7, "FalseNegatives": 3}[name]
    several = metrics.TruePositives(thresholds=[0.0, 0.5, 0.8])
    np.testing.assert_array_equal(several(y_true, y_pred).numpy(), [3, 2, 1])
    assert several.get_config()["thresholds"] == [0.0, 0.5, 0.8]
    one = metrics.FalseNegatives(thresholds=[0.5])  # one threshold: a scalar, as Keras
    assert one(y_true, y_pred).shape == ()
    assert metrics.TrueNegatives(thresholds=0.3).get_config() == {
        "name": "true_negatives", "dtype": "float32", "thresholds": 0.3
    }


def _rates_reference(y_true, y_pred, thresholds):
    positive = y_true != 0
    above = y_pred[None, :] > np.asarray(thresholds)[:, None]
    tp = (above & positive).sum(1)
    fp = (above & ~positive).sum(1)
    fn = (~above & positive).sum(1)
    tn = (~above & ~positive).sum(1)
    div = lambda a, b: np.where(b > 0, a / np.where(b > 0, b, 1), 0.0)  # noqa: E731
    return {"recall": div(tp, tp + fn), "precision": div(tp, tp + fp),
            "specificity": div(tn, tn + fp)}


@pytest.mark.parametrize(
    "class_name, constrained, dependent",
    [
        ("PrecisionAtRecall", "recall", "precision"),
        ("RecallAtPrecision", "precision", "recall"),
        ("SensitivityAtSpecificity", "specificity", "recall"),
        ("SpecificityAtSensitivity", "recall", "specificity"),
    ],
)
def test_rate_at_rate_against_a_threshold_sweep(class_name, constrained, dependent):
    rng = _rng(5)
    y_true = rng.integers(0, 2, 200)
    y_pred = np.clip(y_true * 0.3 + rng.uniform(0, 0.7, 200), 0, 1).astype(np.float32)
    thresholds = np.arange(50) / 49
    rates = _rates_reference(y_true, y_pred.astype(np.float64), thresholds.astype(np.float32))
    for value in (0.2, 0.6, 0.9):
        metric = getattr(metrics, class_name)(value, num_thresholds=50)
        _stream(metric, [(y_true[:120], y_pred[:120]), (y_true[120:], y_pred[120:])])
        feasible = rates[constrained] >= value
        expected = np.max(np.where(feasible, rates[dependent], 0.0))
        assert float(metric.result()) == pytest.approx(expected, rel=1e-6)
    config = getattr(metrics, class_name)(0.7, num_thresholds=9, class_id=1).get_config()
    assert config[{"RecallAtPrecision": "precision", "PrecisionAtRecall": "recall",
                   "SensitivityAtSpecificity": "specificity",
                   "SpecificityAtSensitivity": "sensitivity"}[class_name]] == 0.7
    assert config["num_thresholds"] == 9 and config["class_id"] == 1


def test_rate_at_rate_errors_and_class_id():
    with pytest.raises(ks.InvalidArgumentError, match=r"recall must be in \[0, 1\], got 1.5"):
        metrics.PrecisionAtRecall(1.5)
    with pytest.raises(ks.InvalidArgumentError, match="num_thresholds must be a positive"):
        metrics.RecallAtPrecision(0.5, num_thresholds=0)
    m = metrics.PrecisionAtRecall(0.5, class_id=1)
    value = m([[0, 1], [1, 0], [0, 1]], [[0.9, 0.8], [0.1, 0.3], [0.5, 0.6]])
    assert float(value) == 1.0  # column 1: both positives above 0.3, the negative below


# ---------------------------------------------------------------- F-scores


def _fbeta_reference(y_true, y_pred, beta, average, threshold, weight=None):
    if threshold is None:
        predicted = (y_pred >= y_pred.max(-1, keepdims=True)) & (np.abs(y_pred) > 1e-9)
    else:
        predicted = y_pred > threshold
    predicted = predicted.astype(float)
    w = np.ones((len(y_true), 1)) if weight is None else np.asarray(weight)[:, None]
    axis = None if average == "micro" else 0
    tp = np.sum(predicted * y_true * w, axis)
    fp = np.sum(predicted * (1 - y_true) * w, axis)
    fn = np.sum((1 - predicted) * y_true * w, axis)
    support = np.sum(y_true * w, axis)
    precision, recall = tp / (tp + fp + EPS), tp / (tp + fn + EPS)
    score = (1 + beta**2) * precision * recall / (beta**2 * precision + recall + EPS)
    if average == "weighted":
        return np.sum(score * support / (np.sum(support) + EPS))
    if average is not None:
        return np.mean(score)
    return score


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("threshold", [None, 0.4])
def test_fbeta_against_reference(average, threshold):
    rng = _rng(9)
    y_true = rng.integers(0, 2, (40, 4)).astype(float)
    y_pred = rng.uniform(size=(40, 4))
    weight = rng.uniform(0, 2, 40)
    for beta in (1.0, 0.5, 2.0):
        metric = metrics.FBetaScore(average=average, beta=beta, threshold=threshold)
        got = _stream(metric, [(y_true[:25], y_pred[:25], weight[:25]),
                               (y_true[25:], y_pred[25:], weight[25:])])
        expected = _fbeta_reference(y_true, y_pred, beta, average, threshold, weight)
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    f1 = metrics.F1Score(average=average, threshold=threshold)
    np.testing.assert_allclose(
        f1(y_true, y_pred).numpy(),
        _fbeta_reference(y_true, y_pred, 1.0, average, threshold),
        rtol=1e-5,
    )
    assert "beta" not in f1.get_config() and f1.get_config()["average"] == average


def test_fbeta_errors():
    with pytest.raises(ks.InvalidArgumentError, match="average must be one of"):
        metrics.FBetaScore(average="samples")
    with pytest.raises(ks.InvalidArgumentError, match="beta must be > 0, got 0"):
        metrics.FBetaScore(beta=0)
    with pytest.raises(ks.InvalidArgumentError, match=r"threshold must be in \(0, 1\]"):
        metrics.F1Score(threshold=0.0)
    m = metrics.F1Score()
    with pytest.raises(ks.InvalidArgumentError, match=r"y_true \(3,\) and y_pred \(3,\)"):
        m([1, 0, 1], [0.2, 0.3, 0.9])
    m([[1, 0]], [[0.7, 0.3]])
    with pytest.raises(ks.InvalidArgumentError, match=r"built for 2 classes, got y_pred"):
        m([[1, 0, 0]], [[0.7, 0.2, 0.1]])
    m.reset_state()
    np.testing.assert_array_equal(m.true_positives.numpy(), [0, 0])


# ---------------------------------------------------------------- R2


def _r2_reference(y_true, y_pred, weight, aggregation, num_regressors=0):
    w = np.broadcast_to(weight[:, None], y_true.shape)
    mean = np.sum(w * y_true, 0) / np.sum(w, 0)
    total = np.sum(w * (y_true - mean) ** 2, 0)
    raw = 1 - np.sum(w * (y_true - y_pred) ** 2, 0) / total
    score = {"uniform_average": np.mean(raw), None: raw,
             "variance_weighted_average": np.sum(total * raw) / np.sum(total)}[aggregation]
    if num_regressors:
        n = y_true.size
        score = 1 - (1 - score) * (n - 1) / (n - num_regressors - 1)
    return score


@pytest.mark.parametrize("aggregation", [None, "uniform_average", "variance_weighted_average"])
def test_r2_score_against_reference(aggregation):
    rng = _rng(11)
    y_true = rng.normal(size=(30, 3)) * [1, 2, 3]
    y_pred = y_true + rng.normal(size=(30, 3))
    weight = rng.uniform(0.5, 2, 30)
    metric = metrics.R2Score(class_aggregation=aggregation)
    got = _stream(metric, [(y_true[:10], y_pred[:10], weight[:10]),
                           (y_true[10:], y_pred[10:], weight[10:])])
    np.testing.assert_allclose(got, _r2_reference(y_true, y_pred, weight, aggregation), rtol=1e-5)
    adjusted = metrics.R2Score(class_aggregation=aggregation, num_regressors=4)
    np.testing.assert_allclose(
        adjusted(y_true, y_pred, sample_weight=weight).numpy(),
        _r2_reference(y_true, y_pred, weight, aggregation, 4),
        rtol=1e-5,
    )


def test_r2_score_edges_and_errors():
    assert float(metrics.R2Score()([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])) == 0.5  # rank 1 works
    constant = metrics.R2Score()([[2.0], [2.0]], [[1.0], [3.0]])
    assert float(constant) == 0.0  # SS_tot = 0: 0 (Keras's rule), not -inf
    with pytest.warns(UserWarning, match=r"adjusted R2 needs more values \(2\)"):
        assert float(metrics.R2Score(num_regressors=3)([[1.0], [2.0]], [[1.0], [2.0]])) == 1.0
    with pytest.raises(ks.InvalidArgumentError, match="class_aggregation must be one of"):
        metrics.R2Score(class_aggregation="median")
    with pytest.raises(ks.InvalidArgumentError, match="num_regressors must be >= 0"):
        metrics.R2Score(num_regressors=-1)
    with pytest.raises(ks.InvalidArgumentError, match=r"shape \(batch, outputs\), got \(2, 2, 1\)"):
        metrics.R2Score()(np.ones((2, 2, 1)), np.ones((2, 2, 1)))
    m = metrics.R2Score(class_aggregation=None)
    m([[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [2.0, 2.0]])
    with pytest.raises(ks.InvalidArgumentError, match=r"built for 2 outputs, got .*\(1, 3\)"):
        m([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
    assert metrics.R2Score(num_regressors=2).get_config() == {
        "name": "r2_score", "dtype": "float32", "class_aggregation": "uniform_average",
        "num_regressors": 2,
    }


# ---------------------------------------------------------------- IoU


def _iou_reference(y_true, y_pred, classes, targets, weight=None):
    cm = np.zeros((classes, classes))
    np.add.at(cm, (y_true, y_pred), 1.0 if weight is None else weight)
    tp = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - tp
    present = union[targets] > 0
    return np.sum(tp[targets][present] / union[targets][present]) / present.sum()


def test_mean_iou_against_reference():
    rng = _rng(13)
    y_true = rng.integers(0, 4, (6, 8))
    y_pred = rng.integers(0, 4, (6, 8))
    weight = rng.uniform(0, 1, (6, 8))
    metric = metrics.MeanIoU(num_classes=5)  # class 4 never occurs: left out of the mean
    got = _stream(metric, [(y_true[:3], y_pred[:3], weight[:3]), (y_true[3:], y_pred[3:],
                                                                   weight[3:])])
    expected = _iou_reference(y_true.ravel(), y_pred.ravel(), 5, list(range(5)), weight.ravel())
    assert got == pytest.approx(expected, rel=1e-5)
    # one-hot / score inputs with sparse_* False, and an ignored "void" label
    labels = y_true.copy()
    labels[0, :4] = 255
    scores = np.eye(4)[y_pred]
    dense = metrics.MeanIoU(num_classes=4, ignore_class=255, sparse_y_pred=False)
    keep = labels.ravel() != 255
    assert float(dense(labels, scores)) == pytest.approx(
        _iou_reference(labels.ravel()[keep], y_pred.ravel()[keep], 4, list(range(4))), rel=1e-6
    )
    assert dense.get_config() == {
        "name": "mean_io_u", "dtype": "float32", "num_classes": 4, "ignore_class": 255,
        "sparse_y_true": True, "sparse_y_pred": False, "axis": -1,
    }


def test_binary_iou_against_reference():
    rng = _rng(14)
    y_true = rng.integers(0, 2, 50)
    y_pred = rng.uniform(size=50)
    weight = rng.uniform(size=50)
    for targets in ([0, 1], [0], [1]):
        metric = metrics.BinaryIoU(target_class_ids=targets, threshold=0.3)
        expected = _iou_reference(y_true, (y_pred >= 0.3).astype(int), 2, targets, weight)
        assert float(metric(y_true, y_pred, sample_weight=weight)) == pytest.approx(expected,
                                                                                      rel=1e-5)
    assert metrics.BinaryIoU([1], 0.7).get_config() == {
        "name": "binary_io_u", "dtype": "float32", "target_class_ids": [1], "threshold": 0.7
    }


def test_iou_errors():
    with pytest.raises(ks.InvalidArgumentError, match=r"target_class_ids .* \[0, 2\), got \[2\]"):
        metrics.BinaryIoU(target_class_ids=[2])
    m = metrics.MeanIoU(num_classes=3)
    with pytest.raises(ks.InvalidArgumentError, match=r"y_true holds 3 at flat index 2, .*0, 3"):
        m([0, 1, 3], [0, 1, 2])
    with pytest.raises(ks.InvalidArgumentError, match=r"y_pred holds -1 at flat index 0"):
        m([0, 1, 2], [-1, 1, 2])
    with pytest.raises(ks.InvalidArgumentError, match="non-integral value 1.5"):
        m([0, 1.5, 2], [0, 1, 2])
    with pytest.raises(ks.InvalidArgumentError, match=r"y_true \(shape \(3,\)\) and y_pred"):
        m([0, 1, 2], [0, 1])
    with pytest.raises(ks.InvalidArgumentError, match=r"sample_weight has shape \(2,\)"):
        m([0, 1, 2], [0, 1, 2], sample_weight=[1.0, 2.0])
    assert float(m.result()) == 0.0  # nothing was added by the failed updates


# ---------------------------------------------------------------- Keras 3 parity


def _keras_parity_cases(rng):
    n = 64
    binary = rng.integers(0, 2, (n, 3)).astype(np.float32)
    scores = rng.uniform(size=(n, 3)).astype(np.float32)
    reg_t, reg_p = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    probs_t, probs_p = rng.uniform(0.05, 1, (n, 3)), rng.uniform(0.05, 1, (n, 3))
    hot = np.eye(3)[rng.integers(0, 3, n)].astype(np.float32)
    flat_t, flat_p = binary[:, 0], scores[:, 0]
    ids_t, ids_p = rng.integers(0, 4, (n, 5)), rng.integers(0, 4, (n, 5))
    return [
        ("MeanAbsolutePercentageError", {}, reg_t, reg_p),
        ("MeanSquaredLogarithmicError", {}, np.abs(reg_t), reg_p),
        ("CosineSimilarity", {}, reg_t, reg_p),
        ("LogCoshError", {}, reg_t, reg_p * 20),
        ("KLDivergence", {}, probs_t, probs_p),
        ("Poisson", {}, np.abs(reg_t), probs_p),
        ("Hinge", {}, binary, reg_p),
        ("SquaredHinge", {}, binary * 2 - 1, reg_p),
        ("CategoricalHinge", {}, hot, reg_p),
        ("TruePositives", {}, flat_t, flat_p),
        ("FalsePositives", {"thresholds": [0.2, 0.5, 0.9]}, flat_t, flat_p),
        ("TrueNegatives", {}, binary, scores),
        ("FalseNegatives", {"thresholds": 0.7}, flat_t, flat_p),
        ("PrecisionAtRecall", {"recall": 0.7}, flat_t, flat_p),
        ("RecallAtPrecision", {"precision": 0.6, "num_thresholds": 17}, flat_t, flat_p),
        ("SensitivityAtSpecificity", {"specificity": 0.4}, flat_t, flat_p),
        ("SpecificityAtSensitivity", {"sensitivity": 0.8, "class_id": 2}, binary, scores),
        ("F1Score", {"average": None, "threshold": 0.5}, binary, scores),
        ("F1Score", {"average": "macro"}, hot, scores),
        ("FBetaScore", {"average": "weighted", "beta": 2.0}, binary, scores),
        ("FBetaScore", {"average": "micro", "beta": 0.5, "threshold": 0.3}, binary, scores),
        ("R2Score", {}, reg_t, reg_t + reg_p * 0.5),
        ("R2Score", {"class_aggregation": "variance_weighted_average", "num_regressors": 2},
         reg_t, reg_t + reg_p),
        ("R2Score", {"class_aggregation": None}, reg_t, reg_t + reg_p),
        ("BinaryIoU", {"target_class_ids": [0, 1], "threshold": 0.4}, flat_t, flat_p),
        ("BinaryIoU", {"target_class_ids": [1]}, flat_t, flat_p),
        ("MeanIoU", {"num_classes": 4}, ids_t, ids_p),
        ("MeanIoU", {"num_classes": 3, "sparse_y_true": False, "sparse_y_pred": False}, hot,
         scores),
    ]


def test_matches_keras3_on_random_inputs():
    keras = pytest.importorskip("keras")
    rng = _rng(21)
    compared = []
    for class_name, kwargs, y_true, y_pred in _keras_parity_cases(rng):
        weights = rng.uniform(0.1, 2, len(y_true)).astype(np.float32)
        iou = class_name in ("MeanIoU", "BinaryIoU")
        if iou and np.ndim(y_true) > 1 and kwargs.get("sparse_y_true", True):
            weights = rng.uniform(0.1, 2, np.shape(y_true)).astype(np.float32)  # one per label
        # Keras's IoU state is int unless asked otherwise (float weights would be truncated)
        theirs = getattr(keras.metrics, class_name)(**kwargs, **({"dtype": "float32"} if iou
                                                                 else {}))
        ours = getattr(metrics, class_name)(**kwargs)
        half = len(y_true) // 2
        for part in (slice(0, half), slice(half, None)):
            sw = weights[part]
            theirs.update_state(y_true[part].astype(np.float32), y_pred[part].astype(np.float32),
                                sample_weight=sw)
            ours.update_state(y_true[part].astype(np.float32), y_pred[part].astype(np.float32),
                              sample_weight=sw)
        expected = np.asarray(theirs.result())
        np.testing.assert_allclose(
            ours.result().numpy(), expected, rtol=2e-5, atol=1e-6, err_msg=f"{class_name} {kwargs}"
        )
        assert ours.name == re.sub(r"_\d+$", "", theirs.name)  # Keras numbers repeated names
        compared.append(class_name)
    assert len(set(compared)) == 22
