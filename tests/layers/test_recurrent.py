"""Recurrent layers: cells, RNN, SimpleRNN/LSTM/GRU, Bidirectional, TimeDistributed, masking."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend, nest
from kerasish.core.ops import rnn_ops
from kerasish.testing import check_layer_gradients

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def sequences(batch=3, steps=5, features=4, dtype=np.float32):
    return RNG.standard_normal((batch, steps, features)).astype(dtype)


RECURRENT = [ks.layers.SimpleRNN, ks.layers.LSTM, ks.layers.GRU]


# ---------------------------------------------------------------- shapes and weights


@pytest.mark.parametrize("cls", RECURRENT)
@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("return_state", [False, True])
def test_output_shapes_match_compute_output_shape(cls, return_sequences, return_state):
    layer = cls(6, return_sequences=return_sequences, return_state=return_state)
    result = layer(sequences())
    expected = layer.compute_output_shape((3, 5, 4))
    if return_state:
        assert [r.shape for r in result] == [tuple(e) for e in expected]
        assert len(result) == 1 + len(layer.state_size)
    else:
        assert result.shape == expected == ((3, 5, 6) if return_sequences else (3, 6))


def test_weight_layouts_follow_keras():
    lstm, gru, simple = ks.layers.LSTM(4), ks.layers.GRU(4), ks.layers.SimpleRNN(4)
    gru_v1 = ks.layers.GRU(4, reset_after=False)
    for layer in (lstm, gru, simple, gru_v1):
        layer(sequences(features=3))
    assert [w.shape for w in lstm.weights] == [(3, 16), (4, 16), (16,)]
    assert [w.shape for w in gru.weights] == [(3, 12), (4, 12), (2, 12)]
    assert [w.shape for w in gru_v1.weights] == [(3, 12), (4, 12), (12,)]
    assert [w.shape for w in simple.weights] == [(3, 4), (4, 4), (4,)]
    assert [w.path for w in lstm.weights] == [  # Keras 3's paths: built inside the layer
        "lstm/lstm_cell/kernel", "lstm/lstm_cell/recurrent_kernel", "lstm/lstm_cell/bias"
    ]
    # unit_forget_bias: the forget gate (second block of i, f, c, o) starts at 1
    np.testing.assert_array_equal(lstm.cell.bias.numpy(), np.repeat([0.0, 1.0, 0.0, 0.0], 4))
    recurrent = lstm.cell.recurrent_kernel.numpy()  # orthogonal rows (4 x 16)
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(4), atol=1e-5)


def test_lstm_step_matches_the_equations():
    cell = ks.layers.LSTMCell(3, dtype="float64")
    x, h, c = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    output, (h1, c1) = cell(x, [h, c])
    w, u, b = (v.numpy() for v in cell.weights)
    z = x @ w + h @ u + b

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    i, f, g, o = np.split(z, 4, axis=1)
    c_expected = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    np.testing.assert_allclose(c1.numpy(), c_expected, rtol=1e-12)
    np.testing.assert_allclose(h1.numpy(), sigmoid(o) * np.tanh(c_expected), rtol=1e-12)
    np.testing.assert_array_equal(output.numpy(), h1.numpy())


@pytest.mark.parametrize("cls,kwargs", [
    (ks.layers.SimpleRNN, {}),
    (ks.layers.LSTM, {}),
    (ks.layers.GRU, {}),
    (ks.layers.GRU, {"reset_after": False}),
    (ks.layers.LSTM, {"return_sequences": True, "go_backwards": True}),
])
def test_gradients_match_finite_differences(cls, kwargs):
    layer = cls(3, dtype="float64", **kwargs)
    check_layer_gradients(layer, sequences(2, 4, 3, np.float64))


def _recorded(layer_class, steps, **kwargs):
    layer = layer_class(4, **kwargs)
    x = ks.constant(sequences(2, steps, 3))
    layer(x)
    with ks.GradientTape() as tape:
        tape.watch(x)
        layer(x)
    return [op.prim.name for op in tape._ops]


def test_backpropagation_through_time_records_each_step_once():
    """No per-step slicing of the sequence (whose gradient would be a full-size array per
    step): the sequence is cut by one split, and each step adds the same few ops."""
    short, long = _recorded(ks.layers.GRU, 4), _recorded(ks.layers.GRU, 8)
    for name in ("getitem", "scatter_into"):  # (GRU's bias row is read once, not per step)
        assert long.count(name) == short.count(name)
    # the gate splits of the input and recurrent parts, twice per step
    assert long.count("split") - short.count("split") == 8
    per_step = (len(long) - len(short)) / 4
    assert per_step == int(per_step) and per_step <= 16


@pytest.mark.parametrize("go_backwards", [False, True])
def test_the_fused_lstm_equals_the_step_by_step_cell(go_backwards):
    """One `lstm_sequence` op against the cell's recorded steps (an activation that is not
    the built-in tanh object takes them): the same outputs bit for bit, the same gradients."""
    kwargs = dict(return_sequences=True, return_state=True, go_backwards=go_backwards,
                  dtype="float64")
    fused = ks.layers.LSTM(5, **kwargs)
    steps = ks.layers.LSTM(5, activation=lambda v: ks.math.tanh(v), **kwargs)
    x = ks.constant(sequences(3, 6, 4, np.float64))
    fused(x)
    steps(x)
    steps.set_weights(fused.get_weights())
    results = []
    for layer in (fused, steps):
        with ks.GradientTape() as tape:
            tape.watch(x)
            out, h, c = layer(x)
            loss = ks.reduce_sum(out * out) + ks.reduce_sum(h * c)
        results.append((out, h, c, *tape.gradient(loss, [x] + layer.trainable_variables)))
    (out, h, c, *grads), (want_out, want_h, want_c, *want_grads) = results
    assert np.array_equal(out.numpy(), want_out.numpy())
    assert np.array_equal(h.numpy(), want_h.numpy()) and np.array_equal(c.numpy(), want_c.numpy())
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.cpu  # (numba's loops run on NumPy arrays)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numbas_lstm_loops_against_the_array_passes(dtype, monkeypatch):
    """float64: the same bits. float32: the fused step's own tanh and sigmoid, so other
    roundings, within a few float32 ulps of the passes' outputs and gradients."""
    pytest.importorskip("numba")
    layer = ks.layers.LSTM(6, return_sequences=True, return_state=True, dtype=dtype)
    x = ks.constant(sequences(3, 7, 4, np.dtype(dtype)))
    layer(x)

    def outputs_and_gradients(numba_module):
        monkeypatch.setattr(backend, "_numba_module", numba_module)  # None: loaded again
        with ks.GradientTape() as tape:
            tape.watch(x)
            out, h, c = layer(x)
            loss = ks.reduce_sum(out * out) + ks.reduce_sum(h * c)
        gradients = tape.gradient(loss, [x] + layer.trainable_variables)
        return [t.numpy() for t in (out, h, c, *gradients)]

    chosen = []
    choose = rnn_ops._compiled_kernels
    monkeypatch.setattr(rnn_ops, "_compiled_kernels",
                        lambda *arrays: chosen.append(choose(*arrays)) or chosen[-1])
    compiled = outputs_and_gradients(None)
    kernels = backend.numba_kernels()
    assert kernels is not None and chosen == [kernels, kernels]  # (forward and backward)
    passes = outputs_and_gradients(False)
    assert chosen[2:] == [None, None]
    for got, want in zip(compiled, passes, strict=True):
        if dtype == "float64":
            assert np.array_equal(got, want)
        else:
            assert not np.array_equal(compiled[0], passes[0])  # (the fused step ran)
            np.testing.assert_allclose(got, want, rtol=0, atol=4e-7 * np.abs(want).max())


