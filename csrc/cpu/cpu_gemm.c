/* cpu_gemm.c - the CPU backend's GEMM: float32 and float64 through OpenBLAS
 * (loaded on first use, cpu_blas.h), integers through a plain loop.
 *
 * The core hands over row-major operands (pdt_gemm_args): op(A) (m, k),
 * op(B) (k, n), C (m, n), each with a leading dimension and a batch stride
 * (0: one matrix shared by the batch).  CBLAS takes row-major directly, so the
 * flags pass through unchanged.  The core never asks for k == 0 with beta 0
 * or 1; any other k == 0 request only scales C, which is done here (a BLAS is
 * not asked to multiply empty matrices).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_blas.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

/* ---------------------------------------------------------------- floats */

/* c (rows, n) with leading dimension ldc: c = beta * c (beta 0: zeros). */
#define SCALE_FN(NAME, T)                                                                          \
    static void NAME(T *c, int64_t rows, int64_t n, int64_t ldc, double beta)                      \
    {                                                                                              \
        for (int64_t i = 0; i < rows; i++)                                                         \
            for (int64_t j = 0; j < n; j++)                                                        \
                c[i * ldc + j] = beta == 0.0 ? (T)0 : (T)(beta * c[i * ldc + j]);                  \
    }
SCALE_FN(scale_f32, float)
SCALE_FN(scale_f64, double)

/* Note [matrix times vector]
 * A product with n == 1 (matrix @ vector) or m == 1 (vector @ matrix) goes to gemv,
 * not to gemm with one column: OpenBLAS's gemm packs both operands into blocks first,
 * which for a vector is all overhead (3.7x NumPy's time at 1024, 2.8x at 4096).
 *   n == 1: y = C's column (stride ldc) = alpha op(A) x + beta y, x = op(B)'s column:
 *           B stored (k, 1) (stride ldb) or, transposed, (1, k) (stride 1).
 *   m == 1: C's row = op(A)'s row op(B), i.e. y = alpha op(B)^T x + beta y, with
 *           op(B)^T = B^T when B is stored (k, n) and B when stored (n, k).
 * With beta == 0, y is zeroed first and never read: a result block may hold NaNs
 * (the CPU block cache reuses memory), and some OpenBLAS versions compute 0 * y.
 * With m == n == 1 (dot, a row times a column) it is the BLAS dot itself, as NumPy's
 * dot: gemv with one row took 1.3 to 1.6 times NumPy's time from 1e5 elements (float32
 * contiguous vectors: cpu_dot.c instead). */
#define GEMV_FN(NAME, T, FN, DOT)                                                                  \
    static void NAME(const pdt_blas_table *t, const pdt_gemm_args *g, const T *a, const T *b,      \
                     T *c)                                                                         \
    {                                                                                              \
        T alpha = (T)g->alpha, beta = (T)g->beta;                                                  \
        blasint k = (blasint)g->k;                                                                 \
        if (g->n == 1 && g->m == 1) {                                                              \
            T d = t->DOT(k, a, g->trans_a ? (blasint)g->lda : 1, b,                                \
                         g->trans_b ? 1 : (blasint)g->ldb);                                        \
            c[0] = beta == 0 ? alpha * d : alpha * d + beta * c[0];                                \
        } else if (g->n == 1) {                                                                    \
            blasint m = (blasint)g->m, ldc = (blasint)g->ldc;                                      \
            if (beta == 0)                                                                         \
                for (blasint i = 0; i < m; i++)                                                    \
                    c[(int64_t)i * ldc] = 0;                                                       \
            t->FN(CblasRowMajor, g->trans_a ? CblasTrans : CblasNoTrans, g->trans_a ? k : m,       \
                  g->trans_a ? m : k, alpha, a, (blasint)g->lda, b,                                \
                  g->trans_b ? 1 : (blasint)g->ldb, beta, c, ldc);                                 \
        } else {                                                                                   \
            blasint n = (blasint)g->n;                                                             \
            if (beta == 0)                                                                         \
                for (blasint j = 0; j < n; j++)                                                    \
                    c[j] = 0;                                                                      \
            t->FN(CblasRowMajor, g->trans_b ? CblasNoTrans : CblasTrans, g->trans_b ? n : k,       \
                  g->trans_b ? k : n, alpha, b, (blasint)g->ldb, a,                                \
                  g->trans_a ? (blasint)g->lda : 1, beta, c, 1);                                   \
        }                                                                                          \
    }
