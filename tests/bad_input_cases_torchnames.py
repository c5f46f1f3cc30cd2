"""The bad-input catalogue's cases for more of PyTorch's top-level names
(_ops_creation_more.py: asarray, frombuffer, scalar_tensor, the windows;
_ops_torch_names.py: the in-place forms, detach, fill, get_device, typename and the
nn.functional ops at the top level; _control_flow.py: cond and while_loop).
tests/bad_input_cases.py (where Case is) adds them to CASES; tests/test_bad_input.py runs
them."""
from bad_input_cases import C

# the in-place forms of _ops_torch_names.py: each refuses a list, and a float result for
# an int tensor where its op gives one
_IN_PLACE = ["abs_", "ceil_", "clamp_", "clip_", "detach_", "fill_", "fix_", "floor_",
             "frac_", "gcd_", "lcm_", "neg_", "negative_", "round_", "square_", "trunc_",
             "zero_", "xlogy_", "ldexp_", "reciprocal_"]
_FLOAT_IN_PLACE = ["acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                   "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "cos_", "cosh_",
                   "deg2rad_", "erf_", "erfc_", "exp2_", "expm1_", "i0_", "log10_", "log1p_",
                   "log2_", "log_", "logit_", "rad2deg_", "rsqrt_", "sin_", "sinc_", "sinh_",
                   "sqrt_", "tan_"]
# nn.functional's own functions under their top-level names: given a list
_FUNCTIONAL = {"conv1d": "(t, t)", "conv2d": "(t, t)", "conv3d": "(t, t)",
               "conv_transpose1d": "(t, t)", "conv_transpose2d": "(t, t)",
               "conv_transpose3d": "(t, t)", "pixel_shuffle": "(t, 2)",
               "pixel_unshuffle": "(t, 2)", "channel_shuffle": "(t, 4)", "prelu": "(t, t)",
               "bilinear": "(t, t, t)", "pairwise_distance": "(t, pdt.ones(5))",
               "avg_pool1d": "(t, 5)", "adaptive_avg_pool1d": "(t, 2)",
               "rms_norm": "(t, [5])", "layer_norm": "(t, [5])", "group_norm": "(t, 4)"}

