"""Devices as users write them (issue 17): the default device of the factory functions
(``with pydevtensor.device(d):``, set_default_device), ``cuda.device(i)``,
TensorFlow's device strings and PhysicalDevice/LogicalDevice objects, the names
TensorFlow keeps in ``config.experimental``, ``cpu:0`` once the CPU is split, and
what the error says when devices are configured too late."""
import threading

import pytest

import pydevtensor as pdt
from pydevtensor import config, nn

from test_config import SPLIT3, run


@pytest.fixture(autouse=True)
def default_device_is_cpu():
    assert pdt.get_default_device() == pdt.device("cpu")
    yield
    pdt.set_default_device(None)


FACTORIES = {
    "zeros": lambda: pdt.zeros(2, 3), "ones": lambda: pdt.ones(2), "empty": lambda: pdt.empty(1),
    "full": lambda: pdt.full((2,), 1.5), "arange": lambda: pdt.arange(3),
    "linspace": lambda: pdt.linspace(0, 1, 3), "eye": lambda: pdt.eye(2),
    "rand": lambda: pdt.rand(2), "randn": lambda: pdt.randn(2),
    "randint": lambda: pdt.randint(0, 5, (2,)), "tensor": lambda: pdt.tensor([1.0, 2.0]),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_with_device_is_the_default_of_every_factory(device, name):
    with device as d:
        assert d is device
        assert FACTORIES[name]().device == device
        assert pdt.get_default_device() == device
        assert pdt.ones(2, device="cpu").device == pdt.device("cpu")  # device= still wins
    assert FACTORIES[name]().device == pdt.device("cpu")


def test_like_functions_keep_their_input_device(device):
    x = pdt.ones(2, device=device)
    with pdt.device("cpu"):
        assert pdt.zeros_like(x).device == device


def test_layers_made_in_the_block_live_on_its_device(device):
    with pdt.device(device):
        net = nn.Linear(3, 2)
    assert net.weight.device == device and net.bias.device == device


def test_blocks_nest_restore_on_errors_and_are_per_thread(device):
    seen = []
    with pdt.device(device):
        with pytest.raises(ZeroDivisionError):
            with pdt.device("cpu"):
                assert pdt.ones(1).device == pdt.device("cpu")
                1 / 0
        assert pdt.ones(1).device == device
        thread = threading.Thread(target=lambda: seen.append(pdt.ones(1).device))
        thread.start()
        thread.join()
    assert seen == [pdt.device("cpu")]  # a block is the calling thread's only
    assert pdt.ones(1).device == pdt.device("cpu")


def test_set_default_device_is_the_process_default(device):
    pdt.set_default_device(device)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(pdt.ones(1).device))
    thread.start()
    thread.join()
    assert seen == [device] and pdt.ones(1).device == device
    with pdt.device("cpu"):
        assert pdt.ones(1).device == pdt.device("cpu")
    assert pdt.get_default_device() == device
    pdt.set_default_device("cpu")
    assert pdt.ones(1).device == pdt.device("cpu")


def test_a_default_device_that_does_not_exist_fails_where_it_is_used():
    pdt.set_default_device("cuda:7")  # like PyTorch: not checked until used
    with pytest.raises(RuntimeError, match="cuda:7"):
        pdt.ones(1)
    pdt.set_default_device(None)
    with pytest.raises(TypeError, match="PhysicalDevice"):
        pdt.set_default_device(1.5)


def test_exit_without_enter_raises():
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        pdt.device("cpu").__exit__(None, None, None)


TF_NAMES = {
    "/GPU:0": ("cuda", 0), "/gpu:1": ("cuda", 1), "GPU:1": ("cuda", 1),
    "/device:GPU:2": ("cuda", 2), "/device:CPU:0": ("cpu", 0), "/device:CPU:1": ("cpu", 1),
    "CPU:0": ("cpu", 0), "/cpu:0": ("cpu", 0), "device:GPU:0": ("cuda", 0),
    "/job:localhost/replica:0/task:0/device:GPU:1": ("cuda", 1),
}


