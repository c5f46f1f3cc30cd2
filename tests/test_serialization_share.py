"""save/load, version 3 (tester2's save_load_gaps): tensors sharing a storage come back
sharing it (as torch.load gives), map_location as PyTorch's callable (storage,
location), devices, dtypes and NumPy arrays/scalars in checkpoints (np.random.get_state()
round-trips), with no pickle: object arrays are refused.  Files without these stay
version 1 or 2."""
import io
import json
import zipfile

from collections import OrderedDict

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, torch_or_skip


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _record(buf):
    buf.seek(0)
    with zipfile.ZipFile(buf) as z:
        names = sorted(n[:-4] for n in z.namelist())
    buf.seek(0)
    return json.loads(str(np.load(buf)["__pydevtensor__"])), names


def _round_trip(obj, **kw):
    buf = io.BytesIO()
    pdt.save(obj, buf)
    buf.seek(0)
    return pdt.load(buf, **kw), buf


def test_views_come_back_sharing_like_torch(dev):
    torch = torch_or_skip()
    b = pdt.arange(6.0, device=dev)
    back, buf = _round_trip({"b": b, "v": b[1:3], "m": b.view(2, 3).t()})
    back["v"].add_(100)
    tb = torch.arange(6.0)
    tbuf = io.BytesIO()
    torch.save({"b": tb, "v": tb[1:3], "m": tb.view(2, 3).t()}, tbuf)
    tbuf.seek(0)
    tback = torch.load(tbuf)
    tback["v"].add_(100)
    assert back["b"].cpu().tolist() == tback["b"].tolist()
    assert back["m"].cpu().tolist() == tback["m"].tolist()
    assert back["m"].stride() == tuple(tback["m"].stride()) and back["b"].device == b.device
    record, names = _record(buf)
    assert record["version"] == 3 and names == ["__pydevtensor__", "b~storage"]


def test_unshared_files_keep_their_version():
    _, buf = _round_trip(OrderedDict(a=pdt.ones(2), b=pdt.ones(2)))  # a state_dict
    assert _record(buf)[0]["version"] == 1
    _, buf = _round_trip([pdt.ones(2), 3])
    assert _record(buf)[0]["version"] == 2
    back, buf = _round_trip({"f": pdt.arange(4.0).flip(0), "g": pdt.arange(4.0)})
    assert back["f"].tolist() == [3.0, 2.0, 1.0, 0.0]  # a flip is written as a copy


def test_parameter_views_keep_flags():
    w = pdt.nn.Parameter(pdt.ones(4))
    back, _ = _round_trip({"w": w, "half": w.detach()[:2]})
    assert isinstance(back["w"], pdt.nn.Parameter) and not back["half"].requires_grad
    back["half"].fill_(5)
    assert back["w"].tolist() == [5.0, 5.0, 1.0, 1.0]


def test_map_location_callable(dev):
    t = pdt.arange(3.0, device=dev)
    seen = []

    def to_cpu(storage, loc):
        seen.append((storage.device.type, loc))
        return storage

    back, _ = _round_trip({"t": t, "v": t[1:]}, map_location=to_cpu)
    assert back["t"].device.type == "cpu" and back["v"].tolist() == [1.0, 2.0]
    assert seen == [("cpu", str(t.device))]  # called once, for the shared storage
    back, _ = _round_trip(t, map_location=lambda s, loc: None)
    assert back.device == t.device  # None: where it was saved
    with pytest.raises(TypeError, match="returned str"):
        _round_trip(t, map_location=lambda s, loc: "cpu")


