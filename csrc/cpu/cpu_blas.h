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
#include <stdint.h>

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
    __typeof__(PDT_BLAS_SYMBOL(sgemv)) *sgemv;
    __typeof__(PDT_BLAS_SYMBOL(dgemv)) *dgemv;
    __typeof__(PDT_BLAS_SYMBOL(sdot)) *sdot;
    __typeof__(PDT_BLAS_SYMBOL(ddot)) *ddot;
} pdt_blas_table;

/* OpenBLAS for the shared loader (pdt_library.h): the bindings add the installed
 * wheel's lib/ directory; the file loaded is pdt_openblas_library.path. */
extern pdt_library pdt_openblas_library;
/* The loaded table, loading it on first use; PDT_ERR_BACKEND naming the
 * places tried when OpenBLAS cannot be loaded. */
pdt_status pdt_cpu_blas(const pdt_blas_table **out);
/* Around every call into OpenBLAS (Note [OpenBLAS and fork] in cpu_blas.c): enter
 * waits while a fork is being prepared or the process exits, and checks that
 * OpenBLAS will get the memory the call may need (Note [OpenBLAS scratch memory]
 * in cpu_blas_memory.c): PDT_ERR_OOM, and no call, when it would not.  `work` is
 * m*n*k summed over what the call does; leave must follow a successful enter. */
typedef struct pdt_blas_call {
    int level;    /* calls in flight, this one included */
    int buffered; /* big enough to use a scratch block: work >= PDT_BLAS_BUFFERED_WORK */
} pdt_blas_call;
#define PDT_BLAS_BUFFERED_WORK ((int64_t)1 << 21)
pdt_status pdt_cpu_blas_enter(pdt_blas_call *call, int64_t work);
void pdt_cpu_blas_leave(const pdt_blas_call *call);
/* The probes of cpu_blas_memory.c: before loading, and before a call (`level`
 * calls in flight with it); new_buffer: the call may need a new scratch block. */
pdt_status pdt_cpu_blas_probe_load(void);
pdt_status pdt_cpu_blas_probe_call(int level, int new_buffer);
/* ... and before the pool grows by `more` threads (set_num_threads). */
pdt_status pdt_cpu_blas_probe_threads(int more);
/* Sizes OpenBLAS's thread pool for our pool of `pool` threads: as many, at most one
 * a core (Note [OpenBLAS on our pool]); when OpenBLAS has not been loaded yet, loading
 * it does that later.  Returns the threads it uses (or will), -1 when OpenBLAS could
 * not be loaded, -2 when the bigger pool would not get its memory (pdt_last_error()
 * says why in both cases). */
int pdt_cpu_blas_set_threads(int pool);

/* "OpenBLAS 0.3.28 ... MAX_THREADS=64, 2 threads" (loads the library). */
void pdt_cpu_blas_describe(char *buf, size_t n);

#endif /* PDT_CPU_BLAS_H */
