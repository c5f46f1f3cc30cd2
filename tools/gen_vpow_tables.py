"""Writes csrc/cpu/cpu_vpow_tables.h, the tables of the float32 powers (Note [float32
powers with tables] in csrc/cpu/cpu_vpow.h), to standard output:

    python tools/gen_vpow_tables.py > csrc/cpu/cpu_vpow_tables.h

Everything is computed exactly or with Python's decimal module at 40 digits and then
rounded once to the nearest double (float(Decimal) is correctly rounded), so the
tables do not depend on the C library of the machine that makes them.
tests/test_vmath.py checks that the header is what this script writes.
"""
import struct
from decimal import Decimal, getcontext

getcontext().prec = 40
LN2 = Decimal(2).ln()

# log2's reduction: x = 2^k z, z in [OFF, 2 OFF) by the bits (as glibc's logf and powf
# reduce), 16 intervals of 2^19 float32 ulps each, so that one two-register permute
# looks an entry up.  OFF puts 1.0 in the middle of interval 7 (bits 2^18 on either
# side), so that z near 1 takes invc = 1, logc = 0.
LOG_BITS = 4
OFF = 0x3F800000 - (7 << 19) - (1 << 18)
# 2^s for |s| <= 1/32: 16 entries 2^(j/16) and a series
EXP_BITS = 4
LOG_DEGREE = 10  # log2(1 + r) by Taylor to r^10, |r| < 2^-5 (the Note)
EXP_DEGREE = 6   # 2^s - 1 by Taylor to s^6, |s| <= 1/32


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def round_f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def log_tables():
    invc, logc = [], []
    for j in range(1 << LOG_BITS):
        lo, hi = f32(OFF + (j << 19)), f32(OFF + ((j + 1) << 19))
        # the centre of the interval's values; 1/c rounded to float32, so that z * invc
        # (24 x 24 bits) is exact in double and z * invc - 1 too (Sterbenz)
        ic = 1.0 if lo <= 1.0 < hi else round_f32(float(2 / (Decimal(lo) + Decimal(hi))))
        invc.append(ic)
        logc.append(float(-Decimal(ic).ln() / LN2))
    return invc, logc


def exp_table():
    # 2^(j/16) = e^(j ln2 / 16)
    return [float((Decimal(j) / (1 << EXP_BITS) * LN2).exp()) for j in range(1 << EXP_BITS)]


def log_series():
    # log2(1 + r) = sum over i >= 1 of (-1)^(i+1) r^i / (i ln2)
    return [float((-1) ** (i + 1) / (i * LN2)) for i in range(1, LOG_DEGREE + 1)]


def exp_series():
    # 2^s - 1 = sum over i >= 1 of (s ln2)^i / i!
    out, fact = [], 1
    for i in range(1, EXP_DEGREE + 1):
        fact *= i
        out.append(float(LN2 ** i / fact))
    return out


def c_array(name, values):
    rows = [", ".join(v.hex() for v in values[i:i + 4]) for i in range(0, len(values), 4)]
    body = ",\n    ".join(rows)
    return f"static const double {name}[{len(values)}] = {{\n    {body}}};\n"


def main():
    invc, logc = log_tables()
    print("/* cpu_vpow_tables.h - the tables of the float32 powers (Note [float32 powers\n"
          " * with tables], cpu_vpow.h).  Written by tools/gen_vpow_tables.py; do not edit. */\n"
          "#ifndef PDT_CPU_VPOW_TABLES_H\n#define PDT_CPU_VPOW_TABLES_H\n"
          "/* The script's layout, which tests/test_vmath.py compares: */\n/* clang-format off */\n")
    print(f"#define PDT_POW_OFF 0x{OFF:08x}u /* log2's reduction: z in [OFF, 2 OFF) */")
    print(f"#define PDT_POW_LOG_SHIFT {23 - LOG_BITS} /* z's interval: bits >> SHIFT, mod 16 */\n")
    print("/* 1 / c_j, c_j the centre of log interval j, rounded to float32 (1 for the one"
          "\n * holding 1.0) */")
    print(c_array("pdt_pow_invc", invc))
    print("/* -log2(invc_j), rounded to double */")
    print(c_array("pdt_pow_logc", logc))
    print("/* 2^(j / 16), rounded to double */")
    print(c_array("pdt_pow_exp2", exp_table()))
    print("/* log2(1 + r)'s Taylor coefficients: (-1)^(i+1) / (i ln2), i = 1 .. 10 */")
    print(c_array("pdt_pow_log2c", log_series()))
    print("/* 2^s - 1's Taylor coefficients: ln2^i / i!, i = 1 .. 6 */")
    print(c_array("pdt_pow_exp2c", exp_series()))
    print("/* clang-format on */\n#endif")


if __name__ == "__main__":
    main()
