"""torch.cuda's monitoring functions (pydevtensor/_cuda_monitor.py): utilization,
memory_usage, temperature, power_draw, clock_rate and list_gpu_processes through pynvml
(a stand-in here, which records the PCI address asked for), and without it."""
import sys

import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_DEVICES


MONITORS = ["utilization", "memory_usage", "temperature", "power_draw", "clock_rate"]


@pytest.mark.parametrize("name", MONITORS)
def test_monitoring_without_pynvml_raises_module_not_found_as_torch(name, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml fails
    with pytest.raises(ModuleNotFoundError, match=rf"cuda\.{name}\(\): nvidia-ml-py does "
                                                  r"not seem to be installed"):
        getattr(pdt.cuda, name)()
    assert pdt.cuda.list_gpu_processes() == ("pynvml module not found, please install "
                                             "nvidia-ml-py")  # PyTorch's answer, no error


class _FakeNvml:
    """What pynvml answers, per PCI bus id; records the ids asked for."""

    NVML_TEMPERATURE_GPU, NVML_CLOCK_SM = 0, 1

    class NVMLError_DriverNotLoaded(Exception):
        pass

    def __init__(self, driver=True):
        self.asked, self.driver = [], driver

    def nvmlInit(self):
        if not self.driver:
            raise self.NVMLError_DriverNotLoaded()

    def nvmlDeviceGetHandleByPciBusId(self, bus_id):
        self.asked.append(bus_id)
        return bus_id

    def nvmlDeviceGetUtilizationRates(self, h):
        return type("Rates", (), {"gpu": 37, "memory": 12})()

    def nvmlDeviceGetTemperature(self, h, sensor):
        return {self.NVML_TEMPERATURE_GPU: 55}[sensor]

    def nvmlDeviceGetPowerUsage(self, h):
        return 123456

    def nvmlDeviceGetClockInfo(self, h, clock):
        return {self.NVML_CLOCK_SM: 1980}[clock]

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        return [type("P", (), {"pid": 4242, "usedGpuMemory": 3 * 2**20})()]


@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_monitoring_asks_nvml_for_the_gpu_at_the_devices_pci_address(dev, monkeypatch):
    nvml = _FakeNvml()
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    p = pdt.cuda.get_device_properties(dev)
    bus_id = f"{p.pci_domain_id:08X}:{p.pci_bus_id:02X}:{p.pci_device_id:02X}.0"
    got = [getattr(pdt.cuda, name)(dev) for name in MONITORS]
    assert got == [37, 12, 55, 123456, 1980] and nvml.asked == [bus_id] * len(MONITORS)
    index = pdt.device(dev).index
    assert pdt.cuda.list_gpu_processes(dev) == (f"GPU:{index}\nprocess       4242 uses "
                                                f"       3.000 MB GPU memory")
    with pdt.cuda.device(dev):
        assert pdt.cuda.temperature() == 55 and nvml.asked[-1] == bus_id
    nvml.driver = False
    with pytest.raises(RuntimeError, match=r"cuda\.power_draw\(\): cuda driver can't be "
                                           r"loaded"):
        pdt.cuda.power_draw(dev)
    assert pdt.cuda.list_gpu_processes(dev) == "cuda driver can't be loaded, is cuda enabled?"


@pytest.mark.skipif(CUDA_AVAILABLE, reason="the answers without a GPU")
def test_monitoring_with_pynvml_and_no_gpu_names_the_missing_device(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", _FakeNvml())
    with pytest.raises(pdt.DeviceError, match="cuda:0"):
        pdt.cuda.utilization()
    with pytest.raises(pdt.DeviceError, match="cuda:0"):
        pdt.cuda.list_gpu_processes()


@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_list_gpu_processes_when_nvml_does_not_report_their_memory(dev, monkeypatch):
    """pynvml gives usedGpuMemory None for NVML_VALUE_NOT_AVAILABLE (no permission to
    read it, some virtual GPUs): said in the text, where PyTorch's raises TypeError."""
    nvml = _FakeNvml()
    nvml.nvmlDeviceGetComputeRunningProcesses = lambda h: [
        type("P", (), {"pid": 7, "usedGpuMemory": None})(),
        type("P", (), {"pid": 8, "usedGpuMemory": 2**19})()]
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    index = pdt.device(dev).index
    assert pdt.cuda.list_gpu_processes(dev).split("\n") == [
        f"GPU:{index}", "process          7 uses an amount of GPU memory NVML does not report",
        "process          8 uses        0.500 MB GPU memory"]
