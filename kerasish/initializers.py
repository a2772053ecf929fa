"""Weight initializers, drawn from `ks.random` so `ks.random.set_seed` makes them reproducible.

Each is a callable `init(shape, dtype) -> Tensor`; `get("glorot_uniform")`
resolves a name, and a plain callable is accepted anywhere an initializer is.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core import serialization
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops
from kerasish.core.tensor import as_dtype, convert_to_tensor


def _fans(shape, input_axes=None, output_axes=None) -> tuple:
    """(fan_in, fan_out) as Keras computes them: the products of the sizes of `input_axes`
    and `output_axes` when both are given, else conv kernels count the receptive field."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        try:
            return (math.prod(shape[a] for a in input_axes),
                    math.prod(shape[a] for a in output_axes))
        except IndexError:
            raise InvalidArgumentError(
                f"VarianceScaling: input_axes {list(input_axes)} or output_axes "
                f"{list(output_axes)} name an axis the shape {shape} lacks") from None
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: subclasses implement `__call__(shape, dtype)`.

    Calling an initializer draws a new tensor: `init(shape, dtype=np.float32)`, with
    `shape` a tuple of ints and `dtype` a dtype or its name. The random ones draw from
    `ks.random`, so `ks.random.set_seed` makes them repeatable.

    Example:
        >>> import kerasish as ks
        >>> class Halves(ks.initializers.Initializer):
        ...     def __call__(self, shape, dtype="float32"):
        ...         return ks.fill(shape, 0.5, dtype=dtype)
        >>> Halves()((2,)).numpy().tolist()
        [0.5, 0.5]
    """

    def __call__(self, shape, dtype=np.float32):
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this initializer (Keras 3 key names)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """The initializer `get_config` describes.

        Args:
            config: the constructor arguments, by name.

        Returns:
            A new initializer of this class.

        Example:
            >>> import kerasish as ks
            >>> init = ks.initializers.RandomNormal.from_config({"mean": 1.0, "stddev": 0.5})
            >>> init.get_config()
            {'mean': 1.0, 'stddev': 0.5, 'seed': None}
        """
        return cls(**config)


class Zeros(Initializer):
    """All zeros (the default for biases)."""

    def __call__(self, shape, dtype=np.float32):
        return creation_ops.zeros(shape, dtype)


class Ones(Initializer):
    """All ones (the default for normalization scales)."""

    def __call__(self, shape, dtype=np.float32):
        return creation_ops.ones(shape, dtype)


class Constant(Initializer):
    """Every entry `value` (a scalar, or an array broadcast to the shape).

    Args:
        value: the value.

    Example:
        >>> import kerasish as ks
        >>> ks.initializers.Constant(2.0)((2,)).numpy().tolist()
        [2.0, 2.0]
    """

    def __init__(self, value=0.0):
        self.value = value

    def get_config(self) -> dict:
        return {"value": self.value}

    def __call__(self, shape, dtype=np.float32):
        value = convert_to_tensor(self.value).numpy()
        return convert_to_tensor(np.broadcast_to(value, tuple(shape)).astype(as_dtype(dtype)))


class RandomNormal(Initializer):
    """Draws from a normal distribution.

    Args:
        mean: its mean.
        stddev: its standard deviation.
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.RandomNormal(stddev=1.0, seed=3)((1000,))
        >>> round(float(ks.reduce_std(w)), 1)
        1.0
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}

    def __call__(self, shape, dtype=np.float32):
        return ks_random.normal(shape, self.mean, self.stddev, dtype, self.seed)


class RandomUniform(Initializer):
    """Draws uniformly from [minval, maxval).

    Args:
        minval: the lower bound.
        maxval: the upper bound.
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.RandomUniform(-1.0, 1.0, seed=3)((1000,))
        >>> bool(ks.reduce_all((w >= -1.0) & (w < 1.0)))
        True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}

    def __call__(self, shape, dtype=np.float32):
        return ks_random.uniform(shape, self.minval, self.maxval, dtype, self.seed)


class TruncatedNormal(Initializer):
    """Draws from a normal distribution, redrawing values more than two standard deviations
    from the mean.

    Args:
        mean: the mean of the normal distribution.
        stddev: its standard deviation (before truncation).
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.TruncatedNormal(stddev=1.0, seed=3)((1000,))
        >>> float(ks.reduce_max(ks.abs(w))) <= 2.0
        True
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}

    def __call__(self, shape, dtype=np.float32):
        return ks_random.truncated_normal(shape, self.mean, self.stddev, dtype, self.seed)


