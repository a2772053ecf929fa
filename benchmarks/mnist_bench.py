"""MNIST-format MLP and CNN: kerasish (GradientTape loop and model.fit) against PyTorch CPU.

Everything runs in one process, side by side, on the same data (Fashion-MNIST
from Debian's `dataset-fashion-mnist` by default: 60,000 training and 10,000
test images, scaled to [0, 1] float32), with the same architecture and the
same initial weights (kerasish's Glorot-uniform kernels and zero biases,
copied into the PyTorch modules, so both start from the same function):

- MLP 784-256-256-10 (ReLU), Adam(1e-3), batch 128, one epoch = 469 steps:
  seconds per epoch for (a) a kerasish GradientTape loop over a
  `ks.data.Dataset` (shuffled each epoch), (b) kerasish `model.fit`,
  (c) PyTorch's standard loop over a shuffled `DataLoader`, and (c') the same
  loop over a shuffled index permutation (no DataLoader: PyTorch's fastest
  plain loop), and (d) the pure-GEMM floor: the same 8 matrix products per
  step (3 forward, 5 backward: no gradient for the input images) with raw
  NumPy and with `torch.mm`, and nothing else. Test accuracy after 3 epochs
  for every trained model.
- CNN (the recipe's: conv32-pool-conv64-pool-dense128-dropout-10, 3x3 VALID
  convolutions, 2x2 max pooling), same optimizer and batch: seconds per epoch
  of the kerasish GradientTape loop against both PyTorch loops.
- Peak memory, measured in a fresh subprocess per variant (so one variant's
  high-water mark does not hide another's): the peak resident set size of the
  whole process (interpreter, libraries, the dataset), read from Linux's
  VmHWM (`resource.getrusage` ru_maxrss elsewhere; on Linux it would include
  the parent's peak from before the exec) after set-up and after one training
  epoch; and, for kerasish, the `tracemalloc` peak of one more epoch (Python
  objects and NumPy arrays, which NumPy reports to tracemalloc; PyTorch's
  tensors are invisible to tracemalloc).

Threads: by default every library gets ONE thread (OpenBLAS via threadpoolctl,
PyTorch via torch.set_num_threads): on a small shared machine, two threads per
library oversubscribe the cores and the timings scatter. `--threads 2` runs
both with two. The variants take turns within each repeat (the order rotates),
and the best of `--repeats` epochs is kept; the 1-minute load average is
recorded around every repeat. Wall time is what is compared; process CPU time
is shown next to it (it is less disturbed by other work on the machine).

Usage (from the repository root):

    python benchmarks/mnist_bench.py                  # MLP, accuracy, CNN, memory
    python benchmarks/mnist_bench.py --markdown       # plus a Markdown block
    python benchmarks/mnist_bench.py --skip-cnn --skip-memory --repeats 3   # quick
    python benchmarks/mnist_bench.py --threads 2

Targets (issues #3 and #5): kerasish tape loop <= 1.0x PyTorch's time per
epoch, fit <= 1.05x the tape loop, test accuracy after 3 epochs within 0.5
points of PyTorch's; CNN <= 1.5x PyTorch.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from _machine import cpu_model  # benchmarks/, the script's directory

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

BATCH = 128
LEARNING_RATE = 1e-3
ACCURACY_EPOCHS = 3
TAPE_TARGET = 1.0  # kerasish tape loop / PyTorch
FIT_TARGET = 1.05  # fit / tape loop
ACCURACY_TARGET = 0.5  # points
CNN_TARGET = 1.5  # kerasish CNN / PyTorch


# ---------------------------------------------------------------- set-up


def set_threads(n: int) -> dict:
    """Limit BLAS/OpenMP pools (threadpoolctl) and PyTorch to `n` threads; report them."""
    info = {"requested": n}
    try:
        from threadpoolctl import threadpool_info, threadpool_limits

        threadpool_limits(n)  # kept for the life of the process
        info["pools"] = [
            f"{p['internal_api']} {p.get('version') or ''} ({Path(p['filepath']).name}"
            + (f", {p['architecture']} kernels" if p.get("architecture") else "")
            + f"): {p['num_threads']} thread(s)"
            for p in threadpool_info()
        ]
    except ImportError:
        os.environ["OPENBLAS_NUM_THREADS"] = str(n)  # too late for a loaded OpenBLAS
        info["pools"] = ["threadpoolctl not installed (pip install threadpoolctl): "
                         "NumPy's BLAS threads are not controlled"]
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(n)
        info["torch"] = torch.get_num_threads()
    return info


def load_data(dataset: str, data_dir: str | None):
    """((x_train, y_train), (x_test, y_test)): float32 images in [0, 1], int32 labels."""
    from kerasish.datasets import fashion_mnist, mnist

    module = {"fashion_mnist": fashion_mnist, "mnist": mnist}[dataset]
    (x_train, y_train), (x_test, y_test) = module.load_data(data_dir)
    scale = np.float32(1.0 / 255.0)
    return ((x_train.astype(np.float32) * scale, y_train.astype(np.int32)),
            (x_test.astype(np.float32) * scale, y_test.astype(np.int32)))


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores"


def load1() -> float:
    return os.getloadavg()[0]


# ---------------------------------------------------------------- models


def ks_model(kind: str, seed: int):
    import kerasish as ks
    from recipes.mnist import build_model

    ks.random.set_seed(seed)
    model = build_model(kind)
    model.build((None, 28, 28))
    return model


def torch_model(kind: str):
    import torch.nn as nn

    if kind == "mlp":
        return nn.Sequential(
            nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
            nn.Linear(256, 10),
        )
    return nn.Sequential(
        nn.Unflatten(1, (1, 28)),  # (N, 28, 28) -> (N, 1, 28, 28), NCHW
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(1600, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10),
    )


def copy_weights(ks_net, torch_net) -> None:
    """Give the PyTorch module kerasish's initial weights (HWIO->OIHW, (in,out)->(out,in);
    the dense layer after Flatten has its rows permuted from HWC to CHW order)."""
    import torch

    ks_params = [v.numpy() for v in ks_net.trainable_variables]
    torch_params = [p for p in torch_net.parameters()]
    assert len(ks_params) == len(torch_params), (len(ks_params), len(torch_params))
    previous_conv_shape = None
    with torch.no_grad():
        for value, param in zip(ks_params, torch_params):
            if value.ndim == 4:  # conv kernel, HWIO
                value = value.transpose(3, 2, 0, 1)
                previous_conv_shape = True
            elif value.ndim == 2:  # dense kernel (in, out)
                if previous_conv_shape and value.shape[0] == 1600:
                    value = value.reshape(5, 5, 64, -1).transpose(2, 0, 1, 3).reshape(1600, -1)
                value = value.T
            param.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def check_same_function(ks_net, torch_net, x) -> float:
    """Largest |logit difference| of the two freshly initialized models on a batch."""
    import torch

    torch_net.eval()
    with torch.no_grad():
        expected = torch_net(torch.from_numpy(x)).numpy()
    torch_net.train()
    got = ks_net(x, training=False).numpy()
    return float(np.abs(got - expected).max())


# ---------------------------------------------------------------- one epoch of each variant


class KerasishTape:
    """The GradientTape loop of the seeds and the recipe, over a shuffled ks.data.Dataset."""

    name = "kerasish GradientTape loop"

    def __init__(self, kind, train, seed):
        import kerasish as ks

        self.ks = ks
        self.model = ks_model(kind, seed)
        self.optimizer = ks.optimizers.Adam(LEARNING_RATE)
        x, y = train
        self.data = ks.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=seed)
        self.data = self.data.batch(BATCH)
        self.limit = None

    def epoch(self):
        ks, model, optimizer = self.ks, self.model, self.optimizer
        for step, (xb, yb) in enumerate(self.data):
            if self.limit is not None and step >= self.limit:
                break
            with ks.GradientTape() as tape:
                logits = model(xb, training=True)
                loss = ks.reduce_mean(ks.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return float(loss)

    def accuracy(self, test):
        return ks_accuracy(self.model, test)


class KerasishFit(KerasishTape):
    name = "kerasish model.fit"

    def __init__(self, kind, train, seed):
        super().__init__(kind, train, seed)
        ks = self.ks
        self.model.compile(self.optimizer,
                           ks.losses.SparseCategoricalCrossentropy(from_logits=True))
        self.x, self.y = train

    def epoch(self):
        history = self.model.fit(self.x, self.y, batch_size=BATCH, epochs=1, shuffle=True,
                                 verbose=0)
        return history.history["loss"][-1]


def ks_accuracy(model, test) -> float:
    x, y = test
    correct = 0
    for start in range(0, len(x), 1000):
        logits = model(x[start : start + 1000], training=False).numpy()
        correct += int((logits.argmax(axis=1) == y[start : start + 1000]).sum())
    return correct / len(x)


class TorchLoop:
    """PyTorch's standard loop: DataLoader(TensorDataset, shuffle=True), zero_grad/backward/step."""

    name = "PyTorch loop, DataLoader"

    def __init__(self, kind, train, seed, ks_net):
        import torch

        self.torch = torch
        torch.manual_seed(seed)
        self.model = torch_model(kind)
        copy_weights(ks_net, self.model)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=LEARNING_RATE)
        self.x = torch.from_numpy(train[0])
        self.y = torch.from_numpy(train[1]).long()
        self.loader = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(self.x, self.y), batch_size=BATCH, shuffle=True
        )
        self.limit = None

    def batches(self):
        return self.loader

    def epoch(self):
        torch, model, optimizer = self.torch, self.model, self.optimizer
        cross_entropy = torch.nn.functional.cross_entropy
        model.train()
        for step, (xb, yb) in enumerate(self.batches()):
            if self.limit is not None and step >= self.limit:
                break
            optimizer.zero_grad()
            loss = cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
        return loss.item()

    def accuracy(self, test):
        torch = self.torch
        self.model.eval()
        with torch.no_grad():
            logits = self.model(torch.from_numpy(test[0])).numpy()
        self.model.train()
        return float((logits.argmax(axis=1) == test[1]).mean())


