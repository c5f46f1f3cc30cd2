/* tensor_round.c - the rounding ops (floor, ceil, round, trunc), sign, log1p and
 * expm1 in their three forms (tensor_forms.h): pydevtensor.floor(x, out=...),
 * x.floor(), x.floor_().  Each ends in pdt_unary (csrc/core/pdt_elementwise.h).
 *
 * The rounding ops are exact and give an integer tensor back as it is (a copy;
 * bool is refused, as in PyTorch); round takes halves to even (0.5 -> 0, 1.5 -> 2,
 * IEEE 754's roundTiesToEven, as NumPy's and PyTorch's round).  sign keeps the
 * dtype; both zeros give +0 (as in NumPy and PyTorch) and NaN gives NaN (NumPy's rule
 * and the array API standard's; PyTorch gives 0, hiding the NaN).  log1p and expm1 promote integers to
 * float32, as exp does, and compute float32 through the float64 function on every
 * device, so the CPU and CUDA agree.  Their gradients: zero for the rounding ops and
 * sign, 1 / (1 + x) and exp(x) for log1p and expm1 (autograd/derivatives.py). */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

UNARY_ALL(floor, PDT_OP_FLOOR)
UNARY_ALL(ceil, PDT_OP_CEIL)
UNARY_ALL(round, PDT_OP_ROUND)
UNARY_ALL(trunc, PDT_OP_TRUNC)
UNARY_ALL(sign, PDT_OP_SIGN)
UNARY_ALL(log1p, PDT_OP_LOG1P)
UNARY_ALL(expm1, PDT_OP_EXPM1)
UNARY_METHODS(fix, PDT_OP_TRUNC) /* PyTorch's other name (pydevtensor.fix is trunc) */

#define W_FLOOR "The largest integer at most input (integers come back as they are)"
#define W_CEIL "The smallest integer at least input (integers come back as they are)"
#define W_ROUND "The nearest integer, halves to even (integers come back as they are)"
#define W_TRUNC "The integer part, rounded toward zero (integers come back as they are)"
#define W_SIGN "-1, 0 or 1 by the sign, in input's dtype (NaN stays NaN)"
#define W_LOG1P "log(1 + input), exact near 0 (integers give float32)"
#define W_EXPM1 "exp(input) - 1, exact near 0 (integers give float32)"

PyMethodDef pdt_round_functions[] = {
    {"floor", FASTKW(fn_floor), DOC_FN_U("floor", W_FLOOR, EX_FLOOR)},
    {"ceil", FASTKW(fn_ceil), DOC_FN_U("ceil", W_CEIL, EX_CEIL)},
    {"round", FASTKW(fn_round), DOC_FN_U("round", W_ROUND, EX_ROUND)},
    {"trunc", FASTKW(fn_trunc), DOC_FN_U("trunc", W_TRUNC, EX_TRUNC)},
    {"sign", FASTKW(fn_sign), DOC_FN_U("sign", W_SIGN, EX_SIGN)},
    {"log1p", FASTKW(fn_log1p), DOC_FN_U("log1p", W_LOG1P, EX_LOG1P)},
    {"expm1", FASTKW(fn_expm1), DOC_FN_U("expm1", W_EXPM1, EX_EXPM1)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_round_methods[] = {
    {"floor", FASTKW(m_floor), DOC_M_U("floor", W_FLOOR, EX_FLOOR)},
    {"ceil", FASTKW(m_ceil), DOC_M_U("ceil", W_CEIL, EX_CEIL)},
    {"round", FASTKW(m_round), DOC_M_U("round", W_ROUND, EX_ROUND)},
    {"trunc", FASTKW(m_trunc), DOC_M_U("trunc", W_TRUNC, EX_TRUNC)},
    {"sign", FASTKW(m_sign), DOC_M_U("sign", W_SIGN, EX_SIGN)},
    {"log1p", FASTKW(m_log1p), DOC_M_U("log1p", W_LOG1P, EX_LOG1P)},
    {"expm1", FASTKW(m_expm1), DOC_M_U("expm1", W_EXPM1, EX_EXPM1)},
    {"fix", FASTKW(m_fix), DOC_M_U("fix", W_TRUNC, EX_TRUNC)},
    {"floor_", FASTKW(m_floor_), DOC_M_U_("floor", W_FLOOR, EX_FLOOR)},
    {"ceil_", FASTKW(m_ceil_), DOC_M_U_("ceil", W_CEIL, EX_CEIL)},
    {"round_", FASTKW(m_round_), DOC_M_U_("round", W_ROUND, EX_ROUND)},
    {"trunc_", FASTKW(m_trunc_), DOC_M_U_("trunc", W_TRUNC, EX_TRUNC)},
    {"sign_", FASTKW(m_sign_), DOC_M_U_("sign", W_SIGN, EX_SIGN)},
    {"log1p_", FASTKW(m_log1p_), DOC_M_U_("log1p", W_LOG1P, EX_LOG1P)},
    {"expm1_", FASTKW(m_expm1_), DOC_M_U_("expm1", W_EXPM1, EX_EXPM1)},
    {"fix_", FASTKW(m_fix_), DOC_M_U_("fix", W_TRUNC, EX_TRUNC)},
    {NULL, NULL, 0, NULL},
};
