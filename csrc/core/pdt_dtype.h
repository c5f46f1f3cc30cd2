/* pdt_dtype.h - element types, scalars, and NumPy's promotion rules. */
#ifndef PDT_DTYPE_H
#define PDT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The order of the values is the order of every table indexed by dtype; the
 * half types came last, so promotion goes through pdt_promote, not `<`. */
typedef enum pdt_dtype {
    PDT_BOOL = 0,
    PDT_INT32 = 1,
    PDT_INT64 = 2,
    PDT_FLOAT32 = 3,
    PDT_FLOAT64 = 4,
    PDT_FLOAT16 = 5,  /* IEEE 754-2008 binary16 (Note [half precision] in pdt_half.h) */
    PDT_BFLOAT16 = 6, /* bfloat16: the upper 16 bits of a float32 */
    PDT_UINT8 = 7,    /* the small integers (Note [small integers]) */
    PDT_INT8 = 8,
    PDT_INT16 = 9,
} pdt_dtype;
#define PDT_NUM_DTYPES 10

/* Note [small integers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * uint8, int8 and int16 are stored as themselves and computed in int32, as the
 * half types are computed in float32: an op casts its small-integer inputs to
 * int32, runs the int32 kernel, and casts the result back.  Every cast into a
 * small integer wraps (keeps the low 8 or 16 bits, two's complement), so +, -, *,
 * ** and the shifts give exactly the wrapped results PyTorch gives, and //, %,
 * the comparisons, maximum/minimum and the bitwise ops, whose results fit, are
 * exact.  A Python int operand is first wrapped into the small dtype, as PyTorch
 * does (uint8 tensor + 300 adds 44).  Floats into a small integer: Note [float to
 * small int] in pdt_convert.h.
 *
 * A backend that sets small_int_rows (pdt_backend.h) computes every op of a small
 * integer result in the small type itself, with no cast and no temporary (add and
 * sub with alpha excepted): each op is int32's on the widened operands, its result
 * narrowed, so for operands of the small dtype the values are the int32 route's on
 * every device (+, -, *, negation: the low bits of the int32 result; the shifts: a
 * count past 31 still gives 0, or -1 for >> of a negative value; //, %, fmod and **
 * as int32's, then wrapped; maximum, minimum, the bitwise ops, the comparisons, abs,
 * relu, sign, clamp with bounds saturated to the dtype, the roundings: results that
 * fit).  Two cases differ from the int32 route and give PyTorch's values: an operand
 * of another dtype that does not promote (a 0-d int8 or int64 tensor with a uint8
 * one) is cast into the small dtype first (uint8 < tensor(-1, int8) compares with
 * 255: the int32 route compared with -1), and an out= of a wider dtype receives the
 * wrapped result (uint8 200 + 200 into an int32 out is 144: the int32 route wrote
 * 400).  The CPU's rows: Note [small integer rows] in csrc/cpu/cpu_vsmall.h.
 *
 * Reductions: sums and products run in int32 (int64 results, as PyTorch's).  max, min,
 * argmax and argmin, whose values are x's own, run in the small type itself on a
 * backend that sets small_int_extremes (the CPU), with no widened copy of x: the same
 * values and indices (the first of equal ones) as the int32 route. */

/* A Python-side scalar: either an integer (bool included) or a float. */
typedef struct pdt_scalar {
    int is_float; /* 1: use f; 0: use i */
    double f;
    int64_t i;
} pdt_scalar;

size_t pdt_dtype_size(pdt_dtype dt);
const char *pdt_dtype_name(pdt_dtype dt); /* "float32", ... */
int pdt_dtype_is_floating(pdt_dtype dt);
int pdt_dtype_valid(int dt);
/* 1 for float16 and bfloat16. */
int pdt_dtype_is_half(pdt_dtype dt);
/* 1 for uint8, int8 and int16 (Note [small integers]). */
int pdt_dtype_is_small_int(pdt_dtype dt);
/* 1 for the integer dtypes (not bool). */
int pdt_dtype_is_integer(pdt_dtype dt);
/* The smallest and largest values of an integer dtype (bool: 0 and 1). */
void pdt_int_range(pdt_dtype dt, int64_t *lo, int64_t *hi);
/* v wrapped into the integer dtype dt (its low bits, two's complement), as an
 * int64; int32 and int64 wrap likewise, bool is v != 0. */
int64_t pdt_int_wrap(pdt_dtype dt, int64_t v);
/* The dtype a kernel computes dt in: float32 for the half types (Note
 * [half precision arithmetic] in pdt_half.h), int32 for the small integers
 * (Note [small integers]), else dt itself. */
pdt_dtype pdt_compute_dtype(pdt_dtype dt);
/* The result dtype of a binary op between a and b (PyTorch's rules). */
pdt_dtype pdt_promote(pdt_dtype a, pdt_dtype b);
/* The default floating dtype (PyTorch's set_default_dtype): the dtype of
 * Python floats in ops and of float results of integer inputs.  Process-wide,
 * float32 at start; the setter takes a floating dtype and returns 0, else
 * returns -1 and changes nothing. */
pdt_dtype pdt_default_float(void);
int pdt_set_default_float(pdt_dtype dt);

#ifdef __cplusplus
}
#endif
#endif /* PDT_DTYPE_H */
