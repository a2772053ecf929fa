"""The functional API: ks.Input, symbolic layer and op calls, ks.Model(inputs, outputs)."""

import copy
import json
import re

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.tracking import named_variables
from kerasish.models.functional import Functional


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def two_input_model():
    a = ks.Input((3,), name="a")
    b = ks.Input((3,), name="b")
    shared = ks.layers.Dense(4, activation="relu", name="shared")
    joined = ks.concat([shared(a), shared(b)], -1)
    score = ks.layers.Dense(1, name="score")(joined * 0.5 + 1.0)
    return ks.Model([a, b], score, name="pair"), shared


# -- symbolic tensors -----------------------------------------------------------------------


def test_input_is_a_symbolic_tensor_with_keras_history():
    x = ks.Input((28, 28, 1), name="image", dtype="float32")
    assert isinstance(x, KerasTensor)
    assert x.shape == (None, 28, 28, 1) and x.dtype == np.float32 and x.name == "image"
    layer, node_index, tensor_index = x._keras_history
    assert isinstance(layer, ks.layers.InputLayer) and (node_index, tensor_index) == (0, 0)
    assert ks.layers.Input((2,), batch_size=8).shape == (8, 2)
    assert ks.Input(batch_shape=(None, None), dtype="int32").dtype == np.int32


def test_input_errors_name_the_problem():
    with pytest.raises(ks.InvalidArgumentError, match="give the shape of one example"):
        ks.layers.InputLayer()
    with pytest.raises(ks.InvalidArgumentError, match="sparse inputs are not supported"):
        ks.Input((3,), sparse=True)


def test_symbolic_tensor_refuses_values_with_a_clear_message():
    x = ks.Input((3,))
    with pytest.raises(TypeError, match="has no values"):
        x.numpy()
    with pytest.raises(TypeError, match="has no values"):
        np.asarray(x)
    with pytest.raises(TypeError, match="cannot be used as a Python bool"):
        bool(x)
    with pytest.raises(TypeError, match="only known when the model runs"):
        float(x)


@pytest.mark.parametrize(
    "layer, in_shape, dtype",
    [
        (lambda: ks.layers.Dense(5), (7,), "float32"),
        (lambda: ks.layers.Dense(5), (2, 7), "int32"),
        (lambda: ks.layers.Embedding(10, 4), (6,), "int32"),
        (lambda: ks.layers.Conv2D(3, 3), (9, 8, 2), "float32"),
        (lambda: ks.layers.Conv2D(3, (3, 2), strides=2, padding="same"), (9, 8, 2), "float32"),
        (lambda: ks.layers.MaxPooling2D(), (9, 8, 2), "float32"),
        (lambda: ks.layers.AveragePooling2D(3, strides=2, padding="same"), (9, 8, 2), "float32"),
        (lambda: ks.layers.Flatten(), (3, 4), "float32"),
        (lambda: ks.layers.Reshape((2, -1)), (3, 4), "float32"),
        (lambda: ks.layers.Dropout(0.3), (3,), "float32"),
        (lambda: ks.layers.BatchNormalization(), (3, 4), "float32"),
        (lambda: ks.layers.Activation("softmax"), (4,), "float32"),
    ],
)
def test_builtin_layers_infer_the_shape_and_dtype_they_produce(layer, in_shape, dtype):
    symbolic_layer, eager_layer = layer(), layer()
    out = symbolic_layer(ks.Input(in_shape, dtype=dtype))
    assert symbolic_layer.built and len(symbolic_layer.weights) == len(eager_layer.weights) or (
        not eager_layer.weights
    )
    data = np.ones((2,) + in_shape, dtype=dtype)
    eager = eager_layer(data)
    assert out.shape == (None,) + eager.shape[1:]
    assert out.dtype == eager.dtype


