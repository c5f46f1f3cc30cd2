"""Sizes given as NumPy integers or 0-d integer tensors (anything with __index__, as
PyTorch takes them) in the nn layers and functions: kernel sizes, strides, paddings, pads,
output sizes and features were refused with TypeError; bools and floats still are.
Results against the same call with Python ints, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt

F = pdt.nn.functional

CALLS = {
    "max_pool2d": lambda x, i: F.max_pool2d(x, i(2)),
    "avg_pool2d": lambda x, i: F.avg_pool2d(x, 2, stride=i(2), padding=(i(1), 0)),
    "max_pool1d": lambda x, i: F.max_pool1d(x[:, :, 0], (i(3),)),
    "conv2d": lambda x, i: F.conv2d(x, pdt.ones(1, 1, 3, 3, device=x.device), padding=i(1),
                                    stride=(i(2), 1)),
    "pad": lambda x, i: F.pad(x, (i(1), 2, i(0), 1)),
    "pad_reflect": lambda x, i: F.pad(x, (i(2), i(1), 0, i(3)), mode="reflect"),
    "interpolate": lambda x, i: F.interpolate(x, size=(i(3), 5)),
    "adaptive": lambda x, i: F.adaptive_avg_pool2d(x, i(3)),
    "unfold": lambda x, i: F.unfold(x, i(2), stride=i(3)),
    "Conv2d": lambda x, i: (pdt.manual_seed(0), pdt.nn.Conv2d(1, 2, i(3)).to(x.device))[1](x),
    "ZeroPad2d": lambda x, i: pdt.nn.ZeroPad2d((i(1), 0, 2, i(1)))(x),
    "Linear": lambda x, i: (pdt.manual_seed(0),
                            pdt.nn.Linear(i(8), i(3)).to(x.device))[1](x),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("kind", ["np.int64", "np.int32", "tensor"])
def test_integer_like_sizes_are_ints(device, name, kind):
    x = pdt.tensor(np.arange(64.0, dtype=np.float32).reshape(1, 1, 8, 8), device=device)
    wrap = {"np.int64": np.int64, "np.int32": np.int32,
            "tensor": lambda v: pdt.tensor(v)}[kind]
    got = CALLS[name](x, wrap)
    want = CALLS[name](x, int)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().cpu().numpy())


@pytest.mark.parametrize("call", [
    lambda x: F.max_pool2d(x, True), lambda x: F.max_pool2d(x, np.bool_(True)),
    lambda x: F.max_pool2d(x, pdt.tensor(2.0)), lambda x: F.pad(x, (1.5, 1)),
    lambda x: F.interpolate(x, size=2.0), lambda x: pdt.nn.Linear(np.float64(3.0), 2)])
def test_bools_and_floats_are_still_refused(call):
    with pytest.raises(TypeError, match="int"):
        call(pdt.ones(1, 1, 8, 8))
