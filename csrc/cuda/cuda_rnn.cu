/* cuda_rnn.cu - the CUDA backend's fused LSTM and GRU cell steps and their
 * backward (equations and workspace layouts in pdt_rnn.h; contracts in
 * pdt_backend.h; the core validated the inputs).  Built by nvcc, or by the
 * host compiler against the emulated device.
 *
 * One thread per (b, j) of the (B, H) state, in a grid-stride loop: it reads
 * its G gate pre-activations (b, q H + j), q < G, and writes its own outputs
 * and workspace entries; no atomics, no shared memory.  sigmoid and tanh are
 * the elementwise ops' (cuda_activation.cuh), and every product is
 * __fmul_rn's or __dmul_rn's, which nvcc never contracts into a multiply-add
 * whatever its --fmad (CUDA Math API, "Single/Double Precision Intrinsics"):
 * the unfused composition's arithmetic in its order, so the same bits as the
 * unfused ops on this device, and the CPU's bits for everything but sigmoid
 * and tanh (whose float32 versions differ between the CPU's vector kernels
 * and CUDA's expf and tanhf, within their stated ulps).
 *
 * Index math is in int32 when B (G + 1) H < 2^31, else in int64. */
#include <stdint.h>

#include "cuda_activation.cuh"
#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"

namespace {

using namespace pdt_cuda;

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }

/* The pointers of one call (NULL for an absent bias or gradient). */
template <typename T> struct cell_ptrs {
    const T *ig, *hg, *bi, *bh, *state; /* forward: (B, G H), (G H), (B, H) */
    const T *dh, *dc, *ws;              /* backward: (B, H), the workspace */
    T *hy, *cy, *ws_out;                /* forward outputs */
    T *di, *dg, *ds;                    /* backward outputs */
    PDT_KERNEL_POINTERS(ig, hg, bi, bh, state, dh, dc, ws, hy, cy, ws_out, di, dg, ds)
};

/* (ig[k] + bi[k]) + (hg[k] + bh[k]), each bias only when given; k = q H + j of
 * row b's gates. */
template <typename T, typename I>
__device__ __forceinline__ T gate_sum(const cell_ptrs<T> &p, I row, I k)
{
    T gi = p.ig[row + k], gh = p.hg[row + k];
    if (p.bi)
        gi = gi + p.bi[k];
    if (p.bh)
        gh = gh + p.bh[k];
    return gi + gh;
}

template <typename T, typename I> __global__ void lstm_kernel(cell_ptrs<T> p, I H, I n)
{
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I b = idx / H, j = idx % H, row = b * 4 * H;
        const T i = sigmoid_of(gate_sum(p, row, j)), f = sigmoid_of(gate_sum(p, row, H + j));
        const T g = tanh_of(gate_sum(p, row, 2 * H + j));
        const T o = sigmoid_of(gate_sum(p, row, 3 * H + j));
        const T c = mul(f, p.state[idx]) + mul(i, g);
        const T tc = tanh_of(c);
        T *w = p.ws_out + b * 5 * H + j;
        w[0] = i;
        w[H] = f;
        w[2 * H] = g;
        w[3 * H] = o;
        w[4 * H] = tc;
        p.cy[idx] = c;
        p.hy[idx] = mul(o, tc);
    }
}

template <typename T, typename I> __global__ void gru_kernel(cell_ptrs<T> p, I H, I n)
{
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I b = idx / H, j = idx % H, row = b * 3 * H;
        const T r = sigmoid_of(gate_sum(p, row, j)), z = sigmoid_of(gate_sum(p, row, H + j));
        T xn = p.ig[row + 2 * H + j], hn = p.hg[row + 2 * H + j];
        if (p.bi)
            xn = xn + p.bi[2 * H + j];
        if (p.bh)
            hn = hn + p.bh[2 * H + j];
        const T nn = tanh_of(xn + mul(r, hn));
        T *w = p.ws_out + b * 4 * H + j;
        w[0] = r;
        w[H] = z;
        w[2 * H] = nn;
        w[3 * H] = hn;
        p.hy[idx] = nn + mul(z, p.state[idx] - nn);
    }
}

template <typename T, typename I> __global__ void lstm_backward_kernel(cell_ptrs<T> p, I H, I n)
{
    const T one = (T)1;
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I b = idx / H, j = idx % H;
        const T *w = p.ws + b * 5 * H + j;
        const T i = w[0], f = w[H], g = w[2 * H], o = w[3 * H], tc = w[4 * H];
        const T dh = p.dh ? p.dh[idx] : (T)0;
        T dct = mul(mul(dh, o), one - mul(tc, tc));
        if (p.dc)
            dct = p.dc[idx] + dct;
        T *d = p.di + b * 4 * H + j;
        d[0] = mul(mul(dct, g), mul(i, one - i));
        d[H] = mul(mul(dct, p.state[idx]), mul(f, one - f));
        d[2 * H] = mul(mul(dct, i), one - mul(g, g));
        d[3 * H] = mul(mul(dh, tc), mul(o, one - o));
        p.ds[idx] = mul(dct, f);
    }
}