class TorchIndexLoop(TorchLoop):
    name = "PyTorch loop, index permutation"

    def batches(self):
        order = self.torch.randperm(len(self.x))
        for start in range(0, len(self.x), BATCH):
            index = order[start : start + BATCH]
            yield self.x[index], self.y[index]


class GemmFloor:
    """The MLP's 8 matrix products per step and nothing else (3 forward; backward: the
    weight gradients of 3 layers and the input gradients of layers 2 and 3)."""

    def __init__(self, train, use_torch: bool):
        rng = np.random.default_rng(0)
        shapes = [(784, 256), (256, 256), (256, 10)]
        self.w = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in shapes]
        self.x = train[0].reshape(len(train[0]), 784)
        self.use_torch = use_torch
        self.name = "GEMM floor, torch.mm" if use_torch else "GEMM floor, NumPy"
        if use_torch:
            import torch

            self.w = [torch.from_numpy(w) for w in self.w]
            self.x = torch.from_numpy(self.x)

    def epoch(self):
        w1, w2, w3 = self.w
        x = self.x
        for start in range(0, len(x), BATCH):
            xb = x[start : start + BATCH]
            h1 = xb @ w1
            h2 = h1 @ w2
            out = h2 @ w3  # stands in for d(loss)/d(logits): same shape
            _ = h2.T @ out
            d2 = out @ w3.T
            _ = h1.T @ d2
            d1 = d2 @ w2.T
            _ = xb.T @ d1
        return 0.0


