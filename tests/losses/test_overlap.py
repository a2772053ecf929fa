"""Dice, Tversky, Circle and CategoricalGeneralizedCrossEntropy: values, gradients,
reductions, configs, and Keras 3's numbers when Keras is importable."""

import numpy as np
import pytest

import kerasish as ks
from kerasish import losses
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients

EPS = ks.config.epsilon()
RNG = np.random.default_rng(0)
MASKS = (RNG.uniform(size=(3, 4, 5)) > 0.5).astype(np.float64)
PROBS = RNG.uniform(0.01, 0.99, (3, 4, 5))


def _ref_dice(t, p, axis=None):
    return 1 - 2 * np.sum(t * p, axis) / (np.sum(t, axis) + np.sum(p, axis) + EPS)


def _ref_tversky(t, p, alpha, beta, axis=None):
    tp = np.sum(t * p, axis)
    fp, fn = np.sum((1 - p) * t, axis), np.sum(p * (1 - t), axis)
    return 1 - tp / (tp + alpha * fp + beta * fn + EPS)


def _ref_circle(labels, emb, gamma, margin, remove_diagonal=True):
    """Per example, by loops over the pairs: softplus(lse(positives) + lse(negatives))."""
    d = np.maximum(1 - emb @ emb.T, 0)
    out = []
    for i in range(len(labels)):
        pos, neg = [], []
        for j in range(len(labels)):
            if labels[i] == labels[j] and not (remove_diagonal and i == j):
                pos.append(-gamma * max(margin + d[i, j], 0) * (margin - d[i, j]))
            elif labels[i] != labels[j]:
                neg.append(gamma * max(1 + margin - d[i, j], 0) * (1 - margin - d[i, j]))
        if not pos or not neg:
            out.append(0.0)
            continue
        total = np.log(np.sum(np.exp(pos))) + np.log(np.sum(np.exp(neg)))
        out.append(np.log1p(np.exp(total)))
    return np.array(out)


def _unit_rows(shape, seed):
    e = np.random.default_rng(seed).normal(size=shape)
    return e / np.linalg.norm(e, axis=1, keepdims=True)


@pytest.mark.parametrize("axis", [None, (1, 2), -1])
def test_dice_and_tversky_match_numpy(axis):
    got = losses.dice(MASKS, PROBS, axis=axis).numpy()
    np.testing.assert_allclose(got, _ref_dice(MASKS, PROBS, axis), rtol=1e-12)
    got = losses.tversky(MASKS, PROBS, alpha=0.7, beta=0.2, axis=axis).numpy()
    np.testing.assert_allclose(got, _ref_tversky(MASKS, PROBS, 0.7, 0.2, axis), rtol=1e-12)
    # alpha = beta = 0.5 is the Dice loss (same denominators up to EPSILON)
    half = losses.tversky(MASKS, PROBS, axis=axis).numpy()
    np.testing.assert_allclose(half, _ref_dice(MASKS, PROBS, axis), rtol=1e-6)


def test_dice_perfect_and_disjoint_predictions():
    mask = np.array([[1.0, 0.0, 1.0]])
    assert losses.dice(mask, mask, axis=1).numpy()[0] == pytest.approx(0.0, abs=1e-6)
    assert losses.dice(mask, 1 - mask, axis=1).numpy()[0] == pytest.approx(1.0)


def test_circle_matches_loops():
    labels = np.array([0, 0, 1, 1, 1, 2])  # class 2 has no positive pair: loss 0
    emb = _unit_rows((6, 4), 1)
    for gamma, margin, diag in ((80.0, 0.4, True), (2.0, 0.25, True), (3.0, 0.4, False)):
        got = losses.circle(labels, emb, gamma=gamma, margin=margin, remove_diagonal=diag)
        want = _ref_circle(labels, emb, gamma, margin, diag)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-12)
    assert losses.circle(labels, emb).numpy()[5] == 0.0


def test_circle_object_averages_only_positive_losses():
    labels = np.array([0, 0, 1, 1, 1, 2])
    emb = _unit_rows((6, 4), 2)
    per_example = _ref_circle(labels, emb, 80.0, 0.4)
    assert (per_example == 0).sum() == 1
    got = float(losses.Circle()(labels, emb))
    assert got == pytest.approx(per_example.sum() / 5, rel=1e-9)  # not / 6
    assert float(losses.Circle(reduction="sum")(labels, emb)) == pytest.approx(per_example.sum())


def test_generalized_cross_entropy_matches_numpy():
    probs = RNG.dirichlet(np.ones(4), size=6)
    labels = RNG.integers(0, 4, 6)
    p = probs[np.arange(6), labels]
    for q in (0.1, 0.5, 0.9):
        got = losses.categorical_generalized_cross_entropy(labels, probs, q=q).numpy()
        np.testing.assert_allclose(got, (1 - p**q) / q, rtol=1e-12)
    # (n, 1) labels give the same as (n,), and float ids are cast
    col = losses.categorical_generalized_cross_entropy(labels[:, None] * 1.0, probs, q=0.5)
    np.testing.assert_allclose(col.numpy(), (1 - p**0.5) / 0.5, rtol=1e-12)


