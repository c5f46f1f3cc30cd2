"""PyTorch's names that a real-valued library answers simply: isposinf, isneginf,
is_complex, isreal, conj, resolve_conj, resolve_neg, adjoint (and ``x.H``), vdot,
pinverse and sum_to_size; and the random fills ``exponential_``, ``geometric_``,
``cauchy_`` and ``log_normal_``, drawn from ``uniform_``'s and ``normal_``'s Philox
samples (the same values on every device, up to the stated bound of the functions
applied: Note [vector math accuracy] in csrc/cpu/cpu_vmath.h)."""
import math
import numbers

from . import _C, _args
from ._ops_index import _tensor_arg
from ._out import _out_written, takes_out
from ._runtime_flags import outside_level, warn_once
from .autograd.dispatch import (CauchyBackward0, ExponentialBackward0, LogNormalBackward0,
                                overwrite_in_place)

__all__ = ["adjoint", "conj", "imag", "is_complex", "is_conj", "is_neg", "is_same_size",
           "is_signed", "isneginf", "isposinf", "isreal",
           "pinverse", "real", "resolve_conj", "resolve_neg", "vdot"]


def _where(t):
    return f"(a tensor of shape {tuple(t.shape)}, {t.dtype.name}, on {t.device})"


def isposinf(input, *, out=None):
    if out is not None:  # bool, as PyTorch's; no gradient
        return _out_written(isposinf(input), out, "isposinf")
    _tensor_arg(input, "isposinf")
    return input == math.inf if input.is_floating_point() else input != input


def isneginf(input, *, out=None):
    if out is not None:
        return _out_written(isneginf(input), out, "isneginf")
    _tensor_arg(input, "isneginf")
    return input == -math.inf if input.is_floating_point() else input != input


_INF_DOC = """Where input is {sign}inf (False everywhere for integers and bools).

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.{name}()``).
    out : Tensor, optional
        Written with the result and returned: bool (as PyTorch's), input's device, and
        input's shape or no elements (then given it).

    Returns
    -------
    Tensor
        bool, of input's shape.

    Raises
    ------
    RuntimeError
        For an out of another dtype, device or shape.

    Examples
    --------
    >>> pydevtensor.{name}(pydevtensor.tensor([1., float("inf"), -float("inf")]))
    {out}
    """
isposinf.__doc__ = _INF_DOC.format(sign="+", name="isposinf",
                                   out="tensor([False,  True, False])")
isneginf.__doc__ = _INF_DOC.format(sign="-", name="isneginf",
                                   out="tensor([False, False,  True])")


def is_complex(input):
    """False: pydevtensor has no complex dtypes.

    Parameters
    ----------
    input : Tensor
        Any tensor (also the method ``x.is_complex()``).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.is_complex(pydevtensor.ones(2))
    False
    """
    _tensor_arg(input, "is_complex")
    return False


def _no_lazy_bit(name, why, example):
    """torch.{name}: always False here (with input's type checked), documented."""
    def predicate(input):
        _tensor_arg(input, name)
        return False
    predicate.__name__ = predicate.__qualname__ = name
    predicate.__doc__ = f"""False: {why}, as ``torch.{name}``.

    Parameters
    ----------
    input : Tensor
        Any tensor (also the method ``x.{name}()``).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input is not a Tensor.

    Examples
    --------
    >>> pydevtensor.{name}({example})
    False
    """
    return predicate


is_conj = _no_lazy_bit("is_conj", "pydevtensor has no complex dtypes, so no tensor carries "
                       "PyTorch's lazy conjugation bit", "pydevtensor.ones(2).conj()")
is_neg = _no_lazy_bit("is_neg", "no tensor here carries PyTorch's lazy negation bit (set only "
                      "by conjugating complex views, which pydevtensor lacks)",
                      "-pydevtensor.ones(2)")


def is_signed(input):
    """Whether input's dtype holds negative values (the floating dtypes and int8 to
    int64; not uint8 or bool), as ``torch.is_signed``.

    Parameters
    ----------
    input : Tensor
        Any tensor (also the method ``x.is_signed()``).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input is not a Tensor.

    Examples
    --------
    >>> pydevtensor.is_signed(pydevtensor.ones(2)), pydevtensor.is_signed(
    ...     pydevtensor.ones(2, dtype=pydevtensor.uint8))
    (True, False)
    """
    _tensor_arg(input, "is_signed")
    return input.is_signed()


