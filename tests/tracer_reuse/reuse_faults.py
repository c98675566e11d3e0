"""The trace-reuse faults (docs/FAULTS.md): for each, a program whose eager and jit
runs agree without the fault and differ with it. Usage: reuse_faults.py FAULT"""
import sys

from reuse_common import check

PLAN = [("call", "make"), ("do", "between"), ("call", "make"), ("call", "make")]

EXPOSERS = {
    "stale_guard_class_attr": """
LOG = []
class C:
    k = ("k", 1)
def make():
    return (C(),)
def program(c):
    return (c.k, type(c).k)
def between(c):
    C.k = ("rebound", 2)
""",
    "skip_getter_on_replay": """
LOG = []
class C:
    @property
    def p(self):
        LOG.append("p")
        return [len(LOG)]
def make():
    return (C(),)
def program(c):
    return c.p
def between(c):
    pass
""",
    "dict_shadow_unguarded": """
LOG = []
class ND:
    def __get__(self, obj, owner=None):
        LOG.append("nd_get")
        return "from descriptor"
class C:
    nd = ND()
def make():
    return (C(),)
def program(c):
    return c.nd
def between(c):
    c.__dict__["nd"] = "from the instance dict"
""",
    "no_invalidate_on_store": """
LOG = []
class C:
    pass
def make():
    c = C()
    c.x = 1
    return (c,)
def program(c):
    out = [c.x]
    c.x = [len(out)]
    out.append(c.x)
    return out
def between(c):
    c.x = 5
""",
}


def run_fault(fault):
    src = EXPOSERS[fault]
    ok_plain, equal_plain, d = check(f"{fault} (off)", src, PLAN, ["replays"])
    _, equal_fault, _ = check(f"{fault} (on)", src, PLAN, faults=fault)
    ok = ok_plain and equal_plain and not equal_fault
    print(("ok  " if ok else "FAIL") + f" {fault}: agrees without the fault {equal_plain}, "
          f"differs with it {not equal_fault}")
    return ok


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in EXPOSERS:
        print(f"usage: reuse_faults.py FAULT ({' '.join(EXPOSERS)})")
        sys.exit(2)
    sys.exit(0 if run_fault(sys.argv[1]) else 1)
