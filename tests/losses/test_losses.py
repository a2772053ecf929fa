"""Tests for `ks.losses` and the sampled losses `ks.nn.nce_loss` / `ks.nn.sampled_softmax_loss`.

Every loss is compared with a NumPy reference (float64), in every reduction and
with sample weights; stability at extreme logits and at probabilities 0 and 1;
gradients by `ks.testing.check_gradients`; and the errors users of Keras trip
over (a (batch, 1) output for categorical cross-entropy, bad sparse labels,
unknown names) with their exact text.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kerasish as ks
from kerasish import losses
from kerasish.testing import check_gradients

RNG = np.random.default_rng(7)
EPS = 1e-7


# ---------------------------------------------------------------- NumPy references


def ref_mse(t, p):
    return np.mean((p - t) ** 2, axis=-1)


def ref_mae(t, p):
    return np.mean(np.abs(p - t), axis=-1)


def ref_huber(t, p, delta=1.0):
    e = np.abs(p - t)
    return np.mean(np.where(e <= delta, 0.5 * e**2, delta * (e - 0.5 * delta)), axis=-1)


def seeds_huber(y, y_predicted, m=1.0):
    """The CS20 lecture's eager Huber loss, with its Python `if`."""
    t = y - y_predicted
    return t**2 if abs(t) <= m else m * (2 * abs(t) - m)


def ref_bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p)), axis=-1)


def ref_bce_logits(t, x):
    return np.mean(np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x))), axis=-1)


def ref_log_softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def ref_cce(t, p):
    p = np.clip(p / p.sum(axis=-1, keepdims=True), EPS, 1 - EPS)
    return -np.sum(t * np.log(p), axis=-1)


def ref_cce_logits(t, x):
    return -np.sum(t * ref_log_softmax(x), axis=-1)


def ref_scce(labels, p):
    return ref_cce(np.eye(p.shape[-1])[labels], p)


def ref_scce_logits(labels, x):
    return -np.take_along_axis(ref_log_softmax(x), labels[..., None], axis=-1)[..., 0]


def ref_reduce(per_example, weights, reduction):
    weighted = per_example * (1.0 if weights is None else weights)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    return weighted.sum() / max(per_example.size, 1)


def probs(*shape):
    x = RNG.standard_normal(shape)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), b, rtol=tol, atol=tol)


# (function, class, NumPy reference, y_true maker, y_pred maker, extra kwargs)
B, C = 6, 4
CASES = {
    "mse": (losses.mean_squared_error, losses.MeanSquaredError, ref_mse, {}),
    "mae": (losses.mean_absolute_error, losses.MeanAbsoluteError, ref_mae, {}),
    "huber": (losses.huber, losses.Huber, ref_huber, {}),
    "huber_delta": (losses.huber, losses.Huber, lambda t, p: ref_huber(t, p, 0.3), {"delta": 0.3}),
    "bce": (losses.binary_crossentropy, losses.BinaryCrossentropy, ref_bce, {}),
    "bce_logits": (
        losses.binary_crossentropy,
        losses.BinaryCrossentropy,
        ref_bce_logits,
        {"from_logits": True},
    ),
    "cce": (losses.categorical_crossentropy, losses.CategoricalCrossentropy, ref_cce, {}),
    "cce_logits": (
        losses.categorical_crossentropy,
        losses.CategoricalCrossentropy,
        ref_cce_logits,
        {"from_logits": True},
    ),
    "scce": (
        losses.sparse_categorical_crossentropy,
        losses.SparseCategoricalCrossentropy,
        ref_scce,
        {},
    ),
    "scce_logits": (
        losses.sparse_categorical_crossentropy,
        losses.SparseCategoricalCrossentropy,
        ref_scce_logits,
        {"from_logits": True},
    ),
}


def data_for(case):
    """(y_true, y_pred) as float64 NumPy arrays (int labels for the sparse cases)."""
    if case.startswith("bce"):
        t = RNG.integers(0, 2, (B, C)).astype(np.float64)
        p = RNG.standard_normal((B, C)) * 3 if case.endswith("logits") else probs(B, C)
        return t, p
    if case.startswith("cce"):
        t = np.eye(C)[RNG.integers(0, C, B)]
        p = RNG.standard_normal((B, C)) * 3 if case.endswith("logits") else probs(B, C)
        return t, p
    if case.startswith("scce"):
        t = RNG.integers(0, C, B)
        p = RNG.standard_normal((B, C)) * 3 if case.endswith("logits") else probs(B, C)
        return t, p
    return RNG.standard_normal((B, C)), RNG.standard_normal((B, C)) * 2


# ---------------------------------------------------------------- values


