/* cpu_copy.c - copies between two strided tensors of one dtype on the CPU
 * (contiguous(), clone() of a view, flip, copy_ into a view).
 *
 * Note [strided copies]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The row walk (cpu_iter.c) copied an element at a time through memcpy of a size
 * known only at run time, a call per element, on one thread: x[::2].contiguous() of
 * 1e6 float32 took 2.7 ms where NumPy takes 0.3, a transposed 1000 x 1000 3.3 ms
 * (NumPy 0.75).  Here:
 * - the dims are merged as the row walk merges them, in the destination's memory
 *   order, and each row is copied by a loop of the element's own type;
 * - when the destination is contiguous along its innermost dim and the source is
 *   not but is contiguous along another dim (a transpose, a permute), those two
 *   dims are copied in TILE x TILE tiles, so that both sides are read and written
 *   a cache line at a time;
 * - the rows (or bands of TILE rows) are split across the pool.
 * The caller guarantees that the two do not overlap (tensor_copy.c copies an
 * overlapping source out first), so the order of the writes does not matter.
 */
#include <string.h>

#include "cpu_iter.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"

#define TILE 32
#define COPY_GRAIN 32768 /* elements a thread takes at least */
#define SHORT_ROWS 1024  /* rows shorter than this go several to a unit of work */

typedef struct {
    int ndim; /* at least 2; dim ndim-2 is the row dim, ndim-1 the inner one */
    int tiled;
    int64_t shape[PDT_MAX_DIMS + 1];
    int64_t ds[PDT_MAX_DIMS + 1], ss[PDT_MAX_DIMS + 1]; /* byte strides */
    char *d, *s;
    size_t el;
    int64_t band; /* rows of the row dim in one unit of work */
    int64_t bands;
    int64_t piece; /* columns of the inner dim in one unit of work */
    int64_t pieces;
} copy_plan;

/* A row of n elements of type T.  A contiguous destination from a reversed source
 * (flip) or from every second, third or fourth element gets a loop of its own,
 * which the compiler vectorises with permutes; other strides are copied four
 * elements an iteration.  (A one-element loop ran at one or two cycles an
 * element depending on where the linker happened to place it: x[::2] of 1e5
 * float32 took 14 or 28 us between two builds of the same code.) */
#define ROW_BY_FOUR(T, d, ds, s, ss, n)                                                            \
    do {                                                                                           \
        int64_t i_ = 0;                                                                            \
        for (; i_ + 4 <= (n); i_ += 4) {                                                           \
            T v0 = *(const T *)((s) + i_ * (ss)), v1 = *(const T *)((s) + (i_ + 1) * (ss));        \
            T v2 = *(const T *)((s) + (i_ + 2) * (ss)), v3 = *(const T *)((s) + (i_ + 3) * (ss));  \
            *(T *)((d) + i_ * (ds)) = v0, *(T *)((d) + (i_ + 1) * (ds)) = v1;                      \
            *(T *)((d) + (i_ + 2) * (ds)) = v2, *(T *)((d) + (i_ + 3) * (ds)) = v3;                \
        }                                                                                          \
        for (; i_ < (n); i_++)                                                                     \
            *(T *)((d) + i_ * (ds)) = *(const T *)((s) + i_ * (ss));                               \
    } while (0)
#define ROW_STEP(T, K)                                                                             \
    if (ss == (K) * (int64_t)sizeof(T)) {                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = in[(K)*i];                                                                      \
        break;                                                                                     \
    }
#define ROW_LOOP(T)                                                                                \
    do {                                                                                           \
        if (ds == (int64_t)sizeof(T)) {                                                            \
            T *o = (T *)d;                                                                         \
            const T *in = (const T *)s;                                                            \
            ROW_STEP(T, -1)                                                                        \
            ROW_STEP(T, 2)                                                                         \
            ROW_STEP(T, 3)                                                                         \
            ROW_STEP(T, 4)                                                                         \
        }                                                                                          \
        ROW_BY_FOUR(T, d, ds, s, ss, n);                                                           \
    } while (0)

