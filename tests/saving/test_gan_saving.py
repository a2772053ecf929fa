"""A model with two optimizers of its own (a GAN compiled with `d_optimizer` and
`g_optimizer`) saves both optimizers' state in `.keras` files at their attribute paths, as
Keras 3 does, and a reloaded GAN trains on exactly as the original."""

import io
import zipfile

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.utils import unpack_x_y_sample_weight

LATENT = 3


def _sequential(sizes, name):
    return ks.Sequential([ks.Input((sizes[0],))] + [
        ks.layers.Dense(size, activation="relu" if i < len(sizes) - 2 else None)
        for i, size in enumerate(sizes[1:])
    ], name=name)


class _GAN(ks.Model):
    """Two networks, two optimizers, one step that updates each with its own tape."""

    def __init__(self, latent_dim=LATENT, **kwargs):
        super().__init__(**kwargs)
        self.latent_dim = latent_dim
        self.discriminator = _sequential([4, 8, 1], "discriminator")
        self.generator = _sequential([latent_dim, 8, 4], "generator")

    def get_config(self):
        return {**super().get_config(), "latent_dim": self.latent_dim}

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

    def train_step(self, data):
        real, _, _ = unpack_x_y_sample_weight(data)
        batch = real.shape[0]
        noise = ks.random.normal((batch, self.latent_dim))
        with ks.GradientTape() as tape:
            fake = self.generator(noise)
            d_loss = (self.loss_fn(ks.ones((batch, 1)), self.discriminator(real))
                      + self.loss_fn(ks.zeros((batch, 1)), self.discriminator(fake)))
        weights = self.discriminator.trainable_variables
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, weights), weights))
        with ks.GradientTape() as tape:
            g_loss = self.loss_fn(ks.ones((batch, 1)), self.discriminator(self.generator(noise)))
        weights = self.generator.trainable_variables
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, weights), weights))
        return {"d_loss": d_loss, "g_loss": g_loss}


@ks.saving.register_keras_serializable(package="TestGanSaving")
class GAN(_GAN):
    """Restores its compile settings and builds both optimizers, so their state loads."""

    def get_compile_config(self):
        return {name: ks.saving.serialize_keras_object(getattr(self, name))
                for name in ("d_optimizer", "g_optimizer", "loss_fn")}

    def compile_from_config(self, config):
        self.compile(**ks.saving.deserialize_keras_object(config))
        self.d_optimizer.build(self.discriminator.trainable_variables)
        self.g_optimizer.build(self.generator.trainable_variables)


@ks.saving.register_keras_serializable(package="TestGanSaving")
class UnbuiltGAN(GAN):
    def compile_from_config(self, config):
        self.compile(**ks.saving.deserialize_keras_object(config))


def _real(seed=0):
    return np.random.default_rng(seed).normal(1.0, 0.5, (16, 4)).astype(np.float32)


def _trained(cls, epochs=2):
    ks.random.set_seed(1)
    gan = cls()
    gan.compile(ks.optimizers.Adam(1e-2), ks.optimizers.SGD(0.05, momentum=0.9),
                ks.losses.BinaryCrossentropy(from_logits=True))
    gan.fit(_real(), batch_size=8, epochs=epochs, shuffle=False, verbose=0)
    return gan


def _state(optimizer):
    return [v.numpy() for v in optimizer.variables]


def test_both_optimizers_are_saved_at_their_attribute_paths(tmp_path):
    gan = _trained(GAN)
    gan.save(tmp_path / "gan.keras")
    with zipfile.ZipFile(tmp_path / "gan.keras") as archive:
        weights = archive.read("model.weights.h5")
    with h5py.File(io.BytesIO(weights), "r") as h5file:
        d_group, g_group = h5file["d_optimizer/vars"], h5file["g_optimizer/vars"]
        assert d_group.attrs["name"] == "adam" and g_group.attrs["name"] == "sgd"
        assert d_group["0"][()] == 4 and g_group["0"][()] == 4  # iterations: 2 epochs x 2
        # Adam: iterations, learning rate, then m and v of each discriminator variable
        assert len(d_group) == 2 + 2 * len(gan.discriminator.trainable_variables)
        assert len(g_group) == 2 + len(gan.generator.trainable_variables)  # one momentum each
        np.testing.assert_array_equal(
            d_group["2"][()], gan.d_optimizer.get_slot(gan.discriminator.trainable_variables[0],
                                                       "m").numpy())
        assert len(h5file["optimizer/vars"]) == 2  # super().compile()'s unused optimizer


