"""After a traced call returns (and gc.collect()), nothing of the traced world may be
kept alive by the tracer: the attribute cache and the trace release everything at the
end of the call (tr_cache_free). Checked without and with assume_stable_attrs (which
caches every read). Usage: tfpython attr_weakref.py"""
import functools
import gc
import sys
import weakref

import tfjit

failures = 0


class Leaf:
    pass


class Node:
    __slots__ = ("slot", "__dict__", "__weakref__")
    k = Leaf()

    def __init__(self):
        self.x = Leaf()
        self.slot = Leaf()

    @property
    def fresh(self):
        return Leaf()

    @functools.cached_property
    def cp(self):
        return Leaf()

    def meth(self):
        return self.x


def program(n):
    return (n.x is n.x, n.slot is n.slot, n.k is n.k, type(n.fresh).__name__,
            n.cp is n.cp, n.meth() is n.x, n.x is n.x)


def check(faults):
    global failures
    tfjit.set_faults(faults)
    f = tfjit.jit(program)
    n = Node()
    refs = {"arg": weakref.ref(n), "x": weakref.ref(n.x), "slot": weakref.ref(n.slot)}
    try:
        r = f(n)
    except tfjit.ProvenanceError as e:
        r = e
    cp = weakref.ref(n.__dict__["cp"]) if "cp" in n.__dict__ else None
    del n
    gc.collect()
    alive = [k for k, w in refs.items() if w() is not None]
    if cp is not None and cp() is not None:
        alive.append("cp")
    label = faults or "no fault"
    if alive:
        failures += 1
        print(f"FAIL {label}: still alive after the traced call: {alive} (result {r!r})")
    else:
        print(f"ok   {label}: world collectable after the traced call (result {r!r})")
    tfjit.set_faults("")


check("")
check("assume_stable_attrs")
sys.exit(1 if failures else 0)
