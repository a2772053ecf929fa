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
        """The constructor arguments that rebuild this initializer (Keras 3 key names)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape, dtype=np.float32):
        return array_ops.zeros(shape, dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=np.float32):
        return array_ops.ones(shape, dtype)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def get_config(self) -> dict:
        return {"value": self.value}

    def __call__(self, shape, dtype=np.float32):
        value = convert_to_tensor(self.value).numpy()
        return convert_to_tensor(np.broadcast_to(value, tuple(shape)).astype(as_dtype(dtype)))


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}

    def __call__(self, shape, dtype=np.float32):
        return ks_random.normal(shape, self.mean, self.stddev, dtype, self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}

    def __call__(self, shape, dtype=np.float32):
        return ks_random.uniform(shape, self.minval, self.maxval, dtype, self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}

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

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}

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


class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix: the default for recurrent kernels, which it keeps from
    shrinking or blowing up the state over many steps.

    Shapes of rank > 2 are treated as (prod(shape[:-1]), shape[-1]) matrices.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> q = ks.initializers.Orthogonal(seed=1)((3, 3)).numpy()
        >>> bool(np.allclose(q @ q.T, np.eye(3), atol=1e-6))
        True
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=np.float32):
        shape = tuple(shape)
        if len(shape) < 2:
            raise InvalidArgumentError(f"Orthogonal: needs a shape of rank >= 2, got {shape}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        draw = ks_random.normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, np.float64, self.seed)
        q, r = np.linalg.qr(draw.numpy())
        q = q * np.sign(np.diag(r))  # a uniformly distributed rotation, not QR's sign convention
        if rows < cols:
            q = q.T
        return convert_to_tensor((self.gain * q).reshape(shape).astype(as_dtype(dtype)))

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed}


class _FixedVarianceScaling(VarianceScaling):
    """A named VarianceScaling setting (Glorot, He, LeCun); its config is just the seed."""

    _setting: tuple = ()

    def __init__(self, seed=None):
        super().__init__(*self._setting, seed=seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class GlorotUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out))."""

    _setting = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    _setting = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in)."""

    _setting = (2.0, "fan_in", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / fan_in)."""

    _setting = (2.0, "fan_in", "uniform")


class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in)."""

    _setting = (1.0, "fan_in", "truncated_normal")


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
    "variance_scaling": VarianceScaling,
    "orthogonal": Orthogonal,
}

zeros, ones = Zeros, Ones
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal = HeNormal, HeUniform, LecunNormal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal


def serialize(initializer) -> dict:
    """Keras 3's serialized form of an initializer (see `ks.saving.serialize_keras_object`)."""
    from kerasish.saving import serialize_keras_object

    return serialize_keras_object(initializer)


def deserialize(config: dict, custom_objects: dict | None = None):
    """An initializer from `serialize`'s dict (`module` may be omitted)."""
    from kerasish.saving import deserialize_keras_object

    classes = {cls.__name__: cls for cls in set(_BY_NAME.values())}
    return deserialize_keras_object(config, custom_objects, module_objects=classes)


def get(identifier):
    """An initializer from a name ('he_normal' or 'HeNormal'), an instance, a serialized dict
    (`ks.saving.serialize_keras_object`'s form), or any callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        from kerasish.saving import get_registered_object

        key = identifier.lower()
        classes = {cls.__name__: cls for cls in set(_BY_NAME.values())}
        found = _BY_NAME.get(key) or classes.get(identifier) or get_registered_object(identifier)
        if found is None:
            raise InvalidArgumentError(
                f"unknown initializer {identifier!r}; choose one of: {', '.join(sorted(_BY_NAME))}"
            )
        return found()
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as an initializer")
