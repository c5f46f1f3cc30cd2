"""save() and load(): tensors, state dicts and checkpoints in a NumPy .npz file.

The file opens in plain NumPy with ``np.load(path, allow_pickle=False)``: one array
per tensor, under the tensor's name, plus ``__pydevtensor__``, a JSON string that
records the format and each tensor's device and dtype.  Nothing is pickled.
Saving a GPU tensor is an explicit device-to-host copy, counted in transfer_stats().

Version 1 of the record holds a Tensor (kind 'tensor') or a dict of tensors (kind
'dict'); save() still writes those two so, and every pydevtensor reads them.
Anything else (lists, tuples, nested dicts, numbers, strings) is version 2, kind
'tree', whose "tree" entry is the structure (_serialization_tree.py); a reader of
version 1 refuses it with a FormatError naming version 2.  Version 3 (any kind) is
written only when it is needed: saved tensors that share a storage (views of one
another: the storage once, under "storages", and the tensors as views of it,
_serialization_share.py), or a tree holding devices, dtypes or NumPy arrays (stored as
plain .npz members listed under "arrays", read without pickle).  Version 4 is written
only for a tree holding a Size, complex number, bytes, bytearray, set, Counter or a
dict key that is not a string or an int (what PyTorch's weights_only=True load also
allows); a reader of version 3 refuses it naming
version 4.
"""
import errno
import os
from collections import OrderedDict

import numpy as np

from . import _C
from ._serialization_stream import WriteOnly, archive_at, refuse_text

__all__ = ["save", "load", "FormatError"]

