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

    def broken_write(fh, arrays):
        fh.write(b"PK\x03\x04 half a zip file")
        raise OSError(28, "No space left on device")

    from pydevtensor import serialization
    monkeypatch.setattr(serialization, "_write_npz", broken_write)
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


# ---- nested containers (version 2 of the file: the record's "tree") ----------------

import math  # noqa: E402
from collections import OrderedDict, deque  # noqa: E402

from conftest import DEVICES  # noqa: E402


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def the_record(path):
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["__pydevtensor__"])), sorted(z.files)


def test_d2l_file_io_lists_and_dicts_round_trip(tmp_path, dev):
    x, y = pdt.arange(4, device=dev), pdt.zeros(4, device=dev)
    pdt.save([x, y], tmp_path / "x-files")
    x2, y2 = pdt.load(tmp_path / "x-files")
    assert x2.device == pdt.device(dev) and x2.dtype == pdt.int64
    assert x2.tolist() == [0, 1, 2, 3] and y2.tolist() == [0.0] * 4
    assert type(pdt.load(tmp_path / "x-files")) is list
    pdt.save({"x": x, "y": y}, tmp_path / "mydict")
    back = pdt.load(tmp_path / "mydict")
    assert list(back) == ["x", "y"] and back["x"].tolist() == [0, 1, 2, 3]
    cpu = pdt.load(tmp_path / "x-files", map_location="cpu")
    assert [t.device for t in cpu] == [pdt.device("cpu")] * 2


def test_a_checkpoint_keeps_every_type(tmp_path, dev):
    net = pdt.nn.Linear(3, 2, device=dev)
    obj = {"model": net.state_dict(), "epoch": 3, "lr": 0.1, "note": None,
           "flags": (True, False), "big": -2**70,
           "name": "run \u00e9\u6f22 \U0001f600, lone surrogates \ud83d\ude00 \udc00",
           "state": {0: {"step": 2}, 1: [1, 2.5]}, "mixed": {1: "int", "1": "str"},
           "ordered": OrderedDict([("b", 1), ("a", 2)]), "empty": ([], (), {}),
           "w": net.weight, "tensor_in_tuple": (pdt.ones(2, device=dev, dtype=pdt.bfloat16),)}
    pdt.save(obj, tmp_path / "ckpt")
    back = pdt.load(tmp_path / "ckpt")

    def same(a, b, where="obj"):
        assert type(a) is type(b), where
        if isinstance(a, pdt.Tensor):
            assert (a.device, a.dtype, a.requires_grad) == (b.device, b.dtype, b.requires_grad)
            assert a.detach().cpu().tolist() == b.detach().cpu().tolist(), where
        elif isinstance(a, dict):
            assert list(a) == list(b), where
            assert [type(k) for k in a] == [type(k) for k in b], where
            for k in a:
                same(a[k], b[k], f"{where}[{k!r}]")
        elif isinstance(a, (list, tuple)):
            assert len(a) == len(b), where
            for i, (u, v) in enumerate(zip(a, b)):
                same(u, v, f"{where}[{i}]")
        else:
            assert a == b, where

    same(obj, back)
    assert isinstance(back["w"], pdt.nn.Parameter)
    assert type(back["model"]) is OrderedDict and type(back) is dict
    record, files = the_record(tmp_path / "ckpt")
    # net.weight and the state_dict's weight share a storage: written once (version 3),
    # and they come back sharing it, as in PyTorch
    assert (record["version"], record["kind"]) == (3, "tree")
    assert back["w"].data_ptr() == back["model"]["weight"].data_ptr()
    assert files == sorted(["__pydevtensor__", "model.weight~storage", "model.bias",
                            "tensor_in_tuple.0"])  # readable names in NumPy


