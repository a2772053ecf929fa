"""ks.function buffer reuse on the GPU: a compiled training step with and without buffers.

The step (one tape, one gradient, Adam) of an MLP 784-256-256-10 and of function_bench's
CNN, batch 128, on CuPy arrays: eager, compiled with no buffers, with the default
`MIN_BUFFER_BYTES`, and with every result buffered; 12 alternating rounds of 10 steps,
synchronised; the weights of each compiled run are compared with eager's bit for bit.

Usage (from the repository root, on a machine with CuPy and a GPU):

    python benchmarks/function_buffers_gpu_bench.py
"""

import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kerasish as ks  # noqa: E402
from kerasish.core.function import buffers  # noqa: E402

CONTENDERS = (("eager", 1 << 62, False), ("compiled, no buffers", 1 << 62, True),
              ("compiled, default", buffers.MIN_BUFFER_BYTES, True), ("compiled, all", 1, True))


def trainer(kind: str, compiled: bool):
    """A model built from seed 0 and its training step (compiled or eager)."""
    ks.random.set_seed(0)
    if kind == "cnn":
        layers = [ks.layers.Conv2D(16, 3, activation="relu"), ks.layers.MaxPooling2D(),
                  ks.layers.Flatten(), ks.layers.Dense(10)]
    else:
        layers = [ks.layers.Dense(256, activation="relu"), ks.layers.Dense(256, activation="relu"),
                  ks.layers.Dense(10)]
    model = ks.Sequential(layers)
    model(ks.zeros((1, 28, 28, 1) if kind == "cnn" else (1, 784)))  # built from seed 0 now
    optimizer = ks.optimizers.Adam(1e-3)
    loss_fn = ks.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return model, (ks.function(step) if compiled else step)


def batches(rng, kind: str) -> tuple:
    """Ten batches of 128 random images (on the current device) and labels."""
    shape = (28, 28, 1) if kind == "cnn" else (784,)
    xs = [ks.constant(rng.random((128,) + shape, np.float32)) for _ in range(10)]
    ys = [ks.constant(rng.integers(0, 10, 128).astype(np.int32)) for _ in range(10)]
    return xs, ys


def us_per_step(step, xs, ys) -> float:
    """One pass of `step` over the batches, synchronised: microseconds per step."""
    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    for x, y in zip(xs, ys):
        step(x, y)
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - start) / len(xs) * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    default = buffers.MIN_BUFFER_BYTES
    for kind in ("mlp", "cnn"):
        with ks.device("/gpu:0"):
            xs, ys = batches(rng, kind)
            runs = {}
            for name, min_bytes, compiled in CONTENDERS:
                buffers.MIN_BUFFER_BYTES = min_bytes
                runs[name] = trainer(kind, compiled)
                for x, y in zip(xs[:4], ys[:4]):  # built, traced and planned with this threshold
                    runs[name][1](x, y)
            buffers.MIN_BUFFER_BYTES = default
            times = {name: [] for name in runs}
            for _ in range(12):
                for name, (_, step) in runs.items():
                    times[name].append(us_per_step(step, xs, ys))
        print(f"{kind}, batch 128, us per step (12 rounds of 10 steps)")
        reference = runs["eager"][0].variables
        for name, values in times.items():
            model, step = runs[name]
            same = all(np.array_equal(a.numpy(), b.numpy())
                       for a, b in zip(reference, model.variables))
            buffered = (str(step.get_concrete_function(xs[0], ys[0])).count(" in buffer ")
                        if name != "eager" else 0)
            print(f"  {name:22s} median {statistics.median(values):8.1f}  "
                  f"min {min(values):8.1f}  buffers {buffered:2d}  weights == eager: {same}")


if __name__ == "__main__":
    main()
