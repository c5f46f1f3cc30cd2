"""nn.functional's normalisations, embedding lookups and distances: layer_norm,
batch_norm, embedding, normalize, cosine_similarity and pairwise_distance, as
compositions of differentiable ops (autograd gives their gradients; layer_norm's and
training batch_norm's normalisation is one recorded op each, nn/_norm_nodes.py), with
PyTorch's names, defaults and formulas.  functional.py re-exports them."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .. import _C, _args
from .._ops_index import _dim, where as _where
from ..autograd.derivatives_index import IndexBackward0 as _IndexBackward0
from ..autograd.dispatch import derivative as _derivative, recorded as _recorded
from ..autograd.grad_mode import no_grad as _no_grad
from .._out import takes_out as _takes_out
from ..autograd.derivatives import as_norm_node
from ..linalg import vector_norm as _vector_norm
from ._norm_nodes import native_batch_norm as _native_batch_norm
from ._norm_nodes import native_layer_norm as _native_layer_norm
from ._norm_nodes import wide as _wide
from ._norm_nodes_more import batch_norm_eval as _batch_norm_eval

if TYPE_CHECKING:
    from .._C import Tensor

__all__ = ["layer_norm", "batch_norm", "embedding", "normalize", "cosine_similarity",
           "pairwise_distance"]
_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape


def _floating(x: Any, where: str, what: str = "input") -> None:
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{where}: {what} must be a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise _C.DTypeError(f"{where}: {what} must be floating point, got {x.dtype} "
                            f"(on {x.device})")


def _shape_tuple(normalized_shape: Any, where: str) -> tuple[int, ...]:
    """normalized_shape (an int, or a sequence of them: NumPy integers and an integer
    array too) as a tuple of Python ints."""
    one = isinstance(normalized_shape, int) or _args.index(normalized_shape) is not None
    try:
        shape = tuple(_args.index(s) for s in
                      ((normalized_shape,) if one else normalized_shape))
    except TypeError:
        raise TypeError(f"{where}: normalized_shape must be an int or a sequence of ints, got "
                        f"{type(normalized_shape).__name__}") from None
    if not shape or any(s is None or s < 0 for s in shape):  # 0: an empty block, as PyTorch's
        raise _Invalid(f"{where}: normalized_shape must be one or more ints >= 0, got "
                       f"{normalized_shape!r}")
    return shape


def _trailing_shape(input: Any, normalized_shape: Any, where: str) -> tuple[int, ...]:
    """normalized_shape as a tuple, after checking that input is a floating point
    Tensor of shape (*, *normalized_shape) (layer_norm's and rms_norm's checks)."""
    _floating(input, where)
    shape = _shape_tuple(normalized_shape, where)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise _Invalid(f"{where}: expected an input of shape (*, {', '.join(map(str, shape))})"
                       f" (normalized_shape={shape}), got {tuple(input.shape)} "
                       f"(on {input.device})")
    return shape


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int],
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalises over the last ``len(normalized_shape)`` dimensions: ``(x - mean) /
    sqrt(var + eps) * weight + bias``, with the mean and the biased variance of each
    sample's trailing block, as ``torch.nn.functional.layer_norm``.

    Parameters
    ----------
    input : Tensor
        Floating point, of shape ``(*, *normalized_shape)``.
    normalized_shape : int or sequence of int
        The trailing shape to normalise over.
    weight, bias : Tensor, optional
        Of shape normalized_shape: the scale and shift.
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor.
    ValueError
        When input's trailing shape is not normalized_shape (the message names both and
        the device), or weight or bias has another shape.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.layer_norm(pydevtensor.tensor([[1., 2., 3.]]), (3,))
    tensor([[-1.2247,  0.0000,  1.2247]])
    """
    where = "layer_norm()"
    shape = _trailing_shape(input, normalized_shape, where)
    k = len(shape)
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise _Invalid(f"{where}: {name} of shape {tuple(p.shape)} does not match "
                           f"normalized_shape {shape} (on {p.device})")
    dims = tuple(range(input.ndim - k, input.ndim))
    # one recorded op, NativeLayerNormBackward0 (nn/_norm_nodes.py); the half types in
    # float32, rounded once at the end, as PyTorch accumulates them (in float16 the mean
    # of 1024 values near 100 lost 0.03); the variance biased, as PyTorch's
    return _native_layer_norm(input, weight, bias, dims, eps)[0]


