"""``import pydevtensor`` leaves the modules a first tensor does not need unloaded (Note
[lazy submodules] in pydevtensor/__init__.py, Note [lazy ops modules] in _lazy.py), and
every public name and Tensor method still resolves.  Each check runs in a fresh
interpreter: this process has imported them all."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# loaded on first use; none is needed by ones(2, 3) or by the C ops
NOT_AT_IMPORT = [
    "nn", "optim", "distributions", "distribute", "distributed", "func", "utils", "special",
    "signal", "testing", "serialization", "jit", "quasirandom",
    "_ops_aten_more", "_ops_binomial", "_ops_creation_more", "_ops_gradient", "_ops_logspace",
    "_ops_norm_names", "_ops_poisson", "_ops_random", "_ops_torch_dropout",
    "_ops_torch_legacy", "_linalg_lobpcg", "_linalg_lowrank", "_precision",
    "linalg", "_ops_join", "_ops_scatter", "_ops_index_more", "_ops_special_more",
    "_linalg_solve", "_linalg_decomp", "_ops_small_names", "_ops_torch_names", "_ops_trig",
]


# the modules whose whole __all__ is pydevtensor's (they were star-imported)
STAR = [
    "_ops_join", "_ops_split", "_ops_einsum", "_ops_logical", "_ops_shortcuts", "_ops_sort",
    "_ops_nan", "_ops_pointwise", "_ops_cumulative", "_ops_counting", "_ops_special",
    "_ops_trig", "_ops_cov", "_ops_scatter", "_ops_index_more", "_ops_elementwise_more",
    "_ops_float_parts", "_ops_small_names", "_ops_reduce_more", "_ops_quantile",
    "_ops_histogram", "_ops_linalg_small", "_ops_torch_dropout", "_ops_torch_legacy",
    "_ops_shape", "_ops_split_stack", "_ops_diag", "_ops_view_scatter", "_ops_view_copy",
    "_ops_norm_names", "_ops_real", "_precision", "_runtime_flags", "_ops_creation_more",
    "_ops_torch_names", "_ops_aten_losses", "_ops_aten_more",
]


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_import_leaves_the_first_use_modules_unloaded():
    out = _run(f"""
        import sys
        import pydevtensor
        x = pydevtensor.ones(2, 3)
        print(sorted(m for m in {NOT_AT_IMPORT!r} if "pydevtensor." + m in sys.modules))
        """)
    assert out.split("\n")[0] == "[]", out


def test_every_public_name_resolves_in_a_fresh_process():
    out = _run("""
        import pickle, sys
        import pydevtensor
        names = sorted(set(pydevtensor.__all__) | set(dir(pydevtensor)))
        missing = [n for n in names if not hasattr(pydevtensor, n)]
        print(len(names), missing)
        from pydevtensor import lobpcg, set_float32_matmul_precision  # noqa: F401
        import pydevtensor._ops_random
        f = pickle.loads(pickle.dumps(pydevtensor.logspace))
        print(f is pydevtensor.logspace, f(0, 2, 3).tolist(),
              pydevtensor._ops_torch_legacy.lu is pydevtensor.lu)
        """)
    first, second = out.strip().split("\n")
    assert first.endswith(" []") and int(first.split()[0]) > 600, first
    assert second == "True [1.0, 10.0, 100.0] True", second


def test_the_tables_match_the_modules():
    """_lazy_table (Note [lazy ops modules]): each module's Tensor methods are there as
    placeholders right after import and loading the module replaces them; loading them all
    adds no Tensor attribute that import did not place; each top-level name of theirs is
    reachable (in the table or set at import); FUNCTIONAL is _ops_torch_names'."""
    out = _run(f"""
        import importlib
        import pydevtensor
        STAR = {STAR!r}
        from pydevtensor import _lazy, _lazy_table
        tensor = vars(pydevtensor.Tensor)
        at_import = set(tensor)
        eager = set(vars(pydevtensor))
        problems = []
        for module in _lazy_table.MODULES:
            for name in _lazy_table.TENSOR.get(module, ()):
                if not isinstance(tensor.get(name), _lazy.LazyAttr):
                    problems.append(f"Tensor.{{name}} is not a placeholder at import")
        for module in _lazy_table.MODULES:
            mod = importlib.import_module("pydevtensor." + module)
            for name in _lazy_table.TENSOR.get(module, ()):
                if isinstance(tensor.get(name), _lazy.LazyAttr):
                    problems.append(f"{{module}} did not set Tensor.{{name}}")
            for name in getattr(mod, "__all__", ()) if module in STAR else ():
                if _lazy.owner(name) is None and name not in eager:
                    problems.append(f"{{module}}.{{name}}: add it to _lazy_table.NAMES")
        for name in sorted(set(tensor) - at_import):
            problems.append(f"Tensor.{{name}}: add it to _lazy_table.TENSOR")
        for name, value in tensor.items():
            if isinstance(value, _lazy.LazyAttr):
                problems.append(f"Tensor.{{name}} still a placeholder")
        for name in list(_lazy._OWNERS) + list(_lazy_table.ALIASES):
            module, attr = _lazy.owner(name)
            if not hasattr(importlib.import_module("pydevtensor." + module), attr):
                problems.append(f"{{module}} has no {{attr}}")
        from pydevtensor import _ops_torch_names
        functional = (list(_ops_torch_names.FUNCTIONAL_ALIASES)
                      + list(_ops_torch_names.FUNCTIONAL_RENAMED))
        if sorted(functional) != sorted(_lazy_table.FUNCTIONAL):
            problems.append("_lazy_table.FUNCTIONAL differs from _ops_torch_names'")
        print(len(_lazy_table.MODULES), problems)
        """)
    count, problems = out.strip().split(" ", 1)
    assert int(count) > 50 and problems == "[]", out


