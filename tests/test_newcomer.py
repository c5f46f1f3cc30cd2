"""What a newcomer sees first (issue 17): the README's tour runs as written, with and
without a GPU; the command-line tools print usage; importing the source tree without
a compiled extension says what is wrong."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import pydevtensor as pdt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_code():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert blocks, "README.md has no python blocks"
    return "\n".join(blocks)


def run_readme(tmp_path, env):
    script = tmp_path / "readme_tour.py"
    script.write_text(readme_code())
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg", **env},
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_readme_runs_top_to_bottom_without_a_gpu(tmp_path):
    out = run_readme(tmp_path, {"CUDA_VISIBLE_DEVICES": "", "PYDEVTENSOR_EMULATED_DEVICES": "0"})
    assert "cuda:1 unknown device" in out   # the caught error is printed
    assert "True" in out


@pytest.mark.cuda
def test_readme_runs_top_to_bottom_with_a_gpu(tmp_path):
    out = run_readme(tmp_path, {})
    assert "device='cuda:0'" in out
    assert "can't convert cuda:0 tensor to NumPy" in out


@pytest.mark.parametrize("cmd", [[sys.executable, "-m", "pydevtensor", "--help"],
                                 [sys.executable, "-c",
                                  "import sys, pydevtensor.smi as s; sys.exit(s.main())",
                                  "--help"]])
def test_command_line_tools_print_usage(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ")
    assert "device table" in proc.stdout or "devices pydevtensor can use" in proc.stdout


def test_smi_script_prints_usage():
    exe = shutil.which("pydevtensor-smi")
    if exe is None:
        pytest.skip("pydevtensor-smi is not on PATH")
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: pydevtensor-smi")


def test_importing_the_source_tree_without_its_extension_says_why(tmp_path):
    tree = tmp_path / "src"
    shutil.copytree(os.path.dirname(pdt.__file__), tree / "pydevtensor",
                    ignore=shutil.ignore_patterns("_C.*", "__pycache__", "_emulated_cuda"))
    (tree / "setup.py").write_text("")
    # -S: no site-packages, as after `pip install .` there is no editable finder
    proc = subprocess.run([sys.executable, "-S", "-c", "import pydevtensor"], cwd=tree,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: cannot import pydevtensor from")
    assert "this is the source tree" in last and "cd .." in last
    assert "circular import" not in last


def test_a_dtype_error_in_a_layer_names_the_layer_and_the_parameter(device):
    from pydevtensor import nn
    net = nn.Sequential(nn.Linear(3, 2)).to(device)
    with pytest.raises(TypeError) as exc:
        net(pdt.ones(4, 3, dtype=pdt.float64, device=device))
    msg = str(exc.value)
    assert msg.startswith("the input is pydevtensor.float64 but the parameter 'weight' is "
                          "pydevtensor.float32")
    assert "(in layer '0': Linear(in_features=3, out_features=2, bias=True))" in msg
    assert "'mat1'" not in msg and "'input' and" not in msg


def test_joining_tensors_of_different_shapes_names_the_device(device):
    """D2L's concat of mismatched shapes: the message names the sizes and the device, and
    the error is InvalidArgumentError, as the README promises for bad shapes (a ValueError,
    NumPy's habit, and a RuntimeError, PyTorch's); stack's named no device before."""
    a, b = pdt.zeros(2, 3, device=device), pdt.zeros(4, 5, device=device)
    for join, words in ((pdt.cat, "Expected (2, 3) but got (4, 5) for tensor number 1"),
                        (pdt.stack, "got (2, 3) at entry 0 and (4, 5) at entry 1")):
        with pytest.raises(pdt.InvalidArgumentError) as exc:
            join([a, b])
        assert isinstance(exc.value, ValueError) and isinstance(exc.value, RuntimeError)
        assert words in str(exc.value) and f"(on {device})" in str(exc.value)


