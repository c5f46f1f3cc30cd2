/* cpu_parallel.c - the persistent thread pool behind pdt_cpu_parallel_for.
 *
 * Note [pool hand-off]
 * ~~~~~~~~~~~~~~~~~~~~
 * Waking a thread asleep on a condition variable costs a futex wake, a trip through
 * the scheduler and, on a virtual machine, often an inter-processor interrupt: about
 * 55 us measured on the 2-core CI machine, more than the whole of an add of 70,000
 * floats.  So neither side sleeps at once:
 *
 *   - a worker that finished a slice spins (with the CPU's pause hint) watching the
 *     job word for up to PDT_POOL_SPIN_NS before it sleeps on `work_ready`; a loop of
 *     ops from Python issues the next job well within that, and the worker starts it
 *     in about a microsecond;
 *   - the caller, once its own slice is done, spins on `pending` for up to the same
 *     budget before it sleeps on `work_done`.
 *
 * The budget is bounded (1 ms), so an idle pool costs nothing after it; OMP_WAIT_POLICY=
 * passive sets it to 0 (sleep at once), as it does for OpenMP runtimes, and
 * PYDEVTENSOR_POOL_SPIN_US sets it in microseconds.  It was 100 us until OpenBLAS ran
 * on the pool (Note [OpenBLAS on our pool] in cpu_blas.c): the GEMMs of a training
 * step come 100 to 300 us apart, and a worker asleep between them is woken for every
 * one (MLP 784-256-10 at batch 64, 8 steps after a pause of 0.2 s: 678 to 710 us a
 * step with 100 us, 617 to 622 us with 1 ms, 615 to 622 us with 3 ms; NumPy 575 to
 * 585 in the same runs).  GNU OpenMP's default spin (300,000 pauses) is a few ms on
 * current cores, Intel's 200 ms, OpenBLAS's own 2^28 cycles.
 *
 * The spin yields the core every 64 pauses (a few microseconds).  Without that, a
 * machine with more runnable threads than cores was 7 times slower than sleeping at
 * once: when the caller and a worker share one core, each spins out its whole
 * budget while the other, the one it waits for, cannot run (measured with an add
 * of 70,000 floats under a load of 5 on 2 cores: 490 us an op spinning, 65 us
 * sleeping at once, 65 us spinning with sched_yield).  sched_yield on a core with
 * nothing else to run returns at once.
 *
 * Sleeping without losing a wake-up is the Dekker pattern with sequentially
 * consistent atomics: a worker going to sleep first counts itself in `sleepers`, then
 * rereads the job word under the lock; the caller first publishes the job word, then
 * reads `sleepers` and, when any sleep, broadcasts under the lock.  One of the two
 * sees the other's write.  The caller's sleep on `work_done` pairs `caller_waits` with
 * `pending` the same way.
 *
 * The job word packs the job's generation (high bits), whether its slices are a
 * group's parts (JOB_TOGETHER) and its slice count (low 16 bits), so a worker reads
 * them in one atomic load: a worker with no slice in this job never reads a field
 * that the next job may be writing.  fn, ctx and n are read only by workers that
 * have a slice (their own part, or one claimed: Note [claimed slices]), and the
 * caller waits for all of them before it returns (and before the next job can
 * rewrite the fields).
 *
 * Note [spinning under load]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Spinning pays only while the core has nothing else to run.  When another process
 * wants it, a spinning worker that yields hands it over for the other's whole time
 * slice (milliseconds), and cannot start the next job before the slice ends; a
 * sleeping one is woken with the scheduler's preference for tasks that slept, and
 * starts at once.  MLP steps (batch 64) with one busy process beside them on the
 * 2-vCPU machine: 7.5 to 8.3 ms a step spinning 100 us to 1 ms, 1.1 to 2.4 ms
 * sleeping at once, 1.24 ms for the build with OpenBLAS's own threads; a GEMM's
 * worker started its part 3.5 ms late in about one GEMM of ten.  So a sched_yield
 * that let another thread run for more than PDT_POOL_HOG_NS (0.5 ms) stops the
 * pool's spinning for a while (hold_spinning): its threads sleep at once.  The pause
 * is 10 ms after a quiet spell and doubles, up to 100 ms, while such yields keep
 * coming, so that steady load costs a time slice per 100 ms and a stray event on an
 * idle machine 10 ms of sleeping (a fixed 100 ms slowed whole bursts of steps to
 * the sleeping pool's 800 us in about one burst of four here).  "Let another thread
 * run" is the thread's count of involuntary context switches moving (a yield on a
 * core with nothing else to run switches nothing); the time alone is not enough on
 * a virtual machine, where the host takes the core away too (steal time), nor the
 * switch alone, since kernel threads run for microseconds now and then (either test
 * alone stopped the spinning for a good part of an idle run here).  A worker that
 * shares its core with the caller (the latest job's caller ran there) goes to sleep
 * too, but without the pause: the thread that ran was most likely the caller, which
 * is no load (with it counted, 8-step bursts after a pause ran without spinning in
 * most runs, 1.5 times NumPy's time a step).
 * With all this, in alternation with NumPy: bursts of 8 idle steps after a pause,
 * median 582 to 680 us a step (NumPy 537 to 630); beside the busy process, 1.1 to
 * 5.5 ms a step in a tight loop, mostly 1.1 to 3.3.  One pause comes at start-up:
 * OpenBLAS's own threads spin for 0.1 s after it is loaded.
 *
 * Note [parts that wait on each other]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A parallel loop may run its slices one after another (the pool is busy, or the
 * loop is small), since no slice waits for another.  OpenBLAS's threaded GEMM is not
 * like that: each part packs a panel of B that the others read, and spins until the
 * others have packed theirs (driver/level3/level3_thread.c), so its parts must all
 * run at once.  pdt_cpu_parallel_together gives each part a thread: the caller and
 * the pool's workers (waiting, not skipping, when another caller has the pool), and
 * threads started for the group for parts the pool has no thread for (more parts
 * than threads, or a call made from inside a job, which must not wait for the pool).
 * Those threads wait at a gate until all of them have started, so that a failure to
 * start one runs no part at all.
 */
