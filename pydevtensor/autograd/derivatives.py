"""The derivatives of the elementwise ops and the reductions: one Node class per op.

Each class is registered for the op's name(s) with ``@derivative``; ``save(result,
*args, **kwargs)`` gets the op's own arguments (as the binding got them) and returns the
differentiable inputs; ``backward(g)`` returns their gradients, computed with the
package's ops on the tensors' own device.  The names are PyTorch's, so ``grad_fn``
prints as ``<AddBackward0 ...>``.  The binary ops whose backward reads their operands
(mul, div, pow, ...) are in derivatives_operands.py; views, indexing, copies and the
matrix products in derivatives_shape.py.
"""
import math
import operator

from .. import _C
from .dispatch import derivative, not_differentiable
from .node import SAVED, Node

not_differentiable("eq", "ne", "lt", "le", "gt", "ge", "argmax", "argmin")


class _NoDerivative(Node):
    """PyTorch's NotImplemented node: the op's result requires grad, and a backward
    that reaches it raises, naming the op (``op``)."""

    def save(self, out, *args, **kwargs):
        return tuple(a for a in (*args, *kwargs.values()) if isinstance(a, _C.Tensor))

    def backward(self, g):
        raise RuntimeError(f"derivative for {self.op} is not implemented (pydevtensor, as "
                           "PyTorch, has none: compute the op on detached tensors)")


for _name in ("floor_divide", "heaviside"):  # in place too (dispatch._in_place_on)
    derivative(_name)(type("NotImplemented", (_NoDerivative,), {"op": _name}))


# meta(x): what a gradient for x must match, (shape as a tuple, dtype, device), or None
# for a number (in C: every binary op's save() calls it twice)
meta = _C._meta


def reduce_grad(g, m):
    """g summed over the dimensions broadcasting added to an input of meta m, in its
    dtype; None when the input was a number."""
    if m is None or g is None:
        return None
    shape = m[0]
    if tuple(g.shape) != shape:
        lead = g.ndim - len(shape)
        if lead > 0:
            g = g.sum(dim=tuple(range(lead)))
        elif lead < 0:  # x[key] = v drops v's leading 1s (PyTorch's copy_to, NumPy's too)
            g = g.reshape(shape[:-lead] + tuple(g.shape))
        dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
        if dims:
            g = g.sum(dim=dims, keepdim=True)
    if g.dtype != m[1]:
        g = g.to(m[1])
    return g


def expand_to(g, shape):
    """A new tensor of shape holding g broadcast (one copy kernel)."""
    if tuple(g.shape) == tuple(shape):
        return g
    out = _C.empty(shape, dtype=g.dtype, device=g.device)
    out[...] = g
    return out


def zeros_of(m):
    """The zero gradient of an input of meta m (None for a number)."""
    return None if m is None else _C.zeros(m[0], dtype=m[1], device=m[2])


def as_float(mask, like):
    return mask.to(like.dtype)


def sign(x):
    return as_float(x > 0, x) - as_float(x < 0, x)


def select(mask, g):
    """g where mask, else 0, as PyTorch's threshold_backward: a select, so that an inf
    or NaN gradient gives 0 where mask is False (``g * mask`` would give inf * 0 = NaN);
    one fused C call (_where_fast), as fast as the product (issue 20)."""
    out = _C._where_fast(mask, g, 0.0, False)
    if out is None:  # outside the C fast path's cases: the general where
        from .._ops_index import where  # imported late: _ops_index imports the recorder
        out = where(mask, g, 0.0)
    return out


def zero_where(mask, g):
    """g with 0 where mask, as PyTorch's threshold_backward ``where(y <= t, 0, g)``: a NaN
    input (mask False) passes g through, and a NaN or inf g gives 0 where mask is True."""
    out = _C._where_fast(mask, 0.0, g, True)
    if out is None:  # outside the C fast path's cases: the general masked_fill
        from .._ops_index import masked_fill  # imported late: _ops_index imports the recorder
        out = masked_fill(g, mask, 0.0)
    return out


def weighted(g, w):
    """g * w, 0 where w is 0 (a NaN or inf g too): clamp's gradients with tensor bounds,
    selected as PyTorch's (where(mask, g, 0)) where a weight is 0."""
    return select(w != 0, g * w)


# ---- binary ----

class _Binary(Node):
    def save(self, result, input, other, *args, **kwargs):
        self.metas = (meta(input), meta(other))
        return input, other


