"""The structure of what save() writes beyond a tensor or a flat dict of tensors: lists,
tuples and dicts (string or int keys) of tensors, None, bools, ints, floats and strings,
as torch.save takes them.  serialization.py writes such an object as version 2 of the
file: its tensors as arrays, and the structure as the record's "tree", JSON in which

    None, true/false, 1, 1.5, NaN, Infinity, "text"   are themselves
    [a, b]                                            is a list
    {"tuple": [a, b]}                                 is a tuple
    {"dict": [[key, value], ...]}                     is a dict (a key is a JSON
    {"odict": [[key, value], ...]}                    string or int: its type is kept;
                                                      or {"key": node} for any other,
                                                      a tuple, float, None..., version
                                                      4), or an OrderedDict
    {"tensor": "model.0.weight"}                      is the tensor stored under that name
    {"device": "cuda:0"}, {"dtype": "float32"}        a pydevtensor.device, dtype (version 3)
    {"ndarray": "rng.1"}, {"npscalar": "x"}           a NumPy array (a NumPy scalar) of a
                                                      numeric or string dtype, stored as
                                                      the .npz member of that name,
                                                      read without pickle (version 3)
    {"size": [2, 3]}, {"complex": [re, im]}           a pydevtensor.Size, a complex,
    {"bytes": "<base64>"}, {"bytearray": "<base64>"}  bytes, a bytearray,
    {"set": [a, b]}, {"counter": [[key, count], ...]} a set, a collections.Counter
                                                      (version 4: what PyTorch's
                                                      weights_only=True load allows)

An OrderedDict's ``_metadata`` (a state_dict's: {prefix: {"version": n}}, which
versioned ``_load_from_state_dict`` overrides read) goes in the record's "metadata",
{"n": _metadata} for the n-th OrderedDict of the tree in depth-first order ("0" for the
dict of a version 1 record), as JSON: a reader without it loads the file as before.

A tensor that appears in several places (the same object) is stored once and comes
back as one object.  Non-finite floats are written as JSON's NaN, Infinity and
-Infinity, which Python's json module reads and writes (strict JSON has no spelling
for them).
"""
import base64
from collections import Counter, OrderedDict

import numpy as np

from . import _C
from ._tensor_py import Size

MAX_DEPTH = 64  # containers inside one another
NEW_TAGS = ("device", "dtype", "ndarray", "npscalar")  # version 3
V4_TAGS = ("size", "complex", "bytes", "bytearray", "set", "counter")  # version 4
_TAGS = ("tensor", "tuple", "dict", "odict") + NEW_TAGS + V4_TAGS
_WRITES = ("it writes tensors, numbers, complex numbers, strings, bytes, None, devices, "
           "dtypes, NumPy arrays of numbers or strings, and lists, tuples, sets and dicts "
           "of them")
ARRAY_KINDS = "biufcSU"  # NumPy dtype kinds stored as arrays (no object arrays: no pickle)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class Corrupt(Exception):
    """A tree in a file that is not one encode() writes (serialization.py turns it into
    a FormatError naming the file)."""


def is_flat(obj, reserved):
    """Whether obj is written as version 1 wrote it: a Tensor, or an OrderedDict (a
    state_dict) of distinct Tensors under string keys other than reserved (the record's
    name).  A plain dict goes in the tree, which gives it back a dict, as saved."""
    if isinstance(obj, _C.Tensor):
        return True
    if not isinstance(obj, OrderedDict):
        return False
    seen = set()
    for k, v in obj.items():
        if not isinstance(k, str) or k == reserved or not isinstance(v, _C.Tensor) or \
                id(v) in seen or not _member_safe(k):
            return False
        seen.add(id(v))
    return True


def _member_safe(key):
    """Whether key can name a zip member as it is (version 1 names each tensor's member
    after its key): zipfile cuts a name at NUL, writes it as UTF-8 and holds at most
    65,535 bytes (APPNOTE 4.4.10).  Other keys go in the tree, which names members
    itself."""
    if "\x00" in key:
        return False
    try:
        return len(key.encode("utf-8")) <= 4096
    except UnicodeEncodeError:  # a lone surrogate
        return False


def where(path):
    """obj['model']['0.weight'] for the path (parent, key) ... (None, None)."""
    keys = []
    while path[0] is not None:
        path, key = path
        keys.append(key)
    return "obj" + "".join(f"[{k!r}]" for k in reversed(keys))


