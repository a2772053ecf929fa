"""TF rows of `function_bench.py`: the per-example Huber step in TF eager and `tf.function`.

Run by `function_bench.py` with a separate interpreter that has TensorFlow
(never a kerasish dependency), once per alternating round. Reads the points
as JSON `{"x": [...], "y": [...]}` on stdin, runs `--epochs` epochs of the
same step as the kerasish rows (a linear model `x * w + b`, one example per
step, the Python-`if` Huber loss, one tape, one gradient, a two-variable SGD
update at 0.001 written as `assign_sub`) in eager mode and under
`tf.function` (where autograph turns the `if` into a `tf.cond`), one thread,
and prints one JSON line: microseconds per step for each, the final weights
and TF's version. Inputs are float32 tensors made before the clock starts; the
`tf.function` step is traced by one untimed call first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)

LEARNING_RATE = 0.001


def huber_loss(y, y_predicted, m=1.0):
    t = y - y_predicted
    return t ** 2 if tf.abs(t) <= m else m * (2 * tf.abs(t) - m)


def trainer(compiled: bool):
    w, b = tf.Variable(0.0), tf.Variable(0.0)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = huber_loss(y, x * w + b)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(LEARNING_RATE * dw)
        b.assign_sub(LEARNING_RATE * db)
        return loss

    return (w, b), (tf.function(step) if compiled else step)


def time_epochs(step, xs, ys, epochs: int) -> float:
    start = time.perf_counter()
    for _ in range(epochs):
        for x, y in zip(xs, ys):
            step(x, y)
    return (time.perf_counter() - start) / (epochs * len(xs)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    points = json.load(sys.stdin)
    xs = [tf.constant(v, tf.float32) for v in points["x"]]
    ys = [tf.constant(v, tf.float32) for v in points["y"]]
    result = {"version": tf.__version__}
    for name, compiled in (("TF eager", False), ("TF tf.function", True)):
        (w, b), step = trainer(compiled)
        if compiled:
            step(xs[0], ys[0])  # trace outside the clock
            w.assign(0.0)
            b.assign(0.0)
        result[name] = time_epochs(step, xs, ys, args.epochs)
        result[name + " weights"] = [float(w.numpy()), float(b.numpy())]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
