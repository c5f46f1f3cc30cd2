/* cuda_gemm.c - the CUDA backend's GEMM: float32 and float64 through cuBLAS
 * (loaded on first use, cuda_blas.h), float16 and bfloat16 through
 * cublasGemmEx, integers and k == 0 through the tiled kernel of
 * cuda_gemm_int.cu, and the TF32 switch.
 *
 * One cuBLAS handle per physical GPU (a handle belongs to the device that was
 * current when it was made; two logical devices of one GPU share it, as they
 * share its stream), created on first use and bound to the
 * device's one stream (Note [one stream per device] in cuda_backend.c), so a
 * GEMM is ordered after the copies and kernels that produced its operands and
 * before whatever reads its result.  The handle's stream and math mode are
 * set, and the GEMM enqueued, under the device's lock: two threads never race
 * on one handle's settings.
 *
 * Note [row-major cuBLAS]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * cuBLAS reads matrices column-major; ours are row-major (pdt_gemm_args).  The
 * bytes of a row-major (r, c) matrix with leading dimension ld are those of a
 * column-major (c, r) matrix with the same ld: its transpose, for free.  So
 * instead of C = op(A) op(B) we ask cuBLAS for
 *
 *     C^T = op(B)^T op(A)^T        (n, m) = (n, k) (k, m), column-major
 *
 * passing B first and A second with their own transpose flags, and the sizes
 * as (n, m, k).  B stored row-major (k, n) is, read column-major, the (n, k)
 * matrix op(B)^T that we want: CUBLAS_OP_N.  With trans_b, B is stored (n, k),
 * read column-major as (k, n), and op(B)^T is its transpose: CUBLAS_OP_T.  A
 * likewise.  The result, column-major (n, m) with leading dimension ldc, is C
 * row-major (m, n): no copy and no transpose kernel anywhere.  The leading
 * dimensions satisfy cuBLAS's rules (ldb >= n for N, >= k for T, ldc >= n)
 * because they are the row-major ones the core checked.
 */
/* Note [half precision GEMM]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float16 and bfloat16 products go to cublasGemmEx (cuBLAS Library User Guide,
 * "cublasGemmEx()") with A, B and C of type CUDA_R_16F or CUDA_R_16BF and
 * computeType CUBLAS_COMPUTE_32F, whose scaleType is CUDA_R_32F: alpha and beta
 * are floats, products are accumulated in float32, and C is rounded to the half
 * type once; cuBLAS runs this on tensor cores (the default algorithm
 * CUBLAS_GEMM_DEFAULT; tensor cores are used for these types without any math
 * mode since cuBLAS 11).  The same bound as Note [half precision matmul] in
 * cpu_gemm_half.c holds.  "cublasMath_t": unless the handle's math mode carries
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, cuBLAS may also reduce
 * partial sums (split-K) in the output type, which adds up to u_half*|a|@|b|;
 * pdt_gemm_args.allow_reduced_reduction (backends.cuda.matmul.allow_fp16/bf16_
 * reduced_precision_reduction, default True as in PyTorch) chooses it.  The
 * batched form is cublasGemmStridedBatchedEx with the same types.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pthread_* under -std=c11 */
#endif

#include <pthread.h>
#include <stdatomic.h>

#include "cuda_blas.h"
#include "cuda_check.h"
#include "cuda_gemm_int.h"
#include "cuda_ops.h"

typedef struct cublas_slot {
    pthread_mutex_t lock;  /* guards the fields below and calls on the handle */
    cublasHandle_t handle; /* NULL until the device's first GEMM */
    cudaStream_t stream;   /* the stream the handle is bound to */
    cublasMath_t math;     /* the handle's current math mode */
} cublas_slot;

static cublas_slot slots[PDT_MAX_DEVICES]; /* by physical device */
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static atomic_int allow_tf32; /* pydevtensor.backends.cuda.matmul.allow_tf32 */

static void slots_init(void)
{
    for (int i = 0; i < PDT_MAX_DEVICES; i++)
        pthread_mutex_init(&slots[i].lock, NULL);
}

void pdt_cuda_set_allow_tf32(int allow) { atomic_store(&allow_tf32, allow != 0); }

/* One GEMM of element type T through t->GEMM, or t->BATCHED for a batch, with
 * the operands in Note [row-major cuBLAS]'s order.  Inside cublas_gemm_locked. */
#define CUBLAS_GEMM(T, GEMM, BATCHED)                                                              \
    do {                                                                                           \
        T alpha = (T)g->alpha, beta = (T)g->beta;                                                  \
        const T *a = g->a, *b = g->b;                                                              \
        T *c = g->c;                                                                               \
        if (batch == 1)                                                                            \
            PDT_CUBLAS_CHECK(                                                                      \
                t->GEMM(s->handle, op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc));   \
        else                                                                                       \
            PDT_CUBLAS_CHECK(t->BATCHED(s->handle, op_b, op_a, n, m, k, &alpha, b, ldb,            \
                                        g->stride_b, a, lda, g->stride_a, &beta, c, ldc,           \
                                        g->stride_c, batch));                                      \
    } while (0)

