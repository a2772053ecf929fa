"""Image files and arrays (`ks.utils.load_img`, `save_img`, `img_to_array`, `array_to_img`).

Reading and writing image files needs Pillow, which kerasish does not depend on (install
it with `pip install pillow`, or kerasish's `dev` extra); without it these functions raise
an ImportError that says so. `img_to_array` works on any array-like without Pillow.
"""

from __future__ import annotations

import io
import pathlib
import warnings

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.settings import floatx, image_data_format
from kerasish.core.tensor import Tensor, as_dtype

# Pillow's resampling filters by Keras's names
_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pillow(function: str):
    """Pillow's Image module, or an ImportError naming `function` and the install command."""
    try:
        from PIL import Image  # optional dependency: only these functions need it
    except ImportError as exc:
        raise ImportError(
            f"{function} needs the Pillow package, which kerasish does not depend on: "
            "pip install pillow"
        ) from exc
    return Image


def _data_format(data_format, function: str) -> str:
    data_format = image_data_format() if data_format is None else data_format
    if data_format not in ("channels_last", "channels_first"):
        raise InvalidArgumentError(
            f"{function}: data_format must be 'channels_last' or 'channels_first', "
            f"got {data_format!r}"
        )
    return data_format


def img_to_array(img, data_format=None, dtype=None) -> np.ndarray:
    """An image (a Pillow image or any array-like) as an array (height, width, channels).

    A grey image without a channel axis gets one (last, or first with
    `data_format='channels_first'`).

    Args:
        img: a Pillow image, or an array-like of rank 2 or 3.
        data_format: "channels_last" or "channels_first" (None: `ks.config.image_data_format()`).
        dtype: the result's dtype (None: `ks.config.floatx()`, float32 unless changed).

    Returns:
        A NumPy array with a channel axis.

    Raises:
        InvalidArgumentError: for another `data_format` or an array of another rank.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> ks.utils.img_to_array(np.zeros((4, 5), np.uint8)).shape
        (4, 5, 1)
    """
    data_format = _data_format(data_format, "img_to_array")
    array = np.asarray(img, dtype=as_dtype(floatx() if dtype is None else dtype))
    if array.ndim == 2:
        return array[..., None] if data_format == "channels_last" else array[None]
    if array.ndim != 3:
        raise InvalidArgumentError(
            f"img_to_array: expected an image of rank 2 or 3, got shape {array.shape}"
        )
    return array.transpose(2, 0, 1) if data_format == "channels_first" else array


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A Pillow image from an array (height, width, channels); needs the Pillow package.

    With `scale`, values are shifted and scaled to [0, 255] first, as Keras does. A grey
    image whose values pass 255 (after scaling, if any) becomes a 32-bit image (mode "I").

    Args:
        x: an array or tensor of rank 3 with 1, 3 or 4 channels.
        data_format: "channels_last" or "channels_first" (None: `ks.config.image_data_format()`).
        scale: shift and scale the values to [0, 255].
        dtype: the dtype the values are read as first (None: `ks.config.floatx()`).

    Returns:
        A Pillow image (mode "L", "I", "RGB" or "RGBA").

    Raises:
        ImportError: without Pillow (naming the install command).
        InvalidArgumentError: for another rank or number of channels.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> image = ks.utils.array_to_img(np.zeros((2, 3, 3)))  # doctest: +SKIP
        >>> image.size, image.mode  # doctest: +SKIP
        ((3, 2), 'RGB')
    """
    image_module = _pillow("array_to_img")
    data_format = _data_format(data_format, "array_to_img")
    array = np.asarray(x.numpy() if isinstance(x, Tensor) else x,
                       dtype=as_dtype(floatx() if dtype is None else dtype))
    if array.ndim != 3:
        raise InvalidArgumentError(
            f"array_to_img: expected an array of rank 3 (an image with channels), got shape "
            f"{array.shape}"
        )
    if data_format == "channels_first":
        array = array.transpose(1, 2, 0)
    if scale:
        array = array - np.min(array)
        top = np.max(array)
        if top != 0:
            array = array / top * 255.0
    channels = array.shape[-1]
    modes = {1: "L", 3: "RGB", 4: "RGBA"}
    if channels not in modes:
        raise InvalidArgumentError(
            f"array_to_img: an image needs 1, 3 or 4 channels, got {channels} (shape "
            f"{array.shape})"
        )
    if channels == 1:
        if np.max(array) > 255:
            return image_module.fromarray(array[..., 0].astype(np.int32), "I")
        return image_module.fromarray(array[..., 0].astype(np.uint8), "L")
    return image_module.fromarray(array.astype(np.uint8), modes[channels])


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write an array (height, width, channels) to an image file; needs Pillow.

    Args:
        path: a path or a file object.
        x: the image, an array or tensor of rank 3 (1, 3 or 4 channels).
        data_format: "channels_last" or "channels_first" (None: `ks.config.image_data_format()`).
        file_format: "png", "jpeg", ... (None: from `path`'s extension; needed for a file
            object).
        scale: shift and scale the values to [0, 255] first.
        **kwargs: passed on to Pillow's `Image.save` (e.g. `quality=90`).

    Raises:
        ImportError: without Pillow.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> ks.utils.save_img("/tmp/zeros.png", np.zeros((2, 3, 3)))  # doctest: +SKIP
    """
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    image = array_to_img(x, data_format=data_format, scale=scale)
    if image.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("save_img: JPEG has no alpha channel; the image is saved as RGB",
                      stacklevel=2)
        image = image.convert("RGB")
    image.save(path, format=file_format or None, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Read an image file into a Pillow image, as Keras does; needs Pillow.

    Args:
        path: a path (str, bytes or `pathlib.Path`) or an `io.BytesIO`.
        color_mode: "rgb", "rgba" or "grayscale".
        target_size: None (the file's size) or (height, width) to resize to.
        interpolation: the resampling filter: "nearest", "bilinear", "bicubic",
            "hamming", "box" or "lanczos".
        keep_aspect_ratio: crop the centre to the target's aspect ratio before resizing,
            so the image is not distorted.

    Returns:
        A Pillow image; `ks.utils.img_to_array` makes an array of it.

    Raises:
        ImportError: without Pillow.
        TypeError: for a `path` of another type.
        ValueError: for another `color_mode` or `interpolation`.

    Example:
        >>> import kerasish as ks
        >>> image = ks.utils.load_img("cat.jpg", target_size=(224, 224))  # doctest: +SKIP
        >>> ks.utils.img_to_array(image).shape  # doctest: +SKIP
        (224, 224, 3)
    """
    image_module = _pillow("load_img")
    if isinstance(path, io.BytesIO):
        image = image_module.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        with open(path, "rb") as f:
            image = image_module.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img: path must be path-like or io.BytesIO, got "
                        f"{type(path).__name__}")
    wanted = {"grayscale": ("L", ("L", "I;16", "I")), "rgb": ("RGB", ("RGB",)),
              "rgba": ("RGBA", ("RGBA",))}
    if color_mode not in wanted:
        raise ValueError(f'load_img: color_mode must be "grayscale", "rgb" or "rgba", got '
                         f"{color_mode!r}")
    mode, accepted = wanted[color_mode]
    if image.mode not in accepted:
        image = image.convert(mode)
    if target_size is None:
        return image
    size = (int(target_size[1]), int(target_size[0]))
    if image.size == size:
        return image
    if interpolation not in _RESAMPLING:
        raise ValueError(f"load_img: interpolation must be one of {', '.join(_RESAMPLING)}, "
                         f"got {interpolation!r}")
    resample = getattr(image_module.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return image.resize(size, resample)
    width, height = image.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return image.resize(size, resample, box=[left, top, left + crop_width, top + crop_height])
