/* tensor_gamma.c - lgamma and digamma in their three forms (tensor_forms.h):
 * pydevtensor.lgamma(x, out=...), x.lgamma(), x.lgamma_().  Each ends in pdt_unary
 * (csrc/core/pdt_elementwise.h).  Integers and bools promote to float32, as exp does;
 * lgamma is the C library's (CUDA's), in double (Note [lgamma on the CPU] in
 * csrc/cpu/cpu_unary.c), digamma Note [digamma] in csrc/core/pdt_gamma.h.  Their
 * gradients, digamma and polygamma(1, x), are in autograd/derivatives.py. */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

UNARY_ALL(lgamma, PDT_OP_LGAMMA)
UNARY_ALL(digamma, PDT_OP_DIGAMMA)

#define GAMMA_COST                                                                                 \
    "; float32 is computed in float64 on every device, so that CPU and GPU agree: on a "           \
    "consumer GPU, whose float64 rate is 1/64 of its float32 rate, that costs speed)"
#define W_LGAMMA                                                                                   \
    "The natural logarithm of the absolute value of the gamma function, log(abs(Gamma(input))) "   \
    "(inf at 0 and the negative integers; integers give float32" GAMMA_COST
#define W_DIGAMMA                                                                                  \
    "The digamma function, the derivative of lgamma: -inf at +0, NaN at the negative "             \
    "integers, as PyTorch's (integers give float32" GAMMA_COST
#define EX_LGAMMA "[1., 2., 0.5]", "tensor([0.0000, 0.0000, 0.5724])"
#define EX_DIGAMMA "[1., 2., 0.5]", "tensor([-0.5772,  0.4228, -1.9635])"

PyMethodDef pdt_gamma_functions[] = {
    {"lgamma", FASTKW(fn_lgamma), DOC_FN_U("lgamma", W_LGAMMA, EX_LGAMMA)},
    {"digamma", FASTKW(fn_digamma), DOC_FN_U("digamma", W_DIGAMMA, EX_DIGAMMA)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_gamma_methods[] = {
    {"lgamma", FASTKW(m_lgamma), DOC_M_U("lgamma", W_LGAMMA, EX_LGAMMA)},
    {"digamma", FASTKW(m_digamma), DOC_M_U("digamma", W_DIGAMMA, EX_DIGAMMA)},
    {"lgamma_", FASTKW(m_lgamma_), DOC_M_U_("lgamma", W_LGAMMA, EX_LGAMMA)},
    {"digamma_", FASTKW(m_digamma_), DOC_M_U_("digamma", W_DIGAMMA, EX_DIGAMMA)},
    {NULL, NULL, 0, NULL},
};