@pytest.mark.parametrize("case", sorted(CASES))
def test_function_matches_numpy(case):
    fn, _, ref, kwargs = CASES[case]
    t, p = data_for(case)
    out = fn(t, p, **kwargs)
    assert out.shape == (B,)
    assert out.dtype == ks.float64
    close(out.numpy(), ref(t, p))
    out32 = fn(t.astype(np.float32) if t.dtype.kind == "f" else t, p.astype(np.float32), **kwargs)
    assert out32.dtype == ks.float32
    close(out32.numpy(), ref(t, p), tol=1e-4)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
@pytest.mark.parametrize("weights", ["none", "vector", "column", "scalar"])
def test_class_reductions_and_sample_weight(case, reduction, weights):
    fn, cls, ref, kwargs = CASES[case]
    t, p = data_for(case)
    w = {
        "none": None,
        "vector": RNG.uniform(0, 2, B),
        "column": RNG.uniform(0, 2, (B, 1)),
        "scalar": 0.7,
    }[weights]
    loss = cls(reduction=reduction, **kwargs)
    got = loss(t, p, sample_weight=w)
    want = ref_reduce(
        ref(t, p), None if w is None else np.reshape(w, (-1,)) if np.ndim(w) else w, reduction
    )
    assert got.shape == np.shape(want)
    close(got.numpy(), want)


def test_sum_over_batch_size_divides_by_element_count_not_weight_sum():
    per_example = np.array([1.0, 2.0, 3.0, 4.0])
    out = losses.compute_weighted_loss(per_example, [1.0, 1.0, 0.0, 0.0])
    assert float(out) == pytest.approx(3.0 / 4)  # Keras: / N, not / sum(w) = 2
    # (batch, time) losses with (batch,) weights weigh whole rows
    grid = np.arange(6.0).reshape(2, 3)
    out = losses.compute_weighted_loss(grid, [1.0, 0.0], reduction="sum")
    assert float(out) == pytest.approx(0 + 1 + 2)
    # empty batch: 0, not nan
    assert float(losses.MeanSquaredError()(np.zeros((0, 2)), np.zeros((0, 2)))) == 0.0


def test_reduction_names_and_errors():
    assert losses.MeanSquaredError(reduction="auto").reduction == "sum_over_batch_size"
    assert losses.MeanSquaredError(reduction=None).reduction == "none"
    assert losses.MeanSquaredError(reduction=losses.Reduction.SUM).reduction == "sum"
    with pytest.raises(ks.InvalidArgumentError, match="unknown loss reduction 'mean'"):
        losses.MeanSquaredError(reduction="mean")
    with pytest.raises(ks.InvalidArgumentError, match=r"sample_weight shape \(3,\) does not fit"):
        losses.MeanSquaredError()(np.zeros((4, 2)), np.zeros((4, 2)), sample_weight=[1, 2, 3])


def test_rank_alignment_and_shape_errors():
    t = np.array([1.0, 2.0, 3.0])
    p = np.array([[1.5], [2.0], [2.0]])
    out = losses.mean_squared_error(t, p)  # (3,) vs (3, 1): aligned, not (3, 3)
    close(out.numpy(), [0.25, 0.0, 1.0])
    close(losses.mean_squared_error(p, t).numpy(), [0.25, 0.0, 1.0])
    close(losses.mean_squared_error(0.0, p).numpy(), [2.25, 4.0, 4.0])  # scalar target
    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"mean_squared_error: y_true shape \(3,\) does not match y_pred shape \(3, 3\)",
    ):
        losses.mean_squared_error(t, np.zeros((3, 3)))
    with pytest.raises(ks.InvalidArgumentError, match="ids need sparse_categorical_crossentropy"):
        losses.categorical_crossentropy([0, 1, 2], probs(3, 3))


# ---------------------------------------------------------------- Huber definitions


def test_huber_is_standard_and_half_of_the_seeds_huber():
    close(losses.huber([[0.0]], [[0.5]]).numpy(), [0.125])  # 0.5 t^2
    close(losses.huber([[0.0]], [[3.0]]).numpy(), [2.5])  # delta (|t| - delta / 2)
    close(losses.huber([[0.0]], [[-3.0]], delta=2.0).numpy(), [4.0])
    for r in np.linspace(-4, 4, 33):
        for m in (0.5, 1.0, 2.0):
            ours = float(losses.huber([[0.0]], [[r]], delta=m)[0])
            assert seeds_huber(0.0, r, m) == pytest.approx(2 * ours)
    assert float(losses.Huber()([[0.0], [0.0]], [[0.5], [3.0]])) == pytest.approx(1.3125)
    with pytest.raises(ks.InvalidArgumentError, match="delta must be > 0"):
        losses.Huber(delta=0)


# ---------------------------------------------------------------- cross-entropy specifics


