"""pydevtensor.backends.cudnn: PyTorch's cuDNN switches, for scripts that set them.

pydevtensor does not use cuDNN (its convolutions are its own kernels and cuBLAS
GEMMs), so ``is_available()`` is False and ``version()`` None; ``benchmark``,
``deterministic``, ``enabled`` and ``allow_tf32`` are plain settable attributes with
PyTorch's defaults (False, False, True, True) that no kernel reads.
"""

__all__ = ["is_available", "version"]  # and the switches below

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True


def is_available():
    """Whether cuDNN can be used: always False (pydevtensor does not use cuDNN).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.backends.cudnn.is_available()
    False
    """
    return False


def version():
    """The cuDNN version: None, as PyTorch gives without cuDNN.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.backends.cudnn.version() is None
    True
    """
    return None
