"""Loss functions against NumPy references (float64): values, gradients to second order,
reductions, errors, and Keras 3's numbers (those tests skip without keras)."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import losses
from kerasish.testing import check_gradients

EPS = ks.config.epsilon()


def _rng(seed=0):
    return np.random.default_rng(seed)


def _probabilities(rng, shape):
    p = rng.uniform(0.05, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


# ---------------------------------------------------------------- NumPy references (float64)


def _ref_mape(t, p):
    return 100 * np.mean(np.abs(t - p) / np.maximum(np.abs(t), EPS), -1)


def _ref_msle(t, p):
    return np.mean((np.log1p(np.maximum(p, EPS)) - np.log1p(np.maximum(t, EPS))) ** 2, -1)


def _ref_log_cosh(t, p):
    return np.mean(np.log(np.cosh(p - t)), -1)


def _ref_kl(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return np.sum(t * np.log(t / p), -1)


def _ref_poisson(t, p):
    return np.mean(p - t * np.log(p + EPS), -1)


def _ref_cosine(t, p):
    unit = lambda x: x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), EPS)  # noqa: E731
    return -np.sum(unit(t) * unit(p), -1)


def _ref_hinge(t, p):
    return np.mean(np.maximum(1 - t * p, 0), -1)


def _ref_squared_hinge(t, p):
    return np.mean(np.maximum(1 - t * p, 0) ** 2, -1)


def _ref_categorical_hinge(t, p):
    return np.maximum(np.max((1 - t) * p, -1) - np.sum(t * p, -1) + 1, 0)


def _ref_binary_focal(t, p, gamma=2.0, alpha=0.25, balance=False):
    q = np.clip(p, EPS, 1 - EPS)
    bce = -(t * np.log(q) + (1 - t) * np.log(1 - q))
    p_t = t * p + (1 - t) * (1 - p)
    loss = (1 - p_t) ** gamma * bce
    if balance:
        loss = (t * alpha + (1 - t) * (1 - alpha)) * loss
    return loss.mean(-1)


def _ref_categorical_focal(t, p, gamma=2.0, alpha=0.25):
    q = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return np.sum(alpha * (1 - q) ** gamma * -t * np.log(q), -1)


def _cases(rng):
    """(function, reference, y_true, y_pred) on inputs away from every kink."""
    shape = (4, 5)
    signs = rng.choice([-1.0, 1.0], shape)
    hot = np.eye(5)[rng.integers(0, 5, 4)]
    return [
        (losses.mean_absolute_percentage_error, _ref_mape, rng.normal(size=shape),
         rng.normal(size=shape)),
        (losses.mean_squared_logarithmic_error, _ref_msle, rng.uniform(0.1, 3, shape),
         rng.uniform(0.1, 3, shape)),
        (losses.log_cosh, _ref_log_cosh, rng.normal(size=shape), rng.normal(size=shape)),
        (losses.kl_divergence, _ref_kl, _probabilities(rng, shape), _probabilities(rng, shape)),
        (losses.poisson, _ref_poisson, rng.uniform(0, 3, shape), rng.uniform(0.1, 3, shape)),
        (losses.cosine_similarity, _ref_cosine, rng.normal(size=shape), rng.normal(size=shape)),
        (losses.hinge, _ref_hinge, signs, rng.normal(size=shape)),
        (losses.squared_hinge, _ref_squared_hinge, signs, rng.normal(size=shape)),
        (losses.categorical_hinge, _ref_categorical_hinge, hot, rng.normal(size=shape)),
        (losses.binary_focal_crossentropy, _ref_binary_focal,
         rng.integers(0, 2, shape).astype(float), rng.uniform(0.05, 0.95, shape)),
        (losses.categorical_focal_crossentropy, _ref_categorical_focal, hot,
         _probabilities(rng, shape)),
    ]


@pytest.mark.parametrize("index", range(11))
def test_values_match_numpy_reference(index):
    fn, reference, y_true, y_pred = _cases(_rng(index))[index]
    got = fn(y_true, y_pred).numpy()
    assert got.dtype == np.float64 and got.shape == (4,)
    np.testing.assert_allclose(got, reference(y_true, y_pred), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("index", range(11))
def test_gradients_match_finite_differences_to_second_order(index):
    fn, _, y_true, y_pred = _cases(_rng(100 + index))[index]
    check_gradients(lambda p: fn(y_true, p), [y_pred], order=2, rtol=1e-5, atol=1e-7)


def test_focal_gradients_with_logits_to_second_order():
    rng = _rng(1)
    labels = rng.integers(0, 2, (3, 4)).astype(float)
    logits = rng.normal(size=(3, 4)) * 3
    check_gradients(
        lambda x: losses.binary_focal_crossentropy(
            labels, x, apply_class_balancing=True, from_logits=True, label_smoothing=0.1
        ),
        [logits],
    )
    hot = np.eye(4)[rng.integers(0, 4, 3)]
    check_gradients(
        lambda x: losses.categorical_focal_crossentropy(hot, x, gamma=1.5, from_logits=True),
        [logits],
    )


def test_binary_values_reference_examples():
    # hinge maps 0/1 labels to -1/1, and keeps other labels as they are
    assert losses.hinge([[0.0, 1.0]], [[0.5, 0.5]]).numpy()[0] == pytest.approx(1.0)
    assert losses.hinge([[-1.0, 2.0]], [[0.5, 0.5]]).numpy()[0] == pytest.approx(0.75)
    # focal with gamma = 0 is plain BCE; categorical focal with gamma 0 is alpha * CCE
    t = [[1.0, 0.0, 1.0]]
    p = [[0.7, 0.2, 0.9]]
    np.testing.assert_allclose(
        losses.binary_focal_crossentropy(t, p, gamma=0.0).numpy(),
        losses.binary_crossentropy(t, p).numpy(),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        losses.categorical_focal_crossentropy([[0.0, 1.0, 0.0]], p, gamma=0.0, alpha=0.5).numpy(),
        0.5 * losses.categorical_crossentropy([[0.0, 1.0, 0.0]], p).numpy(),
        rtol=1e-6,
    )


def test_stable_forms_stay_finite():
    # log-cosh of huge errors: |t| - log 2 (cosh itself overflows float32)
    big = losses.log_cosh([[0.0]], [[1e4]]).numpy()
    assert big[0] == pytest.approx(1e4 - np.log(2.0), rel=1e-6)
    x = ks.constant([[1e4, -1e4]])
    with ks.GradientTape() as tape:
        tape.watch(x)
        loss = ks.reduce_sum(losses.log_cosh([[0.0, 0.0]], x))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [[0.5, -0.5]])
    # focal losses on extreme logits: finite, and right
    labels = [[1.0, 0.0, 1.0, 0.0]]
    logits = ks.constant([[1000.0, 1000.0, -1000.0, -1000.0]])
    with ks.GradientTape() as tape:
        tape.watch(logits)
        loss = losses.binary_focal_crossentropy(labels, logits, from_logits=True, gamma=2.0)
    value = loss.numpy()[0]
    assert value == pytest.approx((0 + 1000 + 1000 + 0) / 4)
    assert np.isfinite(tape.gradient(loss, logits).numpy()).all()
    with ks.GradientTape() as tape:
        tape.watch(logits)
        loss = losses.categorical_focal_crossentropy(
            [[0.0, 0.0, 1.0, 0.0]], logits, from_logits=True
        )
    assert np.isfinite(loss.numpy()).all() and loss.numpy()[0] > 100
    assert np.isfinite(tape.gradient(loss, logits).numpy()).all()


def test_loss_objects_and_names():
    t = _rng(3).integers(0, 2, (3, 2)).astype(np.float32)
    p = _rng(4).uniform(0.1, 0.9, (3, 2)).astype(np.float32)
    for names, cls, fn in [
        (("mape", "MAPE", "mean_absolute_percentage_error"), losses.MeanAbsolutePercentageError,
         losses.mean_absolute_percentage_error),
        (("msle", "MSLE"), losses.MeanSquaredLogarithmicError,
         losses.mean_squared_logarithmic_error),
        (("log_cosh", "logcosh"), losses.LogCosh, losses.log_cosh),
        (("kld", "kl_divergence", "kullback_leibler_divergence"), losses.KLDivergence,
         losses.kl_divergence),
        (("poisson",), losses.Poisson, losses.poisson),
        (("cosine_similarity",), losses.CosineSimilarity, losses.cosine_similarity),
        (("hinge",), losses.Hinge, losses.hinge),
        (("squared_hinge",), losses.SquaredHinge, losses.squared_hinge),
        (("categorical_hinge",), losses.CategoricalHinge, losses.categorical_hinge),
        (("binary_focal_crossentropy",), losses.BinaryFocalCrossentropy,
         losses.binary_focal_crossentropy),
        (("categorical_focal_crossentropy",), losses.CategoricalFocalCrossentropy,
         losses.categorical_focal_crossentropy),
    ]:
        expected = float(np.mean(fn(t, p).numpy()))
        for name in names:
            assert type(losses.get(name)) is cls
        assert type(losses.get(fn)) is cls
        obj = cls()
        assert float(obj(t, p)) == pytest.approx(expected, rel=1e-6)
        again = losses.get(losses.serialize(obj))
        assert type(again) is cls and again.get_config() == obj.get_config()
    config = losses.BinaryFocalCrossentropy(gamma=3, alpha=0.5, from_logits=True).get_config()
    assert config == {
        "reduction": "sum_over_batch_size",
        "name": "binary_focal_crossentropy",
        "apply_class_balancing": False,
        "alpha": 0.5,
        "gamma": 3.0,
        "from_logits": True,
        "label_smoothing": 0.0,
        "axis": -1,
    }
    assert losses.CosineSimilarity(axis=0).get_config()["axis"] == 0


def test_mean_with_sample_weight_reduction():
    values = [1.0, 2.0, 3.0, 4.0]
    weights = [1.0, 3.0, 0.0, 0.0]
    got = losses.compute_weighted_loss(values, weights, "mean_with_sample_weight")
    assert float(got) == pytest.approx((1 + 6) / 4)
    # without weights it is sum_over_batch_size; zero total weight gives 0, not NaN
    assert float(losses.compute_weighted_loss(values, None, "mean_with_sample_weight")) == 2.5
    assert float(losses.compute_weighted_loss(values, [0.0] * 4, "mean_with_sample_weight")) == 0
    # Keras 3 divides by the weights as given: a scalar weight cancels out
    assert float(losses.compute_weighted_loss(values, 2.0, "mean_with_sample_weight")) == 10.0
    mse = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    assert float(mse([[0.0], [0.0]], [[1.0], [3.0]], sample_weight=[1.0, 3.0])) == 7.0
    assert mse.get_config()["reduction"] == "mean_with_sample_weight"
    with pytest.raises(ks.InvalidArgumentError, match="mean_with_sample_weight"):
        losses.MeanSquaredError(reduction="mean_of_everything")


def test_sparse_categorical_crossentropy_ignore_class():
    logits = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 5.0]])
    labels = np.array([0, -1, 2, -1])
    full = losses.sparse_categorical_crossentropy([0, 1, 2, 2], logits, from_logits=True).numpy()
    per_example = losses.sparse_categorical_crossentropy(
        labels, logits, from_logits=True, ignore_class=-1
    ).numpy()
    np.testing.assert_allclose(per_example, [full[0], 0.0, full[2], 0.0])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    assert float(loss(labels, logits)) == pytest.approx((full[0] + full[2]) / 2)  # 2 counted
    weighted = float(loss(labels, logits, sample_weight=[1.0, 5.0, 3.0, 5.0]))
    assert weighted == pytest.approx((full[0] + 3 * full[2]) / 2)
    total = losses.SparseCategoricalCrossentropy(True, ignore_class=-1, reduction="sum")
    assert float(total(labels, logits)) == pytest.approx(full[0] + full[2])
    mean_w = losses.SparseCategoricalCrossentropy(
        True, ignore_class=-1, reduction="mean_with_sample_weight"
    )
    got = float(mean_w(labels, logits, sample_weight=[1.0, 5.0, 3.0, 5.0]))
    assert got == pytest.approx((full[0] + 3 * full[2]) / 4)
    # the ignored label may equal a real class id; all ignored gives 0
    assert float(loss([-1, -1], logits[:2])) == 0.0
    ignore_two = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=2)
    assert float(ignore_two([0, 1, 2, 2], logits)) == pytest.approx((full[0] + full[1]) / 2)
    # a label that is neither valid nor ignored still names itself
    with pytest.raises(ks.InvalidArgumentError, match=r"y_true\[1\] = 7 is not a valid class"):
        loss([0, 7, 2, -1], logits)
    # gradients flow only through the counted positions
    x = ks.constant(logits)
    with ks.GradientTape() as tape:
        tape.watch(x)
        value = loss(labels, x)
    grad = tape.gradient(value, x).numpy()
    assert np.all(grad[[1, 3]] == 0) and np.any(grad[0] != 0)


def test_error_messages():
    with pytest.raises(ks.InvalidArgumentError, match="binary_focal_crossentropy: gamma"):
        losses.BinaryFocalCrossentropy(gamma=-1.0)
    with pytest.raises(ks.InvalidArgumentError, match="categorical_focal_crossentropy: label_sm"):
        losses.categorical_focal_crossentropy([[0.0, 1.0]], [[0.5, 0.5]], label_smoothing=2.0)
    with pytest.raises(ks.InvalidArgumentError, match=r"y_pred has shape \(2, 1\)"):
        losses.categorical_focal_crossentropy([[1.0], [1.0]], [[1.0], [1.0]])
    with pytest.raises(
        ks.InvalidArgumentError, match=r"poisson: y_true shape \(2, 3\) does not match .* \(2, 2\)"
    ):
        losses.poisson(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ks.InvalidArgumentError, match="cosine_similarity: axis 3 is out of range"):
        losses.cosine_similarity(np.ones((2, 3)), np.ones((2, 3)), axis=3)
    with pytest.raises(ks.InvalidArgumentError, match="categorical_hinge: y_true shape"):
        losses.categorical_hinge([0, 1], np.ones((2, 2)))
    with pytest.raises(ks.InvalidArgumentError, match=r"mask shape \(3,\) does not match"):
        losses.compute_weighted_loss([1.0, 2.0], mask=[True, False, True])


# ---------------------------------------------------------------- Keras 3 parity


def _keras_cases(rng):
    shape = (6, 4)
    hot = np.eye(4)[rng.integers(0, 4, 6)]
    binary = rng.integers(0, 2, shape).astype(np.float32)
    return [
        ("MeanAbsolutePercentageError", {}, rng.normal(size=shape), rng.normal(size=shape)),
        ("MeanSquaredLogarithmicError", {}, rng.uniform(0, 3, shape), rng.normal(size=shape)),
        ("LogCosh", {}, rng.normal(size=shape), rng.normal(size=shape) * 30),
        ("KLDivergence", {}, _probabilities(rng, shape), _probabilities(rng, shape)),
        ("Poisson", {}, rng.uniform(0, 3, shape), rng.uniform(0.1, 3, shape)),
        ("CosineSimilarity", {"axis": -1}, rng.normal(size=shape), rng.normal(size=shape)),
        ("Hinge", {}, binary, rng.normal(size=shape)),
        ("SquaredHinge", {}, rng.choice([-1.0, 1.0], shape), rng.normal(size=shape)),
        ("CategoricalHinge", {}, hot, rng.normal(size=shape)),
        ("BinaryFocalCrossentropy", {"gamma": 1.5, "apply_class_balancing": True,
                                     "label_smoothing": 0.1}, binary,
         rng.uniform(0.01, 0.99, shape)),
        ("BinaryFocalCrossentropy", {"from_logits": True}, binary, rng.normal(size=shape) * 3),
        ("CategoricalFocalCrossentropy", {"alpha": 0.5, "label_smoothing": 0.2}, hot,
         _probabilities(rng, shape)),
        ("CategoricalFocalCrossentropy", {"from_logits": True}, hot, rng.normal(size=shape) * 3),
    ]


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none",
                                       "mean_with_sample_weight"])
def test_matches_keras3(reduction):
    keras = pytest.importorskip("keras")
    rng = _rng(7)
    weight = rng.uniform(0, 2, 6).astype(np.float32)
    for class_name, kwargs, y_true, y_pred in _keras_cases(rng):
        y_true, y_pred = y_true.astype(np.float32), y_pred.astype(np.float32)
        theirs = getattr(keras.losses, class_name)(reduction=reduction, **kwargs)
        ours = getattr(losses, class_name)(reduction=reduction, **kwargs)
        for sw in (None, weight):
            expected = np.asarray(theirs(y_true, y_pred, sample_weight=sw))
            got = ours(y_true, y_pred, sample_weight=sw).numpy()
            np.testing.assert_allclose(
                got, expected, rtol=2e-5, atol=1e-6, err_msg=f"{class_name} {kwargs} {sw}"
            )


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean_with_sample_weight"])
def test_sparse_ignore_class_matches_keras3(reduction):
    keras = pytest.importorskip("keras")
    rng = _rng(8)
    logits = rng.normal(size=(3, 5, 4)).astype(np.float32)
    labels = rng.integers(0, 4, (3, 5))
    labels[rng.uniform(size=(3, 5)) < 0.3] = -1
    weight = rng.uniform(0, 2, (3, 5)).astype(np.float32)
    for from_logits in (True, False):
        y_pred = logits if from_logits else np.asarray(ks.nn.softmax(logits))
        theirs = keras.losses.SparseCategoricalCrossentropy(
            from_logits=from_logits, ignore_class=-1, reduction=reduction
        )
        ours = losses.SparseCategoricalCrossentropy(
            from_logits=from_logits, ignore_class=-1, reduction=reduction
        )
        for sw in (None, weight):
            expected = np.asarray(theirs(labels, y_pred, sample_weight=sw))
            got = ours(labels, y_pred, sample_weight=sw).numpy()
            np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)
