"""The 1-d pooling layers (MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d),
the power-average pools (LPPool1d, LPPool2d, LPPool3d), MaxUnpool1d/2d/3d and
FractionalMaxPool2d/3d: the functions of
nn/_functional_pool_more.py as modules with PyTorch's arguments and reprs.  Like
PyTorch's, they check their arguments when called, not when made."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _functional_fractional as FF
from . import _functional_pool_more as FPM
from .module import Module
from .pooling import _AdaptiveMaxPoolNd, _AdaptivePoolNd, _MaxPoolNd

if TYPE_CHECKING:
    from .._C import Tensor


def _single(value):
    """PyTorch's _single: an int as a 1-tuple (what AvgPool1d keeps and shows)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class MaxPool1d(_MaxPoolNd):
    """:func:`~pydevtensor.nn.functional.max_pool1d` as a layer, as
    ``torch.nn.MaxPool1d``.

    Parameters
    ----------
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        Default: kernel_size.
    padding : int or tuple of 1 int, optional
        -inf added on both ends, at most half the kernel (default 0).
    dilation : int or tuple of 1 int, optional
        Default 1.
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    ceil_mode : bool, optional
        Round the output length up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.MaxPool1d(3, stride=2)
    >>> pool
    MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> pool(pydevtensor.ones(4, 8, 50)).shape
    pydevtensor.Size([4, 8, 24])
    """

    _pool = staticmethod(FPM.max_pool1d)


