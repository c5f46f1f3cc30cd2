"""The Transformer of D2L chapter 11.7 and PyTorch: TransformerEncoderLayer,
TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and Transformer, with
PyTorch's arguments, submodule names (so its state_dict keys, and a PyTorch
state_dict loads), reprs and computation (post-norm by default, pre-norm with
norm_first).  Attention is nn.MultiheadAttention (attention.py) without its weights,
so a query whose keys are all masked contributes zeros there, as PyTorch's SDPA.

PyTorch's evaluation-mode fast path (``enable_nested_tensor``, the fused encoder layer)
is not reproduced: its argument is accepted and ignored, and the output is the
ordinary computation's, which PyTorch's equals except at padded positions (where its
nested tensors give zeros).  ``is_causal=None`` does not look at the mask's values
(PyTorch compares the mask with a causal one to pick a kernel; the result is the same
either way), so nothing is read back from a GPU.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable

from .. import _C
from . import functional as F
from . import init
from .attention import MultiheadAttention
from .layers import Dropout, Linear, ModuleList
from .module import Module
from .normalization import LayerNorm

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_Invalid = _C.InvalidArgumentError


def _activation(activation: str | Callable, where: str) -> Callable:
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"{where}: activation should be relu/gelu, not {activation}")
    if not callable(activation):
        raise TypeError(f"{where}: activation must be 'relu', 'gelu' or a callable, got "
                        f"{type(activation).__name__}")
    return activation


def _clones(layer: Module, n: int, where: str) -> ModuleList:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{where}: num_layers must be an int >= 0, got {n!r}")
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class _Layer(Module):
    """What the encoder and decoder layers share: the constructor (PyTorch's signature),
    the feed-forward block, the attention blocks (without weights), and the checks of
    their input.  _blocks: 2 for the encoder layer, 3 for the decoder layer."""

    _blocks = 2

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self._build(self._blocks, d_model, nhead, dim_feedforward, dropout, activation,
                    layer_norm_eps, batch_first, norm_first, bias, device, dtype,
                    type(self).__name__)

    def _build(self, blocks: int, d_model, nhead, dim_feedforward, dropout, activation,
               layer_norm_eps, batch_first, norm_first, bias, device, dtype, where) -> None:
        """The submodules in PyTorch's order (its repr and state_dict keys): the
        attention(s), the feed-forward network, then one norm and one dropout per block
        (2 in the encoder layer, 3 in the decoder layer), then the activation."""
        act = _activation(activation, where)
        kw = {"device": device, "dtype": dtype}
        for name in ("self_attn", "multihead_attn")[:blocks - 1]:
            setattr(self, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                   batch_first=batch_first, **kw))
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        for k in range(1, blocks + 1):
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for k in range(1, blocks + 1):
            setattr(self, f"dropout{k}", Dropout(dropout))
        self.activation = act

    def _ff_block(self, x: Tensor, drop: Module) -> Tensor:
        return drop(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    @staticmethod
    def _attend(attn: MultiheadAttention, x: Tensor, mem: Tensor, mask: Tensor | None,
                padding: Tensor | None, is_causal: bool, drop: Module) -> Tensor:
        out = attn(x, mem, mem, attn_mask=mask, key_padding_mask=padding, need_weights=False,
                   is_causal=bool(is_causal))[0]
        return drop(out)

    def _check_input(self, name: str, x: Any, where: str) -> None:
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(x).__name__}")
        d_model = self.self_attn.embed_dim
        if x.ndim not in (2, 3) or x.shape[-1] != d_model:
            raise _Invalid(f"{where}: expected {name} of shape (L, N, {d_model}), (N, L, "
                           f"{d_model}) with batch_first, or unbatched (L, {d_model}), got "
                           f"{tuple(x.shape)} (on {x.device})")


class TransformerEncoderLayer(_Layer):
    """Self-attention and a feed-forward network, each with a residual connection and
    layer normalisation, as ``torch.nn.TransformerEncoderLayer``::

        x = norm1(x + dropout1(self_attn(x)));  x = norm2(x + dropout2(ff(x)))
        (norm_first: x = x + dropout1(self_attn(norm1(x))); x = x + dropout2(ff(norm2(x))))
        ff(x) = linear2(dropout(activation(linear1(x))))

    Parameters
    ----------
    d_model : int
        The feature size of the input and output.
    nhead : int
        The attention's number of heads (a divisor of d_model).
    dim_feedforward : int, optional
        The feed-forward network's hidden size (default 2048).
    dropout : float, optional
        Dropout probability everywhere (default 0.1).
    activation : str or callable, optional
        "relu" (default), "gelu", or a callable (a Module becomes a submodule).
    layer_norm_eps : float, optional
        The layer norms' eps (default 1e-5).
    batch_first : bool, optional
        (N, L, E) instead of (L, N, E) (default False).
    norm_first : bool, optional
        Normalise before each block instead of after (default False).
    bias : bool, optional
        Biases in the linear layers and layer norms (default True).
    device, dtype : optional
        Where the parameters live, and their dtype.

    Raises
    ------
    RuntimeError
        For an activation string other than "relu" and "gelu".

    Notes
    -----
    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``: masks
    as nn.MultiheadAttention's (bool True, or -inf: not attended).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> layer(pydevtensor.ones(5, 3, 8)).shape
    pydevtensor.Size([5, 3, 8])
    >>> list(layer.state_dict())[:2]
    ['self_attn.in_proj_weight', 'self_attn.in_proj_bias']
    """

    _blocks = 2

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        self._check_input("src", src, "TransformerEncoderLayer.forward()")
        x = src
        if self.norm_first:
            x = x + self._attend(self.self_attn, *([self.norm1(x)] * 2), src_mask,
                                 src_key_padding_mask, is_causal, self.dropout1)
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._attend(self.self_attn, x, x, src_mask, src_key_padding_mask,
                                        is_causal, self.dropout1))
        return self.norm2(x + self._ff_block(x, self.dropout2))


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's output (memory) and a feed-forward
    network, each with a residual connection and layer normalisation, as
    ``torch.nn.TransformerDecoderLayer``::

        x = norm1(x + dropout1(self_attn(x)))
        x = norm2(x + dropout2(multihead_attn(x, memory)))
        x = norm3(x + dropout3(ff(x)))

    (with norm_first each norm is applied to the block's input instead).

    Parameters
    ----------
    d_model, nhead, dim_feedforward, dropout, activation
        As TransformerEncoderLayer's.
    layer_norm_eps, batch_first, norm_first, bias, device, dtype
        As TransformerEncoderLayer's.

    Raises
    ------
    RuntimeError
        For an activation string other than "relu" and "gelu".

    Notes
    -----
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> mask = nn.Transformer.generate_square_subsequent_mask(4)
    >>> layer(pydevtensor.ones(4, 3, 8), pydevtensor.ones(6, 3, 8), tgt_mask=mask).shape
    pydevtensor.Size([4, 3, 8])
    """

    _blocks = 3

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        where = "TransformerDecoderLayer.forward()"
        self._check_input("tgt", tgt, where)
        self._check_input("memory", memory, where)
        x = tgt
        if self.norm_first:
            x = x + self._attend(self.self_attn, *([self.norm1(x)] * 2), tgt_mask,
                                 tgt_key_padding_mask, tgt_is_causal, self.dropout1)
            x = x + self._attend(self.multihead_attn, self.norm2(x), memory, memory_mask,
                                 memory_key_padding_mask, memory_is_causal, self.dropout2)
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._attend(self.self_attn, x, x, tgt_mask, tgt_key_padding_mask,
                                        tgt_is_causal, self.dropout1))
        x = self.norm2(x + self._attend(self.multihead_attn, x, memory, memory_mask,
                                        memory_key_padding_mask, memory_is_causal,
                                        self.dropout2))
        return self.norm3(x + self._ff_block(x, self.dropout3))


