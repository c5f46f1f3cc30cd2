"""EmbeddingBag and F.embedding_bag, as PyTorch's: the sum, mean or max of the embedding
rows of each bag of indices, without the (bags, length, dim) tensor an Embedding and a
reduction would make.  Bags are the rows of a 2-d input, or the runs of a 1-d input
between offsets.

Note [bags by index]: each index's bag number comes from ``bucketize`` of its position
against the offsets, on the input's device (nothing read back); the looked-up rows are
added into their bag by ``index_add`` (sum, mean); for max, each (bag, column) value is
gathered from one row, the first in bag order holding the maximum (found by
``scatter_reduce``), so that its whole gradient goes there, as PyTorch's (an empty bag
gives zeros).  Indices equal to padding_idx are sent to a bag past the last, dropped at
the end, so they count in no bag's sum, mean or max.  Autograd goes through those ops.
Offsets held by the CPU are checked as PyTorch's CPU kernel checks them (starting at 0,
never going down, within the input); a GPU's are not read back for that, and offsets
that go down there give bucketize's bags, not an error.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from .._args import flag, size as _size
from .._ops_scatter import index_add, scatter_reduce
from .._ops_counting import bucketize
from .._ops_join import cat
from ..autograd.grad_mode import no_grad as _no_grad
from . import _functional_norm as FN
from .module import Module
from .parameter import Parameter
from .sparse import _given_weight, _norm_options, _pretrained_shape, _TableParameters

if TYPE_CHECKING:
    from .._C import Tensor

__all__ = ["EmbeddingBag", "embedding_bag"]

_Invalid = _C.InvalidArgumentError


def _check_offsets(offsets, length, include_last_offset, where):
    """PyTorch's checks of a 1-d input's offsets (CPU tensors only: no read back)."""
    values = offsets.tolist()
    if not values:
        return
    if values[0] != 0:
        raise _Invalid(f"{where}: offsets[0] has to be 0, i.e., the first sequence in the "
                       f"mini-batch has to start from position 0; got {values[0]}")
    if values[-1] > length:
        raise _Invalid(f"{where}: offsets[-1] can not be greater than input's length "
                       f"{length} but got offsets[-1] of {values[-1]}")
    down = next((k for k in range(1, len(values)) if values[k] < values[k - 1]), None)
    if down is not None:
        raise _Invalid(f"{where}: offsets must not decrease, got offsets[{down - 1}] = "
                       f"{values[down - 1]} and offsets[{down}] = {values[down]}")
    if include_last_offset and values[-1] != length:
        raise _Invalid(f"{where}: with include_last_offset the last offset must be the "
                       f"input's length {length}, got {values[-1]}")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of weight's rows over each bag of indices, as PyTorch's
    ``F.embedding_bag`` (Note [bags by index]).

    Parameters
    ----------
    input : Tensor
        int64/int32 indices: ``(B, N)``, B bags of N (offsets None), or ``(L,)`` with
        offsets.
    weight : Tensor
        ``(num_embeddings, embedding_dim)``.
    offsets : Tensor, optional
        ``(B,)`` where each bag of a 1-d input starts (``(B + 1,)`` with
        include_last_offset, the last entry the input's length).
    max_norm, norm_type, scale_grad_by_freq :
        As F.embedding's.
    mode : {'sum', 'mean', 'max'}, optional
        The reduction (default 'mean'); an empty bag gives zeros.
    sparse : bool, optional
        Only False.
    per_sample_weights : Tensor, optional
        Of input's shape: each row is scaled by its weight first (mode 'sum' only).
    include_last_offset : bool, optional
        offsets ends with the input's length (default False).
    padding_idx : int, optional
        Indices equal to it belong to no bag.

    Returns
    -------
    Tensor
        ``(B, embedding_dim)``.

    Raises
    ------
    ValueError
        For a bad mode, shapes that do not fit, offsets with a 2-d input, empty
        offsets with indices (or with include_last_offset), a padding_idx out of range,
        or scale_grad_by_freq with mode 'max' (an InvalidArgumentError, PyTorch's
        RuntimeError too).
    NotImplementedError
        For per_sample_weights with a mode other than 'sum', as PyTorch's; and for
        sparse=True.
    TypeError
        When input or offsets is not an int64/int32 Tensor, weight not floating point,
        or per_sample_weights not of weight's dtype (a DTypeError, PyTorch's
        RuntimeError too, where a Tensor has the wrong dtype).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> w = pydevtensor.arange(10.).reshape(5, 2)
    >>> F.embedding_bag(pydevtensor.tensor([0, 1, 4]), w, pydevtensor.tensor([0, 2]),
    ...                 mode='sum')
    tensor([[ 2.,  4.],
            [ 8.,  9.]])
    """
    return _bags(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                 sparse, per_sample_weights, include_last_offset, padding_idx,
                 "embedding_bag()")[0]


