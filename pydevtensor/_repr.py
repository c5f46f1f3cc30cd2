"""repr() and str() of tensors, in PyTorch's format.

``tensor([[1., 1., 1.],
        [1., 1., 1.]], device='cuda:0')``: the device is left out on the CPU, the
dtype is shown when it is not the default for its kind (get_default_dtype(), float32
at start; int64; bool; an empty tensor shows any dtype but the default float), and
tensors of more than 1000 elements show 3 items at each edge (set_printoptions
changes these numbers, the digits shown and the line width, as PyTorch's does).  Printing a GPU
tensor copies the values shown to the host (the edges alone, gathered on the
device, when the tensor is summarized), and that copy is counted in
transfer_stats() and seen by the transfer guard as implicit
(pydevtensor.transfer_guard).
"""
import math

from . import _C

_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


class _PrintOptions:
    """What set_printoptions sets (PyTorch's PRINT_OPTS): read at every repr."""

    def __init__(self):
        self.__dict__.update(_PROFILES["default"], sci_mode=None)


PRINT_OPTS = _PrintOptions()


def _count_arg(value, name, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise (TypeError if not isinstance(value, int) or isinstance(value, bool)
               else ValueError)(f"set_printoptions(): {name} must be an int >= {low}, got "
                                f"{value!r}")
    return value


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """How tensors print (their repr and str), as PyTorch's set_printoptions: the
    options given change, the others stay (a profile first sets all four numbers);
    sci_mode is set every call (None: chosen from the values, as by default).

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point of floats (default 4).
    threshold : int or float, optional
        Tensors of more elements than this are summarized (default 1000; inf: never).
    edgeitems : int, optional
        Items shown at each edge of a summarized dimension (default 3).
    linewidth : int, optional
        Characters per line before a row wraps (default 80; 1 or less: one item a
        line).
    profile : {'default', 'short', 'full'}, optional
        Sets the four numbers: 'default' (4, 1000, 3, 80), 'short' (2, 1000, 2, 80),
        'full' (4, inf, 3, 80: nothing summarized).  Any other value is ignored, as
        by PyTorch.
    sci_mode : bool, optional
        True: floats always in scientific notation; False: never; None: when the
        values need it (another value counts by its truth, as in PyTorch).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        When precision or edgeitems is negative.
    TypeError
        When precision or edgeitems is not an int, or threshold or linewidth not a
        number.

    Examples
    --------
    >>> pydevtensor.set_printoptions(precision=2)
    >>> pydevtensor.tensor([1.23456, 2.5])
    tensor([1.23, 2.50])
    >>> pydevtensor.set_printoptions(profile='default')
    >>> pydevtensor.tensor([1.23456, 2.5])
    tensor([1.2346, 2.5000])
    """
    new = {}  # checked first, then set together: a bad option changes nothing
    if profile in _PROFILES:  # any other profile is ignored, as by PyTorch
        new.update(_PROFILES[profile])
    if precision is not None:
        new["precision"] = _count_arg(precision, "precision", 0)
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or \
                math.isnan(threshold):
            raise TypeError(f"set_printoptions(): threshold must be a number, got "
                            f"{threshold!r}")
        new["threshold"] = threshold
    if edgeitems is not None:
        new["edgeitems"] = _count_arg(edgeitems, "edgeitems", 0)
    if linewidth is not None:  # any number, as PyTorch's: <= 1 puts one item a line
        if isinstance(linewidth, bool) or not isinstance(linewidth, (int, float)) or \
                not math.isfinite(linewidth):
            raise TypeError(f"set_printoptions(): linewidth must be a finite number, got "
                            f"{linewidth!r}")
        new["linewidth"] = linewidth
    PRINT_OPTS.__dict__.update(new)
    # PyTorch keeps any value and tests its truth
    PRINT_OPTS.sci_mode = None if sci_mode is None else bool(sci_mode)


_DEFAULT_DTYPES = ("int64", "bool")  # and get_default_dtype()


def _summarize(t):
    """The values to show, edgeitems at each end of every long dimension, joined on the
    tensor's own device: only they are copied (to the host next), never the whole tensor
    (an expanded view of 2e9 elements, or a transposed 10000 x 10000, printed at once)."""
    from ._ops_join import cat  # imported late: _ops_join imports the autograd recorder

    edge = PRINT_OPTS.edgeitems
    for axis in range(t.ndim):
        n = t.shape[axis]
        if n > 2 * edge:
            lead = (slice(None),) * axis
            t = cat([t[lead + (slice(0, edge),)], t[lead + (slice(n - edge, n),)]], axis)
    return t


class _Formatter:
    def __init__(self, values, dtype_name):
        import numpy as np

        self.kind = "bool" if dtype_name == "bool" else "int" if "int" in dtype_name else "float"
        flat = values.reshape(-1)
        self.mode = "plain"
        if self.kind == "float":
            # PyTorch's rules: the mode and the width come from the nonzero finite values
            # alone (nan, inf and zeros, -0.0 too, neither widen the column nor decide)
            finite = flat[np.isfinite(flat)].astype(np.float64)
            nonzero = finite[finite != 0]
            mag = np.abs(nonzero)
            with np.errstate(over="ignore"):  # PyTorch divides (a subnormal min gives inf)
                wide = mag.size and (mag.max() / mag.min() > 1000.0 or mag.max() > 1e8)
            sci = PRINT_OPTS.sci_mode
            if not nonzero.size:  # nothing to decide on: '0.', 'nan', even under sci_mode
                self.mode = "int"
            elif bool(np.all(nonzero == np.round(nonzero))):
                self.mode = "sci" if (wide if sci is None else sci) else "int"
            elif (wide or (mag.size and mag.min() < 1e-4)) if sci is None else sci:
                self.mode = "sci"
            else:
                self.mode = "fixed"
            shown = nonzero
        else:
            shown = flat
        self.width = max((len(self._one(v)) for v in shown.tolist()), default=1)

    def _one(self, v):
        if self.kind == "bool":
            return "True" if v else "False"
        if self.kind == "int":
            return str(int(v))
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if self.mode == "int":
            return f"{v:.0f}."
        if self.mode == "sci":
            return f"{v:.{PRINT_OPTS.precision}e}"
        return f"{v:.{PRINT_OPTS.precision}f}"

    def __call__(self, v):
        return self._one(v).rjust(self.width)


def _format(a, full_shape, fmt, indent, summarize):
    """Formats ndarray a (the shown items of a tensor of full_shape), nested as
    PyTorch prints it, with '...' where a summary dropped items."""
    edge, linewidth = PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth

    def rec(sub, axis, ind):
        if sub.ndim == 0:
            return fmt(sub.item())
        cut = summarize and full_shape[axis] > 2 * edge
        if sub.ndim == 1:
            items = [fmt(v) for v in sub.tolist()]
            if cut:  # PyTorch pads the 1-d ellipsis with a space, but where it stands alone
                items = items[:edge] + [" ..." if edge else "..."] + items[edge:]
            per_line = max(1, math.floor((linewidth - ind) / (fmt.width + 2)))
            lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (ind + 1)).join(lines) + "]"
        rows = [rec(sub[i], axis + 1, ind + 1) for i in range(sub.shape[0])]
        if cut:
            rows = rows[:edge] + ["..."] + rows[edge:]
        sep = "," + "\n" * (sub.ndim - 1) + " " * (ind + 1)
        return "[" + sep.join(rows) + "]"
    return rec(a, 0, indent)


