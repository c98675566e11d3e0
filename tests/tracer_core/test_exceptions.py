"""Exceptions in interpreted frames: the 3.11 exception table, context chaining,
raise ... from, re-raise, finally, with-statements, except*, and tracebacks naming the
traced function in the program's file."""
import traceback

import tfjit
from tc_util import check, expect, finish


def caught(): 
    try:
        {}["k"]
    except KeyError as e:
        return ("caught", e.args)
def no_match():
    try:
        [][0]
    except KeyError:
        return "wrong"
def chained():
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise ValueError("v")
    except ValueError as e:
        return type(e.__context__).__name__, e.__cause__, e.__suppress_context__
def raise_from():
    try:
        raise KeyError("a") from OSError("b")
    except KeyError as e:
        return repr(e.__cause__), e.__suppress_context__
def raise_from_none():
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise KeyError("x") from None
    except KeyError as e:
        return e.__cause__, type(e.__context__).__name__, e.__suppress_context__
def bare_reraise():
    try:
        try:
            int("z")
        except ValueError:
            raise
    except ValueError as e:
        return str(e)
def no_active(): raise
def finally_order():
    log = []
    for i in range(3):
        try:
            if i == 1:
                continue
            log.append(i)
        finally:
            log.append(-i)
    return log
def finally_return():
    try:
        return 1
    finally:
        pass
def finally_reraise():
    log = []
    try:
        try:
            raise IndexError("i")
        finally:
            log.append("f")
    except IndexError:
        return log
class CM:
    def __init__(self, log, swallow): self.log, self.swallow = log, swallow
    def __enter__(self): self.log.append("enter"); return self
    def __exit__(self, t, v, tb): self.log.append(("exit", t and t.__name__)); return self.swallow
def with_swallow():
    log = []
    with CM(log, True):
        raise KeyError("k")
    return log
def with_propagate():
    log = []
    try:
        with CM(log, False) as c:
            log.append(c is not None)
            raise KeyError("k")
    except KeyError:
        return log
def not_a_cm():
    with 5:
        pass
def bad_except_class():
    try:
        1 / 0
    except 5:
        pass
def raise_instance_of_class():
    class E(Exception):
        def __init__(self):
            super().__init__("made")
    try:
        raise E
    except E as e:
        return e.args
def raise_non_exception(): raise 42
def except_star():
    try:
        raise ExceptionGroup("g", [KeyError(1), ValueError(2)])
    except* KeyError as g:
        k = repr(g.exceptions)
    except* ValueError as g:
        v = repr(g.exceptions)
    return k, v
def except_star_partial():
    try:
        try:
            raise ExceptionGroup("g", [KeyError(1), ValueError(2)])
        except* KeyError:
            pass
    except ExceptionGroup as g:
        return repr(g.exceptions)
def nested_loops_break():
    out = []
    for i in range(3):
        try:
            for j in range(3):
                if j == 2:
                    break
                try:
                    if (i + j) % 2:
                        raise ValueError(i, j)
                    out.append((i, j))
                except ValueError as e:
                    out.append(e.args)
        finally:
            out.append("f")
    return out
def assert_fails(): assert 1 == 2, "no"


for fn in [caught, no_match, chained, raise_from, raise_from_none, bare_reraise, no_active,
           finally_order, finally_return, finally_reraise, with_swallow, with_propagate,
           not_a_cm, bad_except_class, raise_instance_of_class, raise_non_exception,
           except_star, except_star_partial, nested_loops_break, assert_fails]:
    check(fn)


# Tracebacks: the innermost entry of a program exception names the traced function in
# this file; every interpreted frame it passed through has an entry.
def inner(x): return x.missing
def outer(x): return inner(x) + 1
try:
    tfjit.jit(outer)(3)
    expect(False, "traceback: exception expected")
except AttributeError as e:
    tb = traceback.extract_tb(e.__traceback__)
    expect(tb[-1].filename == __file__ and tb[-1].name == "inner",
           f"traceback innermost is inner in this file: {tb[-1]}")
    expect(tb[-1].lineno == inner.__code__.co_firstlineno, f"traceback line: {tb[-1].lineno}")
    expect([t.name for t in tb[-2:]] == ["outer", "inner"], f"traceback frames: {tb}")

# The handled exception does not leak out of a traced call.
import sys
def handles():
    try:
        1 / 0
    except ZeroDivisionError:
        return sys.exc_info()[0].__name__
expect(tfjit.jit(handles)() == "ZeroDivisionError", "sys.exc_info inside a handler")
expect(sys.exc_info() == (None, None, None), "no handled exception after the call")
finish()
