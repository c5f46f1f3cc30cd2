"""nn.RNN, nn.GRU, nn.LSTM and the cells RNNCell, GRUCell, LSTMCell on every device:

- outputs and final states against a NumPy float64 reference written here with plain
  loops and the equations of PyTorch's documentation (|got - ref| <= 1e-10 + 1e-10
  |ref|: the same float64 sums, summed in another order), for 1 and 2 layers, both
  directions, batch_first, unbatched input, given h0/c0, relu, no bias;
- gradients of the input, h0/c0 and every parameter against central differences in
  float64 (tests/test_gradcheck.py's helper and tolerance);
- against PyTorch when it can be imported: its weights copied in by name through
  NumPy, outputs and gradients in float32 within 2e-5 + 2e-5 |ref| (outputs) and
  1e-4 + 1e-4 |ref| (gradients: sums over time steps);
- dropout between layers in training only, PyTorch's state_dict keys and initialisation
  bounds, the same initial parameters on every device for one seed, bad input, and a
  D2L-style GRU language model whose loss falls.
"""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import autograd, nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

TOL64 = 1e-10          # against the NumPy reference, float64
TORCH_OUT = 2e-5       # against torch, float32 outputs
TORCH_GRAD = 1e-4      # against torch, float32 gradients

MODES = {"rnn_tanh": (nn.RNN, {}), "rnn_relu": (nn.RNN, {"nonlinearity": "relu"}),
         "gru": (nn.GRU, {}), "lstm": (nn.LSTM, {})}
CELLS = {"rnn_tanh": (nn.RNNCell, {}), "rnn_relu": (nn.RNNCell, {"nonlinearity": "relu"}),
         "gru": (nn.GRUCell, {}), "lstm": (nn.LSTMCell, {})}


# ---- the NumPy reference (float64, plain loops) ----

