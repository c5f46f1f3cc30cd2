"""The fused LSTM and GRU cell steps (pydevtensor/nn/_fused_rnn.py over _C._lstm_cell,
_C._gru_cell and their backward; equations in csrc/core/pdt_rnn.h), on every device.

- Forward: the same bits as the composition they replace (_functional_rnn.step_unfused)
  on the same device, float32 and float64 (both use the device's own sigmoid and tanh
  and round each product before the sum); against a NumPy float64 reference within
  1e-12 (float64) and 1e-5 relative (float32), biases included.
- Backward: the kernels' gradients against NumPy's formulas within 1e-12 (float64), and
  against the composition's autograd within atol 1e-12 + rtol 1e-10 (float64) and
  1e-5 + 1e-4 (float32); gradcheck (float64, central differences: tests/test_gradcheck.py's
  tolerance).
- Whole layers: nn.LSTM / nn.GRU (two layers, bidirectional) give the composition's
  outputs bit for bit and its gradients within the tolerance above.
- Double backward: layers and cells against central differences and the composition,
  also when the first pass (a penalty on x's gradient) skips the first step's node.
- Refusals of the private bindings: wrong shapes, dtypes, layouts, devices and argument
  types raise exceptions naming the sizes and the device.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES
from pydevtensor import _C, autograd, nn
from pydevtensor.nn import _functional_rnn as FR
from pydevtensor.nn import _fused_rnn
from test_gradcheck import gradcheck

GATES = {"LSTM": 4, "GRU": 3}
TOL = {"float64": (1e-12, 1e-10), "float32": (1e-5, 1e-4)}  # (atol, rtol) of gradients


def _sig(x):
    return 1 / (1 + np.exp(-x))


def ref_forward(mode, ig, hg, state, b_ih=None, b_hh=None):
    """NumPy float64 reference: (hy, cy or None, workspace)."""
    gi = ig + (0 if b_ih is None else b_ih)
    gh = hg + (0 if b_hh is None else b_hh)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        i, f, g, o = _sig(i), _sig(f), np.tanh(g), _sig(o)
        c = f * state + i * g
        return o * np.tanh(c), c, np.concatenate([i, f, g, o, np.tanh(c)], -1)
    xr, xz, xn = np.split(gi, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r, z = _sig(xr + hr), _sig(xz + hz)
    n = np.tanh(xn + r * hn)
    return (1 - z) * n + z * state, None, np.concatenate([r, z, n, hn], -1)


def ref_backward(mode, dh, dc, state, ws):
    """NumPy float64 reference of the gates' and the state's gradients."""
    if mode == "LSTM":
        i, f, g, o, tc = np.split(ws, 5, axis=-1)
        dct = dc + dh * o * (1 - tc ** 2)
        d = np.concatenate([dct * g * i * (1 - i), dct * state * f * (1 - f),
                            dct * i * (1 - g ** 2), dh * tc * o * (1 - o)], -1)
        return d, d, dct * f
    r, z, n, hn = np.split(ws, 4, axis=-1)
    dz = dh * (state - n) * z * (1 - z)
    dn = dh * (1 - z) * (1 - n ** 2)
    dr = dn * hn * r * (1 - r)
    return (np.concatenate([dr, dz, dn], -1), np.concatenate([dr, dz, dn * r], -1), dh * z)


def _arrays(mode, B=3, H=5, seed=0):
    rng = np.random.default_rng(seed)
    G = GATES[mode]
    return (rng.standard_normal((B, G * H)) * 2, rng.standard_normal((B, G * H)) * 2,
            rng.standard_normal((B, H)), rng.standard_normal(G * H),
            rng.standard_normal(G * H))


def _t(a, device, dtype):
    return pdt.tensor(np.asarray(a), device=device, dtype=dtype)


def _fused(mode, ig, hg, state, b_ih=None, b_hh=None):
    """The private forward: (hy, cy or None, workspace)."""
    if mode == "LSTM":
        return _C._lstm_cell(ig, hg, state, b_ih, b_hh)
    hy, ws = _C._gru_cell(ig, hg, state, b_ih, b_hh)
    return hy, None, ws


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_matches_numpy_with_biases(device, mode, dtype):
    ig, hg, s, bi, bh = _arrays(mode)
    dt = getattr(pdt, dtype)
    for biases in ((None, None), (bi, None), (None, bh), (bi, bh)):
        hy, cy, ws = _fused(mode, *(_t(a, device, dt) if a is not None else None
                                    for a in (ig, hg, s) + biases))
        want = ref_forward(mode, ig.astype(dtype), hg.astype(dtype), s.astype(dtype), *biases)
        atol, rtol = (1e-12, 1e-12) if dtype == "float64" else (1e-6, 1e-5)
        for got, ref in zip((hy, cy, ws), want):
            if ref is not None:
                assert got.device == pdt.device(device) and got.dtype == dt
                np.testing.assert_allclose(got.cpu().numpy(), ref, atol=atol, rtol=rtol)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_bits_match_the_composition(device, mode, dtype):
    """The fused step and step_unfused on the same device: the same bits."""
    ig, hg, s, _, _ = _arrays(mode, B=7, H=33, seed=1)
    dt = getattr(pdt, dtype)
    xp, gh, st = (_t(a, device, dt) for a in (ig, hg, s))
    if mode == "LSTM":
        got = _fused_rnn.lstm_cell(xp, gh, st)
        i, f, g, o = (xp + gh).chunk(4, -1)
        c = f.sigmoid() * st + i.sigmoid() * g.tanh()
        want = (o.sigmoid() * c.tanh(), c)
    else:
        got = (_fused_rnn.gru_cell(xp, gh, st),)
        x_r, x_z, x_n = xp.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        want = (n + z * (st - n),)
    for a, b in zip(got, want):
        assert np.array_equal(a.cpu().numpy(), b.cpu().numpy())


@pytest.mark.parametrize("mode,missing", [("LSTM", None), ("LSTM", "dh"), ("LSTM", "dc"),
                                          ("GRU", None)])
def test_backward_kernel_matches_numpy(device, mode, missing):
    """missing: that gradient is None (zeros); the GRU's one is required (test_refusals)."""
    ig, hg, s, _, _ = _arrays(mode, seed=2)
    rng = np.random.default_rng(3)
    dh, dc = rng.standard_normal(s.shape), rng.standard_normal(s.shape)
    f64 = pdt.float64
    _, _, ws = _fused(mode, *(_t(a, device, f64) for a in (ig, hg, s)))
    tdh = None if missing == "dh" else _t(dh, device, f64)
    if mode == "LSTM":
        tdc = None if missing == "dc" else _t(dc, device, f64)
        dg, ds = _C._lstm_cell_backward(tdh, tdc, _t(s, device, f64), ws)
        got = (dg, dg, ds)
    else:
        got = _C._gru_cell_backward(tdh, _t(s, device, f64), ws)
    dh = 0 * dh if missing == "dh" else dh
    dc = 0 * dc if missing == "dc" else dc
    want = ref_backward(mode, dh, dc, s, ws.cpu().numpy())
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.cpu().numpy(), b, atol=1e-12, rtol=1e-12)


