/* cpu_vdivmod.h - float // and % and the truncating division over contiguous rows,
 * included by cpu_vmath.h once per instruction-set level.
 *
 * Note [float division with remainder]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Python's // and % of floats (PDT_FLOAT_DIVMOD in cpu_simd.h, NumPy's npy_divmod) start
 * from C's fmod, exact and a call per element: float32 // of 1e5 elements took 4 ms here
 * (NumPy 2.3, PyTorch 0.3), and fmod, composed from %, as long.  For float32 a and b
 * with b finite and nonzero and the double quotient |a / b| below 2^29, fmod(a, b) = a -
 * q b with q = trunc(a / b) in double, exactly:
 *   - q is right: if a / b is an integer k, its double is exact; else a - k b for the
 *     nearest integers k is a nonzero multiple of min(ulp(a), ulp(b)), which is ulp(b)
 *     whenever k >= 1 (a is then at least b in magnitude), so a / b stands at least
 *     ulp(b) / |b| >= 2^-24 away from every integer, while the double quotient is within
 *     |a / b| 2^-53 < 2^-24 of it: no integer lies between them.  Below 1, |a / b| is
 *     at most 1 - 2^-24 (a and b are floats), so the double quotient stays below 1 and
 *     q = 0.
 *   - q b is exact in double (29 + 24 bits), and a - q b, the exact remainder, is a
 *     float32 (C11 7.12.10.1: fmod's result is exact), so the subtraction is exact too;
 *     a zero remainder takes a's sign, as fmod's.
 * The rows run that fmod over blocks of 256; any other pair (b zero, infinite or NaN, a
 * infinite or NaN, a quotient of 2^29 or more) gives NaN there, and a block with a NaN
 * result is done again with the C library's fmodf (NaN arguments included).  Both ways
 * give the exact fmod, so the bits never depend on an element's neighbours or the level
 * (but the speed does: one such pair in each block of 256, NaNs sprinkled through the
 * data say, puts every block back on fmodf).
 * float64 keeps the C library's fmod (no wider type holds its quotient).  The truncating
 * division trunc(a / b) is one vroundps at the levels that have it.
 */

/* fmod(a, b) exactly, or NaN for the pairs the Note leaves to the C library */
static inline float VM(fmod_fast_f32)(float a, float b)
{
    double q = (double)a / (double)b;
    int ok = (fabs(q) < 0x1p29) & (fabsf(b) < INFINITY); /* false for NaN */
    /* trunc, not a conversion to int32 (which GCC leaves scalar here) */
    float r = copysignf((float)((double)a - trunc(q) * (double)b), a);
    return ok ? r : NAN;
}

/* (b < 0) != (m < 0) for b and m nonzero and not NaN, from the sign bits (GCC leaves a
 * loop with the comparisons' != scalar) */
static inline uint32_t VM(signs_differ)(float b, float m)
{
    return (VM(bits32)(b) ^ VM(bits32)(m)) >> 31;
}

/* PDT_FLOAT_DIVMOD's floordiv and remainder with that fmod, every step computed first
 * and the branches as selects between the results, in their order, so that the loops
 * vectorise (written with the branches, GCC kept them scalar: 9.5 ns an element); where
 * b or mod is zero or NaN, signs_differ's answer is not selected or the lane is NaN */
static inline float VM(floordiv_fast_f32)(float a, float b)
{
    float mod = VM(fmod_fast_f32)(a, b), q = a / b, zero = copysignf(0, q);
    float div = (a - mod) / b, div1 = div - 1;
    div = (mod != 0) & VM(signs_differ)(b, mod) ? div1 : div;
    float fl = floorf(div), fl1 = fl + 1, frac = div - fl;
    float r = frac > 0.5f ? fl1 : fl;
    r = div == 0 ? zero : r;
    return b == 0 ? q : r;
}

