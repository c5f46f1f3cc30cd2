"""PyTorch's top-level ATen forms of nn.functional's losses, embedding and embedding_bag:
``torch.kl_div(input, target, reduction=1)`` and the like, whose ``reduction`` is an int
(0: 'none', 1: 'mean', 2: 'sum', PyTorch's ``Reduction`` enum) and whose arguments come
in ATen's order (``torch.embedding(weight, indices)``).  Each calls nn.functional's own
function, imported on first use (Note [lazy submodules] in __init__.py).

Note [the ATen forms' default reduction]: the schemas say ``reduction=1`` (the mean),
and ``torch.ops.aten.kl_div(x, t)`` gives it; but torch 2.15's top-level functions
called without reduction return the unreduced loss, as 0 does.  These follow what
``torch.kl_div(x, t)`` returns: the default is 0.  PyTorch reads any other int as 0
too; here 0, 1 and 2 are the only values taken.
"""
from . import _C, _args

__all__ = ["binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss",
           "triplet_margin_loss", "ctc_loss", "embedding", "embedding_bag"]

_REDUCTIONS = ("none", "mean", "sum")


def _functional():
    import importlib
    return importlib.import_module("pydevtensor.nn.functional")


def _reduction(value, where):
    """The reduction's name for PyTorch's enum value (0, 1 or 2)."""
    given, value = value, _args.index(value)
    if value is None:
        raise TypeError(f"{where}(): argument 'reduction' must be int, not "
                        f"{type(given).__name__}")
    if value not in (0, 1, 2):
        raise ValueError(f"{where}(): reduction must be 0 ('none'), 1 ('mean') or 2 ('sum'), "
                         f"got {value}")
    return _REDUCTIONS[value]


_DOC = """{summary}

    PyTorch's top-level ATen form: ``reduction`` is an int, 0 ('none', the default:
    Note [the ATen forms' default reduction] in pydevtensor/_ops_aten_losses.py), 1
    ('mean') or 2 ('sum').

    Parameters
    ----------{params}
    reduction : int, optional
        0, 1 or 2.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When reduction is not an int; as :func:`~pydevtensor.nn.functional.{name}`
        otherwise.
    ValueError
        When reduction is not 0, 1 or 2.

    Examples
    --------
{example}
    """


def _doc(fn, summary, params, example):
    fn.__doc__ = _DOC.format(summary=summary, params=params, name=fn.__name__,
                             example=example)
    return fn


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    name = _reduction(reduction, "binary_cross_entropy_with_logits")
    return _functional().binary_cross_entropy_with_logits(input, target, weight, reduction=name,
                                                          pos_weight=pos_weight)


