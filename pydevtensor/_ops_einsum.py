"""Products written as compositions (issue 17): outer and einsum.

Like _ops_join.py's ops they are built of device-generic pieces - views,
broadcasting, sums and ``matmul`` - so they run on every device without kernels of
their own, and autograd records the pieces.  Every operand must be on one device;
a tensor on another is refused with a RuntimeError naming both.
"""
import builtins
import functools
import numbers

from . import _C
from ._ops_index import _tensor_arg, result_type
from ._ops_join import _same_device, expand
from ._out import takes_out


@takes_out("outer", castable=True)
def outer(input, vec2):
    """The outer product of two 1-d tensors: out[i, j] = input[i] * vec2[j].

    Parameters
    ----------
    input : Tensor
        1-D, of size n (also the methods ``x.outer(y)`` and ``x.ger(y)``).
    vec2 : Tensor
        1-D, of size m.

    Returns
    -------
    Tensor
        Of shape (n, m).

    Raises
    ------
    RuntimeError
        When an operand is not 1-D.

    Examples
    --------
    >>> pydevtensor.outer(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 10., 100.]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """
    _tensor_arg(input, "outer")
    _tensor_arg(vec2, "outer", "vec2")
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected 1-D tensors, got shapes {tuple(input.shape)} and "
                           f"{tuple(vec2.shape)}")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def _parse_einsum(equation, operands):
    """(terms, rhs): one string of subscripts per operand and the output's, with
    each '...' replaced by letters of its own (the broadcast dims, right-aligned
    across the operands, as NumPy and PyTorch align them)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    # an equation that does not fit its operands is PyTorch's RuntimeError (the
    # InvalidArgumentError is also the ValueError these raised before)
    if len(terms) != len(operands):
        raise _C.InvalidArgumentError(
            f"einsum(): {len(terms)} operand subscripts in {equation!r} for {len(operands)} "
            f"operands ({'fewer' if len(operands) < len(terms) else 'more'} operands were "
            f"provided than specified in the equation)")
    for t in terms + [rhs]:
        if not all(c.isascii() and c.isalpha() for c in t.replace("...", "", 1)):
            raise _C.InvalidArgumentError(
                f"einsum(): invalid subscript in {equation!r} (letters, and at most one "
                f"'...' per operand)")
    ell = 0  # the most dims an ellipsis stands for
    for t, x in zip(terms, operands):
        if "..." in t:
            ell = builtins.max(ell, x.ndim - (len(t) - 3))
    fresh = [chr(0x100 + k) for k in range(ell)]  # letters no equation uses

    def expand_term(t, ndim):
        if "..." not in t:
            return t
        n = ndim - (len(t) - 3)
        if n < 0:
            raise RuntimeError(f"einsum(): the subscripts {t!r} have more dims than the "
                               f"operand's {ndim}")
        return t.replace("...", "".join(fresh[ell - n:]))

    terms = [expand_term(t, x.ndim) for t, x in zip(terms, operands)]
    if not arrow:
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        rhs = "".join(fresh) + "".join(sorted(c for c, k in counts.items()
                                              if k == 1 and c not in fresh))
    else:  # an output without '...' sums the ellipsis dims
        rhs = rhs.replace("...", "".join(fresh))
    used = "".join(terms)
    for c in rhs:
        if rhs.count(c) > 1 or c not in used:
            why = ("appears more than once in the output" if rhs.count(c) > 1 else
                   "does not appear in the equation for any input operand")
            raise _C.InvalidArgumentError(
                f"einsum(): invalid output subscripts in {equation!r}: output subscript "
                f"{'...' if ord(c) >= 0x100 else c} {why}")
    return terms, rhs


def _sum_out(x, term, keep):
    """x (subscripts term) summed over the letters not in keep; returns (x, term)."""
    dims = [i for i, c in enumerate(term) if c not in keep]
    if dims:
        x = x.sum(dim=tuple(dims))
        term = "".join(c for c in term if c in keep)
    return x, term


def _diagonals(x, term):
    """x with each repeated subscript reduced to its diagonal (the diagonal's dim
    goes last): 'ii' -> 'i'.  A permuted copy whose two dims merge into one, of
    which every (n+1)-th element is the diagonal: a slice, so it is differentiable
    and keeps inf and NaN off the diagonal out of the result."""
    while len(set(term)) != len(term):
        c = next(ch for k, ch in enumerate(term) if ch in term[k + 1:])
        i = term.index(c)
        j = term.index(c, i + 1)
        n = x.shape[i]
        if x.shape[j] != n:
            raise RuntimeError(f"einsum(): subscript {c!r} is repeated for dims of sizes {n} "
                               f"and {x.shape[j]} (operand of shape {tuple(x.shape)})")
        rest = [k for k in range(x.ndim) if k not in (i, j)]
        x = x.permute(*rest, i, j).contiguous()
        x = x.reshape(tuple(x.shape[:-2]) + (n * n,))[..., ::n + 1]
        term = "".join(term[k] for k in rest) + c
    return x, term


def _letters(ta, tb, rhs):
    """The letters of a product of ta and tb into rhs: (batch, contracted, a's alone,
    b's alone), each in its operand's order."""
    return ([c for c in ta if c in tb and c in rhs], [c for c in ta if c in tb and c not in rhs],
            [c for c in ta if c not in tb], [c for c in tb if c not in ta])


def _prod(size, letters):
    p = 1
    for c in letters:
        p *= size[c]
    return p


def _contract(a, ta, b, tb, rhs):
    """The product of a (subscripts ta) and b (tb) summed over the letters not in rhs,
    through one batched matmul; the result's subscripts are rhs."""
    a, ta = _sum_out(a, ta, rhs + tb)
    b, tb = _sum_out(b, tb, rhs + ta)
    size = {}
    for t, x in ((ta, a), (tb, b)):
        for c, s in zip(t, x.shape):
            if size.setdefault(c, s) != s and 1 not in (s, size[c]):
                raise RuntimeError(f"einsum(): subscript {c!r} has size {size[c]} and {s}")
            size[c] = builtins.max(size[c], s)
    batch, contract, free_a, free_b = _letters(ta, tb, rhs)
    prod = functools.partial(_prod, size)

    def arrange(x, t, order):
        x = x.permute(*[t.index(c) for c in order]) if order else x
        return expand(x, tuple(size[c] for c in order)) if order else x

    a3 = arrange(a, ta, batch + free_a + contract).reshape(prod(batch), prod(free_a),
                                                            prod(contract))
    b3 = arrange(b, tb, batch + contract + free_b).reshape(prod(batch), prod(contract),
                                                            prod(free_b))
    dtype = result_type(a, b)
    if dtype == _C.bool and not contract:
        # nothing summed: an elementwise (and) product, which PyTorch's einsum gives bool
        # tensors; a bool matmul is refused, as PyTorch's bmm
        out = a3.to(dtype) * b3.to(dtype)
    else:
        out = _C.matmul(a3.to(dtype), b3.to(dtype))
    got = batch + free_a + free_b
    out = out.reshape(tuple(size[c] for c in got))
    return out.permute(*[got.index(c) for c in rhs]) if rhs else out.reshape(())


# Note [einsum plans]
# ~~~~~~~~~~~~~~~~~~~
# Reading the equation and working out the permutes, reshapes and the batched matmul
# took most of a call: einsum("i,i->", a, b) of 1,000 float32 17-29 us, NumPy's 1.8-2.7.
# For two operands whose terms repeat no letter and whose shapes agree letter by letter
# (no size-1 broadcasting), the steps depend only on the equation and the two shapes: they
# are worked out once into a plan (the dims each operand sums alone, its permutation, its
# (batch, rows, cols) shape, then the result's shape and permutation) and kept under
# (equation, shapes).  Every other call takes the general path below, which also gives
# every error.
_PLANS = {}
_PLANS_MAX = 512


def _make_plan2(equation, a, b):
    """The plan of einsum(equation, a, b), or None where the general path must go."""
    terms, rhs = _parse_einsum(equation, (a, b))
    (ta, tb), shapes = terms, (tuple(a.shape), tuple(b.shape))
    size = {}
    for t, shape in zip(terms, shapes):
        if len(t) != len(shape) or len(set(t)) != len(t):
            return None  # a wrong count (the general path's error), or a diagonal
        for c, n in zip(t, shape):
            if size.setdefault(c, n) != n:
                return None  # broadcasting a size-1 dim, or a mismatch to report
    steps = []
    for t, other in ((ta, tb), (tb, ta)):  # the dims only this operand has and rhs drops
        steps.append(tuple(i for i, c in enumerate(t) if c not in rhs + other))
    ta = "".join(c for c in ta if c in rhs + tb)
    tb = "".join(c for c in tb if c in rhs + ta)
    batch, contract, free_a, free_b = _letters(ta, tb, rhs)
    prod = functools.partial(_prod, size)

    def perm(t, order):
        p = tuple(t.index(c) for c in order)
        return None if p == tuple(range(len(p))) else p

    got = batch + free_a + free_b
    out_perm = perm("".join(got), rhs) if rhs else None
    return (steps[0], perm(ta, batch + free_a + contract),
            (prod(batch), prod(free_a), prod(contract)),
            steps[1], perm(tb, batch + contract + free_b),
            (prod(batch), prod(contract), prod(free_b)),
            tuple(size[c] for c in got) if rhs else (), out_perm)


def _run_plan2(plan, a, b):
    sum_a, perm_a, shape_a, sum_b, perm_b, shape_b, out_shape, out_perm = plan
    if sum_a:
        a = a.sum(dim=sum_a)
    if perm_a is not None:
        a = a.permute(perm_a)
    if sum_b:
        b = b.sum(dim=sum_b)
    if perm_b is not None:
        b = b.permute(perm_b)
    if a.dtype != b.dtype:
        dtype = result_type(a, b)
        a, b = a.to(dtype), b.to(dtype)
    out = _C.matmul(a.reshape(shape_a), b.reshape(shape_b)).reshape(out_shape)
    return out if out_perm is None else out.permute(out_perm)


def _subscript(n, k):
    """The letter of sublist entry n (operand k's, or the output's for k None): PyTorch's
    0-25 -> 'A'-'Z', 26-51 -> 'a'-'z', Ellipsis -> '...'."""
    if n is Ellipsis:
        return "..."
    where = "the output's subscripts" if k is None else f"operand {k}'s subscripts"
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"einsum(): {where} must be ints in [0, 52) or Ellipsis, got "
                        f"{type(n).__name__} {n!r}")
    if not 0 <= n < 52:
        raise ValueError(f"einsum(): subscript {n} in {where} is not within the valid range "
                         f"[0, 52)")
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


