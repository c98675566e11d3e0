"""Trace-reuse benchmark (docs/REUSE.md, docs/PERFORMANCE.md): the time of a traced, a
replayed and an eager call, per program, measured in one run.

    tfpython bench/reuse_bench.py [--repeat N] [--set descr|attr|all] [--alive K] [--json]

A traced call is the first call of a fresh tfjit.jit object (it interprets the body and
records the trace); a replayed call is a later call of the same object whose guards
pass; an eager call is the plain function. Each is the median over N calls of the
calling thread's CPU time (the machine is shared: wall time would measure the
neighbours). --alive K also times traced calls while the K jit objects traced before
stay alive with their traces (issue 14: tracing used to slow down 4-13x then).
Sets: descr (the descriptor programs below), attr (bench/attr_programs.py, plain
attribute traffic). --json prints one JSON object per program instead of the text."""
import json
import os
import statistics
import sys
import time

import tfjit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attr_programs import ATTR_PROGRAMS  # noqa: E402

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
        t0 = time.thread_time_ns()
        fn()
        times.append(time.thread_time_ns() - t0)
    return statistics.median(times) / 1e9


def bench(name, src, repeat, alive):
    """One program's row: times in seconds, ratios, replay counts."""
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
    row = {"name": name, "eager": t_eager, "traced": t_traced, "replayed": t_replay,
           "trace/eager": t_traced / t_eager, "replay/eager": t_replay / t_eager,
           "replays": after["replays_completed"] - before["replays_completed"],
           "calls": repeat}
    if alive:
        kept = []

        def traced_kept():
            f = tfjit.jit(program)
            assert f(*args) == expected
            kept.append(f)

        for _ in range(alive):
            traced_kept()
        t_alive = median_time(traced_kept, repeat)
        kept.clear()
        row["traced_alive"] = t_alive
        row["alive/traced"] = t_alive / t_traced
    return row


def main(argv):
    repeat, which, alive, as_json = 200, "descr", 0, False
    i = 1
    while i < len(argv):
        if argv[i] == "--repeat":
            repeat, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--set":
            which, i = argv[i + 1], i + 2
        elif argv[i] == "--alive":
            alive, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--json":
            as_json, i = True, i + 1
        else:
            sys.exit(__doc__)
    sets = {"descr": [PROGRAMS], "attr": [ATTR_PROGRAMS],
            "all": [PROGRAMS, ATTR_PROGRAMS]}[which]
    rows = []
    for progs in sets:
        for n, src in progs.items():
            r = bench(n, src, repeat, alive)
            r["set"] = "attr" if progs is ATTR_PROGRAMS else "descr"
            rows.append(r)
            if as_json:
                print(json.dumps(r), flush=True)
                continue
            extra = (f"  with {alive} alive {r['traced_alive'] * 1e6:9.1f} us"
                     if alive else "")
            print(f"{n:13s} eager {r['eager'] * 1e6:8.1f} us  traced {r['traced'] * 1e6:8.1f} us  "
                  f"replayed {r['replayed'] * 1e6:8.1f} us  traced/eager {r['trace/eager']:6.2f}  "
                  f"replayed/eager {r['replay/eager']:5.2f}  (replays {r['replays']}/{repeat})"
                  + extra)
    if not as_json:
        for progs in sets:
            sub = [r for r in rows if r["name"] in progs]
            gt = statistics.geometric_mean([r["trace/eager"] for r in sub])
            ge = statistics.geometric_mean([r["replay/eager"] for r in sub])
            print(f"geomean ({'attr' if progs is ATTR_PROGRAMS else 'descr'}) "
                  f"traced/eager {gt:6.2f}  replayed/eager {ge:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
