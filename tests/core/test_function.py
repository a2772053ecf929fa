"""ks.function: traced programs replay exactly what eager runs, guards follow Python control
flow, variables stay live, tapes differentiate through compiled calls."""

import io
import os
import warnings

import numpy as np
import pytest

import kerasish as ks
from tests.core.test_gradients import SAMPLES


def _same(a, b) -> bool:
    """Bit for bit equal (NaN equal to NaN); a Python list takes the dtype of `a`."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype) if isinstance(b, list) else np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


# -------------------------------------------------------------------------- the seeds' Huber


def huber_loss(y, y_predicted, m=1.0):
    t = y - y_predicted
    return t ** 2 if ks.abs(t) <= m else m * (2 * ks.abs(t) - m)


def _huber_trainer():
    w, b = ks.Variable(0.0), ks.Variable(0.0)
    optimizer = ks.optimizers.SGD(0.01)

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = huber_loss(y, x * w + b)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        return loss

    return (w, b), step


def test_huber_step_compiled_equals_eager_on_both_branches():
    rng = np.random.default_rng(0)
    xs = (rng.normal(size=120) * 3).astype(np.float32)
    ys = (3 * xs + 2 + rng.normal(size=120) * 2).astype(np.float32)
    eager_vars, eager_step = _huber_trainer()
    compiled_vars, compiled_step = _huber_trainer()
    compiled_step = ks.function(compiled_step)
    for x, y in zip(xs, ys):
        expected = eager_step(ks.constant(x), ks.constant(y))
        got = compiled_step(ks.constant(x), ks.constant(y))
        assert _same(got, expected)
    for ours, theirs in zip(compiled_vars, eager_vars):
        assert _same(ours, theirs)
    assert compiled_step.trace_count == 2  # one signature, both outcomes of the `if`
    listing = str(compiled_step.get_concrete_function(ks.constant(1.0), ks.constant(1.0)))
    assert "guard bool(" in listing and "True -> segment" in listing
    assert "False -> segment" in listing and "SGD.apply[2 variables]" in listing


def test_defun_is_function():
    assert ks.defun is ks.function


# -------------------------------------------------------------------------- every op family


def _sample_cases() -> list:
    return [pytest.param(case, id=f"{name}-{i}")
            for name, cases in sorted(SAMPLES.items()) for i, case in enumerate(cases)]


@pytest.mark.parametrize("case", _sample_cases())
def test_replay_equals_eager_for_every_gradient_sample(case):
    """Each gradient-check sample: forward and gradient, compiled then replayed on new values."""
    ints = case.ints

    def forward(*xs):
        return case.fn(*xs, *ints)

    def gradient(*xs):
        with ks.GradientTape() as tape:
            tape.watch(list(xs))
            y = case.fn(*xs, *ints)
        return tape.gradient(y, list(xs))

    compiled_forward, compiled_gradient = ks.function(forward), ks.function(gradient)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for scale in (1.0, 0.75):  # the first call traces, the second replays
            inputs = [ks.constant(np.asarray(v) * scale) for v in case.inputs]
            assert _same(compiled_forward(*inputs), forward(*inputs))
            for got, expected in zip(compiled_gradient(*inputs), gradient(*inputs)):
                if expected is None:
                    assert got is None
                else:
                    assert _same(ks.convert_to_tensor(got), ks.convert_to_tensor(expected))


# -------------------------------------------------------------------------- signatures


def test_new_shapes_retrace_and_same_shapes_replay():
    calls = []

    @ks.function
    def double(x):
        calls.append(1)  # a Python side effect: trace time only
        return x * 2.0

    double(ks.ones((2,)))
    double(ks.zeros((2,)))  # runs the Python again once, to check the program
    double(ks.zeros((2,)))
    assert double.trace_count == 1 and len(calls) == 2
    assert _same(double(ks.ones((3,))), np.full(3, 2.0, np.float32))
    assert double.trace_count == 2
    assert _same(double(np.ones((2,), np.float32)), np.full(2, 2.0, np.float32))
    assert double.trace_count == 2  # a NumPy array of a traced shape replays


def test_python_arguments_are_part_of_the_signature():
    @ks.function
    def scaled(x, factor):
        return x * factor

    assert _same(scaled(ks.ones(()), 2.0), np.float32(2.0))
    assert _same(scaled(ks.ones(()), 3.0), np.float32(3.0))
    assert scaled.trace_count == 2


def test_retracing_warning_names_the_changing_argument():
    @ks.function
    def f(x, n):
        return x + n

    with pytest.warns(RuntimeWarning, match="argument `n` .* keeps changing"):
        for n in range(7):
            f(ks.ones(()), n)


def test_input_signature_rejects_an_argument_that_does_not_fit():
    spec = ks.data.TensorSpec(shape=(None, 3), dtype="float32")
    f = ks.function(lambda x: x + 1.0, input_signature=[spec])
    f(ks.ones((2, 3)))
    with pytest.raises(TypeError, match=r"argument 0 has shape \(2, 4\).*input_signature\[0\]"):
        f(ks.ones((2, 4)))


def test_methods_keep_programs_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @ks.function
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    assert _same(a(ks.ones(())), np.float32(2.0))
    assert _same(b(ks.ones(())), np.float32(3.0))
    assert _same(a(ks.ones(())), np.float32(2.0))
    assert a.__call__.trace_count == 1 and b.__call__.trace_count == 1


# -------------------------------------------------------------------------- guards


def test_guards_follow_python_control_flow_both_ways():
    @ks.function
    def relu_or_square(x):
        if ks.reduce_sum(x) > 0:
            return ks.nn.relu(x)
        return x * x

    for values in ([1.0, -0.5], [-1.0, -2.0], [3.0, 1.0], [-1.0, 0.5]):
        x = ks.constant(values)
        expected = ks.nn.relu(x) if sum(values) > 0 else x * x
        assert _same(relu_or_square(x), expected)
    assert relu_or_square.trace_count == 2


def test_int_conversion_is_guarded():
    @ks.function
    def repeat(x, n):
        return ks.concat([x] * int(n), axis=0)

    for n in (2, 3, 2, 3, 2):
        assert repeat(ks.ones((1,)), ks.constant(n)).shape == (n,)
    assert repeat.trace_count == 2


def test_a_guard_with_many_outcomes_falls_back_to_eager_and_says_so():
    @ks.function
    def f(x):
        return x * float(x)

    with pytest.warns(RuntimeWarning, match="more than 8 different values; calls meeting"):
        for i in range(24):  # (the first calls also check the program)
            assert _same(f(ks.constant(float(i))), np.float32(i * i))


def test_a_large_conversion_runs_the_signature_eagerly_and_says_so():
    @ks.function
    def f(x):
        return ks.constant(x.numpy() * 2)

    with pytest.warns(RuntimeWarning, match=r"shape \(100,\) is turned into a Python value"):
        f(ks.ones((100,)))
    assert _same(f(ks.ones((100,)) * 3), np.full(100, 6.0, np.float32))


# -------------------------------------------------------------------------- variables, effects


def test_variables_are_live_between_calls():
    v = ks.Variable([1.0, 2.0])

    @ks.function
    def read_and_bump(x):
        y = v * x
        v.assign_add(x)
        return y

    assert _same(read_and_bump(ks.ones((2,))), [1.0, 2.0])
    v.assign([10.0, 20.0])  # from outside: the next call sees it
    assert _same(read_and_bump(ks.ones((2,))), [10.0, 20.0])
    assert _same(v, [11.0, 21.0])


def test_variables_may_be_created_on_the_first_trace_only():
    layer = ks.layers.Dense(2)

    @ks.function
    def apply(x):
        return layer(x)

    apply(ks.ones((1, 3)))  # builds the layer while tracing
    assert len(layer.variables) == 2
    apply(ks.ones((4, 3)))  # a new shape, no new variables: fine
    made = []

    @ks.function
    def make(x):
        made.append(ks.Variable(x, name="late"))
        return x

    make(ks.ones(()))
    with pytest.raises(ValueError, match=r"variable 'late' was created .* on a later trace"):
        make(ks.ones((2,)))


def test_ks_print_prints_on_every_call():
    stream = io.StringIO()

    @ks.function
    def f(x):
        ks.print("x =", x, output_stream=stream)
        return x + 1.0

    for value in (1.0, 2.0, 3.0):
        f(ks.constant(value))
    assert stream.getvalue() == "x = 1.0\nx = 2.0\nx = 3.0\n"
    assert f.trace_count == 1


def test_random_draws_are_fresh_on_every_call_as_in_eager():
    def draw():
        return ks.random.normal((3,)) + ks.random.uniform((3,))

    compiled = ks.function(draw)
    ks.random.set_seed(5)
    expected = [draw().numpy() for _ in range(3)]
    ks.random.set_seed(5)
    got = [compiled().numpy() for _ in range(3)]
    for a, b in zip(got, expected):
        assert _same(a, b)


def test_replay_failure_names_the_recorded_line():
    params = ks.constant([[1.0], [2.0]])

    @ks.function
    def pick(i):
        return ks.gather(params, i)

    pick(ks.constant([1]))
    pick(ks.constant([0]))  # traced, then checked: later calls replay
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"ks.function 'pick': checked_indices recorded at test_function.py:"
                             r"\d+ \(pick\) failed when replayed: gather: indices\[0\] = 5 is "
                             r"not in \[0, 2\)"):
        pick(ks.constant([5]))


def test_a_step_that_builds_its_model_is_checked_once_then_replayed():
    # the first trace builds the layers and the optimizer's slots; the next trace is the
    # steady program, checked by the one after it: the Python runs 3 times, not 9
    calls = []
    model = ks.Sequential([ks.layers.Dense(4, activation="relu"), ks.layers.Dense(1)])
    optimizer = ks.optimizers.Adam(0.01)

    @ks.function
    def step(x, y):
        calls.append(1)
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean(ks.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 3)).astype(np.float32), np.zeros((8, 1), np.float32)
    losses = [float(step(x, y)) for _ in range(10)]
    assert len(calls) == 3 and step.trace_count == 1
    assert losses[-1] < losses[0]


def test_replayed_index_ops_check_every_calls_indices():
    # NumPy wraps a negative index (and CuPy any index) without a word: the check is recorded
    params = ks.constant([[1.0], [2.0]])
    pick = ks.function(lambda i: ks.gather(params, i))
    xent = ks.function(ks.nn.sparse_softmax_cross_entropy_with_logits)
    logits = ks.constant([[1.0, 2.0, 3.0]] * 2)
    for _ in range(2):  # traced, then checked: later calls replay
        pick(ks.constant([1]))
        xent(ks.constant([0, 2]), logits)
    with pytest.raises(ks.InvalidArgumentError, match=r"gather: indices\[0\] = -1 is not in"):
        pick(ks.constant([-1]))
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"sparse_softmax_cross_entropy_with_logits: indices\[1\] = -1"):
        xent(ks.constant([0, -1]), logits)
    assert pick.trace_count == 1 and xent.trace_count == 1
    bad_rows = ks.function(lambda v, i: ks.scatter_rows(v, i, 2))
    for _ in range(2):
        bad_rows(ks.ones((1, 1)), ks.constant([1]))
    with pytest.raises(ks.InvalidArgumentError, match=r"scatter_rows: indices\[0\] = -2"):
        bad_rows(ks.ones((1, 1)), ks.constant([-2]))


# -------------------------------------------------------------------------- nesting, tapes


def test_nested_functions_inline():
    @ks.function
    def inner(x):
        return x * 3.0 if ks.reduce_sum(x) > 0 else -x

    @ks.function
    def outer(x):
        return inner(x) + 1.0

    for value in (1.0, -1.0, 2.0):
        assert _same(outer(ks.constant(value)), inner.python_function(ks.constant(value)) + 1.0)


def test_outer_tape_differentiates_through_a_compiled_call_to_second_order():
    @ks.function
    def cube(x):
        return x * x * x

    cube(ks.constant(2.0))  # traced and replayed first
    x = ks.constant(3.0)
    with ks.GradientTape() as outer:
        outer.watch(x)
        with ks.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0 and float(outer.gradient(dy, x)) == 18.0


def test_a_compiled_function_compiles_second_order_gradients_inside():
    @ks.function
    def second(x):
        with ks.GradientTape() as outer:
            outer.watch(x)
            with ks.GradientTape() as inner:
                inner.watch(x)
                y = ks.sin(x) * x
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    for value in (0.5, 1.5):
        x = ks.constant(value, dtype="float64")
        got = second(x)
        assert _same(got, second.python_function(x))
        assert np.isclose(float(got), 2 * np.cos(value) - value * np.sin(value), rtol=1e-12)


# -------------------------------------------------------------------------- checkpoints


def _model_and_step(seed):
    ks.random.set_seed(seed)
    model = ks.Sequential([ks.layers.Dense(4, activation="relu"), ks.layers.Dense(1)])
    optimizer = ks.optimizers.Adam(0.01)

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean(ks.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return model, optimizer, step


def test_checkpoints_move_between_compiled_and_eager_loops(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32)
    model, optimizer, step = _model_and_step(0)
    compiled = ks.function(step)
    for _ in range(3):
        compiled(x, y)
    path = ks.Checkpoint(model=model, optimizer=optimizer).save(os.path.join(tmp_path, "c"))
    for _ in range(2):
        reference = compiled(x, y)  # the compiled loop goes on
    # an eager loop restored from the compiled one's checkpoint continues identically
    other, other_optimizer, other_step = _model_and_step(9)
    other(x)
    ks.Checkpoint(model=other, optimizer=other_optimizer).restore(path)
    for _ in range(2):
        eager = other_step(x, y)
    assert _same(eager, reference)
    # and back: the compiled loop restored from an eager state replays on the restored values
    eager_path = ks.Checkpoint(model=other, optimizer=other_optimizer).save(
        os.path.join(tmp_path, "e"))
    expected = other_step(x, y)
    ks.Checkpoint(model=model, optimizer=optimizer).restore(eager_path)
    assert _same(compiled(x, y), expected)
    assert compiled.trace_count == 1


def test_fit_compiled_equals_eager_with_lazy_build_and_dropout():
    """The layers build while the step is traced (initializer draws run once, as in eager);
    dropout draws afresh on every replayed step."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 4)).astype(np.float32)
    y = rng.integers(0, 3, 40)
    weights = []
    for eager in (True, False):
        ks.random.set_seed(1)
        model = ks.Sequential([ks.layers.Dense(8, activation="relu"), ks.layers.Dropout(0.3),
                               ks.layers.Dense(3)])
        model.compile(ks.optimizers.Adam(0.01),
                      ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                      run_eagerly=eager)
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=True)
        weights.append(model.get_weights())
    for compiled, eager in zip(weights[1], weights[0]):
        assert _same(compiled, eager)


