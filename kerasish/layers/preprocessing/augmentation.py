"""Keras 3's random image augmentation layers: the shared base and the geometric ones
(RandomRotation, RandomZoom, RandomTranslation, RandomShear, RandomPerspective,
RandomElasticTransform).

As in Keras 3 a layer augments when called directly or with `training=True` (inside `fit`)
and is the identity, after a cast to the layer's float dtype, with `training=False` (inside
`predict` and `evaluate`). Each layer draws from `ks.random`: the global stream, or with
`seed=` an integer a stream of its own for (global seed, seed), so `ks.random.set_seed`
makes runs repeat (and the layers hold no state a `.weights.h5` would save, as in Keras).
They also run inside `ks.data.Dataset.map`. Inputs are images (height, width, channels) or
batches; a dict {"images": ..., "labels": ...} passes its labels through (MixUp and CutMix
mix them). Bounding boxes and segmentation masks are refused with an error naming them.

The geometric layers build one projective transform per image (Keras's
[a0 a1 a2 b0 b1 b2 c0 c1] rows) and resample through `ks.ops.image.affine_transform`.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, creation_ops, image_ops, math_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor
from kerasish.layers.base import Layer
from kerasish.layers.convolutional import normalize_data_format

_GEOMETRIC_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


class BaseImagePreprocessingLayer(Layer):
    """The shared parts of the augmentation layers: `factor` as Keras reads it, the data
    format, the training switch, dict inputs and rank checks.

    A subclass sets `_FACTOR_BOUNDS` (or `_USE_BASE_FACTOR = False`) and implements
    `augment(images, batch)`: `images` is a (batch, height, width, channels) float tensor
    (channels last), the result the augmented images in that layout.

    Args:
        factor: a number f (the range [-f, f] clipped to the bounds) or two numbers
            (lower, upper), in `_FACTOR_BOUNDS`.
        bounding_box_format: must be None (bounding boxes are not supported here).
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomBrightness(0.2).factor
        (-0.2, 0.2)
    """

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS = (-1, 1)

    def __init__(self, factor=None, bounding_box_format=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        if bounding_box_format is not None:
            raise NotImplementedError(
                f"{name}: bounding boxes are not supported in kerasish (bounding_box_format="
                f"{bounding_box_format!r}); see COMPATIBILITY.md")
        self.bounding_box_format = None
        self.data_format = normalize_data_format(data_format, name)
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise InvalidArgumentError(f"Layer {name} does not take a `factor` argument. "
                                       f"Received: factor={factor}")

    def _set_factor(self, factor):
        low, high = self._FACTOR_BOUNDS
        message = (f"{type(self).__name__}: the `factor` argument should be a number (or a list "
                   f"of two numbers) in the range [{low}, {high}]. Received: factor={factor}")
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > high or factor[1] < low:
                raise InvalidArgumentError(message)
            lower, upper = sorted(factor)
        elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
            if factor < low or factor > high:
                raise InvalidArgumentError(message)
            factor = abs(factor)
            lower, upper = max(-factor, low), factor
        else:
            raise InvalidArgumentError(message)
        self.factor = (lower, upper)

    # ------------------------------------------------------------------ calling
    def call(self, inputs, training=None):
        if isinstance(inputs, dict):
            return self._call_dict(inputs, training)
        return self._call_images(inputs, training)

    def _call_dict(self, data: dict, training):
        name = type(self).__name__
        for key in ("bounding_boxes", "segmentation_masks"):
            if key in data:
                raise NotImplementedError(
                    f"{name}: '{key}' inputs are not supported in kerasish (images and labels "
                    f"only); see COMPATIBILITY.md")
        if "images" not in data:
            raise InvalidArgumentError(f"{name}: a dict input needs an 'images' entry, got "
                                       f"keys {sorted(data)}")
        out = dict(data)
        out["images"] = self._call_images(data["images"], training)
        return out

    def _call_images(self, inputs, training):
        x = math_ops.cast(convert_to_tensor(inputs), self.dtype)
        image_ops.image_axes(x.shape, self.data_format, type(self).__name__)
        if training is False:  # None: a direct call, which augments (Keras 3's default)
            return x
        single = x.ndim == 3
        images = shape_ops.expand_dims(x, 0) if single else x
        if self.data_format == "channels_first":
            images = shape_ops.transpose(images, (0, 2, 3, 1))
        out = self.augment(images, images.shape[0])
        if self.data_format == "channels_first":
            out = shape_ops.transpose(out, (0, 3, 1, 2))
        return out[0] if single else out

    def augment(self, images, batch: int):
        """The augmented (batch, height, width, channels) `images` (subclasses implement it).

        Args:
            images: a float tensor, channels last.
            batch: the number of images.

        Returns:
            A tensor of the same layout.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.RandomInvert((1.0, 1.0)).augment(ks.zeros([1, 1, 1, 1]), 1).numpy().item()
            255.0
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement augment")

    def _uniform(self, shape, low, high):
        """Draws in [low, high) of this layer's stream (float32, as Keras draws)."""
        return ks_random.uniform(shape, low, high, dtype=np.float32, seed=self.seed)

    def compute_output_shape(self, input_shape):
        """The output's shape: the input's (the augmentations keep the size).

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The same shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.RandomContrast(0.2).compute_output_shape((None, 8, 8, 3))
            (None, 8, 8, 3)
        """
        return input_shape

    def get_config(self) -> dict:
        config = {**super().get_config(), "data_format": self.data_format}
        if self._USE_BASE_FACTOR:
            config["factor"] = self.factor
        return config


