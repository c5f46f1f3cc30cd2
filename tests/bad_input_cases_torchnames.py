"""The bad-input catalogue's cases for more of PyTorch's top-level names
(_ops_creation_more.py: asarray, frombuffer, scalar_tensor, the windows).
tests/bad_input_cases.py (where Case is) adds them to CASES; tests/test_bad_input.py runs
them."""
from bad_input_cases import C

TORCHNAMES_CASES = [
    C("asarray-copy-false-dtype", "pdt.asarray(t, dtype=pdt.float64, copy=False)", "ValueError",
      r"can't alias tensor with dtype .*float32 into dtype .*float64"),
    C("asarray-copy-false-list", "pdt.asarray([1, 2], copy=False)", "ValueError",
      r"can't alias arbitrary sequence into a tensor"),
    C("frombuffer-list", "pdt.frombuffer([1, 2], dtype=pdt.float32)", "ValueError",
      r"object does not implement Python buffer protocol"),
    C("frombuffer-count", "pdt.frombuffer(bytearray(8), dtype=pdt.float32, count=3)",
      "ValueError", r"requested buffer length \(3 \* 4 bytes\) after offset \(0 bytes\)"),
    C("frombuffer-offset", "pdt.frombuffer(bytearray(8), dtype=pdt.uint8, offset=-1)",
      "ValueError", r"offset \(-1 bytes\) must be non-negative"),
    C("scalar_tensor-tensor", "pdt.scalar_tensor(t)", "TypeError",
      r"argument 's' \(position 1\) must be Number, not Tensor"),
] + [
    C(f"{n}-negative", f"pdt.{n}(-1)", "RuntimeError",
      rf"{n} requires non-negative window_length, got window_length=-1")
    for n in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
              "kaiser_window")
] + [
    C("hann_window-int-dtype", "pdt.hann_window(4, dtype=pdt.int64)", "RuntimeError",
      r"hann_window expects floating point dtypes"),
    C("kaiser_window-float-length", "pdt.kaiser_window(4.0)", "TypeError",
      r"argument 'window_length' \(position 1\) must be int, not float"),
]