def _cell_fn(mode):
    if mode == "LSTM":
        return lambda ig, hg, c: pdt.cat(_fused_rnn.lstm_cell(ig, hg, c), -1)
    return _fused_rnn.gru_cell


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_gradcheck(device, mode):
    ig, hg, s, _, _ = _arrays(mode, B=2, H=3, seed=4)
    gradcheck(_cell_fn(mode), [ig, hg, s], device)


def test_gradcheck_through_one_output(device):
    """The LSTM's backward with only hy's or only cy's gradient (the other None)."""
    ig, hg, s, _, _ = _arrays("LSTM", B=2, H=3, seed=5)
    gradcheck(lambda a, b, c: _fused_rnn.lstm_cell(a, b, c)[0], [ig, hg, s], device)
    gradcheck(lambda a, b, c: _fused_rnn.lstm_cell(a, b, c)[1], [ig, hg, s], device)


def _unfused(monkeypatch):
    """The previous composition everywhere: no dtype is fusable."""
    monkeypatch.setattr(FR, "fusable", lambda x: False)


def _close_grads(got, want, dtype):
    atol, rtol = TOL[dtype]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.cpu().numpy(), atol=atol,
                                   rtol=rtol)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_the_composition(device, mode, dtype, monkeypatch):
    """nn.LSTM / nn.GRU, two layers, both directions: outputs bit for bit, gradients
    within TOL, fused against the previous composition."""
    dt = getattr(pdt, dtype)
    pdt.manual_seed(0)
    m = getattr(nn, mode)(4, 6, num_layers=2, bidirectional=True, device=device, dtype=dt)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 3, 4))
    r = _t(rng.standard_normal((5, 3, 12)), device, dt)

    def run():
        px = _t(x, device, dt).requires_grad_()
        out, state = m(px)
        h_n = state[0] if mode == "LSTM" else state
        loss = (out * r).sum() + h_n.sum() + (state[1].sum() if mode == "LSTM" else 0)
        params = list(m.parameters())
        return out, h_n, autograd.grad(loss, [px] + params)

    out, h_n, grads = run()
    assert out.grad_fn is not None
    with monkeypatch.context() as mp:
        _unfused(mp)
        out0, h_n0, grads0 = run()
    assert np.array_equal(out.detach().cpu().numpy(), out0.detach().cpu().numpy())
    assert np.array_equal(h_n.detach().cpu().numpy(), h_n0.detach().cpu().numpy())
    _close_grads(grads, grads0, dtype)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_cells_use_one_node_a_step(device, mode):
    cell = getattr(nn, mode + "Cell")(3, 4, device=device)
    x = pdt.randn(2, 3, device=device)
    out = cell(x)
    h = out[0] if mode == "LSTM" else out
    assert h.grad_fn.name() == ("LstmCellBackward0" if mode == "LSTM" else "GruCellBackward0")
    h.sum().backward()
    assert cell.weight_hh.grad is not None and cell.weight_ih.grad is not None


