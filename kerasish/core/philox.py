"""Counter-based random numbers (Philox4x32-10) whose state lives on the draws' device.

The GPU's random stream. A stream is a 64-bit key and a 64-bit block counter,
held in a 2-word uint64 array on the device. Block `b` of the stream is
Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
SC 2011) of the counter (b mod 2**32, b div 2**32, 0, 0) under the key: four
32-bit words. A draw is one kernel that reads the key and counter *on the
device* and computes each value from the blocks it needs, followed by one
kernel that advances the counter on the device. No value crosses to the host,
so a draw captured in a CUDA graph (see `function/graphs.py`) gives new
numbers on every replay and moves the stream on exactly as the eager draw
does, and a stream restored from a checkpoint (its `state` variable) goes on
where it was saved.

How each distribution uses the blocks (value `i` of a draw starting at block `c`):

- `random` (float64 in [0, 1)): words `2i` and `2i+1` of blocks `c, c+1, ...`
  (two values per block); 53 bits, `((w0 >> 5) << 26 | w1 >> 6) * 2**-53`;
- `standard_normal` (float64): block `c+i`: uniforms `u1`, `u2` made as above
  from words 0-1 and 2-3, then Box-Muller `sqrt(-2 log(1 - u1)) cos(2 pi u2)`;
- `integers(low, high)`: words `2i`, `2i+1` as one 64-bit number, `low + x mod
  (high - low)` (a bias below (high - low) / 2**64).

The same arithmetic on NumPy (`philox_blocks` and the `_host_*` functions) is
the reference the GPU kernels are tested against: `random` and `integers` are
equal bit for bit, `standard_normal` within a few ulp (CUDA's log and cos).
"""

from __future__ import annotations

import os

import numpy as np

from kerasish.core import backend

_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # the round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # the key schedule's increments
ROUNDS = 10
_MASK = 0xFFFFFFFF
_TWO_PI = 6.283185307179586


