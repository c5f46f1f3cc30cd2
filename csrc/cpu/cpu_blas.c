/* cpu_blas.c - loads OpenBLAS on first use (see cpu_blas.h). */
#define _GNU_SOURCE
#include "cpu_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"

#ifndef PDT_BLAS_LIBNAME
#define PDT_BLAS_LIBNAME "libopenblas.so.0"
#endif
#ifndef PDT_BLAS_INSTALL /* setup.py says which provider the build was made for */
#define PDT_BLAS_INSTALL "pip install scipy-openblas32"
#endif

static pdt_blas_table blas;
static const pdt_library_symbol blas_symbols[] = {
    /* POSIX dlsym returns void*; storing it in a function pointer is how the API is
     * meant to be used. */
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(sgemm)), (void **)&blas.sgemm},
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(dgemm)), (void **)&blas.dgemm},
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(sgemv)), (void **)&blas.sgemv},
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(dgemv)), (void **)&blas.dgemv},
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(sdot)), (void **)&blas.sdot},
    {PDT_BLAS_STR(PDT_BLAS_SYMBOL(ddot)), (void **)&blas.ddot},
    {PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_config)), (void **)&blas.get_config},
    {PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_num_threads)), (void **)&blas.get_num_threads},
    {PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(set_num_threads)), (void **)&blas.set_num_threads},
};

/* Note [OpenBLAS on our pool]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * OpenBLAS's own threads spin for 2^28 cycles (about 0.1 s) after each parallel
 * GEMM before they sleep (THREAD_TIMEOUT, driver/others/blas_server.c), and our
 * pool's workers spin too (Note [pool hand-off]).  With both pools on two cores, the
 * ops between GEMMs (a training step's bias adds, ReLU and update) fought OpenBLAS's
 * spinning threads for the cores, and the next GEMM fought ours: the SGD update of an
 * MLP 784-256-10 (batch 64) took 343 us inside a training step, where the update of
 * its largest parameter (200,000 floats) takes 35 us alone.  So, as
 * PyTorch shares one OpenMP pool with its BLAS, OpenBLAS runs its parallel work on
 * our pool: OpenBLAS 0.3.27 and later call a function set with
 * openblas_set_threads_callback_function (cblas.h) with the parts of each parallel
 * section, dojob(i, jobs + i * size, data) for i < numjobs, instead of waking their
 * own threads, which then sleep for good.  The parts wait on each other, so they run
 * with pdt_cpu_parallel_together.  Part i uses OpenBLAS's per-thread scratch block
 * i (exec_threads), so one group of parts runs at a time (`parts_lock`), and
 * OpenBLAS's thread count follows the pool's (pdt_cpu_blas_set_threads), capped at
 * the cores, as OpenBLAS caps its own: parts that spin on each other with more of
 * them than cores wait whole scheduler ticks for the ones not running.  An
 * OpenBLAS without the function (a system library older than 0.3.27) keeps its own
 * threads. */
typedef void (*ob_dojob)(int part, void *job, int data);
typedef void (*ob_threads_fn)(int sync, ob_dojob dojob, int numjobs, size_t job_size, void *jobs,
                              int data);
static void (*set_threads_callback)(ob_threads_fn);
static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct ob_parts {
    ob_dojob dojob;
    char *jobs;
    size_t job_size;
    int data;
} ob_parts;

static void run_parts(int64_t begin, int64_t end, void *ctx)
{
    const ob_parts *p = ctx;
    for (int64_t i = begin; i < end; i++)
        p->dojob((int)i, p->jobs + (size_t)i * p->job_size, p->data);
}

static void run_on_pool(int sync, ob_dojob dojob, int numjobs, size_t job_size, void *jobs,
                        int data)
{
    (void)sync; /* exec_blas waits for the parts; so does this */
    ob_parts p = {dojob, jobs, job_size, data};
    pthread_mutex_lock(&parts_lock);
    if (pdt_cpu_parallel_together(numjobs, run_parts, &p) != 0) {
        /* No way back into OpenBLAS with an error, and the parts cannot run one after
         * another: OpenBLAS itself ends the process when it cannot start a thread. */
        fprintf(stderr,
                "pydevtensor: could not start the %d threads an OpenBLAS product needs"
                " at once\n",
                numjobs);
        abort();
    }
    pthread_mutex_unlock(&parts_lock);
}

/* OpenBLAS's thread count beside a pool of `pool` threads (Note [OpenBLAS on our
 * pool]): the same, at most one a core. */
static int threads_for_pool(int pool)
{
    int cores = pdt_cpu_cores();
    return pool < cores ? pool : cores;
}

/* Accepts every candidate; notes whether it can run its parts on our pool, and
 * which LAPACK routines it has (cpu_lapack.c). */
static int find_threads_callback(void *handle, char *why, size_t n)
{
    (void)why, (void)n;
    pdt_cpu_lapack_resolve(handle);
    /* dlsym's void* to a function pointer: how the POSIX API is meant to be used */
    *(void **)&set_threads_callback = dlsym(handle, PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(
                                                        set_threads_callback_function)));
    return 0;
}

