"""Lambda, Identity, Permute, RepeatVector: values, shapes, masks, gradients, errors,
serialization (Lambda's bytecode only with safe_mode=False), and Keras 3 parity."""

import base64
import json
import marshal

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.saving import SerializationError, deserialize_keras_object, serialize_keras_object
from kerasish.testing import check_layer_gradients

L = ks.layers


def _rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- Lambda


def test_lambda_applies_function_with_arguments():
    layer = L.Lambda(lambda x, power: x ** power, arguments={"power": 3})
    got = layer(ks.constant([[1.0, 2.0], [-1.0, 0.5]])).numpy()
    np.testing.assert_allclose(got, [[1.0, 8.0], [-1.0, 0.125]])


def test_lambda_passes_mask_and_training_only_to_functions_that_name_them():
    seen = {}

    def function(x, mask=None, training=None):
        seen["mask"], seen["training"] = mask, training
        return x * 2.0

    layer = L.Lambda(function)
    masked = L.Masking(0.0)(ks.constant([[[1.0], [0.0]]]))
    layer(masked, training=True)
    assert seen["training"] is True
    np.testing.assert_array_equal(seen["mask"].numpy(), [[True, False]])
    assert L.Lambda(lambda x: x + 1.0)(ks.ones([1, 2]), training=True).shape == (1, 2)


def test_lambda_mask_argument_callable_or_fixed():
    x = ks.constant([[1.0, 0.0, 3.0]])
    computed = L.Lambda(lambda t: t + 0.0,
                        mask=lambda inputs, mask: ks.not_equal(inputs, 0.0))(x)
    np.testing.assert_array_equal(computed._keras_mask.numpy(), [[True, False, True]])
    fixed = L.Lambda(lambda t: t + 0.0, mask=ks.constant([[False, True, True]]))(x)
    np.testing.assert_array_equal(fixed._keras_mask.numpy(), [[False, True, True]])
    assert getattr(L.Lambda(lambda t: t + 0.0)(x), "_keras_mask", None) is None


def test_lambda_output_shapes_given_or_inferred():
    assert L.Lambda(lambda x: x, output_shape=(5,)).compute_output_shape((7, 3)) == (7, 5)
    assert L.Lambda(lambda x: x, output_shape=lambda s: s[:1] + (2,)).compute_output_shape(
        (None, 3)) == (None, 2)
    several = L.Lambda(lambda x: [x, x], output_shape=[(3,), (2, 2)])
    assert several.compute_output_shape((None, 3)) == [(None, 3), (None, 2, 2)]
    inferred = L.Lambda(lambda x: ks.concat([x, x[:, :1]], axis=-1))
    assert inferred.compute_output_shape((None, 3)) == (None, 4)
    assert inferred.compute_output_shape((None, None)) == (None, None)


def test_lambda_in_functional_model_infers_shape_and_dtype_and_trains():
    ids = ks.Input((4,), dtype="int32")
    hot = L.Lambda(lambda t: ks.one_hot(t, 5))(ids)
    assert hot.shape == (None, 4, 5) and hot.dtype == np.float32
    features = ks.Input((3,))
    doubled = L.Lambda(lambda t: ks.concat([t, t * 2.0], axis=-1))(features)
    assert doubled.shape == (None, 6)
    model = ks.Model(features, L.Dense(1)(doubled))
    x = _rng().normal(size=(16, 3)).astype("float32")
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, x.sum(axis=1, keepdims=True), epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_lambda_gradients_flow_through_function():
    layer = L.Lambda(lambda x: ks.tanh(x) * x, dtype="float64")
    check_layer_gradients(layer, _rng().normal(size=(2, 3)))


def test_lambda_whose_shape_cannot_be_inferred_says_to_pass_output_shape():
    with pytest.raises(InvalidArgumentError,
                       match=r"^layer 'odd' \(Lambda\): could not infer the output shape by "
                       r"running the function on zeros of shape \(None, 3\) .*AttributeError.*"
                       r"Pass output_shape="):
        L.Lambda(lambda t: t.no_such_method(), name="odd")(ks.Input((3,)))
    given = L.Lambda(lambda t: t.no_such_method(), output_shape=(5,))(ks.Input((3,)))
    assert given.shape == (None, 5)  # with output_shape the function is not run


def test_lambda_errors_name_the_argument():
    with pytest.raises(TypeError, match=r"Lambda: function must be callable, got 3 \(int\)"):
        L.Lambda(3)
    with pytest.raises(InvalidArgumentError,
                       match=r"Lambda: output_shape must be a shape .* got 'wide'"):
        L.Lambda(lambda x: x, output_shape="wide")


def test_lambda_config_direct_round_trip_keeps_the_function():
    function = lambda x, k=2.0: x * k  # noqa: E731
    layer = L.Lambda(function, output_shape=(3,), arguments={"k": 4.0}, name="times")
    copy = L.Lambda.from_config(layer.get_config())
    assert copy.function is function and copy.name == "times"
    np.testing.assert_allclose(copy(ks.ones([1, 3])).numpy(), 4.0)


