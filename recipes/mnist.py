"""MNIST / Fashion-MNIST classification with an MLP or a small CNN.

The default training loop is a plain GradientTape loop (`--fit` uses
`model.fit` instead). Data: MNIST-format IDX files from --data-dir, the
kerasish cache, a download, or Debian's `dataset-fashion-mnist` package.
Each epoch's shuffle is seeded from (--seed, epoch), so a run resumed from a
checkpoint ends exactly where an uninterrupted one would.
"""

from __future__ import annotations

import time

import numpy as np
from tqdm.auto import tqdm

import kerasish as ks
from recipes.common import Session, blas_threads, parser_for


def build_model(kind: str) -> ks.Model:
    """MLP 784-256-256-10 (ReLU), or a CNN conv32-pool-conv64-pool-dense128-dropout-10."""
    if kind == "mlp":
        return ks.Sequential([
            ks.layers.Flatten(),
            ks.layers.Dense(256, activation="relu"),
            ks.layers.Dense(256, activation="relu"),
            ks.layers.Dense(10),
        ], name="mlp")
    if kind == "cnn":
        return ks.Sequential([
            ks.layers.Reshape((28, 28, 1)),
            ks.layers.Conv2D(32, 3, activation="relu"),
            ks.layers.MaxPooling2D(),
            ks.layers.Conv2D(64, 3, activation="relu"),
            ks.layers.MaxPooling2D(),
            ks.layers.Flatten(),
            ks.layers.Dense(128, activation="relu"),
            ks.layers.Dropout(0.3),
            ks.layers.Dense(10),
        ], name="cnn")
    raise ValueError(f"--model must be 'mlp' or 'cnn', got {kind!r}")


def load(dataset: str | None, data_dir: str | None, log):
    """((x_train, y_train), (x_test, y_test), name), images scaled to [0, 1] float32."""
    if dataset is None:
        try:
            splits, name = ks.datasets.mnist.load_data(data_dir), "mnist"
        except (FileNotFoundError, OSError) as exc:
            log(f"MNIST not available ({str(exc).splitlines()[0]}); using Fashion-MNIST")
            splits, name = ks.datasets.fashion_mnist.load_data(data_dir), "fashion_mnist"
    else:
        module = {"mnist": ks.datasets.mnist, "fashion_mnist": ks.datasets.fashion_mnist}[dataset]
        splits, name = module.load_data(data_dir), dataset
    (x_train, y_train), (x_test, y_test) = splits
    scale = np.float32(1.0 / 255.0)
    return ((x_train.astype(np.float32) * scale, y_train.astype(np.int32)),
            (x_test.astype(np.float32) * scale, y_test.astype(np.int32)), name)


def batches(x, y, batch_size: int, seed: int | None):
    """A Dataset over (x, y), shuffled with `seed` if given."""
    data = ks.data.Dataset.from_tensor_slices((x, y))
    if seed is not None:
        data = data.shuffle(len(x), seed=seed)
    return data.batch(batch_size)


