/* cpu_conv_direct.c - the CPU backend's float32 conv2d without im2col (contract
 * in pdt_backend.h; the core validated the inputs).
 *
 * Note [the direct convolution]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * im2col writes every input element kh kw times (a 5 x 5 LeNet layer: 25 times
 * the input, in rows of ten elements) and the GEMM reads it all back; here no
 * column matrix exists.  The input is laid out once so that, for every tap
 * (c, i, j) of the kernel, the input elements under consecutive output positions
 * of a row are consecutive in memory:
 *   - stride 1 and no padding: x itself, when its rows are contiguous; tap
 *     (c, i, j) of position (y, x) is at c s_c + (y + i dh) s_h + x + j dw;
 *   - otherwise the padded input split by stride phase: plane (c, a, b) holds
 *     Q[u][v] = xpad[u sh + a][v sw + b] (Hq x Wq, Wq = ceil(Wp / sw)), only for
 *     the phases a = i dh mod sh (b alike) that some tap uses; then tap
 *     (c, i, j) of (y, x) is Q_(c, a, b)[y + i dh / sh][x + j dw / sw], the
 *     stride gone (a 1 x 1 stride-2 conv copies a quarter of the input, once).
 * So tap k of a row's position x is src[koff[k] + x] for one table koff of K =
 * C/groups kh kw offsets, and the register block of cpu_vconv.h computes
 * OB output channels (16 or 32 with AVX-512) at P positions of a row (up to 24
 * or 12) from the weights packed as (group, channel block, k, OB), zero-padded
 * past the group's channels.  The work is split across the pool by output row
 * (n, group, y); a row runs every channel block over the same input rows, which
 * stay in the cache.  The block is transposed into the output's rows with the
 * bias added.  A 1 x 1 kernel is instead one OpenBLAS product an image and
 * group (conv_1x1).
 *
 * Forward against im2col + GEMM, one thread (benchmarks/conv_shapes.py; torch
 * 2.15's oneDNN in brackets): LeNet's second conv (256 x 6 x 14 x 14, 16 5 x 5
 * filters) 4.0 -> 1.2 ms (1.1), its first (256 x 1 x 28 x 28, 6 5 x 5, padding
 * 2) 2.9 -> 1.9 (2.0-2.4), 8 x 64 x 56 x 56 through 64 3 x 3 29 -> 15 (12-13),
 * AlexNet's 11 x 11 stride 4 on 8 x 3 x 224 x 224 21 -> 14 (11.5). */
#include <stdlib.h>
#include <string.h>

#include "cpu_blas.h"
#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

/* Work (multiply-adds) a thread should have before rows are split. */
#define GRAIN_WORK ((int64_t)1 << 17)

typedef struct conv_job {
    const pdt_tensor *x, *out;
    const pdt_window2d *w;
    const pdt_cpu_simd_table *simd;
    const float *bias; /* NULL: none */
    int64_t s_bias;
    const float *wp;             /* packed weights (group, block, k, OB) */
    const int64_t *koff;         /* K tap offsets */
    const float *src;            /* image 0, group 0's first element: x's or q's */
    int64_t s_img, s_grp, s_row; /* src strides of an image, a group, an output row */
    int64_t O, G, Og, K, nob, OB, nvo, pmax;
    int64_t chunk_rows;         /* output rows a thread does together */
    int64_t np, flat_end, nblk; /* the position blocks: positions, of a plane, blocks */
} conv_job;

static pdt_status oom(const char *what, int64_t bytes)
{
    char buf[32];
    return pdt_fail(PDT_ERR_OOM, "conv2d: no memory for %s of %s (cpu)", what,
                    pdt_format_bytes((unsigned long long)bytes, buf, sizeof buf));
}

/* ---- laying the input out: Q (the Note) ---- */

typedef struct layout_job {
    const pdt_tensor *x;
    const pdt_window2d *w;
    float *q;
    int64_t hq, wq, na, nb;
    int64_t pa[64], pb[64]; /* the phases used, at most sh (sw) of them (<= 64 here) */
} layout_job;

