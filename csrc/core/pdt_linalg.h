/* pdt_linalg.h - singular values (issue 17: linalg.matrix_norm with ord 2, -2
 * and 'nuc'), on the backends that compute them. */
#ifndef PDT_LINALG_H
#define PDT_LINALG_H

#include "pdt_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[..., :] = the singular values of each matrix x[..., :, :], in descending
 * order.  x contiguous float64 (..., m, n), out contiguous float64
 * (..., min(m, n)).  PDT_ERR_UNSUPPORTED on a device whose backend does not
 * compute them (the CUDA backend: pydevtensor has no cuSOLVER). */
pdt_status pdt_singular_values(const pdt_tensor *x, const pdt_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_LINALG_H */
