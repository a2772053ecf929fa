"""Adadelta."""

from __future__ import annotations

from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_ADADELTA_RULE = UpdateRule(
    "adadelta", "grad param accumulated_grad accumulated_delta_var",
    "rho one_minus_rho epsilon lr", """
    s = grad * grad
    s = s * one_minus_rho
    accumulated_grad = accumulated_grad * rho
    accumulated_grad = accumulated_grad + s
    s = accumulated_delta_var + epsilon
    s = sqrt(s)
    s = s * grad
    t = accumulated_grad + epsilon
    t = sqrt(t)
    s = s / t
    t = s * s
    t = t * one_minus_rho
    accumulated_delta_var = accumulated_delta_var * rho
    accumulated_delta_var = accumulated_delta_var + t
    s = s * lr
    param = param - s
""")


class Adadelta(Optimizer):
    """Adadelta (Zeiler), with Keras's formulation and defaults.

    With slots `accumulated_grad` and `accumulated_delta_var`::

        accumulated_grad = rho * accumulated_grad + (1 - rho) * g**2
        delta = sqrt(accumulated_delta_var + epsilon) * g / sqrt(accumulated_grad + epsilon)
        accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * delta**2
        var -= lr * delta

    Keras's default learning rate is 0.001; the paper's form is learning_rate=1.0.
    A sparse gradient updates only the touched rows.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        rho: the decay rate.
        epsilon: small constant for numerical stability.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(1.0)
        >>> opt = ks.optimizers.Adadelta(learning_rate=1.0, rho=0.75, epsilon=1e-6)
        >>> _ = opt.apply_gradients([(ks.constant(2.0), w)])
        >>> round(float(w), 5)  # 1 - sqrt(1e-6) * 2 / sqrt(0.25 * 4 + 1e-6)
        0.998
    """

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.95,
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
        if not 0.0 <= float(rho) < 1.0:
            raise ValueError(f"Adadelta: rho must be in [0, 1), got {rho!r}")
        if float(epsilon) < 0:
            raise ValueError(f"Adadelta: epsilon must be >= 0, got {epsilon!r}")
        self.rho = float(rho)
        self.epsilon = float(epsilon)

    def _slot_specs(self) -> list:
        return [("accumulated_grad", 0.0), ("accumulated_delta_var", 0.0)]

    def update_arrays(self, grad, param, slots, lr):
        _ADADELTA_RULE.apply(grad, param, slots["accumulated_grad"],
                             slots["accumulated_delta_var"], rho=self.rho,
                             one_minus_rho=1.0 - self.rho, epsilon=self.epsilon, lr=lr)

    def get_config(self) -> dict:
        return dict(super().get_config(), rho=self.rho, epsilon=self.epsilon)