def evaluate(model, x, y, batch_size: int = 1000) -> tuple[float, float]:
    loss, accuracy = ks.metrics.Mean(), ks.metrics.SparseCategoricalAccuracy()
    for xb, yb in batches(x, y, batch_size, None):
        logits = model(xb, training=False)
        loss.update_state(ks.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
        accuracy.update_state(yb, logits)
    return float(loss.result()), float(accuracy.result())


def train_with_tape(model, optimizer, session, train, test, args, log) -> dict:
    x, y = train
    steps_per_epoch = -(-len(x) // args.batch_size)
    train_loss, train_accuracy = ks.metrics.Mean(), ks.metrics.SparseCategoricalAccuracy()
    history = {}
    while int(session.step) < args.epochs * steps_per_epoch:
        epoch, done = divmod(int(session.step), steps_per_epoch)
        train_loss.reset_state()
        train_accuracy.reset_state()
        data = batches(x, y, args.batch_size, args.seed * 1000 + epoch).skip(done)
        ks.random.set_seed(args.seed * 1000 + epoch)  # dropout masks, also on resume
        started = time.perf_counter()
        bar = tqdm(data, total=steps_per_epoch, initial=done, desc=f"epoch {epoch + 1}",
                   disable=args.quiet, leave=False, unit="batch")
        for xb, yb in bar:
            with ks.GradientTape() as tape:
                logits = model(xb, training=True)
                loss = ks.reduce_mean(ks.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            train_loss.update_state(loss)
            train_accuracy.update_state(yb, logits)
            session.step.assign_add(1)
            session.check_interrupt()
        bar.close()
        seconds = time.perf_counter() - started
        test_loss, test_accuracy = evaluate(model, *test)
        history = {"loss": float(train_loss.result()), "accuracy": float(train_accuracy.result()),
                   "test_loss": test_loss, "test_accuracy": test_accuracy, "seconds": seconds}
        session.check_finite(history["loss"], "lower --learning-rate")
        _report(epoch, history, log)
        session.save()
    return history


def train_with_fit(model, optimizer, session, train, test, args, log) -> dict:
    x, y = train
    steps_per_epoch = -(-len(x) // args.batch_size)
    initial_epoch = int(session.step) // steps_per_epoch
    model.compile(optimizer, ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  ["accuracy"])
    history = {}

    class Report(ks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            session.check_interrupt()  # leaves fit; resume starts from the last epoch's save

        def on_epoch_begin(self, epoch, logs=None):
            ks.random.set_seed(args.seed * 1000 + epoch)
            self.started = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            seconds = time.perf_counter() - self.started
            test_loss, test_accuracy = evaluate(model, *test)
            history.update(loss=logs["loss"], accuracy=logs["accuracy"], test_loss=test_loss,
                           test_accuracy=test_accuracy, seconds=seconds)
            session.step.assign((epoch + 1) * steps_per_epoch)
            _report(epoch, history, log)
            session.save()

    model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs, initial_epoch=initial_epoch,
              shuffle=True, verbose=0 if args.quiet else 1, callbacks=[Report()])
    return history


def learning_rate(args, num_train: int):
    """A float, or a cosine decay over every step of the run (it reads the optimizer's step
    counter, which the checkpoint holds, so a resumed run continues the same curve)."""
    if args.schedule == "constant":
        return args.learning_rate
    steps = (args.decay_epochs or args.epochs) * -(-num_train // args.batch_size)
    return ks.optimizers.schedules.CosineDecay(args.learning_rate, decay_steps=max(steps, 1))


def _report(epoch: int, history: dict, log) -> None:
    for name in ("loss", "accuracy", "test_loss", "test_accuracy"):
        ks.summary.scalar(f"epoch_{name}", history[name], step=epoch + 1)
    log(f"epoch {epoch + 1}: loss {history['loss']:.4f}, accuracy {history['accuracy']:.4f}, "
        f"test loss {history['test_loss']:.4f}, test accuracy {history['test_accuracy']:.4f} "
        f"({history['seconds']:.1f} s)")


def main(argv=None) -> dict:
    parser = parser_for("mnist", __doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "cnn"), default="mlp")
    parser.add_argument("--dataset", choices=("mnist", "fashion_mnist"), default=None,
                        help="default: MNIST if found or downloadable, else Fashion-MNIST")
    parser.add_argument("--data-dir", default=None, help="a directory holding the 4 IDX files")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=2e-3,
                        help="Adam's step size (the peak, with --schedule cosine)")
    parser.add_argument("--schedule", choices=("cosine", "constant"), default="cosine",
                        help="learning-rate schedule: cosine decay to 0 over --decay-epochs, "
                        "or constant")
    parser.add_argument("--decay-epochs", type=int, default=None,
                        help="length of the cosine decay in epochs (default: --epochs); fix it "
                        "when a resumed run is given more --epochs than the first one, so that "
                        "the schedule stays the same")
    parser.add_argument("--limit", type=int, default=None,
                        help="train on the first N examples (and test on N/6) for quick runs")
    parser.add_argument("--fit", action="store_true", help="train with model.fit")
    parser.add_argument("--blas-threads", type=int, default=0,
                        help="BLAS threads (needs threadpoolctl; 0: leave as is). On a small "
                        "or busy machine 1 can be several times faster")
    args = parser.parse_args(argv)
    log = print
    train, test, name = load(args.dataset, args.data_dir, log)
    if args.limit:
        train = (train[0][: args.limit], train[1][: args.limit])
        test = (test[0][: max(1, args.limit // 6)], test[1][: max(1, args.limit // 6)])
    log(f"dataset: {name} ({len(train[0])} train, {len(test[0])} test images); "
        f"model: {args.model}; loop: {'fit' if args.fit else 'GradientTape'}")
    with blas_threads(args.blas_threads), ks.device(args.device):
        ks.random.set_seed(args.seed)
        model = build_model(args.model)
        model.build((None, 28, 28))
        optimizer = ks.optimizers.Adam(learning_rate(args, len(train[0])))
        session = Session("mnist", args, model=model, optimizer=optimizer)
        if session.resumed_from:
            log(f"resumed from {session.resumed_from} at step {int(session.step)}")
        with session.saving_on_interrupt(save=not args.fit):
            loop = train_with_fit if args.fit else train_with_tape
            history = loop(model, optimizer, session, train, test, args, log)
    if not history:
        history = dict(zip(("test_loss", "test_accuracy"), evaluate(model, *test)))
    print(f"mnist: {name} {args.model}, {args.epochs} epochs: test accuracy "
          f"{history['test_accuracy']:.4f}, test loss {history['test_loss']:.4f} "
          f"(logs: {session.logdir})")
    return history


if __name__ == "__main__":
    main()
