"""im2col and col2im: the two private, differentiable ops under unfold, fold, the
convolutions and the pools (nn/_functional_conv.py, nn/_functional_pool.py).

    im2col(x, kernel, dilation, padding, stride, pad_value=0.0)
        x: (N, C, H, W) -> cols: (N, C*kh*kw, L), L = out_h*out_w
    col2im(cols, output_hw, kernel, dilation, padding, stride)
        cols: (N, C*kh*kw, L) -> (N, C, H, W), overlapping entries summed

The layout is PyTorch's unfold's: the rows of cols run over the channel first, then
the kernel's row, then its column; its columns over the output positions row-major.
With the padded plane Hp = H + 2*ph, Wp = W + 2*pw (filled with pad_value) and
out_h = (Hp - dh*(kh-1) - 1) // sh + 1 (out_w alike):

    cols[n, (c*kh + i)*kw + j, oy*out_w + ox] = xp[n, c, oy*sh + i*dh, ox*sw + j*dw]

col2im is its adjoint: each entry of cols is added at that position, and the padding
is dropped.  Each op is the other's backward (recorded: a gradient of a gradient
would be too, were create_graph supported).

The arguments are checked by the callers (2-tuples of ints, a window that fits);
these two only move elements.  Here they are an index_select (im2col) and an
index_add (col2im) along the flattened plane, with one int64 index of shape
(kh*kw*L,) per plane shape and device, made on the device from aranges and kept.
A backend kernel (_C._im2col/_C._col2im) can replace the two bodies without any
caller changing.
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node

_CACHE_SIZE = 64
_index_cache = {}  # (Hp, Wp, kernel, dilation, stride, device) -> (index, out_h, out_w)


def _window_index(hp, wp, kernel, dilation, stride, device):
    """(index, out_h, out_w): the flat offsets into an (hp, wp) plane that im2col reads,
    in the order (i, j, oy, ox), as a contiguous int64 vector on device."""
    key = (hp, wp, kernel, dilation, stride, str(device))
    hit = _index_cache.get(key)
    if hit is not None:
        return hit
    (kh, kw), (dh, dw), (sh, sw) = kernel, dilation, stride
    out_h = (hp - dh * (kh - 1) - 1) // sh + 1
    out_w = (wp - dw * (kw - 1) - 1) // sw + 1

    def axis(k, d, out, s, shape_k, shape_o):
        taps = _C.arange(k, dtype=_C.int64, device=device).mul_(d).reshape(shape_k)
        starts = _C.arange(out, dtype=_C.int64, device=device).mul_(s).reshape(shape_o)
        return taps + starts

    rows = axis(kh, dh, out_h, sh, (kh, 1, 1, 1), (1, 1, out_h, 1))
    cols = axis(kw, dw, out_w, sw, (1, kw, 1, 1), (1, 1, 1, out_w))
    index = (rows.mul_(wp) + cols).reshape(-1).contiguous()
    if len(_index_cache) >= _CACHE_SIZE:
        _index_cache.pop(next(iter(_index_cache)))
    _index_cache[key] = hit = (index, out_h, out_w)
    return hit


def _accumulating(dtype):
    """The dtype col2im sums in: float32 for float16 and bfloat16 (index_add has no
    narrower floats), the dtype itself otherwise."""
    return _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype


@recorded("im2col")
def im2col(x, kernel, dilation, padding, stride, pad_value=0.0):
    """x: (N, C, H, W) -> (N, C*kh*kw, L), the sliding windows as columns (module
    docstring); the padding reads pad_value."""
    n, c, h, w = x.shape
    (kh, kw), (ph, pw) = kernel, padding
    hp, wp = h + 2 * ph, w + 2 * pw
    index, out_h, out_w = _window_index(hp, wp, kernel, dilation, stride, x.device)
    if ph or pw:
        xp = _C.full((n, c, hp, wp), pad_value, dtype=x.dtype, device=x.device)
        xp[:, :, ph:ph + h, pw:pw + w] = x
        plane = xp.reshape(n * c, hp * wp)
    else:
        plane = x.reshape(n * c, h * w)
    out = _C.empty((n * c, index.shape[0]), dtype=x.dtype, device=x.device)
    if out.numel():
        _C._index_select(out, plane, 1, index, False)
    return out.reshape(n, c * kh * kw, out_h * out_w)


@recorded("col2im")
def col2im(cols, output_hw, kernel, dilation, padding, stride):
    """cols: (N, C*kh*kw, L) -> (N, C, H, W) with (H, W) = output_hw: each entry added
    where im2col took it from, the padding dropped (module docstring)."""
    n, ck, _ = cols.shape
    (h, w), (kh, kw), (ph, pw) = output_hw, kernel, padding
    c = ck // (kh * kw)
    hp, wp = h + 2 * ph, w + 2 * pw
    index, _, _ = _window_index(hp, wp, kernel, dilation, stride, cols.device)
    wide = _accumulating(cols.dtype)
    plane = _C.zeros((n * c, hp * wp), dtype=wide, device=cols.device)
    if cols.numel():
        src = cols.reshape(n * c, index.shape[0])
        _C._index_add(plane, 1, index, src if wide == cols.dtype else src.to(wide))
    out = plane.reshape(n, c, hp, wp)
    if ph or pw:
        out = out[:, :, ph:ph + h, pw:pw + w].contiguous()
    return out if wide == cols.dtype else out.to(cols.dtype)


@derivative("im2col")
class Im2ColBackward0(Node):
    """im2col's gradient: col2im of the incoming gradient (the padding's share is
    dropped)."""

    def save(self, out, x, kernel, dilation, padding, stride, pad_value=0.0):
        self.args = (tuple(x.shape[2:]), kernel, dilation, padding, stride)
        return (x,)

    def backward(self, g):
        return (col2im(g, *self.args),)


@derivative("col2im")
class Col2ImBackward0(Node):
    """col2im's gradient: im2col of the incoming gradient, with zeros as padding."""

    def save(self, out, cols, output_hw, kernel, dilation, padding, stride):
        self.args = (kernel, dilation, padding, stride)
        return (cols,)

    def backward(self, g):
        return (im2col(g, *self.args, 0.0),)
