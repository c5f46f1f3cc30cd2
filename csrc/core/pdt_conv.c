/* pdt_conv.c - the validated entry points of pdt_conv.h: im2col and col2im. */
#include "pdt_conv.h"

#include <string.h>

#include "pdt_half.h"
#include "pdt_ops.h"
#include "pdt_runtime.h"

#define PARAM_LIMIT ((int64_t)1 << 31)

/* "(a, b)" into buf. */
static const char *pair_str(const int64_t *v, char *buf, size_t n)
{
    return pdt_shape_str(2, v, buf, n);
}

static pdt_status check_dtype(const char *op, const pdt_tensor *t)
{
    char dn[32];
    if (t->dtype == PDT_FLOAT32 || t->dtype == PDT_FLOAT64 || t->dtype == PDT_FLOAT16 ||
        t->dtype == PDT_BFLOAT16)
        return PDT_OK;
    return pdt_fail(PDT_ERR_UNSUPPORTED,
                    "%s: dtype %s is not supported (float32, float64, float16 or bfloat16; on "
                    "%s)",
                    op, pdt_dtype_name(t->dtype), pdt_device_str(t->device, dn, sizeof dn));
}

/* One of kernel_size, dilation, padding, stride: each of its two values at least
 * lo and below PARAM_LIMIT. */
static pdt_status check_param(const char *op, const char *name, const int64_t *v, int64_t lo,
                              pdt_device d)
{
    char b[64], dn[32];
    for (int k = 0; k < 2; k++) {
        if (v[k] < lo || v[k] >= PARAM_LIMIT)
            return pdt_fail(PDT_ERR_VALUE, "%s: %s must be %s and below 2^31, got %s (on %s)", op,
                            name, lo ? "positive" : "non-negative", pair_str(v, b, sizeof b),
                            pdt_device_str(d, dn, sizeof dn));
    }
    return PDT_OK;
}

pdt_status pdt_window2d_init(const char *op, pdt_device d, const int64_t in_hw[2],
                             const pdt_window2d *spec, pdt_window2d *w)
{
    pdt_status st;
    if ((st = check_param(op, "kernel_size", spec->kernel, 1, d)) != PDT_OK ||
        (st = check_param(op, "dilation", spec->dilation, 1, d)) != PDT_OK ||
        (st = check_param(op, "padding", spec->padding, 0, d)) != PDT_OK ||
        (st = check_param(op, "stride", spec->stride, 1, d)) != PDT_OK)
        return st;
    *w = *spec;
    int64_t padded[2], span[2];
    for (int k = 0; k < 2; k++) {
        w->in[k] = in_hw[k];
        padded[k] = in_hw[k] + 2 * spec->padding[k];
        span[k] = spec->dilation[k] * (spec->kernel[k] - 1) + 1;
    }
    if (padded[0] < span[0] || padded[1] < span[1]) {
        char a[64], b[64], c[64], e[64], f[64], g[64], dn[32];
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: the padded input of spatial size %s (input %s, padding %s) is "
                        "smaller than the dilated kernel %s (kernel_size %s, dilation %s): no "
                        "window fits (on %s)",
                        op, pair_str(padded, a, sizeof a), pair_str(in_hw, b, sizeof b),
                        pair_str(spec->padding, c, sizeof c), pair_str(span, e, sizeof e),
                        pair_str(spec->kernel, f, sizeof f), pair_str(spec->dilation, g, sizeof g),
                        pdt_device_str(d, dn, sizeof dn));
    }
    for (int k = 0; k < 2; k++)
        w->out[k] = (padded[k] - span[k]) / spec->stride[k] + 1;
    return PDT_OK;
}

/* PDT_ERR_UNSUPPORTED when d's backend has no such kernel (a NULL entry). */
static pdt_status no_kernel(const char *op, pdt_device d)
{
    char dn[32];
    return pdt_fail(PDT_ERR_UNSUPPORTED, "%s: no kernel on %s", op,
                    pdt_device_str(d, dn, sizeof dn));
}

