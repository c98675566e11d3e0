"""The attribute cache keeps nothing alive (tracer/tr_cache.c, docs/ATTRIBUTES.md).
Usage: tfpython cache_lifetime.py CHECK; one ctest per check.

  temp_weakrefable     `v = Fin(1).tag`: the temporary dies during the load, as in
                       CPython (its __del__ logs before the next statement)
  temp_slots_only      the same for a __slots__ class without __weakref__ (entries
                       keyed by address only)
  value_overwritten    a cached value (weakrefable or not) dies when its attribute
                       is overwritten / deleted, not when the call ends
  still_cached         second reads of inst_dict, slot (with and without
                       __weakref__) and class attributes are still "[cached]"
  deep_chain           a slots-only object reached through a long provenance chain
                       (records cut to the shared "..." one) is still cached
  address_reuse        objects dying in a loop, new ones at the same addresses:
                       no stale entry is served (no false ProvenanceError, exact
                       count of cache hits, values as eager)
Each check compares the LOG and results of an eager run with a tfjit.jit run.
"""
import sys

import tfjit

PRELUDE = """
LOG = []
class Fin:
    def __init__(self, tag): self.tag = tag
    def __del__(self): LOG.append(("del", self.tag))
class SFin:
    __slots__ = ("tag",)
    def __init__(self, tag): self.tag = tag
    def __del__(self): LOG.append(("sdel", self.tag))
"""

CASES = {
    "temp_weakrefable": """
def program():
    v = Fin(1).tag
    LOG.append(("after", v))
    w = Fin(2).tag + Fin(3).tag
    LOG.append(("sum", w))
""",
    "temp_slots_only": """
def program():
    v = SFin(1).tag
    LOG.append(("after", v))
    o = SFin(2)
    a = o.tag; b = o.tag
    del o
    LOG.append(("dropped", a, b))
""",
    "value_overwritten": """
class C: pass
class S:
    __slots__ = ("x",)
def program():
    c = C(); s = S()
    c.x = Fin("d1"); c.x.tag; c.x.tag
    c.x = Fin("d2"); LOG.append("dict overwritten")
    s.x = SFin("s1"); s.x.tag; s.x.tag
    s.x = SFin("s2"); LOG.append("slot overwritten")
    del c.x; LOG.append("dict deleted")
    del s.x; LOG.append("slot deleted")
""",
    "address_reuse": """
class S:
    __slots__ = ("s",)
    k = [0]
class W:
    __slots__ = ("s", "__weakref__")
    k = [0]
class D:
    k = [0]
SHARED = [0]
def program():
    # No call in the loop: an escaping call (list.append ...) would clear the cache.
    same = total = 0
    for cls in (S, W, D):
        for i in range(40):
            o = cls()
            same += o.k is o.k
            o.s = [i] if i % 2 else SHARED
            same += o.s is o.s
            total += o.s[0]
    return same, total
""",
}


def run(src, wrap):
    ns = {"__name__": "tfcase"}
    exec(compile(PRELUDE + src, "<case>", "exec"), ns)
    f = wrap(ns["program"]) if wrap else ns["program"]
    try:
        r = f()
    except Exception as e:
        r = ("raised", type(e).__name__, str(e))
    return r, list(ns["LOG"])


def expect(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok  ", what)


def trace_text():
    t = tfjit.last_trace()
    return t if isinstance(t, str) else "\n".join(t)


def compare(name):
    eager = run(CASES[name], None)
    jit = run(CASES[name], tfjit.jit)
    print("eager:", eager)
    print("jit:  ", jit)
    expect(eager == jit, f"{name}: results and LOG as eager")
    return trace_text()


def check_temp_weakrefable():
    compare("temp_weakrefable")


def check_temp_slots_only():
    t = compare("temp_slots_only")
    expect("LOAD_ATTR tag [cached]" in t, "second read of a slots-only object still cached")


def check_value_overwritten():
    compare("value_overwritten")


def check_still_cached():
    src = """
class C:
    k = [0]
class S:
    __slots__ = ("s",)
class W:
    __slots__ = ("w", "__weakref__")
def program():
    c = C(); c.x = [1]; s = S(); s.s = [2]; w = W(); w.w = [3]
    return (c.x is c.x, s.s is s.s, w.w is w.w, c.k is c.k, C.k is C.k)
"""
    r = compare_src(src)
    t = trace_text()
    expect(r == (True,) * 5, f"identities: {r}")
    for name in ("x", "s", "w", "k"):
        expect(f"LOAD_ATTR {name} [cached]" in t, f"{name}: second read served from the cache")


def check_deep_chain():
    src = """
class N:
    __slots__ = ("v", "next")
def program():
    head = None
    for i in range(100):
        n = N(); n.v = i; n.next = head; head = n
    n = head; same = 0
    while n is not None:
        same += n.v is n.v
        n = n.next
    return same
"""
    r = compare_src(src)
    hits = trace_text().count("LOAD_ATTR v [cached]")
    expect(r == 100 and hits == 100, f"every second read of n.v hit: {hits}")


def compare_src(src):
    eager = run(src, None)
    jit = run(src, tfjit.jit)
    expect(eager == jit, "results and LOG as eager")
    return jit[0]


def check_address_reuse():
    t = compare("address_reuse")
    # A new object at a dead one's address reads the class attribute k with no
    # store in between: only the second read of each live object may hit.
    hits = t.count("LOAD_ATTR k [cached]")
    expect(hits == 40 * 3, f"k: exactly the reads of live objects hit: {hits}")
    # s is stored first (which forgets the address): reads 2 and 3 hit.
    hits = t.count("LOAD_ATTR s [cached]")
    expect(hits == 40 * 3 * 2, f"s: exactly the reads of live objects hit: {hits}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or "check_" + sys.argv[1] not in globals():
        print(__doc__)
        sys.exit(2)
    tfjit.set_faults("")
    globals()["check_" + sys.argv[1]]()
