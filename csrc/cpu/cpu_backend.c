/* cpu_backend.c - the CPU's table: 64-byte aligned memory (large blocks cached for
 * reuse), memcpy copies, the machine's name and memory for the device table. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_blas.h"
#include "cpu_cache.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "cpu_stream.h"

static int cpu_device_count(void) { return 1; }

static pdt_status cpu_properties(int index, pdt_device_props *out)
{
    (void)index;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *colon = strchr(line, ':');
                if (colon) {
                    colon += colon[1] == ' ' ? 2 : 1;
                    colon[strcspn(colon, "\n")] = '\0';
                    snprintf(out->name, sizeof out->name, "%s", colon);
                }
                break;
            }
        }
        fclose(f);
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    out->total_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    out->multiprocessors = cores > 0 ? (int)cores : 1;
    return PDT_OK;
}

static pdt_status cpu_mem_info(int index, size_t *free_bytes, size_t *total_bytes)
{
    (void)index;
    long avail = sysconf(_SC_AVPHYS_PAGES), pages = sysconf(_SC_PHYS_PAGES),
         page = sysconf(_SC_PAGESIZE);
    *free_bytes = avail > 0 && page > 0 ? (size_t)avail * (size_t)page : 0;
    *total_bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
    return PDT_OK;
}

static pdt_status cpu_synchronize(int index)
{
    (void)index;
    return PDT_OK;
}

static void cpu_versions(int *driver, int *runtime) { *driver = *runtime = 0; }

#define PDT_CPU_ALIGN 64
#define PDT_CPU_HUGE_ALIGN ((size_t)2 << 20) /* a transparent huge page */
#define PDT_CPU_HUGE_MIN ((size_t)4 << 20)
#define PDT_CPU_COLOURS 32 /* Note [block colouring]: offsets 0, 64, ..., 1984 bytes */
#define PDT_CPU_COLOUR_PAD ((size_t)PDT_CPU_COLOURS * PDT_CPU_ALIGN)
#define PDT_CPU_SMALL_MAX (((size_t)64 << 10) - 1) /* Note [small blocks] */

/* Note [huge pages]: a fresh 256 MiB result takes 65536 page faults to touch
 * with 4 KiB pages; aligned to 2 MiB and marked MADV_HUGEPAGE it takes 128, which
 * doubles the speed of an allocating 64M-element add.  Small tensors keep the
 * 64-byte alignment, so they do not waste memory.
 *
 * Blocks of 64 KiB and more are allocated at their size class and kept for reuse
 * when freed (Note [CPU block cache] in cpu_cache.c); `in_use` counts the bytes
 * handed out, rounding included, so that memory_reserved() is exact.
 *
 * Note [block colouring]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A huge block's data does not start on its 2 MiB boundary but 0, 64, ...,
 * 1984 bytes past it, a different offset (colour) for each new block, in
 * turn.  Buffers that all start on a 2 MiB (or 4 KiB) boundary have the same
 * low address bits, so a loop that reads one and writes another at the same
 * index keeps hitting the same cache sets and trips the processor's 4K-alias
 * check between loads and stores.  MPICH's all-reduce of a 64 MiB tensor took
 * 41 ms from a 2 MiB-aligned buffer against 32 ms from one 64 bytes past it
 * (2 ranks here): its own buffers are page-aligned.  The 2 KiB of padding a
 * huge block carries for this is not counted in memory_reserved(); the huge
 * pages stay, since the allocation itself starts on the boundary.  A block
 * keeps its colour through the cache.
 *
 * Note [small blocks]
 * ~~~~~~~~~~~~~~~~~~~
 * posix_memalign(64, n) for a small n makes glibc carve a larger chunk and
 * free its leading and trailing pieces, which sends every later malloc down
 * its slow path (malloc_consolidate, unlink_chunk): a sixth of the time of
 * `a.clone()` on one element went there.  A block below 64 KiB (the block
 * cache's smallest class) is instead malloc(n + 64), served from glibc's
 * per-thread cache or bins, and aligned by hand; the pointer malloc gave is
 * kept in the 8 bytes just below the aligned address, where
 * pdt_cpu_block_free finds it. */
