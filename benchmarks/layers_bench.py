"""Layer steps against PyTorch CPU: LSTM, MultiHeadAttention, Conv1D, Conv2DTranspose.

Each case times one training step of a single layer, forward and backward:
the output, then the gradients with respect to the layer's weights AND its
input (as in a model where the layer is not first), given a fixed random
upstream gradient (`tape.gradient(out, ..., output_gradients=g)` against
`out.backward(g)`). float32, batch-first, the same sizes on both sides:

- `lstm`: `ks.layers.LSTM(256)` on (64, 100, 128) (Keras's default: the last
  output, (64, 256)) against `torch.nn.LSTM(128, 256, batch_first=True)`,
  whose last step's output gets the upstream gradient.
- `mha`: `ks.layers.MultiHeadAttention(num_heads=8, key_dim=64)` self-attention
  `layer(x, x)` on (32, 128, 512) against `torch.nn.MultiheadAttention(512, 8,
  batch_first=True)` called `(x, x, x, need_weights=False)` (its fastest path;
  the averaged attention weights are not computed).
- `conv1d`: `Conv1D(64, 5, padding="same")` on (32, 256, 64), a text or
  time-series convolution, against `torch.nn.Conv1d(64, 64, 5, padding="same")`
  on the (32, 64, 256) channels-first layout.
- `conv2d_transpose`: `Conv2DTranspose(32, 3, strides=2, padding="same")` on
  (64, 14, 14, 64) -> (64, 28, 28, 32), an MNIST-sized decoder step, against
  `torch.nn.ConvTranspose2d(64, 32, 3, stride=2, padding=1, output_padding=1)`
  on NCHW.

Before timing, kerasish's weights are copied into the PyTorch module and the
two outputs and input gradients are compared (the largest differences are
printed), so both sides compute the same function. For the transposed
convolution, where TF's 'same' padding puts the extra output row at the end
and PyTorch's `padding=1, output_padding=1` at the start, the check uses
PyTorch's full (unpadded) output cropped as TF crops it; the timed PyTorch
module is the usual padded one (the same work).

Threads: one each (threadpoolctl limits OpenBLAS/OpenMP for NumPy, and
`torch.set_num_threads(1)`). The contenders take turns within each repeat
(the order alternates), after warm-up steps; the best and the median of
`--repeats` steps are kept, ratios are kerasish / PyTorch (of the best
times, which the targets use; of the medians; the median of each repeat's
back-to-back pair, the steadiest figure when other work comes and goes; and of
the best process CPU times), and the 1-minute load average is recorded around
every case. OpenBLAS's kernel (threadpoolctl's
`architecture`) and the OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE variables are
printed; run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE` to let
OpenBLAS pick the CPU's own kernels.

Usage (from the repository root; needs `pip install torch threadpoolctl`):

    python benchmarks/layers_bench.py --markdown
    python benchmarks/layers_bench.py --cases lstm mha --repeats 5
    python benchmarks/layers_bench.py --profile lstm      # cProfile of kerasish's step

Targets (issue #12): LSTM <= 2.0x torch.nn.LSTM, attention <= 1.3x
torch.nn.MultiheadAttention, each convolution <= 1.5x its PyTorch module.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from _machine import cpu_model  # benchmarks/, the script's directory

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

TARGETS = {"lstm": 2.0, "mha": 1.3, "conv1d": 1.5, "conv2d_transpose": 1.5}


class Case:
    """One layer on both sides: `ks_step()` and `torch_step()` each run forward + backward."""

    def __init__(self, name: str, title: str, ks_layer, ks_call, torch_module, torch_call,
                 x: np.ndarray, to_torch_input, check):
        import torch

        import kerasish as ks

        self.name, self.title = name, title
        self.x = ks.Variable(x, name="x")
        self.layer = ks_layer
        self.ks_call = ks_call
        out = ks_call(ks_layer, self.x)  # builds the layer
        upstream = np.random.default_rng(1).standard_normal(out.shape).astype(np.float32)
        self.ks_upstream = ks.constant(upstream)
        self.sources = [self.x] + list(ks_layer.trainable_weights)

        self.module = torch_module
        self.torch_x = torch.tensor(to_torch_input(x), requires_grad=True)
        self.torch_call = torch_call
        self.torch_upstream = torch.tensor(check.upstream_to_torch(upstream))
        self.check = check

    def ks_step(self):
        import kerasish as ks

        with ks.GradientTape() as tape:
            out = self.ks_call(self.layer, self.x)
        return out, tape.gradient(out, self.sources, output_gradients=self.ks_upstream)

    def compile(self) -> None:
        """Time kerasish's step compiled with ks.function instead of eagerly."""
        import kerasish as ks

        self.ks_step = ks.function(self.ks_step)

    def torch_step(self):
        self.module.zero_grad(set_to_none=True)
        self.torch_x.grad = None
        out = self.torch_call(self.module, self.torch_x)
        out.backward(self.torch_upstream)
        return out

    def differences(self) -> dict:
        """Largest absolute differences of the outputs and of the input gradients."""
        self.check.copy_weights(self.layer, self.module)
        out, grads = self.ks_step()
        torch_out, torch_dx = self.check.reference(self)
        return {
            "output": float(np.abs(out.numpy() - torch_out).max()),
            "input_gradient": float(np.abs(grads[0].numpy() - torch_dx).max()),
            "output_scale": float(np.abs(torch_out).max()),
        }