TORCHNAMES_CASES = [
    # torch.cond / torch.while_loop in eager mode (_control_flow.py)
    C("cond-pred-two-elements", "pdt.cond(tb, lambda x: x, lambda x: x, (t,))", "RuntimeError",
      r"cond\(\): expected pred to be bool or single-element tensor, but got a tensor of "
      r"shape \(2,\)"),
    C("cond-dtypes-differ", "pdt.cond(tb[0], lambda x: x + 1, lambda x: x.long(), (t,))",
      "RuntimeError", r"cond\(\): leaf 0 of the true branch and the false branch differ: a "
      r"pydevtensor.float32 tensor"),
    C("while_loop-cond-1d", "pdt.while_loop(lambda i: tb, lambda i: (i + 1,), (ti,))",
      "RuntimeError", r"while_loop\(\): cond_fn must return a boolean scalar tensor or a "
      r"boolean but got a pydevtensor.bool tensor of shape \(2,\)"),
    C("while_loop-carried-float", "pdt.while_loop(lambda x: True, lambda x: (x,), (0.5,))",
      "RuntimeError", r"tensor or int leaves, but got a leaf of type float"),
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
    C("fill-list", "pdt.fill([1.0], 2.0)", "TypeError", r"fill\(\): argument 'input'"),
    C("detach-list", "pdt.detach([1.0])", "TypeError", r"detach\(\): argument 'input'"),
    C("get_device-int", "pdt.get_device(3)", "TypeError", r"get_device\(\): argument 'input'"),
    C("typename-no-object", "pdt.typename()", "TypeError", r"missing 1 required positional"),
    C("hardshrink-list", "pdt.hardshrink([1.0])", "TypeError",
      r"hardshrink\(\): input must be a Tensor, got list"),
    C("selu-list", "pdt.selu([1.0])", "TypeError",
      r"selu\(\): input must be a Tensor, got list"),
    C("selu_-list", "pdt.selu_([1.0])", "TypeError",
      r"selu_\(\): argument 'input' must be a Tensor, got list"),
    C("celu-list", "pdt.celu([1.0])", "TypeError",
      r"celu\(\): input must be a Tensor, got list"),
    C("celu_-list", "pdt.celu_([1.0])", "TypeError",
      r"celu_\(\): argument 'input' must be a Tensor, got list"),
    C("rrelu-list", "pdt.rrelu([1.0])", "TypeError",
      r"rrelu\(\): input must be a Tensor, got list"),
    C("rrelu_-list", "pdt.rrelu_([1.0])", "TypeError",
      r"rrelu_\(\): argument 'input' must be a Tensor, got list"),
    C("threshold-list", "pdt.threshold([1.0], 0.0, 1.0)", "TypeError",
      r"threshold\(\): input must be a Tensor, got list"),
    C("threshold_-list", "pdt.threshold_([1.0], 0.0, 1.0)", "TypeError",
      r"threshold\(\): input must be a Tensor, got list"),
    C("kaiser_window-float-length", "pdt.kaiser_window(4.0)", "TypeError",
      r"argument 'window_length' \(position 1\) must be int, not float"),
    # the dtype predicates of _ops_real.py
    C("is_conj-list", "pdt.is_conj([1.0])", "TypeError",
      r"is_conj\(\): argument 'input' must be a Tensor, got list"),
    C("is_neg-none", "pdt.is_neg(None)", "TypeError",
      r"is_neg\(\): argument 'input' must be a Tensor, got NoneType"),
    C("is_signed-int", "pdt.is_signed(3)", "TypeError",
      r"is_signed\(\): argument 'input' must be a Tensor, got int"),
    C("is_same_size-list", "pdt.is_same_size(t, [1.0])", "TypeError",
      r"is_same_size\(\): argument 'other' must be a Tensor, got list"),
    # the max pools at the top level and nn.functional's *_with_indices
    C("max_pool1d-list", "pdt.max_pool1d([1.0], 2)", "TypeError",
      r"max_pool1d\(\): input must be a Tensor, got list"),
    C("max_pool2d-zero-kernel", "pdt.max_pool2d(pdt.ones(1, 1, 4, 4), 0)", "ValueError",
      r"max_pool2d\(\): kernel_size must be positive, got kernel_size=\(0, 0\)"),
    C("max_pool3d-list", "pdt.max_pool3d([1.0], 2)", "TypeError",
      r"max_pool3d\(\): input must be a Tensor, got list"),
    C("max_pool1d_with_indices-extra-arg",
      "pdt.max_pool1d_with_indices(pdt.ones(1, 1, 4), 2, 2, 0, 1, False, False, 9)",
      "TypeError", r"too many positional arguments"),
    C("adaptive_max_pool1d-negative", "pdt.adaptive_max_pool1d(pdt.ones(1, 1, 4), -1)",
      "ValueError", r"adaptive_max_pool1d\(\): output_size must"),
    C("max_pool2d_with_indices-zero-kernel",
      "pdt.nn.functional.max_pool2d_with_indices(pdt.ones(1, 1, 4, 4), 0)", "ValueError",
      r"kernel_size must be positive, got kernel_size=\(0, 0\)"),
    C("max_pool3d_with_indices-list", "pdt.nn.functional.max_pool3d_with_indices([1.0], 2)",
      "TypeError", r"max_pool3d\(\): input must be a Tensor, got list"),
    C("adaptive_max_pool2d_with_indices-list",
      "pdt.nn.functional.adaptive_max_pool2d_with_indices([1.0], 2)", "TypeError",
      r"adaptive_max_pool2d\(\): input must be a Tensor"),
    C("adaptive_max_pool3d_with_indices-negative",
      "pdt.nn.functional.adaptive_max_pool3d_with_indices(pdt.ones(1, 1, 2, 2, 2), -1)",
      "ValueError", r"adaptive_max_pool3d\(\): output_size must be non-negative, got "
      r"output_size=\(-1, -1, -1\)"),
    C("fractional_max_pool2d_with_indices-no-size",
      "pdt.nn.functional.fractional_max_pool2d_with_indices(pdt.ones(1, 1, 4, 4), 2)",
      "ValueError", r"requires specifying either an output_size or an output_ratio"),
    C("fractional_max_pool3d_with_indices-too-large",
      "pdt.nn.functional.fractional_max_pool3d_with_indices(pdt.ones(1, 1, 2, 2, 2), 2, "
      "output_size=1)", "ValueError", r"pool time 2 too large relative to input time 2"),
    # the losses' ATen forms (_ops_aten_losses.py): reduction an int 0, 1 or 2
    C("binary_cross_entropy_with_logits-reduction-str",
      "pdt.binary_cross_entropy_with_logits(t, t, None, None, 'mean')", "TypeError",
      r"binary_cross_entropy_with_logits\(\): argument 'reduction' must be int, not str"),
    C("kl_div-reduction-3", "pdt.kl_div(t, t, 3)", "ValueError",
      r"kl_div\(\): reduction must be 0 \('none'\), 1 \('mean'\) or 2 \('sum'\), got 3"),
    C("cosine_embedding_loss-reduction-bool",
      "pdt.cosine_embedding_loss(t, t, pdt.ones(1), 0.0, True)", "TypeError",
      r"argument 'reduction' must be int, not bool"),
    C("hinge_embedding_loss-reduction-negative", "pdt.hinge_embedding_loss(t, t, 1.0, -1)",
      "ValueError", r"hinge_embedding_loss\(\): reduction must be 0"),
    C("margin_ranking_loss-list", "pdt.margin_ranking_loss([1.0], t, t)", "TypeError",
      r"margin_ranking_loss\(\): input1 must be a Tensor, got list"),
    C("poisson_nll_loss-missing", "pdt.poisson_nll_loss(t, t)", "TypeError",
      r"missing 4 required positional arguments"),
    C("triplet_margin_loss-reduction-float",
      "pdt.triplet_margin_loss(t, t, t, 1.0, 2.0, 1e-6, False, 1.0)", "TypeError",
      r"triplet_margin_loss\(\): argument 'reduction' must be int, not float"),
    C("ctc_loss-reduction-str", "pdt.ctc_loss(pdt.zeros(2, 1, 2), pdt.tensor([[1]]), [2], [1], "
      "0, 'sum')", "TypeError", r"ctc_loss\(\): argument 'reduction' must be int, not str"),
    C("embedding-float-indices", "pdt.embedding(pdt.ones(3, 2), pdt.tensor([0.5]))",
      "TypeError", r"embedding\(\): the indices must be int64 or int32, got pydevtensor.float32"),
    C("embedding-padding-str", "pdt.embedding(pdt.ones(3, 2), pdt.tensor([0]), 'x')",
      "TypeError", r"embedding\(\): argument 'padding_idx' must be int, not str"),
    C("embedding_bag-mode-str", "pdt.embedding_bag(pdt.ones(3, 2), pdt.tensor([0]), "
      "pdt.tensor([0]), False, 'sum')", "TypeError",
      r"embedding_bag\(\): argument 'mode' must be int, not str"),
    C("embedding_bag-mode-3", "pdt.embedding_bag(pdt.ones(3, 2), pdt.tensor([0]), "
      "pdt.tensor([0]), False, 3)", "pydevtensor.InvalidArgumentError",
      r"embedding_bag\(\): mode must be 0 \(sum\), 1 \(mean\) or 2 \(max\), got 3"),
    C("embedding_bag-no-offsets", "pdt.embedding_bag(pdt.ones(3, 2), pdt.tensor([0]), None)",
      "TypeError", r"embedding_bag\(\): argument 'offsets' must be Tensor, not NoneType"),
    # more ATen forms (_ops_aten_more.py)
    C("as_strided_-list", "pdt.as_strided_([1.0], (1,), (1,))", "TypeError",
      r"as_strided_\(\): argument 'input' must be a Tensor, got list"),
    C("index_put_-out-of-range", "pdt.index_put_(pdt.zeros(3), (pdt.tensor([5]),), "
      "pdt.tensor(1.0))", "IndexError", r"index 5 is out of bounds"),
    C("resize_as_-list", "pdt.resize_as_(pdt.zeros(3), [1.0])", "TypeError", r"resize_as_"),
    C("as_strided_scatter-outside", "pdt.as_strided_scatter(pdt.zeros(4), pdt.ones(2, 2), "
      "(2, 2), (2, 2))", "RuntimeError", r"as_strided"),
    C("empty_permuted-duplicate", "pdt.empty_permuted((2, 3), (1, 1))", "RuntimeError",
      r"empty_permuted\(\): physical_layout must be a permutation of 0..1 \(no duplicate "
      r"dims\), got \(1, 1\)"),
    C("empty_permuted-length", "pdt.empty_permuted((2, 3), (0,))", "RuntimeError",
      r"len\(size\) = 2 is not equal to len\(physical_layout\) = 1"),
    C("constant_pad_nd-odd", "pdt.constant_pad_nd(pdt.ones(2), [1])", "ValueError",
      r"Padding length must be divisible by 2, got pad=\(1,\)"),
    C("convolution-2d-weight",
      "pdt.convolution(pdt.ones(1, 1, 4), pdt.ones(2, 2), None, [1], [0], [1], False, [0], 1)",
      "RuntimeError", r"convolution\(\): weight must have 3, 4 or 5 dimensions .*got shape "
      r"\(2, 2\)"),
    C("conv_tbc-channels", "pdt.conv_tbc(pdt.ones(3, 1, 2), pdt.ones(2, 1, 1), pdt.ones(1))",
      "RuntimeError", r"conv_tbc\(\): Input dim 2 \(input channels\) is not == dim 1 in the "
      r"weight tensor \(2 and 1\)"),
    C("conv_tbc-bias", "pdt.conv_tbc(pdt.ones(3, 1, 2), pdt.ones(2, 2, 3), pdt.ones(2))",
      "RuntimeError", r"Bias size must equal dim 2 in the weight tensor"),
] + [
    C(f"{n}-list", f"pdt.{n}([1.0])", "TypeError", rf"{n}\(\): argument 'input' must be a Tensor")
    for n in _IN_PLACE + _FLOAT_IN_PLACE
] + [
    # (the ones written in Python raise RuntimeError, as PyTorch; those in C TypeError)
    C(f"pdt.{n}-int", f"pdt.{n}(ti)", ("TypeError", "RuntimeError"),
      r"can't be cast to the desired output type .*int32")
    for n in _FLOAT_IN_PLACE
] + [
    C(f"{n}-list", f"pdt.{n}{args.replace('(t', '([1.0]', 1)}", "TypeError",
      rf"{n}\(\): (input|input1|x1) must be a Tensor, got list")
    for n, args in _FUNCTIONAL.items()
]
