"""The derivatives of the binary ops whose backward reads their operands (mul, div,
ldexp, remainder, fmod, copysign, hypot, logaddexp, logaddexp2, pow): _SavesOperands,
which saves only the operands a wanted gradient reads, and the stand-in tensor that
keeps a saved number's second backward failing as a saved tensor's would.  add, sub,
maximum and minimum, whose backward needs no operand or keeps its own, are in
derivatives.py, as the helpers used here."""
import math

from .. import _C
from .derivatives import SAVED, _Binary, meta, reduce_grad, sign, zeros_of
from .dispatch import derivative


def _both(need_a, need_b):
    return need_a or need_b, need_a or need_b


_NUMBER = []  # the stand-in of a saved number (_SavesOperands.saves_numbers), made at
# its first use: a tensor made at import would use a device before the user configures
# one (set_logical_device_configuration)


def _number_stand_in():
    if not _NUMBER:
        _NUMBER.append(_C.tensor(0.0))
    return _NUMBER[0]


def _tabulate(keeps):
    """keeps(need_a, need_b) for the four pairs of bools, at index 2 need_a + need_b
    (keeps is a function of those bools only)."""
    return tuple([keeps(need_a, need_b) for need_a in (False, True)
                  for need_b in (False, True)])


class _SavesOperands(_Binary):
    """A binary op whose backward reads its operands.  keeps(need_a, need_b) says which
    tensor operands backward reads when only those gradients are wanted: the others
    are not saved, so an in-place change of one (y[:, 0] = y[:, 1] * 2) does not fail
    a backward that never reads it, as PyTorch saves self for mul only when other
    needs a gradient.  A number operand is kept as it is; a tensor operand of another
    dtype than the result's (an int base of a float64 power, a float32 one of a float64
    exponent) is read in the result's (promoted) dtype, as the forward computed: a
    backward computing log(base) in float32 gave a float64 gradient float32's accuracy."""
    keeps = staticmethod(_both)
    # PyTorch's mul and div save a number operand their backward reads, as a tensor (a
    # wrapped number): a second backward through x * 2 without retain_graph raises there
    # as through x * y.  Those Nodes keep a stand-in tensor beside it, freed alike.
    saves_numbers = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._keep_table = _tabulate(cls.keeps)

    def save(self, result, input, other, with_result=False, **kw):
        ta, tb = isinstance(input, _C.Tensor), isinstance(other, _C.Tensor)
        # keeps(need_a, need_b), read from its table (no call: a Python frame per op)
        keep_a, keep_b = self._keep_table[(ta and input.requires_grad) * 2
                                          + (tb and other.requires_grad)]
        number = self.saves_numbers and (keep_a and not ta or keep_b and not tb)
        keep_a, keep_b = ta and keep_a, tb and keep_b
        # the numbers, with SAVED for the tensors kept (only in save_tensors: a view
        # held here would keep its base, Note [views and their base]) and None for
        # those not kept
        self.scalars = (SAVED if keep_a else None if ta else input,
                        SAVED if keep_b else None if tb else other)
        kept = (input,) * keep_a + (other,) * keep_b + ((_number_stand_in(),) if number else ())
        if with_result:  # the result after them, as an output (pow's backward reads it)
            self.save_tensors(*kept, result.detach(), outputs=(len(kept),))
        elif kept:  # the stand-in last: _values reads the tensors before it
            self.save_tensors(*kept)
        self.metas = (meta(input), meta(other))  # _Binary.save, without a second call
        # the result's dtype, read by _values only when floating or complex (the test
        # there, once per backward, not per op)
        self.dtype = result.dtype
        return input, other

    _keep_table = _tabulate(_both)

    def _values(self):
        a, b = self.scalars
        if a is not SAVED and b is not SAVED:  # nothing kept: nothing to check or free
            return [a, b]
        saved = list(self.saved_tensors)
        dtype = self.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = None
        values = [saved.pop(0) if s is SAVED else s for s in self.scalars]
        return [v.to(dtype) if isinstance(v, _C.Tensor) and dtype is not None
                and v.dtype != dtype else v for v in values]