@pytest.mark.cpu
def test_the_fused_float32_step_takes_tanh_within_an_ulp_and_the_sigmoid_within_4e8():
    """`lstm_step_float32` with a zero recurrent product and cell state: its gates are the
    activations of the projected inputs, and tanh(c_next) is tanh(tanh * sigmoid), checked
    against float64 over +-20 (tanh is +-1 beyond 9), tiny and subnormal values, +-0, +-inf
    and NaN."""
    kernels = pytest.importorskip("kerasish.core.numba_kernels")
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.uniform(-20, 20, 1 << 18), np.geomspace(1e-44, 20, 1 << 16),
        -np.geomspace(1e-44, 20, 1 << 16), [0.0, -0.0, np.inf, -np.inf, np.nan] * 4,
    ]).astype(np.float32)
    units = 64
    values = np.resize(values, (values.size // units + 1) * units).reshape(-1, units)
    projected = np.concatenate([values] * 4, axis=1)  # (each gate sees every value)
    gates = np.zeros_like(projected)
    c = np.zeros((len(projected), units), np.float32)
    c_next, tanh_c, h_next = (np.empty_like(c) for _ in range(3))
    kernels.lstm_step_float32(gates, projected, c, c_next, tanh_c, h_next)

    def ulps(got, exact):
        return np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32))

    wide = projected.astype(np.float64)
    candidate = gates[:, 2 * units:3 * units]
    assert np.nanmax(ulps(candidate, np.tanh(wide[:, 2 * units:3 * units]))) <= 0.9
    assert np.nanmax(ulps(tanh_c, np.tanh(c_next.astype(np.float64)))) <= 0.9
    np.testing.assert_array_equal(c_next, candidate * gates[:, :units])
    np.testing.assert_array_equal(h_next, gates[:, 3 * units:] * tanh_c)
    sigmoid_columns = np.r_[0:2 * units, 3 * units:4 * units]
    sigmoid, sigmoid_x = gates[:, sigmoid_columns], wide[:, sigmoid_columns]
    assert np.nanmax(np.abs(sigmoid - (0.5 + 0.5 * np.tanh(sigmoid_x / 2)))) <= 4.2e-8
    np.testing.assert_array_equal(np.isnan(sigmoid), np.isnan(sigmoid_x))
    assert set(sigmoid[np.isinf(sigmoid_x)]) == {0.0, 1.0}
    candidate_x = wide[:, 2 * units:3 * units]
    np.testing.assert_array_equal(np.isnan(candidate), np.isnan(candidate_x))
    assert set(candidate[np.isinf(candidate_x)]) == {-1.0, 1.0}