def test_a_module_loaded_later_is_finished_as_at_import():
    """A method of a module loaded on first use refuses out= as the others do, however the
    module is imported; its ops get autocast's casts, also when it loads inside autocast;
    a placeholder read as a class attribute gives the method itself."""
    out = _run("""
        import inspect
        import pydevtensor as pdt
        import pydevtensor._ops_cumulative  # a plain import, not through a placeholder
        x = pdt.tensor([1., 4., 9.])
        try:
            x.diff(out=pdt.empty(2))
            print("accepted")
        except TypeError as e:
            print("out" in str(e))
        print(x.diff().tolist(), "out" in inspect.signature(pdt.Tensor.cumprod).parameters)
        a = pdt.rand(3, 4, dtype=pdt.bfloat16)
        with pdt.autocast("cpu", dtype=pdt.bfloat16):
            q = a.quantile(0.5)   # float32 on amp's CPU list; its module loads here
            c = pdt.cdist(a, a)   # float32 on amp's lists
        print(q.dtype, c.dtype, pdt.cdist(a, a).dtype)
        """)
    lines = out.strip().split("\n")
    assert lines[0] == "True", out
    assert lines[1] == "[3.0, 5.0] False", out
    assert lines[2] == "pydevtensor.float32 pydevtensor.float32 pydevtensor.bfloat16", out


def test_loading_the_last_lazy_module_inside_an_import_skips_no_finder():
    """importlib walks the live sys.meta_path: loading the last pending module while
    another import is between finders must not shift the list under it (the finder
    after the one running would be skipped, in another thread as here)."""
    out = _run("""
        import importlib, sys
        import pydevtensor
        from pydevtensor import _lazy_table

        asked = []

        class Trigger:  # loads every module still pending, as another thread might
            @staticmethod
            def find_spec(name, path=None, target=None):
                if name == "probe_target_module":
                    for m in _lazy_table.MODULES:
                        importlib.import_module("pydevtensor." + m)
                return None

        class Probe:
            @staticmethod
            def find_spec(name, path=None, target=None):
                asked.append(name)
                return None

        at = sys.meta_path.index(next(f for f in sys.meta_path
                                      if getattr(f, "__name__", "") == "_Finder")) + 1
        sys.meta_path[at:at] = [Trigger, Probe]
        try:
            import probe_target_module
        except ImportError:
            pass
        print("probe_target_module" in asked)
        """)
    assert out.strip() == "True", out