def test_probability_and_logit_forms_agree():
    x = RNG.standard_normal((B, C)) * 2
    t = np.eye(C)[RNG.integers(0, C, B)]
    soft = np.exp(ref_log_softmax(x))
    close(
        losses.categorical_crossentropy(t, soft).numpy(),
        losses.categorical_crossentropy(t, x, from_logits=True).numpy(),
    )
    labels = t.argmax(-1)
    close(
        losses.sparse_categorical_crossentropy(labels, soft).numpy(),
        losses.categorical_crossentropy(t, soft).numpy(),
    )
    close(
        losses.sparse_categorical_crossentropy(labels, x, from_logits=True).numpy(),
        losses.categorical_crossentropy(t, x, from_logits=True).numpy(),
    )
    bt = RNG.integers(0, 2, (B, C)).astype(np.float64)
    close(
        losses.binary_crossentropy(bt, 1 / (1 + np.exp(-x))).numpy(),
        losses.binary_crossentropy(bt, x, from_logits=True).numpy(),
    )


def test_sparse_labels_shapes_and_dtypes():
    x = RNG.standard_normal((5, 3))
    want = ref_scce_logits(np.array([0, 2, 1, 1, 0]), x)
    for labels in (
        [0, 2, 1, 1, 0],
        np.array([[0], [2], [1], [1], [0]], dtype=np.int64),
        np.array([0.0, 2.0, 1.0, 1.0, 0.0], dtype=np.float32),  # integral floats are fine
        np.array([0, 2, 1, 1, 0], dtype=np.uint8),
    ):
        close(losses.sparse_categorical_crossentropy(labels, x, from_logits=True).numpy(), want)


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_label_errors(from_logits):
    p = probs(4, 3)
    scce = losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    with pytest.raises(ks.InvalidArgumentError) as err:
        scce([0, 0.5, 1, 2], p)
    assert (
        "sparse_categorical_crossentropy: y_true must hold integers, but it is "
        "float32 with the non-integral value y_true[1] = 0.5" in str(err.value)
    )
    with pytest.raises(ks.InvalidArgumentError) as err:
        scce([0, 1, 3, 2], p)
    assert (
        "sparse_categorical_crossentropy: y_true[2] = 3 is not a valid class id in [0, 3) "
        "(y_pred has 3 classes along its last axis)" in str(err.value)
    )
    with pytest.raises(ks.InvalidArgumentError, match=r"y_true\[0, 0\] = -1 is not a valid"):
        scce([[-1], [0], [1], [2]], p)
    with pytest.raises(ks.InvalidArgumentError, match="non-integral value y_true\\[3\\] = nan"):
        scce([0, 1, 2, np.nan], p)
    with pytest.raises(ks.InvalidArgumentError, match="look one-hot: use categorical_crossentropy"):
        scce(np.eye(3)[[0, 1, 2, 0]], p)
    with pytest.raises(ks.InvalidArgumentError, match="use binary_crossentropy"):
        scce([0, 1, 1, 0], np.full((4, 1), 0.5))


@pytest.mark.parametrize("from_logits", [False, True])
def test_categorical_on_single_output_is_an_error(from_logits):
    y = np.array([[1.0], [0.0], [1.0]])
    p = np.array([[0.9], [0.2], [0.6]])
    for call in (
        lambda: losses.categorical_crossentropy(y, p, from_logits=from_logits),
        lambda: losses.CategoricalCrossentropy(from_logits=from_logits)(y, p),
        lambda: losses.get("categorical_crossentropy")(y[:, 0], p),
    ):
        with pytest.raises(ks.InvalidArgumentError) as err:
            call()
        message = str(err.value)
        assert "categorical_crossentropy: y_pred has shape (3, 1), a single class" in message
        assert "identically 0" in message and "binary_crossentropy" in message


@pytest.mark.parametrize("case", ["bce_logits", "cce_logits", "scce_logits"])
def test_no_nan_at_extreme_logits(case):
    fn, _, _, kwargs = CASES[case]
    x = np.array([[1e4, -1e4, 0.0, 5e3], [-1e4, 1e4, -3e3, 1e4]], dtype=np.float32)
    if case == "scce_logits":
        t = np.array([0, 2])
        want = [0.0, 1.3e4]
    elif case == "cce_logits":
        t = np.eye(4)[[0, 2]]
        want = [0.0, 1.3e4]
    else:
        t = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
        want = [(0 + 0 + np.log(2) + 5e3) / 4, (1e4 + 0 + 0 + 1e4) / 4]
    xt = ks.constant(x)
    with ks.GradientTape() as tape:
        tape.watch(xt)
        out = fn(t, xt, **kwargs)
    grad = tape.gradient(out, xt).numpy()
    assert np.all(np.isfinite(out.numpy())) and np.all(np.isfinite(grad))
    close(out.numpy(), want, tol=1e-3)


