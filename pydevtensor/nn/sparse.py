"""nn.Embedding: a lookup table of learned vectors (D2L's word2vec, RNN and
transformer chapters), with PyTorch's initialisation and padding_idx."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from .._args import size as _size
from . import _functional_norm as FN
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


def _norm_options(module) -> str:
    """The part of an Embedding's or EmbeddingBag's extra_repr for max_norm, norm_type and
    scale_grad_by_freq: each that is not its default."""
    text = ""
    if module.max_norm is not None:
        text += f", max_norm={module.max_norm}"
    if module.norm_type != 2:
        text += f", norm_type={module.norm_type}"
    if module.scale_grad_by_freq:
        text += f", scale_grad_by_freq={module.scale_grad_by_freq}"
    return text


def _given_weight(weight, num_embeddings: int, embedding_dim: int, where: str) -> Tensor:
    """An Embedding's or EmbeddingBag's _weight, checked, detached: the same storage, as
    PyTorch's Parameter(_weight)."""
    if not isinstance(weight, _C.Tensor):
        raise TypeError(f"{where}: _weight must be a Tensor, got {type(weight).__name__}")
    if tuple(weight.shape) != (num_embeddings, embedding_dim):
        raise ValueError(f"{where}: the shape of weight {tuple(weight.shape)} does not match "
                         f"num_embeddings and embedding_dim ({num_embeddings}, "
                         f"{embedding_dim}) (on {weight.device})")
    return weight.detach()


def _pretrained_shape(embeddings, where: str) -> tuple[int, int]:
    """from_pretrained's table, checked: a Tensor (else TypeError), 2-d (else ValueError)."""
    if not isinstance(embeddings, _C.Tensor):
        raise TypeError(f"{where}: embeddings must be a Tensor, got "
                        f"{type(embeddings).__name__}")
    if embeddings.ndim != 2:
        raise ValueError(f"{where}: embeddings parameter is expected to be 2-dimensional, "
                         f"got shape {tuple(embeddings.shape)} (on {embeddings.device})")
    return embeddings.shape[0], embeddings.shape[1]


class _TableParameters:
    """reset_parameters and _fill_padding_idx_with_zero of Embedding and EmbeddingBag,
    as PyTorch's (each has weight and padding_idx)."""

    def reset_parameters(self) -> None:
        """Draws weight from N(0, 1) again, in place, then zeros the row padding_idx (when
        there is one), as PyTorch's; the constructor draws the weight so.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> emb = nn.Embedding(4, 2, padding_idx=1)
        >>> _ = emb.weight.data.fill_(5.0)
        >>> emb.reset_parameters()
        >>> emb.weight[1].tolist(), bool((emb.weight[0] != 5.0).all())
        ([0.0, 0.0], True)
        """
        self.weight.data.normal_()
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            self.weight.data[self.padding_idx].fill_(0.0)


class Embedding(_TableParameters, Module):
    """A table of num_embeddings vectors of size embedding_dim: ``emb(indices)`` gives
    the rows at the indices, of shape ``(*indices.shape, embedding_dim)``, as
    ``torch.nn.Embedding``.

    The weight is drawn from N(0, 1) by the Philox generator, so one seed gives the
    same table on every device; the row padding_idx is zeros and gets no gradient.

    Parameters
    ----------
    num_embeddings : int
        The number of rows (the vocabulary's size).
    embedding_dim : int
        The size of each vector.
    padding_idx : int, optional
        A row kept at zero by training (negative: from the end).
    max_norm : float, optional
        Each row looked up whose norm exceeds it is rescaled to it in place, before
        the lookup (PyTorch's renormalisation).
    norm_type : float, optional
        The p of max_norm's p-norm (default 2).
    scale_grad_by_freq : bool, optional
        Divide each row's gradient by how often its index occurs in the input
        (default False).
    sparse : bool, optional
        Only False (not implemented: the gradient is dense).
    _weight : Tensor, optional
        The weight to use (from_pretrained's), not drawn.
    _freeze : bool, optional
        With _weight: keep it out of training.
    device : str or pydevtensor.device, optional
        Where the weight lives.
    dtype : pydevtensor.dtype, optional
        Its dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError, ValueError
        When a size is not a non-negative int or padding_idx is out of range; at
        forward, when the indices are not integers or one is outside [0,
        num_embeddings) (an IndexError naming it, the size and the device).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> emb = nn.Embedding(10, 3, padding_idx=0)
    >>> emb
    Embedding(10, 3, padding_idx=0)
    >>> emb(pydevtensor.tensor([[0, 4], [9, 9]])).shape
    pydevtensor.Size([2, 2, 3])
    >>> emb.weight[0]
    tensor([0., 0., 0.], grad_fn=<SelectBackward0>)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        num_embeddings = _size(num_embeddings, "Embedding", "num_embeddings", 0)
        embedding_dim = _size(embedding_dim, "Embedding", "embedding_dim", 0)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            padding_idx = FN._padding_idx(padding_idx, num_embeddings, "Embedding")
        self.padding_idx = padding_idx
        max_norm, norm_type = FN._embedding_options(max_norm, norm_type, scale_grad_by_freq,
                                                    sparse, "Embedding")
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                _C.empty(num_embeddings, embedding_dim, device=device,
                         dtype=_C._get_default_dtype() if dtype is None else dtype),
                requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_given_weight(_weight, num_embeddings, embedding_dim,
                                                  "Embedding"), requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An Embedding whose weight is embeddings (the same storage, as PyTorch's),
        frozen (requires_grad False) unless freeze is False; the padding row is kept as
        given.

        Parameters
        ----------
        embeddings : Tensor
            ``(num_embeddings, embedding_dim)``, floating point; its device and dtype
            are the layer's.
        freeze : bool, optional
            Keep the weight out of training (default True).
        padding_idx : int, optional
            A row that gets no gradient.
        max_norm : float, optional
            Renormalise the rows looked up to at most this norm.
        norm_type : float, optional
            The p of max_norm's p-norm (default 2).
        scale_grad_by_freq : bool, optional
            Divide each row's gradient by its index's count in the input.
        sparse : bool, optional
            Only False (not implemented).

        Returns
        -------
        Embedding

        Raises
        ------
        TypeError
            When embeddings is not a Tensor.
        ValueError
            When embeddings is not 2-d.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> w = pydevtensor.tensor([[1., 2.], [3., 4.]])
        >>> emb = nn.Embedding.from_pretrained(w)
        >>> emb, emb.weight.requires_grad
        (Embedding(2, 2), False)
        >>> emb(pydevtensor.tensor([1]))
        tensor([[3., 4.]])
        """
        rows, cols = _pretrained_shape(embeddings, "Embedding.from_pretrained")
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input: Tensor) -> Tensor:
        return FN.embedding(input, self.weight, self.padding_idx, self.max_norm,
                            self.norm_type, self.scale_grad_by_freq)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text + _norm_options(self)
