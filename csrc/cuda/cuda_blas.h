/* cuda_blas.h - cuBLAS, loaded on first use.
 *
 * Mapping libcublas and libcublasLt costs ~80 ms, which `import pydevtensor` must
 * not pay, and a missing cuBLAS must not stop the module from importing.  So the
 * library is dlopen()ed by the shared loader (pdt_library.h, Note [where libraries
 * are found]) the first time a GEMM or its version is needed; its entry points are
 * kept in a table.
 */
#ifndef PDT_CUDA_BLAS_H
#define PDT_CUDA_BLAS_H

#include <stddef.h>

#include <cublas_v2.h>

#include "pdt_status.h"

typedef struct pdt_cublas_table {
    __typeof__(cublasCreate_v2) *create;
    __typeof__(cublasDestroy_v2) *destroy;
    __typeof__(cublasSetStream_v2) *set_stream;
    __typeof__(cublasSetMathMode) *set_math_mode;
    __typeof__(cublasGetProperty) *get_property;
    __typeof__(cublasGetStatusString) *status_string;
    __typeof__(cublasSgemm_v2) *sgemm;
    __typeof__(cublasDgemm_v2) *dgemm;
    __typeof__(cublasSgemmStridedBatched) *sgemm_strided_batched;
    __typeof__(cublasDgemmStridedBatched) *dgemm_strided_batched;
    /* float16 and bfloat16 (cuda_gemm.c, Note [half precision GEMM]) */
    __typeof__(cublasGemmEx) *gemm_ex;
    __typeof__(cublasGemmStridedBatchedEx) *gemm_strided_batched_ex;
    /* many small LUs (cuda_solver_batched.c, Note [batched small-matrix solvers]) */
    __typeof__(cublasSgetrfBatched) *sgetrf_batched;
    __typeof__(cublasDgetrfBatched) *dgetrf_batched;
    __typeof__(cublasSgetrsBatched) *sgetrs_batched;
    __typeof__(cublasDgetrsBatched) *dgetrs_batched;
} pdt_cublas_table;
/* The file loaded: pdt_cublas_library.path (cuda_library.h). */

/* The loaded table, loading it on first use; PDT_ERR_BACKEND when it cannot be. */
pdt_status pdt_cublas(const pdt_cublas_table **out);
/* Records a cuBLAS failure of `call` at file:line; CUDA's last error is
 * cleared (Note [clearing CUDA errors] in cuda_check.h). */
pdt_status pdt_cublas_fail(const pdt_cublas_table *t, cublasStatus_t s, const char *call,
                           const char *file, int line);

/* Needs `pdt_status st`, the table `t` and a `fail:` label. */
#define PDT_CUBLAS_CHECK(call)                                                                     \
    do {                                                                                           \
        cublasStatus_t pdt_cublas_st_ = (call);                                                    \
        if (pdt_cublas_st_ != CUBLAS_STATUS_SUCCESS) {                                             \
            st = pdt_cublas_fail(t, pdt_cublas_st_, #call, __FILE__, __LINE__);                    \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* cublasCreate through t on logical device `device` (current), with Note
 * [handle creation retry] (cuda_solver.h): a pool holding freed memory can
 * make its cudaMalloc fail.  A failure after the retry names cublasCreate, its
 * status and cuda:<device>; CUBLAS_STATUS_ALLOC_FAILED is PDT_ERR_OOM. */
pdt_status pdt_cublas_create(const pdt_cublas_table *t, cublasHandle_t *handle, int device);

/* "cuBLAS 13.1.0 (/usr/local/cuda/lib64/libcublas.so.13)", or why it is unavailable. */
void pdt_cublas_describe(char *buf, size_t n);

#endif /* PDT_CUDA_BLAS_H */
