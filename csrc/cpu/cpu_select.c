/* cpu_select.c - the element at a given position of each row's stable sort (kthvalue,
 * median, nanmedian) without sorting the row.
 *
 * Note [selection in sort order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The order statistics sorted every row (cpu_sort.c's stable radix sort) and took one
 * position: 100 rows of 1000 float32 took 0.86 ms for kthvalue, NumPy's partition 0.51.
 * Here each element becomes its key, the sort's (cpu_sort_keys.h: NaN the largest,
 * -0.0 equal to 0.0), and the element of rank p is found by radix selection: a count
 * of the keys' top byte finds the byte of the answer and how many keys lie below it,
 * the keys with that byte are kept (in index order) and p less those below is looked
 * for among them by the next byte, and so on down to the last byte, where the keys
 * left are all equal and the stable sort orders them by index: the answer is the p-th
 * kept.  No comparison branches (a quickselect mispredicted about half its compares:
 * 10 us a row of 1000 float32 here), at most 4 rounds for 32-bit keys and 8 for 64,
 * each over the keys left from the one before: O(n) whatever the values.  The position
 * is kthvalue's k, or median's and nanmedian's, which need the row's NaN count: it is
 * taken while the keys are made, so one call gives the values and indices (it was a
 * composition of ten ops in Python: 12 us for a row of 10). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_sort_keys.h"

#define SELECT_GRAIN 32768 /* elements a thread takes at least */

/* The position rule takes in a row of n with nans NaN (pdt_backend.select). */
static int64_t rule_position(int rule, int64_t k, int64_t n, int64_t nans)
{
    if (rule == PDT_SELECT_KTH)
        return k;
    if (rule == PDT_SELECT_MEDIAN)
        return nans ? n - nans : (n - 1) / 2;
    return n > nans ? (n - nans - 1) / 2 : 0;
}

/* Rows of at least this many count their bytes in four tables, one a lane of four
 * elements, so that a run of equal bytes does not wait on one counter's store; shorter
 * ones in one (clearing and summing four tables cost more than they save there: a row of
 * 100 took 0.43 us with four) */
#define TABLES_FROM 1024
#define TABLES(n) ((n) >= TABLES_FROM ? 4 : 1)

/* How many keys have byte b, by the nt tables of count */
static int64_t bucket(int64_t count[4][256], int nt, int b)
{
    int64_t c = count[0][b];
    for (int l = 1; l < nt; l++)
        c += count[l][b];
    return c;
}

/* The byte b of the key of rank *p given the nt tables of count, less the keys below b
 * from *p. */
static int rank_byte(int64_t count[4][256], int nt, int64_t *p)
{
    int b = 0;
    for (;; b++) {
        const int64_t c = bucket(count, nt, b);
        if (*p < c)
            return b;
        *p -= c;
    }
}

/* Counts of BYTE(i) for i in [0, m) into the nt tables of count (cleared by the caller) */
#define COUNT_BYTES(count, nt, m, BYTE)                                                            \
    do {                                                                                           \
        int64_t i_ = 0;                                                                            \
        if ((nt) == 4)                                                                             \
            for (; i_ + 4 <= (m); i_ += 4)                                                         \
                for (int l_ = 0; l_ < 4; l_++)                                                     \
                    (count)[l_][BYTE(i_ + l_)]++;                                                  \
        for (; i_ < (m); i_++)                                                                     \
            (count)[0][BYTE(i_)]++;                                                                \
    } while (0)

/* The index of the key of rank p (ties by index) among key[0 .. n) (n >= 1) at indices
 * at[0 .. n) ascending, whose bytes above `shift + 8` are all equal: reorders key and
 * at. */
static int64_t radix_select(uint64_t *key, int64_t *at, int64_t n, int64_t p, int shift)
{
    for (; shift >= 0 && n > 1; shift -= 8) {
        int64_t count[4][256];
        const int nt = TABLES(n);
        memset(count, 0, (size_t)nt * sizeof count[0]);
#define KEY_BYTE(i) ((key[i] >> shift) & 255)
        COUNT_BYTES(count, nt, n, KEY_BYTE);
#undef KEY_BYTE
        const int byte = rank_byte(count, nt, &p);
        if (bucket(count, nt, byte) == n)
            continue; /* every key has that byte: nothing to drop */
        const uint64_t b = (uint64_t)byte;
        int64_t kept = 0;
        for (int64_t i = 0; i < n; i++) { /* those with that byte, in order, in place */
            const uint64_t k = key[i];
            key[kept] = k;
            at[kept] = at[i];
            kept += ((k >> shift) & 255) == b;
        }
        n = kept;
    }
    return at[p]; /* one key left (p 0), or equal keys in index order */
}