# ---------------------------------------------------------------- timing


def timed(variant) -> tuple[float, float]:
    """(wall s, process CPU s) for one epoch."""
    wall, cpu = time.perf_counter(), time.process_time()
    variant.epoch()
    return time.perf_counter() - wall, time.process_time() - cpu


def run_rounds(variants: dict, repeats: int, after_epoch=None, log=print) -> dict:
    """Best (min) wall and CPU seconds per variant over `repeats` epochs, taking turns."""
    names = list(variants)
    results = {n: {"wall": [], "cpu": []} for n in names}
    loads = []
    for r in range(repeats):
        order = names[r % len(names):] + names[: r % len(names)]
        loads.append(load1())
        for name in order:
            wall, cpu = timed(variants[name])
            results[name]["wall"].append(wall)
            results[name]["cpu"].append(cpu)
        loads.append(load1())
        log(f"  repeat {r + 1}/{repeats} (load {loads[-2]:.2f} -> {loads[-1]:.2f}): "
            + ", ".join(f"{n} {results[n]['wall'][-1]:.2f}s" for n in names))
        if after_epoch is not None:
            after_epoch(r + 1)
    for name in names:
        results[name]["best_wall"] = min(results[name]["wall"])
        results[name]["best_cpu"] = min(results[name]["cpu"])
    results["_load"] = (min(loads), max(loads))
    return results


