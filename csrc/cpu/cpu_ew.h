/* cpu_ew.h - what the CPU backend's elementwise files share (private to csrc/cpu):
 * the row kernel type, the [op][dtype] table helpers, the float32 calls into the
 * dispatch level's vector math, and the three-operand walk that cuts an op into
 * rows and runs them over the cores (cpu_ew_walk.c).  The binary ops' rows are in
 * cpu_elementwise.c (hypot and its kind: cpu_ew_float2.c), the unary ops' in cpu_unary.c. */
#ifndef PDT_CPU_EW_H
#define PDT_CPU_EW_H

#include <stdint.h>

#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "pdt_backend.h"

/* Elements per thread below which an op stays on one thread; an op that
 * costs about as much as a transcendental function per element (the unary
 * ops of costly_unary, and powers) splits at an eighth of that. */
#define EW_GRAIN 32768
#define EW_GRAIN_COSTLY (EW_GRAIN / 8)
/* in a loop (Note [the hot grain] in cpu_parallel.c; pdt_cpu_ew_run) */
#define EW_GRAIN_HOT PDT_CPU_GRAIN_HOT
#define EW_GRAIN_COSTLY_HOT 1024
#define EW_GRAIN_POW_HOT 512

/* o: (n,) of O with byte stride so; a, b: (n,) of T with byte strides sa, sb
 * (0 for a scalar or a broadcast row); extra: the clamp bounds of unary ops. */
typedef void (*ew_row_fn)(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                          int64_t n, const void *extra);

#define ROWS_5(B, I32, I64, F32, F64)                                                              \
    {                                                                                              \
        B, I32, I64, F32, F64                                                                      \
    }
#define ROWS_NUM(NAME) ROWS_5(NULL, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64)
#define ROWS_ALL(NAME) ROWS_5(NAME##_bool, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64)
/* ... with the small integers' rows too (Note [small integer rows] in cpu_vsmall.h; float16
 * and bfloat16 are computed in float32) */
#define ROWS_8(B, I32, I64, F32, F64, NAME)                                                        \
    {                                                                                              \
        B, I32, I64, F32, F64, NULL, NULL, NAME##_u8, NAME##_i8, NAME##_i16                        \
    }
#define ROWS_NUMS(NAME) ROWS_8(NULL, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64, NAME)
#define ROWS_ALLS(NAME) ROWS_8(NAME##_bool, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64, NAME)
#define ROWS_INTS(NAME) ROWS_8(NULL, NAME##_i32, NAME##_i64, NULL, NULL, NAME)

/* A row kernel of the level: float32's f (exp, log, ...), or with y the powers to y;
 * or float64's d (exp, log, ...: cpu_vmath64.h) when not NULL. */
typedef struct vm_call {
    pdt_vm_row f;
    const float *y;
    pdt_vd_row d;
} vm_call;

/* c over a row of any strides (cpu_ew_walk.c) */
void pdt_cpu_vm_row_any(char *o, int64_t so, const char *a, int64_t sa, int64_t n,
                        const vm_call *c);

/* hypot, copysign, logaddexp and logaddexp2 (cpu_ew_float2.c: Note [hypot and logaddexp
 * rows]) */
#define PDT_FLOAT2_ROWS(X) X(hypot) X(copysign) X(logaddexp) X(logaddexp2)
#define PDT_FLOAT2_DECLARE(NAME)                                                                   \
    void pdt_cpu_##NAME##_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b,       \
                              int64_t sb, int64_t n, const void *extra);                           \
    void pdt_cpu_##NAME##_f64(char *o, int64_t so, const char *a, int64_t sa, const char *b,       \
                              int64_t sb, int64_t n, const void *extra);
PDT_FLOAT2_ROWS(PDT_FLOAT2_DECLARE)
/* float32 fmod through the level's remainder row (cpu_ew_float2.c) */
void pdt_cpu_fmod_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                      int64_t n, const void *extra);

/* out, a, b: one shape (after merging dims), byte strides per operand, dims
 * outermost first. */
typedef struct ew_job {
    ew_row_fn fn;
    const void *extra;
    int stream; /* one contiguous row with a large output: Note [streamed outputs] */
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    int64_t strides[3][PDT_MAX_DIMS];
    char *base[3];
} ew_job;

/* ops[k] == NULL: a scalar at base[k] (stride 0 everywhere).  ops[0] is out. */
void pdt_cpu_ew_init(ew_job *job, const pdt_tensor *out, const pdt_tensor *const ops[3]);
/* Runs the job over its numel elements (cpu_ew_walk.c) */
void pdt_cpu_ew_run(ew_job *job, int64_t numel, int64_t grain, int64_t hot_grain);

#endif /* PDT_CPU_EW_H */
