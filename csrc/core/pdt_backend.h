/* pdt_backend.h - the table of functions a device kind fills in.
 *
 * The core calls a backend only through this table, after validating every
 * argument (devices, dtypes, shapes, overlap).  Backends trust their inputs and
 * return PDT_OK, or a status with a message recorded by pdt_fail().  Adding a
 * device kind means adding a table, not editing every op.
 *
 * Indices passed to a backend are logical device indices (Note [logical
 * devices] in pdt_registry.c); the backend maps them to its physical devices
 * with pdt_physical_index.  pointer_device answers with a physical index.
 */
#ifndef PDT_BACKEND_H
#define PDT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pdt_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a kernel that counts its result's rows itself (nonzero, x[mask]) gets that
 * result: the core's make(ctx, rows, &out) allocates it on the op's device (accounted
 * as any other tensor), contiguous with rows along dim 0, and points out at it for
 * the kernel to write.  Called at most once, from the kernel's calling thread; on its
 * failure the kernel returns its status.  The core keeps the result (and releases it
 * when the kernel fails). */
typedef pdt_status (*pdt_make_rows)(void *ctx, int64_t rows, const pdt_tensor **out);

/* One buffer of a rank communicator's exchange (comm_exchange): count elements
 * of dtype at ptr, sent to (is_send) or received from rank peer. */
typedef struct pdt_comm_buffer {
    void *ptr;
    size_t count;
    pdt_dtype dtype;
    int peer;
    int is_send;
} pdt_comm_buffer;

typedef struct pdt_device_props {
    char name[256];
    size_t total_memory;
    int multiprocessors;
    int major, minor; /* compute capability; 0.0 for the CPU */
    /* cudaDeviceProp's figures that PyTorch's _CudaDeviceProperties reports (0 on the CPU) */
    int warp_size, max_threads_per_block, max_threads_per_sm, regs_per_sm;
    size_t shared_per_block, shared_per_block_optin, shared_per_sm;
    int l2_cache_size, is_integrated, is_multi_gpu_board;
    int pci_bus_id, pci_device_id, pci_domain_id;
    unsigned char uuid[16];
    /* 1: the backend allocates from a stream-ordered pool (cudaMallocFromPoolAsync);
     * 0: with plain cudaMalloc (a device without memory pools), or on the CPU */
    int memory_pools;
} pdt_device_props;

typedef enum pdt_copy_kind {
    PDT_COPY_H2H = 0, /* host to host (cpu backend)            */
    PDT_COPY_H2D = 1, /* host to device                          */
    PDT_COPY_D2H = 2, /* device to host                          */
    PDT_COPY_D2D = 3, /* within one device                       */
    PDT_COPY_PEER = 4 /* between two devices of the same kind    */
} pdt_copy_kind;

/* wait_stream directions. */
#define PDT_STREAM_OURS_WAITS 0
#define PDT_STREAM_EXTERNAL_WAITS 1

/* Flags for copy_bytes. */
#define PDT_COPY_NON_BLOCKING 1 /* may return before the copy is done (pinned host side only) */
#define PDT_COPY_HOST_PINNED 2  /* the host side is page-locked memory */
/* dst is a new tensor that its maker frees if the copy fails, so a failed copy may leave it
 * partly written; without this flag a failed copy leaves dst as it was (Note [whole pageable
 * copies] in cuda_copies.c). */
#define PDT_COPY_DST_FRESH 4

typedef enum pdt_random_kind {
    PDT_RANDOM_UNIFORM = 0, /* U[a, b)                 */
    PDT_RANDOM_NORMAL = 1,  /* N(mean a, std b)        */
    PDT_RANDOM_INT = 2,     /* integers in [low, high) */
} pdt_random_kind;

/* Philox 4x32-10 stream position for one random fill; see Note [Philox layout]
 * in pdt_philox.h. */
typedef struct pdt_random_spec {
    pdt_random_kind kind;
    uint64_t seed;
    uint64_t offset; /* first 128-bit counter block this fill uses */
    double a, b;
    int64_t low, high;
} pdt_random_spec;

/* ---- operations (issue 4) ---- */

