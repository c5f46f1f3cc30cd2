"""repeat_interleave and baddbmm on every device:

- values against NumPy (np.repeat; a float64 einsum for baddbmm within 1e-12 +
  1e-12 |ref|) and against PyTorch when it can be imported (exact for
  repeat_interleave, which only copies; 1e-12 in float64 for baddbmm);
- gradients against central differences (tests/test_gradcheck.py's helper and tolerance);
- the data-dependent size of a tensor ``repeats``: read back (one explicit, counted
  device-to-host copy, refused under ``transfer_guard("disallow_explicit")``) only
  when output_size is not given; a wrong output_size is refused on the CPU;
- PyTorch's errors for bad repeats and shapes.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, torch_or_skip
from test_gradcheck import gradcheck


def _np(t):
    return t.detach().cpu().numpy()


# ---- repeat_interleave ----

CASES = [  # (shape, repeats (int or list), dim)
    ((2, 3), 2, None), ((2, 3), 3, 1), ((2, 3), 0, 0), ((4,), [1, 0, 2, 3], 0),
    ((2, 3, 2), [2, 1, 0], 1), ((2, 3), [2], -1), ((), 3, None), ((0, 3), 2, 0),
    ((2, 3), [0, 0, 0], 1), ((2, 3), [1, 2, 0, 0, 1, 3], None), ((3,), [0, 0, 4], 0),
    ((0, 3), 2, None), ((2, 3), 0, None),  # the everyday call (an int, dim None) at its edges
]


@pytest.mark.parametrize("shape,repeats,dim", CASES)
def test_repeat_interleave_matches_numpy(device, shape, repeats, dim):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = pdt.from_numpy(x).to(device)
    r = repeats if isinstance(repeats, int) else pdt.tensor(repeats, device=device)
    got = pdt.repeat_interleave(t, r, dim)
    want = np.repeat(x, repeats, axis=dim)
    assert got.device == t.device and got.dtype == t.dtype
    np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(t.repeat_interleave(r, dim=dim)), want)


@pytest.mark.parametrize("shape,repeats,dim", CASES)
def test_repeat_interleave_matches_torch(device, shape, repeats, dim):
    torch = torch_or_skip()
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    r = repeats if isinstance(repeats, int) else pdt.tensor(repeats, device=device)
    rt = repeats if isinstance(repeats, int) else torch.tensor(repeats)
    got = pdt.repeat_interleave(pdt.from_numpy(x).to(device), r, dim)
    want = torch.repeat_interleave(torch.from_numpy(x), rt, dim)
    np.testing.assert_array_equal(_np(got), want.numpy())
    assert tuple(got.shape) == tuple(want.shape)


def test_repeat_interleave_of_repeats_alone(device):
    for dtype in (pdt.int64, pdt.int32):
        r = pdt.tensor([2, 0, 3, 1], dtype=dtype, device=device)
        got = pdt.repeat_interleave(r)
        assert got.dtype == dtype
        np.testing.assert_array_equal(_np(got), [0, 0, 2, 2, 2, 3])
        np.testing.assert_array_equal(_np(r.repeat_interleave()), [0, 0, 2, 2, 2, 3])


def test_repeat_interleave_takes_repeats_of_any_integer_dtype(device):
    # PyTorch takes int8, uint8 and int16 counts as well as int32 and int64
    x = pdt.arange(6.0, device=device).reshape(3, 2)
    for dtype in (pdt.int8, pdt.uint8, pdt.int16):
        r = pdt.tensor([1, 2, 0], dtype=dtype, device=device)
        np.testing.assert_array_equal(_np(x.repeat_interleave(r, dim=0)),
                                      np.repeat(_np(x), [1, 2, 0], axis=0))
        np.testing.assert_array_equal(_np(x.repeat_interleave(pdt.tensor(2, dtype=dtype,
                                                                         device=device))),
                                      np.repeat(_np(x).ravel(), 2))
        got = pdt.repeat_interleave(r)
        assert got.dtype == dtype
        np.testing.assert_array_equal(_np(got), [0, 1, 1])


def test_repeat_takes_repeats_keyword_and_flip_a_0d_dim(device):
    x = pdt.tensor([[1.0, 2.0]], device=device)
    np.testing.assert_array_equal(_np(x.repeat(repeats=(2, 3))), np.tile(_np(x), (2, 3)))
    with pytest.raises(TypeError, match="multiple values for argument 'repeats'"):
        x.repeat(2, 3, repeats=(2, 3))
    for dim in (pdt.tensor(1), pdt.tensor(-1, dtype=pdt.int32)):
        np.testing.assert_array_equal(_np(x.flip(dim)), [[2.0, 1.0]])
        np.testing.assert_array_equal(_np(pdt.flip(x, dims=dim)), [[2.0, 1.0]])
    with pytest.raises(TypeError, match="dims"):
        x.flip(pdt.tensor(1.0))


def test_repeat_interleave_other_dtypes(device):
    b = pdt.tensor([True, False], device=device)
    np.testing.assert_array_equal(_np(b.repeat_interleave(2)), [True, True, False, False])
    i = pdt.tensor([[1, 2]], dtype=pdt.int32, device=device)
    got = i.repeat_interleave(pdt.tensor([1, 3], device=device), dim=1)
    assert got.dtype == pdt.int32
    np.testing.assert_array_equal(_np(got), [[1, 2, 2, 2]])


def test_repeat_interleave_output_size(device):
    x = pdt.arange(6.0, device=device).reshape(2, 3)
    r = pdt.tensor([1, 2], device=device)
    got = pdt.repeat_interleave(x, r, dim=0, output_size=3)
    np.testing.assert_array_equal(_np(got), np.repeat(_np(x), [1, 2], axis=0))
    np.testing.assert_array_equal(_np(x.repeat_interleave(2, dim=1, output_size=6)),
                                  np.repeat(_np(x), 2, axis=1))
    with pytest.raises(RuntimeError, match="Invalid output_size, expected 6 but got 5"):
        x.repeat_interleave(2, dim=1, output_size=5)


@pytest.mark.parametrize("high", [3, 12, 40])
def test_repeat_interleave_counts_of_every_size(device, high):
    """Counts of every size up to high (the CPU's kernel writes eight slots whatever the
    count, then the rest: csrc/cpu/cpu_repeat.c), zeros at both ends and runs of them,
    totals that end fewer than eight slots after the last start, rows as well as
    elements, int32 counts and the repeats alone: np.repeat's, exactly."""
    rng = np.random.default_rng(high)
    for n in (1, 2, 7, 9, 300, 5000):
        counts = rng.integers(0, high, n)
        counts[: n // 3] = 0 if n > 2 else counts[: n // 3]
        for tail in (counts[-1], 1, 0):
            counts[-1] = tail
            a = rng.standard_normal(n).astype(np.float32)
            r = pdt.tensor(counts, device=device)
            x = pdt.tensor(a, device=device)
            np.testing.assert_array_equal(_np(pdt.repeat_interleave(x, r)), np.repeat(a, counts))
            np.testing.assert_array_equal(_np(r.repeat_interleave()),
                                          np.repeat(np.arange(n), counts))
        m = rng.standard_normal((n, 3))
        r32 = pdt.tensor(counts.astype(np.int32), device=device)
        np.testing.assert_array_equal(
            _np(pdt.tensor(m, device=device).repeat_interleave(r32, dim=0,
                                                               output_size=int(counts.sum()))),
            np.repeat(m, counts, axis=0))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "float16", "int32", "float32",
                                   "int64", "float64"])
