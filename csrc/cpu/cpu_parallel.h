/* cpu_parallel.h - a small persistent thread pool for the CPU backend's loops.
 *
 * Large elementwise ops and reductions split their index range across the cores;
 * small ones (fewer than `grain` elements per thread) run on the calling thread,
 * where a hand-off would cost more than it saves.  The pool starts on first use
 * and is rebuilt in a forked child.
 */
#ifndef PDT_CPU_PARALLEL_H
#define PDT_CPU_PARALLEL_H

#include <stdint.h>

/* fn(begin, end, ctx) over consecutive slices of [0, n) */
typedef void (*pdt_range_fn)(int64_t begin, int64_t end, void *ctx);

/* Runs fn over [0, n): on the calling thread when n < 2 * grain, else split into
 * at most pdt_cpu_threads() slices of >= grain elements run in parallel.  Returns
 * when every slice is done.  Safe to call from several threads (calls made while
 * the pool is busy run on their own thread). */
void pdt_cpu_parallel_for(int64_t n, int64_t grain, pdt_range_fn fn, void *ctx);

/* pdt_cpu_parallel_for with the smaller grain hot_grain when the op comes in a loop:
 * no worker of the pool asleep (each working, or spinning after its last slice), or
 * the previous such call within the spin budget.  A slice then starts within about a
 * microsecond, where waking a sleeping worker costs tens; never while the pool does
 * not spin (Note [the hot grain] in cpu_parallel.c).  For elementwise ops whose
 * mid-sized calls would otherwise run on one thread. */
void pdt_cpu_parallel_for_hot(int64_t n, int64_t grain, int64_t hot_grain, pdt_range_fn fn,
                              void *ctx);

/* The hot grain of the cheap elementwise ops (an add, a compare; cpu_ew_walk.c's
 * pdt_cpu_ew_run): their output splits at this many elements a thread, and a reduction that
 * reads such an output in halves (Note [a chunk in halves] in cpu_reduce.c) starts at
 * the same count, so that each thread reads what it wrote. */
#define PDT_CPU_GRAIN_HOT ((int64_t)1 << 14)

/* Runs fn(i, i + 1, ctx) for every part i of [0, n) at the same time, each on a thread
 * of its own, for parts that wait on each other (Note [parts that wait on each other]
 * in cpu_parallel.c).  Waits for the pool when another caller has it.  Returns 0
 * when every part ran, -1 when a thread could not be started (then none ran). */
int pdt_cpu_parallel_together(int64_t n, pdt_range_fn fn, void *ctx);

/* The cores this process may run on (its affinity mask). */
int pdt_cpu_cores(void);

/* Threads the pool uses: the cores this process may run on, or OMP_NUM_THREADS when
 * set (as PyTorch reads it), at most 16; lowered by pdt_cpu_set_threads. */
int pdt_cpu_threads(void);
/* Uses n threads (n >= 1), starting workers when the pool has fewer (at most 16);
 * returns the number now used.  Waits for a parallel loop in flight to finish. */
int pdt_cpu_set_threads(int n);

/* set_flush_denormal: FTZ and DAZ on (on != 0) or off in the calling thread, and in the
 * pool's threads before their next part (Note [flush denormal]); returns 1, or 0 (nothing
 * changed) where the processor has no such mode here (other than x86). */
int pdt_cpu_set_flush_denormal(int on);

#endif /* PDT_CPU_PARALLEL_H */
