"""ks.distribute on one machine: 1, 2, ... ranks, against PyTorch DDP and raw mpi4py.

Run from the repository root (needs `pip install -e ".[mpi]"` with `mpiexec` on PATH,
`torch` for the DDP figures, and Debian's `dataset-fashion-mnist` unless `--synthetic`):

    python benchmarks/distribute_bench.py              # every case, a Markdown summary
    python benchmarks/distribute_bench.py --steps 100  # shorter
    python benchmarks/distribute_bench.py --synthetic --ranks 1,2,4 --cases mlp,ddp,overlap

Each case is launched with `mpiexec -n R` (1 BLAS / torch thread per rank) and prints one
JSON line from rank 0; the throughput cases run `--repeats` times and the best run counts
(mlp and ddp alternate: each repeat runs both at every number of ranks, so that a change in
the machine's load or clock reaches every contender alike):

- mlp: the mnist recipe's MLP (784-256-256-10, Adam) on Fashion-MNIST (or, with
  `--synthetic`, random images of its shape: 60,000 x 28 x 28, 10 classes; the throughput
  does not depend on the values), global batch 128 (`--batch`) split across the ranks
  (with `--weak`, 128 per rank: the global batch grows with the ranks, as in Horovod's
  figures), a GradientTape loop with `compute_average_loss` and
  `DistributedOptimizer(op="sum")`: images/s, the gradient exchange per step, and the
  exchange alone (the tape's gradients, and arrays not handed over) against raw `Allreduce`
  of the same bytes in the same processes;
- ddp: the same model, data, batch and optimizer in PyTorch `DistributedDataParallel`
  (gloo), run right after mlp at each number of ranks; skipped, with the reason, without torch;
- word2vec: the word2vec recipe (NCE, its defaults: 50,000 words, 128-d, batch 128, 64
  samples) on a synthetic Zipf corpus of 1M words over 50,000 words: words/s;
- buckets: the MLP's gradients exchanged with several bucket sizes;
- sparse: a 50,000 x 128 embedding's sparse gradient, gathered as rows or densified, for
  several numbers of rows per rank (where `sparse_as_dense_above` should sit);
- overlap: what overlapping the exchange with the backward pass could save on the MLP: the
  last backward op (the first layer's kernel gradient) alone, the allreduce of the other
  layers' gradients (ready before it) alone, both one after the other, and the allreduce
  in a second thread while the main thread computes;
- fit: the MLP trained by `model.fit` (compiled steps), global batch 256: the exchange's
  own work per step (its time less a barrier put before each allreduce and the allreduce
  itself) against the allreduce;
- ceiling: what the machine allows: the mlp job at each number of ranks above 1, but each
  rank trains alone (a plain optimizer, no exchange; the same batches and shapes, the same
  barriers around the timing, so the ranks compete for the machine as in training): no
  data-parallel job of that many ranks can scale better. Run with mlp and ddp, alternating.

buckets, sparse, overlap and fit run on the largest number of ranks in `--ranks`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GLOBAL_BATCH = 128
CASES = ("mlp", "ddp", "word2vec", "buckets", "sparse", "overlap", "ceiling", "fit")
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


# -- the workers (run under mpiexec) ---------------------------------------------------------


def _report(result: dict) -> None:
    import kerasish as ks

    if ks.distribute.is_chief():
        print("RESULT " + json.dumps(result), flush=True)


def _barrier() -> None:
    import kerasish as ks
    from kerasish.distribute import communicator

    if ks.distribute.size() > 1:
        communicator.allreduce(np.zeros(1), "barrier")


def _images(data: str):
    """Fashion-MNIST's training images in [0, 1] and labels, or random ones of the same shape."""
    if data == "synthetic":
        rng = np.random.default_rng(0)
        return (rng.random((60_000, 28, 28), dtype=np.float32),
                rng.integers(0, 10, 60_000).astype(np.int32))
    import kerasish as ks

    (x, y), _ = ks.datasets.fashion_mnist.load_data()
    return x.astype(np.float32) / 255.0, y.astype(np.int32)


