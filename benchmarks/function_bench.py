"""ks.function against eager: the seeds' per-example Huber step and an MLP epoch.

Huber: a linear model `x * w + b` fitted one example per step (one tape, one
gradient, one two-variable SGD update) with the Python-`if` Huber loss, on the
190 points of `birth_life_2010.txt` (or synthetic points with outliers when
the file is missing). kerasish eager, kerasish compiled (`ks.function`, both
branches of the `if` compiled as guards) and PyTorch eager (if installed) run
the same steps on the same float32 data, in alternating rounds; the compiled
and eager weights are checked to be equal bit for bit. TF eager and
`tf.function` run the same step in a separate interpreter (`--tf-python`, one
call of `function_bench_tf.py` per round, between the in-process contenders).

MLP: one epoch of `model.fit` (Dense 128 relu, Dense 10, Adam, batch 128) on
Fashion-MNIST (`ks.datasets.fashion_mnist`, or random images when it cannot be
read) with `run_eagerly=True` and `False`, against the NumPy GEMM floor (the
six matrix products of each batch's forward and backward pass, nothing else).
CNN: the same for a small convolutional model on the first `--cnn-examples`
images, eager against compiled. PyTorch (if installed) trains the same models
on the same arrays (slices of 128, no DataLoader, Adam, cross-entropy on
logits) in the same alternating rounds.

Usage (from the repository root; one thread each):

    OMP_NUM_THREADS=1 python benchmarks/function_bench.py [--epochs 20] [--rounds 5]
        [--examples 12000] [--tf-python /tmp/kvenv/bin/python] [--markdown]

Targets (issue 13): compiled Huber step <= 0.3x eager; compiled MLP epoch
<= 1.25x the GEMM floor; compiled CNN epoch <= 1.1x PyTorch's; compiled
never slower than eager.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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

DATA_FILE = ROOT.parent / "shared/data/birth_life_2010.txt"
TF_SCRIPT = Path(__file__).resolve().parent / "function_bench_tf.py"


# ---------------------------------------------------------------- Huber


def huber_data():
    if DATA_FILE.exists():
        rows = [line.split("\t") for line in DATA_FILE.read_text().splitlines()[1:] if line]
        data = np.asarray([[float(r[1]), float(r[2])] for r in rows], np.float32)
        return data[:, 0], data[:, 1]
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 7, 190).astype(np.float32)
    y = (80 - 5 * x + rng.normal(0, 2, 190)).astype(np.float32)
    y[::20] += 25
    return x, y


def huber_loss(y, y_predicted, m=1.0):
    t = y - y_predicted
    return t ** 2 if ks.abs(t) <= m else m * (2 * ks.abs(t) - m)


def kerasish_trainer(compiled: bool):
    w, b = ks.Variable(0.0), ks.Variable(0.0)
    optimizer = ks.optimizers.SGD(0.001)

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = huber_loss(y, x * w + b)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        return loss

    return (w, b), (ks.function(step) if compiled else step)


def torch_trainer():
    import torch

    torch.set_num_threads(1)
    w = torch.zeros((), requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=0.001)

    def step(x, y):
        t = y - (x * w + b)
        loss = t ** 2 if torch.abs(t) <= 1.0 else 2 * torch.abs(t) - 1.0
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return (w, b), step


def time_epochs(step, xs, ys, epochs: int) -> float:
    start = time.perf_counter()
    for _ in range(epochs):
        for x, y in zip(xs, ys):
            step(x, y)
    return (time.perf_counter() - start) / (epochs * len(xs)) * 1e6


def tf_round(args, x, y) -> dict:
    """One round of TF eager and `tf.function` in `args.tf_python`; {} when unavailable."""
    if not args.tf_python or not os.path.exists(args.tf_python):
        return {}
    env = dict(os.environ, OMP_NUM_THREADS="1", TF_NUM_INTRAOP_THREADS="1",
               TF_NUM_INTEROP_THREADS="1", TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([args.tf_python, str(TF_SCRIPT), "--epochs", str(args.epochs)],
                          input=json.dumps({"x": x.tolist(), "y": y.tolist()}),
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        print(f"TF run with {args.tf_python} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


def huber(args) -> dict:
    x, y = huber_data()
    runners = {}
    (ew, eb), eager = kerasish_trainer(False)
    (cw, cb), compiled = kerasish_trainer(True)
    kx, ky = [ks.constant(v) for v in x], [ks.constant(v) for v in y]
    runners["kerasish eager"] = (eager, kx, ky)
    runners["kerasish ks.function"] = (compiled, kx, ky)
    try:
        import torch

        _, torch_step = torch_trainer()
        runners["PyTorch eager"] = (torch_step, [torch.tensor(v) for v in x],
                                    [torch.tensor(v) for v in y])
    except ImportError:
        pass
    times = {name: [] for name in runners}
    tf_version = None
    for _ in range(args.rounds):
        for name, (step, xs, ys) in runners.items():
            times[name].append(time_epochs(step, xs, ys, args.epochs))
        tf_result = tf_round(args, x, y)
        tf_version = tf_result.get("version", tf_version)
        for name in ("TF eager", "TF tf.function"):
            if name in tf_result:
                times.setdefault(name, []).append(tf_result[name])
    same = (ew.numpy() == cw.numpy()) and (eb.numpy() == cb.numpy())
    return {"times": times, "same": same, "points": len(x), "traces": compiled.trace_count,
            "tf_version": tf_version}


# ---------------------------------------------------------------- MLP


def mnist_data(n: int):
    try:
        (x, y), _ = ks.datasets.fashion_mnist.load_data()
        source = "Fashion-MNIST"
    except Exception:  # noqa: BLE001 - no data here: random images of the same shape
        rng = np.random.default_rng(0)
        x = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
        y = rng.integers(0, 10, n)
        source = "random images"
    x = (x[:n].reshape(-1, 784) / 255.0).astype(np.float32)
    return x, y[:n].astype(np.int32), source


def mlp_epoch(x, y, eager: bool) -> float:
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Dense(128, activation="relu"), ks.layers.Dense(10)])
    model.compile(ks.optimizers.Adam(1e-3),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    model.fit(x[:256], y[:256], batch_size=128, epochs=1, verbose=0)  # build and trace
    start = time.perf_counter()
    model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False)
    return time.perf_counter() - start


def cnn_epoch(x, y, eager: bool) -> float:
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Conv2D(16, 3, activation="relu"), ks.layers.MaxPooling2D(),
                           ks.layers.Flatten(), ks.layers.Dense(10)])
    model.compile(ks.optimizers.Adam(1e-3),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    images = x.reshape(-1, 28, 28, 1)
    model.fit(images[:256], y[:256], batch_size=128, epochs=1, verbose=0)
    start = time.perf_counter()
    model.fit(images, y, batch_size=128, epochs=1, verbose=0, shuffle=False)
    return time.perf_counter() - start


def torch_epoch(x, y, conv: bool) -> float | None:
    """One PyTorch epoch of the MLP (or the CNN) on the same arrays; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    torch.manual_seed(0)
    nn = torch.nn
    if conv:
        model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(16 * 13 * 13, 10))
        inputs = torch.from_numpy(np.ascontiguousarray(x.reshape(-1, 1, 28, 28)))
    else:
        model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
        inputs = torch.from_numpy(x)
    labels = torch.from_numpy(y.astype(np.int64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def epoch(count: int) -> None:
        for i in range(0, count, 128):
            optimizer.zero_grad()
            loss_fn(model(inputs[i:i + 128]), labels[i:i + 128]).backward()
            optimizer.step()

    epoch(256)  # warm up, as the kerasish rows do
    start = time.perf_counter()
    epoch(len(inputs))
    return time.perf_counter() - start


def gemm_floor(x) -> float:
    rng = np.random.default_rng(0)
    w1 = rng.normal(size=(784, 128)).astype(np.float32)
    w2 = rng.normal(size=(128, 10)).astype(np.float32)
    start = time.perf_counter()
    for i in range(0, len(x), 128):
        xb = x[i:i + 128]
        h = xb @ w1
        out = h @ w2
        dh = out @ w2.T
        _ = h.T @ out
        _ = xb.T @ dh
        _ = dh @ w1.T
    return time.perf_counter() - start


def mlp(args) -> dict:
    x, y, source = mnist_data(args.examples)
    times = {"kerasish eager": [], "kerasish compiled": [], "NumPy GEMM floor": []}
    cnn_times = {"kerasish eager": [], "kerasish compiled": []}
    for _ in range(args.mlp_rounds):
        times["kerasish eager"].append(mlp_epoch(x, y, True))
        times["kerasish compiled"].append(mlp_epoch(x, y, False))
        torch_mlp = torch_epoch(x, y, conv=False)
        if torch_mlp is not None:
            times.setdefault("PyTorch", []).append(torch_mlp)
        times["NumPy GEMM floor"].append(gemm_floor(x))
        cnn_x, cnn_y = x[:args.cnn_examples], y[:args.cnn_examples]
        cnn_times["kerasish eager"].append(cnn_epoch(cnn_x, cnn_y, True))
        cnn_times["kerasish compiled"].append(cnn_epoch(cnn_x, cnn_y, False))
        torch_cnn = torch_epoch(cnn_x, cnn_y, conv=True)
        if torch_cnn is not None:
            cnn_times.setdefault("PyTorch", []).append(torch_cnn)
    return {"times": times, "cnn": cnn_times, "source": source, "examples": len(x)}


# ---------------------------------------------------------------- report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20, help="Huber epochs per round")
    parser.add_argument("--rounds", type=int, default=5, help="Huber rounds (alternating)")
    parser.add_argument("--examples", type=int, default=12000, help="MLP epoch size")
    parser.add_argument("--cnn-examples", type=int, default=4000, help="CNN epoch size")
    parser.add_argument("--mlp-rounds", type=int, default=3)
    parser.add_argument("--tf-python", default="/tmp/kvenv/bin/python",
                        help="interpreter with TensorFlow for the TF rows ('' to skip)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_model()}, "
          f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    result = huber(args)
    eager = statistics.median(result["times"]["kerasish eager"])
    print(f"\nHuber step, {result['points']} points x {args.epochs} epochs x {args.rounds} "
          f"rounds (us per step; compiled weights equal eager: {result['same']}; "
          f"traces: {result['traces']}; TF {result['tf_version'] or 'not run'})")
    rows = []
    for name, values in result["times"].items():
        med = statistics.median(values)
        rows.append((name, min(values), med, med / eager))
        print(f"  {name:24s} best {min(values):8.1f}  median {med:8.1f}  "
              f"x eager {med / eager:5.2f}")
    result_mlp = mlp(args)
    floor = statistics.median(result_mlp["times"]["NumPy GEMM floor"])
    print(f"\nMLP epoch, {result_mlp['examples']} {result_mlp['source']} examples, batch 128 "
          "(seconds)")
    mlp_rows = []
    for name, values in result_mlp["times"].items():
        med = statistics.median(values)
        mlp_rows.append((name, min(values), med, med / floor))
        print(f"  {name:24s} best {min(values):8.3f}  median {med:8.3f}  "
              f"x floor {med / floor:5.2f}")
    cnn_eager = statistics.median(result_mlp["cnn"]["kerasish eager"])
    print(f"\nCNN epoch (Conv2D 16 3x3 relu, max pool, Dense 10), {args.cnn_examples} examples, "
          "batch 128 (seconds)")
    cnn_torch = (statistics.median(result_mlp["cnn"]["PyTorch"])
                 if "PyTorch" in result_mlp["cnn"] else float("nan"))
    cnn_rows = []
    for name, values in result_mlp["cnn"].items():
        med = statistics.median(values)
        cnn_rows.append((name, min(values), med, med / cnn_eager, med / cnn_torch))
        print(f"  {name:24s} best {min(values):8.3f}  median {med:8.3f}  "
              f"x eager {med / cnn_eager:5.2f}  x PyTorch {med / cnn_torch:5.2f}")
    if args.markdown:
        print("\n| Huber step | best us | median us | x eager |\n|---|---|---|---|")
        for name, best, med, ratio in rows:
            print(f"| {name} | {best:.1f} | {med:.1f} | {ratio:.2f} |")
        print("\n| MLP epoch | best s | median s | x GEMM floor |\n|---|---|---|---|")
        for name, best, med, ratio in mlp_rows:
            print(f"| {name} | {best:.3f} | {med:.3f} | {ratio:.2f} |")
        print("\n| CNN epoch | best s | median s | x eager | x PyTorch |\n|---|---|---|---|---|")
        for name, best, med, ratio, torch_ratio in cnn_rows:
            print(f"| {name} | {best:.3f} | {med:.3f} | {ratio:.2f} | {torch_ratio:.2f} |")


if __name__ == "__main__":
    main()
