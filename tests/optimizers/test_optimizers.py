"""Optimizers: golden values against NumPy references of the Keras formulas and PyTorch,
in-place and sparse updates, clipping, weight decay, schedules, slots, and seeds-style use."""

import math
import warnings

import numpy as np
import pytest

import kerasish as ks
from kerasish import optimizers
from kerasish.core import backend
from kerasish.core.tracking import named_variables
from kerasish.optimizers import (
    SGD,
    Adagrad,
    Adam,
    AdamW,
    RMSprop,
    get_or_create_global_step,
    schedules,
)

# -- NumPy references of the Keras formulas (float64) ---------------------------------------


def ref_sgd(p, grads, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None):
    p = p.astype(np.float64)
    velocity = np.zeros_like(p)
    for g in grads:
        if weight_decay:
            p = p - learning_rate * weight_decay * p
        if momentum:
            velocity = momentum * velocity - learning_rate * g
            p = p + (momentum * velocity - learning_rate * g if nesterov else velocity)
        else:
            p = p - learning_rate * g
    return p, ({"momentum": velocity} if momentum else {})


def ref_adam(p, grads, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
             amsgrad=False, weight_decay=None):
    p = p.astype(np.float64)
    m, v, vhat = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        if weight_decay:
            p = p - learning_rate * weight_decay * p
        alpha = learning_rate * math.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        if amsgrad:
            vhat = np.maximum(vhat, v)
        p = p - m * alpha / (np.sqrt(vhat if amsgrad else v) + epsilon)
    slots = {"m": m, "v": v}
    if amsgrad:
        slots["vhat"] = vhat
    return p, slots


def ref_adamw(p, grads, weight_decay=0.004, **kwargs):
    return ref_adam(p, grads, weight_decay=weight_decay, **kwargs)


def ref_rmsprop(p, grads, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                centered=False):
    p = p.astype(np.float64)
    rms, mg, buf = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        rms = rho * rms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            denominator = rms - mg * mg + epsilon
        else:
            denominator = rms + epsilon
        increment = learning_rate * g / np.sqrt(denominator)
        if momentum:
            buf = momentum * buf + increment
            p = p - buf
        else:
            p = p - increment
    slots = {"rms": rms}
    if momentum:
        slots["momentum"] = buf
    if centered:
        slots["mg"] = mg
    return p, slots


def ref_adagrad(p, grads, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7):
    p = p.astype(np.float64)
    acc = np.full_like(p, initial_accumulator_value)
    for g in grads:
        acc = acc + g * g
        p = p - learning_rate * g / np.sqrt(acc + epsilon)
    return p, {"accumulator": acc}


CASES = {
    "sgd": (SGD, ref_sgd, dict(learning_rate=0.1)),
    "sgd_momentum": (SGD, ref_sgd, dict(learning_rate=0.1, momentum=0.9)),
    "sgd_nesterov": (SGD, ref_sgd, dict(learning_rate=0.1, momentum=0.9, nesterov=True)),
    "sgd_decay": (SGD, ref_sgd, dict(learning_rate=0.1, momentum=0.5, weight_decay=0.1)),
    "adam": (Adam, ref_adam, dict(learning_rate=0.01)),
    "adam_amsgrad": (Adam, ref_adam, dict(learning_rate=0.01, amsgrad=True)),
    "adamw": (AdamW, ref_adamw, dict(learning_rate=0.01, weight_decay=0.1)),
    "rmsprop": (RMSprop, ref_rmsprop, dict(learning_rate=0.01)),
    "rmsprop_centered_momentum": (
        RMSprop, ref_rmsprop, dict(learning_rate=0.01, rho=0.8, momentum=0.5, centered=True)
    ),
    "adagrad": (Adagrad, ref_adagrad, dict(learning_rate=0.1)),
}


