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
    "classmethod_binds_instance": """
class C:
    @classmethod
    def who(cls):
        LOG.append(("who", cls.__name__))
        return cls
LOG = []
def make(): return (C(),)
def program(c): return c.who(), c.who is not None
""",
    "cached_property_recomputed": """
import functools
class C:
    @functools.cached_property
    def p(self):
        LOG.append("computed")
        return [len(LOG)]
LOG = []
def make(): return (C(),)
def program(c):
    a = c.p
    return a, c.p, a is c.p
""",
    "unset_slot_is_none": ["""
class C:
    __slots__ = ("s", "t")
def make():
    c = C()
    c.t = 1
    return (c,)
def program(c): return hasattr(c, "s"), getattr(c, "s", "default"), c.t
""", """
class C:
    __slots__ = ("s",)
def make(): return (C(),)
def program(c):
    try:
        return c.s
    except AttributeError as e:
        return "AttributeError"
"""],
    "getattribute_ignored": """
class C:
    def __init__(self): self.x = 1
    def __getattribute__(self, name):
        LOG.append(("getattribute", name))
        if name == "x":
            return "from __getattribute__"
        return object.__getattribute__(self, name)
LOG = []
def make(): return (C(),)
def program(c): return c.x
""",
    "meta_data_desc_loses": """
class Meta(type):
    @property
    def k(cls):
        LOG.append("meta property")
        return "from the metaclass"
class C(metaclass=Meta):
    k = "from the class dict"
LOG = []
def make(): return (C(),)
def program(c): return type(c).k, C.k
""",
    "stale_dict_write": ["""
class C:
    def __init__(self): self.x = "old"
def make(): return (C(),)
def program(c):
    a = c.x
    c.__dict__["x"] = "written through __dict__"
    return a, c.x
""", """
class C:
    def __init__(self): self.x = "old"
def make(): return (C(),)
def program(c):
    a = c.x
    vars(c)["x"] = "written through vars()"
    return a, c.x
""", """
class C:
    k = "class"
def make(): return (C(),)
def program(c): return c.k
def between(c): c.__dict__["k"] = "shadow written between calls"
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