def worker_mlp(steps: int, data: str, batch: str, mode: str = "exchange") -> None:
    """mode "exchange": data-parallel training; "alone": each rank trains by itself."""
    batch = int(batch)  # the global batch
    import kerasish as ks
    from kerasish.distribute import communicator
    from recipes.mnist import build_model

    x, y = _images(data)
    ks.random.set_seed(0)
    model = build_model("mlp")
    model.build((None, 28, 28))
    ks.distribute.broadcast_variables(model.variables)
    # each rank's share of the global batch's mean loss, summed over the ranks: the exchange
    # adds the gradients as they come, with no pass to weight them
    optimizer = ks.distribute.DistributedOptimizer(ks.optimizers.Adam(1e-3), op="sum")
    exchange = optimizer.gradient_exchange
    if mode == "alone":
        optimizer = ks.optimizers.Adam(1e-3)
    variables = model.trainable_variables
    warmup = 20

    def gradients(i):
        start = (i * batch) % (len(x) - batch)
        xb, yb = ks.distribute.shard_batch(x[start:start + batch], y[start:start + batch])
        with ks.GradientTape() as tape:
            loss = ks.distribute.compute_average_loss(
                ks.nn.sparse_softmax_cross_entropy_with_logits(yb, model(xb, training=True)),
                global_batch_size=batch)
        return tape.gradient(loss, variables)

    for i in range(warmup):
        optimizer.apply_gradients(zip(gradients(i), variables))
    exchange.seconds, exchange.calls, exchange.bytes = 0.0, 0, 0
    _barrier()
    started = time.perf_counter()
    for i in range(warmup, warmup + steps):
        optimizer.apply_gradients(zip(gradients(i), variables))
    _barrier()
    seconds = time.perf_counter() - started
    within = exchange.seconds / max(exchange.calls, 1)
    count = sum(int(np.prod(v.shape)) for v in variables)
    raw = alone = copied = float("nan")
    if ks.distribute.size() > 1 and mode == "exchange":
        # the exchange of the model's gradients alone, against mpi4py's Allreduce of the same
        # bytes, interleaved so that all see the same load from the rest of the machine, each
        # call after a barrier (untimed) and each contender first as often. Every round, the
        # tape's gradients (the large ones handed over, so reduced in place, as in training)
        # and, made from them outside the timing, so just as fresh in the caches: their
        # concatenation (for the raw Allreduce) and copies (not handed over, so copied into
        # the exchange's buffers)
        comm, mpi = communicator._state.comm, communicator._state.mpi
        timings = np.zeros(3)
        for i in range(steps):
            pairs = [(g._value, v) for g, v in zip(gradients(i), variables)]
            buffer = np.concatenate([g.reshape(-1) for g, _ in pairs])
            copies = [(g.copy(), v) for g, v in pairs]
            calls = (lambda b=buffer: comm.Allreduce(mpi.IN_PLACE, b),
                     lambda p=pairs: exchange(p), lambda c=copies: exchange(c))
            for which in np.roll([0, 1, 2], i):
                _barrier()
                began = time.perf_counter()
                calls[which]()
                timings[which] += time.perf_counter() - began
        raw, alone, copied = timings / steps
    plan = next(iter(exchange._plans.values()), [])
    _report({"images_per_s": steps * batch / seconds, "step_ms": 1e3 * seconds / steps,
             "exchange_ms": 1e3 * within, "raw_allreduce_ms": 1e3 * raw,
             "exchange_alone_ms": 1e3 * alone, "exchange_copied_ms": 1e3 * copied,
             "bytes_per_step": count * 4, "buckets": len(plan),
             "in_place": sum(bucket.alone for bucket in plan)})


def worker_ddp(steps: int, data: str, batch: str) -> None:
    batch = int(batch)  # the global batch
    import torch
    import torch.distributed as torch_dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    rank = int(os.environ.get("PMI_RANK", 0))
    size = int(os.environ.get("PMI_SIZE", 1))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch_dist.init_process_group("gloo", rank=rank, world_size=size)
    x, y = _images(data)
    x, y = torch.from_numpy(x.reshape(len(x), -1)), torch.from_numpy(y.astype(np.int64))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    model = DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    per_rank = batch // size
    warmup = 20

    def step(i):
        start = (i * batch) % (len(x) - batch) + rank * per_rank
        optimizer.zero_grad()
        loss = loss_fn(model(x[start:start + per_rank]), y[start:start + per_rank])
        loss.backward()
        optimizer.step()

    for i in range(warmup):
        step(i)
    torch_dist.barrier()
    started = time.perf_counter()
    for i in range(warmup, warmup + steps):
        step(i)
    torch_dist.barrier()
    seconds = time.perf_counter() - started
    if rank == 0:
        print("RESULT " + json.dumps({"images_per_s": steps * batch / seconds,
                                      "step_ms": 1e3 * seconds / steps}), flush=True)
    torch_dist.destroy_process_group()