GEMV_FN(gemv_f32, float, sgemv, sdot)
GEMV_FN(gemv_f64, double, dgemv, ddot)

static pdt_status gemm_float(const pdt_gemm_args *g)
{
    if (pdt_cpu_dot(g)) /* Note [float32 dot products] in cpu_dot.c, and float64's */
        return PDT_OK;
    const pdt_blas_table *t;
    pdt_status st = pdt_cpu_blas(&t);
    if (st != PDT_OK)
        return st;
    enum CBLAS_TRANSPOSE ta = g->trans_a ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = g->trans_b ? CblasTrans : CblasNoTrans;
    /* sizes and leading dimensions fit in blasint: the core checked them */
    blasint m = (blasint)g->m, n = (blasint)g->n, k = (blasint)g->k;
    blasint lda = (blasint)g->lda, ldb = (blasint)g->ldb, ldc = (blasint)g->ldc;
    pdt_blas_call call;
    st = pdt_cpu_blas_enter(&call, g->m * g->n * g->k);
    if (st != PDT_OK)
        return st;
    const int gemv = g->n == 1 || g->m == 1; /* Note [matrix times vector] */
    for (int64_t i = 0; i < g->batch; i++) {
        if (g->dtype == PDT_FLOAT32) {
            const float *a = (const float *)g->a + i * g->stride_a;
            const float *b = (const float *)g->b + i * g->stride_b;
            float *c = (float *)g->c + i * g->stride_c;
            if (gemv)
                gemv_f32(t, g, a, b, c);
            else
                t->sgemm(CblasRowMajor, ta, tb, m, n, k, (float)g->alpha, a, lda, b, ldb,
                         (float)g->beta, c, ldc);
        } else {
            const double *a = (const double *)g->a + i * g->stride_a;
            const double *b = (const double *)g->b + i * g->stride_b;
            double *c = (double *)g->c + i * g->stride_c;
            if (gemv)
                gemv_f64(t, g, a, b, c);
            else
                t->dgemm(CblasRowMajor, ta, tb, m, n, k, g->alpha, a, lda, b, ldb, g->beta, c, ldc);
        }
    }
    pdt_cpu_blas_leave(&call);
    return PDT_OK;
}

/* -------------------------------------------------------------- integers */

/* Note [integer GEMM]
 * ~~~~~~~~~~~~~~~~~~~
 * Integer products wrap around on overflow (as in NumPy and PyTorch): the
 * arithmetic is done in the unsigned type of the same width, where wrapping is
 * defined, and converted back.  The loop is blocked as BLAS blocks it: a task
 * owns up to IG_MC rows of C; for each panel of B (IG_KC rows, about 256 KiB
 * of columns, which stays in the core's L2 cache while every row of the task
 * uses it) each row of C adds alpha a[i, p] times each row of the panel, with
 * the dispatched axpy (cpu_simd.h: AVX2's vpmulld, AVX-512's vpmullq).  A
 * transposed B is packed panel by panel, so the inner loop always runs along
 * contiguous rows.  Wrapping arithmetic is exact, so the blocking changes no
 * value: the result is the same for any blocking and any number of threads. */
#define IG_MC 32
#define IG_KC 128
#define IG_PANEL_BYTES ((int64_t)256 * 1024)

typedef struct int_gemm_job {
    const pdt_gemm_args *g;
    int64_t row_blocks; /* per matrix of the batch */
    int oom;
} int_gemm_job;

