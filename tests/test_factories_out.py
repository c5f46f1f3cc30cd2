"""out= of the C factories (Note [factories into out] in csrc/python/tensor_create.c): the
result in out's dtype and device, written in place where out has its shape, adopted by an
empty out, and every refusal before the first write, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt


def host(t):
    return t.cpu().numpy()


# (call, the same values without out=, for a float32 out of the result's shape)
CASES = [
    ("zeros", lambda **k: pdt.zeros(2, 3, **k), np.zeros((2, 3))),
    ("ones", lambda **k: pdt.ones((2, 3), **k), np.ones((2, 3))),
    ("full", lambda **k: pdt.full((2, 3), 2.5, **k), np.full((2, 3), 2.5)),
    ("eye", lambda **k: pdt.eye(2, 3, **k), np.eye(2, 3)),
    ("arange", lambda **k: pdt.arange(1, 7, **k), np.arange(1.0, 7.0)),
    ("arange float", lambda **k: pdt.arange(0, 1.5, 0.25, **k), np.arange(0, 1.5, 0.25)),
    ("linspace", lambda **k: pdt.linspace(-1, 1, 5, **k), np.linspace(-1, 1, 5)),
]


@pytest.mark.parametrize("name,make,want", CASES, ids=[c[0] for c in CASES])
def test_outs_of_the_result_shape_are_written_in_place(device, name, make, want):
    out = pdt.full(want.shape, -7.0, device=device)
    before = out._version
    got = make(out=out)
    assert got is out
    assert out.dtype == pdt.float32 and out.device == device
    np.testing.assert_array_equal(host(out), want.astype(np.float32))
    assert out._version > before


@pytest.mark.parametrize("name,make,want", CASES, ids=[c[0] for c in CASES])
def test_empty_outs_take_the_result_shape_and_their_dtype(device, name, make, want):
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    assert make(out=out) is out
    assert out.shape == want.shape and out.dtype == pdt.float64 and out.device == device
    np.testing.assert_allclose(host(out), want, rtol=1e-15, atol=0)


def test_strided_outs_of_the_result_shape(device):
    base = pdt.zeros(4, 6, device=device)
    view = base[:, ::2]  # (4, 3), not contiguous: made apart, then copied in
    assert pdt.ones(4, 3, out=view) is view
    want = np.zeros((4, 6), np.float32)
    want[:, ::2] = 1
    np.testing.assert_array_equal(host(base), want)
    pdt.manual_seed(5)
    pdt.rand(4, 3, out=view)
    pdt.manual_seed(5)
    np.testing.assert_array_equal(host(view), host(pdt.rand(4, 3, device=device)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_random_outs_draw_what_the_factory_draws(device, dtype):
    dt = getattr(pdt, dtype)
    for fn in (pdt.rand, pdt.randn):
        pdt.manual_seed(11)
        want = fn(5, 7, dtype=dt, device=device)
        for out in (pdt.empty(5, 7, dtype=dt, device=device),
                    pdt.empty(0, dtype=dt, device=device)):
            pdt.manual_seed(11)
            assert fn(5, 7, out=out) is out
            np.testing.assert_array_equal(host(out), host(want))
    pdt.manual_seed(3)
    want = pdt.randint(-4, 9, (6,), dtype=pdt.int32, device=device)
    out = pdt.empty(6, dtype=pdt.int32, device=device)
    pdt.manual_seed(3)
    assert pdt.randint(-4, 9, (6,), out=out) is out
    np.testing.assert_array_equal(host(out), host(want))


def test_a_buffer_refilled_in_a_loop_keeps_its_memory(device):
    buf = pdt.empty(1000, device=device)
    ptr = buf.data_ptr()
    for _ in range(3):
        pdt.randn(1000, out=buf)
        pdt.zeros(1000, out=buf)
    assert buf.data_ptr() == ptr and not host(buf).any()


def test_views_of_out_see_the_write(device):
    out = pdt.empty(2, 3, device=device)
    row = out[1]
    pdt.full((2, 3), 4.0, out=out)
    np.testing.assert_array_equal(host(row), np.full(3, 4.0, np.float32))


def test_the_result_takes_outs_dtype(device):
    out = pdt.empty(0, dtype=pdt.int64, device=device)
    assert pdt.arange(5, out=out) is out and out.dtype == pdt.int64
    np.testing.assert_array_equal(host(out), np.arange(5))
    out = pdt.empty(0, device=device)  # an int arange into a float32 out, as PyTorch's
    pdt.arange(3, out=out)
    assert out.dtype == pdt.float32
    np.testing.assert_array_equal(host(out), [0.0, 1.0, 2.0])
    out = pdt.empty(2, 2, dtype=pdt.bool, device=device)
    pdt.eye(2, out=out)
    np.testing.assert_array_equal(host(out), np.eye(2, dtype=bool))
    pdt.zeros(2, 2, dtype=pdt.bool, out=out)  # a dtype= equal to out's is accepted
    assert not host(out).any()


def test_refusals_leave_out_as_it_was(device):
    out = pdt.full((3,), 5.0, device=device)
    v0 = out._version
    with pytest.raises(pdt.DTypeError, match="float64 does not match out's dtype float32"):
        pdt.zeros(3, dtype=pdt.float64, out=out)
    with pytest.raises(pdt.InvalidArgumentError, match=r"out has shape \(3,\).*\(4,\)"):
        pdt.ones(4, out=out)
    with pytest.raises(pdt.InvalidArgumentError, match=r"out has shape \(3,\).*\(2,\)"):
        pdt.arange(2, out=out)
    with pytest.raises(pdt.InvalidArgumentError, match="pin_memory"):
        pdt.ones(3, pin_memory=True, out=out)
    with pytest.raises(TypeError, match="out must be a Tensor"):
        pdt.zeros(3, out=np.zeros(3))
    with pytest.raises(pdt.DTypeError):
        pdt.rand(3, out=pdt.empty(3, dtype=pdt.int64, device=device))
    with pytest.raises(ValueError, match="cannot be converted to int8"):
        pdt.randint(0, 300, (3,), out=pdt.zeros(3, dtype=pdt.int8, device=device))
    with pytest.raises(ValueError):  # a number the dtype cannot hold
        pdt.full((3,), 300, out=pdt.zeros(3, dtype=pdt.uint8, device=device))
    assert out._version == v0
    np.testing.assert_array_equal(host(out), [5.0, 5.0, 5.0])
    view = pdt.zeros(4, device=device)[:0]  # an empty view is not adopted: it shares
    with pytest.raises(pdt.InvalidArgumentError, match="out has shape"):
        pdt.zeros(2, out=view)


def test_a_device_other_than_outs_is_refused(device):
    other = "cpu" if device.type != "cpu" else None
    if other is None:
        pytest.skip("needs a second device kind")
    with pytest.raises(pdt.DeviceError, match="does not match out's device"):
        pdt.zeros(2, device=other, out=pdt.empty(2, device=device))


def test_autograd_and_out(device):
    leaf = pdt.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        pdt.ones(3, out=leaf)
    with pdt.no_grad():
        pdt.ones(3, out=leaf)
    np.testing.assert_array_equal(host(leaf.detach()), np.ones(3))
    out = pdt.empty(3, device=device)
    assert pdt.zeros(3, requires_grad=True, out=out) is out and out.requires_grad


def test_like_functions_take_no_out():
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        pdt.zeros_like(pdt.ones(2), out=pdt.empty(2))


def test_empty_into_out_keeps_its_values(device):
    out = pdt.full((2, 2), 3.0, device=device)
    assert pdt.empty(2, 2, out=out) is out
    np.testing.assert_array_equal(host(out), np.full((2, 2), 3.0, np.float32))
    fresh = pdt.empty(0, device=device)
    pdt.empty(1, 2, 2, 3, memory_format=pdt.channels_last, out=fresh)
    assert fresh.shape == (1, 2, 2, 3)


def test_logical_cpu_devices():
    # out on cpu:1: the result is made there; a device= of another logical device is refused
    from test_config import SPLIT3, run
    out = run("""
        o = pdt.empty(0, device='cpu:1')
        r = pdt.arange(4, out=o)
        print(r is o, o.device, o.tolist())
        pdt.manual_seed(2); a = pdt.randn(3, device='cpu:2')
        pdt.manual_seed(2); pdt.randn(3, out=o[:3]); print(o[:3].tolist() == a.tolist())
        try:
            pdt.zeros(2, device='cpu:2', out=pdt.empty(2, device='cpu:1'))
        except pdt.DeviceError as e:
            print('refused', 'cpu:2' in str(e) and 'cpu:1' in str(e))
    """, SPLIT3)
    assert out.split("\n")[:3] == ["True cpu:1 [0.0, 1.0, 2.0, 3.0]", "True", "refused True"]