def tensor_repr(t):
    """repr(t) and str(t): ``tensor(`` and the values, or the class's name for a subclass
    of Tensor other than Parameter (``MyTensor([1., 2.])``), as PyTorch's; a subclass of
    Parameter is wrapped in ``Parameter(...)`` too."""
    from .nn.parameter import Parameter  # imported late: nn imports this module

    plain = type(t) in (_C.Tensor, Parameter)
    text = _tensor_text(t, "tensor(" if plain else f"{type(t).__name__}(")
    return text if plain or not isinstance(t, Parameter) else f"Parameter({text})"


def _tensor_text(t, prefix):
    shape, size = tuple(t.shape), t.numel()
    summarize = size > PRINT_OPTS.threshold
    shown = _summarize(t.detach()) if summarize and t.ndim else t.detach()
    # An implicit transfer (of the values shown): the transfer guard may log or refuse it.
    host = _C._implicit_cpu(shown, "repr()")
    dtype_name = t.dtype.name
    # the half types print from their exact float32 values (bfloat16 needs no ml_dtypes)
    a = (host.float() if dtype_name in ("float16", "bfloat16") else host).numpy()
    suffixes = []
    if t.device.type != "cpu" or t.device.index != 0 or _C._device_count(_C._KIND_CPU) > 1:
        suffixes.append(f"device='{t.device}'")  # cpu:0 too once the CPU is split
    indent = len(prefix)
    if size == 0:
        body = "[]"
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
    else:
        if not PRINT_OPTS.edgeitems:  # PyTorch names the size when edges show nothing
            suffixes.append(f"size={shape}")
        body = _format(a, shape, _Formatter(a, dtype_name), indent, summarize)
    default = _C._get_default_dtype().name
    if dtype_name not in _DEFAULT_DTYPES + (default,) or (size == 0 and dtype_name != default):
        suffixes.append(f"dtype=pydevtensor.{dtype_name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def _add_suffixes(text, suffixes, indent):
    """Appends the suffixes (dtype=, grad_fn=, ...) as PyTorch's _add_suffixes: one
    that would take the last line past the line width starts a line of its own,
    indented under the values."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1  # PyTorch's count, the ", " of the suffix aside
    for suffix in suffixes:
        if last + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"
