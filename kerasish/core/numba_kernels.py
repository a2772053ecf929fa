"""Compiled loops for jobs that NumPy has no fast form of (numba, the optional extra
`kerasish[fast]`).

`backend.numba_kernels()` imports this module on first use; without numba, or with
`KERASISH_NUMBA=0`, its callers take their NumPy forms. The LSTM loops give the bits of those
forms, except the float32 step, whose tanh and sigmoid are rational approximations within an
ulp of NumPy's; the im2col and col2im loops and max pooling's gradient give their bits;
`scatter_add_rows` adds a repeated row's updates in another order than NumPy's summed
repeats; the Winograd transforms give a convolution other roundings than its per-tap
products (about 1e-6 of the largest value in float32), and a transposed convolution
gathered by col2im sums its products in another order than its per-phase shifted sums.
"""

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def scatter_add_rows(target, indices, rows, scale):
    """Add `scale * rows[i]` to `target[indices[i]]` for each i in order, in place.

    `target` is (N, W) and `rows` is (n, W), both C-contiguous and of one dtype, and
    `scale` is of that dtype. Returns -1, or the position of the first index outside
    [0, N); in that case nothing is changed.
    """
    limit = target.shape[0]
    for i in range(indices.shape[0]):
        if indices[i] < 0 or indices[i] >= limit:
            return i
    for i in range(indices.shape[0]):
        row = indices[i]
        for j in range(rows.shape[1]):
            target[row, j] += scale * rows[i, j]
    return -1


# -- an LSTM step's gate arithmetic (core/ops/rnn_ops.py) ------------------------------------
# The gates are i, f, c~, o (Keras's order) in blocks of `units` columns. Each loop runs over
# one batch row's contiguous blocks, in the order of operations of the NumPy passes it
# replaces, so the bits are the same. NumPy's vectorised exp and tanh stay in between:
# numba's scalar calls to them are some 3x slower.


@numba.njit(cache=True, nogil=True)
def lstm_gate_inputs(z, projected):
    """z = h @ U (in place) plus the step's projected input; the sigmoid gates (i, f, o)
    negated, ready for exp."""
    units = z.shape[1] // 4
    for b in range(z.shape[0]):
        row, extra = z[b], projected[b]
        for k in range(2 * units):
            row[k] = -(row[k] + extra[k])
        for k in range(2 * units, 3 * units):
            row[k] = row[k] + extra[k]
        for k in range(3 * units, 4 * units):
            row[k] = -(row[k] + extra[k])


@numba.njit(cache=True, nogil=True, error_model="numpy")
def lstm_cell_state(z, c, c_next):
    """With z's sigmoid blocks holding exp(-x) and its candidate block tanh(x): the
    sigmoids 1 / (1 + exp(-x)) written into z, and c_next = f * c + c~ * i. (One loop per
    block, with NumPy's division semantics, so that LLVM vectorises the divisions: twice
    as fast as one loop over all four gates, and the same bits.)"""
    units = c.shape[1]
    one = z.dtype.type(1.0)
    for b in range(z.shape[0]):
        row, c_row, out = z[b], c[b], c_next[b]
        for k in range(2 * units):
            row[k] = one / (one + row[k])
        for k in range(3 * units, 4 * units):
            row[k] = one / (one + row[k])
        for k in range(units):
            out[k] = row[units + k] * c_row[k] + row[2 * units + k] * row[k]


# -- an LSTM's float32 step with its activations in the loop ----------------------------------
# NumPy's float32 exp and tanh cost 1.9 and 2.7 ns a value here, and an LSTM's forward step spent
# about as long in them and its gate passes as in its recurrent product. These loops evaluate tanh
# as a rational function, which LLVM vectorises (about 1.3 ns a value, fused with the gate
# arithmetic): tanh(x) = x P(x^2) / Q(x^2) for |x| <= 9, and +-1 beyond (where float32's tanh
# is 1 within an ulp). P and Q have degree 4; their coefficients were fitted to tanh(x) / x
# on [0, 9] by least squares reweighted toward the largest relative error, which is 2.1e-8.
# Evaluated in float64 and rounded once, the result is within 0.9 ulp of tanh in float32
# (NumPy's: 1.4 ulp). The sigmoid is 1/2 + tanh(x / 2) / 2, in float64: within 4.1e-8 of it
# (NumPy's 1 / (1 + exp(-x)) in float32: 8.9e-8). That bound is absolute, 2e-8 where the
# sigmoid is under 1/2: a sigmoid of 1e-6 or less is not kept to float32's relative precision.
_TANH_P = (1.0, 1.33839742e-01, 3.49898849e-03, 2.06611254e-05, 1.34196166e-08)
_TANH_Q = (1.0, 4.67172957e-01, 2.58901784e-02, 3.29102539e-04, 7.80464812e-07)
_TANH_LIMIT = 9.0