def test_a_compiled_method_does_not_keep_its_instance_alive():
    import gc
    import weakref

    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.dense = ks.layers.Dense(2)

        @ks.function
        def step(self, x):
            return self.dense(x)

    model = Model()
    for _ in range(3):
        model.step(ks.ones((1, 3)))
    assert model.step is model.step and model.step.trace_count == 1
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None


def test_a_constant_computed_from_the_data_outside_the_ops_makes_the_signature_eager():
    """Indices found with NumPy from a tensor's array (as library code may do) are no recorded
    op: the check on the second call sees them change and turns the signature eager, instead
    of replaying the first call's indices."""
    @ks.function
    def positives(x):
        return ks.gather(x, ks.constant(np.flatnonzero(x._value > 0)))

    with pytest.warns(RuntimeWarning, match="reads a constant computed from the data"):
        for values in ([1.0, -1.0, 2.0], [-1.0, 3.0, 4.0], [5.0, 6.0, -7.0], [-1.0, -2.0, 8.0]):
            x = ks.constant(values)
            assert _same(positives(x), [v for v in values if v > 0])


def test_a_function_taking_strings_runs_eagerly_without_a_warning(recwarn):
    """A string lookup turns strings into ids in Python (outside the recorded ops), as a
    model with a TextVectorization input does; eager is then the only way, and a warning
    would ask the user for a change they cannot make. The reason is still recorded."""
    lookup = ks.layers.StringLookup(vocabulary=["a", "b", "c"])
    table = ks.constant(np.arange(8, dtype=np.float32).reshape(4, 2))

    @ks.function
    def embed(words):
        return ks.gather(table, lookup(words))

    for words in (["a", "b"], ["c", "a"], ["zz", "c"], ["b", "b"]):
        got = embed(ks.constant(np.array(words)))
        assert _same(got, table.numpy()[[["", "a", "b", "c"].index(w) if w != "zz" else 0
                                         for w in words]])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    reason = embed.get_concrete_function(ks.constant(np.array(["a", "b"]))).eager_reason
    assert "reads a constant computed from the data" in reason and "takes strings" in reason


