"""What the recipes print: --help, progress on a terminal and in a log, Ctrl-C, device
errors, the MNIST fallback reason, TensorBoard contents and the closing hint."""

from __future__ import annotations

import fcntl
import glob
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import numpy as np
import pytest

import kerasish as ks
from recipes import huber_regression, linear_regression, mnist, word2vec

ROOT = Path(__file__).resolve().parents[2]
RECIPES = {"linear_regression": linear_regression, "huber_regression": huber_regression,
           "mnist": mnist, "word2vec": word2vec}


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _mnist_command(idx_dir, tmp_path, *extra):
    return [sys.executable, "-m", "recipes.mnist", "--data-dir", idx_dir, "--limit", "192",
            "--batch-size", "32", "--epochs", "2", "--blas-threads", "1",
            "--logdir", str(tmp_path / "logs"), *extra]


def _option_blocks(help_text: str) -> dict:
    """{'--epochs': 'the option's help text, joined'} from argparse's --help output."""
    blocks, current = {}, None
    for line in help_text.splitlines():
        match = re.match(r"^  (-\S+)", line)
        if match:
            current = match.group(1).rstrip(",")
            blocks[current] = line
        elif current and line.startswith("    "):
            blocks[current] += " " + line.strip()
        else:
            current = None
    return blocks


# ---------------------------------------------------------------- --help


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_help_shows_every_default_once(name, capsys):
    with pytest.raises(SystemExit) as exc:
        RECIPES[name].main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: python -m recipes.{name} ")
    blocks = _option_blocks(text)
    assert {"--logdir", "--checkpoint-dir", "--device", "--seed"} <= set(blocks)
    for block in blocks.values():
        assert block.lower().count("default") <= 1, block
    assert "(default: 0)" in blocks["--seed"] and "(default: cpu)" in blocks["--device"]
    assert "(default: runs/" in blocks["--logdir"]
    if name == "mnist":
        assert "(default: 10)" in blocks["--epochs"]
        assert "(default: 128)" in blocks["--batch-size"]
        assert "(default: mlp)" in blocks["--model"]


