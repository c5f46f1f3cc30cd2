/* cpu_blas.h - OpenBLAS, loaded on first use.
 *
 * Loading OpenBLAS starts its thread pool, which costs ~25 ms; linking it would
 * put that on every `import pydevtensor`.  So the library is dlopen()ed the first
 * time a BLAS routine is needed, and its entry points are kept in a table.
 * PDT_BLAS_SYMBOL(sgemm) names cblas_sgemm with the provider's prefix
 * (scipy-openblas32 prefixes every symbol with "scipy_"; a system OpenBLAS has none).
 */
#ifndef PDT_CPU_BLAS_H
#define PDT_CPU_BLAS_H

#include <stddef.h>

#include <cblas.h>

#include "pdt_library.h"
#include "pdt_status.h"

#ifndef PDT_BLAS_PREFIX
#define PDT_BLAS_PREFIX
#endif
#define PDT_BLAS_STR2(x) #x
#define PDT_BLAS_STR(x) PDT_BLAS_STR2(x)
#define PDT_BLAS_CAT2(a, b) a##b
#define PDT_BLAS_CAT(a, b) PDT_BLAS_CAT2(a, b)
/* The declared symbol, used for its type. */
#define PDT_BLAS_SYMBOL(name) PDT_BLAS_CAT(PDT_BLAS_PREFIX, cblas_##name)
#define PDT_OPENBLAS_SYMBOL(name) PDT_BLAS_CAT(PDT_BLAS_PREFIX, openblas_##name)

typedef struct pdt_blas_table {
    char *(*get_config)(void);
    int (*get_num_threads)(void);
    void (*set_num_threads)(int);
    __typeof__(PDT_BLAS_SYMBOL(sgemm)) *sgemm;
    __typeof__(PDT_BLAS_SYMBOL(dgemm)) *dgemm;
} pdt_blas_table;

/* OpenBLAS for the shared loader (pdt_library.h): the bindings add the installed
 * wheel's lib/ directory; the file loaded is pdt_openblas_library.path. */
extern pdt_library pdt_openblas_library;
/* The loaded table, loading it on first use; PDT_ERR_BACKEND naming the
 * places tried when OpenBLAS cannot be loaded. */
pdt_status pdt_cpu_blas(const pdt_blas_table **out);
/* Around every call into OpenBLAS (Note [OpenBLAS and fork] in cpu_blas.c): enter
 * waits while a fork is being prepared or the process exits; leave must follow. */
void pdt_cpu_blas_enter(void);
void pdt_cpu_blas_leave(void);
/* Sizes OpenBLAS's thread pool (loads the library); the threads it now uses, or -1
 * when OpenBLAS cannot be loaded. */
int pdt_cpu_blas_set_threads(int n);
/* "OpenBLAS 0.3.28 ... MAX_THREADS=64, 2 threads" (loads the library). */
void pdt_cpu_blas_describe(char *buf, size_t n);

#endif /* PDT_CPU_BLAS_H */
