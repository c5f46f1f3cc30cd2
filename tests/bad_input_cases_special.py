"""The bad-input catalogue's cases for pydevtensor/_ops_special.py and
pydevtensor.special (logit, xlogy, exp2, sinc, entr, ndtr, ...), pydevtensor.jit and
compile, and the device checks of gather, embedding and cuda.synchronize found by the
D2L tester.  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C, TWO_CPUS

SPECIAL_CASES = [
    C("logit-list", "pdt.logit([0.5])", "TypeError",
      r"logit\(\): argument 'input' must be a Tensor, got list"),
    C("logit-eps-str", "pdt.logit(t, eps='0.1')", "TypeError",
      r"logit\(\): eps must be a float, got str"),
    C("xlogy-two-numbers", "pdt.xlogy(1.0, 2.0)", "TypeError",
      r"xlogy\(\): expected a Tensor for input or other, got two numbers"),
    C("xlogy-other-str", "pdt.xlogy(t, '2')", "TypeError",
      r"xlogy\(\): argument 'other' must be a Tensor or a number, got str"),
    C("xlogy-shapes", "pdt.xlogy(pdt.ones(2), pdt.ones(3))", "ValueError",
      r"shapes \(2,\) and \(3,\) cannot be broadcast"),
    C("exp2-none", "pdt.exp2(None)", "TypeError",
      r"exp2\(\): argument 'input' must be a Tensor, got NoneType"),
    C("sinc-str", "pdt.sinc('a')", "TypeError",
      r"sinc\(\): argument 'input' must be a Tensor, got str"),
    C("special-xlog1py-none", "pdt.special.xlog1py(t, None)", "TypeError",
      r"xlog1py\(\): argument 'other' must be a Tensor or a number, got NoneType"),
    C("special-entr-list", "pdt.special.entr([1.0])", "TypeError",
      r"entr\(\): argument 'input' must be a Tensor, got list"),
    C("compile-not-callable", "pdt.compile(3)", "TypeError",
      r"compile\(\): model must be a Module or a function, got int"),
    C("jit-script-not-callable", "pdt.jit.script('net')", "TypeError",
      r"jit.script\(\): obj must be a Module or a function, got str"),
    C("cuda-synchronize-bad-cpu-string", "pdt.cuda.synchronize('cpu:x')", "ValueError",
      r"invalid device string 'cpu:x'"),
    C("gather-index-on-another-device",
      "pdt.gather(pdt.ones(4, 3, device='cpu:1'), 0, pdt.zeros(1, 3, dtype=pdt.int64))",
      "pydevtensor.DeviceError", r"gather\(\): expected index and input on the same device, "
      r"got index \(1, 3\) on cpu(:0)?, input on cpu:1", setup=TWO_CPUS),
    C("embedding-indices-on-another-device",
      "pdt.nn.functional.embedding(pdt.tensor([1, 2]), pdt.ones(5, 3, device='cpu:1'))",
      "pydevtensor.DeviceError", r"embedding\(\): Expected all tensors to be on the same "
      r"device, but the indices \(2,\) are on cpu(:0)? and weight \(5, 3\) on cpu:1",
      setup=TWO_CPUS),
    C("i0-list", "pdt.i0([1.0])", "TypeError",
      r"i0\(\): argument 'input' must be a Tensor, got list"),
    C("special-ndtri-number", "pdt.special.ndtri(0.5)", "TypeError",
      r"ndtri\(\): argument 'input' must be a Tensor, got float"),
    C("special-erfcx-none", "pdt.special.erfcx(None)", "TypeError",
      r"erfcx\(\): argument 'input' must be a Tensor, got NoneType"),
    C("special-ndtr-int", "pdt.special.ndtr(3)", "TypeError",
      r"ndtr\(\): argument 'input' must be a Tensor, got int"),
    C("igamma-other-number", "pdt.igamma(t, 2.0)", "TypeError",
      r"igamma\(\): argument 'other' must be a Tensor, got float"),
    C("igammac-integers", "pdt.igammac(pdt.tensor([1]), pdt.tensor([2]))",
      "NotImplementedError", r"igammac\(\): not implemented for pydevtensor.int64"),
    C("special-gammainc-list", "pdt.special.gammainc([1.0], t)", "TypeError",
      r"gammainc\(\): argument 'input' must be a Tensor, got list"),
    C("special-gammaincc-shapes", "pdt.special.gammaincc(pdt.ones(2), pdt.ones(3))",
      "RuntimeError", r"The size of tensor a \(2\) must match the size of tensor b \(3\)"),
]
