"""The *_copy variants of the views and narrow_copy (pydevtensor/_ops_view_copy.py),
split_with_sizes, unsafe_split and unsafe_chunk (_ops_split.py): values against NumPy,
results contiguous and never sharing memory with the input, gradients as the view
op's (by finite differences through test_gradcheck's helper), on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

A = np.arange(24, dtype=np.float64).reshape(2, 3, 4)

# (name, arguments after the input, NumPy of A)
ONE = [
    ("view_copy", ((4, 6),), A.reshape(4, 6)),
    ("expand_copy", ((3, 2, 3, 4),), np.broadcast_to(A, (3, 2, 3, 4))),
    ("permute_copy", ((2, 0, 1),), A.transpose(2, 0, 1)),
    ("transpose_copy", (0, 2), A.swapaxes(0, 2)),
    ("squeeze_copy", (), A),
    ("unsqueeze_copy", (1,), A[:, None]),
    ("diagonal_copy", (1, 1, 2), np.diagonal(A, 1, 1, 2)),
    ("unfold_copy", (2, 2, 1), np.lib.stride_tricks.sliding_window_view(A, 2, 2)),
    ("alias_copy", (), A),
    ("detach_copy", (), A),
    ("as_strided_copy", ((3, 2), (1, 4), 1), np.lib.stride_tricks.as_strided(
        A.ravel()[1:], (3, 2), (8, 32))),
    ("narrow_copy", (2, 1, 2), A[:, :, 1:3]),
    ("select_copy", (1, -1), A[:, -1]),
    ("slice_copy", (-1, 1, None, 2), A[:, :, 1::2]),
    ("slice_copy", (), A),
    ("slice_copy", (1, -2, 10), A[:, -2:10]),
]


def _np(t):
    return t.detach().cpu().numpy()


def _fresh(result, x):
    assert result.is_contiguous()
    assert result._base is None
    assert result.data_ptr() != x.data_ptr() or result.numel() == 0


@pytest.mark.parametrize("name, args, want", ONE, ids=[c[0] for c in ONE])
def test_copies_match_the_view_and_own_their_memory(device, name, args, want):
    x = pdt.tensor(A, device=device)
    got = getattr(pdt, name)(x, *args)
    np.testing.assert_array_equal(_np(got), want)
    _fresh(got, x)
    x.add_(100)  # the copy keeps its values
    np.testing.assert_array_equal(_np(got), want)
    out = pdt.empty(0, dtype=pdt.float64, device=device)
    assert getattr(pdt, name)(pdt.tensor(A, device=device), *args, out=out) is out
    np.testing.assert_array_equal(_np(out), want)


def test_t_copy_view_copy_dtype_and_method(device):
    x = pdt.tensor(A[0], device=device)
    got = pdt.t_copy(x)
    np.testing.assert_array_equal(_np(got), A[0].T)
    assert got.stride() == (3, 1)
    f = pdt.tensor(np.array([1.0, 2.0], np.float32), device=device)
    for got in (pdt.view_copy(f, pdt.int32), pdt.view_copy(f, dtype=pdt.int32)):
        np.testing.assert_array_equal(_np(got), np.array([1.0, 2.0], np.float32).view(np.int32))
        _fresh(got, f)
    np.testing.assert_array_equal(_np(x.narrow_copy(0, 1, 2)), A[0, 1:3])
    assert pdt.squeeze_copy(pdt.tensor(A[:1], device=device), 0).shape == (3, 4)


def test_copies_of_several_pieces(device):
    x = pdt.tensor(A, device=device)
    for got, want in ((pdt.unbind_copy(x, 1), [A[:, i] for i in range(3)]),
                      (pdt.split_copy(x, 3, 2), np.split(A, [3], 2)),
                      (pdt.split_with_sizes_copy(x, [1, 3], 2), np.split(A, [1], 2))):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(_np(g), w)
            _fresh(g, x)
    outs = [pdt.empty(0, dtype=pdt.float64, device=device) for _ in range(2)]
    assert pdt.split_copy(x, 1, out=outs) is None
    for o, w in zip(outs, np.split(A, 2)):
        np.testing.assert_array_equal(_np(o), w)
    with pytest.raises(RuntimeError, match="out must be a sequence of 3 tensors"):
        pdt.unbind_copy(x, 1, out=outs)


def test_copies_pass_the_view_ops_gradient(device):
    for f in (lambda t: pdt.t_copy(t), lambda t: pdt.diagonal_copy(t, 1),
              lambda t: pdt.expand_copy(t, (2, 3, 4)), lambda t: pdt.narrow_copy(t, 1, 1, 2),
              lambda t: pdt.split_with_sizes_copy(t, [1, 3], 1)[1],
              lambda t: pdt.as_strided_copy(t, (2, 2), (1, 4))):
        gradcheck(f, [A[0] / 10], device)
    assert not pdt.detach_copy(pdt.ones(2, device=device, requires_grad=True)).requires_grad


def test_split_with_sizes_and_the_unsafe_splits(device):
    x = pdt.tensor(A, device=device)
    for got, want in ((pdt.split_with_sizes(x, [1, 2], 1), np.split(A, [1], 1)),
                      (x.split_with_sizes((3, 1), dim=-1), np.split(A, [3], -1)),
                      (pdt.unsafe_split(x, 2, 1), np.split(A, [2], 1)),
                      (x.unsafe_split(3, 2), np.split(A, [3], 2)),
                      (pdt.unsafe_chunk(x, 2, 2), np.split(A, 2, 2)),
                      (x.unsafe_chunk(2), np.split(A, 2))):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(_np(g), w)
    with pytest.raises(TypeError, match="must be a sequence of ints"):
        pdt.split_with_sizes(x, 1)
    with pytest.raises(TypeError, match="split_size"):
        pdt.unsafe_split(x, [1, 1])
    w = pdt.tensor(A, device=device, requires_grad=True)
    assert w.split_with_sizes([1, 1])[0].grad_fn.name() == "SplitWithSizesBackward0"
