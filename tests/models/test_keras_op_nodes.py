"""Op nodes in functional graphs: Keras 3 op nodes read from configs (the `NotEqual` mask of
`Embedding(mask_zero=True)`, keyword tensor arguments, config arguments), and composite ops
that read static shapes on symbolic tensors with unknown dimensions."""

import json

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.symbolic import FunctionOp, KerasOp, ops_function


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _tensor(name, shape, dtype="float32", node=0):
    return {"class_name": "__keras_tensor__",
            "config": {"shape": shape, "dtype": dtype, "keras_history": [name, node, 0]}}


def _masked_lstm_config() -> dict:
    """What Keras 3 writes for Input(int32) -> Embedding(mask_zero=True) -> LSTM: the mask is
    a NotEqual op node of its own, passed to the LSTM as the keyword argument `mask`."""
    return {
        "name": "masked", "trainable": True,
        "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "name": "tokens",
             "registered_name": None, "inbound_nodes": [],
             "config": {"batch_shape": [None, 5], "dtype": "int32", "name": "tokens"}},
            {"module": "keras.layers", "class_name": "Embedding", "name": "embedding",
             "registered_name": None,
             "config": {"name": "embedding", "input_dim": 7, "output_dim": 3, "mask_zero": True},
             "inbound_nodes": [{"args": [_tensor("tokens", [None, 5], "int32")], "kwargs": {}}]},
            {"module": "keras.src.ops.numpy", "class_name": "NotEqual", "name": "not_equal",
             "registered_name": "NotEqual", "config": {"name": "not_equal"},
             "inbound_nodes": [{"args": [_tensor("tokens", [None, 5], "int32"), 0],
                                "kwargs": {}}]},
            {"module": "keras.layers", "class_name": "LSTM", "name": "lstm",
             "registered_name": None, "config": {"name": "lstm", "units": 2},
             "inbound_nodes": [{"args": [_tensor("embedding", [None, 5, 3])], "kwargs": {
                 "training": False, "mask": _tensor("not_equal", [None, 5], "bool")}}]},
        ],
        "input_layers": ["tokens", 0, 0], "output_layers": ["lstm", 0, 0],
    }


def test_the_mask_op_node_of_a_keras_config_masks_the_padding():
    model = ks.Model.from_config(_masked_lstm_config())
    operation = next(op for op in model._operations if op.name == "not_equal")
    assert isinstance(operation, KerasOp) and operation.keras_class == "NotEqual"
    tokens = np.array([[1, 2, 0, 0, 0], [3, 4, 5, 6, 0]])
    before = model(tokens).numpy()
    embedding = model.get_layer("embedding")
    table = embedding.embeddings.numpy()
    table[0] = 100.0  # the padding row: masked positions must not reach the LSTM
    embedding.embeddings.assign(table)
    np.testing.assert_array_equal(model(tokens).numpy(), before)
    reference = ks.layers.LSTM(2)  # the same weights, the mask given by hand
    reference(table[tokens], mask=tokens != 0)
    for mine, theirs in zip(reference.weights, model.get_layer("lstm").weights):
        mine.assign(theirs)
    np.testing.assert_allclose(reference(table[tokens], mask=tokens != 0).numpy(), before,
                               rtol=1e-6)
    config = json.loads(json.dumps(model.get_config()))  # written back with its mask keyword
    lstm = next(layer for layer in config["layers"] if layer["name"] == "lstm")
    assert lstm["inbound_nodes"][0]["kwargs"]["mask"]["config"]["keras_history"][0] == (
        "not_equal")
    rebuilt = ks.Model.from_config(config)
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_array_equal(rebuilt(tokens).numpy(), before)


def test_keras_op_config_arguments_kerasish_lacks_are_accepted_only_at_keras_defaults():
    def config_with(**arguments):
        return {"module": "keras.src.ops.numpy", "class_name": "Max", "name": "max",
                "config": {"name": "max", "axis": -1, "keepdims": False, **arguments}}

    op = KerasOp(config_with(initial=None))  # Keras's off value
    np.testing.assert_array_equal(op(np.array([[1.0, 5.0]])).numpy(), [5.0])
    op = KerasOp(config_with(initial=7.0))  # ks.ops.max takes Keras's initial
    np.testing.assert_array_equal(op(np.array([[1.0, 5.0]])).numpy(), [7.0])
    # an argument ks.ops.max lacks (NumPy's `where`, were a Keras config to write it)
    KerasOp(config_with(where=None))
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"Keras op 'max' \(Max\): config argument where=3.0 is not "
                             r"supported \(ks.ops.max has no 'where'"):
        KerasOp(config_with(where=3.0))
    einsum = KerasOp({"module": "keras.src.ops.numpy", "class_name": "Einsum",
                      "config": {"name": "e", "subscripts": "ij,jk->ik"}})
    np.testing.assert_allclose(einsum(np.eye(2), np.ones((2, 3))).numpy(), np.ones((2, 3)))


