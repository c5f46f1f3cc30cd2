"""nn.functional: the layers' computations as functions."""
import warnings as _warnings

from .. import _C
from ..amp import _state as _amp
from .._numpy_names import numpy_names as _numpy_names
from .. import _ops_stats as _stats
from .. import _args
from .._ops_index import _tensor_arg
from . import _functional_norm as _norm
from ._linear_folded import folded_linear as _folded_linear
from .._ops_join import stack as _stack
from .._ops_shape import broadcast_shapes as _broadcast_shapes
from .._ops_shape import broadcast_tensors as _broadcast_tensors
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
# cross_entropy and nll_loss, and the reduction helpers (_functional_cross_entropy.py)
from . import _functional_cross_entropy as _ce
cross_entropy, nll_loss = _ce.cross_entropy, _ce.nll_loss
_check_reduction, _label_smoothing, _reduce = _ce._check_reduction, _ce._label_smoothing, _ce._reduce
_check_target, _one_hot, _out_of_range = _ce._check_target, _ce._one_hot, _ce._out_of_range
from ._functional_dropout import _all_dropped, _dropout_p, _dropped

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
triplet_margin_with_distance_loss = _LM.triplet_margin_with_distance_loss
from ._functional_ctc import ctc_loss  # noqa: E402
multilabel_margin_loss = _LM.multilabel_margin_loss
multilabel_soft_margin_loss = _LM.multilabel_soft_margin_loss
poisson_nll_loss, gaussian_nll_loss = _LL.poisson_nll_loss, _LL.gaussian_nll_loss
# bilinear and channel_shuffle (_functional_bilinear.py, _functional_reshape.py)
bilinear, channel_shuffle = _bil.bilinear, _reshape.channel_shuffle
# normalisations, embedding and distances (_functional_norm.py)
layer_norm, batch_norm, embedding = _norm.layer_norm, _norm.batch_norm, _norm.embedding
normalize, cosine_similarity = _norm.normalize, _norm.cosine_similarity
pairwise_distance = _norm.pairwise_distance
from .._ops_distance import pdist  # noqa: E402  (torch.pdist, also nn.functional's)
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
lp_pool3d = _poolm.lp_pool3d
adaptive_avg_pool1d, adaptive_max_pool1d = _poolm.adaptive_avg_pool1d, _poolm.adaptive_max_pool1d
lp_pool3d = _poolm.lp_pool3d
max_unpool1d, max_unpool2d, max_unpool3d = (_poolm.max_unpool1d, _poolm.max_unpool2d,
                                            _poolm.max_unpool3d)
# layers2: resampling, pixel shuffle, LRN and RMSNorm
from . import _functional_interpolate as _interp  # noqa: E402
from . import _functional_pixel_shuffle as _shuffle  # noqa: E402
from . import _functional_norm_more as _normm  # noqa: E402
interpolate = _interp.interpolate
from ._functional_grid_sample import affine_grid, grid_sample  # noqa: E402
upsample, upsample_nearest, upsample_bilinear = (_interp.upsample, _interp.upsample_nearest,
                                                 _interp.upsample_bilinear)
pixel_shuffle, pixel_unshuffle = _shuffle.pixel_shuffle, _shuffle.pixel_unshuffle
local_response_norm, rms_norm = _normm.local_response_norm, _normm.rms_norm
# attention (_functional_attention.py)
scaled_dot_product_attention = _attn.scaled_dot_product_attention

from ._functional_mha import multi_head_attention_forward  # noqa: E402
from ._functional_3d import (adaptive_avg_pool3d, adaptive_max_pool3d, avg_pool3d,  # noqa: E402
                             conv3d, conv_transpose3d, max_pool3d)
from ._functional_dropout import dropout3d  # noqa: E402
from ._functional_fractional import (fractional_max_pool2d,  # noqa: E402
                                   fractional_max_pool3d)
