"""Keras 3's augmentation layers that erase, blur, warp or mix images: RandomErasing,
RandomGaussianBlur, RandomPerspective, MixUp, CutMix; and Pipeline (layers in turn) and
MaxNumBoundingBoxes (images pass through; bounding boxes are refused).

MixUp and CutMix mix each image with another of its batch; given a dict
{"images": ..., "labels": ...} they mix the labels by the same weights, as in Keras.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, creation_ops, image_ops, indexing_ops, math_ops, shape_ops
from kerasish.core.serialization import deserialize_keras_object
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers.base import Layer
from kerasish.layers.preprocessing.augmentation import BaseImagePreprocessingLayer


def _named_pair(layer: str, factor, name: str, bounds=(0, 1)):
    """Keras's `_set_factor_by_name`: f -> (max(-f, low), f), (a, b) sorted."""
    message = (f"{layer}: the `{name}` argument should be a number (or a list of two numbers) "
               f"in the range [{bounds[0]}, {bounds[1]}]. Received: {name}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise InvalidArgumentError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < bounds[0] or factor > bounds[1]:
            raise InvalidArgumentError(message)
        return (max(-abs(factor), bounds[0]), abs(factor))
    raise InvalidArgumentError(message)


def _box_mask(layer, batch: int, height: int, width: int, ratio_x, ratio_y):
    """A (batch, height, width, 1) mask of one random box per image whose sides are
    `ratio_x` and `ratio_y` (per image) of the width and height."""
    def bounds(length, ratio):
        size = ratio * float(length)
        start = layer._uniform((batch,), 0.0, 1.0) * (float(length) - size)
        return shape_ops.reshape(start, (batch, 1, 1, 1)), shape_ops.reshape(start + size,
                                                                            (batch, 1, 1, 1))
    x0, x1 = bounds(width, ratio_x)
    y0, y1 = bounds(height, ratio_y)
    grid_y = convert_to_tensor(np.arange(height, dtype=np.float32).reshape(1, height, 1, 1))
    grid_x = convert_to_tensor(np.arange(width, dtype=np.float32).reshape(1, 1, width, 1))
    inside = math_ops.logical_and(math_ops.logical_and(grid_x >= x0, grid_x < x1),
                                  math_ops.logical_and(grid_y >= y0, grid_y < y1))
    return inside, (x0, x1, y0, y1)


def _coin(layer, batch: int):
    """Per image: whether to act, with a probability drawn from the layer's factor."""
    probability = layer._uniform((batch,), *layer.factor)
    apply = layer._uniform((batch,), 0.0, 1.0) < probability
    return shape_ops.reshape(apply, (batch, 1, 1, 1))


class RandomErasing(BaseImagePreprocessingLayer):
    """Replace a random box of each image by noise or a fill value, with probability drawn
    from `factor`, when training.

    Args:
        factor: the probability is drawn from [0, f] (or [a, b]); default 1.0.
        scale: the box's side ratios are square roots of draws from (low, high) (default
            (0.02, 0.33)), per axis.
        fill_value: None (default): Gaussian noise times value_range[1]; a number or three
            numbers (one per channel); clipped to `value_range`.
        value_range: the range of the pixel values (default (0, 255)).
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.RandomErasing((1.0, 1.0), scale=(1.0, 1.0), fill_value=0.0)(
        ...     ks.ones([1, 4, 4, 1]))
        >>> float(out.numpy().sum())
        0.0
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = _named_pair("RandomErasing", scale, "scale")
        if fill_value is not None and not (
                isinstance(fill_value, (int, float)) or (
                    isinstance(fill_value, (tuple, list)) and len(fill_value) == 3)):
            raise InvalidArgumentError(
                f"RandomErasing: fill_value must be None, a number or three numbers, got "
                f"{fill_value!r}")
        self.fill_value = fill_value
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        ratios = math_ops.sqrt(self._uniform((batch, 2), *self.scale))
        mask, _ = _box_mask(self, batch, images.shape[1], images.shape[2], ratios[:, 0],
                            ratios[:, 1])
        apply = _coin(self, batch)
        if self.fill_value is None:
            fill = ks_random.normal(tuple(images.shape), dtype=images.dtype, seed=self.seed)
            fill = fill * float(self.value_range[1])
        else:
            fill = creation_ops.zeros_like(images) + np.asarray(self.fill_value, images.dtype)
        fill = clip_ops.clip_by_value(fill, self.value_range[0], self.value_range[1])
        return math_ops.where(math_ops.logical_and(mask, apply), fill, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "fill_value": self.fill_value, "value_range": self.value_range,
                "seed": self.seed}


class RandomGaussianBlur(BaseImagePreprocessingLayer):
    """Blur each image with a Gaussian kernel, with probability drawn from `factor`, when
    training; the two sigmas are drawn once per call.

    Args:
        factor: the probability is drawn from [0, f] (or [a, b]); default 1.0.
        kernel_size: an odd integer or two (default 3).
        sigma: the standard deviations are drawn from [0, s] (or [a, b]); default 1.0.
        value_range: the range of the pixel values (default (0, 255)), for the clip.
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomGaussianBlur(seed=2)(ks.ones([2, 5, 5, 3])).shape
        (2, 5, 5, 3)
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        sizes = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (
            kernel_size, kernel_size)
        if len(sizes) != 2 or any(int(s) != s or s % 2 == 0 for s in sizes):
            raise InvalidArgumentError(f"RandomGaussianBlur: kernel_size must be an odd number "
                                       f"(or two). Received: kernel_size={kernel_size}")
        self.kernel_size = sizes
        self.sigma = _named_pair("RandomGaussianBlur", sigma, "sigma", (0, np.inf))
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        apply = _coin(self, batch)
        sigma = math_ops.cast(self._uniform((2,), *self.sigma) + 1e-6, images.dtype)
        blurred = image_ops.gaussian_blur(images, self.kernel_size, sigma)
        out = math_ops.where(apply, blurred, images)
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "kernel_size": self.kernel_size, "sigma": self.sigma,
                "value_range": self.value_range, "seed": self.seed}