def _check_tensors(input, weight, offsets, per_sample_weights, where):
    """The argument's types and dtypes, as PyTorch's: a non-Tensor is a TypeError, a wrong
    dtype a DTypeError (a TypeError and PyTorch's RuntimeError)."""
    for name, t in (("input", input), ("offsets", offsets)):
        if t is None and name == "offsets":
            continue
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be an int64 or int32 Tensor, got "
                            f"{type(t).__name__}")
        if t.dtype not in (_C.int64, _C.int32):
            raise _C.DTypeError(f"{where}: {name} must be an int64 or int32 Tensor, got "
                                f"{t.dtype} (on {t.device})")
    if not isinstance(weight, _C.Tensor) or weight.ndim != 2:
        raise _Invalid(f"{where}: weight must be a 2-d Tensor (num_embeddings, "
                       f"embedding_dim), got {getattr(weight, 'shape', type(weight).__name__)}")
    if not weight.dtype.is_floating_point:
        raise _C.DTypeError(f"{where}: weight must be floating point (float64, float32, "
                            f"float16 or bfloat16), got {weight.dtype} (on {weight.device})")
    if per_sample_weights is not None:
        if not isinstance(per_sample_weights, _C.Tensor):
            raise TypeError(f"{where}: per_sample_weights must be a Tensor or None, got "
                            f"{type(per_sample_weights).__name__}")
        if per_sample_weights.dtype != weight.dtype:
            raise _C.DTypeError(f"{where}: per_sample_weights must have weight's dtype "
                                f"{weight.dtype}, got {per_sample_weights.dtype} (on "
                                f"{per_sample_weights.device})")
    for name, t in (("indices", input), ("offsets", offsets),
                    ("per_sample_weights", per_sample_weights)):
        if t is not None and t.device != weight.device:  # else searchsorted's or mul's
            raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, "
                                 f"but the {name} {tuple(t.shape)} are on {t.device} and "
                                 f"weight {tuple(weight.shape)} on {weight.device}; move one "
                                 f"with .to()")


