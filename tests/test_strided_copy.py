"""Copies of strided views into new or strided tensors, one dtype (Note [strided
copies] in csrc/cpu/cpu_copy.c): contiguous(), clone() of a view, flip, copy_ into a
view.  The CPU copies rows with a loop of the element's type, transposes in tiles and
cuts long rows into pieces across threads; every such path and its ragged edges must
give NumPy's bytes, for every element size, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt

DTYPES = ["bool", "float16", "int32", "float32", "int64", "float64"]


def source(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-2**30, 2**30, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def to_device(a, device):
    if a.dtype == np.float16:  # in through float32, which holds every float16 exactly
        return pdt.from_numpy(a.astype(np.float32)).to(device).half()
    return pdt.from_numpy(a).to(device)


def host_bytes(t):
    if t.dtype == pdt.float16:
        got = t.float().cpu().numpy().astype(np.float16)
    else:
        got = t.cpu().numpy()
    return np.ascontiguousarray(got)


def same(t, want):
    got = host_bytes(t)
    want = np.ascontiguousarray(want)
    return got.shape == want.shape and np.array_equal(got.view(np.uint8), want.view(np.uint8))


# (shape, permutation): transposes whose sizes are not whole tiles, a permute whose
# contiguous source dim is not next to the innermost, batched transposes, one long
# row and one long transposed pair (more than two pieces of columns)
PERMUTES = [((37, 70), (1, 0)), ((1, 65), (1, 0)), ((33, 1), (1, 0)),
            ((3, 45, 66), (0, 2, 1)), ((5, 7, 40), (2, 0, 1)), ((4, 3, 5, 34), (3, 1, 2, 0)),
            ((2, 70_000), (1, 0)), ((140_000, 2), (1, 0))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,perm", PERMUTES)
def test_a_permuted_view_copies_to_numpys_bytes(device, dtype, shape, perm):
    a = source(shape, dtype)
    x = to_device(a, device)
    want = a.transpose(perm)
    assert same(x.permute(*perm).contiguous(), want)
    assert same(x.permute(*perm).clone(), want)
    out = pdt.empty(*want.shape, dtype=x.dtype, device=device)
    out.copy_(x.permute(*perm))
    assert same(out, want)
    # and into a permuted destination: the source contiguous, the destination not
    back = pdt.empty(*shape, dtype=x.dtype, device=device)
    back.permute(*perm).copy_(x.permute(*perm))
    assert same(back, a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 31, 1000, 70_001])
def test_flips_and_steps_copy_to_numpys_bytes(device, dtype, n):
    a = source((n,), dtype, seed=n)
    x = to_device(a, device)
    assert same(pdt.flip(x, [0]), a[::-1])
    assert same(x[::2].contiguous(), a[::2])
    assert same(x[1::3].clone(), a[1::3])
    # the steps with loops of their own (-1, 2, 3, 4) and the general loop's four
    # elements an iteration and its ragged end (5, -2, -7)
    for step in (4, 5, -2, -7):
        assert same(x[::step].contiguous(), a[::step])
    m = source((9, n), dtype, seed=n + 1)
    y = to_device(m, device)
    assert same(pdt.flip(y, [1]), m[:, ::-1])
    assert same(pdt.flip(y, [0, 1]), m[::-1, ::-1])
    assert same(pdt.flip(y.T, [0]), m.T[::-1])
    assert same(y[:, ::2].T.contiguous(), m[:, ::2].T)
    # a broadcast source (stride 0) and a strided destination
    assert same(x[:1].expand(5, 1).contiguous() if n > 0 else x, np.broadcast_to(a[:1], (5, 1)))
    dst = pdt.zeros(2 * n, dtype=x.dtype, device=device)
    dst[::2].copy_(pdt.flip(x, [0]))
    want = np.zeros(2 * n, dtype=a.dtype)
    want[::2] = a[::-1]
    assert same(dst, want)


@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "int64"])
def test_flip_of_every_set_of_dims(device, dtype):
    # flip's one call (_C._flip_fast) for every set of dims, named from either end,
    # as an int, a list or a tuple, of a tensor and of a permuted view, and of a
    # tensor with a dim of size 0, and the ints given one by one (x.flip(0, 2)); a dim
    # named twice is refused, as PyTorch refuses it.
    a = source((2, 3, 4), dtype, seed=3)
    x = to_device(a, device)
    for k in range(8):
        axes = tuple(d for d in range(3) if k >> d & 1)
        spelled = [d - 3 if d % 2 else d for d in axes]
        assert same(pdt.flip(x, spelled), np.flip(a, axes))
        assert same(x.flip(tuple(spelled)), np.flip(a, axes))
        assert same(pdt.flip(x.permute(2, 0, 1), spelled), np.flip(a.transpose(2, 0, 1), axes))
    assert same(pdt.flip(x, -2), a[:, ::-1])
    assert same(x.flip(0, -1), a[::-1, :, ::-1]) and same(x.flip(dims=2), a[:, :, ::-1])
    for twice in ([1, 1], (0, -3)):
        with pytest.raises(RuntimeError, match="appears multiple times in the list of dims"):
            pdt.flip(x, twice)
    e = to_device(source((2, 0, 3), dtype), device)
    assert same(pdt.flip(e, [0, 1, 2]), np.zeros((2, 0, 3), dtype=a.dtype))
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.flip(x, [0, 3])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cols", [1, 2, 3, 4, 5, 9, 1100])
def test_short_and_broadcast_rows_copy_to_numpys_bytes(device, dtype, cols):
    """Rows shorter than 1,024 go a band of them to a unit of work, and a source
    broadcast along the inner dim fills each row from one read (Note [rows of one
    value]): every element size, rows of 2, 3 and 4 (their own loops) and others,
    a row count that leaves a ragged last band, a reversed, a strided and a transposed
    source."""
    rows = 3001
    a = source((rows,), dtype)
    t = to_device(a, device)
    assert same(t[:, None].expand(rows, cols).contiguous(), np.repeat(a, cols).reshape(rows, cols))
    assert same(t.flip(0)[:, None].expand(rows, cols).contiguous(),
                np.repeat(a[::-1], cols).reshape(rows, cols))
    assert same(t[::2].repeat_interleave(cols), np.repeat(a[::2], cols))
    # an outer dim of stride one element (a transpose) with the inner one broadcast
    y = source((rows, 3), dtype, 3)
    ty = to_device(y, device)
    assert same(ty.T[:, :, None].expand(3, rows, cols).contiguous(),
                np.broadcast_to(y.T[:, :, None], (3, rows, cols)).copy())
    m = source((rows, cols + 3), dtype, 2)
    tm = to_device(m, device)
    assert same(tm[:, 1:cols + 1].contiguous(), m[:, 1:cols + 1])
    assert same(tm[::-3, :cols].contiguous(), m[::-3, :cols])
