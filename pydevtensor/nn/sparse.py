"""nn.Embedding: a lookup table of learned vectors (D2L's word2vec, RNN and
transformer chapters), with PyTorch's initialisation and padding_idx."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from . import _functional_norm as FN
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class Embedding(Module):
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
    device : str or pydevtensor.device, optional
        Where the weight lives.
    dtype : pydevtensor.dtype, optional
        Its dtype (default float32).

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
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        for name, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Embedding: {name} must be an int, got {type(v).__name__}")
            if v < 0:
                raise ValueError(f"Embedding: {name} must be >= 0, got {v}")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            padding_idx = FN._padding_idx(padding_idx, num_embeddings, "Embedding")
        self.padding_idx = padding_idx
        w = _C.empty(num_embeddings, embedding_dim, device=device,
                     dtype=_C.float32 if dtype is None else dtype)
        w.normal_()
        if padding_idx is not None:
            w[padding_idx].fill_(0.0)
        self.weight = Parameter(w)

    def forward(self, input: Tensor) -> Tensor:
        return FN.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"
