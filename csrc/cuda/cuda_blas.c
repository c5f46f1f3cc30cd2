/* cuda_blas.c - loads cuBLAS on first use (see cuda_blas.h). */
#define _GNU_SOURCE
#include "cuda_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PDT_STR2(x) #x
#define PDT_STR(x) PDT_STR2(x)
#define PDT_CUBLAS_SONAME "libcublas.so." PDT_STR(CUBLAS_VER_MAJOR)

static pdt_cublas_table cublas;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;
static char cublas_error[768];

#ifdef PDT_CUDA_EMULATED
/* The emulated build (csrc/cuda/emulator/README.md) loads the emulated cuBLAS
 * by full path from the build itself, <directory of this extension
 * module>/_emulated_cuda/libcublas.so.N, never a system library of that name.
 * NULL, with cublas_error set, when it cannot. */
static void *cublas_open(void)
{
    Dl_info self;
    if (!dladdr((const void *)(uintptr_t)&pdt_cublas, &self) || !self.dli_fname) {
        snprintf(cublas_error, sizeof cublas_error,
                 "cuBLAS could not be loaded: the extension module's path is unknown");
        return NULL;
    }
    const char *slash = strrchr(self.dli_fname, '/');
    char path[4096];
    int n = slash ? snprintf(path, sizeof path, "%.*s/_emulated_cuda/%s",
                             (int)(slash - self.dli_fname), self.dli_fname, PDT_CUBLAS_SONAME)
                  : snprintf(path, sizeof path, "./_emulated_cuda/%s", PDT_CUBLAS_SONAME);
    if (n < 0 || (size_t)n >= sizeof path) {
        snprintf(cublas_error, sizeof cublas_error,
                 "cuBLAS could not be loaded: the emulated library's path is too long");
        return NULL;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(cublas_error, sizeof cublas_error,
                 "the emulated cuBLAS could not be loaded: %.640s", why ? why : path);
    }
    return lib;
}
#else
/* The toolkit's cuBLAS, found by the dynamic loader under its soname. */
static void *cublas_open(void)
{
    void *lib = dlopen(PDT_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(cublas_error, sizeof cublas_error, "cuBLAS could not be loaded: %s",
                 why ? why : PDT_CUBLAS_SONAME " not found");
    }
    return lib;
}
#endif

static void cublas_load(void)
{
    void *lib = cublas_open();
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
