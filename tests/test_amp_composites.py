"""Autocast and ops made of listed ops here that are one kernel in PyTorch (the
reduced-precision review against PyTorch 2.15): their inner products must not be
lowered, and the linear algebra on PyTorch's CPU float32 list runs in float32.
Against the same call without autocast (NumPy's float64 for the exponential)."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F


def _kind(device):
    return "cuda" if device.type == "cuda" else "cpu"


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_matrix_exp_under_autocast_is_the_input_dtypes(device, low):
    """matrix_exp was composed of @ and solve, which autocast lowered: NaN in float16
    (the Pade coefficients overflow above a 1-norm of ~0.95), 0.3% off in bfloat16; it
    runs in its input dtype now, as PyTorch's (on no list)."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    w, v = np.linalg.eig(a)
    want = (v @ np.diag(np.exp(w)) @ np.linalg.inv(v)).real
    x = pdt.tensor(a, dtype=pdt.float32, device=device)
    with pdt.autocast(_kind(device), dtype=getattr(pdt, low)):
        got = pdt.linalg.matrix_exp(x)
    assert got.dtype == pdt.float32
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5)


def test_listed_linear_algebra_runs_in_float32_on_the_cpu(device):
    """householder_product was lowered inside (1926.2 became 1921.0), inv_ex refused
    bfloat16, LowRankMultivariateNormal.log_prob raised a dtype mismatch in
    solve_triangular; all three are on PyTorch's CPU float32 list."""
    if _kind(device) != "cpu":
        pytest.skip("PyTorch's CPU float32 list; CUDA autocast has other lists")
    h = pdt.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]], device=device)
    tau = pdt.tensor([1.2, 0.5], device=device)
    d = pdt.distributions.LowRankMultivariateNormal(
        pdt.zeros(3, device=device), pdt.ones(3, 1, device=device), pdt.ones(3, device=device))
    plain = (pdt.linalg.householder_product(h, tau), d.log_prob(pdt.ones(3, device=device)))
    with pdt.autocast(_kind(device)):
        got = (pdt.linalg.householder_product(h, tau), d.log_prob(pdt.ones(3, device=device)))
        inv = pdt.linalg.inv_ex(pdt.eye(2, device=device).bfloat16())[0]
    for g, p in zip(got, plain):
        assert g.dtype == pdt.float32
        np.testing.assert_allclose(g.cpu().numpy(), p.cpu().numpy(), rtol=1e-6)
    assert inv.dtype == pdt.float32


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_running_statistics_are_updated_in_float32(device, dtype):
    """A float16 running_var took the unbiased batch variance (180000) in float16, inf;
    the update is computed in float32 and rounded once, as PyTorch's (18000 for
    momentum 0.1), and the running mean of 99.3 within the half's precision."""
    half = getattr(pdt, dtype)
    x = pdt.tensor([[300.0], [-300.0]], device=device).to(half)
    rm, rv = pdt.zeros(1, device=device).to(half), pdt.ones(1, device=device).to(half)
    pdt.nn.functional.batch_norm(x, rm, rv, training=True)
    want = np.array([0.9 + 0.1 * 180000.0], dtype=np.float32)
    assert rv.float().cpu().numpy() == pytest.approx(want, rel=4e-3)
    layer = pdt.nn.BatchNorm1d(1).to(device).to(half)
    layer(pdt.tensor([[99.3], [99.3]], device=device).to(half))
    exact = 0.1 * 99.3  # one rounding of the float32 update, within the half's precision
    assert abs(layer.running_mean.float().item() - exact) <= exact * 2 ** -6


