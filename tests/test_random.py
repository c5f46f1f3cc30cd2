"""The Philox generator: same bits on every device, checked against NumPy (issue 3)."""
import numpy as np
import pytest

import pydevtensor as pdt
import philox_ref as ref

# Known-answer vectors of Philox 4x32-10 from the Random123 distribution (kat_vectors).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_reference_matches_known_answers(ctr, key, expected):
    out = ref.philox4x32_10(np.array([ctr], dtype=np.uint32), key)
    assert tuple(int(v) for v in out[0]) == expected


def test_default_seed_is_pytorchs():
    import subprocess, sys
    out = subprocess.run([sys.executable, "-c", "import pydevtensor as p; print(p.initial_seed())"],
                         capture_output=True, text=True, check=True).stdout
    assert int(out) == 67280421310721


@pytest.mark.parametrize("n", [1, 3, 4, 5, 1000, 4097])
def test_rand_float32_bits_match_reference(n):
    seed = 1234567890123
    pdt.manual_seed(seed)
    first = pdt.rand(n).numpy()
    np.testing.assert_array_equal(first.view(np.uint32), ref.uniform_f32(seed, 0, n).view(np.uint32))
    # the stream advances by the blocks used: ceil(n / 4)
    second = pdt.rand(3).numpy()
    np.testing.assert_array_equal(second, ref.uniform_f32(seed, (n + 3) // 4, 3))


def test_rand_float64_and_shape():
    pdt.manual_seed(7)
    x = pdt.rand(3, 5, dtype=pdt.float64)
    assert x.shape == (3, 5) and x.dtype == pdt.float64
    np.testing.assert_array_equal(x.numpy().reshape(-1), ref.uniform_f64(7, 0, 15))
    assert 0.0 <= x.numpy().min() and x.numpy().max() < 1.0


def test_randn_matches_reference_within_libm():
    pdt.manual_seed(99)
    z64 = pdt.randn(1001, dtype=pdt.float64).numpy()
    np.testing.assert_allclose(z64, ref.normal_f64(99, 0, 1001), rtol=1e-14, atol=1e-14)
    pdt.manual_seed(99)
    z32 = pdt.randn(1001).numpy()
    np.testing.assert_allclose(z32, ref.normal_f64(99, 0, 1001).astype(np.float32), rtol=1e-6,
                               atol=1e-6)
    big = pdt.randn(200_000, dtype=pdt.float64).numpy()
    assert abs(big.mean()) < 0.01 and abs(big.std() - 1) < 0.01


@pytest.mark.parametrize("low,high", [(0, 10), (-5, 5), (0, 2**40), (-(2**62), 2**62)])
def test_randint_matches_reference(low, high):
    pdt.manual_seed(5)
    x = pdt.randint(low, high, (257,))
    assert x.dtype == pdt.int64
    got = x.numpy()
    np.testing.assert_array_equal(got, ref.randint(5, 0, 257, low, high))
    assert got.min() >= low and got.max() < high


def test_randint_forms_and_dtype():
    pdt.manual_seed(1)
    a = pdt.randint(10, (4, 4))
    pdt.manual_seed(1)
    b = pdt.randint(0, 10, size=(4, 4), dtype=pdt.int32)
    assert a.shape == (4, 4) and b.dtype == pdt.int32
    assert a.tolist() == b.tolist()


def test_seed_reproduces_and_streams_advance():
    pdt.manual_seed(42)
    a = pdt.rand(10).tolist()
    b = pdt.rand(10).tolist()
    pdt.manual_seed(42)
    assert pdt.rand(10).tolist() == a
    assert a != b


@pytest.mark.parametrize("bad,exc", [
    (lambda: pdt.rand(2, dtype=pdt.int64), TypeError),
    (lambda: pdt.randn(2, dtype=pdt.bool), TypeError),
    (lambda: pdt.randint(5, 5, (2,)), ValueError),
    (lambda: pdt.randint(5, 3), TypeError),
    (lambda: pdt.rand(), TypeError),
    (lambda: pdt.rand(-1), ValueError),
    (lambda: pdt.manual_seed(1.5), TypeError),
])
def test_bad_random_arguments(bad, exc):
    with pytest.raises(exc):
        bad()


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_same_bits_on_every_device(dtype):
    """PyTorch cannot do this: one seed, the same rand() on the CPU and every GPU."""
    results = []
    for d in ["cpu"] + [f"cuda:{i}" for i in range(pdt.device_count())]:
        pdt.manual_seed(2024)
        results.append(pdt.rand(1000, 3, dtype=dtype, device=d).cpu().numpy())
        pdt.manual_seed(2024)
        results.append(pdt.randint(-3, 3, (1000,), device=d).cpu().numpy())
    for i in range(2, len(results), 2):
        np.testing.assert_array_equal(results[i].view(np.uint8), results[0].view(np.uint8))
        np.testing.assert_array_equal(results[i + 1], results[1])


@pytest.mark.cuda
def test_randn_close_on_every_device():
    pdt.manual_seed(3)
    cpu = pdt.randn(4096, dtype=pdt.float64).numpy()
    pdt.manual_seed(3)
    gpu = pdt.randn(4096, dtype=pdt.float64, device="cuda").cpu().numpy()
    np.testing.assert_allclose(gpu, cpu, rtol=1e-13, atol=1e-13)


def test_normal_forms_statistics_and_errors(device):
    # torch.normal's forms: numbers with a size, or tensors (broadcast, their device)
    pdt.manual_seed(11)
    x = pdt.normal(2.0, 0.5, (200_000,), dtype=pdt.float64, device=device)
    assert x.device == device and x.dtype == pdt.float64 and x.shape == (200_000,)
    a = x.cpu().numpy()
    assert abs(a.mean() - 2.0) < 5 * 0.5 / np.sqrt(a.size)
    assert abs(a.std() - 0.5) < 5 * 0.5 / np.sqrt(2 * a.size)
    pdt.manual_seed(11)  # one seed, the same samples as on the CPU (randn's accuracy)
    np.testing.assert_allclose(a, pdt.normal(2.0, 0.5, (200_000,), dtype=pdt.float64).numpy(),
                               rtol=1e-13, atol=1e-13)
    m = pdt.tensor([[0.0], [10.0]], device=device, requires_grad=True)
    s = pdt.tensor([1.0, 0.0, 2.0], device=device)
    pdt.manual_seed(5)
    y = pdt.normal(m, s)
    pdt.manual_seed(5)
    z = pdt.randn(2, 3, device=device)
    assert y.shape == (2, 3) and y.device == device and y.requires_grad  # recorded, as PyTorch
    np.testing.assert_array_equal(y.detach().cpu().numpy(), (z * s + m.detach()).cpu().numpy())
    assert y[1, 1].item() == 10.0  # std 0: the mean itself
    assert pdt.normal(m, 2.0).shape == (2, 1) and pdt.normal(1.0, s).shape == (3,)
    # mean's dtype (computed in float32 or wider, rounded once), else std's
    half = pdt.zeros(3, dtype=pdt.float16, device=device)
    assert pdt.normal(half, s).dtype == pdt.float16
    assert pdt.normal(m, s.double()).dtype == pdt.float32
    assert pdt.normal(1.0, s.double()).dtype == pdt.float64
    assert pdt.normal(0.0, 1.0, 4, device=device, requires_grad=True).requires_grad
    for call, exc, words in [
        (lambda: pdt.normal(0.0, 1.0), TypeError, "give the size"),
        (lambda: pdt.normal(0.0, -1.0, (2,)), ValueError,
         "expects std >= 0.0, but found std -1.0"),
        (lambda: pdt.normal(0.0, float("nan"), (2,)), ValueError,
         "expects std >= 0.0, but found std nan"),
        (lambda: pdt.normal(pdt.zeros(2, dtype=pdt.int64, device=device), 1.0), TypeError,
         "mean must be a floating-point tensor, got pydevtensor.int64"),
        (lambda: pdt.normal(m, 1.0, (2,)), TypeError, "size, dtype and device are for"),
        (lambda: pdt.normal("a", 1.0, (2,)), TypeError, "mean must be a number or a Tensor"),
        (lambda: pdt.normal(m, pdt.ones(3, 4, device=device)), ValueError, "do not broadcast"),
    ]:
        with pytest.raises(exc, match=words):
            call()


def test_normal_of_tensors_that_require_grad_is_recorded_with_zero_gradients(device):
    """normal(mean, std) is a draw: PyTorch records it (NormalBackward3) with zero
    gradients for mean and std; it lost the graph here, and backward() raised."""
    m = pdt.zeros(2, 3, device=device, requires_grad=True)
    s = pdt.ones(3, device=device, dtype=pdt.float32, requires_grad=True)
    for args, inputs in (((m, s), (m, s)), ((m, 1.0), (m,)), ((0.5, s), (s,))):
        pdt.manual_seed(0)
        r = pdt.normal(*args)
        pdt.manual_seed(0)
        with pdt.no_grad():
            same = pdt.normal(*args)
        np.testing.assert_array_equal(r.detach().cpu().numpy(), same.cpu().numpy())
        assert r.requires_grad and type(r.grad_fn).__name__ == "NormalBackward3"
        grads = pdt.autograd.grad(r.sum(), inputs)
        for g, x in zip(grads, inputs):
            assert tuple(g.shape) == tuple(x.shape) and not g.cpu().numpy().any()
    assert not pdt.normal(m.detach(), s.detach()).requires_grad
