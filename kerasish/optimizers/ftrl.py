"""FTRL-Proximal."""

from __future__ import annotations

from kerasish.core import backend
from kerasish.optimizers.optimizer import Optimizer, array_passes


class Ftrl(Optimizer):
    """FTRL-Proximal (McMahan et al., 2013), with Keras's formulation and defaults.

    With slots `accumulator` (starting at `initial_accumulator_value`) and `linear`,
    and p = -learning_rate_power::

        g_shrunk = g + 2 * l2_shrinkage_regularization_strength * var
        new_accumulator = accumulator + g**2
        linear += g_shrunk - (new_accumulator**p - accumulator**p) / lr * var
        quadratic = new_accumulator**p / lr + 2 * (l2_regularization_strength + beta / (2 * lr))
        var = (clip(linear, -l1, l1) - linear) / quadratic     # 0 where |linear| <= l1
        accumulator = new_accumulator

    A sparse gradient updates only the touched rows (TF's sparse FTRL; shrinkage then
    acts on those rows only). The update is written with array operations (it needs a
    power), so a compiled step with it is not captured as a CUDA graph.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        learning_rate_power: <= 0; how the per-coordinate rate decreases (0: fixed).
        initial_accumulator_value: >= 0, the starting value of the accumulators.
        l1_regularization_strength: >= 0.
        l2_regularization_strength: >= 0 (the stabilizing penalty of the paper).
        l2_shrinkage_regularization_strength: >= 0 (a magnitude penalty on the weights).
        beta: the paper's beta (default 0.0).
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Raises:
        ValueError: for a positive learning_rate_power or a negative strength or
            accumulator value (naming it).

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([0.0, 0.0])
        >>> opt = ks.optimizers.Ftrl(learning_rate=0.5, initial_accumulator_value=0.0,
        ...                          l1_regularization_strength=1.0)
        >>> _ = opt.apply_gradients([(ks.constant([0.5, -2.0]), w)])
        >>> w.numpy()  # |linear| = 0.5 is within l1: 0; the other (2 - 1) / (2 / 0.5)
        array([0.  , 0.25], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
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
        if float(learning_rate_power) > 0:
            raise ValueError(f"Ftrl: learning_rate_power must be <= 0, got "
                             f"{learning_rate_power!r}")
        for arg, value in (("initial_accumulator_value", initial_accumulator_value),
                           ("l1_regularization_strength", l1_regularization_strength),
                           ("l2_regularization_strength", l2_regularization_strength),
                           ("l2_shrinkage_regularization_strength",
                            l2_shrinkage_regularization_strength)):
            if float(value) < 0:
                raise ValueError(f"Ftrl: {arg} must be >= 0, got {value!r}")
        self.learning_rate_power = float(learning_rate_power)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.l1_regularization_strength = float(l1_regularization_strength)
        self.l2_regularization_strength = float(l2_regularization_strength)
        self.l2_shrinkage_regularization_strength = float(l2_shrinkage_regularization_strength)
        self.beta = float(beta)

    def _slot_specs(self) -> list:
        return [("accumulator", self.initial_accumulator_value), ("linear", 0.0)]

    def update_arrays(self, grad, param, slots, lr):
        array_passes(self)
        accumulator, linear = slots["accumulator"], slots["linear"]
        power, l1 = -self.learning_rate_power, self.l1_regularization_strength
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk = grad + (2.0 * self.l2_shrinkage_regularization_strength) * param
        new_accumulator = accumulator + grad * grad
        new_power = new_accumulator**power
        linear += shrunk - (new_power - accumulator**power) / lr * param
        quadratic = new_power / lr + 2.0 * l2
        xp = backend.array_module(param)
        param[...] = (xp.clip(linear, -l1, l1) - linear) / quadratic
        accumulator[...] = new_accumulator

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            learning_rate_power=self.learning_rate_power,
            initial_accumulator_value=self.initial_accumulator_value,
            l1_regularization_strength=self.l1_regularization_strength,
            l2_regularization_strength=self.l2_regularization_strength,
            l2_shrinkage_regularization_strength=self.l2_shrinkage_regularization_strength,
            beta=self.beta,
        )