def is_same_size(input, other):
    """Whether two tensors have the same shape (dtypes and devices may differ), as
    ``torch.is_same_size``.

    Parameters
    ----------
    input, other : Tensor
        The tensors (also the method ``x.is_same_size(other)``).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input or other is not a Tensor.

    Examples
    --------
    >>> x = pydevtensor.ones(2, 3)
    >>> pydevtensor.is_same_size(x, pydevtensor.zeros(2, 3)), pydevtensor.is_same_size(x, x.T)
    (True, False)
    """
    _tensor_arg(input, "is_same_size")
    _tensor_arg(other, "is_same_size", "other")
    return input.is_same_size(other)


def isreal(input):
    """True everywhere: every dtype here is real.

    Parameters
    ----------
    input : Tensor
        Any tensor (also the method ``x.isreal()``).

    Returns
    -------
    Tensor
        bool, of input's shape, on its device.

    Examples
    --------
    >>> pydevtensor.isreal(pydevtensor.tensor([1., float("nan")]))
    tensor([True, True])
    """
    _tensor_arg(input, "isreal")
    return _C.ones(tuple(input.shape), dtype=_C.bool, device=input.device)


def conj(input):
    """input itself: the conjugate of a real tensor (as PyTorch's conj of a real one).

    Parameters
    ----------
    input : Tensor
        Any tensor (also the methods ``x.conj()``, ``x.resolve_conj()`` and
        ``x.resolve_neg()``, which do the same here).

    Returns
    -------
    Tensor
        input (the same object).

    Examples
    --------
    >>> x = pydevtensor.ones(2)
    >>> pydevtensor.conj(x) is x
    True
    """
    _tensor_arg(input, "conj")
    return input


resolve_conj = resolve_neg = conj


def real(input):
    """The real part: input itself for a real tensor (as PyTorch's real of a real one,
    which returns input).

    Parameters
    ----------
    input : Tensor
        Any tensor (also the property ``x.real``).

    Returns
    -------
    Tensor
        input (the same object).

    Examples
    --------
    >>> x = pydevtensor.tensor([1.5, -2.0])
    >>> pydevtensor.real(x) is x
    True
    """
    _tensor_arg(input, "real")
    return input


def imag(input):
    """The imaginary part, which real tensors do not have: raises, as PyTorch's imag of a
    real tensor does (pydevtensor has no complex dtypes).

    Parameters
    ----------
    input : Tensor
        Any tensor (also the property ``x.imag``).

    Returns
    -------
    Tensor
        Never: pydevtensor's tensors are real.

    Raises
    ------
    TypeError
        Always (for a Tensor: its dtype is not complex).

    Examples
    --------
    >>> pydevtensor.imag(pydevtensor.ones(2))
    Traceback (most recent call last):
        ...
    TypeError: imag is not implemented for tensors with non-complex dtypes (float32).
    """
    _tensor_arg(input, "imag")
    return input.imag


_WARNED_0D = set()


def _identity_on_0d(self, name, hint):
    """self, for name (H, mH, mT, adjoint()) of a 0-d tensor: PyTorch 2.15's returns the
    tensor itself there and warns once per process (TORCH_WARN_ONCE) that it is
    deprecated, at the user's line (also on the first read, which loads the method)."""
    warn_once(_WARNED_0D, name, f"{name} is deprecated on 0-D tensors. {hint}",
              outside_level())
    return self


def adjoint(input):
    """The conjugate transpose of each matrix: ``input.transpose(-2, -1)`` (a view), the
    conjugate being the identity here.

    Parameters
    ----------
    input : Tensor
        At least 2-d (also the method ``x.adjoint()``; ``x.H`` for a 2-d one).

    Returns
    -------
    Tensor
        A view with the last two dimensions swapped.

    Raises
    ------
    RuntimeError
        When input is 1-d (a 0-d input is returned itself, with PyTorch's deprecation
        warning).

    Examples
    --------
    >>> pydevtensor.adjoint(pydevtensor.zeros(4, 2, 3)).shape
    pydevtensor.Size([4, 3, 2])
    """
    _tensor_arg(input, "adjoint")
    if input.ndim == 0:
        return _identity_on_0d(input, "adjoint()", "Consider using x.conj().")
    if input.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.ndim}-D tensor {_where(input)}.")
    return input.transpose(-2, -1)


def _H(self):
    """The conjugate transpose of a matrix: ``self.t()`` for the 2-d tensors here.

    Returns
    -------
    Tensor
        A view.

    Examples
    --------
    >>> pydevtensor.zeros(2, 3).H.shape
    pydevtensor.Size([3, 2])
    """
    if self.ndim == 0:
        return _identity_on_0d(self, "Tensor.H", "Consider using x.conj().")
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor {_where(self)}.")
    return self.t()