@pytest.mark.parametrize("name", TF_NAMES)
def test_tensorflow_device_strings(name):
    d = pdt.device(name)
    assert (d.type, d.index) == TF_NAMES[name]
    assert pdt.device("/GPU") == pdt.device("cuda")  # no index: the current device


@pytest.mark.parametrize("name", ["/TPU:0", "/GPU:x", "/device:", "GPU:-1", "/", ""])
def test_bad_tensorflow_strings_name_the_forms(name):
    with pytest.raises(ValueError, match=r"'/GPU:N', '/device:CPU:N' or 'GPU:N'"):
        pdt.device(name)


def test_tf_device_block_on_the_cpu():
    with pdt.device("/CPU:0"):
        assert pdt.ones(2).device == pdt.device("cpu")


@pytest.mark.cuda
def test_tf_device_block_on_a_gpu():
    with pdt.device("/GPU:0"):
        x = pdt.ones(2, 3)
    assert x.device == pdt.device("cuda:0")


def test_physical_and_logical_devices_are_devices():
    cpu = config.list_physical_devices("CPU")[0]
    logical = config.list_logical_devices("CPU")[0]
    for d in (cpu, logical):
        assert pdt.device(d) == pdt.device("cpu")
        assert pdt.ones(2, device=d).device == pdt.device("cpu")
        assert pdt.ones(2).to(d).device == pdt.device("cpu")
        assert pdt.memory_allocated(d) >= 0
        with pdt.device(pdt.device(d)):
            assert pdt.zeros(1).device == pdt.device("cpu")


@pytest.mark.cuda
def test_gpu_physical_devices_are_devices():
    gpu = config.list_physical_devices("GPU")[0]
    assert pdt.ones(2, device=gpu).device == pdt.device("cuda:0")
    config.experimental.set_memory_growth(gpu, True)
    assert config.experimental.get_memory_growth(gpu) is True
    details = config.experimental.get_device_details(gpu)
    assert details["device_name"] == pdt.cuda.get_device_name(0)


def test_config_experimental_has_tensorflows_names():
    exp = config.experimental
    assert exp.list_physical_devices("CPU") == config.list_physical_devices("CPU")
    assert exp.list_logical_devices("CPU") == config.list_logical_devices("CPU")
    cpu = exp.list_physical_devices("CPU")[0]
    assert exp.get_memory_growth(cpu) is True
    exp.set_memory_growth(cpu, True)
    assert exp.get_device_details(cpu) == {}
    assert exp.VirtualDeviceConfiguration is config.LogicalDeviceConfiguration
    keep = pdt.zeros(1000)
    assert exp.get_memory_usage(cpu) >= 4000
    exp.reset_memory_stats(cpu)
    assert exp.get_memory_info(cpu)["peak"] == exp.get_memory_info(cpu)["current"]
    del keep
    with pytest.raises(RuntimeError, match="restart the kernel"):
        exp.set_virtual_device_configuration(cpu, [exp.VirtualDeviceConfiguration()] * 2)
    for name in exp.__all__:
        assert hasattr(exp, name)


@pytest.mark.cuda
def test_cuda_device_context_sets_the_current_device():
    last = pdt.device_count() - 1
    assert pdt.cuda.current_device() == 0
    with pdt.cuda.device(last):
        assert pdt.cuda.current_device() == last
        assert pdt.ones(1, device="cuda").device == pdt.device("cuda", last)
        with pdt.cuda.device(None):  # None and negative ints change nothing
            assert pdt.cuda.current_device() == last
    assert pdt.cuda.current_device() == 0


def test_cuda_device_context_without_a_gpu():
    with pdt.cuda.device(-1):
        pass
    with pytest.raises(ValueError, match="expects a CUDA device"):
        pdt.cuda.device("cpu")
    if not pdt.cuda.is_available():
        with pytest.raises(RuntimeError, match="cuda:0"):
            with pdt.cuda.device(0):
                pass