@pytest.mark.parametrize("case", ["bce", "cce", "scce"])
def test_probabilities_zero_and_one_are_clipped(case):
    fn, _, _, _ = CASES[case]
    p = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    t = {"bce": p[::-1].copy(), "cce": np.eye(3)[[0, 0]], "scce": np.array([0, 0])}[case]
    pt = ks.constant(p)
    with ks.GradientTape() as tape:
        tape.watch(pt)
        out = fn(t, pt)
    grad = tape.gradient(out, pt).numpy()
    assert np.all(np.isfinite(out.numpy())) and np.all(np.isfinite(grad))
    wrong = -np.log(EPS)  # a sure wrong prediction costs about -log(eps) = 16.1, not inf
    if case == "bce":  # each row: two sure wrong columns and one sure right one, averaged
        close(out.numpy(), [2 * wrong / 3] * 2, tol=0.02 * wrong)
    else:  # row 0 sure and right, row 1 sure and wrong
        assert float(out[0]) < 1e-5
        assert float(out[1]) == pytest.approx(wrong, rel=0.02)


def test_probability_form_warns_on_logits():
    x = np.array([[3.0, -2.0, 0.5]])
    with pytest.warns(UserWarning, match="pass from_logits=True"):
        losses.categorical_crossentropy([[1.0, 0.0, 0.0]], x)
    with pytest.warns(UserWarning, match="binary_crossentropy: y_pred holds values"):
        losses.binary_crossentropy([[1.0, 0.0, 0.0]], x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        losses.categorical_crossentropy([[1.0, 0.0, 0.0]], [[0.7, 0.2, 0.1]])


def test_label_smoothing():
    t = np.eye(3)[[0, 2]]
    x = RNG.standard_normal((2, 3))
    smoothed = t * 0.8 + 0.2 / 3
    close(
        losses.categorical_crossentropy(t, x, from_logits=True, label_smoothing=0.2).numpy(),
        ref_cce_logits(smoothed, x),
    )
    bt = np.array([[1.0, 0.0]])
    bx = np.array([[0.3, -0.4]])
    close(
        losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)(bt, bx).numpy(),
        ref_bce_logits(bt * 0.8 + 0.1, bx).mean(),
    )
    with pytest.raises(ks.InvalidArgumentError, match="label_smoothing must be in"):
        losses.BinaryCrossentropy(label_smoothing=2)


# ---------------------------------------------------------------- gradients


def away_from(values, points, gap=0.1):
    """Move entries of `values` that sit within `gap` of any of `points`."""
    values = values.copy()
    for c in points:
        near = np.abs(values - c) < gap
        values[near] = c + np.where(values[near] >= c, gap, -gap) * 2
    return values


@pytest.mark.parametrize(
    "name, order",
    [
        ("mse", 2),
        ("huber", 2),
        ("huber_delta", 2),
        ("bce_logits", 2),
        ("cce_logits", 2),
        ("scce_logits", 2),
        ("mae", 1),
        ("bce", 1),
        ("cce", 1),
        ("scce", 1),
    ],
)
def test_gradients(name, order):
    fn, _, _, kwargs = CASES[name]
    t, p = data_for(name)
    if name.startswith("huber") or name == "mae":
        delta = kwargs.get("delta", 1.0)
        p = t + away_from(p - t, [-delta, 0.0, delta])
    if name in ("bce", "cce", "scce"):
        p = np.clip(p, 0.05, 0.95)
    if name.startswith("scce"):
        check_gradients(lambda x: fn(t, x, **kwargs), [p], order=order)
    else:
        # gradients with respect to both targets and predictions
        check_gradients(lambda a, x: fn(a, x, **kwargs), [t, p], order=order)


def test_gradient_through_weighted_loss_object():
    t, p = data_for("huber")
    w = RNG.uniform(0, 2, B)
    loss = losses.Huber(delta=0.5, reduction="sum")
    p = t + away_from(p - t, [-0.5, 0.0, 0.5])
    check_gradients(lambda x: loss(t, x, sample_weight=w), [p], order=2)


# ---------------------------------------------------------------- names and objects


