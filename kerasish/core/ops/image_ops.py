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
from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import (
    clip_ops,
    conv_ops,
    creation_ops,
    indexing_ops,
    linalg_ops,
    math_ops,
    reduction_ops,
    shape_ops,
)
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


# ------------------------------------------------------------ sampling at coordinates

FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
AFFINE_INTERPOLATIONS = {"nearest": 0, "bilinear": 1}


def _fold(index: Tensor, size: int, fill_mode: str):
    """(in-range integer index, mask of the indices inside or None) for float `index`.

    The modes are NumPy's padding modes: 'nearest' repeats the edge (`edge`), 'wrap'
    repeats the image, 'mirror' reflects about the edge pixel (d c b | a b c d | c b a,
    np.pad's 'reflect'), 'reflect' reflects about the edge (d c b a | a b c d | d c b a,
    'symmetric'); 'constant' marks the outside so the caller puts `fill_value` there.
    """
    last = float(size - 1)
    valid = None
    if fill_mode == "constant":
        valid = math_ops.logical_and(math_ops.greater_equal(index, 0.0),
                                     math_ops.less_equal(index, last))
        index = clip_ops.clip_by_value(index, 0.0, last)
    elif fill_mode == "nearest":
        index = clip_ops.clip_by_value(index, 0.0, last)
    elif fill_mode == "wrap":
        index = math_ops.floormod(index, float(size))
    elif fill_mode == "mirror":
        if size == 1:
            index = creation_ops.zeros_like(index)
        else:
            period = 2.0 * last
            index = math_ops.floormod(index, period)
            index = math_ops.where(index > last, period - index, index)
    else:  # reflect
        period = 2.0 * size
        index = math_ops.floormod(index, period)
        index = math_ops.where(index > last, period - 1.0 - index, index)
    return math_ops.cast(index, np.int64), valid


def _interpolate(params: Tensor, coordinates: list, sizes: tuple, order: int, fill_mode: str,
                 fill_value, base=None) -> Tensor:
    """Sample `params` (prod(sizes) rows of shape `params.shape[1:]`) at fractional
    `coordinates` (one float tensor per axis of `sizes`, all of one shape S).

    Order 0 takes the nearest cell, order 1 mixes the 2**d neighbouring cells (multilinear);
    `base` (integers of shape S) is added to the flat row index (a batch's offset). The
    result has shape S + params.shape[1:]. Every step is a recorded op, so gradients reach
    `params` and, through the mixing weights, the coordinates.
    """
    strides = [int(np.prod(sizes[k + 1:])) for k in range(len(sizes))]
    shape = tuple(coordinates[0].shape)
    trailing = tuple(params.shape[1:])
    if order == 0:
        corners = [[(math_ops.floor(c + 0.5), None) for c in coordinates]]
    else:
        lows = [creation_ops.stop_gradient(math_ops.floor(c)) for c in coordinates]
        fractions = [c - low for c, low in zip(coordinates, lows)]
        corners = [[]]
        for low, fraction in zip(lows, fractions):
            corners = [corner + [choice] for corner in corners for choice in (
                (low, 1.0 - fraction), (low + 1.0, fraction))]
    total = None
    for corner in corners:
        flat = base
        weight = None
        valid = None
        for (index, w), size, stride in zip(corner, sizes, strides):
            folded, inside = _fold(index, size, fill_mode)
            term = folded * stride if stride != 1 else folded
            flat = term if flat is None else flat + term
            if w is not None:
                weight = w if weight is None else weight * w
            if inside is not None:
                valid = inside if valid is None else math_ops.logical_and(valid, inside)
        values = shape_ops.reshape(indexing_ops.gather(params, shape_ops.reshape(flat, (-1,))),
                                   shape + trailing)
        if valid is not None:
            mask = shape_ops.reshape(valid, shape + (1,) * len(trailing))
            values = math_ops.where(mask, values, math_ops.cast(fill_value, values.dtype))
        if weight is not None:
            values = values * shape_ops.reshape(weight, shape + (1,) * len(trailing))
        total = values if total is None else total + values
    return total


