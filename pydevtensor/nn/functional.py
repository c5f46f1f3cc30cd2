"""nn.functional: the layers' computations as functions."""
from .. import _C
from .._numpy_names import numpy_names
from .. import _ops_stats as _stats
from . import _functional_norm as _norm
from .._ops_join import stack as _stack
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from . import _functional_activation as _act
from . import _functional_activation_more as _act2
from . import _functional_losses_likelihood as _LL
from . import _functional_losses_margin as _LM
from . import _functional_bilinear as _bil
from . import _functional_reshape as _reshape
from . import _functional_losses as _L
from . import _functional_conv as _conv
from . import _functional_pool as _pool
from . import _functional_pad as _pad_mod
from . import _functional_conv_transpose as _convt
from . import _functional_dropout as _drop
from . import _functional_group_norm as _gn
from . import _functional_attention as _attn
from ._functional_dropout import _dropout_p

_Tensor, _mm, _addmm = _C.Tensor, _C.matmul, _C.addmm
binary_cross_entropy_with_logits, kl_div = _L.binary_cross_entropy_with_logits, _L.kl_div
binary_cross_entropy = _L.binary_cross_entropy
# the activations after ReLU (_functional_activation.py)
elu, gelu, hardtanh, logsigmoid = _act.elu, _act.gelu, _act.hardtanh, _act.logsigmoid
mish, relu6, silu, softplus = _act.mish, _act.relu6, _act.silu, _act.softplus
# the rest of PyTorch's activations (_functional_activation_more.py)
celu, glu, hardshrink, hardsigmoid = _act2.celu, _act2.glu, _act2.hardshrink, _act2.hardsigmoid
hardswish, prelu, rrelu, selu = _act2.hardswish, _act2.prelu, _act2.rrelu, _act2.selu
softmin, softshrink, softsign = _act2.softmin, _act2.softshrink, _act2.softsign
tanhshrink, threshold = _act2.tanhshrink, _act2.threshold
# margin, embedding and likelihood losses (_functional_losses_margin.py, _likelihood.py)
margin_ranking_loss, hinge_embedding_loss = _LM.margin_ranking_loss, _LM.hinge_embedding_loss
soft_margin_loss, cosine_embedding_loss = _LM.soft_margin_loss, _LM.cosine_embedding_loss
triplet_margin_loss, multi_margin_loss = _LM.triplet_margin_loss, _LM.multi_margin_loss
multilabel_margin_loss = _LM.multilabel_margin_loss
multilabel_soft_margin_loss = _LM.multilabel_soft_margin_loss
poisson_nll_loss, gaussian_nll_loss = _LL.poisson_nll_loss, _LL.gaussian_nll_loss
# bilinear and channel_shuffle (_functional_bilinear.py, _functional_reshape.py)
bilinear, channel_shuffle = _bil.bilinear, _reshape.channel_shuffle
# normalisations, embedding and distances (_functional_norm.py)
layer_norm, batch_norm, embedding = _norm.layer_norm, _norm.batch_norm, _norm.embedding
normalize, cosine_similarity = _norm.normalize, _norm.cosine_similarity
pairwise_distance = _norm.pairwise_distance
# convolutions and pooling (_functional_conv.py, _functional_pool.py)
unfold, fold, conv1d, conv2d = _conv.unfold, _conv.fold, _conv.conv1d, _conv.conv2d
max_pool2d, avg_pool2d = _pool.max_pool2d, _pool.avg_pool2d
adaptive_avg_pool2d, adaptive_max_pool2d = _pool.adaptive_avg_pool2d, _pool.adaptive_max_pool2d
pad = _pad_mod.pad
conv_transpose1d, conv_transpose2d = _convt.conv_transpose1d, _convt.conv_transpose2d
# channel dropout (_functional_dropout.py)
dropout1d, dropout2d = _drop.dropout1d, _drop.dropout2d
# group and instance normalisation (_functional_group_norm.py)
group_norm, instance_norm = _gn.group_norm, _gn.instance_norm
# layers2: 1-d and power-average pools (_functional_pool_more.py)
from . import _functional_pool_more as _poolm  # noqa: E402
max_pool1d, avg_pool1d, lp_pool1d, lp_pool2d = (_poolm.max_pool1d, _poolm.avg_pool1d,
                                                _poolm.lp_pool1d, _poolm.lp_pool2d)