class RandomPerspective(BaseImagePreprocessingLayer):
    """Move each image's corners by random amounts (a perspective warp), with probability
    drawn from `factor`, when training.

    Args:
        factor: the probability is drawn from [0, f] (or [a, b]); default 1.0.
        scale: each corner moves by up to scale/2 of its coordinates (in [0, 1]).
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_value: the value where the warp reads outside the image.
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomPerspective(scale=0.2, seed=1)(ks.ones([2, 6, 6, 3])).shape
        (2, 6, 6, 3)
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        if not 0.0 <= scale <= 1.0:
            raise InvalidArgumentError(f"RandomPerspective: scale must be in [0, 1]. "
                                       f"Received: scale={scale}")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"RandomPerspective: unknown `interpolation` "
                                      f"{interpolation!r}. Expected one of ('nearest', "
                                      f"'bilinear').")
        self.scale = scale
        self.interpolation = interpolation
        self.fill_value = fill_value
        self.seed = seed

    def augment(self, images, batch: int):
        height, width = images.shape[1], images.shape[2]
        apply = _coin(self, batch)
        moves = self._uniform((batch, 4, 2), -0.5 * self.scale, 0.5 * self.scale)
        corners = np.array([[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1],
                            [width - 1, height - 1]], np.float32)
        start = convert_to_tensor(np.broadcast_to(corners, (batch, 4, 2)).copy())
        end = start + start * moves
        warped = image_ops.perspective_transform(images, start, end, self.interpolation,
                                                 self.fill_value)
        return math_ops.where(apply, warped, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value,
                "seed": self.seed}


class _MixingLayer(BaseImagePreprocessingLayer):
    """Layers that mix each image with another of the batch, and the labels alike."""

    _USE_BASE_FACTOR = False

    def _call_dict(self, data: dict, training):
        if "labels" not in data or training is False:
            return super()._call_dict(data, training)
        out = dict(data)
        images = math_ops.cast(convert_to_tensor(data["images"]), self.dtype)
        image_ops.image_axes(images.shape, self.data_format, type(self).__name__)
        if images.ndim == 3:
            return {**out, "images": images}
        if self.data_format == "channels_first":
            images = shape_ops.transpose(images, (0, 2, 3, 1))
        mixed, order, weight = self._mix(images, images.shape[0])
        if self.data_format == "channels_first":
            mixed = shape_ops.transpose(mixed, (0, 3, 1, 2))
        labels = convert_to_tensor(data["labels"])
        labels = math_ops.cast(labels, weight.dtype) if labels.dtype.kind != "f" else labels
        weight = math_ops.cast(shape_ops.reshape(weight, (-1, 1)), labels.dtype)
        others = indexing_ops.gather(labels, order)
        out["images"] = mixed
        out["labels"] = weight * labels + (1.0 - weight) * others
        return out

    def augment(self, images, batch: int):
        return self._mix(images, batch)[0]

    def _order(self, batch: int) -> Tensor:
        return ks_random.shuffle(np.arange(batch, dtype=np.int64), seed=self.seed)


class MixUp(_MixingLayer):
    """MixUp: each image becomes w x + (1 - w) x' with x' another image of the batch and
    w ~ Beta(alpha, alpha), when training; labels likewise (dict inputs).

    Args:
        alpha: the Beta distribution's parameter (default 0.2).
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.MixUp(seed=1)({"images": ks.ones([4, 2, 2, 1]),
        ...                                "labels": ks.ones([4, 3])})
        >>> out["labels"].numpy().tolist()[0]
        [1.0, 1.0, 1.0]
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self.seed = seed

    def _mix(self, images, batch: int):
        order = self._order(batch)
        weight = ks_random.beta((batch,), self.alpha, self.alpha, seed=self.seed)
        w = math_ops.cast(shape_ops.reshape(weight, (-1, 1, 1, 1)), images.dtype)
        return w * images + (1.0 - w) * indexing_ops.gather(images, order), order, weight

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed}


