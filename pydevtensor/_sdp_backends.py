"""Which scaled_dot_product_attention kernels may run, with PyTorch's switches: the
``SDPBackend`` names and the ``sdpa_kernel`` context manager of ``torch.nn.attention``,
and ``torch.backends.cuda``'s ``enable_*_sdp`` / ``*_sdp_enabled``.

Note [one attention kernel]: pydevtensor has one kernel, PyTorch's MATH backend (the
composed softmax(Q K^T / sqrt(d) + mask) V of nn/_functional_attention.py, on every
device); FLASH_ATTENTION, EFFICIENT_ATTENTION and CUDNN_ATTENTION name kernels it does
not have.  So the switches are kept as PyTorch keeps them (process-wide flags, and a
thread's own selection inside ``sdpa_kernel``), and an attention call whose selection
leaves MATH out raises PyTorch's "No available kernel" error, as PyTorch does when none
of the selected kernels can take the inputs; a selection that includes MATH runs it.
"""
from __future__ import annotations

import contextlib
import enum
import threading
from collections.abc import Iterable, Iterator

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch names (``torch.nn.attention.SDPBackend``); only
    MATH exists here (Note [one attention kernel]).

    Examples
    --------
    >>> from pydevtensor.nn.attention import SDPBackend
    >>> SDPBackend.MATH.name
    'MATH'
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_enabled = {SDPBackend.MATH: True, SDPBackend.FLASH_ATTENTION: True,
            SDPBackend.EFFICIENT_ATTENTION: True, SDPBackend.CUDNN_ATTENTION: True,
            SDPBackend.OVERRIDEABLE: True}
_local = threading.local()


def _is_enabled(backend: SDPBackend) -> bool:
    selected = getattr(_local, "selected", None)
    return backend in selected if selected is not None else _enabled[backend]


def check(where: str) -> None:
    """Raises PyTorch's error when the selection leaves out MATH, the one kernel here."""
    if not _is_enabled(SDPBackend.MATH):
        chosen = sorted(b.name for b in SDPBackend if b >= 0 and _is_enabled(b))
        raise RuntimeError(f"{where}: No available kernel. Aborting execution. The kernels "
                           f"enabled ({', '.join(chosen) or 'none'}) do not exist in "
                           f"pydevtensor, whose one kernel is MATH: include "
                           f"SDPBackend.MATH (torch.backends.cuda.enable_math_sdp(True))")


@contextlib.contextmanager
def sdpa_kernel(backends: SDPBackend | Iterable[SDPBackend],
                set_priority: bool = False) -> Iterator[None]:
    """Restricts scaled_dot_product_attention to backends inside the block, on this
    thread, as PyTorch's ``torch.nn.attention.sdpa_kernel`` (Note [one attention
    kernel]: a selection without MATH makes the attention raise).

    Parameters
    ----------
    backends : SDPBackend or iterable of SDPBackend
        The kernels allowed.
    set_priority : bool, optional
        PyTorch's: take backends' order as the priority (one kernel: no effect).

    Returns
    -------
    context manager

    Raises
    ------
    TypeError
        When a backend is not an SDPBackend.

    Examples
    --------
    >>> from pydevtensor.nn.attention import SDPBackend, sdpa_kernel
    >>> from pydevtensor.nn import functional as F
    >>> q = pydevtensor.ones(1, 2, 4)
    >>> with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
    ...     F.scaled_dot_product_attention(q, q, q).shape
    pydevtensor.Size([1, 2, 4])
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel(): backends must be SDPBackend values, got "
                            f"{type(b).__name__}")
    previous = getattr(_local, "selected", None)
    _local.selected = frozenset(chosen)
    try:
        yield
    finally:
        _local.selected = previous


def _switch(backend: SDPBackend, name: str):
    def enable(enabled: bool) -> None:
        _enabled[backend] = bool(enabled)

    def is_enabled() -> bool:
        return _enabled[backend]

    enable.__name__ = enable.__qualname__ = f"enable_{name}_sdp"
    is_enabled.__name__ = is_enabled.__qualname__ = f"{name}_sdp_enabled"
    enable.__doc__ = f"""Allows or forbids the {backend.name} attention kernel, process-wide,
    as PyTorch's ``torch.backends.cuda.enable_{name}_sdp`` (Note [one attention kernel]
    in pydevtensor/_sdp_backends.py: only MATH exists here).

    Parameters
    ----------
    enabled : bool
        Whether scaled_dot_product_attention may use it.

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.backends.cuda.enable_{name}_sdp(True)
    """
    is_enabled.__doc__ = f"""Whether the {backend.name} attention kernel is allowed
    (process-wide), as PyTorch's ``torch.backends.cuda.{name}_sdp_enabled``.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.backends.cuda.{name}_sdp_enabled()
    True
    """
    return enable, is_enabled


enable_math_sdp, math_sdp_enabled = _switch(SDPBackend.MATH, "math")
enable_flash_sdp, flash_sdp_enabled = _switch(SDPBackend.FLASH_ATTENTION, "flash")
enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _switch(
    SDPBackend.EFFICIENT_ATTENTION, "mem_efficient")
enable_cudnn_sdp, cudnn_sdp_enabled = _switch(SDPBackend.CUDNN_ATTENTION, "cudnn")