@pytest.mark.parametrize("row", [(), (2,), (3,), (0,), (2, 3)])
def test_repeat_interleave_rows_of_every_width(device, dtype, row):
    """Rows of 1 to 48 bytes along dim 0 (the CPU's kernel copies rows of 1, 2, 4 and 8
    bytes as one element, others by bytes, and empty rows only check the counts), an
    input that starts off its alignment (a view one element in), a transposed one and
    one that records a gradient: np.repeat's values, shape and dtype."""
    rng = np.random.default_rng(len(row))
    n = 40
    counts = rng.integers(0, 4, n)
    base = (rng.standard_normal((n + 1,) + row) * 50).astype(dtype)
    x = pdt.tensor(base, device=device)[1:]  # starts one element (one row) in
    want = np.repeat(base[1:], counts, axis=0)
    r = pdt.tensor(counts, device=device)
    got = pdt.repeat_interleave(x, r, 0)
    assert got.dtype == x.dtype and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(_np(got), want)
    flat = pdt.tensor(base.reshape(-1), device=device)[1:]  # rows of one element, offset
    cf = rng.integers(0, 4, flat.shape[0])
    np.testing.assert_array_equal(_np(pdt.repeat_interleave(flat, pdt.tensor(cf, device=device))),
                                  np.repeat(base.reshape(-1)[1:], cf))
    if len(row) == 1 and row[0] > 0:  # not contiguous: the gather
        xt = pdt.tensor(base, device=device).t()
        ct = rng.integers(0, 4, row[0])
        np.testing.assert_array_equal(
            _np(pdt.repeat_interleave(xt, pdt.tensor(ct, device=device), 0)),
            np.repeat(base.T, ct, axis=0))
    if dtype in ("float32", "float64"):  # a gradient to record: the gather
        xg = pdt.tensor(base[1:], device=device, requires_grad=True)
        yg = pdt.repeat_interleave(xg, r, 0)
        np.testing.assert_array_equal(_np(yg), want)
        yg.sum().backward()
        np.testing.assert_array_equal(
            _np(xg.grad), np.broadcast_to(counts.reshape((n,) + (1,) * len(row)),
                                          (n,) + row).astype(dtype))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32"])
