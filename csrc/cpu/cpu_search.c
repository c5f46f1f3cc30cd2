/* cpu_search.c - searchsorted and isin by binary search of each row's sorted keys.
 *
 * Note [searching sorted rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Composed, searchsorted sorted each row of the sequence and the values together
 * twice (a stable argsort, a cumsum and its inverse permutation) and isin added a
 * gather and a compare: 1e5 int64 values in 100 took 2.9 ms, NumPy's searchsorted
 * 0.5 and isin 0.25.  Here each row of the sequence becomes the sort's keys
 * (cpu_sort_keys.h: NaN the largest, -0.0 equal to 0.0, as the sort orders them),
 * and each value's position is the number of keys below its own (side "left") or
 * not above it ("right"), by a binary search without branches (the half kept is a
 * select: the step count is ceil(log2 m) whatever the data, and an unsorted sequence
 * gives some position within [0, m], never a read outside the row).  isin is a value
 * whose key equals the key at its left position, NaN excluded (NaN matches nothing).
 * For integer rows whose values span a small range the member test reads a byte table
 * instead (one load per value). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_sort_keys.h"

#define SEARCH_GRAIN 16384            /* values a thread takes at least */
#define TABLE_MAX ((uint64_t)1 << 22) /* the byte table's largest span */

typedef struct search_job {
    const char *seq, *values;
    char *out;
    int64_t seq_rows, m, k;
    pdt_dtype dtype;
    int mode;
    const uint8_t *table; /* isin of one integer row: table[key - lo], keys lo..hi */
    uint64_t lo, span;
    const uint64_t *shared; /* the keys of the one row, or NULL */
    int raw;                /* make each key as the search reads it (few values a row) */
    int oom;
} search_job;

static uint64_t key_at(const char *p, int64_t i, pdt_dtype dt)
{
    switch (dt) {
    case PDT_FLOAT32: return key_f32(((const float *)p)[i], 0);
    case PDT_FLOAT64: return key_f64(((const double *)p)[i], 0);
    case PDT_INT32: return key_i32(((const int32_t *)p)[i], 0);
    default: return key_i64(((const int64_t *)p)[i], 0);
    }
}

static int is_nan_at(const char *p, int64_t i, pdt_dtype dt)
{
    if (dt == PDT_FLOAT32)
        return ((const float *)p)[i] != ((const float *)p)[i];
    if (dt == PDT_FLOAT64)
        return ((const double *)p)[i] != ((const double *)p)[i];
    return 0;
}

#define BATCH 8 /* searches interleaved: their loads overlap instead of waiting in turn */

/* at[q] moved to the last of the keys at [at[q], at[q] + len) that goes before key[q]
 * (OP: < for the left side, <= for the right), for every q < BATCH in step: a mask, not
 * a branch, since the outcome is random.  KEY(e): the key of entry e. */
#define NARROW(OP, KEY)                                                                            \
    for (int64_t len = m; len > 1;) {                                                              \
        int64_t half = len / 2;                                                                    \
        for (int q = 0; q < BATCH; q++)                                                            \
            at[q] += half & -(int64_t)(KEY(at[q] + half - 1) OP key[q]);                           \
        len -= half;                                                                               \
    }                                                                                              \
    for (int q = 0; q < BATCH; q++)                                                                \
        at[q] += KEY(at[q]) OP key[q];

/* The position (Note [searching sorted rows]) of values[i .. i + cnt), cnt <= BATCH, in
 * the row of m >= 1 entries at s, ascending, or whether each is there (PDT_SEARCH_MEMBER),
 * into out.  keys: the row's keys, or NULL to make each as it is read (a few values in a
 * long row, where making all the keys first would cost more than the searches). */
static void search_batch(const search_job *j, const char *s, const uint64_t *keys, int64_t m,
                         int64_t i, int cnt)
{
    uint64_t key[BATCH];
    int64_t at[BATCH];
    const pdt_dtype dt = j->dtype;
    for (int q = 0; q < BATCH; q++) /* a short batch repeats its first value */
        key[q] = key_at(j->values, i + (q < cnt ? q : 0), dt), at[q] = 0;
#define KEPT(e) keys[e]
#define MADE(e) key_at(s, e, dt)
    if (keys && j->mode == PDT_SEARCH_RIGHT) {
        NARROW(<=, KEPT)
    } else if (keys) {
        NARROW(<, KEPT)
    } else if (j->mode == PDT_SEARCH_RIGHT) {
        NARROW(<=, MADE)
    } else {
        NARROW(<, MADE)
    }
    for (int q = 0; q < cnt; q++) {
        if (j->mode == PDT_SEARCH_MEMBER)
            ((uint8_t *)j->out)[i + q] = (uint8_t)(at[q] < m &&
                                                   (keys ? KEPT(at[q]) : MADE(at[q])) == key[q] &&
                                                   !is_nan_at(j->values, i + q, dt));
        else
            ((int64_t *)j->out)[i + q] = at[q];
    }
#undef KEPT
#undef MADE
}

