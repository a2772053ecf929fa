"""Layers: building, weights, shapes, training step, gradients, errors."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_layer_gradients, layer_test


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


def test_custom_layer_from_the_seeds_builds_on_first_call():
    class MySimpleLayer(ks.layers.Layer):
        def __init__(self, output_units):
            super().__init__()
            self.output_units = output_units

        def build(self, input_shape):
            self.kernel = self.add_variable("kernel", [input_shape[-1], self.output_units])

        def call(self, input):
            return ks.matmul(input, self.kernel)

    layer = MySimpleLayer(3)
    assert not layer.built and layer.variables == []
    out = layer(np.ones((2, 5), np.float32))
    assert layer.built and out.shape == (2, 3)
    assert [v.name for v in layer.variables] == ["my_simple_layer/kernel"]
    assert layer.variables[0].shape == (5, 3)


def test_unique_readable_names():
    names = [ks.layers.Dense(1).name for _ in range(3)]
    assert names == ["dense", "dense_1", "dense_2"]
    assert ks.layers.BatchNormalization().name == "batch_normalization"
    assert ks.layers.Dense(1, name="head").name == "head"


def test_dense_variables_initializers_and_output():
    ks.random.set_seed(0)
    layer = ks.layers.Dense(4, activation="relu", bias_initializer="ones")
    out = layer(ks.ones([2, 3]))
    assert out.shape == (2, 4)
    np.testing.assert_allclose(layer.bias.numpy(), np.ones(4))
    expected = np.maximum(np.ones((2, 3)) @ layer.kernel.numpy() + 1.0, 0)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    limit = np.sqrt(6.0 / (3 + 4))  # glorot uniform
    assert np.all(np.abs(layer.kernel.numpy()) <= limit)


def test_dense_on_a_different_last_dimension_is_a_clear_error():
    layer = ks.layers.Dense(2)
    layer(ks.ones([1, 3]))
    with pytest.raises(ks.InvalidArgumentError, match=r"layer 'dense' \(Dense\): expected inputs "
                       r"with last dimension 3 .*got shape \(1, 5\)"):
        layer(ks.ones([1, 5]))


def test_calling_on_numpy_arrays_lists_and_ints():
    layer = ks.layers.Dense(2)
    assert layer([[1.0, 2.0]]).shape == (1, 2)
    assert layer(np.array([[1, 2]])).dtype == np.float32  # integer input autocast


def test_regularization_losses():
    layer = ks.layers.Dense(2, kernel_regularizer=ks.regularizers.l2(0.5))
    layer(ks.ones([1, 3]))
    (loss,) = layer.losses
    np.testing.assert_allclose(float(loss), 0.5 * np.sum(layer.kernel.numpy() ** 2), rtol=1e-6)


def test_trainable_flag_moves_weights_to_non_trainable():
    layer = ks.layers.Dense(2)
    layer(ks.ones([1, 3]))
    layer.trainable = False
    assert layer.trainable_variables == [] and len(layer.non_trainable_variables) == 2


def test_trainable_reaches_every_nested_layer_and_back_as_in_keras():
    inner = ks.Sequential([ks.layers.Dense(3), ks.Sequential([ks.layers.Dense(2)])])
    outer = ks.Sequential([ks.Input((4,)), inner, ks.layers.Dense(1)])
    inner.trainable = False
    deepest = inner.layers[1].layers[0]
    assert [inner.layers[0].trainable, inner.layers[1].trainable, deepest.trainable] == [
        False, False, False]
    assert outer.layers[1].trainable is True  # only what is inside `inner`
    assert len(outer.trainable_variables) == 2
    inner.trainable = True
    assert inner.layers[0].trainable and deepest.trainable
    assert len(outer.trainable_variables) == 6
    outer.trainable = False
    assert not any(layer.trainable for layer in [*outer.layers, deepest])


def _batch_norm_fit(freeze):
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=(32, 2)).astype("float32")
    bn = ks.layers.BatchNormalization(momentum=0.5)
    base = ks.Sequential([ks.Input((2,)), bn])
    model = ks.Sequential([ks.Input((2,)), base, ks.layers.Dense(1)])
    if freeze is not None:
        freeze(bn, base)
    model.compile("sgd", "mse")
    model.fit(x, np.zeros(32, "float32"), batch_size=8, verbose=0)
    return bn, x


@pytest.mark.parametrize("freeze", [
    lambda bn, base: setattr(bn, "trainable", False),
    lambda bn, base: setattr(base, "trainable", False),
], ids=["the layer", "a model holding it"])
def test_a_frozen_batch_normalization_runs_in_inference_mode_under_fit(freeze):
    bn, x = _batch_norm_fit(freeze)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(bn.moving_variance.numpy(), [1.0, 1.0])
    # and training=True gives the inference output: moving statistics, not the batch's
    expected = x / np.sqrt(1.0 + bn.epsilon)
    np.testing.assert_allclose(bn(x, training=True).numpy(), expected, rtol=1e-6)
    bn.trainable = True
    assert abs(float(ks.reduce_mean(bn(x, training=True)))) < 1e-5


def test_a_trainable_batch_normalization_moves_its_statistics_under_fit():
    bn, _ = _batch_norm_fit(None)
    assert bn.moving_mean.numpy().min() > 1.0


@pytest.mark.parametrize(
    "make, input_shape, output_shape, num_weights",
    [
        (lambda: ks.layers.Dense(5), (4, 3), (4, 5), 2),
        (lambda: ks.layers.Dense(5, use_bias=False), (4, 3), (4, 5), 1),
        (lambda: ks.layers.Conv2D(4, 3), (2, 6, 6, 3), (2, 4, 4, 4), 2),
        (lambda: ks.layers.Conv2D(4, (3, 2), strides=2, padding="same"), (2, 7, 6, 3),
         (2, 4, 3, 4), 2),
        (lambda: ks.layers.MaxPooling2D(), (2, 6, 6, 3), (2, 3, 3, 3), 0),
        (lambda: ks.layers.AveragePooling2D(3, 1, "same"), (2, 5, 5, 2), (2, 5, 5, 2), 0),
        (lambda: ks.layers.Flatten(), (2, 3, 4), (2, 12), 0),
        (lambda: ks.layers.Reshape((4, 3)), (2, 12), (2, 4, 3), 0),
        (lambda: ks.layers.Activation("tanh"), (2, 3), (2, 3), 0),
        (lambda: ks.layers.BatchNormalization(), (8, 3), (8, 3), 4),
        (lambda: ks.layers.Dropout(0.5), (4, 3), (4, 3), 0),
    ],
)
def test_layer_contract(make, input_shape, output_shape, num_weights):
    layer_test(make(), input_shape, output_shape, num_weights)


@pytest.mark.parametrize(
    "make, input_shape",
    [
        (lambda: ks.layers.Dense(3, activation="tanh", dtype="float64"), (4, 5)),
        (lambda: ks.layers.Conv2D(2, 3, padding="same", dtype="float64"), (2, 5, 5, 3)),
        (lambda: ks.layers.Conv2D(2, 2, strides=2, dtype="float64"), (1, 5, 4, 2)),
        (lambda: ks.layers.MaxPooling2D(dtype="float64"), (2, 4, 4, 2)),
        (lambda: ks.layers.AveragePooling2D(dtype="float64"), (2, 4, 4, 2)),
        (lambda: ks.layers.BatchNormalization(dtype="float64"), (6, 3)),
        (lambda: ks.layers.Flatten(dtype="float64"), (2, 3, 2)),
    ],
)
def test_layer_gradients_wrt_inputs_and_weights(make, input_shape):
    layer = make()
    x = np.random.default_rng(1).standard_normal(input_shape)
    check_layer_gradients(layer, x, training=True)


def test_embedding_takes_the_float_ids_of_an_input_and_trains_as_keras_does():
    ids = np.random.default_rng(0).integers(0, 10, (16, 4))
    inputs = ks.Input(shape=(4,))  # float32, as in Keras
    embedded = ks.layers.Embedding(10, 3, name="emb")(inputs)
    model = ks.Model(inputs, ks.layers.Dense(1)(ks.layers.GlobalAveragePooling1D()(embedded)))
    table = model.get_layer("emb").embeddings.numpy().copy()
    np.testing.assert_array_equal(model.get_layer("emb")(ids.astype("float32")).numpy(),
                                  table[ids])
    model.compile(ks.optimizers.SGD(1.0), "mse")
    model.fit(ids.astype("float32"), np.ones(16, "float32"), batch_size=16, verbose=0)
    changed = np.any(model.get_layer("emb").embeddings.numpy() != table, axis=1)
    np.testing.assert_array_equal(changed, np.isin(np.arange(10), ids))  # the rows it used
    with pytest.raises(ks.InvalidArgumentError, match=r"layer 'emb' \(Embedding\): "
                       r"embedding_lookup: indices must hold integers, but it is float32 with "
                       r"the non-integral value indices\[0, 1\] = 2.5"):
        model.predict(np.array([[1.0, 2.5, 3.0, 4.0]], "float32"))


def test_one_hot_takes_float_ids_holding_whole_numbers():
    expected = ks.ops.one_hot(np.array([[0, 2], [1, 1]]), 3).numpy()
    np.testing.assert_array_equal(ks.ops.one_hot(np.array([[0.0, 2.0], [1.0, 1.0]]), 3).numpy(),
                                  expected)
    np.testing.assert_array_equal(ks.one_hot(np.array([True, False]), 2).numpy(),
                                  [[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"one_hot: indices must hold integers, but it is float64 with the "
                       r"non-integral value indices\[1\] = nan"):
        ks.ops.one_hot(np.array([1.0, np.nan]), 3)
    with pytest.raises(ks.InvalidArgumentError, match=r"one_hot: indices must hold integers, got "
                       r"dtype complex"):
        ks.ops.one_hot(np.array([1j]), 3)


def test_embedding_gradient_is_sparse_and_range_error_names_the_layer():
    layer = ks.layers.Embedding(128, 4)
    ids = ks.constant([[1, 2, 2]])
    with ks.GradientTape() as tape:
        out = layer(ids)
    assert out.shape == (1, 3, 4)
    grad = tape.gradient(out, layer.embeddings)
    assert isinstance(grad, ks.IndexedSlices) and grad.values.shape == (3, 4)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"layer 'embedding' \(Embedding\): embedding_lookup: indices\[0, 1\] "
                             r"= 3081 is not in \[0, 128\)"):
        layer(ks.constant([[1, 3081]]))


def test_dropout_only_in_training():
    layer = ks.layers.Dropout(0.5)
    x = ks.ones([1000])
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    assert 0.4 < np.mean(dropped == 0) < 0.6


def test_dropout_inside_a_tape_without_training_warns_once():
    import kerasish.layers.base as base

    base._warned_inference_in_tape.discard("Dropout")
    layer = ks.layers.Dropout(0.5)
    with ks.GradientTape():
        with pytest.warns(UserWarning, match="without `training`"):
            layer(ks.ones([3]))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ks.GradientTape():
            layer(ks.ones([3]))


def test_batch_normalization_training_and_inference():
    layer = ks.layers.BatchNormalization(momentum=0.5, epsilon=0.0)
    x = np.array([[1.0, 10.0], [3.0, 30.0]], np.float32)
    out = layer(x, training=True).numpy()
    np.testing.assert_allclose(out, [[-1, -1], [1, 1]], atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), [1.0, 10.0], rtol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), [1.0, 50.5], rtol=1e-6)
    inference = layer(x, training=False).numpy()
    expected = (x - layer.moving_mean.numpy()) / np.sqrt(layer.moving_variance.numpy())
    np.testing.assert_allclose(inference, expected, rtol=1e-5)
    assert all(not v.trainable for v in layer.non_trainable_variables)