class VarianceScaling(Initializer):
    """Scale / fan, drawn normal (truncated) or uniform: the family behind Glorot and He.

    The variance is `scale / fan`, where the fans count a convolution kernel's receptive
    field as Keras does.

    Args:
        scale: the numerator of the variance.
        mode: the fan: 'fan_in', 'fan_out' or 'fan_avg' (their mean).
        distribution: 'truncated_normal' (the stddev is corrected for the truncation at
            two standard deviations), 'untruncated_normal' or 'uniform' (in +-sqrt(3 *
            variance)).
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.
        input_axes: the axes whose sizes multiply to fan_in (with `output_axes`; for
            kernels laid out otherwise than (..., in, out), as an einsum's).
        output_axes: the axes whose sizes multiply to fan_out; both None: Keras's rule.

    Raises:
        InvalidArgumentError: an unknown mode or distribution, or (when called) an axis the
            shape lacks.

    Example:
        >>> import kerasish as ks
        >>> init = ks.initializers.VarianceScaling(2.0, "fan_in", "uniform", seed=1)
        >>> float(ks.reduce_max(ks.abs(init((50, 10))))) <= (3 * 2.0 / 50) ** 0.5
        True
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise InvalidArgumentError(f"VarianceScaling: unknown mode {mode!r}")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise InvalidArgumentError(f"VarianceScaling: unknown distribution {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.input_axes, self.output_axes = input_axes, output_axes

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "input_axes": self.input_axes, "output_axes": self.output_axes}

    def __call__(self, shape, dtype=np.float32):
        fan_in, fan_out = _fans(shape, self.input_axes, self.output_axes)
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

    Args:
        gain: the factor the orthogonal matrix is multiplied by.
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Raises:
        InvalidArgumentError: when called with a shape of rank below 2.

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
    """A named VarianceScaling setting (Glorot, He, LeCun); its config is the seed and the
    fan axes (see `VarianceScaling`)."""

    _setting: tuple = ()

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(*self._setting, seed=seed, input_axes=input_axes,
                         output_axes=output_axes)

    def get_config(self) -> dict:
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.GlorotUniform(seed=1)((30, 10))
        >>> float(ks.reduce_max(ks.abs(w))) <= (6 / 40) ** 0.5
        True
    """

    _setting = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.GlorotNormal(seed=1)((300, 100))
        >>> round(float(ks.reduce_std(w)), 3)
        0.071
    """

    _setting = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.HeNormal(seed=1)((400, 100))
        >>> abs(float(ks.reduce_std(w)) - (2 / 400) ** 0.5) < 0.002  # the stream's place varies
        True
    """

    _setting = (2.0, "fan_in", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / fan_in).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.HeUniform(seed=1)((24, 10))
        >>> float(ks.reduce_max(ks.abs(w))) <= (6 / 24) ** 0.5
        True
    """

    _setting = (2.0, "fan_in", "uniform")


class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.LecunNormal(seed=1)((400, 100))
        >>> round(float(ks.reduce_std(w)), 3)
        0.05
    """

    _setting = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(3 / fan_in).

    Args:
        seed: an int: a random stream of its own, the same after the same
            `ks.random.set_seed`; None: the global random stream.

    Example:
        >>> import kerasish as ks
        >>> w = ks.initializers.LecunUniform(seed=1)((12, 10))
        >>> float(ks.reduce_max(ks.abs(w))) <= (3 / 12) ** 0.5
        True
    """

    _setting = (1.0, "fan_in", "uniform")


class Identity(Initializer):
    """`gain` times the identity matrix (rectangular shapes get ones on the main diagonal).

    Args:
        gain: the diagonal's value.

    Raises:
        InvalidArgumentError: when called with a shape that is not 2-D.

    Example:
        >>> import kerasish as ks
        >>> ks.initializers.Identity(gain=2.0)((2, 3)).numpy()
        array([[2., 0., 0.],
               [0., 2., 0.]], dtype=float32)
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=np.float32):
        shape = tuple(shape)
        if len(shape) != 2:
            raise InvalidArgumentError(
                f"Identity: only 2-D shapes have an identity matrix, got {shape}"
            )
        return creation_ops.eye(*shape, dtype=as_dtype(dtype)) * self.gain

    def get_config(self) -> dict:
        return {"gain": self.gain}


_WINDOWS = {  # the cosine windows (a0, a1, a2): a0 - a1 cos(2 pi n / M) + a2 cos(4 pi n / M)
    "hann": (0.5, 0.5, 0.0), "hamming": (0.54, 0.46, 0.0), "blackman": (0.42, 0.5, 0.08),
    "boxcar": (1.0, 0.0, 0.0),
}


