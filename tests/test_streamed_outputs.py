"""Outputs past 24 MiB are written with non-temporal stores (Note [streamed outputs] in
csrc/cpu/cpu_stream.c), those of exp, log, tanh, sigmoid, sin and cos only past the
last-level cache: the values must be the ordinary kernels', bit for bit, for outputs
that start off a cache line, end inside a block, overlap their input (in place), and on
one thread or two."""
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

import pydevtensor as pdt

N = 6_500_017  # float32: 26 MB, past the threshold, not a whole number of blocks


@pytest.fixture(params=[1, 2])
def threads(request):
    old = pdt.get_num_threads()
    pdt.set_num_threads(request.param)
    yield request.param
    pdt.set_num_threads(old)


def bits(t):
    a = np.asarray(t)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def test_streamed_elementwise_ops_give_the_kernels_bits(threads):
    rng = np.random.default_rng(9)
    a = rng.standard_normal(N + 3).astype(np.float32)
    b = rng.standard_normal(N + 3).astype(np.float32)
    ta, tb = pdt.tensor(a), pdt.tensor(b)  # the package's allocations: on a cache line
    for off in (0, 1, 3):  # the views' and outputs' starts: on a line, off one
        x, y = ta[off:off + N], tb[off:off + N]
        xa, ya = a[off:off + N], b[off:off + N]
        np.testing.assert_array_equal(bits(x + y), bits(xa + ya))
        np.testing.assert_array_equal(bits(x * 2.5), bits(xa * np.float32(2.5)))
        np.testing.assert_array_equal(bits(x / y), bits(xa / ya))
        np.testing.assert_array_equal(bits(pdt.relu(x)), bits(np.maximum(xa, 0) + 0 * xa))
        np.testing.assert_array_equal(bits(x.double()), bits(xa.astype(np.float64)))
        np.testing.assert_array_equal(bits(x.clone()), bits(xa))
        o = pdt.empty(N + 1)
        pdt.add(x, y, out=o[1:])  # out= into a view off a line
        np.testing.assert_array_equal(bits(o[1:]), bits(xa + ya))
    c = pdt.from_numpy(a.copy())
    c += tb  # in place: the output is the input
    np.testing.assert_array_equal(bits(c), bits(a + b))
    d = pdt.from_numpy(b.copy())
    pdt.mul(ta, d, out=d)  # out= the second input
    np.testing.assert_array_equal(bits(d), bits(a * b))
    e = pdt.from_numpy(a.copy())
    e[1:].relu_()  # a unary op in place, off a line
    np.testing.assert_array_equal(bits(e), bits(np.concatenate([a[:1], np.maximum(a[1:], 0)])))
    h = pdt.from_numpy(np.repeat(a[:N], 2)).half()  # 26 MB of float16
    np.testing.assert_array_equal(np.asarray(h.float()),
                                  np.repeat(a[:N], 2).astype(np.float16).astype(np.float32))


def test_streamed_in_memory_order_gives_the_kernels_bits(threads):
    """Operands dense in one memory order other than row-major (a.T + b.T, a permuted
    3-d view) run as one row and stream their output; a row with a stride other than
    the element's (every other element) must not, and leaves out='s gaps alone."""
    rng = np.random.default_rng(10)
    a = rng.standard_normal((2551, 2561)).astype(np.float32)  # 26 MB
    b = rng.standard_normal((2551, 2561)).astype(np.float32)
    ta, tb = pdt.tensor(a), pdt.tensor(b)
    s = ta.T + tb.T
    assert s.stride() == (1, 2561)  # the inputs' layout (Note [memory order])
    np.testing.assert_array_equal(bits(s), bits(a.T + b.T))
    np.testing.assert_array_equal(bits(pdt.relu(ta.T)), bits(np.maximum(a.T, 0) + 0 * a.T))
    np.testing.assert_array_equal(bits(ta.T * 2.5), bits(a.T * np.float32(2.5)))
    a3, b3 = a.reshape(2551, 13, 197), b.reshape(2551, 13, 197)
    p = pdt.tensor(a3).permute(2, 0, 1) - pdt.tensor(b3).permute(2, 0, 1)
    np.testing.assert_array_equal(bits(p), bits(a3.transpose(2, 0, 1) - b3.transpose(2, 0, 1)))
    c = rng.standard_normal(2 * N).astype(np.float32)  # every other element: N of them
    x, y = pdt.tensor(c)[::2], pdt.tensor(c)[1::2]
    np.testing.assert_array_equal(bits(x + y), bits(c[::2] + c[1::2]))
    o = pdt.full((2 * N,), 7.0)
    pdt.add(x, y, out=o[::2])  # out= every other element: one strided row, 26 MB of it
    want = np.full(2 * N, 7.0, np.float32)
    want[::2] = c[::2] + c[1::2]
    np.testing.assert_array_equal(bits(o), bits(want))


COSTLY = ("exp", "log", "tanh", "sigmoid", "sin", "cos")
COSTLY_INPUT = """
import numpy as np
rng = np.random.default_rng(11)
a = (rng.standard_normal(N + 3) * 3).astype(np.float32)
a[::1001] = rng.uniform(-1e5, 1e5, a[::1001].size)  # sin and cos past their fast path
"""


def test_streamed_costly_functions_give_the_kernels_bits():
    """With PYDEVTENSOR_CPU_CACHE_BYTES at 1 MiB a child process streams these functions'
    26 MB outputs, on one thread and two, and prints a digest of each; the reference is
    the same function over pieces of 1e6 elements, each below every streaming
    threshold."""
    child = (
        f"N = {N}\n{COSTLY_INPUT}\n"
        "import hashlib, pydevtensor as pdt\n"
        "ta = pdt.tensor(a)\n"
        "for t in (1, 2):\n"
        "    pdt.set_num_threads(t)\n"
        f"    for name in {COSTLY!r}:\n"
        "        for off in (0, 1):\n"
        "            out = np.asarray(getattr(pdt, name)(ta[off:off + N]))\n"
        "            print(name, off, t, hashlib.sha256(out.tobytes()).hexdigest())\n")
    env = dict(os.environ, PYDEVTENSOR_CPU_CACHE_BYTES=str(1 << 20))
    proc = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True,
                          text=True, check=True, timeout=600)
    got = {tuple(line.split()[:3]): line.split()[3] for line in proc.stdout.splitlines()}
    scope = {"N": N}
    exec(COSTLY_INPUT, scope)
    ta = pdt.tensor(scope["a"])
    for name in COSTLY:
        for off in (0, 1):
            x = ta[off:off + N]
            want = np.concatenate([np.asarray(getattr(pdt, name)(x[i:i + 10**6]))
                                   for i in range(0, N, 10**6)])
            digest = hashlib.sha256(want.tobytes()).hexdigest()
            for t in (1, 2):
                assert got[(name, str(off), str(t))] == digest, (name, off, t)
