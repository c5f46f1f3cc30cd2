"""nn.TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
TransformerDecoder and Transformer on every device:

- against PyTorch when it can be imported: a PyTorch module's state_dict loaded by name
  through NumPy (the keys must be identical), outputs in evaluation mode and every
  gradient (dropout 0) compared in float64 within 1e-10 + 1e-10 |ref| (the same float64
  sums in another order; PyTorch's fused fast path is switched off, since it gives zeros
  at padded positions), for post- and pre-norm, relu, gelu and a callable activation,
  batch_first, bias=False, causal masks and key padding masks, unbatched input;
- the encoder layer against a NumPy float64 reference written here (1e-12);
- PyTorch's reprs, state_dict keys and initialisation (Xavier uniform on matrices),
  generate_square_subsequent_mask, dropout only in training, bad input.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, TORCH_CHECKED, torch_or_skip
from pydevtensor import nn

TOL64 = 1e-12
TORCH64 = 1e-10
pytestmark = [pytest.mark.filterwarnings("ignore:Support for mismatched"),
              pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")]


def _np(t):
    return t.detach().cpu().numpy()


def _t(a, device):
    return pdt.from_numpy(np.ascontiguousarray(a)).to(device)


def _close(got, ref, tol=TOL64):
    got = _np(got)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    err = np.abs(got - ref)
    assert np.all(err <= tol + tol * np.abs(ref)), err.max()


@pytest.fixture
def torch_slow_path():
    """torch with its MHA/encoder fast path off (it is taken in evaluation mode without
    grad, and gives zeros at padded positions through nested tensors)."""
    torch = torch_or_skip(since=TORCH_CHECKED)  # LayerNorm's repr names bias= since
    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    yield torch
    torch.backends.mha.set_fastpath_enabled(before)


def _load(ours, theirs, device):
    state = {k: pdt.from_numpy(v.detach().numpy().copy()).to(device)
             for k, v in theirs.state_dict().items()}
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict(state)


def _compare_grads(ours, theirs):
    theirs_grads = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        _close(p.grad, theirs_grads[name].grad.numpy(), TORCH64)


OPTIONS = {"post-norm": {}, "pre-norm": {"norm_first": True},
           "gelu batch_first": {"activation": "gelu", "batch_first": True},
           "no bias": {"bias": False}, "eps": {"layer_norm_eps": 1e-3}}


def _seq(rng, length, options, batched=True):
    if not batched:
        return rng.standard_normal((length, 8))
    shape = (3, length, 8) if options.get("batch_first") else (length, 3, 8)
    return rng.standard_normal(shape)


def _padding(rng):
    pad = np.zeros((3, 6), dtype=bool)
    pad[0, 4:] = True
    pad[2, 5] = True
    return pad


@pytest.mark.parametrize("option", list(OPTIONS))
def test_encoder_layer_matches_torch(device, torch_slow_path, option):
    torch, options = torch_slow_path, OPTIONS[option]
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64,
                                              **options)
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=pdt.float64, device=device,
                                      **options)
    _load(ours, theirs, device)
    rng = np.random.default_rng(0)
    src = _seq(rng, 6, options)
    pad = _padding(rng)
    mask = np.triu(np.full((6, 6), -np.inf), 1)
    x = _t(src, device).requires_grad_()
    tx = torch.from_numpy(src).requires_grad_()
    out = ours(x, src_mask=_t(mask, device), src_key_padding_mask=_t(pad, device))
    tout = theirs(tx, src_mask=torch.from_numpy(mask), src_key_padding_mask=torch.from_numpy(pad))
    _close(out, tout.detach().numpy(), TORCH64)
    g = rng.standard_normal(tuple(out.shape))
    out.backward(_t(g, device))
    tout.backward(torch.from_numpy(g))
    _close(x.grad, tx.grad.numpy(), TORCH64)
    _compare_grads(ours, theirs)


@pytest.mark.parametrize("option", list(OPTIONS))
def test_decoder_layer_matches_torch(device, torch_slow_path, option):
    torch, options = torch_slow_path, OPTIONS[option]
    theirs = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64,
                                              **options)
    ours = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=pdt.float64, device=device,
                                      **options)
    _load(ours, theirs, device)
    rng = np.random.default_rng(1)
    tgt, mem = _seq(rng, 4, options), _seq(rng, 6, options)
    pad = _padding(rng)
    causal = np.triu(np.ones((4, 4), dtype=bool), 1)
    args = [_t(a, device).requires_grad_() for a in (tgt, mem)]
    targs = [torch.from_numpy(a).requires_grad_() for a in (tgt, mem)]
    out = ours(*args, tgt_mask=_t(causal, device), memory_key_padding_mask=_t(pad, device),
               tgt_is_causal=True)
    tout = theirs(*targs, tgt_mask=torch.from_numpy(causal),
                  memory_key_padding_mask=torch.from_numpy(pad), tgt_is_causal=True)
    _close(out, tout.detach().numpy(), TORCH64)
    g = rng.standard_normal(tuple(out.shape))
    out.backward(_t(g, device))
    tout.backward(torch.from_numpy(g))
    for a, b in zip(args, targs):
        _close(a.grad, b.grad.numpy(), TORCH64)
    _compare_grads(ours, theirs)


@pytest.mark.parametrize("option", ["post-norm", "pre-norm", "gelu batch_first"])
def test_transformer_matches_torch(device, torch_slow_path, option):
    torch, options = torch_slow_path, OPTIONS[option]
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.1, dtype=torch.float64,
                                  **options).eval()
    ours = nn.Transformer(8, 2, 2, 2, 16, dropout=0.1, dtype=pdt.float64, device=device,
                          **options).eval()
    _load(ours, theirs, device)
    rng = np.random.default_rng(2)
    src, tgt = _seq(rng, 6, options), _seq(rng, 4, options)
    pad = _padding(rng)
    mask = nn.Transformer.generate_square_subsequent_mask(4, device=device, dtype=pdt.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    out = ours(_t(src, device), _t(tgt, device), tgt_mask=mask,
               src_key_padding_mask=_t(pad, device), memory_key_padding_mask=_t(pad, device))
    with torch.no_grad():
        tout = theirs(torch.from_numpy(src), torch.from_numpy(tgt), tgt_mask=tmask,
                      src_key_padding_mask=torch.from_numpy(pad),
                      memory_key_padding_mask=torch.from_numpy(pad))
    _close(out, tout.numpy(), TORCH64)
    # unbatched
    out = ours(_t(src[:, 0] if not options.get("batch_first") else src[0], device),
               _t(tgt[:, 0] if not options.get("batch_first") else tgt[0], device))
    with torch.no_grad():
        tout = theirs(torch.from_numpy(src[:, 0] if not options.get("batch_first") else src[0]),
                      torch.from_numpy(tgt[:, 0] if not options.get("batch_first") else tgt[0]))
    _close(out, tout.numpy(), TORCH64)


def test_encoder_and_decoder_stacks_match_torch(device, torch_slow_path):
    torch = torch_slow_path
    theirs_e = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.GELU(),
                                         dtype=torch.float64), 3,
        norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False).eval()
    ours_e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(),
                                                              dtype=pdt.float64), 3,
                                   norm=nn.LayerNorm(8, dtype=pdt.float64)).to(device).eval()
    _load(ours_e, theirs_e, device)
    theirs_d = torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(8, 2, 16, dtype=torch.float64), 2).eval()
    ours_d = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dtype=pdt.float64),
                                   2).to(device).eval()
    _load(ours_d, theirs_d, device)
    rng = np.random.default_rng(3)
    src, tgt = rng.standard_normal((6, 3, 8)), rng.standard_normal((4, 3, 8))
    mem = ours_e(_t(src, device), src_key_padding_mask=_t(_padding(rng), device))
    with torch.no_grad():
        tmem = theirs_e(torch.from_numpy(src),
                        src_key_padding_mask=torch.from_numpy(_padding(rng)))
        tout = theirs_d(torch.from_numpy(tgt), tmem,
                        tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(
                            4, dtype=torch.float64))
    _close(mem, tmem.numpy(), TORCH64)
    out = ours_d(_t(tgt, device), mem,
                 tgt_mask=nn.Transformer.generate_square_subsequent_mask(4, device=device,
                                                                         dtype=pdt.float64))
    _close(out, tout.numpy(), TORCH64)
    assert repr(ours_e) == repr(theirs_e) and repr(ours_d) == repr(theirs_d)


def _ln(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def test_encoder_layer_matches_numpy(device):
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=pdt.float64, device=device)
    p = {k: _np(v) for k, v in layer.state_dict().items()}
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 2, 4))
    wq, wk, wv = np.split(p["self_attn.in_proj_weight"], 3)
    bq, bk, bv = np.split(p["self_attn.in_proj_bias"], 3)
    heads = []
    for h in range(2):
        sl = slice(2 * h, 2 * h + 2)
        q, k, v = ((x @ w.T + b)[..., sl].transpose(1, 0, 2) for w, b in
                   ((wq, bq), (wk, bk), (wv, bv)))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(2)
        a = np.exp(s - s.max(-1, keepdims=True))
        heads.append((a / a.sum(-1, keepdims=True)) @ v)
    att = np.concatenate(heads, -1).transpose(1, 0, 2) @ p["self_attn.out_proj.weight"].T + \
        p["self_attn.out_proj.bias"]
    y = _ln(x + att, p["norm1.weight"], p["norm1.bias"])
    ff = np.maximum(y @ p["linear1.weight"].T + p["linear1.bias"], 0) @ p["linear2.weight"].T \
        + p["linear2.bias"]
    _close(layer(_t(x, device)), _ln(y + ff, p["norm2.weight"], p["norm2.bias"]))


def test_state_dict_keys_and_reprs_are_torchs(torch_slow_path):
    torch = torch_slow_path
    pairs = [
        (nn.TransformerEncoderLayer(8, 2, 16), torch.nn.TransformerEncoderLayer(8, 2, 16)),
        (nn.TransformerDecoderLayer(8, 2, 16, norm_first=True, bias=False),
         torch.nn.TransformerDecoderLayer(8, 2, 16, norm_first=True, bias=False)),
        (nn.Transformer(8, 2, 1, 2, 16), torch.nn.Transformer(8, 2, 1, 2, 16)),
        (nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()),
         torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.GELU())),
    ]
    for ours, theirs in pairs:
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [tuple(v.shape) for v in ours.state_dict().values()] == \
            [tuple(v.shape) for v in theirs.state_dict().values()]
        assert repr(ours) == repr(theirs)


def test_transformer_init_and_mask(device):
    model = nn.Transformer(16, 4, 1, 1, 32, device=device)
    for name, p in model.named_parameters():
        values = np.abs(_np(p))
        if p.ndim > 1:  # Xavier uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out))
            assert values.max() <= math.sqrt(6.0 / sum(p.shape)), name
    mask = nn.Transformer.generate_square_subsequent_mask(4, device=device)
    assert mask.dtype == pdt.float32 and mask.device == device
    np.testing.assert_array_equal(_np(mask), np.triu(np.full((4, 4), -np.inf), 1))
    assert tuple(nn.Transformer.generate_square_subsequent_mask(0).shape) == (0, 0)


def test_dropout_only_in_training(device):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5, device=device)
    x = pdt.randn(5, 2, 8, device=device)
    pdt.manual_seed(1)
    a = layer(x)
    pdt.manual_seed(1)
    np.testing.assert_array_equal(_np(a), _np(layer(x)))
    pdt.manual_seed(2)
    assert not np.array_equal(_np(a), _np(layer(x)))
    layer.eval()
    np.testing.assert_array_equal(_np(layer(x)), _np(layer(x)))


def test_bad_input(device):
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(AssertionError, match="divisible"):
        nn.TransformerDecoderLayer(10, 3)
    model = nn.Transformer(8, 2, 1, 1, 16, device=device)
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(pdt.ones(5, 2, 8, device=device), pdt.ones(4, 3, 8, device=device))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal"):
        model(pdt.ones(5, 2, 8, device=device), pdt.ones(4, 2, 6, device=device))
    layer = nn.TransformerEncoderLayer(8, 2, 16, device=device)
    with pytest.raises(ValueError, match=r"\(L, N, 8\).*\(5, 2, 7\)"):
        layer(pdt.ones(5, 2, 7, device=device))
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        layer(pdt.ones(5, 2, 8, device=device), src_mask=pdt.zeros(4, 4, device=device))
    with pytest.raises(ValueError, match="num_layers"):
        nn.TransformerEncoder(layer, -1)
    if CUDA_DEVICES:
        other = "cpu" if device.type != "cpu" else CUDA_DEVICES[0]
        with pytest.raises(RuntimeError, match="device"):
            layer(pdt.ones(5, 2, 8, device=other))


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_attention_and_transformer_read_nothing_back(device):
    """Masks, the safe softmax and the layers run on the device: no device-to-host copy
    (disallow_explicit would refuse one), forward and backward."""
    model = nn.Transformer(8, 2, 1, 1, 16, device=device)
    src, tgt = pdt.randn(6, 3, 8, device=device), pdt.randn(4, 3, 8, device=device)
    pad = pdt.zeros(3, 6, dtype=pdt.bool, device=device)
    pad[0, 4:] = True
    mask = nn.Transformer.generate_square_subsequent_mask(4, device=device)
    mha = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, device=device)
    q = pdt.randn(2, 4, 8, device=device, requires_grad=True)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow_explicit"):
        out = model(src, tgt, tgt_mask=mask, src_key_padding_mask=pad,
                    memory_key_padding_mask=pad)
        out.backward(pdt.ones_like(out))
        out, w = mha(tgt, src, src, key_padding_mask=pad)
        out.backward(pdt.ones_like(out))
        o = nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True, dropout_p=0.1)
        o.backward(pdt.ones_like(o))
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0


@pytest.mark.parametrize("option", list(OPTIONS))
def test_transformer_same_on_every_device(device, option):
    """A Transformer moved to device gives the CPU's outputs and gradients (float64,
    1e-12), with masks and padding: runs without PyTorch, so the emulated CUDA device
    checks every option."""
    options = OPTIONS[option]
    pdt.manual_seed(4)
    cpu = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, dtype=pdt.float64, **options)
    moved = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, dtype=pdt.float64, **options)
    moved.load_state_dict(cpu.state_dict())
    moved.to(device)
    rng = np.random.default_rng(9)
    src, tgt = _seq(rng, 6, options), _seq(rng, 4, options)
    pad = _padding(rng)
    results = []
    for m, d in ((cpu, pdt.device("cpu")), (moved, device)):
        xs = [_t(a, d).requires_grad_() for a in (src, tgt)]
        mask = nn.Transformer.generate_square_subsequent_mask(4, device=d, dtype=pdt.float64)
        out = m(*xs, tgt_mask=mask, src_key_padding_mask=_t(pad, d),
                memory_key_padding_mask=_t(pad, d), tgt_is_causal=True)
        (out * out).sum().backward()
        results.append([out] + [x.grad for x in xs] + [p.grad for p in m.parameters()])
    for a, b in zip(*results):
        _close(b, _np(a))
