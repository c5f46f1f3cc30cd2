"""pydevtensor.Generator and default_generator: Philox streams (Note [one stream for every
device] in csrc/core/pdt_runtime.h).

A generator is a 64-bit seed (the Philox key) and a stream position (the next unused
128-bit counter block).  The default generator serves every device, so one seed gives
the same numbers on the CPU and on every GPU; a ``Generator()`` is a stream of its own,
for every device too: drawing from it leaves the default stream where it was, and the
other way round.  Its state, ``get_state()``, is 16 bytes, the seed then the position,
each little-endian, in a uint8 tensor, as PyTorch's (``set_state`` also takes the int32
tensors of byte values that earlier versions gave).
"""
import operator
import os

from . import _C

__all__ = ["Generator", "default_generator"]

_STATE_BYTES = 16
_CPU = _C.device("cpu")
_U64 = 1 << 64


def _state_tensor(seed, offset):
    data = seed.to_bytes(8, "little") + offset.to_bytes(8, "little")
    return _C.tensor(list(data), dtype=_C.uint8, device="cpu")


def _state_from(where, new_state):
    """(seed, offset) from a state tensor made by get_state (or its values)."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"{where}: the state must be a Tensor (from get_rng_state()), got "
                        f"{type(new_state).__name__}")
    if new_state.dtype != _C.uint8:
        raise TypeError(f"{where}: RNG state must be a uint8 tensor (a ByteTensor, from "
                        f"get_rng_state()), as PyTorch's, got {new_state.dtype} (shape "
                        f"{tuple(new_state.shape)}, on {new_state.device}); a state saved as "
                        f"int32 by an earlier version loads after .to(pydevtensor.uint8)")
    if new_state.device.type != "cpu":
        raise TypeError(f"{where}: the state must be a CPU tensor (as PyTorch's), got one on "
                        f"{new_state.device}")
    if tuple(new_state.shape) != (_STATE_BYTES,):
        raise RuntimeError(f"{where}: RNG state is wrong size: expected shape ({_STATE_BYTES},) "
                           f"(the seed and the stream position, 8 bytes each), got "
                           f"{tuple(new_state.shape)} (on {new_state.device})")
    values = new_state.tolist()
    data = bytes(values)
    return int.from_bytes(data[:8], "little"), int.from_bytes(data[8:], "little")


def _seed_arg(where, seed):
    """seed as PyTorch takes it: an integer (a NumPy integer or a one-element integer
    tensor too) in [-2**63, 2**64), a negative one taken modulo 2**64."""
    if not isinstance(seed, bool) and not isinstance(seed, int):
        try:
            seed = operator.index(seed)
        except TypeError:
            pass
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"{where}: seed must be an int, got {type(seed).__name__}")
    if not -2**63 <= seed < _U64:
        raise ValueError(f"{where}: seed {seed} is out of range: it must be in "
                         f"[-2**63, 2**64), as PyTorch's")
    return seed % _U64


def _generator_arg(where, generator):
    """generator, when it is None or a Generator; else the TypeError the C functions give."""
    if generator is not None and not isinstance(generator, _C._Generator):
        raise TypeError(f"{where}: generator must be a pydevtensor.Generator or None, got "
                        f"{type(generator).__name__}")
    return generator


def _nondeterministic_seed():
    return int.from_bytes(os.urandom(8), "little")


class Generator(_C._Generator):
    """A random-number generator of its own: a Philox stream that the random functions
    draw from when given ``generator=`` (rand, randn, randint, randperm, normal,
    multinomial, bernoulli, poisson, ``Tensor.uniform_``, ``normal_``, ``random_``,
    ``bernoulli_``, ``utils.data.DataLoader``, ``utils.data.random_split``).

    Drawing from it leaves the default stream (``manual_seed``) untouched, and the other
    way round.  Its numbers do not depend on the device they are drawn for: a generator
    made for one device may draw for any device and gives the same numbers there
    (PyTorch refuses a CPU generator for a CUDA tensor; here there is nothing to refuse).
    A new generator starts at PyTorch's default seed, 67280421310721.

    Parameters
    ----------
    device : str or pydevtensor.device, optional
        The device it is meant for (default ``"cpu"``), reported by ``.device``.

    Raises
    ------
    pydevtensor.DeviceError
        The device does not exist here (``"cuda"`` without a GPU).

    Notes
    -----
    ``copy.deepcopy`` and ``pickle`` give a generator on the same device in the same
    state, which then draws the same numbers as the original.

    Examples
    --------
    >>> g = pydevtensor.Generator().manual_seed(42)
    >>> a = pydevtensor.rand(3, generator=g)
    >>> _ = g.manual_seed(42)
    >>> bool((pydevtensor.rand(3, generator=g) == a).all())
    True
    >>> g.initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        self._device = _C.device(device)
        if self._device == _CPU:  # always there (checking it would start the runtime)
            return
        try:  # a device that does not exist here is refused, as for a tensor (PyTorch too)
            self._device = _C._check_device(self._device)
        except _C.DeviceError as e:
            raise _C.DeviceError(f"Generator(): {e}") from None

    def __reduce__(self):
        # copy.deepcopy and pickle: a generator on the same device in the same state
        return type(self), (str(self._device),), self._get_state()

    def __setstate__(self, state):
        self._set_state(*state)

    @property
    def device(self):
        """The device given when the generator was made (its numbers are the same on
        every device).

        Returns
        -------
        pydevtensor.device

        Examples
        --------
        >>> pydevtensor.Generator().device
        device(type='cpu')
        """
        return self._device

    def manual_seed(self, seed):
        """Seeds the generator and puts it at the start of its stream.

        Parameters
        ----------
        seed : int
            Any int (reduced modulo 2**64, as PyTorch does).

        Returns
        -------
        Generator
            self.

        Raises
        ------
        TypeError
            seed is not an int.

        Examples
        --------
        >>> pydevtensor.Generator().manual_seed(3).initial_seed()
        3
        """
        self._set_state(_seed_arg("Generator.manual_seed()", seed), 0)
        return self

    def seed(self):
        """Seeds the generator from the operating system's entropy (``os.urandom``) and
        returns that seed.

        Returns
        -------
        int
            The new seed, in [0, 2**64).

        Examples
        --------
        >>> g = pydevtensor.Generator()
        >>> g.seed() == g.initial_seed()
        True
        """
        s = _nondeterministic_seed()
        self._set_state(s, 0)
        return s

    def initial_seed(self):
        """The seed the generator was last seeded with.

        Returns
        -------
        int

        Examples
        --------
        >>> pydevtensor.Generator().initial_seed()
        67280421310721
        """
        return self._get_state()[0]

    def get_state(self):
        """The generator's state: 16 bytes, the seed then the stream position (in 128-bit
        counter blocks), each little-endian, as a uint8 CPU tensor (PyTorch's ByteTensor).

        Returns
        -------
        Tensor
            uint8, shape (16,), on the CPU.

        Examples
        --------
        >>> g = pydevtensor.Generator().manual_seed(1)
        >>> state = g.get_state()
        >>> a = pydevtensor.rand(2, generator=g)
        >>> b = pydevtensor.rand(2, generator=g.set_state(state))
        >>> bool((a == b).all()), state.shape
        (True, pydevtensor.Size([16]))
        """
        return _state_tensor(*self._get_state())

    def set_state(self, new_state):
        """Puts the generator back in a state from ``get_state()`` (of this generator or
        of another one, or ``get_rng_state()``).

        Parameters
        ----------
        new_state : Tensor
            16 byte values, a uint8 CPU tensor.

        Returns
        -------
        Generator
            self.

        Raises
        ------
        TypeError
            Not a uint8 CPU tensor (as PyTorch's).
        RuntimeError
            Not 16 values.

        Examples
        --------
        >>> g = pydevtensor.Generator()
        >>> g.set_state(pydevtensor.Generator().manual_seed(9).get_state()).initial_seed()
        9
        """
        self._set_state(*_state_from("Generator.set_state()", new_state))
        return self

    def __repr__(self):
        return f"<pydevtensor.Generator on {self._device}>"


default_generator = Generator()
_C._bind_default_generator(default_generator)