META_KEY = "__pydevtensor__"
FORMAT = "pydevtensor.npz"
VERSION = 4  # 1: a Tensor or a dict of Tensors; 2: any tree (_serialization_tree.py);
#              3: shared storages, devices, dtypes and NumPy arrays; 4: Size, complex,
#              bytes, bytearray, set, Counter


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Writes a tensor, a state_dict, or lists, tuples and dicts of tensors, numbers,
    strings and None (a checkpoint: ``{'model': net.state_dict(), 'optim':
    opt.state_dict(), 'epoch': 3}``) to f, a path or a binary file.  The name is used
    as given: no '.npz' is appended.  A path is written atomically: to a temporary
    file in the same folder, flushed, fsynced and renamed over f, so a failure or a
    crash midway leaves the old file as it was (and no temporary file, except after
    kill -9 or a power cut: ``.NAME.*.tmp`` beside it).  A binary file is written
    front to back from its position, never seeking back, so a file opened in append
    mode, a pipe, or a stream already holding data (another save's) gets a whole
    archive; load() reads such archives one after another.

    A tensor that appears in several places (the same object) is written once and
    comes back as one object; tensors that share a storage (a tensor and its views)
    are written as one storage and come back sharing it, as in PyTorch.  Nothing is
    pickled: the file is a NumPy .npz with one array per tensor (or shared storage)
    and per NumPy array, and the structure is JSON in its ``__pydevtensor__`` record.
    A state_dict's ``_metadata`` (its modules' versions, which a versioned
    ``_load_from_state_dict`` reads) is kept there too, as JSON.

    Parameters
    ----------
    obj : Tensor, None, bool, int, float, complex, str, bytes, bytearray, Size, device, dtype, NumPy array or scalar (of numbers or strings), or a list, tuple, set, dict or Counter of these
        What to write.  Dict keys may be any of these that hashes: strings and ints (an
        optimizer's state_dict has int keys), tuples, floats, None...  Containers nest
        up to 64 deep.  Floats may be nan or infinite.
    f : str, os.PathLike or binary file
        Where to.
    pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record
        Taken so that PyTorch's calls run; nothing is pickled, so they change nothing.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When obj holds anything else (a frozenset, an object, a NumPy array of
        objects, a dict key of such a type, an OrderedDict's _metadata that is not
        JSON's); the message names where, e.g. ``obj['optim']['state'][0]``.
        When f is a file opened in text mode.
    FileNotFoundError
        When f's folder does not exist (the message names it).
    ValueError
        When obj nests more than 64 containers deep, or holds itself, or its
        structure takes more than 16 MiB to write (long lists of numbers belong in
        tensors).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "w.pdt")
    >>> pydevtensor.save({"w": pydevtensor.ones(2)}, path)
    >>> pydevtensor.load(path)
    {'w': tensor([1., 1.])}
    >>> x, y = pydevtensor.arange(3), pydevtensor.zeros(2)
    >>> pydevtensor.save([x, y, {"epoch": 3, "lr": 0.1}], path)
    >>> pydevtensor.load(path)
    [tensor([0, 1, 2]), tensor([0., 0.]), {'epoch': 3, 'lr': 0.1}]
    """
    import json  # here, not at import: Note [lazy submodules] in __init__.py
    from . import _serialization_tree as tree
    from ._serialization_share import share_storages
    np_arrays, newer, metadata = {}, 0, {}
    if isinstance(obj, _C.Tensor):
        kind, tensors = "tensor", {"tensor": obj}
    elif tree.is_flat(obj, META_KEY):  # a state_dict: written as version 1 wrote it
        kind, tensors = "dict", obj
        if tree.odict_metadata(obj, (None, None)) is not None:
            metadata["0"] = obj._metadata
    else:
        kind, (structure, tensors, np_arrays, newer, metadata) = "tree", tree.encode(
            obj, META_KEY)
    views, storages = share_storages(tensors, set(tensors) | set(np_arrays) | {META_KEY})
    arrays, entries = _host_arrays(tensors, skip=views)
    for name, view in views.items():
        entries[name]["view"] = view
    version = max(newer, 3 if views or np_arrays else 2 if kind == "tree" else 1)
    meta = {"format": FORMAT, "version": version, "kind": kind, "tensors": entries}
    if kind == "tree":
        meta["tree"] = structure
    if storages:
        storage_arrays, meta["storages"] = _host_arrays(storages)
        arrays.update(storage_arrays)
    if np_arrays:
        arrays.update(np_arrays)
        meta["arrays"] = list(np_arrays)
    if metadata:  # the state_dicts' _metadata (_serialization_tree.py)
        meta["metadata"] = metadata
    # a tree's strings as they are (the record is UTF-32 anyway): json's \uXXXX escapes
    # would join two lone surrogates into one character when read back
    arrays[META_KEY] = np.array(json.dumps(meta, ensure_ascii=kind != "tree"))
    if arrays[META_KEY].nbytes > _MAX_RECORD:  # what load() would refuse is not written
        raise ValueError(f"save(): the record of the structure and its "
                         f"{len(entries)} tensors takes {arrays[META_KEY].nbytes} bytes, "
                         f"more than the {_MAX_RECORD} that load() reads; put long lists "
                         f"of numbers into tensors")
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), lambda fh: _write_npz(fh, arrays))
    else:
        refuse_text(f, "save", "wb")
        _write_npz(WriteOnly(f), arrays)  # front to back: see _serialization_stream.py


def _write_npz(fh, arrays):
    """The .npz file np.savez(fh, **arrays) writes (one uncompressed NAME.npy member per
    array), written here so that no name is taken for one of np.savez's own keyword
    arguments: a tensor named 'file' or 'allow_pickle' is a member like any other."""
    import zipfile
    from numpy.lib import format as npy
    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", mode="w", force_zip64=True) as out:
                npy.write_array(out, np.asanyarray(a), allow_pickle=False)


def _host_arrays(tensors, skip=()):
    """({name: NumPy array}, {name: record entry}) of the tensors {name: Tensor}; the
    tensors named in skip (views of a shared storage) get an entry and no array."""
    arrays, entries = {}, OrderedDict()
    for name, t in tensors.items():
        # the explicit, counted device-to-host copy; bfloat16 (which NumPy lacks) is
        # stored as its uint16 bits, recorded as bfloat16 in the metadata
        if name not in skip:
            host = t.detach().cpu()  # the values; requires_grad goes in the metadata
            arrays[name] = (np.asarray(host._buffer()) if t.dtype == _C.bfloat16
                            else host.numpy())
        entries[name] = {"device": str(t.device), "dtype": t.dtype.name}
        # a Parameter (a frozen one too), or a tensor requiring grad, comes back as one
        from .nn import Parameter, UninitializedParameter
        if t.requires_grad:
            entries[name]["requires_grad"] = True
        if isinstance(t, Parameter):
            entries[name]["parameter"] = True
        if isinstance(t, UninitializedParameter):  # a lazy layer's, before it ran
            entries[name]["uninitialized"] = True
    return arrays, entries


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
    permissions, or gets the usual 0o666 & ~umask.  What is not a regular file (a
    device such as /dev/null, a FIFO, a socket) is opened and written, as open()
    would: renaming over it would replace the device node itself."""
    import stat
    import tempfile
    path = os.path.realpath(path)
    folder, base = os.path.split(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    else:
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "save(): the path is a folder", path)
        if not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as fh:
                write(WriteOnly(fh))  # /dev/null tells 0 after any write: no offsets
            return
        mode = st.st_mode & 0o7777
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    except OSError as e:  # it named the temporary file, which the caller never gave
        what = "does not exist" if e.errno == errno.ENOENT else f"cannot take a new file " \
            f"({e.strerror})"
        raise type(e)(e.errno, f"save(): the folder {folder!r} {what}", path) from None
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
    """The device a tensor saved on `saved` goes to under map_location (the CPU for a
    callable, which then moves it)."""
    if map_location is None:
        return _C.device(saved)
    if callable(map_location) and not isinstance(map_location, (dict, str, _C.device)):
        return _C.device("cpu")
    if isinstance(map_location, dict):
        key = map_location.get(saved, map_location.get(str(_C.device(saved)), saved))
        return _C.device(key) if isinstance(key, str) else key
    if isinstance(map_location, (str, _C.device)):
        return _C.device(map_location) if isinstance(map_location, str) else map_location
    raise TypeError(f"map_location must be a device, a string, a dict or a callable, "
                    f"got {type(map_location).__name__}")