/* Note [short rows in selection]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each round of the radix selection clears and scans a table of 256 counts, which a
 * short row does not repay: kthvalue of 10,000 rows of 10 float32 took 2.0 ms (220 ns a
 * row, int64 850), where NumPy's partition takes 0.27.  A row of SELECT_SHORT or fewer
 * makes its keys once, and when their range fits in 32 bits (always for float32 and
 * int32) packs each, less the smallest, above its index and sorts them (Note [short rows
 * as packed keys] in cpu_sort_packed.c): the p-th is the answer, ties in index order.
 * Wider keys in a row of RANK_SHORT or fewer are ranked by counting, (key, index)
 * compared with every other; the rest go to the radix selection.  One thread, a row of
 * 10 (NumPy's partition in brackets): float32 220 -> 44 ns (26), int64 850 -> 40 (29),
 * float64 275 -> 92 (31); of 64: float32 390 -> 276 (98), float64 618 -> 684 (120), the
 * radix selection's either way, measured with another process busy. */
#define SELECT_SHORT 64
#define RANK_SHORT 16

/* The index of the key of rank p (ties by index) among key[0 .. n), 1 <= n <=
 * SELECT_SHORT, p < n; -1 when the radix selection is to find it. */
static int64_t select_short(const uint64_t *key, int64_t n, int64_t p)
{
    uint64_t lo = key[0], hi = key[0];
    for (int64_t i = 1; i < n; i++) {
        lo = key[i] < lo ? key[i] : lo;
        hi = key[i] > hi ? key[i] : hi;
    }
    if (hi - lo <= 0xffffffffu) {
        uint64_t a[SELECT_SHORT], tmp[SELECT_SHORT];
        for (int64_t i = 0; i < n; i++)
            a[i] = (key[i] - lo) << 32 | (uint64_t)i;
        pdt_cpu_sort_packed(a, tmp, n);
        return (int64_t)(a[p] & 0xffffffffu);
    }
    if (n > RANK_SHORT)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t rank = 0; /* (without a branch: `||` made it one, 335 ns a row of 16) */
        for (int64_t j = 0; j < n; j++)
            rank += (key[j] < key[i]) | ((key[j] == key[i]) & (j < i));
        if (rank == p)
            return i;
    }
    return -1; /* not reached: the ranks are 0 .. n - 1 */
}

/* The keys kept after the first round, and their indices; grown as rows need. */
typedef struct select_buf {
    uint64_t *key;
    int64_t *at;
    int64_t cap;
} select_buf;

/* Room for n keys and indices in buf; 0 when out of memory. */
static int reserve(select_buf *buf, int64_t n)
{
    if (n <= buf->cap)
        return 1;
    uint64_t *key = realloc(buf->key, (size_t)n * sizeof *key);
    if (key)
        buf->key = key;
    int64_t *at = realloc(buf->at, (size_t)n * sizeof *at);
    if (at)
        buf->at = at;
    if (!key || !at)
        return 0;
    buf->cap = n;
    return 1;
}

#define BLOCK 256 /* keys made at a time, on the stack */

/* The first round straight from the row x (n elements of T, keys of type KT by KEY, BITS
 * bits; NAN(v) says whether v is NaN): the keys' top bytes counted a block at a time
 * (and the NaN), the position taken (rule_position), then the keys with the answer's top
 * byte and their indices kept in buf, and the rest to radix_select; -1 when out of
 * memory.  The keys are made twice but stored for the kept ones only, about n / 256 on
 * random data, and a block where none is kept is skipped after one test.  Making a
 * block's keys is a loop without branches (vectorised); the counts as TABLES says. */
/* Note [a row written while it is read]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The row is read twice (its keys made twice) with the GIL released, and another
 * Python thread may write to it in between: the second pass may then find more keys with
 * the answer's top byte than the first counted (room), or fewer than the position needs.
 * It keeps at most room (the buffer holds room + 1) and, with too few, answers the last
 * kept (or index 0): the result of a racing write is some element of the row, never a
 * read or write out of bounds.  A block that could overflow takes the bounded loop; the
 * others run as before.  (Found by review: a writer thread alternating the row between
 * two contents crashed kthvalue of 4M float32; tests/test_threads.py.) */