def test_repeat_interleave_rows_off_their_width(device, dtype):
    """Rows of two elements that start one element in, so not at a multiple of the row's
    bytes (the CPU copies those by bytes, not as one wider element)."""
    rng = np.random.default_rng(3)
    n = 33
    flat = (rng.standard_normal(2 * n + 1) * 50).astype(dtype)
    x = pdt.tensor(flat, device=device)[1:].reshape(n, 2)
    counts = rng.integers(0, 12, n)
    np.testing.assert_array_equal(_np(pdt.repeat_interleave(x, pdt.tensor(counts, device=device), 0)),
                                  np.repeat(flat[1:].reshape(n, 2), counts, axis=0))


def test_repeat_interleave_positions_of_large_counts(device):
    """Along dim 1 (the positions, then the gather) with counts past the eight slots
    written whatever the count, and zeros between them."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 50))
    counts = rng.integers(0, 41, 50)
    counts[::5] = 0
    got = pdt.repeat_interleave(pdt.tensor(x, device=device), pdt.tensor(counts, device=device), 1)
    np.testing.assert_array_equal(_np(got), np.repeat(x, counts, axis=1))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (2, 3), (3, 1, 4)])
def test_repeat_interleave_of_counts_with_dim_none(device, shape):
    """With dim None and a tensor of counts (on the CPU one C call that reads their sum
    itself) for inputs of every rank, contiguous or not, that record a gradient or not,
    and int32 counts: np.repeat's values, a new tensor of input's dtype."""
    rng = np.random.default_rng(len(shape))
    a = rng.standard_normal(shape).astype(np.float32)
    counts = rng.integers(0, 5, a.size)
    x = pdt.tensor(a, device=device)
    for r in (pdt.tensor(counts, device=device),
              pdt.tensor(counts.astype(np.int32), device=device)):
        got = pdt.repeat_interleave(x, r)
        assert got.dtype == pdt.float32 and got.device == x.device
        np.testing.assert_array_equal(_np(got), np.repeat(a, counts))
    if a.ndim == 2:  # transposed: read in its own order
        ct = rng.integers(0, 5, a.size)
        np.testing.assert_array_equal(_np(x.t().repeat_interleave(pdt.tensor(ct, device=device))),
                                      np.repeat(a.T, ct))
    got = pdt.repeat_interleave(x, pdt.tensor(counts, device=device))
    if got.numel():  # a copy: writing to it leaves x alone
        got.fill_(5.0)
        np.testing.assert_array_equal(_np(x), a)
    xg = pdt.tensor(a.astype(np.float64), device=device, requires_grad=True)
    pdt.repeat_interleave(xg, pdt.tensor(counts, device=device)).sum().backward()
    np.testing.assert_array_equal(_np(xg.grad), counts.reshape(shape).astype(np.float64))


def test_repeats_that_sum_past_int64_are_out_of_memory():
    """On the CPU, where the sum is read by the kernel: repeats whose sum does not fit in
    int64 are an out-of-memory error that says so (not a wrapped, negative size), with or
    without dim, and a sum that fits but is past memory is the allocator's error."""
    x = pdt.arange(3.0)
    for counts in ([2**62] * 3, [2**62, 2**62, 0], [2**63 - 1, 1, 0]):
        for dim in (None, 0):
            with pytest.raises(pdt.OutOfMemoryError,
                               match=r"the 3 repeats sum to 2\^63 - 1 or more, more elements "
                                     r"than memory holds \(on cpu\)"):
                pdt.repeat_interleave(x, pdt.tensor(counts), dim)
    with pytest.raises(pdt.OutOfMemoryError, match="out of memory on cpu"):
        pdt.repeat_interleave(x, pdt.tensor([2**46] * 3))  # past any address space
    # within and after the sum's vectors of eight: the smallest negative, and overflow
    y = pdt.arange(20.0)
    for at in (0, 5, 15, 19):
        counts = [1] * 20
        counts[at] = -3
        with pytest.raises(RuntimeError, match="repeats can not be negative, got -3"):
            pdt.repeat_interleave(y, pdt.tensor(counts))
        counts[at] = 2**63 - 1
        with pytest.raises(pdt.OutOfMemoryError, match="the 20 repeats sum to 2\\^63 - 1"):
            pdt.repeat_interleave(y, pdt.tensor(counts))
        counts = [2**59] * 20  # each past INT64_MAX / 20 (the slow pass), their sum past 2^63
        counts[at] = 0
        with pytest.raises(pdt.OutOfMemoryError, match="the 20 repeats sum to 2\\^63 - 1"):
            pdt.repeat_interleave(y, pdt.tensor(counts))
    with pytest.raises(RuntimeError, match="repeats can not be negative, got -1"):
        pdt.repeat_interleave(x, pdt.tensor([2**62, -1, 2**62]))  # named before the sum