# ---------------------------------------------------------------- memory (subprocess per variant)


def _proc_status(field: str):
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0), so the next peak is the epoch's own."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def peak_rss_mib() -> tuple[float, str]:
    """This process's peak resident set size in MiB, and where it was read.

    Linux's VmHWM (/proc/self/status) belongs to this program's address space;
    getrusage's ru_maxrss would also count a parent's peak from before the
    exec that started this process, so it is only the fallback.
    """
    hwm = _proc_status("VmHWM")
    if hwm is not None:
        return hwm, "VmHWM"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "ru_maxrss"


def memory_child(variant: str, kind: str, args) -> dict:
    """Runs in a fresh process: maxrss after set-up and after one epoch; tracemalloc peak of a
    second epoch for kerasish variants."""
    threads = set_threads(args.threads)
    train, _ = load_data(args.dataset, args.data_dir)
    if variant.startswith("torch"):
        import torch  # noqa: F401

        set_threads(args.threads)
        ks_net = ks_model(kind, args.seed)
        cls = TorchIndexLoop if variant == "torch_index" else TorchLoop
        runner = cls(kind, train, args.seed, ks_net)
        del ks_net
    else:
        cls = KerasishFit if variant == "ks_fit" else KerasishTape
        runner = cls(kind, train, args.seed)
    if args.cnn_steps and kind == "cnn":
        runner.limit = args.cnn_steps
        if variant == "ks_fit":
            raise SystemExit("--cnn-steps does not apply to fit")
    gc.collect()
    setup_peak, source = peak_rss_mib()
    setup = _proc_status("VmRSS") or setup_peak
    reset = reset_peak_rss()
    runner.epoch()
    peak, _ = peak_rss_mib()
    result = {"setup_peak_mib": setup_peak, "setup_mib": setup, "peak_mib": peak,
              "rss_source": source + (" reset after set-up" if reset else ""), "threads": threads}
    if not variant.startswith("torch"):
        gc.collect()
        tracemalloc.start()
        start, _ = tracemalloc.get_traced_memory()
        runner.epoch()
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result["tracemalloc_peak_mib"] = (top - start) / 2**20
    return result


