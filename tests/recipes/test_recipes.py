"""The recipes end to end, on tiny data made here: summary lines, --help, resuming from a
checkpoint, Huber against squared loss, linear regression's fit, Ctrl-C, TensorBoard files.

MNIST runs read four small IDX files written by the `idx_dir` fixture (conftest.py) into a
temporary directory (--data-dir): never the real datasets, never the network.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kerasish as ks
from recipes import huber_regression, linear_regression, mnist

ROOT = Path(__file__).resolve().parents[2]
RECIPES = {"linear_regression": linear_regression, "huber_regression": huber_regression,
           "mnist": mnist}


def _mnist_args(idx_dir, tmp_path, name, *extra):
    return ["--data-dir", idx_dir, "--limit", "192", "--batch-size", "32", "--quiet",
            "--blas-threads", "1",
            "--logdir", str(tmp_path / f"logs-{name}"), *extra]


def _event_files(logdir) -> list:
    return glob.glob(os.path.join(str(logdir), "**", "events.out.tfevents.*"), recursive=True)


# ---------------------------------------------------------------- --help


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_help_exits_cleanly(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        RECIPES[name].main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert f"python -m recipes.{name}" in out
    for flag in ("--logdir", "--checkpoint-dir", "--device", "--seed"):
        assert flag in out


# ---------------------------------------------------------------- linear regression


def test_linear_regression_ends_near_the_true_line(tmp_path, capsys):
    result = linear_regression.main(["--logdir", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert "Loss at step 000" in out and "Loss at step 280" in out  # every 20 steps, as the seeds
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("linear_regression: W = ")
    assert abs(result["W"] - 3.0) < 0.15
    assert abs(result["B"] - 2.0) < 0.15
    assert abs(result["loss"] - 1.0) < 0.15  # the noise variance
    assert _event_files(tmp_path / "logs")


def test_linear_regression_resume_matches_an_uninterrupted_run(tmp_path):
    checkpoints = str(tmp_path / "ckpt")
    common = ["--save-every", "0", "--logdir", str(tmp_path / "logs")]
    linear_regression.main(["--steps", "120", "--checkpoint-dir", checkpoints, *common])
    resumed = linear_regression.main(["--steps", "250", "--checkpoint-dir", checkpoints, *common])
    fresh = linear_regression.main(["--steps", "250", "--logdir", str(tmp_path / "fresh")])
    for key in ("W", "B", "loss"):
        assert resumed[key] == fresh[key]


# ---------------------------------------------------------------- Huber regression


def test_huber_is_pulled_less_by_outliers_than_squared_loss(tmp_path, capsys):
    result = huber_regression.main(["--quiet", "--logdir", str(tmp_path / "logs")])
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.startswith("huber_regression (eager Huber, m=1): huber: y = ")
    assert "mean distance from the true line" in summary
    assert result["huber"]["error"] < 0.5 * result["squared"]["error"]
    assert result["huber"]["error"] < 0.5
    assert abs(result["huber"]["w"] - huber_regression.TRUE_W) < 0.3
    # one log directory per fit, each with its own event file
    assert _event_files(tmp_path / "logs" / "huber") and _event_files(tmp_path / "logs" / "squared")


def test_huber_reads_the_birth_life_format(tmp_path, capsys):
    data = tmp_path / "birth_life.txt"
    rows = ["Country\tBirth rate\tLife expectancy"]
    rows += [f"C{i}\t{b:.3f}\t{85 - 6 * b:.3f}" for i, b in enumerate(np.linspace(1, 7, 25))]
    data.write_text("\n".join(rows) + "\n")
    result = huber_regression.main(["--data", str(data), "--epochs", "3", "--quiet",
                                    "--logdir", str(tmp_path / "logs")])
    assert "(25 countries)" not in capsys.readouterr().out  # --quiet: only the summary
    assert set(result) == {"huber", "squared"}


def test_huber_resume_matches_an_uninterrupted_run(tmp_path):
    checkpoints = str(tmp_path / "ckpt")
    common = ["--points", "40", "--quiet", "--save-every", "0"]
    huber_regression.main(["--epochs", "4", "--checkpoint-dir", checkpoints,
                           "--logdir", str(tmp_path / "a"), *common])
    resumed = huber_regression.main(["--epochs", "9", "--checkpoint-dir", checkpoints,
                                     "--logdir", str(tmp_path / "a"), *common])
    fresh = huber_regression.main(["--epochs", "9", "--logdir", str(tmp_path / "b"), *common])
    assert resumed == fresh


# ---------------------------------------------------------------- MNIST


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_mnist_trains_and_prints_its_summary(model, idx_dir, tmp_path, capsys):
    history = mnist.main(_mnist_args(idx_dir, tmp_path, model, "--model", model, "--epochs", "2"))
    out = capsys.readouterr().out
    assert "dataset: mnist (192 train, 32 test images)" in out
    assert "epoch 2: loss" in out
    summary = out.strip().splitlines()[-1]
    assert summary.startswith(f"mnist: mnist {model}, 2 epochs: test accuracy ")
    assert set(history) >= {"loss", "accuracy", "test_loss", "test_accuracy", "seconds"}
    assert np.isfinite(history["test_loss"])
    if model == "mlp":  # the squares are easy to tell apart
        assert history["test_accuracy"] > 0.5
    assert _event_files(tmp_path / f"logs-{model}")


@pytest.mark.parametrize(
    "model, loop", [("mlp", "tape"), ("mlp", "fit"), ("cnn", "tape")]
)
def test_mnist_resume_matches_an_uninterrupted_run(model, loop, idx_dir, tmp_path):
    # the cosine schedule's length is fixed, so that the 1-epoch run follows the 2-epoch curve
    extra = ["--model", model, "--decay-epochs", "2"] + (["--fit"] if loop == "fit" else [])
    checkpoints = str(tmp_path / "ckpt")
    mnist.main(_mnist_args(idx_dir, tmp_path, "a", *extra, "--epochs", "1",
                           "--checkpoint-dir", checkpoints))
    assert ks.latest_checkpoint(checkpoints) is not None
    resumed = mnist.main(_mnist_args(idx_dir, tmp_path, "a", *extra, "--epochs", "2",
                                     "--checkpoint-dir", checkpoints))
    fresh = mnist.main(_mnist_args(idx_dir, tmp_path, "b", *extra, "--epochs", "2"))
    for key in ("loss", "accuracy", "test_loss", "test_accuracy"):
        assert resumed[key] == fresh[key], key


# ---------------------------------------------------------------- Ctrl-C


def _run_until(command, marker: str, timeout: float = 60.0):
    """Start `command`, read its output until a line contains `marker`; return the process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # a child inherits an ignored SIGINT (a test run started in the background by a
    # non-interactive shell), and Python then installs no KeyboardInterrupt handler:
    # give the recipe the default disposition, as a terminal would
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return process, lines
    process.kill()
    process.wait()
    pytest.fail(f"never saw {marker!r} in the output:\n{''.join(lines)}")