def test_a_wrong_output_size_is_named_before_anything_is_allocated_for_it():
    """On the CPU an output_size other than the repeats' sum is refused with both numbers,
    however large (not an out-of-memory error for the rows it would take)."""
    x = pdt.zeros((2, 100000))
    with pytest.raises(RuntimeError, match="output_size=10000000 but the repeats sum to 3"):
        pdt.repeat_interleave(x, pdt.tensor([1, 2]), dim=0, output_size=10**7)
    with pytest.raises(RuntimeError, match="output_size=2 but the repeats sum to 3"):
        pdt.repeat_interleave(x, pdt.tensor([1, 2]), dim=0, output_size=2)


def test_repeats_checked_as_the_positions_are_written(device):
    """The smallest negative repeat is named whatever its place (before or after the
    total is reached), and a sum other than output_size is refused with both numbers."""
    x = pdt.arange(4.0, device=device)
    for bad, low in (([1, -1, 2, 0], -1), ([5, 9, -3, -7], -7), ([-2, 0, 0, 2], -2)):
        with pytest.raises(RuntimeError, match=f"repeats can not be negative, got {low}"):
            pdt.repeat_interleave(x, pdt.tensor(bad, device=device))
    if device.type == "cpu":  # elsewhere output_size is trusted (nothing read back)
        for size in (0, 5, 7):
            with pytest.raises(RuntimeError,
                               match=f"output_size={size} but the repeats sum to 6"):
                pdt.repeat_interleave(x, pdt.tensor([1, 2, 3, 0], device=device),
                                      output_size=size)


def test_wrong_output_size_is_refused_on_the_cpu():
    x = pdt.arange(6.0).reshape(2, 3)
    for size in (2, 4):
        with pytest.raises(RuntimeError, match="allocated size does not match"):
            pdt.repeat_interleave(x, pdt.tensor([1, 2]), dim=0, output_size=size)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_repeat_interleave_gradient(device, dim):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    counts = [2, 0, 1] if dim == 0 else [1, 3, 0, 2] if dim == 1 else [1] * 12

    def tensor_repeats(t):
        return t.repeat_interleave(pdt.tensor(counts, device=t.device), dim=dim)

    gradcheck(tensor_repeats, [x], device)
    gradcheck(lambda t: pdt.repeat_interleave(t, 3, dim), [x], device)


def test_repeat_interleave_gradient_against_torch(device):
    torch = torch_or_skip()
    x = np.random.default_rng(0).standard_normal((3, 4))
    t = pdt.from_numpy(x).to(device).requires_grad_()
    y = t.repeat_interleave(pdt.tensor([2, 0, 3], device=device), dim=0)
    g = np.arange(float(y.numel())).reshape(tuple(y.shape))
    y.backward(pdt.from_numpy(g).to(device))
    tt = torch.from_numpy(x).requires_grad_()
    torch.repeat_interleave(tt, torch.tensor([2, 0, 3]), dim=0).backward(torch.from_numpy(g))
    np.testing.assert_array_equal(_np(t.grad), tt.grad.numpy())


