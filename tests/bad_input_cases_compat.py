"""Bad-input cases of the PyTorch-compatibility names (datafix): the legacy
constructors, strided views, products, precision switches, assert_close and the
DataLoader's argument conflicts."""
from bad_input_cases import C

COMPAT_CASES = [
    C("Tensor-legacy-mixed", "pdt.Tensor(2, 'x')", "TypeError",
      r"Tensor\(\) received an invalid combination of arguments \(int, str\)"),
    C("FloatTensor-float", "pdt.FloatTensor(2.5)", "TypeError",
      r"FloatTensor\(\): data must be a sequence \(got float\)"),
    C("LongTensor-of-float-tensor", "pdt.LongTensor(t)", "TypeError",
      r"LongTensor\(t\): t is a pydevtensor.float32 tensor on cpu"),
    C("as_strided-out-of-storage", "pdt.as_strided(pdt.zeros(4), (3, 3), (2, 2))",
      "RuntimeError", r"sizes \(3, 3\), strides \(2, 2\) and storage offset 0 reach element 8, "
      r"out of bounds for a storage of 4 elements \(float32, on cpu\)"),
    C("as_strided-lengths", "pdt.as_strided(t, (3,), (1, 1))", "ValueError",
      r"mismatch in length of strides and shape"),
    C("unfold-too-big", "pdt.zeros(4).unfold(0, 5, 1)", "RuntimeError",
      r"maximum size for tensor at dimension 0 is 4 but size is 5 \(a tensor of shape \(4,\) "
      r"on cpu\)"),
    C("put-out-of-range", "pdt.put(pdt.zeros(4), pdt.tensor([4]), pdt.tensor([1.0]))",
      "IndexError", r"put\(\): index 4 is out of bounds for a tensor of 4 elements"),
    C("put-dtype", "pdt.zeros(3).put_(pdt.tensor([0]), pdt.tensor([1.0], dtype=pdt.float64))",
      "RuntimeError", r"put\(\): self \(pydevtensor.float32\) and source \(pydevtensor.float64\) "
      r"must have the same dtype \(a tensor of shape \(3,\) on cpu\)"),
    C("trace-1d", "pdt.trace(pdt.zeros(3))", "RuntimeError",
      r"trace\(\): expected a matrix, but got tensor with dim 1"),
    C("kron-ndarray", "pdt.kron(t, np.zeros(2))", "TypeError", r"kron"),
    C("tensordot-sizes", "pdt.tensordot(pdt.zeros(2, 3), pdt.zeros(2, 3), dims=1)",
      "RuntimeError", r"contracted dimensions need to match, but first has size 3 in dim 1 "
      r"and second has size 2 in dim 0"),
    C("fill_diagonal_-unequal", "pdt.zeros(2, 3, 2).fill_diagonal_(1)", "RuntimeError",
      r"all dimensions of input must be of equal length, got shape \(2, 3, 2\)"),
    C("mm-out-dtype", "pdt.mm(pdt.zeros(2, 2), pdt.zeros(2, 2), "
      "out=pdt.zeros(2, 2, dtype=pdt.float64))", "RuntimeError",
      r"Expected out tensor to have dtype pydevtensor.float32, but got pydevtensor.float64"),
    C("stack-floats", "pdt.stack([1.0, 2.0])", "TypeError",
      r"stack\(\): expected a sequence of Tensors, got float at position 0"),
    C("normal-negative-std-tensor", "pdt.normal(pdt.zeros(2), pdt.tensor([1.0, -1.0]))",
      "RuntimeError", r"normal expects all elements of std >= 0.0 \(std of shape \(2,\) on cpu\)"),
    C("set_float32_matmul_precision-int", "pdt.set_float32_matmul_precision(1)", "TypeError",
      r"precision must be a str"),
    C("get_float32_matmul_precision-arg", "pdt.get_float32_matmul_precision('high')",
      "TypeError", r"positional argument"),
    C("use_deterministic_algorithms-int", "pdt.use_deterministic_algorithms(1)", "TypeError",
      r"argument 'mode' must be bool, not int"),
    C("are_deterministic_algorithms_enabled-arg", "pdt.are_deterministic_algorithms_enabled(1)",
      "TypeError", r"positional argument"),
    C("is_deterministic_algorithms_warn_only_enabled-arg",
      "pdt.is_deterministic_algorithms_warn_only_enabled(1)", "TypeError",
      r"positional argument"),
    C("assert_close-one-tolerance", "pdt.testing.assert_close(t, t, rtol=1e-3)", "ValueError",
      r"Both 'rtol' and 'atol' must be either specified or omitted"),
    C("DataLoader-sampler-and-shuffle",
      "pdt.utils.data.DataLoader([1, 2], sampler=[0, 1], shuffle=True)", "ValueError",
      r"sampler option is mutually exclusive with shuffle"),
    C("DataLoader-prefetch-without-workers",
      "pdt.utils.data.DataLoader([1, 2], prefetch_factor=2)", "ValueError",
      r"prefetch_factor option could only be specified in multiprocessing"),
    C("WeightedRandomSampler-2d", "pdt.utils.data.WeightedRandomSampler([[1.0]], 1)",
      "ValueError", r"weights should be a 1d sequence but given weights have shape \(1, 1\)"),
]