#define KB_AT(i) kb[i]
#define SELECT_ROW(NAME, T, KT, KEY, NAN, BITS)                                                    \
    static int64_t NAME(const T *x, int64_t n, int rule, int64_t k, select_buf *buf)               \
    {                                                                                              \
        int64_t count[4][256], nans = 0;                                                           \
        if (n <= SELECT_SHORT) { /* Note [short rows in selection]: each element read once */      \
            uint64_t sk[SELECT_SHORT];                                                             \
            for (int64_t i = 0; i < n; i++) {                                                      \
                sk[i] = KEY(x[i], 0);                                                              \
                nans += NAN(x[i]);                                                                 \
            }                                                                                      \
            const int64_t at = select_short(sk, n, rule_position(rule, k, n, nans));               \
            if (at >= 0)                                                                           \
                return at;                                                                         \
            nans = 0;                                                                              \
        }                                                                                          \
        KT kb[BLOCK];                                                                              \
        const int nt = TABLES(n);                                                                  \
        memset(count, 0, (size_t)nt * sizeof count[0]);                                            \
        for (int64_t s = 0; s < n; s += BLOCK) {                                                   \
            const int64_t m = n - s < BLOCK ? n - s : BLOCK;                                       \
            for (int64_t i = 0; i < m; i++) {                                                      \
                kb[i] = KEY(x[s + i], 0) >> (BITS - 8);                                            \
                nans += NAN(x[s + i]);                                                             \
            }                                                                                      \
            COUNT_BYTES(count, nt, m, KB_AT);                                                      \
        }                                                                                          \
        int64_t p = rule_position(rule, k, n, nans);                                               \
        const int byte = rank_byte(count, nt, &p);                                                 \
        const KT b = (KT)byte;                                                                     \
        /* one more: the compaction writes at kept before it knows whether to keep */              \
        const int64_t room = bucket(count, nt, byte);                                              \
        if (!reserve(buf, room + 1))                                                               \
            return -1;                                                                             \
        uint64_t *key = buf->key;                                                                  \
        int64_t *at = buf->at, kept = 0;                                                           \
        for (int64_t s = 0; s < n; s += BLOCK) {                                                   \
            const int64_t m = n - s < BLOCK ? n - s : BLOCK;                                       \
            KT any = 0;                                                                            \
            for (int64_t i = 0; i < m; i++) {                                                      \
                kb[i] = KEY(x[s + i], 0);                                                          \
                any |= (KT)((kb[i] >> (BITS - 8)) == b);                                           \
            }                                                                                      \
            if (!any)                                                                              \
                continue;                                                                          \
            if (kept + m <= room) {                                                                \
                for (int64_t i = 0; i < m; i++) {                                                  \
                    key[kept] = kb[i];                                                             \
                    at[kept] = s + i;                                                              \
                    kept += (kb[i] >> (BITS - 8)) == b;                                            \
                }                                                                                  \
            } else { /* Note [a row written while it is read] */                                   \
                for (int64_t i = 0; i < m; i++) {                                                  \
                    key[kept] = kb[i];                                                             \
                    at[kept] = s + i;                                                              \
                    kept += ((kb[i] >> (BITS - 8)) == b) & (kept < room);                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (p >= kept) /* Note [a row written while it is read] */                                 \
            return kept ? at[kept - 1] : 0;                                                        \
        return radix_select(key, at, kept, p, BITS - 16);                                          \
    }

typedef struct select_job {
    const char *x;
    char *values;
    int64_t *out;
    int64_t n, k;
    pdt_dtype dtype;
    int rule, oom;
} select_job;

#define IS_NAN(v) ((v) != (v))
#define NO_NAN(v) 0
SELECT_ROW(select_f32, float, uint32_t, key_f32, IS_NAN, 32)
SELECT_ROW(select_f64, double, uint64_t, key_f64, IS_NAN, 64)
SELECT_ROW(select_i32, int32_t, uint32_t, key_i32, NO_NAN, 32)
SELECT_ROW(select_i64, int64_t, uint64_t, key_i64, NO_NAN, 64)

static void select_range(int64_t begin, int64_t end, void *ctx)
{
    select_job *j = ctx;
    const int64_t n = j->n, es = (int64_t)pdt_dtype_size(j->dtype);
    select_buf buf = {NULL, NULL, 0};
    for (int64_t r = begin; r < end; r++) {
        const char *x = j->x + r * n * es;
        int64_t i;
        switch (j->dtype) {
        case PDT_FLOAT32: i = select_f32((const float *)x, n, j->rule, j->k, &buf); break;
        case PDT_FLOAT64: i = select_f64((const double *)x, n, j->rule, j->k, &buf); break;
        case PDT_INT32: i = select_i32((const int32_t *)x, n, j->rule, j->k, &buf); break;
        default: i = select_i64((const int64_t *)x, n, j->rule, j->k, &buf); break;
        }
        if (i < 0) {
            __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
            break;
        }
        j->out[r] = i;
        memcpy(j->values + r * es, x + i * es, (size_t)es);
    }
    free(buf.key), free(buf.at);
}

pdt_status pdt_cpu_select(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                          int rule, int64_t k)
{
    if (x->dtype != PDT_FLOAT32 && x->dtype != PDT_FLOAT64 && x->dtype != PDT_INT32 &&
        x->dtype != PDT_INT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "kthvalue: no selection kernel for %s on the CPU",
                        pdt_dtype_name(x->dtype));
    const int64_t n = x->shape[x->ndim - 1];
    select_job j = {.x = pdt_tensor_ptr(x),
                    .values = pdt_tensor_ptr(values),
                    .out = (int64_t *)pdt_tensor_ptr(indices),
                    .n = n,
                    .k = k,
                    .dtype = x->dtype,
                    .rule = rule};
    const int64_t rows = pdt_tensor_numel(x) / n;
    pdt_cpu_parallel_for(rows, n >= SELECT_GRAIN ? 1 : SELECT_GRAIN / n, select_range, &j);
    if (j.oom)
        return pdt_fail(PDT_ERR_OOM, "out of memory: kthvalue's %lld keys on the CPU",
                        (long long)n);
    return PDT_OK;
}
