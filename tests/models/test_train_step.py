"""Keras 3 training steps: train_step(data), compute_loss, metrics, and the porting defects."""

import warnings

import numpy as np
import pytest

import kerasish as ks


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def _regression_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
    return x, y


# -- overridden steps are what runs --------------------------------------------------------


class _CountingModel(ks.Model):
    """Its own train_step/test_step and `metrics` property, in the Keras guide's style."""

    def __init__(self):
        super().__init__()
        self.dense = ks.layers.Dense(1)
        self.loss_tracker = ks.metrics.Mean(name="loss")
        self.mae_metric = ks.metrics.MeanAbsoluteError(name="mae")
        self.steps_run = {"train": 0, "test": 0}

    def call(self, inputs):
        return self.dense(inputs)

    def train_step(self, data):
        x, y, _ = ks.utils.unpack_x_y_sample_weight(data)
        self.steps_run["train"] += 1
        with ks.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = ks.reduce_mean(ks.square(y - y_pred))
        variables = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        self.steps_run["test"] += 1
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(ks.reduce_mean(ks.square(y - y_pred)))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_fit_and_evaluate_run_the_overridden_steps_and_reset_the_metrics_property():
    x, y = _regression_data(64)
    model = _CountingModel()
    # no loss: the step computes it; eagerly, so that the Python counters count every step
    model.compile(optimizer=ks.optimizers.SGD(0.05), run_eagerly=True)
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    assert model.steps_run["train"] == 12
    losses = history.history["loss"]
    assert all(v > 0 for v in losses) and losses[-1] < losses[0]
    assert history.history["mae"][-1] < history.history["mae"][0]
    # reset at each epoch: the last epoch's mean is over its own 4 batches only
    assert float(model.loss_tracker.count) == 4
    result = model.evaluate(x, y, batch_size=32, return_dict=True)
    assert model.steps_run["test"] == 2
    assert set(result) == {"loss", "mae"} and result["loss"] > 0


def test_validation_uses_the_overridden_test_step():
    x, y = _regression_data(64)
    model = _CountingModel()
    model.compile("sgd")
    history = model.fit(x, y, batch_size=16, epochs=1, verbose=0, validation_split=0.25)
    assert model.steps_run["test"] == 1
    assert set(history.history) == {"loss", "mae", "val_loss", "val_mae"}


def test_a_step_returning_other_names_gives_those_logs():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            logs = super().train_step(data)
            return {"custom": ks.constant(2.0) * logs["loss"]}

    x, y = _regression_data(32)
    model = Model()
    model.compile("sgd", "mse")
    history = model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert list(history.history) == ["custom"]
    assert isinstance(history.history["custom"][0], float)


