/* cpu_blas.h - the CPU backend's link to OpenBLAS.  PDT_BLAS(sgemm) names
 * cblas_sgemm with the provider's symbol prefix (scipy-openblas32 prefixes
 * every symbol with "scipy_"; a system OpenBLAS has none). */
#ifndef PDT_CPU_BLAS_H
#define PDT_CPU_BLAS_H

#include <stddef.h>

#include <cblas.h>

#ifndef PDT_BLAS_PREFIX
#define PDT_BLAS_PREFIX
#endif
#define PDT_BLAS_CAT2(a, b) a##b
#define PDT_BLAS_CAT(a, b) PDT_BLAS_CAT2(a, b)
#define PDT_BLAS(name) PDT_BLAS_CAT(PDT_BLAS_PREFIX, cblas_##name)
#define PDT_OPENBLAS(name) PDT_BLAS_CAT(PDT_BLAS_PREFIX, openblas_##name)

/* "OpenBLAS 0.3.28 DYNAMIC_ARCH ... Haswell MAX_THREADS=64, 2 threads" */
void pdt_cpu_blas_describe(char *buf, size_t n);

#endif /* PDT_CPU_BLAS_H */
