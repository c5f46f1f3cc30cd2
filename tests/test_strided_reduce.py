"""Reductions over strided views (Note [strided reductions] in csrc/core/pdt_reduce.c):
on the CPU the view is read in place, one chunk of a row gathered at a time, so the
result equals the reduction of the same values made contiguous (bit for bit: the same
chunks, the same pairwise order) and no copy of the view is allocated.  Every device
gives NumPy's answer: floats within 1e-6 relative (float32 sums within 1e-5 of the
absolute sum), integers and indices exactly.
"""
import numpy as np
import pytest

import pydevtensor as pdt

from conftest import DEVICES

RNG = np.random.default_rng(11)
VIEWS = {
    "every_other_column": lambda x: x[:, ::2],
    "every_third_row": lambda x: x[::3],
    "both": lambda x: x[::2, 1::3],
    "transposed_rows": lambda x: x.T[::2],
    "narrow": lambda x: x[:, :7],
    "block": lambda x: x[5:9, ::4],
}
OPS = ["sum", "mean", "max", "min", "argmax", "argmin", "prod"]


def reference(arr, op, dim):
    a = arr.astype(np.float64) if arr.dtype.kind == "f" else arr
    f = {"prod": np.prod}.get(op, None)
    if f is not None:
        return f(a) if dim is None else f(a, axis=dim)
    return getattr(a, op)() if dim is None else getattr(a, op)(axis=dim)