def _lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    """NumPy's local response norm across channels (dim 1), channels past the ends 0."""
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    s = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha / size * s) ** beta


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_local_response_norm_of_4d_half_input_is_float32_on_the_cpu(device, low):
    """PyTorch's local_response_norm pools a 4-d (or larger) input with avg_pool3d, on
    its CPU float32 list: a half input gave the half here, float32 there; a 3-d input
    (avg_pool2d, on no list) keeps its dtype."""
    half = getattr(pdt, low)
    a = np.linspace(-3, 3, 2 * 5 * 3 * 2).reshape(2, 5, 3, 2)
    x = pdt.tensor(a, device=device).to(half)
    exact = _lrn(x.double().cpu().numpy(), 3, alpha=0.5)
    with pdt.autocast(_kind(device), dtype=half):
        got = pdt.nn.functional.local_response_norm(x, 3, alpha=0.5)
        got3 = pdt.nn.LocalResponseNorm(3, alpha=0.5)(x[:, :, :, 0])
    assert got.dtype == (pdt.float32 if _kind(device) == "cpu" else half)
    assert got3.dtype == half
    np.testing.assert_allclose(got.double().cpu().numpy(), exact, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(got3.double().cpu().numpy(), exact[..., 0], rtol=1e-2,
                               atol=1e-2)


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_chain_matmul_products_are_lowered(device, low):
    """chain_matmul is on CUDA's lower list and made of mm on PyTorch's CPU: its result
    is the autocast dtype on both (it stayed float32 on the CPU here)."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 5)), rng.standard_normal((5, 5))
    tx, tw = (pdt.tensor(v, dtype=pdt.float32, device=device) for v in (x, w))
    with pdt.autocast(_kind(device), dtype=getattr(pdt, low)):
        got = pdt.chain_matmul(tx, tw, tw)
    assert got.dtype == getattr(pdt, low)
    want = x @ w @ w
    np.testing.assert_allclose(got.double().cpu().numpy(), want, atol=0.05 * abs(want).max())


@pytest.mark.parametrize("layers, bidirectional", [(1, False), (2, False), (2, True)])
def test_cpu_lstm_under_autocast_is_the_autocast_dtype(device, layers, bidirectional):
    """PyTorch's CPU LSTM is one mkldnn kernel per layer on the lower list: output, h_n
    and c_n are bfloat16 under CPU autocast (float32 here before); the values are the
    float32 run's within bfloat16's precision, and the float32 weights get gradients.
    With proj_size (not that kernel) c_n stays float32, as PyTorch's."""
    if _kind(device) != "cpu":
        pytest.skip("PyTorch's CPU kernel; CUDA autocast is another list")
    pdt.manual_seed(0)
    lstm = pdt.nn.LSTM(4, 6, num_layers=layers, bidirectional=bidirectional)
    x = pdt.tensor(np.linspace(-2, 2, 5 * 3 * 4).reshape(5, 3, 4), dtype=pdt.float32)
    want, (wh, wc) = lstm(x)
    with pdt.autocast("cpu"):
        got, (h, c) = lstm(x)
        unbatched = lstm(x[:, 0])[1][1]
    for g, w in ((got, want), (h, wh), (c, wc)):
        assert g.dtype == pdt.bfloat16
        np.testing.assert_allclose(g.float().detach().numpy(), w.detach().numpy(),
                                   atol=2e-2)
    assert unbatched.dtype == pdt.bfloat16 and unbatched.shape == wc[:, 0].shape
    got.float().sum().backward()
    assert lstm.weight_ih_l0.grad.dtype == pdt.float32
    assert float(lstm.weight_ih_l0.grad.abs().sum()) > 0
    proj = pdt.nn.LSTM(4, 6, proj_size=2, num_layers=layers, bidirectional=bidirectional)
    with pdt.autocast("cpu"):
        out, (h, c) = proj(x)
    assert (out.dtype, h.dtype, c.dtype) == (pdt.bfloat16, pdt.bfloat16, pdt.float32)


@pytest.mark.parametrize("layers, bidirectional", [(1, False), (2, True)])
def test_bfloat16_cpu_lstm_rounds_once_a_layer(device, layers, bidirectional):
    """PyTorch's CPU LSTM runs a bfloat16 input as under autocast, one mkldnn kernel a
    layer (float32 sums, each layer's output rounded once); here it rounded after every
    op, twice PyTorch's error (2 layers, H=16: 2.5e-3 against 1.0e-3 from the float64
    answer).  It is now the float32 layers on the bfloat16 values, each layer's output
    rounded to bfloat16, bit for bit; the bfloat16 weights get bfloat16 gradients.
    (float16 and the GRU keep the composition, as PyTorch's.)"""
    if _kind(device) != "cpu":
        pytest.skip("PyTorch's CPU kernel; the CUDA layers keep the composition")
    pdt.manual_seed(0)
    lstm = pdt.nn.LSTM(4, 6, num_layers=layers, bidirectional=bidirectional).bfloat16()
    x = pdt.tensor(np.linspace(-2, 2, 5 * 3 * 4).reshape(5, 3, 4), dtype=pdt.bfloat16)
    got, (h, c) = lstm(x)
    assert (got.dtype, h.dtype, c.dtype) == (pdt.bfloat16,) * 3
    want, finals = x.float(), []
    for k in range(layers):  # each layer alone, in float32 on the bfloat16 values
        one = pdt.nn.LSTM(want.shape[-1], 6, bidirectional=bidirectional)
        one.load_state_dict({n: getattr(lstm, n.replace("_l0", f"_l{k}")).float()
                             for n, _ in one.named_parameters()})
        out, (hk, ck) = one(want)
        want = out.bfloat16().float()
        finals.append((hk, ck))
    assert np.array_equal(got.float().detach().numpy(), want.detach().numpy())
    for g, w in ((h, pdt.cat([f[0] for f in finals])), (c, pdt.cat([f[1] for f in finals]))):
        assert np.array_equal(g.float().detach().numpy(), w.bfloat16().float().detach().numpy())
    got.float().sum().backward()
    assert lstm.weight_hh_l0.grad.dtype == pdt.bfloat16
    assert float(lstm.weight_hh_l0.grad.float().abs().sum()) > 0


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_half_input_of_float32_recurrent_layer_under_autocast(device, mode):
    """Under autocast PyTorch skips the recurrent layers' input dtype check (their
    products cast it): a bfloat16 input of a float32 layer was refused here.  The
    results are the float32 run's within bfloat16's precision; outside autocast the
    mismatch is still refused."""
    if _kind(device) != "cpu":
        pytest.skip("checked against PyTorch's CPU autocast; CUDA autocast is another list")
    pdt.manual_seed(0)
    layer = getattr(pdt.nn, mode)(4, 6, num_layers=2).to(device)
    x = pdt.tensor(np.linspace(-2, 2, 5 * 3 * 4).reshape(5, 3, 4), dtype=pdt.float32,
                   device=device)
    want = layer(x)[0]
    with pdt.autocast(_kind(device)):
        got = layer(x.bfloat16())[0]
    assert got.dtype == pdt.bfloat16
    np.testing.assert_allclose(got.float().detach().cpu().numpy(),
                               want.detach().cpu().numpy(), atol=3e-2)
    with pytest.raises(ValueError, match="does not match weight dtype"):
        layer(x.bfloat16())


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_half_query_of_float32_multihead_attention_under_autocast(device, low, need_weights):
    """MultiheadAttention refused a half query with float32 parameters under autocast
    (its dtype check), where PyTorch lets its products cast them: the output is the
    autocast dtype, within the half type's precision of the float32 run, and the
    gradients reach the float32 parameters.  Outside autocast the mismatch is refused."""
    half = getattr(pdt, low)
    pdt.manual_seed(0)
    m = pdt.nn.MultiheadAttention(4, 2, batch_first=True).to(device)
    q = pdt.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)), dtype=half,
                   device=device)
    want, _ = m(q.float(), q.float(), q.float())
    with pdt.autocast(_kind(device), dtype=half):
        got, weights = m(q, q, q, need_weights=need_weights)
    assert got.dtype == half
    assert (weights is not None) == need_weights
    np.testing.assert_allclose(got.float().detach().cpu().numpy(),
                               want.detach().cpu().numpy(), atol=0.05, rtol=0.05)
    got.float().sum().backward()
    assert m.in_proj_weight.grad.dtype == pdt.float32
    assert np.isfinite(m.in_proj_weight.grad.cpu().numpy()).all()
    with pytest.raises(RuntimeError, match="parameters are"):
        m(q, q, q)


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_reflect_pad_of_three_dims_keeps_the_half_input_on_the_cpu(device, low):
    """A reflect F.pad of 6 sizes (PyTorch's reflection_pad3d, on no CPU list) of a half
    input returned float32; it keeps the input dtype, and its 1-d and 2-d reflect pads
    (on PyTorch's CPU float32 list) and replicate pads stay float32."""
    if _kind(device) != "cpu":
        pytest.skip("PyTorch's CPU float32 list")
    half = getattr(pdt, low)
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(1, 2, 3, 4, 5)
    x = pdt.tensor(a, dtype=half, device=device)
    with pdt.autocast("cpu", dtype=half):
        got = F.pad(x, (1, 1, 2, 1, 1, 2), mode="reflect")
        others = [F.pad(x[0], (1, 1, 2, 1), mode="reflect"), F.pad(x[0, 0], (1, 1), mode="reflect"),
                  F.pad(x, (1, 1, 2, 1, 1, 2), mode="replicate")]
    assert got.dtype == half
    want = np.pad(pdt.tensor(a, dtype=half).float().numpy(),
                  ((0, 0), (0, 0), (1, 2), (2, 1), (1, 1)), mode="reflect")
    np.testing.assert_array_equal(got.float().cpu().numpy(), want)
    assert [o.dtype for o in others] == [pdt.float32] * 3
