/* cpu_vsum.h - float sums in double lanes, included by cpu_vmath.h once per
 * level: the pairwise sum's leaves (four of one length, or any four: Note
 * [batched leaves] in cpu_sum.c), float64 norms' sums of squares, float32
 * norms' sums of squares in 32 lanes, float32 dot products' chunks and float32
 * column sums. */

/* Four neighbouring leaves of the pairwise sum (Note [CPU reduction order] in
 * cpu_reduce.c), x[k len .. (k + 1) len) for k < 4, len a multiple of 8 up to
 * 128: each leaf in 8 double lanes, lane j the sum in order of x[j], x[8 + j],
 * ..., folded ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)); the result
 * (L0 + L1) + (L2 + L3), as the tree adds them.  The four leaves run side by
 * side: four independent chains of additions where one leaf is one, so the
 * same bits at up to four times the speed. */
/* The 8 double lanes are VM_NV vectors of the level's width (VM_DW doubles
 * each), lane j in vector j / VM_DW: the layout of one 64-byte vector, so the
 * same lanes and the same bits at every level.  (One 64-byte vector type at the
 * levels without AVX-512 went through memory: GCC 12 split each addition into
 * halves stored to and reloaded from the stack, 96 stack accesses in sum4_f32's
 * loop at AVX2, and a float32 sum of 1e5 took 76 us on one core of an AMD EPYC
 * Zen 3 against NumPy's 29.) */
typedef double VM(vd) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef float VM(vfh) __attribute__((vector_size(PDT_SIMD_BYTES / 2)));
#define VM_DW (PDT_SIMD_BYTES / 8)
#define VM_NV (8 / VM_DW)

/* (macros, not functions: a 64-byte vector passed by value changes the ABI at
 * the levels without AVX-512, which GCC warns of) */
#define VM_FOLD8(l)                                                                                \
    (((l)[0] + (l)[1]) + ((l)[2] + (l)[3])) + (((l)[4] + (l)[5]) + ((l)[6] + (l)[7]))
/* the 8 lanes of s[0 .. VM_NV) folded */
#define VM_FOLDV(s)                                                                                \
    __extension__({                                                                                \
        double vm_l[8];                                                                            \
        memcpy(vm_l, (s), sizeof vm_l);                                                            \
        VM_FOLD8(vm_l);                                                                            \
    })
/* one vcvtps2pd a vector: GCC 12 made two halves of __builtin_convertvector at
 * AVX-512 (three instructions more), and at AVX2 two xmm conversions, the upper
 * half through the stack, and a vinsertf128 */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#define VM_LOADV_F32(p) ((VM(vd))_mm512_cvtps_pd(_mm256_loadu_ps(p)))
#elif PDT_SIMD_BYTES == 32 && defined(__AVX__)
#define VM_LOADV_F32(p) ((VM(vd))_mm256_cvtps_pd(_mm_loadu_ps(p)))
#elif PDT_SIMD_BYTES == 16 && defined(__SSE2__)
/* (movq: an unaligned 8-byte load that may alias) */
#define VM_LOADV_F32(p)                                                                            \
    ((VM(vd))_mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(p)))))
#else
#define VM_LOADV_F32(p)                                                                            \
    __extension__({                                                                                \
        VM(vfh) vm_v;                                                                              \
        memcpy(&vm_v, (p), sizeof vm_v);                                                           \
        __builtin_convertvector(vm_v, VM(vd));                                                     \
    })
#endif
#define VM_LOADV_F64(p)                                                                            \
    __extension__({                                                                                \
        VM(vd) vm_v;                                                                               \
        memcpy(&vm_v, (p), sizeof vm_v);                                                           \
        vm_v;                                                                                      \
    })
/* s[0 .. VM_NV) += F(the 8 elements at p) */
#define VM_ADD8(s, p, LOAD, F)                                                                     \
    for (int vm_h = 0; vm_h < VM_NV; vm_h++)                                                       \
    (s)[vm_h] += F(LOAD((p) + vm_h * VM_DW))