def _check_choice(layer: str, what: str, value, choices) -> None:
    if value not in choices:
        raise NotImplementedError(f"{layer}: unknown `{what}` {value!r}. Expected one of "
                                  f"{choices}.")


def _pair_factor(layer: str, factor, name: str, open_low: bool):
    """(lower, upper) of a zoom/translation factor: f -> (-f, f), (a, b) sorted; in
    (-1, 1] for zooms (`open_low`) and [-1, 1] for translations."""
    def check(number):
        if number > 1.0 or number < -1.0 or (open_low and number == -1.0):
            raise InvalidArgumentError(
                f"{layer}: the `{name}` argument should be a number (or a list of two numbers) "
                f"in the range {'(-1.0' if open_low else '[-1.0'}, 1.0]. Received: "
                f"{name}={factor}")
    if isinstance(factor, (tuple, list)) and len(factor) == 2:
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        check(factor)
        return -abs(factor), abs(factor)
    raise InvalidArgumentError(
        f"{layer}: the `{name}` argument should be a number (or a list of two numbers); "
        f"received {name}={factor!r}")


class _GeometricLayer(BaseImagePreprocessingLayer):
    """Shared parts of the layers that resample through a projective transform."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, factor=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        name = type(self).__name__
        _check_choice(name, "fill_mode", fill_mode, _GEOMETRIC_FILL_MODES)
        _check_choice(name, "interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.seed = seed
        self.fill_value = fill_value

    def _resample(self, images, transform):
        return image_ops.affine_transform(images, transform, self.interpolation,
                                          self.fill_mode, self.fill_value)

    def get_config(self) -> dict:
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "interpolation": self.interpolation,
                "seed": self.seed}


def affine_matrix(angle, translate_x, translate_y, scale, shear_x, shear_y, height: int,
                  width: int):
    """Keras's transforms (batch, 8) about the image centre: scale . shear . rotation, then
    a translation; angles in degrees, each argument a (batch,) tensor.

    Args:
        angle, shear_x, shear_y: degrees.
        translate_x, translate_y: pixels.
        scale: the zoom of the coordinates.
        height, width: the images' size.

    Returns:
        The (batch, 8) transforms for `ks.ops.image.affine_transform`.

    Example:
        >>> import kerasish as ks
        >>> one, zero = ks.ones([1]), ks.zeros([1])
        >>> affine_matrix(zero, zero, zero, one, zero, zero, 3, 3).numpy().round(3).tolist()
        [[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]
    """
    radians = math.pi / 180.0
    angle = angle * radians
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    cos, sin = math_ops.cos(angle), math_ops.sin(angle)
    shx, shy = math_ops.tan(shear_x * radians), math_ops.tan(shear_y * radians)
    a0 = scale * (cos + shx * sin)
    a1 = scale * (-sin + shx * cos)
    a2 = translate_x + cx - cx * a0 - cy * a1
    b0 = scale * (shy * cos + sin)
    b1 = scale * (-shy * sin + cos)
    b2 = translate_y + cy - cx * b0 - cy * b1
    zero = creation_ops.zeros_like(a0)
    return shape_ops.stack([a0, a1, a2, b0, b1, b2, zero, zero], axis=1)


class RandomRotation(_GeometricLayer):
    """Rotate each image by a random angle about its centre, when training.

    Args:
        factor: a fraction of a full turn: f draws from [-f, f] turns (f = 0.25 is up to
            90 degrees either way), (a, b) from [a, b]; positive is counter-clockwise.
        fill_mode: how the corners left empty are filled: 'reflect' (default), 'wrap',
            'constant' or 'nearest'.
        interpolation: 'bilinear' (default) or 'nearest'.
        seed: an integer for a separate reproducible stream.
        fill_value: the value for fill_mode='constant'.
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ...).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomRotation((0.25, 0.25), interpolation="nearest")
        >>> x = ks.reshape(ks.range(4.0), [1, 2, 2, 1])
        >>> layer(x)[0, ..., 0].numpy().tolist()
        [[1.0, 3.0], [0.0, 2.0]]
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format,
                         factor=factor, **kwargs)

    def augment(self, images, batch: int):
        angle = self._uniform((batch,), self.factor[0] * 360.0, self.factor[1] * 360.0)
        zero, one = creation_ops.zeros_like(angle), creation_ops.ones_like(angle)
        transform = affine_matrix(angle, zero, zero, one, zero, zero, images.shape[1],
                                  images.shape[2])
        return self._resample(images, transform)