def test_a_reloaded_gan_continues_exactly_as_the_original(tmp_path):
    gan = _trained(GAN)
    gan.save(tmp_path / "gan.keras")
    loaded = ks.models.load_model(tmp_path / "gan.keras")
    assert type(loaded) is GAN
    for name in ("d_optimizer", "g_optimizer"):
        for got, want in zip(_state(getattr(loaded, name)), _state(getattr(gan, name))):
            np.testing.assert_array_equal(got, want)
    for model in (gan, loaded):
        ks.random.set_seed(7)
        model.fit(_real(1), batch_size=8, epochs=2, shuffle=False, verbose=0)
    for got, want in zip(loaded.get_weights(), gan.get_weights()):
        np.testing.assert_array_equal(got, want)
    assert int(loaded.d_optimizer.iterations) == int(gan.d_optimizer.iterations) == 8


def test_an_optimizer_not_built_at_load_is_skipped_with_a_warning_saying_what_to_do(tmp_path):
    gan = _trained(UnbuiltGAN, epochs=1)
    gan.save(tmp_path / "gan.keras")
    with pytest.warns(UserWarning, match=r"the state of optimizer 'adam' \(Adam, at "
                                         r"'d_optimizer'\) was not loaded: the file holds 10 "
                                         r"variables .* optimizer.build\("):
        loaded = ks.models.load_model(tmp_path / "gan.keras")
    assert int(loaded.d_optimizer.iterations) == 0  # nothing half-loaded
    weights = ks.saving.load_model(tmp_path / "gan.keras", compile=False).get_weights()
    for got, want in zip(weights, gan.get_weights()):  # uncompiled: optimizer groups ignored
        np.testing.assert_array_equal(got, want)


def test_weights_files_carry_both_optimizers_too(tmp_path):
    gan = _trained(GAN)
    gan.save_weights(tmp_path / "gan.weights.h5")
    other = GAN()
    other.compile_from_config(gan.get_compile_config())
    other.load_weights(tmp_path / "gan.weights.h5")
    assert int(other.g_optimizer.iterations) == 4
    for got, want in zip(_state(other.g_optimizer), _state(gan.g_optimizer)):
        np.testing.assert_array_equal(got, want)


def _keras_gan_class(keras, tf, build_optimizers: bool):
    """The same GAN in Keras, registered under the same name."""

    @keras.saving.register_keras_serializable(package="TestGanSaving", name="GAN")
    class KerasGAN(keras.Model):
        def __init__(self, latent_dim=LATENT, **kwargs):
            super().__init__(**kwargs)
            self.latent_dim = latent_dim
            self.discriminator = keras.Sequential([
                keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                keras.layers.Dense(1)], name="discriminator")
            self.generator = keras.Sequential([
                keras.Input((latent_dim,)), keras.layers.Dense(8, activation="relu"),
                keras.layers.Dense(4)], name="generator")

        def get_config(self):
            return {**super().get_config(), "latent_dim": self.latent_dim}

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

        def get_compile_config(self):
            return {name: keras.saving.serialize_keras_object(getattr(self, name))
                    for name in ("d_optimizer", "g_optimizer", "loss_fn")}

        def compile_from_config(self, config):
            self.compile(**keras.saving.deserialize_keras_object(config))
            if build_optimizers:
                self.d_optimizer.build(self.discriminator.trainable_variables)
                self.g_optimizer.build(self.generator.trainable_variables)

        def train_step(self, data):
            batch = tf.shape(data)[0]
            noise = keras.random.normal((batch, self.latent_dim))
            ones, zeros = tf.ones((batch, 1)), tf.zeros((batch, 1))
            with tf.GradientTape() as tape:
                d_loss = (self.loss_fn(ones, self.discriminator(data))
                          + self.loss_fn(zeros, self.discriminator(self.generator(noise))))
            weights = self.discriminator.trainable_weights
            self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, weights), weights))
            with tf.GradientTape() as tape:
                g_loss = self.loss_fn(ones, self.discriminator(self.generator(noise)))
            weights = self.generator.trainable_weights
            self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, weights), weights))
            return {"d_loss": d_loss, "g_loss": g_loss}

    return KerasGAN


