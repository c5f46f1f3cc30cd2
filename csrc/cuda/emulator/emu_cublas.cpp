/* emu_cublas.cpp - the emulated cuBLAS (libcublas.so.<CUBLAS_VER_MAJOR>): the
 * handful of entry points the CUDA backend loads (cuda_blas.c), with the
 * signatures of the toolkit's cublas_api.h.  A GEMM is a column-major reference
 * loop queued on the handle's stream of the emulated device (emu.h, Note
 * [emulated streams]); arguments are validated as the cuBLAS documentation
 * says.  Section names cited below are those of the cuBLAS Library User Guide.
 * Part of the emulated build only (README.md beside this file).
 */
#include <cublas_v2.h>

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <mutex>
#include <type_traits>

#include "emu.h"
#include "emu_cublas.h"
#include "pdt_half.h"

namespace {

using emu_blas::DOC_SET_STREAM;

bool is_special_stream(cudaStream_t s)
{
    return s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

/* "cuBLAS Datatypes Reference", cublasOperation_t: CUBLAS_OP_N, CUBLAS_OP_T and
 * CUBLAS_OP_C (the transpose, for real types); CUBLAS_OP_CONJG is not
 * supported by GEMM.  Returns -1 for an invalid value, else 1 when transposed. */
int transposed(cublasOperation_t op)
{
    switch (op) {
    case CUBLAS_OP_N: return 0;
    case CUBLAS_OP_T:
    case CUBLAS_OP_C: return 1;
    default: return -1;
    }
}

/* Rounds x to TF32 as the tensor cores read it: 10 explicit mantissa bits,
 * round to nearest with ties away from zero (PTX ISA, cvt.rna.tf32.f32).
 * "cuBLAS Datatypes Reference", cublasMath_t: CUBLAS_TF32_TENSOR_OP_MATH lets
 * single-precision routines use TF32 tensor cores, i.e. these inputs.  The low
 * 13 bits are dropped after adding half their weight to the magnitude; a carry
 * into the exponent is the correct rounding (up to infinity at the top).
 * Infinities and NaNs are kept. */
float round_tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) {
        u += 0x1000u;
        u &= ~0x1fffu;
    }
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Elements spanned by a column-major rows x cols matrix with leading
 * dimension ld: (cols - 1) * ld + rows, or 0 when it is empty. */
int64_t matrix_elems(int rows, int cols, int ld)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    return (int64_t)(cols - 1) * ld + rows;
}

/* Checks that the whole extent of one operand over all batches, [base +
 * min offset, base + max offset + matrix), is memory `dev` may access
 * (emu.h, check_device_access; "cublas<t>gemmStridedBatched()": batch i of A
 * starts at A + i * strideA). */
template <typename T>
void check_operand(const char *who, const char *what, int dev, const T *base, int64_t elems,
                   long long stride, int batch)
{
    if (elems == 0 || batch == 0)
        return;
    int64_t last = (int64_t)stride * (batch - 1);
    int64_t lo = std::min<int64_t>(0, last), hi = std::max<int64_t>(0, last) + elems;
    const char *first = (const char *)base + lo * (int64_t)sizeof(T);
    pdt_emu::check_device_access(who, what, dev, first, (size_t)(hi - lo) * sizeof(T));
}

/* The 16-bit storage types of cublasGemmEx (CUDA_R_16F, CUDA_R_16BF): bits
 * converted by pdt_half.h (IEEE binary16 and bfloat16, round to nearest even). */
struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};

/* One GEMM call's arguments, copied when it is queued: matrices of storage
 * type S, alpha, beta and the accumulation in the scale type T. */
template <typename S, typename T = S> struct gemm_call {
    const char *name;
    int device;
    int ta, tb, m, n, k;
    T alpha, beta;
    const S *a;
    int lda;
    long long sa;
    const S *b;
    int ldb;
    long long sb;
    S *c;
    int ldc;
    long long sc;
    int batch;
    bool tf32;
    bool reduced; /* Note [emulated reduced-precision reduction] */
};

template <typename T> T load(const T *p, bool tf32)
{
    (void)tf32;
    return *p;
}
template <> float load<float>(const float *p, bool tf32) { return tf32 ? round_tf32(*p) : *p; }
float load(const f16 *p, bool) { return pdt_f16_to_f32(p->bits); }
float load(const bf16 *p, bool) { return pdt_bf16_to_f32(p->bits); }

