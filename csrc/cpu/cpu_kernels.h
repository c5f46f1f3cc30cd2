/* cpu_kernels.h - the CPU backend's kernel entries (filled into its table). */
#ifndef PDT_CPU_KERNELS_H
#define PDT_CPU_KERNELS_H

#include "pdt_backend.h"

pdt_status pdt_cpu_fill(const pdt_tensor *dst, pdt_scalar value);
pdt_status pdt_cpu_copy_cast(const pdt_tensor *dst, const pdt_tensor *src);
pdt_status pdt_cpu_arange(const pdt_tensor *dst, double start, double step);
pdt_status pdt_cpu_random(const pdt_tensor *dst, const pdt_random_spec *spec);
/* cpu_copy.c: dst and src of one dtype and shape, not overlapping */
void pdt_cpu_copy_strided(const pdt_tensor *dst, const pdt_tensor *src);

/* cpu_elementwise.c (binary), cpu_unary.c */
pdt_status pdt_cpu_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b);
pdt_status pdt_cpu_binary_scaled(pdt_binary_op op, const pdt_tensor *out, const pdt_tensor *a,
                                 const pdt_tensor *b, pdt_scalar alpha);
pdt_status pdt_cpu_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x, pdt_scalar lo,
                         pdt_scalar hi);
/* cpu_reduce.c */
pdt_status pdt_cpu_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x);
/* cpu_sum.c: out[r] = the sum, in double, of row r of m contiguous float32 or
 * float64 rows of k elements each (x: m k elements), exactly as pdt_cpu_reduce's
 * PDT_REDUCE_SUM forms it for a row (Note [CPU reduction order]). */
void pdt_cpu_row_sums(pdt_dtype dt, const void *x, int64_t m, int64_t k, double *out);
/* cpu_gemm.c */
pdt_status pdt_cpu_gemm(const pdt_gemm_args *g);
/* cpu_dot.c: a float32 or float64 product with m == n == 1 of contiguous vectors,
 * done (1), or 0 when g is not one (then nothing was touched) */
int pdt_cpu_dot(const pdt_gemm_args *g);
/* the float64 dot product of x and y (k >= 1 elements each) in that order, its chunks
 * split over the pool when split (norm's sums of squares, in cpu_reduce.c) */
double pdt_cpu_dot_f64(const double *x, const double *y, int64_t k, int split);
/* cpu_gemm_half.c: float16 and bfloat16 through float32 blocks and sgemm */
pdt_status pdt_cpu_gemm_half(const pdt_gemm_args *g);
/* cpu_index.c */
pdt_status pdt_cpu_where(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                         const pdt_tensor *b);
pdt_status pdt_cpu_index_select(const pdt_tensor *out, const pdt_tensor *src, int dim,
                                const pdt_tensor *index);
pdt_status pdt_cpu_index_put(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                             const pdt_tensor *src);
pdt_status pdt_cpu_index_add(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                             const pdt_tensor *src);
/* cpu_lapack.c (pdt_linalg.h); resolve is called by cpu_blas.c with the loaded
 * OpenBLAS's handle, and leaves an entry NULL where the library lacks it */
void pdt_cpu_lapack_resolve(void *handle);
/* cpu_lapack_eig.c's entries (syevd, gesdd, geqrf, orgqr), resolved by pdt_cpu_lapack_resolve. */
void pdt_cpu_lapack_eig_resolve(void *handle);
/* Loads OpenBLAS; the LAPACK entry *fn must be there and n fit a blasint. */
pdt_status pdt_cpu_lapack_need(const char *what, void *fn, int64_t n);
pdt_status pdt_cpu_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info);
pdt_status pdt_cpu_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b);
pdt_status pdt_cpu_cholesky(const pdt_tensor *a, int upper, const pdt_tensor *info);
pdt_status pdt_cpu_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                        const pdt_tensor *info);
pdt_status pdt_cpu_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                       const pdt_tensor *vt, const pdt_tensor *info);
pdt_status pdt_cpu_qr_factor(const pdt_tensor *a, const pdt_tensor *tau);
pdt_status pdt_cpu_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau);
pdt_status pdt_cpu_sort(const pdt_tensor *values, const pdt_tensor *indices,
                        const pdt_tensor *scratch_values, const pdt_tensor *scratch_indices,
                        int descending);