def _mapped(t, saved, map_location):
    """t (read onto the CPU) as a callable map_location(storage, location) returns it,
    PyTorch's idiom: ``lambda storage, loc: storage`` keeps it on the CPU; a None
    result puts it back on the device it was saved from."""
    r = map_location(t, saved)
    if r is None:
        return t.to(_C.device(saved))
    if not isinstance(r, _C.Tensor):
        raise TypeError(f"load(): map_location(storage, {saved!r}) returned "
                        f"{type(r).__name__}; it must return a Tensor (the storage, "
                        f"moved) or None")
    if r.dtype != t.dtype or tuple(r.shape) != tuple(t.shape):
        raise ValueError(f"load(): map_location(storage, {saved!r}) returned a tensor of "
                         f"{r.dtype} and shape {tuple(r.shape)}; the storage is "
                         f"{t.dtype} of shape {tuple(t.shape)}")
    return r


def _as_saved(t, entry):
    """t as it was saved: a Parameter (an uninitialized one), or requiring grad, when the
    entry says so."""
    if entry.get("uninitialized"):
        from .nn import UninitializedParameter
        return UninitializedParameter(device=t.device, dtype=t.dtype)
    if entry.get("parameter"):  # a frozen one (requires_grad=False) stays frozen
        from .nn import Parameter
        return Parameter(t, requires_grad=bool(entry.get("requires_grad")))
    return t.requires_grad_() if entry.get("requires_grad") else t


def _record_problem(entries, kind, version):
    """What is wrong with the record's tensors and kind, or None (a file may be corrupt)."""
    if version == 1 and kind not in ("tensor", "dict"):
        return f"kind {kind!r} is neither 'tensor' nor 'dict'"
    if version == 2 and kind != "tree":
        return f"kind {kind!r} of a version 2 file is not 'tree'"
    if version >= 3 and kind not in ("tensor", "dict", "tree"):
        return f"kind {kind!r} is not 'tensor', 'dict' or 'tree'"
    if not isinstance(entries, dict):
        return f"'tensors' is a {type(entries).__name__}, not a dict"
    if kind == "tensor" and list(entries) != ["tensor"]:
        return f"kind 'tensor' needs exactly one entry named 'tensor', got {list(entries)}"
    for name, e in entries.items():
        if not isinstance(e, dict) or not isinstance(e.get("device"), str) or \
                not isinstance(e.get("dtype"), str):
            return f"the entry of '{name}' is {e!r}, not {{'device': str, 'dtype': str}}"
        for flag in ("requires_grad", "parameter", "uninitialized"):
            if not isinstance(e.get(flag, False), bool):
                return f"tensor '{name}' has {flag} {e[flag]!r}, not a bool"
        if e.get("requires_grad") and \
                e["dtype"] not in ("float16", "bfloat16", "float32", "float64"):
            return f"tensor '{name}' of {e['dtype']} cannot require grad"
        try:
            _C.device(e["device"])
        except (ValueError, TypeError) as err:
            return f"tensor '{name}' has device {e['device']!r}: {err}"
    return None