def test_keras_masked_models_load_and_predict_equal_both_ways(tmp_path):
    keras = pytest.importorskip("keras")
    tokens = np.array([[1, 2, 3, 0, 0, 0], [4, 5, 0, 0, 0, 0], [6, 1, 2, 3, 4, 5]])
    inputs = keras.Input((6,), dtype="int32")
    hidden = keras.layers.Embedding(10, 4, mask_zero=True)(inputs)
    hidden = keras.layers.LSTM(3, return_sequences=True)(hidden)
    outputs = keras.layers.Dense(2)(keras.layers.GRU(3)(hidden))
    keras_model = keras.Model(inputs, outputs)
    keras_model.save(tmp_path / "keras.keras")
    want = keras_model.predict(tokens, verbose=0)
    ours = ks.models.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(ours.predict(tokens), want, atol=1e-6)
    ours.save(tmp_path / "back.keras")
    back = keras.models.load_model(tmp_path / "back.keras")
    np.testing.assert_allclose(back.predict(tokens, verbose=0), want, atol=1e-6)

    mine_in = ks.Input((6,), dtype="int32")  # a kerasish model: its masks travel on tensors
    mine_out = ks.layers.Dense(2)(ks.layers.GRU(3)(ks.layers.Embedding(10, 4, mask_zero=True)(
        mine_in)))
    mine = ks.Model(mine_in, mine_out)
    mine.save(tmp_path / "mine.keras")
    np.testing.assert_allclose(
        keras.models.load_model(tmp_path / "mine.keras").predict(tokens, verbose=0),
        mine.predict(tokens), atol=1e-6)


