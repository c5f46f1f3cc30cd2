"""nn.functional's class losses: cross_entropy and nll_loss over integer classes (and
cross_entropy over class probabilities), their checks, the fused cross_entropy node
(NllLossBackward0), and the reduction helpers the other losses share; functional.py
re-exports them.  The composed path with class weights, ignore_index and label smoothing
is _functional_losses.py's."""
from .. import _C
from .. import _ops_stats as _stats
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from . import _functional_losses as _L

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError, as PyTorch raises


def _check_reduction(reduction, where):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _reduce(per_element, reduction):
    if reduction == "mean":
        return per_element.mean()
    if reduction == "sum":
        return per_element.sum()
    return per_element


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """PyTorch's ``nll_loss`` for class indices: the mean (or sum) over samples of
    ``-weight[target[i]] * input[i, target[i]]``, where input holds log-probabilities
    (log_softmax's output); ``nll_loss(log_softmax(x, 1), y)`` is
    ``cross_entropy(x, y)``.  Samples whose target is ignore_index contribute nothing
    and are not counted; the mean divides by the sum of the weights of the targets not
    ignored (the count without weights), so it is NaN when every target is ignored,
    as in PyTorch.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` floating-point log-probabilities.
    target : Tensor
        ``(N,)`` int64 or int32 class indices in ``[0, C)`` or ignore_index (checked
        on the CPU).
    weight : Tensor, optional
        ``(C,)`` class weights, on input's device.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    ignore_index : int, optional
        The target that marks a sample to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); PyTorch's order of the
        arguments, so give it by name.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, or target is not integer.
    ValueError
        For an unknown reduction, or shapes that do not match.
    IndexError
        When a class is out of range, on the CPU.  On a GPU the classes are not read
        back to be checked: an out-of-range class gives NaN as its sample's loss and
        gradient (Note [unchecked classes]).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> log_p = pydevtensor.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, 1]))
    tensor(0.3750)
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, -100]))
    tensor(0.5000)
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, 1]), pydevtensor.tensor([1., 3.]))
    tensor(0.3125)
    """
    where = "nll_loss()"
    reduction = _L._legacy_reduction(size_average, reduce, reduction, where)
    target = _byte_classes(target)
    rows = _L.as_rows(input, target, where)
    if rows is not None:  # (C,) or (N, C, d1, ...): as (N', C) rows
        out = _nll_loss_rows(rows[0], rows[1], weight, ignore_index, reduction, input)
        return out.reshape(rows[2]) if reduction == "none" else out
    return _nll_loss_rows(input, target, weight, ignore_index, reduction, input)


def _nll_loss_rows(input, target, weight, ignore_index, reduction, shown):
    """nll_loss of (N, C) input; shown is the caller's input, whose shape messages name."""
    where = "nll_loss()"
    weight, ignore_index = _class_options(input, target, weight, ignore_index, reduction,
                                          where, "log-probabilities", shown)
    if weight is None:
        return _nll(input, target, reduction,
                    ignore_index if _any_ignored(target, ignore_index) else None)
    return _L._class_loss(input, target, weight, ignore_index, reduction, 0.0)


@recorded("nll_loss")
def _nll(input, target, reduction, ignore_index):
    """nll_loss without class weights, recorded as one node (its gradient is recorded
    under create_graph, as PyTorch's); ignore_index None: no target is ignored."""
    if ignore_index is None:
        return _reduce(_picked(input, target).neg(), reduction)
    return _L._class_loss(input, target, None, ignore_index, reduction, 0.0)


@derivative("nll_loss")
class NllLossBackward(Node):
    """nll_loss's gradient for its log-probabilities: -one-hot(target) times the
    incoming gradient (over the samples not ignored for the mean).  Under create_graph
    the one-hot is written over input by masked_fill (no dependence on input's values:
    the second derivative is 0, and the gradient is recorded, as PyTorch's)."""

    def save(self, out, input, target, reduction, ignore_index):
        self.save_tensors(input, target)
        self.reduction, self.ignore_index = reduction, ignore_index
        return (input,)

    def name(self):
        return "NllLossBackward0"  # PyTorch's name; cross_entropy's node has the class's

    def backward(self, g):
        input, target = self.saved_tensors
        n, c = input.shape
        picked = _C.arange(c, dtype=target.dtype, device=target.device) == target.reshape(n, 1)
        count = n
        if self.ignore_index is not None:
            ignored = target == self.ignore_index
            picked = picked.logical_and(ignored.logical_not().reshape(n, 1))
            count = ignored.logical_not().sum().clamp(min=1).to(input.dtype)
        if _C.is_grad_enabled():  # create_graph=True: recorded, with input's graph
            d = input.masked_fill(picked.logical_not(), 0.0).masked_fill(picked, -1.0)
        else:
            d = picked.to(input.dtype).neg_()
        if target.device.type != "cpu":  # Note [unchecked classes]
            unmatched = picked.any(1).logical_not()
            if self.ignore_index is not None:
                unmatched = unmatched.logical_and(target != self.ignore_index)
            d = d.masked_fill(unmatched.reshape(n, 1), float("nan"))
        if self.reduction == "none":
            return (d * g.reshape(n, 1),)
        return (d * (g / count if self.reduction == "mean" else g),)