/* The same-device rule, out's dtype and layout, and no shared storage. */
static pdt_status check_pair(const char *op, const pdt_tensor *out, const pdt_tensor *in,
                             const char *in_name)
{
    const pdt_tensor *ts[2] = {in, out};
    const char *names[2] = {in_name, "out"};
    pdt_device d;
    char dn[32];
    pdt_status st = pdt_same_device(op, 2, ts, names, &d);
    if (st != PDT_OK)
        return st;
    if ((st = check_dtype(op, in)) != PDT_OK)
        return st;
    if (out->dtype != in->dtype)
        return pdt_fail(PDT_ERR_TYPE, "%s: out must be %s as the %s, got %s (on %s)", op,
                        pdt_dtype_name(in->dtype), in_name, pdt_dtype_name(out->dtype),
                        pdt_device_str(d, dn, sizeof dn));
    if (!pdt_tensor_is_contiguous(out))
        return pdt_fail(PDT_ERR_VALUE, "%s: out must be contiguous (on %s)", op,
                        pdt_device_str(d, dn, sizeof dn));
    if (pdt_tensor_spans_overlap(out, in))
        return pdt_fail(PDT_ERR_VALUE, "%s: out must not share memory with the %s (on %s)", op,
                        in_name, pdt_device_str(d, dn, sizeof dn));
    return PDT_OK;
}

/* The input's sizes other than the batch must be non-zero (PyTorch's unfold and
 * fold refuse them; an empty batch is fine). */
static pdt_status check_nonempty(const char *op, const pdt_tensor *t, const char *layout)
{
    char a[160], dn[32];
    for (int k = 1; k < t->ndim; k++)
        if (t->shape[k] == 0)
            return pdt_fail(PDT_ERR_VALUE,
                            "%s: expected an input %s with non-zero sizes but for the batch, "
                            "got shape %s (on %s)",
                            op, layout, pdt_shape_str(t->ndim, t->shape, a, sizeof a),
                            pdt_device_str(t->device, dn, sizeof dn));
    return PDT_OK;
}

static pdt_status check_ndim(const char *op, const pdt_tensor *t, int ndim, const char *layout)
{
    char a[160], dn[32];
    if (t->ndim != ndim)
        return pdt_fail(PDT_ERR_VALUE, "%s: expected a %d-d input %s, got shape %s (on %s)", op,
                        ndim, layout, pdt_shape_str(t->ndim, t->shape, a, sizeof a),
                        pdt_device_str(t->device, dn, sizeof dn));
    return check_nonempty(op, t, layout);
}

static pdt_status shape_mismatch(const char *op, const pdt_tensor *out, int ndim,
                                 const int64_t *want)
{
    char a[160], b[160], dn[32];
    return pdt_fail(PDT_ERR_VALUE, "%s: out has shape %s, expected %s (on %s)", op,
                    pdt_shape_str(out->ndim, out->shape, a, sizeof a),
                    pdt_shape_str(ndim, want, b, sizeof b),
                    pdt_device_str(out->device, dn, sizeof dn));
}

/* The shape of im2col's result, or an error when it has too many elements. */
static pdt_status im2col_shape(const pdt_tensor *x, const pdt_window2d *w, int64_t *shape)
{
    int64_t numel;
    shape[0] = x->shape[0];
    if (__builtin_mul_overflow(x->shape[1], w->kernel[0] * w->kernel[1], &shape[1]) ||
        __builtin_mul_overflow(w->out[0], w->out[1], &shape[2])) {
        char dn[32];
        return pdt_fail(PDT_ERR_VALUE, "im2col: the result would have too many elements (on %s)",
                        pdt_device_str(x->device, dn, sizeof dn));
    }
    return pdt_check_shape(3, shape, x->dtype, &numel);
}

/* pad_value in dtype's bits. */
static uint64_t pad_bits(pdt_dtype dt, double v)
{
    uint64_t bits = 0;
    switch (dt) {
    case PDT_FLOAT64: memcpy(&bits, &v, sizeof v); break;
    case PDT_FLOAT32: bits = pdt_f32_bits((float)v); break;
    case PDT_FLOAT16: bits = pdt_f64_to_f16(v); break;
    default: bits = pdt_f64_to_bf16(v); break;
    }
    return bits;
}

