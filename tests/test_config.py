"""pydevtensor.config on the CPU, with logical CPU devices (issue 7).

Configuration happens once per process, before the first use of a device, so
each case runs in a fresh interpreter."""
import os
import subprocess
import sys
import textwrap

import pytest

import pydevtensor as pdt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code, setup=""):
    """Runs setup then code in a fresh interpreter with pydevtensor as `pdt` and
    config as `c`; returns its stdout, failing the test with its stderr when it fails."""
    prologue = "import pydevtensor as pdt\nfrom pydevtensor import config as c\n"
    source = prologue + textwrap.dedent(setup) + textwrap.dedent(code)
    proc = subprocess.run([sys.executable, "-c", source],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


SPLIT3 = """
cpu = c.list_physical_devices('CPU')[0]
c.set_logical_device_configuration(cpu, [c.LogicalDeviceConfiguration(),
                                         c.LogicalDeviceConfiguration(memory_limit=1),
                                         c.LogicalDeviceConfiguration()])
"""


def test_listing_devices():
    out = run("""
        print(c.list_physical_devices())
        print(c.list_physical_devices('GPU') == [] or pdt.cuda.is_available())
        print([d.device for d in c.list_logical_devices('CPU')])
    """)
    lines = out.splitlines()
    assert lines[0] == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]" or (
        "GPU" in lines[0])
    assert lines[1] == "True"
    assert lines[2] == "[device(type='cpu')]"


def test_logical_cpu_devices_copies_and_counts():
    out = run(setup=SPLIT3, code="""
        names = [d.name for d in c.list_logical_devices('CPU')]
        print(names)
        print([d.device for d in c.list_logical_devices('CPU')])
        print(pdt.device('cpu') == pdt.device('cpu:0'), repr(pdt.device('cpu:0')))
        x = pdt.arange(6, device='cpu:1')
        pdt.reset_transfer_stats()
        y = x.to('cpu:2')
        z = y.to('cpu:0')
        print(y.device, z.device, z.tolist(), x.to('cpu:1') is x)
        print(pdt.transfer_stats()['peer'])
    """).splitlines()
    assert out[0] == "['/device:CPU:0', '/device:CPU:1', '/device:CPU:2']"
    # once the CPU is split, its first device is named cpu:0 everywhere (issue 17)
    assert out[1] == ("[device(type='cpu', index=0), device(type='cpu', index=1), "
                      "device(type='cpu', index=2)]")
    assert out[2] == "True device(type='cpu', index=0)"
    assert out[3] == "cpu:2 cpu:0 [0, 1, 2, 3, 4, 5] True"
    assert out[4] == "{'count': 2, 'bytes': 96}"


def test_same_device_errors_between_logical_devices():
    out = run(setup=SPLIT3, code="""
        a = pdt.ones(3, device='cpu:0')
        b = pdt.ones(3, device='cpu:1')
        try:
            a.copy_(b)  # copy_ is an explicit copy: allowed between devices
            print("copy ok", a.device)
        except Exception as e:
            print("copy failed", e)
        try:
            pdt.ones(3, device='cpu:5')
        except RuntimeError as e:
            print(e)
        for op in (lambda: a + b, lambda: pdt.matmul(a, b), lambda: a.reshape(1, 3) @ b):
            try:
                op()
            except RuntimeError as e:
                print(e)
    """).splitlines()
    assert out[0] == "copy ok cpu:0"
    gpus = len(pdt.config.list_physical_devices("GPU"))  # the child splits no GPU
    available = ["cpu:0", "cpu:1", "cpu:2"] + [f"cuda:{i}" for i in range(gpus)]
    assert out[1] == (f"cpu:5 unknown device; available: {', '.join(available)} "
                      "(no such device: 3 cpu devices)")
    for line in out[2:5]:
        assert line.startswith("Expected all tensors to be on the same device, but found at "
                               "least two devices, cpu:0 and cpu:1!")
    assert "(in add: argument 'other' is on cpu:1" in out[2]
    assert "(in matmul: argument 'other' is on cpu:1" in out[3]


