# Reference writers for the oracles' property tests (or_test prop float_repr,
# int_repr, str_escape): Python's own repr, and the escaping that
# docs/OBSERVATION.md specifies, written independently of oracles/or_value.c. Each
# program returns r1 = a tuple of tuples of values, and sets EXPECTED to the text
# the [r1] section must read. The values are drawn from a seeded generator around
# the edges of the C fast paths (exact integers below 2**53, repr's switch to
# exponent notation, 64-bit integer limits, plain runs broken by escapes).
import random
import struct

CAP_STR = 200
ROW = 50   # below the items cap (64)


def escape(s, quote="'"):
    out = []
    for ch in s:
        c = ord(ch)
        if ch == "\\" or ch == quote:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= c < 0x7F:
            out.append(ch)
        elif c < 0x100:
            out.append("\\x%02x" % c)
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:
            out.append("\\U%08x" % c)
    return "".join(out)


def text_of_str(s):
    t = "'" + escape(s[:CAP_STR]) + "'"
    if len(s) > CAP_STR:
        t += "...<cap str %d>" % len(s)
    return t


def text_of_int(v):
    r = repr(v)
    if len(r) > CAP_STR:
        r = r[:CAP_STR] + "...<cap str %d>" % len(r)
    return r


def rows(values, text_of):
    """r1 as a tuple of rows, and the [r1] text it must read."""
    table = tuple(tuple(values[i:i + ROW]) for i in range(0, len(values), ROW))
    lines = ["r1 = tuple[%d]" % len(table)]
    for i, row in enumerate(table):
        lines.append("r1[%d] = tuple[%d]" % (i, len(row)))
        for j, v in enumerate(row):
            lines.append("r1[%d][%d] = %s" % (i, j, text_of(v)))
    return table, "\n".join(lines) + "\n"


def floats(rng):
    vals = [0.0, -0.0, 2.0 ** 53, -(2.0 ** 53), 2.0 ** 53 - 1, 2.0 ** 53 + 2, 1e16, 1e16 - 2,
            -1e16, 1e15, 1e17, 5e-324, 1.7976931348623157e308, float("inf"),
            float("-inf"), float("nan"), 0.1, 1e-4, 1e-5, 9.2233720368547758e18]
    for k in range(54):
        vals += [2.0 ** k, -(2.0 ** k) + 1, 10.0 ** (k % 23)]
    while len(vals) < 1500:
        pick = rng.randrange(4)
        if pick == 0:   # any bit pattern
            vals.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
        elif pick == 1:   # an exact integer, up to and past 2**53
            vals.append(float(rng.randrange(-(2 ** 55), 2 ** 55) >> rng.randrange(56)))
        elif pick == 2:   # a short decimal
            vals.append(rng.randrange(-10 ** 6, 10 ** 6) / 10 ** rng.randrange(8))
        else:   # around the notation switch
            vals.append(rng.choice([1, -1]) * rng.random() * 10.0 ** rng.randrange(12, 20))
    return vals


def ints(rng):
    vals = [0, 1, -1, 9, 10, -10, 2 ** 63 - 1, -(2 ** 63), 2 ** 63, -(2 ** 63) - 1, 2 ** 64,
            -(2 ** 64), 10 ** 19, 10 ** 18, 2 ** 4096 - 1, -(2 ** 4096 - 1)]
    while len(vals) < 1500:
        v = rng.getrandbits(rng.choice([3, 8, 17, 31, 32, 33, 62, 63, 64, 65, 100, 700]))
        vals.append(v if rng.random() < 0.5 else -v)
    return vals


POOLS = [
    "abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,;:!?()[]{}<>=+-*/_~#@$%^&|`\"",
    "'\\", "\n\r\t\x00\x01\x1b\x7f", "\x80\xa0\xe9\xff",
    "\u0100\u20ac\u4e2d\ufffd", "\U0001F600\U00010000\U0010FFFF",
]


def strs(rng):
    vals = ["", "x" * CAP_STR, "y" * (CAP_STR + 1), "\xe9" * (CAP_STR + 5)]
    while len(vals) < 1500:
        # mostly plain text, with escapes from one or two other pools mixed in
        mix = [0] * 6 + rng.sample(range(1, len(POOLS)), rng.randrange(0, 3))
        n = rng.choice([rng.randrange(0, 20), rng.randrange(0, 260)])
        vals.append("".join(rng.choice(POOLS[rng.choice(mix)]) for _ in range(n)))
    return vals
