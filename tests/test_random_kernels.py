"""The CPU's random fills against Philox 4x32-10 written out here in NumPy (Note
[Philox layout] in csrc/core/pdt_philox.h), at every instruction-set level: the
blocks are made side by side at the level's width (csrc/cpu/cpu_vphilox.h) and
split across threads, which must change no bit.  A 64-bit seed uses both key words."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

LEVELS = _C._cpu_simd_level()[1]
M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
SEED = 0x0123456789ABCDEF
MASK = np.uint64(0xFFFFFFFF)


def philox_words(seed, first, nblocks):
    """(nblocks, 4) uint32: the words of blocks first .. first + nblocks - 1."""
    block = np.arange(first, first + nblocks, dtype=np.uint64)
    c = [block & MASK, block >> np.uint64(32), np.zeros_like(block), np.zeros_like(block)]
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for _ in range(10):
        p0 = c[0] * np.uint64(M0)
        p1 = c[2] * np.uint64(M1)
        c = [((p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0)) & MASK, p1 & MASK,
             ((p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1)) & MASK, p0 & MASK]
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return np.stack(c, axis=1).astype(np.uint32)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", [1, 5, 63, 1003, 70_001])
def test_uniform_fills_are_philox_to_the_bit(level, n, level_restored):
    _C._cpu_simd_level(level)
    pdt.manual_seed(SEED)
    f32 = pdt.rand(n).numpy()
    blocks32 = (n + 3) // 4
    words = philox_words(SEED, 0, blocks32).reshape(-1)[:n]
    want32 = (words >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)
    assert np.array_equal(f32.view(np.uint32), want32.view(np.uint32))
    # the next fill continues after the blocks claimed; float64 takes two words
    f64 = pdt.empty(n, dtype=pdt.float64).uniform_(-2.0, 3.0).numpy()
    w = philox_words(SEED, blocks32, (n + 1) // 2).reshape(-1, 2)[:n].astype(np.uint64)
    u = ((w[:, 1] << np.uint64(32)) | w[:, 0]) >> np.uint64(11)
    want64 = -2.0 + 5.0 * (u.astype(np.float64) * 2.0 ** -53)
    assert np.array_equal(f64.view(np.uint64), want64.view(np.uint64))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", [4 * 5 + 1, 4 * 37 + 3])
def test_blocks_across_the_counters_low_word_carry_into_its_high_word(level, n, level_restored):
    # the block number's low 32 bits are one counter word and its high bits the next
    # (Note [Philox layout]); a fill that starts a few blocks below 2^32 crosses the
    # carry inside one vector of blocks (Note [Philox with pmuludq] in cpu_vphilox.h)
    _C._cpu_simd_level(level)
    first = 2 ** 32 - 5
    state = np.frombuffer(SEED.to_bytes(8, "little") + first.to_bytes(8, "little"),
                          dtype=np.uint8)
    g = pdt.Generator().set_state(pdt.tensor(state.copy()))
    got = pdt.rand(n, generator=g).numpy()
    words = philox_words(SEED, first, (n + 3) // 4).reshape(-1)[:n]
    want = (words >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("level", LEVELS)
def test_randint_and_randn_use_the_same_blocks(level, level_restored):
    _C._cpu_simd_level(level)
    n = 50_001
    w = philox_words(SEED, 0, (n + 1) // 2).reshape(-1, 2)[:n].astype(np.uint64)
    wide = (w[:, 1] << np.uint64(32)) | w[:, 0]
    pdt.manual_seed(SEED)
    got = pdt.randint(-7, 1000, (n,)).numpy()
    np.testing.assert_array_equal(got, (wide % np.uint64(1007)).astype(np.int64) - 7)
    pdt.manual_seed(SEED)
    z = pdt.randn(n, dtype=pdt.float64).numpy()
    u1 = (w[:, 0].astype(np.float64) + 1.0) * 2.0 ** -32
    u2 = w[:, 1].astype(np.float64) * 2.0 ** -32
    want = np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2)
    np.testing.assert_allclose(z, want, rtol=1e-13, atol=1e-13)


def test_randn_is_the_same_at_every_level_and_within_4_ulp_of_the_c_library(level_restored):
    # Note [normal on the CPU]: the CPU's own log and cos, vectorised, no FMA: the
    # same bits at every level, within 4 units in the last place of the C library's
    # sqrt(-2 log u1) * cos(2 pi u2) on these words (measured: 3 on 400,000)
    import math
    n = 20_001
    w = philox_words(SEED, 0, (n + 1) // 2).reshape(-1, 2)[:n].astype(np.uint64)
    u1 = (w[:, 0].astype(np.float64) + 1.0) * 2.0 ** -32
    u2 = w[:, 1].astype(np.float64) * 2.0 ** -32
    ref = np.array([math.sqrt(-2.0 * math.log(a)) * math.cos(6.283185307179586 * b)
                    for a, b in zip(u1, u2)])
    runs = []
    for level in LEVELS:
        _C._cpu_simd_level(level)
        pdt.manual_seed(SEED)
        runs.append(pdt.randn(n, dtype=pdt.float64).numpy())
    for z in runs[1:]:
        assert np.array_equal(z.view(np.uint64), runs[0].view(np.uint64))
    assert (np.abs(runs[0] - ref) <= 4 * np.spacing(np.abs(ref))).all()
    pdt.manual_seed(SEED)
    z32 = pdt.randn(n).numpy()  # float32: the double rounded once
    assert (np.abs(z32 - ref) <= np.spacing(np.abs(ref).astype(np.float32))).all()
