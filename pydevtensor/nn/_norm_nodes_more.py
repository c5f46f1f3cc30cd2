"""group_norm and evaluation-mode batch_norm recorded as one op each, with PyTorch's
node names NativeGroupNormBackward0 and NativeBatchNormBackward0 (composed of their
pieces, their grad_fn was the last piece's: ViewBackward0, DivBackward0, AddBackward0).

group_norm is nn/_norm_nodes.py's normalisation of x viewed as (N, G, C/G, S), S the
positions, over its last two dims, weight and bias (C,) seen as (1, G, C/G, 1); its
gradients are the ones written there (PyTorch's native_group_norm_backward).

Evaluation-mode batch_norm normalises by the running statistics, constants:

    out = (x - running_mean) / sqrt(running_var + eps) * weight + bias

so, invstd = 1 / sqrt(running_var + eps) and xhat = (x - running_mean) * invstd
(PyTorch's native_batch_norm_backward with train=False):

    dx = g * weight * invstd,   dweight = sum(g * xhat),   dbias = sum(g)

summed over every dim but 1.  The running statistics get no gradient (PyTorch's);
the node keeps its own copies of them, so the running update of a later training step
does not invalidate it.  Recorded ops throughout: create_graph works.  float16 and
bfloat16 are computed in float32 and rounded once, as PyTorch's.
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from ._norm_nodes import _normalize, _stats, _to_param, wide


def _grouped(x, groups):
    """(N, G, C/G, S): x's shape seen by groups, S its positions."""
    n, c = x.shape[0], x.shape[1]
    s = 1
    for k in x.shape[2:]:
        s *= k
    return (n, groups, c // groups, s)


@recorded("native_group_norm")
def native_group_norm(x, weight, bias, groups, eps):
    """(out, mean, var, xhat, std): group_norm of x (N, C, *) in groups of C/groups
    channels, weight and bias (C,) or None; the statistics of shape (N, G, 1, 1)."""
    shape = _grouped(x, groups)
    out, *more = _normalize(x.reshape(shape), weight, bias, (2, 3), eps,
                            (1, groups, shape[2], 1))
    return (out.reshape(tuple(x.shape)), *more)


@derivative("native_group_norm")
class NativeGroupNormBackward0(Node):
    """dx = (gx - mean(gx) - xhat * mean(gx * xhat)) / std with gx = g * weight, over
    each sample's group; dweight = sum(g * xhat), dbias = sum(g) over N and S."""

    def save(self, out, x, weight, bias, groups, eps):
        self.shape, self.eps = _grouped(x, groups), eps
        self.affine = weight is not None
        self.params = [None if p is None else (tuple(p.shape), p.dtype) for p in (weight, bias)]
        self.save_tensors(x, out[4], *([weight] if weight is not None else []))
        return (x, weight, bias)

    def backward(self, g):
        x, std, *w = self.saved_tensors
        shape = self.shape
        wd = wide(x.dtype)
        xg = x.reshape(shape)
        xg = xg if xg.dtype == wd else xg.to(wd)
        gw = g.reshape(shape)
        gw = gw if gw.dtype == wd else gw.to(wd)
        centred, var = _stats(xg, (2, 3))
        if _C.is_grad_enabled():  # create_graph: std as a function of x
            std = _C.sqrt(var + self.eps)
        xhat = centred / std
        need = self.needs_input_grad
        dx = dweight = dbias = None
        if need[0]:
            gx = gw
            if self.affine:
                weight = w[0].reshape(1, shape[1], shape[2], 1)
                gx = gw * (weight if weight.dtype == wd else weight.to(wd))
            dx = (gx - gx.mean(dim=(2, 3), keepdim=True)
                  - xhat * (gx * xhat).mean(dim=(2, 3), keepdim=True)) / std
            dx = dx.reshape(tuple(x.shape))
            dx = dx if dx.dtype == x.dtype else dx.to(x.dtype)
        if need[1]:
            dweight = _to_param((gw * xhat).sum(dim=(0, 3)), self.params[0])
        if need[2]:
            dbias = _to_param(gw.sum(dim=(0, 3)), self.params[1])
        return dx, dweight, dbias


def _channels(t, x):
    """A (C,) tensor shaped to broadcast along dim 1 of x."""
    return t.reshape((1, t.shape[0]) + (1,) * (x.ndim - 2))


def _as(t, dtype):
    return t if t.dtype == dtype else t.to(dtype)


@recorded("native_batch_norm_eval")
def batch_norm_eval(x, weight, bias, running_mean, running_var, eps):
    """x normalised by the running statistics (C,), then weight and bias (C,) or None;
    in float32 for the half types, rounded once."""
    wd = wide(x.dtype)
    out = (_as(x, wd) - _channels(_as(running_mean, wd), x)) / _C.sqrt(
        _channels(_as(running_var, wd), x) + eps)
    if weight is not None:
        out = out * _channels(_as(weight, wd), x)
    if bias is not None:
        out = out + _channels(_as(bias, wd), x)
    return _as(out, x.dtype)


@derivative("native_batch_norm_eval")
class NativeBatchNormBackward0(Node):
    """The gradients of the module docstring's evaluation-mode batch_norm."""

    def save(self, out, x, weight, bias, running_mean, running_var, eps):
        wd = wide(x.dtype)
        mean = _as(running_mean, wd)
        mean = mean.clone() if mean is running_mean else mean  # the node's own copy
        invstd = 1 / _C.sqrt(_as(running_var, wd) + eps)
        self.params = [None if p is None else (tuple(p.shape), p.dtype) for p in (weight, bias)]
        self.save_tensors(x, mean, invstd, *([weight] if weight is not None else []))
        return (x, weight, bias)

    def backward(self, g):
        x, mean, invstd, *w = self.saved_tensors
        wd = wide(x.dtype)
        gw = _as(g, wd)
        invstd = _channels(invstd, x)
        outer = (0,) + tuple(range(2, x.ndim))
        need = self.needs_input_grad
        dx = dweight = dbias = None
        if need[0]:
            scale = invstd * _channels(_as(w[0], wd), x) if w else invstd
            dx = _as(gw * scale, x.dtype)
        if need[1]:
            xhat = (_as(x, wd) - _channels(mean, x)) * invstd
            dweight = _to_param((gw * xhat).sum(dim=outer), self.params[0])
        if need[2]:
            dbias = _to_param(gw.sum(dim=outer), self.params[1])
        return dx, dweight, dbias
