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
} pdt_cublas_table;
/* The file loaded: pdt_cublas_library.path (cuda_library.h). */

/* The loaded table, loading it on first use; PDT_ERR_BACKEND when it cannot be. */
pdt_status pdt_cublas(const pdt_cublas_table **out);
/* "cuBLAS 13.1.0 (/usr/local/cuda/lib64/libcublas.so.13)", or why it is unavailable. */
void pdt_cublas_describe(char *buf, size_t n);

#endif /* PDT_CUDA_BLAS_H */
