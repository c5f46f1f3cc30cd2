"""nn.functional: the layers' computations as functions."""
from .. import _C


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as one GEMM with the bias folded in (addmm: the bias is
    broadcast into the output, then the GEMM accumulates onto it with beta = 1).

    input: (*, in) or (in,); weight: (out, in); bias: (out,) or None.  The weight's
    transpose goes to the BLAS as a flag, not as a copy.
    """
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


def flatten(input, start_dim=1, end_dim=-1):
    return input.flatten(start_dim, end_dim)
