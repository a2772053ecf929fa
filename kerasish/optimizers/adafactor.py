"""Adafactor: second moments factored into row and column statistics."""

from __future__ import annotations

import math

from kerasish.core import backend
from kerasish.optimizers.optimizer import Optimizer, array_passes


def _rms(xp, array):
    return xp.sqrt(xp.mean(array * array))


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018), with Keras's formulation and defaults.

    At step t (1-based), for a variable of 2 or more dimensions, with slots `r` (its
    shape less the last axis), `c` (less the second-to-last) and `velocity`::

        rho = min(lr, 1 / sqrt(t))
        alpha = max(epsilon_2, rms(var)) * rho
        g2 = g**2 + epsilon_1;  beta_2 = 1 - t**beta_2_decay
        r = beta_2 * r + (1 - beta_2) * mean(g2, axis=-1)
        c = beta_2 * c + (1 - beta_2) * mean(g2, axis=-2)
        velocity = (r / mean(r, axis=-1))[..., None] * c[..., None, :]
        u = g / sqrt(velocity);  var -= alpha * u / max(1, rms(u) / clip_threshold)

    A variable of 0 or 1 dimension keeps `velocity = beta_2 * velocity + (1 - beta_2) * g2`
    unfactored, and `r` and `c` are 0-d placeholders (as Keras keeps them, so its saved
    state loads). Keras takes min(lr, 1 / sqrt(t)) whatever `relative_step` says, and so
    does this: the argument is kept for its config only. The norms are over the whole
    variable, so a sparse gradient is applied as the dense one (zeros elsewhere), and the
    update is written with array operations: a compiled step with it is not captured
    as a CUDA graph.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_2_decay: the power of t in the decay of the second moments.
        epsilon_1: added to the squared gradient.
        epsilon_2: the smallest RMS of a variable the step scales by.
        clip_threshold: the RMS of the step above which it is scaled down.
        relative_step: Keras's flag (see above).
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([[1.0, 1.0], [1.0, 1.0]])
        >>> opt = ks.optimizers.Adafactor(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([[1.0, 2.0], [3.0, 4.0]]), w)])
        >>> [opt.get_slot(w, name).shape for name in opt.get_slot_names()]
        [(2,), (2,), (2, 2)]
        >>> w.numpy().round(4)  # 1 - 0.1 * g / sqrt(velocity)
        array([[0.9225, 0.8905],
               [0.8961, 0.902 ]], dtype=float32)
    """

    _dense_sparse_updates = True

    def __init__(
        self,
        learning_rate=0.001,
        beta_2_decay=-0.8,
        epsilon_1=1e-30,
        epsilon_2=1e-3,
        clip_threshold=1.0,
        relative_step=True,
        weight_decay=None,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        **kwargs,
    ):
        super().__init__(
            learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        if float(clip_threshold) <= 0:
            raise ValueError(f"Adafactor: clip_threshold must be > 0, got {clip_threshold!r}")
        self.beta_2_decay = float(beta_2_decay)
        self.epsilon_1 = float(epsilon_1)
        self.epsilon_2 = float(epsilon_2)
        self.clip_threshold = float(clip_threshold)
        self.relative_step = bool(relative_step)

    def _slot_specs(self) -> list:
        return [("r", 0.0), ("c", 0.0), ("velocity", 0.0)]

    def _slot_shape(self, var, slot_name: str):
        shape = tuple(var.shape)
        if slot_name == "velocity":
            return None
        if len(shape) < 2:
            return ()
        return shape[:-1] if slot_name == "r" else shape[:-2] + shape[-1:]

    def update_arrays(self, grad, param, slots, lr):
        array_passes(self)
        xp, t = backend.array_module(param), self._step
        r, c, velocity = slots["r"], slots["c"], slots["velocity"]
        alpha = xp.maximum(self.epsilon_2, _rms(xp, param)) * min(lr, 1.0 / math.sqrt(t))
        squared = grad * grad + self.epsilon_1
        beta_2 = 1.0 - t**self.beta_2_decay
        if param.ndim >= 2:
            r[...] = beta_2 * r + (1.0 - beta_2) * squared.mean(axis=-1)
            c[...] = beta_2 * c + (1.0 - beta_2) * squared.mean(axis=-2)
            velocity[...] = (r / r.mean(axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            velocity[...] = beta_2 * velocity + (1.0 - beta_2) * squared
        step = grad / xp.sqrt(velocity)
        step /= xp.maximum(1.0, _rms(xp, step) / self.clip_threshold)
        param -= alpha.astype(param.dtype) * step

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            beta_2_decay=self.beta_2_decay,
            epsilon_1=self.epsilon_1,
            epsilon_2=self.epsilon_2,
            clip_threshold=self.clip_threshold,
            relative_step=self.relative_step,
        )