static _Atomic size_t in_use[PDT_MAX_DEVICES];
/* the highest in_use + cached bytes since the start or the last reset: raised
 * only where a block comes from the system, the one place reserved grows */
static _Atomic size_t reserved_high[PDT_MAX_DEVICES];

static size_t block_size(size_t nbytes, size_t *align)
{
    size_t cls = pdt_cpu_cache_class(nbytes); /* huge or not by class: pdt_cpu_block_free */
    *align = cls >= PDT_CPU_HUGE_MIN ? PDT_CPU_HUGE_ALIGN : PDT_CPU_ALIGN;
    size_t rounded = (cls + *align - 1) / *align * *align;
    return rounded >= nbytes ? rounded : 0;
}

void pdt_cpu_block_free(void *ptr, size_t size)
{
    if (size <= PDT_CPU_SMALL_MAX) { /* Note [small blocks] */
        free(((void **)ptr)[-1]);
        return;
    }
    if (size >= PDT_CPU_HUGE_MIN) /* Note [block colouring]: free from the boundary */
        ptr = (void *)((uintptr_t)ptr & ~(uintptr_t)(PDT_CPU_HUGE_ALIGN - 1));
    free(ptr);
}

static _Atomic unsigned next_colour;

static size_t cpu_reserved(int index)
{
    if (index < 0 || index >= PDT_MAX_DEVICES)
        return 0;
    return atomic_load(&in_use[index]) + pdt_cpu_cache_bytes(index);
}

/* reserved_high[index] = max(it, now): a compare-and-swap only when now is a new high */
static void raise_reserved_high(int index, size_t now)
{
    size_t high = atomic_load_explicit(&reserved_high[index], memory_order_relaxed);
    while (now > high && !atomic_compare_exchange_weak(&reserved_high[index], &high, now)) {
    }
}

static size_t cpu_reserved_peak(int index)
{
    return index >= 0 && index < PDT_MAX_DEVICES ? atomic_load(&reserved_high[index]) : 0;
}

static void cpu_reset_reserved_peak(int index)
{
    if (index >= 0 && index < PDT_MAX_DEVICES)
        atomic_store(&reserved_high[index], cpu_reserved(index));
}