#define INT_GEMM_BLOCKS(NAME, T, UT, AXPY)                                                         \
    static void NAME(int64_t begin, int64_t end, void *ctx)                                        \
    {                                                                                              \
        int_gemm_job *job = ctx;                                                                   \
        const pdt_gemm_args *g = job->g;                                                           \
        const int64_t m = g->m, n = g->n, k = g->k, lda = g->lda, ldb = g->ldb;                    \
        const int64_t nc_max = IG_PANEL_BYTES / IG_KC / (int64_t)sizeof(T);                        \
        const UT alpha = (UT)(int64_t)g->alpha, beta = (UT)(int64_t)g->beta;                       \
        UT *pack = NULL;                                                                           \
        if (g->trans_b && k > 0) {                                                                 \
            pack = malloc((size_t)(IG_KC * nc_max) * sizeof(UT));                                  \
            if (!pack) {                                                                           \
                __atomic_store_n(&job->oom, 1, __ATOMIC_RELAXED);                                  \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
        for (int64_t t = begin; t < end; t++) {                                                    \
            int64_t bi = t / job->row_blocks, i0 = (t % job->row_blocks) * IG_MC;                  \
            int64_t i1 = i0 + IG_MC < m ? i0 + IG_MC : m;                                          \
            const T *a = (const T *)g->a + bi * g->stride_a; /* op(A): (m, k) */                   \
            const T *b = (const T *)g->b + bi * g->stride_b; /* op(B): (k, n) */                   \
            T *c = (T *)g->c + bi * g->stride_c;                                                   \
            for (int64_t i = i0; i < i1; i++)                                                      \
                for (int64_t j = 0; j < n; j++)                                                    \
                    c[i * g->ldc + j] = beta == 0 ? (T)0 : (T)(beta * (UT)c[i * g->ldc + j]);      \
            for (int64_t p0 = 0; p0 < k; p0 += IG_KC) {                                            \
                int64_t kc = k - p0 < IG_KC ? k - p0 : IG_KC;                                      \
                for (int64_t j0 = 0; j0 < n; j0 += nc_max) {                                       \
                    int64_t nc = n - j0 < nc_max ? n - j0 : nc_max;                                \
                    const UT *panel;                                                               \
                    int64_t ldp;                                                                   \
                    if (!g->trans_b) {                                                             \
                        panel = (const UT *)(b + p0 * ldb + j0);                                   \
                        ldp = ldb;                                                                 \
                    } else { /* B stored (n, k): pack rows p0.. of op(B) */                        \
                        for (int64_t p = 0; p < kc; p++)                                           \
                            for (int64_t j = 0; j < nc; j++)                                       \
                                pack[p * nc + j] = (UT)b[(j0 + j) * ldb + p0 + p];                 \
                        panel = pack;                                                              \
                        ldp = nc;                                                                  \
                    }                                                                              \
                    for (int64_t i = i0; i < i1; i++) {                                            \
                        UT *crow = (UT *)(c + i * g->ldc + j0);                                    \
                        for (int64_t p = 0; p < kc; p++) {                                         \
                            T av = g->trans_a ? a[(p0 + p) * lda + i] : a[i * lda + p0 + p];       \
                            AXPY(crow, panel + p * ldp, alpha * (UT)av, nc);                       \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        free(pack);                                                                                \
    }
INT_GEMM_BLOCKS(int_gemm_blocks_i32, int32_t, uint32_t, pdt_cpu_simd()->axpy_u32)
INT_GEMM_BLOCKS(int_gemm_blocks_i64, int64_t, uint64_t, pdt_cpu_simd()->axpy_u64)

static pdt_status gemm_int(const pdt_gemm_args *g)
{
    int_gemm_job job = {g, (g->m + IG_MC - 1) / IG_MC, 0};
    int64_t tasks = g->batch * job.row_blocks;
    int64_t work_per_task = IG_MC * g->n * (g->k > 0 ? g->k : 1);
    int64_t grain = work_per_task >= 32768 ? 1 : 32768 / work_per_task;
    pdt_cpu_parallel_for(tasks, grain,
                         g->dtype == PDT_INT32 ? int_gemm_blocks_i32 : int_gemm_blocks_i64, &job);
    if (job.oom)
        return pdt_fail(PDT_ERR_OOM,
                        "matmul: out of memory for a %lld-byte packing buffer on the CPU",
                        (long long)IG_PANEL_BYTES);
    return PDT_OK;
}

/* ------------------------------------------------------------------ entry */

pdt_status pdt_cpu_gemm(const pdt_gemm_args *g)
{
    switch (g->dtype) {
    case PDT_FLOAT32:
    case PDT_FLOAT64:
        if (g->k > 0)
            return gemm_float(g);
        for (int64_t i = 0; i < g->batch; i++) {
            if (g->dtype == PDT_FLOAT32)
                scale_f32((float *)g->c + i * g->stride_c, g->m, g->n, g->ldc, g->beta);
            else
                scale_f64((double *)g->c + i * g->stride_c, g->m, g->n, g->ldc, g->beta);
        }
        return PDT_OK;
    case PDT_INT32:
    case PDT_INT64: return gemm_int(g);
    case PDT_FLOAT16:
    case PDT_BFLOAT16: return pdt_cpu_gemm_half(g); /* cpu_gemm_half.c */
    default:
        return pdt_fail(PDT_ERR_UNSUPPORTED, "matmul: %s is not supported on the CPU",
                        pdt_dtype_name(g->dtype));
    }
}