def _bags(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
          per_sample_weights, include_last_offset, padding_idx, where):
    """embedding_bag's output and the bag of each index (int64, padding included),
    each bag's count of indices that are not padding (int64) and, for mode 'max', the
    (bags, embedding_dim) row each maximum came from (0 for an empty bag; else None):
    PyTorch's offset2bag, bag_size and max_indices."""
    if mode not in ("sum", "mean", "max"):
        raise _Invalid(f"{where}: mode has to be one of sum, mean or max, got {mode!r}")
    if flag(scale_grad_by_freq, "embedding_bag", "scale_grad_by_freq") and mode == "max":
        raise _Invalid(f"{where}: max mode does not support scaling the gradient by the "
                       f"frequency (scale_grad_by_freq=True); use mode 'sum' or 'mean'")
    include_last_offset = flag(include_last_offset, "embedding_bag", "include_last_offset")
    if flag(sparse, "embedding_bag", "sparse"):
        raise NotImplementedError(f"{where}: sparse=True (sparse gradients) is not "
                                  f"supported; use sparse=False")
    _check_tensors(input, weight, offsets, per_sample_weights, where)
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(  # as PyTorch's
                f"{where}: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode={mode!r}). Please open a feature request on "
                f"GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise _Invalid(f"{where}: per_sample_weights of shape "
                           f"{tuple(per_sample_weights.shape)} must have input's shape "
                           f"{tuple(input.shape)}")
    if input.ndim == 2:
        if offsets is not None:
            raise _Invalid(f"{where}: if input is 2D, then offsets has to be None, as input "
                           f"is treated is a mini-batch of fixed length sequences")
        bags, length = input.shape
        flat = input.reshape(-1)
        starts = _C.arange(0, bags * length, max(length, 1), device=input.device)[:bags]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None or offsets.ndim != 1:
            raise _Invalid(f"{where}: offsets has to be a 1D Tensor for a 1-d input, got "
                           f"{None if offsets is None else tuple(offsets.shape)}")
        _check_offsets_shape(offsets.shape[0], input.shape[0], include_last_offset, where)
        flat = input
        if offsets.device.type == "cpu":
            _check_offsets(offsets, input.shape[0], include_last_offset, where)
        starts = offsets[:-1] if include_last_offset else offsets
        bags = starts.shape[0]
    else:
        raise _Invalid(f"{where}: input has to be 1D or 2D Tensor, but got Tensor of "
                       f"dimension {input.ndim}")
    dim = weight.shape[1]
    rows = FN._embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, False,
                         "embedding_bag")
    positions = _C.arange(flat.shape[0], device=flat.device)
    offset2bag = bucketize(positions, starts.to(_C.int64).contiguous(), right=True) - 1
    bag_of = offset2bag
    if padding_idx is not None:  # padding goes to an extra bag, dropped below
        padding_idx = FN._padding_idx(padding_idx, weight.shape[0], where)
        bag_of = bag_of.masked_fill(flat == padding_idx, bags)
    counts = index_add(_C.zeros(bags + 1, dtype=_C.int64, device=rows.device), 0, bag_of,
                       _C.ones(flat.shape[0], dtype=_C.int64, device=rows.device))[:bags]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    if mode == "max":
        out, first = _bag_max(rows, bag_of, bags)
        # the row of each maximum; an empty bag's position (len(flat)) picks the 0 after
        rows_of = cat([flat.to(_C.int64), _C.zeros(1, dtype=_C.int64, device=flat.device)])
        return out[:bags], offset2bag, counts, rows_of[first[:bags]]
    sums = index_add(_C.zeros((bags + 1, dim), dtype=rows.dtype, device=rows.device), 0,
                     bag_of, rows)[:bags]
    if mode == "sum":
        return sums, offset2bag, counts, None
    return (sums / counts.clamp(min=1).to(rows.dtype).unsqueeze(1), offset2bag, counts,
            None)


def _check_offsets_shape(n, length, include_last_offset, where):
    """Offsets that name no bag: PyTorch's CPU kernel reads past them (a crash)."""
    if include_last_offset and n == 0:
        raise _Invalid(f"{where}: with include_last_offset, offsets must hold at least the "
                       f"input's length {length}, got an empty offsets")
    if not include_last_offset and n == 0 and length:
        raise _Invalid(f"{where}: offsets is empty (no bag) but the input holds {length} "
                       f"indices; the first bag starts at offsets[0] = 0")


