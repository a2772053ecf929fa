"""Keras 3's colour augmentation layers: RandomContrast, RandomBrightness, RandomGrayscale,
RandomHue, RandomSaturation, RandomColorJitter, RandomColorDegeneration, RandomSharpness,
RandomPosterization, RandomInvert, Solarization, AutoContrast and Equalization.

They follow Keras 3's formulas and `value_range` convention (the range the pixel values
live in, (0, 255) by default) and, like the geometric layers of
`kerasish.layers.preprocessing.augmentation`, act only in training (AutoContrast and
Equalization, deterministic, act always, as in Keras). One draw per image.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core import settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    clip_ops,
    conv_ops,
    creation_ops,
    cumulative_ops,
    image_ops,
    indexing_ops,
    math_ops,
    reduction_ops,
    shape_ops,
)
from kerasish.layers.preprocessing.augmentation import BaseImagePreprocessingLayer


def _value_range(layer: str, value_range, keep=False):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise InvalidArgumentError(f"{layer}: the `value_range` argument should be a list of "
                                   f"two numbers. Received: value_range={value_range}")
    return value_range if keep else sorted(value_range)


def _rescale(images, source, target):
    """Values of `images` mapped linearly from the range `source` to the range `target`."""
    if tuple(source) == tuple(target):
        return images
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return (images - source[0]) * scale + target[0]


class RandomContrast(BaseImagePreprocessingLayer):
    """Scale each image's deviation from its per-channel mean by a random factor, when
    training, and clip to `value_range`.

    As in Keras 3, `factor` f (or (a, b)) draws the contrast from [1 - a, 1 + b] with
    (a, b) = (0, f) for a number: RandomContrast(0.2) draws from [1, 1.2].

    Args:
        factor: a number in [0, 1] or two numbers (lower, upper).
        value_range: the range of the pixel values (default (0, 255)), for the clip.
        seed: an integer for a separate reproducible stream.
        **kwargs: `data_format` and the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomContrast((-0.5, 0.5), value_range=(0, 10))
        >>> layer(ks.constant([[[[2.0], [4.0]]]]))[0, 0, :, 0].numpy().tolist()
        [1.5, 4.5]
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, **kwargs)
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        contrast = self._uniform((batch, 1, 1, 1), 1.0 - self.factor[0], 1.0 + self.factor[1])
        mean = reduction_ops.reduce_mean(images, axis=(1, 2), keepdims=True)
        out = (images - mean) * math_ops.cast(contrast, images.dtype) + mean
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomBrightness(BaseImagePreprocessingLayer):
    """Add a random amount to each image, when training, and clip to `value_range`.

    Args:
        factor: f draws from [-f, f] of the value range's width (0.2 on (0, 255): up to
            +-51), (a, b) from [a, b]; in [-1, 1].
        value_range: the range of the pixel values (default (0, 255)).
        seed: an integer for a separate reproducible stream.
        **kwargs: `data_format` and the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomBrightness((0.5, 0.5), value_range=(0, 1))
        >>> layer(ks.constant([[[[0.25], [0.75]]]]))[0, 0, :, 0].numpy().tolist()
        [0.75, 1.0]
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, **kwargs)
        self.seed = seed
        self.value_range = _value_range("RandomBrightness", value_range)

    def augment(self, images, batch: int):
        delta = self._uniform((batch, 1, 1, 1), *self.factor)
        delta = delta * float(self.value_range[1] - self.value_range[0])
        out = images + math_ops.cast(delta, images.dtype)
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomGrayscale(BaseImagePreprocessingLayer):
    """Turn each image to grayscale (kept with its channels) with probability `factor`.

    Args:
        factor: the probability, in [0, 1] (default 0.5).
        data_format: 'channels_last' (default) or 'channels_first'.
        seed: an integer for a separate reproducible stream.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.RandomGrayscale(1.0)(ks.constant([[[[1.0, 0.0, 0.0]]]]))
        >>> out.numpy().astype("float64").round(4).tolist()
        [[[[0.2989, 0.2989, 0.2989]]]]
    """

    _USE_BASE_FACTOR = False

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if not 0 <= factor <= 1:
            raise InvalidArgumentError(
                f"RandomGrayscale: `factor` should be between 0 and 1. Received: "
                f"factor={factor}")
        self.factor = factor
        self.seed = seed

    def augment(self, images, batch: int):
        apply = self._uniform((batch, 1, 1, 1), 0.0, 1.0) < self.factor
        gray = image_ops.rgb_to_grayscale(images)
        return math_ops.where(apply, gray + creation_ops.zeros_like(images), images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}


def _rgb_images(layer: str, images):
    if images.shape[3] != 3:
        raise InvalidArgumentError(f"{layer}: expects RGB images (3 channels), got shape "
                                   f"{tuple(images.shape)}")


class RandomHue(BaseImagePreprocessingLayer):
    """Rotate each image's hue by a random amount, when training.

    Args:
        factor: f draws the shift from [0, f/2] of a full turn with a random sign, (a, b)
            from [a/2, b/2]; in [0, 1].
        value_range: the range of the pixel values (default (0, 255)).
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.RandomHue(0.5, value_range=(0, 1), seed=3)(ks.ones([1, 2, 2, 3]))
        >>> float(out.numpy().round(4).max())
        1.0
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        _rgb_images("RandomHue", images)
        invert = math_ops.where(self._uniform((batch,), 0.0, 1.0) > 0.5, -1.0, 1.0)
        shift = invert * self._uniform((batch,), *self.factor) * 0.5
        shift = shape_ops.reshape(math_ops.cast(shift, images.dtype), (batch, 1, 1))
        hsv = image_ops.rgb_to_hsv(_rescale(images, self.value_range, (0, 1)))
        hue = hsv[..., 0] + shift
        hue = math_ops.where(hue > 1.0, hue - 1.0, hue)
        hue = math_ops.where(hue < 0.0, hue + 1.0, hue)
        rgb = image_ops.hsv_to_rgb(shape_ops.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1))
        return _rescale(clip_ops.clip_by_value(rgb, 0.0, 1.0), (0, 1), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomSaturation(BaseImagePreprocessingLayer):
    """Scale each image's saturation by a random amount, when training.

    As Keras 3 does: a draw u from the factor's range becomes the multiplier
    u / (1 - u + epsilon), so 0.5 keeps the image, 0 removes the colour and 1 saturates it.

    Args:
        factor: a number f (draws from [-f, f], clipped as Keras) or (a, b); in [-1, 1].
        value_range: the range of the pixel values (default (0, 255)).
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.RandomSaturation((0.0, 0.0), value_range=(0, 1))(
        ...     ks.constant([[[[1.0, 0.0, 0.0]]]]))
        >>> out.numpy().tolist()
        [[[[1.0, 1.0, 1.0]]]]
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = _value_range("RandomSaturation", value_range)
        self.seed = seed

    def augment(self, images, batch: int):
        _rgb_images("RandomSaturation", images)
        u = self._uniform((batch,), *self.factor)
        scale = u / (1.0 - u + settings.epsilon())
        scale = shape_ops.reshape(math_ops.cast(scale, images.dtype), (batch, 1, 1))
        hsv = image_ops.rgb_to_hsv(images)
        saturation = clip_ops.clip_by_value(hsv[..., 1] * scale, self.value_range[0],
                                             self.value_range[1])
        return image_ops.hsv_to_rgb(shape_ops.stack([hsv[..., 0], saturation, hsv[..., 2]],
                                                    axis=-1))

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomColorJitter(BaseImagePreprocessingLayer):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn, each
    where its factor is given, when training.

    Args:
        value_range: the range of the pixel values (default (0, 255)).
        brightness_factor, contrast_factor, saturation_factor, hue_factor: the factors of
            those layers; None (default) skips one.
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> jitter = ks.layers.RandomColorJitter(brightness_factor=0.1, contrast_factor=0.1)
        >>> jitter(ks.ones([2, 4, 4, 3]) * 100.0).shape
        (2, 4, 4, 3)
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self.seed = seed
        self._steps = [kind(factor, value_range=value_range, seed=seed)
                       for kind, factor in ((RandomBrightness, brightness_factor),
                                            (RandomContrast, contrast_factor),
                                            (RandomSaturation, saturation_factor),
                                            (RandomHue, hue_factor)) if factor is not None]

    def augment(self, images, batch: int):
        for step in self._steps:
            images = step.augment(images, batch)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor,
                "seed": self.seed}


class RandomColorDegeneration(BaseImagePreprocessingLayer):
    """Blend each image towards its grayscale version by a random amount, when training.

    Args:
        factor: f draws the blend from [-f, f] (clipped as Keras), (a, b) from [a, b].
        value_range: the range of the pixel values (default (0, 255)), for the clip.
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.RandomColorDegeneration((1.0, 1.0), value_range=(0, 1))(
        ...     ks.constant([[[[1.0, 0.0, 0.0]]]]))
        >>> out.numpy().astype("float64").round(4).tolist()
        [[[[0.2989, 0.2989, 0.2989]]]]
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = _value_range("RandomColorDegeneration", value_range)
        self.seed = seed

    def augment(self, images, batch: int):
        blend = math_ops.cast(self._uniform((batch, 1, 1, 1), *self.factor), images.dtype)
        gray = image_ops.rgb_to_grayscale(images)
        out = images + blend * (gray - images)
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomSharpness(BaseImagePreprocessingLayer):
    """Sharpen or blur each image by a random amount, when training: a blend of the image
    with a 3x3 smoothing of it (weights 1/13 around 5/13), Keras's filter.

    Args:
        factor: f draws s from [0, f], (a, b) from [a, b], in [0, 1]; the result is
            image + (1 - 2 s) (smoothed - image), so 0.5 keeps the image.
        value_range: the range of the pixel values (default (0, 255)), for the clip.
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandomSharpness(0.5)(ks.ones([1, 4, 4, 3])).shape
        (1, 4, 4, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = _value_range("RandomSharpness", value_range)
        self.seed = seed

    def augment(self, images, batch: int):
        sharpness = math_ops.cast(self._uniform((batch, 1, 1, 1), *self.factor) * 2.0,
                                  images.dtype)
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = np.array([[a, a, a], [a, b, a], [a, a, a]], images.dtype)[:, :, None, None]
        kernel = np.tile(kernel, (1, 1, images.shape[3], 1))
        smoothed = conv_ops.depthwise_conv2d(images, kernel, padding="SAME")
        out = images + (1.0 - sharpness) * (smoothed - images)
        return clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range, "seed": self.seed}


class RandomPosterization(BaseImagePreprocessingLayer):
    """Keep only the top bits of each value (of 8) for a random number of bits, when
    training.

    Args:
        factor: the most bits kept: a number f draws from 1 to f - 1 bits, (a, b) from a
            to b - 1 (a == b: exactly a); in [1, 8].
        value_range: the range of the pixel values (default (0, 255)).
        data_format, seed, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomPosterization((1, 1))
        >>> layer(ks.constant([[[[100.0], [200.0]]]]))[0, 0, :, 0].numpy().tolist()
        [0.0, 128.0]
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (1, 8)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _value_range("RandomPosterization", value_range)
        self.seed = seed

    def augment(self, images, batch: int):
        low, high = self.factor
        if low != high:
            bits = math_ops.cast(ks_random.randint((batch,), int(low), int(high),
                                                   seed=self.seed), images.dtype)
        else:
            bits = creation_ops.fill((batch,), float(low))
        step = math_ops.cast(2.0 ** (8.0 - shape_ops.reshape(bits, (batch, 1, 1, 1))),
                             images.dtype)
        values = math_ops.floor(_rescale(images, self.value_range, (0, 255)))
        values = math_ops.floor(values / step) * step
        return _rescale(values, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range, "seed": self.seed}


class RandomInvert(BaseImagePreprocessingLayer):
    """Replace each image by value_range[1] - image with a random probability, when training.

    Args:
        factor: the probability is drawn from [0, f] (or [a, b]); in [0, 1], default 1.0.
        value_range: the range of the pixel values (default (0, 255)).
        seed, data_format, **kwargs: as in the other layers.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.RandomInvert((1.0, 1.0))
        >>> layer(ks.constant([[[[5.0]]]])).numpy().item()
        250.0
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self.seed = seed

    def augment(self, images, batch: int):
        probability = self._uniform((batch,), *self.factor)
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        return math_ops.where(shape_ops.reshape(apply, (batch, 1, 1, 1)),
                              self.value_range[1] - images, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range, "seed": self.seed}


def _zero_to_factor(layer: str, factor, name: str):
    message = (f"{layer}: the `addition_factor` and `threshold_factor` arguments should be a "
               f"number (or a list of two numbers) in the range [0, 1]. Received: "
               f"{name}={factor}")
    if isinstance(factor, (tuple, list)) and len(factor) == 2:
        if min(factor) < 0 or max(factor) > 1:
            raise InvalidArgumentError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if not 0 <= factor <= 1:
            raise InvalidArgumentError(message)
        return (0, factor)
    raise InvalidArgumentError(message)


class Solarization(BaseImagePreprocessingLayer):
    """Add a random amount, then invert the values above a random threshold, when training
    (Keras's formulas on the (0, 255) scale).

    Args:
        addition_factor: the addition is drawn from [a, b * 255] for (a, b) (a number f
            is (0, f)); in [0, 1].
        threshold_factor: the threshold likewise.
        value_range: the range of the pixel values (default (0, 255)).
        seed, **kwargs: as in the other layers (`data_format` included).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Solarization()  # a threshold of 0: every value inverted
        >>> layer(ks.constant([[[[10.0], [200.0]]]]))[0, 0, :, 0].numpy().tolist()
        [245.0, 55.0]
    """

    _USE_BASE_FACTOR = False

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.addition_factor = _zero_to_factor("Solarization", addition_factor,
                                               "addition_factor")
        self.threshold_factor = _zero_to_factor("Solarization", threshold_factor,
                                                "threshold_factor")
        self.value_range = _value_range("Solarization", value_range)

    def augment(self, images, batch: int):
        shape = (batch, 1, 1, 1)
        additions = self._uniform(shape, self.addition_factor[0],
                                  self.addition_factor[1] * 255)
        thresholds = self._uniform(shape, self.threshold_factor[0],
                                   self.threshold_factor[1] * 255)
        values = _rescale(images, self.value_range, (0, 255))
        values = clip_ops.clip_by_value(values + math_ops.cast(additions, images.dtype),
                                         0.0, 255.0)
        values = math_ops.where(values < math_ops.cast(thresholds, images.dtype), values,
                                255.0 - values)
        return _rescale(values, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "addition_factor": self.addition_factor,
                "threshold_factor": self.threshold_factor, "seed": self.seed}


class AutoContrast(BaseImagePreprocessingLayer):
    """Stretch each image's channels to fill `value_range` (Keras's AutoContrast; it acts
    at inference too, being deterministic). A flat channel is left as it was.

    Args:
        value_range: the range of the pixel values (default (0, 255)).
        **kwargs: `data_format` and the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.AutoContrast()(ks.constant([[[[50.0], [100.0]]]]))
        >>> out[0, 0, :, 0].numpy().tolist()
        [0.0, 255.0]
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = _value_range("AutoContrast", value_range)

    def call(self, inputs, training=None):
        return super().call(inputs, True)

    def augment(self, images, batch: int):
        values = _rescale(images, self.value_range, (0, 255))
        low = reduction_ops.reduce_min(values, axis=(1, 2), keepdims=True)
        high = reduction_ops.reduce_max(values, axis=(1, 2), keepdims=True)
        flat = high == low
        scale = 255.0 / math_ops.where(flat, creation_ops.ones_like(high), high - low)
        out = clip_ops.clip_by_value(values * scale - low * scale, 0.0, 255.0)
        return math_ops.where(flat, images, _rescale(out, (0, 255), self.value_range))

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range}


