"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from __future__ import annotations

from kerasish.core import arguments, backend
from kerasish.optimizers.optimizer import _CLIP_ARGS, Optimizer
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

    def _applies_repeated_rows(self) -> bool:
        # without momentum, decay, clipping or an exchange across ranks, the update of a
        # sparse gradient adds each row to its variable row: the repeats of an index need
        # not be summed first (word2vec's batches repeat frequent words hundreds of times)
        exchange = self.gradient_exchange
        return not (self.momentum or self.weight_decay or self.gradient_accumulation_steps
                    or self.loss_scale_factor is not None
                    or any(getattr(self, c) is not None for c in _CLIP_ARGS)
                    or (exchange is not None and exchange.combines_ranks))

    def sparse_update_step(self, values, indices, var, lr: float) -> None:
        """Apply a sparse gradient to rows `indices` of `var` (`Optimizer.sparse_update_step`).

        Without momentum, weight decay, clipping or an exchange across ranks, the indices
        may repeat: each row is added in turn (`backend.scatter_add`).

        Args:
            values: a raw array of gradient rows, shape ``(len(indices),) + var.shape[1:]``.
            indices: a raw integer array of row indices.
            var: the variable to update.
            lr: the learning rate for this step.

        Raises:
            InvalidArgumentError: an index outside the variable's rows (nothing is changed).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> var = ks.Variable(np.zeros((3, 2), np.float32))
            >>> sgd = ks.optimizers.SGD(0.5)
            >>> sgd.sparse_update_step(np.ones((3, 2), np.float32), np.array([1, 1, 2]), var, 0.5)
            >>> var.numpy()[:, 0]
            array([ 0. , -1. , -0.5], dtype=float32)
        """
        if not self._applies_repeated_rows():
            super().sparse_update_step(values, indices, var, lr)
            return
        param = var._value
        if indices.shape[0]:
            low, high = int(indices.min()), int(indices.max())
            if low < 0 or high >= param.shape[0]:
                self._raise_bad_index(var, low if low < 0 else high)
        backend.scatter_add(param, indices, values, -lr)
        var._version += 1

    def update_arrays(self, grad, param, slots, lr):
        if not self.momentum:
            _PLAIN_RULE.apply(grad, param, lr=lr)
            return
        rule = _NESTEROV_RULE if self.nesterov else _MOMENTUM_RULE
        rule.apply(grad, param, slots["momentum"], lr=lr, momentum=self.momentum)

    def get_config(self) -> dict:
        return dict(super().get_config(), momentum=self.momentum, nesterov=self.nesterov)