def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def ref_step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step for x (N, H_in), h and c (N, H); PyTorch's documented equations (with
    projections h is (N, P), c still (N, H))."""
    hidden = h.shape[-1] if c is None else c.shape[-1]
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "rnn_tanh":
        return np.tanh(gi + gh), None
    if mode == "rnn_relu":
        return np.maximum(gi + gh, 0.0), None
    if mode == "gru":
        r = _sigmoid(gi[:, :hidden] + gh[:, :hidden])
        z = _sigmoid(gi[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        n = np.tanh(gi[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
        return (1 - z) * n + z * h, None
    g = gi + gh
    i, f = _sigmoid(g[:, :hidden]), _sigmoid(g[:, hidden:2 * hidden])
    gg, o = np.tanh(g[:, 2 * hidden:3 * hidden]), _sigmoid(g[:, 3 * hidden:])
    c = f * c + i * gg
    return o * np.tanh(c), c


def ref_rnn(mode, x, h0, c0, params, num_layers, directions):
    """x (L, N, H_in), h0/c0 (num_layers * directions, N, H), params by PyTorch's names.
    Returns output (L, N, directions * H), h_n, c_n."""
    length = x.shape[0]
    layer_in = x
    h_n, c_n = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            k = layer * directions + d
            h, c = h0[k], None if c0 is None else c0[k]
            out = [None] * length
            for t in (range(length - 1, -1, -1) if d else range(length)):
                h, c = ref_step(mode, layer_in[t], h, c, params["weight_ih" + sfx],
                                params["weight_hh" + sfx], params.get("bias_ih" + sfx),
                                params.get("bias_hh" + sfx))
                if "weight_hr" + sfx in params:  # an LSTM with projections
                    h = h @ params["weight_hr" + sfx].T
                out[t] = h
            outs.append(np.stack(out))
            h_n.append(h)
            c_n.append(c)
        layer_in = np.concatenate(outs, axis=-1)
    return layer_in, np.stack(h_n), None if c0 is None else np.stack(c_n)


def numpy_params(module):
    return {k: v.cpu().numpy().astype(np.float64) for k, v in module.state_dict().items()}


def close(got, ref, tol=TOL64):
    got = got.detach().cpu().numpy().astype(np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    err = np.abs(got - ref)
    assert np.all(err <= tol + tol * np.abs(ref)), err.max()


# ---- outputs against the reference ----

LAYOUTS = [(1, False), (2, False), (1, True), (2, True)]
FORMS = ["batched", "batch_first_h0", "unbatched_h0", "unbatched", "no_bias_h0"]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("num_layers,bidirectional", LAYOUTS)
@pytest.mark.parametrize("mode", list(MODES))
def test_sequence_matches_numpy(device, mode, num_layers, bidirectional, form):
    cls, kw = MODES[mode]
    length, batch, h_in, hidden = 4, 3, 5, 6
    directions = 2 if bidirectional else 1
    batch_first = form == "batch_first_h0"
    m = cls(h_in, hidden, num_layers=num_layers, bidirectional=bidirectional,
            batch_first=batch_first, bias=form != "no_bias_h0", device=device,
            dtype=pdt.float64, **kw)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((length, batch, h_in))
    h0 = rng.standard_normal((num_layers * directions, batch, hidden))
    c0 = rng.standard_normal(h0.shape) if mode == "lstm" else None
    given = form.endswith("_h0")
    unbatched = form.startswith("unbatched")

    def to_dev(a):
        return pdt.tensor(a, device=device)

    if unbatched:
        xin = to_dev(x[:, 0])
        hin = (to_dev(h0[:, 0]), to_dev(c0[:, 0])) if mode == "lstm" else to_dev(h0[:, 0])
        x, h0 = x[:, :1], h0[:, :1]
        c0 = None if c0 is None else c0[:, :1]
    else:
        xin = to_dev(x.transpose(1, 0, 2) if batch_first else x)
        hin = (to_dev(h0), to_dev(c0)) if mode == "lstm" else to_dev(h0)
    if not given:
        h0 = np.zeros_like(h0)
        c0 = None if c0 is None else np.zeros_like(c0)
    out, state = m(xin, hin) if given else m(xin)
    ref_out, ref_h, ref_c = ref_rnn(mode, x, h0, c0, numpy_params(m), num_layers, directions)
    h_n, c_n = state if mode == "lstm" else (state, None)
    assert out.device == device and h_n.device == device
    if unbatched:
        ref_out, ref_h = ref_out[:, 0], ref_h[:, 0]
        ref_c = None if ref_c is None else ref_c[:, 0]
    elif batch_first:
        ref_out = ref_out.transpose(1, 0, 2)
    close(out, ref_out)
    close(h_n, ref_h)
    if mode == "lstm":
        close(c_n, ref_c)


@pytest.mark.parametrize("given", [False, True])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("mode", list(CELLS))
def test_cell_matches_numpy(device, mode, batched, given):
    cls, kw = CELLS[mode]
    m = cls(3, 4, device=device, dtype=pdt.float64, **kw)
    rng = np.random.default_rng(3)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), \
        rng.standard_normal((2, 4))
    if not given:
        h, c = np.zeros_like(h), np.zeros_like(c)
    p = numpy_params(m)
    ref_h, ref_c = ref_step(mode, x, h, c if mode == "lstm" else None, p["weight_ih"],
                            p["weight_hh"], p["bias_ih"], p["bias_hh"])
    rows = slice(None) if batched else 0
    xin, hin, cin = (pdt.tensor(a[rows], device=device) for a in (x, h, c))
    state = ((hin, cin) if mode == "lstm" else hin) if given else None
    got = m(xin, state)
    got_h, got_c = got if mode == "lstm" else (got, None)
    close(got_h, ref_h[rows])
    if mode == "lstm":
        close(got_c, ref_c[rows])


# ---- gradients against central differences ----

def _with_params(module, names, x, states, params):
    """module(x, states) with its parameters replaced by the tensors params (which
    gradcheck differentiates): through _parameters, which forward reads."""
    for name, p in zip(names, params):
        module._parameters[name] = p
    return module(x, states)


@pytest.mark.parametrize("mode", list(MODES))
def test_sequence_gradients(device, mode):
    cls, kw = MODES[mode]
    m = cls(2, 2, num_layers=2, bidirectional=True, dtype=pdt.float64, device=device, **kw)
    names = list(m.state_dict())
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal((3, 2, 2)), rng.standard_normal((4, 2, 2))]
    if mode == "lstm":
        arrays.append(rng.standard_normal((4, 2, 2)))
    arrays += [v.copy() for v in numpy_params(m).values()]
    nstate = 2 if mode == "lstm" else 1

    def fn(x, *rest):
        states = tuple(rest[:nstate]) if mode == "lstm" else rest[0]
        out, st = _with_params(m, names, x, states, rest[nstate:])
        h_n, c_n = st if mode == "lstm" else (st, st)
        # one output holding output, h_n and c_n
        return pdt.cat([out.reshape(-1), h_n.reshape(-1), c_n.reshape(-1)])

    gradcheck(fn, arrays, device)


@pytest.mark.parametrize("mode", list(CELLS))
def test_cell_gradients(device, mode):
    cls, kw = CELLS[mode]
    m = cls(3, 2, dtype=pdt.float64, device=device, **kw)
    names = list(m.state_dict())
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((2, 3)), rng.standard_normal((2, 2))]
    if mode == "lstm":
        arrays.append(rng.standard_normal((2, 2)))
    arrays += [v.copy() for v in numpy_params(m).values()]
    nstate = 2 if mode == "lstm" else 1

    def fn(x, *rest):
        states = tuple(rest[:nstate]) if mode == "lstm" else rest[0]
        got = _with_params(m, names, x, states, rest[nstate:])
        return pdt.cat(list(got), -1) if mode == "lstm" else got

    gradcheck(fn, arrays, device)


# ---- against PyTorch ----

TORCH_CASES = [("rnn_tanh", dict(num_layers=2, bidirectional=True)),
               ("rnn_relu", dict(batch_first=True)),
               ("gru", dict(num_layers=2, bidirectional=True, batch_first=True)),
               ("gru", dict(bias=False)),
               ("lstm", dict(num_layers=2, bidirectional=True)),
               ("lstm", dict(batch_first=True, bias=False))]


def _load_torch_weights(module, tmodule, device):
    module.load_state_dict({k: pdt.tensor(v.detach().numpy(), device=device)
                            for k, v in tmodule.state_dict().items()})


@pytest.mark.parametrize("mode,kw", TORCH_CASES, ids=[f"{m}-{'-'.join(k)}" for m, k in
                                                       TORCH_CASES])
def test_against_torch(device, mode, kw):
    torch = torch_or_skip()
    cls, extra = MODES[mode]
    kw = dict(kw, **extra)
    tcls = getattr(torch.nn, cls.__name__)
    torch.manual_seed(0)
    tm = tcls(4, 5, **kw)
    m = cls(4, 5, device=device, **kw)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert m._flat_weights_names == tm._flat_weights_names
    assert repr(m) == repr(tm)
    _load_torch_weights(m, tm, device)
    directions = 2 if kw.get("bidirectional") else 1
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 4) if kw.get("batch_first") else (6, 2, 4)) \
        .astype(np.float32)
    h0 = rng.standard_normal((kw.get("num_layers", 1) * directions, 2, 5)).astype(np.float32)
    c0 = rng.standard_normal(h0.shape).astype(np.float32)
    r_out = rng.standard_normal((6, 2, 5 * directions)).astype(np.float32)
    if kw.get("batch_first"):
        r_out = r_out.transpose(1, 0, 2).copy()
    r_h = rng.standard_normal(h0.shape).astype(np.float32)

    tx, th, tc = (torch.tensor(a, requires_grad=True) for a in (x, h0, c0))
    tout, tstate = tm(tx, (th, tc) if mode == "lstm" else th)
    th_n = tstate[0] if mode == "lstm" else tstate
    tloss = (tout * torch.tensor(r_out)).sum() + (th_n * torch.tensor(r_h)).sum()
    if mode == "lstm":
        tloss = tloss + (tstate[1] * torch.tensor(r_h)).sum()
    tloss.backward()

    px, ph, pc = (pdt.tensor(a, device=device).requires_grad_() for a in (x, h0, c0))
    out, state = m(px, (ph, pc) if mode == "lstm" else ph)
    h_n = state[0] if mode == "lstm" else state
    loss = (out * pdt.tensor(r_out, device=device)).sum() + \
        (h_n * pdt.tensor(r_h, device=device)).sum()
    if mode == "lstm":
        loss = loss + (state[1] * pdt.tensor(r_h, device=device)).sum()
    loss.backward()

    close(out, tout.detach().double().numpy(), TORCH_OUT)
    close(h_n, th_n.detach().double().numpy(), TORCH_OUT)
    if mode == "lstm":
        close(state[1], tstate[1].detach().double().numpy(), TORCH_OUT)
    grads = [(px, tx), (ph, th)] + ([(pc, tc)] if mode == "lstm" else [])
    grads += [(p, tm.get_parameter(n)) for n, p in m.named_parameters()]
    for mine, theirs in grads:
        close(mine.grad, theirs.grad.double().numpy(), TORCH_GRAD)


@pytest.mark.parametrize("mode", list(CELLS))
def test_cell_against_torch(device, mode):
    torch = torch_or_skip()
    cls, kw = CELLS[mode]
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls.__name__)(4, 3, **kw)
    m = cls(4, 3, device=device, **kw)
    assert list(m.state_dict()) == list(tm.state_dict()) and repr(m) == repr(tm)
    _load_torch_weights(m, tm, device)
    rng = np.random.default_rng(2)
    x, h, c = (rng.standard_normal(s).astype(np.float32) for s in ((2, 4), (2, 3), (2, 3)))
    tx = torch.tensor(x, requires_grad=True)
    ts = (torch.tensor(h), torch.tensor(c)) if mode == "lstm" else torch.tensor(h)
    tgot = tm(tx, ts)
    tsum = sum(t.sum() for t in tgot) if mode == "lstm" else tgot.sum()
    tsum.backward()
    px = pdt.tensor(x, device=device).requires_grad_()
    ps = (pdt.tensor(h, device=device), pdt.tensor(c, device=device)) if mode == "lstm" \
        else pdt.tensor(h, device=device)
    got = m(px, ps)
    (sum(t.sum() for t in got) if mode == "lstm" else got.sum()).backward()
    for mine, theirs in (zip(got, tgot) if mode == "lstm" else [(got, tgot)]):
        close(mine, theirs.detach().double().numpy(), TORCH_OUT)
    close(px.grad, tx.grad.double().numpy(), TORCH_GRAD)
    for n, p in m.named_parameters():
        close(p.grad, tm.get_parameter(n).grad.double().numpy(), TORCH_GRAD)


def test_state_dict_keys_and_repr_match_torch():
    torch = torch_or_skip()
    for cls, kw in [(nn.RNN, dict(nonlinearity="relu", num_layers=3, bias=False,
                                  batch_first=True, dropout=0.25, bidirectional=True)),
                    (nn.GRU, dict(num_layers=2, bidirectional=True)),
                    (nn.LSTM, dict(num_layers=2, dropout=0.5)),
                    (nn.RNNCell, dict(bias=False, nonlinearity="relu")),
                    (nn.GRUCell, {}), (nn.LSTMCell, dict(bias=False))]:
        m, tm = cls(3, 4, **kw), getattr(torch.nn, cls.__name__)(3, 4, **kw)
        assert repr(m) == repr(tm)
        assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in tm.state_dict().items()]


# ---- layers, dropout, initialisation, devices ----

def test_parameter_names_and_shapes():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert list(shapes)[:8] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                "weight_ih_l0_reverse", "weight_hh_l0_reverse",
                                "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    assert shapes["weight_ih_l0"] == (16, 3) and shapes["weight_ih_l1_reverse"] == (16, 8)
    assert shapes["weight_hh_l1"] == (16, 4) and shapes["bias_hh_l1_reverse"] == (16,)
    assert len(shapes) == 16
    assert [k for k in nn.GRU(3, 4, bias=False).state_dict()] == ["weight_ih_l0",
                                                                   "weight_hh_l0"]
    assert nn.GRU(3, 4).bias_ih_l0.shape == (12,)
    assert nn.RNN(3, 4, num_layers=2)._flat_weights_names == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
        "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"]


def test_initialisation_bounds_and_same_on_every_device(device):
    hidden = 16
    pdt.manual_seed(4)
    m = nn.GRU(8, hidden, num_layers=2, device=device)
    pdt.manual_seed(4)
    ref = nn.GRU(8, hidden, num_layers=2)
    bound = 1 / math.sqrt(hidden)
    values = np.concatenate([p.detach().cpu().numpy().ravel() for p in m.parameters()])
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.95 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.05 * bound  # U(-b, b)
    for (name, p), q in zip(m.named_parameters(), ref.parameters()):
        assert p.device == device, name
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().numpy())
    cell = nn.LSTMCell(3, 25, device=device)
    assert all(float(p.abs().max()) <= 0.2 for p in cell.parameters())


def test_dropout_between_layers_in_training_only(device):
    pdt.manual_seed(0)
    m = nn.GRU(3, 8, num_layers=3, dropout=0.5, device=device)
    plain = nn.GRU(3, 8, num_layers=3, device=device)
    plain.load_state_dict(m.state_dict())
    x = pdt.randn(5, 4, 3, device=device)
    out_a, h_a = m(x)
    out_b, _ = m(x)
    ref, ref_h = plain(x)
    assert not bool((out_a == out_b).all())              # a fresh mask per call
    assert not bool((out_a == ref).all())
    m.eval()
    out_e, h_e = m(x)
    assert bool((out_e == ref).all()) and bool((h_e == ref_h).all())
    assert bool((m(x)[0] == out_e).all())                # deterministic in evaluation
    # the first layer's final state is computed before any dropout
    assert bool((h_a[0] == ref_h[0]).all())
    # one layer: no dropout after the last layer (PyTorch warns that it does nothing)
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        single = nn.LSTM(3, 4, dropout=0.5, device=device)
    assert bool((single(x)[0] == single.eval()(x)[0]).all())


def test_moved_module_and_flatten_parameters(device):
    m = nn.LSTM(3, 4, batch_first=True)
    x = pdt.randn(2, 5, 3)
    ref, (h, c) = m(x)
    m.to(device)
    m.flatten_parameters()
    assert m.flatten_parameters() is None
    out, (h2, c2) = m(x.to(device))
    assert out.device == device and h2.device == device and c2.device == device
    assert_close(out, ref.detach().numpy())
    assert_close(c2, c.detach().numpy())


def test_float32_default_and_float64_modules(device):
    for dt in (pdt.float32, pdt.float64):
        m = nn.RNN(2, 3, device=device) if dt == pdt.float32 else \
            nn.RNN(2, 3, device=device, dtype=dt)
        assert all(p.dtype == dt for p in m.parameters())
        out, h = m(pdt.randn(4, 2, device=device, dtype=dt))
        assert out.dtype == dt and h.dtype == dt and tuple(h.shape) == (1, 3)


def test_empty_batch(device):
    out, (h, c) = nn.LSTM(3, 4, device=device)(pdt.zeros(5, 0, 3, device=device))
    assert tuple(out.shape) == (5, 0, 4) and tuple(h.shape) == (1, 0, 4) == tuple(c.shape)


# ---- bad input ----

class _Packed:
    """What torch.nn.utils.rnn.pack_sequence returns looks like this."""

    def __init__(self, data):
        self.data, self.batch_sizes = data, pdt.tensor([2] * data.shape[0])


def _bad_calls(device):
    other = pdt.float64
    x = pdt.zeros(5, 2, 3, device=device)
    return [
        (lambda: nn.GRU(3, 4, device=device)(pdt.zeros(5, 2, 2, device=device)), ValueError,
         r"GRU: expected input of size 3 \(input_size\) in its last dimension, got 2 in an "
         rf"input of shape \(5, 2, 2\) \(on {device}\)"),
        (lambda: nn.GRU(3, 4, device=device)(pdt.zeros(5, 2, 3, 1, device=device)), ValueError,
         rf"GRU: expected input to be 2-D \(L, H_in\) or 3-D \(L, N, H_in\), got 4-D input "
         rf"of shape \(5, 2, 3, 1\) \(on {device}\)"),
        (lambda: nn.GRU(3, 4, device=device)(pdt.zeros(0, 2, 3, device=device)), RuntimeError,
         r"expected a sequence length larger than 0"),
        (lambda: nn.GRU(3, 4, device=device)(x, pdt.zeros(2, 2, 4, device=device)),
         RuntimeError, r"GRU: expected h0 of shape \(1, 2, 4\) \(num_layers \* "
         rf"num_directions, N, hidden_size\), got \(2, 2, 4\) for an input of shape "
         rf"\(5, 2, 3\) \(on {device}\)"),
        (lambda: nn.RNN(3, 4, device=device)(x, pdt.zeros(2, 4, device=device)), RuntimeError,
         r"for batched 3-D input, h0 should be 3-D"),
        (lambda: nn.RNN(3, 4, device=device)(x[:, 0], pdt.zeros(1, 2, 4, device=device)),
         RuntimeError, r"for unbatched 2-D input, h0 should be 2-D"),
        (lambda: nn.LSTM(3, 4, device=device)(x, pdt.zeros(1, 2, 4, device=device)),
         TypeError, r"LSTM: hx must be a tuple \(h0, c0\) of two Tensors, got Tensor"),
        (lambda: nn.LSTM(3, 4, device=device)(x, (pdt.zeros(1, 2, 4, device=device),
                                                  pdt.zeros(1, 3, 4, device=device))),
         ValueError, r"expected c0 of shape \(1, 2, 4\)"),
        (lambda: nn.GRU(3, 4, device=device)(x.to(other)), ValueError,
         rf"GRU: RNN input dtype \(pydevtensor.float64\) does not match weight dtype "
         rf"\(pydevtensor.float32\) \(on {device}\). Convert input: "
         rf"input.to\(pydevtensor.float32\), or convert model: "
         rf"model.to\(pydevtensor.float64\)"),
        (lambda: nn.GRU(3, 4, device=device)(x, pdt.zeros(1, 2, 4, device=device,
                                                          dtype=other)),
         RuntimeError, r"GRU: h0 is pydevtensor.float64"),
        (lambda: nn.GRUCell(3, 4, device=device)(x[0].to(other)), RuntimeError,
         rf"GRUCell: the input is pydevtensor.float64 but the module's parameters are "
         rf"pydevtensor.float32.*\(on {device}\)"),
        (lambda: nn.LSTM(3, 4, device=device)(_Packed(x)), NotImplementedError,
         r"LSTM: the input is a _Packed, not a Tensor or a pydevtensor PackedSequence; "
         r"pack the batch with pydevtensor.nn.utils.rnn.pack_padded_sequence"),
        (lambda: nn.GRU(3, 4, device=device)([[1.0]]), TypeError,
         r"GRU: the input must be a Tensor, got list"),
        (lambda: nn.GRUCell(3, 4, device=device)(pdt.zeros(2, 2, device=device)), ValueError,
         r"GRUCell: expected input of size 3 \(input_size\)"),
        (lambda: nn.GRUCell(3, 4, device=device)(x), ValueError,
         r"GRUCell: expected input to be 1-D \(H_in\) or 2-D \(N, H_in\), got 3-D"),
        (lambda: nn.RNNCell(3, 4, device=device)(x[0], pdt.zeros(3, 4, device=device)),
         ValueError, r"RNNCell: expected hx of shape \(2, 4\) \(N, hidden_size\), got \(3, 4\)"),
        (lambda: nn.RNNCell(3, 4, device=device)(x[0], pdt.zeros(4, device=device)),
         ValueError, r"RNNCell: for batched 2-D input, hx should be 2-D \(N, hidden_size\), "
         r"got a 1-D tensor of shape \(4,\)"),
        (lambda: nn.GRUCell(3, 4, device=device)(x[0, 0], pdt.zeros(1, 4, device=device)),
         ValueError, r"GRUCell: for unbatched 1-D input, hx should be 1-D \(hidden_size\)"),
        (lambda: nn.LSTMCell(3, 4, device=device)(x[0], pdt.zeros(2, 4, device=device)),
         TypeError, r"LSTMCell: hx must be a tuple \(h, c\)"),
        (lambda: nn.RNNCellBase(3, 4, True, 2, device=device)(x[0]), NotImplementedError,
         r"RNNCellBase has no forward"),
    ]


def test_bad_calls(device):
    for call, exc, pattern in _bad_calls(device):
        with pytest.raises(exc, match=pattern):
            call()


def test_device_mismatch(device):
    if device.type == "cpu":
        pytest.skip("needs a second device (the catalogue covers cpu:1 against cpu)")
    m = nn.GRU(3, 4)
    with pytest.raises(pdt.DeviceError, match=rf"GRU: the input is on {device} but the "
                                               rf"module's parameters are on cpu"):
        m(pdt.zeros(5, 2, 3, device=device))
    m.to(device)
    with pytest.raises(pdt.DeviceError, match=rf"GRU: the input is on {device} but h0 is "
                                               rf"on cpu"):
        m(pdt.zeros(5, 2, 3, device=device), pdt.zeros(1, 2, 4))
    with pytest.raises(pdt.DeviceError, match=r"LSTMCell: the input is on cpu but the "
                                               rf"module's parameters are on {device}"):
        nn.LSTMCell(3, 4, device=device)(pdt.zeros(2, 3))


@pytest.mark.parametrize("make,exc,pattern", [
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     r"unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="gelu"), ValueError, r"unknown nonlinearity"),
    (lambda: nn.GRU(3, 0), ValueError, r"GRU: hidden_size must be greater than zero, got 0"),
    (lambda: nn.LSTM(3, 4, num_layers=0), ValueError, r"num_layers must be greater than zero"),
    (lambda: nn.GRU(3, 4.0), TypeError, r"GRU: hidden_size must be an int, got float"),
    (lambda: nn.GRU(-1, 4), ValueError, r"input_size must be greater than zero, got -1"),
    (lambda: nn.GRU(0, 4), ValueError, r"GRU: input_size must be greater than zero, got 0"),
    (lambda: nn.GRUCell(-1, 4), ValueError, r"GRUCell: input_size must be >= 0, got -1"),
    (lambda: nn.GRU(3, 4, num_layers=2, dropout=1.5), ValueError,
     r"dropout should be a number in range \[0, 1\].*got 1.5"),
    (lambda: nn.GRU(3, 4, num_layers=2, dropout="0.1"), ValueError, r"got '0.1'"),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError,
     r"LSTM: proj_size has to be smaller than hidden_size, got proj_size=4 and "
     r"hidden_size=4"),
    (lambda: nn.RNNBase("GRU", 3, 4, proj_size=2), ValueError,
     r"proj_size argument is only supported for LSTM, not RNN or GRU"),
    (lambda: nn.RNNBase("CELL", 3, 4), ValueError, r"unrecognized RNN mode 'CELL'"),
    (lambda: nn.GRUCell(3, -4), ValueError, r"GRUCell: hidden_size must be greater than zero"),
])
def test_bad_construction(make, exc, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=pattern):
            make()


# ---- D2L: a GRU language model trains ----

class _LanguageModel(nn.Module):
    """D2L's RNNModel: one-hot tokens, a recurrent layer, a linear output layer."""

    def __init__(self, vocab, hidden, device):
        super().__init__()
        self.vocab = vocab
        self.rnn = nn.GRU(vocab, hidden, device=device)
        self.linear = nn.Linear(hidden, vocab, device=device)

    def forward(self, inputs, state=None):
        X = F.one_hot(inputs.T, self.vocab).to(pdt.float32)   # (L, N, vocab)
        Y, state = self.rnn(X, state)
        return self.linear(Y.reshape(-1, Y.shape[-1])), state


