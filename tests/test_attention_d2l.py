"""D2L chapter 11 (Attention Mechanisms and Transformers) as written for PyTorch, run
with ``import pydevtensor as torch``: masked_softmax (``X[~mask] = -1e6`` through a
reshaped view, ``repeat_interleave``), AdditiveAttention, DotProductAttention, the
chapter's MultiHeadAttention (transpose_qkv / transpose_output), PositionalEncoding
(``P[:, :, 0::2] = torch.sin(X)``), the Transformer encoder and decoder blocks with
LazyLinear, the ViT's patch embedding and block (nn.MultiheadAttention); on every
device.  The chapter's shape checks and printed examples are asserted, the chapter's
own MultiHeadAttention is checked against nn.MultiheadAttention with the same weights
(float64, 1e-12), and a tiny encoder-decoder Transformer and a tiny ViT are trained a
few steps: their losses must fall.

The classes are copied from the book with d2l.Module / d2l.Encoder replaced by
nn.Module and the plotting left out."""
import math

import numpy as np
import pytest

import pydevtensor as torch
from pydevtensor import nn

# ---- 11.3 Attention scoring functions ----


def masked_softmax(X, valid_lens):
    """Perform softmax operation by masking elements on the last axis."""
    # X: 3D tensor, valid_lens: 1D or 2D tensor
    def _sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32,
                            device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X

    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        # On the last axis, replace masked elements with a very large negative
        # value, whose exponentiation outputs 0
        X = _sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    """Scaled dot product attention."""
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    # Shape of queries: (batch_size, no. of queries, d)
    # Shape of keys: (batch_size, no. of key-value pairs, d)
    # Shape of values: (batch_size, no. of key-value pairs, value dimension)
    # Shape of valid_lens: (batch_size,) or (batch_size, no. of queries)
    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        # Swap the last two dimensions of keys with keys.transpose(1, 2)
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class AdditiveAttention(nn.Module):
    """Additive attention."""
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        # After dimension expansion, shape of queries: (batch_size, no. of
        # queries, 1, num_hiddens) and shape of keys: (batch_size, 1, no. of
        # key-value pairs, num_hiddens). Sum them up with broadcasting
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        # There is only one output of self.w_v, so we remove the last
        # one-dimensional entry from the shape. Shape of scores: (batch_size,
        # no. of queries, no. of key-value pairs)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        # Shape of values: (batch_size, no. of key-value pairs, value
        # dimension)
        return torch.bmm(self.dropout(self.attention_weights), values)


# ---- 11.5 Multi-head attention ----

class MultiHeadAttention(nn.Module):
    """Multi-head attention."""
    def __init__(self, num_hiddens, num_heads, dropout, bias=False, **kwargs):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        # Shape of queries, keys, or values:
        # (batch_size, no. of queries or key-value pairs, num_hiddens)
        # Shape of valid_lens: (batch_size,) or (batch_size, no. of queries)
        # After transposing, shape of output queries, keys, or values:
        # (batch_size * num_heads, no. of queries or key-value pairs,
        # num_hiddens / num_heads)
        queries = self.transpose_qkv(self.W_q(queries))
        keys = self.transpose_qkv(self.W_k(keys))
        values = self.transpose_qkv(self.W_v(values))

        if valid_lens is not None:
            # On axis 0, copy the first item (scalar or vector) for num_heads
            # times, then copy the next item, and so on
            valid_lens = torch.repeat_interleave(
                valid_lens, repeats=self.num_heads, dim=0)

        # Shape of output: (batch_size * num_heads, no. of queries,
        # num_hiddens / num_heads)
        output = self.attention(queries, keys, values, valid_lens)
        # Shape of output_concat: (batch_size, no. of queries, num_hiddens)
        output_concat = self.transpose_output(output)
        return self.W_o(output_concat)

    def transpose_qkv(self, X):
        """Transposition for parallel computation of multiple attention heads."""
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        X = X.permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        """Reverse the operation of transpose_qkv."""
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)


