/* cuda_blas.c - loads cuBLAS on first use (see cuda_blas.h). */
#define _GNU_SOURCE
#include "cuda_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_library.h"
#include "cuda_solver.h" /* pdt_cuda_release_for_retry */
#include "pdt_runtime.h" /* pdt_logical_index */

#define PDT_CUBLAS_SONAME "libcublas.so." PDT_CUDA_STR(CUBLAS_VER_MAJOR)
/* NVIDIA's cuBLAS wheel: unsuffixed from CUDA 13 on, nvidia-cublas-cu12 before. */
#if CUBLAS_VER_MAJOR >= 13
#define PDT_CUBLAS_WHEEL "nvidia-cublas"
#else
#define PDT_CUBLAS_WHEEL "nvidia-cublas-cu" PDT_CUDA_STR(CUBLAS_VER_MAJOR)
#endif

static pdt_cublas_table cublas;
static const pdt_library_symbol cublas_symbols[] = {
    {"cublasSgemm_v2", (void **)&cublas.sgemm}, /* first: its address names the file */
    {"cublasCreate_v2", (void **)&cublas.create},
    {"cublasDestroy_v2", (void **)&cublas.destroy},
    {"cublasSetStream_v2", (void **)&cublas.set_stream},
    {"cublasSetMathMode", (void **)&cublas.set_math_mode},
    {"cublasGetProperty", (void **)&cublas.get_property},
    {"cublasGetStatusString", (void **)&cublas.status_string},
    {"cublasDgemm_v2", (void **)&cublas.dgemm},
    {"cublasSgemmStridedBatched", (void **)&cublas.sgemm_strided_batched},
    {"cublasDgemmStridedBatched", (void **)&cublas.dgemm_strided_batched},
    {"cublasGemmEx", (void **)&cublas.gemm_ex},
    {"cublasGemmStridedBatchedEx", (void **)&cublas.gemm_strided_batched_ex},
    {"cublasSgetrfBatched", (void **)&cublas.sgetrf_batched},
    {"cublasDgetrfBatched", (void **)&cublas.dgetrf_batched},
    {"cublasSgetrsBatched", (void **)&cublas.sgetrs_batched},
    {"cublasDgetrsBatched", (void **)&cublas.dgetrs_batched},
};
pdt_library pdt_cublas_library = PDT_LIBRARY("cuBLAS", PDT_CUBLAS_SONAME,
                                             PDT_CUDA_INSTALL(PDT_CUBLAS_WHEEL) PDT_CUDA_EXTRA,
                                             cublas_symbols,
                                             sizeof cublas_symbols / sizeof cublas_symbols[0],
                                             PDT_CUDA_LIBRARY_CHECK, PDT_CUDA_LOCAL_DIR,
                                             PDT_CUDA_NO_SYSTEM);

pdt_status pdt_cublas(const pdt_cublas_table **out)
{
    pdt_status st = pdt_library_need(&pdt_cublas_library);
    if (st != PDT_OK)
        return st;
    *out = &cublas;
    return PDT_OK;
}

pdt_status pdt_cublas_fail(const pdt_cublas_table *t, cublasStatus_t s, const char *call,
                           const char *file, int line)
{
    int device = -1;
    (void)cudaGetLastError();
    if (cudaGetDevice(&device) != cudaSuccess) /* the handle's device is current */
        (void)cudaGetLastError();
    return pdt_fail(s == CUBLAS_STATUS_ALLOC_FAILED ? PDT_ERR_OOM : PDT_ERR_BACKEND,
                    "cuBLAS error on cuda:%d: %s returned %s (%d) at %s:%d",
                    device < 0 ? -1 : pdt_logical_index(PDT_CUDA, device), call,
                    t->status_string(s), (int)s, file, line);
}

pdt_status pdt_cublas_create(const pdt_cublas_table *t, cublasHandle_t *handle, int device)
{
    cublasStatus_t s = t->create(handle);
    if (s == CUBLAS_STATUS_ALLOC_FAILED || s == CUBLAS_STATUS_NOT_INITIALIZED) {
        pdt_cuda_release_for_retry(device);
        s = t->create(handle);
    }
    if (s == CUBLAS_STATUS_SUCCESS)
        return PDT_OK;
    *handle = NULL;
    return pdt_handle_create_fail(s == CUBLAS_STATUS_ALLOC_FAILED, "cuBLAS", "cublasCreate", device,
                                  t->status_string(s), (int)s);
}

void pdt_cublas_describe(char *buf, size_t n)
{
    const pdt_cublas_table *t;
    if (pdt_cublas(&t) != PDT_OK) {
        snprintf(buf, n, "unavailable: %s", pdt_last_error());
        return;
    }
    int major = 0, minor = 0, patch = 0;
    t->get_property(MAJOR_VERSION, &major);
    t->get_property(MINOR_VERSION, &minor);
    t->get_property(PATCH_LEVEL, &patch);
#ifdef PDT_CUDA_EMULATED
#define PDT_CUDART_KIND "emulated"
#else
#define PDT_CUDART_KIND "static"
#endif
    snprintf(buf, n, "cuBLAS %d.%d.%d (%s), cudart %d.%d (" PDT_CUDART_KIND ")", major, minor,
             patch, pdt_cublas_library.path, CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);
}
