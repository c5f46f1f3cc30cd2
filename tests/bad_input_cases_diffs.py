"""The bad-input catalogue's cases for the last differences from PyTorch closed
together: integer division by zero, index_add's alpha, set_printoptions,
set_default_dtype and the other names of that round.  tests/bad_input_cases.py
(where Case is) adds them to CASES; tests/test_bad_input.py runs them."""
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
      r"index_add\(\): alpha inf cannot be converted to an integer for the .*int32 input "
      r"without overflow \(input \(6,\), on cpu\)"),
    C("take_along_dim-index-below-minus-size", "pdt.take_along_dim(t, pdt.tensor([[-4]]), 1)",
      "IndexError", r"take_along_dim: index -4 is out of bounds for dimension 1 with size 3"),
]