template <typename S, typename T> void store(S *p, T v) { *p = (S)v; }
void store(f16 *p, float v) { p->bits = pdt_f32_to_f16(v); }
void store(bf16 *p, float v) { p->bits = pdt_f32_to_bf16(v); }

/* v rounded to the storage type S and back (the identity for float and double). */
template <typename S, typename T> T through(T v)
{
    S s;
    store(&s, v);
    return load(&s, false);
}

/* Note [emulated reduced-precision reduction]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * "cublasMath_t": unless CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION is
 * set, a GEMM with a lower-precision output may reduce partial results in that
 * precision (cuBLAS's split-K).  The emulator is strict where cuBLAS is loose:
 * when it is allowed and the output is 16-bit, products with k >= kSplitK are
 * summed in two halves of k, each rounded to the output type before they are
 * added; with the flag set, everything is accumulated in the compute type. */
constexpr int kSplitK = 256;

/* sum over l in [l0, l1) of op(A)(i, l) * op(B)(l, j), accumulated in T */
template <typename S, typename T>
T dot(const gemm_call<S, T> &g, const S *a, const S *b, int i, int j, int l0, int l1)
{
    T acc = T(0);
    for (int l = l0; l < l1; l++) {
        const S *ail = g.ta ? a + l + (int64_t)i * g.lda : a + i + (int64_t)l * g.lda;
        const S *blj = g.tb ? b + j + (int64_t)l * g.ldb : b + l + (int64_t)j * g.ldb;
        acc += load(ail, g.tf32) * load(blj, g.tf32);
    }
    return acc;
}

/* The reference GEMM, run when the stream reaches it ("cublas<t>gemm()"):
 * C = alpha op(A) op(B) + beta C, column-major, accumulated in T in the order
 * l = 0 .. k-1, so results are deterministic; a 16-bit C is rounded once
 * ("cublasGemmEx()"), or per Note [emulated reduced-precision reduction]. */
template <typename S, typename T> void run_gemm(const gemm_call<S, T> &g)
{
    const char *who = g.name;
    int a_rows = g.ta ? g.k : g.m, a_cols = g.ta ? g.m : g.k;
    int b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
    /* emu.h pointer rule: A, B, C must be live memory the handle's device may
     * access, over exactly the elements the call reads or writes. */
    check_operand(who, "A", g.device, g.a, matrix_elems(a_rows, a_cols, g.lda), g.sa, g.batch);
    check_operand(who, "B", g.device, g.b, matrix_elems(b_rows, b_cols, g.ldb), g.sb, g.batch);
    check_operand(who, "C", g.device, g.c, matrix_elems(g.m, g.n, g.ldc), g.sc, g.batch);
    const bool split = g.reduced && g.k >= kSplitK;
    for (int p = 0; p < g.batch; p++) {
        const S *a = g.a + (int64_t)g.sa * p, *b = g.b + (int64_t)g.sb * p;
        S *c = g.c + (int64_t)g.sc * p;
        for (int j = 0; j < g.n; j++) {
            for (int i = 0; i < g.m; i++) {
                S *cij = c + i + (int64_t)j * g.ldc;
                if (g.k == 0) {
                    /* "cublas<t>gemm()": C = beta C; with beta == 0, C is not an
                     * input (BLAS convention) and is set to zero. */
                    store(cij, g.beta == T(0) ? T(0) : g.beta * load(cij, false));
                    continue;
                }
                T acc;
                if (split) /* the partial sums in the output type */
                    acc = through<S>(dot(g, a, b, i, j, 0, g.k / 2)) +
                          through<S>(dot(g, a, b, i, j, g.k / 2, g.k));
                else
                    acc = dot(g, a, b, i, j, 0, g.k);
                /* "cublas<t>gemm()": "if beta == 0 then C does not have to be a
                 * valid input": never read, so NaN or Inf there cannot leak. */
                store(cij,
                      g.beta == T(0) ? g.alpha * acc : g.alpha * acc + g.beta * load(cij, false));
            }
        }
    }
}

/* Validates and queues one (batched) GEMM; the shared body of the entry
 * points.  Returns the cuBLAS status; nothing is queued unless SUCCESS. */
