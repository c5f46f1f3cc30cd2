/* pdt_compare_scalar.c - comparisons with a scalar decided in the tensor's
 * dtype (pdt_compare_scalar.h).
 *
 * Note [comparing with a scalar in the tensor's dtype]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Promotion (Note [elementwise dtypes] in pdt_elementwise.h) computes `b != 0`
 * for a bool b in int64 and `x < 2.5` for an int32 x in float32.  Done
 * literally, the tensor is first cast into a temporary of the promoted dtype:
 * on 1M elements `b != 0` took 0.92 ms where `b != False` took 0.05.  Yet each
 * answer is p(v) = conv(v) op s for the element's value v in the tensor's dtype
 * d, where conv is the cast into the compute dtype c (exact into int64;
 * round-to-nearest into float32 and float64, as the casts are on every device)
 * and s is the scalar in c.  conv never decreases, so the values of d's range
 * [lo, hi] where p holds are a prefix for < and <=, a suffix for > and >=, an
 * interval for ==, and the rest of one for != (any of them empty or the whole
 * range: a NaN s, an infinite one, one beyond the range).  Its ends are
 * A, the first v with conv(v) >= s, and B, the first with conv(v) > s (none:
 * past hi), found by a binary search over [lo, hi] that evaluates conv and the
 * comparison in c itself (at most 64 steps), so they are the kernels' own
 * answers, float32's rounding of large int32 and int64 values included.  Then
 * one comparison in d with an integer k in d's range gives the same bools:
 *   x < 2.5 is x < 3,  x >= 2.5 is x >= 3,  x == 2.5 is all False,
 *   b != 0 is b != False,  b < 2 is all True,  b <= 0 is b == False,
 * where all False is x < lo and all True is x >= lo: still one pass, no cast.
 * An == whose interval holds several values and touches neither end of the
 * range (int32 x == 16777216.0 holds for 16777216 and 16777217, which both
 * round to it), and the != of such an interval, keep the promoted path.  NaN
 * compares unequal to everything: only != holds.  Only a promotion by the
 * scalar is undone: a small-integer tensor still computes in int32 (Note
 * [small integers] in pdt_dtype.h), but from its own dtype, not a float one.
 *
 * Note [ints beyond the dtype]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A Python int does not promote an integer tensor, and in arithmetic it is
 * wrapped into the tensor's dtype, as PyTorch does (int8 + 300 adds 44, int32 +
 * 2**32 + 5 adds 5: the low bits of the exact result, for + - *).  A comparison
 * with it is not: PyTorch's int8 x == 300 is True where x holds 44 and x < 300 is
 * False there, answers that are simply wrong.  Here the int is compared as it is
 * (as NumPy 2 does, NEP 50): conv is the exact cast into int64 and the search
 * above gives all True or all False (x < 300: x >= lo, all True).  Still one
 * pass in the tensor's dtype.
 */
#include "pdt_compare_scalar.h"

#include <math.h>

/* conv(v) < s (or <= s when or_equal), in the compute dtype c; s is not NaN. */
static int below(pdt_dtype c, int64_t v, pdt_scalar s, int or_equal)
{
    if (c == PDT_FLOAT32) {
        float x = (float)v, y = (float)s.f;
        return or_equal ? x <= y : x < y;
    }
    if (c == PDT_FLOAT64) {
        double x = (double)v;
        return or_equal ? x <= s.f : x < s.f;
    }
    return or_equal ? v <= s.i : v < s.i;
}

/* The first v in [lo, hi] that is not below(s) (or_equal: A when 0, B when 1);
 * *past = 1 when there is none. */
static int64_t first_not_below(pdt_dtype c, int64_t lo, int64_t hi, pdt_scalar s, int or_equal,
                               int *past)
{
    *past = below(c, hi, s, or_equal);
    if (*past)
        return hi;
    while (lo < hi) { /* below(lo - 1) or lo is the range's start; !below(hi) */
        int64_t mid = (int64_t)((uint64_t)lo + (((uint64_t)hi - (uint64_t)lo) >> 1));
        if (below(c, mid, s, or_equal))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

pdt_binary_op pdt_compare_mirror(pdt_binary_op op)
{
    return op == PDT_OP_LT   ? PDT_OP_GT
           : op == PDT_OP_LE ? PDT_OP_GE
           : op == PDT_OP_GT ? PDT_OP_LT
           : op == PDT_OP_GE ? PDT_OP_LE
                             : op;
}

/* x op k into *new_op, *k; returns 1. */
static int set(pdt_binary_op op, int64_t value, pdt_binary_op *new_op, int64_t *k)
{
    *new_op = op;
    *k = value;
    return 1;
}

int pdt_compare_in_dtype(pdt_binary_op op, pdt_dtype d, pdt_dtype c, pdt_scalar s,
                         pdt_binary_op *new_op, int64_t *k)
{
    if ((d != PDT_BOOL && !pdt_dtype_is_integer(d)) || op < PDT_OP_EQ || op > PDT_OP_GE)
        return 0;
    if (pdt_dtype_is_floating(c)) {
        if (c != PDT_FLOAT32 && c != PDT_FLOAT64)
            return 0;
        s.f = s.is_float ? s.f : (double)s.i;
    } else if (c != PDT_INT64 || s.is_float) {
        return 0;
    }
    int64_t lo, hi;
    pdt_int_range(d, &lo, &hi);
    const int is_nan = pdt_dtype_is_floating(c) && isnan(s.f);
    int past_a = 1, past_b = 1;
    int64_t a = is_nan ? hi : first_not_below(c, lo, hi, s, 0, &past_a);
    int64_t b = is_nan ? hi : first_not_below(c, lo, hi, s, 1, &past_b);
    /* The values where p holds, as [from, to), to_past meaning "through hi",
     * or the rest of the range (complement): */
    int64_t from = lo, to = lo;
    int to_past = 0, complement = op == PDT_OP_NE;
    switch (is_nan ? PDT_OP_EQ : op) { /* with a NaN nothing is equal, below or above */
    case PDT_OP_LT: to = a, to_past = past_a; break;
    case PDT_OP_LE: to = b, to_past = past_b; break;
    case PDT_OP_GE:
        if (!past_a)
            from = a, to_past = 1;
        break;
    case PDT_OP_GT:
        if (!past_b)
            from = b, to_past = 1;
        break;
    case PDT_OP_EQ:
    case PDT_OP_NE:
        if (!past_a && !is_nan)
            from = a, to = b, to_past = past_b;
        break;
    default: break;
    }
    const int empty = !to_past && to <= from;
    const int prefix = from == lo, suffix = to_past;
    int64_t kk;
    pdt_binary_op o;
    if (empty || (prefix && suffix)) /* all False (x < lo) or all True (x >= lo) */
        o = (empty != complement) ? PDT_OP_LT : PDT_OP_GE, kk = lo;
    else if (prefix)
        o = complement ? PDT_OP_GE : PDT_OP_LT, kk = to;
    else if (suffix)
        o = complement ? PDT_OP_LT : PDT_OP_GE, kk = from;
    else if (to == from + 1)
        o = complement ? PDT_OP_NE : PDT_OP_EQ, kk = from;
    else
        return 0;
    if (d == PDT_BOOL && kk == 1 && o == PDT_OP_LT) /* b < True is b == False */
        o = PDT_OP_EQ, kk = 0;
    else if (d == PDT_BOOL && kk == 1 && o == PDT_OP_GE) /* b >= True is b == True */
        o = PDT_OP_EQ;
    return set(o, kk, new_op, k);
}
