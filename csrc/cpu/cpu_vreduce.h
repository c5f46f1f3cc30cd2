/* cpu_vreduce.h - the index of the first maximum or minimum of a float32 or
 * float64 run, in one pass; included by cpu_vmath.h, so built once per
 * instruction-set level (Note [CPU dispatch levels] in cpu_simd.h).
 *
 * VR_CHAINS vectors of the level's width (GCC's vector extensions,
 * PDT_SIMD_BYTES: 16 at the baseline, 32 for AVX2, 64 for AVX-512) keep, lane
 * by lane, the running extreme and the index where it was first seen, and one
 * more whether a NaN passed.  A strict comparison keeps the first index of a
 * tie within a lane; the chains and then the lanes (a tree, in registers) are
 * merged by value, then by the smaller index.  So the answer is the first
 * index of the extreme, as NumPy's and PyTorch's argmax give, from one read of
 * the data.  A run's end that fills no whole vector is read as one vector
 * ending at the run's end, overlapping elements already seen (with their own
 * indices, so nothing changes); only a run shorter than a vector is scalar.
 * A NaN wins: with one, the answer is the first NaN (a second, scalar scan,
 * only then).
 */
typedef float VM(vf32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int32_t VM(vi32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef double VM(vf64) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int64_t VM(vi64) __attribute__((vector_size(PDT_SIMD_BYTES)));

/* independent running extremes a kernel keeps (a compare and a select each: four
 * hide the compare's latency, where two left argmax of 1e3 floats latency-bound) */
#ifndef VR_CHAINS
#define VR_CHAINS 4
#endif

/* 0, 1, 2, ...: lane numbers, read as a whole vector (VR_IOTA).  Vectors are
 * never built lane by lane: a vector load after lane-sized stores misses store
 * forwarding, which cost max() 20 ns before its first element. */
static const int64_t VM(iota64)[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                       26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                                       39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
                                       52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
static const int32_t VM(iota32)[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                       26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                                       39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
                                       52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
#define VR_IOTA(VI)                                                                                \
    __extension__({                                                                                \
        VI vr_iota;                                                                                \
        if (sizeof vr_iota[0] == 8)                                                                \
            memcpy(&vr_iota, VM(iota64), sizeof vr_iota);                                          \
        else                                                                                       \
            memcpy(&vr_iota, VM(iota32), sizeof vr_iota);                                          \
        vr_iota;                                                                                   \
    })

/* v with its lanes j and j ^ h swapped (W lanes, h a power of two below W): a
 * step of a horizontal reduction that stays in registers.  (Reading the lanes
 * back from memory one by one, or in halves, stalled on store forwarding: the
 * merge of argmax's lanes cost 45 ns, more than scanning 1,000 floats.)  Clang
 * has no run-time shuffle: a lane loop there. */
#if defined(__clang__)
#define VR_SWAP(v, h, W)                                                                           \
    __extension__({                                                                                \
        __typeof__(v) vr_in = (v), vr_out;                                                         \
        for (int vr_j = 0; vr_j < (W); vr_j++)                                                     \
            vr_out[vr_j] = vr_in[vr_j ^ (h)];                                                      \
        vr_out;                                                                                    \
    })
#else
#define VR_SWAP(v, h, W) __builtin_shuffle((v), VR_IOTA(__typeof__(v)) ^ (h))
#endif

/* a where the mask m (a comparison's result, all ones or zeros a lane) is set,
 * else b, lane by lane, in b's type */
#define VR_PICK(m, a, b)                                                                           \
    ((__typeof__(b))((((__typeof__(m))(a)) & (m)) | (((__typeof__(m))(b)) & ~(m))))

#define VR_EXTREME(NAME, T, IT, VT, VI, CMP)                                                       \
    static int64_t VM(NAME)(const T *x, int64_t n)                                                 \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T), C = VR_CHAINS };                                    \
        T b = x[0];                                                                                \
        int64_t r = 0, i = 0;                                                                      \
        int any = x[0] != x[0];                                                                    \
        if (n >= W) { /* a shorter run goes straight to the scalar loop */                         \
            VT best[C], v;                                                                         \
            VI at[C], idx[C], nan = {0};                                                           \
            for (int k = 0; k < C; k++) {                                                          \
                best[k] = x[0] - (VT){0}; /* x - (+0): keeps -0.0 (and NaN) */                     \
                at[k] = (VI){0};                                                                   \
                idx[k] = VR_IOTA(VI) + (IT)(k * W);                                                \
            }                                                                                      \
            for (; i + C * W <= n; i += C * W)                                                     \
                for (int k = 0; k < C; k++) {                                                      \
                    memcpy(&v, x + i + k * W, sizeof v);                                           \
                    VI m = v CMP best[k];                                                          \
                    best[k] = VR_PICK(m, v, best[k]);                                              \
                    at[k] = VR_PICK(m, idx[k], at[k]);                                             \
                    nan |= v != v;                                                                 \
                    idx[k] += C * W;                                                               \
                }                                                                                  \
            /* then single vectors, and a last one that ends at n, overlapping what was \
             * read (an element seen twice, under the same index, changes nothing) */          \
            for (; i < n; i += W) {                                                                \
                if (i + W > n) {                                                                   \
                    i = n - W;                                                                     \
                    idx[0] = VR_IOTA(VI) + (IT)i;                                                  \
                }                                                                                  \
                memcpy(&v, x + i, sizeof v);                                                       \
                VI m = v CMP best[0];                                                              \
                best[0] = VR_PICK(m, v, best[0]);                                                  \
                at[0] = VR_PICK(m, idx[0], at[0]);                                                 \
                nan |= v != v;                                                                     \
                idx[0] += W;                                                                       \
            }                                                                                      \
            /* the chains into the first, lane by lane: the extreme, then the first index */       \
            for (int k = 1; k < C; k++) {                                                          \
                VI m = (best[k] CMP best[0]) | ((best[k] == best[0]) & (at[k] < at[0]));           \
                best[0] = VR_PICK(m, best[k], best[0]);                                            \
                at[0] = VR_PICK(m, at[k], at[0]);                                                  \
            }                                                                                      \
            /* the lanes as a tree, in registers: half onto half (VR_SWAP) */                      \
            VT bv = best[0];                                                                       \
            VI av = at[0];                                                                         \
            for (int h = W / 2; h > 0; h /= 2) {                                                   \
                VT ob = (VT)VR_SWAP((VI)bv, h, W);                                                 \
                VI oa = VR_SWAP(av, h, W);                                                         \
                VI m = (ob CMP bv) | ((ob == bv) & (oa < av));                                     \
                bv = VR_PICK(m, ob, bv);                                                           \
                av = VR_PICK(m, oa, av);                                                           \
                nan |= VR_SWAP(nan, h, W);                                                         \
            }                                                                                      \
            any |= nan[0] != 0;                                                                    \
            b = bv[0]; /* every lane started at x[0], index 0 */                                   \
            r = av[0];                                                                             \
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
/* float32 indices are int32 lanes, one per float, and run past n by up to two
 * vectors a chain: n <= 2^31 - 2 VR_CHAINS W (callers pass at most CHUNK, 2^16) */
VR_EXTREME(argmax_f32, float, int32_t, VM(vf32), VM(vi32), >)
VR_EXTREME(argmin_f32, float, int32_t, VM(vf32), VM(vi32), <)
VR_EXTREME(argmax_f64, double, int64_t, VM(vf64), VM(vi64), >)
VR_EXTREME(argmin_f64, double, int64_t, VM(vf64), VM(vi64), <)

/* The maximum (minimum) value of x[0..n), n >= 1, NaN when there is one:
 * VR_CHAINS vectors of running extremes and NaN flags, no indices. */
#define VR_VALUE(NAME, T, VT, VI, CMP)                                                             \
    static T VM(NAME)(const T *x, int64_t n)                                                       \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T), C = VR_CHAINS };                                    \
        T r = x[0];                                                                                \
        int any = r != r;                                                                          \
        int64_t i = 0;                                                                             \
        if (n >= W) { /* a shorter run goes straight to the scalar loop */                         \
            VT b[C], v;                                                                            \
            VI nan = {0};                                                                          \
            for (int k = 0; k < C; k++)                                                            \
                b[k] = x[0] - (VT){0}; /* x - (+0): keeps -0.0 (+0 + -0 is +0) */                  \
            for (; i + C * W <= n; i += C * W)                                                     \
                for (int k = 0; k < C; k++) {                                                      \
                    memcpy(&v, x + i + k * W, sizeof v);                                           \
                    VI m = v CMP b[k];                                                             \
                    b[k] = VR_PICK(m, v, b[k]);                                                    \
                    nan |= v != v;                                                                 \
                }                                                                                  \
            for (; i < n; i += W) { /* single vectors, the last one ending at n */                 \
                memcpy(&v, x + (i + W <= n ? i : n - W), sizeof v);                                \
                VI m = v CMP b[0];                                                                 \
                b[0] = VR_PICK(m, v, b[0]);                                                        \
                nan |= v != v;                                                                     \
            }                                                                                      \
            for (int k = 1; k < C; k++) {                                                          \
                VI m = b[k] CMP b[0];                                                              \
                b[0] = VR_PICK(m, b[k], b[0]);                                                     \
            }                                                                                      \
            for (int h = W / 2; h > 0; h /= 2) {                                                   \
                VT o = (VT)VR_SWAP((VI)b[0], h, W);                                                \
                VI m = o CMP b[0];                                                                 \
                b[0] = VR_PICK(m, o, b[0]);                                                        \
                nan |= VR_SWAP(nan, h, W);                                                         \
            }                                                                                      \
            any |= nan[0] != 0;                                                                    \
            r = b[0][0]; /* every lane started at x[0] */                                          \
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
