/* cpu_vclassify.h - isnan, isinf, isfinite and signbit of floating rows from their bits,
 * included by cpu_vmath.h once per level (cpu_classify.c calls them): with the
 * sign cleared, a float is NaN above the infinity's bits, an infinity at them and
 * finite below them; signbit is the sign bit itself, of a NaN too (-nan gives True, as
 * PyTorch's and NumPy's; other devices read it the same way through an integer view,
 * pydevtensor/_ops_pointwise.py): the bits as a signed integer below 0.  The masked
 * bits fit the signed range, so the comparisons are the level's signed integer
 * compares, packed into bytes. */
#include "pdt_backend.h" /* PDT_IS_* */

#define VM_CLASSIFY_ROW(NAME, U, S, MAG, INF)                                                      \
    static void VM(NAME)(uint8_t * o, const void *x, int64_t n, int which)                         \
    {                                                                                              \
        const U *restrict b = (const U *)x;                                                        \
        uint8_t *restrict r = o;                                                                   \
        if (which == PDT_IS_NAN)                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                r[i] = (uint8_t)((S)(b[i] & (MAG)) > (S)(INF));                                    \
        else if (which == PDT_IS_INF)                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                r[i] = (uint8_t)((S)(b[i] & (MAG)) == (S)(INF));                                   \
        else if (which == PDT_IS_FINITE)                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                r[i] = (uint8_t)((S)(b[i] & (MAG)) < (S)(INF));                                    \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                r[i] = (uint8_t)((S)b[i] < 0);                                                     \
    }
#ifdef VCMP_ON
/* float32 at SSE2 and AVX2: the same compares on whole vectors, their masks narrowed as
 * the comparisons' (Note [comparisons into bytes] in cpu_vcompare.h); GCC's own
 * narrowing of these masks took 21 instructions a 32 elements at AVX2 where this takes
 * 12.  Returns the elements done (whole blocks). */
#define VM_CLASSIFY_LOOP(MASK, INV)                                                                \
    for (; i + 4 * N <= n; i += 4 * N) {                                                           \
        for (int k = 0; k < 4; k++) {                                                              \
            const VM(vc_mask) v = VCMP_LOAD_INT(b + i + k * N), a = VCMP_AND(v, mag);              \
            (void)a; /* signbit reads v alone */                                                   \
            m[k] = MASK;                                                                           \
        }                                                                                          \
        VM(vc_store_masks32)(o + i, m, INV);                                                       \
    }
static int64_t VM(classify_v32)(uint8_t *o, const uint32_t *b, int64_t n, int which)
{
    enum { N = VCMP_W / 4 };
    const VM(vc_mask) mag = VCMP_SET1_I32(0x7fffffff), inf = VCMP_SET1_I32(0x7f800000);
    const VM(vc_mask) zero = VCMP_SET1_I32(0);
    VM(vc_mask) m[4];
    int64_t i = 0;
    if (which == PDT_IS_NAN)
        VM_CLASSIFY_LOOP(VCMP_IGT(a, inf, 32), 0)
    else if (which == PDT_IS_INF)
        VM_CLASSIFY_LOOP(VCMP_IEQ(a, inf, 32), 0)
    else if (which == PDT_IS_FINITE)
        VM_CLASSIFY_LOOP(VCMP_IGT(inf, a, 32), 0)
    else /* the sign bit: b < 0 as a signed integer */
        VM_CLASSIFY_LOOP(VCMP_IGT(zero, v, 32), 0)
    return i;
}
#undef VM_CLASSIFY_LOOP
#define VM_CLASSIFY_F32(o, b, n, which) VM(classify_v32)(o, b, n, which)
#else
#define VM_CLASSIFY_F32(o, b, n, which) 0
#endif
VM_CLASSIFY_ROW(classify_f32_tail, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u)
static void VM(classify_f32)(uint8_t *o, const void *x, int64_t n, int which)
{
    const int64_t done = VM_CLASSIFY_F32(o, (const uint32_t *)x, n, which);
    VM(classify_f32_tail)(o + done, (const uint32_t *)x + done, n - done, which);
}
VM_CLASSIFY_ROW(classify_f64, uint64_t, int64_t, 0x7fffffffffffffffu, 0x7ff0000000000000u)
VM_CLASSIFY_ROW(classify_f16, uint16_t, int16_t, 0x7fffu, 0x7c00u)
VM_CLASSIFY_ROW(classify_bf16, uint16_t, int16_t, 0x7fffu, 0x7f80u)

/* The row of x's dtype (a floating one). */
static void VM(classify)(uint8_t *o, const void *x, int64_t n, int dt, int which)
{
    switch (dt) {
    case PDT_FLOAT32: VM(classify_f32)(o, x, n, which); break;
    case PDT_FLOAT64: VM(classify_f64)(o, x, n, which); break;
    case PDT_FLOAT16: VM(classify_f16)(o, x, n, which); break;
    default: VM(classify_bf16)(o, x, n, which); break;
    }
}