class FormatError(ValueError):
    """load() was given a file that is not a pydevtensor file, or a damaged one: the
    message names the file and what is wrong with it."""


_NPY_MAGIC = b"\x93NUMPY"
_MAX_HEADER = 65536          # bytes of a .npy header (NumPy writes well under 10,000)
_MAX_RECORD = 16 * 2**20     # bytes of the __pydevtensor__ record
_MAX_DIMS = 16               # as the C core (PDT_MAX_DIMS)
_CHUNK = 8 * 2**20           # bytes read from the zip at a time, straight into storage


def _malformed(e):
    """Whether an exception raised while parsing a file means the file is malformed
    (rather than unreadable: missing, a folder, no permission, an I/O error)."""
    if isinstance(e, (_C.OutOfMemoryError, FormatError)):
        return False
    if isinstance(e, OSError):
        return e.errno is None  # zipfile's own errors; not ENOENT, EACCES, EIO...
    import tokenize
    import zipfile
    import zlib
    return isinstance(e, (ValueError, TypeError, KeyError, IndexError, OverflowError,
                          RecursionError, MemoryError, SyntaxError, tokenize.TokenError,
                          zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
                          UnicodeError, AttributeError))


def _read_exactly(fp, n, what):
    data = fp.read(n)
    if len(data) != n:
        raise FormatError(f"{what} ends after {len(data)} of {n} bytes (a truncated file?)")
    return data


def _npy_header(fp, name, size):
    """(shape, fortran_order, dtype, header bytes) of the .npy member fp of size bytes.
    Parsed here rather than by NumPy so that every way it can be wrong is one message,
    and so that nothing is read beyond the header."""
    import ast
    import struct
    what = f"the .npy header of '{name}'"
    head = _read_exactly(fp, 8, what)
    if head[:6] != _NPY_MAGIC:
        raise FormatError(f"'{name}' is not a .npy array (its first bytes are {head[:6]!r})")
    version = (head[6], head[7])
    if version == (1, 0):
        (hlen,), used = struct.unpack("<H", _read_exactly(fp, 2, what)), 10
    elif version in ((2, 0), (3, 0)):
        (hlen,), used = struct.unpack("<I", _read_exactly(fp, 4, what)), 12
    else:
        raise FormatError(f"'{name}' has .npy format version {version}, not 1.0, 2.0 or 3.0")
    if hlen > _MAX_HEADER or used + hlen > size:
        raise FormatError(f"{what} claims {hlen} bytes (the member holds {size}, at most "
                          f"{_MAX_HEADER} are read)")
    text = _read_exactly(fp, hlen, what).decode("utf8" if version == (3, 0) else "latin1")
    try:
        d = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise FormatError(f"{what} cannot be parsed ({type(e).__name__}: {e})") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise FormatError(f"{what} is not a dict of 'descr', 'fortran_order' and 'shape'")
    shape, fortran, descr = d["shape"], d["fortran_order"], d["descr"]
    if not isinstance(shape, tuple) or len(shape) > _MAX_DIMS or not all(
            type(n) is int and n >= 0 for n in shape):
        raise FormatError(f"{what} has shape {shape!r}, not a tuple of at most {_MAX_DIMS} "
                          f"sizes >= 0")
    if not isinstance(fortran, bool):
        raise FormatError(f"{what} has fortran_order {fortran!r}, not a bool")
    if not isinstance(descr, str) or len(descr) > 16:
        raise FormatError(f"{what} has dtype {descr!r}, not a plain dtype string")
    try:
        dtype = np.dtype(descr)
    except TypeError as e:
        raise FormatError(f"{what} has dtype {descr!r}: {e}") from None
    return shape, fortran, dtype, used + hlen


def _open_member(zf, members, name):
    info = members[name]
    if info.flag_bits & 0x1:  # APPNOTE 4.4.4, bit 0: zipfile would raise RuntimeError
        raise FormatError(f"has '{info.filename}' marked as encrypted, which save() never "
                          f"writes")
    try:  # reads the member's local header: a damaged one is a malformed file
        return info, zf.open(info)
    except Exception as e:
        _reraise(e, f"has member '{info.filename}', whose header cannot be read")


