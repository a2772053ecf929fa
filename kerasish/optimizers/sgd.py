"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from __future__ import annotations

from kerasish.core import arguments
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_PLAIN_RULE = UpdateRule("sgd", "grad param", "lr", """
    s = grad * lr
    param = param - s
""")
_VELOCITY = """
    s = grad * lr
    velocity = velocity * momentum
    velocity = velocity - s
"""
_MOMENTUM_RULE = UpdateRule("sgd_momentum", "grad param velocity", "lr momentum", _VELOCITY + """
    param = param + velocity
""")
_NESTEROV_RULE = UpdateRule("sgd_nesterov", "grad param velocity", "lr momentum", _VELOCITY + """
    param = param - s
    s = velocity * momentum
    param = param + s
""")


class SGD(Optimizer):
    """Gradient descent with momentum, as Keras defines it.

    Without momentum: `var -= lr * g`. With momentum (slot `momentum`, the velocity):
    `velocity = momentum * velocity - lr * g`, then `var += velocity`, or with
    `nesterov=True`, `var += momentum * velocity - lr * g`.

    A sparse gradient (`ks.IndexedSlices`) updates only the touched rows of the
    variable and of its velocity; untouched rows keep their velocity (TF's
    sparse momentum semantics).

    Args:
        learning_rate: a float or a schedule (default 0.01).
        momentum: in [0, 1]; 0 keeps no slot.
        nesterov: use Nesterov momentum.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.
            (see `Optimizer`).

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(1.0)
        >>> opt = ks.optimizers.SGD(learning_rate=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     _ = opt.apply_gradients([(ks.constant(1.0), w)])
        >>> round(float(w), 4)  # 1 - 0.1 - (0.9 * 0.1 + 0.1)
        0.71
    """

    def __init__(
        self,
        learning_rate=0.01,
        momentum=0.0,
        nesterov=False,
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
        self.momentum = arguments.number(momentum, "momentum", "SGD", 0, 1)
        self.nesterov = bool(nesterov)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0)] if self.momentum else []

    def update_arrays(self, grad, param, slots, lr):
        if not self.momentum:
            _PLAIN_RULE.apply(grad, param, lr=lr)
            return
        rule = _NESTEROV_RULE if self.nesterov else _MOMENTUM_RULE
        rule.apply(grad, param, slots["momentum"], lr=lr, momentum=self.momentum)

    def get_config(self) -> dict:
        return dict(super().get_config(), momentum=self.momentum, nesterov=self.nesterov)