static pdt_status cpu_alloc(int index, size_t nbytes, void **out)
{
    size_t align, size = block_size(nbytes, &align);
    void *p = size ? pdt_cpu_cache_take(index, size) : NULL;
    int from_system = p == NULL;
    if (!p) {
        size_t pad = align == PDT_CPU_HUGE_ALIGN ? PDT_CPU_COLOUR_PAD : 0;
        /* posix_memalign, not aligned_alloc: C11 wants aligned_alloc's size to be
         * a multiple of the alignment (AddressSanitizer enforces it), and the
         * colour pad makes a huge block's size not one */
        p = NULL;
        if (size && size <= PDT_CPU_SMALL_MAX) { /* Note [small blocks] */
            char *raw = malloc(size + PDT_CPU_ALIGN);
            if (raw) {
                p = (void *)(((uintptr_t)raw + PDT_CPU_ALIGN) & ~(uintptr_t)(PDT_CPU_ALIGN - 1));
                ((void **)p)[-1] = raw;
            }
        } else if (!size || size + pad < size || posix_memalign(&p, align, size + pad) != 0) {
            p = NULL;
        }
        if (!p)
            return pdt_fail(PDT_ERR_OOM, "allocating %zu bytes failed", nbytes);
#ifdef MADV_HUGEPAGE
        if (align == PDT_CPU_HUGE_ALIGN)
            (void)madvise(p, size, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
        if (align == PDT_CPU_HUGE_ALIGN) /* Note [block colouring] */
            p = (char *)p + PDT_CPU_ALIGN * (atomic_fetch_add(&next_colour, 1) % PDT_CPU_COLOURS);
    }
    if (index >= 0 && index < PDT_MAX_DEVICES) {
        size_t used = atomic_fetch_add(&in_use[index], size) + size;
        if (from_system)
            raise_reserved_high(index, used + pdt_cpu_cache_bytes(index));
    }
    *out = p;
    return PDT_OK;
}

static void cpu_free(int index, void *ptr, size_t nbytes)
{
    if (!ptr)
        return;
    size_t align, size = block_size(nbytes, &align);
    if (index >= 0 && index < PDT_MAX_DEVICES)
        atomic_fetch_sub(&in_use[index], size);
    if (!pdt_cpu_cache_give(index, ptr, size))
        pdt_cpu_block_free(ptr, size);
}

/* A copy of 2 COPY_GRAIN bytes or more whose ends do not overlap is split
 * across the pool in pieces of COPY_GRAIN bytes, a memcpy each; an overlapping
 * one (x[1:].copy_(x[:-1])) stays one memmove.  One thread's memmove moved
 * 1e5 float32 (400 KB) in 10.1 us and 1e7 in 2.29 ms here, where the pool's
 * x * 1.0 took 5.6 us and 1.55 ms (clone, NumPy's copy and PyTorch's clone
 * are each one thread's copy). */
#define COPY_GRAIN ((size_t)1 << 17)

typedef struct {
    char *dst;
    const char *src;
    size_t nbytes;
} copy_job;

static void copy_range(int64_t begin, int64_t end, void *ctx)
{
    const copy_job *j = ctx;
    size_t from = (size_t)begin * COPY_GRAIN, to = (size_t)end * COPY_GRAIN;
    to = to < j->nbytes ? to : j->nbytes;
    if (j->nbytes < (size_t)PDT_STREAM_MIN_BYTES) {
        memcpy(j->dst + from, j->src + from, to - from);
        return;
    }
    /* Note [streamed outputs]: the whole aligned lines with non-temporal stores */
    size_t head = (64 - ((uintptr_t)(j->dst + from) & 63)) & 63;
    head = head < to - from ? head : to - from;
    memcpy(j->dst + from, j->src + from, head);
    size_t lines = (to - from - head) & ~(size_t)63;
    pdt_cpu_simd()->stream_copy(j->dst + from + head, j->src + from + head, (int64_t)lines);
    memcpy(j->dst + from + head + lines, j->src + from + head + lines, to - from - head - lines);
    pdt_cpu_simd()->stream_fence();
}

static pdt_status cpu_copy_bytes(pdt_copy_kind kind, int dst_index, void *dst, int src_index,
                                 const void *src, size_t nbytes, int flags)
{
    (void)kind, (void)dst_index, (void)src_index, (void)flags;
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (nbytes >= 2 * COPY_GRAIN && (d + nbytes <= s || s + nbytes <= d)) {
        copy_job j = {dst, src, nbytes};
        pdt_cpu_parallel_for((int64_t)((nbytes + COPY_GRAIN - 1) / COPY_GRAIN), 1, copy_range, &j);
        return PDT_OK;
    }
    memmove(dst, src, nbytes);
    return PDT_OK;
}

static pdt_library *const cpu_libraries[] = {&pdt_openblas_library, NULL};

static void cpu_prepare_gemm(void)
{
    const pdt_blas_table *t;
    (void)pdt_cpu_blas(&t); /* OpenBLAS is loaded with OPENBLAS_THREAD_TIMEOUT set */
}

static int cpu_set_num_threads(int n)
{
    int used = pdt_cpu_set_threads(n);
    (void)pdt_cpu_blas_set_threads(used); /* without OpenBLAS, matmul reports why when used */
    return used;
}

static const char *cpu_simd_level(char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (int k = 0; k < PDT_CPU_LEVELS; k++)
        if (pdt_cpu_simd_supported(k) && used < n)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "," : "",
                                     pdt_cpu_simd_name(k));
    return pdt_cpu_simd_name(pdt_cpu_simd_level());
}

