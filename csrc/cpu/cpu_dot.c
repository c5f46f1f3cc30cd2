/* cpu_dot.c - float32 and float64 dot products of contiguous vectors (matmul's
 * m == n == 1: dot, a 1-D @ 1-D, a row times a column): float32 in float32 blocks
 * added in double, float64 in double lanes, their chunks split over the threads.
 *
 * Note [float32 dot products]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The vectors are cut into chunks of DOT_CHUNK elements, the chunks' sums added in order
 * in double (by groups: Note [float64 dot products]).  Within a chunk (dot64_f32,
 * cpu_vsum.h) each product is rounded to float32, as x * y rounds it, and added in float32
 * into lane i % 64 of a block of 1,024 elements (16 products a lane); each block's lanes
 * are added into 64 double lanes, folded at the end in a fixed tree.  The order depends on
 * the length only, never on the thread count or the instruction-set level, and there is no
 * fused multiply-add: the same bits wherever it runs on the CPU.  Against the exact dot
 * ref of the same values, for vectors of k elements:
 *     |got - ref| <= 2^-24 |ref| + (17 2^-24 + k 2^-53) sum(|x_i y_i|)
 * (the final rounding; the product and 15 float32 additions a lane per block, gamma_16 <
 * 17 2^-24; the double additions), while the products and the lanes' sums within a block
 * stay in float32's normal range (past it they give inf, as a float32 sum does; a product
 * below 2^-126 adds an absolute error of up to 2^-150 each). OpenBLAS's sdot, which this
 * replaces for contiguous float32 vectors, rounds in float32 all the way, k / 32 or so
 * additions a lane, and ran on one thread; the pool takes the chunks here from 2 GRAIN
 * elements (the threshold of the reductions, cpu_reduce.c), float64's from half as many,
 * the same bytes (3e4 and 4e4 float64 on two threads: 4.8 and 6.7 us on one thread -> 2.9
 * and 4.0, NumPy's ddot 3.1-4.0 and 3.7-4.0).  Products exact in double (as norm's
 * squares) took twice as long from the L2 cache: 5e4 elements on one thread 10 us against
 * 4.6 to 5.5 (Intel Xeon, AVX-512).  dot of 1e3, 1e5 and 1e6 float32 against NumPy's (its
 * sdot): 0.62, 0.87 and 0.48 of its time, where sdot here gave 1.05, 1.00 and 1.26
 * (benchmarks.breadth, 5 rounds).  Strided vectors still go to the BLAS (cpu_gemm.c).
 *
 * Note [float64 dot products]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * OpenBLAS's ddot, split by OpenBLAS over our pool (Note [OpenBLAS on our pool] in
 * cpu_blas.c), gained nothing from the second thread: 1e5 elements took 19 us on two
 * threads and 17 on one, where NumPy's ddot on OpenBLAS's own threads took 10.4.
 * float64 vectors now take the chunks above: within a chunk (dot32_f64, cpu_vsum.h)
 * each product is rounded to double and added into lane i % 32, the lanes folded in
 * a fixed tree; the chunks' sums are added in order, by groups of DOT_GROUP (each
 * group's from its first, then the groups'), the order in which the reductions add
 * a float64 sum of squares (sumsq_f64 in cpu_reduce.c), which is a dot product of x
 * with itself: norm(x)^2 has the bits of dot(x, x).  The same bits on any thread
 * count and level (no fused multiply-add), and for vectors of k elements
 *     |got - ref| <= (ceil(min(k, 4096) / 32) + 6 + ceil(k / 4096)) 2^-53 sum(|x_i y_i|)
 * (a product's rounding, at most 128 additions a lane, the fold's 5, the chunks'
 * additions; each a relative 2^-53, to first order), barring underflow and overflow
 * (a product below 2^-1022 adds an absolute error of up to 2^-1075).
 */
#include <stdint.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "cpu_sum.h"

#define DOT_CHUNK ((int64_t)4096)                 /* elements per partial sum */
#define DOT_GROUP (PDT_CPU_SUM_CHUNK / DOT_CHUNK) /* partial sums of a reduction's chunk */
#define GRAIN ((int64_t)1 << 15)        /* elements below which a thread is not worth it */
#define CHUNKS_PER_ROUND ((int64_t)256) /* partial sums gathered at once */