def measure_memory(args, log) -> dict:
    runs = [("mlp", v) for v in ("ks_tape", "ks_fit", "torch", "torch_index")]
    if not args.skip_cnn:
        runs += [("cnn", "ks_tape"), ("cnn", "torch")]
    results = {}
    for kind, variant in runs:
        command = [sys.executable, str(Path(__file__).resolve()), "--memory-child", variant,
                   "--memory-kind", kind, "--threads", str(args.threads), "--seed", str(args.seed),
                   "--dataset", args.dataset]
        if args.data_dir:
            command += ["--data-dir", args.data_dir]
        if args.cnn_steps:
            command += ["--cnn-steps", str(args.cnn_steps)]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            log(f"  memory {kind} {variant}: failed\n{done.stderr[-2000:]}")
            continue
        results[f"{kind}/{variant}"] = json.loads(done.stdout.strip().splitlines()[-1])
        r = results[f"{kind}/{variant}"]
        extra = (f", tracemalloc peak {r['tracemalloc_peak_mib']:.1f} MiB"
                 if "tracemalloc_peak_mib" in r else "")
        log(f"  memory {kind} {variant}: RSS {r['setup_mib']:.0f} MiB after set-up (peak so far "
            f"{r['setup_peak_mib']:.0f}), peak {r['peak_mib']:.0f} MiB during an epoch "
            f"(+{r['peak_mib'] - r['setup_mib']:.0f}){extra}")
    return results


# ---------------------------------------------------------------- report