/* Note [OpenBLAS's idle threads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Loading OpenBLAS starts its own threads (its thread count less one: one a core but
 * the caller's, unless the environment says otherwise), and each spins for 2^28
 * cycles of the time-stamp counter (THREAD_TIMEOUT) before it first sleeps,
 * although on our pool (Note [OpenBLAS on our pool]) it never gets work.
 * On the 2-vCPU machine that spin took 0.19 to 0.45 s of a core, over 0.5 to 1 s of
 * wall time, right after the first matmul, and every GEMM part that shared a core
 * with it waited for it and made the others wait: sgemm 1024 on two threads ran at
 * 70-115 GFLOP/s for the first 20 to 50 products of a process, 190-215 after
 * (`python -m benchmarks` timed sgemm 2048 at 127 GFLOP/s against NumPy's 264).  So
 * the library is loaded with OPENBLAS_THREAD_TIMEOUT=4, the least it takes (2^4
 * cycles), unless the process set it: the threads sleep at once.  An OpenBLAS too
 * old to run on our pool runs its parts on those threads, which then sleep between
 * products instead of spinning 0.1 s after each; a product wakes them (tens of
 * microseconds: not measured here, where the OpenBLAS is new enough), and they no
 * longer hold the cores the ops between products need.  The load runs under the
 * GIL where the bindings can arrange it (pdt_library.h's load_env). */
pdt_library pdt_openblas_library = PDT_LIBRARY_ENV("OpenBLAS", PDT_BLAS_LIBNAME, PDT_BLAS_INSTALL,
                                                   blas_symbols,
                                                   sizeof blas_symbols / sizeof blas_symbols[0],
                                                   find_threads_callback, NULL, 0,
                                                   "OPENBLAS_THREAD_TIMEOUT=4");
static pthread_once_t guards_once = PTHREAD_ONCE_INIT;

/* Note [OpenBLAS and fork]
 * OpenBLAS registers a fork handler (blas_thread_shutdown_) that stops its thread
 * pool before fork(); if another thread is inside a GEMM meanwhile, its workers miss
 * the shutdown and fork() waits on them forever (seen with 4 threads and two Python
 * threads multiplying while a third forks).  Exit has the same race with daemon
 * threads still multiplying when OpenBLAS's destructor runs.  So every call into
 * OpenBLAS goes through pdt_cpu_blas_enter/leave, and our own handlers, registered
 * after dlopen() so that they run before OpenBLAS's (prepare handlers and atexit
 * functions run in the reverse order of registration, and library destructors after
 * every atexit function), wait until no call is in flight and hold new ones back:
 * until fork() has returned in the parent, for good at exit. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t guard_cond = PTHREAD_COND_INITIALIZER;
static int in_flight;            /* calls into OpenBLAS now */
static int held_back;            /* a fork is being prepared (1) or the process is exiting (2) */
static __thread int this_thread; /* calls of this thread in flight (0 or 1) */
static int buffers_proven;       /* Note [OpenBLAS scratch memory] */
static int small_probed;         /* levels probed by products below PDT_BLAS_BUFFERED_WORK */

pdt_status pdt_cpu_blas_enter(pdt_blas_call *call, int64_t work)
{
    pdt_status st = PDT_OK;
    pthread_mutex_lock(&guard_lock);
    while (held_back)
        pthread_cond_wait(&guard_cond, &guard_lock);
    call->level = ++in_flight;
    call->buffered = work >= PDT_BLAS_BUFFERED_WORK;
    if (call->level > buffers_proven && (call->buffered || call->level > small_probed)) {
        st = pdt_cpu_blas_probe_call(call->level, 1);
        if (st == PDT_OK && !call->buffered)
            small_probed = call->level;
    } else if (call->buffered) {
        st = pdt_cpu_blas_probe_call(call->level, 0);
    }
    if (st != PDT_OK) {
        if (--in_flight == 0)
            pthread_cond_broadcast(&guard_cond);
    } else {
        this_thread++;
    }
    pthread_mutex_unlock(&guard_lock);
    return st;
}

void pdt_cpu_blas_leave(const pdt_blas_call *call)
{
    pthread_mutex_lock(&guard_lock);
    this_thread--;
    if (call->buffered && call->level > buffers_proven)
        buffers_proven = call->level;
    if (--in_flight == 0)
        pthread_cond_broadcast(&guard_cond);
    pthread_mutex_unlock(&guard_lock);
}

/* Waits until no other thread is in a call.  At exit the wait is bounded: exit()
 * may come from inside a call (OpenBLAS exits when it cannot get memory that the
 * probe did not foresee, from the caller's thread or from one of its workers,
 * while the caller waits for it), and a process that is ending must not hang. */
