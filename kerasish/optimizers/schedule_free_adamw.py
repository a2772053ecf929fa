"""Schedule-Free AdamW: interpolation and averaging in place of a learning-rate schedule."""

from __future__ import annotations

from kerasish.core import arguments, backend
from kerasish.optimizers.optimizer import Optimizer


class ScheduleFreeAdamW(Optimizer):
    """Schedule-Free AdamW (Defazio et al., 2024, "The Road Less Scheduled"), as Keras 3.15.

    Slots `momentum` (the sequence `z` the gradient steps move; it starts as a copy of the
    variable) and `velocity`. At step t (1-based), the variable `y` holding the
    interpolation of `z` and the average `x`::

        lr_t = lr * min(t / warmup_steps, 1)          # when warmup_steps > 0
        v = beta_2 * v + (1 - beta_2) * g**2
        z_new = z - lr_t * g / (sqrt(v / (1 - beta_2**t)) + epsilon)
        x = (y - (1 - beta_1) * z) / beta_1           # recovered from y and the old z
        x = (1 - 1/t) * x + (1/t) * z_new
        y = (1 - beta_1) * z_new + beta_1 * x

    A sparse gradient is applied as a dense one (every element's average moves).

    Args:
        learning_rate: a float or a schedule (default 0.0025).
        beta_1: the interpolation between `z` and `x`, in (0, 1].
        beta_2: the decay rate of the second moment.
        epsilon: small constant for numerical stability.
        warmup_steps: steps over which the learning rate rises linearly from 0.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Raises:
        ValueError: for beta_1 outside (0, 1] or a negative warmup_steps.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 2.0])
        >>> opt = ks.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
        >>> _ = opt.apply([ks.constant([1.0, -1.0])], [w])
        >>> w.numpy().round(4)
        array([0.9, 2.1], dtype=float32)
    """

    _dense_sparse_updates = True

    def __init__(
        self,
        learning_rate=0.0025,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-8,
        warmup_steps=0,
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
            name=name or "schedule_free_adam_w",  # Keras's default name
            **kwargs,
        )
        self.beta_1 = arguments.number(beta_1, "beta_1", "ScheduleFreeAdamW", 0, 1,
                                       low_open=True)
        self.beta_2 = arguments.number(beta_2, "beta_2", "ScheduleFreeAdamW", 0, 1)
        self.epsilon = float(epsilon)
        self.warmup_steps = arguments.integer(warmup_steps, "warmup_steps",
                                              "ScheduleFreeAdamW", 0)

    def _slot_specs(self) -> list:
        return [("momentum", 0.0), ("velocity", 0.0)]

    def _create_slots(self, var) -> None:
        new = "momentum" not in self._slots.get(id(var), {})
        super()._create_slots(var)
        if new:  # Keras's build: z starts at the variable's value
            momentum = self._slots[id(var)]["momentum"]
            momentum._value[...] = var._value
            momentum._version += 1

    def reset_state(self) -> None:
        super().reset_state()
        for key, slots in self._slots.items():
            slots["momentum"]._value[...] = self._slot_owners[key]._value

    def update_arrays(self, grad, param, slots, lr):
        xp = backend.array_module(param)
        dtype = param.dtype.type
        t = float(self._step)
        if self.warmup_steps > 0:
            lr = lr * min(t / self.warmup_steps, 1.0)
        b1, b2 = dtype(self.beta_1), dtype(self.beta_2)
        one = dtype(1.0)
        z, v = slots["momentum"], slots["velocity"]
        z_old = z.copy()
        v += (grad * grad - v) * (one - b2)
        denom = xp.sqrt(v / dtype(1.0 - self.beta_2 ** t)) + dtype(self.epsilon)
        z -= (dtype(lr) * grad) / denom
        weight = dtype(1.0 / t)
        x = (param - (one - b1) * z_old) / b1
        x = (one - weight) * x + weight * z
        param[...] = (one - b1) * z + b1 * x

    def get_config(self) -> dict:
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2,
                    epsilon=self.epsilon, warmup_steps=self.warmup_steps)
