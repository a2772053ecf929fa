"""Small ports of keras-io programs, written as a Keras 3 user would: `import kerasish as keras`.

A two-optimizer GAN ("Customizing what happens in fit()"), a VAE (custom train_step with
loss trackers, and the add_loss form), "Writing a training loop from scratch" and
mnist_convnet; a few steps each on small random data.
"""

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


@pytest.fixture(autouse=True)
def _fresh():
    keras.clear_session()
    keras.utils.set_random_seed(0)


# -- a GAN: compile(d_optimizer, g_optimizer, loss_fn) and a two-tape train_step --------------


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.seed_generator = keras.random.SeedGenerator(1337)

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn
        self.d_loss_metric = keras.metrics.Mean(name="d_loss")
        self.g_loss_metric = keras.metrics.Mean(name="g_loss")

    @property
    def metrics(self):
        return [self.d_loss_metric, self.g_loss_metric]

    def train_step(self, real_images):
        batch_size = ops.shape(real_images)[0]
        latent = keras.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        generated = self.generator(latent)
        combined = ops.concatenate([generated, real_images], axis=0)
        labels = ops.concatenate([ops.ones((batch_size, 1)), ops.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * keras.random.uniform(ops.shape(labels), seed=self.seed_generator)
        with keras.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        weights = self.discriminator.trainable_weights
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, weights), weights))

        latent = keras.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        misleading_labels = ops.zeros((batch_size, 1))
        with keras.GradientTape() as tape:
            g_loss = self.loss_fn(misleading_labels, self.discriminator(self.generator(latent)))
        weights = self.generator.trainable_weights
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, weights), weights))

        self.d_loss_metric.update_state(d_loss)
        self.g_loss_metric.update_state(g_loss)
        return {"d_loss": self.d_loss_metric.result(), "g_loss": self.g_loss_metric.result()}