def test_d2l_gru_language_model_loss_falls(device):
    pdt.manual_seed(0)
    rng = np.random.default_rng(0)
    corpus = np.tile(rng.integers(0, 10, size=13), 20)     # a pattern to learn
    steps, batch = 8, 8
    net = _LanguageModel(10, 32, device)
    loss_fn = nn.CrossEntropyLoss()
    trainer = pdt.optim.SGD(net.parameters(), lr=1.0)
    losses = []
    for _ in range(30):
        starts = rng.integers(0, len(corpus) - steps - 1, size=batch)
        X = np.stack([corpus[s:s + steps] for s in starts])
        Y = np.stack([corpus[s + 1:s + steps + 1] for s in starts])
        X, Y = pdt.tensor(X, device=device), pdt.tensor(Y, device=device)
        y_hat, _ = net(X)
        loss = loss_fn(y_hat, Y.T.reshape(-1))
        trainer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        trainer.step()
        losses.append(float(loss))
    assert all(p.grad.device == device for p in net.parameters())
    assert np.mean(losses[-5:]) < 0.75 * np.mean(losses[:5]), losses


def test_d2l_init_seq2seq_reads_flat_weights_names(device):
    """D2L's init_seq2seq: xavier_uniform_ on every weight named in _flat_weights_names."""
    gru = nn.GRU(4, 6, num_layers=2, device=device)
    for name in gru._flat_weights_names:
        if "weight" in name:
            nn.init.xavier_uniform_(gru._parameters[name])
    bound = math.sqrt(6 / (4 + 18))
    assert float(gru.weight_ih_l0.abs().max()) <= bound
    out, _ = gru(pdt.randn(3, 2, 4, device=device))
    assert autograd.grad(out.sum(), [gru.weight_hh_l1])[0].device == device


