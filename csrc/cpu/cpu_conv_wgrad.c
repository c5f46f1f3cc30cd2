/* cpu_conv_wgrad.c - the CPU backend's float32 weight gradient of conv2d without
 * im2col (contract in pdt_backend.h; the core validated the inputs).
 *
 * Note [the direct weight gradient]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * dw[o, k] = the sum over images and output positions of g[n, o, y, x] times
 * tap k's input element there.  The input is laid out as the forward lays it
 * out (Note [the direct convolution] in cpu_conv_direct.c, always copied here,
 * with zeros after it), and the output's gradient into rows of the same
 * positions, y s_row + x, zeros where x >= ow and up to a whole number of
 * vectors: then dw[o, k] is a dot product of two contiguous rows, g's row o and
 * the input's row at koff[k], and the block of cpu_vconv.h does mo x mk of them
 * at a time (Note [the weight gradient's block]).  The columns past ow read
 * input elements that no window uses, times zero: they add nothing (unless the
 * input holds an infinity or a NaN there, which then spreads a NaN into that
 * tap's gradient, where im2col's product would not).
 *
 * The images go in chunks of about 1 MiB of both rows, so that they stay in the
 * cache while every block reads them; the blocks of a chunk are split across
 * the pool, each block's sums written by one thread and added to dw chunk after
 * chunk, in order: the same bits for any number of threads. */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define CHUNK_BYTES ((int64_t)1 << 20)

typedef struct wgrad_job {
    const pdt_cpu_simd_table *simd;
    const pdt_cpu_conv_src *cs;
    const float *gp; /* (N, O, lp) */
    float *dw;       /* (O, K) */
    int64_t O, Og, K, lp, nob, nkb, n0, nimg;
} wgrad_job;

static void blocks_range(int64_t begin, int64_t end, void *ctx)
{
    const wgrad_job *j = ctx;
    const int mo = j->simd->conv_dot_mo, mk = j->simd->conv_dot_mk;
    const float *a[8], *b[8];
    float acc[64];
    for (int64_t t = begin; t < end; t++) {
        const int64_t g = t / (j->nob * j->nkb), ob = t / j->nkb % j->nob, kb = t % j->nkb;
        for (int r = 0; r < mo; r++) { /* past the end: the last row again, dropped */
            const int64_t o = ob * mo + r < j->Og ? ob * mo + r : j->Og - 1;
            a[r] = j->gp + (j->n0 * j->O + g * j->Og + o) * j->lp;
        }
        for (int q = 0; q < mk; q++) {
            const int64_t k = kb * mk + q < j->K ? kb * mk + q : j->K - 1;
            b[q] = j->cs->src + j->n0 * j->cs->s_img + g * j->cs->s_grp + j->cs->koff[k];
        }
        memset(acc, 0, sizeof acc);
        j->simd->conv_dot_f32(a, b, j->lp / j->simd->conv_lanes, j->nimg, j->O * j->lp,
                              j->cs->s_img, acc);
        for (int r = 0; r < mo && ob * mo + r < j->Og; r++)
            for (int q = 0; q < mk && kb * mk + q < j->K; q++)
                j->dw[(g * j->Og + ob * mo + r) * j->K + kb * mk + q] += acc[r * mk + q];
    }
}

typedef struct gpad_job {
    const pdt_tensor *g;
    float *gp;
    int64_t lp, s_row;
} gpad_job;

/* g's planes (n, o) as rows of lp: g[n, o, y, x] at y s_row + x, zeros elsewhere. */
static void gpad_range(int64_t begin, int64_t end, void *ctx)
{
    const gpad_job *j = ctx;
    const pdt_tensor *g = j->g;
    const int64_t O = g->shape[1], oh = g->shape[2], ow = g->shape[3];
    for (int64_t p = begin; p < end; p++) {
        const float *src = (const float *)pdt_tensor_ptr(g) + p / O * g->strides[0] +
                           p % O * g->strides[1];
        float *dst = j->gp + p * j->lp;
        memset(dst, 0, (size_t)j->lp * sizeof *dst);
        for (int64_t y = 0; y < oh; y++)
            for (int64_t x = 0; x < ow; x++)
                dst[y * j->s_row + x] = src[y * g->strides[2] + x * g->strides[3]];
    }
}

pdt_status pdt_cpu_conv2d_grad_weight(const pdt_tensor *dw, const pdt_tensor *x,
                                      const pdt_tensor *g, const pdt_window2d *win, int64_t groups)
{
    if (x->dtype != PDT_FLOAT32 || win->stride[0] > 64 || win->stride[1] > 64)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "conv2d: no direct weight gradient for this case (cpu)");
    const pdt_cpu_simd_table *simd = pdt_cpu_simd();
    const int64_t N = x->shape[0], O = g->shape[1], oh = win->out[0];
    const int64_t lanes = simd->conv_lanes;
    pdt_cpu_conv_src cs;
    /* slack: a row's reads run at most a padded row and a vector past its plane */
    pdt_status st = pdt_cpu_conv_src_init(&cs, x, win, groups,
                                          win->in[1] + 2 * win->padding[1] + lanes);
    if (st != PDT_OK)
        return st;
    wgrad_job j = {.simd = simd, .cs = &cs, .dw = (float *)pdt_tensor_ptr(dw), .O = O};
    j.Og = O / groups;
    j.K = dw->shape[1] * dw->shape[2] * dw->shape[3];
    j.lp = (oh * cs.s_row + lanes - 1) / lanes * lanes;
    j.nob = (j.Og + simd->conv_dot_mo - 1) / simd->conv_dot_mo;
    j.nkb = (j.K + simd->conv_dot_mk - 1) / simd->conv_dot_mk;
    float *gp = malloc((size_t)(N * O * j.lp) * sizeof *gp);
    if (!gp) {
        pdt_cpu_conv_src_free(&cs);
        char buf[32];
        return pdt_fail(PDT_ERR_OOM, "conv2d: no memory for the output's gradient of %s (cpu)",
                        pdt_format_bytes((unsigned long long)(N * O * j.lp) * 4, buf, sizeof buf));
    }
    gpad_job gj = {g, gp, j.lp, cs.s_row};
    pdt_cpu_parallel_for(N * O, 1 + ((int64_t)1 << 15) / (j.lp + 1), gpad_range, &gj);
    j.gp = gp;
    memset(j.dw, 0, (size_t)(O * j.K) * sizeof *j.dw);
    const int64_t per_img = (O * j.lp + cs.s_img) * 4;
    const int64_t chunk = CHUNK_BYTES / per_img > 1 ? CHUNK_BYTES / per_img : 1;
    const int64_t tasks = groups * j.nob * j.nkb;
    for (j.n0 = 0; j.n0 < N; j.n0 += chunk) {
        j.nimg = N - j.n0 < chunk ? N - j.n0 : chunk;
        const int64_t work = simd->conv_dot_mo * simd->conv_dot_mk * j.lp * j.nimg;
        pdt_cpu_parallel_for(tasks, 1 + ((int64_t)1 << 17) / (work + 1), blocks_range, &j);
    }
    free(gp);
    pdt_cpu_conv_src_free(&cs);
    return PDT_OK;
}
