"""Python ints beyond 64 bits as operands (Note [ints beyond 64 bits] in
csrc/python/wide_ints.c).

Where the result is floating they are the nearest double, as in PyTorch
(``tensor([1.0]) + 2**63``); integer tensors compare with them exactly (as NumPy 2
does), clamp to them by saturating, and refuse them in arithmetic and writes with an
OverflowError naming the dtype (PyTorch wraps those below 2**64); a bool tensor takes
them as True. Every check runs on every device; the reference is NumPy in the tensor's
dtype, with the int rounded to the nearest double and then to that dtype, as the
kernels' scalar operands are (exact: IEEE arithmetic).
"""
import operator

import numpy as np
import pytest

import pydevtensor as pdt

WIDE = [2**63, 2**63 + 1, 2**64 - 1, 2**64, 3 * 2**70, 2**1000,
        -2**63 - 1, -2**64, -(2**90)]
ARITH = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
         "truediv": operator.truediv}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_tensor_arithmetic(device, dtype):
    xn = np.array([1.0, -2.5, 0.0, 3e18, -7e30], dtype=dtype)
    x = pdt.tensor(xn, device=device)
    for n in WIDE:
        for name, op in ARITH.items():
            for left in (False, True):
                got = op(n, x) if left else op(x, n)
                with np.errstate(all="ignore"):  # 2**1000 is inf in float32: inf * 0
                    s = np.array(float(n)).astype(dtype)  # the scalar in the op's dtype
                    ref = op(s, xn) if left else op(xn, s)
                assert got.dtype == x.dtype and got.device == device
                np.testing.assert_array_equal(got.cpu().numpy(), ref,
                                              err_msg=f"{name} {n} left={left}")


