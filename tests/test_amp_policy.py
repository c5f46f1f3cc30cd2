"""pydevtensor.amp's installation: it wraps the functions that are the listed ops
(amp/_policy.py's _HOMES), wherever they are exported, and never another function that
shares an op's name."""
import importlib
import sys
import types

import numpy as np

import pydevtensor as pdt
from pydevtensor.amp import _policy
from pydevtensor.nn import functional as F


def _kind(device):
    return "cpu" if device.type == "cpu" else "cuda"


def test_a_helper_named_like_an_op_is_never_wrapped(device, monkeypatch):
    """A module-level function named like a listed op (linear, on the lower list; cond,
    on the CPU float32 list) in a module that is not the op's, and a class's _fn named
    conv2d, stay as they are: amp's install wrapped them by name (as it wrapped
    _linear_nodes.linear as F.linear, 0b922770), and under autocast their float32
    inputs became bfloat16."""
    mod = types.ModuleType("pydevtensor._amp_probe")

    def linear(x, w):  # add is on no list: a float32 sum unless linear's inputs are cast
        return x + w

    def cond(x):
        return x * 1

    def conv2d(x):
        return x + 0

    class Layer:
        _fn = staticmethod(conv2d)

    for f in (linear, cond, conv2d, Layer):
        f.__module__ = mod.__name__
    mod.linear, mod.cond, mod.Layer = linear, cond, Layer
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    _policy.install()  # every loaded pydevtensor module, as a module loaded later gets
    _policy.install([mod])
    assert mod.linear is linear and mod.cond is cond and mod.Layer._fn is conv2d
    a = np.arange(6.0).reshape(2, 3) / 7
    x, w = (pdt.tensor(v, dtype=pdt.float32, device=device) for v in (a, 1 - a))
    with pdt.autocast(_kind(device), dtype=pdt.bfloat16):
        got = mod.linear(x, w)
        assert F.linear(x, w).dtype == pdt.bfloat16  # the op itself is still cast
    assert got.dtype == pdt.float32
    np.testing.assert_allclose(pdt.to_numpy(got), np.ones((2, 3)), rtol=1e-6)


def test_every_listed_op_found_is_wrapped():
    """Each listed op found in pydevtensor's namespaces is amp's wrapper (torch.cond's
    control flow, pydevtensor.cond, no op, excepted), and each of _HOMES's functions
    exists: a new op left out of _HOMES, or a moved one, would run uncast."""
    namespaces = {"pydevtensor": pdt, "pydevtensor.nn.functional": F,
                  "pydevtensor.linalg": pdt.linalg}
    unwrapped = [f"{where}.{name}" for where, ns in namespaces.items()
                 for name in _policy.policy()
                 if callable(getattr(ns, name, None)) and not isinstance(getattr(ns, name), type)
                 and not getattr(getattr(ns, name), "_autocast", None)]
    assert unwrapped == ["pydevtensor.cond"]
    missing = [q for q in sorted(_policy._OPS)
               if not hasattr(importlib.import_module(q.rpartition(".")[0]),
                              q.rpartition(".")[2])]
    assert missing == []