from ._functional_alpha_dropout import alpha_dropout, feature_alpha_dropout  # noqa: E402
from .embedding_bag import embedding_bag  # noqa: E402
from ._functional_with_indices import (  # noqa: E402
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices, fractional_max_pool2d_with_indices,
    fractional_max_pool3d_with_indices, max_pool1d_with_indices, max_pool2d_with_indices,
    max_pool3d_with_indices)


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as one GEMM with the bias folded in (addmm: the bias is
    broadcast into the output, then the GEMM accumulates onto it with beta = 1).

    input: (*, in) or (in,); weight: (out, in); bias: (out,) or None.  The weight's
    transpose goes to the BLAS as a flag, not as a copy.
    """
    if _amp._on and _amp._state.active:  # autocast: the check inlined (the hot layer)
        return _linear_autocast(input, weight, bias)
    if type(input) is _Tensor and input.ndim == 2 and getattr(weight, "ndim", 0) == 2:
        # a batch of rows, the common case: the product checks the shapes itself; on a
        # mismatch the path below says it in linear's words
        try:
            return _mm(input, weight.T) if bias is None else _addmm(bias, input, weight.T)
        except (ValueError, RuntimeError, TypeError):
            pass
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"linear(): input must be a Tensor, got {type(input).__name__}")
    _tensor_arg(weight, "linear", "weight")
    if weight.ndim == 1 and input.ndim >= 1 and input.shape[-1] == weight.shape[0]:
        out = _C.matmul(input, weight)  # PyTorch's: one output, the last dim dropped
        return out if bias is None else out + bias
    if weight.ndim != 2:
        raise ValueError(f"linear(): weight must be 2-d (out_features, in_features) or 1-d "
                         f"(in_features), got shape {tuple(weight.shape)}")
    out_features, in_features = weight.shape
    if input.ndim == 0 or input.shape[-1] != in_features:
        raise _C.InvalidArgumentError(
            f"linear(): input of shape {tuple(input.shape)} does not match weight of shape "
            f"{tuple(weight.shape)} on {input.device}: the last dimension of the input must be "
            f"in_features = {in_features}")
    if input.ndim == 2:
        return _C.matmul(input, weight.T) if bias is None else _C.addmm(bias, input, weight.T)
    # PyTorch's at::linear, and its grad_fn names: matmul without a bias (folded into one
    # GEMM), one addmm over the rows of a contiguous input (UnsafeViewBackward0), else
    # matmul plus the bias
    if bias is None:
        return _C.matmul(input, weight.T)
    if input.is_contiguous():
        return _folded_linear(input, weight, bias)
    return _C.matmul(input, weight.T) + bias



_linear_autocast = _amp.lower(linear)  # runs linear with its inputs cast, autocast off
linear._autocast = "lower"  # checks autocast itself: amp/_policy.py leaves it unwrapped

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
        # relu is exact in every dtype: the C op, ReluBackward0 for float16 too
        return _act._result(_tensor_arg(input, "relu"), _C.relu, True, once=False)
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
    p = _dropout_p(p)  # a NumPy scalar as a Python number
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"dropout(): input must be a Tensor, got {type(input).__name__}")
    if not _args.flag(training, "dropout", "training") or p == 0.0 or input.numel() == 0:
        return input  # itself, as PyTorch's
    if p == 1.0:
        return _all_dropped(input, inplace)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"dropout(): expected a floating point tensor, got {input.dtype}")
    return _dropped(input, p, inplace, tuple(input.shape))


def flatten(input, start_dim=1, end_dim=-1):
    return _tensor_arg(input, "flatten").flatten(start_dim, end_dim)


def _check_same_shape(input, target, where, stacklevel=3):
    """input and target, Tensors of one shape; other shapes are broadcast, with
    PyTorch's UserWarning (an (N, 1) input against an (N,) target is almost always a
    mistake), or refused when they do not broadcast."""
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if tuple(input.shape) == tuple(target.shape):
        return
    try:
        _broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except (ValueError, RuntimeError):
        raise _L._Invalid(f"{where}: input of shape {tuple(input.shape)} and target of "
                          f"shape {tuple(target.shape)} differ and do not broadcast, on "
                          f"{input.device}") from None
    _warnings.warn(f"Using a target size ({_size(target)}) that is different to the input size "
                   f"({_size(input)}). This will likely lead to incorrect results due to "
                   f"broadcasting. Please ensure they have the same size.", UserWarning,
                   stacklevel=stacklevel)


def _bool_as_input(target, input):
    """A bool target in input's floating dtype, as the PyTorch kernels of mse_loss,
    huber_loss and smooth_l1_loss promote it (l1_loss's subtraction refuses it there, and
    here); anything else unchanged."""
    if target.dtype == _C.bool and input.is_floating_point():
        return target.to(input.dtype)
    return target


def _size(t):
    return f"pydevtensor.Size({list(t.shape)})"


def _weighted(loss, weight, input, reduction, where, by_weights):
    """loss (elementwise) times weight, of input's shape, reduced: the mean divides by the
    sum of the weights (by_weights, mse_loss's and l1_loss's) or by the count
    (huber_loss's), as PyTorch's."""
    if weight is None:
        return _reduce(loss, reduction)
    weight = _L._check_weight(weight, input, where, convert=True)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{where}: weight of shape {tuple(weight.shape)} and input of shape "
                         f"{tuple(input.shape)} differ, on {input.device}: the weights and "
                         f"the input must have the same size")
    loss = loss * weight
    if reduction == "mean" and by_weights:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mean (or sum) of (input - target) ** 2 (size_average and reduce: PyTorch's deprecated
    arguments, translated into reduction).  A target of another shape is broadcast, with
    PyTorch's warning.  weight (input's shape) multiplies each squared error; the mean
    then divides by the sum of the weights, as PyTorch's."""
    _check_same_shape(input, target, "mse_loss()")
    reduction = _LM._legacy_reduction(size_average, reduce, reduction, "mse_loss()")
    _check_reduction(reduction, "mse_loss()")
    target = _bool_as_input(target, input)
    if weight is not None:
        diff = input - target
        return _weighted(diff * diff, weight, input, reduction, "mse_loss()", True)
    if input.shape != target.shape:  # broadcast first, as PyTorch's (warned above)
        input, target = _broadcast_tensors(input, target)
    return _L.mse(input, target, reduction)  # one node, MseLossBackward0


def _positive(value, name, where, zero_ok):
    """value as a float, when it is a number > 0 (>= 0 with zero_ok)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    if not (value >= 0 if zero_ok else value > 0):
        raise _L._Invalid(f"{where}: {name} must be {'>= 0' if zero_ok else '> 0'}, "
                          f"got {value!r}")
    return float(value)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """PyTorch's ``l1_loss``: the mean (or sum) of ``|input - target|``.

    The gradient at ``input == target`` is 0, as PyTorch's (the sign of 0).

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape, on its device; another shape is broadcast, with PyTorch's warning.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        How the absolute errors are combined (default 'mean').
    weight : Tensor, optional
        input's shape: multiplies each error; the mean then divides by its sum.

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a Tensor.
    ValueError
        For an unknown reduction, shapes that do not broadcast (naming both, and the
        device), or a weight not of input's shape.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.l1_loss(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 5.]))
    tensor(1.5000)
    """
    _check_same_shape(input, target, "l1_loss()")
    reduction = _LM._legacy_reduction(size_average, reduce, reduction, "l1_loss()")
    _check_reduction(reduction, "l1_loss()")
    return _weighted((input - target).abs(), weight, input, reduction, "l1_loss()", True)


def _piecewise(input, target, reduction, knee, where, beta, weight=None):
    """The shared body of huber_loss (beta None) and smooth_l1_loss, PyTorch's formulas
    (_functional_losses.piecewise): with z = |input - target|, below the knee
    ``0.5 * z * z`` (divided by beta), from it on ``knee * (z - 0.5 * knee)``
    (``z - 0.5 * beta``); a NaN takes the quadratic piece, so that its gradient is NaN,
    as PyTorch's (abs's would be 0)."""
    _check_reduction(reduction, where)
    _check_same_shape(input, target, where, stacklevel=4)
    target = _bool_as_input(target, input)
    a, b = _broadcast_tensors(input, target) if input.shape != target.shape else (input, target)
    # one node, HuberLossBackward0 / SmoothL1LossBackward0 (broadcast first, as PyTorch's)
    if weight is None:
        return _L.piecewise(a, b, reduction, knee, beta)
    loss = _L.piecewise(a, b, "none", knee, beta)
    return _weighted(loss, weight, input, reduction, where, False)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """PyTorch's ``huber_loss``: with ``z = |input - target|``, elementwise
    ``0.5 * z * z`` where ``z < delta`` and ``delta * (z - 0.5 * delta)`` elsewhere,
    then the mean (or sum).

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape, on its device; another shape is broadcast, with PyTorch's warning.
    reduction : {'mean', 'sum', 'none'}, optional
        How the elementwise losses are combined (default 'mean').
    delta : float, optional
        Where the quadratic piece turns linear, > 0 (default 1.0).
    weight : Tensor, optional
        input's shape: multiplies each loss; the mean still divides by the count, as
        PyTorch's.

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'; of input's dtype, as PyTorch's (a
        float16 input against a float32 target gives float16).

    Raises
    ------
    TypeError
        When input or target is not a Tensor, or delta not a number.
    ValueError
        For an unknown reduction, shapes that do not broadcast, a weight not of input's
        shape, or delta <= 0.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.huber_loss(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([0.5, 3.]),
    ...              reduction='none')
    tensor([0.1250, 2.5000])
    """
    delta = _positive(delta, "delta", "huber_loss()", zero_ok=False)
    reduction = _L._elementwise_mean(reduction, stacklevel=3)
    return _piecewise(input, target, reduction, delta, "huber_loss()", None, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """PyTorch's ``smooth_l1_loss``: with ``z = |input - target|``, elementwise
    ``0.5 * z * z / beta`` where ``z < beta`` and ``z - 0.5 * beta`` elsewhere, then the
    mean (or sum); ``beta = 0`` gives l1_loss, as in PyTorch.  It is
    ``huber_loss(delta=beta) / beta``.

    Parameters
    ----------
    input : Tensor
        Any shape, floating point.
    target : Tensor
        input's shape, on its device; another shape is broadcast, with PyTorch's warning.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
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
        For an unknown reduction, shapes that do not broadcast, or beta < 0.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.smooth_l1_loss(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([0.5, 3.]),
    ...                  reduction='none', beta=2.0)
    tensor([0.0625, 2.0000])
    """
    reduction = _LM._legacy_reduction(size_average, reduce, reduction, "smooth_l1_loss()")
    beta = _positive(beta, "beta", "smooth_l1_loss()", zero_ok=True)
    if beta == 0.0:
        _check_reduction(reduction, "smooth_l1_loss()")
        _check_same_shape(input, target, "smooth_l1_loss()")
        return _reduce((input - target).abs(), reduction)
    return _piecewise(input, target, reduction, beta, "smooth_l1_loss()", beta)


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
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.leaky_relu(pydevtensor.tensor([-2., 0., 3.]), 0.1)
    tensor([-0.2000,  0.0000,  3.0000])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"leaky_relu(): input must be a Tensor, got {type(input).__name__}")
    negative_slope = _args.plain(negative_slope)
    if isinstance(negative_slope, bool) or not isinstance(negative_slope, (int, float)):
        raise TypeError(f"leaky_relu(): negative_slope must be a number, got "
                        f"{type(negative_slope).__name__}")
    if not input.dtype.is_floating_point:  # NotImplementedError (a RuntimeError), as PyTorch's
        raise NotImplementedError(f"leaky_relu(): expected a floating point tensor, got "
                                  f"{input.dtype} on {input.device}")
    name = "LeakyReluBackward1" if inplace else "LeakyReluBackward0"
    return _act._result(input, lambda x: _act._leaky(x, negative_slope, name), inplace,
                        once=False)


_SOFTMAX_DOC = """{what} along dim, as PyTorch's ``F.{name}``{how}.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int, optional
        The dimension normalised.  None (deprecated, with PyTorch's warning) chooses 0 for
        0-, 1- and 3-d inputs and 1 otherwise, as PyTorch does: give dim.
    _stacklevel : int, optional
        PyTorch's argument for the warning's stack level.
    dtype : pydevtensor.dtype, optional
        Converts input to it first (PyTorch's way to avoid overflow in a half type).

    Returns
    -------
    Tensor
        Of input's shape (dtype when given).

    Raises
    ------
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.{name}(pydevtensor.tensor([[0., 0.693147]]), dim=1)
    {example}
    """


def _softmax_input(name, input, dim, stacklevel, dtype):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): input must be a Tensor, got {type(input).__name__}")
    dim = _act2._softmax_dim(name, input, dim, stacklevel, 2)  # + this and _numpy_names
    return (input if dtype is None else input.to(dtype)), dim


@_numpy_names
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    input, dim = _softmax_input("log_softmax", input, dim, _stacklevel, dtype)
    return _stats.log_softmax(input, dim)


@_numpy_names
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    input, dim = _softmax_input("softmax", input, dim, _stacklevel, dtype)
    return _stats.softmax(input, dim)


log_softmax.__doc__ = _SOFTMAX_DOC.format(
    what="input - max - log(sum(exp(input - max)))", name="log_softmax",
    how=": exp never overflows", example="tensor([[-1.0986, -0.4055]])")
softmax.__doc__ = _SOFTMAX_DOC.format(
    what="exp(input - max) / sum(exp(input - max))", name="softmax",
    how=": entries positive, summing to 1", example="tensor([[0.3333, 0.6667]])")


def one_hot_like(target, logits):
    """(N,) integer classes -> (N, C) 0/1 in logits' dtype, on target's device: compares
    arange(C) with the targets (there is no gather).  Classes are checked to lie in
    [0, C) on the CPU, where reading them is free; on a GPU that check would be a
    device-to-host copy, so an out-of-range class there gives a row of zeros."""
    _tensor_arg(target, "one_hot_like", "target")
    _tensor_arg(logits, "one_hot_like", "logits")
    _check_target(target, logits, "one_hot_like()")
    n, c = logits.shape
    return _one_hot(target, c, logits.dtype)


def one_hot(input: _C.Tensor, num_classes: int = -1) -> _C.Tensor:
    """PyTorch's ``one_hot``: integer classes of any shape ``(*)`` -> int64 ``(*, C)``, 1
    at each class and 0 elsewhere, on the classes' device.

    C is num_classes, or the largest class + 1 when num_classes is -1 (reading the
    largest class is a device-to-host copy on a GPU, as in PyTorch).  Classes outside
    [0, C) are an error on the CPU, where reading them is free, and when C is inferred;
    on a GPU with num_classes given they are not read (that would be a copy to the
    host, which PyTorch avoids too) and give a row of zeros.

    Parameters
    ----------
    input : Tensor
        Class indices, int64 or int32.
    num_classes : int, optional
        The number of classes C (default -1: the largest class + 1).

    Returns
    -------
    Tensor
        int64, of shape ``input.shape + (C,)``.

    Raises
    ------
    TypeError
        When input is not an integer Tensor, or num_classes not an int.
    ValueError
        When num_classes is below -1, or is -1 and input is empty (an
        InvalidArgumentError, also a RuntimeError as PyTorch's).
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
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"one_hot(): input must be a Tensor, got {type(input).__name__}")
    if input.dtype not in (_C.int64, _C.int32):
        raise _C.DTypeError(f"one_hot(): input must hold integer class indices (int64 or int32), "
                            f"got {input.dtype} on {input.device}")
    num_classes = _args.size(num_classes, "one_hot()", "num_classes")  # NumPy's too
    if num_classes < -1:
        raise _C.InvalidArgumentError(f"one_hot(): num_classes must be -1 (inferred) or >= 0, "
                                      f"got {num_classes}")
    shape = tuple(input.shape)
    if input.numel() == 0:
        if num_classes == -1:
            raise _C.InvalidArgumentError(
                f"one_hot(): cannot infer the number of classes from an empty tensor of shape "
                f"{shape} on {input.device}; pass num_classes")
        return _C.zeros(shape + (num_classes,), dtype=_C.int64, device=input.device)
    if num_classes == -1:  # one copy of (min, max) to the host wherever the classes are
        lo, hi = _C._implicit_cpu(_stack([input.min(), input.max()]), "one_hot()").tolist()
        num_classes = hi + 1
        bad = lo if lo < 0 else None
    elif input.device.type == "cpu":
        bad = _out_of_range(input, num_classes)
    else:
        bad = None
    if bad is not None:
        raise RuntimeError(f"one_hot(): class {bad} is out of range for num_classes="
                           f"{num_classes} (classes must lie in [0, {num_classes})), in a "
                           f"tensor of shape {shape} on {input.device}")
    return _one_hot(input, num_classes, _C.int64)



def _in_place_form(fn, name, example):
    def in_place(input, *args, **kwargs):
        return fn(_tensor_arg(input, name), *args, inplace=True, **kwargs)

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"""``{fn.__name__}(input, ..., inplace=True)``: input is overwritten and
    returned, as PyTorch's ``F.{name}``.

    Parameters
    ----------
    input : Tensor
        Floating point.
    *args
        As {fn.__name__}'s.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.{name}(pydevtensor.tensor([-1., 2.]))
    {example}
    """
    return in_place


relu_ = _in_place_form(relu, "relu_", "tensor([0., 2.])")
elu_ = _in_place_form(elu, "elu_", "tensor([-0.6321,  2.0000])")
leaky_relu_ = _in_place_form(leaky_relu, "leaky_relu_", "tensor([-0.0100,  2.0000])")
hardtanh_ = _in_place_form(hardtanh, "hardtanh_", "tensor([-1.,  1.])")
celu_ = _in_place_form(celu, "celu_", "tensor([-0.6321,  2.0000])")
selu_ = _in_place_form(selu, "selu_", "tensor([-1.1113,  2.1014])")
rrelu_ = _in_place_form(rrelu, "rrelu_", "tensor([-0.2292,  2.0000])")


def threshold_(input, threshold, value):
    """``threshold(input, threshold, value, inplace=True)``: input is overwritten and
    returned, as PyTorch's ``F.threshold_``.

    Parameters
    ----------
    input : Tensor
        Floating point.
    threshold, value : float
        Elements at most threshold become value.

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.threshold_(pydevtensor.tensor([-1., 2.]), 0.5, 9.)
    tensor([9., 2.])
    """
    return _act2.threshold(input, threshold, value, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax (concrete) distribution, as PyTorch's:
    ``softmax((logits + g) / tau, dim)`` with g = -log(E), E ~ Exp(1) from the package's
    generator; with hard=True the one-hot of its argmax, whose gradient is the soft
    sample's (straight-through: ``y_hard - y_soft.detach() + y_soft``).

    Parameters
    ----------
    logits : Tensor
        Unnormalised log-probabilities, floating point.
    tau : float, optional
        The temperature, > 0 (default 1).
    hard : bool, optional
        Return one-hot samples (default False).
    eps : float, optional
        Unused, as in PyTorch (kept for its signature).
    dim : int, optional
        The dimension of the classes (default -1).

    Returns
    -------
    Tensor
        Of logits' shape and dtype.

    Raises
    ------
    TypeError
        When logits is not a Tensor.
    ValueError
        When tau is not positive.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> y = F.gumbel_softmax(pydevtensor.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist()
    [1.0, 1.0]
    """
    if not isinstance(logits, _C.Tensor):
        raise TypeError(f"gumbel_softmax(): logits must be a Tensor, got "
                        f"{type(logits).__name__}")
    if not _args.real(tau, "gumbel_softmax", "tau") > 0:
        raise ValueError(f"gumbel_softmax(): tau must be positive, got {tau}")
    gumbels = -_C.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
