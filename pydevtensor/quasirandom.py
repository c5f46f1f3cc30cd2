"""torch.quasirandom: SobolEngine, the Sobol' low-discrepancy sequence (Sobol' 1967) with
Joe and Kuo's direction numbers (_sobol_table.py), optionally scrambled (a random linear
matrix scramble and digital shift, as PyTorch's, after Owen 1998).

Point i of the sequence is shift XOR the XOR of the direction numbers V[:, b] over the set
bits b of i's Gray code i ^ (i >> 1); PyTorch reaches the same points one at a time (each
step XORs the direction number of the rightmost zero bit of the step's index), so the
unscrambled points are bit for bit PyTorch's.  Here a draw computes its points from their
indices at once (NumPy, on the host, as PyTorch's engine runs on the CPU).
"""
import numpy as np

from . import _C
from . import _args
from ._default_dtype import get_default_dtype
from ._generator import Generator
from ._sobol_table import MAXBIT, MAXDIM, direction_numbers

__all__ = ["SobolEngine"]


def _scrambled(table, generator):
    """(shift, table): the digital shift and the direction numbers times a random lower
    triangular binary matrix with unit diagonal (PyTorch's _sobol_engine_scramble_), both
    drawn from generator: first the (dimension, MAXBIT) shift bits, then the
    (dimension, MAXBIT, MAXBIT) matrices."""
    dimension = table.shape[0]
    shift_bits = _C.randint(2, (dimension, MAXBIT), generator=generator).numpy()
    shift = shift_bits @ (np.int64(1) << np.arange(MAXBIT, dtype=np.int64))
    ltm = np.tril(_C.randint(2, (dimension, MAXBIT, MAXBIT), generator=generator).numpy())
    ltm[:, np.arange(MAXBIT), np.arange(MAXBIT)] = 1
    high_first = np.arange(MAXBIT - 1, -1, -1, dtype=np.int64)
    bits = (table[:, :, None] >> high_first) & 1  # bits[d, j, k]: bit k of V[d, j], high first
    scrambled = np.einsum("dpk,djk->djp", ltm, bits) & 1
    return shift, (scrambled << high_first).sum(-1)


