"""Huber vs squared-loss regression with per-example SGD (CS20 lecture 4, eager style).

The Huber loss is the seeds' eager version with a Python `if` on a tensor
value: t**2 if |t| <= m else m * (2|t| - m). That is twice the standard Huber
loss (`ks.losses.Huber`: 0.5 t**2 inside delta, delta (|t| - delta/2) outside);
the factor only rescales the learning rate. Gradients come from
`ks.implicit_value_and_gradients`, as in the lecture. The step is compiled
with ks.function (the `if` becomes a guard, so both branches replay exactly);
--eager runs it op by op.

With --data FILE it reads the CS20 `birth_life_2010.txt` format (a header,
then tab-separated country, birth rate, life expectancy); otherwise it
generates points around a known line with a fraction of gross outliers, and
reports how far each fit lands from the truth.
"""

from __future__ import annotations

import os

import numpy as np

import kerasish as ks

from .common import Session, check_device, compiled_step, parser_for, tensorboard_hint

TRUE_W, TRUE_B = -6.0, 85.0  # the generated data's line (like life expectancy vs birth rate)


def read_birth_life(path: str):
    """(birth rates, life expectancies) from the CS20 tab-separated file."""
    xs, ys = [], []
    with open(path, encoding="utf-8") as handle:
        header = handle.readline()
        if "\t" not in header:
            raise ValueError(f"{path}: expected a tab-separated header line, got {header!r}")
        for number, line in enumerate(handle, start=2):
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                raise ValueError(f"{path}:{number}: expected 3 tab-separated columns, got {line!r}")
            xs.append(float(parts[1]))
            ys.append(float(parts[2]))
    return np.array(xs, np.float32), np.array(ys, np.float32)


def generate(num_points: int, outlier_fraction: float, seed: int):
    """Points around y = -6x + 85 with unit noise; some get pushed 30-50 below the line."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1.0, 7.0, num_points).astype(np.float32)
    y = (TRUE_W * x + TRUE_B + rng.normal(0, 1, num_points)).astype(np.float32)
    outliers = rng.random(num_points) < outlier_fraction
    y[outliers] -= rng.uniform(30, 50, int(outliers.sum())).astype(np.float32)
    return x, y


def huber_loss(y, y_predicted, m=1.0):
    """The seeds' eager Huber loss, with Python control flow on a tensor value."""
    t = y - y_predicted
    return t**2 if ks.abs(t) <= m else m * (2 * ks.abs(t) - m)


def squared_loss(y, y_predicted):
    return ks.square(y - y_predicted)


class Line(ks.Model):
    def __init__(self):
        super().__init__()
        self.w = ks.Variable(0.0, name="w")
        self.b = ks.Variable(0.0, name="b")

    def call(self, x):
        return x * self.w + self.b


def fit(name, loss_fn, examples, args, log):
    """Per-example SGD; resumes from --checkpoint-dir/<name> at an epoch boundary."""
    model = Line()
    optimizer = ks.optimizers.SGD(args.learning_rate)
    run_args = _with_checkpoint_subdir(args, name)
    session = Session(f"huber_regression/{name}", run_args, model=model, optimizer=optimizer)
    grad_fn = ks.implicit_value_and_gradients(lambda x, y: loss_fn(y, model(x)))

    def train_step(x, y):
        loss, gradients = grad_fn(x, y)
        optimizer.apply_gradients(gradients)
        return loss

    # compiled, the Huber loss's Python `if` becomes a guard: both branches replay
    train_step = compiled_step(train_step, args.eager)
    epoch = int(session.step)
    if session.resumed_from:
        log(f"[{name}] resumed from {session.resumed_from} at epoch {epoch}")
    with session.saving_on_interrupt():
        while epoch < args.epochs:
            total = 0.0
            for x_i, y_i in examples:
                total += float(train_step(x_i, y_i))
            session.check_finite(total, "lower --learning-rate")
            epoch += 1
            session.step.assign(epoch)
            ks.summary.scalar("loss", total / len(examples), step=epoch)
            if epoch % args.log_every == 0 or epoch == args.epochs:
                log(f"[{name}] epoch {epoch:3d}: mean loss {total / len(examples):.3f}")
            if args.save_every and epoch % args.save_every == 0:
                session.save()
            session.check_interrupt()
        session.save()
    return float(model.w), float(model.b), session.logdir


def _with_checkpoint_subdir(args, name):
    import argparse

    copy = argparse.Namespace(**vars(args))
    if args.checkpoint_dir:
        copy.checkpoint_dir = os.path.join(args.checkpoint_dir, name)
    if args.logdir:
        copy.logdir = os.path.join(args.logdir, name)
    return copy


def main(argv=None) -> dict:
    parser = parser_for("huber_regression", __doc__.splitlines()[0])
    parser.add_argument("--data", default=None,
                        help="a birth_life_2010.txt-format file (default: generated data)")
    parser.add_argument("--points", type=int, default=190, help="generated points")
    parser.add_argument("--outliers", type=float, default=0.1,
                        help="fraction of generated points that are outliers")
    parser.add_argument("--epochs", type=int, default=100, help="passes over the data")
    parser.add_argument("--learning-rate", type=float, default=0.01,
                        help="SGD step size (0.01 as in the CS20 eager starter)")
    parser.add_argument("--log-every", type=int, default=10, help="print every N epochs")
    parser.add_argument("--save-every", type=int, default=10, help="checkpoint every N epochs")
    args = parser.parse_args(argv)
    check_device("huber_regression", args.device)
    log = (lambda *a: None) if args.quiet else print
    if args.data:
        x, y = read_birth_life(args.data)
        source = f"{args.data} ({len(x)} countries)"
    else:
        x, y = generate(args.points, args.outliers, args.seed)
        source = f"generated: {len(x)} points around y = {TRUE_W:g}x + {TRUE_B:g}, " \
                 f"{args.outliers:.0%} outliers"
    log(f"data: {source}")
    with ks.device(args.device):
        examples = [(ks.constant(a), ks.constant(b)) for a, b in zip(x, y)]
        runs = {
            "huber": fit("huber", huber_loss, examples, args, log),
            "squared": fit("squared", squared_loss, examples, args, log),
        }
    fits = {name: (w, b) for name, (w, b, _) in runs.items()}
    logdir = os.path.commonpath([logdir for _, _, logdir in runs.values()])
    result = {name: {"w": w, "b": b} for name, (w, b) in fits.items()}
    parts = [f"{name}: y = {w:.3f}x + {b:.3f}" for name, (w, b) in fits.items()]
    if not args.data:
        for name, (w, b) in fits.items():
            grid = np.linspace(1, 7, 50)
            error = float(np.mean(np.abs((w - TRUE_W) * grid + (b - TRUE_B))))
            result[name]["error"] = error
        parts.append(
            f"mean distance from the true line: huber {result['huber']['error']:.2f}, "
            f"squared {result['squared']['error']:.2f}"
        )
    parts.append(f"TensorBoard: {tensorboard_hint(logdir)}")
    print("huber_regression (eager Huber, m=1): " + "; ".join(parts))
    return result


if __name__ == "__main__":
    main()