adaptive_avg_pool1d, adaptive_max_pool1d = _poolm.adaptive_avg_pool1d, _poolm.adaptive_max_pool1d
max_unpool2d = _poolm.max_unpool2d
# layers2: resampling, pixel shuffle, LRN and RMSNorm
from . import _functional_interpolate as _interp  # noqa: E402
from . import _functional_pixel_shuffle as _shuffle  # noqa: E402
from . import _functional_norm_more as _normm  # noqa: E402
interpolate = _interp.interpolate
pixel_shuffle, pixel_unshuffle = _shuffle.pixel_shuffle, _shuffle.pixel_unshuffle
local_response_norm, rms_norm = _normm.local_response_norm, _normm.rms_norm
# attention (_functional_attention.py)
scaled_dot_product_attention = _attn.scaled_dot_product_attention


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as one GEMM with the bias folded in (addmm: the bias is
    broadcast into the output, then the GEMM accumulates onto it with beta = 1).

    input: (*, in) or (in,); weight: (out, in); bias: (out,) or None.  The weight's
    transpose goes to the BLAS as a flag, not as a copy.
    """
    if type(input) is _Tensor and input.ndim == 2 and weight.ndim == 2:
        # a batch of rows, the common case: the product checks the shapes itself; on a
        # mismatch the path below says it in linear's words
        try:
            return _mm(input, weight.T) if bias is None else _addmm(bias, input, weight.T)
        except (ValueError, RuntimeError, TypeError):
            pass
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"linear(): input must be a Tensor, got {type(input).__name__}")
    if weight.ndim != 2:
        raise ValueError(f"linear(): weight must be 2-d (out_features, in_features), "
                         f"got shape {tuple(weight.shape)}")
    out_features, in_features = weight.shape
    if input.ndim == 0 or input.shape[-1] != in_features:
        raise _C.InvalidArgumentError(
            f"linear(): input of shape {tuple(input.shape)} does not match weight of shape "
            f"{tuple(weight.shape)} on {input.device}: the last dimension of the input must be "
            f"in_features = {in_features}")
    lead = tuple(input.shape[:-1])
    rows = 1
    for s in lead:
        rows *= s
    x2 = input.reshape(rows, in_features)  # a view when the input is contiguous
    if bias is None:
        out = _C.matmul(x2, weight.T)
    else:
        out = _C.addmm(bias, x2, weight.T)
    return out if lead == (rows,) else out.reshape(*lead, out_features)


def relu(input, inplace=False):
    """PyTorch's ``relu``: ``max(x, 0)``, elementwise.

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([-1., 2.])
    >>> F.relu(x, inplace=True) is x, x
    (True, tensor([0., 2.]))
    """
    if inplace:
        return _act._result(input, _C.relu, True)
    return _C.relu(input)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the others by 1 / (1 - p), in
    training; the input itself otherwise (PyTorch's inverted dropout).  The mask comes
    from the package's generator on input's device (the same mask on every device for a
    seed); the gradient flows through the kept elements, scaled alike."""
    _dropout_p(p)
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"dropout(): input must be a Tensor, got {type(input).__name__}")
    if not training or p == 0.0:
        return input
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"dropout(): expected a floating point tensor, got {input.dtype}")
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    keep = _C.rand(tuple(input.shape), device=input.device) >= p  # kept with probability 1 - p
    scale = 1.0 / (1.0 - p)
    if inplace:
        return input.mul_(keep).mul_(scale)
    return input * keep * scale


