"""pydevtensor.device: parsing, equality, hash, repr (issue 2)."""
import pickle

import pytest

import pydevtensor as pdt

GOOD = [
    # (arguments, type, index, str, repr)
    (("cpu",), "cpu", 0, "cpu", "device(type='cpu')"),
    (("cpu:0",), "cpu", 0, "cpu", "device(type='cpu')"),
    (("cuda",), "cuda", 0, "cuda:0", "device(type='cuda', index=0)"),
    (("cuda:0",), "cuda", 0, "cuda:0", "device(type='cuda', index=0)"),
    (("cuda:1",), "cuda", 1, "cuda:1", "device(type='cuda', index=1)"),
    (("cuda", 1), "cuda", 1, "cuda:1", "device(type='cuda', index=1)"),
    (("cuda:12",), "cuda", 12, "cuda:12", "device(type='cuda', index=12)"),
    (("cpu", 0), "cpu", 0, "cpu", "device(type='cpu')"),
]


@pytest.mark.parametrize("args,type_,index,text,rep", GOOD)
def test_parse(args, type_, index, text, rep):
    d = pdt.device(*args)
    assert (d.type, d.index) == (type_, index)
    assert str(d) == text
    assert repr(d) == rep


BAD_STRINGS = ["tpu", "/TPU:0", "GPU:x", "cuda:-1", "cuda:x", "tpu:0", "", "cuda:1:2", "CUDA", "cuda:", " cpu",
               "cuda:1.5", "cpu:abc"]


@pytest.mark.parametrize("text", BAD_STRINGS)
def test_bad_strings_name_the_string_and_the_forms(text):
    # a ValueError, and a RuntimeError as PyTorch's (code written `except RuntimeError`)
    with pytest.raises(pdt.InvalidArgumentError) as exc:
        pdt.device(text)
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, RuntimeError)
    with pytest.raises(RuntimeError):
        pdt.ones(2, device=text)
    msg = str(exc.value)
    assert repr(text)[1:-1] in msg or f"'{text}'" in msg
    assert "'cuda:N'" in msg and "'cpu'" in msg


@pytest.mark.parametrize("obj", [None, 1.5, [0], b"cuda", object()])
def test_non_strings(obj):
    with pytest.raises(TypeError, match="expects a string"):
        pdt.device(obj)


@pytest.mark.parametrize("index", [-1, 64, "1", 1.0, True])
def test_bad_index_argument(index):
    with pytest.raises((TypeError, ValueError), match="index"):
        pdt.device("cuda", index)


def test_index_twice():
    with pytest.raises(ValueError, match="already names an index"):
        pdt.device("cuda:1", 1)


def test_cuda_means_current_device():
    # 'cuda' resolves to the current CUDA device, cuda:0 by default (see README).
    assert pdt.device("cuda") == pdt.device("cuda:0")
    assert hash(pdt.device("cuda")) == hash(pdt.device("cuda:0"))
    assert pdt.device("cuda") != pdt.device("cuda:1")


def test_equality_and_hash():
    a, b = pdt.device("cuda:1"), pdt.device("cuda", 1)
    assert a == b and hash(a) == hash(b)
    assert pdt.device("cpu") != pdt.device("cuda:0")
    assert len({pdt.device("cpu"), pdt.device("cpu:0"), pdt.device("cuda:0"),
                pdt.device("cuda")}) == 2
    assert pdt.device("cpu") != "cpu"  # no implicit string comparison


def test_copy_of_device_and_pickle():
    d = pdt.device("cuda:3")
    assert pdt.device(d) == d
    assert pickle.loads(pickle.dumps(d)) == d
    assert pickle.loads(pickle.dumps(pdt.device("cpu"))) == pdt.device("cpu")


def test_dtype_objects():
    assert repr(pdt.float32) == "pydevtensor.float32"
    assert pdt.float is pdt.float32 and pdt.double is pdt.float64 and pdt.long is pdt.int64
    assert pdt.float32.itemsize == 4 and pdt.int64.itemsize == 8 and pdt.bool.itemsize == 1
    assert pdt.float64.is_floating_point and not pdt.int32.is_floating_point
    assert pickle.loads(pickle.dumps(pdt.float64)) is pdt.float64


def test_cpu_strings_as_arguments(device):
    """A device string as an op's argument: "cpu" exactly is read without the parser
    (x.to('cpu'), device='cpu'), and every other spelling still goes through it."""
    class Str(str):
        pass

    t = pdt.ones(2, device=device)
    on_cpu = t.to("cpu")
    assert on_cpu.device == pdt.device("cpu") and on_cpu.to("cpu") is on_cpu
    for s in ("cpu", "cpu:0", "CPU", "/device:CPU:0", Str("cpu")):
        assert t.to(s).device == pdt.device("cpu")
        assert pdt.zeros(1, device=s).device == pdt.device("cpu")
    for s in ("cpu ", "cp", "cpü", "cpu:x"):
        with pytest.raises(pdt.InvalidArgumentError, match="invalid device string"):
            pdt.zeros(1, device=s)
