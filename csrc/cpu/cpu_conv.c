/* cpu_conv.c - the CPU backend's im2col and col2im (contracts in
 * pdt_backend.h; the core validated the inputs).
 *
 * Both split the N C image planes across the pool.  im2col writes, for each
 * plane, its kh kw rows of oh ow columns: a row of the window positions of one
 * image row is padding, then a run of input elements (a memcpy when the input's
 * rows are contiguous and the stride is 1), then padding.  col2im runs the same
 * loops the other way round, adding each column element into the image element
 * it came from, into a plane zeroed first (a float32 scratch plane for float16
 * and bfloat16, rounded once at the end): an image element gets its terms in
 * the order of (i, j), as the CUDA kernel's gather adds them, so both give the
 * same bits.  No atomics: each plane is one thread's. */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "pdt_half.h"

/* Elements a thread should have before the planes are split. */
#define GRAIN_ELEMS ((int64_t)1 << 15)

void pdt_cpu_valid_range(int64_t off, int64_t size, int64_t stride, int64_t n, int64_t *lo,
                         int64_t *hi)
{
    int64_t a = off >= 0 ? 0 : (-off + stride - 1) / stride;
    int64_t b = size - off <= 0 ? 0 : (size - off + stride - 1) / stride;
    a = a < n ? a : n;
    b = b < n ? b : n;
    *lo = a;
    *hi = b > a ? b : a;
}

static int64_t plane_grain(int64_t per_plane)
{
    int64_t g = GRAIN_ELEMS / (per_plane > 0 ? per_plane : 1);
    return g > 0 ? g : 1;
}

/* ---------------------------------------------------------------- im2col */

typedef struct im2col_job {
    const pdt_tensor *out, *x;
    const pdt_window2d *w;
    uint64_t pad;
} im2col_job;

#define IM2COL_PLANE(T)                                                                            \
    do {                                                                                           \
        const T pad = (T)j->pad;                                                                   \
        const T *src = (const T *)xp;                                                              \
        T *dst = (T *)op;                                                                          \
        for (int64_t i = 0; i < w->kernel[0]; i++)                                                 \
            for (int64_t jj = 0; jj < w->kernel[1]; jj++) {                                        \
                const int64_t offx = jj * w->dilation[1] - w->padding[1];                          \
                int64_t lo, hi;                                                                    \
                pdt_cpu_valid_range(offx, W, sw, ow, &lo, &hi);                                    \
                for (int64_t y = 0; y < oh; y++, dst += ow) {                                      \
                    const int64_t iy = y * w->stride[0] - w->padding[0] + i * w->dilation[0];      \
                    if (iy < 0 || iy >= H) {                                                       \
                        for (int64_t xx = 0; xx < ow; xx++)                                        \
                            dst[xx] = pad;                                                         \
                        continue;                                                                  \
                    }                                                                              \
                    for (int64_t xx = 0; xx < lo; xx++)                                            \
                        dst[xx] = pad;                                                             \
                    const int64_t base = iy * s_h + offx * s_w;                                    \
                    if (sw == 1 && s_w == 1)                                                       \
                        memcpy(dst + lo, src + base + lo, (size_t)(hi - lo) * sizeof(T));          \
                    else                                                                           \
                        for (int64_t xx = lo; xx < hi; xx++)                                       \
                            dst[xx] = src[base + xx * sw * s_w];                                   \
                    for (int64_t xx = hi; xx < ow; xx++)                                           \
                        dst[xx] = pad;                                                             \
                }                                                                                  \
            }                                                                                      \
    } while (0)

static void im2col_range(int64_t begin, int64_t end, void *ctx)
{
    const im2col_job *j = ctx;
    const pdt_window2d *w = j->w;
    const pdt_tensor *x = j->x;
    const int64_t C = x->shape[1], H = w->in[0], W = w->in[1], oh = w->out[0], ow = w->out[1];
    const int64_t s_h = x->strides[2], s_w = x->strides[3], sw = w->stride[1];
    const size_t es = pdt_dtype_size(x->dtype);
    const int64_t plane_out = w->kernel[0] * w->kernel[1] * oh * ow;
    for (int64_t p = begin; p < end; p++) {
        const int64_t n = p / C, c = p % C;
        const char *xp = pdt_tensor_ptr(x) + (n * x->strides[0] + c * x->strides[1]) * (int64_t)es;
        char *op = pdt_tensor_ptr(j->out) + p * plane_out * (int64_t)es;
        switch (es) {
        case 2: IM2COL_PLANE(uint16_t); break;
        case 4: IM2COL_PLANE(uint32_t); break;
        default: IM2COL_PLANE(uint64_t); break;
        }
    }
}