def test_python_state_that_changes_between_calls_is_reported_at_a_side_exit():
    repeats = {"n": 1}

    @ks.function
    def f(x):
        for _ in range(repeats["n"]):
            x = x + 1.0
        if ks.reduce_sum(x) > 0:
            return x
        return -x

    f(ks.constant(1.0))
    f(ks.constant(2.0))  # traced and checked: later calls replay
    repeats["n"] = 2
    with pytest.raises(RuntimeError, match=r"did not repeat the recorded computation .* "
                                           r"pass such values as arguments"):
        f(ks.constant(-5.0))


def test_reduce_retracing_keeps_one_program_where_the_ops_allow():
    layer = ks.layers.Dense(3)
    layer.build((None, 4))

    @ks.function(reduce_retracing=True)
    def forward(x):
        return ks.nn.relu(layer(x))

    for batch in (2, 5, 7, 2):
        x = ks.constant(np.random.default_rng(batch).normal(size=(batch, 4)), dtype="float32")
        assert _same(forward(x), forward.python_function(x))
    assert forward.trace_count == 1 and len(forward.concrete_functions()) == 1

    @ks.function(reduce_retracing=True)
    def batch_mean(x):  # divides by the batch size, a constant of each trace
        return ks.reduce_mean(x, axis=0)

    for batch in (2, 4, 2):
        x = ks.ones((batch, 3)) * float(batch)
        assert _same(batch_mean(x), np.full(3, batch, np.float32))
    assert batch_mean.trace_count == 2


