"""float32 exp, log, tanh, sigmoid, sin, cos and exp2 on the CPU (Note [vector math accuracy]
in csrc/cpu/cpu_vmath.h, Note [float32 evaluation with FMA] in csrc/cpu/cpu_vmathf.h, Note
[float32 exp2] in csrc/cpu/cpu_vexp2.h), at every
instruction-set level this processor supports (Note [CPU dispatch levels] in
csrc/cpu/cpu_simd.h).

The sample: every float32 exponent (subnormals included), both signs, random mantissas,
plus the special values and the overflow and underflow edges.  The reference is NumPy's
float64 function of the same argument.  An error in ulps is abs(got - ref) over the
spacing of float32 in ref's binade (2^-149 in the subnormal range): ulps32 in conftest.  The bounds: 1 ulp for every
function at the baseline level (evaluated in double); at the levels with FMA (AVX2,
AVX-512, evaluated in float32) 1 ulp for exp and log and 1.5 for tanh, sigmoid, sin and
cos (exp2 1), except AVX-512's tanh, a table of polynomials within 1 ulp (Note [tanh by a table of
polynomials] in csrc/cpu/cpu_vmathf.h).  Levels that run one evaluation give the same
bits; two levels with different ones differ by at most the sum of their bounds.  Against a
CUDA device the two results differ by at most the sum of the CPU's bound and CUDA's:
CUDA's expf, tanhf, sinf, cosf, exp2f are within
2 ulp and logf within 1 ulp (CUDA C++ Programming Guide, appendix "Mathematical
Functions", single precision, default flags), and sigmoid is e / (1 + e) with
e = expf(-|x|) there (1 / (1 + e) for x >= 0), within 4 ulp (expf's 2 and two
roundings).  float32 powers: test_vmath_pow.py.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import CUDA_DEVICES, ulps32

FUNCS = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sin": np.sin,
    "cos": np.cos,
    "exp2": np.exp2,  # Note [float32 exp2] in csrc/cpu/cpu_vexp2.h
}
BASELINE_BOUND_ULP = 1.0
FMA_BOUND_ULP = {"exp": 1.0, "log": 1.0, "tanh": 1.5, "sigmoid": 1.5, "sin": 1.5, "cos": 1.5,
                 "exp2": 1.0}
CUDA_BOUND_ULP = {"exp": 2.0, "log": 1.0, "tanh": 2.0, "sigmoid": 4.0, "sin": 2.0, "cos": 2.0,
                  "exp2": 2.0}
LEVELS = _C._cpu_simd_level()[1]


# (function, level) evaluated in a way of its own at that level, with its bound
OWN_BOUND_ULP = {("tanh", "avx512"): 1.0}


def cpu_bound(name, level):
    if level == "baseline":
        return BASELINE_BOUND_ULP
    return OWN_BOUND_ULP.get((name, level), FMA_BOUND_ULP[name])


def evaluation(name, level):
    """Levels with the same evaluation of a function give the same bits."""
    if level == "baseline" or (name, level) in OWN_BOUND_ULP:
        return level
    return "fma"


def gpu_bound(name):
    """The most a CPU result (at any level) and a CUDA one may differ, in ulps."""
    return max(cpu_bound(name, level) for level in LEVELS) + CUDA_BOUND_ULP[name]

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0,
                    np.finfo(np.float32).max, -np.finfo(np.float32).max,
                    np.finfo(np.float32).tiny, -np.finfo(np.float32).tiny,
                    np.float32(2.0**-149), -np.float32(2.0**-149),
                    88.72283935546875, 88.7228469848632812, -103.972084045410156,
                    -103.97208404541016 - 1e-5, -87.33654022216797, 9.01, -9.01,
                    2.0**20, -2.0**20, 2.0**20 + 1, 1e30, -1e30, np.pi / 4, 3 * np.pi / 2],
                   dtype=np.float32)


def dense_sample(per_exponent=1000, seed=0):
    """Every float32 exponent field 0..254, both signs, random mantissas; plus SPECIAL."""
    rng = np.random.default_rng(seed)
    exps = np.repeat(np.arange(255, dtype=np.uint32), per_exponent)
    mant = rng.integers(0, 1 << 23, exps.size, dtype=np.uint32)
    sign = rng.integers(0, 2, exps.size, dtype=np.uint32)
    bits = (sign << 31) | (exps << 23) | mant
    return np.concatenate([bits.view(np.float32), SPECIAL])


def ulp_errors(got, x, ref_fn):
    """ulps32 (conftest) of got against ref_fn of x in float64."""
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64))
    return ulps32(got, ref)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(FUNCS))
def test_within_the_bound_everywhere(name, level, level_restored):
    _C._cpu_simd_level(level)
    x = dense_sample()
    if name == "log":
        x = np.abs(x)  # the negative half is NaN, checked below
    got = np.asarray(getattr(pdt, name)(pdt.tensor(x)))
    err = ulp_errors(got, x, FUNCS[name])
    worst = int(np.argmax(err))
    assert err[worst] <= cpu_bound(name, level), (
        f"{name} at level {level}: {err[worst]:.3f} ulp at x={x[worst]!r} "
        f"(got {got[worst]!r}, want {FUNCS[name](np.float64(x[worst]))!r})")


@pytest.mark.parametrize("name", list(FUNCS))
def test_levels_agree(name, level_restored):
    """Levels with the same evaluation give the same bits (AVX2 and AVX-512 but for tanh);
    two evaluations stay within the sum of their bounds of each other."""
    x = dense_sample(per_exponent=100, seed=1)
    if name == "log":
        x = np.abs(x)
    outs = {}
    for level in LEVELS:
        _C._cpu_simd_level(level)
        outs[level] = np.asarray(getattr(pdt, name)(pdt.tensor(x)))
    for i, a in enumerate(LEVELS):
        for b in LEVELS[i + 1:]:
            if evaluation(name, a) == evaluation(name, b):
                differ = np.flatnonzero(outs[a].view(np.uint32) != outs[b].view(np.uint32))
                assert differ.size == 0, f"{name}: {a} and {b} differ at x={x[differ[:5]]}"
                continue
            ref = outs[a]
            err = ulp_errors(outs[b], x, lambda v: ref.astype(np.float64))
            worst = int(np.argmax(err))
            assert err[worst] <= cpu_bound(name, a) + cpu_bound(name, b), (
                f"{name}: {a} and {b} differ by {err[worst]:.3f} ulp at x={x[worst]!r}")


def _float_run(x, count):
    """The count float32 values from x upward, in order (x >= 0)."""
    start = np.array([x], np.float32).view(np.uint32)[0]
    return (start + np.arange(count, dtype=np.uint32)).view(np.float32)


@pytest.mark.parametrize("level", LEVELS)
def test_tanh_across_its_intervals(level, level_restored):
    """Runs of consecutive floats across every edge of AVX-512's intervals (Note [tanh by
    a table of polynomials]) and past tanh's saturation, at every level: within the bound,
    odd to the bit, at most 1 in magnitude, x itself for |x| < 2^-12 (subnormals too), and
    at AVX-512 never decreasing."""
    _C._cpu_simd_level(level)
    edges = [2.0 ** e * (1 + q / 4) for e in range(-4, 4) for q in range(4)] + [9.0, 9.5]
    runs = [_float_run(np.nextafter(np.float32(v), np.float32(0)) * np.float32(1 - 2 ** -20),
                       600) for v in edges]
    big = np.float32([9.5, 10.0, 16.0, 1e4, 3e38, np.inf])
    x = np.concatenate(runs + [_float_run(9.0, 110000), big])  # 9 to 9.1: reaches 1 at 9.02
    got = np.asarray(pdt.tanh(pdt.tensor(x)))
    err = ulp_errors(got, x, np.tanh)
    assert err.max() <= cpu_bound("tanh", level), (level, x[np.argmax(err)])
    if ("tanh", level) in OWN_BOUND_ULP:  # the table's; tanhf at AVX2 is not monotone
        for run, out in zip(runs, np.split(got[:sum(r.size for r in runs)], len(runs))):
            assert (np.diff(out.astype(np.float64)) >= 0).all(), (level, run[0])
    assert (np.abs(got) <= 1.0).all() and (got[-big.size - 1:] == 1.0).all()
    neg = np.asarray(pdt.tanh(pdt.tensor(-x)))
    np.testing.assert_array_equal(neg.view(np.uint32), (-got).view(np.uint32))
    tiny = np.concatenate([_float_run(0.0, 5000), _float_run(2.0 ** -16, 5000),
                           np.float32(2.0 ** -12) * np.linspace(0.5, 1, 2000, dtype=np.float32)])
    tiny = np.concatenate([tiny, -tiny])
    out = np.asarray(pdt.tanh(pdt.tensor(tiny)))
    np.testing.assert_array_equal(out.view(np.uint32), tiny.view(np.uint32))


def test_special_values():
    f = lambda name, v: float(getattr(pdt, name)(pdt.tensor([v], dtype=pdt.float32))[0])  # noqa: E731
    inf, nan = float("inf"), float("nan")
    assert f("exp", inf) == inf and f("exp", -inf) == 0.0 and np.isnan(f("exp", nan))
    assert f("exp", 89.0) == inf and f("exp", -104.0) == 0.0
    assert f("log", 0.0) == -inf and f("log", -0.0) == -inf and np.isnan(f("log", -1.0))
    assert f("log", inf) == inf and np.isnan(f("log", nan)) and f("log", 1.0) == 0.0
    assert f("sigmoid", -inf) == 0.0 and f("sigmoid", inf) == 1.0
    assert f("tanh", inf) == 1.0 and f("tanh", -inf) == -1.0
    assert np.isnan(f("sin", inf)) and np.isnan(f("cos", -inf)) and np.isnan(f("sin", nan))
    for name in ("exp", "tanh", "sin"):  # the sign of a zero
        r = getattr(pdt, name)(pdt.tensor([-0.0], dtype=pdt.float32))
        want = 1.0 if name == "exp" else -0.0
        assert np.asarray(r)[0] == want and np.signbit(np.asarray(r)[0]) == np.signbit(want)


@pytest.mark.parametrize("level", LEVELS)
def test_exp_underflow_at_every_level(level, level_restored):
    # Note [exp's underflow]: inputs at or below -104 select +0 instead of
    # computing an underflowing product; the boundary, the truly subnormal results
    # above it, and every lane position of a vector (a block of 37 mixed values)
    _C._cpu_simd_level(level)
    edge = np.float32(-104.0)
    x = np.array([-np.inf, -1e30, -200.0, np.nextafter(edge, np.float32(-1)), edge,
                  np.nextafter(edge, np.float32(0)), -103.972, -103.97, -100.0, -90.0,
                  -87.5, -87.0, 0.0, np.nan], dtype=np.float32)
    x = np.concatenate([x, np.roll(x, 5), x[:9]])
    got = np.asarray(pdt.exp(pdt.tensor(x)))
    low = x <= edge
    assert np.array_equal(got[low].view(np.uint32), np.zeros(low.sum(), np.uint32))  # +0
    err = ulp_errors(got[~low], x[~low], np.exp)
    assert err.max() <= cpu_bound("exp", level), (x[~low][np.argmax(err)], err.max())


@pytest.mark.parametrize("level", LEVELS)
def test_exp2_edges_at_every_level(level, level_restored):
    """exp2 (Note [float32 exp2]): integers give their power of two exactly, subnormal
    results included; at or below -151 +0 without computing (the underflow), -150 a tie
    to 0, -149 the least subnormal; overflow to inf from 128; the specials; every lane
    position (a block of mixed values, rotated)."""
    _C._cpu_simd_level(level)
    ints = np.arange(-149, 128, dtype=np.float32)
    got = np.asarray(pdt.exp2(pdt.tensor(ints)))
    np.testing.assert_array_equal(got, np.exp2(ints.astype(np.float64)).astype(np.float32))
    x = np.array([-np.inf, -1e30, -200.0, -151.5, -151.0, -150.5, -150.0, -149.5, -149.0,
                  -140.3, -126.5, -0.0, 0.0, 1e-30, 0.5, 127.99999, 128.0, 129.5, 1e30, np.inf,
                  np.nan, -np.nan], dtype=np.float32)
    x = np.concatenate([x, np.roll(x, 7), x[:11]])
    got = np.asarray(pdt.exp2(pdt.tensor(x)))
    low = x <= -150.0
    assert np.array_equal(got[low].view(np.uint32), np.zeros(low.sum(), np.uint32))  # +0
    np.testing.assert_array_equal(np.isnan(got), np.isnan(x))
    assert (got[x == np.inf] == np.inf).all() and (got[(x >= 128) & (x < np.inf)] == np.inf).all()
    assert (got[x == 0] == 1.0).all()
    err = ulp_errors(got[~low], x[~low], np.exp2)
    assert err.max() <= cpu_bound("exp2", level), (x[~low][np.argmax(err)], err.max())


def test_strided_and_contiguous_agree():
    """A strided row goes through a buffer to the same kernel: the same bits."""
    x = dense_sample(per_exponent=20).astype(np.float32)
    x = x[: (x.size // 2) * 2].reshape(2, -1)
    t = pdt.tensor(x)
    for name in FUNCS:
        f = getattr(pdt, name)
        a = np.asarray(f(t.T.contiguous())).view(np.uint32)
        b = np.asarray(f(t.T)).T.copy().T.view(np.uint32)  # the op on a transposed view
        np.testing.assert_array_equal(a, np.ascontiguousarray(b), err_msg=name)
        c = np.asarray(f(t[:, ::3])).view(np.uint32)
        d = np.asarray(f(t[:, ::3].contiguous())).view(np.uint32)
        np.testing.assert_array_equal(c, d, err_msg=name)


# One value in a block of 256 that takes a row's general path (Note [block fast paths] in
# csrc/cpu/cpu_vmath.h): for log anything but a positive normal float, for sin and cos an
# argument past 2^13 (the FMA levels) or 2^20 (the baseline), inf or NaN.
SLOW_PATH_VALUES = {"log": [0.0, 1e-40, -1.0, np.inf, np.nan],
                    "sin": [1e4, 3e6, np.inf, -np.nan], "cos": [-1e4, -3e6, -np.inf, np.nan]}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(SLOW_PATH_VALUES))
def test_block_fast_path_gives_the_general_paths_bits(name, level, level_restored):
    """A block of ordinary arguments (the fast path) and the same arguments in a block
    that holds one value for the general path: the same bits, at every offset of the
    odd value and for rows that end inside a block."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(5)
    x = np.exp2(rng.uniform(-126, 127 if name == "log" else 13, 1027)).astype(np.float32)
    if name != "log":
        x *= rng.choice(np.array([-1, 1], dtype=np.float32), x.size)
    f = getattr(pdt, name)
    fast = np.asarray(f(pdt.tensor(x))).view(np.uint32)
    for k, odd in enumerate(SLOW_PATH_VALUES[name]):
        y = x.copy()
        at = np.array([0, 255, 256 + 17 * k, 700, 1026])
        y[at] = odd
        mixed = np.asarray(f(pdt.tensor(y)))
        keep = np.ones(x.size, bool)
        keep[at] = False
        np.testing.assert_array_equal(mixed.view(np.uint32)[keep], fast[keep],
                                      err_msg=f"{name} at {level} next to {odd}")
        err = ulp_errors(mixed[at], y[at], FUNCS[name])
        assert (err <= cpu_bound(name, level)).all(), (name, level, odd, mixed[at])