def _check_fill(name: str, fill_mode: str, modes=FILL_MODES) -> None:
    if fill_mode not in modes:
        raise InvalidArgumentError(f"{name}: fill_mode must be one of {modes}, got "
                                   f"{fill_mode!r}")


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """The values of `inputs` at fractional `coordinates` (Keras 3's `ops.image.map_coordinates`,
    SciPy's `ndimage.map_coordinates` with order 0 or 1).

    Args:
        inputs: an array of any rank d.
        coordinates: shape (d, ...): coordinates[k] is the position along axis k of each
            output point.
        order: 0 (the nearest cell) or 1 (linear mixing of the neighbouring cells).
        fill_mode: how points outside are read: 'constant' (`fill_value`), 'nearest' (the
            edge), 'wrap', 'mirror' (about the edge cell) or 'reflect' (about the edge).
        fill_value: the value outside for 'constant'.

    Returns:
        Shape coordinates.shape[1:], in the float dtype of `inputs` (float32 for integers).
        Differentiable with respect to `inputs` and (for order 1) `coordinates`.

    Raises:
        InvalidArgumentError: coordinates whose first axis is not the rank of `inputs`, an
            order other than 0 or 1, an unknown fill_mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([[0.0, 1.0], [2.0, 3.0]])
        >>> ks.ops.image.map_coordinates(x, [[0.5], [0.5]], order=1).numpy().tolist()
        [1.5]
    """
    x = convert_to_tensor(inputs)
    if x.dtype.kind != "f":
        x = math_ops.cast(x, np.float32)
    coords = convert_to_tensor(coordinates)
    if coords.ndim < 2 or coords.shape[0] != x.ndim:
        raise InvalidArgumentError(
            f"map_coordinates: coordinates must have shape (rank of inputs = {x.ndim}, ...), "
            f"got {tuple(coords.shape)}")
    if order not in (0, 1):
        raise InvalidArgumentError(f"map_coordinates: order must be 0 or 1, got {order!r}")
    _check_fill("map_coordinates", fill_mode)
    coords = math_ops.cast(coords, x.dtype)
    axes = [coords[k] for k in range(x.ndim)]
    return _interpolate(shape_ops.reshape(x, (-1,)), axes, tuple(x.shape), order, fill_mode,
                        fill_value)


def _batched(x: Tensor, data_format: str, name: str):
    """(images as a (batch, height, width, channels) tensor, function undoing that)."""
    image_axes(x.shape, data_format, name)
    single = x.ndim == 3
    if single:
        x = shape_ops.expand_dims(x, 0)
    if data_format == "channels_first":
        x = shape_ops.transpose(x, (0, 2, 3, 1))

    def restore(y):
        if data_format == "channels_first":
            y = shape_ops.transpose(y, (0, 3, 1, 2))
        return y[0] if single else y
    return x, restore


def _float_images(images):
    x = convert_to_tensor(images)
    return x if x.dtype.kind == "f" else math_ops.cast(x, np.float32)


def _projective_sample(x: Tensor, transform: Tensor, interpolation: str, fill_mode: str,
                       fill_value) -> Tensor:
    """Output pixel (y, x) of each image n of `x` (NHWC) read at ((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, from its row [a0 a1 a2 b0 b1 b2 c0 c1]."""
    n, height, width, _ = x.shape
    transform = math_ops.cast(transform, x.dtype)
    if transform.ndim == 1:
        transform = shape_ops.expand_dims(transform, 0)
    if transform.shape[0] == 1 and n > 1:
        transform = shape_ops.tile(transform, (n, 1))
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    device = backend.device_of(x._value)
    grid_x, grid_y = (Tensor(backend.to_device(g.astype(x.dtype)[None], device))
                      for g in (cols, rows))
    a0, a1, a2, b0, b1, b2, c0, c1 = (shape_ops.reshape(t, (n, 1, 1))
                                      for t in shape_ops.split(transform, 8, axis=1))
    k = c0 * grid_x + c1 * grid_y + 1.0
    source_x = (a0 * grid_x + a1 * grid_y + a2) / k
    source_y = (b0 * grid_x + b1 * grid_y + b2) / k
    base = Tensor(backend.to_device(
        np.broadcast_to((np.arange(n) * height * width)[:, None, None],
                        (n, height, width)).astype(np.int64), device))
    params = shape_ops.reshape(x, (n * height * width, x.shape[3]))
    return _interpolate(params, [source_y, source_x], (height, width),
                        AFFINE_INTERPOLATIONS[interpolation], fill_mode, fill_value, base)