@derivative("add")
class AddBackward0(_Binary):
    def save(self, result, input, other, alpha=1, **kw):
        self.alpha = alpha
        return super().save(result, input, other)

    def backward(self, g):
        ma, mb = self.metas
        gb = g if self.alpha == 1 else g * self.alpha
        return reduce_grad(g, ma), reduce_grad(gb, mb)


@derivative("sub")
class SubBackward0(AddBackward0):
    @staticmethod
    def pick(input, other, *args, **kw):
        """``1 - x`` is PyTorch's rsub(x, 1): RsubBackward1, the name repr() shows."""
        return SubBackward0 if isinstance(input, _C.Tensor) else RsubBackward1

    def backward(self, g):
        ma, mb = self.metas
        # -g as PyTorch's maybe_multiply (a NegBackward0 under create_graph)
        return reduce_grad(g, ma), reduce_grad(-g if self.alpha == 1 else g * (-self.alpha), mb)


class RsubBackward1(SubBackward0):
    """A number minus a tensor."""


class _Extremum(_Binary):
    """maximum/minimum: the gradient goes to the chosen input, split in half on ties."""

    def save(self, result, input, other, **kw):
        # a number operand (maximum(x, 0): pydevtensor takes one, PyTorch's Tensor
        # overload does not) is a constant: kept as a 0-d tensor of the result's dtype
        if not isinstance(input, _C.Tensor):
            input = _C.full((), input, dtype=result.dtype, device=result.device)
        if not isinstance(other, _C.Tensor):
            other = _C.full((), other, dtype=result.dtype, device=result.device)
        self.save_tensors(input, other)
        return super().save(result, input, other)

    def backward(self, g):
        a, b = self.saved_tensors
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        # selects, as PyTorch's: g halved on a tie, 0 to the input not chosen (a NaN
        # g gives 0 there; a NaN input gives g to both)
        from .._ops_index import where  # imported late: _ops_index imports the recorder
        gt = where(a == b, g * 0.5, g)
        lose_a, lose_b = self._losers(a, b)
        return (reduce_grad(zero_where(lose_a, gt), ma) if need_a else None,
                reduce_grad(zero_where(lose_b, gt), mb) if need_b else None)


    def _losers(self, a, b):
        return (a < b, a > b) if self.larger else (a > b, a < b)


class _FExtremum(_Extremum):
    """fmax/fmin: as maximum's, but a NaN loses to a number, and of two NaNs the
    input wins (PyTorch 2.15's, run side by side)."""

    def _losers(self, a, b):
        lose_a, lose_b = super()._losers(a, b)
        nan_b = b.isnan()
        return lose_a | (a.isnan() & ~nan_b), lose_b | nan_b


@derivative("fmax")
class FmaxBackward0(_FExtremum):
    larger = True


@derivative("fmin")
class FminBackward0(_FExtremum):
    larger = False


@derivative("maximum")
class MaximumBackward0(_Extremum):
    larger = True


@derivative("minimum")
class MinimumBackward0(_Extremum):
    larger = False


# ---- unary ----

class _Unary(Node):
    uses = "input"  # what backward needs: "input", "result" or nothing

    def save(self, result, input, **kw):
        if self.uses == "input":
            self.save_tensors(input)
        elif self.uses == "result":
            self.save_tensors(result.detach(), outputs=(0,))
        return (input,)

    def backward(self, g):
        (v,) = self.saved_tensors if self.uses else (None,)
        return self.formula(g, v)


def _unary(name, cls_name, uses, formula, zero_derivative=False, mask_derivative=False):
    cls = type(cls_name, (_Unary,), {"uses": uses, "formula": staticmethod(formula),
                                     "zero_derivative": zero_derivative,
                                     "mask_derivative": mask_derivative})
    derivative(name)(cls)
    globals()[cls_name] = cls


