"""Writes csrc/cpu/cpu_vtanh_table.h, the table of float32 tanh's polynomials (Note [tanh
by a table of polynomials] in csrc/cpu/cpu_vmathf.h), to standard output:

    python tools/gen_vtanh_table.py > csrc/cpu/cpu_vtanh_table.h

|x| is cut into 30 intervals: [0, 1/16), the quarters of each binade from 1/16 to 8, and
[8, s], s = 9.0109... the least float32 whose tanh rounds to 1, to which the kernel clamps
|x|.  An interval's index is (bits(|x|) >> 21) - 491, at least 0, so that one
two-register permute of 32 floats looks its entries up.  On interval j,
tanh(b_j + y) = c0 + y (c1 + y (c2 + y (c3 + y (c4 + y c5)))), with:

- b_j a float32 near the interval's centre whose tanh is within 0.002 ulp of a float32
  (Gal's accurate tables), so that c0 = tanh(b_j) rounded to float32 costs no accuracy
  at y = 0, and y = |x| - b_j is exact (Sterbenz: b_j / 2 <= |x| <= 2 b_j);
- c1 .. c5 fitted toward the relative minimax by Lawson's iteration on Chebyshev nodes,
  rounded to float32 one at a time from c0 up, the rest refitted after each;
- on [0, 1/16), b = 0 and the odd form x + c3 x^3 + c5 x^5 (c0 = c2 = c4 = 0, c1 = 1),
  so that tanh(x) = x exactly for tiny and subnormal x.

The fit runs in Python's floats with correctly rounded operations only (+ - * /,
math.fsum, Decimal to float; no libm call, no built-in sum, whose rounding changed in
Python 3.12) and the reference tanh and the nodes' cosines in its decimal module at 30
digits, so the table does not depend on the machine, its libraries or Python's
version.  tests/test_vmath.py checks that the header is what this script writes, and its
accuracy on a dense sample; tools/check_vtanh_table.c checks a new table over all 2^32
floats (at most 0.9941 ulp, never decreasing, for the table committed).
"""
import math
import struct
from decimal import Decimal, getcontext

getcontext().prec = 30
BASE = 491          # (bits(1/16) >> 21) - 1: index 0 holds [0, 1/16)
DEGREE = 5
NODES = 64
ROUNDS = 20         # Lawson's iterations per refit


