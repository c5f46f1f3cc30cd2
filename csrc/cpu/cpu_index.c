/* cpu_index.c - the CPU backend's index_select, index_put and cumsum (where:
 * cpu_where.c; sort: cpu_sort.c); pdt_backend.h states each contract, the core
 * validated the inputs.  Strided operands are walked with a cursor (cpu_cursor.h). */
#include <stdlib.h>
#include <string.h>

#include "cpu_cursor.h"
#include "cpu_index_in.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define GRAIN 32768

/* ------------------------------------------------ index_select / index_put */

/* The element offset in `t` of multi-index idx, with idx[dim] replaced by the
 * (wrapped) index value. */
static inline int64_t offset_with(const pdt_tensor *t, const int64_t *idx, int dim, int64_t at)
{
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++)
        off += (d == dim ? at : idx[d]) * t->strides[d];
    return off;
}

/* Note [the index read once]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The core checks an index's values (pdt_index_check) before the kernel runs,
 * but the index's storage is shared: another Python thread may write to it
 * between the check and the kernel, or while the kernel runs with the GIL
 * released (holding the storage keeps it alive, not unchanged).  So the kernels
 * copy the index once into a buffer of their own, then wrap and check the copy,
 * before they read or write anything through it: a value changed under them
 * gives an IndexError, never an access out of bounds.  The copy and the check
 * cost a pass over the indices (the wrap took one before).  index_select reads
 * each index once where it uses it instead, wrapping and checking that value
 * (an index out of bounds reads element 0 and fails the op), which saves the copy
 * and its pass: a 1-d take of 1e5 float32 by 1e5 indices 175 -> 108 us (NumPy 79-104). */
#define OWN_INDEX_LOCAL 64

typedef struct own_index {
    int64_t *v;
    int64_t local[OWN_INDEX_LOCAL];
} own_index;

static void own_index_free(own_index *o)
{
    if (o->v != o->local)
        free(o->v);
}

/* The error of an index another thread wrote out of range after the core's check (Note
 * [the index read once], Note [the index read where it is used]): was, as read. */
static pdt_status racing_index(const char *op, int64_t was, int64_t size)
{
    return pdt_fail(PDT_ERR_INDEX,
                    "%s: index %lld is out of bounds for size %lld (on cpu): the index tensor "
                    "was written to while the op used it",
                    op, (long long)was, (long long)size);
}

static pdt_status own_index_read(own_index *o, const char *op, const pdt_tensor *index,
                                 int64_t size)
{
    const int64_t n = index->shape[0];
    const int64_t *ix = (const int64_t *)pdt_tensor_ptr(index);
    o->v = n <= OWN_INDEX_LOCAL ? o->local : malloc((size_t)n * sizeof *o->v);
    if (!o->v)
        return pdt_fail(PDT_ERR_OOM, "%s: out of memory for a copy of %lld indices on the CPU", op,
                        (long long)n);
    /* one copy (a racing write may tear a value, but the copy is ours), then the
     * wrap and the check on the copy: a loop the compiler vectorises */
    if (n) /* an empty index's data may be NULL */
        memcpy(o->v, ix, (size_t)n * sizeof *o->v);
    int64_t bad = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t v = wrap(o->v[r], size);
        bad |= (int64_t)((uint64_t)v >= (uint64_t)size);
        o->v[r] = v;
    }
    if (!bad)
        return PDT_OK;
    int64_t r = 0;
    while ((uint64_t)o->v[r] < (uint64_t)size)
        r++;
    const int64_t was = o->v[r] < 0 ? o->v[r] - size : o->v[r]; /* unwrapped */
    own_index_free(o);
    return racing_index(op, was, size);
}

/* index_select's walk: out (row-major) as rows of its last dim, each row cut into
 * pieces of at most GRAIN elements (a 1-d take is one row); the work items are the
 * pieces, row by row.  A row's source elements start at `from` and lie `step`
 * elements apart (the last dim is not dim), or sit at from + ix[q] * step (it
 * is: a take, a column gather).  ix is the caller's index, each value read once,
 * wrapped and checked where it is used (Note [the index read once]); a value out of
 * [0, size) reads element 0 and sets bad. */
typedef struct isel_job {
    const pdt_tensor *out, *src;
    const int64_t *ix;
    int64_t size; /* src's size along dim */
    int dim, last;
    int64_t len, pieces; /* out's last dim; pieces a row */
    size_t es;
    int bad;
} isel_job;