def test_half_types_keep_the_composition(device):
    """The kernels refuse float16; the layers then run the composition."""
    ig = pdt.zeros(2, 8, device=device, dtype=pdt.float16)
    c = pdt.zeros(2, 2, device=device, dtype=pdt.float16)
    with pytest.raises(NotImplementedError, match=r"lstm_cell: dtype float16 .*float32 or "
                                                  r"float64.* on " + str(device)):
        _C._lstm_cell(ig, ig, c)
    m = nn.GRUCell(2, 2, device=device, dtype=pdt.float16)
    h = m(pdt.ones(3, 2, device=device, dtype=pdt.float16))
    assert h.dtype == pdt.float16 and h.grad_fn.name() != "GruCellBackward0"


def test_empty_batch(device):
    ig = pdt.zeros(0, 8, device=device)
    hy, cy, ws = _C._lstm_cell(ig, ig, pdt.zeros(0, 2, device=device))
    assert hy.shape == (0, 2) and cy.shape == (0, 2) and ws.shape == (0, 10)
    d, dc = _C._lstm_cell_backward(None, None, cy, ws)
    assert d.shape == (0, 8) and dc.shape == (0, 2)


def test_refusals(device):
    f32 = pdt.float32
    g4, g3 = pdt.zeros(2, 8, device=device), pdt.zeros(2, 6, device=device)
    s = pdt.zeros(2, 2, device=device)
    cases = [
        (lambda: _C._lstm_cell(pdt.zeros(2, 7, device=device), g4, s), ValueError,
         r"lstm_cell: expected input_gates of shape \(B, 4 \* hidden_size\).*\(2, 7\)"),
        (lambda: _C._lstm_cell(g4, pdt.zeros(2, 4, device=device), s), ValueError,
         r"hidden_gates of shape \(2, 8\).*got shape \(2, 4\)"),
        (lambda: _C._lstm_cell(g4, g4, pdt.zeros(3, 2, device=device)), ValueError,
         r"cx of shape \(2, 2\).*got shape \(3, 2\)"),
        (lambda: _C._gru_cell(g3, g3, s, pdt.zeros(5, device=device)), ValueError,
         r"gru_cell: expected b_ih of shape \(6,\).*got shape \(5,\)"),
        (lambda: _C._gru_cell(g3, g3.double(), s), TypeError,
         r"gru_cell: hidden_gates is float64 but input_gates is float32"),
        (lambda: _C._gru_cell(g3.int(), g3.int(), s.int()), NotImplementedError,
         r"dtype int32 is not supported"),
        (lambda: _C._lstm_cell(g4, g4, pdt.zeros(2, 4, device=device)[:, ::2]), ValueError,
         r"lstm_cell: cx must be contiguous"),
        (lambda: _C._lstm_cell(g4, g4, "c"), TypeError, r"_lstm_cell: cx must be a Tensor, "
                                                      r"got str"),
        (lambda: _C._lstm_cell(g4, g4), TypeError, r"_lstm_cell\(\) takes 3 to 5 arguments"),
        (lambda: _C._gru_cell(g3, g3, s, 1.0), TypeError, r"b_ih must be a Tensor or None"),
        (lambda: _C._lstm_cell_backward(None, None, s, pdt.zeros(2, 9, device=device)),
         ValueError, r"lstm_cell_backward: expected workspace of shape \(B, 5 \* hidden_size\)"),
        (lambda: _C._lstm_cell_backward(pdt.zeros(2, 3, device=device), None, s,
                                        pdt.zeros(2, 10, device=device)), ValueError,
         r"grad_hy of shape \(2, 2\).*got shape \(2, 3\)"),
        (lambda: _C._gru_cell_backward(None, s, pdt.zeros(2, 8, device=device)), TypeError,
         r"_gru_cell_backward: grad_hy must be a Tensor, got NoneType"),
        (lambda: _C._gru_cell_backward(s, s.double(), pdt.zeros(2, 8, device=device)),
         TypeError, r"hx is float64 but workspace is float32"),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern) as info:
            call()
        if "must be a Tensor" not in pattern and "arguments" not in pattern:
            assert f"on {device}" in str(info.value), str(info.value)
    assert f32 == g4.dtype


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA_DEVICES, reason="needs a CUDA device")
def test_refuses_mixed_devices():
    dev = CUDA_DEVICES[0]
    g = pdt.zeros(2, 8, device=dev)
    with pytest.raises(RuntimeError, match=r"lstm_cell.*(cpu.*cuda|cuda.*cpu)"):
        _C._lstm_cell(g, g, pdt.zeros(2, 2))
    if len(CUDA_DEVICES) > 1:
        other = CUDA_DEVICES[1]
        with pytest.raises(RuntimeError, match=r"gru_cell.*cuda"):
            _C._gru_cell(pdt.zeros(2, 6, device=dev), pdt.zeros(2, 6, device=other),
                         pdt.zeros(2, 2, device=dev))