static void layout_range(int64_t begin, int64_t end, void *ctx)
{
    const layout_job *j = ctx;
    const pdt_tensor *x = j->x;
    const pdt_window2d *w = j->w;
    const int64_t C = x->shape[1], H = w->in[0], W = w->in[1];
    const int64_t s_h = x->strides[2], s_w = x->strides[3];
    for (int64_t p = begin; p < end; p++) {
        const int64_t n = p / C, c = p % C;
        const float *xp = (const float *)pdt_tensor_ptr(x) + n * x->strides[0] + c * x->strides[1];
        float *dst = j->q + p * j->na * j->nb * j->hq * j->wq;
        for (int64_t ai = 0; ai < j->na; ai++)
            for (int64_t bi = 0; bi < j->nb; bi++) {
                const int64_t offx = j->pb[bi] - w->padding[1];
                int64_t lo, hi;
                pdt_cpu_valid_range(offx, W, w->stride[1], j->wq, &lo, &hi);
                for (int64_t u = 0; u < j->hq; u++, dst += j->wq) {
                    const int64_t iy = u * w->stride[0] + j->pa[ai] - w->padding[0];
                    if (iy < 0 || iy >= H) {
                        memset(dst, 0, (size_t)j->wq * sizeof *dst);
                        continue;
                    }
                    const float *row = xp + iy * s_h + offx * s_w;
                    const int64_t step = w->stride[1] * s_w;
                    for (int64_t v = 0; v < lo; v++)
                        dst[v] = 0;
                    if (step == 1)
                        for (int64_t v = lo; v < hi; v++)
                            dst[v] = row[v];
                    else
                        for (int64_t v = lo; v < hi; v++)
                            dst[v] = row[v * step];
                    for (int64_t v = hi; v < j->wq; v++)
                        dst[v] = 0;
                }
            }
    }
}

/* The phases of one axis that the taps use: ph[0 .. *n) and each tap's index
 * among them in idx[t] (t < k). */
static void phases(int64_t k, int64_t d, int64_t s, int64_t *ph, int64_t *n, int64_t *idx)
{
    *n = 0;
    for (int64_t t = 0; t < k; t++) {
        const int64_t a = t * d % s;
        int64_t m = 0;
        while (m < *n && ph[m] != a)
            m++;
        if (m == *n)
            ph[(*n)++] = a;
        idx[t] = m;
    }
}

pdt_status pdt_cpu_conv_src_init(pdt_cpu_conv_src *cs, const pdt_tensor *x, const pdt_window2d *win,
                                 int64_t groups, int64_t slack)
{
    memset(cs, 0, sizeof *cs);
    const int64_t N = x->shape[0], C = x->shape[1], Cg = C / groups, kh = win->kernel[0],
                  kw = win->kernel[1], K = Cg * kh * kw;
    const int64_t sh = win->stride[0], sw = win->stride[1], dh = win->dilation[0],
                  dw = win->dilation[1];
    const int64_t s_n = x->strides[0], s_c = x->strides[1], s_h = x->strides[2],
                  s_w = x->strides[3];
    cs->koff = malloc((size_t)K * sizeof *cs->koff);
    int64_t *ia = malloc((size_t)(kh + kw) * sizeof *ia), *ib = ia ? ia + kh : NULL;
    if (!cs->koff || !ia) {
        free(ia);
        free(cs->koff);
        cs->koff = NULL;
        return oom("the tap offsets", (kh + kw + K) * 8);
    }
    cs->planes = 1;
    if (!slack && sh == 1 && sw == 1 && win->padding[0] == 0 && win->padding[1] == 0 && s_w == 1 &&
        s_n >= 0 && s_c >= 0 && s_h >= 0) { /* x in place */
        for (int64_t k = 0; k < K; k++)
            cs->koff[k] = k / (kh * kw) * s_c + k / kw % kh * dh * s_h + k % kw * dw;
        cs->src = (const float *)pdt_tensor_ptr(x);
        cs->s_img = s_n;
        cs->s_grp = Cg * s_c;
        cs->s_row = s_h;
        free(ia);
        return PDT_OK;
    }
    layout_job lj = {.x = x, .w = win};
    phases(kh, dh, sh, lj.pa, &lj.na, ia);
    phases(kw, dw, sw, lj.pb, &lj.nb, ib);
    lj.hq = (win->in[0] + 2 * win->padding[0] + sh - 1) / sh;
    lj.wq = (win->in[1] + 2 * win->padding[1] + sw - 1) / sw;
    const int64_t plane = lj.hq * lj.wq, per_c = lj.na * lj.nb * plane;
    cs->q = malloc((size_t)(N * C * per_c + slack) * sizeof *cs->q);
    if (!cs->q) {
        free(ia);
        pdt_cpu_conv_src_free(cs);
        return oom("the laid-out input", (N * C * per_c + slack) * 4);
    }
    lj.q = cs->q;
    pdt_cpu_parallel_for(N * C, 1 + ((int64_t)1 << 15) / (per_c + 1), layout_range, &lj);
    memset(cs->q + N * C * per_c, 0, (size_t)slack * sizeof *cs->q);
    for (int64_t k = 0; k < K; k++) {
        const int64_t c = k / (kh * kw), i = k / kw % kh, jj = k % kw;
        cs->koff[k] = c * per_c + (ia[i] * lj.nb + ib[jj]) * plane + i * dh / sh * lj.wq +
                      jj * dw / sw;
    }
    free(ia);
    cs->src = cs->q;
    cs->s_img = C * per_c;
    cs->s_grp = Cg * per_c;
    cs->s_row = lj.wq;
    cs->planes = lj.na * lj.nb;
    return PDT_OK;
}

