"""nn.utils.rnn (pad_sequence, PackedSequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpack_sequence, unpad_sequence) and the recurrent layers over a
PackedSequence, against NumPy and against torch (outputs, final states, gradients)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn.utils import rnn as R

TORCH_OUT = 2e-5   # float32 against torch
TORCH_GRAD = 1e-4


def _seqs(device, lengths, feat=2, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n, feat)) for n in lengths]
    return arrs, [pdt.tensor(a, device=device, requires_grad=True) for a in arrs]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_numpy_and_grad(device, batch_first, side):
    arrs, seqs = _seqs(device, [3, 1, 4])
    out = R.pad_sequence(seqs, batch_first=batch_first, padding_value=-2.5, padding_side=side)
    ref = np.full((3, 4, 2), -2.5)
    for b, a in enumerate(arrs):
        if side == "right":
            ref[b, :len(a)] = a
        else:
            ref[b, 4 - len(a):] = a
    assert_close(out, ref if batch_first else ref.transpose(1, 0, 2), "float64")
    assert out.device == seqs[0].device
    (out * out).sum().backward()
    for a, s in zip(arrs, seqs):
        assert_close(s.grad, 2 * a, "float64")


def test_pad_sequence_against_torch():
    torch = torch_or_skip()
    seqs = [np.arange(n * 2, dtype=np.float32).reshape(n, 2) for n in (2, 5, 3)]
    for kw in [{}, dict(batch_first=True), dict(padding_side="left", padding_value=7.0)]:
        ref = torch.nn.utils.rnn.pad_sequence([torch.tensor(a) for a in seqs], **kw)
        got = R.pad_sequence([pdt.tensor(a) for a in seqs], **kw)
        np.testing.assert_array_equal(got.numpy(), ref.numpy())


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence_returns_copies(device, batch_first):
    ref = np.arange(12.0).reshape(3, 4)  # (B, L)
    padded = pdt.tensor(ref if batch_first else ref.T.copy(), device=device)
    parts = R.unpad_sequence(padded, [4, 2, 1], batch_first=batch_first)
    for p in parts:
        assert p.is_contiguous()
        p.fill_(-1.0)
    assert_close(padded, ref if batch_first else ref.T, "float64")
    w = pdt.tensor(ref, device=device, requires_grad=True)
    sum(p.sum() * (b + 1) for b, p in enumerate(R.unpad_sequence(w, [4, 2, 1], True))).backward()
    assert_close(w.grad, [[1.0] * 4, [2.0, 2.0, 0, 0], [3.0, 0, 0, 0]], "float64")


def test_pad_sequence_casts_to_the_first_dtype(device):
    cases = [(pdt.zeros(2, device=device), pdt.ones(1, dtype=pdt.float64, device=device),
              pdt.float32, [[0.0, 1.0], [0.0, 0.5]]),
             (pdt.zeros(2, dtype=pdt.int64, device=device), pdt.tensor([1.7], device=device),
              pdt.int64, [[0, 1], [0, 0]]),
             (pdt.tensor([1.5, 2.5], device=device), pdt.tensor([3], device=device),
              pdt.float32, [[1.5, 3.0], [2.5, 0.5]]),
             (pdt.tensor([True], device=device), pdt.tensor([2.5, 0.0], device=device),
              pdt.bool, [[True, True], [True, False]])]
    for a, b, dtype, ref in cases:
        out = R.pad_sequence([a, b], padding_value=0.5)
        assert out.dtype == dtype and out.device == a.device
        assert out.tolist() == ref
    a = pdt.zeros(2, requires_grad=True, device=device)
    b = pdt.ones(1, dtype=pdt.float64, requires_grad=True, device=device)
    (R.pad_sequence([a, b], batch_first=True) * 3).sum().backward()
    assert b.grad.dtype == pdt.float64 and b.grad.tolist() == [3.0]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[4, 2, 2, 1], [2, 4, 1, 3]])
def test_pack_and_pad_round_trip(device, batch_first, lengths):
    sort = lengths == sorted(lengths, reverse=True)
    arrs, seqs = _seqs(device, lengths)
    padded = R.pad_sequence(seqs, batch_first=batch_first)
    for ls in (lengths, pdt.tensor(lengths)):
        packed = R.pack_padded_sequence(padded, ls, batch_first=batch_first,
                                        enforce_sorted=sort)
        assert isinstance(packed, tuple) and packed.data.device == padded.device
        assert packed.batch_sizes.device.type == "cpu" and packed.batch_sizes.dtype == pdt.int64
        order = sorted(range(4), key=lambda b: -lengths[b])
        ref = [arrs[b][t] for t in range(max(lengths)) for b in order if lengths[b] > t]
        assert_close(packed.data, np.array(ref), "float64")
        assert packed.batch_sizes.tolist() == [sum(n > t for n in lengths)
                                               for t in range(max(lengths))]
        if sort:
            assert packed.sorted_indices is None and packed.unsorted_indices is None
        else:
            assert packed.sorted_indices.tolist() == order
            assert packed.sorted_indices.device == padded.device
        back, lens = R.pad_packed_sequence(packed, batch_first=batch_first, padding_value=9.0,
                                           total_length=5)
        assert lens.tolist() == lengths and lens.device.type == "cpu"
        ref = np.full((4, 5, 2), 9.0)
        for b, a in enumerate(arrs):
            ref[b, :len(a)] = a
        assert_close(back, ref if batch_first else ref.transpose(1, 0, 2), "float64")
    unpacked = R.unpack_sequence(R.pack_sequence(seqs, enforce_sorted=sort))
    for a, u in zip(arrs, unpacked):
        assert_close(u, a, "float64")
    for a, u in zip(arrs, R.unpad_sequence(padded, lengths, batch_first=batch_first)):
        assert_close(u, a, "float64")
    R.pad_packed_sequence(packed)[0].sum().backward()
    for s in seqs:
        assert_close(s.grad, np.ones(tuple(s.shape)), "float64")


def test_packing_against_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(3).standard_normal((3, 5, 2)).astype(np.float32)
    for lengths, sort in [([5, 3, 2], True), ([2, 5, 3], False)]:
        t = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lengths, batch_first=True,
                                                    enforce_sorted=sort)
        p = R.pack_padded_sequence(pdt.tensor(x), lengths, batch_first=True, enforce_sorted=sort)
        np.testing.assert_array_equal(p.data.numpy(), t.data.numpy())
        assert p.batch_sizes.tolist() == t.batch_sizes.tolist()
        for a, b in [(p.sorted_indices, t.sorted_indices),
                     (p.unsorted_indices, t.unsorted_indices)]:
            assert (a is None) == (b is None) and (a is None or a.tolist() == b.tolist())
        tp, tl = torch.nn.utils.rnn.pad_packed_sequence(t, total_length=6)
        pp, pl = R.pad_packed_sequence(p, total_length=6)
        np.testing.assert_array_equal(pp.numpy(), tp.numpy())
        assert pl.tolist() == tl.tolist()


@pytest.mark.parametrize("data_rows,sizes", [(4, [2, 1]), (2, [2, 1]), (3, [1, 2]),
                                             (2, [2, 0]), (0, [])])
def test_packed_sequences_that_do_not_fit_their_data_are_refused(device, data_rows, sizes):
    """batch_sizes that are not positive, grow, or do not sum to data's rows raise
    (pad_packed_sequence padded with data's extra rows instead of padding_value)."""
    bad = R.PackedSequence(pdt.arange(2.0 * data_rows, device=device).reshape(data_rows, 2),
                           pdt.tensor(sizes, dtype=pdt.int64))
    pattern = r"batch_sizes .* do not describe its data of shape \(" + str(data_rows)
    with pytest.raises(ValueError, match=r"pad_packed_sequence: the PackedSequence's " +
                       pattern):
        R.pad_packed_sequence(bad, padding_value=-1.0)
    with pytest.raises(ValueError, match=pattern):
        nn.GRU(2, 3).to(device)(bad)
    good = R.PackedSequence(bad.data[:3], pdt.tensor([2, 1])) if data_rows >= 3 else None
    if good is not None:
        padded, lengths = R.pad_packed_sequence(good, padding_value=-1.0)
        assert padded.cpu().tolist() == [[[0, 1], [2, 3]], [[4, 5], [-1, -1]]]


def test_total_length_takes_integers(device):
    p = R.pack_sequence([pdt.ones(2, device=device), pdt.ones(1, device=device)])
    for total in (4, np.int64(4), pdt.tensor(4)):
        padded, lengths = R.pad_packed_sequence(p, batch_first=True, total_length=total)
        assert padded.cpu().tolist() == [[1, 1, 0, 0], [1, 0, 0, 0]]
        assert lengths.tolist() == [2, 1]


def test_packed_sequence_to_and_fields(device):
    p = R.pack_sequence([pdt.ones(1), pdt.ones(3), pdt.ones(2)], enforce_sorted=False)
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    q = p.to(device)
    assert q.data.device == pdt.device(device) == q.sorted_indices.device == \
        q.unsorted_indices.device
    assert q.batch_sizes.device.type == "cpu" and q.is_cuda == (q.device.type == "cuda")
    assert q.to(device) is q and q.double().data.dtype == pdt.float64
    assert q.cpu().data.device.type == "cpu"
    casts = dict(double=pdt.float64, float=pdt.float32, half=pdt.float16,
                 bfloat16=pdt.bfloat16, long=pdt.int64, int=pdt.int32, short=pdt.int16,
                 char=pdt.int8, byte=pdt.uint8)
    for name, dtype in casts.items():
        c = getattr(q, name)()
        assert c.data.dtype == dtype and c.batch_sizes is q.batch_sizes
        assert c.data.tolist() == [1] * 6 and c.sorted_indices.tolist() == [1, 2, 0]
    assert q.float() is q  # nothing changes
    if pdt.cuda.is_available():
        pinned = p.pin_memory()
        assert pinned.is_pinned() and pinned.sorted_indices.is_pinned()
        assert pinned.data.tolist() == p.data.tolist()
    assert R.invert_permutation(pdt.tensor([2, 0, 1])).tolist() == [1, 2, 0]


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda: R.pack_padded_sequence(pdt.zeros(3, 2, 1), [2, 3]), RuntimeError,
     r"`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda: R.pack_padded_sequence(pdt.zeros(3, 2, 1), [3, 0], enforce_sorted=False),
     RuntimeError, r"Length of all samples has to be greater than 0"),
    (lambda: R.pack_padded_sequence(pdt.zeros(3, 2, 1), [3]), RuntimeError,
     r"Expected `len\(lengths\)` to be equal to batch_size, but got 1 \(batch_size=2\)"),
    (lambda: R.pack_padded_sequence(pdt.zeros(3, 2, 1), [4, 2]), RuntimeError,
     r"a length \(4\) is longer than the input's 3 steps"),
    (lambda: R.pad_packed_sequence(R.pack_padded_sequence(pdt.zeros(3, 2, 1), [3, 2]),
                                   total_length=2), ValueError,
     r"Expected total_length to be at least the length of the longest sequence in input, "
     r"but got total_length=2 and max sequence length being 3"),
    (lambda: R.pad_packed_sequence(R.pack_sequence([pdt.ones(2)]), total_length=4.5),
     TypeError, r"pad_packed_sequence: total_length must be an int, got float"),
    (lambda: R.pad_sequence([]), RuntimeError, r"received an empty list of sequences"),
    (lambda: R.pad_sequence([pdt.ones(2, 3), pdt.ones(2, 2)]), RuntimeError,
     r"sequence 0 is \(2, 3\) on cpu but sequence 1 is \(2, 2\)"),
    (lambda: R.pad_sequence([pdt.ones(2)], padding_side="up"), ValueError,
     r"Expected padding_side to be one of left or right, but got up."),
    (lambda: R.pad_packed_sequence(pdt.ones(2)), TypeError, r"expected a PackedSequence"),
    (lambda: R.unpad_sequence(pdt.zeros(3, 2), pdt.tensor([3, 1, 1])), ValueError,
     r"expected 2 lengths in \[0, 3\] for padded_sequences of shape \(3, 2\) "
     r"\(batch_first=False, on cpu\), got \[3, 1, 1\]"),
    (lambda: R.unpad_sequence(pdt.zeros(2, 3), [4, 1], batch_first=True), ValueError,
     r"expected 2 lengths in \[0, 3\]"),
    (lambda: R.unpad_sequence(pdt.zeros(2, 3), [-1, 1], batch_first=True), ValueError,
     r"expected 2 lengths in \[0, 3\]"),
    (lambda: R.unpad_sequence(pdt.zeros(3), [1]), ValueError,
     r"padded_sequences must be a Tensor with at least 2 dimensions"),
    (lambda: R.PackedSequence(pdt.ones(2), [2]), RuntimeError,
     r"batch_sizes should always be a 1-D int64 tensor on the CPU"),
    # a tensor's rows were unpacked as (data, batch_sizes)
    (lambda: R.PackedSequence(pdt.ones(2, 3)), TypeError, r"without batch_sizes, expected "
     r"data to be a list or tuple \(data, batch_sizes\), got Tensor$"),
    (lambda: R.PackedSequence((pdt.ones(3),)), TypeError, r"got tuple of length 1$"),
    (lambda: R.pack_padded_sequence(pdt.ones(3, 0, 2), []), RuntimeError,  # max() of []
     r"Cannot pack empty tensors: the batch of input of shape \(3, 0, 2\) "
     r"\(batch_first=False\) is empty"),
    (lambda: R.pack_padded_sequence(pdt.ones(0, 3), pdt.tensor([], dtype=pdt.int64),
                                    batch_first=True, enforce_sorted=False), RuntimeError,
     r"Cannot pack empty tensors"),
])
def test_bad_input(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


MODES = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kw", [dict(), dict(num_layers=2, bidirectional=True, batch_first=True)],
                         ids=["plain", "2layers-bidir-bf"])
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("given_h0", [False, True])
def test_packed_rnn_against_torch(device, mode, kw, sort, given_h0):
    torch = torch_or_skip()
    tcls = getattr(torch.nn, MODES[mode].__name__)
    torch.manual_seed(0)
    tm = tcls(3, 4, **kw)
    m = MODES[mode](3, 4, device=device, **kw)
    m.load_state_dict({k: pdt.tensor(v.detach().numpy(), device=device)
                       for k, v in tm.state_dict().items()})
    lengths = [5, 3, 3, 1] if sort else [3, 5, 1, 3]
    bf = kw.get("batch_first", False)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5, 3) if bf else (5, 4, 3)).astype(np.float32)
    dirs = 2 if kw.get("bidirectional") else 1
    h0 = rng.standard_normal((kw.get("num_layers", 1) * dirs, 4, 4)).astype(np.float32)
    weights_out = rng.standard_normal((4, 5, 4 * dirs) if bf else (5, 4, 4 * dirs))
    weights_h = rng.standard_normal(h0.shape)

    def loss_of(lib, mod, pack, pad, dev):
        xt = lib.tensor(x, device=dev, requires_grad=True)
        ht = lib.tensor(h0, device=dev, requires_grad=True)
        ct = lib.tensor(h0 * 0.5, device=dev, requires_grad=True)
        packed = pack(xt, lengths, batch_first=bf, enforce_sorted=sort)
        hx = ((ht, ct) if mode == "lstm" else ht) if given_h0 else None
        out, state = mod(packed, hx)
        assert type(out).__name__ == "PackedSequence"
        padded, lens = pad(out, batch_first=bf)
        assert lens.tolist() == lengths
        states = state if mode == "lstm" else (state,)
        loss = (padded * lib.tensor(weights_out, device=dev, dtype=padded.dtype)).sum()
        for s in states:
            loss = loss + (s * lib.tensor(weights_h, device=dev, dtype=s.dtype)).sum()
        loss.backward()
        return padded, states, [xt, ht, ct]

    T = torch.nn.utils.rnn
    tpad, tstates, tins = loss_of(torch, tm, T.pack_padded_sequence, T.pad_packed_sequence,
                                  "cpu")
    ppad, pstates, pins = loss_of(pdt, m, R.pack_padded_sequence, R.pad_packed_sequence,
                                  device)
    np.testing.assert_allclose(ppad.detach().cpu().numpy(), tpad.detach().numpy(),
                               atol=TORCH_OUT, rtol=TORCH_OUT)
    for a, b in zip(pstates, tstates):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(),
                                   atol=TORCH_OUT, rtol=TORCH_OUT)
    pairs = list(zip(pins, tins)) + [(p, tm.get_parameter(n)) for n, p in m.named_parameters()]
    for a, b in pairs:
        if b.grad is None:
            assert a.grad is None or not a.grad.cpu().numpy().any()
            continue
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), atol=TORCH_GRAD,
                                   rtol=TORCH_GRAD)


def test_packed_lstm_final_state_is_state_at_true_length(device):
    """h_n of a packed batch equals h_n of each sequence run alone (NumPy-free check
    that also holds without torch)."""
    m = nn.LSTM(2, 3, bidirectional=True, device=device, dtype=pdt.float64)
    arrs, seqs = _seqs(device, [4, 2, 3])
    _, (h, c) = m(R.pack_sequence(seqs, enforce_sorted=False))
    for b, s in enumerate(seqs):
        _, (hb, cb) = m(s)
        assert_close(h[:, b], hb.detach().cpu().numpy(), "float64")
        assert_close(c[:, b], cb.detach().cpu().numpy(), "float64")
