/* pdt_conv.h - image to columns and back: the validated entry points behind
 * convolutions and pooling (the private _C._im2col and _C._col2im).
 *
 * im2col lays the sliding windows of a batch of images out as the columns of a
 * matrix, as PyTorch's torch.nn.functional.unfold: x (N, C, H, W) gives
 * (N, C kh kw, oh ow) with row c kh kw + i kw + j and column y ow + x holding
 * x[n, c, y sh - ph + i dh, x sw - pw + j dw], or pad_value where that lies in
 * the padding.  col2im is its adjoint (PyTorch's fold): every element of the
 * columns is added to the image element it came from, padding positions
 * dropped, each image element summing its contributions in the order of (i, j)
 * (deterministic, and the same bits on every device; float16 and bfloat16 sum
 * in float32 and round once).
 *
 * The window: kernel_size, dilation and stride >= 1, padding >= 0, each below
 * 2^31, and at least one window position each way:
 *     oh = (H + 2 ph - dh (kh - 1) - 1) / sh + 1 >= 1   (ow alike).
 * Dtypes float32, float64, float16 and bfloat16; an empty batch (N = 0) gives
 * an empty result, other empty sizes are refused (as PyTorch's unfold/fold). */
#ifndef PDT_CONV_H
#define PDT_CONV_H

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the window of spec (kernel, dilation, padding and stride: its in and
 * out are ignored) over an image of spatial size in_hw, and gives it in *w with
 * in and out filled; op and d name the op and device in the message. */
pdt_status pdt_window2d_init(const char *op, pdt_device d, const int64_t in_hw[2],
                             const pdt_window2d *spec, pdt_window2d *w);

/* out = im2col(x): x (N, C, H, W) of any strides; out contiguous (N, C kh kw,
 * oh ow) of x's dtype, on x's device, not sharing x's storage. */
pdt_status pdt_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *spec,
                      double pad_value);
/* The same into a new contiguous tensor *out. */
pdt_status pdt_im2col_new(const pdt_tensor *x, const pdt_window2d *spec, double pad_value,
                          pdt_tensor *out);

/* out = col2im(cols): cols (N, C kh kw, L) of any strides, L the window
 * positions over out's (H, W); out contiguous (N, C, H, W) of cols' dtype, on
 * cols' device, not sharing cols' storage; every element written (on failure,
 * e.g. out of memory for the CPU's float32 scratch of a half type, out may be
 * partly written: pdt_col2im_new, which makes out, is what the bindings call). */
pdt_status pdt_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *spec);
/* The same into a new contiguous tensor *out of spatial size output_hw. */
pdt_status pdt_col2im_new(const pdt_tensor *cols, const int64_t output_hw[2],
                          const pdt_window2d *spec, pdt_tensor *out);

/* *out = a new contiguous (N, O, oh, ow): the cross-correlation of x (N, C, H, W)
 * with w (O, C / groups, kh, kw), plus bias (O) when not NULL, over the window
 * of spec (its dilation, padding and stride; the kernel is w's), as
 * torch.nn.functional.conv2d.  PDT_ERR_UNSUPPORTED when the device's backend has
 * no kernel for the case (the caller then uses im2col and a matrix product). */
pdt_status pdt_conv2d_new(const pdt_tensor *x, const pdt_tensor *w, const pdt_tensor *bias,
                          const pdt_window2d *spec, int64_t groups, pdt_tensor *out);
/* *out = a new contiguous (O, C / groups, kh, kw): the gradient of conv2d's
 * weight for the output's gradient g (N, O, oh, ow) of the convolution of x
 * (N, C, H, W) over spec's window with kernel (kh, kw) (spec->kernel).
 * PDT_ERR_UNSUPPORTED as pdt_conv2d_new. */
pdt_status pdt_conv2d_grad_weight_new(const pdt_tensor *x, const pdt_tensor *g,
                                      const pdt_window2d *spec, int64_t groups, pdt_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_CONV_H */
