/* cpu_nonzero.c - the coordinates of a bool mask's true elements (nonzero), and
 * the rows it selects (x[mask]).
 *
 * Note [nonzero on the CPU]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Composed from device-neutral ops (a cumsum, a where, an arange, an index_put and,
 * per dim, a division and a remainder, then a stack) nonzero of 1e6 elements took
 * 4.4 ms where NumPy takes 0.5.  Here, in chunks of NZ_CHUNK elements split across
 * the pool: each chunk's true bytes are counted (the dispatch level's count), the
 * counts summed in order into each chunk's first row, the result for their total got
 * from the core (pdt_make_rows: so the mask is counted once, not first by the caller
 * and again here), and each chunk writes its rows.  The mask is read as words of
 * bits, as compress reads it (below); a mask of 2 or more dims gets each true
 * element's coordinates carried on from the last one's.  A row past the chunk's
 * counted rows goes to a scratch row, so a mask that another thread changed since it was
 * counted writes nothing outside the result, and is reported (a chunk that wrote other
 * than its counted rows sets `changed`; each mask byte or word is read once into a local,
 * so a concurrent writer, a data race in C11's terms that the caller owns, can change
 * which rows are written but not where: rows of 0 bytes write nothing, so they cannot see
 * the change and give the count's shape).  Over 1e6 on one thread (AVX2 EPYC), against
 * NumPy's argwhere: 1-d 130 us at 1% density (argwhere 280-430), 720-840 at 50%
 * (870-1,400); 1000x1000 at 1% 143-216 (2,500-4,700), at 50% 1,100-1,300 (where writing
 * every element's row took 3,300, argwhere 11,000-15,000). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define NZ_CHUNK 65536
#define NZ_OUT(j) ((int64_t *)(j)->dst) /* nonzero's result: int64, so aligned for it */

typedef struct {
    const uint8_t *m;
    int64_t n, count; /* the mask's elements, and its true ones counted */
    int ndim;
    const int64_t *shape;
    const char *src; /* compress: the rows read, row bytes each */
    char *dst;       /* the result's rows (nonzero's int64 coordinates: NZ_OUT) */
    size_t row;
    int64_t *first; /* chunk c's first row; first[chunks] = the total */
    int64_t chunks;
    _Atomic int changed; /* a chunk wrote other than its counted rows */
} nz_job;

static void nz_count(int64_t begin, int64_t end, void *ctx)
{
    const nz_job *j = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t at = c * NZ_CHUNK, len = j->n - at < NZ_CHUNK ? j->n - at : NZ_CHUNK;
        j->first[c + 1] = (int64_t)pdt_cpu_simd()->count_b8(j->m + at, len);
    }
}

/* counts each chunk's true bytes, gets the result for their total by make, then runs
 * write over the chunks, each from its first row; checks each chunk wrote its own
 * count (a mask written meanwhile by another thread) */
static pdt_status nz_run(nz_job *j, void (*write)(int64_t, int64_t, void *), const char *op,
                         pdt_make_rows make, void *ctx)
{
    j->chunks = (j->n + NZ_CHUNK - 1) / NZ_CHUNK;
    int64_t small[17];
    j->first = j->chunks < 17 ? small : malloc((size_t)(j->chunks + 1) * sizeof *j->first);
    if (!j->first)
        return pdt_fail(PDT_ERR_OOM, "%s: no memory for %lld chunk counts (on cpu)", op,
                        (long long)j->chunks + 1);
    j->first[0] = 0;
    pdt_cpu_parallel_for(j->chunks, 1, nz_count, j);
    for (int64_t c = 0; c < j->chunks; c++)
        j->first[c + 1] += j->first[c];
    j->count = j->first[j->chunks];
    const pdt_tensor *out = NULL;
    pdt_status st = make(ctx, j->count, &out);
    if (st == PDT_OK) {
        j->dst = (char *)pdt_tensor_ptr(out);
        pdt_cpu_parallel_for(j->chunks, 1, write, j);
        if (atomic_load(&j->changed))
            st = pdt_fail(PDT_ERR_VALUE,
                          "%s: the mask of %lld elements changed while it was read (another "
                          "thread writing it?): %lld true elements counted, then other "
                          "elements found true when the result was written (on cpu)",
                          op, (long long)j->n, (long long)j->count);
    }
    if (j->first != small)
        free(j->first);
    return st;
}

