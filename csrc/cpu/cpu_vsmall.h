/* cpu_vsmall.h - uint8, int8 and int16 rows at the level's width: +, -, *, maximum,
 * minimum, the bitwise ops, the shifts, the comparisons, and neg, abs, relu, sign and
 * clamp; //, % and the truncating division in cpu_vsdiv.h.  Included by cpu_vmath.h after
 * VB_ROW, VC_ROWS, VM_UNARY and VM_CLAMP.
 *
 * Note [small integer rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * The small integers were computed in int32 (Note [small integers] in pdt_dtype.h): a
 * cast of each operand into an int32 temporary, the int32 row, a cast back.  On 2e4
 * uint8 elements `a + b` took 7.1 to 9.7 us, NumPy's 1.0 to 1.4 (three passes, two
 * temporaries four times the data).  Now the CPU backend computes them in the small
 * type (`small_int_rows`): +, -, * and negation keep the low bits, which are those of
 * the int32 result; the shifts are int32's on the widened values, narrowed
 * (cpu_simd.h's pdt_shl_u8, ...), so a count past the int32 width still gives 0 or -1
 * as int32's did; maximum, minimum, the bitwise ops, the comparisons, abs, relu, sign
 * and clamp (whose bounds the core has saturated to the dtype's range) have results
 * that fit.  GCC vectorises these narrowed expressions at the level's width, 16 to 64
 * lanes (the rows below; the strided loops in cpu_elementwise.c and cpu_unary.c use the
 * same expressions; abs is a select in the small type, which GCC 12 vectorises as a compare
 * and a masked negation in the type's own lanes, where the int32 route (|w| by a sign mask)
 * widened every vector: 2.5x the time at AVX2).  //, % and the truncating division
 * of contiguous rows run in float32 lanes, or by one divisor as a multiply's high half
 * in 16-bit lanes (cpu_vsdiv.h, exact); strided ones widen a block of 256 into int32 on
 * the stack and run the int32 rows; ** and fmod run int32's expressions on the widened
 * values.  So for operands of the small dtype every value is the one the int32 route
 * gave (the two cases where another dtype meets it: Note [small integers]); the tests
 * compare against NumPy at every level.
 */

