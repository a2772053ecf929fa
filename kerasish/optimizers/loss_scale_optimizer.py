"""LossScaleOptimizer: dynamic loss scaling around another optimizer."""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.ops import creation_ops
from kerasish.core.serialization import (
    deserialize_keras_object,
    family_objects,
    serialize_keras_object,
)
from kerasish.core.tensor import IndexedSlices, Tensor, convert_to_tensor
from kerasish.optimizers.optimizer import Optimizer, _host_variable


class LossScaleOptimizer(Optimizer):
    """Dynamic loss scaling, as Keras 3's: wraps `inner_optimizer`.

    `fit` (and a `train_step` that calls `optimizer.scale_loss(loss)`) differentiates
    the loss times `dynamic_scale`; `apply_gradients` divides the gradients by it and
    then:

    - if any gradient holds an inf or NaN, the step is skipped (the variables, the inner
      optimizer's slots and its `iterations` are left alone), the scale is halved and
      `step_counter` restarts at 0;
    - otherwise the inner optimizer applies the unscaled gradients, and after
      `dynamic_growth_steps` such steps in a row the scale is doubled.

    Loss scaling keeps small float16 gradients from flushing to zero. On NumPy (and for
    float32 or float64 gradients anywhere) it is correct but buys nothing: the step does
    the same work plus one scan of every gradient for non-finite values, which on the GPU
    also waits for the gradients to reach the host's decision. The compiled step runs
    the whole update each call (it is not captured as a CUDA graph). It does not take
    part in `ks.distribute`'s gradient exchange (an error says so).

    `iterations`, `learning_rate`, the slots and `build` are the inner optimizer's.

    Args:
        inner_optimizer: the optimizer object to wrap.
        initial_scale: the starting loss scale (default 2**15).
        dynamic_growth_steps: finite steps after which the scale doubles (default 2000).
        name: the optimizer's name (default 'loss_scale_optimizer').

    Raises:
        TypeError: if `inner_optimizer` is not an optimizer object.
        ValueError: for a non-positive `initial_scale` or `dynamic_growth_steps`.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0])
        >>> opt = ks.optimizers.LossScaleOptimizer(ks.optimizers.SGD(0.5), initial_scale=8.0)
        >>> _ = opt.apply_gradients([(ks.constant([np.inf]), w)])  # skipped, scale halved
        >>> float(opt.dynamic_scale), w.numpy()
        (4.0, array([1.], dtype=float32))
        >>> _ = opt.apply_gradients([(ks.constant([8.0]), w)])  # 8 / 4 = 2: w -= 0.5 * 2
        >>> w.numpy(), int(opt.iterations)
        (array([0.], dtype=float32), 1)
    """

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        super().__init__(0.0, name=name or "loss_scale_optimizer", **kwargs)
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                f"LossScaleOptimizer: inner_optimizer must be an optimizer object, got "
                f"{type(inner_optimizer).__name__} {inner_optimizer!r}; e.g. "
                "LossScaleOptimizer(ks.optimizers.Adam())")
        if not float(initial_scale) > 0:
            raise ValueError(f"LossScaleOptimizer: initial_scale must be > 0, got "
                             f"{initial_scale!r}")
        if int(dynamic_growth_steps) < 1:
            raise ValueError(f"LossScaleOptimizer: dynamic_growth_steps must be >= 1, got "
                             f"{dynamic_growth_steps!r}")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        self.step_counter = _host_variable(0, np.int64, "step_counter")
        self.dynamic_scale = _host_variable(self.initial_scale, np.float32, "dynamic_scale")

    # -- the inner optimizer's state --------------------------------------------------
    @property
    def iterations(self):
        """The inner optimizer's step counter."""
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (assigning sets it)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self.inner_optimizer.learning_rate = value

    lr = learning_rate

    def build(self, var_list) -> None:
        self.inner_optimizer.build(var_list)

    def get_slot(self, var, name: str):
        return self.inner_optimizer.get_slot(var, name)

    def get_slot_names(self) -> list:
        return self.inner_optimizer.get_slot_names()

    def slot_variables(self):
        return self.inner_optimizer.slot_variables()

    @property
    def variables(self) -> list:
        """Keras's order: its own step and learning rate (unused), `step_counter`,
        `dynamic_scale`, then the inner optimizer's variables."""
        own = [self._iterations, self._learning_rate, self.step_counter, self.dynamic_scale]
        return own + self.inner_optimizer.variables

    def finalize_variable_values(self, var_list) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    def reset_state(self) -> None:
        self.inner_optimizer.reset_state()
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.initial_scale)

    # -- scaling ----------------------------------------------------------------------
    def scale_loss(self, loss):
        """`loss * dynamic_scale`: the loss to differentiate.

        Args:
            loss: the step's loss, a scalar tensor.

        Returns:
            The scaled loss.

        Example:
            >>> import kerasish as ks
            >>> opt = ks.optimizers.LossScaleOptimizer(ks.optimizers.SGD(), initial_scale=4.0)
            >>> float(opt.scale_loss(ks.constant(1.5)))
            6.0
        """
        loss = convert_to_tensor(loss)
        scale = self.dynamic_scale  # kept on the host, where `apply_eagerly` reads it
        device = backend.device_of(loss._value)
        if device != backend.device_of(scale._value):
            scale = creation_ops.copy_to_device(scale, device)
        return loss * scale

    def apply_eagerly(self, pairs) -> None:
        """Skip the step and halve the scale on non-finite gradients; else unscale them,
        apply them with the inner optimizer and grow the scale every
        `dynamic_growth_steps` steps.

        Args:
            pairs: `(gradient, variable)` pairs of scaled gradients.

        Example:
            >>> import kerasish as ks
            >>> var = ks.Variable([1.0])
            >>> opt = ks.optimizers.LossScaleOptimizer(ks.optimizers.SGD(1.0), initial_scale=4.0)
            >>> opt.apply_eagerly([(ks.constant([float("inf")]), var)])
            >>> var.numpy(), float(opt.dynamic_scale)
            (array([1.], dtype=float32), 2.0)
        """
        if self.gradient_exchange is not None:
            raise NotImplementedError(
                "LossScaleOptimizer does not exchange gradients across processes "
                "(ks.distribute); wrap the inner optimizer without loss scaling instead")
        arrays = [convert_to_tensor(g.values if isinstance(g, IndexedSlices) else g)._value
                  for g, _ in pairs]
        finite = all(bool(backend.array_module(a).isfinite(a).all()) for a in arrays)
        scale = float(self.dynamic_scale._value)
        if not finite:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(scale * 0.5)
            return
        unscaled = [(IndexedSlices(Tensor(a / scale), g.indices, g.dense_shape)
                     if isinstance(g, IndexedSlices) else a / scale, var)
                    for a, (g, var) in zip(arrays, pairs)]
        self.inner_optimizer.apply_eagerly(unscaled)
        if int(self.step_counter._value) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(scale * 2.0)
        else:
            self.step_counter.assign_add(1)

    def replay_plan(self, variables: list):
        return None  # each step decides on the host whether the gradients are finite

    # -- configuration ----------------------------------------------------------------
    def get_config(self) -> dict:
        return {
            "name": self.name,
            "inner_optimizer": serialize_keras_object(self.inner_optimizer),
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        inner = deserialize_keras_object(config.pop("inner_optimizer"), custom_objects,
                                         module_objects=family_objects("optimizers"))
        return cls(inner, **config)
