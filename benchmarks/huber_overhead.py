"""Eager overhead: per-example Huber SGD (the seeds' demonstration) and per-op cost.

Reproduces the overhead demonstration of the seeds: a linear model
`y_pred = x * w + b` fitted to 190 (birth rate, life expectancy) points with
the Python-`if` Huber loss, one example per step (one tape, one `gradient`,
one two-variable update), for 100 epochs. kerasish and PyTorch (CPU, one
thread) run side by side in the same process, on the same float32 data, in
the same order; both frameworks' inputs are converted to tensors before the
clock starts (as a tf.data iterator would hand them over), so the figures
measure the step, not the conversion.

Second part: the cost of one op with no tape active against the raw NumPy
call it wraps, and the same op with a tape active (inputs not watched, and
inputs watched so the op is recorded).

Usage (from the repository root):

    python benchmarks/huber_overhead.py                    # table and ratios
    python benchmarks/huber_overhead.py --markdown         # plus a Markdown block
    python benchmarks/huber_overhead.py --phases           # plus a kerasish step by phase
    python benchmarks/huber_overhead.py --profile 10       # cProfile of the kerasish loop
    python benchmarks/huber_overhead.py --gc               # cyclic GC left on while timing

Targets (issue #2): kerasish <= 0.7x PyTorch's time per step; an op with no
tape active < 3 us above the raw NumPy call.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import os
import platform
import pstats
import sys
import time
import timeit
from pathlib import Path

import numpy as np
from _machine import cpu_model  # benchmarks/, the script's directory

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

import kerasish as ks  # noqa: E402

DATA_FILE = Path(os.environ.get("BIRTH_LIFE_FILE", ROOT.parent / "shared/data/birth_life_2010.txt"))
N_POINTS = 190
DELTA = 1.0  # the Huber threshold m
LEARNING_RATE = 0.001
STEP_TARGET = 0.7  # kerasish time per step / PyTorch time per step
OP_TARGET_US = 3.0  # kerasish op (no tape) minus raw NumPy, in microseconds


# ---------------------------------------------------------------- data


def load_data() -> tuple[np.ndarray, np.ndarray, str]:
    """(x, y) as float32 arrays of 190 points, and a description of where they came from."""
    if DATA_FILE.exists():
        rows = DATA_FILE.read_text().strip().splitlines()[1:]  # skip the header line
        pairs = [line.split("\t")[1:3] for line in rows]
        data = np.asarray(pairs, dtype=np.float32)
        return data[:, 0], data[:, 1], f"{DATA_FILE.name} ({len(data)} rows)"
    # Deterministic stand-in with the same shape: life ~ 85 - 6 * birth + noise, a few outliers.
    rng = np.random.default_rng(2010)
    x = rng.uniform(1.0, 7.0, N_POINTS).astype(np.float32)
    y = (85.0 - 6.0 * x + rng.normal(0.0, 3.0, N_POINTS)).astype(np.float32)
    y[rng.choice(N_POINTS, 10, replace=False)] -= 25.0
    return x, y, f"synthetic ({N_POINTS} points with outliers; {DATA_FILE} not found)"


# ---------------------------------------------------------------- kerasish


class KerasishHuber:
    """The seeds' eager training loop, translated to kerasish."""

    def __init__(self, xs: np.ndarray, ys: np.ndarray, lr: float):
        self.lr = lr
        self.w = ks.Variable(0.0, name="weights")
        self.b = ks.Variable(0.0, name="bias")
        # pre-converted float32 scalars, as a dataset iterator would hand them over
        self.data = [(ks.constant(x), ks.constant(y)) for x, y in zip(xs, ys, strict=True)]
        w, b = self.w, self.b

        def prediction(x):
            return x * w + b

        def huber_loss(y, y_predicted, m=DELTA):
            t = y - y_predicted
            return t**2 if abs(t) <= m else m * (2 * abs(t) - m)

        def loss_for_example(x, y):
            return huber_loss(y, prediction(x))

        self.loss_for_example = loss_for_example
        self.grad_fn = ks.implicit_value_and_gradients(loss_for_example)

    def reset(self) -> None:
        self.w.assign(0.0)
        self.b.assign(0.0)

    def run_implicit(self, epochs: int) -> float:
        """`implicit_value_and_gradients` + `assign_sub`, as the seeds write it."""
        grad_fn, lr, data = self.grad_fn, self.lr, self.data
        loss = None
        for _ in range(epochs):
            for x, y in data:
                loss, grads_and_vars = grad_fn(x, y)
                for g, v in grads_and_vars:
                    v.assign_sub(lr * g)
        return float(loss)

    def run_tape(self, epochs: int) -> float:
        """The explicit-tape form of the same step."""
        loss_for_example, lr, data, w, b = self.loss_for_example, self.lr, self.data, self.w, self.b
        loss = None
        for _ in range(epochs):
            for x, y in data:
                with ks.GradientTape() as tape:
                    loss = loss_for_example(x, y)
                dw, db = tape.gradient(loss, [w, b])
                w.assign_sub(lr * dw)
                b.assign_sub(lr * db)
        return float(loss)

    def params(self) -> tuple[float, float]:
        return float(self.w), float(self.b)