#define VS_ROWS(SN, T)                                                                             \
    VB_ROW(add_##SN, T, pdt_add_##SN)                                                              \
    VB_ROW(sub_##SN, T, pdt_sub_##SN)                                                              \
    VB_ROW(mul_##SN, T, pdt_mul_##SN)                                                              \
    VB_ROW(maximum_##SN, T, PDT_IMAX)                                                              \
    VB_ROW(minimum_##SN, T, PDT_IMIN)                                                              \
    VB_ROW(and_##SN, T, PDT_BAND)                                                                  \
    VB_ROW(or_##SN, T, PDT_BOR)                                                                    \
    VB_ROW(xor_##SN, T, PDT_BXOR)                                                                  \
    VB_ROW(shl_any_##SN, T, pdt_shl_##SN)                                                          \
    VB_ROW(shr_any_##SN, T, pdt_shr_##SN)                                                          \
    VC_ROWS(SN, T)                                                                                 \
    VM_UNARY(neg_##SN, T, pdt_ineg_##SN)                                                           \
    VM_UNARY(abs_##SN, T, pdt_iabs_##SN)                                                           \
    VM_UNARY(relu_##SN, T, pdt_relu_##SN)                                                          \
    VM_UNARY(sign_##SN, T, pdt_isign_##SN)                                                         \
    VM_CLAMP(clamp_##SN, T)
VS_ROWS(u8, uint8_t)
VS_ROWS(i8, int8_t)
VS_ROWS(i16, int16_t)

#include "cpu_vsdiv.h" /* //, % and the truncating division */

/* Note [small integer shifts by one count]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x >> 2 of a row by one count went through pdt_shr_u8's int32 expression, which GCC
 * widened to 32-bit lanes and packed back: 1e5 int8 took 16.2 us, NumPy's 6.7 (AVX2
 * EPYC, one thread).  With the count c known, the int32 route's values are these
 * (Note [shifts] in pdt_elementwise.h): for c (as an unsigned int32) at least the
 * width w of T, << gives 0, >> of an unsigned T 0 and of a signed one x >> (w - 1);
 * below it, x << c and x >> c in T.  x86 shifts 16-bit lanes but not bytes, so bytes
 * are shifted as the 16-bit lanes that hold two of them, the bits that crossed from
 * the other byte masked off (a logical shift), and an arithmetic >> then sign-extends
 * from bit 7 - c: (t ^ s) - s with s = 0x80 >> c, in byte lanes.  int16 shifts its own
 * lanes (psraw, psrlw, psllw).  1e5, one thread: int8 >> 2 16.2 -> 3.0 us (NumPy 6.9),
 * << 3 2.9 (54.6); int16 >> 2 10.5 -> 5.9 (7.0). */
typedef uint16_t VM(vsh_u16) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int16_t VM(vsh_i16) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef uint8_t VM(vsh_u8) __attribute__((vector_size(PDT_SIMD_BYTES)));

/* p[i] = x[i] << c (left) or x[i] >> c, bytes (arithmetic >> where sgn), c in [0, 7];
 * p may be x */
static void VM(shift_bytes)(uint8_t *p, const uint8_t *x, int c, int left, int sgn, int64_t n)
{
    const uint16_t keep = (uint16_t)((left ? (0xffu << c) & 0xffu : 0xffu >> c) * 0x0101u);
    const uint8_t s = (uint8_t)(sgn && !left ? 0x80u >> c : 0u);
    const int64_t vn = PDT_SIMD_BYTES;
    int64_t i = 0;
    for (; i + vn <= n; i += vn) {
        VM(vsh_u16) w;
        memcpy(&w, x + i, sizeof w);
        w = (left ? w << c : w >> c) & keep;
        VM(vsh_u8) b = (VM(vsh_u8))w;
        b = (b ^ s) - s;
        memcpy(p + i, &b, sizeof b);
    }
    for (; i < n; i++) /* GCC's >> of a negative value is arithmetic */
        p[i] = left ? (uint8_t)(x[i] << c) : (uint8_t)(sgn ? (int8_t)x[i] >> c : x[i] >> c);
}
/* the same for int16, c in [0, 15] */
static void VM(shift_i16)(int16_t *p, const int16_t *x, int c, int left, int64_t n)
{
    const int64_t vn = PDT_SIMD_BYTES / 2;
    int64_t i = 0;
    for (; i + vn <= n; i += vn) {
        VM(vsh_i16) w;
        memcpy(&w, x + i, sizeof w);
        w = left ? (VM(vsh_i16))((VM(vsh_u16))w << c) : w >> c;
        memcpy(p + i, &w, sizeof w);
    }
    for (; i < n; i++)
        p[i] = left ? (int16_t)(uint16_t)((uint32_t)(uint16_t)x[i] << c) : (int16_t)(x[i] >> c);
}

/* The shifts' rows: by one count (mode 2), the kernels above; else the int32
 * expressions' (VB_ROW) */
#define VS_SHIFT_ROW(NAME, ANY, T, SGN, LEFT)                                                      \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        if (mode != 2) {                                                                           \
            VM(ANY)(o, a, b, n, mode);                                                             \
            return;                                                                                \
        }                                                                                          \
        const int w = 8 * (int)sizeof(T), sgn = SGN;                                               \
        const uint32_t c = (uint32_t)(int32_t)((const T *)b)[0];                                   \
        if (c >= (uint32_t)w && (LEFT || !sgn)) {                                                  \
            memset(o, 0, (size_t)n * sizeof(T));                                                   \
            return;                                                                                \
        }                                                                                          \
        const int k = c >= (uint32_t)w ? w - 1 : (int)c;                                           \
        if (w == 16)                                                                               \
            VM(shift_i16)((int16_t *)o, (const int16_t *)a, k, LEFT, n);                           \
        else                                                                                       \
            VM(shift_bytes)((uint8_t *)o, (const uint8_t *)a, k, LEFT, sgn, n);                    \
    }
#define VS_SHIFT_ROWS(SN, T, SGN)                                                                  \
    VS_SHIFT_ROW(shl_row_##SN, shl_any_##SN, T, SGN, 1)                                            \
    VS_SHIFT_ROW(shr_row_##SN, shr_any_##SN, T, SGN, 0)
VS_SHIFT_ROWS(u8, uint8_t, 0)
VS_SHIFT_ROWS(i8, int8_t, 1)
VS_SHIFT_ROWS(i16, int16_t, 1)

/* the table's entries (cpu_vtable.h) */
#define VS_ENTRIES(SN)                                                                             \
    .add_##SN = VM(add_##SN), .sub_##SN = VM(sub_##SN), .mul_##SN = VM(mul_##SN),                  \
    .maximum_##SN = VM(maximum_##SN), .minimum_##SN = VM(minimum_##SN), .and_##SN = VM(and_##SN),  \
    .or_##SN = VM(or_##SN), .xor_##SN = VM(xor_##SN), .shl_row_##SN = VM(shl_row_##SN),            \
    .shr_row_##SN = VM(shr_row_##SN), .eq_##SN = VM(eq_##SN), .ne_##SN = VM(ne_##SN),              \
    .lt_##SN = VM(lt_##SN), .le_##SN = VM(le_##SN), .gt_##SN = VM(gt_##SN),                        \
    .ge_##SN = VM(ge_##SN), .neg_##SN = VM(neg_##SN), .abs_##SN = VM(abs_##SN),                    \
    .relu_##SN = VM(relu_##SN), .sign_##SN = VM(sign_##SN), .clamp_##SN = VM(clamp_##SN),          \
    .floordiv_row_##SN = VM(floordiv_row_##SN), .remainder_row_##SN = VM(remainder_row_##SN),      \
    .truncdiv_row_##SN = VM(truncdiv_row_##SN)