def test_devices_dtypes_and_numpy_round_trip(dev):
    np.random.seed(3)
    state = np.random.get_state()
    obj = {"device": pdt.device(dev), "dtype": pdt.float64, "rng_np": state,
           "arr": np.arange(6, dtype=np.int16).reshape(2, 3), "scalar": np.float32(1.5),
           "words": np.array(["a", "bc"]), "i": np.int64(7)}
    back, buf = _round_trip(obj)
    assert back["device"] == pdt.device(dev) and back["dtype"] is pdt.float64
    assert back["rng_np"][0] == "MT19937" and back["rng_np"][2:] == state[2:]
    np.testing.assert_array_equal(back["rng_np"][1], state[1])
    assert back["arr"].dtype == np.int16 and back["arr"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert type(back["scalar"]) is np.float32 and back["scalar"] == 1.5
    assert type(back["i"]) is np.int64 and back["words"].tolist() == ["a", "bc"]
    np.random.set_state(back["rng_np"])
    a = np.random.rand()
    np.random.set_state(state)
    assert a == np.random.rand()
    assert _record(buf)[0]["version"] == 3


def test_object_arrays_are_refused():
    with pytest.raises(TypeError, match=r"obj\['x'\] is a NumPy array of dtype object"):
        pdt.save({"x": np.array([object()])}, io.BytesIO())


def test_tensors_over_one_memory_with_storages_of_different_lengths_save():
    """Two tensors over the same memory whose storages differ in length
    (from_numpy(a[:10]) and from_numpy(a), frombuffer with and without count): save()
    built the shared span on the first tensor's storage and refused the file when a
    later one reached past it (an as_strided bounds error; the other order worked).
    Both orders save, and come back with their values, sharing one storage."""
    a = np.arange(100.0)
    for order in (("small", "big"), ("big", "small")):
        parts = {"small": pdt.from_numpy(a[:10]), "big": pdt.from_numpy(a)}
        back, _ = _round_trip({k: parts[k] for k in order})
        np.testing.assert_array_equal(back["small"].numpy(), a[:10])
        np.testing.assert_array_equal(back["big"].numpy(), a)
        back["big"][3] = -1.0
        assert back["small"][3].item() == -1.0
    raw = bytearray(np.arange(16, dtype=np.float32).tobytes())
    back, _ = _round_trip([pdt.frombuffer(raw, dtype=pdt.float32, count=8),
                           pdt.frombuffer(raw, dtype=pdt.float32)])
    assert back[0].tolist() == list(range(8)) and back[1].tolist() == list(range(16))


def test_a_damaged_member_header_is_a_format_error():
    """A damaged local header of a member (the zip's directory intact) raised
    zipfile.BadZipFile from load(); it is a FormatError naming the member."""
    buf = io.BytesIO()
    pdt.save({"c": [1, pdt.ones(3)], "d": np.arange(3)}, buf)
    data = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        at = z.getinfo("d.npy").header_offset
    data[at] = 0
    with pytest.raises(pdt.serialization.FormatError, match=r"member 'd\.npy', whose header "
                                                            r"cannot be read.*BadZipFile"):
        pdt.load(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("field", ["shape", "stride", "offset"])
@pytest.mark.parametrize("value", [2**63, 2**64, 10**30])
def test_a_view_record_past_int64_is_a_format_error(field, value):
    """A view record whose size, stride or offset does not fit in int64 raised
    OverflowError ('int too big to convert') from load(); it is a FormatError naming
    the tensor and the record."""
    a = pdt.arange(8.0)
    buf = io.BytesIO()
    pdt.save({"a": a, "v": a[1:]}, buf)
    meta, _ = _record(buf)
    view = meta["tensors"]["v"]["view"]
    view[field] = value if field == "offset" else [value]
    with pytest.raises(pdt.serialization.FormatError, match=r"tensor 'v' has view shape .* "
                                                            r"offset in \[0, 2\*\*63\)"):
        pdt.load(io.BytesIO(with_record(buf.getvalue(), meta)))


def with_record(data, meta):
    """The archive data (what save() wrote) with its record replaced by meta."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            body = src.read(name)
            if name == "__pydevtensor__.npy":
                rec = io.BytesIO()
                np.save(rec, np.array(json.dumps(meta)))
                body = rec.getvalue()
            dst.writestr(name, body)
    return out.getvalue()
