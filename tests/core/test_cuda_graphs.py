"""CUDA-graph replay of compiled steps, and the counter-based random stream it needs.

The capture plan (which programs can be captured, and why not), the host side of
the effects while a graph replays, and the Philox stream's reference arithmetic are
tested on the CPU; the graphs themselves (marked `gpu`) against the plain replay,
bit for bit.
"""

import re

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend, philox
from kerasish.core.function import graphs

# ------------------------------------------------------------------------ the Philox stream


def test_philox_matches_random123s_known_answer():
    assert [hex(w) for w in philox.philox_blocks(0, 0, 1)[0]] == [
        "0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]


def test_philox_blocks_follow_the_counter_and_the_key():
    blocks = philox.philox_blocks(7, 10, 5)
    assert np.array_equal(blocks[2:], philox.philox_blocks(7, 12, 3))  # block b is f(key, b)
    assert not np.array_equal(blocks, philox.philox_blocks(8, 10, 5))
    wrapped = philox.philox_blocks(7, 2**32 - 1, 2)  # the counter's high word is used
    assert not np.array_equal(wrapped[1], philox.philox_blocks(7, 0, 1)[0])


def test_host_stream_draws_advance_the_counter_and_repeat_from_a_state():
    stream = philox.PhiloxStream(3, ("cpu", 0))
    saved = stream.state.copy()
    a = stream.random((2, 3))
    assert stream.counter == 3  # two values per block
    b = stream.standard_normal(4)
    assert stream.counter == 7  # one block per value
    c = stream.integers(5, 9, 3)
    assert stream.counter == 9 and c.dtype == np.int64 and set(c.tolist()) <= {5, 6, 7, 8}
    stream.state[...] = saved  # a restored state resumes the stream
    assert np.array_equal(stream.random((2, 3)), a)
    assert np.array_equal(stream.standard_normal(4), b)


def test_host_stream_distributions_are_what_they_claim():
    stream = philox.PhiloxStream(11, ("cpu", 0))
    u = stream.random(200_000)
    z = stream.standard_normal(200_000)
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.005
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    counts = np.bincount(stream.integers(0, 4, 40_000), minlength=4)
    assert counts.min() > 9_500


def test_host_stream_refuses_other_dtypes_and_empty_ranges():
    stream = philox.PhiloxStream(1, ("cpu", 0))
    with pytest.raises(TypeError, match="float64 values"):
        stream.random(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"high \(2\) must be greater than low \(2\)"):
        stream.integers(2, 2, 3)


def test_gpu_kernels_compute_the_reference_on_the_cpu(tmp_path):
    """The CUDA source of the draws, compiled for the host, against the NumPy reference."""
    from tests import cuda_harness

    kernels = {f"k_{name}": philox._SOURCES[name] + (philox._PREAMBLE,)
               for name in ("random", "normal", "integers")}
    library = cuda_harness.build_on_cpu(kernels, tmp_path)
    state = np.array([philox.key_from(5), 123], np.uint64)
    out = np.empty(7)
    cuda_harness.run(library, "k_random", [state], [out])
    assert np.array_equal(out, philox._host_random(int(state[0]), 123, 7))
    cuda_harness.run(library, "k_normal", [state], [out])
    np.testing.assert_allclose(out, philox._host_normal(int(state[0]), 123, 7), rtol=1e-13)
    ints = np.empty(7, np.int64)
    cuda_harness.run(library, "k_integers",
                     [state, np.array([-3], np.int64), np.array([10], np.uint64)], [ints])
    assert np.array_equal(ints, philox._host_integers(int(state[0]), 123, 7, -3, 10))


# ------------------------------------------------------------------ the capture plan (CPU)


def _as_if_on_gpu(step, *args):
    """`step`'s program, read as if every array had been on the GPU when traced."""
    concrete = step.get_concrete_function(*args)
    concrete.gpu_slots = set(range(concrete.n_slots))
    return concrete


def _training_step(extra=None):
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Dense(4, activation="relu"), ks.layers.Dense(1)])
    optimizer = ks.optimizers.Adam(0.01)

    @ks.function
    def step(x, y):
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if extra is not None:
            extra(loss)
        return loss

    return step, model, optimizer


X, Y = np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32)


def test_a_training_step_with_an_optimizer_can_be_captured():
    step, _, _ = _training_step()
    assert graphs.capture_reason(_as_if_on_gpu(step, X, Y)) is None


@pytest.mark.cpu
def test_a_cpu_program_is_never_captured_and_says_so():
    step, _, _ = _training_step()
    concrete = step.get_concrete_function(X, Y)
    assert graphs.capture_reason(concrete) == "the program runs on the CPU"
    assert "replayed" not in str(concrete)  # the listing mentions graphs on the GPU only