def test_non_finite_and_odd_floats_round_trip(tmp_path):
    values = [math.nan, math.inf, -math.inf, -0.0, 5e-324, 0.1, 1e308, 2.0**53 + 2]
    pdt.save({"floats": values, "np": np.float64(0.5)}, tmp_path / "f")
    back = pdt.load(tmp_path / "f")
    assert type(back["np"]) is float and back["np"] == 0.5  # a float subclass: a float
    got = back["floats"]
    assert math.isnan(got[0]) and got[1:3] == [math.inf, -math.inf]
    assert math.copysign(1.0, got[3]) == -1.0
    assert got[4:] == values[4:] and all(type(v) is float for v in got)
    # The decision: JSON's NaN / Infinity / -Infinity, as Python's json writes them
    text = str(np.load(tmp_path / "f")["__pydevtensor__"])
    assert "NaN" in text and "-Infinity" in text


def test_a_tensor_in_two_places_is_stored_once(tmp_path, dev):
    w = pdt.nn.Parameter(pdt.ones(3, device=dev))
    pdt.save({"a": w, "b": [w, (w,)], "c": w.detach()}, tmp_path / "s")
    record, files = the_record(tmp_path / "s")
    # w once; its detach() is another tensor on w's storage: the storage is written once
    assert files == ["__pydevtensor__", "a~storage"]
    back = pdt.load(tmp_path / "s")
    assert back["a"] is back["b"][0] is back["b"][1][0] and back["c"] is not back["a"]
    assert back["c"].data_ptr() == back["a"].data_ptr() and not back["c"].requires_grad
    # a dict of tensors holding one tensor twice is written as a tree, to keep that
    pdt.save({"x": w, "y": w}, tmp_path / "twice")
    back = pdt.load(tmp_path / "twice")
    assert back["x"] is back["y"] and the_record(tmp_path / "twice")[0]["version"] == 2


def test_a_tensor_and_a_dict_of_tensors_are_written_as_version_1(tmp_path):
    # the same record, byte for byte, as before version 2 existed
    w = pdt.nn.Parameter(pdt.ones(2))
    pdt.save(OrderedDict(w=w, i=pdt.arange(2)), tmp_path / "d")  # a state_dict
    pdt.save(pdt.arange(3.0), tmp_path / "t")
    old_d = record(w={"device": "cpu", "dtype": "float32", "requires_grad": True,
                      "parameter": True}, i={"device": "cpu", "dtype": "int64"})
    old_t = record(kind="tensor", tensor={"device": "cpu", "dtype": "float32"})
    for path, old in ((tmp_path / "d", old_d), (tmp_path / "t", old_t)):
        with zipfile.ZipFile(path) as z:
            assert z.read("__pydevtensor__.npy") == old


