"""Where an eager training step spends its time, primitive by primitive (issue 23).

Every registered primitive's forward is wrapped to synchronise the device before and after
it, so each op's time is its own; the time outside primitives (optimizer update rules,
Python) is what is left of the step. Prints the primitives with the largest totals, keyed
by name and input shapes, for the steps of `gpu_compute_bench.py` (ResNet-style CNN,
Transformer block), and one GEMM of the ResNet's first convolution through kerasish,
CuPy and PyTorch. The synchronisations slow the step; the shares are what matter.

Usage (repository root): python benchmarks/gpu_op_profile.py [--device gpu|cpu] [--small]
"""

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_compute_bench  # noqa: E402 - benchmarks/, this directory

import kerasish as ks  # noqa: E402
from kerasish.core import backend, primitive  # noqa: E402


def timed_primitives(sync, totals):
    """Wrap every registered primitive's forward; returns a function that unwraps them."""
    originals = {}

    def wrap(prim, forward):
        def timed(*args, **kwargs):
            sync()
            start = time.perf_counter()
            out = forward(*args, **kwargs)
            sync()
            shapes = tuple(tuple(getattr(a, "shape", ())) for a in args)
            totals[(prim.name, shapes)] += time.perf_counter() - start
            return out
        return timed

    for prim in primitive.REGISTRY.values():
        originals[prim] = prim.forward
        prim.forward = wrap(prim, prim.forward)

    def restore():
        for prim, forward in originals.items():
            prim.forward = forward
    return restore


def profile(kind, shape, device, steps=3, top=14):
    sync = (backend.cupy.cuda.Device().synchronize if device == "gpu" else (lambda: None))
    x, y = gpu_compute_bench.data(kind, shape, np.random.default_rng(0))
    with ks.device(f"/{device}:0"):
        kx, ky = ks.constant(x), ks.constant(y.astype(np.int32) if kind == "resnet" else y)
        step = gpu_compute_bench.kerasish_trainer(kind, shape, compiled=False)
        step(kx, ky)
        sync()
        totals = collections.Counter()
        restore = timed_primitives(sync, totals)
        try:
            start = time.perf_counter()
            for _ in range(steps):
                step(kx, ky)
            sync()
            whole = (time.perf_counter() - start) / steps
        finally:
            restore()
    print(f"\n{kind} {shape}: {whole * 1e3:.1f} ms per step with a sync around every op; "
          f"{sum(totals.values()) / steps * 1e3:.1f} ms inside primitives")
    for (name, shapes), seconds in totals.most_common(top):
        print(f"  {seconds / steps * 1e3:8.2f} ms  {name:24s} {shapes}")


def gemm(device):
    """The ResNet's first 3x3 convolution as one GEMM (256*32*32, 576) @ (576, 64)."""
    import torch

    rng = np.random.default_rng(0)
    a = rng.standard_normal((256 * 32 * 32, 576)).astype(np.float32)
    b = rng.standard_normal((576, 64)).astype(np.float32)
    if device != "gpu":
        return
    cp = backend.cupy
    with ks.device("/gpu:0"):
        ka, kb = ks.constant(a), ks.constant(b)
        ca, cb = cp.asarray(a), cp.asarray(b)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        for name, fn, sync in (
                ("kerasish matmul", lambda: ks.matmul(ka, kb), cp.cuda.Device().synchronize),
                ("cupy.matmul", lambda: cp.matmul(ca, cb), cp.cuda.Device().synchronize),
                ("torch.mm", lambda: ta @ tb, torch.cuda.synchronize)):
            fn()
            sync()
            start = time.perf_counter()
            for _ in range(20):
                fn()
            sync()
            ms = (time.perf_counter() - start) / 20 * 1e3
            print(f"  GEMM (262144, 576) @ (576, 64) {name:16s} {ms:7.3f} ms "
                  f"({2 * a.shape[0] * 576 * 64 / ms / 1e9:.1f} TFLOP/s)")


def replay_host_profile(steps=300, top=18):
    """cProfile of a CUDA-graph replayed MLP step (function_buffers_gpu_bench's) and of a
    `fit` epoch: where the host's time per call goes once the kernels are one launch."""
    import cProfile
    import pstats

    from function_buffers_gpu_bench import trainer

    rng = np.random.default_rng(0)
    with ks.device("/gpu:0"):
        x = ks.constant(rng.random((128, 784), np.float32))
        y = ks.constant(rng.integers(0, 10, 128).astype(np.int32))
        model, step = trainer("mlp", True)
        for _ in range(5):
            step(x, y)
        print("\nreplay:", step.get_concrete_function(x, y).replay_kind)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(steps):
            step(x, y)
        backend.cupy.cuda.Device().synchronize()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(top)
        images = rng.random((60_000, 784), np.float32)
        labels = rng.integers(0, 10, 60_000).astype(np.int32)
        model.compile(ks.optimizers.Adam(1e-3),
                      ks.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(images, labels, batch_size=128, epochs=1, verbose=0)
        profiler = cProfile.Profile()
        profiler.enable()
        model.fit(images, labels, batch_size=128, epochs=1, verbose=0)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    if args.device == "gpu":
        replay_host_profile()
    gemm(args.device)
    for kind, shape in gpu_compute_bench.sizes(args.small).items():
        profile(kind, shape, args.device)


if __name__ == "__main__":
    main()