@numba.njit(inline="always")
def _tanh64(value):
    """tanh of a float32 value in float64, as the rational function above: exactly +-1
    beyond +-9 (so the sigmoid of a large negative value is 0), and NaN for NaN."""
    x = np.float64(value)
    s = x * x
    p = (((_TANH_P[4] * s + _TANH_P[3]) * s + _TANH_P[2]) * s + _TANH_P[1]) * s + _TANH_P[0]
    q = (((_TANH_Q[4] * s + _TANH_Q[3]) * s + _TANH_Q[2]) * s + _TANH_Q[1]) * s + _TANH_Q[0]
    result = x * p / q
    if x > _TANH_LIMIT:
        result = 1.0
    if x < -_TANH_LIMIT:
        result = -1.0
    return result


@numba.njit(inline="always")
def _sigmoid_of_sum(block, extra):
    """block = sigmoid(block + extra), in place (float32)."""
    for k in range(block.shape[0]):
        block[k] = np.float32(0.5 + 0.5 * _tanh64(0.5 * (block[k] + extra[k])))


@numba.njit(inline="always")
def _tanh_of_sum(block, extra):
    """block = tanh(block + extra), in place (float32)."""
    for k in range(block.shape[0]):
        block[k] = np.float32(_tanh64(block[k] + extra[k]))


@numba.njit(cache=True, nogil=True, error_model="numpy")
def lstm_step_float32(z, projected, c, c_next, tanh_c, h_next):
    """A float32 LSTM step after its recurrent product z = h @ U (batch, 4 units): z becomes
    the gates (i, f, tanh(c~), o, from z + projected), c_next = f * c + c~ * i,
    tanh_c = tanh(c_next) and h_next = o * tanh_c. (Loops over whole blocks, each from its
    first column: LLVM vectorises those, and left a loop over columns 2u..3u scalar.)"""
    units = c.shape[1]
    for b in range(z.shape[0]):
        row, extra = z[b], projected[b]
        gate_i, gate_f = row[:units], row[units:2 * units]
        candidate, gate_o = row[2 * units:3 * units], row[3 * units:]
        c_row, c_out, tanh_out, h_out = c[b], c_next[b], tanh_c[b], h_next[b]
        _sigmoid_of_sum(row[:2 * units], extra[:2 * units])
        _tanh_of_sum(candidate, extra[2 * units:3 * units])
        _sigmoid_of_sum(gate_o, extra[3 * units:])
        for k in range(units):
            c_out[k] = gate_f[k] * c_row[k] + candidate[k] * gate_i[k]
        for k in range(units):
            tanh_out[k] = np.float32(_tanh64(c_out[k]))
        for k in range(units):
            h_out[k] = gate_o[k] * tanh_out[k]


@numba.njit(cache=True, nogil=True)
def lstm_step_gradient(dh, dc, dz, gates, tanh_c, c_previous, dh_output, add_output):
    """One step back through time: dz (the pre-activation gradient, i, f, c~, o blocks) from
    the gradient reaching h (dh, plus the step's output gradient dh_output if add_output)
    and c (dc, updated in place to the gradient reaching the previous cell state)."""
    units = dh.shape[1]
    one = dh.dtype.type(1.0)
    for b in range(dh.shape[0]):
        gate_i, gate_f = gates[b, :units], gates[b, units:2 * units]
        candidate, gate_o = gates[b, 2 * units:3 * units], gates[b, 3 * units:]
        dz_i, dz_f = dz[b, :units], dz[b, units:2 * units]
        dz_c, dz_o = dz[b, 2 * units:3 * units], dz[b, 3 * units:]
        dh_row, dc_row, tanh_row, c_row = dh[b], dc[b], tanh_c[b], c_previous[b]
        out_row = dh_output[b]
        for k in range(units):
            i, f, g, o, t = gate_i[k], gate_f[k], candidate[k], gate_o[k], tanh_row[k]
            h = dh_row[k] + out_row[k] if add_output else dh_row[k]
            dz_o[k] = h * t * o * (one - o)
            d_c = dc_row[k] + h * o * (one - t * t)
            dz_i[k] = d_c * g * i * (one - i)
            dz_f[k] = d_c * c_row[k] * f * (one - f)
            dz_c[k] = d_c * i * (one - g * g)
            dc_row[k] = d_c * f


# -- Winograd's minimal filtering for convolutions along rows (core/ops/conv_ops.py) ---------
# Rows are tiled `step` outputs at a time; a tile's transformed values are stored point by
# point, so that each point's products over all tiles are one matrix product.


@numba.njit(cache=True, nogil=True)
def winograd_tiles(x, transform, step, pad, tiles, out):
    """out[k, r * tiles + t] = sum_j transform[k, j] * x[r, t * step + j - pad] for each row r
    of x (rows, length, channels) and tile t, a source outside the row counting as zero;
    out is (points, rows * tiles, channels), transform (points, tile length). (Indexed
    directly: with views taken inside the loops it ran about 1.5x slower.)"""
    rows, length, channels = x.shape
    points, span = transform.shape
    for r in range(rows):
        for t in range(tiles):
            slot = r * tiles + t
            for k in range(points):
                for c in range(channels):
                    out[k, slot, c] = 0
            for j in range(span):
                source = t * step + j - pad
                if source < 0 or source >= length:
                    continue
                for k in range(points):
                    weight = transform[k, j]
                    if weight != 0:
                        for c in range(channels):
                            out[k, slot, c] += weight * x[r, source, c]


