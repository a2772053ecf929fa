"""Model subclassing: tracking, sharing, nesting, Sequential, summary."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.tracking import named_variables


@pytest.fixture(autouse=True)
def _fresh_names():
    ks.clear_session()


class MNISTModel(ks.Model):
    """The seeds' model: dense2 is applied twice and shares its weights."""

    def __init__(self):
        super().__init__()
        self.dense1 = ks.layers.Dense(units=10)
        self.dense2 = ks.layers.Dense(units=10)

    def call(self, input):
        result = self.dense1(input)
        result = self.dense2(result)
        result = self.dense2(result)
        return result


def test_seeds_mnist_model_on_a_blank_batch():
    model = MNISTModel()
    batch = ks.zeros([1, 1, 784])
    assert batch.shape == (1, 1, 784)
    result = model(batch)
    assert result.shape == (1, 1, 10)
    np.testing.assert_array_equal(result.numpy(), np.zeros((1, 1, 10)))
    assert [v.path for v in model.variables] == [  # built in its call: under its name
        "mnist_model/dense/kernel", "mnist_model/dense/bias",
        "mnist_model/dense_1/kernel", "mnist_model/dense_1/bias"
    ]
    assert model.count_params() == 784 * 10 + 10 + 10 * 10 + 10


def test_variable_paths_follow_keras_3():
    """A variable's path holds the names of the layers being built around it, as Keras 3's
    (the lists are Keras 3.15.1's for the same models): a Sequential builds its layers
    under its name, a subclassed model the layers its call builds, a layer its cell or
    sublayers; a functional model's layers are built outside it."""
    ks.backend.clear_session()
    sequential = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2), ks.layers.Dense(1, name="out")])
    assert [v.path for v in sequential.weights] == [
        "sequential/dense/kernel", "sequential/dense/bias", "sequential/out/kernel",
        "sequential/out/bias"]
    inputs = ks.Input((3,))
    functional = ks.Model(inputs, ks.layers.Dense(2, name="d")(inputs), name="func")
    assert [v.path for v in functional.weights] == ["d/kernel", "d/bias"]

    class M(ks.Model):
        def __init__(self):
            super().__init__()
            self.d = ks.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    subclassed = M()
    subclassed(np.ones((1, 3), np.float32))
    assert [v.path for v in subclassed.weights] == ["m/dense_1/kernel", "m/dense_1/bias"]
    layer = ks.layers.Dense(2)
    layer.build((None, 3))
    assert [v.path for v in layer.weights] == ["dense_2/kernel", "dense_2/bias"]
    built = ks.Sequential([ks.layers.Dense(2)])
    built.build((None, 3))
    assert [v.path for v in built.weights] == ["sequential_1/dense_3/kernel",
                                               "sequential_1/dense_3/bias"]
    bidirectional = ks.layers.Bidirectional(ks.layers.LSTM(2))
    bidirectional(np.ones((2, 3, 5), np.float32))
    assert bidirectional.weights[0].path.endswith("/lstm_cell/kernel")
    assert bidirectional.weights[0].path.startswith("bidirectional/")


def test_layers_in_lists_dicts_and_tuples_are_tracked():
    class Tower(ks.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [ks.layers.Dense(3), ks.layers.Dense(3)]
            self.heads = {"a": ks.layers.Dense(1), "b": ks.layers.Dense(2)}
            self.pair = (ks.layers.Dense(3),)
            self.scale = ks.Variable(2.0, name="scale")

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            x = self.pair[0](x) * self.scale
            return self.heads["a"](x), self.heads["b"](x)

    model = Tower()
    model(ks.ones([2, 4]))
    assert len(model.trainable_variables) == 2 * 5 + 1
    paths = [p for p, _ in named_variables(model)]
    assert "blocks/0/kernel" in paths and "heads/b/bias" in paths
    assert "pair/0/kernel" in paths and "scale" in paths
    assert len(model.layers) == 5


def test_nested_models_and_shared_layers_are_counted_once():
    shared = ks.layers.Dense(4)

    class Inner(ks.Model):
        def __init__(self):
            super().__init__()
            self.shared = shared

        def call(self, x):
            return self.shared(x)

    class Outer(ks.Model):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.again = shared

        def call(self, x):
            return self.again(self.inner(x))

    model = Outer()
    model(ks.ones([1, 4]))
    assert len(model.variables) == 2
    assert model.submodules[0].name == "inner"


def test_sequential_with_input_shape_builds_at_once_and_summarizes():
    model = ks.Sequential([
        ks.layers.Dense(10, input_shape=(784,)),  # must declare input shape
        ks.layers.Dense(10),
    ])
    assert model.built
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "dense (Dense)" in text and "(None, 10)" in text and "7,850" in text
    assert "Total params: 7,960" in text


def test_sequential_builds_lazily_and_add_pop():
    model = ks.Sequential()
    model.add(ks.layers.Dense(3))
    model.add(ks.layers.Dense(2))
    assert not model.built
    assert model(ks.ones([4, 5])).shape == (4, 2)
    assert model.pop().name == "dense_1"
    assert model(ks.ones([4, 5])).shape == (4, 3)


def test_summary_on_an_unbuilt_model_says_how_to_build_it():
    model = MNISTModel()
    with pytest.raises(ks.InvalidArgumentError, match="has not been built yet.*model\\(x\\)"):
        model.summary()


def test_model_build_from_shape():
    model = MNISTModel()
    model.build((None, 784))
    assert model.built and model.count_params() == 7960


def test_seeds_model_with_variables_trains_with_a_tape():
    class Model(ks.Model):
        def __init__(self):
            super().__init__()
            self.W = ks.Variable(5.0, name="weight")
            self.B = ks.Variable(10.0, name="bias")

        def call(self, inputs):
            return inputs * self.W + self.B

    ks.random.set_seed(0)
    inputs = ks.random_normal([2000])
    targets = inputs * 3 + 2 + ks.random_normal([2000])
    model = Model()

    def loss(model, inputs, targets):
        return ks.reduce_mean(ks.square(model(inputs) - targets))

    for _ in range(300):
        with ks.GradientTape() as tape:
            value = loss(model, inputs, targets)
        dw, db = tape.gradient(value, [model.W, model.B])
        model.W.assign_sub(dw * 0.01)
        model.B.assign_sub(db * 0.01)
    assert abs(float(model.W) - 3) < 0.1 and abs(float(model.B) - 2) < 0.1
    assert model.variables == [model.W, model.B] or len(model.variables) == 2


def test_training_flag_propagates_to_nested_layers():
    class WithDropout(ks.Model):
        def __init__(self):
            super().__init__()
            self.drop = ks.layers.Dropout(0.5)

        def call(self, x):
            return self.drop(x)

    model = WithDropout()
    x = ks.ones([1000])
    assert np.all(model(x).numpy() == 1)
    assert np.any(model(x, training=True).numpy() == 0)


def test_summary_columns_widen_for_long_names_instead_of_running_together():
    name = "a_really_long_layer_name_that_goes_on_and_on"
    model = ks.Sequential([ks.layers.Dense(3, name=name), ks.layers.Dense(2, name="short")])
    model.build((None, 4))
    lines = []
    model.summary(print_fn=lines.append)
    row = next(line for line in lines if line.startswith(name))
    assert row.split() == [name, "(Dense)", "(None,", "3)", "15"]
    header = next(line for line in lines if line.startswith("Layer (type)"))
    assert header.index("Output Shape") == row.index("(None, 3)")  # the columns line up
    assert len(set(len(line) for line in lines if set(line) <= {"_", "="})) == 1