# ---- 11.6 Positional encoding ----

class PositionalEncoding(nn.Module):
    """Positional encoding."""
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        # Create a long enough P
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(
            -1, 1) / torch.pow(10000, torch.arange(
            0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


# ---- 11.7 The Transformer architecture ----

class PositionWiseFFN(nn.Module):
    """The positionwise feed-forward network."""
    def __init__(self, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.LazyLinear(ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.LazyLinear(ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    """The residual connection followed by layer normalization."""
    def __init__(self, norm_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(norm_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


class TransformerEncoderBlock(nn.Module):
    """The Transformer encoder block."""
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout,
                 use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(num_hiddens, num_heads,
                                            dropout, use_bias)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(num_hiddens, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(nn.Module):
    """The Transformer encoder."""
    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens,
                 num_heads, num_blks, dropout, use_bias=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module("block"+str(i), TransformerEncoderBlock(
                num_hiddens, ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X, valid_lens):
        # Since positional encoding values are between -1 and 1, the embedding
        # values are multiplied by the square root of the embedding dimension
        # to rescale before they are summed up
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self.attention_weights = [None] * len(self.blks)
        for i, blk in enumerate(self.blks):
            X = blk(X, valid_lens)
            self.attention_weights[
                i] = blk.attention.attention.attention_weights
        return X


class TransformerDecoderBlock(nn.Module):
    # The i-th block in the Transformer decoder
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, i):
        super().__init__()
        self.i = i
        self.attention1 = MultiHeadAttention(num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.attention2 = MultiHeadAttention(num_hiddens, num_heads, dropout)
        self.addnorm2 = AddNorm(num_hiddens, dropout)
        self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(num_hiddens, dropout)

    def forward(self, X, state):
        enc_outputs, enc_valid_lens = state[0], state[1]
        # During training, all the tokens of any output sequence are processed
        # at the same time, so state[2][self.i] is None as initialized. When
        # decoding any output sequence token by token during prediction,
        # state[2][self.i] contains representations of the decoded output at
        # the i-th block up to the current time step
        if state[2][self.i] is None:
            key_values = X
        else:
            key_values = torch.cat((state[2][self.i], X), dim=1)
        state[2][self.i] = key_values
        if self.training:
            batch_size, num_steps, _ = X.shape
            # Shape of dec_valid_lens: (batch_size, num_steps), where every
            # row is [1, 2, ..., num_steps]
            dec_valid_lens = torch.arange(
                1, num_steps + 1, device=X.device).repeat(batch_size, 1)
        else:
            dec_valid_lens = None
        # Self-attention
        X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
        Y = self.addnorm1(X, X2)
        # Encoder-decoder attention. Shape of enc_outputs:
        # (batch_size, num_steps, num_hiddens)
        Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
        Z = self.addnorm2(Y, Y2)
        return self.addnorm3(Z, self.ffn(Z)), state


class TransformerDecoder(nn.Module):
    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens, num_heads,
                 num_blks, dropout):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.num_blks = num_blks
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module("block"+str(i), TransformerDecoderBlock(
                num_hiddens, ffn_num_hiddens, num_heads, dropout, i))
        self.dense = nn.LazyLinear(vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens):
        return [enc_outputs, enc_valid_lens, [None] * self.num_blks]

    def forward(self, X, state):
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self._attention_weights = [[None] * len(self.blks) for _ in range(2)]
        for i, blk in enumerate(self.blks):
            X, state = blk(X, state)
            # Decoder self-attention weights
            self._attention_weights[0][
                i] = blk.attention1.attention.attention_weights
            # Encoder-decoder attention weights
            self._attention_weights[1][
                i] = blk.attention2.attention.attention_weights
        return self.dense(X), state


# ---- 11.8 Vision Transformers ----

class PatchEmbedding(nn.Module):
    def __init__(self, img_size=96, patch_size=16, num_hiddens=512):
        super().__init__()

        def _make_tuple(x):
            if not isinstance(x, (list, tuple)):
                return (x, x)
            return x
        img_size, patch_size = _make_tuple(img_size), _make_tuple(patch_size)
        self.num_patches = (img_size[0] // patch_size[0]) * (
            img_size[1] // patch_size[1])
        self.conv = nn.LazyConv2d(num_hiddens, kernel_size=patch_size,
                                  stride=patch_size)

    def forward(self, X):
        # Output shape: (batch size, no. of patches, no. of channels)
        return self.conv(X).flatten(2).transpose(1, 2)


class ViTMLP(nn.Module):
    def __init__(self, mlp_num_hiddens, mlp_num_outputs, dropout=0.5):
        super().__init__()
        self.dense1 = nn.LazyLinear(mlp_num_hiddens)
        self.gelu = nn.GELU()
        self.dropout1 = nn.Dropout(dropout)
        self.dense2 = nn.LazyLinear(mlp_num_outputs)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout2(self.dense2(self.dropout1(self.gelu(
            self.dense1(x)))))


class ViTBlock(nn.Module):
    def __init__(self, num_hiddens, norm_shape, mlp_num_hiddens,
                 num_heads, dropout, use_bias=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(norm_shape)
        self.attention = nn.MultiheadAttention(num_hiddens, num_heads, dropout,
                                               bias=use_bias, batch_first=True)
        self.ln2 = nn.LayerNorm(norm_shape)
        self.mlp = ViTMLP(mlp_num_hiddens, num_hiddens, dropout)

    def forward(self, X, valid_lens=None):
        X = X + self.attention(*([self.ln1(X)] * 3), need_weights=False)[0]
        return X + self.mlp(self.ln2(X))


class ViT(nn.Module):
    """Vision Transformer."""
    def __init__(self, img_size, patch_size, num_hiddens, mlp_num_hiddens,
                 num_heads, num_blks, emb_dropout, blk_dropout, lr=0.1,
                 use_bias=False, num_classes=10):
        super().__init__()
        self.patch_embedding = PatchEmbedding(
            img_size, patch_size, num_hiddens)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, num_hiddens))
        num_steps = self.patch_embedding.num_patches + 1  # Add the cls token
        # Positional embeddings are learnable
        self.pos_embedding = nn.Parameter(
            torch.randn(1, num_steps, num_hiddens) * 0.02)
        self.dropout = nn.Dropout(emb_dropout)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module(f"{i}", ViTBlock(
                num_hiddens, num_hiddens, mlp_num_hiddens,
                num_heads, blk_dropout, use_bias))
        self.head = nn.Sequential(nn.LayerNorm(num_hiddens),
                                  nn.Linear(num_hiddens, num_classes))

    def forward(self, X):
        X = self.patch_embedding(X)
        X = torch.cat((self.cls_token.expand(X.shape[0], -1, -1), X), 1)
        X = self.dropout(X + self.pos_embedding)
        for blk in self.blks:
            X = blk(X)
        return self.head(X[:, 0])


# ---- the chapter's checks ----

def _np(t):
    return t.detach().cpu().numpy()


def test_masked_softmax_as_in_the_book(device):
    X = torch.rand(2, 2, 4, device=device)
    w = _np(masked_softmax(X, torch.tensor([2, 3], device=device)))
    assert (w[0, :, 2:] == 0).all() and (w[1, :, 3:] == 0).all()
    np.testing.assert_allclose(w.sum(-1), 1, rtol=1e-6)
    w = _np(masked_softmax(X, torch.tensor([[1, 3], [2, 4]], device=device)))
    assert (w[0, 0, 1:] == 0).all() and (w[0, 1, 3:] == 0).all() and (w[1, 0, 2:] == 0).all()
    np.testing.assert_allclose(w[0, 0, 0], 1.0)


def test_attention_scoring_shapes_as_in_the_book(device):
    queries = torch.normal(0, 1, (2, 1, 20), device=device)
    keys = torch.normal(0, 1, (2, 10, 2), device=device)
    values = torch.normal(0, 1, (2, 10, 4), device=device)
    valid_lens = torch.tensor([2, 6], device=device)
    attention = AdditiveAttention(num_hiddens=8, dropout=0.1).to(device)
    attention.eval()
    assert tuple(attention(queries, keys, values, valid_lens).shape) == (2, 1, 4)
    w = _np(attention.attention_weights)
    assert (w[0, 0, 2:] == 0).all() and (w[1, 0, 6:] == 0).all()
    queries = torch.normal(0, 1, (2, 1, 2), device=device)
    attention = DotProductAttention(dropout=0.5)
    attention.eval()
    assert tuple(attention(queries, keys, values, valid_lens).shape) == (2, 1, 4)


def test_multihead_attention_as_in_the_book(device):
    num_hiddens, num_heads = 100, 5
    attention = MultiHeadAttention(num_hiddens, num_heads, 0.5).to(device)
    batch_size, num_queries, num_kvpairs = 2, 4, 6
    valid_lens = torch.tensor([3, 2], device=device)
    X = torch.ones((batch_size, num_queries, num_hiddens), device=device)
    Y = torch.ones((batch_size, num_kvpairs, num_hiddens), device=device)
    assert tuple(attention(X, Y, Y, valid_lens).shape) == (batch_size, num_queries,
                                                           num_hiddens)


def test_the_books_multihead_attention_is_nn_multiheadattention(device):
    """With the same weights (and the valid lengths as a key padding mask) the chapter's
    MultiHeadAttention gives nn.MultiheadAttention's output (float64, 1e-12; masked
    keys get exp(-1e6) = 0 in one and -inf in the other)."""
    ours = MultiHeadAttention(8, 2, 0.0, bias=True).to(device).double()
    mha = nn.MultiheadAttention(8, 2, batch_first=True, device=device, dtype=torch.float64)
    q = torch.randn(3, 4, 8, device=device, dtype=torch.float64)
    kv = torch.randn(3, 5, 8, device=device, dtype=torch.float64)
    valid = torch.tensor([5, 2, 3], device=device)
    ours(q, kv, kv, valid)  # materialises the LazyLinears
    w = mha.in_proj_weight.detach()
    b = mha.in_proj_bias.detach()
    with torch.no_grad():
        for k, lin in enumerate((ours.W_q, ours.W_k, ours.W_v)):
            lin.weight.copy_(w[8 * k:8 * k + 8])
            lin.bias.copy_(b[8 * k:8 * k + 8])
        ours.W_o.weight.copy_(mha.out_proj.weight)
        ours.W_o.bias.copy_(mha.out_proj.bias)
    padding = torch.arange(5, device=device)[None, :] >= valid[:, None]
    want = mha(q, kv, kv, key_padding_mask=padding)[0]
    np.testing.assert_allclose(_np(ours(q, kv, kv, valid)), _np(want), rtol=1e-12,
                               atol=1e-12)


def test_positional_encoding_as_in_the_book(device):
    encoding_dim, num_steps = 32, 60
    pos_encoding = PositionalEncoding(encoding_dim, 0)
    X = pos_encoding(torch.zeros((1, num_steps, encoding_dim), device=device))
    P = _np(pos_encoding.P[:, :X.shape[1], :])
    i = np.arange(num_steps)[:, None] / np.power(10000, np.arange(0, 32, 2) / 32)
    np.testing.assert_allclose(P[0, :, 0::2], np.sin(i), atol=1e-5)
    np.testing.assert_allclose(P[0, :, 1::2], np.cos(i), atol=1e-5)
    np.testing.assert_allclose(_np(X), P, atol=1e-6)


def test_transformer_blocks_as_in_the_book(device):
    ffn = PositionWiseFFN(4, 8).to(device)
    ffn.eval()
    assert tuple(ffn(torch.ones((2, 3, 4), device=device)).shape) == (2, 3, 8)
    ln = nn.LayerNorm(2).to(device)
    bn = nn.BatchNorm1d(2).to(device)
    X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32, device=device)
    np.testing.assert_allclose(_np(ln(X)), [[-1, 1], [-1, 1]], atol=1e-4)
    np.testing.assert_allclose(_np(bn(X)), [[-1, -1], [1, 1]], atol=1e-4)
    add_norm = AddNorm(4, 0.5)
    shape = (2, 3, 4)
    assert tuple(add_norm(torch.ones(shape), torch.ones(shape)).shape) == shape
    X = torch.ones((2, 100, 24), device=device)
    valid_lens = torch.tensor([3, 2], device=device)
    encoder_blk = TransformerEncoderBlock(24, 48, 8, 0.5).to(device)
    encoder_blk.eval()
    assert tuple(encoder_blk(X, valid_lens).shape) == X.shape
    encoder = TransformerEncoder(200, 24, 48, 8, 2, 0.5).to(device)
    enc = encoder(torch.ones((2, 100), dtype=torch.long, device=device), valid_lens)
    assert tuple(enc.shape) == (2, 100, 24)
    decoder_blk = TransformerDecoderBlock(24, 48, 8, 0.5, 0).to(device)
    state = [encoder_blk(X, valid_lens), valid_lens, [None]]
    assert tuple(decoder_blk(X, state)[0].shape) == X.shape


def test_vit_as_in_the_book(device):
    img_size, patch_size, num_hiddens, batch_size = 96, 16, 512, 4
    patch_emb = PatchEmbedding(img_size, patch_size, num_hiddens).to(device)
    X = torch.zeros(batch_size, 3, img_size, img_size, device=device)
    assert tuple(patch_emb(X).shape) == (batch_size, (img_size // patch_size) ** 2,
                                         num_hiddens)
    X = torch.ones((2, 100, 24), device=device)
    encoder_blk = ViTBlock(24, 24, 48, 8, 0.5).to(device)
    encoder_blk.eval()
    assert tuple(encoder_blk(X).shape) == X.shape


def _seq2seq_batch(device, rng, vocab=8, steps=5, batch=16):
    """The task: the target is the source reversed (tokens 2..vocab-1; 0 pads, 1 is
    <bos>), with valid lengths 3..steps."""
    src = rng.integers(2, vocab, (batch, steps))
    lens = rng.integers(3, steps + 1, batch)
    tgt = np.zeros_like(src)
    for i, n in enumerate(lens):
        src[i, n:] = 0
        tgt[i, :n] = src[i, :n][::-1]
    dec_in = np.concatenate([np.ones((batch, 1), dtype=src.dtype), tgt[:, :-1]], axis=1)
    t = [torch.tensor(a, device=device) for a in (src, lens, dec_in, tgt)]
    return t


def test_training_a_tiny_transformer_lowers_the_loss(device):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    vocab = 8
    encoder = TransformerEncoder(vocab, 16, 32, 2, 2, 0.1)
    decoder = TransformerDecoder(vocab, 16, 32, 2, 2, 0.1)
    batches = [_seq2seq_batch(device, rng, vocab) for _ in range(2)]
    src, lens, dec_in, tgt = batches[0]
    encoder.to(device)
    decoder.to(device)
    decoder(dec_in, decoder.init_state(encoder(src, lens), lens))  # materialise LazyLinear
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=0.01)
    loss_fn = nn.CrossEntropyLoss(reduction="none")
    losses = []
    for step in range(30):
        src, lens, dec_in, tgt = batches[step % 2]
        Y_hat, _ = decoder(dec_in, decoder.init_state(encoder(src, lens), lens))
        l = loss_fn(Y_hat.reshape(-1, vocab), tgt.reshape(-1))
        mask = (tgt.reshape(-1) != 0).type(torch.float32)
        loss = (l * mask).sum() / mask.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert all(math.isfinite(v) for v in losses)
    assert np.mean(losses[-4:]) < 0.6 * np.mean(losses[:4]), losses


@pytest.mark.parametrize("use_bias", [False, True])
def test_training_a_tiny_vit_lowers_the_loss(device, use_bias):
    torch.manual_seed(1)
    model = ViT(img_size=8, patch_size=4, num_hiddens=16, mlp_num_hiddens=32, num_heads=2,
                num_blks=2, emb_dropout=0.1, blk_dropout=0.1, use_bias=use_bias,
                num_classes=3).to(device)
    X = torch.randn(12, 1, 8, 8, device=device)
    y = torch.tensor([0, 1, 2] * 4, device=device)
    X = X + y.reshape(12, 1, 1, 1).to(torch.float32)  # separable classes
    model(X)  # materialise the lazy layers before handing the parameters over
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert np.mean(losses[-3:]) < 0.7 * np.mean(losses[:3]), losses


# ---- 15.8 BERT (chapter 16 of some editions): the encoder and the two pretraining tasks

class BERTEncoder(nn.Module):
    """BERT encoder."""
    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens, num_heads,
                 num_blks, dropout, max_len=1000, **kwargs):
        super(BERTEncoder, self).__init__(**kwargs)
        self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
        self.segment_embedding = nn.Embedding(2, num_hiddens)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module(f"{i}", TransformerEncoderBlock(
                num_hiddens, ffn_num_hiddens, num_heads, dropout, True))
        # In BERT, positional embeddings are learnable, thus we create a
        # parameter of positional embeddings that are long enough
        self.pos_embedding = nn.Parameter(torch.randn(1, max_len,
                                                      num_hiddens))

    def forward(self, tokens, segments, valid_lens):
        # Shape of `X` remains unchanged in the following code snippet:
        # (batch size, max sequence length, `num_hiddens`)
        X = self.token_embedding(tokens) + self.segment_embedding(segments)
        X = X + self.pos_embedding[:, :X.shape[1], :]
        for blk in self.blks:
            X = blk(X, valid_lens)
        return X


class MaskLM(nn.Module):
    """The masked language model task of BERT."""
    def __init__(self, vocab_size, num_hiddens, **kwargs):
        super(MaskLM, self).__init__(**kwargs)
        self.mlp = nn.Sequential(nn.LazyLinear(num_hiddens),
                                 nn.ReLU(),
                                 nn.LayerNorm(num_hiddens),
                                 nn.LazyLinear(vocab_size))

    def forward(self, X, pred_positions):
        num_pred_positions = pred_positions.shape[1]
        pred_positions = pred_positions.reshape(-1)
        batch_size = X.shape[0]
        batch_idx = torch.arange(0, batch_size, device=X.device)
        # Suppose that `batch_size` = 2, `num_pred_positions` = 3, then
        # `batch_idx` is `torch.tensor([0, 0, 0, 1, 1, 1])`
        batch_idx = torch.repeat_interleave(batch_idx, num_pred_positions)
        masked_X = X[batch_idx, pred_positions]
        masked_X = masked_X.reshape((batch_size, num_pred_positions, -1))
        mlm_Y_hat = self.mlp(masked_X)
        return mlm_Y_hat


class NextSentencePred(nn.Module):
    """The next sentence prediction task of BERT."""
    def __init__(self, **kwargs):
        super(NextSentencePred, self).__init__(**kwargs)
        self.output = nn.LazyLinear(2)

    def forward(self, X):
        # `X` shape: (batch size, `num_hiddens`)
        return self.output(X)


class BERTModel(nn.Module):
    """The BERT model."""
    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens,
                 num_heads, num_blks, dropout, max_len=1000):
        super(BERTModel, self).__init__()
        self.encoder = BERTEncoder(vocab_size, num_hiddens, ffn_num_hiddens,
                                   num_heads, num_blks, dropout,
                                   max_len=max_len)
        self.hidden = nn.Sequential(nn.LazyLinear(num_hiddens),
                                    nn.Tanh())
        self.mlm = MaskLM(vocab_size, num_hiddens)
        self.nsp = NextSentencePred()

    def forward(self, tokens, segments, valid_lens=None, pred_positions=None):
        encoded_X = self.encoder(tokens, segments, valid_lens)
        if pred_positions is not None:
            mlm_Y_hat = self.mlm(encoded_X, pred_positions)
        else:
            mlm_Y_hat = None
        # The hidden layer of the MLP classifier for next sentence prediction.
        # 0 is the index of the '<cls>' token
        nsp_Y_hat = self.nsp(self.hidden(encoded_X[:, 0, :]))
        return encoded_X, mlm_Y_hat, nsp_Y_hat


def test_bert_as_in_the_book(device):
    vocab_size, num_hiddens, ffn_num_hiddens, num_heads = 10000, 24, 48, 4
    encoder = BERTEncoder(vocab_size, num_hiddens, ffn_num_hiddens, num_heads, 2, 0.2)
    encoder.to(device)
    tokens = torch.randint(0, vocab_size, (2, 8), device=device)
    segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1, 1, 1]],
                            device=device)
    encoded_X = encoder(tokens, segments, None)
    assert tuple(encoded_X.shape) == (2, 8, num_hiddens)
    mlm = MaskLM(vocab_size, num_hiddens).to(device)
    mlm_positions = torch.tensor([[1, 5, 2], [6, 1, 5]], device=device)
    mlm_Y_hat = mlm(encoded_X, mlm_positions)
    assert tuple(mlm_Y_hat.shape) == (2, 3, vocab_size)
    nsp = NextSentencePred().to(device)
    nsp_Y_hat = nsp(torch.flatten(encoded_X, start_dim=1))
    assert tuple(nsp_Y_hat.shape) == (2, 2)


def test_pretraining_a_tiny_bert_lowers_the_loss(device):
    """D2L's _get_batch_loss_bert on a fixed batch: the masked-token and next-sentence
    losses fall."""
    torch.manual_seed(2)
    vocab, batch, steps = 12, 8, 6
    net = BERTModel(vocab, 16, 32, 2, 2, 0.1, max_len=steps)
    tokens = torch.randint(0, vocab, (batch, steps))
    segments = (torch.arange(steps)[None, :] >= 3).to(torch.int64).repeat(batch, 1)
    valid_lens = torch.tensor([6, 5, 6, 4, 6, 6, 5, 6])
    pred_positions = torch.tensor([[1, 4]] * batch)
    mlm_weights = torch.ones(batch, 2)
    mlm_Y = tokens[:, 1::3].contiguous()  # the tokens at the predicted positions
    nsp_y = torch.tensor([0, 1] * 4)
    data = [t.to(device) for t in (tokens, segments, valid_lens, pred_positions,
                                   mlm_weights, mlm_Y, nsp_y)]
    tokens, segments, valid_lens, pred_positions, mlm_weights, mlm_Y, nsp_y = data
    tokens = tokens.clone()
    tokens[:, 1] = 0  # <mask> (token 0) where the model must predict
    tokens[:, 4] = 0
    net.to(device)
    net(tokens, segments, valid_lens, pred_positions)  # materialise the lazy layers
    loss = nn.CrossEntropyLoss(reduction="none")
    trainer = torch.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(25):
        _, mlm_Y_hat, nsp_Y_hat = net(tokens, segments, valid_lens, pred_positions)
        mlm_l = loss(mlm_Y_hat.reshape(-1, vocab), mlm_Y.reshape(-1)) * mlm_weights.reshape(-1, 1)
        mlm_l = mlm_l.sum() / (mlm_weights.sum() + 1e-8)
        nsp_l = loss(nsp_Y_hat, nsp_y).mean()
        l = mlm_l + nsp_l
        trainer.zero_grad()
        l.backward()
        trainer.step()
        losses.append(l.item())
    assert np.mean(losses[-3:]) < 0.5 * np.mean(losses[:3]), losses