MODEL_HERE_DATA_THERE = """
import pydevtensor as pdt
from pydevtensor import nn, config as c
if {logical}:
    c.set_logical_device_configuration(c.list_physical_devices('CPU')[0],
                                       [c.LogicalDeviceConfiguration()] * 2)
net = nn.Sequential(nn.Flatten(), nn.Linear(3, 2)).to('{model}')
for x in (pdt.ones(4, 3, device='{data}'), pdt.ones(4, 3, dtype=pdt.float64, device='{data}')):
    try:
        net(x)
    except RuntimeError as e:
        print(e)
"""


@pytest.mark.parametrize("model, data", [pytest.param("cpu", "cuda:0", marks=pytest.mark.cuda),
                                         pytest.param("cuda:0", "cpu", marks=pytest.mark.cuda),
                                         ("cpu:0", "cpu:1")])
def test_a_model_on_one_device_fed_data_on_another_says_which_is_where(model, data):
    """D2L's mistake: the model on the CPU, the data on the GPU (or the other way round).
    The message says where the input and the layer's parameter are and how to move
    either, where it read "argument 'mat1' is on cuda:0, while 'input' is on cpu" (addmm's
    names: its 'input' is the bias, the user's input is 'mat1')."""
    code = MODEL_HERE_DATA_THERE.format(logical=model.startswith("cpu:"), model=model,
                                        data=data)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2, proc.stdout   # float32 and float64 inputs: both fail on the device
    for msg in lines:
        assert msg.startswith("Expected all tensors to be on the same device, but the input "
                              f"is on {data} and the parameter 'weight' on {model}; move the "
                              f"input with .to('{model}') or the model with .to('{data}')"), msg
        assert msg.endswith("(in layer '1': Linear(in_features=3, out_features=2, bias=True))")
        assert "mat1" not in msg


def test_a_shape_error_deep_in_a_network_names_the_layer(device):
    """D2L's mistake: a layer's in_features that does not match the layer before. The
    message names the sizes, the device and the layer (the third of three here), where it
    named linear()'s shapes only and left the user to find which Linear it was."""
    from pydevtensor import nn
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(5, 1)).to(device)
    with pytest.raises(pdt.InvalidArgumentError) as exc:
        net(pdt.ones(2, 3, device=device))
    msg = str(exc.value)
    assert "input of shape (2, 4) does not match weight of shape (1, 5)" in msg
    assert f"on {device}" in msg
    assert msg.endswith("(in layer '2': Linear(in_features=5, out_features=1, bias=True))")
    assert msg.count("(in layer") == 1     # named once, by the innermost layer


def test_the_package_works_under_python_OO():
    """python -OO drops docstrings (__doc__ is None): importing every module and a
    training step must not depend on them (two docstring templates read __doc__ and
    failed at import)."""
    code = ("import importlib, pkgutil, pydevtensor as p\n"
            "for m in pkgutil.walk_packages(p.__path__, 'pydevtensor.'):\n"
            "    if not m.name.endswith(('__main__', 'distributed.run')):\n"
            "        importlib.import_module(m.name)\n"
            "net = p.nn.Linear(3, 1)\n"
            "loss = net(p.ones(2, 3)).sum()\n"
            "loss.backward()\n"
            "print(net.weight.grad.shape)\n")
    proc = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "pydevtensor.Size([1, 3])"


def test_every_public_subpackage_is_named_in_the_readme():
    """A user finds what there is in README.md's "What is there": every public module
    reachable as ``pydevtensor.<name>`` is named there (``func``, ``quasirandom``,
    ``signal`` and ``debugging`` were not). ``serialization`` holds save/load, which are."""
    import types
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("## What is there")
    table = text[start:text.index("\n## ", start + 1)]
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)[.`(]", table))
    named |= set(re.findall(r"`[^`]*?\b([a-z_][a-z0-9_]*)\.[A-Za-z_]", table))
    modules = {n for n in dir(pdt) if not n.startswith("_")
               and isinstance(getattr(pdt, n), types.ModuleType)}
    assert modules - named - {"serialization"} == set()