class Equalization(BaseImagePreprocessingLayer):
    """Histogram equalization of each channel (Keras's Equalization; deterministic, it acts
    at inference too). As in Keras, a channel's histogram is taken over the whole batch.

    Args:
        value_range: the range of the pixel values (default (0, 255)).
        bins: the number of histogram bins (default 256).
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> out = ks.layers.Equalization()(ks.constant([[[[10.0], [20.0], [20.0], [30.0]]]]))
        >>> out[0, 0, :, 0].numpy().tolist()
        [0.0, 170.0, 170.0, 255.0]
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = int(bins)
        self.value_range = _value_range("Equalization", value_range)

    def call(self, inputs, training=None):
        return super().call(inputs, True)

    def augment(self, images, batch: int):
        rescaled = tuple(self.value_range) != (0, 255)
        channels = []
        for c in range(images.shape[3]):
            channel = images[..., c]
            if rescaled:
                channel = _rescale(channel, self.value_range, (0, 255))
            channels.append(self._equalize(channel))
        out = shape_ops.stack(channels, axis=-1)
        return _rescale(out, (0, 255), self.value_range) if rescaled else out

    def _equalize(self, channel):
        bins = self.bins
        index = math_ops.cast(channel * ((bins - 1) / 255.0), np.int64)
        index = clip_ops.clip_by_value(shape_ops.reshape(index, (-1,)), 0, bins - 1)
        histogram = indexing_ops.unsorted_segment_sum(creation_ops.ones_like(index, np.float32),
                                                   index, bins)
        cdf = cumulative_ops.cumsum(histogram)
        cdf_min = reduction_ops.reduce_min(math_ops.where(cdf > 0, cdf, np.float32(np.inf)))
        denominator = cdf[-1] - cdf_min
        denominator = math_ops.where(denominator == 0, np.float32(1.0), denominator)
        table = clip_ops.clip_by_value(math_ops.round((cdf - cdf_min) * 255.0 / denominator),
                                        0.0, 255.0)
        lookup = math_ops.cast(clip_ops.clip_by_value(
            channel / 255.0 * (bins - 1), 0.0, bins - 1.0), np.int64)
        equalized = math_ops.cast(indexing_ops.gather(table, lookup), channel.dtype)
        used = reduction_ops.reduce_sum(math_ops.cast(histogram > 0, np.float32))
        return math_ops.where(used <= 1, channel, equalized)

    def get_config(self) -> dict:
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}