def philox_blocks(key: int, first: int, count: int) -> np.ndarray:
    """Blocks `first` to `first + count - 1` of the stream with `key`, as a (count, 4) uint32
    array (the reference implementation, on NumPy).

    Example:
        >>> from kerasish.core.philox import philox_blocks
        >>> [hex(w) for w in philox_blocks(0, 0, 1)[0]]  # Random123's known answer
        ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    blocks = (np.arange(count, dtype=np.uint64) + np.uint64(first % 2**64))
    c0, c1 = blocks & np.uint64(_MASK), blocks >> np.uint64(32)
    c2 = np.zeros(count, np.uint64)
    c3 = np.zeros(count, np.uint64)
    k0, k1 = key & _MASK, (key >> 32) & _MASK
    mask, shift = np.uint64(_MASK), np.uint64(32)
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
        p0 = c0 * np.uint64(_M0)  # a 32 x 32-bit product fits in 64 bits
        p1 = c2 * np.uint64(_M1)
        c0, c1, c2, c3 = ((p1 >> shift) ^ c1 ^ np.uint64(k0), p1 & mask,
                          (p0 >> shift) ^ c3 ^ np.uint64(k1), p0 & mask)
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def _unit(high, low):
    """53-bit float64 uniforms in [0, 1) from two uint32 words each (NumPy)."""
    bits = (high.astype(np.uint64) >> np.uint64(5)) << np.uint64(26)
    bits |= low.astype(np.uint64) >> np.uint64(6)
    return bits.astype(np.float64) * 2.0**-53


def _host_random(key: int, first: int, n: int) -> np.ndarray:
    words = philox_blocks(key, first, -(-n // 2)).reshape(-1, 2)[:n]
    return _unit(words[:, 0], words[:, 1])


def _host_normal(key: int, first: int, n: int) -> np.ndarray:
    words = philox_blocks(key, first, n)
    u1, u2 = _unit(words[:, 0], words[:, 1]), _unit(words[:, 2], words[:, 3])
    return np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(_TWO_PI * u2)


def _host_integers(key: int, first: int, n: int, low: int, span: int) -> np.ndarray:
    words = philox_blocks(key, first, -(-n // 2)).reshape(-1, 2)[:n].astype(np.uint64)
    x = (words[:, 0] << np.uint64(32)) | words[:, 1]
    return (x % np.uint64(span)).astype(np.int64) + np.int64(low)


# ------------------------------------------------------------------------------ GPU kernels

_PREAMBLE = """
__device__ void ks_philox(unsigned long long key, unsigned long long block, unsigned int w[4]) {
    unsigned int c0 = (unsigned int)block, c1 = (unsigned int)(block >> 32), c2 = 0u, c3 = 0u;
    unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
    for (int r = 0; r < 10; ++r) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        c0 = hi1 ^ c1 ^ k0; c1 = lo1; c2 = hi0 ^ c3 ^ k1; c3 = lo0;
    }
    w[0] = c0; w[1] = c1; w[2] = c2; w[3] = c3;
}
__device__ double ks_unit(unsigned int high, unsigned int low) {
    unsigned long long bits = ((unsigned long long)(high >> 5) << 26) | (low >> 6);
    return (double)bits * (1.0 / 9007199254740992.0);
}
"""
_SOURCES = {
    "random": ("raw uint64 state", "float64 out", """
        unsigned int w[4];
        ks_philox(state[0], state[1] + (unsigned long long)(i / 2), w);
        int j = (int)(i % 2) * 2;
        out = ks_unit(w[j], w[j + 1]);"""),
    "normal": ("raw uint64 state", "float64 out", """
        unsigned int w[4];
        ks_philox(state[0], state[1] + (unsigned long long)i, w);
        double u1 = ks_unit(w[0], w[1]), u2 = ks_unit(w[2], w[3]);
        out = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);"""),
    "integers": ("raw uint64 state, int64 low, uint64 span", "int64 out", """
        unsigned int w[4];
        ks_philox(state[0], state[1] + (unsigned long long)(i / 2), w);
        int j = (int)(i % 2) * 2;
        unsigned long long x = ((unsigned long long)w[j] << 32) | w[j + 1];
        out = low + (long long)(x % span);"""),
    "advance": ("uint64 blocks", "raw uint64 state", "state[1] += blocks;"),
}
_kernels: dict = {}
device_draws = 0  # draws made on a device so far (the tracer marks such draws capturable)
reseeds = 0  # times the streams were replaced (`ks.random.set_seed`): captured graphs drew
# from the old ones and are captured again


def note_reseed() -> None:
    """The streams were replaced: graphs that captured draws from the old ones are stale."""
    global reseeds
    reseeds += 1


def _kernel(name: str):
    kernel = _kernels.get(name)
    if kernel is None:
        in_params, out_params, body = _SOURCES[name]
        kernel = _kernels[name] = backend.cupy.ElementwiseKernel(
            in_params, out_params, body, f"ks_philox_{name}", preamble=_PREAMBLE)
    return kernel


# ------------------------------------------------------------------------------ the stream


def key_from(entropy) -> int:
    """A 64-bit key from a seed (an int, a list of ints, or None for fresh entropy)."""
    if entropy is None:
        return int.from_bytes(os.urandom(8), "little")
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


class PhiloxStream:
    """A Philox stream whose (key, counter) `state` array lives on `device`.

    Offers the methods of a NumPy `Generator` that `ks.random` calls (`random`,
    `standard_normal`, `integers`), drawing on the stream's device. On the GPU a
    draw is two kernels and never synchronizes with the host; on the CPU the
    NumPy reference computes the same numbers.

    Args:
        entropy: the seed (see `key_from`).
        device: ('gpu', index) or ('cpu', 0).

    Example:
        >>> from kerasish.core.philox import PhiloxStream
        >>> stream = PhiloxStream(1, ("cpu", 0))
        >>> first = stream.random(3)
        >>> stream.counter, bool((PhiloxStream(1, ("cpu", 0)).random(3) == first).all())
        (2, True)
    """

    def __init__(self, entropy, device: tuple):
        self.device = device
        state = np.array([key_from(entropy), 0], np.uint64)
        self.state = backend.to_device(state, device)

    @property
    def key(self) -> int:
        return int(backend.to_numpy(self.state)[0])

    @property
    def counter(self) -> int:
        """The next block the stream will use (reads the device)."""
        return int(backend.to_numpy(self.state)[1])

    def _draw(self, name: str, shape, blocks: int, *args):
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
        n = int(np.prod(shape, dtype=np.int64))
        if not backend.is_gpu_array(self.state):
            key, first = (int(w) for w in self.state)
            values = _HOST[name](key, first, n, *args)
            self.state[1] += np.uint64(blocks(n))
            return values.reshape(shape)
        global device_draws
        device_draws += 1
        cupy = backend.cupy
        with cupy.cuda.Device(self.device[1]):
            out = cupy.empty(shape, np.int64 if name == "integers" else np.float64)
            if n:
                _kernel(name)(self.state, *args, out)
                _kernel("advance")(np.uint64(blocks(n)), self.state, size=1)
        return out

    def random(self, size=(), dtype=np.float64):
        """Uniform float64 values in [0, 1) of shape `size`."""
        _check_float64(dtype)
        return self._draw("random", size, _half)

    def standard_normal(self, size=(), dtype=np.float64):
        """Standard normal float64 values of shape `size`."""
        _check_float64(dtype)
        return self._draw("normal", size, _whole)

    def integers(self, low: int, high: int, size=()):
        """Integers in [low, high) (int64) of shape `size`."""
        if high <= low:
            raise ValueError(f"integers: high ({high}) must be greater than low ({low})")
        return self._draw("integers", size, _half, np.int64(low), np.uint64(high - low))


def _half(n: int) -> int:
    return -(-n // 2)


def _whole(n: int) -> int:
    return n


_HOST = {"random": _host_random, "normal": _host_normal, "integers": _host_integers}


def _check_float64(dtype) -> None:
    if np.dtype(dtype) != np.float64:
        raise TypeError(f"PhiloxStream draws float64 values (cast afterwards), not {dtype}")
