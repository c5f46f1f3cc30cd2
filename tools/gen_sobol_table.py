"""Writes the _PACKED blob of pydevtensor/_sobol_table.py from Joe and Kuo's direction
numbers file (new-joe-kuo-6.21201, https://web.maths.unsw.edu.au/~fkuo/sobol/): a header
line, then one line per dimension d >= 2, "d s a m_1 ... m_s".

    python tools/gen_sobol_table.py new-joe-kuo-6.21201 1111 > blob.txt

and paste blob.txt over _PACKED (see _sobol_table.py for the bit layout).
"""
import base64
import sys
import textwrap


def pack(lines, dimensions):
    bits = []
    for line in lines[1:dimensions]:  # rows for dimensions 2..dimensions
        d, s, a, *m = (int(x) for x in line.split())
        assert 1 <= s < 16 and a < 2 ** (s - 1) and len(m) == s, line
        assert all(x & 1 and x < 2 ** i for i, x in enumerate(m, 1)), line
        bits.append(format(s, "04b") + (format(a, f"0{s - 1}b") if s > 1 else ""))
        bits += [format(x >> 1, f"0{i - 1}b") for i, x in enumerate(m, 1) if i > 1]
    text = "".join(bits)
    text += "0" * (-len(text) % 8)
    return base64.b64encode(int(text, 2).to_bytes(len(text) // 8, "big")).decode()


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        encoded = pack(f.read().splitlines(), int(sys.argv[2]))
    print("_PACKED = (")
    for piece in textwrap.wrap(encoded, 92):
        print(f'    "{piece}"')
    print(")")