@pytest.mark.parametrize("extra, reason", [
    (lambda loss: ks.print(loss), r"`print` .* runs on the host on every call"),
    (lambda loss: float(loss) > 1.0, r"turned into a Python value at .* \(a guard\)"),
    (lambda loss: ks.random.get_global_generator().uniform([2]),
     r"random draw .* is made on the host \(a ks.random.Generator\)"),
])
def test_what_keeps_a_program_out_of_a_graph_is_named(extra, reason):
    step, _, _ = _training_step(extra)
    assert graphs.capture_reason(_as_if_on_gpu(step, X, Y)) is not None
    assert re.search(reason, graphs.capture_reason(_as_if_on_gpu(step, X, Y)))


def test_a_program_serving_several_shapes_is_not_captured():
    fn = ks.function(lambda x: x * 2.0, reduce_retracing=True)
    concrete = _as_if_on_gpu(fn, np.ones(3, np.float32))
    assert "several input shapes" in graphs.capture_reason(concrete)


def test_an_op_on_a_host_array_keeps_the_program_plain():
    table = ks.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    fn = ks.function(lambda x: x @ ks.transpose(table))
    concrete = fn.get_concrete_function(np.ones((2, 3), np.float32))
    concrete.gpu_slots = set(range(concrete.n_inputs)) | {
        s for s in range(concrete.n_slots)
        if s not in concrete.constants and s not in concrete.folded}
    assert "reads or makes a host array" in graphs.capture_reason(concrete)


def test_a_check_after_a_change_of_state_keeps_the_program_plain():
    v = ks.Variable([1.0])
    params = ks.constant(np.ones((4, 2), np.float32))

    def f(i):
        v.assign_add([1.0])
        return ks.gather(params, i)

    concrete = _as_if_on_gpu(ks.function(f), np.array([1, 2]))
    assert re.search(r"`checked_indices` at .* checks its input after a change of state",
                     graphs.capture_reason(concrete))


@pytest.mark.cpu  # it interprets the CPU program on NumPy arrays
def test_the_capture_runs_checks_on_the_device_and_computes_what_the_replay_computes():
    params = ks.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    wider = ks.constant(np.arange(10, dtype=np.float32).reshape(5, 2))

    def f(i, x):
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = ks.reduce_sum(ks.gather(params, i) * x) + ks.reduce_sum(ks.gather(wider, i) * x)
        return y, tape.gradient(y, x)

    fn = ks.function(f)
    good = (np.array([3, 0]), np.array([[0.5, -1.0], [2.0, 1.0]], np.float32))
    for _ in range(3):
        want = fn(*good)
    concrete = fn.get_concrete_function(*good)
    assert graphs.capture_reason(_as_if_on_gpu(fn, *good)) is None

    def interpret(i, x):
        env = concrete._template[:]
        env[:2] = [i, x]
        checks = []
        graphs.run_instructions(concrete.root.code, env, checks)
        return env, checks

    env, checks = interpret(*good)
    assert [instr.label for instr, _ in checks] == ["checked_indices", "checked_indices"]
    assert not any(bool(flag) for _, flag in checks)
    got = concrete.root.end.build(env, ks.Tensor, ks.IndexedSlices)
    assert np.array_equal(got[0].numpy(), want[0].numpy())
    assert np.array_equal(got[1].numpy(), want[1].numpy())
    bad = np.array([1, 4])  # outside [0, 4), not [0, 5) (NumPy's take then refuses it; CuPy's
    # would wrap it: the graph reads the flags before anything changes)
    flags = [bool(instr.op.device_check(bad, **instr.attrs)[1]) for instr, _ in checks]
    assert flags == [True, False]
    with pytest.raises(ks.InvalidArgumentError, match=r"indices\[1\] = 4 is not in \[0, 4\)"):
        checks[0][0].callable()(bad)


# ------------------------------------------------ effects while captured or replayed (CPU)


@pytest.fixture
def graph_mode():
    def set_mode(mode):
        backend.graph_state.mode = mode
    yield set_mode
    backend.graph_state.mode = None


def test_a_variable_update_changes_only_the_array_while_captured(graph_mode):
    v = ks.Variable([1.0, 2.0])
    version = v._version
    graph_mode("capture")
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [2.0, 3.0] and v._version == version
    graph_mode("host")  # the graph updates the array; the host moves the version on
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [2.0, 3.0] and v._version == version + 1


@pytest.mark.cpu
def test_an_optimizer_update_counts_its_step_only_outside_the_capture(graph_mode):
    step, model, optimizer = _training_step()
    step(X, Y)
    step(X, Y)  # traced, checked
    concrete = step.get_concrete_function(X, Y)
    update = next(i for i in concrete.root.code if i.kind == "effect")
    grads = [np.zeros(v.shape, np.float32) for v in model.trainable_variables]
    before = int(optimizer.iterations.numpy())
    graph_mode("capture")
    update.op(*grads)
    assert int(optimizer.iterations.numpy()) == before
    graph_mode(None)
    update.op(*grads)
    assert int(optimizer.iterations.numpy()) == before + 1
    arrays = update.op.graph_state()
    assert arrays[0] is model.trainable_variables[0]._value and len(arrays) == 3 * 4