def _member_name(path, taken, reserved):
    """A readable name for a tensor's array in the .npz (model.0.weight), unique in
    taken: the path's keys joined by dots, other characters as _."""
    keys = []
    while path[0] is not None:
        path, key = path
        keys.append(str(key))
    base = ".".join(reversed(keys))
    base = "".join(c if c in _NAME_CHARS else "_" for c in base)[:120] or "tensor"
    name, n = base, 1
    while name in taken or name == reserved:
        n += 1
        name = f"{base}~{n}"
    return name


def _writable_int(x, what):
    """int(x), or ValueError when json cannot write it (Python refuses to print an int
    of more than 4300 digits)."""
    try:
        int.__repr__(x)
    except ValueError:
        raise ValueError(f"save(): {what} is an int of {x.bit_length()} bits, too long to "
                         f"write") from None
    return int(x)


def odict_metadata(x, path):
    """The _metadata of the OrderedDict x at path, checked to be JSON's (TypeError
    naming what is not), or None when it has none."""
    meta = getattr(x, "_metadata", None)
    if meta is not None:
        _check_json(meta, f"the _metadata of {where(path)}", 0)
    return meta


def _check_json(x, what, depth):
    if x is None or isinstance(x, (bool, float, str)):
        return
    if isinstance(x, int):
        _writable_int(x, what)
        return
    if depth < MAX_DEPTH and (isinstance(x, list) or isinstance(x, dict) and
                              all(type(k) is str for k in x)):
        for v in (x.values() if isinstance(x, dict) else x):
            _check_json(v, what, depth + 1)
        return
    raise TypeError(f"save(): {what} holds {type(x).__name__} {x!r:.40}, which save() "
                    f"cannot write (it writes it as JSON: dicts with string keys, lists, "
                    f"strings, numbers, bools and None)")


def encode(obj, reserved):
    """(tree, OrderedDict of member name -> Tensor, OrderedDict of member name -> NumPy
    array, the version the tree needs (0 for 2, or 3 or 4), the OrderedDicts' metadata)
    for obj;
    TypeError naming the place of anything save() cannot write, ValueError for nesting
    deeper than MAX_DEPTH or a container inside itself."""
    metadata, odicts = {}, [0]
    tensors = OrderedDict()
    arrays = OrderedDict()
    taken = _Taken(tensors, arrays)
    names = {}   # id(tensor) -> its member name
    inside = set()  # ids of the containers being walked (a cycle is an error)
    newer = []

    def walk(x, path, depth):
        if isinstance(x, _C.Tensor):
            name = names.get(id(x))
            if name is None:
                name = names[id(x)] = _member_name(path, taken, reserved)
                tensors[name] = x
            return {"tensor": name}
        if x is None or x is True or x is False:
            return x
        if isinstance(x, (_C.device, _C.dtype)):
            newer.append(3)
            return {"device": str(x)} if isinstance(x, _C.device) else {"dtype": x.name}
        if isinstance(x, (np.ndarray, np.generic)) and not isinstance(x, (int, float, str)):
            if x.dtype.kind not in ARRAY_KINDS:
                raise TypeError(f"save(): {where(path)} is a NumPy array of dtype {x.dtype}, "
                                f"which save() cannot write without pickling ({_WRITES})")
            newer.append(3)
            name = _member_name(path, taken, reserved)
            arrays[name] = np.asarray(x)
            return {"npscalar" if isinstance(x, np.generic) else "ndarray": name}
        if isinstance(x, int):
            return _writable_int(x, where(path))
        if isinstance(x, float):
            return float(x)  # numpy.float64 as a float
        if isinstance(x, str):
            return str(x)
        if isinstance(x, (complex, bytes, bytearray, Size)):
            newer.append(4)
            if isinstance(x, complex):
                return {"complex": [float(x.real), float(x.imag)]}
            if isinstance(x, Size):
                return {"size": [int(n) for n in x]}
            tag = "bytearray" if isinstance(x, bytearray) else "bytes"
            return {tag: base64.b64encode(x).decode("ascii")}
        if not isinstance(x, (list, tuple, dict, set)):
            numpy = type(x).__module__ == "numpy"
            hint = " (convert it with .item(), or to a Tensor)" if numpy else ""
            name = ("numpy." if numpy else "") + type(x).__name__
            article = "an" if name[:1].lower() in "aeiou" else "a"
            raise TypeError(f"save(): {where(path)} is {article} {name}, which save() "
                            f"cannot write ({_WRITES}){hint}")
        if depth >= MAX_DEPTH:
            raise ValueError(f"save(): {where(path)} is nested more than {MAX_DEPTH} "
                             f"containers deep")
        if id(x) in inside:
            raise ValueError(f"save(): {where(path)} contains itself")
        inside.add(id(x))
        if isinstance(x, dict):
            if isinstance(x, OrderedDict):  # numbered before its insides, as decode does
                meta = odict_metadata(x, path)
                if meta is not None:
                    metadata[str(odicts[0])] = meta
                odicts[0] += 1
            pairs = []
            for k, v in x.items():
                if type(k) is bool or not isinstance(k, (str, int)):
                    try:  # a tuple, float, None...: {"key": node} (version 4)
                        node = {"key": walk(k, (path, "<key>"), depth + 1)}
                    except TypeError:
                        raise TypeError(f"save(): {where(path)} has the key {k!r:.60} of "
                                        f"type {type(k).__name__}, which save() cannot "
                                        f"write ({_WRITES})") from None
                    newer.append(4)
                else:
                    node = k = str(k) if isinstance(k, str) else _writable_int(
                        k, f"a key of {where(path)}")
                pairs.append([node, walk(v, (path, k), depth + 1)])
            tag = "odict" if isinstance(x, OrderedDict) else "counter" if isinstance(
                x, Counter) else "dict"
            if tag == "counter":
                newer.append(4)
            node = {tag: pairs}
        elif isinstance(x, set):
            newer.append(4)
            node = {"set": [walk(v, (path, f"<item {i}>"), depth + 1) for i, v in enumerate(x)]}
        else:
            items = [walk(v, (path, i), depth + 1) for i, v in enumerate(x)]
            node = {"tuple": items} if isinstance(x, tuple) else items
        inside.discard(id(x))
        return node

    tree = walk(obj, (None, None), 0)
    return tree, tensors, arrays, max(newer, default=0), metadata