# ---- API details of PyTorch's recurrent modules ----

def test_all_weights_and_flat_weights_match_torch_layout(device):
    gru = nn.GRU(3, 4, num_layers=2, bidirectional=True, device=device)
    names = [[n for n, _ in gru.named_parameters()][k:k + 4] for k in range(0, 16, 4)]
    assert [[id(w) for w in layer] for layer in gru.all_weights] == \
        [[id(getattr(gru, n)) for n in layer] for layer in names]
    assert [id(w) for w in gru._flat_weights] == [id(p) for p in gru.parameters()]
    no_bias = nn.LSTM(3, 4, bias=False, device=device)
    assert [tuple(w.shape) for w in no_bias.all_weights[0]] == [(16, 3), (16, 4)]
    torch = torch_or_skip()
    tg = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    assert [[tuple(w.shape) for w in layer] for layer in tg.all_weights] == \
        [[tuple(w.shape) for w in layer] for layer in gru.all_weights]
    assert len(tg._flat_weights) == len(gru._flat_weights)


def _weight_drop_mask(shape, device, p=0.5, seed=3):
    keep = np.random.default_rng(seed).random(shape) >= p
    return keep, pdt.tensor(keep.astype(np.float64) / (1 - p), device=device)


@pytest.mark.parametrize("mode", ["gru", "lstm"])
def test_weight_drop_replaces_a_weight_by_a_plain_tensor(device, mode):
    """AWD-LSTM's weight drop: the parameter is deleted and a masked copy assigned as a
    plain attribute before each forward; the forward uses it and the gradient reaches
    the raw weight through the mask."""
    cls, kw = MODES[mode]
    m = cls(3, 4, dtype=pdt.float64, device=device, **kw)
    raw = nn.Parameter(m.weight_hh_l0.detach().clone())
    keep, mask = _weight_drop_mask(tuple(raw.shape), device)
    params = numpy_params(m)
    del m.weight_hh_l0
    m.weight_hh_l0 = raw * mask
    x = np.random.default_rng(0).standard_normal((5, 2, 3))
    out, _ = m(pdt.tensor(x, device=device))
    params["weight_hh_l0"] = params["weight_hh_l0"] * keep * 2
    c0 = np.zeros((1, 2, 4)) if mode == "lstm" else None
    ref, _, _ = ref_rnn(mode, x, np.zeros((1, 2, 4)), c0, params, 1, 1)
    close(out, ref)
    out.sum().backward()
    g = raw.grad.cpu().numpy()
    assert np.all(g[~keep] == 0) and np.any(g[keep] != 0)
    cell = CELLS[mode][0](3, 4, dtype=pdt.float64, device=device)
    w = cell.weight_hh.detach().clone()
    del cell.weight_hh
    cell.weight_hh = w * 0
    hc = cell(pdt.tensor(x[0], device=device))
    want = ref_step(mode, x[0], np.zeros((2, 4)), np.zeros((2, 4)),
                    cell.weight_ih.detach().cpu().numpy(), np.zeros((len(w), 4)),
                    cell.bias_ih.detach().cpu().numpy(), cell.bias_hh.detach().cpu().numpy())
    close(hc[0] if mode == "lstm" else hc, want[0])


