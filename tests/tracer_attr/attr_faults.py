"""Each injected fault (docs/FAULTS.md) must be visible to the harness: a program
whose traced run agrees with eager CPython without faults must differ from it (or
raise tfjit.ProvenanceError) with the fault on.
Usage: tfpython attr_faults.py FAULT; one ctest per fault."""
import re
import sys

import tfjit
from attr_common import differences, run

EXPOSERS = {
    "assume_stable_attrs": """
class Test:
    @property
    def test(self):
        return object()
def make(): return (Test(),)
def program(t): return t.test, t.test
""",
    "dict_before_data_desc": """
class C:
    @property
    def p(self):
        LOG.append("getter")
        return "property"
LOG = []
def make():
    c = C()
    c.__dict__["p"] = "instance dict"
    return (c,)
def program(c): return c.p
""",
    "no_getattr_after_getter_error": """
class C:
    @property
    def p(self):
        LOG.append("getter")
        raise AttributeError("from the getter")
    def __getattr__(self, name):
        LOG.append(("__getattr__", name))
        return "fallback"
LOG = []
def make(): return (C(),)
def program(c): return c.p
""",
    "stale_class_attr": ["""
class C:
    k = "old"
def make(): return (C(),)
def program(c):
    a = c.k
    type(c).k = a + "+"
    return a, c.k
""", """
class C:
    k = "old"
def make(): return (C(),)
def program(c): return c.k, type(c).k
def between(c): C.k = "rebound between calls"
"""],
}


def outcome(src):
    """'agree', or how the traced run differs from eager."""
    eager = run(src, None)
    try:
        traced = run(src, tfjit.jit)
    except Exception as e:
        return f"traced run failed: {type(e).__name__}: {e}"
    diff = differences(eager, traced)
    if not diff:
        return "agree"
    return "differs in " + ", ".join(diff) + f": eager {eager['results']!r} traced {traced['results']!r}"


def main(fault):
    srcs = EXPOSERS[fault]
    for i, src in enumerate([srcs] if isinstance(srcs, str) else srcs):
        print(f"-- exposer {i}")
        if check(fault, src):
            return 1
    return 0


def check(fault, src):
    tfjit.set_faults("")
    base = outcome(src)
    print(f"no fault: {base}")
    if base != "agree":
        return 1
    tfjit.set_faults(fault)
    try:
        with_fault = outcome(src)
    finally:
        tfjit.set_faults("")
    print(f"{fault}: {with_fault}")
    if with_fault == "agree":
        print(f"FAIL {fault} is invisible to the observation")
        return 1
    if fault == "assume_stable_attrs" and not re.search(
            r"ProvenanceError.*attribute test of Test object out of sync", with_fault):
        print("FAIL expected the ProvenanceError of the motivating report")
        return 1
    print(f"ok   {fault} found")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in EXPOSERS:
        print(__doc__)
        print("faults:", ", ".join(EXPOSERS))
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
