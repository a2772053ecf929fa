"""RMSprop."""

from __future__ import annotations

from kerasish.core import arguments
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule


def _rule(centered: bool, momentum: bool) -> UpdateRule:
    """The update for one configuration: rms (and mg, the mean gradient, when centered)
    decay towards the gradient's square (and the gradient); s = lr * g / sqrt(denominator);
    with momentum the step goes through the `buffer` slot."""
    statements = """
        s = grad * grad
        s = s * one_minus_rho
        rms = rms * rho
        rms = rms + s
    """
    statements += """
        mg = mg * rho
        s = grad * one_minus_rho
        mg = mg + s
        s = mg * mg
        s = rms - s
        s = s + epsilon
    """ if centered else """
        s = rms + epsilon
    """
    statements += """
        s = sqrt(s)
        s = grad / s
        s = s * lr
    """
    statements += """
        buffer = buffer * momentum
        buffer = buffer + s
        param = param - buffer
    """ if momentum else """
        param = param - s
    """
    arrays = "grad param rms" + (" mg" if centered else "") + (" buffer" if momentum else "")
    name = "rmsprop" + ("_centered" if centered else "") + ("_momentum" if momentum else "")
    return UpdateRule(name, arrays, "lr rho one_minus_rho epsilon momentum", statements)


_RULES = {(c, m): _rule(c, m) for c in (False, True) for m in (False, True)}


class RMSprop(Optimizer):
    """RMSprop (Hinton), with Keras's formulation and defaults.

    With slots `rms` (and `mg` when centered, `momentum` when momentum > 0)::

        rms = rho * rms + (1 - rho) * g**2
        mg = rho * mg + (1 - rho) * g                    # centered only
        denominator = rms - mg**2 + epsilon              # centered
        denominator = rms + epsilon                      # otherwise
        increment = lr * g / sqrt(denominator)
        momentum_buffer = momentum * momentum_buffer + increment; var -= momentum_buffer
        var -= increment                                 # without momentum

    epsilon is inside the square root (as Keras and TF); PyTorch adds it
    outside, so the two agree exactly only for epsilon=0. A sparse gradient
    updates only the touched rows of the variable and of its slots.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        rho: decay rate of the mean square.
        momentum: heavy-ball momentum (0: no slot).
        epsilon: small constant for numerical stability.
        centered: normalize by the estimated variance instead of the mean square.
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable(1.0)
        >>> opt = ks.optimizers.RMSprop(learning_rate=0.01, rho=0.75, epsilon=0.0)
        >>> _ = opt.apply_gradients([(ks.constant(3.0), w)])
        >>> round(float(w), 5)  # 1 - 0.01 * 3 / sqrt(0.25 * 9)
        0.98
    """

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
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
        self.rho = arguments.number(rho, "rho", "RMSprop", 0, 1, high_open=True)
        self.momentum = arguments.number(momentum, "momentum", "RMSprop", 0, 1)
        self.epsilon = arguments.number(epsilon, "epsilon", "RMSprop", 0)
        self.centered = bool(centered)

    def _slot_specs(self) -> list:
        specs = [("rms", 0.0)]
        if self.momentum:
            specs.append(("momentum", 0.0))
        if self.centered:
            specs.append(("mg", 0.0))
        return specs

    def update_arrays(self, grad, param, slots, lr):
        centered, momentum = self.centered, bool(self.momentum)
        arrays = [grad, param, slots["rms"]]
        arrays += [slots["mg"]] if centered else []
        arrays += [slots["momentum"]] if momentum else []
        _RULES[centered, momentum].apply(*arrays, lr=lr, rho=self.rho,
                                         one_minus_rho=1.0 - self.rho, epsilon=self.epsilon,
                                         momentum=self.momentum)

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            rho=self.rho,
            momentum=self.momentum,
            epsilon=self.epsilon,
            centered=self.centered,
        )