def _scale_shift(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """out * weight + bias, each when given (already shaped to broadcast)."""
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _per_channel(t: Tensor, ndim: int) -> Tensor:
    """A (C,) tensor shaped to broadcast along dimension 1 of an ndim-d input."""
    return t.reshape((1, t.shape[0]) + (1,) * (ndim - 2))


def _check_channels(input: Tensor, tensors: Any, where: str) -> None:
    c = input.shape[1]
    for name, t in tensors:
        if t is None:
            continue
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor or None, got {type(t).__name__}")
        if tuple(t.shape) != (c,):
            raise _Invalid(f"{where}: {name} of shape {tuple(t.shape)} does not match the "
                           f"input's {c} channels (dimension 1 of {tuple(input.shape)}; "
                           f"on {input.device})")


def _check_batch(input: Tensor, where: str) -> None:
    """PyTorch's refusal of one value per channel in training (its variance is 0/0)."""
    n = 1
    for i, s in enumerate(input.shape):
        if i != 1:
            n *= s
    if n == 1:
        raise ValueError(f"{where}: Expected more than 1 value per channel when training, "
                         f"got input size {tuple(input.shape)} (on {input.device})")


def _check_batch_norm_eps(eps: Any, training: bool, where: str) -> None:
    """PyTorch's F.batch_norm check: eps > 0 when the batch's statistics are used (a
    negative one made the square root of var + eps NaN), eps >= 0 otherwise."""
    eps = _args.plain(eps)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"{where}: eps must be a number, got {type(eps).__name__}")
    if training and not eps > 0:
        raise ValueError(f"{where}: batch_norm eps must be positive during training, but "
                         f"got {eps}")
    if not eps >= 0:
        raise ValueError(f"{where}: batch_norm eps must be non-negative, but got {eps}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel (dimension 1) of input, as
    ``torch.nn.functional.batch_norm``.

    In training (or without running statistics) it uses the batch's mean and biased
    variance over every dimension but 1, and updates running_mean and running_var in
    place (when given): ``running = (1 - momentum) * running + momentum * batch``, with
    the unbiased variance.  Otherwise it uses running_mean and running_var.

    Parameters
    ----------
    input : Tensor
        Floating point, of shape ``(N, C, *)``.
    running_mean, running_var : Tensor or None
        Of shape (C,).
    weight, bias : Tensor, optional
        Of shape (C,): the scale and shift.
    training : bool, optional
        Use the batch's statistics (default False).
    momentum : float, optional
        The weight of the batch in the running update (default 0.1).
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor.
    ValueError
        When input has fewer than 2 dimensions, a (C,) tensor has another size, a
        training batch holds one value per channel, evaluation has no running
        statistics, or eps is not positive in training (negative in evaluation).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[1., 10.], [3., 30.]])
    >>> mean, var = pydevtensor.zeros(2), pydevtensor.ones(2)
    >>> F.batch_norm(x, mean, var, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> mean
    tensor([0.2000, 2.0000])
    """
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       True)


def _batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                weight: Tensor | None, bias: Tensor | None, training: bool, momentum: float,
                eps: float, check_eps: bool) -> Tensor:
    """batch_norm's body; check_eps: F.batch_norm's check of eps (torch.batch_norm and
    instance_norm, PyTorch's ATen ops, take any eps)."""
    where = "batch_norm()"
    _floating(input, where)
    training = _args.flag(training, "batch_norm", "training")
    if input.ndim < 2:
        raise _Invalid(f"{where}: expected an input of shape (N, C, *), got "
                       f"{tuple(input.shape)} (on {input.device})")
    _check_channels(input, (("running_mean", running_mean), ("running_var", running_var),
                            ("weight", weight), ("bias", bias)), where)
    ndim = input.ndim
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{where}: running_mean and running_var must both be given or "
                         f"both be None")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and not t.is_floating_point():  # an update would truncate
            raise _C.DTypeError(f"{where}: {name} must be floating point, got {t.dtype} "
                                f"(on {t.device})")
    if check_eps:
        _check_batch_norm_eps(eps, training or running_mean is None, where)
    momentum = _args.plain(momentum)
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(f"{where}: momentum must be a number, got {type(momentum).__name__} "
                        f"(nn.BatchNorm1d takes momentum=None for a cumulative average)")
    if not training and running_mean is None:
        raise RuntimeError(f"{where}: running_mean must be defined in evaluation mode "
                           f"(training=False); pass the running statistics or "
                           f"training=True (input of shape {tuple(input.shape)} on "
                           f"{input.device})")
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    # the half types in float32 (with float32 or their own parameters and statistics),
    # rounded once at the end, as PyTorch's mixed batch norm
    if training:
        _check_batch(input, where)
        # one recorded op, NativeBatchNormBackward0 (nn/_norm_nodes.py); the variance
        # biased to normalise
        out, mean, var = _native_batch_norm(input, weight, bias, eps)[:3]
        n = input.numel() // max(input.shape[1], 1)
        if running_mean is not None and n > 0:  # an empty batch leaves them, as PyTorch's
            update_running(running_mean, running_var, mean.reshape(-1), var.reshape(-1), n,
                           momentum)
        return out
    if not (running_mean.requires_grad or running_var.requires_grad):
        # one recorded op, NativeBatchNormBackward0 (nn/_norm_nodes_more.py)
        return _batch_norm_eval(input, weight, bias, running_mean, running_var, eps)
    x = input.to(_wide(input.dtype))
    centred = x - _per_channel(running_mean, ndim).to(x.dtype)
    var = _per_channel(running_var, ndim).to(x.dtype)
    return _scale_shift(centred / _C.sqrt(var + eps),
                        None if weight is None else _per_channel(weight, ndim).to(x.dtype),
                        None if bias is None else _per_channel(bias, ndim).to(x.dtype)
                        ).to(input.dtype)


def _empty_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """batch_norm of an empty input, as PyTorch's: ``clone(x) * weight + bias``, each
    when given (grad_fn CloneBackward0, MulBackward0 or AddBackward0, not
    NativeBatchNormBackward0; weight's and bias's gradients zeros), in input's dtype;
    the statistics are neither used nor updated.  PyTorch scales by weight[0], an
    IndexError for 0 channels; weight is broadcast per channel here, which is the same
    for an empty input and takes 0 channels."""
    out = input.clone()
    for t, op in ((weight, _C.Tensor.__mul__), (bias, _C.Tensor.__add__)):
        if t is not None:
            t = _per_channel(t, input.ndim)
            out = op(out, t if t.dtype == input.dtype else t.to(input.dtype))
    return out


def update_running(running_mean: Tensor, running_var: Tensor, mean: Tensor, var: Tensor,
                   n: int, momentum: float) -> None:
    """running = (1 - momentum) * running + momentum * batch, in place, for the (C,)
    batch mean and biased variance of n values each (the variance made unbiased: the
    estimate)."""
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t.numel() > 1 and 0 in t.stride():  # checked before either is written
            raise _Invalid(f"batch_norm(): {name} of shape {tuple(t.shape)} has a stride of "
                           f"0 (an expanded tensor): its elements share one memory location "
                           f"and cannot hold a statistic each (on {t.device})")
    if _C._spans_overlap(running_mean, running_var):
        raise _Invalid(f"batch_norm(): running_mean and running_var share memory (shape "
                       f"{tuple(running_mean.shape)}, on {running_mean.device})")
    with _no_grad():
        # in the batch statistics' (wide) dtype, rounded once into half statistics, as
        # PyTorch's: a float16 running_var took the unbiased variance 180000 as inf
        m = float(momentum)
        for t, batch in ((running_mean, mean.detach()),
                         (running_var, var.detach() * (n / (n - 1)))):
            t.copy_(t.to(batch.dtype) * (1.0 - m) + batch * m)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of weight at the indices in input, as ``torch.nn.functional.embedding``:
    an output of shape ``(*input.shape, embedding_dim)``.  The gradient of row
    padding_idx is zero (its value is still looked up).

    With max_norm, as PyTorch: before the lookup, each row looked up whose norm_type
    norm exceeds max_norm is scaled in place, under no_grad, by
    ``max_norm / (norm + 1e-7)`` (weight itself changes).

    Parameters
    ----------
    input : Tensor
        int64 or int32 indices in [0, num_embeddings), any shape.
    weight : Tensor
        (num_embeddings, embedding_dim).
    padding_idx : int, optional
        A row that gets no gradient (negative: from the end).
    max_norm : float, optional
        Renormalise the rows looked up to at most this norm (default None: never).
    norm_type : float, optional
        The p of max_norm's p-norm (default 2).
    scale_grad_by_freq : bool, optional
        Divide each row's gradient by how often its index occurs in input (default
        False).
    sparse : bool, optional
        Only False: sparse gradients are not implemented here.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When input does not hold integers, or max_norm or norm_type is not a number.
    NotImplementedError
        When sparse is True.
    IndexError
        When an index is outside [0, num_embeddings): the message names it, the size
        and the device.
    ValueError
        When weight is not 2-d or padding_idx is out of range.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> w = pydevtensor.tensor([[0., 0.], [1., 2.], [3., 4.]])
    >>> F.embedding(pydevtensor.tensor([[2, 1]]), w)
    tensor([[[3., 4.],
             [1., 2.]]])
    """
    return _embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                      sparse, "embedding")


def _embedding(input: Tensor, weight: Tensor, padding_idx: Any, max_norm: Any, norm_type: Any,
               scale_grad_by_freq: Any, sparse: Any, op: str) -> Tensor:
    """embedding's body; op names the function called (embedding_bag's lookups too)."""
    where = f"{op}()"
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor of indices, got {type(input).__name__}")
    if input.dtype not in (_C.int64, _C.int32):
        raise _C.DTypeError(f"{where}: the indices must be int64 or int32, got {input.dtype} "
                            f"(on {input.device})")
    if not isinstance(weight, _C.Tensor) or weight.ndim != 2:
        what = tuple(weight.shape) if isinstance(weight, _C.Tensor) else type(weight).__name__
        raise _Invalid(f"{where}: weight must be a 2-d Tensor (num_embeddings, "
                       f"embedding_dim), got {what}")
    if input.device != weight.device:  # as PyTorch's: no copy of the indices for you
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                             f"the indices {tuple(input.shape)} are on {input.device} and "
                             f"weight {tuple(weight.shape)} on {weight.device}; move one "
                             f"with .to()")
    n = weight.shape[0]
    pad = _padding_idx(padding_idx, n, where)
    max_norm, norm_type = _embedding_options(max_norm, norm_type, scale_grad_by_freq, sparse,
                                             where)
    index = input.to(_C.int64).contiguous()
    # names the first index outside [0, n), the size and the device (IndexError); on a
    # GPU checked on the device and reported at the next synchronisation, unless
    # max_norm renormalises weight's rows in place (Note [deferred index checks])
    _C._index_check(index, n, 0, op, False, max_norm is None)
    if max_norm is not None:
        _renorm_rows(weight, index, float(max_norm), float(norm_type))
    if scale_grad_by_freq and weight.requires_grad:
        rows = _scale_grad_by_freq(weight[index], index)
        if pad is not None and rows.requires_grad:
            # the padding row's value, without a path back to weight
            rows = _where((index == pad).unsqueeze(-1), rows.detach(), rows)
        return rows
    return _lookup(weight, index, pad)


@_recorded("embedding")
def _lookup(weight, index, pad):
    """weight[index]: one node, EmbeddingBackward0 as PyTorch's (IndexBackward0 before);
    pad: the row whose gradient is zero, or None."""
    return weight[index]


@_derivative("embedding")
class EmbeddingBackward0(_IndexBackward0):
    """The gradient of each looked-up row added into zeros of weight's shape
    (IndexBackward0's), none for the padding row's lookups."""

    def save(self, out, weight, index, pad):
        self.pad_mask = None if pad is None else (index == pad).unsqueeze(-1)
        return super().save(out, weight, index)

    def backward(self, g):
        if self.pad_mask is not None:
            g = g.masked_fill(self.pad_mask, 0.0)
        return super().backward(g)


def _embedding_options(max_norm: Any, norm_type: Any, scale_grad_by_freq: Any, sparse: Any,
                       where: str) -> tuple[Any, Any]:
    """Checks embedding's options beyond padding_idx (shared with nn.Embedding): max_norm
    and norm_type as Python numbers (a NumPy scalar or a 0-d tensor read as one, as
    PyTorch takes them; None stays None)."""
    values = []
    for name, v in (("max_norm", max_norm), ("norm_type", norm_type)):
        v = _args.plain(_args.number(v))
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"{where}: {name} must be a number, got {type(v).__name__}")
        values.append(v)
    op = where.removesuffix("()")
    _args.flag(scale_grad_by_freq, op, "scale_grad_by_freq")
    if _args.flag(sparse, op, "sparse"):
        raise NotImplementedError(f"{where}: sparse=True is not supported (there are no "
                                  f"sparse tensors); the gradient is dense")
    return values[0], values[1]


def _scale_grad_by_freq(rows: Tensor, index: Tensor) -> Tensor:
    """rows, with the gradient of each looked-up row divided by how often its index
    occurs in index (PyTorch's scale_grad_by_freq): the counts by a sort and two
    searchsorted, on the device; the value is rows' own (plus 0)."""
    from .._ops_counting import searchsorted
    flat = index.reshape(-1)
    ordered = flat.sort().values
    count = searchsorted(ordered, flat, right=True) - searchsorted(ordered, flat)
    scale = (1.0 / count.to(rows.dtype)).reshape(*index.shape, 1)
    fixed = rows.detach()
    return fixed + (rows - fixed) * scale


def _renorm_rows(weight: Tensor, index: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding_renorm_: the rows of weight at index whose norm exceeds
    max_norm scaled by max_norm / (norm + 1e-7), in place, under no_grad.  A repeated
    index writes the same row again; rows within the norm are written back unchanged."""
    flat = index.reshape(-1)
    if flat.numel() == 0:
        return
    with _no_grad():
        rows = weight[flat]
        norms = _vector_norm(rows, norm_type, dim=1, keepdim=True)
        scale = _where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[flat] = rows * scale


def _padding_idx(padding_idx: Any, n: int, where: str) -> int | None:
    if padding_idx is None:
        return None
    given, padding_idx = padding_idx, _args.index(padding_idx)  # NumPy's, a 0-d tensor too
    if padding_idx is None:
        raise TypeError(f"{where}: padding_idx must be an int or None, got "
                        f"{type(given).__name__}")
    if not -n <= padding_idx < n:
        raise _Invalid(f"{where}: padding_idx must be within num_embeddings = {n} "
                         f"(from {-n} to {n - 1}), got {padding_idx}")
    return padding_idx % n


def _norm_dim(x: Tensor, dim: int, where: str) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{where}: dim must be an int, got {type(dim).__name__}")
    return _dim(dim, x.ndim, where.removesuffix("()"), x)


@_takes_out("normalize", castable=True)
def normalize(input: Tensor, p: float = 2.0, dim: int | Sequence[int] = 1,
              eps: float = 1e-12) -> Tensor:
    """``input / max(norm_p(input, dim), eps)``: vectors along dim scaled to p-norm 1,
    as ``torch.nn.functional.normalize``.

    Parameters
    ----------
    input : Tensor
        Floating point.
    p : float, optional
        The norm's exponent (default 2).
    dim : int or tuple of ints, optional
        The dimension of the vectors (default 1), or several: the norm over all of them,
        as PyTorch's.
    eps : float, optional
        The smallest norm divided by (default 1e-12).

    Returns
    -------
    Tensor
        Of input's shape.

    Raises
    ------
    TypeError
        When input is not a floating point Tensor.
    IndexError
        When dim is out of range.
    RuntimeError
        When a dim appears twice.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.normalize(pydevtensor.tensor([[3., 4.]]))
    tensor([[0.6000, 0.8000]])
    >>> F.normalize(pydevtensor.tensor([[[1., 1.], [1., 1.]]]), dim=(1, 2))
    tensor([[[0.5000, 0.5000],
             [0.5000, 0.5000]]])
    """
    where = "normalize()"
    _floating(input, where)
    if isinstance(dim, (tuple, list)):
        d = tuple(_norm_dim(input, k, where) for k in dim)
        if len(set(d)) != len(d):
            raise RuntimeError(f"{where}: dim {list(dim)} names a dimension twice (input "
                               f"{tuple(input.shape)}, on {input.device})")
    else:
        d = _norm_dim(input, dim, where)
    if not isinstance(p, (int, float)):
        _args.real(p, "normalize", "p")
    norm = _vector_norm(input, p, dim=d, keepdim=True)
    return input / _C.clamp(norm, min=eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2, dim) / (max(norm(x1), eps) * max(norm(x2), eps))`` (2-norms along
    dim, x1 and x2 broadcast), as ``torch.nn.functional.cosine_similarity``.

    Parameters
    ----------
    x1, x2 : Tensor
        Floating point, of broadcastable shapes.
    dim : int, optional
        The dimension of the vectors (default 1).
    eps : float, optional
        The smallest norm divided by (default 1e-8).

    Returns
    -------
    Tensor
        The broadcast shape without dim.

    Raises
    ------
    TypeError
        When an input is not a floating point Tensor.
    ValueError
        When the shapes do not broadcast.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.cosine_similarity(pydevtensor.tensor([[1., 0.]]), pydevtensor.tensor([[1., 1.]]))
    tensor([0.7071])
    """
    where = "cosine_similarity()"
    _floating(x1, where, "x1")
    _floating(x2, where, "x2")
    x1, x2 = _broadcast(x1, x2, where)
    d = _norm_dim(x1, dim, where)
    n1 = _C.clamp(_vector_norm(x1, 2, dim=d, keepdim=True), min=eps)
    n2 = _C.clamp(_vector_norm(x2, 2, dim=d, keepdim=True), min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim=d)


def _broadcast(x1: Tensor, x2: Tensor, where: str) -> tuple[Tensor, Tensor]:
    import numpy as np
    try:
        shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    except ValueError:
        raise _Invalid(f"{where}: the shapes {tuple(x1.shape)} and {tuple(x2.shape)} do not "
                       f"broadcast (on {x1.device})") from None
    return x1.expand(*shape), x2.expand(*shape)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``norm_p(x1 - x2 + eps)`` along the last dimension, as
    ``torch.nn.functional.pairwise_distance`` (x1 and x2 broadcast).

    Parameters
    ----------
    x1, x2 : Tensor
        Of broadcastable shapes (N, D), (D,) or () (a 0-d pair: ``|x1 - x2 + eps|``);
        integers are taken as the default floating dtype, as PyTorch.
    p : float, optional
        The norm's exponent (default 2).
    eps : float, optional
        Added to the difference (default 1e-6), so the gradient at 0 is finite.
    keepdim : bool, optional
        Keep the last dimension, of size 1 (default False).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When an input is not a floating point or integer Tensor.
    ValueError
        When the shapes do not broadcast.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.pairwise_distance(pydevtensor.tensor([[0., 0.]]), pydevtensor.tensor([[3., 4.]]),
    ...                     eps=0.)
    tensor([5.])
    """
    where = "pairwise_distance()"
    keepdim = _args.flag(keepdim, "pairwise_distance", "keepdim")
    if not isinstance(p, (int, float)):
        _args.real(p, "pairwise_distance", "p")
    x1, x2 = _as_floating(x1, where, "x1"), _as_floating(x2, where, "x2")
    x1, x2 = _broadcast(x1, x2, where)
    # PyTorch's node, at::norm's (NormBackward1)
    if x1.ndim == 0:  # PyTorch's: the norm of the one difference
        return as_norm_node(_vector_norm((x1 - x2 + eps).reshape(1), p, dim=0))
    return as_norm_node(_vector_norm(x1 - x2 + eps, p, dim=x1.ndim - 1, keepdim=keepdim))


def _as_floating(x, where, what):
    """x, integers (not bool) as the default floating dtype (PyTorch's promotion)."""
    if isinstance(x, _C.Tensor) and not x.is_floating_point() and not x.is_complex() and \
            x.dtype != _C.bool:
        x = x.to(_C._get_default_dtype())
    _floating(x, where, what)
    return x
