"""Exact resume for every recipe and both MNIST loops, with non-zero --seed values.

Each recipe, with its compiled steps, is interrupted by Ctrl-C as the recipes handle
it (a SIGINT arriving during a step: the step finishes, a checkpoint is saved, exit
status 130), at a later epoch and mid-epoch, then run again with the same
--checkpoint-dir. It must end bit for bit where an uninterrupted run ends: the
same reported numbers and the same final weights.
"""

from __future__ import annotations

import itertools
import os
import signal

import numpy as np
import pytest

import kerasish as ks
from kerasish.checkpoint import read_values
from recipes import common, huber_regression, linear_regression, mnist, word2vec


@pytest.fixture
def interrupt_at(monkeypatch):
    """interrupt_at(n): SIGINT as the n-th step from now ends, just before the recipe looks for
    an interrupt (`Session.check_interrupt`, called between steps). The recipes' steps are
    compiled with ks.function, so their optimizer update is replayed, not a Python call of
    `apply_gradients` that could be counted; `fit` stops at its n-th batch this way too."""

    def arm(call: int) -> None:
        original = common.Session.check_interrupt
        count = itertools.count(1)

        def check_interrupt(self):
            if next(count) == call:
                os.kill(os.getpid(), signal.SIGINT)  # the recipe's handler sets its flag
            return original(self)

        monkeypatch.setattr(common.Session, "check_interrupt", check_interrupt)

    return arm


def _interrupted(run, interrupt_at, monkeypatch, call: int, capsys) -> str:
    interrupt_at(call)
    with pytest.raises(SystemExit) as exc:
        run()
    monkeypatch.undo()
    assert exc.value.code == 130
    return capsys.readouterr().out


def _model_values(checkpoint_dir) -> dict:
    values = read_values(ks.latest_checkpoint(str(checkpoint_dir)))
    return {k: v for k, v in values.items() if k.startswith("model/")}


def _assert_same_weights(a_dir, b_dir):
    a, b = _model_values(a_dir), _model_values(b_dir)
    assert sorted(a) == sorted(b) and a
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


# ---------------------------------------------------------------- MNIST

MNIST_CASES = [  # model, loop, where the run is stopped
    ("mlp", "tape", "epoch boundary"), ("mlp", "tape", "mid-epoch"),
    ("cnn", "tape", "mid-epoch"),  # dropout: the generator is in the checkpoint
    ("mlp", "fit", "epoch boundary"), ("mlp", "fit", "mid-epoch"), ("cnn", "fit", "mid-epoch"),
]


@pytest.mark.parametrize("model, loop, where", MNIST_CASES)
def test_mnist_resumes_exactly(model, loop, where, idx_dir, tmp_path, interrupt_at, monkeypatch,
                               capsys):
    # 192 examples in batches of 32: 6 steps per epoch, 3 epochs
    def argv(name, *extra):
        return ["--data-dir", idx_dir, "--limit", "192", "--batch-size", "32", "--quiet",
                "--blas-threads", "1", "--seed", "7", "--model", model, "--decay-epochs", "3",
                "--logdir", str(tmp_path / f"logs-{name}"),
                "--checkpoint-dir", str(tmp_path / name), *extra,
                *(["--fit"] if loop == "fit" else [])]

    straight = mnist.main(argv("straight", "--epochs", "3"))
    if where == "epoch boundary":  # two epochs, then a third in a new run
        mnist.main(argv("resumed", "--epochs", "2"))
    else:  # stopped during step 9 of 18 (the middle of epoch 2)
        out = _interrupted(lambda: mnist.main(argv("resumed", "--epochs", "3")), interrupt_at,
                           monkeypatch, 9, capsys)
        assert "interrupted at step" in out
    resumed = mnist.main(argv("resumed", "--epochs", "3"))
    for key in ("loss", "accuracy", "test_loss", "test_accuracy"):
        assert resumed[key] == straight[key], key
    _assert_same_weights(tmp_path / "resumed", tmp_path / "straight")


