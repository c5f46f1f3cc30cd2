"""Errors a user meets most (indexing, dims, reshaping, matmul, cat/stack, the class
losses) name the problem, then the tensor's shape and its device (DESIGN: "Bad input
gets a Python exception whose message names the problem, the device and the sizes").
Each message keeps PyTorch's wording at its start (users and tests match on it) and
ends with the shape and the device, e.g. "index 5 is out of bounds for dimension 0
with size 3 (a tensor of shape (3, 4) on cpu)"."""
import ctypes
import re

import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F


def _raises(exc, start, shape, device, fn):
    """fn() raises exc whose message starts with the regex start and names shape (a
    tuple, as Python writes it) and device."""
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    assert re.match(start, msg), msg
    assert str(tuple(shape)) in msg, f"{msg!r} does not name the shape {tuple(shape)}"
    assert f"on {device}" in msg, f"{msg!r} does not name the device {device}"


@pytest.mark.parametrize("index", [5, -4, (1, 9), (slice(None), 4)])
def test_an_integer_index_out_of_bounds_names_the_shape_and_device(device, index):
    x = pdt.zeros(3, 4, device=device)
    _raises(IndexError, r"index -?\d+ is out of bounds for dimension \d with size \d \(",
            (3, 4), device, lambda: x[index])


def test_an_index_of_the_first_dimension_by_the_sequence_protocol(device):
    x = pdt.zeros(3, 4, device=device)
    get = ctypes.pythonapi.PySequence_GetItem  # tensor_item, the sq_item slot
    get.restype, get.argtypes = ctypes.py_object, [ctypes.py_object, ctypes.c_ssize_t]
    _raises(IndexError, r"index 5 is out of bounds for dimension 0 with size 3 \(", (3, 4),
            device, lambda: get(x, 5))


@pytest.mark.parametrize("index", ["basic", "advanced", "many"])
def test_too_many_indices_name_the_shape_and_device(device, index):
    x = pdt.zeros(3, 4, device=device)
    key = {"basic": (0, 0, 0), "advanced": (pdt.tensor([0], device=device), 1, 2),
           "many": (0,) * 100}[index]
    _raises(IndexError, r"too many indices", (3, 4), device, lambda: x[key])


def test_a_boolean_mask_of_the_wrong_shape_names_the_shape_and_device(device):
    x = pdt.zeros(3, 4, device=device)
    mask = pdt.tensor([True, False], device=device)
    _raises(IndexError, r"The shape of the mask \[2\] at index 0 does not match the shape of "
            r"the indexed tensor \[3\]", (3, 4), device, lambda: x[mask])


@pytest.mark.parametrize("op", [
    lambda x: x.sum(3), lambda x: x.transpose(0, 5), lambda x: x.flatten(0, 5),
    lambda x: x.squeeze(4), lambda x: x.permute(0, 7), lambda x: x.size(5),
    lambda x: x.unsqueeze(5)])
def test_a_dim_out_of_range_in_c_names_the_shape_and_device(device, op):
    x = pdt.zeros(3, 4, device=device)
    _raises(IndexError, r"(\w+\(\): )?dimension out of range: got dim \d", (3, 4), device,
            lambda: op(x))


@pytest.mark.parametrize("op", [
    lambda x: x.softmax(3), lambda x: F.log_softmax(x, -3), lambda x: pdt.cat([x, x], 2),
    lambda x: pdt.stack([x, x], 4), lambda x: x.flip(2), lambda x: x.select(2, 0),
    lambda x: x.narrow(2, 0, 1), lambda x: x.topk(1, 2), lambda x: x.sort(2),
    lambda x: x.roll(1, 2), lambda x: x.movedim(0, 2), lambda x: x.tensor_split(2, 2),
    lambda x: x.diagonal(0, 0, 5),
    lambda x: x.gather(2, pdt.zeros(1, 1, dtype=pdt.int64, device=x.device)),
    lambda x: x.index_select(2, pdt.zeros(1, dtype=pdt.int64, device=x.device))])
def test_a_dim_out_of_range_in_python_names_the_shape_and_device(device, op):
    x = pdt.zeros(3, 4, device=device)
    _raises(IndexError, r"\w+\(\): Dimension out of range \(expected to be in range of "
            r"\[-\d, \d\], but got -?\d\)", (3, 4), device, lambda: op(x))


