"""Linear regression on the seeds' toy set: y = 3x + 2 + noise, fitted with GradientTape.

    python -m recipes.linear_regression --steps 300 --seed 0
"""

from __future__ import annotations

import argparse

import kerasish as ks


def make_data(num_examples: int):
    """The seeds' toy set: points around y = 3x + 2 with unit Gaussian noise."""
    inputs = ks.random.normal([num_examples])
    noise = ks.random.normal([num_examples])
    return inputs, inputs * 3.0 + 2.0 + noise


def train(num_examples=1000, steps=300, learning_rate=0.01, seed=0, log=print):
    """Fit W and B (starting at 5 and 10, as the seeds do); returns (W, B, final loss)."""
    ks.random.set_seed(seed)
    inputs, targets = make_data(num_examples)
    weight = ks.Variable(5.0, name="weight")
    bias = ks.Variable(10.0, name="bias")

    def loss_fn():
        return ks.reduce_mean(ks.square(inputs * weight + bias - targets))

    log(f"Initial loss: {loss_fn():.3f}")
    for step in range(steps):
        with ks.GradientTape() as tape:
            loss = loss_fn()
        d_weight, d_bias = tape.gradient(loss, [weight, bias])
        weight.assign_sub(d_weight * learning_rate)
        bias.assign_sub(d_bias * learning_rate)
        if step % 20 == 0:
            log(f"Loss at step {step:03d}: {loss_fn():.3f}")
    final = float(loss_fn())
    return float(weight), float(bias), final


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="linear_regression", description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="number of points (default 1000)")
    parser.add_argument("--steps", type=int, default=300, help="gradient steps (default 300)")
    parser.add_argument("--learning-rate", type=float, default=0.01, help="SGD step (default 0.01)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--device", default="cpu", help="cpu or gpu (default cpu)")
    args = parser.parse_args(argv)
    with ks.device(args.device):
        weight, bias, loss = train(args.examples, args.steps, args.learning_rate, args.seed)
    print(f"linear_regression: W = {weight:.3f}, B = {bias:.3f}, final loss = {loss:.3f}")


if __name__ == "__main__":
    main()
