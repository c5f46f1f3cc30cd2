"""F.multi_head_attention_forward: MultiheadAttention's computation (nn/attention.py)
with the weights passed in, under PyTorch's functional signature."""
from .. import _C

_Invalid = _C.InvalidArgumentError


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                       in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                       out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
                       need_weights=True, attn_mask=None, use_separate_proj_weight=False,
                       q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
                       static_k=None, static_v=None, average_attn_weights=True,
                       is_causal=False):
    """PyTorch's ``F.multi_head_attention_forward``: MultiheadAttention's computation
    with the weights given (sequence first, (L, N, E), or unbatched (L, E)).

    Parameters
    ----------
    query, key, value : Tensor
        (L, N, E), (S, N, kdim), (S, N, vdim), or without N.
    embed_dim_to_check, num_heads : int
        E, and the heads it is split into.
    in_proj_weight, in_proj_bias : Tensor or None
        (3E, E) and (3E,): the query, key and value projections stacked.
    bias_k, bias_v : Tensor or None
        (1, 1, E): a key and a value added to the sequence.
    add_zero_attn : bool
        Adds a zero key and value.
    dropout_p : float
        Dropout on the attention weights when training.
    out_proj_weight, out_proj_bias : Tensor
        (E, E) and (E,) or None.
    training, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal
        As MultiheadAttention.forward's.
    use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight
        Separate projections (kdim or vdim other than E).
    static_k, static_v : Tensor or None
        (N num_heads, S, E / num_heads): keys and values already projected and split
        into heads, used instead of key's and value's projections (key and value are
        still checked and projected, as PyTorch's); not with bias_k and bias_v.

    Returns
    -------
    tuple
        (output (L, N, E), weights or None).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> E, x = 4, pydevtensor.ones(3, 2, 4)
    >>> w, b = pydevtensor.eye(E).repeat(3, 1), pydevtensor.zeros(3 * E)
    >>> out, weights = F.multi_head_attention_forward(
    ...     x, x, x, E, 2, w, b, None, None, False, 0.0, pydevtensor.eye(E), None)
    >>> tuple(out.shape), tuple(weights.shape)
    ((3, 2, 4), (2, 3, 3))
    """
    from types import SimpleNamespace
    where = "multi_head_attention_forward()"
    for name, v in (("num_heads", num_heads), ("embed_dim_to_check", embed_dim_to_check)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise TypeError(f"{where}: {name} must be a positive int, got {v!r}")
    heads, embed = num_heads, embed_dim_to_check
    if embed % heads:
        raise _Invalid(f"{where}: embed_dim {embed} not divisible by num_heads {heads}")
    separate = bool(use_separate_proj_weight)
    if separate and (q_proj_weight is None or k_proj_weight is None or v_proj_weight is None):
        raise _Invalid(f"{where}: use_separate_proj_weight=True needs q_proj_weight, "
                       f"k_proj_weight and v_proj_weight")
    if not separate and in_proj_weight is None:
        raise _Invalid(f"{where}: in_proj_weight is None (pass use_separate_proj_weight=True "
                       f"with q_proj_weight, k_proj_weight and v_proj_weight)")
    kdim = key.shape[-1] if separate else embed
    vdim = value.shape[-1] if separate else embed
    m = SimpleNamespace(
        num_heads=heads, head_dim=embed // heads, embed_dim=embed, kdim=kdim, vdim=vdim,
        _qkv_same_embed_dim=not separate, in_proj_weight=in_proj_weight,
        in_proj_bias=in_proj_bias, q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight,
        v_proj_weight=v_proj_weight, bias_k=bias_k, bias_v=bias_v,
        add_zero_attn=bool(add_zero_attn), dropout=float(dropout_p), training=bool(training),
        out_proj=SimpleNamespace(weight=out_proj_weight, bias=out_proj_bias),
        static_k=static_k, static_v=static_v)
    from .attention import multi_head_attention_forward as module_forward  # late: a cycle
    return module_forward(m, query, key, value, key_padding_mask, need_weights, attn_mask,
                          average_attn_weights, is_causal)