def test_old_step_signature_still_runs_with_a_deprecation_warning():
    class OldStyle(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(1)
            self.calls = 0

        def call(self, x):
            return self.dense(x)

        def train_step(self, x, y, sample_weight=None):
            self.calls += 1
            assert isinstance(x, ks.Tensor) and isinstance(y, ks.Tensor)
            return super().train_step((x, y, sample_weight))

    x, y = _regression_data(32)
    model = OldStyle()
    model.compile("sgd", "mse")
    with pytest.warns(DeprecationWarning, match=r"train_step\(self, data\).*unpack_x_y_sample"):
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert model.calls == 2


# -- compute_loss, compile without a loss, add_loss -------------------------------------------


class _ActivityPenalty(ks.layers.Layer):
    def call(self, inputs):
        self.add_loss(0.01 * ks.reduce_sum(ks.square(inputs)))
        return inputs


def test_compile_without_a_loss_trains_on_add_loss_terms():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(3)
            self.penalty = _ActivityPenalty()

        def call(self, x):
            return self.penalty(self.dense(x))

    x, _ = _regression_data(32)
    model = Model()
    model.compile(optimizer=ks.optimizers.SGD(0.1))
    history = model.fit(x, epochs=3, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_fit_without_any_loss_says_what_to_do():
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("adam")
    x, y = _regression_data(8)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"no loss to minimize: compile\(\) was given no loss.*add_loss"):
        model.fit(x, y, verbose=0)


def test_compiled_loss_without_targets_is_a_clear_error():
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("adam", "mse")
    x, _ = _regression_data(8)
    with pytest.raises(ks.InvalidArgumentError, match="the compiled loss needs targets y"):
        model.fit(x, verbose=0)


def test_compute_loss_adds_the_losses_of_this_call_only():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(2, kernel_regularizer=ks.regularizers.L2(0.1))
            self.penalty = _ActivityPenalty()

        def call(self, x):
            return self.penalty(self.dense(x))

    model = Model()
    model.compile("sgd", "mse")
    x, _ = _regression_data(4)
    y = np.zeros((4, 2), np.float32)
    for _ in range(3):
        y_pred = model(x)
    assert len(model.losses) == 2  # the kernel's regularization and one add_loss term
    total = model.compute_loss(x=x, y=y, y_pred=y_pred)
    expected = ks.losses.MeanSquaredError()(y, y_pred) + ks.add_n(model.losses)
    np.testing.assert_allclose(total.numpy(), expected.numpy(), rtol=1e-6)


def test_add_loss_terms_are_reset_at_the_next_outermost_call():
    inner = _ActivityPenalty()
    outer = ks.Sequential([ks.layers.Dense(2), inner, _ActivityPenalty()])
    x = np.ones((2, 3), np.float32)
    for _ in range(100):
        outer(x)
    assert len(outer.losses) == 2  # one term per penalty layer, not 200
    inner(x)  # an outermost call of the inner layer resets its own terms only
    assert len(inner.losses) == 1 and len(outer.losses) == 2
    # a custom loop sums only this step's terms
    total = 0.0
    for _ in range(5):
        outer(x)
        total = float(ks.add_n(outer.losses))
    outer(x)
    assert float(ks.add_n(outer.losses)) == pytest.approx(total)


def test_add_loss_after_an_exception_in_call_keeps_the_depth_right():
    class Failing(ks.layers.Layer):
        def call(self, inputs):
            self.add_loss(ks.constant(1.0))
            raise ks.InvalidArgumentError("boom")

    layer = Failing()
    with pytest.raises(ks.InvalidArgumentError, match="boom"):
        layer(np.ones((1, 1), np.float32))
    penalty = _ActivityPenalty()
    penalty(np.ones((1, 1), np.float32))
    penalty(np.ones((1, 1), np.float32))
    assert len(penalty.losses) == 1  # it was an outermost call: depth went back to 0


# -- build, names, predict -------------------------------------------------------------------


def test_explicit_build_marks_the_layer_built():
    layer = ks.layers.Dense(3)
    layer.build((None, 4))
    assert layer.built and len(layer.weights) == 2
    layer(np.ones((2, 4), np.float32))
    assert len(layer.weights) == 2

    class Custom(ks.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", (input_shape[-1],))

        def call(self, inputs):
            return inputs * self.w

    custom = Custom()
    custom.build((None, 5))
    assert custom.built
    custom(np.ones((1, 5), np.float32))
    assert len(custom.weights) == 1


def test_default_layer_names_follow_keras():
    assert ks.layers.Conv2D(2, 3).name == "conv2d"
    assert ks.layers.MaxPooling2D().name == "max_pooling2d"
    assert ks.layers.BatchNormalization().name == "batch_normalization"
    assert ks.layers.Conv2D(2, 3).name == "conv2d_1"
    from kerasish.core.naming import snake_case

    assert snake_case("Conv1D") == "conv1d"
    assert snake_case("Conv2DTranspose") == "conv2d_transpose"
    assert snake_case("GlobalAveragePooling2D") == "global_average_pooling2d"
    assert snake_case("LSTMCell") == "lstm_cell"


class _TwoHeads(ks.Model):
    """Returns a dict or a list of two outputs."""

    def __init__(self, as_dict=True):
        super().__init__()
        self.as_dict = as_dict
        self.trunk = ks.layers.Dense(8, activation="relu")
        self.score = ks.layers.Dense(1)
        self.label = ks.layers.Dense(3)

    def call(self, x):
        h = self.trunk(x)
        if self.as_dict:
            return {"score": self.score(h), "label": self.label(h)}
        return [self.score(h), self.label(h)]


@pytest.mark.parametrize("as_dict", [True, False])
def test_predict_returns_the_output_structure(as_dict):
    model = _TwoHeads(as_dict)
    x, _ = _regression_data(10)
    out = model.predict(x, batch_size=4)
    if as_dict:
        assert set(out) == {"score", "label"}
        assert out["score"].shape == (10, 1) and out["label"].shape == (10, 3)
        np.testing.assert_allclose(out["label"], model(x)["label"].numpy(), rtol=1e-6)
    else:
        assert isinstance(out, list) and [o.shape for o in out] == [(10, 1), (10, 3)]


def test_predict_step_can_be_overridden():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

        def predict_step(self, data):
            return ks.nn.softmax(super().predict_step(data))

    x, _ = _regression_data(6)
    np.testing.assert_allclose(Model().predict(x).sum(axis=1), np.ones(6), rtol=1e-6)


# -- multi-output compile ----------------------------------------------------------------------


def _two_head_targets(x):
    score = x[:, :1] * 2.0
    label = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64)
    return score, label


@pytest.mark.parametrize("as_dict", [True, False])
def test_multi_output_losses_metrics_and_log_names(as_dict):
    ks.random.set_seed(1)
    x, _ = _regression_data(128)
    score, label = _two_head_targets(x)
    model = _TwoHeads(as_dict)
    names = ("score", "label") if as_dict else ("output_1", "output_2")
    y = dict(zip(names, (score, label))) if as_dict else [score, label]
    model.compile(
        optimizer=ks.optimizers.Adam(0.02),
        loss={names[0]: "mse",
              names[1]: ks.losses.SparseCategoricalCrossentropy(from_logits=True)},
        loss_weights={names[0]: 0.5, names[1]: 2.0},
        metrics={names[0]: ["mae"], names[1]: ["accuracy"]},
    )
    history = model.fit(x, y, batch_size=32, epochs=6, verbose=0)
    logs = history.history
    assert set(logs) == {"loss", f"{names[0]}_loss", f"{names[1]}_loss",
                         f"{names[0]}_mae", f"{names[1]}_accuracy"}
    assert logs["loss"][-1] < logs["loss"][0]
    # the total is the weighted sum of the per-output (unweighted) losses
    result = model.evaluate(x, y, batch_size=128, return_dict=True)
    assert result["loss"] == pytest.approx(
        0.5 * result[f"{names[0]}_loss"] + 2.0 * result[f"{names[1]}_loss"], rel=1e-5)
    metric_types = {m.name: type(m.metric).__name__ for m in model.metrics[3:]}
    assert metric_types[f"{names[1]}_accuracy"] == "SparseCategoricalAccuracy"
    # evaluate's list in Keras's order: loss, each output's loss in output order, then the
    # per-output metrics sorted by name
    order = ["loss", f"{names[0]}_loss", f"{names[1]}_loss",
             *sorted([f"{names[0]}_mae", f"{names[1]}_accuracy"])]
    assert model.evaluate(x, y, batch_size=128) == [result[key] for key in order]


def test_multi_output_one_loss_for_all_and_list_targets():
    x, _ = _regression_data(32)
    score, _ = _two_head_targets(x)
    model = _TwoHeads(as_dict=False)
    model.compile("sgd", loss="mse", metrics=[["mae"], None])
    history = model.fit(x, [score, np.zeros((32, 3), np.float32)], epochs=1, verbose=0)
    assert set(history.history) == {"loss", "output_1_loss", "output_2_loss", "output_1_mae"}


def test_multi_output_errors_name_the_outputs():
    x, _ = _regression_data(8)
    score, label = _two_head_targets(x)
    model = _TwoHeads()
    model.compile("sgd", loss={"scores": "mse"})
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"key\(s\) \['scores'\] name no output.*\['score', 'label'\]"):
        model.fit(x, {"score": score, "label": label}, verbose=0)
    model.compile("sgd", loss=["mse", "mse", "mse"])
    with pytest.raises(ks.InvalidArgumentError, match="a list of 3 entries for a model with 2"):
        model.fit(x, {"score": score, "label": label}, verbose=0)
    model.compile("sgd", loss="mse")
    with pytest.raises(ks.InvalidArgumentError, match="for output 'label'"):
        model.fit(x, {"score": score}, verbose=0)
    with pytest.raises(ks.InvalidArgumentError, match=r"compile\(metrics=\.\.\.\) takes a list"):
        model.compile("sgd", "mse", metrics="mae")


