"""Casts of large contiguous tensors run split across the CPU pool, with a contiguous
loop the compiler vectorises (csrc/cpu/cpu_kernels.c); small and strided ones run row by
row.  Every dtype pair must give the same bits both ways, including NaN, infinities and
-0.0 (bool: NaN is True, -0.0 is False, as in PyTorch and NumPy), and agree with NumPy
where NumPy has the dtype."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt

DTYPES = ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16"]
N = 200_003  # above twice the pool's grain: several slices, one of them ragged


def source(dtype):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        x = rng.random(N) < 0.5
    elif dtype.startswith("int"):
        x = rng.integers(-300, 300, N).astype(dtype)
    else:
        x = (rng.standard_normal(N) * 50).astype(np.float32)
        x[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, 0.5]
    t = pdt.from_numpy(np.ascontiguousarray(x))
    return t.to(getattr(pdt, dtype)) if dtype in ("float16", "bfloat16", "float64") else t


def bits(t):
    return np.asarray(t).view(np.uint8).tobytes()


@pytest.mark.parametrize("src,dst", [p for p in itertools.product(DTYPES, DTYPES)
                                     if p[0] != p[1]])
def test_a_large_cast_equals_the_row_by_row_cast_and_numpy(src, dst):
    x = source(src)
    big = x.to(getattr(pdt, dst))
    # the same cast, row by row: a strided view of a bigger tensor, which is not contiguous
    wide = pdt.stack([x, x], dim=1)
    rows = wide[:, 0].to(getattr(pdt, dst))
    assert not wide[:, 0].is_contiguous()
    assert bits(big) == bits(rows)
    numpy_dtypes = ("bool", "int32", "int64", "float32", "float64", "float16")
    if src in numpy_dtypes and dst in numpy_dtypes and not (
            src.startswith("float") and dst.startswith("int")):  # NaN/inf to int: undefined
        want = np.asarray(x.numpy()).astype(dst)
        np.testing.assert_array_equal(big.numpy(), want)


def test_bool_cast_of_special_values():
    x = pdt.tensor([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45] * 40_000)
    got = x.bool().numpy()
    assert got[:6].tolist() == [True, False, False, True, True, True]
    assert pdt.tensor([0.0, 1.0] * 70_000).bool().float().sum().item() == 70_000