@pytest.mark.cpu  # (NumPy arrays take the rule's passes: the test reads the step count)
def test_an_update_run_ahead_of_its_check_can_be_put_back(graph_mode):
    # a graph replay runs an update's host side before it knows that the inputs passed
    # their check, collecting in `undo` what puts the optimizer's step state back
    var = ks.Variable(np.ones(3, np.float32))
    nadam = ks.optimizers.Nadam(0.1)
    nadam.apply_gradients([(ks.ones(3), var)])
    run = nadam.replay_plan([var])
    before = int(nadam.iterations.numpy()), float(nadam.u_product.numpy())
    graph_mode("host")
    backend.graph_state.undo = []
    try:
        run(np.ones(3, np.float32))
        undo = backend.graph_state.undo
    finally:
        backend.graph_state.undo = None
    assert int(nadam.iterations.numpy()) == before[0] + 1
    assert float(nadam.u_product.numpy()) != before[1]
    for restore in reversed(undo):
        restore()
    assert (int(nadam.iterations.numpy()), float(nadam.u_product.numpy())) == before
    graph_mode(None)  # outside a replay nothing is collected
    run(np.ones(3, np.float32))
    assert int(nadam.iterations.numpy()) == before[0] + 1 and backend.graph_state.undo is None


def test_the_graph_kernel_of_an_update_rule_reads_its_numbers_from_memory():
    from kerasish.optimizers.adam import _ADAM_RULE

    in_params, out_params, body, name = _ADAM_RULE.cuda_kernel(scalars_in_memory=True)
    assert in_params == "T grad, raw float64 ks_scalars, int64 ks_offset"
    assert "const T beta_1 = (T)ks_scalars[ks_offset + 1];" in body
    assert name == "ks_adam_graph" and out_params == "T param, T m, T v"
    direct = _ADAM_RULE.cuda_kernel()
    assert direct[2].split("\n")[-1] == body.split("\n")[-1]  # the same statements


# --------------------------------------------------------------------- on the GPU


def _gpu_run(graphs_on: bool, steps: int, dropout: float = 0.0, optimizer="adam"):
    """Losses and weights of `steps` compiled MLP steps from seed 5, with or without graphs."""
    graphs.enable(graphs_on)
    try:
        with ks.device("/gpu:0"):
            ks.random.set_seed(5)
            layers = [ks.layers.Dense(32, activation="relu")]
            layers += [ks.layers.Dropout(dropout)] if dropout else []
            model = ks.Sequential(layers + [ks.layers.Dense(3)])
            opt = (ks.optimizers.Adam(ks.optimizers.schedules.ExponentialDecay(0.01, 2, 0.5))
                   if optimizer == "adam" else ks.optimizers.SGD(0.1, momentum=0.9))
            loss_fn = ks.losses.SparseCategoricalCrossentropy(from_logits=True)

            @ks.function
            def step(x, y):
                with ks.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            rng = np.random.default_rng(0)
            losses = []
            for _ in range(steps):
                x = ks.constant(rng.random((16, 8), np.float32))
                y = ks.constant(rng.integers(0, 3, 16).astype(np.int32))
                losses.append(step(x, y).numpy())
            kind = step.get_concrete_function(x, y).replay_kind  # (while graphs_on holds)
            return losses, [v.numpy() for v in model.variables], kind
    finally:
        graphs.enable(True)


@pytest.mark.gpu
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_graph_replay_equals_plain_replay_bit_for_bit(optimizer):
    losses, weights, kind = _gpu_run(True, 8, optimizer=optimizer)
    plain_losses, plain_weights, plain_kind = _gpu_run(False, 8, optimizer=optimizer)
    assert kind == "as a CUDA graph", kind
    assert "CUDA graphs are turned off" in plain_kind, plain_kind
    assert all(np.array_equal(a, b) for a, b in zip(losses, plain_losses))
    assert all(np.array_equal(a, b) for a, b in zip(weights, plain_weights))


@pytest.mark.gpu
def test_dropout_masks_differ_between_replays_and_match_the_plain_replay():
    losses, weights, kind = _gpu_run(True, 8, dropout=0.5)
    plain_losses, plain_weights, _ = _gpu_run(False, 8, dropout=0.5)
    assert kind == "as a CUDA graph", kind
    assert all(np.array_equal(a, b) for a, b in zip(losses, plain_losses))
    assert all(np.array_equal(a, b) for a, b in zip(weights, plain_weights))


