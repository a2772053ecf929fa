"""RMSprop."""

from __future__ import annotations

from kerasish.core import backend
from kerasish.optimizers.optimizer import Optimizer, scratch_like


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
        **kwargs: clipnorm, clipvalue, global_clipnorm, weight_decay, name.

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
        **kwargs,
    ):
        super().__init__(learning_rate, **kwargs)
        if not 0.0 <= float(rho) < 1.0:
            raise ValueError(f"RMSprop: rho must be in [0, 1), got {rho!r}")
        if not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"RMSprop: momentum must be in [0, 1], got {momentum!r}")
        if float(epsilon) < 0:
            raise ValueError(f"RMSprop: epsilon must be >= 0, got {epsilon!r}")
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)

    def _slot_specs(self) -> list:
        specs = [("rms", 0.0)]
        if self.momentum:
            specs.append(("momentum", 0.0))
        if self.centered:
            specs.append(("mg", 0.0))
        return specs

    def update_arrays(self, grad, param, slots, lr):
        xp = backend.array_module(param)
        rho = self.rho
        rms = slots["rms"]
        scratch = xp.multiply(grad, grad, out=scratch_like(param))
        scratch *= 1.0 - rho
        rms *= rho
        rms += scratch
        if self.centered:
            mg = slots["mg"]
            mg *= rho
            xp.multiply(grad, 1.0 - rho, out=scratch)
            mg += scratch
            xp.multiply(mg, mg, out=scratch)
            xp.subtract(rms, scratch, out=scratch)
            scratch += self.epsilon
        else:
            xp.add(rms, self.epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(grad, scratch, out=scratch)
        scratch *= lr
        if self.momentum:
            buffer = slots["momentum"]
            buffer *= self.momentum
            buffer += scratch
            param -= buffer
        else:
            param -= scratch

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            rho=self.rho,
            momentum=self.momentum,
            epsilon=self.epsilon,
            centered=self.centered,
        )