def test_layer_without_compute_output_shape_is_inferred_on_zeros_without_side_effects():
    class Pairs(ks.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", (input_shape[-1], 2))

        def call(self, inputs):
            self.add_loss(ks.reduce_sum(inputs))
            return ks.reshape(inputs @ self.w, (-1, 1, 2))

    layer = Pairs()
    x = ks.Input((None, 3))
    out = layer(x)
    assert out.shape == (None, 1, 2)  # a dimension that differs between the runs is unknown
    assert layer.w.shape == (3, 2)  # built from the symbolic shape
    assert layer.losses == []  # the inference run leaves no loss behind


def test_ops_on_symbolic_tensors_become_nodes():
    x = ks.Input((4,), name="x")
    y = ks.nn.relu(x) * 2 + x
    picked = y[:, 0]
    joined = ks.concat([y, ks.reshape(picked, (-1, 1))], -1)
    assert picked.shape == (None,) and joined.shape == (None, 5)
    model = ks.Model(x, [picked, joined])
    data = rand(3, 4)
    expected = np.maximum(data, 0) * 2 + data
    got_picked, got_joined = model(data)
    np.testing.assert_allclose(got_picked.numpy(), expected[:, 0], rtol=1e-6)
    np.testing.assert_allclose(
        got_joined.numpy(), np.concatenate([expected, expected[:, :1]], -1), rtol=1e-6
    )
    assert [layer.name for layer in model.layers] == ["x"]  # ops are not layers, as in Keras 3


def test_op_errors_on_symbolic_tensors_name_the_op_and_shapes():
    with pytest.raises(ks.InvalidArgumentError, match=r"matmul: .*\(None, 3\)"):
        ks.Input((3,)) @ ks.ones([4, 2])


# -- building and running models ------------------------------------------------------------


def test_model_constructor_dispatches_to_functional_only_for_inputs_and_outputs():
    x = ks.Input((2,))
    y = ks.layers.Dense(1)(x)
    assert type(ks.Model(x, y)) is Functional
    assert type(ks.Model(inputs=x, outputs=y)) is Functional
    assert type(ks.Model()) is ks.Model
    assert type(ks.Model(name="plain")) is ks.Model

    class Sub(ks.Model):
        def call(self, inputs):
            return inputs

    assert type(Sub()) is Sub


def test_model_runs_the_graph_like_the_eager_code():
    model, shared = two_input_model()
    a, b = rand(5, 3, seed=1), rand(5, 3, seed=2)
    out = model([a, b])
    score = model.get_layer("score")
    joined = np.concatenate([shared(a).numpy(), shared(b).numpy()], -1) * 0.5 + 1.0
    np.testing.assert_allclose(out.numpy(), score(joined).numpy(), rtol=1e-5)
    np.testing.assert_allclose(model({"a": a, "b": b}).numpy(), out.numpy())


def test_shared_layer_shares_weights_and_gets_gradients_from_both_calls():
    model, shared = two_input_model()
    assert len(model.trainable_variables) == 4  # shared kernel and bias once, then score's
    assert sum(v is shared.kernel for v in model.trainable_variables) == 1
    a, b = rand(5, 3, seed=1), rand(5, 3, seed=2)
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(model([a, b]))
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    with ks.GradientTape() as tape:  # the same loss written eagerly
        joined = ks.concat([shared(a), shared(b)], -1) * 0.5 + 1.0
        eager_loss = ks.reduce_sum(model.get_layer("score")(joined))
    eager = tape.gradient(eager_loss, model.trainable_variables)
    for got, want in zip(grads, eager):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


def test_dict_inputs_and_outputs_and_names():
    a = ks.Input((2,), name="left")
    b = ks.Input((3,), name="right")
    total = ks.layers.Dense(1, name="total")(ks.concat([a, b], -1))
    double = ks.layers.Activation("linear", name="double")(total * 2.0)
    model = ks.Model({"left": a, "right": b}, {"sum": total, "twice": double})
    assert model.input_names == ["left", "right"]
    assert model.output_names == ["total", "double"]  # layer names, in sorted-key order
    out = model({"left": rand(4, 2), "right": rand(4, 3)})
    assert set(out) == {"sum", "twice"}
    np.testing.assert_allclose(out["twice"].numpy(), 2 * out["sum"].numpy(), rtol=1e-6)


def test_model_structure_properties():
    model, shared = two_input_model()
    assert [layer.name for layer in model.layers] == ["a", "b", "shared", "score"]
    assert model.get_layer(index=2) is shared and model.get_layer("shared") is shared
    assert [t.name for t in model.inputs] == ["a", "b"] and len(model.outputs) == 1
    assert model.output_shape == (None, 1) and model.input_shape == [(None, 3), (None, 3)]
    assert shared.input is model.inputs[0]  # the first call, as Keras 3
    assert model.get_layer("score").output_shape == (None, 1)
    with pytest.raises(ks.InvalidArgumentError, match="has no layer named 'nope'"):
        model.get_layer("nope")
    with pytest.raises(ks.InvalidArgumentError, match="out of range; the model has 4 layers"):
        model.get_layer(index=9)
    with pytest.raises(AttributeError, match="never been called on a symbolic tensor"):
        ks.layers.Dense(2).output  # noqa: B018
    eager = ks.layers.Dense(2)
    eager(ks.ones([5, 3]))
    assert eager.output_shape == (None, 2)  # from its last eager call


def test_feature_extraction_shares_weights():
    model, _ = two_input_model()
    features = ks.Model(model.inputs, [layer.output for layer in model.layers])
    a, b = rand(2, 3), rand(2, 3, seed=3)
    outs = features([a, b])
    assert [o.shape for o in outs] == [(2, 3), (2, 3), (2, 4), (2, 1)]
    np.testing.assert_allclose(outs[-1].numpy(), model([a, b]).numpy())
    assert [id(v) for v in features.variables] == [id(v) for v in model.variables]
    model.get_layer("score").bias.assign([3.0])
    np.testing.assert_allclose(features([a, b])[-1].numpy(), model([a, b]).numpy())


def test_nested_model_records_one_node_and_shares_weights():
    inner_in = ks.Input((3,))
    inner = ks.Model(inner_in, ks.layers.Dense(3, name="inner_dense")(inner_in), name="inner")
    x = ks.Input((3,))
    twice = inner(inner(x))
    outer = ks.Model(x, twice)
    assert len(inner._inbound_nodes) == 2 and twice.shape == (None, 3)
    assert [layer.name for layer in outer.layers][1:] == ["inner"]
    assert outer.variables == inner.variables
    data = rand(4, 3)
    np.testing.assert_allclose(outer(data).numpy(), inner(inner(data)).numpy(), rtol=1e-6)
    with pytest.raises(ks.InvalidArgumentError, match=r"'inner'.*was given shape \(None, 5\)"):
        inner(ks.Input((5,)))


def test_training_flag_reaches_the_layers():
    x = ks.Input((200,))
    model = ks.Model(x, ks.layers.Dropout(0.5)(x))
    ones = np.ones((1, 200), np.float32)
    np.testing.assert_array_equal(model(ones).numpy(), ones)
    dropped = model(ones, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and (dropped == 0).any()


def test_rank_one_data_for_a_one_feature_input_and_dtype_cast():
    x = ks.Input((1,))
    model = ks.Model(x, x * 1.0)
    out = model(np.arange(3, dtype=np.float64))
    assert out.shape == (3, 1) and out.dtype == np.float32


# -- errors ---------------------------------------------------------------------------------


def test_disconnected_output_names_the_input_the_layer_and_the_path():
    a = ks.Input((3,), name="a")
    b = ks.Input((3,), name="b")
    hidden = ks.layers.Dense(2, name="reads_b")(b)
    out = ks.layers.Dense(1, name="head")(ks.concat([a, hidden], -1))
    with pytest.raises(ks.InvalidArgumentError) as info:
        ks.Model(a, out, name="broken")
    message = str(info.value)
    assert "model 'broken'" in message and "the input 'b' (shape (None, 3))" in message
    assert "read by layer 'reads_b'" in message
    assert re.search(r"on the path b -> reads_b -> concat(_\d+)? -> head", message)
    assert "model's inputs ('a')" in message
    with pytest.raises(ks.InvalidArgumentError, match="'b' .*; it is the output itself"):
        ks.Model(a, b)


def test_calling_with_wrong_inputs_says_what_was_expected_and_given():
    model, _ = two_input_model()
    with pytest.raises(ks.InvalidArgumentError, match=r"expects 2 input\(s\): 'a' \(shape "
                       r"\(None, 3\)\), 'b' \(shape \(None, 3\)\); got 1: \(2, 3\)"):
        model(rand(2, 3))
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"input 'b' \(shape \(None, 3\)\) was given shape \(2, 4\)"):
        model([rand(2, 3), rand(2, 4)])
    with pytest.raises(ks.InvalidArgumentError, match=r"missing: \['b'\]; unexpected: \['c'\]"):
        model({"a": rand(2, 3), "c": rand(2, 3)})


def test_constructor_errors():
    x = ks.Input((2,))
    with pytest.raises(ks.InvalidArgumentError, match=r"outputs\[0\] is a Tensor"):
        ks.Model(x, ks.ones([2]))
    y = ks.layers.Dense(1, name="same")(ks.layers.Dense(1, name="same")(x))
    with pytest.raises(ks.InvalidArgumentError, match="the name 'same' is used by two layers"):
        ks.Model(x, y)


# -- Sequential, summary, checkpoints, fit ----------------------------------------------------


def test_sequential_with_input_builds_at_once_and_summarizes_before_data():
    model = ks.Sequential([ks.Input((784,)), ks.layers.Dense(10), ks.layers.Dense(3)])
    assert model.built and [type(layer).__name__ for layer in model.layers] == ["Dense", "Dense"]
    assert model.count_params() == 784 * 10 + 10 + 10 * 3 + 3
    lines = []
    model.summary(print_fn=lines.append)
    assert any("(None, 10)" in line and "7,850" in line for line in lines)
    assert model.output.shape == (None, 3) and model.inputs[0].shape == (None, 784)
    assert model(rand(2, 784)).shape == (2, 3)
    with pytest.raises(ks.InvalidArgumentError, match="an Input can only come first"):
        model.add(ks.Input((3,)))


def test_sequential_with_input_checks_inputs_as_a_functional_model_does():
    model = ks.Sequential([ks.Input((28, 28)), ks.layers.Flatten(), ks.layers.Dense(10)],
                          name="digits")
    model.compile("sgd", "mse")
    flat = rand(8, 784)
    message = (r"layer 'digits' \(Sequential\): input 'input_layer(_\d+)?' \(shape \(None, "
               r"28, 28\)\) was given shape \(8, 784\); expected shape \(None, 28, 28\)")
    for run in (lambda: model(flat), lambda: model.predict(flat),
                lambda: model.fit(flat, rand(8, 10), verbose=0),
                lambda: model.evaluate(flat, rand(8, 10), verbose=0)):
        with pytest.raises(ks.InvalidArgumentError, match=message):
            run()
    assert model(rand(8, 28, 28)).shape == (8, 10)
    # as in a functional model: a (batch,) input for (None, 1) gets its axis, ints are cast
    column = ks.Sequential([ks.Input((1,)), ks.layers.Dense(2)])
    assert column(np.arange(4)).shape == (4, 2)


def test_functional_summary_has_a_connected_to_column():
    model, _ = two_input_model()
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "Connected to" in text
    shared_row = next(line for line in lines if line.startswith("shared (Dense)"))
    assert "(None, 4)" in shared_row and "16" in shared_row and "a[0][0], b[0][0]" in shared_row
    assert "Total params: 25" in text


def test_checkpoint_paths_name_layers_and_weights_round_trip(tmp_path):
    model, _ = two_input_model()
    names = [path for path, _ in named_variables(model)]
    assert names == ["layers/shared/kernel", "layers/shared/bias",
                     "layers/score/kernel", "layers/score/bias"]
    path = model.save_weights(str(tmp_path / "pair.h5"))
    saved = [v.numpy() for v in model.variables]
    for variable in model.variables:
        variable.assign(np.zeros(variable.shape))
    model.load_weights(path)
    for variable, value in zip(model.variables, saved):
        np.testing.assert_array_equal(variable.numpy(), value)


def test_fit_trains_a_functional_model():
    ks.random.set_seed(1)
    x = ks.Input((2,))
    model = ks.Model(x, ks.layers.Dense(1)(x))
    model.compile(optimizer=ks.optimizers.SGD(0.1), loss="mse")
    data = rand(64, 2)
    target = data @ np.array([[2.0], [-1.0]], np.float32)
    history = model.fit(data, target, epochs=5, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 4


# -- configs --------------------------------------------------------------------------------


def test_get_config_round_trip_gives_equal_predictions():
    inner_in = ks.Input((4,), name="inner_in")
    inner = ks.Model(inner_in, ks.layers.Dense(2, name="inner_dense")(inner_in), name="inner")
    a = ks.Input((3,), name="a")
    b = ks.Input((3,), name="b")
    shared = ks.layers.Dense(4, activation="tanh", name="shared")
    merged = ks.concat([shared(a)[:, 1:], shared(b)[..., :1]], axis=-1) * 2.0
    outputs = {"head": inner(merged), "sum": ks.reduce_sum(merged, axis=1)}
    model = ks.Model({"a": a, "b": b}, outputs, name="multi")
    config = json.loads(json.dumps(model.get_config()))  # plain JSON
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    assert config["output_layers"]["head"] == ["inner", 1, 0]  # Keras counts nested nodes so
    shared_config = next(layer for layer in config["layers"] if layer["name"] == "shared")
    assert [node["args"][0]["config"]["keras_history"] for node in shared_config["inbound_nodes"]] \
        == [["a", 0, 0], ["b", 0, 0]]

    rebuilt = ks.Model.from_config(config)
    assert type(rebuilt) is Functional and rebuilt.name == "multi"
    assert [layer.name for layer in rebuilt.layers] == [layer.name for layer in model.layers]
    rebuilt.set_weights(model.get_weights())
    data = {"a": rand(5, 3, seed=4), "b": rand(5, 3, seed=5)}
    want, got = model(data), rebuilt(data)
    for key in want:
        np.testing.assert_allclose(got[key].numpy(), want[key].numpy(), rtol=1e-6)


def test_keras_functional_config_loads_and_ours_loads_in_keras():
    keras = pytest.importorskip("keras")
    a = keras.Input((4,), name="a")
    b = keras.Input((4,), name="b")
    shared = keras.layers.Dense(3, activation="relu", name="shared")
    inner_in = keras.Input((3,), name="inner_in")
    inner = keras.Model(inner_in, keras.layers.Dense(2, name="g")(inner_in), name="inner")
    outputs = [inner(shared(a)), keras.layers.Dense(5, name="side")(shared(b))]
    keras_model = keras.Model([a, b], outputs, name="outer")
    weights = {layer.name: layer.get_weights() for layer in keras_model.layers}
    data = [rand(3, 4, seed=6), rand(3, 4, seed=7)]
    want = keras_model.predict(data, verbose=0)

    ours = ks.saving.deserialize_keras_object(
        json.loads(json.dumps(keras.saving.serialize_keras_object(keras_model)))
    )
    assert [layer.name for layer in ours.layers] == [layer.name for layer in keras_model.layers]
    for layer in ours.layers:
        layer.set_weights(weights[layer.name])
    for got, expected in zip(ours(data), want):
        np.testing.assert_allclose(got.numpy(), expected, atol=1e-6)

    back = keras.saving.deserialize_keras_object(
        json.loads(json.dumps(ks.saving.serialize_keras_object(ours)))
    )
    for layer in back.layers:
        layer.set_weights(weights[layer.name])
    for got, expected in zip(back.predict(data, verbose=0), want):
        np.testing.assert_allclose(got, expected, atol=1e-6)


def test_ops_keras_has_are_written_as_keras_ops_and_others_as_primitives():
    x = ks.Input((4,), name="x")
    scaled = x * 2.0
    picked = scaled[:, 1:3]
    normalized = ks.nn.log_softmax(picked)  # no single Keras op: kept as a kerasish primitive
    model = ks.Model(x, [picked, normalized])
    config = json.loads(json.dumps(model.get_config()))
    by_name = {layer["name"]: layer for layer in config["layers"]}
    multiply = by_name[scaled._keras_history.operation.name]
    assert (multiply["module"], multiply["class_name"]) == ("keras.src.ops.numpy", "Multiply")
    get_item = by_name[picked._keras_history.operation.name]
    assert get_item["class_name"] == "GetItem"
    assert get_item["inbound_nodes"][0]["args"][1] == [
        {"class_name": "__slice__", "config": {"start": None, "stop": None, "step": None}},
        {"class_name": "__slice__", "config": {"start": 1, "stop": 3, "step": None}},
    ]
    assert by_name[normalized._keras_history.operation.name]["class_name"] == "PrimitiveOp"
    fancy = ks.Model(x, x[:, np.array([0, 2])]).get_config()  # an array index: no Keras form
    assert fancy["layers"][-1]["class_name"] == "PrimitiveOp"
    rebuilt = ks.Model.from_config(config)
    data = rand(3, 4)
    for got, want in zip(rebuilt(data), model(data)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_keras_op_nodes_load_and_write_back():
    keras = pytest.importorskip("keras")
    ops = keras.ops
    a = keras.Input((4,), name="a")
    outputs = [a * 2.0 + 1.0, ops.concatenate([a, ops.exp(a)], axis=-1), a[:, 0],
               ops.reshape(a, (-1, 2, 2)), ops.mean(a, axis=1), ops.softmax(a), a[..., None, 2],
               ops.matmul(a, ops.ones((4, 2))), ops.relu(-a)]
    keras_model = keras.Model(a, outputs)
    data = rand(3, 4, seed=8)
    want = keras_model.predict(data, verbose=0)
    ours = ks.saving.deserialize_keras_object(
        json.loads(json.dumps(keras.saving.serialize_keras_object(keras_model)))
    )
    for got, expected in zip(ours(data), want):
        np.testing.assert_allclose(got.numpy(), expected, atol=1e-6)
    back = keras.saving.deserialize_keras_object(
        json.loads(json.dumps(ks.saving.serialize_keras_object(ours)))
    )
    for got, expected in zip(back.predict(data, verbose=0), want):
        np.testing.assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("class_name", ["Frobnicate", "SymbolicFallback", "Inspect"])
def test_unknown_keras_op_in_a_config_is_named(class_name):
    config = {
        "name": "m", "trainable": True,
        "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "name": "a",
             "registered_name": None, "inbound_nodes": [],
             "config": {"batch_shape": [None, 2], "dtype": "float32", "name": "a"}},
            {"module": "keras.src.ops.numpy", "class_name": class_name, "name": "frob",
             "registered_name": class_name, "config": {"name": "frob"}, "inbound_nodes": []},
        ],
        "input_layers": ["a", 0, 0], "output_layers": ["a", 0, 0],
    }
    with pytest.raises(ks.InvalidArgumentError,
                       match=f"unsupported Keras op '{class_name}' .* ks.ops has no "):
        ks.Model.from_config(config)  # only ops: not a module or helper ks.ops imports


def test_an_intermediate_tensor_can_be_an_input():
    x = ks.Input((3,), name="x")
    hidden = ks.layers.Dense(4, name="hidden")(x)
    out = ks.layers.Dense(2, name="out")(hidden)
    head = ks.Model(hidden, out)  # the sub-graph from `hidden` on, sharing `out`'s weights
    assert [layer.name for layer in head.layers] == ["out"]
    first, second = ks.split(hidden, 2, axis=1)
    with pytest.raises(ks.InvalidArgumentError, match="give this one in `inputs` too"):
        ks.Model(first, first + second)
    features = rand(5, 4)
    np.testing.assert_allclose(head(features).numpy(),
                               head.get_layer("out")(features).numpy(), rtol=1e-6)


def test_other_symbolic_arguments_reach_compute_output_shape_by_name():
    class Pair(ks.layers.Layer):
        def call(self, first, second):
            return ks.concat([first, second], -1)

        def compute_output_shape(self, first_shape, second_shape):
            return first_shape[:-1] + (first_shape[-1] + second_shape[-1],)

    a, b = ks.Input((2,)), ks.Input((3,))
    joined = Pair()(a, b)
    assert joined.shape == (None, 5)
    model = ks.Model([a, b], joined)
    assert model([rand(1, 2), rand(1, 3)]).shape == (1, 5)


def test_none_keyword_arguments_a_layer_does_not_take_are_dropped_on_load():
    x = ks.Input((3,), name="x")
    model = ks.Model(x, ks.layers.BatchNormalization(name="bn")(x))
    config = model.get_config()
    bn = next(layer for layer in config["layers"] if layer["name"] == "bn")
    bn["inbound_nodes"][0]["kwargs"] = {"mask": None}  # as Keras 3 writes it
    rebuilt = ks.Model.from_config(config)
    assert rebuilt(rand(2, 3)).shape == (2, 3)


def test_keras_file_of_a_functional_model_loads_both_ways(tmp_path):
    keras = pytest.importorskip("keras")
    a = keras.Input((4,), name="a")
    b = keras.Input((4,), name="b")
    shared = keras.layers.Dense(3, activation="relu", name="shared")
    inner_in = keras.Input((3,), name="inner_in")
    inner = keras.Model(inner_in, keras.layers.Dense(2, name="g")(inner_in), name="inner")
    merged = keras.layers.Concatenate()([inner(shared(a)), shared(b) * 2.0])
    keras_model = keras.Model([a, b], keras.layers.BatchNormalization()(merged))
    keras_model.save(tmp_path / "keras.keras")
    data = [rand(3, 4, seed=9), rand(3, 4, seed=10)]
    want = keras_model.predict(data, verbose=0)

    ours = ks.models.load_model(str(tmp_path / "keras.keras"))
    np.testing.assert_allclose(ours(data).numpy(), want, atol=1e-6)
    ours.save(str(tmp_path / "ours.keras"))
    back = keras.models.load_model(tmp_path / "ours.keras")
    np.testing.assert_allclose(back.predict(data, verbose=0), want, atol=1e-6)


def test_subclasses_given_inputs_and_outputs_are_functional_and_keep_their_methods():
    class CountingModel(ks.Model):
        def train_step(self, data):
            self.steps_run = getattr(self, "steps_run", 0) + 1
            return super().train_step(data)

    x = ks.Input((3,))
    model = CountingModel(x, ks.layers.Dense(1)(x))
    assert isinstance(model, CountingModel) and isinstance(model, Functional)
    assert type(model).__name__ == "CountingModel"
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)  # Python counts each step
    model.fit(np.ones((8, 3)), np.ones((8, 1)), batch_size=4, verbose=0)
    assert model.steps_run == 2

    class Wrapped(ks.Model):
        def __init__(self, units):
            inputs = ks.Input((4,))
            super().__init__(inputs, ks.layers.Dense(units, name="inside")(inputs), name="wrapped")
            self.units = units

    wrapped = Wrapped(2)
    assert isinstance(wrapped, Functional) and wrapped.name == "wrapped" and wrapped.units == 2
    assert wrapped(rand(1, 4)).shape == (1, 2) and wrapped.get_layer("inside").units == 2
    assert ks.Sequential([ks.layers.Dense(2)], name="stack").name == "stack"  # not functional