# ---------------------------------------------------------------- PyTorch


class TorchHuber:
    """The same loop in PyTorch (CPU, one thread), written as idiomatically."""

    def __init__(self, torch, xs: np.ndarray, ys: np.ndarray, lr: float):
        self.torch = torch
        self.lr = lr
        self.w = torch.zeros((), dtype=torch.float32, requires_grad=True)
        self.b = torch.zeros((), dtype=torch.float32, requires_grad=True)
        self.data = [
            (torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))
            for x, y in zip(xs, ys, strict=True)
        ]
        w, b = self.w, self.b

        def huber_loss(y, y_predicted, m=DELTA):
            t = y - y_predicted
            return t**2 if abs(t) <= m else m * (2 * abs(t) - m)

        def loss_for_example(x, y):
            return huber_loss(y, x * w + b)

        self.loss_for_example = loss_for_example

    def reset(self) -> None:
        with self.torch.no_grad():
            self.w.zero_()
            self.b.zero_()
        self.w.grad = None
        self.b.grad = None

    def run_autograd_grad(self, epochs: int) -> float:
        """`torch.autograd.grad` (the tape.gradient analogue) and in-place updates."""
        torch, lr, data, w, b = self.torch, self.lr, self.data, self.w, self.b
        loss_for_example = self.loss_for_example
        grad = torch.autograd.grad
        loss = None
        for _ in range(epochs):
            for x, y in data:
                loss = loss_for_example(x, y)
                dw, db = grad(loss, (w, b))
                with torch.no_grad():
                    w.sub_(lr * dw)
                    b.sub_(lr * db)
        return loss.item()

    def run_backward(self, epochs: int) -> float:
        """`loss.backward()`, in-place updates, gradients reset to None."""
        torch, lr, data, w, b = self.torch, self.lr, self.data, self.w, self.b
        loss_for_example = self.loss_for_example
        loss = None
        for _ in range(epochs):
            for x, y in data:
                loss = loss_for_example(x, y)
                loss.backward()
                with torch.no_grad():
                    w.sub_(lr * w.grad)
                    b.sub_(lr * b.grad)
                w.grad = None
                b.grad = None
        return loss.item()

    def params(self) -> tuple[float, float]:
        return self.w.item(), self.b.item()


def import_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or parallel work has started
        pass
    return torch


# ---------------------------------------------------------------- step benchmark


@contextlib.contextmanager
def collector(keep: bool):
    """Collect garbage first, then keep the cyclic GC off while timing (as timeit does)."""
    gc.collect()
    enabled = gc.isenabled()
    if not keep:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def time_loop(reset, run, epochs: int, keep_gc: bool = False) -> tuple[float, float]:
    reset()
    with collector(keep_gc):
        start = time.perf_counter()
        loss = run(epochs)
        elapsed = time.perf_counter() - start
    return elapsed, loss


