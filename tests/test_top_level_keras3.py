"""Keras 3's top-level names kerasish adds (issue 20): `Operation`, `Function`,
`StatelessScope`, `SymbolicScope`, `RematScope`/`remat`, `Quantizer`, and Keras's arguments
of `name_scope`, `KerasTensor`, `Input`, `Sequential` and `Loss`."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients


class _Split(ks.Operation):
    def call(self, x):
        return x[:, :2], x[:, 2:]

    def compute_output_spec(self, x):
        return (ks.KerasTensor(x.shape[:1] + (2,)),
                ks.KerasTensor(x.shape[:1] + (x.shape[1] - 2,)))


class _Double(ks.Operation):
    def call(self, x):
        return x * 2.0


def test_operation_eager_and_in_a_functional_model():
    assert float(_Double()(ks.constant(3.0))) == 6.0
    inputs = ks.Input((5,))
    op = _Double(name="twice")
    first, rest = _Split()(op(inputs))
    assert (first.shape, rest.shape) == ((None, 2), (None, 3))
    assert op.output.shape == (None, 5) and op.input is inputs
    model = ks.Model(inputs, [first, rest])
    outs = model(np.ones((4, 5), np.float32))
    assert outs[0].numpy().tolist() == [[2.0, 2.0]] * 4
    assert op.get_config() == {"name": "twice"}
    with pytest.raises(NotImplementedError, match="must implement call"):
        ks.Operation()(ks.constant(1.0))
    with pytest.raises(AttributeError, match="has not been called on symbolic tensors"):
        _Double().output  # noqa: B018


def test_function_runs_its_graph():
    x, z = ks.KerasTensor((None, 3)), ks.KerasTensor((None, 3))
    dense = ks.layers.Dense(2)
    y = dense(x) * 2.0 + ks.ops.sum(z, axis=1, keepdims=True)
    f = ks.Function([x, z], {"y": y, "x1": x + 1.0}, name="f")
    data = np.ones((2, 3), np.float32)
    out = f([data, data])
    want = dense(data).numpy() * 2.0 + 3.0
    np.testing.assert_allclose(out["y"].numpy(), want, rtol=1e-6)
    assert dense in f.operations and len(f.inputs) == 2 and len(f.outputs) == 2
    assert f.compute_output_spec([x, z])["y"].shape == (None, 2)
    inputs = ks.Input((3,))
    g = ks.Function(inputs, ks.layers.Dense(4)(inputs))
    assert g(ks.Input((3,))).shape == (None, 4)  # on symbolic tensors: new nodes
    with pytest.raises(InvalidArgumentError, match="not among the inputs"):
        ks.Function(x, y)
    with pytest.raises(InvalidArgumentError, match="not among the inputs"):
        ks.Function(ks.KerasTensor((None, 3)), g.outputs[0])
    with pytest.raises(InvalidArgumentError, match="must be symbolic tensors"):
        ks.Function(x, ks.constant(1.0))
    with pytest.raises(InvalidArgumentError, match="expected 2 input tensor"):
        f([data])


def test_stateless_scope():
    v, w = ks.Variable(1.0), ks.Variable(2.0)
    with ks.StatelessScope(state_mapping=[(v, 5.0)]) as scope:
        doubled = v * 2.0
        v.assign(7.0)
        w.assign_add(1.0)
        assert float(w) == 3.0 and float(scope.get_current_value(v)) == 7.0
    assert float(doubled) == 10.0 and (float(v), float(w)) == (1.0, 2.0)
    assert float(scope.get_current_value(w)) == 3.0
    assert scope.get_current_value(ks.Variable(0.0)) is None
    with pytest.raises(InvalidArgumentError, match="has shape \\(2,\\), the variable \\(\\)"):
        ks.StatelessScope([(v, [1.0, 2.0])])
    with pytest.raises(InvalidArgumentError, match="holds \\(variable, value\\) pairs"):
        ks.StatelessScope([(1.0, 2.0)])
    with pytest.raises(NotImplementedError, match="collect_losses=True"):
        ks.StatelessScope(collect_losses=True)
    with pytest.raises(NotImplementedError, match="initialize_variables=False"):
        ks.StatelessScope(initialize_variables=False)


def test_symbolic_and_remat_scopes_and_quantizer():
    with ks.SymbolicScope():
        assert ks.SymbolicScope.active()
    assert not ks.SymbolicScope.active()
    with pytest.warns(UserWarning, match="do not rematerialize"):
        with ks.RematScope(mode="larger_than", output_size_threshold=10) as scope:
            pass
    assert (scope.mode, scope.output_size_threshold) == ("larger_than", 10)
    with ks.RematScope(mode=None):
        pass
    with pytest.raises(InvalidArgumentError, match="mode must be one of"):
        ks.RematScope(mode="some")
    with pytest.raises(NotImplementedError, match="quantization .* is not supported"):
        ks.Quantizer(output_dtype="int8")


def test_remat_matches_the_plain_gradient():
    dense = ks.layers.Dense(3)
    x = ks.constant(np.random.default_rng(0).standard_normal((4, 2)))
    dense(x)

    def f(t):
        return ks.tanh(dense(t)) * t[:, :1]

    grads = []
    for fn in (f, ks.remat(f)):
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = ks.reduce_sum(fn(x))
        grads.append(tape.gradient(y, [x] + dense.trainable_weights))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    check_gradients(ks.remat(lambda t: ks.sin(t) * t), [np.array([0.3, 1.2])])
    assert float(ks.remat(lambda t: t * 2.0)(ks.constant(2.0))) == 4.0  # no tape: plain call


def test_keras_arguments_of_name_scope_tensor_input_sequential_loss():
    class Caller:
        pass

    caller = Caller()
    with ks.name_scope("block", caller=caller) as outer:
        with ks.name_scope("block", caller=caller) as again:  # deduplicated
            with ks.name_scope("w", override_parent="x/y") as moved:
                v = ks.Variable(1.0, name="v")
    assert (outer, again, moved, v.name) == ("block/", "block/", "x/y/w/", "x/y/w/v")
    assert ks.KerasTensor((None, 3), record_history=False).dtype == np.float32
    with pytest.raises(ValueError, match="sparse=True is not supported"):
        ks.KerasTensor((2,), sparse=True)
    with pytest.raises(ValueError, match="ragged=True is not supported"):
        ks.KerasTensor((2,), ragged=True)
    with pytest.raises(ValueError, match="ragged=True is not supported"):
        ks.Input((3,), ragged=True)
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)], trainable=False)
    assert not model.trainable and not model.layers[0].trainable
    assert model.trainable_weights == []
    with pytest.raises(TypeError, match="Keras's order is layers, trainable, name"):
        ks.Sequential([ks.layers.Dense(2)], [])
    assert ks.Sequential([ks.layers.Dense(2)], "stack").name == "stack"  # tf.keras's order

    class Cube(ks.losses.Loss):
        def call(self, y_true, y_pred):
            return ks.reduce_mean((y_pred - y_true) ** 3, -1)

    y = np.ones((2, 1), np.float32)
    assert Cube(dtype="float64")(y, y * 2.0).dtype == np.float64
    assert Cube()(y, y * 2.0).dtype == np.float32
