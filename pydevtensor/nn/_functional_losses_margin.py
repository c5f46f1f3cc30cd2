"""PyTorch's margin and embedding losses: margin_ranking_loss, hinge_embedding_loss,
soft_margin_loss, cosine_embedding_loss, triplet_margin_loss (and
triplet_margin_with_distance_loss), multi_margin_loss, multilabel_margin_loss and
multilabel_soft_margin_loss (re-exported by nn.functional;
the layers are in nn/losses_more.py).

Each is PyTorch's formula written with differentiable package ops, so autograd gives
its gradient and every device computes it.  multi_margin_loss and
multilabel_margin_loss pick each sample's classes with gather (and weight[target]), whose
index range check on a GPU reads the indices' min and max back to the host (counted
copies, as every gather's: 4 a forward, 8 with the backward); an out-of-range class is
an IndexError on every device.  The other losses read nothing back.  A hinge ``max(0, z)`` is
``clamp(z, min=0)``, whose gradient at z = 0 is 0, as PyTorch's.

The deprecated ``size_average`` and ``reduce`` arguments are accepted where PyTorch has
them, with its warning and its translation to a reduction (_legacy_reduction)."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import _C
from .._args import flag
from . import _functional_activation as _act
from . import _functional_norm as _norm
from ._functional_losses import _check_weight, _legacy_reduction, _reduced

_Invalid = _C.InvalidArgumentError


def _tensors(where, **named):
    """Checks that each named argument is a floating-point Tensor."""
    for name, t in named.items():
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
        if not t.is_floating_point():
            raise _C.DTypeError(f"{where}: {name} must be floating point, got {t.dtype} on "
                                f"{t.device}")


def _target(target, like, bool_ok=False):
    """An integer target tensor in like's floating dtype, as PyTorch's promotion gives
    (``F.soft_margin_loss(x, torch.tensor([1, -1]))``); a bool one too with bool_ok (the
    losses whose PyTorch kernels promote it: hinge_embedding, soft_margin,
    cosine_embedding, poisson_nll); anything else unchanged, for _tensors to check (a
    bool target of the losses whose PyTorch formulas subtract or negate it stays
    refused, as there)."""
    if (isinstance(target, _C.Tensor) and isinstance(like, _C.Tensor)
            and like.is_floating_point() and not target.is_floating_point()
            and (bool_ok or target.dtype != _C.bool)):
        return target.to(like.dtype)
    return target


def _broadcast(where, **named):
    """The broadcast shape of the named tensors, or an InvalidArgumentError naming them."""
    shapes = {name: tuple(t.shape) for name, t in named.items()}
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{n} {s}" for n, s in shapes.items())
        device = next(iter(named.values())).device
        raise _Invalid(f"{where}: the shapes do not broadcast: {listed} (on {device})") from None


def _check_reduction(reduction, where):
    if reduction not in ("mean", "sum", "none"):
        _reduced(None, reduction, where)


def _number(value, what, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {what} must be a number, got {type(value).__name__}")
    return float(value)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """PyTorch's ``margin_ranking_loss``: ``max(0, -y (x1 - x2) + margin)`` elementwise,
    where y = 1 means x1 should rank higher and y = -1 lower, then reduced.

    Parameters
    ----------
    input1, input2 : Tensor
        Floating point scores, of one number of dimensions (broadcast).
    target : Tensor
        1 or -1 (floating point), as many dimensions.
    margin : float, optional
        Default 0.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or the broadcast shape with reduction='none'.

    Raises
    ------
    TypeError
        When an input is not a floating-point Tensor, or margin not a number.
    ValueError
        When the numbers of dimensions differ or the shapes do not broadcast (an
        InvalidArgumentError, also a RuntimeError as PyTorch's), or for an unknown
        reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x1, x2 = pydevtensor.tensor([1., 2.]), pydevtensor.tensor([2., 1.])
    >>> F.margin_ranking_loss(x1, x2, pydevtensor.tensor([1., 1.]), margin=0.5)
    tensor(0.7500)
    """
    where = "margin_ranking_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _target(target, input1)
    input1, input2 = _target(input1, input2), _target(input2, input1)  # one an integer one
    _tensors(where, input1=input1, input2=input2, target=target)
    margin = _number(margin, "margin", where)
    _check_reduction(reduction, where)
    if not input1.ndim == input2.ndim == target.ndim:
        raise _Invalid(f"{where}: all input tensors should have the same number of dimensions, "
                       f"but got sizes: input1 {tuple(input1.shape)}, input2 "
                       f"{tuple(input2.shape)}, target {tuple(target.shape)} (on "
                       f"{input1.device})")
    _broadcast(where, input1=input1, input2=input2, target=target)
    loss = ((input1 - input2) * target).neg().add(margin).clamp(min=0.0)
    return _reduced(loss, reduction, where)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """PyTorch's ``hinge_embedding_loss``: x where y = 1, ``max(0, margin - x)`` where
    y = -1 (x usually a distance), elementwise, then reduced; PyTorch's formula adds
    both terms where y is neither.

    Parameters
    ----------
    input : Tensor
        Floating point.
    target : Tensor
        1 or -1, broadcast against input.
    margin : float, optional
        Default 1.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or the broadcast shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a floating-point Tensor, or margin not a number.
    ValueError
        When the shapes do not broadcast, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> d = pydevtensor.tensor([0.3, 0.4, 2.0])
    >>> F.hinge_embedding_loss(d, pydevtensor.tensor([1., -1., -1.]), reduction='none')
    tensor([0.3000, 0.6000, 0.0000])
    """
    where = "hinge_embedding_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _target(target, input, bool_ok=True)
    _tensors(where, input=input, target=target)
    margin = _number(margin, "margin", where)
    _check_reduction(reduction, where)
    _broadcast(where, input=input, target=target)
    hinge = input.neg().add(margin).clamp(min=0.0)
    loss = hinge.where(target != 1, 0.0) + input.where(target != -1, 0.0)
    return _reduced(loss, reduction, where)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """PyTorch's ``soft_margin_loss``: ``log(1 + exp(-y x))`` elementwise (computed as
    ``-logsigmoid(y x)``, which neither overflows nor loses small values), then
    reduced.

    Parameters
    ----------
    input : Tensor
        Floating point.
    target : Tensor
        1 or -1, broadcast to input's shape (not past it: PyTorch's kernel writes the
        loss into a tensor of input's shape).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a floating-point Tensor.
    ValueError
        When target does not broadcast to input's shape (an InvalidArgumentError, also a
        RuntimeError as PyTorch's), or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.soft_margin_loss(pydevtensor.tensor([0., 2.]), pydevtensor.tensor([1., -1.]),
    ...                    reduction='none')
    tensor([0.6931, 2.1269])
    """
    where = "soft_margin_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _target(target, input, bool_ok=True)
    _tensors(where, input=input, target=target)
    _check_reduction(reduction, where)
    if _broadcast(where, input=input, target=target) != tuple(input.shape):
        raise _Invalid(f"{where}: target of shape {tuple(target.shape)} would broadcast input "
                       f"of shape {tuple(input.shape)} to a larger loss (on {input.device}); "
                       f"the target must broadcast to the input's shape")
    loss = _act.logsigmoid(input * target).neg()
    # in input's dtype, as PyTorch's (its kernel writes into a tensor like input)
    return _reduced(loss.to(input.dtype), reduction, where)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """PyTorch's ``cosine_embedding_loss``: with c the cosine of x1 and x2 (their last
    dimension), ``1 - c`` where y = 1 and ``max(0, c - margin)`` where y = -1, then
    reduced; as PyTorch, c is ``x1.x2 / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))``.

    Parameters
    ----------
    input1, input2 : Tensor
        ``(N, D)`` or ``(D,)``, floating point, of one shape.
    target : Tensor
        ``(N,)`` (or 0-d for ``(D,)`` inputs) of 1 or -1.
    margin : float, optional
        Default 0 (from -1 to 1; PyTorch suggests 0 to 0.5).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When an input is not a floating-point Tensor, or margin not a number.
    ValueError
        When the shapes do not fit (an InvalidArgumentError, also a RuntimeError as
        PyTorch's), or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x1 = pydevtensor.tensor([[1., 0.], [1., 0.]])
    >>> x2 = pydevtensor.tensor([[0., 1.], [1., 1.]])
    >>> F.cosine_embedding_loss(x1, x2, pydevtensor.tensor([1., -1.]), reduction='none')
    tensor([1.0000, 0.7071])
    """
    where = "cosine_embedding_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _target(target, input1, bool_ok=True)
    _tensors(where, input1=input1, input2=input2, target=target)
    margin = _number(margin, "margin", where)
    _check_reduction(reduction, where)
    shapes = (f"input1 {tuple(input1.shape)}, input2 {tuple(input2.shape)} and target "
              f"{tuple(target.shape)} (on {input1.device})")
    if target.ndim > 1:
        raise _Invalid(f"{where}: 0-d or 1-d target tensor expected, multi-target not "
                       f"supported; got {shapes}")
    if input1.shape != input2.shape or input1.ndim != target.ndim + 1 or (
            target.ndim == 1 and target.shape[0] != input1.shape[0]):
        raise _Invalid(f"{where}: expected inputs (N, D) with target (N,), or (D,) with a 0-d "
                       f"target; got {shapes}")
    dim = input1.ndim - 1
    dot = (input1 * input2).sum(dim)
    square1 = (input1 * input1).sum(dim) + 1e-12
    square2 = (input2 * input2).sum(dim) + 1e-12
    cos = dot / (square1 * square2).sqrt()
    loss = cos.neg().add(1.0).where(target == 1, 0.0) + \
        cos.sub(margin).clamp(min=0.0).where(target == -1, 0.0)
    return _reduced(loss, reduction, where)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """PyTorch's ``triplet_margin_loss``: ``max(0, margin + d(a, p) - d(a, n))`` per
    triplet, d the p-norm distance of F.pairwise_distance (with its eps); with swap,
    d(a, n) is the smaller of it and d(p, n).

    Parameters
    ----------
    anchor, positive, negative : Tensor
        ``(N, D)`` or ``(D,)``, floating point, of one number of dimensions.
    margin : float, optional
        > 0, as PyTorch's (default 1).
    p : float, optional
        The norm's degree (default 2).
    eps : float, optional
        Added to the differences (default 1e-6).
    swap : bool, optional
        The distance swap of Balntas et al. (default False).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When an input is not a floating-point Tensor, or margin not a number.
    ValueError
        When the numbers of dimensions differ (an InvalidArgumentError, also a
        RuntimeError as PyTorch's), margin <= 0, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> a = pydevtensor.tensor([[0., 0.]])
    >>> F.triplet_margin_loss(a, pydevtensor.tensor([[3., 4.]]), pydevtensor.tensor([[1., 0.]]),
    ...                       eps=0.)
    tensor(5.)
    """
    where = "triplet_margin_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _tensors(where, anchor=anchor, positive=positive, negative=negative)
    margin = _triplet_checks(where, margin, reduction, anchor, positive, negative)
    swap = flag(swap, "triplet_margin_loss", "swap")
    d_pos = _norm.pairwise_distance(anchor, positive, p, eps)
    d_neg = _norm.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, _norm.pairwise_distance(positive, negative, p, eps))
    return _reduced((d_pos - d_neg).add(margin).clamp(min=0.0), reduction, where)


def _triplet_checks(where, margin, reduction, anchor, positive, negative):
    """The triplet losses' checks: margin (> 0, as a float), reduction, and one number
    of dimensions for the three Tensors."""
    margin = _number(margin, "margin", where)
    if not margin > 0:
        raise ValueError(f"{where}: margin must be greater than 0, got {margin}")
    _check_reduction(reduction, where)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise _Invalid(f"{where}: the anchor, positive, and negative tensors are expected to "
                       f"have the same number of dimensions, but got: anchor "
                       f"{anchor.ndim}D, positive {positive.ndim}D, and negative "
                       f"{negative.ndim}D inputs (shapes {tuple(anchor.shape)}, "
                       f"{tuple(positive.shape)}, {tuple(negative.shape)} on {anchor.device})")
    return margin


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """PyTorch's ``triplet_margin_with_distance_loss``: ``max(0, margin + d(a, p) -
    d(a, n))`` per triplet with a distance function d of one's choosing, reduced;
    with swap, ``d(a, n)`` is ``min(d(a, n), d(p, n))`` (Balntas et al.'s distance
    swap).  The gradient is autograd's through d.

    Parameters
    ----------
    anchor, positive, negative : Tensor
        Of one number of dimensions, as d takes them.
    distance_function : callable, optional
        ``d(x1, x2)`` -> a Tensor of distances, >= 0 (default pairwise_distance).
    margin : float, optional
        > 0 (default 1).
    swap : bool, optional
        The distance swap (default False).
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or d's shape with reduction='none'.

    Raises
    ------
    TypeError
        When an input is not a Tensor, margin not a number, or distance_function not
        callable.
    ValueError
        When margin <= 0, the numbers of dimensions differ (an InvalidArgumentError,
        also a RuntimeError as PyTorch's), or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> a = pydevtensor.tensor([[0., 0.]])
    >>> l_inf = lambda x, y: (x - y).abs().amax(-1)
    >>> F.triplet_margin_with_distance_loss(a, pydevtensor.tensor([[3., 4.]]),
    ...                                     pydevtensor.tensor([[1., 0.]]),
    ...                                     distance_function=l_inf)
    tensor(4.)
    """
    where = "triplet_margin_with_distance_loss()"
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    if distance_function is not None and not callable(distance_function):
        raise TypeError(f"{where}: distance_function must be callable or None, got "
                        f"{type(distance_function).__name__}")
    margin = _triplet_checks(where, margin, reduction, anchor, positive, negative)
    d = _norm.pairwise_distance if distance_function is None else distance_function
    d_pos, d_neg = d(anchor, positive), d(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, d(positive, negative))
    return _reduced((d_pos - d_neg).add(margin).clamp(min=0.0), reduction, where)


def _class_targets(input, target, where, shape):
    """Checks integer class targets of the given shape on input's device, in [0, C)
    on the CPU (where reading them is free); C is input's last dimension.  -1 (padding,
    multilabel_margin_loss's) is allowed where the shape is input's."""
    if not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: target must be a Tensor, got {type(target).__name__}")
    if target.dtype not in (_C.int64, _C.int32):
        raise _C.DTypeError(f"{where}: target must hold integer class indices (int64 or int32), "
                            f"got {target.dtype} on {target.device}")
    if tuple(target.shape) != shape:
        raise _Invalid(f"{where}: target of shape {tuple(target.shape)} does not fit input of "
                       f"shape {tuple(input.shape)} (on {input.device}): expected {shape}")
    if target.device != input.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                             f"target is on {target.device} and input on {input.device}")
    c = input.shape[-1] if input.ndim else 1
    if target.device.type == "cpu" and target.numel():
        low = -1 if shape == tuple(input.shape) else 0
        bad = target[(target < low).logical_or(target >= c)]
        if bad.numel():
            raise IndexError(f"{where}: target {int(bad[0].item())} is out of range for "
                             f"{c} classes (input of shape {tuple(input.shape)} on "
                             f"{input.device})")
    return target.to(_C.int64)


_PAIRS_PER_BLOCK = 1 << 22  # multilabel_margin_loss's (N, step, C) blocks


def _as_rows(input, where):
    """input as (N, C): a (C,) one is one row."""
    _tensors(where, input=input)
    if input.ndim not in (1, 2):
        raise _Invalid(f"{where}: expected input (N, C) or (C,), got shape "
                       f"{tuple(input.shape)} (on {input.device})")
    return input if input.ndim == 2 else input.reshape(1, input.shape[0])


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """PyTorch's ``multi_margin_loss``, the multi-class hinge loss: for each sample with
    class y, ``sum over i != y of w[y] * max(0, margin - x[y] + x[i]) ** p``, divided
    by the number of classes C, then reduced over the samples.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` or ``(C,)`` floating-point scores.
    target : Tensor
        ``(N,)`` (0-d for ``(C,)`` input) int64 or int32 classes in ``[0, C)``
        (checked on the CPU).
    p : int, optional
        1 (default) or 2.
    margin : float, optional
        Default 1.
    weight : Tensor, optional
        ``(C,)`` class weights, input's dtype and device.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When input or weight is not a floating-point Tensor, or target not integer.
    ValueError
        When p is not 1 or 2, weight is not 1-d, the shapes do not fit, or for an
        unknown reduction.
    IndexError
        When a class is out of range (on the CPU).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> F.multi_margin_loss(x, pydevtensor.tensor([3]))
    tensor(0.3250)
    """
    where = "multi_margin_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"{where}: only p == 1 and p == 2 supported, got p={p!r}")
    margin = _number(margin, "margin", where)
    _check_reduction(reduction, where)
    rows = _as_rows(input, where)
    n, c = rows.shape
    one = input.ndim < 2 and isinstance(target, _C.Tensor) and tuple(target.shape) == (1,)
    if one:  # an unbatched input's class as (1,), as PyTorch takes it (the loss (1,) too)
        target = target.reshape(())
    target = _class_targets(input, target, where, (n,) if input.ndim == 2 else ())
    if weight is not None and isinstance(weight, _C.Tensor) and weight.ndim != 1:
        raise ValueError(f"{where}: weight must be one-dimensional, got shape "
                         f"{tuple(weight.shape)} (on {weight.device})")
    weight = _check_weight(weight, input, where, length=c)
    target = target.reshape(n, 1)
    z = (margin - rows.gather(1, target)) + rows
    z = z.clamp(min=0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[target.reshape(n)].reshape(n, 1)
    own = _C.arange(c, device=target.device) == target
    loss = z.masked_fill(own, 0.0).sum(1) / c
    if input.ndim == 1 and not one:
        loss = loss.reshape(())
    return _reduced(loss, reduction, where)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """PyTorch's ``multilabel_margin_loss``: each sample's target lists its classes,
    ended by the first -1 (the rest is padding); the loss is ``sum over listed j and
    unlisted i of max(0, 1 - (x[j] - x[i]))``, divided by the number of classes C,
    then reduced over the samples.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` or ``(C,)`` floating-point scores.
    target : Tensor
        input's shape, int64 or int32: classes in ``[0, C)`` then -1 padding
        (checked on the CPU).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When input is not a floating-point Tensor, or target not integer.
    ValueError
        When the shapes differ, or for an unknown reduction.
    IndexError
        When a class is out of range (on the CPU).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> F.multilabel_margin_loss(x, pydevtensor.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    where = "multilabel_margin_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, where)
    rows = _as_rows(input, where)
    n, c = rows.shape
    target = _class_targets(input, target, where, tuple(input.shape)).reshape(n, c)
    listed = (target >= 0).to(_C.int64).cumprod(1) > 0  # (N, K): before the first -1
    if target.device.type == "cpu" and target.numel():
        # only the columns that list a class in some row (read back on the CPU only): the
        # pairs below are (N, K, C), and K = C padded columns made N * C * C of them
        k = int(listed.sum(1).max().item())
        target, listed = target[:, :k], listed[:, :k]
    # each row's listed classes as a mask, scattered (padding and classes out of range,
    # unchecked off the CPU, go to a spare column c)
    slot = target.masked_fill(listed.logical_not().logical_or(target >= c), c)
    not_target = _C.zeros((n, c + 1), dtype=_C.bool, device=target.device).scatter(
        1, slot, True)[:, :c].logical_not()
    x_listed = rows.gather(1, target.clamp(min=0))  # (N, K)
    # sum over listed j and unlisted i of max(0, 1 - x[j] + x[i]), a few listed columns at
    # a time: each (N, step, C) block stays within _PAIRS_PER_BLOCK elements
    step = max(1, _PAIRS_PER_BLOCK // max(n * c, 1))
    total = None
    for start in range(0, max(target.shape[1], 1), step):
        xj, lj = x_listed[:, start:start + step], listed[:, start:start + step]
        z = (rows.unsqueeze(1) - xj.unsqueeze(2)).add(1.0).clamp(min=0.0)  # (N, step, C)
        keep = lj.unsqueeze(2).logical_and(not_target.unsqueeze(1))
        part = z.masked_fill(keep.logical_not(), 0.0).sum((1, 2))
        total = part if total is None else total + part
    loss = total / c
    if input.ndim == 1:
        loss = loss.reshape(())
    return _reduced(loss, reduction, where)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """PyTorch's ``multilabel_soft_margin_loss``: the binary cross-entropy of
    ``sigmoid(x)`` against 0/1 targets, ``-(y logsigmoid(x) + (1 - y) logsigmoid(-x))``,
    times weight, averaged over the classes (the last dimension), then reduced.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` or ``(C,)`` floating-point logits.
    target : Tensor
        input's shape, 0 or 1 (floating point).
    weight : Tensor, optional
        Broadcast against the elementwise losses (one per class); input's dtype and
        device.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When input, target or weight is not a floating-point Tensor.
    ValueError
        When the shapes do not broadcast, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[0., 2.], [-1., 1.]])
    >>> F.multilabel_soft_margin_loss(x, pydevtensor.tensor([[1., 0.], [0., 1.]]),
    ...                               reduction='none')
    tensor([1.4100, 0.3133])
    """
    where = "multilabel_soft_margin_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction, old_mean=False)
    target = _target(target, input)
    _tensors(where, input=input, target=target)
    _check_reduction(reduction, where)
    if input.ndim == 0:
        raise _Invalid(f"{where}: input is 0-d (on {input.device}); expected (N, C) or (C,)")
    _broadcast(where, input=input, target=target)
    weight = _check_weight(weight, input, where)
    loss = (target * _act.logsigmoid(input) + (1 - target) * _act.logsigmoid(input.neg())).neg()
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(loss.ndim - 1) / input.shape[-1]
    return _reduced(loss, reduction, where)


__all__ = ["cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
           "soft_margin_loss", "triplet_margin_loss"]