def flatten(input, start_dim=1, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def _check_reduction(reduction, where):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _reduce(per_element, reduction):
    if reduction == "mean":
        return per_element.mean()
    if reduction == "sum":
        return per_element.sum()
    return per_element


def _check_same_shape(input, target, where):
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"{where}: input of shape {tuple(input.shape)} and target of shape "
                         f"{tuple(target.shape)} differ, on {input.device} (no broadcasting "
                         f"here: it is almost always a mistake, e.g. (N, 1) against (N,))")


def mse_loss(input, target, reduction="mean"):
    """mean (or sum) of (input - target) ** 2; input and target of one shape."""
    _check_reduction(reduction, "mse_loss()")
    _check_same_shape(input, target, "mse_loss()")
    diff = input - target
    if diff.requires_grad:  # recorded: the square as its own op
        return _reduce(diff * diff, reduction)
    return _reduce(diff.mul_(diff), reduction)  # diff is this function's own: no new temporary


def _positive(value, name, where, zero_ok):
    """value as a float, when it is a number > 0 (>= 0 with zero_ok)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    if not (value >= 0 if zero_ok else value > 0):
        raise ValueError(f"{where}: {name} must be {'>= 0' if zero_ok else '> 0'}, got {value!r}")
    return float(value)


def l1_loss(input, target, reduction="mean"):
    """PyTorch's ``l1_loss``: the mean (or sum) of ``|input - target|``.

    The gradient at ``input == target`` is 0, as PyTorch's (the sign of 0).

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape (no broadcasting), on its device.
    reduction : {'mean', 'sum', 'none'}, optional
        How the absolute errors are combined (default 'mean').

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor.
    ValueError
        For an unknown reduction, or shapes that differ (naming both, and the device).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.l1_loss(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 5.]))
    tensor(1.5000)
    """
    _check_reduction(reduction, "l1_loss()")
    _check_same_shape(input, target, "l1_loss()")
    return _reduce((input - target).abs(), reduction)


def _piecewise(input, target, reduction, knee, where, beta):
    """The shared body of huber_loss (beta None) and smooth_l1_loss, PyTorch's formulas:
    with z = |input - target|, below the knee ``0.5 * z * z`` (divided by beta), from
    it on ``knee * (z - 0.5 * knee)`` (``z - 0.5 * beta``).  The quadratic piece reads
    z clamped to the knee, so that its value and gradient stay finite where the linear
    piece is taken (z = inf would give 0 * inf = NaN in the backward)."""
    _check_reduction(reduction, where)
    _check_same_shape(input, target, where)
    z = (input - target).abs()
    zq = z.clamp(max=knee)
    if beta is None:
        quadratic, linear = 0.5 * zq * zq, knee * (z - 0.5 * knee)
    else:
        quadratic, linear = 0.5 * zq * zq / beta, z - 0.5 * beta
    return _reduce(quadratic.where(z < knee, linear), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """PyTorch's ``huber_loss``: with ``z = |input - target|``, elementwise
    ``0.5 * z * z`` where ``z < delta`` and ``delta * (z - 0.5 * delta)`` elsewhere,
    then the mean (or sum).

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape (no broadcasting), on its device.
    reduction : {'mean', 'sum', 'none'}, optional
        How the elementwise losses are combined (default 'mean').
    delta : float, optional
        Where the quadratic piece turns linear, > 0 (default 1.0).

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, or delta not a number.
    ValueError
        For an unknown reduction, shapes that differ, or delta <= 0.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.huber_loss(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([0.5, 3.]),
    ...              reduction='none')
    tensor([0.1250, 2.5000])
    """
    delta = _positive(delta, "delta", "huber_loss()", zero_ok=False)
    return _piecewise(input, target, reduction, delta, "huber_loss()", None)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """PyTorch's ``smooth_l1_loss``: with ``z = |input - target|``, elementwise
    ``0.5 * z * z / beta`` where ``z < beta`` and ``z - 0.5 * beta`` elsewhere, then the
    mean (or sum); ``beta = 0`` gives l1_loss, as in PyTorch.  It is
    ``huber_loss(delta=beta) / beta``.

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape (no broadcasting), on its device.
    reduction : {'mean', 'sum', 'none'}, optional
        How the elementwise losses are combined (default 'mean').
    beta : float, optional
        Where the quadratic piece turns linear, >= 0 (default 1.0).

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, or beta not a number.
    ValueError
        For an unknown reduction, shapes that differ, or beta < 0.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.smooth_l1_loss(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([0.5, 3.]),
    ...                  reduction='none', beta=2.0)
    tensor([0.0625, 2.0000])
    """
    beta = _positive(beta, "beta", "smooth_l1_loss()", zero_ok=True)
    if beta == 0.0:
        _check_reduction(reduction, "smooth_l1_loss()")
        _check_same_shape(input, target, "smooth_l1_loss()")
        return _reduce((input - target).abs(), reduction)
    return _piecewise(input, target, reduction, beta, "smooth_l1_loss()", beta)


def nll_loss(input, target, weight=None, *, ignore_index=-100, reduction="mean"):
    """PyTorch's ``nll_loss`` for class indices: the mean (or sum) over samples of
    ``-weight[target[i]] * input[i, target[i]]``, where input holds log-probabilities
    (log_softmax's output); ``nll_loss(log_softmax(x, 1), y)`` is
    ``cross_entropy(x, y)``.  Samples whose target is ignore_index contribute nothing
    and are not counted; the mean divides by the sum of the weights of the targets not
    ignored (the count without weights), so it is NaN when every target is ignored,
    as in PyTorch.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` floating-point log-probabilities.
    target : Tensor
        ``(N,)`` int64 or int32 class indices in ``[0, C)`` or ignore_index (checked
        on the CPU).
    weight : Tensor, optional
        ``(C,)`` class weights, on input's device.
    ignore_index : int, optional
        The target that marks a sample to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); keyword only, since
        PyTorch's third argument is weight.

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, or target is not integer.
    ValueError
        For an unknown reduction, or shapes that do not match.
    IndexError
        When a class is out of range, on the CPU.  On a GPU the classes are not read
        back to be checked: an out-of-range class gives NaN as its sample's loss and
        gradient (Note [unchecked classes]).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> log_p = pydevtensor.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, 1]))
    tensor(0.3750)
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, -100]))
    tensor(0.5000)
    >>> F.nll_loss(log_p, pydevtensor.tensor([0, 1]), pydevtensor.tensor([1., 3.]))
    tensor(0.3125)
    """
    where = "nll_loss()"
    rows = _L.as_rows(input, target, where)
    if rows is not None:  # (C,) or (N, C, d1, ...): as (N', C) rows
        out = nll_loss(rows[0], rows[1], weight, ignore_index=ignore_index,
                       reduction=reduction)
        return out.reshape(rows[2]) if reduction == "none" else out
    weight, ignore_index = _class_options(input, target, weight, ignore_index, reduction,
                                          where, "log-probabilities")
    if weight is None and not _any_ignored(target, ignore_index):
        return _reduce(_picked(input, target).neg(), reduction)
    return _L._class_loss(input, target, weight, ignore_index, reduction, 0.0)


def _class_options(input, target, weight, ignore_index, reduction, where, what="logits"):
    """The checks of nll_loss and cross_entropy: (weight, ignore_index)."""
    _check_reduction(reduction, where)
    _check_logits(input, target, where, what)
    weight = _L._check_weight(weight, input, where, length=input.shape[1])
    ignore_index = _L._check_ignore_index(ignore_index, where)
    _check_target(target, input, where, ignore_index)
    return weight, ignore_index


def _any_ignored(target, ignore_index):
    """Whether a target is ignore_index: read on the CPU, where it is free; elsewhere
    (a copy to the host) assumed, so the ignoring path, which reads nothing, runs."""
    if target.device.type != "cpu":
        return True
    return target.numel() > 0 and bool((target == ignore_index).any())


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """PyTorch's ``leaky_relu``: x where x > 0, ``negative_slope * x`` elsewhere,
    elementwise; its gradient is 1 where x > 0 and negative_slope elsewhere (at 0 too,
    as PyTorch's).

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    negative_slope : float, optional
        The slope below 0 (default 0.01).
    inplace : bool, optional
        Writes the result into input and returns it (default False); under autograd the
        gradient flows through it to input's earlier value, as in PyTorch.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or negative_slope not a number.
    RuntimeError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.leaky_relu(pydevtensor.tensor([-2., 0., 3.]), 0.1)
    tensor([-0.2000,  0.0000,  3.0000])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"leaky_relu(): input must be a Tensor, got {type(input).__name__}")
    if isinstance(negative_slope, bool) or not isinstance(negative_slope, (int, float)):
        raise TypeError(f"leaky_relu(): negative_slope must be a number, got "
                        f"{type(negative_slope).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"leaky_relu(): expected a floating point tensor, got "
                           f"{input.dtype} on {input.device}")
    return _act._result(input, lambda x: x.where(x > 0, x * negative_slope), inplace)


@numpy_names
def log_softmax(input, dim=-1):
    """input - max - log(sum(exp(input - max))) along dim: exp never overflows."""
    return _stats.log_softmax(input, dim)


@numpy_names
def softmax(input, dim=-1):
    return _stats.softmax(input, dim)


def one_hot_like(target, logits):
    """(N,) integer classes -> (N, C) 0/1 in logits' dtype, on target's device: compares
    arange(C) with the targets (there is no gather).  Classes are checked to lie in
    [0, C) on the CPU, where reading them is free; on a GPU that check would be a
    device-to-host copy, so an out-of-range class there gives a row of zeros."""
    _check_target(target, logits)
    n, c = logits.shape
    return _one_hot(target, c, logits.dtype)


def _check_target(target, logits, where="cross_entropy()", ignore_index=None):
    n, c = logits.shape
    if target.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"{where}: target must hold integer class indices (int64 or "
                        f"int32), got {target.dtype}")
    if tuple(target.shape) != (n,):
        raise ValueError(f"{where}: target of shape {tuple(target.shape)} does not "
                         f"match input of shape {(n, c)}: expected ({n},)")
    if target.device != logits.device:
        raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                             f"target is on {target.device} and input on {logits.device}; "
                             f"move one with .to(), no copy is made for you")
    if target.device.type == "cpu" and n > 0:
        if ignore_index is not None:  # ignored targets may lie outside [0, c)
            target = target.masked_fill(target == ignore_index, 0)
        bad = _out_of_range(target, c)
        if bad is not None:
            raise IndexError(f"{where}: target {bad} is out of bounds for {c} classes")


def _out_of_range(target, c):
    """The smallest class below 0, else the largest at or above c, of a non-empty CPU
    tensor of integer classes; None when every class lies in [0, c)."""
    if target.dtype == _C.int64:
        try:  # one pass, in C; it raises without naming the value, so look again below
            _C._index_check(target.contiguous(), c, 1, "classes", False)
            return None
        except IndexError:
            pass
    lo, hi = int(target.min().item()), int(target.max().item())
    return lo if lo < 0 else hi if hi >= c else None


def _one_hot(target, c, dtype):
    """(*) integer classes -> (*, c) 0/1 in dtype, on target's device: compares arange(c)
    with the classes (a class outside [0, c) gives a row of zeros)."""
    classes = _C.arange(c, dtype=target.dtype, device=target.device)
    return (classes == target.unsqueeze(-1)).to(dtype)


def one_hot(tensor: _C.Tensor, num_classes: int = -1) -> _C.Tensor:
    """PyTorch's ``one_hot``: integer classes of any shape ``(*)`` -> int64 ``(*, C)``, 1
    at each class and 0 elsewhere, on the classes' device.

    C is num_classes, or the largest class + 1 when num_classes is -1 (reading the
    largest class is a device-to-host copy on a GPU, as in PyTorch).  Classes outside
    [0, C) are an error on the CPU, where reading them is free, and when C is inferred;
    on a GPU with num_classes given they are not read (that would be a copy to the
    host, which PyTorch avoids too) and give a row of zeros.

    Parameters
    ----------
    tensor : Tensor
        Class indices, int64 or int32.
    num_classes : int, optional
        The number of classes C (default -1: the largest class + 1).

    Returns
    -------
    Tensor
        int64, of shape ``tensor.shape + (C,)``.

    Raises
    ------
    TypeError
        When tensor is not an integer Tensor, or num_classes not an int.
    ValueError
        When num_classes is below -1, or is -1 and tensor is empty.
    RuntimeError
        When a class is negative or at least num_classes (naming it).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.one_hot(pydevtensor.tensor([0, 2, 1]))
    tensor([[1, 0, 0],
            [0, 0, 1],
            [0, 1, 0]])
    >>> F.one_hot(pydevtensor.tensor([1]), num_classes=4)
    tensor([[0, 1, 0, 0]])
    """
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"one_hot(): tensor must be a Tensor, got {type(tensor).__name__}")
    if tensor.dtype not in (_C.int64, _C.int32):
        raise TypeError(f"one_hot(): tensor must hold integer class indices (int64 or int32), "
                        f"got {tensor.dtype} on {tensor.device}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"one_hot(): num_classes must be an int, got "
                        f"{type(num_classes).__name__}")
    if num_classes < -1:
        raise ValueError(f"one_hot(): num_classes must be -1 (inferred) or >= 0, got "
                         f"{num_classes}")
    shape = tuple(tensor.shape)
    if tensor.numel() == 0:
        if num_classes == -1:
            raise ValueError(f"one_hot(): cannot infer the number of classes from an empty "
                             f"tensor of shape {shape} on {tensor.device}; pass num_classes")
        return _C.zeros(shape + (num_classes,), dtype=_C.int64, device=tensor.device)
    if num_classes == -1:  # one copy of (min, max) to the host wherever the classes are
        lo, hi = _stack([tensor.min(), tensor.max()]).cpu().tolist()
        num_classes = hi + 1
        bad = lo if lo < 0 else None
    elif tensor.device.type == "cpu":
        bad = _out_of_range(tensor, num_classes)
    else:
        bad = None
    if bad is not None:
        raise RuntimeError(f"one_hot(): class {bad} is out of range for num_classes="
                           f"{num_classes} (classes must lie in [0, {num_classes})), in a "
                           f"tensor of shape {shape} on {tensor.device}")
    return _one_hot(tensor, num_classes, _C.int64)


def _check_logits(input, target, where="cross_entropy()", what="logits"):
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if input.ndim != 2:
        raise ValueError(f"{where}: input must be (N, C) {what}, got shape "
                         f"{tuple(input.shape)} on {input.device}")


def _label_smoothing(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"cross_entropy(): label_smoothing must be a float, got "
                        f"{type(value).__name__}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0, "
                         f"got {value!r}")
    return float(value)


def cross_entropy(input, target, weight=None, *, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Softmax cross-entropy of ``(N, C)`` logits against ``(N,)`` integer classes,
    PyTorch's ``cross_entropy`` for class indices: the mean (or sum) over samples of
    ``logsumexp(row) - row[target]``, computed after subtracting the row max so that
    exp never overflows.

    A floating-point target of input's shape, ``(N, C)`` or ``(C,)``, holds class
    probabilities (PyTorch's second form): each sample's loss is
    ``-sum_c w[c] * t[c] * log_softmax(row)[c]``, with label smoothing
    ``t = target * (1 - e) + e / C``; the mean divides by N (not by the weights), and
    ignore_index must stay negative.

    With ``label_smoothing = e`` the target is a mixture of the class (weight 1 - e)
    and the uniform distribution over the C classes (weight e), as in PyTorch: each
    sample's loss is ``(1 - e) * -log_p[target] + e / C * -sum(log_p)``, where
    ``log_p = log_softmax(row)``.  Without smoothing (e = 0) and class weights,
    autograd records one node (NllLossBackward0, as PyTorch names it), whose backward
    is softmax - one-hot; otherwise the loss is a composition of log_softmax,
    masked_fill and sums, and autograd goes through those.

    With class weights w and ignore_index, as PyTorch: the first term is nll_loss's
    ``-w[target] * log_p[target]``, the second ``-e / C * sum_c w[c] * log_p[c]``;
    samples whose target is ignore_index contribute to neither, and the mean divides
    both sums by the sum of w[target] over the samples not ignored (their count
    without weights): NaN when every target is ignored.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` floating-point logits.
    target : Tensor
        ``(N,)`` int64 or int32 class indices in ``[0, C)`` or ignore_index (checked
        on the CPU); or class probabilities of input's shape and dtype.
    weight : Tensor, optional
        ``(C,)`` class weights, on input's device.
    ignore_index : int, optional
        The target that marks a sample to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); keyword only, since
        PyTorch's third argument is weight.
    label_smoothing : float, optional
        e, in [0, 1] (default 0).

    Returns
    -------
    Tensor
        0-d, or ``(N,)`` with reduction='none', on input's device.

    Raises
    ------
    TypeError
        When input or target is not a Tensor, target is not integer, or
        label_smoothing is not a number.
    ValueError
        For an unknown reduction, shapes that do not match, or a label_smoothing
        outside [0, 1].
    IndexError
        When a class is out of range, on the CPU.  On a GPU the classes are not read
        back to be checked: an out-of-range class gives NaN as its sample's loss and
        gradient (Note [unchecked classes]).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> logits = pydevtensor.tensor([[2., 0.], [0., 2.]])
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]), label_smoothing=0.2)
    tensor(0.3269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, -100]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([0, 1]), pydevtensor.tensor([1., 0.]))
    tensor(0.1269)
    >>> F.cross_entropy(logits, pydevtensor.tensor([[1., 0.], [0.5, 0.5]]))
    tensor(0.6269)
    """
    e = _label_smoothing(label_smoothing)
    rows = _L.as_rows(input, target, "cross_entropy()")
    if rows is not None:  # (C,) or (N, C, d1, ...): as (N', C) rows
        out = cross_entropy(rows[0], rows[1], weight, ignore_index=ignore_index,
                            reduction=reduction, label_smoothing=label_smoothing)
        return out.reshape(rows[2]) if reduction == "none" else out
    if isinstance(input, _C.Tensor) and isinstance(target, _C.Tensor) and \
            target.is_floating_point() and target.ndim == input.ndim:  # class probabilities
        return _L.soft_cross_entropy(input, target, weight,
                                     _L._check_ignore_index(ignore_index, "cross_entropy()"),
                                     reduction, e, _stats.log_softmax)
    weight, ignore_index = _class_options(input, target, weight, ignore_index, reduction,
                                          "cross_entropy()")
    if weight is not None or _any_ignored(target, ignore_index):
        if weight is None and e == 0.0:  # one node, which ignores without reading
            return _cross_entropy(input, target, reduction, ignore_index)
        return _L._class_loss(_stats.log_softmax(input, 1), target, weight, ignore_index,
                              reduction, e)
    if e == 0.0:
        return _cross_entropy(input, target, reduction)
    n, c = input.shape
    log_p = _stats.log_softmax(input, 1)
    per_sample = _picked(log_p, target).neg().mul(1.0 - e) + log_p.sum(1).mul(-e / c)
    return _reduce(per_sample, reduction)


def _picked(input, target):
    """(N,) input[i, target[i]] of (N, C) input: the other classes masked to 0 (a product
    with a one-hot would make -inf * 0 = NaN of a masked class), then a sum per row."""
    n, c = input.shape
    others = _C.arange(c, dtype=target.dtype, device=target.device) != target.reshape(n, 1)
    if target.device.type == "cpu":
        return input.masked_fill(others, 0.0).sum(1)
    unmatched = others.all(1)  # Note [unchecked classes]
    picked = input.masked_fill(others.logical_and(unmatched.logical_not().reshape(n, 1)), 0.0)
    return _L.nan_where(picked.sum(1), unmatched)


@recorded("cross_entropy")
def _cross_entropy(input, target, reduction="mean", ignore_index=None):
    """cross_entropy without label smoothing and class weights, recorded for autograd
    as one node; with ignore_index, the samples whose target it is are masked out (the
    mean over those left: their count is a tensor, nothing is read back)."""
    _check_reduction(reduction, "cross_entropy()")
    _check_logits(input, target)
    _check_target(target, input, ignore_index=ignore_index)
    n, c = input.shape
    if ignore_index is not None:
        ignored = target == ignore_index
        shifted = input - input.amax(1, keepdim=True)
        per = shifted.exp().sum(1).log() - _picked(shifted, target.masked_fill(ignored, 0))
        per = per.masked_fill(ignored, 0.0)
        if reduction == "mean":
            return per.sum() / ignored.logical_not().sum().to(per.dtype)
        return _reduce(per, reduction)
    if target.device.type == "cpu":  # where the classes have been checked
        log_p = _C._softmax_rows(input, True)
        if log_p is not None:
            # each sample's log-probability of its class, read at n * c-apart offsets:
            # -((x_t - max) - log s), the same bits as log s - (x_t - max) below
            at = target.to(_C.int64) + _C.arange(0, n * c, c, dtype=_C.int64,
                                                 device=target.device)
            picked = _C.empty((n,), dtype=log_p.dtype, device=log_p.device)
            _C._index_select(picked, log_p.reshape(n * c), 0, at)
            return _reduce(picked.neg_(), reduction)
    shifted = input - input.amax(1, keepdim=True)
    s = shifted.exp().sum(1)
    # the target's shifted logit; a -inf one gives an inf loss
    return _reduce(s.log() - _picked(shifted, target), reduction)


@derivative("cross_entropy")
class NllLossBackward0(Node):
    """cross_entropy's gradient for the logits: (softmax(input) - one-hot(target)) times
    the incoming gradient (over N for the mean, per sample for reduction='none'); the
    softmax is recomputed from the saved logits."""

    def save(self, out, input, target, reduction="mean", ignore_index=None):
        self.save_tensors(input, target)
        self.reduction = reduction
        self.ignore_index = ignore_index
        return (input,)

    def backward(self, g):
        input, target = self.saved_tensors
        n, c = input.shape
        d = _stats.softmax(input.detach(), 1)  # the row kernel where the device has it
        one_hot = _one_hot(target, c, input.dtype)
        d.sub_(one_hot)  # d is this function's own
        if target.device.type != "cpu":  # Note [unchecked classes]
            unmatched = one_hot.sum(1) == 0
            if self.ignore_index is not None:
                unmatched = unmatched.logical_and(target != self.ignore_index)
            d.masked_fill_(unmatched.reshape(n, 1), float("nan"))
        count = n
        if self.ignore_index is not None:  # the ignored samples' rows are 0
            ignored = target == self.ignore_index
            d.masked_fill_(ignored.reshape(n, 1), 0.0)
            # at least 1: every sample ignored gives zeros (d's rows are), not 0 / 0, as
            # PyTorch's (the loss itself is NaN)
            count = ignored.logical_not().sum().clamp(min=1).to(input.dtype)
        if self.reduction == "none":
            return (d.mul_(g.reshape(n, 1)),)
        return (d.mul_(g / count if self.reduction == "mean" else g),)