def ratio_line(label, value, target) -> str:
    verdict = "met" if value <= target else "MISSED"
    return f"{label}: {value:.2f}x (target <= {target:.2f}x): {verdict}"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed MLP epochs per variant "
                        f"(>= {ACCURACY_EPOCHS}: accuracy is taken after epoch {ACCURACY_EPOCHS})")
    parser.add_argument("--cnn-repeats", type=int, default=2, help="timed CNN epochs per variant")
    parser.add_argument("--cnn-steps", type=int, default=None,
                        help="time only the first N batches of each CNN epoch (quick runs; "
                        "a few batches are dominated by first-call warm-up)")
    parser.add_argument("--threads", type=int, default=1, help="threads for every library")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dataset", choices=("fashion_mnist", "mnist"), default="fashion_mnist")
    parser.add_argument("--data-dir", default=None, help="a directory with the four IDX files")
    parser.add_argument("--skip-cnn", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown block")
    parser.add_argument("--json", default=None, help="write all figures to this JSON file")
    parser.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--memory-kind", default="mlp", help=argparse.SUPPRESS)
    parser.add_argument("--openblas-coretype", default=None, metavar="NAME",
                        help="run with OPENBLAS_CORETYPE=NAME, the OpenBLAS kernels to use "
                        "(e.g. SkylakeX for AVX-512 where the environment pins Haswell)")
    args = parser.parse_args(argv)
    if args.openblas_coretype and os.environ.get("OPENBLAS_CORETYPE") != args.openblas_coretype:
        # OpenBLAS reads it when NumPy loads it: start again with it set (memory children too)
        os.environ["OPENBLAS_CORETYPE"] = args.openblas_coretype
        os.execv(sys.executable, [sys.executable, str(Path(__file__).resolve())]
                 + (sys.argv[1:] if argv is None else list(argv)))

    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.memory_kind, args)))
        return {}

    import torch

    log = print
    threads = set_threads(args.threads)
    (x_train, y_train), test = load_data(args.dataset, args.data_dir)
    train = (x_train, y_train)
    report: dict = {
        "date": time.strftime("%Y-%m-%d"), "machine": machine(),
        "python": platform.python_version(), "numpy": np.__version__,
        "torch": torch.__version__, "dataset": args.dataset, "threads": threads,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
        "command": "python benchmarks/mnist_bench.py " + " ".join(sys.argv[1:] if argv is None
                                                                   else argv),
    }
    log(f"{report['machine']}; Python {report['python']}, NumPy {report['numpy']}, "
        f"torch {report['torch']}")
    log("threads: " + "; ".join(threads["pools"]) + f"; torch.get_num_threads() = "
        f"{threads.get('torch')}")

    # ---- MLP
    log(f"\nMLP 784-256-256-10, Adam {LEARNING_RATE:g}, batch {BATCH}, {len(x_train)} images "
        f"per epoch, best of {args.repeats}:")
    ks_tape = KerasishTape("mlp", train, args.seed)
    ks_fit = KerasishFit("mlp", train, args.seed)
    torch_dl = TorchLoop("mlp", train, args.seed, ks_tape.model)
    torch_ix = TorchIndexLoop("mlp", train, args.seed, ks_tape.model)
    report["mlp_initial_logit_max_abs_diff"] = check_same_function(
        ks_tape.model, torch_dl.model, x_train[:256])
    variants = {
        "ks_tape": ks_tape, "ks_fit": ks_fit, "torch": torch_dl, "torch_index": torch_ix,
        "gemm_numpy": GemmFloor(train, False), "gemm_torch": GemmFloor(train, True),
    }
    accuracy = {}

    def after_epoch(epoch):
        if epoch == ACCURACY_EPOCHS:
            for name in ("ks_tape", "ks_fit", "torch", "torch_index"):
                accuracy[name] = variants[name].accuracy(test)
            log("  test accuracy after 3 epochs: "
                + ", ".join(f"{n} {a:.4f}" for n, a in accuracy.items()))

    mlp = run_rounds(variants, args.repeats, after_epoch, log)
    report["mlp"] = {n: {k: v for k, v in r.items()} for n, r in mlp.items() if n != "_load"}
    report["mlp_load"] = mlp["_load"]
    report["mlp_accuracy_3_epochs"] = accuracy
    torch_best = min(mlp["torch"]["best_wall"], mlp["torch_index"]["best_wall"])
    report["mlp_ratios"] = {
        "tape_vs_torch_fastest": mlp["ks_tape"]["best_wall"] / torch_best,
        "tape_vs_torch_dataloader": mlp["ks_tape"]["best_wall"] / mlp["torch"]["best_wall"],
        "fit_vs_tape": mlp["ks_fit"]["best_wall"] / mlp["ks_tape"]["best_wall"],
        "tape_vs_gemm_numpy": mlp["ks_tape"]["best_wall"] / mlp["gemm_numpy"]["best_wall"],
        "torch_fastest_vs_gemm_torch": torch_best / mlp["gemm_torch"]["best_wall"],
    }
    if accuracy:
        report["mlp_accuracy_gap_points"] = 100 * (
            max(accuracy["torch"], accuracy["torch_index"])
            - min(accuracy["ks_tape"], accuracy["ks_fit"])
        )

    # ---- CNN
    if not args.skip_cnn:
        steps = f"first {args.cnn_steps} batches of " if args.cnn_steps else ""
        log(f"\nCNN (recipe architecture), {steps}an epoch, best of {args.cnn_repeats}:")
        cnn_tape = KerasishTape("cnn", train, args.seed)
        cnn_torch = TorchLoop("cnn", train, args.seed, cnn_tape.model)
        cnn_torch_ix = TorchIndexLoop("cnn", train, args.seed, cnn_tape.model)
        report["cnn_initial_logit_max_abs_diff"] = check_same_function(
            cnn_tape.model, cnn_torch.model, x_train[:64])
        cnn_variants = {"ks_tape": cnn_tape, "torch": cnn_torch, "torch_index": cnn_torch_ix}
        for v in cnn_variants.values():
            v.limit = args.cnn_steps
        cnn = run_rounds(cnn_variants, args.cnn_repeats, None, log)
        report["cnn"] = {n: r for n, r in cnn.items() if n != "_load"}
        report["cnn_load"] = cnn["_load"]
        report["cnn_steps"] = args.cnn_steps
        torch_cnn = min(cnn["torch"]["best_wall"], cnn["torch_index"]["best_wall"])
        report["cnn_ratios"] = {
            "tape_vs_torch_fastest": cnn["ks_tape"]["best_wall"] / torch_cnn,
            "tape_vs_torch_dataloader": cnn["ks_tape"]["best_wall"] / cnn["torch"]["best_wall"],
        }
        report["cnn_accuracy"] = {n: v.accuracy(test) for n, v in cnn_variants.items()}
        log(f"  test accuracy after {args.cnn_repeats} epoch(s): "
            + ", ".join(f"{n} {a:.4f}" for n, a in report["cnn_accuracy"].items()))

    # ---- memory
    if not args.skip_memory:
        log("\nPeak memory (fresh subprocess per variant):")
        report["memory"] = measure_memory(args, log)

    print_summary(report, log)
    if args.markdown:
        print_markdown(report, args, log)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return report


