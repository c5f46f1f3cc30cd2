"""OpenBLAS's spin after a threaded call (Note [OpenBLAS's spin] in csrc/cpu/cpu_blas.c):
OPENBLAS_THREAD_TIMEOUT is set only for the moment OpenBLAS loads, and only when the user
set neither it nor GOTO_THREAD_TIMEOUT; afterwards the process environment (what C code
and child processes see, not only os.environ) is as it was."""
import subprocess
import sys

import pytest
from conftest import run_python

CHECK = """
import ctypes, os, subprocess, sys
import pydevtensor as pdt
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
pdt.matmul(pdt.ones(300, 300), pdt.ones(300, 300))   # loads OpenBLAS
child = subprocess.run([sys.executable, '-c',
                        'import os; print(os.environ.get("OPENBLAS_THREAD_TIMEOUT"))'],
                       capture_output=True, text=True).stdout.strip()
print(libc.getenv(b'OPENBLAS_THREAD_TIMEOUT'), os.environ.get('OPENBLAS_THREAD_TIMEOUT'), child)
"""


def run(extra_env):
    return run_python(CHECK, drop=("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT"),
                      **extra_env)


def test_the_spin_setting_does_not_outlive_the_load():
    assert run({}) == ["None", "None", "None"]


@pytest.mark.parametrize("name", ["OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT"])
def test_a_users_setting_is_left_alone(name):
    got = run({name: "20"})
    if name == "OPENBLAS_THREAD_TIMEOUT":
        assert got == ["b'20'", "20", "20"]
    else:  # ours is not added beside the user's GOTO_ one
        assert got == ["None", "None", "None"]


def test_matmul_is_right_after_the_load():
    code = ("import numpy as np, pydevtensor as pdt\n"
            "a = np.random.default_rng(0).standard_normal((300, 200)).astype(np.float32)\n"
            "print(np.allclose(pdt.tensor(a) @ pdt.tensor(a.T), a @ a.T, rtol=1e-4, atol=1e-3))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["True"], out.stderr
