"""Snippets: containers and their displays, unpacking (a, *b = ...), subscripts and
slicing, f-strings and formatting, arithmetic and augmented assignment (including on
attributes and subscripts), unary operators, global/nonlocal, del, string methods."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("data")

T.add("list_tuple_set_dict_displays", """
def make(): return (1, "k")
def program(a, k):
    return [a, a + 1], (a, k), {a, a}, {k: a, "z": [a]}, [], (), {}, set()
""")
T.add("display_with_starred", """
def make(): return ([1, 2], {"x": 1}, (3,))
def program(l, d, t):
    return [*l, *t, 0], (*l, *t), {*l, *t}, {**d, "y": 2, **{"x": 9}}, [*"ab"]
""")
T.add("const_key_dict", """
def make(): return (1, 2, 3)
def program(a, b, c):
    return {"a": a, "b": b, "c": c}, dict(a=a, b=b)
""")
T.add("aliasing_in_containers", """
def make(): return ([0],)
def program(x):
    outer = [x, x, [x]]
    d = {"p": x, "q": outer}
    return outer, d, outer[0] is outer[2][0]
""")
T.add("unpack_sequence", """
def make(): return ([1, 2, 3], "xy", {"k": 1, "j": 2})
def program(l, s, d):
    a, b, c = l
    p, q = s
    k1, k2 = d
    (m, n), o = (1, 2), 3
    return a, b, c, p, q, k1, k2, m, n, o
""")
T.add("unpack_star", """
def make(): return ([1, 2, 3, 4, 5],)
def program(l):
    a, *b = l
    *c, d = l
    e, *f, g = l
    h, *i = [1]
    return a, b, c, d, e, f, g, h, i
""")
T.add("unpack_errors", """
def make(): return ([1, 2, 3],)
def program(l):
    r = []
    try:
        a, b = l
    except ValueError as e:
        r.append(str(e))
    try:
        a, b, c, d = l
    except ValueError as e:
        r.append(str(e))
    try:
        a, b, *c, d, e = l
    except ValueError as e:
        r.append(str(e))
    try:
        a, b = 5
    except TypeError as e:
        r.append(str(e))
    return r
""")
T.add("unpack_swap_and_for_targets", """
def make(): return ([(1, "a"), (2, "b")],)
def program(pairs):
    x, y = 1, 2
    x, y = y, x
    a, b, c = 1, 2, 3
    a, b, c = c, a, b
    return x, y, a, b, c, [v for _, v in pairs], [k for k, *_ in pairs]
""")
T.add("unpack_into_attrs_and_items", """
class C: pass
def make(): return (C(), {})
def program(c, d):
    c.a, d["k"], *c.rest = [1, 2, 3, 4]
    return c.__dict__, d
""")
T.add("subscript_get_set_del", """
def make(): return ([1, 2, 3], {"a": 1})
def program(l, d):
    l[0] = l[-1]
    d["b"] = d["a"] + 1
    del l[1]
    del d["a"]
    return l, d
""")
T.add("slicing_all_forms", """
def make(): return (list(range(10)), "abcdef")
def program(l, s):
    return l[2:5], l[:3], l[7:], l[::2], l[::-1], l[-3:-1], l[1:8:3], s[1:-1], s[::-2], l[slice(1, 3)]
""")
T.add("slice_assign_delete", """
def make(): return (list(range(6)),)
def program(l):
    l[1:3] = ["a", "b", "c"]
    del l[::2]
    l[:0] = [9]
    return l
""")
T.add("slice_objects_and_indices", """
class I:
    def __index__(self): return 2
def make(): return ([0, 1, 2, 3],)
def program(l):
    s = slice(None, I())
    return l[s], l[I()], s.indices(4), l[I():]
""")
T.add("subscript_errors", """
def make(): return ([1], {})
def program(l, d):
    r = []
    for f in (lambda: l[5], lambda: d["x"], lambda: l["a"], lambda: len(l)[0], lambda: d[[]]):
        try:
            f()
        except Exception as e:
            r.append((type(e).__name__, str(e)))
    return r
""")
T.add("fstring_basic", """
def make(): return ("w", 3.14159, 42)
def program(s, f, n):
    return f"{s}-{n}", f"{f:.2f}", f"{n:>5}|{n:<5}|{n:^5}", f"{s!r} {s!s} {n!a}", f"{n:#x} {n:08b}"
""")
T.add("fstring_nested_spec", """
def make(): return (3.14159, 6, 2)
def program(v, w, p):
    return f"{v:{w}.{p}f}", f"{'x' * p}{{literal}}", f"{v=:.1f}"
""")
T.add("fstring_user_format_str", """
class C:
    def __format__(self, spec):
        LOG.append(spec)
        return "C" + spec
    def __str__(self): return "strC"
    def __repr__(self): return "reprC"
def make(): return (C(),)
def program(c):
    return f"{c} {c:spec} {c!s} {c!r}"
""")
T.add("format_and_percent", """
def make(): return ("n", 5)
def program(s, n):
    return "%s=%d" % (s, n), "{}-{:03d}".format(s, n), "%(a)s" % {"a": s}, format(n, "x")
""")
T.add("arith_ops", """
def make(): return (7, 2, 2.5)
def program(a, b, f):
    return (a + b, a - b, a * b, a / b, a // b, a % b, -a // b, -a % b, a ** b, f * a,
            a << b, a >> 1, a & b, a | b, a ^ b, divmod(a, b), 2 ** -1, 10 ** 20)