#define IM2COL_LAYOUT "(N, C, H, W)"
#define COL2IM_LAYOUT "(N, C*kh*kw, L)"

/* Checks x and the window over it, and gives the result's shape. */
static pdt_status im2col_check(const pdt_tensor *x, const pdt_window2d *spec, pdt_window2d *w,
                               int64_t *shape)
{
    pdt_status st = check_dtype("im2col", x);
    if (st == PDT_OK)
        st = check_ndim("im2col", x, 4, IM2COL_LAYOUT);
    if (st == PDT_OK)
        st = pdt_window2d_init("im2col", x->device, x->shape + 2, spec, w);
    if (st == PDT_OK)
        st = im2col_shape(x, w, shape);
    return st;
}

pdt_status pdt_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *spec,
                      double pad_value)
{
    pdt_window2d w;
    int64_t shape[3];
    pdt_status st = check_pair("im2col", out, x, "input");
    if (st == PDT_OK)
        st = im2col_check(x, spec, &w, shape);
    if (st != PDT_OK)
        return st;
    if (out->ndim != 3 || memcmp(out->shape, shape, sizeof shape) != 0)
        return shape_mismatch("im2col", out, 3, shape);
    pdt_note_op("im2col", x->device);
    if (pdt_tensor_numel(out) == 0)
        return PDT_OK;
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    if (!be->im2col)
        return no_kernel("im2col", x->device);
    return be->im2col(out, x, &w, pad_bits(x->dtype, pad_value));
}

pdt_status pdt_im2col_new(const pdt_tensor *x, const pdt_window2d *spec, double pad_value,
                          pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    pdt_window2d w;
    int64_t shape[3];
    pdt_status st = im2col_check(x, spec, &w, shape);
    if (st == PDT_OK)
        st = pdt_tensor_empty(x->device, x->dtype, 3, shape, 0, out);
    if (st == PDT_OK) {
        st = pdt_im2col(out, x, spec, pad_value);
        if (st != PDT_OK)
            pdt_tensor_release(out);
    }
    return st;
}

/* Checks cols against the window over output_hw and gives out's shape. */
static pdt_status col2im_shape(const pdt_tensor *cols, const int64_t output_hw[2],
                               const pdt_window2d *spec, pdt_window2d *w, int64_t *shape)
{
    const char *op = "col2im";
    char a[160], b[64], c[64], e[64], f[64], g[64], dn[32];
    pdt_status st = check_ndim(op, cols, 3, COL2IM_LAYOUT);
    if (st != PDT_OK)
        return st;
    /* below 2^31 each (as the window's parameters), so that the padded size and the
     * number of window positions cannot overflow */
    if (output_hw[0] < 1 || output_hw[1] < 1 || output_hw[0] > INT32_MAX ||
        output_hw[1] > INT32_MAX)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: output_size must be positive and below 2^31, got %s (on %s)", op,
                        pair_str(output_hw, b, sizeof b),
                        pdt_device_str(cols->device, dn, sizeof dn));
    if ((st = pdt_window2d_init(op, cols->device, output_hw, spec, w)) != PDT_OK)
        return st;
    const int64_t kk = w->kernel[0] * w->kernel[1];
    if (cols->shape[1] % kk != 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: dim 1 of the input (shape %s) must be divisible by the kernel's "
                        "%lld elements (kernel_size %s; on %s)",
                        op, pdt_shape_str(cols->ndim, cols->shape, a, sizeof a), (long long)kk,
                        pair_str(w->kernel, b, sizeof b),
                        pdt_device_str(cols->device, dn, sizeof dn));
    if (cols->shape[2] != w->out[0] * w->out[1])
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: output_size %s with kernel_size %s, dilation %s, padding %s and "
                        "stride %s has %lld x %lld = %lld window positions, but dim 2 of the "
                        "input (shape %s) is %lld (on %s)",
                        op, pair_str(output_hw, b, sizeof b), pair_str(w->kernel, c, sizeof c),
                        pair_str(w->dilation, e, sizeof e), pair_str(w->padding, f, sizeof f),
                        pair_str(w->stride, g, sizeof g), (long long)w->out[0],
                        (long long)w->out[1], (long long)(w->out[0] * w->out[1]),
                        pdt_shape_str(cols->ndim, cols->shape, a, sizeof a),
                        (long long)cols->shape[2], pdt_device_str(cols->device, dn, sizeof dn));
    shape[0] = cols->shape[0];
    shape[1] = cols->shape[1] / kk;
    shape[2] = output_hw[0];
    shape[3] = output_hw[1];
    int64_t numel;
    return pdt_check_shape(4, shape, cols->dtype, &numel);
}