#define ISEL_PIECE(T, TAKE)                                                                        \
    do {                                                                                           \
        const T *f = (const T *)from;                                                              \
        T *t = (T *)to;                                                                            \
        if (pick && step == 1) /* Note [the take's checks in vectors] in cpu_vtake.h */            \
            bad |= pdt_cpu_simd()->TAKE(t + q0, f, ix + q0, q1 - q0, size);                        \
        else if (pick)                                                                             \
            for (int64_t q = q0; q < q1; q++)                                                      \
                t[q] = f[index_in(READ_ONCE(&ix[q]), size, &bad) * step];                          \
        else if (step == 1) /* memcpy: twice as fast on rows of 64 float32 here */                 \
            memcpy(t + q0, f + q0, (size_t)(q1 - q0) * sizeof(T));                                 \
        else                                                                                       \
            for (int64_t q = q0; q < q1; q++)                                                      \
                t[q] = f[q * step];                                                                \
    } while (0)

static void isel_range(int64_t begin, int64_t end, void *ctx)
{
    isel_job *j = ctx;
    const pdt_tensor *src = j->src;
    const int last = j->last, pick = last == j->dim;
    /* in locals: a uint8_t store could alias *j and reload them every element */
    const int64_t *const ix = j->ix;
    const int64_t len = j->len, step = src->strides[last], size = j->size;
    int64_t bad = 0;
    int64_t idx[PDT_MAX_DIMS], row = begin / j->pieces, piece = begin % j->pieces, r = row;
    for (int d = last - 1; d >= 0; d--) { /* the first row's index over dims [0, last) */
        idx[d] = r % j->out->shape[d];
        r /= j->out->shape[d];
    }
    for (int64_t item = begin; item < end;) {
        int64_t off = 0;
        for (int d = 0; d < last; d++)
            off += (d == j->dim ? index_in(READ_ONCE(&ix[idx[d]]), size, &bad) : idx[d]) *
                   src->strides[d];
        const char *from = pdt_tensor_ptr(src) + off * (int64_t)j->es;
        char *to = pdt_tensor_ptr(j->out) + row * len * (int64_t)j->es;
        for (; piece < j->pieces && item < end; piece++, item++) {
            const int64_t q0 = piece * GRAIN, q1 = q0 + GRAIN < len ? q0 + GRAIN : len;
            switch (j->es) {
            case 1: ISEL_PIECE(uint8_t, take_u8); break;
            case 2: ISEL_PIECE(uint16_t, take_u16); break;
            case 4: ISEL_PIECE(uint32_t, take_u32); break;
            default: ISEL_PIECE(uint64_t, take_u64); break;
            }
        }
        piece = 0, row++;
        for (int d = last - 1; d >= 0 && ++idx[d] == j->out->shape[d]; d--)
            idx[d] = 0;
    }
    if (bad)
        __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* Note [index_select of whole rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With src contiguous and dim not its last, out is `outer` blocks of `nidx` rows of
 * `row` bytes, row q of block o a copy of src's row ix[q] of block o: the common
 * take of an embedding table's or a data set's rows (features[batch_indices]).  The
 * general walk paid a row's multi-index, a piece loop, a switch and a call to
 * memcpy for every row; here a row is a few fixed-size copies the compiler inlines,
 * and the rows a few ahead are prefetched (their places are random: a miss each).
 * The index value that is used is read once, wrapped and checked there (Note [the
 * index read once]); the prefetch reads the value again, harmlessly (a prefetch
 * never faults).  Rows of 64 float32 taken at random, 781 of 1,562 rows (one
 * thread): 11.0 -> 6.1 us (NumPy's take 5.9-6.5); 7,812 of 15,625 rows (two threads):
 * 79-119 -> 38-40 us (NumPy 68-90).  Rows of 128 bytes or more are the C library's memcpy
 * (its AVX copies; this file is built for the baseline), and a src that fits a core's
 * cache is not prefetched (the prefetches were pure cost there): on an AVX-512 EPYC, three
 * alternating runs, 781 of 1,562 rows of 64 float32 1.41-1.53 -> 1.08-1.35 of NumPy's time,
 * of 256 float32 0.69-1.15 -> 0.47-0.66. */
typedef struct rows_job {
    const char *src;
    char *out;
    const int64_t *ix;
    int64_t nidx, size, row; /* indices, src rows a block, bytes a row */
    int fetch;               /* prefetch the rows ahead: src larger than a core's cache */
    int bad;
} rows_job;

#define ROWS_AHEAD 8            /* rows prefetched ahead of the copy */
#define PREFETCH_FROM (1 << 20) /* bytes of src: below, its rows are in a core's cache */

/* n bytes from f to t, in fixed-size pieces the compiler inlines (no call for the
 * short rows this path is for) */
static inline void copy_row(char *restrict t, const char *restrict f, int64_t n)
{
    if (n >= 128) {
        memcpy(t, f, (size_t)n);
        return;
    }
    int64_t b = 0;
    for (; b + 64 <= n; b += 64)
        memcpy(t + b, f + b, 64);
    for (; b + 8 <= n; b += 8)
        memcpy(t + b, f + b, 8);
    for (; b < n; b++)
        t[b] = f[b];
}

static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    rows_job *j = ctx;
    const int64_t *const ix = j->ix;
    const int64_t nidx = j->nidx, size = j->size, row = j->row;
    int64_t bad = 0, o = begin / nidx, q = begin - o * nidx;
    const char *block = j->src + o * size * row;
    char *to = j->out + begin * row;
    for (int64_t it = begin; it < end; it++, to += row) {
        const int64_t ahead = q + ROWS_AHEAD < nidx ? q + ROWS_AHEAD : nidx - 1;
        const int64_t pw = wrap(ix[ahead], size);
        if (j->fetch && (uint64_t)pw < (uint64_t)size)
            for (int64_t b = 0; b < row; b += 64)
                __builtin_prefetch(block + pw * row + b);
        copy_row(to, block + index_in(READ_ONCE(&ix[q]), size, &bad) * row, row);
        if (++q == nidx)
            q = 0, block += size * row;
    }
    if (bad)
        __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* the bytes a row of the whole contiguous rows index_select(dim) of src takes (Note
 * [index_select of whole rows]), or 0: not such rows, or rows of more than 4 KiB (left
 * to the general walk's memcpy) */
static int64_t row_bytes(const pdt_tensor *src, int dim, size_t es)
{
    if (dim >= src->ndim - 1 || !pdt_tensor_is_contiguous(src))
        return 0;
    int64_t inner = 1; /* from the shape: a size-1 dim's stride may be anything */
    for (int d = dim + 1; d < src->ndim; d++)
        inner *= src->shape[d];
    return inner * (int64_t)es <= 4096 ? inner * (int64_t)es : 0;
}

pdt_status pdt_cpu_index_select(const pdt_tensor *out, const pdt_tensor *src, int dim,
                                const pdt_tensor *index)
{
    const size_t es = pdt_dtype_size(src->dtype);
    /* Typed loops over pieces of out's rows, split over the pool when large.  2048^2
     * float32, 1024 indices, against the per-element cursor and memcpy before:
     * index_select(1) 13 ms -> 1.0 (NumPy's take 2.2-5.2), a.T.index_select(0)
     * 43 -> 5.5 (NumPy 22), a.T.index_select(1) 38 -> 3.9 (NumPy 26). */
    /* Note [the index read once]; x[:, v] counts negatives from the end */
    const int last = out->ndim - 1;
    const int64_t len = out->shape[last];
    isel_job j = {.out = out,
                  .src = src,
                  .ix = (const int64_t *)pdt_tensor_ptr(index),
                  .size = src->shape[dim],
                  .dim = dim,
                  .last = last,
                  .len = len,
                  .pieces = (len + GRAIN - 1) / GRAIN,
                  .es = es};
    const int64_t row = row_bytes(src, dim, es);
    if (row) {
        const int64_t rows = pdt_tensor_numel(out) * (int64_t)es / row;
        rows_job r = {.src = pdt_tensor_ptr(src),
                      .out = pdt_tensor_ptr(out),
                      .ix = j.ix,
                      .nidx = index->shape[0],
                      .size = j.size,
                      .row = row,
                      .fetch = pdt_tensor_numel(src) * (int64_t)es > PREFETCH_FROM};
        const int64_t grain = (GRAIN * (int64_t)es + row - 1) / row;
        if (rows < 2 * grain)
            rows_range(0, rows, &r);
        else
            pdt_cpu_parallel_for(rows, grain, rows_range, &r);
        j.bad = r.bad;
    } else {
        const int64_t items = pdt_tensor_numel(out) / len * j.pieces;
        /* a gather along the last dim costs more an element than a copy of rows: split
         * from a quarter of the elements (316 rows of 158 gathered floats: 43 us on one
         * thread, 24-32 on two; NumPy 33-46 in the same minutes) */
        const int64_t g = last == dim ? GRAIN / 4 : GRAIN;
        const int64_t grain = len >= g ? 1 : (g + len - 1) / len;
        if (items < 2 * grain)
            isel_range(0, items, &j);
        else
            pdt_cpu_parallel_for(items, grain, isel_range, &j);
    }
    if (!j.bad)
        return PDT_OK;
    for (int64_t r = 0; r < index->shape[0]; r++) { /* the value that failed, if it stayed */
        const int64_t v = j.ix[r];
        if (v < -j.size || v >= j.size)
            return pdt_fail(PDT_ERR_INDEX,
                            "index_select: index %lld is out of bounds for size %lld (on cpu): "
                            "the index tensor was written to while the op used it",
                            (long long)v, (long long)j.size);
    }
    return pdt_fail(PDT_ERR_INDEX,
                    "index_select: an index was out of bounds for size %lld (on cpu): the index "
                    "tensor was written to while the op used it",
                    (long long)j.size);
}

/* Whether t's dims from `from` on are row-major (size-1 dims aside): its rows along
 * dim from - 1 are blocks of contiguous elements. */
static int rows_contiguous(const pdt_tensor *t, int from)
{
    int64_t step = 1;
    for (int d = t->ndim - 1; d >= from; d--) {
        if (t->shape[d] != 1 && t->strides[d] != step)
            return 0;
        step *= t->shape[d];
    }
    return 1;
}

/* Whether t's dims from `from` on all have stride 0 (a number broadcast over the rows). */
static int rows_repeat(const pdt_tensor *t, int from)
{
    for (int d = from; d < t->ndim; d++)
        if (t->shape[d] != 1 && t->strides[d] != 0)
            return 0;
    return 1;
}

/* Note [index_put by rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * index_put along dim 0 with dst's rows contiguous puts src's row j at dst's row ix[j]:
 * one memcpy a row, or, when src repeats one value along its rows (x[v] = number, the
 * number broadcast), that value stored len times with stores of its width.  The walk
 * below it took an element's offset from every dim and a memcpy of a size the compiler
 * could not see per element: x[v] = 0 for 500 rows of four float32 11.3 us (NumPy 6.0). */
#define PUT_ROWS(T)                                                                                \
    do {                                                                                           \
        for (int64_t j = 0; j < n; j++) {                                                          \
            const int64_t v = ix[j], r = wrap(v, size); /* Note [the index read */                 \
            if ((uint64_t)r >= (uint64_t)size) {        /* where it is used] */                    \
                bad = 1;                                                                           \
                *was = v;                                                                          \
                continue;                                                                          \
            }                                                                                      \
            T *to = (T *)o + r * dst->strides[0];                                                  \
            const T *from = (const T *)s + j * src->strides[0];                                    \
            if (repeat) {                                                                          \
                const T w = from[0];                                                               \
                for (int64_t q = 0; q < len; q++)                                                  \
                    to[q] = w;                                                                     \
            } else {                                                                               \
                memmove(to, from, (size_t)len * sizeof(T)); /* src may be a view of dst */         \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* whether put_rows takes this layout */
static int put_rows_fits(const pdt_tensor *dst, const pdt_tensor *src)
{
    return dst->ndim >= 2 && rows_contiguous(dst, 1) &&
           (rows_repeat(src, 1) || rows_contiguous(src, 1));
}

/* 1 (done) with *bad_out set when an index was out of range */
/* dst's rows at ix[j] = src's row j (or its one value); *bad_out set when an index was out
 * of range (skipped), *was to it */
static int put_rows(const pdt_tensor *dst, const int64_t *ix, const pdt_tensor *src, size_t es,
                    int *bad_out, int64_t *was)
{
    const int repeat = rows_repeat(src, 1);
    const int64_t n = src->shape[0], size = dst->shape[0],
                  len = pdt_tensor_numel(dst) / (dst->shape[0] ? dst->shape[0] : 1);
    if (n == 0 || len == 0)
        return 1; /* nothing to move (and an empty tensor's data may be NULL) */
    char *o = pdt_tensor_ptr(dst);
    const char *s = pdt_tensor_ptr(src);
    int bad = 0;
    switch (es) {
    case 1: PUT_ROWS(uint8_t); break;
    case 2: PUT_ROWS(uint16_t); break;
    case 4: PUT_ROWS(uint32_t); break;
    default: PUT_ROWS(uint64_t); break;
    }
    *bad_out = bad;
    return 1;
}
#undef PUT_ROWS

/* Note [the index read where it is used]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * index_put's scatters of a 1-d dst and of dst's contiguous rows along dim 0 do not copy
 * the index (a malloc and two passes: x[v] = w of 1e5 float32 by 1e5 indices took 227 us,
 * NumPy 116).  The core checked every index after the op was logged (the logging runs
 * Python, which may write to the index), so only another thread can have changed one
 * since: each value is read where it is used, wrapped and checked again, and a value out
 * of range is skipped (never a write out of bounds) and fails the op, the rows before it
 * written.  The general walk keeps the copy (Note [the index read once]). */
pdt_status pdt_cpu_index_put(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                             const pdt_tensor *src)
{
    const size_t es = pdt_dtype_size(dst->dtype);
    const int64_t *raw = (const int64_t *)pdt_tensor_ptr(index), size = dst->shape[dim];
    char *o = pdt_tensor_ptr(dst);
    const char *s = pdt_tensor_ptr(src);
    int bad = 0;
    int64_t was = 0; /* the last index found out of range */
    /* an index in dst's own memory (x[x] = w) would be read after it is written: copied
     * first (a review), as the general walk does */
    const int in_place = !pdt_tensor_spans_overlap(index, dst);
    const int rows = in_place && dst->ndim > 1 && dim == 0 && put_rows_fits(dst, src);
    if (in_place && dst->ndim == 1) { /* a 1-d scatter, with stores of the element's width;
                                       * Note [the index read where it is used] */
        const int64_t n = index->shape[0], ds = dst->strides[0], ss = src->strides[0];
#define SCATTER_LOOP(T, VALUE)                                                                     \
    for (int64_t j = 0; j < n; j++) {                                                              \
        const int64_t v = raw[j], r = wrap(v, size);                                               \
        if ((uint64_t)r < (uint64_t)size) {                                                        \
            ((T *)o)[r * ds] = VALUE;                                                              \
        } else {                                                                                   \
            bad = 1;                                                                               \
            was = v;                                                                               \
        }                                                                                          \
    }
/* a number broadcast (stride 0) read once: each store may alias it, so the compiler
 * reloaded it every element; read once, it is also the value before any write, as NumPy
 * reads values before writing */
#define SCATTER(T)                                                                                 \
    if (ss == 0) {                                                                                 \
        const T w = *(const T *)s;                                                                 \
        SCATTER_LOOP(T, w)                                                                         \
    } else {                                                                                       \
        SCATTER_LOOP(T, ((const T *)s)[j * ss])                                                    \
    }
        switch (es) {
        case 1: SCATTER(uint8_t) break;
        case 2: SCATTER(uint16_t) break;
        case 4: SCATTER(uint32_t) break;
        default: SCATTER(uint64_t) break;
        }
#undef SCATTER
#undef SCATTER_LOOP
        return bad ? racing_index("index_put", was, size) : PDT_OK;
    }
    if (rows && put_rows(dst, raw, src, es, &bad, &was)) /* Note [index_put by rows] */
        return bad ? racing_index("index_put", was, size) : PDT_OK;
    own_index own; /* Note [the index read once] */
    pdt_status st = own_index_read(&own, "index_put", index, size);
    if (st != PDT_OK)
        return st;
    const int64_t *ix = own.v;
    const pdt_tensor *ts[1] = {src};
    cursor c;
    int64_t total = pdt_tensor_numel(src);
    cursor_init(&c, src->shape, src->ndim, 1, ts, 0);
    for (int64_t i = 0; i < total; i++, cursor_next(&c))
        memcpy(o + offset_with(dst, c.idx, dim, ix[c.idx[dim]]) * (int64_t)es,
               s + c.off[0] * (int64_t)es, es);
    own_index_free(&own);
    return PDT_OK;
}

/* a + b, integers wrapping as the elementwise add's do (in the unsigned type: a signed
 * overflow is undefined in C, and UBSan reports it) */
/* clang-format off */
#define ADDW(a, b)                                                                                 \
    _Generic((a),                                                                                  \
        int32_t: (int32_t)((uint32_t)(a) + (uint32_t)(b)),                                         \
        int64_t: (int64_t)((uint64_t)(a) + (uint64_t)(b)),                                         \
        default: (a) + (b))
/* clang-format on */

/* index_add: the walk of index_put with += (serial, so duplicates add in
 * the order of the values: deterministic). */
#define DEFINE_INDEX_ADD(T)                                                                        \
    static void index_add_##T(const pdt_tensor *dst, int dim, const int64_t *ix,                   \
                              const pdt_tensor *src)                                               \
    {                                                                                              \
        const int64_t total = pdt_tensor_numel(src);                                               \
        T *o = (T *)pdt_tensor_ptr(dst);                                                           \
        const T *s = (const T *)pdt_tensor_ptr(src);                                               \
        const pdt_tensor *ts[1] = {src};                                                           \
        cursor c;                                                                                  \
        cursor_init(&c, src->shape, src->ndim, 1, ts, 0);                                          \
        for (int64_t i = 0; i < total; i++, cursor_next(&c)) {                                     \
            T *at = o + offset_with(dst, c.idx, dim, ix[c.idx[dim]]);                              \
            *at = ADDW(*at, s[c.off[0]]);                                                          \
        }                                                                                          \
    }
DEFINE_INDEX_ADD(float)
DEFINE_INDEX_ADD(double)
DEFINE_INDEX_ADD(int32_t)
DEFINE_INDEX_ADD(int64_t)

/* Note [index_add by rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Contiguous dst and src are (outer, n, inner) blocks: for each outer row, src's
 * row j (inner elements) is added to dst's row ix[j], j in order.  The work items
 * are (outer row, piece of at most GRAIN inner elements): each writes its own part
 * of dst, adding the j's in the order the walk above does, so the sums are its bits
 * on any number of threads.  (interpolate's backward on 2 busy cores, float32
 * 8 x 64 x 64 x 128 added along the last dim into 64: 96 ms by the walk -> 18;
 * 8 x 64 x 128 x 128 along dim 2 into 64: 200 -> 25.) */
typedef struct {
    char *dst;
    const char *src;
    const int64_t *ix;
    int64_t n_src, n_dst, inner, pieces;
    pdt_dtype dtype;
} iadd_job;

#define IADD_PIECE(T)                                                                              \
    do {                                                                                           \
        T *o = (T *)j->dst + outer * j->n_dst * j->inner;                                          \
        const T *s = (const T *)j->src + outer * j->n_src * j->inner;                              \
        if (j->inner == 1) { /* along the last dim */                                              \
            for (int64_t k = 0; k < j->n_src; k++)                                                 \
                o[ix[k]] = ADDW(o[ix[k]], s[k]);                                                   \
            break;                                                                                 \
        }                                                                                          \
        for (int64_t k = 0; k < j->n_src; k++) {                                                   \
            T *to = o + ix[k] * j->inner;                                                          \
            const T *from = s + k * j->inner;                                                      \
            for (int64_t q = q0; q < q1; q++)                                                      \
                to[q] = ADDW(to[q], from[q]);                                                      \
        }                                                                                          \
    } while (0)

static void iadd_range(int64_t begin, int64_t end, void *ctx)
{
    const iadd_job *j = ctx;
    const int64_t *const ix = j->ix;
    for (int64_t item = begin; item < end; item++) {
        const int64_t outer = item / j->pieces, piece = item % j->pieces;
        const int64_t q0 = piece * GRAIN, q1 = q0 + GRAIN < j->inner ? q0 + GRAIN : j->inner;
        switch (j->dtype) {
        case PDT_FLOAT32: IADD_PIECE(float); break;
        case PDT_FLOAT64: IADD_PIECE(double); break;
        case PDT_INT32: IADD_PIECE(int32_t); break;
        default: IADD_PIECE(int64_t); break;
        }
    }
}

static void index_add_rows(const pdt_tensor *dst, int dim, const int64_t *ix, const pdt_tensor *src)
{
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= dst->shape[d];
    for (int d = dim + 1; d < dst->ndim; d++)
        inner *= dst->shape[d];
    iadd_job j = {pdt_tensor_ptr(dst),
                  pdt_tensor_ptr(src),
                  ix,
                  src->shape[dim],
                  dst->shape[dim],
                  inner,
                  (inner + GRAIN - 1) / GRAIN,
                  dst->dtype};
    const int64_t items = outer * j.pieces, per_item = j.n_src * (inner < GRAIN ? inner : GRAIN);
    const int64_t grain = per_item >= GRAIN ? 1 : (GRAIN + per_item - 1) / per_item;
    if (items < 2 * grain)
        iadd_range(0, items, &j);
    else
        pdt_cpu_parallel_for(items, grain, iadd_range, &j);
}

/* Note [index_add of a vector]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A 1-d dst (bincount, scatter_add's flat offsets) is added to at each index in turn,
 * the index read where it is used (Note [the index read where it is used]: a value a
 * racing thread put out of range is skipped and fails the op), with no copy of it.
 * The additions come in the values' order, as the walk's.  A dst past 4 MiB (beyond a
 * core's share of the last-level cache) has the slot 48 values ahead prefetched for
 * writing, which hides most of a miss to memory.  Float32 at random indices on the
 * AVX-512 EPYC (min of alternating runs, np.add.at in brackets): 1e5 125 -> 70 us (82),
 * 1e6 2.4 -> 1.2-1.5 ms (1.3-2.5), 3e6 43 -> 17 ms (42), 1e7 132 -> 80 ms (149); the
 * prefetch at 1e5-1e6 cost 10-40%. */
#define ADD_AHEAD 48
#define ADD_NEAR (4 << 20)
#define ADD_AT_LOOP(T, DS, SS, FAR)                                                                \
    for (int64_t k = 0; k < n; k++) {                                                              \
        int64_t v = raw[k];                                                                        \
        HIDE(v);                                                                                   \
        const int64_t r = wrap(v, size);                                                           \
        if ((FAR) && k + ADD_AHEAD < n) {                                                          \
            const int64_t p = wrap(raw[k + ADD_AHEAD], size);                                      \
            __builtin_prefetch(o + ((uint64_t)p < (uint64_t)size ? p : 0) * (DS), 1);              \
        }                                                                                          \
        if ((uint64_t)r < (uint64_t)size) {                                                        \
            o[r * (DS)] = ADDW(o[r * (DS)], s[k * (SS)]);                                          \
        } else {                                                                                   \
            bad = 1;                                                                               \
            was = v;                                                                               \
        }                                                                                          \
    }
/* the common case (both contiguous, dst in cache) with no strides to multiply by and
 * no prefetch to test for: 1e3 float32 1.97 -> 1.6 us */
#define ADD_AT_VECTOR(T)                                                                           \
    do {                                                                                           \
        T *restrict o = (T *)pdt_tensor_ptr(dst);                                                  \
        const T *restrict s = (const T *)pdt_tensor_ptr(src);                                      \
        if (ds == 1 && ss == 1 && !far) {                                                          \
            ADD_AT_LOOP(T, 1, 1, 0)                                                                \
        } else if (ds == 1 && ss == 0 && !far) { /* one value broadcast: bincount's 1 */           \
            ADD_AT_LOOP(T, 1, 0, 0)                                                                \
        } else {                                                                                   \
            ADD_AT_LOOP(T, ds, ss, far)                                                            \
        }                                                                                          \
    } while (0)

static pdt_status index_add_vector(const pdt_tensor *dst, const pdt_tensor *index,
                                   const pdt_tensor *src)
{
    const int64_t *restrict raw = (const int64_t *)pdt_tensor_ptr(index);
    const int64_t n = index->shape[0], size = dst->shape[0], ds = dst->strides[0],
                  ss = src->strides[0];
    /* the bytes dst spans, in unsigned arithmetic (a size-1 dst may have any stride) */
    const uint64_t span = (uint64_t)size * pdt_dtype_size(dst->dtype) *
                          (ds < 0 ? 0 - (uint64_t)ds : (uint64_t)ds);
    const int far = span > ADD_NEAR;
    int bad = 0;
    int64_t was = 0;
    switch (dst->dtype) {
    case PDT_FLOAT32: ADD_AT_VECTOR(float); break;
    case PDT_FLOAT64: ADD_AT_VECTOR(double); break;
    case PDT_INT32: ADD_AT_VECTOR(int32_t); break;
    default: ADD_AT_VECTOR(int64_t); break;
    }
    return bad ? racing_index("index_add", was, size) : PDT_OK;
}
#undef ADD_AT_VECTOR
#undef ADD_AT_LOOP

pdt_status pdt_cpu_index_add(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                             const pdt_tensor *src)
{
    if (dst->dtype != PDT_FLOAT32 && dst->dtype != PDT_FLOAT64 && dst->dtype != PDT_INT32 &&
        dst->dtype != PDT_INT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "index_add: unsupported dtype");
    /* an index or values in dst's memory would be read after a write: those take the
     * walk below (the index copied first) */
    if (dst->ndim == 1 && !pdt_tensor_spans_overlap(index, dst) &&
        !pdt_tensor_spans_overlap(src, dst)) /* Note [index_add of a vector] */
        return index_add_vector(dst, index, src);
    own_index own; /* Note [the index read once] */
    pdt_status st = own_index_read(&own, "index_add", index, dst->shape[dim]);
    if (st != PDT_OK)
        return st;
    if (pdt_tensor_is_contiguous(dst) && pdt_tensor_is_contiguous(src) &&
        pdt_tensor_numel(src) > 0) { /* Note [index_add by rows] */
        index_add_rows(dst, dim, own.v, src);
        own_index_free(&own);
        return PDT_OK;
    }
    switch (dst->dtype) {
    case PDT_FLOAT32: index_add_float(dst, dim, own.v, src); break;
    case PDT_FLOAT64: index_add_double(dst, dim, own.v, src); break;
    case PDT_INT32: index_add_int32_t(dst, dim, own.v, src); break;
    default: index_add_int64_t(dst, dim, own.v, src); break;
    }
    own_index_free(&own);
    return PDT_OK;
}

/* ---------------------------------------------------------------- cumsum */

/* Note [cumsum rows]
 * ~~~~~~~~~~~~~~~~~~
 * Each row is summed in order, in its own dtype (each prefix rounded as it is
 * added, as PyTorch's and NumPy's are): one chain of additions a row, so a row
 * alone runs at the latency of an add.  Rows are therefore taken eight at a
 * time, element i of each of the eight in turn (eight independent chains, the
 * same order within every row), and groups of rows are split across the pool.
 * Two threads, float32, A/B: (1000, 1000) along dim 1 850 -> 193 us, along dim 0
 * 1,080 -> 404, (100, 1000) along dim 1 87 -> 28 (PyTorch 479 and 53). */
#define CUMSUM_GROUP 8
#define CUMSUM_GRAIN 32768 /* elements a thread takes at least */

typedef struct cumsum_job {
    char *out;
    const char *x;
    int64_t rows, n;
} cumsum_job;

/* Running sums (OP +, from 0) or products (OP *, from 1), eight rows side by side; the rows
 * left over one at a time, by ROW (the level's row, or NULL: the loop here). */
#define DEFINE_SCAN(NAME, T, A, OP, INIT, ROW)                                                     \
    static void NAME(int64_t g0, int64_t g1, void *ctx)                                            \
    {                                                                                              \
        const cumsum_job *j = ctx;                                                                 \
        const int64_t n = j->n;                                                                    \
        for (int64_t g = g0; g < g1; g++) {                                                        \
            const int64_t r0 = g * CUMSUM_GROUP;                                                   \
            const int64_t m = j->rows - r0 < CUMSUM_GROUP ? j->rows - r0 : CUMSUM_GROUP;           \
            T *out = (T *)j->out + r0 * n;                                                         \
            const T *x = (const T *)j->x + r0 * n;                                                 \
            if (m == CUMSUM_GROUP) {                                                               \
                A acc[CUMSUM_GROUP];                                                               \
                for (int q = 0; q < CUMSUM_GROUP; q++)                                             \
                    acc[q] = (A)(INIT);                                                            \
                for (int64_t i = 0; i < n; i++)                                                    \
                    for (int q = 0; q < CUMSUM_GROUP; q++)                                         \
                        out[q * n + i] = (T)(acc[q] = (A)(acc[q] OP(A) x[q * n + i]));             \
                continue;                                                                          \
            }                                                                                      \
            pdt_vu_row row = ROW;                                                                  \
            for (int64_t r = 0; r < m; r++, out += n, x += n) {                                    \
                if (row) {                                                                         \
                    row((char *)out, (const char *)x, n);                                          \
                    continue;                                                                      \
                }                                                                                  \
                A acc = (A)(INIT);                                                                 \
                for (int64_t i = 0; i < n; i++)                                                    \
                    out[i] = (T)(acc = (A)(acc OP(A) x[i]));                                       \
            }                                                                                      \
        }                                                                                          \
    }
/* integers wrap, as PyTorch's: unsigned arithmetic, no signed overflow */
DEFINE_SCAN(cumsum_i64, int64_t, uint64_t, +, 0, pdt_cpu_simd()->cumsum_i64_row)
DEFINE_SCAN(cumsum_f32, float, float, +, 0, NULL)
DEFINE_SCAN(cumsum_f64, double, double, +, 0, NULL)
DEFINE_SCAN(cumprod_i64, int64_t, uint64_t, *, 1, NULL)
DEFINE_SCAN(cumprod_f64, double, double, *, 1, NULL)

static void scan_rows(const pdt_tensor *out, const pdt_tensor *x, pdt_range_fn fn)
{
    const int64_t n = x->shape[x->ndim - 1];
    cumsum_job j = {pdt_tensor_ptr(out), pdt_tensor_ptr(x), n ? pdt_tensor_numel(x) / n : 0, n};
    const int64_t groups = (j.rows + CUMSUM_GROUP - 1) / CUMSUM_GROUP;
    const int64_t per_group = CUMSUM_GROUP * (n ? n : 1);
    pdt_cpu_parallel_for(groups, per_group >= CUMSUM_GRAIN ? 1 : CUMSUM_GRAIN / per_group, fn, &j);
}

pdt_status pdt_cpu_cumsum(const pdt_tensor *out, const pdt_tensor *x)
{
    pdt_range_fn fn = x->dtype == PDT_INT64     ? cumsum_i64
                      : x->dtype == PDT_FLOAT32 ? cumsum_f32
                      : x->dtype == PDT_FLOAT64 ? cumsum_f64
                                                : NULL;
    if (!fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "cumsum: %s", pdt_dtype_name(x->dtype));
    scan_rows(out, x, fn);
    return PDT_OK;
}

/* cumprod: float64 (float32 and the half types arrive widened, pydevtensor/_ops_cumulative.py)
 * and int64, each row left to right (NumPy's and PyTorch's order) */
pdt_status pdt_cpu_cumprod(const pdt_tensor *out, const pdt_tensor *x)
{
    pdt_range_fn fn = x->dtype == PDT_INT64     ? cumprod_i64
                      : x->dtype == PDT_FLOAT64 ? cumprod_f64
                                                : NULL;
    if (!fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "cumprod: %s", pdt_dtype_name(x->dtype));
    scan_rows(out, x, fn);
    return PDT_OK;
}
