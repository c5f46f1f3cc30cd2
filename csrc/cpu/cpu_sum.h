/* cpu_sum.h - the float pairwise sums shared by cpu_reduce.c's chunks and the
 * row sums (cpu_sum.c, Note [batched leaves]; the order: Note [CPU reduction
 * order] in cpu_reduce.c). */
#ifndef PDT_CPU_SUM_H
#define PDT_CPU_SUM_H

#include <stdint.h>

#include "pdt_dtype.h"

#define PDT_CPU_SUM_CHUNK ((int64_t)1 << 16) /* elements per partial result */
#define PDT_CPU_LEAF 128                     /* the pairwise tree's largest leaf */

/* The pairwise sum of x[0 .. n) (1 <= n <= PDT_CPU_SUM_CHUNK), in double. */
double pdt_cpu_pairwise_f32(const float *x, int64_t n);
double pdt_cpu_pairwise_f64(const double *x, int64_t n);

/* out[r] = the sum of row r of m float32 or float64 rows of k elements, 1 <= k <=
 * PDT_CPU_LEAF (a leaf each), pitch bytes apart: four rows at a time. */
void pdt_cpu_short_row_sums(pdt_dtype dt, const void *x, int64_t pitch, int64_t m, int64_t k,
                            double *out);

#endif
