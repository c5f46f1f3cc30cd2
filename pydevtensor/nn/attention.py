"""nn.MultiheadAttention: PyTorch's multi-head attention (D2L 11.5, and the block of the
Transformer layers in transformer.py), with PyTorch's parameter names, shapes,
initialisation and state_dict keys, so that a PyTorch state_dict loads and gives the
same outputs.

The projections are F.linear (one GEMM with the bias folded in); the attention is
F.scaled_dot_product_attention when the weights are not asked for, else the explicit
``softmax(baddbmm(mask, q, k^T))`` that PyTorch's need_weights path computes, so a query
whose keys are all masked gets NaN there (as PyTorch's) and zeros without the weights
(as PyTorch's SDPA).  Masks follow PyTorch's MultiheadAttention: in a bool
``attn_mask`` or ``key_padding_mask`` True marks a position that may NOT be attended
(the opposite of SDPA's bool mask); a float one is added to the scores.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import size as _size
from ..amp import _state as _amp
from .._ops_join import cat
from . import functional as F
from . import init
from ._functional_attention import scaled_dot_product_attention
from .._sdp_backends import SDPBackend, sdpa_kernel  # noqa: F401  (torch.nn.attention's)
from .layers import Linear
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_Invalid = _C.InvalidArgumentError


class ShapeAssertion(_C.InvalidArgumentError, AssertionError):
    """A bad shape or argument where PyTorch's MultiheadAttention asserts: an
    AssertionError there, here also a ValueError and a RuntimeError
    (InvalidArgumentError), so either ``except`` catches it."""


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear of MultiheadAttention's out_proj, under PyTorch's class name (its repr
    and state_dict are a Linear's)."""


def _positive(name: str, value: Any) -> int:
    return _size(value, "MultiheadAttention", name)  # a NumPy integer too, as an int


def canonical_mask(mask: Tensor | None, name: str, like: Tensor, where: str) -> Tensor | None:
    """A bool mask (True: masked out) as a float one of like's dtype (-inf where True);
    a float mask as it is; anything else refused."""
    if mask is None:
        return None
    if not isinstance(mask, _C.Tensor):
        raise TypeError(f"{where}: {name} must be a Tensor or None, got {type(mask).__name__}")
    if mask.device != like.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device: {name} is "
                             f"on {mask.device} but the query is on {like.device}; move it with "
                             f".to({str(like.device)!r})")
    if mask.dtype == _C.bool:
        zero = _C.zeros(tuple(mask.shape), dtype=like.dtype, device=like.device)
        return zero.masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise ShapeAssertion(f"{where}: only bool and floating types of {name} are supported, "
                             f"got {mask.dtype} (shape {tuple(mask.shape)}, on {mask.device})")
    return mask if mask.dtype == like.dtype else mask.to(like.dtype)