#define _GNU_SOURCE
#include "cpu_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define PDT_MXCSR_FTZ_DAZ 0x8040u /* flush-to-zero (bit 15), denormals-are-zero (bit 6) */
#endif

#define PDT_POOL_MAX 16
#define PDT_POOL_SPIN_NS 1000000               /* Note [pool hand-off] */
#define PDT_POOL_CONTENDED_MIN_NS 10000000L    /* 10 ms */
#define PDT_POOL_CONTENDED_MAX_NS 100000000L   /* 100 ms */
#define PDT_POOL_CONTENDED_QUIET_NS 200000000L /* 200 ms */
#define PDT_POOL_HOG_NS 500000L                /* 0.5 ms */
#define JOB_SLICE_BITS 16
#define JOB_TOGETHER (1UL << JOB_SLICE_BITS) /* the slices wait on each other */
#define JOB_GEN_SHIFT (JOB_SLICE_BITS + 1)
#define JOB_SLICES(w) ((int64_t)((w) & ((1UL << JOB_SLICE_BITS) - 1)))

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready, work_done;
    pthread_mutex_t busy;       /* held by the one caller using the pool */
    int started, nthreads;      /* nthreads: the workers + the caller */
    int limit;                  /* set_num_threads: at most this many slices (0: nthreads) */
    long spin_ns;               /* how long either side spins before it sleeps */
    atomic_ulong job;           /* generation << JOB_GEN_SHIFT | JOB_TOGETHER? | slices */
    atomic_ulong claim;         /* generation << JOB_GEN_SHIFT | the next slice to claim */
    atomic_int pending;         /* slices of the job not finished, the caller's excepted */
    atomic_int unstarted;       /* slices of the job no worker has begun (a group's parts) */
    int caller_cpu;             /* where the caller of a group runs, or -1 */
    atomic_int last_caller_cpu; /* where the caller of the latest job ran */
    atomic_int sleepers;        /* workers asleep, or about to be, on work_ready */
    atomic_int caller_waits;
    atomic_long contended_until; /* no spinning before this time (Note [spinning under load]) */
    atomic_long contended_hold;  /* the length of the latest such pause */
    pdt_range_fn fn;
    void *ctx;
    int64_t n;
    unsigned denormal_bits; /* the caller's FTZ/DAZ bits (Note [flush denormal]) */
} pool;

