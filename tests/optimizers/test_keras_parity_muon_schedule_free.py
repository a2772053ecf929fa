"""Muon, ScheduleFreeAdamW and MultiOptimizer against Keras 3 itself: the same weights and
optimizer state (in Keras's order) after the same fixed gradients, and a `.keras` file of a
model compiled with them loads here and goes on the same.

Skipped without keras; run with the interop venv:
    KERAS_BACKEND=numpy python -m pytest tests/optimizers/test_keras_parity_muon_schedule_free.py
"""

import os
import warnings

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402
from kerasish.saving import weights_layout  # noqa: E402

SHAPES = [(4, 3), (3,), (3, 5), (2, 2, 2)]
NAMES = ["dense/kernel", "dense/bias", "out/kernel", "conv/kernel"]

CASES = [
    ("Muon", {}),
    ("Muon", {"nesterov": False, "rms_rate": None, "exclude_layers": ["out"],
              "adam_lr_ratio": 0.5, "weight_decay": None}),
    ("Muon", {"use_ema": True, "gradient_accumulation_steps": 2}),
    ("ScheduleFreeAdamW", {}),
    ("ScheduleFreeAdamW", {"warmup_steps": 3, "weight_decay": 0.01, "beta_1": 0.8}),
]


def _gradients(steps, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype("float32") for s in shapes] for _ in range(steps)]


def _initial():
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype("float32") for s in SHAPES]


def _compare_state(ours_opt, ours, theirs_opt):
    state = weights_layout.optimizer_variables(ours_opt, ours)
    assert len(state) == len(theirs_opt.variables)
    for a, b in zip(theirs_opt.variables, state, strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize(("name", "settings"), CASES)
def test_same_weights_and_state_as_keras_after_seven_steps(name, settings):
    initial = _initial()
    theirs_opt = getattr(keras.optimizers, name)(learning_rate=0.05, **settings)
    ours_opt = getattr(ks.optimizers, name)(learning_rate=0.05, **settings)
    theirs = [keras.Variable(w.copy(), name=n.split("/")[1]) for w, n in zip(initial, NAMES)]
    for var, n in zip(theirs, NAMES):
        var._path = n  # Keras's path is the layer's; Muon chooses by it
    ours = [ks.Variable(w.copy(), name=n) for w, n in zip(initial, NAMES)]
    for grads in _gradients(7, SHAPES):
        theirs_opt.apply(grads, theirs)
        ours_opt.apply([ks.constant(g) for g in grads], ours)
    for a, b in zip(theirs, ours, strict=True):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=2e-5, atol=2e-6)
    _compare_state(ours_opt, ours, theirs_opt)
    config = ours_opt.get_config()
    assert set(config) == set(theirs_opt.get_config())


def test_multi_optimizer_same_as_keras():
    initial = _initial()

    def make(lib):
        return lib.optimizers.MultiOptimizer(lib.optimizers.OptimizerMap(
            lib.optimizers.SGD(0.1, momentum=0.9), {"out/.*": lib.optimizers.Adam(0.01)}))

    theirs_opt, ours_opt = make(keras), make(ks)
    theirs = [keras.Variable(w.copy(), name=n.split("/")[1]) for w, n in zip(initial, NAMES)]
    for var, n in zip(theirs, NAMES):
        var._path = n
    ours = [ks.Variable(w.copy(), name=n) for w, n in zip(initial, NAMES)]
    for grads in _gradients(4, SHAPES):
        theirs_opt.apply(grads, theirs)
        ours_opt.apply([ks.constant(g) for g in grads], ours)
    for a, b in zip(theirs, ours, strict=True):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=1e-5, atol=1e-6)
    _compare_state(ours_opt, ours, theirs_opt)
    assert _without_names(ks.optimizers.serialize(ours_opt)["config"]) == \
        _without_names(keras.optimizers.serialize(theirs_opt)["config"])


def _without_names(config):
    """The config without the optimizers' names (Keras numbers repeated ones per session)."""
    if isinstance(config, dict):
        return {k: _without_names(v) for k, v in config.items() if k != "name"}
    return config


@pytest.mark.parametrize("name", ["Muon", "ScheduleFreeAdamW", "MultiOptimizer"])
def test_keras_file_with_the_optimizer_goes_on_the_same(tmp_path, name):
    def build(lib):
        model = lib.Sequential([lib.Input((4,)), lib.layers.Dense(3, activation="tanh"),
                                lib.layers.Dense(1, name="out")])
        if name == "MultiOptimizer":
            opt = lib.optimizers.MultiOptimizer(lib.optimizers.OptimizerMap(
                lib.optimizers.Adam(0.02), {".*out/.*": lib.optimizers.SGD(0.1)}))
        else:
            opt = getattr(lib.optimizers, name)(0.02)
        model.compile(optimizer=opt, loss="mse")
        return model

    keras.utils.set_random_seed(3)
    theirs = build(keras)
    shapes = [tuple(v.shape) for v in theirs.trainable_variables]
    steps = _gradients(6, shapes, seed=5)
    for grads in steps[:3]:
        theirs.optimizer.apply(grads, theirs.trainable_variables)
    theirs.save(tmp_path / "opt.keras")
    ours = ks.models.load_model(tmp_path / "opt.keras")
    assert type(ours.optimizer).__name__ == name
    for grads in steps[3:]:
        theirs.optimizer.apply(grads, theirs.trainable_variables)
        ours.optimizer.apply([ks.constant(g) for g in grads], ours.trainable_variables)
    for a, b in zip(theirs.get_weights(), ours.get_weights(), strict=True):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-6)
    # and Keras loads what we save
    ours.save(tmp_path / "ours.keras")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # Keras finds every state it looks for
        again = keras.models.load_model(tmp_path / "ours.keras")
    for a, b in zip(again.get_weights(), ours.get_weights(), strict=True):
        np.testing.assert_allclose(b, a)
