/* tensor_bitwise.c - bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift and
 * bitwise_right_shift of the integer dtypes in their three forms (tensor_forms.h):
 * pydevtensor.bitwise_and(x, y, out=...), x.bitwise_and(y), x.bitwise_and_(y).  Each
 * ends in pdt_binary (csrc/core/pdt_elementwise.h): PyTorch's promotion, a Python int
 * wrapped into a small integer dtype, a float operand a TypeError; two bools give a
 * bool (and, or, xor).  Shifts past the width: Note [shifts] in pdt_elementwise.h.
 * The operators &, |, ^, ~, << and >> call these for integer tensors (_ops_logical.py). */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

BINARY_OP_FORMS(bitwise_and, PDT_OP_BITWISE_AND)
BINARY_OP_FORMS(bitwise_or, PDT_OP_BITWISE_OR)
BINARY_OP_FORMS(bitwise_xor, PDT_OP_BITWISE_XOR)
BINARY_OP_FORMS(bitwise_left_shift, PDT_OP_SHIFT_LEFT)
BINARY_OP_FORMS(bitwise_right_shift, PDT_OP_SHIFT_RIGHT)

#define INTS " of integers (bools for and, or, xor; floats are refused)"
#define W_AND "The bitwise and" INTS
#define W_OR "The bitwise or" INTS
#define W_XOR "The bitwise exclusive or" INTS
#define W_SHL "input shifted left by other bits (0 for a shift outside [0, bits))"
#define W_SHR                                                                                      \
    "input shifted right by other bits, the sign filled in (0 or -1 for a shift outside [0, "      \
    "bits))"
#define EX_U8 "[12, 10, 255], dtype=pydevtensor.uint8"
#define EX_AND EX_U8, "6", "tensor([4, 2, 6], dtype=pydevtensor.uint8)"
#define EX_OR EX_U8, "6", "tensor([ 14,  14, 255], dtype=pydevtensor.uint8)"
#define EX_XOR EX_U8, "6", "tensor([ 10,  12, 249], dtype=pydevtensor.uint8)"
#define EX_SHL EX_U8, "4", "tensor([192, 160, 240], dtype=pydevtensor.uint8)"
#define EX_SHR "[-12, 10, 255]", "2", "tensor([-3,  2, 63])"

#define ENTRIES(NAME, W, EX)                                                                       \
    {#NAME, FASTKW(m_##NAME), DOC_M_B(#NAME, W, EX)},                                              \
        {#NAME "_", FASTKW(m_##NAME##_), DOC_M_B_(#NAME, W, EX)},

PyMethodDef pdt_bitwise_functions[] = {
    {"bitwise_and", FASTKW(fn_bitwise_and), DOC_FN_B("bitwise_and", W_AND, EX_AND)},
    {"bitwise_or", FASTKW(fn_bitwise_or), DOC_FN_B("bitwise_or", W_OR, EX_OR)},
    {"bitwise_xor", FASTKW(fn_bitwise_xor), DOC_FN_B("bitwise_xor", W_XOR, EX_XOR)},
    {"bitwise_left_shift", FASTKW(fn_bitwise_left_shift),
     DOC_FN_B("bitwise_left_shift", W_SHL, EX_SHL)},
    {"bitwise_right_shift", FASTKW(fn_bitwise_right_shift),
     DOC_FN_B("bitwise_right_shift", W_SHR, EX_SHR)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_bitwise_methods[] = {
    ENTRIES(bitwise_and, W_AND, EX_AND) ENTRIES(bitwise_or, W_OR, EX_OR)
        ENTRIES(bitwise_xor, W_XOR, EX_XOR) ENTRIES(bitwise_left_shift, W_SHL, EX_SHL)
            ENTRIES(bitwise_right_shift, W_SHR, EX_SHR){NULL, NULL, 0, NULL},
};
