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
    VB_ROW(shl_row_##SN, T, pdt_shl_##SN)                                                          \
    VB_ROW(shr_row_##SN, T, pdt_shr_##SN)                                                          \
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