class STFT(Initializer):
    """The kernel of a short-time Fourier transform as a convolution (Keras's
    `STFTInitializer`, which `STFTSpectrogram` uses): cos (side 'real') or sin ('imag') of
    -2 pi t f / F for frame time t and frequency bin f, times the window, scaled.

    Args:
        side: 'real' or 'imag'.
        window: 'hann', 'hamming', 'blackman' or 'boxcar' (computed here: scipy's other
            windows are not, pass their values), an array of the frame's length, or None.
        scaling: 'density' (divide by the window's L2 norm), 'spectrum' (by its L1 norm) or
            None.
        periodic: the periodic form of the named window (for spectral analysis); False: the
            symmetric one.

    Raises:
        InvalidArgumentError: an unknown side, scaling or window name, or (when called) a
            shape that is not (frame_length, 1, bins) or a window of another length.

    Example:
        >>> import kerasish as ks
        >>> kernel = ks.initializers.STFTInitializer("real", "hann", "density", False)((16, 1, 9))
        >>> kernel.shape
        (16, 1, 9)
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise InvalidArgumentError(f"STFT: side must be 'real' or 'imag', got {side!r}")
        if isinstance(window, str) and window not in _WINDOWS:
            raise InvalidArgumentError(
                f"STFT: window {window!r} is not computed here (no scipy): use one of "
                f"{sorted(_WINDOWS)} or pass the window's values")
        if scaling not in (None, "density", "spectrum"):
            raise InvalidArgumentError(
                f"STFT: scaling must be None, 'density' or 'spectrum', got {scaling!r}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) != 3:
            raise InvalidArgumentError(
                f"STFT: the kernel's shape is (frame_length, 1, bins), got {shape}")
        dtype = as_dtype(dtype or "float32")
        frames, _, bins = shape
        t = np.arange(frames, dtype=dtype).reshape(frames, 1, 1)
        f = np.arange(bins, dtype=dtype).reshape(1, 1, bins) / dtype.type((bins - 1) * 2)
        angles = (-2 * t * f) * np.arccos(dtype.type(-1))
        kernel = np.cos(angles) if self.side == "real" else np.sin(angles)
        if self.window is not None:
            if isinstance(self.window, str):
                a0, a1, a2 = _WINDOWS[self.window]
                span = frames if self.periodic else max(frames - 1, 1)
                n = np.arange(frames) * (2.0 * np.pi / span)
                window = a0 - a1 * np.cos(n) + a2 * np.cos(2.0 * n)
            else:
                window = np.asarray(convert_to_tensor(self.window).numpy(), dtype=np.float64)
            if window.shape != (frames,):
                raise InvalidArgumentError(
                    f"STFT: the window must have shape ({frames},), got {window.shape}")
            window = window.astype(dtype).reshape(frames, 1, 1)
            scale = 1.0
            if self.scaling == "density":
                scale = np.sqrt(np.sum(np.square(window)))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(window))
            kernel = kernel * window / scale
        return convert_to_tensor(kernel.astype(dtype))

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, str):
            window = np.asarray(convert_to_tensor(window).numpy()).tolist()
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}


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
    "lecun_uniform": LecunUniform,
    "variance_scaling": VarianceScaling,
    "orthogonal": Orthogonal,
    "identity": Identity,
    "stft": STFT,
    "STFTInitializer": STFT,
}
_CLASSES = {cls.__name__: cls for cls in set(_BY_NAME.values())}
_NAMES = {**_CLASSES, **_BY_NAME}

zeros, ones = Zeros, Ones
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal = HeNormal, HeUniform, LecunNormal
lecun_uniform, constant, variance_scaling = LecunUniform, Constant, VarianceScaling
orthogonal = OrthogonalInitializer = Orthogonal
identity = IdentityInitializer = Identity
stft = STFTInitializer = STFT
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal


def serialize(initializer) -> dict:
    """Keras 3's serialized form of an initializer (see `ks.saving.serialize_keras_object`).

    Args:
        initializer: an initializer object.

    Returns:
        A dict with `module`, `class_name`, `config` and `registered_name`.

    Example:
        >>> import kerasish as ks
        >>> ks.initializers.serialize(ks.initializers.HeNormal(seed=1))["config"]
        {'seed': 1, 'input_axes': None, 'output_axes': None}
    """
    return serialization.serialize_keras_object(initializer)


def deserialize(config: dict, custom_objects: dict | None = None):
    """An initializer from `serialize`'s dict (`module` may be omitted).

    Args:
        config: the dict `serialize` returns (or Keras 3 writes).
        custom_objects: name -> class, for initializers of your own.

    Returns:
        The initializer.

    Example:
        >>> import kerasish as ks
        >>> config = {"class_name": "RandomNormal", "config": {"stddev": 1.0}}
        >>> ks.initializers.deserialize(config).get_config()
        {'mean': 0.0, 'stddev': 1.0, 'seed': None}
    """
    return serialization.deserialize_keras_object(config, custom_objects, module_objects=_CLASSES)


def get(identifier):
    """An initializer from a name ('he_normal' or 'HeNormal'), an instance, a serialized dict
    (`ks.saving.serialize_keras_object`'s form), or any callable.

    Args:
        identifier: what to turn into an initializer (None gives None).

    Returns:
        An initializer (a callable `(shape, dtype) -> Tensor`), or None.

    Raises:
        InvalidArgumentError: an unknown name (the known ones are listed) or a value that
            is not callable.

    Example:
        >>> import kerasish as ks
        >>> type(ks.initializers.get("he_normal")).__name__
        'HeNormal'
    """
    return serialization.resolve_callable(identifier, "initializer", _NAMES, _CLASSES)
