/* tensor_trig.c - tan, the inverse trigonometric and hyperbolic functions (with NumPy's
 * arc* names, as PyTorch has them), sinh, cosh, atan2, hypot, copysign, logaddexp(2), fmod,
 * log2, log10, exp2, rsqrt and erfinv in their three forms (tensor_forms.h): pydevtensor.tan(x,
 * out=...), x.tan(), x.tan_().  Each ends in pdt_unary or pdt_binary
 * (csrc/core/pdt_elementwise.h).  Integers and bools promote to the default float (fmod
 * keeps integers; hypot and the logaddexps refuse two), as exp does; float16 and bfloat16
 * are computed in float32.  On the CPU: the level's vector rows (cpu_unary.c: Notes
 * [float32 inverse functions] in cpu_vtrig.h, [float32 sinh and cosh] in cpu_vhyper.h,
 * [float64 functions from the cores] in cpu_vfunc64.h; hypot and its kind in
 * cpu_ew_float2.c) or the C library's functions in double (erfinv: Note [erfinv] in
 * csrc/cpu/cpu_erfinv.h); on CUDA: CUDA's, within the CUDA Math API's bounds
 * (cuda_elementwise.cu).  Their gradients: autograd/derivatives_trig.py and
 * derivatives.py. */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

UNARY_ALL(tan, PDT_OP_TAN)
UNARY_ALL(asin, PDT_OP_ASIN)
UNARY_ALL(acos, PDT_OP_ACOS)
UNARY_ALL(atan, PDT_OP_ATAN)
UNARY_ALL(asinh, PDT_OP_ASINH)
UNARY_ALL(acosh, PDT_OP_ACOSH)
UNARY_ALL(atanh, PDT_OP_ATANH)
UNARY_ALL(sinh, PDT_OP_SINH)
UNARY_ALL(cosh, PDT_OP_COSH)
UNARY_ALL(arcsin, PDT_OP_ASIN)
UNARY_ALL(arccos, PDT_OP_ACOS)
UNARY_ALL(arctan, PDT_OP_ATAN)
UNARY_ALL(arcsinh, PDT_OP_ASINH)
UNARY_ALL(arccosh, PDT_OP_ACOSH)
UNARY_ALL(arctanh, PDT_OP_ATANH)
UNARY_ALL(log2, PDT_OP_LOG2)
UNARY_ALL(log10, PDT_OP_LOG10)
UNARY_ALL(exp2, PDT_OP_EXP2)
UNARY_ALL(rsqrt, PDT_OP_RSQRT)
UNARY_ALL(erfinv, PDT_OP_ERFINV)

/* atan2, arctan2, hypot, copysign, logaddexp and logaddexp2: binary (pdt_binary_form) */
BINARY_OP_FORMS(atan2, PDT_OP_ATAN2)
BINARY_OP_FORMS(arctan2, PDT_OP_ATAN2)
BINARY_OP_FORMS(hypot, PDT_OP_HYPOT)
BINARY_OP_FORMS(copysign, PDT_OP_COPYSIGN)
BINARY_OP_FORMS(logaddexp, PDT_OP_LOGADDEXP)
BINARY_OP_FORMS(logaddexp2, PDT_OP_LOGADDEXP2)
BINARY_OP_FORMS(fmod, PDT_OP_FMOD)

#define FLOATS " (integers give float32)"
#define W_TAN "The tangent (radians)" FLOATS
#define W_ASIN "The arcsine, in [-pi/2, pi/2] (NaN outside [-1, 1])" FLOATS
#define W_ACOS "The arccosine, in [0, pi] (NaN outside [-1, 1])" FLOATS
#define W_ATAN "The arctangent, in [-pi/2, pi/2]" FLOATS
#define W_ASINH "The inverse hyperbolic sine" FLOATS
#define W_ACOSH "The inverse hyperbolic cosine (NaN below 1)" FLOATS
#define W_ATANH "The inverse hyperbolic tangent (+-inf at +-1, NaN outside [-1, 1])" FLOATS
#define W_SINH "The hyperbolic sine (+-inf past about 89.4 in float32, 710.5 in float64)" FLOATS
#define W_COSH "The hyperbolic cosine (inf past about 89.4 in float32, 710.5 in float64)" FLOATS
#define W_LOG2 "The base-2 logarithm" FLOATS
#define W_LOG10 "The base-10 logarithm" FLOATS
#define W_EXP2                                                                                     \
    "2 to the power input, within 1 ulp on the CPU (2 ** input is pow there, correctly "           \
    "rounded)" FLOATS
#define W_RSQRT "The reciprocal of the square root, 1 / sqrt(input)" FLOATS
#define W_ERFINV "The inverse error function (+-inf at +-1, NaN outside [-1, 1])" FLOATS
#define W_ATAN2                                                                                    \
    "The angle of the point (other, input), atan(input / other) in the right quadrant, in "        \
    "[-pi, pi] (integers give float32)"

