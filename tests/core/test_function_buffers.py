"""ks.function's buffer reuse: outputs written with `out=` into buffers whose value is dead,
never into one still read, never into a value the caller or live state holds.

Tests that count buffers in a listing are marked `cpu`: on a GPU, elementwise chains are fused
and their intermediates never exist."""

import warnings

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import primitive as primitive_module
from kerasish.core import tape as tape_module
from kerasish.core.function import buffers
from kerasish.core.function.program import Instr
from tests.core.test_function import _same, _sample_cases

CALLS = 5  # trace, check (traced again), first replay (allocates), two replays reusing


@pytest.fixture(autouse=True)
def _buffer_every_result(monkeypatch):
    """Plan buffers for results of any size (by default only large ones get one)."""
    monkeypatch.setattr(buffers, "MIN_BUFFER_BYTES", 1)


def _replays(fn, make_inputs, calls=CALLS):
    """Every call's result, kept: the ones of early calls must survive the later calls."""
    return [fn(*make_inputs(i)) for i in range(calls)]


def _listing(fn, *args) -> str:
    return str(fn.get_concrete_function(*args))


@pytest.mark.parametrize("case", _sample_cases())
def test_replays_with_reused_buffers_equal_eager_for_every_gradient_sample(case):
    """Forward and gradient of each sample on five different inputs: every replay, the
    ones writing into buffers made by an earlier replay included, gives eager's bits,
    and results held from earlier calls are unchanged by the later ones."""
    ints = case.ints

    def gradient(*xs):
        with ks.GradientTape() as tape:
            tape.watch(list(xs))
            y = case.fn(*xs, *ints)
        return y, tape.gradient(y, list(xs))

    def inputs(i):
        return [ks.constant(np.asarray(v) * (1.0 - 0.125 * i)) for v in case.inputs]

    compiled = ks.function(gradient)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _replays(compiled, inputs)
        expected = _replays(gradient, inputs)
    for (y, grads), (want_y, want_grads) in zip(got, expected):
        assert _same(y, want_y)
        for g, want in zip(grads, want_grads):
            assert (g is None) == (want is None)
            if want is not None:
                assert _same(ks.convert_to_tensor(g), ks.convert_to_tensor(want))


def _mlp_step():
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Dense(16, activation="relu"), ks.layers.Dense(3)])
    model(ks.zeros((1, 5)))  # built now, from this seed
    optimizer = ks.optimizers.Adam(0.01)
    loss_fn = ks.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))
        return loss

    return model, step


@pytest.mark.cpu
def test_a_training_step_reuses_buffers_and_keeps_eagers_weights():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(CALLS, 8, 5)).astype(np.float32)
    ys = rng.integers(0, 3, (CALLS, 8)).astype(np.int32)
    eager_model, eager_step = _mlp_step()
    model, step = _mlp_step()
    step = ks.function(step)
    for x, y in zip(xs, ys):
        assert _same(step(x, y), eager_step(ks.constant(x), ks.constant(y)))
    for ours, theirs in zip(model.variables, eager_model.variables):
        assert _same(ours, theirs)
    listing = _listing(step, xs[0], ys[0])
    reused = listing.count(" in buffer ")
    distinct = {line.split(" in buffer ")[1].split()[0] for line in listing.splitlines()
                if " in buffer " in line}
    assert reused >= 8 and len(distinct) < reused  # written into, and some buffers reused
    assert "matmul(" in listing.split(" in buffer ")[0].splitlines()[-1]


@pytest.mark.cpu
def test_results_of_earlier_calls_are_never_overwritten():
    @ks.function
    def f(x):
        h = x * 2.0 + 1.0  # buffered intermediates of the same shape as the results
        return h * h, ks.reshape(h, [-1]), ks.transpose(h)  # a view of one of them too

    held = _replays(f, lambda i: [ks.constant(np.full((3, 4), float(i), np.float32))])
    for i, (square, flat, transposed) in enumerate(held):
        h = 2.0 * i + 1.0
        assert _same(square, np.full((3, 4), h * h, np.float32))
        assert _same(flat, np.full(12, h, np.float32))
        assert _same(transposed, np.full((4, 3), h, np.float32))
    lines = _listing(f, ks.ones((3, 4))).splitlines()
    assert " in buffer " in next(line for line in lines if "= multiply(" in line)  # x * 2.0
    assert " in buffer " not in next(line for line in lines if "= add(" in line)  # h: viewed


