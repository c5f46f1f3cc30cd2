"""F.scaled_dot_product_attention and nn.MultiheadAttention on every device:

- SDPA against a NumPy float64 reference written here (softmax(q k^T scale + mask) v,
  |got - ref| <= 1e-12 + 1e-12 |ref|), with bool and float masks broadcast over batch
  dims, is_causal for L < S and L > S, scale, grouped-query attention; its gradients
  against central differences (tests/test_gradcheck.py's helper and tolerance); a
  query whose keys are all masked gives zeros and a zero gradient, as PyTorch's;
  dropout from the package's generator (one seed, one result; the kept share near
  1 - p; the kept weights scaled by 1 / (1 - p));
- both against PyTorch when it can be imported: a PyTorch MultiheadAttention's
  state_dict loaded by name through NumPy into ours, outputs, weights and every
  gradient compared in float64 within 1e-10 + 1e-10 |ref| (the same float64 sums, in
  another order), for every constructor option (kdim/vdim, add_bias_kv,
  add_zero_attn, bias, batch_first), masks of both kinds, need_weights and
  average_attn_weights, unbatched input; NaN where PyTorch's need_weights path gives it;
- PyTorch's parameter names, shapes, initialisation bounds and repr.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

TOL64 = 1e-12
TORCH64 = 1e-10


def _np(t):
    return t.detach().cpu().numpy()


def _close(got, ref, tol=TOL64):
    got = _np(got) if isinstance(got, pdt.Tensor) else np.asarray(got)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    same_nan = np.isnan(got) == np.isnan(ref)
    assert same_nan.all()
    err = np.nan_to_num(np.abs(got - ref))
    assert np.all(err <= tol + tol * np.nan_to_num(np.abs(ref))), err.max()


def ref_sdpa(q, k, v, mask=None, causal=False, scale=None):
    """NumPy float64: softmax(q k^T * scale + mask) v; rows with every key masked -> 0."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    dead = np.all(s == -np.inf, axis=-1, keepdims=True)
    s = np.where(dead, 0.0, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = np.where(dead, 0.0, w / w.sum(axis=-1, keepdims=True))
    return np.matmul(w, v)


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


SDPA_CASES = {  # name: (q shape, k shape, v shape, mask shape or None, mask kind)
    "plain": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, None),
    "2d": ((4, 8), (5, 8), (5, 3), None, None),
    "bool 2d mask": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), (4, 5), "bool"),
    "bool batch mask": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), (2, 1, 4, 5), "bool"),
    "float mask": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), (3, 1, 5), "float"),
    "broadcast kv": ((2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 6), None, None),
    "broadcast q": ((1, 4, 8), (3, 5, 8), (3, 5, 6), (4, 5), "bool"),
    "broadcast k and v apart": ((2, 3, 4, 8), (2, 1, 5, 8), (1, 3, 5, 6), None, None),
    "broadcast v": ((4, 8), (5, 8), (2, 5, 6), (4, 5), "float"),
    "fully masked rows": ((2, 4, 8), (2, 5, 8), (2, 5, 6), (4, 5), "dead"),
    "-inf float rows": ((2, 4, 8), (2, 5, 8), (2, 5, 6), (4, 5), "dead float"),
}


def _mask(shape, kind, rng):
    if kind == "bool":
        return rng.random(shape) > 0.3
    if kind == "float":
        return rng.standard_normal(shape)
    m = rng.random(shape) > 0.3
    m[1] = False
    m[2, 0] = True
    if kind == "dead":
        return m
    return np.where(m, 0.0, -np.inf)


@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_sdpa_matches_numpy(device, case):
    qs, ks, vs, ms, kind = SDPA_CASES[case]
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s) for s in (qs, ks, vs))
    m = None if ms is None else _mask(ms, kind, rng)
    got = F.scaled_dot_product_attention(_t(q, device), _t(k, device), _t(v, device),
                                         attn_mask=None if m is None else _t(m, device))
    assert got.device == device and got.dtype == pdt.float64
    _close(got, ref_sdpa(q, k, v, m))


@pytest.mark.parametrize("lengths", [(4, 4), (3, 5), (5, 3)])
def test_sdpa_causal_and_scale(device, lengths):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, lengths[0], 8))
    k, v = rng.standard_normal((2, lengths[1], 8)), rng.standard_normal((2, lengths[1], 4))
    got = F.scaled_dot_product_attention(_t(q, device), _t(k, device), _t(v, device),
                                         is_causal=True, scale=0.7)
    _close(got, ref_sdpa(q, k, v, causal=True, scale=0.7))


