"""LocalResponseNorm (AlexNet, D2L 8.1), CrossMapLRN2d (Lua Torch's form of it) and
RMSNorm (PyTorch 2.4+): the functions of nn/_functional_norm_more.py as layers with
PyTorch's arguments, parameters and reprs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .. import _C
from . import _functional_norm as FN
from . import _functional_norm_more as FNM
from .module import Module
from .normalization import _check_eps
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class LocalResponseNorm(Module):
    """:func:`~pydevtensor.nn.functional.local_response_norm` as a layer, as
    ``torch.nn.LocalResponseNorm`` (no parameters).

    Parameters
    ----------
    size : int
        The number of neighbouring channels.
    alpha : float, optional
        Default 1e-4.
    beta : float, optional
        Default 0.75.
    k : float, optional
        Default 1.0.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> lrn = nn.LocalResponseNorm(5)
    >>> lrn
    LocalResponseNorm(5, alpha=0.0001, beta=0.75, k=1.0)
    >>> lrn(pydevtensor.ones(1, 96, 55, 55)).shape
    pydevtensor.Size([1, 96, 55, 55])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return FNM.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response normalisation across the channels of (N, C, H, W) images, Lua
    Torch's SpatialCrossMapLRN, as ``torch.nn.CrossMapLRN2d``::

        y[:, c] = x[:, c] * (k + alpha / size * sum(x[:, j] ** 2)) ** -beta

    the sum over the channels j from c - p + 1 to c + p - 1 that exist, where
    ``p = (size - 1) // 2 + 1`` (for an odd size, the size channels centred on c:
    :class:`LocalResponseNorm`'s values; for an even size, size - 1 of them).

    PyTorch's port of it keeps the square of channel 0 in the sum of every channel
    from c = p on (a loop bound off by one), its backward is not the gradient of its
    forward, and size=1 fails in the backward; this layer computes the window above
    (Lua Torch's result), and autograd its gradient.

    Parameters
    ----------
    size : int
        The window's size, >= 1.
    alpha : float, optional
        Default 1e-4.
    beta : float, optional
        Default 0.75.
    k : float, optional
        Default 1.

    Raises
    ------
    TypeError
        At forward, when the input is not a floating point Tensor or a number is not one.
    ValueError
        When size is below 1; at forward, when the input is not 4-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> lrn = nn.CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1.0)
    >>> lrn
    CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1.0)
    >>> lrn(pydevtensor.tensor([1., 1., 1.]).reshape(1, 3, 1, 1)).flatten()
    tensor([0.6000, 0.5000, 0.6000])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1) -> None:
        super().__init__()
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"CrossMapLRN2d: size must be an int, got {type(size).__name__}")
        if size < 1:
            raise ValueError(f"CrossMapLRN2d: size must be >= 1, got {size}")
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return FNM.cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """Divides each sample by the root mean square of its last
    ``len(normalized_shape)`` dimensions, then scales by weight, as
    ``torch.nn.RMSNorm`` (PyTorch 2.4+): no mean is subtracted and there is no bias.

    Parameters
    ----------
    normalized_shape : int or sequence of int
        The trailing shape of the input to normalise over.
    eps : float, optional
        Added to the mean square; None (default) means the machine epsilon of the
        type the mean is taken in.
    elementwise_affine : bool, optional
        Learn weight (ones at first) of shape normalized_shape (default True).
    device : str or pydevtensor.device, optional
        Where the weight lives.
    dtype : pydevtensor.dtype, optional
        Its dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError, ValueError
        When normalized_shape is not one or more ints >= 0, or eps is negative; at
        forward, when the input's trailing shape is not normalized_shape.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> norm = nn.RMSNorm(2)
    >>> norm
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> norm(pydevtensor.tensor([[1., 1.], [3., -3.]]))
    tensor([[ 1.,  1.],
            [ 1., -1.]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: str | device | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__()
        self.normalized_shape = FN._shape_tuple(normalized_shape, "RMSNorm")
        self.eps = None if eps is None else _check_eps(eps, "RMSNorm")
        self.elementwise_affine = bool(elementwise_affine)
        if self.elementwise_affine:
            self.weight = Parameter(_C.ones(self.normalized_shape, device=device,
                                            dtype=_C._get_default_dtype() if dtype is None else dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """Sets the weight back to ones.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> norm = nn.RMSNorm(2)
        >>> _ = norm.weight.data.mul_(3.0)
        >>> norm.reset_parameters()
        >>> norm.weight
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        """
        if self.weight is not None:
            self.weight.data.fill_(1.0)

    def forward(self, input: Tensor) -> Tensor:
        try:
            return FNM.rms_norm(input, self.normalized_shape, self.weight, self.eps)
        except ValueError as e:  # InvalidArgumentError too: the same class, in its words
            raise type(e)(str(e).replace("rms_norm()", "RMSNorm", 1)) from None

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
