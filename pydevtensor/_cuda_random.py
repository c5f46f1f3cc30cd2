"""``pydevtensor.cuda``'s random functions (PyTorch's ``torch.cuda.manual_seed`` and the
rest) on the one stream that serves every device (Note [one stream for every device] in
csrc/core/pdt_runtime.h).

PyTorch keeps one generator per GPU besides the CPU's; pydevtensor keeps one for all, so
that a seed gives the same numbers on every device.  So ``cuda.manual_seed(s)`` is
``manual_seed(s)`` (it seeds the CPU's draws too, also on a machine without a GPU, where
PyTorch ignores it), and the state of every GPU is ``get_rng_state()``.
``cuda.default_generators`` (``default_generators()`` here) has one Generator per GPU, as
PyTorch's, each on its GPU and each standing for that one stream.
"""
from . import random as _random

__all__ = ["get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "set_rng_state", "set_rng_state_all"]


def _device_arg(where, device):
    from . import _C
    from ._devices import _as_device
    if isinstance(device, bool) or not isinstance(device, (int, str, _C.device)):
        raise TypeError(f"{where}: device must be an int, a str or a pydevtensor.device, got "
                        f"{type(device).__name__}")
    d = _as_device(device)
    if d.type != "cuda":
        raise ValueError(f"{where}: expected a CUDA device, got {d}")
    return d


def _existing(where, device, lenient):
    """device checked as _device_arg does; anything but "cuda" must name a CUDA device that
    exists (DeviceError, as PyTorch raises for cuda.get_rng_state(5) on two GPUs), except
    when lenient and there is no GPU: PyTorch's setters then do nothing without a word."""
    from . import _C
    from ._devices import device_count
    d = _device_arg(where, device)
    named = not (isinstance(device, str) and device == "cuda")
    if named and not (lenient and device_count() == 0):
        _C._check_device(d)


def manual_seed(seed):
    """Seeds the one stream of every device: ``pydevtensor.manual_seed(seed)`` (see the
    module's notes: the CPU's draws are seeded too).

    Parameters
    ----------
    seed : int
        Any int (reduced modulo 2**64).

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.cuda.manual_seed(0)
    >>> pydevtensor.initial_seed()
    0
    """
    _random.manual_seed(seed)


def manual_seed_all(seed):
    """Seeds every GPU's stream, which is the one stream of every device:
    ``pydevtensor.manual_seed(seed)``.

    Parameters
    ----------
    seed : int
        Any int (reduced modulo 2**64).

    Returns
    -------
    None

    Examples
    --------
    >>> pydevtensor.cuda.manual_seed_all(1)
    >>> pydevtensor.cuda.initial_seed()
    1
    """
    _random.manual_seed(seed)


def seed():
    """Seeds the one stream from the operating system's entropy: ``pydevtensor.seed()``
    (PyTorch's returns nothing; this returns the seed).

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.cuda.seed() == pydevtensor.initial_seed()
    True
    """
    return _random.seed()


def seed_all():
    """``pydevtensor.seed()``: one stream serves every GPU.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.cuda.seed_all() == pydevtensor.initial_seed()
    True
    """
    return _random.seed()


def initial_seed():
    """The seed of the one stream: ``pydevtensor.initial_seed()``.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.cuda.initial_seed() == pydevtensor.initial_seed()
    True
    """
    return _random.initial_seed()


def get_rng_state(device="cuda"):
    """The state of a GPU's stream, which is ``pydevtensor.get_rng_state()``: 16 bytes in
    a uint8 CPU tensor.

    Parameters
    ----------
    device : int, str or pydevtensor.device, optional
        A CUDA device (default "cuda", which answers without a GPU too: one stream
        serves all); an index must name a device that exists.

    Returns
    -------
    Tensor

    Raises
    ------
    pydevtensor.DeviceError
        When device has an index and there is no such CUDA device.

    Examples
    --------
    >>> bool((pydevtensor.cuda.get_rng_state() == pydevtensor.get_rng_state()).all())
    True
    """
    _existing("cuda.get_rng_state()", device, lenient=False)
    return _random.get_rng_state()


def get_rng_state_all():
    """The state of every GPU's stream: ``device_count()`` copies of
    ``pydevtensor.get_rng_state()``.

    Returns
    -------
    list of Tensor

    Examples
    --------
    >>> len(pydevtensor.cuda.get_rng_state_all()) == pydevtensor.cuda.device_count()
    True
    """
    from ._devices import device_count
    return [_random.get_rng_state() for _ in range(device_count())]


def set_rng_state(new_state, device="cuda"):
    """Sets a GPU's stream, which is the one stream of every device:
    ``pydevtensor.set_rng_state(new_state)``.

    Parameters
    ----------
    new_state : Tensor
        From ``get_rng_state()``.
    device : int, str or pydevtensor.device, optional
        A CUDA device (default "cuda"); with a GPU, an index must name a device that
        exists (without one, any index sets the one stream).

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When there is a GPU and device has an index of no CUDA device.

    Examples
    --------
    >>> pydevtensor.cuda.set_rng_state(pydevtensor.cuda.get_rng_state())
    """
    _existing("cuda.set_rng_state()", device, lenient=True)
    _random.set_rng_state(new_state)


def set_rng_state_all(new_states):
    """Sets every GPU's stream from a list of states (one stream: the last one wins).

    Parameters
    ----------
    new_states : sequence of Tensor
        From ``get_rng_state_all()``: state i for cuda:i.

    Returns
    -------
    None

    Raises
    ------
    pydevtensor.DeviceError
        When there is a GPU and more states than CUDA devices.

    Examples
    --------
    >>> pydevtensor.cuda.set_rng_state_all(pydevtensor.cuda.get_rng_state_all())
    """
    try:
        states = list(new_states)
    except TypeError:
        raise TypeError(f"cuda.set_rng_state_all(): new_states must be a sequence of "
                        f"tensors, got {type(new_states).__name__}") from None
    for i, state in enumerate(states):
        _existing("cuda.set_rng_state_all()", i, lenient=True)
    for state in states:
        _random.set_rng_state(state)


_PER_GPU = {}  # index -> the Generator on cuda:index that stands for the default stream


def default_generators():
    """``cuda.default_generators``: one ``pydevtensor.Generator`` per CUDA device, as
    PyTorch's tuple, the one on cuda:i reporting that device; () when no CUDA device can
    be used (as PyTorch's without a GPU).  Each stands for the one stream that serves
    every device (``pydevtensor.default_generator``): seeding one, setting its state or
    drawing with it as ``generator=`` acts on that stream, as ``cuda.manual_seed`` and
    ``cuda.get_rng_state`` do.  The same objects come back on every read."""
    from . import _C
    from ._devices import device_count
    from ._generator import Generator
    gens = []
    for i in range(device_count()):
        if i not in _PER_GPU:
            g = Generator(f"cuda:{i}")
            _C._bind_default_generator(g)
            _PER_GPU.setdefault(i, g)  # a thread that made one first keeps it
        gens.append(_PER_GPU[i])
    return tuple(gens)
