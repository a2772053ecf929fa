"""ks.distribute under `mpiexec -n 2` and `-n 3` (the programs are in mpi_programs.py).

Skipped, with the reason, when mpi4py or mpiexec is missing (pip install -e ".[mpi]").
Every launch has a deadline, so a hang fails the test instead of stopping the suite.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import kerasish as ks

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "mpi_programs.py")
DEADLINE = 120  # seconds a launch may take on a loaded machine before the test fails


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.path.exists(beside) else shutil.which("mpiexec")


needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or _mpiexec() is None,
    reason='needs mpi4py and mpiexec: pip install -e ".[mpi]" (mpi4py and mpich from PyPI)',
)


def launch(ranks: int, *args, timeout: float | None = None):
    """Run mpi_programs.py under mpiexec; returns (exit status, stdout and stderr together)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("KERASISH_DISTRIBUTE_TIMEOUT", None)
    if timeout is not None:
        env["KERASISH_DISTRIBUTE_TIMEOUT"] = str(timeout)
    command = [_mpiexec(), "-n", str(ranks), sys.executable, PROGRAMS, *map(str, args)]
    done = subprocess.run(command, cwd=HERE, env=env, capture_output=True, text=True,
                          timeout=DEADLINE)
    return done.returncode, done.stdout + done.stderr


def run_ok(ranks: int, *args) -> str:
    status, output = launch(ranks, *args)
    assert status == 0, output
    assert f"{args[0]} ok" in output, output
    return output


def assert_close(reference: str, other: str, keys=None) -> None:
    expected, got = np.load(reference), np.load(other)
    for key in keys or expected.files:
        # float32, summed in another order: a few units in the last place per step
        np.testing.assert_allclose(got[key], expected[key], rtol=2e-5, atol=2e-6, err_msg=key)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_fit_on_n_ranks_equals_one_process_with_the_global_batch(tmp_path, ranks):
    # 40 examples, global batch 10: 3 ranks take 4, 3 and 3 (weighted by their counts);
    # the ranks are seeded differently and start from rank 0's values
    run_ok(1, "fit", tmp_path / "one.npz")
    run_ok(ranks, "fit", tmp_path / "many.npz")
    assert_close(tmp_path / "one.npz", tmp_path / "many.npz")  # SGD+momentum and Adam,
    # weights, per-epoch losses and evaluate()'s global figures


@needs_mpi
def test_custom_loop_with_distributed_optimizer_equals_one_process(tmp_path):
    run_ok(1, "loop", tmp_path / "one.npz")
    run_ok(3, "loop", tmp_path / "three.npz")
    assert_close(tmp_path / "one.npz", tmp_path / "three.npz")


@needs_mpi
@pytest.mark.parametrize("compiled", ["eager", "compiled"])
def test_custom_loop_with_compute_average_loss_and_op_sum_equals_one_process(tmp_path,
                                                                             compiled):
    # 3 ranks take 4, 3 and 3 of each batch of 10: the shares of the loss weight them exactly
    run_ok(1, "loop_average_loss", tmp_path / "one.npz", 6, 10, compiled)
    run_ok(3, "loop_average_loss", tmp_path / "three.npz", 6, 10, compiled)
    assert_close(tmp_path / "one.npz", tmp_path / "three.npz")


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_gradients_the_tape_handed_over_are_reduced_in_place_with_the_same_results(ranks):
    run_ok(ranks, "in_place")  # and the inputs that were not handed over are unchanged


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_sparse_gradients_gathered_or_densified_equal_the_dense_ones(ranks):
    run_ok(ranks, "sparse")


@needs_mpi
def test_broadcast_makes_differently_seeded_ranks_identical():
    run_ok(3, "broadcast")


@needs_mpi
def test_only_the_chief_prints_and_writes_files(tmp_path):
    status, output = launch(2, "files", tmp_path)
    assert status == 0, output
    assert output.count("Epoch 1/2") == 1 and output.count("Epoch 2/2") == 1, output
    assert os.listdir(tmp_path / "rank1") == []
    assert sorted(os.listdir(tmp_path / "rank0")) == ["backup", "log.csv", "model.keras", "tb"]