pdt_status pdt_cpu_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                          uint64_t pad_bits)
{
    im2col_job j = {out, x, w, pad_bits};
    const int64_t planes = x->shape[0] * x->shape[1];
    pdt_cpu_parallel_for(planes, plane_grain(out->shape[1] / x->shape[1] * out->shape[2]),
                         im2col_range, &j);
    return PDT_OK;
}

/* ---------------------------------------------------------------- col2im */

typedef struct col2im_job {
    const pdt_tensor *out, *cols;
    const pdt_window2d *w;
    int failed; /* a scratch plane could not be allocated */
} col2im_job;

/* acc (the plane, H W elements of A, zeroed) += the plane's kh kw rows of cols
 * (T, read through LOAD), in the order of (i, j). */
#define COL2IM_ADD(T, A, LOAD)                                                                     \
    do {                                                                                           \
        const T *src = (const T *)cp;                                                              \
        for (int64_t i = 0; i < w->kernel[0]; i++)                                                 \
            for (int64_t jj = 0; jj < w->kernel[1]; jj++, src += s_row) {                          \
                const int64_t offx = jj * w->dilation[1] - w->padding[1];                          \
                int64_t lo, hi;                                                                    \
                pdt_cpu_valid_range(offx, W, sw, ow, &lo, &hi);                                    \
                for (int64_t y = 0; y < oh; y++) {                                                 \
                    const int64_t iy = y * w->stride[0] - w->padding[0] + i * w->dilation[0];      \
                    if (iy < 0 || iy >= H)                                                         \
                        continue;                                                                  \
                    const int64_t base = iy * W + offx, at = y * ow * s_l;                         \
                    for (int64_t xx = lo; xx < hi; xx++)                                           \
                        acc[base + xx * sw] += LOAD(src[at + xx * s_l]);                           \
                }                                                                                  \
            }                                                                                      \
    } while (0)

#define PLAIN(v) (v)

static void col2im_range(int64_t begin, int64_t end, void *ctx)
{
    col2im_job *j = ctx;
    const pdt_window2d *w = j->w;
    const pdt_tensor *cols = j->cols;
    const int64_t C = j->out->shape[1], H = w->in[0], W = w->in[1], oh = w->out[0], ow = w->out[1],
                  kk = w->kernel[0] * w->kernel[1];
    const int64_t s_row = cols->strides[1], s_l = cols->strides[2], sw = w->stride[1];
    const pdt_dtype dt = cols->dtype;
    const size_t es = pdt_dtype_size(dt);
    float *scratch = NULL;
    if (dt == PDT_FLOAT16 || dt == PDT_BFLOAT16) {
        scratch = malloc((size_t)(H * W) * sizeof(float));
        if (!scratch) {
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED); /* threads may race here */
            return;
        }
    }
    for (int64_t p = begin; p < end; p++) {
        const int64_t n = p / C, c = p % C;
        const char *cp = pdt_tensor_ptr(cols) +
                         (n * cols->strides[0] + c * kk * s_row) * (int64_t)es;
        char *op = pdt_tensor_ptr(j->out) + p * H * W * (int64_t)es;
        if (dt == PDT_FLOAT64) {
            double *acc = (double *)op;
            memset(acc, 0, (size_t)(H * W) * sizeof *acc);
            COL2IM_ADD(double, double, PLAIN);
        } else if (dt == PDT_FLOAT32) {
            float *acc = (float *)op;
            memset(acc, 0, (size_t)(H * W) * sizeof *acc);
            COL2IM_ADD(float, float, PLAIN);
        } else {
            float *acc = scratch;
            uint16_t *o = (uint16_t *)op;
            memset(acc, 0, (size_t)(H * W) * sizeof *acc);
            if (dt == PDT_FLOAT16) {
                COL2IM_ADD(uint16_t, float, pdt_f16_to_f32);
                for (int64_t k = 0; k < H * W; k++)
                    o[k] = pdt_f32_to_f16(acc[k]);
            } else {
                COL2IM_ADD(uint16_t, float, pdt_bf16_to_f32);
                for (int64_t k = 0; k < H * W; k++)
                    o[k] = pdt_f32_to_bf16(acc[k]);
            }
        }
    }
    free(scratch);
}

pdt_status pdt_cpu_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w)
{
    col2im_job j = {out, cols, w, 0};
    const int64_t planes = out->shape[0] * out->shape[1];
    pdt_cpu_parallel_for(planes, plane_grain(cols->shape[1] / out->shape[1] * cols->shape[2]),
                         col2im_range, &j);
    if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED)) {
        char buf[32];
        return pdt_fail(PDT_ERR_OOM, "col2im: no memory for a float32 scratch plane of %s (cpu)",
                        pdt_format_bytes((unsigned long long)(w->in[0] * w->in[1]) * 4, buf,
                                         sizeof buf));
    }
    return PDT_OK;
}