def _check_interpolation(name: str, interpolation: str) -> None:
    if interpolation not in AFFINE_INTERPOLATIONS:
        raise InvalidArgumentError(f"{name}: interpolation must be one of "
                                   f"{tuple(AFFINE_INTERPOLATIONS)}, got {interpolation!r}")


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Images resampled through projective transforms (Keras 3's `ops.image.affine_transform`).

    Output pixel (x, y) reads the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k),
    k = c0 x + c1 y + 1, where a transform is [a0, a1, a2, b0, b1, b2, c0, c1] (the
    convention of TF's `ImageProjectiveTransform` and Keras). The random rotation, zoom,
    translation and shear layers build such transforms.

    Args:
        images: an image (height, width, channels) or a batch of them.
        transform: one transform (8 numbers) for all images, or one per image (batch, 8).
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_mode: 'constant' (default), 'nearest', 'wrap', 'mirror' or 'reflect' (see
            `map_coordinates`).
        fill_value: the value outside the image for 'constant'.
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        The transformed images, float (integer images become float32). Differentiable with
        respect to the images and the transform.

    Raises:
        InvalidArgumentError: an unknown interpolation or fill_mode, images not of rank 3
            or 4, a transform not of shape (8,) or (batch, 8).

    Example:
        >>> import kerasish as ks
        >>> shift = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]  # read one pixel to the right
        >>> x = ks.constant([[[1.0], [2.0], [3.0]]])
        >>> ks.ops.image.affine_transform(x, shift)[..., 0].numpy().tolist()
        [[2.0, 3.0, 0.0]]
    """
    data_format = _data_format(data_format, "affine_transform")
    _check_interpolation("affine_transform", interpolation)
    _check_fill("affine_transform", fill_mode)
    x, restore = _batched(_float_images(images), data_format, "affine_transform")
    transform = convert_to_tensor(transform)
    if transform.ndim not in (1, 2) or transform.shape[-1] != 8 or (
            transform.ndim == 2 and transform.shape[0] not in (1, x.shape[0])):
        raise InvalidArgumentError(
            f"affine_transform: transform must have shape (8,) or (batch, 8) with batch "
            f"{x.shape[0]}, got {tuple(transform.shape)}")
    return restore(_projective_sample(x, transform, interpolation, fill_mode, fill_value))


def _homography(start_points, end_points, dtype) -> Tensor:
    """The transforms (batch, 8) taking each end point to its start point (solved exactly)."""
    start = math_ops.cast(convert_to_tensor(start_points), dtype)
    end = math_ops.cast(convert_to_tensor(end_points), dtype)
    zeros = creation_ops.zeros_like(end[:, 0, 0])
    ones = creation_ops.ones_like(zeros)
    rows, targets = [], []
    for i in range(4):
        ex, ey, sx, sy = end[:, i, 0], end[:, i, 1], start[:, i, 0], start[:, i, 1]
        rows.append(shape_ops.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], 1))
        rows.append(shape_ops.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], 1))
        targets += [sx, sy]
    matrix = shape_ops.stack(rows, 1)
    target = shape_ops.expand_dims(shape_ops.stack(targets, 1), -1)
    return shape_ops.reshape(linalg_ops.solve(matrix, target), (-1, 8))


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Warp images so that the four `start_points` move to the four `end_points`
    (Keras 3's `ops.image.perspective_transform`).

    Args:
        images: an image or a batch of images.
        start_points: (4, 2) or (batch, 4, 2) (x, y) corners in the input.
        end_points: where those corners land in the output, of the same shape.
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_value: the value where the output reads outside the input.
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        The warped images, float. Differentiable with respect to images and points.

    Raises:
        InvalidArgumentError: points not of shape (4, 2) or (batch, 4, 2), or of different
            shapes; an unknown interpolation.

    Example:
        >>> import kerasish as ks
        >>> corners = [[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]]
        >>> out = ks.ops.image.perspective_transform(ks.ones([4, 4, 1]), corners, corners)
        >>> float(out.numpy().min())
        1.0
    """
    data_format = _data_format(data_format, "perspective_transform")
    _check_interpolation("perspective_transform", interpolation)
    x, restore = _batched(_float_images(images), data_format, "perspective_transform")
    start, end = convert_to_tensor(start_points), convert_to_tensor(end_points)
    for what, points in (("start_points", start), ("end_points", end)):
        if points.ndim not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
            raise InvalidArgumentError(
                f"perspective_transform: {what} must have shape (4, 2) or (batch, 4, 2), got "
                f"{tuple(points.shape)}")
    if tuple(start.shape) != tuple(end.shape):
        raise InvalidArgumentError(
            f"perspective_transform: start_points and end_points must have one shape, got "
            f"{tuple(start.shape)} and {tuple(end.shape)}")
    if start.ndim == 2:
        start, end = shape_ops.expand_dims(start, 0), shape_ops.expand_dims(end, 0)
    transform = _homography(start, end, np.float64 if x.dtype == np.float64 else np.float32)
    return restore(_projective_sample(x, transform, interpolation, "constant", fill_value))


