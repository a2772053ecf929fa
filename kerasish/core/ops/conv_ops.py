"""Convolution and pooling.

Convolution and general pooling are built from one pair of linear primitives,
`extract_patches` (im2col) and its adjoint `patches_to_image` (col2im), plus
matmul and reductions; so their gradients, and gradients of gradients, come
from those primitives with no conv-specific rules. Pooling windows that tile
the image (strides == ksize, the common case) have their own primitives on
strided views (`max_pool_blocks` and its gradient, `block_sum` and its adjoint
`block_spread`), which give the same values and gradients without a patch array.

On the CPU an ungrouped convolution runs as one of two families of three primitives
(the convolution, its input gradient and its filter gradient, each the others'
gradient, so closed under differentiation), both taking an optional bias that is added
to the output while it is in cache:
- per-tap products (`conv2d_taps`...), for stride 1 with enough channels: the image is
  one (rows, channels) matrix, and filter tap (i, j) reads it shifted by di*W + dj rows,
  so each tap is one product of a contiguous slice, with no padded copy, no patch array
  and no col2im; the rows whose source wrapped past the image's edge are zeroed. Where
  numba is installed, filters 3-5 columns wide (Conv1D's, a 3x3 Conv2D's) run instead as
  Winograd's minimal filtering F(4, r) along the rows: 3 + r products per 4 outputs of a
  filter row, where the taps take 4r;
- im2col by blocks of images (`conv2d_blocks`...), otherwise where the batch's patch
  array would exceed one block: the patches of a few images at a time, in one reused
  buffer, and one product per block (a smaller batch keeps the single patch array).

The transposed convolution is one primitive, `conv2d_transpose`: each stride phase of
its output is a per-tap shifted sum of the input, written into a strided view of the
output. Its gradients come from one im2col of the upstream gradient per block of images
(`conv2d_transpose_grads`, both at once) on the CPU, and from `extract_patches` and
matmul on the GPU.
"""

from __future__ import annotations

import functools

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.primitive import apply, primitive
from kerasish.core.tensor import Tensor, convert_to_tensor

# ---------------------------------------------------------------- patches (im2col / col2im)


def _pair(value, name: str) -> tuple:
    if isinstance(value, (int, np.integer)):
        return (int(value), int(value))
    value = tuple(int(v) for v in value)
    if len(value) == 4:  # TF's NHWC form [1, h, w, 1]
        if value[0] != 1 or value[3] != 1:
            raise InvalidArgumentError(f"{name}: batch and channel entries must be 1, got {value}")
        return value[1:3]
    if len(value) == 1:
        return (value[0], value[0])
    if len(value) != 2:
        raise InvalidArgumentError(f"{name}: expected 1, 2 or 4 values, got {value}")
    return value


def _padding_plan(size: int, k: int, s: int, padding: str, name: str) -> tuple:
    """(output size, pad before, pad after) for one spatial axis, as TF computes it."""
    if padding == "VALID":
        if size < k:
            raise InvalidArgumentError(
                f"{name}: window {k} is larger than the input size {size} with padding='VALID'"
            )
        return (size - k) // s + 1, 0, 0
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        return out, total // 2, total - total // 2
    raise InvalidArgumentError(f"{name}: padding must be 'SAME' or 'VALID', got {padding!r}")


def _plan(shape, ksize, strides, padding, name, dilations=(1, 1)):
    """(out_h, out_w, pads) of windows of `ksize` cells `dilations` apart on an NHWC `shape`."""
    if len(shape) != 4:
        raise InvalidArgumentError(
            f"{name}: input must be NHWC (rank 4: batch, height, width, channels), "
            f"got shape {shape}"
        )
    span_h = (ksize[0] - 1) * dilations[0] + 1
    span_w = (ksize[1] - 1) * dilations[1] + 1
    (ho, top, bottom) = _padding_plan(shape[1], span_h, strides[0], padding, name)
    (wo, left, right) = _padding_plan(shape[2], span_w, strides[1], padding, name)
    return ho, wo, ((0, 0), (top, bottom), (left, right), (0, 0))


def _compiled_loops(x):
    """The compiled loops of `kerasish[fast]` (numba) for a float32 or float64 NumPy array;
    None for other arrays, or without numba."""
    if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64):
        return backend.numba_kernels()
    return None


def _windows(x, ksize, strides, padding, pad_value, dilations=(1, 1), out=None):
    """The (N, out_h, out_w, kh, kw, C) windows of an NHWC array, into `out` if given."""
    kh, kw = ksize
    sh, sw = strides
    dh, dw = dilations
    ho, wo, pads = _plan(x.shape, ksize, strides, padding, "extract_patches", dilations)
    xp = backend.array_module(x)
    loops = _compiled_loops(x)
    if loops is not None:  # (each window value copied once, with no padded copy of x)
        if out is None:
            out = np.empty((x.shape[0], ho, wo, kh, kw, x.shape[3]), dtype=x.dtype)
        loops.windows(x, strides, dilations, pads[1][0], pads[2][0], x.dtype.type(pad_value),
                      out)
        return out
    if any(p for pair in pads for p in pair):
        x = xp.pad(x, pads, constant_values=pad_value)
    n, _, _, c = x.shape
    if out is None:
        out = xp.empty((n, ho, wo, kh, kw, c), dtype=x.dtype)
    if xp is np and kw * c >= 16:
        # one copy of a strided view of the windows: a window row (kw * c values) is
        # contiguous in x (without dilation), so the copy runs over long rows (3x faster
        # than kh*kw slab copies of c values at a time, which are better only for very
        # few channels)
        s0, s1, s2, s3 = x.strides
        windows = np.lib.stride_tricks.as_strided(
            x,
            (n, ho, wo, kh, kw, c),
            (s0, sh * s1, sw * s2, dh * s1, dw * s2, s3),
            writeable=False,
        )
        np.copyto(out, windows)
        return out
    for i in range(kh):
        for j in range(kw):
            top, left = i * dh, j * dw
            out[:, :, :, i, j, :] = x[:, top : top + sh * ho : sh, left : left + sw * wo : sw, :]
    return out


@primitive("extract_patches")
def _extract_patches(x, ksize, strides, padding, pad_value, dilations=(1, 1)):
    return _windows(x, ksize, strides, padding, pad_value, dilations)


@_extract_patches.defgrad
def _(op, dy):
    attrs = op.attrs
    return (
        patches_to_image(
            dy, op.inputs[0].shape, attrs["ksize"], attrs["strides"], attrs["padding"],
            attrs.get("dilations", (1, 1)),
        ),
    )


@primitive("patches_to_image")
def _patches_to_image(patches, image_shape, ksize, strides, padding, dilations=(1, 1)):
    kh, kw = ksize
    sh, sw = strides
    dh, dw = dilations
    ho, wo, pads = _plan(image_shape, ksize, strides, padding, "patches_to_image", dilations)
    n, h, w, c = image_shape
    (_, (top, bottom), (left, right), _) = pads
    loops = _compiled_loops(patches)
    if loops is not None:  # (each pixel's sum gathered once, in the order of the adds below)
        out = np.empty(image_shape, dtype=patches.dtype)
        loops.patches_to_image(patches, strides, dilations, top, left,
                               np.zeros(c, patches.dtype), out)
        return out
    xp = backend.array_module(patches)
    out = xp.zeros((n, h + top + bottom, w + left + right, c), dtype=patches.dtype)
    for i in range(kh):
        for j in range(kw):
            row, col = i * dh, j * dw
            out[:, row : row + sh * ho : sh, col : col + sw * wo : sw, :] += patches[
                :, :, :, i, j, :
            ]
    return out[:, top : top + h, left : left + w, :]


@_patches_to_image.defgrad
def _(op, dy):
    attrs = op.attrs
    return (
        extract_patches(
            dy, attrs["ksize"], attrs["strides"], attrs["padding"],
            dilations=attrs.get("dilations", (1, 1)),
        ),
    )


