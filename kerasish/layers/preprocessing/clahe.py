"""ContrastLimitedAdaptiveHistogramEqualization (CLAHE), Keras 3's algorithm step for step.

The image (values mapped to [0, 255]) is cut into a grid of tiles (padded by reflection to
whole tiles); each tile's 256-bin histogram is clipped at `clip_limit * tile_pixels / 256`
and the excess spread evenly over the bins; the tile's normalized CDF maps values, and each
pixel's value is interpolated bilinearly between the four nearest tiles' maps (the grid
extended by one tile of edge copies on each side). Deterministic: it acts at inference too.

The histograms and lookups run on the host in float32 (NumPy), as Keras's NumPy backend
computes them, so outputs match Keras's; on a GPU the images make one round trip to the
host. It is a preprocessing step: no gradient flows through it.
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import convert_to_tensor
from kerasish.layers.preprocessing.augmentation import BaseImagePreprocessingLayer


def _to_range(images: np.ndarray, source, target) -> np.ndarray:
    """Values mapped linearly from `source` to `target` (unchanged when they are equal)."""
    if tuple(source) == tuple(target):
        return images
    images = (images - np.float32(source[0])) / np.float32(source[1] - source[0])
    return (images * np.float32(target[1] - target[0]) + np.float32(target[0])).astype(
        np.float32)


def clahe(images: np.ndarray, clip_limit: float, tile_grid_size: tuple) -> np.ndarray:
    """CLAHE of (batch, height, width, channels) float32 images with values in [0, 255].

    Args:
        images: the images, channels last.
        clip_limit: the histogram clip, in multiples of a flat histogram's height (<= 0:
            no clipping, plain adaptive equalization).
        tile_grid_size: (rows, cols) of tiles.

    Returns:
        The equalized images, float32, same shape.

    Example:
        >>> import numpy as np
        >>> from kerasish.layers.preprocessing.clahe import clahe
        >>> ramp = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1) * 16
        >>> [round(float(v), 2) for v in clahe(ramp, 4.0, (1, 1)).ravel()[:3]]
        [0.0, 16.24, 32.48]
    """
    batch, height, width, channels = images.shape
    grid_h, grid_w = tile_grid_size
    tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
    pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
    padded = images
    if pad_h or pad_w:
        padded = np.pad(images, [(0, 0), (0, pad_h), (0, pad_w), (0, 0)], mode="symmetric")
    tiles = padded.reshape(batch, grid_h, tile_h, grid_w, tile_w, channels)
    tiles = tiles.transpose(0, 1, 3, 5, 2, 4).reshape(batch, grid_h, grid_w, channels, -1)
    values = np.clip(tiles.astype(np.int32), 0, 255)
    flat = values.reshape(-1, values.shape[-1])
    offsets = (np.arange(flat.shape[0]) * 256)[:, None]
    hists = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * 256)
    hists = hists.reshape(batch, grid_h, grid_w, channels, 256).astype(np.float32)
    if clip_limit > 0:
        limit = np.float32(clip_limit * (tile_h * tile_w) / 256.0)
        clipped = np.clip(hists, np.float32(0), limit)
        excess = np.sum(hists - clipped, axis=-1, keepdims=True)
        hists = clipped + excess / np.float32(256.0)
    cdf = np.cumsum(hists, axis=-1, dtype=np.float32)
    cdf_min = np.min(cdf, axis=-1, keepdims=True)
    denominator = np.float32(tile_h * tile_w) - cdf_min
    denominator = np.where(denominator == 0, np.float32(1), denominator)
    maps = np.clip((cdf - cdf_min) * np.float32(255.0) / denominator, 0, 255)
    maps = np.pad(maps, [(0, 0), (1, 1), (1, 1), (0, 0), (0, 0)], mode="edge")

    def grid(size, tile, count):
        position = (np.arange(size, dtype=np.float32) - np.float32(tile / 2.0)) / np.float32(
            tile) + np.float32(1.0)
        low = np.floor(position)
        weight = position - low
        return (np.clip(low, 0, count + 1).astype(np.int32),
                np.clip(low + 1, 0, count + 1).astype(np.int32), weight)

    y0, y1, wy = grid(tile_h * grid_h, tile_h, grid_h)
    x0, x1, wx = grid(tile_w * grid_w, tile_w, grid_w)
    pixels = np.clip(padded, 0, 255).astype(np.int32)
    b = np.arange(batch)[:, None, None, None]
    c = np.arange(channels)[None, None, None, :]
    yy0, yy1, xx0, xx1 = y0[None, :, None, None], y1[None, :, None, None], \
        x0[None, None, :, None], x1[None, None, :, None]
    wy, wx = wy[None, :, None, None], wx[None, None, :, None]
    one = np.float32(1.0)
    top = maps[b, yy0, xx0, c, pixels] * (one - wx) + maps[b, yy0, xx1, c, pixels] * wx
    bottom = maps[b, yy1, xx0, c, pixels] * (one - wx) + maps[b, yy1, xx1, c, pixels] * wx
    result = top * (one - wy) + bottom * wy
    return result[:, :height, :width, :].astype(np.float32)


class ContrastLimitedAdaptiveHistogramEqualization(BaseImagePreprocessingLayer):
    """Contrast-limited adaptive histogram equalization (CLAHE) of each channel, as Keras 3:
    local histogram equalization per tile, with each histogram clipped so noise in flat
    regions is not amplified, and tile maps blended bilinearly (no tile seams).

    Deterministic, so it acts at inference too (as Keras).

    Args:
        value_range: the images' (low, high) range (default (0, 255)); values are mapped
            to [0, 255] for the 256-bin histograms and back.
        clip_limit: the histogram clip, in multiples of a flat histogram (default 4.0;
            <= 0: no clipping).
        tile_grid_size: (rows, cols) of tiles (default (8, 8)).
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments.

    Raises:
        InvalidArgumentError: a tile_grid_size that is not two positive integers, or a
            value_range that is not (low, high) with low < high.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> layer = ks.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))
        >>> layer(np.arange(64.0, dtype="float32").reshape(1, 8, 8, 1)).shape
        (1, 8, 8, 1)
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        kind = "ContrastLimitedAdaptiveHistogramEqualization"
        if (not isinstance(value_range, (tuple, list)) or len(value_range) != 2
                or value_range[0] >= value_range[1]):
            raise InvalidArgumentError(
                f"{kind}: value_range must be two numbers (low, high) with low < high, got "
                f"{value_range!r}")
        if (not isinstance(tile_grid_size, (tuple, list)) or len(tile_grid_size) != 2
                or not all(isinstance(v, (int, np.integer)) and v > 0
                           for v in tile_grid_size)):
            raise InvalidArgumentError(
                f"{kind}: tile_grid_size must be two positive integers (rows, cols), got "
                f"{tile_grid_size!r}")
        self.value_range = tuple(value_range)
        self.clip_limit = float(clip_limit)
        self.tile_grid_size = tuple(int(v) for v in tile_grid_size)

    def call(self, inputs, training=None):
        return super().call(inputs, True)  # deterministic: at inference too

    def augment(self, images, batch: int):
        values = _to_range(images.numpy().astype(np.float32), self.value_range, (0, 255))
        out = _to_range(clahe(values, self.clip_limit, self.tile_grid_size), (0, 255),
                        self.value_range)
        return convert_to_tensor(out.astype(images.dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "clip_limit": self.clip_limit, "tile_grid_size": self.tile_grid_size}