def _byte_classes(target):
    """A uint8 target (classes as a dataset stores them) as int64: PyTorch takes Long or
    Byte targets."""
    if isinstance(target, _C.Tensor) and target.dtype == _C.uint8:
        return target.to(_C.int64)
    return target


def _class_options(input, target, weight, ignore_index, reduction, where, what="logits",
                   shown=None):
    """The checks of nll_loss and cross_entropy: (weight, ignore_index).  shown: the
    input the user gave (input's (N', C) rows were made of it), for messages."""
    _check_reduction(reduction, where)
    _check_logits(input, target, where, what)
    weight = _L._check_weight(weight, input, where, length=input.shape[1])
    ignore_index = _L._check_ignore_index(ignore_index, where)
    _check_target(target, input, where, ignore_index, shown)
    return weight, ignore_index


def _any_ignored(target, ignore_index):
    """Whether a target is ignore_index: read on the CPU, where it is free; elsewhere
    (a copy to the host) assumed, so the ignoring path, which reads nothing, runs."""
    if target.device.type != "cpu":
        return True
    return target.numel() > 0 and bool((target == ignore_index).any())


def _check_target(target, logits, where="cross_entropy()", ignore_index=None, shown=None):
    """target's dtype, shape, device and (on the CPU) classes against (N, C) logits;
    messages name shown's shape (the input the user gave), else logits'."""
    n, c = logits.shape
    shown = logits if shown is None else shown
    if target.dtype not in (_C.int32, _C.int64):
        raise _C.DTypeError(f"{where}: target must hold integer class indices (int64, "
                            f"int32 or uint8), got {target.dtype}")
    if tuple(target.shape) != (n,):
        raise _Invalid(f"{where}: target of shape {tuple(target.shape)} does not "
                       f"match input of shape {(n, c)}: expected ({n},) (on {logits.device})")
    if target.device != logits.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                             f"target is on {target.device} and input on {logits.device}; "
                             f"move one with .to(), no copy is made for you")
    if target.device.type == "cpu" and n > 0:
        if ignore_index is not None:  # ignored targets may lie outside [0, c)
            target = target.masked_fill(target == ignore_index, 0)
        bad = _out_of_range(target, c)
        if bad is not None:
            raise IndexError(f"{where}: target {bad} is out of bounds for {c} classes (input "
                             f"of shape {tuple(shown.shape)} on {shown.device})")


def _out_of_range(target, c):
    """The smallest class below 0, else the largest at or above c, of a non-empty CPU
    tensor of integer classes; None when every class lies in [0, c)."""
    if target.dtype == _C.int64:
        try:  # one pass, in C; it raises without naming the value, so look again below
            _C._index_check(target.contiguous(), c, 1, "classes", False)
            return None
        except IndexError:
            pass
    lo, hi = int(target.min().item()), int(target.max().item())
    return lo if lo < 0 else hi if hi >= c else None


def _one_hot(target, c, dtype):
    """(*) integer classes -> (*, c) 0/1 in dtype, on target's device: compares arange(c)
    with the classes (a class outside [0, c) gives a row of zeros)."""
    classes = _C.arange(c, dtype=target.dtype, device=target.device)
    return (classes == target.unsqueeze(-1)).to(dtype)


def _check_logits(input, target, where="cross_entropy()", what="logits"):
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if input.ndim != 2:
        raise _Invalid(f"{where}: input must be (N, C) {what}, got shape "
                       f"{tuple(input.shape)} on {input.device}")