/* Set while this thread runs a slice of a job or holds `busy`: a parallel loop or a
 * group started from there must not wait for the pool (Note [parts that wait on
 * each other]). */
static __thread int in_pool;

static pool P = {.lock = PTHREAD_MUTEX_INITIALIZER,
                 .work_ready = PTHREAD_COND_INITIALIZER,
                 .work_done = PTHREAD_COND_INITIALIZER,
                 .busy = PTHREAD_MUTEX_INITIALIZER};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Times this thread gave up its core while runnable: a sched_yield that let another
 * thread run counts one (getrusage's ru_nivcsw). */
static long involuntary_switches(void)
{
    struct rusage u;
    return getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_nivcsw : -1;
}

/* Stops the pool's spinning from `now` on (Note [spinning under load]): for 10 ms
 * after a quiet spell, twice the last pause (at most 100 ms) when this comes within
 * 200 ms of the last pause's end. */
static void hold_spinning(long now)
{
    long until = atomic_load_explicit(&P.contended_until, memory_order_relaxed);
    long hold = atomic_load_explicit(&P.contended_hold, memory_order_relaxed);
    hold = now - until < PDT_POOL_CONTENDED_QUIET_NS ? 2 * hold : 0;
    hold = hold < PDT_POOL_CONTENDED_MIN_NS   ? PDT_POOL_CONTENDED_MIN_NS
           : hold > PDT_POOL_CONTENDED_MAX_NS ? PDT_POOL_CONTENDED_MAX_NS
                                              : hold;
    atomic_store_explicit(&P.contended_hold, hold, memory_order_relaxed);
    atomic_store_explicit(&P.contended_until, now + hold, memory_order_relaxed);
}

/* Spins until done(arg) or the spin budget is spent; returns done(arg). */
static int spin_until(int (*done)(const void *), const void *arg)
{
    if (done(arg))
        return 1;
    if (P.spin_ns <= 0)
        return 0;
    long start = now_ns();
    if (start < atomic_load_explicit(&P.contended_until, memory_order_relaxed))
        return 0; /* Note [spinning under load] */
    long deadline = start + P.spin_ns;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            cpu_relax();
            if (done(arg))
                return 1;
        }
        long t = now_ns();
        if (t >= deadline)
            return 0;
        long switches = involuntary_switches();
        sched_yield(); /* a thread that shares this core runs (Note [pool hand-off]) */
        long after = now_ns();
        if (after - t > PDT_POOL_HOG_NS && involuntary_switches() != switches) {
            /* one did, for long: the core is wanted (Note [spinning under load]);
             * when it is the caller's core, it was the caller, which is no load */
            if (sched_getcpu() != atomic_load_explicit(&P.last_caller_cpu, memory_order_relaxed))
                hold_spinning(after);
            return 0;
        }
    }
}

/* Note [flush denormal]: set_flush_denormal(True) sets FTZ and DAZ in the calling thread's
 * MXCSR, as PyTorch's does, and nowhere else.  A job carries its caller's two bits
 * (P.denormal_bits, read when it is published) and each pool worker (and each extra thread
 * of a group) takes them before it runs a part, so an op's result does not depend on how
 * it was split, and a thread that did not set the mode is not flushed by another's
 * setting.  ~0u: this thread has not set its bits here yet. */
static __thread unsigned denormal_applied = ~0u;

static unsigned caller_denormal_bits(void)
{
#ifdef PDT_MXCSR_FTZ_DAZ
    return _mm_getcsr() & PDT_MXCSR_FTZ_DAZ;
#else
    return 0;
#endif
}

