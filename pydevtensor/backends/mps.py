"""pydevtensor.backends.mps: Apple's Metal backend, which pydevtensor does not have."""

__all__ = ["is_available", "is_built"]


def is_available():
    """Whether the MPS (Apple Metal) device can be used: always False.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.backends.mps.is_available()
    False
    """
    return False


def is_built():
    """Whether pydevtensor was built with MPS: always False.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.backends.mps.is_built()
    False
    """
    return False