def test_gradients_to_second_order():
    check_gradients(lambda p: losses.dice(MASKS, p, axis=(1, 2)), [PROBS])
    check_gradients(lambda p: losses.tversky(MASKS, p, alpha=0.3, beta=0.8), [PROBS])
    labels = np.array([0, 0, 1, 1, 1, 2])
    check_gradients(lambda e: losses.circle(labels, e, gamma=4.0), [_unit_rows((6, 4), 3)])
    probs = RNG.dirichlet(np.ones(4), size=5)
    check_gradients(
        lambda p: losses.categorical_generalized_cross_entropy([0, 1, 2, 3, 0], p, q=0.7),
        [probs],
    )


def test_circle_gradient_is_finite_with_an_example_alone_in_its_class():
    labels = np.array([0, 0, 1])
    emb = _unit_rows((3, 2), 4).astype(np.float32)
    import kerasish as ks

    x = ks.Variable(emb)
    with ks.GradientTape() as tape:
        loss = losses.Circle()(labels, x)
    grad = tape.gradient(loss, x).numpy()
    assert np.isfinite(grad).all() and np.abs(grad).sum() > 0


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none",
                                       "mean_with_sample_weight"])
def test_reductions_and_sample_weight(reduction):
    per_example = _ref_dice(MASKS, PROBS, (1, 2))
    weight = np.array([0.5, 2.0, 0.0])
    got = losses.Dice(axis=(1, 2), reduction=reduction)(MASKS, PROBS, sample_weight=weight)
    weighted = per_example * weight
    want = {
        "sum_over_batch_size": weighted.sum() / 3,
        "sum": weighted.sum(),
        "none": weighted,
        "mean_with_sample_weight": weighted.sum() / weight.sum(),
    }[reduction]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_configs_round_trip():
    for loss in (
        losses.Dice(axis=(1, 2), name="d"),
        losses.Tversky(alpha=0.3, beta=0.7, axis=-1, reduction="sum"),
        losses.Circle(gamma=32.0, margin=0.25, remove_diagonal=False),
        losses.CategoricalGeneralizedCrossEntropy(q=0.3),
    ):
        for again in (type(loss).from_config(loss.get_config()),
                      losses.deserialize(losses.serialize(loss)),
                      losses.get(losses.serialize(loss))):
            assert type(again) is type(loss) and again.get_config() == loss.get_config()
    assert losses.Tversky().get_config() == {
        "reduction": "sum_over_batch_size", "name": "tversky", "alpha": 0.5, "beta": 0.5,
        "axis": None,
    }
    assert isinstance(losses.get("dice"), losses.Dice)
    assert isinstance(losses.get(losses.circle), losses.Circle)
    assert isinstance(losses.get("categorical_generalized_cross_entropy"),
                      losses.CategoricalGeneralizedCrossEntropy)


def test_generalized_cross_entropy_rejects_q_outside_the_open_interval():
    for q in (0.0, 1.0, -0.5):
        with pytest.raises(InvalidArgumentError, match="q must be in"):
            losses.CategoricalGeneralizedCrossEntropy(q=q)


# ---------------------------------------------------------------- Keras 3 (interop venv)


def _keras_cases():
    rng = np.random.default_rng(5)
    masks = (rng.uniform(size=(4, 3, 5)) > 0.5).astype(np.float32)
    probs = rng.uniform(0.01, 0.99, (4, 3, 5)).astype(np.float32)
    labels = np.array([0, 1, 0, 1, 2, 0, 1, 3], np.float32)
    emb = _unit_rows((8, 6), 6).astype(np.float32)
    cat = rng.dirichlet(np.ones(4), size=8).astype(np.float32)
    return [
        ("Dice", {"axis": (1, 2)}, masks, probs),
        ("Dice", {"axis": -1}, masks, probs),
        ("Tversky", {"alpha": 0.7, "beta": 0.2, "axis": (1, 2)}, masks, probs),
        ("Circle", {}, labels, emb),
        ("Circle", {"gamma": 4.0, "margin": 0.2, "remove_diagonal": False}, labels, emb),
        ("CategoricalGeneralizedCrossEntropy", {"q": 0.3}, labels, cat),
    ]


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none",
                                       "mean_with_sample_weight"])
def test_matches_keras3(reduction):
    keras = pytest.importorskip("keras")
    for class_name, kwargs, y_true, y_pred in _keras_cases():
        theirs = getattr(keras.losses, class_name)(reduction=reduction, **kwargs)
        ours = getattr(losses, class_name)(reduction=reduction, **kwargs)
        shape = getattr(losses, class_name)(reduction="none", **kwargs)(y_true, y_pred).shape
        weight = np.linspace(0.0, 2.0, int(np.prod(shape))).reshape(shape).astype(np.float32)
        for sw in (None, weight):
            expected = np.asarray(theirs(y_true, y_pred, sample_weight=sw))
            got = ours(y_true, y_pred, sample_weight=sw).numpy()
            np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6,
                                       err_msg=f"{class_name} {kwargs} {sw}")
        assert ours.get_config() == {**theirs.get_config(), **kwargs}


def test_functions_match_keras3_with_axis_none():
    keras = pytest.importorskip("keras")
    masks, probs = MASKS.astype(np.float32), PROBS.astype(np.float32)
    for name, kwargs in (("dice", {}), ("tversky", {"alpha": 0.2, "beta": 0.9})):
        expected = np.asarray(getattr(keras.losses, name)(masks, probs, **kwargs))
        got = getattr(losses, name)(masks, probs, **kwargs).numpy()
        np.testing.assert_allclose(got, expected, rtol=2e-5)
