"""pydevtensor.amp's custom_fwd / custom_bwd (the autocast state a custom Function's
forward and backward see), PyTorch's older top-level autocast names (deprecated, with
their warnings) and the device types autocast knows; moved from test_amp.py."""
import numpy as np
import pytest

import pydevtensor as pdt


# ---- custom_fwd / custom_bwd ----------------------------------------------------------

def _recording_function(cast_inputs, seen, device_type="cpu"):
    """An autograd.Function x @ w whose forward and backward record the autocast state
    and the dtypes they see in seen."""
    class MatMul(pdt.autograd.Function):
        @staticmethod
        @pdt.amp.custom_fwd(device_type=device_type, cast_inputs=cast_inputs)
        def forward(ctx, x, ws, extra=None):
            w = ws[0]
            seen["fwd"] = (pdt.is_autocast_enabled("cpu"), x.dtype, w.dtype)
            seen["extra"] = extra
            ctx.save_for_backward(x, w)
            return x.mm(w)

        @staticmethod
        @pdt.amp.custom_bwd(device_type=device_type)
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            seen["bwd"] = (pdt.is_autocast_enabled("cpu"), pdt.get_autocast_dtype("cpu"),
                           g.dtype)
            return g.mm(w.t().to(g.dtype)), None, None
    return MatMul


def test_custom_fwd_cast_inputs_runs_forward_in_float32_without_autocast():
    seen = {}
    f = _recording_function(pdt.float32, seen)
    x = pdt.ones(2, 3, requires_grad=True)
    w = pdt.ones(3, 2).bfloat16()
    extra = {"d": pdt.ones(1, dtype=pdt.float64), "h": [pdt.ones(1).half()],
             "i": pdt.ones(1, dtype=pdt.int64), "s": "text", "a": np.ones(1, np.float32)}
    with pdt.autocast("cpu"):
        y = f.apply(x, [w], extra=extra)
    assert y.dtype == pdt.float32
    assert seen["fwd"] == (False, pdt.float32, pdt.float32)
    got = seen["extra"]
    assert got["d"].dtype == pdt.float64 and got["h"][0].dtype == pdt.float32
    assert got["i"].dtype == pdt.int64 and got["s"] == "text"
    assert isinstance(got["a"], np.ndarray) and got["a"].dtype == np.float32
    y.sum().backward()
    # cast_inputs: the forward ran without autocast, and so does the backward
    assert seen["bwd"] == (False, pdt.bfloat16, pdt.float32)
    assert x.grad.dtype == pdt.float32 and x.grad.tolist() == [[2.0] * 3] * 2


def test_custom_fwd_without_cast_inputs_and_custom_bwd_keep_forwards_autocast_state():
    seen = {}
    f = _recording_function(None, seen)
    x = pdt.ones(2, 3, requires_grad=True)
    with pdt.autocast("cpu", dtype=pdt.float16):
        y = f.apply(x, [pdt.ones(3, 2)])
    assert y.dtype == pdt.float16  # autocast stayed on inside forward
    assert seen["fwd"] == (True, pdt.float32, pdt.float32)
    y.float().sum().backward()  # outside the region: backward runs under forward's state
    assert seen["bwd"] == (True, pdt.float16, pdt.float16)
    assert not pdt.is_autocast_enabled("cpu")
    assert pdt.get_autocast_dtype("cpu") == pdt.bfloat16


def test_custom_fwd_outside_autocast_is_a_no_op():
    seen = {}
    f = _recording_function(pdt.float32, seen)
    x = pdt.ones(2, 3, requires_grad=True).bfloat16()
    y = f.apply(x, [pdt.ones(3, 2).bfloat16()])
    assert y.dtype == pdt.bfloat16 and seen["fwd"] == (False, pdt.bfloat16, pdt.bfloat16)
    # another device type's autocast does not cast either
    with pdt.autocast("cpu"):
        g = _recording_function(pdt.float32, seen, device_type="cuda")
        g.apply(pdt.ones(2, 3), [pdt.ones(3, 2).bfloat16()])
    assert seen["fwd"] == (True, pdt.float32, pdt.bfloat16)


