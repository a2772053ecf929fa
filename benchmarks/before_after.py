"""One benchmark script run on two source trees, alternately, in one run.

For a change that must not move performance (a refactor), the same benchmark runs on the
tree before the change and the tree after it, turn about, `--rounds` times. Each run is a
fresh interpreter whose `kerasish` is the tree's own, with the script given by its path
inside the tree so each tree runs its own version. The lines each run prints are shown
under a heading naming the tree and round.

Usage (from the repository root; the "before" tree from `git archive`):

    mkdir -p /tmp/before && git archive 558305c | tar -x -C /tmp/before
    python benchmarks/before_after.py --before /tmp/before --after . --rounds 2 \\
        -- benchmarks/function_bench.py --rounds 3 --epochs 5 --tf-python ''
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time


def run_in(tree: pathlib.Path, script_and_args: list[str]) -> tuple[float, str]:
    """Run the script of `tree` with its own kerasish first on the path; (seconds, output)."""
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    script, *args = script_and_args
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(tree / script), *args], cwd=tree, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{tree / script} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=pathlib.Path, required=True)
    parser.add_argument("--after", type=pathlib.Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("command", nargs="+", help="the script (a path inside each tree) and "
                        "its arguments, after --")
    options = parser.parse_args(argv)
    trees = {"before": options.before.resolve(), "after": options.after.resolve()}
    for round_number in range(1, options.rounds + 1):
        order = list(trees) if round_number % 2 else list(reversed(trees))
        for name in order:
            load = os.getloadavg()[0]
            seconds, output = run_in(trees[name], options.command)
            print(f"=== {name} ({trees[name]}), round {round_number}, {seconds:.0f} s, "
                  f"load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            print(output.rstrip(), flush=True)


if __name__ == "__main__":
    main()