static inline void follow_denormal_bits(unsigned bits)
{
#ifdef PDT_MXCSR_FTZ_DAZ
    if (bits != denormal_applied) {
        _mm_setcsr((_mm_getcsr() & ~PDT_MXCSR_FTZ_DAZ) | bits);
        denormal_applied = bits;
    }
#else
    (void)bits;
#endif
}

int pdt_cpu_set_flush_denormal(int on)
{
#ifdef PDT_MXCSR_FTZ_DAZ
    unsigned csr = _mm_getcsr();
    _mm_setcsr(on ? csr | PDT_MXCSR_FTZ_DAZ : csr & ~PDT_MXCSR_FTZ_DAZ);
    return 1;
#else
    (void)on;
    return 0;
#endif
}

static void run_slice(int64_t s, int64_t slices)
{
    int64_t begin = P.n * s / slices, end = P.n * (s + 1) / slices;
    P.fn(begin, end, P.ctx);
}

static int job_changed(const void *seen)
{
    return atomic_load(&P.job) != *(const unsigned long *)seen;
}

/* Waits for a job word other than `seen` and returns it. */
static unsigned long next_job(unsigned long seen)
{
    if (!spin_until(job_changed, &seen)) {
        pthread_mutex_lock(&P.lock);
        atomic_fetch_add(&P.sleepers, 1);
        while (atomic_load(&P.job) == seen)
            pthread_cond_wait(&P.work_ready, &P.lock);
        atomic_fetch_sub(&P.sleepers, 1);
        pthread_mutex_unlock(&P.lock);
    }
    return atomic_load(&P.job);
}

/* Note [parts on one core]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * The parts of a group spin on each other without yielding (OpenBLAS's YIELDING is
 * a run of nops on x86-64, common.h).  A worker woken onto the core its caller runs
 * on then waits for the caller's part, and the caller for the worker's, until the
 * scheduler's next tick moves one of them: GEMMs of 150 us took 4, 8 or 16 ms
 * (whole ticks of a 250 Hz kernel), in most bursts of a training step after a
 * pause, on the 2-vCPU CI machine, where the kernel placed the woken worker on the
 * caller's core about once a burst.  So a worker that starts a part on its caller's
 * core moves itself off it for the part (sched_setaffinity without that core, which
 * migrates at once), and returns to the cores it had after.  Returns 1 when it moved,
 * with the cores it had in *had. */
static int away_from(int cpu, cpu_set_t *had)
{
    if (cpu < 0 || sched_getcpu() != cpu || sched_getaffinity(0, sizeof *had, had) != 0)
        return 0;
    cpu_set_t others = *had;
    CPU_CLR(cpu, &others);
    return CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0;
}

typedef struct worker_start {
    int64_t id;         /* 1 .. nthreads-1; the caller is slice 0 */
    unsigned long seen; /* the job word when it was started, with no job in flight */
} worker_start;

/* Note [claimed slices]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The slices of a parallel loop are claimed, not assigned: whoever is free takes the
 * next one, the caller too once its own slice 0 is done.  A worker that has not
 * started by then (asleep, or waiting for a core that another process holds) then
 * costs nothing: the caller runs its slice as well and returns, where it used to wait
 * for the worker to get a core (a scheduler tick or more under load; not timed apart
 * from Note [spinning under load], which came with it).  The claim word carries the
 * job's generation, so a worker late for a job finished meanwhile claims nothing
 * from the next one; a successful claim holds `pending`
 * above 0, so the job's fields stay as they are while the slice runs.  A group's parts
 * (JOB_TOGETHER) are not claimed: each must run on its own thread. */
static int64_t claim_slice(unsigned long generation, int64_t slices)
{
    unsigned long c = atomic_load(&P.claim);
    for (;;) {
        if (c >> JOB_GEN_SHIFT != generation)
            return -1;
        int64_t s = (int64_t)(c & ((1UL << JOB_GEN_SHIFT) - 1));
        if (s >= slices)
            return -1;
        if (atomic_compare_exchange_weak(&P.claim, &c, c + 1))
            return s;
    }
}

