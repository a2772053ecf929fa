"""LAMB: Adam's step scaled per variable by a trust ratio."""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.optimizers.optimizer import Optimizer, _sum_of_squares, array_passes


class Lamb(Optimizer):
    """LAMB (You et al., 2019), with Keras's formulation and defaults.

    At step t (1-based), with slots `momentum` and `velocity`::

        m = m + (g - m) * (1 - beta_1)
        v = v + (g**2 - v) * (1 - beta_2)
        update = (m / (1 - beta_1**t)) / (sqrt(v / (1 - beta_2**t)) + epsilon)
        ratio = ||var|| / ||update||     (1 when either norm is 0)
        var -= ratio * lr * update

    The norms are over the whole variable, so a sparse gradient is applied as the
    dense one (zeros elsewhere), and the update is written with array operations: a
    compiled step with it is not captured as a CUDA graph.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_1, beta_2: decay rates of the first and second moments.
        epsilon: small constant for numerical stability.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([3.0, 4.0])
        >>> opt = ks.optimizers.Lamb(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([1.0, 1.0]), w)])
        >>> w.numpy().round(4)  # update (1, 1), ratio 5 / sqrt(2)
        array([2.6464, 3.6464], dtype=float32)
    """

    _dense_sparse_updates = True

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
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
        for arg, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if not 0.0 <= float(value) < 1.0:
                raise ValueError(f"Lamb: {arg} must be in [0, 1), got {value!r}")
        if float(epsilon) < 0:
            raise ValueError(f"Lamb: epsilon must be >= 0, got {epsilon!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0), ("velocity", 0.0)]

    def update_arrays(self, grad, param, slots, lr):
        array_passes(self)
        b1, b2, t = self.beta_1, self.beta_2, self._step
        m, v = slots["momentum"], slots["velocity"]
        m += (grad - m) * (1.0 - b1)
        v += (grad * grad - v) * (1.0 - b2)
        xp = backend.array_module(param)
        update = (m / (1.0 - b1**t)) / (xp.sqrt(v / (1.0 - b2**t)) + self.epsilon)
        w_norm = xp.sqrt(_sum_of_squares(param))
        u_norm = xp.sqrt(_sum_of_squares(update))
        with np.errstate(divide="ignore", invalid="ignore"):  # (where either norm is 0)
            ratio = xp.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, 1.0)
        param -= ratio.astype(param.dtype) * lr * update

    def get_config(self) -> dict:
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2,
                    epsilon=self.epsilon)