def _graph_nodes(out):
    import weakref
    seen, todo, refs = set(), [out.grad_fn], []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        refs.append(weakref.ref(n))
        todo.extend(e[0] for e in getattr(n, "next_functions", ()))
    return refs


@pytest.mark.parametrize("mode", ["GRU", "LSTM"])
@pytest.mark.parametrize("case", ["frozen-retain", "raise-mid-backward"])
def test_a_layers_graph_is_freed(device, mode, case):
    """Note [one GEMM for W_hh's gradient] collects the steps' gradients and states:
    the graph is still freed when no first step's node runs (frozen W_hh with
    retain_graph) and when a backward stops half way (the reviewer found a cycle
    through the collected states kept graphs, and device memory, for good)."""
    import gc

    from pydevtensor.nn import _fused_rnn as FU
    rng = np.random.default_rng(0)
    m = getattr(nn, mode)(3, 4).to(device).double()
    if case == "frozen-retain":
        for p in m.parameters():
            p.requires_grad_(False)
    x = pdt.tensor(rng.standard_normal((5, 2, 3)), device=device, requires_grad=True)
    out, state = m(x)
    refs = _graph_nodes(out)
    cls = FU.GruCellBackward0 if mode == "GRU" else FU.LstmCellBackward0
    if case == "frozen-retain":
        out.sum().backward(retain_graph=True)
        assert x.grad is not None
    else:
        name = "backward" if "backward" in cls.__dict__ else "apply"
        orig, calls = cls.__dict__[name], [0]

        def boom(self, g):
            calls[0] += 1
            if calls[0] == 3:
                raise KeyboardInterrupt("injected")
            return orig(self, g)
        setattr(cls, name, boom)
        try:
            with pytest.raises(KeyboardInterrupt):
                out.sum().backward()
        finally:
            setattr(cls, name, orig)
    del out, state, x
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


