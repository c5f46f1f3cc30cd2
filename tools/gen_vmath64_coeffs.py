"""The polynomial coefficients of csrc/cpu/cpu_vmath64.h (Note [float64 vector math]) and
csrc/cpu/cpu_vmath64_avx512.h (Note [float64 exp with a table]), fitted here with mpmath: Chebyshev interpolation (mpmath.chebyfit, near-minimax) of each
function at 200-bit precision, the coefficients rounded to double, and the largest
relative error of the rounded polynomial printed, measured at 4000 points.

    python tools/gen_vmath64_coeffs.py

Prints C initialisers, highest degree first, as the headers use them, then the table of
2^(j/16) as doubles and their rests, the table of -log(j/16), and ln2/16 split into 38
bits and the rest."""
import mpmath as mp

mp.mp.prec = 200


def g_exp(r):  # (e^r - 1 - r) / r^2, r in [-ln2/2, ln2/2]
    return mp.mpf(0.5) if r == 0 else (mp.exp(r) - 1 - r) / r**2


def g_log(z):  # (2 atanh(s) / s - 2) / z, z = s^2, s in [0, (sqrt2 - 1) / (sqrt2 + 1)]
    if z == 0:
        return mp.mpf(2) / 3
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) / s - 2) / z


def g_log1p(r):  # (log1p(r) - r) / r^2, |r| <= 0.0476 (log's AVX-512 kernel)
    return mp.mpf(-0.5) if r == 0 else (mp.log1p(r) - r) / r**2


def g_sin(z):  # (sin r - r) / r^3, z = r^2, |r| <= pi/4
    if z == 0:
        return -mp.mpf(1) / 6
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / r**3


def g_cos(z):  # (cos r - 1 + z/2) / z^2
    if z == 0:
        return mp.mpf(1) / 24
    r = mp.sqrt(z)
    return (mp.cos(r) - 1 + z / 2) / z**2


FITS = {  # name: function, interval, degree
    "exp": (g_exp, (-0.3466, 0.3466), 10),
    "exp16": (g_exp, (-0.02167, 0.02167), 5),  # |r| <= ln2/32, the table's
    "log": (g_log, (0, ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2 * 1.0001), 7),
    "log1p16": (g_log1p, (-0.0476, 0.0476), 9),  # r = m c - 1, c in sixteenths
    "sin": (g_sin, (0, (mp.pi / 4) ** 2 * 1.0001), 6),
    "cos": (g_cos, (0, (mp.pi / 4) ** 2 * 1.0001), 6),
}


def main():
    for name, (f, (a, b), deg) in FITS.items():
        poly, _ = mp.chebyfit(f, [a, b], deg + 1, error=True)
        coefs = [float(c) for c in poly]
        worst = mp.mpf(0)
        for i in range(4001):
            x = a + (b - a) * mp.mpf(i) / 4000
            p = mp.mpf(0)
            for c in coefs:
                p = p * x + mp.mpf(c)
            worst = max(worst, abs(p / f(x) - 1))
        print(f"/* {name}: degree {deg} on [{float(a):.6g}, {float(b):.6g}], "
              f"relative error 2^{float(mp.log(worst, 2)):.1f} */")
        print("{" + ", ".join(c.hex() for c in coefs) + "}")
    hi = [float(mp.power(2, mp.mpf(j) / 16)) for j in range(16)]
    lo = [float(mp.power(2, mp.mpf(j) / 16) - mp.mpf(h)) for j, h in enumerate(hi)]
    print("/* 2^(j/16) */\n{" + ", ".join(h.hex() for h in hi) + "}")
    print("/* 2^(j/16) - the above */\n{" + ", ".join(v.hex() for v in lo) + "}")
    # -log(j/16) for j = 11..21 at index j mod 16: a part that is a multiple of 2^-42
    # (so that e ln2_hi + it is exact) and the rest
    lch, lcl = [0.0] * 16, [0.0] * 16
    for j in range(11, 22):
        v = -mp.log(mp.mpf(j) / 16)
        h = mp.nint(v * 2 ** 42) / 2 ** 42
        lch[j % 16], lcl[j % 16] = float(h), float(v - h)
    print("/* -log(j/16), j mod 16 */\n{" + ", ".join(v.hex() for v in lch) + "}")
    print("/* the rest */\n{" + ", ".join(v.hex() for v in lcl) + "}")
    ln2 = mp.log(2)
    hi38 = mp.nint(ln2 * 2 ** 38) / 2 ** 38  # ln2 in [1/2, 1): 38 significant bits
    print(f"/* ln2/16 */ {float(hi38 / 16).hex()} {float((ln2 - hi38) / 16).hex()}")


if __name__ == "__main__":
    main()