template <typename S, typename T = S>
cublasStatus_t gemm(const char *name, cublasHandle_t handle, cublasOperation_t transa,
                    cublasOperation_t transb, int m, int n, int k, const T *alpha, const S *A,
                    int lda, long long sa, const S *B, int ldb, long long sb, const T *beta, S *C,
                    int ldc, long long sc, int batch)
{
    /* "cublas<t>gemm()", return values: CUBLAS_STATUS_NOT_INITIALIZED when the
     * library was not initialized (no handle). */
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int ta = transposed(transa), tb = transposed(transb);
    /* "cublas<t>gemm()", return values: CUBLAS_STATUS_INVALID_VALUE "if m < 0 or
     * n < 0 or k < 0", if transa or transb is not N, T or C, "if lda < max(1, m)
     * if transa == CUBLAS_OP_N and lda < max(1, k) otherwise", "if ldb < max(1,
     * k) if transb == CUBLAS_OP_N and ldb < max(1, n) otherwise", "if ldc <
     * max(1, m)", or if alpha or beta is NULL.  "cublas<t>gemmStridedBatched()"
     * adds batchCount < 0. */
    if (m < 0 || n < 0 || k < 0 || batch < 0 || ta < 0 || tb < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (lda < std::max(1, ta ? k : m) || ldb < std::max(1, tb ? n : k) || ldc < std::max(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;

    cudaStream_t stream;
    cublasMath_t math;
    const int device = emu_blas::settings(handle, name, &stream, &math);

    /* "cublasSetPointerMode()" / "Scalar Parameters": with
     * CUBLAS_POINTER_MODE_HOST (the default, and the only mode emulated) alpha
     * and beta are host pointers, read before the call returns. */
    const T *scalars[2] = {alpha, beta};
    for (int i = 0; i < 2; i++) {
        pdt_emu::mem_info info;
        if (pdt_emu::lookup(scalars[i], &info) && info.kind == pdt_emu::MEM_DEVICE)
            pdt_emu::violation(name,
                               "cuBLAS Library User Guide, \"cublasSetPointerMode()\": with "
                               "CUBLAS_POINTER_MODE_HOST (the default) alpha and beta are host "
                               "pointers",
                               "%s %p is device memory of device %d", i ? "beta" : "alpha",
                               (const void *)scalars[i], info.device);
    }

    /* "cublas<t>gemm()": nothing to compute for an empty C or batch. */
    if (m == 0 || n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;

    pdt_emu::stream *s = emu_blas::stream_of(handle, name, device, stream);
    /* Note [fault injection] (and a device a sticky error corrupted) */
    if (pdt_emu::fault_due("cublasGemm") || pdt_emu::sticky_error(device) != cudaSuccess)
        return CUBLAS_STATUS_EXECUTION_FAILED;

    gemm_call<S, T> g;
    g.name = name;
    g.device = device;
    g.ta = ta;
    g.tb = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.alpha = *alpha;
    g.beta = *beta;
    g.a = A;
    g.lda = lda;
    g.sa = sa;
    g.b = B;
    g.ldb = ldb;
    g.sb = sb;
    g.c = C;
    g.ldc = ldc;
    g.sc = sc;
    g.batch = batch;
    /* "cuBLAS Datatypes Reference", cublasMath_t (low 4 bits): only
     * CUBLAS_TF32_TENSOR_OP_MATH lets single-precision routines round inputs
     * to TF32; DEFAULT and PEDANTIC do not, and double precision is never
     * affected.  The DISALLOW_REDUCED_PRECISION_REDUCTION flag matters for the
     * 16-bit outputs only (Note [emulated reduced-precision reduction]). */
    g.tf32 = std::is_same<S, float>::value && (math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
    g.reduced = sizeof(S) == 2 && !(math & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    /* Work is asynchronous and ordered in the handle's stream ("cublasSetStream()"). */
    pdt_emu::enqueue(s, name, [g]() { run_gemm(g); });
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace

/* ---------------------------------------------------- helper functions */

/* "cublasCreate()": "The cuBLAS library context is tied to the current CUDA
 * device"; CUBLAS_STATUS_INVALID_VALUE when handle is NULL. */
EMU_CUBLAS_API cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (pdt_emu::fault_due("cublasCreate")) /* Note [fault injection] */
        return CUBLAS_STATUS_ALLOC_FAILED;
    void *resources = nullptr;
    if (cudaMalloc(&resources, pdt_emu::kHandleBytes) != cudaSuccess)
        return CUBLAS_STATUS_ALLOC_FAILED; /* Note [emulated handle memory] */
    cublasContext *h = new cublasContext;
    h->device = pdt_emu::current_device();
    h->stream = 0;
    h->math = CUBLAS_DEFAULT_MATH;
    h->resources = resources;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasDestroy()": releasing the handle's resources "will implicitly call
 * cudaDeviceSynchronize()" (on the handle's device); CUBLAS_STATUS_NOT_INITIALIZED
 * when the library was not initialized. */
EMU_CUBLAS_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(handle->device) == cudaSuccess) {
        (void)cudaDeviceSynchronize();
        (void)cudaFree(handle->resources);
        (void)cudaSetDevice(previous);
    }
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasGetVersion()": the cuBLAS version, CUBLAS_VERSION of cublas_api.h. */
EMU_CUBLAS_API cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    (void)handle;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasGetProperty()": MAJOR_VERSION, MINOR_VERSION or PATCH_LEVEL of the
 * library; here those of the toolkit headers it was built against. */
EMU_CUBLAS_API cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

/* "cublasGetStatusName()" / "cublasGetStatusString()": a string for each
 * cublasStatus_t ("cuBLAS Datatypes Reference"); here its name. */
EMU_CUBLAS_API const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
#define EMU_CUBLAS_STATUS(s)                                                                       \
    case s: return #s;
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_SUCCESS)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_NOT_INITIALIZED)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_ALLOC_FAILED)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_INVALID_VALUE)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_ARCH_MISMATCH)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_MAPPING_ERROR)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_EXECUTION_FAILED)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_INTERNAL_ERROR)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_NOT_SUPPORTED)
        EMU_CUBLAS_STATUS(CUBLAS_STATUS_LICENSE_ERROR)
