"""ks.function buffer reuse: compiled training steps replayed with and without it.

The step is `model.compile(run_eagerly=False)`'s `train_step`, Adam, sparse cross-entropy on
logits, on random 28x28 images, for an MLP (`mlp:BATCHxWIDTHxDEPTH`: Dense(width, relu) x
depth, Dense(10)) or function_bench's CNN (`cnn:BATCH`: Conv2D(16, 3x3, relu), max pooling,
Dense(10)). Two models built from the same seed replay their programs on the same batch,
one planned with `buffers.MIN_BUFFER_BYTES` = `--min-bytes` (default: the library's
default; 1: every result that has an `out=` form), one with no buffers, in alternating
groups of `--calls` replays; each group's time per step is measured in wall-clock time and
in this thread's CPU time (which a loaded machine inflates less). The weights of the two
models are checked to stay equal bit for bit.

Usage (from the repository root; one BLAS thread):

    python benchmarks/function_buffers_bench.py [--models mlp:128x128x1,cnn:128] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from _machine import cpu_model  # noqa: E402 - benchmarks/, the script's directory

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import kerasish as ks  # noqa: E402
from kerasish.core.function import buffers  # noqa: E402


def build(model_spec: str):
    """The model for `mlp:BATCHxWIDTHxDEPTH` or `cnn:BATCH`, its batch size and input shape."""
    kind, size = model_spec.split(":")
    if kind == "cnn":
        layers = [ks.layers.Conv2D(16, 3, activation="relu"), ks.layers.MaxPooling2D(),
                  ks.layers.Flatten(), ks.layers.Dense(10)]
        return ks.Sequential(layers), int(size), (28, 28, 1)
    batch, width, depth = (int(v) for v in size.split("x"))
    layers = [ks.layers.Dense(width, activation="relu") for _ in range(depth)]
    return ks.Sequential(layers + [ks.layers.Dense(10)]), batch, (784,)


def compiled_step(model_spec: str, min_bytes: int, x, y):
    """A model and the program of its compiled train_step."""
    buffers.MIN_BUFFER_BYTES = min_bytes
    ks.random.set_seed(0)
    model, batch, _ = build(model_spec)
    model.compile(ks.optimizers.Adam(1e-3),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True), run_eagerly=False)
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0,
              shuffle=False)  # traced, checked, replayed once (the buffers are made)
    (concrete,) = model._step_functions["train_step"].function.concrete_functions()
    return model, concrete


def measure(model_spec: str, args) -> dict:
    _, batch, shape = build(model_spec)
    rng = np.random.default_rng(0)
    x = rng.random((3 * batch,) + shape, np.float32)
    y = rng.integers(0, 10, 3 * batch).astype(np.int32)
    default = buffers.MIN_BUFFER_BYTES
    min_bytes = default if args.min_bytes is None else args.min_bytes
    try:
        contenders = {"no buffers": compiled_step(model_spec, 1 << 62, x, y),
                      "buffers": compiled_step(model_spec, min_bytes, x, y)}
    finally:
        buffers.MIN_BUFFER_BYTES = default
    arrays = [x[:batch], y[:batch]]
    wall = {name: [] for name in contenders}
    cpu = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, (_, concrete) in contenders.items():
            start, start_cpu = time.perf_counter(), time.thread_time()
            for _ in range(args.calls):
                concrete.replay(arrays)
            wall[name].append((time.perf_counter() - start) / args.calls * 1e6)
            cpu[name].append((time.thread_time() - start_cpu) / args.calls * 1e6)
    (plain, _), (reusing, concrete) = contenders.values()
    same = all(np.array_equal(a.numpy(), b.numpy())
               for a, b in zip(plain.variables, reusing.variables))
    return {"wall": wall, "cpu": cpu, "same": same,
            "buffers": str(concrete).count(" in buffer ")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp:128x128x1,mlp:1024x1024x2,cnn:128",
                        help="mlp:BATCHxWIDTHxDEPTH or cnn:BATCH, comma-separated")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=10, help="replays per timed group")
    parser.add_argument("--min-bytes", type=int, default=None,
                        help="buffers.MIN_BUFFER_BYTES for the reusing contender (default: "
                             f"the library's, {buffers.MIN_BUFFER_BYTES})")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_model()}, "
          f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"MIN_BUFFER_BYTES {args.min_bytes or buffers.MIN_BUFFER_BYTES}; median of "
          f"{args.rounds} groups of {args.calls} replays")
    print("| training step | results in buffers | no buffers, us (CPU) "
          "| buffers, us (CPU) | buffers / none, wall | buffers / none, CPU | same bits |")
    print("|---|---|---|---|---|---|---|")
    for size in args.models.split(","):
        r = measure(size, args)
        ratio = {kind: statistics.median(a / b for a, b in zip(r[kind]["buffers"],
                                                                 r[kind]["no buffers"]))
                 for kind in ("wall", "cpu")}
        print(f"| {size} | {r['buffers']} | {statistics.median(r['cpu']['no buffers']):.0f} "
              f"| {statistics.median(r['cpu']['buffers']):.0f} | {ratio['wall']:.3f} "
              f"| {ratio['cpu']:.3f} | {r['same']} |")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