def kl_div(input, target, reduction=0, *, log_target=False):
    name = _reduction(reduction, "kl_div")
    # 'mean' as the mean of the elements, without nn.functional's warning that it is not
    # the batch mean (PyTorch's ATen op gives none)
    out = _functional().kl_div(input, target, reduction="none" if name == "mean" else name,
                               log_target=log_target)
    return out.mean() if name == "mean" else out


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    name = _reduction(reduction, "cosine_embedding_loss")
    return _functional().cosine_embedding_loss(input1, input2, target, margin, reduction=name)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _functional().hinge_embedding_loss(
        input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    name = _reduction(reduction, "margin_ranking_loss")
    return _functional().margin_ranking_loss(input1, input2, target, margin, reduction=name)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _functional().poisson_nll_loss(
        input, target, log_input, full, eps=eps,
        reduction=_reduction(reduction, "poisson_nll_loss"))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    return _functional().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap,
        reduction=_reduction(reduction, "triplet_margin_loss"))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    return _functional().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                  _reduction(reduction, "ctc_loss"), zero_infinity)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of weight that indices pick, PyTorch's ATen form ``torch.embedding``:
    :func:`~pydevtensor.nn.functional.embedding` with weight first, and padding_idx -1
    for none (its row then gets no gradient; in the ATen form -1 is not the last row).

    Parameters
    ----------
    weight : Tensor
        ``(num_embeddings, embedding_dim)``.
    indices : Tensor
        Integer indices into weight's rows, any shape.
    padding_idx : int, optional
        The row that gets no gradient; -1 (the default) or any negative: none.
    scale_grad_by_freq : bool, optional
        Scale each row's gradient by the inverse of its count in indices.
    sparse : bool, optional
        As nn.functional.embedding's.

    Returns
    -------
    Tensor
        ``indices.shape + (embedding_dim,)``.

    Raises
    ------
    TypeError, IndexError, ValueError
        As :func:`~pydevtensor.nn.functional.embedding`.

    Examples
    --------
    >>> w = pydevtensor.arange(6.).reshape(3, 2)
    >>> pydevtensor.embedding(w, pydevtensor.tensor([2, 0]))
    tensor([[4., 5.],
            [0., 1.]])
    """
    given, padding_idx = padding_idx, _args.index(padding_idx)
    if padding_idx is None:
        raise TypeError(f"embedding(): argument 'padding_idx' must be int, not "
                        f"{type(given).__name__}")
    return _functional().embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


_MODES = ("sum", "mean", "max")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of weight's rows over each bag of indices, PyTorch's ATen form
    ``torch.embedding_bag``: :func:`~pydevtensor.nn.functional.embedding_bag` with weight
    first, offsets required, mode an int, and a tuple of four results.

    Parameters
    ----------
    weight : Tensor
        ``(num_embeddings, embedding_dim)``, floating point.
    indices : Tensor
        int64 or int32 indices, 1-d (a 2-d one is read flattened, as PyTorch's).
    offsets : Tensor
        Where each bag starts in indices (with include_last_offset, ending with the
        length of indices).
    scale_grad_by_freq : bool, optional
        Scale each row's gradient by the inverse of its count (not in mode 2).
    mode : int, optional
        0 (the sum, the default), 1 (the mean) or 2 (the max).
    sparse : bool, optional
        Only False.
    per_sample_weights : Tensor, optional
        Of indices' shape and weight's dtype, scaling each row (mode 0 only).
    include_last_offset : bool, optional
        offsets ends with the length of indices.
    padding_idx : int, optional
        Indices equal to it (negative: from the end) belong to no bag.

    Returns
    -------
    tuple of Tensor
        ``(output, offset2bag, bag_size, max_indices)``, as PyTorch's: output
        ``(bags, embedding_dim)``; offset2bag (int64, of indices' length) the bag of each
        index; bag_size (int64, ``(bags,)``) each bag's count of indices other than
        padding_idx; max_indices in mode 2 the ``(bags, embedding_dim)`` row each
        maximum came from (0 for an empty bag), in the other modes bag_size.  PyTorch's
        CPU kernel gives no offset2bag and zero bag_size in some cases of mode 0; here
        they are always filled.  Only output has a gradient.

    Raises
    ------
    TypeError
        When mode is not an int; as :func:`~pydevtensor.nn.functional.embedding_bag`
        otherwise.
    ValueError
        When mode is not 0, 1 or 2 (an InvalidArgumentError, PyTorch's RuntimeError
        too); as :func:`~pydevtensor.nn.functional.embedding_bag` otherwise.

    Examples
    --------
    >>> w = pydevtensor.arange(10.).reshape(5, 2)
    >>> out, offset2bag, bag_size, max_indices = pydevtensor.embedding_bag(
    ...     w, pydevtensor.tensor([0, 1, 4, 2, 2]), pydevtensor.tensor([0, 2, 2]), mode=2)
    >>> out
    tensor([[2., 3.],
            [0., 0.],
            [8., 9.]])
    >>> offset2bag, bag_size
    (tensor([0, 0, 2, 2, 2]), tensor([2, 0, 3]))
    >>> max_indices
    tensor([[1, 1],
            [0, 0],
            [4, 4]])
    """
    from .nn.embedding_bag import _bags
    given, mode = mode, _args.index(mode)
    if mode is None:
        raise TypeError(f"embedding_bag(): argument 'mode' must be int, not "
                        f"{type(given).__name__}")
    if mode not in (0, 1, 2):
        raise _C.InvalidArgumentError(f"embedding_bag(): mode must be 0 (sum), 1 (mean) or 2 "
                                      f"(max), got {mode}")
    if not isinstance(offsets, _C.Tensor):
        raise TypeError(f"embedding_bag(): argument 'offsets' must be Tensor, not "
                        f"{type(offsets).__name__}")
    if isinstance(indices, _C.Tensor) and indices.ndim == 2:  # read flattened, as PyTorch's
        indices = indices.reshape(-1)
        if isinstance(per_sample_weights, _C.Tensor) and per_sample_weights.ndim == 2:
            per_sample_weights = per_sample_weights.reshape(-1)
    output, offset2bag, bag_size, max_indices = _bags(
        indices, weight, offsets, None, 2.0, scale_grad_by_freq, _MODES[mode], sparse,
        per_sample_weights, include_last_offset, padding_idx, "embedding_bag()")
    return output, offset2bag, bag_size, bag_size if max_indices is None else max_indices