/* Enqueues g through cuBLAS on stream; s->lock is held. */
static pdt_status cublas_gemm_locked(const pdt_cublas_table *t, cublas_slot *s, cudaStream_t stream,
                                     const pdt_gemm_args *g)
{
    pdt_status st = PDT_OK;
    if (!s->handle) { /* s's device is current: pdt_cuda_stream set it */
        if ((st = pdt_cublas_create(t, &s->handle, g->device_index)) != PDT_OK)
            goto fail;
        s->stream = NULL;
        s->math = CUBLAS_DEFAULT_MATH;
    }
    if (s->stream != stream) {
        PDT_CUBLAS_CHECK(t->set_stream(s->handle, stream));
        s->stream = stream;
    }
    cublasMath_t math = CUBLAS_DEFAULT_MATH;
    if (g->dtype == PDT_FLOAT32 && atomic_load(&allow_tf32))
        math = CUBLAS_TF32_TENSOR_OP_MATH;
    else if ((g->dtype == PDT_FLOAT16 || g->dtype == PDT_BFLOAT16) && !g->allow_reduced_reduction)
        math = (cublasMath_t)(CUBLAS_DEFAULT_MATH |
                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    if (s->math != math) {
        PDT_CUBLAS_CHECK(t->set_math_mode(s->handle, math));
        s->math = math;
    }

    /* Note [row-major cuBLAS]: B first, then A; sizes (n, m, k). */
    cublasOperation_t op_b = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_a = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k; /* the core checked <= INT_MAX */
    int lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc, batch = (int)g->batch;
    if (g->dtype == PDT_FLOAT32) {
        CUBLAS_GEMM(float, sgemm, sgemm_strided_batched);
    } else if (g->dtype == PDT_FLOAT64) {
        CUBLAS_GEMM(double, dgemm, dgemm_strided_batched);
    } else { /* Note [half precision GEMM] */
        cudaDataType_t type = g->dtype == PDT_FLOAT16 ? CUDA_R_16F : CUDA_R_16BF;
        float alpha = (float)g->alpha, beta = (float)g->beta;
        if (batch == 1)
            PDT_CUBLAS_CHECK(t->gemm_ex(s->handle, op_b, op_a, n, m, k, &alpha, g->b, type, ldb,
                                        g->a, type, lda, &beta, g->c, type, ldc, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT));
        else
            PDT_CUBLAS_CHECK(t->gemm_strided_batched_ex(s->handle, op_b, op_a, n, m, k, &alpha,
                                                        g->b, type, ldb, g->stride_b, g->a, type,
                                                        lda, g->stride_a, &beta, g->c, type, ldc,
                                                        g->stride_c, batch, CUBLAS_COMPUTE_32F,
                                                        CUBLAS_GEMM_DEFAULT));
    }
fail:
    return st;
}

pdt_status pdt_cuda_gemm(const pdt_gemm_args *g)
{
    pdt_status st;
    cudaStream_t stream;
    const pdt_cublas_table *t;
    pdt_cuda_guard guard = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    if ((st = pdt_cuda_stream(&guard, g->device_index, &stream)) != PDT_OK)
        goto fail;
    int via_cublas = g->dtype == PDT_FLOAT32 || g->dtype == PDT_FLOAT64 ||
                     g->dtype == PDT_FLOAT16 || g->dtype == PDT_BFLOAT16;
    if (!via_cublas || (g->k == 0 && pdt_dtype_is_half(g->dtype))) {
        if (g->dtype != PDT_INT32 && g->dtype != PDT_INT64) { /* the core scales half C itself */
            st = pdt_fail(PDT_ERR_UNSUPPORTED, "matmul: %s is not supported on CUDA",
                          pdt_dtype_name(g->dtype));
            goto fail;
        }
    } else if (g->k > 0) {
        if ((st = pdt_cublas(&t)) != PDT_OK)
            goto fail;
        pthread_once(&slots_once, slots_init);
        cublas_slot *s = &slots[guard.current]; /* the physical device, now current */
        pthread_mutex_lock(&s->lock);
        st = cublas_gemm_locked(t, s, stream, g);
        pthread_mutex_unlock(&s->lock);
        goto fail;
    }
    /* integers, and C = beta * C for k == 0 */
    PDT_CUDA_CHECK(pdt_cuda_launch_gemm_tiled(g, stream));
fail:
    pdt_cuda_guard_exit(&guard);
    return st;
}