def _long(x, *shape):
    return pdt.zeros(*shape, dtype=pdt.int64, device=x.device)


# the ops whose dim goes through _ops_index._dim in Python, one family a group
_DIM_OPS = {
    # running ops along a dim
    "cumprod": lambda x: x.cumprod(5), "cummax": lambda x: x.cummax(-3),
    "cummin": lambda x: x.cummin(5), "diff": lambda x: x.diff(dim=5),
    # reductions to one value a slice (order statistics, nan reductions, moments)
    "median": lambda x: x.median(5), "nanmedian": lambda x: x.nanmedian(-3),
    "mode": lambda x: x.mode(5), "kthvalue": lambda x: x.kthvalue(1, 5),
    "quantile": lambda x: x.quantile(0.5, 5), "nanquantile": lambda x: x.nanquantile(0.5, -3),
    "logsumexp": lambda x: x.logsumexp(5), "nansum": lambda x: x.nansum((0, 5)),
    "nanmean": lambda x: x.nanmean(5), "count_nonzero": lambda x: x.count_nonzero(5),
    "var": lambda x: x.var(5), "std": lambda x: x.std(-3),
    "var_mean": lambda x: pdt.var_mean(x, 5), "std_mean": lambda x: pdt.std_mean(x, (0, 5)),
    # unique
    "unique": lambda x: pdt.unique(x, dim=5),
    "unique_consecutive": lambda x: pdt.unique_consecutive(x, dim=-3),
    # splitting into views and unfolding
    "split": lambda x: x.split(1, 5), "split_with_sizes": lambda x: x.split([1, 2], 5),
    "chunk": lambda x: x.chunk(2, 5), "unbind": lambda x: x.unbind(-3),
    "unfold": lambda x: x.unfold(5, 1, 1),
    # norms and products of vectors along a dim
    "renorm": lambda x: x.renorm(2, 5, 1.0),
    "norm_except_dim": lambda x: pdt.norm_except_dim(x, 2, 5),
    "vector_norm": lambda x: pdt.linalg.vector_norm(x, dim=5),
    "matrix_norm": lambda x: pdt.linalg.matrix_norm(x, dim=(0, 5)),
    "cross": lambda x: pdt.cross(x, x, dim=5),
    "linalg.cross": lambda x: pdt.linalg.cross(x, x, dim=5),
    # rearranging, gathering and copying slices
    "rot90": lambda x: x.rot90(1, (0, 5)), "diag_embed": lambda x: pdt.diag_embed(x, 0, 0, 5),
    "repeat_interleave": lambda x: x.repeat_interleave(2, 5),
    "take_along_dim": lambda x: pdt.take_along_dim(x, _long(x, 1, 1), 5),
    "slice_copy": lambda x: pdt.slice_copy(x, 5),
    "slice_scatter": lambda x: pdt.slice_scatter(x, x, 5),
    # calculus along a dim
    "gradient": lambda x: pdt.gradient(x, dim=5), "trapezoid": lambda x: pdt.trapezoid(x, dim=5),
    "cumulative_trapezoid": lambda x: pdt.cumulative_trapezoid(x, dim=-3),
    # ops that had their own words ("dim 5 is out of range for a 2-d input"), not PyTorch's
    "logcumsumexp": lambda x: x.logcumsumexp(5), "glu": lambda x: F.glu(x, 5),
    "softmin": lambda x: F.softmin(x, -3), "normalize": lambda x: F.normalize(x, dim=5),
    "cosine_similarity": lambda x: F.cosine_similarity(x, x, 5),
    "tensordot": lambda x: pdt.tensordot(x, x, ([5], [0])),
}


_SAID_AS = {"split_with_sizes": "split", "vector_norm": "linalg.vector_norm",
            "matrix_norm": "linalg.matrix_norm"}


@pytest.mark.parametrize("name", list(_DIM_OPS))
def test_a_dim_out_of_range_of_more_python_ops_names_the_shape_and_device(device, name):
    x = pdt.zeros(3, 4, device=device)
    n = 3 if name == "diag_embed" else 2  # diag_embed's dims are of its (ndim + 1)-d result
    said = _SAID_AS.get(name, name)  # each names its own op (nanmean once said nansum)
    _raises(IndexError, rf"{re.escape(said)}\(\): Dimension out of range \(expected to be in "
            rf"range of \[-{n}, {n - 1}\], but got (5|-3)\) \(a tensor of shape \(3, 4\) on ",
            (3, 4), device, lambda: _DIM_OPS[name](x))


