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