def test_an_attribute_set_on_a_tensor_before_its_methods_module_loads(device):
    """A tensor has a __dict__, as PyTorch's: ``x.quantile = v`` before _ops_quantile
    loads sets it there as it does after (the placeholder, a data descriptor, refused it:
    "read-only"), ``del x.quantile`` uncovers the method; a property without a setter
    (x.mT) still refuses a write."""
    import pydevtensor as pdt
    where = str(device)
    if device.type == "cuda":  # the fresh process has no logical split: the physical GPU
        where = f"cuda:{pdt._C._logical_device_map(pdt._C._KIND_CUDA)[device.index]}"
    out = _run(f"""
        import pydevtensor as pdt
        from pydevtensor import _lazy
        x = pdt.tensor([1., 4., 9.], device={where!r})
        print(isinstance(vars(pdt.Tensor)["quantile"], _lazy.LazyAttr),
              isinstance(vars(pdt.Tensor)["mT"], _lazy.LazyAttr))
        x.quantile = "mine"
        print(x.quantile, "quantile" in vars(x))
        del x.quantile
        print(x.quantile(0.5).item(), "quantile" in vars(x))
        try:
            x.mT = x
            print("mT set")
        except AttributeError:
            print("mT refused")
        """)
    assert out.split("\n")[:4] == ["True True", "mine True", "4.0 False", "mT refused"], out


_THREADS = """
    import sys, threading, traceback
    sys.setswitchinterval(1e-6)  # a thread switch between any two bytecodes
    import pydevtensor as pdt
    from pydevtensor import _lazy, _lazy_table

    def together(jobs):
        barrier = threading.Barrier(len(jobs))
        errors = []

        def run(job):
            barrier.wait()
            try:
                job()
            except Exception:
                errors.append(traceback.format_exc(limit=-3))
        threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return errors
"""


def test_threads_reading_first_top_level_names_together():
    """Threads that read lazily loaded top-level names at the same time, one thread per
    name: amp's installation over the package's namespace, which another thread's first
    read grew meanwhile, raised 'dictionary changed size during iteration'.  A name is
    published once amp has wrapped it: pydevtensor.svd (the alias of torch_svd, on amp's
    CPU float32 list) stood unwrapped in the package's namespace while amp's installation
    ran, where another thread could take it."""
    out = _run(_THREADS + """
    from pydevtensor.amp import _policy
    install, during = _policy.install, []

    def spy(mods=None):  # what another thread finds in the package's namespace meanwhile
        during.append(vars(pdt).get("svd"))
        return install(mods)
    _policy.install = spy
    pdt.svd
    _policy.install = install
    print(during[-1], bool(pdt.svd._autocast))  # the last: the package's
    names = list(_lazy._OWNERS) + list(_lazy_table.ALIASES)
    errors = together([lambda n=n: getattr(pdt, n) for n in names])
    listed = [n for n in names if n in _policy.policy()]
    raw = [n for n in listed if not getattr(vars(pdt)[n], "_autocast", None)
           and _policy._is_op(vars(pdt)[n])]  # not cond, torch.cond's control flow
    print(len(names), "inverse" in listed, raw, errors[:1])
    """)
    first, second = out.strip().split("\n")
    assert first == "None True", out
    count, rest = second.split(" ", 1)
    assert int(count) > 300 and rest == "True [] []", out