def test_input_signature_with_none_dimensions_shares_a_program():
    spec = ks.data.TensorSpec(shape=(None, 2), dtype="float32")
    double = ks.function(lambda x: x * 2.0, input_signature=[spec])
    for batch in (1, 3, 4):
        assert _same(double(ks.ones((batch, 2))), np.full((batch, 2), 2.0, np.float32))
    assert double.trace_count == 1


def test_summaries_are_written_on_every_call(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

    @ks.function
    def step(x):
        loss = ks.reduce_sum(x * x)
        ks.summary.scalar("loss", loss)
        return loss

    writer = ks.summary.create_file_writer(str(tmp_path))
    for i, value in enumerate((1.0, 2.0, 3.0, 4.0)):
        with writer.as_default(step=i):  # the step is read on every call
            step(ks.constant([value]))
    writer.flush()
    assert step.trace_count == 1
    events = accumulator.EventAccumulator(str(tmp_path))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("loss")] == [
        (0, 1.0), (1, 4.0), (2, 9.0), (3, 16.0)]


def test_a_layer_whose_build_reads_values_on_the_host_still_compiles():
    """The orthogonal initializer (LSTM's recurrent kernel) works in NumPy while the first
    trace builds the layer: that trace is dropped, the next one records the built layer."""
    layer = ks.layers.Dense(6, kernel_initializer="orthogonal")

    @ks.function
    def forward(x):
        return layer(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(4):
            x = ks.ones((2, 9))
            assert _same(forward(x), forward.python_function(x))
    assert forward.trace_count == 1 and forward.concrete_functions()[0].eager_reason is None


def test_a_copied_model_compiles_its_own_steps():
    import copy

    model = ks.Sequential([ks.layers.Dense(2)])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
    model.fit(x, y, verbose=0)
    before = model.get_weights()[0].copy()
    twin = copy.deepcopy(model)
    twin.fit(x, y, verbose=0)
    assert _same(model.get_weights()[0], before)  # the copy trained itself, not the original
    assert not np.array_equal(twin.get_weights()[0], before)


def test_a_step_that_looks_a_variable_up_twice_replays_its_sparse_update():
    """Two lookups of one variable give one sparse gradient with both sets of rows; its
    indices used to be joined outside the recorded ops, and such a step ran eagerly."""
    table = ks.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    optimizer = ks.optimizers.SGD(0.5)

    @ks.function
    def step(first, second):
        with ks.GradientTape() as tape:
            loss = (ks.reduce_sum(ks.nn.embedding_lookup(table, first))
                    + ks.reduce_sum(ks.nn.embedding_lookup(table, second) ** 2))
        optimizer.apply_gradients([(tape.gradient(loss, table), table)])
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for first, second in (([0, 1], [1, 5]), ([2, 2], [3, 2]), ([4, 0], [0, 0])):
            step(np.array(first, np.int32), np.array(second, np.int32))
    concrete = step.concrete_functions()[0]
    assert step.trace_count == 1 and concrete.eager_reason is None
    expected = np.arange(12, dtype=np.float32).reshape(6, 2)
    for first, second in (([0, 1], [1, 5]), ([2, 2], [3, 2]), ([4, 0], [0, 0])):
        grad = np.zeros_like(expected)
        np.add.at(grad, first, 1.0)
        np.add.at(grad, second, 2 * expected[second])
        expected -= 0.5 * grad
    np.testing.assert_allclose(table.numpy(), expected, rtol=1e-6)