@pytest.mark.parametrize("recipe", ["linear_regression", "mnist"])
def test_sigint_saves_a_checkpoint_and_exits_130(recipe, idx_dir, tmp_path):
    checkpoints = tmp_path / "ckpt"
    command = [sys.executable, "-u", "-m", f"recipes.{recipe}", "--checkpoint-dir",
               str(checkpoints), "--logdir", str(tmp_path / "logs")]
    if recipe == "linear_regression":
        command += ["--steps", "100000000", "--save-every", "0"]
        marker = "Loss at step 020"
    else:
        command += ["--data-dir", idx_dir, "--epochs", "100000", "--batch-size", "8", "--quiet"]
        marker = "epoch 1: loss"
    process, lines = _run_until(command, marker)
    process.send_signal(signal.SIGINT)
    try:
        rest, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    output = "".join(lines) + rest
    assert process.returncode == 130, output
    assert "interrupted at step" in output and "checkpoint saved to" in output, output
    latest = ks.latest_checkpoint(str(checkpoints))
    assert latest is not None and os.path.exists(latest)
    assert _event_files(tmp_path / "logs")
    if recipe == "linear_regression":  # no periodic saves: the checkpoint is the interrupt's
        step = int(output.split("interrupted at step ")[1].split(";")[0])
        assert step >= 20
        result = linear_regression.main(["--steps", str(step + 3), "--checkpoint-dir",
                                         str(checkpoints), "--logdir", str(tmp_path / "logs")])
        assert np.isfinite(result["loss"])