static void copy_row(char *d, int64_t ds, const char *s, int64_t ss, int64_t n, size_t el)
{
    if (ds == (int64_t)el && ss == (int64_t)el) {
        memcpy(d, s, (size_t)n * el);
        return;
    }
    switch (el) {
    case 1: ROW_LOOP(uint8_t); break;
    case 2: ROW_LOOP(uint16_t); break;
    case 4: ROW_LOOP(uint32_t); break;
    case 8: ROW_LOOP(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * ds, s + i * ss, el);
    }
}

/* rows x cols elements: the destination's rows are dr bytes apart, its columns
 * contiguous; the source's rows contiguous, its columns sc bytes apart. */
#define TILE_LOOP(T)                                                                               \
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {                                                  \
        int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;                                          \
        for (int64_t r = 0; r < rows; r++)                                                         \
            ROW_BY_FOUR(T, d + r * dr + c0 * (int64_t)sizeof(T), (int64_t)sizeof(T),               \
                        s + r * (int64_t)sizeof(T) + c0 * sc, sc, c1 - c0);                        \
    }

static void copy_tile(char *d, int64_t dr, const char *s, int64_t sc, int64_t rows, int64_t cols,
                      size_t el)
{
    switch (el) {
    case 1: TILE_LOOP(uint8_t) break;
    case 2: TILE_LOOP(uint16_t) break;
    case 4: TILE_LOOP(uint32_t) break;
    case 8: TILE_LOOP(uint64_t) break;
    default:
        for (int64_t r = 0; r < rows; r++)
            copy_row(d + r * dr, (int64_t)el, s + r * (int64_t)el, sc, cols, el);
    }
}

/* Note [rows of one value]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * A source broadcast along the inner dim (x[:, None].expand(n, k), repeat_interleave
 * by an int, a column of a bias) makes every destination row one value repeated:
 * each row is filled from one read, all rows in one loop, not a copy_row call per row
 * (rows of 2 cost a call and a switch for two elements), and never by the transposing
 * tiles (the source's outer stride of one element looked like a transpose to them):
 * x[:, None].expand(1e6, 2).contiguous() of float32 1.27 -> 0.30 ms, (1e6, 4) 0.98 ->
 * 0.36 (np.repeat 1.0-1.5 ms; AVX-512 EPYC, 2 threads, quiet machine). */
#define FILL_ROWS_OF(T, COLS)                                                                      \
    for (int64_t k = 0; k < rows; k++) {                                                           \
        const T v = *(const T *)(s + k * sr);                                                      \
        T *o = (T *)(d + k * dr);                                                                  \
        for (int64_t j = 0; j < (COLS); j++)                                                       \
            o[j] = v;                                                                              \
    }
/* rows of 2, 3 or 4 with their length known to the compiler: no loop a row */
#define FILL_ROWS(T)                                                                               \
    switch (cols) {                                                                                \
    case 2: FILL_ROWS_OF(T, 2) break;                                                              \
    case 3: FILL_ROWS_OF(T, 3) break;                                                              \
    case 4: FILL_ROWS_OF(T, 4) break;                                                              \
    default: FILL_ROWS_OF(T, cols) break;                                                          \
    }

static void fill_rows(char *d, int64_t dr, const char *s, int64_t sr, int64_t rows, int64_t cols,
                      size_t el)
{
    switch (el) {
    case 1: FILL_ROWS(uint8_t) break;
    case 2: FILL_ROWS(uint16_t) break;
    case 4: FILL_ROWS(uint32_t) break;
    case 8: FILL_ROWS(uint64_t) break;
    default:
        for (int64_t k = 0; k < rows; k++)
            for (int64_t j = 0; j < cols; j++)
                memcpy(d + k * dr + j * (int64_t)el, s + k * sr, el);
    }
}
#undef FILL_ROWS
#undef FILL_ROWS_OF

/* Units [begin, end): unit u is piece u % pieces of band (u / pieces) % bands of
 * outer index u / (pieces * bands). */