# Keras ops whose configs carry arguments, keywords or a leading string: built in Keras,
# loaded here, written back and loaded in Keras again.
_KERAS_OPS = {
    "not_equal": lambda o, a, t: o.cast(o.not_equal(t, 0), "float32"),
    "max_initial": lambda o, a, t: o.max(a, axis=-1),
    "min_initial": lambda o, a, t: o.min(a, axis=1),
    "one_hot_sparse": lambda o, a, t: o.one_hot(t, 7),
    "cumsum_dtype": lambda o, a, t: o.cumsum(a, axis=1),
    "prod_dtype": lambda o, a, t: o.prod(a, axis=1),
    "pad_keyword": lambda o, a, t: o.pad(a, [[0, 0], [1, 1], [0, 0]]),
    "einsum": lambda o, a, t: o.einsum("bij,bkj->bik", a, a),
    "normalize_epsilon": lambda o, a, t: o.normalize(a, axis=-1),
    "moments": lambda o, a, t: o.moments(a, axes=[1])[0],
    "where": lambda o, a, t: o.where(a > 0.5, a, o.zeros_like(a)),
    "take": lambda o, a, t: o.take(a, [0, 2], axis=2),
    "logsumexp": lambda o, a, t: o.logsumexp(a, axis=-1),
    "clip_stack": lambda o, a, t: o.stack([o.clip(a, -0.2, 0.3), a], axis=1),
    "swapaxes": lambda o, a, t: o.swapaxes(a, 1, 2),
    "moveaxis": lambda o, a, t: o.moveaxis(a, [0, 1], [2, 0]),
    "count_nonzero": lambda o, a, t: o.cast(o.count_nonzero(a > 0.5, axis=1), "float32"),
    "average": lambda o, a, t: o.average(a, axis=1, weights=o.array([1.0, 2.0, 0.5, 0.0])),
    "average_unweighted": lambda o, a, t: o.average(a, axis=-1),
    "top_k": lambda o, a, t: o.top_k(a, 2)[0] + o.cast(o.top_k(a, 2)[1], "float32"),
    "sort_argsort": lambda o, a, t: o.sort(a, axis=1) + o.cast(o.argsort(a), "float32"),
    "take_along_axis": lambda o, a, t: o.take_along_axis(a, o.argsort(a, axis=1), axis=1),
    "roll": lambda o, a, t: o.roll(a, 2, axis=1),
    "tensordot": lambda o, a, t: o.tensordot(a, a, axes=[[1, 2], [1, 2]]),
    "log_math": lambda o, a, t: o.log2(o.abs(a) + 1.0) + o.arctan2(a, 0.5) + o.sinh(a),
    "nan_to_num": lambda o, a, t: o.nan_to_num(o.log(a)),
    "median_quantile": lambda o, a, t: o.median(a, axis=1) + o.quantile(a, 0.25, axis=1),
    "diagonal_trace": lambda o, a, t: o.diagonal(a, 0, 1, 2) + o.trace(a, axis1=1, axis2=2)[
        :, None],
    "crossentropies": lambda o, a, t: o.binary_crossentropy(
        o.sigmoid(a), o.sigmoid(2.0 * a)) + o.categorical_crossentropy(
        o.softmax(a), a, from_logits=True)[..., None],
    "sparse_crossentropy": lambda o, a, t: o.sparse_categorical_crossentropy(
        t[:, :4] % 3, a, from_logits=True),
    "conv_pool": lambda o, a, t: o.average_pool(
        o.conv(a, np.ones((2, 3, 5), np.float32) * 0.1, padding="same"), 2, padding="same"),
    "segment_max": lambda o, a, t: o.segment_max(a[0], np.array([0, 1, 0, 1]), num_segments=2),
    "det": lambda o, a, t: o.det(0.1 * o.matmul(o.swapaxes(a, 1, 2), a) + o.eye(3)),
    "searchsorted": lambda o, a, t: o.cast(o.searchsorted(
        o.array([-1.0, 0.0, 0.5, 1.0]), o.reshape(a, (-1,))), "float32"),
    "batch_norm": lambda o, a, t: o.batch_normalization(
        a, o.array([0.1, 0.2, 0.3]), o.array([1.0, 2.0, 0.5]), axis=-1, epsilon=1e-3),
}


@pytest.mark.parametrize("name", sorted(_KERAS_OPS))
def test_keras_op_nodes_with_arguments_load_and_write_back(name):
    keras = pytest.importorskip("keras")
    a = keras.Input((4, 3), name="a")
    t = keras.Input((5,), dtype="int32", name="t")
    keras_model = keras.Model([a, t], _KERAS_OPS[name](keras.ops, a, t))
    data = [rand(2, 4, 3, seed=3), np.array([[1, 2, 0, 0, 3], [0, 4, 5, 6, 0]])]
    want = keras_model.predict(data, verbose=0)
    ours = ks.saving.deserialize_keras_object(
        json.loads(json.dumps(keras.saving.serialize_keras_object(keras_model))))
    np.testing.assert_allclose(ours(data).numpy(), want, atol=1e-5)
    back = keras.saving.deserialize_keras_object(
        json.loads(json.dumps(ks.saving.serialize_keras_object(ours))))
    np.testing.assert_allclose(back.predict(data, verbose=0), want, atol=1e-5)


@pytest.mark.parametrize("axes", [(0, -1), ([0, 1], [2, 0]), (2, 0), ([1], [0])])
def test_moveaxis_and_swapaxes_follow_numpy(axes):
    x = rand(2, 3, 4, seed=8)
    np.testing.assert_array_equal(ks.ops.moveaxis(x, *axes).numpy(), np.moveaxis(x, *axes))
    np.testing.assert_array_equal(ks.ops.swapaxes(x, 0, -1).numpy(), np.swapaxes(x, 0, -1))
    with pytest.raises(ks.InvalidArgumentError, match=r"moveaxis: source \[0, 1\] and "
                                                      r"destination 2 need as many axes"):
        ks.ops.moveaxis(x, [0, 1], 2)