static void search_range(int64_t begin, int64_t end, void *ctx)
{
    search_job *j = ctx;
    const int64_t es = (int64_t)pdt_dtype_size(j->dtype);
    if (j->table) {
        for (int64_t i = begin; i < end; i++) {
            uint64_t d = key_at(j->values, i, j->dtype) - j->lo;
            ((uint8_t *)j->out)[i] = (uint8_t)(d < j->span && j->table[d]);
        }
        return;
    }
    /* the keys: the one row's, made before the threads; a row at a time, here; or none */
    uint64_t *own = NULL;
    const uint64_t *keys = j->shared;
    if (!keys && !j->raw && j->m > 0) {
        own = malloc(sizeof(uint64_t) * (size_t)j->m);
        if (!own) {
            __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
            return;
        }
        keys = own;
    }
    int64_t row = -1;
    for (int64_t i = begin; i < end;) {
        int64_t r = j->seq_rows == 1 ? 0 : i / j->k;
        int64_t stop = j->seq_rows == 1 || (r + 1) * j->k > end ? end : (r + 1) * j->k;
        const char *s = j->seq + r * j->m * es;
        if (own && r != row) { /* the keys of this row of the sequence */
            for (int64_t q = 0; q < j->m; q++)
                own[q] = key_at(s, q, j->dtype);
            row = r;
        }
        for (; j->m == 0 && i < stop; i++) { /* an empty row: position 0, never found */
            if (j->mode == PDT_SEARCH_MEMBER)
                ((uint8_t *)j->out)[i] = 0;
            else
                ((int64_t *)j->out)[i] = 0;
        }
        while (i < stop) {
            int cnt = stop - i < BATCH ? (int)(stop - i) : BATCH;
            search_batch(j, s, keys, j->m, i, cnt);
            i += cnt;
        }
    }
    free(own);
}

pdt_status pdt_cpu_search(const pdt_tensor *out, const pdt_tensor *seq, const pdt_tensor *values,
                          int mode)
{
    pdt_dtype dt = seq->dtype;
    if (dt != PDT_FLOAT32 && dt != PDT_FLOAT64 && dt != PDT_INT32 && dt != PDT_INT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "searchsorted: no kernel for %s on the CPU",
                        pdt_dtype_name(dt));
    search_job j = {.seq = pdt_tensor_ptr(seq),
                    .values = pdt_tensor_ptr(values),
                    .out = pdt_tensor_ptr(out),
                    .seq_rows = seq->shape[0],
                    .m = seq->shape[1],
                    .k = values->shape[1],
                    .dtype = dt,
                    .mode = mode};
    const int64_t n = pdt_tensor_numel(values);
    uint8_t *table = NULL;
    if (mode == PDT_SEARCH_MEMBER && j.seq_rows == 1 && j.m > 0 &&
        (dt == PDT_INT32 || dt == PDT_INT64)) {
        /* the keys of integers are the values' order, so a sorted row spans
         * [key(first), key(last)] */
        uint64_t lo = key_at(j.seq, 0, dt), hi = key_at(j.seq, j.m - 1, dt);
        if (lo <= hi && hi - lo < TABLE_MAX && hi - lo <= (uint64_t)(4 * (n + j.m))) {
            table = calloc((size_t)(hi - lo + 1), 1);
            if (!table)
                return pdt_fail(PDT_ERR_OOM, "out of memory: isin's table of %llu bytes on the CPU",
                                (unsigned long long)(hi - lo + 1));
            for (int64_t q = 0; q < j.m; q++) {
                uint64_t d = key_at(j.seq, q, dt) - lo;
                if (d <= hi - lo) /* an unsorted row may hold keys outside [lo, hi] */
                    table[d] = 1;
            }
            j.table = table, j.lo = lo, j.span = hi - lo + 1;
        }
    }
    /* keys made first cost m a row; made as read, 8 log2(m) a value at most */
    j.raw = (j.seq_rows == 1 ? n : j.k) * 8 < j.m;
    uint64_t *shared = NULL;
    if (!table && !j.raw && j.seq_rows == 1 && j.m > 0) {
        shared = malloc(sizeof(uint64_t) * (size_t)j.m);
        if (!shared)
            j.oom = 1;
        for (int64_t q = 0; shared && q < j.m; q++)
            shared[q] = key_at(j.seq, q, dt);
        j.shared = shared;
    }
    if (!j.oom)
        pdt_cpu_parallel_for(n, SEARCH_GRAIN, search_range, &j);
    free(table);
    free(shared);
    if (j.oom)
        return pdt_fail(PDT_ERR_OOM, "out of memory: %s's %lld keys on the CPU",
                        mode == PDT_SEARCH_MEMBER ? "isin" : "searchsorted", (long long)j.m);
    return PDT_OK;
}