static void copy_units(int64_t begin, int64_t end, void *ctx)
{
    const copy_plan *p = ctx;
    const int r = p->ndim - 2, c = p->ndim - 1;
    for (int64_t u = begin; u < end; u++) {
        int64_t col0 = (u % p->pieces) * p->piece, v = u / p->pieces;
        int64_t outer = v / p->bands, row0 = (v % p->bands) * p->band;
        int64_t cols = p->shape[c] - col0 < p->piece ? p->shape[c] - col0 : p->piece;
        char *d = p->d + row0 * p->ds[r] + col0 * p->ds[c];
        const char *s = p->s + row0 * p->ss[r] + col0 * p->ss[c];
        for (int k = r - 1; k >= 0; k--) { /* unravel outer over dims 0 .. r-1 */
            int64_t i = outer % p->shape[k];
            outer /= p->shape[k];
            d += i * p->ds[k];
            s += i * p->ss[k];
        }
        int64_t rows = p->shape[r] - row0 < p->band ? p->shape[r] - row0 : p->band;
        if (p->tiled) {
            copy_tile(d, p->ds[r], s, p->ss[c], rows, cols, p->el);
            continue;
        }
        if (p->ss[c] == 0 && p->ds[c] == (int64_t)p->el) { /* Note [rows of one value] */
            fill_rows(d, p->ds[r], s, p->ss[r], rows, cols, p->el);
            continue;
        }
        for (int64_t k = 0; k < rows; k++)
            copy_row(d + k * p->ds[r], p->ds[c], s + k * p->ss[r], p->ss[c], cols, p->el);
    }
}

static void swap64(int64_t *v, int i, int j)
{
    int64_t t = v[i];
    v[i] = v[j];
    v[j] = t;
}

void pdt_cpu_copy_strided(const pdt_tensor *dst, const pdt_tensor *src)
{
    copy_plan p;
    p.el = pdt_dtype_size(dst->dtype);
    p.d = pdt_tensor_ptr(dst);
    p.s = pdt_tensor_ptr(src);
    /* A leading dim of 1 so that there is always a row dim, then the merged dims. */
    p.shape[0] = 1;
    p.ds[0] = p.ss[0] = 0;
    int merged = pdt_cpu_merge_dims(dst, src, p.shape + 1, p.ds + 1, p.ss + 1);
    if (merged < 0)
        return;
    int n = 1 + merged;
    for (int k = 0; k < n; k++)
        p.ds[k] *= (int64_t)p.el, p.ss[k] *= (int64_t)p.el;
    if (n == 1) { /* one element */
        p.shape[1] = 1;
        p.ds[1] = p.ss[1] = 0;
        n = 2;
    }
    p.ndim = n;
    int c = n - 1;
    p.tiled = 0;
    /* (not a source broadcast along the inner dim: Note [rows of one value]) */
    if (p.ds[c] == (int64_t)p.el && p.ss[c] != (int64_t)p.el && p.ss[c] != 0) {
        for (int k = c - 1; k >= 1 && !p.tiled; k--) {
            if (p.ss[k] == (int64_t)p.el && p.shape[k] > 1) {
                swap64(p.shape, k, c - 1), swap64(p.ds, k, c - 1), swap64(p.ss, k, c - 1);
                p.tiled = 1;
            }
        }
    }
    int r = n - 2;
    /* short rows go a band of rows to a unit: a unit's unravelling (four divisions and
     * one a dim) cost more than copying a row of 2: M[:, :2].contiguous() of a 250,000 x 8
     * float32 M 1.41 -> 0.32 ms (NumPy 0.90), of a 1,000 x 8 one 11.2 -> 2.8 us */
    p.band = p.tiled ? TILE : (p.shape[c] >= SHORT_ROWS) ? 1 : SHORT_ROWS / p.shape[c];
    p.bands = (p.shape[r] + p.band - 1) / p.band;
    int64_t outer = 1;
    for (int k = 0; k < r; k++)
        outer *= p.shape[k];
    /* Long rows are cut into pieces of COPY_GRAIN columns (whole tiles), so that
     * a single long row is split across the pool too. */
    p.piece = p.shape[c] > 2 * COPY_GRAIN ? COPY_GRAIN : p.shape[c];
    p.pieces = (p.shape[c] + p.piece - 1) / p.piece;
    int64_t per_unit = p.band * p.piece;
    int64_t grain = per_unit >= COPY_GRAIN ? 1 : COPY_GRAIN / per_unit;
    pdt_cpu_parallel_for(outer * p.bands * p.pieces, grain, copy_units, &p);
}