@needs_mpi
def test_an_exception_on_one_rank_aborts_the_job_naming_the_rank():
    status, output = launch(2, "raise")
    assert status != 0
    assert ("ks.distribute: rank 1 of 2 failed with ValueError: rank one fails on purpose; "
            "aborting the job") in output


@needs_mpi
@pytest.mark.parametrize("how, said", [("3", "sys.exit(3)"), ("return", "its script ended")])
def test_a_rank_that_leaves_early_ends_the_job_naming_the_rank_and_its_exit(how, said):
    # the collective timeout (60 s) is not what ends it: rank 0 hears that rank 1 has left
    status, output = launch(2, "exit", how, timeout=60)
    assert status != 0
    assert "rank 0 of 2 failed with CollectiveTimeoutError: " in output, output
    assert f"cannot complete: rank 1 of 2 has left the job ({said}) while this rank waits" in output


@needs_mpi
def test_a_rank_that_stops_taking_part_makes_the_others_time_out():
    status, output = launch(2, "hang", timeout=2)
    assert status != 0
    assert "rank 0 of 2 failed with CollectiveTimeoutError" in output, output
    assert "did not complete within 2 s; another rank has probably died" in output


@needs_mpi
def test_a_rank_killed_by_a_signal_ends_the_job():
    status, output = launch(2, "kill", timeout=3)
    assert status != 0
    # the launcher reports the signal, or the survivor's collective times out
    assert "signal 9" in output or "did not complete within 3 s" in output, output


@needs_mpi
def test_resume_from_a_checkpoint_with_a_different_number_of_ranks(tmp_path):
    status, output = launch(2, "resume", "1", tmp_path / "ckpt.h5", "-")
    assert status == 0, output
    run_ok(3, "resume", "2", tmp_path / "ckpt.h5", tmp_path / "resumed.npz")
    run_ok(1, "fit", tmp_path / "one.npz", 4)  # 4 epochs in one process, not interrupted
    assert_close(tmp_path / "one.npz", tmp_path / "resumed.npz",
                 keys=[f"adam_{i}" for i in range(4)])


@needs_mpi
@pytest.mark.parametrize("kind", ["arrays", "dataset"])
def test_backup_and_restore_resumes_mid_epoch_on_another_number_of_ranks(tmp_path, kind):
    # shuffled data, stopped after batch 2 of epoch 3 on 2 ranks, resumed there on 3
    run_ok(2, "backup", "1", tmp_path / "backup", tmp_path / "stopped.npz", kind)
    assert os.listdir(tmp_path / "backup") == ["backup.h5"]  # the chief's only
    run_ok(3, "backup", "2", tmp_path / "backup", tmp_path / "resumed.npz", kind)
    run_ok(1, "backup", "0", tmp_path / "unused", tmp_path / "one.npz", kind)
    assert_close(tmp_path / "one.npz", tmp_path / "resumed.npz")


# -- the recipes: the same flags under mpiexec ---------------------------------------------


def run_recipe(ranks: int, *argv) -> str:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    root = os.path.dirname(os.path.dirname(HERE))
    command = [_mpiexec(), "-n", str(ranks), sys.executable, "-m", *map(str, argv)]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                          timeout=DEADLINE)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _figures(output: str, prefix: str) -> list:
    lines = [line for line in output.splitlines() if line.startswith(prefix)]
    return [float(number) for line in lines for number in re.findall(r"\d+\.\d{4}", line)]


@pytest.fixture
def idx_dir(tmp_path):
    from kerasish.datasets import write_idx

    rng = np.random.default_rng(7)
    for name, count in (("train", 96), ("t10k", 30)):
        labels = rng.integers(0, 10, count).astype(np.uint8)
        images = rng.integers(0, 60, (count, 28, 28), dtype=np.uint8)
        for i, label in enumerate(labels):
            images[i, :, 2 * label:2 * label + 3] = 255
        write_idx(str(tmp_path / f"{name}-images-idx3-ubyte"), images)
        write_idx(str(tmp_path / f"{name}-labels-idx1-ubyte"), labels)
    return tmp_path


