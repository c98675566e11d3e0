"""Budgets: the instruction budget and the call-depth bound raise tfjit.LimitExceeded,
which program handlers never catch; CPython's own RecursionError stays a program result."""
import tfjit
from tc_util import expect, finish


def spin():
    try:
        while True:
            pass
    except Exception:
        return "caught by the program"


def deep(n): return deep(n + 1)


def catches_all(n):
    try:
        return deep(n)
    except BaseException as e:
        return type(e).__name__


def limited(fn, *args, **opts):
    try:
        tfjit.jit(fn, **opts)(*args)
    except tfjit.LimitExceeded as e:
        return str(e)
    return None


msg = limited(spin, budget=10000)
expect(msg is not None and "budget" in msg, f"instruction budget: {msg!r}")
msg = limited(deep, 0, max_depth=50)
expect(msg is not None and "depth" in msg, f"depth bound: {msg!r}")
msg = limited(catches_all, 0, max_depth=30)
expect(msg is not None, "LimitExceeded is not caught by `except BaseException` in the program")
expect(tfjit.jit(catches_all)(0) == "RecursionError", "default depth: CPython's RecursionError")
expect(tfjit.jit(lambda: sum(range(10)), budget=100)() == 45, "a small budget suffices")
expect(issubclass(tfjit.LimitExceeded, Exception) and
       not issubclass(tfjit.LimitExceeded, tfjit.Unsupported), "distinct error")


# Recursion through getters nests C frames per level: with a raised recursion limit
# the C stack budget stops it (LimitExceeded), never a crash.
class Rec:
    @property
    def p(self):
        return self.p
def recurse(o):
    try:
        return o.p
    except RecursionError:
        return "RecursionError"
import sys
old = sys.getrecursionlimit()
sys.setrecursionlimit(100000)
try:
    r = tfjit.jit(recurse)(Rec())
    expect(False, f"unbounded getter recursion stopped: {r!r}")
except tfjit.LimitExceeded as e:
    expect("stack" in str(e), f"C stack budget: {e}")
finally:
    sys.setrecursionlimit(old)
# At the default limit CPython's RecursionError comes first in a plain build; an ASan
# build uses more C stack per level and may stop at the budget: either, never a crash.
try:
    outcome = tfjit.jit(recurse)(Rec())
except tfjit.LimitExceeded:
    outcome = "LimitExceeded"
expect(outcome in ("RecursionError", "LimitExceeded"), f"default limit: {outcome!r}")


# The handled exception is restored when a limit unwinds from inside an except block.
def limit_in_handler():
    try:
        1 / 0
    except ZeroDivisionError:
        while True:
            pass
import sys
limited(limit_in_handler, budget=5000)
expect(sys.exc_info() == (None, None, None), "handled exception restored after a limit")
finish()