typedef struct dot_job {
    const void *x, *y;
    int f64;          /* float64 vectors, else float32 */
    int64_t k, first; /* the vectors' length; the round's first chunk */
    double partial[CHUNKS_PER_ROUND];
} dot_job;

static double dot_chunk(const dot_job *j, int64_t at, int64_t n)
{
    if (j->f64 && j->x == j->y) /* a sum of squares (norm's): the same bits, one load */
        return pdt_cpu_simd()->sumsq32_f64((const double *)j->x + at, n);
    if (j->f64)
        return pdt_cpu_simd()->dot32_f64((const double *)j->x + at, (const double *)j->y + at, n);
    return pdt_cpu_simd()->dot64_f32((const float *)j->x + at, (const float *)j->y + at, n);
}

static void chunks_range(int64_t begin, int64_t end, void *ctx)
{
    dot_job *j = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t at = (j->first + c) * DOT_CHUNK;
        int64_t n = j->k - at < DOT_CHUNK ? j->k - at : DOT_CHUNK;
        j->partial[c] = dot_chunk(j, at, n);
    }
}

_Static_assert(PDT_CPU_SUM_CHUNK % DOT_CHUNK == 0 && CHUNKS_PER_ROUND % DOT_GROUP == 0,
               "a reduction's chunk is whole dot chunks, a round whole groups");

/* The sum of x[i] y[i] over [0, j->k), k >= 1, in the order of Note [float32 dot
 * products] (Note [float64 dot products]): the chunks split over the pool when
 * split, else on this thread. */
static double dot(dot_job *j, int split)
{
    if (j->k <= DOT_CHUNK)
        return dot_chunk(j, 0, j->k);
    const int64_t chunks = (j->k + DOT_CHUNK - 1) / DOT_CHUNK;
    double s = 0.0, g = 0.0;
    for (j->first = 0; j->first < chunks; j->first += CHUNKS_PER_ROUND) {
        int64_t count = chunks - j->first < CHUNKS_PER_ROUND ? chunks - j->first : CHUNKS_PER_ROUND;
        if (split)
            pdt_cpu_parallel_for(count, (j->f64 ? GRAIN / 2 : GRAIN) / DOT_CHUNK, chunks_range, j);
        else
            chunks_range(0, count, j);
        for (int64_t c = 0; c < count; c++) {
            g = c % DOT_GROUP == 0 ? j->partial[c] : g + j->partial[c];
            if (c % DOT_GROUP == DOT_GROUP - 1 || c == count - 1)
                s = j->first == 0 && c < DOT_GROUP ? g : s + g;
        }
    }
    return s;
}

double pdt_cpu_dot_f64(const double *x, const double *y, int64_t k, int split)
{
    dot_job j; /* not zeroed: its 2 KB of partials cost 3 to 8 times a short row's dot */
    j.x = x, j.y = y, j.f64 = 1, j.k = k;
    return dot(&j, split);
}

int pdt_cpu_dot(const pdt_gemm_args *g)
{
    /* op(A) (1, k) with stride 1, op(B) (k, 1) with stride 1 (cpu_gemm.c's
     * Note [matrix times vector] for the strides of the other cases) */
    if ((g->dtype != PDT_FLOAT32 && g->dtype != PDT_FLOAT64) || g->m != 1 || g->n != 1 ||
        g->k < 1 || (g->trans_a && g->lda != 1) || (!g->trans_b && g->ldb != 1))
        return 0;
    dot_job j; /* as pdt_cpu_dot_f64's, not zeroed */
    j.f64 = g->dtype == PDT_FLOAT64, j.k = g->k;
    const size_t es = j.f64 ? sizeof(double) : sizeof(float);
    for (int64_t i = 0; i < g->batch; i++) {
        j.x = (const char *)g->a + i * g->stride_a * (int64_t)es;
        j.y = (const char *)g->b + i * g->stride_b * (int64_t)es;
        const double d = dot(&j, 1);
        if (j.f64) {
            double *c = (double *)g->c + i * g->stride_c;
            c[0] = g->beta == 0 ? g->alpha * d : g->alpha * d + g->beta * c[0];
        } else {
            const float alpha = (float)g->alpha, beta = (float)g->beta, f = (float)d;
            float *c = (float *)g->c + i * g->stride_c;
            c[0] = beta == 0 ? alpha * f : alpha * f + beta * c[0];
        }
    }
    return 1;
}