class RandomZoom(_GeometricLayer):
    """Zoom each image in or out about its centre by a random amount, when training.

    Args:
        height_factor: f draws the vertical zoom of the coordinates from [1 - f, 1 + f]
            (negative values zoom in, positive out), (a, b) from [1 + a, 1 + b]; in (-1, 1].
        width_factor: the same horizontally; None (default) keeps the aspect ratio (the
            height's draw is used).
        fill_mode, interpolation, seed, fill_value, data_format: as in RandomRotation.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomZoom((-0.5, -0.5), interpolation="nearest")
        >>> layer(ks.ones([2, 4, 4, 3])).shape
        (2, 4, 4, 3)
    """

    _USE_BASE_FACTOR = False

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _pair_factor("RandomZoom", height_factor,
                                                            "height_factor", True)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _pair_factor("RandomZoom", width_factor,
                                                              "width_factor", True)

    def augment(self, images, batch: int):
        zoom_y = self._uniform((batch,), 1.0 + self.height_lower, 1.0 + self.height_upper)
        zoom_x = zoom_y if self.width_factor is None else self._uniform(
            (batch,), 1.0 + self.width_lower, 1.0 + self.width_upper)
        height, width = images.shape[1], images.shape[2]
        zero = creation_ops.zeros_like(zoom_y)
        transform = shape_ops.stack(
            [zoom_x, zero, (width - 1) / 2.0 * (1.0 - zoom_x), zero, zoom_y,
             (height - 1) / 2.0 * (1.0 - zoom_y), zero, zero], axis=1)
        return self._resample(images, transform)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class RandomTranslation(_GeometricLayer):
    """Shift each image by a random fraction of its height and width, when training.

    Args:
        height_factor: f draws the vertical shift from [-f, f] of the height, (a, b) from
            [a, b]; positive moves the image down. In [-1, 1].
        width_factor: the same horizontally (positive moves right).
        fill_mode, interpolation, seed, fill_value, data_format: as in RandomRotation.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomTranslation(0.0, (0.5, 0.5), fill_mode="constant")
        >>> layer(ks.ones([1, 1, 4, 1]))[0, 0, :, 0].numpy().tolist()
        [0.0, 0.0, 1.0, 1.0]
    """

    _USE_BASE_FACTOR = False

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _pair_factor(
            "RandomTranslation", height_factor, "height_factor", False)
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _pair_factor(
            "RandomTranslation", width_factor, "width_factor", False)

    def augment(self, images, batch: int):
        height, width = images.shape[1], images.shape[2]
        dy = self._uniform((batch,), self.height_lower, self.height_upper) * float(height)
        dx = self._uniform((batch,), self.width_lower, self.width_upper) * float(width)
        zero, one = creation_ops.zeros_like(dx), creation_ops.ones_like(dx)
        transform = shape_ops.stack([one, zero, -dx, zero, one, -dy, zero, zero], axis=1)
        return self._resample(images, transform)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class RandomShear(_GeometricLayer):
    """Shear each image by random amounts along x and y, when training.

    As in Keras, output pixel (x, y) reads the input at (x + s_x y, s_y x + y), the
    shears about the top-left corner, with one random sign per image shared by both.

    Args:
        x_factor: f draws s_x from [-f, f], (a, b) from [a, b]; f in [0, 1] (a pair in
            [-1, 1], so that a stored config reads back).
        y_factor: the same for s_y.
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_mode: 'reflect' (default), 'wrap', 'constant' or 'nearest'.
        fill_value, data_format, seed: as in RandomRotation.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomShear(0.1, 0.1, seed=1)(ks.ones([2, 5, 5, 3])).shape
        (2, 5, 5, 3)
    """

    _USE_BASE_FACTOR = False

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.x_factor = self._shear_factor(x_factor, "x_factor")
        self.y_factor = self._shear_factor(y_factor, "y_factor")

    @staticmethod
    def _shear_factor(value, name: str):
        message = (f"RandomShear: the `{name}` argument should be a number (or a list of two "
                   f"numbers) in the range [0, 1.0]. Received: {name}={value}")
        if isinstance(value, (tuple, list)) and len(value) == 2:
            # (-f, f), what get_config stores, is read back (Keras 3.15 refuses its own)
            if min(value) < -1.0 or max(value) > 1.0:
                raise InvalidArgumentError(message)
            return tuple(sorted(value))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not 0.0 <= value <= 1.0:
                raise InvalidArgumentError(message)
            return (-abs(value), abs(value))
        raise InvalidArgumentError(message)

    def augment(self, images, batch: int):
        invert = math_ops.where(self._uniform((batch,), 0.0, 1.0) > 0.5, -1.0, 1.0)
        shear_y = self._uniform((batch,), *self.y_factor) * invert
        shear_x = self._uniform((batch,), *self.x_factor) * invert
        zero, one = creation_ops.zeros_like(shear_x), creation_ops.ones_like(shear_x)
        transform = shape_ops.stack([one, shear_x, zero, shear_y, one, zero, zero, zero],
                                    axis=1)
        return self._resample(images, transform)

    def get_config(self) -> dict:
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor}


