"""A small NumPy reimplementation of Philox 4x32-10 and of pydevtensor's mapping
from counters to values (Note [Philox layout] in csrc/core/pdt_philox.h), written
independently of the C code so the tests can check it bit for bit."""
import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)


def philox4x32_10(ctr, key):
    """ctr: (n, 4) uint32 counters; key: (k0, k1) ints.  Returns (n, 4) uint32."""
    c = [ctr[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = key[0] & 0xFFFFFFFF, key[1] & 0xFFFFFFFF
    for _ in range(10):
        p0 = M0 * c[0]
        p1 = M1 * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & MASK,
             (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1), p0 & MASK]
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return np.stack(c, axis=1).astype(np.uint32)


def blocks(seed, offset, n):
    """The outputs of counter blocks offset .. offset + n - 1."""
    b = np.arange(offset, offset + n, dtype=np.uint64)
    ctr = np.zeros((n, 4), dtype=np.uint32)
    ctr[:, 0] = (b & MASK).astype(np.uint32)
    ctr[:, 1] = (b >> np.uint64(32)).astype(np.uint32)
    return philox4x32_10(ctr, (seed & 0xFFFFFFFF, seed >> 32))


def uniform_f32(seed, offset, n):
    r = blocks(seed, offset, (n + 3) // 4).reshape(-1)[:n]
    return ((r >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)).astype(np.float32)


def _pairs(seed, offset, n):
    r = blocks(seed, offset, (n + 1) // 2).reshape(-1, 2)[:n]
    return r[:, 0].astype(np.uint64), r[:, 1].astype(np.uint64)


def uniform_f64(seed, offset, n):
    lo, hi = _pairs(seed, offset, n)
    return (((hi << np.uint64(32)) | lo) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def normal_f64(seed, offset, n):
    lo, hi = _pairs(seed, offset, n)
    u1 = (lo.astype(np.float64) + 1.0) * 2.0**-32
    u2 = hi.astype(np.float64) * 2.0**-32
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2)


def randint(seed, offset, n, low, high):
    lo, hi = _pairs(seed, offset, n)
    x = (hi << np.uint64(32)) | lo
    return (np.uint64(low % 2**64) + x % np.uint64(high - low)).astype(np.int64)
