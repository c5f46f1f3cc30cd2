/* cpu_blas.c - loads OpenBLAS on first use (see cpu_blas.h). */
#define _GNU_SOURCE
#include "cpu_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef PDT_BLAS_LIBNAME
#define PDT_BLAS_LIBNAME "libopenblas.so.0"
#endif

static pdt_blas_table blas;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t candidates_lock = PTHREAD_MUTEX_INITIALIZER;
static char candidates[4][512];
static int ncandidates;
static char load_error[1024];

void pdt_cpu_blas_add_candidate(const char *path)
{
    pthread_mutex_lock(&candidates_lock);
    if (ncandidates < 4 && strlen(path) < sizeof candidates[0])
        strcpy(candidates[ncandidates++], path);
    pthread_mutex_unlock(&candidates_lock);
}

static void *load_symbol(void *lib, const char *name, int *missing)
{
    void *p = dlsym(lib, name);
    if (!p)
        *missing = 1;
    return p;
}

static void blas_load(void)
{
    void *lib = dlopen(PDT_BLAS_LIBNAME, RTLD_NOW | RTLD_LOCAL);
    const char *from = PDT_BLAS_LIBNAME;
    pthread_mutex_lock(&candidates_lock);
    for (int i = 0; !lib && i < ncandidates; i++) {
        lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        from = candidates[i];
    }
    pthread_mutex_unlock(&candidates_lock);
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "OpenBLAS could not be loaded (%s; tried %s and %d installed path%s): "
                 "reinstall scipy-openblas32",
                 why ? why : "unknown error", PDT_BLAS_LIBNAME, ncandidates,
                 ncandidates == 1 ? "" : "s");
        return;
    }
    int missing = 0;
    /* POSIX dlsym returns void*; converting it to a function pointer is how
     * the API is meant to be used. */
    *(void **)&blas.get_config = load_symbol(lib, PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_config)),
                                             &missing);
    *(void **)&blas.get_num_threads =
        load_symbol(lib, PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_num_threads)), &missing);
    *(void **)&blas.sgemm = load_symbol(lib, PDT_BLAS_STR(PDT_BLAS_SYMBOL(sgemm)), &missing);
    *(void **)&blas.dgemm = load_symbol(lib, PDT_BLAS_STR(PDT_BLAS_SYMBOL(dgemm)), &missing);
    if (missing) {
        snprintf(load_error, sizeof load_error,
                 "the OpenBLAS at %s lacks the expected %s-prefixed symbols", from,
                 PDT_BLAS_STR(PDT_BLAS_PREFIX) "");
        memset(&blas, 0, sizeof blas);
        dlclose(lib);
        return;
    }
    Dl_info info;
    if (dladdr(*(void **)&blas.sgemm, &info) && info.dli_fname)
        snprintf(blas.path, sizeof blas.path, "%s", info.dli_fname);
    else
        snprintf(blas.path, sizeof blas.path, "%s", from);
}

pdt_status pdt_cpu_blas(const pdt_blas_table **out)
{
    pthread_once(&blas_once, blas_load);
    if (!blas.sgemm)
        return pdt_fail(PDT_ERR_BACKEND, "%s", load_error);
    *out = &blas;
    return PDT_OK;
}

void pdt_cpu_blas_describe(char *buf, size_t n)
{
    const pdt_blas_table *b;
    if (pdt_cpu_blas(&b) != PDT_OK)
        snprintf(buf, n, "unavailable: %s", pdt_last_error());
    else
        snprintf(buf, n, "%s, %d threads", b->get_config(), b->get_num_threads());
}
