"""Checkpoint save/restore against raw h5py, and the per-call cost of ks.summary.scalar.

Part 1: a checkpoint of N float32 parameters (default 25 variables of 4M =
100M parameters, 400 MB), saved with `ks.Checkpoint.write` and restored with
`ks.Checkpoint.read` into the same (existing) variables, against a raw h5py
write and read of the same arrays in the same process. For fairness the raw
write does what a crash-safe write must: temporary file, flush, fsync,
rename, directory fsync (the same steps as `kerasish.checkpoint.atomic_write`);
a raw write without fsync is shown too. Reads come from the page cache in
both cases (the files were just written; the script does not drop caches).
The variants take turns within each repeat; the best of the repeats is kept.

Part 2: µs per `ks.summary.scalar` call with recording on (a default writer,
event written), with recording off (`record_if(False)`), and with no default
writer; tensorboardX's own `SummaryWriter.add_scalar` for reference.

Usage (from the repository root):

    python benchmarks/checkpoint_bench.py                 # table and ratios
    python benchmarks/checkpoint_bench.py --markdown      # plus a Markdown block
    python benchmarks/checkpoint_bench.py --variables 5 --size 1000000   # quick run
    python benchmarks/checkpoint_bench.py --profile       # cProfile of one save and restore

Target (issue #4): save and restore within 1.2x of raw h5py.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import shutil
import sys
import tempfile
import time
import warnings

import h5py
import numpy as np
from _machine import cpu_model  # benchmarks/, the script's directory

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kerasish as ks  # noqa: E402
from kerasish import summary  # noqa: E402
from kerasish.checkpoint import atomic_write  # noqa: E402


def raw_write(path: str, arrays: dict, fsync: bool) -> None:
    def write(target):
        with h5py.File(target, "w") as f:
            group = f.create_group("values")
            for key, array in arrays.items():
                group.create_dataset(key, data=array)

    if fsync:
        atomic_write(path, write)  # temporary + fsync + rename + directory fsync
    else:
        write(path)


def raw_read(path: str) -> dict:
    with h5py.File(path, "r") as f:
        return {key: f["values"][key][()] for key in f["values"]}


def raw_read_direct(path: str, into: dict) -> None:
    with h5py.File(path, "r") as f:
        for key, array in into.items():
            f["values"][key].read_direct(array)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def checkpoint_part(args) -> dict:
    rng = np.random.default_rng(0)
    variables = {f"w{i:02d}": ks.Variable(rng.standard_normal(args.size, dtype=np.float32))
                 for i in range(args.variables)}
    arrays = {key: v.numpy() for key, v in variables.items()}
    root = ks.Checkpoint(**variables)
    scratch = {key: np.empty_like(a) for key, a in arrays.items()}  # for read_direct
    directory = tempfile.mkdtemp(prefix="ckpt_bench_", dir=args.dir)
    paths = {name: os.path.join(directory, f"{name}.h5") for name in ("ks", "raw", "raw_nofsync")}
    best = {}

    def keep(name, seconds):
        best[name] = min(best.get(name, float("inf")), seconds)

    try:
        for _ in range(args.repeats):
            keep("ks save", timed(lambda: root.write(paths["ks"])))
            keep("raw h5py write + fsync", timed(lambda: raw_write(paths["raw"], arrays, True)))
            keep("raw h5py write, no fsync",
                 timed(lambda: raw_write(paths["raw_nofsync"], arrays, False)))
            keep("ks restore", timed(lambda: root.read(paths["ks"]).assert_consumed()))
            keep("raw h5py read", timed(lambda: raw_read(paths["raw"])))
            keep("raw h5py read_direct", timed(lambda: raw_read_direct(paths["raw"], scratch)))
        for key, v in variables.items():  # the restore gave back exactly what was saved
            np.testing.assert_array_equal(v.numpy(), arrays[key])
        sizes = {name: os.path.getsize(path) for name, path in paths.items()}
        if args.profile:
            for label, fn in (("save", lambda: root.write(paths["ks"])),
                              ("restore", lambda: root.read(paths["ks"]))):
                profile = cProfile.Profile()
                profile.runcall(fn)
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(15)
                print(f"--- profile: {label}\n{out.getvalue()}")
    finally:
        shutil.rmtree(directory)
    return {"best": best, "sizes": sizes, "bytes": sum(a.nbytes for a in arrays.values())}


def per_call(fn, calls: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(calls):
            fn(i)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def summary_part(args) -> dict:
    directory = tempfile.mkdtemp(prefix="summary_bench_", dir=args.dir)
    results = {}
    try:
        writer = summary.create_file_writer(os.path.join(directory, "ks"))
        with writer.as_default():
            results["scalar, recording on"] = per_call(
                lambda i: summary.scalar("loss", 0.5, step=i), args.calls, args.repeats)
            tensor = ks.constant(0.5)
            results["scalar of a ks tensor, recording on"] = per_call(
                lambda i: summary.scalar("loss_t", tensor, step=i), args.calls, args.repeats)
            with summary.record_if(False):
                results["scalar, record_if(False)"] = per_call(
                    lambda i: summary.scalar("loss", 0.5, step=i), args.calls, args.repeats)
            step = ks.Variable(1, dtype=np.int64)
            with summary.record_summaries_every_n_global_steps(100, step):
                results["scalar, every_n_global_steps, off step"] = per_call(
                    lambda i: summary.scalar("loss", 0.5, step=i), args.calls, args.repeats)
        writer.close()
        summary._warned_no_writer = True  # the one warning is not what we time
        results["scalar, no default writer"] = per_call(
            lambda i: summary.scalar("loss", 0.5, step=i), args.calls, args.repeats)
        from tensorboardX import SummaryWriter

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tbx = SummaryWriter(os.path.join(directory, "tbx"))
            results["tensorboardX SummaryWriter.add_scalar"] = per_call(
                lambda i: tbx.add_scalar("loss", 0.5, i), args.calls, args.repeats)
            tbx.close()
    finally:
        shutil.rmtree(directory)
    return results


def machine() -> str:
    return (f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}, "
            f"NumPy {np.__version__}, h5py {h5py.__version__} (HDF5 {h5py.version.hdf5_version})")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variables", type=int, default=25)
    parser.add_argument("--size", type=int, default=4_000_000, help="float32 elements each")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20_000, help="summary calls per repeat")
    parser.add_argument("--dir", default=None, help="where to write (default: the temp dir)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)

    print(f"machine: {machine()}")
    ck = checkpoint_part(args)
    best, sizes = ck["best"], ck["sizes"]
    params = args.variables * args.size
    print(f"\ncheckpoint: {args.variables} float32 variables x {args.size:,} = {params:,} "
          f"parameters ({ck['bytes'] / 1e6:.0f} MB), best of {args.repeats}")
    rows = [
        ("save", best["ks save"], best["raw h5py write + fsync"]),
        ("restore", best["ks restore"], best["raw h5py read"]),
    ]
    for name, ours, raw in rows:
        print(f"  {name:8s} ks {ours:7.3f} s   raw h5py {raw:7.3f} s   ratio {ours / raw:5.2f}x"
              f"   ({ck['bytes'] / ours / 1e9:.2f} GB/s)")
    print(f"  raw h5py write without fsync: {best['raw h5py write, no fsync']:.3f} s; raw h5py "
          f"read_direct into existing arrays: {best['raw h5py read_direct']:.3f} s "
          f"(restore ratio to it {best['ks restore'] / best['raw h5py read_direct']:.2f}x)")
    print(f"  bytes on disk: ks {sizes['ks']:,}  raw {sizes['raw']:,}  "
          f"(ratio {sizes['ks'] / sizes['raw']:.4f}; data {ck['bytes']:,})")

    sm = summary_part(args)
    print(f"\nks.summary.scalar, µs per call (best of {args.repeats} x {args.calls:,} calls):")
    for name, us in sm.items():
        print(f"  {name:42s} {us:7.2f}")

    if args.markdown:
        print("\n| operation | kerasish s | raw h5py s | ratio |")
        print("|---|---|---|---|")
        for name, ours, raw in rows:
            print(f"| {name} | {ours:.3f} | {raw:.3f} | {ours / raw:.2f}x |")
        print(f"| restore vs raw read_direct into existing arrays | {best['ks restore']:.3f} | "
              f"{best['raw h5py read_direct']:.3f} | "
              f"{best['ks restore'] / best['raw h5py read_direct']:.2f}x |")
        print(f"\nraw h5py write without fsync: {best['raw h5py write, no fsync']:.3f} s; "
              f"bytes on disk: kerasish {sizes['ks']:,}, raw h5py {sizes['raw']:,}, "
              f"array data {ck['bytes']:,}")
        print("\n| summary call | µs/call |")
        print("|---|---|")
        for name, us in sm.items():
            print(f"| {name} | {us:.2f} |")


if __name__ == "__main__":
    main()