class AvgPool1d(Module):
    """:func:`~pydevtensor.nn.functional.avg_pool1d` as a layer, as
    ``torch.nn.AvgPool1d`` (which keeps its sizes as 1-tuples).

    Parameters
    ----------
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        Default: kernel_size.
    padding : int or tuple of 1 int, optional
        Zeros added on both ends, at most half the kernel (default 0).
    ceil_mode : bool, optional
        Round the output length up (default False).
    count_include_pad : bool, optional
        Count the padding in each window's divisor (default True).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AvgPool1d(2)
    >>> pool
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    >>> pool(pydevtensor.tensor([[[1., 3., 2., 6.]]]))
    tensor([[[2., 4.]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return FPM.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_avg_pool1d` as a layer, as
    ``torch.nn.AdaptiveAvgPool1d``.

    Parameters
    ----------
    output_size : int or tuple of 1 int
        L_out.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AdaptiveAvgPool1d(1)
    >>> pool
    AdaptiveAvgPool1d(output_size=1)
    >>> pool(pydevtensor.tensor([[1., 2., 6.]]))
    tensor([[3.]])
    """

    _pool = staticmethod(FPM.adaptive_avg_pool1d)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """:func:`~pydevtensor.nn.functional.adaptive_max_pool1d` as a layer, as
    ``torch.nn.AdaptiveMaxPool1d``.

    Parameters
    ----------
    output_size : int or tuple of 1 int
        L_out.
    return_indices : bool, optional
        Also return the indices of the maxima (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.AdaptiveMaxPool1d(2)
    >>> pool
    AdaptiveMaxPool1d(output_size=2)
    >>> pool(pydevtensor.tensor([[1., 5., 2., 6., 3.]]))
    tensor([[5., 6.]])
    """

    _pool = staticmethod(FPM.adaptive_max_pool1d)


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        if not isinstance(norm_type, str) and norm_type == 0:  # PyTorch's check, here
            raise ValueError(f"{type(self).__name__}: norm_type must be a non-zero value, "
                             f"but got {norm_type}")
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.norm_type, self.kernel_size, self.stride,
                                self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """:func:`~pydevtensor.nn.functional.lp_pool1d` as a layer, as
    ``torch.nn.LPPool1d``: each window's p-norm.

    Parameters
    ----------
    norm_type : float
        p, non-zero.
    kernel_size : int or tuple of 1 int
        The window's length.
    stride : int or tuple of 1 int, optional
        Default: kernel_size.
    ceil_mode : bool, optional
        Round the output length up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.LPPool1d(2, 2)
    >>> pool
    LPPool1d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)
    >>> pool(pydevtensor.tensor([[3., 4., 6., 8.]]))
    tensor([[ 5., 10.]])
    """

    _pool = staticmethod(FPM.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """:func:`~pydevtensor.nn.functional.lp_pool2d` as a layer, as
    ``torch.nn.LPPool2d``: each window's p-norm.

    Parameters
    ----------
    norm_type : float
        p, non-zero.
    kernel_size : int or tuple of 2 ints
        The window's size.
    stride : int or tuple of 2 ints, optional
        Default: kernel_size.
    ceil_mode : bool, optional
        Round the output size up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.LPPool2d(1, (1, 2))
    >>> pool
    LPPool2d(norm_type=1, kernel_size=(1, 2), stride=None, ceil_mode=False)
    >>> pool(pydevtensor.tensor([[[1., 2.], [3., 4.]]]))
    tensor([[[3.],
             [7.]]])
    """

    _pool = staticmethod(FPM.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """:func:`~pydevtensor.nn.functional.lp_pool3d` as a layer, as
    ``torch.nn.LPPool3d``: each window's p-norm.

    Parameters
    ----------
    norm_type : float
        p, non-zero.
    kernel_size : int or tuple of 3 ints
        The window's size.
    stride : int or tuple of 3 ints, optional
        Default: kernel_size.
    ceil_mode : bool, optional
        Round the output size up (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.LPPool3d(1, (1, 1, 2))
    >>> pool
    LPPool3d(norm_type=1, kernel_size=(1, 1, 2), stride=None, ceil_mode=False)
    >>> pool(pydevtensor.arange(8.).reshape(1, 2, 2, 2)).flatten().tolist()
    [1.0, 5.0, 9.0, 13.0]
    """

    _pool = staticmethod(FPM.lp_pool3d)


def _ntuple(value, n: int) -> tuple:
    """PyTorch's _single/_pair/_triple: an int as an n-tuple (what MaxUnpoolNd keeps and
    shows)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _MaxUnpoolNd(Module):
    """The max unpools' base, as ``torch.nn.modules.pooling._MaxUnpoolNd``: the sizes
    kept as tuples of _dims, the function called with them."""

    _dims = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._dims)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _ntuple(padding, self._dims)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return FPM._max_unpool(input, indices, self.kernel_size, self.stride, self.padding,
                               output_size, self._dims, f"max_unpool{self._dims}d()")

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


_UNPOOL_DOC = """:func:`~pydevtensor.nn.functional.max_unpool{n}d` as a layer, as
    ``torch.nn.MaxUnpool{n}d`` (which keeps its sizes as {tuples}).

    Parameters
    ----------
    kernel_size : int or tuple of {ints}
        The pool's window.
    stride : int or tuple of {ints}, optional
        The pool's stride (default: kernel_size).
    padding : int or tuple of {ints}, optional
        The pool's padding (default 0).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> unpool = nn.MaxUnpool{n}d(2)
    >>> unpool
    MaxUnpool{n}d(kernel_size={kernel}, stride={kernel}, padding={padding})
    >>> values, indices = nn.MaxPool{n}d(2, return_indices=True)(pydevtensor.ones({shape}))
    >>> unpool(values, indices).shape
    pydevtensor.Size([{shape}])
    """


def _unpool_doc(n: int, tuples: str, shape: tuple[int, ...]) -> str:
    """MaxUnpool{n}d's docstring: its sizes kept as tuples (their name), an input shape."""
    return _UNPOOL_DOC.format(n=n, tuples=tuples, ints=f"{n} int" + "s" * (n > 1),
                              kernel=(2,) * n, padding=(0,) * n,
                              shape=", ".join(map(str, shape)))


class MaxUnpool1d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(1, "1-tuples", (1, 1, 4))
    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(2, "pairs", (1, 1, 4, 4))
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(3, "triples", (1, 1, 2, 2, 2))
    _dims = 3


class _FractionalMaxPoolNd(Module):
    """The arguments and forward FractionalMaxPool2d and FractionalMaxPool3d share, as
    PyTorch's: one of output_size and output_ratio (each ratio in (0, 1)), checked when
    made; _random_samples is a buffer (absent from the state dict when None); _pool is
    the function."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        name, nd = type(self).__name__, self._nd
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             f"pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return type(self)._pool(input, self.kernel_size, self.output_size, self.output_ratio,
                                self.return_indices, _random_samples=self._random_samples)


# The parameters FractionalMaxPool2d and 3d share, put in place of the line "{params}" of
# their docstrings (up to _random_samples, described by each).
_FRACTIONAL_PARAMS = """    kernel_size : int or tuple of {n} ints
        The window's size.
    output_size : int or tuple of {n} ints, optional
        The output's size.
    output_ratio : float or tuple of {n} floats, optional
        Instead, the output's size as a fraction of the input's, each in (0, 1).
    return_indices : bool, optional
        Also return the flat indices of the maxima (default False).
    _random_samples : Tensor, optional"""


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """:func:`~pydevtensor.nn.functional.fractional_max_pool2d` as a layer, as
    ``torch.nn.FractionalMaxPool2d``.

    Parameters
    ----------
    {params}
        ``(N, C, 2)`` samples kept (a buffer) and used on every call instead of new
        ones.

    Raises
    ------
    ValueError
        When neither or both of output_size and output_ratio are given, or a ratio is
        not in (0, 1).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.FractionalMaxPool2d(3, output_ratio=0.5)
    >>> pool(pydevtensor.ones(2, 4, 10, 12)).shape
    pydevtensor.Size([2, 4, 5, 6])
    """

    _nd = 2
    _pool = staticmethod(FF.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """:func:`~pydevtensor.nn.functional.fractional_max_pool3d` as a layer, as
    ``torch.nn.FractionalMaxPool3d``.

    Parameters
    ----------
    {params}
        ``(N, C, 3)`` samples kept (a buffer) and used on every call.

    Raises
    ------
    ValueError
        As :class:`FractionalMaxPool2d`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pool = nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))
    >>> pool(pydevtensor.ones(2, 4, 5, 6, 7)).shape
    pydevtensor.Size([2, 4, 2, 3, 3])
    """

    _nd = 3
    _pool = staticmethod(FF.fractional_max_pool3d)


for _cls in (FractionalMaxPool2d, FractionalMaxPool3d):
    if _cls.__doc__:  # none under python -OO
        _cls.__doc__ = _cls.__doc__.replace("    {params}",
                                            _FRACTIONAL_PARAMS.format(n=_cls._nd))