class _Taken:
    """The member names in use: the tensors' and the arrays' (for _member_name)."""

    def __init__(self, *maps):
        self.maps = maps

    def __contains__(self, name):
        return any(name in m for m in self.maps)


def _short(node):
    text = repr(node)
    return text if len(text) <= 60 else text[:57] + "..."


def decode(node, tensors, used=None, arrays=None, version=4, metadata=None):
    """The object of a tree read from a file, its tensors taken from tensors (member
    name -> Tensor), its NumPy arrays from arrays and its OrderedDicts' _metadata from
    metadata; the name of every tensor it takes is added to used.  Raises Corrupt,
    naming the place, for anything encode() does not write (the tags of version 3 or 4
    only in a file of that version or later)."""
    arrays = {} if arrays is None else arrays
    metadata, odicts = metadata or {}, [0]

    def walk(x, path, depth):
        if x is None or isinstance(x, (bool, int, float, str)):  # json's leaves
            return x
        if depth >= MAX_DEPTH and not (isinstance(x, dict) and list(x) == ["tensor"]):
            # a tensor is a leaf, as encode() counts it
            raise Corrupt(f"the tree at {where(path)} is nested more than {MAX_DEPTH} deep")
        if isinstance(x, list):
            return [walk(v, (path, i), depth + 1) for i, v in enumerate(x)]
        if not isinstance(x, dict) or len(x) != 1 or next(iter(x)) not in _TAGS:
            raise Corrupt(f"the tree at {where(path)} is {_short(x)}, not a value, a list "
                          f"or one of {{'tensor' | 'tuple' | 'dict' | 'odict': ...}}")
        ((tag, body),) = x.items()
        if tag in NEW_TAGS or tag in V4_TAGS:
            if version < (3 if tag in NEW_TAGS else 4):
                raise Corrupt(f"the tree at {where(path)} is {_short(x)}, which version "
                              f"{version} does not have")
            if tag in NEW_TAGS:
                return _leaf(tag, body, arrays, path)
            if tag in ("set", "counter"):
                return _collection(tag, walk({"tuple" if tag == "set" else "dict": body},
                                             path, depth), path)
            return _v4_leaf(tag, body, path)
        if tag == "tensor":
            if not isinstance(body, str) or body not in tensors:
                raise Corrupt(f"the tree at {where(path)} names tensor {_short(body)}, "
                              f"which the record does not list")
            if used is not None:
                used.add(body)
            return tensors[body]
        if not isinstance(body, list):
            raise Corrupt(f"the tree at {where(path)} is a {tag} of {_short(body)}, not "
                          f"of a list")
        if tag == "tuple":
            return tuple(walk(v, (path, i), depth + 1) for i, v in enumerate(body))
        out = OrderedDict() if tag == "odict" else {}
        if tag == "odict":
            if str(odicts[0]) in metadata:
                out._metadata = metadata[str(odicts[0])]
            odicts[0] += 1
        for i, pair in enumerate(body):
            node = isinstance(pair, list) and len(pair) == 2 and version >= 4 and \
                isinstance(pair[0], dict) and list(pair[0]) == ["key"]
            if not (node or isinstance(pair, list) and len(pair) == 2 and
                    isinstance(pair[0], (str, int)) and not isinstance(pair[0], bool)):
                raise Corrupt(f"the tree at {where(path)} has {_short(pair)} as item {i}, "
                              f"not a [key, value] pair with a string or int key")
            key = walk(pair[0]["key"], (path, "<key>"), depth + 1) if node else pair[0]
            try:
                hash(key)
            except TypeError as e:  # a list or a dict: no key save() writes
                raise Corrupt(f"the tree at {where(path)} has the key {_short(key)}: "
                              f"{e}") from None
            if key in out:
                raise Corrupt(f"the tree at {where(path)} has the key {key!r} twice")
            out[key] = walk(pair[1], (path, key), depth + 1)
        return out

    return walk(node, (None, None), 0)