def test_files_of_version_1_still_load(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    old = zip_of(tmp_path / "old-dict", x=array_bytes(a), __pydevtensor__=record(
        x={"device": "cpu", "dtype": "float32", "requires_grad": True, "parameter": True}))
    back = pdt.load(old)
    assert type(back) is OrderedDict and isinstance(back["x"], pdt.nn.Parameter)
    np.testing.assert_array_equal(back["x"].detach().numpy(), a)
    old = zip_of(tmp_path / "old-tensor", tensor=array_bytes(a),
                 __pydevtensor__=record(kind="tensor", tensor=X | {"dtype": "float32"}))
    assert pdt.load(old).tolist() == a.tolist()


def test_a_refused_object_writes_nothing(tmp_path):
    path = tmp_path / "keep"
    pdt.save([pdt.ones(1)], path)
    before = path.read_bytes()
    with pytest.raises(TypeError, match=r"save\(\): obj\['optim'\]\['state'\]\[0\] is a "
                                        r"deque"):
        pdt.save({"model": {"w": pdt.zeros(1)}, "optim": {"state": {0: deque([1])}}}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["keep"]
    deep = [1]
    for _ in range(63):
        deep = [deep]
    pdt.save(deep, path)  # 64 containers: the limit
    assert pdt.load(path) == deep
    pdt.save([pdt.ones(1)], path)
    with pytest.raises(ValueError, match="nested more than 64 containers deep"):
        pdt.save([deep], path)
    losses = [0.1 + i for i in range(500_000)]  # about 10 MB of JSON: 40 MB in UTF-32
    with pytest.raises(ValueError, match=r"takes \d+ bytes, more than the 16777216 that "
                                         r"load\(\) reads; put long lists of numbers"):
        pdt.save({"losses": losses}, path)
    assert path.read_bytes() == before
    pdt.save({"losses": losses[:100_000]}, path)
    assert pdt.load(path)["losses"] == losses[:100_000]


def record2(tree, **tensors):
    return array_bytes(np.array(json.dumps({"format": "pydevtensor.npz", "version": 2,
                                            "kind": "tree", "tensors": tensors,
                                            "tree": tree})))


def deep_list(n):
    tree = [1]
    for _ in range(n):
        tree = [tree]
    return tree


CORRUPT_TREES = {
    "tree-unknown-node": ({"deque": [1]}, r"the tree at obj is \{'deque': \[1\]\}, not a "
                                          r"value"),
    "tree-version-4-node": ({"set": [1]}, r"is \{'set': \[1\]\}, which version 2 does not"),
    "tree-two-tags": ({"tuple": [], "dict": []}, r"not a value, a list or one of"),
    "tree-unknown-tensor": ([{"tensor": "y"}], r"obj\[0\] names tensor 'y', which the record"),
    "tree-tensor-not-str": ({"tensor": 5}, r"names tensor 5"),
    "tree-unused-tensor": ([], r"lists tensor 'x', which the tree does not use"),
    "tree-tuple-of-int": ({"tuple": 5}, r"obj is a tuple of 5, not of a list"),
    "tree-dict-pair": ({"dict": [["a"]]}, r"has \['a'\] as item 0, not a \[key, value\] pair"),
    "tree-dict-float-key": ({"dict": [[1.5, 2]]}, r"not a \[key, value\] pair with a string"),
    "tree-dict-bool-key": ({"dict": [[True, 2]]}, r"not a \[key, value\] pair"),
    "tree-dict-twice": ({"odict": [["a", 1], ["a", {"tensor": "x"}]]}, r"the key 'a' twice"),
    "tree-deep": (deep_list(64), r"is nested more than 64 deep"),
    "tree-deep-json": (None, r"corrupt '__pydevtensor__' record \(RecursionError"),
}


def test_every_corrupt_tree_is_a_format_error(tmp_path):
    good = array_bytes(np.arange(3, dtype=np.float32))
    wrong = []
    for name, (tree, why) in CORRUPT_TREES.items():
        rec = record2(tree, x=X)
        if tree is None:  # JSON too deep for json.loads, inside a valid record
            text = json.dumps({"format": "pydevtensor.npz", "version": 2, "kind": "tree",
                               "tensors": {}, "tree": None})
            rec = array_bytes(np.array(text.replace("null", "[" * 10**5 + "]" * 10**5)))
        path = zip_of(tmp_path / name, x=good, __pydevtensor__=rec)
        try:
            pdt.load(path)
        except FormatError as e:
            if not re.search(why, str(e)):
                wrong.append(f"{name}: {why!r} not in {str(e)[:300]!r}")
        except BaseException as e:  # noqa: B036
            wrong.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
        else:
            wrong.append(f"{name}: no error")
    assert not wrong, "\n".join(wrong)


def test_records_of_other_versions(tmp_path):
    good = array_bytes(np.arange(3, dtype=np.float32))
    cases = {
        5: "version 5; expected 'pydevtensor.npz' version 1 to 4 \\(a newer pydevtensor",
        True: "version True; expected",
        "2": "version '2'; expected",
    }
    for version, why in cases.items():
        rec = array_bytes(np.array(json.dumps({"format": "pydevtensor.npz", "version": version,
                                               "kind": "tree", "tensors": {"x": X},
                                               "tree": {"tensor": "x"}})))
        with pytest.raises(FormatError, match=why):
            pdt.load(zip_of(tmp_path / "v", x=good, __pydevtensor__=rec))
    rec = array_bytes(np.array(json.dumps({"format": "pydevtensor.npz", "version": 2,
                                           "kind": "dict", "tensors": {"x": X}})))
    with pytest.raises(FormatError, match="kind 'dict' of a version 2 file is not 'tree'"):
        pdt.load(zip_of(tmp_path / "v", x=good, __pydevtensor__=rec))


def test_random_damage_to_a_tree_is_a_format_error_or_loads(tmp_path):
    rng = np.random.default_rng(0)
    w = pdt.arange(3.0)
    pdt.save({"a": [w, (1, None)], "b": OrderedDict(c={0: w, "s": "t"}), "n": 2.5},
             tmp_path / "ok")
    with np.load(tmp_path / "ok") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("__pydevtensor__")))
    junk = [None, 0, -1, 1.5, True, "x", "tensor", [], {}, [[]], {"tensor": "a"},
            {"tensor": "zz"}, {"dict": 1}, {"dict": [[0]]}, {"odict": [[None, 1]]},
            {"tuple": {}}, ["a", "b"], {"tensor": None}, {"list": []}]

    def nodes(x, out):
        out.append(x)
        for v in (x.values() if isinstance(x, dict) else x if isinstance(x, list) else ()):
            nodes(v, out)
        return out

    outcomes = set()
    for i in range(400):
        tree = json.loads(json.dumps(meta["tree"]))
        containers = [n for n in nodes(tree, []) if isinstance(n, (list, dict)) and n]
        target = containers[rng.integers(len(containers))]
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        key = keys[rng.integers(len(keys))]
        if rng.random() < 0.2 and isinstance(target, list):
            del target[key]
        else:
            target[key] = junk[rng.integers(len(junk))]
        buf = io.BytesIO()
        np.savez(buf, **arrays, __pydevtensor__=np.array(json.dumps({**meta, "tree": tree})))
        buf.seek(0)
        try:
            pdt.load(buf)
            outcomes.add("loaded")
        except FormatError:
            outcomes.add("FormatError")
    assert outcomes == {"loaded", "FormatError"}