def _gaussian_kernel(size: int, sigma, dtype) -> Tensor:
    position = convert_to_tensor(np.arange(size, dtype=dtype) - (size - 1) / 2)
    weights = math_ops.exp(-0.5 * math_ops.square(position / math_ops.cast(sigma, dtype)))
    return weights / reduction_ops.reduce_sum(weights)


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Blur images with a Gaussian kernel, zeros outside (Keras 3's `ops.image.gaussian_blur`).

    As in Keras, the kernel's width comes from kernel_size[0] and sigma[0], its height
    from kernel_size[1] and sigma[1].

    Args:
        images: an image or a batch of images.
        kernel_size: (two) odd or even positive integers.
        sigma: the two standard deviations (numbers or scalar tensors).
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        The blurred images, float. Differentiable with respect to images and sigma.

    Raises:
        InvalidArgumentError: kernel_size or sigma not two values.

    Example:
        >>> import kerasish as ks
        >>> out = ks.ops.image.gaussian_blur(ks.ones([5, 5, 1]))
        >>> round(float(out[2, 2, 0]), 4)
        1.0
    """
    data_format = _data_format(data_format, "gaussian_blur")
    x, restore = _batched(_float_images(images), data_format, "gaussian_blur")
    sizes = [int(s) for s in np.ravel(kernel_size)]
    sigmas = sigma if isinstance(sigma, (list, tuple)) else [sigma[i] for i in range(2)] \
        if isinstance(sigma, Tensor) and sigma.ndim == 1 else None
    if len(sizes) != 2 or min(sizes) < 1 or sigmas is None or len(sigmas) != 2:
        raise InvalidArgumentError(
            f"gaussian_blur: kernel_size and sigma must be two values each, got "
            f"{kernel_size!r} and {sigma!r}")
    across = _gaussian_kernel(sizes[0], sigmas[0], x.dtype)
    down = _gaussian_kernel(sizes[1], sigmas[1], x.dtype)
    kernel = shape_ops.expand_dims(down, 1) * shape_ops.expand_dims(across, 0)
    channels = x.shape[3]
    kernel = shape_ops.tile(shape_ops.reshape(kernel, (sizes[1], sizes[0], 1, 1)),
                            (1, 1, channels, 1))
    kh, kw = sizes[1], sizes[0]
    padded = shape_ops.pad(x, [(0, 0), ((kh - 1) // 2, kh - 1 - (kh - 1) // 2),
                               ((kw - 1) // 2, kw - 1 - (kw - 1) // 2), (0, 0)])
    return restore(conv_ops.depthwise_conv2d(padded, kernel, padding="VALID"))


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Warp images by a smooth random displacement field (Keras 3's
    `ops.image.elastic_transform`).

    Each image draws two Gaussian fields (x and y), times `sigma`, blurred by a Gaussian of
    that sigma (kernel int(6 sigma) | 1), scaled by `alpha`; output pixel (x, y) reads the
    input at (x + alpha dx, y + alpha dy). The draws come from `ks.random` (`seed`: an
    integer stream, a SeedGenerator or None), so they repeat after `ks.random.set_seed`.

    Args:
        images: an image or a batch of images.
        alpha: the displacement's scale (pixels).
        sigma: the field's smoothness (pixels).
        interpolation: 'bilinear' (default) or 'nearest'.
        fill_mode: 'reflect' (default), 'constant', 'nearest', 'wrap' or 'mirror'.
        fill_value: the value outside for 'constant'.
        seed: the random stream.
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        The warped images, float; differentiable with respect to the images.

    Raises:
        InvalidArgumentError: an unknown interpolation or fill_mode, a rank other than 3 or 4.

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.elastic_transform(ks.ones([8, 8, 1]), seed=1).shape
        (8, 8, 1)
    """
    data_format = _data_format(data_format, "elastic_transform")
    _check_interpolation("elastic_transform", interpolation)
    _check_fill("elastic_transform", fill_mode)
    x, restore = _batched(_float_images(images), data_format, "elastic_transform")
    n, height, width, _ = x.shape
    size = int(6 * float(sigma)) | 1
    fields = ks_random.normal((n, height, width, 2), dtype=x.dtype, seed=seed) * sigma
    fields = gaussian_blur(fields, (size, size), (sigma, sigma)) * alpha
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    device = backend.device_of(x._value)
    grid_y, grid_x = (Tensor(backend.to_device(g.astype(x.dtype)[None], device))
                      for g in (rows, cols))
    base = Tensor(backend.to_device(
        np.broadcast_to((np.arange(n) * height * width)[:, None, None],
                        (n, height, width)).astype(np.int64), device))
    params = shape_ops.reshape(x, (n * height * width, x.shape[3]))
    out = _interpolate(params, [grid_y + fields[..., 1], grid_x + fields[..., 0]],
                       (height, width), AFFINE_INTERPOLATIONS[interpolation], fill_mode,
                       fill_value, base)
    return restore(out)


def sobel_edges(images, data_format=None):
    """The Sobel derivatives of each channel: (..., channels, 2), [..., 0] along the height
    (y) and [..., 1] along the width (x), the edges reflected (Keras 3's
    `ops.image.sobel_edges`, SciPy's `ndimage.sobel`).

    Args:
        images: a batch of images (rank 4).
        data_format: 'channels_last' (default) or 'channels_first'.

    Returns:
        Shape (batch, height, width, channels, 2) (channels_first: (batch, channels,
        height, width, 2)); differentiable.

    Raises:
        InvalidArgumentError: images not of rank 4.

    Example:
        >>> import kerasish as ks
        >>> ramp = ks.reshape(ks.range(4.0), [1, 1, 4, 1]) * ks.ones([1, 3, 1, 1])
        >>> ks.ops.image.sobel_edges(ramp)[0, 1, 1, 0].numpy().tolist()
        [0.0, 8.0]
    """
    data_format = _data_format(data_format, "sobel_edges")
    x = _float_images(images)
    if x.ndim != 4:
        raise InvalidArgumentError(f"sobel_edges: expects a batch of images (rank 4), got "
                                   f"shape {tuple(x.shape)}")
    if data_format == "channels_first":
        x = shape_ops.transpose(x, (0, 2, 3, 1))
    channels = x.shape[3]
    padded = shape_ops.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="SYMMETRIC")
    smooth, slope = np.array([1.0, 2.0, 1.0]), np.array([-1.0, 0.0, 1.0])
    edges = []
    for kernel in (np.outer(slope, smooth), np.outer(smooth, slope)):  # d/dy, d/dx
        weights = np.tile(kernel.astype(x.dtype)[:, :, None, None], (1, 1, channels, 1))
        edges.append(conv_ops.depthwise_conv2d(padded, weights, padding="VALID"))
    out = shape_ops.stack(edges, axis=-1)
    if data_format == "channels_first":
        out = shape_ops.transpose(out, (0, 3, 1, 2, 4))
    return out


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding: str = "valid",
                       data_format=None):
    """Each window of `size` (an int or (depth, height, width)) of a volume as one vector:
    (..., out_depth, out_height, out_width, depth * height * width * channels), entries
    ordered depth, row, column, channel (Keras 3's `ops.image.extract_patches_3d`).

    Args:
        volumes: (batch, depth, height, width, channels) or one volume without the batch
            axis (channels first with `data_format`).
        size: the window: an int or three.
        strides: the step: an int or three (None: `size`).
        dilation_rate: the spacing of a window's cells: an int or three.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        The patches, batched as `volumes` (channels first: the patch vector on axis 1).

    Raises:
        InvalidArgumentError: `volumes` is not of rank 4 or 5, or a size is malformed.

    Example:
        >>> import kerasish as ks
        >>> ks.ops.image.extract_patches_3d(ks.ones([1, 4, 4, 4, 3]), 2).shape
        (1, 2, 2, 2, 24)
    """
    data_format = _data_format(data_format, "extract_patches_3d")
    x = convert_to_tensor(volumes)
    if x.ndim not in (4, 5):
        raise InvalidArgumentError(
            f"extract_patches_3d: needs a volume (rank 4) or a batch of them (rank 5), got "
            f"shape {x.shape}")
    single = x.ndim == 4
    if single:
        x = shape_ops.expand_dims(x, 0)
    if data_format == "channels_first":
        x = shape_ops.transpose(x, (0, 2, 3, 4, 1))
    patches = conv_ops.extract_volume_patches(x, size, size if strides is None else strides,
                                              str(padding).upper(), dilations=dilation_rate)
    out = shape_ops.reshape(patches, tuple(patches.shape[:4]) + (-1,))
    if data_format == "channels_first":
        out = shape_ops.transpose(out, (0, 4, 1, 2, 3))
    return out[0] if single else out


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return np.where(x >= 2.0, 0.0, out)