def test_rnn_cell_reads_nonlinearity_at_the_call(device):
    cell = nn.RNNCell(3, 4, dtype=pdt.float64, device=device)
    x = np.random.default_rng(1).standard_normal((2, 3)) * 3
    params = {k: v.detach().cpu().numpy() for k, v in cell.named_parameters()}
    cell.nonlinearity = "relu"
    want, _ = ref_step("rnn_relu", x, np.zeros((2, 4)), None, params["weight_ih"],
                       params["weight_hh"], params["bias_ih"], params["bias_hh"])
    close(cell(pdt.tensor(x, device=device)), want)
    assert "nonlinearity=relu" in repr(cell)
    cell.nonlinearity = "sigmoid"
    with pytest.raises(RuntimeError, match=r"RNNCell: unknown nonlinearity 'sigmoid'"):
        cell(pdt.tensor(x, device=device))


def test_cells_take_input_size_zero_layers_do_not(device):
    """As PyTorch: a cell of input_size 0 is the hidden-to-hidden map alone."""
    cell = nn.GRUCell(0, 4, dtype=pdt.float64, device=device)
    h = pdt.tensor(np.random.default_rng(2).standard_normal((2, 4)), device=device)
    p = {k: v.detach().cpu().numpy() for k, v in cell.named_parameters()}
    want, _ = ref_step("gru", np.zeros((2, 0)), h.cpu().numpy(), None, p["weight_ih"],
                       p["weight_hh"], p["bias_ih"], p["bias_hh"])
    close(cell(pdt.zeros(2, 0, dtype=pdt.float64, device=device), h), want)
    for cls in (nn.RNN, nn.GRU, nn.LSTM):
        with pytest.raises(ValueError, match="input_size must be greater than zero"):
            cls(0, 4, device=device)


