"""Toy target: a correct jit that inspects its callers the way real Python JITs do.

Thunder's interpreter records the call site with `inspect.stack()[2]` from a helper of
its `__call__`; others read `sys._getframe(1)`, `f_back.f_globals` (to resolve the
function's globals the way the caller sees them) and `inspect.getsource(fn)`. Called
straight from C, with no Python caller frame, all of these fail (IndexError,
ValueError, AttributeError on None). Apart from the inspection the jit is the
identity, so every program must pass: any failure is tracefuzz's, not the target's.
"""
import inspect
import sys


class CallerError(Exception):
    pass


def _call_site():
    # [0] this helper, [1] Jitted.__call__, [2] whoever called the jitted function
    frame = inspect.stack()[2]
    if not frame.filename or frame.function is None:
        raise CallerError(f"no caller: {frame!r}")
    return frame.filename, frame.lineno, frame.function


class Jitted:
    def __init__(self, fn, created_at):
        self.fn = fn
        self.created_at = created_at
        self.sites = []
        try:
            # a source-reading jit (AST-based) needs this
            self.source = inspect.getsource(fn)
        except (OSError, TypeError) as e:
            raise CallerError(f"no source for {fn.__name__}: {e}") from e
        if f"def {fn.__name__}" not in self.source:
            raise CallerError(f"wrong source for {fn.__name__}: {self.source[:80]!r}")

    def __call__(self, *args):
        self.sites.append(_call_site())
        caller = sys._getframe(1)
        if caller.f_back is None:
            raise CallerError("the caller has no caller")
        if caller.f_globals is not self.fn.__globals__:
            # a jit resolving globals through its caller would now look up the
            # wrong module
            raise CallerError("the caller's globals are not the function's module")
        return self.fn(*args)


def jit(fn):
    creator = sys._getframe(1)
    return Jitted(fn, (creator.f_code.co_filename, creator.f_lineno))
