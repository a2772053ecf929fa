"""ReduceLROnPlateau and TerminateOnNaN against Keras 3's, driven with the same logs (skips
without keras)."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks

keras = pytest.importorskip("keras")

LOSSES = [5.0, 4.0, 4.0, 3.99995, 4.5, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5]
SETTINGS = [
    dict(factor=0.5, patience=2),
    dict(factor=0.1, patience=1, cooldown=2),
    dict(factor=0.5, patience=0, min_lr=0.3),
    dict(factor=0.2, patience=1, min_delta=0.6),
    dict(factor=0.5, patience=1, mode="max"),
]


def _keras_rates(settings, monitor):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(1.0), "mse")
    callback = keras.callbacks.ReduceLROnPlateau(monitor=monitor, verbose=0, **settings)
    callback.set_model(model)
    callback.on_train_begin()
    rates = []
    for epoch, value in enumerate(LOSSES):
        logs = {monitor: value}
        callback.on_epoch_end(epoch, logs)
        rates.append(float(model.optimizer.learning_rate))
    return rates


def _our_rates(settings, monitor):
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(1.0), "mse")
    callback = ks.callbacks.ReduceLROnPlateau(monitor=monitor, **settings)
    callback.set_model(model)
    callback.on_train_begin()
    rates = []
    for epoch, value in enumerate(LOSSES):
        callback.on_epoch_end(epoch, {monitor: value})
        rates.append(float(model.optimizer.learning_rate))
    return rates


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(map(str, s.items())))
def test_reduce_lr_on_plateau_matches_keras(settings):
    np.testing.assert_allclose(_our_rates(settings, "loss"), _keras_rates(settings, "loss"),
                               rtol=1e-6)


def test_reduce_lr_on_plateau_maximizes_accuracy_as_keras_does_in_max_mode():
    settings = dict(factor=0.5, patience=1)
    theirs = _keras_rates(dict(settings, mode="max"), "val_accuracy")
    np.testing.assert_allclose(_our_rates(settings, "val_accuracy"), theirs, rtol=1e-6)  # auto
    np.testing.assert_allclose(_our_rates(dict(settings, mode="max"), "val_accuracy"), theirs,
                               rtol=1e-6)


def test_reduce_lr_on_plateau_defaults_match_keras():
    ours, theirs = ks.callbacks.ReduceLROnPlateau(), keras.callbacks.ReduceLROnPlateau()
    for name in ("monitor", "factor", "patience", "verbose", "mode", "min_delta", "cooldown",
                 "min_lr"):
        assert getattr(ours, name) == getattr(theirs, name), name


def test_terminate_on_nan_matches_keras():
    for loss in (1.0, float("nan"), float("inf")):
        keras_model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        callback = keras.callbacks.TerminateOnNaN()
        callback.set_model(keras_model)
        keras_model.stop_training = False
        callback.on_batch_end(0, {"loss": loss})
        model = ks.Sequential([ks.layers.Dense(1)])
        model.stop_training = False
        ours = ks.callbacks.TerminateOnNaN()
        ours.set_model(model)
        ours.on_train_batch_end(0, {"loss": loss})
        assert model.stop_training == keras_model.stop_training
