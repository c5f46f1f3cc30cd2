/* pdt_philox.h - Philox 4x32-10 and the mapping from counters to values,
 * written once and compiled by both the C compiler (CPU backend) and nvcc
 * (CUDA kernels), so that one seed gives the same numbers on every device.
 *
 * Note [Philox layout]
 * ~~~~~~~~~~~~~~~~~~~~
 * key     = (seed & 0xffffffff, seed >> 32)
 * counter = (block & 0xffffffff, block >> 32, 0, 0)
 * A random fill claims a run of blocks starting at spec->offset, so the global
 * stream position advances by the blocks used, whatever the device.
 *  - float32 uniform: element i uses lane i % 4 of block offset + i / 4;
 *    u = (x >> 8) * 2^-24 in [0, 1), then a + (b - a) * u in float32 with
 *    separate rounding of the product and the sum (no FMA contraction), which
 *    makes the bits identical on the CPU and the GPU.
 *  - everything else uses two lanes per element: element i uses lanes
 *    lo = 2*(i%2) and hi = 2*(i%2)+1 of block offset + i / 2.
 *    float64 uniform: u = (((hi << 32) | lo) >> 11) * 2^-53.
 *    normal: Box-Muller in double, u1 = (lo + 1) * 2^-32 in (0, 1],
 *            u2 = hi * 2^-32, z = sqrt(-2 ln u1) * cos(2 pi u2); the CPU evaluates
 *            ln and cos itself (Note [normal on the CPU], cpu_vnormal.h), CUDA
 *            with its own: the last bits of a float64 result can differ.
 *    integers: low + ((hi << 32) | lo) mod (high - low).  The modulo bias is
 *            below 2^-32 for ranges under 2^32.
 */
#ifndef PDT_PHILOX_H
#define PDT_PHILOX_H

#include <stdint.h>
#ifndef __CUDACC__
#include <math.h>
#endif

#include "pdt_hd.h"

#define PDT_PHILOX_M0 0xD2511F53u
#define PDT_PHILOX_M1 0xCD9E8D57u
#define PDT_PHILOX_W0 0x9E3779B9u
#define PDT_PHILOX_W1 0xBB67AE85u

typedef struct pdt_u32x4 {
    uint32_t v[4];
} pdt_u32x4;

/* Philox 4x32 with 10 rounds of (counter, key). */
PDT_HD pdt_u32x4 pdt_philox4x32_10(pdt_u32x4 ctr, uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PDT_PHILOX_M0 * ctr.v[0];
        uint64_t p1 = (uint64_t)PDT_PHILOX_M1 * ctr.v[2];
        pdt_u32x4 next;
        next.v[0] = (uint32_t)(p1 >> 32) ^ ctr.v[1] ^ k0;
        next.v[1] = (uint32_t)p1;
        next.v[2] = (uint32_t)(p0 >> 32) ^ ctr.v[3] ^ k1;
        next.v[3] = (uint32_t)p0;
        ctr = next;
        k0 += PDT_PHILOX_W0;
        k1 += PDT_PHILOX_W1;
    }
    return ctr;
}

/* The four 32-bit outputs of block `block` under `seed`. */
PDT_HD pdt_u32x4 pdt_philox_block(uint64_t seed, uint64_t block)
{
    pdt_u32x4 ctr;
    ctr.v[0] = (uint32_t)block;
    ctr.v[1] = (uint32_t)(block >> 32);
    ctr.v[2] = 0;
    ctr.v[3] = 0;
    return pdt_philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
}

PDT_HD float pdt_uniform_f32(uint32_t x, float a, float b)
{
    float u = (float)(x >> 8) * 0x1p-24f;
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, __fmul_rn(__fsub_rn(b, a), u));
#else
    volatile float prod = (b - a) * u; /* keeps the compiler from fusing */
    return a + prod;
#endif
}

PDT_HD double pdt_uniform_f64(uint32_t lo, uint32_t hi, double a, double b)
{
    double u = (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, __dmul_rn(__dsub_rn(b, a), u));
#else
    volatile double prod = (b - a) * u;
    return a + prod;
#endif
}

PDT_HD double pdt_normal_f64(uint32_t lo, uint32_t hi, double mean, double std)
{
    double u1 = ((double)lo + 1.0) * 0x1p-32;
    double u2 = (double)hi * 0x1p-32;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
#ifdef __CUDA_ARCH__
    return __dadd_rn(mean, __dmul_rn(std, z)); /* no FMA, as on the CPU */
#else
    return mean + std * z;
#endif
}

PDT_HD int64_t pdt_randint(uint32_t lo, uint32_t hi, int64_t low, int64_t high)
{
    uint64_t range = (uint64_t)high - (uint64_t)low;
    uint64_t x = ((uint64_t)hi << 32) | lo;
    return (int64_t)((uint64_t)low + x % range);
}

#endif /* PDT_PHILOX_H */