void pdt_cpu_conv_src_free(pdt_cpu_conv_src *cs)
{
    free(cs->q);
    free(cs->koff);
    cs->q = NULL;
    cs->koff = NULL;
}

/* ---- the rows ---- */

static void rows_range(int64_t begin, int64_t end, void *ctx)
{
    const conv_job *j = ctx;
    const int64_t oh = j->w->out[0], ow = j->w->out[1], OB = j->OB;
    const int64_t nbx = (ow + j->pmax - 1) / j->pmax, base = ow / nbx, rem = ow % nbx;
    float tmp[24 * 16 * 2] __attribute__((aligned(64)));
    float *out = (float *)pdt_tensor_ptr(j->out);
    for (int64_t r = begin; r < end;) {
        /* a chunk of rows of one image and group: every channel block runs over
         * them in turn, its packed weights staying in the cache */
        const int64_t n = r / (j->G * oh), g = r / oh % j->G, y0 = r % oh;
        int64_t y1 = y0 + j->chunk_rows < oh ? y0 + j->chunk_rows : oh;
        y1 = y1 - y0 < end - r ? y1 : y0 + (end - r);
        const float *src0 = j->src + n * j->s_img + g * j->s_grp;
        for (int64_t b = 0; b < j->nob; b++) {
            const float *wpb = j->wp + (g * j->nob + b) * j->K * OB;
            const int64_t oc0 = g * j->Og + b * OB;
            const int64_t count = j->Og - b * OB < OB ? j->Og - b * OB : OB;
            for (int64_t y = y0; y < y1; y++) {
                const float *src = src0 + y * j->s_row;
                int64_t x0 = 0;
                for (int64_t t = 0; t < nbx; t++) {
                    const int P = (int)(base + (t < rem));
                    j->simd->conv_block_f32(src + x0, j->koff, j->K, wpb, (int)j->nvo, P, tmp);
                    for (int64_t o = 0; o < count; o++) {
                        float *dst = out + ((n * j->O + oc0 + o) * oh + y) * ow + x0;
                        const float bv = j->bias ? j->bias[(oc0 + o) * j->s_bias] : 0.0f;
                        for (int p = 0; p < P; p++)
                            dst[p] = tmp[p * OB + o] + bv;
                    }
                    x0 += P;
                }
            }
        }
        r += y1 - y0;
    }
}

/* The position blocks (Note [the position block] in cpu_vconv.h), for a few output
 * channels: a task is np consecutive positions y s_row + x of one image and group,
 * the columns x >= ow among them computed and dropped (the source is laid out,
 * with zeros after it, so that the last block's reads stay inside). */
