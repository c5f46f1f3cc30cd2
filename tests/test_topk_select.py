"""topk by selection (Note [top-k by selection] in csrc/cpu/cpu_topk.c,
pydevtensor._C._topk_rows): along the last dim of contiguous CPU tensors with k at most
a sixteenth of the row, the stable sort's first k, values and indices bit for bit, on
ties, NaNs, signed zeros and infinities; everything else sorts and slices."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import DEVICES, torch_or_skip


def rows(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(-20, 20, shape).astype(dtype)  # many ties
    x = rng.integers(-20, 20, shape).astype(dtype) / 4  # ties, and zeros of both signs
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, flat.size // 50)] = np.nan
    flat[rng.integers(0, flat.size, flat.size // 50)] = -0.0
    flat[rng.integers(0, flat.size, flat.size // 100)] = np.inf
    flat[rng.integers(0, flat.size, flat.size // 100)] = -np.inf
    return x


def sorted_first(t, k, largest):
    v, i = pdt.sort(t, -1, descending=largest)
    return np.asarray(v)[..., :k], np.asarray(i)[..., :k]


def as_bits(a):
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(7, 1000), (3, 5000), (2, 3, 640), (1600,)])
def test_selection_is_the_sorts_first_k(dtype, shape):
    x = rows(shape, dtype, seed=len(shape) + shape[-1])
    t = pdt.tensor(x)
    for k in (1, 5, shape[-1] // 16):
        for largest in (True, False):
            fast = _C._topk_rows(t, k, largest)
            assert fast is not None, (k, largest)
            want_v, want_i = sorted_first(t, k, largest)
            np.testing.assert_array_equal(np.asarray(fast[1]), want_i, err_msg=f"{k} {largest}")
            np.testing.assert_array_equal(as_bits(np.asarray(fast[0])), as_bits(want_v))
            got = t.topk(k, largest=largest)
            np.testing.assert_array_equal(np.asarray(got.indices), want_i)
    # against NumPy's stable order of the same values: NaNs first (the largest), then
    # descending values, equal ones (-0.0 and 0.0 too) by index
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    order = np.lexsort((np.where(nan, 0, -x), ~nan), axis=-1)
    np.testing.assert_array_equal(np.asarray(t.topk(3).indices), order[..., :3])


def test_where_selection_does_not_apply(dev=None):
    t = pdt.tensor(rows((4, 100), "float32", 1))
    assert _C._topk_rows(t, 7, True) is None  # k > n / 16: a sort is as fast
    assert _C._topk_rows(t, 0, True) is None
    assert _C._topk_rows(t.T.contiguous().T, 2, True) is None  # not contiguous
    assert _C._topk_rows(t.to(pdt.float16), 2, True) is None   # the kernel's refusal
    assert _C._topk_rows(t > 0, 2, True) is None
    for k in (0, 7, 100):  # sorted and sliced, the same answers
        got = t.topk(k)
        want_v, want_i = sorted_first(t, k, True)
        np.testing.assert_array_equal(np.asarray(got.indices), want_i)


@pytest.mark.parametrize("device", DEVICES)
def test_topk_on_every_device_and_its_gradient(device):
    x = rows((5, 320), "float32", 3)
    x[np.isnan(x)] = 1.0
    t = pdt.tensor(x, device=device, requires_grad=True)
    got = t.topk(4)
    if pdt.device(device).type == "cuda":
        assert _C._topk_rows(t.detach(), 4, True) is None  # sorted and sliced there
    got.values.sum().backward()
    grad = np.zeros_like(x)
    np.put_along_axis(grad, np.asarray(got.indices.cpu()), 1.0, -1)
    np.testing.assert_array_equal(np.asarray(t.grad.cpu()), grad)
    cpu = pdt.tensor(x).topk(4)
    np.testing.assert_array_equal(np.asarray(got.indices.cpu()), np.asarray(cpu.indices))


@pytest.mark.parametrize("largest", [True, False])
def test_ties_come_in_index_order_and_values_match_torch(device, largest):
    # PyTorch leaves the order of equal values unspecified; ours is the stable sort's
    torch = torch_or_skip()
    rng = np.random.default_rng(11)
    for n in (4, 6, 40, 300):
        v = rng.integers(0, 4, n).astype(np.float32)
        for k in (1, 2, n // 2, n):
            got = pdt.tensor(v, device=device).topk(k, largest=largest)
            ref = torch.tensor(v).topk(k, largest=largest)
            np.testing.assert_array_equal(got.values.cpu().numpy(), ref.values.numpy())
            order = np.argsort(-v if largest else v, kind="stable")[:k]
            np.testing.assert_array_equal(got.indices.cpu().numpy(), order)