def test_second_order_gradients_through_an_unmasked_lstm():
    from kerasish.testing import check_gradients

    layer = ks.layers.LSTM(2, return_sequences=True, dtype="float64")
    check_gradients(lambda x: layer(x), [sequences(2, 3, 2, np.float64)], order=2)


def test_an_lstm_sequence_is_one_recorded_op_whatever_its_length():
    short, long = _recorded(ks.layers.LSTM, 4), _recorded(ks.layers.LSTM, 8)
    assert short == long and long.count("lstm_sequence") == 1
    # other activations, and recurrent dropout when training, go step by step
    assert "lstm_sequence" not in _recorded(ks.layers.LSTM, 4, activation="relu")


# ---------------------------------------------------------------- masking


@pytest.mark.parametrize("cls", RECURRENT)
def test_masked_trailing_steps_do_not_change_the_result(cls):
    layer = cls(5)
    x = sequences(2, 6, 4)
    full = layer(x[:, :4]).numpy()
    padded = x.copy()
    padded[:, 4:] = 123.0  # garbage in the masked steps
    mask = np.ones((2, 6), bool)
    mask[:, 4:] = False
    np.testing.assert_allclose(layer(padded, mask=mask).numpy(), full, rtol=1e-6)


@pytest.mark.parametrize("cls", RECURRENT)
def test_masked_leading_steps_carry_the_initial_state(cls):
    layer = cls(5, return_sequences=True)
    x = sequences(2, 6, 4)
    unpadded = layer(x[:, 2:]).numpy()
    mask = np.ones((2, 6), bool)
    mask[:, :2] = False
    out = layer(x, mask=mask).numpy()
    # (an unmasked float32 LSTM runs numba's fused step, whose tanh rounds within an ulp
    # of the masked steps' NumPy tanh: hence the absolute tolerance)
    np.testing.assert_allclose(out[:, 2:], unpadded, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(out[:, :2], 0.0)  # no previous output yet: zeros


def test_embedding_mask_zero_reaches_the_lstm():
    embedding = ks.layers.Embedding(10, 4, mask_zero=True)
    lstm = ks.layers.LSTM(3)
    ids = np.array([[3, 5, 2, 0, 0], [1, 0, 0, 0, 0]])
    vectors = embedding(ids)
    np.testing.assert_array_equal(vectors._keras_mask.numpy(), ids != 0)
    through_mask = lstm(vectors).numpy()
    for row, length in ((0, 3), (1, 1)):  # (unmasked: the fused step, within an ulp)
        np.testing.assert_allclose(through_mask[row],
                                   lstm(embedding(ids[row:row + 1, :length])).numpy()[0],
                                   rtol=1e-6, atol=1e-7)


def test_return_sequences_passes_the_mask_on_and_the_last_output_drops_it():
    mask = np.array([[True, True, False]])
    seq = ks.layers.GRU(2, return_sequences=True)(ks.ones([1, 3, 2]), mask=mask)
    np.testing.assert_array_equal(seq._keras_mask.numpy(), mask)
    last = ks.layers.GRU(2)(ks.ones([1, 3, 2]), mask=mask)
    assert getattr(last, "_keras_mask", None) is None


def test_mask_of_the_wrong_shape_names_both_shapes():
    with pytest.raises(ks.InvalidArgumentError, match=r"lstm.*\(2, 5\), got \(2, 4\)"):
        ks.layers.LSTM(2)(sequences(2, 5, 3), mask=np.ones((2, 4), bool))


# ---------------------------------------------------------------- states, dropout, user cells


def test_initial_state_and_return_state():
    layer = ks.layers.LSTM(3, return_state=True)
    x = sequences(2, 6, 4)
    _, h, c = layer(x[:, :3])
    whole = layer(x)
    resumed = layer(x[:, 3:], initial_state=[h, c])
    for a, b in zip(resumed, whole):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_initial_state_errors_name_the_problem():
    layer = ks.layers.LSTM(3)
    with pytest.raises(ks.InvalidArgumentError, match="has 1 tensor.*2 state"):
        layer(sequences(2, 4, 3), initial_state=[np.zeros((2, 3), np.float32)])
    with pytest.raises(ks.InvalidArgumentError, match=r"initial_state\[1\] has shape"):
        layer(sequences(2, 4, 3), initial_state=[np.zeros((2, 3), "f"), np.zeros((3, 3), "f")])


def test_stateful_layer_continues_across_calls_until_reset():
    x = sequences(2, 6, 4)
    stateful = ks.layers.GRU(3, stateful=True)
    stateless = ks.layers.GRU(3)
    stateless(x)
    stateful(x[:, :1])
    stateful.set_weights(stateless.get_weights())
    stateful.reset_states()
    stateful(x[:, :3])
    np.testing.assert_allclose(stateful(x[:, 3:]).numpy(), stateless(x).numpy(), rtol=1e-5)
    stateful.reset_states()
    np.testing.assert_allclose(stateful(x).numpy(), stateless(x).numpy(), rtol=1e-6)
    with pytest.raises(ks.InvalidArgumentError, match="batch size 2.*batch size 3"):
        stateful(sequences(3, 2, 4))


def test_dropout_mask_is_the_same_at_every_step():
    # zero recurrent kernel: each step's output depends only on its input, which is constant
    layer = ks.layers.SimpleRNN(8, dropout=0.5, recurrent_initializer="zeros",
                                return_sequences=True)
    x = np.repeat(RNG.standard_normal((4, 1, 6)).astype(np.float32), 5, axis=1)
    out = layer(x, training=True).numpy()
    np.testing.assert_allclose(out, np.repeat(out[:, :1], 5, axis=1), rtol=1e-6)
    assert not np.allclose(out, layer(x, training=False).numpy())  # dropout did something
    assert layer.cell._dropout_mask is None  # drawn anew for the next sequence


def test_recurrent_dropout_only_in_training():
    layer = ks.layers.LSTM(4, recurrent_dropout=0.5)
    x = sequences()
    np.testing.assert_array_equal(layer(x).numpy(), layer(x, training=False).numpy())
    assert not np.allclose(layer(x, training=True).numpy(), layer(x).numpy())


def test_user_cell_in_rnn_gets_states_training_and_masks():
    class Counter(ks.layers.Layer):
        state_size = [1, 2]
        output_size = 2

        def call(self, inputs, states, training=None):
            count, total = states
            scale = 2.0 if training else 1.0
            total = total + inputs * scale
            return total, [count + 1.0, total]

    layer = ks.layers.RNN(Counter(), return_state=True)
    x = np.ones((1, 4, 2), np.float32)
    mask = np.array([[True, True, False, True]])
    output, count, total = layer(x, mask=mask, training=True)
    np.testing.assert_array_equal(output.numpy(), [[6.0, 6.0]])
    np.testing.assert_array_equal(count.numpy(), [[3.0]])
    assert layer.compute_output_shape((1, 4, 2)) == [(1, 2), (1, 1), (1, 2)]


def test_stacked_cells_equal_stacked_layers():
    x = sequences(2, 5, 3)
    stacked = ks.layers.RNN([ks.layers.LSTMCell(4), ks.layers.GRUCell(3)], return_sequences=True,
                            return_state=True)
    first = ks.layers.LSTM(4, return_sequences=True)
    second = ks.layers.GRU(3, return_sequences=True)
    outputs, lstm_states, gru_states = stacked(x)
    second(first(x))
    first.set_weights(stacked.get_weights()[:3])
    second.set_weights(stacked.get_weights()[3:])
    np.testing.assert_allclose(outputs.numpy(), second(first(x)).numpy(), rtol=1e-5, atol=1e-6)
    assert [s.shape for s in lstm_states] == [(2, 4), (2, 4)] and gru_states[0].shape == (2, 3)
    assert stacked.compute_output_shape((2, 5, 3)) == [(2, 5, 3), [(2, 4), (2, 4)], [(2, 3)]]
    resumed = stacked(x[:, 2:], initial_state=[s for states in stacked(x[:, :2])[1:]
                                               for s in states])
    np.testing.assert_allclose(resumed[0].numpy(), outputs.numpy()[:, 2:], rtol=1e-5, atol=1e-6)
    clone = ks.layers.RNN.from_config(stacked.get_config())
    assert type(clone.cell).__name__ == "StackedRNNCells" and len(clone.cell.cells) == 2


def test_rnn_rejects_objects_that_are_not_cells():
    with pytest.raises(ks.InvalidArgumentError, match="state_size"):
        ks.layers.RNN(ks.layers.Dense(3))


# ---------------------------------------------------------------- wrappers


@pytest.mark.parametrize("merge_mode,width", [("concat", 8), ("sum", 4), ("ave", 4), ("mul", 4)])
def test_bidirectional_merges_forward_and_reversed_backward(merge_mode, width):
    layer = ks.layers.Bidirectional(ks.layers.GRU(4, return_sequences=True), merge_mode=merge_mode)
    x = sequences()
    out = layer(x)
    assert out.shape == (3, 5, width) == layer.compute_output_shape((3, 5, 4))
    forward = layer.forward_layer(x).numpy()
    backward = layer.backward_layer(x).numpy()[:, ::-1]
    expected = {"concat": np.concatenate([forward, backward], -1), "sum": forward + backward,
                "ave": (forward + backward) / 2, "mul": forward * backward}[merge_mode]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_bidirectional_names_weights_and_returns_states():
    layer = ks.layers.Bidirectional(ks.layers.LSTM(3, return_state=True), merge_mode=None)
    result = layer(sequences())
    assert len(result) == 6 and result[0].shape == result[1].shape == (3, 3)
    names = [layer.forward_layer.name, layer.backward_layer.name]
    assert names == ["forward_lstm", "backward_lstm"]
    assert layer.backward_layer.go_backwards and len(layer.weights) == 6
    check_layer_gradients(
        ks.layers.Bidirectional(ks.layers.SimpleRNN(2, dtype="float64"), dtype="float64"),
        sequences(2, 3, 2, np.float64),
    )


def test_bidirectional_errors():
    with pytest.raises(ks.InvalidArgumentError, match="recurrent layer"):
        ks.layers.Bidirectional(ks.layers.Dense(3))
    with pytest.raises(ks.InvalidArgumentError, match="merge_mode"):
        ks.layers.Bidirectional(ks.layers.LSTM(3), merge_mode="max")


def test_time_distributed_applies_one_layer_to_every_step():
    dense = ks.layers.Dense(5)
    layer = ks.layers.TimeDistributed(dense)
    x = sequences()
    out = layer(x)
    assert out.shape == (3, 5, 5) == layer.compute_output_shape((3, 5, 4))
    np.testing.assert_allclose(out.numpy()[:, 2], dense(x[:, 2]).numpy(), rtol=1e-6)
    assert len(layer.weights) == 2
    check_layer_gradients(
        ks.layers.TimeDistributed(ks.layers.Dense(2, dtype="float64"), dtype="float64"),
        sequences(2, 3, 2, np.float64),
    )


# ---------------------------------------------------------------- configs


@pytest.mark.parametrize("make", [
    lambda: ks.layers.LSTM(3, return_sequences=True, dropout=0.25, unit_forget_bias=False),
    lambda: ks.layers.GRU(3, reset_after=False, go_backwards=True),
    lambda: ks.layers.SimpleRNN(3, activation="relu", stateful=True),
    lambda: ks.layers.RNN(ks.layers.LSTMCell(3), return_state=True),
    lambda: ks.layers.Bidirectional(ks.layers.GRU(3), merge_mode="sum"),
    lambda: ks.layers.TimeDistributed(ks.layers.Dense(3)),
])
def test_config_round_trip_rebuilds_an_equivalent_layer(make):
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config().keys() == config.keys()
    x = sequences()
    layer(x)
    clone(x)
    clone.set_weights(layer.get_weights())
    for each in (layer, clone):
        if hasattr(each, "reset_states"):
            each.reset_states()
    for a, b in zip(nest.flatten(layer(x)), nest.flatten(clone(x))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_constraints_reach_the_cell_weights():
    layer = ks.layers.LSTM(2, kernel_constraint="non_neg", recurrent_constraint="unit_norm",
                           bias_constraint="max_norm")
    layer(sequences(1, 2, 3))
    kinds = [type(w.constraint).__name__ for w in layer.weights]
    assert kinds == ["NonNeg", "UnitNorm", "MaxNorm"]
    assert type(layer.get_config()["recurrent_constraint"]).__name__ == "UnitNorm"


def test_cell_layer_config_has_keras_keys():
    config = ks.layers.LSTM(3).get_config()
    for key in ("units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias",
                "kernel_initializer", "recurrent_initializer", "dropout", "recurrent_dropout",
                "return_sequences", "return_state", "go_backwards", "stateful", "unroll"):
        assert key in config
    assert "cell" not in config and config["units"] == 3


# ---------------------------------------------------------------- Keras 3 parity


@pytest.mark.parametrize("name,kwargs", [
    ("SimpleRNN", {"return_sequences": True}),
    ("LSTM", {}),
    ("LSTM", {"return_sequences": True, "go_backwards": True}),
    ("GRU", {"return_sequences": True}),
    ("GRU", {"reset_after": False}),
    ("stacked", {"return_sequences": True}),
])
def test_forward_matches_keras_with_masks(name, kwargs):
    keras = pytest.importorskip("keras")
    x = sequences(3, 6, 5)
    mask = np.ones((3, 6), bool)
    mask[0, 4:] = False
    mask[2, :2] = False
    if name == "stacked":
        theirs = keras.layers.RNN([keras.layers.GRUCell(3), keras.layers.LSTMCell(4)], **kwargs)
        ours = ks.layers.RNN([ks.layers.GRUCell(3), ks.layers.LSTMCell(4)], **kwargs)
    else:
        theirs = getattr(keras.layers, name)(4, **kwargs)
        ours = getattr(ks.layers, name)(4, **kwargs)
    expected = np.asarray(theirs(x, mask=mask))
    ours(x)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(x, mask=mask).numpy(), expected, atol=1e-5)


def test_bidirectional_and_time_distributed_match_keras():
    keras = pytest.importorskip("keras")
    x = sequences(2, 5, 3)
    theirs = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))
    ours = ks.layers.Bidirectional(ks.layers.LSTM(4, return_sequences=True))
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    expected = np.asarray(theirs(x, mask=mask))
    ours(x)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(x, mask=mask).numpy(), expected, atol=1e-5)

    theirs = keras.layers.TimeDistributed(keras.layers.Dense(2))
    ours = ks.layers.TimeDistributed(ks.layers.Dense(2))
    expected = np.asarray(theirs(x))
    ours(x)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(x).numpy(), expected, atol=1e-6)


