"""tc_util.py: helpers of the interpreter-core tests (tests/tracer_core).

check(fn, *args, **kw) runs fn eagerly and through tfjit.jit on the same arguments and
requires the same outcome: an equal result (compared with ==, and by repr when == is not
meaningful), or an exception of the same type with the same message. Each test script
calls check() per case, and finish() prints a summary and sets the exit status.
"""
import sys
import traceback

import tfjit

_failures = []
_passed = 0


def outcome(f, args, kw):
    try:
        return ("return", f(*args, **kw))
    except tfjit.LimitExceeded:
        raise
    except Exception as e:  # a program's exception is a result
        return ("raise", type(e), str(e))


def check(fn, *args, **kw):
    global _passed
    name = getattr(fn, "__qualname__", repr(fn))
    eager = outcome(fn, args, kw)
    try:
        traced = outcome(tfjit.jit(fn), args, kw)
    except Exception as e:
        traced = ("tracer error", type(e), str(e))
    same = eager[0] == traced[0] and (
        (eager[0] == "return" and (eager[1] == traced[1] or repr(eager[1]) == repr(traced[1])))
        or (eager[0] != "return" and eager[1:] == traced[1:]))
    if same:
        _passed += 1
    else:
        _failures.append(name)
        print(f"FAIL {name}:\n  eager : {eager!r}\n  traced: {traced!r}")
        tb = tfjit.last_trace().splitlines()[-8:]
        print("  last trace lines:\n    " + "\n    ".join(tb))


def expect(cond, what):
    global _passed
    if cond:
        _passed += 1
    else:
        _failures.append(what)
        print(f"FAIL {what}")


def finish():
    print(f"{_passed} passed, {len(_failures)} failed")
    if _failures:
        print("failing: " + " ".join(_failures))
    sys.exit(1 if _failures else 0)