BAD_REPEATS = [
    (lambda d: pdt.tensor([1, -2], device=d), 0, RuntimeError, "can not be negative"),
    (lambda d: -1, 0, RuntimeError, "Repeats must be non-negative"),
    (lambda d: pdt.tensor([1, 2, 3], device=d), 0, RuntimeError,
     r"repeats.size\(0\) = 3 and input.size\(dim\) = 2"),
    (lambda d: pdt.tensor([[1, 2]], device=d), 0, RuntimeError, "0-dim or 1-dim"),
    (lambda d: pdt.tensor([1.0, 2.0], device=d), 0, NotImplementedError, "an integer tensor"),
    (lambda d: 2, 2, IndexError, "Dimension out of range"),
    (lambda d: 2.5, 0, TypeError, "repeats must be an int"),
]


@pytest.mark.parametrize("case", range(len(BAD_REPEATS)))
def test_repeat_interleave_bad_input(device, case):
    repeats, dim, exc, match = BAD_REPEATS[case]
    x = pdt.arange(6.0, device=device).reshape(2, 3)
    with pytest.raises(exc, match=match):
        pdt.repeat_interleave(x, repeats(device), dim)
    torch = torch_or_skip()
    r = repeats("cpu")
    r = torch.tensor(r.tolist(), dtype=torch.float32 if r.dtype.is_floating_point
                     else torch.int64) if isinstance(r, pdt.Tensor) else r
    with pytest.raises((exc, TypeError)):  # torch raises the same class (a float: TypeError)
        torch.repeat_interleave(torch.arange(6.0).reshape(2, 3), r, dim)


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
def test_repeats_sum_is_an_implicit_counted_read(device):
    """Without output_size the sum (and the least repeat) is one counted device-to-host
    copy, a read the caller did not ask for: the transfer guard sees it as implicit
    (disallow refuses it, naming repeat_interleave(); it was let through as explicit);
    with output_size none is made for the size (the gather's index check still reads
    its min and max, as every gather here)."""
    x = pdt.arange(6.0, device=device).reshape(2, 3)
    r = pdt.tensor([1, 2], device=device)
    pdt.reset_transfer_stats()
    pdt.repeat_interleave(x, r, dim=0)
    without = pdt.transfer_stats()["device_to_host"]["count"]
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        pdt.repeat_interleave(x, r, dim=0, output_size=3)
    given = pdt.transfer_stats()["device_to_host"]["count"]
    assert without == given + 1
    with pdt.transfer_guard("disallow"), pytest.raises(
            pdt.TransferError, match=r"implicit device-to-host transfer by repeat_interleave\(\)"):
        pdt.repeat_interleave(x, r, dim=0)
    pdt.reset_transfer_stats()
    x.repeat_interleave(3, dim=1)  # an int: nothing read
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0


def test_mixed_devices_refused(device):
    if device.type == "cpu" and not CUDA_DEVICES:
        pytest.skip("needs a second device")
    other = "cpu" if device.type != "cpu" else CUDA_DEVICES[0]
    with pytest.raises(RuntimeError, match="same device"):
        pdt.repeat_interleave(pdt.ones(2, device=device), pdt.tensor([1, 2], device=other))


# ---- baddbmm ----

INPUT_SHAPES = [(2, 3, 5), (3, 5), (5,), (3, 1), (1, 3, 5), (1,), ()]


@pytest.mark.parametrize("in_shape", INPUT_SHAPES)
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 3.0)])
def test_baddbmm_matches_numpy(device, in_shape, beta, alpha):
    rng = np.random.default_rng(1)
    i, a, b = rng.standard_normal(in_shape), rng.standard_normal((2, 3, 4)), \
        rng.standard_normal((2, 4, 5))
    ti, ta, tb = (pdt.from_numpy(np.asarray(v)).to(device) for v in (i, a, b))
    got = pdt.baddbmm(ti, ta, tb, beta=beta, alpha=alpha)
    want = beta * i + alpha * np.einsum("bnm,bmp->bnp", a, b)
    assert tuple(got.shape) == (2, 3, 5) and got.dtype == pdt.float64
    np.testing.assert_allclose(_np(got), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(ti.baddbmm(ta, tb, beta=beta, alpha=alpha)), want,
                               rtol=1e-12, atol=1e-12)


def test_baddbmm_beta_zero_ignores_nan(device):
    a, b = pdt.ones(2, 1, 3, device=device), pdt.ones(2, 3, 2, device=device)
    nan = pdt.full((1, 2), float("nan"), device=device)
    np.testing.assert_array_equal(_np(pdt.baddbmm(nan, a, b, beta=0)), np.full((2, 1, 2), 3.0))


