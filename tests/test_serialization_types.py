"""save/load, version 4: a Size, complex numbers, bytes, bytearrays, sets and Counters in
a checkpoint, and dict keys other than strings and ints (tuples, floats, None...), come
back as themselves (PyTorch's weights_only=True load allows each; save() refused them
with a TypeError, and a Counter or a Size came back a dict or a tuple).
Files without them keep their version; a reader finds the new tags only in version 4."""
import io
import json
import zipfile
from collections import Counter

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.serialization import FormatError
from test_serialization_share import with_record


def _save(obj):
    buf = io.BytesIO()
    pdt.save(obj, buf)
    return buf.getvalue()


def _record(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return json.loads(str(np.load(io.BytesIO(z.read("__pydevtensor__.npy")))))


def test_size_complex_bytes_set_and_counter_round_trip(device):
    t = pdt.arange(6.0, device=device).reshape(2, 3)
    obj = {"shape": t.shape, "z": complex(1.5, -2.0), "inf": complex(float("inf"), 0.0),
           "raw": bytes(range(256)), "buf": bytearray(b"\x00ab"), "empty": b"",
           "ids": {3, "a", (1, 2), None, 2.5}, "vocab": Counter({"the": 7, "a": 2}),
           "nested": [{frozen_key: Counter()} for frozen_key in ("c",)], "t": t}
    data = _save(obj)
    back = pdt.load(io.BytesIO(data), weights_only=True)
    assert _record(data)["version"] == 4
    assert type(back["shape"]) is pdt.Size and back["shape"] == (2, 3)
    assert back["shape"].numel() == 6
    assert type(back["z"]) is complex and back["z"] == complex(1.5, -2.0)
    assert back["inf"] == complex(float("inf"), 0.0)
    assert type(back["raw"]) is bytes and back["raw"] == bytes(range(256))
    assert type(back["buf"]) is bytearray and back["buf"] == bytearray(b"\x00ab")
    assert back["empty"] == b""
    assert type(back["ids"]) is set and back["ids"] == {3, "a", (1, 2), None, 2.5}
    assert type(back["vocab"]) is Counter and back["vocab"] == Counter({"the": 7, "a": 2})
    assert back["vocab"].most_common(1) == [("the", 7)]
    assert type(back["nested"][0]["c"]) is Counter
    assert back["t"].device == t.device and back["t"].tolist() == t.tolist()


def test_files_without_the_new_types_keep_their_version():
    assert _record(_save({"a": [1, (2, 3)], "b": {"c": 1.5}}))["version"] == 2
    assert _record(_save([pdt.float32, 1]))["version"] == 3
    assert _record(_save({"n": Counter(a=1)}))["version"] == 4


def test_a_set_of_tensors_comes_back_a_set_of_those_tensors():
    a, b = pdt.ones(2), pdt.zeros(3)
    back = pdt.load(io.BytesIO(_save({"s": {a, b}, "a": a})))
    assert type(back["s"]) is set and len(back["s"]) == 2
    assert back["a"] in back["s"]  # the same object, as saved
    assert sorted(t.numel() for t in back["s"]) == [2, 3]


def test_what_still_cannot_be_written_names_its_place():
    with pytest.raises(TypeError, match=r"obj\['s'\]\['<item 0>'\] is an ellipsis"):
        pdt.save({"s": {...}}, io.BytesIO())
    with pytest.raises(TypeError, match=r"obj\[1\] has the key \(2, Ellipsis\) of type "
                                        r"tuple, which save\(\) cannot write"):
        pdt.save({1: Counter({(2, ...): 1})}, io.BytesIO())


def test_dict_keys_of_other_types_round_trip(device):
    t = pdt.ones(2, device=device)
    obj = {(0, "q"): t, 1.5: "f", None: 0, True: "b", "a": 1, 3: 4, (1, (2, "x")): [1],
           b"k": 2, 1j: 3, pdt.Size([2]): "size", -0.0: "neg"}
    data = _save({"heads": obj, "counts": Counter({("a", "b"): 3})})
    back = pdt.load(io.BytesIO(data))
    assert _record(data)["version"] == 4
    assert list(back["heads"]) == list(obj)
    assert [type(k) for k in back["heads"]] == [type(k) for k in obj]
    assert back["heads"][(0, "q")].device == t.device
    assert [back["heads"][k] for k in list(obj)[1:]] == list(obj.values())[1:]
    assert back["counts"] == Counter({("a", "b"): 3})


@pytest.mark.parametrize("node, why", [
    ({"size": [2, 1.5]}, r"size of \[2, 1\.5\], not of sizes"),
    ({"complex": [1.0]}, r"complex of \[1\.0\], not of two floats"),
    ({"complex": [1, 2]}, r"complex of \[1, 2\], not of two floats"),
    ({"bytes": "not base64!"}, r"is bytes 'not base64!', not base64"),
    ({"bytearray": 3}, r"is bytearray 3, not base64"),
    ({"set": [[1]]}, r"is a set of unhashable type: 'list'"),
    ({"set": 1}, r"is a tuple of 1, not of a list"),
    ({"counter": [["a"]]}, r"not a \[key, value\] pair"),
    ({"dict": [[{"key": [1]}, 2]]}, r"has the key \[1\]: unhashable type: 'list'"),
    ({"dict": [[{"key": 1}, 2], [1, 3]]}, r"has the key 1 twice"),
    ({"dict": [[{"key": 1, "x": 2}, 2]]}, r"not a \[key, value\] pair"),
])
def test_a_corrupt_version_4_node_is_a_format_error(node, why):
    data = _save({"x": Counter(a=1)})
    meta = _record(data)
    meta["tree"] = {"dict": [["x", node]]}
    with pytest.raises(FormatError, match=why):
        pdt.load(io.BytesIO(with_record(data, meta)))


def test_the_new_tags_in_an_older_version_are_a_format_error():
    """A file that says version 3 (or 2) but holds a version 4 tag is corrupt, as a
    reader of version 3 would find it."""
    data = _save({"x": b"ab"})
    for version in (2, 3):
        meta = dict(_record(data), version=version)
        with pytest.raises(FormatError, match=r"\{'bytes': 'YWI='\}, which version "
                                              f"{version} does not have"):
            pdt.load(io.BytesIO(with_record(data, meta)))


def test_a_key_node_in_an_older_version_is_a_format_error():
    data = _save({"x": {(1, 2): 3}})
    meta = dict(_record(data), version=3)
    with pytest.raises(FormatError, match=r"not a \[key, value\] pair with a string or int"):
        pdt.load(io.BytesIO(with_record(data, meta)))
