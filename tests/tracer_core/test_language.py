"""Language constructs in interpreted frames: closures and cells, comprehensions,
class bodies, match statements, f-strings, unpacking, imports, generators (native)."""
from tc_util import check, finish


def closure_counter():
    n = 0
    def inc(k=1):
        nonlocal n
        n += k
        return n
    inc(); inc(5)
    return n, inc.__closure__[0].cell_contents
def cell_argument(x):
    def get(): return x
    x += 1
    return get()
def deleted_cell():
    v = 1
    def g(): return v
    del v
    return g()
def free_unbound():
    def g(): return w
    r = g()
    w = 2
    return r
def comprehensions(xs):
    return ([x * 2 for x in xs if x % 2], {x: x * x for x in xs}, {x % 3 for x in xs},
            [(a, b) for a in xs[:2] for b in xs[:2]], sum(x for x in xs))
def class_body(k):
    class A:
        a = k
        b = [a + i for i in range(2)] if False else None
        def get(self): return (self.a, __class__.__name__)
    class B(A):
        def get(self): return ("B",) + super().get()
    return B().get(), A.__qualname__, sorted(n for n in vars(A) if not n.startswith("__"))
def class_deref(k):
    def inner():
        v = k
        class C:
            w = v
        return C.w
    return inner()
def match_cases(v):
    match v:
        case 0 | 1:
            return "small"
        case [x, *rest] if x > 0:
            return ("seq", x, rest)
        case {"k": value, **others}:
            return ("map", value, others)
        case complex(real=r):
            return ("complex", r)
        case str() as s:
            return ("str", s)
        case _:
            return "other"
def matches(): return [match_cases(v) for v in (0, [3, 4, 5], {"k": 1, "z": 2}, 2j, "s", 9.5)]
def fstrings(x):
    w = 6
    return f"{x}|{x!r}|{x!s:>5}|{x:{w}}|{x!a}|{3.14159:.2f}"
def unpacking():
    a, *b, c = range(6)
    (d, e), f = (1, 2), 3
    *g, = "xy"
    return a, b, c, d, e, f, g
def unpack_errors():
    out = []
    for v in ([1], [1, 2, 3], 5):
        try:
            a, b = v
        except Exception as e:
            out.append(str(e))
    return out
def imports():
    import os.path
    from json import dumps as d
    from collections import abc
    return os.path.basename("/a/b"), d([1]), abc.Mapping.__name__
def generators():
    def gen(n):
        for i in range(n):
            yield i * i
    return list(gen(4)), sum(gen(3)), next(iter(gen(2)))
def walrus_ternary(xs):
    return [y for x in xs if (y := x * 3) > 3], ("a" if xs else "b")
def chained_compare(x): return 1 < x < 5, x == x != 3, x in (1, 2), x not in [5]
def aug_ops():
    v = [1]; v += [2]; v *= 2
    s = 5; s //= 2; s **= 3; s %= 7; s <<= 2; s >>= 1; s |= 8; s &= 12; s ^= 1
    return v, s, -s, +s, ~s, not s
def slices(xs): return xs[1:], xs[::-1], xs[1:3:1], xs[:-1]
def global_ops():
    global _tc_global
    _tc_global = 5
    r = _tc_global
    del _tc_global
    return r
def starred_calls():
    def f(*a, **k): return a, k
    return f(*[1], *(2,), x=1, **{"y": 2}), [*range(2), *"ab"], {**{"a": 1}, "b": 2}, {*"ab"}
class Bag:
    def __init__(self):
        self.items = [1, 2, 3]
    @property
    def view(self):
        return list(self.items)
    def __iter__(self):
        for x in self.view:
            yield x * 10
class Count:
    def __init__(self, n):
        self.n, self.i = n, 0
    def __iter__(self):
        return self
    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i
class BadIter:
    def __iter__(self):
        return 5
def user_iterators():
    out = [x for x in Bag()] + list(Count(2))
    for y in Count(3):
        out.append(y)
    try:
        for z in BadIter():
            pass
    except TypeError as e:
        out.append(str(e))
    return out


# A body with more than 256 constants and locals: opargs need EXTENDED_ARG.
LONG_SRC = "def long_function_extended_arg():\n    total = 0\n" + "".join(
    f"    v{i} = {i * 7}\n    total += v{i}\n" for i in range(300)) + "    return total\n"
exec(LONG_SRC)
for fn, args in [(closure_counter, ()), (cell_argument, (1,)), (deleted_cell, ()),
                 (free_unbound, ()), (comprehensions, ([1, 2, 3, 4],)), (class_body, (7,)),
                 (class_deref, (3,)), (matches, ()), (fstrings, ("ab",)), (unpacking, ()),
                 (unpack_errors, ()), (imports, ()), (generators, ()),
                 (walrus_ternary, ([1, 2],)), (chained_compare, (2,)), (aug_ops, ()),
                 (slices, ([1, 2, 3],)), (global_ops, ()), (starred_calls, ()),
                 (long_function_extended_arg, ()), (user_iterators, ())]:
    check(fn, *args)
finish()
