"""Lion: the sign of an interpolated momentum."""

from __future__ import annotations

from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_LION_RULE = UpdateRule(
    "lion", "grad param momentum", "beta_1 one_minus_beta_1 beta_2 one_minus_beta_2 lr", """
    s = momentum * beta_1
    t = grad * one_minus_beta_1
    s = s + t
    s = sign(s)
    s = s * lr
    param = param - s
    momentum = momentum * beta_2
    t = grad * one_minus_beta_2
    momentum = momentum + t
""")


class Lion(Optimizer):
    """Lion (Chen et al., 2023, "Symbolic Discovery of Optimization Algorithms"), as Keras.

    With the slot `momentum`::

        var -= lr * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Every element moves by exactly `lr` (or 0), so Lion wants a learning rate 3-10
    times smaller than AdamW's. A sparse gradient updates only the touched rows.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_1: the interpolation factor of the step, in (0, 1].
        beta_2: the decay rate of the momentum.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Raises:
        ValueError: for beta_1 outside (0, 1] (at 0 Lion is signSGD).

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 1.0, 1.0])
        >>> opt = ks.optimizers.Lion(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([0.5, -2.0, 0.0]), w)])
        >>> w.numpy()
        array([0.9, 1.1, 1. ], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.99,
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
        if not 0.0 < float(beta_1) <= 1.0:
            raise ValueError(f"Lion: beta_1 must be in (0, 1] (at 0 Lion is signSGD), got "
                             f"{beta_1!r}")
        if not 0.0 <= float(beta_2) <= 1.0:
            raise ValueError(f"Lion: beta_2 must be in [0, 1], got {beta_2!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0)]

    def update_arrays(self, grad, param, slots, lr):
        b1, b2 = self.beta_1, self.beta_2
        _LION_RULE.apply(grad, param, slots["momentum"], beta_1=b1, one_minus_beta_1=1.0 - b1,
                         beta_2=b2, one_minus_beta_2=1.0 - b2, lr=lr)

    def get_config(self) -> dict:
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2)
