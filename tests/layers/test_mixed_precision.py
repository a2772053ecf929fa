"""Dtype policies and mixed precision: weights in variable_dtype, compute in compute_dtype,
the autocast of inputs and variables, configs in Keras's form, and InputSpec."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.dtype_policy import AutocastScope
from kerasish.testing import check_gradients


@pytest.fixture(autouse=True)
def _float32_policy_after():
    yield
    ks.config.set_floatx("float32")  # (also drops the global policy set by a test)


def test_policy_names_and_dtypes():
    mixed = ks.mixed_precision.Policy("mixed_float16")
    assert (mixed.compute_dtype, mixed.variable_dtype) == ("float16", "float32")
    assert ks.DTypePolicy("float64").compute_dtype == "float64"
    assert repr(mixed) == '<DTypePolicy "mixed_float16">'
    assert ks.FloatDTypePolicy("mixed_float16") == mixed
    assert mixed.get_config() == {"name": "mixed_float16"}
    assert ks.DTypePolicy.from_config({"name": "mixed_float16"}) == mixed
    assert ks.mixed_precision.global_policy() == ks.DTypePolicy("float32")
    assert ks.DTypePolicy().name == "float32"  # no name: the global policy's


def test_policy_errors_name_the_value():
    with pytest.raises(TypeError, match="must be a string"):
        ks.DTypePolicy(3)
    with pytest.raises(ValueError, match="cannot make a dtype policy of 'mixed_float8'"):
        ks.DTypePolicy("mixed_float8")
    with pytest.raises(NotImplementedError, match="NumPy has no bfloat16"):
        ks.mixed_precision.set_global_policy("mixed_bfloat16")
    with pytest.raises(ValueError, match="expected the name of a policy"):
        ks.mixed_precision.set_global_policy(3.5)
    with pytest.raises(ValueError, match="floating point"):
        AutocastScope("int32")


def test_set_floatx_drops_a_global_policy():
    ks.mixed_precision.set_global_policy("mixed_float16")
    ks.config.set_floatx("float64")
    assert ks.layers.Dense(2).dtype_policy.name == "float64"
    ks.config.set_floatx("float32")
    assert ks.mixed_precision.global_policy().name == "float32"


def test_global_policy_reaches_new_layers_only():
    before = ks.layers.Dense(2)
    ks.mixed_precision.set_global_policy("mixed_float16")
    assert ks.config.dtype_policy().name == "mixed_float16"
    after = ks.layers.Dense(2)
    assert before.dtype_policy.name == "float32"
    assert after.dtype_policy.name == "mixed_float16"
    assert (after.compute_dtype, after.variable_dtype, after.dtype) == (
        "float16", "float32", np.float32)
    assert ks.layers.Dense(2, dtype="float32").compute_dtype == "float32"


def test_mixed_dense_computes_in_float16_with_float32_weights_and_gradients():
    layer = ks.layers.Dense(3, dtype="mixed_float16", kernel_initializer="ones")
    x = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)
    with ks.GradientTape() as tape:
        y = layer(x)
        loss = ks.reduce_sum(ks.cast(y, "float32") ** 2)
    assert y.dtype == np.float16 and layer.kernel.dtype == np.float32
    grads = tape.gradient(loss, layer.trainable_variables)
    assert [g.dtype for g in grads] == [np.float32, np.float32]
    # the same computation in float32 gives the same gradients to float16 precision
    twin = ks.layers.Dense(3, kernel_initializer="ones")
    with ks.GradientTape() as tape:
        loss32 = ks.reduce_sum(twin(x) ** 2)
    expected = tape.gradient(loss32, twin.trainable_variables)
    for ours, theirs in zip(grads, expected):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-3, atol=1e-3)


def test_autocast_read_of_a_variable_has_the_cast_gradient():
    """The autocast read is a `cast` op: its gradient (checked against finite differences in
    float64) reaches the variable unchanged."""
    w = ks.Variable(np.array([0.5, -1.5, 2.0]), dtype="float64")

    def f(x):
        with AutocastScope("float32"):
            return ks.cast(w * x, "float64") * x

    check_gradients(f, [np.array([1.0, 2.0, -0.5])], order=1, rtol=1e-4, atol=1e-5)
    with ks.GradientTape() as tape, AutocastScope("float16"):
        y = w * 2.0
    assert y.dtype == np.float16
    assert tape.gradient(y, w).dtype == np.float64


def test_a_variable_made_with_autocast_false_is_read_as_it_is():
    w = ks.Variable([1.0, 2.0], autocast=False)
    with AutocastScope("float16"):
        assert (w * 2.0).dtype == np.float32
    assert w.autocast is False


def test_final_float32_softmax_gives_float32_outputs_as_in_keras_guide():
    ks.mixed_precision.set_global_policy("mixed_float16")
    inputs = ks.Input((4,))
    hidden = ks.layers.Dense(5, activation="relu")(inputs)
    logits = ks.layers.Dense(3)(hidden)
    outputs = ks.layers.Activation("softmax", dtype="float32")(logits)
    assert (hidden.dtype, outputs.dtype) == (np.float16, np.float32)
    model = ks.Model(inputs, outputs)
    y = model(np.ones((2, 4), "float32"))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.numpy().sum(axis=1), 1.0, rtol=1e-6)


def test_layer_autocast_false_keeps_its_inputs():
    layer = ks.layers.Activation("relu", dtype="mixed_float16", autocast=False)
    assert layer(np.ones((1, 2), "float32")).dtype == np.float32
    assert ks.layers.Activation("relu", dtype="mixed_float16")(
        np.ones((1, 2), "float32")).dtype == np.float16


def test_integer_inputs_are_not_autocast():
    layer = ks.layers.Identity(dtype="mixed_float16")
    assert layer(np.array([[1, 2]], "int32")).dtype == np.int32


def test_losses_of_float16_predictions_are_computed_in_floatx_as_in_keras():
    """Keras computes a loss in floatx whatever the model's compute dtype: in float16 a
    squared error of 300 (90,000) would overflow to inf."""
    ks.mixed_precision.set_global_policy("mixed_float16")
    y_pred = ks.layers.Dense(1, kernel_initializer="ones")(np.full((2, 1), 300.0, "float32"))
    assert y_pred.dtype == np.float16
    loss = ks.losses.MeanSquaredError()(np.zeros((2, 1), "float32"), y_pred)
    assert loss.dtype == np.float32 and float(loss) == 90000.0
    logits = ks.constant(np.array([[2.0, 0.0, -1.0]], "float16"))
    sparse = ks.losses.SparseCategoricalCrossentropy(from_logits=True)([0], logits)
    assert sparse.dtype == np.float32
    half = ks.constant(np.array([[1.0]], "float16"))
    assert ks.losses.MeanSquaredError(dtype="float16")([[0.0]], half).dtype == np.float16
    assert ks.losses.MeanSquaredError()([[0.0]], np.array([[1.0]])).dtype == np.float64


def test_fit_under_mixed_float16_with_loss_scaling_learns():
    ks.mixed_precision.set_global_policy("mixed_float16")
    ks.random.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(256, 8)).astype("float32")
    y = (x.sum(axis=1) > 4).astype("int32")
    model = ks.Sequential([ks.Input((8,)), ks.layers.Dense(16, activation="relu"),
                           ks.layers.Dense(2), ks.layers.Activation("softmax", dtype="float32")])
    optimizer = ks.mixed_precision.LossScaleOptimizer(ks.optimizers.Adam(0.02))
    model.compile(optimizer, "sparse_categorical_crossentropy")
    history = model.fit(x, y, epochs=6, verbose=0)
    assert history.history["loss"][-1] < 0.8 * history.history["loss"][0]
    assert model.layers[0].kernel.dtype == np.float32


def test_compile_under_mixed_float16_wraps_the_optimizer_in_loss_scaling():
    ks.mixed_precision.set_global_policy("mixed_float16")
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
    model.compile("sgd", "mse")
    assert isinstance(model.optimizer, ks.mixed_precision.LossScaleOptimizer)
    assert isinstance(model.optimizer.inner_optimizer, ks.optimizers.SGD)
    scaled = ks.mixed_precision.LossScaleOptimizer(ks.optimizers.SGD())
    model.compile(scaled, "mse")
    assert model.optimizer is scaled  # not wrapped twice
    model.compile("sgd", "mse", auto_scale_loss=False)
    assert isinstance(model.optimizer, ks.optimizers.SGD)
    ks.mixed_precision.set_global_policy("float32")
    plain = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
    plain.compile("sgd", "mse")
    assert isinstance(plain.optimizer, ks.optimizers.SGD)


def test_config_is_keras_dtype_policy_form_and_round_trips(tmp_path):
    layer = ks.layers.Dense(2, dtype="mixed_float16")
    assert layer.get_config()["dtype"] == "mixed_float16"
    serialized = ks.saving.serialize_keras_object(layer)
    assert serialized["config"]["dtype"] == {
        "module": "keras", "class_name": "DTypePolicy", "config": {"name": "mixed_float16"},
        "registered_name": None}
    assert ks.saving.deserialize_keras_object(serialized).dtype_policy.name == "mixed_float16"
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2, dtype="mixed_float16")])
    model.save(tmp_path / "m.keras")
    loaded = ks.models.load_model(tmp_path / "m.keras")
    assert loaded.layers[0].compute_dtype == "float16"
    x = np.ones((1, 3), "float32")
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def test_dtype_argument_forms():
    assert ks.layers.Dense(2, dtype=np.float64).dtype_policy.name == "float64"
    assert ks.layers.Dense(2, dtype=ks.DTypePolicy("mixed_float16")).compute_dtype == "float16"
    assert ks.layers.Dense(2, dtype={"class_name": "DTypePolicy",
                                     "config": {"name": "float64"}}).dtype == np.float64
    layer = ks.layers.Dense(2)
    layer.dtype_policy = "mixed_float16"
    assert layer.compute_dtype == "float16"
    with pytest.raises(ValueError, match="cannot read the dtype argument"):
        ks.layers.Dense(2, dtype=object())


# -- InputSpec --------------------------------------------------------------------------


class _Spec(ks.layers.Layer):
    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = spec


@pytest.mark.parametrize("spec, x, message", [
    (ks.InputSpec(ndim=2), np.ones((2, 3, 4)), "expected ndim=2, found ndim=3"),
    (ks.InputSpec(min_ndim=3), np.ones((2, 3)), "expected min_ndim=3, found ndim=2"),
    (ks.InputSpec(max_ndim=2), np.ones((2, 3, 4)), "expected max_ndim=2, found ndim=3"),
    (ks.InputSpec(axes={-1: 4}), np.ones((2, 3)), "expected axis -1 of input shape to have "
                                                 "value 4"),
    (ks.InputSpec(shape=(None, 5)), np.ones((2, 3)), r"expected shape=\(None, 5\)"),
    (ks.InputSpec(dtype="int32"), np.ones((2, 3), "float32"), "expected dtype=int32, found "
                                                              "dtype=float32"),
])
def test_input_spec_errors_name_the_layer_and_the_rule(spec, x, message):
    layer = _Spec(spec, name="checked")
    with pytest.raises(ValueError, match=message) as info:
        layer(x)
    assert "layer 'checked'" in str(info.value)
    with pytest.raises(ValueError, match=message):
        layer(ks.Input(x.shape[1:], dtype=str(x.dtype)))  # checked on symbolic calls too


def test_input_spec_accepts_matching_inputs_and_lists():
    assert _Spec(ks.InputSpec(shape=(None, 3, 1), allow_last_axis_squeeze=True))(
        np.ones((2, 3))).shape == (2, 3)
    specs = [ks.InputSpec(ndim=2), ks.InputSpec(ndim=1)]
    with pytest.raises(ValueError, match="expects 2 input"):
        _Spec(specs)([np.ones((2, 2))])
    with pytest.raises(TypeError, match="must be InputSpec objects"):
        _Spec("ndim=2")
    with pytest.raises(TypeError, match="integer keys"):
        ks.InputSpec(axes={"a": 1})
    with pytest.raises(ValueError, match="greater than the largest axis allowed"):
        ks.InputSpec(ndim=2, axes={3: 1})
    assert repr(ks.layers.InputSpec(ndim=2, axes={-1: 3})) == "InputSpec(ndim=2, axes={-1: 3})"


# -- Variable with Keras's arguments ---------------------------------------------------


def test_variable_takes_keras_arguments():
    v = ks.Variable(initializer="ones", shape=(2, 3), dtype="float64", name="v",
                    aggregation="mean", synchronization="on_read")
    assert v.shape == (2, 3) and v.dtype == np.float64
    assert (v.aggregation, v.synchronization, v.autocast, v.path) == (
        "mean", "on_read", True, "v")
    assert ks.Variable("zeros", (4,)).shape == (4,)  # Keras's positional order
    assert ks.Variable(ks.initializers.Constant(2.0), shape=(2,)).numpy().tolist() == [2, 2]
    assert ks.Variable(initializer=np.ones(3), shape=(3,)).shape == (3,)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"initializer": "ones"}, ValueError, "needs a shape"),
    ({"initial_value": 1.0, "initializer": "ones"}, ValueError, "both initial_value and"),
    ({}, ValueError, "give an initial value"),
    ({"initializer": np.ones(2), "shape": (3,)}, ValueError, r"has shape \(2,\), not the shape"),
    ({"initial_value": 1.0, "aggregation": "max"}, ValueError, "aggregation must be one of"),
    ({"initial_value": 1.0, "synchronization": "x"}, ValueError, "synchronization must be one"),
    ({"initial_value": 1.0, "layout": "batch"}, NotImplementedError, "JAX sharding layout"),
])
def test_variable_argument_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        ks.Variable(**kwargs)