typedef enum pdt_binary_op {
    PDT_OP_ADD = 0,
    PDT_OP_SUB,
    PDT_OP_MUL,
    PDT_OP_DIV,       /* true division (the core gives integers a float result dtype) */
    PDT_OP_FLOOR_DIV, /* Python's //: rounds toward -inf */
    PDT_OP_REMAINDER, /* Python's %: the sign of the divisor */
    PDT_OP_POW,
    PDT_OP_MAXIMUM, /* NaN propagates, as in PyTorch */
    PDT_OP_MINIMUM,
    PDT_OP_EQ, /* comparisons: the output is bool */
    PDT_OP_NE,
    PDT_OP_LT,
    PDT_OP_LE,
    PDT_OP_GT,
    PDT_OP_GE,
    PDT_OP_TRUNC_DIV,   /* div(rounding_mode='trunc'): rounds toward 0, as C's integer / */
    PDT_OP_ATAN2,       /* atan2(input, other), the angle of (other, input); integers give float */
    PDT_OP_BITWISE_AND, /* &, |, ^ of the integer dtypes (bools: the core composes them) */
    PDT_OP_BITWISE_OR,
    PDT_OP_BITWISE_XOR,
    PDT_OP_SHIFT_LEFT, /* << and >> of the integers: Note [shifts] in pdt_elementwise.h */
    PDT_OP_SHIFT_RIGHT,
    /* Note [float binary functions] in pdt_elementwise.c: floating results (copysign makes
     * integers the default float; the others refuse them, as PyTorch) */
    PDT_OP_HYPOT,      /* sqrt(a^2 + b^2) without overflow or underflow in between */
    PDT_OP_COPYSIGN,   /* |a| with b's sign bit */
    PDT_OP_LOGADDEXP,  /* log(e^a + e^b) */
    PDT_OP_LOGADDEXP2, /* log2(2^a + 2^b) */
    PDT_OP_FMOD,       /* C's fmod, exact: the sign of a; integers a - trunc(a / b) b */
} pdt_binary_op;
#define PDT_NUM_BINARY_OPS 27

typedef enum pdt_unary_op {
    PDT_OP_NEG = 0,
    PDT_OP_ABS,
    PDT_OP_EXP,
    PDT_OP_LOG,
    PDT_OP_SQRT,
    PDT_OP_SIN,
    PDT_OP_COS,
    PDT_OP_TANH,
    PDT_OP_SIGMOID,
    PDT_OP_RELU,
    PDT_OP_CLAMP, /* to [lo, hi], bounds in the dtype (pdt_unary in pdt_elementwise.h) */
    PDT_OP_FLOOR, /* the rounding ops: exact; an integer comes back as it is */
    PDT_OP_CEIL,
    PDT_OP_ROUND, /* to the nearest integer, halves to even (IEEE 754 roundTiesToEven) */
    PDT_OP_TRUNC,
    PDT_OP_SIGN,  /* -1, 0 or 1 in the input's dtype; NaN stays NaN */
    PDT_OP_LOG1P, /* log(1 + x) and exp(x) - 1 without the cancellation near 0 */
    PDT_OP_EXPM1,
    PDT_OP_ERF, /* the error function and 1 - erf(x), without the cancellation */
    PDT_OP_ERFC,
    PDT_OP_LGAMMA,  /* log |Gamma(x)|: the C library's (CUDA's) lgamma, in double */
    PDT_OP_DIGAMMA, /* d/dx lgamma(x): Note [digamma] in pdt_gamma.h */
    /* the inverse trigonometric and hyperbolic functions, tan, log2, log10, exp2, rsqrt
     * and erfinv (csrc/python/tensor_trig.c) */
    PDT_OP_TAN,
    PDT_OP_ASIN,
    PDT_OP_ACOS,
    PDT_OP_ATAN,
    PDT_OP_ASINH,
    PDT_OP_ACOSH,
    PDT_OP_ATANH,
    PDT_OP_SINH, /* Note [float32 sinh and cosh] in cpu_vhyper.h */
    PDT_OP_COSH,
    PDT_OP_LOG2,
    PDT_OP_LOG10,
    PDT_OP_EXP2, /* 2^x: Note [float32 exp2] in cpu_vexp2.h (2 ** x stays pow's) */
    PDT_OP_RSQRT,
    PDT_OP_ERFINV, /* the inverse of erf on [-1, 1]: Note [erfinv] in cpu_erfinv.h */
    /* PyTorch's exact gelu, x/2 erfc(-x/sqrt(2)), and its derivative Phi(x) + x phi(x),
     * each one pass (Note [float32 gelu] in cpu_vgelu.h) */
    PDT_OP_GELU,
    PDT_OP_GELU_GRAD,
} pdt_unary_op;
#define PDT_NUM_UNARY_OPS 38

/* One input of an elementwise op: a tensor already broadcast to the output's
 * shape (stride 0 along broadcast dimensions), or a scalar when t is NULL. */
typedef struct pdt_operand {
    const pdt_tensor *t;
    pdt_scalar s;
} pdt_operand;

/* What pdt_backend.classify asks of each element. */
enum { PDT_IS_NAN = 0, PDT_IS_INF = 1, PDT_IS_FINITE = 2, PDT_IS_SIGNED = 3 };
/* What pdt_backend.search gives for each value: its left or right position, or whether
 * it is among the row's values. */
enum { PDT_SEARCH_LEFT = 0, PDT_SEARCH_RIGHT = 1, PDT_SEARCH_MEMBER = 2 };
/* Which position of each row's stable sort pdt_backend.select takes (n the row's length,
 * m its NaN count): k for every row (kthvalue); median's, (n - 1) / 2, or n - m (the
 * first NaN) where m > 0; nanmedian's, (n - m - 1) / 2 of the values that are not NaN,
 * or 0 where all are NaN. */
enum { PDT_SELECT_KTH = 0, PDT_SELECT_MEDIAN = 1, PDT_SELECT_NANMEDIAN = 2 };

