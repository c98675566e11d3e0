"""Snippets: exceptions: raise, try/except/else/finally, with, raise from, context
chaining, nested handlers, re-raise, exception groups and except*, assert."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("exceptions")

T.add("raise_uncaught", """
def make(): return (3,)
def program(n):
    raise ValueError("bad", n)
""")
T.add("raise_class_not_instance", """
def make(): return ()
def program():
    raise KeyError
""")
T.add("raise_non_exception", """
def make(): return ()
def program():
    raise 42
""")
T.add("try_except_value", """
def make(): return ([1, 2],)
def program(xs):
    try:
        return xs[5]
    except IndexError as e:
        LOG.append(str(e))
        return -1
""")
T.add("try_except_tuple_types", """
def make(): return ({"a": 1},)
def program(d):
    out = []
    for k in ("a", "b", 3):
        try:
            out.append(d[k] + k)
        except (KeyError, TypeError) as e:
            out.append(type(e).__name__)
    return out
""")
T.add("try_except_no_match_propagates", """
def make(): return ()
def program():
    try:
        {}["x"]
    except ValueError:
        return "wrong"
""")
T.add("try_else_finally_order", """
def make(): return (0,)
def program(n):
    try:
        LOG.append("body")
        v = 10 // (n + 1)
    except ZeroDivisionError:
        LOG.append("except")
    else:
        LOG.append("else")
    finally:
        LOG.append("finally")
    return v
""")
T.add("finally_overrides_return", """
def make(): return ()
def program():
    try:
        return "try"
    finally:
        LOG.append("fin")
""")
T.add("finally_return_swallows", """
def make(): return ()
def f():
    try:
        raise ValueError("lost")
    finally:
        return "finally wins"
def program():
    return f()
""")
T.add("finally_runs_on_break_continue", """
def make(): return (5,)
def program(n):
    for i in range(n):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            LOG.append(i)
        finally:
            LOG.append(("fin", i))
    return i
""")
T.add("context_chaining", """
def make(): return ()
def program():
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise KeyError("second")
    except KeyError as e:
        return e, type(e.__context__).__name__, e.__cause__, e.__suppress_context__
""")
T.add("context_chaining_uncaught", """
def make(): return ()
def program():
    try:
        int("x")
    except ValueError:
        [][1]
""")
T.add("raise_from", """
def make(): return ()
def program():
    try:
        raise ValueError("inner")
    except ValueError as e:
        raise RuntimeError("outer") from e
""")
T.add("raise_from_none", """
def make(): return ()
def program():
    try:
        {}[1]
    except KeyError:
        raise TypeError("clean") from None
""")
T.add("reraise_bare", """
def make(): return ()
def program():
    try:
        raise OSError(2, "nope")
    except OSError:
        LOG.append("seen")
        raise
""")
T.add("reraise_from_finally", """
def make(): return ()
def program():
    try:
        raise ValueError("v")
    finally:
        LOG.append("cleanup")
""")
T.add("nested_handlers", """
def make(): return ()
def program():
    out = []
    try:
        try:
            raise KeyError("k")
        except KeyError as e:
            out.append("inner " + str(e))
            try:
                raise ValueError("v")
            except ValueError as e2:
                out.append("inner2 " + str(e2))
            raise IndexError("i")
    except IndexError as e3:
        out.append(("outer", e3.args, type(e3.__context__).__name__))
    return out
""")
T.add("exception_var_cleared", """
def make(): return ()
def program():
    e = "before"
    try:
        raise ValueError
    except ValueError as e:
        pass
    try:
        return e
    except NameError as n:
        return "cleared", str(n)
""")
T.add("exc_info_inside_handler", """
import sys
def make(): return ()
def program():
    a = sys.exc_info()[0]
    try:
        raise KeyError(1)
    except KeyError:
        b = sys.exc_info()[0].__name__
    c = sys.exc_info()[0]
    return a, b, c
""")
T.add("exception_in_getter_propagates_through_frames", """
class C:
    @property
    def p(self):
        return self.helper()
    def helper(self):
        raise LookupError("deep")
def make(): return (C(),)
def program(c):
    try:
        c.p
    except LookupError as e:
        return e.args
""")
T.add("custom_exception_class", """
class MyErr(Exception):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code
def make(): return (7,)
def program(n):
    try:
        raise MyErr(n)
    except MyErr as e:
        return e.code, str(e), e
""")
T.add("custom_exception_str", """
class E(Exception):
    def __str__(self):
        LOG.append("str")
        return "custom"
def make(): return ()
def program():
    raise E(1, 2)
""")
T.add("exception_subclass_match_order", """
class A(Exception): pass
class B(A): pass
def make(): return ()
def program():
    try:
        raise B()
    except B:
        r = "B"
    except A:
        r = "A"
    return r
""")
T.add("except_non_exception_class", """
def make(): return ()
def program():
    try:
        raise ValueError
    except 3:
        return 1
""")
T.add("with_context_manager", """
class CM:
    def __enter__(self):
        LOG.append("enter")
        return self
    def __exit__(self, t, v, tb):
        LOG.append(("exit", t.__name__ if t else None))
        return False
def make(): return (CM(),)
def program(cm):
    with cm as c:
        LOG.append(c is cm)
    return "done"
""")
T.add("with_suppresses", """
class Suppress:
    def __enter__(self): return "value"
    def __exit__(self, t, v, tb):
        LOG.append(str(v))
        return True
def make(): return ()
def program():
    with Suppress() as v:
        raise KeyError(v)
    return "after"