def test_lambda_bytecode_is_refused_in_safe_mode_and_runs_when_trusted():
    layer = L.Lambda(lambda x, k=2.0: x * k + 1.0, output_shape=lambda s: s,
                     arguments={"k": 3.0}, name="affine")
    config = json.loads(json.dumps(serialize_keras_object(layer)))
    function = config["config"]["function"]
    assert function["class_name"] == "__lambda__"
    assert set(function["config"]) == {"code", "defaults", "closure"}
    assert config["config"]["output_shape"]["class_name"] == "__lambda__"
    assert config["config"]["arguments"] == {"k": 3.0}
    with pytest.raises(SerializationError, match=r"^Lambda 'affine': refusing to load a Python "
                       r"lambda.*safe_mode=False"):
        deserialize_keras_object(config)
    with pytest.raises(SerializationError, match="refusing to load a Python lambda"):
        L.Lambda.from_config(config["config"])  # outside any trusted scope: refused too
    copy = deserialize_keras_object(config, safe_mode=False)
    np.testing.assert_allclose(copy(ks.constant([[1.0, 2.0]])).numpy(), [[4.0, 7.0]])
    assert copy.compute_output_shape((None, 2)) == (None, 2)


def _scaler(scale):
    return lambda x: x * scale


def test_lambda_with_captured_values_as_keras_writes_it_loads_when_trusted():
    code = base64.b64encode(marshal.dumps(_scaler(1.0).__code__)).decode("ascii")
    config = {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
              "config": {"name": "scaled", "trainable": True, "dtype": "float32",
                         "function": {"class_name": "__lambda__", "config": {
                             "code": code, "defaults": None, "closure": [2.5]}},
                         "arguments": {}}}
    layer = deserialize_keras_object(config, safe_mode=False)
    np.testing.assert_allclose(layer(ks.ones([1, 2])).numpy(), [[2.5, 2.5]])
    config["config"]["function"]["config"]["closure"] = None
    with pytest.raises(SerializationError, match=r"uses 1 captured variable\(s\) \(scale\) "
                       r"but the config holds 0 value\(s\)"):
        deserialize_keras_object(config, safe_mode=False)


def _triple(x):
    return x * 3.0


def test_lambda_named_function_loads_in_safe_mode_through_custom_objects():
    config = json.loads(json.dumps(serialize_keras_object(L.Lambda(_triple))))
    assert config["config"]["function"]["class_name"] == "function"
    with pytest.raises(SerializationError, match="unknown function '_triple'"):
        deserialize_keras_object(config)
    copy = deserialize_keras_object(config, custom_objects={"_triple": _triple})
    assert copy.function is _triple
    relu = json.loads(json.dumps(serialize_keras_object(L.Lambda(ks.activations.relu))))
    assert relu["config"]["function"] == {"module": "keras.activations",
                                          "class_name": "function", "config": "relu",
                                          "registered_name": "function"}
    assert deserialize_keras_object(relu).function is ks.activations.relu


def test_model_with_lambda_saves_and_loads_only_with_safe_mode_off(tmp_path):
    inputs = ks.Input((3,))
    outputs = L.Dense(2)(L.Lambda(lambda x: x * 2.0 - 1.0, name="shift")(inputs))
    model = ks.Model(inputs, outputs)
    path = str(tmp_path / "lambda.keras")
    model.save(path)
    with pytest.raises(SerializationError, match=r"lambda\.keras: Lambda 'shift': refusing .*"
                       r"safe_mode=False"):
        ks.models.load_model(path)
    loaded = ks.models.load_model(path, safe_mode=False)
    x = _rng().normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


# ---------------------------------------------------------------- Identity


def test_identity_returns_inputs_and_keeps_masks():
    x = ks.constant([[[1.0], [0.0]]])
    masked = L.Masking(0.0)(x)
    out = L.Identity()(masked)
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False]])
    a, b = ks.Input((2,)), ks.Input((3,), dtype="int32")
    pa, pb = L.Identity()([a, b])
    assert (pa.shape, pa.dtype, pb.shape, pb.dtype) == ((None, 2), np.float32,
                                                         (None, 3), np.int32)
    assert L.Identity().compute_output_shape((None, 4)) == (None, 4)


# ---------------------------------------------------------------- Permute


def test_permute_values_shapes_and_gradients():
    x = _rng().normal(size=(2, 3, 4, 5))
    layer = L.Permute((3, 1, 2), dtype="float64")
    np.testing.assert_array_equal(layer(x).numpy(), np.transpose(x, (0, 3, 1, 2)))
    assert layer.compute_output_shape((None, 3, None, 5)) == (None, 5, 3, None)
    assert L.Permute((2, 1))(ks.Input((10, 64))).shape == (None, 64, 10)
    check_layer_gradients(layer, x)
    assert L.Permute.from_config(layer.get_config()).dims == (3, 1, 2)


def test_permute_errors():
    with pytest.raises(InvalidArgumentError,
                       match=r"Permute: dims must be a permutation of 1\.\.2 .* got dims=\(0, 1\)"):
        L.Permute((0, 1))
    with pytest.raises(InvalidArgumentError,
                       match=r"Permute 'p'.*rank 3 .* got shape \(2, 3\)"):
        L.Permute((2, 1), name="p")(ks.ones([2, 3]))