_unary("neg", "NegBackward0", None, lambda g, v: -g)
# abs and relu: Note [mask derivatives] in node.py (their gradient requires grad under
# create_graph when x does, and its derivative is zeros, as PyTorch's)
_unary("abs", "AbsBackward0", "input", lambda g, x: g * sign(x), mask_derivative=True)
_unary("exp", "ExpBackward0", "result", lambda g, y: g * y)
_unary("log", "LogBackward0", "input", lambda g, x: g / x)
_unary("sqrt", "SqrtBackward0", "result", lambda g, y: g / (2.0 * y))
# std() is var().sqrt(): 0 where the result is 0, as PyTorch's std_backward (the variance's
# own gradient is 0 there, and g / 0 * 0 would be NaN)
_unary("_std_of_var", "StdBackward0", "result", lambda g, y: zero_where(y == 0, g / (2.0 * y)))
_unary("sin", "SinBackward0", "input", lambda g, x: g * x.cos())
_unary("cos", "CosBackward0", "input", lambda g, x: -g * x.sin())
_unary("tanh", "TanhBackward0", "result", lambda g, y: g * (1.0 - y * y))
_unary("sigmoid", "SigmoidBackward0", "result", lambda g, y: g * y * (1.0 - y))
# PyTorch's threshold_backward: 0 where y <= 0 (an inf or NaN g too), g elsewhere (a
# NaN input too)
_unary("relu", "ReluBackward0", "result", lambda g, y: zero_where(y <= 0, g),
       mask_derivative=True)
_unary("log1p", "Log1PBackward0", "input", lambda g, x: g / (x + 1.0))
# -g y^2 from the result y = 1 / x, as PyTorch's: its second derivative 2 y^3 is inf at 0
# and 0 at inf (div's, -g / x^2 differentiated, was NaN there)
_unary("reciprocal", "ReciprocalBackward0", "result", lambda g, y: -g * (y * y))
_unary("expm1", "Expm1Backward0", "result", lambda g, y: g * (y + 1.0))
# d erf(x) / dx = 2 / sqrt(pi) exp(-x^2), and erfc's its negative
_TWO_OVER_SQRT_PI = 1.1283791670955126
_unary("erf", "ErfBackward0", "input", lambda g, x: g * ((x * x).neg_().exp_() * _TWO_OVER_SQRT_PI))
_unary("erfc", "ErfcBackward0", "input",
       lambda g, x: g * ((x * x).neg_().exp_() * -_TWO_OVER_SQRT_PI))
# nn.functional.gelu's exact form (one pass each: Note [float32 gelu] in
# csrc/cpu/cpu_vgelu.h); gelu'' = phi(x) (2 - x^2)
_unary("_gelu", "GeluBackward0", "input", lambda g, x: g * _C._gelu_grad(x))
_unary("_gelu_grad", "GeluBackwardBackward0", "input",
       lambda g, x: g * ((2.0 - x * x) * (x * x * -0.5).exp() * _INV_SQRT_2PI))
_INV_SQRT_2PI = 0.3989422804014327
# lgamma' = digamma, digamma' = polygamma(1, x) (pydevtensor/_ops_gamma.py)
_unary("lgamma", "LgammaBackward0", "input", lambda g, x: g * x.digamma())
_unary("digamma", "DigammaBackward0", "input", lambda g, x: g * _trigamma(x))


def _trigamma(x):
    from .._ops_gamma import polygamma
    return polygamma(1, x)


# piecewise constant: a zero gradient, as in PyTorch (the result still requires grad)
for _name in ("floor", "ceil", "round", "trunc", "fix", "sign"):
    _unary(_name, _name.capitalize() + "Backward0", None, lambda g, v: _C.zeros_like(g),
           zero_derivative=True)