static void quiesce(int why)
{
    pthread_mutex_lock(&guard_lock);
    if (held_back < why)
        held_back = why;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    while (in_flight > this_thread) {
        if (why == 2) {
            if (pthread_cond_timedwait(&guard_cond, &guard_lock, &until) != 0)
                break;
        } else {
            pthread_cond_wait(&guard_cond, &guard_lock);
        }
    }
    pthread_mutex_unlock(&guard_lock);
}

static void before_fork(void) { quiesce(1); }

static void after_fork_in_parent(void)
{
    pthread_mutex_lock(&guard_lock);
    if (held_back == 1)
        held_back = 0;
    pthread_cond_broadcast(&guard_cond);
    pthread_mutex_unlock(&guard_lock);
}

static void after_fork_in_child(void)
{
    /* only the forking thread exists here, and it was not in a call */
    pthread_mutex_init(&guard_lock, NULL);
    pthread_cond_init(&guard_cond, NULL);
    in_flight = 0;
    held_back = 0;
}

static void at_exit(void) { quiesce(2); }

static int threads_requested; /* set_num_threads was called before OpenBLAS was loaded */

/* After dlopen(), so that these run before OpenBLAS's own (Note [OpenBLAS and fork]);
 * and before any call, the pool (Note [OpenBLAS on our pool]). */
static void register_guards(void)
{
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    atexit(at_exit);
    /* On our pool, OpenBLAS follows it; on its own threads, it follows set_num_threads
     * when that was called before the library was loaded (pdt_cpu_blas_set_threads). */
    if (set_threads_callback || __atomic_load_n(&threads_requested, __ATOMIC_SEQ_CST)) {
        if (set_threads_callback)
            set_threads_callback(run_on_pool);
        int want = threads_for_pool(pdt_cpu_threads()), now = blas.get_num_threads();
        /* Fewer than that is the count OpenBLAS took from the environment
         * (OPENBLAS_NUM_THREADS=1: one core a product, as without us): the user's
         * cap, until set_num_threads says otherwise. */
        if (!__atomic_load_n(&threads_requested, __ATOMIC_SEQ_CST) && now < want)
            want = now;
        /* More threads need their memory (Note [OpenBLAS scratch memory]); without it
         * OpenBLAS keeps the count it has. */
        if (now > want || (now < want && pdt_cpu_blas_probe_threads(want - now) == PDT_OK))
            blas.set_num_threads(want);
    }
}

pdt_status pdt_cpu_blas(const pdt_blas_table **out)
{
    /* Loading maps OpenBLAS's buffers, and it exits when it cannot (Note [OpenBLAS
     * scratch memory]): probe first, until it is loaded. */
    pdt_status st = PDT_OK;
    if (__atomic_load_n(&pdt_openblas_library.state, __ATOMIC_ACQUIRE) == 0)
        st = pdt_cpu_blas_probe_load();
    if (st == PDT_OK)
        st = pdt_library_need(&pdt_openblas_library);
    if (st != PDT_OK)
        return st;
    pthread_once(&guards_once, register_guards);
    *out = &blas;
    return PDT_OK;
}

void pdt_cpu_blas_describe(char *buf, size_t n)
{
    const pdt_blas_table *b;
    if (pdt_cpu_blas(&b) != PDT_OK)
        snprintf(buf, n, "unavailable: %s", pdt_last_error());
    else
        snprintf(buf, n, "%s, %d threads, %s", b->get_config(), b->get_num_threads(),
                 set_threads_callback ? "pydevtensor's pool" : "OpenBLAS's own threads");
}

int pdt_cpu_blas_set_threads(int pool)
{
    int n = threads_for_pool(pool);
    /* Not loaded yet: loading takes the pool's count then (register_guards), and
     * loading now would start OpenBLAS's threads, which spin ~0.1 s after they start
     * (THREAD_TIMEOUT) while the ops after set_num_threads run.  (A load that failed
     * says why below.) */
    __atomic_store_n(&threads_requested, 1, __ATOMIC_SEQ_CST); /* before the check */
    if (__atomic_load_n(&pdt_openblas_library.state, __ATOMIC_SEQ_CST) == 0)
        return n;
    const pdt_blas_table *b;
    if (pdt_cpu_blas(&b) != PDT_OK)
        return -1;
    pdt_blas_call call;
    /* not while a fork or exit quiesces OpenBLAS; a bigger pool maps a buffer and a
     * stack per new thread (Note [OpenBLAS scratch memory]) */
    if (pdt_cpu_blas_enter(&call, 0) != PDT_OK)
        return -2;
    int now = b->get_num_threads();
    if (n == now) { /* OpenBLAS's call would wake its idle threads to spin again */
        pdt_cpu_blas_leave(&call);
        return now;
    }
    if (n > now && pdt_cpu_blas_probe_threads(n - now) != PDT_OK) {
        pdt_cpu_blas_leave(&call);
        return -2;
    }
    pthread_mutex_lock(&parts_lock); /* no parts running on the scratch blocks it frees */
    b->set_num_threads(n);
    pthread_mutex_unlock(&parts_lock);
    now = b->get_num_threads();
    pdt_cpu_blas_leave(&call);
    return now;
}
