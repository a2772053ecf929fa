"""Where a CUDA-graph replayed training step spends its time, phase by phase (issue 23).

The compiled MLP step of `gpu_check.py` (784-256-256-10, Adam, batch 128) replays as two
graphs: the part before the first update, which also computes the label check's flags,
and the rest. This script times, over many calls:

- the host's time in each phase of `CapturedProgram.launch` (inputs in, first graph's
  launch, the flags' read, the update rules' host side, the second graph's launch, the
  rest), by wrapping the captured program's parts;
- the GPU's time in each graph (CUDA events around the launches);
- the step when the flags' read does not wait (a bound on what a non-blocking check
  could give; the check is then not made, so this is a measurement, not a mode).

With `--kind cnn`, the same for the CNN of `gpu_check.py` (Conv2D 16, pooling, Dense 10).

Usage (repository root, a machine with CuPy and a GPU):

    python benchmarks/gpu_replay_timeline.py [--kind mlp|cnn]
"""

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cupy as cp  # noqa: E402
from function_buffers_gpu_bench import trainer  # noqa: E402 - benchmarks/, this directory

import kerasish as ks  # noqa: E402

CALLS = 400


class Timed:
    """Stands in for a graph (or the flags array): times `launch`/`get` on the host and,
    with `gpu`, on the device with CUDA events."""

    def __init__(self, inner, name, totals, gpu_times=None):
        self.inner, self.name, self.totals, self.gpu_times = inner, name, totals, gpu_times

    def _timed(self, method):
        start = time.perf_counter()
        if self.gpu_times is not None:
            before, after = cp.cuda.Event(), cp.cuda.Event()
            before.record()
            out = getattr(self.inner, method)()
            after.record()
            self.gpu_times[self.name].append((before, after))
        else:
            out = getattr(self.inner, method)()
        self.totals[self.name] += time.perf_counter() - start
        return out

    def launch(self):
        return self._timed("launch")

    def get(self):
        return self._timed("get")


def us_per_call(step, x, y, calls=CALLS) -> float:
    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        step(x, y)
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("mlp", "cnn"), default="mlp")
    kind = parser.parse_args().kind
    rng = np.random.default_rng(0)
    with ks.device("/gpu:0"):
        x = ks.constant(rng.random((128,) + ((28, 28, 1) if kind == "cnn" else (784,)),
                                   np.float32))
        y = ks.constant(rng.integers(0, 10, 128).astype(np.int32))
        _, step = trainer(kind, True)
        for _ in range(5):
            step(x, y)
        concrete = step.get_concrete_function(x, y)
        captured = concrete.graph
        print(kind, "replay:", concrete.replay_kind, "| first graph:", captured.first is not None,
              "| effects:", len(captured.effects), "| scalars:", captured.n_scalars)
        plain = us_per_call(step, x, y)
        print(f"step as shipped: {plain:.1f} us")

        # host time per phase
        totals = collections.Counter()
        first, flags, graphs = captured.first, captured.flags, captured.graphs
        effects = captured.effects
        captured.first = Timed(first, "first graph launch", totals)
        captured.flags = Timed(flags, "flags read (waits)", totals)
        captured.graphs = [Timed(g, "second graph launch", totals) for g in graphs]

        def timed_effect(op):
            def run(*args):
                start = time.perf_counter()
                op(*args)
                totals["effects' host side"] += time.perf_counter() - start
            run.graph_state = op.graph_state
            return run

        captured.effects = [(timed_effect(op), ins) for op, ins in effects]
        whole = us_per_call(step, x, y)
        print(f"\nhost phases ({whole:.1f} us a call with the timers):")
        for name, seconds in totals.most_common():
            print(f"  {seconds / CALLS * 1e6:8.1f} us  {name}")
        print(f"  {whole - sum(totals.values()) / CALLS * 1e6:8.1f} us  everything else "
              "(call, arguments, inputs in, results out, the loop)")

        # GPU time per graph
        gpu_times = collections.defaultdict(list)
        captured.first = Timed(first, "first graph", collections.Counter(), gpu_times)
        captured.graphs = [Timed(g, "second graph", collections.Counter(), gpu_times)
                           for g in graphs]
        captured.flags, captured.effects = flags, effects
        us_per_call(step, x, y, 200)
        print("\nGPU time per graph (CUDA events, median):")
        for name, pairs in gpu_times.items():
            ms = [cp.cuda.get_elapsed_time(a, b) for a, b in pairs]
            print(f"  {statistics.median(ms) * 1e3:8.1f} us  {name}")

        # the flags' read not waiting
        class NoWait:
            def get(self):
                return np.zeros(len(captured.checks), bool)

        captured.first, captured.graphs, captured.flags = first, graphs, NoWait()
        free = us_per_call(step, x, y)
        captured.flags = flags
        again = us_per_call(step, x, y)
        print(f"\nstep with a read that does not wait: {free:.1f} us "
              f"(as shipped, again: {again:.1f} us)")


if __name__ == "__main__":
    main()