def test_baddbmm_transposed_operands(device):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 5, 4))
    ta, tb = pdt.from_numpy(a).to(device), pdt.from_numpy(b).to(device)
    got = pdt.baddbmm(pdt.zeros(3, 5, device=device, dtype=pdt.float64), ta.transpose(1, 2),
                      tb.transpose(1, 2))
    np.testing.assert_allclose(_np(got), np.einsum("bmn,bpm->bnp", a, b), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("in_shape", [(2, 3, 5), (3, 1), (5,)])
def test_baddbmm_gradient(device, in_shape):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(in_shape), rng.standard_normal((2, 3, 4)),
              rng.standard_normal((2, 4, 5))]
    gradcheck(lambda i, a, b: pdt.baddbmm(i, a, b, beta=0.5, alpha=-1.5), arrays, device)
    gradcheck(lambda i, a, b: i.baddbmm(a, b), arrays, device, noncontig=True)


def test_baddbmm_against_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((3, 1)), rng.standard_normal((2, 3, 4)),
              rng.standard_normal((2, 4, 5))]
    ours = [pdt.from_numpy(v).to(device).requires_grad_() for v in arrays]
    theirs = [torch.from_numpy(v).requires_grad_() for v in arrays]
    out = pdt.baddbmm(*ours, beta=0.25, alpha=2.0)
    ref = torch.baddbmm(*theirs, beta=0.25, alpha=2.0)
    assert out.grad_fn.name() == "BaddbmmBackward0" == ref.grad_fn.name()
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(_np(out), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(_np(o.grad), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_baddbmm_integers(device):
    i = pdt.tensor([1, 2], device=device)
    a = pdt.ones(2, 1, 3, dtype=pdt.int64, device=device)
    b = pdt.ones(2, 3, 2, dtype=pdt.int64, device=device)
    np.testing.assert_array_equal(_np(pdt.baddbmm(i, a, b, beta=2, alpha=3)),
                                  [[[11, 13]], [[11, 13]]])
    with pytest.raises(TypeError, match="integers"):
        pdt.baddbmm(i, a, b, alpha=0.5)


BAD_BADDBMM = [
    ((2, 3, 5), (2, 3, 4), (3, 4, 5), "batch sizes"),
    ((2, 3, 5), (2, 3, 4), (2, 3, 5), "inner|size|shape"),
    ((2, 3, 5), (3, 4), (2, 4, 5), "3-D"),
    ((4, 3, 5), (2, 3, 4), (2, 4, 5), "cannot be broadcast"),
    ((3, 4), (2, 3, 4), (2, 4, 5), "cannot be broadcast"),
]


@pytest.mark.parametrize("shapes", BAD_BADDBMM)
def test_baddbmm_bad_shapes(device, shapes):
    i, a, b = (pdt.ones(*s, device=device) for s in shapes[:3])
    with pytest.raises((RuntimeError, ValueError), match=shapes[3]):
        pdt.baddbmm(i, a, b)


def test_baddbmm_dtypes_and_devices_must_agree(device):
    i, a, b = pdt.ones(3, 5, device=device), pdt.ones(2, 3, 4, device=device), \
        pdt.ones(2, 4, 5, device=device)
    with pytest.raises((RuntimeError, TypeError), match="dtype"):  # bmm's TypeError here
        pdt.baddbmm(i, a, b.to(pdt.float64))
    with pytest.raises(RuntimeError, match="dtypes must be the same"):
        pdt.baddbmm(i.to(pdt.float64), a, b)
    if CUDA_DEVICES:
        other = "cpu" if device.type != "cpu" else CUDA_DEVICES[0]
        with pytest.raises(RuntimeError, match="same device"):
            pdt.baddbmm(i.to(other), a, b)


@pytest.mark.parametrize("dim", [0, -1, 1])
def test_repeat_interleave_of_a_0d_tensor_with_dim_refused_as_torch(device, dim):
    torch = torch_or_skip()
    with pytest.raises(IndexError):
        torch.tensor(5).repeat_interleave(3, dim=dim)
    x = pdt.tensor(5, device=device)
    with pytest.raises(IndexError, match=rf"dim={dim} given for a 0-d input"):
        x.repeat_interleave(3, dim=dim)
    with pytest.raises(IndexError, match="0-d input"):
        pdt.repeat_interleave(x, pdt.tensor([2], device=device), dim=dim)
    # without dim the 0-d input is read as 1-d, as torch's
    assert x.repeat_interleave(3).tolist() == torch.tensor(5).repeat_interleave(3).tolist()