@takes_out("vdot")
def vdot(input, other):
    """The dot product of two 1-d tensors (the first conjugated, the identity here): ``dot``.

    Parameters
    ----------
    input, other : Tensor
        1-d, of the same size and dtype (also the method ``x.vdot(other)``).

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        When either is not 1-d, or their sizes or dtypes differ.

    Examples
    --------
    >>> pydevtensor.vdot(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([3., 4.]))
    tensor(11.)
    """
    _tensor_arg(input, "vdot")
    _tensor_arg(other, "vdot", "other")
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           f"tensors {_where(input)}")
    return _C.dot(input, other)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse of each matrix, singular values at or below ``rcond`` times the
    largest taken as zero: ``linalg.pinv(input, rtol=rcond)``.

    Parameters
    ----------
    input : Tensor
        At least 2-d, floating point (also the method ``x.pinverse(rcond)``).
    rcond : float, optional
        The relative cut-off (default 1e-15).

    Returns
    -------
    Tensor
        Of shape ``(..., n, m)`` for input ``(..., m, n)``.

    Examples
    --------
    >>> pydevtensor.pinverse(pydevtensor.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    from .linalg import pinv

    _tensor_arg(input, "pinverse")
    if not isinstance(rcond, (float, _C.Tensor)):
        _real_arg(rcond, "rcond", "pinverse")
    return pinv(input, rtol=rcond)


def _sum_to_size(self, *size, **keyword):
    """self summed to size, over the dimensions broadcasting would add or expand (the
    reverse of ``expand``): the gradient of a broadcast operand.

    Parameters
    ----------
    *size : ints, or one sequence of ints
        A shape that broadcasts to self's; or by keyword, ``size=(1, 3)``.

    Returns
    -------
    Tensor
        Of shape size (self itself when it has it); an integer or bool self summed
        gives int64, as ``sum`` does.

    Raises
    ------
    RuntimeError
        When size does not broadcast to self's shape.

    Examples
    --------
    >>> pydevtensor.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    if keyword:
        from ._tensor_resize import _size_keyword
        size = _size_keyword(size, keyword.pop("size", None), "sum_to_size")
        if keyword:
            raise TypeError(f"sum_to_size() got an unexpected keyword argument "
                            f"'{next(iter(keyword))}'")
    if len(size) == 1 and not isinstance(size[0], int):
        size = _args.sequence(size[0], "sum_to_size", "size", single=True)
    size = tuple(_args.integer(s, "sum_to_size", "size") for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {list(size)} is not expandable to size {list(shape)} "
                           f"{_where(self)}")
    from .autograd.derivatives import reduce_grad  # a broadcast operand's gradient: the same sum

    if size != shape and not self.is_floating_point():
        return _int_sum_to(self, size, lead)
    return reduce_grad(self, (size, self.dtype, self.device))


def _int_sum_to(self, size, lead):
    """An integer or bool tensor summed to size: int64, as sum() gives it (PyTorch's)."""
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and self.shape[lead + i] != 1)
    return self.sum(dims, keepdim=True).reshape(size) if dims else self.to(_C.int64)


def _floating(self, name):
    if not self.is_floating_point():
        raise _C.DTypeError(f"{name} expects a floating point tensor, got {_where(self)}")


def _fill_doc(summary, params, raises, example):
    """A random fill's docstring: its own summary, parameters, refusals and example
    around the sections they share."""
    return f"""{summary}

    Parameters
    ----------
{params}    generator : pydevtensor.Generator, optional
        The generator (default the device's).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        {raises}
    pydevtensor.DTypeError
        When self's dtype cannot hold the samples.

    Examples
    --------
{example}    """


def _from_uniform(self, generator, transform):
    """self filled with transform(U[0, 1)) in place.  A float16 or bfloat16 self takes
    draws made and transformed in float32, rounded once: a half uniform's top step
    (1 - 2^-11) would cut the tails (exponential_ at 7.6, bfloat16 5.5) and bias the
    mean."""
    if self.dtype not in (_C.float16, _C.bfloat16):
        return transform(self.uniform_(generator=generator))
    u = _C.empty(tuple(self.shape), dtype=_C.float32, device=self.device)
    return self.copy_(transform(u.uniform_(generator=generator)))


def _exponential_(self, lambd=1.0, *, generator=None):
    _floating(self, "exponential_")
    lambd = _real_arg(lambd, "lambd", "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return overwrite_in_place(self, ExponentialBackward0, lambda: _from_uniform(
        self, generator, lambda u: u.neg_().log1p_().mul_(-1.0 / lambd)))


