"""The identity-preserving attribute cache, the provenance assertion and the
assume_stable_attrs fault. Usage: tfpython attr_cache.py CHECK; one ctest per check.

  motivating            no fault: the motivating program gives two distinct objects,
                        exactly as eager CPython does
  stable_cached         stable resolutions are served from the cache ("[cached]" in
                        the trace), computed ones never are
  invalidation          stores, deletes, class stores, dict writes and escaping calls
                        drop cached values: every read agrees with eager
  fault_motivating      assume_stable_attrs: the motivating program raises
                        tfjit.ProvenanceError worded like the Thunder report
  fault_other_kinds     assume_stable_attrs: bound methods, __getattr__, dict writes
                        through an opaque call are caught too; stable ones pass
  fault_env             (with TRACEFUZZ_FAULTS=assume_stable_attrs) the fault is on
  fault_switch          set_faults parsing
"""
import re
import sys

import tfjit
from attr_common import run, trace_text

MOTIVATING = """
class Test:
    @property
    def test(self):
        return object()
def make(): return (Test(),)
def program(t): return t.test, t.test
"""

SYNC = re.compile(r"^attribute (\w+) of (\w+) object out of sync: (.+) vs\. (.+)$")


def expect(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok  ", what)


def set_faults(csv):
    tfjit.set_faults(csv)


def traced(src, *extra):
    """Runs src's program once through tfjit.jit on make()'s world; returns the
    result (or the exception) and the trace text."""
    ns = {"__name__": "tfcase"}
    exec(compile(src, "<case>", "exec"), ns)
    f = tfjit.jit(ns["program"])
    try:
        r = f(*ns["make"](), *extra)
    except Exception as e:
        r = e
    return r, trace_text()


def check_motivating():
    set_faults("")
    eager = run(MOTIVATING, None)
    jit = run(MOTIVATING, tfjit.jit)
    expect(eager == jit, "motivating program: traced observation equals eager")
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tuple) and r[0] is not r[1] and type(r[0]) is object,
           "motivating program: two distinct objects")


def check_stable_cached():
    set_faults("")
    src = """
class C:
    __slots__ = ("s", "__dict__")
    k = [0]
    @property
    def p(self): return object()
    def m(self): pass
def make():
    c = C()
    c.x = [1]
    c.s = [2]
    return (c,)
def program(c):
    return (c.x is c.x, c.s is c.s, c.k is c.k, c.p is c.p, c.m is c.m, C.k is C.k)
"""
    r, t = traced(src)
    expect(r == (True, True, True, False, False, True), f"identities as eager: {r}")
    for name in ("x", "s", "k"):
        expect(f"LOAD_ATTR {name} [cached]" in t, f"{name}: second read served from the cache")
    for name in ("p", "m"):
        expect(f"LOAD_ATTR {name} [cached]" not in t, f"{name}: computed, never cached")
    expect(run(src, None) == run(src, tfjit.jit), "stable reads: observation equals eager")


INVALIDATION = """
class C:
    __slots__ = ("s", "__dict__")
    k = "class"
class Meta(type): pass
def make():
    c = C()
    c.x = 1
    c.s = 1
    return (c,)
def program(c):
    out = [c.x, c.s, c.k]
    c.x = 2; out.append(c.x)            # store
    c.s = 2; out.append(c.s)            # slot store
    del c.x; out.append(getattr(c, "x", "deleted"))
    out.append(c.k); C.k = "rebound"; out.append(c.k)        # class store
    c.k = "shadow"; out.append(c.k); del c.k; out.append(c.k)
    c.y = 1; out.append(c.y)
    vars(c)["y"] = 2; out.append(c.y)   # dict write (STORE_SUBSCR)
    c.__dict__.update(y=3); out.append(c.y)   # opaque C call
    setattr(c, "y", 4); out.append(c.y)
    object.__setattr__(c, "y", 5); out.append(c.y)
    c.__class__ = type("D", (C,), {"y": "D"}); out.append((c.y, c.k))
    return out
"""


def check_invalidation():
    set_faults("")
    eager = run(INVALIDATION, None)
    jit = run(INVALIDATION, tfjit.jit)
    expect(eager["results"] == jit["results"], "every read after a write agrees with eager")
    expect(eager == jit, "invalidation: observation equals eager")


def check_fault_motivating():
    set_faults("assume_stable_attrs")
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tfjit.ProvenanceError), f"ProvenanceError raised: {r!r}")
    expect(isinstance(r, AssertionError), "ProvenanceError is an AssertionError")
    m = SYNC.match(str(r))
    expect(m is not None, f"message worded like the report: {r}")
    expect(m.group(1) == "test" and m.group(2) == "Test", "names attribute and type")
    expect(re.fullmatch(r"<object object at 0x[0-9a-f]+>", m.group(3)) and
           re.fullmatch(r"<object object at 0x[0-9a-f]+>", m.group(4)) and
           m.group(3) != m.group(4), "both objects named, distinct")
    set_faults("")
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tuple) and r[0] is not r[1], "fault off again: distinct objects")


def check_fault_other_kinds():
    set_faults("assume_stable_attrs")
    cases = {
        "method": ("class C:\n    def m(self): pass\n", "c.m, c.m"),
        "getattr_hook": ("class C:\n    def __getattr__(self, n): return [n]\n", "c.a, c.a"),
        "opaque_dict_write": ("class C:\n    def __init__(self): self.x = [1]\n",
                              "(c.x, c.__dict__.update(x=[2]), c.x)"),
    }
    for kind, (cls, expr) in cases.items():
        src = cls + f"def make(): return (C(),)\ndef program(c): return {expr}\n"
        r, _ = traced(src)
        expect(isinstance(r, tfjit.ProvenanceError) and SYNC.match(str(r)),
               f"{kind}: ProvenanceError under the fault ({r!r})")
    stable = """
import functools
class C:
    k = [0]
    def __init__(self): self.x = [1]; self._p = [2]
    @property
    def p(self): return self._p
    @functools.cached_property
    def cp(self): return [3]
def make(): return (C(),)
def program(c): return c.x is c.x, c.k is c.k, c.p is c.p, c.cp is c.cp
"""
    r, _ = traced(stable)
    expect(r == (True, True, True, True), f"stable kinds pass under the fault: {r!r}")
    set_faults("")


def check_fault_env():
    """Run with TRACEFUZZ_FAULTS=assume_stable_attrs: read at module init."""
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tfjit.ProvenanceError), f"TRACEFUZZ_FAULTS honoured: {r!r}")


def check_fault_switch():
    set_faults("")
    try:
        set_faults("assume_stable_attrs,no_such_fault")
    except ValueError as e:
        expect("no_such_fault" in str(e) and "assume_stable_attrs" in str(e),
               f"unknown fault named, known listed: {e}")
    else:
        expect(False, "unknown fault rejected")
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tuple), "a rejected list leaves the faults as they were (off)")
    set_faults(" assume_stable_attrs , ")
    r, _ = traced(MOTIVATING)
    expect(isinstance(r, tfjit.ProvenanceError), "blanks and empty items are ignored")
    set_faults("")


if __name__ == "__main__":
    if len(sys.argv) != 2 or "check_" + sys.argv[1] not in globals():
        print(__doc__)
        sys.exit(2)
    globals()["check_" + sys.argv[1]]()