typedef enum pdt_reduce_op {
    PDT_REDUCE_SUM = 0,
    PDT_REDUCE_PROD,
    PDT_REDUCE_MAX,
    PDT_REDUCE_MIN,
    PDT_REDUCE_ARGMAX, /* output int64 */
    PDT_REDUCE_ARGMIN, /* output int64 */
    PDT_REDUCE_SUM_SQUARES,
    PDT_REDUCE_SUM_ABS,
    PDT_REDUCE_MEAN,
} pdt_reduce_op;
#define PDT_NUM_REDUCE_OPS 9

/* C = alpha * op(A) @ op(B) + beta * C for `batch` row-major matrices; see
 * Note [row-major cuBLAS] in csrc/cuda for how the CUDA side maps this. */
typedef struct pdt_gemm_args {
    int device_index;
    pdt_dtype dtype; /* float32 or float64, float16 or bfloat16 (accumulated in float32),
                        or an integer dtype (a plain loop/kernel) */
    int trans_a;     /* op(A) = A^T: A is stored (k, m) */
    int trans_b;     /* op(B) = B^T: B is stored (n, k) */
    int64_t m, n, k; /* op(A): (m, k), op(B): (k, n), C: (m, n) */
    double alpha, beta;
    const void *a; /* leading dimension lda, batch stride stride_a (elements) */
    int64_t lda, stride_a;
    const void *b;
    int64_t ldb, stride_b;
    void *c; /* C row-major with leading dimension ldc */
    int64_t ldc, stride_c;
    int64_t batch; /* >= 1; stride 0 broadcasts an operand over the batch */
    /* float16/bfloat16: whether the backend may reduce in the half type (cuBLAS
     * without CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), from
     * pdt_set_allow_reduced_precision_reduction; else 0 */
    int allow_reduced_reduction;
} pdt_gemm_args;

/* The sliding window of im2col and col2im (pdt_conv.h), validated by the core:
 * every field (h, w); kernel, dilation and stride >= 1, padding >= 0, each
 * below 2^31; in: the image's spatial size (H, W), both >= 1; out: the window
 * positions (oh, ow), both >= 1, out = (in + 2 padding - dilation (kernel - 1)
 * - 1) / stride + 1. */
typedef struct pdt_window2d {
    int64_t kernel[2], dilation[2], padding[2], stride[2];
    int64_t in[2], out[2];
} pdt_window2d;

/* One fused pointwise step of an LSTM or GRU cell (pdt_rnn.h), validated by the
 * core: every tensor contiguous, on one device, of one dtype (float32 or
 * float64), B >= 1 and H >= 1 (an empty batch never reaches the backend).  G is
 * 4 for the LSTM (gates i, f, g, o) and 3 for the GRU (r, z, n). */
typedef enum { PDT_RNN_LSTM = 0, PDT_RNN_GRU = 1 } pdt_rnn_kind;
typedef struct pdt_rnn_cell_args {
    pdt_rnn_kind kind;
    int64_t batch, hidden;             /* B, H */
    const pdt_tensor *igates, *hgates; /* (B, G H): x W_ih^T and h W_hh^T */
    const pdt_tensor *b_ih, *b_hh;     /* (G H), or both NULL */
    const pdt_tensor *state;           /* (B, H): c (LSTM) or h (GRU) */
    const pdt_tensor *hy, *cy;         /* out (B, H): h'; c' (LSTM; NULL for the GRU) */
    const pdt_tensor *ws;              /* out: (B, 5 H) LSTM, (B, 4 H) GRU (pdt_rnn.h) */
} pdt_rnn_cell_args;
typedef struct pdt_rnn_cell_grad_args {
    pdt_rnn_kind kind;
    int64_t batch, hidden;
    const pdt_tensor *dhy, *dcy; /* (B, H), NULL for zeros; dcy NULL for the GRU */
    const pdt_tensor *state;     /* the forward's c (LSTM) or h (GRU) */
    const pdt_tensor *ws;        /* the forward's workspace */
    const pdt_tensor *d_igates;  /* out (B, G H): the gradient of igates (and of hgates,
                                  * for the LSTM) */
    const pdt_tensor *d_hgates;  /* out (B, 3 H): the GRU's gradient of hgates; NULL (LSTM) */
    const pdt_tensor *dstate;    /* out (B, H): the gradient of state through the cell */
} pdt_rnn_cell_grad_args;

/* What the checks on a device (index_check_async) found since the last
 * report: the first out-of-range value (in the order the checks were queued;
 * within a check, one of its bad values), and the count of the others. */
#define PDT_INDEX_MORE_OPS 8
typedef struct pdt_index_error {
    int32_t op, dim; /* op: pdt_index_op_code */
    int64_t value, size;
    uint64_t more; /* bad values found besides `value`, by this check or later ones */
    /* the op codes of the checks that found them, each once, in order (the
     * first PDT_INDEX_MORE_OPS; n_more_ops counts them all) */
    int32_t more_ops[PDT_INDEX_MORE_OPS];
    int32_t n_more_ops;
} pdt_index_error;

