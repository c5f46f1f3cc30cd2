"""Checks shared by the tests of the float64 binary functions with kernels of their own
(tests/test_atan2_64.py, tests/test_pow64.py): the bound at every level with the C
library's bits where the kernel hands a pair over, every layout giving the same bits, and
a CUDA device against the CPU.  fn(a, b) is the pydevtensor function; a, b NumPy float64
arrays."""
import ctypes
import ctypes.util

import numpy as np

import pydevtensor as pdt
from test_vmath64 import check_blocks, levels_of, ulps64

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


def libm(name):
    """the C library's float64 function name(a, b), through ctypes (math.atan2 and
    math.pow are CPython's, with their own special values), over arrays"""
    f = getattr(_LIBM, name)
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_double, ctypes.c_double]
    return lambda a, b: np.array([f(u, v) for u, v in zip(a, b)])


def evaluate(fn, a, b, device):
    return np.asarray(fn(pdt.tensor(a, device=device), pdt.tensor(b, device=device)).cpu())


def check_within_the_bound(fn, a, b, ref, device, bounds, library_takes, library):
    """bounds(level) -> (bound, measured or None); NaN exactly where ref is NaN; the pairs
    library_takes marks are library's bits (CPU levels)"""
    for level in levels_of(device):
        got = evaluate(fn, a, b, device)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"{level}")
        err = ulps64(got, ref)
        worst = int(np.argmax(err))
        bound, measured = bounds(level)
        where = f"{fn.__name__} on {device} at {level}: a={a[worst]!r}, b={b[worst]!r}"
        assert err[worst] <= bound, f"{err[worst]:.4f} ulp, {where}"
        if measured is not None:
            assert err[worst] <= measured + 0.01, f"{err[worst]:.4f} ulp, {where}"
        if level:
            far = library_takes
            np.testing.assert_array_equal(got[far].view(np.int64),
                                          library(a[far], b[far]).view(np.int64))


def check_every_layout(fn, a, b, device, odds):
    """A number either side, a transposed operand, out=, in place (fn's method name_), and
    a with each of odds at 5 places: the other elements keep their bits"""
    for level in levels_of(device):
        fast = evaluate(fn, a, b, device).view(np.int64)
        ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
        for i in (0, 300, a.size - 1):
            full = np.asarray(fn(ta, pdt.full_like(tb, b[i])).cpu())
            np.testing.assert_array_equal(np.asarray(fn(ta, float(b[i])).cpu()), full)
            full = np.asarray(fn(pdt.full_like(ta, a[i]), tb).cpu())
            np.testing.assert_array_equal(np.asarray(fn(pdt.tensor(a[i], device=device),
                                                        tb).cpu()), full)
        t = pdt.tensor(np.stack([a, b]), device=device)
        two = pdt.tensor(np.stack([b, a]), device=device)
        strided = np.asarray(fn(t.T, two.T).cpu())[:, 0].copy().view(np.int64)
        np.testing.assert_array_equal(strided, fast, err_msg=f"strided at {level}")
        out = pdt.empty((2, a.size), dtype=pdt.float64, device=device)
        fn(ta, tb, out=out[1])
        np.testing.assert_array_equal(np.asarray(out[1].cpu()).view(np.int64), fast)
        ta2 = ta.clone()
        getattr(ta2, fn.__name__ + "_")(tb)
        np.testing.assert_array_equal(np.asarray(ta2.cpu()).view(np.int64), fast)
        check_blocks(lambda a2: evaluate(fn, a2, b, device), a, fast, odds,
                     f"{fn.__name__} at {level}")


def check_cpu_and_cuda(fn, a, b, ref, bound, device):
    """the CPU's and the device's errors against ref summed within bound"""
    cpu, gpu = evaluate(fn, a, b, "cpu"), evaluate(fn, a, b, device)
    err = ulps64(cpu, ref) + ulps64(gpu, ref)
    err = np.where(np.isnan(cpu) & np.isnan(gpu), 0.0, err)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, (a[worst], b[worst], cpu[worst], gpu[worst])