def worker_word2vec(steps: int, corpus: str) -> None:
    from recipes import word2vec

    with tempfile.TemporaryDirectory() as logdir:
        result = word2vec.main(["--corpus", corpus, "--steps", str(steps), "--quiet",
                                "--print-every", "0", "--logdir", logdir])
    _report({"words_per_s": result["words_per_sec"], "seconds": result["train_seconds"]})


def _mlp_gradients():
    shapes = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
    rng = np.random.default_rng(0)
    return [rng.normal(size=shape).astype(np.float32) for shape in shapes]


def worker_buckets(steps: int) -> None:
    import kerasish as ks
    from kerasish.distribute import GradientExchange

    variables = [ks.Variable(g) for g in _mlp_gradients()]
    results = {}
    for bucket in (64 << 10, 256 << 10, 1 << 20, 4 << 20):
        exchange = GradientExchange(bucket_bytes=bucket)
        pairs = [(g._value.copy(), v) for g, v in zip(variables, variables)]
        for _ in range(5):
            exchange(pairs)
        _barrier()
        began = time.perf_counter()
        for _ in range(steps):
            exchange(pairs)
        results[str(bucket)] = {"ms": 1e3 * (time.perf_counter() - began) / steps,
                                "buckets": len(next(iter(exchange._plans.values())))}
    _report(results)


def worker_sparse(steps: int) -> None:
    import kerasish as ks
    from kerasish.distribute import GradientExchange
    from kerasish.optimizers.optimizer import SparseGrad

    vocab, dim = 50_000, 128
    var = ks.Variable(np.zeros((vocab, dim), np.float32))
    rng = np.random.default_rng(ks.distribute.rank())
    results = {}
    for rows in (128, 1024, 8192, 32768):
        indices = np.unique(rng.integers(0, vocab, rows))
        grad = SparseGrad(rng.normal(size=(len(indices), dim)).astype(np.float32), indices)
        row = {}
        for label, above in (("gathered", 1e12), ("densified", 0.0)):
            exchange = GradientExchange(sparse_as_dense_above=above)
            exchange([(grad, var)])
            _barrier()
            began = time.perf_counter()
            for _ in range(steps):
                exchange([(grad, var)])
            row[label] = 1e3 * (time.perf_counter() - began) / steps
        results[str(rows)] = row
    _report(results)


def worker_fit(steps: int, data: str) -> None:
    """`fit`'s exchange: its own work per step, apart from waiting for the other ranks."""
    import kerasish as ks
    from kerasish.distribute import communicator
    from kerasish.distribute import optimizer as exchange_module
    from recipes.mnist import build_model

    reduce_all, timings = communicator.sum_arrays, np.zeros(3)  # barrier, allreduce, calls

    def timed(buffers, what):
        if "dense gradients" not in what:  # (metrics synchronised at an epoch's end)
            return reduce_all(buffers, what)
        began = time.perf_counter()
        communicator._state.comm.Barrier()
        middle = time.perf_counter()
        reduce_all(buffers, what)
        timings[:] += (middle - began, time.perf_counter() - middle, 1)

    exchange_module.communicator.sum_arrays = timed
    x, y = _images(data)
    batch = 256
    x, y = x[:batch * steps], y[:batch * steps]
    ks.random.set_seed(0)
    model = build_model("mlp")
    model.compile(ks.optimizers.Adam(1e-3),
                  ks.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)  # traced, warm
    exchange = model.optimizer.gradient_exchange
    exchange.seconds, timings[:] = 0.0, 0.0
    model.fit(x, y, batch_size=batch, epochs=3, verbose=0, shuffle=False)
    barrier, allreduce, calls = timings
    _report({"own_ms": 1e3 * (exchange.seconds - barrier - allreduce) / calls,
             "allreduce_ms": 1e3 * allreduce / calls, "steps": int(calls)})