/* Note [compress on the CPU]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x[mask] as nonzero's positions and then index_select wrote and read 8 bytes of
 * position per true element: 2.4 ms for 1e6 uint8 at 99% density and 2.0 at 1%,
 * where NumPy takes 0.64 and 0.58 (and 5.7 at 50%, where its branch on each mask
 * byte mispredicts).  Here the rows are copied straight, by chunks as nonzero (so a
 * mask that changed since it was counted writes nothing outside out, and is
 * reported).  The mask is read as bits, 64 bytes to a word (the level's
 * nonzero_bits: a compare and a movemask per vector), and each word taken by what
 * it holds: none set, skipped; all set, one memcpy for the run of such words; fewer
 * than 40 set, a loop over the set bits (the next by a count of trailing zeros);
 * else by bytes of 8 bits, all set ones copied as 8 rows and the others written
 * each, the row index advanced by the bit with no branch on it.  In a test loop on
 * an AVX2 EPYC over 1e6 float32, against a loop like NumPy's (runs found by memchr,
 * copied by memcpy): 97 us and 180 at 1% density, 573 and 4,377 at 50%, 291 and
 * 577 at 99%.  Rows of 1, 2, 4 or 8 bytes are moved as integers, others by memcpy. */
#define NZ_WORDS 1024 /* words of bits a chunk: NZ_CHUNK / 64 */
_Static_assert(NZ_WORDS * 64 == NZ_CHUNK, "a chunk is NZ_WORDS words of bits");

/* the rows at the set bits of b, word w's 64 rows from i (fewer in the word past
 * the chunk's whole words), written from row k (rows at or past last go to
 * scratch), k advanced: PUT(T, to, q) writes row q at to, PUT8(T, k, q) rows q to
 * q + 7 from row k */
#define NZ_WORD(T, PUT, PUT8)                                                                      \
    if (w == words || __builtin_popcountll(b) < 40) { /* a chunk's last rows: bits only */         \
        do {                                                                                       \
            char *to = k < last ? j->dst + (size_t)k * sizeof(T) : scratch;                        \
            PUT(T, to, i + __builtin_ctzll(b));                                                    \
            k++;                                                                                   \
            b &= b - 1;                                                                            \
        } while (b);                                                                               \
    } else {                                                                                       \
        for (int g = 0; g < 64; g += 8) {                                                          \
            if (((b >> g) & 0xff) == 0xff && last - k >= 8) {                                      \
                PUT8(T, k, i + g);                                                                 \
                k += 8;                                                                            \
                continue;                                                                          \
            }                                                                                      \
            for (int q = g; q < g + 8; q++) {                                                      \
                char *to = k < last ? j->dst + (size_t)k * sizeof(T) : scratch;                    \
                PUT(T, to, i + q);                                                                 \
                k += (int64_t)((b >> q) & 1);                                                      \
            }                                                                                      \
        }                                                                                          \
    }

/* chunks begin..end of the mask read as words of bits, each taken by WORD(T) (which
 * sees b, w, words, i, k, last, scratch), runs of full words by RUN(k, i, fit); START
 * at each chunk's first element i */