def _session(tmp_path):
    from recipes.common import Session, parser_for

    args = parser_for("demo", "a test").parse_args(
        ["--checkpoint-dir", str(tmp_path / "ckpt"), "--logdir", str(tmp_path / "logs")])
    return Session("demo", args, w=ks.Variable(0.0))


@pytest.mark.parametrize("signals", [1, 2])
def test_ctrl_c_finishes_the_step_and_a_second_one_stops_at_once(tmp_path, capsys, signals):
    """The first signal only sets a flag (so nothing can swallow it, and the checkpoint
    is taken between steps); a second one raises where it lands."""
    session = _session(tmp_path)
    finished = []
    before = signal.getsignal(signal.SIGINT)  # (SIG_IGN where pytest started in the background)
    with pytest.raises(SystemExit) as exc:
        with session.saving_on_interrupt():
            for i in range(5):
                if i == 2:
                    for _ in range(signals):
                        os.kill(os.getpid(), signal.SIGINT)
                finished.append(i)
                session.step.assign_add(1)
                session.check_interrupt()
    assert exc.value.code == 130
    assert finished == ([0, 1, 2] if signals == 1 else [0, 1])
    assert f"interrupted at step {len(finished)}; checkpoint saved" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGINT) is before  # restored


def test_a_signal_after_the_last_step_still_stops_the_run(tmp_path, capsys):
    session = _session(tmp_path)
    with pytest.raises(SystemExit) as exc:
        with session.saving_on_interrupt():
            session.step.assign_add(1)
            os.kill(os.getpid(), signal.SIGTERM)
    assert exc.value.code == 130
    assert "interrupted at step 1; checkpoint saved" in capsys.readouterr().out


def test_a_diverging_run_stops_with_a_clear_message(tmp_path):
    argv = ["--learning-rate", "100", "--steps", "60", "--logdir", str(tmp_path / "logs"),
            "--checkpoint-dir", str(tmp_path / "ckpt"), "--save-every", "2"]
    with pytest.raises(SystemExit, match=r"linear_regression: the loss became (nan|inf) at step "
                                          r"\d+: training diverged; lower --learning-rate; the "
                                          r"last checkpoint, .*ckpt-\d+\.h5, is from before"):
        with pytest.warns(RuntimeWarning):  # NumPy's overflow warning on the way
            linear_regression.main(argv)


def test_a_finished_run_started_again_does_not_warn_about_unused_slots(tmp_path):
    """Adam's slots are made by the first training step; a finished run resumed trains no
    step, so their saved values are never used, which the recipe expects."""
    import gc
    import warnings

    from recipes.common import Session, parser_for

    args = parser_for("demo", "a test").parse_args(
        ["--checkpoint-dir", str(tmp_path / "ckpt"), "--logdir", str(tmp_path / "logs")])
    w = ks.Variable([1.0, 2.0])
    optimizer = ks.optimizers.Adam(0.1)
    first = Session("demo", args, w=w, optimizer=optimizer)
    with first.saving_on_interrupt():
        optimizer.apply_gradients([(ks.constant([1.0, 1.0]), w)])
        first.step.assign_add(1)
    first.save()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = Session("demo", args, w=ks.Variable([0.0, 0.0]), optimizer=ks.optimizers.Adam())
        assert again.resumed_from and int(again.step) == 1
        with again.saving_on_interrupt():
            pass  # nothing left to train
        del again
        gc.collect()
    assert not [w for w in caught if "never used" in str(w.message)]


def test_linear_regression_quiet_prints_only_its_result(tmp_path, capsys):
    from recipes import linear_regression

    linear_regression.main(["--quiet", "--steps", "30", "--logdir", str(tmp_path / "logs")])
    assert capsys.readouterr().out.splitlines()[0].startswith("linear_regression: W =")


def test_huber_regression_says_where_it_resumed(tmp_path, capsys):
    from recipes import huber_regression

    common = ["--points", "20", "--logdir", str(tmp_path / "logs"), "--checkpoint-dir",
              str(tmp_path / "ckpt")]
    huber_regression.main(common + ["--epochs", "2"])
    capsys.readouterr()
    huber_regression.main(common + ["--epochs", "3"])
    out = capsys.readouterr().out
    assert "[huber] resumed from" in out and "at epoch 2" in out
