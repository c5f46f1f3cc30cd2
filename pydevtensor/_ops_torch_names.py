"""PyTorch's top-level names for Tensor methods and nn.functional ops: the in-place forms
(``torch.sqrt_(x)`` is ``x.sqrt_()``), ``detach``, ``fill``, ``get_device``, ``typename``,
and the functional ops PyTorch also has at the top level (``torch.conv2d``,
``torch.pixel_shuffle``, ...).

The functional names are nn.functional's own functions, looked up on first use
(``FUNCTIONAL_ALIASES``; pydevtensor's module ``__getattr__``), so that ``import
pydevtensor`` does not import nn (Note [lazy submodules] in __init__.py).
"""
from . import _C
from ._ops_index import _tensor_arg
from ._ops_small_names import _in_place_function

_P = "\n    {} : {}\n        {}"  # one more numpydoc parameter
_OTHER = _P.format("other", "Tensor", "The second operand, broadcast to input's shape.")

# name, example input, example output, more parameters, example's more arguments
_IN_PLACE = [(n, "[0.]", "tensor([0.])", "", "") for n in (
    "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_",
    "erf_", "expm1_", "log1p_", "rad2deg_", "sin_", "sinh_", "tan_")] + [
    (n, "[1.]", "tensor([0.])", "", "") for n in ("acos_", "acosh_", "arccos_", "arccosh_",
                                                  "log_")] + [
    (n, "[0.]", "tensor([1.])", "", "") for n in ("cos_", "cosh_", "erfc_", "i0_", "sinc_")] + [
    ("abs_", "[-1.5]", "tensor([1.5000])", "", ""),
    ("ceil_", "[1.5]", "tensor([2.])", "", ""),
    ("deg2rad_", "[180.]", "tensor([3.1416])", "", ""),
    ("exp2_", "[3.]", "tensor([8.])", "", ""),
    ("fix_", "[-1.5]", "tensor([-1.])", "", ""),
    ("floor_", "[1.5]", "tensor([1.])", "", ""),
    ("frac_", "[1.25]", "tensor([0.2500])", "", ""),
    ("log10_", "[100.]", "tensor([2.])", "", ""),
    ("log2_", "[8.]", "tensor([3.])", "", ""),
    ("logit_", "[0.5]", "tensor([0.])", _P.format("eps", "float, optional",
                                                  "Clamps input to [eps, 1 - eps] first."), ""),
    ("neg_", "[2.]", "tensor([-2.])", "", ""),
    ("negative_", "[2.]", "tensor([-2.])", "", ""),
    ("round_", "[2.5]", "tensor([2.])", _P.format("decimals", "int, optional",
                                                  "Decimal places (default 0)."), ""),
    ("rsqrt_", "[4.]", "tensor([0.5000])", "", ""),
    ("sqrt_", "[4.]", "tensor([2.])", "", ""),
    ("trunc_", "[-1.5]", "tensor([-1.])", "", ""),
    ("reciprocal_", "[4.]", "tensor([0.2500])", "", ""),
    ("square_", "[3.]", "tensor([9.])", "", ""),
    ("zero_", "[3.]", "tensor([0.])", "", ""),
    ("detach_", "[3.]", "tensor([3.])", "", ""),
    ("clamp_", "[-1., 5.]", "tensor([0., 2.])",
     _P.format("min, max", "number or Tensor, optional", "The bounds."), "0., 2."),
    ("clip_", "[-1., 5.]", "tensor([0., 2.])",
     _P.format("min, max", "number or Tensor, optional", "The bounds."), "0., 2."),
    ("fill_", "[1., 2.]", "tensor([7., 7.])",
     _P.format("value", "number or 0-d Tensor", "The value every element becomes."), "7."),
    ("gcd_", "[4, 6]", "tensor([2, 2])", _OTHER, "pydevtensor.tensor([6, 4])"),
    ("lcm_", "[4, 6]", "tensor([12, 12])", _OTHER, "pydevtensor.tensor([6, 4])"),
    ("ldexp_", "[1.]", "tensor([8.])", _OTHER, "pydevtensor.tensor([3])"),
    ("xlogy_", "[0., 2.]", "tensor([0., 0.])", _OTHER, "pydevtensor.tensor([0., 1.])"),
]
for _row in _IN_PLACE:
    globals()[_row[0]] = _in_place_function(*_row)