pdt_status pdt_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *spec)
{
    pdt_status st = check_pair("col2im", out, cols, "input");
    if (st != PDT_OK)
        return st;
    if (out->ndim != 4) {
        char a[160], dn[32];
        return pdt_fail(PDT_ERR_VALUE, "col2im: expected a 4-d out (N, C, H, W), got %s (on %s)",
                        pdt_shape_str(out->ndim, out->shape, a, sizeof a),
                        pdt_device_str(out->device, dn, sizeof dn));
    }
    pdt_window2d w;
    int64_t shape[4];
    if ((st = col2im_shape(cols, out->shape + 2, spec, &w, shape)) != PDT_OK)
        return st;
    if (memcmp(out->shape, shape, sizeof shape) != 0)
        return shape_mismatch("col2im", out, 4, shape);
    pdt_note_op("col2im", cols->device);
    if (pdt_tensor_numel(out) == 0)
        return PDT_OK;
    const pdt_backend *be = pdt_backend_of(cols->device.kind);
    if (!be->col2im)
        return no_kernel("col2im", cols->device);
    return be->col2im(out, cols, &w);
}

pdt_status pdt_col2im_new(const pdt_tensor *cols, const int64_t output_hw[2],
                          const pdt_window2d *spec, pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    pdt_window2d w;
    int64_t shape[4];
    pdt_status st = check_dtype("col2im", cols);
    if (st == PDT_OK)
        st = col2im_shape(cols, output_hw, spec, &w, shape);
    if (st == PDT_OK)
        st = pdt_tensor_empty(cols->device, cols->dtype, 4, shape, 0, out);
    if (st == PDT_OK) {
        st = pdt_col2im(out, cols, spec);
        if (st != PDT_OK)
            pdt_tensor_release(out);
    }
    return st;
}

/* conv2d's tensors: one device, one dtype, 4-d x and w, channels that match the
 * groups, a bias of O elements. */
static pdt_status conv2d_check(const pdt_tensor *x, const pdt_tensor *w, const pdt_tensor *bias,
                               int64_t groups)
{
    const char *op = "conv2d";
    const pdt_tensor *ts[3] = {x, w, bias};
    const char *names[3] = {"input", "weight", "bias"};
    pdt_device d;
    char a[160], b[160], c[160], dn[32];
    pdt_status st = pdt_same_device(op, bias ? 3 : 2, ts, names, &d);
    if (st != PDT_OK || (st = check_dtype(op, x)) != PDT_OK)
        return st;
    for (int k = 1; k < (bias ? 3 : 2); k++)
        if (ts[k]->dtype != x->dtype)
            return pdt_fail(PDT_ERR_TYPE, "%s: %s must be %s as the input, got %s (on %s)", op,
                            names[k], pdt_dtype_name(x->dtype), pdt_dtype_name(ts[k]->dtype),
                            pdt_device_str(d, dn, sizeof dn));
    if ((st = check_ndim(op, x, 4, IM2COL_LAYOUT)) != PDT_OK)
        return st;
    if (groups < 1 || w->ndim != 4 || w->shape[0] % groups != 0 ||
        w->shape[1] * groups != x->shape[1] ||
        (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])))
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: input %s, weight %s, groups %lld and bias %s do not match (weight "
                        "(O, C / groups, kh, kw), bias (O); on %s)",
                        op, pdt_shape_str(x->ndim, x->shape, a, sizeof a),
                        pdt_shape_str(w->ndim, w->shape, b, sizeof b), (long long)groups,
                        bias ? pdt_shape_str(bias->ndim, bias->shape, c, sizeof c) : "None",
                        pdt_device_str(d, dn, sizeof dn));
    return check_nonempty(op, w, "(O, C / groups, kh, kw)");
}

