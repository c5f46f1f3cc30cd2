/* pdt_dtype.c - dtype sizes, names and promotion. */
#include "pdt_dtype.h"

static const size_t dtype_sizes[PDT_NUM_DTYPES] = {1, 4, 8, 4, 8};
static const char *const dtype_names[PDT_NUM_DTYPES] = {"bool", "int32", "int64", "float32",
                                                        "float64"};

int pdt_dtype_valid(int dt) { return dt >= 0 && dt < PDT_NUM_DTYPES; }
size_t pdt_dtype_size(pdt_dtype dt) { return pdt_dtype_valid((int)dt) ? dtype_sizes[dt] : 0; }
const char *pdt_dtype_name(pdt_dtype dt)
{
    return pdt_dtype_valid((int)dt) ? dtype_names[dt] : "invalid";
}
int pdt_dtype_is_floating(pdt_dtype dt) { return dt == PDT_FLOAT32 || dt == PDT_FLOAT64; }

pdt_dtype pdt_promote(pdt_dtype a, pdt_dtype b)
{
    /* bool < int32 < int64 < float32 < float64 covers every pair of our dtypes
     * the way PyTorch promotes tensors of the same category: int64 with float32 is
     * float32 (PyTorch), while NumPy would give float64.  We follow PyTorch here,
     * as DESIGN.md asks for PyTorch meaning wherever PyTorch has the feature. */
    return a > b ? a : b;
}