typedef struct pdt_backend {
    int kind; /* pdt_device_kind */
    const char *name;

    /* --- devices --- */
    int (*device_count)(void);               /* never fails: 0 when none can be used */
    const char *(*unavailable_reason)(void); /* why device_count() is 0, else NULL   */
    pdt_status (*properties)(int index, pdt_device_props *out);
    pdt_status (*mem_info)(int index, size_t *free_bytes, size_t *total_bytes);
    pdt_status (*synchronize)(int index);
    /* driver and runtime versions as 1000*major + 10*minor (0 if none) */
    void (*versions)(int *driver, int *runtime);

    /* --- memory --- */
    pdt_status (*alloc)(int index, size_t nbytes, void **out);
    void (*free)(int index, void *ptr, size_t nbytes);
    size_t (*reserved)(int index); /* bytes the backend holds from the system */
    /* the highest reserved(index) since the backend started or since
     * reset_reserved_peak(index), which starts it again from reserved(index);
     * NULL where reserved is always what tensors hold (the core's own peak) */
    size_t (*reserved_peak)(int index);
    void (*reset_reserved_peak)(int index);
    void (*empty_cache)(int index); /* return cached memory to the system */
    /* page-locked host memory; NULL where the backend has none */
    pdt_status (*host_alloc)(size_t nbytes, void **out);
    void (*host_free)(void *ptr, size_t nbytes);

    /* --- copies of contiguous bytes; the host side index is -1 --- */
    pdt_status (*copy_bytes)(pdt_copy_kind kind, int dst_index, void *dst, int src_index,
                             const void *src, size_t nbytes, int flags);

    /* --- kernels on one device (tensors on this backend, validated) --- */
    pdt_status (*fill)(const pdt_tensor *dst, pdt_scalar value);
    /* dst and src have the same shape, any strides and dtypes; no overlap */
    pdt_status (*copy_cast)(const pdt_tensor *dst, const pdt_tensor *src);
    /* dst contiguous 1-D: dst[i] = start + i * step, computed in double */
    pdt_status (*arange)(const pdt_tensor *dst, double start, double step);
    /* dst contiguous */
    pdt_status (*random)(const pdt_tensor *dst, const pdt_random_spec *spec);

    /* --- operations (issue 4); the core has validated and broadcast everything --- */
    /* out = op(a, b) elementwise.  a and b (tensors or scalars) have the compute
     * dtype; out has it too, or bool for comparisons.  out may be a's tensor
     * (in place); the core copies an operand that partly overlaps out. */
    pdt_status (*binary)(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b);
    /* 1: binary(PDT_OP_MUL, ...) also takes, as either operand, a bool tensor with
     * the other operand and out float32 or float64, and computes other * (T)mask:
     * the bits of casting the mask first, without its temporary (Note [a float
     * times a mask] in pdt_elementwise.c).  0: the core casts it first. */
    int binary_mul_mask;
    /* 1: binary() and unary() also take uint8, int8 and int16 as the compute dtype,
     * for every op they take int32 for (but add and sub with alpha), with the values
     * of int32's op on the widened operands, narrowed (Note [small integers] in
     * pdt_dtype.h).  0: the core computes them in int32. */
    int small_int_rows;
    /* 1: reduce() also takes uint8, int8 and int16 rows for PDT_REDUCE_MAX, _MIN,
     * _ARGMAX and _ARGMIN, in every layout it takes int32 rows in (out: x's dtype, int64
     * for the arg ops).  0: the core reduces them widened to int32. */
    int small_int_extremes;
    /* out = a op (b * alpha) for op PDT_OP_ADD or PDT_OP_SUB: a and b tensors of
     * out's dtype, float32 or float64, broadcast to out's shape (any strides; out
     * may be a or b, the core copies an operand that partly overlaps out); alpha
     * in that dtype.  b * alpha is rounded to the dtype before the op (no fused
     * multiply-add), so the bits are those of the scaled temporary the core
     * forms without it, NaN payloads aside (Note [add with alpha] in
     * pdt_elementwise_alpha.c).  May be NULL. */
    pdt_status (*binary_scaled)(pdt_binary_op op, const pdt_tensor *out, const pdt_tensor *a,
                                const pdt_tensor *b, pdt_scalar alpha);
    /* out = op(x) elementwise, same shape and dtype; lo/hi for PDT_OP_CLAMP:
     * both given, in x's dtype (f for floating dtypes, i for integers, which
     * the core has already saturated to the dtype's range; ignored for bool),
     * so that int64 bounds stay exact. */
    pdt_status (*unary)(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x, pdt_scalar lo,
                        pdt_scalar hi);
    /* x (m, k) with contiguous rows (strides (k, 1)) or, for k > 1, contiguous
     * columns (strides (1, m)); on the CPU also strided rows (strides (r, s)) and
     * columns with a pitch (strides (1, p), p > m: Note [strided reductions] in
     * pdt_reduce.c); out contiguous (m,) = op over each row of k.  out's
     * dtype is pdt_reduce_out_dtype(op, x's dtype) (pdt_reduce.h): int64 for the
     * arg ops and for SUM/PROD of bool and integers, float64 for SUM_SQUARES of
     * floats, else x's. */
    pdt_status (*reduce)(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x);
    pdt_status (*gemm)(const pdt_gemm_args *g);
    /* NULL, or loads now what gemm loads on first use, a failure left for gemm to
     * report: called before the bindings let other threads run (pdt_library.h's
     * load_env) */
    void (*prepare_gemm)(void);
    /* TF32 tensor-core math for float32 GEMMs (CUDA only; NULL elsewhere) */
    void (*set_allow_tf32)(int allow);
    /* events on the device's stream (CUDA only; NULL elsewhere); flags are
     * pdt_events.h's PDT_EVENT_*; only events created with PDT_EVENT_TIMING
     * may be given to event_elapsed_ms.  event_query sets *done to 1 when the
     * recorded work has completed, 0 when not yet; event_wait makes device
     * index's stream wait for the event (of any device). */
    pdt_status (*event_create)(int index, unsigned flags, void **event);
    pdt_status (*event_record)(int index, void *event);
    pdt_status (*event_query)(void *event, int *done);
    pdt_status (*event_wait)(int index, void *event);
    pdt_status (*event_synchronize)(void *event);
    pdt_status (*event_elapsed_ms)(void *start, void *end, float *ms);
    void (*event_destroy)(void *event);

    /* *done = 1 when every op queued so far on the device's stream has finished,
     * 0 while some is queued or running; does not wait (cudaStreamQuery; CUDA
     * only, NULL elsewhere: nothing is ever pending) */
    pdt_status (*stream_query)(int index, int *done);

    /* --- exchange with other libraries (CUDA only; NULL elsewhere) --- */
    /* The device's stream as an integer (a cudaStream_t) for other libraries. */
    pdt_status (*stream_handle)(int index, uintptr_t *out);
    /* Orders the device's stream and `external` (1: the legacy default stream,
     * 2: the per-thread default stream, else a stream handle of that device):
     * PDT_STREAM_OURS_WAITS makes ours wait for the work enqueued on external
     * so far; PDT_STREAM_EXTERNAL_WAITS the other way round.  Never blocks the
     * host. */
    pdt_status (*wait_stream)(int index, uintptr_t external, int direction);
    /* The physical device of this kind whose memory (device or managed) holds ptr. */
    pdt_status (*pointer_device)(const void *ptr, int *index);

    /* --- collectives over several devices of this kind (CUDA only; NULL elsewhere) --- */
    /* In-place sum of buffers[i] (count contiguous elements of dtype, on device
     * indices[i]) over the n devices; every buffer ends up with the sum.  The
     * core has checked dtypes, sizes and that the devices are distinct. */
    pdt_status (*allreduce_sum)(int n, const int *indices, void *const *buffers, size_t count,
                                pdt_dtype dtype);
    /* Rank communicators (pdt_collective.h; CUDA with NCCL, NULL elsewhere):
     * an id; this rank's communicator on device `index` (blocking until every
     * rank joined); its destruction; one collective (count: elements per
     * rank's block, as NCCL counts them; op and root as pdt_comm_run). */
    pdt_status (*comm_unique_id)(unsigned char *id);
    pdt_status (*comm_init)(int index, const unsigned char *id, int nranks, int rank, void **comm);
    void (*comm_destroy)(int index, void *comm);
    pdt_status (*comm_run)(void *comm, int index, int what, const void *send, void *recv,
                           size_t count, pdt_dtype dtype, int op, int root);
    /* n sends and receives as one group (pdt_comm_exchange; checked by the core). */
    pdt_status (*comm_exchange)(void *comm, int index, int n, const pdt_comm_buffer *bufs);
    /* 1 when allreduce_sum can run (its library loads), else 0; may load it. */
    int (*allreduce_available)(void);
    /* The collectives library's version code (NCCL_VERSION_CODE), 0 when it
     * cannot run; may load it. */
    int (*collective_version)(void);

    /* --- selection, indexing, sorting and scans (issue 17; pdt_index.h) --- */
    /* out = cond ? a : b elementwise.  out contiguous; cond bool, a and b of
     * out's dtype, all of out's shape with any strides (0 where broadcast). */
    pdt_status (*where)(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                        const pdt_tensor *b);
    /* out[.., j, ..] = src[.., index[j], ..] along dim.  out contiguous, src any
     * strides, index contiguous 1-D int64 with values in [-size, size) of
     * src's dim (checked by the core; negatives count from the end). */
    pdt_status (*index_select)(const pdt_tensor *out, const pdt_tensor *src, int dim,
                               const pdt_tensor *index);
    /* 1: index_select also takes an unchecked index: it reads each value once and
     * returns PDT_ERR_INDEX, out partly written, when one lies outside [-size, size).
     * The core then skips its pass over the index where out may be left so and
     * negatives count from the end (pdt_index_select_as), and checks only after a
     * failure, for the message.  0: the core always checks first. */
    int index_select_checks;
    /* dst[.., index[j], ..] = src[.., j, ..] along dim: the reverse of
     * index_select.  dst any strides without internal overlap, src any strides
     * (0 where broadcast) of dst's dtype; index as for index_select. */
    pdt_status (*index_put)(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                            const pdt_tensor *src);
    /* dst[.., index[j], ..] += src[.., j, ..]: as index_put, but duplicate
     * indices accumulate; dtype int32, int64, float32 or float64. */
    pdt_status (*index_add)(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                            const pdt_tensor *src);
    /* Note [deferred index checks] (pdt_index.h): queues a check that every value
     * of index (contiguous int64, not empty) lies in [-size, size), [0, size)
     * without negative_ok, for op (pdt_index_op_code), dim and size, its result
     * read by index_error_take; the host is not waited for (unless hundreds of
     * checks are queued and none read); *queued 1.  *queued 0 (and nothing
     * queued) when the device cannot record errors (no mapped host memory): the
     * core checks on the host then.  NULL where the core always checks on the host. */
    pdt_status (*index_check_async)(const pdt_tensor *index, int64_t size, int dim, int negative_ok,
                                    int op, int *queued);
    /* After a synchronisation with device `index` (or at any time: only the
     * checks known to have completed are read, never one that may still run):
     * 1 and *out what the completed checks found since the last call that
     * returned 1, which is then cleared; else 0.  Costs an atomic load when no
     * check is queued or unreported.  NULL with index_check_async. */
    int (*index_error_take)(int index, pdt_index_error *out);
    /* 1 when device `index` has checks queued whose results were not yet
     * taken, or taken and not yet reported (one atomic load); NULL with
     * index_check_async. */
    int (*index_checks_pending)(int index);
    /* LU with partial pivoting, its solve, and Cholesky, of each n x n matrix
     * stored by columns (pdt_linalg.h; the core checked the shapes, dtypes
     * float32/float64, contiguity, one device, batch >= 1 and n >= 1).  NULL
     * where the backend does not compute them. */
    pdt_status (*lu_factor)(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info);
    pdt_status (*lu_solve)(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b);
    pdt_status (*cholesky)(const pdt_tensor *a, int upper, const pdt_tensor *info);
    /* The symmetric eigen decomposition (syevd) and the SVD (m >= n) of each
     * matrix stored by columns (pdt_linalg.h; the core checked the shapes,
     * dtypes, contiguity, one device, batch >= 1 and n >= 1).  u and vt NULL when vectors is 0.  NULL where the backend does
     * not compute them. */
    pdt_status (*eigh)(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                       const pdt_tensor *info);
    pdt_status (*svd)(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                      const pdt_tensor *vt, const pdt_tensor *info);
    /* QR (geqrf) and forming Q (orgqr), each matrix by columns (pdt_linalg.h; the
     * core checked the shapes, dtypes, contiguity, one device, batch >= 1,
     * m >= 1 and k >= 1).  NULL where the backend does not compute them. */
    pdt_status (*qr_factor)(const pdt_tensor *a, const pdt_tensor *tau);
    pdt_status (*qr_orgqr)(const pdt_tensor *q, const pdt_tensor *tau);
    /* Stable sort of each row (last dim) of values, in place, carrying indices
     * (int64) along: on entry values holds the input and indices is filled by
     * the backend with 0..n-1.  NaN sorts as the largest value.  scratch_values
     * and scratch_indices are contiguous buffers of the same shapes and dtypes.
     * All four contiguous. */
    pdt_status (*sort)(const pdt_tensor *values, const pdt_tensor *indices,
                       const pdt_tensor *scratch_values, const pdt_tensor *scratch_indices,
                       int descending);
    /* Inclusive prefix sum of each row (last dim): out and x contiguous, one
     * dtype (float32, float64 or int64); out may be x. */
    pdt_status (*cumsum)(const pdt_tensor *out, const pdt_tensor *x);
    /* The coordinates of mask's non-zero bytes in row-major order: mask a contiguous
     * bool tensor of ndim >= 1 dims.  The backend counts them, then gets its result, a
     * contiguous int64 (count, ndim), from the core by make (pdt_make_rows), then
     * writes it.  A mask that changes between the count and the write (another thread
     * writing it) is PDT_ERR_VALUE, with nothing written past the result's end.  May
     * be NULL: the bindings then compose nonzero from cumsum and index_put
     * (pydevtensor/_ops_index.py). */
    pdt_status (*nonzero)(const pdt_tensor *mask, pdt_make_rows make, void *ctx);
    /* src's rows at mask's non-zero bytes, in order (x[mask]): mask a contiguous 1-D
     * bool tensor of n elements, src contiguous with shape[0] n.  The backend counts
     * them, gets its result (count, src's other dims) of src's dtype by make, and
     * copies the rows, a changed mask as nonzero's.  May be NULL: x[mask] then takes
     * the bindings' composed path (pydevtensor/_ops_getitem.py). */
    pdt_status (*compress)(const pdt_tensor *src, const pdt_tensor *mask, pdt_make_rows make,
                           void *ctx);
    /* Softmax (log 0) or log-softmax (log 1) of each row (the last dim) of x: x and
     * out contiguous, of one shape and dtype (float32 or float64), not empty.  May be
     * NULL: the bindings then compose it from max, exp, sum and division
     * (pydevtensor/_ops_stats.py). */
    pdt_status (*softmax)(const pdt_tensor *out, const pdt_tensor *x, int log);
    /* out[i] = whether x[i] is NaN (which PDT_IS_NAN), +-inf (PDT_IS_INF), finite
     * (PDT_IS_FINITE) or not NaN with its sign bit set (PDT_IS_SIGNED), from its bits: x contiguous, float32, float64, float16 or
     * bfloat16, not empty; out a contiguous bool tensor of x's shape.  May be NULL:
     * the bindings then compose them from comparisons (pydevtensor/_ops_stats.py). */
    pdt_status (*classify)(const pdt_tensor *out, const pdt_tensor *x, int which);
    /* The k first elements of each row (the last dim) of x in the stable sort's order
     * (descending for largest, NaN the largest value): values (x's dtype) and int64
     * indices, contiguous (..., k); x contiguous, 1 <= k <= its rows' length.  May be
     * NULL, or refuse a dtype with PDT_ERR_UNSUPPORTED: the bindings then sort and
     * slice (pydevtensor/_ops_sort.py). */
    pdt_status (*topk)(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                       int64_t k, int largest);

    /* For each value of row r of values (contiguous (rows, k)), in row r of seq (contiguous
     * (rows, m), sorted by the sort's order; or one row (1, m) for every row), of the same
     * dtype: the number of entries before it (mode PDT_SEARCH_LEFT) or not after it
     * (PDT_SEARCH_RIGHT) in the sort's order, into int64 out (rows, k); or whether an entry
     * equals it (PDT_SEARCH_MEMBER, NaN matching nothing) into bool out.  May be NULL, or
     * refuse a dtype with PDT_ERR_UNSUPPORTED: the bindings then compose searchsorted from
     * sorts (pydevtensor/_ops_counting.py). */
    pdt_status (*search)(const pdt_tensor *out, const pdt_tensor *seq, const pdt_tensor *values,
                         int mode);

    /* The running maximum (largest 1) or minimum (0) of each row (the last dim) of x and
     * where it was taken, by Note [cumulative extremes] (pydevtensor/_ops_reduce_more.py:
     * NaN first, then the larger (smaller) value, then the later index): values (x's
     * dtype) and int64 indices of x's shape, contiguous; x contiguous, not empty.  May be
     * NULL, or refuse a dtype with PDT_ERR_UNSUPPORTED: the bindings then compose it. */
    pdt_status (*cumextreme)(const pdt_tensor *values, const pdt_tensor *indices,
                             const pdt_tensor *x, int largest);
    /* The running product of each row (the last dim) of x, left to right: out and x
     * contiguous, of one shape and dtype (float64, or int64 wrapping), not empty; out may be
     * x.  May be NULL: the bindings then compose it (pydevtensor/_ops_cumulative.py). */
    pdt_status (*cumprod)(const pdt_tensor *out, const pdt_tensor *x);

    /* repeat_interleave's positions: for int64 repeats (contiguous (n,)), each i written
     * repeats[i] times in order into int64 out (contiguous (total,), total >= 0); with x
     * (not NULL: contiguous (n, ...), of out's dtype, out (total, ...)), row i of x
     * written so instead.  A negative repeat, or repeats that do not sum to total (as
     * read here: another thread may write to them), is PDT_ERR_VALUE, naming the
     * smallest repeat or the sum, with nothing written past out's end.  With out NULL
     * (x NULL too) the repeats are only read: their sum into *total where *total < 0, else
     * checked against *total, with the same errors (and PDT_ERR_OOM for a sum at or past
     * INT64_MAX); *total is not touched otherwise.  May be NULL: the bindings then compose
     * it (Note [repeat positions] in pydevtensor/_ops_repeat.py). */
    pdt_status (*repeat_positions)(const pdt_tensor *out, const pdt_tensor *x,
                                   const pdt_tensor *repeats, int64_t *total);

    /* bincount of x (contiguous (n,), int32 or int64, n > 0): with out NULL, x's smallest
     * and largest values into *low and *high; else how many times each of 0 ..
     * len(out) - 1 occurs in x into int64 out (contiguous), every slot written.  A value
     * outside [0, len(out)) (another thread wrote x since its range was read) is
     * PDT_ERR_VALUE.  May be NULL: the bindings then compose it (index_add of ones). */
    pdt_status (*bincount)(const pdt_tensor *out, const pdt_tensor *x, int64_t *low, int64_t *high);

    /* count_nonzero of all of x (contiguous, any dtype, any number of elements) into the
     * 0-d int64 out on x's device: the elements that are not zero (-0.0 is zero, NaN is
     * not).  May be NULL: the bindings then compose it ((x != 0).sum()). */
    pdt_status (*count_nonzero)(const pdt_tensor *out, const pdt_tensor *x);

    /* The element at one position of each row r (the last dim) of x in the stable sort's
     * order (NaN the largest value), which rule says (PDT_SELECT_*; k for PDT_SELECT_KTH,
     * 0 <= k < n): its index into indices[r] (int64) and its value into values[r] (x's
     * dtype), both contiguous with one element a row; x contiguous, not empty.  May be
     * NULL, or refuse a dtype with PDT_ERR_UNSUPPORTED: the bindings then sort
     * (pydevtensor/_ops_reduce_more.py). */
    pdt_status (*select)(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *x,
                         int rule, int64_t k);

    /* --- image to columns and back (pdt_conv.h); NULL: refused (NotImplementedError) --- */
    /* out (N, C kh kw, oh ow) contiguous = the patches of x (N, C, H, W), any
     * strides, of out's dtype (float32, float64, float16 or bfloat16; not empty):
     * out[n, (c kh + i) kw + j, y ow + x] = x[n, c, y sh - ph + i dh, x sw - pw + j dw],
     * or the element whose bits are pad_bits (the low pdt_dtype_size bytes) where
     * that lies outside x. */
    pdt_status (*im2col)(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                         uint64_t pad_bits);
    /* The adjoint: out (N, C, H, W) contiguous, every element the sum of the
     * elements of cols (N, C kh kw, oh ow), any strides, of out's dtype, that
     * im2col would copy from it (0 where none), added in the order of (i, j)
     * from +0 (float16 and bfloat16 in float32, rounded once): deterministic,
     * and the same bits on every backend; padding positions are dropped. */
    pdt_status (*col2im)(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w);
    /* out (N, O, oh, ow) contiguous = the cross-correlation of x (N, C, H, W) with
     * w (O, C / groups, kh, kw) over the window w (kernel = w's kh, kw), plus
     * bias (O) when not NULL; x, w and bias of any strides, all of out's dtype, N
     * >= 1, groups dividing C and O.  May be NULL, or refuse a case with
     * PDT_ERR_UNSUPPORTED: the caller then runs im2col and a matrix product. */
    pdt_status (*conv2d)(const pdt_tensor *out, const pdt_tensor *x, const pdt_tensor *w,
                         const pdt_tensor *bias, const pdt_window2d *win, int64_t groups);
    /* dw (O, C / groups, kh, kw) contiguous = conv2d's weight gradient for the
     * output's gradient g (N, O, oh, ow): the sum over n, y, x of g[n, o, y, x]
     * times x's element under tap (c, i, j) of window (y, x); x and g of any
     * strides, of dw's dtype, N >= 1.  May be NULL or refuse with
     * PDT_ERR_UNSUPPORTED, as conv2d. */
    pdt_status (*conv2d_grad_weight)(const pdt_tensor *dw, const pdt_tensor *x, const pdt_tensor *g,
                                     const pdt_window2d *win, int64_t groups);

    /* --- fused recurrent cells (pdt_rnn.h); NULL: refused (NotImplementedError) --- */
    /* The forward of one step (the equations in pdt_rnn.h), every output element
     * written; the same arithmetic, in the same order, as the unfused ops of the
     * backend (its sigmoid and tanh, no contracted multiply-adds). */
    pdt_status (*rnn_cell)(const pdt_rnn_cell_args *a);
    /* Its backward, from the saved workspace (pdt_rnn.h). */
    pdt_status (*rnn_cell_backward)(const pdt_rnn_cell_grad_args *a);

    /* --- information --- */
    /* One line on the libraries behind the backend ("OpenBLAS 0.3.28, 2 threads"); may be NULL. */
    void (*describe)(char *buf, size_t n);
    /* The libraries the backend loads on first use (OpenBLAS; cuBLAS and NCCL), for
     * pdt_backend_add_library_dir and the bindings' report; NULL-terminated, or NULL. */
    struct pdt_library *const *libraries;

    /* --- threads (CPU only; NULL elsewhere) --- */
    /* The backend's own loops and its BLAS use at most n threads (n >= 1); returns the
     * number its loops now use. */
    int (*set_num_threads)(int n);
    /* The number of threads its loops use. */
    int (*num_threads)(void);

    /* --- instruction-set level of the kernels (CPU only; NULL elsewhere) --- */
    /* The level in use ("baseline", "avx2", "avx512"), with the levels the
     * processor supports written into buf, comma-separated. */
    const char *(*simd_level)(char *buf, size_t n);
    /* Switches to the level named; -1 when unknown or unsupported here. */
    int (*set_simd_level)(const char *name);

    /* --- denormals (CPU only; NULL elsewhere) --- */
    /* Flushes denormal inputs and results to zero (on != 0) or not, in the calling thread
     * and the backend's own threads; returns 1, or 0 where the processor cannot. */
    int (*set_flush_denormal)(int on);

    /* --- peers (NULL where devices have none) --- */
    /* *out: 1 when device index can address peer's memory (0 for itself, as
     * cudaDeviceCanAccessPeer) */
    pdt_status (*can_access_peer)(int index, int peer, int *out);
} pdt_backend;

/* The tables the backends define. */
extern const pdt_backend pdt_cpu_backend;
#ifdef PDT_HAVE_CUDA
extern const pdt_backend pdt_cuda_backend;
#endif

#ifdef __cplusplus
}
#endif
#endif /* PDT_BACKEND_H */
