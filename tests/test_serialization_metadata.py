"""A state_dict's _metadata (its modules' versions) through save() and load(), as
PyTorch's pickle keeps it, so that a versioned _load_from_state_dict sees the version."""
import io
import json
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn


class Versioned(nn.Linear):
    """Version 2 renamed 'w' to 'weight': an old checkpoint's key is renamed on load."""
    _version = 2

    def __init__(self, device):
        super().__init__(2, 2, device=device)
        self.seen = []

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        version = local_metadata.get("version")
        self.seen.append(version)
        if version is None or version < 2:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)


def _round_trip(obj):
    buf = io.BytesIO()
    pdt.save(obj, buf)
    buf.seek(0)
    return pdt.load(buf), buf


def test_a_versioned_module_sees_its_version_after_a_round_trip(device):
    src = nn.Sequential(Versioned(device))
    sd, buf = _round_trip(src.state_dict())
    assert sd._metadata == {"": {"version": 1}, "0": {"version": 2}}
    dst = nn.Sequential(Versioned(device))
    dst.load_state_dict(sd)
    assert dst[0].seen == [2]
    np.testing.assert_array_equal(dst[0].weight.detach().cpu().numpy(),
                                  src[0].weight.detach().cpu().numpy())
    # an old checkpoint (version 1 of the module) is renamed by the override
    old = OrderedDict((k.replace("weight", "w"), v) for k, v in src.state_dict().items())
    old._metadata = {"": {"version": 1}, "0": {"version": 1}}
    loaded, _ = _round_trip(old)
    dst.load_state_dict(loaded)
    assert dst[0].seen == [2, 1]


def test_metadata_inside_a_checkpoint_and_only_where_there_was_one(device):
    model = nn.Sequential(nn.Linear(1, 1, device=device), nn.BatchNorm1d(1, device=device))
    sd = model.state_dict()
    ck, _ = _round_trip({"model": sd, "plain": OrderedDict(a=1), "more": [sd], "epoch": 3})
    assert ck["model"]._metadata == sd._metadata == ck["more"][0]._metadata
    assert ck["model"]._metadata["1"] == {"version": 2}
    assert not hasattr(ck["plain"], "_metadata") and ck["epoch"] == 3


def test_a_file_without_metadata_loads_as_before():
    sd = OrderedDict(w=pdt.ones(2))
    loaded, buf = _round_trip(sd)
    assert not hasattr(loaded, "_metadata")
    record = json.loads(str(np.load(io.BytesIO(buf.getvalue()))["__pydevtensor__"]))
    assert record["version"] == 1 and "metadata" not in record


def test_metadata_that_is_not_json_is_refused_before_writing(tmp_path):
    sd = nn.Linear(1, 1).state_dict()
    sd._metadata[""]["when"] = (1, 2)  # a tuple would come back a list
    with pytest.raises(TypeError, match=r"the _metadata of obj\['m'\] holds tuple"):
        pdt.save({"m": sd}, tmp_path / "f")
    assert not (tmp_path / "f").exists()


def test_a_corrupt_metadata_record_is_a_format_error(tmp_path):
    path = tmp_path / "f"
    pdt.save(nn.Linear(1, 1).state_dict(), path)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    record = json.loads(str(np.load(path)["__pydevtensor__"]))
    record["metadata"] = {"0": 3}
    out = io.BytesIO()
    np.save(out, np.array(json.dumps(record)))
    members["__pydevtensor__.npy"] = out.getvalue()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(pdt.serialization.FormatError, match="'metadata' is"):
        pdt.load(path)
