"""The one-pass extremes kernels (csrc/cpu/cpu_vreduce.h, Note [one-pass extremes]) built
alone, at every instruction-set level this processor runs and in the portable form that a
processor other than x86 builds (-DPDT_VR_GENERIC), and checked by tests/kernels/
vreduce_check.c against a scalar reference on 20,000 random runs each: the first index of
the maximum and minimum (or of the first NaN) and the value, float32 and float64, and the
column kernels (each run seen as a block of rows: values, first rows, NaN reported).  The
portable form runs nowhere else on an x86 machine.  Built with AddressSanitizer and
UBSan where the compiler has them (an overlapping last vector must stay inside the run)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pydevtensor import _C

ROOT = Path(__file__).resolve().parent.parent
LEVELS = _C._cpu_simd_level()[1]
CC = shutil.which("gcc")  # the levels' files select their instructions with GCC's pragma


# gcc and the checker run without the sanitizer job's LD_PRELOAD (a preloaded ASan
# runtime makes gcc itself report its leaks and fail)
ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


def _build(level, generic, out):
    base = [CC, "-std=c11", "-O2", "-D_GNU_SOURCE", "-ffp-contract=off", "-Wall", "-Wextra",
            f'-DLEVEL_FILE="cpu_simd_{level}.c"', f"-I{ROOT / 'csrc' / 'cpu'}",
            f"-I{ROOT / 'csrc' / 'core'}", *(["-DPDT_VR_GENERIC"] if generic else []),
            str(ROOT / "tests" / "kernels" / "vreduce_check.c"), "-o", str(out), "-lm"]
    sanitized = subprocess.run(base[:1] + ["-fsanitize=address,undefined"] + base[1:],
                               capture_output=True, text=True, env=ENV)
    if sanitized.returncode == 0:
        return
    plain = subprocess.run(base, capture_output=True, text=True, env=ENV)
    assert plain.returncode == 0, plain.stderr


@pytest.mark.skipif(CC is None, reason="no gcc")
@pytest.mark.parametrize("generic", [False, True], ids=["level", "portable"])
@pytest.mark.parametrize("level", LEVELS)
def test_extremes_kernels_against_a_scalar_reference(level, generic, tmp_path):
    exe = tmp_path / "vreduce_check"
    _build(level, generic, exe)
    proc = subprocess.run([str(exe), "20000"], capture_output=True, text=True, timeout=300,
                          env={**ENV, "ASAN_OPTIONS": "detect_leaks=0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "20000 runs, 0 mismatches" in proc.stdout