static inline float VM(remainder_fast_f32)(float a, float b)
{
    float mod = VM(fmod_fast_f32)(a, b), modb = mod + b, zero = copysignf(0, b);
    float r = VM(signs_differ)(b, mod) ? modb : mod;
    r = mod == 0 ? zero : r;
    return b == 0 ? mod : r;
}

PDT_FLOAT_DIVMOD(VM(floordiv_one_f32), VM(remainder_one_f32), float, f, fmodf)

/* o[i] = F(a[i], b[i]) over a contiguous row, mode as VB_ROW's (1: a is one value, 2: b
 * is); blocks of 256 through a buffer (o may be a or b), a block with a NaN result again
 * with the C library's fmod (ONE) */
#define VM_DIVMOD_ROW(NAME, FAST, ONE)                                                             \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        const float *x = (const float *)a, *y = (const float *)b;                                  \
        const int64_t sx = mode == 1 ? 0 : 1, sy = mode == 2 ? 0 : 1;                              \
        for (int64_t s = 0; s < n; s += 256) {                                                     \
            int64_t m = n - s < 256 ? n - s : 256;                                                 \
            const float *xs = x + s * sx, *ys = y + s * sy;                                        \
            float r[256];                                                                          \
            if (mode == 1)                                                                         \
                for (int64_t i = 0; i < m; i++)                                                    \
                    r[i] = FAST(xs[0], ys[i]);                                                     \
            else if (mode == 2)                                                                    \
                for (int64_t i = 0; i < m; i++)                                                    \
                    r[i] = FAST(xs[i], ys[0]);                                                     \
            else                                                                                   \
                for (int64_t i = 0; i < m; i++)                                                    \
                    r[i] = FAST(xs[i], ys[i]);                                                     \
            if (VM(max_bits)(r, m, 0x7fffffffu, 0) > 0x7f800000u) /* a NaN */                      \
                for (int64_t i = 0; i < m; i++)                                                    \
                    r[i] = ONE(xs[i * sx], ys[i * sy]);                                            \
            memcpy(o + s * (int64_t)sizeof(float), r, (size_t)m * sizeof(float));                  \
        }                                                                                          \
    }
VM_DIVMOD_ROW(floordiv_row_f32, VM(floordiv_fast_f32), VM(floordiv_one_f32))
VM_DIVMOD_ROW(remainder_row_f32, VM(remainder_fast_f32), VM(remainder_one_f32))
#undef VM_DIVMOD_ROW

VB_ROW(truncdiv_row_f32, float, PDT_TRUNCDIV)
VB_ROW(truncdiv_row_f64, double, PDT_TRUNCDIV)

/* Note [int32 division by one divisor]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x // d, x % d and the truncating division of an int32 row by one int32 d (NumPy's 1e5
 * int32 // 7 took 22 us here with its vector divisors, ours 228 through idiv, then 65 at
 * AVX-512 and 100 at AVX2 as a multiply by 1 / d in double lanes): the quotient of |x| <=
 * 2^31 by b = |d| >= 2 is Granlund and Montgomery's division by an invariant integer
 * (PLDI 1994, section 4, figure 4.1) with N = 32, l = ceil(log2 b) and m = floor(2^32 (2^l
 * - b) / b) + 1 < 2^32: t = (|x| m) >> 32, then (t + (|x| - t) / 2) >> (l - 1), the sign
 * put back (its 16-bit form: Note [small integer division by one divisor] in
 * cpu_vsdiv.h; checked against Python's // for 6,000 divisors and the quotients' edges
 * before it went in).  Floor division and Python's remainder take the quotient of |x| or
 * |x| - 1 with the sign put back, no product back (PDT_DIVC_FLOOR in cpu_simd.h), the
 * values of the scalar forms (cpu_elementwise.c's INT_DIVMOD_POW, which the strided rows
 * keep); d = 0 gives 0, d = 1 or -1 gives x d (INT32_MIN // -1 wraps) and remainder 0, as
 * there.
 * The 32x32 -> 64-bit products are pmuludq's, two lanes in each 64: 8 lanes at AVX2 where
 * double had 4, and SSE2 has them too, so every level has the row.  1e5 int32 // 7 on an
 * AVX2 EPYC (no AVX-512; the numbers above were another machine's): 37 us at AVX2 and 68
 * at the baseline, NumPy's 31. */
