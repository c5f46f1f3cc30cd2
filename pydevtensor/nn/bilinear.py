"""nn.Bilinear: ``y = x1^T A x2 + b`` with PyTorch's parameters and initialisation (its
function is F.bilinear, in _functional_bilinear.py)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import _C
from .._args import size as _size
from ._functional_bilinear import bilinear
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class Bilinear(Module):
    """``y = x1^T A x2 + b`` for each pair of rows, as ``torch.nn.Bilinear``: weight A of
    shape (out_features, in1_features, in2_features) and bias b, both drawn from
    U(-1/sqrt(in1_features), 1/sqrt(in1_features)) (the Philox generator: one seed, the
    same layer on every device).

    Parameters
    ----------
    in1_features : int
        The size of the first input's last dimension.
    in2_features : int
        The size of the second input's last dimension.
    out_features : int
        The size of the output's last dimension.
    bias : bool, optional
        Whether to add a learned bias (default True).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When a size is not an int.
    ValueError
        When a size is negative.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layer = nn.Bilinear(2, 3, 4)
    >>> layer
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    >>> layer(pydevtensor.ones(5, 2), pydevtensor.ones(5, 3)).shape
    pydevtensor.Size([5, 4])
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: str | device | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__()
        in1_features, in2_features, out_features = (
            _size(v, "Bilinear", name, 0) for name, v in (
                ("in1_features", in1_features), ("in2_features", in2_features),
                ("out_features", out_features)))
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        dtype = _C._get_default_dtype() if dtype is None else dtype
        self.weight = Parameter(_C.empty(out_features, in1_features, in2_features,
                                         device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws weight, then bias, from U(-1/sqrt(in1_features), 1/sqrt(in1_features)),
        as PyTorch's.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> layer = nn.Bilinear(4, 1, 1)
        >>> layer.reset_parameters()
        >>> bool((layer.weight.abs() <= 0.5).all())
        True
        """
        bound = 1.0 / math.sqrt(self.in1_features) if self.in1_features else 0.0
        self.weight.data.uniform_(-bound, bound)
        if self.bias is not None:
            self.bias.data.uniform_(-bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


__all__ = ["Bilinear"]
