"""Keras 3's other optimizers (Nadam, Adamax, Adadelta, Ftrl, Lion, Lamb, Adafactor,
LossScaleOptimizer): their first steps against NumPy references of Keras's formulas
(float64), configs, names, compiled steps, sparse gradients, saved state, and Keras itself.

The comparison with Keras is skipped without it; run it with a Python that has Keras 3
installed (the NumPy backend needs no TensorFlow):
    KERAS_BACKEND=numpy python -m pytest tests/optimizers/test_optimizer_formulas.py
"""

import math

import numpy as np
import pytest

import kerasish as ks
from kerasish import optimizers
from kerasish.optimizers import (
    Adadelta,
    Adafactor,
    Adamax,
    Ftrl,
    Lamb,
    Lion,
    LossScaleOptimizer,
    Nadam,
)

# -- NumPy references of Keras 3's formulas (float64) -----------------------------------------


def ref_nadam(p, grads, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    m, v, u_product = np.zeros_like(p), np.zeros_like(p), 1.0
    for t, g in enumerate(grads, start=1):
        u_t = beta_1 * (1 - 0.5 * 0.96**t)
        u_t1 = beta_1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product *= u_t
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - beta_2**t)
        p = p - m_hat * learning_rate / (np.sqrt(v_hat) + epsilon)
    return p, {"momentum": m, "velocity": v}