def test_gru_gate_gradients_are_written_into_one_buffer(device):
    """Note [one GEMM for W_hh's gradient]: the GRU's steps write their gate gradients
    into one (L N, 3 H) buffer that W_hh's GEMM reads, instead of holding them apart
    and concatenating them at the first step: the backward below (retaining the
    graph) rose 3.43 B above what the forward left, 2.46 B now, B the buffer's
    bytes (the same ratios at L N H = 100 16 128); a second backward through the
    retained graph makes the same gradients."""
    L, N, H = 40, 8, 32
    pdt.manual_seed(0)
    m = nn.GRU(H, H, device=device)
    x = pdt.randn(L, N, H, device=device)
    out, _ = m(x)
    g = pdt.ones_like(out)
    before = pdt.memory_allocated(device)
    pdt.reset_peak_memory_stats(device)
    out.backward(g, retain_graph=True)
    rise = pdt.max_memory_allocated(device) - before
    B = L * N * 3 * H * 4
    assert rise < 2.9 * B, (rise, B)
    first = [p.grad.clone() for p in m.parameters()]
    for p in m.parameters():
        p.grad = None
    out.backward(g)
    for a, b in zip(first, m.parameters()):
        assert np.array_equal(a.cpu().numpy(), b.grad.cpu().numpy())


# ---- double backward (Note [the fused cells' double backward])

@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_cells_second_and_third_derivatives(device, mode):
    """The cells' gradients taken with create_graph=True are the kernels' (float64,
    within 1e-15) and differentiable twice more: gradgradcheck of the cell, and of
    its gradient (third derivatives), against central differences.  They raised
    'LstmCellBackward0 does not support double backward'."""
    ig, hg, s, _, _ = _arrays(mode, B=2, H=3, seed=7)
    args = [_t(a, device, pdt.float64).requires_grad_() for a in (ig, hg, s)]
    fn = _cell_fn(mode)
    r = _t(np.random.default_rng(8).standard_normal(tuple(fn(*args).shape)), device,
           pdt.float64)
    got = autograd.grad((fn(*args) * r).sum(), args, create_graph=True)
    want = autograd.grad((fn(*args) * r).sum(), args)
    _close_grads(got, want, "float64")
    assert all(g.requires_grad for g in got)
    assert autograd.gradgradcheck(fn, args)

    def first(*a):
        return pdt.cat(autograd.grad((fn(*a) * r).sum(), a, create_graph=True), 1)
    assert autograd.gradgradcheck(first, args)
    if mode == "LSTM":  # one output's gradient missing
        for k in (0, 1):
            assert autograd.gradgradcheck(lambda *a: _fused_rnn.lstm_cell(*a)[k], args)


def _second_order(module, mode, x, h0, r, wrt):
    """The gradient of a loss of module(x, h0) with respect to wrt (x, h0 and
    weights), with create_graph=True."""
    state = (h0, h0 * 0.5) if mode == "LSTM" else h0
    out = module(x, state)
    y = out[0] if isinstance(out, tuple) else out
    return autograd.grad((y * r).sum() + (y * y).sum() * 0.1, wrt, create_graph=True)


@pytest.mark.parametrize("mode,cell,layers,bidirectional", [
    ("LSTM", True, 1, False), ("GRU", True, 1, False), ("LSTM", False, 1, False),
    ("GRU", False, 1, False), ("LSTM", False, 2, True), ("GRU", False, 2, True)])