def test_help_through_the_kerasish_command_names_it(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kerasish", "mnist", "--help"], cwd=tmp_path,
                            env=_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: kerasish mnist ")


# ---------------------------------------------------------------- progress and lines


@pytest.mark.parametrize("loop", ["tape", "fit"])
def test_a_log_gets_one_line_per_epoch_and_no_redraws(loop, idx_dir, tmp_path):
    extra = ["--fit"] if loop == "fit" else []
    result = subprocess.run(_mnist_command(idx_dir, tmp_path, *extra), cwd=ROOT, env=_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("epoch ")] == \
        ["epoch 1", "epoch 2"]
    assert "Epoch 1/2" not in result.stdout  # fit's own lines are off: each epoch once
    assert lines[-1].endswith(f"TensorBoard: tensorboard --logdir {tmp_path / 'logs'}")


def _run_on_a_terminal(command, interrupt_after=None, timeout=120.0) -> tuple[int, str]:
    """Run `command` with stdout and stderr on a pseudo-terminal; optionally send SIGINT
    when `interrupt_after` appears. Returns (exit status, everything written)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = dict(_env(), TQDM_MININTERVAL="0")  # redraw at every step: no timing involved
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=slave, stderr=slave,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    output, sent, deadline = b"", False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                break
            if interrupt_after and not sent and interrupt_after.encode() in output:
                process.send_signal(signal.SIGINT)
                sent = True
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
        process.wait()
    # the terminal turns each newline into CR LF: undo that, so that a CR is a redraw
    return process.returncode, output.decode("utf-8", "replace").replace("\r\n", "\n")


def test_on_a_terminal_the_bar_shows_running_loss_and_accuracy(idx_dir, tmp_path):
    status, output = _run_on_a_terminal(
        _mnist_command(idx_dir, tmp_path, "--batch-size", "4"))
    assert status == 0, output
    assert re.search(r"\repoch 1/2: .*accuracy=\d\.\d{4}, loss=\d\.\d{4}", output), output
    assert "\revaluate: " in output


@pytest.mark.parametrize("run", ["mnist", "mnist --fit", "word2vec"])
def test_ctrl_c_leaves_no_half_drawn_bar(run, idx_dir, tmp_path):
    if run == "word2vec":
        corpus = tmp_path / "corpus.txt"
        corpus.write_text("the cat and the dog and the cow " * 100)
        command = [sys.executable, "-m", "recipes.word2vec", "--loss", "nce", "--corpus",
                   str(corpus), "--vocab-size", "6", "--num-sampled", "2", "--dim", "4",
                   "--steps", "100000000", "--print-every", "50", "--logdir",
                   str(tmp_path / "logs"), "--checkpoint-dir", str(tmp_path / "ckpt")]
        marker = "Average loss at step 50"
    else:
        command = _mnist_command(idx_dir, tmp_path, "--batch-size", "2", "--epochs", "100000",
                                 "--checkpoint-dir", str(tmp_path / "ckpt"), *run.split()[1:])
        marker = "epoch 1: loss"
    status, output = _run_on_a_terminal(command, interrupt_after=marker)
    assert status == 130, output
    recipe = run.split()[0]
    before, after = output.split(f"{recipe}: interrupted at step")
    # the bar's line was cleared (a carriage return, blanks, a carriage return) before the message
    assert before.rsplit("\r", 1)[-1].strip() == "", repr(before[-300:])
    assert "checkpoint saved to" in after or "not saved: resume starts" in after


# ---------------------------------------------------------------- closing hint


def test_every_recipe_ends_with_the_tensorboard_hint(tmp_path, idx_dir, capsys):
    logs = tmp_path / "logs"
    linear_regression.main(["--steps", "3", "--logdir", str(logs / "linear")])
    huber_regression.main(["--epochs", "1", "--points", "10", "--quiet",
                           "--logdir", str(logs / "huber")])
    mnist.main(["--data-dir", idx_dir, "--limit", "64", "--epochs", "1", "--quiet",
                "--logdir", str(logs / "mnist")])
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat and the dog and the cow " * 50)
    word2vec.main(["--loss", "neg", "--corpus", str(corpus), "--min-count", "1", "--epochs", "1",
                   "--dim", "4", "--quiet", "--probe-words", "cat",
                   "--logdir", str(logs / "word2vec")])
    out = capsys.readouterr().out
    assert "epoch 1/1: mean loss per pair " in out  # word2vec neg: a line per epoch
    summaries = [line for line in out.splitlines() if "TensorBoard:" in line]
    assert [s.rsplit("--logdir ", 1)[1] for s in summaries] == [
        str(logs / name) for name in ("linear", "huber", "mnist", "word2vec")]


# ---------------------------------------------------------------- TensorBoard contents


def test_mnist_logs_steps_learning_rate_histograms_and_sample_predictions(idx_dir, tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    logdir = tmp_path / "logs"
    mnist.main(["--data-dir", idx_dir, "--limit", "192", "--batch-size", "32", "--epochs", "2",
                "--quiet", "--log-every", "4", "--logdir", str(logdir)])
    events = accumulator.EventAccumulator(str(logdir),
                                          size_guidance={"tensors": 0, "histograms": 0})
    events.Reload()
    tags = events.Tags()
    assert [e.step for e in events.Scalars("batch_loss")] == [0, 4, 8]  # 12 steps, every 4
    rates = [e.value for e in events.Scalars("learning_rate")]
    assert rates[0] == pytest.approx(2e-3) and rates[-1] < rates[0]  # the cosine decay
    histograms = [t for t in tags["histograms"] if t.startswith("weights/")]
    assert len(histograms) == 6  # 3 Dense layers, kernel and bias
    assert [e.step for e in events.Histograms(histograms[0])] == [1, 2]
    assert "test_samples" in tags["tensors"] or any(
        t.startswith("test_samples") for t in tags.get("images", []))
    text = events.Tensors("test_samples_predictions/text_summary")[-1].tensor_proto
    table = text.string_val[0].decode()
    assert "| sample | predicted | probability | true label |" in table
    assert table.count("\n| ") == mnist.SAMPLES


# ---------------------------------------------------------------- device and data messages


def test_device_gpu_without_a_gpu_is_one_line_before_any_data(monkeypatch):
    if ks.num_gpus() > 0:
        pytest.skip("this machine has a GPU")

    def no_loading(*args, **kwargs):
        raise AssertionError("data were loaded before the device was checked")

    monkeypatch.setattr(mnist, "load", no_loading)
    with pytest.raises(SystemExit) as exc:
        mnist.main(["--device", "gpu"])
    message = str(exc.value.code)
    assert message.startswith("mnist: --device gpu: GPU requested ('/gpu:0') but CuPy ")
    assert "\n" not in message
    with pytest.raises(SystemExit, match=r"^linear_regression: --device tpu: device: cannot "
                       r"parse 'tpu'"):
        linear_regression.main(["--device", "tpu"])


def test_mnist_fallback_prints_the_whole_reason(monkeypatch, capsys):
    reason = "MNIST was not found. Looked in, in order:\n  - path argument: not given\n" \
             "  - download: cannot connect\nTo fix: pass --data-dir DIR"

    def missing(path=None):
        raise ks.datasets.DatasetNotFoundError(reason)

    images = np.zeros((2, 28, 28), np.uint8)
    monkeypatch.setattr(ks.datasets.mnist, "load_data", missing)
    monkeypatch.setattr(ks.datasets.fashion_mnist, "load_data",
                        lambda path=None: ((images, np.zeros(2)), (images, np.zeros(2))))
    *_, name = mnist.load(None, None, print)
    assert name == "fashion_mnist"
    assert capsys.readouterr().out.splitlines() == [
        "MNIST not available, using Fashion-MNIST; the reason:",
        "  MNIST was not found. Looked in, in order:",
        "  - path argument: not given",
        "  - download: cannot connect",
        "  To fix: pass --data-dir DIR",
    ]


def test_plot_without_matplotlib_names_the_recipes_extra_before_training(monkeypatch, tmp_path,
                                                                         capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    with pytest.raises(SystemExit) as exc:
        linear_regression.main(["--steps", "2", "--plot", str(tmp_path / "fit.png"),
                                "--logdir", str(tmp_path / "logs")])
    assert exc.value.code == 2
    assert "--plot needs matplotlib: pip install -e '.[recipes]'" in capsys.readouterr().err
    assert not glob.glob(str(tmp_path / "*.png")) and not (tmp_path / "logs").exists()