def ref_adamax(p, grads, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    m, u = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        m = m + (g - m) * (1 - beta_1)
        u = np.maximum(beta_2 * u, np.abs(g))
        p = p - learning_rate * m / ((1 - beta_1**t) * (u + epsilon))
    return p, {"momentum": m, "norm": u}


def ref_adadelta(p, grads, learning_rate=0.001, rho=0.95, epsilon=1e-7):
    acc_g, acc_d = np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        acc_g = rho * acc_g + (1 - rho) * g * g
        delta = -np.sqrt(acc_d + epsilon) * g / np.sqrt(acc_g + epsilon)
        acc_d = rho * acc_d + (1 - rho) * delta * delta
        p = p + learning_rate * delta
    return p, {"accumulated_grad": acc_g, "accumulated_delta_var": acc_d}


def ref_ftrl(p, grads, learning_rate=0.001, learning_rate_power=-0.5,
             initial_accumulator_value=0.1, l1_regularization_strength=0.0,
             l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0, beta=0.0):
    acc, linear = np.full_like(p, initial_accumulator_value), np.zeros_like(p)
    lr, power, l1 = learning_rate, -learning_rate_power, l1_regularization_strength
    l2 = l2_regularization_strength + beta / (2 * lr)
    for g in grads:
        shrunk = g + 2 * l2_shrinkage_regularization_strength * p
        new_acc = acc + g * g
        linear = linear + shrunk - (new_acc**power - acc**power) / lr * p
        quadratic = new_acc**power / lr + 2 * l2
        p = np.where(np.abs(linear) <= l1, 0.0, (np.sign(linear) * l1 - linear) / quadratic)
        acc = new_acc
    return p, {"accumulator": acc, "linear": linear}


def ref_lion(p, grads, learning_rate=0.001, beta_1=0.9, beta_2=0.99):
    m = np.zeros_like(p)
    for g in grads:
        p = p - learning_rate * np.sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g
    return p, {"momentum": m}


def ref_lamb(p, grads, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    m, v = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        update = (m / (1 - beta_1**t)) / (np.sqrt(v / (1 - beta_2**t)) + epsilon)
        w_norm, u_norm = np.linalg.norm(p), np.linalg.norm(update)
        ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
        p = p - ratio * learning_rate * update
    return p, {"momentum": m, "velocity": v}


def ref_adafactor(p, grads, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
                  epsilon_2=1e-3, clip_threshold=1.0):
    factored = p.ndim >= 2
    r = np.zeros(p.shape[:-1] if factored else ())
    c = np.zeros(p.shape[:-2] + p.shape[-1:] if factored else ())
    v = np.zeros_like(p)
    rms = lambda x: np.sqrt(np.mean(x * x))  # noqa: E731
    for t, g in enumerate(grads, start=1):
        alpha = max(epsilon_2, rms(p)) * min(learning_rate, 1 / math.sqrt(t))
        g2 = g * g + epsilon_1
        b = 1 - t**beta_2_decay
        if factored:
            r = b * r + (1 - b) * g2.mean(-1)
            c = b * c + (1 - b) * g2.mean(-2)
            v = np.expand_dims(r / r.mean(-1, keepdims=True), -1) * np.expand_dims(c, -2)
        else:
            v = b * v + (1 - b) * g2
        u = g / np.sqrt(v)
        p = p - alpha * u / max(1.0, rms(u) / clip_threshold)
    return p, {"r": r, "c": c, "velocity": v}


CASES = {
    "nadam": (Nadam, ref_nadam, dict(learning_rate=0.01)),
    "nadam_betas": (Nadam, ref_nadam, dict(learning_rate=0.02, beta_1=0.8, beta_2=0.99)),
    "adamax": (Adamax, ref_adamax, dict(learning_rate=0.01)),
    "adadelta": (Adadelta, ref_adadelta, dict(learning_rate=1.0)),
    "ftrl": (Ftrl, ref_ftrl, dict(learning_rate=0.1)),
    "ftrl_regularized": (Ftrl, ref_ftrl, dict(
        learning_rate=0.1, learning_rate_power=-0.7, l1_regularization_strength=0.05,
        l2_regularization_strength=0.1, l2_shrinkage_regularization_strength=0.02, beta=0.5)),
    "lion": (Lion, ref_lion, dict(learning_rate=0.01)),
    "lamb": (Lamb, ref_lamb, dict(learning_rate=0.01)),
    "adafactor": (Adafactor, ref_adafactor, dict(learning_rate=0.1)),
    "adafactor_clipped": (Adafactor, ref_adafactor, dict(learning_rate=0.5, clip_threshold=0.5,
                                                         beta_2_decay=-0.5)),
}
SHAPES = [(3, 4), (5,), (2, 3, 4)]


def _gradients(shape, steps, seed=0):
    rng = np.random.default_rng(seed)
    # scales that vary, so that maxima, signs and clipping change between steps
    return [rng.normal(size=shape) * (2.0 if k % 2 else 0.5) for k in range(steps)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_first_steps_match_numpy_reference_of_keras_formulas(case, shape):
    cls, ref, kwargs = CASES[case]
    p0 = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    grads = [g.astype(np.float32) for g in _gradients(shape, 5)]
    var = ks.Variable(p0, name="w")
    opt = cls(**kwargs)
    for g in grads:
        opt.apply_gradients([(ks.constant(g), var)])
    expected, expected_slots = ref(p0.astype(np.float64), [g.astype(np.float64) for g in grads],
                                   **kwargs)
    assert not np.allclose(expected, p0, rtol=1e-3)  # the case moves the weights
    np.testing.assert_allclose(var.numpy(), expected, rtol=2e-5, atol=2e-6)
    assert opt.get_slot_names() == list(expected_slots)
    for name, value in expected_slots.items():
        np.testing.assert_allclose(opt.get_slot(var, name).numpy(), value, rtol=2e-5, atol=1e-6,
                                   err_msg=name)
    assert int(opt.iterations) == len(grads)


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_round_trip_and_compile_by_name(case):
    cls, _, kwargs = CASES[case]
    opt = cls(**kwargs)
    config = opt.get_config()
    assert config["name"] == cls.__name__.lower()
    assert cls.from_config(config).get_config() == config
    again = optimizers.deserialize(optimizers.serialize(opt))
    assert type(again) is cls and again.get_config() == config
    assert type(optimizers.get(cls.__name__.upper())) is cls
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
    model.compile(cls.__name__.lower(), "mse")
    assert type(model.optimizer) is cls
    loss = model.fit(np.ones((8, 3)), np.zeros((8, 2)), epochs=2, verbose=0).history["loss"]
    assert loss[1] < loss[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_steps_equal_eager_steps_bit_for_bit(case):
    cls, _, kwargs = CASES[case]
    p0 = np.random.default_rng(2).normal(size=(3, 4)).astype(np.float32)
    grads = [g.astype(np.float32) for g in _gradients((3, 4), 4, seed=3)]
    results = []
    for compiled in (False, True):
        var = ks.Variable(p0, name="w")
        opt = cls(**kwargs)

        def step(grad, opt=opt, var=var):
            opt.apply_gradients([(grad, var)])

        run = ks.function(step) if compiled else step
        for g in grads:
            run(ks.constant(g))
        results.append([var.numpy()] + [opt.get_slot(var, n).numpy()
                                        for n in opt.get_slot_names()])
        if compiled:  # the replay runs the update without apply_gradients's checks
            assert opt.replay_plan([var]) is not None
    for eager, compiled in zip(*results):
        assert eager.tobytes() == compiled.tobytes()


@pytest.mark.parametrize("cls", [Nadam, Adamax, Adadelta, Ftrl, Lion])
def test_sparse_gradients_update_only_the_touched_rows(cls):
    p0 = np.random.default_rng(4).normal(size=(5, 3)).astype(np.float32)
    values = np.random.default_rng(5).normal(size=(2, 3)).astype(np.float32)
    sparse_var, dense_var = ks.Variable(p0), ks.Variable(p0[[1, 3]])
    sparse_opt, dense_opt = cls(learning_rate=0.1), cls(learning_rate=0.1)
    for _ in range(3):
        grad = ks.IndexedSlices(ks.constant(values), ks.constant([3, 1]), (5, 3))
        sparse_opt.apply_gradients([(grad, sparse_var)])
        dense_opt.apply_gradients([(ks.constant(values[::-1]), dense_var)])
    # rows 1 and 3 as if they were the variable; the others untouched, slots included
    np.testing.assert_allclose(sparse_var.numpy()[[1, 3]], dense_var.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(sparse_var.numpy()[[0, 2, 4]], p0[[0, 2, 4]])
    for name in sparse_opt.get_slot_names():
        slot = sparse_opt.get_slot(sparse_var, name).numpy()
        initial = sparse_opt._slot_initial_values[id(sparse_var)][name]
        np.testing.assert_array_equal(slot[[0, 2, 4]], np.float32(initial))


@pytest.mark.parametrize("cls", [Lamb, Adafactor])
def test_sparse_gradients_of_whole_variable_rules_are_applied_densely(cls):
    p0 = np.random.default_rng(4).normal(size=(5, 3)).astype(np.float32)
    values = np.random.default_rng(5).normal(size=(2, 3)).astype(np.float32)
    dense = np.zeros((5, 3), np.float32)
    dense[[3, 1]] = values
    sparse_var, dense_var, rows_var = ks.Variable(p0), ks.Variable(p0), ks.Variable(p0[[1, 3]])
    sparse_opt, dense_opt, rows_opt = (cls(learning_rate=0.1) for _ in range(3))
    for _ in range(2):
        grad = ks.IndexedSlices(ks.constant(values), ks.constant([3, 1]), (5, 3))
        sparse_opt.apply_gradients([(grad, sparse_var)])
        dense_opt.apply_gradients([(ks.constant(dense), dense_var)])
        rows_opt.apply_gradients([(ks.constant(values[::-1]), rows_var)])
    assert sparse_var.numpy().tobytes() == dense_var.numpy().tobytes()
    # the norms are the whole variable's: the rule run on the touched rows alone differs
    assert not np.allclose(sparse_var.numpy()[[1, 3]], rows_var.numpy(), rtol=1e-4)


def test_adafactor_slots_are_factored_and_keras_placeholders_for_vectors():
    matrix, vector = ks.Variable(np.ones((2, 3, 4), np.float32)), ks.Variable(np.ones(4))
    opt = Adafactor()
    opt.build([matrix, vector])
    shapes = [(opt.get_slot(v, n).shape) for v in (matrix, vector) for n in ("r", "c", "velocity")]
    assert shapes == [(2, 3), (2, 4), (2, 3, 4), (), (), (4,)]


@pytest.mark.parametrize("args, message", [
    ((Lion, {"beta_1": 0.0}), "beta_1 must be in"),
    ((Nadam, {"beta_2": 1.0}), "beta_2 must be in"),
    ((Ftrl, {"learning_rate_power": 0.5}), "learning_rate_power must be <= 0"),
    ((Ftrl, {"l1_regularization_strength": -1}), "l1_regularization_strength must be >= 0"),
    ((Adadelta, {"rho": 1.5}), "rho must be in"),
    ((Adafactor, {"clip_threshold": 0}), "clip_threshold must be > 0"),
])
def test_bad_hyperparameters_are_refused_by_name(args, message):
    cls, kwargs = args
    with pytest.raises(ValueError, match=message):
        cls(**kwargs)


def test_nadam_keeps_its_running_product_and_reset_restores_it():
    var = ks.Variable([1.0, 2.0])
    opt = Nadam()
    for _ in range(3):
        opt.apply_gradients([(ks.constant([0.1, -0.1]), var)])
    expected = np.prod([0.9 * (1 - 0.5 * 0.96**t) for t in (1, 2, 3)])
    assert float(opt.u_product) == pytest.approx(expected, rel=1e-6)
    assert opt.variables[-1] is opt.u_product
    opt.reset_state()
    assert float(opt.u_product) == 1.0 and int(opt.iterations) == 0


# -- schedules ----------------------------------------------------------------------------------


def test_new_schedules_follow_keras_formulas():
    s = optimizers.schedules
    poly = s.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=0.5)
    for step in (0, 3, 10, 15):
        expected = (0.1 - 0.01) * (1 - min(step, 10) / 10) ** 0.5 + 0.01
        assert float(poly(step)) == pytest.approx(expected, rel=1e-6)
    cyc = s.PolynomialDecay(0.1, 10, end_learning_rate=0.0, cycle=True)
    assert [float(cyc(k)) for k in (0, 10, 15)] == pytest.approx([0.1, 0.0, 0.025], abs=1e-7)
    inv = s.InverseTimeDecay(0.5, decay_steps=4, decay_rate=0.5)
    assert float(inv(6)) == pytest.approx(0.5 / (1 + 0.5 * 1.5), rel=1e-6)
    restarts = s.CosineDecayRestarts(1.0, first_decay_steps=4, t_mul=1.0, m_mul=0.5, alpha=0.1)
    for step in (0, 2, 4, 6, 9):
        i, f = divmod(step / 4, 1)
        expected = 0.9 * 0.5 ** i * 0.5 * (1 + math.cos(math.pi * f)) + 0.1
        assert float(restarts(step)) == pytest.approx(expected, rel=1e-6)
    for schedule in (poly, cyc, inv, restarts):
        again = s.deserialize(s.serialize(schedule))
        assert type(again) is type(schedule) and again.get_config() == schedule.get_config()
        assert float(again(7)) == float(schedule(7))
    with pytest.raises(ValueError, match="first_decay_steps must be > 0"):
        s.CosineDecayRestarts(1.0, 0)


# -- LossScaleOptimizer -------------------------------------------------------------------------


def test_loss_scale_skips_non_finite_steps_and_grows_after_finite_ones():
    var = ks.Variable([1.0, 2.0])
    opt = LossScaleOptimizer(ks.optimizers.Adam(0.1), initial_scale=16.0, dynamic_growth_steps=2)
    opt.apply_gradients([(ks.constant([np.nan, 1.0]), var)])
    assert float(opt.dynamic_scale) == 8.0 and int(opt.iterations) == 0
    np.testing.assert_array_equal(var.numpy(), [1.0, 2.0])
    with pytest.raises(KeyError):  # nothing reached the inner optimizer
        opt.get_slot(var, "m")
    reference_var, reference = ks.Variable([1.0, 2.0]), ks.optimizers.Adam(0.1)
    for scale_after, counter_after in ((8.0, 1), (16.0, 0), (16.0, 1)):
        scale = float(opt.dynamic_scale)
        opt.apply_gradients([(ks.constant([0.5 * scale, -scale]), var)])
        reference.apply_gradients([(ks.constant([0.5, -1.0]), reference_var)])
        assert (float(opt.dynamic_scale), int(opt.step_counter)) == (scale_after, counter_after)
    assert var.numpy().tobytes() == reference_var.numpy().tobytes()
    assert int(opt.iterations) == 3
    opt.apply_gradients([(ks.constant([np.inf, 0.0]), var)])
    assert (float(opt.dynamic_scale), int(opt.step_counter)) == (8.0, 0)


def test_loss_scale_optimizer_in_fit_trains_as_its_inner_optimizer():
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    weights = []
    for scaled in (False, True):
        ks.utils.set_random_seed(0)
        model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(1)])
        inner = ks.optimizers.SGD(0.1)
        model.compile(LossScaleOptimizer(inner) if scaled else inner, "mse")
        model.fit(x, y, epochs=3, batch_size=4, verbose=0)
        weights.append(model.get_weights())
    assert int(model.optimizer.step_counter) == 12  # every step was finite
    for plain, scaled in zip(*weights):
        np.testing.assert_allclose(scaled, plain, rtol=1e-6)


def test_loss_scale_optimizer_config_and_weights_file(tmp_path):
    opt = LossScaleOptimizer(ks.optimizers.Nadam(0.01), initial_scale=64.0,
                             dynamic_growth_steps=10)
    config = opt.get_config()
    assert config["inner_optimizer"]["class_name"] == "Nadam"
    again = optimizers.deserialize(optimizers.serialize(opt))
    assert type(again.inner_optimizer) is Nadam and again.get_config() == config
    assert float(again.learning_rate) == pytest.approx(0.01)
    with pytest.raises(TypeError, match="inner_optimizer must be an optimizer object"):
        LossScaleOptimizer("adam")
    exchanging = LossScaleOptimizer(ks.optimizers.SGD())
    exchanging.gradient_exchange = lambda pairs: pairs  # as ks.distribute would set one
    with pytest.raises(NotImplementedError, match="does not exchange gradients"):
        exchanging.apply_gradients([(ks.constant([1.0]), ks.Variable([1.0]))])

    def build(optimizer):
        model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
        model.compile(optimizer, "mse")
        return model

    model = build(opt)
    model.fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0)
    path = str(tmp_path / "lso.weights.h5")
    model.save_weights(path)
    import h5py

    with h5py.File(path) as f:  # Keras's layout: its own 4, then the inner optimizer's
        # (iterations, learning rate, momentum and velocity of 2 variables, u_product)
        assert len(f["optimizer/vars"]) == 4 + 7 and len(f["optimizer/inner_optimizer/vars"]) == 7
        assert float(f["optimizer/vars/3"][()]) == 64.0
    loaded = build(LossScaleOptimizer(ks.optimizers.Nadam(0.01)))
    loaded.load_weights(path)
    assert float(loaded.optimizer.dynamic_scale) == 64.0
    assert int(loaded.optimizer.step_counter) == 1 and int(loaded.optimizer.iterations) == 1
    assert float(loaded.optimizer.inner_optimizer.u_product) == float(opt.inner_optimizer.u_product)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- Keras itself ----------------------------------------------------------------------------------


KERAS_CASES = {name: case for name, case in CASES.items()}


@pytest.mark.parametrize("case", sorted(KERAS_CASES))
def test_matches_keras3(case):
    keras = pytest.importorskip("keras")
    cls, _, kwargs = CASES[case]
    results = {}
    for shape in SHAPES:
        p0 = np.random.default_rng(1).normal(size=shape).astype(np.float32)
        grads = [g.astype(np.float32) for g in _gradients(shape, 5)]
        theirs_var = keras.Variable(p0)
        theirs = getattr(keras.optimizers, cls.__name__)(**kwargs)
        ours_var = ks.Variable(p0)
        ours = cls(**kwargs)
        for g in grads:
            theirs.apply([g], [theirs_var])
            ours.apply_gradients([(ks.constant(g), ours_var)])
        np.testing.assert_allclose(ours_var.numpy(), np.asarray(theirs_var), rtol=1e-5,
                                   atol=1e-6, err_msg=f"{case} {shape}")
        results[shape] = float(np.max(np.abs(ours_var.numpy() - np.asarray(theirs_var))))
        # the same state, in Keras's order: iterations, learning rate, slots (, u_product)
        from kerasish.saving import weights_layout

        ours_state = weights_layout.optimizer_variables(ours, [ours_var])
        assert [tuple(v.shape) for v in ours_state] == [tuple(v.shape) for v in theirs.variables]
        for mine, keras_var in zip(ours_state, theirs.variables):
            np.testing.assert_allclose(mine.numpy().astype(np.float64),
                                       np.asarray(keras_var).astype(np.float64), rtol=1e-5,
                                       atol=1e-6, err_msg=keras_var.path)
    print(case, "largest difference from Keras:", results)


def test_loss_scale_optimizer_matches_keras3():
    keras = pytest.importorskip("keras")
    p0 = np.array([1.0, -2.0, 0.5], np.float32)
    grads = [np.array([1.0, 2.0, 3.0]), np.array([np.inf, 0.0, 0.0]), np.array([4.0, -1.0, 2.0]),
             np.array([0.5, 0.5, -0.5])]
    theirs_var, ours_var = keras.Variable(p0), ks.Variable(p0)
    theirs = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.1), initial_scale=4.0,
                                                 dynamic_growth_steps=2)
    ours = LossScaleOptimizer(ks.optimizers.Adam(0.1), initial_scale=4.0, dynamic_growth_steps=2)
    for g in grads:
        g = g.astype(np.float32)
        theirs.apply([g * float(np.asarray(theirs.dynamic_scale if theirs.built else 4.0))],
                     [theirs_var])
        ours.apply_gradients([(ks.constant(g * float(ours.dynamic_scale)), ours_var)])
        assert float(ours.dynamic_scale) == float(np.asarray(theirs.dynamic_scale))
        assert int(ours.step_counter) == int(np.asarray(theirs.step_counter))
        assert int(ours.iterations) == int(np.asarray(theirs.iterations))
    np.testing.assert_allclose(ours_var.numpy(), np.asarray(theirs_var), rtol=1e-5)


