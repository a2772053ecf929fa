"""Every row of issue 24 in one command: kerasish against PyTorch (and gensim) on the CPU.

Runs, one after another, each in a fresh interpreter (one BLAS thread, as the scripts set):

- `layers_bench.py --cases lstm conv1d conv2d_transpose`, eager and `--compiled`
  (kerasish's step under `ks.function`): LSTM(256) on (64, 100, 128), Conv1D(64, 5,
  "same") on (32, 256, 64), Conv2DTranspose(32, 3, strides 2) on (64, 14, 14, 64), each
  forward + backward against its PyTorch module;
- `mnist_bench.py --cnn-steps 100`: the mnist recipe's CNN, 100 steps of the eager tape
  loop against the faster of the two PyTorch loops (it times the MLP epoch too);
- `word2vec_bench.py --skip-nce --epochs 1`: word2vec negative sampling, words/s against
  gensim workers=1, with WordSim353 (needs gensim and `benchmarks/data/dict8`, built by
  `python benchmarks/make_corpus.py`; the row is skipped without them).

and prints one table of ratios with the targets (<= 1.00x PyTorch; word2vec >= 1.0x gensim
at a WordSim353 no lower than gensim's). Each script's own output is echoed as it runs.
Run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE` to let OpenBLAS pick the CPU's
kernels. Usage (from the repository root; needs `pip install torch threadpoolctl gensim`):

    python benchmarks/cpu_rows.py                 # about 10 minutes on 2 cores
    python benchmarks/cpu_rows.py --repeats 10 --skip-word2vec   # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "@@cpu_rows "  # the line that carries a child's figures back


def run_child(script: str, argv: list[str]) -> dict:
    """Run `script`'s main(argv) in a fresh interpreter, echo its output, return its figures."""
    code = (f"import json, sys; sys.path.insert(0, {HERE!r}); import {script}; "
            f"r = {script}.main({argv!r}); print({MARK!r} + json.dumps(r, default=str))")
    done = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(HERE),
                          capture_output=True, text=True)
    lines = done.stdout.splitlines()
    print("\n".join(line for line in lines if not line.startswith(MARK)), flush=True)
    if done.returncode:
        raise SystemExit(f"{script} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(next(line for line in lines if line.startswith(MARK))[len(MARK):])


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed steps per layer case")
    parser.add_argument("--cnn-repeats", type=int, default=3, help="timed 100-step CNN runs")
    parser.add_argument("--skip-word2vec", action="store_true")
    args = parser.parse_args(argv)

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    cases = ["lstm", "conv1d", "conv2d_transpose"]
    layers = {mode: run_child("layers_bench", ["--cases", *cases, "--repeats",
                                               str(args.repeats)] + extra)
              for mode, extra in (("eager", []), ("compiled", ["--compiled"]))}
    mnist = run_child("mnist_bench", ["--repeats", "1", "--cnn-steps", "100", "--cnn-repeats",
                                      str(args.cnn_repeats), "--skip-memory"])
    word2vec = None
    if not args.skip_word2vec:
        try:
            import gensim  # noqa: F401
            have = os.path.exists(os.path.join(HERE, "data", "dict8"))
        except ImportError:
            have = False
        if have:
            word2vec = run_child("word2vec_bench", ["--skip-nce", "--epochs", "1",
                                                    "--repeats", "1"])
        else:
            print("word2vec row skipped: needs gensim and benchmarks/data/dict8")

    rows = []
    for name in cases:
        eager, compiled = (layers[m]["cases"][name] for m in ("eager", "compiled"))
        rows.append((eager["title"], f"{eager['ratio_best']:.2f}x (median "
                     f"{eager['ratio_median']:.2f}x)", f"{compiled['ratio_best']:.2f}x (median "
                     f"{compiled['ratio_median']:.2f}x)", "<= 1.00x PyTorch",
                     max(eager["ratio_best"], compiled["ratio_best"]) <= 1.0))
    cnn = mnist["cnn_ratios"]["tape_vs_torch_fastest"]
    rows.append(("the mnist recipe's CNN, 100 steps (tape loop)", f"{cnn:.2f}x", "",
                 "<= 1.00x PyTorch", cnn <= 1.0))
    if word2vec:
        ours, theirs = word2vec["ks8"], word2vec["g1"]
        ratio = ours["words_per_sec"] / theirs["words_per_sec"]
        rows.append(("word2vec neg, 1 epoch of dict8, words/s against gensim workers=1",
                     f"{ratio:.2f}x (WordSim353 {ours['spearman']:.3f} against "
                     f"{theirs['spearman']:.3f})", "(compiled step)",
                     ">= 1.0x gensim, WordSim353 no lower",
                     ratio >= 1.0 and ours["spearman"] >= theirs["spearman"]))
    lines = [f"Issue 24's rows, {started}, load {os.getloadavg()[0]:.2f} at the end:", "",
             "| row | kerasish eager | compiled | target | met |", "|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {'yes' if r[4] else 'no'} |"
              for r in rows]
    print("\n" + "\n".join(lines))
    return rows


if __name__ == "__main__":
    main()