def test_sdpa_grouped_query_attention(device):
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal(s) for s in ((2, 6, 4, 8), (2, 3, 5, 8), (2, 3, 5, 4)))
    got = F.scaled_dot_product_attention(_t(q, device), _t(k, device), _t(v, device),
                                         enable_gqa=True)
    _close(got, ref_sdpa(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)))
    with pytest.raises(ValueError, match="must divide"):
        F.scaled_dot_product_attention(_t(q[:, :4], device), _t(k, device), _t(v, device),
                                       enable_gqa=True)


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal", "dead"])
def test_sdpa_gradients(device, kind):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3))]
    mask = {"bool": rng.random((3, 5)) > 0.3, "float": rng.standard_normal((2, 1, 5)),
            "dead": _mask((3, 5), "dead float", rng)}.get(kind)

    def fn(q, k, v):
        m = None if mask is None else _t(mask, q.device)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=kind == "causal")

    gradcheck(fn, arrays, device)


def test_sdpa_fully_masked_rows_have_zero_gradient(device):
    q, k, v = (pdt.randn(*s, device=device, dtype=pdt.float64).requires_grad_()
               for s in ((3, 4), (5, 4), (5, 2)))
    mask = pdt.ones(3, 5, dtype=pdt.bool, device=device)
    mask[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert not _np(out).any(axis=1)[1]
    out.sum().backward()
    assert not _np(q.grad)[1].any() and np.isfinite(_np(k.grad)).all()


@pytest.mark.parametrize("mask", [None, "bool", "float", "causal"])
def test_sdpa_with_no_keys_gives_zeros(device, mask):
    """S = 0: zeros of shape (..., L, Ev), masked or not, as PyTorch's (a mask or
    is_causal reduced over the empty key dim and raised), and a zero gradient."""
    q = pdt.randn(2, 3, 4, device=device, dtype=pdt.float64).requires_grad_()
    k, v = pdt.zeros(2, 0, 4, device=device), pdt.zeros(2, 0, 5, device=device)
    m = {"bool": pdt.ones(3, 0, dtype=pdt.bool, device=device),
         "float": pdt.zeros(2, 3, 0, device=device)}.get(mask)
    out = F.scaled_dot_product_attention(q, k.double(), v.double(), attn_mask=m,
                                         is_causal=mask == "causal")
    assert tuple(out.shape) == (2, 3, 5) and not _np(out).any()
    out.sum().backward()
    assert tuple(q.grad.shape) == (2, 3, 4) and not _np(q.grad).any()


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_takes_a_4d_mask_of_3d_inputs(device, kind):
    """3-d query, key and value take a (1, N, L, S) mask, as PyTorch's (which sees
    their scores as (1, N, L, S)); the result keeps the (N, L, Ev) shape."""
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal(s) for s in ((2, 4, 8), (2, 5, 8), (2, 5, 6)))
    for shape in ((1, 2, 4, 5), (1, 1, 4, 5), (1, 1, 1, 5)):
        m = _mask(shape, kind, rng)
        got = F.scaled_dot_product_attention(_t(q, device), _t(k, device), _t(v, device),
                                             attn_mask=_t(m, device))
        _close(got, ref_sdpa(q, k, v, m[0]))
    for qs, ms in (((2, 4, 8), (1, 1, 1, 4, 5)), ((2, 4, 8), (2, 1, 4, 5)),
                   ((4, 8), (1, 4, 5))):
        with pytest.raises(ValueError, match=r"attn_mask of shape \(" + str(ms[0])):
            F.scaled_dot_product_attention(_t(q.reshape(qs) if len(qs) == 3 else q[0], device),
                                           _t(k if len(qs) == 3 else k[0], device),
                                           _t(v if len(qs) == 3 else v[0], device),
                                           attn_mask=_t(_mask(ms, kind, rng), device))


def test_sdpa_dropout(device):
    q, k, v = (pdt.randn(*s, device=device, dtype=pdt.float64) for s in
               ((4, 64, 8), (4, 64, 8), (4, 64, 8)))
    pdt.manual_seed(7)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    pdt.manual_seed(7)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    np.testing.assert_array_equal(_np(a), _np(b))
    # with v the identity, the output is the (dropped, rescaled) weights themselves
    eye = pdt.eye(64, dtype=pdt.float64, device=device).expand(4, 64, 64)
    w = _np(F.scaled_dot_product_attention(q, k, eye, dropout_p=0.25))
    plain = ref_sdpa(_np(q), _np(k), np.eye(64))
    kept = w != 0
    assert abs(kept.mean() - 0.75) < 0.02  # 16384 draws: 6 standard deviations
    np.testing.assert_allclose(w[kept], plain[kept] / 0.75, rtol=1e-12)
    assert F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).abs().max().item() == 0


