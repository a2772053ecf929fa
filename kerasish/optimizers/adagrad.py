"""Adagrad."""

from __future__ import annotations

from kerasish.core import arguments
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_ADAGRAD_RULE = UpdateRule("adagrad", "grad param accumulator", "lr epsilon", """
    s = grad * grad
    accumulator = accumulator + s
    s = accumulator + epsilon
    s = sqrt(s)
    s = grad / s
    s = s * lr
    param = param - s
""")


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.), with Keras's formulation and defaults.

    With the slot `accumulator` (starting at `initial_accumulator_value`)::

        accumulator += g**2
        var -= lr * g / sqrt(accumulator + epsilon)

    A sparse gradient updates only the touched rows (the same result as the
    dense update, whose other rows would not move).

    Args:
        learning_rate: a float or a schedule (default 0.001).
        initial_accumulator_value: starting value of the accumulator (> 0).
        epsilon: small constant for numerical stability.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(1.0)
        >>> opt = ks.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.0,
        ...                             epsilon=0.0)
        >>> _ = opt.apply_gradients([(ks.constant(2.0), w)])
        >>> round(float(w), 5)  # 1 - 0.1 * 2 / sqrt(4)
        0.9
    """

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
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
        self.initial_accumulator_value = arguments.number(
            initial_accumulator_value, "initial_accumulator_value", "Adagrad", 0)
        self.epsilon = arguments.number(epsilon, "epsilon", "Adagrad", 0)

    def _slot_specs(self) -> list:
        return [("accumulator", self.initial_accumulator_value)]

    def update_arrays(self, grad, param, slots, lr):
        _ADAGRAD_RULE.apply(grad, param, slots["accumulator"], lr=lr, epsilon=self.epsilon)

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            initial_accumulator_value=self.initial_accumulator_value,
            epsilon=self.epsilon,
        )