@derivative("clamp")
class ClampBackward1(Node):
    """clamp's gradient as PyTorch 2.15 gives it (checked against it over every order
    of x, min and max among 0, 1, 2 and NaN).  Number bounds: to x only strictly
    inside them (none at a bound, none for NaN).  A tensor bound alone: to x unless x
    is past it, to the bound unless x is inside, half each on a tie (so a NaN on
    either side gives the gradient to both).  Two bounds, one a tensor: to x unless
    it is past one (a number bound counts its own value as past), halved on a tie with
    a tensor bound when min < max; to min where x is below it and min <= max; to max
    where x is above it and min <= max, and wherever min > max; ties as for x.
    (PyTorch refuses a number bound with a tensor one; here the rule above.)"""

    def save(self, result, input, min=None, max=None, **kw):
        self.bounds = tuple(SAVED if isinstance(b, _C.Tensor) else b for b in (min, max))
        self.save_tensors(input, *(b for b in (min, max) if isinstance(b, _C.Tensor)))
        self.metas = (meta(input), meta(min), meta(max))
        return input, min, max

    def backward(self, g):
        saved = list(self.saved_tensors)
        x = saved.pop(0)
        lo, hi = (saved.pop(0) if b is SAVED else b for b in self.bounds)
        lo_t, hi_t = isinstance(lo, _C.Tensor), isinstance(hi, _C.Tensor)

        def f(mask):
            return as_float(mask, g)

        g_lo = g_hi = None
        if not lo_t and not hi_t:  # numbers (or None): strictly inside, selected
            inside = x > lo if lo is not None else None
            if hi is not None:
                inside = x < hi if inside is None else inside.logical_and(x < hi)
            gx = g if inside is None else select(inside, g)
            return reduce_grad(gx, self.metas[0]), None, None
        elif hi is None:  # a tensor min alone
            tie = f(x == lo) * 0.5
            w = 1.0 - f(x < lo) - tie
            g_lo = weighted(g, 1.0 - f(lo < x) - tie)
        elif lo is None:  # a tensor max alone
            tie = f(x == hi) * 0.5
            w = 1.0 - f(hi < x) - tie
            g_hi = weighted(g, 1.0 - f(x < hi) - tie)
        else:
            proper = f(lo < hi) * 0.5
            ordered = f(lo <= hi)
            tie_lo = f(x == lo) * proper if lo_t else 0.0
            tie_hi = f(x == hi) * proper if hi_t else 0.0
            w = ((1.0 - f(x < lo if lo_t else x <= lo)) * (1.0 - f(x > hi if hi_t else x >= hi))
                 * (1.0 - tie_lo - tie_hi))
            if lo_t:
                g_lo = weighted(g, ordered * f(x < lo) + tie_lo)
            if hi_t:
                g_hi = weighted(g, f(hi < lo) + ordered * f(hi < x) + tie_hi)
        gx = weighted(g, w)
        return (reduce_grad(gx, self.metas[0]),
                None if g_lo is None else reduce_grad(g_lo, self.metas[1]),
                None if g_hi is None else reduce_grad(g_hi, self.metas[2]))


# ---- reductions ----

def _dims(dim, ndim):
    """dim as a sorted tuple of non-negative dims; None or () is every dim."""
    if dim is None:
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if not dims:
        return tuple(range(ndim))
    n = max(ndim, 1)
    return tuple(sorted(d % n for d in dims))


def _unreduce(g, shape, dims, keepdim):
    """g of a reduction over dims brought back to broadcast against shape."""
    if not shape:
        return g.reshape(())
    if not keepdim:
        for d in dims:
            g = g.unsqueeze(d)
    return g


class _Reduction(Node):
    def save(self, result, input, dim=None, keepdim=False, dtype=None, **kw):
        self.shape = tuple(input.shape)
        self.in_meta = meta(input)
        self.dims = _dims(dim, input.ndim)
        self.keepdim = bool(keepdim)
        return (input,)


def _pick_over_dims(whole, over_dims):
    """PyTorch names a reduction's node by its overload: <Op>Backward0 for the whole
    tensor, <Op>Backward1 when a dim is given (x.sum(1) prints SumBackward1).  The
    parameters are sum's and mean's own, spelled out (the forward has refused any
    other, and a dtype passed as dim): a pick runs for every recorded op, and taking
    (input, *args, **kw) and reading dim out of them cost about 1,000 instructions more
    (callgrind, a recorded x.sum(1): 27,728 -> 26,766 a call)."""
    def pick(input, dim=None, keepdim=False, dtype=None):
        return whole if dim is None else over_dims
    return staticmethod(pick)


@derivative("sum")
class SumBackward0(_Reduction):
    def backward(self, g):
        g = _unreduce(g, self.shape, self.dims, self.keepdim)
        return reduce_grad(expand_to(g, self.shape), self.in_meta)


class SumBackward1(SumBackward0):
    pass


SumBackward0.pick = _pick_over_dims(SumBackward0, SumBackward1)


@derivative("mean")
class MeanBackward0(_Reduction):
    def backward(self, g):
        count = 1
        for d in self.dims:
            count *= self.shape[d] if self.shape else 1
        g = _unreduce(g, self.shape, self.dims, self.keepdim) / max(count, 1)
        return reduce_grad(expand_to(g, self.shape), self.in_meta)


class MeanBackward1(MeanBackward0):
    pass


MeanBackward0.pick = _pick_over_dims(MeanBackward0, MeanBackward1)