def test_split_cpu_names_its_first_device_cpu0():
    out = run(setup=SPLIT3, code="""
        x = pdt.ones(2, device='cpu:0')
        print(repr(pdt.device('cpu')), pdt.device('cpu'), x.device)
        print(repr(x))
        try:
            x + pdt.ones(2, device='cpu:1')
        except RuntimeError as e:
            print(e)
        print(repr(pdt.ones(1, device='/device:CPU:2')))
        print([d._pdt_device for d in c.list_logical_devices('CPU')])
    """).splitlines()
    assert out[0] == "device(type='cpu', index=0) cpu:0 cpu:0"
    assert out[1] == "tensor([1., 1.], device='cpu:0')"
    assert "two devices, cpu:0 and cpu:1!" in out[2]
    assert out[3] == "tensor([1.], device='cpu:2')"
    assert out[4].startswith("[device(type='cpu', index=0), device(type='cpu', index=1)")


def test_configuring_too_late_says_what_to_do():
    out = run("""
        pdt.ones(1)
        cpu = c.list_physical_devices('CPU')[0]
        try:
            c.experimental.set_virtual_device_configuration(
                cpu, [c.LogicalDeviceConfiguration(), c.LogicalDeviceConfiguration()])
        except RuntimeError as e:
            print(e)
    """)
    assert out.startswith("Virtual devices cannot be modified after being initialized")
    assert "in a notebook, restart the kernel" in out


def test_tensorflow_style_configuration_runs_unchanged():
    out = run("""
        cpus = c.experimental.list_physical_devices('CPU')
        c.experimental.set_virtual_device_configuration(
            cpus[0], [c.experimental.VirtualDeviceConfiguration(memory_limit=64),
                      c.experimental.VirtualDeviceConfiguration(memory_limit=64)])
        for gpu in c.experimental.list_physical_devices('GPU'):
            c.experimental.set_memory_growth(gpu, True)
        logical = c.list_logical_devices('CPU')
        with pdt.device(logical[1].name):
            x = pdt.ones(3)
        print(logical[1].name, x.device, pdt.ones(1, device=logical[1]).device)
    """)
    assert out.strip() == "/device:CPU:1 cpu:1 cpu:1"


def test_as_tensor_follows_the_default_device(device):
    """as_tensor with no device= lands on the default device, as PyTorch's device
    context applies to it: arrays, lists and tensors on another device are copied
    there (a counted copy); device= still wins; with the CPU as the default a tensor
    stays where it is and an array is shared, not copied."""
    np = pytest.importorskip("numpy")
    a = np.arange(3.0)
    with pdt.device(device):
        assert pdt.as_tensor(a).device == device
        assert pdt.as_tensor([1, 2]).device == device
        assert pdt.as_tensor(a, device="cpu").device == pdt.device("cpu")
        t = pdt.as_tensor(pdt.ones(2, device="cpu"))
        assert t.device == device
    pdt.set_default_device(device)
    assert pdt.as_tensor(a, dtype=pdt.float32).device == device
    pdt.set_default_device(None)
    shared = pdt.as_tensor(a)
    a[0] = 7.0
    assert shared.device == pdt.device("cpu") and shared[0].item() == 7.0
    x = pdt.ones(2, device=device)
    assert pdt.as_tensor(x) is x


def test_as_tensor_on_a_logical_cpu_default():
    out = run(setup=SPLIT3, code="""
        import numpy as np
        pdt.reset_transfer_stats()
        with pdt.device('cpu:1'):
            t = pdt.as_tensor(np.ones(4, dtype=np.float32))
            u = pdt.as_tensor(pdt.zeros(2, device='cpu:0'))
        print(t.device, u.device, sum(v['count'] for v in pdt.transfer_stats().values()) >= 2)
    """)
    assert out.split() == ["cpu:1", "cpu:1", "True"]