NAMES = {
    "ks_tape": "kerasish GradientTape loop (ks.data.Dataset)",
    "ks_fit": "kerasish model.fit",
    "torch": "PyTorch loop, DataLoader(shuffle=True)",
    "torch_index": "PyTorch loop, randperm indexing",
    "gemm_numpy": "GEMM floor: NumPy (8 products/step)",
    "gemm_torch": "GEMM floor: torch.mm (8 products/step)",
}


def print_summary(report, log) -> None:
    mlp, ratios = report["mlp"], report["mlp_ratios"]
    log("\n=== MLP seconds per epoch (best wall; best CPU) ===")
    for name, r in mlp.items():
        log(f"  {NAMES[name]:48s} {r['best_wall']:6.3f} s   cpu {r['best_cpu']:6.3f} s")
    log("  " + ratio_line("tape loop / fastest PyTorch loop", ratios["tape_vs_torch_fastest"],
                          TAPE_TARGET))
    log(f"  tape loop / PyTorch DataLoader loop: {ratios['tape_vs_torch_dataloader']:.2f}x")
    log("  " + ratio_line("fit / tape loop", ratios["fit_vs_tape"], FIT_TARGET))
    log(f"  tape loop / NumPy GEMM floor: {ratios['tape_vs_gemm_numpy']:.2f}x; fastest PyTorch "
        f"/ torch.mm floor: {ratios['torch_fastest_vs_gemm_torch']:.2f}x")
    if "mlp_accuracy_gap_points" in report:
        gap = report["mlp_accuracy_gap_points"]
        verdict = "met" if gap <= ACCURACY_TARGET else "MISSED"
        log("  test accuracy after 3 epochs: "
            + ", ".join(f"{n} {a:.4f}" for n, a in report["mlp_accuracy_3_epochs"].items())
            + f"; worst kerasish is {gap:+.2f} points below the best PyTorch "
            f"(target <= {ACCURACY_TARGET}): {verdict}")
    log(f"  load average (1 min) during MLP rounds: {report['mlp_load'][0]:.2f}-"
        f"{report['mlp_load'][1]:.2f}")
    if "cnn" in report:
        log("\n=== CNN seconds per epoch (best wall; best CPU) ===")
        for name, r in report["cnn"].items():
            log(f"  {NAMES[name]:48s} {r['best_wall']:6.3f} s   cpu {r['best_cpu']:6.3f} s")
        log("  " + ratio_line("kerasish / fastest PyTorch loop",
                              report["cnn_ratios"]["tape_vs_torch_fastest"], CNN_TARGET))
        log(f"  load average (1 min) during CNN rounds: {report['cnn_load'][0]:.2f}-"
            f"{report['cnn_load'][1]:.2f}")


