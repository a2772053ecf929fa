"""Learning-rate schedules: callables from the optimizer's step to a learning rate.

A schedule passed as an optimizer's `learning_rate` is evaluated once per
`apply_gradients`, at the optimizer's `iterations` (0 on the first step).
Schedules hold no variables: their `get_config()` is enough to rebuild them,
and `serialize` / `deserialize` turn one into a plain dict and back.

Example:
    >>> import kerasish as ks
    >>> schedule = ks.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> round(float(schedule(10)), 6)
    0.05
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.core.tensor import Tensor, constant
from kerasish.core.tracking import Trackable


def _step_value(step) -> float:
    """A Python float from an int, a NumPy scalar, a tensor or a variable."""
    if isinstance(step, Tensor):
        return float(step)
    return float(np.asarray(step))


class LearningRateSchedule(Trackable):
    """Base class: subclasses implement `__call__(step)` and `get_config()`.

    `__call__` receives the step (a Python int when called by an optimizer)
    and returns the learning rate, a scalar float32 tensor for the built-in
    schedules (a Python float from a custom schedule works too).
    """

    def __call__(self, step):
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(step) returning the learning rate"
        )

    def get_config(self) -> dict:
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_config() so it can be saved and rebuilt"
        )

    @classmethod
    def from_config(cls, config: dict):
        """A schedule of this class made from `get_config`'s dict.

        Args:
            config: the constructor's keyword arguments.

        Returns:
            A new schedule giving the same learning rates.

        Example:
            >>> import kerasish as ks
            >>> schedules = ks.optimizers.schedules
            >>> decay = schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
            >>> again = schedules.ExponentialDecay.from_config(decay.get_config())
            >>> round(float(again(10)), 6)
            0.05
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _result(value: float) -> Tensor:
    return constant(value, dtype=np.float32)


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps over which the rate is multiplied by `decay_rate`.
        decay_rate: the factor per `decay_steps`.
        staircase: decay in whole periods (`step // decay_steps`) instead of smoothly.

    Example:
        >>> s = ExponentialDecay(1.0, decay_steps=2, decay_rate=0.5, staircase=True)
        >>> [float(s(k)) for k in range(5)]
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        p = _step_value(step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return _result(self.initial_learning_rate * self.decay_rate**p)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to and including step `boundaries[0]`, then `values[1]`, ...

    Args:
        boundaries: increasing step numbers.
        values: one more value than boundaries.

    Example:
        >>> s = PiecewiseConstantDecay([2, 4], [1.0, 0.5, 0.1])
        >>> [round(float(s(k)), 6) for k in range(6)]
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        boundaries = list(boundaries)
        values = [float(v) for v in values]
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                f"PiecewiseConstantDecay: needs one more value than boundaries, got "
                f"{len(boundaries)} boundaries {boundaries} and {len(values)} values {values}"
            )
        if any(b >= a for b, a in zip(boundaries[:-1], boundaries[1:], strict=True)):
            raise ValueError(
                f"PiecewiseConstantDecay: boundaries must be strictly increasing, got {boundaries}"
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        s = _step_value(step)
        for boundary, value in zip(self.boundaries, self.values[:-1], strict=True):
            if s <= boundary:
                return _result(value)
        return _result(self.values[-1])

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay from `initial_learning_rate` to `alpha * initial_learning_rate`.

    `lr(step) = initial * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)`,
    constant after `decay_steps`. With `warmup_target`, the rate first rises
    linearly from `initial_learning_rate` to `warmup_target` over
    `warmup_steps`, then decays from `warmup_target` (as Keras 3).

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the steps over which it decays (positive).
        alpha: the final rate as a fraction of the initial (or warm-up target) one.
        name: the schedule's name (Keras's argument).
        warmup_target: the rate reached after the warm-up (None: no warm-up).
        warmup_steps: the warm-up's length in steps.

    Raises:
        ValueError: if `decay_steps` is not positive.

    Example:
        >>> s = CosineDecay(1.0, decay_steps=10, alpha=0.1)
        >>> [round(float(s(k)), 4) for k in (0, 5, 10, 20)]
        [1.0, 0.55, 0.1, 0.1]
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        alpha=0.0,
        name="CosineDecay",
        warmup_target=None,
        warmup_steps=0,
    ):
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.alpha = float(alpha)
        self.name = name
        self.warmup_target = None if warmup_target is None else float(warmup_target)
        self.warmup_steps = warmup_steps

    def _decay(self, step: float, start: float) -> float:
        fraction = min(step, self.decay_steps) / self.decay_steps
        cosine = 0.5 * (1.0 + math.cos(math.pi * fraction))
        return start * ((1.0 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        s = _step_value(step)
        if self.warmup_target is None:
            return _result(self._decay(s, self.initial_learning_rate))
        if s < self.warmup_steps:
            rise = (self.warmup_target - self.initial_learning_rate) * s / self.warmup_steps
            return _result(self.initial_learning_rate + rise)
        return _result(self._decay(s - self.warmup_steps, self.warmup_target))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter), as Keras 3.

    The first period lasts `first_decay_steps`; each next one `t_mul` times longer and
    starting from `m_mul` times the previous peak. Within period i, at the fraction f
    of it completed::

        lr = initial * m_mul**i * ((1 - alpha) * 0.5 * (1 + cos(pi * f)) + alpha)

    Args:
        initial_learning_rate: the rate at step 0.
        first_decay_steps: the length of the first period (positive).
        t_mul: the factor by which each period is longer than the one before.
        m_mul: the factor by which each period's peak is lower than the one before.
        alpha: the lowest rate of a period, as a fraction of the period's peak.
        name: the schedule's name (Keras's argument).

    Raises:
        ValueError: if `first_decay_steps` is not positive.

    Example:
        >>> s = CosineDecayRestarts(1.0, first_decay_steps=2, t_mul=2.0, m_mul=0.5)
        >>> [round(float(s(k)), 4) for k in range(8)]  # periods: steps 0-1, 2-5, 6-13
        [1.0, 0.5, 0.5, 0.4268, 0.25, 0.0732, 0.25, 0.2405]
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        if first_decay_steps <= 0:
            raise ValueError(
                f"CosineDecayRestarts: first_decay_steps must be > 0, got {first_decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.first_decay_steps = first_decay_steps
        self.t_mul = float(t_mul)
        self.m_mul = float(m_mul)
        self.alpha = float(alpha)
        self.name = name

    def __call__(self, step):
        fraction = _step_value(step) / self.first_decay_steps
        if self.t_mul == 1.0:
            restarts = math.floor(fraction)
            fraction -= restarts
        else:  # periods 1, t, t**2, ...: i restarts after (1 - t**i) / (1 - t) periods
            t = self.t_mul
            restarts = math.floor(math.log(1.0 - fraction * (1.0 - t)) / math.log(t))
            fraction = (fraction - (1.0 - t**restarts) / (1.0 - t)) / t**restarts
        cosine = 0.5 * self.m_mul**restarts * (1.0 + math.cos(math.pi * fraction))
        return _result(self.initial_learning_rate * ((1.0 - self.alpha) * cosine + self.alpha))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self.t_mul,
            "m_mul": self.m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


class PolynomialDecay(LearningRateSchedule):
    """From `initial_learning_rate` to `end_learning_rate` along a power of the steps left.

    `lr(step) = (initial - end) * (1 - step / decay_steps) ** power + end`, with the
    step held at `decay_steps` after it; with `cycle`, `decay_steps` is instead the
    first multiple of it at or above the step (at least one), so the decay restarts.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the steps over which it decays (positive).
        end_learning_rate: the final rate.
        power: the power of the polynomial (1: linear).
        cycle: restart the decay after each `decay_steps`.
        name: the schedule's name (Keras's argument).

    Raises:
        ValueError: if `decay_steps` is not positive.

    Example:
        >>> s = PolynomialDecay(1.0, decay_steps=4, end_learning_rate=0.0, power=2.0)
        >>> [float(s(k)) for k in range(6)]
        [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step):
        s = _step_value(step)
        decay_steps = self.decay_steps
        if self.cycle:
            decay_steps *= max(1.0, math.ceil(s / decay_steps))
        else:
            s = min(s, decay_steps)
        rise = (self.initial_learning_rate - self.end_learning_rate)
        return _result(rise * (1.0 - s / decay_steps) ** self.power + self.end_learning_rate)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the steps per unit of `decay_rate` (positive).
        decay_rate: how fast the rate falls.
        staircase: decay in whole periods (`step // decay_steps`) instead of smoothly.
        name: the schedule's name (Keras's argument).

    Raises:
        ValueError: if `decay_steps` is not positive.

    Example:
        >>> s = InverseTimeDecay(1.0, decay_steps=2, decay_rate=1.0, staircase=True)
        >>> [round(float(s(k)), 4) for k in range(5)]
        [1.0, 1.0, 0.5, 0.5, 0.3333]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        if decay_steps <= 0:
            raise ValueError(f"InverseTimeDecay: decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        p = _step_value(step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return _result(self.initial_learning_rate / (1.0 + self.decay_rate * p))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


_SCHEDULES = {cls.__name__: cls for cls in (
    ExponentialDecay, PiecewiseConstantDecay, CosineDecay, CosineDecayRestarts, PolynomialDecay,
    InverseTimeDecay)}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """Keras 3's serialized form (`ks.saving.serialize_keras_object`), which `deserialize`
    turns back.

    Args:
        learning_rate_schedule: a learning-rate schedule (Keras's argument name).

    Returns:
        A JSON-ready dict.

    Example:
        >>> import kerasish as ks
        >>> schedules = ks.optimizers.schedules
        >>> config = schedules.serialize(schedules.ExponentialDecay(0.1, 10, 0.5))
        >>> config["class_name"], config["config"]["decay_steps"]
        ('ExponentialDecay', 10)
    """
    return serialize_keras_object(learning_rate_schedule)


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """Rebuild a schedule from `serialize`'s dict (or Keras's); custom classes go in
    `custom_objects` or the registry (`ks.saving.register_keras_serializable`).

    Args:
        config: the dict `serialize` returned.
        custom_objects: {name: class} for your own schedule classes.

    Returns:
        The schedule.

    Raises:
        SerializationError: naming a class that cannot be found.

    Example:
        >>> import kerasish as ks
        >>> schedules = ks.optimizers.schedules
        >>> config = schedules.serialize(schedules.ExponentialDecay(0.1, 10, 0.5))
        >>> round(float(schedules.deserialize(config)(10)), 6)
        0.05
    """
    return deserialize_keras_object(config, custom_objects, module_objects=_SCHEDULES)
