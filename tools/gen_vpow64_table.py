"""Writes csrc/cpu/cpu_vpow64_table.h, the log table of the float64 powers (Note [float64
powers] in csrc/cpu/cpu_vpow64.h), to standard output:

    python tools/gen_vpow64_table.py > csrc/cpu/cpu_vpow64_table.h

x = 2^k z, z in [OFF, 2 OFF) by the bits, 128 intervals of 2^45 float64 ulps each; OFF
puts 1.0 in the middle of interval 75, which takes invc = 1 and logc = 0 (z near 1 keeps
its relative accuracy).  Every other interval takes the invc on a grid (multiples of 2^-7
below 1, where z is a multiple of 2^-53; of 2^-8 above, where z is a multiple of 2^-52)
that makes max |z invc - 1| over the interval smallest: z invc is then a multiple of 2^-60
and r = z invc - 1, below 2^-7, is exact in one FMA.  logc = -log(invc) in two parts: the
high one a multiple of 2^-42, as ln2_hi's multiples are, so that k ln2_hi + logc_hi is
exact; the rest rounded to a double.  Everything is computed with Python's decimal module
at 50 digits and rounded once (float(Decimal) is correctly rounded), so the table does not
depend on the machine's C library.  tests/test_pow64.py checks that the header is what this
script writes.
"""
import struct
from decimal import Decimal, getcontext

getcontext().prec = 50
BITS = 7
CENTRE = 75
OFF = 0x3FF0000000000000 - (CENTRE << 45) - (1 << 44)


def f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def table():
    rows = []
    worst = Decimal(0)
    for j in range(1 << BITS):
        lo, hi = Decimal(f64(OFF + (j << 45))), Decimal(f64(OFF + ((j + 1) << 45)))
        if j == CENTRE:
            rows.append((1.0, 0.0, 0.0))
            worst = max(worst, abs(lo - 1), abs(hi - 1))
            continue
        grid = Decimal(2) ** (-7 if hi <= 1 else -8)
        centre = 2 / (lo + hi)
        best = None
        for step in range(-3, 4):
            c = (centre / grid).to_integral_value() * grid + step * grid
            err = max(abs(lo * c - 1), abs(hi * c - 1))
            if best is None or err < best[0]:
                best = (err, c)
        err, invc = best
        assert err < Decimal(2) ** -7, (j, err)
        worst = max(worst, err)
        logc = -invc.ln()
        q = Decimal(2) ** -42
        logc_hi = (logc / q).to_integral_value() * q
        rows.append((float(invc), float(logc_hi), float(logc - logc_hi)))
    return rows, worst


def main():
    rows, worst = table()
    print("/* cpu_vpow64_table.h - written by tools/gen_vpow64_table.py; do not edit.")
    print(f" * The log table of the float64 powers (Note [float64 powers] in cpu_vpow64.h):")
    print(f" * OFF = 0x{OFF:016x}, 128 intervals, max |r| = {float(worst):.6g}. */")
    print(f"#define V64P_OFF 0x{OFF:016x}ull")
    for name, k in (("invc", 0), ("logc", 1), ("logctail", 2)):
        print(f"static const double v64p_{name}[128] = {{")
        for i in range(0, 128, 3):
            print("    " + ", ".join(float.hex(r[k]) for r in rows[i:i + 3]) + ",")
        print("};")


if __name__ == "__main__":
    main()