def worker_overlap(steps: int) -> None:
    """The MLP's backward pass ends with the first layer's kernel gradient (784 x 256, 75% of
    the parameters); the other layers' gradients are ready before it. This times how much of
    their allreduce a second thread (blocking `Allreduce`, the GIL released) hides behind it."""
    import kerasish as ks
    from kerasish.distribute import communicator

    comm, mpi = communicator._state.comm, communicator._state.mpi
    rng = np.random.default_rng(ks.distribute.rank())
    batch = GLOBAL_BATCH // ks.distribute.size()
    inputs = rng.random((batch, 784), dtype=np.float32)
    hidden = rng.normal(size=(batch, 256)).astype(np.float32)  # dL/d(first layer's output)
    # ready earlier: the other kernels and every bias (a bias's gradient comes before its
    # kernel's), and the weight's slot
    others = np.ones(256 * 256 + 256 * 10 + 256 + 256 + 10 + 1, np.float32)
    requests, done = queue.Queue(), queue.Queue()

    def exchanger():
        while (buffer := requests.get()) is not None:
            comm.Allreduce(mpi.IN_PLACE, buffer)
            done.put(None)

    thread = threading.Thread(target=exchanger, daemon=True)
    thread.start()

    def compute():
        return inputs.T @ hidden

    def allreduce():
        comm.Allreduce(mpi.IN_PLACE, others)

    def sequential():  # as now: the exchange starts after the backward pass
        compute()
        allreduce()

    def overlapped():
        requests.put(others)
        compute()
        done.get()

    modes = {"compute": compute, "allreduce": allreduce, "sequential": sequential,
             "overlapped": overlapped}
    totals = dict.fromkeys(modes, 0.0)
    for round_ in range(steps + 5):  # the modes alternate, so that they see the same load
        for name, mode in modes.items():
            _barrier()
            began = time.perf_counter()
            mode()
            if round_ >= 5:
                totals[name] += time.perf_counter() - began
    requests.put(None)
    thread.join()
    _report({name: 1e3 * total / steps for name, total in totals.items()} | {
        "allreduce_bytes": others.nbytes, "thread_level": mpi.Query_thread()})


# -- the launcher --------------------------------------------------------------------------


def _mpiexec() -> str:
    found = shutil.which("mpiexec") or shutil.which(
        "mpiexec", path=os.path.dirname(sys.executable))
    if found is None:
        sys.exit('distribute_bench: no mpiexec on PATH (pip install -e ".[mpi]" brings mpich\'s)')
    return found


def best(repeats: int, ranks: int, case: str, *args) -> dict:
    """The word2vec run with the highest throughput of `repeats` (the least disturbed by other
    load)."""
    runs = [launch(ranks, case, *args) for _ in range(repeats)]
    return max(runs, key=lambda result: result["words_per_s"])


def launch(ranks: int, case: str, *args) -> dict:
    env = dict(os.environ, **{name: "1" for name in THREAD_VARIABLES})
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    command = [_mpiexec(), "-n", str(ranks), sys.executable, os.path.abspath(__file__),
               "--worker", case, *map(str, args)]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=1800)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):  # progress on stderr: a run cut short still shows it
            print(f"{case}, {ranks} rank(s), {time.perf_counter() - began:.1f} s: {line[7:]}",
                  file=sys.stderr, flush=True)
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{case} on {ranks} ranks failed:\n{done.stdout}\n{done.stderr}")


def make_corpus(path: str, words: int = 1_000_000, vocab: int = 50_000) -> None:
    rng = np.random.default_rng(0)
    probabilities = 1.0 / np.arange(1, vocab + 1)
    ids = rng.choice(vocab, words, p=probabilities / probabilities.sum())
    with open(path, "w") as handle:
        handle.write(" ".join(f"w{i}" for i in ids))


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _comma_list(kind, allowed=None):
    """An argparse type: "1,2,4" -> [1, 2, 4], each value among `allowed` when given."""

    def parse(text: str) -> list:
        values = [kind(part) for part in text.split(",") if part]
        if not values or any(allowed is not None and value not in allowed for value in values):
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated list of {allowed or kind.__name__}, got {text!r}")
        return values

    return parse


