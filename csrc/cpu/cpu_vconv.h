/* cpu_vconv.h - the register block of the direct float32 convolution
 * (cpu_conv_direct.c), included once per level by cpu_vmath.h.
 *
 * Note [the direct convolution's block]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One call computes a block of OB = nvo vectors of output channels at P
 * consecutive output positions of one output row:
 *     tmp[p OB + o] = sum over k < K of wp[k OB + o] src[koff[k] + p]
 * src[koff[k] + p] is tap k's input element under position p: the driver lays
 * the (padded, stride-split) input out so that consecutive positions of a row
 * read consecutive elements for every tap, so a tap costs one broadcast per
 * position and no index arithmetic.  The accumulators, P x nvo vectors, stay in
 * registers for the whole K loop: each tap loads nvo vectors of packed weights
 * and does P nvo multiply-adds (fused at the FMA levels: the sums differ from
 * the unfused GEMM's in the last bits, within the tests' float32 tolerances).
 * P is a compile-time constant of each instantiation (1 to conv_pmax[nvo - 1],
 * which leaves a register or two for the weights and the broadcast). */

#if PDT_SIMD_BYTES == 64
#include <immintrin.h>
#define VC_FMA(a, b, c) ((VM(vcf))_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#elif PDT_SIMD_BYTES == 32 && PDT_SIMD_FMA
#include <immintrin.h>
#define VC_FMA(a, b, c) ((VM(vcf))_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#else
#define VC_FMA(a, b, c) ((a) * (b) + (c))
#endif

typedef float VM(vcf) __attribute__((vector_size(PDT_SIMD_BYTES)));
#define VC_LANES (PDT_SIMD_BYTES / 4)
/* the largest P for nvo = 1 and 2: P nvo accumulators, nvo weights and a
 * broadcast in the 32 (AVX-512) or 16 registers */
#define VC_PMAX1 (PDT_SIMD_BYTES == 64 ? 24 : 12)
#define VC_PMAX2 (PDT_SIMD_BYTES == 64 ? 12 : 6)

