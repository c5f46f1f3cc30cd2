/* pdt_library.h - the one loader of the libraries that are dlopen()ed on first use:
 * OpenBLAS (csrc/cpu/cpu_blas.c), cuBLAS (csrc/cuda/cuda_blas.c) and NCCL
 * (csrc/cuda/cuda_nccl.c).
 *
 * Note [where libraries are found]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Loading a library costs tens of milliseconds (OpenBLAS starts its threads, cuBLAS
 * maps ~100 MB), so none is linked: each is opened the first time it is needed, its
 * entry points resolved into a table.  The places tried, in order:
 *   1. the directories added with pdt_library_add_dir(), in the order added: the
 *      bindings (pydevtensor/_libraries.py) add NVIDIA's pip wheels in the
 *      environment (site-packages/nvidia/cu13/lib, nvidia/<name>/lib), then
 *      $CUDA_HOME/lib64, and the scipy-openblas32 wheel's lib/;
 *   2. local_dir, relative to the directory of the extension module (the emulated
 *      build's _emulated_cuda/);
 *   3. the bare soname through the system loader (the extension's RUNPATH,
 *      LD_LIBRARY_PATH, ldconfig), unless no_system is set.
 * The first file that opens, has every symbol and passes `check` wins; a failure
 * says what was tried and what to install.  The core computes no search list itself
 * (it knows nothing of Python's site-packages): the bindings pass directories down
 * through the backend table's add_library_path.
 */
#ifndef PDT_LIBRARY_H
#define PDT_LIBRARY_H

#include <pthread.h>
#include <stddef.h>

#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PDT_LIBRARY_MAX_DIRS 16
#define PDT_LIBRARY_PATH_MAX 1024

typedef struct pdt_library_symbol {
    const char *name;
    void **slot; /* where the address goes (a member of the owner's table) */
} pdt_library_symbol;

typedef struct pdt_library {
    /* --- set by the owner, constant --- */
    const char *what;      /* "cuBLAS" */
    const char *soname;    /* "libcublas.so.13": the file looked for in each place */
    const char *install;   /* what provides it: "pip install nvidia-cublas" */
    const char *local_dir; /* NULL, or a directory relative to the extension's own */
    int no_system;         /* 1: never ask the system loader for the bare soname */
    const pdt_library_symbol *symbols;
    size_t nsymbols;
    /* NULL, or called on a candidate that has every symbol: 0 accepts it, else
     * writes why not into why[n] and the next candidate is tried. */
    int (*check)(void *handle, char *why, size_t n);
    /* NULL, or "NAME=VALUE": NAME is set to VALUE while dlopen() runs the library's
     * constructors, unless the process has NAME set already, and unset after
     * (OpenBLAS reads its settings from the environment when it is loaded).
     * setenv() is not safe beside a getenv() in another thread (glibc before 2.40
     * may free the array that one reads), so the bindings have such a library
     * loaded before they release the GIL (pdt_backend_prepare_gemm); a thread of
     * another library's that reads the environment meanwhile is not excluded. */
    const char *load_env;

    /* --- state, guarded by lock --- */
    pthread_mutex_t lock;
    int state;           /* 0: not tried (or short of memory last time), 1: loaded, -1: failed */
    int short_of_memory; /* the last try failed for want of memory */
    int ndirs;
    char dirs[PDT_LIBRARY_MAX_DIRS][PDT_LIBRARY_PATH_MAX];
    char path[PDT_LIBRARY_PATH_MAX]; /* the file loaded */
    char error[2048];                /* why it could not be loaded */
} pdt_library;

/* A static initialiser: PDT_LIBRARY("cuBLAS", "libcublas.so.13", "pip install ...",
 * symbols, n, check, local_dir, no_system); PDT_LIBRARY_ENV takes load_env last. */
#define PDT_LIBRARY(what, soname, install, symbols, nsymbols, check, local_dir, no_system)         \
    PDT_LIBRARY_ENV(what, soname, install, symbols, nsymbols, check, local_dir, no_system, NULL)
#define PDT_LIBRARY_ENV(what, soname, install, symbols, nsymbols, check, local_dir, no_system,     \
                        load_env)                                                                  \
    {                                                                                              \
        (what), (soname), (install), (local_dir), (no_system), (symbols), (nsymbols), (check),     \
            (load_env), PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, {{0}}, {0},                            \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

/* Adds a directory to search before the others (Note [where libraries are found]).
 * Ignored once the library was loaded, and beyond PDT_LIBRARY_MAX_DIRS. */
void pdt_library_add_dir(pdt_library *lib, const char *dir);

/* Loads the library on the first call and fills every symbol's slot (all or none);
 * later calls return the first answer.  0 when loaded, else -1 with lib->error
 * set; -2 when dlopen() failed for want of memory, which is not final: the next
 * call tries again.  Thread-safe. */
int pdt_library_load(pdt_library *lib);

/* The library's state as text, loading it first: writes the file loaded into
 * path[n] (or ""), and into error[n] why not (or ""), and returns what
 * pdt_library_load() returned.  Read lib->error through this, not directly: after a
 * -2, another thread's retry may be rewriting it. */
int pdt_library_report(pdt_library *lib, char *path, size_t npath, char *error, size_t nerror);

/* For the backends: PDT_OK once the library is loaded (loading it on first use; a
 * lock-free check after that), else pdt_fail() with lib->error: PDT_ERR_OOM when
 * dlopen() was short of memory (a later call tries again), else PDT_ERR_BACKEND. */
pdt_status pdt_library_need(pdt_library *lib);

#ifdef __cplusplus
}
#endif

#endif /* PDT_LIBRARY_H */