def test_float_functions_alpha_and_autograd(device):
    x = pdt.tensor([1.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    n = 2**64 + 2**20
    y = pdt.add(x, n) * 2
    np.testing.assert_array_equal(y.detach().cpu().numpy(), (np.array([1.0, 2.0]) + n) * 2)
    (x * n).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [float(n)] * 2)
    got = pdt.add(x.detach(), x.detach(), alpha=2**63)
    np.testing.assert_array_equal(got.cpu().numpy(), np.array([1.0, 2.0]) * (1 + 2.0**63))
    assert pdt.mul(x.detach(), np.uint64(2**64 - 1)).cpu().numpy()[1] == 2 * float(2**64 - 1)


def test_float_writes(device):
    x = pdt.zeros(3, device=device)
    x[0] = 2**64
    x.masked_fill_(pdt.tensor([False, True, False], device=device), -2**70)
    np.testing.assert_array_equal(x.cpu().numpy(), np.float32([2.0**64, -2.0**70, 0]))
    assert (x.clone().fill_(2**63) == 2.0**63).all().item()
    w = pdt.where(x > 0, x, 2**80)
    np.testing.assert_array_equal(w.cpu().numpy(), np.float32([2.0**64, 2.0**80, 2.0**80]))
    c = x.clamp(min=-2**65, max=2**63)
    np.testing.assert_array_equal(c.cpu().numpy(), np.float32([2.0**63, -2.0**65, 0]))


@pytest.mark.parametrize("dt", ["uint8", "int8", "int32", "int64", "bool"])
def test_integer_comparisons_are_exact(device, dt):
    info = np.iinfo(dt) if dt != "bool" else None
    xn = np.array([0, 1] if dt == "bool" else sorted({int(info.min), int(info.min) // 2, 0, 1,
                                                      int(info.max)}), dtype=dt)
    x = pdt.tensor(xn, device=device)
    for n in WIDE:
        for name in ("eq", "ne", "lt", "le", "gt", "ge"):
            ref = getattr(operator, name)(xn.astype(object), n).astype(bool)
            for got in (getattr(operator, name)(x, n), getattr(pdt, name)(x, n),
                        getattr(pdt, {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}
                                .get(name, name))(n, x)):
                assert got.dtype == pdt.bool
                np.testing.assert_array_equal(got.cpu().numpy(), ref, err_msg=f"{name} {n}")


def test_integer_division_and_clamp(device):
    xn = np.array([1, -5, 2**62], dtype=np.int64)
    x = pdt.tensor(xn, device=device)
    q = x / 2**64
    assert q.dtype == pdt.get_default_dtype()
    np.testing.assert_allclose(q.cpu().numpy(), (xn / 2.0**64).astype(np.float32), rtol=1e-7)
    assert pdt.equal(x.clamp(max=2**63), x) and pdt.equal(x.clamp(min=-2**64), x)
    with pytest.raises(RuntimeError, match=r"min=1.1805916207174113e\+21 is outside the "
                                           r"representable range of int64"):
        x.clamp(min=2**70)  # no int64 is that large: refused, as PyTorch's
    i8 = pdt.tensor([3, -4], dtype=pdt.int8, device=device)
    np.testing.assert_array_equal(i8.clamp(min=-2**65, max=2**65).cpu().numpy(), [3, -4])
    with pytest.raises(RuntimeError, match=r"max=-3.6893488147419103e\+19 is outside"):
        i8.clamp(max=-2**65)


@pytest.mark.parametrize("run, what", [
    (lambda x: x + 2**63, r"add\(\): an integer beyond 64 bits with a result of dtype int64"),
    (lambda x: 2**64 * x, r"mul\(\): .* dtype int64 \(a tensor of shape \(2,\) on "),
    (lambda x: pdt.sub(x, -2**63 - 1), r"sub\(\): .* dtype int64"),
    (lambda x: x.add(1, alpha=2**63), r"add\(\): .* dtype int64"),
    (lambda x: x.clone().fill_(2**63), r"fill_: .* dtype int64"),
    (lambda x: x.masked_fill(x > 0, 2**64), r"masked_fill\(\): value: .* dtype int64"),
    (lambda x: x.__setitem__(0, 2**63), r"t\[index\] = value: .* dtype int64"),
    (lambda x: pdt.where(x > 0, x, 2**63), r"where\(\): .* dtype int64"),
    (lambda x: x.float() + 10**400, r"operand: an integer beyond the largest float64"),
    (lambda x: pdt.add(x.float(), 10**400), r"add\(\): argument 'other': .* largest float64"),
])
def test_refused_where_the_result_is_an_integer(device, run, what):
    x = pdt.tensor([1, 2], device=device)
    with pytest.raises(OverflowError, match=what):
        run(x)
    np.testing.assert_array_equal(x.cpu().numpy(), [1, 2])  # nothing half-written


def test_creation_with_a_floating_dtype(device):
    """tensor(), full(), full_like() and addmm's alpha/beta take an int beyond 64 bits
    where the dtype is floating (as PyTorch's), and refuse it for an integer one."""
    got = pdt.tensor([[1.0, 2**63], [-2**64, 3 * 2**70]], device=device)
    np.testing.assert_array_equal(got.cpu().numpy(),
                                  np.float32([[1.0, 2.0**63], [-2.0**64, 3 * 2.0**70]]))
    assert pdt.tensor(2**64, dtype=pdt.float64, device=device).item() == 2.0**64
    full = pdt.full((2,), 2**63, dtype=pdt.float64, device=device)
    np.testing.assert_array_equal(full.cpu().numpy(), [2.0**63] * 2)
    like = pdt.full_like(full, -2**80)
    np.testing.assert_array_equal(like.cpu().numpy(), [-2.0**80] * 2)
    a = pdt.eye(2, dtype=pdt.float64, device=device)
    np.testing.assert_array_equal(pdt.addmm(a, a, a, alpha=2**64, beta=2**63).cpu().numpy(),
                                  np.eye(2) * (2.0**64 + 2.0**63))
    for run, what in [
            (lambda: pdt.tensor([1, 2**63], device=device), r"tensor\(\): element: the "
             r"integer 9223372036854775808 does not fit in 64 bits \(dtype int64\)"),
            (lambda: pdt.full((2,), 2**63, device=device), r"full\(\): fill_value: .* int64"),
            (lambda: pdt.full_like(full.int(), 2**64), r"fill_value: .* \(dtype int32\)"),
            (lambda: pdt.addmm(a.long(), a.long(), a.long(), beta=2**63),
             r"addmm\(\): beta: an integer beyond 64 bits .* int64"),
            (lambda: pdt.tensor([10**400, 1.0]), r"beyond the largest float64")]:
        with pytest.raises(OverflowError, match=what):
            run()


def test_written_into_a_bool_tensor(device):
    """A bool tensor takes an int beyond 64 bits as True, as it takes any nonzero int
    (x.fill_(5) is True; PyTorch's take 2**63 too): fill_, full, full_like, tensor(),
    setitem and masked_fill (they raised OverflowError: "it does not fit")."""
    for n in (2**63, 2**64, -2**63 - 1, 3 * 2**70):
        z = pdt.zeros(3, dtype=pdt.bool, device=device)
        mask = pdt.tensor([True, False, True], device=device)
        got = {
            "fill_": z.clone().fill_(n),
            "full": pdt.full((3,), n, dtype=pdt.bool, device=device),
            "full_like": pdt.full_like(z, n),
            "tensor": pdt.tensor([n, 0, n], dtype=pdt.bool, device=device),
            "masked_fill": z.masked_fill(mask, n),
        }
        y = z.clone()
        y[1] = n
        got["setitem"] = y
        y = z.clone()
        y[mask] = n
        got["setitem mask"] = y
        ref = {"fill_": [True] * 3, "full": [True] * 3, "full_like": [True] * 3,
               "tensor": [True, False, True], "masked_fill": [True, False, True],
               "setitem": [False, True, False], "setitem mask": [True, False, True]}
        for name, t in got.items():
            assert t.dtype == pdt.bool and t.device == device, name
            np.testing.assert_array_equal(t.cpu().numpy(), np.array(ref[name]),
                                          err_msg=f"{name} {n}")
    with pytest.raises(OverflowError, match=r"mul\(\): .* dtype int64"):
        pdt.ones(2, dtype=pdt.bool, device=device) * 2**63  # the result is int64