#define VC_BLOCK(NVO, P)                                                                           \
    static void VM(conv_##NVO##_##P)(const float *src, const int64_t *koff, int64_t K,             \
                                     const float *wp, float *tmp)                                  \
    {                                                                                              \
        VM(vcf) acc[P][NVO];                                                                       \
        _Pragma("GCC unroll 32") for (int p = 0; p < P; p++)                                       \
            _Pragma("GCC unroll 2") for (int v = 0; v < NVO; v++) acc[p][v] = (VM(vcf)){0};        \
        for (int64_t k = 0; k < K; k++, wp += NVO * VC_LANES) {                                    \
            const float *s = src + koff[k];                                                        \
            VM(vcf) w[NVO];                                                                        \
            _Pragma("GCC unroll 2") for (int v = 0; v < NVO; v++)                                  \
                memcpy(&w[v], wp + v * VC_LANES, sizeof w[v]);                                     \
            _Pragma("GCC unroll 32") for (int p = 0; p < P; p++)                                   \
            {                                                                                      \
                VM(vcf) b = s[p] - (VM(vcf)){0}; /* a broadcast (x - 0 is x) */                    \
                _Pragma("GCC unroll 2") for (int v = 0; v < NVO; v++)                              \
                    acc[p][v] = VC_FMA(w[v], b, acc[p][v]);                                        \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 32") for (int p = 0; p < P; p++)                                       \
            _Pragma("GCC unroll 2") for (int v = 0; v < NVO; v++)                                  \
                memcpy(tmp + (p * NVO + v) * VC_LANES, &acc[p][v], sizeof acc[p][v]);              \
    }

#define VC_BLOCKS_1_12(NVO)                                                                        \
    VC_BLOCK(NVO, 1)                                                                               \
    VC_BLOCK(NVO, 2)                                                                               \
    VC_BLOCK(NVO, 3)                                                                               \
    VC_BLOCK(NVO, 4)                                                                               \
    VC_BLOCK(NVO, 5)                                                                               \
    VC_BLOCK(NVO, 6)                                                                               \
    VC_BLOCK(NVO, 7)                                                                               \
    VC_BLOCK(NVO, 8)                                                                               \
    VC_BLOCK(NVO, 9)                                                                               \
    VC_BLOCK(NVO, 10)                                                                              \
    VC_BLOCK(NVO, 11)                                                                              \
    VC_BLOCK(NVO, 12)
VC_BLOCKS_1_12(1)
VC_BLOCKS_1_12(2)
VC_BLOCK(1, 13)
VC_BLOCK(1, 14)
VC_BLOCK(1, 15)
VC_BLOCK(1, 16)
VC_BLOCK(1, 17)
VC_BLOCK(1, 18)
VC_BLOCK(1, 19)
VC_BLOCK(1, 20)
VC_BLOCK(1, 21)
VC_BLOCK(1, 22)
VC_BLOCK(1, 23)
VC_BLOCK(1, 24)

typedef void (*VM(conv_fn))(const float *, const int64_t *, int64_t, const float *, float *);
#define VC_FN_ROW(NVO)                                                                             \
    VM(conv_##NVO##_1), VM(conv_##NVO##_2), VM(conv_##NVO##_3), VM(conv_##NVO##_4),                \
        VM(conv_##NVO##_5), VM(conv_##NVO##_6), VM(conv_##NVO##_7), VM(conv_##NVO##_8),            \
        VM(conv_##NVO##_9), VM(conv_##NVO##_10), VM(conv_##NVO##_11), VM(conv_##NVO##_12)
static const VM(conv_fn)
    VM(conv_fns1)[24] = {VC_FN_ROW(1),  VM(conv_1_13), VM(conv_1_14), VM(conv_1_15), VM(conv_1_16),
                         VM(conv_1_17), VM(conv_1_18), VM(conv_1_19), VM(conv_1_20), VM(conv_1_21),
                         VM(conv_1_22), VM(conv_1_23), VM(conv_1_24)};
static const VM(conv_fn) VM(conv_fns2)[12] = {VC_FN_ROW(2)};

/* The table's entry: nvo 1 or 2, 1 <= P <= conv_pmax[nvo - 1]. */
static void VM(conv_block_f32)(const float *src, const int64_t *koff, int64_t K, const float *wp,
                               int nvo, int P, float *tmp)
{
    (nvo == 1 ? VM(conv_fns1) : VM(conv_fns2))[P - 1](src, koff, K, wp, tmp);
}

#undef VC_BLOCK
#undef VC_BLOCKS_1_12
#undef VC_FN_ROW

/* Note [the position block]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * For a few output channels (mc <= 8: LeNet's 6, the input's gradient of its
 * 1 and 6) the block above would fill 6 of 16 lanes; this one puts consecutive
 * positions in the lanes instead: tmp[m NP + p] = the sum over k < K of
 * wp[k mc + m] src[koff[k] + p], p < NP = conv_ppos[mc] (a few vectors), each
 * tap one vector load a position vector and mc broadcasts of the weights. */
#define VC_PNV(MC)                                                                                 \
    (PDT_SIMD_BYTES == 64 ? ((MC) <= 6 ? 4 : 3) : ((MC) <= 4 ? 3 : (MC) <= 6 ? 2 : 1))
#define VC_PBLOCK(MC)                                                                              \
    static void VM(conv_p##MC)(const float *src, const int64_t *koff, int64_t K, const float *wp,  \
                               float *tmp)                                                         \
    {                                                                                              \
        enum { NV = VC_PNV(MC) };                                                                  \
        VM(vcf) acc[MC][NV];                                                                       \
        _Pragma("GCC unroll 8") for (int m = 0; m < MC; m++)                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[m][v] = (VM(vcf)){0};         \
        for (int64_t k = 0; k < K; k++, wp += MC) {                                                \
            const float *s = src + koff[k];                                                        \
            VM(vcf) b[NV];                                                                         \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                memcpy(&b[v], s + v * VC_LANES, sizeof b[v]);                                      \
            _Pragma("GCC unroll 8") for (int m = 0; m < MC; m++)                                   \
            {                                                                                      \
                VM(vcf) w = wp[m] - (VM(vcf)){0};                                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                               \
                    acc[m][v] = VC_FMA(b[v], w, acc[m][v]);                                        \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 8") for (int m = 0; m < MC; m++)                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                memcpy(tmp + (m * NV + v) * VC_LANES, &acc[m][v], sizeof acc[m][v]);               \
    }
VC_PBLOCK(1)
VC_PBLOCK(2)
VC_PBLOCK(3)
VC_PBLOCK(4)
VC_PBLOCK(5)
VC_PBLOCK(6)
VC_PBLOCK(7)
VC_PBLOCK(8)
static const VM(conv_fn) VM(conv_pfns)[8] = {VM(conv_p1), VM(conv_p2), VM(conv_p3), VM(conv_p4),
                                             VM(conv_p5), VM(conv_p6), VM(conv_p7), VM(conv_p8)};
static void VM(conv_pblock_f32)(const float *src, const int64_t *koff, int64_t K, const float *wp,
                                int mc, float *tmp)
{
    VM(conv_pfns)[mc - 1](src, koff, K, wp, tmp);
}
#define VC_PPOS                                                                                    \
    {                                                                                              \
        0, VC_PNV(1) * VC_LANES, VC_PNV(2) * VC_LANES, VC_PNV(3) * VC_LANES, VC_PNV(4) * VC_LANES, \
            VC_PNV(5) * VC_LANES, VC_PNV(6) * VC_LANES, VC_PNV(7) * VC_LANES, VC_PNV(8) * VC_LANES \
    }

/* Note [the weight gradient's block]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * acc[r MK + t] += the sum over images i < nimg and e < nvec VC_LANES of
 * a[r][i a_img + e] b[t][i b_img + e], r < MO, t < MK: MO rows of the output's
 * gradient against MK taps' rows of the input (cpu_conv_wgrad.c), dot products
 * along the positions, MO MK vector accumulators summed across lanes once at
 * the end (pairwise, in a fixed order). */
#define VC_DMO (PDT_SIMD_BYTES == 64 ? 4 : 2)
#define VC_DMK (PDT_SIMD_BYTES == 64 ? 6 : 5)
static void VM(conv_dot_f32)(const float *const *a, const float *const *b, int64_t nvec,
                             int64_t nimg, int64_t a_img, int64_t b_img, float *acc)
{
    VM(vcf) s[VC_DMO][VC_DMK];
    _Pragma("GCC unroll 8") for (int r = 0; r < VC_DMO; r++)
        _Pragma("GCC unroll 8") for (int t = 0; t < VC_DMK; t++) s[r][t] = (VM(vcf)){0};
    for (int64_t i = 0; i < nimg; i++) {
        const float *ar[VC_DMO], *bt[VC_DMK];
        _Pragma("GCC unroll 8") for (int r = 0; r < VC_DMO; r++) ar[r] = a[r] + i * a_img;
        _Pragma("GCC unroll 8") for (int t = 0; t < VC_DMK; t++) bt[t] = b[t] + i * b_img;
        for (int64_t e = 0; e < nvec * VC_LANES; e += VC_LANES) {
            VM(vcf) av[VC_DMO];
            _Pragma("GCC unroll 8") for (int r = 0; r < VC_DMO; r++)
                memcpy(&av[r], ar[r] + e, sizeof av[r]);
            _Pragma("GCC unroll 8") for (int t = 0; t < VC_DMK; t++)
            {
                VM(vcf) bv;
                memcpy(&bv, bt[t] + e, sizeof bv);
                _Pragma("GCC unroll 8") for (int r = 0; r < VC_DMO; r++)
                    s[r][t] = VC_FMA(av[r], bv, s[r][t]);
            }
        }
    }
    for (int r = 0; r < VC_DMO; r++)
        for (int t = 0; t < VC_DMK; t++) {
            float l[VC_LANES];
            memcpy(l, &s[r][t], sizeof l);
            for (int w = VC_LANES / 2; w >= 1; w /= 2)
                for (int q = 0; q < w; q++)
                    l[q] += l[q + w];
            acc[r * VC_DMK + t] += l[0];
        }
}
#undef VC_FMA