def test_count_nonzero_and_average_follow_numpy():
    x = rand(2, 3, 4, seed=9)
    for axis in (None, 1, (0, 2)):
        np.testing.assert_array_equal(ks.ops.count_nonzero(x > 0, axis=axis).numpy(),
                                      np.count_nonzero(x > 0, axis=axis))
    weights = np.abs(rand(3, seed=10))
    full = np.abs(rand(2, 3, 4, seed=11))
    np.testing.assert_allclose(ks.ops.average(x, axis=1, weights=weights).numpy(),
                               np.average(x, axis=1, weights=weights), rtol=1e-5)
    np.testing.assert_allclose(ks.ops.average(x, axis=(0, 2), weights=full).numpy(),
                               np.average(x, axis=(0, 2), weights=full), rtol=1e-5)
    np.testing.assert_allclose(ks.ops.average(x).numpy(), np.average(x), rtol=1e-5)
    with pytest.raises(ks.InvalidArgumentError, match=r"average: 1-D weights of shape \(3,\) "
                                                      r"need an axis for x of shape"):
        ks.ops.average(x, weights=weights)
    ks.testing.check_gradients(lambda v: ks.ops.average(v, axis=1, weights=weights),
                               [x.astype(np.float64)])


# -- composite ops on unknown dimensions ----------------------------------------------------

_COMPOSITES = {
    "reduce_mean_all": (lambda x, i: ks.reduce_mean(x), ()),
    "reduce_mean_unknown_axis": (lambda x, i: ks.reduce_mean(x, axis=1), (None, 3)),
    "reduce_variance": (lambda x, i: ks.math.reduce_variance(x, axis=1), (None, 3)),
    "reduce_std": (lambda x, i: ks.math.reduce_std(x), ()),
    "moments": (lambda x, i: ks.nn.moments(x, axes=[0, 1])[1], (3,)),
    "zeros_like": (lambda x, i: ks.zeros_like(x) + x, (None, None, 3)),
    "ones_like": (lambda x, i: ks.ones_like(x, dtype="int32"), (None, None, 3)),
    "one_hot": (lambda x, i: ks.one_hot(i, 5), (None, None, 5)),
    "expand_dims": (lambda x, i: ks.expand_dims(x, 2), (None, None, 1, 3)),
    "squeeze": (lambda x, i: ks.squeeze(ks.expand_dims(x, -1), -1), (None, None, 3)),
    "stack": (lambda x, i: ks.stack([x, 2.0 * x], axis=1), (None, 2, None, 3)),
    "unstack": (lambda x, i: ks.unstack(x, axis=2)[1], (None, None)),
    "shape": (lambda x, i: ks.shape(x), (3,)),
    "size": (lambda x, i: ks.size(x), ()),
    "ops_mean": (lambda x, i: ks.ops.mean(ks.ops.expand_dims(x, -1), axis=1), (None, 3, 1)),
    # Keras 3 names of sorting, selection, shapes, nn and linalg ops
    "sort": (lambda x, i: ks.ops.sort(x, axis=1), (None, None, 3)),
    "argsort": (lambda x, i: ks.ops.argsort(x), (None, None, 3)),
    "top_k": (lambda x, i: ks.ops.top_k(x, 2)[0], (None, None, 2)),
    "take_along_axis": (
        lambda x, i: ks.ops.take_along_axis(x, ks.ops.argsort(x, axis=1), axis=1),
        (None, None, 3)),
    "roll_unknown_axis": (lambda x, i: ks.ops.roll(x, 1, axis=1), (None, None, 3)),
    "tensordot": (lambda x, i: ks.ops.tensordot(x, np.ones((3, 2), np.float32), 1),
                  (None, None, 2)),
    "quantile": (lambda x, i: ks.ops.quantile(x, 0.5, axis=1), (None, 3)),
    "trace": (lambda x, i: ks.ops.trace(x, 0, 1, 2), (None,)),
    "cross": (lambda x, i: ks.ops.cross(x, x * 2.0 + 1.0), (None, None, 3)),
    "segment_max": (lambda x, i: ks.ops.segment_max(x[0], i[0], num_segments=5), (5, 3)),
    "in_top_k": (lambda x, i: ks.ops.in_top_k(i[:, 0], x[:, 0], 2), (None,)),
    "nan_to_num_log2": (lambda x, i: ks.ops.nan_to_num(ks.ops.log2(ks.ops.abs(x))),
                        (None, None, 3)),
    "sparse_categorical_crossentropy": (
        lambda x, i: ks.ops.sparse_categorical_crossentropy(i % 3, x, from_logits=True),
        (None, None)),
    "conv_max_pool": (lambda x, i: ks.ops.max_pool(
        ks.ops.conv(x, np.ones((2, 3, 4), np.float32), padding="same"), 2), (None, None, 4)),
    "batch_normalization": (lambda x, i: ks.ops.batch_normalization(
        x, [0.0, 1.0, 2.0], [1.0, 2.0, 3.0], axis=-1), (None, None, 3)),
    "det": (lambda x, i: ks.ops.det(ks.ops.matmul(ks.ops.swapaxes(x, 1, 2), x)), (None,)),
    "scatter_update": (lambda x, i: ks.ops.scatter_update(x, [[0, 0]], ks.ops.ones((1, 3))),
                       (None, None, 3)),
}