class RandomElasticTransform(BaseImagePreprocessingLayer):
    """Warp each image by a smooth random displacement field (`ks.ops.image.elastic_transform`),
    with probability drawn from `factor`, when training.

    A distortion d is drawn once per call from `scale`; the field has alpha = 0.1 d
    max(height, width) and sigma = 0.05 d min(height, width), as in Keras.

    Args:
        factor: the probability is drawn from [0, f] (or [a, b]); default 1.0.
        scale: d is drawn from [0, s] (or [a, b]); default 1.0.
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_mode: 'reflect' (default), 'wrap', 'constant' or 'nearest'.
        fill_value: the value outside for 'constant'.
        value_range: the range of the pixel values (default (0, 255)), for the clip.
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomElasticTransform(seed=1)(ks.ones([2, 16, 16, 3])).shape
        (2, 16, 16, 3)
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        name = "RandomElasticTransform"
        self._set_factor(factor)
        factor = self.factor
        self._set_factor(scale)
        self.scale, self.factor = self.factor, factor
        _check_choice(name, "interpolation", interpolation, _INTERPOLATIONS)
        _check_choice(name, "fill_mode", fill_mode, _GEOMETRIC_FILL_MODES)
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        if self.scale[1] == 0 or self.factor[1] == 0:
            return images
        probability = self._uniform((batch,), *self.factor)
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        distortion = float(self._uniform((), *self.scale))  # sets the kernel's size
        height, width = images.shape[1], images.shape[2]
        alpha = max(height, width) * 0.1 * distortion
        sigma = min(height, width) * 0.05 * distortion
        if sigma <= 0:
            return images
        warped = image_ops.elastic_transform(images, alpha, sigma, self.interpolation,
                                             self.fill_mode, self.fill_value, self.seed)
        out = math_ops.where(shape_ops.reshape(apply, (batch, 1, 1, 1)), warped, images)
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "value_range": self.value_range,
                "seed": self.seed}