def _gradients(shape, steps, seed=0):
    rng = np.random.default_rng(seed)
    # Vary the scale so amsgrad's maximum and momentum's sign changes matter.
    return [rng.normal(size=shape) * (2.0 if k % 2 else 0.5) for k in range(steps)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_numpy_reference_of_keras_formulas(case):
    cls, ref, kwargs = CASES[case]
    p0 = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    grads = [g.astype(np.float32) for g in _gradients((3, 4), 6)]
    var = ks.Variable(p0, name="w")
    opt = cls(**kwargs)
    for g in grads:
        opt.apply_gradients([(ks.constant(g), var)])
    expected, expected_slots = ref(p0, [g.astype(np.float64) for g in grads], **kwargs)
    np.testing.assert_allclose(var.numpy(), expected, rtol=2e-5, atol=1e-6)
    assert sorted(opt.get_slot_names()) == sorted(expected_slots)
    for name, value in expected_slots.items():
        np.testing.assert_allclose(opt.get_slot(var, name).numpy(), value, rtol=2e-5, atol=1e-6)
    assert int(opt.iterations) == len(grads)
    assert var.dtype == np.float32


def test_scalar_variables_update():
    for cls, _, kwargs in CASES.values():
        w = ks.Variable(1.0)
        opt = cls(**kwargs)
        opt.apply_gradients([(ks.constant(0.5), w)])
        assert w.shape == () and float(w) < 1.0, cls.__name__


# -- PyTorch, where the formulas coincide ---------------------------------------------------

# Learning rates exactly representable in float32 (the learning-rate variable's dtype).
LR = 2.0**-7

TORCH_CASES = {
    "sgd_momentum": (
        lambda: SGD(0.125, momentum=0.9),
        lambda torch, p: torch.optim.SGD([p], lr=0.125, momentum=0.9),
    ),
    "sgd_nesterov": (
        lambda: SGD(0.125, momentum=0.9, nesterov=True),
        lambda torch, p: torch.optim.SGD([p], lr=0.125, momentum=0.9, nesterov=True),
    ),
    # Keras adds epsilon after the bias correction, PyTorch before: equal for epsilon=0.
    "adam": (
        lambda: Adam(LR, epsilon=0.0),
        lambda torch, p: torch.optim.Adam([p], lr=LR, eps=0.0),
    ),
    "adam_amsgrad": (
        lambda: Adam(LR, epsilon=0.0, amsgrad=True),
        lambda torch, p: torch.optim.Adam([p], lr=LR, eps=0.0, amsgrad=True),
    ),
    "adamw": (
        lambda: AdamW(LR, weight_decay=0.1, epsilon=0.0),
        lambda torch, p: torch.optim.AdamW([p], lr=LR, weight_decay=0.1, eps=0.0),
    ),
    # Keras puts epsilon inside the square root, PyTorch outside: equal for epsilon=0.
    "rmsprop": (
        lambda: RMSprop(LR, rho=0.9, epsilon=0.0),
        lambda torch, p: torch.optim.RMSprop([p], lr=LR, alpha=0.9, eps=0.0),
    ),
    "rmsprop_centered_momentum": (
        lambda: RMSprop(LR, rho=0.8, momentum=0.5, centered=True, epsilon=0.0),
        lambda torch, p: torch.optim.RMSprop(
            [p], lr=LR, alpha=0.8, momentum=0.5, centered=True, eps=0.0
        ),
    ),
    "adagrad": (
        lambda: Adagrad(0.125, initial_accumulator_value=0.1, epsilon=0.0),
        lambda torch, p: torch.optim.Adagrad([p], lr=0.125, initial_accumulator_value=0.1, eps=0.0),
    ),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    make_ours, make_theirs = TORCH_CASES[case]
    p0 = np.random.default_rng(2).normal(size=(4, 3))
    var = ks.Variable(p0, name="w")  # float64 on both sides: compare tightly
    param = torch.nn.Parameter(torch.tensor(p0))
    ours, theirs = make_ours(), make_theirs(torch, param)
    for g in _gradients((4, 3), 8, seed=3):
        ours.apply_gradients([(ks.constant(g), var)])
        param.grad = torch.tensor(g)
        theirs.step()
        np.testing.assert_allclose(var.numpy(), param.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_lazy_adam_matches_pytorch_sparse_adam():
    # torch.optim.SparseAdam is lazy Adam with Keras's placement of epsilon.
    torch = pytest.importorskip("torch")
    p0 = np.random.default_rng(4).normal(size=(6, 2))
    var = ks.Variable(p0, name="embedding")
    param = torch.nn.Parameter(torch.tensor(p0))
    ours = Adam(2.0**-5, epsilon=1e-7)
    theirs = torch.optim.SparseAdam([param], lr=2.0**-5, eps=1e-7)
    rng = np.random.default_rng(5)
    for indices in ([0, 3, 3], [1, 3], [5, 0, 0, 0], [2]):
        values = rng.normal(size=(len(indices), 2))
        ours.apply_gradients([(ks.IndexedSlices(ks.constant(values), np.array(indices), (6, 2)),
                               var)])
        param.grad = torch.sparse_coo_tensor(
            torch.tensor([indices]), torch.tensor(values), (6, 2), check_invariants=True
        )
        theirs.step()
        np.testing.assert_allclose(var.numpy(), param.detach().numpy(), rtol=1e-10, atol=1e-12)


# -- in place -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_updates_are_in_place(case, sparse):
    cls, _, kwargs = CASES[case]
    var = ks.Variable(np.ones((5, 3), np.float32), name="w")
    opt = cls(**kwargs)
    array = var._value
    slot_arrays = None
    for _ in range(3):
        if sparse:
            grad = ks.IndexedSlices(ks.constant(np.full((2, 3), 0.5, np.float32)),
                                    np.array([1, 3]), (5, 3))
        else:
            grad = ks.constant(np.full((5, 3), 0.5, np.float32))
        version = var._version
        opt.apply_gradients([(grad, var)])
        assert var._version > version  # tapes that used the old value will notice
        assert var._value is array and np.shares_memory(var._value, array)
        current = {name: opt.get_slot(var, name)._value for name in opt.get_slot_names()}
        if slot_arrays is None:
            slot_arrays = current
        assert all(current[name] is slot_arrays[name] for name in current)
    assert not np.array_equal(var.numpy(), np.ones((5, 3)))


def test_updates_are_not_recorded_by_tapes():
    w = ks.Variable(1.0, name="w")
    opt = Adam(0.1)
    with ks.GradientTape(persistent=True) as tape:
        y = w * 2.0
        ops_before = len(tape._ops)
        opt.apply_gradients([(ks.constant(1.0), w)])
        assert len(tape._ops) == ops_before
    with pytest.raises(RuntimeError, match="modified in place"):
        tape.gradient(y, w)


# -- sparse gradients -----------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_update_touches_only_gathered_rows_and_sums_repeats(case):
    cls, _, kwargs = CASES[case]
    rng = np.random.default_rng(6)
    p0 = rng.normal(size=(8, 3)).astype(np.float32)
    indices = np.array([5, 1, 5, 2])
    touched = np.array([1, 2, 5])
    var = ks.Variable(p0, name="embedding")
    twin = ks.Variable(p0[touched], name="twin")  # the touched rows, updated densely
    opt, twin_opt = cls(**kwargs), cls(**kwargs)
    for _ in range(3):
        values = rng.normal(size=(4, 3)).astype(np.float32)
        summed = np.zeros((3, 3), np.float32)
        np.add.at(summed, np.searchsorted(touched, indices), values)
        opt.apply_gradients([(ks.IndexedSlices(ks.constant(values), indices, (8, 3)), var)])
        twin_opt.apply_gradients([(ks.constant(summed), twin)])
    untouched = np.setdiff1d(np.arange(8), touched)
    np.testing.assert_array_equal(var.numpy()[untouched], p0[untouched])
    np.testing.assert_allclose(var.numpy()[touched], twin.numpy(), rtol=1e-5, atol=1e-6)
    fills = dict(opt._slot_specs())
    for name in opt.get_slot_names():
        slot = opt.get_slot(var, name).numpy()
        np.testing.assert_array_equal(slot[untouched], np.full((5, 3), fills[name], np.float32))
        np.testing.assert_allclose(slot[touched], twin_opt.get_slot(twin, name).numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_gather_gradient_is_applied_sparsely_and_adam_is_lazy():
    emb = ks.Variable(np.ones((4, 2), np.float32), name="emb")
    opt = Adam(0.1)
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(ks.gather(emb, [0, 2, 0]))
    (grad,) = tape.gradient(loss, [emb])
    assert isinstance(grad, ks.IndexedSlices)
    opt.apply_gradients([(grad, emb)])
    np.testing.assert_allclose(opt.get_slot(emb, "m").numpy()[:, 0], [0.2, 0, 0.1, 0])
    np.testing.assert_array_equal(emb.numpy()[[1, 3]], np.ones((2, 2)))
    assert np.all(emb.numpy()[[0, 2]] < 1)
    # A second step touching only row 1 leaves the moments of rows 0 and 2 as they were.
    m_before = opt.get_slot(emb, "m").numpy()
    opt.apply_gradients([(ks.IndexedSlices(ks.constant([[1.0, 1.0]]), np.array([1]), (4, 2)),
                          emb)])
    m_after = opt.get_slot(emb, "m").numpy()
    np.testing.assert_array_equal(m_after[[0, 2, 3]], m_before[[0, 2, 3]])


def test_sparse_index_out_of_range_is_an_error():
    var = ks.Variable(np.zeros((3, 2), np.float32), name="emb")
    grad = ks.IndexedSlices(ks.constant(np.ones((1, 2), np.float32)), np.array([-1]), (3, 2))
    with pytest.raises(ks.InvalidArgumentError, match=r"'emb'.*-1.*\[0, 3\)"):
        SGD(0.1).apply_gradients([(grad, var)])


# -- clipping and weight decay --------------------------------------------------------------


def _one_sgd_step(opt_kwargs, grads):
    variables = [ks.Variable(np.zeros(np.shape(g), np.float32), name=f"v{i}")
                 for i, g in enumerate(grads)]
    SGD(1.0, **opt_kwargs).apply_gradients(
        [(ks.constant(np.asarray(g, np.float32)), v) for g, v in zip(grads, variables, strict=True)]
    )
    return [-v.numpy() for v in variables]  # the applied gradients


def test_clipvalue():
    (g,) = _one_sgd_step({"clipvalue": 0.5}, [[2.0, -0.1, -3.0]])
    np.testing.assert_allclose(g, [0.5, -0.1, -0.5])


def test_clipnorm_is_per_variable():
    big, small = _one_sgd_step({"clipnorm": 1.0}, [[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_allclose(big, [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(small, [0.3, 0.4], rtol=1e-6)


def test_global_clipnorm_scales_all_gradients_together():
    a, b = _one_sgd_step({"global_clipnorm": 5.0}, [[3.0, 4.0], [0.0, 12.0]])
    np.testing.assert_allclose(a, np.array([3.0, 4.0]) * 5 / 13, rtol=1e-6)
    np.testing.assert_allclose(b, np.array([0.0, 12.0]) * 5 / 13, rtol=1e-6)
    a, b = _one_sgd_step({"global_clipnorm": 100.0}, [[3.0, 4.0], [0.0, 12.0]])
    np.testing.assert_allclose(a, [3.0, 4.0], rtol=1e-6)


def test_clipnorm_of_sparse_gradient_uses_summed_rows():
    var = ks.Variable(np.zeros((3, 2), np.float32), name="emb")
    values = ks.constant([[1.5, 0.0], [1.5, 0.0], [0.0, 4.0]])
    SGD(1.0, clipnorm=1.0).apply_gradients(
        [(ks.IndexedSlices(values, np.array([0, 0, 2]), (3, 2)), var)]
    )
    np.testing.assert_allclose(-var.numpy(), [[0.6, 0.0], [0.0, 0.0], [0.0, 0.8]], rtol=1e-6)


def test_only_one_clipping_argument():
    with pytest.raises(ValueError, match="only one of clipnorm, clipvalue and global_clipnorm"):
        Adam(clipnorm=1.0, global_clipnorm=1.0)


def test_weight_decay_and_exclusions():
    kernel = ks.Variable(2.0, name="dense/kernel")
    bias = ks.Variable(2.0, name="dense/bias")
    opt = SGD(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt.apply_gradients([(ks.constant(1.0), kernel), (ks.constant(1.0), bias)])
    assert float(kernel) == pytest.approx(2.0 * (1 - 0.1 * 0.5) - 0.1)
    assert float(bias) == pytest.approx(1.9)
    with pytest.raises(ValueError, match="AdamW: weight_decay"):
        AdamW(weight_decay=None)


# -- schedules ------------------------------------------------------------------------------


def test_schedule_values():
    exp = schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.96)
    assert float(exp(5)) == pytest.approx(0.1 * 0.96**0.5, rel=1e-6)
    stair = schedules.ExponentialDecay(0.1, 10, 0.96, staircase=True)
    assert float(stair(15)) == pytest.approx(0.096, rel=1e-6)
    assert float(stair(ks.Variable(25, dtype="int64"))) == pytest.approx(0.1 * 0.96**2, rel=1e-6)
    piece = schedules.PiecewiseConstantDecay([100, 200], [1.0, 0.5, 0.1])
    assert [float(piece(s)) for s in (0, 100, 101, 200, 201)] == pytest.approx(
        [1.0, 1.0, 0.5, 0.5, 0.1]
    )
    cos = schedules.CosineDecay(1.0, decay_steps=100, alpha=0.1)
    assert [float(cos(s)) for s in (0, 50, 100, 1000)] == pytest.approx([1.0, 0.55, 0.1, 0.1])
    warm = schedules.CosineDecay(0.0, decay_steps=100, warmup_target=1.0, warmup_steps=10)
    assert [float(warm(s)) for s in (0, 5, 10, 60, 110)] == pytest.approx(
        [0.0, 0.5, 1.0, 0.5, 0.0], abs=1e-7
    )
    assert exp(3).dtype == np.float32
    with pytest.raises(ValueError, match="one more value than boundaries"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0, 0.5])


def test_schedule_config_round_trip():
    for schedule in (
        schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True),
        schedules.PiecewiseConstantDecay([3], [1.0, 0.1]),
        schedules.CosineDecay(1.0, 100, alpha=0.2),
    ):
        again = schedules.deserialize(schedules.serialize(schedule))
        assert type(again) is type(schedule) and again.get_config() == schedule.get_config()
        assert float(again(7)) == float(schedule(7))


def test_optimizer_with_schedule_uses_iterations():
    w = ks.Variable(0.0)
    opt = SGD(schedules.PiecewiseConstantDecay([1], [1.0, 0.1]))
    for _ in range(3):  # steps 0, 1, 2 use 1.0, 1.0, 0.1
        opt.apply_gradients([(ks.constant(1.0), w)])
    assert float(w) == pytest.approx(-2.1)
    assert float(opt.learning_rate) == pytest.approx(0.1)
    with pytest.raises(TypeError, match="schedule"):
        opt.learning_rate = 0.5
    config = opt.get_config()
    again = SGD.from_config(config)
    assert isinstance(again._learning_rate, schedules.PiecewiseConstantDecay)


def test_learning_rate_is_a_settable_checkpointable_variable():
    opt = Adam(0.01)
    lr = opt.learning_rate
    assert isinstance(lr, ks.Variable) and not lr.trainable and lr.dtype == np.float32
    opt.learning_rate = 0.5
    assert opt.learning_rate is lr and float(lr) == 0.5
    w = ks.Variable(0.0)
    sgd = SGD(1.0)
    sgd.learning_rate = 0.25
    sgd.apply_gradients([(ks.constant(1.0), w)])
    assert float(w) == -0.25
    sgd.learning_rate = schedules.ExponentialDecay(1.0, 1, 0.5)
    assert float(sgd.learning_rate) == pytest.approx(0.5)  # at iterations == 1


# -- the optimizer's own state --------------------------------------------------------------


def test_iterations_and_global_step():
    w = ks.Variable(1.0)
    opt = SGD(0.1)
    assert isinstance(opt.iterations, ks.Variable)
    assert opt.iterations.dtype == np.int64 and not opt.iterations.trainable
    step = get_or_create_global_step()
    assert step is get_or_create_global_step()
    assert step.name == "global_step" and step.dtype == np.int64 and not step.trainable
    start = int(step)
    for _ in range(3):
        opt.apply_gradients([(ks.constant(1.0), w)], global_step=step)
    assert int(opt.iterations) == 3 and int(step) == start + 3
    opt.apply_gradients(iter([(ks.constant(1.0), w)]))  # any iterable of pairs
    assert int(opt.iterations) == 4 and int(step) == start + 3


def test_all_none_gradients_raise_naming_the_variables():
    a, b = ks.Variable(1.0, name="a"), ks.Variable(2.0, name="b")
    opt = Adam()
    with pytest.raises(ValueError, match=r"Adam.apply_gradients: no gradient was provided for any "
                                         r"variable \('a', 'b'\)"):
        opt.apply_gradients(zip([None, None], [a, b], strict=True))
    assert float(a) == 1.0 and int(opt.iterations) == 0
    opt.apply_gradients([])  # no variables at all: nothing to do
    assert int(opt.iterations) == 0


def test_some_none_gradients_warn_once_naming_the_variables():
    a, b, c = (ks.Variable(float(i), name=n) for i, n in enumerate("abc"))
    opt = Adam()
    with pytest.warns(UserWarning, match=r"gradients do not exist for variables \['a', 'c'\]"):
        opt.apply_gradients([(None, a), (ks.constant(1.0), b), (None, c)])
    assert float(a) == 0.0 and float(b) < 1.0 and float(c) == 2.0
    assert opt._slots.get(id(a)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.apply_gradients([(None, a), (ks.constant(1.0), b), (None, c)])  # said already
    with pytest.warns(UserWarning, match=r"variables \['a'\]"):  # a different set: said again
        opt.apply_gradients([(None, a), (ks.constant(1.0), b), (ks.constant(1.0), c)])


def test_slot_names_api_and_observers():
    kernel = ks.Variable(np.zeros((2, 3), np.float32), name="dense/kernel")
    bias = ks.Variable(np.zeros((3,), np.float32), name="dense/bias")
    opt = Adam(amsgrad=True)
    created = []
    opt._slot_observers.append(lambda var, name, slot: created.append((var.name, name, slot.name)))
    assert opt.get_slot_names() == ["m", "v", "vhat"]
    with pytest.raises(KeyError, match="dense/kernel"):
        opt.get_slot(kernel, "m")
    opt.apply_gradients([(ks.ones((2, 3)), kernel), (ks.ones((3,)), bias)])
    m = opt.get_slot(kernel, "m")
    assert m.name == "dense/kernel/m" and m.shape == (2, 3) and not m.trainable
    assert opt.get_slot(bias, "vhat").name == "dense/bias/vhat"
    assert created[:3] == [("dense/kernel", n, f"dense/kernel/{n}") for n in ("m", "v", "vhat")]
    assert len(created) == 6
    triples = list(opt.slot_variables())
    assert [(v.name, n) for v, n, _ in triples] == [
        ("dense/kernel", "m"), ("dense/kernel", "v"), ("dense/kernel", "vhat"),
        ("dense/bias", "m"), ("dense/bias", "v"), ("dense/bias", "vhat"),
    ]
    assert all(s is opt.get_slot(v, n) for v, n, s in triples)
    with pytest.raises(KeyError, match="'momentum'.*'m', 'v', 'vhat'"):
        opt.get_slot(kernel, "momentum")
    # Tracking: iterations and learning_rate by name, slots not walked as attributes.
    assert [path for path, _ in named_variables(opt)] == ["iterations", "learning_rate"]
    assert len(opt.variables) == 2 + 6


def test_build_creates_slots_before_the_first_step():
    w = ks.Variable(np.zeros(3, np.float32), name="w")
    opt = SGD(0.1, momentum=0.9)
    opt.build([w])
    assert opt.get_slot(w, "momentum").name == "w/momentum"
    opt.get_slot(w, "momentum").assign([1.0, 2.0, 3.0])  # e.g. restored from a checkpoint
    opt.apply_gradients([(ks.zeros(3), w)])
    np.testing.assert_allclose(w.numpy(), [0.9, 1.8, 2.7], rtol=1e-6)


def test_reset_state_restores_initial_slots_and_iterations():
    w = ks.Variable(np.ones(3, np.float32), name="w")
    opt = Adagrad(0.1)
    for _ in range(3):
        opt.apply_gradients([(ks.ones(3), w)])
    accumulator = opt.get_slot(w, "accumulator")
    opt.reset_state()
    assert int(opt.iterations) == 0
    assert opt.get_slot(w, "accumulator") is accumulator
    np.testing.assert_array_equal(accumulator.numpy(), np.full(3, 0.1, np.float32))

    a, b = ks.Variable(1.0), ks.Variable(1.0)
    used, fresh = Adam(0.1), Adam(0.1)
    for _ in range(4):
        used.apply_gradients([(ks.constant(-3.0), a)])
    used.reset_state()
    a.assign(1.0)
    used.apply_gradients([(ks.constant(0.5), a)])
    fresh.apply_gradients([(ks.constant(0.5), b)])
    assert float(a) == float(b)


# -- minimize -------------------------------------------------------------------------------


def test_minimize_updates_the_trainable_variables_the_loss_read():
    w = ks.Variable(2.0, name="w")
    frozen = ks.Variable(1.0, name="frozen", trainable=False)
    unused = ks.Variable(5.0, name="unused")
    opt = SGD(0.1)
    step = get_or_create_global_step()
    start = int(step)
    loss = opt.minimize(lambda: w * w * frozen, global_step=step)
    assert float(loss) == 4.0
    assert float(w) == pytest.approx(1.6) and float(frozen) == 1.0 and float(unused) == 5.0
    assert int(step) == start + 1 and int(opt.iterations) == 1
    opt.minimize(lambda: w * frozen, var_list=[frozen])  # var_list: even a non-trainable one
    assert float(frozen) == pytest.approx(1.0 - 0.1 * 1.6)
    with ks.GradientTape() as tape:
        loss = w * 3.0
    opt.minimize(loss, var_list=[w], tape=tape)
    assert float(w) == pytest.approx(1.3)
    with pytest.raises(ValueError, match="needs the GradientTape"):
        opt.minimize(w * 3.0, var_list=[w])
    with pytest.warns(UserWarning, match="read no trainable variable"):
        opt.minimize(lambda: frozen * 2.0)


# -- errors and lookup ----------------------------------------------------------------------


def test_bad_gradients_and_variables_are_clear_errors():
    w = ks.Variable(np.zeros((2, 3), np.float32), name="dense/kernel")
    opt = SGD(0.1)
    with pytest.raises(ks.InvalidArgumentError, match=r"'dense/kernel'.*\(3, 2\).*\(2, 3\)"):
        opt.apply_gradients([(ks.zeros((3, 2)), w)])
    with pytest.raises(TypeError, match="expected a ks.Variable"):
        opt.apply_gradients([(ks.zeros((2, 3)), ks.zeros((2, 3)))])
    with pytest.raises(ValueError, match="more than once"):
        opt.apply_gradients([(ks.zeros((2, 3)), w), (ks.zeros((2, 3)), w)])
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([(ks.zeros((2, 3)), w, "extra")])
    with pytest.raises(TypeError, match=r"lr \(use learning_rate=\)"):
        SGD(lr=0.1)
    counter = ks.Variable(0, name="counter")
    with pytest.raises(ks.InvalidArgumentError, match="'counter'.*int32"):
        opt.apply_gradients([(ks.constant(1), counter)])


def test_float64_gradient_for_float32_variable():
    w = ks.Variable(np.ones(2, np.float32))
    SGD(0.5).apply_gradients([(np.array([1.0, 2.0]), w)])
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.numpy(), [0.5, 0.0])


def test_get_resolves_names_case_insensitively():
    for name, cls in [("sgd", SGD), ("Adam", Adam), ("ADAMW", AdamW), ("RMSprop", RMSprop),
                      ("adagrad", Adagrad)]:
        assert type(optimizers.get(name)) is cls
    opt = Adam(0.1)
    assert optimizers.get(opt) is opt
    assert (opt.name, AdamW().name, RMSprop(name="rms").name) == ("adam", "adamw", "rms")
    assert type(optimizers.get(SGD)) is SGD
    with pytest.raises(ValueError, match=r"'adamx'.*'adadelta', 'adafactor', 'adagrad', 'adam', "
                       r"'adamax', 'adamw', 'ftrl', 'lamb', 'lion', 'muon', 'nadam', 'rmsprop', "
                       r"'schedulefreeadamw', 'sgd'"):
        optimizers.get("adamx")
    with pytest.raises(TypeError, match="as an optimizer"):
        optimizers.get(3)
    again = optimizers.get(optimizers.serialize(RMSprop(0.5, momentum=0.2, centered=True)))
    assert type(again) is RMSprop and again.momentum == 0.2 and again.centered
    assert float(again.learning_rate) == 0.5


# -- the seeds' "Variables and optimizers" example ------------------------------------------


def test_seeds_linear_model_trains_with_global_step():
    base = getattr(ks, "Model", None) or ks.layers.Layer

    class Model(base):
        def __init__(self):
            super().__init__()
            self.W = ks.Variable(5.0, name="weight")
            self.B = ks.Variable(10.0, name="bias")

        def call(self, inputs):
            return inputs * self.W + self.B

    num_examples = 2000
    training_inputs = ks.random.normal([num_examples])
    noise = ks.random.normal([num_examples])
    training_outputs = training_inputs * 3 + 2 + noise

    def loss(model, inputs, targets):
        error = model(inputs) - targets
        return ks.reduce_mean(ks.square(error))

    def grad(model, inputs, targets):
        with ks.GradientTape() as tape:
            loss_value = loss(model, inputs, targets)
        return tape.gradient(loss_value, [model.W, model.B])

    model = Model()
    optimizer = SGD(learning_rate=0.01)
    initial = float(loss(model, training_inputs, training_outputs))
    step = get_or_create_global_step()
    start = int(step)
    for _ in range(300):
        grads = grad(model, training_inputs, training_outputs)
        optimizer.apply_gradients(zip(grads, [model.W, model.B], strict=True), global_step=step)
    final = float(loss(model, training_inputs, training_outputs))
    assert initial > 50 and final < 1.2
    assert abs(float(model.W) - 3.0) < 0.1 and abs(float(model.B) - 2.0) < 0.1
    assert int(step) == start + 300


# -- GPU ------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_updates_match_cpu():
    rng = np.random.default_rng(7)
    w0 = rng.normal(size=(5, 3)).astype(np.float32)
    e0 = rng.normal(size=(10, 3)).astype(np.float32)
    results = []
    for device in ("/cpu:0", "/gpu:0"):
        with ks.device(device):
            w, e = ks.Variable(w0, name="w"), ks.Variable(e0, name="e")
            opt = Adam(0.05, global_clipnorm=3.0, amsgrad=True)
            for _ in range(3):
                with ks.GradientTape() as tape:
                    loss = ks.reduce_sum(ks.square(w)) + ks.reduce_sum(
                        ks.square(ks.gather(e, [1, 4, 1]))
                    )
                grads = tape.gradient(loss, [w, e])
                opt.apply_gradients(zip(grads, [w, e], strict=True))
            assert w.device == device and opt.get_slot(e, "m").device == device
            results.append([w.numpy(), e.numpy(), opt.get_slot(e, "v").numpy()])
    for cpu, gpu in zip(*results, strict=True):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(backend._FENV is None, reason="flushing subnormals needs x86-64 glibc")
@pytest.mark.parametrize("compiled", [False, True])
def test_decaying_slots_flush_to_zero_instead_of_turning_subnormal(compiled):
    # Adam's first moment for a weight whose gradient stays 0 decays by beta_1 per step; on
    # x86 every subnormal value costs a slow path, so updates flush them to 0, as TF does
    tiny = np.finfo(np.float32).tiny
    var = ks.Variable(np.ones(4, np.float32))
    adam = ks.optimizers.Adam(1e-3)
    adam.build([var])
    m = adam.get_slot(var, "m")
    m.assign(np.full(4, tiny * 4, np.float32))  # 2 steps of 0.9 from the subnormal range
    zero = np.zeros(4, np.float32)

    def step(grad):
        adam.apply_gradients([(grad, var)])

    step = ks.function(step) if compiled else step
    for _ in range(40):
        step(ks.constant(zero))
        assert np.all((m.numpy() == 0) | (np.abs(m.numpy()) >= tiny)), m.numpy()
    assert np.all(m.numpy() == 0)
    # the flush is scoped to the update: plain NumPy keeps IEEE subnormals
    assert np.float32(tiny) * np.float32(0.5) > 0
