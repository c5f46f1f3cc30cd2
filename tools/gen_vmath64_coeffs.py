"""The polynomial coefficients of csrc/cpu/cpu_vmath64.h (Note [float64 vector math]),
csrc/cpu/cpu_vmath64_avx512.h (Note [float64 exp with a table]) and the float32 logs of
csrc/cpu/cpu_vtrig_avx512.h (Note [float32 log2 and log10 with a table]), fitted here with mpmath: Chebyshev interpolation (mpmath.chebyfit, near-minimax) of each
function at 200-bit precision, the coefficients rounded to double, and the largest
relative error of the rounded polynomial printed, measured at 4000 points.

    python tools/gen_vmath64_coeffs.py

Prints C initialisers, highest degree first, as the headers use them, then the table of
2^(j/16) as doubles and their rests, the table of -log(j/16), ln2/16 split into 38
bits and the rest, and the float32 logs' polynomials (rounded to float) and tables."""
import struct

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


def g_asin(z):  # (asin r - r) / r^3, z = r^2 <= 1/4
    if z == 0:
        return mp.mpf(1) / 6
    r = mp.sqrt(z)
    return (mp.asin(r) - r) / r**3


def g_atan(z):  # (atan u - u) / u^3, z = u^2 <= tan(pi/8)^2
    if z == 0:
        return -mp.mpf(1) / 3
    u = mp.sqrt(z)
    return (mp.atan(u) - u) / u**3


FITS = {  # name: function, interval, degree
    "exp": (g_exp, (-0.3466, 0.3466), 10),
    "exp16": (g_exp, (-0.02167, 0.02167), 5),  # |r| <= ln2/32, the table's
    "log": (g_log, (0, ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2 * 1.0001), 7),
    "log1p16": (g_log1p, (-0.0476, 0.0476), 9),  # r = m c - 1, c in sixteenths
    "sin": (g_sin, (0, (mp.pi / 4) ** 2 * 1.0001), 6),
    "cos": (g_cos, (0, (mp.pi / 4) ** 2 * 1.0001), 6),
    "asin": (g_asin, (0, 0.25 * 1.0001), 12),  # cpu_vfunc64.h's asin and acos
    "atan": (g_atan, (0, (mp.sqrt(2) - 1) ** 2 * 1.0001), 11),  # and its atan
}


def f32(v):
    """v rounded to float32"""
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def float32_logs():
    """For log2, log and log10 (cpu_vtrig_avx512.h's vta_log tables): Q of degree 3 in
    log_b(1 + r) = r K + r^2 Q(r), K = log_b(e), |r| <= 2^-5 + 2^-12, its coefficients
    rounded to float; -log_b(j/32) for j = 16..32 at index j mod 32 as a multiple of 2^-15
    and the rest; K and log_b(2) (the latter to 2^-15) in two floats each."""
    R = mp.mpf(2) ** -5 + mp.mpf(2) ** -12
    for name, base in (("log2", mp.mpf(2)), ("log", mp.e), ("log10", mp.mpf(10))):
        K = 1 / mp.log(base)

        def q(r):
            return -K / 2 if r == 0 else (mp.log1p(r) * K - r * K) / r**2
        poly, _ = mp.chebyfit(q, [-R, R], 4, error=True)
        coefs = [f32(c) for c in poly]
        worst = mp.mpf(0)
        for i in range(4001):
            r = -R + 2 * R * mp.mpf(i) / 4000
            if r:
                p = mp.mpf(0)
                for c in coefs:
                    p = p * r + mp.mpf(c)
                worst = max(worst, abs((r * K + r * r * p) / (mp.log1p(r) * K) - 1))
        print(f"/* float32 {name}'s Q: relative error 2^{float(mp.log(worst, 2)):.1f} */")
        print("{" + ", ".join(c.hex() + "f" for c in coefs) + "}")
        hi, lo = [0.0] * 32, [0.0] * 32
        for j in range(16, 33):
            v = -mp.log(mp.mpf(j) / 32) * K
            h = mp.nint(v * 2 ** 15) / 2 ** 15
            hi[j % 32], lo[j % 32] = float(h), f32(v - h)
        print(f"/* -{name}(j/32), j mod 32 */\n{{" + ", ".join(v.hex() + "f" for v in hi) + "}")
        print("/* the rest */\n{" + ", ".join(v.hex() + "f" for v in lo) + "}")
        l2 = mp.log(2) * K
        l2h = mp.nint(l2 * 2 ** 15) / 2 ** 15
        print(f"/* {name}: K */ {f32(K).hex()}f {f32(K - f32(K)).hex()}f"
              f"  /* log_b(2) */ {f32(l2h).hex()}f {f32(l2 - l2h).hex()}f")


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
    float32_logs()


if __name__ == "__main__":
    main()