def test_values_kept_by_effects_are_never_buffers():
    """A variable assigned a computed value, and a host call keeping its argument, hold
    arrays the next call must not overwrite."""
    from kerasish.core.function.effects import RUN_NOW, record_host_call

    seen = []
    var = ks.Variable(np.zeros((2, 3), np.float32))

    @ks.function
    def f(x):
        a = x * 3.0
        var.assign(a + 1.0)
        b = a - 1.0
        if record_host_call(seen.append, b) is RUN_NOW:
            seen.append(b)
        return ks.reduce_sum(a * b)

    states = []
    for i in range(CALLS):
        f(ks.constant(np.full((2, 3), float(i), np.float32)))
        states.append(var.numpy())
    for i, (state, kept) in enumerate(zip(states, seen)):
        assert _same(state, np.full((2, 3), 3.0 * i + 1.0, np.float32))
        assert _same(kept, np.full((2, 3), 3.0 * i - 1.0, np.float32))
    assert len(seen) == CALLS


def test_concurrent_calls_each_take_their_own_buffers():
    import threading

    @ks.function
    def f(x):
        h = ks.matmul(x, x) + 1.0
        return ks.reduce_sum(ks.nn.relu(h - 4.0) * h, axis=0)

    values = [np.full((64, 64), 0.01 * (i + 1), np.float32) for i in range(8)]
    for x in values[:3]:
        f(x)  # traced, checked, replayed: buffers exist
    expected = [f.python_function(ks.constant(x)).numpy() for x in values]
    failures = []

    def worker(i):
        for _ in range(50):
            if not _same(f(values[i]), expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(values))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert " in buffer " in _listing(f, values[0])


def test_a_buffer_is_rewritten_only_after_the_last_read_of_its_value():
    """Two values of one shape alive together get two buffers; once one is dead, a later
    value of that shape takes its buffer, and never the buffer of its own input."""
    info = {s: ((4,), np.dtype(np.float32), "") for s in range(10)}
    add = primitive_module.REGISTRY["add"]
    code = [
        Instr("prim", add, (0, 0), (1,)),  # %1 = x + x            live to instr 3
        Instr("prim", add, (0, 1), (2,)),  # %2 = x + %1           live to instr 2
        Instr("prim", add, (2, 2), (3,)),  # %3 = %2 + %2          may not take %2's
        Instr("prim", add, (1, 3), (4,)),  # %4 = %1 + %3          returned
        Instr("prim", add, (3, 3), (5,)),  # %5 = %3 + %3
    ]
    plan, count = buffers.plan(code, {4, 5}, info)
    number = {i: n for i, (n, _) in plan.items()}
    assert set(number) == {0, 1, 2}  # returned values are not buffered
    assert number[0] != number[1]  # %1 still live when %2 is computed
    assert number[2] not in (number[0], number[1])  # %1 live, %2 is its input
    assert count == 3


def test_a_value_viewed_by_a_later_op_stays_alive_with_the_view():
    info = {s: ((2, 2), np.dtype(np.float32), "") for s in range(10)}
    info[2] = ((4,), np.dtype(np.float32), "")
    reg = primitive_module.REGISTRY
    code = [
        Instr("prim", reg["add"], (0, 0), (1,)),  # %1 buffered
        Instr("prim", reg["reshape"], (1,), (2,), {"shape": (4,)}),  # %2 may view %1
        Instr("prim", reg["add"], (0, 0), (3,)),  # must not take %1's buffer: %2 is read later
        Instr("prim", reg["negative"], (2,), (4,)),  # reads the view
        Instr("prim", reg["add"], (3, 3), (5,)),
    ]
    plan, _ = buffers.plan(code, {4, 5}, info)
    assert plan[0][0] != plan[2][0]


