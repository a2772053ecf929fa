"""The GAN of keras-io's "Customizing what happens in fit()", run on kerasish with
`import kerasish as keras`.

A convolutional generator and discriminator trained against each other on
Fashion-MNIST. The `GAN` model overrides `compile(d_optimizer, g_optimizer,
loss_fn)` (calling `super().compile()`) and `train_step(self, data)`, updating
each network with its own `keras.GradientTape` and optimizer; `fit` runs it and
logs the two losses from the trackers of its `metrics` property.

With `--save`, the GAN is written to a `.keras` file, both optimizers' state
included (they are attributes of the model, saved at `d_optimizer/` and
`g_optimizer/` as Keras 3 saves them), and `--resume` loads such a file and trains
on from where it stopped: the GAN's `get_compile_config`/`compile_from_config`
rebuild its compile settings and build both optimizers so their state loads.

Usage (from the repository root):

    python examples/keras_io/gan.py --epochs 20                  # keras-io's sizes
    python examples/keras_io/gan.py --quick --save gan.keras     # 512 images, narrow nets
    python examples/keras_io/gan.py --quick --resume gan.keras
"""

from __future__ import annotations

import argparse

import numpy as np

import kerasish as keras
from kerasish import layers, ops


def build_discriminator(width: int) -> keras.Model:
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(width, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(2 * width, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.GlobalMaxPooling2D(),
        layers.Dense(1),
    ], name="discriminator")


def build_generator(latent_dim: int, width: int) -> keras.Model:
    return keras.Sequential([
        keras.Input(shape=(latent_dim,)),
        layers.Dense(7 * 7 * width),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Reshape((7, 7, width)),
        layers.Conv2DTranspose(width, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2DTranspose(width, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
    ], name="generator")


@keras.saving.register_keras_serializable(package="keras_io_examples")
class GAN(keras.Model):
    def __init__(self, latent_dim=128, width=64, **kwargs):
        super().__init__(**kwargs)
        self.latent_dim, self.width = latent_dim, width
        self.discriminator = build_discriminator(width)
        self.generator = build_generator(latent_dim, width)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def get_config(self):
        return {**super().get_config(), "latent_dim": self.latent_dim, "width": self.width}

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    def get_compile_config(self):
        return {name: keras.saving.serialize_keras_object(getattr(self, name))
                for name in ("d_optimizer", "g_optimizer", "loss_fn")}

    def compile_from_config(self, config):
        self.compile(**keras.saving.deserialize_keras_object(config))
        self.d_optimizer.build(self.discriminator.trainable_variables)
        self.g_optimizer.build(self.generator.trainable_variables)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def train_step(self, real_images):
        batch_size = ops.shape(real_images)[0]
        # Train the discriminator on generated (label 1) and real (label 0) images, with
        # a little noise on the labels.
        latent = keras.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        combined = ops.concatenate([self.generator(latent), real_images], axis=0)
        labels = ops.concatenate([ops.ones((batch_size, 1)), ops.zeros((batch_size, 1))], 0)
        labels += 0.05 * keras.random.uniform(ops.shape(labels), seed=self.seed_generator)
        with keras.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        weights = self.discriminator.trainable_weights
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, weights), weights))

        # Train the generator to make the discriminator say "real" (label 0).
        latent = keras.random.normal((batch_size, self.latent_dim), seed=self.seed_generator)
        with keras.GradientTape() as tape:
            predictions = self.discriminator(self.generator(latent))
            g_loss = self.loss_fn(ops.zeros((batch_size, 1)), predictions)
        weights = self.generator.trainable_weights
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, weights), weights))

        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--latent-dim", type=int, default=128)
    parser.add_argument("--width", type=int, default=64, help="filters of the first conv layer")
    parser.add_argument("--data-dir", default=None,
                        help="a folder with the four Fashion-MNIST IDX files")
    parser.add_argument("--quick", action="store_true",
                        help="512 images, 1 epoch, latent size 16, width 8")
    parser.add_argument("--save", default=None, help="write the GAN to this .keras file")
    parser.add_argument("--resume", default=None, help="load a GAN saved with --save first")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    if args.quick:
        args.epochs, args.latent_dim, args.width = 1, 16, 8

    (x_train, _), (x_test, _) = keras.datasets.fashion_mnist.load_data(args.data_dir)
    images = np.concatenate([x_train, x_test])
    images = np.expand_dims(images, -1).astype("float32") / 255
    if args.quick:
        images = images[:512]
    dataset = keras.data.Dataset.from_tensor_slices(images).shuffle(1024).batch(args.batch_size)

    if args.resume:
        gan = keras.models.load_model(args.resume)
        print(f"resumed from {args.resume}: {int(gan.d_optimizer.iterations)} steps done")
    else:
        gan = GAN(latent_dim=args.latent_dim, width=args.width)
        gan.compile(d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                    g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                    loss_fn=keras.losses.BinaryCrossentropy(from_logits=True))
    gan.discriminator.summary()
    gan.generator.summary()
    history = gan.fit(dataset, epochs=args.epochs, verbose=2)
    if args.save:
        gan.save(args.save)
        print(f"saved to {args.save} (both optimizers' state included)")
    logs = {key: values[-1] for key, values in history.history.items()}
    print(f"gan: {int(gan.d_optimizer.iterations)} steps, d_loss {logs['d_loss']:.4f}, "
          f"g_loss {logs['g_loss']:.4f}")
    return logs


if __name__ == "__main__":
    main()