/* F: each element as it is added (itself, or its square for float64 norms' sums
 * of squares, x * x as cpu_reduce.c's leaves compute it). */
#define VM_SUM4(NAME, T, LOAD, F)                                                                  \
    static double VM(NAME)(const T *x, int64_t len)                                                \
    {                                                                                              \
        VM(vd) s0[VM_NV] = {{0}}, s1[VM_NV] = {{0}}, s2[VM_NV] = {{0}}, s3[VM_NV] = {{0}};         \
        for (int64_t i = 0; i < len; i += 8) {                                                     \
            VM_ADD8(s0, x + i, LOAD, F);                                                           \
            VM_ADD8(s1, x + len + i, LOAD, F);                                                     \
            VM_ADD8(s2, x + 2 * len + i, LOAD, F);                                                 \
            VM_ADD8(s3, x + 3 * len + i, LOAD, F);                                                 \
        }                                                                                          \
        return ((VM_FOLDV(s0)) + (VM_FOLDV(s1))) + ((VM_FOLDV(s2)) + (VM_FOLDV(s3)));              \
    }
#define VM_ITSELF(v) (v)

VM_SUM4(sum4_f32, float, VM_LOADV_F32, VM_ITSELF)
VM_SUM4(sum4_f64, double, VM_LOADV_F64, VM_ITSELF)

/* Leaves of the pairwise sum, four at a time (Note [batched leaves] in
 * cpu_sum.c): out[q] = the leaf p[q][0 .. n[q]) (1 <= n[q] <= 128), each as
 * the tree's leaf adds it: element i into double lane i % 8 over the whole
 * vectors, the lanes folded ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)),
 * then the rest one by one.  The four run side by side as far as the shortest
 * one's whole vectors go (four independent chains of additions), then each
 * finishes alone.  Fewer than four: the first leaf stands in for the missing
 * ones, whose results are dropped. */
