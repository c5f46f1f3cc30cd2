/* cpu_vreduce.h - the index of the first maximum or minimum of a float32 or
 * float64 run, in one pass; included by cpu_vmath.h, so built once per
 * instruction-set level (Note [CPU dispatch levels] in cpu_simd.h).
 *
 * Two vectors of the level's width (GCC's vector extensions, PDT_SIMD_BYTES:
 * 16 at the baseline, 32 for AVX2, 64 for AVX-512) keep, lane by lane,
 * the running extreme, the index where it was first seen and whether a NaN
 * passed.  A strict comparison keeps the first index of a tie within a lane;
 * the lanes are merged by value, then by the smaller index.  So the answer is
 * the first index of the extreme, as NumPy's and PyTorch's argmax give, from
 * one read of the data (the previous kernel found the extreme, then scanned
 * again for its index).  A NaN wins: with one, the answer is the first NaN
 * (a second, scalar scan, only then).
 */
typedef float VM(vf32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int32_t VM(vi32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef double VM(vf64) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int64_t VM(vi64) __attribute__((vector_size(PDT_SIMD_BYTES)));

#define VR_EXTREME(NAME, T, IT, VT, VI, CMP)                                                       \
    static int64_t VM(NAME)(const T *x, int64_t n)                                                 \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T) };                                                   \
        T b = x[0];                                                                                \
        int64_t r = 0, i = 0;                                                                      \
        int any = x[0] != x[0];                                                                    \
        if (n >= 2 * W) { /* a shorter run goes straight to the scalar loop */                     \
            VT b0, b1, v0, v1;                                                                     \
            VI a0, a1, n0 = {0}, n1 = {0}, i0, i1;                                                 \
            for (int j = 0; j < W; j++) {                                                          \
                b0[j] = b1[j] = x[0];                                                              \
                a0[j] = a1[j] = 0;                                                                 \
                i0[j] = (IT)j;                                                                     \
                i1[j] = (IT)(j + W);                                                               \
            }                                                                                      \
            for (; i + 2 * W <= n; i += 2 * W) {                                                   \
                memcpy(&v0, x + i, sizeof v0);                                                     \
                memcpy(&v1, x + i + W, sizeof v1);                                                 \
                VI m0 = v0 CMP b0, m1 = v1 CMP b1;                                                 \
                b0 = (VT)(((VI)v0 & m0) | ((VI)b0 & ~m0));                                         \
                b1 = (VT)(((VI)v1 & m1) | ((VI)b1 & ~m1));                                         \
                a0 = (i0 & m0) | (a0 & ~m0);                                                       \
                a1 = (i1 & m1) | (a1 & ~m1);                                                       \
                n0 |= v0 != v0;                                                                    \
                n1 |= v1 != v1;                                                                    \
                i0 += 2 * W;                                                                       \
                i1 += 2 * W;                                                                       \
            }                                                                                      \
            for (int j = 0; j < W; j++) {                                                          \
                const T bj[2] = {b0[j], b1[j]};                                                    \
                const int64_t aj[2] = {a0[j], a1[j]};                                              \
                any |= n0[j] != 0 || n1[j] != 0;                                                   \
                for (int k = 0; k < 2; k++)                                                        \
                    if (bj[k] CMP b || (bj[k] == b && aj[k] < r)) {                                \
                        b = bj[k];                                                                 \
                        r = aj[k];                                                                 \
                    }                                                                              \
            }                                                                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            any |= x[i] != x[i];                                                                   \
            if (x[i] CMP b) {                                                                      \
                b = x[i];                                                                          \
                r = i;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (any)                                                                                   \
            for (r = 0; x[r] == x[r]; r++)                                                         \
                ;                                                                                  \
        return r;                                                                                  \
    }
/* float32 indices are int32 lanes, one per float: n < 2^31 */
VR_EXTREME(argmax_f32, float, int32_t, VM(vf32), VM(vi32), >)
VR_EXTREME(argmin_f32, float, int32_t, VM(vf32), VM(vi32), <)
VR_EXTREME(argmax_f64, double, int64_t, VM(vf64), VM(vi64), >)
VR_EXTREME(argmin_f64, double, int64_t, VM(vf64), VM(vi64), <)

/* The maximum (minimum) value of x[0..n), n >= 1, NaN when there is one: four
 * vectors of running extremes and NaN flags, no indices. */
#define VR_VALUE(NAME, T, VT, VI, CMP)                                                             \
    static T VM(NAME)(const T *x, int64_t n)                                                       \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T) };                                                   \
        VT b[4], v;                                                                                \
        VI nan = {0};                                                                              \
        for (int k = 0; k < 4; k++)                                                                \
            for (int j = 0; j < W; j++)                                                            \
                b[k][j] = x[0];                                                                    \
        int64_t i = 0;                                                                             \
        for (; i + 4 * W <= n; i += 4 * W)                                                         \
            for (int k = 0; k < 4; k++) {                                                          \
                memcpy(&v, x + i + k * W, sizeof v);                                               \
                VI m = v CMP b[k];                                                                 \
                b[k] = (VT)(((VI)v & m) | ((VI)b[k] & ~m));                                        \
                nan |= v != v;                                                                     \
            }                                                                                      \
        T r = x[0];                                                                                \
        int any = r != r;                                                                          \
        for (int j = 0; j < W; j++) {                                                              \
            any |= nan[j] != 0;                                                                    \
            for (int k = 0; k < 4; k++)                                                            \
                r = b[k][j] CMP r ? b[k][j] : r;                                                   \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            any |= x[i] != x[i];                                                                   \
            r = x[i] CMP r ? x[i] : r;                                                             \
        }                                                                                          \
        return any ? (T)NAN : r;                                                                   \
    }
VR_VALUE(max_f32, float, VM(vf32), VM(vi32), >)
VR_VALUE(min_f32, float, VM(vf32), VM(vi32), <)
VR_VALUE(max_f64, double, VM(vf64), VM(vi64), >)
VR_VALUE(min_f64, double, VM(vf64), VM(vi64), <)