def step_benchmark(epochs: int, repeats: int, lr: float, torch, keep_gc: bool = False) -> dict:
    xs, ys, source = load_data()
    steps = epochs * len(xs)
    kh = KerasishHuber(xs, ys, lr)
    variants = [
        ("kerasish implicit_value_and_gradients", kh, kh.run_implicit),
        ("kerasish GradientTape", kh, kh.run_tape),
    ]
    if torch is not None:
        th = TorchHuber(torch, xs, ys, lr)
        variants += [
            ("PyTorch autograd.grad", th, th.run_autograd_grad),
            ("PyTorch loss.backward()", th, th.run_backward),
        ]
    # one short warm-up epoch each, then interleave the variants in every repeat
    for _, model, run in variants:
        time_loop(model.reset, run, 1)
    best = {name: float("inf") for name, _, _ in variants}
    final = {}
    for _ in range(repeats):
        for name, model, run in variants:
            seconds, loss = time_loop(model.reset, run, epochs, keep_gc)
            best[name] = min(best[name], seconds)
            final[name] = (*model.params(), loss)
    return {"source": source, "steps": steps, "epochs": epochs, "best": best, "final": final}


def cycles_per_step(epochs: int = 1) -> float:
    """Objects the kerasish step leaves in reference cycles (freed only by the cyclic GC)."""
    xs, ys, _ = load_data()
    kh = KerasishHuber(xs, ys, LEARNING_RATE)
    kh.run_implicit(1)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        kh.run_implicit(epochs)
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    return found / (epochs * len(xs))


def agreement(final: dict) -> tuple[float, bool]:
    """Largest relative difference of any variant's final (w, b) from the first variant's."""
    values = np.asarray([v[:2] for v in final.values()], dtype=np.float64)
    ref = values[0]
    rel = np.max(np.abs(values - ref) / np.maximum(np.abs(ref), 1e-12))
    return float(rel), bool(rel <= 1e-3)


# ---------------------------------------------------------------- per-op overhead