#define NZ_BITS(NAME, T, WORD, RUN, START)                                                         \
    static void NAME(int64_t begin, int64_t end, void *ctx)                                        \
    {                                                                                              \
        const nz_job *j = ctx;                                                                     \
        char scratch[sizeof(T)];                                                                   \
        uint64_t bits[NZ_WORDS];                                                                   \
        for (int64_t c = begin; c < end; c++) {                                                    \
            int64_t i = c * NZ_CHUNK, stop = j->n - i < NZ_CHUNK ? j->n : i + NZ_CHUNK;            \
            int64_t k = j->first[c], last = j->first[c + 1];                                       \
            const int64_t words = (stop - i) / 64;                                                 \
            START                                                                                  \
            pdt_cpu_simd()->nonzero_bits(j->m + i, words, bits);                                   \
            for (int64_t w = 0; w <= words; w++) {                                                 \
                uint64_t b = 0;                                                                    \
                if (w < words) {                                                                   \
                    b = bits[w];                                                                   \
                } else { /* the chunk's last rows, fewer than 64 */                                \
                    for (int64_t q = 0; q < stop - i; q++)                                         \
                        b |= (uint64_t)(j->m[i + q] != 0) << q;                                    \
                }                                                                                  \
                if (b == ~0ull) {                                                                  \
                    int64_t e = w + 1;                                                             \
                    while (e < words && bits[e] == ~0ull)                                          \
                        e++;                                                                       \
                    const int64_t run = (e - w) * 64;                                              \
                    const int64_t fit = k >= last ? 0 : last - k < run ? last - k : run;           \
                    if (fit > 0)                                                                   \
                        RUN(k, i, fit);                                                            \
                    k += run, i += run, w = e - 1;                                                 \
                    continue;                                                                      \
                }                                                                                  \
                if (b) {                                                                           \
                    WORD(T)                                                                        \
                }                                                                                  \
                i += 64;                                                                           \
            }                                                                                      \
            if (k != j->first[c + 1])                                                              \
                atomic_store(&((nz_job *)ctx)->changed, 1);                                        \
        }                                                                                          \
    }

/* compress: rows of src, of 1, 2, 4 or 8 bytes moved as integers */
#define CZ_PUT(T, to, q) memcpy(to, j->src + (size_t)(q) * sizeof(T), sizeof(T))
#define CZ_PUT8(T, k, q)                                                                           \
    memcpy(j->dst + (size_t)(k) * sizeof(T), j->src + (size_t)(q) * sizeof(T), 8 * sizeof(T))
#define CZ_RUN(k, q, fit)                                                                          \
    memcpy(j->dst + (size_t)(k)*j->row, j->src + (size_t)(q)*j->row, (size_t)(fit)*j->row)
#define CZ_WORD(T) NZ_WORD(T, CZ_PUT, CZ_PUT8)
/* rows of other sizes: the set bits each, the row's copy costing more than the loop */
#define CZ_ANY_WORD(T)                                                                             \
    (void)scratch;                                                                                 \
    do {                                                                                           \
        if (k < last)                                                                              \
            memcpy(j->dst + (size_t)k * j->row,                                                    \
                   j->src + (size_t)(i + __builtin_ctzll(b)) * j->row, j->row);                    \
        k++;                                                                                       \
        b &= b - 1;                                                                                \
    } while (b);
/* nonzero of a 1-d mask: the positions themselves */
#define NZ1_PUT(T, to, q)                                                                          \
    do {                                                                                           \
        const T v_ = (q);                                                                          \
        memcpy(to, &v_, sizeof v_);                                                                \
    } while (0)
#define NZ1_PUT8(T, k, q)                                                                          \
    for (int r_ = 0; r_ < 8; r_++)                                                                 \
    NZ_OUT(j)[(k) + r_] = (q) + r_
#define NZ1_RUN(k, q, fit)                                                                         \
    for (int64_t r_ = 0; r_ < (fit); r_++)                                                         \
    NZ_OUT(j)[(k) + r_] = (q) + r_
#define NZ1_WORD(T) NZ_WORD(T, NZ1_PUT, NZ1_PUT8)

static void nz_none(int64_t begin, int64_t end, void *ctx) { (void)begin, (void)end, (void)ctx; }

/* nonzero of a mask of 2 or more dims: each true element's coordinates carried on
 * from the last one's (a division only where a step crosses more than one row),
 * the mask's shape copied here so that the rows' int64 stores do not reload it */
typedef struct {
    int64_t pos, at[PDT_MAX_DIMS], shape[PDT_MAX_DIMS], scratch[PDT_MAX_DIMS];
} nz_at;

static inline void nz_at_start(const nz_job *j, nz_at *a, int64_t q, int nd)
{
    a->pos = q;
    for (int d = nd - 1; d >= 0; d--) {
        a->shape[d] = j->shape[d];
        a->at[d] = q % j->shape[d];
        q /= j->shape[d];
    }
}

/* moves a to element q (past a's), returning q's last coordinate (a->at[nd - 1]),
 * which the row takes from the register: a row read back whole from a->at after
 * that store stalls on its forwarding (4 ms instead of 1.3 for 1e6 rows of 2 dims
 * at half density) */