def test_custom_fwd_and_bwd_forms_and_ctx_attributes():
    class Ctx:
        pass

    def fwd(ctx, x):
        return x

    ctx = Ctx()
    wrapped = pdt.amp.custom_fwd(fwd, device_type="cpu")
    assert wrapped.__name__ == "fwd" and wrapped.__wrapped__ is fwd
    with pdt.autocast("cpu", dtype=pdt.float16):
        wrapped(ctx, 1)
    assert ctx._fwd_used_autocast is True and ctx._dtype == pdt.float16
    pdt.amp.custom_fwd(device_type="cpu", cast_inputs=pdt.float32)(fwd)(ctx, 1)
    assert ctx._fwd_used_autocast is False and ctx._dtype == pdt.bfloat16
    bwd = pdt.amp.custom_bwd(lambda c: (pdt.is_autocast_enabled("cpu"),
                                        pdt.get_autocast_dtype("cpu")), device_type="cpu")
    ctx._fwd_used_autocast, ctx._dtype = True, pdt.float16
    assert bwd(ctx) == (True, pdt.float16)
    for deco in (pdt.amp.custom_fwd, pdt.amp.custom_bwd):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            deco(fwd, device_type=pdt.device("cpu"))
        with pytest.raises(TypeError, match="device_type"):
            deco(fwd)


def test_deprecated_cuda_amp_custom_fwd_and_bwd_warn_and_mean_cuda():
    def fwd(ctx, x):
        return pdt.is_autocast_enabled("cpu"), x.dtype

    with pytest.warns(FutureWarning, match=r"pydevtensor\.amp\.custom_fwd\(args\.\.\., "
                                           r"device_type='cuda'\)"):
        deco = pdt.cuda.amp.custom_fwd(cast_inputs=pdt.float32)
    wrapped = deco(fwd)

    class Ctx:
        pass

    ctx = Ctx()
    with pdt.autocast("cpu"):  # CUDA's autocast is off: no cast
        assert wrapped(ctx, pdt.ones(1).bfloat16()) == (True, pdt.bfloat16)
    assert ctx._dtype == pdt.get_autocast_dtype("cuda") and ctx._fwd_used_autocast is False
    with pytest.warns(FutureWarning, match=r"pydevtensor\.cuda\.amp\.custom_bwd"):
        bwd = pdt.cuda.amp.custom_bwd(lambda c: pdt.is_autocast_enabled("cuda"))
    assert bwd(ctx) is False
    from pydevtensor.cuda.amp import custom_bwd, custom_fwd  # noqa: F401


# ---- PyTorch's older top-level names, and the device types it knows -------------------

def test_deprecated_cpu_and_gpu_state_getters_warn_and_answer():
    with pytest.warns(DeprecationWarning, match=r"is_autocast_enabled\('cpu'\) instead"):
        assert pdt.is_autocast_cpu_enabled() is False
    with pdt.autocast("cpu", dtype=pdt.float16):
        with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
            assert pdt.is_autocast_cpu_enabled() is True
        with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cpu'\) instead"):
            assert pdt.get_autocast_cpu_dtype() == pdt.float16
    with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cpu'\)"):
        assert pdt.get_autocast_cpu_dtype() == pdt.bfloat16
    pdt.set_autocast_dtype("cuda", pdt.bfloat16)
    try:
        with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cuda'\) instead"):
            assert pdt.get_autocast_gpu_dtype() == pdt.bfloat16
    finally:
        pdt.set_autocast_dtype("cuda", pdt.float16)


def test_autocast_nesting_counts_regions():
    assert pdt.autocast_increment_nesting() == 1
    assert pdt.autocast_increment_nesting() == 2
    assert pdt.autocast_decrement_nesting() == 1
    assert pdt.autocast_decrement_nesting() == 0
    with pdt.autocast("cpu"):
        assert pdt.autocast_increment_nesting() == 2
        assert pdt.autocast_decrement_nesting() == 1
    assert pdt.autocast_decrement_nesting() == -1  # below 0, as PyTorch's
    assert pdt.autocast_increment_nesting() == 0


@pytest.mark.parametrize("kind,dtype", [("xla", "bfloat16"), ("hpu", "bfloat16"),
                                        ("maia", "bfloat16"), ("mps", "float16"),
                                        ("xpu", "float16"), ("ipu", "float16"),
                                        ("mtia", "float16"), ("privateuseone", "float16")])
def test_device_types_torch_knows_answer_its_defaults(kind, dtype):
    assert pdt.get_autocast_dtype(kind) == getattr(pdt, dtype)
    assert pdt.is_autocast_enabled(kind) is False
    with pdt.autocast("cpu"):
        assert pdt.is_autocast_enabled(kind) is False


def test_device_types_torch_refuses_still_raise():
    assert pdt.get_autocast_dtype("hip") == pdt.float16  # as PyTorch's, whose
    for kind in ("hip", "meta", "tpu", "CPU"):  # is_autocast_enabled refuses 'hip'
        with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
            pdt.is_autocast_enabled(kind)
    for kind in ("meta", "lazy", "tpu", "CPU"):
        with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
            pdt.get_autocast_dtype(kind)
