"""The bad-input catalogue's cases for attention and the Transformer (D2L chapter 11):
repeat_interleave, baddbmm, nn.functional.scaled_dot_product_attention,
nn.MultiheadAttention and the Transformer modules (wrong shapes, dtypes, masks and
devices).  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C, TWO_CPUS

ATTENTION_CASES = [
    # q is (4, 8), key and value (5, 8); t is (2, 3)
    C("repeat_interleave-negative", "pdt.repeat_interleave(t, pdt.tensor([1, -2]), dim=0)",
      "RuntimeError", r"repeats can not be negative, got -2 \(on cpu\)"),
    C("repeat_interleave-length", "pdt.repeat_interleave(t, pdt.tensor([1, 2, 3]), dim=0)",
      "RuntimeError", r"repeats.size\(0\) = 3 and input.size\(dim\) = 2 \(on cpu\)"),
    C("repeat_interleave-float", "pdt.repeat_interleave(t, pdt.tensor([1.0, 2.0]), dim=0)",
      "NotImplementedError", r"repeats must be an integer tensor, got "
      r"pydevtensor.float32 \(shape \(2,\), on cpu\)"),
    C("repeat_interleave-2d", "pdt.repeat_interleave(t, pdt.tensor([[1, 2]]), dim=0)",
      "RuntimeError", r"repeats must be 0-dim or 1-dim tensor, got shape \(1, 2\)"),
    C("repeat_interleave-dim", "pdt.repeat_interleave(t, 2, dim=2)", "IndexError",
      r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    C("repeat_interleave-output_size", "t.repeat_interleave(pdt.tensor([1, 2]), dim=0, "
      "output_size=4)", "RuntimeError", r"output_size=4 but the repeats sum to 3 \(on cpu\)"),
    C("repeat_interleave-devices", 'pdt.repeat_interleave(t, pdt.tensor([1, 2], '
      'device="cpu:1"), dim=0)', "RuntimeError", r"same device.*cpu.*cpu:1",
      setup=TWO_CPUS),
    C("baddbmm-batch", "pdt.baddbmm(pdt.zeros(3, 5), pdt.zeros(2, 3, 4), pdt.zeros(3, 4, 5))",
      ("ValueError", "RuntimeError"), r"different batch sizes \(2 != 3\)"),
    C("baddbmm-2d", "pdt.baddbmm(pdt.zeros(3, 5), pdt.zeros(3, 4), pdt.zeros(2, 4, 5))",
      "RuntimeError", r"batch1 and batch2 must be 3-D tensors, got shapes \(3, 4\) and "
      r"\(2, 4, 5\) \(on cpu\)"),
    C("baddbmm-input", "pdt.baddbmm(pdt.zeros(4, 5), pdt.zeros(2, 3, 4), pdt.zeros(2, 4, 5))",
      "RuntimeError", r"input of shape \(4, 5\) cannot be broadcast to the product's shape "
      r"\(2, 3, 5\) \(on cpu\)"),
    C("baddbmm-dtype", "pdt.baddbmm(pdt.zeros(3, 5).double(), pdt.zeros(2, 3, 4), "
      "pdt.zeros(2, 4, 5))", "RuntimeError", r"input pydevtensor.float64, batch1: "
      r"pydevtensor.float32 \(on cpu\)"),
    C("baddbmm-devices", 'pdt.baddbmm(pdt.zeros(3, 5, device="cpu:1"), pdt.zeros(2, 3, 4), '
      "pdt.zeros(2, 4, 5))", "RuntimeError", r"two devices, cpu:1 \(input\) and cpu",
      setup=TWO_CPUS),
    C("sdpa-embedding", "F.scaled_dot_product_attention(pdt.zeros(4, 8), pdt.zeros(5, 7), "
      "pdt.zeros(5, 3))", "pydevtensor.InvalidArgumentError", r"query and key must have the "
      r"same embedding size \(last dim\), got shapes \(4, 8\) and \(5, 7\) \(on cpu\)",
      setup="F = pdt.nn.functional"),
    C("sdpa-lengths", "F.scaled_dot_product_attention(pdt.zeros(4, 8), pdt.zeros(5, 8), "
      "pdt.zeros(6, 3))", "pydevtensor.InvalidArgumentError", r"key and value must have the "
      r"same sequence length \(dim -2\), got shapes \(5, 8\) and \(6, 3\)",
      setup="F = pdt.nn.functional"),
    C("sdpa-mask-shape", "F.scaled_dot_product_attention(pdt.zeros(4, 8), pdt.zeros(5, 8), "
      "pdt.zeros(5, 3), attn_mask=pdt.ones(4, 6, dtype=pdt.bool))",
      "pydevtensor.InvalidArgumentError", r"attn_mask of shape \(4, 6\).*\(4, 5\)",
      setup="F = pdt.nn.functional"),
    C("mha_forward-static-k", "F.multi_head_attention_forward(pdt.ones(3, 1, 4), "
      "pdt.ones(3, 1, 4), pdt.ones(3, 1, 4), 4, 2, pdt.ones(12, 4), None, None, None, False, "
      "0.0, pdt.eye(4), None, static_k=pdt.ones(3, 3, 2))", "AssertionError",
      r"expecting static_k of shape \(2, S, 2\) \(batch \* num_heads, S, head_dim\), but "
      r"got \(3, 3, 2\) \(on cpu\)", setup="F = pdt.nn.functional"),
    C("mha_forward-no-weights", "F.multi_head_attention_forward(pdt.ones(3, 1, 4), "
      "pdt.ones(3, 1, 4), pdt.ones(3, 1, 4), 4, 2, None, None, None, None, False, 0.0, "
      "pdt.eye(4), None)", "pydevtensor.InvalidArgumentError", r"in_proj_weight is None",
      setup="F = pdt.nn.functional"),
    C("sdpa-mask-dtype", "F.scaled_dot_product_attention(pdt.zeros(4, 8), pdt.zeros(5, 8), "
      "pdt.zeros(5, 3), attn_mask=pdt.ones(4, 5, dtype=pdt.int64))", "RuntimeError",
      r"attn_mask dtype to be bool or float or to match query dtype, but got "
      r"attn_mask.dtype: "
      r"pydevtensor.int64", setup="F = pdt.nn.functional"),
    C("sdpa-mask-and-causal", "F.scaled_dot_product_attention(pdt.zeros(4, 8), "
      "pdt.zeros(5, 8), pdt.zeros(5, 3), attn_mask=pdt.ones(4, 5, dtype=pdt.bool), "
      "is_causal=True)", "RuntimeError", r"Explicit attn_mask should not be set when "
      r"is_causal=True", setup="F = pdt.nn.functional"),
    C("sdpa-gqa", "F.scaled_dot_product_attention(pdt.zeros(1, 4, 2, 8), pdt.zeros(1, 3, 5, 8),"
      " pdt.zeros(1, 3, 5, 8), enable_gqa=True)", "pydevtensor.InvalidArgumentError",
      r"Number of heads in key and value must divide the number of heads in query: 3 and 4",
      setup="F = pdt.nn.functional"),
    C("sdpa-devices", 'F.scaled_dot_product_attention(pdt.zeros(4, 8), pdt.zeros(5, 8, '
      'device="cpu:1"), pdt.zeros(5, 3))', "RuntimeError", r"same device, but found at least "
      r"two devices: query on cpu(:0)?, key on cpu:1, value on cpu",
      setup=TWO_CPUS + "F = pdt.nn.functional"),
    C("MultiheadAttention-divisible", "pdt.nn.MultiheadAttention(10, 3)", "AssertionError",
      r"embed_dim must be divisible by num_heads, got embed_dim=10 and num_heads=3"),
    C("MultiheadAttention.merge_masks-shape", "m = pdt.nn.MultiheadAttention(4, 2)\n"
      "m.merge_masks(pdt.zeros(2, 2), None, pdt.zeros(2, 3, 4))", "RuntimeError",
      r"cannot reshape a tensor of shape \(2, 2\).*into shape \(1, 1, 3, 3\)"),
    C("MultiheadAttention-zero", "pdt.nn.MultiheadAttention(0, 2)", "ValueError",
      r"embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2"),
    C("MultiheadAttention-embed", "m = pdt.nn.MultiheadAttention(8, 2)\nx = pdt.zeros(4, 2, 6)"
      "\nm(x, x, x)", "AssertionError", r"was expecting embedding dimension of 8, but got 6 "
      r"\(query of shape \(4, 2, 6\), on cpu\)"),
    C("MultiheadAttention-key-value", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "m(pdt.zeros(4, 2, 8), pdt.zeros(5, 2, 8), pdt.zeros(4, 2, 8))", "AssertionError",
      r"key shape \(5, 2, 8\) does not match value shape \(4, 2, 8\) \(on cpu\)"),
    C("MultiheadAttention-attn_mask", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "x = pdt.zeros(4, 2, 8)\nm(x, x, x, attn_mask=pdt.zeros(4, 5))", "RuntimeError",
      r"The shape of the 2D attn_mask is \(4, 5\), but should be \(4, 4\) \(on cpu\)"),
    C("MultiheadAttention-attn_mask-3d", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "x = pdt.zeros(4, 2, 8)\nm(x, x, x, attn_mask=pdt.zeros(2, 4, 4))", "RuntimeError",
      r"The shape of the 3D attn_mask is \(2, 4, 4\), but should be \(4, 4, 4\)"),
    C("MultiheadAttention-padding", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "x = pdt.zeros(4, 2, 8)\nm(x, x, x, key_padding_mask=pdt.zeros(2, 5, dtype=pdt.bool))",
      "AssertionError", r"expecting key_padding_mask shape of \(2, 4\), but got \(2, 5\)"),
    C("MultiheadAttention-mask-dtype", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "x = pdt.zeros(4, 2, 8)\nm(x, x, x, key_padding_mask=pdt.zeros(2, 4, dtype=pdt.int64))",
      "AssertionError", r"only bool and floating types of key_padding_mask are supported, "
      r"got pydevtensor.int64"),
    C("MultiheadAttention-causal", "m = pdt.nn.MultiheadAttention(8, 2)\n"
      "x = pdt.zeros(4, 2, 8)\nm(x, x, x, is_causal=True)", "RuntimeError",
      r"Need attn_mask if specifying the is_causal hint"),
    C("MultiheadAttention-other-device", 'm = pdt.nn.MultiheadAttention(8, 2)\n'
      'x = pdt.zeros(4, 2, 8, device="cpu:1")\nm(x, x, x)', "pydevtensor.DeviceError",
      r"the query is on cpu:1 but the module's parameters are on cpu", setup=TWO_CPUS),
    C("MultiheadAttention-mask-device", 'm = pdt.nn.MultiheadAttention(8, 2)\n'
      'x = pdt.zeros(4, 2, 8)\nm(x, x, x, key_padding_mask=pdt.zeros(2, 4, device="cpu:1"))',
      "RuntimeError", r"key_padding_mask is on cpu:1 but the query is on cpu",
      setup=TWO_CPUS),
    C("TransformerEncoderLayer-activation",
      'pdt.nn.TransformerEncoderLayer(8, 2, activation="tanh")', "RuntimeError",
      r"activation should be relu/gelu, not tanh"),
    C("TransformerEncoderLayer-input", "pdt.nn.TransformerEncoderLayer(8, 2, 16)"
      "(pdt.zeros(5, 2, 7))", "pydevtensor.InvalidArgumentError",
      r"expected src of shape \(L, N, 8\).*got \(5, 2, 7\) \(on cpu\)"),
    C("TransformerDecoderLayer-heads", "pdt.nn.TransformerDecoderLayer(10, 3)",
      "AssertionError", r"embed_dim must be divisible by num_heads"),
    C("TransformerEncoder-layers", "pdt.nn.TransformerEncoder("
      "pdt.nn.TransformerEncoderLayer(8, 2, 16), -1)", "ValueError",
      r"num_layers must be an int >= 0, got -1"),
    C("Transformer-batch", "pdt.nn.Transformer(8, 2, 1, 1, 16)(pdt.zeros(5, 2, 8), "
      "pdt.zeros(4, 3, 8))", "RuntimeError", r"the batch number of src and tgt must be "
      r"equal, got shapes \(5, 2, 8\) and \(4, 3, 8\)"),
    C("Transformer-features", "pdt.nn.Transformer(8, 2, 1, 1, 16)(pdt.zeros(5, 2, 8), "
      "pdt.zeros(4, 2, 6))", "RuntimeError", r"the feature number of src and tgt must be "
      r"equal to d_model=8"),
    C("Transformer-mask-size", "pdt.nn.Transformer.generate_square_subsequent_mask(-1)",
      "ValueError", r"sz must be an int >= 0, got -1"),
]
