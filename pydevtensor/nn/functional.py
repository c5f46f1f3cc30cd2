"""nn.functional: the layers' computations as functions."""
from .. import _C
from .._numpy_names import numpy_names
from .. import _ops_stats as _stats
from .._ops_join import stack as _stack
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node

_Tensor, _mm, _addmm = _C.Tensor, _C.matmul, _C.addmm


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
        raise ValueError(f"linear(): input of shape {tuple(input.shape)} does not match weight "
                         f"of shape {tuple(weight.shape)}: the last dimension of the input must "
                         f"be in_features = {in_features}")
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


def relu(input):
    return _C.relu(input)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def _dropout_p(p):
    """p, when it is a probability (nn.Dropout checks it when made, dropout when called)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
    return p


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
                         f"{tuple(target.shape)} differ (no broadcasting here: it is almost "
                         f"always a mistake, e.g. (N, 1) against (N,))")


def mse_loss(input, target, reduction="mean"):
    """mean (or sum) of (input - target) ** 2; input and target of one shape."""
    _check_reduction(reduction, "mse_loss()")
    _check_same_shape(input, target, "mse_loss()")
    diff = input - target
    if diff.requires_grad:  # recorded: the square as its own op
        return _reduce(diff * diff, reduction)
    return _reduce(diff.mul_(diff), reduction)  # diff is this function's own: no new temporary


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


def _check_target(target, logits):
    n, c = logits.shape
    if target.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"cross_entropy(): target must hold integer class indices (int64 or "
                        f"int32), got {target.dtype}")
    if tuple(target.shape) != (n,):
        raise ValueError(f"cross_entropy(): target of shape {tuple(target.shape)} does not "
                         f"match input of shape {(n, c)}: expected ({n},)")
    if target.device.type == "cpu" and n > 0:
        bad = _out_of_range(target, c)
        if bad is not None:
            raise IndexError(f"cross_entropy(): target {bad} is out of bounds for {c} classes")


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


def _check_logits(input, target):
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"cross_entropy(): input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if input.ndim != 2:
        raise ValueError(f"cross_entropy(): input must be (N, C) logits, got shape "
                         f"{tuple(input.shape)}")


@recorded("cross_entropy")
def cross_entropy(input, target, reduction="mean"):
    """Softmax cross-entropy of (N, C) logits against (N,) integer classes: the mean (or
    sum) over samples of logsumexp(row) - row[target], computed after subtracting the row
    max so that exp never overflows.  Recorded for autograd as one node
    (NllLossBackward0, as PyTorch names it), whose backward is softmax - one-hot."""
    _check_reduction(reduction, "cross_entropy()")
    _check_logits(input, target)
    _check_target(target, input)
    n, c = input.shape
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
    s = shifted.exp().sum(1, keepdim=True)
    # the target's shifted logit: the others masked to 0 (a product with a one-hot
    # would make -inf * 0 = NaN of a masked class); a -inf one gives an inf loss
    others = _C.arange(c, dtype=target.dtype, device=target.device) != target.reshape(n, 1)
    per_sample = (s.log() - shifted.masked_fill(others, 0.0).sum(1, keepdim=True)).reshape(n)
    return _reduce(per_sample, reduction)


@derivative("cross_entropy")
class NllLossBackward0(Node):
    """cross_entropy's gradient for the logits: (softmax(input) - one-hot(target)) times
    the incoming gradient (over N for the mean, per sample for reduction='none'); the
    softmax is recomputed from the saved logits."""

    def save(self, out, input, target, reduction="mean"):
        self.save_tensors(input, target)
        self.reduction = reduction
        return (input,)

    def backward(self, g):
        input, target = self.saved_tensors
        n, c = input.shape
        d = _stats.softmax(input.detach(), 1)  # the row kernel where the device has it
        d.sub_(_one_hot(target, c, input.dtype))  # d is this function's own
        if self.reduction == "none":
            return (d.mul_(g.reshape(n, 1)),)
        return (d.mul_(g / n if self.reduction == "mean" else g),)
