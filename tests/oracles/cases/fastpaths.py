# The values the observation writes without printf or repr (issue 5), at the
# edges of each fast path: integer digits around the 64-bit limits, floats
# around the exact-integer limit 2**53 and the switch to exponent notation at
# 1e16, strings of the lengths the short copy distinguishes (0..17 bytes), runs
# of plain text broken by every escape (quote, backslash, controls, Latin-1,
# UCS-2, UCS-4, spaces inside paths, "0x" addresses inside exception args), the
# str cap at 200, object numbers and lengths of two and three digits. The
# golden file was written by the printf implementation: the text must not move.
LOG = []


class Ünïcode:
    __slots__ = ("a", "b")


class S(str):
    pass


class F(float):
    pass


def make():
    objs = [[object() for _ in range(60)], [Ünïcode() for _ in range(60)]]
    objs[1][0].a = "slot value"
    return (objs,)


def program(objs):
    ints = [0, -1, 9, 10, 99, 100, -100, 2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1,
            2 ** 64, 10 ** 19, -(10 ** 19), 10 ** 200]
    floats = [0.0, -0.0, 1.0, -1.0, 2.0 ** 53 - 1, 2.0 ** 53, -(2.0 ** 53), 2.0 ** 53 + 2,
              1e15, 1e16, -1e16, 9999999999999998.0, 1e17, 123456789012345.0, 0.5, -0.5,
              1e-5, 1e22, 1e300, float("nan"), float("-inf"), F(3.0), F(-0.0),
              complex(2.0, -0.0), complex(-1e16, 0.25)]
    strs = ["", "a", "ab", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefghijklmno",
            "abcdefghijklmnop", "abcdefghijklmnopq", "x" * 200, "y" * 201,
            "caf\xe9 \xff end", "\x7f\x80\x00", "tab\tnl\nret\r", "quote'back\\slash",
            "\u20ac euro\u20ac", "emoji \U0001F600!", "0x1234567 not scrubbed here"]
    keys = {"a b": 1, ("x y", 2): 2, b"k e y": 3, -2.5: 4, S("s p"): 5,
            frozenset({"b a", "a b"}): 6, 2 ** 64: 7, "caf\xe9 x": 8}
    blobs = [b"", b"a b'\\\x00\x7f\x80\xff", b"z" * 201, bytearray(b"q r")]
    LOG.append(("values", len(ints), len(floats)))
    if len(LOG) == 2:
        raise ValueError("at 0x7f00deadbeef, 0x12345 short, 0xabcdefg, 00x1234567",
                         "\u20ac0x1234567\u20ac", b"0x1234567", ("0xffffff",))
    return (ints, floats, strs, keys, blobs, {"set", "of strs", "a b"}, objs[1][0])