def test_tensordot_over_a_dim_of_a_0d_tensor_is_an_index_error(device):
    x = pdt.tensor(1.0, device=device)  # d % 0 raised ZeroDivisionError
    with pytest.raises(IndexError, match=r"tensordot\(\): Dimension specified as 0 but tensor "
                                         rf"has no dimensions \(a 0-d tensor on {device}\)"):
        pdt.tensordot(x, x, ([0], [0]))


@pytest.mark.parametrize("shape, start", [
    ((-1, -1), r"view\(\): only one dimension can be inferred \(-1\), got shape \(-1, -1\)"),
    ((-2, 6), r"view\(\): invalid size -2 at position 0 of shape \(-2, 6\)")])
def test_a_bad_new_shape_names_the_tensors_shape_and_device(device, shape, start):
    x = pdt.zeros(3, 4, device=device)
    _raises(ValueError, start, (3, 4), device, lambda: x.view(*shape))


def test_a_view_that_strides_cannot_give_names_the_device(device):
    x = pdt.zeros(3, 4, device=device).t()
    _raises(ValueError, r"view\(\): cannot view a tensor of shape \(4, 3\) with strides "
            r"\(1, 4\)", (4, 3), device, lambda: x.view(12))


def test_permute_with_too_few_dims_names_the_shape_and_device(device):
    x = pdt.zeros(3, 4, device=device)
    _raises(ValueError, r"permute\(\): the number of dims \(1\) does not match the tensor's 2 "
            r"dimensions", (3, 4), device, lambda: x.permute(0))


@pytest.mark.parametrize("op, start", [
    (pdt.bmm, r"bmm: expected two batches of matrices \(3-D\), but got shapes \(3, 4\)"),
    (pdt.dot, r"dot: expected two vectors \(1-D\), but got shapes \(3, 4\)")])
def test_products_of_the_wrong_rank_name_the_device(device, op, start):
    x = pdt.zeros(3, 4, device=device)
    _raises(ValueError, start, (3, 4), device, lambda: op(x, x))


def test_repeat_with_too_few_sizes_names_the_shape_and_device(device):
    x = pdt.zeros(3, 4, device=device)
    _raises(RuntimeError, r"Number of dimensions of repeat dims can not be smaller than number "
            r"of dimensions of tensor \(1 < 2\)", (3, 4), device, lambda: x.repeat(2))


@pytest.mark.parametrize("loss", [F.cross_entropy, F.nll_loss])
@pytest.mark.parametrize("shape", [(2, 3), (3,), (2, 3, 4)])
def test_a_class_out_of_range_names_the_inputs_shape_and_device(device, loss, shape):
    if device.type != "cpu":
        pytest.skip("classes are read and checked on the CPU only (Note [unchecked classes])")
    x = pdt.zeros(*shape, device=device)
    target = pdt.zeros((shape[0],) + shape[2:] if len(shape) > 1 else (), dtype=pdt.int64,
                       device=device)
    target.view(-1)[-1] = 7
    name = loss.__name__
    _raises(IndexError, rf"{name}\(\): target 7 is out of bounds for 3 classes \(", shape,
            device, lambda: loss(x, target))


@pytest.mark.parametrize("loss", [F.cross_entropy, F.nll_loss])
def test_a_target_or_weight_of_the_wrong_shape_names_the_device(device, loss):
    x = pdt.zeros(2, 3, device=device)
    good = pdt.zeros(2, dtype=pdt.int64, device=device)
    name = loss.__name__
    _raises(ValueError, rf"{name}\(\): target of shape \(3,\) does not match input of shape "
            r"\(2, 3\)", (2, 3), device,
            lambda: loss(x, pdt.zeros(3, dtype=pdt.int64, device=device)))
    _raises(ValueError, rf"{name}\(\): weight of shape \(4,\) does not fit input of shape "
            r"\(2, 3\)", (2, 3), device, lambda: loss(x, good, pdt.ones(4, device=device)))
