"""``import pydevtensor`` leaves the modules a first tensor does not need unloaded (Note
[lazy submodules] and Note [lazy ops modules] in pydevtensor/__init__.py), and every public
name still resolves.  Each check runs in a fresh interpreter: this process has imported
them all."""
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


def test_lazy_modules_set_nothing_on_tensor_and_hold_no_autocast_op():
    """What makes loading them later safe: Tensor's methods and amp's wrappers are installed
    at import, over the modules loaded then; and the table's names are each module's
    __all__ (so that pydevtensor.__all__ is unchanged)."""
    out = _run("""
        import importlib
        import pydevtensor
        from pydevtensor.amp import _policy
        policy = _policy.policy()
        for module, names in pydevtensor._LAZY_NAMES.items():
            before = dict(vars(pydevtensor.Tensor))
            mod = importlib.import_module("pydevtensor." + module)
            after = dict(vars(pydevtensor.Tensor))
            changed = sorted(k for k in set(before) | set(after)
                             if before.get(k) is not after.get(k))
            amp = sorted(n for n, v in vars(mod).items() if n in policy and callable(v))
            same = sorted(mod.__all__) == sorted(names)
            print(module, changed, amp, same)
        """)
    lines = out.strip().split("\n")
    assert len(lines) >= 13, out
    for line in lines:
        assert line.endswith(" [] [] True"), line
