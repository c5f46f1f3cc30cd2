"""save() and load() under failure: atomic saves, crafted and malformed files, and
files larger than the memory limit (issue 14)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import pydevtensor as pdt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_save_that_fails_midway_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "w.params"
    pdt.save({"w": pdt.arange(10)}, path)
    before = path.read_bytes()
    os.chmod(path, 0o640)

    def broken_savez(fh, **arrays):
        fh.write(b"PK\x03\x04 half a zip file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(OSError, match="No space left"):
        pdt.save({"w": pdt.zeros(10)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["w.params"]  # no temporary file left behind
    monkeypatch.undo()
    pdt.save({"w": pdt.ones(3)}, path)
    assert pdt.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == ["w.params"]
    assert os.stat(path).st_mode & 0o777 == 0o640  # the permissions are kept


def test_save_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real"
    pdt.save(pdt.zeros(2), real)
    (tmp_path / "link").symlink_to(real)
    pdt.save(pdt.ones(2), tmp_path / "link")
    assert (tmp_path / "link").is_symlink() and pdt.load(real).tolist() == [1.0, 1.0]


def test_kill_9_in_the_middle_of_a_large_save_leaves_the_old_file_loadable(tmp_path):
    path = tmp_path / "big.params"
    n = 2**24  # 64 MiB of float32
    pdt.save(pdt.zeros(n), path)
    old = os.stat(path)
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import pydevtensor as pdt
        t = pdt.ones({n})
        while True:
            pdt.save(t, {str(path)!r})
    """)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = os.stat(path)
            others = [p for p in os.listdir(tmp_path) if p != path.name]
            if others or (st.st_size, st.st_ino, st.st_mtime_ns) != (
                    old.st_size, old.st_ino, old.st_mtime_ns):
                break  # the child is writing
            time.sleep(0.0005)
        else:
            pytest.fail("the child never started writing")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    t = pdt.load(path)  # the old file, or the new one if the kill came after the rename
    assert tuple(t.shape) == (n,)
    assert float(t.sum()) in (0.0, float(n))


# ---- crafted files -------------------------------------------------------------

import io  # noqa: E402
import re  # noqa: E402
import json  # noqa: E402
import struct  # noqa: E402
import tracemalloc  # noqa: E402
import warnings  # noqa: E402
import zipfile  # noqa: E402

from pydevtensor.serialization import FormatError  # noqa: E402


def npy(header, data=b"", version=(1, 0)):
    """The bytes of a .npy member with the given header text (not checked)."""
    text = header.encode("latin1")
    size = struct.pack("<H" if version == (1, 0) else "<I", len(text))
    return b"\x93NUMPY" + bytes(version) + size + text + data


def array_bytes(a):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


def record(kind="dict", **tensors):
    return array_bytes(np.array(json.dumps({"format": "pydevtensor.npz", "version": 1,
                                            "kind": kind, "tensors": tensors})))


X = {"device": "cpu", "dtype": "float32"}
HEADER = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"


def zip_of(path, compression=zipfile.ZIP_STORED, **members):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name + ".npy", data)
    return path


