"""nn.AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (2016), PyTorch's
layer of that name (torch.nn.modules.adaptive), for language models with a large
vocabulary: the frequent classes in a head, the rest in clusters behind it."""
from __future__ import annotations

import itertools
import numbers
from collections import namedtuple
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import _C
from .layers import Linear, ModuleList, Sequential
from .functional import log_softmax
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])  # PyTorch's name and fields

_CUTOFFS = ("cutoffs should be a sequence of unique, positive integers sorted in an "
            "increasing order, where each value is between 1 and n_classes-1")


def _int_arg(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"AdaptiveLogSoftmaxWithLoss: {name} must be an int, got "
                        f"{type(value).__name__}")
    return int(value)


class AdaptiveLogSoftmaxWithLoss(Module):
    """The adaptive softmax, as ``torch.nn.AdaptiveLogSoftmaxWithLoss``: the classes below
    ``cutoffs[0]`` (the shortlist) and one entry per cluster are scored by a head
    ``Linear(in_features, cutoffs[0] + n_clusters)``; cluster i (classes
    ``cutoffs[i - 1]`` up to ``cutoffs[i]``, the last ending at n_classes) by
    ``Linear(in_features, in_features // div_value ** i)`` then a Linear to its size. The
    log-probability of a class in cluster i is the head's log-probability of the cluster
    plus the cluster's log-probability of the class.

    Parameters
    ----------
    in_features : int
        The size of each input's feature dimension.
    n_classes : int
        The number of classes.
    cutoffs : sequence of int
        Increasing, unique ints in [1, n_classes - 1]: where the clusters start.
    div_value : float, optional
        The cluster i's hidden size is ``in_features // div_value ** i`` (default 4.0).
    head_bias : bool, optional
        Whether the head has a bias (default False).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype()).

    Raises
    ------
    ValueError
        For empty cutoffs (PyTorch's "cutoffs should be a sequence of length larger than
        0") or ones not increasing, repeated, not ints or outside [1, n_classes - 1].
    TypeError
        When in_features or n_classes is not an int.

    Notes
    -----
    ``forward(input, target)`` gives the namedtuple (output, loss): output[j] is the
    log-probability of target[j] under input[j] (input of shape (N, in_features) and
    target (N,), or (in_features,) and a 0-d target) and loss is ``-output.mean()``.
    A target outside [0, n_classes - 1] raises RuntimeError, as PyTorch's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> _ = pydevtensor.manual_seed(0)
    >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 8], div_value=2.0)
    >>> x = pydevtensor.randn(3, 8)
    >>> out, loss = asm(x, pydevtensor.tensor([0, 5, 9]))
    >>> out.shape, loss.shape
    (pydevtensor.Size([3]), pydevtensor.Size([]))
    >>> bool(pydevtensor.allclose(loss, -out.mean()))
    True
    >>> p = asm.log_prob(x).exp()
    >>> p.shape, bool(pydevtensor.allclose(p.sum(dim=1), pydevtensor.ones(3)))
    (pydevtensor.Size([3, 10]), True)
    >>> asm.predict(x).shape
    pydevtensor.Size([3])
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        in_features = _int_arg(in_features, "in_features")
        n_classes = _int_arg(n_classes, "n_classes")
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (any(isinstance(c, bool) or not isinstance(c, numbers.Real) for c in cutoffs)
                or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError(_CUTOFFS)
        kw = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self) -> None:
        """Draw the head's and the clusters' parameters again, as each Linear's own.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2], head_bias=True)
        >>> before = asm.head.bias.clone()
        >>> asm.reset_parameters()
        >>> bool((asm.head.bias != before).all()), bool(asm.head.bias.abs().max() <= 0.5)
        (True, True)
        """
        for lin in [self.head] + [layer for seq in self.tail for layer in seq]:
            lin.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        r"""The log-probability of each target and their mean's negation (the loss).

        Parameters
        ----------
        input\_ : Tensor
            (N, in_features), or (in_features,) for one example.
        target\_ : Tensor
            (N,) class indices, or a 0-d one.

        Returns
        -------
        namedtuple (output, loss)
            output: (N,) (or 0-d) log-probabilities; loss: 0-d, ``-output.mean()``.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
        >>> asm(pydevtensor.ones(4), pydevtensor.tensor(5)).output.shape
        pydevtensor.Size([])
        """
        for arg, name in ((input_, "input"), (target_, "target")):
            if not isinstance(arg, _C.Tensor):
                raise TypeError(f"AdaptiveLogSoftmaxWithLoss: {name} must be a Tensor, got "
                                f"{type(arg).__name__}")
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze(1)
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                cluster_output = self.tail[i - 1](input.index_select(0, row_indices))
                gather_inds.index_fill_(0, row_indices, self.shortlist_size + i - 1)
                cluster_logprob = log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[:, self.shortlist_size + i
                                                                ].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probabilities of all n_classes classes for each example.

        Parameters
        ----------
        input : Tensor
            (N, in_features).

        Returns
        -------
        Tensor
            (N, n_classes); each row's exp sums to 1.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
        >>> asm.log_prob(pydevtensor.ones(3, 4)).shape
        pydevtensor.Size([3, 6])
        """
        self._check_input(input, "log_prob")
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each example: ``log_prob(input).argmax(dim=1)``,
        computing the clusters only for the rows whose head picks a cluster.

        Parameters
        ----------
        input : Tensor
            (N, in_features).

        Returns
        -------
        Tensor
            (N,) int64 class indices.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
        >>> asm.predict(pydevtensor.ones(3, 4)).dtype
        pydevtensor.int64
        """
        self._check_input(input, "predict")
        head_output = self.head(input)
        output = _C.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return _C.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = _C.argmax(log_prob, dim=1)
        return output

    def _check_input(self, input, where):
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"AdaptiveLogSoftmaxWithLoss.{where}(): input must be a Tensor, "
                            f"got {type(input).__name__}")
        if input.dim() != 2:  # PyTorch's fails in log_softmax(dim=1) or in the copy
            raise (IndexError if input.dim() < 2 else RuntimeError)(f"AdaptiveLogSoftmaxWithLoss.{where}(): input must be 2-D "
                               f"(N, in_features), got size {input.size()}")
