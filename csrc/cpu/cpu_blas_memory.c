/* cpu_blas_memory.c - checks that OpenBLAS will get its scratch memory before it
 * asks for it, since OpenBLAS ends the process when it does not.
 *
 * Note [OpenBLAS scratch memory]
 * OpenBLAS takes its scratch buffers from a process-wide table
 * (driver/others/memory.c, blas_memory_alloc): one BUFFER_SIZE block (32 MiB in
 * the x86-64 builds, common_x86_64.h; seen with strace for scipy-openblas32
 * 0.3.34) for each thread of its pool, mapped when the library is loaded, and
 * one more for each call that runs while others run, mapped on first need and
 * kept until exit.  When neither mmap nor malloc gives it a block, it retries ten
 * times and calls exit(1) ("Memory allocation still failed after 10 retries"):
 * the process ends, and no caller can catch that.  So before OpenBLAS can need
 * new address space we map what it will map (private, read-write, as it does)
 * and unmap it at once; when that fails the call is refused with
 * OutOfMemoryError, and a later call may try again:
 *  - before dlopen(): the library itself plus, per pool thread, a buffer and a
 *    thread stack.  The pool has OPENBLAS_NUM_THREADS, else GOTO_NUM_THREADS,
 *    else OMP_NUM_THREADS threads, else one per CPU we may run on, at most 64
 *    (OpenBLAS's blas_get_cpu_number);
 *  - before a call that makes more calls run at once than ever ran at once with
 *    a product big enough to use a block: one block, plus room for what the
 *    product mallocs (the threaded driver's job table, 512 KiB at 64 threads);
 *  - before any other product that big, when mmap can fail at all (an address-
 *    space limit, or vm.overcommit_memory = 2): room for that job table, since
 *    OpenBLAS also exits when its malloc fails ("malloc failed in gemm_driver").
 *    Otherwise the check costs one getrlimit().  "Big enough" is
 *    m*n*k >= 2^21 (PDT_BLAS_BUFFERED_WORK); smaller products may take
 *    OpenBLAS's small-matrix kernels (builds for AVX-512), which use none, so they
 *    prove nothing: the first small product at each level is probed too, once,
 *    and the first big one at that level is probed again.
 * It is a probe, not a reservation: another thread may take the memory between
 * the probe and OpenBLAS's own mmap.  Under an address-space limit (RLIMIT_AS,
 * how this fails in practice) or strict overcommit that window is the only gap;
 * under the default heuristic overcommit mmap does not fail and the kernel's OOM
 * killer, not OpenBLAS, is the limit.  Tested in tests/test_openblas_memory.py. */
#define _GNU_SOURCE
#include "cpu_blas.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define MIB ((size_t)1 << 20)
#define OPENBLAS_BUFFER (32 * MIB + 4096) /* BUFFER_SIZE plus the page it adds */
#define OPENBLAS_LIBRARY (32 * MIB)       /* the shared object's own mappings, rounded up */
/* What a product mallocs besides its buffer: the threaded GEMM driver's job table
 * (MAX_CPU_NUMBER^2 cache lines, 512 KiB at 64 threads: "malloc failed in
 * gemm_driver", then exit, when it is not there), with room to spare. */
#define OPENBLAS_CALL_EXTRA (2 * MIB)
#define OPENBLAS_MAX_THREADS 64

/* OpenBLAS's rule for the size of its pool (blas_get_cpu_number). */
static int pool_threads(void)
{
    static const char *const vars[] = {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                       "OMP_NUM_THREADS"};
    int n = 0;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0] && n <= 0; i++) {
        const char *v = getenv(vars[i]);
        n = v ? atoi(v) : 0;
    }
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (cpus <= 0)
        cpus = 1;
    if (n <= 0 || n > cpus)
        n = cpus;
    return n > OPENBLAS_MAX_THREADS ? OPENBLAS_MAX_THREADS : n;
}

static size_t thread_stack(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur > 0 &&
        r.rlim_cur < 64 * MIB)
        return (size_t)r.rlim_cur + 4096;
    return 8 * MIB + 4096;
}

/* Maps and unmaps `bytes`; on failure, OutOfMemoryError saying what for. */
static pdt_status probe(size_t bytes, const char *what)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
        munmap(p, bytes);
        return PDT_OK;
    }
    int err = errno;
    char limit[96] = "";
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, " under the address-space limit of %llu MiB (ulimit -v)",
                 (unsigned long long)(r.rlim_cur / MIB));
    return pdt_fail(PDT_ERR_OOM,
                    "cpu: out of memory: OpenBLAS needs %zu MiB of scratch memory for %s, and "
                    "mapping it failed (%s)%s; OpenBLAS would end the process, so the product "
                    "was not started.  Free memory, or set OPENBLAS_NUM_THREADS lower before "
                    "the first product",
                    (bytes + MIB - 1) / MIB, what, strerror(err), limit);
}

pdt_status pdt_cpu_blas_probe_load(void)
{
    int n = pool_threads();
    char what[96];
    snprintf(what, sizeof what, "loading with a pool of %d thread%s", n, n == 1 ? "" : "s");
    return probe(OPENBLAS_LIBRARY + (size_t)n * OPENBLAS_BUFFER + (size_t)(n - 1) * thread_stack() +
                     OPENBLAS_CALL_EXTRA,
                 what);
}

/* Whether mmap can fail for want of memory: an address-space limit, or strict
 * overcommit (read once). */
static int memory_is_limited(void)
{
    static int strict = -1;
    if (__atomic_load_n(&strict, __ATOMIC_RELAXED) < 0) {
        int mode = 0;
        FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
        if (f) {
            if (fscanf(f, "%d", &mode) != 1)
                mode = 0;
            fclose(f);
        }
        __atomic_store_n(&strict, mode == 2, __ATOMIC_RELAXED);
    }
    struct rlimit r;
    return strict || (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY);
}

pdt_status pdt_cpu_blas_probe_call(int level, int new_buffer)
{
    if (!new_buffer)
        return memory_is_limited() ? probe(OPENBLAS_CALL_EXTRA, "a product") : PDT_OK;

    char what[96];
    snprintf(what, sizeof what, "a product while %d other%s run%s", level - 1,
             level == 2 ? "" : "s", level == 2 ? "s" : "");
    return probe(OPENBLAS_BUFFER + OPENBLAS_CALL_EXTRA, level == 1 ? "its first product" : what);
}

pdt_status pdt_cpu_blas_probe_threads(int more)
{
    char what[96];
    snprintf(what, sizeof what, "%d more thread%s in its pool", more, more == 1 ? "" : "s");
    return probe((size_t)more * (OPENBLAS_BUFFER + thread_stack()), what);
}