def test_mnist_epoch_orders_do_not_depend_on_when_the_pipeline_is_built():
    x, y = np.arange(40, dtype=np.float32), np.arange(40)

    def order(epoch):
        return np.concatenate([b[1].numpy() for b in mnist.batches(
            x, y, 8, mnist.epoch_seed(7, epoch))])

    first = order(2)
    ks.random.set_seed(99)  # what a resumed run may have done before
    assert (order(2) == first).all() and not (order(1) == first).all()


# ---------------------------------------------------------------- regressions


def test_linear_regression_resumes_exactly_mid_run(tmp_path, interrupt_at, monkeypatch, capsys):
    def argv(name):
        return ["--steps", "60", "--seed", "5", "--save-every", "25", "--examples", "200",
                "--checkpoint-dir", str(tmp_path / name), "--logdir", str(tmp_path / "logs")]

    straight = linear_regression.main(argv("straight"))
    out = _interrupted(lambda: linear_regression.main(argv("resumed")), interrupt_at,
                       monkeypatch, 37, capsys)
    assert "interrupted at step 37" in out  # after the save at 25: the interrupt's own
    resumed = linear_regression.main(argv("resumed"))
    for key in ("W", "B", "loss"):
        assert resumed[key] == straight[key], key


def test_huber_regression_resumes_exactly_at_a_later_epoch(tmp_path, interrupt_at,
                                                           monkeypatch, capsys):
    def argv(name):
        return ["--points", "40", "--epochs", "6", "--seed", "3", "--quiet", "--save-every", "0",
                "--checkpoint-dir", str(tmp_path / name), "--logdir", str(tmp_path / "logs")]

    straight = huber_regression.main(argv("straight"))
    # per-example steps, 40 per epoch, an interrupt looked for after each epoch: Ctrl-C during
    # epoch 3 of the Huber fit finishes that epoch
    _interrupted(lambda: huber_regression.main(argv("resumed")), interrupt_at, monkeypatch,
                 3, capsys)
    assert ks.latest_checkpoint(str(tmp_path / "resumed" / "huber")) is not None
    resumed = huber_regression.main(argv("resumed"))
    assert resumed == straight


# ---------------------------------------------------------------- word2vec


def _corpus(tmp_path) -> str:
    rng = np.random.default_rng(1)
    words = [["cat", "dog", "cow", "red", "blue", "green", "the", "a"][i]
             for i in rng.integers(0, 8, 3000)]
    path = tmp_path / "corpus.txt"
    path.write_text(" ".join(words))
    return str(path)


@pytest.mark.parametrize("loss", ["nce", "neg"])
def test_word2vec_resumes_exactly_mid_epoch_at_a_later_epoch(loss, tmp_path, capsys):
    corpus = _corpus(tmp_path)
    common = ["--loss", loss, "--corpus", corpus, "--min-count", "1", "--dim", "8", "--seed", "11",
              "--batch-size", "64", "--quiet", "--probe-words", "cat", "--save-every", "0"]
    common += (["--num-sampled", "3", "--steps", "250"] if loss == "nce"
               else ["--epochs", "3", "--negatives", "3"])

    def argv(name):
        return [*common, "--checkpoint-dir", str(tmp_path / name),
                "--logdir", str(tmp_path / f"logs-{name}")]

    straight = word2vec.main(argv("straight"))
    stop = straight["steps"] * 5 // 8  # within a later epoch (nce: about 90 steps per epoch)

    def interrupt(step):
        if step == stop:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(SystemExit) as exc:
        word2vec.main(argv("resumed"), on_step=interrupt)
    assert exc.value.code == 130
    position = read_values(ks.latest_checkpoint(str(tmp_path / "resumed")))["position"]
    assert position[0] >= 1 and position[2] > 0  # a later epoch, mid-chunk
    capsys.readouterr()
    resumed = word2vec.main(argv("resumed"))
    assert resumed["steps"] == straight["steps"]
    np.testing.assert_array_equal(resumed["embeddings"], straight["embeddings"])