""")
T.add("with_propagates", """
class CM:
    def __enter__(self): return self
    def __exit__(self, t, v, tb):
        LOG.append(t.__name__)
        return None
def make(): return ()
def program():
    with CM():
        raise ValueError("out")
""")
T.add("with_exit_raises", """
class CM:
    def __enter__(self): return self
    def __exit__(self, *a):
        raise RuntimeError("exit failed")
def make(): return ()
def program():
    with CM():
        raise ValueError("body")
""")
T.add("with_nested_and_return", """
class CM:
    def __init__(self, n): self.n = n
    def __enter__(self):
        LOG.append(("in", self.n))
        return self.n
    def __exit__(self, *a):
        LOG.append(("out", self.n))
def make(): return ()
def program():
    with CM(1) as a, CM(2) as b:
        return a + b
""")
T.add("with_contextlib", """
import contextlib
@contextlib.contextmanager
def cm(tag):
    LOG.append(("enter", tag))
    try:
        yield tag * 2
    finally:
        LOG.append(("exit", tag))
def make(): return ("t",)
def program(tag):
    with cm(tag) as v:
        return v
""", gen=True)
T.add("with_enter_not_cm", """
def make(): return ()
def program():
    with 5:
        pass
""")
T.add("assert_fails", """
def make(): return (0,)
def program(n):
    assert n > 0, f"n was {n}"
""")
T.add("assert_passes", """
def make(): return (1,)
def program(n):
    assert n > 0
    return n
""")
T.add("exception_group_raise", """
def make(): return ()
def program():
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
""")
T.add("except_star_split", """
def make(): return ()
def program():
    got = []
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ValueError(3)])
    except* ValueError as g:
        got.append(("V", [e.args for e in g.exceptions]))
    except* TypeError as g:
        got.append(("T", [e.args for e in g.exceptions]))
    return got
""")
T.add("except_star_partial_reraise", """
def make(): return ()
def program():
    try:
        raise ExceptionGroup("eg", [ValueError(1), KeyError(2)])
    except* ValueError as g:
        LOG.append(len(g.exceptions))
""")
T.add("except_star_naked_exception", """
def make(): return ()
def program():
    got = []
    try:
        raise ValueError("naked")
    except* ValueError as g:
        got.append((type(g).__name__, [str(e) for e in g.exceptions]))
    return got
""")
T.add("exception_notes", """
def make(): return ()
def program():
    try:
        e = ValueError("x")
        e.add_note("note 1")
        raise e
    except ValueError as err:
        return err.__notes__
""")
T.add("exception_attributes_args", """
def make(): return ()
def program():
    try:
        open_ = {}.__getitem__
        open_("missing")
    except KeyError as e:
        return e.args, repr(e)
""")
T.add("stop_iteration_manual", """
def make(): return ([1],)
def program(xs):
    it = iter(xs)
    out = [next(it)]
    try:
        next(it)
    except StopIteration as e:
        out.append(("stop", e.value))
    return out, next(it, "dflt")
""")
T.add("exception_in_loop_continues", """
def make(): return (["1", "x", "3"],)
def program(items):
    total = 0
    for s in items:
        try:
            total += int(s)
        except ValueError:
            LOG.append(s)
            continue
    return total
""")
T.add("exception_in_comprehension", """
def make(): return ([1, 0, 2],)
def program(xs):
    try:
        return [10 // x for x in xs]
    except ZeroDivisionError as e:
        return str(e)
""")
T.add("exception_from_c_call_in_handler", """
def make(): return ()
def program():
    try:
        raise ValueError("a")
    except ValueError:
        try:
            int("zz")
        except ValueError as e2:
            return str(e2), type(e2.__context__).__name__
""")
T.add("return_in_except_restores_exc_state", """
import sys
def f():
    try:
        raise KeyError
    except KeyError:
        return sys.exc_info()[0]
def make(): return ()
def program():
    a = f()
    return a, sys.exc_info()
""")
T.add("unbound_local_error", """
def make(): return (False,)
def program(flag):
    if flag:
        x = 1
    return x
""")
T.add("name_error_global", """
def make(): return ()
def program():
    return undefined_global_name
""")
T.add("recursion_exception_depth_small", """
def fact(n):
    if n < 0: raise ValueError("neg")
    return 1 if n == 0 else n * fact(n - 1)
def make(): return (12,)
def program(n):
    try:
        fact(-1)
    except ValueError as e:
        return fact(n), str(e)
""")

# NameError carries the missing name (ceval's format_exc_check_arg sets .name, which
# the traceback module reads for its "Did you mean" hint); UnboundLocalError does not.
# name_error_has_name is replayable: its second and third calls replay the first's trace.
T.add("name_error_has_name", """
def make(): return ()
def program():
    r = []
    try:
        undefined_global_tf
    except NameError as e:
        r.append((type(e).__name__, str(e), e.name))
    try:
        before_assignment
    except UnboundLocalError as e:
        r.append((type(e).__name__, str(e), e.name))
    before_assignment = 1
    try:
        del before_assignment
        del before_assignment
    except UnboundLocalError as e:
        r.append((type(e).__name__, str(e), e.name))
    return r
""")
T.add("name_error_free_var_has_name", """
def make(): return ()
def program():
    def inner():
        return later
    try:
        inner()
    except NameError as e:
        r = type(e).__name__, str(e), e.name
    later = 1
    return r, inner()
""")
T.add("name_error_del_global_has_name", """
def make(): return ()
def program():
    global never_defined_tf
    try:
        del never_defined_tf
    except NameError as e:
        return type(e).__name__, str(e), e.name
""")

if __name__ == "__main__":
    T.main()
