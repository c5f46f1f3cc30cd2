"""nn.functional.scaled_dot_product_attention: PyTorch's attention of D2L chapter 11,
``softmax(Q K^T * scale + mask) V``, written with the package's ops (matmul, softmax,
where, dropout), so it runs and differentiates on every device.

Masks follow PyTorch's SDPA: a bool mask marks with True the keys that take part, a
float mask is added to the scores, ``is_causal`` keeps key j for query i when j <= i
(the top-left aligned lower triangle, also when L != S).  A query whose keys are all
masked (every score -inf) gets an output of zeros and a zero gradient, as
``torch.nn.functional.scaled_dot_product_attention`` gives in PyTorch 2.5 and later
(its "safe softmax"), not the NaN of a plain softmax; nn.MultiheadAttention's
need_weights=True path keeps PyTorch's NaN there (nn/attention.py).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import _C
from .._args import flag
from .._ops_index import _broadcast_pair, where
from .._ops_repeat import repeat_interleave
from .._ops_stats import softmax
from .. import _sdp_backends
from ._functional_dropout import _dropout_p

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError


def _shape(t):
    return tuple(t.shape)


def broadcast_shapes(a, b, what, device):
    """NumPy's broadcast of shapes a and b, or an InvalidArgumentError naming what."""
    return _broadcast_pair(a, b, lambda a, b: _Invalid(
        f"scaled_dot_product_attention(): {what}: shapes {a} and {b} do not broadcast (on "
        f"{device})"))