@derivative("mul")
class MulBackward0(_SavesOperands):
    # a's gradient reads b, b's reads a
    keeps = staticmethod(lambda need_a, need_b: (need_b, need_a))
    saves_numbers = True

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        return (reduce_grad(g * b, ma) if need_a else None,
                reduce_grad(g * a, mb) if need_b else None)


@derivative("div", "true_divide")
class DivBackward0(_SavesOperands):
    # a's gradient g / b reads b; b's, -g a / b^2, both, as PyTorch's -g ((a / b) / b)
    # (0, not 0 / 0, for a = 0 where b^2 underflows: log's second derivative at x = 0)
    keeps = staticmethod(lambda need_a, need_b: (need_b, need_a or need_b))
    saves_numbers = True

    def save(self, result, input, other, rounding_mode=None, **kw):
        self.floor = rounding_mode is not None
        return super().save(result, input, other)

    def backward(self, g):
        if self.floor:  # piecewise constant: zeros, as PyTorch's
            return tuple(zeros_of(m) if need else None
                         for m, need in zip(self.metas, self.needs_input_grad))
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        ga = reduce_grad(g / b, ma) if need_a else None
        gb = reduce_grad(-g * (a / b / b), mb) if need_b else None
        return ga, gb


@derivative("ldexp")
class LdexpBackward0(_SavesOperands):
    """PyTorch's: g 2^b for a, g a 2^b log 2 for b, each with its own 2^b computed in
    the backward, so the two gradients' graphs share no node: the second derivative of
    one does not free the other's (as the graph of mul and pow would)."""
    keeps = staticmethod(lambda need_a, need_b: (need_b, True))

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        b = b.to(_C.float64 if g.dtype == _C.float64 else g.dtype)
        ga = reduce_grad(g * _C.pow(2.0, b), ma) if need_a else None
        gb = reduce_grad(g * a * _C.pow(2.0, b) * math.log(2.0), mb) if need_b else None
        return ga, gb


@derivative("remainder")
class RemainderBackward0(_SavesOperands):
    """remainder(a, b) = a - q b with q = floor(a / b): 1 for a, -q for b."""
    keeps = staticmethod(lambda need_a, need_b: (need_b, need_b))
    @staticmethod
    def _quotient(a, b):
        return _C.div(a, b, rounding_mode="floor")  # recorded: its derivative is zero

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        ga = reduce_grad(g, ma) if need_a else None
        gb = reduce_grad(-g * self._quotient(a, b), mb) if need_b else None
        return ga, gb


@derivative("fmod")
class FmodBackward0(RemainderBackward0):
    """fmod(a, b) = a - trunc(a / b) b: 1 for a, -trunc(a / b) for b (as PyTorch's)."""
    @staticmethod
    def _quotient(a, b):
        return _C.div(a, b, rounding_mode="trunc")


@derivative("copysign")
class CopysignBackward0(_SavesOperands):
    """copysign(a, b) = |a| s(b): s(b) sign(a) for a (0 where a is 0, NaN where a is
    NaN, as PyTorch's; +-1 where a is +-inf, the slope of |a| s(b) there, where PyTorch's
    result / a gives NaN), zeros for b (unrecorded, as PyTorch's: nothing to differentiate
    through)."""
    zero_grad_inputs = (1,)
    mask_derivative = True  # Note [mask derivatives] in node.py
    keeps = staticmethod(lambda need_a, need_b: (need_a, need_a))

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        ga = None
        if need_a:
            from .._ops_index import where
            from .._ops_pointwise import signbit
            s = where(a.isnan(), a, sign(a))  # NaN at a NaN, as PyTorch's
            if isinstance(b, _C.Tensor):
                s = where(signbit(b), -s, s)
            elif math.copysign(1.0, b) < 0:
                s = -s
            ga = reduce_grad(g * s, ma)
        return ga, (zeros_of(mb) if need_b else None)


