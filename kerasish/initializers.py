"""Weight initializers, drawn from `ks.random` so `ks.random.set_seed` makes them reproducible.

Each is a callable `init(shape, dtype) -> Tensor`; `get("glorot_uniform")`
resolves a name, and a plain callable is accepted anywhere an initializer is.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops
from kerasish.core.tensor import as_dtype, convert_to_tensor


def _fans(shape) -> tuple:
    """(fan_in, fan_out) as Keras computes them (conv kernels count the receptive field)."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: subclasses implement `__call__(shape, dtype)`."""

    def __call__(self, shape, dtype=np.float32):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}


class Zeros(Initializer):
    def __call__(self, shape, dtype=np.float32):
        return array_ops.zeros(shape, dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=np.float32):
        return array_ops.ones(shape, dtype)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=np.float32):
        value = convert_to_tensor(self.value).numpy()
        return convert_to_tensor(np.broadcast_to(value, tuple(shape)).astype(as_dtype(dtype)))


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=np.float32):
        return ks_random.normal(shape, self.mean, self.stddev, dtype, self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=np.float32):
        return ks_random.uniform(shape, self.minval, self.maxval, dtype, self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=np.float32):
        return ks_random.truncated_normal(shape, self.mean, self.stddev, dtype, self.seed)


class VarianceScaling(Initializer):
    """Scale / fan, drawn normal (truncated) or uniform: the family behind Glorot and He."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise InvalidArgumentError(f"VarianceScaling: unknown mode {mode!r}")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise InvalidArgumentError(f"VarianceScaling: unknown distribution {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=np.float32):
        fan_in, fan_out = _fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, fan)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return ks_random.uniform(shape, -limit, limit, dtype, self.seed)
        if self.distribution == "untruncated_normal":
            return ks_random.normal(shape, 0.0, math.sqrt(variance), dtype, self.seed)
        # 0.8796... is the stddev of a unit normal truncated at two standard deviations.
        stddev = math.sqrt(variance) / 0.87962566103423978
        return ks_random.truncated_normal(shape, 0.0, stddev, dtype, self.seed)


def GlorotUniform(seed=None):  # noqa: N802 - Keras's class-like name
    return VarianceScaling(1.0, "fan_avg", "uniform", seed)


def GlorotNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed)


def HeNormal(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def HeUniform(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def LecunNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


_BY_NAME = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "lecun_normal": LecunNormal,
}

zeros, ones = Zeros, Ones
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal = HeNormal, HeUniform, LecunNormal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal


def get(identifier):
    """An initializer from a name ('he_normal'), an instance, or any callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise InvalidArgumentError(
                f"unknown initializer {identifier!r}; choose one of: {', '.join(sorted(_BY_NAME))}"
            )
        return _BY_NAME[key]()
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as an initializer")
