/* cpu_vphilox.h - Philox 4x32-10 blocks at each dispatch level (included by
 * cpu_vmath.h; Note [CPU dispatch levels] in cpu_simd.h).
 *
 * pdt_philox.h computes one block at a time, ten rounds of two 32 x 32 -> 64-bit
 * products each, a dependent chain the baseline build runs at about 2.5 ns an
 * element.  Here 16 blocks run side by side, one lane each, which the compiler
 * turns into vector products (vpmuludq); the same integer operations, so the same
 * bits as pdt_philox_block (Note [Philox layout] in pdt_philox.h).  Tested against
 * it at every level (tests/test_random.py). */

#include "pdt_philox.h"

#define VP_LANES 16

/* Note [Philox with pmuludq]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At the levels without AVX-512 the loop below vectorised its products as
 * whole 64 x 64-bit ones: GCC does not use the masks that keep the words below
 * 2^32, and AVX2 has no 64-bit multiply, so each product by a constant became a
 * chain of a dozen shifts and adds, and the 16 lanes spilled (randn(1e5) float32
 * on one core of an AMD EPYC Zen 3: 1.78 ms, 30% of it here, NumPy's 1.08).
 * There the rounds are written with pmuludq, which multiplies the low 32 bits
 * of each 64-bit lane into the whole lane, in two groups of vectors side by side
 * (two independent chains of a round's product, shift and xors).  No lane is
 * masked: a lane's upper half may hold junk (a product's high word, which the
 * next round's xor leaves there), but pmuludq ignores it, a shift right by 32
 * is taken of products only, and an xor never moves bits between the halves,
 * so the low halves are the words of pdt_philox_block bit for bit.  The words of
 * a block leave as 16 bytes: words 0 and 1, 2 and 3 paired in 64-bit lanes, the
 * lanes' blocks interleaved into memory order. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) &&                             \
    (PDT_SIMD_BYTES == 16 || (PDT_SIMD_BYTES == 32 && defined(__AVX2__)))
#include <immintrin.h>
#if PDT_SIMD_BYTES == 32
typedef __m256i VM(vpq);
#define VPQ_LANES 4
#define VPQ_MUL _mm256_mul_epu32
#define VPQ_SRL32(x) _mm256_srli_epi64((x), 32)
#define VPQ_XOR _mm256_xor_si256
#define VPQ_ADD _mm256_add_epi64
#define VPQ_SET1(x) _mm256_set1_epi64x((long long)(x))
#define VPQ_IOTA _mm256_set_epi64x(3, 2, 1, 0)
/* 16 bytes a block, blocks in lane order */
static inline void VM(vpq_store)(uint32_t *o, __m256i c0, __m256i c1, __m256i c2, __m256i c3)
{
    __m256i a = _mm256_blend_epi32(c0, _mm256_slli_epi64(c1, 32), 0xaa); /* w0 | w1 << 32 */
    __m256i b = _mm256_blend_epi32(c2, _mm256_slli_epi64(c3, 32), 0xaa); /* w2 | w3 << 32 */
    __m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}
#else
typedef __m128i VM(vpq);
#define VPQ_LANES 2
#define VPQ_MUL _mm_mul_epu32
#define VPQ_SRL32(x) _mm_srli_epi64((x), 32)
#define VPQ_XOR _mm_xor_si128
#define VPQ_ADD _mm_add_epi64
#define VPQ_SET1(x) _mm_set1_epi64x((long long)(x))
#define VPQ_IOTA _mm_set_epi64x(1, 0)
static inline void VM(vpq_store)(uint32_t *o, __m128i c0, __m128i c1, __m128i c2, __m128i c3)
{
    const __m128i lo32 = _mm_set1_epi64x(0xffffffffll);
    __m128i a = _mm_or_si128(_mm_and_si128(c0, lo32), _mm_slli_epi64(c1, 32));
    __m128i b = _mm_or_si128(_mm_and_si128(c2, lo32), _mm_slli_epi64(c3, 32));
    _mm_storeu_si128((__m128i *)(void *)o, _mm_unpacklo_epi64(a, b));
    _mm_storeu_si128((__m128i *)(void *)(o + 4), _mm_unpackhi_epi64(a, b));
}
#endif
#define VPQ_BLOCKS (2 * VPQ_LANES) /* two groups of vectors */

/* out[4 j + w] = word w of block first + j under seed, j < nblocks (Note
 * [Philox with pmuludq]). */
