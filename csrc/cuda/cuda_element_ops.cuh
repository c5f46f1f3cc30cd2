/* cuda_element_ops.cuh - the element functions of cuda_elementwise.cu's kernels:
 * one element of each binary op (apply_binary, with integer division, remainder and
 * powers as PyTorch defines them) and unary op (apply_unary, trig_of).  A part of
 * cuda_elementwise.cu, included once by it after the dtype traits and op predicates
 * it uses (dtype_traits, wrap_type, is_bool_v, is_float_v, is_small_v, widen, narrow,
 * is_rounding), not a header of its own. */
#ifndef PDT_CUDA_ELEMENT_OPS_CUH
#define PDT_CUDA_ELEMENT_OPS_CUH

template <typename T> __device__ __forceinline__ T d_fmod(T a, T b)
{
    if constexpr (sizeof(T) == 4)
        return fmodf(a, b);
    else
        return fmod(a, b);
}
template <typename T> __device__ __forceinline__ T d_floor(T a)
{
    if constexpr (sizeof(T) == 4)
        return floorf(a);
    else
        return floor(a);
}
template <typename T> __device__ __forceinline__ T d_trunc(T a)
{
    if constexpr (sizeof(T) == 4)
        return truncf(a);
    else
        return trunc(a);
}
template <typename T> __device__ __forceinline__ T d_copysign(T a, T b)
{
    if constexpr (sizeof(T) == 4)
        return copysignf(a, b);
    else
        return copysign(a, b);
}

/* Python's float // (NumPy's npy_divmod), as in cpu_elementwise.c. */
template <typename T> __device__ __forceinline__ T floordiv_float(T a, T b)
{
    if (b == 0)
        return a / b;
    T mod = d_fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0)))
        div -= 1;
    if (div == 0)
        return d_copysign((T)0, a / b);
    T fl = d_floor(div);
    return div - fl > (T)0.5 ? fl + 1 : fl;
}

template <typename T> __device__ __forceinline__ T remainder_float(T a, T b)
{
    T mod = d_fmod(a, b);
    if (b == 0)
        return mod;
    if (mod == 0)
        return d_copysign((T)0, b);
    return (b < 0) != (mod < 0) ? mod + b : mod;
}

template <typename T> __device__ __forceinline__ T floordiv_int(T a, T b)
{
    typedef typename wrap_type<T>::type U;
    if (b == 0)
        return 0;
    if (b == -1)
        return (T)((U)0 - (U)a);
    T q = a / b, r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q;
}

/* div(rounding_mode='trunc') of integers: C's /, with x / 0 = 0 and MIN / -1
 * wrapping, as floordiv_int (Note [integer division by zero]). */
template <typename T> __device__ __forceinline__ T truncdiv_int(T a, T b)
{
    typedef typename wrap_type<T>::type U;
    return b == 0 ? 0 : b == -1 ? (T)((U)0 - (U)a) : a / b;
}