/* A worker's slice is done: the caller may be asleep waiting for the last one. */
static void finish_slice(void)
{
    if (atomic_fetch_sub(&P.pending, 1) == 1 && atomic_load(&P.caller_waits)) {
        pthread_mutex_lock(&P.lock);
        pthread_cond_signal(&P.work_done);
        pthread_mutex_unlock(&P.lock);
    }
}

static void *worker(void *arg)
{
    worker_start start = *(worker_start *)arg;
    free(arg);
    int64_t id = start.id;
    unsigned long seen = start.seen;
    for (;;) {
        seen = next_job(seen);
        int64_t slices = JOB_SLICES(seen);
        if (!(seen & JOB_TOGETHER)) { /* Note [claimed slices] */
            for (int64_t s; (s = claim_slice(seen >> JOB_GEN_SHIFT, slices)) >= 0;) {
                in_pool = 1;
                follow_denormal_bits(P.denormal_bits);
                run_slice(s, slices);
                in_pool = 0;
                finish_slice();
            }
            continue;
        }
        if (id >= slices)
            continue;
        in_pool = 1;
        follow_denormal_bits(P.denormal_bits);
        cpu_set_t had;
        int moved = away_from(P.caller_cpu, &had);
        atomic_fetch_sub(&P.unstarted, 1);
        run_slice(id, slices);
        if (moved)
            (void)sched_setaffinity(0, sizeof had, &had);
        in_pool = 0;
        finish_slice();
    }
    return NULL;
}

int pdt_cpu_cores(void)
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
    __atomic_store_n(&P.started, 0, __ATOMIC_RELAXED);
    atomic_store(&P.job, 0);
    atomic_store(&P.claim, 0);
    atomic_store(&P.pending, 0);
    atomic_store(&P.sleepers, 0);
    atomic_store(&P.caller_waits, 0);
}

/* OMP_NUM_THREADS, as PyTorch reads it: a positive whole number, else 0. */
static int omp_num_threads(void)
{
    const char *v = getenv("OMP_NUM_THREADS");
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return end && *end == '\0' && n > 0 ? (n > PDT_POOL_MAX ? PDT_POOL_MAX : (int)n) : 0;
}

/* The spin budget (Note [pool hand-off]): OMP_WAIT_POLICY=passive sleeps at once;
 * PYDEVTENSOR_POOL_SPIN_US=N (0 to 1000000) sets it, for measurements. */
static long spin_budget(void)
{
    const char *v = getenv("OMP_WAIT_POLICY");
    if (v && strcasecmp(v, "passive") == 0)
        return 0;
    const char *us = getenv("PYDEVTENSOR_POOL_SPIN_US");
    char *end = NULL;
    long n = us && *us ? strtol(us, &end, 10) : -1;
    return end && *end == '\0' && n >= 0 && n <= 1000000 ? n * 1000 : PDT_POOL_SPIN_NS;
}

/* Starts workers until the pool has `want` threads (the caller counted), at most
 * PDT_POOL_MAX; with fewer when the system refuses a thread.  Under P.lock, with no
 * job in flight (a worker reads the job word from its start). */
static void add_workers(int want)
{
    if (want > PDT_POOL_MAX)
        want = PDT_POOL_MAX;
    while (P.nthreads < want) {
        worker_start *start = malloc(sizeof *start);
        if (!start)
            break; /* run with the workers we got */
        *start = (worker_start){P.nthreads, atomic_load(&P.job)};
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&t, &attr, worker, start) != 0;
        pthread_attr_destroy(&attr);
        if (failed) {
            free(start);
            break;
        }
        P.nthreads++;
    }
}

static void start_pool(void)
{
    int omp = omp_num_threads();
    int cores = omp ? omp : pdt_cpu_cores();
    /* started and spin_ns are also read without the lock (pdt_cpu_parallel_for_hot) */
    __atomic_store_n(&P.spin_ns, spin_budget(), __ATOMIC_RELAXED);
    P.nthreads = 1;
    add_workers(cores < 1 ? 1 : cores);
    __atomic_store_n(&P.started, 1, __ATOMIC_RELEASE);
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
    add_workers(n); /* the pool grows as PyTorch's does; it never shrinks */
    P.limit = n < 1 ? 1 : n;
    pthread_mutex_unlock(&P.lock);
    pthread_mutex_unlock(&P.busy);
    return pdt_cpu_threads();
}