def test_ops_that_need_concrete_shapes_become_one_node():
    ops = ks.ops
    tokens = ks.Input((None,), dtype="int32", name="tokens")
    series = ks.Input((None,), name="series")
    hot = ops.one_hot(tokens, 4)  # reads the indices' values
    mean = ops.mean(ops.expand_dims(series, -1), axis=1)  # an unknown axis, an unknown count
    assert hot.shape == (None, None, 4) and mean.shape == (None, 1)
    assert type(mean._keras_history.operation).__name__ == "FunctionOp"
    model = ks.Model([tokens, series], [hot, mean])
    ids = np.array([[0, 3, 1]])
    values = rand(1, 5)
    got_hot, got_mean = model([ids, values])
    np.testing.assert_array_equal(got_hot.numpy(), np.eye(4, dtype=np.float32)[ids])
    np.testing.assert_allclose(got_mean.numpy(), values.mean(axis=1, keepdims=True), rtol=1e-6)
    rebuilt = ks.Model.from_config(json.loads(json.dumps(model.get_config())))
    np.testing.assert_allclose(rebuilt([ids, values])[1].numpy(), got_mean.numpy())


def test_a_functional_subclass_comes_back_from_its_config_as_that_class():
    class Scorer(ks.Model):
        def describe(self):
            return f"scorer with {len(self.layers)} layers"

    x = ks.Input((3,), name="x")
    model = Scorer(x, ks.layers.Dense(1, name="score")(x), name="scorer")
    rebuilt = Scorer.from_config(model.get_config())
    assert isinstance(rebuilt, Scorer) and isinstance(rebuilt, Functional)
    assert rebuilt.describe() == "scorer with 2 layers" and rebuilt.name == "scorer"
    assert type(ks.Model.from_config(model.get_config())) is Functional