template <typename T> __device__ __forceinline__ T remainder_int(T a, T b)
{
    if (b == 0 || b == -1)
        return 0;
    T r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

template <typename T> __device__ __forceinline__ T pow_int(T base, T e)
{
    typedef typename wrap_type<T>::type U;
    if (e < 0)
        return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
    U r = 1, b = (U)base;
    for (; e; e >>= 1, b *= b)
        if (e & 1)
            r *= b;
    return (T)r;
}

template <int OP, typename T>
using out_t = typename std::conditional<is_comparison(OP), uint8_t, T>::type;

template <int OP, typename T> __device__ __forceinline__ out_t<OP, T> apply_binary(T x, T y)
{
    typedef typename wrap_type<T>::type U;
    if constexpr (is_small_v<T>) { /* int32's, narrowed (Note [small integers], pdt_dtype.h) */
        const auto r = apply_binary<OP, int32_t>(widen(x), widen(y));
        if constexpr (is_comparison(OP))
            return r;
        else
            return narrow<T>(r);
    } else if constexpr (is_comparison(OP)) {
        if constexpr (is_bool_v<T>) {
            x = x != 0;
            y = y != 0;
        }
        if constexpr (OP == PDT_OP_EQ)
            return x == y;
        else if constexpr (OP == PDT_OP_NE)
            return x != y;
        else if constexpr (OP == PDT_OP_LT)
            return x < y;
        else if constexpr (OP == PDT_OP_LE)
            return x <= y;
        else if constexpr (OP == PDT_OP_GT)
            return x > y;
        else
            return x >= y;
    } else if constexpr (is_bool_v<T>) { /* + and maximum: or; * and minimum: and */
        if constexpr (OP == PDT_OP_ADD || OP == PDT_OP_MAXIMUM)
            return (x | y) != 0;
        else
            return (x != 0) & (y != 0);
    } else if constexpr (OP == PDT_OP_BITWISE_AND) {
        return x & y;
    } else if constexpr (OP == PDT_OP_BITWISE_OR) {
        return x | y;
    } else if constexpr (OP == PDT_OP_BITWISE_XOR) {
        return x ^ y;
    } else if constexpr (OP == PDT_OP_SHIFT_LEFT) { /* Note [shifts] in pdt_elementwise.h */
        return (U)y >= sizeof(T) * 8 ? (T)0 : (T)((U)x << y);
    } else if constexpr (OP == PDT_OP_SHIFT_RIGHT) {
        return (U)y >= sizeof(T) * 8 ? (T)(x < 0 ? -1 : 0) : (T)(x >> y);
    } else if constexpr (OP == PDT_OP_ADD) {
        return (T)((U)x + (U)y);
    } else if constexpr (OP == PDT_OP_SUB) {
        return (T)((U)x - (U)y);
    } else if constexpr (OP == PDT_OP_MUL) {
        return (T)((U)x * (U)y);
    } else if constexpr (OP == PDT_OP_DIV) {
        return x / y;
    } else if constexpr (OP == PDT_OP_FLOOR_DIV) {
        if constexpr (is_float_v<T>)
            return floordiv_float(x, y);
        else
            return floordiv_int(x, y);
    } else if constexpr (OP == PDT_OP_TRUNC_DIV) {
        if constexpr (is_float_v<T>)
            return d_trunc(x / y);
        else
            return truncdiv_int(x, y);
    } else if constexpr (OP == PDT_OP_REMAINDER) {
        if constexpr (is_float_v<T>)
            return remainder_float(x, y);
        else
            return remainder_int(x, y);
    } else if constexpr (OP == PDT_OP_FMOD) { /* exact; an integer divisor 0 gives 0 here */
        if constexpr (is_float_v<T>)
            return d_fmod(x, y);
        else
            return y == 0 || y == (T)-1 ? (T)0 : (T)(x % y);
    } else if constexpr (OP == PDT_OP_HYPOT) { /* hypotf 3 ulp, hypot 2 ulp (CUDA Math API) */
        if constexpr (sizeof(T) == 4)
            return hypotf(x, y);
        else
            return hypot(x, y);
    } else if constexpr (OP == PDT_OP_COPYSIGN) {
        return d_copysign(x, y);
    } else if constexpr (OP == PDT_OP_LOGADDEXP || OP == PDT_OP_LOGADDEXP2) {
        /* Note [float binary functions] (pdt_elementwise.c): max(x, y) + log1p(e^-|x - y|), the
         * difference of two equal values (infinities too) 0, NaN carried by the max */
        T m = x != x ? x : y != y ? y : x < y ? y : x;
        T d = x == y ? (T)0 : x < y ? x - y : y - x; /* -|x - y|, NaN when either is */
        if constexpr (OP == PDT_OP_LOGADDEXP && sizeof(T) == 4)
            return m + log1pf(expf(d));
        else if constexpr (OP == PDT_OP_LOGADDEXP)
            return m + log1p(exp(d));
        else if constexpr (sizeof(T) == 4)
            return m + log1pf(exp2f(d)) * 1.44269504088896341f;
        else
            return m + log1p(exp2(d)) * 1.44269504088896341;
    } else if constexpr (OP == PDT_OP_ATAN2) { /* atan2f 3 ulp, atan2 2 ulp (CUDA Math API) */
        if constexpr (sizeof(T) == 4)
            return atan2f(x, y);
        else
            return atan2(x, y);
    } else if constexpr (OP == PDT_OP_POW) {
        if constexpr (sizeof(T) == 4 && is_float_v<T>)
            return powf(x, y);
        else if constexpr (is_float_v<T>)
            return pow(x, y);
        else
            return pow_int(x, y);
    } else if constexpr (is_float_v<T>) { /* maximum, minimum: NaN wins */
        if (x != x || y != y)
            return x != x ? x : y;
        if constexpr (OP == PDT_OP_MAXIMUM)
            return x < y ? y : x;
        else
            return y < x ? y : x;
    } else {
        if constexpr (OP == PDT_OP_MAXIMUM)
            return x < y ? y : x;
        else
            return y < x ? y : x;
    }
}

/* tan, the inverse trigonometric and hyperbolic functions, log2, log10, exp2, rsqrt, erfinv:
 * CUDA's float32 and float64 functions.  Their maximum errors in ulps (CUDA Math API,
 * "Mathematical Functions" appendix of the CUDA C++ Programming Guide), float32 / float64:
 * tan 4/2, asin 2/2, acos 2/2, atan 2/2, asinh 3/3, acosh 4/3, atanh 3/2, sinh 3/2,
 * cosh 2/1, log2 1/1, log10 2/1, exp2 2/1, rsqrt 2/1, erfinv 2/5 (atan2: 3/2).  The CPU's float32
 * ones are within 0.5 to 1.5 ulp (Note [float32 inverse functions] in cpu_vtrig.h, Note
 * [float32 sinh and cosh] in cpu_vhyper.h, Note [float32 exp2] in cpu_vexp2.h), so the two agree within CUDA's bound plus
 * the CPU's (tests/test_trig.py). */
template <int OP, typename T> __device__ __forceinline__ T trig_of(T x)
{
    constexpr bool f32 = sizeof(T) == 4;
    if constexpr (OP == PDT_OP_TAN)
        return f32 ? tanf(x) : tan(x);
    else if constexpr (OP == PDT_OP_ASIN)
        return f32 ? asinf(x) : asin(x);
    else if constexpr (OP == PDT_OP_ACOS)
        return f32 ? acosf(x) : acos(x);
    else if constexpr (OP == PDT_OP_ATAN)
        return f32 ? atanf(x) : atan(x);
    else if constexpr (OP == PDT_OP_ASINH)
        return f32 ? asinhf(x) : asinh(x);
    else if constexpr (OP == PDT_OP_ACOSH)
        return f32 ? acoshf(x) : acosh(x);
    else if constexpr (OP == PDT_OP_ATANH)
        return f32 ? atanhf(x) : atanh(x);
    else if constexpr (OP == PDT_OP_SINH)
        return f32 ? sinhf(x) : sinh(x);
    else if constexpr (OP == PDT_OP_COSH)
        return f32 ? coshf(x) : cosh(x);
    else if constexpr (OP == PDT_OP_LOG2)
        return f32 ? log2f(x) : log2(x);
    else if constexpr (OP == PDT_OP_LOG10)
        return f32 ? log10f(x) : log10(x);
    else if constexpr (OP == PDT_OP_EXP2) /* exp2f 2 ulp, exp2 1 ulp (CUDA Math API) */
        return f32 ? exp2f(x) : exp2(x);
    else if constexpr (OP == PDT_OP_RSQRT)
        return f32 ? rsqrtf(x) : rsqrt(x);
    else
        return f32 ? erfinvf(x) : erfinv(x);
}

template <int OP, typename T> __device__ __forceinline__ T apply_unary(T x, T lo, T hi)
{
    typedef typename wrap_type<T>::type U;
    constexpr bool f32 = sizeof(T) == 4 && is_float_v<T>;
    if constexpr (is_small_v<T>) /* int32's, narrowed (Note [small integers], pdt_dtype.h) */
        return narrow<T>(apply_unary<OP, int32_t>(widen(x), widen(lo), widen(hi)));
    else if constexpr (is_bool_v<T>)
        return x != 0;                    /* abs, relu and sign */
    else if constexpr (OP == PDT_OP_SIGN) /* +0 for zeros, NaN for NaN (cpu_simd.h) */
        return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x == (T)0 ? (T)0 : x;
    else if constexpr (is_rounding(OP) && !is_float_v<T>)
        return x; /* integers are whole already */
    else if constexpr (OP == PDT_OP_FLOOR)
        return f32 ? floorf(x) : floor(x);
    else if constexpr (OP == PDT_OP_CEIL)
        return f32 ? ceilf(x) : ceil(x);
    else if constexpr (OP == PDT_OP_ROUND) /* halves to even, as the CPU's nearbyint */
        return f32 ? rintf(x) : rint(x);
    else if constexpr (OP == PDT_OP_TRUNC)
        return f32 ? truncf(x) : trunc(x);
    else if constexpr (OP == PDT_OP_LOG1P) /* float32 through float64, as on the CPU */
        return (T)log1p((double)x);
    else if constexpr (OP == PDT_OP_EXPM1)
        return (T)expm1((double)x);
    else if constexpr (OP == PDT_OP_ERF) /* CUDA Math API: erff 2 ulp, erf 2 ulp */
        return f32 ? erff(x) : erf(x);
    else if constexpr (OP == PDT_OP_ERFC) /* erfcf 4 ulp, erfc 5 ulp (CUDA Math API) */
        return f32 ? erfcf(x) : erfc(x);
    else if constexpr (OP == PDT_OP_LGAMMA) /* lgamma 4 ulp outside [-23.0001, -2.2637]; */
        return (T)lgamma(
            (double)x); /* float32 through it, as on the CPU (its FP64 cost: Note [digamma]) */
    else if constexpr (OP == PDT_OP_DIGAMMA) /* Note [digamma] in pdt_gamma.h */
        return (T)pdt_digamma((double)x);
    else if constexpr (OP >= PDT_OP_TAN && OP <= PDT_OP_ERFINV)
        return trig_of<OP>(x);
    else if constexpr (OP == PDT_OP_GELU) /* Note [float32 gelu] in cpu_vgelu.h */
        return gelu_of(x);
    else if constexpr (OP == PDT_OP_GELU_GRAD)
        return gelu_grad_of(x);
    else if constexpr (OP == PDT_OP_NEG)
        return is_float_v<T> ? -x : (T)((U)0 - (U)x);
    else if constexpr (OP == PDT_OP_ABS) {
        if constexpr (is_float_v<T>)
            return f32 ? fabsf(x) : fabs(x);
        else
            return x < 0 ? (T)((U)0 - (U)x) : x;
    } else if constexpr (OP == PDT_OP_RELU)
        return x < 0 ? (T)0 : x;
    else if constexpr (OP == PDT_OP_CLAMP)
        return x < lo ? (lo > hi ? hi : lo) : x > hi ? hi : x;
    else if constexpr (OP == PDT_OP_EXP)
        return f32 ? expf(x) : exp(x);
    else if constexpr (OP == PDT_OP_LOG)
        return f32 ? logf(x) : log(x);
    else if constexpr (OP == PDT_OP_SQRT)
        return f32 ? sqrtf(x) : sqrt(x);
    else if constexpr (OP == PDT_OP_SIN)
        return f32 ? sinf(x) : sin(x);
    else if constexpr (OP == PDT_OP_COS)
        return f32 ? cosf(x) : cos(x);
    else if constexpr (OP == PDT_OP_TANH)
        return tanh_of(x); /* cuda_activation.cuh, shared with the fused cells */
    else
        return sigmoid_of(x);
}

#endif /* PDT_CUDA_ELEMENT_OPS_CUH */
