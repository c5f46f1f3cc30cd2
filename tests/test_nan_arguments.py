"""A NaN argument of a unary math function comes back as itself: a quiet NaN bit for bit,
a signalling one quiet (IEEE 754 6.2, as the C library, NumPy and PyTorch's CPU give it),
its sign and payload kept, alone or among ordinary arguments, in float32 and float64, at
every CPU instruction-set level (Note [CPU dispatch levels] in csrc/cpu/cpu_simd.h).  The
float32 sigmoid gave the NaN of -x (its sign flipped) at some levels and the float32 log,
expm1, log1p, erf, erfc, inverse trigonometric functions and gelu handed back a signalling
NaN as it came; every level now returns x + x for a NaN x (sinh and cosh too, one op each
since they stopped being compositions of expm1 and exp).  On CUDA a NaN only: GPU arithmetic
returns its canonical NaN (PTX ISA, "Floating point instructions")."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

LEVELS = _C._cpu_simd_level()[1]
NAMES = ["exp", "log", "sigmoid", "tanh", "sin", "cos", "expm1", "log1p", "tan", "asin",
         "acos", "atan", "asinh", "acosh", "atanh", "log2", "log10", "erf", "erfc", "rsqrt",
         "sqrt", "sinh", "cosh", "lgamma", "digamma", "gelu"]
# (quiet NaN, -quiet NaN with a payload, signalling NaN, -signalling NaN) and what comes back
BITS = {pdt.float32: (np.uint32, [0x7FC05678, 0xFFC01234, 0x7F800001, 0xFF800001],
                      [0x7FC05678, 0xFFC01234, 0x7FC00001, 0xFFC00001]),
        pdt.float64: (np.uint64, [0x7FF8000000005678, 0xFFF8000000001234, 0x7FF0000000000001,
                                  0xFFF0000000000001],
                      [0x7FF8000000005678, 0xFFF8000000001234, 0x7FF8000000000001,
                       0xFFF8000000000001])}


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
@pytest.mark.parametrize("name", NAMES)
def test_a_nan_argument_comes_back_itself_and_quiet(device, name, dtype, level_restored):
    f = getattr(pdt, name, None) or getattr(pdt.nn.functional, name)
    utype, given, want = BITS[dtype]
    nans = np.array(given, dtype=utype).view(np.float32 if dtype == pdt.float32 else np.float64)
    levels = LEVELS if device.type == "cpu" else [None]
    for level in levels:
        if level:
            _C._cpu_simd_level(level)
        for x in (nans, np.concatenate([nans, np.linspace(0.1, 0.9, 300, dtype=nans.dtype)])):
            got = np.asarray(f(pdt.tensor(x, device=device)).cpu())[:4]
            if device.type != "cpu":
                assert np.isnan(got).all(), (name, dtype, got)
                continue
            np.testing.assert_array_equal(got.view(utype), np.array(want, dtype=utype),
                                          err_msg=f"{name} {dtype} at {level}")
