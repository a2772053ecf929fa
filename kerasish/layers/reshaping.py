"""Reshaping layers: UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D, Permute, RepeatVector
(Keras 3 arguments).

Nearest upsampling repeats each cell through a broadcast view (its gradient sums the
copies back); bilinear upsampling is two matrix products with fixed interpolation
matrices (TF's half-pixel rule), so neither needs a gradient rule of its own.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import arguments, backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, shape_ops
from kerasish.core.ops.image_ops import resize_matrix
from kerasish.core.tensor import Tensor
from kerasish.layers.base import Layer
from kerasish.layers.convolutional import (
    channels_of,
    from_channels_last,
    normalize_data_format,
    to_channels_last,
)


def _repeat(x, axis: int, times: int):
    """x with every entry along `axis` repeated `times` times in place (nearest upsampling)."""
    if times == 1:
        return x
    shape = x.shape
    expanded = shape_ops.reshape(x, shape[: axis + 1] + (1,) + shape[axis + 1 :])
    spread = shape_ops.broadcast_to(expanded, shape[: axis + 1] + (times,) + shape[axis + 1 :])
    return shape_ops.reshape(spread, shape[:axis] + (shape[axis] * times,) + shape[axis + 1 :])


def _check_rank(layer: Layer, inputs, rank: int) -> None:
    channels_of(inputs.shape, getattr(layer, "data_format", "channels_last"), rank,
                f"{type(layer).__name__} '{layer.name}'")


class UpSampling1D(Layer):
    """Each step of (batch, steps, features) repeated `size` times.

    Args:
        size: how many times each step is repeated.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.UpSampling1D(2)(ks.constant([[[1.0], [2.0]]])).numpy()[0, :, 0].tolist()
        [1.0, 1.0, 2.0, 2.0]
    """

    def __init__(self, size: int = 2, **kwargs):
        super().__init__(**kwargs)
        self.size = arguments.integer(size, "size", "UpSampling1D")

    def call(self, inputs):
        _check_rank(self, inputs, 1)
        return _repeat(inputs, 1, self.size)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.UpSampling1D(2).compute_output_shape((None, 10, 3))
            (None, 20, 3)
        """
        steps = input_shape[1]
        return (input_shape[0], None if steps is None else steps * self.size, input_shape[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Rows and columns enlarged `size` times, by repetition ('nearest') or 'bilinear'
    interpolation (half-pixel centers, as Keras on TF).

    Args:
        size: an int or (rows, cols): the enlargement factors.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        interpolation: 'nearest' (repetition) or 'bilinear'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.UpSampling2D((2, 3), interpolation="bilinear")(ks.ones([1, 2, 2, 1])).shape
        (1, 4, 6, 1)
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation: str = "nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = arguments.integers(size, "size", "UpSampling2D", 2)
        self.data_format = normalize_data_format(data_format, "UpSampling2D")
        if interpolation not in ("nearest", "bilinear"):
            raise InvalidArgumentError(
                f"UpSampling2D: interpolation must be 'nearest' or 'bilinear', got "
                f"{interpolation!r}"
            )
        self.interpolation = interpolation

    def call(self, inputs):
        _check_rank(self, inputs, 2)
        x = to_channels_last(inputs, self.data_format)
        if self.interpolation == "nearest":
            outputs = _repeat(_repeat(x, 1, self.size[0]), 2, self.size[1])
        else:
            outputs = self._bilinear(x)
        return from_channels_last(outputs, self.data_format)

    def _bilinear(self, x):
        if x.dtype.kind != "f":
            x = math_ops.cast(x, self.dtype)
        device = backend.device_of(x._value)
        rows, cols = (
            Tensor(backend.to_device(resize_matrix(n, n * s, "bilinear").astype(x.dtype), device))
            for n, s in zip(x.shape[1:3], self.size)
        )
        planes = shape_ops.transpose(x, (0, 3, 1, 2))  # (batch, channels, rows, cols)
        planes = math_ops.matmul(math_ops.matmul(rows, planes), cols, transpose_b=True)
        return shape_ops.transpose(planes, (0, 2, 3, 1))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.UpSampling2D(2).compute_output_shape((None, 8, 8, 3))
            (None, 16, 16, 3)
        """
        input_shape = tuple(input_shape)
        first = self.data_format == "channels_first"
        spatial = input_shape[2:] if first else input_shape[1:3]
        sizes = tuple(None if n is None else n * s for n, s in zip(spatial, self.size))
        if first:
            return input_shape[:2] + sizes
        return (input_shape[0],) + sizes + (input_shape[3],)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }


class UpSampling3D(Layer):
    """Depth, rows and columns of (batch, depth, rows, cols, channels) enlarged `size`
    times by repetition (Keras's only mode in 3-D).

    Args:
        size: an int or (depth, rows, cols): the enlargement factors.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.UpSampling3D((1, 2, 3))(ks.ones([1, 2, 2, 2, 4])).shape
        (1, 2, 4, 6, 4)
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = arguments.integers(size, "size", "UpSampling3D", 3)
        self.data_format = normalize_data_format(data_format, "UpSampling3D")

    def call(self, inputs):
        _check_rank(self, inputs, 3)
        start = 2 if self.data_format == "channels_first" else 1
        outputs = inputs
        for axis, times in enumerate(self.size, start=start):
            outputs = _repeat(outputs, axis, times)
        return outputs

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.UpSampling3D(2).compute_output_shape((None, 4, 8, 8, 3))
            (None, 8, 16, 16, 3)
        """
        shape = list(input_shape)
        start = 2 if self.data_format == "channels_first" else 1
        for i, times in enumerate(self.size):
            if shape[start + i] is not None:
                shape[start + i] *= times
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


def _pairs(value, rank: int, what: str, layer: str) -> tuple:
    """Keras's forms of per-axis (before, after) amounts: an int (all sides), `rank` ints
    (symmetric per axis) or `rank` pairs; for rank 1, an int or one pair."""
    def whole(v) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    def pair(v):
        if whole(v):
            return (int(v), int(v))
        v = tuple(v)
        if len(v) != 2 or not all(whole(p) for p in v):
            raise ValueError
        return (int(v[0]), int(v[1]))

    try:
        if rank == 1:
            result = (pair(value),)
        elif whole(value):
            result = (pair(value),) * rank
        else:
            result = tuple(pair(v) for v in value)
    except (TypeError, ValueError):
        result = ()
    if len(result) != rank or any(p < 0 for side in result for p in side):
        raise InvalidArgumentError(
            f"{layer}: {what} must be a non-negative int, {rank} ints or {rank} pairs of "
            f"ints, got {value!r}"
        )
    return result


class ZeroPadding1D(Layer):
    """Zeros added at the start and end of the steps axis.

    Args:
        padding: an int (both ends) or (start, end): the zero steps added.
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.ZeroPadding1D((1, 2))(ks.ones([1, 3, 2])).shape
        (1, 6, 2)
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 1, "padding", "ZeroPadding1D")[0]
        self.data_format = normalize_data_format(data_format, "ZeroPadding1D")

    def call(self, inputs):
        _check_rank(self, inputs, 1)
        pads = [[0, 0], list(self.padding), [0, 0]]
        if self.data_format == "channels_first":
            pads = [pads[0], pads[2], pads[1]]
        return shape_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ZeroPadding1D(2).compute_output_shape((None, 10, 3))
            (None, 14, 3)
        """
        shape = list(input_shape)
        axis = 2 if self.data_format == "channels_first" else 1
        if shape[axis] is not None:
            shape[axis] += sum(self.padding)
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding2D(Layer):
    """Zeros added around the rows and columns: `padding` is an int, (rows, cols) or
    ((top, bottom), (left, right)).

    Args:
        padding: an int, (rows, cols) or ((top, bottom), (left, right)).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.ZeroPadding2D(((1, 0), (2, 2)))(ks.ones([1, 3, 3, 2])).shape
        (1, 4, 7, 2)
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 2, "padding", "ZeroPadding2D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding2D")

    def call(self, inputs):
        _check_rank(self, inputs, 2)
        rows, cols = (list(p) for p in self.padding)
        if self.data_format == "channels_first":
            return shape_ops.pad(inputs, [[0, 0], [0, 0], rows, cols])
        return shape_ops.pad(inputs, [[0, 0], rows, cols, [0, 0]])

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ZeroPadding2D(1).compute_output_shape((None, 8, 8, 3))
            (None, 10, 10, 3)
        """
        shape = list(input_shape)
        start = 2 if self.data_format == "channels_first" else 1
        for i, side in enumerate(self.padding):
            if shape[start + i] is not None:
                shape[start + i] += sum(side)
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding3D(Layer):
    """Zeros added around the depth, rows and columns of (batch, depth, rows, cols,
    channels): `padding` is an int, 3 ints or 3 (before, after) pairs.

    Args:
        padding: an int, (depth, rows, cols) or ((front, back), (top, bottom), (left,
            right)).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.ZeroPadding3D(((1, 0), (2, 2), (0, 1)))(ks.ones([1, 3, 3, 3, 2])).shape
        (1, 4, 7, 4, 2)
    """

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 3, "padding", "ZeroPadding3D")
        self.data_format = normalize_data_format(data_format, "ZeroPadding3D")

    def call(self, inputs):
        _check_rank(self, inputs, 3)
        sides = [list(p) for p in self.padding]
        if self.data_format == "channels_first":
            return shape_ops.pad(inputs, [[0, 0], [0, 0], *sides])
        return shape_ops.pad(inputs, [[0, 0], *sides, [0, 0]])

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ZeroPadding3D(1).compute_output_shape((None, 4, 8, 8, 3))
            (None, 6, 10, 10, 3)
        """
        start = 2 if self.data_format == "channels_first" else 1
        return _cropped_shape(input_shape, start,
                              tuple((-a, -b) for a, b in self.padding))

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


def _crop(layer: Layer, inputs, start: int, cropping) -> Tensor:
    key = [slice(None)] * inputs.ndim
    for i, (before, after) in enumerate(cropping):
        size = inputs.shape[start + i]
        if before + after >= size:
            raise InvalidArgumentError(
                f"{type(layer).__name__} '{layer.name}': cropping {cropping} leaves nothing of "
                f"axis {start + i} (size {size}) of input shape {inputs.shape}"
            )
        key[start + i] = slice(before, size - after)
    return inputs[tuple(key)]


def _cropped_shape(input_shape, start: int, cropping) -> tuple:
    shape = list(input_shape)
    for i, side in enumerate(cropping):
        if shape[start + i] is not None:
            shape[start + i] -= sum(side)
    return tuple(shape)


class Cropping1D(Layer):
    """Steps removed from the start and end of (batch, steps, features).

    Args:
        cropping: an int (both ends) or (start, end): the steps removed.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Cropping1D((1, 2))(ks.ones([1, 6, 2])).shape
        (1, 3, 2)
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 1, "cropping", "Cropping1D")[0]

    def call(self, inputs):
        _check_rank(self, inputs, 1)
        return _crop(self, inputs, 1, (self.cropping,))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Cropping1D((1, 2)).compute_output_shape((None, 10, 3))
            (None, 7, 3)
        """
        return _cropped_shape(input_shape, 1, (self.cropping,))

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Rows and columns removed from the edges: `cropping` is an int, (rows, cols) or
    ((top, bottom), (left, right)).

    Args:
        cropping: an int, (rows, cols) or ((top, bottom), (left, right)).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Cropping2D(((1, 0), (2, 2)))(ks.ones([1, 4, 7, 2])).shape
        (1, 3, 3, 2)
    """

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 2, "cropping", "Cropping2D")
        self.data_format = normalize_data_format(data_format, "Cropping2D")

    def _start(self) -> int:
        return 2 if self.data_format == "channels_first" else 1

    def call(self, inputs):
        _check_rank(self, inputs, 2)
        return _crop(self, inputs, self._start(), self.cropping)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Cropping2D(1).compute_output_shape((None, 8, 8, 3))
            (None, 6, 6, 3)
        """
        return _cropped_shape(input_shape, self._start(), self.cropping)

    def get_config(self) -> dict:
        return {
            **super().get_config(), "cropping": self.cropping, "data_format": self.data_format
        }


class Cropping3D(Layer):
    """Cells removed from the edges of the depth, rows and columns of (batch, depth, rows,
    cols, channels): `cropping` is an int, 3 ints or 3 (before, after) pairs.

    Args:
        cropping: an int, (depth, rows, cols) or ((front, back), (top, bottom), (left,
            right)).
        data_format: 'channels_last' (default: channels on the last axis) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Cropping3D(((1, 0), (2, 2), (0, 1)))(ks.ones([1, 4, 7, 4, 2])).shape
        (1, 3, 3, 3, 2)
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 3, "cropping", "Cropping3D")
        self.data_format = normalize_data_format(data_format, "Cropping3D")

    def _start(self) -> int:
        return 2 if self.data_format == "channels_first" else 1

    def call(self, inputs):
        _check_rank(self, inputs, 3)
        return _crop(self, inputs, self._start(), self.cropping)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Cropping3D(1).compute_output_shape((None, 4, 8, 8, 3))
            (None, 2, 6, 6, 3)
        """
        return _cropped_shape(input_shape, self._start(), self.cropping)

    def get_config(self) -> dict:
        return {
            **super().get_config(), "cropping": self.cropping, "data_format": self.data_format
        }


class Permute(Layer):
    """The axes after the batch axis reordered: `dims` numbers them from 1.

    Args:
        dims: a permutation of 1..rank-1 (the batch axis stays first), e.g. (2, 1)
            swaps the two axes of (batch, steps, features).
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Raises:
        InvalidArgumentError: if `dims` is not a permutation of 1..len(dims), or (at the
            call) the input's rank is not len(dims) + 1.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Permute((2, 1))(ks.zeros([4, 10, 64])).shape
        (4, 64, 10)
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise InvalidArgumentError(
                f"Permute: dims must be a permutation of 1..{len(dims)} (axis 0, the batch "
                f"axis, is not part of it), got dims={dims}"
            )
        self.dims = tuple(int(d) for d in dims)

    def call(self, inputs):
        if inputs.ndim != len(self.dims) + 1:
            raise InvalidArgumentError(
                f"Permute '{self.name}': dims={self.dims} needs inputs of rank "
                f"{len(self.dims) + 1} (batch axis included), got shape {inputs.shape}"
            )
        return shape_ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Permute((2, 1)).compute_output_shape((None, 10, 3))
            (None, 3, 10)
        """
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """(batch, features) to (batch, n, features): each example repeated `n` times.

    Args:
        n: the number of repetitions (a positive integer).
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Raises:
        InvalidArgumentError: if `n` is not a positive integer, or (at the call) the
            input is not of rank 2.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RepeatVector(3)(ks.constant([[1.0, 2.0]])).numpy().tolist()
        [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]]
    """

    def __init__(self, n: int, **kwargs):
        super().__init__(**kwargs)
        self.n = arguments.integer(n, "n", "RepeatVector")

    def call(self, inputs):
        if inputs.ndim != 2:
            raise InvalidArgumentError(
                f"RepeatVector '{self.name}': expects inputs of shape (batch, features), got "
                f"shape {inputs.shape}"
            )
        batch, features = inputs.shape
        expanded = shape_ops.reshape(inputs, (batch, 1, features))
        return shape_ops.broadcast_to(expanded, (batch, self.n, features))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.RepeatVector(5).compute_output_shape((None, 3))
            (None, 5, 3)
        """
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}