class CutMix(_MixingLayer):
    """CutMix: a random box of each image is pasted from another image of the batch, when
    training; labels mix by the area kept (dict inputs). Single images pass unchanged.

    Args:
        factor: Beta(a, a) draws the area kept, with a drawn from [0, f] (or [a, b]) once
            per call; default 1.0.
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.CutMix(seed=3)(ks.ones([4, 6, 6, 3])).shape
        (4, 6, 6, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.seed = seed

    def _call_images(self, inputs, training):
        x = convert_to_tensor(inputs)
        if x.ndim == 3:  # Keras: no partner image to cut from
            return math_ops.cast(x, self.dtype)
        return super()._call_images(inputs, training)

    def _mix(self, images, batch: int):
        height, width = images.shape[1], images.shape[2]
        alpha = float(self._uniform((), *self.factor)) + 1e-6
        kept = ks_random.beta((batch,), alpha, alpha, dtype=np.float32, seed=self.seed)
        ratio = math_ops.sqrt(1.0 - kept)
        mask, (x0, x1, y0, y1) = _box_mask(self, batch, height, width, ratio, ratio)
        weight = shape_ops.reshape(1.0 - (x1 - x0) * (y1 - y0) / float(width * height),
                                   (batch,))
        order = self._order(batch)
        mixed = math_ops.where(mask, indexing_ops.gather(images, order), images)
        return mixed, order, weight

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}


class MaxNumBoundingBoxes(BaseImagePreprocessingLayer):
    """Keras's layer that pads or cuts the bounding boxes of a batch to `max_number`.

    Bounding boxes are not supported in kerasish (see COMPATIBILITY.md): images pass
    through unchanged and a dict with 'bounding_boxes' raises NotImplementedError.

    Args:
        max_number: the number of boxes to keep (a positive integer).
        fill_value: the padding value (default -1).
        **kwargs: `data_format` and the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.MaxNumBoundingBoxes(4)(ks.ones([1, 2, 2, 3])).shape
        (1, 2, 2, 3)
    """

    _USE_BASE_FACTOR = False

    def __init__(self, max_number, fill_value=-1, **kwargs):
        super().__init__(**kwargs)
        if int(max_number) != max_number or max_number < 1:
            raise InvalidArgumentError(f"MaxNumBoundingBoxes: max_number must be a positive "
                                       f"integer, got {max_number!r}")
        self.max_number = int(max_number)
        self.fill_value = fill_value

    def augment(self, images, batch: int):
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "max_number": self.max_number}


class Pipeline(Layer):
    """Apply layers in turn (Keras 3's `Pipeline`): a light Sequential for preprocessing,
    passing `training` on to each layer that takes it.

    Args:
        layers: the layers, in order.
        name: the layer's name.

    Example:
        >>> import kerasish as ks
        >>> pipe = ks.layers.Pipeline([ks.layers.RandomFlip(), ks.layers.RandomContrast(0.1)])
        >>> pipe(ks.ones([2, 4, 4, 3]), training=False).shape
        (2, 4, 4, 3)
    """

    def __init__(self, layers, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pipeline_layers = [deserialize_keras_object(layer) if isinstance(layer, dict)
                                else layer for layer in layers]

    @property
    def layers(self) -> list:
        """The layers, in order.

        Example:
            >>> import kerasish as ks
            >>> len(ks.layers.Pipeline([ks.layers.RandomFlip()]).layers)
            1
        """
        return list(self.pipeline_layers)

    def call(self, inputs, training=None):
        for layer in self.pipeline_layers:
            inputs = layer(inputs) if training is None else layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape):
        """The output's shape: each layer's in turn.

        Args:
            input_shape: the inputs' shape, batch axis included.

        Returns:
            The last layer's output shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Pipeline([ks.layers.RandomFlip()]).compute_output_shape((None, 4, 4, 3))
            (None, 4, 4, 3)
        """
        for layer in self.pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self) -> dict:
        return {"layers": list(self.pipeline_layers), "name": self.name}