def test_sdpa_against_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)))
    m = _mask((4, 5), "dead", rng)
    for kw in ({}, {"attn_mask": m}, {"is_causal": True}, {"scale": 0.2}):
        ours = [_t(a, device).requires_grad_() for a in (q, k, v)]
        theirs = [torch.from_numpy(a).requires_grad_() for a in (q, k, v)]
        o = F.scaled_dot_product_attention(*ours, **{n: _t(x, device) if n == "attn_mask" else x
                                                     for n, x in kw.items()})
        t = torch.nn.functional.scaled_dot_product_attention(
            *theirs, **{n: torch.from_numpy(x) if n == "attn_mask" else x
                        for n, x in kw.items()})
        g = rng.standard_normal(tuple(o.shape))
        o.backward(_t(g, device))
        t.backward(torch.from_numpy(g))
        _close(o, t.detach().numpy(), TORCH64)
        for a, b in zip(ours, theirs):
            _close(a.grad, b.grad.numpy(), TORCH64)


SDPA_ERRORS = [
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 7, device=d), pdt.ones(5, 3, device=d)),
     {}, ValueError, r"embedding size .*\(4, 8\) and \(5, 7\)"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d), pdt.ones(6, 3, device=d)),
     {}, ValueError, "same sequence length"),
    (lambda d: (pdt.ones(8, device=d),) * 3, {}, ValueError, "at least 2 dimensional"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d, dtype=pdt.float64),
                pdt.ones(5, 3, device=d)), {}, RuntimeError, "same dtype"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d), pdt.ones(5, 3, device=d)),
     {"attn_mask": "bad shape"}, ValueError, r"attn_mask of shape \(4, 6\)"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d), pdt.ones(5, 3, device=d)),
     {"attn_mask": "int"}, RuntimeError, "attn_mask dtype"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d), pdt.ones(5, 3, device=d)),
     {"attn_mask": "ok", "is_causal": True}, RuntimeError, "should not be set"),
    (lambda d: (pdt.ones(4, 8, device=d), pdt.ones(5, 8, device=d), pdt.ones(5, 3, device=d)),
     {"dropout_p": 1.5}, ValueError, "dropout probability"),
    (lambda d: (pdt.ones(2, 4, 8, device=d), pdt.ones(2, 5, 8, device=d),
                pdt.ones(3, 5, 3, device=d)), {}, ValueError,
     r"batch dims of query and key, and of value: shapes \(2,\) and \(3,\)"),
]


@pytest.mark.parametrize("case", range(len(SDPA_ERRORS)))
def test_sdpa_bad_input(device, case):
    make, kw, exc, match = SDPA_ERRORS[case]
    masks = {"bad shape": pdt.ones(4, 6, dtype=pdt.bool, device=device),
             "int": pdt.ones(4, 5, dtype=pdt.int64, device=device),
             "ok": pdt.ones(4, 5, dtype=pdt.bool, device=device)}
    kw = {n: masks[x] if n == "attn_mask" else x for n, x in kw.items()}
    with pytest.raises(exc, match=match) as info:
        F.scaled_dot_product_attention(*make(device), **kw)
    assert "dropout" in match or "should not" in match or str(device) in str(info.value)


def test_sdpa_mixed_devices(device):
    if not CUDA_DEVICES:
        pytest.skip("needs a CUDA device")
    other = "cpu" if device.type != "cpu" else CUDA_DEVICES[0]
    q = pdt.ones(4, 8, device=device)
    with pytest.raises(RuntimeError, match="same device"):
        F.scaled_dot_product_attention(q, q.to(other), q)


# ---- MultiheadAttention ----

MHA_OPTIONS = {
    "default": {}, "kdim vdim": {"kdim": 3, "vdim": 5}, "bias_kv": {"add_bias_kv": True},
    "zero_attn": {"add_zero_attn": True}, "no bias": {"bias": False},
    "batch_first": {"batch_first": True},
    "everything": {"kdim": 3, "vdim": 5, "add_bias_kv": True, "add_zero_attn": True},
}


def _load_from_torch(ours, theirs, device):
    """theirs' state_dict, by name, through NumPy (and the keys must be the same)."""
    state = {k: pdt.from_numpy(v.detach().numpy().copy()).to(device)
             for k, v in theirs.state_dict().items()}
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict(state)


