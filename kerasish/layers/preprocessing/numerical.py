"""Numerical preprocessing layers: Rescaling and Normalization (Keras 3 arguments and weights)."""

from __future__ import annotations

import numpy as np

from kerasish.core import backend, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, shape_ops
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.data import Dataset
from kerasish.layers import build_probe
from kerasish.layers.base import Layer


class Rescaling(Layer):
    """Multiply the inputs by `scale` and add `offset` (e.g. pixels from [0, 255] to [0, 1]).

    Integer inputs become floats of the layer's dtype (float32 by default); the layer
    acts the same in training and inference and passes masks through.

    Args:
        scale: a number (or per-channel numbers) to multiply by.
        offset: a number (or per-channel numbers) added after scaling.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> ks.layers.Rescaling(1 / 127.5, offset=-1.0)(np.array([[0, 255]], "uint8")).numpy()
        array([[-1.,  1.]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset

    def call(self, inputs):
        x = math_ops.cast(inputs, self.dtype)
        scale = convert_to_tensor(np.asarray(self.scale, self.dtype))
        offset = convert_to_tensor(np.asarray(self.offset, self.dtype))
        return x * scale + offset

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Rescaling(1 / 255).compute_output_shape((None, 32, 32, 3))
            (None, 32, 32, 3)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


def _batch_of(element):
    """The inputs of a dataset element: x of (x, y) or (x, y, sample_weight)."""
    return element[0] if isinstance(element, tuple) else element


def _host(values) -> np.ndarray:
    if isinstance(values, Tensor):
        return backend.to_numpy(values._value)
    return np.asarray(values)


class Normalization(Layer):
    """Shift and scale inputs to zero mean and unit variance per feature: (x - mean) / std.

    The mean and variance come from `adapt(data)` (kept as the non-trainable weights
    `mean`, `variance` and `count`, as Keras 3 names them, so `.keras` files carry over)
    or from the `mean` and `variance` arguments (then the layer has no weights).

    Args:
        axis: the axis or axes that keep their own statistics (default -1: one mean per
            feature of the last axis); None normalizes all values with one mean.
        mean: fixed mean values (broadcast to the kept axes); needs `variance` too.
        variance: fixed variances, the same shape as `mean`.
        invert: map normalized values back: mean + x * std.

    Raises:
        InvalidArgumentError: for a `mean` without `variance`, shapes that differ, an
            axis outside the input's rank, or a call before `adapt`.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> layer = ks.layers.Normalization()
        >>> layer.adapt(np.array([[0.0, 7.0], [2.0, 9.0]]))
        >>> layer(np.array([[0.0, 9.0]])).numpy()
        array([[-1.,  1.]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert: bool = False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        self.axis = tuple(int(a) for a in axis)
        if (mean is None) != (variance is None):
            raise InvalidArgumentError(
                f"Normalization '{self.name}': pass both mean and variance or neither; got "
                f"mean={mean} and variance={variance}"
            )
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise InvalidArgumentError(
                    f"Normalization '{self.name}': mean has shape {np.shape(mean)} but variance "
                    f"has shape {np.shape(variance)}; they must be the same"
                )
            if np.ndim(mean) > len(self.axis):
                raise InvalidArgumentError(
                    f"Normalization '{self.name}': mean of shape {np.shape(mean)} has more "
                    f"dimensions than the {len(self.axis)} kept axes {self.axis}"
                )
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self._fixed = None  # (mean, variance) arrays shaped to broadcast, for given values

    def build(self, input_shape) -> None:
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        for a in self.axis:
            if not -ndim <= a < ndim:
                raise InvalidArgumentError(
                    f"Normalization '{self.name}': axis {a} is outside inputs of shape "
                    f"{input_shape} (rank {ndim})"
                )
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep_axis:
            if input_shape[a] is None:
                raise InvalidArgumentError(
                    f"Normalization '{self.name}': the kept axis {a} of inputs {input_shape} "
                    "must have a known size"
                )
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = tuple(
            input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)
        )
        self._adapted_shape = input_shape
        kept = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", kept, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(
                "variance", kept, initializer="ones", trainable=False
            )
            self.count = self.add_weight("count", (), dtype="int64", initializer="zeros",
                                         trainable=False)
            return
        expanded = [1] * ndim  # the given values fill the last kept axes, as in Keras
        for i in range(1, np.ndim(self.input_mean) + 1):
            expanded[self._keep_axis[-i]] = np.shape(self.input_mean)[-i]
        self._fixed = tuple(
            np.broadcast_to(np.reshape(np.asarray(v, self.dtype), expanded),
                            self._broadcast_shape)
            for v in (self.input_mean, self.input_variance)
        )

    def adapt(self, data) -> None:
        """Compute the mean and variance of `data` for each index of the kept axes.

        Args:
            data: a NumPy array or tensor, a `ks.data.Dataset` of batches (an (x, y)
                element uses x; a dataset of single vectors is batched by 128, as Keras
                does), or any iterable of batches. Batches are combined by streaming
                (Chan's update of mean and variance), in float64.

        Raises:
            InvalidArgumentError: if the layer was given its mean and variance.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> norm = ks.layers.Normalization()
            >>> norm.adapt(np.array([[1., 10.], [3., 30.]]))
            >>> norm(np.array([[3., 10.]])).numpy()
            array([[ 1., -1.]], dtype=float32)
        """
        if self.input_mean is not None:
            raise InvalidArgumentError(
                f"Normalization '{self.name}' was given mean and variance; it cannot adapt"
            )
        if isinstance(data, Dataset):
            spec = _batch_of(data.element_spec)
            if len(spec.shape) == 1:
                data = data.batch(128)
        if isinstance(data, (np.ndarray, Tensor)):
            batches = [data]
        elif hasattr(data, "__iter__"):
            batches = data
        else:
            raise InvalidArgumentError(
                f"Normalization '{self.name}': adapt takes an array, a tensor, a Dataset or "
                f"an iterable of batches, got {type(data).__name__}"
            )
        total_mean = total_var = None
        total_count = 0
        for batch in batches:
            batch = _host(_batch_of(batch)).astype(np.float64)
            if not self.built:
                self.build(batch.shape)
                self._build_input_shape = batch.shape
            self._check_adapt_shape(batch.shape)
            count = int(np.prod([batch.shape[d] for d in self._reduce_axis]))
            mean = batch.mean(axis=self._reduce_axis)
            var = batch.var(axis=self._reduce_axis)
            if total_mean is None:
                total_mean, total_var, total_count = mean, var, count
                continue
            new_count = total_count + count
            delta = mean - total_mean
            total_var = (total_var * total_count + var * count
                         + delta**2 * total_count * count / new_count) / new_count
            total_mean = total_mean + delta * count / new_count
            total_count = new_count
        if total_mean is None:
            raise InvalidArgumentError(
                f"Normalization '{self.name}': adapt received no data (an empty iterable)"
            )
        self.adapt_mean.assign(total_mean)
        self.adapt_variance.assign(total_var)
        self.count.assign(total_count)

    def _check_adapt_shape(self, shape) -> None:
        kept_ok = len(shape) == len(self._adapted_shape) and all(
            shape[d] == self._adapted_shape[d] for d in self._keep_axis
        )
        if not kept_ok:
            raise InvalidArgumentError(
                f"Normalization '{self.name}': adapt got data of shape {tuple(shape)}, but the "
                f"layer was built for inputs of shape {self._adapted_shape} (kept axes "
                f"{self._keep_axis})"
            )

    def _statistics(self):
        """(mean, variance) as tensors shaped to broadcast against the inputs."""
        if self._fixed is not None:
            return tuple(convert_to_tensor(v) for v in self._fixed)
        unset = self.adapt_mean._version == 0 and self.adapt_variance._version == 0
        if unset and not build_probe.active():  # a model's build probe runs before weights load
            raise InvalidArgumentError(
                f"Normalization '{self.name}' has no mean and variance yet: call "
                "layer.adapt(data) first, or pass mean= and variance="
            )
        return tuple(
            shape_ops.reshape(math_ops.cast(v, self.dtype), self._broadcast_shape)
            for v in (self.adapt_mean, self.adapt_variance)
        )

    def call(self, inputs):
        if inputs.ndim != len(self._adapted_shape):
            raise InvalidArgumentError(
                f"expects inputs of rank {len(self._adapted_shape)} (it was built for shape "
                f"{self._adapted_shape}), got shape {inputs.shape}"
            )
        mean, variance = self._statistics()
        std = math_ops.maximum(math_ops.sqrt(variance), settings.epsilon())
        x = math_ops.cast(inputs, self.dtype)
        if self.invert:
            return mean + x * std
        return (x - mean) / std

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Normalization(mean=0.0, variance=1.0).compute_output_shape((None, 4))
            (None, 4)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "invert": self.invert,
            "mean": None if self.input_mean is None else np.asarray(self.input_mean).tolist(),
            "variance": (None if self.input_variance is None
                         else np.asarray(self.input_variance).tolist()),
        }