@pytest.mark.parametrize("name", sorted(_COMPOSITES))
def test_composite_ops_work_on_unknown_dimensions_and_match_eager(name):
    build, shape = _COMPOSITES[name]
    x = ks.Input((None, 3), name="x")
    i = ks.Input((None,), dtype="int32", name="i")
    out = build(x, i)
    assert out.shape == shape
    model = ks.Model([x, i], out)
    values, ids = rand(2, 6, 3, seed=5), np.array([[0, 4, 1, 2, 3, 1], [2, 2, 0, 1, 4, 3]])
    want = build(ks.constant(values), ks.constant(ids)).numpy()
    np.testing.assert_allclose(model([values, ids]).numpy(), want, rtol=1e-6)
    rebuilt = ks.Model.from_config(json.loads(json.dumps(model.get_config())))
    np.testing.assert_allclose(rebuilt([values, ids]).numpy(), want, rtol=1e-6)


def test_a_tf_named_composite_records_one_node_named_by_module_and_function():
    x = ks.Input((None, 3))
    mean = ks.reduce_mean(x, axis=1)
    operation = mean._keras_history.operation
    assert isinstance(operation, FunctionOp)
    assert operation.function_name == "kerasish.core.ops.reduction_ops.reduce_mean"
    assert repr(operation).endswith("(kerasish.core.ops.reduction_ops.reduce_mean)>")
    assert ks.reduce_mean(ks.Input((2, 3)), axis=1)._keras_history.operation.name.startswith(
        "divide")  # known dimensions: the primitives themselves, as before


def test_a_config_naming_ops_by_their_module_before_the_split_still_loads():
    x = ks.Input((None, 3))
    model = ks.Model(x, ks.reduce_mean(ks.expand_dims(x, 1), axis=2))
    text = json.dumps(model.get_config())
    assert "kerasish.core.ops.reduction_ops.reduce_mean" in text
    old = text.replace("reduction_ops.reduce_mean", "math_ops.reduce_mean").replace(
        "shape_ops.expand_dims", "array_ops.expand_dims")
    rebuilt = ks.Model.from_config(json.loads(old))
    values = rand(2, 4, 3, seed=8)
    np.testing.assert_allclose(rebuilt(values).numpy(), model(values).numpy(), rtol=1e-6)
    assert ops_function("kerasish.core.ops.array_ops.one_hot") is ks.one_hot


@pytest.mark.parametrize("name", [
    "os.system", "kerasish.core.serialization.deserialize_keras_object",
    "kerasish.core.ops.reduction_ops._extreme", "kerasish.core.ops.math_ops.np",
    "kerasish.core.ops.math_ops.reduce_sum",
    "kerasish.nn.backend", "builtins.eval", "kerasish.core.ops.not_a_module.f",
])
def test_function_op_names_resolve_only_to_ops(name):
    assert ops_function(name) is None
    with pytest.raises(ks.InvalidArgumentError, match="FunctionOp: there is no op"):
        FunctionOp(name)


def test_a_layer_given_a_concrete_input_and_a_symbolic_one_records_a_node():
    query = ks.constant(rand(1, 2, 4, seed=6))
    value = ks.Input((3, 4), name="value")
    attention = ks.layers.MultiHeadAttention(2, 3, name="attention")
    out = attention(query, value)
    assert out.shape == (1, 2, 4)
    model = ks.Model(value, out)
    data = rand(1, 3, 4, seed=7)
    np.testing.assert_allclose(model(data).numpy(), attention(query, data).numpy(), rtol=1e-6)
    rebuilt = ks.Model.from_config(json.loads(json.dumps(model.get_config())))
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(rebuilt(data).numpy(), model(data).numpy(), rtol=1e-6)
