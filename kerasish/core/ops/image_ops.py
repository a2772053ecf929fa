"""Image ops (Keras 3's `keras.ops.image`): resizing, crops and pads, colour conversions.

Images are (height, width, channels) or batches (batch, height, width, channels)
('channels_last'; 'channels_first' moves the channels before height and width).
Resizing is two matrix products with fixed interpolation matrices (TF's half-pixel
rule for 'bilinear' and 'nearest'), so gradients flow through it with no rule of its
own; the colour conversions are elementwise formulas of recorded ops. The
preprocessing layers (`Resizing`, `CenterCrop`, ...) compute with these.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, conv_ops, creation_ops, math_ops, shape_ops
from kerasish.core.tensor import Tensor, convert_to_tensor

INTERPOLATIONS = ("bilinear", "nearest")
_GRAY = (0.2989, 0.5870, 0.1140)  # Keras's (and TF's) luma weights


def resize_matrix(input_size: int, output_size: int, interpolation: str) -> np.ndarray:
    """The (output_size, input_size) matrix that resamples one image axis.

    Output cell i looks at the input at (i + 0.5) * input_size / output_size, the
    half-pixel rule of tf.image.resize: 'bilinear' mixes the two nearest cells
    (clamped at the edges) and 'nearest' takes the cell that point falls in.
    """
    scale = input_size / output_size
    rows = np.arange(output_size)
    matrix = np.zeros((output_size, input_size))
    if interpolation == "nearest":
        source = np.minimum(np.floor((rows + 0.5) * scale), input_size - 1).astype(np.int64)
        matrix[rows, source] = 1.0
        return matrix
    source = (rows + 0.5) * scale - 0.5
    lower = np.floor(source)
    fraction = source - lower
    below = np.clip(lower, 0, input_size - 1).astype(np.int64)
    above = np.clip(np.ceil(source), 0, input_size - 1).astype(np.int64)
    np.add.at(matrix, (rows, below), 1.0 - fraction)
    np.add.at(matrix, (rows, above), fraction)
    return matrix


def aspect_crop_box(height: int, width: int, target_height: int, target_width: int) -> tuple:
    """(top, left, crop_height, crop_width): the largest centred window with the target's
    aspect ratio (Keras's `smart_resize` rule, including its rounding)."""
    crop_height = max(min(height, int(width * target_height / target_width)), 1)
    crop_width = max(min(width, int(height * target_width / target_height)), 1)
    return int((height - crop_height) / 2), int((width - crop_width) / 2), crop_height, crop_width


def image_axes(shape, data_format: str, name: str = "image op") -> tuple:
    """(height axis, width axis) of an image (rank 3) or a batch of images (rank 4)."""
    if len(shape) not in (3, 4):
        raise InvalidArgumentError(
            f"{name}: expects an image of rank 3 (height, width, channels) or a batch of "
            f"rank 4, got shape {tuple(shape)}"
        )
    rows = (1 if len(shape) == 4 else 0) + (1 if data_format == "channels_first" else 0)
    return rows, rows + 1


def _data_format(data_format, name: str) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise InvalidArgumentError(f"{name}: data_format must be 'channels_last' or "
                                   f"'channels_first', got {data_format!r}")
    return data_format


def crop(images, top: int, left: int, height: int, width: int, data_format: str):
    """The window [top, top + height) x [left, left + width) of each image."""
    rows, cols = image_axes(images.shape, data_format)
    index = [slice(None)] * images.ndim
    index[rows] = slice(top, top + height)
    index[cols] = slice(left, left + width)
    return images[tuple(index)]


def resample(images, height: int, width: int, interpolation: str, data_format: str,
             dtype=None):
    """`images` resampled to (height, width) (integer images become `dtype`, float32)."""
    x = convert_to_tensor(images)
    rows, cols = image_axes(x.shape, data_format, "resize")
    if x.dtype.kind != "f":
        x = math_ops.cast(x, dtype or np.float32)
    device = backend.device_of(x._value)
    row_matrix, col_matrix = (
        Tensor(backend.to_device(resize_matrix(n, m, interpolation).astype(x.dtype), device))
        for n, m in ((x.shape[rows], height), (x.shape[cols], width))
    )
    # move height and width last, resample both with one matmul each, move them back
    order = [d for d in range(x.ndim) if d not in (rows, cols)] + [rows, cols]
    planes = shape_ops.transpose(x, order)
    planes = math_ops.matmul(math_ops.matmul(row_matrix, planes), col_matrix, transpose_b=True)
    return shape_ops.transpose(planes, list(np.argsort(order)))


def resize(images, size, interpolation: str = "bilinear", antialias: bool = False,
           crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
           fill_mode: str = "constant", fill_value: float = 0.0, data_format=None):
    """Resize images to `size` = (height, width) (Keras 3's `ops.image.resize`).

    Args:
        images: an image or a batch of images.
        size: the (height, width) of the result.
        interpolation: 'bilinear' or 'nearest' (TF's half-pixel rule).
        antialias: must be False (no antialiasing filter here).
        crop_to_aspect_ratio: first crop the largest centred window of the target's aspect.
        pad_to_aspect_ratio: first pad (with `fill_value`) to the target's aspect.
        fill_mode: 'constant' (the padding's only mode).
        fill_value: the padding's value.
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        The resized images (float; integer images become float32).

    Raises:
        InvalidArgumentError: an unknown interpolation, a size that is not two positive
            integers, both aspect options at once.
        NotImplementedError: antialias=True.

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.resize(ks.ones([4, 6, 3]), (2, 3)).shape
        (2, 3, 3)
    """
    data_format = _data_format(data_format, "resize")
    if interpolation not in INTERPOLATIONS:
        raise InvalidArgumentError(f"resize: interpolation must be one of {INTERPOLATIONS}, "
                                   f"got {interpolation!r}")
    if antialias:
        raise NotImplementedError("resize: antialias=True is not available in kerasish")
    if len(size) != 2 or any(int(s) != s or s < 1 for s in size):
        raise InvalidArgumentError(f"resize: size must be (height, width), positive integers, "
                                   f"got {size!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise InvalidArgumentError("resize: crop_to_aspect_ratio and pad_to_aspect_ratio "
                                   "cannot both be set")
    if fill_mode != "constant":
        raise InvalidArgumentError(f"resize: fill_mode must be 'constant', got {fill_mode!r}")
    height, width = (int(s) for s in size)
    x = convert_to_tensor(images)
    rows, cols = image_axes(x.shape, data_format, "resize")
    if crop_to_aspect_ratio:
        x = crop(x, *aspect_crop_box(x.shape[rows], x.shape[cols], height, width), data_format)
    elif pad_to_aspect_ratio:  # Keras's rule: the same band on both sides of one axis
        h, w = x.shape[rows], x.shape[cols]
        top = int((max(h, int(w * height / width)) - h) / 2)
        left = 0 if top else int((max(w, int(h * width / height)) - w) / 2)
        x = pad(x, top, left, top, left, data_format, fill_value)
    return resample(x, height, width, interpolation, data_format)


def pad(images, top: int, left: int, bottom: int, right: int, data_format: str,
        value: float = 0.0):
    """Each image with rows and columns of `value` added around it."""
    rows, cols = image_axes(images.shape, data_format)
    pads = [(0, 0)] * images.ndim
    pads[rows], pads[cols] = (top, bottom), (left, right)
    return shape_ops.pad(images, pads, constant_values=value)


def _sides(name: str, size: int, first, last, target, words: tuple) -> tuple:
    """(first, last) amounts along one axis from two of (first, last, target size)."""
    given = [v is not None for v in (first, last, target)]
    if sum(given) != 2:
        raise InvalidArgumentError(
            f"{name}: give exactly two of {words[0]}, {words[1]} and {words[2]} (got "
            f"{first!r}, {last!r}, {target!r})")
    if target is None:
        return int(first), int(last)
    if first is None:
        return abs(size - int(target)) - int(last), int(last)
    return int(first), abs(size - int(target)) - int(first)


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crop images given two of (top, bottom, target height) and of (left, right, width).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.crop_images(ks.ones([5, 6, 1]), top_cropping=1, left_cropping=2,
        ...                          target_height=3, target_width=3).shape
        (3, 3, 1)
    """
    data_format = _data_format(data_format, "crop_images")
    x = convert_to_tensor(images)
    rows, cols = image_axes(x.shape, data_format, "crop_images")
    top, bottom = _sides("crop_images", x.shape[rows], top_cropping, bottom_cropping,
                         target_height, ("top_cropping", "bottom_cropping", "target_height"))
    left, right = _sides("crop_images", x.shape[cols], left_cropping, right_cropping,
                         target_width, ("left_cropping", "right_cropping", "target_width"))
    height, width = x.shape[rows] - top - bottom, x.shape[cols] - left - right
    if min(top, bottom, left, right) < 0 or height < 1 or width < 1:
        raise InvalidArgumentError(
            f"crop_images: cropping ({top}, {bottom}) x ({left}, {right}) does not fit images "
            f"of height {x.shape[rows]} and width {x.shape[cols]}")
    return crop(x, top, left, height, width, data_format)


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Pad images with zeros given two of (top, bottom, target height) and of (left, right,
    target width).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.pad_images(ks.ones([2, 2, 1]), 1, 0, target_height=5,
        ...                         target_width=3).shape
        (5, 3, 1)
    """
    data_format = _data_format(data_format, "pad_images")
    x = convert_to_tensor(images)
    rows, cols = image_axes(x.shape, data_format, "pad_images")
    top, bottom = _sides("pad_images", x.shape[rows], top_padding, bottom_padding,
                         target_height, ("top_padding", "bottom_padding", "target_height"))
    left, right = _sides("pad_images", x.shape[cols], left_padding, right_padding,
                         target_width, ("left_padding", "right_padding", "target_width"))
    if min(top, bottom, left, right) < 0:
        raise InvalidArgumentError(
            f"pad_images: padding ({top}, {bottom}) x ({left}, {right}) is negative for "
            f"images of height {x.shape[rows]} and width {x.shape[cols]}")
    return pad(x, top, left, bottom, right, data_format)


def _channels(x: Tensor, data_format: str, name: str):
    axis = -1 if data_format == "channels_last" else (0 if x.ndim == 3 else 1)
    if x.shape[axis] != 3:
        raise InvalidArgumentError(f"{name}: expects 3 channels (RGB or HSV), got shape "
                                   f"{x.shape}")
    return axis, shape_ops.split(x, 3, axis=axis)


def rgb_to_grayscale(images, data_format=None):
    """0.2989 R + 0.5870 G + 0.1140 B, keeping a channel axis of size 1.

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.rgb_to_grayscale(ks.ones([2, 2, 3])).shape
        (2, 2, 1)
    """
    data_format = _data_format(data_format, "rgb_to_grayscale")
    x = convert_to_tensor(images)
    if x.dtype.kind != "f":
        x = math_ops.cast(x, np.float32)
    _, (r, g, b) = _channels(x, data_format, "rgb_to_grayscale")
    return r * _GRAY[0] + g * _GRAY[1] + b * _GRAY[2]


def rgb_to_hsv(images, data_format=None):
    """RGB values in [0, 1] to hue, saturation and value, each in [0, 1] (TF's formulas).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.rgb_to_hsv(ks.constant([[[1.0, 0.0, 0.0]]])).numpy().tolist()
        [[[0.0, 1.0, 1.0]]]
    """
    data_format = _data_format(data_format, "rgb_to_hsv")
    x = convert_to_tensor(images)
    axis, (r, g, b) = _channels(x, data_format, "rgb_to_hsv")
    value = math_ops.maximum(math_ops.maximum(r, g), b)
    spread = value - math_ops.minimum(math_ops.minimum(r, g), b)
    safe = math_ops.where(spread > 0, spread, creation_ops.ones_like(spread))
    saturation = math_ops.where(value > 0, spread / math_ops.where(
        value > 0, value, creation_ops.ones_like(value)), creation_ops.zeros_like(value))
    hue = math_ops.where(
        value == r, (g - b) / safe,
        math_ops.where(value == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0)) / 6.0
    hue = math_ops.where(spread > 0, hue - math_ops.floor(hue), creation_ops.zeros_like(hue))
    return shape_ops.concat([hue, saturation, value], axis)


def hsv_to_rgb(images, data_format=None):
    """Hue, saturation and value in [0, 1] back to RGB (TF's formulas).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.hsv_to_rgb(ks.constant([[[0.0, 1.0, 1.0]]])).numpy().tolist()
        [[[1.0, 0.0, 0.0]]]
    """
    data_format = _data_format(data_format, "hsv_to_rgb")
    x = convert_to_tensor(images)
    axis, (h, s, v) = _channels(x, data_format, "hsv_to_rgb")
    # each channel n: v - v s clip(min(k, 4 - k), 0, 1), k = (n + 6 h) mod 6, n = 5, 3, 1
    out = []
    for n in (5.0, 3.0, 1.0):
        k = math_ops.floormod(h * 6.0 + n, 6.0)
        weight = clip_ops.clip_by_value(math_ops.minimum(k, 4.0 - k), 0.0, 1.0)
        out.append(v - v * s * weight)
    return shape_ops.concat(out, axis)


def extract_patches(images, size, strides=None, dilation_rate=1, padding: str = "valid",
                    data_format=None):
    """Each window of `size` (an int or (height, width)) as one vector: (..., out_height,
    out_width, height * width * channels) (Keras 3's `ops.image.extract_patches`).

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.extract_patches(ks.ones([1, 4, 4, 3]), 2).shape
        (1, 2, 2, 12)
    """
    data_format = _data_format(data_format, "extract_patches")
    x = convert_to_tensor(images)
    single = x.ndim == 3
    if single:
        x = shape_ops.expand_dims(x, 0)
    if data_format == "channels_first":
        x = shape_ops.transpose(x, (0, 2, 3, 1))
    size = (size, size) if isinstance(size, int) else tuple(size)
    patches = conv_ops.extract_patches(x, size, size if strides is None else strides,
                                     str(padding).upper(), dilations=dilation_rate)
    n, height, width = patches.shape[:3]
    out = shape_ops.reshape(patches, (n, height, width, -1))
    if data_format == "channels_first":
        out = shape_ops.transpose(out, (0, 3, 1, 2))
    return out[0] if single else out