class _ReductionOfValues(_Reduction):
    """A reduction whose backward needs the input and the result (kept with keepdim)."""

    def save(self, result, input, *args, **kw):
        r = super().save(result, input, *args, **kw)
        self.save_tensors(input, result.detach(), outputs=(1,))
        return r

    def _unreduced(self, g):
        """(input, result, g), the last two broadcastable against the input."""
        x, y = self.saved_tensors
        return (x, _unreduce(y, self.shape, self.dims, self.keepdim),
                _unreduce(g, self.shape, self.dims, self.keepdim))

    def _shared_evenly(self, extreme, x, g):
        """g (unreduced) shared evenly among the elements where the bool tensor extreme
        is True, in x's dtype: amax's and amin's gradient, and the infinity norm's."""
        mask = as_float(extreme, x)
        count = mask.sum(dim=self.dims, keepdim=True) if self.shape else mask
        return mask * (g / count)


def _others_product(x, dims):
    """Each element's product of the other elements of its slice over dims, by products
    alone (the products before it times those after it, as PyTorch's
    prod_safe_zeros_backward): exact, and differentiable, with any number of zeros."""
    from .._ops_cumulative import cumprod  # imported late: they import the recorder
    from .._ops_join import cat

    def ones(shape):  # not x * 0 + 1: NaN at an inf or NaN x
        return _C.ones(tuple(shape), dtype=x.dtype, device=x.device)

    if not x.ndim:
        return ones(())
    keep = [d for d in range(x.ndim) if d not in dims]
    perm = keep + list(dims)
    t = x.permute(perm)
    moved = tuple(t.shape)
    t = t.reshape(moved[:len(keep)] + (-1,))
    if t.shape[-1] <= 1:
        return ones(x.shape)
    one = ones(t.shape[:-1] + (1,))
    before = cat([one, cumprod(t[..., :-1], -1)], -1)
    after = cat([cumprod(t[..., 1:].flip(-1), -1).flip(-1), one], -1)
    return (before * after).reshape(moved).permute([perm.index(d) for d in range(x.ndim)])


@derivative("prod")
class ProdBackward0(_ReductionOfValues):
    """The product of the other elements, without dividing by a zero (PyTorch's rule):
    where an element is finite and not 0, g * prod / x; at a zero, an inf or a NaN (where
    PyTorch's gives NaN for [0, inf, 2]'s inf and [inf, 2, 3]'s inf, 0 for [0, 0, inf]'s
    zeros: 0 * inf is NaN), g times the product of its
    slice's other elements, formed by products alone so that it stays differentiable
    (the second derivative at a slice with two zeros is the product of the rest, not
    0).  No value is read back to the host."""

    def backward(self, g):
        x, y, g = self._unreduced(g)
        # at a zero, an inf or a NaN, y / x is not the others' product (0 / 0, inf / inf,
        # NaN where the others' product is 0 * 2 = 0): that product itself there
        special = (x == 0) | ~x.isfinite()
        ones_for_special = x.masked_fill(special, 1)
        from .._ops_index import where  # imported late: _ops_index imports the recorder
        at_special = g * _others_product(x, self.dims if self.shape else ())
        # y / x with the specials divided by 1: the branch where() drops has a finite
        # derivative there, so a second derivative is not 0 * inf = NaN everywhere
        return reduce_grad(where(special, at_special, g * y / ones_for_special),
                           self.in_meta)


class _AmaxBackward(_ReductionOfValues):
    """The gradient is shared evenly among the elements equal to the extreme."""

    def backward(self, g):
        x, y, g = self._unreduced(g)
        return self._shared_evenly(x == y, x, g)


@derivative("amax")
class AmaxBackward0(_AmaxBackward):
    pass


@derivative("amin")
class AminBackward0(_AmaxBackward):
    pass


class MaxBackward1(_AmaxBackward):  # max() of every element
    """As amax's, but a NaN result shares the gradient among the NaNs (PyTorch's
    evenly_distribute_backward; amax's gives NaN everywhere, as PyTorch's does)."""

    def backward(self, g):
        x, y, g = self._unreduced(g)
        mask = as_float((x == y) | (x.isnan() & y.isnan()), x)
        return mask * (g / mask.sum())


class MinBackward1(MaxBackward1):
    pass