def _check(query, key, value, attn_mask, is_causal, enable_gqa):
    where = "scaled_dot_product_attention()"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    named = [("query", query), ("key", key), ("value", value)]
    if attn_mask is not None:
        if not isinstance(attn_mask, _C.Tensor):
            raise TypeError(f"{where}: attn_mask must be a Tensor or None, got "
                            f"{type(attn_mask).__name__}")
        named.append(("attn_mask", attn_mask))
    if any(t.device != query.device for _, t in named):
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but found "
                             f"at least two devices: " +
                             ", ".join(f"{name} on {t.device}" for name, t in named))
    device = query.device
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise _Invalid(f"{where}: Expected query, key, and value to all be at least 2 "
                       f"dimensional, but got query.dim: {query.ndim} key.dim: {key.ndim} and "
                       f"value.dim: {value.ndim} instead (on {device})")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"{where}: Expected query, key, and value to have the same dtype, "
                           f"but got query.dtype: {query.dtype} key.dtype: {key.dtype} and "
                           f"value.dtype: {value.dtype} instead (on {device})")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"{where}: expected floating point query, key and value, got "
                           f"{query.dtype} (on {device})")
    if query.shape[-1] != key.shape[-1]:
        raise _Invalid(f"{where}: query and key must have the same embedding size (last dim), "
                       f"got shapes {_shape(query)} and {_shape(key)} (on {device})")
    if key.shape[-2] != value.shape[-2]:
        raise _Invalid(f"{where}: key and value must have the same sequence length (dim -2), "
                       f"got shapes {_shape(key)} and {_shape(value)} (on {device})")
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError(f"{where}: Explicit attn_mask should not be set when "
                               f"is_causal=True")
        if attn_mask.ndim < 2:  # PyTorch reads its dim -2, and fails
            raise IndexError(f"{where}: attn_mask must have at least 2 dims, (L, S) or "
                             f"broadcastable to it, got shape {_shape(attn_mask)} (on "
                             f"{device}); for one mask over the keys, pass "
                             f"attn_mask.unsqueeze(0)")
        if attn_mask.dtype not in (_C.bool, _C.float32, query.dtype):  # PyTorch's rule
            raise RuntimeError(f"{where}: Expected attn_mask dtype to be bool or float or to "
                               f"match query dtype, but got attn_mask.dtype: {attn_mask.dtype} and "
                               f"query.dtype: {query.dtype} instead (on {device})")
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk = query.shape[-3], key.shape[-3]
        if hk == 0 or hq % hk:
            raise _Invalid(f"{where}: Number of heads in key and value must divide the number "
                           f"of heads in query: {hk} and {hq} (query {_shape(query)}, key "
                           f"{_shape(key)}, on {device})")
        key = repeat_interleave(key, hq // hk, -3)
        value = repeat_interleave(value, hq // hk, -3)
    batch = broadcast_shapes(_shape(query)[:-2], _shape(key)[:-2], "the batch dims of query "
                             "and key", device)
    broadcast_shapes(batch, _shape(value)[:-2], "the batch dims of query and key, and of "
                     "value", device)
    scores = batch + (query.shape[-2], key.shape[-2])
    if attn_mask is not None:
        # PyTorch sees the scores of 3-d query, key and value as (1, N, L, S): a 4-d mask
        # whose first dim is 1 fits them
        room = (1,) + scores if query.ndim == key.ndim == value.ndim == 3 else scores
        full = broadcast_shapes(room, _shape(attn_mask), f"attn_mask of shape "
                                f"{_shape(attn_mask)} against the scores", device)
        if full != room:
            raise _Invalid(f"{where}: attn_mask of shape {_shape(attn_mask)} does not broadcast "
                           f"to the attention scores' shape {scores} (batch, L, S) (on "
                           f"{device})")
        if attn_mask.ndim > len(scores):  # its first dim is 1
            attn_mask = attn_mask.squeeze(0)
    return key, value, attn_mask


# Note [attention in half types]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# float16 and bfloat16 query, key and value are attended in float32 and the output
# rounded once, as PyTorch's fused kernels (flash and memory-efficient, CPU and CUDA)
# keep the scores, the softmax and the sums in float32.  Rounded to the half type after
# each op (the scores, their scaling, the weights), the error against the float64
# answer was twice PyTorch's (bfloat16, (2, 4, 16, 32): 0.0096 against 0.0046).  The
# float32 copies cost 2 bytes per element of q, k and v, and the scores twice theirs.


def safe_softmax(scores: Tensor) -> Tensor:
    """softmax along the last dim, with zeros (and a zero gradient) in rows whose
    entries are all -inf."""
    # a row's maximum is -inf exactly when every entry is (a NaN makes it NaN, as it
    # makes all() false): one pass over the scores instead of a comparison and a
    # bool reduction (0.11 ms for (32, 4, 64, 64) float32, against 0.68)
    if scores.shape[-1] == 0:  # no keys: empty weights, and zeros out of their product
        return softmax(scores, -1)
    dead = scores.detach().amax(dim=-1, keepdim=True) == float("-inf")
    zero = _C.zeros((), dtype=scores.dtype, device=scores.device)
    weights = softmax(where(dead, zero, scores), -1)
    return where(dead, zero, weights)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """Attention of queries over keys and values, as
    ``torch.nn.functional.scaled_dot_product_attention``::

        weights = softmax(query @ key.mT * scale + mask)   (last dim)
        out = dropout(weights, dropout_p) @ value

    Parameters
    ----------
    query : Tensor
        ``(..., L, E)``: L queries of size E.
    key : Tensor
        ``(..., S, E)``.
    value : Tensor
        ``(..., S, Ev)``.  The batch dims (``...``) of query, key and value broadcast
        against each other, as matmul's.
    attn_mask : Tensor, optional
        At least 2-d (as PyTorch's, which refuses a 1-d mask), broadcastable to
        ``(..., L, S)`` (with 3-d query, key and value, as PyTorch's, it may be
        ``(1, N, L, S)``): bool (True: the key takes part), or float32 or of query's
        dtype (added to the scores, which are float32 for a float16 or bfloat16 query
        and of query's dtype otherwise; -inf removes a key).
    dropout_p : float, optional
        The probability of dropping an attention weight (the others scaled by
        ``1 / (1 - p)``), drawn from the package's generator on the tensors' device;
        applied whenever it is > 0, as PyTorch's (pass 0.0 in evaluation).
    is_causal : bool, optional
        Query i sees keys 0..i only (with no attn_mask).
    scale : float, optional
        Multiplies the scores; default ``1 / sqrt(E)``.
    enable_gqa : bool, optional
        Grouped-query attention: key and value may have fewer heads (dim -3) than
        query, a divisor of its number; each is then shared by consecutive query heads.

    Returns
    -------
    Tensor
        ``(..., L, Ev)``.  A query whose keys are all masked gets zeros (PyTorch's
        result since 2.5), and a zero gradient; so do all with no keys (S = 0).

    Raises
    ------
    RuntimeError
        For tensors on two devices, unequal dtypes, a mask of another dtype, or a mask
        with is_causal.
    ValueError
        For shapes that do not fit (an InvalidArgumentError, also a RuntimeError), or a
        dropout_p outside [0, 1].
    IndexError
        For a 0-d or 1-d attn_mask (PyTorch's class).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> q = pydevtensor.tensor([[[1.0, 0.0]]])
    >>> k = pydevtensor.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> v = pydevtensor.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> F.scaled_dot_product_attention(q, k, v, scale=0.0)
    tensor([[[2., 3.]]])
    >>> F.scaled_dot_product_attention(q, k, v, attn_mask=pydevtensor.tensor([[True, False]]))
    tensor([[[1., 2.]]])
    """
    _sdp_backends.check("scaled_dot_product_attention()")  # Note [one attention kernel]
    dropout_p = _dropout_p(dropout_p)
    is_causal = flag(is_causal, "scaled_dot_product_attention", "is_causal")
    enable_gqa = flag(enable_gqa, "scaled_dot_product_attention", "enable_gqa")
    key, value, attn_mask = _check(query, key, value, attn_mask, is_causal, enable_gqa)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1]) if query.shape[-1] else 1.0
    half = query.dtype if query.dtype in (_C.float16, _C.bfloat16) else None
    if half is not None:  # Note [attention in half types]
        query, key, value = query.float(), key.float(), value.float()
    scores = _C.matmul(query, key.transpose(-2, -1))
    if scale != 1.0:
        scores = scores * scale
    length, source = query.shape[-2], key.shape[-2]
    masked = False
    if is_causal:
        rows = _C.arange(length, device=query.device).reshape(length, 1)
        attn_mask = rows >= _C.arange(source, device=query.device)
    if attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:  # a float32 mask of a float64 query: added in float64
            scores = scores + attn_mask.to(scores.dtype)
        masked = True
    weights = safe_softmax(scores) if masked else softmax(scores, -1)
    if dropout_p > 0.0:
        from .functional import dropout
        weights = dropout(weights, dropout_p, training=True)
    out = _C.matmul(weights, value)
    return out if half is None else out.to(half)
