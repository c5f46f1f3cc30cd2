/* cpu_cache.c - a bounded cache of freed large CPU blocks.
 *
 * Note [CPU block cache]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * An op on 1e5 or more floats allocates its result with aligned_alloc and frees it a
 * moment later.  glibc serves such sizes with mmap, or from the top of the heap that
 * it trims back to the OS on free, so every op faults its result's pages in again:
 * 163 page faults an op for `a*b + a` at 1e5 float32, 1,921 at 1e6, most of its time.
 * Three ways out were weighed:
 *
 *   - mallopt(M_MMAP_THRESHOLD / M_TRIM_THRESHOLD): one call, but it changes malloc
 *     for the whole process (Python, NumPy, every other library), which a library
 *     should not do behind its user's back, and glibc ignores it elsewhere;
 *   - mimalloc or jemalloc as a dependency: a second allocator in the process for
 *     our blocks only, a binary to ship in every wheel, and its own caching policy to
 *     explain;
 *   - this: freed blocks of 64 KiB or more are kept, per CPU device and size class,
 *     for the next allocation of the same class, as CUDA's caching allocators do.
 *
 * We chose the third: it touches nothing outside our own blocks, and what it holds is
 * visible and bounded.  Sizes from 64 KiB up are rounded to classes of four per
 * power of two (at most 25% more than asked; the class, not the request, is what is
 * allocated and cached).  The cache holds at most PDT_CPU_CACHE_CAP bytes in all (or
 * 1/16 of the machine's memory when that is less).  (A single block was limited to
 * a quarter of the cap, then to half: then the 400 MB result of an op on 1e8
 * float32 was never kept, and each such op faulted its result in again, zeroed by
 * the kernel page by page: `a + b` at 1e8 reached 72% of the bandwidth of an add into an existing
 * tensor; and the 800 MB float64 result of casting 1e8 float32 took 53 ms against
 * 34 ms when kept, where an add moving the same bytes takes 31.  Any one block may
 * now take the whole cap: what the cache can hold at most is the same.)  A freed
 * block that does not fit makes room for itself by evicting the same device's
 * cached blocks, largest first, when they can free enough: a loop of ops on 1e8
 * floats following other big ops found the cap taken by their 400 MB results, and
 * its own 800 MB result was freed each time.  Accounting stays exact:
 * memory_allocated() counts what tensors hold, as before; memory_reserved() adds the
 * cached blocks and the rounding; empty_cache() frees the cached blocks.  A block is
 * reused only on the logical CPU device that freed it, so each device's figures and
 * memory limit mean what they did.
 *
 * Under AddressSanitizer the cache is off: a reused block would hide a use after
 * free from it.  A forked child keeps the blocks (its copy of the memory is valid)
 * and gets a fresh lock.
 */
#define _GNU_SOURCE
#include "cpu_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pdt_device.h"

#if defined(__SANITIZE_ADDRESS__)
#define PDT_CPU_CACHE_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PDT_CPU_CACHE_ON 0
#endif
#endif
#ifndef PDT_CPU_CACHE_ON
#define PDT_CPU_CACHE_ON 1
#endif

#define PDT_CPU_CACHE_MIN_LOG2 16                       /* 64 KiB */
#define PDT_CPU_CACHE_CAP ((size_t)1 << 30)             /* 1 GiB in all, at most */
#define NUM_CLASSES ((64 - PDT_CPU_CACHE_MIN_LOG2) * 4) /* four per power of two */