#define W_HYPOT                                                                                    \
    "sqrt(input^2 + other^2) without overflow or underflow in between; an infinity gives inf "     \
    "even with a NaN, as C's hypot (a floating result: two integers are refused, as PyTorch's)"
#define W_COPYSIGN                                                                                 \
    "input's magnitude with other's sign bit (-0.0 counts as negative; integers give the "         \
    "default float)"
#define W_LOGADDEXP                                                                                \
    "log(exp(input) + exp(other)), computed as max(input, other) + log1p(exp(-abs(input - "        \
    "other))): no overflow; two equal infinities give that infinity (two integers are refused)"
#define W_LOGADDEXP2                                                                               \
    "log2(2^input + 2^other), computed as max(input, other) + log1p(2^-abs(input - other)) / "     \
    "ln 2 (two integers are refused)"

#define EX_TAN "[0., 0.5, -1.]", "tensor([ 0.0000,  0.5463, -1.5574])"
#define EX_ASIN "[0., 0.5, -1.]", "tensor([ 0.0000,  0.5236, -1.5708])"
#define EX_ACOS "[0., 0.5, -1.]", "tensor([1.5708, 1.0472, 3.1416])"
#define EX_ATAN "[0., 1., -2.]", "tensor([ 0.0000,  0.7854, -1.1071])"
#define EX_ASINH "[0., 1., -2.]", "tensor([ 0.0000,  0.8814, -1.4436])"
#define EX_ACOSH "[1., 2., 10.]", "tensor([0.0000, 1.3170, 2.9932])"
#define EX_ATANH "[0., 0.5, -0.9]", "tensor([ 0.0000,  0.5493, -1.4722])"
#define EX_SINH "[0., 1., -2.]", "tensor([ 0.0000,  1.1752, -3.6269])"
#define EX_COSH "[0., 1., -2.]", "tensor([1.0000, 1.5431, 3.7622])"
#define EX_LOG2 "[1., 8., 0.5]", "tensor([ 0.,  3., -1.])"
#define EX_LOG10 "[1., 1000., 0.1]", "tensor([ 0.,  3., -1.])"
#define EX_EXP2 "[0., 3., -1.]", "tensor([1.0000, 8.0000, 0.5000])"
#define EX_RSQRT "[1., 4., 0.25]", "tensor([1.0000, 0.5000, 2.0000])"
#define EX_ERFINV "[0., 0.5, -0.9]", "tensor([ 0.0000,  0.4769, -1.1631])"
#define EX_ATAN2                                                                                   \
    "[1., -1., 0.]", "pydevtensor.tensor([1., -1., -1.])", "tensor([ 0.7854, -2.3562,  3.1416])"

#define W_FMOD                                                                                     \
    "The remainder of input / other with input's sign (C's fmod, exact; Python's % and "           \
    "remainder take the divisor's sign; integers by 0 raise, but give 0 for a divisor tensor on "  \
    "a GPU), computed"
#define EX_FMOD "[-3., 3., 5.5]", "2.", "tensor([-1.0000,  1.0000,  1.5000])"
#define EX_HYPOT "[3., 1e30]", "pydevtensor.tensor([4., 1e30])", "tensor([5.0000e+00, 1.4142e+30])"
#define EX_COPYSIGN "[1., -2., 3.]", "pydevtensor.tensor([-0., 1., -1.])", "tensor([-1.,  2., -3.])"
#define EX_LOGADDEXP                                                                               \
    "[0., 1., -1e4]", "pydevtensor.tensor([0., 2., -1e4])",                                        \
        "tensor([ 6.9315e-01,  2.3133e+00, -9.9993e+03])"
#define EX_LOGADDEXP2 "[0., 1.]", "pydevtensor.tensor([0., 3.])", "tensor([1.0000, 3.3219])"

#define FN(NAME, W, EX)                                                                            \
    {                                                                                              \
#NAME, FASTKW(fn_##NAME), DOC_FN_U(#NAME, W, EX)                                           \
    }