def print_markdown(report, args, log) -> None:
    mlp, ratios = report["mlp"], report["mlp_ratios"]
    lines = [
        "",
        f"- **Date:** {report['date']}",
        f"- **Machine:** {report['machine']}; Python {report['python']}, NumPy "
        f"{report['numpy']}, torch {report['torch']}",
        "- **Threads:** " + "; ".join(report["threads"]["pools"])
        + f"; `torch.get_num_threads()` = {report['threads'].get('torch')}",
        f"- **Command:** `{report['command']}`"
        + (f" (ran with `OPENBLAS_CORETYPE={report['openblas_coretype']}`)"
           if report.get("openblas_coretype") else ""),
        f"- **Load (1-min average) while timing:** MLP {report['mlp_load'][0]:.2f}-"
        f"{report['mlp_load'][1]:.2f}"
        + (f", CNN {report['cnn_load'][0]:.2f}-{report['cnn_load'][1]:.2f}" if "cnn" in report
           else ""),
        "",
        f"MLP 784-256-256-10, one epoch of 60,000 images (469 steps), best of {args.repeats}:",
        "",
        "| variant | s/epoch (wall) | s/epoch (CPU) | vs fastest PyTorch |",
        "|---|---|---|---|",
    ]
    torch_best = min(mlp["torch"]["best_wall"], mlp["torch_index"]["best_wall"])
    for name, r in mlp.items():
        lines.append(f"| {NAMES[name]} | {r['best_wall']:.3f} | {r['best_cpu']:.3f} | "
                     f"{r['best_wall'] / torch_best:.2f}x |")
    acc = report.get("mlp_accuracy_3_epochs", {})
    lines += [
        "",
        f"- tape loop / fastest PyTorch loop: **{ratios['tape_vs_torch_fastest']:.2f}x** "
        f"(target <= {TAPE_TARGET}); vs the DataLoader loop "
        f"{ratios['tape_vs_torch_dataloader']:.2f}x",
        f"- fit / tape loop: **{ratios['fit_vs_tape']:.2f}x** (target <= {FIT_TARGET})",
        f"- tape loop / NumPy GEMM floor: {ratios['tape_vs_gemm_numpy']:.2f}x",
    ]
    if acc:
        lines.append(
            "- test accuracy after 3 epochs: " + ", ".join(f"{NAMES[n]} {a:.4f}"
                                                         for n, a in acc.items())
            + f"; gap {report['mlp_accuracy_gap_points']:+.2f} points (target <= 0.5)"
        )
    if "cnn" in report:
        steps = f" (first {report['cnn_steps']} batches)" if report["cnn_steps"] else ""
        lines += ["", f"CNN{steps}, best of {args.cnn_repeats}:", "",
                  "| variant | s/epoch (wall) | s/epoch (CPU) | vs fastest PyTorch |",
                  "|---|---|---|---|"]
        cnn = report["cnn"]
        best = min(cnn["torch"]["best_wall"], cnn["torch_index"]["best_wall"])
        for name, r in cnn.items():
            lines.append(f"| {NAMES[name]} | {r['best_wall']:.2f} | {r['best_cpu']:.2f} | "
                         f"{r['best_wall'] / best:.2f}x |")
    if "memory" in report:
        lines += ["", "Memory, a fresh process per variant: resident set size of the whole "
                  "process (Linux VmRSS after set-up; VmHWM, reset after set-up, for the peak "
                  "during one epoch) and, for kerasish, the tracemalloc peak of Python objects "
                  "and NumPy arrays allocated during one more epoch:", "",
                  "| model / variant | RSS after set-up (MiB) | peak RSS during an epoch (MiB) | "
                  "increase | tracemalloc peak (MiB) |", "|---|---|---|---|---|"]
        for key, r in report["memory"].items():
            kind, variant = key.split("/")
            tm = f"{r['tracemalloc_peak_mib']:.1f}" if "tracemalloc_peak_mib" in r else "n/a"
            lines.append(f"| {kind} / {NAMES[variant]} | {r['setup_mib']:.0f} | "
                         f"{r['peak_mib']:.0f} | +{r['peak_mib'] - r['setup_mib']:.0f} | {tm} |")
    log("\n".join(lines))


if __name__ == "__main__":
    main()