_T = "\n    {} : Tensor"
_F = "\n    {} : float, optional\n        Default {}."
_doc(binary_cross_entropy_with_logits,
     "The binary cross-entropy of logits against target probabilities.",
     _T.format("input") + _T.format("target") + "\n    weight : Tensor, optional"
     "\n    pos_weight : Tensor, optional",
     "    >>> pydevtensor.binary_cross_entropy_with_logits(pydevtensor.tensor([0.]),\n"
     "    ...                                              pydevtensor.tensor([1.]), None,\n"
     "    ...                                              None, 2)\n"
     "    tensor(0.6931)")
_doc(kl_div, "The Kullback-Leibler divergence loss: target * (log(target) - input), input "
     "holding log-probabilities.",
     _T.format("input") + _T.format("target") + "\n    log_target : bool, optional"
     "\n        Whether target holds log-probabilities (keyword only).",
     "    >>> pydevtensor.kl_div(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([1., 0.]))\n"
     "    tensor([0., 0.])")
_doc(cosine_embedding_loss, "1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - "
     "margin) where it is -1.",
     _T.format("input1") + _T.format("input2") + _T.format("target") + _F.format("margin", 0.0),
     "    >>> x = pydevtensor.tensor([[1., 0.]])\n"
     "    >>> pydevtensor.cosine_embedding_loss(x, x, pydevtensor.tensor([1.]), 0.0, 2)\n"
     "    tensor(0.)")
_doc(hinge_embedding_loss, "input where target is 1, max(0, margin - input) where it is -1.",
     _T.format("input") + _T.format("target") + _F.format("margin", 1.0),
     "    >>> pydevtensor.hinge_embedding_loss(pydevtensor.tensor([0.25, 2.]),\n"
     "    ...                                  pydevtensor.tensor([-1., 1.]))\n"
     "    tensor([0.7500, 2.0000])")
_doc(margin_ranking_loss, "max(0, -target * (input1 - input2) + margin) for each pair.",
     _T.format("input1") + _T.format("input2") + _T.format("target")
     + _F.format("margin", 0.0),
     "    >>> pydevtensor.margin_ranking_loss(pydevtensor.tensor([1., 2.]),\n"
     "    ...     pydevtensor.tensor([2., 1.]), pydevtensor.tensor([1., 1.]), 0.0, 1)\n"
     "    tensor(0.5000)")
_doc(poisson_nll_loss, "The negative log-likelihood of target under Poisson(input) (or "
     "Poisson(exp(input)) with log_input); every argument required, as in ATen.",
     _T.format("input") + _T.format("target") + "\n    log_input : bool\n    full : bool"
     "\n        Add Stirling's term for target > 1.\n    eps : float\n        Added to input "
     "before its log when not log_input.",
     "    >>> pydevtensor.poisson_nll_loss(pydevtensor.tensor([0.]), pydevtensor.tensor([1.]),\n"
     "    ...                              True, False, 1e-8, 1)\n"
     "    tensor(1.)")
_doc(triplet_margin_loss, "max(0, d(anchor, positive) - d(anchor, negative) + margin), d the "
     "p-norm distance.",
     _T.format("anchor") + _T.format("positive") + _T.format("negative")
     + _F.format("margin", 1.0) + _F.format("p", 2.0) + _F.format("eps", 1e-06)
     + "\n    swap : bool, optional\n        Use the smaller of d(anchor, negative) and "
     "d(positive, negative).",
     "    >>> a = pydevtensor.zeros(1, 2)\n"
     "    >>> pydevtensor.triplet_margin_loss(a, a, a + 3.0, 1.0, 2.0, 0.0, False, 2)\n"
     "    tensor(0.)")
_doc(ctc_loss, "The connectionist temporal classification loss of log_probs ``(T, N, C)`` "
     "against the targets.",
     _T.format("log_probs") + _T.format("targets") + "\n    input_lengths, target_lengths : "
     "Tensor or sequence of ints" + "\n    blank : int, optional\n        Default 0."
     "\n    zero_infinity : bool, optional\n        Zero the infinite losses and their "
     "gradients.",
     "    >>> lp = pydevtensor.full((2, 1, 2), 0.5).log()\n"
     "    >>> pydevtensor.ctc_loss(lp, pydevtensor.tensor([[1]]), [2], [1])\n"
     "    tensor([0.2877])")
