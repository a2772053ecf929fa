"""End-to-end wall time and peak memory of each recipe at its defaults.

Runs `python -m recipes.<name>` in a child process for linear_regression,
huber_regression, mnist (MLP), mnist (CNN), word2vec (NCE) and word2vec
(negative sampling), each at its default settings, in a fresh temporary
working directory (so the default `runs/<recipe>/...` logs land there), and
reports for each:

- wall time from start to exit (interpreter start-up, imports and data
  loading included);
- user + system CPU time;
- peak resident set size (ru_maxrss of that child, from `os.wait4`: this
  wrapper imports nothing heavy, so the child's own peak is what is counted);
- the recipe's final summary line.

word2vec trains on `benchmarks/data/dict8` (`--corpus`), the text8-like corpus
built offline by `python benchmarks/make_corpus.py`, in place of text8 (which
this offline machine cannot download); every other setting is the recipe's
default for its `--loss`. Without that file the word2vec entries are skipped.

Usage (from the repository root):

    python benchmarks/recipes_bench.py                       # all six, library threads
    python benchmarks/recipes_bench.py --threads 1           # OPENBLAS/OMP_NUM_THREADS=1
    python benchmarks/recipes_bench.py --only mnist-mlp --markdown

`--threads N` sets OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and MKL_NUM_THREADS
for the children; without it each library picks its own thread count.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: text8-like offline corpus for word2vec (absolute: the children run elsewhere).
CORPUS = ROOT / "benchmarks" / "data" / "dict8"

RECIPES = {
    "linear_regression": ["-m", "recipes.linear_regression"],
    "huber_regression": ["-m", "recipes.huber_regression"],
    "mnist-mlp": ["-m", "recipes.mnist", "--model", "mlp"],
    "mnist-cnn": ["-m", "recipes.mnist", "--model", "cnn"],
    "word2vec-nce": ["-m", "recipes.word2vec", "--loss", "nce", "--corpus", str(CORPUS)],
    "word2vec-neg": ["-m", "recipes.word2vec", "--loss", "neg", "--corpus", str(CORPUS)],
}
#: Files a recipe needs, and how to make them; without them it is skipped.
REQUIRES = {
    "word2vec-nce": (CORPUS, "python benchmarks/make_corpus.py"),
    "word2vec-neg": (CORPUS, "python benchmarks/make_corpus.py"),
}


def run(name: str, extra: list, env: dict, log) -> dict:
    """Run one recipe in a fresh directory; wall, CPU, peak RSS and its last line."""
    with tempfile.TemporaryDirectory(prefix=f"recipe-{name}-") as workdir:
        command = [sys.executable, *RECIPES[name], *extra]
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=workdir, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        child.stdout.close()
    lines = [line for line in output.splitlines() if line.strip()]
    result = {
        "command": "python " + " ".join(RECIPES[name] + list(extra)),
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "exit": child.returncode,
        "summary": lines[-1] if lines else "",
        "epochs": [line for line in lines if line.startswith("epoch ")],
    }
    log(f"{name}: {wall:.1f} s wall, {result['cpu_s']:.1f} s CPU, peak RSS "
        f"{result['peak_rss_mib']:.0f} MiB, exit {child.returncode}\n  {result['summary']}")
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(RECIPES),
                        help="run only this recipe (repeatable)")
    parser.add_argument("--threads", type=int, default=None,
                        help="set OPENBLAS/OMP/MKL_NUM_THREADS for the children")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    parser.add_argument("extra", nargs="*", help="extra arguments passed to every recipe")
    args = parser.parse_args(argv)

    env = dict(os.environ)
    paths = [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    if args.threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(args.threads)
    load_before = os.getloadavg()[0]
    results = {}
    for name in args.only or list(RECIPES):
        path, make = REQUIRES.get(name, (None, None))
        if path is not None and not path.is_file():
            print(f"{name}: skipped: {path} not found (build it with `{make}`)")
            continue
        results[name] = run(name, args.extra, env, print)
    load_after = os.getloadavg()[0]
    threads = f"{args.threads} (OPENBLAS/OMP/MKL_NUM_THREADS)" if args.threads else \
        f"library defaults ({os.cpu_count()} cores)"
    print(f"threads: {threads}; 1-min load average {load_before:.2f} before, "
          f"{load_after:.2f} after")
    if args.markdown:
        print(f"\n- **Date:** {time.strftime('%Y-%m-%d')}; Python {platform.python_version()}; "
              f"threads: {threads}; load {load_before:.2f} -> {load_after:.2f}")
        print(f"- **Command:** `python benchmarks/recipes_bench.py "
              f"{' '.join(sys.argv[1:] if argv is None else argv)}`\n")
        print("| recipe (defaults) | wall s | CPU s | peak RSS MiB | final line |")
        print("|---|---|---|---|---|")
        for name, r in results.items():
            print(f"| `{name}` | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_rss_mib']:.0f} | "
                  f"{r['summary']} |")
    return results


if __name__ == "__main__":
    main()
