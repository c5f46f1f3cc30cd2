"""Tensor queries PyTorch has for its other kinds of tensor and device: ``is_sparse``,
``is_sparse_csr``, ``is_quantized``, ``is_meta``, ``is_mkldnn``, ``is_nested``, ``is_mps``,
``is_xpu`` and the other devices' (all False: pydevtensor's tensors are dense and strided,
on the CPU or a CUDA device), ``is_distributed()`` (False), ``is_shared()``, ``layout``
(``pydevtensor.strided``), and ``dim_order()``, the dims ordered by stride.  Installed on
``Tensor`` at import.
"""
from . import _C
from ._memory_format import channels_last, memory_format, strided

__all__ = []

_AMBIGUOUS = ("The tensor does not have unique dim order, or cannot map to exact one of the "
              "given memory formats.")


def _should_swap(size, stride, a, b):
    """PyTorch's comparison of dims a and b for the elementwise output's order (1: b is
    outer, -1: a is outer, 0: either), for one tensor."""
    def ge(x, y):
        return y == 0 or (x != 0 and (x >= y or x % y == 0))
    sa, sb = stride[a], stride[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if ge(size[b], size[a]) else 1
    if ge(sb, sa):
        return -1
    return 1 if ge(sa, sb) else 0


def _dim_order(self, *, ambiguity_check=False):
    """The dims from the outermost in memory to the innermost, as PyTorch's
    ``Tensor.dim_order`` (the order of PyTorch's elementwise results).

    Parameters
    ----------
    ambiguity_check : bool or list of memory_format, optional
        False (default): one of the orders when several fit (size-1 dims, equal
        strides).  True: raise then.  A list of memory formats: raise unless the order
        is unique or the tensor is contiguous in exactly one of them.

    Returns
    -------
    tuple of int

    Raises
    ------
    TypeError
        When ambiguity_check is neither a bool nor a list of memory formats.
    RuntimeError
        When the check asked for fails.

    Examples
    --------
    >>> x = pydevtensor.ones(2, 3, 5, 7)
    >>> x.dim_order(), x.transpose(1, 2).dim_order()
    ((0, 1, 2, 3), (0, 2, 1, 3))
    >>> x.contiguous(memory_format=pydevtensor.channels_last).dim_order()
    (0, 2, 3, 1)
    """
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list)
            and all(isinstance(f, memory_format) for f in ambiguity_check)):
        raise TypeError(f"The ambiguity_check argument must be a bool or a list of memory "
                        f"formats, got {ambiguity_check!r}")
    size, stride, ndim = tuple(self.shape), self.stride(), self.ndim
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    multiple = (any(a == b for a, b in zip(stride, stride[1:])) or any(s == 1 for s in size))
    if (check and multiple
            and sum(self.is_contiguous(memory_format=f) for f in formats) != 1):
        raise RuntimeError(_AMBIGUOUS)
    if ndim <= 1:
        return tuple(range(ndim))
    contiguous = self.is_contiguous()
    last = ndim == 4 and self.is_contiguous(memory_format=channels_last)
    if contiguous != last:
        return tuple(range(ndim)) if contiguous else (0, *range(2, ndim), 1)
    perm = list(reversed(range(ndim)))  # an insertion sort, innermost first
    for i in range(1, ndim):
        j = i
        for k in reversed(range(i)):
            order = _should_swap(size, stride, perm[k], perm[j])
            if order > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif order < 0:
                break
    if ambiguity_check and any(_should_swap(size, stride, a, b) != -1
                               for a, b in zip(perm, perm[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def _false(name, what):
    doc = f"""False: pydevtensor has no {what} (PyTorch's ``Tensor.{name}``).

        Examples
        --------
        >>> pydevtensor.ones(2).{name}
        False
        """
    return property(lambda self: False, doc=doc)


def _is_shared(self):
    """Whether the tensor's memory is shared between processes: its storage's
    ``is_shared()`` (device memory is, host memory is not), as PyTorch's
    ``Tensor.is_shared``.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.ones(2).is_shared()
    False
    """
    return self.untyped_storage().is_shared()


def _is_distributed(self):
    """False: pydevtensor has no distributed tensors (PyTorch's
    ``Tensor.is_distributed``).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.ones(2).is_distributed()
    False
    """
    return False


def _layout(self):
    """``pydevtensor.strided``, the layout of every pydevtensor tensor (PyTorch's
    ``Tensor.layout``).

    Examples
    --------
    >>> pydevtensor.ones(2).layout
    pydevtensor.strided
    """
    return strided


_C.Tensor.dim_order = _dim_order
for _name, _what in (("is_sparse", "sparse tensors"), ("is_quantized", "quantized tensors"),
                     ("is_meta", "meta device"), ("is_mkldnn", "MKL-DNN layout"),
                     ("is_nested", "nested tensors"), ("is_sparse_csr", "sparse CSR tensors"),
                     ("is_mps", "MPS device"), ("is_xpu", "XPU device"),
                     ("is_xla", "XLA device"), ("is_ipu", "IPU device"),
                     ("is_vulkan", "Vulkan device"), ("is_maia", "MAIA device"),
                     ("is_mtia", "MTIA device")):
    setattr(_C.Tensor, _name, _false(_name, _what))
_C.Tensor.is_shared = _is_shared
_C.Tensor.is_distributed = _is_distributed
_C.Tensor.layout = property(_layout, doc=_layout.__doc__)
