/* cpu_kernels.h - the CPU backend's kernel entries (filled into its table). */
#ifndef PDT_CPU_KERNELS_H
#define PDT_CPU_KERNELS_H

#include "pdt_backend.h"

pdt_status pdt_cpu_fill(const pdt_tensor *dst, pdt_scalar value);
pdt_status pdt_cpu_copy_cast(const pdt_tensor *dst, const pdt_tensor *src);
pdt_status pdt_cpu_arange(const pdt_tensor *dst, double start, double step);
pdt_status pdt_cpu_random(const pdt_tensor *dst, const pdt_random_spec *spec);

#endif /* PDT_CPU_KERNELS_H */