NAMES = {
    "mse": losses.MeanSquaredError,
    "mean_squared_error": losses.MeanSquaredError,
    "MeanSquaredError": losses.MeanSquaredError,
    "mae": losses.MeanAbsoluteError,
    "mean_absolute_error": losses.MeanAbsoluteError,
    "huber": losses.Huber,
    "huber_loss": losses.Huber,
    "binary_crossentropy": losses.BinaryCrossentropy,
    "categorical_crossentropy": losses.CategoricalCrossentropy,
    "sparse_categorical_crossentropy": losses.SparseCategoricalCrossentropy,
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_string_and_object_forms_give_identical_values(name):
    cls = NAMES[name]
    key = {
        losses.MeanSquaredError: "mse",
        losses.MeanAbsoluteError: "mae",
        losses.Huber: "huber",
        losses.BinaryCrossentropy: "bce",
        losses.CategoricalCrossentropy: "cce",
        losses.SparseCategoricalCrossentropy: "scce",
    }[cls]
    fn = CASES[key][0]
    t, p = data_for(key)
    w = RNG.uniform(0, 2, B)
    from_string = losses.get(name)
    assert isinstance(from_string, cls)
    for other in (
        cls(),
        losses.get(cls),
        losses.get(cls()),
        losses.get(fn),
        losses.get(losses.serialize(cls())),
    ):
        assert isinstance(other, cls)
        for weights in (None, w):
            a = from_string(t, p, sample_weight=weights).numpy()
            b = other(t, p, sample_weight=weights).numpy()
            assert np.array_equal(a, b)
    assert np.array_equal(from_string(t, p).numpy(), losses.compute_weighted_loss(fn(t, p)).numpy())


def test_get_other_forms_and_errors():
    assert losses.get(None) is None
    custom = losses.get(lambda t, p: ks.reduce_sum(ks.square(p - t), -1))
    assert isinstance(custom, losses.LossFunctionWrapper)
    assert float(custom([[1.0, 1.0]], [[2.0, 3.0]])) == pytest.approx(5.0)
    assert losses.mse is losses.mean_squared_error and losses.MAE is losses.mean_absolute_error
    with pytest.raises(ks.InvalidArgumentError) as err:
        losses.get("mean_sqaured_error")
    message = str(err.value)
    assert "unknown loss 'mean_sqaured_error'. Did you mean 'mean_squared_error'?" in message
    for valid in ("mse", "huber", "sparse_categorical_crossentropy", "binary_crossentropy"):
        assert valid in message
    with pytest.raises(TypeError, match="cannot interpret 3 as a loss"):
        losses.get(3)
    config = losses.serialize(losses.SparseCategoricalCrossentropy(from_logits=True))
    assert config == {
        "class_name": "SparseCategoricalCrossentropy",
        "config": {
            "reduction": "sum_over_batch_size",
            "name": "sparse_categorical_crossentropy",
            "from_logits": True,
            "ignore_class": None,
        },
    }
    assert losses.get(config).get_config()["from_logits"] is True
    assert losses.Huber(delta=2.0).get_config()["delta"] == 2.0
    assert losses.MeanSquaredError().name == "mean_squared_error"


def test_custom_loss_subclass():
    class Cube(losses.Loss):
        def call(self, y_true, y_pred):
            return ks.reduce_mean(ks.abs(y_pred - y_true) ** 3, -1)

    cube = Cube(reduction="sum")
    assert cube.name == "cube"
    assert float(cube([[0.0], [0.0]], [[1.0], [2.0]], sample_weight=[1.0, 0.5])) == 5.0


def _user_mse(y_true, y_pred):
    return ks.ops.mean(ks.ops.square(y_true - y_pred))


def test_a_wrapped_function_gets_ranks_aligned_as_in_keras():
    seen = []

    def spy(y_true, y_pred):
        seen.append((y_true.shape, y_pred.shape))
        return _user_mse(y_true, y_pred)

    labels, outputs = np.arange(4.0), np.zeros((4, 1))
    assert float(losses.get(spy)(labels, outputs)) == pytest.approx(3.5)  # (4, 4): 7.0
    assert float(losses.get(spy)(outputs, labels)) == pytest.approx(3.5)
    assert seen == [((4, 1), (4, 1)), ((4, 1), (4, 1))]
    # rank > 2: the trailing 1 is squeezed instead, as Keras's squeeze_or_expand does
    losses.get(spy)(np.zeros((2, 3)), np.zeros((2, 3, 1)))
    assert seen[-1] == ((2, 3), (2, 3))


def _regression_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    return x, (x @ np.array([1.0, -2.0, 0.5]) + 0.3).astype("float32")  # labels of shape (32,)


def _dense_model(loss):
    ks.random.set_seed(0)
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(0.1), loss)
    return model


@pytest.mark.parametrize("make_loss", [
    lambda: _user_mse,
    lambda: ks.losses.LossFunctionWrapper(_user_mse),
    lambda: "mse",
], ids=["function", "wrapper", "builtin"])
def test_labels_of_rank_one_reach_the_loss_aligned_in_fit_evaluate_and_steps(make_loss):
    x, y = _regression_data()
    model = _dense_model(make_loss())
    reference = _dense_model("mse")
    assert model.evaluate(x, y, verbose=0) == pytest.approx(reference.evaluate(x, y[:, None],
                                                                               verbose=0))
    y_pred = model(x)
    assert float(model.compute_loss(x, y, y_pred)) == pytest.approx(
        float(reference.compute_loss(x, y[:, None], y_pred)))
    assert model.train_step((x, y))["loss"] == pytest.approx(
        reference.train_step((x, y[:, None]))["loss"])
    history = model.fit(x, y, epochs=30, batch_size=8, verbose=0).history["loss"]
    assert history[-1] < 1e-2 * history[0]  # it learns the line, not the mean of y