def test_a_gan_saved_by_keras_loads_both_optimizers_here(tmp_path):
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    KerasGAN = _keras_gan_class(keras, tf, build_optimizers=False)
    theirs = KerasGAN()
    theirs.compile(keras.optimizers.Adam(1e-2), keras.optimizers.SGD(0.05, momentum=0.9),
                   keras.losses.BinaryCrossentropy(from_logits=True))
    theirs.fit(_real(), batch_size=8, epochs=1, shuffle=False, verbose=0)
    theirs.save(tmp_path / "keras_gan.keras")
    ours = ks.models.load_model(tmp_path / "keras_gan.keras")
    assert type(ours) is GAN
    for name in ("d_optimizer", "g_optimizer"):
        want = [np.asarray(v) for v in getattr(theirs, name).variables]
        got = _state(getattr(ours, name))
        assert len(got) == len(want)
        for mine, keras_value in zip(got, want):
            np.testing.assert_allclose(mine, keras_value, rtol=1e-6)
    noise = np.random.default_rng(3).normal(size=(5, LATENT)).astype(np.float32)
    np.testing.assert_allclose(ours.generator.predict(noise),
                               theirs.generator.predict(noise, verbose=0), atol=1e-6)


def test_a_file_saved_before_the_first_step_leaves_a_started_optimizer_as_it_is(tmp_path):
    fresh = ks.Sequential([ks.Input((4,)), ks.layers.Dense(1)])
    fresh.compile(ks.optimizers.Adam(), "mse")
    fresh.save_weights(tmp_path / "fresh.weights.h5")  # Keras's layout: iterations, rate
    with h5py.File(tmp_path / "fresh.weights.h5", "r") as h5file:
        assert len(h5file["optimizer/vars"]) == 2
    trained = ks.Sequential([ks.Input((4,)), ks.layers.Dense(1)])
    trained.compile(ks.optimizers.Adam(), "mse")
    trained.fit(_real(), np.ones((16, 1), np.float32), batch_size=8, verbose=0)
    with pytest.warns(UserWarning, match=r"optimizer 'adam' \(Adam, at 'optimizer'\) was not "
                                         r"loaded: the file holds only its 2 step"):
        trained.load_weights(tmp_path / "fresh.weights.h5")
    assert int(trained.optimizer.iterations) == 2
    np.testing.assert_array_equal(trained.get_weights()[0], fresh.get_weights()[0])


def test_a_gan_saved_here_loads_both_optimizers_in_keras(tmp_path):
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    _keras_gan_class(keras, tf, build_optimizers=True)
    ours = _trained(GAN)
    ours.save(tmp_path / "ours.keras")
    theirs = keras.models.load_model(tmp_path / "ours.keras")
    for name in ("d_optimizer", "g_optimizer"):
        want = _state(getattr(ours, name))
        got = [np.asarray(v) for v in getattr(theirs, name).variables]
        assert len(got) == len(want)
        for keras_value, mine in zip(got, want):
            np.testing.assert_allclose(keras_value, mine, rtol=1e-6)
    noise = np.random.default_rng(4).normal(size=(5, LATENT)).astype(np.float32)
    np.testing.assert_allclose(theirs.generator.predict(noise, verbose=0),
                               ours.generator.predict(noise), atol=1e-6)