static inline uint32_t VM(gm_u32)(uint32_t a, uint32_t m, int sh);
static inline int32_t VM(tq_i32)(int32_t x, int32_t dn, uint32_t m, int sh)
{
    const uint32_t xs = (uint32_t)(x >> 31), s = xs ^ (uint32_t)dn;
    const uint32_t q = VM(gm_u32)(((uint32_t)x ^ xs) - xs, m, sh);
    return (int32_t)((q ^ s) - s);
}

/* a / b for a <= 2^31, by m and sh = l - 1 (the Note) */
static inline uint32_t VM(gm_u32)(uint32_t a, uint32_t m, int sh)
{
    const uint32_t t = (uint32_t)(((uint64_t)a * m) >> 32);
    return (t + (a - t) / 2) >> sh;
}

/* op: PDT_OP_FLOOR_DIV, PDT_OP_REMAINDER or PDT_OP_TRUNC_DIV (cpu_simd.h's
 * PDT_DIVC_FLOOR); p may be x */
static void VM(divc_i32)(int32_t *p, const int32_t *x, int32_t d, int64_t n, int op)
{
    PDT_DIVC_TRIVIAL(int32_t, uint32_t)
    int sh;
    const uint32_t m = pdt_divc_magic(d < 0 ? 0u - (uint32_t)d : (uint32_t)d, 32, &sh);
    if (op == PDT_OP_TRUNC_DIV) {
        const int32_t dn = d < 0 ? -1 : 0;
        for (int64_t i = 0; i < n; i++)
            p[i] = VM(tq_i32)(x[i], dn, m, sh);
        return;
    }
#define VM_QU32(a) VM(gm_u32)(a, m, sh)
    PDT_DIVC_FLOOR(int32_t, uint32_t, uint32_t, VM_QU32)
#undef VM_QU32
}
#define VM_DIVC_I32 VM(divc_i32)

/* Note [int64 division by one divisor]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x // d, x % d and the truncating division of an int64 row by one int64 d went through
 * idiv, an element at a time (1e5 // 7: 97 us, NumPy's AVX-512 loop 38).  The quotient of
 * a < 2^64 by b = |d| in [2, 2^63] is Granlund and Montgomery's (PLDI 1994, figure 4.1)
 * with N = 64, as Note [int32 division by one divisor]'s: t = (a m) >> 64, q = (t + (a -
 * t) / 2) >> (l - 1), m from pdt_divc_magic64.  No level multiplies 64 x 64 -> 128 bits
 * in vector lanes, so the vector levels take the high half from four 32 x 32 -> 64-bit
 * products (pmuludq) at AVX-512, AVX2 and the baseline from one scalar 128-bit product.
 * Floor division needs no product back (PDT_DIVC_FLOOR in cpu_simd.h, as int32's), and
 * Python's remainder is x - floor(x / d) d, wrapping (exact: it fits); truncation puts the
 * sign of x d on |x| / b.  d = 0, 1, -1 as the scalar forms (PDT_DIVC_TRIVIAL:
 * INT64_MIN // -1 wraps).  Every row was checked against idiv's for 14 divisors (both
 * signs, 2, 2^62 +- 1, INT64_MIN + 1, large primes) and 1e5 dividends (the extremes
 * among them) before it went in. */