def test_level_switch_and_environment_variable():
    now, supported = _C._cpu_simd_level()
    assert now in supported and supported[0] == "baseline"
    with pytest.raises(ValueError, match="not supported by this processor"):
        _C._cpu_simd_level("sse9")
    code = "from pydevtensor import _C; import pydevtensor as pdt; pdt.exp(pdt.ones(3)); " \
           "print(_C._cpu_simd_level()[0])"
    for want in ("baseline", "avx512", "nonsense"):
        env = dict(os.environ, PYDEVTENSOR_CPU_LEVEL=want)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        if want == "baseline" or want in supported:
            assert proc.stdout.strip() == want and proc.stderr == ""
        else:
            assert proc.stdout.strip() == supported[-1]
            assert "PYDEVTENSOR_CPU_LEVEL" in proc.stderr


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES)
@pytest.mark.parametrize("name", list(FUNCS))
def test_cpu_and_cuda_agree_within_the_stated_bound(device, name):
    x = dense_sample(per_exponent=40, seed=2)
    if name == "log":
        x = np.abs(x)
    cpu = np.asarray(getattr(pdt, name)(pdt.tensor(x)))
    gpu = np.asarray(getattr(pdt, name)(pdt.tensor(x, device=device)).cpu())
    ref = FUNCS[name]
    err = ulp_errors(cpu, x, ref) + ulp_errors(gpu, x, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= gpu_bound(name), (
        f"{name}: CPU {cpu[worst]!r} and {device} {gpu[worst]!r} at x={x[worst]!r}")


def test_build_info_and_device_table_name_the_level():
    info = pdt.build_info()["cpu"]
    assert info["simd_level"] == _C._cpu_simd_level()[0]
    assert info["simd_supported"] == list(LEVELS)
    out = subprocess.run([sys.executable, "-m", "pydevtensor"], capture_output=True, text=True,
                         timeout=120).stdout
    assert f"{info['simd_level']} kernels" in out


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_pass_extremes_at_every_level(level, dtype, level_restored):
    """max, min, argmax, argmin through the one-pass kernels (csrc/cpu/cpu_vreduce.h):
    the first index of the extreme when it repeats, the first NaN when there is one,
    at lengths around the vector widths and across chunk boundaries; exactly NumPy's."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 16, 31, 32, 33, 65, 1000, 65536 + 17, 300_001):
        x = rng.standard_normal(n).astype(dtype)
        x[rng.integers(0, n, 3)] = x.max()  # ties: the first must win
        x[rng.integers(0, n, 2)] = x.min()
        t = pdt.tensor(x)
        assert int(t.argmax()) == int(np.argmax(x)) and int(t.argmin()) == int(np.argmin(x))
        assert float(t.max()) == float(x.max()) and float(t.min()) == float(x.min())
        m = np.asarray(pdt.tensor(x.reshape(1, -1)).argmax(1))
        assert int(m[0]) == int(np.argmax(x))
        if n > 2:
            y = x.copy()
            y[[n // 3, n - 1]] = np.nan
            ty = pdt.tensor(y)
            assert int(ty.argmax()) == n // 3 == int(np.argmax(y))
            assert int(ty.argmin()) == n // 3 == int(np.argmin(y))
            assert np.isnan(float(ty.max())) and np.isnan(float(ty.min()))
    x = np.full(100, -np.inf, dtype=dtype)
    assert int(pdt.tensor(x).argmax()) == 0 and float(pdt.tensor(x).max()) == -np.inf


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_pass_extremes_at_every_length(level, dtype, level_restored):
    """Every length from 1 to 300 (the chains, the single vectors and the last vector
    that overlaps what was read, at every width): ties placed anywhere, in the
    overlapped tail too, all-equal runs, a NaN only at the start or only at the end;
    exactly NumPy's index and value."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(17)
    for n in range(1, 301):
        x = rng.integers(-4, 5, n).astype(dtype)  # few values: many ties
        cases = [x, np.zeros(n, dtype), x[::-1].copy()]
        y = x.copy()
        y[-1] = y.max() + 1  # the extreme in the last element only
        cases.append(y)
        for c in cases:
            t = pdt.tensor(c)
            assert int(t.argmax()) == int(np.argmax(c)), (n, c)
            assert int(t.argmin()) == int(np.argmin(c)), (n, c)
            assert float(t.max()) == float(c.max()) and float(t.min()) == float(c.min())
        zeros = np.full(n, -0.0, dtype)  # -0.0 stays -0.0 (not +0.0 + -0.0)
        below = -np.abs(x) - 1.0
        below[0] = -0.0  # the maximum is the first element, -0.0
        for c in (zeros, below):
            t = pdt.tensor(c)
            assert np.signbit(float(t.max())) and int(t.argmax()) == 0, (n, c)
        assert np.signbit(float(pdt.tensor(zeros).min())), n
        for at in {0, n - 1}:
            z = x.copy()
            z[at] = np.nan
            tz = pdt.tensor(z)
            assert int(tz.argmax()) == at == int(tz.argmin())
            assert np.isnan(float(tz.max())) and np.isnan(float(tz.min()))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_index_kernels_across_blocks(level, dtype, level_restored):
    """The index kernels read blocks of 16 vectors (64 to 256 elements by level and
    dtype), each read again only when it holds a new extreme (Note [one-pass extremes]
    in csrc/cpu/cpu_vreduce.h): lengths at every block edge of every width; a sorted run
    (a new extreme in every block), a reversed one (none after the first element), the
    extreme repeated in later blocks (the first must win), -0.0 before +0.0 in another
    block, in the last block's overlapped end, and a NaN in a late block only."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(29)
    lengths = set()
    for block in (32, 64, 128, 256):
        for k in (1, 2, 3):
            lengths |= {k * block - 1, k * block, k * block + 1, k * block + 15}
    for n in sorted(lengths | {1000, 4099}):
        up = np.arange(n, dtype=dtype)
        few = rng.integers(-3, 4, n).astype(dtype)
        spread = rng.standard_normal(n).astype(dtype)
        spread[[n // 5, n // 2, n - 1]] = spread.max() + 1  # ties in three blocks
        zeros = -np.abs(spread) - 1
        zeros[n // 3] = -0.0
        zeros[n - 2:] = 0.0  # +0.0 later, in the last vector: ties, the -0.0 stays first
        for c in (up, up[::-1].copy(), few, spread, zeros, -spread):
            t = pdt.tensor(c)
            assert int(t.argmax()) == int(np.argmax(c)), (level, n)
            assert int(t.argmin()) == int(np.argmin(c)), (level, n)
            assert float(t.max()) == float(c.max()) and float(t.min()) == float(c.min())
        late = spread.copy()
        late[n - 3] = np.nan
        late[n - 1] = np.nan
        t = pdt.tensor(late)
        assert int(t.argmax()) == n - 3 == int(t.argmin()), (level, n)
        assert np.isnan(float(t.max())) and np.isnan(float(t.min()))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_simple_unary_ops_are_exact_at_every_level(level, dtype, level_restored):
    """neg, abs, sqrt and relu: contiguous rows run the level's kernels, strided ones the
    shared expression (cpu_simd.h); both give NumPy's bits, -0.0, NaN and inf included
    (relu keeps -0.0 and NaN, as x < 0 ? 0 : x)."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(4099) * 10.0 ** rng.integers(-30, 30, 4099)).astype(dtype)
    x[:6] = [-0.0, 0.0, np.nan, np.inf, -np.inf, -1.0]
    want = {"neg": -x, "abs": np.abs(x), "relu": np.where(x < 0, 0, x).astype(dtype)}
    with np.errstate(invalid="ignore"):
        want["sqrt"] = np.sqrt(x)
    t = pdt.tensor(x)
    for name, w in want.items():
        f = getattr(pdt, name)
        for got, ref in ((f(t), w), (f(t[::3]), w[::3])):
            g = np.asarray(got)
            assert (g.view(f"u{g.itemsize}") == ref.view(f"u{ref.itemsize}")).all() or \
                np.array_equal(np.isnan(g), np.isnan(ref)) and \
                (g[~np.isnan(g)].view(f"u{g.itemsize}") ==
                 ref[~np.isnan(ref)].view(f"u{ref.itemsize}")).all(), (name, level)
    # clamp: x < lo ? (lo > hi ? hi : lo) : x > hi ? hi : x; a NaN stays NaN
    for lo, hi in ((-1.5, 2.0), (3.0, -1.0), (-np.inf, 0.0)):
        ref = np.where(x < lo, hi if lo > hi else lo, np.where(x > hi, hi, x)).astype(dtype)
        for got, r in ((t.clamp(lo, hi), ref), (t[::3].clamp(lo, hi), ref[::3])):
            g = np.asarray(got)
            assert np.array_equal(np.isnan(g), np.isnan(r)), (lo, hi, level)
            g, r = g[~np.isnan(g)], r[~np.isnan(r)]  # the rest to the bit (-0.0 too)
            assert np.array_equal(g.view(f"u{g.itemsize}"), r.view(f"u{r.itemsize}")), \
                (lo, hi, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_comparisons_at_every_level(level, dtype, level_restored):
    """The six comparisons of contiguous float rows run the level's kernels (two rows, a
    row and a number either side), strided ones the loops of cpu_elementwise.c: NumPy's
    answers, NaN (unequal to everything), -0.0 == 0.0 and the infinities included."""
    _C._cpu_simd_level(level)
    rng = np.random.default_rng(13)
    x = rng.integers(-3, 4, 2053).astype(dtype)
    y = rng.integers(-3, 4, 2053).astype(dtype)
    x[:5] = [np.nan, -0.0, np.inf, -np.inf, 1.0]
    y[:5] = [np.nan, 0.0, np.inf, 1.0, np.nan]
    tx, ty = pdt.tensor(x), pdt.tensor(y)
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
    for name, ref in ops.items():
        f = getattr(pdt, name)
        cases = [(f(tx, ty), ref(x, y)), (f(tx, 0.0), ref(x, 0.0)), (f(-0.0, ty), ref(-0.0, y)),
                 (f(tx[::2], ty[::2]), ref(x[::2], y[::2]))]
        for got, want in cases:
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name} {level}")
    # a float row times a bool row (Note [a float times a mask]): the level's kernel for
    # contiguous rows; the bits of x * 1.0 and x * 0.0 (-0.0 for a negative x, NaN for
    # NaN and the infinities)
    m = ty > 0
    for got, want in ((tx * m, x * (y > 0)), (tx[::2] * m[::2], x[::2] * (y[::2] > 0))):
        g = np.asarray(got)
        assert g.dtype == want.dtype
        same = (g.view(f"u{g.itemsize}") == want.view(f"u{g.itemsize}")) | \
            (np.isnan(g) & np.isnan(want))
        assert same.all(), level


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_comparisons_of_every_lane_at_every_level(level, dtype, level_restored):
    """The comparisons' rows (Note [comparisons into bytes] in
    csrc/cpu/cpu_vcompare.h: masks narrowed by packs and put back in order) give each
    element its own answer at every position of a block and of the tail: equal, less and
    greater pairs, NaN and the signed zeros, and integers that differ only in their high
    or low 32 bits, shifted through every lane; every length up to 70, writing nothing past
    its end."""
    _C._cpu_simd_level(level)
    if dtype.startswith("float"):
        pairs = [(1.0, 1.0), (1.0, 2.0), (2.0, 1.0), (np.nan, 1.0), (1.0, np.nan),
                 (np.nan, np.nan), (-0.0, 0.0), (np.inf, -np.inf), (-np.inf, -np.inf),
                 (1e300 if dtype == "float64" else 1e30, -3.0)]
    else:
        info = np.iinfo(dtype)
        half = 1 << (info.bits // 2)
        pairs = [(5, 5), (info.min, info.max), (info.max, info.min), (half, 0), (0, half),
                 (half + 1, half), (-half, half), (info.min, info.min), (-1, 0), (1, 7)]
    a0 = np.array([p[0] for p in pairs], dtype)
    b0 = np.array([p[1] for p in pairs], dtype)
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
    # every pair at every position of 64-element blocks (the widest rows take 32 a block)
    a = np.concatenate([np.roll(np.resize(a0, 64), k) for k in range(len(pairs))] + [a0])
    b = np.concatenate([np.roll(np.resize(b0, 64), k) for k in range(len(pairs))] + [b0])
    ta, tb = pdt.from_numpy(a), pdt.from_numpy(b)
    for name, ref in ops.items():
        f = getattr(pdt, name)
        for n in list(range(1, 71)) + [a.size]:
            cases = [(f(ta[:n], tb[:n]), ref(a[:n], b[:n]), "rows")]
            for v in (a0[0], b0[3], a0[3], a0[6]):  # a number on either side (NaN, -0.0 too)
                cases += [(f(ta[:n], v.item()), ref(a[:n], v), f"row, {v}"),
                          (f(v.item(), tb[:n]), ref(v, b[:n]), f"{v}, row")]
            for got, want, what in cases:
                np.testing.assert_array_equal(np.asarray(got), want,
                                              err_msg=f"{name} {what} n={n} {dtype} {level}")
            for fill in (True, False):  # and not one byte past the n written
                buf = pdt.full((n + 40,), fill, dtype=pdt.bool)
                f(ta[:n], tb[:n], out=buf[:n])
                assert np.asarray(buf[n:]).tolist() == [fill] * 40, (name, n, dtype, level)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arithmetic_is_exact_at_every_level(dtype, level_restored):
    """+, -, *, / of contiguous rows run the level's kernels: each is the single IEEE
    operation (no fused multiply-add), so every level, the strided loop and NumPy give
    the same bits, for two tensors, a scalar on either side, and in place."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(10_007) * 10.0 ** rng.integers(-30, 30, 10_007)).astype(dtype)
    b = (rng.standard_normal(10_007) * 10.0 ** rng.integers(-30, 30, 10_007)).astype(dtype)
    b[::97] = 0.0  # x / 0
    ops = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
    s = np.array(1.7, dtype=dtype)
    with np.errstate(all="ignore"):
        for level in LEVELS:
            _C._cpu_simd_level(level)
            ta, tb = pdt.tensor(a), pdt.tensor(b)
            for sym, f in ops.items():
                pyop = {"+": lambda x, y: x + y, "-": lambda x, y: x - y,
                        "*": lambda x, y: x * y, "/": lambda x, y: x / y}[sym]
                cases = [(pyop(ta, tb), f(a, b)), (pyop(ta, float(s)), f(a, s)),
                         (pyop(float(s), tb), f(s, b)),
                         (pyop(ta[::2], tb[::2]), f(a[::2], b[::2]))]
                t = ta.clone()
                t.__iadd__(tb) if sym == "+" else t.__isub__(tb) if sym == "-" else \
                    t.__imul__(tb) if sym == "*" else t.__itruediv__(tb)
                cases.append((t, f(a, b)))
                for k, (got, want) in enumerate(cases):
                    g, w = np.asarray(got), np.asarray(want, dtype=dtype)
                    same = (g.view(f"u{g.itemsize}") == w.view(f"u{w.itemsize}")) | (
                        np.isnan(g) & np.isnan(w))
                    assert same.all(), f"{sym} case {k} at level {level}"


def _extreme_ref(x, y, largest):
    """PyTorch's maximum/minimum element by element: a NaN in x, else a NaN in y, is
    the result (its payload kept); of two equal values (+0 and -0), x."""
    better = (x < y) if largest else (y < x)
    return np.where(np.isnan(x), x, np.where(np.isnan(y), y, np.where(better, y, x)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maximum_and_minimum_at_every_level(dtype, level_restored):
    """maximum and minimum of contiguous rows run the level's kernels (compares and
    blends): the bits of the scalar rule at every level, the strided loop's too, with
    NaNs of two payloads (x's wins) and zeros of both signs (x wins a tie)."""
    rng = np.random.default_rng(6)
    n = 4099
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    u = f"u{a.itemsize}"
    nan1, nan2 = (np.array([0x7fc00001, 0x7fc00002], np.uint32).view(np.float32)
                  if dtype == "float32" else
                  np.array([0x7ff8000000000001, 0x7ff8000000000002], np.uint64).view(np.float64))
    a[::7], b[::11] = nan1, nan2
    a[1::13], b[1::13] = 0.0, -0.0
    a[2::13], b[2::13] = -0.0, 0.0
    b[3::17] = a[3::17]
    s = dtype == "float32" and np.float32(0.25) or np.float64(0.25)
    for level in LEVELS:
        _C._cpu_simd_level(level)
        for name, largest in (("maximum", True), ("minimum", False)):
            f = getattr(pdt, name)
            ta, tb = pdt.tensor(a), pdt.tensor(b)
            t = ta.clone()
            f(t, tb, out=t)
            u2 = tb.clone()
            f(ta, u2, out=u2)
            cases = [(f(ta, tb), a, b), (f(ta[::3], tb[::3]), a[::3], b[::3]),
                     (f(ta, pdt.tensor(s)), a, np.full(n, s)),
                     (f(pdt.tensor(s), tb), np.full(n, s), b), (t, a, b), (u2, a, b)]
            for k, (got, x, y) in enumerate(cases):
                want = _extreme_ref(x, y, largest)
                assert (np.asarray(got).view(u) == want.view(u)).all(), \
                    f"{name} case {k} at level {level}"


@pytest.mark.parametrize("header,script", [("cpu_vpow_tables.h", "gen_vpow_tables.py"),
                                           ("cpu_vtanh_table.h", "gen_vtanh_table.py"),
                                           ("cpu_vpow64_table.h", "gen_vpow64_table.py")])
def test_tables_are_what_their_generators_write(header, script):
    """csrc/cpu/cpu_vpow_tables.h (Note [float32 powers with tables]), cpu_vtanh_table.h
    (Note [tanh by a table of polynomials]) and cpu_vpow64_table.h (Note [float64 powers])
    are exactly what their scripts in tools/ write: the tables are not edited by hand."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    header = os.path.join(root, "csrc", "cpu", header)
    script = os.path.join(root, "tools", script)
    if not (os.path.exists(header) and os.path.exists(script)):
        pytest.skip("not a source checkout")
    made = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    with open(header) as f:
        assert made.stdout == f.read()