def _label_smoothing(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"cross_entropy(): label_smoothing must be a float, got "
                        f"{type(value).__name__}")
    if not 0.0 <= value <= 1.0:
        raise _Invalid(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0, "
                       f"got {value!r}")
    return float(value)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy of ``(N, C)`` logits against ``(N,)`` integer classes,
    PyTorch's ``cross_entropy`` for class indices: the mean (or sum) over samples of
    ``logsumexp(row) - row[target]``, computed after subtracting the row max so that
    exp never overflows.

    A floating-point target of input's shape, ``(N, C)`` or ``(C,)``, holds class
    probabilities (PyTorch's second form): each sample's loss is
    ``-sum_c w[c] * t[c] * log_softmax(row)[c]``, with label smoothing
    ``t = target * (1 - e) + e / C``; the mean divides by N (not by the weights), and
    ignore_index must stay negative.

    With ``label_smoothing = e`` the target is a mixture of the class (weight 1 - e)
    and the uniform distribution over the C classes (weight e), as in PyTorch: each
    sample's loss is ``(1 - e) * -log_p[target] + e / C * -sum(log_p)``, where
    ``log_p = log_softmax(row)``.  Without smoothing (e = 0) and class weights,
    autograd records one node (NllLossBackward0, as PyTorch names it), whose backward
    is softmax - one-hot; otherwise the loss is a composition of log_softmax,
    masked_fill and sums, and autograd goes through those.

    With class weights w and ignore_index, as PyTorch: the first term is nll_loss's
    ``-w[target] * log_p[target]``, the second ``-e / C * sum_c w[c] * log_p[c]``;
    samples whose target is ignore_index contribute to neither, and the mean divides
    both sums by the sum of w[target] over the samples not ignored (their count
    without weights): NaN when every target is ignored.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` floating-point logits.
    target : Tensor
        ``(N,)`` int64 or int32 class indices in ``[0, C)`` or ignore_index (checked
        on the CPU); or class probabilities of input's shape (the loss in their dtypes' promotion).
    weight : Tensor, optional
        ``(C,)`` class weights, on input's device.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    ignore_index : int, optional
        The target that marks a sample to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); PyTorch's order of the
        arguments, so give it by name.
    label_smoothing : float, optional
        e, in [0, 1] (default 0).

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none', on input's device.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, target is not integer, or
        label_smoothing is not a number.
    ValueError
        For an unknown reduction, shapes that do not match, or a label_smoothing
        outside [0, 1].
    IndexError
        When a class is out of range, on the CPU.  On a GPU the classes are not read
        back to be checked: an out-of-range class gives NaN as its sample's loss and
        gradient (Note [unchecked classes]).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> logits = pydevtensor.tensor([[2., 0.], [0., 2.]])
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]), label_smoothing=0.2)
    tensor(0.3269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, -100]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]), pydevtensor.tensor([1., 0.]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([[1., 0.], [0.5, 0.5]]))
    tensor(0.6269)
    """
    reduction = _L._legacy_reduction(size_average, reduce, reduction, "cross_entropy()")
    e = _label_smoothing(label_smoothing)
    target = _byte_classes(target)
    rows = _L.as_rows(input, target, "cross_entropy()")
    if rows is not None:  # (C,) or (N, C, d1, ...): as (N', C) rows
        out = _cross_entropy_rows(rows[0], rows[1], weight, ignore_index, reduction, e, input)
        return out.reshape(rows[2]) if reduction == "none" else out
    return _cross_entropy_rows(input, target, weight, ignore_index, reduction, e, input)


def _cross_entropy_rows(input, target, weight, ignore_index, reduction, e, shown):
    """cross_entropy of (N, C) input (or anything as_rows leaves, for its checks' errors)
    with label smoothing e; shown is the caller's input, whose shape messages name."""
    if isinstance(input, _C.Tensor) and isinstance(target, _C.Tensor) and \
            target.is_floating_point() and target.ndim == input.ndim:  # class probabilities
        return _L.soft_cross_entropy(input, target, weight,
                                     _L._check_ignore_index(ignore_index, "cross_entropy()"),
                                     reduction, e, _stats.log_softmax)
    weight, ignore_index = _class_options(input, target, weight, ignore_index, reduction,
                                          "cross_entropy()", shown=shown)
    if weight is not None or _any_ignored(target, ignore_index):
        if weight is None and e == 0.0:  # one node, which ignores without reading
            return _cross_entropy(input, target, reduction, ignore_index)
        return _L._class_loss(_stats.log_softmax(input, 1), target, weight, ignore_index,
                              reduction, e)
    if e == 0.0:
        return _cross_entropy(input, target, reduction)
    n, c = input.shape
    log_p = _stats.log_softmax(input, 1)
    per_sample = _picked(log_p, target).neg().mul(1.0 - e) + log_p.sum(1).mul(-e / c)
    return _reduce(per_sample, reduction)


def _picked(input, target):
    """(N,) input[i, target[i]] of (N, C) input: the other classes masked to 0 (a product
    with a one-hot would make -inf * 0 = NaN of a masked class), then a sum per row."""
    n, c = input.shape
    others = _C.arange(c, dtype=target.dtype, device=target.device) != target.reshape(n, 1)
    if target.device.type == "cpu":
        return input.masked_fill(others, 0.0).sum(1)
    unmatched = others.all(1)  # Note [unchecked classes]
    picked = input.masked_fill(others.logical_and(unmatched.logical_not().reshape(n, 1)), 0.0)
    return _L.nan_where(picked.sum(1), unmatched)


@recorded("cross_entropy")
def _cross_entropy(input, target, reduction="mean", ignore_index=None):
    """cross_entropy without label smoothing and class weights, recorded for autograd
    as one node; with ignore_index, the samples whose target it is are masked out (the
    mean over those left: their count is a tensor, nothing is read back)."""
    _check_reduction(reduction, "cross_entropy()")
    _check_logits(input, target)
    _check_target(target, input, ignore_index=ignore_index)
    n, c = input.shape
    if ignore_index is not None:
        ignored = target == ignore_index
        shifted = input - input.amax(1, keepdim=True)
        per = shifted.exp().sum(1).log() - _picked(shifted, target.masked_fill(ignored, 0))
        per = per.masked_fill(ignored, 0.0)
        if reduction == "mean":
            return per.sum() / ignored.logical_not().sum().to(per.dtype)
        return _reduce(per, reduction)
    if target.device.type == "cpu":  # where the classes have been checked
        log_p = _C._softmax_rows(input, True)
        if log_p is not None:
            # each sample's log-probability of its class, read at n * c-apart offsets:
            # -((x_t - max) - log s), the same bits as log s - (x_t - max) below
            at = target.to(_C.int64) + _C.arange(0, n * c, c, dtype=_C.int64,
                                                 device=target.device)
            picked = _C.empty((n,), dtype=log_p.dtype, device=log_p.device)
            _C._index_select(picked, log_p.reshape(n * c), 0, at)
            return _reduce(picked.neg_(), reduction)
    shifted = input - input.amax(1, keepdim=True)
    s = shifted.exp().sum(1)
    # the target's shifted logit; a -inf one gives an inf loss
    return _reduce(s.log() - _picked(shifted, target), reduction)


@derivative("cross_entropy")
class NllLossBackward0(Node):
    """cross_entropy's gradient for the logits: (softmax(input) - one-hot(target)) times
    the incoming gradient (over N for the mean, per sample for reduction='none'); the
    softmax is recomputed from the saved logits."""

    def save(self, out, input, target, reduction="mean", ignore_index=None):
        self.save_tensors(input, target)
        self.reduction = reduction
        self.ignore_index = ignore_index
        return (input,)

    def backward(self, g):
        input, target = self.saved_tensors
        n, c = input.shape
        one_hot = _one_hot(target, c, input.dtype)
        if _C.is_grad_enabled():  # create_graph=True: the same formula, recorded
            return (self._recorded(input, target, one_hot, g),)
        d = _stats.softmax(input.detach(), 1)  # the row kernel where the device has it
        d.sub_(one_hot)  # d is this function's own
        if target.device.type != "cpu":  # Note [unchecked classes]
            unmatched = one_hot.sum(1) == 0
            if self.ignore_index is not None:
                unmatched = unmatched.logical_and(target != self.ignore_index)
            d.masked_fill_(unmatched.reshape(n, 1), float("nan"))
        count = n
        if self.ignore_index is not None:  # the ignored samples' rows are 0
            ignored = target == self.ignore_index
            d.masked_fill_(ignored.reshape(n, 1), 0.0)
            # at least 1: every sample ignored gives zeros (d's rows are), not 0 / 0, as
            # PyTorch's (the loss itself is NaN)
            count = ignored.logical_not().sum().clamp(min=1).to(input.dtype)
        if self.reduction == "none":
            return (d.mul_(g.reshape(n, 1)),)
        return (d.mul_(g / count if self.reduction == "mean" else g),)

    def _recorded(self, input, target, one_hot, g):
        """backward's formula with out-of-place ops on input itself (not detached), so
        a second derivative follows softmax (Note [higher-order gradients] in
        autograd/engine.py)."""
        n = input.shape[0]
        d = _stats.softmax(input, 1) - one_hot
        count = n
        if self.ignore_index is not None:
            ignored = target == self.ignore_index
            d = d.masked_fill(ignored.reshape(n, 1), 0.0)
            count = ignored.logical_not().sum().clamp(min=1).to(input.dtype)
        if self.reduction == "none":
            return d * g.reshape(n, 1)
        return d * (g / count if self.reduction == "mean" else g)