class MaxBackward0(Node):
    """max(dim): the gradient goes to the element whose index max returned."""

    def save(self, result, input, dim=None, keepdim=False, **kw):
        self.shape = tuple(input.shape)
        self.dim = operator.index(dim) % max(input.ndim, 1)  # a 0-d int tensor too
        self.keepdim = bool(keepdim)
        self.save_tensors(result[1])  # the indices (an output, not differentiable)
        return (input,)

    def backward(self, g):
        (idx,) = self.saved_tensors
        if not self.keepdim and self.shape:
            g, idx = g.unsqueeze(self.dim), idx.unsqueeze(self.dim)
        if not self.shape:
            return g.reshape(())
        n = self.shape[self.dim]
        pos = [1] * len(self.shape)
        pos[self.dim] = n
        rng = _C.arange(n, device=g.device).reshape(pos)
        return as_float(rng == idx, g) * g


class MinBackward0(MaxBackward0):
    pass


def _pick_extreme(which):
    def pick(input, *args, **kw):
        # max(other) as C reads it: a tensor as the one positional argument, or other=;
        # a tensor given as dim= is a dim
        if (args and isinstance(args[0], _C.Tensor)) or "other" in kw:
            return MaximumBackward0 if which == "max" else MinimumBackward0
        dim = args[0] if args else kw.get("dim")
        if dim is None:
            return MaxBackward1 if which == "max" else MinBackward1
        return MaxBackward0 if which == "max" else MinBackward0

    return staticmethod(pick)


@derivative("max")
class _Max(Node):
    pick = _pick_extreme("max")


@derivative("min")
class _Min(Node):
    pick = _pick_extreme("min")


@derivative("norm")
class _NormBackward(_ReductionOfValues):
    """norm's p = 1, 2 ('fro'): named LinalgVectorNormBackward0 (below), as PyTorch's
    Tensor.norm, torch.norm and linalg.vector_norm name theirs (all go to
    linalg.vector_norm there)."""

    mask_derivative = True  # order 1, g sign(x): Note [mask derivatives] in node.py

    def save(self, result, input, p="fro", dim=None, keepdim=False, dtype=None, **kw):
        self.p = 2.0 if p in ("fro", None) else float(p)
        if self.p == float("inf") or self.p == float("-inf") or self.p <= 0:
            raise NotImplementedError(f"autograd: norm(p={p}) has no derivative in pydevtensor")
        return super().save(result, input, dim, keepdim)

    def backward(self, g):
        x, y, g = self._unreduced(g)
        if self.p == 1.0:
            return reduce_grad(g * sign(x), self.in_meta)
        safe = y + as_float(y == 0, y)  # a zero norm gives a zero gradient
        if self.p == 2.0:
            return reduce_grad(g * x / safe, self.in_meta)
        p = self.p
        return reduce_grad(g * sign(x) * x.abs() ** (p - 1) / safe ** (p - 1), self.in_meta)


_NormBackward.__name__ = _NormBackward.__qualname__ = "LinalgVectorNormBackward0"


@derivative("_vector_norm_p")
class LinalgVectorNormBackward0(_NormBackward):
    """linalg.vector_norm of an order other than 1 and 2 (linalg.py's _vector_norm_p):
    PyTorch's norm_backward, 0 where it would divide by a zero norm or raise a zero to a
    negative power (not inf * 0 = NaN), none (None, as PyTorch's) for the order 0, and
    for +-inf the gradient shared evenly among the elements whose ``|x|`` is the norm,
    times sign(x) (amax's and abs's, which it was composed of)."""

    def save(self, result, input, ord, dim=None, keepdim=False, **kw):
        self.p = float(ord)
        return _ReductionOfValues.save(self, result, input, dim, keepdim)

    def backward(self, g):
        p = self.p
        if p == 0:  # a count: flat, PyTorch's undefined gradient
            return None
        if p == math.inf or p == -math.inf:
            x, y, g = self._unreduced(g)
            return self._shared_evenly(x.abs() == y, x, g) * sign(x)
        if p >= 1:
            return super().backward(g)
        x, y, g = self._unreduced(g)
        scaled = zero_where(x == 0, sign(x) * x.abs() ** (p - 1))
        return reduce_grad(scaled * g * y ** (1 - p), self.in_meta)


class NormBackward1(LinalgVectorNormBackward0):
    """The node of at::norm(x, p, dim, keepdim), PyTorch's for pairwise_distance: the
    vector norm's gradient under that name (as_norm_node)."""


def as_norm_node(out):
    """out, a vector norm, its node (LinalgVectorNormBackward0 or the p = 1, 2 one) renamed
    NormBackward1: the same attributes and gradient."""
    fn = out.grad_fn
    if isinstance(fn, _NormBackward):
        fn.__class__ = NormBackward1
    return out