def test_a_deep_copy_is_an_independent_working_model():
    x = ks.Input((3,))
    model = ks.Model(x, ks.layers.Dense(2)(x) * 2.0)
    twin = copy.deepcopy(model)
    data = rand(2, 3)
    np.testing.assert_allclose(twin(data).numpy(), model(data).numpy())
    twin.layers[1].bias.assign([1.0, 1.0])
    assert not np.allclose(twin(data).numpy(), model(data).numpy())


def _base_called_with_training_false(library):
    """A model whose nested base (with BatchNormalization) is called with training=False."""
    inner_in = library.Input((3,))
    base = library.Model(inner_in, library.layers.BatchNormalization(momentum=0.5)(inner_in))
    outer_in = library.Input((3,))
    model = library.Model(outer_in, library.layers.Dense(1)(base(outer_in, training=False)))
    return model, base


def test_the_calls_training_replaces_the_one_a_node_was_recorded_with_as_in_keras_3():
    model, base = _base_called_with_training_false(ks)
    batch = np.arange(12, dtype=np.float32).reshape(4, 3)
    model(batch)  # training=None: the node's training=False holds
    np.testing.assert_array_equal(base.layers[1].moving_mean.numpy(), 0.0)
    model(batch, training=False)
    np.testing.assert_array_equal(base.layers[1].moving_mean.numpy(), 0.0)
    model(batch, training=True)  # as fit calls it: the base trains, statistics move
    np.testing.assert_allclose(base.layers[1].moving_mean.numpy(), batch.mean(0) * 0.5)
    base.trainable = False  # the way to keep a base in inference mode under fit
    before = base.layers[1].moving_mean.numpy()
    model(batch, training=True)
    np.testing.assert_array_equal(base.layers[1].moving_mean.numpy(), before)


def test_the_calls_training_replaces_the_nodes_as_keras_does():
    keras = pytest.importorskip("keras")
    batch = np.arange(12, dtype=np.float32).reshape(4, 3)
    means = []
    for library in (keras, ks):
        model, base = _base_called_with_training_false(library)
        model(batch, training=True)
        means.append(np.asarray(base.layers[1].moving_mean))
    np.testing.assert_allclose(means[1], means[0], rtol=1e-6)