def test_configs_written_by_keras_load():
    keras = pytest.importorskip("keras")
    import json

    from kerasish.saving import deserialize_keras_object

    k = keras.layers
    for layer in [k.LSTM(3, return_sequences=True, go_backwards=True), k.GRU(2, reset_after=False),
                  k.SimpleRNN(2), k.RNN(k.LSTMCell(2)), k.Bidirectional(k.LSTM(2)),
                  k.TimeDistributed(k.Dense(2)), k.MultiHeadAttention(2, 3, use_gate=True),
                  k.LayerNormalization(), k.GroupNormalization(4), k.UnitNormalization(),
                  k.Masking(), k.Attention(score_mode="concat"), k.AdditiveAttention(),
                  k.Embedding(5, 2, mask_zero=True)]:
        config = json.loads(json.dumps(keras.saving.serialize_keras_object(layer)))
        ours = deserialize_keras_object(config)
        assert type(ours).__name__ == type(layer).__name__
        for key in ("return_sequences", "go_backwards", "reset_after", "use_gate", "score_mode",
                    "mask_zero", "groups"):
            if hasattr(layer, key) and hasattr(ours, key):
                assert getattr(ours, key) == getattr(layer, key), (type(layer).__name__, key)



def test_argument_and_input_errors_name_the_problem():
    with pytest.raises(ks.InvalidArgumentError,
                       match="LSTM: units must be a positive integer, got 0"):
        ks.layers.LSTM(0)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"GRU: recurrent_dropout must be a number in \[0, 1\), got 1.0"):
        ks.layers.GRU(2, recurrent_dropout=1.0)
    with pytest.raises(ks.InvalidArgumentError, match=r"expected inputs of shape \(batch, time"):
        ks.layers.SimpleRNN(2)(np.ones((2, 3), np.float32))
    with pytest.raises(ks.InvalidArgumentError, match="has no time steps"):
        ks.layers.SimpleRNN(2)(np.ones((2, 0, 3), np.float32))
    with pytest.raises(ks.InvalidArgumentError, match=r"cells\[1\] must be a Layer"):
        ks.layers.RNN([ks.layers.LSTMCell(2), ks.layers.Dense(2)])
    with pytest.raises(ks.InvalidArgumentError, match="at least one cell"):
        ks.layers.StackedRNNCells([])
    with pytest.raises(ks.InvalidArgumentError, match=r"TimeDistributed: inputs need shape"):
        ks.layers.TimeDistributed(ks.layers.Dense(2))(np.ones((2, 3), np.float32))
    with pytest.raises(ks.InvalidArgumentError, match="Orthogonal: needs a shape of rank >= 2"):
        ks.initializers.Orthogonal()((3,))


def test_second_order_gradients_through_a_masked_lstm():
    from kerasish.testing import check_gradients

    layer = ks.layers.LSTM(2, return_sequences=True, dtype="float64")
    mask = np.array([[True, True, False], [True, True, True]])
    check_gradients(lambda x: layer(x, mask=mask), [sequences(2, 3, 2, np.float64)], order=2)