# ---------------------------------------------------------------- RepeatVector


def test_repeat_vector_values_shapes_and_gradients():
    x = _rng().normal(size=(2, 3))
    layer = L.RepeatVector(4, dtype="float64")
    got = layer(x).numpy()
    assert got.shape == (2, 4, 3)
    np.testing.assert_array_equal(got, np.repeat(x[:, None, :], 4, axis=1))
    assert layer.compute_output_shape((None, 3)) == (None, 4, 3)
    assert L.RepeatVector(2)(ks.Input((5,))).shape == (None, 2, 5)
    check_layer_gradients(layer, x)
    with ks.GradientTape() as tape:
        xt = ks.constant(x)
        tape.watch(xt)
        total = ks.reduce_sum(layer(xt))
    np.testing.assert_allclose(tape.gradient(total, xt).numpy(), np.full((2, 3), 4.0))


def test_repeat_vector_errors():
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InvalidArgumentError,
                           match=rf"RepeatVector: n must be a positive integer, got {bad!r}"):
            L.RepeatVector(bad)
    with pytest.raises(InvalidArgumentError,
                       match=r"RepeatVector 'r'.*\(batch, features\), got shape \(2, 3, 1\)"):
        L.RepeatVector(2, name="r")(ks.ones([2, 3, 1]))


# ---------------------------------------------------------------- Keras 3 parity


def _keras():
    return pytest.importorskip("keras")


@pytest.mark.parametrize("name, kwargs, shape", [
    ("Permute", {"dims": (2, 3, 1)}, (2, 3, 4, 5)),
    ("RepeatVector", {"n": 3}, (2, 4)),
    ("Identity", {}, (2, 3)),
])
def test_forward_and_configs_match_keras(name, kwargs, shape):
    keras = _keras()
    x = _rng().normal(size=shape).astype("float32")
    theirs, ours = getattr(keras.layers, name)(**kwargs), getattr(L, name)(**kwargs)
    np.testing.assert_array_equal(ours(x).numpy(), np.asarray(theirs(x)))
    from_keras = deserialize_keras_object(keras.saving.serialize_keras_object(theirs))
    assert type(from_keras) is type(ours)
    ours_config = json.loads(json.dumps(serialize_keras_object(ours)))
    back = keras.saving.deserialize_keras_object(ours_config)
    assert type(back).__name__ == name
    np.testing.assert_array_equal(np.asarray(back(x)), ours(x).numpy())
    symbolic_shape = (None,) + shape[1:]
    assert ours.compute_output_shape(symbolic_shape) == theirs.compute_output_shape(
        symbolic_shape)


def test_lambda_files_carry_over_with_keras_both_ways(tmp_path):
    keras = _keras()
    x = _rng().normal(size=(4, 3)).astype("float32")
    inputs = keras.Input((3,))
    hidden = keras.layers.Lambda(lambda t, k=2.0: t * k + 1.0, output_shape=(3,))(inputs)
    theirs = keras.Model(inputs, keras.layers.Dense(2)(hidden))
    keras_path = str(tmp_path / "keras_lambda.keras")
    theirs.save(keras_path)
    with pytest.raises(SerializationError, match="safe_mode=False"):
        ks.models.load_model(keras_path)
    loaded = ks.models.load_model(keras_path, safe_mode=False)
    np.testing.assert_allclose(loaded(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6)

    def scaled(scale):
        return keras.layers.Lambda(lambda t: t * scale)

    captured = keras.Model(inputs, scaled(1.5)(inputs))
    captured.save(keras_path)
    loaded = ks.models.load_model(keras_path, safe_mode=False)
    np.testing.assert_allclose(loaded(x).numpy(), x * 1.5, rtol=1e-6)

    ours_in = ks.Input((3,))
    ours = ks.Model(ours_in, L.Dense(2)(L.Lambda(lambda t: t * 3.0 - 0.5)(ours_in)))
    ours_path = str(tmp_path / "ours_lambda.keras")
    ours.save(ours_path)
    with pytest.raises(ValueError, match="safe_mode"):
        keras.models.load_model(ours_path)
    back = keras.models.load_model(ours_path, safe_mode=False)
    np.testing.assert_allclose(np.asarray(back(x)), ours(x).numpy(), rtol=1e-5, atol=1e-6)


def test_lambda_with_builtin_activation_config_loads_in_keras():
    keras = _keras()
    config = json.loads(json.dumps(serialize_keras_object(L.Lambda(ks.activations.relu))))
    theirs = keras.saving.deserialize_keras_object(config)
    np.testing.assert_array_equal(np.asarray(theirs(np.array([[-1.0, 2.0]], "float32"))),
                                  [[0.0, 2.0]])
    from_keras = deserialize_keras_object(
        keras.saving.serialize_keras_object(keras.layers.Lambda(keras.activations.relu)))
    assert from_keras.function is ks.activations.relu
