"""The recipes compile their training steps with ks.function by default; --eager runs them op
by op. Both must end with identical numbers, and the compiled run must really replay (no
fall-back to eager, no Python optimizer call per step)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kerasish as ks
from recipes import huber_regression, linear_regression, mnist, word2vec


def _run(main, argv, monkeypatch):
    """main(argv): its result, the number of Python calls of apply_gradients, and the
    ks.function warnings it gave."""
    original = ks.optimizers.Optimizer.apply_gradients
    count = itertools.count()

    def apply_gradients(self, *args, **kwargs):
        next(count)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ks.optimizers.Optimizer, "apply_gradients", apply_gradients)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = main(argv)
    monkeypatch.undo()
    return result, next(count), [str(w.message) for w in caught if "ks.function" in str(w.message)]


def _compiled_and_eager(main, argv, monkeypatch):
    compiled, compiled_calls, compiled_warnings = _run(main, argv, monkeypatch)
    eager, eager_calls, _ = _run(main, [*argv, "--eager"], monkeypatch)
    assert compiled_warnings == []
    assert compiled_calls < eager_calls / 4, (compiled_calls, eager_calls)  # traced, then replayed
    return compiled, eager


def test_linear_regression_compiled_equals_eager(tmp_path, monkeypatch):
    argv = ["--steps", "40", "--examples", "100", "--seed", "2", "--quiet",
            "--logdir", str(tmp_path)]
    compiled, eager = _compiled_and_eager(linear_regression.main, argv, monkeypatch)
    for key in ("W", "B", "loss"):
        assert compiled[key] == eager[key], key


def test_huber_regression_compiled_equals_eager(tmp_path, monkeypatch):
    # the Huber loss's Python `if` on a tensor: both branches are met and replayed
    argv = ["--points", "30", "--epochs", "4", "--seed", "1", "--quiet", "--logdir", str(tmp_path)]
    compiled, eager = _compiled_and_eager(huber_regression.main, argv, monkeypatch)
    assert compiled == eager


@pytest.mark.parametrize("model, loop", [("mlp", "tape"), ("cnn", "tape"), ("mlp", "fit")])
def test_mnist_compiled_equals_eager(model, loop, idx_dir, tmp_path, monkeypatch):
    argv = ["--data-dir", idx_dir, "--limit", "192", "--batch-size", "16", "--epochs", "2",
            "--model", model, "--seed", "3", "--quiet", "--blas-threads", "1",
            "--logdir", str(tmp_path), *(["--fit"] if loop == "fit" else [])]
    if loop == "fit":  # fit's compiled step is model.compile's (run_eagerly=--eager)
        compiled, _, compiled_warnings = _run(mnist.main, argv, monkeypatch)
        eager, _, _ = _run(mnist.main, [*argv, "--eager"], monkeypatch)
        assert compiled_warnings == []
    else:
        compiled, eager = _compiled_and_eager(mnist.main, argv, monkeypatch)
    for key in ("loss", "accuracy", "test_loss", "test_accuracy"):
        assert compiled[key] == eager[key], key


@pytest.mark.parametrize("loss", ["neg", "nce"])
def test_word2vec_compiled_equals_eager(loss, tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(" ".join(["cat", "dog", "cow", "red", "blue", "the"][i]
                               for i in rng.integers(0, 6, 2000)))
    argv = ["--loss", loss, "--corpus", str(corpus), "--min-count", "1", "--dim", "8",
            "--seed", "5", "--batch-size", "64", "--quiet", "--probe-words", "cat",
            "--save-every", "0", "--logdir", str(tmp_path / "logs")]
    argv += (["--epochs", "2", "--negatives", "3"] if loss == "neg"
             else ["--steps", "40", "--num-sampled", "3"])  # nce: candidates drawn every step
    compiled, eager = _compiled_and_eager(word2vec.main, argv, monkeypatch)
    assert compiled["loss"] == eager["loss"]
    np.testing.assert_array_equal(compiled["embeddings"], eager["embeddings"])