def crafted(tmp_path):
    """name -> (bytes of a malformed file, what the error says)."""
    good = array_bytes(np.arange(3, dtype=np.float32))
    ok = open(zip_of(tmp_path / "ok", x=good, __pydevtensor__=record(x=X)), "rb").read()
    crc = bytearray(ok)
    at = ok.index(good) + len(good) - 1  # the last data byte of x
    crc[at] ^= 0xFF
    cases = {
        "empty": (b"", "not a readable .npz"),
        "garbage": (b"\x00" * 100, "not a readable .npz"),
        "truncated-zip": (ok[:len(ok) // 2], "not a readable .npz"),
        "truncated-end": (ok[:-1], "not a readable .npz"),
        "bad-crc": (bytes(crc), "CRC"),
        "single-npy": (good, "single NumPy array"),
    }
    members = {
        "wrong-magic": ({"x": b"NOTNPY" + good[6:]}, "'x' is not a .npy array"),
        "wrong-version": ({"x": b"\x93NUMPY\x07\x00" + good[8:]}, "version \\(7, 0\\)"),
        "header-too-long": ({"x": b"\x93NUMPY\x02\x00\xff\xff\xff\x7f"}, "claims 2147483647"),
        "header-truncated": ({"x": good[:20]}, "claims 118 bytes \\(the member holds 20"),
        "header-cut-short": ({"x": good[:9]}, "ends after 1 of 2 bytes"),
        "header-not-dict": ({"x": npy("[1, 2]")}, "not a dict"),
        "header-unterminated": ({"x": npy(HEADER[:-3] + "'''")}, "cannot be parsed"),
        "header-deep": ({"x": npy("{'descr': " + "(" * 20000 + ")" * 20000 + "}")},
                        "cannot be parsed"),
        "header-shape-negative": ({"x": npy(HEADER.replace("(3,)", "(-3,)"))}, "shape"),
        "header-shape-float": ({"x": npy(HEADER.replace("(3,)", "(3.0,)"))}, "shape"),
        "header-shape-17d": ({"x": npy(HEADER.replace("(3,)", "(1,) * 17"))}, "parsed"),
        "header-descr-bad": ({"x": npy(HEADER.replace("<f4", "<f4x"))}, "dtype '<f4x'"),
        "header-descr-list": ({"x": npy(HEADER.replace("'<f4'", "[('a', '<f4')]"))},
                              "plain dtype"),
        "dtype-mismatch": ({"x": npy(HEADER.replace("<f4", "<f8"), b"\0" * 24)},
                           "recorded as float32 but holds float64"),
        "shape-mismatch": ({"x": npy(HEADER.replace("(3,)", "(100,)"), b"\0" * 12)},
                           "400 bytes, but its member holds 12"),
        "data-short": ({"x": npy(HEADER, b"\0" * 11)}, "12 bytes, but its member holds 11"),
        "data-long": ({"x": npy(HEADER, b"\0" * 13)}, "holds 13"),
        "huge-shape": ({"x": npy(HEADER.replace("(3,)", f"({2**40}, {2**40})"))}, "holds 0"),
    }
    for name, (extra, why) in members.items():
        data = {"x": good, "__pydevtensor__": record(x=X), **extra}
        cases[name] = (open(zip_of(tmp_path / name, **data), "rb").read(), why)
    records = {
        "record-deep-json": (array_bytes(np.array("[" * 100000 + "]" * 100000)),
                             "corrupt '__pydevtensor__' record"),
        "record-not-json": (array_bytes(np.array("{not json")), "corrupt"),
        "record-int": (array_bytes(np.array(5)), "not a string"),
        "record-array": (array_bytes(np.array(["a", "b"])), "not a string"),
        "record-deep-header": (npy("(" * 30000), "cannot be parsed"),
        "record-dtype-complex": (record(x={"device": "cpu", "dtype": "complex64"}),
                                 "recorded as complex64"),
        "record-dtype-junk": (record(x={"device": "cpu", "dtype": "\u00e9" * 1000}),
                              "recorded as"),
    }
    for name, (rec, why) in records.items():
        cases[name] = (open(zip_of(tmp_path / name, x=good, __pydevtensor__=rec), "rb").read(),
                       why)
    cases["complex-array"] = (open(zip_of(
        tmp_path / "complex", x=array_bytes(np.zeros(3, np.complex64)),
        __pydevtensor__=record(x={"device": "cpu", "dtype": "complex64"})), "rb").read(),
        "dtype complex64, which pydevtensor does not have")
    with zipfile.ZipFile(tmp_path / "twice", "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
        for name, data in (("x", good), ("x", good), ("__pydevtensor__", record(x=X))):
            z.writestr(name + ".npy", data)
    cases["member-twice"] = (open(tmp_path / "twice", "rb").read(), "holds 'x' twice")
    return cases


def test_every_malformed_file_is_one_documented_error(tmp_path):
    cases = crafted(tmp_path)
    assert issubclass(FormatError, ValueError) and "FormatError" in pdt.load.__doc__
    wrong = []
    for name, (data, why) in cases.items():
        path = tmp_path / f"case-{name}"
        path.write_bytes(data)
        for source in (path, io.BytesIO(data)):
            try:
                pdt.load(source)
            except FormatError as e:
                if not (str(e).startswith(f"load(): {source!r}") and re.search(why, str(e))):
                    wrong.append(f"{name}: {why!r} not in {str(e)[:300]!r}")
            except BaseException as e:  # noqa: B036 (RecursionError, MemoryError: all wrong)
                wrong.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
            else:
                wrong.append(f"{name}: no error")
    assert not wrong, "\n".join(wrong)


def test_valid_variants_still_load(tmp_path):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    for name, arr in (("fortran", np.asfortranarray(a)), ("big-endian", a.astype(">f8")),
                      ("empty", np.zeros((0, 3))), ("scalar", np.array(2.5))):
        path = zip_of(tmp_path / name, zipfile.ZIP_DEFLATED, x=array_bytes(arr),
                      __pydevtensor__=record(x={"device": "cpu", "dtype": "float64"}))
        t = pdt.load(path)["x"]
        np.testing.assert_array_equal(t.numpy(), arr, err_msg=name)
        assert t.dtype == pdt.float64
    pdt.save(pdt.arange(6.0).reshape(2, 3).t(), tmp_path / "transposed")  # F-ordered in the file
    assert pdt.load(tmp_path / "transposed").tolist() == [[0, 3], [1, 4], [2, 5]]


def bomb(path, n):
    """A small compressed file that expands to n float32 zeros."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("__pydevtensor__.npy", record(x=X))
        with z.open("x.npy", "w", force_zip64=True) as fp:
            np.lib.format.write_array_header_1_0(
                fp, {"descr": "<f4", "fortran_order": False, "shape": (n,)})
            zeros = bytes(2**22)
            for _ in range(n * 4 // len(zeros)):
                fp.write(zeros)
    return path


def test_a_file_over_the_memory_limit_is_refused_before_it_is_read(tmp_path):
    path = bomb(tmp_path / "bomb", 2**24)  # 64 MiB of zeros in well under 1 MiB
    assert os.path.getsize(path) < 2**20
    from pydevtensor import config
    config.set_memory_limit("cpu", pdt.memory_allocated("cpu") + 2**20)
    try:
        tracemalloc.start()
        with pytest.raises(pdt.OutOfMemoryError, match=r"load\(\): .*bomb.* 67108864 bytes"):
            pdt.load(path)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4 * 2**20  # the headers only
    finally:
        config.set_memory_limit("cpu", None)
    tracemalloc.start()
    t = pdt.load(path)["x"]  # no limit: read once, straight into the tensor's storage
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert tuple(t.shape) == (2**24,) and float(t.abs().sum()) == 0.0
    assert peak < 32 * 2**20  # chunks, not a 64 MiB NumPy array copied afterwards