def test_layers_double_backward(device, mode, cell, layers, bidirectional, monkeypatch):
    """nn.LSTM, nn.GRU and their cells, float64: the gradient with respect to x, h0
    and every weight of a projection of the first gradient (of x, h0 and W_hh) is
    its central difference along random directions (rtol 1e-6), and the
    composition's (within TOL)."""
    rng = np.random.default_rng(9)
    pdt.manual_seed(1)
    D = 2 if bidirectional else 1
    m = (getattr(nn, mode + "Cell")(3, 4) if cell else
         getattr(nn, mode)(3, 4, num_layers=layers, bidirectional=bidirectional))
    m = m.to(device).double()
    x = _t(rng.standard_normal((2, 3) if cell else (5, 2, 3)), device, pdt.float64)
    h0 = _t(rng.standard_normal((2, 4) if cell else (layers * D, 2, 4)), device,
            pdt.float64)
    x.requires_grad_()
    h0.requires_grad_()
    w = m.weight_hh if cell else m.weight_hh_l0
    r = _t(rng.standard_normal((2, 4) if cell else (5, 2, 4 * D)), device, pdt.float64)
    wrt = [x, h0, w]
    proj = [_t(rng.standard_normal(tuple(t.shape)), device, pdt.float64) for t in wrt]

    def penalty():
        return sum((g * p).sum() for g, p in zip(_second_order(m, mode, x, h0, r, wrt),
                                                 proj))
    params = [x, h0] + list(m.parameters())
    second = autograd.grad(penalty(), params)
    eps = 1e-5
    at = [next(k for k, p in enumerate(params) if p is t) for t in wrt]
    for t, s in zip(wrt, [second[k] for k in at]):
        v = _t(rng.standard_normal(tuple(t.shape)), device, pdt.float64)
        values = []
        for step in (eps, -2 * eps, eps):
            with pdt.no_grad():
                t.add_(v * step)
            values.append(penalty().item())
        want = (values[0] - values[1]) / (2 * eps)
        assert abs((s * v).sum().item() - want) <= 1e-6 * (1 + abs(want))
    with monkeypatch.context() as mp:
        _unfused(mp)
        second0 = autograd.grad(penalty(), params)
    _close_grads(second, second0, "float64")


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_penalty_on_the_input_gradient_trains_w_hh(device, mode, monkeypatch):
    """A gradient penalty on x only (WGAN-GP's): the first pass, grad(y, x,
    create_graph=True), does not reach the first step's hidden projection (it leads
    only to W_hh, b_hh and a zero h0), so the later steps' gradients it collects must
    not reach W_hh's gradient in the backward of loss + penalty (Note [steps of an
    earlier pass]: the GRU's W_hh and b_hh gradients were off by about 0.1).  float64:
    every parameter's gradient is the composition's (within TOL), and W_hh's and
    b_hh's their central differences along random directions (rtol 1e-6)."""
    rng = np.random.default_rng(4)
    pdt.manual_seed(2)
    m = getattr(nn, mode)(3, 4).to(device).double()
    x0 = rng.standard_normal((4, 2, 3))
    r = _t(rng.standard_normal((4, 2, 4)), device, pdt.float64)

    def objective(grad_too=True):
        x = _t(x0, device, pdt.float64).requires_grad_()
        y = (m(x)[0] * r).sum()
        (gx,) = autograd.grad(y, [x], create_graph=True)
        loss = y + (gx * gx).sum()
        return autograd.grad(loss, list(m.parameters())) if grad_too else loss.item()

    grads = objective()
    with monkeypatch.context() as mp:
        _unfused(mp)
        grads0 = objective()
    _close_grads(grads, grads0, "float64")
    eps = 1e-5
    for k, name in enumerate(n for n, _ in m.named_parameters()):
        if "_hh" not in name:
            continue
        p = getattr(m, name)
        v = _t(rng.standard_normal(tuple(p.shape)), device, pdt.float64)
        values = []
        for step in (eps, -2 * eps, eps):
            with pdt.no_grad():
                p.add_(v * step)
            values.append(objective(grad_too=False))
        want = (values[0] - values[1]) / (2 * eps)
        assert abs((grads[k] * v).sum().item() - want) <= 1e-6 * (1 + abs(want))
