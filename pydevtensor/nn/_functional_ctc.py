"""nn.functional.ctc_loss: the connectionist temporal classification loss (Graves et
al. 2006), re-exported by nn.functional; the layer is nn.CTCLoss (losses_more.py).

Note [CTC forward recursion]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each sample's target l (length S) is extended with blanks, l' = (b, l1, b, l2, ..., lS,
b), of length L = 2S + 1; alpha_t(s) is the log-probability of the prefixes of the
paths through time t that end in state s (section 4.1 of the paper):

    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2))
                 + log_probs[t, l'_s]

the third term only where l'_s != l'_{s-2} (a label may skip the blank between two
different labels), as PyTorch's kernels.  The recursion starts from alpha_{-1} = (0,
-inf, ...), so that alpha_0 is (log_probs[0, b], log_probs[0, l1], -inf, ...) and an
input of length 0 leaves it there; a sample whose input has ended keeps its alpha.  The
loss is -logsumexp(alpha_{T-1}(L-1), alpha_{T-1}(L-2)).  Every sample and state is
computed at once, a Python loop running over the time steps only; the gradient is
autograd's through the recursion.  The logsumexp gives an all -inf triple (an
unreachable state) -inf with a zero gradient, not the NaN of exp(-inf - -inf).
"""
from .. import _C
from .._args import flag
from .._ops_join import cat as _cat, stack as _stack
from ._functional_losses import _elementwise_mean

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError, as PyTorch raises

_INF = float("inf")


def _lengths(value, n, name, where, device):
    """input_lengths or target_lengths (a Tensor of integers, or a tuple or list of
    ints; an int or a 0-d tensor for an unbatched input, n None) as a list of ints."""
    if isinstance(value, _C.Tensor):
        if value.dtype.is_floating_point or value.dtype == _C.bool or value.is_complex():
            raise _C.DTypeError(f"{where}: {name} must hold integers, got {value.dtype} on "
                                f"{value.device}")
        values = value.reshape(-1).tolist()
    elif isinstance(value, (tuple, list)):
        values = list(value)
    elif isinstance(value, int) and not isinstance(value, bool) and n is None:
        values = [value]
    else:
        raise TypeError(f"{where}: {name} must be a Tensor or a tuple of ints, got "
                        f"{type(value).__name__}")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise TypeError(f"{where}: {name} must hold ints, got {values!r:.60}")
    if len(values) != (1 if n is None else n):
        raise _Invalid(f"{where}: {name} must be of size batch_size: got {len(values)} "
                       f"lengths for a batch of {1 if n is None else n} (on {device})")
    return values


def _padded_targets(targets, target_lengths, n, where):
    """(N, S) targets with S = max(target_lengths) (at least 1), from the padded (N, S')
    form or the concatenated 1-d one."""
    total = sum(target_lengths)
    if targets.ndim == 2:
        if targets.shape[0] != n:
            raise _Invalid(f"{where}: targets of shape {tuple(targets.shape)} do not match "
                           f"the batch of {n} (padded targets are (N, S))")
        if max(target_lengths) > targets.shape[1]:
            raise _Invalid(f"{where}: target_lengths {target_lengths} exceed the targets' "
                           f"padded length {targets.shape[1]} (shape "
                           f"{tuple(targets.shape)})")
        return targets
    if targets.ndim != 1 or targets.numel() != total:
        raise _Invalid(f"{where}: concatenated targets must be 1-d of sum(target_lengths) = "
                       f"{total} elements, got shape {tuple(targets.shape)}")
    rows, start, width = [], 0, max(max(target_lengths), 1)
    for length in target_lengths:
        row = targets[start:start + length]
        if length < width:
            row = _cat([row, _C.zeros((width - length,), dtype=targets.dtype,
                                      device=targets.device)])
        rows.append(row)
        start += length
    return _stack(rows)


