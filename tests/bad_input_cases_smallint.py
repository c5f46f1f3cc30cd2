"""The bad-input catalogue's cases for uint8, int8 and int16 and the integer bitwise ops
(tensor_bitwise.c).  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C

SMALLINT_CASES = [
    C("uint8-tensor-overflow", "pdt.tensor([256], dtype=pdt.uint8)", "OverflowError",
      r"the value 256 cannot be converted to uint8 without overflow"),
    C("int8-full-overflow", "pdt.full((2,), -129, dtype=pdt.int8)", "RuntimeError",
      r"full: the value -129 cannot be converted to int8 without overflow \(into a tensor of "
      r"shape \(2,\) on cpu\)"),
    C("int16-fill-overflow", "pdt.zeros(2, dtype=pdt.int16).fill_(40000)", "OverflowError",
      r"the value 40000 cannot be converted to int16 without overflow"),
    C("uint8-randint-bounds", "pdt.randint(0, 300, (2,), dtype=pdt.uint8)", "RuntimeError",
      r"the value 299 \(high - 1\) cannot be converted to uint8 .*on cpu"),
    C("uint8-pow-overflow", "pdt.ones(2, dtype=pdt.uint8) ** 256", "RuntimeError",
      r"exponent 256 cannot be converted to uint8 without overflow"),
    C("uint8-mean", "pdt.ones(2, dtype=pdt.uint8).mean()", "TypeError",
      r"mean needs a floating point dtype"),
    C("uint8-inplace-float", "u = pdt.ones(2, dtype=pdt.uint8)\nu += 1.5", "TypeError",
      r"result type float32 can't be cast to the desired output type uint8"),
    C("int8-index", "pdt.arange(3)[pdt.tensor([1], dtype=pdt.int8)]", "IndexError",
      r"tensors used as indices must be long, int, byte or bool tensors"),
    C("bitwise-float", "pdt.bitwise_and(pdt.ones(2), 1)", "TypeError",
      r"bitwise_and: bitwise ops and shifts take integer tensors, got the result dtype float32"),
    C("shift-float", "pdt.ones(2) << 1", "TypeError", r"take integer tensors.*float32"),
    C("bitwise-shapes", "pdt.bitwise_or(pdt.ones(2, dtype=pdt.int8), pdt.ones(3, dtype=pdt.int8))",
      "ValueError", r"shapes \(2,\) and \(3,\) cannot be broadcast"),
    C("bitwise-xor-list", "pdt.bitwise_xor([1], 1)", "TypeError", r"Tensor"),
    C("left-shift-out-dtype",
      "pdt.bitwise_left_shift(pdt.ones(2, dtype=pdt.int16), 1, out=pdt.zeros(2, dtype=pdt.bool))",
      "TypeError", r"result type int16 can't be cast to the desired output type bool"),
    C("right-shift-float", "pdt.bitwise_right_shift(pdt.ones(2, dtype=pdt.int8), 1.5)",
      "TypeError", r"bitwise ops and shifts take integer tensors, got the result dtype float32"),
    C("bitwise-not-float", "pdt.bitwise_not(pdt.ones(2))", "TypeError",
      r"bitwise ops take integer or bool tensors, got pydevtensor.float32 \(shape \(2,\), on cpu\)"),
]