def test_dict_inputs_and_dict_targets():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.a = ks.layers.Dense(1)
            self.b = ks.layers.Dense(1)

        def call(self, inputs):
            return {"sum": self.a(inputs["left"]) + self.b(inputs["right"])}

    x, y = _regression_data(64)
    model = Model()
    model.compile(ks.optimizers.Adam(0.05), loss={"sum": "mse"})
    history = model.fit({"left": x[:, :2], "right": x[:, 2:]}, {"sum": y}, batch_size=16,
                        epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert set(history.history) == {"loss"}


def test_metrics_ignore_and_weighted_metrics_use_sample_weights():
    model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="zeros")])
    model.compile("sgd", "mse", metrics=["mae"], weighted_metrics=["mae"])
    x = np.ones((4, 2), np.float32)
    y = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    weights = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    result = model.evaluate(x, y, sample_weight=weights, return_dict=True)
    assert result["mae"] == pytest.approx(2.5)
    assert result["weighted_mae"] == pytest.approx(1.0)
    assert model.metrics_names == ["loss", "mae", "weighted_mae"]


def test_per_output_sample_weights_and_class_weight_with_several_outputs():
    x, _ = _regression_data(16)
    score, label = _two_head_targets(x)
    model = _TwoHeads()
    model.compile("sgd", loss={"score": "mse", "label": ks.losses.SparseCategoricalCrossentropy(
        from_logits=True)}, weighted_metrics={"score": ["mae"]})
    y = {"score": score, "label": label}
    zero = {"score": np.zeros(16, np.float32), "label": np.ones(16, np.float32)}
    result = model.evaluate(x, y, sample_weight=zero, return_dict=True)
    assert result["score_loss"] == 0.0 and result["score_mae"] == 0.0
    assert result["label_loss"] > 0 and result["loss"] == pytest.approx(result["label_loss"])
    with pytest.raises(ks.InvalidArgumentError, match="class_weight needs one target array"):
        model.fit(x, y, class_weight={0: 1.0}, verbose=0)


