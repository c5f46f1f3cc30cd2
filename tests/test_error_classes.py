"""The exception classes: a bad shape or value raises InvalidArgumentError, which both
NumPy-style (ValueError) and PyTorch-style (RuntimeError) handlers catch; out of memory
is a MemoryError and a RuntimeError (Note [exceptions that are also RuntimeErrors] in
csrc/python/errors.c)."""
import pytest

import pydevtensor as pdt
from conftest import DEVICES

BAD_VALUES = {
    "broadcast": lambda d: pdt.ones(2, 3, device=d) + pdt.ones(4, device=d),
    "matmul": lambda d: pdt.ones(2, 3, device=d) @ pdt.ones(4, 5, device=d),
    "view": lambda d: pdt.ones(6, device=d).view(4),
    "reshape": lambda d: pdt.ones(6, device=d).reshape(4, 2),
    "item": lambda d: pdt.ones(3, device=d).item(),
    "bool": lambda d: bool(pdt.ones(2, device=d)),
    "t": lambda d: pdt.ones(2, 2, 2, device=d).t(),
    "linear": lambda d: pdt.nn.Linear(3, 4).to(d)(pdt.ones(2, 5, device=d)),
}


@pytest.mark.parametrize("case", list(BAD_VALUES))
@pytest.mark.parametrize("device", DEVICES)
def test_bad_values_are_value_and_runtime_errors(device, case):
    for caught in (ValueError, RuntimeError, pdt.InvalidArgumentError):
        with pytest.raises(caught) as info:
            BAD_VALUES[case](device)
        assert type(info.value) is pdt.InvalidArgumentError
    assert str(info.value)  # a message, naming the op
    if case in ("broadcast", "matmul", "linear", "reshape", "view"):
        assert any(ch.isdigit() for ch in str(info.value))  # the sizes


BAD_DTYPES = {
    "mean-of-integers": lambda d: pdt.tensor([1, 2], device=d).mean(),
    "matmul-mixed": lambda d: pdt.ones(2, 2, device=d) @ pdt.ones(2, 2, dtype=pdt.int64,
                                                                  device=d),
    "inplace-cast": lambda d: pdt.arange(4, device=d).add_(1.5),
    "bitwise-float": lambda d: pdt.ones(3, device=d) & pdt.ones(3, device=d),
    "linear-float64": lambda d: pdt.nn.Linear(2, 2).to(d)(pdt.ones(1, 2, dtype=pdt.float64,
                                                                   device=d)),
    "cross-entropy-float-target": lambda d: pdt.nn.functional.cross_entropy(
        pdt.ones(2, 3, device=d), pdt.ones(2, device=d)),
    "one-hot-float": lambda d: pdt.nn.functional.one_hot(pdt.ones(3, device=d)),
    "nanmean-int64": lambda d: pdt.nanmean(pdt.arange(3, device=d)),
    "layer-norm-int64": lambda d: pdt.nn.functional.layer_norm(pdt.arange(6, device=d), (6,)),
    "batchnorm-float64": lambda d: pdt.nn.BatchNorm1d(3).to(d)(
        pdt.ones(4, 3, dtype=pdt.float64, device=d)),
}


@pytest.mark.parametrize("device", DEVICES)
def test_subtraction_with_a_bool_on_either_side_is_refused(device):
    # PyTorch's sub refuses a bool operand whatever the other: uint8 - True would wrap to
    # 255 and 1.5 - True give 0.5; add, and sub of numbers, are unchanged
    b = pdt.tensor([True, False], device=device)
    u = pdt.tensor([0, 3], dtype=pdt.uint8, device=device)
    f = pdt.tensor([1.5, 2.5], device=device)
    for bad in (lambda: u - b, lambda: b - u, lambda: f - b, lambda: b - f, lambda: b - 1,
                lambda: 1 - b, lambda: b - 1.5, lambda: f - True, lambda: b - b,
                lambda: pdt.sub(f, b, alpha=2), lambda: f.clone().sub_(b)):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            bad()
    assert (f - 1).cpu().tolist() == [0.5, 1.5] and (u + b).cpu().tolist() == [1, 3]
    assert (f - b.float()).cpu().tolist() == [0.5, 2.5] and (~b).cpu().tolist() == [False, True]