static void pos_range(int64_t begin, int64_t end, void *ctx)
{
    const conv_job *j = ctx;
    const int64_t oh = j->w->out[0], ow = j->w->out[1], np = j->np, rs = j->s_row;
    float tmp[8 * 64] __attribute__((aligned(64)));
    float *out = (float *)pdt_tensor_ptr(j->out);
    for (int64_t t = begin; t < end; t++) {
        const int64_t n = t / (j->G * j->nblk), g = t / j->nblk % j->G, l0 = t % j->nblk * np;
        const int64_t lend = l0 + np < j->flat_end ? l0 + np : j->flat_end;
        j->simd->conv_pblock_f32(j->src + n * j->s_img + g * j->s_grp + l0, j->koff, j->K,
                                 j->wp + g * j->K * j->Og, (int)j->Og, tmp);
        for (int64_t m = 0; m < j->Og; m++) {
            const int64_t oc = g * j->Og + m;
            const float bv = j->bias ? j->bias[oc * j->s_bias] : 0.0f;
            float *plane = out + (n * j->O + oc) * oh * ow;
            const float *tm = tmp + m * np - l0;
            for (int64_t l = l0; l < lend;) {
                const int64_t y = l / rs, x = l % rs;
                if (x >= ow) {
                    l += rs - x;
                    continue;
                }
                const int64_t seg = ow - x < lend - l ? ow - x : lend - l;
                for (int64_t q = 0; q < seg; q++)
                    plane[y * ow + x + q] = tm[l + q] + bv;
                l += seg;
            }
        }
    }
}

/* A 1 x 1 kernel: each image's output is the product of the weight (per group)
 * with the source's planes, one matrix of C/groups rows of L = oh ow elements
 * (x's own planes, or Q's, which then hold exactly the strided positions), by
 * OpenBLAS; the bias written first and added by the product (beta 1), while
 * the image's output is in the cache. */
static pdt_status conv_1x1(const conv_job *j, const float *wc, int64_t ldb)
{
    const pdt_blas_table *t;
    pdt_status st = pdt_cpu_blas(&t);
    if (st != PDT_OK)
        return st;
    const int64_t N = j->x->shape[0], L = j->w->out[0] * j->w->out[1], Cg = j->K;
    float *out = (float *)pdt_tensor_ptr(j->out);
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, j->O * L * Cg)) != PDT_OK)
        return st;
    for (int64_t n = 0; n < N; n++) {
        float *on = out + n * j->O * L;
        if (j->bias)
            for (int64_t o = 0; o < j->O; o++) {
                const float bv = j->bias[o * j->s_bias];
                for (int64_t l = 0; l < L; l++)
                    on[o * L + l] = bv;
            }
        for (int64_t g = 0; g < j->G; g++)
            t->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)j->Og, (blasint)L,
                     (blasint)Cg, 1.0f, wc + g * j->Og * Cg, (blasint)Cg,
                     j->src + n * j->s_img + g * j->s_grp, (blasint)ldb, j->bias ? 1.0f : 0.0f,
                     on + g * j->Og * L, (blasint)L);
    }
    pdt_cpu_blas_leave(&call);
    return PDT_OK;
}