def test_gan_with_two_optimizers_trains_with_fit():
    latent_dim = 4
    discriminator = keras.Sequential(
        [layers.Dense(16, activation="relu"), layers.Dense(1)], name="discriminator")
    generator = keras.Sequential(
        [layers.Dense(16, activation="relu"), layers.Dense(8, activation="tanh")],
        name="generator")
    discriminator.build((None, 8))
    generator.build((None, latent_dim))
    gan = GAN(discriminator, generator, latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(learning_rate=0.001),
        g_optimizer=keras.optimizers.Adam(learning_rate=0.001),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    real = np.random.default_rng(0).uniform(-1, 1, (64, 8)).astype(np.float32)
    dataset = keras.data.Dataset.from_tensor_slices(real).shuffle(64).batch(16)
    before_d = discriminator.get_weights()[0].copy()
    before_g = generator.get_weights()[0].copy()
    history = gan.fit(dataset, epochs=2, verbose=0)
    assert set(history.history) == {"d_loss", "g_loss"}
    assert all(np.isfinite(v) for v in history.history["d_loss"] + history.history["g_loss"])
    assert int(gan.d_optimizer.iterations.numpy()) == 8
    assert int(gan.g_optimizer.iterations.numpy()) == 8
    assert not np.allclose(discriminator.get_weights()[0], before_d)
    assert not np.allclose(generator.get_weights()[0], before_g)
    # the metrics property was reset each epoch: the last epoch averaged its own 4 steps
    assert float(gan.d_loss_metric.count) == 4


# -- a VAE: sampling with a SeedGenerator, loss trackers as the metrics property --------------


class Sampling(layers.Layer):
    """z = mean + exp(log_var / 2) * epsilon."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch, dim = ops.shape(z_mean)
        epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class Encoder(keras.Model):
    def __init__(self, latent_dim=2):
        super().__init__(name="encoder")
        self.flatten = layers.Flatten()
        self.hidden = layers.Dense(16, activation="relu")
        self.z_mean = layers.Dense(latent_dim, name="z_mean")
        self.z_log_var = layers.Dense(latent_dim, name="z_log_var")
        self.sampling = Sampling()

    def call(self, inputs):
        h = self.hidden(self.flatten(inputs))
        z_mean, z_log_var = self.z_mean(h), self.z_log_var(h)
        return z_mean, z_log_var, self.sampling([z_mean, z_log_var])


def _decoder():
    return keras.Sequential([layers.Dense(16, activation="relu"),
                             layers.Dense(16, activation="sigmoid")], name="decoder")


def _kl(z_mean, z_log_var):
    kl = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
    return ops.mean(ops.sum(kl, axis=1))


class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        with keras.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = ops.reshape(self.decoder(z), ops.shape(data))
            reconstruction_loss = ops.mean(ops.sum(
                keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)))
            kl_loss = _kl(z_mean, z_log_var)
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {"loss": self.total_loss_tracker.result(),
                "reconstruction_loss": self.reconstruction_loss_tracker.result(),
                "kl_loss": self.kl_loss_tracker.result()}


def _images(n=96):
    rng = np.random.default_rng(1)
    return (rng.uniform(size=(n, 4, 4, 1)) > 0.5).astype(np.float32)


def test_vae_with_loss_trackers_trains_with_fit():
    vae = VAE(Encoder(), _decoder())
    vae.compile(optimizer=keras.optimizers.Adam(0.01))
    history = vae.fit(_images(), epochs=4, batch_size=32, verbose=0)
    logs = history.history
    assert set(logs) == {"loss", "reconstruction_loss", "kl_loss"}
    assert logs["loss"][-1] < logs["loss"][0]
    assert float(vae.total_loss_tracker.count) == 3  # reset every epoch
    for total, rec, kl in zip(logs["loss"], logs["reconstruction_loss"], logs["kl_loss"]):
        assert total == pytest.approx(rec + kl, rel=1e-5)


def test_vae_written_with_add_loss_trains_without_a_compiled_loss():
    class AddLossVAE(keras.Model):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()
            self.decoder = _decoder()

        def call(self, inputs):
            z_mean, z_log_var, z = self.encoder(inputs)
            reconstruction = ops.reshape(self.decoder(z), ops.shape(inputs))
            self.add_loss(_kl(z_mean, z_log_var))
            self.add_loss(ops.mean(ops.sum(
                keras.losses.binary_crossentropy(inputs, reconstruction), axis=(1, 2))))
            return reconstruction

    vae = AddLossVAE()
    vae.compile(optimizer=keras.optimizers.Adam(0.01))
    images = _images()
    history = vae.fit(images, epochs=4, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    vae(images[:5])
    assert len(vae.losses) == 2  # this call's terms only
    assert vae.predict(images, batch_size=40).shape == images.shape


# -- "Writing a training loop from scratch" -------------------------------------------------


def test_training_loop_from_scratch_with_metrics_and_losses():
    class ActivityRegularization(layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-3 * ops.sum(inputs))
            return inputs

    rng = np.random.default_rng(2)
    x = rng.standard_normal((512, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1).astype(np.int64)
    model = keras.Sequential([layers.Dense(16, activation="relu"), ActivityRegularization(),
                              layers.Dense(3)])
    optimizer = keras.optimizers.Adam(learning_rate=1e-2)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc = keras.metrics.SparseCategoricalAccuracy()
    val_acc = keras.metrics.SparseCategoricalAccuracy()
    train = keras.data.Dataset.from_tensor_slices((x[:448], y[:448])).shuffle(448).batch(32)
    val = keras.data.Dataset.from_tensor_slices((x[448:], y[448:])).batch(32)

    for _ in range(4):
        for x_batch, y_batch in train:
            with keras.GradientTape() as tape:
                logits = model(x_batch, training=True)
                loss_value = loss_fn(y_batch, logits)
                assert len(model.losses) == 1  # only this call's add_loss term
                loss_value += sum(model.losses)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            train_acc.update_state(y_batch, logits)
        train_result = float(train_acc.result())
        train_acc.reset_state()
        for x_batch, y_batch in val:
            val_acc.update_state(y_batch, model(x_batch, training=False))
        val_result = float(val_acc.result())
        val_acc.reset_state()
    assert train_result > 0.8 and val_result > 0.75


def test_customizing_fit_guide_loop_over_self_metrics():
    class CustomModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with keras.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [2.0], [-1.0]], np.float32)
    model = CustomModel()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=3, batch_size=32, verbose=0)
    assert set(history.history) == {"loss", "mae"}
    assert history.history["mae"][-1] < history.history["mae"][0]


# -- mnist_convnet: Sequential from keras.Input, to_categorical, summary, fit/evaluate ---------


def _pattern_images(n, num_classes=4, size=12, seed=0):
    """Small grey images whose class is where a bright 3x3 square sits, plus noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, num_classes, n)
    images = rng.uniform(0.0, 0.3, (n, size, size)).astype(np.float32)
    corners = [(1, 1), (1, size - 4), (size - 4, 1), (size - 4, size - 4)]
    for image, label in zip(images, labels):
        row, col = corners[label]
        image[row:row + 3, col:col + 3] += 0.7
    return images, labels


def test_mnist_convnet_port():
    num_classes, input_shape = 4, (12, 12, 1)
    x_train, y_train = _pattern_images(512)
    x_test, y_test = _pattern_images(64, seed=1)
    x_train, x_test = np.expand_dims(x_train, -1), np.expand_dims(x_test, -1)
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)

    model = keras.Sequential([
        keras.Input(shape=input_shape),
        layers.Conv2D(8, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ])
    lines = []
    model.summary(print_fn=lines.append)
    assert any("conv2d (Conv2D)" in line for line in lines)
    assert any("max_pooling2d (MaxPooling2D)" in line for line in lines)
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=15, validation_split=0.1,
                        verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    score = model.evaluate(x_test, y_test, verbose=0)
    assert score[1] > 0.9 and score[0] < history.history["loss"][0]