@pytest.mark.parametrize("case", list(BAD_DTYPES))
@pytest.mark.parametrize("device", DEVICES)
def test_bad_dtypes_are_type_and_runtime_errors(device, case):
    # PyTorch raises RuntimeError for a dtype an op cannot take, NumPy TypeError
    for caught in (TypeError, RuntimeError, pdt.DTypeError):
        with pytest.raises(caught) as info:
            BAD_DTYPES[case](device)
        assert type(info.value) is pdt.DTypeError
    assert "int64" in str(info.value) or "float" in str(info.value)  # the dtypes


def test_the_class_hierarchy():
    assert issubclass(pdt.InvalidArgumentError, ValueError)
    assert issubclass(pdt.InvalidArgumentError, RuntimeError)
    assert issubclass(pdt.OutOfMemoryError, MemoryError)
    assert issubclass(pdt.OutOfMemoryError, RuntimeError)
    assert issubclass(pdt.DeviceError, RuntimeError)
    assert issubclass(pdt.DTypeError, TypeError) and issubclass(pdt.DTypeError, RuntimeError)
    assert issubclass(pdt.TransferError, RuntimeError)
    assert not issubclass(pdt.DeviceError, ValueError)


def test_out_of_memory_is_caught_as_pytorch_code_catches_it():
    try:
        pdt.empty(2 ** 45)  # 128 TiB
    except RuntimeError as e:
        assert isinstance(e, pdt.OutOfMemoryError) and isinstance(e, MemoryError)
    else:
        pytest.fail("128 TiB was allocated")
    assert pdt.ones(3).sum().item() == 3.0  # and everything goes on working


def test_other_errors_keep_their_classes():
    with pytest.raises(IndexError):
        pdt.ones(3)[5]
    with pytest.raises(TypeError):
        pdt.ones(3) + "a"


def test_mixed_devices_name_the_users_call():
    """cat/stack and the class losses refuse tensors on two devices with DeviceError
    naming the call, not an internal op (found by the new-user tester)."""
    from conftest import run_python
    out = run_python("""
import pydevtensor as p
from pydevtensor import config as c
from pydevtensor.nn import functional as F
c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                   [c.LogicalDeviceConfiguration() for _ in range(2)])
a, b = p.ones(2, device='cpu:0'), p.ones(2, device='cpu:1')
x, y = p.ones(2, 3, device='cpu:1'), p.tensor([0, 1], device='cpu:0')
for f in (lambda: p.cat([a, b]), lambda: p.stack([a, b]), lambda: F.cross_entropy(x, y),
          lambda: F.nll_loss(x, y)):
    try:
        f()
        print('no-error')
    except p.DeviceError as e:
        print(str(e).split(':')[0])
""")
    assert out == ["cat()", "stack()", "cross_entropy()", "nll_loss()"]


BAD_INDICES = {
    "gather": lambda d: pdt.gather(pdt.zeros(3, device=d), 0, pdt.tensor([5], device=d)),
    "scatter": lambda d: pdt.zeros(3, device=d).scatter(0, pdt.tensor([3], device=d), 1.0),
    "scatter_add": lambda d: pdt.zeros(3, device=d).scatter_add(
        0, pdt.tensor([-4], device=d), pdt.ones(1, device=d)),
    "index_select": lambda d: pdt.zeros(2, 3, device=d).index_select(
        1, pdt.tensor([0, 3], device=d)),
    "take": lambda d: pdt.take(pdt.zeros(3, device=d), pdt.tensor([7], device=d)),
    "sum-dim": lambda d: pdt.zeros(2, 3, device=d).sum(dim=5),
}