def test_a_loss_subclass_gets_the_tensors_as_they_are_as_in_keras():
    seen = []

    class Spy(losses.Loss):
        def call(self, y_true, y_pred):
            seen.append((y_true.shape, y_pred.shape))
            return ks.ops.square(y_true - y_pred)

    Spy()(np.zeros(4), np.zeros((4, 1)))
    assert seen == [((4,), (4, 1))]


# ---------------------------------------------------------------- sampled losses


def ref_sampled(weights, biases, labels, inputs, sampled, true_count, sampled_count, remove):
    """(true_logits, sampled_logits, keep mask) as TF computes them, in float64."""
    true_logits = np.einsum("bd,btd->bt", inputs, weights[labels]) + biases[labels]
    true_logits -= np.log(true_count)
    sampled_logits = inputs @ weights[sampled].T + biases[sampled] - np.log(sampled_count)
    keep = np.ones(sampled_logits.shape, dtype=bool)
    if remove:
        keep = ~(labels[:, :, None] == sampled[None, None, :]).any(axis=1)
    return true_logits, sampled_logits, keep


def ref_nce(*args):
    true_logits, sampled_logits, keep = ref_sampled(*args)
    num_true = true_logits.shape[1]

    def xent(x, z):
        return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))

    return xent(true_logits, 1.0 / num_true).sum(1) + (xent(sampled_logits, 0.0) * keep).sum(1)


def ref_sampled_softmax(*args):
    true_logits, sampled_logits, keep = ref_sampled(*args)
    rows = []
    for t, s, k in zip(true_logits, sampled_logits, keep, strict=True):
        columns = np.concatenate([t, s[k]])
        lse = np.log(np.exp(columns - columns.max()).sum()) + columns.max()
        rows.append(lse - t.mean())
    return np.array(rows)


def sampled_setup(batch=5, dim=4, num_classes=30, num_true=1, num_sampled=6, dtype=np.float64):
    w = RNG.standard_normal((num_classes, dim)).astype(dtype)
    b = RNG.standard_normal(num_classes).astype(dtype)
    x = RNG.standard_normal((batch, dim)).astype(dtype)
    # distinct labels, and sampled classes that hit none of them (tests add hits on purpose)
    order = RNG.permutation(num_classes)
    labels = order[: batch * num_true].reshape(batch, num_true)
    sampled = RNG.permutation(order[batch * num_true :])[:num_sampled]
    true_count = RNG.uniform(0.1, 0.9, (batch, num_true))
    sampled_count = RNG.uniform(0.1, 0.9, num_sampled)
    return w, b, labels.astype(np.int64), x, sampled.astype(np.int64), true_count, sampled_count


SAMPLED = {
    "nce": (ks.nn.nce_loss, ref_nce),
    "softmax": (ks.nn.sampled_softmax_loss, ref_sampled_softmax),
}


@pytest.mark.parametrize("kind", sorted(SAMPLED))
@pytest.mark.parametrize("num_true", [1, 3])
@pytest.mark.parametrize("remove", [False, True])
def test_sampled_losses_match_numpy(kind, num_true, remove):
    fn, ref = SAMPLED[kind]
    w, b, labels, x, sampled, tc, sc = sampled_setup(num_true=num_true)
    sampled[:2] = labels[:2, 0]  # force accidental hits in rows 0 and 1
    out = fn(
        w,
        b,
        labels,
        x,
        num_sampled=6,
        num_classes=30,
        num_true=num_true,
        sampled_values=(sampled, tc, sc),
        remove_accidental_hits=remove,
    )
    assert out.shape == (5,)
    close(out.numpy(), ref(w, b, labels, x, sampled, tc, sc, remove), tol=1e-10)


