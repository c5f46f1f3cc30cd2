"""gradcheck (issue 16): autograd's gradient of every differentiable op against central
differences, in float64, on every device the build has, with broadcasting, views and
non-contiguous inputs.

For an op f with inputs x_1..x_k and a random weight R of f's output shape, autograd
gives d sum(R * f(x)) / d x_i, and central differences (h = 1e-6, each element moved in
turn, f evaluated by the package on the same device under no_grad) give the same
numerically.  Their error is O(h^2 f''') + O(eps * |f| / h), below 1e-8 here: we allow
|autograd - numeric| <= 1e-6 + 1e-5 * |numeric|.  Inputs are drawn away from the points
where an op is not differentiable (0 for abs and relu, the clamp bounds, ties for
max/min, non-positive numbers for log, sqrt and pow's base).

Every case runs once on every device with a fixed seed (test_every_op_once), and
hypothesis draws cases, shapes and values (test_gradcheck_property; on the emulated
CUDA device with a small budget, as CI runs the cuda tests three times).
"""
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pydevtensor as pdt
from conftest import DEVICES
from pydevtensor import autograd
from pydevtensor.nn import functional as F

H = 1e-6
ATOL, RTOL = 1e-6, 1e-5


def gradcheck(fn, arrays, device, noncontig=False, seed=0):
    """Compares autograd's gradients of sum(R * fn(*inputs)) with central differences."""
    rng = np.random.default_rng(seed)

    def tensors(arrs, grad):
        out = []
        for a in arrs:
            if noncontig and a.ndim >= 2:  # a transposed view of a contiguous tensor
                t = pdt.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2))).to(device)
                t = t.transpose(-1, -2)
                assert not t.is_contiguous() or min(a.shape[-2:]) <= 1
            else:
                t = pdt.from_numpy(np.ascontiguousarray(a)).to(device)
            out.append(t.requires_grad_() if grad else t)
        return out

    inputs = tensors(arrays, True)
    out = fn(*inputs)
    r = rng.standard_normal(tuple(out.shape))
    loss = (out * pdt.from_numpy(r).to(out.device)).sum()
    grads = autograd.grad(loss, inputs)

    def f(arrs):
        with pdt.no_grad():
            return float((fn(*tensors(arrs, False)).cpu().numpy() * r).sum())

    for k, (a, g) in enumerate(zip(arrays, grads)):
        assert g.device == inputs[k].device and g.dtype == pdt.float64
        assert tuple(g.shape) == a.shape, (k, g.shape, a.shape)
        numeric = np.zeros(a.shape)
        for i in range(a.size):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[k].reshape(-1)[i] += H
            down[k].reshape(-1)[i] -= H
            numeric.reshape(-1)[i] = (f(up) - f(down)) / (2 * H)
        got = g.cpu().numpy()
        err = np.abs(got - numeric)
        assert np.all(err <= ATOL + RTOL * np.abs(numeric)), (k, err.max(), got, numeric)


# ---- the cases: (name, function, input shapes, domain) ----
# domain: "any" standard normals kept away from 0; "pos" in [0.5, 2]; "distinct" a
# permutation of well-separated values (no ties); "small" in (-0.45, 0.45) minus
# (-0.05, 0.05) (inside clamp's bounds).

def _ce(x):
    return F.cross_entropy(x, pdt.tensor([0, 2, 1], device=x.device))


def _setitem(x, v):
    y = x * 1.0
    y[0, 1:] = v * 2.0
    return y


def _inplace(x, w):
    y = x * 1.0
    y.mul_(w)
    y.add_(w, alpha=0.5)
    y.sub_(1.5)
    return y


