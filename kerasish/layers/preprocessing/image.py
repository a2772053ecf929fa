"""Image preprocessing layers: Resizing, CenterCrop, RandomFlip, RandomCrop (Keras 3 arguments).

Images are (height, width, channels) or batches (batch, height, width, channels)
('channels_last'; 'channels_first' moves the channels before height and width).
Resizing is two matrix products with fixed interpolation matrices (TF's half-pixel
rule for 'bilinear' and 'nearest'), so gradients flow through it with no rule of
its own. The random layers draw through `ks.random`, so `ks.random.set_seed`
reproduces them; as in Keras 3 they act when called directly or with
`training=True`, and not inside `predict` or a call with `training=False`.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, image_ops, math_ops
from kerasish.core.ops.image_ops import INTERPOLATIONS, aspect_crop_box
from kerasish.layers.base import Layer
from kerasish.layers.convolutional import normalize_data_format


def _height_axis(shape, data_format: str) -> int:
    """The height axis of an image (rank 3) or a batch of images (rank 4) of `shape`."""
    return image_ops.image_axes(shape, data_format)[0]


class _ImageLayer(Layer):
    """Shared parts: the data format, the height and width axes, rank checks and crops."""

    def __init__(self, height: int, width: int, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        for what, value in (("height", height), ("width", width)):
            if int(value) != value or value < 1:
                raise InvalidArgumentError(f"{name}: {what} must be a positive integer, got "
                                           f"{value!r}")
        self.height = int(height)
        self.width = int(width)
        self.data_format = normalize_data_format(data_format, name)

    def _axes(self, shape) -> tuple:
        """(height axis, width axis) of images of this `shape` (rank 3 or 4)."""
        rows = _height_axis(shape, self.data_format)
        return rows, rows + 1

    def _crop(self, x, top: int, left: int, height: int, width: int):
        self._axes(x.shape)  # (checks the rank, naming the layer)
        return image_ops.crop(x, top, left, height, width, self.data_format)

    def _resize(self, x, height: int, width: int, interpolation: str = "bilinear"):
        """x resampled to (height, width), in the layer's float dtype for integer inputs."""
        self._axes(x.shape)
        return image_ops.resample(x, height, width, interpolation, self.data_format, self.dtype)

    def _crop_and_resize(self, x):
        """The largest centred window with the target aspect ratio, resized to the target."""
        rows, cols = self._axes(x.shape)
        box = aspect_crop_box(x.shape[rows], x.shape[cols], self.height, self.width)
        return self._resize(self._crop(x, *box), self.height, self.width)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Resizing(16, 24).compute_output_shape((None, 32, 32, 3))
            (None, 16, 24, 3)
        """
        shape = list(input_shape)
        rows, cols = self._axes(shape)
        shape[rows], shape[cols] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "data_format": self.data_format}


class Resizing(_ImageLayer):
    """Resize images to (height, width) by 'bilinear' or 'nearest' interpolation.

    Integer images come back in their own dtype (rounded and clipped, as Keras does);
    float images keep theirs. Gradients flow to the input.

    Args:
        height: output height.
        width: output width.
        interpolation: 'bilinear' (default) or 'nearest'.
        crop_to_aspect_ratio: first crop the largest centred window with the target's
            aspect ratio, so the image is not distorted.
        data_format: 'channels_last' (default) or 'channels_first'.
        pad_to_aspect_ratio, fill_mode, fill_value, antialias: Keras's arguments, accepted
            with their defaults only (padding and antialiasing are not implemented).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Resizing(4, 6)(ks.ones([2, 8, 3, 1])).shape
        (2, 4, 6, 1)
    """

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
                 fill_mode: str = "constant", fill_value: float = 0.0, antialias: bool = False,
                 data_format=None, **kwargs):
        super().__init__(height, width, data_format, **kwargs)
        if interpolation not in INTERPOLATIONS:
            raise InvalidArgumentError(
                f"Resizing: interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}"
            )
        if pad_to_aspect_ratio or antialias or fill_mode != "constant" or fill_value != 0.0:
            raise InvalidArgumentError(
                "Resizing: pad_to_aspect_ratio, antialias, fill_mode and fill_value are "
                "accepted with their defaults only (False, False, 'constant', 0.0); got "
                f"{pad_to_aspect_ratio!r}, {antialias!r}, {fill_mode!r}, {fill_value!r}"
            )
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)

    def call(self, inputs):
        x = inputs
        if self.crop_to_aspect_ratio:
            rows, cols = self._axes(x.shape)
            box = aspect_crop_box(x.shape[rows], x.shape[cols], self.height, self.width)
            x = self._crop(x, *box)
        resized = self._resize(x, self.height, self.width, self.interpolation)
        if inputs.dtype.kind in "iu":
            info = np.iinfo(inputs.dtype)
            resized = clip_ops.clip_by_value(math_ops.round(resized), info.min, info.max)
            return math_ops.cast(resized, inputs.dtype)
        return resized

    def get_config(self) -> dict:
        return {**super().get_config(), "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": False, "fill_mode": "constant", "fill_value": 0.0,
                "antialias": False}


class CenterCrop(_ImageLayer):
    """Crop the centre (height, width) of images; an image smaller than that is resized
    from its largest centred window of the target's aspect ratio, as Keras does.

    Outputs are floats of the layer's dtype.

    Args:
        height: the output's height.
        width: the output's width.
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> image = np.arange(16.0).reshape(4, 4, 1)
        >>> ks.layers.CenterCrop(2, 2)(image).numpy()[:, :, 0]
        array([[ 5.,  6.],
               [ 9., 10.]], dtype=float32)
    """

    def call(self, inputs):
        x = math_ops.cast(inputs, self.dtype)
        rows, cols = self._axes(x.shape)
        height, width = x.shape[rows], x.shape[cols]
        if height >= self.height and width >= self.width:
            return self._crop(x, (height - self.height) // 2, (width - self.width) // 2,
                              self.height, self.width)
        return self._crop_and_resize(x)


class RandomFlip(Layer):
    """Flip each image left-right and/or top-bottom with probability 1/2, when training.

    Each image of a batch draws its own coin; 'horizontal_and_vertical' uses the same
    coin for both flips, as Keras 3 does. At inference (`training=False`) the layer
    only casts to its float dtype.

    Args:
        mode: 'horizontal', 'vertical' or 'horizontal_and_vertical' (default).
        seed: an integer for a separate reproducible stream (see `ks.random`).
        data_format: 'channels_last' (default) or 'channels_first'.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomFlip("horizontal", seed=1)
        >>> layer(ks.ones([2, 3, 3, 1]), training=False).shape
        (2, 3, 3, 1)
    """

    MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode: str = "horizontal_and_vertical", seed=None, data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        if mode not in self.MODES:
            raise InvalidArgumentError(f"RandomFlip: mode must be one of {self.MODES}, got "
                                       f"{mode!r}")
        self.mode = mode
        self.seed = seed
        self.data_format = normalize_data_format(data_format, "RandomFlip")

    def call(self, inputs, training=None):
        x = math_ops.cast(inputs, self.dtype)
        rows = _height_axis(x.shape, self.data_format)
        if training is False:  # None: a direct call, which augments (Keras 3's default)
            return x
        coins_shape = (x.shape[0], 1, 1, 1) if x.ndim == 4 else (1, 1, 1)
        flips = math_ops.less_equal(ks_random.uniform(coins_shape, seed=self.seed), 0.5)
        if self.mode != "vertical":
            x = math_ops.where(flips, _reverse(x, rows + 1), x)
        if self.mode != "horizontal":
            x = math_ops.where(flips, _reverse(x, rows), x)
        return x

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.RandomFlip().compute_output_shape((None, 32, 32, 3))
            (None, 32, 32, 3)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode, "seed": self.seed,
                "data_format": self.data_format}


def _reverse(x, axis: int):
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    return x[tuple(index)]


class RandomCrop(_ImageLayer):
    """Crop a random (height, width) window when training; at inference, the centred
    window of the target's aspect ratio, resized to (height, width).

    One window is drawn per call (shared by the images of a batch, as in Keras 3). An
    image not larger than the target in both directions is cropped to the aspect ratio
    and resized, as at inference. Outputs are floats of the layer's dtype.

    Keras 3.15 documents this inference behaviour but returns the input unchanged
    there; kerasish follows the documentation (see COMPATIBILITY.md).

    Args:
        height: output height.
        width: output width.
        seed: an integer for a separate reproducible stream (see `ks.random`).
        data_format: 'channels_last' (default) or 'channels_first'.

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> ks.layers.RandomCrop(2, 3)(ks.ones([4, 5, 6, 1]), training=True).shape
        (4, 2, 3, 1)
    """

    def __init__(self, height: int, width: int, seed=None, data_format=None, **kwargs):
        super().__init__(height, width, data_format, **kwargs)
        self.seed = seed

    def call(self, inputs, training=None):
        x = math_ops.cast(inputs, self.dtype)
        rows, cols = self._axes(x.shape)
        height, width = x.shape[rows], x.shape[cols]
        if training is False or height <= self.height or width <= self.width:
            return self._crop_and_resize(x)
        top = int(ks_random.randint((), 0, height - self.height + 1, seed=self.seed))
        left = int(ks_random.randint((), 0, width - self.width + 1, seed=self.seed))
        return self._crop(x, top, left, self.height, self.width)

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}
