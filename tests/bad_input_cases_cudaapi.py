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
    C("tensor-of-tensor-bad-keyword", "pdt.tensor(t, out=None)", "TypeError",
      r"tensor\(\) got an unexpected keyword argument 'out'"),
]