def _pad_column(mask: Tensor | None) -> Tensor | None:
    """mask with a column of zeros (nothing masked) added at the end of its last dim."""
    return None if mask is None else F.pad(mask, (0, 1))


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads, where):
    """Whether the call is batched; PyTorch's rules for the dims of each argument."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    for name, t in (("key", key), ("value", value)):
        if t.device != query.device:
            raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {query.device} (query) and "
                                 f"{t.device} ({name})")
    dims = (query.ndim, key.ndim, value.ndim)
    if query.ndim not in (2, 3):
        raise ShapeAssertion(f"{where}: query should be unbatched 2D or batched 3D tensor but "
                             f"received {query.ndim}-D query tensor of shape "
                             f"{tuple(query.shape)} (on {query.device})")
    batched = query.ndim == 3
    if dims != (query.ndim,) * 3:
        raise ShapeAssertion(f"{where}: for {'batched (3-D)' if batched else 'unbatched (2-D)'}"
                             f" query, expected key and value to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors (shapes "
                             f"{tuple(key.shape)} and {tuple(value.shape)}, on {query.device})")
    if key_padding_mask is not None and isinstance(key_padding_mask, _C.Tensor) and \
            key_padding_mask.ndim != (2 if batched else 1):
        raise ShapeAssertion(f"{where}: for {'batched (3-D)' if batched else 'unbatched (2-D)'}"
                             f" query, expected key_padding_mask to be None or "
                             f"{2 if batched else 1}-D but found {key_padding_mask.ndim}-D "
                             f"tensor of shape {tuple(key_padding_mask.shape)} instead (on "
                             f"{query.device})")
    if attn_mask is not None and isinstance(attn_mask, _C.Tensor):
        if attn_mask.ndim not in (2, 3):
            raise ShapeAssertion(f"{where}: expected attn_mask to be None, 2-D or 3-D but found "
                                 f"{attn_mask.ndim}-D tensor of shape "
                                 f"{tuple(attn_mask.shape)} instead (on {query.device})")
        if not batched and attn_mask.ndim == 3:
            want = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != want:
                raise ShapeAssertion(f"{where}: expected attn_mask of shape {want} (num_heads, "
                                     f"L, S) for unbatched query, but got "
                                     f"{tuple(attn_mask.shape)} (on {query.device})")
    return batched


def multi_head_attention_forward(m: MultiheadAttention, query: Tensor, key: Tensor,
                                 value: Tensor, key_padding_mask: Tensor | None,
                                 need_weights: bool, attn_mask: Tensor | None,
                                 average_attn_weights: bool,
                                 is_causal: bool) -> tuple[Tensor, Tensor | None]:
    """The computation of MultiheadAttention.forward for m's parameters; inputs
    (L, N, E) (sequence first) or unbatched (L, E)."""
    where = "MultiheadAttention.forward()"
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, m.num_heads, where)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed = query.shape
    heads, head_dim = m.num_heads, m.head_dim
    own = m.out_proj.weight
    if query.device != own.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device: the "
                             f"query is on {query.device} but the module's parameters are "
                             f"on {own.device}; move one with .to()")
    if query.dtype != own.dtype and not (_amp._eligible(query) and _amp._eligible(own)):
        # under autocast PyTorch's products cast them (its check is its matmul's)
        raise _Invalid(f"{where}: the query is {query.dtype} but the module's parameters are "
                       f"{own.dtype}; convert one with .to() (on {query.device})")
    if embed != m.embed_dim:
        raise ShapeAssertion(f"{where}: was expecting embedding dimension of {m.embed_dim}, "
                             f"but got {embed} (query of shape {tuple(query.shape)}, on "
                             f"{query.device})")
    if m._qkv_same_embed_dim and tuple(key.shape) != tuple(value.shape):
        raise ShapeAssertion(f"{where}: key shape {tuple(key.shape)} does not match value "
                             f"shape {tuple(value.shape)} (on {query.device})")
    if tuple(key.shape[:2]) != tuple(value.shape[:2]) or key.shape[1] != batch:
        raise ShapeAssertion(f"{where}: key of shape {tuple(key.shape)} and value of shape "
                             f"{tuple(value.shape)} must have the query's batch size {batch} "
                             f"and one sequence length (on {query.device})")
    for name, t, size in (("key", key, m.kdim), ("value", value, m.vdim)):
        if t.shape[-1] != size:
            raise ShapeAssertion(f"{where}: expected {name} of size {size} ({name[0]}dim) in "
                                 f"its last dim, got shape {tuple(t.shape)} (on {t.device})")
    if is_causal and attn_mask is None:
        raise RuntimeError(f"{where}: Need attn_mask if specifying the is_causal hint. You may "
                           f"use the Transformer module method `generate_square_subsequent_mask`"
                           f" to create this mask.")
    if isinstance(key_padding_mask, _C.Tensor) and isinstance(attn_mask, _C.Tensor) and \
            (key_padding_mask.dtype == _C.bool) != (attn_mask.dtype == _C.bool):
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead.", UserWarning, stacklevel=3)
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", query, where)
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA's own causal mask (PyTorch: the mask is taken as causal)
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", query, where)
        is_causal = False if key_padding_mask is not None else is_causal
    source = key.shape[0]
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (length, source):
                raise RuntimeError(f"{where}: The shape of the 2D attn_mask is "
                                   f"{tuple(attn_mask.shape)}, but should be {(length, source)} "
                                   f"(on {query.device})")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (batch * heads, length, source):
            raise RuntimeError(f"{where}: The shape of the 3D attn_mask is "
                               f"{tuple(attn_mask.shape)}, but should be "
                               f"{(batch * heads, length, source)} (on {query.device})")

    q, k, v = _in_projection(m, query, key, value)
    statics = getattr(m, "static_k", None), getattr(m, "static_v", None)  # the functional's
    if m.bias_k is not None and statics != (None, None):
        raise ShapeAssertion(f"{where}: bias cannot be added to static key or value "
                             f"(bias_k and bias_v with static_k or static_v)")
    if m.bias_k is not None:
        k = cat([k, m.bias_k.expand(1, batch, embed)])
        v = cat([v, m.bias_v.expand(1, batch, embed)])
        attn_mask, key_padding_mask = _pad_column(attn_mask), _pad_column(key_padding_mask)
    q = q.reshape(length, batch * heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], batch * heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], batch * heads, head_dim).transpose(0, 1)
    k, v = (_static(name, t, given, batch * heads, head_dim, where) for name, t, given in
            (("static_k", k, statics[0]), ("static_v", v, statics[1])))
    if m.add_zero_attn:
        zeros = _C.zeros((batch * heads, 1, head_dim), dtype=q.dtype, device=q.device)
        k, v = cat([k, zeros], dim=1), cat([v, zeros], dim=1)
        attn_mask, key_padding_mask = _pad_column(attn_mask), _pad_column(key_padding_mask)
    source = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, source):
            raise ShapeAssertion(f"{where}: expecting key_padding_mask shape of "
                                 f"{(batch, source)}, but got "
                                 f"{tuple(key_padding_mask.shape)} (on {query.device})")
        padding = key_padding_mask.reshape(batch, 1, 1, source).expand(
            batch, heads, 1, source).reshape(batch * heads, 1, source)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    dropout_p = m.dropout if m.training else 0.0

    if need_weights:
        scaled = q * math.sqrt(1.0 / head_dim)
        kt = k.transpose(-2, -1)
        weights = _C.bmm(scaled, kt) if attn_mask is None else \
            _baddbmm(attn_mask, scaled, kt)
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = _C.bmm(weights, v)  # (N * H, L, head_dim)
        out = out.transpose(0, 1).reshape(length * batch, embed)
        out = F.linear(out, m.out_proj.weight, m.out_proj.bias).reshape(length, batch, embed)
        weights = weights.reshape(batch, heads, length, source)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
            attn_mask.reshape(batch, heads, -1, source)
    q = q.reshape(batch, heads, length, head_dim)
    k = k.reshape(batch, heads, source, head_dim)
    v = v.reshape(batch, heads, source, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(length * batch, embed)
    out = F.linear(out, m.out_proj.weight, m.out_proj.bias).reshape(length, batch, embed)
    return (out if batched else out.squeeze(1)), None


def _static(name, projected, given, rows, head_dim, where):
    """F.multi_head_attention_forward's static_k or static_v (given, (N H, S, head_dim))
    instead of the projected key or value, when given (PyTorch's checks)."""
    if given is None:
        return projected
    if given.ndim != 3 or given.shape[0] != rows or given.shape[2] != head_dim:
        raise ShapeAssertion(f"{where}: expecting {name} of shape ({rows}, S, {head_dim}) "
                             f"(batch * num_heads, S, head_dim), but got "
                             f"{tuple(given.shape)} (on {given.device})")
    return given


def _baddbmm(mask, batch1, batch2):
    from .._ops_matmul import baddbmm
    return baddbmm(mask, batch1, batch2)


def _in_projection(m, query, key, value):
    """q, k, v: the query, key and value through the input projections ((L or S, N, E)).
    Self-attention (query is key is value) makes one GEMM for all three."""
    e = m.embed_dim
    b = m.in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
    if m._qkv_same_embed_dim:
        w = m.in_proj_weight
        if query is key and key is value:
            qkv = F.linear(query, w, b)
            return qkv[..., :e], qkv[..., e:2 * e], qkv[..., 2 * e:]
        wq, wk, wv = w[:e], w[e:2 * e], w[2 * e:]
    else:
        wq, wk, wv = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)