static int all_done(const void *unused)
{
    (void)unused;
    return atomic_load(&P.pending) == 0;
}

/* Runs fn over [0, n) in `slices` slices, slice 0 on the calling thread, which holds
 * P.busy; returns when every slice is done.  together: the slices wait on each other
 * (Note [parts that wait on each other]), so the caller starts its own only once
 * every worker has started, yielding its core meanwhile. */
static void run_job(int64_t n, int64_t slices, pdt_range_fn fn, void *ctx, int together)
{
    in_pool = 1;
    /* Publish the job (Note [pool hand-off]): the fields, then the job word. */
    P.fn = fn;
    P.ctx = ctx;
    P.n = n;
    P.denormal_bits = caller_denormal_bits();
    atomic_store(&P.pending, (int)slices - 1);
    atomic_store(&P.unstarted, (int)slices - 1);
    int cpu = sched_getcpu();
    atomic_store_explicit(&P.last_caller_cpu, cpu, memory_order_relaxed);
    P.caller_cpu = together ? cpu : -1; /* Note [parts on one core] */
    unsigned long generation = (atomic_load(&P.job) >> JOB_GEN_SHIFT) + 1;
    atomic_store(&P.claim, generation << JOB_GEN_SHIFT | 1); /* slice 0 is the caller's */
    atomic_store(&P.job, generation << JOB_GEN_SHIFT | (together ? JOB_TOGETHER : 0) |
                             (unsigned long)slices);
    if (atomic_load(&P.sleepers) > 0) {
        pthread_mutex_lock(&P.lock);
        pthread_cond_broadcast(&P.work_ready);
        pthread_mutex_unlock(&P.lock);
    }
    while (together && atomic_load(&P.unstarted) > 0) {
        for (int i = 0; i < 64; i++)
            cpu_relax();
        sched_yield();
    }
    run_slice(0, slices);
    if (!together) /* Note [claimed slices] */
        for (int64_t s; (s = claim_slice(generation, slices)) >= 0;) {
            run_slice(s, slices);
            atomic_fetch_sub(&P.pending, 1);
        }
    if (!spin_until(all_done, NULL)) {
        pthread_mutex_lock(&P.lock);
        atomic_store(&P.caller_waits, 1);
        while (atomic_load(&P.pending) > 0)
            pthread_cond_wait(&P.work_done, &P.lock);
        atomic_store(&P.caller_waits, 0);
        pthread_mutex_unlock(&P.lock);
    }
    in_pool = 0;
}

/* Note [the hot grain]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A row that costs nanoseconds an element (a float32 power: 2 to 2.5 ns at AVX-512)
 * pays for a second thread from a few thousand elements on, but only if the worker
 * is awake: a spinning worker starts its slice in about a microsecond, a sleeping
 * one in about 55 (Note [pool hand-off]).  A worker spins for the spin budget (1 ms)
 * after its last slice, so pdt_cpu_parallel_for_hot takes the small grain when no
 * worker sleeps, or when the previous call of its own came within that budget (a
 * loop of such ops: the first split wakes the pool, the next find it awake); a lone
 * call keeps the grain of a cold pool, and so does every call while the pool does
 * not spin (OMP_WAIT_POLICY=passive, or another process wants the cores: Note
 * [spinning under load]).  It starts the pool, so that a process whose ops are all
 * mid-sized gets there too.  In a loop, x ** 1.7 of 8,000 float32 took 16.3 us on
 * one thread (NumPy 10.1) and tanh of 4,000 2.37 (NumPy 1.88); split at the hot
 * grain, 8.6 and 1.53 (cpu_ew_walk.c's pdt_cpu_ew_run has the grains). */
static atomic_long last_hot_call; /* now_ns() of the latest pdt_cpu_parallel_for_hot */