#define METHODS(NAME, W, EX)                                                                       \
    {#NAME, FASTKW(m_##NAME), DOC_M_U(#NAME, W, EX)},                                              \
    {                                                                                              \
#NAME "_", FASTKW(m_##NAME##_), DOC_M_U_(#NAME, W, EX)                                     \
    }

PyMethodDef pdt_trig_functions[] = {
    FN(tan, W_TAN, EX_TAN),
    FN(asin, W_ASIN, EX_ASIN),
    FN(acos, W_ACOS, EX_ACOS),
    FN(atan, W_ATAN, EX_ATAN),
    FN(asinh, W_ASINH, EX_ASINH),
    FN(acosh, W_ACOSH, EX_ACOSH),
    FN(atanh, W_ATANH, EX_ATANH),
    FN(sinh, W_SINH, EX_SINH),
    FN(cosh, W_COSH, EX_COSH),
    FN(arcsin, W_ASIN, EX_ASIN),
    FN(arccos, W_ACOS, EX_ACOS),
    FN(arctan, W_ATAN, EX_ATAN),
    FN(arcsinh, W_ASINH, EX_ASINH),
    FN(arccosh, W_ACOSH, EX_ACOSH),
    FN(arctanh, W_ATANH, EX_ATANH),
    FN(log2, W_LOG2, EX_LOG2),
    FN(log10, W_LOG10, EX_LOG10),
    FN(exp2, W_EXP2, EX_EXP2),
    FN(rsqrt, W_RSQRT, EX_RSQRT),
    FN(erfinv, W_ERFINV, EX_ERFINV),
    {"atan2", FASTKW(fn_atan2), DOC_FN_B("atan2", W_ATAN2, EX_ATAN2)},
    {"arctan2", FASTKW(fn_arctan2), DOC_FN_B("arctan2", W_ATAN2, EX_ATAN2)},
    {"hypot", FASTKW(fn_hypot), DOC_FN_B("hypot", W_HYPOT, EX_HYPOT)},
    {"copysign", FASTKW(fn_copysign), DOC_FN_B("copysign", W_COPYSIGN, EX_COPYSIGN)},
    {"logaddexp", FASTKW(fn_logaddexp), DOC_FN_B("logaddexp", W_LOGADDEXP, EX_LOGADDEXP)},
    {"logaddexp2", FASTKW(fn_logaddexp2), DOC_FN_B("logaddexp2", W_LOGADDEXP2, EX_LOGADDEXP2)},
    {"fmod", FASTKW(fn_fmod), DOC_FN_B("fmod", W_FMOD, EX_FMOD)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_trig_methods[] = {
    METHODS(tan, W_TAN, EX_TAN),
    METHODS(asin, W_ASIN, EX_ASIN),
    METHODS(acos, W_ACOS, EX_ACOS),
    METHODS(atan, W_ATAN, EX_ATAN),
    METHODS(asinh, W_ASINH, EX_ASINH),
    METHODS(acosh, W_ACOSH, EX_ACOSH),
    METHODS(atanh, W_ATANH, EX_ATANH),
    METHODS(sinh, W_SINH, EX_SINH),
    METHODS(cosh, W_COSH, EX_COSH),
    METHODS(arcsin, W_ASIN, EX_ASIN),
    METHODS(arccos, W_ACOS, EX_ACOS),
    METHODS(arctan, W_ATAN, EX_ATAN),
    METHODS(arcsinh, W_ASINH, EX_ASINH),
    METHODS(arccosh, W_ACOSH, EX_ACOSH),
    METHODS(arctanh, W_ATANH, EX_ATANH),
    METHODS(log2, W_LOG2, EX_LOG2),
    METHODS(log10, W_LOG10, EX_LOG10),
    METHODS(exp2, W_EXP2, EX_EXP2),
    METHODS(rsqrt, W_RSQRT, EX_RSQRT),
    METHODS(erfinv, W_ERFINV, EX_ERFINV),
    {"atan2", FASTKW(m_atan2), DOC_M_B("atan2", W_ATAN2, EX_ATAN2)},
    {"arctan2", FASTKW(m_arctan2), DOC_M_B("arctan2", W_ATAN2, EX_ATAN2)},
    {"atan2_", FASTKW(m_atan2_), DOC_M_B_("atan2", W_ATAN2, EX_ATAN2)},
    {"arctan2_", FASTKW(m_arctan2_), DOC_M_B_("arctan2", W_ATAN2, EX_ATAN2)},
    {"hypot", FASTKW(m_hypot), DOC_M_B("hypot", W_HYPOT, EX_HYPOT)},
    {"hypot_", FASTKW(m_hypot_), DOC_M_B_("hypot", W_HYPOT, EX_HYPOT)},
    {"copysign", FASTKW(m_copysign), DOC_M_B("copysign", W_COPYSIGN, EX_COPYSIGN)},
    {"copysign_", FASTKW(m_copysign_), DOC_M_B_("copysign", W_COPYSIGN, EX_COPYSIGN)},
    {"logaddexp", FASTKW(m_logaddexp), DOC_M_B("logaddexp", W_LOGADDEXP, EX_LOGADDEXP)},
    {"logaddexp_", FASTKW(m_logaddexp_), DOC_M_B_("logaddexp", W_LOGADDEXP, EX_LOGADDEXP)},
    {"logaddexp2", FASTKW(m_logaddexp2), DOC_M_B("logaddexp2", W_LOGADDEXP2, EX_LOGADDEXP2)},
    {"logaddexp2_", FASTKW(m_logaddexp2_), DOC_M_B_("logaddexp2", W_LOGADDEXP2, EX_LOGADDEXP2)},
    {"fmod", FASTKW(m_fmod), DOC_M_B("fmod", W_FMOD, EX_FMOD)},
    {"fmod_", FASTKW(m_fmod_), DOC_M_B_("fmod", W_FMOD, EX_FMOD)},
    {NULL, NULL, 0, NULL},
};