template <typename T, typename I> __global__ void gru_backward_kernel(cell_ptrs<T> p, I H, I n)
{
    const T one = (T)1;
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I b = idx / H, j = idx % H;
        const T *w = p.ws + b * 4 * H + j;
        const T r = w[0], z = w[H], nn = w[2 * H], hn = w[3 * H], dh = p.dh[idx];
        const T dz = mul(mul(dh, p.state[idx] - nn), mul(z, one - z));
        const T dn = mul(mul(dh, one - z), one - mul(nn, nn));
        const T dr = mul(mul(dn, hn), mul(r, one - r));
        T *di = p.di + b * 3 * H + j, *dg = p.dg + b * 3 * H + j;
        di[0] = dg[0] = dr;
        di[H] = dg[H] = dz;
        di[2 * H] = dn;
        dg[2 * H] = mul(dn, r);
        p.ds[idx] = mul(dh, z);
    }
}

template <typename T> const T *cptr(const pdt_tensor *t)
{
    return t ? (const T *)pdt_tensor_ptr(t) : nullptr;
}
template <typename T> T *mptr(const pdt_tensor *t) { return t ? (T *)pdt_tensor_ptr(t) : nullptr; }

template <typename T, typename I>
void launch_forward(const pdt_rnn_cell_args *a, cudaStream_t stream)
{
    cell_ptrs<T> p = {};
    p.ig = cptr<T>(a->igates);
    p.hg = cptr<T>(a->hgates);
    p.bi = cptr<T>(a->b_ih);
    p.bh = cptr<T>(a->b_hh);
    p.state = cptr<T>(a->state);
    p.hy = mptr<T>(a->hy);
    p.cy = mptr<T>(a->cy);
    p.ws_out = mptr<T>(a->ws);
    const I H = (I)a->hidden, n = (I)(a->batch * a->hidden);
    if (a->kind == PDT_RNN_LSTM)
        PDT_LAUNCH((lstm_kernel<T, I>), (grid_for<lstm_kernel<T, I>>((uint64_t)n)), kThreads, 0,
                   stream, p, H, n);
    else
        PDT_LAUNCH((gru_kernel<T, I>), (grid_for<gru_kernel<T, I>>((uint64_t)n)), kThreads, 0,
                   stream, p, H, n);
}

template <typename T, typename I>
void launch_backward(const pdt_rnn_cell_grad_args *a, cudaStream_t stream)
{
    cell_ptrs<T> p = {};
    p.dh = cptr<T>(a->dhy);
    p.dc = cptr<T>(a->dcy);
    p.state = cptr<T>(a->state);
    p.ws = cptr<T>(a->ws);
    p.di = mptr<T>(a->d_igates);
    p.dg = mptr<T>(a->d_hgates);
    p.ds = mptr<T>(a->dstate);
    const I H = (I)a->hidden, n = (I)(a->batch * a->hidden);
    if (a->kind == PDT_RNN_LSTM)
        PDT_LAUNCH((lstm_backward_kernel<T, I>),
                   (grid_for<lstm_backward_kernel<T, I>>((uint64_t)n)), kThreads, 0, stream, p, H,
                   n);
    else
        PDT_LAUNCH((gru_backward_kernel<T, I>), (grid_for<gru_backward_kernel<T, I>>((uint64_t)n)),
                   kThreads, 0, stream, p, H, n);
}

/* int32 indices when every offset a kernel forms, below B (G + 1) H, fits. */
int fits_int32(int64_t batch, int64_t hidden) { return batch * 5 * hidden < ((int64_t)1 << 31); }

template <typename A, typename L32F, typename L32D, typename L64F, typename L64D>
pdt_status run(const A *a, pdt_dtype dt, int device, L32F l32f, L32D l32d, L64F l64f, L64D l64d)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, device, &stream);
    if (st == PDT_OK) {
        (void)cudaGetLastError(); /* Note [stale CUDA errors] in cuda_kernels.cu */
        const int f64 = dt == PDT_FLOAT64;
        if (fits_int32(a->batch, a->hidden))
            f64 ? l32d(a, stream) : l32f(a, stream);
        else
            f64 ? l64d(a, stream) : l64f(a, stream);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

} // namespace

extern "C" pdt_status pdt_cuda_rnn_cell(const pdt_rnn_cell_args *a)
{
    return run(a, a->igates->dtype, a->hy->device.index, launch_forward<float, int32_t>,
               launch_forward<double, int32_t>, launch_forward<float, int64_t>,
               launch_forward<double, int64_t>);
}

extern "C" pdt_status pdt_cuda_rnn_cell_backward(const pdt_rnn_cell_grad_args *a)
{
    return run(a, a->ws->dtype, a->dstate->device.index, launch_backward<float, int32_t>,
               launch_backward<double, int32_t>, launch_backward<float, int64_t>,
               launch_backward<double, int64_t>);
}
