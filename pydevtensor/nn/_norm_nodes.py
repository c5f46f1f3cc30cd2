"""layer_norm's and batch_norm's normalisation (training statistics) recorded as one op
each, with PyTorch's node names: NativeLayerNormBackward0 and NativeBatchNormBackward0
(composed of their pieces, their grad_fn was the last piece's, DivBackward0/AddBackward0).

    out = (x - mean) / sqrt(var + eps) * weight + bias

mean and the biased var over dims (layer_norm: the trailing normalized dims; batch_norm:
every dim but 1), weight and bias optional, already shaped to broadcast.  With
xhat = (x - mean) / std, std = sqrt(var + eps), n the count over dims and
gx = g * weight (or g), the gradients are (PyTorch's native_layer_norm_backward):

    dx = (gx - mean(gx) - xhat * mean(gx * xhat)) / std
    dweight = sum(g * xhat), dbias = sum(g)   (over the dims weight is broadcast along)

Under create_graph (grad mode on in backward) mean and std are taken again from x by
recorded ops, so the gradient is differentiable in x, weight and g (double backward).
float16/bfloat16 are normalised in float32 and rounded once, as PyTorch's; their
gradients too.
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node


def wide(dtype):
    """The dtype statistics and sums of dtype are taken in: float32 for float16 and
    bfloat16 (rounded once at the end, as PyTorch accumulates them), else dtype."""
    return _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype


def _stats(x, dims):
    """(centred, var): x - mean(x) and the biased variance, over dims (kept)."""
    centred = x - x.mean(dim=dims, keepdim=True)
    return centred, (centred * centred).mean(dim=dims, keepdim=True)


def _normalize(x, weight, bias, dims, eps, shape):
    """(out, mean, var, xhat, std) of the module docstring, out in x's dtype, the others
    wide (for the backward: xhat = (x - mean) / std); weight and bias reshaped to shape
    to broadcast."""
    wd = wide(x.dtype)
    xw = x if wd == x.dtype else x.to(wd)
    mean = xw.mean(dim=dims, keepdim=True)
    centred = xw - mean
    var = (centred * centred).mean(dim=dims, keepdim=True)
    std = _C.sqrt(var + eps)
    out = xhat = centred / std
    if weight is not None:
        out = out * (weight.reshape(shape) if weight.dtype == wd else weight.reshape(shape).to(wd))
    if bias is not None:
        out = out + (bias.reshape(shape) if bias.dtype == wd else bias.reshape(shape).to(wd))
    return (out if wd == x.dtype else out.to(x.dtype)), mean, var, xhat, std


@recorded("native_layer_norm")
def native_layer_norm(x, weight, bias, dims, eps):
    """(out, mean, var, xhat, std): layer_norm over dims (the trailing ones), weight and bias of
    the normalized shape or None."""
    return _normalize(x, weight, bias, dims, eps, x.shape[x.ndim - len(dims):])


@recorded("native_batch_norm")
def native_batch_norm(x, weight, bias, eps):
    """(out, mean, var, xhat, std): batch_norm by the batch's statistics over every dim but 1,
    weight and bias of shape (C,) or None."""
    return _normalize(x, weight, bias, _batch_dims(x), eps, _channels_shape(x))


def _batch_dims(x):
    return (0,) + tuple(range(2, x.ndim))


def _channels_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


class _NormalizeBackward(Node):
    """The gradients of the module docstring."""

    def save(self, out, x, weight, bias, *args):
        # the dims of the statistics, weight's broadcast shape, the dims it is broadcast along
        self.dims, self.shape, self.outer = self.layout(x, *args)
        self.eps = args[-1]
        self.affine = weight is not None
        self.params = [None if p is None else (tuple(p.shape), p.dtype) for p in (weight, bias)]
        # x's mean and std, and xhat where it is not the output (which may be changed
        # in place: PyTorch's native_layer_norm saves no output either)
        xhat = out[3] if out[3] is not out[0] else None
        self.has_xhat = xhat is not None
        self.save_tensors(x, out[1], out[4], *(t for t in (xhat, weight) if t is not None))
        return (x, weight, bias)

    def backward(self, g):
        x, mean, std, *more = self.saved_tensors
        dims = self.dims
        weight = more[-1] if self.affine else None
        wd = wide(x.dtype)
        gw = g if wd == g.dtype else g.to(wd)
        if _C.is_grad_enabled():  # create_graph: the statistics as functions of x
            centred, var = _stats(x if wd == x.dtype else x.to(wd), dims)
            std = _C.sqrt(var + self.eps)
            xhat = centred / std
        elif self.has_xhat:
            xhat = more[0]
        else:
            xhat = ((x if wd == x.dtype else x.to(wd)) - mean) / std
        need = self.needs_input_grad
        dx = dweight = dbias = None
        if need[0]:
            gx = gw if weight is None else gw * (weight.reshape(self.shape) if weight.dtype == wd
                                                 else weight.reshape(self.shape).to(wd))
            dx = (gx - gx.mean(dim=dims, keepdim=True)
                  - xhat * (gx * xhat).mean(dim=dims, keepdim=True)) / std
            dx = dx if dx.dtype == x.dtype else dx.to(x.dtype)
        if need[1] or need[2]:
            outer = self.outer
            if need[1]:
                dweight = _to_param((gw * xhat).sum(dim=outer, keepdim=True), self.params[0])
            if need[2]:
                dbias = _to_param(gw.sum(dim=outer, keepdim=True), self.params[1])
        return dx, dweight, dbias


def _to_param(t, param):
    """A keepdim sum brought to the parameter's (shape, dtype)."""
    t = t.reshape(param[0])
    return t if t.dtype == param[1] else t.to(param[1])


@derivative("native_layer_norm")
class NativeLayerNormBackward0(_NormalizeBackward):
    @staticmethod
    def layout(x, dims, eps):
        return dims, x.shape[x.ndim - len(dims):], tuple(range(x.ndim - len(dims)))


@derivative("native_batch_norm")
class NativeBatchNormBackward0(_NormalizeBackward):
    @staticmethod
    def layout(x, eps):
        return _batch_dims(x), _channels_shape(x), _batch_dims(x)