#undef EMU_CUBLAS_STATUS
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

EMU_CUBLAS_API const char *cublasGetStatusString(cublasStatus_t status)
{
    return cublasGetStatusName(status);
}

/* "cublasSetStream()": later calls run on streamId; NULL means the default
 * stream.  CUBLAS_STATUS_NOT_INITIALIZED without a handle.  A stream of another
 * device breaks "cuBLAS context" (the handle's work runs on its device). */
EMU_CUBLAS_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle || pdt_emu::fault_due("cublasSetStream")) /* ... or Note [fault injection] */
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!is_special_stream(streamId)) {
        /* 0, cudaStreamLegacy and cudaStreamPerThread name the default stream
         * of whichever device is current when work is queued (checked then). */
        pdt_emu::stream *s = pdt_emu::resolve(streamId, "cublasSetStream");
        if (pdt_emu::stream_device(s) != handle->device)
            pdt_emu::violation("cublasSetStream", DOC_SET_STREAM,
                               "stream %p belongs to device %d, handle %p to device %d",
                               (void *)streamId, pdt_emu::stream_device(s), (void *)handle,
                               handle->device);
    }
    std::lock_guard<std::mutex> lock(handle->mu);
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasGetStream()": the stream set by cublasSetStream (NULL by default). */
EMU_CUBLAS_API cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUBLAS_STATUS_INVALID_VALUE;
    std::lock_guard<std::mutex> lock(handle->mu);
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasSetMathMode()": one of the cublasMath_t modes ("cuBLAS Datatypes
 * Reference"), optionally OR-ed with CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
 * anything else is CUBLAS_STATUS_INVALID_VALUE. */
EMU_CUBLAS_API cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    switch (base) {
    case CUBLAS_DEFAULT_MATH:
    case CUBLAS_TENSOR_OP_MATH:
    case CUBLAS_PEDANTIC_MATH:
    case CUBLAS_TF32_TENSOR_OP_MATH:
    case CUBLAS_FP32_EMULATED_BF16X9_MATH:
    case CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH: break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    std::lock_guard<std::mutex> lock(handle->mu);
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

/* "cublasGetMathMode()": the mode last set (CUBLAS_DEFAULT_MATH by default). */
EMU_CUBLAS_API cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    std::lock_guard<std::mutex> lock(handle->mu);
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ GEMM */

/* "cublas<t>gemm()" */
EMU_CUBLAS_API cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int m, int n, int k,
                                             const float *alpha, const float *A, int lda,
                                             const float *B, int ldb, const float *beta, float *C,
                                             int ldc)
{
    return gemm<float>("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0,
                       beta, C, ldc, 0, 1);
}

EMU_CUBLAS_API cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int m, int n, int k,
                                             const double *alpha, const double *A, int lda,
                                             const double *B, int ldb, const double *beta,
                                             double *C, int ldc)
{
    return gemm<double>("cublasDgemm", handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0,
                        beta, C, ldc, 0, 1);
}

/* "cublas<t>gemmStridedBatched()": batchCount GEMMs, the i-th on A + i *
 * strideA, B + i * strideB, C + i * strideC. */