@pytest.mark.parametrize("name", ["Nadam", "Adadelta", "Adafactor", "Ftrl", "LossScaleOptimizer"])
def test_state_saved_by_keras_loads(name, tmp_path):
    keras = pytest.importorskip("keras")

    def make(lib):
        if name == "LossScaleOptimizer":
            return lib.optimizers.LossScaleOptimizer(lib.optimizers.Adam(0.1), initial_scale=8.0)
        return getattr(lib.optimizers, name)(learning_rate=0.1)

    kernel = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)
    grads = [np.random.default_rng(1).normal(size=(3, 2)).astype(np.float32),
             np.array([0.5, -1.0], np.float32)]
    theirs = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    theirs.set_weights([kernel, np.zeros(2, np.float32)])
    theirs.compile(make(keras), "mse")
    for _ in range(2):
        theirs.optimizer.apply(grads, theirs.trainable_variables)
    path = str(tmp_path / "keras.weights.h5")
    theirs.save_weights(path)
    ours = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
    ours.compile(make(ks), "mse")
    ours.optimizer.build(ours.trainable_variables)
    ours.load_weights(path)
    np.testing.assert_array_equal(ours.get_weights()[0], np.asarray(theirs.weights[0]))
    from kerasish.saving import weights_layout

    state = weights_layout.optimizer_variables(ours.optimizer, ours.trainable_variables)
    assert len(state) == len(theirs.optimizer.variables)
    for mine, keras_var in zip(state, theirs.optimizer.variables):
        np.testing.assert_array_equal(mine.numpy(), np.asarray(keras_var).astype(mine.dtype),
                                      err_msg=keras_var.path)
    assert int(ours.optimizer.iterations) == 2
