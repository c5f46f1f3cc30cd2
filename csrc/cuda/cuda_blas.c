/* cuda_blas.c - loads cuBLAS on first use (see cuda_blas.h). */
#define _GNU_SOURCE
#include "cuda_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_library.h"

#define PDT_STR2(x) #x
#define PDT_STR(x) PDT_STR2(x)
#define PDT_CUBLAS_SONAME "libcublas.so." PDT_STR(CUBLAS_VER_MAJOR)

static pdt_cublas_table cublas;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;
static char cublas_error[768];

static void cublas_load(void)
{
    void *lib = pdt_cuda_open_library(PDT_CUBLAS_SONAME, "cuBLAS", cublas_error,
                                      sizeof cublas_error);
    if (!lib)
        return;
    struct {
        void **slot;
        const char *name;
    } symbols[] = {
        {(void **)&cublas.create, "cublasCreate_v2"},
        {(void **)&cublas.destroy, "cublasDestroy_v2"},
        {(void **)&cublas.set_stream, "cublasSetStream_v2"},
        {(void **)&cublas.set_math_mode, "cublasSetMathMode"},
        {(void **)&cublas.get_property, "cublasGetProperty"},
        {(void **)&cublas.status_string, "cublasGetStatusString"},
        {(void **)&cublas.sgemm, "cublasSgemm_v2"},
        {(void **)&cublas.dgemm, "cublasDgemm_v2"},
        {(void **)&cublas.sgemm_strided_batched, "cublasSgemmStridedBatched"},
        {(void **)&cublas.dgemm_strided_batched, "cublasDgemmStridedBatched"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(cublas_error, sizeof cublas_error, "%s lacks the symbol %s", PDT_CUBLAS_SONAME,
                     symbols[i].name);
            memset(&cublas, 0, sizeof cublas);
            dlclose(lib);
            return;
        }
    }
    Dl_info info;
    if (dladdr(*(void **)&cublas.sgemm, &info) && info.dli_fname)
        snprintf(cublas.path, sizeof cublas.path, "%s", info.dli_fname);
    else
        snprintf(cublas.path, sizeof cublas.path, "%s", PDT_CUBLAS_SONAME);
}

pdt_status pdt_cublas(const pdt_cublas_table **out)
{
    pthread_once(&cublas_once, cublas_load);
    if (!cublas.sgemm)
        return pdt_fail(PDT_ERR_BACKEND, "%s", cublas_error);
    *out = &cublas;
    return PDT_OK;
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
             patch, t->path, CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);
}
