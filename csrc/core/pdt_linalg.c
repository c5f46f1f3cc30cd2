/* pdt_linalg.c - the checks in front of the backends' singular values. */
#include "pdt_linalg.h"

#include "pdt_backend.h"
#include "pdt_runtime.h"

pdt_status pdt_singular_values(const pdt_tensor *x, const pdt_tensor *out)
{
    char a[160], b[160], dn[32];
    pdt_device_str(x->device, dn, sizeof dn);
    int ok = x->ndim >= 2 && x->dtype == PDT_FLOAT64 && out->dtype == PDT_FLOAT64 &&
             out->ndim == x->ndim - 1 && pdt_device_eq(x->device, out->device) &&
             pdt_tensor_is_contiguous(x) && pdt_tensor_is_contiguous(out);
    for (int d = 0; ok && d < x->ndim - 2; d++)
        ok = out->shape[d] == x->shape[d];
    if (ok) {
        int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1];
        ok = out->shape[out->ndim - 1] == (m < n ? m : n);
    }
    if (!ok)
        return pdt_fail(PDT_ERR_VALUE,
                        "singular_values: expected contiguous float64 matrices (..., m, n) and "
                        "values (..., min(m, n)) on one device, got %s and %s (on %s)",
                        pdt_shape_str(x->ndim, x->shape, a, sizeof a),
                        pdt_shape_str(out->ndim, out->shape, b, sizeof b), dn);
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    if (!be->singular_values)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "singular values (linalg.matrix_norm with ord 2, -2 or 'nuc') are not "
                        "computed on %s by pydevtensor (no cuSOLVER); move the matrix to the "
                        "CPU first with .cpu() (a counted copy)",
                        dn);
    pdt_note_op("singular_values", x->device);
    if (pdt_tensor_numel(out) == 0)
        return PDT_OK;
    return be->singular_values(x, out);
}
