"""Adamax: Adam with the infinity norm."""

from __future__ import annotations

from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_ADAMAX_RULE = UpdateRule(
    "adamax", "grad param momentum norm", "one_minus_beta_1 beta_2 epsilon bias_1 lr", """
    s = grad - momentum
    s = s * one_minus_beta_1
    momentum = momentum + s
    norm = norm * beta_2
    s = abs(grad)
    norm = maximum(norm, s)
    s = momentum * lr
    t = norm + epsilon
    t = t * bias_1
    s = s / t
    param = param - s
""")


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, section 7.1), with Keras's formulation and defaults.

    At step t (1-based), with slots `momentum` and `norm` (the weighted infinity norm)::

        m = m + (g - m) * (1 - beta_1)
        u = max(beta_2 * u, |g|)
        var -= lr * m / ((1 - beta_1**t) * (u + epsilon))

    A sparse gradient updates only the touched rows ("lazy", as Adam here).

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_1: decay rate of the first moment.
        beta_2: decay rate of the infinity norm.
        epsilon: small constant for numerical stability.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 1.0])
        >>> opt = ks.optimizers.Adamax(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([0.5, -2.0]), w)])
        >>> w.numpy().round(4)  # the first step moves each weight by lr
        array([0.9, 1.1], dtype=float32)
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
                raise ValueError(f"Adamax: {arg} must be in [0, 1), got {value!r}")
        if float(epsilon) < 0:
            raise ValueError(f"Adamax: epsilon must be >= 0, got {epsilon!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0), ("norm", 0.0)]

    def update_arrays(self, grad, param, slots, lr):
        _ADAMAX_RULE.apply(grad, param, slots["momentum"], slots["norm"],
                           one_minus_beta_1=1.0 - self.beta_1, beta_2=self.beta_2,
                           epsilon=self.epsilon, bias_1=1.0 - self.beta_1**self._step, lr=lr)

    def get_config(self) -> dict:
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2,
                    epsilon=self.epsilon)
