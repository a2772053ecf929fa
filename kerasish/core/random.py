"""The random generator: streams, checkpointable generators and draws, reproducible from
`set_seed`; `ks.random` is their public namespace.

One generator per device, created from the global seed. After
`ks.random.set_seed(s)` the same sequence of calls gives the same values. An
op-level `seed` gives a separate stream per (global seed, op seed), also
reproducible. The host's stream is a `Generator` (`get_global_generator()`)
whose state a checkpoint can save, so a resumed run draws what the
uninterrupted run would have drawn.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import backend, philox, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.primitive import apply, primitive
from kerasish.core.recording import current_tracer
from kerasish.core.tensor import Tensor, Variable, as_dtype, convert_to_tensor
from kerasish.core.tracking import Trackable

_HOST = ("cpu", 0)
_global_seed: int | None = None
_global_generator = None  # the host's Generator, made when first needed
_generators: dict = {}  # (device, op seed) -> generator, for every other stream


def set_seed(seed: int) -> None:
    """Make every later random draw reproducible, layer initializers included.

    The host's generator restarts in place (checkpoints holding it stay
    connected) and the per-device and per-`seed` streams start again.

    Args:
        seed: an integer.

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(3)
        >>> a = ks.random.uniform([2]).numpy()
        >>> ks.random.set_seed(3)
        >>> bool((ks.random.uniform([2]).numpy() == a).all())
        True
    """
    global _global_seed
    _global_seed = int(seed)
    _generators.clear()
    philox.note_reseed()  # captured CUDA graphs drew from the old streams
    if _global_generator is not None:  # in place: checkpoints holding it stay connected
        _global_generator.reset_from_seed(_global_seed)


def restart_streams() -> None:
    """Start every random stream afresh: from the global seed if one was set (as `set_seed`
    does), else from fresh entropy (what `ks.backend.clear_session` does)."""
    if _global_seed is not None:
        set_seed(_global_seed)
        return
    _generators.clear()
    philox.note_reseed()
    get_global_generator().reset_from_seed(None)


def get_seed():
    """The global seed, or None if none was set."""
    return _global_seed


def _drawn(make) -> Tensor:
    """The tensor of the array `make()` draws; under ks.function, drawn afresh on each call."""
    tracer = current_tracer()
    if tracer is None:
        return Tensor(make())
    return tracer.draw(make)


def stream(seed=None, device=None):
    """The array generator behind a draw: a `Generator`'s own, the host's, or the stream of
    (`device`, `seed`), made from the global seed on first use.

    Args:
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator`.
        device: a (kind, index) pair; None: the current device.

    Returns:
        A NumPy/CuPy generator (a Philox stream on a GPU) whose draws move the stream on.
        Under ks.function, draw through it only inside a recorded draw.
    """
    tracer = current_tracer()
    if tracer is not None:  # a draw not made through `_drawn` cannot be replayed
        tracer.check_random("a random operation")
    if isinstance(seed, Generator):  # a SeedGenerator given as `seed=`: its own host stream
        return seed._current()
    device = backend.current_device() if device is None else device
    if seed is None and device == _HOST:
        return get_global_generator()._current()
    key = (device, seed)
    gen = _generators.get(key)
    if gen is None:
        if seed is None:
            entropy = _global_seed
        else:
            entropy = [0 if _global_seed is None else _global_seed, int(seed)]
        if device[0] == "gpu":  # counter-based, its state on the device (CUDA-graph safe)
            backend.check_gpu(device[1])
            gen = philox.PhiloxStream(entropy, device)
        else:
            gen = backend.random_generator(entropy)
        _generators[key] = gen
    return gen


# ---------------------------------------------------------------- checkpointable generators

_WORD = (1 << 64) - 1


class Generator(Trackable):
    """A host (NumPy PCG64) random-number generator whose state is a variable.

    TF's `tf.random.Generator`: track it in a `ks.Checkpoint` (or as an
    attribute of a tracked object) and a restored program continues the saved
    stream exactly, where reseeding every step would cost a generator's
    construction each time. `ks.random.get_global_generator()` is the one
    behind the `ks.random` functions on the CPU and the candidate samplers.
    Draws are made on the host and placed on the current device.

    `state` is a uint64 variable of 6 words: PCG64's 128-bit state and
    increment (high word first), and its buffered 32-bit half (flag, value).

    Args:
        seed: an integer (see `from_seed`), or None for fresh operating-system
            entropy (see `from_non_deterministic_state`).

    Example:
        >>> import os, tempfile
        >>> import kerasish as ks
        >>> g = ks.random.Generator.from_seed(7)
        >>> ckpt = ks.Checkpoint(rng=g)
        >>> path = ckpt.write(os.path.join(tempfile.mkdtemp(), "rng"))
        >>> first = g.uniform([3]).numpy()
        >>> _ = g.normal([5])  # the stream moves on
        >>> _ = ckpt.read(path)  # back to where it was saved
        >>> bool((g.uniform([3]).numpy() == first).all())
        True
    """

    def __init__(self, seed=None):
        with backend.device("/cpu:0"):
            self._state = Variable(np.zeros(6, np.uint64), name="state", trainable=False)
        self.reset_from_seed(seed)  # sets _numpy (the NumPy generator) and _synced_version

    @classmethod
    def from_seed(cls, seed) -> "Generator":
        """A generator whose stream is determined by the integer `seed` (like `set_seed`).

        Args:
            seed: an integer.

        Returns:
            A new generator.

        Example:
            >>> import kerasish as ks
            >>> a = ks.random.Generator.from_seed(3).normal([2]).numpy()
            >>> b = ks.random.Generator.from_seed(3).normal([2]).numpy()
            >>> bool((a == b).all())
            True
        """
        return cls(int(seed))

    @classmethod
    def from_non_deterministic_state(cls) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        return cls(None)

    def reset_from_seed(self, seed) -> None:
        """Restart the stream from `seed` (None: fresh entropy), in place.

        Args:
            seed: an integer, or None.

        Example:
            >>> import kerasish as ks
            >>> g = ks.random.Generator.from_seed(7)
            >>> first = g.normal([2]).numpy()
            >>> g.reset_from_seed(7)
            >>> bool((g.normal([2]).numpy() == first).all())
            True
        """
        self._numpy = backend.random_generator(None if seed is None else int(seed))
        self._store()

    @property
    def state(self) -> Variable:
        """The variable holding the state, brought up to date with the draws made so far."""
        self._sync()
        return self._state

    def _tracked_children(self) -> list:
        # walked when a checkpoint is written or restored: the variable must be current
        self._sync()
        return [("state", self._state)]

    def _sync(self) -> None:
        """Make the variable and the NumPy generator agree: a newly assigned variable wins."""
        if self._state._version != self._synced_version:
            self._load()
        else:
            self._store()

    def _store(self) -> None:
        """Write the NumPy generator's state into the variable."""
        bits = self._numpy.bit_generator.state
        state, inc = bits["state"]["state"], bits["state"]["inc"]
        self._state._value[...] = (state >> 64, state & _WORD, inc >> 64, inc & _WORD,
                                   bits["has_uint32"], bits["uinteger"])
        self._state._version += 1
        self._synced_version = self._state._version

    def _load(self) -> None:
        """Set the NumPy generator's state from the variable (after a restore or an assign)."""
        words = [int(w) for w in backend.to_numpy(self._state._value)]
        if not words[3] & 1 or words[4] > 1 or words[5] > 0xFFFFFFFF:
            raise InvalidArgumentError(
                f"random.Generator: {words} is not a PCG64 state (the increment must be odd, "
                "the buffered-half flag 0 or 1 and its value 32 bits); was a different "
                "variable restored into the generator's state?"
            )
        self._numpy.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": words[0] << 64 | words[1], "inc": words[2] << 64 | words[3]},
            "has_uint32": words[4],
            "uinteger": words[5],
        }
        self._synced_version = self._state._version

    def _current(self):
        """The NumPy generator, reloaded first if the variable was assigned (a restore)."""
        if self._state._version != self._synced_version:
            self._load()
        return self._numpy

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=None) -> Tensor:
        """Samples from N(mean, stddev**2), as `ks.random.normal`.

        Args:
            shape: the result's shape (a list, tuple, int or 1-D integer tensor).
            mean: the distribution's mean.
            stddev: its standard deviation.
            dtype: a floating-point dtype (default `ks.config.floatx()`).

        Returns:
            A tensor of `shape` and `dtype` on the current device; the stream moves on.

        Raises:
            InvalidArgumentError: for a dtype that is not floating point.

        Example:
            >>> import kerasish as ks
            >>> ks.random.Generator.from_seed(1).normal([2, 3], stddev=2.0).shape
            (2, 3)
        """
        return _drawn(lambda: backend.to_device(
            _normal(self._current(), shape, mean, stddev, dtype)))

    def uniform(self, shape, minval=0.0, maxval=1.0, dtype=None) -> Tensor:
        """Samples from U[minval, maxval), as `ks.random.uniform`.

        Args:
            shape: the result's shape (a list, tuple, int or 1-D integer tensor).
            minval: the lower bound.
            maxval: the upper bound (excluded); an integer dtype needs it explicitly.
            dtype: the result's dtype (integers are drawn for an integer dtype).

        Returns:
            A tensor of `shape` and `dtype` on the current device; the stream moves on.

        Raises:
            InvalidArgumentError: for an integer dtype without `maxval`.

        Example:
            >>> import kerasish as ks
            >>> u = ks.random.Generator.from_seed(1).uniform([1000], 5.0, 6.0).numpy()
            >>> bool(u.min() >= 5.0 and u.max() < 6.0)
            True
        """
        return _drawn(lambda: backend.to_device(
            _uniform(self._current(), shape, minval, maxval, dtype)))

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=None) -> Tensor:
        """Normal samples within two standard deviations, as `ks.random.truncated_normal`.

        Args:
            shape: the result's shape (a list, tuple, int or 1-D integer tensor).
            mean: the untruncated distribution's mean.
            stddev: its standard deviation.
            dtype: a floating-point dtype (default `ks.config.floatx()`).

        Returns:
            A tensor of `shape` and `dtype` on the current device; the stream moves on.

        Raises:
            InvalidArgumentError: for a dtype that is not floating point.

        Example:
            >>> import kerasish as ks
            >>> t = ks.random.Generator.from_seed(1).truncated_normal([1000]).numpy()
            >>> bool(abs(t).max() <= 2.0)
            True
        """
        return _drawn(lambda: backend.to_device(
            _truncated_normal(self._current(), shape, mean, stddev, dtype)))

    def __repr__(self) -> str:
        return f"<ks.random.Generator (PCG64) state={self.state.numpy().tolist()}>"


class SeedGenerator(Generator):
    """Keras 3's `keras.random.SeedGenerator`: a reproducible stream to pass as `seed=`.

    `ks.random.normal(shape, seed=generator)` (and `uniform`, `truncated_normal`,
    `randint`, `dropout`, `shuffle`) draws the next values of the generator's own
    stream, so repeated calls differ while a program run twice draws the same
    values. Held as an attribute of a layer or model, its state is saved by
    checkpoints (`<attribute>/state`) like any variable.

    Args:
        seed: an integer; None picks one from the global generator (reproducible after
            `ks.random.set_seed` or `ks.utils.set_random_seed`).
        name: a name for it (Keras's argument).

    Example:
        >>> import kerasish as ks
        >>> a = ks.random.normal([2], seed=ks.random.SeedGenerator(42))
        >>> b = ks.random.normal([2], seed=ks.random.SeedGenerator(42))
        >>> bool((a.numpy() == b.numpy()).all())
        True
    """

    def __init__(self, seed=None, name=None):
        if seed is None:
            seed = int(get_global_generator()._current().integers(1, 2**31))
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise InvalidArgumentError(
                f"SeedGenerator: seed must be an integer or None, got {type(seed).__name__} "
                f"{seed!r}"
            )
        super().__init__(int(seed))
        self.name = name or "seed_generator"

    def __repr__(self) -> str:
        return f"<ks.random.SeedGenerator '{self.name}'>"


def get_global_generator() -> Generator:
    """The host's generator: behind `ks.random` on the CPU and the candidate samplers.

    Made from the global seed on first use; `set_seed` resets it in place.
    Put it in a checkpoint to resume its stream, as the word2vec recipe does.
    """
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator(_global_seed)
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Make `generator` the host's generator (later `set_seed` calls reset it).

    Args:
        generator: a `ks.random.Generator`.

    Raises:
        TypeError: if `generator` is not a `ks.random.Generator`.

    Example:
        >>> import kerasish as ks
        >>> previous = ks.random.get_global_generator()
        >>> ks.random.set_global_generator(ks.random.Generator.from_seed(1))
        >>> ks.random.get_global_generator() is previous
        False
        >>> ks.random.set_global_generator(previous)
    """
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"random.set_global_generator: expected a ks.random.Generator, got "
            f"{type(generator).__name__}"
        )
    _global_generator = generator


def _float_dtype(dtype, name):
    dtype = as_dtype(dtype) or np.dtype(settings.floatx())
    if dtype.kind != "f":
        raise InvalidArgumentError(f"random.{name}: dtype must be floating point, got {dtype}")
    return dtype


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Samples from N(mean, stddev**2), on the current device.

    Args:
        shape: the result's shape (a list, tuple, int or 1-D integer tensor).
        mean, stddev: the distribution's mean and standard deviation.
        dtype: a floating-point dtype (default `ks.config.floatx()`).
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator` (its next
            values, drawn on the host).

    Returns:
        A tensor of `shape` and `dtype`.

    Raises:
        InvalidArgumentError: for a dtype that is not floating point.

    Example:
        >>> import kerasish as ks
        >>> ks.random.normal([2, 3], seed=ks.random.SeedGenerator(1)).shape
        (2, 3)
    """
    if isinstance(seed, Generator):
        return seed.normal(shape, mean, stddev, dtype)
    return _drawn(lambda: _normal(stream(seed), shape, mean, stddev, dtype))


def _normal(gen, shape, mean, stddev, dtype):
    dtype = _float_dtype(dtype, "normal")
    values = gen.standard_normal(_shape(shape), dtype=np.float64)
    return (values * stddev + mean).astype(dtype)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> Tensor:
    """Samples from U[minval, maxval) (integers if `dtype` is an integer type).

    Args:
        shape: the result's shape.
        minval, maxval: the bounds; an integer dtype needs an explicit `maxval`.
        dtype: the result's dtype.
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator` (its next
            values, drawn on the host).

    Returns:
        A tensor of `shape` and `dtype`.

    Raises:
        InvalidArgumentError: for an integer dtype without `maxval`.

    Example:
        >>> import kerasish as ks
        >>> v = ks.random.uniform([1000], 2.0, 3.0, seed=ks.random.SeedGenerator(0)).numpy()
        >>> bool(v.min() >= 2.0 and v.max() < 3.0)
        True
    """
    if isinstance(seed, Generator):
        return seed.uniform(shape, minval, maxval, dtype)
    return _drawn(lambda: _uniform(stream(seed), shape, minval, maxval, dtype))


def _uniform(gen, shape, minval, maxval, dtype):
    dtype = as_dtype(dtype) or np.dtype(settings.floatx())
    if dtype.kind in "iu":
        if maxval is None or maxval == 1.0:
            raise InvalidArgumentError("random.uniform: integer dtypes need an explicit maxval")
        return gen.integers(int(minval), int(maxval), _shape(shape)).astype(dtype)
    values = gen.random(_shape(shape), dtype=np.float64)
    return (values * (maxval - minval) + minval).astype(dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal samples redrawn until within two standard deviations of the mean.

    Args:
        shape: the result's shape.
        mean, stddev: the untruncated distribution's mean and standard deviation.
        dtype: a floating-point dtype (default `ks.config.floatx()`).
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator` (its next
            values, drawn on the host).

    Returns:
        A tensor of `shape` and `dtype`.

    Example:
        >>> import kerasish as ks
        >>> v = ks.random.truncated_normal([1000], stddev=0.5, seed=ks.random.SeedGenerator(0))
        >>> bool(abs(v.numpy()).max() <= 1.0)
        True
    """
    if isinstance(seed, Generator):
        return seed.truncated_normal(shape, mean, stddev, dtype)
    return _drawn(lambda: _truncated_normal(stream(seed), shape, mean, stddev, dtype))


def _truncated_normal(gen, shape, mean, stddev, dtype):
    dtype = _float_dtype(dtype, "truncated_normal")
    values = gen.standard_normal(_shape(shape), dtype=np.float64)
    xp = backend.array_module(values)
    bad = xp.abs(values) > 2
    while bool(bad.any()):
        values[bad] = gen.standard_normal(int(bad.sum()), dtype=np.float64)
        bad = xp.abs(values) > 2
    return (values * stddev + mean).astype(dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None) -> Tensor:
    """Integers drawn uniformly from [minval, maxval) (Keras 3's name).

    Args:
        shape: the result's shape.
        minval, maxval: the bounds (maxval excluded).
        dtype: an integer dtype.
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator` (its next
            values, drawn on the host).

    Returns:
        A tensor of `shape` and `dtype`.

    Raises:
        InvalidArgumentError: for a dtype that is not an integer type.

    Example:
        >>> import kerasish as ks
        >>> v = ks.random.randint([100], 3, 5, seed=ks.random.SeedGenerator(0)).numpy()
        >>> sorted(set(v.tolist())), v.dtype.name
        ([3, 4], 'int32')
    """
    dtype = as_dtype(dtype)
    if dtype.kind not in "iu":
        raise InvalidArgumentError(f"random.randint: dtype must be an integer type, got {dtype}")
    return uniform(shape, minval, maxval, dtype=dtype, seed=seed)


def _host_draw(seed, name: str, draw, dtype) -> Tensor:
    """A draw made on the host (`draw(numpy_generator)`), cast and placed on the current
    device: the distributions the device streams do not offer."""
    dtype = _float_dtype(dtype, name)
    device = backend.current_device()

    def make():
        generator = seed._current() if isinstance(seed, Generator) else stream(seed, _HOST)
        return backend.to_device(np.asarray(draw(generator)).astype(dtype), device)

    return _drawn(make)


def _parameter(value) -> np.ndarray:
    return np.asarray(backend.to_numpy(convert_to_tensor(value)._value), np.float64)


def gamma(shape, alpha, dtype=None, seed=None) -> Tensor:
    """Samples of the Gamma distribution with shape parameter `alpha` and scale 1.

    Args:
        shape: the result's shape.
        alpha: the shape parameter (> 0), a number or a tensor broadcast to `shape`.
        dtype: a floating-point dtype (default `ks.config.floatx()`).
        seed: None, an integer or a `Generator`/`SeedGenerator`, as for `normal`.

    Example:
        >>> import kerasish as ks
        >>> v = ks.random.gamma([4000], alpha=3.0, seed=ks.random.SeedGenerator(0)).numpy()
        >>> bool(2.8 < v.mean() < 3.2)
        True
    """
    a = _parameter(alpha)
    return _host_draw(seed, "gamma", lambda g: g.standard_gamma(a, _shape(shape)), dtype)


def beta(shape, alpha, beta, dtype=None, seed=None) -> Tensor:
    """Samples of the Beta(alpha, beta) distribution, in [0, 1].

    Args:
        shape: the result's shape.
        alpha, beta: the distribution's parameters (> 0), numbers or tensors broadcast to
            `shape`.
        dtype: a floating-point dtype (default `ks.config.floatx()`).
        seed: None, an integer or a `Generator`/`SeedGenerator`.

    Example:
        >>> import kerasish as ks
        >>> v = ks.random.beta([4000], 2.0, 6.0, seed=ks.random.SeedGenerator(0)).numpy()
        >>> bool(0.23 < v.mean() < 0.27)
        True
    """
    a, b = _parameter(alpha), _parameter(beta)
    return _host_draw(seed, "beta", lambda g: g.beta(a, b, _shape(shape)), dtype)


def binomial(shape, counts, probabilities, dtype=None, seed=None) -> Tensor:
    """Samples of the Binomial distribution: successes in `counts` trials of
    probability `probabilities` (returned as floats, as Keras does).

    Args:
        shape: the result's shape.
        counts: the numbers of trials, a number or a tensor broadcast to `shape`.
        probabilities: the success probabilities, in [0, 1].
        dtype: a floating-point dtype (default `ks.config.floatx()`).
        seed: None, an integer or a `Generator`/`SeedGenerator`.

    Example:
        >>> import kerasish as ks
        >>> ks.random.binomial([3], 5, 1.0, seed=1).numpy().tolist()
        [5.0, 5.0, 5.0]
    """
    n = _parameter(counts).astype(np.int64)
    p = _parameter(probabilities)
    if np.any((p < 0) | (p > 1)):
        raise InvalidArgumentError("random.binomial: probabilities must be in [0, 1]")
    return _host_draw(seed, "binomial", lambda g: g.binomial(n, p, _shape(shape)), dtype)


def shuffle(x=None, seed=None, axis: int = 0, *, value=None) -> Tensor:
    """A copy of `x` with the slices along `axis` randomly permuted.

    Args:
        x: a tensor (or array) of rank >= 1 (Keras's name; TF's is `value`).
        seed: None (the global stream), an integer (a stream of its own) or a
            `Generator`/`SeedGenerator`.
        axis: the axis whose slices are permuted (Keras 3's argument; the first).
        value: TF's name for `x` (give one of the two).

    Returns:
        A tensor with the values of `value`, on its device.

    Raises:
        InvalidArgumentError: for a scalar or an axis out of range.
        TypeError: neither or both of `x` and `value` given.

    Example:
        >>> import kerasish as ks
        >>> out = ks.random.shuffle([[1, 2], [3, 4], [5, 6]], seed=ks.random.SeedGenerator(4))
        >>> sorted(out.numpy().tolist())
        [[1, 2], [3, 4], [5, 6]]
    """
    if (x is None) == (value is None):
        raise TypeError("random.shuffle: give the tensor once, as x (Keras) or value (TF)")
    x = convert_to_tensor(x if value is None else value)
    if x.ndim == 0:
        raise InvalidArgumentError("random.shuffle: needs a tensor of rank >= 1, got a scalar")
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(
            f"random.shuffle: axis {axis} is out of range for a tensor of shape {x.shape}"
        )
    order = backend.to_device(backend.permutation(stream(seed), x.shape[axis]),
                              backend.device_of(x._value))
    return Tensor(backend.array_module(x._value).take(x._value, order, axis=axis))


def categorical(logits, num_samples: int, dtype=np.int64, seed=None) -> Tensor:
    """Class indices drawn from the softmax of each row of `logits`.

    Args:
        logits: a (batch, classes) tensor of unnormalized log-probabilities.
        num_samples: how many indices to draw per row.
        dtype: the indices' integer dtype.
        seed: None (the global stream), an integer (a stream of its own) or a
            `Generator`/`SeedGenerator`.

    Returns:
        A (batch, num_samples) tensor of class indices, on the device of `logits`.

    Example:
        >>> import kerasish as ks
        >>> ks.random.categorical([[0.0, 50.0]], 3, seed=7).numpy().tolist()
        [[1, 1, 1]]
    """
    x = convert_to_tensor(logits)
    values = backend.to_numpy(x._value).astype(np.float64)
    probs = np.exp(values - values.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    cumulative = probs.cumsum(axis=-1)
    draws = backend.to_numpy(stream(seed).random((x.shape[0], num_samples)))
    picks = np.stack([np.searchsorted(c, d) for c, d in zip(cumulative, draws)])
    picks = np.minimum(picks, x.shape[-1] - 1)
    return Tensor(backend.to_device(picks.astype(as_dtype(dtype)), backend.device_of(x._value)))


def permutation(n: int, seed=None) -> np.ndarray:
    """A random ordering of range(n) as a NumPy array (for shuffling data on the host).

    Args:
        n: how many indices.
        seed: None (the host's generator), an integer (a stream of its own) or a
            `Generator`/`SeedGenerator`.

    Returns:
        An int64 NumPy array holding 0 to n - 1 once each.

    Example:
        >>> import kerasish as ks
        >>> sorted(ks.random.permutation(5, seed=ks.random.SeedGenerator(0)).tolist())
        [0, 1, 2, 3, 4]
    """
    with backend.device("/cpu:0"):
        return stream(seed).permutation(int(n))


# ---------------------------------------------------------------- candidate sampling


def _log_uniform_probability(classes, range_max: int):
    """P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1), in float64."""
    k = np.asarray(classes, dtype=np.float64)
    return np.log1p(1.0 / (k + 1.0)) / math.log1p(range_max)


def _expected_count(p, num_sampled: int, num_tries: int):
    """Expected number of times a class of probability `p` is among the sampled candidates.

    TF's formula: p * num_sampled when every draw was kept (always the case for
    unique=False), else 1 - (1 - p) ** num_tries, computed as
    -expm1(num_tries * log1p(-p)) so it stays accurate for tiny p.
    """
    if num_tries == num_sampled:
        return p * num_sampled
    return -np.expm1(num_tries * np.log1p(-p))


def log_uniform_candidate_sampler(
    true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int, seed=None
):
    """Sample classes from the log-uniform (Zipfian) distribution over [0, range_max).

    TF's sampler, with its formulas. Class k has probability
    ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``, which suits
    vocabularies sorted by decreasing frequency. One set of `num_sampled`
    candidates is drawn for the whole batch (as in TF).

    With ``unique=True`` draws are made one at a time and repeats are rejected
    until `num_sampled` distinct classes are found (an exact rejection loop,
    vectorized in chunks); if that took ``num_tries`` draws, the expected count
    of a class is ``1 - (1 - P(k)) ** num_tries``, computed as
    ``-expm1(num_tries * log1p(-P(k)))``. With ``unique=False`` (or when no
    draw was rejected) it is ``P(k) * num_sampled``. These are the `Q` that
    `ks.nn.nce_loss` and `ks.nn.sampled_softmax_loss` subtract as ``log(Q)``.

    Sampling runs on the host (NumPy), like TF's CPU kernel; the results are
    placed on the device of `true_classes`.

    Args:
        true_classes: integer tensor of shape (batch, num_true): the target classes.
        num_true: number of target classes per example.
        num_sampled: number of classes to sample.
        unique: sample without replacement (needs num_sampled <= range_max).
        range_max: number of classes.
        seed: optional op-level seed (see `ks.random.set_seed`).

    Returns:
        (sampled_candidates, true_expected_count, sampled_expected_count):
        int64 of shape (num_sampled,), float32 of shape (batch, num_true) and
        float32 of shape (num_sampled,).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> s, t, q = ks.random.log_uniform_candidate_sampler(
        ...     [[0], [3]], num_true=1, num_sampled=4, unique=True, range_max=10)
        >>> s.shape, t.shape, q.shape
        ((4,), (2, 1), (4,))
    """
    name = "log_uniform_candidate_sampler"
    classes = convert_to_tensor(true_classes)
    num_true, num_sampled, range_max = int(num_true), int(num_sampled), int(range_max)
    if classes.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{name}: true_classes must be integer class ids, got {classes.dtype}; "
            "cast with ks.cast(labels, 'int64')"
        )
    if classes.ndim != 2 or classes.shape[1] != num_true:
        raise InvalidArgumentError(
            f"{name}: true_classes must have shape (batch, num_true) = (batch, {num_true}), "
            f"got {classes.shape}"
        )
    if range_max < 1:
        raise InvalidArgumentError(f"{name}: range_max must be >= 1, got {range_max}")
    if num_sampled < 0:
        raise InvalidArgumentError(f"{name}: num_sampled must be >= 0, got {num_sampled}")
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(
            f"{name}: cannot draw num_sampled={num_sampled} distinct classes out of "
            f"range_max={range_max}; lower num_sampled or pass unique=False"
        )
    log_range = math.log1p(range_max)

    def candidates_and_tries():
        """The sampled classes, then the number of draws it took, as one int64 host array."""
        gen = stream(seed, device=_HOST)

        def draw(n):
            u = gen.random(n)
            return (np.exp(u * log_range).astype(np.int64) - 1) % range_max

        if not unique:
            return np.append(draw(num_sampled), num_sampled)
        chunk = max(2 * num_sampled, 16)
        draws = draw(chunk)
        while True:
            _, first = np.unique(draws, return_index=True)
            if len(first) >= num_sampled:
                first.sort()
                kept = first[:num_sampled]
                return np.append(draws[kept], int(kept[-1]) + 1 if num_sampled else 0)
            chunk *= 2
            draws = np.concatenate([draws, draw(chunk)])

    # a recorded draw and a primitive: ks.function replays both on every call
    drawn = _drawn(candidates_and_tries)
    return apply(_log_uniform_counts, (classes, drawn),
                 {"num_sampled": num_sampled, "range_max": range_max})


@primitive("log_uniform_counts", multi_output=True, differentiable=False)
def _log_uniform_counts(true_classes, drawn, *, num_sampled: int, range_max: int):
    """(sampled candidates, true classes' and candidates' expected counts) on the device of
    `true_classes`, from the host array of `log_uniform_candidate_sampler`'s draw."""
    true_host = backend.to_numpy(true_classes)
    sampled, num_tries = drawn[:num_sampled], int(drawn[num_sampled])
    # one pass over the true and the sampled classes together
    with np.errstate(divide="ignore", invalid="ignore"):  # bad ids are reported by the caller
        p = _log_uniform_probability(np.concatenate([true_host.reshape(-1), sampled]), range_max)
        counts = _expected_count(p, num_sampled, num_tries).astype(np.float32)
    true_count = counts[: true_host.size].reshape(true_host.shape)
    sampled_count = counts[true_host.size:]
    dev = backend.device_of(true_classes)
    return (backend.to_device(sampled.astype(np.int64, copy=False), dev),
            backend.to_device(true_count, dev), backend.to_device(sampled_count, dev))