pdt_status pdt_cpu_conv2d(const pdt_tensor *out, const pdt_tensor *x, const pdt_tensor *w,
                          const pdt_tensor *bias, const pdt_window2d *win, int64_t groups)
{
    if (x->dtype != PDT_FLOAT32 || win->stride[0] > 64 || win->stride[1] > 64)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "conv2d: no direct kernel for this case (cpu)");
    const pdt_cpu_simd_table *simd = pdt_cpu_simd();
    conv_job j = {.x = x, .out = out, .w = win, .simd = simd};
    const int64_t N = x->shape[0], C = x->shape[1], kh = win->kernel[0], kw = win->kernel[1];
    j.O = w->shape[0];
    j.G = groups;
    j.Og = j.O / groups;
    const int64_t Cg = C / groups;
    j.K = Cg * kh * kw;
    const int64_t lanes = simd->conv_lanes;
    j.nvo = j.Og <= lanes ? 1 : 2;
    j.OB = j.nvo * lanes;
    j.nob = (j.Og + j.OB - 1) / j.OB;
    j.pmax = simd->conv_pmax[j.nvo - 1];
    if (bias) {
        j.bias = (const float *)pdt_tensor_ptr(bias);
        j.s_bias = bias->strides[0];
    }

    /* the packed weights */
    const int64_t wp_n = j.G * j.nob * j.K * j.OB;
    float *wp = malloc((size_t)wp_n * sizeof *wp);
    if (!wp)
        return oom("the packed weights", wp_n * 4);
    const float *wd = (const float *)pdt_tensor_ptr(w);
    /* a few output channels: the position blocks, on the laid-out input */
    const int pos = j.Og <= 8 && 2 * j.Og <= lanes && (kh > 1 || kw > 1);
    for (int64_t g = 0; g < j.G && !pos; g++)
        for (int64_t b = 0; b < j.nob; b++)
            for (int64_t k = 0; k < j.K; k++) {
                const int64_t c = k / (kh * kw), i = k / kw % kh, jj = k % kw;
                float *dst = wp + ((g * j.nob + b) * j.K + k) * j.OB;
                for (int64_t o = 0; o < j.OB; o++) {
                    const int64_t oc = b * j.OB + o;
                    dst[o] = oc < j.Og ? wd[(g * j.Og + oc) * w->strides[0] + c * w->strides[1] +
                                            i * w->strides[2] + jj * w->strides[3]]
                                       : 0.0f;
                }
            }
    for (int64_t g = 0; g < j.G && pos; g++)
        for (int64_t k = 0; k < j.K; k++)
            for (int64_t m = 0; m < j.Og; m++)
                wp[(g * j.K + k) * j.Og + m] =
                    wd[(g * j.Og + m) * w->strides[0] + k / (kh * kw) * w->strides[1] +
                       k / kw % kh * w->strides[2] + k % kw * w->strides[3]];
    pdt_cpu_conv_src cs;
    pdt_status st = pdt_cpu_conv_src_init(&cs, x, win, groups,
                                          pos ? win->in[1] + 2 * win->padding[1] + 64 : 0);
    if (st != PDT_OK) {
        free(wp);
        return st;
    }
    j.src = cs.src;
    j.s_img = cs.s_img;
    j.s_grp = cs.s_grp;
    j.s_row = cs.s_row;
    const int in_place = cs.q == NULL;
    const int64_t s_c = x->strides[1], s_h = x->strides[2];
    const int64_t L = win->out[0] * win->out[1];
    const int one = kh == 1 && kw == 1 && L < INT32_MAX &&
                    (!in_place || (s_h == win->out[1] && s_c >= L && s_c < INT32_MAX));
    if (st == PDT_OK && pos) {
        j.wp = wp;
        j.koff = cs.koff;
        j.np = simd->conv_ppos[j.Og];
        j.flat_end = (win->out[0] - 1) * j.s_row + win->out[1];
        j.nblk = (j.flat_end + j.np - 1) / j.np;
        const int64_t work = j.np * j.K * j.Og;
        pdt_cpu_parallel_for(N * j.G * j.nblk, 1 + GRAIN_WORK / (work + 1), pos_range, &j);
    } else if (st == PDT_OK && one) {
        /* the plain weight (O, C/groups) */
        for (int64_t o = 0; o < j.O; o++)
            for (int64_t c = 0; c < Cg; c++)
                wp[o * Cg + c] = wd[o * w->strides[0] + c * w->strides[1]];
        st = conv_1x1(&j, wp, in_place ? s_c : L);
    } else if (st == PDT_OK) {
        j.wp = wp;
        j.koff = cs.koff;
        /* about 256 KiB of source rows a chunk */
        const int64_t row_bytes = Cg * cs.planes * j.s_row * 4;
        j.chunk_rows = ((int64_t)1 << 18) / (row_bytes > 0 ? row_bytes : 1);
        j.chunk_rows = j.chunk_rows < 1 ? 1 : j.chunk_rows;
        const int64_t rows = N * j.G * win->out[0];
        const int64_t work = j.nob * j.OB * j.K * win->out[1];
        pdt_cpu_parallel_for(rows, 1 + GRAIN_WORK / (work + 1), rows_range, &j);
    }
    pdt_cpu_conv_src_free(&cs);
    free(wp);
    return st;
}
