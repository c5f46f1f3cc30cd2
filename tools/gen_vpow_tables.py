"""Writes csrc/cpu/cpu_vpow_tables.h, the tables of the float32 powers (Note [float32
powers] in csrc/cpu/cpu_vpow.h), to standard output:

    python tools/gen_vpow_tables.py > csrc/cpu/cpu_vpow_tables.h

Everything is computed exactly or with Python's decimal module at 40 digits and then
rounded once to the nearest double (float(Decimal) is correctly rounded), so the
tables do not depend on the C library of the machine that makes them.
tests/test_vmath.py checks that the header is what this script writes.
"""
import struct
from decimal import Decimal, getcontext

getcontext().prec = 40

# log's reduction: x = 2^k z, z in [OFF, 2 OFF) by the bits (as glibc's logf and powf
# reduce), 32 intervals of 2^18 float32 ulps each.  OFF puts 1.0 in the middle of
# interval 15 (bits 2^17 on either side), so that z near 1 takes invc = 1, logc = 0.
LOG_BITS = 5
OFF = 0x3F800000 - (15 << 18) - (1 << 17)


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def round_f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def log_tables():
    invc, logc = [], []
    for j in range(1 << LOG_BITS):
        lo, hi = f32(OFF + (j << 18)), f32(OFF + ((j + 1) << 18))
        # the centre of the interval's values; 1/c rounded to float32, so that z * invc
        # (24 x 24 bits) is exact in double and z * invc - 1 too (Sterbenz)
        ic = 1.0 if lo <= 1.0 < hi else round_f32(float(2 / (Decimal(lo) + Decimal(hi))))
        invc.append(ic)
        logc.append(float(-Decimal(ic).ln()))
    return invc, logc


def exp_table():
    # 2^(j/32): e^(j ln2 / 32)
    return [float((Decimal(j) / 32 * Decimal(2).ln()).exp()) for j in range(32)]


def c_array(name, values):
    rows = [", ".join(v.hex() for v in values[i:i + 4]) for i in range(0, len(values), 4)]
    body = ",\n    ".join(rows)
    return f"static const double {name}[{len(values)}] = {{\n    {body}}};\n"


def main():
    invc, logc = log_tables()
    print("/* cpu_vpow_tables.h - the tables of the float32 powers (Note [float32 powers],\n"
          " * cpu_vpow.h).  Written by tools/gen_vpow_tables.py; do not edit. */\n"
          "#ifndef PDT_CPU_VPOW_TABLES_H\n#define PDT_CPU_VPOW_TABLES_H\n"
          "/* The script's layout, which tests/test_vmath.py compares: */\n/* clang-format off */\n")
    print(f"#define PDT_POW_OFF 0x{OFF:08x}u /* log's reduction: z in [OFF, 2 OFF) */\n")
    print("/* 1 / c_j, c_j the centre of log interval j, rounded to float32 (1 for the one"
          "\n * holding 1.0) */")
    print(c_array("pdt_pow_invc", invc))
    print("/* -log(invc_j), rounded to double */")
    print(c_array("pdt_pow_logc", logc))
    print("/* 2^(j / 32), rounded to double */")
    print(c_array("pdt_pow_exp2", exp_table()))
    print("/* clang-format on */\n#endif")


if __name__ == "__main__":
    main()
