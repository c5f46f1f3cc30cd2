"""A fuzz target for the two parsers that take arbitrary outside input:
``tensor(data)`` (nested sequences of numbers, and anything else) and
``from_dlpack`` (capsules whose every field may be wrong).  Not run in CI.

    pip install atheris
    python fuzz/fuzz_inputs.py -atheris_runs=200000      # coverage-guided (libFuzzer flags)
    python fuzz/fuzz_inputs.py --random 20000            # no atheris: random bytes

Atheris sees the coverage of this harness's Python; for coverage of the C parsers
themselves, build the extension with clang and -fsanitize=fuzzer-no-link,address
and preload atheris's ASan runtime (see atheris's documentation on native
extensions).

A finding is a crash, or an exception other than the documented ones
(ValueError, TypeError, OverflowError, BufferError, pydevtensor.DeviceError,
MemoryError), or a tensor whose values differ from NumPy's reading of the same
input.  Capsules describe memory inside one buffer; one that reaches past it is
still handed to from_dlpack (which must not read it: a zero-copy import reads
nothing) but its values are not read back, since no consumer can tell such a
lie from the truth.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, ".."))

from bad_input_runner import PRELUDE  # noqa: E402  (the hand-made DLPack capsules)

NS = {"__name__": "__fuzz__"}
exec(compile(PRELUDE, "<prelude>", "exec"), NS)
np, pdt, capsule = NS["np"], NS["pdt"], NS["capsule"]

EXPECTED = (ValueError, TypeError, OverflowError, BufferError, MemoryError, pdt.DeviceError)
DTYPES = [None, pdt.bool, pdt.int32, pdt.int64, pdt.float32, pdt.float64, "float16", 7]
DL_DTYPES = [(6, 8, 1), (0, 32, 1), (0, 64, 1), (2, 32, 1), (2, 64, 1), (2, 16, 1), (1, 8, 1),
             (2, 32, 2), (5, 64, 1)]
NP_OF_DL = {(6, 8, 1): np.bool_, (0, 32, 1): np.int32, (0, 64, 1): np.int64,
            (2, 32, 1): np.float32, (2, 64, 1): np.float64}
ARENA = np.zeros(4096, dtype=np.uint8)  # what the capsules point into
ARENA[:] = np.arange(4096) % 251


class Bytes:
    """Draws from a byte string (atheris's FuzzedDataProvider, or random bytes)."""

    def __init__(self, fdp):
        self.fdp = fdp

    def int(self, lo, hi):
        return self.fdp.ConsumeIntInRange(lo, hi)

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def float(self):
        return self.fdp.ConsumeRegularFloat() if self.int(0, 3) else self.pick(
            [float("nan"), float("inf"), -float("inf"), -0.0, 1e308, 5e-324])


class RandomFDP:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def ConsumeIntInRange(self, lo, hi):
        return self.r.randint(lo, hi)

    def ConsumeRegularFloat(self):
        return self.r.choice([self.r.uniform(-1e6, 1e6), self.r.randint(-5, 5) / 2])


def nested(b, depth=0):
    kind = b.int(0, 9 if depth < 5 else 6)
    if kind <= 2:
        return b.int(-2**70, 2**70) if kind == 0 else b.int(-3, 3)
    if kind == 3:
        return b.float()
    if kind == 4:
        return bool(b.int(0, 1))
    if kind == 5:
        return b.pick([None, "x", b"ab", 1j, object(), np.float32(1.5), np.int64(3)])
    if kind == 6:
        return pdt.tensor(b.float()) if b.int(0, 1) else np.arange(b.int(0, 3), dtype=np.int32)
    n = b.int(0, 4)
    items = [nested(b, depth + 1) for _ in range(n)]
    if b.int(0, 3) == 0 and items:  # ragged on purpose, sometimes
        items[-1] = [items[-1]]
    return items if kind != 9 else tuple(items)


def check_tensor_data(b):
    data, dtype = nested(b), b.pick(DTYPES)
    try:
        t = pdt.tensor(data, dtype=dtype) if dtype is not None else pdt.tensor(data)
    except EXPECTED:
        return
    ref = None
    try:
        ref = np.array(data.numpy() if isinstance(data, pdt.Tensor) else data, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        pass
    if ref is not None and ref.shape == tuple(t.shape) and t.is_floating_point() and \
            t.dtype == pdt.float64:
        got = t.numpy()
        assert np.array_equal(got, ref, equal_nan=True), (data, got, ref)


def check_dlpack(b):
    ndim = b.int(-2, 6) if b.int(0, 7) else b.int(-2**31, 2**31 - 1)
    n = ndim if 0 <= ndim <= 16 else b.int(0, 3)  # the arrays hold ndim sizes when it is valid
    shape = [b.int(0, 6) if b.int(0, 5) else b.int(-2**63, 2**63 - 1) for _ in range(n)]
    strides = None if b.int(0, 2) == 0 else [
        b.int(-8, 8) if b.int(0, 5) else b.int(-2**63, 2**63 - 1) for _ in range(n)]
    dtype = b.pick(DL_DTYPES) if b.int(0, 3) == 0 else b.pick(list(NP_OF_DL))
    offset = b.int(0, 4095) // (1 if b.int(0, 3) == 0 else 8) * (1 if b.int(0, 3) == 0 else 8)
    device = (1, 0) if b.int(0, 3) else b.pick([(3, 0), (2, 63), (2, -1), (7, 0), (13, 0)])
    kw = dict(shape=None if b.int(0, 15) == 0 else shape, strides=strides, dtype=dtype,
              device=device, ndim=ndim, data=0 if b.int(0, 15) == 0 else ARENA.ctypes.data,
              byte_offset=offset, versioned=bool(b.int(0, 1)),
              version=(1 if b.int(0, 7) else b.int(0, 2), 1),
              flags=b.int(0, 3) if b.int(0, 2) == 0 else 0)
    # Does the description stay inside the arena?  Then reading it back is fair.
    size = dtype[1] // 8
    inside = kw["shape"] is not None and kw["data"] and dtype in NP_OF_DL and \
        all(s >= 0 for s in shape) and ndim == n
    if inside:
        st = strides or [int(np.prod(shape[i + 1:])) for i in range(n)]
        lo = sum(min(0, (s - 1) * d) for s, d in zip(shape, st) if s)
        hi = sum(max(0, (s - 1) * d) for s, d in zip(shape, st) if s)
        inside = 0 in shape or (offset + lo * size >= 0 and offset + (hi + 1) * size <= 4096
                                and offset % size == 0)
    copy = bool(b.int(0, 1)) and inside
    try:
        t = pdt.from_dlpack(capsule(**kw), copy=copy)
    except EXPECTED:
        return
    if inside and 0 < t.numel() <= 1 << 16:  # (stride-0 dims may describe a huge view)
        base = ARENA[offset:].view(NP_OF_DL[dtype]) if dtype != (6, 8, 1) else ARENA[offset:]
        st = [d * size if s > 1 else 0 for s, d in
              zip(shape, strides or [int(np.prod(shape[i + 1:])) for i in range(n)])]
        want = np.lib.stride_tricks.as_strided(base, shape, st)
        got = t.numpy()
        if dtype == (6, 8, 1):  # the arena's bytes are not all 0 or 1: compare them as bytes
            got, want = got.view(np.uint8), want
        assert np.array_equal(got, want, equal_nan=True), (kw, got, want)


def one_input(fdp):
    b = Bytes(fdp)
    (check_tensor_data if b.int(0, 1) else check_dlpack)(b)


def main():
    if sys.argv[1:2] == ["--random"]:
        for seed in range(int(sys.argv[2])):
            try:
                one_input(RandomFDP(seed))
            except Exception:
                print(f"finding at seed {seed}", file=sys.stderr)
                raise
        print(f"{sys.argv[2]} random inputs: no finding")
        return
    import atheris
    for f in (nested, check_tensor_data, check_dlpack, one_input, Bytes.int, Bytes.pick,
              Bytes.float):  # coverage of the harness's own choices guides the search
        atheris.instrument_func(f)
    atheris.Setup(sys.argv, lambda data: one_input(atheris.FuzzedDataProvider(data)))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
