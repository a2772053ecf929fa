"""Muon: momentum orthogonalized by Newton-Schulz for matrices, AdamW for the rest."""

from __future__ import annotations

import math
import re

from kerasish.core import arguments, backend
from kerasish.optimizers.optimizer import Optimizer


class Muon(Optimizer):
    """Muon (Jordan et al., 2024; Liu et al., 2025 "Muon is scalable"), as Keras 3.15.

    A 2-D variable (a Dense kernel) gets the Muon step, with slot `momentum`::

        m = momentum * m + g
        u = g + momentum * m          # nesterov (else u = m)
        var -= lr * NS5(u) * sqrt(max(rows, cols)) * rms_rate

    where `NS5` is `ns_steps` quintic Newton-Schulz iterations (coefficients `muon_a`,
    `muon_b`, `muon_c`) that push `u`'s singular values toward 1. Every other variable
    (not 2-D, an embedding when `exclude_embeddings`, or a path matching one of
    `exclude_layers`) gets an AdamW step at `lr * adam_lr_ratio` with slots `momentum`
    and `velocity` (as Keras, only those variables have a `velocity`). Weight decay is
    `weight_decay` for Muon's variables and `adam_weight_decay` for Adam's, both times the
    learning rate, before the step. A sparse gradient is applied as a dense one (the
    orthogonalization needs the whole matrix).

    Args:
        learning_rate: a float or a schedule (default 0.001).
        adam_beta_1, adam_beta_2: the Adam moments' decay rates.
        adam_weight_decay: the decoupled weight decay of Adam's variables.
        epsilon: Adam's epsilon.
        weight_decay: the decoupled weight decay of Muon's variables.
        exclude_layers: regular expressions; a variable whose path matches one uses Adam.
        exclude_embeddings: a variable whose path holds "embedding" uses Adam.
        muon_a, muon_b, muon_c: the Newton-Schulz coefficients.
        adam_lr_ratio: Adam's learning rate over Muon's.
        momentum: Muon's momentum.
        ns_steps: the number of Newton-Schulz iterations.
        nesterov: use Nesterov momentum in the Muon step.
        rms_rate: scale of the Muon step (Moonlight's), or None for none.
        base arguments: clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps, name:
            as for `Optimizer`.

    Raises:
        ValueError: for a negative `ns_steps` or a momentum outside [0, 1].

    Example:
        >>> import numpy as np, kerasish as ks
        >>> kernel = ks.Variable(np.eye(2, dtype="float32"), name="dense/kernel")
        >>> opt = ks.optimizers.Muon(learning_rate=0.1, weight_decay=None)
        >>> _ = opt.apply([ks.constant([[1.0, 0.0], [0.0, 1.0]])], [kernel])
        >>> opt.get_slot_names(), sorted(opt._slots[id(kernel)])
        (['momentum', 'velocity'], ['momentum'])
    """

    _dense_sparse_updates = True

    def __init__(
        self,
        learning_rate=0.001,
        adam_beta_1=0.9,
        adam_beta_2=0.999,
        adam_weight_decay=0.004,
        epsilon=1e-7,
        weight_decay=0.004,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        exclude_layers=None,
        exclude_embeddings=True,
        muon_a=3.4445,
        muon_b=-4.7750,
        muon_c=2.0315,
        adam_lr_ratio=1,
        momentum=0.95,
        ns_steps=5,
        nesterov=True,
        rms_rate=0.2,
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
        self.adam_beta_1 = arguments.number(adam_beta_1, "adam_beta_1", "Muon", 0, 1)
        self.adam_beta_2 = arguments.number(adam_beta_2, "adam_beta_2", "Muon", 0, 1)
        self.adam_weight_decay = arguments.number(adam_weight_decay, "adam_weight_decay",
                                                  "Muon", 0, none=True)
        self.epsilon = float(epsilon)
        self.exclude_layers = list(exclude_layers or [])
        self.exclude_embeddings = bool(exclude_embeddings)
        self.muon_a, self.muon_b, self.muon_c = float(muon_a), float(muon_b), float(muon_c)
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = arguments.number(momentum, "momentum", "Muon", 0, 1)
        self.ns_steps = arguments.integer(ns_steps, "ns_steps", "Muon", 0)
        self.nesterov = bool(nesterov)
        self.rms_rate = rms_rate

    def _should_use_adamw(self, var) -> bool:
        """Keras's rule: Adam for a variable that is not 2-D, an embedding (when excluded)
        or one whose path matches `exclude_layers`."""
        if len(var.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in var.path.lower():
            return True
        return any(re.search(keyword, var.path) for keyword in self.exclude_layers)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0), ("velocity", 0.0)]

    def _slot_specs_for(self, var) -> list:
        return self._slot_specs() if self._should_use_adamw(var) else [("momentum", 0.0)]

    def _decay_factor(self, var, lr: float):
        if id(var) in self._excluded_from_decay or any(
                pattern.search(var.name) for pattern in self._excluded_names):
            return None
        decay = self.adam_weight_decay if self._should_use_adamw(var) else self.weight_decay
        return None if not decay else 1.0 - lr * decay

    def replay_plan(self, variables: list):
        return None  # the decay rule differs per variable: apply_eagerly each time

    def update_arrays(self, grad, param, slots, lr):
        if "velocity" in slots:
            self._adam_step(grad, param, slots["momentum"], slots["velocity"],
                            lr * self.adam_lr_ratio)
        else:
            self._muon_step(grad, param, slots["momentum"], lr)

    def _adam_step(self, grad, param, m, v, lr):
        t = self._step
        b1, b2 = self.adam_beta_1, self.adam_beta_2
        dtype = param.dtype.type
        alpha = dtype(lr * math.sqrt(1.0 - b2 ** t) / (1.0 - b1 ** t))
        m += (grad - m) * dtype(1.0 - b1)
        v += (grad * grad - v) * dtype(1.0 - b2)
        param -= (m * alpha) / (backend.array_module(param).sqrt(v) + dtype(self.epsilon))

    def _muon_step(self, grad, param, m, lr):
        dtype = param.dtype.type
        m += grad + m * dtype(self.momentum - 1.0)
        direction = grad + dtype(self.momentum) * m if self.nesterov else m
        update = dtype(lr) * self._newton_schulz(direction)
        if self.rms_rate is not None:
            update = update * dtype(math.sqrt(max(param.shape[0], param.shape[1]))) \
                * dtype(self.rms_rate)
        param -= update

    def _newton_schulz(self, x):
        """Keras's `zeropower_via_newtonschulz5`: `ns_steps` quintic iterations on the
        matrix scaled to Frobenius norm at most 1 (the wide way round)."""
        xp = backend.array_module(x)
        dtype = x.dtype.type
        tall = x.shape[-2] > x.shape[-1]
        if tall:
            x = xp.swapaxes(x, -1, -2)
        x = x / (xp.sqrt(xp.sum(x * x, axis=(-2, -1), keepdims=True)) + dtype(1e-7))
        a, b, c = dtype(self.muon_a), dtype(self.muon_b), dtype(self.muon_c)
        for _ in range(self.ns_steps):
            gram = x @ xp.swapaxes(x, -1, -2)
            x = a * x + (b * gram + (c * gram) @ gram) @ x
        return xp.swapaxes(x, -1, -2) if tall else x

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            adam_beta_1=self.adam_beta_1,
            adam_beta_2=self.adam_beta_2,
            epsilon=self.epsilon,
            exclude_layers=list(self.exclude_layers),
            muon_a=self.muon_a,
            muon_b=self.muon_b,
            muon_c=self.muon_c,
            adam_lr_ratio=self.adam_lr_ratio,
            momentum=self.momentum,
            ns_steps=self.ns_steps,
            nesterov=self.nesterov,
            exclude_embeddings=self.exclude_embeddings,
            adam_weight_decay=self.adam_weight_decay,
            rms_rate=self.rms_rate,
        )
