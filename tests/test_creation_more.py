"""asarray, frombuffer, scalar_tensor and the signal windows (_ops_creation_more.py)."""
import array
import sys

import numpy as np
import pytest

import pydevtensor as pdt


def test_asarray_shares_an_array_and_a_buffer():
    a = np.arange(4.)
    t = pdt.asarray(a)
    a[0] = 7.
    assert t.dtype == pdt.float64 and t.tolist() == [7., 1., 2., 3.]
    b = array.array("f", [1., 2.])
    u = pdt.asarray(b)
    b[1] = 5.
    assert u.dtype == pdt.float32 and u.tolist() == [1., 5.]
    c = pdt.asarray(a, copy=True)
    a[1] = 9.
    assert c.tolist() == [7., 1., 2., 3.]


def test_asarray_copy_false_refuses_a_copy():
    with pytest.raises(ValueError, match="can't alias tensor with dtype"):
        pdt.asarray(np.arange(3.), dtype=pdt.float32, copy=False)
    with pytest.raises(ValueError, match="can't alias arbitrary sequence"):
        pdt.asarray([1, 2], copy=False)
    assert pdt.asarray(np.arange(3.), dtype=pdt.float32).dtype == pdt.float32


def test_asarray_of_a_tensor(device):
    x = pdt.ones(3, device=device)
    assert pdt.asarray(x) is x and pdt.asarray(x, device=device, copy=False) is x
    y = pdt.asarray(x, copy=True)
    y.fill_(2.)
    assert y is not x and x.tolist() == [1., 1., 1.]
    z = pdt.asarray(x, dtype=pdt.float64)
    assert z.dtype == pdt.float64 and z.device == x.device
    with pytest.raises(ValueError, match="can't alias"):
        pdt.asarray(x, dtype=pdt.int64, copy=False)
    w = pdt.asarray([[1, 2], [3, 4]], dtype=pdt.float32, device=device, requires_grad=True)
    assert w.requires_grad and w.device == x.device and w.tolist() == [[1., 2.], [3., 4.]]
    assert pdt.asarray(2.5).item() == 2.5 and pdt.asarray(b"ab").tolist() == [97, 98]


def test_frombuffer_shares_and_checks_its_range():
    b = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = pdt.frombuffer(b, dtype=pdt.float32, count=2, offset=4)
    assert t.tolist() == [1., 2.]
    b[4:8] = np.float32(9).tobytes()
    assert t.tolist() == [9., 2.]
    del b
    assert t.tolist() == [9., 2.]  # the tensor holds the buffer
    with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
        pdt.frombuffer(bytearray(8), dtype=pdt.float32, count=3)
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        pdt.frombuffer(bytearray(9), dtype=pdt.float32)
    with pytest.raises(ValueError, match="no greater than buffer length"):
        pdt.frombuffer(bytearray(8), dtype=pdt.uint8, offset=8)
    with pytest.raises(ValueError, match="buffer protocol"):
        pdt.frombuffer([1, 2], dtype=pdt.float32)


def test_frombuffer_copies_a_read_only_buffer():
    """bytes and other read-only buffers are copied (PyTorch shares them writably, with a
    warning): a write through the tensor never reaches the immutable object."""
    data = np.arange(4, dtype=np.float32).tobytes()
    frozen = bytes(data)
    view = memoryview(bytearray(data)).toreadonly()
    for buffer in (frozen, view, np.frombuffer(data, np.float32)):
        t = pdt.frombuffer(buffer, dtype=pdt.float32)
        t.fill_(-1.0)
        assert t.tolist() == [-1.0] * 4 and bytes(buffer) == data
    assert frozen == data


def test_frombuffer_reads_bfloat16_without_ml_dtypes(monkeypatch):
    """frombuffer(dtype=bfloat16) reads the bytes as bfloat16 in place (it asked NumPy for
    a bfloat16 dtype, which needs the ml_dtypes package: a TypeError without it)."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as where it is not installed
    bits = np.array([0x3F80, 0x4000, 0xC0A0], dtype=np.uint16)  # 1, 2, -5 as bfloat16
    b = bytearray(bits.tobytes())
    t = pdt.frombuffer(b, dtype=pdt.bfloat16, offset=2)
    assert t.dtype == pdt.bfloat16 and t.float().tolist() == [2.0, -5.0]
    b[2:4] = np.uint16(0x4040).tobytes()  # 3.0: the tensor shares the buffer
    assert t.float().tolist() == [3.0, -5.0]
    assert pdt.frombuffer(b, dtype=pdt.bfloat16, count=1).float().tolist() == [1.0]


def test_scalar_tensor(device):
    t = pdt.scalar_tensor(3, device=device)
    assert t.shape == () and t.dtype == pdt.float32 and t.item() == 3. and t.device == device
    assert pdt.scalar_tensor(True, dtype=pdt.int64).item() == 1
    assert pdt.scalar_tensor(pdt.ones(())).item() == 1.0  # a 0-d tensor, as PyTorch's
    with pytest.raises(TypeError, match="must be Number"):
        pdt.scalar_tensor(pdt.ones(2))


@pytest.mark.parametrize("name,ref", [("hann_window", np.hanning),
                                      ("hamming_window", np.hamming),
                                      ("blackman_window", np.blackman),
                                      ("bartlett_window", np.bartlett)])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
def test_windows_match_numpy(device, name, ref, n):
    f = getattr(pdt, name)
    sym = f(n, periodic=False, dtype=pdt.float64, device=device)
    np.testing.assert_allclose(sym.cpu().numpy(), ref(n), atol=1e-12)
    per = f(n, dtype=pdt.float64, device=device)  # periodic: n + 1 points, the last dropped
    np.testing.assert_allclose(per.cpu().numpy(), ref(n + 1)[:n] if n > 1 else np.ones(n),
                               atol=1e-12)
    assert f(n, device=device).dtype == pdt.float32 and per.device == device


def test_kaiser_and_hamming_parameters(device):
    for beta in (0., 3., 12.):
        w = pdt.kaiser_window(9, False, beta, dtype=pdt.float64, device=device)
        np.testing.assert_allclose(w.cpu().numpy(), np.kaiser(9, beta), rtol=1e-12)
    np.testing.assert_allclose(pdt.kaiser_window(8, dtype=pdt.float64).numpy(),
                               np.kaiser(9, 12.)[:8], rtol=1e-12)
    n = np.arange(5)
    np.testing.assert_allclose(pdt.hamming_window(5, False, 0.6, 0.3, dtype=pdt.float64)
                               .numpy(), 0.6 - 0.3 * np.cos(2 * np.pi * n / 4), atol=1e-12)


def test_window_errors():
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        pdt.hann_window(-1)
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        pdt.kaiser_window(4, dtype=pdt.int64)
    with pytest.raises(TypeError, match="must be int, not float"):
        pdt.bartlett_window(4.0)


def test_flags_are_bools_as_pytorchs(device):
    # keepdim="no" was read by its truth (True), requires_grad=1 too; NumPy's bool is one
    x = pdt.ones(2, 3, device=device)
    assert x.sum(0, keepdim=np.True_).shape == (1, 3)
    assert x.sum(0, keepdim=False).shape == (3,)
    for call in (lambda: x.sum(0, keepdim="no"), lambda: x.sum(0, keepdim=1),
                 lambda: pdt.ones(2, device=device, requires_grad=1),
                 lambda: x.to(device, non_blocking=2)):
        with pytest.raises(TypeError, match=r"argument '\w+' must be bool, not (str|int)"):
            call()