def _collection(tag, items, path):
    """The set of the items (a tuple), or the Counter of a dict, read back."""
    if tag == "counter":
        return Counter(items)
    try:
        return set(items)
    except TypeError as e:  # a list or a dict among them: no set() writes that
        raise Corrupt(f"the tree at {where(path)} is a set of {e}") from None


def _v4_leaf(tag, body, path):
    """The Size, complex, bytes or bytearray of a version 4 tag."""
    if tag in ("bytes", "bytearray"):
        try:
            raw = base64.b64decode(body.encode("ascii"), validate=True)
        except (AttributeError, ValueError) as e:  # not a str, not base64
            raise Corrupt(f"the tree at {where(path)} is {tag} {_short(body)}, not base64 "
                          f"({e})") from None
        return raw if tag == "bytes" else bytearray(raw)
    numbers = isinstance(body, list) and all(
        type(v) is (int if tag == "size" else float) for v in body)
    if tag == "size" and numbers:
        return Size(body)
    if tag == "complex" and numbers and len(body) == 2:
        return complex(*body)
    raise Corrupt(f"the tree at {where(path)} is a {tag} of {_short(body)}, not of "
                  f"{'sizes' if tag == 'size' else 'two floats'}")


def _leaf(tag, body, arrays, path):
    """The device, dtype or NumPy array of a version 3 tag."""
    if not isinstance(body, str):
        raise Corrupt(f"the tree at {where(path)} is a {tag} of {_short(body)}, not of a "
                      f"string")
    if tag == "device":
        try:
            return _C.device(body)
        except (ValueError, TypeError, RuntimeError) as e:
            raise Corrupt(f"the tree at {where(path)} is device {_short(body)}: {e}") from None
    if tag == "dtype":
        dt = getattr(_C, body, None) if body.isidentifier() else None
        if not isinstance(dt, _C.dtype):
            raise Corrupt(f"the tree at {where(path)} is dtype {_short(body)}, which "
                          f"pydevtensor does not have")
        return dt
    if body not in arrays:
        raise Corrupt(f"the tree at {where(path)} names array {_short(body)}, which the "
                      f"record does not list")
    a = arrays[body]
    return a[()] if tag == "npscalar" and a is not None else a


def check(node, names, arrays=(), version=4):
    """Raises Corrupt unless node is a tree whose tensors are exactly names (each
    listed tensor used at least once), before any tensor is read."""
    used = set()
    decode(node, dict.fromkeys(names), used, dict.fromkeys(arrays), version)
    unused = [n for n in names if n not in used]
    if unused:
        raise Corrupt(f"it lists tensor {unused[0]!r}, which the tree does not use")