static void VM(philox_blocks)(uint64_t seed, uint64_t first, int64_t nblocks, uint32_t *out)
{
    VM(vpq) k0[10], k1[10];
    uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        k0[round] = VPQ_SET1(s0);
        k1[round] = VPQ_SET1(s1);
        s0 += PDT_PHILOX_W0;
        s1 += PDT_PHILOX_W1;
    }
    const VM(vpq) m0 = VPQ_SET1(PDT_PHILOX_M0), m1 = VPQ_SET1(PDT_PHILOX_M1);
    const VM(vpq) zero = VPQ_SET1(0), iota = VPQ_IOTA, step = VPQ_SET1(VPQ_LANES);
    for (int64_t j0 = 0; j0 < nblocks; j0 += VPQ_BLOCKS) {
        /* block numbers, 64-bit: lo word c0, hi word c1 (a carry crosses them) */
        VM(vpq) a0 = VPQ_ADD(VPQ_SET1(first + (uint64_t)j0), iota), b0 = VPQ_ADD(a0, step);
        VM(vpq) a1 = VPQ_SRL32(a0), b1 = VPQ_SRL32(b0), a2 = zero, b2 = zero, a3 = zero, b3 = zero;
        for (int round = 0; round < 10; round++) {
            VM(vpq) pa0 = VPQ_MUL(a0, m0), pa1 = VPQ_MUL(a2, m1);
            VM(vpq) pb0 = VPQ_MUL(b0, m0), pb1 = VPQ_MUL(b2, m1);
            a0 = VPQ_XOR(VPQ_XOR(VPQ_SRL32(pa1), a1), k0[round]);
            a2 = VPQ_XOR(VPQ_XOR(VPQ_SRL32(pa0), a3), k1[round]);
            b0 = VPQ_XOR(VPQ_XOR(VPQ_SRL32(pb1), b1), k0[round]);
            b2 = VPQ_XOR(VPQ_XOR(VPQ_SRL32(pb0), b3), k1[round]);
            a1 = pa1, a3 = pa0, b1 = pb1, b3 = pb0;
        }
        if (nblocks - j0 >= VPQ_BLOCKS) {
            VM(vpq_store)(out + 4 * j0, a0, a1, a2, a3);
            VM(vpq_store)(out + 4 * (j0 + VPQ_LANES), b0, b1, b2, b3);
        } else { /* the last, partial group */
            uint32_t t[4 * VPQ_BLOCKS];
            VM(vpq_store)(t, a0, a1, a2, a3);
            VM(vpq_store)(t + 4 * VPQ_LANES, b0, b1, b2, b3);
            memcpy(out + 4 * j0, t, (size_t)(nblocks - j0) * 4 * sizeof *t);
        }
    }
}
#undef VPQ_LANES
#undef VPQ_MUL
#undef VPQ_SRL32
#undef VPQ_XOR
#undef VPQ_ADD
#undef VPQ_SET1
#undef VPQ_IOTA
#undef VPQ_BLOCKS
#else
/* out[4 j + w] = word w of block first + j under seed, j < nblocks.  The words
 * are kept in 64-bit lanes below 2^32 (masked), the form in which the compiler
 * vectorises the 32 x 32 -> 64-bit products (pmuludq); as 32-bit lanes it did
 * not vectorise them at all. */
#define VP_LO32(x) ((x)&0xffffffffu)
static void VM(philox_blocks)(uint64_t seed, uint64_t first, int64_t nblocks, uint32_t *out)
{
    for (int64_t j0 = 0; j0 < nblocks; j0 += VP_LANES) {
        uint64_t c0[VP_LANES], c1[VP_LANES], c2[VP_LANES], c3[VP_LANES];
        for (int l = 0; l < VP_LANES; l++) {
            uint64_t block = first + (uint64_t)(j0 + l);
            c0[l] = VP_LO32(block);
            c1[l] = block >> 32;
            c2[l] = c3[l] = 0;
        }
        uint64_t k0 = VP_LO32(seed), k1 = seed >> 32;
        for (int round = 0; round < 10; round++) {
            for (int l = 0; l < VP_LANES; l++) {
                uint64_t p0 = VP_LO32(c0[l]) * PDT_PHILOX_M0;
                uint64_t p1 = VP_LO32(c2[l]) * PDT_PHILOX_M1;
                uint64_t n0 = VP_LO32((p1 >> 32) ^ c1[l] ^ k0);
                uint64_t n2 = VP_LO32((p0 >> 32) ^ c3[l] ^ k1);
                c1[l] = VP_LO32(p1);
                c3[l] = VP_LO32(p0);
                c0[l] = n0;
                c2[l] = n2;
            }
            k0 = VP_LO32(k0 + PDT_PHILOX_W0);
            k1 = VP_LO32(k1 + PDT_PHILOX_W1);
        }
        int64_t m = nblocks - j0 < VP_LANES ? nblocks - j0 : VP_LANES;
        for (int64_t l = 0; l < m; l++) {
            uint32_t *o = out + 4 * (j0 + l);
            o[0] = (uint32_t)c0[l], o[1] = (uint32_t)c1[l], o[2] = (uint32_t)c2[l];
            o[3] = (uint32_t)c3[l];
        }
    }
}
#endif
