"""GPU kernels on the GPU: elementwise fusion in ks.function and one-kernel optimizer updates.

The step (one tape, one gradient, Adam) of an MLP 784-256-256-10 and of function_bench's
CNN, batch 128, on CuPy arrays, four ways: eager with the update rules run as ufunc passes,
eager with one kernel per variable's update (the default), compiled without fusion and with
update passes, and compiled as by default (fused chains, update kernels). 12 alternating
rounds of 10 steps, synchronised; every contender's weights are compared with those of the
first, bit for bit (fused chains with exp, log or tanh may differ by a few ulp; these steps
have none outside the loss).

Usage (from the repository root, on a machine with CuPy and a GPU):

    python benchmarks/function_fusion_gpu_bench.py
"""

import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from function_buffers_gpu_bench import batches, trainer, us_per_step  # noqa: E402 - benchmarks/, this directory

import kerasish as ks  # noqa: E402
from kerasish.core.function import Function, fusion  # noqa: E402
from kerasish.optimizers import rules  # noqa: E402

# name, compiled, chains fused, update kernels
CONTENDERS = (("eager, update passes", False, False, False), ("eager", False, False, True),
              ("compiled, no fusion, update passes", True, False, False),
              ("compiled", True, True, True))
_GROUPS = fusion.groups


def _configure(fused: bool, kernels: bool) -> None:
    fusion.groups = _GROUPS if fused else (lambda *args: [])
    rules.KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64)) if kernels else ()


def main() -> None:
    rng = np.random.default_rng(0)
    for kind in ("mlp", "cnn"):
        with ks.device("/gpu:0"):
            xs, ys = batches(rng, kind)
            runs = {}
            for name, compiled, fused, kernels in CONTENDERS:
                _configure(fused, kernels)
                runs[name] = trainer(kind, compiled)
                for x, y in zip(xs[:4], ys[:4]):  # built, traced and compiled this way
                    runs[name][1](x, y)
            times = {name: [] for name in runs}
            for _ in range(12):
                for name, _, fused, kernels in CONTENDERS:
                    _configure(fused, kernels)
                    times[name].append(us_per_step(runs[name][1], xs, ys))
            _configure(True, True)
        print(f"{kind}, batch 128, us per step (12 rounds of 10 steps)")
        reference = runs[CONTENDERS[0][0]][0].variables
        for name, values in times.items():
            model, step = runs[name]
            same = all(np.array_equal(a.numpy(), b.numpy())
                       for a, b in zip(reference, model.variables))
            chains = (str(step.get_concrete_function(xs[0], ys[0])).count("fused(")
                      if isinstance(step, Function) else 0)
            print(f"  {name:36s} median {statistics.median(values):8.1f}  "
                  f"min {min(values):8.1f}  fused chains {chains:2d}  weights == first: {same}")


if __name__ == "__main__":
    main()