def test_memory_limit_on_a_logical_device_then_recovery():
    out = run(setup=SPLIT3, code="""
        keep = pdt.zeros(2**17, device='cpu:1')          # 512 KiB of the 1 MiB limit
        try:
            pdt.zeros(2**18, device='cpu:1')              # 1 MiB more: over the limit
        except pdt.OutOfMemoryError as e:
            print(type(e).__mro__[1].__name__, e)
        print(pdt.memory_allocated('cpu:1'), c.get_memory_info('cpu:1'))
        big = pdt.zeros(2**18, device='cpu:0')            # other devices are not limited
        more = pdt.zeros(2**16, device='cpu:1')           # and cpu:1 still works
        print(pdt.memory_allocated('cpu:1'), pdt.memory_stats('cpu:1')['limit'])
        c.set_memory_limit('cpu:1', None)
        huge = pdt.zeros(2**20, device='cpu:1')
        print(pdt.memory_allocated('cpu:1'))
    """).splitlines()
    assert out[0].startswith("MemoryError out of memory on cpu:1: tried to allocate 1.00 MiB; "
                             "512.00 KiB allocated by pydevtensor, limit 1.00 MiB")
    assert "limit 1.00 MiB (512.00 KiB left under it)" in out[0]
    assert "nothing was allocated" in out[0]
    assert out[1] == "524288 {'current': 524288, 'peak': 524288}"
    assert out[2] == "786432 1048576"
    assert out[3] == str(786432 + 4 * 2**20)


def test_visible_devices_before_and_after_initialization():
    out = run("""
        cpu = c.list_physical_devices('CPU')
        c.set_visible_devices(cpu)                 # fine before first use
        c.set_visible_devices([], 'GPU')           # hide every GPU
        print(pdt.device_count(), pdt.try_all_gpus())
        x = pdt.ones(2)                             # first use
        gpus = c.list_physical_devices('GPU')
        # a change (the configuration in force asked for again is accepted, as TF)
        for call in ([lambda: c.set_visible_devices(gpus, 'GPU')] if gpus else []) + [
                lambda: c.set_logical_device_configuration(
                    cpu[0], [c.LogicalDeviceConfiguration()] * 2)]:
            try:
                call()
            except RuntimeError as e:
                print(e)
    """).splitlines()
    assert out[0] == "0 [device(type='cpu')]"
    if pdt.cuda.is_available():
        assert out.pop(1).startswith(
            "Visible devices cannot be modified after being initialized")
    assert out[1].startswith("Virtual devices cannot be modified after being initialized")
    assert "in a notebook, restart the kernel" in out[1]