def _read_record(zf, members, json):
    """The __pydevtensor__ record: (kind, entries, tree or None), or raises FormatError."""
    info, fp = _open_member(zf, members, META_KEY)
    with fp:
        shape, _, dtype, used = _npy_header(fp, META_KEY, info.file_size)
        nbytes = dtype.itemsize
        if shape != () or dtype.kind != "U" or info.file_size != used + nbytes or \
                nbytes > _MAX_RECORD:
            raise FormatError(f"its {META_KEY!r} record is not a string of at most "
                              f"{_MAX_RECORD} bytes (shape {shape}, dtype {dtype}, "
                              f"{info.file_size} bytes)")
        raw = _read_exactly(fp, nbytes, f"the {META_KEY!r} record")
    text = str(np.frombuffer(raw, dtype=dtype, count=1)[0])
    try:
        meta = json.loads(text)
        entries = meta["tensors"]
        kind = meta["kind"]
        version = meta.get("version")
        structure = meta["tree"] if type(version) is int and version >= 2 and \
            kind == "tree" else None
        storages = meta.get("storages", {}) if version in (3, 4) else {}
        array_names = meta.get("arrays", []) if version in (3, 4) else []
        odict_meta = meta.get("metadata", {})
    except (ValueError, KeyError, TypeError, RecursionError, MemoryError) as e:
        raise FormatError(f"has a corrupt {META_KEY!r} record ({type(e).__name__}: "
                          f"{str(e)[:200]})") from None
    version = meta.get("version")
    if meta.get("format") != FORMAT or type(version) is not int or not 1 <= version <= VERSION:
        newer = " (a newer pydevtensor wrote it?)" if type(version) is int and \
            version > VERSION and meta.get("format") == FORMAT else ""
        raise FormatError(f"has format {meta.get('format')!r} version {version!r}; expected "
                          f"{FORMAT!r} version 1 to {VERSION}{newer}")
    problem = _record_problem(entries, kind, version) or _v3_problem(entries, storages,
                                                                     array_names)
    if not problem and not (isinstance(odict_meta, dict) and all(
            isinstance(v, dict) for v in odict_meta.values())):
        problem = f"'metadata' is {odict_meta!r:.60}, not a dict of dicts"
    if not problem and kind == "tree":
        from . import _serialization_tree as tree
        try:
            tree.check(structure, entries, array_names, version)
        except tree.Corrupt as e:
            problem = str(e)
    if problem:
        raise FormatError(f"has a corrupt {META_KEY!r} record ({problem})")
    return kind, entries, structure, storages, array_names, odict_meta


def _v3_problem(entries, storages, array_names):
    """What is wrong with version 3's storages, views and arrays, or None."""
    from ._serialization_share import view_problem
    if not isinstance(storages, dict) or not isinstance(array_names, list) or \
            not all(isinstance(n, str) for n in array_names):
        return "'storages' is not a dict or 'arrays' not a list of names"
    problem = _record_problem(storages, "dict", 1) if storages else None
    if problem:
        return "storages: " + problem
    names = set(entries)
    if names & set(storages) or names & set(array_names) or \
            set(storages) & set(array_names) or META_KEY in names | set(array_names) | \
            set(storages) or len(set(array_names)) != len(array_names):
        return "a member name is used twice"
    for name, e in entries.items():
        if "view" in e:
            problem = view_problem(name, e["view"], storages)
            if problem:
                return problem
            s = storages[e["view"]["storage"]]
            if (s["device"], s["dtype"]) != (e["device"], e["dtype"]):
                return (f"tensor '{name}' is {e['dtype']} on {e['device']}, its storage "
                        f"{s['dtype']} on {s['device']}")
    return None