def _lanczos(radius):
    def kernel(x):
        y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(x > 1e-3, y / np.where(x != 0, np.pi ** 2 * x ** 2, 1.0), 1.0)
        return np.where(x > radius, 0.0, out)
    return kernel


SCALE_AND_TRANSLATE_KERNELS = {
    "linear": _triangle, "bilinear": _triangle, "trilinear": _triangle, "triangle": _triangle,
    "cubic": _keys_cubic, "bicubic": _keys_cubic, "tricubic": _keys_cubic,
    "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0),
}


def scale_weights(input_size: int, output_size: int, scale: float, translation: float,
                  kernel, antialias: bool) -> np.ndarray:
    """The (input_size, output_size) matrix of `scale_and_translate` along one axis: output
    cell j samples input position (j + 0.5 - translation) / scale - 0.5 with `kernel`
    (stretched by 1 / scale when downsampling with `antialias`), weights normalized to sum
    1, zero for samples outside the input."""
    inv_scale = 1.0 / scale
    stretch = max(inv_scale, 1.0) if antialias else 1.0
    sample = (np.arange(output_size) + 0.5) * inv_scale - translation * inv_scale - 0.5
    weights = kernel(np.abs(sample[None, :] - np.arange(input_size)[:, None]) / stretch)
    total = weights.sum(axis=0, keepdims=True)
    weights = np.where(np.abs(total) > 1000.0 * np.finfo(np.float32).eps,
                       weights / np.where(total != 0, total, 1.0), 0.0)
    inside = (sample >= -0.5) & (sample <= input_size - 0.5)
    return np.where(inside[None, :], weights, 0.0)


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """Resample `images` along `spatial_dims` to `output_shape`, scaling each by `scale`
    and shifting by `translation` (JAX's `image.scale_and_translate`): a product with one
    fixed weight matrix per axis, so gradients flow to `images` (not to `scale` or
    `translation`, which fix the matrices).

    Args:
        images: a tensor of any rank.
        output_shape: the full output shape (axes not in `spatial_dims` keep their size).
        scale: one factor per spatial axis.
        translation: one shift per spatial axis, in output pixels.
        spatial_dims: the axes resampled.
        method: 'linear' (also 'bilinear', 'trilinear', 'triangle'), 'cubic' ('bicubic',
            'tricubic'), 'lanczos3' or 'lanczos5'.
        antialias: widen the kernel when downsampling.

    Returns:
        The resampled tensor (integer input: rounded and clipped to its range, its dtype).

    Raises:
        InvalidArgumentError: an unknown method, or scales and translations that are not
            one per spatial axis.

    Example:
        >>> import numpy as np
        >>> from kerasish.core.ops import image_ops
        >>> x = np.arange(4.0).reshape(1, 4)
        >>> image_ops.scale_and_translate(x, (1, 2), [0.5], [0.0], (1,), "linear",
        ...                               antialias=False).numpy()
        array([[0.5, 2.5]])
    """
    if method not in SCALE_AND_TRANSLATE_KERNELS:
        raise InvalidArgumentError(
            f"scale_and_translate: method must be one of {sorted(SCALE_AND_TRANSLATE_KERNELS)}"
            f", got {method!r}")
    x = convert_to_tensor(images)
    dims = [int(d) % x.ndim for d in np.ravel(spatial_dims)]
    scales = np.ravel(convert_to_tensor(scale).numpy()).astype(np.float64)
    shifts = np.ravel(convert_to_tensor(translation).numpy()).astype(np.float64)
    if len(scales) != len(dims) or len(shifts) != len(dims):
        raise InvalidArgumentError(
            f"scale_and_translate: needs one scale and one translation per spatial axis "
            f"{tuple(dims)}, got {len(scales)} and {len(shifts)}")
    integer = x.dtype.kind in "iub"
    out = math_ops.cast(x, np.float32) if integer else x
    for d, s, t in zip(dims, scales, shifts):
        weights = scale_weights(x.shape[d], int(output_shape[d]), s, t,
                                SCALE_AND_TRANSLATE_KERNELS[method], antialias)
        moved = shape_ops.moveaxis(out, d, -1)
        out = shape_ops.moveaxis(math_ops.matmul(
            moved, Tensor(backend.to_device(weights.astype(out.dtype),
                                            backend.device_of(out._value)))), -1, d)
    if integer:
        low, high = float(reduction_ops.reduce_min(x)), float(reduction_ops.reduce_max(x))
        out = math_ops.cast(clip_ops.clip_by_value(math_ops.round(out), low, high), x.dtype)
    return out


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """The structural similarity index (Wang et al., 2004) of two images, per image: the
    mean over channels and valid windows of (2 mu1 mu2 + c1)(2 sigma12 + c2) / ((mu1^2 +
    mu2^2 + c1)(sigma1^2 + sigma2^2 + c2)), the statistics weighted by a Gaussian window
    (c1 = (k1 max_val)^2, c2 = (k2 max_val)^2). Composed of recorded ops: differentiable.

    Args:
        image1: (batch, height, width, channels) or one image (channels first with
            `data_format`).
        image2: of `image1`'s shape.
        max_val: the dynamic range (1.0 for images in [0, 1], 255 for bytes).
        filter_size: the Gaussian window's side (odd, at most the image's sides).
        filter_sigma: its standard deviation.
        k1: the luminance constant.
        k2: the contrast constant.
        data_format: 'channels_last' (None) or 'channels_first'.

    Returns:
        (batch,) values (a scalar for one image), in [-1, 1]; float32 for integer images
        (Keras casts back to the images' integer dtype, which truncates the value to 0).

    Raises:
        InvalidArgumentError: ranks other than 3 or 4, or shapes that differ.

    Example:
        >>> import numpy as np
        >>> from kerasish.core.ops import image_ops
        >>> x = np.random.default_rng(0).random((16, 16, 1)).astype("float32")
        >>> round(float(image_ops.ssim(x, x)), 4)
        1.0
    """
    data_format = _data_format(data_format, "ssim")
    a, b = convert_to_tensor(image1), convert_to_tensor(image2)
    if a.ndim not in (3, 4) or a.shape != b.shape:
        raise InvalidArgumentError(
            f"ssim: needs two images (rank 3) or batches (rank 4) of the same shape, got "
            f"{a.shape} and {b.shape}")
    dtype = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    a, b = math_ops.cast(a, dtype), math_ops.cast(b, dtype)
    single = a.ndim == 3
    if single:
        a, b = shape_ops.expand_dims(a, 0), shape_ops.expand_dims(b, 0)
    if data_format == "channels_first":
        a, b = shape_ops.moveaxis(a, 1, -1), shape_ops.moveaxis(b, 1, -1)
    n, height, width, channels = a.shape
    line = np.exp(-np.square(np.arange(filter_size) - (filter_size - 1) / 2.0)
                  / (2.0 * filter_sigma ** 2))
    line = line / line.sum()
    kernel = Tensor(backend.to_device(np.outer(line, line).astype(dtype)[:, :, None, None],
                                      backend.device_of(a._value)))

    def planes(x):  # (n, h, w, c) -> (n * c, h, w, 1)
        return shape_ops.reshape(shape_ops.transpose(x, (0, 3, 1, 2)), (-1, height, width, 1))

    def blur(x):
        return conv_ops.conv2d(x, kernel, 1, "VALID")

    a, b = planes(a), planes(b)
    mu1, mu2 = blur(a), blur(b)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    var1 = blur(a * a) - mu1 * mu1
    var2 = blur(b * b) - mu2 * mu2
    cov = blur(a * b) - mu1 * mu2
    index = ((2.0 * mu1 * mu2 + c1) * (2.0 * cov + c2)) / (
        (mu1 * mu1 + mu2 * mu2 + c1) * (var1 + var2 + c2))
    per_image = reduction_ops.reduce_mean(
        shape_ops.reshape(reduction_ops.reduce_mean(index, (1, 2, 3)), (n, channels)), -1)
    return per_image[0] if single else per_image