class MultiheadAttention(Module):
    """Attention of queries over keys and values in num_heads heads, each on
    ``embed_dim // num_heads`` features, as ``torch.nn.MultiheadAttention``::

        head_i = softmax(q_i k_i^T / sqrt(head_dim) + mask) v_i,  q_i = query W_q,i + b_q,i, ...
        out = concat(head_1, ..., head_h) W_o^T + b_o

    Parameters
    ----------
    embed_dim : int
        The query's feature size (and the output's); a multiple of num_heads.
    num_heads : int
        The number of heads.
    dropout : float, optional
        Dropout on the attention weights, in training (default 0.0).
    bias : bool, optional
        Biases on the input and output projections (default True).
    add_bias_kv : bool, optional
        Learned bias_k and bias_v of shape (1, 1, embed_dim) appended to the projected
        keys and values as one more position (default False).
    add_zero_attn : bool, optional
        A position of zeros appended to the keys and values (default False).
    kdim, vdim : int, optional
        The key's and value's feature sizes (default embed_dim); when either differs,
        the input projection is three weights q_proj_weight, k_proj_weight and
        v_proj_weight instead of one in_proj_weight of shape (3 * embed_dim, embed_dim).
    batch_first : bool, optional
        Inputs and outputs (N, L, E) instead of (L, N, E) (default False).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias : Parameter
        PyTorch's names and shapes (the unused ones are None); drawn by Xavier's uniform
        rule, the biases zero.
    out_proj : NonDynamicallyQuantizableLinear
        The output projection (a Linear; its bias zero).
    bias_k, bias_v : Parameter or None
        With add_bias_kv, drawn by Xavier's normal rule.

    Raises
    ------
    ValueError
        When embed_dim or num_heads is not positive.
    AssertionError
        When embed_dim is not divisible by num_heads (a ShapeAssertion: also a ValueError).

    Notes
    -----
    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(attn_output, attn_weights)``: the output (L, N, E) ((N, L, E) with batch_first, (L,
    E) for unbatched (L, E) query), and the weights (N, L, S) averaged over the heads, or
    (N, num_heads, L, S), or None with need_weights=False.  ``key_padding_mask`` (N, S)
    and ``attn_mask`` (L, S) or (N * num_heads, L, S) are bool (True: not attended) or
    float (added).  ``is_causal`` says that attn_mask is the causal mask (it must be
    given, as in PyTorch).  PyTorch's fast path of evaluation mode, which gives zeros
    at padded positions with nested tensors, is not reproduced: the output is the
    ordinary computation's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = pydevtensor.ones(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (pydevtensor.Size([3, 5, 8]), pydevtensor.Size([3, 5, 5]))
    >>> sorted(mha.state_dict())
    ['in_proj_bias', 'in_proj_weight', 'out_proj.bias', 'out_proj.weight']
    >>> mha
    MultiheadAttention(
      (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
    )
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        embed_dim = _positive("embed_dim", embed_dim)
        num_heads = _positive("num_heads", num_heads)
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        dropout = F._dropout_p(dropout)  # a NumPy scalar as a Python number
        self.embed_dim = embed_dim
        self.kdim = _positive("kdim", kdim) if kdim is not None else embed_dim
        self.vdim = _positive("vdim", vdim) if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ShapeAssertion(f"MultiheadAttention: embed_dim must be divisible by "
                                 f"num_heads, got embed_dim={embed_dim} and "
                                 f"num_heads={num_heads}")
        kw = {"device": device, "dtype": _C._get_default_dtype() if dtype is None else dtype}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_C.empty((3 * embed_dim, embed_dim), **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(_C.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_C.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_C.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty((3 * embed_dim,), **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_C.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's initialisation: Xavier uniform for the input projection, zero biases,
        Xavier normal for bias_k and bias_v (out_proj's weight keeps Linear's draw)."""
        with _C_no_grad():
            if self._qkv_same_embed_dim:
                init.xavier_uniform_(self.in_proj_weight)
            else:
                for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                    init.xavier_uniform_(w)
            if self.in_proj_bias is not None:
                init.zeros_(self.in_proj_bias)
                init.zeros_(self.out_proj.bias)
            if self.bias_k is not None:
                init.xavier_normal_(self.bias_k)
                init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        batched = isinstance(query, _C.Tensor) and query.ndim == 3
        if self.batch_first and batched:
            # keep "key is value" (and "query is key") so self-attention stays one GEMM
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (t.transpose(1, 0) if isinstance(t, _C.Tensor) else t
                                     for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            self, query, key, value, key_padding_mask, need_weights, attn_mask,
            average_attn_weights, is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """One mask of shape (N, num_heads, L, L) from an attention mask and a key
        padding mask, as PyTorch's (the masks of its fused self-attention).

        Parameters
        ----------
        attn_mask : Tensor or None
            (L, L), or (N num_heads, L, L).
        key_padding_mask : Tensor or None
            (N, L).
        query : Tensor
            (N, L, E): gives N and L.

        Returns
        -------
        tuple
            (mask, mask_type): the key padding mask itself and 1 when only it is given;
            the attention mask as (N, num_heads, L, L), plus the padding mask broadcast
            over the heads and the queries when both are given (for bool masks, True
            where either is), and 2, when attn_mask is given; (None, None) when neither.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> mha = nn.MultiheadAttention(4, 2, batch_first=True)
        >>> causal = nn.Transformer.generate_square_subsequent_mask(3)
        >>> mask, kind = mha.merge_masks(causal, None, pydevtensor.zeros(5, 3, 4))
        >>> tuple(mask.shape), kind
        ((5, 2, 3, 3), 2)
        """
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch, length = query.shape[0], query.shape[1]
            mask_type = 2
            if attn_mask.ndim == 3:
                merged = attn_mask.view(batch, -1, length, length)
            else:
                merged = attn_mask.view(1, 1, length, length).expand(
                    batch, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(batch, 1, 1, length).expand(
                    -1, self.num_heads, -1, -1)
        return merged, mask_type


def _C_no_grad():
    from ..autograd import no_grad
    return no_grad()