def test_a_tensor_at_the_depth_limit_loads(tmp_path):
    """A tensor inside 64 containers: save() counts it as a leaf, so load() must too
    (before, save() wrote it and load() refused the file as nested too deep)."""
    deep = pdt.ones(2)
    for _ in range(64):
        deep = [deep]
    pdt.save(deep, tmp_path / "deep")
    got = pdt.load(tmp_path / "deep")
    for _ in range(64):
        got = got[0]
    assert got.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("obj", [{"file": "t", "allow_pickle": "t", "epoch": 3},
                                 {"file": "t", "allow_pickle": "t"}])
def test_names_of_numpys_keyword_arguments_are_plain_names(tmp_path, obj):
    """Tensors named 'file' or 'allow_pickle' (np.savez's own keyword arguments): stored
    under their names, as version 1 and 2 files (before, 'allow_pickle' was taken as
    np.savez's argument and the file did not load, and 'file' raised a TypeError)."""
    obj = {k: pdt.arange(3) * (i + 1) if v == "t" else v for i, (k, v) in enumerate(obj.items())}
    pdt.save(obj, tmp_path / "x")
    got = pdt.load(tmp_path / "x")
    assert list(got) == list(obj)
    for k, v in obj.items():
        assert (got[k].tolist() if isinstance(v, pdt.Tensor) else got[k]) == \
            (v.tolist() if isinstance(v, pdt.Tensor) else v)
    with np.load(tmp_path / "x", allow_pickle=False) as z:  # still a plain .npz
        assert z["allow_pickle"].tolist() == obj["allow_pickle"].tolist()