class TransformerEncoder(Module):
    """num_layers copies of an encoder layer, then an optional norm, as
    ``torch.nn.TransformerEncoder`` (the copies are deep: each has its own parameters,
    starting equal to the given layer's).

    Parameters
    ----------
    encoder_layer : TransformerEncoderLayer
        The layer to copy.
    num_layers : int
        How many.
    norm : Module, optional
        Applied to the last layer's output.
    enable_nested_tensor : bool, optional
        Accepted for PyTorch's signature; pydevtensor has no nested tensors.
    mask_check : bool, optional
        Accepted for PyTorch's signature.

    Notes
    -----
    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
    >>> encoder(pydevtensor.ones(3, 5, 8)).shape
    pydevtensor.Size([3, 5, 8])
    >>> list(encoder.state_dict())[0]
    'layers.0.self_attn.in_proj_weight'
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal))
        return out if self.norm is None else self.norm(out)


class TransformerDecoder(Module):
    """num_layers copies of a decoder layer, then an optional norm, as
    ``torch.nn.TransformerDecoder``.

    Parameters
    ----------
    decoder_layer : TransformerDecoderLayer
        The layer to copy.
    num_layers : int
        How many.
    norm : Module, optional
        Applied to the last layer's output.

    Notes
    -----
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), num_layers=2)
    >>> decoder(pydevtensor.ones(4, 3, 8), pydevtensor.ones(6, 3, 8)).shape
    pydevtensor.Size([4, 3, 8])
    """

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return out if self.norm is None else self.norm(out)


class Transformer(Module):
    """An encoder and a decoder (Vaswani et al.), as ``torch.nn.Transformer``: its
    encoder is a TransformerEncoder of num_encoder_layers layers and a final LayerNorm,
    its decoder a TransformerDecoder likewise; every parameter of more than one
    dimension is drawn again by Xavier's uniform rule (PyTorch's initialisation).

    Parameters
    ----------
    d_model : int, optional
        The feature size (default 512).
    nhead : int, optional
        Attention heads (default 8).
    num_encoder_layers, num_decoder_layers : int, optional
        Default 6 each.
    dim_feedforward : int, optional
        Default 2048.
    dropout : float, optional
        Default 0.1.
    activation : str or callable, optional
        "relu" (default), "gelu" or a callable.
    custom_encoder, custom_decoder : Module, optional
        Used instead of the built ones.
    layer_norm_eps : float, optional
        Default 1e-5.
    batch_first, norm_first, bias : bool, optional
        As the layers'.
    device, dtype : optional
        Where the parameters live, and their dtype.

    Notes
    -----
    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)`` returns the
    decoder's output, of tgt's shape.

    Raises
    ------
    RuntimeError
        In forward, when src and tgt differ in batch size or their feature size is not
        d_model.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
    ...                        num_decoder_layers=1, dim_feedforward=16)
    >>> src, tgt = pydevtensor.ones(6, 2, 8), pydevtensor.ones(4, 2, 8)
    >>> mask = model.generate_square_subsequent_mask(4)
    >>> model(src, tgt, tgt_mask=mask).shape
    pydevtensor.Size([4, 2, 8])
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, **kw), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, **kw), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        from ..autograd import no_grad
        with no_grad():
            for p in self.parameters():
                if p.ndim > 1:
                    init.xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        where = "Transformer.forward()"
        for name, t in (("src", src), ("tgt", tgt)):
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
        b = 0 if self.batch_first else 1
        if src.ndim == 3 and (tgt.ndim != 3 or src.shape[b] != tgt.shape[b]):
            raise RuntimeError(f"{where}: the batch number of src and tgt must be equal, got "
                               f"shapes {tuple(src.shape)} and {tuple(tgt.shape)} "
                               f"(batch_first={self.batch_first}, on {src.device})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(f"{where}: the feature number of src and tgt must be equal to "
                               f"d_model={self.d_model}, got shapes {tuple(src.shape)} and "
                               f"{tuple(tgt.shape)} (on {src.device})")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: str | device | None = None,
                                        dtype: dtype | None = None) -> Tensor:
        """The causal mask for a sequence of sz: a float (sz, sz) tensor with -inf above
        the diagonal (position i may not attend to j > i) and 0 elsewhere.

        Parameters
        ----------
        sz : int
            The sequence length.
        device : str or pydevtensor.device, optional
            Where to make it (default: the default device).
        dtype : pydevtensor.dtype, optional
            Default float32.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Transformer.generate_square_subsequent_mask(3)
        tensor([[0., -inf, -inf],
                [0., 0., -inf],
                [0., 0., 0.]])
        """
        if isinstance(sz, bool) or not isinstance(sz, int) or sz < 0:
            raise ValueError(f"generate_square_subsequent_mask(): sz must be an int >= 0, "
                             f"got {sz!r}")
        dtype = _C._get_default_dtype() if dtype is None else dtype
        return _C.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)