#define VM_LEAF_END(j, LOAD)                                                                       \
    if ((j) < count) {                                                                             \
        int64_t i = m;                                                                             \
        for (; i + 8 <= len[j]; i += 8)                                                            \
            VM_ADD8(s##j, q[j] + i, LOAD, VM_ITSELF);                                              \
        double r = VM_FOLDV(s##j);                                                                 \
        for (; i < len[j]; i++)                                                                    \
            r += (double)q[j][i];                                                                  \
        out[j] = r;                                                                                \
    }
#define VM_LEAVES(NAME, T, LOAD)                                                                   \
    static void VM(NAME)(const T *const *p, const int64_t *n, int count, double *out)              \
    {                                                                                              \
        const T *q[4];                                                                             \
        int64_t len[4], m = n[0] & ~(int64_t)7;                                                    \
        for (int j = 0; j < 4; j++) {                                                              \
            q[j] = p[j < count ? j : 0];                                                           \
            len[j] = n[j < count ? j : 0];                                                         \
            m = (len[j] & ~(int64_t)7) < m ? len[j] & ~(int64_t)7 : m;                             \
        }                                                                                          \
        VM(vd) s0[VM_NV] = {{0}}, s1[VM_NV] = {{0}}, s2[VM_NV] = {{0}}, s3[VM_NV] = {{0}};         \
        for (int64_t i = 0; i < m; i += 8) {                                                       \
            VM_ADD8(s0, q[0] + i, LOAD, VM_ITSELF);                                                \
            VM_ADD8(s1, q[1] + i, LOAD, VM_ITSELF);                                                \
            VM_ADD8(s2, q[2] + i, LOAD, VM_ITSELF);                                                \
            VM_ADD8(s3, q[3] + i, LOAD, VM_ITSELF);                                                \
        }                                                                                          \
        VM_LEAF_END(0, LOAD) VM_LEAF_END(1, LOAD) VM_LEAF_END(2, LOAD) VM_LEAF_END(3, LOAD)        \
    }
VM_LEAVES(leaves_f32, float, VM_LOADV_F32)
VM_LEAVES(leaves_f64, double, VM_LOADV_F64)

/* The sum of squares of a float32 chunk (Note [float32 sums of squares] in
 * cpu_reduce.c): element i into running double lane i % 32, four vectors of 8
 * lanes at once, then the lanes folded in a fixed tree.  A square of a float32
 * is exact in double, so each lane's sum is the same bits at every level, and a
 * fused multiply-add (which rounds s + v v once) gives the bits of the product
 * and the sum apart (which round v v exactly, then the sum): at AVX-512 it is
 * one instruction instead of two, 1e5 elements in 7.1 us instead of 8.9 on one
 * core (AMD EPYC Zen 4). */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#define VM_ADD_SQUARE(s, v)                                                                        \
    ((s) = (VM(vd))_mm512_fmadd_pd((__m512d)(v), (__m512d)(v), (__m512d)(s)))
#else
#define VM_ADD_SQUARE(s, v) ((s) += (v) * (v))
#endif
/* the sum of lane[0 .. n), n a power of 2, in a fixed tree: (l0 + l(n/2)), ...,
 * then halves again */
static inline double VM(fold_lanes)(double *lane, int n)
{
    for (int w = n / 2; w >= 1; w /= 2)
        for (int q = 0; q < w; q++)
            lane[q] += lane[q + w];
    return lane[0];
}

/* fold_lanes of n < 32 live lanes, the others +0: the same bits without the dead
 * additions (a lane never holds -0, being +0 plus its terms, and v + (+0) is v for
 * any other v), for the rows of norm(dim=1) of a few elements (float64 rows of 3 took
 * 44 ns a row with the whole fold, 11 pairwise) */
static inline double VM(fold_live)(double *lane, int n)
{
    for (int w = 16; w >= 1; w /= 2) {
        for (int q = 0; q < w && q + w < n; q++)
            lane[q] += lane[q + w];
        n = n < w ? n : w;
    }
    return n ? lane[0] : 0.0;
}

static double VM(sumsq32_f32)(const float *x, int64_t n)
{
    if (n < 32) {
        double lane[32];
        for (int64_t j = 0; j < n; j++) {
            const double v = (double)x[j];
            lane[j] = 0.0 + v * v;
        }
        return VM(fold_live)(lane, (int)n);
    }
    VM(vd) s[32 / VM_DW] = {{0}};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int q = 0; q < 32 / VM_DW; q++) {
            VM(vd) v = VM_LOADV_F32(x + i + VM_DW * q);
            VM_ADD_SQUARE(s[q], v);
        }
    double lane[32];
    memcpy(lane, s, sizeof lane);
    for (int64_t j = 0; i + j < n; j++) {
        double v = (double)x[i + j];
        lane[j] += v * v;
    }
    return VM(fold_lanes)(lane, 32);
}

/* s[q] += x[W q ..] y[W q ..] for the n / W vectors VT of W lanes at x and y */
#define VM_DOT_STEP(s, VT, W, x, y, n)                                                             \
    for (int q = 0; q < (n) / (W); q++) {                                                          \
        VT u_, v_;                                                                                 \
        memcpy(&u_, (x) + (W)*q, sizeof u_);                                                       \
        memcpy(&v_, (y) + (W)*q, sizeof v_);                                                       \
        s[q] += u_ * v_;                                                                           \
    }

/* A chunk of a float64 dot product (Note [float64 dot products] in cpu_dot.c):
 * element i's product x[i] y[i], rounded, into double lane i % 32, then the lanes
 * folded in a fixed tree.  Never fused (a fused multiply-add rounds once where
 * the other levels round twice), so every level gives the same bits.  same (a
 * constant once inlined): y is x, each vector loaded once, the same products in the
 * same lanes and order. */
static inline __attribute__((always_inline)) double VM(dot32_f64_of)(const double *x,
                                                                     const double *y, int64_t n,
                                                                     const int same)
{
    if (n < 32) {
        double lane[32];
        for (int64_t j = 0; j < n; j++)
            lane[j] = 0.0 + x[j] * y[j];
        return VM(fold_live)(lane, (int)n);
    }
    VM(vd) s[32 / VM_DW] = {{0}};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int q = 0; q < 32 / VM_DW; q++) {
            VM(vd) u, v;
            memcpy(&u, x + i + VM_DW * q, sizeof u);
            if (same)
                v = u;
            else
                memcpy(&v, y + i + VM_DW * q, sizeof v);
            s[q] += u * v;
        }
    double lane[32];
    memcpy(lane, s, sizeof lane);
    for (int64_t j = 0; i + j < n; j++)
        lane[j] += x[i + j] * y[i + j];
    return VM(fold_lanes)(lane, 32);
}