def test_placement_log_is_visible_without_logging_setup():
    proc = subprocess.run(
        [sys.executable, "-c",
         "import pydevtensor as pdt\n"
         "pdt.config.set_log_device_placement(True)\n"
         "x = pdt.ones(2, 3)\n"
         "y = pdt.tensor([1.0, 2.0])\n"
         "pdt.config.set_log_device_placement(False)\n"
         "z = pdt.zeros(4)\n"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    lines = proc.stderr.splitlines()
    assert "Executing op fill in device cpu" in lines
    assert lines.count("Executing op fill in device cpu") == 1  # none after switching off


def test_placement_log_with_caplog(caplog):
    caplog.set_level("INFO", logger="pydevtensor.placement")
    pdt.config.set_log_device_placement(True)
    try:
        pdt.zeros(2, 3)
        pdt.arange(4)
        pdt.ones(5).to(pdt.float64)
    finally:
        pdt.config.set_log_device_placement(False)
    messages = [r.getMessage() for r in caplog.records if r.name == "pydevtensor.placement"]
    assert "Executing op fill in device cpu" in messages
    assert "Executing op arange in device cpu" in messages
    assert "Executing op copy in device cpu" in messages
    assert pdt.config.get_log_device_placement() is False


def test_copies_between_logical_devices_are_logged():
    out = run(setup=SPLIT3, code="""
        import logging, sys
        logging.basicConfig(stream=sys.stdout, format='%(message)s')
        c.set_log_device_placement(True)
        pdt.ones(3, device='cpu:1').to('cpu:2')
    """).splitlines()
    assert "Executing op fill in device cpu:1" in out
    assert "Copying 12 bytes from cpu:1 to cpu:2" in out


def test_soft_placement_on_and_off():
    out = run("""
        import logging, sys
        logging.basicConfig(stream=sys.stdout, format='%(levelname)s %(message)s')
        n = pdt.device_count()
        try:
            pdt.ones(2, device=f'cuda:{n + 1}')
        except RuntimeError as e:
            print("off:", str(e).split(' (')[0])
        c.set_soft_device_placement(True)
        t = pdt.ones(2, device=f'cuda:{n + 1}')
        print("on:", t.device.type, t.device == pdt.try_gpu())
        print(pdt.ones(2, device='cpu:7').device)
    """).splitlines()
    assert out[0].startswith("off: cuda:") and "unknown device; available: cpu" in out[0]
    assert any(line.startswith("WARNING soft device placement: cuda:") for line in out)
    assert "on: " + ("cuda" if pdt.cuda.is_available() else "cpu") + " True" in out
    assert out[-1] == "cpu"


def test_bad_configuration_arguments():
    out = run("""
        cpu = c.list_physical_devices('CPU')[0]
        for call in (lambda: c.set_logical_device_configuration('cpu', []),
                     lambda: c.LogicalDeviceConfiguration(memory_limit=-1),
                     lambda: c.list_physical_devices('TPU'),
                     lambda: c.set_visible_devices([]),
                     lambda: c.set_visible_devices([], 'CPU'),
                     lambda: c.set_memory_limit('cpu', -5),
                     lambda: c.set_memory_growth('cpu', False),
                     lambda: pdt.cuda.set_per_process_memory_fraction(1.5)):
            try:
                call()
                print("no error")
            except (TypeError, ValueError, RuntimeError) as e:  # InvalidArgumentError: a ValueError
                print("ValueError" if isinstance(e, ValueError) else type(e).__name__)
    """).splitlines()
    assert out == ["TypeError", "ValueError", "ValueError", "ValueError", "ValueError",
                   "ValueError", "ValueError", "ValueError"]


@pytest.mark.cuda
def test_two_logical_gpus_on_one_card():
    out = run("""
        gpu = c.list_physical_devices('GPU')[0]
        c.set_logical_device_configuration(gpu, [c.LogicalDeviceConfiguration(1024),
                                                 c.LogicalDeviceConfiguration(1024)])
        gpus = pdt.try_all_gpus()  # the split card first, then any other physical GPU
        print(gpus[:2], len(gpus) == len(c.list_physical_devices('GPU')) + 1)
        x = pdt.arange(1000, device='cuda:0')
        pdt.reset_transfer_stats()
        y = x.to('cuda:1')
        print(y.device, y.cpu().tolist() == list(range(1000)), pdt.transfer_stats()['peer'])
        try:
            pdt.empty(2**29, device='cuda:1')   # 2 GiB > the 1 GiB limit
        except pdt.OutOfMemoryError as e:
            print("oom", 'limit 1.00 GiB' in str(e))
    """).splitlines()
    assert out[0] == "[device(type='cuda', index=0), device(type='cuda', index=1)] True"
    assert out[1] == "cuda:1 True {'count': 1, 'bytes': 8000}"
    assert out[2] == "oom True"


def test_host_data_beside_a_logical_device_is_an_implicit_copy():
    # t + ndarray, t += ndarray and list / NumPy indices of a tensor on cpu:1 copy the
    # host data there: copies nobody asked for, which the guard refuses and logs as
    # implicit (they passed as explicit ones); on cpu:0 nothing is copied
    out = run(setup=SPLIT3, code="""
        import numpy as np
        b = pdt.ones(3, device='cpu:1')
        calls = {'add': lambda: b + np.ones(3), 'iadd': lambda: b.__iadd__(np.ones(3)),
                 'list index': lambda: b[[0, 1]], 'numpy index': lambda: b[np.array([0])],
                 'bool index': lambda: b[np.array([True, False, True])]}
        for name, call in calls.items():
            r = call()
            assert r.device == pdt.device('cpu:1'), (name, r.device)
            with pdt.transfer_guard('disallow'):
                try:
                    call()
                    print(name, 'passed')
                except pdt.TransferError as e:
                    print(name, 'refused', 'implicit' in str(e) and 'cpu:1' in str(e))
        print(b.tolist())  # the refused iadd wrote nothing
        a = pdt.ones(3, device='cpu:0')
        pdt.reset_transfer_stats()
        with pdt.transfer_guard('disallow'):
            print((a + np.ones(3)).tolist(), a[[0, 2]].tolist())
        print(pdt.transfer_stats()['peer']['count'])
    """).splitlines()
    assert out[:5] == [f"{n} refused True" for n in ("add", "iadd", "list index",
                                                     "numpy index", "bool index")]
    assert out[5] == "[2.0, 2.0, 2.0]"
    assert out[6:] == ["[2.0, 2.0, 2.0] [1.0, 1.0]", "0"]


def test_memory_limit_changes_show_in_the_configuration_and_bad_limits_are_refused():
    out = run(setup=SPLIT3, code="""
        pdt.ones(1, device='cpu:1')
        c.set_memory_limit('cpu:1', None)
        c.set_memory_limit('cpu:2', 3 * 2**20)
        print([d.memory_limit for d in c.get_logical_device_configuration(cpu)])
        for bad in (True, 1.5, '7'):
            try:
                c.set_memory_limit('cpu:2', bad)
            except TypeError as e:
                print(e)
        print(pdt.memory_stats('cpu:2')['limit'])
    """).splitlines()
    assert out[0] == "[None, None, 3.0]"
    assert out[1] == ("set_memory_limit(cpu:2, ...): the limit must be an int number of bytes "
                      "or None, got True (bool)")
    assert "got 1.5 (float)" in out[2] and "got '7' (str)" in out[3]
    assert out[4] == str(3 * 2**20)


def test_memory_growth_off_reserves_without_raising_the_peak():
    out = run(setup=SPLIT3, code="""
        gone = pdt.empty(3000, device='cpu:1')
        keep = pdt.empty(1000, device='cpu:1')
        del gone
        print(pdt.memory_allocated('cpu:1'), pdt.max_memory_allocated('cpu:1'))
        c.experimental.set_memory_growth('cpu:1', False)
        print(pdt.memory_allocated('cpu:1'), pdt.max_memory_allocated('cpu:1'))
        more = pdt.empty(4000, device='cpu:1')
        print(pdt.max_memory_allocated('cpu:1'))
    """).splitlines()
    assert out == ["4000 16000", "4000 16000", "20000"]


@pytest.mark.cuda
def test_memory_queries_on_a_logical_gpu_report_its_limit():
    out = run("""
        gpu = c.list_physical_devices('GPU')[0]
        c.set_logical_device_configuration(gpu, [c.LogicalDeviceConfiguration(300),
                                                 c.LogicalDeviceConfiguration(200)])
        print(pdt.cuda.mem_get_info(0), pdt.cuda.get_device_properties(1).total_memory)
        x = pdt.empty(1000, device='cuda:1')
        print(pdt.cuda.mem_get_info(1))
        c.set_memory_limit('cuda:1', None)
        print(pdt.cuda.mem_get_info(1)[1] == pdt.cuda.get_device_properties(1).total_memory
              > 300 * 2**20)
    """).splitlines()
    assert out == [f"({300 * 2**20}, {300 * 2**20}) {200 * 2**20}",
                   f"({200 * 2**20 - 4000}, {200 * 2**20})", "True"]


def test_cuda_method_follows_soft_placement():
    out = run("""
        import logging, sys
        logging.basicConfig(stream=sys.stdout, format='%(levelname)s %(message)s')
        c.set_visible_devices([], 'GPU')
        x = pdt.ones(2)
        try:
            x.cuda()
        except pdt.DeviceError as e:
            print("off: DeviceError")
        c.set_soft_device_placement(True)
        print(x.cuda().device, x.cuda(1).device, x.cuda('cuda:2').device,
              x.cuda(device=pdt.device('cuda')).tolist())
        try:
            x.cuda('cpu')
        except ValueError as e:
            print(e)
    """).splitlines()
    assert out[0] == "off: DeviceError"
    warnings = [line for line in out if line.startswith("WARNING soft device placement")]
    assert len(warnings) == 4 and "cuda:2 does not exist; using cpu" in warnings[2]
    assert "cpu cpu cpu [1.0, 1.0]" in out
    assert out[-1] == "cuda(): expected a CUDA device, got cpu"


def test_cpu_device_count_counts_logical_cpus():
    assert pdt.cpu.current_device() == "cpu"
    assert run("print(pdt.cpu.device_count())") == "1\n"
    assert run(setup=SPLIT3, code="print(pdt.cpu.device_count(), pdt.cpu.current_device())"
               ) == "3 cpu\n"


def test_the_configuration_in_force_can_be_asked_for_again_after_first_use():
    # TensorFlow returns quietly when set_visible_devices / set_logical_device_configuration
    # ask for what is in force: rerunning a notebook's configuration cell after tensors were
    # made works there; here it raised "cannot be modified after being initialized"
    out = run(setup=SPLIT3, code="""
        cpu = c.list_physical_devices('CPU')
        c.set_visible_devices(cpu)
        c.set_visible_devices([], 'GPU') if not pdt.cuda.is_available() else None
        x = pdt.ones(2, device='cpu:1')                       # first use
        c.set_visible_devices(cpu)                             # the same again: fine
        c.set_logical_device_configuration(cpu[0], [c.LogicalDeviceConfiguration(),
                                                    c.LogicalDeviceConfiguration(memory_limit=1),
                                                    c.LogicalDeviceConfiguration()])
        print(len(c.list_logical_devices('CPU')), x.device)
        for call in (lambda: c.set_logical_device_configuration(
                         cpu[0], [c.LogicalDeviceConfiguration()] * 2),
                     lambda: c.set_logical_device_configuration(cpu[0], [])):
            try:
                call()
                print("no error")
            except RuntimeError as e:
                print(str(e).split(':')[0])
    """).splitlines()
    assert out == ["3 cpu:1", "Virtual devices cannot be modified after being initialized",
                   "Virtual devices cannot be modified after being initialized"]


def test_devices_of_another_type_and_switches_that_are_no_bools_are_refused():
    # set_visible_devices(cpus, 'GPU') hid every GPU without a word (TensorFlow: ValueError);
    # set_soft_device_placement('False') turned soft placement on (bool('False') is True);
    # get_logical_device_configuration('CPU:0') raised AttributeError and, given a
    # LogicalDevice, answered for the physical device of the same index
    out = run("""
        cpu = c.list_physical_devices('CPU')
        for call in (lambda: c.set_visible_devices(cpu, 'GPU'),
                     lambda: c.set_soft_device_placement('False'),
                     lambda: c.set_log_device_placement('False'),
                     lambda: c.set_memory_growth('cpu', 'False'),
                     lambda: c.get_logical_device_configuration('CPU:0'),
                     lambda: c.get_logical_device_configuration(c.LogicalDevice('/device:CPU:0',
                                                                                'CPU')),
                     lambda: c.LogicalDeviceConfiguration(memory_limit='512')):
            try:
                call()
                print("no error")
            except (TypeError, ValueError) as e:
                print(type(e).__name__, e)
        print(c.get_soft_device_placement(), c.get_log_device_placement(),
              c.get_memory_growth('cpu'), c.get_visible_devices('GPU') == c.list_physical_devices('GPU'))
        c.set_soft_device_placement(1)
        c.set_soft_device_placement(0)
        import numpy
        c.set_soft_device_placement(numpy.True_)
        print(c.get_soft_device_placement())
    """).splitlines()
    assert out[0] == ("ValueError set_visible_devices(): /physical_device:CPU:0 is not a GPU "
                      "device (device_type='GPU')")
    for line, name in zip(out[1:4], ("set_soft_device_placement", "set_log_device_placement",
                                     "set_memory_growth")):
        assert line == f"TypeError {name}(): expected a bool, got 'False' (str)"
    assert out[4].startswith("TypeError get_logical_device_configuration(): expected a "
                             "PhysicalDevice") and "'CPU:0' (str)" in out[4]
    assert out[5].startswith("TypeError") and "(LogicalDevice)" in out[5]
    assert out[6] == "TypeError memory_limit must be a number of MB or None, got '512' (str)"
    assert out[7] == "False False True True"  # nothing changed
    assert out[8] == "True"


def test_threading_under_tensorflows_names():
    # tf.config.threading was missing (AttributeError)
    out = run("""
        t = c.threading
        default = pdt.get_num_threads()
        print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())
        t.set_intra_op_parallelism_threads(1)
        t.set_inter_op_parallelism_threads(3)
        t.set_inter_op_parallelism_threads(3)       # the same again: a rerun cell
        x = pdt.arange(100000).sum().item()         # first use; the count may still change
        print(t.get_intra_op_parallelism_threads(), pdt.get_num_threads(),
              t.get_inter_op_parallelism_threads(), pdt.get_num_interop_threads(), x)
        t.set_intra_op_parallelism_threads(0)        # 0: the default again
        print(t.get_intra_op_parallelism_threads(), pdt.get_num_threads() == default)
        for call in (lambda: t.set_inter_op_parallelism_threads(4),
                     lambda: t.set_intra_op_parallelism_threads(-1),
                     lambda: t.set_intra_op_parallelism_threads(2.0)):
            try:
                call()
                print("no error")
            except (TypeError, ValueError, RuntimeError) as e:
                print(type(e).__name__)
        import pydevtensor.config.threading as m
        print(m is t)
    """).splitlines()
    assert out == ["0 0", f"1 1 3 3 {sum(range(100000))}", "0 True", "RuntimeError",
                   "ValueError", "TypeError", "True"]


def test_logical_device_configuration_under_tensorflows_fields_and_limits():
    """TensorFlow's three fields, repr and keywords; a memory_limit under one byte was
    read as no limit (1e-9 MB: 0 bytes), inf and 1e30 MB raised OverflowError from
    int(); the experimental fields, which pydevtensor cannot honour, are refused when
    set, not ignored."""
    out = run("""
        L = c.LogicalDeviceConfiguration
        print(repr(L(memory_limit=512)))
        print(L(1, experimental_priority=-1).experimental_priority, L()._fields)
        for bad in (1e-9, float('inf'), float('nan'), 1e30, 0, -1):
            try:
                L(bad)
                print("no error")
            except ValueError as e:
                print(type(e).__name__, e)
        for kw in ({'experimental_priority': 1.5}, {'experimental_device_ordinal': True}):
            try:
                L(**kw)
            except TypeError as e:
                print(type(e).__name__, e)
        cpu = c.list_physical_devices('CPU')[0]
        try:
            c.set_logical_device_configuration(cpu, [L(), L(experimental_priority=1)])
        except NotImplementedError as e:
            print(type(e).__name__, e)
        print(c.get_logical_device_configuration(cpu))  # nothing was configured
        c.set_logical_device_configuration(cpu, [L(1 / 2**20), L(2**40)])
        print(pdt.memory_stats('cpu:0')['limit'], pdt.memory_stats('cpu:1')['limit'])
    """).splitlines()
    assert out[0] == ("LogicalDeviceConfiguration(memory_limit=512, experimental_priority=None, "
                      "experimental_device_ordinal=None)")
    assert out[1] == ("-1 ('memory_limit', 'experimental_priority', "
                      "'experimental_device_ordinal')")
    assert out[2].startswith("ValueError memory_limit must be between one byte") and \
        "got 1e-09 MB" in out[2]
    assert out[3] == "ValueError memory_limit must be a positive finite number of MB, got inf"
    assert out[4] == "ValueError memory_limit must be a positive finite number of MB, got nan"
    assert out[5].startswith("ValueError memory_limit must be between") and "1e+30" in out[5]
    assert out[6].endswith("got 0") and out[7].endswith("got -1")
    assert out[8] == "TypeError experimental_priority must be an int or None, got 1.5 (float)"
    assert out[9] == ("TypeError experimental_device_ordinal must be an int or None, got True "
                      "(bool)")
    assert out[10].startswith("NotImplementedError set_logical_device_configuration("
                              "/physical_device:CPU:0, ...)") and "experimental_priority=1" in \
        out[10]
    assert out[11] == "None"
    assert out[12] == f"1 {2**60}"


def test_a_device_listed_twice_in_set_visible_devices_is_refused():
    """It made a second logical device on the same physical one (cpu:1 appeared without
    any split; TensorFlow keeps one logical device): now a ValueError, nothing changed."""
    out = run("""
        cpu = c.list_physical_devices('CPU')[0]
        try:
            c.set_visible_devices([cpu, cpu])
        except ValueError as e:
            print(e)
        print(len(c.get_visible_devices('CPU')), len(c.list_logical_devices('CPU')),
              pdt.cpu.device_count())
    """).splitlines()
    assert out == ["set_visible_devices(): /physical_device:CPU:0 is listed twice", "1 1 1"]