def test_functional_model_with_named_inputs_and_outputs_trains_by_name():
    left, right = ks.Input((2,), name="left"), ks.Input((2,), name="right")
    merged = ks.ops.concatenate([left, right], axis=1)
    hidden = ks.layers.Dense(8, activation="relu")(merged)
    score = ks.layers.Dense(1, name="score")(hidden)
    label = ks.layers.Dense(3, name="label")(hidden)
    model = ks.Model({"left": left, "right": right}, [score, label])
    assert model.output_names == ["score", "label"]
    model.compile(ks.optimizers.Adam(0.02),
                  loss={"score": "mse",
                        "label": ks.losses.SparseCategoricalCrossentropy(from_logits=True)},
                  loss_weights={"label": 0.5, "score": 1.0},
                  metrics={"label": ["accuracy"]})
    x, _ = _regression_data(96)
    score_y, label_y = _two_head_targets(x)
    inputs = {"left": x[:, :2], "right": x[:, 2:]}
    history = model.fit(inputs, {"score": score_y, "label": label_y}, batch_size=32, epochs=5,
                        verbose=0)
    assert set(history.history) == {"loss", "score_loss", "label_loss", "label_accuracy"}
    assert history.history["loss"][-1] < history.history["loss"][0]
    out = model.predict(inputs)
    assert isinstance(out, list) and [o.shape for o in out] == [(96, 1), (96, 3)]
    # targets given as a list follow the outputs' order
    result = model.evaluate(inputs, [score_y, label_y], return_dict=True)
    assert result["loss"] == pytest.approx(result["score_loss"] + 0.5 * result["label_loss"],
                                           rel=1e-5)


def test_a_new_form_step_with_an_optional_argument_is_not_taken_for_the_old_form():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data, scale=1.0):
            logs = super().train_step(data)
            return {"scaled": scale * logs["loss"]}

    x, y = _regression_data(16)
    model = Model()
    model.compile("sgd", "mse")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        history = model.fit(x, y, batch_size=16, verbose=0)
    assert list(history.history) == ["scaled"]


def test_an_overridden_compute_loss_is_used_by_fit_and_evaluate():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):  # no training
            return ks.ops.mean(ks.ops.abs(y_pred - y)) + ks.ops.sum(self.losses)

    x, y = _regression_data(64)
    model = Model()
    model.compile(ks.optimizers.SGD(0.05))
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    mae = float(np.mean(np.abs(model.predict(x) - y)))
    assert model.evaluate(x, y, batch_size=64) == pytest.approx(mae, rel=1e-5)


def test_on_batch_methods_run_the_steps_and_accumulate_metrics():
    x, y = _regression_data(32)
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(0.05), "mse", metrics=["mae"])
    first = model.train_on_batch(x[:16], y[:16])
    assert isinstance(first, list) and len(first) == 2
    logs = model.train_on_batch(x[16:], y[16:], return_dict=True)
    assert float(model.metrics[0].count) == 32  # both batches of 16, as in Keras
    assert set(logs) == {"loss", "mae"}
    assert int(model.optimizer.iterations.numpy()) == 2
    model.reset_metrics()
    loss, mae = model.test_on_batch(x, y)
    assert (loss, mae) == tuple(model.evaluate(x, y, batch_size=32))
    np.testing.assert_allclose(model.predict_on_batch(x), model.predict(x), rtol=1e-6)
    heads = _TwoHeads()
    out = heads.predict_on_batch(x)
    assert set(out) == {"score", "label"} and out["label"].shape == (32, 3)
    with pytest.raises(RuntimeError, match=r"before train_on_batch\(\)"):
        _TwoHeads().train_on_batch(x, y)


def test_dict_targets_for_an_unnamed_single_output_say_so():
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = _regression_data(8)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"key\(s\) \['out'\] name no output .* one output without a name"):
        model.fit(x, {"out": y}, verbose=0)