def test_a_fresh_result_does_not_keep_its_inputs_buffer_alive():
    """An op seen at trace time to return new memory (a reduction) ends its input's
    lifetime at its own read; a view (reshape) carries it on."""
    info = {s: ((2, 2), np.dtype(np.float32), "") for s in range(10)}
    reg = primitive_module.REGISTRY
    for fresh, reused in ((True, True), (False, False)):
        code = [
            Instr("prim", reg["add"], (0, 0), (1,)),
            Instr("prim", reg["reduce_sum"], (1,), (2,), {"axis": (0,)}, fresh=fresh),
            Instr("prim", reg["add"], (0, 0), (3,)),
            Instr("prim", reg["negative"], (2,), (4,)),
            Instr("prim", reg["add"], (3, 3), (5,)),
        ]
        plan, _ = buffers.plan(code, {4, 5}, info)
        assert (plan[0][0] == plan[2][0]) is reused


def test_tracing_marks_views_and_pass_throughs_as_not_fresh():
    @ks.function
    def f(x):
        y = x * 2.0
        return ks.reshape(y, [-1]), ks.reduce_sum(y, axis=0), ks.stop_gradient(y)

    f(ks.ones((2, 3)))
    (concrete,) = f.concrete_functions()
    fresh = {instr.label: instr.fresh for instr in concrete.root.instrs}
    assert fresh == {"multiply": True, "reshape": False, "reduce_sum": True,
                     "stop_gradient": False}


def test_a_value_reaching_a_kept_effect_through_other_ops_is_not_buffered():
    info = {s: ((3,), np.dtype(np.float32), "") for s in range(10)}
    reg = primitive_module.REGISTRY
    code = [
        Instr("prim", reg["add"], (0, 0), (1,)),
        Instr("prim", reg["reshape"], (1,), (2,), {"shape": (3,)}),
        Instr("effect", print, (2,), ()),  # may keep %2, a view of %1
        Instr("prim", reg["add"], (0, 0), (3,)),
        Instr("effect", print, (3,), (), borrows=True),  # reads %3 during the call only
        Instr("prim", reg["add"], (0, 0), (4,)),
    ]
    plan, _ = buffers.plan(code, {4}, info)
    assert 0 not in plan and 3 in plan


def _special_values(dtype):
    values = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-42, 3e38, 7.0])
    if np.dtype(dtype).kind == "f":
        return values.astype(dtype)
    return np.array([0, 1, -3, 7, 127, -128, 5, 2, -1, 9], dtype)


@pytest.mark.parametrize("name", sorted(primitive_module.REGISTRY))
def test_every_out_form_computes_its_forwards_bits(name):
    prim = primitive_module.REGISTRY[name]
    for dtype in (np.float32, np.float64, np.int32):
        a = _special_values(dtype).reshape(2, 5)
        b = np.roll(_special_values(dtype), 3).reshape(2, 5)
        shaped = {"matmul": (a, b.T.copy()), "relu": (a,)}
        arity = len(shaped.get(name, ()))
        if not arity:
            arity = getattr(prim.forward, "nin", 2 if name in ("add", "subtract",
                                                               "multiply") else 0)
        inputs = shaped.get(name, (a, b)[:arity])
        attrs = {"transpose_a": False, "transpose_b": False} if name == "matmul" else {}
        with np.errstate(all="ignore"):
            try:
                want = prim.forward(*inputs, **attrs)
            except TypeError:  # (a ufunc without a loop for this dtype)
                continue
        info = {i: (np.shape(x), np.asarray(x).dtype, "") for i, x in enumerate(inputs)}
        info[len(inputs)] = (want.shape, want.dtype, "")
        form = buffers.out_form(Instr("prim", prim, range(len(inputs)), (len(inputs),),
                                      attrs), info)
        if form is None:
            continue
        out = np.full_like(want, 3)
        with np.errstate(all="ignore"):
            got = form(*inputs, **attrs, out=out)
        assert got is out
        assert want.dtype == out.dtype and want.tobytes() == out.tobytes(), (name, dtype)


@pytest.mark.cpu
def test_by_default_only_large_results_get_buffers(monkeypatch):
    monkeypatch.undo()
    f = ks.function(lambda x: ks.reduce_sum((x * 2.0) * (x + 1.0)))
    small, large = ks.ones((64, 64)), ks.ones((1024, 1024))
    assert " in buffer " not in _listing(f, small)
    assert _listing(f, large).count(" in buffer ") == 3
    for _ in range(CALLS):
        assert _same(f(large), np.float32(4 * 1024 * 1024))