pdt_status pdt_cpu_cumsum(const pdt_tensor *out, const pdt_tensor *x);
pdt_status pdt_cpu_cumprod(const pdt_tensor *out, const pdt_tensor *x);
/* cpu_nonzero.c */
pdt_status pdt_cpu_nonzero(const pdt_tensor *mask, pdt_make_rows make, void *ctx);
pdt_status pdt_cpu_compress(const pdt_tensor *src, const pdt_tensor *mask, pdt_make_rows make,
                            void *ctx);
/* cpu_classify.c: isnan, isinf, isfinite, signbit (which: PDT_IS_*) */
pdt_status pdt_cpu_classify(const pdt_tensor *out, const pdt_tensor *x, int which);
/* cpu_topk.c */
pdt_status pdt_cpu_topk(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                        int64_t k, int largest);
/* cpu_search.c: searchsorted and isin (mode: PDT_SEARCH_*) */
pdt_status pdt_cpu_search(const pdt_tensor *out, const pdt_tensor *seq, const pdt_tensor *values,
                          int mode);
/* cpu_bincount.c */
pdt_status pdt_cpu_bincount(const pdt_tensor *out, const pdt_tensor *x, int64_t *low,
                            int64_t *high);
/* cpu_count.c */
pdt_status pdt_cpu_count_nonzero(const pdt_tensor *out, const pdt_tensor *x);
/* cpu_repeat.c: repeat_interleave's positions (or rows) */
pdt_status pdt_cpu_repeat_positions(const pdt_tensor *out, const pdt_tensor *x,
                                    const pdt_tensor *repeats, int64_t *total);
/* cpu_cumextreme.c: cummax (largest 1) and cummin */
pdt_status pdt_cpu_cumextreme(const pdt_tensor *values, const pdt_tensor *indices,
                              const pdt_tensor *x, int largest);
/* cpu_select.c: kthvalue's selection */
pdt_status pdt_cpu_select(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                          int rule, int64_t k);
/* cpu_softmax.c */
pdt_status pdt_cpu_softmax(const pdt_tensor *out, const pdt_tensor *x, int log);
/* cpu_conv.c */
pdt_status pdt_cpu_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                          uint64_t pad_bits);
pdt_status pdt_cpu_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w);
/* The window positions x in [0, n) whose input coordinate x stride + off lies in
 * [0, size): [*lo, *hi). */
void pdt_cpu_valid_range(int64_t off, int64_t size, int64_t stride, int64_t n, int64_t *lo,
                         int64_t *hi);
/* cpu_conv_direct.c */
/* The float32 input as the direct kernels read it (Note [the direct convolution]):
 * tap k of output position (y, x) of image n, group g is
 * src[n s_img + g s_grp + y s_row + x + koff[k]], k < C/groups kh kw; q (NULL when
 * x is read in place) is the laid-out copy, with `slack` zeros after it (slack > 0
 * always lays out); planes: the stride phases a channel has there. */
typedef struct pdt_cpu_conv_src {
    const float *src;
    int64_t s_img, s_grp, s_row, planes;
    int64_t *koff;
    float *q;
} pdt_cpu_conv_src;
pdt_status pdt_cpu_conv_src_init(pdt_cpu_conv_src *cs, const pdt_tensor *x, const pdt_window2d *win,
                                 int64_t groups, int64_t slack);
void pdt_cpu_conv_src_free(pdt_cpu_conv_src *cs);
/* cpu_conv_wgrad.c */
pdt_status pdt_cpu_conv2d_grad_weight(const pdt_tensor *dw, const pdt_tensor *x,
                                      const pdt_tensor *g, const pdt_window2d *win, int64_t groups);
pdt_status pdt_cpu_conv2d(const pdt_tensor *out, const pdt_tensor *x, const pdt_tensor *w,
                          const pdt_tensor *bias, const pdt_window2d *win, int64_t groups);
/* cpu_rnn.c */
pdt_status pdt_cpu_rnn_cell(const pdt_rnn_cell_args *a);
pdt_status pdt_cpu_rnn_cell_backward(const pdt_rnn_cell_grad_args *a);

#endif /* PDT_CPU_KERNELS_H */