CASES = [
    ("neg", lambda x: -x, [(2, 3)], "any"),
    ("abs", lambda x: x.abs(), [(2, 3)], "any"),
    ("exp", pdt.exp, [(2, 3)], "any"),
    ("log", pdt.log, [(2, 3)], "pos"),
    ("sqrt", lambda x: x.sqrt(), [(3,)], "pos"),
    ("sin", pdt.sin, [(2, 3)], "any"),
    ("cos", lambda x: x.cos(), [(2, 3)], "any"),
    ("tanh", pdt.tanh, [(2, 3)], "any"),
    ("sigmoid", lambda x: x.sigmoid(), [(2, 3)], "any"),
    ("relu", pdt.relu, [(2, 3)], "any"),
    ("clamp", lambda x: x.clamp(-0.5, 0.5), [(2, 3)], "any_far"),
    ("clamp-min", lambda x: pdt.clamp(x, min=0.1), [(2, 3)], "any_far"),
    ("clamp-tensor", lambda x, lo: x.clamp(min=lo), [(2, 3), (3,)], "any_far"),
    ("pow-scalar", lambda x: x ** 3, [(2, 3)], "any"),
    ("pow-frac", lambda x: pdt.pow(x, 2.5), [(2, 3)], "pos"),
    ("rpow", lambda x: 2.0 ** x, [(2, 3)], "any"),
    ("pow-tensor", lambda x, y: x ** y, [(2, 3), (3,)], "pos"),
    ("add", lambda a, b: a + b, [(2, 3), (3,)], "any"),
    ("add-alpha", lambda a, b: pdt.add(a, b, alpha=2.0), [(2, 1), (1, 3)], "any"),
    ("radd", lambda a: 1.5 + a, [(3,)], "any"),
    ("sub", lambda a, b: a - b, [(2, 3), (2, 1)], "any"),
    ("rsub", lambda a: 1.0 - a, [(3,)], "any"),
    ("mul", lambda a, b: a * b, [(2, 3), (3,)], "any"),
    ("div", lambda a, b: a / b, [(2, 3), (3,)], "pos"),
    ("rdiv", lambda a: 2.0 / a, [(3,)], "pos"),
    ("remainder", lambda a, b: a % b, [(2, 3), (3,)], "rem"),
    ("maximum", pdt.maximum, [(2, 3), (3,)], "distinct"),
    ("minimum", lambda a, b: a.minimum(b), [(2, 3), (2, 3)], "distinct"),
    ("sum", lambda x: x.sum(), [(2, 3)], "any"),
    ("sum-dim", lambda x: x.sum(1), [(2, 3, 2)], "any"),
    ("sum-dims-keepdim", lambda x: pdt.sum(x, (0, 2), keepdim=True), [(2, 3, 2)], "any"),
    ("mean", lambda x: x.mean(-1), [(2, 3)], "any"),
    ("mean-all", pdt.mean, [(2, 3)], "any"),
    ("prod", lambda x: x.prod(1), [(2, 3)], "any"),
    # rows with one zero, two zeros and none (prod is a polynomial: differentiable there)
    ("prod-zeros", lambda x: x.prod(1), [(3, 4)], "zeros"),
    ("prod-zeros-dim0", lambda x: x.prod(0, keepdim=True), [(4, 3)], "zeros"),
    ("prod-one-zero-all", lambda x: x.prod(), [(2, 2)], "zeros"),
    ("amax", lambda x: x.amax(1), [(2, 3)], "distinct"),
    ("amin-keepdim", lambda x: x.amin(0, keepdim=True), [(2, 3)], "distinct"),
    ("max-all", lambda x: x.max(), [(2, 3)], "distinct"),
    ("max-dim", lambda x: x.max(1).values, [(2, 3)], "distinct"),
    ("min-dim-keepdim", lambda x: x.min(0, keepdim=True)[0], [(2, 3)], "distinct"),
    ("max-other", lambda a, b: a.max(b), [(2, 3), (3,)], "distinct"),
    ("norm", lambda x: x.norm(), [(2, 3)], "any"),
    ("norm-dim", lambda x: pdt.norm(x, dim=1), [(2, 3)], "any"),
    ("norm-p1", lambda x: x.norm(p=1, dim=0), [(2, 3)], "any"),
    ("reshape", lambda x: x.reshape(3, 2) * x.reshape(3, 2), [(2, 3)], "any"),
    ("view", lambda x: x.contiguous().view(-1), [(2, 3)], "any"),
    ("flatten", lambda x: pdt.flatten(x), [(2, 3, 1)], "any"),
    ("transpose", lambda x: x.transpose(0, 2), [(2, 3, 2)], "any"),
    ("t", lambda x: x.t(), [(2, 3)], "any"),
    ("T", lambda x: x.T, [(2, 3)], "any"),
    ("permute", lambda x: x.permute(2, 0, 1), [(2, 3, 2)], "any"),
    ("squeeze", lambda x: x.squeeze(1), [(2, 1, 3)], "any"),
    ("unsqueeze", lambda x: pdt.unsqueeze(x, 0), [(2, 3)], "any"),
    ("index-int", lambda x: x[1], [(2, 3)], "any"),
    ("index-slices", lambda x: x[:, ::2, None], [(2, 3)], "any"),
    ("index-ellipsis", lambda x: x[..., 1:], [(2, 2, 3)], "any"),
    ("iterate", lambda x: list(x)[1] * 2, [(2, 3)], "any"),
    ("setitem", _setitem, [(2, 3), (2,)], "any"),
    ("in-place", _inplace, [(2, 3), (3,)], "any"),
    ("clone", lambda x: x.clone() * x, [(2, 3)], "any"),
    ("to-cpu", lambda x: x.cpu() * 2, [(2, 3)], "any"),
    ("to-copy", lambda x: x.to(x.device, copy=True) * x, [(3,)], "any"),
    ("mm", pdt.mm, [(2, 3), (3, 4)], "any"),
    ("matmul-batched", pdt.matmul, [(2, 2, 3), (3, 2)], "any"),
    ("matmul-broadcast", lambda a, b: a @ b, [(2, 1, 2, 3), (2, 3, 2)], "any"),
    ("matmul-vec-left", pdt.matmul, [(3,), (2, 3, 2)], "any"),
    ("matmul-vec-right", pdt.matmul, [(2, 3), (3,)], "any"),
    ("bmm", pdt.bmm, [(2, 2, 3), (2, 3, 2)], "any"),
    ("dot", pdt.dot, [(3,), (3,)], "any"),
    ("addmm", lambda i, a, b: pdt.addmm(i, a, b, beta=0.5, alpha=2.0), [(3,), (2, 4), (4, 3)],
     "any"),
    ("linear", F.linear, [(2, 3), (4, 3), (4,)], "any"),
    ("mse_loss", F.mse_loss, [(2, 3), (2, 3)], "any"),
    ("cross_entropy", _ce, [(3, 4)], "any"),
    ("log_softmax", lambda x: F.log_softmax(x, 1), [(2, 3)], "any"),
    ("softmax", lambda x: F.softmax(x, 0), [(2, 3)], "any"),
]
IDS = [c[0] for c in CASES]


