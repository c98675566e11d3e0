# observe_cases.py: the fixed raw runs that bench/or_bench.c observes (bench_observe).
#
# `runs()` returns a list of (name, raw) where raw is the tuple the bench turns into
# an OrRunRaw: (steps_done, results, excs, log_after, args, args2, log, ns). Each run is
# produced by the eager protocol of DESIGN.md (make, r1, between, r2, make_other, r3,
# LOG copied after each step), in plain Python, on programs shaped like what the
# generator emits: descriptors logging tuples into LOG, instances with __dict__ and
# __slots__, shared objects, nested containers, ints, floats, strs with and without
# escapes, exceptions. The values are fixed so the bench's checksum pins the text.
import functools


def protocol(make, program, between=None, make_other=None, log=None):
    if log is None:
        log = []
    results, excs, logs = [None] * 3, [None] * 3, [None] * 3
    args = make()
    args2 = None
    for i in range(3):
        if i == 1 and between is not None:
            between(*args)
        if i == 2:
            args2 = (make_other or make)()
            call_args = args2
        else:
            call_args = args
        try:
            results[i] = program(*call_args)
        except Exception as e:   # a result, as in the harness
            excs[i] = e
        logs[i] = list(log)
    return (3, tuple(results), tuple(excs), tuple(logs), args, args2, log)


# ---- 1. descriptors logging into LOG (the generator's bread and butter) ----

def descriptors():
    LOG = []

    class Desc:
        def __set_name__(self, owner, name):
            self.name = name

        def __get__(self, obj, objtype=None):
            LOG.append(("get", self.name, type(obj).__name__))
            return obj.__dict__.get("_" + self.name, 7)

        def __set__(self, obj, value):
            LOG.append(("set", self.name, value))
            obj.__dict__["_" + self.name] = value

    class Base:
        d = Desc()
        tag = "base class attr"

        def __init__(self):
            self.x = 1
            self.label = "plain ascii label"
            self.items = [1, 2, 3]

        @property
        def fresh(self):
            LOG.append(("prop", "fresh", len(LOG)))
            return [object()]

        @property
        def stable(self):
            LOG.append(("prop", "stable"))
            return self.items

        def method(self, k):
            LOG.append(("method", k))
            return (k, self.x)

    class Sub(Base):
        @functools.cached_property
        def cached(self):
            LOG.append(("cached",))
            return {"k": self.x, "v": [self.x] * 3}

    def make():
        return (Sub(), Base())

    def program(a, b):
        a.d = a.x + 1
        out = (a.d, a.fresh, a.stable, b.stable, a.method(3), a.cached, a.cached,
               b.tag, a.stable is b.stable)
        a.x += 1
        return out

    def between(a, b):
        a.items.append(len(a.items))

    return protocol(make, program, between, log=LOG)


# ---- 2. nested containers, shared and aliased ----

def containers():
    shared = [1, "two", 3.0]

    def make():
        d = {"a": shared, "b": (shared, shared), "c with space": {1: "x", 2: "y"},
             ("tuple", "key"): [shared, {"inner": shared}], 10: None, -5: True}
        return (d, [d, [d, [d]]], {"s": {3, 1, 2}, "f": frozenset({"b", "a"})})

    def program(d, nest, sets):
        lst = [d["a"], d["b"], [[[[[1, [2, [3, [4, [5]]]]]]]]]]
        return (lst, {i: (i, str(i), [i] * 2) for i in range(20)}, tuple(range(30)),
                nest[1], sets)

    return protocol(make, program)


# ---- 3. numbers ----

def numbers():
    def make():
        return ([0, 1, -1, 7, 255, 65536, -123456789, 2 ** 62, -(2 ** 63), 2 ** 64 + 3,
                 10 ** 30, -(10 ** 40)],)

    def program(ints):
        floats = [0.0, -0.0, 0.1, 1.5, -2.25, 3.0, 1e16, 1e100, 1.7976931348623157e308,
                  5e-324, 123456.789, float("nan"), float("inf"), -float("inf"),
                  1 / 3, 2.0 ** 0.5, 100.0, -7.0]
        return (ints, floats, complex(1.5, -2.0), sum(ints) % 1000, [i * 1.1 for i in range(12)],
                True, False, None)

    return protocol(make, program)


# ---- 4. strings with and without escapes ----

def strings():
    def make():
        return (["plain", "with space", "a\nb\tc", "quote ' and \\ backslash",
                 "caf\u00e9", "\u20ac euro", "emoji \U0001F600", "x" * 250, "",
                 "0x7f12345678 looks like an address"],)

    def program(strs):
        d = {s: len(s) for s in strs[:6]}
        return (d, "".join(strs[:3]), b"bytes\x00\xff ok", bytearray(b"ba"),
                [s.upper() for s in strs[:4]])

    return protocol(make, program)


# ---- 5. exceptions as results ----

def exceptions():
    LOG = []

    class Obj:
        pass

    def make():
        return (Obj(),)

    def program(o):
        LOG.append(("enter", id(o) != 0))
        if len(LOG) == 1:
            raise ValueError("bad value", 42, ("nested", 1.5))
        if len(LOG) == 2:
            raise AttributeError(f"'Obj' object has no attribute 'x' <Obj object at {0x7f00deadbeef:#x}>")
        raise KeyError(("k", 1))

    return protocol(make, program, log=LOG)


# ---- 6. instances with __dict__ and __slots__, shared between args ----

def instances():
    LOG = []

    class Slotted:
        __slots__ = ("a", "b", "unset")

        def __init__(self, a, b):
            self.a = a
            self.b = b

    class Node:
        def __init__(self, val, nxt=None):
            self.val = val
            self.nxt = nxt
            self.meta = {"depth": 0 if nxt is None else nxt.meta["depth"] + 1}
            setattr(self, "not an identifier", val)

    class Holder(Slotted):
        __slots__ = ("c", "__dict__")

    def make():
        chain = None
        for i in range(8):
            chain = Node(i, chain)
        s = Slotted(chain, [chain, chain])
        h = Holder(s, "h")
        h.c = (s, chain)
        h.extra = {"k": s}
        return (chain, s, h)

    def program(chain, s, h):
        LOG.append(("read", h.c[0] is s))
        return (chain.nxt.nxt, s.b, h, {s, h}, len(LOG))

    def make_other():
        s = Slotted(1, 2)
        return (Node(-1), s, Holder(s, "other"))

    return protocol(make, program, make_other=make_other, log=LOG)


# ---- 7. a long LOG of tuples (the events section) ----

def long_log():
    LOG = []

    class Counter:
        def __init__(self):
            self.n = 0

        @property
        def count(self):
            self.n += 1
            LOG.append(("count", self.n, "Counter.count"))
            return self.n

    def make():
        return (Counter(),)

    def program(c):
        total = 0
        for _ in range(20):
            total += c.count
        return total

    return protocol(make, program, log=LOG)


CASES = [descriptors, containers, numbers, strings, exceptions, instances, long_log]


def runs():
    # The module's namespace goes with every run (as the harness passes the
    # program's): its data globals and the dicts of this module's classes met
    # (Base.tag, ...) are observed too (tfobs 2).
    return [(f.__name__, f() + (globals(),)) for f in CASES]
