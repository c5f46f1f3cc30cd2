"""torch.quasirandom.SobolEngine (quasirandom.py, _sobol_table.py): the direction numbers
against the first rows of Joe and Kuo's published table and the primitivity of their
polynomials; the Sobol' points' known properties (every coordinate of the first 2**m points
one in each interval of width 2**-m; the first two coordinates a (0, m, 2)-net; a QMC
integral's closed form), scrambled and not; the engine's bookkeeping (draw in pieces,
fast_forward, reset, draw_base2, out, dtype) and its refusals."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.quasirandom import SobolEngine


def _one_per_interval(x, m):
    """Every column of x (2**m points in [0, 1)) has one point in each [k/2**m, (k+1)/2**m)."""
    cells = np.floor(np.asarray(x, dtype=np.float64) * 2 ** m).astype(np.int64)
    return all(sorted(col) == list(range(2 ** m)) for col in cells.T)


def _is_net_2d(x, m):
    """The (0, m, 2)-net property: each box [a/2**i, (a+1)/2**i) x [b/2**j, (b+1)/2**j)
    with i + j = m holds exactly one of the 2**m points."""
    for i in range(m + 1):
        j = m - i
        box = np.floor(x[:, 0] * 2 ** i).astype(np.int64) * 2 ** j + np.floor(x[:, 1] * 2 ** j)
        if sorted(box.astype(np.int64)) != list(range(2 ** m)):
            return False
    return True


def test_direction_numbers_are_joe_and_kuos_first_rows():
    # new-joe-kuo-6.21201, rows d = 2..6: (s, a, m_1..m_s)
    rows = [(1, 0, [1]), (2, 1, [1, 3]), (3, 1, [1, 3, 1]), (3, 2, [1, 1, 1]),
            (4, 1, [1, 1, 3, 3])]
    V = SobolEngine(6).sobolstate.numpy()
    assert (V[0] == 2 ** np.arange(29, -1, -1)).all()  # dimension 1: all m = 1
    for d, (s, a, m) in enumerate(rows, start=1):
        mj = [int(v) >> (29 - j) for j, v in enumerate(V[d])]  # the integers m_1..m_30
        assert mj[:s] == m
        c = [1] + [(a >> (s - 1 - k)) & 1 for k in range(1, s)] + [1]  # c_0..c_s
        for j in range(s, 30):  # m_j = XOR_k 2**k c_k m_(j-k), then XOR m_(j-s)
            want = mj[j - s]
            for k in range(1, s + 1):
                if c[k]:
                    want ^= mj[j - k] << k
            assert mj[j] == want


def _primitive(poly, s):
    """poly (bit i the coefficient of x**i, degree s) is primitive over GF(2): x has order
    2**s - 1 modulo poly."""
    def mulmod(a, b):
        r = 0
        while b:
            if b & 1:
                r ^= a
            b >>= 1
            a <<= 1
            if a >> s:
                a ^= poly
        return r

    def power(e):
        r, base = 1, 2 if s > 1 else 1
        while e:
            if e & 1:
                r = mulmod(r, base)
            base = mulmod(base, base)
            e >>= 1
        return r

    order = 2 ** s - 1
    primes = {p for p in range(2, order + 1) if order % p == 0
              and all(p % q for q in range(2, math.isqrt(p) + 1))}
    return power(order) == 1 and all(power(order // p) != 1 for p in primes)


def test_every_shipped_dimension_has_its_own_primitive_polynomial():
    from pydevtensor._sobol_table import MAXDIM, polynomials
    rows = polynomials()
    assert len(rows) == MAXDIM - 1
    assert len({poly for poly, _ in rows}) == MAXDIM - 1
    degrees = [poly.bit_length() - 1 for poly, _ in rows]
    assert degrees == sorted(degrees) and degrees[-1] == 13
    assert all(_primitive(poly, s) for (poly, _), s in zip(rows, degrees))
    assert not _primitive(0b101, 2) and not _primitive(0b1111, 3)  # (x+1)^2; (x+1)(x^2+x+1)
    assert all(len(m) == s and all(x & 1 and x < 2 ** i for i, x in enumerate(m, 1))
               for (_, m), s in zip(rows, degrees))


@pytest.mark.parametrize("scramble", [False, True])
def test_each_coordinate_of_the_first_2_to_the_m_points_is_balanced(scramble):
    x = SobolEngine(1111, scramble=scramble, seed=7).draw_base2(10, dtype=pdt.float64).numpy()
    assert x.shape == (1024, 1111) and x.min() >= 0 and x.max() < 1
    assert _one_per_interval(x, 10)


@pytest.mark.parametrize("scramble", [False, True])
def test_the_first_two_coordinates_are_a_0_m_2_net(scramble):
    x = SobolEngine(2, scramble=scramble, seed=3).draw(2 ** 9, dtype=pdt.float64).numpy()
    assert _is_net_2d(x, 9)
    assert not _is_net_2d(np.random.default_rng(0).random((2 ** 9, 2)), 9)


def test_unscrambled_points_are_the_gray_code_sums():
    # dimension 1 is the van der Corput sequence in Gray-code order: point i is the
    # bit reversal of gray(i) = i ^ (i >> 1) as a binary fraction
    x = SobolEngine(1).draw(300, dtype=pdt.float64).numpy()[:, 0]
    for i, xi in enumerate(x):
        g = i ^ (i >> 1)
        assert xi == sum(((g >> b) & 1) * 2.0 ** -(b + 1) for b in range(10))


def test_qmc_integral_of_a_product_matches_its_closed_form():
    # integral over [0, 1]^5 of prod(3 x_i^2) = 1; plain Monte Carlo's error at 4096
    # points is about 0.05, Sobol's is well under 0.01
    x = SobolEngine(5).draw(4096, dtype=pdt.float64).numpy()
    assert abs(np.prod(3 * x ** 2, axis=1).mean() - 1) < 1e-2
    y = SobolEngine(5, scramble=True, seed=0).draw(4096, dtype=pdt.float64).numpy()
    assert abs(np.prod(3 * y ** 2, axis=1).mean() - 1) < 1e-2


def test_draw_in_pieces_fast_forward_and_reset_give_the_same_points():
    whole = SobolEngine(7).draw(1000, dtype=pdt.float64).numpy()
    engine = SobolEngine(7)
    pieces = [engine.draw(n, dtype=pdt.float64).numpy() for n in (1, 0, 5, 250, 744)]
    assert (np.concatenate(pieces) == whole).all() and engine.num_generated == 1000
    assert (engine.reset().draw(3, dtype=pdt.float64).numpy() == whole[:3]).all()
    assert (SobolEngine(7).fast_forward(0).fast_forward(400).draw(
        600, dtype=pdt.float64).numpy() == whole[400:]).all()
    quasi = engine.fast_forward(10).quasi.numpy()
    assert (quasi * 2.0 ** -30 == whole[12]).all()


def test_float32_points_are_the_integers_rounded_to_float32():
    x64 = SobolEngine(20).fast_forward(12345).draw(64, dtype=pdt.float64).numpy()
    x32 = SobolEngine(20).fast_forward(12345).draw(64).numpy()
    assert x32.dtype == np.float32
    assert (x32 == (x64 * 2.0 ** 30).astype(np.float32) * np.float32(2.0 ** -30)).all()
    pdt.set_default_dtype(pdt.float64)
    try:
        assert SobolEngine(2).draw(3).dtype == pdt.float64
    finally:
        pdt.set_default_dtype(pdt.float32)


def test_scrambling_is_seeded():
    a = SobolEngine(4, scramble=True, seed=11).draw(16).numpy()
    assert (SobolEngine(4, scramble=True, seed=11).draw(16).numpy() == a).all()
    assert not (SobolEngine(4, scramble=True, seed=12).draw(16).numpy() == a).all()
    assert not (SobolEngine(4, scramble=True).draw(16).numpy() == a).all()
    assert (SobolEngine(4).shift.numpy() == 0).all()
    assert SobolEngine(4, scramble=True, seed=11).shift.numpy().any()


def test_out_is_resized_and_filled(device):
    out = pdt.zeros(3, device=device)
    got = SobolEngine(2).draw(4, out=out)
    assert got is out and out.shape == (4, 2) and out.device.type == device.type
    assert (out.cpu().numpy() == SobolEngine(2).draw(4).numpy()).all()
    assert SobolEngine(2).draw_base2(1, out=out) is out and out.shape == (2, 2)


def test_draw_base2_keeps_the_total_a_power_of_two():
    engine = SobolEngine(3)
    assert engine.draw_base2(3).shape == (8, 3)
    assert engine.draw_base2(3).shape == (8, 3)
    with pytest.raises(ValueError, match=r"16 points have been previously generated, then: "
                                         r"n=16\+2\*\*2=20"):
        engine.draw_base2(2)
    assert engine.num_generated == 16


def test_repr():
    assert repr(SobolEngine(3)) == "SobolEngine(dimension=3)"
    assert repr(SobolEngine(3, scramble=True)) == "SobolEngine(dimension=3, scramble=True)"
    assert (repr(SobolEngine(3, scramble=True, seed=4))
            == "SobolEngine(dimension=3, scramble=True, seed=4)")


def test_bad_input_is_refused_and_changes_nothing():
    with pytest.raises(ValueError, match=r"\[1, 1111\].*PyTorch ships 21201.*dimension=1112"):
        SobolEngine(1112)
    with pytest.raises(ValueError, match=r"dimension=0"):
        SobolEngine(0)
    with pytest.raises(TypeError, match="dimension must be an int, got float"):
        SobolEngine(2.0)
    with pytest.raises(TypeError, match="scramble must be a bool, got int"):
        SobolEngine(2, scramble=1)
    with pytest.raises(TypeError, match="seed must be an int, got str"):
        SobolEngine(2, scramble=True, seed="1")
    engine = SobolEngine(2)
    engine.draw(3)
    with pytest.raises(ValueError, match=r"draw\(\): n must be >= 0, got -1"):
        engine.draw(-1)
    with pytest.raises(pdt.DTypeError, match="float32 or float64, got pydevtensor.int64"):
        engine.draw(2, dtype=pdt.int64)
    with pytest.raises(TypeError, match="out must be a Tensor, got list"):
        engine.draw(2, out=[])
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        engine.draw(2, out=pdt.zeros(1, requires_grad=True))  # the engine does not advance
    with pytest.raises(ValueError, match=r"2\*\*30 points; 3 drawn"):
        engine.fast_forward(2 ** 30)
    with pytest.raises(TypeError, match=r"fast_forward\(\): n must be an int, got float"):
        engine.fast_forward(1.0)
    assert engine.num_generated == 3
