"""Nadam: Adam with Nesterov momentum, as Keras writes it."""

from __future__ import annotations

import numpy as np

from kerasish.optimizers.optimizer import Optimizer, _host_variable
from kerasish.optimizers.rules import UpdateRule

_NADAM_RULE = UpdateRule(
    "nadam", "grad param momentum velocity",
    "one_minus_beta_1 one_minus_beta_2 c_momentum c_grad bias_2 epsilon lr", """
    s = grad - momentum
    s = s * one_minus_beta_1
    momentum = momentum + s
    s = grad * grad
    s = s - velocity
    s = s * one_minus_beta_2
    velocity = velocity + s
    s = momentum * c_momentum
    t = grad * c_grad
    s = s + t
    s = s * lr
    t = velocity / bias_2
    t = sqrt(t)
    t = t + epsilon
    s = s / t
    param = param - s
""")


def _momentum_cache(beta_1: float, step: int) -> float:
    """Dozat's u_t = beta_1 * (1 - 0.5 * 0.96**t)."""
    return beta_1 * (1.0 - 0.5 * 0.96**step)


class Nadam(Optimizer):
    """Nadam (Dozat): Adam with Nesterov momentum, with Keras's formulation and defaults.

    At step t (1-based), with slots `momentum` and `velocity` and the optimizer's
    running product `u_product` (a float32 variable starting at 1)::

        u_t = beta_1 * (1 - 0.5 * 0.96**t);  u_t1 = beta_1 * (1 - 0.5 * 0.96**(t + 1))
        u_product = u_product * u_t                    # once per step
        m = m + (g - m) * (1 - beta_1)
        v = v + (g**2 - v) * (1 - beta_2)
        m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - beta_2**t)
        var -= lr * m_hat / (sqrt(v_hat) + epsilon)

    A sparse gradient updates only the touched rows, as Adam does here ("lazy").

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_1, beta_2: decay rates of the first and second moments.
        epsilon: small constant for numerical stability.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 1.0])
        >>> opt = ks.optimizers.Nadam(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([0.5, -2.0]), w)])
        >>> w.numpy().round(4)  # the first step: lr * 1.0628 (Nesterov's look-ahead)
        array([0.8937, 1.1063], dtype=float32)
    """

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
                raise ValueError(f"Nadam: {arg} must be in [0, 1), got {value!r}")
        if float(epsilon) < 0:
            raise ValueError(f"Nadam: epsilon must be >= 0, got {epsilon!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)
        self.u_product = _host_variable(1.0, np.float32, "u_product")

    def _slot_specs(self) -> list:
        return [("momentum", 0.0), ("velocity", 0.0)]

    def _begin_step(self) -> None:
        u_product = self.u_product
        u_product._value[...] = u_product._value * _momentum_cache(self.beta_1, self._step)
        u_product._version += 1

    def update_arrays(self, grad, param, slots, lr):
        b1, b2, t = self.beta_1, self.beta_2, self._step
        u_t, u_t1 = _momentum_cache(b1, t), _momentum_cache(b1, t + 1)
        u_product = float(self.u_product._value)
        _NADAM_RULE.apply(grad, param, slots["momentum"], slots["velocity"],
                          one_minus_beta_1=1.0 - b1, one_minus_beta_2=1.0 - b2,
                          c_momentum=u_t1 / (1.0 - u_product * u_t1),
                          c_grad=(1.0 - u_t) / (1.0 - u_product), bias_2=1.0 - b2**t,
                          epsilon=self.epsilon, lr=lr)

    @property
    def variables(self) -> list:
        """`iterations`, the learning rate, the slots, then `u_product` (Keras's order)."""
        return super().variables + [self.u_product]

    def _step_variables(self) -> list:
        return super()._step_variables() + [self.u_product]

    def reset_state(self) -> None:
        super().reset_state()
        self.u_product._value.fill(1.0)
        self.u_product._version += 1

    def get_config(self) -> dict:
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2,
                    epsilon=self.epsilon)