EMU_CUBLAS_API cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb,
    long long int strideB, const float *beta, float *C, int ldc, long long int strideC,
    int batchCount)
{
    return gemm<float>("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda,
                       strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

EMU_CUBLAS_API cublasStatus_t cublasDgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb,
    long long int strideB, const double *beta, double *C, int ldc, long long int strideC,
    int batchCount)
{
    return gemm<double>("cublasDgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda,
                        strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

/* --------------------------------------------------------------- GEMM Ex */

namespace {

/* "cublasGemmEx()": the type combinations of its table that are emulated,
 * all with computeType CUBLAS_COMPUTE_32F or CUBLAS_COMPUTE_32F_PEDANTIC and
 * scaleType CUDA_R_32F (alpha and beta are floats): Atype == Btype in
 * {CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F} and Ctype the same.  The table's
 * other rows (a 16-bit A and B with a CUDA_R_32F C, 8-bit integers, complex types, CUBLAS_COMPUTE_16F, _64F, _32I and the
 * FAST_* compute types) are not emulated and, like any combination outside
 * the table, return CUBLAS_STATUS_NOT_SUPPORTED ("the combination of the
 * parameters Atype, Btype and Ctype and the algorithm type, algo, is not
 * supported").  algo: CUBLAS_GEMM_DEFAULT or CUBLAS_GEMM_DEFAULT_TENSOR_OP
 * (the others are hints the emulator does not model: NOT_SUPPORTED too). */
template <typename S>
cublasStatus_t gemm_ex_typed(const char *name, cublasHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, int m, int n, int k, const void *alpha,
                             const void *A, int lda, long long sa, const void *B, int ldb,
                             long long sb, const void *beta, void *C, int ldc, long long sc,
                             int batch)
{
    return gemm<S, float>(name, handle, transa, transb, m, n, k, (const float *)alpha, (const S *)A,
                          lda, sa, (const S *)B, ldb, sb, (const float *)beta, (S *)C, ldc, sc,
                          batch);
}

cublasStatus_t gemm_ex(const char *name, cublasHandle_t handle, cublasOperation_t transa,
                       cublasOperation_t transb, int m, int n, int k, const void *alpha,
                       const void *A, cudaDataType_t Atype, int lda, long long sa, const void *B,
                       cudaDataType_t Btype, int ldb, long long sb, const void *beta, void *C,
                       cudaDataType_t Ctype, int ldc, long long sc, int batch,
                       cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (computeType != CUBLAS_COMPUTE_32F && computeType != CUBLAS_COMPUTE_32F_PEDANTIC)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (algo != CUBLAS_GEMM_DEFAULT && algo != CUBLAS_GEMM_DEFAULT_TENSOR_OP)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    /* in the table but not emulated: a 16-bit A and B with a CUDA_R_32F C */
    if (Atype != Btype || Ctype != Atype)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    switch (Atype) {
    case CUDA_R_16F:
        return gemm_ex_typed<f16>(name, handle, transa, transb, m, n, k, alpha, A, lda, sa, B, ldb,
                                  sb, beta, C, ldc, sc, batch);
    case CUDA_R_16BF:
        return gemm_ex_typed<bf16>(name, handle, transa, transb, m, n, k, alpha, A, lda, sa, B, ldb,
                                   sb, beta, C, ldc, sc, batch);
    case CUDA_R_32F:
        return gemm_ex_typed<float>(name, handle, transa, transb, m, n, k, alpha, A, lda, sa, B,
                                    ldb, sb, beta, C, ldc, sc, batch);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

} // namespace

/* "cublasGemmEx()" */
EMU_CUBLAS_API cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const void *alpha, const void *A, cudaDataType_t Atype,
                                           int lda, const void *B, cudaDataType_t Btype, int ldb,
                                           const void *beta, void *C, cudaDataType_t Ctype, int ldc,
                                           cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return gemm_ex("cublasGemmEx", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B,
                   Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, computeType, algo);
}

/* "cublasGemmStridedBatchedEx()": cublasGemmEx's types, batchCount GEMMs on
 * A + i * strideA, B + i * strideB, C + i * strideC. */
EMU_CUBLAS_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType_t Atype, int lda, long long int strideA,
    const void *B, cudaDataType_t Btype, int ldb, long long int strideB, const void *beta, void *C,
    cudaDataType_t Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return gemm_ex("cublasGemmStridedBatchedEx", handle, transa, transb, m, n, k, alpha, A, Atype,
                   lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount,
                   computeType, algo);
}