pdt_status pdt_conv2d_new(const pdt_tensor *x, const pdt_tensor *w, const pdt_tensor *bias,
                          const pdt_window2d *spec, int64_t groups, pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    pdt_status st = conv2d_check(x, w, bias, groups);
    if (st != PDT_OK)
        return st;
    pdt_window2d sp = *spec, win;
    sp.kernel[0] = w->shape[2];
    sp.kernel[1] = w->shape[3];
    if ((st = pdt_window2d_init("conv2d", x->device, x->shape + 2, &sp, &win)) != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    if (!be->conv2d)
        return no_kernel("conv2d", x->device);
    const int64_t shape[4] = {x->shape[0], w->shape[0], win.out[0], win.out[1]};
    int64_t numel;
    if ((st = pdt_check_shape(4, shape, x->dtype, &numel)) != PDT_OK ||
        (st = pdt_tensor_empty(x->device, x->dtype, 4, shape, 0, out)) != PDT_OK)
        return st;
    pdt_note_op("conv2d", x->device);
    if (numel > 0 && (st = be->conv2d(out, x, w, bias, &win, groups)) != PDT_OK)
        pdt_tensor_release(out);
    return st;
}

pdt_status pdt_conv2d_grad_weight_new(const pdt_tensor *x, const pdt_tensor *g,
                                      const pdt_window2d *spec, int64_t groups, pdt_tensor *out)
{
    const char *op = "conv2d_grad_weight";
    memset(out, 0, sizeof *out);
    const pdt_tensor *ts[2] = {x, g};
    const char *names[2] = {"input", "grad_output"};
    pdt_device d;
    char a[160], b[160], dn[32];
    pdt_status st = pdt_same_device(op, 2, ts, names, &d);
    if (st != PDT_OK || (st = check_dtype(op, x)) != PDT_OK ||
        (st = check_ndim(op, x, 4, IM2COL_LAYOUT)) != PDT_OK)
        return st;
    pdt_window2d win;
    if ((st = pdt_window2d_init(op, d, x->shape + 2, spec, &win)) != PDT_OK)
        return st;
    if (g->dtype != x->dtype || g->ndim != 4 || g->shape[0] != x->shape[0] || groups < 1 ||
        x->shape[1] % groups != 0 || g->shape[1] % groups != 0 || g->shape[1] == 0 ||
        g->shape[2] != win.out[0] || g->shape[3] != win.out[1])
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: grad_output %s %s does not match the input %s %s with groups %lld "
                        "(expected (N, O, %lld, %lld), O a multiple of groups; on %s)",
                        op, pdt_dtype_name(g->dtype), pdt_shape_str(g->ndim, g->shape, a, sizeof a),
                        pdt_dtype_name(x->dtype), pdt_shape_str(x->ndim, x->shape, b, sizeof b),
                        (long long)groups, (long long)win.out[0], (long long)win.out[1],
                        pdt_device_str(d, dn, sizeof dn));
    const pdt_backend *be = pdt_backend_of(d.kind);
    if (!be->conv2d_grad_weight)
        return no_kernel(op, d);
    const int64_t shape[4] = {g->shape[1], x->shape[1] / groups, win.kernel[0], win.kernel[1]};
    int64_t numel;
    if ((st = pdt_check_shape(4, shape, x->dtype, &numel)) != PDT_OK ||
        (st = pdt_tensor_empty(d, x->dtype, 4, shape, 0, out)) != PDT_OK)
        return st;
    pdt_note_op(op, d);
    if (x->shape[0] == 0)
        st = pdt_fail(PDT_ERR_UNSUPPORTED, "%s: an empty batch (on %s)", op,
                      pdt_device_str(d, dn, sizeof dn));
    else
        st = be->conv2d_grad_weight(out, x, g, &win, groups);
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}
