"""Keras's base optimizer arguments: use_ema, ema_momentum, ema_overwrite_frequency,
loss_scale_factor, gradient_accumulation_steps (values against Keras are in
test_keras_parity_ema_accumulation.py)."""

import numpy as np
import pytest

import kerasish as ks


def test_accumulation_updates_every_n_calls_with_the_mean():
    w = ks.Variable([1.0])
    opt = ks.optimizers.SGD(1.0, gradient_accumulation_steps=2)
    opt.apply([ks.constant([2.0])], [w])
    assert w.numpy()[0] == 1.0 and int(opt.iterations) == 0 and int(opt._iterations) == 1
    opt.apply([ks.constant([4.0])], [w])
    assert w.numpy()[0] == pytest.approx(1.0 - 3.0) and int(opt.iterations) == 1
    np.testing.assert_array_equal(opt.get_slot(w, "gradient_accumulator").numpy(), [0.0])


def test_ema_average_and_overwrite_frequency():
    w = ks.Variable([0.0])
    opt = ks.optimizers.SGD(1.0, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    opt.apply([ks.constant([-1.0])], [w])  # w = 1, average = w (first step)
    assert opt.get_slot(w, "average").numpy()[0] == 1.0
    opt.apply([ks.constant([-1.0])], [w])  # w = 2, average 1.5, then written into w
    assert w.numpy()[0] == 1.5


def test_fit_ends_with_the_averages_in_the_weights():
    model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(0.1, use_ema=True), "mse")
    x = np.ones((4, 2), np.float32)
    model.fit(x, np.ones((4, 1), np.float32), epochs=2, batch_size=2, verbose=0)
    kernel = model.trainable_variables[0]
    np.testing.assert_array_equal(kernel.numpy(),
                                  model.optimizer.get_slot(kernel, "average").numpy())


def test_loss_scale_factor_scales_the_loss_and_unscales_the_gradients():
    w = ks.Variable([1.0])
    opt = ks.optimizers.SGD(1.0, loss_scale_factor=8.0)
    assert float(opt.scale_loss(ks.constant(2.0))) == 16.0
    opt.apply([ks.constant([8.0])], [w])
    assert w.numpy()[0] == 0.0


def test_config_round_trip_keeps_the_arguments():
    opt = ks.optimizers.Adam(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3,
                             loss_scale_factor=2.0, gradient_accumulation_steps=4)
    config = opt.get_config()
    again = ks.optimizers.Adam.from_config(config)
    for key in ("use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
                "gradient_accumulation_steps"):
        assert getattr(again, key) == config[key]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ema_momentum": 1.5}, "Adam: ema_momentum must be a number in [0, 1], got 1.5"),
    ({"gradient_accumulation_steps": 1},
     "Adam: gradient_accumulation_steps must be an integer >= 2 or None, got 1"),
    ({"ema_overwrite_frequency": 1.5},
     "Adam: ema_overwrite_frequency must be a positive integer or None, got 1.5"),
    ({"loss_scale_factor": 0.0}, "Adam: loss_scale_factor must be a number > 0 or None"),
])
def test_bad_base_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError) as error:
        ks.optimizers.Adam(**kwargs)
    assert message in str(error.value)
