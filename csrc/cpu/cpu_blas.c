/* cpu_blas.c - OpenBLAS configuration for build_info(); the GEMM entry points
 * of the CPU backend join this file with the matmul work. */
#include "cpu_blas.h"

#include <stdio.h>

void pdt_cpu_blas_describe(char *buf, size_t n)
{
    snprintf(buf, n, "%s, %d threads", PDT_OPENBLAS(get_config)(), PDT_OPENBLAS(get_num_threads)());
}