def _bag_max(rows: Tensor, bag_of: Tensor, bags: int) -> tuple[Tensor, Tensor]:
    """The (bags + 1, dim) maxima of rows over each bag (bag_of), each value gathered
    from one row, so that its gradient goes there only: the first in bag order of the
    rows that hold the bag's maximum in that column, as PyTorch's kernel picks it (a
    NaN maximum: the first NaN).  An empty bag gives 0 and sends nothing back.  Also
    the position in rows of each value (len(rows) for an empty bag)."""
    length, dim = rows.shape
    with _no_grad():
        values = rows.detach()
        where_to = bag_of.unsqueeze(1).expand(-1, dim)
        top = scatter_reduce(_C.zeros((bags + 1, dim), dtype=rows.dtype, device=rows.device),
                             0, where_to, values, "amax", include_self=False)
        at_top = top.gather(0, where_to)
        is_top = (values == at_top) | (values.isnan() & at_top.isnan())
        positions = _C.arange(length, device=rows.device).unsqueeze(1).expand(-1, dim)
        first = scatter_reduce(_C.full((bags + 1, dim), length, dtype=_C.int64,
                                       device=rows.device),
                               0, where_to, positions.masked_fill(~is_top, length), "amin")
        found = first < length
    if length == 0:  # every bag empty: zeros, still on rows' graph (a zero gradient)
        return (_C.zeros((bags + 1, dim), dtype=rows.dtype, device=rows.device)
                + rows.sum(0), first)
    return rows.gather(0, first.clamp(max=length - 1)).masked_fill(~found, 0.0), first


class EmbeddingBag(_TableParameters, Module):
    """A table of num_embeddings vectors whose forward gives the sum, mean or max of the
    rows of each bag of indices (F.embedding_bag), as ``torch.nn.EmbeddingBag``; the
    weight is drawn from N(0, 1), as Embedding's.

    Parameters
    ----------
    num_embeddings, embedding_dim : int
        The table's shape.
    max_norm, norm_type, scale_grad_by_freq :
        As Embedding's.
    mode : {'sum', 'mean', 'max'}, optional
        The reduction (default 'mean').
    sparse : bool, optional
        Only False.
    include_last_offset : bool, optional
        As F.embedding_bag's.
    padding_idx : int, optional
        A row that belongs to no bag (zero at first).
    device, dtype : optional
        Of the weight.

    Raises
    ------
    ValueError
        For a bad mode, a negative size, or a _weight whose shape is not
        (num_embeddings, embedding_dim).
    TypeError
        When _weight is not a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> bag = nn.EmbeddingBag(10, 3, mode='sum')
    >>> bag(pydevtensor.tensor([[1, 2], [4, 4]])).shape
    pydevtensor.Size([2, 3])
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device=None, dtype=None) -> None:
        super().__init__()
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode has to be one of sum, mean or max, got "
                             f"{mode!r}")
        num_embeddings = _size(num_embeddings, "EmbeddingBag", "num_embeddings", 0)
        embedding_dim = _size(embedding_dim, "EmbeddingBag", "embedding_dim", 0)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        max_norm, norm_type = FN._embedding_options(max_norm, norm_type, scale_grad_by_freq,
                                                    sparse, "EmbeddingBag")
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            padding_idx = FN._padding_idx(padding_idx, num_embeddings, "EmbeddingBag")
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_C.empty(
                num_embeddings, embedding_dim, device=device,
                dtype=_C._get_default_dtype() if dtype is None else dtype))
            self.reset_parameters()
        else:
            self.weight = Parameter(_given_weight(_weight, num_embeddings, embedding_dim,
                                                  "EmbeddingBag"))

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An EmbeddingBag over the given (num_embeddings, embedding_dim) table (its
        storage), frozen by default.

        Parameters
        ----------
        embeddings : Tensor
            The table, 2-d.
        freeze : bool, optional
            The weight does not train (default True).
        max_norm, norm_type, scale_grad_by_freq, mode, sparse : optional
            As the constructor's.
        include_last_offset, padding_idx : optional
            As the constructor's.

        Returns
        -------
        EmbeddingBag

        Examples
        --------
        >>> from pydevtensor import nn
        >>> bag = nn.EmbeddingBag.from_pretrained(pydevtensor.eye(3), mode='max')
        >>> bag(pydevtensor.tensor([[0, 2]]))
        tensor([[1., 0., 1.]])
        """
        rows, cols = _pretrained_shape(embeddings, "EmbeddingBag.from_pretrained()")
        bag = cls(rows, cols, max_norm, norm_type,
                  scale_grad_by_freq, mode, sparse, embeddings, include_last_offset,
                  padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}" + _norm_options(self)
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text
