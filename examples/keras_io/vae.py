"""keras-io's "Variational AutoEncoder" example, run on kerasish with `import kerasish as keras`.

A convolutional VAE with a two-dimensional latent space, trained on Fashion-MNIST.
The encoder and decoder are functional models (`keras.Input`, `keras.Model`); a
`Sampling` layer draws z = mean + exp(log_var / 2) * epsilon with a
`keras.random.SeedGenerator`; the `VAE` model overrides `train_step(self, data)`
with a `keras.GradientTape`, and reports its three losses through `Mean` trackers
listed by its `metrics` property (so `fit` resets them every epoch).

At the end it prints where each class sits in the latent space (the mean of z_mean
over the test images of that class): similar clothes land close together, though
the model never saw a label.

Usage (from the repository root):

    python examples/keras_io/vae.py                  # 30 epochs on the 70,000 images
    python examples/keras_io/vae.py --quick          # 1,000 images, 1 epoch
"""

from __future__ import annotations

import argparse

import numpy as np

import kerasish as keras
from kerasish import layers, ops


class Sampling(layers.Layer):
    """Draws z from the Gaussian whose mean and log-variance the encoder gives."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = keras.random.normal(ops.shape(z_mean), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


def build_encoder(latent_dim: int) -> keras.Model:
    inputs = keras.Input(shape=(28, 28, 1))
    x = layers.Conv2D(32, 3, activation="relu", strides=2, padding="same")(inputs)
    x = layers.Conv2D(64, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Dense(16, activation="relu")(layers.Flatten()(x))
    z_mean = layers.Dense(latent_dim, name="z_mean")(x)
    z_log_var = layers.Dense(latent_dim, name="z_log_var")(x)
    z = Sampling()([z_mean, z_log_var])
    return keras.Model(inputs, [z_mean, z_log_var, z], name="encoder")


def build_decoder(latent_dim: int) -> keras.Model:
    latent_inputs = keras.Input(shape=(latent_dim,))
    x = layers.Dense(7 * 7 * 64, activation="relu")(latent_inputs)
    x = layers.Reshape((7, 7, 64))(x)
    x = layers.Conv2DTranspose(64, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu", strides=2, padding="same")(x)
    outputs = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(x)
    return keras.Model(latent_inputs, outputs, name="decoder")


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
        return [self.total_loss_tracker, self.reconstruction_loss_tracker,
                self.kl_loss_tracker]

    def train_step(self, data):
        with keras.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = ops.mean(ops.sum(
                keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)))
            kl_loss = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
            kl_loss = ops.mean(ops.sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {"loss": self.total_loss_tracker.result(),
                "reconstruction_loss": self.reconstruction_loss_tracker.result(),
                "kl_loss": self.kl_loss_tracker.result()}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--latent-dim", type=int, default=2)
    parser.add_argument("--data-dir", default=None,
                        help="a folder with the four Fashion-MNIST IDX files")
    parser.add_argument("--quick", action="store_true", help="1,000 images, 1 epoch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)

    (x_train, _), (x_test, y_test) = keras.datasets.fashion_mnist.load_data(args.data_dir)
    images = np.concatenate([x_train, x_test], axis=0)
    images = np.expand_dims(images, -1).astype("float32") / 255
    epochs = args.epochs
    if args.quick:
        images, x_test, y_test, epochs = images[:1000], x_test[:500], y_test[:500], 1

    encoder, decoder = build_encoder(args.latent_dim), build_decoder(args.latent_dim)
    encoder.summary()
    decoder.summary()
    vae = VAE(encoder, decoder)
    vae.compile(optimizer=keras.optimizers.Adam())
    history = vae.fit(images, epochs=epochs, batch_size=args.batch_size, verbose=2)

    z_mean, _, _ = encoder.predict(np.expand_dims(x_test, -1).astype("float32") / 255)
    names = keras.datasets.fashion_mnist.CLASS_NAMES
    print("latent means by class (never seen in training):")
    for label, name in enumerate(names):
        if np.any(y_test == label):
            print(f"  {name:<12} {np.round(z_mean[y_test == label].mean(axis=0), 2)}")
    logs = {key: values[-1] for key, values in history.history.items()}
    print(f"vae: loss {logs['loss']:.2f} (reconstruction {logs['reconstruction_loss']:.2f}, "
          f"kl {logs['kl_loss']:.2f})")
    return logs


if __name__ == "__main__":
    main()
