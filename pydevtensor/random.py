"""``pydevtensor.random``: PyTorch's ``torch.random`` (seed, state, fork_rng) for the
default generator (pydevtensor/_generator.py).

One Philox stream serves every device (Note [one stream for every device] in
csrc/core/pdt_runtime.h), so there is one state to save and restore, whatever devices
the code draws on; ``cuda.manual_seed`` and ``cuda.get_rng_state`` are these functions.
"""
import contextlib

from . import _C
from ._generator import _nondeterministic_seed, _seed_arg, _state_from, default_generator

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


def manual_seed(seed):
    """Seeds the default generator, for every device, and puts it at the start of its
    stream: the same calls then give the same numbers on every device.

    Parameters
    ----------
    seed : int
        An int in [-2**63, 2**64), or a NumPy integer or one-element integer tensor
        (a negative one taken modulo 2**64, as PyTorch does).

    Returns
    -------
    Generator
        ``pydevtensor.default_generator``.

    Raises
    ------
    TypeError
        seed is not an int.
    ValueError
        seed is outside [-2**63, 2**64).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> a = pydevtensor.rand(2)
    >>> _ = pydevtensor.manual_seed(0)
    >>> bool((pydevtensor.rand(2) == a).all())
    True
    """
    _C.manual_seed(_seed_arg("manual_seed()", seed))
    return default_generator


def seed():
    """Seeds the default generator from the operating system's entropy (``os.urandom``)
    and returns that seed.

    Returns
    -------
    int
        The new seed, in [0, 2**64).

    Examples
    --------
    >>> s = pydevtensor.seed()
    >>> s == pydevtensor.initial_seed()
    True
    """
    s = _nondeterministic_seed()
    _C.manual_seed(s)
    return s


def initial_seed():
    """The seed the default generator was last seeded with (PyTorch's default,
    67280421310721, until ``manual_seed`` or ``seed``).

    Returns
    -------
    int

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(5)
    >>> pydevtensor.initial_seed()
    5
    """
    return _C.initial_seed()


def get_rng_state():
    """The default generator's state: 16 bytes, the seed then the stream position (in
    128-bit counter blocks), each little-endian, in a uint8 CPU tensor (as PyTorch's
    ByteTensor).  It covers every
    device: one stream serves them all.

    Returns
    -------
    Tensor
        uint8, shape (16,), on the CPU.

    Examples
    --------
    >>> state = pydevtensor.get_rng_state()
    >>> a = pydevtensor.randn(3)
    >>> pydevtensor.set_rng_state(state)
    >>> bool((pydevtensor.randn(3) == a).all())
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Puts the default generator back in a state from ``get_rng_state()`` (or a
    Generator's ``get_state()``).

    Parameters
    ----------
    new_state : Tensor
        16 byte values, a uint8 CPU tensor.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Not a uint8 CPU tensor (as PyTorch's).
    RuntimeError
        Not 16 values.

    Examples
    --------
    >>> state = pydevtensor.get_rng_state()
    >>> pydevtensor.set_rng_state(state)
    """
    default_generator._set_state(*_state_from("set_rng_state()", new_state))


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """A context manager that restores the default generator's state when it exits, so
    the draws inside it do not move the stream outside.  One stream serves every device,
    so devices and device_type change nothing (they are accepted as PyTorch's).

    Parameters
    ----------
    devices : iterable of ints, optional
        PyTorch's CUDA devices to fork; the one stream covers them all.
    enabled : bool, optional
        False: do nothing (default True).
    device_type : str, optional
        PyTorch's device kind (default "cuda"); see devices.

    Returns
    -------
    context manager
        Yields None; the stream is put back when the block exits (an exception too).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> with pydevtensor.random.fork_rng():
    ...     _ = pydevtensor.rand(100)
    >>> a = pydevtensor.rand(2)
    >>> _ = pydevtensor.manual_seed(0)
    >>> bool((pydevtensor.rand(2) == a).all())
    True
    """
    if devices is not None:
        try:
            devices = list(devices)
        except TypeError:
            raise TypeError(f"{_caller}(): {_devices_kw} must be an iterable of device "
                            f"indices, got {type(devices).__name__}") from None
    if not isinstance(device_type, str):
        raise TypeError(f"{_caller}(): device_type must be a str, got "
                        f"{type(device_type).__name__}")
    if not enabled:
        yield
        return
    state = default_generator._get_state()
    try:
        yield
    finally:
        default_generator._set_state(*state)