@needs_mpi
@pytest.mark.parametrize("ranks, loop", [(3, []), (2, ["--fit"])], ids=["loop-3", "fit-2"])
def test_the_mnist_recipe_under_mpiexec_follows_the_single_process_run(idx_dir, tmp_path,
                                                                       ranks, loop):
    def run(n):  # batches of 16 (3 ranks: 6, 5 and 5 examples), 2 epochs
        return run_recipe(n, "recipes.mnist", "--data-dir", idx_dir, "--batch-size", "16",
                          "--epochs", "2", "--quiet", "--logdir", tmp_path / f"logs{n}", *loop)

    alone, many = run(1), run(ranks)
    assert many.count("epoch 2:") == 1  # printed by rank 0 only
    np.testing.assert_allclose(_figures(many, "epoch"), _figures(alone, "epoch"), atol=2e-3)
    assert not os.path.exists(tmp_path / f"logs{ranks}") or len(
        os.listdir(tmp_path / f"logs{ranks}")) == 1  # one event file: rank 0's


@needs_mpi
def test_the_word2vec_recipe_under_mpiexec_follows_the_single_process_run(tmp_path):
    rng = np.random.default_rng(0)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(" ".join(f"w{i}" for i in rng.zipf(1.5, 20000) % 500))

    def run(n):
        return run_recipe(n, "recipes.word2vec", "--corpus", corpus, "--steps", "40",
                          "--print-every", "20", "--num-sampled", "16", "--quiet",
                          "--logdir", tmp_path / f"logs{n}")

    alone, two = run(1), run(2)
    losses = [float(x) for x in re.findall(r"Average loss at step \d+: ([\d.]+)", alone)]
    assert len(losses) == 2
    # each rank draws its own negatives for its half, so the losses agree only roughly
    np.testing.assert_allclose(
        [float(x) for x in re.findall(r"Average loss at step \d+: ([\d.]+)", two)], losses,
        rtol=0.2)
    assert sorted(os.listdir(tmp_path / "logs2"))[-2:] == ["projector_config.pbtxt", "vocab.tsv"]


@needs_mpi
def test_word2vec_neg_under_mpiexec_splits_batches_between_groups_and_follows_one_process(
        tmp_path):
    """neg draws its noise words before a batch is split, and each rank takes whole groups of
    pairs that share them: the summed gradients are the single process's, up to rounding."""
    rng = np.random.default_rng(0)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(" ".join(f"w{i}" for i in rng.zipf(1.5, 20000) % 500))

    def run(n):
        return run_recipe(n, "recipes.word2vec", "--loss", "neg", "--corpus", corpus,
                          "--epochs", "1", "--min-count", "1", "--batch-size", "48",
                          "--noise-group", "8", "--print-every", "40", "--quiet",
                          "--probe-words", "", "--logdir", tmp_path / f"logs{n}")

    alone, three = run(1), run(3)  # 6 groups of a batch: 2 per rank
    losses = [float(x) for x in re.findall(r"Average loss at step \d+: ([\d.]+)", alone)]
    assert len(losses) >= 3
    # the printed loss is rank 0's share of each batch; the embeddings are everyone's
    np.testing.assert_allclose(
        [float(x) for x in re.findall(r"Average loss at step \d+: ([\d.]+)", three)], losses,
        rtol=0.2)
    np.testing.assert_allclose(np.load(tmp_path / "logs3" / "embeddings.npy"),
                               np.load(tmp_path / "logs1" / "embeddings.npy"), atol=1e-5)


# -- alone (no MPI): the same calls answer as the only rank -----------------------------------


