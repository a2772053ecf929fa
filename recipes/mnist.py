"""MNIST / Fashion-MNIST classification with an MLP or a small CNN.

The default training loop is a plain GradientTape loop (`--fit` uses
`model.fit` instead); either way the training step is compiled with
ks.function, and --eager runs it op by op. Data: MNIST-format IDX files from --data-dir, the
kerasish cache, a download, or Debian's `dataset-fashion-mnist` package.
The order of each epoch's examples is a function of (--seed, epoch), and the
checkpoint holds the random generator (dropout) and the epoch's running
metrics, so a run resumed from a checkpoint, even one taken mid-epoch, ends
exactly where an uninterrupted one would.

TensorBoard logs: the training loss every --log-every steps and the learning
rate; per epoch the losses and accuracies, weight histograms, and a few test
images with the model's predictions.

Many processes: `mpiexec -n N python -m recipes.mnist` with the same flags trains one
model over N ranks (ks.distribute): each batch of --batch-size examples is split across
them and their gradients averaged, so the run follows the single-process one; the test
set is split for evaluation. Only rank 0 prints, logs and saves; the loop's per-step
TensorBoard loss is rank 0's share of the batch.
"""

from __future__ import annotations

import time

import numpy as np

import kerasish as ks

from .common import (
    Session,
    bars_shown,
    blas_threads,
    check_device,
    compiled_step,
    parser_for,
    progress_bar,
    tensorboard_hint,
)

SAMPLES = 8  # test images shown in TensorBoard with their predictions


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
            reason = "\n".join(f"  {line.strip()}" for line in str(exc).splitlines()
                               if line.strip())
            log(f"MNIST not available, using Fashion-MNIST; the reason:\n{reason}")
            splits, name = ks.datasets.fashion_mnist.load_data(data_dir), "fashion_mnist"
    else:
        module = {"mnist": ks.datasets.mnist, "fashion_mnist": ks.datasets.fashion_mnist}[dataset]
        splits, name = module.load_data(data_dir), dataset
    (x_train, y_train), (x_test, y_test) = splits
    scale = np.float32(1.0 / 255.0)
    return ((x_train.astype(np.float32) * scale, y_train.astype(np.int32)),
            (x_test.astype(np.float32) * scale, y_test.astype(np.int32)), name)


def batches(x, y, batch_size: int, seed: int | None):
    """A Dataset over (x, y), shuffled with `seed` if given (the order depends on it alone)."""
    data = ks.data.Dataset.from_tensor_slices((x, y))
    if seed is not None:
        data = data.shuffle(len(x), seed=seed)
    return data.batch(batch_size)


def epoch_seed(seed: int, epoch: int) -> int:
    """The shuffle seed of one epoch: a function of --seed and the epoch only."""
    return seed * 100_003 + epoch