static int pool_awake(void)
{
    return __atomic_load_n(&P.started, __ATOMIC_ACQUIRE) && atomic_load(&P.sleepers) == 0;
}

void pdt_cpu_parallel_for_hot(int64_t n, int64_t grain, int64_t hot_grain, pdt_range_fn fn,
                              void *ctx)
{
    if (hot_grain < grain && n < 2 * grain && n >= 2 * hot_grain) {
        if (!__atomic_load_n(&P.started, __ATOMIC_ACQUIRE))
            pdt_cpu_threads(); /* starts the pool */
        long now = now_ns();
        long last = atomic_exchange_explicit(&last_hot_call, now, memory_order_relaxed);
        long spin = __atomic_load_n(&P.spin_ns, __ATOMIC_RELAXED);
        if (spin > 0 && now >= atomic_load_explicit(&P.contended_until, memory_order_relaxed) &&
            (now - last < spin || pool_awake()))
            grain = hot_grain;
    }
    pdt_cpu_parallel_for(n, grain, fn, ctx);
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
    run_job(n, slices, fn, ctx, 0);
    pthread_mutex_unlock(&P.busy);
}

/* ---------------------------------------------------------- parts together */

/* Parts that the pool has no thread for run on threads of their own, started for
 * the group and held at a gate until every one of them has started. */
typedef struct extra_threads {
    pthread_mutex_t lock;
    pthread_cond_t open;
    int state; /* 0: wait at the gate, 1: run, -1: a thread failed to start: return */
    pdt_range_fn fn;
    void *ctx;
    unsigned denormal_bits; /* the caller's (Note [flush denormal]) */
} extra_threads;

typedef struct extra_part {
    extra_threads *group;
    int64_t part;
} extra_part;

static void *extra_thread(void *arg)
{
    extra_part *p = arg;
    extra_threads *g = p->group;
    pthread_mutex_lock(&g->lock);
    while (g->state == 0)
        pthread_cond_wait(&g->open, &g->lock);
    int run = g->state == 1;
    pthread_mutex_unlock(&g->lock);
    if (run) {
        in_pool = 1;
        follow_denormal_bits(g->denormal_bits);
        g->fn(p->part, p->part + 1, g->ctx);
    }
    return NULL;
}

static void open_gate(extra_threads *g, int state)
{
    pthread_mutex_lock(&g->lock);
    g->state = state;
    pthread_cond_broadcast(&g->open);
    pthread_mutex_unlock(&g->lock);
}

int pdt_cpu_parallel_together(int64_t n, pdt_range_fn fn, void *ctx)
{
    if (n <= 1) {
        if (n == 1)
            fn(0, 1, ctx);
        return 0;
    }
    int64_t pooled = 0; /* parts 0 .. pooled-1 run on the pool */
    if (!in_pool) {
        pdt_cpu_threads();           /* starts the pool */
        pthread_mutex_lock(&P.busy); /* waits for another caller's loop to end */
        pooled = P.nthreads < n ? P.nthreads : n;
    }
    int64_t extra = n - pooled;
    extra_threads g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, fn, ctx,
                       caller_denormal_bits()};
    pthread_t *threads = extra ? malloc((size_t)extra * sizeof *threads) : NULL;
    extra_part *parts = extra ? malloc((size_t)extra * sizeof *parts) : NULL;
    int64_t started = 0;
    if (!extra || (threads && parts)) {
        for (; started < extra; started++) {
            parts[started] = (extra_part){&g, pooled + started};
            if (pthread_create(&threads[started], NULL, extra_thread, &parts[started]) != 0)
                break;
        }
    }
    int ok = started == extra;
    open_gate(&g, ok ? 1 : -1);
    if (ok) {
        if (pooled > 1)
            run_job(pooled, pooled, fn, ctx, 1);
        else if (pooled == 1)
            fn(0, 1, ctx);
    }
    for (int64_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    free(parts);
    if (pooled)
        pthread_mutex_unlock(&P.busy);
    return ok ? 0 : -1;
}