def test_amp_installation_while_other_threads_load_modules():
    """amp/_policy.install() over every loaded module (as ``import pydevtensor.nn`` runs
    it) while other threads load the lazily loaded modules, whose namespaces grow under
    it: no 'dictionary changed size during iteration'."""
    out = _run(_THREADS + """
    import importlib
    from pydevtensor.amp import _policy
    loaded = []

    def load(m):
        try:
            importlib.import_module("pydevtensor." + m)
        finally:
            loaded.append(m)

    def install():
        while len(loaded) < len(_lazy_table.MODULES):
            _policy.install()
    errors = together([lambda m=m: load(m) for m in _lazy_table.MODULES] + [install] * 4)
    print(len(errors), errors[:1])
    """)
    assert out.strip() == "0 []", out


def test_an_error_in_a_first_load_leaves_the_module_to_load_again():
    """An error while a module loads on first use (Ctrl-C at its last line, after it has
    set its Tensor methods; or in the finishing that follows): importlib forgets the
    module, and its placeholders stand again, so that the next read loads it again and
    finishes it.  Before, x.diff and x.cumprod stayed the module's unfinished functions,
    x.diff(out=o) was accepted (PyTorch's method refuses out=) and amp never wrapped
    _ops_cumulative's cumprod; an error in the finishing left the module marked loaded,
    so that its next load was not finished (x.sort(out=...) accepted)."""
    out = _run("""
        import sys
        import pydevtensor as pdt
        from pydevtensor import _lazy, _out

        def refused(x):
            try:
                x.diff(out=pdt.empty(2))
                return "accepted"
            except TypeError:
                return "refused"

        def interrupt_at(module, text):  # KeyboardInterrupt at module's line of text
            path = f"{pdt.__path__[0]}/{module}.py"
            line = next(i for i, s in enumerate(open(path), 1) if s.startswith(text))

            def local(frame, event, arg):
                if event == "line" and frame.f_lineno == line:
                    sys.settrace(None)
                    raise KeyboardInterrupt
                return local
            sys.settrace(lambda f, e, a: local if f.f_code.co_filename == path
                         and f.f_code.co_name == "<module>" else None)

        x = pdt.tensor([1., 4., 9.])
        interrupt_at("_ops_cumulative", "__all__ = ")
        try:
            x.diff()
        except KeyboardInterrupt:
            print("interrupted", isinstance(vars(pdt.Tensor)["diff"], _lazy.LazyAttr),
                  isinstance(vars(pdt.Tensor)["mT"], _lazy.LazyAttr))
        sys.settrace(None)
        d = x.diff().tolist()
        module = sys.modules.get("pydevtensor._ops_cumulative")  # None: not loaded again
        print(d, refused(x), bool(module and getattr(module.cumprod, "_autocast", None)))

        methods_without_out = _out.methods_without_out

        def failing(*args):
            _out.methods_without_out = methods_without_out
            raise MemoryError("in the finishing")
        _out.methods_without_out = failing
        y = pdt.tensor([4., 1., 2.])
        try:
            y.sort()  # _ops_sort (which loads no other lazily loaded module)
        except MemoryError:
            print("failed", isinstance(vars(pdt.Tensor)["sort"], _lazy.LazyAttr))
        try:
            y.sort(out=(pdt.empty(3), pdt.empty(3, dtype=pdt.int64)))
            print("out accepted")
        except TypeError:
            print("out refused")
        """)
    assert out.split("\n")[:4] == ["interrupted True True", "[3.0, 5.0] refused True",
                                   "failed True", "out refused"], out


def test_importlib_reload_of_a_lazily_loaded_module_finishes_it():
    """importlib.reload runs a module again: one loaded on first use is finished again
    (its new x.diff refuses out=, amp wraps its new cdist; before, reload left them
    unfinished), and reloading the package puts no second finder on sys.meta_path."""
    out = _run("""
        import importlib, sys
        import pydevtensor as pdt
        x = pdt.tensor([1., 4., 9.])
        x.diff(), pdt.cdist
        for name in ("_ops_cumulative", "_ops_distance"):
            importlib.reload(sys.modules["pydevtensor." + name])
        try:
            x.diff(out=pdt.empty(2))
            print("out accepted")
        except TypeError:
            print("out refused")
        print(bool(getattr(sys.modules["pydevtensor._ops_distance"].cdist, "_autocast", None)))
        importlib.reload(pdt)
        print(sum(getattr(f, "__name__", "") == "_Finder" for f in sys.meta_path))
        """)
    assert out.split("\n")[:3] == ["out refused", "True", "1"], out