def evaluate(model, x, y, quiet: bool = True, batch_size: int = 1000) -> tuple[float, float]:
    """Mean loss and accuracy over (x, y); in an MPI job each rank takes its part of it."""
    x, y = ks.distribute.shard_batch(x, y)
    loss, accuracy = ks.metrics.Mean(), ks.metrics.SparseCategoricalAccuracy()
    with progress_bar(-(-len(x) // batch_size), "evaluate", quiet) as bar:
        for xb, yb in batches(x, y, batch_size, None):
            logits = model(xb, training=False)
            loss.update_state(ks.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
            accuracy.update_state(yb, logits)
            bar.update(1)
    ks.distribute.sync(loss)
    ks.distribute.sync(accuracy)
    return float(loss.result()), float(accuracy.result())


def _show(bar, loss: float, accuracy: float) -> None:
    bar.set_postfix(loss=f"{loss:.4f}", accuracy=f"{accuracy:.4f}", refresh=False)


def train_with_tape(model, optimizer, session, metrics, train, test, args, log) -> dict:
    x, y = train
    steps_per_epoch = -(-len(x) // args.batch_size)
    train_loss, train_accuracy = metrics
    history = {}

    def train_step(xb, yb):
        with ks.GradientTape() as tape:
            logits = model(xb, training=True)
            loss = ks.reduce_mean(ks.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss, logits

    train_step = compiled_step(train_step, args.eager)
    while int(session.step) < args.epochs * steps_per_epoch:
        epoch, done = divmod(int(session.step), steps_per_epoch)
        if done == 0:  # a new epoch (resumed mid-epoch, the restored metrics hold its start)
            train_loss.reset_state()
            train_accuracy.reset_state()
        data = batches(x, y, args.batch_size, epoch_seed(args.seed, epoch)).skip(done)
        started = time.perf_counter()
        with progress_bar(steps_per_epoch, f"epoch {epoch + 1}/{args.epochs}", args.quiet,
                          initial=done) as bar:
            for xb, yb in data:
                if len(xb) < ks.distribute.size():
                    continue  # too small to give every rank an example (alone: never)
                examples = len(xb)
                xb, yb = ks.distribute.shard_batch(xb, yb)  # this rank's part (alone: all)
                share = len(xb) / examples  # the ranks' shares of the loss add up to the batch's
                optimizer.gradient_exchange.local_weight = len(xb)
                step = int(session.step)
                logging = step % args.log_every == 0
                if logging:  # the rate this step uses
                    ks.summary.scalar("learning_rate", _current_rate(optimizer), step=step)
                loss, logits = train_step(xb, yb)
                train_loss.update_state(loss, sample_weight=share)
                train_accuracy.update_state(yb, logits)
                if logging:
                    ks.summary.scalar("batch_loss", loss, step=step)
                session.step.assign_add(1)
                if not bar.disable:
                    bar.update(1)
                    _show(bar, float(train_loss.result()), float(train_accuracy.result()))
                session.check_interrupt()
        seconds = time.perf_counter() - started
        ks.distribute.sync(train_loss)  # the figures of all ranks (alone: unchanged)
        ks.distribute.sync(train_accuracy)
        test_loss, test_accuracy = evaluate(model, *test, quiet=args.quiet)
        history = {"loss": float(train_loss.result()), "accuracy": float(train_accuracy.result()),
                   "test_loss": test_loss, "test_accuracy": test_accuracy, "seconds": seconds}
        session.check_finite(history["loss"], "lower --learning-rate")
        _report(epoch, history, model, test, log)
        session.save()
    return history


def train_with_fit(model, optimizer, session, train, test, args, log) -> dict:
    x, y = train
    steps_per_epoch = -(-len(x) // args.batch_size)
    initial_epoch = int(session.step) // steps_per_epoch
    model.compile(optimizer, ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=args.eager)
    history = {}

    class Report(ks.callbacks.Callback):
        """The recipe's own output for fit (fit's is off): the same bar and lines as the loop."""

        bar = None
        wants_batch_logs = bars_shown(args.quiet)  # the bar shows the running loss/accuracy

        def on_epoch_begin(self, epoch, logs=None):
            self.started = time.perf_counter()
            self.bar = progress_bar(steps_per_epoch, f"epoch {epoch + 1}/{args.epochs}",
                                    args.quiet)

        def on_train_batch_end(self, batch, logs=None):
            if logs and not self.bar.disable:
                self.bar.update(1)
                _show(self.bar, logs["loss"], logs["accuracy"])
            session.check_interrupt()  # leaves fit; resume starts from the last epoch's save

        def on_epoch_end(self, epoch, logs=None):
            self.close()
            seconds = time.perf_counter() - self.started
            test_loss, test_accuracy = evaluate(model, *test, quiet=args.quiet)
            history.update(loss=logs["loss"], accuracy=logs["accuracy"], test_loss=test_loss,
                           test_accuracy=test_accuracy, seconds=seconds)
            session.step.assign((epoch + 1) * steps_per_epoch)
            ks.summary.scalar("learning_rate", _current_rate(optimizer), step=int(session.step))
            _report(epoch, history, model, test, log)
            session.save()

        def close(self):
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    report = Report()
    try:
        model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs,
                  initial_epoch=initial_epoch, shuffle=True, verbose=0, callbacks=[report])
    finally:
        report.close()  # Ctrl-C: no half-drawn bar left behind
    return history


def _current_rate(optimizer) -> float:
    """The learning rate the optimizer's next step uses (a schedule's value at its step)."""
    rate = optimizer.learning_rate
    if callable(rate):
        return float(rate(optimizer.iterations))
    return float(rate)


def learning_rate(args, num_train: int):
    """A float, or a cosine decay over every step of the run (it reads the optimizer's step
    counter, which the checkpoint holds, so a resumed run continues the same curve)."""
    if args.schedule == "constant":
        return args.learning_rate
    steps = (args.decay_epochs or args.epochs) * -(-num_train // args.batch_size)
    return ks.optimizers.schedules.CosineDecay(args.learning_rate, decay_steps=max(steps, 1))


def _report(epoch: int, history: dict, model, test, log) -> None:
    """One line per epoch, and the epoch's TensorBoard summaries."""
    step = epoch + 1
    for name in ("loss", "accuracy", "test_loss", "test_accuracy"):
        ks.summary.scalar(f"epoch_{name}", history[name], step=step)
    for variable in model.trainable_variables:
        ks.summary.histogram(f"weights/{variable.name}", variable, step=step)
    _samples(model, test, step)
    log(f"epoch {epoch + 1}: loss {history['loss']:.4f}, accuracy {history['accuracy']:.4f}, "
        f"test loss {history['test_loss']:.4f}, test accuracy {history['test_accuracy']:.4f} "
        f"({history['seconds']:.1f} s)")


def _samples(model, test, step: int) -> None:
    """The first test images as one image summary, and the model's guesses as a text table."""
    images, labels = test[0][:SAMPLES], test[1][:SAMPLES]
    probabilities = ks.nn.softmax(model(images, training=False)).numpy()
    guesses = probabilities.argmax(axis=1)
    ks.summary.image("test_samples", images[..., None], step=step, max_outputs=SAMPLES)
    rows = [f"| {i} | {g} | {probabilities[i, g]:.2f} | {label} |"
            for i, (g, label) in enumerate(zip(guesses, labels))]
    ks.summary.text("test_samples_predictions", "\n".join(
        ["| sample | predicted | probability | true label |", "|---|---|---|---|", *rows]),
        step=step)


def main(argv=None) -> dict:
    parser = parser_for("mnist", __doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "cnn"), default="mlp",
                        help="the network: a multilayer perceptron or a small CNN")
    parser.add_argument("--dataset", choices=("mnist", "fashion_mnist"), default=None,
                        help="default: MNIST if found or downloadable, else Fashion-MNIST")
    parser.add_argument("--data-dir", default=None, help="a directory holding the 4 IDX files")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the training set")
    parser.add_argument("--batch-size", type=int, default=128, help="examples per step")
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
    parser.add_argument("--log-every", type=int, default=50,
                        help="log each N-th step's training loss and learning rate to "
                        "TensorBoard (the GradientTape loop; --fit logs per epoch)")
    parser.add_argument("--blas-threads", type=int, default=0,
                        help="BLAS threads (needs threadpoolctl; 0: leave as is). On a small "
                        "or busy machine 1 can be several times faster")
    args = parser.parse_args(argv)
    if args.log_every < 1:
        parser.error(f"--log-every must be >= 1, got {args.log_every}")
    check_device("mnist", args.device)
    ks.distribute.init()
    if not ks.distribute.is_chief():
        args.quiet = True  # one rank prints
    log = print if ks.distribute.is_chief() else _silent
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
        # averages the gradients of the ranks of an MPI job (alone: unchanged)
        optimizer = ks.distribute.DistributedOptimizer(
            ks.optimizers.Adam(learning_rate(args, len(train[0]))))
        metrics = (ks.metrics.Mean("loss"), ks.metrics.SparseCategoricalAccuracy("accuracy"))
        # the generator (dropout masks, fit's shuffles) and the epoch's running metrics are
        # saved too: a run resumed mid-epoch continues exactly
        session = Session("mnist", args, model=model, optimizer=optimizer,
                          rng=ks.random.get_global_generator(), metrics=list(metrics))
        if session.resumed_from:
            log(f"resumed from {session.resumed_from} at step {int(session.step)}")
        ks.distribute.broadcast_variables(model.variables)  # every rank starts from rank 0's
        with session.saving_on_interrupt(save=not args.fit):
            if args.fit:
                history = train_with_fit(model, optimizer, session, train, test, args, log)
            else:
                history = train_with_tape(model, optimizer, session, metrics, train, test, args,
                                          log)
    if not history:
        history = dict(zip(("test_loss", "test_accuracy"),
                           evaluate(model, *test, quiet=args.quiet)))
    log(f"mnist: {name} {args.model}, {args.epochs} epochs: test accuracy "
          f"{history['test_accuracy']:.4f}, test loss {history['test_loss']:.4f}; "
          f"TensorBoard: {tensorboard_hint(session.logdir)}")
    return history


def _silent(*args, **kwargs) -> None:
    """The log of the ranks other than the chief in an MPI job."""


if __name__ == "__main__":
    main()
