"""The bad-input catalogue's cases for the math names (tensor_trig.c, _ops_trig.py: tan,
asin .. atanh and their arc* names, sinh, cosh, atan2, log2, log10, rsqrt, erfinv, deg2rad,
rad2deg, logcumsumexp), logspace, histogram, cov and corrcoef.  tests/bad_input_cases.py
(where Case is) adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

_UNARY = ["tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "arcsin", "arccos",
          "arctan", "arcsinh", "arccosh", "arctanh", "log2", "log10", "rsqrt", "erfinv", "sinh",
          "cosh"]

MATHNAMES_CASES = [
    C(f"{n}-out-shape", f"pdt.{n}(t, out=pdt.zeros(7))", "ValueError", r"shape|size")
    for n in _UNARY
] + [
    C("tan-int-inplace", "ti.tan_()", "TypeError",
      r"can't be cast to the desired output type int32"),
    C("asin-list", "pdt.asin([0.5])", "TypeError", r"Tensor"),
    C("atan2-shapes", "pdt.atan2(pdt.ones(2), pdt.ones(3))", "ValueError",
      r"shapes \(2,\) and \(3,\) cannot be broadcast"),
    C("arctan2-two-numbers", "pdt.arctan2(1.0, 2.0)", "TypeError",
      r"at least one of 'input' and 'other' must be a Tensor"),
    C("atan2-int-inplace", "ti.atan2_(ti)", "TypeError",
      r"can't be cast to the desired output type int32"),
    C("deg2rad-list", "pdt.deg2rad([180.0])", "TypeError",
      r"deg2rad\(\): argument 'input' must be a Tensor, got list"),
    C("rad2deg-str", "pdt.rad2deg('pi')", "TypeError",
      r"rad2deg\(\): argument 'input' must be a Tensor, got str"),
    C("logcumsumexp-int", "pdt.logcumsumexp(ti, 0)", "TypeError",
      r"logcumsumexp\(\): expected a floating point tensor, got .*int32 \(shape \(6,\), on cpu\)"),
    C("logcumsumexp-dim", "pdt.logcumsumexp(t, 2)", "IndexError",
      r"logcumsumexp\(\): Dimension out of range \(expected to be in range of \[-2, 1\], "
      r"but got 2\) \(a tensor of shape \(2, 3\) on cpu\)"),
    C("logspace-steps", "pdt.logspace(0, 1, -1)", "ValueError", r"steps must be >= 0, got -1"),
    C("logspace-base-str", "pdt.logspace(0, 1, 3, base='e')", "TypeError",
      r"logspace\(\): base must be a number, got str"),
    C("logspace-int-inf-end", "pdt.logspace(0, float('inf'), 3, dtype=pdt.int64)",
      "ValueError", r"logspace\(\): end inf cannot be converted to pydevtensor.int64 without "
      r"overflow"),
    C("logspace-int-start-str", "pdt.logspace('a', 1, 3, dtype=pdt.int32)", "TypeError",
      r"logspace\(\): argument 'start' must be a number, got str"),
    C("histogram-int", "pdt.histogram(ti, 3)", "NotImplementedError",
      r"histogram\(\): expected a floating point input, got .*int32 \(input \(6,\), on cpu\)"),
    C("histogram-bins", "pdt.histogram(t, 0)", "RuntimeError", r"bins must be > 0, got 0"),
    C("histogram-range", "pdt.histogram(t, 3, range=(2.0, 1.0))", "RuntimeError",
      r"max must be larger than min"),
    C("histogram-weight", "pdt.histogram(t, 3, weight=pdt.ones(5))", "RuntimeError",
      r"weight must be a tensor of input's shape \(2, 3\)"),
    C("histogramdd-1d", "pdt.histogramdd(pdt.ones(3), 2)", "RuntimeError",
      r"histogramdd\(\): input must have at least 2 dimensions \(points along its last\) "
      r"\(input \(3,\), on cpu\)"),
    C("histogramdd-bins-count", "pdt.histogramdd(t, [2, 2])", "RuntimeError",
      r"2 bins for 3-dimensional points"),
    C("histogramdd-range-count", "pdt.histogramdd(t, 2, range=[0.0, 1.0])", "RuntimeError",
      r"for a 3-dimensional histogram range should have 6 elements, got 2"),
    C("histogramdd-weight", "pdt.histogramdd(t, 2, weight=pdt.ones(3))", "RuntimeError",
      r"weight must be a tensor of input's shape without its last dimension, \(2,\)"),
    C("set_-past-the-storage", "pdt.zeros(1).set_(pdt.arange(4.0), 2, (3,))", "RuntimeError",
      r"out of bounds for a storage of 4 elements"),
    C("set_-dtype", "pdt.zeros(1, dtype=pdt.float64).set_(pdt.arange(4.0))", "RuntimeError",
      r"could not set a tensor of .*float64 to a source of .*float32"),
    C("is_set_to-int", "t.is_set_to(3)", "TypeError", r"is_set_to\(\): expected a Tensor, "
      r"got int"),
    C("cov-3d", "pdt.cov(pdt.zeros(2, 2, 2))", "RuntimeError",
      r"two or fewer dimensions, got shape \(2, 2, 2\) \(on cpu\)"),
    C("cov-fweights-float", "pdt.cov(t, fweights=pdt.ones(3))", "RuntimeError",
      r"fweights to have an integral dtype"),
    C("cov-fweights-negative", "pdt.cov(t, fweights=pdt.tensor([1, -1, 2]))", "RuntimeError",
      r"cov\(\): fweights cannot be negative \(shape \(3,\), pydevtensor.int64, on cpu\)"),
    C("cov-aweights-negative", "pdt.cov(t, aweights=pdt.tensor([1.0, -1.0, 2.0]))",
      "RuntimeError", r"cov\(\): aweights cannot be negative"),
    C("corrcoef-3d", "pdt.corrcoef(pdt.zeros(1, 1, 1))", "RuntimeError",
      r"corrcoef\(\): expected input to have two or fewer dimensions"),
    C("arange-1d-tensor", "pdt.arange(pdt.tensor([1.0, 2.0]))", "TypeError",
      r"only integer tensors of a single element can be converted to an index"),
]