def result(t, op, dim):
    r = getattr(t, op)() if dim is None else getattr(t, op)(dim)
    if isinstance(r, tuple):  # max(dim) / min(dim) give (values, indices)
        r = r[0]
    return np.asarray(r.cpu(), dtype=np.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_matches_numpy(device, view, dtype):
    if dtype.startswith("float"):
        a = RNG.uniform(0.5, 1.5, (60, 90)).astype(dtype)
    else:
        a = RNG.integers(-5, 6, (60, 90)).astype(dtype)
    av = VIEWS[view](a)
    tv = VIEWS[view](pdt.tensor(a, device=device))
    for op in OPS:
        if op == "mean" and not dtype.startswith("float"):
            continue
        for dim in (None, 0, 1):
            if op == "prod" and dim is None:
                continue  # 1800 factors leave float32's range; products along a dim stay in
            got, ref = result(tv, op, dim), np.asarray(reference(av, op, dim), dtype=np.float64)
            if dtype.startswith("float") and op not in ("argmax", "argmin"):
                tol = 1e-5 * np.abs(av).sum() if op == "sum" and dtype == "float32" else 0
                np.testing.assert_allclose(got, ref, rtol=1e-6 if op != "prod" else 1e-4,
                                           atol=tol, err_msg=f"{op} dim={dim}")
            else:
                np.testing.assert_array_equal(got, ref, err_msg=f"{op} dim={dim}")


def test_same_bits_as_the_contiguous_copy():
    a = pdt.rand(64, 300_000)  # rows longer than one chunk (65536): several partials
    v = a[:, ::2]
    for op in ("sum", "mean", "max", "argmax"):
        np.testing.assert_array_equal(np.asarray(getattr(v, op)(1)),
                                      np.asarray(getattr(v.contiguous(), op)(1)), err_msg=op)
    np.testing.assert_array_equal(np.asarray(a[7, ::3].sum()), np.asarray(a[7, ::3].contiguous().sum()))


def test_no_copy_of_the_view():
    a = pdt.rand(2000, 5000)  # 40 MB
    pdt.reset_peak_memory_stats("cpu")
    base = pdt.memory_allocated("cpu")
    s = a[:, ::2].sum(1)
    m = a[:, ::2].max(1)
    extra = pdt.max_memory_allocated("cpu") - base
    assert extra <= s.nbytes + 2 * m[0].nbytes + m[1].nbytes, f"{extra} bytes allocated"
    np.testing.assert_allclose(np.asarray(s), np.asarray(a)[:, ::2].astype(np.float64).sum(1),
                               rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_a_middle_block_of_dims_against_numpy(device, dtype):
    # Note [a middle block of dims]: (O, K, I) contiguous with the K dims reduced: on
    # the CPU O calls of the columns kernel, no copy; every op (norms with their
    # square root after the sum of squares), keepdim, one and two reduced dims, and
    # an I of 1 or O of 1 (the layouts the block leaves to the other paths)
    rng = np.random.default_rng(5)
    for shape, dims in [((3, 4, 5, 6), (1,)), ((3, 4, 5, 6), (2,)), ((3, 4, 5, 6), (1, 2)),
                        ((2, 300, 7), (1,)), ((1, 4, 5), (1,)), ((3, 4, 1), (1,))]:
        if dtype == "bool":
            x = rng.integers(0, 2, shape).astype(bool)
        elif dtype == "int64":
            x = rng.integers(-3, 4, shape)
        else:
            x = rng.standard_normal(shape).astype(dtype)
        t = pdt.tensor(x, device=device)
        w = x.astype(np.float64)
        if dtype == "bool":
            np.testing.assert_array_equal(t.any(dims[0]).cpu().numpy(), x.any(dims[0]))
            np.testing.assert_array_equal(t.all(dims[0]).cpu().numpy(), x.all(dims[0]))
            np.testing.assert_array_equal(t.sum(dims).cpu().numpy(), x.sum(dims))
            continue
        tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
        close = lambda got, want: np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want, **tol)  # noqa: E731
        close(t.sum(dims), w.sum(dims))
        close(t.sum(dims, keepdim=True), w.sum(dims, keepdims=True))
        close(t.amax(dims), w.max(dims))
        close(t.amin(dims), w.min(dims))
        np.testing.assert_array_equal(t.argmax(dims[0]).cpu().numpy(), x.argmax(dims[0]))
        np.testing.assert_array_equal(t.argmin(dims[0]).cpu().numpy(), x.argmin(dims[0]))
        if dtype != "int64":
            close(t.mean(dims), w.mean(dims))
            close(t.var(dims), w.var(dims, ddof=1))
            close(pdt.linalg.vector_norm(t, 2, dim=dims), np.sqrt((w * w).sum(dims)))
            close(pdt.linalg.vector_norm(t, 3, dim=dims), (np.abs(w) ** 3).sum(dims) ** (1 / 3))
            close(t.norm(dim=dims), np.sqrt((w * w).sum(dims)))
        close(t.prod(dims[0]), w.prod(dims[0]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_outer_and_inner_dims_against_numpy(device, dtype):
    # Note [outer and inner dims]: (O, K, I) contiguous with O and I reduced (BatchNorm's
    # statistics over (0, 2, 3)): on the CPU the (O K, I) rows to partial results, then
    # their O columns; every op that takes the path (sum, mean, amax, amin, the norms)
    # and those that keep the copy (prod, casts), keepdim, and the layouts left to the
    # other paths (O or I of 1, a non-contiguous input)
    rng = np.random.default_rng(6)
    for shape, dims in [((3, 4, 5, 6), (0, 2, 3)), ((3, 4, 5, 6), (0, 3)),
                        ((3, 4, 5, 6), (0, 1, 3)), ((2, 3, 4, 5), (0, 3)),
                        ((5, 64, 7, 7), (0, 2, 3)), ((1, 4, 5), (0, 2)), ((3, 4, 1), (0, 2))]:
        if dtype == "bool":
            x = rng.integers(0, 2, shape).astype(bool)
        elif dtype.startswith("int"):
            x = rng.integers(-3, 4, shape).astype(dtype)
        else:
            x = rng.standard_normal(shape).astype(dtype)
        t = pdt.tensor(x, device=device)
        w = x.astype(np.float64)
        tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
        close = lambda got, want: np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want, **tol)  # noqa: E731
        for u in (t, t.transpose(0, 1).contiguous().transpose(0, 1)):  # contiguous, not
            close(u.sum(dims), w.sum(dims))
            close(u.sum(dims, keepdim=True), w.sum(dims, keepdims=True))
            if dtype == "bool":
                continue
            close(u.amax(dims), w.max(dims))
            close(u.amin(dims, keepdim=True), w.min(dims, keepdims=True))
            close(u.prod(dims), w.prod(dims))
            if not dtype.startswith("int"):
                close(u.mean(dims), w.mean(dims))
                close(u.sum(dims, dtype=pdt.float64), w.sum(dims))
                close(pdt.linalg.vector_norm(u, 2, dim=dims), np.sqrt((w * w).sum(dims)))
                close(pdt.linalg.vector_norm(u, 1, dim=dims), np.abs(w).sum(dims))
                close(u.var(dims), w.var(dims, ddof=1))
