/* pdt_reduce.h - reductions: sum, mean, prod, max, min, argmax, argmin, norm.
 *
 * Each entry validates once (dims, dtypes, empty reductions), notes the op for
 * placement logging, and hands the backend an (m, k) matrix whose rows of k it
 * reduces (see `reduce` in pdt_backend.h): the kept dims flattened into m, the
 * reduced ones into k.  No copy is made when that matrix is a view of the
 * input with contiguous rows (strides (k, 1): the reduced dims are innermost)
 * or contiguous columns (strides (1, m): the kept dims are innermost, as in
 * sum(0) of a matrix); otherwise the input is first copied into the rows
 * layout (or, when only the dtype changes, an integer one, into the columns
 * layout that is the input's own order: sum(0) of an int16 matrix).  The result is a new contiguous tensor on the input's device.
 *
 * `dims` lists the dims to reduce (negative ones count from the end; each at
 * most once); ndims < 0 reduces every dim.  keepdim keeps the reduced dims with
 * size 1.  On failure nothing is allocated and the message names the op, the
 * dim, the ndim and the sizes.
 *
 * Note [reduction dtypes]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * As in PyTorch: sum and prod of bool, int32 and int64 give int64 (integer sums
 * wrap around on overflow, in two's complement); of floats, the input's dtype.
 * mean and norm need a floating input (or dtype=): an integer input is a
 * PDT_ERR_TYPE.  max and min keep the dtype; argmax and argmin give int64.  A
 * `dtype` (>= 0) casts the input to it first, as PyTorch's dtype= does.
 *
 * The backend contract: x is (m, k) with strides (k, 1) or, for k > 1, (1, m);
 * out is (m,) contiguous with the dtype pdt_reduce_out_dtype(op, x's dtype).
 *
 * Note [reduction accuracy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Sums of float32 (sum, mean, the norms) accumulate in double on every device,
 * in a fixed order (CPU rows: pairwise within chunks of 64K elements, or, for
 * sums of squares, in 32 running lanes (Note [float32 sums of squares] in
 * csrc/cpu/cpu_reduce.c; float64's squares rounded first), chunks added in order;
 * CPU columns: in row order;
 * CUDA: per-thread running sums combined by warp-shuffle trees), and round once
 * to float32 at the end.
 * Against the exact result on the same values, for a row of k elements x:
 *     |got - ref| <= 2^-24 |ref| + k 2^-53 sum(|x|)     (float32 results)
 *     |got - ref| <= k 2^-53 sum(|x|)                   (float64 results)
 * The first term is the final rounding; the second, the worst case of double
 * accumulation in any order, is far below it for any k that fits in memory
 * (pairwise summation does much better than the bound, and 32 lanes about
 * (k / 32 + 5) 2^-53).  mean divides the
 * second term by k.  prod accumulates in double: (2^-24 + k 2^-53) |ref| for
 * float32 (while in range).  The 2-norm takes the square root of the sum of
 * squares in double and rounds once after it, so a float32 norm neither
 * overflows nor underflows in between (norm([1e20, 1e20]) is 1.41e20, not
 * inf): (2^-24 + k 2^-53) |ref| for float32, (2^-53 + k 2^-53) |ref| for
 * float64 (while the sum of squares is in double's range).  max, min, argmax and argmin are exact.
 * tests/test_reduce.py checks these bounds against NumPy in float64 on every
 * device, with the k 2^-53 term doubled for NumPy's own rounding.
 *
 * Note [reductions and NaN]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * max and min propagate NaN (PyTorch; not NumPy's fmax); argmax and argmin of a
 * row holding a NaN give the index of its first NaN, and ties otherwise give the
 * first occurrence, on every device.
 */
#ifndef PDT_REDUCE_H
#define PDT_REDUCE_H

#include <stdint.h>

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dtype a backend writes for op over an x of dtype x_dtype. */
pdt_dtype pdt_reduce_out_dtype(pdt_reduce_op op, pdt_dtype x_dtype);

/* sum, prod, mean, max (amax), min (amin), argmax, argmin over dims.  dtype: -1
 * or a dtype to cast to first (sum, prod and mean only).  argmax and argmin
 * take one dim (ndims == 1) or all (ndims < 0: the index into the flattened
 * tensor).  Zero-size: sum 0, prod 1, mean nan; max, min, argmax and argmin
 * over a dim of size 0 are a PDT_ERR_INDEX naming the dim and its size. */
pdt_status pdt_reduce(pdt_reduce_op op, const pdt_tensor *x, int ndims, const int64_t *dims,
                      int keepdim, int dtype, pdt_tensor *out);

/* max(dim) / min(dim): the values and their int64 indices (first occurrence;
 * NaN wins, see Note [reductions and NaN]).  op: PDT_REDUCE_MAX or _MIN. */
pdt_status pdt_reduce_with_indices(pdt_reduce_op op, const pdt_tensor *x, int64_t dim, int keepdim,
                                   pdt_tensor *values, pdt_tensor *indices);

/* The vector p-norm over dims (ndims < 0: all elements): p = 2 (also the
 * Frobenius norm) or p = 1.  Other p are PDT_ERR_UNSUPPORTED.  dtype as in
 * pdt_reduce. */
pdt_status pdt_norm(const pdt_tensor *x, double p, int ndims, const int64_t *dims, int keepdim,
                    int dtype, pdt_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_REDUCE_H */
