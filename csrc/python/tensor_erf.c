/* tensor_erf.c - erf and erfc in their three forms (tensor_forms.h), and the
 * private _gelu and _gelu_grad (nn.functional.gelu's exact form and its
 * derivative, one pass each: Note [float32 gelu] in csrc/cpu/cpu_vgelu.h):
 * pydevtensor.erf(x, out=...), x.erf(), x.erf_().  Each ends in pdt_unary
 * (csrc/core/pdt_elementwise.h).  Integers and bools promote to float32, as exp
 * does; float64 is the C library's (CUDA's) erf and erfc, float32 Note [float32 erf
 * and erfc] in csrc/cpu/cpu_verf.h.  Their gradients, 2/sqrt(pi) exp(-x^2) and its
 * negative, are in autograd/derivatives.py. */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

UNARY_ALL(erf, PDT_OP_ERF)
UNARY_ALL(erfc, PDT_OP_ERFC)
UNARY_FUNCTION(_gelu, PDT_OP_GELU)
UNARY_FUNCTION(_gelu_grad, PDT_OP_GELU_GRAD)

#define W_ERF                                                                                      \
    "The error function, 2/sqrt(pi) times the integral of exp(-t**2) from 0 to input "             \
    "(integers give float32)"
#define W_ERFC "1 - erf(input), without the cancellation for large input (integers give float32)"

PyMethodDef pdt_erf_functions[] = {
    {"erf", FASTKW(fn_erf), DOC_FN_U("erf", W_ERF, EX_ERF)},
    {"erfc", FASTKW(fn_erfc), DOC_FN_U("erfc", W_ERFC, EX_ERFC)},
    {"_gelu", FASTKW(fn__gelu),
     "_gelu(input, *, out=None): input/2 erfc(-input/sqrt(2)), one pass (private: "
     "nn.functional.gelu)"},
    {"_gelu_grad", FASTKW(fn__gelu_grad),
     "_gelu_grad(input, *, out=None): the derivative of _gelu, Phi(input) + input "
     "phi(input), one pass (private: gelu's backward)"},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_erf_methods[] = {
    {"erf", FASTKW(m_erf), DOC_M_U("erf", W_ERF, EX_ERF)},
    {"erfc", FASTKW(m_erfc), DOC_M_U("erfc", W_ERFC, EX_ERFC)},
    {"erf_", FASTKW(m_erf_), DOC_M_U_("erf", W_ERF, EX_ERF)},
    {"erfc_", FASTKW(m_erfc_), DOC_M_U_("erfc", W_ERFC, EX_ERFC)},
    {NULL, NULL, 0, NULL},
};