def patches_to_image(patches, image_shape, ksize, strides, padding: str = "VALID", dilations=1):
    """The adjoint of `extract_patches` (col2im): every patch entry added back onto the
    image cell it was taken from, for an NHWC image of `image_shape`.

    Args:
        patches: a tensor shaped as `extract_patches` returns for this image shape.
        image_shape: the NHWC shape of the image.
        ksize: the window size: an int, (height, width), or TF's [1, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of window cells, in the same forms.

    Returns:
        A tensor of `image_shape`.

    Raises:
        InvalidArgumentError: a size has the wrong form, or `padding` is neither mode.

    Example:
        >>> import kerasish as ks
        >>> patches = ks.nn.extract_patches(ks.ones([1, 3, 3, 1]), 2, 1)
        >>> ks.nn.patches_to_image(patches, (1, 3, 3, 1), 2, 1).numpy()[0, :, :, 0].tolist()
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    attrs = {
        "image_shape": tuple(int(d) for d in image_shape),
        "ksize": _pair(ksize, "patches_to_image"),
        "strides": _pair(strides, "patches_to_image"),
        "padding": str(padding).upper(),
        "dilations": _pair(dilations, "patches_to_image"),
    }
    return apply(_patches_to_image, (convert_to_tensor(patches),), attrs)


def extract_patches(
    images, ksize, strides, padding: str = "VALID", pad_value: float = 0.0, dilations=1
):
    """Sliding windows of an NHWC batch: shape (N, out_h, out_w, kh, kw, C).

    Window cells are `dilations` apart (TF's `rates`); padding cells hold `pad_value`.

    Args:
        images: an NHWC batch.
        ksize: the window size: an int, (height, width), or TF's [1, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        pad_value: the value of the padding cells.
        dilations: the spacing of window cells, in the same forms.

    Returns:
        The windows; the gradient is `patches_to_image`.

    Raises:
        InvalidArgumentError: `images` is not rank 4, a size has the wrong form, a window
            is larger than the input with 'VALID', or `padding` is neither mode.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.extract_patches(ks.ones([1, 4, 4, 3]), 2, 2).shape
        (1, 2, 2, 2, 2, 3)
    """
    x = convert_to_tensor(images)
    attrs = {
        "ksize": _pair(ksize, "extract_patches"),
        "strides": _pair(strides, "extract_patches"),
        "padding": str(padding).upper(),
        "pad_value": pad_value,
        "dilations": _pair(dilations, "extract_patches"),
    }
    return apply(_extract_patches, (x,), attrs)


def _check_filters(name: str, w: Tensor, layout: str) -> None:
    if w.ndim != 4:
        raise InvalidArgumentError(
            f"{name}: filters must be {layout} (rank 4), got shape {w.shape}"
        )


# ---------------------------------------------------------------- per-tap products

TAPS_MIN_CHANNELS = 16  # below, a tap's product (inner size = channels) is too thin
TAPS_MAX_WASTE = 1.35  # product rows computed over those used (the rest fall off the image)
TAPS_BLOCK_ROWS = 4096  # rows (whole images) summed at a time: the block stays in cache


def _tap_offsets(filter_shape, padding, dilations) -> list:
    """(di, dj) of each filter tap in the filter's row-major order: at stride 1, output
    pixel (p, q) reads input pixel (p + di, q + dj) through that tap."""
    kh, kw = filter_shape[:2]
    dh, dw = dilations
    top, left = ((kh - 1) * dh // 2, (kw - 1) * dw // 2) if padding == "SAME" else (0, 0)
    return [(i * dh - top, j * dw - left) for i in range(kh) for j in range(kw)]


def _taps_pay(image_shape, filter_shape, padding, dilations) -> bool:
    """Whether per-tap products beat im2col for this stride-1 convolution (measured on
    NumPy/OpenBLAS: 15-55% faster with 16-64 channels and at most 1.31x wasted rows,
    5x slower with one channel, a little slower at 1.4x waste). Each tap's product covers
    the whole image; its rows whose source, or output, is off the image are wasted."""
    if None in image_shape[1:] or image_shape[3] < TAPS_MIN_CHANNELS:
        return False
    h, w = image_shape[1:3]
    ho, wo, _ = _plan(image_shape, filter_shape[:2], (1, 1), padding, "conv2d", dilations)
    used = sum(max(min(h - di, ho) - max(-di, 0), 0) * max(min(w - dj, wo) - max(-dj, 0), 0)
               for di, dj in _tap_offsets(filter_shape, padding, dilations))
    return used > 0 and h * w * filter_shape[0] * filter_shape[1] <= TAPS_MAX_WASTE * used


def _zero_off_image(block, di: int, dj: int) -> None:
    """Zero the pixels of a (..., H, W, C) `block` whose source pixel (p + di, q + dj) is
    off the image."""
    h, w = block.shape[-3:-1]
    if di < 0:
        block[..., :min(-di, h), :, :] = 0
    elif di > 0:
        block[..., max(h - di, 0):, :, :] = 0
    if dj < 0:
        block[..., :min(-dj, w), :] = 0
    elif dj > 0:
        block[..., max(w - dj, 0):, :] = 0


def _image_blocks(n: int, values_per_image: int, budget: int) -> tuple:
    """(images per block, the (first, last) of each block): consecutive runs of whole
    images holding about `budget` values, at least one image each (no block for an empty
    batch)."""
    images = max(1, min(budget // max(values_per_image, 1), n))
    return images, [(first, min(first + images, n)) for first in range(0, n, images)]


def _shifted_sum(x, kernels, offsets, dest, bias=None):
    """Fill `dest` with sum over taps t of x[n, p + di_t, q + dj_t] @ kernels[t] (plus
    `bias`, if given), a source off the image counting as zero; `dest` is NHWC, at most
    x's height and width (its top-left corner), and may be a strided view (a stride
    phase). Returns `dest`.

    x is one (rows, channels) matrix, so a tap's sources are its rows shifted by
    di * W + dj: one product of a contiguous slice per tap, with no padded copy and no
    patch array. The product rows whose source wrapped into another row or image are
    zeroed before they are added. Whole images are summed TAPS_BLOCK_ROWS rows at a time,
    so a block's products are added while they are in cache.
    """
    n, h, w, channels = x.shape
    xp = backend.array_module(x)
    width = dest.shape[3]
    rows = x.reshape(-1, channels)
    per_image = h * w
    # (one block on the GPU: its blocks would only add kernel launches)
    images, blocks = _image_blocks(n, per_image,
                                   TAPS_BLOCK_ROWS if xp is np else n * per_image)
    in_place = dest.shape[1:3] == (h, w) and dest.flags.c_contiguous
    dest_rows = dest.reshape(-1, width) if in_place else None
    sums = None if in_place else xp.empty((images * per_image, width), dest.dtype)
    scratch = xp.empty((images * per_image, width), dest.dtype)
    for first, last in blocks:
        start, stop = first * per_image, last * per_image
        total = dest_rows[start:stop] if in_place else sums[:stop - start]
        for tap, (di, dj) in enumerate(offsets):
            shift = di * w + dj
            lo, hi = max(start, -shift), min(stop, rows.shape[0] - shift)
            product = total if tap == 0 else scratch[:stop - start]
            if hi <= lo:  # every source of this block is off the batch
                if tap == 0:
                    total[...] = 0
                continue
            product[:lo - start] = 0
            product[hi - start:] = 0
            backend.matmul(rows[lo + shift:hi + shift], kernels[tap],
                           product[lo - start:hi - start])
            _zero_off_image(product.reshape(last - first, h, w, width), di, dj)
            if tap:
                total += product
        if bias is not None:
            total += bias
        if not in_place:
            dest[first:last] = total.reshape(last - first, h, w, width)[
                :, :dest.shape[1], :dest.shape[2]]
    return dest


def _framed(dy, height: int, width: int, xp):
    """dy at the top-left of an image of (height, width), zeros elsewhere."""
    if dy.shape[1:3] == (height, width):
        return dy
    frame = xp.zeros((dy.shape[0], height, width, dy.shape[3]), dy.dtype)
    frame[:, :dy.shape[1], :dy.shape[2]] = dy
    return frame


def _wrapped_rows(image_shape, used_hw, di: int, dj: int, lo: int, hi: int):
    """Rows r in [lo, hi) of the (n*h*w)-row matrix of an image batch, inside the `used_hw`
    top-left corner, whose source pixel (p + di, q + dj) is off the image: a product of
    rows shifted by di * w + dj paired them with a wrapped source."""
    n, h, w = image_shape[:3]
    p, q = np.arange(h)[:, None], np.arange(w)[None, :]
    off = (p + di < 0) | (p + di >= h) | (q + dj < 0) | (q + dj >= w)
    local = np.flatnonzero(off & (p < used_hw[0]) & (q < used_hw[1]))
    found = (np.arange(n)[:, None] * (h * w) + local).ravel()
    return found[(found >= lo) & (found < hi)]


def _bias_gradient(op, dy) -> tuple:
    """(the gradient of a fused convolution's bias,), or () when it was given none."""
    if len(op.inputs) < 3:
        return ()
    return (reduction_ops.reduce_sum(dy, axis=(0, 1, 2)) if op.needs[2] else None,)


def _close_under_differentiation(conv, input_grad, filter_grad) -> None:
    """Give a convolution's three primitives their gradient rules, each written with the
    other two: conv(x, w) is linear in each argument (plus an optional bias added to every
    pixel), input_grad(dy, w) is its adjoint in x (given x's `image_shape`) and
    filter_grad(x, dy) its adjoint in w (given `filter_shape`); the three share their
    other attributes."""

    def others(attrs, name):
        return {k: v for k, v in attrs.items() if k != name}

    @conv.defgrad
    def _(op, dy):
        x, w = op.inputs[:2]
        return (
            apply(input_grad, (dy, w), {"image_shape": x.shape, **op.attrs})
            if op.needs[0] else None,
            apply(filter_grad, (x, dy), {"filter_shape": w.shape, **op.attrs})
            if op.needs[1] else None,
            *_bias_gradient(op, dy),
        )

    @input_grad.defgrad
    def _(op, g):
        dy, w = op.inputs
        attrs = others(op.attrs, "image_shape")
        return (
            apply(conv, (g, w), attrs) if op.needs[0] else None,
            apply(filter_grad, (g, dy), {"filter_shape": w.shape, **attrs})
            if op.needs[1] else None,
        )

    @filter_grad.defgrad
    def _(op, g):
        x, dy = op.inputs
        attrs = others(op.attrs, "filter_shape")
        return (
            apply(input_grad, (dy, g), {"image_shape": x.shape, **attrs})
            if op.needs[0] else None,
            apply(conv, (x, g), attrs) if op.needs[1] else None,
        )


# ---------------------------------------------------------------- Winograd along rows

WINOGRAD_STEP = 4  # outputs per tile: F(4, r) takes 3 + r products per 4 outputs, taps 4r
# the interpolation points (with one at infinity): small, and exact in binary, so that the
# float32 results stay within a few units of 1e-6 of the exact ones
WINOGRAD_POINTS = (0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5)
WINOGRAD_WIDTHS = (3, 4, 5)  # filter widths that take it (measured: benchmarks/layers_bench.py)
WINOGRAD_BLOCK_VALUES = 1 << 18  # transformed values per block: the block stays in cache


def _winograd_applies(x, filter_shape, dilations) -> bool:
    """Whether a stride-1 convolution by taps runs as Winograd's minimal filtering along
    rows instead: a filter of 3-5 undilated columns (any rows: Conv1D's has one, a 3x3
    Conv2D's three), on a float32 or float64 NumPy array, with numba for the transforms
    (`kerasish[fast]`)."""
    return (filter_shape[1] in WINOGRAD_WIDTHS and dilations[1] == 1
            and _compiled_loops(x) is not None)


@functools.cache
def _winograd_transforms(width: int) -> tuple:
    """(A^T, G, B^T) of Winograd's F(4, width) in float64: for a tile d of 3 + width inputs
    and a filter g, the correlation's 4 outputs sum_s d[i + s] g[s] are A^T [(G g) * (B^T d)].
    A^T evaluates at the points and G interpolates there (Lagrange, the point at infinity
    taking the leading coefficient); B^T is solved from that identity."""
    step, size = WINOGRAD_STEP, WINOGRAD_STEP + width - 1
    points = np.array(WINOGRAD_POINTS[:size - 1])
    at, g = np.zeros((step, size)), np.zeros((size, width))
    at[:, :-1] = points ** np.arange(step)[:, None]
    at[-1, -1] = g[-1, -1] = 1.0
    spread = np.array([np.prod([p - q for q in points if q != p]) for p in points])
    g[:-1] = points[:, None] ** np.arange(width) / spread[:, None]
    # sum_k A^T[i, k] G[k, s] B^T[k, j] must be 1 where j == i + s and 0 elsewhere
    system = np.einsum("ik,ks->isk", at, g).reshape(step * width, size)
    wanted = np.arange(size) == (np.arange(step)[:, None] + np.arange(width)).reshape(-1, 1)
    bt = np.linalg.lstsq(system, wanted.astype(float), rcond=None)[0]
    # (with these points B^T's entries are multiples of 1/4: rounding removes the solver's
    # error, and its zeros become exact zeros, which the transform skips)
    return at, g, np.round(bt * 256) / 256


def _winograd_blocks(x, bt, pad: int, tiles: int, images: int, blocks):
    """(first, last, tiled) for each (first, last) block of x's images: `tiled` is the
    block's rows transformed by B^T, (points, images * height * tiles, channels), written
    in turn into one buffer of `images` images."""
    n, h, width, cin = x.shape
    buffer = np.empty((bt.shape[0], images * h * tiles, cin), x.dtype)
    for first, last in blocks:
        tiled = buffer[:, :(last - first) * h * tiles]
        backend.numba_kernels().winograd_tiles(
            x[first:last].reshape((last - first) * h, width, cin), bt, WINOGRAD_STEP, pad,
            tiles, tiled)
        yield first, last, tiled


def _winograd_conv(x, kernels, row_offsets, pad: int, out_hw, bias=None):
    """out[n, p, q] = bias + sum_{i, s} x[n, p + row_offsets[i], q + s - pad] @ kernels[i, s]
    for (p, q) inside `out_hw` (at most x's height), a source off the image counting as
    zero: x is NHWC, kernels (rows, taps, in, out).

    Along each row, each tile of 4 outputs needs 3 + taps products of its transformed
    inputs (B^T) with the transformed kernels (G), one matrix product per point over all
    tiles, and the outputs are recovered from them (A^T): 8 products of a quarter of the
    pixels for 5 taps, where the taps take 5 products of all of them. A filter's rows are
    shifted sums of those products, as for the taps (one batched product over the points
    per filter row). Whole images go WINOGRAD_BLOCK_VALUES at a time through buffers
    reused from cache.
    """
    kernels_module = backend.numba_kernels()
    at, g, bt = (m.astype(x.dtype) for m in _winograd_transforms(kernels.shape[1]))
    transformed = np.einsum("ks,isco->kico", g, kernels)
    n, h, _, cin = x.shape
    (ho, wo), cout, points = out_hw, kernels.shape[3], bt.shape[0]
    tiles = -(-wo // WINOGRAD_STEP)
    out = np.empty((n, ho, wo, cout), x.dtype)
    bias = np.zeros(cout, x.dtype) if bias is None else bias
    images, blocks = _image_blocks(n, h * tiles * points * max(cin, cout), WINOGRAD_BLOCK_VALUES)
    sums = np.empty((points, images * h * tiles, cout), x.dtype)
    scratch = np.empty_like(sums) if len(row_offsets) > 1 else None
    kept = np.empty((points, images * ho * tiles, cout), x.dtype) if ho < h else None
    for first, last, tiled in _winograd_blocks(x, bt, pad, tiles, images, blocks):
        count = last - first
        rows = count * h * tiles
        for tap, offset in enumerate(row_offsets):
            shift = offset * tiles
            lo, hi = max(0, -shift), min(rows, rows - shift)
            product = (sums if tap == 0 else scratch)[:, :rows]
            product[:, :lo] = 0
            product[:, hi:] = 0
            if hi > lo:
                np.matmul(tiled[:, lo + shift:hi + shift], transformed[:, tap],
                          out=product[:, lo:hi])
            _zero_off_image(product.reshape(points, count, h, tiles, cout), offset, 0)
            if tap:
                sums[:, :rows] += product
        products = sums[:, :rows]
        if kept is not None:  # (VALID: the top rows of each image)
            products = kept[:, :count * ho * tiles]
            products.reshape(points, count, ho, tiles, cout)[...] = sums[:, :rows].reshape(
                points, count, h, tiles, cout)[:, :, :ho]
        kernels_module.winograd_untile(products, at, tiles, bias,
                                       out[first:last].reshape(count * ho, wo, cout))
    return out


def _winograd_conv_filter_grad(x, dy, filter_shape, padding, dilations):
    """The adjoint of `_winograd_conv` (with the offsets of `padding`) in its kernels.

    With the forward's transformed inputs V_k and dy spread back over each tile's points
    (A), Z_k, the transformed kernels' gradients are those of a convolution of V_k along
    the columns (the filter's rows): for each filter row, one batched product over the
    points of the shifted V_k with Z_k, less the pairs whose source wrapped (as for the
    taps). G^T takes them back to the taps."""
    kernels_module = backend.numba_kernels()
    kh, kw, cin, cout = filter_shape
    at, g, bt = (m.astype(x.dtype) for m in _winograd_transforms(kw))
    n, h = x.shape[:2]
    ho, wo, points = dy.shape[1], dy.shape[2], bt.shape[0]
    offsets = _tap_offsets(filter_shape, padding, dilations)
    tiles = -(-wo // WINOGRAD_STEP)
    images, blocks = _image_blocks(n, h * tiles * points * max(cin, cout), WINOGRAD_BLOCK_VALUES)
    spread = np.empty((points, images * ho * tiles, cout), dy.dtype)
    framed = np.zeros((points, images * h * tiles, cout), dy.dtype) if ho < h else spread
    grads = np.zeros((points, kh, cin, cout), dy.dtype)
    for first, last, tiled in _winograd_blocks(x, bt, -offsets[0][1], tiles, images,
                                               blocks):
        count = last - first
        rows = count * h * tiles
        kernels_module.winograd_tiles(dy[first:last].reshape(count * ho, wo, cout), at.T,
                                      WINOGRAD_STEP, 0, tiles, spread[:, :count * ho * tiles])
        if ho < h:  # (VALID: dy's rows at the top of each image's rows, zeros below)
            framed[:, :rows].reshape(points, count, h, tiles, cout)[:, :, :ho] = spread[
                :, :count * ho * tiles].reshape(points, count, ho, tiles, cout)
        for tap, (offset, _) in enumerate(offsets[::kw]):
            shift = offset * tiles
            lo, hi = max(0, -shift), min(rows, rows - shift)
            if hi <= lo:
                continue
            grads[:, tap] += np.matmul(tiled[:, lo + shift:hi + shift].transpose(0, 2, 1),
                                       framed[:, lo:hi])
            wrapped = _wrapped_rows((count, h, tiles), (ho, tiles), offset, 0, lo, hi)
            if wrapped.size:
                grads[:, tap] -= np.matmul(tiled[:, wrapped + shift].transpose(0, 2, 1),
                                           framed[:, wrapped])
    return np.einsum("ks,kico->isco", g, grads)


@primitive("conv2d_taps")
def _conv2d_taps(x, w, bias=None, *, padding, dilations):
    kh, kw, cin, cout = w.shape
    ho, wo, _ = _plan(x.shape, (kh, kw), (1, 1), padding, "conv2d", dilations)
    offsets = _tap_offsets(w.shape, padding, dilations)
    if _winograd_applies(x, w.shape, dilations):
        return _winograd_conv(x, w, [di for di, _ in offsets[::kw]], -offsets[0][1], (ho, wo),
                              bias)
    out = backend.array_module(x).empty((x.shape[0], ho, wo, cout), x.dtype)
    return _shifted_sum(x, w.reshape(kh * kw, cin, cout), offsets, out, bias)


@primitive("conv2d_taps_input_grad")
def _conv2d_taps_input_grad(dy, w, image_shape, padding, dilations):
    # input pixel (p, q) gets dy[p - di, q - dj] @ w_t^T from each tap t: the same shifted
    # sum, on dy framed to the image's size (VALID's dy is smaller)
    kh, kw, cin, cout = w.shape
    xp = backend.array_module(dy)
    n, h, width = image_shape[:3]
    if _winograd_applies(dy, w.shape, dilations):  # (each row's taps reversed)
        offsets = _tap_offsets(w.shape, padding, dilations)
        return _winograd_conv(_framed(dy, h, dy.shape[2], xp),
                              w[:, ::-1].transpose(0, 1, 3, 2), [-di for di, _ in offsets[::kw]],
                              kw - 1 + offsets[0][1], (h, width))
    offsets = [(-di, -dj) for di, dj in _tap_offsets(w.shape, padding, dilations)]
    out = xp.empty((n, h, width, cin), dy.dtype)
    kernels = w.reshape(kh * kw, cin, cout).transpose(0, 2, 1)
    return _shifted_sum(_framed(dy, h, width, xp), kernels, offsets, out)


@primitive("conv2d_taps_filter_grad")
def _conv2d_taps_filter_grad(x, dy, filter_shape, padding, dilations):
    # tap t's gradient pairs each output row with its source row: one product of x's rows
    # shifted by di * W + dj with dy's rows, less the pairs whose source wrapped
    xp = backend.array_module(x)
    n, h, width, cin = x.shape
    offsets = _tap_offsets(filter_shape, padding, dilations)
    if _winograd_applies(x, filter_shape, dilations):
        return _winograd_conv_filter_grad(x, dy, filter_shape, padding, dilations)
    used_hw = dy.shape[1:3]
    rows = x.reshape(-1, cin)
    grad_rows = _framed(dy, h, width, xp).reshape(-1, dy.shape[3])
    grad = xp.empty((len(offsets), cin, dy.shape[3]), dy.dtype)
    for tap, (di, dj) in enumerate(offsets):
        shift = di * width + dj
        lo, hi = max(0, -shift), min(rows.shape[0], rows.shape[0] - shift)
        if hi <= lo:
            grad[tap] = 0
            continue
        backend.matmul(rows[lo + shift:hi + shift].T, grad_rows[lo:hi], grad[tap])
        wrapped = _wrapped_rows(x.shape, used_hw, di, dj, lo, hi)
        if wrapped.size:
            wrapped = xp.asarray(wrapped)
            grad[tap] -= backend.matmul(rows[wrapped + shift].T, grad_rows[wrapped])
    return grad.reshape(filter_shape)


_close_under_differentiation(_conv2d_taps, _conv2d_taps_input_grad, _conv2d_taps_filter_grad)


# ---------------------------------------------------------------- im2col by blocks of images

# patch values built at a time: the block is reused from cache (measured with the compiled
# windows: the mnist CNN's step 10% faster than with 1 << 20, whose first layer then took
# one patch array and an unfused bias)
IM2COL_BLOCK_VALUES = 1 << 19


def _patch_blocks(x, filter_shape, strides, padding, dilations):
    """(first, last, columns) for blocks of x's images: the blocks' im2col matrices,
    (windows, kh*kw*channels), written in turn into one buffer."""
    kh, kw = filter_shape[:2]
    ho, wo, _ = _plan(x.shape, (kh, kw), strides, padding, "conv2d", dilations)
    width = kh * kw * x.shape[3]
    images, blocks = _image_blocks(x.shape[0], ho * wo * width, IM2COL_BLOCK_VALUES)
    buffer = backend.array_module(x).empty((images, ho, wo, kh, kw, x.shape[3]), x.dtype)
    for first, last in blocks:
        patches = _windows(x[first:last], (kh, kw), strides, padding, 0, dilations,
                           out=buffer[:last - first])
        yield first, last, patches.reshape(-1, width)


@primitive("conv2d_blocks")
def _conv2d_blocks(x, w, bias=None, *, strides, padding, dilations):
    # im2col and one product per block of images: the patches of a block are used while in
    # cache, and the batch's whole patch array (kh*kw times the image) is never allocated
    kh, kw, cin, cout = w.shape
    ho, wo, _ = _plan(x.shape, (kh, kw), strides, padding, "conv2d", dilations)
    out = backend.array_module(x).empty((x.shape[0], ho, wo, cout), x.dtype)
    kernel = w.reshape(kh * kw * cin, cout)
    for first, last, columns in _patch_blocks(x, w.shape, strides, padding, dilations):
        rows = backend.matmul(columns, kernel, out[first:last].reshape(-1, cout))
        if bias is not None:
            rows += bias
    return out


@primitive("conv2d_blocks_input_grad")
def _conv2d_blocks_input_grad(dy, w, image_shape, strides, padding, dilations):
    return _products_to_image(dy, w, image_shape, strides, padding, dilations)


def _products_to_image(dy, w, image_shape, strides, padding, dilations, bias=None):
    """conv2d's adjoint in its input: per block of images, the patches' gradient dy @ w^T,
    added back onto the image (col2im). With the compiled loops each block's sums are
    gathered straight into the output while the block is in cache, plus `bias` on every
    pixel if given (only there: elsewhere the transposed convolution takes its phases).
    This is conv2d_transpose's forward there too (measured: 15-25% faster than its
    per-phase shifted sums, whose adds, bias and strided copies each pass over the output)."""
    kh, kw, cin, cout = w.shape
    n, ho, wo, _ = dy.shape
    xp = backend.array_module(dy)
    out = xp.empty(image_shape, dy.dtype)
    kernel = w.reshape(kh * kw * cin, cout).T
    images, blocks = _image_blocks(n, ho * wo * kh * kw * cin, IM2COL_BLOCK_VALUES)
    columns = xp.empty((images * ho * wo, kh * kw * cin), dy.dtype)
    loops = _compiled_loops(dy)
    if loops is not None:
        _, _, (_, (top, _), (left, _), _) = _plan(image_shape, (kh, kw), strides, padding,
                                                  "conv2d", dilations)
        bias = np.zeros(cin, dy.dtype) if bias is None else bias
    for first, last in blocks:
        block = columns[:(last - first) * ho * wo]
        backend.matmul(dy[first:last].reshape(-1, cout), kernel, block)
        patches = block.reshape(last - first, ho, wo, kh, kw, cin)
        if loops is not None:
            loops.patches_to_image(patches, strides, dilations, top, left, bias, out[first:last])
            continue
        out[first:last] = _patches_to_image.forward(
            patches, (last - first, *image_shape[1:]), (kh, kw), strides, padding, dilations)
    return out


@primitive("conv2d_blocks_filter_grad")
def _conv2d_blocks_filter_grad(x, dy, filter_shape, strides, padding, dilations):
    # the sum over blocks of (the block's patches)^T @ (its rows of dy)
    kh, kw, cin, cout = filter_shape
    grad = backend.array_module(x).zeros((kh * kw * cin, cout), dy.dtype)
    part = None
    for first, last, columns in _patch_blocks(x, filter_shape, strides, padding, dilations):
        part = backend.matmul(columns.T, dy[first:last].reshape(-1, cout), part)
        grad += part
    return grad.reshape(filter_shape)


_close_under_differentiation(_conv2d_blocks, _conv2d_blocks_input_grad,
                             _conv2d_blocks_filter_grad)


def _checked_bias(name: str, bias, channels: int):
    """`bias` as a tensor of shape (channels,), or None."""
    if bias is None:
        return None
    bias = convert_to_tensor(bias)
    if bias.shape != (channels,):
        raise InvalidArgumentError(
            f"{name}: bias shape {bias.shape} must be ({channels},), one value per output "
            "channel"
        )
    return bias


def _with_bias(x, w, bias) -> tuple:
    """The inputs of a primitive that adds `bias` to its output while the output is in
    cache: (x, w, bias), or (x, w) without a bias or when its dtype differs from x's (then
    the caller adds it)."""
    return (x, w) if bias is None or bias.dtype != x.dtype else (x, w, bias)


def _add_unfused_bias(out, inputs: tuple, bias):
    """`out`, plus `bias` unless the primitive given `inputs` added it already."""
    return out if bias is None or len(inputs) == 3 else math_ops.add(out, bias)


def conv2d(input, filters, strides=1, padding: str = "VALID", dilations=1, *,  # noqa: A002
           bias=None):
    """2-D convolution (cross-correlation, as in TF) of NHWC `input` with HWIO `filters`.

    Filter cells are `dilations` apart. When the input has a multiple g of the filters'
    input channels, the convolution is grouped as TF's: input channels and filters are
    split into g consecutive groups, each group of filters seeing one group of channels.

    Args:
        input: an NHWC batch (rank 4: batch, height, width, channels).
        filters: (height, width, in_channels, out_channels).
        strides: the window step: an int, (height, width), or TF's [1, h, w, 1].
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of filter cells, in the same forms.
        bias: an optional (out_channels,) vector added to every output pixel (as a layer's
            bias; on the CPU it is added to each block of the output while that block is
            in cache, instead of in a pass of its own).

    Returns:
        The NHWC output with `out_channels` channels.

    Raises:
        InvalidArgumentError: a rank is wrong, the channels do not fit the filters (both
            shapes named), a size has the wrong form, `padding` is neither mode, or the
            bias is not one value per output channel.

    Example:
        >>> import kerasish as ks
        >>> x, w = ks.ones([1, 5, 5, 4]), ks.ones([3, 3, 2, 6])  # 2 groups
        >>> ks.nn.conv2d(x, w, padding="SAME", dilations=2).shape
        (1, 5, 5, 6)
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters)
    _check_filters("conv2d", w, "HWIO (height, width, in, out)")
    kh, kw, cin, cout = w.shape
    channels = x.shape[3] if x.ndim == 4 else None
    if channels is None or cin == 0 or channels % cin or cout % (channels // cin):
        raise InvalidArgumentError(
            f"conv2d: input shape {x.shape} (NHWC) has {x.shape[-1] if x.ndim else 0} "
            f"channels but filters shape {w.shape} (HWIO) expects {cin} (or a multiple of it "
            f"that divides the {cout} filters into groups)"
        )
    bias = _checked_bias("conv2d", bias, cout)
    groups = channels // cin
    mode = str(padding).upper()
    on_cpu = not backend.is_gpu_array(x._value)  # (unmeasured on GPUs: one im2col there)
    inputs, out = (x, w), None
    if ((kh, kw) != (1, 1) and groups == 1 and on_cpu and x.dtype.kind == "f"
            and mode in ("SAME", "VALID")):
        strides, dilations = _pair(strides, "conv2d"), _pair(dilations, "conv2d")
        ho, wo, _ = _plan(x.shape, (kh, kw), strides, mode, "conv2d", dilations)
        if strides == (1, 1) and _taps_pay(x.shape, w.shape, mode, dilations):
            inputs = _with_bias(x, w, bias)
            out = apply(_conv2d_taps, inputs, {"padding": mode, "dilations": dilations})
        elif x.shape[0] * ho * wo * kh * kw * cin > IM2COL_BLOCK_VALUES:
            # (one patch array of the batch, kept by the tape for the filters' gradient
            # and its product's result reused by ks.function, is faster where it fits
            # one block)
            inputs = _with_bias(x, w, bias)
            out = apply(_conv2d_blocks, inputs,
                        {"strides": strides, "padding": mode, "dilations": dilations})
    if out is None:
        out = _conv2d_by_patches(x, w, groups, strides, padding, dilations)
    return _add_unfused_bias(out, inputs, bias)


def _conv2d_by_patches(x, w, groups, strides, padding, dilations):
    """conv2d as one matmul of the batch's patch array (grouped: one per group), or, for a
    1x1 filter at stride 1, of the image itself."""
    kh, kw, cin, cout = w.shape
    if (kh, kw) == (1, 1) and _pair(strides, "conv2d") == (1, 1) and groups == 1:
        # a 1x1 convolution is a matmul over the channels (no patch copy)
        n, h, wd = x.shape[:3]
        flat = math_ops.matmul(shape_ops.reshape(x, (n * h * wd, cin)),
                               shape_ops.reshape(w, (cin, cout)))
        return shape_ops.reshape(flat, (n, h, wd, cout))
    patches = extract_patches(x, (kh, kw), strides, padding, dilations=dilations)
    n, ho, wo = patches.shape[:3]
    if groups == 1:
        columns = shape_ops.reshape(patches, (n * ho * wo, kh * kw * cin))
        out = math_ops.matmul(columns, shape_ops.reshape(w, (kh * kw * cin, cout)))
        return shape_ops.reshape(out, (n, ho, wo, cout))
    per_group = cout // groups
    if cin == 1:  # depthwise: for each of the per_group filters of a channel, a product and
        # a sum over the window, with the channels as the last, contiguous axis (a batched
        # matmul of inner size kh*kw spends its time in strided copies)
        columns = shape_ops.reshape(patches, (n * ho * wo, kh * kw, groups))
        kernels = shape_ops.reshape(w, (kh * kw, groups, per_group))
        outs = [
            reduction_ops.reduce_sum(columns * kernels[:, :, j], axis=1) for j in range(per_group)
        ]
        out = outs[0] if per_group == 1 else shape_ops.stack(outs, axis=-1)
        return shape_ops.reshape(out, (n, ho, wo, cout))
    # per group g: (windows, kh*kw*cin) @ (kh*kw*cin, cout / groups), as one batched matmul
    columns = shape_ops.reshape(patches, (n * ho * wo, kh * kw, groups, cin))
    columns = shape_ops.reshape(
        shape_ops.transpose(columns, (2, 0, 1, 3)), (groups, n * ho * wo, kh * kw * cin)
    )
    kernels = shape_ops.reshape(w, (kh * kw, cin, groups, per_group))
    kernels = shape_ops.reshape(
        shape_ops.transpose(kernels, (2, 0, 1, 3)), (groups, kh * kw * cin, per_group)
    )
    out = shape_ops.transpose(math_ops.matmul(columns, kernels), (1, 0, 2))
    return shape_ops.reshape(out, (n, ho, wo, cout))


def conv2d_transpose(
    input, filters, output_shape, strides=1, padding: str = "SAME", dilations=1, *,  # noqa: A002
    bias=None,
):
    """The transpose (adjoint) of `conv2d`, as tf.nn.conv2d_transpose: the gradient of a
    convolution of an `output_shape` image, taken with respect to that image.

    Args:
        input: NHWC, with as many channels as `filters` has (its last axis).
        filters: (height, width, out channels, in channels), Keras's Conv2DTranspose layout.
        output_shape: (batch, height, width, out channels) of the result; a convolution of
            such an image with these strides, padding and dilations must give `input`'s
            height and width.
        bias: an optional (out channels,) vector added to every output pixel, as `conv2d`'s.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.conv2d_transpose(ks.ones([1, 3, 3, 4]), ks.ones([3, 3, 2, 4]),
        ...                        [1, 6, 6, 2], strides=2).shape
        (1, 6, 6, 2)
    """
    y = convert_to_tensor(input)
    w = convert_to_tensor(filters)
    _check_filters("conv2d_transpose", w, "(height, width, out, in)")
    kh, kw, cout, cin = w.shape
    image_shape = tuple(int(d) for d in output_shape)
    if y.ndim != 4 or y.shape[3] != cin or len(image_shape) != 4 or image_shape[3] != cout:
        raise InvalidArgumentError(
            f"conv2d_transpose: input shape {y.shape} (NHWC) and output_shape {image_shape} "
            f"must have the {cin} and {cout} channels of filters shape {w.shape} "
            "(height, width, out, in)"
        )
    strides, dilations = _pair(strides, "conv2d_transpose"), _pair(dilations, "conv2d_transpose")
    padding = str(padding).upper()
    ho, wo, _ = _plan(image_shape, (kh, kw), strides, padding, "conv2d_transpose", dilations)
    if (ho, wo) != y.shape[1:3] or image_shape[0] != y.shape[0]:
        raise InvalidArgumentError(
            f"conv2d_transpose: a convolution of an output_shape {image_shape} image with "
            f"strides {strides}, padding {padding!r} and dilations {dilations} has shape "
            f"{(image_shape[0], ho, wo, cin)}, not the input's {y.shape}"
        )
    bias = _checked_bias("conv2d_transpose", bias, cout)
    attrs = {"image_shape": image_shape, "strides": strides, "padding": padding,
             "dilations": dilations}
    inputs = _with_bias(y, w, bias)
    return _add_unfused_bias(apply(_conv2d_transpose, inputs, attrs), inputs, bias)


@primitive("conv2d_transpose")
def _conv2d_transpose(y, w, bias=None, *, image_shape, strides, padding, dilations):
    if _compiled_loops(y) is not None:  # (the adjoint of conv2d in its input, by blocks)
        return _products_to_image(y, w, image_shape, strides, padding, dilations, bias)
    # Output row o takes input row p through filter row i when o + top = p*sh + i*dh. On
    # the outputs of one stride phase, o = u*sh + a, that is p = u + (a + top - i*dh) / sh:
    # a stride-1 shift of y, for each filter row that reaches the phase (and so for
    # columns). Each phase is therefore one `_shifted_sum` of y written into a strided view
    # of the output: one product per filter tap, with no patch array and no col2im.
    kh, kw, cout, cin = w.shape
    sh, sw = strides
    dh, dw = dilations
    _, _, (_, (top, _), (left, _), _) = _plan(
        image_shape, (kh, kw), strides, padding, "conv2d_transpose", dilations)
    xp = backend.array_module(y)
    kernels = w.reshape(kh * kw, cout, cin).transpose(0, 2, 1)
    out = xp.empty(image_shape, dtype=y.dtype)
    for a in range(sh):
        rows = [(i, (a + top - i * dh) // sh) for i in range(kh) if (a + top - i * dh) % sh == 0]
        for b in range(sw):
            cols = [(j, (b + left - j * dw) // sw) for j in range(kw)
                    if (b + left - j * dw) % sw == 0]
            phase = out[:, a::sh, b::sw]
            if not rows or not cols:
                phase[...] = 0 if bias is None else bias
                continue
            # a phase taller or wider than y (VALID) reads zeros past y's edge
            source = _framed(y, max(phase.shape[1], y.shape[1]), max(phase.shape[2], y.shape[2]),
                             xp)
            taps = [(i * kw + j, (di, dj)) for i, di in rows for j, dj in cols]
            _shifted_sum(source, [kernels[t] for t, _ in taps], [o for _, o in taps], phase,
                         bias)
    return out


@_conv2d_transpose.defgrad
def _(op, dy):
    # the adjoint of the forward is the convolution of dy with the same filters; on the
    # CPU by blocks of images, elsewhere from one patch array giving both gradients
    y, w = op.inputs[:2]
    attrs = op.attrs
    conv_attrs = {k: attrs[k] for k in ("strides", "padding", "dilations")}
    if not (op.needs[0] or op.needs[1]):  # the bias's gradient alone
        return None, None, *_bias_gradient(op, dy)
    if not backend.is_gpu_array(dy._value):
        return (*apply(_conv2d_transpose_grads, (dy, y, w),
                       {"needs": op.needs[:2], **conv_attrs}), *_bias_gradient(op, dy))
    kh, kw, cout, cin = w.shape
    n, h, wd = y.shape[:3]
    patches = extract_patches(dy, (kh, kw), attrs["strides"], attrs["padding"],
                              dilations=attrs["dilations"])
    columns = shape_ops.reshape(patches, (n * h * wd, kh * kw * cout))
    dy_input = dw = None
    if op.needs[0]:
        dy_input = shape_ops.reshape(
            math_ops.matmul(columns, shape_ops.reshape(w, (kh * kw * cout, cin))), y.shape)
    if op.needs[1]:
        dw = shape_ops.reshape(
            math_ops.matmul(columns, shape_ops.reshape(y, (n * h * wd, cin)), transpose_a=True),
            w.shape)
    return dy_input, dw, *_bias_gradient(op, dy)


@primitive("conv2d_transpose_grads", multi_output=True)
def _conv2d_transpose_grads(dy, y, w, needs, strides, padding, dilations):
    # (conv2d(dy, w), the filters' gradient of that convolution for output gradient y):
    # the input and filter gradients of a transposed convolution, from one im2col of dy
    # per block of images (a gradient not needed is a broadcast zero, never computed)
    kh, kw, cout, cin = w.shape
    xp = backend.array_module(dy)
    dy_input = xp.empty(y.shape, dy.dtype) if needs[0] else None
    grad = xp.zeros((kh * kw * cout, cin), dy.dtype) if needs[1] else None
    part = None
    kernel = w.reshape(kh * kw * cout, cin)
    for first, last, columns in _patch_blocks(dy, w.shape, strides, padding, dilations):
        if needs[0]:
            backend.matmul(columns, kernel, dy_input[first:last].reshape(-1, cin))
        if needs[1]:
            part = backend.matmul(columns.T, y[first:last].reshape(-1, cin), part)
            grad += part
    nothing = xp.zeros((), dy.dtype)
    return (xp.broadcast_to(nothing, y.shape) if dy_input is None else dy_input,
            xp.broadcast_to(nothing, w.shape) if grad is None else grad.reshape(w.shape))


@_conv2d_transpose_grads.defgrad
def _(op, upstream):
    # both outputs are bilinear: conv(dy, w) in (dy, w), filter_grad(dy, y) in (dy, y); an
    # output not computed (a broadcast zero) passes nothing back
    dy, y, w = op.inputs
    g_input, g_filter = upstream
    computed = op.attrs["needs"]
    attrs = {k: op.attrs[k] for k in ("strides", "padding", "dilations")}
    image = {"image_shape": dy.shape, **attrs}
    d_dy = None
    for done, (g, kernel) in zip(computed, ((g_input, w), (y, g_filter))):
        if done and op.needs[0]:
            part = apply(_conv2d_blocks_input_grad, (g, kernel), image)
            d_dy = part if d_dy is None else d_dy + part
    return (
        d_dy,
        apply(_conv2d_blocks, (dy, g_filter), attrs) if op.needs[1] and computed[1] else None,
        apply(_conv2d_blocks_filter_grad, (dy, g_input), {"filter_shape": w.shape, **attrs})
        if op.needs[2] and computed[0] else None,
    )


def depthwise_conv2d(input, filter, strides=1, padding: str = "VALID", dilations=1):  # noqa: A002
    """Each input channel convolved with its own `multiplier` filters, as
    tf.nn.depthwise_conv2d: `filter` is (height, width, in, multiplier) and output channel
    c * multiplier + m comes from channel c and filter m.

    Args:
        input: an NHWC batch (rank 4: batch, height, width, channels).
        filter: (height, width, in_channels, multiplier).
        strides: the window step: an int, (height, width), or TF's [1, h, w, 1].
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of filter cells, in the same forms.

    Returns:
        The NHWC output with in_channels * multiplier channels.

    Raises:
        InvalidArgumentError: a rank is wrong, or the input's channels are not the filter's.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.depthwise_conv2d(ks.ones([1, 4, 4, 3]), ks.ones([2, 2, 3, 2])).shape
        (1, 3, 3, 6)
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter)
    _check_filters("depthwise_conv2d", w, "(height, width, in, multiplier)")
    kh, kw, cin, multiplier = w.shape
    if x.ndim != 4 or x.shape[3] != cin:
        raise InvalidArgumentError(
            f"depthwise_conv2d: input shape {x.shape} (NHWC) must have the {cin} channels "
            f"of filter shape {w.shape} (height, width, in, multiplier)"
        )
    grouped = shape_ops.reshape(w, (kh, kw, 1, cin * multiplier))  # one group per channel
    return conv2d(x, grouped, strides, padding, dilations)


def separable_conv2d(
    input, depthwise_filter, pointwise_filter, strides=1, padding: str = "VALID",  # noqa: A002
    dilations=1,
):
    """A depthwise convolution followed by a 1x1 convolution mixing its channels, as
    tf.nn.separable_conv2d; `pointwise_filter` is (1, 1, in * multiplier, out).

    Args:
        input: an NHWC batch (rank 4: batch, height, width, channels).
        depthwise_filter: (height, width, in_channels, multiplier).
        pointwise_filter: (1, 1, in_channels * multiplier, out_channels).
        strides: the depthwise window step: an int, (height, width), or TF's [1, h, w, 1].
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of depthwise filter cells, in the same forms.

    Returns:
        The NHWC output with `out_channels` channels.

    Raises:
        InvalidArgumentError: as `depthwise_conv2d` and `conv2d` do.

    Example:
        >>> import kerasish as ks
        >>> x = ks.ones([1, 4, 4, 3])
        >>> ks.nn.separable_conv2d(x, ks.ones([2, 2, 3, 2]), ks.ones([1, 1, 6, 5])).shape
        (1, 3, 3, 5)
    """
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID")


def conv1d(input, filters, stride=1, padding: str = "VALID", dilations=1, *,  # noqa: A002
           bias=None):
    """1-D convolution of NWC `input` with (width, in, out) `filters`, as tf.nn.conv1d;
    it runs as a 2-D convolution of height 1 (grouped when the input has a multiple of the
    filters' input channels).

    Args:
        input: an NWC batch (rank 3: batch, width, channels).
        filters: (width, in_channels, out_channels).
        stride: the window step: an int or a one-element sequence.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of filter cells.
        bias: an optional (out_channels,) vector added to every output step, as `conv2d`'s.

    Returns:
        The NWC output with `out_channels` channels.

    Raises:
        InvalidArgumentError: a rank is wrong, the channels do not fit, or `stride` is not one
            value.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.conv1d(ks.ones([2, 10, 3]), ks.ones([3, 3, 8]), padding="SAME").shape
        (2, 10, 8)
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters)
    if x.ndim != 3 or w.ndim != 3:
        raise InvalidArgumentError(
            f"conv1d: input must be NWC (rank 3) and filters (width, in, out) (rank 3), got "
            f"shapes {x.shape} and {w.shape}"
        )
    out = conv2d(
        shape_ops.expand_dims(x, 1), shape_ops.expand_dims(w, 0), (1, _single(stride)),
        padding, (1, _single(dilations)), bias=bias,
    )
    return shape_ops.squeeze(out, 1)


def _single(value) -> int:
    """An int from an int or a one-element sequence (TF's 1-D stride forms)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = tuple(int(v) for v in value)
    if len(value) == 3 and value[0] == value[2] == 1:  # TF's NWC form [1, s, 1]
        return value[1]
    if len(value) != 1:
        raise InvalidArgumentError(f"conv1d: expected an int or 1 value, got {value}")
    return value[0]


# ---------------------------------------------------------------- pooling
#
# Windows that tile the image (strides == ksize, the usual 2x2/2 pooling) are
# pooled on strided views, with no patch array: `max_pool_blocks` (its gradient is
# the fused `max_pool_blocks_grad`, linear in dy, as TF's MaxPoolGrad), and
# `block_sum` with its adjoint `block_spread` for average pooling. Other windows go
# through `extract_patches` and a reduction. Both routes give the same values and
# gradients (ties in a max share its gradient equally, as `reduce_max` does).


def _blocks_plan(shape, ksize, padding, name):
    """(out_h, out_w, pads) for blocks of `ksize` tiling an NHWC image of `shape`."""
    if len(shape) != 4:
        raise InvalidArgumentError(
            f"{name}: input must be NHWC (rank 4: batch, height, width, channels), "
            f"got shape {shape}"
        )
    ho, top, bottom = _padding_plan(shape[1], ksize[0], ksize[0], padding, name)
    wo, left, right = _padding_plan(shape[2], ksize[1], ksize[1], padding, name)
    return ho, wo, ((0, 0), (top, bottom), (left, right), (0, 0))


def _padded(x, pads, pad_value):
    if any(p for pair in pads for p in pair):
        return backend.array_module(x).pad(x, pads, constant_values=pad_value)
    return x


def _block_views(x, ksize, ho, wo):
    """The kh*kw strided views x[:, i::kh, j::kw] (each (N, out_h, out_w, C)), row-major."""
    kh, kw = ksize
    return [x[:, i : ho * kh : kh, j : wo * kw : kw, :] for i in range(kh) for j in range(kw)]


@primitive("max_pool_blocks")
def _max_pool_blocks(x, ksize, padding):
    ho, wo, pads = _blocks_plan(x.shape, ksize, padding, "max_pool2d")
    xp = backend.array_module(x)
    views = _block_views(_padded(x, pads, -np.inf), ksize, ho, wo)
    out = views[0].copy()
    for view in views[1:]:
        xp.maximum(out, view, out=out)
    return out


@_max_pool_blocks.defgrad
def _(op, dy):
    return (apply(_max_pool_blocks_grad, (op.inputs[0], op.output, dy), op.attrs),)


def _max_pool_hits(x, y, ksize, padding):
    """(padded shape, crop, [x's cell (i, j) of each block is its max], number of such cells)."""
    ho, wo, pads = _blocks_plan(x.shape, ksize, padding, "max_pool2d")
    padded = _padded(x, pads, -np.inf)
    hits = [view == y for view in _block_views(padded, ksize, ho, wo)]
    # 1..kh*kw (a block of NaNs: 0), in the narrowest type that holds kh*kw ties (uint8's
    # adds of the bool masks are the fastest; a wrapped count would share dy wrongly)
    cells = ksize[0] * ksize[1]
    count = hits[0].astype(np.uint8 if cells < 256 else np.uint16 if cells < 65536 else np.uint32)
    for hit in hits[1:]:
        count += hit.view(np.uint8) if count.dtype == np.uint8 else hit
    (_, (top, _), (left, _), _) = pads
    crop = (slice(None), slice(top, top + x.shape[1]), slice(left, left + x.shape[2]), slice(None))
    return padded.shape, crop, hits, count


@primitive("max_pool_blocks_grad")
def _max_pool_blocks_grad(x, y, dy, ksize, padding):
    """max_pool_blocks' input gradient: each block's dy goes to the cell holding its max,
    shared equally between tied cells (TF's MaxPoolGrad, with reduce_max's tie rule)."""
    loops = _compiled_loops(x)
    if loops is not None and dy.dtype == x.dtype:  # (one pass over each block, no masks)
        ho, wo, pads = _blocks_plan(x.shape, ksize, padding, "max_pool2d")
        (_, (top, _), (left, _), _) = pads
        covered = top + x.shape[1] <= ho * ksize[0] and left + x.shape[2] <= wo * ksize[1]
        out = (np.empty if covered else np.zeros)(x.shape, dtype=dy.dtype)
        loops.max_pool_blocks_grad(x, y, dy, *ksize, top, left, out)
        return out
    shape, crop, hits, count = _max_pool_hits(x, y, ksize, padding)
    xp = backend.array_module(x)
    routed = dy / count
    ho, wo = count.shape[1:3]
    covered = shape[1:3] == (ho * ksize[0], wo * ksize[1])  # no cell outside every block
    out = (xp.empty if covered else xp.zeros)(shape, dtype=dy.dtype)
    for view, hit in zip(_block_views(out, ksize, ho, wo), hits):
        xp.multiply(hit, routed, out=view)
    return out[crop]


@_max_pool_blocks_grad.defgrad
def _(op, ddx):
    # linear in dy: its adjoint sums each block's ddx weighted by the same shares; the
    # shares are constant in x and y (their derivative is 0 almost everywhere)
    x, y = op.inputs[0]._value, op.inputs[1]._value
    ksize, padding = op.attrs["ksize"], op.attrs["padding"]
    shape, crop, hits, count = _max_pool_hits(x, y, ksize, padding)
    xp = backend.array_module(x)
    share = xp.zeros(shape, dtype=x.dtype)
    for view, hit in zip(_block_views(share, ksize, count.shape[1], count.shape[2]), hits):
        xp.divide(hit, count, out=view)
    weighted = ddx * Tensor(share[crop])
    return None, None, apply(_block_sum, (weighted,), {"ksize": ksize, "padding": padding})


@primitive("block_sum")
def _block_sum(x, ksize, padding):
    ho, wo, pads = _blocks_plan(x.shape, ksize, padding, "block_sum")
    views = _block_views(_padded(x, pads, 0), ksize, ho, wo)
    out = views[0].copy()
    for view in views[1:]:
        out += view
    return out


@_block_sum.defgrad
def _(op, dy):
    attrs = op.attrs
    return (apply(_block_spread, (dy,), {"image_shape": op.inputs[0].shape,
                                         "ksize": attrs["ksize"], "padding": attrs["padding"]}),)


@primitive("block_spread")
def _block_spread(blocks, image_shape, ksize, padding):
    """The adjoint of block_sum: each block's value copied to every cell of its block."""
    ho, wo, pads = _blocks_plan(image_shape, ksize, padding, "block_spread")
    n, h, w, c = image_shape
    (_, (top, bottom), (left, right), _) = pads
    xp = backend.array_module(blocks)
    out = xp.zeros((n, h + top + bottom, w + left + right, c), dtype=blocks.dtype)
    for view in _block_views(out, ksize, ho, wo):
        view[...] = blocks
    return out[:, top : top + h, left : left + w, :]


@_block_spread.defgrad
def _(op, dy):
    attrs = op.attrs
    return (apply(_block_sum, (dy,), {"ksize": attrs["ksize"], "padding": attrs["padding"]}),)


def _pool_route(x, ksize, strides, padding, name):
    """(ksize, strides, padding, True if the windows tile the image)."""
    ksize, strides = _pair(ksize, name), _pair(strides, name)
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{name}: padding must be 'SAME' or 'VALID', got {padding!r}")
    return ksize, strides, padding, ksize == strides and x.ndim == 4


def max_pool2d(input, ksize, strides, padding: str = "VALID"):  # noqa: A002
    """Max over windows of an NHWC batch (padding never wins the max).

    Args:
        input: an NHWC batch (rank 4: batch, height, width, channels).
        ksize: the window size: an int, (height, width), or TF's [1, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).

    Returns:
        The pooled NHWC batch; the gradient goes to each window's maximum.

    Raises:
        InvalidArgumentError: `input` is not rank 4, a size has the wrong form, or `padding`
            is neither mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(16.0), (1, 4, 4, 1))
        >>> ks.nn.max_pool2d(x, 2, 2).numpy().reshape(-1).tolist()
        [5.0, 7.0, 13.0, 15.0]
    """
    x = convert_to_tensor(input)
    ksize, strides, padding, tiles = _pool_route(x, ksize, strides, padding, "max_pool2d")
    if tiles:
        return apply(_max_pool_blocks, (x,), {"ksize": ksize, "padding": padding})
    patches = extract_patches(x, ksize, strides, padding, pad_value=-np.inf)
    return reduction_ops.reduce_max(patches, axis=(3, 4))


def avg_pool2d(input, ksize, strides, padding: str = "VALID"):  # noqa: A002
    """Mean over windows of an NHWC batch; with SAME padding, padded cells are not counted.

    Args:
        input: an NHWC batch (rank 4: batch, height, width, channels).
        ksize: the window size: an int, (height, width), or TF's [1, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).

    Returns:
        The pooled NHWC batch.

    Raises:
        InvalidArgumentError: `input` is not rank 4, a size has the wrong form, or `padding`
            is neither mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(16.0), (1, 4, 4, 1))
        >>> ks.nn.avg_pool2d(x, 2, 2).numpy().reshape(-1).tolist()
        [2.5, 4.5, 10.5, 12.5]
    """
    x = convert_to_tensor(input)
    ksize, strides, padding, tiles = _pool_route(x, ksize, strides, padding, "avg_pool2d")
    if tiles:
        total = apply(_block_sum, (x,), {"ksize": ksize, "padding": padding})
        if padding == "VALID":
            return total * (1.0 / (ksize[0] * ksize[1]))
        ones = backend.array_module(x._value).ones((1,) + x.shape[1:3] + (1,), x.dtype)
        return total / Tensor(_block_sum.forward(ones, ksize, padding))
    total = reduction_ops.reduce_sum(extract_patches(x, ksize, strides, padding), axis=(3, 4))
    counts = extract_patches(creation_ops.ones_like(x[:1, :, :, :1]), ksize, strides, padding)
    return total / reduction_ops.reduce_sum(counts, axis=(3, 4))


# ---------------------------------------------------------------- volumes (3-D)
#
# The 3-D family is built as the 2-D one: `extract_volume_patches` (im2col over an
# NDHWC volume) and its adjoint `patches_to_volume` are the two linear primitives;
# conv3d is patches and one matmul, conv3d_transpose one matmul and patches_to_volume
# (the adjoint of conv3d, so its gradients are conv3d's), and 3-D pooling reduces
# the patches. Gradients of every order come from those two primitives.


def _triple(value, name: str) -> tuple:
    """(depth, height, width) from an int, 1 or 3 values, or TF's [1, d, h, w, 1]."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 3
    value = tuple(int(v) for v in value)
    if len(value) == 5:
        if value[0] != 1 or value[4] != 1:
            raise InvalidArgumentError(f"{name}: batch and channel entries must be 1, got {value}")
        return value[1:4]
    if len(value) == 1:
        return value * 3
    if len(value) != 3:
        raise InvalidArgumentError(f"{name}: expected 1, 3 or 5 values, got {value}")
    return value


def _volume_plan(shape, ksize, strides, padding, name, dilations=(1, 1, 1)):
    """(output sizes (d, h, w), pads) of windows of `ksize` on an NDHWC `shape`."""
    if len(shape) != 5:
        raise InvalidArgumentError(
            f"{name}: input must be NDHWC (rank 5: batch, depth, height, width, channels), "
            f"got shape {tuple(shape)}"
        )
    sizes, pads = [], [(0, 0)]
    for size, k, s, d in zip(shape[1:4], ksize, strides, dilations):
        out, before, after = _padding_plan(size, (k - 1) * d + 1, s, padding, name)
        sizes.append(out)
        pads.append((before, after))
    return tuple(sizes), tuple(pads) + ((0, 0),)


def _volume_taps(ksize, strides, dilations, sizes):
    """For each window cell (i, j, l): its index and the strided slices it reads."""
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            for m in range(ksize[2]):
                yield (i, j, m), tuple(
                    slice(t * d, t * d + s * o, s)
                    for t, d, s, o in zip((i, j, m), dilations, strides, sizes)
                )


@primitive("extract_volume_patches")
def _extract_volume_patches(x, ksize, strides, padding, pad_value, dilations):
    sizes, pads = _volume_plan(x.shape, ksize, strides, padding, "extract_volume_patches",
                               dilations)
    xp = backend.array_module(x)
    if any(p for pair in pads for p in pair):
        x = xp.pad(x, pads, constant_values=pad_value)
    n, c = x.shape[0], x.shape[4]
    out = xp.empty((n, *sizes, *ksize, c), dtype=x.dtype)
    for (i, j, m), cells in _volume_taps(ksize, strides, dilations, sizes):
        out[:, :, :, :, i, j, m, :] = x[(slice(None), *cells, slice(None))]
    return out


@_extract_volume_patches.defgrad
def _(op, dy):
    attrs = op.attrs
    return (patches_to_volume(dy, op.inputs[0].shape, attrs["ksize"], attrs["strides"],
                              attrs["padding"], attrs["dilations"]),)


@primitive("patches_to_volume")
def _patches_to_volume(patches, image_shape, ksize, strides, padding, dilations):
    sizes, pads = _volume_plan(image_shape, ksize, strides, padding, "patches_to_volume",
                               dilations)
    xp = backend.array_module(patches)
    padded = tuple(size + before + after for size, (before, after) in zip(image_shape, pads))
    out = xp.zeros(padded, dtype=patches.dtype)
    for (i, j, m), cells in _volume_taps(ksize, strides, dilations, sizes):
        out[(slice(None), *cells, slice(None))] += patches[:, :, :, :, i, j, m, :]
    crop = tuple(slice(before, before + size) for size, (before, _) in zip(image_shape, pads))
    return out[crop]


@_patches_to_volume.defgrad
def _(op, dy):
    attrs = op.attrs
    return (extract_volume_patches(dy, attrs["ksize"], attrs["strides"], attrs["padding"],
                                   dilations=attrs["dilations"]),)


def extract_volume_patches(
    input, ksizes, strides, padding: str = "VALID", pad_value: float = 0.0,  # noqa: A002
    dilations=1,
):
    """Sliding windows of an NDHWC batch, as tf.extract_volume_patches but with the window
    kept as axes: shape (N, out_d, out_h, out_w, kd, kh, kw, C).

    Args:
        input: an NDHWC batch (rank 5: batch, depth, height, width, channels).
        ksizes: the window size: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        pad_value: the value of the padding cells.
        dilations: the spacing of window cells, in the same forms.

    Returns:
        The windows; the gradient is `patches_to_volume`.

    Raises:
        InvalidArgumentError: `input` is not rank 5, a size has the wrong form, a window is
            larger than the input with 'VALID', or `padding` is neither mode.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.extract_volume_patches(ks.ones([1, 4, 4, 4, 2]), 2, 2).shape
        (1, 2, 2, 2, 2, 2, 2, 2)
    """
    attrs = {
        "ksize": _triple(ksizes, "extract_volume_patches"),
        "strides": _triple(strides, "extract_volume_patches"),
        "padding": str(padding).upper(),
        "pad_value": pad_value,
        "dilations": _triple(dilations, "extract_volume_patches"),
    }
    return apply(_extract_volume_patches, (convert_to_tensor(input),), attrs)


def patches_to_volume(patches, image_shape, ksizes, strides, padding: str = "VALID",
                      dilations=1):
    """The adjoint of `extract_volume_patches` (col2im in 3-D): every patch entry added
    back onto the cell of the NDHWC volume of `image_shape` it was taken from.

    Args:
        patches: a tensor shaped as `extract_volume_patches` returns for this volume.
        image_shape: the NDHWC shape of the volume.
        ksizes: the window size: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of window cells, in the same forms.

    Returns:
        A tensor of `image_shape`.

    Raises:
        InvalidArgumentError: a size has the wrong form, or `padding` is neither mode.

    Example:
        >>> import kerasish as ks
        >>> patches = ks.nn.extract_volume_patches(ks.ones([1, 3, 3, 3, 1]), 2, 1)
        >>> ks.nn.patches_to_volume(patches, (1, 3, 3, 3, 1), 2, 1).numpy()[0, :, 1, 1, 0].tolist()
        [4.0, 8.0, 4.0]
    """
    image_shape = tuple(int(d) for d in image_shape)
    attrs = {
        "image_shape": image_shape,
        "ksize": _triple(ksizes, "patches_to_volume"),
        "strides": _triple(strides, "patches_to_volume"),
        "padding": str(padding).upper(),
        "dilations": _triple(dilations, "patches_to_volume"),
    }
    patches = convert_to_tensor(patches)
    sizes, _ = _volume_plan(image_shape, attrs["ksize"], attrs["strides"], attrs["padding"],
                            "patches_to_volume", attrs["dilations"])
    expected = (image_shape[0], *sizes, *attrs["ksize"], image_shape[4])
    if patches.shape != expected:
        raise InvalidArgumentError(
            f"patches_to_volume: patches of shape {patches.shape} do not fit a volume of shape "
            f"{image_shape} with these windows: expected {expected}"
        )
    return apply(_patches_to_volume, (patches,), attrs)


def conv3d(input, filters, strides=1, padding: str = "VALID", dilations=1):  # noqa: A002
    """3-D convolution (cross-correlation, as in TF) of NDHWC `input` with DHWIO `filters`.

    As `conv2d`: filter cells are `dilations` apart, and an input with a multiple g of the
    filters' input channels is convolved in g groups (Keras's `groups`).

    Args:
        input: an NDHWC batch (rank 5: batch, depth, height, width, channels).
        filters: (depth, height, width, in_channels, out_channels).
        strides: the window step: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).
        dilations: the spacing of filter cells, in the same forms.

    Returns:
        The NDHWC output with `out_channels` channels.

    Raises:
        InvalidArgumentError: a rank is wrong, the channels do not fit the filters (both
            shapes named), a size has the wrong form, or `padding` is neither mode.

    Example:
        >>> import kerasish as ks
        >>> ks.nn.conv3d(ks.ones([1, 4, 5, 6, 2]), ks.ones([3, 3, 3, 2, 8]), padding="SAME").shape
        (1, 4, 5, 6, 8)
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters)
    if w.ndim != 5:
        raise InvalidArgumentError(
            f"conv3d: filters must be DHWIO (depth, height, width, in, out) (rank 5), got "
            f"shape {w.shape}"
        )
    if x.ndim != 5:
        raise InvalidArgumentError(
            f"conv3d: input must be NDHWC (rank 5: batch, depth, height, width, channels), "
            f"got shape {x.shape}"
        )
    kd, kh, kw, cin, cout = w.shape
    channels = x.shape[4]
    if cin == 0 or channels % cin or cout % (channels // cin):
        raise InvalidArgumentError(
            f"conv3d: input shape {x.shape} (NDHWC) has {channels} "
            f"channels but filters shape {w.shape} (DHWIO) expects {cin} (or a multiple of it "
            f"that divides the {cout} filters into groups)"
        )
    groups = channels // cin
    patches = extract_volume_patches(x, (kd, kh, kw), strides, padding, dilations=dilations)
    n, od, oh, ow = patches.shape[:4]
    windows, taps = n * od * oh * ow, kd * kh * kw
    if groups == 1:
        columns = shape_ops.reshape(patches, (windows, taps * cin))
        out = math_ops.matmul(columns, shape_ops.reshape(w, (taps * cin, cout)))
        return shape_ops.reshape(out, (n, od, oh, ow, cout))
    per_group = cout // groups
    columns = shape_ops.reshape(patches, (windows, taps, groups, cin))
    columns = shape_ops.reshape(
        shape_ops.transpose(columns, (2, 0, 1, 3)), (groups, windows, taps * cin))
    kernels = shape_ops.reshape(w, (taps, cin, groups, per_group))
    kernels = shape_ops.reshape(
        shape_ops.transpose(kernels, (2, 0, 1, 3)), (groups, taps * cin, per_group))
    out = shape_ops.transpose(math_ops.matmul(columns, kernels), (1, 0, 2))
    return shape_ops.reshape(out, (n, od, oh, ow, cout))


def conv3d_transpose(
    input, filters, output_shape, strides=1, padding: str = "SAME", dilations=1  # noqa: A002
):
    """The transpose (adjoint) of `conv3d`, as tf.nn.conv3d_transpose: the gradient of a
    convolution of an `output_shape` volume, taken with respect to that volume.

    It is one matmul (each input cell times every filter tap) and `patches_to_volume`
    adding the taps onto the volume, so its gradients are those primitives'.

    Args:
        input: NDHWC, with as many channels as `filters` has (its last axis).
        filters: (depth, height, width, out channels, in channels), Keras's
            Conv3DTranspose layout.
        output_shape: (batch, depth, height, width, out channels) of the result; a
            convolution of such a volume with these strides, padding and dilations must
            give `input`'s spatial shape.
        strides: the window step: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        padding: 'VALID' or 'SAME', as for the forward convolution.
        dilations: the spacing of filter cells, in the same forms.

    Returns:
        A tensor of `output_shape`.

    Raises:
        InvalidArgumentError: the channels or shapes do not fit (all named).

    Example:
        >>> import kerasish as ks
        >>> ks.nn.conv3d_transpose(ks.ones([1, 2, 3, 3, 4]), ks.ones([3, 3, 3, 2, 4]),
        ...                        [1, 4, 6, 6, 2], strides=2).shape
        (1, 4, 6, 6, 2)
    """
    y = convert_to_tensor(input)
    w = convert_to_tensor(filters)
    if w.ndim != 5:
        raise InvalidArgumentError(
            f"conv3d_transpose: filters must be (depth, height, width, out, in) (rank 5), got "
            f"shape {w.shape}"
        )
    kd, kh, kw, cout, cin = w.shape
    image_shape = tuple(int(d) for d in output_shape)
    if y.ndim != 5 or y.shape[4] != cin or len(image_shape) != 5 or image_shape[4] != cout:
        raise InvalidArgumentError(
            f"conv3d_transpose: input shape {y.shape} (NDHWC) and output_shape {image_shape} "
            f"must have the {cin} and {cout} channels of filters shape {w.shape} "
            "(depth, height, width, out, in)"
        )
    strides = _triple(strides, "conv3d_transpose")
    dilations = _triple(dilations, "conv3d_transpose")
    padding = str(padding).upper()
    sizes, _ = _volume_plan(image_shape, (kd, kh, kw), strides, padding, "conv3d_transpose",
                            dilations)
    if sizes != y.shape[1:4] or image_shape[0] != y.shape[0]:
        raise InvalidArgumentError(
            f"conv3d_transpose: a convolution of an output_shape {image_shape} volume with "
            f"strides {strides}, padding {padding!r} and dilations {dilations} has shape "
            f"{(image_shape[0], *sizes, cin)}, not the input's {y.shape}"
        )
    n, d, h, wd = y.shape[:4]
    taps = kd * kh * kw
    columns = math_ops.matmul(shape_ops.reshape(y, (n * d * h * wd, cin)),
                              shape_ops.reshape(w, (taps * cout, cin)), transpose_b=True)
    patches = shape_ops.reshape(columns, (n, d, h, wd, kd, kh, kw, cout))
    return patches_to_volume(patches, image_shape, (kd, kh, kw), strides, padding, dilations)


def _pool3d_args(x, ksize, strides, padding, name):
    if x.ndim != 5:
        raise InvalidArgumentError(
            f"{name}: input must be NDHWC (rank 5: batch, depth, height, width, channels), "
            f"got shape {x.shape}"
        )
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{name}: padding must be 'SAME' or 'VALID', got {padding!r}")
    return _triple(ksize, name), _triple(strides, name), padding


def max_pool3d(input, ksize, strides, padding: str = "VALID"):  # noqa: A002
    """Max over windows of an NDHWC batch (padding never wins the max).

    Args:
        input: an NDHWC batch (rank 5: batch, depth, height, width, channels).
        ksize: the window size: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).

    Returns:
        The pooled NDHWC batch; the gradient goes to each window's maximum (shared by ties).

    Raises:
        InvalidArgumentError: `input` is not rank 5, a size has the wrong form, or `padding`
            is neither mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(8.0), (1, 2, 2, 2, 1))
        >>> ks.nn.max_pool3d(x, 2, 2).numpy().reshape(-1).tolist()
        [7.0]
    """
    x = convert_to_tensor(input)
    ksize, strides, padding = _pool3d_args(x, ksize, strides, padding, "max_pool3d")
    patches = extract_volume_patches(x, ksize, strides, padding, pad_value=-np.inf)
    return reduction_ops.reduce_max(patches, axis=(4, 5, 6))


def avg_pool3d(input, ksize, strides, padding: str = "VALID"):  # noqa: A002
    """Mean over windows of an NDHWC batch; with SAME padding, padded cells are not counted.

    Args:
        input: an NDHWC batch (rank 5: batch, depth, height, width, channels).
        ksize: the window size: an int, (depth, height, width), or TF's [1, d, h, w, 1].
        strides: the window step, in the same forms.
        padding: 'VALID' (windows inside the input) or 'SAME' (output size ceil(in / stride)).

    Returns:
        The pooled NDHWC batch.

    Raises:
        InvalidArgumentError: `input` is not rank 5, a size has the wrong form, or `padding`
            is neither mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(8.0), (1, 2, 2, 2, 1))
        >>> ks.nn.avg_pool3d(x, 2, 2).numpy().reshape(-1).tolist()
        [3.5]
    """
    x = convert_to_tensor(input)
    ksize, strides, padding = _pool3d_args(x, ksize, strides, padding, "avg_pool3d")
    total = reduction_ops.reduce_sum(extract_volume_patches(x, ksize, strides, padding),
                                axis=(4, 5, 6))
    if padding == "VALID":
        return total * (1.0 / (ksize[0] * ksize[1] * ksize[2]))
    ones = creation_ops.ones_like(x[:1, :, :, :, :1])
    counts = reduction_ops.reduce_sum(extract_volume_patches(ones, ksize, strides, padding),
                                 axis=(4, 5, 6))
    return total / counts


def transpose_output_length(size, kernel: int, stride: int, padding: str,
                            output_padding=None, dilation: int = 1):
    """The length of one spatial axis of a transposed convolution's output, as Keras
    computes it (None stays None), k being the dilated kernel size: `size * stride +
    max(k - stride, 0)` ('valid') or `size * stride` ('same') without `output_padding`;
    with it, `(size - 1) * stride + k - 2 * pad + output_padding`, pad = k // 2 for
    'same', 0 for 'valid'.

    Args:
        size: the input's length on this axis (or None).
        kernel: the kernel's size on this axis.
        stride: the stride on this axis.
        padding: 'valid' or 'same' (any case).
        output_padding: None, or the extra cells on this axis.
        dilation: the kernel's dilation on this axis.

    Returns:
        The output length, or None.

    Example:
        >>> from kerasish.core.ops.conv_ops import transpose_output_length
        >>> transpose_output_length(4, 3, 2, "valid"), transpose_output_length(4, 3, 2, "same", 1)
        (9, 8)
    """
    if size is None:
        return None
    k = (kernel - 1) * dilation + 1
    same = str(padding).lower() == "same"
    if output_padding is None:
        return size * stride + (0 if same else max(k - stride, 0))
    pad = k // 2 if same else 0
    return (size - 1) * stride + k - 2 * pad + output_padding


# ---------------------------------------------------------------- adaptive pooling


def _adaptive_bounds(size: int, out: int) -> list:
    """PyTorch's and Keras's windows: output i pools [floor(i * size / out),
    ceil((i + 1) * size / out))."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def adaptive_pool(input, output_size, mode: str = "average"):  # noqa: A002
    """Pool a channels-last batch (1 to 3 spatial axes) down to `output_size` cells per
    spatial axis, each output cell pooling a window that Keras (and PyTorch) place at
    [floor(i * size / out), ceil((i + 1) * size / out)).

    Box means and maxima are separable, so it pools one axis at a time: a slice and a
    reduction per output cell, whose gradients are those of slicing and `reduce_mean` /
    `reduce_max` (ties in a max share the gradient).

    Args:
        input: (batch, spatial..., channels).
        output_size: an int, or one per spatial axis.
        mode: 'average' or 'max'.

    Returns:
        (batch, *output_size, channels).

    Raises:
        InvalidArgumentError: a rank outside 3..5, an output size that is not a positive int
            per spatial axis, or an unknown mode.

    Example:
        >>> import kerasish as ks
        >>> x = ks.reshape(ks.range(5.0), (1, 5, 1))
        >>> ks.nn.adaptive_pool(x, 2, "max").numpy().reshape(-1).tolist()
        [2.0, 4.0]
    """
    x = convert_to_tensor(input)
    rank = x.ndim - 2
    if rank not in (1, 2, 3):
        raise InvalidArgumentError(
            f"adaptive_pool: input must have 1 to 3 spatial axes (rank 3 to 5: batch, "
            f"spatial..., channels), got shape {x.shape}"
        )
    sizes = (output_size,) * rank if isinstance(output_size, (int, np.integer)) else tuple(
        output_size)
    if len(sizes) != rank or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 for v in sizes
    ):
        raise InvalidArgumentError(
            f"adaptive_pool: output_size must be a positive int or {rank} of them for input "
            f"shape {x.shape}, got {output_size!r}"
        )
    reduce = {"average": reduction_ops.reduce_mean, "max": reduction_ops.reduce_max}.get(mode)
    if reduce is None:
        raise InvalidArgumentError(
            f"adaptive_pool: mode must be 'average' or 'max', got {mode!r}")
    for axis, out in enumerate(sizes, start=1):
        size = x.shape[axis]
        if size == out:
            continue
        lead = (slice(None),) * axis
        cells = [reduce(x[(*lead, slice(start, end))], axis=axis, keepdims=True)
                 for start, end in _adaptive_bounds(size, int(out))]
        x = cells[0] if len(cells) == 1 else shape_ops.concat(cells, axis)
    return x