def _parse(fh, json):
    """(zip, the position after it, members, (kind, tree or None, array names, entries),
    [(name, entry, shape, fortran, np dtype, pdt dtype, header bytes)] of the tensors and
    shared storages stored) from an open file's position on, reading only headers."""
    import zipfile
    start = fh.read(len(_NPY_MAGIC))
    if start == _NPY_MAGIC:
        raise FormatError("is a single NumPy array, not a pydevtensor file")
    fh.seek(-len(start), 1)
    try:
        zf, end = archive_at(fh, FormatError)
    except FormatError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        if isinstance(e, OSError) and e.errno is not None:
            raise
        raise FormatError(f"is not a pydevtensor file (not a readable .npz: {e})") from None
    members = {}
    for info in zf.infolist():
        key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if key in members:
            raise FormatError(f"holds '{key}' twice")
        members[key] = info
    if META_KEY not in members:
        if any(k == "data.pkl" or k.endswith("/data.pkl") for k in members):
            raise FormatError("is a PyTorch file (torch.save's zip, with a data.pkl), which "
                              "only torch.load reads (it unpickles code); load it there and "
                              "hand the tensors over with pydevtensor.from_numpy(t.numpy()) "
                              "or pydevtensor.from_dlpack(t)")
        if not all(info.filename.endswith(".npy") for info in members.values()):
            raise FormatError("is a zip file, but neither a pydevtensor file nor a .npz "
                              f"(it holds {sorted(members)[:3]}...)")
        raise FormatError(f"is a .npz file without pydevtensor's {META_KEY!r} record; "
                          f"load it with numpy.load instead")
    kind, entries, structure, storages, array_names, odict_meta = _read_record(zf, members,
                                                                                json)
    for name in array_names:
        if name not in members:
            raise FormatError(f"lists array '{name}' but does not hold it")
    specs = []
    stored = [(n, e) for n, e in entries.items() if "view" not in e]
    for name, e in stored + list(storages.items()):
        if name not in members:
            raise FormatError(f"lists tensor '{name}' but does not hold it")
        info, fp = _open_member(zf, members, name)
        with fp:
            shape, fortran, dtype, used = _npy_header(fp, name, info.file_size)
        bits = e["dtype"] == "bfloat16" and dtype.name == "uint16"  # see save()
        if dtype.name != e["dtype"] and not bits:
            raise FormatError(f"tensor '{name}' is recorded as {e['dtype']} but holds "
                              f"{dtype.name}")
        pdtype = _C.bfloat16 if bits else \
            getattr(_C, dtype.name, None) if dtype.kind in "biuf" else None
        if not isinstance(pdtype, _C.dtype):
            raise FormatError(f"tensor '{name}' holds an array of dtype {dtype}, which "
                              f"pydevtensor does not have" + (
                                  " (Object arrays cannot be loaded: nothing is pickled)"
                                  if dtype.kind == "O" else ""))
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        if info.file_size != used + nbytes:
            raise FormatError(f"tensor '{name}' has shape {shape} of {dtype.name}, "
                              f"{nbytes} bytes, but its member holds "
                              f"{info.file_size - used} bytes of data")
        specs.append((name, e, shape, fortran, dtype, pdtype, used, nbytes))
    return zf, end, members, (kind, structure, array_names, entries, odict_meta), specs


def _check_limits(label, specs, targets):
    """OutOfMemoryError before anything is read when the tensors of the file do not
    fit under a device's memory limit."""
    from ._devices import memory_stats
    need = OrderedDict()
    for name, *_, nbytes in specs:
        need[targets[name]] = need.get(targets[name], 0) + nbytes
    for dev, total in need.items():
        stats = memory_stats(dev)
        if stats["limit"] and stats["allocated"] + total > stats["limit"]:
            raise _C.OutOfMemoryError(
                f"load(): {label} holds {total} bytes of tensors for {dev}, and "
                f"{stats['allocated']} of its limit of {stats['limit']} bytes are already "
                f"allocated; nothing was read (raise the limit with "
                f"pydevtensor.config.set_memory_limit, or pass map_location)")


def _reraise(e, text, label=None):
    """Raises e, caught while reading a file, again: as a FormatError saying text (and e)
    when it means the file is malformed (_malformed); a helper's FormatError with load()
    and the file in front when label is given; anything else (an unreadable file) as
    it is."""
    if label is not None and isinstance(e, FormatError):
        raise _reworded(label, e) from None
    if _malformed(e):
        raise FormatError(f"{text} ({type(e).__name__}: {str(e)[:200]})") from e
    raise e


def _reworded(label, e):
    """The FormatError e of a helper, with load() and the file in front."""
    text = str(e)
    sep = " " if text.split(" ", 1)[0] in ("is", "has", "holds", "lists") else ": "
    return FormatError(f"load(): {label}{sep}{text}")