def test_a_huge_int_key_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"save\(\): a key of obj is an int of \d+ bits, "
                                         r"too long to write"):
        pdt.save({10**5000: 1}, tmp_path / "x")
    assert not os.listdir(tmp_path)


def test_load_takes_weights_only_as_pytorch_code_writes_it(tmp_path, dev):
    # torch.load(f, weights_only=True) is how PyTorch >= 2.4 code loads weights; the
    # file holds no pickle, so True, False and None load the same.
    net = pdt.nn.Linear(3, 2, device=dev)
    pdt.save(net.state_dict(), tmp_path / "mlp.params")
    for wo in (True, False, None):
        back = pdt.load(tmp_path / "mlp.params", weights_only=wo)
        assert list(back) == ["weight", "bias"] and back["weight"].device == pdt.device(dev)
        assert pdt.equal(back["weight"], net.weight.detach())
    assert repr(net.load_state_dict(pdt.load(tmp_path / "mlp.params", weights_only=True))) \
        == "<All keys matched successfully>"
    with pytest.raises(TypeError, match="weights_only must be True, False or None"):
        pdt.load(tmp_path / "mlp.params", weights_only="yes")


def test_a_frozen_parameter_comes_back_a_frozen_parameter(tmp_path):
    """A Parameter with requires_grad=False (a frozen layer's, keep_vars=True) comes back
    a Parameter that does not require grad, as PyTorch's; an integer one too."""
    from pydevtensor import nn
    net = nn.Linear(2, 3).requires_grad_(False)
    state = dict(net.state_dict(keep_vars=True))
    state["steps"] = nn.Parameter(pdt.arange(3), requires_grad=False)
    state["live"] = nn.Parameter(pdt.ones(2))
    pdt.save(state, tmp_path / "f.pdt")
    back = pdt.load(tmp_path / "f.pdt")
    for name in ("weight", "bias", "steps"):
        assert type(back[name]) is nn.Parameter and not back[name].requires_grad, name
    assert type(back["live"]) is nn.Parameter and back["live"].requires_grad
    np.testing.assert_array_equal(back["weight"].numpy(), net.weight.detach().numpy())
    assert back["steps"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("key", ["w\x00", "k" * 70000, "\udc80", "a\x00x"])
def test_a_key_no_zip_member_can_be_named_after_still_round_trips(tmp_path, key):
    """A state_dict's keys name its zip members; a key with NUL (zipfile cuts the name
    there), longer than a zip name holds, or not UTF-8 (a lone surrogate) is stored in
    the tree instead, and load() gives it back (it said 'does not hold it')."""
    state = {key: pdt.arange(3.0), "a\x00y": pdt.zeros(2), "plain": pdt.ones(1)}
    pdt.save(state, tmp_path / "f.pdt")
    back = pdt.load(tmp_path / "f.pdt")
    assert list(back) == list(state)
    for k, v in state.items():
        assert back[k].tolist() == v.tolist()


def test_save_into_a_fifo_writes_into_it_and_keeps_it(tmp_path):
    """A path that is not a regular file (a FIFO; /dev/null is another) is opened and
    written, as open() would; renaming a temporary file over it replaced the FIFO (or
    the device node) with a regular file."""
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    pdt.save({"w": pdt.arange(4.0), "b": pdt.ones(2)}, fifo)
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    import io
    back = pdt.load(io.BytesIO(got[0]))
    assert back["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and back["b"].tolist() == [1.0, 1.0]
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file left


def test_save_to_a_folder_raises_and_leaves_nothing(tmp_path):
    with pytest.raises(IsADirectoryError):
        pdt.save(pdt.ones(1), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_load_of_what_is_not_a_file_names_the_problem():
    """None or a number is a TypeError (not 'a damaged file'); a stream that cannot seek
    is refused before it is read, with the fix (PyTorch says the same)."""
    import io

    class Pipe(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

    for bad in (None, 123):
        with pytest.raises(TypeError, match="path or a binary file"):
            pdt.load(bad)
    with pytest.raises(ValueError, match=r"cannot seek.*io\.BytesIO"):
        pdt.load(Pipe())


def test_a_member_flagged_encrypted_is_a_format_error():
    """The zip flag bit 0 (encrypted, APPNOTE 4.4.4), which save() never sets: a
    FormatError naming it, not zipfile's RuntimeError."""
    import io
    buf = io.BytesIO()
    pdt.save(pdt.arange(3), buf)
    data = bytearray(buf.getvalue())
    at = data.find(b"PK\x01\x02")
    data[at + 8] |= 1  # the central directory's general purpose flags
    with pytest.raises(FormatError, match="encrypted"):
        pdt.load(io.BytesIO(bytes(data)))


def test_pytorchs_keywords_of_save_and_load_are_taken(tmp_path):
    """torch.save(obj, f, pickle_protocol=4, _use_new_zipfile_serialization=True) and
    torch.load(f, mmap=True, encoding='latin1') run unchanged (they change nothing)."""
    import pickle
    path = tmp_path / "w.pt"
    pdt.save({"w": pdt.arange(3.0)}, path, pickle_module=pickle, pickle_protocol=4,
             _use_new_zipfile_serialization=True)
    back = pdt.load(path, map_location="cpu", pickle_module=pickle, weights_only=True,
                    mmap=True, encoding="latin1")
    assert back["w"].tolist() == [0.0, 1.0, 2.0]


def test_a_plain_dict_comes_back_a_dict_and_a_state_dict_an_ordered_dict(tmp_path):
    """As PyTorch gives back the type saved: D2L's {'x': x, 'y': y} loads as a dict (it
    came back an OrderedDict); a state_dict (an OrderedDict) as an OrderedDict, in the
    layout of version 1."""
    x, y = pdt.arange(4), pdt.zeros(4)
    pdt.save({"x": x, "y": y}, tmp_path / "d")
    back = pdt.load(tmp_path / "d")
    assert type(back) is dict and list(back) == ["x", "y"]
    assert back["x"].tolist() == [0, 1, 2, 3] and back["y"].tolist() == [0.0] * 4
    net = pdt.nn.Linear(2, 1)
    pdt.save(net.state_dict(), tmp_path / "s")
    state = pdt.load(tmp_path / "s")
    assert type(state) is OrderedDict and list(state) == ["weight", "bias"]


def test_a_file_opened_in_text_mode_is_a_type_error(tmp_path):
    """load() of a file opened with 'r' said the file 'is not a pydevtensor file or is
    damaged' (the archive's bytes decoded as UTF-8); save() into one failed at its first
    write. Both are a TypeError that says to open it in binary mode, and the file on
    disk is left as it was."""
    path = tmp_path / "w.pdt"
    pdt.save(pdt.arange(3), path)
    before = path.read_bytes()
    with open(path, "r") as fh, pytest.raises(TypeError, match=r"text file.*binary mode \('rb'\)"):
        pdt.load(fh)
    with open(tmp_path / "t.pdt", "w") as fh, \
            pytest.raises(TypeError, match=r"text file.*binary mode \('wb'\)"):
        pdt.save(pdt.arange(3), fh)
    assert (tmp_path / "t.pdt").read_bytes() == b""
    assert path.read_bytes() == before and pdt.load(path).tolist() == [0, 1, 2]


def test_save_into_a_missing_folder_names_the_folder(tmp_path):
    """The FileNotFoundError named the temporary file save() makes beside the target
    ('.../nodir/.x.abc123.tmp'), a path the caller never gave; it names the folder that
    does not exist and the path given."""
    target = tmp_path / "nodir" / "x.pdt"
    with pytest.raises(FileNotFoundError) as info:
        pdt.save(pdt.ones(1), target)
    message = str(info.value)
    assert "folder" in message and repr(str(tmp_path / "nodir")) in message
    assert ".tmp" not in message and info.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []
