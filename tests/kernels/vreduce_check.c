/* vreduce_check.c - the one-pass extremes kernels of one instruction-set level
 * (csrc/cpu/cpu_vreduce.h, Note [one-pass extremes]; the integers' arg kernels, Note
 * [one-pass integer extremes], on runs of the same lengths) against a scalar
 * reference, on random runs: lengths 1 to 4,999 at every alignment of a float,
 * patterns with many ties, sorted and reversed runs, -0.0 beside +0.0, NaNs and
 * infinities.  Built and run by tests/test_vreduce_kernels.py with
 * -DLEVEL_FILE="cpu_simd_<level>.c", and with -DPDT_VR_GENERIC for the
 * portable form (what a processor other than x86 runs).  The column kernels
 * (VR_COLS, VR_COLS_ARG) too, on each run seen as a block of rows.  Prints the
 * first mismatches; exits 1 if there was one. */
#include LEVEL_FILE

#include <stdio.h>
#include <stdlib.h>

#define LEVEL_NAME(f, l) LEVEL_NAME2(f, l)
#define LEVEL_NAME2(f, l) f##_##l
#define K(f) LEVEL_NAME(f, PDT_SIMD_LEVEL)

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) /* xorshift64 */
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* the first NaN, else the first index of the extreme */
#define REFERENCE(NAME, T, CMP)                                                                    \
    static int64_t NAME(const T *x, int64_t n)                                                     \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (x[i] != x[i])                                                                      \
                return i;                                                                          \
        int64_t r = 0;                                                                             \
        for (int64_t i = 1; i < n; i++)                                                            \
            if (x[i] CMP x[r])                                                                     \
                r = i;                                                                             \
        return r;                                                                                  \
    }
REFERENCE(ref_argmax_f32, float, >)
REFERENCE(ref_argmin_f32, float, <)
REFERENCE(ref_argmax_f64, double, >)
REFERENCE(ref_argmin_f64, double, <)
/* the first index of the extreme */
#define IREFERENCE(NAME, T, CMP)                                                                   \
    static int64_t NAME(const T *x, int64_t n)                                                     \
    {                                                                                              \
        int64_t r = 0;                                                                             \
        for (int64_t i = 1; i < n; i++)                                                            \
            if (x[i] CMP x[r])                                                                     \
                r = i;                                                                             \
        return r;                                                                                  \
    }
IREFERENCE(ref_argmax_i32, int32_t, >)
IREFERENCE(ref_argmin_i32, int32_t, <)
IREFERENCE(ref_argmax_i64, int64_t, >)
IREFERENCE(ref_argmin_i64, int64_t, <)

/* integer runs: the float patterns' shapes, and the types' ends (Note [one-pass integer
 * extremes]) */
#define IFILL(T, x, n, pattern, LO, HI)                                                            \
    for (int64_t i = 0; i < (n); i++) {                                                            \
        switch (pattern) {                                                                         \
        case 0: x[i] = (T)next(); break;                                                           \
        case 1: x[i] = (T)((int)(next() % 7) - 3); break;                                          \
        case 2: x[i] = (T)i; break;                                                                \
        case 3: x[i] = (T)((n)-i); break;                                                          \
        case 4: x[i] = next() % 3 == 0 ? (LO) : next() % 2 ? (HI) : (T)0; break;                   \
        case 5: x[i] = next() % 50 == 0 ? (HI) : (T)((int)(next() % 5) - 2); break;                \
        default: x[i] = next() % 40 == 0 ? (LO) : (T)(int)(next() % 100);                          \
        }                                                                                          \
    }

#define FILL(T, x, n, pattern)                                                                     \
    for (int64_t i = 0; i < (n); i++) {                                                            \
        switch (pattern) {                                                                         \
        case 0: x[i] = (T)((int64_t)(next() % 2000001) - 1000000) / 7; break;                      \
        case 1: x[i] = (T)((int)(next() % 7) - 3); break;                                          \
        case 2: x[i] = (T)i; break;                                                                \
        case 3: x[i] = (T)((n)-i); break;                                                          \
        case 4: x[i] = next() % 3 == 0 ? (T)0.0 : next() % 2 ? (T)-0.0 : (T)-1; break;             \
        case 5: x[i] = next() % 50 == 0 ? (T)NAN : (T)((int)(next() % 5) - 2); break;              \
        default:                                                                                   \
            x[i] = next() % 40 == 0 ? (next() % 2 ? (T)INFINITY : -(T)INFINITY)                    \
                                    : (T)(int)(next() % 100);                                      \
        }                                                                                          \
    }

/* same value, and the same sign for a zero; NaN for NaN */
#define SAME(a, b) ((a) != (a) ? (b) != (b) : (a) == (b) && signbit(a) == signbit(b))

/* The column kernels (VR_COLS, VR_COLS_ARG) on x seen as k rows of pitch m, columns
 * [j0, j0 + nj): 1 when they agree with the scalar fold `v CMP best` row by row
 * (values with their zeros' signs, first rows), or, where the block holds a NaN, say
 * so.  IT: the row type of the arg kernel. */
#define COLS_CHECK(NAME, T, IT, CMP, VALUES, ARGS)                                                 \
    static int NAME(const T *x, int64_t m, int64_t k, int64_t j0, int64_t nj)                      \
    {                                                                                              \
        T best[64], vbest[64], abest[64];                                                          \
        IT at[64];                                                                                 \
        int64_t rows[64];                                                                          \
        int nan = 0;                                                                               \
        for (int64_t q = 0; q < nj; q++) {                                                         \
            best[q] = x[j0 + q], rows[q] = 0;                                                      \
            for (int64_t i = 0; i < k; i++) {                                                      \
                T v = x[i * m + j0 + q];                                                           \
                nan |= v != v;                                                                     \
                if (v CMP best[q])                                                                 \
                    best[q] = v, rows[q] = i;                                                      \
            }                                                                                      \
        }                                                                                          \
        IT unused[1];                                                                              \
        int said = K(VALUES)(x, m, k, j0, nj, vbest, unused),                                      \
            said_arg = K(ARGS)(x, m, k, j0, nj, abest, at);                                        \
        if (nan)                                                                                   \
            return said && said_arg;                                                               \
        if (said || said_arg)                                                                      \
            return 0;                                                                              \
        for (int64_t q = 0; q < nj; q++)                                                           \
            if (!SAME(vbest[q], best[q]) || !SAME(abest[q], best[q]) || at[q] != rows[q])          \
                return 0;                                                                          \
        return 1;                                                                                  \
    }
COLS_CHECK(cols_max_f32_ok, float, int32_t, >, cols_max_f32, cols_argmax_f32)
COLS_CHECK(cols_min_f32_ok, float, int32_t, <, cols_min_f32, cols_argmin_f32)
COLS_CHECK(cols_max_f64_ok, double, int64_t, >, cols_max_f64, cols_argmax_f64)
COLS_CHECK(cols_min_f64_ok, double, int64_t, <, cols_min_f64, cols_argmin_f64)

int main(int argc, char **argv)
{
    long runs = argc > 1 ? atol(argv[1]) : 20000, bad = 0;
    for (long it = 0; it < runs; it++) {
        /* each run at the end of a heap block (so that AddressSanitizer sees a read
         * past it), at every alignment of a float: off elements before it, none in
         * every other run (which then sees a read before it too) */
        int off = it % 2 ? (int)(next() % 16) : 0;
        int64_t n = 1 + (int64_t)(next() % (it % 10 == 0 ? 4999 : 700));
        int pattern = (int)(next() % 7);
        float *fb = malloc((size_t)(n + off) * sizeof(float));
        double *db = malloc((size_t)(n + off) * sizeof(double));
        if (!fb || !db)
            return 2;
        float *f = fb + off;
        double *d = db + off;
        FILL(float, f, n, pattern)
        FILL(double, d, n, pattern)
        int64_t got[4] = {K(argmax_f32)(f, n), K(argmin_f32)(f, n), K(argmax_f64)(d, n),
                          K(argmin_f64)(d, n)};
        int64_t want[4] = {ref_argmax_f32(f, n), ref_argmin_f32(f, n), ref_argmax_f64(d, n),
                           ref_argmin_f64(d, n)};
        /* the value kernels: the element at the reference's index (a zero's sign
         * may differ only when zeros of both signs tie) */
        float mx = K(max_f32)(f, n), mn = K(min_f32)(f, n);
        double dx = K(max_f64)(d, n), dn = K(min_f64)(d, n);
        int ok = 1;
        for (int q = 0; q < 4; q++)
            ok &= got[q] == want[q];
        ok &= pattern == 4
                  ? mx == f[want[0]] && mn == f[want[1]] && dx == d[want[2]] && dn == d[want[3]]
                  : SAME(mx, f[want[0]]) && SAME(mn, f[want[1]]) && SAME(dx, d[want[2]]) &&
                        SAME(dn, d[want[3]]);
        /* the run as k rows of m columns, columns [j0, j0 + nj) of them */
        int64_t m = 1 + (int64_t)(next() % (n < 64 ? n : 64)), k = n / m;
        int64_t j0 = (int64_t)(next() % (uint64_t)m),
                nj = 1 + (int64_t)(next() % (uint64_t)(m - j0));
        int cols_ok = cols_max_f32_ok(f, m, k, j0, nj) && cols_min_f32_ok(f, m, k, j0, nj) &&
                      cols_max_f64_ok(d, m, k, j0, nj) && cols_min_f64_ok(d, m, k, j0, nj);
        if (!cols_ok && bad++ < 5)
            printf("column mismatch: n=%lld pattern=%d offset=%d: k=%lld m=%lld j0=%lld nj=%lld\n",
                   (long long)n, pattern, off, (long long)k, (long long)m, (long long)j0,
                   (long long)nj);
        if (!ok && bad++ < 5)
            printf("mismatch: n=%lld pattern=%d offset=%d: argmax_f32 %lld (want %lld), "
                   "argmin_f32 %lld (%lld), argmax_f64 %lld (%lld), argmin_f64 %lld (%lld)\n",
                   (long long)n, pattern, off, (long long)got[0], (long long)want[0],
                   (long long)got[1], (long long)want[1], (long long)got[2], (long long)want[2],
                   (long long)got[3], (long long)want[3]);
        int32_t *ib = malloc((size_t)(n + off) * sizeof(int32_t));
        int64_t *lb = malloc((size_t)(n + off) * sizeof(int64_t));
        if (!ib || !lb)
            return 2;
        int32_t *i32 = ib + off;
        int64_t *i64 = lb + off;
        IFILL(int32_t, i32, n, pattern, INT32_MIN, INT32_MAX)
        IFILL(int64_t, i64, n, pattern, INT64_MIN, INT64_MAX)
        int64_t igot[4] = {K(argmax_i32)(i32, n), K(argmin_i32)(i32, n), K(argmax_i64)(i64, n),
                           K(argmin_i64)(i64, n)};
        int64_t iwant[4] = {ref_argmax_i32(i32, n), ref_argmin_i32(i32, n), ref_argmax_i64(i64, n),
                            ref_argmin_i64(i64, n)};
        for (int q = 0; q < 4; q++)
            if (igot[q] != iwant[q] && bad++ < 5)
                printf("integer mismatch: n=%lld pattern=%d offset=%d: kernel %d gave %lld "
                       "(want %lld)\n",
                       (long long)n, pattern, off, q, (long long)igot[q], (long long)iwant[q]);
        free(ib);
        free(lb);
        free(fb);
        free(db);
    }
    printf("%ld runs, %ld mismatches\n", runs, bad);
    return bad != 0;
}
