"""Keras's base optimizer arguments against Keras 3 itself: `use_ema` (with
`ema_overwrite_frequency` and `finalize_variable_values`), `gradient_accumulation_steps` and
`loss_scale_factor` give the same weights after the same gradients, and a `.keras` file of a
model whose optimizer keeps EMA averages and gradient accumulators loads here with that state
(in Keras's order) so the updates go on the same.

Skipped without keras; run with the interop venv:
    KERAS_BACKEND=numpy python -m pytest tests/optimizers/test_keras_parity_ema_accumulation.py
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402
from kerasish.saving import weights_layout  # noqa: E402

CASES = [
    ("Adam", {"use_ema": True, "ema_momentum": 0.9}),
    ("SGD", {"momentum": 0.9, "gradient_accumulation_steps": 3}),
    ("Adam", {"use_ema": True, "ema_overwrite_frequency": 2, "gradient_accumulation_steps": 2,
              "clipnorm": 0.5}),
    ("RMSprop", {"loss_scale_factor": 4.0}),
    ("AdamW", {"gradient_accumulation_steps": 2, "use_ema": True}),
    ("Lion", {"use_ema": True, "gradient_accumulation_steps": 2}),
]


def _gradients(steps, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype("float32") for s in shapes] for _ in range(steps)]


@pytest.mark.parametrize(("name", "settings"), CASES)
def test_same_weights_as_keras_after_seven_steps(name, settings):
    rng = np.random.default_rng(1)
    initial = [rng.standard_normal((3, 2)).astype("float32"),
               rng.standard_normal(2).astype("float32")]
    theirs_opt = getattr(keras.optimizers, name)(learning_rate=0.1, **settings)
    ours_opt = getattr(ks.optimizers, name)(learning_rate=0.1, **settings)
    theirs = [keras.Variable(w.copy()) for w in initial]
    ours = [ks.Variable(w.copy()) for w in initial]
    for grads in _gradients(7, [(3, 2), (2,)]):
        theirs_opt.apply(grads, theirs)
        ours_opt.apply([ks.constant(g) for g in grads], ours)
    assert int(ours_opt.iterations) == int(theirs_opt.iterations)
    state = weights_layout.optimizer_variables(ours_opt, ours)
    assert len(state) == len(theirs_opt.variables)
    for a, b in zip(theirs_opt.variables, state, strict=True):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=1e-5, atol=1e-6)
    theirs_opt.finalize_variable_values(theirs)
    ours_opt.finalize_variable_values(ours)
    for a, b in zip(theirs, ours, strict=True):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=1e-5, atol=1e-6)


def test_keras_file_with_ema_and_accumulators_goes_on_the_same(tmp_path):
    def build(lib):
        model = lib.Sequential([lib.Input((4,)), lib.layers.Dense(3, activation="tanh"),
                                lib.layers.Dense(1)])
        model.compile(optimizer=lib.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.8,
                                                    gradient_accumulation_steps=2), loss="mse")
        return model

    keras.utils.set_random_seed(3)
    theirs = build(keras)
    shapes = [tuple(v.shape) for v in theirs.trainable_variables]
    steps = _gradients(9, shapes, seed=5)
    for grads in steps[:5]:  # an odd count: an accumulation is half done when saved
        theirs.optimizer.apply(grads, theirs.trainable_variables)
    theirs.save(tmp_path / "ema.keras")
    ours = ks.models.load_model(tmp_path / "ema.keras")
    assert ours.optimizer.use_ema and ours.optimizer.gradient_accumulation_steps == 2
    for grads in steps[5:]:
        theirs.optimizer.apply(grads, theirs.trainable_variables)
        ours.optimizer.apply([ks.constant(g) for g in grads], ours.trainable_variables)
    theirs.optimizer.finalize_variable_values(theirs.trainable_variables)
    ours.optimizer.finalize_variable_values(ours.trainable_variables)
    for a, b in zip(theirs.trainable_variables, ours.trainable_variables, strict=True):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=1e-5, atol=1e-6)
    ours.save(tmp_path / "back.keras")
    again = keras.models.load_model(tmp_path / "back.keras")
    mine = weights_layout.optimizer_variables(ours.optimizer, ours.trainable_variables)
    for a, b in zip(again.optimizer.variables, mine, strict=True):
        np.testing.assert_allclose(np.asarray(a), b.numpy(), rtol=1e-6)