def run_worker(case: str, rest: list) -> None:
    import kerasish as ks

    if case != "ddp":
        ks.distribute.init()
    {"mlp": worker_mlp, "ceiling": lambda *args: worker_mlp(*args, mode="alone"),
     "ddp": worker_ddp, "word2vec": worker_word2vec,
     "buckets": worker_buckets, "sparse": worker_sparse,
     "overlap": worker_overlap, "fit": worker_fit}[case](int(rest[0]), *rest[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="timed steps per case")
    parser.add_argument("--word2vec-steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs per throughput case; the best is reported (others' load)")
    parser.add_argument("--ranks", type=_comma_list(int), default=[1, 2],
                        help="numbers of ranks for mlp, ddp and word2vec (default 1,2)")
    parser.add_argument("--cases", type=_comma_list(str, CASES), default=list(CASES),
                        help=f"which cases to run (default all: {','.join(CASES)})")
    parser.add_argument("--batch", type=int, default=GLOBAL_BATCH,
                        help=f"the MLP's global batch, or with --weak its batch per rank "
                        f"(default {GLOBAL_BATCH})")
    parser.add_argument("--weak", action="store_true",
                        help="weak scaling: --batch examples per rank (the global batch grows "
                        "with the ranks) instead of a global batch of --batch")
    parser.add_argument("--synthetic", action="store_true",
                        help="random images of Fashion-MNIST's shape instead of the data set")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker[0], args.worker[1:])
        return

    sys.path.insert(0, HERE)
    from _machine import cpu_model

    data = "synthetic" if args.synthetic else "fashion_mnist"
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_model()}, "
          f"{os.cpu_count()} cores; load average at start: {load()}; "
          f"data: {data}; mpiexec: {_mpiexec()}")
    started = time.perf_counter()
    results, notes = {}, []
    if "ddp" in args.cases and importlib.util.find_spec("torch") is None:
        args.cases.remove("ddp")
        notes.append("DDP skipped: torch is not installed")
    runs = {}
    for _ in range(args.repeats):  # each repeat: kerasish, then DDP, at each number of ranks
        for ranks in args.ranks:
            batch = args.batch * ranks if args.weak else args.batch
            for case in [case for case in ("mlp", "ceiling", "ddp") if case in args.cases]:
                if case == "ceiling" and ranks == 1:
                    continue
                try:
                    runs.setdefault((case, ranks), []).append(
                        launch(ranks, case, args.steps, data, batch))
                except RuntimeError as error:
                    if case == "mlp":
                        raise
                    args.cases.remove("ddp")
                    notes.append(f"DDP skipped: {str(error).strip().splitlines()[-1]}")
    for key, found in runs.items():  # the least disturbed by other load
        results[key] = max(found, key=lambda result: result["images_per_s"])
    if "word2vec" in args.cases:
        with tempfile.TemporaryDirectory() as folder:
            corpus = os.path.join(folder, "zipf.txt")
            make_corpus(corpus)
            for ranks in args.ranks:
                results[("word2vec", ranks)] = best(args.repeats, ranks, "word2vec",
                                                    args.word2vec_steps, corpus)
    most = max(args.ranks)
    if most > 1:
        if "buckets" in args.cases:
            results["buckets"] = launch(most, "buckets", args.steps)
        if "sparse" in args.cases:
            results["sparse"] = launch(most, "sparse", max(args.steps // 10, 10))
        if "overlap" in args.cases:
            results["overlap"] = launch(most, "overlap", args.steps)
        if "fit" in args.cases:
            results["fit"] = launch(most, "fit", max(args.steps // 10, 10), data)
    print(f"load average at end: {load()}; {time.perf_counter() - started:.0f} s in all\n")
    summarize(results, args.ranks, most, notes, args.batch, args.weak)


def summarize(results: dict, rank_counts: list, most: int, notes: list, batch: int,
              weak: bool) -> None:
    """The Markdown summary: one row per contender and number of ranks, then the other cases."""
    labels = {"mlp": "kerasish (MPI)", "ceiling": "kerasish, ranks not exchanging (ceiling)",
              "ddp": "PyTorch DDP (gloo)"}
    if any(name in results for name in ((n, r) for n in labels for r in rank_counts)):
        shape = f"{batch} per rank" if weak else f"global batch {batch}"
        print(f"| MLP, {shape} | ranks | images/s | speed-up | efficiency "
              f"| step ms | exchange ms | exchange alone / raw Allreduce ms |")
        print("|---|---|---|---|---|---|---|---|")
    for name, label in labels.items():
        one = results.get(("mlp" if name == "ceiling" else name, 1), {}).get("images_per_s")
        for ranks in rank_counts:
            row = results.get((name, ranks))
            if row is None:
                continue
            speed = f"{row['images_per_s'] / one:.2f}x" if one else "-"
            efficiency = f"{row['images_per_s'] / one / ranks:.0%}" if one else "-"
            exchange = alone = "-"
            if name == "mlp" and ranks > 1:
                exchange = f"{row['exchange_ms']:.3f}"
                alone = (f"{row['exchange_alone_ms']:.3f} / {row['raw_allreduce_ms']:.3f} "
                         f"({row['exchange_alone_ms'] / row['raw_allreduce_ms']:.2f}x)")
            print(f"| {label} | {ranks} | {row['images_per_s']:,.0f} | {speed} | {efficiency} "
                  f"| {row['step_ms']:.2f} | {exchange} | {alone} |")
    for note in notes:
        print(f"\n{note}")
    mlp = next((results[("mlp", r)] for r in rank_counts if r > 1 and ("mlp", r) in results),
               None)
    if mlp is not None:
        print(f"\nMLP gradients: {mlp['bytes_per_step']:,} bytes per step and rank, "
              f"{mlp['buckets']} call(s) ({mlp['in_place']} of one large gradient each, reduced "
              f"in place when the tape hands it over); 'exchange' is within training (with the "
              f"wait for the slowest rank), 'alone' against mpi4py's Allreduce of the same "
              f"bytes, timed alternately; arrays not handed over (copied): "
              f"{mlp['exchange_copied_ms']:.3f} ms "
              f"({mlp['exchange_copied_ms'] / mlp['raw_allreduce_ms']:.2f}x)")
    if any(("word2vec", r) in results for r in rank_counts):
        one = results.get(("word2vec", 1), {}).get("words_per_s")
        print("\nword2vec NCE words/s: " + ", ".join(
            f"{r} rank(s) {results[('word2vec', r)]['words_per_s']:,.0f}"
            + (f" ({results[('word2vec', r)]['words_per_s'] / one:.2f}x)" if one else "")
            for r in rank_counts if ("word2vec", r) in results))
    if "buckets" in results:
        print(f"\nMLP gradients, bytes per bucket -> ms per exchange ({most} ranks): " + ", ".join(
            f"{int(k) >> 10} KiB: {v['ms']:.3f} ({v['buckets']} buckets)"
            for k, v in results["buckets"].items()))
    if "sparse" in results:
        print(f"\nsparse 50,000 x 128, rows per rank -> ms gathered / densified ({most} ranks): "
              + ", ".join(f"{k}: {v['gathered']:.2f} / {v['densified']:.2f}"
                          for k, v in results["sparse"].items()))
    if "fit" in results:
        f = results["fit"]
        print(f"\nfit ({most} ranks, {f['steps']} steps): the exchange's own work "
              f"{f['own_ms']:.3f} ms per step, the allreduce {f['allreduce_ms']:.3f} ms "
              f"({(f['own_ms'] + f['allreduce_ms']) / f['allreduce_ms']:.2f}x)")
    if "overlap" in results:
        o = results["overlap"]
        print(f"\noverlap ({most} ranks, ms): first layer's kernel gradient {o['compute']:.3f}, "
              f"allreduce of the {o['allreduce_bytes']:,} bytes of gradients ready before it "
              f"{o['allreduce']:.3f}; one after the other {o['sequential']:.3f}, the allreduce "
              f"in a second thread {o['overlapped']:.3f} (saves "
              f"{o['sequential'] - o['overlapped']:.3f}; MPI thread level {o['thread_level']})")


if __name__ == "__main__":
    main()