def _geometric_(self, p, *, generator=None):
    p = _real_arg(p, "p", "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self.dtype == _C.bool:
        raise _C.DTypeError(f"geometric_ does not take bool tensors {_where(self)}")
    u = _C.empty(tuple(self.shape), dtype=_C.float64, device=self.device)
    k = u.uniform_(generator=generator).neg_().log1p_().div_(math.log1p(-p)).ceil_()
    return self.copy_(k.clamp_(min=1.0))


def _real_arg(value, name, op):
    """value as a float, or a TypeError naming op and the argument (checked before any
    write, so a bad argument leaves the tensor as it was)."""
    if isinstance(value, _C.Tensor) and value.numel() == 1 and not value.dtype == _C.bool:
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op}(): argument '{name}' must be a number, got "
                        f"{type(value).__name__}")
    return float(value)


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _floating(self, "cauchy_")
    median, sigma = _real_arg(median, "median", "cauchy_"), _real_arg(sigma, "sigma", "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return overwrite_in_place(self, CauchyBackward0, lambda: _from_uniform(
        self, generator, lambda u: u.sub_(0.5).mul_(math.pi).tan_().mul_(sigma).add_(median)))


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _floating(self, "log_normal_")
    mean, std = _real_arg(mean, "mean", "log_normal_"), _real_arg(std, "std", "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return overwrite_in_place(self, LogNormalBackward0,
                              lambda: self.normal_(mean, std, generator=generator).exp_())


_exponential_.__doc__ = _fill_doc(
    "Fills self (floating point) with samples of the exponential distribution of rate\n"
    "    lambd: ``-log(1 - U) / lambd`` of ``uniform_``'s samples U in [0, 1).",
    "    lambd : float, optional\n        The rate (> 0, default 1).\n",
    "When lambd is not positive.",
    "    >>> x = pydevtensor.empty(1000).exponential_(2.0)\n"
    "    >>> bool(x.min() >= 0) and abs(float(x.mean()) - 0.5) < 0.1\n    True\n")
_geometric_.__doc__ = _fill_doc(
    "Fills self (any dtype but bool) with samples of the geometric distribution of\n"
    "    success probability p on {1, 2, ...}: ``ceil(log(1 - U) / log(1 - p))``, at least 1,\n"
    "    of ``uniform_``'s U.",
    "    p : float\n        The success probability, in (0, 1).\n",
    "When p is not in (0, 1).",
    "    >>> x = pydevtensor.empty(1000).geometric_(0.5)\n"
    "    >>> bool(x.min() >= 1) and abs(float(x.mean()) - 2.0) < 0.3\n    True\n")
_cauchy_.__doc__ = _fill_doc(
    "Fills self (floating point) with samples of the Cauchy distribution:\n"
    "    ``median + sigma tan(pi (U - 1/2))`` of ``uniform_``'s U.",
    "    median : float, optional\n        The location (default 0).\n"
    "    sigma : float, optional\n        The scale (> 0, default 1).\n",
    "When sigma is not positive.",
    "    >>> x = pydevtensor.empty(1001).cauchy_(3.0)\n"
    "    >>> abs(float(x.median()) - 3.0) < 0.3\n    True\n")
_log_normal_.__doc__ = _fill_doc(
    "Fills self (floating point) with samples of the log-normal distribution:\n"
    "    ``exp(N(mean, std))`` of ``normal_``'s samples.",
    "    mean, std : float, optional\n        The mean (default 1) and standard deviation (> 0,"
    " default 2)\n        of the logarithm.\n",
    "When std is not positive.",
    "    >>> x = pydevtensor.empty(1001).log_normal_(0.0, 0.5)\n"
    "    >>> bool(x.min() > 0) and abs(float(x.log().mean())) < 0.1\n    True\n")


for _name, _fn in (("isposinf", isposinf), ("isneginf", isneginf), ("is_complex", is_complex),
                   ("is_conj", is_conj), ("is_neg", is_neg),
                   ("isreal", isreal), ("conj", conj), ("resolve_conj", conj),
                   ("resolve_neg", conj), ("adjoint", adjoint), ("vdot", vdot),
                   ("pinverse", pinverse), ("sum_to_size", _sum_to_size),
                   ("exponential_", _exponential_), ("geometric_", _geometric_),
                   ("cauchy_", _cauchy_), ("log_normal_", _log_normal_)):
    setattr(_C.Tensor, _name, _fn)
_C.Tensor.H = property(_H)