class _Check:
    """How a case's weights, inputs and outputs map between the two layouts."""

    def upstream_to_torch(self, upstream):
        return upstream

    def output_from_torch(self, out):
        return out

    def input_from_torch(self, dx):
        return dx

    def reference(self, case):
        out = case.torch_step()
        return (self.output_from_torch(out.detach().numpy()),
                self.input_from_torch(case.torch_x.grad.numpy()))


def _set(parameter, value) -> None:
    import torch

    with torch.no_grad():
        parameter.copy_(torch.from_numpy(np.ascontiguousarray(value)))


class _LSTMCheck(_Check):
    def copy_weights(self, layer, module):  # gate order i, f, c(g), o on both sides
        cell = layer.cell
        _set(module.weight_ih_l0, cell.kernel.numpy().T)
        _set(module.weight_hh_l0, cell.recurrent_kernel.numpy().T)
        _set(module.bias_ih_l0, cell.bias.numpy())
        _set(module.bias_hh_l0, np.zeros_like(cell.bias.numpy()))


class _MHACheck(_Check):
    def copy_weights(self, layer, module):
        dim = module.embed_dim

        def square(sub):  # (dim, heads, depth) or (heads, depth, dim) -> (dim, dim)
            return sub.kernel.numpy().reshape(dim, dim)

        _set(module.in_proj_weight, np.concatenate(
            [square(layer.query_dense).T, square(layer.key_dense).T,
             square(layer.value_dense).T]))
        _set(module.in_proj_bias, np.concatenate(
            [sub.bias.numpy().reshape(-1)
             for sub in (layer.query_dense, layer.key_dense, layer.value_dense)]))
        _set(module.out_proj.weight, square(layer.output_dense).T)
        _set(module.out_proj.bias, layer.output_dense.bias.numpy())


class _ChannelsFirstCheck(_Check):
    """Conv layers: kerasish is channels-last, PyTorch channels-first."""

    def __init__(self, rank: int, kernel_perm: tuple, crop_full: bool = False):
        self.to_first = (0, rank + 1) + tuple(range(1, rank + 1))
        self.to_last = (0,) + tuple(range(2, rank + 2)) + (1,)
        self.kernel_perm, self.crop_full = kernel_perm, crop_full

    def upstream_to_torch(self, upstream):
        return np.ascontiguousarray(upstream.transpose(self.to_first))

    def output_from_torch(self, out):
        return out.transpose(self.to_last)

    def input_from_torch(self, dx):
        return dx.transpose(self.to_last)

    def copy_weights(self, layer, module):
        _set(module.weight, layer.kernel.numpy().transpose(self.kernel_perm))
        _set(module.bias, layer.bias.numpy())

    def reference(self, case):
        if not self.crop_full:
            return super().reference(case)
        import torch.nn.functional as F

        # TF 'same' for a stride-2, size-3 transposed convolution: the full output cropped
        # to its first rows and columns (PyTorch's output_padding adds them at the start)
        x = case.torch_x.detach().clone().requires_grad_(True)
        module = case.module
        full = F.conv_transpose2d(x, module.weight, module.bias, stride=module.stride)
        height, width = case.torch_upstream.shape[-2:]
        out = full[:, :, :height, :width]
        out.backward(case.torch_upstream)
        return self.output_from_torch(out.detach().numpy()), self.input_from_torch(
            x.grad.numpy())