def _mha_inputs(rng, options, batched=True):
    bf = options.get("batch_first", False)
    kd, vd = options.get("kdim", 8), options.get("vdim", 8)

    def shape(length, size):
        if not batched:
            return (length, size)
        return (2, length, size) if bf else (length, 2, size)
    return (rng.standard_normal(shape(4, 8)), rng.standard_normal(shape(6, kd)),
            rng.standard_normal(shape(6, vd)))


MASKS = {
    "none": lambda rng: {},
    "padding": lambda rng: {"key_padding_mask": rng.random((2, 6)) > 0.7},
    "bool attn": lambda rng: {"attn_mask": rng.random((4, 6)) > 0.8},
    "float attn 3d": lambda rng: {"attn_mask": rng.standard_normal((4, 4, 6))},
    "both": lambda rng: {"attn_mask": rng.random((4, 6)) > 0.8,
                         "key_padding_mask": rng.standard_normal((2, 6))},
    "causal": lambda rng: {"attn_mask": np.triu(np.full((4, 6), -np.inf), 1),
                           "is_causal": True},
}


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("masks", list(MASKS))
@pytest.mark.parametrize("option", list(MHA_OPTIONS))
def test_mha_matches_torch(device, option, masks, need_weights, average):
    torch = torch_or_skip()
    options = MHA_OPTIONS[option]
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, dtype=torch.float64, **options)
    ours = nn.MultiheadAttention(8, 2, dtype=pdt.float64, device=device, **options)
    _load_from_torch(ours, theirs, device)
    rng = np.random.default_rng(5)
    q, k, v = _mha_inputs(rng, options)
    mask_kw = MASKS[masks](rng)
    inputs = [_t(a, device).requires_grad_() for a in (q, k, v)]
    tinputs = [torch.from_numpy(a).requires_grad_() for a in (q, k, v)]
    kw = dict(need_weights=need_weights, average_attn_weights=average)
    out, w = ours(*inputs, **kw, **{n: _t(x, device) if isinstance(x, np.ndarray) else x
                                    for n, x in mask_kw.items()})
    tout, tw = theirs(*tinputs, **kw, **{n: torch.from_numpy(x) if isinstance(x, np.ndarray)
                                         else x for n, x in mask_kw.items()})
    _close(out, tout.detach().numpy(), TORCH64)
    if need_weights:
        _close(w, tw.detach().numpy(), TORCH64)
    else:
        assert w is None and tw is None
    g = rng.standard_normal(tuple(out.shape))
    out.backward(_t(g, device))
    tout.backward(torch.from_numpy(g))
    for a, b in zip(inputs, tinputs):
        _close(a.grad, b.grad.numpy(), TORCH64)
    theirs_grads = {n: p.grad for n, p in theirs.named_parameters()}
    for name, p in ours.named_parameters():
        _close(p.grad, theirs_grads[name].numpy(), TORCH64)


def test_mha_self_attention_unbatched_and_fully_masked(device):
    torch = torch_or_skip()
    theirs = torch.nn.MultiheadAttention(8, 2, dtype=torch.float64)
    ours = nn.MultiheadAttention(8, 2, dtype=pdt.float64, device=device)
    _load_from_torch(ours, theirs, device)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 8))
    out, w = ours(*[_t(x, device)] * 3, average_attn_weights=False)
    tout, tw = theirs(*[torch.from_numpy(x)] * 3, average_attn_weights=False)
    assert tuple(out.shape) == (4, 8) and tuple(w.shape) == (2, 4, 4)
    _close(out, tout.detach().numpy(), TORCH64)
    _close(w, tw.detach().numpy(), TORCH64)
    # a sample whose keys are all padded: NaN with need_weights (PyTorch's explicit
    # softmax), the output projection's bias (zeros from SDPA) without
    xb = rng.standard_normal((4, 2, 8))
    pad = np.zeros((2, 4), dtype=bool)
    pad[1] = True
    for need in (True, False):
        got = ours(*[_t(xb, device)] * 3, key_padding_mask=_t(pad, device), need_weights=need)
        want = theirs(*[torch.from_numpy(xb)] * 3, key_padding_mask=torch.from_numpy(pad),
                      need_weights=need)
        _close(got[0], want[0].detach().numpy(), TORCH64)
        assert np.isnan(_np(got[0])[:, 1]).all() == need