def test_alone_the_functions_answer_rank_0_of_1_and_change_nothing():
    ks.distribute.init()
    assert (ks.distribute.rank(), ks.distribute.size(), ks.distribute.local_rank()) == (0, 1, 0)
    assert ks.distribute.is_chief()
    w = ks.Variable([1.0, 2.0])
    ks.distribute.broadcast_variables([w])
    optimizer = ks.distribute.DistributedOptimizer(ks.optimizers.SGD(0.5))
    optimizer.apply_gradients([(ks.constant([1.0, 1.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.5, 1.5])


def _handed_over(monkeypatch, loss_of, shape=(512, 256), **gradient_args):
    """Which of the gradients of `loss_of(w, v)` (two variables) the tape handed over."""
    from kerasish.core import tape as tape_module
    from kerasish.distribute import handover

    monkeypatch.setattr(tape_module, "_taker", None)  # restored after the test
    handover.start()
    rng = np.random.default_rng(0)
    w, v = (ks.Variable(rng.normal(size=shape).astype("float32")) for _ in range(2))
    with ks.GradientTape() as tape:
        loss = loss_of(w, v)
    grads = tape.gradient(loss, [w, v], **gradient_args)
    return [g is not None and handover.take_handed_over(g._value) for g in grads]


def test_the_tape_hands_over_only_large_fresh_gradients_nothing_else_holds(monkeypatch):
    from kerasish.core import tape as tape_module
    from kerasish.distribute import handover

    assert _handed_over(monkeypatch, lambda w, v: ks.reduce_sum(w * v)) == [True, True]
    # small: not worth a call of its own
    assert _handed_over(monkeypatch, lambda w, v: ks.reduce_sum(w * v), (8, 8)) == [False] * 2
    # one array for both gradients (add passes its gradient on): neither
    assert _handed_over(monkeypatch, lambda w, v: w + v) == [False, False]
    # broadcasts of the seed: read-only views
    assert _handed_over(monkeypatch, lambda w, v: ks.reduce_sum(w + v)) == [False, False]
    # with the user's seeds, none (a gradient may be the seed itself)
    seed = np.ones((512, 256), np.float32)
    assert _handed_over(monkeypatch, lambda w, v: w * v, output_gradients=seed) == [False] * 2

    @ks.custom_gradient
    def doubled_gradient(x):
        return ks.identity(x), lambda dy: dy * 2.0

    # with a custom gradient, none: its function may return arrays it keeps (the tape
    # cannot tell that this one does not)
    assert _handed_over(monkeypatch, lambda w, v: ks.reduce_sum(doubled_gradient(w) * v)) == [
        False, False]
    # another tape records this backward pass: the arrays are values of its recording
    with ks.GradientTape():
        assert _handed_over(monkeypatch, lambda w, v: ks.reduce_sum(w * v)) == [False, False]
    # nothing takes them: nothing is marked
    tape_module.set_gradient_taker()
    w = ks.Variable(np.ones((512, 256), np.float32))
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(w * w)
    assert not handover.take_handed_over(tape.gradient(loss, w)._value)


def test_compute_average_loss_is_the_share_of_the_global_batchs_mean():
    per_example = ks.constant([[1.0, 3.0], [2.0, 2.0]])
    assert float(ks.distribute.compute_average_loss(per_example, global_batch_size=4)) == 2.0
    assert float(ks.distribute.compute_average_loss(per_example)) == 4.0  # alone: 2 examples
    weighted = ks.distribute.compute_average_loss(ks.constant([1.0, 2.0]),
                                                  ks.constant([2.0, 0.0]), 4)  # TF's order
    assert float(weighted) == 0.5
    with pytest.raises(ValueError, match="global_batch_size must be > 0, got 0"):
        ks.distribute.compute_average_loss(per_example, global_batch_size=0)
    with pytest.raises(ValueError, match="per_example_loss is a scalar"):
        ks.distribute.compute_average_loss(ks.constant(1.0))
    w = ks.Variable([1.0, 2.0])
    with ks.GradientTape() as tape:
        loss = ks.distribute.compute_average_loss(w * w, global_batch_size=4)
    np.testing.assert_allclose(tape.gradient(loss, w).numpy(), [0.5, 1.0])


def test_distributed_optimizer_errors_name_what_was_wrong():
    with pytest.raises(TypeError, match="expected a ks.optimizers.Optimizer, got str"):
        ks.distribute.DistributedOptimizer("adam")
    with pytest.raises(ValueError, match="op must be 'mean' or 'sum', got 'max'"):
        ks.distribute.DistributedOptimizer(ks.optimizers.SGD(0.1), op="max")
    with pytest.raises(ValueError, match="bucket_bytes must be > 0, got 0"):
        ks.distribute.DistributedOptimizer(ks.optimizers.SGD(0.1), bucket_bytes=0)


def test_timeout_must_be_a_positive_number(monkeypatch):
    with pytest.raises(ValueError, match="must be > 0 s, got -1.0"):
        ks.distribute.init(timeout=-1)
    monkeypatch.setenv("KERASISH_DISTRIBUTE_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="a number of seconds, got 'soon'"):
        ks.distribute.init()
    monkeypatch.delenv("KERASISH_DISTRIBUTE_TIMEOUT")
    ks.distribute.init(timeout=300)
    assert ks.distribute.timeout() == 300


def test_launched_without_mpi4py_says_how_to_install_it(monkeypatch):
    from kerasish.distribute import communicator

    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setattr(communicator, "_state", communicator._State())
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import fails
    with pytest.raises(ImportError, match=r'pip install "kerasish\[mpi\]"'):
        ks.distribute.init()


def test_shard_bounds_split_a_batch_into_contiguous_parts_differing_by_at_most_one():
    from kerasish.distribute.training import shard_bounds

    for batch in range(3, 20):
        for size in (2, 3, 4):
            parts = [shard_bounds(batch, r, size) for r in range(size)]
            assert parts[0][0] == 0 and parts[-1][1] == batch
            assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
            lengths = [stop - start for start, stop in parts]
            assert max(lengths) - min(lengths) <= 1


def test_the_loss_share_is_read_live_by_a_compiled_step():
    """A step traced while fit scales losses, replayed outside it (or the other way round),
    scales by what applies at the call: the share, or 1."""
    exchange = ks.distribute.GradientExchange()
    step = ks.function(lambda x: exchange.scale_loss(x * 2.0))
    x = ks.constant(3.0)
    exchange.set_batch(1, 4, scales_losses=True)
    assert [float(step(x)) for _ in range(3)] == [1.5, 1.5, 1.5]
    exchange.set_batch(1.0, None)  # as fit leaves it
    assert [float(step(x)) for _ in range(2)] == [6.0, 6.0]
    exchange.set_batch(2, 8, scales_losses=True)
    assert float(step(x)) == 1.5
    assert step.trace_count <= 3  # replays, not new traces
    summed = ks.distribute.GradientExchange(op="sum")
    summed.set_batch(1, 4, scales_losses=True)
    assert float(summed.scale_loss(x)) == 3.0 and not summed.scales_losses


def test_a_compiled_step_traced_before_the_optimizer_was_distributed_exchanges_after():
    """fit makes the optimizer distributed at its start: a step compiled before (by
    train_on_batch, say) must then apply through the exchange, not its replay plan."""
    w = ks.Variable([1.0, 2.0])
    optimizer = ks.optimizers.SGD(0.5)
    seen = []

    @ks.function
    def step(x):
        with ks.GradientTape() as tape:
            loss = ks.reduce_sum(w * x)
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])

    x = ks.constant([1.0, 1.0])
    for _ in range(4):
        step(x)
    exchange = ks.distribute.DistributedOptimizer(optimizer).gradient_exchange
    exchange.__class__ = type("Recording", (type(exchange),), {
        "__call__": lambda self, prepared: seen.append(len(prepared)) or prepared})
    step(x)
    assert seen == [1]
    np.testing.assert_allclose(w.numpy(), [1.0 - 2.5, 2.0 - 2.5])
