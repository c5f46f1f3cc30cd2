"""The bad-input catalogue's cases found by the second bad-input fuzzer round: scalar
arguments used before they were checked, sizes and sequences iterated unchecked, and
tolerances and bounds accepted though meaningless.  tests/bad_input_cases.py (where
Case is) adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

_A = "A = pdt.tensor([[.1, .2, .3], [.4, .5, .6]])\n"

FUZZ2_CASES = [
    # ---- a scalar argument checked before it is used (TypeError naming it)
    C("fuzz2-isclose-rtol-str", _A + 'pdt.isclose(A, A, "abc")', "TypeError",
      r"isclose\(\): argument 'rtol' must be a number, got str"),
    C("fuzz2-allclose-rtol-none", _A + "pdt.allclose(A, A, None)", "TypeError",
      r"allclose\(\): argument 'rtol' must be a number, got None"),
    C("fuzz2-isclose-rtol-nan", _A + "pdt.isclose(A, A, float('nan'))",
      "pydevtensor.InvalidArgumentError", r"isclose\(\): rtol and atol must be greater.*nan"),
    C("fuzz2-allclose-atol-nan", _A + "pdt.allclose(A, A, 1e-5, float('nan'))",
      "pydevtensor.InvalidArgumentError", r"atol=nan"),
    C("fuzz2-vector_norm-ord-str", _A + 'pdt.linalg.vector_norm(A, "abc")', "TypeError",
      r"linalg\.vector_norm\(\): argument 'ord' must be a number, got str"),
    C("fuzz2-dist-p-str", _A + 'pdt.dist(A, A, "abc")', "TypeError",
      r"dist\(\): argument 'p' must be a number, got str"),
    C("fuzz2-normalize-p-str", _A + 'pdt.nn.functional.normalize(A, p="abc")', "TypeError",
      r"normalize\(\): argument 'p' must be a number, got str"),
    C("fuzz2-pairwise_distance-p-str", _A + 'pdt.nn.functional.pairwise_distance(A, A, p="abc")',
      "TypeError", r"pairwise_distance\(\): argument 'p' must be a number, got str"),
    C("fuzz2-std-correction-str", _A + 'pdt.std(A, correction="abc")', "TypeError",
      r"std\(\): argument 'correction' must be a number, got str"),
    C("fuzz2-var_mean-correction-str", _A + 'pdt.var_mean(A, correction="abc")', "TypeError",
      r"var_mean\(\): argument 'correction' must be a number, got str"),
    C("fuzz2-pinverse-rcond-object", _A + "pdt.pinverse(A, object())", "TypeError",
      r"pinverse\(\): argument 'rcond' must be a number, got object"),
    C("fuzz2-matrix_rank-tol-object", _A + "pdt.linalg.matrix_rank(A, object())", "TypeError",
      r"linalg\.matrix_rank\(\): argument 'tol' must be a number, got object"),
    C("fuzz2-pinv-atol-str", _A + 'pdt.linalg.pinv(A, atol="abc")', "TypeError",
      r"linalg\.pinv\(\): argument 'atol' must be a number, got str"),
    C("fuzz2-lstsq-rcond-str", _A + 'pdt.linalg.lstsq(A, A, "abc")', "TypeError",
      r"linalg\.lstsq\(\): argument 'rcond' must be a number, got str"),
    C("fuzz2-vander-N-str", _A + 'pdt.linalg.vander(A, N="abc")', "TypeError",
      r"linalg\.vander\(\): argument 'N' must be an int, got str"),
    C("fuzz2-gumbel_softmax-tau-str", _A + 'pdt.nn.functional.gumbel_softmax(A, "abc")',
      "TypeError", r"gumbel_softmax\(\): argument 'tau' must be a number, got str"),
    C("fuzz2-histc-min-object", _A + "pdt.histc(A, min=object())", "TypeError",
      r"histc\(\): argument 'min' must be a number, got object"),
    C("fuzz2-hamming_window-beta-str", 'pdt.hamming_window(5, beta="abc")', "TypeError",
      r"hamming_window\(\): argument 'beta' must be a number, got str"),
    C("fuzz2-trapz-dx-object", _A + "pdt.trapz(A, dx=object())", "TypeError",
      r"argument 'dx' must be a number, got object"),
    C("fuzz2-softmax-stacklevel-str", _A + 'pdt.nn.functional.softmax(A, None, "abc")',
      "TypeError", r"softmax\(\): argument '_stacklevel' must be an int, got str"),
    C("fuzz2-conv_transpose-output_size-str",
      'pdt.nn.ConvTranspose1d(3, 3, 3)(pdt.ones(1, 3, 4), output_size="abc")', "TypeError",
      r"ConvTranspose1d\(\): argument 'output_size' must be a sequence of ints, got str"),
    C("fuzz2-rrelu-lower-nan", _A + "pdt.nn.functional.rrelu(A, float('nan'))", "ValueError",
      r"rrelu\(\): the lower bound must be finite, got nan"),
    C("fuzz2-rrelu_-upper-inf", _A + "pdt.nn.functional.rrelu_(A, 0.1, float('inf'))",
      "ValueError", r"rrelu\(\): the upper bound must be finite, got inf"),
]
