"""Bad-input cases of torch.cuda's smaller names (tests/test_cuda_api.py, test_events.py):
Event's arguments, cpu.synchronize, device_of, memory_summary, device= keywords, and
tensor() of a tensor.  They hold on every machine: the ones that need a GPU are in
the test files."""
from bad_input_cases import NO_CUDA_63, C

CUDAAPI_CASES = [
    C("cuda-Event-interprocess", "pdt.cuda.Event(interprocess=True)", "NotImplementedError",
      r"interprocess=True.*does not share events between processes"),
    C("cuda-Event-device-positional", "pdt.cuda.Event(True, False, False, 0)", "TypeError",
      r"at most 3 positional arguments"),
    C("cuda-Event-device-cpu", "pdt.cuda.Event(device='cpu')", "ValueError",
      r"Event: expected a CUDA device, got cpu"),
    C("cpu-synchronize-cuda", "pdt.cpu.synchronize('cuda:0')", "ValueError",
      r"cpu.synchronize\(\) expects a CPU device, got cuda:0"),
    C("cpu-synchronize-63", "pdt.cpu.synchronize('cpu:63')", "pydevtensor.DeviceError",
      r"cpu:63 unknown device"),
    C("cuda-device_of-list", "pdt.cuda.device_of([1.0])", "TypeError",
      r"cuda.device_of\(\) expects a tensor, got list"),
    C("cuda-memory_summary-63", "pdt.cuda.memory_summary('cuda:63')",
      "pydevtensor.DeviceError", NO_CUDA_63),
    C("cuda-memory_allocated-device-kw-63", "pdt.cuda.memory_allocated(device=63)",
      "pydevtensor.DeviceError", NO_CUDA_63),
    C("cuda-synchronize-d-kw", "pdt.cuda.synchronize(d=0)", "TypeError",
      r"unexpected keyword argument 'd'"),
    # the device-generic names (pydevtensor/accelerator.py, _streams.py)
    C("accelerator-set_device_index-None", "pdt.accelerator.set_device_index(None)",
      "ValueError", r"set_device_index\(\): expected a device with an index or an int, got None"),
    C("accelerator-device_index-str", "pdt.accelerator.device_index('cuda:0')", "TypeError",
      r"device_index\(\): expected an int or None, got str"),
    C("accelerator-synchronize-float", "pdt.accelerator.synchronize(1.5)", "TypeError",
      r"synchronize\(\): expected a device, a device string, an index or None, got float"),
    C("accelerator-set_stream-int", "pdt.accelerator.set_stream(1)", "TypeError",
      r"set_stream\(\): expected a Stream, got int"),
    C("Stream-device-float", "pdt.Stream(1.5)", "TypeError",
      r"Stream\(\): device must be a device, a device string or a CUDA index, got float"),
    C("Stream-cpu-63", "pdt.Stream('cpu:63')", "pydevtensor.DeviceError", r"cpu:63 unknown device"),
    C("Stream-cpu-record_event", "pdt.Stream('cpu').record_event()", "RuntimeError",
      r"record_event\(\): the CPU has no events"),
    C("Event-enable_timing-int", "pdt.Event('cpu', enable_timing=1)", "TypeError",
      r"Event\(\): enable_timing must be a bool, got int"),
    C("Event-cpu-elapsed_time", "pdt.Event('cpu').elapsed_time(pdt.Event('cpu'))", "ValueError",
      r"both events must be recorded"),
    C("get_device_module-int", "pdt.get_device_module(0)", "RuntimeError",
      r"get_device_module\(\): invalid value of device 0"),
    C("tensor-of-tensor-bad-keyword", "pdt.tensor(t, out=None)", "TypeError",
      r"tensor\(\) got an unexpected keyword argument 'out'"),
]
