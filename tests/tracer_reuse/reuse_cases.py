"""Trace reuse, case by case (docs/REUSE.md): each case runs a program eagerly and
through tfjit.jit with the same calls and mutations, requires the same results and
LOG, and requires the statistics to show the mechanism it is about (a replay, a
retrace for a given guard kind, a side exit). Usage: reuse_cases.py [CASE...]"""
import gc
import sys
import weakref

import tfjit
from reuse_common import check, main, stats_delta

C3 = [("call", "make")] * 3

PROP = """
LOG = []
class C:
    k = ("k", 1)
    @property
    def p(self):
        LOG.append("p")
        return [len(LOG)]
    def m(self, x):
        LOG.append(("m", x))
        return x + 1
def make():
    c = C()
    c.x = 7
    return (c,)
def program(c):
    return (c.p, c.k, c.m(2), c.x, C.k, type(c).k)
"""


def replay_basic():
    ok, _, d = check("replay_basic", PROP, C3, ["replays", "replays_completed"])
    return ok and d.get("traces") == 1 and d.get("replays") == 2


def getter_runs_again():
    # A replay runs the getter again each call: LOG grows by one "p" per call.
    ok, _, d = check("getter_runs_again", PROP, [("call", "make")] * 5, ["replays"])
    return ok and d.get("replays") == 4


def _between(name, src, kind):
    plan = [("call", "make"), ("do", "between"), ("call", "make")]
    ok, _, _ = check(name, src, plan, ["retraces", "retrace." + kind])
    return ok


def retrace_class_attr():
    return _between("retrace_class_attr", PROP + """
def between(c):
    C.k = ("rebound", 2)
""", "class_attr")


def retrace_delete_class_attr():
    return _between("retrace_delete_class_attr", PROP + """
def between(c):
    del C.k
""", "class_attr")


def retrace_prop_to_value():
    return _between("retrace_prop_to_value", PROP + """
def between(c):
    C.p = ("value", 3)
""", "class_attr")


def retrace_mro_middle():
    return _between("retrace_mro_middle", """
LOG = []
class A:
    k = "a"
class B(A):
    pass
class C(B):
    pass
def make():
    return (C(),)
def program(c):
    return c.k
def between(c):
    B.k = "b"
""", "class_attr")


NONDATA = """
LOG = []
class ND:
    def __get__(self, obj, owner=None):
        LOG.append("nd_get")
        return ("nd", obj is None)
class C:
    nd = ND()
    def meth(self):
        return "meth"
def make():
    return (C(),)
def program(c):
    return (c.nd, c.meth())
"""


def retrace_shadow_in_dict():
    return _between("retrace_shadow_in_dict", NONDATA + """
def between(c):
    c.__dict__["nd"] = ("shadow", 1)
""", "dict_key")


def retrace_class_swap():
    # __class__ of an argument: its type guard.
    return _between("retrace_class_swap", NONDATA + """
class D(C):
    nd = ("plain", 2)
def between(c):
    c.__class__ = D
""", "input_type")


def side_exit_class_swap_inner():
    # __class__ of an object reached from an argument: its type guard is inline (not
    # checkable at entry), so the replay leaves the trace before that load; the trace
    # is then stale and the next call retraces (kind type).
    plan = [("call", "make"), ("do", "between"), ("call", "make"), ("call", "make")]
    ok, _, _ = check("side_exit_class_swap_inner", """
LOG = []
class A:
    v = "a"
class B:
    v = "b"
class H:
    pass
def make():
    h = H()
    h.o = A()
    return (h,)
def program(h):
    return h.o.v
def between(h):
    h.o.__class__ = B
""", plan, ["side_exit.guard.type", "retrace.type"])
    return ok


def retrace_add_getattr():
    return _between("retrace_add_getattr", """
LOG = []
class C:
    a = 1
def make():
    return (C(),)
def program(c):
    try:
        return c.missing
    except AttributeError as e:
        return ("raised", str(e))
def late(self, name):
    LOG.append(("getattr", name))
    return ("late", name)
def between(c):
    C.__getattr__ = late
""", "getattr_hook")


def retrace_slot_toggle():
    return _between("retrace_slot_toggle", """
LOG = []
class C:
    __slots__ = ("s",)
def make():
    c = C()
    c.s = 1
    return (c,)
def program(c):
    try:
        return c.s
    except AttributeError as e:
        return ("raised", type(e).__name__)
def between(c):
    del c.s
""", "slot")


def retrace_meta_attr():
    return _between("retrace_meta_attr", """
LOG = []
class Meta(type):
    pass
class C(metaclass=Meta):
    pass
Meta.tag = "meta"
def make():
    return (C(),)
def program(c):
    return type(c).tag
def between(c):
    Meta.tag = "meta2"
""", "meta_attr")


def retrace_input_type():
    src = PROP + """
class D(C):
    pass
def make_other():
    d = D()
    d.x = 8
    return (d,)
"""
    plan = [("call", "make"), ("call", "make_other"), ("call", "make"), ("call", "make_other")]
    ok, _, d = check("retrace_input_type", src, plan, ["retrace.input_type", "replays"])
    return ok


SIDE_BRANCH = """
LOG = []
class C:
    @property
    def n(self):
        LOG.append("n")
        self.__dict__["hits"] = self.__dict__.get("hits", 0) + 1
        return self.__dict__["hits"]
def make():
    return (C(),)
def program(c):
    out = []
    if c.n % 2:
        out.append(("odd", c.x if hasattr(c, "x") else None))
    else:
        out.append("even")
    for i in range(c.n):
        out.append(i)
    return out
"""


