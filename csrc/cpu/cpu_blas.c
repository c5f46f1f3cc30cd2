/* cpu_blas.c - loads OpenBLAS on first use (see cpu_blas.h). */
#define _GNU_SOURCE
#include "cpu_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PDT_BLAS_LIBNAME
#define PDT_BLAS_LIBNAME "libopenblas.so.0"
#endif

static pdt_blas_table blas;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int
    load_state; /* 0: not loaded yet (or failed for want of memory: try again), 1: loaded, -1: failed for good */
static pthread_mutex_t candidates_lock = PTHREAD_MUTEX_INITIALIZER;
static char candidates[4][512];
static int ncandidates;
static char load_error[1024];

void pdt_cpu_blas_add_candidate(const char *path)
{
    pthread_mutex_lock(&candidates_lock);
    if (ncandidates < 4 && strlen(path) < sizeof candidates[0])
        strcpy(candidates[ncandidates++], path);
    pthread_mutex_unlock(&candidates_lock);
}

static void *load_symbol(void *lib, const char *name, int *missing)
{
    void *p = dlsym(lib, name);
    if (!p)
        *missing = 1;
    return p;
}

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

pdt_status pdt_cpu_blas_enter(pdt_blas_call *call)
{
    pdt_status st = PDT_OK;
    pthread_mutex_lock(&guard_lock);
    while (held_back)
        pthread_cond_wait(&guard_cond, &guard_lock);
    call->level = ++in_flight;
    if (call->level > buffers_proven)
        st = pdt_cpu_blas_probe_call(call->level);
    if (st != PDT_OK) {
        if (--in_flight == 0)
            pthread_cond_broadcast(&guard_cond);
    } else {
        this_thread++;
    }
    pthread_mutex_unlock(&guard_lock);
    return st;
}

void pdt_cpu_blas_leave(const pdt_blas_call *call, int used_buffer)
{
    pthread_mutex_lock(&guard_lock);
    this_thread--;
    if (used_buffer && call->level > buffers_proven)
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

/* Loads the library into `blas`; 1 when loaded, -1 when it cannot be, 0 when it
 * could not for want of memory (load_error says which). */
static int blas_load(void)
{
    if (pdt_cpu_blas_probe_load() != PDT_OK) {
        snprintf(load_error, sizeof load_error, "%s", pdt_last_error());
        return 0;
    }
    void *lib = dlopen(PDT_BLAS_LIBNAME, RTLD_NOW | RTLD_LOCAL);
    const char *from = PDT_BLAS_LIBNAME;
    pthread_mutex_lock(&candidates_lock);
    for (int i = 0; !lib && i < ncandidates; i++) {
        lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        from = candidates[i];
    }
    pthread_mutex_unlock(&candidates_lock);
    if (!lib) {
        const char *why = dlerror();
        if (why && (strstr(why, "Cannot allocate memory") || strstr(why, "failed to map"))) {
            snprintf(load_error, sizeof load_error,
                     "cpu: out of memory: OpenBLAS could not be loaded (%s)", why);
            return 0;
        }
        snprintf(load_error, sizeof load_error,
                 "OpenBLAS could not be loaded (%s; tried %s and %d installed path%s): "
                 "reinstall scipy-openblas32",
                 why ? why : "unknown error", PDT_BLAS_LIBNAME, ncandidates,
                 ncandidates == 1 ? "" : "s");
        return -1;
    }
    int missing = 0;
    /* POSIX dlsym returns void*; converting it to a function pointer is how
     * the API is meant to be used. */
    *(void **)&blas.get_config = load_symbol(lib, PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_config)),
                                             &missing);
    *(void **)&blas.get_num_threads =
        load_symbol(lib, PDT_BLAS_STR(PDT_OPENBLAS_SYMBOL(get_num_threads)), &missing);
    *(void **)&blas.sgemm = load_symbol(lib, PDT_BLAS_STR(PDT_BLAS_SYMBOL(sgemm)), &missing);
    *(void **)&blas.dgemm = load_symbol(lib, PDT_BLAS_STR(PDT_BLAS_SYMBOL(dgemm)), &missing);
    if (missing) {
        snprintf(load_error, sizeof load_error,
                 "the OpenBLAS at %s lacks the expected %s-prefixed symbols", from,
                 PDT_BLAS_STR(PDT_BLAS_PREFIX) "");
        memset(&blas, 0, sizeof blas);
        dlclose(lib);
        return -1;
    }
    /* after dlopen(), so that these run before OpenBLAS's own (Note [OpenBLAS and fork]) */
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    atexit(at_exit);
    Dl_info info;
    if (dladdr(*(void **)&blas.sgemm, &info) && info.dli_fname)
        snprintf(blas.path, sizeof blas.path, "%s", info.dli_fname);
    else
        snprintf(blas.path, sizeof blas.path, "%s", from);
    return 1;
}

pdt_status pdt_cpu_blas(const pdt_blas_table **out)
{
    int state = __atomic_load_n(&load_state, __ATOMIC_ACQUIRE);
    if (state != 1) {
        pthread_mutex_lock(&load_lock);
        state = load_state;
        if (state == 0) {
            state = blas_load();
            __atomic_store_n(&load_state, state, __ATOMIC_RELEASE);
        }
        pdt_status st = PDT_OK;
        if (state != 1) /* load_error is written under load_lock */
            st = pdt_fail(state == 0 ? PDT_ERR_OOM : PDT_ERR_BACKEND, "%s", load_error);
        pthread_mutex_unlock(&load_lock);
        if (st != PDT_OK)
            return st;
    }
    *out = &blas;
    return PDT_OK;
}

void pdt_cpu_blas_describe(char *buf, size_t n)
{
    const pdt_blas_table *b;
    if (pdt_cpu_blas(&b) != PDT_OK)
        snprintf(buf, n, "unavailable: %s", pdt_last_error());
    else
        snprintf(buf, n, "%s, %d threads", b->get_config(), b->get_num_threads());
}
