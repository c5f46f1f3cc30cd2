"""Bad-input cases found by the bad-input fuzzer: huge sizes that made a Python loop run
(nearly) forever, dims and arguments of the wrong type that reached a comparison or an
attribute inside the library, in-place comparisons with a non-tensor."""
from bad_input_cases import C

A = "A = pdt.tensor([[.1, .2, .3], [.4, .5, .6]])\n"
F = "F = pdt.nn.functional\n"

FUZZ_CASES = [
    # ---- huge sizes: refused (or out of memory) at once, no loop over them
    C("fuzz-adaptive_avg_pool1d-2**63", A + F + "F.adaptive_avg_pool1d(A, 2**63)",
      "pydevtensor.InvalidArgumentError",
      r"adaptive_avg_pool1d\(\): output_size \(1, 9223372036854775808\) is too large.*2\^62"),
    C("fuzz-adaptive_avg_pool1d-2**40", A + F + "F.adaptive_avg_pool1d(A, 2**40)",
      "pydevtensor.OutOfMemoryError", r"out of memory on cpu.*8\.00 TiB"),
    C("fuzz-AdaptiveAvgPool1d-2**62", A + "pdt.nn.AdaptiveAvgPool1d(2**62)(A)",
      "pydevtensor.InvalidArgumentError", r"output_size \(1, 4611686018427387904\) is too large"),
    C("fuzz-adaptive_avg_pool2d-2**40", A + F + "F.adaptive_avg_pool2d(A[None], (2**40, 2))",
      "pydevtensor.OutOfMemoryError", r"out of memory on cpu"),
    C("fuzz-adaptive_avg_pool3d-2**40", A + F + "F.adaptive_avg_pool3d(A[None, None], 2**40)",
      "pydevtensor.InvalidArgumentError",
      r"adaptive_avg_pool3d\(\): output_size \(1099511627776, 1099511627776, 1099511627776\)"
      r" is too large"),
    C("fuzz-adaptive_max_pool3d-depth-2**40",
      A + F + "F.adaptive_max_pool3d(A[None, None], (2**40, 1, 1))",
      "pydevtensor.OutOfMemoryError", r"out of memory on cpu"),
    C("fuzz-mvlgamma-2**40", A + "pdt.mvlgamma(A + 10, 2**40)", "pydevtensor.OutOfMemoryError",
      r"out of memory on cpu.*4\.00 TiB"),
    C("fuzz-multigammaln-2**63", A + "pdt.special.multigammaln(A + 10, 2**63)", "ValueError",
      r"mvlgamma\(\): p = 9223372036854775808 is too large.*6 elements"),
    C("fuzz-tensor_split-2**40", A + "pdt.tensor_split(A, 2**40, 1)", "ValueError",
      r"tensor_split\(\): sections = 1099511627776 is too large.*dim 1 \(of size 3\)"),
    C("fuzz-tensor_split-2**63", A + "pdt.tensor_split(A, 2**63)", "ValueError",
      r"sections = 9223372036854775808 is too large"),
    C("fuzz-legendre-2**40", A + "pdt.special.legendre_polynomial_p(A, 2**40)", "ValueError",
      r"legendre_polynomial_p\(\): n = 1099511627776 needs .* steps.*2\^20"),
    C("fuzz-hermite-2**40-is-nan",  # PyTorch's NaN above 128 (float32), at once
      A + "r = pdt.special.hermite_polynomial_h(A, 2**40)\n"
      "assert r.isnan().all(), r\nraise ValueError('nan as torch')", "ValueError",
      r"nan as torch"),
    # ---- a dim of the wrong type: TypeError naming it, not a comparison's error
    C("fuzz-flip-dims-str", A + 'pdt.flip(A, "abc")', "TypeError",
      r"flip\(\): argument 'dims' must be an int or a sequence of ints, got str"),
    C("fuzz-flip-dim-float", A + "A.flip(1, 1.5)", "TypeError",
      r"flip\(\): argument 'dim' must be int, got float"),
    C("fuzz-chunk-dim-bool", A + "A.chunk(1, True)", "TypeError",
      r"chunk\(\): argument 'dim' must be int, got bool"),
    C("fuzz-log_softmax-dim-str", A + 'pdt.log_softmax(A, "a")', "TypeError",
      r"log_softmax\(\): argument 'dim' must be int, got str"),
    C("fuzz-vector_norm-dim-str", A + 'pdt.linalg.vector_norm(A, dim=(0, "a"))', "TypeError",
      r"argument 'dim' must be int, got str"),
    C("fuzz-nanquantile-dim-str", A + 'pdt.nanquantile(A, 0.5, dim="a")', "TypeError",
      r"nanquantile\(\): argument 'dim' must be int, got str"),
    C("fuzz-tensordot-dims-str", A + 'pdt.tensordot(A, A, ([1], ["a"]))', "TypeError",
      r"tensordot\(\): argument 'dims' must be int, got str"),
    # ---- an in-place comparison's other of no type it takes: TypeError, as PyTorch's
    C("fuzz-eq_-None", A + "A.eq_(None)", "TypeError",
      r"eq_\(\): argument 'other' must be a Tensor or a number, got NoneType"),
    C("fuzz-less_-str", A + 'A.less_("abc")', "TypeError",
      r"less_\(\): argument 'other' must be a Tensor or a number, got str"),
]