def test_mha_matches_numpy_reference(device):
    """One head split, projections and output projection written out in NumPy."""
    m = nn.MultiheadAttention(6, 3, dtype=pdt.float64, device=device)
    p = {k: _np(v) for k, v in m.state_dict().items()}
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 2, 6))
    out, w = m(*[_t(x, device)] * 3)
    wq, wk, wv = np.split(p["in_proj_weight"], 3)
    bq, bk, bv = np.split(p["in_proj_bias"], 3)
    heads, weights = [], []
    for h in range(3):
        sl = slice(2 * h, 2 * h + 2)
        q = (x @ wq.T + bq)[..., sl].transpose(1, 0, 2)  # (N, L, 2)
        k = (x @ wk.T + bk)[..., sl].transpose(1, 0, 2)
        v = (x @ wv.T + bv)[..., sl].transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(2)
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        weights.append(a)
        heads.append(a @ v)
    cat = np.concatenate(heads, axis=-1).transpose(1, 0, 2)
    _close(out, cat @ p["out_proj.weight"].T + p["out_proj.bias"])
    _close(w, np.mean(weights, axis=0))


def test_mha_parameters_and_init(device):
    m = nn.MultiheadAttention(16, 4, device=device)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("in_proj_weight", (48, 16)), ("in_proj_bias", (48,)), ("out_proj.weight", (16, 16)),
        ("out_proj.bias", (16,))]
    assert m.q_proj_weight is None and m.bias_k is None and m.head_dim == 4
    bound = math.sqrt(6.0 / (48 + 16))  # Xavier uniform over (3E, E)
    w = _np(m.in_proj_weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not _np(m.in_proj_bias).any() and not _np(m.out_proj.bias).any()
    assert np.abs(_np(m.out_proj.weight)).max() <= 1 / 4  # Linear's U(-1/sqrt(16), ...)
    split = nn.MultiheadAttention(16, 4, kdim=3, vdim=5, add_bias_kv=True, device=device)
    assert [(n, tuple(p.shape)) for n, p in split.named_parameters()] == [
        ("q_proj_weight", (16, 16)), ("k_proj_weight", (16, 3)), ("v_proj_weight", (16, 5)),
        ("in_proj_bias", (48,)), ("bias_k", (1, 1, 16)), ("bias_v", (1, 1, 16)),
        ("out_proj.weight", (16, 16)), ("out_proj.bias", (16,))]
    assert split.in_proj_weight is None
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=16, out_features=16, bias=True)\n)")
    pdt.manual_seed(3)
    a = nn.MultiheadAttention(8, 2, device=device)
    pdt.manual_seed(3)
    b = nn.MultiheadAttention(8, 2)
    np.testing.assert_array_equal(_np(a.in_proj_weight), _np(b.in_proj_weight))


def test_mha_moves_and_trains(device):
    m = nn.MultiheadAttention(8, 2, dropout=0.5).to(device)
    x = pdt.randn(3, 2, 8, device=device)
    m.train()
    pdt.manual_seed(0)
    a = m(x, x, x)[0]
    pdt.manual_seed(0)
    np.testing.assert_array_equal(_np(a), _np(m(x, x, x)[0]))
    m.eval()
    np.testing.assert_array_equal(_np(m(x, x, x)[0]), _np(m(x, x, x)[0]))
    assert a.device == device


MHA_ERRORS = [
    (lambda: nn.MultiheadAttention(10, 3), AssertionError, "divisible by num_heads"),
    (lambda: nn.MultiheadAttention(10, 3), ValueError, "embed_dim=10 and num_heads=3"),
    (lambda: nn.MultiheadAttention(0, 2), ValueError, "greater than 0"),
    (lambda: nn.MultiheadAttention(8, 2, dropout=2.0), ValueError, "dropout probability"),
]


@pytest.mark.parametrize("case", range(len(MHA_ERRORS)))
def test_mha_bad_construction(case):
    make, exc, match = MHA_ERRORS[case]
    with pytest.raises(exc, match=match):
        make()


def test_mha_bad_forward(device):
    m = nn.MultiheadAttention(8, 2, device=device)
    x = pdt.ones(4, 2, 8, device=device)
    cases = [
        ((pdt.ones(4, 2, 6, device=device), x, x), {}, "embedding dimension of 8, but got 6"),
        ((x, pdt.ones(5, 2, 8, device=device), x), {}, "does not match value shape"),
        ((x, x[:, 0], x[:, 0]), {}, "expected key and value to be 3-D"),
        ((pdt.ones(8, device=device),) * 3, {}, "unbatched 2D or batched 3D"),
        ((x, x, x), {"attn_mask": pdt.ones(4, 5, dtype=pdt.bool, device=device)},
         r"2D attn_mask is \(4, 5\), but should be \(4, 4\)"),
        ((x, x, x), {"attn_mask": pdt.ones(3, 4, 4, device=device)},
         r"3D attn_mask is \(3, 4, 4\), but should be \(4, 4, 4\)"),
        ((x, x, x), {"key_padding_mask": pdt.ones(2, 5, dtype=pdt.bool, device=device)},
         r"key_padding_mask shape of \(2, 4\)"),
        ((x, x, x), {"key_padding_mask": pdt.ones(2, 4, dtype=pdt.int64, device=device)},
         "only bool and floating"),
        ((x, x, x), {"is_causal": True}, "Need attn_mask"),
        ((x.to(pdt.float64),) * 3, {}, "float64"),
    ]
    for args, kw, match in cases:
        with pytest.raises((ValueError, RuntimeError, TypeError), match=match):
            m(*args, **kw)


