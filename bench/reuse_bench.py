"""Trace-reuse benchmark (docs/REUSE.md): on attribute-heavy programs, the time of a
replayed call against a traced call and against an eager call, measured in one run.

    tfpython bench/reuse_bench.py [--repeat N]

A traced call is the first call of a fresh tfjit.jit object (it interprets the body and
records the trace); a replayed call is a later call of the same object whose guards
pass; an eager call is the plain function. Each is the median over N calls."""
import statistics
import sys
import time

import tfjit

PROGRAMS = {}

PROGRAMS["properties"] = """
LOG = []
class Base:
    scale = 3
    def __init__(self, n):
        self.n = n
        self.items = list(range(n))
    @property
    def double(self):
        return self.n * 2
    @property
    def first(self):
        return self.items[0]
    def method(self, k):
        return k + self.n
class Child(Base):
    tag = "child"
def make():
    return (Child(5), Child(7))
def program(a, b):
    out = []
    for _ in range(20):
        out.append((a.double, b.double, a.first, a.scale, b.tag, a.method(1), b.n))
    return len(out)
"""

PROGRAMS["descriptors"] = """
LOG = []
class Desc:
    def __init__(self, name):
        self.name = name
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.__dict__.get("_" + self.name, 0)
    def __set__(self, obj, value):
        obj.__dict__["_" + self.name] = value
class ND:
    def __get__(self, obj, owner=None):
        return ("nd", owner.__name__)
class C:
    d = Desc("d")
    nd = ND()
    k = 10
    @classmethod
    def cm(cls):
        return cls.k
    @staticmethod
    def sm(x):
        return x
def make():
    c = C()
    c.d = 4
    c.plain = 1
    return (c,)
def program(c):
    total = 0
    for i in range(20):
        total += c.d + c.k + c.plain + c.cm() + c.sm(i)
        if c.nd[0] == "nd":
            total += 1
    return total
"""

PROGRAMS["module_like"] = """
LOG = []
class Module:
    def __init__(self):
        self.__dict__["_parameters"] = {}
        self.__dict__["_modules"] = {}
    def __getattr__(self, name):
        d = self.__dict__
        if name in d["_parameters"]:
            return d["_parameters"][name]
        if name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(name)
    def __setattr__(self, name, value):
        if name.startswith("w"):
            self.__dict__["_parameters"][name] = value
        elif isinstance(value, Module):
            self.__dict__["_modules"][name] = value
        else:
            object.__setattr__(self, name, value)
class Linear(Module):
    def __init__(self, k):
        super().__init__()
        self.w = k
        self.bias = 1
    def forward(self, x):
        return x * self.w + self.bias
class Net(Module):
    def __init__(self):
        super().__init__()
        self.l1 = Linear(2)
        self.l2 = Linear(3)
    def forward(self, x):
        return self.l2.forward(self.l1.forward(x))
def make():
    return (Net(),)
def program(net):
    s = 0
    for i in range(20):
        s += net.forward(i) + net.l1.w + net.l2.bias
    return s
"""


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench(name, src, repeat):
    ns = {"__name__": "bench_" + name}
    exec(compile(src, f"<{name}>", "exec"), ns)
    program, args = ns["program"], tuple(ns["make"]())
    expected = program(*args)

    def traced():
        f = tfjit.jit(program)
        assert f(*args) == expected

    jitted = tfjit.jit(program)
    assert jitted(*args) == expected
    before = tfjit.stats()

    def replayed():
        assert jitted(*args) == expected

    def eager():
        assert program(*args) == expected

    t_eager = median_time(eager, repeat)
    t_traced = median_time(traced, repeat)
    t_replay = median_time(replayed, repeat)
    after = tfjit.stats()
    replays = after["replays_completed"] - before["replays_completed"]
    print(f"{name:12s} eager {t_eager * 1e6:9.1f} us  traced {t_traced * 1e6:9.1f} us  "
          f"replayed {t_replay * 1e6:9.1f} us  replayed/traced {t_replay / t_traced:6.3f}  "
          f"replayed/eager {t_replay / t_eager:6.2f}  (replays {replays}/{repeat})")
    return t_replay / t_traced, t_replay / t_eager


def main(argv):
    repeat = 200
    if len(argv) == 3 and argv[1] == "--repeat":
        repeat = int(argv[2])
    ratios = [bench(n, s, repeat) for n, s in PROGRAMS.items()]
    gt = statistics.geometric_mean([r[0] for r in ratios])
    ge = statistics.geometric_mean([r[1] for r in ratios])
    print(f"{'geomean':12s} replayed/traced {gt:6.3f} ({1 / gt:.1f}x faster than tracing)  "
          f"replayed/eager {ge:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
