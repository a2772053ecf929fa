"""The GPU check: GPU tests and GPU benchmarks in one call, ending in a Markdown table.

Meant for the few minutes someone has a GPU: run it, read the table, fix, run it again.

1. `pytest -m gpu` (the tests that need CuPy and a GPU), its summary line.
2. The MLP step (784-256-256-10, Adam, batch 128; one tape, one gradient) five ways,
   alternating in rounds: kerasish eager, compiled without CUDA graphs, compiled with
   them (the default), PyTorch eager, PyTorch replaying a CUDA graph of its step
   (`torch.cuda.graph`, Adam with `capturable=True`). Median microseconds per step; the
   kerasish weights after equal steps are compared bit for bit (graph against plain).
3. The same for the CNN of the mnist recipe's `--model cnn` shape
   (Conv2D(16, 3) relu, MaxPooling2D, Flatten, Dense(10)) on 28x28x1 images.
4. `fit` epochs of the MLP on 60,000 MNIST-shaped examples (arrays on the host), images/s,
   at batch 128 and 1024.
5. The compute-bound steps of `gpu_compute_bench.py` (a ResNet-style CNN at batch 256, a
   Transformer encoder block on (64, 256, 512)), in float32 and in float16 against
   PyTorch's autocast.
6. With `--suite`, the test suite with the GPU as the default device (`pytest -n 14`,
   tests/distribute left out: its 2-3 ranks cannot share one GPU through NCCL).

Each part that fails prints its traceback and the check goes on; the table is rewritten
after each part, and the pytest logs are kept beside it, so a run cut short still reports.

Usage (repository root, a machine with CuPy, PyTorch and a GPU):

    python benchmarks/gpu_check.py [--out FILE.md] [--skip-tests] [--rounds N]
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cupy as cp  # noqa: E402
import gpu_compute_bench  # noqa: E402 - benchmarks/, this directory
from function_buffers_gpu_bench import trainer  # noqa: E402

import kerasish as ks  # noqa: E402
from kerasish.core.function import graphs  # noqa: E402

BATCH = 128


def _sync():
    cp.cuda.Device().synchronize()


def _us_per_step(step, batches) -> float:
    _sync()
    start = time.perf_counter()
    for x, y in batches:
        step(x, y)
    _sync()
    return (time.perf_counter() - start) / len(batches) * 1e6


def kerasish_trainer(kind: str, compiled: bool, use_graphs: bool):
    """function_buffers_gpu_bench's model and step, traced with or without CUDA graphs (the
    choice is made when a program is compiled, so the timed calls keep it)."""
    graphs.enable(use_graphs)
    return trainer(kind, compiled)


def torch_trainer(kind: str, graph: bool, example):
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    if kind == "cnn":
        model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(16 * 13 * 13, 10))
    else:
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))
    model = model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=graph)

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    if not graph:
        return step
    static_x, static_y = (t.clone() for t in example)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up: the optimizer's state exists before capture
        for _ in range(3):
            step(static_x, static_y)
    torch.cuda.current_stream().wait_stream(side)
    captured = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(captured):
        static_loss = F.cross_entropy(model(static_x), static_y)
        static_loss.backward()
        optimizer.step()

    def replay(x, y):
        static_x.copy_(x)
        static_y.copy_(y)
        captured.replay()
        return static_loss

    return replay


def step_table(kind: str, rounds: int) -> list:
    import torch

    rng = np.random.default_rng(0)
    shape = (28, 28, 1) if kind == "cnn" else (784,)
    images = [rng.random((BATCH,) + shape, np.float32) for _ in range(20)]
    labels = [rng.integers(0, 10, BATCH).astype(np.int32) for _ in range(20)]
    with ks.device("/gpu:0"):
        ks_batches = [(ks.constant(x), ks.constant(y)) for x, y in zip(images, labels)]
        runs = {}
        for name, compiled, use in (("kerasish eager", False, False),
                                    ("kerasish compiled, plain replay", True, False),
                                    ("kerasish compiled, CUDA graph", True, True)):
            model, step = kerasish_trainer(kind, compiled, use)
            for x, y in ks_batches[:4]:
                step(x, y)
            runs[name] = (model, step)
        graphs.enable(True)
        t_images = [torch.from_numpy(x).cuda() for x in images]
        if kind == "cnn":
            t_images = [x.permute(0, 3, 1, 2).contiguous() for x in t_images]
        t_batches = [(x, torch.from_numpy(y.astype(np.int64)).cuda())
                     for x, y in zip(t_images, labels)]
        runs["PyTorch eager"] = (None, torch_trainer(kind, False, t_batches[0]))
        runs["PyTorch CUDA graph"] = (None, torch_trainer(kind, True, t_batches[0]))
        for name in ("PyTorch eager", "PyTorch CUDA graph"):
            for x, y in t_batches[:4]:
                runs[name][1](x, y)
        times = {name: [] for name in runs}
        for _ in range(rounds):
            for name, (_, step) in runs.items():
                batches = t_batches if name.startswith("PyTorch") else ks_batches
                times[name].append(_us_per_step(step, batches))
        plain = runs["kerasish compiled, plain replay"][0].variables
        graph_model, graph_step = runs["kerasish compiled, CUDA graph"]
        same = all(np.array_equal(a.numpy(), b.numpy())
                   for a, b in zip(plain, graph_model.variables))
        kind_of = graph_step.get_concrete_function(*ks_batches[0]).replay_kind
    torch_eager = statistics.median(times["PyTorch eager"])
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        rows.append((f"{kind} step", name, f"{median:.1f} us", f"{median / torch_eager:.2f}x"))
    rows.append((f"{kind} step", "graph weights == plain replay's", str(same), kind_of))
    return rows


class EpochTimer(ks.callbacks.Callback):
    """Each epoch's seconds, the device synchronised at both ends."""

    def __init__(self):
        super().__init__()
        self.seconds = []

    def on_epoch_begin(self, epoch, logs=None):
        _sync()
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        _sync()
        self.seconds.append(time.perf_counter() - self.start)