# nn.functional's functions whose PyTorch top-level form takes the same arguments
FUNCTIONAL_ALIASES = (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "prelu", "hardshrink", "bilinear",
    "pairwise_distance", "avg_pool1d", "adaptive_avg_pool1d", "rms_norm", "layer_norm",
    "group_norm", "selu", "selu_", "celu", "celu_", "rrelu", "rrelu_", "threshold",
    "threshold_", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices")
# PyTorch's top-level forms that are nn.functional's under another name: torch's
# adaptive_max_pool1d always gives (values, indices)
FUNCTIONAL_RENAMED = {"adaptive_max_pool1d": "adaptive_max_pool1d_with_indices"}


def detach(input):
    """``input.detach()``: a tensor sharing input's memory, outside autograd, as PyTorch's
    ``torch.detach``.

    Parameters
    ----------
    input : Tensor
        Any tensor.

    Returns
    -------
    Tensor
        A view of input that does not require grad.

    Examples
    --------
    >>> x = pydevtensor.ones(2, requires_grad=True)
    >>> pydevtensor.detach(x).requires_grad
    False
    """
    return _tensor_arg(input, "detach").detach()


def fill(input, value):
    """A new tensor of input's shape, dtype and device with every element value, as
    PyTorch's ``torch.fill`` (``fill_`` out of place).

    Parameters
    ----------
    input : Tensor
        Gives the shape, dtype and device; left unchanged.
    value : number or 0-d Tensor
        The value.

    Returns
    -------
    Tensor

    Examples
    --------
    >>> pydevtensor.fill(pydevtensor.zeros(2), 3.)
    tensor([3., 3.])
    """
    return _tensor_arg(input, "fill").clone().fill_(value)


def get_device(input):
    """The index of input's CUDA device, -1 for the CPU, as PyTorch's ``torch.get_device``.

    Parameters
    ----------
    input : Tensor
        Any tensor.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.get_device(pydevtensor.ones(1))
    -1
    """
    return _tensor_arg(input, "get_device").get_device()


def typename(obj):
    """The name of obj's type as PyTorch's ``torch.typename`` gives it: a tensor's legacy
    type (``x.type()``), else the module-qualified name (builtins without their module).

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    str

    Examples
    --------
    >>> pydevtensor.typename(pydevtensor.ones(1)), pydevtensor.typename(3)
    ('pydevtensor.FloatTensor', 'int')
    """
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"




def _hardshrink(self, lambd=0.5):
    """nn.functional.hardshrink of self: the elements within [-lambd, lambd] become 0.

    Parameters
    ----------
    lambd : float, optional
        The half-width of the band set to 0 (default 0.5).

    Returns
    -------
    Tensor

    Examples
    --------
    >>> pydevtensor.tensor([0.25, -2.]).hardshrink()
    tensor([ 0., -2.])
    """
    from .nn import functional
    return functional.hardshrink(self, lambd)


def _prelu(self, weight):
    """nn.functional.prelu of self: the negative elements times weight (one value, or
    one per channel of dimension 1).

    Parameters
    ----------
    weight : Tensor
        The slopes.

    Returns
    -------
    Tensor

    Examples
    --------
    >>> pydevtensor.tensor([-2., 3.]).prelu(pydevtensor.tensor([0.5]))
    tensor([-1.,  3.])
    """
    from .nn import functional
    return functional.prelu(self, weight)


_C.Tensor.hardshrink = _hardshrink
_C.Tensor.prelu = _prelu

# (FUNCTIONAL_ALIASES join pydevtensor.__all__ there: they are not this module's)
__all__ = [r[0] for r in _IN_PLACE] + ["detach", "fill", "get_device", "typename"]