def test_mha_mismatched_mask_types_warn_as_torch():
    m = nn.MultiheadAttention(8, 2)
    x = pdt.ones(4, 2, 8)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        m(x, x, x, attn_mask=pdt.zeros(4, 4, dtype=pdt.bool), key_padding_mask=pdt.zeros(2, 4))


def test_mha_mixed_devices(device):
    if not CUDA_DEVICES:
        pytest.skip("needs a CUDA device")
    other = "cpu" if device.type != "cpu" else CUDA_DEVICES[0]
    m = nn.MultiheadAttention(8, 2, device=device)
    x = pdt.ones(4, 2, 8, device=device)
    with pytest.raises(RuntimeError, match="device"):
        m(x, x.to(other), x.to(other))
    with pytest.raises(RuntimeError, match="device"):
        m(x.to(other), x.to(other), x.to(other))
    with pytest.raises(RuntimeError, match="device"):
        m(x, x, x, key_padding_mask=pdt.zeros(2, 4, dtype=pdt.bool, device=other))


@pytest.mark.parametrize("option", list(MHA_OPTIONS))
def test_mha_same_on_every_device(device, option):
    """The module moved to device gives the CPU's outputs and gradients (float64, 1e-12):
    runs without PyTorch, so the emulated CUDA device checks the options too."""
    options = MHA_OPTIONS[option]
    cpu = nn.MultiheadAttention(8, 2, dtype=pdt.float64, **options)
    moved = nn.MultiheadAttention(8, 2, dtype=pdt.float64, **options)
    moved.load_state_dict(cpu.state_dict())
    moved.to(device)
    rng = np.random.default_rng(8)
    q, k, v = _mha_inputs(rng, options)
    pad = rng.random((2, 6)) > 0.7
    mask = rng.random((4, 6)) > 0.8
    results = []
    for m, d in ((cpu, pdt.device("cpu")), (moved, device)):
        xs = [_t(a, d).requires_grad_() for a in (q, k, v)]
        out, w = m(*xs, key_padding_mask=_t(pad, d), attn_mask=_t(mask, d))
        out2, _ = m(*xs, key_padding_mask=_t(pad, d), need_weights=False)
        (out.sum() + (out2 * out2).sum()).backward()
        results.append([out, w, out2] + [x.grad for x in xs] +
                       [p.grad for p in m.parameters()])
    for a, b in zip(*results):
        _close(b, _np(a))