def side_exit_branch():
    # The getter's result steers a branch and a loop: replays check it and leave the
    # trace there; the getter ran once per read, as eagerly.
    ok, _, d = check("side_exit_branch", SIDE_BRANCH, C3, ["side_exits", "side_exit.branch"])
    return ok


SIDE_EXC = """
LOG = []
class C:
    @property
    def p(self):
        LOG.append("p")
        n = self.__dict__.get("calls", 0) + 1
        self.__dict__["calls"] = n
        if n == 2:
            raise AttributeError("second read")
        return n
def make():
    return (C(),)
def program(c):
    out = []
    try:
        out.append(c.p)
    except AttributeError as e:
        out.append(("raised", str(e)))
    out.append("after")
    return out
"""


def side_exit_exception():
    ok, _, d = check("side_exit_exception", SIDE_EXC, C3, ["side_exit.exception"])
    return ok


def side_exit_guard():
    # A load on a value the guards could not check at entry (not an argument): the
    # inline guard fails during the replay, which leaves the trace before the load.
    src = """
LOG = []
class C:
    k = 1
class Holder:
    pass
def make():
    h = Holder()
    h.c = C()
    return (h,)
def program(h):
    LOG.append("start")
    return (h.c.k, "end")
def between(h):
    C.k = 2
"""
    plan = [("call", "make"), ("do", "between"), ("call", "make"), ("call", "make"),
            ("call", "make")]
    ok, _, d = check("side_exit_guard", src, plan, ["side_exit.guard.class_attr",
                                                    "retrace.class_attr"])
    ok = ok and d.get("side_exits") == 1 and d.get("replays") == 2
    return ok


def guard_keeps_alive():
    # The identity guard owns the class attribute it compares: after `del C.k` the old
    # object stays alive (held by the trace) so a new object can never take its address
    # and pass the guard. The new value is seen.
    ns = {}
    exec("""
class Obj:
    pass
class C:
    pass
C.k = Obj()
def program(c):
    return c.k
""", ns)
    C = ns["C"]
    f = tfjit.jit(ns["program"])
    c = C()
    f(c)
    old = weakref.ref(C.k)
    del C.k
    gc.collect()
    alive = old() is not None
    new = ns["Obj"]()
    C.k = new
    r = f(c)
    ok = alive and r is new
    print(("ok  " if ok else "FAIL") + f" guard_keeps_alive: old alive {alive}, new seen {r is new}")
    return ok


def args_not_kept():
    # Neither a traced nor a replayed call keeps its arguments or results alive.
    ns = {}
    exec("""
class C:
    @property
    def p(self):
        return [1]
def program(c):
    return c.p
""", ns)
    f = tfjit.jit(ns["program"])
    refs = []
    for _ in range(3):
        c = ns["C"]()
        r = f(c)
        refs.append((weakref.ref(c), r))
        del c
    gc.collect()
    before = tfjit.stats()
    c = ns["C"]()
    wr = weakref.ref(c)
    r = f(c)
    res_id = id(r)
    del c, r
    gc.collect()
    d = stats_delta(before)
    ok = all(w() is None for w, _ in refs) and wr() is None and d.get("replays") == 1
    print(("ok  " if ok else "FAIL") + f" args_not_kept: replays {d.get('replays')}, freed "
          f"{[w() is None for w, _ in refs] + [wr() is None]} ({res_id != 0})")
    return ok


def bounded():
    ns = {}
    exec("""
def program(x):
    return x.real if hasattr(x, "real") else x
""", ns)
    f = tfjit.jit(ns["program"])
    before = tfjit.stats()
    vals = [1, 2.0, True, "s", b"b", (1,), [2], None, 7, 8.5]
    res = [f(v) for v in vals]
    d = stats_delta(before)
    ok = res == [ns["program"](v) for v in vals] and d.get("evictions", 0) >= 1
    print(("ok  " if ok else "FAIL") + f" bounded: {d}")
    return ok


def unreusable():
    # A closure cell, a generator and locals() are not replayed: always traced.
    src = """
LOG = []
class C:
    a = 1
def make():
    return (C(),)
def program(c):
    y = c.a
    g = lambda: y
    return g()
"""
    ok1, _, d1 = check("unreusable.code_flags", src, C3, ["unreusable.code_flags"])
    src2 = """
LOG = []
class C:
    a = 1
def make():
    return (C(),)
def program(c):
    y = c.a
    return sorted(locals())
"""
    ok2, _, d2 = check("unreusable.frame_call", src2, C3, ["unreusable.frame_call"])
    return ok1 and ok2 and "replays" not in d1 and "replays" not in d2


def stats_keys():
    s = tfjit.stats()
    need = ["traces", "replays", "replays_completed", "side_exits", "retraces", "evictions",
            "retrace.class_attr", "retrace.dict_key", "retrace.slot", "retrace.type",
            "retrace.getattr_hook", "retrace.meta_attr", "retrace.input_type",
            "side_exit.branch", "side_exit.exception", "side_exit.guard"]
    missing = [k for k in need if k not in s]
    tfjit.reset_stats()
    zero = all(v == 0 for v in tfjit.stats().values())
    ok = not missing and zero
    print(("ok  " if ok else "FAIL") + f" stats_keys: missing {missing}, reset {zero}")
    return ok


CASES = {f.__name__: f for f in [
    replay_basic, getter_runs_again, retrace_class_attr, retrace_delete_class_attr,
    retrace_prop_to_value, retrace_mro_middle, retrace_shadow_in_dict, retrace_class_swap,
    side_exit_class_swap_inner,
    retrace_add_getattr, retrace_slot_toggle, retrace_meta_attr, retrace_input_type,
    side_exit_branch, side_exit_exception, side_exit_guard, guard_keeps_alive,
    args_not_kept, bounded, unreusable, stats_keys]}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
