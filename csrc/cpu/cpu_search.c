/* cpu_search.c - searchsorted and isin by binary search of each sorted row.
 *
 * Note [searching sorted rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Composed, searchsorted sorted each row of the sequence and the values together
 * twice (a stable argsort, a cumsum and its inverse permutation) and isin added a
 * gather and a compare: 1e5 int64 values in 100 took 2.9 ms, NumPy's searchsorted
 * 0.5 and isin 0.25.  Here each value's position is the number of entries of its row
 * that sort before it (side "left") or not after it ("right"), in the sort's order
 * (cpu_sort_keys.h: NaN the largest, -0.0 equal to 0.0), by a binary search without
 * branches (the half kept is a select: the step count is ceil(log2 m) whatever the
 * data, and an unsorted sequence gives some position within [0, m], never a read
 * outside the row), eight values at a time.  isin is a value equal to the entry at its
 * left position, NaN excluded (NaN matches nothing).  For integer rows whose values
 * span a small range the member test reads a byte table instead (one load per value).
 *
 * Note [the search's comparisons]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * For a value that is not NaN, the sort's order of an entry against it is the plain
 * comparison's: an entry NaN is neither < nor <= it (NaN sorts last), -0.0 and 0.0 are
 * equal either way, and integers compare as integers.  So the search compares entries
 * and values as they are, and only a batch holding a NaN value makes the sort's keys
 * (as each is read: a NaN value goes after every entry but NaN ones, "right" after all).
 * The keys were made for every search, first for the whole row when there were more
 * than m / 8 values (m keys, a scalar loop with a switch), else as read: float32, 1e5
 * entries and 3,000 values took 97 us, now 46 (NumPy's 68); 100 values in 1,000 2.3 us,
 * now 0.84 with the call below (2.1). */
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
} search_job;

static inline uint64_t key_at(const char *p, int64_t i, pdt_dtype dt)
{
    switch (dt) {
    case PDT_FLOAT32: return key_f32(((const float *)p)[i], 0);
    case PDT_FLOAT64: return key_f64(((const double *)p)[i], 0);
    case PDT_INT32: return key_i32(((const int32_t *)p)[i], 0);
    default: return key_i64(((const int64_t *)p)[i], 0);
    }
}

static inline int is_nan_at(const char *p, int64_t i, pdt_dtype dt)
{
    if (dt == PDT_FLOAT32)
        return ((const float *)p)[i] != ((const float *)p)[i];
    if (dt == PDT_FLOAT64)
        return ((const double *)p)[i] != ((const double *)p)[i];
    return 0;
}

#define BATCH 8 /* searches interleaved: their loads overlap instead of waiting in turn */

/* at[q] moved to the last of the entries at [at[q], at[q] + len) that goes before key[q]
 * (OP: < for the left side, <= for the right), for every q < BATCH in step: a select
 * (cmov), not a branch, since the outcome is random.  KEY(e): entry e, or its key.  (The
 * select is 3 instructions a step; a mask made from the compare, 5 for signed and float
 * compares: int64, 1e4 values in 1,000 entries, 60 -> 46 us.) */
#define NARROW(OP, KEY)                                                                            \
    for (int64_t len = m; len > 1;) {                                                              \
        int64_t half = len / 2;                                                                    \
        for (int q = 0; q < BATCH; q++)                                                            \
            at[q] = KEY(at[q] + half - 1) OP key[q] ? at[q] + half : at[q];                        \
        len -= half;                                                                               \
    }                                                                                              \
    for (int q = 0; q < BATCH; q++)                                                                \
        at[q] += KEY(at[q]) OP key[q];

/* The position (Note [searching sorted rows]) of values[i .. i + cnt), cnt <= BATCH, in
 * the row of m >= 1 entries of type T at s, ascending, or whether each is there
 * (PDT_SEARCH_MEMBER), into out: the entries and values compared as they are (the keys'
 * order, Note [the search's comparisons]), NaN values by their keys. */