static inline int64_t nz_at_move(nz_at *a, int64_t q, int nd)
{
    int d = nd - 1;
    int64_t c = a->at[d] + (q - a->pos);
    a->pos = q;
    while (d > 0 && c >= a->shape[d]) { /* q < n: dim 0 never overflows */
        const int64_t s = a->shape[d];
        int64_t carry = 1;
        if (c < 2 * s)
            c -= s;
        else
            carry = c / s, c %= s;
        a->at[d--] = c;
        c = a->at[d] + carry;
    }
    a->at[d] = c;
    return a->at[nd - 1];
}

#define NZN_START                                                                                  \
    nz_at cur;                                                                                     \
    int64_t *const out_ = NZ_OUT(j);                                                               \
    nz_at_start(j, &cur, i, nd_);
/* row kk: the coordinates of element q, of nd_ dims */
#define NZN_ROW(kk, q)                                                                             \
    do {                                                                                           \
        const int64_t c_ = nz_at_move(&cur, (q), nd_);                                             \
        int64_t *to_ = (kk) < last ? out_ + (kk)*nd_ : cur.scratch;                                \
        for (int d_ = 0; d_ < nd_ - 1; d_++)                                                       \
            to_[d_] = cur.at[d_];                                                                  \
        to_[nd_ - 1] = c_;                                                                         \
    } while (0)
#define NZN_WORD(T)                                                                                \
    (void)scratch;                                                                                 \
    do {                                                                                           \
        NZN_ROW(k, i + __builtin_ctzll(b));                                                        \
        k++;                                                                                       \
        b &= b - 1;                                                                                \
    } while (b);
#define NZN_RUN(k, q, fit)                                                                         \
    for (int64_t r_ = 0; r_ < (fit); r_++)                                                         \
    NZN_ROW((k) + r_, (q) + r_)

NZ_BITS(cz_write1, uint8_t, CZ_WORD, CZ_RUN, )
NZ_BITS(cz_write2, uint16_t, CZ_WORD, CZ_RUN, )
NZ_BITS(cz_write4, uint32_t, CZ_WORD, CZ_RUN, )
NZ_BITS(cz_write8, uint64_t, CZ_WORD, CZ_RUN, )
NZ_BITS(cz_write_any, char, CZ_ANY_WORD, CZ_RUN, )
NZ_BITS(nz_write1, int64_t, NZ1_WORD, NZ1_RUN, )
/* 2 dims (the count known to the compiler), and more */
NZ_BITS(nz_write2, char, NZN_WORD, NZN_RUN, const int nd_ = 2; NZN_START)
NZ_BITS(nz_writen, char, NZN_WORD, NZN_RUN, const int nd_ = j->ndim; NZN_START)

pdt_status pdt_cpu_compress(const pdt_tensor *src, const pdt_tensor *mask, pdt_make_rows make,
                            void *ctx)
{
    const int64_t n = pdt_tensor_numel(mask);
    nz_job j = {.m = (const uint8_t *)pdt_tensor_ptr(mask),
                .n = n,
                .ndim = 1,
                .shape = mask->shape,
                .src = (const char *)pdt_tensor_ptr(src),
                .row = n ? (size_t)(pdt_tensor_numel(src) / n) * pdt_dtype_size(src->dtype) : 0};
    void (*write)(int64_t, int64_t, void *) = j.row == 0   ? nz_none /* nothing to copy */
                                              : j.row == 1 ? cz_write1
                                              : j.row == 2 ? cz_write2
                                              : j.row == 4 ? cz_write4
                                              : j.row == 8 ? cz_write8
                                                           : cz_write_any;
    return nz_run(&j, write, "index", make, ctx);
}

pdt_status pdt_cpu_nonzero(const pdt_tensor *mask, pdt_make_rows make, void *ctx)
{
    nz_job j = {.m = (const uint8_t *)pdt_tensor_ptr(mask),
                .n = pdt_tensor_numel(mask),
                .ndim = mask->ndim,
                .shape = mask->shape,
                .row = sizeof(int64_t)};
    return nz_run(&j,
                  j.ndim == 1   ? nz_write1
                  : j.ndim == 2 ? nz_write2
                                : nz_writen,
                  "nonzero", make, ctx);
}
