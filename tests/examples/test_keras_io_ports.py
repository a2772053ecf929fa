"""examples/keras_io/: the ports that run on either library (`_library.py`) each run with
--quick and learn; where Keras 3 with a training backend (JAX or TensorFlow) is installed, the
same program runs on Keras in a subprocess and both learn the same. The Fashion-MNIST ones
skip when the data set is not installed (`apt-get install dataset-fashion-mnist`)."""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kerasish as ks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "keras_io"
pytestmark = pytest.mark.slow  # each example trains for several seconds


def _needs_fashion_mnist():
    try:
        ks.datasets.fashion_mnist.load_data(download=False)
    except Exception as exc:  # noqa: BLE001 - any reason the files cannot be read
        pytest.skip(f"Fashion-MNIST is not available offline: {exc}")


def _run(name: str, *argv: str) -> dict:
    """The example's main(--quick, ...) on kerasish, in this process."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location(f"keras_io_{name}", EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.main(["--quick", *argv])
    finally:
        sys.path.remove(str(EXAMPLES))


def _run_on_keras(name: str) -> dict:
    """The same example on Keras 3 in a subprocess (TensorFlow, else JAX); skips without them."""
    pytest.importorskip("keras")
    backend = next((module for module in ("tensorflow", "jax")
                    if importlib.util.find_spec(module)), None)
    if backend is None:
        pytest.skip("Keras needs JAX or TensorFlow to train (its NumPy backend has no fit)")
    code = (f"import json, sys; sys.path.insert(0, {str(EXAMPLES)!r}); import {name}; "
            f"print('RESULT' + json.dumps({name}.main(['--quick'])))")
    env = {**os.environ, "KERAS_IO_LIBRARY": "keras", "KERAS_BACKEND": backend}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    return json.loads(line[len("RESULT"):])


@pytest.fixture(scope="module")
def siamese():
    _needs_fashion_mnist()
    return _run("siamese_contrastive")


def test_siamese_contrastive_learns_with_labels_of_a_lower_rank_than_the_output(siamese):
    # (n,) labels against (n, 1) outputs: without Keras's alignment it stays at 0.50
    assert siamese["accuracy"] > 0.75


def test_siamese_contrastive_learns_what_keras_learns(siamese):
    on_keras = _run_on_keras("siamese_contrastive")
    assert on_keras["accuracy"] > 0.75
    assert siamese["accuracy"] == pytest.approx(on_keras["accuracy"], abs=0.08)


@pytest.fixture(scope="module")
def timeseries():
    return _run("timeseries_classification")


def test_timeseries_classification_reloads_its_best_checkpoint_and_learns(timeseries):
    assert timeseries["accuracy"] > 0.8


def test_timeseries_classification_learns_what_keras_learns(timeseries):
    # the checkpoint with the lowest val_loss of 4 short epochs may be an early one (its
    # BatchNormalization statistics still moving), so the training accuracies are compared
    on_keras = _run_on_keras("timeseries_classification")
    assert on_keras["train_accuracy"] > 0.9 and timeseries["train_accuracy"] > 0.9


@pytest.fixture(scope="module")
def recommender():
    return _run("collaborative_filtering")


def test_collaborative_filtering_subclassed_model_trains(recommender):
    assert recommender["val_loss"] < recommender["first_val_loss"]


def test_collaborative_filtering_learns_what_keras_learns(recommender):
    on_keras = _run_on_keras("collaborative_filtering")
    assert recommender["val_loss"] == pytest.approx(on_keras["val_loss"], abs=0.02)


@pytest.fixture(scope="module")
def seq2seq():
    return _run("lstm_seq2seq")


def test_lstm_seq2seq_trains_and_decodes_with_separate_inference_models(seq2seq):
    assert seq2seq["loss"] < seq2seq["first_loss"]


def test_lstm_seq2seq_learns_what_keras_learns(seq2seq):
    on_keras = _run_on_keras("lstm_seq2seq")
    assert seq2seq["val_accuracy"] == pytest.approx(on_keras["val_accuracy"], abs=0.08)


@pytest.fixture(scope="module")
def guide():
    _needs_fashion_mnist()
    return _run("training_guide")


def test_training_guide_runs_every_part(guide):
    assert guide["mlp"][1] > 0.6  # one epoch on 4,000 images, 10 classes
    assert guide["true_positives"] > 2000  # of 4,000 in the epoch's last state
    assert guide["two_outputs"] == [
        "department_categorical_accuracy", "department_loss", "loss",
        "priority_loss", "priority_mean_absolute_error",
        "priority_mean_absolute_percentage_error"]
    assert guide["checkpoints"] and all(name.endswith(".keras") for name in guide["checkpoints"])


def test_training_guide_learns_what_keras_learns(guide):
    on_keras = _run_on_keras("training_guide")
    assert guide["mlp"][1] == pytest.approx(on_keras["mlp"][1], abs=0.05)
    assert guide["two_outputs"] == on_keras["two_outputs"]
    assert guide["checkpoints"] == on_keras["checkpoints"]


@pytest.fixture(scope="module")
def text_classifier():
    return _run("text_classification")


def test_text_classification_standardizes_with_string_ops_and_learns(text_classifier):
    assert not text_classifier["has_br"]  # the custom standardization removed "<br />"
    assert text_classifier["accuracy"] > 0.8
    assert text_classifier["end_to_end_accuracy"] == pytest.approx(
        text_classifier["accuracy"], abs=1e-6)  # raw strings in, the same predictions


def test_text_classification_learns_what_keras_learns(text_classifier):
    on_keras = _run_on_keras("text_classification")
    assert on_keras["vocabulary_size"] == text_classifier["vocabulary_size"]
    assert on_keras["accuracy"] > 0.8


@pytest.fixture(scope="module")
def transfer():
    _needs_fashion_mnist()
    return _run("transfer_learning")


def test_transfer_learning_frozen_base_keeps_its_batch_norm_statistics(transfer):
    assert transfer["trainable_weights"] == 2  # the new head's kernel and bias
    assert transfer["fine_tuned_trainable_weights"] == 2 + 156  # and the unfrozen base's
    assert transfer["statistics_kept"]
    assert not transfer["fine_tuned_statistics_kept"]  # Keras 3: fit's training=True wins
    assert 0 <= transfer["head_accuracy"] <= 1


def test_transfer_learning_does_what_keras_does(transfer):
    on_keras = _run_on_keras("transfer_learning")
    assert on_keras["trainable_weights"] == transfer["trainable_weights"]
    assert on_keras["fine_tuned_trainable_weights"] == transfer["fine_tuned_trainable_weights"]
    assert on_keras["statistics_kept"] and not on_keras["fine_tuned_statistics_kept"]
