/* pdt_ops.h - the validated entry points the bindings call.  Each checks its
 * inputs once (devices, dtypes, shapes), notes the op for placement logging,
 * and dispatches to the backend of the device that holds the tensors. */
#ifndef PDT_OPS_H
#define PDT_OPS_H

#include "pdt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies src into dst: any devices, dtypes and strides, same shape.  The one
 * place where data crosses devices; every crossing is counted and passes the
 * copy hook.  flags: PDT_COPY_NON_BLOCKING, PDT_COPY_DST_FRESH.  A failed copy leaves
 * dst as it was unless PDT_COPY_DST_FRESH. */
pdt_status pdt_copy(const pdt_tensor *dst, const pdt_tensor *src, int flags);
/* A new contiguous tensor on device with dtype holding src's values. */
pdt_status pdt_copy_to_new(const pdt_tensor *src, pdt_device device, pdt_dtype dtype,
                           int storage_flags, int copy_flags, pdt_tensor *out);
/* The same within one device, with out laid out in src's memory order (Note
 * [memory order] in pdt_tensor.h), as PyTorch's preserve_format: clone() and
 * to(dtype) of a transposed tensor stay transposed; a contiguous src gives a
 * contiguous out. */
pdt_status pdt_copy_to_new_in_order(const pdt_tensor *src, pdt_dtype dtype, pdt_tensor *out);
/* result = the n tensors joined along dim, a new contiguous tensor.  The caller has
 * checked what torch.cat requires: n >= 1, one dtype and device, ndim >= 1 and the
 * same sizes outside dim (pydevtensor/_ops_join.py checks and reports the rest). */
pdt_status pdt_cat_checked(int n, const pdt_tensor *const *ts, int dim, pdt_tensor *result);

/* Every element of dst set to value.  A value dst's dtype cannot hold is refused
 * before anything is written (pdt_scalar_fits). */
pdt_status pdt_fill(const pdt_tensor *dst, pdt_scalar value);
/* 1 when a number written into dtype dt keeps its magnitude, as PyTorch's checked
 * conversion of a written number asks: an int within an integer dtype's range (int32
 * and the small ints; int64 holds every int), a float whose truncation fits one, and
 * a finite number that does not round to an infinity in a float dtype (1e39 into
 * float32, 1e5 into float16; inf and NaN themselves fit).  Results of arithmetic
 * are not asked this: x + 1e39 is inf, as in PyTorch. */
int pdt_scalar_fits(pdt_dtype dt, pdt_scalar value);
/* pdt_fill for a number that is an operand, not a written value (where(c, h, 1e5) of
 * float16, as PyTorch lets it): into a float dtype it rounds as arithmetic rounds, to an
 * infinity past the dtype's range; into an integer dtype it is refused as pdt_fill
 * refuses it. */
pdt_status pdt_fill_operand(const pdt_tensor *dst, pdt_scalar value);
/* value in buf: an int, or a float in the fewest digits that read back as it (1e+39, not
 * 1.0000000000000001e+39; 0.1). */
void pdt_number_str(pdt_scalar value, char *buf, size_t n);
/* dst contiguous 1-D. */
pdt_status pdt_arange(const char *name, const pdt_tensor *dst, double start, double step);
/* dst contiguous; low/high for PDT_RANDOM_INT, a/b otherwise; the numbers come
 * from gen (NULL: the default generator, Note [one stream for every device]). */
pdt_status pdt_random(const pdt_tensor *dst, pdt_generator *gen, pdt_random_kind kind, double a,
                      double b, int64_t low, int64_t high);
pdt_status pdt_synchronize(pdt_device d);

/* The same-device rule: PDT_OK with *device set when every non-NULL tensor in
 * ts[0..n) is on one device; else PDT_ERR_DEVICE in PyTorch's words, naming the
 * op and the argument that differs (names[i] is ts[i]'s argument name). */
pdt_status pdt_same_device(const char *op, int n, const pdt_tensor *const *ts,
                           const char *const *names, pdt_device *device);

#ifdef __cplusplus
}
#endif
#endif /* PDT_OPS_H */
