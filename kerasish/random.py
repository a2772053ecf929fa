"""Random tensors, reproducible from `set_seed`.

One generator per device, created from the global seed. After
`ks.random.set_seed(s)` the same sequence of calls gives the same values. An
op-level `seed` gives a separate stream per (global seed, op seed), also
reproducible.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

_global_seed: int | None = None
_generators: dict = {}


def set_seed(seed: int) -> None:
    """Make every later random draw reproducible (also seeds layer initializers)."""
    global _global_seed
    _global_seed = int(seed)
    _generators.clear()


def get_seed():
    """The global seed, or None if none was set."""
    return _global_seed


def _generator(seed=None):
    device = backend.current_device()
    key = (device, seed)
    gen = _generators.get(key)
    if gen is None:
        if seed is None:
            entropy = _global_seed
        else:
            entropy = [0 if _global_seed is None else _global_seed, int(seed)]
        gen = backend.random_generator(entropy, device)
        _generators[key] = gen
    return gen


def _float_dtype(dtype, name):
    dtype = as_dtype(dtype)
    if dtype.kind != "f":
        raise InvalidArgumentError(f"random.{name}: dtype must be floating point, got {dtype}")
    return dtype


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None) -> Tensor:
    """Samples from N(mean, stddev**2)."""
    dtype = _float_dtype(dtype, "normal")
    values = _generator(seed).standard_normal(_shape(shape), dtype=np.float64)
    return Tensor((values * stddev + mean).astype(dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=np.float32, seed=None) -> Tensor:
    """Samples from U[minval, maxval) (integers if `dtype` is an integer type)."""
    dtype = as_dtype(dtype)
    gen = _generator(seed)
    if dtype.kind in "iu":
        if maxval is None or maxval == 1.0:
            raise InvalidArgumentError("random.uniform: integer dtypes need an explicit maxval")
        return Tensor(gen.integers(int(minval), int(maxval), _shape(shape)).astype(dtype))
    values = gen.random(_shape(shape), dtype=np.float64)
    return Tensor((values * (maxval - minval) + minval).astype(dtype))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None) -> Tensor:
    """Normal samples redrawn until within two standard deviations of the mean."""
    dtype = _float_dtype(dtype, "truncated_normal")
    gen = _generator(seed)
    values = gen.standard_normal(_shape(shape), dtype=np.float64)
    xp = backend.array_module(values)
    bad = xp.abs(values) > 2
    while bool(bad.any()):
        values[bad] = gen.standard_normal(int(bad.sum()), dtype=np.float64)
        bad = xp.abs(values) > 2
    return Tensor((values * stddev + mean).astype(dtype))


def shuffle(value, seed=None) -> Tensor:
    """A copy of `value` with its first axis randomly permuted."""
    x = convert_to_tensor(value)
    if x.ndim == 0:
        raise InvalidArgumentError("random.shuffle: needs a tensor of rank >= 1, got a scalar")
    order = _generator(seed).permutation(x.shape[0])
    return Tensor(x._value[backend.to_device(order, backend.device_of(x._value))])


def categorical(logits, num_samples: int, dtype=np.int64, seed=None) -> Tensor:
    """Class indices drawn from the softmax of each row of `logits`: (batch, num_samples)."""
    x = convert_to_tensor(logits)
    values = backend.to_numpy(x._value).astype(np.float64)
    probs = np.exp(values - values.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    cumulative = probs.cumsum(axis=-1)
    draws = backend.to_numpy(_generator(seed).random((x.shape[0], num_samples)))
    picks = np.stack([np.searchsorted(c, d) for c, d in zip(cumulative, draws)])
    picks = np.minimum(picks, x.shape[-1] - 1)
    return Tensor(backend.to_device(picks.astype(as_dtype(dtype)), backend.device_of(x._value)))
