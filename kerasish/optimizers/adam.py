"""Adam and AdamW."""

from __future__ import annotations

import math

from kerasish.core import arguments
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rules import UpdateRule

_MOMENTS = """
    s = grad * one_minus_beta_1
    m = m * beta_1
    m = m + s
    s = grad * grad
    s = s * one_minus_beta_2
    v = v * beta_2
    v = v + s
"""
_STEP = """
    s = sqrt({v})
    s = s + epsilon
    s = m / s
    s = s * alpha
    param = param - s
"""
_SCALARS = "one_minus_beta_1 beta_1 one_minus_beta_2 beta_2 epsilon alpha"
_ADAM_RULE = UpdateRule("adam", "grad param m v", _SCALARS, _MOMENTS + _STEP.format(v="v"))
_AMSGRAD_RULE = UpdateRule("amsgrad", "grad param m v vhat", _SCALARS,
                           _MOMENTS + "vhat = maximum(vhat, v)" + _STEP.format(v="vhat"))


class Adam(Optimizer):
    """Adam (Kingma & Ba), with Keras's formulation and defaults.

    At step t (1-based), with slots `m`, `v` (and `vhat` for AMSGrad)::

        m = beta_1 * m + (1 - beta_1) * g
        v = beta_2 * v + (1 - beta_2) * g**2
        vhat = max(vhat, v)                          # amsgrad only, used instead of v
        alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        var -= alpha * m / (sqrt(v) + epsilon)

    (epsilon is Keras's "epsilon hat", added after the bias correction, so
    it differs slightly from PyTorch's epsilon; with epsilon=0 the two agree.)

    Sparse gradients (`ks.IndexedSlices`, e.g. from an `Embedding`) are
    applied *lazily*, as TF's LazyAdam: only the touched rows of `m`, `v`
    and the variable are updated, with the global step's bias correction;
    untouched rows keep their moments instead of decaying them. This is
    what makes Adam affordable on large embeddings, and differs from a dense
    update of the same gradient (where every row's moments decay).

    Args:
        learning_rate: a float or a schedule (default 0.001).
        beta_1, beta_2: decay rates of the first and second moments.
        epsilon: small constant for numerical stability.
        amsgrad: use the maximum of past second moments (slot `vhat`).
        base arguments: weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
            ema_momentum, ema_overwrite_frequency, loss_scale_factor,
            gradient_accumulation_steps, name: as for `Optimizer`.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 1.0])
        >>> opt = ks.optimizers.Adam(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ks.constant([0.5, -2.0]), w)])
        >>> w.numpy().round(4)  # the first step moves each weight by about lr
        array([0.9, 1.1], dtype=float32)
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
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
        kind = type(self).__name__
        self.beta_1 = arguments.number(beta_1, "beta_1", kind, 0, 1, high_open=True)
        self.beta_2 = arguments.number(beta_2, "beta_2", kind, 0, 1, high_open=True)
        self.epsilon = arguments.number(epsilon, "epsilon", kind, 0)
        self.amsgrad = bool(amsgrad)

    def _slot_specs(self) -> list:
        specs = [("m", 0.0), ("v", 0.0)]
        if self.amsgrad:
            specs.append(("vhat", 0.0))
        return specs

    def update_arrays(self, grad, param, slots, lr):
        b1, b2, t = self.beta_1, self.beta_2, self._step
        alpha = lr * math.sqrt(1.0 - b2**t) / (1.0 - b1**t)
        if self.amsgrad:
            _AMSGRAD_RULE.apply(grad, param, slots["m"], slots["v"], slots["vhat"],
                                one_minus_beta_1=1.0 - b1, beta_1=b1, one_minus_beta_2=1.0 - b2,
                                beta_2=b2, epsilon=self.epsilon, alpha=alpha)
        else:
            _ADAM_RULE.apply(grad, param, slots["m"], slots["v"], one_minus_beta_1=1.0 - b1,
                             beta_1=b1, one_minus_beta_2=1.0 - b2, beta_2=b2,
                             epsilon=self.epsilon, alpha=alpha)

    def get_config(self) -> dict:
        return dict(
            super().get_config(),
            beta_1=self.beta_1,
            beta_2=self.beta_2,
            epsilon=self.epsilon,
            amsgrad=self.amsgrad,
        )


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as Keras and PyTorch do it.

    Before each Adam update, `var -= lr * weight_decay * var` (`lr` is the
    learning rate, not Adam's bias-corrected step size). For a sparse gradient
    only the touched rows decay. Exempt biases and normalization weights with
    `exclude_from_weight_decay(var_names=["bias", ...])`.

    Args:
        learning_rate: a float or a schedule (default 0.001).
        weight_decay: the decay coefficient (default 0.004, as Keras).
        beta_1, beta_2, epsilon, amsgrad: as for `Adam`.
        base arguments: clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps,
            name: as for `Optimizer`.

    Raises:
        ValueError: if `weight_decay` is None (use `Adam` for no decay) or negative.

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, -1.0])
        >>> opt = ks.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> _ = opt.apply_gradients([(ks.constant([0.0, 0.0]), w)])  # decay alone
        >>> [round(v, 4) for v in w.numpy().tolist()]  # 1 - 0.1 * 0.5 * 1
        [0.95, -0.95]
    """

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
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
        if weight_decay is None:
            raise ValueError(
                "AdamW: weight_decay must be a number (default 0.004); use Adam for no decay"
            )
        super().__init__(
            learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
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