static int cpu_set_simd_level(const char *name)
{
    for (int k = 0; k < PDT_CPU_LEVELS; k++)
        if (strcmp(name, pdt_cpu_simd_name(k)) == 0)
            return pdt_cpu_simd_set(k);
    return -1;
}

const pdt_backend pdt_cpu_backend = {
    .kind = PDT_CPU,
    .name = "cpu",
    .device_count = cpu_device_count,
    .unavailable_reason = NULL,
    .properties = cpu_properties,
    .mem_info = cpu_mem_info,
    .synchronize = cpu_synchronize,
    .versions = cpu_versions,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .reserved = cpu_reserved,
    .reserved_peak = cpu_reserved_peak,
    .reset_reserved_peak = cpu_reset_reserved_peak,
    .empty_cache = pdt_cpu_cache_empty,
    .host_alloc = NULL,
    .host_free = NULL,
    .copy_bytes = cpu_copy_bytes,
    .fill = pdt_cpu_fill,
    .copy_cast = pdt_cpu_copy_cast,
    .arange = pdt_cpu_arange,
    .random = pdt_cpu_random,
    .binary = pdt_cpu_binary,
    .binary_mul_mask = 1,
    .small_int_rows = 1,
    .small_int_extremes = 1, /* cpu_reduce.c */
    .binary_scaled = pdt_cpu_binary_scaled,
    .unary = pdt_cpu_unary,
    .reduce = pdt_cpu_reduce,
    .gemm = pdt_cpu_gemm,
    .where = pdt_cpu_where,
    .index_select = pdt_cpu_index_select,
    .index_select_checks = 1, /* Note [the index read once] in cpu_index.c */
    .index_put = pdt_cpu_index_put,
    .index_add = pdt_cpu_index_add,
    .lu_factor = pdt_cpu_lu_factor,
    .lu_solve = pdt_cpu_lu_solve,
    .cholesky = pdt_cpu_cholesky,
    .eigh = pdt_cpu_eigh,
    .svd = pdt_cpu_svd,
    .qr_factor = pdt_cpu_qr_factor,
    .qr_orgqr = pdt_cpu_qr_orgqr,
    .sort = pdt_cpu_sort,
    .cumsum = pdt_cpu_cumsum,
    .nonzero = pdt_cpu_nonzero,
    .compress = pdt_cpu_compress,
    .softmax = pdt_cpu_softmax,
    .classify = pdt_cpu_classify,
    .topk = pdt_cpu_topk,
    .search = pdt_cpu_search,
    .cumextreme = pdt_cpu_cumextreme,
    .cumprod = pdt_cpu_cumprod,
    .repeat_positions = pdt_cpu_repeat_positions,
    .bincount = pdt_cpu_bincount,
    .count_nonzero = pdt_cpu_count_nonzero,
    .select = pdt_cpu_select,
    .im2col = pdt_cpu_im2col,
    .col2im = pdt_cpu_col2im,
    .conv2d = pdt_cpu_conv2d,
    .conv2d_grad_weight = pdt_cpu_conv2d_grad_weight,
    .rnn_cell = pdt_cpu_rnn_cell,
    .rnn_cell_backward = pdt_cpu_rnn_cell_backward,
    .describe = pdt_cpu_blas_describe,
    .prepare_gemm = cpu_prepare_gemm,
    .libraries = cpu_libraries,
    .set_num_threads = cpu_set_num_threads,
    .set_flush_denormal = pdt_cpu_set_flush_denormal,
    .num_threads = pdt_cpu_threads,
    .simd_level = cpu_simd_level,
    .set_simd_level = cpu_set_simd_level,
};
