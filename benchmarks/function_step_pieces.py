"""Where a compiled training step's time goes: each instruction of the replayed program timed alone.

The step is function_bench's MLP: `model.compile(run_eagerly=False)`'s `train_step` for
Dense(128, relu), Dense(10), Adam, sparse cross-entropy on logits, batch 128, on
Fashion-MNIST (random images when it cannot be read). After one `fit` epoch (trace, check,
replays), the program's instructions are run one at a time, in order, on each batch of
`--epochs` passes over the data (fresh batches, as `fit` gives them), each timed with
`perf_counter`; the median per instruction is printed, with their sum, the whole replay's
median and the NumPy GEMM floor's time per step (function_bench's six products).

Usage (from the repository root; one BLAS thread):

    python benchmarks/function_step_pieces.py [--examples 12032] [--epochs 3] [--listing]
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

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import function_bench  # noqa: E402 - benchmarks/, the script's directory
from _machine import cpu_model  # noqa: E402

import kerasish as ks  # noqa: E402
from kerasish.core.function import program  # noqa: E402


def run_timed(concrete, arrays, times) -> None:
    """Run the program's root segment on `arrays`, timing each instruction alone."""
    env = concrete._template[:]
    env[: concrete.n_inputs] = arrays
    for slot, variable in concrete._variable_pairs:
        env[slot] = variable._value
    for i, instr in enumerate(concrete.root.code):
        fn = instr.callable()
        args = [env[s] for s in instr.ins]
        kwargs = {name: env[s] for name, s in instr.attr_slots}
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        if instr.kind == "prim" and instr.copy:
            result = result.copy()
        times[i].append(time.perf_counter() - start)
        if instr.kind == "effect":
            continue
        if len(instr.outs) > 1:
            for slot, value in zip(instr.outs, result):
                env[slot] = value
        else:
            env[instr.outs[0]] = result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=12032, help="a multiple of 128")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--listing", action="store_true", help="print the program first")
    args = parser.parse_args()
    x, y, source = function_bench.mnist_data(args.examples)
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Dense(128, activation="relu"), ks.layers.Dense(10)])
    model.compile(ks.optimizers.Adam(1e-3),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True), run_eagerly=False)
    model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False)
    concrete = model._step_functions["train_step"].function.concrete_functions()[0]
    if args.listing:
        print(program.listing(concrete))
    batches = [(x[i:i + 128], y[i:i + 128]) for i in range(0, len(x) - 127, 128)]
    times = [[] for _ in concrete.root.code]
    for _ in range(args.epochs):
        for batch in batches:
            run_timed(concrete, list(batch), times)
    replays = []
    for _ in range(args.epochs):
        for batch in batches:
            start = time.perf_counter()
            concrete.replay(list(batch))
            replays.append(time.perf_counter() - start)
    floor = statistics.median(function_bench.gemm_floor(x) for _ in range(5)) / len(batches)
    print(f"{cpu_model()}, {source}, {len(batches)} batches x {args.epochs} epochs, load average "
          f"{os.getloadavg()[0]:.1f} (us per step, medians)")
    total = 0.0
    for i, instr in enumerate(concrete.root.code):
        median = statistics.median(times[i]) * 1e6
        total += median
        shapes = ", ".join(program.slot_type(concrete.slot_info, s) for s in instr.ins)
        print(f"  {i:3d} {instr.label:42s} {median:8.1f}  ({shapes})")
    replay = statistics.median(replays) * 1e6
    print(f"  sum of the instructions {total:8.1f}; replay {replay:8.1f}; "
          f"GEMM floor {floor * 1e6:8.1f}")


if __name__ == "__main__":
    main()