#define SEARCH_BATCH(NAME, T, IS_NAN)                                                              \
    static void NAME(const search_job *j, const char *s, int64_t m, int64_t i, int cnt)            \
    {                                                                                              \
        const T *row = (const T *)s, *vs = (const T *)j->values + i;                               \
        T key[BATCH];                                                                              \
        int64_t at[BATCH];                                                                         \
        int nan = 0;                                                                               \
        for (int q = 0; q < BATCH; q++) { /* a short batch repeats its first value */              \
            key[q] = vs[q < cnt ? q : 0], at[q] = 0;                                               \
            nan |= IS_NAN(key[q]);                                                                 \
        }                                                                                          \
        if (nan) {                                                                                 \
            search_keyed(j, s, m, i, cnt);                                                         \
            return;                                                                                \
        }                                                                                          \
        if (j->mode == PDT_SEARCH_RIGHT) {                                                         \
            NARROW(<=, ENTRY)                                                                      \
        } else {                                                                                   \
            NARROW(<, ENTRY)                                                                       \
        }                                                                                          \
        for (int q = 0; q < cnt; q++) {                                                            \
            if (j->mode == PDT_SEARCH_MEMBER)                                                      \
                ((uint8_t *)j->out)[i + q] = (uint8_t)(at[q] < m && row[at[q]] == key[q]);         \
            else                                                                                   \
                ((int64_t *)j->out)[i + q] = at[q];                                                \
        }                                                                                          \
    }
#define ENTRY(e) row[e]
#define FLOAT_NAN(v) ((v) != (v))
#define NEVER_NAN(v) 0

/* search_batch's values of which one is NaN, by the sort's keys (cpu_sort_keys.h: NaN the
 * largest, all NaN equal, and NaN a member of nothing), each made as it is read */
static void search_keyed(const search_job *j, const char *s, int64_t m, int64_t i, int cnt)
{
    uint64_t key[BATCH];
    int64_t at[BATCH];
    const pdt_dtype dt = j->dtype;
    for (int q = 0; q < BATCH; q++)
        key[q] = key_at(j->values, i + (q < cnt ? q : 0), dt), at[q] = 0;
#define MADE(e) key_at(s, e, dt)
    if (j->mode == PDT_SEARCH_RIGHT) {
        NARROW(<=, MADE)
    } else {
        NARROW(<, MADE)
    }
    for (int q = 0; q < cnt; q++) {
        if (j->mode == PDT_SEARCH_MEMBER)
            ((uint8_t *)j->out)[i + q] = (uint8_t)(at[q] < m && MADE(at[q]) == key[q] &&
                                                   !is_nan_at(j->values, i + q, dt));
        else
            ((int64_t *)j->out)[i + q] = at[q];
    }
#undef MADE
}

SEARCH_BATCH(search_f32, float, FLOAT_NAN)
SEARCH_BATCH(search_f64, double, FLOAT_NAN)
SEARCH_BATCH(search_i32, int32_t, NEVER_NAN)
SEARCH_BATCH(search_i64, int64_t, NEVER_NAN)

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
    void (*batch)(const search_job *, const char *, int64_t, int64_t,
                  int) = j->dtype == PDT_FLOAT32   ? search_f32
                         : j->dtype == PDT_FLOAT64 ? search_f64
                         : j->dtype == PDT_INT32   ? search_i32
                                                   : search_i64;
    for (int64_t i = begin; i < end;) {
        int64_t r = j->seq_rows == 1 ? 0 : i / j->k;
        int64_t stop = j->seq_rows == 1 || (r + 1) * j->k > end ? end : (r + 1) * j->k;
        const char *s = j->seq + r * j->m * es;
        for (; j->m == 0 && i < stop; i++) { /* an empty row: position 0, never found */
            if (j->mode == PDT_SEARCH_MEMBER)
                ((uint8_t *)j->out)[i] = 0;
            else
                ((int64_t *)j->out)[i] = 0;
        }
        while (i < stop) {
            int cnt = stop - i < BATCH ? (int)(stop - i) : BATCH;
            batch(j, s, j->m, i, cnt);
            i += cnt;
        }
    }
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
    pdt_cpu_parallel_for(n, SEARCH_GRAIN, search_range, &j);
    free(table);
    return PDT_OK;
}
