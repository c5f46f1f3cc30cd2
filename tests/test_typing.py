"""Typing (issue 15): pydevtensor ships py.typed and stubs (pydevtensor/__init__.pyi,
pydevtensor/_C.pyi).  mypy --strict accepts tests/typing/tour.py (the README's tour as
a user's script) and infers Tensor where an editor completes `x.`; every public name of
the package, of the C extension and of Tensor is declared in the stubs."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pydevtensor as pdt
from pydevtensor import _C

PACKAGE = Path(pdt.__file__).resolve().parent
TOUR = Path(__file__).resolve().parent / "typing" / "tour.py"
TRAINING = Path(__file__).resolve().parent / "typing" / "training.py"  # nn and optim


def _stub_names(path, cls=None):
    """The names a stub declares at module level, or in class cls."""
    tree = ast.parse(path.read_text())
    body = tree.body
    if cls is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name for a in node.names)
    return names


def test_every_public_name_of_the_extension_is_in_its_stub():
    declared = _stub_names(PACKAGE / "_C.pyi")
    missing = sorted(n for n in dir(_C) if not n.startswith("_") and n not in declared)
    assert not missing, f"add to pydevtensor/_C.pyi: {missing}"


def test_every_public_method_of_tensor_is_in_the_stub():
    declared = _stub_names(PACKAGE / "_C.pyi", "Tensor")
    public = [n for n in dir(_C.Tensor) if not n.startswith("__") and n != "_storage_refcount"]
    missing = sorted(n for n in public if n not in declared)
    assert not missing, f"add to class Tensor in pydevtensor/_C.pyi: {missing}"


def test_every_name_in_dunder_all_is_in_the_package_stub():
    declared = _stub_names(PACKAGE / "__init__.pyi") | _stub_names(PACKAGE / "_C.pyi")
    missing = sorted(n for n in pdt.__all__ if n not in declared)
    assert not missing, f"add to pydevtensor/__init__.pyi: {missing}"


def test_mypy_strict_accepts_the_tour_and_a_training_script(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extra")
    root = PACKAGE.parent
    # pydevtensor found through mypy_path (an editable install's import hook is invisible
    # to mypy); errors inside the package's own .py files are not the user's, as they are
    # not for an installed package, so they stay silent.
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\nmypy_path = " + str(root) + "\ncache_dir = " +
        str(tmp_path / "cache") + "\n\n[mypy-pydevtensor.*]\nfollow_imports = silent\n")
    # And a script with mistakes: the stubs are precise enough to catch them.
    bad = tmp_path / "bad.py"
    bad.write_text("import pydevtensor as torch\n"
                   "torch.ones(2, 3).no_such_method()\n"
                   "torch.ones(2, 3).to(device=3.5)\n"
                   "n: str = torch.device_count()\n"
                   "torch.nn.Linear('3', 1)\n"
                   "torch.optim.SGD(torch.nn.Linear(3, 1).parameters(), lr='big')\n")
    # Not under the sanitizer job's preloaded runtimes: mypy is not our code.
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "LD_PRELOAD")}
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                           str(tmp_path / "mypy.ini"), str(TOUR), str(TRAINING), str(bad)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    lines = proc.stdout.splitlines()
    notes = [line for line in lines if "Revealed type" in line]
    errors = [line for line in lines if ": error:" in line]
    assert all(e.startswith(("bad.py:", str(bad))) for e in errors), proc.stdout
    assert len(notes) == 2 and all('"pydevtensor._C.Tensor"' in n for n in notes), proc.stdout
    assert [int(e.split(".py:")[1].split(":")[0]) for e in errors] == [2, 3, 4, 5, 6], proc.stdout
    assert '"Tensor" has no attribute "no_such_method"' in errors[0]