class SobolEngine:
    """A generator of the Sobol' low-discrepancy sequence (PyTorch's
    ``torch.quasirandom.SobolEngine``), optionally scrambled.

    The direction numbers are Joe and Kuo's (new-joe-kuo-6.21201, as PyTorch's and
    SciPy's); pydevtensor ships its first 1111 dimensions (PyTorch supports 21201) and
    refuses larger ones.  Unscrambled, the points are PyTorch's bit for bit; the first
    ``2**m`` points put exactly ``2**(m - t)`` points in each of the ``2**t`` equal
    intervals of every coordinate (``t <= m``).  Points are drawn on the CPU.

    Parameters
    ----------
    dimension : int
        The dimension of the points, 1 to 1111.
    scramble : bool, optional
        Scramble the sequence (a random linear matrix scramble and a random digital
        shift), keeping its balance properties.  Default False.
    seed : int, optional
        The seed of the scrambling's random numbers (a fresh ``pydevtensor.Generator``
        seeded with it); None (the default) seeds from the system's entropy.

    Examples
    --------
    >>> engine = pydevtensor.quasirandom.SobolEngine(2)
    >>> engine.draw(4)
    tensor([[0.0000, 0.0000],
            [0.5000, 0.5000],
            [0.7500, 0.2500],
            [0.2500, 0.7500]])
    >>> engine.draw(1, dtype=pydevtensor.float64)
    tensor([[0.3750, 0.3750]], dtype=pydevtensor.float64)
    >>> engine
    SobolEngine(dimension=2)
    """

    MAXBIT = MAXBIT
    MAXDIM = MAXDIM

    def __init__(self, dimension, scramble=False, seed=None):
        where = "SobolEngine()"
        d = _args.index(dimension)
        if d is None:
            raise TypeError(f"{where}: dimension must be an int, got {type(dimension).__name__}")
        if not 1 <= d <= MAXDIM:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {MAXDIM}]"
                             f" in pydevtensor (the first {MAXDIM} dimensions of Joe and Kuo's "
                             f"table; PyTorch ships 21201), got dimension={d}")
        if not isinstance(scramble, (bool, np.bool_)):
            raise TypeError(f"{where}: scramble must be a bool, got {type(scramble).__name__}")
        if seed is not None:
            seed = _args.size(seed, where, "seed")
        self.dimension, self.scramble, self.seed = d, bool(scramble), seed
        table = direction_numbers(d)
        if self.scramble:
            generator = Generator()
            if seed is None:
                generator.seed()
            else:
                generator.manual_seed(seed)
            self._shift, self._table = _scrambled(table, generator)
        else:
            self._shift, self._table = np.zeros(d, dtype=np.int64), table
        self._columns = np.ascontiguousarray(self._table.T)  # direction number b: a row
        self.num_generated = 0

    @property
    def sobolstate(self):
        """The (dimension, MAXBIT) int64 direction numbers (scrambled if scramble), each a
        MAXBIT-bit binary fraction.

        Examples
        --------
        >>> pydevtensor.quasirandom.SobolEngine(3).sobolstate[:, :3] >> 27
        tensor([[4, 2, 1],
                [4, 6, 5],
                [4, 6, 3]])
        """
        return _C.tensor(self._table.copy())

    @property
    def shift(self):
        """The (dimension,) int64 digital shift (zeros unless scramble).

        Examples
        --------
        >>> pydevtensor.quasirandom.SobolEngine(2).shift
        tensor([0, 0])
        """
        return _C.tensor(self._shift.copy())

    @property
    def quasi(self):
        """The (dimension,) int64 last point drawn, as MAXBIT-bit integers (shift before
        the first).

        Examples
        --------
        >>> engine = pydevtensor.quasirandom.SobolEngine(2)
        >>> engine.fast_forward(2).quasi >> 28
        tensor([2, 2])
        """
        return _C.tensor(self._integers(max(self.num_generated - 1, 0), 1)[0])

    def _integers(self, start, n):
        """Points start .. start+n-1 as (n, dimension) MAXBIT-bit integers: the first from
        its Gray code, each next one the last XOR the direction number of the rightmost
        zero bit of the last's index (one running XOR down the rows)."""
        points = np.empty((n, self.dimension), dtype=np.int64)
        if n == 0:
            return points
        gray = start ^ (start >> 1)
        points[0] = self._shift
        for bit in range(gray.bit_length()):
            if (gray >> bit) & 1:
                points[0] ^= self._table[:, bit]
        after = np.arange(start + 1, start + n, dtype=np.int64)  # index i+1 of each step
        rightmost_zero = np.log2((after & -after).astype(np.float64)).astype(np.int64)
        points[1:] = self._columns[rightmost_zero]
        return np.bitwise_xor.accumulate(points, axis=0, out=points)

    def _count(self, n, op):
        n = _args.size(n, f"SobolEngine.{op}()", "n", least=0)
        if self.num_generated + n > 1 << MAXBIT:
            raise ValueError(f"SobolEngine.{op}(): the sequence has 2**{MAXBIT} points; "
                             f"{self.num_generated} drawn, {n} more asked for")
        return n

    def draw(self, n=1, out=None, dtype=None):
        """The next ``n`` points of the sequence.

        Parameters
        ----------
        n : int, optional
            The number of points (default 1).
        out : Tensor, optional
            Resized to ``(n, dimension)`` and given the points.
        dtype : pydevtensor.dtype, optional
            float32 or float64; the default dtype if None.

        Returns
        -------
        Tensor
            The ``(n, dimension)`` points in [0, 1), or ``out``.

        Examples
        --------
        >>> engine = pydevtensor.quasirandom.SobolEngine(3)
        >>> engine.draw(2)[1]
        tensor([0.5000, 0.5000, 0.5000])
        >>> engine.num_generated
        2
        """
        n = self._count(n, "draw")
        if dtype is None:
            dtype = get_default_dtype()
        if dtype not in (_C.float32, _C.float64):
            raise _C.DTypeError(f"SobolEngine.draw(): dtype must be float32 or float64, "
                                f"got {dtype}")
        if out is not None and not isinstance(out, _C.Tensor):
            raise TypeError(f"SobolEngine.draw(): out must be a Tensor, got "
                            f"{type(out).__name__}")
        points = self._integers(self.num_generated, n)
        # as PyTorch: the integer rounded to dtype, then times 2**-MAXBIT (exact)
        host = np.float32 if dtype == _C.float32 else np.float64
        result = _C.tensor(points.astype(host) * host(2.0 ** -MAXBIT))
        if out is not None:  # an out that cannot take the points leaves the engine as it was
            out.resize_(result.shape).copy_(result)
            result = out
        self.num_generated += n
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next ``2**m`` points of the sequence; the points drawn in all must then
        number a power of 2, which keeps the sequence's balance properties.

        Parameters
        ----------
        m : int
            The base-2 logarithm of the number of points.
        out : Tensor, optional
            Resized to ``(2**m, dimension)`` and given the points.
        dtype : pydevtensor.dtype, optional
            float32 or float64; the default dtype if None.

        Returns
        -------
        Tensor
            The ``(2**m, dimension)`` points, or ``out``.

        Examples
        --------
        >>> engine = pydevtensor.quasirandom.SobolEngine(1)
        >>> engine.draw_base2(2).flatten()
        tensor([0.0000, 0.5000, 0.7500, 0.2500])
        >>> engine.draw_base2(2).flatten()
        tensor([0.3750, 0.8750, 0.6250, 0.1250])
        """
        m = _args.size(m, "SobolEngine.draw_base2()", "m", least=0)
        if m > MAXBIT:
            raise ValueError(f"SobolEngine.draw_base2(): the sequence has 2**{MAXBIT} "
                             f"points, got m={m}")
        n = 1 << m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError("The balance properties of Sobol' points require n to be a power "
                             f"of 2. {self.num_generated} points have been previously "
                             f"generated, then: n={self.num_generated}+2**{m}={total}. If you "
                             "still want to do this, please use 'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Go back to the first point of the sequence.

        Returns
        -------
        SobolEngine
            This engine.

        Examples
        --------
        >>> engine = pydevtensor.quasirandom.SobolEngine(2)
        >>> _ = engine.draw(5)
        >>> engine.reset().draw(1)
        tensor([[0., 0.]])
        """
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip the next ``n`` points of the sequence.

        Parameters
        ----------
        n : int
            The number of points to skip.

        Returns
        -------
        SobolEngine
            This engine.

        Examples
        --------
        >>> engine = pydevtensor.quasirandom.SobolEngine(1)
        >>> engine.fast_forward(2).draw(1)
        tensor([[0.7500]])
        """
        self.num_generated += self._count(n, "fast_forward")
        return self

    def __repr__(self):
        text = [f"dimension={self.dimension}"]
        if self.scramble:
            text.append("scramble=True")
        if self.seed is not None:
            text.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(text)})"