def make_cases(names) -> list:
    import torch

    import kerasish as ks

    rng = np.random.default_rng(0)
    ks.random.set_seed(0)

    def data(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def channels_first(x):
        return np.ascontiguousarray(np.moveaxis(x, -1, 1))

    cases = []
    if "lstm" in names:
        cases.append(Case(
            "lstm", "LSTM(256), (64, 100, 128) -> (64, 256)",
            ks.layers.LSTM(256), lambda layer, x: layer(x),
            torch.nn.LSTM(128, 256, batch_first=True), lambda m, x: m(x)[0][:, -1],
            data(64, 100, 128), lambda x: x, _LSTMCheck()))
    if "mha" in names:
        cases.append(Case(
            "mha", "MultiHeadAttention(8 heads, key_dim 64), self-attention on (32, 128, 512)",
            ks.layers.MultiHeadAttention(num_heads=8, key_dim=64), lambda layer, x: layer(x, x),
            torch.nn.MultiheadAttention(512, 8, batch_first=True),
            lambda m, x: m(x, x, x, need_weights=False)[0],
            data(32, 128, 512), lambda x: x, _MHACheck()))
    if "conv1d" in names:
        cases.append(Case(
            "conv1d", "Conv1D(64, 5, 'same'), (32, 256, 64) -> (32, 256, 64)",
            ks.layers.Conv1D(64, 5, padding="same"), lambda layer, x: layer(x),
            torch.nn.Conv1d(64, 64, 5, padding="same"), lambda m, x: m(x),
            data(32, 256, 64), channels_first, _ChannelsFirstCheck(1, (2, 1, 0))))
    if "conv2d_transpose" in names:
        cases.append(Case(
            "conv2d_transpose",
            "Conv2DTranspose(32, 3, strides 2, 'same'), (64, 14, 14, 64) -> (64, 28, 28, 32)",
            ks.layers.Conv2DTranspose(32, 3, strides=2, padding="same"), lambda layer, x: layer(x),
            torch.nn.ConvTranspose2d(64, 32, 3, stride=2, padding=1, output_padding=1),
            lambda m, x: m(x), data(64, 14, 14, 64), channels_first,
            # kerasish (kh, kw, filters, in) -> PyTorch (in, filters, kh, kw)
            _ChannelsFirstCheck(2, (3, 2, 0, 1), crop_full=True)))
    return cases


def time_case(case: Case, repeats: int, warmup: int) -> dict:
    """Alternating timed steps (kerasish first on even repeats); best and median of each."""
    contenders = {"kerasish": case.ks_step, "torch": case.torch_step}
    for _ in range(warmup):
        for step in contenders.values():
            step()
    wall = {name: [] for name in contenders}
    cpu = {name: [] for name in contenders}
    loads = [os.getloadavg()[0]]
    for i in range(repeats):
        order = list(contenders) if i % 2 == 0 else list(contenders)[::-1]
        for name in order:
            started_cpu, started = time.process_time(), time.perf_counter()
            contenders[name]()
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
    loads.append(os.getloadavg()[0])
    result = {"load": (min(loads), max(loads))}
    for name in contenders:
        result[name] = {"best": min(wall[name]), "median": statistics.median(wall[name]),
                        "best_cpu": min(cpu[name])}
    result["ratio_best"] = result["kerasish"]["best"] / result["torch"]["best"]
    result["ratio_median"] = result["kerasish"]["median"] / result["torch"]["median"]
    # each repeat's two steps ran back to back, under about the same load
    result["ratio_paired"] = statistics.median(
        ks / pt for ks, pt in zip(wall["kerasish"], wall["torch"]))
    result["ratio_cpu"] = result["kerasish"]["best_cpu"] / result["torch"]["best_cpu"]
    return result


def threads_info() -> str:
    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(1)  # kept for the life of the process
    torch.set_num_threads(1)
    pools = [
        f"{p['internal_api']} {p.get('version') or ''}"
        + (f" ({p['architecture']} kernels)" if p.get("architecture") else "")
        + f": {p['num_threads']} thread(s)"
        for p in threadpool_info()
    ]
    return "; ".join(pools) + f"; torch.get_num_threads() = {torch.get_num_threads()}"


def profile(case: Case, steps: int) -> None:
    import cProfile
    import pstats

    case.ks_step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        case.ks_step()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def markdown(report: dict) -> str:
    lines = [
        f"- **Machine:** {report['machine']}",
        f"- **Software:** Python {report['python']}, NumPy {report['numpy']}, "
        f"torch {report['torch']}",
        f"- **Threads:** {report['threads']}",
        f"- **OpenBLAS environment:** {report['openblas_env']}",
        f"- **Command:** `{report['command']}` ({report['repeats']} alternating repeats "
        f"after {report['warmup']} warm-up steps per contender)",
        "",
        "| case | kerasish best (median), ms | PyTorch best (median), ms | ratio of bests "
        "(of medians) | median of paired ratios | CPU-time ratio | target | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in report["cases"].items():
        met = "met" if r["ratio_best"] <= TARGETS[name] else "MISSED"
        lines.append(
            f"| {r['title']} | {1e3 * r['kerasish']['best']:.1f} "
            f"({1e3 * r['kerasish']['median']:.1f}) | {1e3 * r['torch']['best']:.1f} "
            f"({1e3 * r['torch']['median']:.1f}) | {r['ratio_best']:.2f}x "
            f"({r['ratio_median']:.2f}x) | {r['ratio_paired']:.2f}x | {r['ratio_cpu']:.2f}x | "
            f"<= {TARGETS[name]}x, {met} | "
            f"{r['load'][0]:.2f}-{r['load'][1]:.2f} |")
    lines.append("")
    lines.append("Same function on both sides (largest absolute differences, float32):")
    for name, r in report["cases"].items():
        d = r["differences"]
        lines.append(f"- {name}: output {d['output']:.1e} (outputs up to "
                     f"{d['output_scale']:.2g}), input gradient {d['input_gradient']:.1e}")
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=tuple(TARGETS), default=list(TARGETS),
                        help="which layers to time (default: all four)")
    parser.add_argument("--repeats", type=int, default=10, help="timed steps per contender")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per contender")
    parser.add_argument("--profile", choices=tuple(TARGETS), default=None,
                        help="instead of timing, print a cProfile of kerasish's step")
    parser.add_argument("--compiled", action="store_true",
                        help="time kerasish's step compiled with ks.function (default: eager)")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown block")
    args = parser.parse_args(argv)

    import torch

    threads = threads_info()
    if args.profile:
        profile(make_cases([args.profile])[0], steps=3)
        return {}
    openblas_env = ", ".join(
        f"{name}={os.environ[name]}" if name in os.environ else f"{name} unset"
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"))
    report = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "python": platform.python_version(), "numpy": np.__version__,
        "torch": torch.__version__, "threads": threads, "openblas_env": openblas_env,
        "repeats": args.repeats, "warmup": args.warmup,
        "command": "python benchmarks/layers_bench.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "cases": {},
    }
    print(f"{report['machine']}; Python {report['python']}, NumPy {report['numpy']}, "
          f"torch {report['torch']}")
    print(f"threads: {threads}\nOpenBLAS environment: {openblas_env}")
    report["kerasish_mode"] = "compiled (ks.function)" if args.compiled else "eager"
    print(f"kerasish: {report['kerasish_mode']}")
    for case in make_cases(args.cases):
        if args.compiled:
            case.compile()
        differences = case.differences()
        result = time_case(case, args.repeats, args.warmup)
        result.update(title=case.title, differences=differences)
        report["cases"][case.name] = result
        met = "met" if result["ratio_best"] <= TARGETS[case.name] else "MISSED"
        print(f"\n{case.title}\n  kerasish {1e3 * result['kerasish']['best']:.1f} ms "
              f"(median {1e3 * result['kerasish']['median']:.1f}), PyTorch "
              f"{1e3 * result['torch']['best']:.1f} ms (median "
              f"{1e3 * result['torch']['median']:.1f}): {result['ratio_best']:.2f}x best, "
              f"{result['ratio_median']:.2f}x median, {result['ratio_paired']:.2f}x paired, "
              f"{result['ratio_cpu']:.2f}x CPU time (target <= {TARGETS[case.name]}x: {met}); "
              f"load {result['load'][0]:.2f}-{result['load'][1]:.2f}\n"
              f"  largest differences: output {differences['output']:.1e}, input gradient "
              f"{differences['input_gradient']:.1e}")
    if args.markdown:
        print("\n" + markdown(report))
    return report


if __name__ == "__main__":
    main()