@pytest.mark.gpu
def test_a_captured_draw_advances_the_device_counter_and_resumes_from_its_state():
    with ks.device("/gpu:0"):
        ks.random.set_seed(9)
        draw = ks.function(lambda x: x + ks.random.uniform([4], seed=3))
        zero = ks.zeros([4])
        first = [draw(zero).numpy() for _ in range(4)]  # trace, check, capture, replay
        assert draw.get_concrete_function(zero).replay_kind == "as a CUDA graph"
        stream = ks.core.random._generators[(("gpu", 0), 3)]
        saved = stream.state.copy()
        later = [draw(zero).numpy() for _ in range(3)]
        assert len({a.tobytes() for a in first + later}) == 7  # new numbers on every call
        stream.state[...] = saved  # a restored state: the graph draws the same again
        assert all(np.array_equal(a, b) for a, b in zip(later, [draw(zero).numpy()
                                                               for _ in range(3)]))


@pytest.mark.gpu
def test_gpu_draws_match_the_host_reference():
    gpu = philox.PhiloxStream(21, ("gpu", 0))
    host = philox.PhiloxStream(21, ("cpu", 0))
    assert np.array_equal(backend.to_numpy(gpu.random((3, 5))), host.random((3, 5)))
    np.testing.assert_allclose(backend.to_numpy(gpu.standard_normal(9)),
                               host.standard_normal(9), rtol=1e-13)
    assert np.array_equal(backend.to_numpy(gpu.integers(-4, 1000, 11)),
                          host.integers(-4, 1000, 11))
    assert gpu.counter == host.counter == 8 + 9 + 6


@pytest.mark.gpu
def test_a_guard_keeps_the_plain_replay_and_says_why():
    with ks.device("/gpu:0"):
        fn = ks.function(lambda x: x * 2.0 if float(ks.reduce_sum(x)) > 0 else x)
        for _ in range(3):
            fn(ks.ones([3]))
        assert "(a guard)" in fn.get_concrete_function(ks.ones([3])).replay_kind


@pytest.mark.gpu
def test_an_op_that_waits_for_the_host_keeps_the_plain_replay():
    from kerasish.core.primitive import Primitive, apply

    scaled = Primitive("scaled_by_sum", lambda x: x * float(x.sum()), register=False)
    with ks.device("/gpu:0"):
        fn = ks.function(lambda x: apply(scaled, (x,), {}))  # reads the device on the host
        for _ in range(3):
            got = fn(ks.constant([1.0, 2.0]))
        assert got.numpy().tolist() == [3.0, 6.0]
        kind = fn.get_concrete_function(ks.constant([1.0, 2.0])).replay_kind
        assert kind.startswith("plain replay: capturing it failed"), kind


@pytest.mark.gpu
@pytest.mark.parametrize("optimizer", ["SGD", "Nadam"])  # (Nadam also keeps a running product)
def test_a_graph_checks_indices_before_any_state_changes(optimizer):
    with ks.device("/gpu:0"):
        params = ks.Variable([[1.0], [2.0]])
        table = ks.constant([[3.0], [4.0]])
        opt = getattr(ks.optimizers, optimizer)(0.5)

        @ks.function
        def step(i):  # a dense gradient (a sparse update reads its row indices on the host)
            with ks.GradientTape() as tape:
                loss = ks.reduce_sum(ks.gather(table, i) * params)
            opt.apply_gradients([(tape.gradient(loss, params), params)])
            return loss

        for _ in range(3):
            step(ks.constant([1, 0]))
        concrete = step.get_concrete_function(ks.constant([1, 0]))
        assert concrete.replay_kind == "as a CUDA graph", concrete.replay_kind
        before = params.numpy().copy(), [v.numpy().copy() for v in opt._step_variables()]
        with pytest.raises(ks.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 2\)"):
            step(ks.constant([1, 7]))  # (the update's host side ran while the GPU checked)
        assert np.array_equal(params.numpy(), before[0])
        assert [v.numpy() for v in opt._step_variables()] == before[1]
        assert int(opt.iterations.numpy()) == before[1][0]
        step(ks.constant([1, 0]))  # and the graph goes on
        assert int(opt.iterations.numpy()) == before[1][0] + 1


@pytest.mark.gpu
def test_a_variable_given_a_new_array_is_captured_again():
    with ks.device("/gpu:0"):
        v = ks.Variable([1.0, 2.0])
        bump = ks.function(lambda x: v.assign_add(x))
        for _ in range(3):
            bump(ks.ones([2]))
        v._value = backend.cupy.zeros(2, np.float32)  # (what a restore that replaces does)
        bump(ks.ones([2]))
        concrete = bump.get_concrete_function(ks.ones([2]))
        assert v.numpy().tolist() == [1.0, 1.0]
        assert concrete.graph_status == "captured again: variable 'Variable' holds a new array" \
            or concrete.graph_captures == 2