typedef struct block {
    struct block *next; /* written into the free block itself */
    size_t size;        /* its class's size, for a block being evicted */
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *heads[PDT_MAX_DEVICES][NUM_CLASSES];
/* changed under `lock`; atomic so that pdt_cpu_cache_bytes reads it without the
 * lock, on every allocation that comes from the system (its reserved peak) */
static _Atomic size_t cached[PDT_MAX_DEVICES];
static size_t cached_total, cap;

static int log2_floor(size_t n)
{
    int k = 0;
    while (n >>= 1)
        k++;
    return k;
}

/* The class of n (>= 64 KiB): k = floor(log2 n); classes are 2^k * {4,5,6,7}/4 and
 * 2^(k+1).  Returns its index and sets *size. */
static int class_of(size_t n, size_t *size)
{
    int k = log2_floor(n);
    size_t step = (size_t)1 << (k - 2);
    size_t q = (n + step - 1) / step; /* 4 .. 8 */
    *size = q * step;
    if (q == 8)
        return (k + 1 - PDT_CPU_CACHE_MIN_LOG2) * 4;
    return (k - PDT_CPU_CACHE_MIN_LOG2) * 4 + (int)(q - 4);
}

/* The size of class c (class_of's inverse). */
static size_t class_size(int c)
{
    int k = c / 4 + PDT_CPU_CACHE_MIN_LOG2;
    return (size_t)(c % 4 + 4) << (k - 2);
}

static void child_after_fork(void) { pthread_mutex_init(&lock, NULL); }

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_once(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t sixteenth = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 16 : 0;
    cap = sixteenth && sixteenth < PDT_CPU_CACHE_CAP ? sixteenth : PDT_CPU_CACHE_CAP;
    pthread_atfork(NULL, NULL, child_after_fork);
}

size_t pdt_cpu_cache_class(size_t nbytes)
{
    if (!PDT_CPU_CACHE_ON || nbytes < ((size_t)1 << PDT_CPU_CACHE_MIN_LOG2) ||
        nbytes > SIZE_MAX / 2)
        return nbytes;
    size_t size;
    (void)class_of(nbytes, &size);
    return size;
}

static int usable(int index) { return PDT_CPU_CACHE_ON && index >= 0 && index < PDT_MAX_DEVICES; }

void *pdt_cpu_cache_take(int index, size_t cls)
{
    if (!usable(index) || cls < ((size_t)1 << PDT_CPU_CACHE_MIN_LOG2) || cls > SIZE_MAX / 2)
        return NULL;
    size_t size;
    int c = class_of(cls, &size);
    if (size != cls)
        return NULL;
    pthread_mutex_lock(&lock);
    block *b = heads[index][c];
    if (b) {
        heads[index][c] = b->next;
        cached[index] -= cls;
        cached_total -= cls;
    }
    pthread_mutex_unlock(&lock);
    return b;
}

int pdt_cpu_cache_give(int index, void *p, size_t cls)
{
    if (!usable(index) || !p || cls < ((size_t)1 << PDT_CPU_CACHE_MIN_LOG2) || cls > SIZE_MAX / 2)
        return 0;
    pthread_once(&once, init_once);
    size_t size;
    int c = class_of(cls, &size);
    if (size != cls || cls > cap)
        return 0;
    int taken = 0;
    block *evicted = NULL; /* freed after the lock */
    pthread_mutex_lock(&lock);
    /* Room for the block just freed, from this device's largest blocks down, when they
     * can make it (Note [CPU block cache]: the latest is the likeliest to be reused). */
    if (cached_total + cls > cap && cached[index] >= cached_total + cls - cap) {
        for (int e = NUM_CLASSES - 1; e >= 0 && cached_total + cls > cap; e--)
            while (heads[index][e] && cached_total + cls > cap) {
                block *b = heads[index][e];
                heads[index][e] = b->next;
                cached[index] -= class_size(e);
                cached_total -= class_size(e);
                b->size = class_size(e);
                b->next = evicted;
                evicted = b;
            }
    }
    if (cached_total + cls <= cap) {
        block *b = p;
        b->next = heads[index][c];
        heads[index][c] = b;
        cached[index] += cls;
        cached_total += cls;
        taken = 1;
    }
    pthread_mutex_unlock(&lock);
    while (evicted) {
        block *next = evicted->next;
        pdt_cpu_block_free(evicted, evicted->size);
        evicted = next;
    }
    return taken;
}

size_t pdt_cpu_cache_bytes(int index)
{
    if (!usable(index))
        return 0;
    return atomic_load_explicit(&cached[index], memory_order_relaxed);
}

void pdt_cpu_cache_empty(int index)
{
    if (!usable(index))
        return;
    block *all[NUM_CLASSES];
    pthread_mutex_lock(&lock);
    for (int c = 0; c < NUM_CLASSES; c++) {
        all[c] = heads[index][c];
        heads[index][c] = NULL;
    }
    cached_total -= cached[index];
    cached[index] = 0;
    pthread_mutex_unlock(&lock);
    for (int c = 0; c < NUM_CLASSES; c++)
        while (all[c]) {
            block *next = all[c]->next;
            pdt_cpu_block_free(all[c], class_size(c));
            all[c] = next;
        }
}