@pytest.mark.parametrize("mask", [[True, False, True], [0.0, -1.0, 0.0], True])
def test_mask_of_fewer_than_two_dims_refused_as_torch(device, mask):
    torch = torch_or_skip()
    q = np.ones((1, 2, 3, 4), dtype=np.float32)
    with pytest.raises(IndexError):
        torch.nn.functional.scaled_dot_product_attention(
            torch.tensor(q), torch.tensor(q), torch.tensor(q), attn_mask=torch.tensor(mask))
    t = pdt.tensor(q, device=device)
    with pytest.raises(IndexError, match=r"attn_mask must have at least 2 dims.*got shape "
                                         r"\((3,)?\)"):
        F.scaled_dot_product_attention(t, t, t, attn_mask=pdt.tensor(mask, device=device))
    # the same mask as a row broadcasts
    row = pdt.tensor(mask, device=device).reshape(1, -1) if not isinstance(mask, bool) else \
        pdt.tensor([[mask]], device=device)
    ref = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(q), torch.tensor(q),
        attn_mask=torch.tensor(row.cpu().numpy()))
    got = F.scaled_dot_product_attention(t, t, t, attn_mask=row)
    np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_sdpa_takes_a_float32_mask_of_another_query_dtype(device, dtype):
    """PyTorch's rule: a mask is bool, float32 or of query's dtype. A float32 mask
    (generate_square_subsequent_mask's) with a float64 or bfloat16 query is added to the
    scores (in float32 for the bfloat16 query: Note [attention in half types]), and the
    result keeps the query's dtype (it was refused)."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((2, 4, 8)) for _ in range(3))
    mask = nn.Transformer.generate_square_subsequent_mask(4, device=device)
    assert mask.dtype == pdt.float32
    want = ref_sdpa(q, k, v, mask=np.triu(np.full((4, 4), -np.inf), 1))
    qt, kt, vt = (_t(a, device).to(getattr(pdt, dtype)) for a in (q, k, v))
    got = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask)
    assert got.dtype == getattr(pdt, dtype) and got.device == device
    if dtype == "float64":
        _close(got, want)
    else:
        np.testing.assert_allclose(_np(got.float()), want, atol=0.1)
    with pytest.raises(RuntimeError, match="bool or float"):
        F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask.to(pdt.float16))


@pytest.mark.parametrize("kw", [{}, {"kdim": 3, "vdim": 5},
                                {"add_bias_kv": True, "add_zero_attn": True}])
def test_functional_multi_head_attention_forward_is_the_modules(device, kw):
    """F.multi_head_attention_forward with a MultiheadAttention's weights gives its
    output and weights bit for bit (it is the same computation), with a padding mask."""
    pdt.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, **kw).double().to(device).eval()
    rng = np.random.default_rng(2)
    q = _t(rng.standard_normal((4, 2, 8)), device)
    k = _t(rng.standard_normal((6, 2, m.kdim)), device)
    v = _t(rng.standard_normal((6, 2, m.vdim)), device)
    mask = _t(rng.random((2, 6)) > 0.7, device)
    mask[:, 0] = False
    want = m(q, k, v, key_padding_mask=mask)
    got = F.multi_head_attention_forward(
        q, k, v, 8, 2, m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, m.add_zero_attn,
        0.0, m.out_proj.weight, m.out_proj.bias, training=False, key_padding_mask=mask,
        use_separate_proj_weight=not m._qkv_same_embed_dim, q_proj_weight=m.q_proj_weight,
        k_proj_weight=m.k_proj_weight, v_proj_weight=m.v_proj_weight)
    np.testing.assert_array_equal(_np(got[0]), _np(want[0]))
    np.testing.assert_array_equal(_np(got[1]), _np(want[1]))


@pytest.mark.parametrize("dtype, eps", [("float16", 2.0**-11), ("bfloat16", 2.0**-8)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_in_half_types_rounds_once(device, dtype, eps, causal):
    """float16/bfloat16 attention is computed in float32 and rounded once (Note
    [attention in half types] in nn/_functional_attention.py): each output is within half
    a unit in the last place of the float64 answer for the same (half-valued) inputs, as
    a single rounding gives.  Rounded after every op it was up to 2.5 times that, and
    twice PyTorch's error."""
    rng = np.random.default_rng(7)
    dt = getattr(pdt, dtype)
    qkv = [_t(rng.standard_normal((2, 3, 16, 32)), device).to(dt) for _ in range(3)]
    exact = [_np(t.to(pdt.float64)) for t in qkv]  # the values the half inputs hold
    want = ref_sdpa(*exact, causal=causal)
    got = F.scaled_dot_product_attention(*qkv, is_causal=causal)
    assert got.dtype == dt and got.device == device
    err = np.abs(_np(got.to(pdt.float64)) - want)
    assert (err <= eps * np.abs(want) + 1e-6).all(), err.max()
    # the gradient flows through the float32 computation to the half inputs
    q = qkv[0].detach().requires_grad_()
    F.scaled_dot_product_attention(q, qkv[1], qkv[2]).to(pdt.float32).sum().backward()
    assert q.grad.dtype == dt and q.grad.shape == q.shape


