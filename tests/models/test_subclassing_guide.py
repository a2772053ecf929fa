"""The patterns of keras-io's "Making new layers and models via subclassing" guide, written as a
Keras 3 user writes them (`import kerasish as keras`, `from kerasish import layers, ops`): our
own programs on small synthetic data.

Weights made with `add_weight` in `__init__` and in `build`, trainable and non-trainable
weights, layers nested in layers, `add_loss` (reset at each outermost call, and regularizers
of nested layers), the `training` and `mask` arguments of `call`, `get_config`/`from_config`,
and an end-to-end VAE written with layers, trained with a loop of its own and with `fit`.
"""

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


@pytest.fixture(autouse=True)
def _fresh():
    keras.clear_session()
    keras.utils.set_random_seed(0)


class Affine(layers.Layer):
    """x @ w + b with weights made in `__init__` (the input size is given)."""

    def __init__(self, units=8, input_dim=4, **kwargs):
        super().__init__(**kwargs)
        self.w = self.add_weight(shape=(input_dim, units), initializer="random_normal",
                                 trainable=True)
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


def test_weights_made_in_init_are_tracked_in_order():
    layer = Affine(3, 2)
    out = layer(ops.ones((2, 2)))
    assert out.shape == (2, 3)
    assert layer.weights == [layer.w, layer.b]
    assert layer.trainable_weights == [layer.w, layer.b] and layer.non_trainable_weights == []
    np.testing.assert_allclose(out.numpy()[0], layer.w.numpy().sum(axis=0), rtol=1e-6)