@derivative("hypot")
class HypotBackward0(_SavesOperands):
    """d hypot(a, b) = (a da + b db) / hypot(a, b) (NaN at a = b = 0, as PyTorch's); the
    result is taken again rather than saved (Note [float binary functions] in
    csrc/core/pdt_elementwise.c)."""

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        w = g / _C.hypot(a, b)
        return (reduce_grad(w * a, ma) if need_a else None,
                reduce_grad(w * b, mb) if need_b else None)


@derivative("logaddexp")
class LogaddexpBackward0(_SavesOperands):
    """d logaddexp(a, b) = sigmoid(a - b) da + sigmoid(b - a) db, the difference of two
    equal infinities taken as 0, so 1/2 each.  Only those are masked: a mask at every tie
    made the second derivative at a == b (x = y = 0, say) 0 instead of 1/4."""
    scale = 1.0

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        same = (a == b) & (a.isinf() if isinstance(a, _C.Tensor) else b.isinf())
        # each weight from its own difference: 1 - sigmoid(d) cancels to 0 where d is large
        wa = ((a - b).masked_fill(same, 0.0) * self.scale).sigmoid() if need_a else None
        wb = ((b - a).masked_fill(same, 0.0) * self.scale).sigmoid() if need_b else None
        return (reduce_grad(g * wa, ma) if need_a else None,
                reduce_grad(g * wb, mb) if need_b else None)


@derivative("logaddexp2")
class Logaddexp2Backward0(LogaddexpBackward0):
    """logaddexp's, of (a - b) ln 2."""
    scale = math.log(2.0)


@derivative("pow")
class PowBackward0(_SavesOperands):
    @staticmethod
    def pick(input, exponent, **kw):
        """PyTorch's overloads: pow(Tensor, Scalar) PowBackward0, pow(Tensor, Tensor)
        PowBackward1, pow(Scalar, Tensor) (``2 ** x``) PowBackward2, the names repr()
        shows in grad_fn=<...>."""
        if not isinstance(input, _C.Tensor):
            return PowBackward2
        return PowBackward1 if isinstance(exponent, _C.Tensor) else PowBackward0

    def save(self, result, input, exponent, **kw):
        self.result_saved = isinstance(exponent, _C.Tensor)
        return super().save(result, input, exponent, with_result=self.result_saved)

    def backward(self, g):
        a, b = self._values()
        ma, mb = self.metas
        need_a, need_b = self.needs_input_grad
        ga = gb = None
        if need_a:
            if not isinstance(b, _C.Tensor) and b == 0:
                ga = _C.zeros_like(a)
            else:
                # b a^(b-1) first, as PyTorch's: its own derivative is then 0, not
                # inf * 0, where b (b - 1) overflows and a^(b-2) underflows
                ga = g * (b * a ** (b - 1))
                if isinstance(b, _C.Tensor):  # x ** 0 is 1 everywhere: 0, not 0 * inf
                    ga = ga.masked_fill(b == 0, 0.0)
                ga = reduce_grad(ga, ma)
        if need_b:
            result = self.saved_tensors[-1]
            log_a = a.log() if isinstance(a, _C.Tensor) else _C.full((), a, dtype=g.dtype,
                                                                      device=g.device).log()
            # 0 ** b for b >= 0 is flat in b (PyTorch's): 0, not 0 * -inf
            gb = (g * result * log_a).masked_fill((a == 0) & (b >= 0), 0.0)
            gb = reduce_grad(gb, mb)
        return ga, gb


class PowBackward1(PowBackward0):
    """pow(Tensor, Tensor)."""


class PowBackward2(PowBackward0):
    """pow(Scalar, Tensor)."""