def test_programs_serving_several_shapes_reuse_no_buffers():
    f = ks.function(lambda x: ks.reduce_sum((x * 2.0) * (x + 1.0), axis=1),
                    reduce_retracing=True)
    for n in (2, 3, 2, 5, 3, 2):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        assert _same(f(x), ((x * 2.0) * (x + 1.0)).sum(axis=1))
    assert " in buffer " not in _listing(f, np.ones((2, 4), np.float32))


@pytest.mark.gpu
def test_replays_on_the_gpu_reuse_buffers_and_equal_eager():
    with ks.device("/gpu:0"):
        eager_model, eager_step = _mlp_step()
        model, step = _mlp_step()
        step = ks.function(step)
        rng = np.random.default_rng(1)
        for _ in range(CALLS):
            x = ks.constant(rng.normal(size=(8, 5)).astype(np.float32))
            y = ks.constant(rng.integers(0, 3, 8).astype(np.int32))
            assert _same(step(x, y).numpy(), eager_step(x, y).numpy())
        for ours, theirs in zip(model.variables, eager_model.variables):
            assert _same(ours.numpy(), theirs.numpy())
        assert " in buffer " in _listing(step, x, y)


class _TakingExchange:
    """Stands for a gradient exchange across ranks: takes the gradients backward passes hand
    over from 256 KiB, and records, per call, which it was handed (and so may overwrite);
    returns them unchanged."""

    takes_handed_over = True

    def __init__(self):
        self.calls = []
        self.handed = []

    def __call__(self, prepared):
        self.calls.append([any(grad is a for a in self.handed) for grad, _ in prepared])
        self.handed.clear()
        return prepared


@pytest.fixture
def taker(monkeypatch):
    """A `_TakingExchange` set as the tape's gradient taker for the test."""
    exchange = _TakingExchange()
    monkeypatch.setattr(tape_module, "_taker", None)  # restored after the test
    tape_module.set_gradient_taker(exchange.handed.append, 256 << 10)
    return exchange


def _taking_step(exchange, after=None, returns_gradient=False):
    """A compiled step on a 784 x 256 kernel (784 KiB of gradient) and a bias, whose
    optimizer's exchange takes handed-over gradients."""
    kernel = ks.Variable(np.full((784, 256), 0.01, np.float32))
    bias = ks.Variable(np.zeros(256, np.float32))
    optimizer = ks.optimizers.SGD(0.1)
    optimizer.gradient_exchange = exchange

    @ks.function
    def step(x):
        with ks.GradientTape() as tape:
            loss = ks.reduce_sum(ks.matmul(x, kernel) + bias)
        grads = tape.gradient(loss, [kernel, bias])
        optimizer.apply_gradients(zip(grads, [kernel, bias]))
        if after is not None:
            return after(grads)
        return grads[0] if returns_gradient else loss

    return step, exchange, kernel


def test_a_replay_hands_its_large_dead_gradients_to_an_exchange_that_takes_them(taker):
    step, exchange, kernel = _taking_step(taker)
    x = ks.constant(np.ones((4, 784), np.float32))
    for _ in range(5):
        step(x)
    # traced calls run eagerly (a tape under a trace hands nothing over);
    # every replay hands over the kernel's gradient, never the small bias's
    assert exchange.calls[-1] == [True, False]
    assert step.trace_count < 5
    listing = str(step.get_concrete_function(x))
    assert "SGD.apply[2 variables](" in listing and " handed over: %" in listing
    np.testing.assert_allclose(kernel.numpy(), 0.01 - 5 * 0.1 * 4, rtol=1e-6)


@pytest.mark.parametrize("case", ["returned", "read after the update"])
def test_a_gradient_the_step_still_needs_is_never_handed_over(case, taker):
    if case == "returned":
        step, exchange, _ = _taking_step(taker, returns_gradient=True)
    else:
        step, exchange, _ = _taking_step(taker, after=lambda grads: ks.reduce_sum(grads[0]))
    x = ks.constant(np.ones((4, 784), np.float32))
    for _ in range(5):
        result = step(x)
    assert all(call == [False, False] for call in exchange.calls)
    expected = 4.0 if case == "returned" else 4.0 * 784 * 256
    np.testing.assert_allclose(np.asarray(result.numpy()).max(), expected)
