/* cpu_simd.c - picks the instruction-set level of the CPU kernels (Note [CPU
 * dispatch levels] in cpu_simd.h). */
#include "cpu_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pdt_cpu_simd_table pdt_cpu_simd_baseline;
#if defined(__x86_64__) && defined(__GNUC__)
extern const pdt_cpu_simd_table pdt_cpu_simd_avx2, pdt_cpu_simd_avx512;
static const pdt_cpu_simd_table *const tables[PDT_CPU_LEVELS] = {&pdt_cpu_simd_baseline,
                                                                 &pdt_cpu_simd_avx2,
                                                                 &pdt_cpu_simd_avx512};
#else
static const pdt_cpu_simd_table *const tables[PDT_CPU_LEVELS] = {&pdt_cpu_simd_baseline, NULL,
                                                                 NULL};
#endif
static const char *const names[PDT_CPU_LEVELS] = {"baseline", "avx2", "avx512"};

static int level = -1; /* -1: not chosen yet */

int pdt_cpu_simd_supported(int k)
{
    if (k < 0 || k >= PDT_CPU_LEVELS || !tables[k])
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (k == 1)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
    if (k == 2)
        return pdt_cpu_simd_supported(1) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw");
#endif
    return k == 0;
}

const char *pdt_cpu_simd_name(int k) { return k >= 0 && k < PDT_CPU_LEVELS ? names[k] : "?"; }

static int choose(void)
{
    int best = 0;
    for (int k = PDT_CPU_LEVELS - 1; k > 0 && !best; k--)
        if (pdt_cpu_simd_supported(k))
            best = k;
    const char *want = getenv("PYDEVTENSOR_CPU_LEVEL");
    if (!want || !*want)
        return best;
    for (int k = 0; k < PDT_CPU_LEVELS; k++) {
        if (strcmp(want, names[k]) != 0)
            continue;
        if (k <= best)
            return k;
        fprintf(stderr,
                "pydevtensor: PYDEVTENSOR_CPU_LEVEL=%s, but this processor supports up to %s; "
                "using %s\n",
                want, names[best], names[best]);
        return best;
    }
    fprintf(stderr,
            "pydevtensor: PYDEVTENSOR_CPU_LEVEL=%s is not a level (baseline, avx2, avx512); "
            "using %s\n",
            want, names[best]);
    return best;
}

int pdt_cpu_simd_level(void)
{
    int k = __atomic_load_n(&level, __ATOMIC_ACQUIRE);
    if (k < 0) {
        k = choose(); /* racing first calls choose the same level */
        __atomic_store_n(&level, k, __ATOMIC_RELEASE);
    }
    return k;
}

const pdt_cpu_simd_table *pdt_cpu_simd(void) { return tables[pdt_cpu_simd_level()]; }

int pdt_cpu_simd_set(int k)
{
    if (!pdt_cpu_simd_supported(k))
        return -1;
    __atomic_store_n(&level, k, __ATOMIC_RELEASE);
    return 0;
}