def _sublist_equation(args):
    """(equation, operands) of the sublist form einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    operands, sublists = args[0::2], list(args[1::2])
    out = None
    if len(args) % 2:  # the last argument is the output's sublist
        operands, out = operands[:-1], args[-1]
    for k, sub in enumerate(sublists + ([out] if out is not None else [])):
        if isinstance(sub, _C.Tensor) or not isinstance(sub, (list, tuple)):
            who = "the output" if k == len(sublists) else f"operand {k}"
            raise TypeError(f"einsum(): in the sublist form, {who}'s subscripts must be a "
                            f"list of ints, got {type(sub).__name__}")
    terms = ["".join(_subscript(n, k) for n in sub) for k, sub in enumerate(sublists)]
    equation = ",".join(terms)
    if out is not None:
        equation += "->" + "".join(_subscript(n, None) for n in out)
    return equation, tuple(operands)


def einsum(equation, *operands):
    """Einstein summation, with PyTorch's (and NumPy's) meaning.

    'ij,jk->ik', 'bij,bjk->bik', 'i,i->', 'ij->ji', '...ij,...jk->...ik' (broadcast
    dims), 'ii->i' and 'ii' (diagonal, trace), and more than two operands (contracted
    left to right, each pair through one batched matmul).  Composed of differentiable
    views, sums and matmul, so it has a gradient.

    Parameters
    ----------
    equation : str or Tensor
        The subscripts, as 'ij,jk->ik'; without '->' the output is the letters used
        once, in alphabetical order.  Or, PyTorch's sublist form, the first operand:
        ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is ``einsum('AB,BC->AC', a, b)``
        (each operand followed by its subscripts, ints 0-25 for 'A'-'Z' and 26-51 for
        'a'-'z', ``Ellipsis`` for '...'; the output's list last, optional).
    *operands : Tensor
        One or more tensors (or one list of them), on one device.

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    ValueError
        When there is no operand, or a sublist's int is not in [0, 52).
    TypeError
        When, in the sublist form, a subscripts list is not a list of ints.
    RuntimeError
        When the equation does not fit the operands' shapes or devices; an equation
        that is malformed, names another count of operands, or whose output repeats a
        subscript or names one no operand has raises InvalidArgumentError (both a
        RuntimeError, as PyTorch's, and a ValueError).
    NotImplementedError
        For bool operands a subscript is summed over (as PyTorch's bmm); bool
        operands with nothing summed give their elementwise and.

    Examples
    --------
    >>> a = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.einsum("ij,jk->ik", a, a)
    tensor([[ 7, 10],
            [15, 22]])
    >>> pydevtensor.einsum("ii", a)
    tensor(5)
    >>> pydevtensor.einsum(a, [0, 1], a, [1, 2], [0, 2])
    tensor([[ 7, 10],
            [15, 22]])
    """
    if isinstance(equation, _C.Tensor):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    for x in operands:
        _tensor_arg(x, "einsum", "operands")
    if len(operands) == 2 and operands[0].device == operands[1].device and \
            _C.bool not in (operands[0].dtype, operands[1].dtype):
        a, b = operands
        key = (equation, tuple(a.shape), tuple(b.shape))
        plan = _PLANS.get(key)
        if plan is None and key not in _PLANS:
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            plan = _PLANS[key] = _make_plan2(equation, a, b)
        if plan is not None:
            return _run_plan2(plan, a, b)
    terms, rhs = _parse_einsum(equation, operands)
    for t, x in zip(terms, operands):
        if len(t) != x.ndim:
            raise RuntimeError(f"einsum(): the subscripts {t!r} have {len(t)} dims for an "
                               f"operand of shape {tuple(x.shape)}")
    _same_device("einsum", list(operands))
    pairs = [_diagonals(x, t) for x, t in zip(operands, terms)]
    acc, tacc = pairs[0]
    if len(pairs) == 1:
        acc, tacc = _sum_out(acc, tacc, rhs)
        return acc.permute(*[tacc.index(c) for c in rhs]) if acc.ndim else acc
    for k in range(1, len(pairs)):
        b, tb = pairs[k]
        later = rhs + "".join(t for _, t in pairs[k + 1:])
        keep = "".join(dict.fromkeys(c for c in tacc + tb if c in later))
        acc = _contract(acc, tacc, b, tb, rhs if k == len(pairs) - 1 else keep)
        tacc = rhs if k == len(pairs) - 1 else keep
    return acc


_C.Tensor.outer = _C.Tensor.ger = outer

ger = outer  # PyTorch's alias (deprecated there)

__all__ = ["einsum", "ger", "outer"]