def fit_table(epochs: int = 3, batch_sizes=(BATCH, 1024)) -> list:
    """`fit` epochs of the MLP on 60,000 MNIST-shaped host arrays at each batch size: the
    best epoch after the first, in images/s, and how the step was replayed."""
    rng = np.random.default_rng(1)
    x = rng.random((60_000, 784), np.float32)
    y = rng.integers(0, 10, 60_000).astype(np.int32)
    rows = []
    for batch in batch_sizes:
        with ks.device("/gpu:0"):
            ks.random.set_seed(0)
            model = trainer("mlp", False)[0]
            model.compile(ks.optimizers.Adam(1e-3),
                          ks.losses.SparseCategoricalCrossentropy(from_logits=True))
            timer = EpochTimer()
            model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0, callbacks=[timer])
            step = model._step_functions["train_step"].function
            replay = [c.replay_kind for c in step.concrete_functions()]
        seconds = timer.seconds
        best = min(seconds[1:]) if len(seconds) > 1 else seconds[0]
        rows.append((f"fit epoch (MLP, 60,000 host arrays, batch {batch})", "kerasish compiled",
                     f"{60_000 / best:,.0f} images/s", "; ".join(sorted(set(replay)))))
    return rows


def run_tests(whole_suite: bool, paths=("tests",), log=None, timeout=400) -> str:
    """`pytest -m gpu`, or with `whole_suite` every test of `paths` with the GPU as the
    default device (14 processes); the whole output goes to `log`."""
    selection = (["--tb=short", "-n", "14", "--ignore=tests/distribute"] if whole_suite
                 else ["-m", "gpu", "--tb=short"])
    command = [sys.executable, "-m", "pytest", *selection, "-q", "-p", "no:cacheprovider",
               "--no-header", "-o", "addopts=", *paths]
    env = dict(os.environ, KERASISH_DEVICE="gpu") if whole_suite else None
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=env)
        output, errors = done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        output = exc.stdout or b""
        output = output.decode(errors="replace") if isinstance(output, bytes) else output
        output, errors = output + f"\ntimed out after {timeout} s", ""
    if log:
        Path(log).write_text(output + errors)
    lines = output.strip().splitlines()  # (pytest's summary is stdout's last line; plugins
    # warn on stderr)
    print("\n".join([line for line in lines if line.startswith(("FAILED", "ERROR"))][:80]
                    + lines[-3:]), flush=True)
    return lines[-1] if lines else "no output"


def compute_table(rounds: int) -> list:
    rows = []
    for half in (False, True):
        for kind, shape in gpu_compute_bench.sizes(False).items():
            rows += gpu_compute_bench.run(kind, shape, "gpu", rounds, 5, half)
            print(rows[-3:], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "gpu_check.md"))
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--suite", nargs="*", metavar="PATH",
                        help="also run these tests (default: all) with KERASISH_DEVICE=gpu")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--suite-timeout", type=int, default=300)
    args = parser.parse_args()
    import torch

    device = cp.cuda.runtime.getDeviceProperties(0)["name"]
    device = device.decode() if isinstance(device, bytes) else device
    header = (f"GPU check, {time.strftime('%Y-%m-%d')}: {device}, CuPy {cp.__version__}, "
              f"PyTorch {torch.__version__}, Python {platform.python_version()}")
    print(header, flush=True)
    rows = []
    folder = Path(args.out).parent

    def write():
        lines = [header, "", "| case | contender | figure | vs PyTorch eager / note |",
                 "|---|---|---|---|"]
        lines += [f"| {' | '.join(map(str, row))} |" for row in rows]
        Path(args.out).write_text("\n".join(lines) + "\n")

    def part(name, make_rows):
        started = time.perf_counter()
        try:
            rows.extend(make_rows())
        except Exception:  # the check goes on: one broken part must not hide the others
            traceback.print_exc()
            rows.append((name, "FAILED", traceback.format_exc().strip().splitlines()[-1], ""))
        print(f"[{name}: {time.perf_counter() - started:.0f} s]", flush=True)
        write()

    if not args.skip_tests:
        part("pytest -m gpu", lambda: [("tests", "pytest -m gpu", run_tests(
            False, log=folder / "gpu_tests.log", timeout=150), "")])
    for kind in ("mlp", "cnn"):
        part(f"{kind} step", lambda kind=kind: step_table(kind, args.rounds))
    part("fit", fit_table)
    part("compute-bound steps", lambda: compute_table(5))
    if args.suite is not None:
        paths = args.suite or ["tests"]
        part("suite", lambda: [("tests", f"{' '.join(paths)} with KERASISH_DEVICE=gpu",
                                run_tests(True, paths, folder / "suite.log",
                                          args.suite_timeout), "")])
    print(Path(args.out).read_text())


if __name__ == "__main__":
    main()
