"""tan, the inverse trigonometric and hyperbolic functions (and NumPy's arc* names, as
PyTorch has them), sinh, cosh, atan2, log2, log10, rsqrt and erfinv (C:
csrc/python/tensor_trig.c), deg2rad and rad2deg (a product with pi/180, as PyTorch's) and
logcumsumexp.

Accuracy (tests/test_trig.py), float32 on the CPU: on processors with AVX2 or AVX-512
vector evaluations in float32 (Note [float32 inverse functions] in
csrc/cpu/cpu_vtrig.h) within tan 1.5, asin 0.75, acos 0.75, atan 1, atan2 1, asinh 1.5,
acosh 1.5, atanh 1, log2 0.75, log10 0.75 and rsqrt 0.501 ulp of the exact value;
otherwise (and erfinv always) the C library's double functions, rounded once, within
0.501 ulp; sinh and cosh within 1.5 ulp at every level (Note [float32 sinh and cosh] in
csrc/cpu/cpu_vhyper.h).  float64 on the CPU: tan (to 2^20; past it the C library's), asin,
acos, atan, atanh, asinh, acosh, sinh, cosh, log2 and log10 within 1 ulp, evaluated in vector
lanes (Note [float64 functions from the cores] in
csrc/cpu/cpu_vfunc64.h); erfinv: Note [erfinv] in csrc/cpu/cpu_erfinv.h.  On CUDA, CUDA's functions within the CUDA Math API's bounds
(the table in csrc/cuda/cuda_elementwise.cu), so the two devices agree within the sum
of the two bounds.
"""
import math

from . import _C
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg
from ._ops_join import cat
from ._ops_nan import logaddexp
from ._out import _out_written, refuse_grad
from ._ops_pointwise import _in_place

tan = _C.tan
asin = _C.asin
acos = _C.acos
atan = _C.atan
asinh = _C.asinh
acosh = _C.acosh
atanh = _C.atanh
sinh = _C.sinh
cosh = _C.cosh
atan2 = _C.atan2
arcsin = _C.arcsin
arccos = _C.arccos
arctan = _C.arctan
arcsinh = _C.arcsinh
arccosh = _C.arccosh
arctanh = _C.arctanh
arctan2 = _C.arctan2
log2 = _C.log2
log10 = _C.log10
rsqrt = _C.rsqrt
erfinv = _C.erfinv


def _scaled(op, input, factor, out):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{op}(): argument 'input' must be a Tensor, got "
                        f"{type(input).__name__}")
    x = input if input.is_floating_point() else input.to(_C.float32)
    return _C.mul(x, factor) if out is None else _C.mul(x, factor, out=out)


def deg2rad(input, *, out=None):
    """Degrees to radians elementwise: ``input * (pi / 180)``, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Angles in degrees (integers and bools give float32).
    out : Tensor, optional
        Where to write the result.

    Returns
    -------
    Tensor
        Of input's shape, on its device (also the method ``x.deg2rad()`` and the
        in-place ``x.deg2rad_()``).

    Examples
    --------
    >>> pydevtensor.deg2rad(pydevtensor.tensor([180.0, 90.0, -45.0]))
    tensor([ 3.1416,  1.5708, -0.7854])
    """
    return _scaled("deg2rad", input, math.pi / 180.0, out)


def rad2deg(input, *, out=None):
    """Radians to degrees elementwise: ``input * (180 / pi)``, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Angles in radians (integers and bools give float32).
    out : Tensor, optional
        Where to write the result.

    Returns
    -------
    Tensor
        Of input's shape, on its device (also the method ``x.rad2deg()`` and the
        in-place ``x.rad2deg_()``).

    Examples
    --------
    >>> pydevtensor.rad2deg(pydevtensor.tensor([3.141592653589793, -1.0]))
    tensor([180.0000, -57.2958])
    """
    return _scaled("rad2deg", input, 180.0 / math.pi, out)


@numpy_names
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input), dim))`` without overflow or underflow: a scan of
    logaddexp along dim (Hillis and Steele's: ceil(log2(n)) passes of logaddexp of the
    running values and those k places before, for k = 1, 2, 4, ...), so each element is
    exact to a few ulps whatever the range of the values; autograd records the
    logaddexps (the gradient: input's softmax weights within each prefix).

    Parameters
    ----------
    input : Tensor
        Floating point (integers and bools: TypeError, as PyTorch refuses them).
    dim : int
        The dimension of the scan (negative counts from the end).
    out : Tensor, optional
        Written with the result and returned: of its dtype and device, and its shape or
        no elements (then given the result's shape).

    Returns
    -------
    Tensor
        Of input's shape and dtype, on its device (also the method
        ``x.logcumsumexp(dim)``).

    Raises
    ------
    TypeError
        For an integer or bool input.
    IndexError
        When dim is out of range.
    RuntimeError
        For an out of another dtype, device or shape, or out= where input requires grad.

    Examples
    --------
    >>> pydevtensor.logcumsumexp(pydevtensor.tensor([0.0, 0.0, 1000.0, -1000.0]), 0)
    tensor([0.0000e+00, 6.9315e-01, 1.0000e+03, 1.0000e+03])
    """
    if out is not None:
        refuse_grad("logcumsumexp", input, out)
        return _out_written(logcumsumexp(input, dim), out, "logcumsumexp")
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"logcumsumexp(): argument 'input' must be a Tensor, got "
                        f"{type(input).__name__}")
    if not input.is_floating_point():
        raise _C.DTypeError(f"logcumsumexp(): expected a floating point tensor, got {input.dtype} "
                            f"(shape {tuple(input.shape)}, on {input.device})")
    dim = _int_arg(dim, "logcumsumexp", "dim")  # NumPy's ints too, as PyTorch's
    d = _dim(dim, input.ndim, "logcumsumexp", input)  # out of range: PyTorch's IndexError
    y = input if input.ndim else input.reshape(1)
    half = input.dtype if input.dtype in (_C.float16, _C.bfloat16) else None
    if half:  # the log2(n) rounds in float32, the result rounded once (PyTorch's opmath)
        y = y.float()
    n = y.shape[d]
    k = 1
    while k < n:
        head = y.narrow(d, 0, k)
        tail = logaddexp(y.narrow(d, k, n - k), y.narrow(d, 0, n - k))
        y = cat([head, tail], d)
        k *= 2
    if half:
        y = y.to(half)
    elif k == 1:  # nothing was added up (n <= 1): y is input, or a view of it
        y = y.clone()
    if input.ndim == 0:
        y = y.reshape(())
    return y


for _fn, _example in ((deg2rad, ("", "tensor([0.0175, 0.0349])")),
                      (rad2deg, ("", "tensor([ 57.2958, 114.5916])"))):
    setattr(_C.Tensor, _fn.__name__, _fn)
    setattr(_C.Tensor, _fn.__name__ + "_", _in_place(_fn, _example))
_C.Tensor.logcumsumexp = logcumsumexp

__all__ = ["acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
           "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "deg2rad", "erfinv",
           "log10", "log2", "logcumsumexp", "rad2deg", "rsqrt", "cosh", "sinh", "tan"]
