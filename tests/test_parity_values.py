"""Results that differed from PyTorch 2.15 when run side by side (each against NumPy or
exact integer arithmetic here): isclose on integers and infinities, round(decimals=) of
halves, ldexp's and nextafter's dtypes, logspace's default dtype, arange beyond 2**53,
max(dim=<0-d tensor>), the creation functions' keyword names, interpolate 'area' of 5-d
input, linear with a 1-d weight, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
import pydevtensor.nn.functional as F


def test_isclose_integers_use_the_tolerance_and_infinities_are_close_only_to_themselves(
        device):
    a = np.array([100, 2**31 - 1, 7], dtype=np.int64)
    b = np.array([101, 2**31 - 2, 9], dtype=np.int64)
    got = pdt.isclose(pdt.tensor(a, device=device), pdt.tensor(b, device=device), atol=2)
    np.testing.assert_array_equal(got.cpu().numpy(), np.isclose(a, b, atol=2))
    x = np.array([1.0, -3e38, math.inf, -math.inf, math.nan, 1.0], dtype=np.float32)
    y = np.array([math.inf, -math.inf, math.inf, math.inf, math.nan, 1.0000001],
                 dtype=np.float32)
    for equal_nan in (False, True):
        got = pdt.isclose(pdt.tensor(x, device=device), pdt.tensor(y, device=device),
                          equal_nan=equal_nan)
        np.testing.assert_array_equal(got.cpu().numpy(), np.isclose(x, y, equal_nan=equal_nan))
    assert not pdt.allclose(pdt.tensor([1.0], device=device),
                            pdt.tensor([math.inf], device=device))
    t = pdt.tensor([True, False], device=device)
    assert pdt.isclose(t, pdt.tensor([True, True], device=device), atol=1).tolist() == \
        [True, True]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_round_decimals_of_halves_computes_in_float32(device, dtype):
    values = np.array([123.4, 60000.0, 1.85, -2.675, 0.125], dtype=np.float32)
    x = pdt.tensor(values, device=device).to(getattr(pdt, dtype))
    stored = x.float().cpu().numpy().astype(np.float64)
    for d in (3, 1, -2):
        got = pdt.round(x, decimals=d)
        assert got.dtype == x.dtype
        s = np.float32(10.0 ** abs(d))
        v = stored.astype(np.float32)
        want = np.round(v * s) / s if d > 0 else np.round(v / s) * s
        want = pdt.tensor(want.astype(np.float32)).to(x.dtype).float().numpy()
        np.testing.assert_array_equal(got.float().cpu().numpy(), want)
    assert np.isnan(pdt.round(pdt.tensor([1.25], device=device), decimals=400).item())


@pytest.mark.parametrize("a,b,want", [("float16", "int64", "float16"),
                                      ("bfloat16", "int32", "bfloat16"),
                                      ("int64", "int64", "float32"),
                                      ("int32", "float16", "float16"),
                                      ("float32", "float64", "float64")])
def test_ldexp_dtype_is_the_operands_floating_type(device, a, b, want):
    x = pdt.tensor([1.5, -3.0], device=device).to(getattr(pdt, a))
    e = pdt.tensor([3, -1], device=device).to(getattr(pdt, b))
    got = pdt.ldexp(x, e)
    assert got.dtype == getattr(pdt, want)
    np.testing.assert_array_equal(got.double().cpu().numpy(),
                                  np.ldexp(x.double().cpu().numpy(), [3, -1]))


def test_nextafter_takes_the_dtype_of_the_dimensioned_operand(device):
    x = pdt.tensor([1.5], dtype=pdt.float16, device=device)
    got = pdt.nextafter(x, pdt.tensor(3.0, dtype=pdt.bfloat16, device=device))
    assert got.dtype == pdt.float16
    assert got.float().item() == float(np.nextafter(np.float16(1.5), np.float16(3.0)))


def test_logspace_follows_the_default_dtype(device):
    pdt.set_default_dtype(pdt.float64)
    try:
        got = pdt.logspace(0, 1, 3, device=device)
    finally:
        pdt.set_default_dtype(pdt.float32)
    assert got.dtype == pdt.float64
    np.testing.assert_allclose(got.cpu().numpy(), np.logspace(0, 1, 3), rtol=1e-15)


@pytest.mark.parametrize("args", [(2**62, 2**62 + 3), (2**53 + 1, 2**53 + 4),
                                  (-2**63, -2**63 + 3), (2**63 - 4, 2**63 - 1),
                                  (2**62 + 1, 2**62 + 10, 3), (5, -5, -3),
                                  (-2**63, 2**63 - 1, 2**62)])
def test_arange_of_large_integers_is_exact(device, args):
    got = pdt.arange(*args, device=device)
    assert got.dtype == pdt.int64
    assert got.tolist() == list(range(*args))


def test_max_min_with_a_tensor_dim_reduce_and_other_is_elementwise(device):
    a = np.arange(12.0).reshape(3, 4)
    x = pdt.tensor(a, device=device)
    values, indices = pdt.max(x, dim=pdt.tensor(1))
    np.testing.assert_array_equal(values.cpu().numpy(), a.max(1))
    np.testing.assert_array_equal(indices.cpu().numpy(), a.argmax(1))
    values, _ = x.min(dim=pdt.tensor(0), keepdim=True)
    np.testing.assert_array_equal(values.cpu().numpy(), a.min(0, keepdims=True))
    five = pdt.full((3, 4), 5.0, dtype=pdt.float64, device=device)
    np.testing.assert_array_equal(pdt.max(x, other=five).cpu().numpy(), np.maximum(a, 5))
    np.testing.assert_array_equal(x.min(other=five).cpu().numpy(), np.minimum(a, 5))
    leaf = pdt.tensor(a, device=device, requires_grad=True)
    pdt.max(leaf, dim=pdt.tensor(1))[0].sum().backward()
    np.testing.assert_array_equal(leaf.grad.cpu().numpy(),
                                  np.eye(4)[a.argmax(1)])


def test_creation_functions_take_pytorchs_keyword_names(device):
    assert pdt.full(size=(2, 3), fill_value=7, device=device).tolist() == [[7] * 3] * 2
    assert pdt.eye(n=2, m=3, device=device).tolist() == np.eye(2, 3).tolist()
    assert pdt.eye(2, m=3, device=device).shape == (2, 3)
    np.testing.assert_allclose(pdt.linspace(start=0, end=1, steps=5, device=device).cpu()
                               .numpy(), np.linspace(0, 1, 5), rtol=1e-7)
    np.testing.assert_allclose(pdt.linspace(0, end=1, steps=3, device=device).cpu().numpy(),
                               np.linspace(0, 1, 3), rtol=1e-7)


def test_interpolate_area_of_a_5d_input_is_adaptive_average_pooling(device):
    a = np.random.default_rng(1).standard_normal((2, 3, 4, 6, 5))
    got = F.interpolate(pdt.tensor(a, device=device), size=(2, 3, 5), mode="area")
    want = np.empty((2, 3, 2, 3, 5))
    for i, (d0, d1) in enumerate([(0, 2), (2, 4)]):
        for j, (h0, h1) in enumerate([(0, 2), (2, 4), (4, 6)]):
            want[:, :, i, j, :] = a[:, :, d0:d1, h0:h1, :].mean(axis=(2, 3))
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


def test_linear_with_a_1d_weight_drops_the_last_dim(device):
    a = np.random.default_rng(2).standard_normal((4, 5))
    w = np.random.default_rng(3).standard_normal(5)
    got = F.linear(pdt.tensor(a, device=device), pdt.tensor(w, device=device))
    np.testing.assert_allclose(got.cpu().numpy(), a @ w, rtol=1e-12)


def test_embedding_bag_repr_names_every_set_option():
    bag = pdt.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                              padding_idx=2)
    assert repr(bag) == ("EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, "
                         "scale_grad_by_freq=True, mode='mean', padding_idx=2)")


def test_size_checks_its_items_and_sums_stay_sizes():
    s = pdt.ones(2, 3, 4).shape
    for other in (s + (5,), (5,) + s, s * 2, 2 * s):
        assert type(other) is pdt.Size
    assert (s + (5,)).numel() == 120 and (2 * s) == (2, 3, 4, 2, 3, 4)
    assert pdt.Size([pdt.tensor(2), 3]) == (2, 3) and type(pdt.Size([2])[0]) is int
    for bad, item in (([2.5, 3], "item 0 is 'float'"), ([-1, "a"], "item 1 is 'str'")):
        with pytest.raises(TypeError, match=item):
            pdt.Size(bad)
    import pickle
    assert type(pickle.loads(pickle.dumps(s))) is pdt.Size


def test_cross_entropy_and_nll_take_uint8_class_targets(device):
    """PyTorch takes Long or Byte targets: labels stored as uint8 (MNIST's) work."""
    a = np.random.default_rng(7).standard_normal((3, 4))
    x = pdt.tensor(a, device=device)
    labels = [1, 2, 3]
    logp = a - np.log(np.exp(a).sum(1, keepdims=True))
    want = -logp[np.arange(3), labels].mean()
    for dtype in (pdt.uint8, pdt.int64):
        t = pdt.tensor(labels, dtype=dtype, device=device)
        np.testing.assert_allclose(F.cross_entropy(x, t).item(), want, rtol=1e-12)
        np.testing.assert_allclose(F.nll_loss(pdt.tensor(logp, device=device), t).item(),
                                   want, rtol=1e-12)


def test_svd_of_a_matrix_with_inf_or_nan_returns_nan_not_a_hang():
    """OpenBLAS's gesdd looped forever on [[inf, -1, 0, 3]] * 3 (and so pinv and
    pinverse); a matrix holding inf comes out NaN, as PyTorch's, the others of a batch
    as they are (one holding NaN still raises, as PyTorch's).  Run in a child process
    with a time limit, so a hang fails the test."""
    import subprocess
    import sys
    code = (
        "import math, pydevtensor as T\n"
        "x = T.tensor([[math.inf, -1., 0., 3.]] * 3)\n"
        "U, S, Vh = T.linalg.svd(x)\n"
        "assert S.isnan().all() and U.isnan().all() and Vh.isnan().all()\n"
        "assert T.linalg.pinv(x).isnan().all() and T.linalg.svdvals(x.T).isnan().all()\n"
        "b = T.stack([T.eye(3)[:2], T.tensor([[-math.inf, 0., 1.], [0., 1., 2.]])])\n"
        "S = T.linalg.svd(b, full_matrices=False).S\n"
        "assert S[0].tolist() == [1.0, 1.0] and S[1].isnan().all()\n"
        "try:\n"
        "    T.linalg.svd(T.tensor([[math.nan, 1.], [2., 3.], [4., 5.]]))\n"
        "except T.linalg.LinAlgError:\n"
        "    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_fuzzed_differences_fixed(device):
    """Found by a differential fuzzer against PyTorch 2.15: results that shared memory
    with their input (repeat_interleave(1), ravel of a strided input, logcumsumexp of a
    0-d tensor), nansum's dtype, isclose on uint8 (a wrapping difference), square of
    bools, cov/corrcoef of one variable."""
    x = pdt.arange(6.0, device=device).reshape(2, 3)
    x.repeat_interleave(1).fill_(100.0)
    assert x[0, 0].item() == 0.0
    y = pdt.arange(12.0, device=device).reshape(3, 4)[:, ::2]
    r = y.ravel()
    assert r.is_contiguous() and r.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    r.fill_(-1.0)
    assert y[0, 0].item() == 0.0
    t = pdt.tensor(3.0, device=device)
    t.logcumsumexp(0).fill_(100.0)
    assert t.item() == 3.0
    ints = pdt.tensor([1, 2, 300], device=device)
    got = ints.nansum(0, dtype=pdt.int8)
    assert got.dtype == pdt.int8 and got.item() == int(np.array([1, 2, 300]).astype(np.int8)
                                                         .sum(dtype=np.int8))
    assert ints.nansum(dtype=pdt.bool).item() is True
    u = pdt.tensor([4, 8, 1], dtype=pdt.uint8, device=device)
    v = pdt.tensor([5, 9, 0], dtype=pdt.uint8, device=device)
    assert u.isclose(v, 0.0, 1.0).tolist() == [True, True, True]
    sq = pdt.tensor([True, False], device=device).square()
    assert sq.dtype == pdt.int64 and sq.tolist() == [1, 0]
    one = pdt.tensor([[1.0, 2.0, 4.0]], dtype=pdt.float64, device=device)
    np.testing.assert_allclose(pdt.cov(one).item(), np.cov([1.0, 2.0, 4.0]), rtol=1e-15)
    assert pdt.cov(one).shape == () and pdt.corrcoef(one).shape == ()


def test_xlogy_takes_the_log_in_the_result_dtype(device):
    """A float16 other beside a float64 input: its log in float64 (it was taken in
    float16, 1.1309 for log(3.1) instead of 1.1313)."""
    x = pdt.tensor([1.0, 0.0, 2.0], dtype=pdt.float64, device=device)
    y = pdt.tensor([3.1, 0.0, 5.0], dtype=pdt.float16, device=device)
    yv = y.double().cpu().numpy()
    for fn, want in ((pdt.xlogy, np.array([1.0, 0.0, 2.0]) * np.log(np.where(yv == 0, 1, yv))),
                     (pdt.special.xlog1py, np.array([1.0, 0.0, 2.0]) * np.log1p(yv))):
        got = fn(x, y)
        assert got.dtype == pdt.float64
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-15)


def test_addcmul_addcdiv_promote_their_three_operands_at_once(device):
    """PyTorch's: a 0-d float64 factor beside float32 tensors stays float32 (pairwise
    promotion made float64), a bfloat16 input with integer and 0-d float factors stays
    bfloat16, and a float16 numerator over an int32 denominator divides in float32."""
    def t(v, dt):
        return pdt.tensor(v, device=device).to(dt)
    got = t([1.0, 2.0], pdt.float32).addcmul(t([1, 2], pdt.int64), t(2.0, pdt.float64))
    assert got.dtype == pdt.float32 and got.tolist() == [3.0, 6.0]
    got = t([1.0, 2.0], pdt.bfloat16).addcmul(t([1, 2], pdt.int64), t(2.0, pdt.float32))
    assert got.dtype == pdt.bfloat16 and got.float().tolist() == [3.0, 6.0]
    got = t([1.0], pdt.float32).addcdiv(t([1.0], pdt.float16), t([3], pdt.int32))
    assert got.dtype == pdt.float32
    assert got.item() == float(np.float32(1) + np.float32(1) / np.float32(3))
