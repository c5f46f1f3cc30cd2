/* cpu_parallel.c - the persistent thread pool behind pdt_cpu_parallel_for. */
#define _GNU_SOURCE
#include "cpu_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#define PDT_POOL_MAX 16

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready, work_done;
    pthread_mutex_t busy;     /* held by the one caller using the pool */
    int started, nthreads;    /* nthreads: the workers + the caller */
    int limit;                /* set_num_threads: at most this many slices (0: nthreads) */
    unsigned long generation; /* bumped for each job */
    int pending;              /* slices not finished */
    pdt_range_fn fn;
    void *ctx;
    int64_t n, slices;
} pool;

static pool P = {PTHREAD_MUTEX_INITIALIZER,
                 PTHREAD_COND_INITIALIZER,
                 PTHREAD_COND_INITIALIZER,
                 PTHREAD_MUTEX_INITIALIZER,
                 0,
                 0,
                 0,
                 0,
                 0,
                 NULL,
                 NULL,
                 0,
                 0};

static void run_slice(int64_t s)
{
    int64_t begin = P.n * s / P.slices, end = P.n * (s + 1) / P.slices;
    P.fn(begin, end, P.ctx);
}

static void *worker(void *arg)
{
    int64_t id = (int64_t)(intptr_t)arg; /* 1 .. nthreads-1; the caller is slice 0 */
    unsigned long seen = 0;
    pthread_mutex_lock(&P.lock);
    for (;;) {
        while (P.generation == seen)
            pthread_cond_wait(&P.work_ready, &P.lock);
        seen = P.generation;
        if (id < P.slices) {
            pthread_mutex_unlock(&P.lock);
            run_slice(id);
            pthread_mutex_lock(&P.lock);
            if (--P.pending == 0)
                pthread_cond_signal(&P.work_done);
        }
    }
    return NULL;
}

static int count_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void after_fork_in_child(void)
{
    /* The workers did not survive the fork: start again on next use. */
    pthread_mutex_init(&P.lock, NULL);
    pthread_mutex_init(&P.busy, NULL);
    pthread_cond_init(&P.work_ready, NULL);
    pthread_cond_init(&P.work_done, NULL);
    P.started = 0;
    P.generation = 0;
}

/* OMP_NUM_THREADS, as PyTorch reads it: a positive whole number, else 0. */
static int omp_num_threads(void)
{
    const char *v = getenv("OMP_NUM_THREADS");
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return end && *end == '\0' && n > 0 ? (n > PDT_POOL_MAX ? PDT_POOL_MAX : (int)n) : 0;
}

static void start_pool(void)
{
    int omp = omp_num_threads();
    int cores = omp ? omp : count_cores();
    P.nthreads = cores < 1 ? 1 : cores > PDT_POOL_MAX ? PDT_POOL_MAX : cores;
    for (int i = 1; i < P.nthreads; i++) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, worker, (void *)(intptr_t)i) != 0) {
            P.nthreads = i; /* run with the workers we got */
            pthread_attr_destroy(&attr);
            break;
        }
        pthread_attr_destroy(&attr);
    }
    P.started = 1;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

int pdt_cpu_threads(void)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&P.lock);
    if (!P.started)
        start_pool();
    int n = P.limit > 0 && P.limit < P.nthreads ? P.limit : P.nthreads;
    pthread_mutex_unlock(&P.lock);
    return n;
}

int pdt_cpu_set_threads(int n)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&P.busy); /* no job in flight while the limit changes */
    pthread_mutex_lock(&P.lock);
    if (!P.started)
        start_pool();
    P.limit = n < 1 ? 1 : n;
    pthread_mutex_unlock(&P.lock);
    pthread_mutex_unlock(&P.busy);
    return pdt_cpu_threads();
}

void pdt_cpu_parallel_for(int64_t n, int64_t grain, pdt_range_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int threads = n >= 2 * grain ? pdt_cpu_threads() : 1;
    int64_t slices = n / grain < threads ? n / grain : threads;
    if (slices <= 1 || pthread_mutex_trylock(&P.busy) != 0) {
        fn(0, n, ctx); /* small, or the pool is busy with another caller */
        return;
    }
    pthread_mutex_lock(&P.lock);
    P.fn = fn;
    P.ctx = ctx;
    P.n = n;
    P.slices = slices;
    P.pending = (int)slices - 1;
    P.generation++;
    pthread_cond_broadcast(&P.work_ready);
    pthread_mutex_unlock(&P.lock);
    run_slice(0);
    pthread_mutex_lock(&P.lock);
    while (P.pending > 0)
        pthread_cond_wait(&P.work_done, &P.lock);
    pthread_mutex_unlock(&P.lock);
    pthread_mutex_unlock(&P.busy);
}