def op_cases(torch):
    """(namespace, [(name, NumPy statement, kerasish statement, torch statement), ...])."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 2)).astype(np.float32)
    c = rng.standard_normal((2, 2)).astype(np.float32)
    a0, c0 = np.array(2.0, dtype=np.float32), np.array(3.0, dtype=np.float32)
    ns = {"np": np, "ks": ks, "a": a, "c": c, "x": ks.constant(a), "y": ks.constant(c)}
    ns.update(a0=a0, c0=c0, x0=ks.constant(a0), y0=ks.constant(c0))
    if torch is not None:
        ns.update(torch=torch, ta=torch.from_numpy(a.copy()), tc=torch.from_numpy(c.copy()))
        ns.update(ta0=torch.tensor(2.0), tc0=torch.tensor(3.0))
    return ns, [
        ("add (2x2 + 2x2)", "a + c", "x + y", "ta + tc"),
        ("ks.add (2x2, 2x2)", "np.add(a, c)", "ks.add(x, y)", "torch.add(ta, tc)"),
        ("multiply by float (2x2 * 2.0)", "a * 2.0", "x * 2.0", "ta * 2.0"),
        ("matmul 2x2", "a @ c", "x @ y", "ta @ tc"),
        ("ks.matmul 2x2", "np.matmul(a, c)", "ks.matmul(x, y)", "torch.matmul(ta, tc)"),
        ("reduce_sum (2x2 -> scalar)", "a.sum()", "ks.reduce_sum(x)", "ta.sum()"),
        ("exp (2x2)", "np.exp(a)", "ks.exp(x)", "torch.exp(ta)"),
        ("multiply 0-d scalars (as in the Huber step)", "a0 * c0", "x0 * y0", "ta0 * tc0"),
    ]


def _per_call_us(stmt: str, ns: dict, number: int, repeats: int, setup: str = "pass") -> float:
    timer = timeit.Timer(stmt, setup=setup, globals=ns)
    return min(timer.repeat(repeat=repeats, number=number)) / number * 1e6


WATCHED = ("x", "y", "x0", "y0")  # the kerasish inputs of the per-op statements


def _recorded_us(stmt: str, ns: dict, number: int, repeats: int, per_tape: int = 50) -> float:
    """Per-call time with a tape watching the inputs, so that every call is recorded.

    A fresh tape is opened every `per_tape` calls (a training step records a
    few dozen ops, not tens of thousands); only the calls themselves are timed,
    through an eval() harness whose own cost `_harness_us` measures.
    """
    code = compile(stmt, "<op>", "eval")
    rounds = max(number // per_tape, 1)
    best = float("inf")
    for _ in range(repeats):
        local = dict(ns)
        elapsed = 0.0
        with collector(False):
            for _ in range(rounds):
                with ks.GradientTape(persistent=True) as tape:
                    tape.watch([local[k] for k in WATCHED])
                    start = time.perf_counter()
                    for _ in range(per_tape):
                        eval(code, local)  # noqa: S307 - fixed benchmark statements
                    elapsed += time.perf_counter() - start
        best = min(best, elapsed)
    return best / (rounds * per_tape) * 1e6


def _harness_us(ns: dict, number: int, repeats: int, per_tape: int = 50) -> float:
    """The cost of `_recorded_us`'s eval() loop around a statement that does nothing."""
    code = compile("x", "<op>", "eval")
    rounds = max(number // per_tape, 1)
    best = float("inf")
    for _ in range(repeats):
        local = dict(ns)
        elapsed = 0.0
        with collector(False):
            for _ in range(rounds):
                start = time.perf_counter()
                for _ in range(per_tape):
                    eval(code, local)  # noqa: S307
                elapsed += time.perf_counter() - start
        best = min(best, elapsed)
    return best / (rounds * per_tape) * 1e6


def op_benchmark(number: int, repeats: int, torch) -> list[dict]:
    ns, cases = op_cases(torch)
    harness_us = _harness_us(ns, number, repeats)
    rows = []
    for name, np_stmt, ks_stmt, torch_stmt in cases:
        row = {"op": name, "kerasish": ks_stmt}
        row["numpy"] = _per_call_us(np_stmt, ns, number, repeats)
        row["no_tape"] = _per_call_us(ks_stmt, ns, number, repeats)
        outer = ks.GradientTape()
        outer.__enter__()
        try:
            row["tape_unwatched"] = _per_call_us(ks_stmt, ns, number, repeats)
        finally:
            outer.__exit__(None, None, None)
        row["tape_recorded"] = _recorded_us(ks_stmt, ns, number, repeats) - harness_us
        if torch is not None:
            row["torch"] = _per_call_us(torch_stmt, ns, number, repeats)
            ns_grad = dict(ns)
            for k in ("ta", "tc", "ta0", "tc0"):
                ns_grad[k] = ns[k].clone().requires_grad_(True)
            row["torch_grad"] = _per_call_us(torch_stmt, ns_grad, number, repeats)
        rows.append(row)
    return rows


# ---------------------------------------------------------------- phases


def phases(epochs: int, lr: float) -> dict:
    """Where a tape-form step's time goes: forward (with tape), gradient, update (us/step).

    Each phase is timed with perf_counter around it, so the figures include a
    little timer overhead (about 0.1 us each); 'forward, no tape' runs the same
    loss once more without a tape for comparison.
    """
    xs, ys, _ = load_data()
    kh = KerasishHuber(xs, ys, lr)
    f, data, w, b = kh.loss_for_example, kh.data, kh.w, kh.b
    clock = time.perf_counter
    best = None
    for _ in range(3):
        kh.reset()
        totals = [0.0, 0.0, 0.0, 0.0]
        with collector(False):
            for _ in range(epochs):
                for x, y in data:
                    t0 = clock()
                    f(x, y)
                    t1 = clock()
                    with ks.GradientTape() as tape:
                        loss = f(x, y)
                    t2 = clock()
                    dw, db = tape.gradient(loss, [w, b])
                    t3 = clock()
                    w.assign_sub(lr * dw)
                    b.assign_sub(lr * db)
                    t4 = clock()
                    totals[0] += t1 - t0
                    totals[1] += t2 - t1
                    totals[2] += t3 - t2
                    totals[3] += t4 - t3
        if best is None or sum(totals[1:]) < sum(best[1:]):
            best = totals
    steps = epochs * len(data)
    names = (
        "forward, no tape",
        "tape + forward (recorded)",
        "tape.gradient",
        "2 x (lr * g, assign_sub)",
    )
    return {n: t / steps * 1e6 for n, t in zip(names, best, strict=True)}


# ---------------------------------------------------------------- profile


def profile(epochs: int, lr: float, form: str = "implicit", top: int = 25) -> str:
    xs, ys, _ = load_data()
    kh = KerasishHuber(xs, ys, lr)
    run = kh.run_implicit if form == "implicit" else kh.run_tape
    kh.reset()
    run(1)  # warm-up
    kh.reset()
    profiler = cProfile.Profile()
    profiler.enable()
    run(epochs)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime")
    steps = epochs * len(xs)
    out.write(f"cProfile of {steps} kerasish steps ({form} form, {epochs} epochs), by tottime\n")
    stats.print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------- reporting


def machine() -> dict:
    info = {
        "load": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    try:
        import torch

        info["torch"] = torch.__version__
    except ImportError:
        info["torch"] = "not installed"
    return info


def step_rows(result: dict) -> list[tuple]:
    steps, best = result["steps"], result["best"]
    torch_names = [n for n in best if n.startswith("PyTorch")]
    torch_best = min((best[n] for n in torch_names), default=None)
    rows = []
    for name, seconds in best.items():
        us = seconds / steps * 1e6
        ratio = "" if torch_best is None else f"{seconds / torch_best:.2f}x"
        w, b, loss = result["final"][name]
        rows.append(
            (name, f"{us:.1f}", ratio, f"{seconds:.3f}", f"{w:.6f}", f"{b:.6f}", f"{loss:.4f}")
        )
    return rows


STEP_HEADER = (
    "variant",
    "us/step",
    "vs best PyTorch",
    "total s",
    "final w",
    "final b",
    "last loss",
)
OP_HEADER = (
    "op",
    "NumPy us",
    "ks no tape us",
    "overhead us",
    "ks tape on, unwatched us",
    "ks tape, recorded us",
    "torch us",
    "torch requires_grad us",
)


def op_table_rows(rows: list[dict]) -> list[tuple]:
    out = []
    for r in rows:
        out.append(
            (
                f"{r['op']}: `{r['kerasish']}`",
                f"{r['numpy']:.2f}",
                f"{r['no_tape']:.2f}",
                f"{r['no_tape'] - r['numpy']:+.2f}",
                f"{r['tape_unwatched']:.2f}",
                f"{r['tape_recorded']:.2f}",
                f"{r['torch']:.2f}" if "torch" in r else "-",
                f"{r['torch_grad']:.2f}" if "torch_grad" in r else "-",
            )
        )
    return out


def text_table(header, rows) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def markdown_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def summary_lines(result: dict, ops: list[dict]) -> list[str]:
    best, steps = result["best"], result["steps"]
    lines = []
    torch_names = [n for n in best if n.startswith("PyTorch")]
    if torch_names:
        torch_best = min(best[n] for n in torch_names)
        for name in [n for n in best if n.startswith("kerasish")]:
            ratio = best[name] / torch_best
            verdict = "meets" if ratio <= STEP_TARGET else "misses"
            lines.append(
                f"{name}: {best[name] / steps * 1e6:.1f} us/step = {ratio:.2f}x the best PyTorch "
                f"({torch_best / steps * 1e6:.1f} us/step); target <= {STEP_TARGET}x: {verdict}"
            )
    else:
        lines.append("PyTorch not run (not installed, or --no-torch): no ratio")
    if "cycles" in result:
        lines.append(
            f"kerasish leaves {result['cycles']:.1f} objects per step in reference cycles "
            "(freed only by the cyclic GC; 0 is the goal)"
        )
    rel, ok = agreement(result["final"])
    lines.append(
        f"final (w, b) agree across variants to {rel:.1e} relative "
        f"({'within' if ok else 'OUTSIDE'} 1e-3)"
    )
    if not ops:
        return lines
    worst = max(r["no_tape"] - r["numpy"] for r in ops)
    verdict = "meets" if worst < OP_TARGET_US else "misses"
    lines.append(
        f"per-op overhead without a tape: worst {worst:+.2f} us above raw NumPy; "
        f"target < {OP_TARGET_US} us: {verdict}"
    )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=100, help="epochs over the 190 points")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (best is kept)")
    parser.add_argument("--lr", type=float, default=LEARNING_RATE, help="SGD learning rate")
    parser.add_argument("--op-number", type=int, default=20000, help="calls per per-op timing")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown block")
    parser.add_argument(
        "--gc",
        action="store_true",
        help="keep the cyclic GC on while timing steps (default: off, as timeit does)",
    )
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch")
    parser.add_argument("--skip-ops", action="store_true", help="skip the per-op table")
    parser.add_argument(
        "--profile",
        type=int,
        metavar="EPOCHS",
        default=0,
        help="instead of timing, print a cProfile of this many kerasish epochs",
    )
    parser.add_argument(
        "--phases", action="store_true", help="also time the phases of a kerasish step"
    )
    parser.add_argument("--profile-form", choices=("implicit", "tape"), default="implicit")
    args = parser.parse_args(argv)

    if args.profile:
        print(profile(args.profile, args.lr, args.profile_form))
        return 0

    torch = None if args.no_torch else import_torch()
    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}, "
        f"NumPy {info['numpy']}, torch {info['torch']} "
        f"({'1 thread' if torch is not None else 'not used'}); load average {info['load']}"
    )
    result = step_benchmark(args.epochs, args.repeats, args.lr, torch, keep_gc=args.gc)
    result["cycles"] = cycles_per_step()
    gc_mode = "GC on" if args.gc else "GC off while timing"
    print(
        f"data: {result['source']}; {args.epochs} epochs = {result['steps']} steps; "
        f"lr {args.lr}; best of {args.repeats}; {gc_mode}\n"
    )
    srows = step_rows(result)
    print(text_table(STEP_HEADER, srows))
    ops = [] if args.skip_ops else op_benchmark(args.op_number, 5, torch)
    if ops:
        print("\nper-op time (2x2 float32 inputs; best of 5 x %d calls)\n" % args.op_number)
        print(text_table(OP_HEADER, op_table_rows(ops)))
    split = phases(max(args.epochs // 5, 1), args.lr) if args.phases else {}
    if split:
        print("\nkerasish step by phase (GradientTape form, us/step)\n")
        print(text_table(("phase", "us/step"), [(k, f"{v:.1f}") for k, v in split.items()]))
    print()
    for line in summary_lines(result, ops):
        print(line)

    if args.markdown:
        print("\n<!-- markdown -->")
        print(
            f"Per-example Huber SGD, {result['source']}, {args.epochs} epochs "
            f"({result['steps']} steps), lr {args.lr}, best of {args.repeats} runs, {gc_mode}:\n"
        )
        print(markdown_table(STEP_HEADER, srows))
        if ops:
            print(
                f"\nPer-op time in microseconds (2x2 float32 inputs, best of 5 x {args.op_number} "
                "calls; 'overhead' = kerasish without a tape minus the raw NumPy call):\n"
            )
            print(markdown_table(OP_HEADER, op_table_rows(ops)))
        if split:
            print("\nkerasish step by phase (GradientTape form):\n")
            print(markdown_table(("phase", "us/step"), [(k, f"{v:.1f}") for k, v in split.items()]))
        print()
        for line in summary_lines(result, ops):
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