@numba.njit(cache=True, nogil=True)
def winograd_untile(products, transform, tiles, bias, out):
    """out[r, t * step + i] = bias + sum_k transform[i, k] * products[k, r * tiles + t] for
    the positions inside out (rows, length, channels); transform is (step, points)."""
    rows, length, channels = out.shape
    step, points = transform.shape
    for r in range(rows):
        for t in range(tiles):
            slot = r * tiles + t
            for i in range(min(step, length - t * step)):
                q = t * step + i
                for c in range(channels):
                    out[r, q, c] = bias[c]
                for k in range(points):
                    weight = transform[i, k]
                    if weight != 0:
                        for c in range(channels):
                            out[r, q, c] += weight * products[k, slot, c]


# -- im2col and col2im (core/ops/conv_ops.py) -------------------------------------------------
# NumPy builds the windows with a padded copy and one strided copy, and adds them back one
# filter cell at a time over the whole image; these loops take each value once, in cache.


@numba.njit(cache=True, nogil=True)
def windows(x, strides, dilations, top, left, pad_value, out):
    """out[n, p, q, i, j] = x[n, p*sh + i*dh - top, q*sw + j*dw - left] for the windows of
    an NHWC x, `pad_value` where that pixel is off the image; out is (N, out_h, out_w, kh,
    kw, C)."""
    n, h, w, channels = x.shape
    _, ho, wo, kh, kw, _ = out.shape
    sh, sw = strides
    dh, dw = dilations
    for b in range(n):
        for p in range(ho):
            for i in range(kh):
                r = p * sh + i * dh - top
                for q in range(wo):
                    for j in range(kw):
                        s = q * sw + j * dw - left
                        if r < 0 or r >= h or s < 0 or s >= w:
                            for c in range(channels):
                                out[b, p, q, i, j, c] = pad_value
                        else:
                            for c in range(channels):
                                out[b, p, q, i, j, c] = x[b, r, s, c]


@numba.njit(cache=True, nogil=True)
def patches_to_image(patches, strides, dilations, top, left, bias, out):
    """out[n, r, c] = the sum of the patch entries taken from pixel (r, c), that is of
    patches[n, p, q, i, j] with r + top = p*sh + i*dh and c + left = q*sw + j*dw, in the
    order of (i, j), plus bias: each output pixel written once (a gather, where NumPy adds
    one filter cell at a time over the whole image)."""
    n, ho, wo, kh, kw, channels = patches.shape
    _, h, w, _ = out.shape
    sh, sw = strides
    dh, dw = dilations
    for b in range(n):
        for r in range(h):
            for s in range(w):
                for c in range(channels):
                    out[b, r, s, c] = 0
                for i in range(kh):
                    t = r + top - i * dh
                    if t < 0 or t % sh != 0 or t // sh >= ho:
                        continue
                    p = t // sh
                    for j in range(kw):
                        u = s + left - j * dw
                        if u < 0 or u % sw != 0 or u // sw >= wo:
                            continue
                        q = u // sw
                        for c in range(channels):
                            out[b, r, s, c] += patches[b, p, q, i, j, c]
                for c in range(channels):
                    out[b, r, s, c] += bias[c]


# -- max pooling's gradient over blocks that tile the image (core/ops/conv_ops.py) ------------
# Cells past the image (the padding of 'SAME') count as -inf, as in NumPy's padded copy.
# (The forward stays NumPy's: np.maximum over the strided views is as fast as a loop.)


@numba.njit(cache=True, nogil=True, error_model="numpy")  # (x / 0 is inf, not an error)
def max_pool_blocks_grad(x, y, dy, kh, kw, top, left, out):
    """Each block's dy shared by its cells equal to its max y (hit * (dy / count), NumPy's
    bits: NaN for a block of NaNs), written on the block's cells inside the image; out's
    cells in no block are left as they are."""
    n, h, w, channels = out.shape
    _, ho, wo, _ = y.shape
    low = x.dtype.type(-np.inf)
    count = np.empty(channels, np.int64)
    share = np.empty(channels, out.dtype)
    for b in range(n):
        for p in range(ho):
            for q in range(wo):
                count[:] = 0
                for i in range(kh):
                    r = p * kh + i - top
                    for j in range(kw):
                        s = q * kw + j - left
                        inside = 0 <= r < h and 0 <= s < w
                        for c in range(channels):
                            v = x[b, r, s, c] if inside else low
                            count[c] += v == y[b, p, q, c]
                for c in range(channels):
                    share[c] = dy[b, p, q, c] / count[c]
                for i in range(kh):
                    r = p * kh + i - top
                    for j in range(kw):
                        s = q * kw + j - left
                        if 0 <= r < h and 0 <= s < w:
                            for c in range(channels):
                                hit = x[b, r, s, c] == y[b, p, q, c]
                                out[b, r, s, c] = out.dtype.type(hit) * share[c]
