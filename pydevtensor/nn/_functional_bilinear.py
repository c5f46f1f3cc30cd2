"""PyTorch's ``bilinear``: ``y = x1^T A x2 + b`` for each pair of rows, as one matrix
product and a sum (re-exported by nn.functional; the layer is nn/bilinear.py).

x1 (B, in1) times A rearranged to (in1, out * in2) gives (B, out, in2); multiplied by
x2 (B, 1, in2) and summed over in2 it is (B, out).  autograd records the pieces."""
from __future__ import annotations

from .. import _C

_Invalid = _C.InvalidArgumentError


def bilinear(input1, input2, weight, bias=None):
    """PyTorch's ``bilinear``: ``y[..., o] = sum_ij x1[..., i] A[o, i, j] x2[..., j] +
    b[o]``.

    Parameters
    ----------
    input1 : Tensor
        ``(*, in1_features)``, floating point.
    input2 : Tensor
        ``(*, in2_features)``, the same leading dimensions.
    weight : Tensor
        ``(out_features, in1_features, in2_features)``.
    bias : Tensor, optional
        ``(out_features,)``.

    Returns
    -------
    Tensor
        ``(*, out_features)``.

    Raises
    ------
    TypeError
        When an argument is not a Tensor.
    ValueError
        When the shapes do not fit (an InvalidArgumentError, also a RuntimeError as
        PyTorch's); the message names them and the device.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> w = pydevtensor.ones(1, 2, 3)
    >>> F.bilinear(pydevtensor.tensor([[1., 2.]]), pydevtensor.tensor([[1., 1., 1.]]), w)
    tensor([[9.]])
    """
    where = "bilinear()"
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    if bias is not None and not isinstance(bias, _C.Tensor):
        raise TypeError(f"{where}: bias must be a Tensor or None, got {type(bias).__name__}")
    shapes = (f"input1 {tuple(input1.shape)}, input2 {tuple(input2.shape)}, weight "
              f"{tuple(weight.shape)}" + ("" if bias is None else f", bias {tuple(bias.shape)}")
              + f" (on {input1.device})")
    if weight.ndim != 3:
        raise _Invalid(f"{where}: weight must be three-dimensional (out_features, "
                       f"in1_features, in2_features); got {shapes}")
    out, in1, in2 = weight.shape
    if input1.ndim == 0 or input2.ndim == 0 or input1.shape[:-1] != input2.shape[:-1]:
        raise _Invalid(f"{where}: the inputs' batch dimensions do not match; got {shapes}")
    if input1.shape[-1] != in1 or input2.shape[-1] != in2:
        raise _Invalid(f"{where}: the inputs' last dimensions must be the weight's "
                       f"({in1} and {in2}); got {shapes}")
    if bias is not None and tuple(bias.shape) != (out,):
        raise _Invalid(f"{where}: bias must be ({out},); got {shapes}")
    lead = tuple(input1.shape[:-1])
    rows = 1
    for s in lead:
        rows *= s
    x1, x2 = input1.reshape(rows, in1), input2.reshape(rows, in2)
    a = weight.permute(1, 0, 2).reshape(in1, out * in2)  # (in1, out * in2)
    t = _C.matmul(x1, a).reshape(rows, out, in2)
    y = (t * x2.reshape(rows, 1, in2)).sum(2)  # (rows, out)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, out)
