"""Linear regression on TF eager's toy set: y = 3x + 2 + noise, fitted with a GradientTape loop.

The step (tape, gradient, SGD update) is compiled with ks.function; --eager runs it op by op.

W and B start at 5 and 10 as in the seeds and end near W = 3, B = 2 with a
loss near 1.0 (the noise variance).
"""

from __future__ import annotations

import kerasish as ks

from .common import Session, check_device, compiled_step, parser_for, tensorboard_hint


def make_data(num_examples: int, seed: int):
    """The seeds' toy set: points around y = 3x + 2 with unit Gaussian noise."""
    ks.random.set_seed(seed)
    inputs = ks.random.normal([num_examples])
    noise = ks.random.normal([num_examples])
    return inputs, inputs * 3.0 + 2.0 + noise


class LinearModel(ks.Model):
    """The seeds' model: y = x * W + B."""

    def __init__(self):
        super().__init__()
        self.W = ks.Variable(5.0, name="weight")
        self.B = ks.Variable(10.0, name="bias")

    def call(self, inputs):
        return inputs * self.W + self.B


def mean_squared_error(model, inputs, targets):
    return ks.reduce_mean(ks.square(model(inputs) - targets))


def train(args, log=print) -> dict:
    inputs, targets = make_data(args.examples, args.seed)
    model = LinearModel()
    optimizer = ks.optimizers.SGD(args.learning_rate)
    session = Session("linear_regression", args, model=model, optimizer=optimizer)
    if session.resumed_from:
        log(f"resumed from {session.resumed_from} at step {int(session.step)}")
    log(f"Initial loss: {mean_squared_error(model, inputs, targets):.3f}")

    def train_step(inputs, targets):
        with ks.GradientTape() as tape:
            loss = mean_squared_error(model, inputs, targets)
        grads = tape.gradient(loss, [model.W, model.B])
        optimizer.apply_gradients(zip(grads, [model.W, model.B]))
        return loss

    train_step = compiled_step(train_step, args.eager)
    with session.saving_on_interrupt():
        while int(session.step) < args.steps:
            step = int(session.step)
            loss = train_step(inputs, targets)
            session.check_finite(float(loss), "lower --learning-rate")
            session.step.assign_add(1)
            ks.summary.scalar("loss", loss, step=step)
            if step % 20 == 0:
                log(f"Loss at step {step:03d}: {mean_squared_error(model, inputs, targets):.3f}")
            if args.save_every and (step + 1) % args.save_every == 0:
                session.save()
            session.check_interrupt()
        session.save()
    result = {
        "W": float(model.W), "B": float(model.B),
        "loss": float(mean_squared_error(model, inputs, targets)), "logdir": session.logdir,
    }
    if args.plot:
        plot(inputs, targets, result, args.plot, log)
    return result


def pyplot():
    """matplotlib's pyplot (drawing to files), or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot(inputs, targets, result, path, log) -> None:
    plt = pyplot()
    x, y = inputs.numpy(), targets.numpy()
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.scatter(x, y, s=4, alpha=0.4, label="data")
    line_x = [float(x.min()), float(x.max())]
    axes.plot(line_x, [result["W"] * v + result["B"] for v in line_x], "r",
              label=f"fit: y = {result['W']:.2f}x + {result['B']:.2f}")
    axes.legend()
    figure.savefig(path, dpi=100)
    log(f"plot saved to {path}")


def main(argv=None) -> dict:
    parser = parser_for("linear_regression", __doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="number of points")
    parser.add_argument("--steps", type=int, default=300, help="gradient steps")
    parser.add_argument("--learning-rate", type=float, default=0.01, help="SGD step size")
    parser.add_argument("--save-every", type=int, default=100, help="checkpoint every N steps")
    parser.add_argument("--plot", default=None, metavar="OUT.png",
                        help="save the data and the fitted line (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and pyplot() is None:  # refused before training, not after it
        parser.error("--plot needs matplotlib: pip install -e '.[recipes]' "
                     "(or pip install matplotlib)")
    check_device("linear_regression", args.device)
    with ks.device(args.device):
        result = train(args, log=(lambda *a: None) if args.quiet else print)
    print(f"linear_regression: W = {result['W']:.3f}, B = {result['B']:.3f}, "
          f"final loss = {result['loss']:.3f}; TensorBoard: {tensorboard_hint(result['logdir'])}")
    return result


if __name__ == "__main__":
    main()
