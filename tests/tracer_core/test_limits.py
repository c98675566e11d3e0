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