def round_f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def bits_f32(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def tanh_dec(x):
    e = (2 * Decimal(x)).exp()
    return (e - 1) / (e + 1)


def saturation():
    """The least float32 whose tanh rounds to 1 (1 - tanh(x) <= 2^-25, the half ulp
    below 1): |x| is clamped to it."""
    u = f32_bits(9.0)
    while tanh_dec(bits_f32(u)) < 1 - Decimal(2) ** -25:
        u += 1
    return bits_f32(u)


def powi(v, k):
    """v^k by k - 1 products (not libm's pow, which need not round the same everywhere)."""
    out = 1.0
    for _ in range(k):
        out *= v
    return out


# pi to 50 digits, for the Chebyshev nodes
PI = Decimal("3.14159265358979323846264338327950288419716939937510")


def cos_dec(x):
    """cos x for a Decimal |x| <= pi, by its Taylor series to the context's precision."""
    term, total, k = Decimal(1), Decimal(1), 0
    while abs(term) > Decimal(10) ** -35:
        term *= -x * x / ((2 * k + 1) * (2 * k + 2))
        total += term
        k += 1
    return total


def intervals(clamp):
    out = [(0.0, 1 / 16)]
    for e in range(-4, 3):
        for q in range(4):
            out.append((math.ldexp(1 + q / 4, e), math.ldexp(1 + (q + 1) / 4, e)))
    out.append((8.0, clamp))
    return out


def gal_point(lo, hi):
    """The float32 nearest (lo + hi) / 2, searching outward, whose tanh is within 0.002
    float32 ulp of a float32; the best one met within 4000 floats if none is (on [7, 8)
    and [8, s], where tanh is within 2^-19 of 1 and moves by less than an ulp over the
    search: 0.23 and 0.36 ulp there)."""
    mid = f32_bits(round_f32((lo + hi) / 2))
    best = None
    for k in range(4000):
        for u in ((mid + k, mid - k) if k else (mid,)):
            b = bits_f32(u)
            t = tanh_dec(b)
            t32 = round_f32(float(t))
            ulp = math.ulp(t32) * (1 << 29)  # a float32 ulp (t32 normal, below 1)
            d = abs(t - Decimal(t32)) / Decimal(ulp)
            if best is None or d < best[0]:
                best = (d, b)
            if d < Decimal("0.002"):
                return b
    return best[1]


def solve(a, r):
    """a x = r by Gaussian elimination with partial pivoting (a small, dense)."""
    n = len(r)
    m = [row[:] + [r[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        for i in range(c + 1, n):
            f = m[i][c] / m[c][c]
            for j in range(c, n + 1):
                m[i][j] -= f * m[c][j]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - math.fsum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def fit(lo, hi):
    """b and c0 .. c5 (float32 values) for the interval [lo, hi)."""
    b = 0.0 if lo == 0 else gal_point(lo, hi)
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * float(cos_dec(PI * (2 * i + 1) / (2 * NODES)))
          for i in range(NODES)]
    ys = [x - b for x in xs]
    fs = [float(tanh_dec(x)) for x in xs]
    scale = max(abs(y) for y in ys)
    fixed = {0: 0.0, 1: 1.0, 2: 0.0, 4: 0.0} if lo == 0 else {}
    while len(fixed) <= DEGREE:
        free = [k for k in range(DEGREE + 1) if k not in fixed]
        rows = [[powi(y / scale, k) / f for k in free] for y, f in zip(ys, fs)]
        rhs = [(f - math.fsum(c * powi(y, k) for k, c in fixed.items())) / f
               for y, f in zip(ys, fs)]
        w = [1.0 / NODES] * NODES
        for _ in range(ROUNDS):
            g = [[math.fsum(w[i] * rows[i][p] * rows[i][q] for i in range(NODES))
                  for q in range(len(free))] for p in range(len(free))]
            v = [math.fsum(w[i] * rows[i][p] * rhs[i] for i in range(NODES))
                 for p in range(len(free))]
            a = solve(g, v)
            res = [abs(math.fsum(ap * rp for ap, rp in zip(a, row)) - h)
                   for row, h in zip(rows, rhs)]
            w = [wi * (ri + 1e-30) for wi, ri in zip(w, res)]
            total = math.fsum(w)
            w = [wi / total for wi in w]
        fixed[free[0]] = round_f32(a[0] / powi(scale, free[0]))
    return b, [fixed[k] for k in range(DEGREE + 1)]


def c_float(v):
    """v (a float32 value) as a C hex literal, its mantissa's trailing zeros dropped."""
    if v == 0:
        return "0.0f"
    mantissa, exponent = v.hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def c_row(values):
    cells = [c_float(v) for v in values]
    return ",\n     ".join(", ".join(cells[i:i + 8]) for i in range(0, len(cells), 8))


def main():
    clamp = saturation()
    table = [fit(lo, hi) for lo, hi in intervals(clamp)]
    # nothing reaches these: a NaN's index (529 to 532) selects 17 to 20 by its low 5 bits
    table += [(0.0, [0.0] * (DEGREE + 1))] * (32 - len(table))
    print("/* cpu_vtanh_table.h - the table of float32 tanh's polynomials (Note [tanh by a\n"
          " * table of polynomials], cpu_vmathf.h).  Written by tools/gen_vtanh_table.py; do\n"
          " * not edit. */\n"
          "#ifndef PDT_CPU_VTANH_TABLE_H\n#define PDT_CPU_VTANH_TABLE_H\n"
          "/* clang-format off */\n")
    print(f"#define PDT_TANH_BASE {BASE} /* interval (bits(|x|) >> 21) - BASE, at least 0 */")
    print(f"#define PDT_TANH_CLAMP {c_float(clamp)} /* |x| is clamped to it: tanh rounds to 1 */\n")
    columns = [[b for b, _ in table]] + [[c[k] for _, c in table] for k in range(DEGREE + 1)]
    names = ["b_j: y = |x| - b_j"]
    names += [f"c{k}_j: the coefficient of y^{k}" for k in range(DEGREE + 1)]
    rows = [f"    /* {name} */\n    {{{c_row(col)}}}" for name, col in zip(names, columns)]
    print(f"static const float pdt_tanh_table[{DEGREE + 2}][32] = {{")
    print(",\n".join(rows) + "};")
    print("/* clang-format on */\n#endif")


if __name__ == "__main__":
    main()