def draw_values(rng, shapes, domain):
    out = []
    for s in shapes:
        n = int(np.prod(s))
        if domain == "pos":
            a = rng.uniform(0.5, 2.0, n)
        elif domain == "distinct":
            a = rng.permutation(np.arange(n) * 0.37 + 0.05) * rng.choice([-1, 1]) + \
                rng.uniform(-0.01, 0.01)
        elif domain == "rem":
            a = rng.uniform(0.1, 0.9, n) if not out else rng.uniform(1.1, 1.9, n)
        elif domain == "any_far":  # away from clamp's bounds and the bound tensors
            a = rng.choice([-1, 1], n) * rng.uniform(0.7, 1.5, n) if not out \
                else rng.uniform(-0.2, 0.2, n)
        else:
            a = rng.standard_normal(n)
            a = np.where(np.abs(a) < 0.05, 0.3, a)
            if domain == "zeros":  # exact zeros at 0 and, given room, 5 and 6
                a[[i for i in (0, 5, 6) if i < n and (i == 0 or n >= 8)]] = 0.0
        out.append(a.reshape(s).astype(np.float64))
    if domain == "distinct" and len(out) == 2:  # no ties between the two operands
        out[1] = out[1] + 0.17
    return out


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_every_op_once(case, device):
    name, fn, shapes, domain = case
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    gradcheck(fn, draw_values(rng, shapes, domain), device, noncontig=False)


def _broadcast_variant(shapes, rng):
    """Shapes where one operand of an elementwise op loses or gets size-1 dims."""
    if len(shapes) != 2 or len(shapes[0]) != 2:
        return shapes
    a, b = shapes
    choice = rng.integers(0, 3)
    return [a, (a[1],)] if choice == 0 else [a, (a[0], 1)] if choice == 1 else [(1, a[1]), a]


ELEMENTWISE = {"add", "add-alpha", "sub", "mul", "div", "pow-tensor", "maximum", "remainder",
               "clamp-tensor"}


def _property(device, case, seed, noncontig):
    name, fn, shapes, domain = case
    rng = np.random.default_rng(seed)
    if name in ELEMENTWISE:
        shapes = _broadcast_variant(shapes, rng)
    gradcheck(fn, draw_values(rng, shapes, domain), device, noncontig=noncontig, seed=seed)


@settings(max_examples=120, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32 - 1), noncontig=st.booleans())
def test_gradcheck_property_cpu(case, seed, noncontig):
    _property("cpu", case, seed, noncontig)


@pytest.mark.cuda
@settings(max_examples=15, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32 - 1), noncontig=st.booleans())
def test_gradcheck_property_cuda(case, seed, noncontig):
    _property("cuda:0", case, seed, noncontig)