static double VM(dot32_f64)(const double *x, const double *y, int64_t n)
{
    return VM(dot32_f64_of)(x, y, n, 0);
}

/* dot32_f64(x, x, n) to the bit, each vector loaded once (norm's float64 sum of squares,
 * a dot of a vector with itself).  Two loads a product were the dot's limit: 5e4 float64
 * from the L2 cache on one thread (AMD EPYC Zen 4, AVX-512) take 4.7 us here, 8.9 as a
 * dot of two vectors; linalg.norm of 1e5 and 1e6 on two threads 7.2 and 52 us (NumPy's
 * 8.4, 63). */
static double VM(sumsq32_f64)(const double *x, int64_t n) { return VM(dot32_f64_of)(x, x, n, 1); }

/* A chunk of a float32 dot product (Note [float32 dot products] in cpu_dot.c):
 * element i's product x[i] y[i], rounded to float32, into float32 lane i % 64
 * for the whole 64s of each block of 1,024 elements, each block's lanes then
 * added into 64 double lanes, the rest's products straight into their double
 * lanes, and the lanes folded in a fixed tree.  Multiplications and additions
 * only, never fused, in the same order at every level: the same bits.  (Products
 * exact in double, as the squares above, need two conversions for 8 products:
 * 1e5 elements took twice as long from the L2 cache.) */
typedef float VM(vf) __attribute__((vector_size(PDT_SIMD_BYTES)));
#define VM_FW (PDT_SIMD_BYTES / 4)
#define VM_DOT_BLOCK 1024
static double VM(dot64_f32)(const float *x, const float *y, int64_t n)
{
    double lane[64] = {0};
    const int64_t whole = n & ~(int64_t)63;
    int64_t i = 0;
    while (i < whole) {
        VM(vf) s[64 / VM_FW] = {{0}};
        const int64_t end = whole - i < VM_DOT_BLOCK ? whole : i + VM_DOT_BLOCK;
        for (; i < end; i += 64)
            VM_DOT_STEP(s, VM(vf), VM_FW, x + i, y + i, 64);
        float f[64];
        memcpy(f, s, sizeof f);
        for (int j = 0; j < 64; j++)
            lane[j] += (double)f[j];
    }
    for (int64_t j = 0; i + j < n; j++)
        lane[j] += (double)(x[i + j] * y[i + j]);
    return VM(fold_lanes)(lane, 64);
}

/* Column sums of float32 in double lanes: each column's running sum in its
 * own lane (the level's full width), one row at a time, in order, so every
 * level gives the same bits.  (Adding four rows at a time, (r0 + r1) +
 * (r2 + r3), read four streams at once and ran at 40% of this speed on an
 * AMD EPYC with AVX-512.) */
static void VM(cols_sum_f32)(const float *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                             double *r)
{
    for (int64_t q = 0; q < nj; q++)
        r[q] = 0.0;
    int64_t i = 0;
    for (; i < k; i++) {
        const float *restrict row = x + i * m + j0;
        double *restrict acc = r;
        for (int64_t q = 0; q < nj; q++)
            acc[q] += (double)row[q];
    }
}
