"""``torch.cuda.nccl`` (``pydevtensor.cuda.nccl``): the version of the NCCL library this
build loads (libnccl.so.2, dlopen()ed on first use: csrc/cuda/cuda_nccl.c) and whether
NCCL's collectives can take a list of tensors.  The collectives themselves are
``pydevtensor.distributed``'s (backend 'nccl') and ``distribute.MirroredStrategy``'s.
"""
import warnings

__all__ = ["version", "is_available"]


def _code_to_version(code):
    """(major, minor, patch) of an NCCL_VERSION_CODE: X*10000 + Y*100 + Z since NCCL 2.9,
    X*1000 + Y*100 + Z before (nccl.h's NCCL_VERSION)."""
    if code >= 10000:
        return code // 10000, code % 10000 // 100, code % 100
    return code // 1000, code % 1000 // 100, code % 100


def version():
    """The version of the NCCL library pydevtensor loads, as ``torch.cuda.nccl.version``:
    (major, minor, patch), from ncclGetVersion.

    Returns
    -------
    tuple of (int, int, int)

    Raises
    ------
    RuntimeError
        When this build has no CUDA, or libnccl.so.2 cannot be loaded (PyTorch built
        without NCCL has no such function: AttributeError).

    Examples
    --------
    >>> try:
    ...     major, minor, patch = pydevtensor.cuda.nccl.version()
    ... except RuntimeError:  # no NCCL here
    ...     major = 2
    >>> major >= 2
    True
    """
    from . import _C
    code = _C._nccl_version()
    if not code:
        why = ("pydevtensor was built without CUDA" if not _C._cuda_built() else
               "libnccl.so.2 could not be loaded (pip install 'pydevtensor[cuda13]')")
        raise RuntimeError(f"cuda.nccl.version(): NCCL is not available: {why}")
    return _code_to_version(code)


def is_available(tensors):
    """Whether NCCL's collectives can take these tensors, as ``torch.cuda.nccl``'s: each
    a dense, contiguous CUDA tensor, no two on one device.  Two logical devices of one
    GPU (``config.set_logical_device_configuration``) count as one device here: NCCL
    needs a distinct GPU for each tensor (PyTorch has no logical devices).  Without NCCL
    (a build without CUDA, libnccl.so.2 not found) it warns and gives False, as
    PyTorch's without NCCL.

    Parameters
    ----------
    tensors : iterable of pydevtensor.Tensor
        The tensors of one collective.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When an element is not a tensor.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the warning without NCCL
    ...     pydevtensor.cuda.nccl.is_available([pydevtensor.ones(2)])  # a CPU tensor
    False
    """
    from . import _C
    from ._runtime_flags import outside_level
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"cuda.nccl.is_available(): expected tensors, got "
                            f"{type(t).__name__}")
    if not _C._nccl_available():
        warnings.warn("pydevtensor has no NCCL here: "
                      + ("it was built without CUDA" if not _C._cuda_built() else
                         "libnccl.so.2 could not be loaded"), stacklevel=outside_level())
        return False
    gpus = []
    for t in tensors:
        if t.is_sparse or not t.is_contiguous() or not t.is_cuda:
            return False
        gpus.append(_C._logical_device_map(_C._KIND_CUDA)[t.device.index])
    return len(set(gpus)) == len(gpus)