@pytest.mark.parametrize("num_layers,bidirectional", LAYOUTS)
@pytest.mark.parametrize("form", ["batched", "batch_first_h0", "unbatched_h0", "packed"])
def test_lstm_with_projections_matches_numpy(device, num_layers, bidirectional, form):
    """proj_size (LSTMP, PyTorch's): h = W_hr (o * tanh(c)) of size P after each step,
    so W_hh is (4H, P), the next layer reads D * P features, h0/h_n have P and c H."""
    rng = np.random.default_rng(num_layers * 10 + bidirectional)
    lstm = nn.LSTM(3, 5, num_layers=num_layers, bidirectional=bidirectional, proj_size=2,
                   batch_first=form == "batch_first_h0", dtype=pdt.float64, device=device)
    d = 2 if bidirectional else 1
    names = [n for n, _ in lstm.named_parameters()]
    assert "weight_hr_l0" in names and tuple(lstm.weight_hr_l0.shape) == (2, 5)
    assert tuple(lstm.weight_hh_l0.shape) == (20, 2)
    if num_layers == 2:
        assert tuple(lstm.weight_ih_l1.shape) == (20, 2 * d)
    params = numpy_params(lstm)
    x = rng.standard_normal((4, 2, 3))
    h0 = rng.standard_normal((num_layers * d, 2, 2))
    c0 = rng.standard_normal((num_layers * d, 2, 5))
    out, h_n, c_n = ref_rnn("lstm", x, h0, c0, params, num_layers, d)
    t = lambda a: pdt.tensor(a, device=device)  # noqa: E731
    if form == "batched":
        got, (gh, gc) = lstm(t(x), (t(h0), t(c0)))
    elif form == "batch_first_h0":
        got, (gh, gc) = lstm(t(x.swapaxes(0, 1)), (t(h0), t(c0)))
        got = got.transpose(0, 1)
    elif form == "unbatched_h0":
        got, (gh, gc) = lstm(t(x[:, 0]), (t(h0[:, 0]), t(c0[:, 0])))
        out, h_n, c_n = out[:, 0], h_n[:, 0], c_n[:, 0]
    else:  # the full-length packed batch: the same steps
        packed = nn.utils.rnn.pack_padded_sequence(t(x), [4, 4])
        got, (gh, gc) = lstm(packed, (t(h0), t(c0)))
        got = nn.utils.rnn.pad_packed_sequence(got)[0]
    close(got, out)
    close(gh, h_n)
    close(gc, c_n)
    assert "proj_size=2" in repr(lstm)


def test_lstm_with_projections_gradients(device):
    lstm = nn.LSTM(2, 3, proj_size=2, dtype=pdt.float64, device=device)
    names = [n for n, _ in lstm.named_parameters()]
    x = np.random.default_rng(3).standard_normal((3, 1, 2))
    params = [p.detach().cpu().numpy() for p in lstm.parameters()]

    def fn(xt, *ps):
        out = _with_params(lstm, names, xt, None, ps)
        return out[0]

    gradcheck(fn, [x] + params, device)