def test_bitwise_operators_of_floats_explain_themselves_before_their_module_loads():
    """&, |, ^ and ~ of float tensors (and with a NumPy array) raise the DTypeError that
    says to compare first in a fresh interpreter, where _ops_logical, which serves the
    operands the C slots leave to Python, has not loaded yet: they said Python's bare
    "unsupported operand type(s)" (a TypeError naming neither dtype nor remedy)."""
    out = _run("""
        import sys
        import numpy as np
        import pydevtensor as pdt
        assert "pydevtensor._ops_logical" not in sys.modules
        x = pdt.tensor([1.0, 2.0])
        for f in (lambda: x & x, lambda: x | x, lambda: x ^ x, lambda: ~x,
                  lambda: x & np.array([3, 4]), lambda: np.array([3, 4]) | x):
            try:
                f()
            except pdt.DTypeError as e:
                print(type(e).__mro__[1].__name__, "bitwise" in str(e))
        m = pdt.tensor([True, False])
        print((m & np.array([True, True])).tolist(), (~m).tolist())
        """)
    lines = out.split("\n")
    assert lines[:6] == ["TypeError True"] * 6, out
    assert lines[6] == "[True, False] [False, True]", out


def test_return_types_resolve_before_their_module_loads():
    # pydevtensor.return_types.sort raised AttributeError until something had called sort:
    # the lazily loaded modules set their result types when they load
    out = _run("""
        import importlib, sys
        import pydevtensor
        from pydevtensor import _lazy_table
        rt = pydevtensor.return_types
        for module, names in _lazy_table.RETURN_TYPES.items():
            for name in names:
                t = getattr(rt, name)
                assert t.__name__ == name and hasattr(t, "_fields"), (name, t)
        assert set(dir(rt)) >= {n for ns in _lazy_table.RETURN_TYPES.values() for n in ns}
        for module in _lazy_table.MODULES:
            importlib.import_module("pydevtensor." + module)
        set_later = {n for n in vars(rt) if not n.startswith("__")} - {"max", "min"}
        print(sorted(set_later))
        try:
            rt.no_such_type
        except AttributeError as e:
            print(e)
        """)
    from pydevtensor import _lazy_table
    listed = sorted(n for names in _lazy_table.RETURN_TYPES.values() for n in names)
    lines = out.split("\n")
    assert lines[0] == str(listed), ("set _lazy_table.RETURN_TYPES to the names set: "
                                      + lines[0])
    assert lines[1] == "pydevtensor.return_types has no attribute 'no_such_type'", out


def test_return_types_pickle_as_torch_return_types_do():
    """Results of max, sort, linalg.qr pickle and come back as their types: they name
    pydevtensor.return_types as their module, which could not be imported ("import of
    module 'pydevtensor.return_types' failed").  Read back in a fresh interpreter where
    sort's module has not loaded yet."""
    out = _run("""
        import pickle, sys
        import pydevtensor as pdt
        x = pdt.tensor([[1.0, 5.0], [3.0, 4.0]])
        results = (pdt.max(x, 1), x.sort(1), pdt.linalg.qr(x))
        sys.stdout.write(pickle.dumps(results).hex())
        """)
    back = _run(f"""
        import pickle, sys
        import pydevtensor as pdt
        assert "pydevtensor._ops_sort" not in sys.modules
        got = pickle.loads(bytes.fromhex({out.strip()!r}))
        print([type(r).__name__ for r in got], got[0].values.tolist(), got[1].indices.tolist())
        print(type(got[1]) is pdt.return_types.sort)
        """)
    assert back.split("\n")[:2] == ["['max', 'sort', 'linalg_qr'] [5.0, 4.0] [[0, 1], [0, 1]]",
                                     "True"], back