@pytest.mark.parametrize("which", ["k", "v", "kv"])
@pytest.mark.parametrize("need_weights", [False, True])
def test_functional_multi_head_attention_forward_static_k_and_v(device, which,
                                                                 need_weights):
    """static_k and static_v ((N H, S, head_dim): keys and values already projected and
    split into heads) replace the key's and value's projections, as PyTorch's (they
    raised NotImplementedError): the output and the head-averaged weights against NumPy
    float64, with add_zero_attn and a padding mask over the static length when both are
    given (a length other than key's); the gradients of the static tensors by
    central differences.  A static tensor of the wrong shape, or one with bias_k and
    bias_v, raises PyTorch's AssertionError."""
    rng = np.random.default_rng(5)
    E, H, N, L, S = 8, 2, 2, 4, 6
    hd, both = E // H, which == "kv"
    S2 = 5 if both else S
    w, b = rng.standard_normal((3 * E, E)), rng.standard_normal(3 * E)
    ow, ob = rng.standard_normal((E, E)), rng.standard_normal(E)
    q, k, v = (rng.standard_normal((n, N, E)) for n in (L, S, S))
    sk = rng.standard_normal((N * H, S2, hd)) if "k" in which else None
    sv = rng.standard_normal((N * H, S2, hd)) if "v" in which else None
    pad = rng.random((N, S2)) > 0.7 if both else None
    if both:
        pad[:, 0] = False

    def heads(x):  # (len, N, E) -> (N H, len, hd)
        return x.reshape(x.shape[0], N * H, hd).transpose(1, 0, 2)
    qh = heads(q @ w[:E].T + b[:E])
    kh = sk if sk is not None else heads(k @ w[E:2 * E].T + b[E:2 * E])
    vh = sv if sv is not None else heads(v @ w[2 * E:].T + b[2 * E:])
    mask = None
    if both:  # add_zero_attn, then the padding mask over S2 + 1 keys
        kh, vh = (np.concatenate([t, np.zeros((N * H, 1, hd))], 1) for t in (kh, vh))
        keep = np.concatenate([~pad, np.ones((N, 1), dtype=bool)], 1)  # the zero key
        mask = np.repeat(keep, H, axis=0)[:, None, :]
    out = ref_sdpa(qh, kh, vh, mask).transpose(1, 0, 2).reshape(L, N, E) @ ow.T + ob
    weights = ref_sdpa(qh, kh, np.eye(kh.shape[1]), mask)
    weights = weights.reshape(N, H, L, -1).mean(1)

    def call(stk, stv, bias_kv=None):
        return F.multi_head_attention_forward(
            _t(q, device), _t(k, device), _t(v, device), E, H, _t(w, device), _t(b, device),
            bias_kv, bias_kv, both, 0.0, _t(ow, device), _t(ob, device), training=False,
            key_padding_mask=None if pad is None else _t(pad, device),
            need_weights=need_weights, static_k=stk, static_v=stv)
    statics = [None if a is None else _t(a, device) for a in (sk, sv)]
    got, got_w = call(*statics)
    _close(got, out)
    if need_weights:
        _close(got_w, weights)
    else:
        assert got_w is None
    given = [t for t in statics if t is not None]
    def of_given(*a):  # call() with the given static tensors replaced by a
        rest = iter(a)
        return call(*(None if t is None else next(rest) for t in statics))[0]
    gradcheck(of_given, [_np(t) for t in given], device)
    bad = _t(rng.standard_normal((N * H + 1, S, hd)), device)
    with pytest.raises(AssertionError, match=r"expecting static_(k|v) of shape \(4, S, 4\)"):
        call(*(bad if t is not None else None for t in statics))
    bias = _t(rng.standard_normal((1, 1, E)), device)
    with pytest.raises(AssertionError, match="bias cannot be added to static key"):
        call(*statics, bias_kv=bias)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_mha_merge_masks(device, kind):
    """MultiheadAttention.merge_masks, PyTorch's (it was missing): the padding mask alone
    is returned as it is (type 1); an attention mask (2-d or 3-d) as (N, heads, L, L),
    plus the padding mask over heads and queries when both are given (bool: either
    True), type 2; NumPy's broadcast as the reference."""
    rng = np.random.default_rng(8)
    N, H, L = 3, 2, 4
    m = nn.MultiheadAttention(4, H, batch_first=True).to(device)
    q = _t(rng.standard_normal((N, L, 4)), device)

    def draw(*shape):
        return rng.random(shape) < 0.5 if kind == "bool" else rng.standard_normal(shape)
    pad, a2, a3 = draw(N, L), draw(L, L), draw(N * H, L, L)
    assert m.merge_masks(None, None, q) == (None, None)
    got, t = m.merge_masks(None, _t(pad, device), q)
    assert t == 1
    np.testing.assert_array_equal(_np(got), pad)
    for attn, full in ((a2, np.broadcast_to(a2, (N, H, L, L))), (a3, a3.reshape(N, H, L, L))):
        got, t = m.merge_masks(_t(attn, device), None, q)
        assert t == 2 and got.shape == (N, H, L, L)
        np.testing.assert_array_equal(_np(got), full)
        got, t = m.merge_masks(_t(attn, device), _t(pad, device), q)
        padded = pad[:, None, None, :]
        want = (full | padded) if kind == "bool" else full + padded
        assert t == 2 and got.dtype == (pdt.bool if kind == "bool" else pdt.float64)
        _close(got.double(), want.astype(np.float64))
