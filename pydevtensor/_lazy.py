"""Loading the op modules on first use.

Note [lazy ops modules]: ``import pydevtensor`` loads the modules a first tensor needs
(the C extension, autograd, cuda, amp, the arithmetic and views); the others (_lazy_table's
MODULES: most ``_ops_*`` and ``_linalg_*`` modules, ``linalg``) load when one of their
names is first read, ``pydevtensor.quantile`` through the package's ``__getattr__`` (PEP
562) and ``x.quantile`` through a placeholder that stands on Tensor for each method such a
module sets (a descriptor: reading it loads the module, whose method replaces it).  A
module loaded so, however it is imported (or reloaded), is then finished as the modules
loaded at import were: its Tensor methods refuse out= (_out.methods_without_out) and amp's
wrappers are installed over its ops (amp/_policy.install).  Loading all of them at import
cost about half of ``import pydevtensor`` (issue: 10 ms on 2026-11-30, 62 ms two weeks
later).
"""
import importlib
import importlib.machinery
import sys

from . import _C
from . import _lazy_table

_PACKAGE = __name__.rpartition(".")[0]
_PENDING = set()  # full names of the table's modules not loaded yet
_MODULES = set()  # full names of the table's modules not loaded at import
_PLACEHOLDERS = {}  # full name -> the placeholders standing for its Tensor attributes


class LazyAttr:
    """Stands on Tensor for an attribute of a module not loaded yet: the first read (or
    write) loads the module, which sets the real attribute in its place.  While that
    module runs, the attribute it replaces (previous: _ops_small_names' fill_ wraps the C
    one) is what it reads."""

    __slots__ = ("module", "name", "previous")

    def __init__(self, module, name, previous=None):
        self.module = module
        self.name = name
        self.previous = previous

    def _real(self):
        importlib.import_module(f"{_PACKAGE}.{self.module}")
        real = vars(_C.Tensor).get(self.name)
        if real is self and self.previous is not None:  # the module itself, while it loads
            return self.previous
        if real is None or isinstance(real, LazyAttr):
            raise AttributeError(f"loading pydevtensor.{self.module} did not set "
                                 f"Tensor.{self.name} (_lazy_table.TENSOR is out of date)")
        return real

    def __get__(self, obj, owner=None):
        real = self._real()
        get = getattr(type(real), "__get__", None)
        return real if get is None else get(real, obj, _C.Tensor if owner is None else owner)

    # A placeholder must be a data descriptor (a property's setter, x.H = v, is reached
    # through it), so a write or delete goes through it even where the real attribute, a
    # method, leaves it to the tensor's __dict__ (PyTorch's x.quantile = v): once the
    # module has replaced it, the write is done again as Python does it for the real one.

    def __set__(self, obj, value):
        real = self._real()
        if vars(_C.Tensor).get(self.name) is not self:
            setattr(obj, self.name, value)
            return
        if not hasattr(type(real), "__set__"):  # the module itself, while it loads
            raise AttributeError(f"'Tensor' object attribute '{self.name}' is read-only")
        type(real).__set__(real, obj, value)

    def __delete__(self, obj):
        real = self._real()
        if vars(_C.Tensor).get(self.name) is not self:
            delattr(obj, self.name)
            return
        if not hasattr(type(real), "__delete__"):
            raise AttributeError(f"'Tensor' object attribute '{self.name}' is read-only")
        type(real).__delete__(real, obj)

    def __repr__(self):
        return f"<Tensor.{self.name} of pydevtensor.{self.module}, loaded on first use>"


class _FinishingLoader:
    """The module's own loader, then _finish."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):  # get_source, get_filename, ... for inspect and linecache
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        first = module.__name__ in _PENDING  # not importlib.reload
        try:
            self._loader.exec_module(module)
            _finish(module)
        except BaseException:  # importlib forgets the module: the next read loads it again
            if first:  # (its methods set before the error, unfinished, would stay)
                for placeholder in _PLACEHOLDERS.get(module.__name__, ()):
                    setattr(_C.Tensor, placeholder.name, placeholder)
            raise


class _Finder:
    """On sys.meta_path from import on: finds the table modules not loaded at import
    (on their first load, or importlib.reload's) as the path finder does, with a loader
    that finishes them (any other name: None)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname not in _MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _FinishingLoader(spec.loader)
        return spec


def _finish(module):
    """Tensor's methods set by module refuse out= and amp wraps its ops, as for the modules
    loaded at import."""
    from ._out import methods_without_out
    from .amp import _policy

    short = module.__name__.rpartition(".")[2]
    methods_without_out(_C.Tensor, _lazy_table.TENSOR.get(short, ()))
    _policy.install([module])
    _PENDING.discard(module.__name__)  # last: an error above leaves it to load again
    # _Finder stays on sys.meta_path once all are loaded (it then answers None at once):
    # importlib walks the live list, so removing it here, inside some import, could make
    # a concurrent import in another thread skip the finder after it


def install():
    """Places the Tensor placeholders of the table's modules not loaded yet and the
    finder that finishes them when they load.  Run at the end of ``import pydevtensor``."""
    for module in _lazy_table.MODULES:
        if f"{_PACKAGE}.{module}" in sys.modules:
            continue
        full = f"{_PACKAGE}.{module}"
        _PENDING.add(full)
        _MODULES.add(full)
        for name in _lazy_table.TENSOR.get(module, ()):
            previous = next((vars(c)[name] for c in _C.Tensor.__mro__ if name in vars(c)),
                            None)
            if not isinstance(previous, LazyAttr):
                setattr(_C.Tensor, name, LazyAttr(module, name, previous))
                _PLACEHOLDERS.setdefault(full, []).append(vars(_C.Tensor)[name])
    if f"{_PACKAGE}._ops_logical" not in sys.modules:  # its hook, until it loads
        _C._set_operator_fallback(_operator_fallback)
    if _PENDING and _Finder not in sys.meta_path:  # once, also after reload(pydevtensor)
        sys.meta_path.insert(0, _Finder)


def _operator_fallback(op, a, b):
    """The Python side of &, |, ^ and ~ (Note [mask operators in C] in tensor_bitwise.c)
    until _ops_logical, which installs its own, has loaded: loads it and asks it.  Without
    it, ``x & y`` of float tensors said Python's bare "unsupported operand type(s)" until
    some other name had loaded the module."""
    from . import _ops_logical
    return _ops_logical._operator_fallback(op, a, b)


def owner(name):
    """(module, attribute) that provides the top-level name, or None."""
    alias = _lazy_table.ALIASES.get(name)
    if alias is not None:
        return alias
    return _OWNERS.get(name)


_OWNERS = {n: (m, n) for m, names in _lazy_table.NAMES.items() for n in names}
