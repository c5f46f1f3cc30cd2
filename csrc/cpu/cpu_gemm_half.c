/* cpu_gemm_half.c - the CPU backend's GEMM for float16 and bfloat16: blocks
 * of the operands widened to float32 (exactly), multiplied by sgemm (float32
 * accumulation), and the result rounded to the half type once.
 *
 * Note [half precision matmul]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With a and b the (exact) half inputs and u32 = 2^-24, sgemm's float32
 * result c32 satisfies the standard dot-product bound (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed., 3.1): |c32 - a@b| <=
 * gamma_k * |a|@|b| with gamma_k = k*u32/(1 - k*u32) ~ k*u32.  Rounding c32 to
 * the half type adds at most u_half*|c32| (u_half = 2^-11 for float16, 2^-8
 * for bfloat16; values past the largest finite one become infinity).  So
 *   |c - a@b| <= k*u32*(|a|@|b|) + u_half*|c32|   (+ alpha/beta terms alike)
 * The GPU (cublasGemmEx with CUBLAS_COMPUTE_32F, csrc/cuda/cuda_gemm.c) has
 * the same form of bound: its tensor cores multiply the half values exactly
 * and accumulate in float32.  The tests check this bound against float64.
 *
 * Rows of C are taken MB at a time, so the float32 copies stay small next to
 * the operands: op(A)'s block (MB, k), all of op(B) (k, n), C's block (MB, n).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_half.h"
#include "cpu_kernels.h"
#include "pdt_half.h"

#define MB 512 /* rows of C per block */

/* dst (rows, cols) contiguous = src (rows, cols) with leading dimension ld. */
static void widen(pdt_dtype dt, float *dst, const uint16_t *src, int64_t rows, int64_t cols,
                  int64_t ld)
{
    for (int64_t r = 0; r < rows; r++) {
        if (dt == PDT_FLOAT16) {
            pdt_cpu_f16_to_f32(dst + r * cols, src + r * ld, cols);
            continue;
        }
        for (int64_t c = 0; c < cols; c++)
            dst[r * cols + c] = pdt_bf16_to_f32(src[r * ld + c]);
    }
}

/* dst (rows, cols) with leading dimension ld = src (rows, cols) contiguous, rounded. */
static void narrow(pdt_dtype dt, uint16_t *dst, int64_t ld, const float *src, int64_t rows,
                   int64_t cols)
{
    for (int64_t r = 0; r < rows; r++) {
        if (dt == PDT_FLOAT16) {
            pdt_cpu_f32_to_f16(dst + r * ld, src + r * cols, cols);
            continue;
        }
        for (int64_t c = 0; c < cols; c++)
            dst[r * ld + c] = pdt_f32_to_bf16(src[r * cols + c]);
    }
}

pdt_status pdt_cpu_gemm_half(const pdt_gemm_args *g)
{
    const pdt_dtype dt = g->dtype;
    const int64_t m = g->m, n = g->n, k = g->k, mb_max = m < MB ? m : MB;
    /* op(B) as stored: (k, n), or (n, k) when transposed */
    const int64_t b_rows = g->trans_b ? n : k, b_cols = g->trans_b ? k : n;
    float *bw = malloc(sizeof(float) * (size_t)(k * n > 0 ? k * n : 1));
    float *aw = malloc(sizeof(float) * (size_t)(mb_max * k > 0 ? mb_max * k : 1));
    float *cw = malloc(sizeof(float) * (size_t)(mb_max * n > 0 ? mb_max * n : 1));
    pdt_status st = PDT_OK;
    if (!bw || !aw || !cw) {
        st = pdt_fail(PDT_ERR_OOM,
                      "matmul: out of memory for the float32 blocks of a %s product of (%lld, "
                      "%lld) by (%lld, %lld) on cpu",
                      pdt_dtype_name(dt), (long long)m, (long long)k, (long long)k, (long long)n);
        goto done;
    }
    for (int64_t i = 0; i < g->batch && st == PDT_OK; i++) {
        const uint16_t *a = (const uint16_t *)g->a + i * g->stride_a;
        const uint16_t *b = (const uint16_t *)g->b + i * g->stride_b;
        uint16_t *c = (uint16_t *)g->c + i * g->stride_c;
        if (k > 0 && (i == 0 || g->stride_b != 0))
            widen(dt, bw, b, b_rows, b_cols, g->ldb);
        for (int64_t r0 = 0; r0 < m && st == PDT_OK; r0 += MB) {
            int64_t rows = m - r0 < MB ? m - r0 : MB;
            /* op(A)'s rows r0.. as stored: rows of (m, k), or columns of (k, m) */
            if (k > 0 && !g->trans_a)
                widen(dt, aw, a + r0 * g->lda, rows, k, g->lda);
            else if (k > 0)
                widen(dt, aw, a + r0, k, rows, g->lda);
            if (g->beta != 0.0)
                widen(dt, cw, c + r0 * g->ldc, rows, n, g->ldc);
            pdt_gemm_args w = *g;
            w.dtype = PDT_FLOAT32;
            w.m = rows;
            w.a = aw, w.lda = g->trans_a ? rows : k, w.stride_a = 0;
            w.b = bw, w.ldb = b_cols, w.stride_b = 0;
            w.c = cw, w.ldc = n, w.stride_c = 0;
            w.batch = 1;
            st = pdt_cpu_gemm(&w);
            if (st == PDT_OK)
                narrow(dt, c + r0 * g->ldc, g->ldc, cw, rows, n);
        }
    }
done:
    free(aw);
    free(bw);
    free(cw);
    return st;
}
