"""Metrics against NumPy references: streaming == one shot == NumPy, weights, reset, tape, names."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import metrics
from kerasish.core import tracking
from kerasish.core.errors import InvalidArgumentError

BATCHES = (7, 5, 9)  # uneven on purpose
CLASSES = 6


def _weights(rng, n):
    return rng.uniform(0.0, 2.0, size=n).astype(np.float32)


def _reference_mean(values, weights=None):
    """sum(w*x)/sum(w), per-example weights broadcast over the trailing dimensions."""
    values = np.asarray(values, np.float64)
    if weights is None:
        return values.mean()
    w = np.asarray(weights, np.float64).reshape((-1,) + (1,) * (values.ndim - 1))
    w = np.broadcast_to(w, values.shape)
    return (values * w).sum() / w.sum()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, np.float64)))


def _in_top_k(labels, scores, k):
    label_scores = scores[np.arange(len(labels)), labels][:, None]
    return (scores > label_scores).sum(axis=1) < k


# Each case: metric factory, data maker (rng, n) -> (y_true, y_pred), per-element NumPy reference.
def _binary_data(rng, n):
    return rng.integers(0, 2, size=(n, 3)).astype(np.float32), rng.uniform(size=(n, 3)).astype(
        np.float32
    )


def _logit_data(rng, n):
    return rng.integers(0, 2, size=(n, 1)), rng.normal(size=(n, 1)).astype(np.float32)


def _onehot_data(rng, n):
    labels = rng.integers(0, CLASSES, size=n)
    return np.eye(CLASSES, dtype=np.float32)[labels], rng.normal(size=(n, CLASSES)).astype(
        np.float32
    )


def _sparse_data(rng, n):
    return rng.integers(0, CLASSES, size=n), rng.normal(size=(n, CLASSES)).astype(np.float32)


def _sparse_column_data(rng, n):
    return rng.integers(0, CLASSES, size=(n, 1)), rng.normal(size=(n, CLASSES)).astype(np.float32)


def _regression_data(rng, n):
    return rng.normal(size=(n, 4)).astype(np.float32), rng.normal(size=(n, 4)).astype(np.float32)


def _equal_data(rng, n):
    return rng.integers(0, 3, size=(n, 2)), rng.integers(0, 3, size=(n, 2))


CASES = {
    "accuracy": (metrics.Accuracy, _equal_data, lambda t, p: t == p),
    "binary_accuracy": (
        lambda: metrics.BinaryAccuracy(threshold=0.3),
        _binary_data,
        lambda t, p: t == (p > np.float32(0.3)),
    ),
    "binary_accuracy_logits": (
        lambda: metrics.BinaryAccuracy(from_logits=True),
        _logit_data,
        lambda t, p: t == (_sigmoid(p) > 0.5),
    ),
    "categorical_accuracy": (
        metrics.CategoricalAccuracy,
        _onehot_data,
        lambda t, p: t.argmax(-1) == p.argmax(-1),
    ),
    "sparse_categorical_accuracy": (
        metrics.SparseCategoricalAccuracy,
        _sparse_data,
        lambda t, p: t == p.argmax(-1),
    ),
    "sparse_categorical_accuracy_column": (
        metrics.SparseCategoricalAccuracy,
        _sparse_column_data,
        lambda t, p: t[:, 0] == p.argmax(-1),
    ),
    "top_k_categorical_accuracy": (
        lambda: metrics.TopKCategoricalAccuracy(k=3),
        _onehot_data,
        lambda t, p: _in_top_k(t.argmax(-1), p, 3),
    ),
    "sparse_top_k_categorical_accuracy": (
        lambda: metrics.SparseTopKCategoricalAccuracy(k=2),
        _sparse_data,
        lambda t, p: _in_top_k(t, p, 2),
    ),
    "mean_squared_error": (
        metrics.MeanSquaredError,
        _regression_data,
        lambda t, p: (p.astype(np.float64) - t) ** 2,
    ),
    "mean_absolute_error": (
        metrics.MeanAbsoluteError,
        _regression_data,
        lambda t, p: np.abs(p.astype(np.float64) - t),
    ),
}


def _batches(make, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    out = []
    for n in BATCHES:
        y_true, y_pred = make(rng, n)
        out.append((y_true, y_pred, _weights(rng, n) if weighted else None))
    return out


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_streaming_matches_one_shot_and_numpy(case, weighted):
    factory, make, reference = CASES[case]
    batches = _batches(make, weighted=weighted)
    streamed = factory()
    for y_true, y_pred, w in batches:
        streamed.update_state(y_true, y_pred, sample_weight=w)
    y_true = np.concatenate([b[0] for b in batches])
    y_pred = np.concatenate([b[1] for b in batches])
    w = np.concatenate([b[2] for b in batches]) if weighted else None
    one_shot = factory()
    one_shot.update_state(y_true, y_pred, sample_weight=w)
    expected = _reference_mean(reference(y_true, y_pred), w)
    assert float(streamed.result()) == pytest.approx(expected, rel=1e-5, abs=1e-6)
    assert float(one_shot.result()) == pytest.approx(float(streamed.result()), rel=1e-5)


def test_accuracies_take_tensors_and_are_not_trivial():
    # guards against a reference that always agrees: accuracies strictly between 0 and 1
    for case in ("categorical_accuracy", "sparse_categorical_accuracy", "binary_accuracy"):
        factory, make, _ = CASES[case]
        y_true, y_pred = make(np.random.default_rng(0), 200)
        value = float(factory()(ks.constant(y_true), ks.constant(y_pred)))
        assert 0.0 < value < 1.0


def test_root_mean_squared_error_is_root_of_streaming_mean():
    batches = _batches(_regression_data, weighted=True)
    m = metrics.RootMeanSquaredError()
    for y_true, y_pred, w in batches:
        m.update_state(y_true, y_pred, w)
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    w = np.concatenate([b[2] for b in batches])
    expected = np.sqrt(_reference_mean((p.astype(np.float64) - t) ** 2, w))
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)


# ---------------------------------------------------------------- Mean and Sum


def test_mean_seeds_example():
    m = metrics.Mean("loss")
    m(0)
    m(5)
    assert m.result() == 2.5
    m([8, 9])
    assert m.result() == 5.5
    assert m.name == "loss"


@pytest.mark.parametrize("weighted", [False, True])
def test_mean_and_sum_streaming(weighted):
    rng = np.random.default_rng(3)
    chunks = [rng.normal(size=(n, 2)).astype(np.float32) for n in BATCHES]
    weights = [_weights(rng, n) if weighted else None for n in BATCHES]
    mean, total = metrics.Mean(), metrics.Sum()
    for x, w in zip(chunks, weights, strict=True):
        mean.update_state(x, sample_weight=w)
        total.update_state(x, sample_weight=w)
    x = np.concatenate(chunks)
    w = np.concatenate(weights) if weighted else None
    assert float(mean.result()) == pytest.approx(_reference_mean(x, w), rel=1e-5)
    wb = np.ones(len(x)) if w is None else w
    assert float(total.result()) == pytest.approx((x * wb[:, None]).sum(), rel=1e-5)


def test_mean_weights_elementwise_and_column_shapes():
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    w = np.array([1.0, 0.0, 3.0], np.float32)
    expected = _reference_mean(values, w)
    assert float(metrics.Mean()(values, sample_weight=w)) == pytest.approx(expected)
    assert float(metrics.Mean()(values, sample_weight=w[:, None])) == pytest.approx(expected)
    full = np.broadcast_to(w[:, None], (3, 2))
    assert float(metrics.Mean()(values, sample_weight=full)) == pytest.approx(expected)
    assert float(metrics.Mean()([1.0, 2.0, 3.0], sample_weight=[[1.0], [0.0], [1.0]])) == 2.0


def test_empty_metrics_read_zero():
    for factory in (metrics.Mean, metrics.Accuracy, metrics.Precision, metrics.AUC):
        assert float(np.asarray(factory().result()).sum()) == 0.0
    assert float(metrics.Mean()([1.0, 2.0], sample_weight=[0.0, 0.0])) == 0.0


def test_result_is_a_snapshot_tensor():
    s = metrics.Sum()
    first = s([1.0, 2.0])
    s([10.0])
    assert isinstance(first, ks.Tensor) and not isinstance(first, ks.Variable)
    assert float(first) == 3.0 and float(s.result()) == 13.0


def test_dtype_float64():
    m = metrics.Mean(dtype="float64")
    m(np.array([1e-10, 1.0]))
    assert m.result().dtype == np.float64 and m.total.dtype == np.float64
    assert float(m.result()) == (1e-10 + 1.0) / 2


# ---------------------------------------------------------------- reset and state


def _all_metrics():
    return [
        metrics.Mean(),
        metrics.Sum(),
        metrics.Accuracy(),
        metrics.BinaryAccuracy(),
        metrics.CategoricalAccuracy(),
        metrics.SparseCategoricalAccuracy(),
        metrics.TopKCategoricalAccuracy(k=2),
        metrics.SparseTopKCategoricalAccuracy(k=2),
        metrics.MeanSquaredError(),
        metrics.MeanAbsoluteError(),
        metrics.RootMeanSquaredError(),
        metrics.Precision(),
        metrics.Recall(),
        metrics.AUC(num_thresholds=20),
    ]


def _feed(metric, rng):
    n = 8
    probs = rng.uniform(size=(n, CLASSES)).astype(np.float32)
    labels = rng.integers(0, CLASSES, size=n)
    onehot = np.eye(CLASSES, dtype=np.float32)[labels]
    if isinstance(metric, (metrics.Mean, metrics.Sum)) and not isinstance(
        metric, metrics.MeanMetricWrapper
    ):
        metric.update_state(probs)
    elif isinstance(
        metric, (metrics.SparseCategoricalAccuracy, metrics.SparseTopKCategoricalAccuracy)
    ):
        metric.update_state(labels, probs)
    elif isinstance(metric, (metrics.Accuracy,)):
        metric.update_state(labels, labels[::-1])
    else:
        metric.update_state(onehot, probs)


def test_reset_state_restores_a_fresh_metric():
    rng = np.random.default_rng(5)
    for metric in _all_metrics():
        _feed(metric, rng)
        assert any(np.any(v.numpy() != 0) for v in metric.variables), metric
        metric.reset_state()
        assert all(np.all(v.numpy() == 0) for v in metric.variables), metric
        _feed(metric, np.random.default_rng(9))
        fresh = type(metric)(**({"k": 2} if hasattr(metric, "k") else {}))
        if isinstance(metric, metrics.AUC):
            fresh = metrics.AUC(num_thresholds=20)
        _feed(fresh, np.random.default_rng(9))
        np.testing.assert_allclose(np.asarray(metric.result()), np.asarray(fresh.result()))
        metric.reset_states()  # the TF 2.0 spelling
        assert all(np.all(v.numpy() == 0) for v in metric.variables)


def test_variables_are_non_trainable_and_named():
    mean = metrics.Mean("loss")
    assert [path for path, _ in tracking.named_variables(mean)] == ["total", "count"]
    auc = metrics.AUC(num_thresholds=7)
    named = dict(tracking.named_variables(auc))
    assert list(named) == ["true_positives", "false_positives", "true_negatives", "false_negatives"]
    assert all(v.shape == (7,) for v in named.values())
    for metric in _all_metrics():
        variables = [v for _, v in tracking.named_variables(metric)]
        assert variables and all(not v.trainable for v in variables)
        assert variables == metric.variables and metric.trainable_variables == []

    class Holder(tracking.Trackable):
        def __init__(self):
            self.train_loss = metrics.Mean("loss")
            self.train_accuracy = metrics.SparseCategoricalAccuracy()

    paths = [path for path, _ in tracking.named_variables(Holder())]
    assert paths == [
        "train_loss/total",
        "train_loss/count",
        "train_accuracy/total",
        "train_accuracy/count",
    ]


def test_weight_not_held_by_an_attribute_is_still_tracked():
    class Counter(metrics.Metric):
        def __init__(self):
            super().__init__()
            self.add_weight("hits")  # not assigned to an attribute

        def update_state(self, x):
            self.variables[0].assign_add(ks.cast(ks.size(x), self.dtype))

        def result(self):
            return self.variables[0].read_value()

    c = Counter()
    assert c.name == "counter"
    assert float(c([1, 2, 3])) == 3.0
    assert [p for p, _ in tracking.named_variables(c)] == ["hits"]


# ---------------------------------------------------------------- tape


def test_metrics_do_not_record_on_a_tape():
    w = ks.Variable([[0.5, -1.0], [2.0, 0.1]])
    x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
    labels = ks.constant([0, 1])
    all_metrics = _all_metrics()
    with ks.GradientTape(persistent=True) as tape:
        logits = ks.matmul(x, w)
        loss = ks.reduce_mean(ks.square(logits))
        doubled, probs = logits * 2.0, ks.sigmoid(logits)
        row_weight = ks.reduce_sum(probs, axis=1)
        targets = ks.constant([[0.0, 1.0], [1.0, 0.0]])
        recorded = len(tape._ops)
        metrics.Mean()(loss)
        metrics.Sum()(loss)
        metrics.SparseCategoricalAccuracy()(labels, logits)
        metrics.MeanSquaredError()(logits, doubled)
        metrics.MeanAbsoluteError()(probs, targets, sample_weight=row_weight)
        metrics.AUC(num_thresholds=5)(targets, probs)
        metrics.Precision(from_logits=True)(targets, logits)
        metrics.BinaryAccuracy(from_logits=True)(targets, logits)
        for metric in all_metrics:
            _feed(metric, np.random.default_rng(1))
            metric.result()
        assert len(tape._ops) == recorded  # nothing the metrics did is on the tape
    assert tape.watched_variables() == [w]
    grad = tape.gradient(loss, w)
    assert grad.shape == (2, 2)


def test_metrics_run_inside_an_outer_tape_of_a_custom_metric():
    class Doubled(metrics.Mean):
        def update_state(self, values, sample_weight=None):
            super().update_state(ks.multiply(values, 2.0), sample_weight)

    v = ks.Variable(3.0)
    with ks.GradientTape() as tape:
        y = v * v
        before = len(tape._ops)
        assert float(Doubled()(y)) == 18.0
        assert len(tape._ops) == before
    assert float(tape.gradient(y, v)) == 6.0


# ---------------------------------------------------------------- Precision, Recall, AUC


def _confusion_reference(y_true, y_pred, thresholds, weights=None):
    """(tp, fp, tn, fn) per threshold, float64, prediction positive when p > t."""
    y_pred = np.asarray(y_pred)
    positive = (np.asarray(y_true) != 0).astype(np.float64)
    w = (
        np.ones(y_pred.shape)
        if weights is None
        else np.broadcast_to(
            np.asarray(weights, np.float64).reshape((-1,) + (1,) * (y_pred.ndim - 1)), y_pred.shape
        )
    )
    p, pos, w = y_pred.ravel(), positive.ravel(), w.ravel()
    above = p[None, :] > np.asarray(thresholds)[:, None]
    tp = (above * pos * w).sum(1)
    fp = (above * (1 - pos) * w).sum(1)
    fn = (~above * pos * w).sum(1)
    tn = (~above * (1 - pos) * w).sum(1)
    return tp, fp, tn, fn


def _div(a, b):
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _stream(metric, batches):
    for y_true, y_pred, w in batches:
        metric.update_state(y_true, y_pred, sample_weight=w)
    y_true = np.concatenate([b[0] for b in batches])
    y_pred = np.concatenate([b[1] for b in batches])
    w = None if batches[0][2] is None else np.concatenate([b[2] for b in batches])
    return y_true, y_pred, w


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("thresholds", [None, 0.7, [0.1, 0.5, 0.9]])
def test_precision_and_recall(thresholds, weighted):
    batches = _batches(_binary_data, seed=4, weighted=weighted)
    precision = metrics.Precision(thresholds=thresholds)
    recall = metrics.Recall(thresholds=thresholds)
    y_true, y_pred, w = _stream(precision, batches)
    _stream(recall, batches)
    t = np.float32([0.5] if thresholds is None else np.atleast_1d(thresholds))
    tp, fp, _, fn = _confusion_reference(y_true, y_pred, t, w)
    expected_p, expected_r = _div(tp, tp + fp), _div(tp, tp + fn)
    if thresholds is None or np.ndim(thresholds) == 0:
        assert precision.result().shape == () and recall.result().shape == ()
    np.testing.assert_allclose(np.ravel(precision.result()), expected_p, rtol=1e-5)
    np.testing.assert_allclose(np.ravel(recall.result()), expected_r, rtol=1e-5)
    assert 0.0 < expected_p.min() and expected_p.max() < 1.0


def test_precision_recall_class_id_top_k_and_logits():
    rng = np.random.default_rng(8)
    y_true = rng.integers(0, 2, size=(20, 4))
    logits = rng.normal(size=(20, 4)).astype(np.float32)
    probs = _sigmoid(logits).astype(np.float32)

    p = metrics.Precision(class_id=2)(y_true, probs)
    tp, fp, _, _ = _confusion_reference(y_true[:, 2], probs[:, 2], np.float32([0.5]))
    assert float(p) == pytest.approx(float(_div(tp, tp + fp)[0]))

    r = metrics.Recall(from_logits=True)(y_true, logits)
    assert float(r) == pytest.approx(float(metrics.Recall()(y_true, probs)), rel=1e-6)

    top = metrics.Precision(top_k=1)(y_true, probs)
    kept = probs == probs.max(axis=1, keepdims=True)
    expected = (kept & (y_true == 1)).sum() / kept.sum()
    assert float(top) == pytest.approx(expected)


def _auc_reference(tp, fp, tn, fn, curve="ROC", method="interpolation"):
    recall = _div(tp, tp + fn)
    if curve == "ROC":
        x, y = _div(fp, fp + tn), recall
    else:
        x, y = recall, _div(tp, tp + fp)
    if method == "interpolation":
        heights = (y[:-1] + y[1:]) / 2
    elif method == "minoring":
        heights = np.minimum(y[:-1], y[1:])
    else:
        heights = np.maximum(y[:-1], y[1:])
    return np.sum((x[:-1] - x[1:]) * heights)


def _mann_whitney_auc(y_true, scores):
    pos, neg = scores[y_true == 1], scores[y_true == 0]
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return greater / (len(pos) * len(neg))


def _auc_batches(weighted=False, n=(60, 45, 80)):
    rng = np.random.default_rng(11)
    out = []
    for size in n:
        y = rng.integers(0, 2, size=size)
        score = np.clip(0.25 * y + rng.uniform(size=size) * 0.75, 0, 1).astype(np.float32)
        out.append((y, score, _weights(rng, size) if weighted else None))
    return out


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("method", ["interpolation", "minoring", "majoring"])
def test_auc_roc_matches_numpy_trapezoid(method, weighted):
    m = metrics.AUC(summation_method=method)
    y_true, y_pred, w = _stream(m, _auc_batches(weighted))
    thresholds = m.thresholds
    assert thresholds.shape == (200,) and thresholds[0] < 0 and thresholds[-1] > 1
    counts = _confusion_reference(y_true, y_pred, thresholds, w)
    np.testing.assert_allclose(m.true_positives.numpy(), counts[0], rtol=1e-5)
    np.testing.assert_allclose(m.true_negatives.numpy(), counts[2], rtol=1e-5)
    expected = _auc_reference(*counts, "ROC", method)
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)
    if method == "interpolation" and not weighted:
        assert float(m.result()) == pytest.approx(_mann_whitney_auc(y_true, y_pred), abs=5e-3)


def test_auc_pr_curve():
    batches = _auc_batches()
    minoring = metrics.AUC(curve="PR", summation_method="minoring")
    interpolated = metrics.AUC(curve="pr", num_thresholds=50)
    y_true, y_pred, _ = _stream(minoring, batches)
    _stream(interpolated, batches)
    counts = _confusion_reference(y_true, y_pred, minoring.thresholds)
    assert float(minoring.result()) == pytest.approx(
        _auc_reference(*counts, "PR", "minoring"), rel=1e-5
    )
    # Davis-Goadrich interpolation (Keras's port), checked against average precision roughly
    tp, fp, _, fn = _confusion_reference(y_true, y_pred, interpolated.thresholds)
    dtp, p = tp[:-1] - tp[1:], tp + fp
    dp = p[:-1] - p[1:]
    slope = _div(dtp, np.maximum(dp, 0))
    intercept = tp[1:] - slope * p[1:]
    ratio = np.where((p[:-1] > 0) & (p[1:] > 0), _div(p[:-1], np.maximum(p[1:], 0)), 1.0)
    increments = _div(slope * (dtp + intercept * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0))
    expected = np.sum(increments)
    assert float(interpolated.result()) == pytest.approx(expected, rel=1e-4)
    assert 0.5 < expected < 1.0


def test_auc_explicit_thresholds_and_logits():
    y_true, y_pred, _ = _auc_batches()[0]
    logits = np.log(np.clip(y_pred, 1e-4, 1 - 1e-4) / (1 - np.clip(y_pred, 1e-4, 1 - 1e-4)))
    m = metrics.AUC(thresholds=[0.75, 0.25, 0.5])
    np.testing.assert_allclose(m.thresholds, np.float32([-1e-7, 0.25, 0.5, 0.75, 1 + 1e-7]))
    a = float(metrics.AUC(from_logits=True)(y_true, logits.astype(np.float32)))
    b = float(metrics.AUC()(y_true, np.clip(y_pred, 1e-4, 1 - 1e-4)))
    assert a == pytest.approx(b, abs=1e-3)


def test_auc_against_sklearn():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    batches = _auc_batches()
    m = metrics.AUC(num_thresholds=1000)
    y_true, y_pred, _ = _stream(m, batches)
    assert float(m.result()) == pytest.approx(
        sklearn_metrics.roc_auc_score(y_true, y_pred), abs=2e-3
    )


# ---------------------------------------------------------------- errors


def test_shape_mismatch_names_metric_and_both_shapes():
    with pytest.raises(InvalidArgumentError) as info:
        metrics.MeanSquaredError()(np.zeros((4, 3)), np.zeros((4, 2)))
    message = str(info.value)
    assert "MeanSquaredError" in message and "'mean_squared_error'" in message
    assert "(4, 3)" in message and "(4, 2)" in message

    with pytest.raises(InvalidArgumentError, match=r"'acc'.*\(8,\).*\(8, 8\)|'acc'.*\(8, 8\)"):
        metrics.Accuracy("acc")(np.zeros(8), np.zeros((8, 8)))
    with pytest.raises(InvalidArgumentError, match=r"Precision.*\(3,\).*\(3, 2\)"):
        metrics.Precision()(np.zeros(3), np.zeros((3, 2)))
    with pytest.raises(InvalidArgumentError, match=r"sparse_categorical_accuracy.*\(5, 2\)"):
        metrics.SparseCategoricalAccuracy()(np.zeros((5, 2)), np.zeros((5, 4)))
    with pytest.raises(InvalidArgumentError, match="sparse_categorical_accuracy"):
        metrics.CategoricalAccuracy()(np.zeros(5), np.zeros((5, 4)))


def test_trailing_one_is_squeezed_not_broadcast():
    y_true = np.array([1.0, 2.0, 3.0], np.float32)
    y_pred = np.array([[1.0], [2.0], [5.0]], np.float32)
    assert float(metrics.MeanSquaredError()(y_true, y_pred)) == pytest.approx(4.0 / 3)
    assert float(metrics.Accuracy()(y_pred, y_true)) == pytest.approx(2.0 / 3)


def test_one_class_output_is_an_error_for_argmax_accuracies():
    with pytest.raises(InvalidArgumentError, match="binary_accuracy"):
        metrics.CategoricalAccuracy()(np.ones((4, 1)), np.ones((4, 1)))
    with pytest.raises(InvalidArgumentError, match="binary_accuracy"):
        metrics.SparseCategoricalAccuracy()(np.zeros(4, np.int32), np.ones((4, 1)))


def test_sample_weight_shape_mismatch():
    with pytest.raises(InvalidArgumentError) as info:
        metrics.Mean("loss")(np.zeros(4), sample_weight=np.ones(3))
    message = str(info.value)
    assert "Mean metric 'loss'" in message and "(3,)" in message and "(4,)" in message
    with pytest.raises(InvalidArgumentError, match=r"BinaryAccuracy.*sample_weight.*\(5,\)"):
        metrics.BinaryAccuracy()(np.zeros((4, 2)), np.zeros((4, 2)), sample_weight=np.ones(5))
    with pytest.raises(InvalidArgumentError, match="AUC.*sample_weight"):
        metrics.AUC()(np.zeros(4), np.zeros(4), sample_weight=np.ones((4, 2)))


def test_bad_options():
    with pytest.raises(InvalidArgumentError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)
    with pytest.raises(InvalidArgumentError, match="curve"):
        metrics.AUC(curve="DET")
    with pytest.raises(InvalidArgumentError, match=r"\[0, 1\].*from_logits"):
        metrics.Precision(thresholds=[0.5, 2.0])


def test_out_of_range_labels_are_never_right():
    scores = np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)
    assert float(metrics.SparseCategoricalAccuracy()([5, -1], scores)) == 0.0
    assert float(metrics.SparseTopKCategoricalAccuracy(k=2)([5, -1], scores)) == 0.0
    assert float(metrics.SparseTopKCategoricalAccuracy(k=2)([1, 0], scores)) == 1.0


# ---------------------------------------------------------------- get and resolve_accuracy


def test_get_resolves_names_instances_and_functions():
    expected = {
        "accuracy": metrics.Accuracy,
        "acc": metrics.Accuracy,
        "mse": metrics.MeanSquaredError,
        "mean_squared_error": metrics.MeanSquaredError,
        "mae": metrics.MeanAbsoluteError,
        "rmse": metrics.RootMeanSquaredError,
        "sparse_categorical_accuracy": metrics.SparseCategoricalAccuracy,
        "categorical_accuracy": metrics.CategoricalAccuracy,
        "binary_accuracy": metrics.BinaryAccuracy,
        "top_k_categorical_accuracy": metrics.TopKCategoricalAccuracy,
        "sparse_top_k_categorical_accuracy": metrics.SparseTopKCategoricalAccuracy,
        "auc": metrics.AUC,
        "precision": metrics.Precision,
        "recall": metrics.Recall,
        "AUC": metrics.AUC,
        "MeanSquaredError": metrics.MeanSquaredError,
    }
    for name, cls in expected.items():
        metric = metrics.get(name)
        assert type(metric) is cls, name
    assert metrics.get("mse").name == "mse" and metrics.get("MeanSquaredError").name == (
        "mean_squared_error"
    )
    m = metrics.Mean()
    assert metrics.get(m) is m and metrics.get(None) is None
    assert type(metrics.get(metrics.Recall)) is metrics.Recall
    assert (
        type(metrics.get({"class_name": "BinaryAccuracy", "config": {"threshold": 0.7}}))
        is metrics.BinaryAccuracy
    )

    def fraction_equal(y_true, y_pred):
        return ks.cast(ks.equal(y_true, y_pred), ks.float32)

    wrapped = metrics.get(fraction_equal)
    assert isinstance(wrapped, metrics.MeanMetricWrapper) and wrapped.name == "fraction_equal"
    assert float(wrapped([1, 2], [1, 3])) == 0.5


def test_config_round_trip():
    originals = [
        metrics.BinaryAccuracy(name="acc", threshold=0.7, from_logits=True),
        metrics.TopKCategoricalAccuracy(k=3),
        metrics.Precision(thresholds=[0.2, 0.4], class_id=1),
        metrics.Recall(thresholds=0.3, top_k=2),
        metrics.AUC(num_thresholds=50, curve="PR", summation_method="majoring"),
        metrics.AUC(thresholds=[0.3, 0.6], dtype="float64"),
        metrics.Mean("loss"),
    ]
    for original in originals:
        copy = metrics.get(metrics.serialize(original))
        assert type(copy) is type(original) and copy.get_config() == original.get_config()
        assert [v.shape for v in copy.variables] == [v.shape for v in original.variables]


def test_get_unknown_name_is_a_clear_error():
    with pytest.raises(InvalidArgumentError, match=r"unknown metric 'acuracy'.*'accuracy'"):
        metrics.get("acuracy")
    with pytest.raises(InvalidArgumentError, match="cannot interpret"):
        metrics.get(3)


class _FakeLoss:
    """Stands in for a ks.losses class instance (from_logits attribute, class name)."""

    def __init__(self, from_logits=False):
        self.from_logits = from_logits


class BinaryCrossentropy(_FakeLoss):
    pass


class SparseCategoricalCrossentropy(_FakeLoss):
    pass


def test_resolve_accuracy_like_keras():
    def resolve(*args):
        metric = metrics.resolve_accuracy(*args)
        assert metric.name == "accuracy"
        return type(metric)

    assert (
        resolve("sparse_categorical_crossentropy", (32,), (32, 10))
        is metrics.SparseCategoricalAccuracy
    )
    assert resolve("categorical_crossentropy", (32, 10), (32, 10)) is metrics.CategoricalAccuracy
    assert resolve("binary_crossentropy", (32, 1), (32, 1)) is metrics.BinaryAccuracy
    assert resolve("CategoricalCrossentropy", None, (32, 10)) is metrics.CategoricalAccuracy
    assert resolve("BCE", None, (32, 3)) is metrics.BinaryAccuracy
    assert (
        resolve(SparseCategoricalCrossentropy(from_logits=True), None, None)
        is metrics.SparseCategoricalAccuracy
    )
    assert (
        resolve(ks.nn.sparse_softmax_cross_entropy_with_logits, (8,), (8, 3))
        is metrics.SparseCategoricalAccuracy
    )
    # shapes decide when the loss does not
    assert resolve("mse", (32,), (32, 10)) is metrics.SparseCategoricalAccuracy
    assert resolve(None, (32, 1), (32, 10)) is metrics.SparseCategoricalAccuracy
    assert resolve(None, (None, 10), (None, 10)) is metrics.CategoricalAccuracy
    assert resolve(None, (32, 1), (32, 1)) is metrics.BinaryAccuracy
    assert resolve(None, (32,), (32,)) is metrics.BinaryAccuracy
    assert resolve(None, None, None) is metrics.Accuracy
    with pytest.raises(InvalidArgumentError, match="y_true_shape"):
        metrics.resolve_accuracy(None, None, (32, 10))


def test_losses_as_metrics():
    rng = np.random.default_rng(2)
    batches = [
        (
            rng.integers(0, 2, size=(n, 1)).astype(np.float32),
            rng.uniform(0.05, 0.95, size=(n, 1)).astype(np.float32),
            _weights(rng, n),
        )
        for n in BATCHES
    ]
    by_name = metrics.get("binary_crossentropy")
    by_object = metrics.get(ks.losses.BinaryCrossentropy())
    assert by_name.name == "binary_crossentropy" == by_object.name
    for y_true, y_pred, w in batches:
        by_name.update_state(y_true, y_pred, sample_weight=w)
        by_object.update_state(y_true, y_pred, sample_weight=w)
    t, p, w = (np.concatenate([b[i] for b in batches]).astype(np.float64) for i in range(3))
    per_example = -(t * np.log(p) + (1 - t) * np.log(1 - p))[:, 0]
    expected = (per_example * w).sum() / w.sum()
    assert float(by_name.result()) == pytest.approx(expected, rel=1e-4)
    assert float(by_object.result()) == pytest.approx(expected, rel=1e-4)


def test_resolve_accuracy_with_ks_losses():
    bce = metrics.resolve_accuracy(ks.losses.BinaryCrossentropy(from_logits=True), (4, 1), (4, 1))
    assert isinstance(bce, metrics.BinaryAccuracy) and bce.from_logits
    sparse = metrics.resolve_accuracy(
        ks.losses.get("sparse_categorical_crossentropy"), None, (4, 3)
    )
    assert isinstance(sparse, metrics.SparseCategoricalAccuracy)
    cce = metrics.resolve_accuracy(ks.losses.CategoricalCrossentropy(), (4, 1), (4, 3))
    assert isinstance(cce, metrics.CategoricalAccuracy)


def test_resolve_accuracy_carries_from_logits():
    metric = metrics.resolve_accuracy(BinaryCrossentropy(from_logits=True), (4, 1), (4, 1))
    assert isinstance(metric, metrics.BinaryAccuracy) and metric.from_logits
    # logits -1 and 0.2: the sigmoid threshold says 0 and 1; a raw 0.5 threshold would say 0, 0
    assert float(metric([[0], [1]], [[-1.0], [0.2]])) == 1.0
    assert not metrics.resolve_accuracy("binary_crossentropy", (4, 1), (4, 1)).from_logits


# ---------------------------------------------------------------- devices


@pytest.mark.cpu
@pytest.mark.gpu
def test_state_follows_the_data_to_the_gpu():
    m = metrics.SparseCategoricalAccuracy()
    auc = metrics.AUC(num_thresholds=10)
    with ks.device("/gpu:0"):
        scores = ks.constant([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    assert m.total.device == "/cpu:0"
    value = m(np.array([0, 1, 1]), scores, sample_weight=[1.0, 1.0, 1.0])  # host data follows
    assert m.total.device == "/gpu:0" and m.count.device == "/gpu:0"
    assert value.device == "/gpu:0" and float(value) == pytest.approx(2 / 3)
    auc(ks.constant([0.0, 1.0, 1.0]).gpu(), scores[:, 1])
    assert auc.true_positives.device == "/gpu:0"
    cpu = metrics.AUC(num_thresholds=10)
    cpu([0.0, 1.0, 1.0], scores.cpu()[:, 1])
    assert float(auc.result()) == pytest.approx(float(cpu.result()))


@pytest.mark.parametrize("name", ["sparse_categorical_accuracy",
                                  "sparse_top_k_categorical_accuracy"])
def test_sparse_metrics_take_float_ids_holding_whole_numbers(name):
    fn = getattr(metrics, name)
    y_pred = [[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]
    np.testing.assert_array_equal(fn(np.array([1.0, 2.0, 2.0], "float32"), y_pred).numpy(),
                                  fn(np.array([1, 2, 2]), y_pred).numpy())
    with pytest.raises(InvalidArgumentError, match=rf"{name}: y_true must hold integers, but it "
                       r"is float32 with the non-integral value y_true\[2\] = 2.5"):
        fn(np.array([1.0, 2.0, 2.5], "float32"), y_pred)