def _read_tensor(zf, members, spec, dev):
    """The tensor of spec, read from the zip once, in chunks, straight into its storage
    (into a CPU tensor first when dev is not a CPU device)."""
    name, _, shape, fortran, dtype, pdtype, used, nbytes = spec
    host = dev if dev.type == "cpu" else _C.device("cpu")
    t = _C.empty(tuple(reversed(shape)) if fortran else shape, dtype=pdtype, device=host)
    arr = np.asarray(t._buffer())  # bfloat16: its uint16 bits
    view = memoryview(arr.reshape(-1).view(np.uint8)) if nbytes else None
    info, fp = _open_member(zf, members, name)
    with fp:
        _read_exactly(fp, used, f"the .npy header of '{name}'")
        done = 0
        while done < nbytes:
            n = fp.readinto(view[done:min(nbytes, done + _CHUNK)])
            if not n:
                raise FormatError(f"tensor '{name}' ends after {done} of {nbytes} bytes")
            done += n
        fp.read(1)  # reaches the end of the member, where zipfile checks its CRC
    del view
    if not dtype.isnative and dtype.itemsize > 1:
        arr.byteswap(inplace=True)
    del arr
    if fortran:
        t = t.permute(*reversed(range(len(shape))))
    return t if host == dev else t.to(dev)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Reads what save() wrote.  Each tensor goes back to the device it was saved from,
    unless map_location (a device, a string, a dict {'cuda:0': 'cpu'}, or PyTorch's
    callable ``map_location(storage, location)``) says otherwise.
    ``weights_only`` is taken for PyTorch's sake and changes nothing: the file holds
    no pickle, only tensors, numbers, strings, None and containers of them, which is
    what PyTorch's ``weights_only=True`` allows.

    Errors:

    - FormatError (a ValueError) for every file that is not pydevtensor's or is
      damaged: not a zip, truncated, a bad CRC, a missing or corrupt record or tree, a
      header that does not parse, a dtype that differs from the record or that
      pydevtensor does not have, a shape that does not match the data, a version
      newer than this pydevtensor reads.  The message names the file and what is
      wrong.
    - OutOfMemoryError when the file's tensors do not fit under a device's memory
      limit: checked from the headers, before any tensor is read.
    - DeviceError (a RuntimeError) when a saved device does not exist here, naming
      map_location as the fix; TypeError for a map_location of the wrong type, or a
      file opened in text mode.
    - FileNotFoundError, PermissionError and other OSErrors as open() raises them.

    Only headers are read before the sizes are checked, and each tensor is then read
    once, straight into its storage.  From a binary file, the archive that starts at
    its position is read (further save() calls may have written others after it), and
    the file is left just after it; a position inside an archive is a FormatError.

    Parameters
    ----------
    f : str, os.PathLike or binary file
        What save() wrote.
    map_location : str, pydevtensor.device, dict or callable, optional
        Where the tensors go: one device for all, or {'cuda:0': 'cpu', ...}; or a
        callable ``f(storage, location)`` called with each tensor (or shared storage)
        read onto the CPU and the device string it was saved from, returning it moved
        (``lambda storage, loc: storage`` keeps everything on the CPU) or None (back
        to where it was saved).
    weights_only : bool or None, optional
        Accepted as PyTorch's ``torch.load(f, weights_only=True)`` is written; True,
        False and None load the same (nothing is unpickled either way).
    pickle_module, mmap, **pickle_load_args
        Taken so that PyTorch's calls run (``mmap=True``, ``encoding='latin1'``); the
        file holds no pickle and each tensor is read once into its storage, so they
        change nothing.

    Returns
    -------
    object
        What was saved: a Tensor for a Tensor; for a dict of tensors under string
        keys (the file layout of version 1, which any pydevtensor reads) a dict, or an
        OrderedDict when one was saved (a state_dict, and any such dict in a file of an
        older pydevtensor); otherwise the same structure, with lists as lists, tuples
        (namedtuples too) as tuples, dicts as dicts with their keys (of their types) in
        their order, OrderedDicts, sets, Counters and Sizes as themselves, and None,
        bools, ints, floats (nan and infinities too), complex numbers, strings, bytes
        and bytearrays as themselves.  A Parameter comes back
        as a Parameter, and a tensor that was in several places as one object.  An
        OrderedDict saved with a ``_metadata`` (a state_dict) has it back.

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> pydevtensor.save(pydevtensor.arange(3), buf)
    >>> _ = buf.seek(0)
    >>> pydevtensor.load(buf, map_location="cpu")
    tensor([0, 1, 2])
    >>> _ = buf.seek(0)
    >>> pydevtensor.load(buf, weights_only=True)
    tensor([0, 1, 2])
    """
    import json
    if weights_only is not None and not isinstance(weights_only, bool):
        raise TypeError(f"load(): weights_only must be True, False or None, "
                        f"got {type(weights_only).__name__}")
    if map_location is not None and not isinstance(map_location, (dict, str, _C.device)) \
            and not callable(map_location):
        raise TypeError(f"map_location must be a device, a string, a dict or a callable, "
                        f"got {type(map_location).__name__}")
    mapper = map_location if callable(map_location) and not isinstance(
        map_location, (dict, str, _C.device)) else None
    label = repr(f)
    own = isinstance(f, (str, os.PathLike))
    if not own:
        _check_stream(f)
    fh = open(f, "rb") if own else f
    try:
        try:
            zf, end, members, (kind, structure, array_names, entries, odict_meta), specs = \
                _parse(fh, json)
        except Exception as e:
            _reraise(e, f"load(): {label} is not a pydevtensor file or is damaged", label)
        with zf:
            targets = {}
            for name, e, *_ in specs:
                dev = _target(e["device"], map_location)
                try:
                    _C._check_device(dev)
                except RuntimeError as err:
                    raise _C.DeviceError(
                        f"load(): tensor '{name}' was saved on {e['device']}, and {err}. Pass "
                        f"map_location to load it elsewhere, e.g. map_location='cpu' or "
                        f"map_location={{'{e['device']}': 'cpu'}}") from err
                targets[name] = dev
            _check_limits(label, specs, targets)
            read = {}
            for spec in specs:
                try:
                    t = _read_tensor(zf, members, spec, targets[spec[0]])
                except Exception as e:
                    _reraise(e, f"load(): {label}: tensor '{spec[0]}' cannot be read", label)
                read[spec[0]] = t if mapper is None else _mapped(t, spec[1]["device"], mapper)
            out = _with_views(label, read, entries)
            arrays = {name: _read_array(label, zf, members, name) for name in array_names}
        fh.seek(end)  # just after the archive: the next one on the stream reads next
    finally:
        if own:
            fh.close()
    if kind == "tree":
        from . import _serialization_tree as tree
        return tree.decode(structure, out, arrays=arrays, metadata=odict_meta)
    if kind == "dict" and "0" in odict_meta:
        out._metadata = odict_meta["0"]
    return out["tensor"] if kind == "tensor" else out


def _check_stream(f):
    """Refuses a file argument that is neither a path nor a readable, seekable binary
    file (the zip's directory is at its end), before anything is read."""
    if not (callable(getattr(f, "read", None)) and callable(getattr(f, "seek", None))):
        raise TypeError(f"load(): f must be a path or a binary file opened for reading, "
                        f"got {type(f).__name__}")
    refuse_text(f, "load", "rb")
    seekable = getattr(f, "seekable", None)
    if callable(seekable) and not seekable():
        raise ValueError(f"load(): {f!r} cannot seek, and a pydevtensor file is a zip whose "
                         f"directory is at its end; read it into io.BytesIO(f.read()) first")


def _with_views(label, read, entries):
    """{name: tensor} in the record's order: the tensors read, and the views of the
    shared storages rebuilt (bounds-checked against the storage read)."""
    from ._serialization_share import rebuild
    out = OrderedDict()
    for name, e in entries.items():
        if "view" in e:
            try:
                t = rebuild(e["view"], read[e["view"]["storage"]])
            except (ValueError, RuntimeError) as err:
                raise FormatError(f"load(): {label}: tensor '{name}' is a view outside its "
                                  f"storage ({err})") from None
        else:
            t = read[name]
        out[name] = _as_saved(t, e)
    return out


def _read_array(label, zf, members, name):
    """The NumPy array stored as member name (numbers or strings; no pickle)."""
    from numpy.lib import format as npy
    info, fp = _open_member(zf, members, name)
    try:
        with fp:
            a = npy.read_array(fp, allow_pickle=False)
    except Exception as e:
        _reraise(e, f"load(): {label}: array '{name}' cannot be read")
    from ._serialization_tree import ARRAY_KINDS
    if a.dtype.kind not in ARRAY_KINDS:
        raise FormatError(f"load(): {label}: array '{name}' has dtype {a.dtype}")
    return a
