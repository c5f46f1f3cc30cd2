/* pdt_dtype.c - dtype sizes, names and promotion. */
#include "pdt_dtype.h"

#include <stdatomic.h>

static const size_t dtype_sizes[PDT_NUM_DTYPES] = {1, 4, 8, 4, 8, 2, 2, 1, 1, 2};
static const char *const dtype_names[PDT_NUM_DTYPES] = {"bool",    "int32",   "int64",    "float32",
                                                        "float64", "float16", "bfloat16", "uint8",
                                                        "int8",    "int16"};

int pdt_dtype_valid(int dt) { return dt >= 0 && dt < PDT_NUM_DTYPES; }
size_t pdt_dtype_size(pdt_dtype dt) { return pdt_dtype_valid((int)dt) ? dtype_sizes[dt] : 0; }
const char *pdt_dtype_name(pdt_dtype dt)
{
    return pdt_dtype_valid((int)dt) ? dtype_names[dt] : "invalid";
}
int pdt_dtype_is_half(pdt_dtype dt) { return dt == PDT_FLOAT16 || dt == PDT_BFLOAT16; }
int pdt_dtype_is_floating(pdt_dtype dt)
{
    return dt == PDT_FLOAT32 || dt == PDT_FLOAT64 || pdt_dtype_is_half(dt);
}
int pdt_dtype_is_small_int(pdt_dtype dt)
{
    return dt == PDT_UINT8 || dt == PDT_INT8 || dt == PDT_INT16;
}
int pdt_dtype_is_integer(pdt_dtype dt)
{
    return dt == PDT_INT32 || dt == PDT_INT64 || pdt_dtype_is_small_int(dt);
}
pdt_dtype pdt_compute_dtype(pdt_dtype dt)
{
    return pdt_dtype_is_half(dt) ? PDT_FLOAT32 : pdt_dtype_is_small_int(dt) ? PDT_INT32 : dt;
}

void pdt_int_range(pdt_dtype dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case PDT_BOOL: *lo = 0, *hi = 1; break;
    case PDT_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case PDT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case PDT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case PDT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

int64_t pdt_int_wrap(pdt_dtype dt, int64_t v)
{
    switch (dt) { /* the conversions to narrower signed types wrap (C11 6.3.1.3 leaves it
                     to the implementation; gcc, clang and nvcc keep the low bits) */
    case PDT_BOOL: return v != 0;
    case PDT_UINT8: return (uint8_t)v;
    case PDT_INT8: return (int8_t)(uint8_t)v;
    case PDT_INT16: return (int16_t)(uint16_t)v;
    case PDT_INT32: return (int32_t)(uint32_t)v;
    default: return v;
    }
}

/* The rank of each dtype in bool < {uint8, int8} < int16 < int32 < int64 <
 * {float16, bfloat16} < float32 < float64. */
static int rank(pdt_dtype dt)
{
    static const int ranks[PDT_NUM_DTYPES] = {0, 4, 5, 7, 8, 6, 6, 1, 1, 3};
    return ranks[dt];
}

pdt_dtype pdt_promote(pdt_dtype a, pdt_dtype b)
{
    /* The ranks cover every pair of our dtypes the way PyTorch promotes tensors
     * of the same category: int64 with float32 is float32 (PyTorch), while
     * NumPy would give float64; int64 with float16 is float16.  float16 with
     * bfloat16 is float32, the smallest type holding both (PyTorch's table).
     * We follow PyTorch, as DESIGN.md asks wherever PyTorch has the feature. */
    if (a == b)
        return a;
    if (pdt_dtype_is_half(a) && pdt_dtype_is_half(b))
        return PDT_FLOAT32;
    if (rank(a) == rank(b) && rank(a) == 1) /* uint8 with int8: int16 holds both */
        return PDT_INT16;
    return rank(a) > rank(b) ? a : b;
}

/* Atomic: ops on other threads (the GIL released) read it while Python sets it. */
static _Atomic int default_float = PDT_FLOAT32;

pdt_dtype pdt_default_float(void) { return (pdt_dtype)atomic_load(&default_float); }

int pdt_set_default_float(pdt_dtype dt)
{
    if (!pdt_dtype_valid((int)dt) || !pdt_dtype_is_floating(dt))
        return -1;
    atomic_store(&default_float, (int)dt);
    return 0;
}
