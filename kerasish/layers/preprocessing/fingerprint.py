"""The string hashes Keras's hashing layers use (through TensorFlow), written in Python.

Keras's `Hashing` and `HashedCrossing` call TensorFlow's string ops on every backend:
`to_hash_bucket_fast` (FarmHash's `Fingerprint64`, i.e. `farmhashna::Hash64`),
`to_hash_bucket_strong` (SipHash-2-4 keyed by the salt) and `sparse.cross_hashed`
(`FingerprintCat64` over the features' fingerprints). These are the same functions, so a
value lands in the same bucket here as in Keras. They run on the host, one value at a time.
"""

from __future__ import annotations

import struct

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_CAT_MUL = 0xC6A4A7935BD1E995
CROSS_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's default `hash_key` for sparse.cross_hashed


def _f64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _MASK


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = _mix(((u ^ v) * mul) & _MASK)
    b = _mix(((v ^ a) * mul) & _MASK)
    return (b * mul) & _MASK


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_f64(s, 0) + _K2) & _MASK
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _MASK
        d = ((_rot(a, 25) + b) * mul) & _MASK
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _len16((n + (_f32(s, 0) << 3)) & _MASK, _f32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K1) & _MASK
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _MASK
    d = (_f64(s, n - 16) * _K2) & _MASK
    return _len16((_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK,
                  (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K2) & _MASK
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _MASK
    d = (_f64(s, n - 16) * _K2) & _MASK
    y = (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK
    z = _len16(y, (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_f64(s, 16) * mul) & _MASK
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _MASK
    h = ((z + _f64(s, n - 24)) * mul) & _MASK
    return _len16((_rot((e + f) & _MASK, 43) + _rot(g, 30) + h) & _MASK,
                  (e + _rot((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple:
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _MASK
    b = _rot((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rot(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash's `Fingerprint64` of `s` (TensorFlow's `Fingerprint64`), as an unsigned int.

    Args:
        s: the bytes to hash.

    Returns:
        The 64-bit fingerprint, in [0, 2**64).

    Example:
        >>> from kerasish.layers.preprocessing.fingerprint import fingerprint64
        >>> fingerprint64(b"") == 0x9AE16A3B2F90404F
        True
    """
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _f64(s, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rot((y + v[1] + _f64(s, i + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _f64(s, i + 40)) & _MASK
        z = (_rot((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32(s, i, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _f64(s, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v = (v0, v[1])
    w = (w0, w[1])
    x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rot((y + v[1] + _f64(s, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _f64(s, i + 40)) & _MASK
    z = (_rot((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(s, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _f64(s, i + 16)) & _MASK)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _mix(y) * _K0 + z) & _MASK,
                  (_len16(v[1], w[1], mul) + x) & _MASK, mul)


def _rotl(v: int, b: int) -> int:
    return ((v << b) | (v >> (64 - b))) & _MASK


def siphash(key: tuple, s: bytes) -> int:
    """SipHash-2-4 of `s` under the 128-bit `key` (TensorFlow's strong string hash).

    Args:
        key: two unsigned 64-bit integers.
        s: the bytes to hash.

    Returns:
        The 64-bit hash, in [0, 2**64).

    Example:
        >>> from kerasish.layers.preprocessing.fingerprint import siphash
        >>> siphash((0, 0), b"") == 0x1E924B9D737700D7
        True
    """
    k0, k1 = key[0] & _MASK, key[1] & _MASK
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(count, v0, v1, v2, v3):
        for _ in range(count):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(s)
    full = n - n % 8
    for i in range(0, full, 8):
        m = _f64(s, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(s[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(4, v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's `FingerprintCat64`: two fingerprints combined into one, order-dependent.

    Args:
        fp1: the running fingerprint.
        fp2: the fingerprint to append.

    Returns:
        The combined 64-bit fingerprint.

    Example:
        >>> from kerasish.layers.preprocessing.fingerprint import fingerprint_cat64
        >>> fingerprint_cat64(1, 2) != fingerprint_cat64(2, 1)
        True
    """
    result = fp1 ^ _CAT_MUL
    result ^= (_mix((fp2 * _CAT_MUL) & _MASK) * _CAT_MUL) & _MASK
    result = (result * _CAT_MUL) & _MASK
    result = (_mix(result) * _CAT_MUL) & _MASK
    return _mix(result)
