"""save() and load(): tensors and state dicts in a NumPy .npz file.

The file opens in plain NumPy with ``np.load(path, allow_pickle=False)``: one array
per tensor, under the tensor's name, plus ``__pydevtensor__``, a JSON string that
records the format and each tensor's device and dtype.  Nothing is pickled.
Saving a GPU tensor is an explicit device-to-host copy, counted in transfer_stats().
"""
import os
from collections import OrderedDict

import numpy as np

from . import _C

META_KEY = "__pydevtensor__"
FORMAT = "pydevtensor.npz"
VERSION = 1


def save(obj, f):
    """Writes a tensor, a dict of tensors or a state_dict to f (a path or a binary file).
    The name is used as given: no '.npz' is appended.  A path is written atomically:
    to a temporary file in the same folder, flushed, fsynced and renamed over f, so a
    failure or a crash midway leaves the old file as it was (and no temporary file,
    except after kill -9 or a power cut: ``.NAME.*.tmp`` beside it)."""
    import json  # here, not at import: Note [lazy submodules] in __init__.py
    if isinstance(obj, _C.Tensor):
        kind, tensors = "tensor", {"tensor": obj}
    elif isinstance(obj, dict):
        kind, tensors = "dict", obj
    else:
        raise TypeError(f"save(): expected a Tensor or a dict of Tensors (a state_dict), "
                        f"got {type(obj).__name__}")
    arrays, entries = {}, OrderedDict()
    for name, t in tensors.items():
        if not isinstance(name, str) or name == META_KEY:
            raise ValueError(f"save(): every key must be a string other than {META_KEY!r}, "
                             f"got {name!r}")
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"save(): '{name}' is a {type(t).__name__}, not a Tensor")
        arrays[name] = t.cpu().numpy()  # the explicit, counted device-to-host copy
        entries[name] = {"device": str(t.device), "dtype": t.dtype.name}
    meta = {"format": FORMAT, "version": VERSION, "kind": kind, "tensors": entries}
    arrays[META_KEY] = np.array(json.dumps(meta))
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), lambda fh: np.savez(fh, **arrays))
    else:
        np.savez(f, **arrays)


def _umask():
    """The process's umask, read without changing it where Linux says it (os.umask
    sets it, which another thread creating a file meanwhile would see)."""
    try:
        with open("/proc/self/status") as st:
            for line in st:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _write_atomically(path, write):
    """Calls write(fh) on a temporary file in path's folder, flushes and fsyncs it, then
    renames it over path (and fsyncs the folder): a crash or kill -9 at any moment leaves
    either the old file or the new one, never a truncated one.  On failure the
    temporary file is removed and the old file is untouched.  A symbolic link is
    written through (its target is replaced); the new file keeps the old file's
    permissions, or gets the usual 0o666 & ~umask."""
    import tempfile
    path = os.path.realpath(path)
    folder, base = os.path.split(path)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the rename itself is done
    finally:
        os.close(dfd)


def _target(saved, map_location):
    """The device a tensor saved on `saved` goes to under map_location."""
    if map_location is None:
        return _C.device(saved)
    if isinstance(map_location, dict):
        key = map_location.get(saved, map_location.get(str(_C.device(saved)), saved))
        return _C.device(key) if isinstance(key, str) else key
    if isinstance(map_location, (str, _C.device)):
        return _C.device(map_location) if isinstance(map_location, str) else map_location
    raise TypeError(f"map_location must be a device, a string or a dict, "
                    f"got {type(map_location).__name__}")


def _record_problem(entries, kind):
    """What is wrong with the record's tensors and kind, or None (a file may be corrupt)."""
    if kind not in ("tensor", "dict"):
        return f"kind {kind!r} is neither 'tensor' nor 'dict'"
    if not isinstance(entries, dict):
        return f"'tensors' is a {type(entries).__name__}, not a dict"
    if kind == "tensor" and list(entries) != ["tensor"]:
        return f"kind 'tensor' needs exactly one entry named 'tensor', got {list(entries)}"
    for name, e in entries.items():
        if not isinstance(e, dict) or not isinstance(e.get("device"), str) or \
                not isinstance(e.get("dtype"), str):
            return f"the entry of '{name}' is {e!r}, not {{'device': str, 'dtype': str}}"
        try:
            _C.device(e["device"])
        except (ValueError, TypeError) as err:
            return f"tensor '{name}' has device {e['device']!r}: {err}"
    return None


def load(f, map_location=None):
    """Reads what save() wrote.  Each tensor goes back to the device it was saved from,
    unless map_location (a device, a string, or a dict {'cuda:0': 'cpu'}) says otherwise.
    A saved device that does not exist here raises RuntimeError naming map_location
    as the fix; a file that is not pydevtensor's raises ValueError."""
    import json
    import zipfile
    try:
        data = np.load(f, allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ValueError(f"load(): {f!r} is not a pydevtensor file (not a readable .npz: {e})"
                         ) from e
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError(f"load(): {f!r} is a single NumPy array, not a pydevtensor file")
    with data:
        if META_KEY not in data.files:
            raise ValueError(f"load(): {f!r} is a .npz file without pydevtensor's "
                             f"{META_KEY!r} record; load it with numpy.load instead")
        try:
            meta = json.loads(str(data[META_KEY]))
            entries = meta["tensors"]
            kind = meta["kind"]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"load(): {f!r} has a corrupt {META_KEY!r} record ({e})") from e
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise ValueError(f"load(): {f!r} has format {meta.get('format')!r} version "
                             f"{meta.get('version')!r}; expected {FORMAT!r} version {VERSION}")
        problem = _record_problem(entries, kind)
        if problem:
            raise ValueError(f"load(): {f!r} has a corrupt {META_KEY!r} record ({problem})")
        # Check every target device before making any tensor.
        targets = {}
        for name, e in entries.items():
            if name not in data.files:
                raise ValueError(f"load(): {f!r} lists tensor '{name}' but does not hold it")
            dev = _target(e["device"], map_location)
            try:
                _C._check_device(dev)
            except RuntimeError as err:
                raise _C.DeviceError(
                    f"load(): tensor '{name}' was saved on {e['device']}, and {err}. Pass "
                    f"map_location to load it elsewhere, e.g. map_location='cpu' or "
                    f"map_location={{'{e['device']}': 'cpu'}}") from err
            targets[name] = dev
        out = OrderedDict()
        for name, e in entries.items():
            array = data[name]
            if array.dtype.name != e["dtype"]:
                raise ValueError(f"load(): tensor '{name}' is recorded as {e['dtype']} but "
                                 f"holds {array.dtype.name}")
            out[name] = _C.tensor(array, device=targets[name])
    return out["tensor"] if kind == "tensor" else out