@pytest.mark.parametrize("kind", sorted(SAMPLED))
def test_remove_accidental_hits(kind):
    fn, _ = SAMPLED[kind]
    w, b, labels, x, sampled, tc, sc = sampled_setup(dtype=np.float32)
    sampled[0] = labels[0, 0]  # row 0's label is also sampled
    args = dict(num_sampled=6, num_classes=30, sampled_values=(sampled, tc, sc))
    kept = fn(w, b, labels, x, remove_accidental_hits=False, **args).numpy()
    removed = fn(w, b, labels, x, remove_accidental_hits=True, **args).numpy()
    assert np.all(np.isfinite(removed))
    np.testing.assert_allclose(kept[1:], removed[1:], rtol=1e-6)  # only row 0 changes
    assert kept[0] != removed[0]
    # removing the hit equals never having sampled that column for row 0
    rest = (sampled[1:], tc[:1], sc[1:])
    alone = fn(w, b, labels[:1], x[:1], num_sampled=5, num_classes=30, sampled_values=rest)
    np.testing.assert_allclose(removed[0], alone.numpy()[0], rtol=1e-5)
    # the masked column gets no gradient and nothing is nan
    wv = ks.Variable(w)
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(fn(wv, b, labels, x, remove_accidental_hits=True, **args))
    grad = ks.convert_to_tensor(tape.gradient(loss, wv)).numpy()
    assert np.all(np.isfinite(grad))


@pytest.mark.parametrize("kind", sorted(SAMPLED))
def test_sampled_losses_shape_and_seeded_reproducibility(kind):
    fn, _ = SAMPLED[kind]
    w, b, labels, x, *_ = sampled_setup(batch=8, num_classes=30, dtype=np.float32)
    runs = []
    for op_seed in (3, 3, 4):
        ks.random.set_seed(5)  # as in TF: the global seed fixes the stream of a seeded op
        runs.append(fn(w, b, labels, x, num_sampled=10, num_classes=30, seed=op_seed).numpy())
    first, again, other = runs
    assert first.shape == (8,) and first.dtype == np.float32
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    # without a reset, the seeded stream moves on (TF's eager behaviour)
    moved = fn(w, b, labels, x, num_sampled=10, num_classes=30, seed=4).numpy()
    assert not np.array_equal(moved, other)
    ks.random.set_seed(11)
    a = fn(w, b, labels[:, 0], x, num_sampled=10, num_classes=30).numpy()  # (batch,) labels
    ks.random.set_seed(11)
    c = fn(w, b, labels, x, num_sampled=10, num_classes=30).numpy()
    assert np.array_equal(a, c)


@pytest.mark.cpu
@pytest.mark.parametrize("kind", sorted(SAMPLED))
def test_sampled_losses_sparse_gradient_and_check(kind):
    fn, _ = SAMPLED[kind]
    w, b, labels, x, sampled, tc, sc = sampled_setup(num_true=2)
    values = (sampled, tc, sc)
    wv, bv = ks.Variable(w), ks.Variable(b)
    with ks.GradientTape() as tape:
        loss = ks.reduce_mean(fn(wv, bv, labels, x, 6, 30, num_true=2, sampled_values=values))
    gw, gb = tape.gradient(loss, [wv, bv])
    assert isinstance(gw, ks.IndexedSlices) and isinstance(gb, ks.IndexedSlices)
    assert gw.dense_shape == (30, 4)
    np.testing.assert_array_equal(
        np.asarray(gw.indices), np.concatenate([labels.reshape(-1), sampled])
    )
    check_gradients(
        lambda w_, b_, x_: fn(
            w_,
            b_,
            labels,
            x_,
            6,
            30,
            num_true=2,
            sampled_values=values,
            remove_accidental_hits=True,
        ),
        [w, b, x],
        order=2,
    )


def test_sampled_losses_errors():
    w, b, labels, x, *_ = sampled_setup(num_classes=50, dtype=np.float32)
    bad = labels.copy()
    bad[2, 0] = 3081
    with pytest.raises(ks.InvalidArgumentError) as err:
        ks.nn.nce_loss(w, b, bad, x, num_sampled=5, num_classes=50)
    assert "embedding_lookup: indices[2] = 3081 is not in [0, 50)" in str(err.value)
    assert "nce_loss" in str(err.value)
    # the seeds' bug: a weight matrix with 128 rows for a 50000-word vocabulary
    w128 = RNG.standard_normal((128, 4)).astype(np.float32)
    bad[0, 0] = 3081
    with pytest.raises(
        ks.InvalidArgumentError, match=r"embedding_lookup: indices\[0\] = 3081 is not in \[0, 128\)"
    ):
        ks.nn.sampled_softmax_loss(w128, np.zeros(128, np.float32), bad, x, 5, 50000)
    with pytest.raises(ks.InvalidArgumentError, match="a transposed .* is a common cause"):
        ks.nn.nce_loss(w.T, b, labels, x, 5, 50)
    with pytest.raises(
        ks.InvalidArgumentError, match=r"labels must have shape \(batch, num_true\) = \(5, 2\)"
    ):
        ks.nn.nce_loss(w, b, labels, x, 5, 50, num_true=2)
    with pytest.raises(ks.InvalidArgumentError, match="labels must be integer class ids"):
        ks.nn.nce_loss(w, b, labels.astype(np.float32), x, 5, 50)