""")
T.add("arith_errors", """
def make(): return (1,)
def program(a):
    r = []
    for f in (lambda: a / 0, lambda: a // 0, lambda: a % 0, lambda: a + "s", lambda: [] - [], lambda: 2.0 ** 5000):
        try:
            f()
        except Exception as e:
            r.append((type(e).__name__, str(e)))
    return r
""")
T.add("unary_ops", """
class U:
    def __neg__(self): return "neg"
    def __pos__(self): return "pos"
    def __invert__(self): return "inv"
def make(): return (5, U())
def program(n, u):
    return -n, +n, ~n, not n, -u, +u, ~u, not u, -True, ~False
""")
T.add("float_values_exact", """
def make(): return (0.0,)
def program(z):
    return -z, float("nan"), float("inf"), -float("inf"), 0.1 + 0.2, 1e300 * 10
""")
T.add("augassign_local", """
def make(): return (3, [1], "s")
def program(n, l, s):
    n += 2; n -= 1; n *= 3; n //= 2; n **= 2; n %= 7; n <<= 2; n >>= 1; n |= 1; n &= 7; n ^= 2
    l += [2]
    l *= 2
    s += "t"
    return n, l, s
""")
T.add("augassign_inplace_identity", """
def make(): return ([1], (1,))
def program(l, t):
    l0, t0 = l, t
    l += [2]
    t += (2,)
    return l is l0, t is t0, l, t
""")
T.add("augassign_attribute", """
class C:
    def __init__(self): self.n = 1
class P:
    def __init__(self): self._v = 1
    @property
    def v(self):
        LOG.append("get")
        return self._v
    @v.setter
    def v(self, x):
        LOG.append(("set", x))
        self._v = x
def make(): return (C(), P())
def program(c, p):
    c.n += 5
    p.v += 10
    p.v *= 2
    return c.n, p.v
""")
T.add("augassign_subscript", """
class D(dict):
    def __getitem__(self, k):
        LOG.append(("get", k))
        return super().__getitem__(k)
    def __setitem__(self, k, v):
        LOG.append(("set", k, v))
        super().__setitem__(k, v)
def make(): return (D(a=1), [1, 2])
def program(d, l):
    d["a"] += 1
    l[-1] *= 10
    l[0:1] += [7]
    return d, l
""")
T.add("augassign_user_iadd", """
class Acc:
    def __init__(self): self.items = []
    def __iadd__(self, o):
        self.items.append(o)
        return self
class NoI:
    def __init__(self, v): self.v = v
    def __add__(self, o): return NoI(self.v + o)
def make(): return (Acc(), NoI(1))
def program(a, b):
    a0, b0 = a, b
    a += 1
    b += 1
    return a is a0, b is b0, a.items, b.v
""")
T.add("global_read_write", """
counter = 0
def make(): return (2,)
def program(k):
    global counter
    counter += k
    return counter
""")
T.add("global_declared_new", """
def make(): return ()
def program():
    global fresh_global
    fresh_global = ["made"]
    return fresh_global
""")
T.add("global_delete", """
g = 1
def make(): return ()
def program():
    global g
    try:
        del g
    except NameError as e:
        return "already gone", str(e)
    return "deleted", "g" in globals()
""")
T.add("global_shadowing_builtin", """
def make(): return ([3, 1],)
len = lambda x: "shadowed"
def program(l):
    return len(l), sorted(l)
""")
T.add("builtins_lookup", """
def make(): return ()
def program():
    return abs(-3), max(1, 5, 2), min([4, 2]), round(2.567, 2), isinstance(1, int), list(range(2))
""")
T.add("delete_local_and_reuse", """
def make(): return (1,)
def program(x):
    y = x
    del y
    try:
        y
    except UnboundLocalError as e:
        msg = str(e)
    y = 2
    return msg, y
""")
T.add("string_methods", """
def make(): return ("  Hello, World  ",)
def program(s):
    t = s.strip()
    return t.lower(), t.split(", "), t.replace("l", "L"), t.startswith("He"), t.find("W"), "-".join(t.split()), t[::-1].upper(), t.encode()
""")
T.add("bytes_and_bytearray", """
def make(): return (b"abc", bytearray(b"xy"))
def program(b, ba):
    ba.extend(b)
    ba[0] = 65
    return b[1], b[1:], ba, bytes(ba).hex(), b + b"d"
""")
T.add("dict_methods_and_views", """
def make(): return ({"a": 1, "b": 2},)
def program(d):
    d.setdefault("c", 3)
    d.update(b=20)
    popped = d.pop("a")
    return popped, list(d.keys()), list(d.values()), list(d.items()), d | {"z": 0}, "b" in d
""")
T.add("set_operations", """
def make(): return ({1, 2, 3}, {2, 3, 4})
def program(a, b):
    c = set(a)
    c |= {9}
    return a & b, a | b, a - b, a ^ b, a <= c, sorted(c), frozenset(a) == a
""")
T.add("list_methods", """
def make(): return ([3, 1, 2],)
def program(l):
    l.insert(0, 5); l.remove(1); l.extend([7, 7]); l.reverse()
    return l, l.index(7), l.count(7), l.pop(), sorted(l, reverse=True), l.copy() is l
""")
T.add("identity_of_small_values", """
def make(): return ()
def program():
    a = [1, 2]
    b = a
    c = list(a)
    return a is b, a is c, a == c, (a, b, c)
""")
T.add("int_str_subclass_values", """
class MyInt(int):
    pass
class MyStr(str):
    def shout(self): return self.upper() + "!"
def make(): return (MyInt(5), MyStr("hi"))
def program(i, s):
    j = MyInt(i + 1)
    return i, j, type(i + 1).__name__, s.shout(), s, s + "x"
""")
T.add("nested_structures_deep", """
def make(): return ()
def program():
    d = {"l": [{"t": (1, [2, {"x": {3}}])}]}
    d["l"][0]["t"][1][1]["x"].add(4)
    return d
""")

if __name__ == "__main__":
    T.main()
