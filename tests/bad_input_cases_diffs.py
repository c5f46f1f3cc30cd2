"""The bad-input catalogue's cases for the last differences from PyTorch closed
together: integer division by zero, index_add's alpha, set_printoptions,
set_default_dtype and the other names of that round; float(), double() and their kin
with a memory_format.  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C

DIFFS_CASES = [
    # t is (2, 3) float32, ti (6,) int32 holding 0..5, tb (2,) bool
    C("floor_divide-int-by-zero-tensor", "ti // ti", "RuntimeError",
      r"ZeroDivisionError: floor_divide: integer division by zero \(int32 result, divisor "
      r"tensor of shape \(6,\) with 1 zero, on cpu\)"),
    C("remainder-int-by-scalar-zero", "ti % 0", "RuntimeError",
      r"ZeroDivisionError: remainder: integer division by zero \(int32 result, divisor 0, "
      r"on cpu\)"),
    C("fmod-int-by-zero", "pdt.fmod(ti, 0)", "RuntimeError",
      r"ZeroDivisionError: fmod: integer division by zero"),
    C("div-trunc-int-by-zero", "pdt.div(ti, ti, rounding_mode='trunc')", "RuntimeError",
      r"ZeroDivisionError: div: integer division by zero"),
    C("index_add-int-alpha-inf", "pdt.index_add(ti, 0, pdt.tensor([0]), ti[:1], "
      "alpha=float('inf'))", "RuntimeError",
      r"index_add\(\): alpha inf cannot be converted to pydevtensor.int32 without overflow "
      r"\(input \(6,\), on cpu\)"),
    C("take_along_dim-index-below-minus-size", "pdt.take_along_dim(t, pdt.tensor([[-4]]), 1)",
      "IndexError", r"take_along_dim: index -4 is out of bounds for dimension 1 with size 3"),
    C("threshold-int-value-inf", "pdt.nn.functional.threshold(ti, 1, float('inf'))",
      "RuntimeError", r"threshold\(\): value inf cannot be converted to .*int32 without "
      r"overflow \(input \(6,\), on cpu\)"),
    C("sdpa-1d-mask", "q = pdt.ones(1, 2, 3)\npdt.nn.functional.scaled_dot_product_attention("
      "q, q, q, attn_mask=pdt.tensor([True, False]))", "IndexError",
      r"attn_mask must have at least 2 dims, \(L, S\) or broadcastable to it, got shape "
      r"\(2,\) \(on cpu\)"),
    C("repeat_interleave-0d-dim", "pdt.tensor(5).repeat_interleave(3, dim=0)", "IndexError",
      r"repeat_interleave\(\): dim=0 given for a 0-d input \(on cpu\)"),
    C("renorm-1d", "pdt.renorm(pdt.ones(3), 2, 0, 1.0)", "RuntimeError",
      r"renorm\(\): input needs at least 2 dimensions, got 1 dimensions \(shape \(3,\), on "
      r"cpu\)"),
    C("renorm-negative-maxnorm", "t.renorm_(2, 0, -1.0)", "RuntimeError",
      r"renorm\(\): expected maxnorm to be >= 0 but got -1.0"),
    C("gradient-too-few-points", "pdt.gradient(t, edge_order=2)", "RuntimeError",
      r"gradient\(\): expected each dimension size to be at least edge_order\+1 = 3, but dim 0 "
      r"of input \(2, 3\) has 2 \(on cpu\)"),
    C("gradient-coordinates-length", "pdt.gradient(t, spacing=[pdt.ones(2)], dim=1)",
      "RuntimeError", r"gradient\(\): each coordinates tensor must be 1-d and hold one "
      r"coordinate per sample along its dimension, got shape \(2,\) for dim 1 of input "
      r"\(2, 3\) \(on cpu\)"),
    C("double-format-positional", "t.double(pdt.channels_last)", "TypeError",
      r"double\(\) takes 0 positional arguments but 1 were given \(memory_format= is "
      r"keyword-only\)"),
    C("half-format-rank", "t.half(memory_format=pdt.channels_last)", "ValueError",
      r"half\(\): required rank 4 tensor to use channels_last format, got shape \(2, 3\)"),
]