def _logsumexp(terms):
    """logsumexp over the first dimension of stacked terms; -inf, with gradient 0, where
    every term is -inf (Note [CTC forward recursion])."""
    top = terms.amax(0).detach()
    dead = top == -_INF
    top = top.masked_fill(dead, 0.0)
    total = (terms - top).exp().sum(0).masked_fill(dead, 1.0)
    return (total.log() + top).masked_fill(dead, -_INF)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """PyTorch's ``ctc_loss``: the negative log-likelihood of each target sequence
    summed over its alignments with the input (Graves et al. 2006; Note [CTC forward
    recursion]).

    Parameters
    ----------
    log_probs : Tensor
        ``(T, N, C)``, or ``(T, C)`` unbatched: log-probabilities (log_softmax's output
        over C), floating point.
    targets : Tensor
        Integer classes in ``[0, C)``: padded ``(N, S)``, or concatenated 1-d of
        ``sum(target_lengths)`` elements (``(S,)`` unbatched).
    input_lengths, target_lengths : Tensor or tuple of ints
        ``(N,)`` lengths, each input's at most T (an int or a 0-d tensor unbatched).
    blank : int, optional
        The blank's class, in ``[0, C)`` (default 0).
    reduction : {'mean', 'sum', 'none'}, optional
        'mean' divides each loss by its target length (at least 1), then takes the mean
        over the batch, as PyTorch's (default).
    zero_infinity : bool, optional
        Gives an impossible alignment (an infinite loss) 0, and 0 gradient (default
        False).  Without it such a sample's gradient is 0 too (PyTorch's is NaN), its
        loss inf.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none' (0-d unbatched), in log_probs' dtype.

    Raises
    ------
    TypeError
        When log_probs or targets is not a Tensor, or a length is not an int.
    DTypeError
        When log_probs is not floating point, or targets or lengths not integer.
    ValueError
        For lengths out of range or of the wrong count, targets too short for their
        lengths, a blank outside ``[0, C)``, or an unknown reduction.
    IndexError
        When a target class is out of range (checked on the CPU).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> log_probs = pydevtensor.full((2, 1, 2), 0.5).log()
    >>> F.ctc_loss(log_probs, pydevtensor.tensor([[1]]), (2,), (1,), reduction='sum')
    tensor(0.2877)
    """
    where = "ctc_loss()"
    reduction = _elementwise_mean(reduction, stacklevel=3)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}")
    for name, t in (("log_probs", log_probs), ("targets", targets)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    if not log_probs.is_floating_point() or log_probs.ndim not in (2, 3):
        raise _C.DTypeError(f"{where}: log_probs must be floating point (T, N, C) or (T, C), "
                            f"got {log_probs.dtype} of shape {tuple(log_probs.shape)} on "
                            f"{log_probs.device}")
    if targets.dtype.is_floating_point or targets.dtype == _C.bool or targets.is_complex():
        raise _C.DTypeError(f"{where}: targets must hold integer classes, got {targets.dtype} "
                            f"on {targets.device}")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.reshape(1, -1)
    steps, n, c = log_probs.shape
    device = log_probs.device
    if n == 0 or c == 0:  # PyTorch refuses them too ("log_probs tensor must not be empty")
        raise _Invalid(f"{where}: log_probs of shape {tuple(log_probs.shape)} (on {device}) "
                       f"has no {'sample' if n == 0 else 'class'}; a batch of at least one "
                       f"sample and one class is needed")
    in_lens = _lengths(input_lengths, None if unbatched else n, "input_lengths", where, device)
    tg_lens = _lengths(target_lengths, None if unbatched else n, "target_lengths", where,
                       device)
    for name, values, high in (("input_lengths", in_lens, steps), ("target_lengths", tg_lens,
                                                                     None)):
        bad = [v for v in values if v < 0 or (high is not None and v > high)]
        if bad:
            raise _Invalid(f"{where}: {name} must lie in [0, {'inf' if high is None else high}"
                           f"], got {bad[0]} (log_probs of shape "
                           f"{tuple(log_probs.shape)} on {device})")
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < c:
        raise _Invalid(f"{where}: blank must be in the label range [0, {c}), got {blank!r}")
    zero_infinity = flag(zero_infinity, where.removesuffix("()"), "zero_infinity")
    if targets.device != device:
        raise _C.DeviceError(f"{where}: targets are on {targets.device} but log_probs on "
                             f"{device}; move them with .to()")
    targets = _padded_targets(targets, tg_lens, n, where).to(_C.int64)
    width = max(max(tg_lens), 1) if n else 1
    targets = targets[:, :width] if targets.shape[1] >= width else targets
    if device.type == "cpu" and targets.numel():
        used = _C.arange(targets.shape[1], device=device) < _C.tensor(tg_lens).reshape(n, 1)
        bad = targets[used.logical_and((targets < 0).logical_or(targets >= c))]
        if bad.numel():
            raise IndexError(f"{where}: target {int(bad[0].item())} is out of range for {c} "
                             f"classes (log_probs of shape {tuple(log_probs.shape)} on cpu)")
    loss = _negative_log_likelihood(log_probs, targets, in_lens, tg_lens, blank)
    if zero_infinity:
        loss = loss.masked_fill(loss == _INF, 0.0)
    if unbatched:
        loss = loss.reshape(())
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    per = _C.tensor(tg_lens, dtype=loss.dtype, device=device).clamp(min=1)
    return (loss / per.reshape(loss.shape)).mean()


def _negative_log_likelihood(log_probs, targets, in_lens, tg_lens, blank):
    """(N,) -log p(target | input) by the alpha recursion (Note [CTC forward
    recursion]); targets (N, S) int64."""
    steps, n, c = log_probs.shape
    device, dtype = log_probs.device, log_probs.dtype
    s = targets.shape[1]
    size = 2 * s + 1
    ext = _C.full((n, size), blank, dtype=_C.int64, device=device)
    ext[:, 1::2] = targets.clamp(0, c - 1)  # classes beyond a target's length: unread
    emissions = log_probs.gather(2, ext.unsqueeze(0).expand(steps, n, size))  # (T, N, L)
    no_skip = _C.ones((n, 2), dtype=_C.bool, device=device)
    if size > 2:
        no_skip = _cat([no_skip, ext[:, 2:] == ext[:, :-2]], 1)
    ninf = _C.full((n, 2), -_INF, dtype=dtype, device=device)
    alpha = _C.full((n, size), -_INF, dtype=dtype, device=device)
    alpha[:, 0] = 0.0
    lengths = _C.tensor(in_lens, dtype=_C.int64, device=device).reshape(n, 1)
    for t in range(steps):
        one = _cat([ninf[:, :1], alpha[:, :-1]], 1)
        two = _cat([ninf, alpha[:, :-2]], 1).masked_fill(no_skip, -_INF)
        new = _logsumexp(_stack([alpha, one, two])) + emissions[t]
        alpha = new.where(lengths > t, alpha)
    last = _C.tensor([2 * k for k in tg_lens], dtype=_C.int64, device=device).reshape(n, 1)
    ends = alpha.gather(1, _cat([last, (last - 1).clamp(min=0)], 1))
    ends = ends.masked_fill(_cat([last < 0, last == 0], 1), -_INF)  # S = 0: one end state
    return _logsumexp(ends.T).neg()