@pytest.mark.parametrize("case", list(BAD_INDICES))
@pytest.mark.parametrize("device", DEVICES)
def test_indices_out_of_range_are_index_and_runtime_errors(device, case):
    """PyTorch raises RuntimeError for gather/scatter out of bounds and IndexError for
    index_select and dims; NumPy IndexError: either handler catches ours."""
    for caught in (IndexError, RuntimeError, pdt.IndexOutOfRangeError):
        with pytest.raises(caught, match=r"out of (bounds|range)") as info:
            BAD_INDICES[case](device)
            if pdt.device(device).type == "cuda":  # checked on the device: reported at
                pdt.cuda.synchronize(device)      # the next synchronisation
        assert type(info.value) is pdt.IndexOutOfRangeError
    assert not isinstance(info.value, ValueError)


def _ix(d, *values):
    return pdt.tensor(list(values), device=d)


# refusals PyTorch raises as one kind where its neighbours raise the other: ours are both
BOTH_KINDS = {
    # not a vector: PyTorch's IndexError for index_add/index_copy/index_reduce, RuntimeError
    # for index_fill
    "index_add-2d-index": (IndexError, lambda d: pdt.zeros(3, 4, device=d).index_add(
        0, _ix(d, [0]), pdt.ones(1, 4, device=d))),
    "index_fill-2d-index": (IndexError, lambda d: pdt.zeros(3, 4, device=d).index_fill(
        0, _ix(d, [0]), 1.0)),
    # a source of the wrong size: PyTorch's RuntimeError for index_add, IndexError for
    # index_copy (len(index) against source.size(dim)) and put (numel against numel)
    "index_add-source": (IndexError, lambda d: pdt.zeros(3, 4, device=d).index_add(
        0, _ix(d, 0), pdt.ones(2, 4, device=d))),
    "index_copy-source": (IndexError, lambda d: pdt.zeros(3, 4, device=d).index_copy(
        0, _ix(d, 0), pdt.ones(2, 4, device=d))),
    "put-source": (IndexError, lambda d: pdt.zeros(3, device=d).put(
        _ix(d, 0, 1), pdt.ones(3, device=d))),
    # a dtype: PyTorch's RuntimeError (NumPy's TypeError)
    "put-int32-index": (TypeError, lambda d: pdt.zeros(3, device=d).put(
        _ix(d, 0).int(), pdt.ones(1, device=d))),
    "index_fill-complex-value": (TypeError, lambda d: pdt.zeros(3, device=d).index_fill(
        0, _ix(d, 0), 1j)),
}


@pytest.mark.parametrize("case", list(BOTH_KINDS))
@pytest.mark.parametrize("device", DEVICES)
def test_refusals_pytorch_splits_between_kinds_are_both(device, case):
    kind, call = BOTH_KINDS[case]
    for caught in (kind, RuntimeError):
        with pytest.raises(caught) as info:
            call(device)
    assert not isinstance(info.value, ValueError)


@pytest.mark.parametrize("device", DEVICES)
def test_a_reduce_that_is_not_a_str_is_a_type_error(device):
    # PyTorch's argument check: "argument 'reduce' must be str, not NoneType" (it was a
    # RuntimeError here, as an unknown name still is)
    x, s = pdt.zeros(3, device=device), pdt.ones(2, device=device)
    i = _ix(device, 0, 0)
    for reduce in (None, 1):
        with pytest.raises(TypeError, match="'reduce' must be str"):
            pdt.scatter_reduce(x, 0, i, s, reduce)
        with pytest.raises(TypeError, match="'reduce' must be str"):
            x.index_reduce(0, i, s, reduce)
    with pytest.raises(RuntimeError, match="reduce"):
        pdt.scatter_reduce(x, 0, i, s, "add")
    assert x.scatter_reduce(0, i, s, "max").cpu().tolist() == [1.0, 0.0, 0.0]
