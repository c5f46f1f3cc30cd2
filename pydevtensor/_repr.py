"""repr() and str() of tensors, in PyTorch's format.

``tensor([[1., 1., 1.],
        [1., 1., 1.]], device='cuda:0')``: the device is left out on the CPU, the
dtype is shown when it is not the default for its kind (float32, int64, bool), and
tensors of more than 1000 elements show 3 items at each edge.  Printing a GPU
tensor copies the values shown to the host (the edges alone, gathered on the
device, when the tensor is summarized), and that copy is counted in
transfer_stats() and seen by the transfer guard as implicit
(pydevtensor.transfer_guard).
"""
import math

from . import _C

THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
_DEFAULT_DTYPES = ("float32", "int64", "bool")


def _summarize(t):
    """The values to show, EDGEITEMS at each end of every long dimension, joined on the
    tensor's own device: only they are copied (to the host next), never the whole tensor
    (an expanded view of 2e9 elements, or a transposed 10000 x 10000, printed at once)."""
    from ._ops_join import cat  # imported late: _ops_join imports the autograd recorder

    for axis in range(t.ndim):
        n = t.shape[axis]
        if n > 2 * EDGEITEMS:
            lead = (slice(None),) * axis
            t = cat([t[lead + (slice(0, EDGEITEMS),)], t[lead + (slice(n - EDGEITEMS, n),)]],
                    axis)
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
            wide = mag.size and (mag.max() / mag.min() > 1000.0 or mag.max() > 1e8)
            if bool(np.all(nonzero == np.round(nonzero))):
                self.mode = "sci" if wide else "int"
            elif wide or (mag.size and mag.min() < 1e-4):
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
            return f"{v:.4e}"
        return f"{v:.4f}"

    def __call__(self, v):
        return self._one(v).rjust(self.width)


def _format(a, full_shape, fmt, indent, summarize):
    """Formats ndarray a (the shown items of a tensor of full_shape), nested as
    PyTorch prints it, with '...' where a summary dropped items."""
    def rec(sub, axis, ind):
        if sub.ndim == 0:
            return fmt(sub.item())
        cut = summarize and full_shape[axis] > 2 * EDGEITEMS
        if sub.ndim == 1:
            items = [fmt(v) for v in sub.tolist()]
            if cut:  # PyTorch pads the 1-d ellipsis with a space
                items = items[:EDGEITEMS] + [" ..."] + items[EDGEITEMS:]
            per_line = max(1, (LINEWIDTH - ind) // (fmt.width + 2))
            lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (ind + 1)).join(lines) + "]"
        rows = [rec(sub[i], axis + 1, ind + 1) for i in range(sub.shape[0])]
        if cut:
            rows = rows[:EDGEITEMS] + ["..."] + rows[EDGEITEMS:]
        sep = "," + "\n" * (sub.ndim - 1) + " " * (ind + 1)
        return "[" + sep.join(rows) + "]"
    return rec(a, 0, indent)


def tensor_repr(t, prefix="tensor("):
    shape, size = tuple(t.shape), t.numel()
    summarize = size > THRESHOLD
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
            suffixes.insert(0, f"size={shape}")
    else:
        body = _format(a, shape, _Formatter(a, dtype_name), indent, summarize)
    if dtype_name not in _DEFAULT_DTYPES or (size == 0 and dtype_name != "float32"):
        suffixes.append(f"dtype=pydevtensor.{dtype_name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