# ---------------------------------------------------------------- log-uniform sampler


def log_uniform_p(k, range_max):
    return (np.log(k + 2.0) - np.log(k + 1.0)) / np.log(range_max + 1.0)


def test_sampler_expected_counts_follow_tf_formulas():
    true = np.array([[0, 5], [17, 99]])
    sampled, tc, sc = ks.random.log_uniform_candidate_sampler(
        true, num_true=2, num_sampled=40, unique=True, range_max=100, seed=5
    )
    s = sampled.numpy()
    assert s.dtype == np.int64 and s.shape == (40,) and tc.shape == (2, 2) and sc.shape == (40,)
    assert len(set(s.tolist())) == 40 and s.min() >= 0 and s.max() < 100
    # unique=True: E = 1 - (1 - p)^num_tries for one num_tries shared by all entries
    p_s, p_t = log_uniform_p(s, 100), log_uniform_p(true, 100)
    tries = np.log1p(-sc.numpy().astype(np.float64)) / np.log1p(-p_s)
    num_tries = round(float(np.median(tries)))
    assert num_tries > 40  # with 40 distinct of 100 Zipfian classes, repeats are rejected
    close(sc.numpy(), -np.expm1(num_tries * np.log1p(-p_s)), tol=1e-6)
    close(tc.numpy(), -np.expm1(num_tries * np.log1p(-p_t)), tol=1e-6)
    # unique=False: E = p * num_sampled
    s2, tc2, sc2 = ks.random.log_uniform_candidate_sampler(
        true, 2, 40, unique=False, range_max=100, seed=5
    )
    close(sc2.numpy(), log_uniform_p(s2.numpy(), 100) * 40, tol=1e-6)
    close(tc2.numpy(), p_t * 40, tol=1e-6)
    # reproducible from the global seed and the op seed
    ks.random.set_seed(1234)  # the value the test fixture set
    again = ks.random.log_uniform_candidate_sampler(true, 2, 40, True, 100, seed=5)
    assert np.array_equal(again[0].numpy(), s)
    assert np.array_equal(again[2].numpy(), sc.numpy())


def test_sampler_frequencies_are_zipfian():
    range_max, n = 10, 200_000
    s, _, _ = ks.random.log_uniform_candidate_sampler(
        [[0]], 1, n, unique=False, range_max=range_max, seed=1
    )
    freq = np.bincount(s.numpy(), minlength=range_max) / n
    p = log_uniform_p(np.arange(range_max), range_max)
    assert p.sum() == pytest.approx(1.0)
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / n))  # 4 standard errors
    assert np.all(np.diff(freq) < 0)  # decreasing with the class id


def test_sampler_errors():
    with pytest.raises(ks.InvalidArgumentError, match="cannot draw num_sampled=11 distinct"):
        ks.random.log_uniform_candidate_sampler([[0]], 1, 11, True, 10)
    with pytest.raises(ks.InvalidArgumentError, match=r"shape \(batch, num_true\) = \(batch, 2\)"):
        ks.random.log_uniform_candidate_sampler([[0]], 2, 3, True, 10)
    s, _, _ = ks.random.log_uniform_candidate_sampler([[0]], 1, 10, True, 10, seed=2)
    assert sorted(s.numpy().tolist()) == list(range(10))  # everything, each once


LOSS_FUNCTIONS = ["mean_squared_error", "mean_absolute_error", "huber", "binary_crossentropy",
                  "categorical_crossentropy", "sparse_categorical_crossentropy",
                  "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "log_cosh",
                  "kl_divergence", "poisson", "cosine_similarity", "hinge", "squared_hinge",
                  "categorical_hinge", "binary_focal_crossentropy",
                  "categorical_focal_crossentropy"]


@pytest.mark.parametrize("name", LOSS_FUNCTIONS)
def test_loss_functions_work_on_symbolic_tensors_of_unknown_batch_size(name, tmp_path):
    fn = getattr(ks.losses, name)
    sparse = name.startswith("sparse")
    y_true = ks.Input((), dtype="int32") if sparse else ks.Input((3,))
    y_pred = ks.Input((3,))
    model = ks.Model([y_true, y_pred], fn(y_true, y_pred))
    assert model.output.shape == (None,)
    rng = np.random.default_rng(0)
    t = rng.integers(0, 3, 4).astype(np.int32) if sparse else rng.random((4, 3), np.float32)
    p = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    expected = fn(t, p).numpy()
    np.testing.assert_allclose(model([t, p]).numpy(), expected, rtol=1e-6)
    model.save(tmp_path / "loss.keras")  # the node names the function; loading finds it again
    loaded = ks.models.load_model(tmp_path / "loss.keras")
    np.testing.assert_allclose(loaded([t, p]).numpy(), expected, rtol=1e-6)