#ifdef __SIZEOF_INT128__
static inline uint64_t VM(mulhi_u64)(uint64_t a, uint64_t b)
{
#if PDT_SIMD_BYTES > 32
    const uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    const uint64_t p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
    const uint64_t mid = (p0 >> 32) + (uint32_t)p1 + (uint32_t)p2;
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
#else /* SSE2's two lanes and AVX2's four lose to the scalar mul (1e5: 37 us, AVX2's 49) */
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* a / b for a < 2^64, by m and sh = l - 1 (the Note) */
static inline uint64_t VM(gm_u64)(uint64_t a, uint64_t m, int sh)
{
    const uint64_t t = VM(mulhi_u64)(a, m);
    return (t + ((a - t) >> 1)) >> sh;
}

/* op as divc_i32's; p may be x */
static void VM(divc_i64)(int64_t *p, const int64_t *x, int64_t d, int64_t n, int op)
{
    PDT_DIVC_TRIVIAL(int64_t, uint64_t)
    int sh;
    const uint64_t m = pdt_divc_magic64(d < 0 ? 0u - (uint64_t)d : (uint64_t)d, &sh);
    if (op == PDT_OP_TRUNC_DIV) {
        const uint64_t dn = d < 0 ? ~(uint64_t)0 : 0;
        for (int64_t i = 0; i < n; i++) {
            const uint64_t xs = (uint64_t)(x[i] >> 63), s = xs ^ dn;
            const uint64_t q = VM(gm_u64)(((uint64_t)x[i] ^ xs) - xs, m, sh);
            p[i] = (int64_t)((q ^ s) - s);
        }
        return;
    }
#define VM_QU64(a) VM(gm_u64)(a, m, sh)
    PDT_DIVC_FLOOR(int64_t, uint64_t, uint64_t, VM_QU64)
#undef VM_QU64
}
#define VM_DIVC_I64 VM(divc_i64)
#else
#define VM_DIVC_I64 NULL
#endif

#if PDT_SIMD_BYTES > 16 /* SSE2 has no trunc instruction: the baseline keeps idiv */
static inline int32_t VM(wrap_i32)(double q) /* 2^31 only for INT32_MIN / -1 */
{
    return q >= 0x1p31 ? INT32_MIN : (int32_t)q;
}

/* Note [int32 division by a tensor of divisors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * For int32 x and y != 0 the double quotient q = x / y (one rounding) is trunc(x / y)'s
 * and floor(x / y)'s way to the integers: q is within |x / y| 2^-53 < 2^-22 / |y| of x /
 * y, a quotient that is not an integer lies at least 1 / |y| from every integer, and an
 * integer quotient (below 2^31 in magnitude, or 2^31 for INT32_MIN / -1) is q itself.  So
 * trunc(q) and floor(q) are the exact integer divisions, and x - floor(q) y (exact in
 * double) Python's remainder: one vector division for idiv's one a lane.  y = 0 gives 0
 * and INT32_MIN // -1 wraps, as the scalar forms (cpu_elementwise.c; timings at
 * DIVC_ROW_I32 there).  The baseline has no entry (trunc and floor are calls there). */
#define VM_DIVV_LOOP(X)                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                              \
        const int32_t y = b[i];                                                                    \
        const double dy = y == 0 ? 1.0 : (double)y, dx = (double)(X);                              \
        const double q = dx / dy;                                                                  \
        const double t = op == PDT_OP_TRUNC_DIV ? trunc(q) : floor(q);                             \
        const int32_t v = op == PDT_OP_REMAINDER ? (int32_t)(dx - t * dy) : VM(wrap_i32)(t);       \
        o[i] = y == 0 ? 0 : v;                                                                     \
    }

/* op as divc_i32's; mode 0: a and b rows, 1: a is one value */
static void VM(divv_i32)(int32_t *o, const int32_t *a, const int32_t *b, int64_t n, int op,
                         int mode)
{
    if (mode == 1) {
        const int32_t x0 = a[0];
        VM_DIVV_LOOP(x0)
    } else {
        VM_DIVV_LOOP(a[i])
    }
}
#undef VM_DIVV_LOOP
#define VM_DIVV_I32 VM(divv_i32)
#else
#define VM_DIVV_I32 NULL
#endif