def test_a_non_trainable_weight_accumulates_and_is_not_trained():
    class RunningTotal(layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(initializer="zeros", shape=(input_dim,),
                                         trainable=False)

        def call(self, inputs):
            self.total.assign_add(ops.sum(inputs, axis=0))
            return self.total

    running = RunningTotal(2)
    running(ops.ones((2, 2)))
    np.testing.assert_array_equal(running(ops.ones((2, 2))).numpy(), [4.0, 4.0])
    assert running.weights == [running.total] and running.trainable_weights == []
    assert running.non_trainable_weights == [running.total]


class LazyAffine(layers.Layer):
    """Weights made in `build` once the input size is known; `get_config` for saving."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                 initializer="random_normal", name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_build_defers_weights_to_the_first_call():
    layer = LazyAffine(5)
    assert not layer.built and layer.weights == []
    assert layer(ops.ones((3, 7))).shape == (3, 5)
    assert layer.built and [tuple(w.shape) for w in layer.weights] == [(7, 5), (5,)]
    layer(ops.ones((1, 7)))
    assert len(layer.weights) == 2  # built once
    config = layer.get_config()
    assert config["units"] == 5 and config["name"] == layer.name
    again = LazyAffine.from_config(config)
    assert again.units == 5 and again.name == layer.name and not again.built


def test_nested_layers_are_tracked_recursively():
    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.first = LazyAffine(16)
            self.second = LazyAffine(16)
            self.third = LazyAffine(1)

        def call(self, inputs):
            x = ops.relu(self.first(inputs))
            return self.third(ops.relu(self.second(x)))

    block = Block()
    assert block(ops.ones((3, 32))).shape == (3, 1)
    assert len(block.weights) == 6 and len(block.trainable_weights) == 6


class ActivityPenalty(layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ops.mean(inputs))
        return inputs


def test_add_loss_terms_belong_to_the_latest_outermost_call():
    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.penalty = ActivityPenalty(1.0)
            self.dense = layers.Dense(2, kernel_regularizer=keras.regularizers.l2(1e-3))

        def call(self, inputs):
            return self.dense(self.penalty(inputs))

    outer = Outer()
    assert outer.losses == []  # no call yet
    outer(ops.ones((1, 3)))
    assert len(outer.losses) == 2  # the penalty's term and the kernel's regularization
    outer(2.0 * ops.ones((1, 3)))
    assert len(outer.losses) == 2  # not accumulated over calls
    kernel = outer.dense.kernel.numpy()
    want = sorted([2.0, 1e-3 * float(np.sum(kernel ** 2))])
    np.testing.assert_allclose(sorted(float(t) for t in outer.losses), want, rtol=1e-5)


def test_add_loss_in_a_training_loop_and_with_fit():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    inputs = keras.Input((3,))
    hidden = ActivityPenalty(1e-2)(layers.Dense(8, activation="relu")(inputs))
    model = keras.Model(inputs, layers.Dense(1)(hidden))
    optimizer = keras.optimizers.SGD(learning_rate=0.05)
    loss_fn = keras.losses.MeanSquaredError()
    first = None
    for step in range(30):
        with keras.GradientTape() as tape:
            loss = loss_fn(y, model(x)) + sum(model.losses)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        first = float(loss) if step == 0 else first
    assert float(loss) < first
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert len(history.history["loss"]) == 2


def test_the_training_argument_switches_dropout():
    class NoisyDropout(layers.Layer):
        def __init__(self, rate, **kwargs):
            super().__init__(**kwargs)
            self.rate = rate
            self.seed_generator = keras.random.SeedGenerator(1337)

        def call(self, inputs, training=None):
            if training:
                return keras.random.dropout(inputs, rate=self.rate, seed=self.seed_generator)
            return inputs

    layer = NoisyDropout(0.5)
    x = ops.ones((4, 100))
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) == {0.0, 2.0}
    model = keras.Sequential([keras.Input((100,)), layer])
    np.testing.assert_array_equal(model.predict(x.numpy()), x.numpy())  # predict: inference


def test_the_mask_argument_reaches_call_and_compute_mask_passes_it_on():
    class MaskedMean(layers.Layer):
        def call(self, inputs, mask=None):
            weights = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
            return ops.sum(inputs * weights, axis=1) / ops.sum(weights, axis=1)

    class Doubler(layers.Layer):
        def call(self, inputs):
            return 2.0 * inputs

        def compute_mask(self, inputs, mask=None):
            return mask

    tokens = np.array([[3, 1, 0, 0], [2, 2, 2, 0]])
    embedding = layers.Embedding(5, 2, mask_zero=True)
    pooled = MaskedMean()(Doubler()(embedding(tokens))).numpy()
    table = embedding.embeddings.numpy()
    np.testing.assert_allclose(pooled[0], 2.0 * table[[3, 1]].mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(pooled[1], 2.0 * table[2], rtol=1e-6)


# -- the guide's end-to-end VAE, written with layers -----------------------------------------


class Sampling(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = keras.random.normal(ops.shape(z_mean), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    def __init__(self, latent_dim=2, intermediate_dim=16, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hidden = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        h = self.hidden(inputs)
        z_mean, z_log_var = self.dense_mean(h), self.dense_log_var(h)
        return z_mean, z_log_var, self.sampling((z_mean, z_log_var))


class Decoder(layers.Layer):
    def __init__(self, original_dim, intermediate_dim=16, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hidden = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        return self.dense_output(self.hidden(inputs))


class VariationalAutoEncoder(keras.Model):
    def __init__(self, original_dim, latent_dim=2, name="autoencoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim)
        self.decoder = Decoder(original_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        kl = -0.5 * ops.mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
        self.add_loss(kl)
        return reconstructed


def _digits(n=256, side=5, seed=2):
    """Flattened 5x5 images of one of three bars (vertical, horizontal, diagonal) with noise."""
    rng = np.random.default_rng(seed)
    shapes = [np.eye(side)[:, ::-1], np.zeros((side, side)), np.eye(side)]
    shapes[1][side // 2] = 1.0
    picks = rng.integers(0, 3, n)
    images = np.stack([shapes[k] for k in picks]) * 0.8 + rng.uniform(0, 0.2, (n, side, side))
    return images.reshape(n, side * side).astype(np.float32)


def test_vae_trained_with_its_own_loop():
    x_train = _digits()
    vae = VariationalAutoEncoder(x_train.shape[1])
    optimizer = keras.optimizers.Adam(learning_rate=1e-2)
    mse = keras.losses.MeanSquaredError()
    loss_metric = keras.metrics.Mean()
    dataset = keras.data.Dataset.from_tensor_slices(x_train).shuffle(256).batch(32)
    epoch_losses = []
    for _ in range(5):
        for batch in dataset:
            with keras.GradientTape() as tape:
                reconstructed = vae(batch)
                loss = mse(batch, reconstructed) + sum(vae.losses)
            grads = tape.gradient(loss, vae.trainable_weights)
            optimizer.apply_gradients(zip(grads, vae.trainable_weights))
            loss_metric(loss)
        epoch_losses.append(float(loss_metric.result()))
        loss_metric.reset_state()
    assert epoch_losses[-1] < epoch_losses[0]
    assert len(vae.losses) == 1 and len(vae.trainable_weights) == 10


def test_vae_trained_with_fit_and_saved_as_weights(tmp_path):
    x_train = _digits()
    vae = VariationalAutoEncoder(x_train.shape[1])
    vae.compile(keras.optimizers.Adam(learning_rate=1e-2), loss=keras.losses.MeanSquaredError())
    history = vae.fit(x_train, x_train, epochs=4, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    vae.save_weights(tmp_path / "vae.weights.h5")
    other = VariationalAutoEncoder(x_train.shape[1])
    other(x_train[:1])
    other.load_weights(tmp_path / "vae.weights.h5")
    np.testing.assert_array_equal(other.decoder(np.zeros((1, 2), np.float32)).numpy(),
                                  vae.decoder(np.zeros((1, 2), np.float32)).numpy())


def test_add_weight_takes_keras_3_positional_order_as_well_as_tf_keras_order():
    class Both(layers.Layer):
        def build(self, input_shape):
            self.keras3 = self.add_weight((input_shape[-1], 2), "ones")  # shape, initializer
            self.tf_keras = self.add_weight("tf_keras", (2,), None, "zeros")  # name first
            self.vector = self.add_weight(3)

        def call(self, inputs):
            return ops.matmul(inputs, self.keras3) + self.tf_keras

    layer = Both(name="both")
    np.testing.assert_array_equal(layer(ops.ones((1, 3))).numpy(), [[3.0, 3.0]])
    assert [tuple(w.shape) for w in layer.weights] == [(3, 2), (2,), (3,)]
    assert layer.tf_keras.name == "both/tf_keras"
    with pytest.raises(TypeError, match=r"add_weight got the shape \(2,\) first .* by keyword"):
        layer.add_weight((2,), "zeros", None, "ones")
