"""The everyday names a D2L reader meets (a tester's list): pydevtensor.pi/e/inf/nan,
0-d tensors as the numbers of arange/linspace/logspace/full and in tensor()'s lists,
NumPy scalars keeping their dtype in tensor(), histogram, cov, corrcoef, norm(p='nuc'),
Tensor.ndimension, optim.SGD's default lr, inspect.signature(arange), cumsum's float64
accumulation, and the creation docstrings naming their own function."""
import inspect
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, torch_or_skip


@pytest.fixture(params=DEVICES)
def dev(request):
    return pdt.device(request.param)


def test_constants():
    for name, value in (("pi", math.pi), ("e", math.e), ("inf", math.inf)):
        assert type(getattr(pdt, name)) is float and getattr(pdt, name) == value
    assert type(pdt.nan) is float and math.isnan(pdt.nan)
    torch = torch_or_skip()
    assert (pdt.pi, pdt.e, pdt.inf) == (torch.pi, torch.e, torch.inf)


def _d2h():
    return pdt.transfer_stats()["device_to_host"]["count"]


def test_zero_d_tensors_as_numbers(dev):
    xs = pdt.tensor([0.5, -1.0, 2.0], device=dev)
    lo, hi = pdt.min(xs), pdt.max(xs)
    got = pdt.arange(lo, hi, 0.5)
    np.testing.assert_allclose(got.numpy(), np.arange(-1.0, 2.0, 0.5), rtol=0)
    assert got.dtype == pdt.float32 and got.device == pdt.get_default_device()
    assert pdt.arange(pdt.tensor(4, device=dev)).tolist() == [0, 1, 2, 3]  # int stays int
    assert pdt.arange(0, 1, pdt.tensor(0.25, device=dev)).tolist() == [0, 0.25, 0.5, 0.75]
    np.testing.assert_allclose(pdt.linspace(lo, hi, 4).numpy(), np.linspace(-1, 2, 4),
                               rtol=1e-7)
    np.testing.assert_allclose(pdt.logspace(lo, hi, 4).numpy(), np.logspace(-1, 2, 4),
                               rtol=1e-6)
    f = pdt.full((2,), pdt.tensor(1.5, dtype=pdt.float64, device=dev))
    assert f.tolist() == [1.5, 1.5] and f.dtype == pdt.float32  # a number's dtype, as torch
    assert pdt.full((2,), pdt.tensor(3, device=dev)).dtype == pdt.int64
    assert pdt.full((1,), pdt.tensor(True, device=dev)).dtype == pdt.bool
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        pdt.arange(pdt.tensor([0.0, 1.0], device=dev))  # not a 0-d tensor (torch: TypeError)
    if dev.type == "cuda":  # each value read is item()'s counted, guarded copy
        before = _d2h()
        pdt.arange(lo, hi, 0.5)
        assert _d2h() - before == 2
        with pdt.transfer_guard("disallow"), pytest.raises(pdt.TransferError):
            pdt.linspace(lo, hi, 3)
    torch = torch_or_skip()
    t = torch.tensor([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(got.numpy(), torch.arange(t.min(), t.max(), 0.5).numpy())


def test_tensor_of_zero_d_tensors(dev):
    t = pdt.tensor([pdt.tensor(1.5, device=dev), pdt.tensor(2.0, device=dev)])
    assert t.tolist() == [1.5, 2.0] and t.dtype == pdt.float32
    t = pdt.tensor([pdt.tensor(1.5, dtype=pdt.float64, device=dev), pdt.tensor(2, device=dev)])
    assert t.dtype == pdt.float64  # the promotion of the elements' dtypes, as torch's


def test_tensor_of_numpy_scalars():
    """Each NumPy scalar keeps its dtype and the list's dtype is the promotion of its
    elements', a Python float counting as float32 and an int as int64 (torch's rule)."""
    cases = [([np.float64(1.5), np.float64(2)], pdt.float64),
             ([np.float64(1.5), 2.0], pdt.float64), ([1.0, np.float64(2)], pdt.float64),
             ([np.float32(1.5), 1.0], pdt.float32), ([np.float32(1), np.float64(1)], pdt.float64),
             ([np.int64(1), 1.0], pdt.float32), ([np.int32(1), 2], pdt.int64),
             ([np.int32(1)], pdt.int32), ([np.float16(1.5), 1.0], pdt.float32),
             ([[np.float64(1)], [2.0]], pdt.float64), ([True, np.float64(1)], pdt.float64),
             ([np.int32(1), np.float32(1)], pdt.float32)]
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - compared with torch only where it imports
        pass
    for data, want in cases:
        got = pdt.tensor(data)
        assert got.dtype == want, (data, got.dtype)
        np.testing.assert_array_equal(got.to(pdt.float64).numpy(), np.array(data, np.float64))
        if torch is not None:
            assert str(torch.tensor(data).dtype).split(".")[1] == str(want).split(".")[1]
    assert pdt.tensor([np.float64(1.5)], dtype=pdt.float32).dtype == pdt.float32
    assert pdt.tensor(np.float64(2.5)).dtype == pdt.float64


def _hist_ref(x, bins, rng=None, weights=None, density=False):
    return np.histogram(x, bins=bins, range=rng, weights=weights, density=density)


def test_histogram(dev):
    rng = np.random.default_rng(3)
    a = rng.normal(size=500)
    x = pdt.tensor(a, dtype=pdt.float64, device=dev)
    for bins, r in ((10, None), (7, (-1.0, 1.0)), (1, None)):
        h, edges = pdt.histogram(x, bins, range=r)
        want_h, want_e = _hist_ref(a, bins, r)
        np.testing.assert_array_equal(h.cpu().numpy(), want_h)
        np.testing.assert_allclose(edges.cpu().numpy(), want_e, rtol=1e-15, atol=1e-15)
        assert h.device == dev and h.dtype == pdt.float64
    e = np.array([-3.0, -0.5, 0.0, 0.25, 4.0])
    w = rng.uniform(0, 2, 500)
    res = pdt.histogram(x, pdt.tensor(e, dtype=pdt.float64, device=dev),
                        weight=pdt.tensor(w, dtype=pdt.float64, device=dev), density=True)
    want_h, _ = _hist_ref(a, e, weights=w, density=True)
    np.testing.assert_allclose(res.hist.cpu().numpy(), want_h, rtol=1e-13)
    np.testing.assert_array_equal(res.bin_edges.cpu().numpy(), e)
    # the last bin includes its right edge; NaN and values outside are not counted
    h, _ = pdt.histogram(pdt.tensor([0.0, 1.0, 2.0, np.nan, 5.0], device=dev), 2,
                         range=(0.0, 2.0))
    assert h.tolist() == [1.0, 2.0] and h.dtype == pdt.float32
    h, e2 = pdt.histogram(pdt.tensor([1.0, 1.0], device=dev), 2)  # equal ends widen by 0.5
    assert e2.tolist() == [0.5, 1.0, 1.5] and h.tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="floating point.*int64"):
        pdt.histogram(pdt.tensor([1, 2], device=dev), 2)
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        pdt.histogram(x, 0)
    with pytest.raises(RuntimeError, match="increasing"):
        pdt.histogram(x, pdt.tensor([1.0, 0.0], dtype=pdt.float64, device=dev))
    torch = torch_or_skip()
    tx = torch.tensor(a, dtype=torch.float32)
    th = torch.histogram(tx, 9)
    ph = pdt.histogram(pdt.tensor(a, dtype=pdt.float32, device=dev), 9)
    np.testing.assert_array_equal(ph.hist.cpu().numpy(), th.hist.numpy())
    np.testing.assert_array_equal(ph.bin_edges.cpu().numpy(), th.bin_edges.numpy())


def test_histogram_counts_values_on_the_range_ends(dev):
    """The bin edges end exactly on the range's ends, whatever linspace's rounding gives
    (-6 to 5.4 in 9 float64 steps ended at 5.3999..., and the maximum was not counted),
    and a value on the last edge is in the last bin, as numpy.histogram's."""
    for a, bins, r in (([-6.0, 5.4, 5.4], 9, None), ([0.1, 0.3, 0.7, 0.7], 7, None),
                       ([-6.0, 5.4, 0.0], 9, (-6.0, 5.4)), ([0.1, 0.2, 0.7], 3, (0.1, 0.7)),
                       ([1e-3, 2.0 / 3.0, 1.1, 1.1], 13, None)):
        for dtype, np_dtype in ((pdt.float64, np.float64), (pdt.float32, np.float32)):
            v = np.array(a, dtype=np_dtype)
            h, e = pdt.histogram(pdt.tensor(v, dtype=dtype, device=dev), bins, range=r)
            lo, hi = (v.min(), v.max()) if r is None else np.array(r, dtype=np_dtype)
            assert e[0].item() == lo and e[-1].item() == hi, (a, bins, dtype)
            want, _ = np.histogram(v.astype(np.float64), bins=bins,
                                   range=(float(lo), float(hi)))
            np.testing.assert_array_equal(h.cpu().numpy(), want, err_msg=f"{a} {dtype}")


def test_cov_corrcoef(dev):
    rng = np.random.default_rng(4)
    a = rng.normal(size=(3, 20))
    x = pdt.tensor(a, dtype=pdt.float64, device=dev)
    np.testing.assert_allclose(pdt.cov(x).cpu().numpy(), np.cov(a), rtol=1e-13)
    np.testing.assert_allclose(pdt.cov(x, correction=0).cpu().numpy(), np.cov(a, ddof=0),
                               rtol=1e-13)
    fw = rng.integers(0, 4, 20)
    aw = rng.uniform(0.1, 2, 20)
    got = pdt.cov(x, fweights=pdt.tensor(fw, device=dev),
                  aweights=pdt.tensor(aw, dtype=pdt.float64, device=dev))
    np.testing.assert_allclose(got.cpu().numpy(), np.cov(a, fweights=fw, aweights=aw),
                               rtol=1e-12)
    got = pdt.cov(x, fweights=pdt.tensor(fw, device=dev))
    np.testing.assert_allclose(got.cpu().numpy(), np.cov(a, fweights=fw), rtol=1e-12)
    one = pdt.cov(pdt.tensor([1.0, 2.0, 4.0], device=dev))
    assert one.shape == () and abs(one.item() - np.cov([1.0, 2.0, 4.0])) < 1e-6
    assert pdt.cov(pdt.tensor([1, 2, 4], device=dev)).dtype == pdt.float32
    np.testing.assert_allclose(pdt.corrcoef(x).cpu().numpy(), np.corrcoef(a), rtol=1e-13)
    with pytest.raises(RuntimeError, match="two or fewer dimensions"):
        pdt.cov(pdt.zeros(2, 2, 2, device=dev))
    with pytest.raises(RuntimeError, match="fweights to have an integral dtype"):
        pdt.cov(x, fweights=pdt.tensor(aw, device=dev))
    with pytest.raises(RuntimeError, match="20 elements"):
        pdt.cov(x, aweights=pdt.ones(3, dtype=pdt.float64, device=dev))
    torch = torch_or_skip()
    t = torch.tensor(a, requires_grad=True)
    xg = pdt.tensor(a, dtype=pdt.float64, device=dev).requires_grad_()
    (torch.corrcoef(t) ** 2).sum().backward()
    (pdt.corrcoef(xg) ** 2).sum().backward()
    np.testing.assert_allclose(xg.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_norm_nuc_and_ndimension(dev):
    rng = np.random.default_rng(5)
    a = rng.normal(size=(4, 3))
    x = pdt.tensor(a, dtype=pdt.float64, device=dev)
    assert x.ndimension() == 2 and pdt.tensor(1.0, device=dev).ndimension() == 0
    want = np.linalg.norm(a, "nuc")
    assert abs(pdt.norm(x, p="nuc").item() - want) < 1e-12 * want
    assert abs(x.norm(p="nuc").item() - want) < 1e-12 * want
    assert abs(x.norm().item() - np.linalg.norm(a)) < 1e-12 * want  # the C norm as before
    assert abs(pdt.norm(x, 1).item() - np.abs(a).sum()) < 1e-12 * want
    b = pdt.tensor(rng.normal(size=(2, 4, 3)), dtype=pdt.float64, device=dev)
    np.testing.assert_allclose(pdt.norm(b, "nuc", dim=(1, 2)).cpu().numpy(),
                               [np.linalg.norm(m, "nuc") for m in b.cpu().numpy()], rtol=1e-12)


def test_sgd_default_lr():
    w = pdt.zeros(2, requires_grad=True)
    opt = pdt.optim.SGD([w])
    assert opt.param_groups[0]["lr"] == 1e-3
    assert inspect.signature(pdt.optim.SGD).parameters["lr"].default == 1e-3
    torch = torch_or_skip()
    assert inspect.signature(torch.optim.SGD).parameters["lr"].default == 1e-3


def test_arange_signature():
    sig = inspect.signature(pdt.arange)
    assert list(sig.parameters)[:3] == ["start", "end", "step"]
    assert sig.parameters["end"].default is None and sig.parameters["step"].default == 1
    assert sig.parameters["dtype"].kind is inspect.Parameter.KEYWORD_ONLY


def test_cumsum_accumulates_in_float64(dev):
    """float32 (and the half types) sum in float64 on every device, each running sum
    rounded once: the float32-accumulating version is 958 away here."""
    x = pdt.full((10**6,), 0.1, device=dev)
    got = x.cumsum(0).cpu().numpy()
    ref = np.cumsum(np.full(10**6, np.float32(0.1), dtype=np.float64))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=6e-8)  # float32 rounding of each sum
    assert got[-1] == np.float32(ref[-1]) == np.float32(100000.0)
    h = pdt.full((4096,), 0.1, dtype=pdt.bfloat16, device=dev).cumsum(0)
    assert h.dtype == pdt.bfloat16
    rb = np.cumsum(np.full(4096, float(pdt.tensor(0.1, dtype=pdt.bfloat16).item())))
    np.testing.assert_allclose(h.to(pdt.float64).cpu().numpy(), rb, rtol=8e-3)
    rp = np.cumprod(np.full(30, np.float32(0.1), dtype=np.float64)).astype(np.float32)
    np.testing.assert_array_equal(x[:30].cumprod(0).cpu().numpy(), rp)  # cumprod's too
    torch = torch_or_skip()
    assert torch.full((10**6,), 0.1).cumsum(0)[-1].item() == got[-1]


def test_creation_docstrings_name_their_function():
    for name in ("empty", "zeros", "ones", "rand", "randn"):
        doc = getattr(pdt, name).__doc__
        assert f"{name}(2, 3), {name}((2, 3))" in doc, name


def test_histogram_of_an_empty_input_and_the_method(dev):
    # an empty input's range is [0, 1], as NumPy's (and PyTorch's)
    for bins in (2, 3):
        h, e = pdt.histogram(pdt.zeros(0, dtype=pdt.float64, device=dev), bins)
        want_h, want_e = _hist_ref(np.zeros(0), bins)
        np.testing.assert_array_equal(h.cpu().numpy(), want_h)
        np.testing.assert_allclose(e.cpu().numpy(), want_e, rtol=1e-15)
    rng = np.random.default_rng(5)
    a = rng.normal(size=50)
    x = pdt.tensor(a, dtype=pdt.float64, device=dev)
    h, e = x.histogram(4, range=(-1.0, 1.0), density=True)  # the Tensor method
    want_h, want_e = _hist_ref(a, 4, (-1.0, 1.0), density=True)
    np.testing.assert_allclose(h.cpu().numpy(), want_h, rtol=1e-13)
    np.testing.assert_allclose(e.cpu().numpy(), want_e, rtol=1e-15)


def test_cov_weights_checked_and_promoted_as_torch(dev):
    """Negative fweights or aweights raise, as PyTorch's (they gave a covariance, or inf);
    float32 input with float64 aweights computes in float64 (the promoted dtype), as
    numpy.cov does."""
    a = np.array([[1.0, 2.0, 4.5, 0.25], [0.0, 3.0, 1.0, -2.0]])
    w = np.array([1.0, 0.3, 2.0, 0.7])
    x = pdt.tensor(a, dtype=pdt.float32, device=dev)
    got = pdt.cov(x, aweights=pdt.tensor(w, device=dev))
    assert got.dtype == pdt.float64
    np.testing.assert_allclose(got.cpu().numpy(), np.cov(a.astype(np.float32), aweights=w),
                               rtol=1e-13)
    with pytest.raises(RuntimeError, match="fweights cannot be negative"):
        pdt.cov(x, fweights=pdt.tensor([1, 0, -2, 1], device=dev))
    with pytest.raises(RuntimeError, match="aweights cannot be negative"):
        pdt.cov(x, aweights=pdt.tensor([1.0, 0.0, -0.5, 1.0], device=dev))
