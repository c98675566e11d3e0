"""Snippets: code that looks at its own frame. Builtins such as locals(), eval() without
namespaces, sys._getframe(), warnings with stacklevel and zero-argument super() read the
*calling Python frame*; under a tracer the caller is an interpreted frame that CPython
does not know. The tracer must model these or declare them with tfjit.Unsupported
(accepted here, with the reason "frame introspection"); a silently wrong answer fails."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("introspect")
WHY = "frame introspection"

T.add("locals_builtin", """
def make(): return (1,)
def program(a):
    b = [a]
    return sorted(locals())
""", unsup=WHY)
T.add("locals_values_identity", """
def make(): return ([1],)
def program(a):
    return locals()["a"] is a
""", unsup=WHY)
T.add("vars_without_argument", """
def make(): return (1,)
def program(a):
    c = 3
    return sorted(vars())
""", unsup=WHY)
T.add("dir_without_argument", """
def make(): return (1,)
def program(a):
    z = 0
    return dir()
""", unsup=WHY)
T.add("eval_reads_locals", """
def make(): return (4,)
def program(a):
    b = a * 2
    return eval("a + b")
""", unsup=WHY)
T.add("eval_explicit_namespaces", """
def make(): return (4,)
def program(a):
    return eval("x * y", {}, {"x": a, "y": 3})
""")
T.add("exec_explicit_namespace", """
def make(): return ()
def program():
    ns = {}
    exec("v = [1, 2]\\nw = len(v)", {}, ns)
    return ns
""")
T.add("globals_builtin_write_then_read", """
def make(): return ()
def program():
    globals()["MADE_HERE"] = [1]
    return MADE_HERE
""")
T.add("getframe_code_name", """
import sys
def make(): return ()
def program():
    f = sys._getframe()
    return f.f_code.co_name, f.f_back.f_code.co_name != "program"
""", unsup=WHY)
T.add("getframe_in_helper", """
import sys
def helper():
    return sys._getframe(1).f_code.co_name
def make(): return ()
def program():
    return helper()
""", unsup=WHY)
T.add("getframe_locals_of_caller", """
import sys
def peek():
    return sorted(sys._getframe(1).f_locals)
def make(): return (1,)
def program(a):
    secret = 2
    return peek()
""", unsup=WHY)
T.add("inspect_currentframe_lineno", """
import inspect
def make(): return ()
def program():
    f = inspect.currentframe()
    return f.f_lineno, f.f_code.co_filename.startswith("<tfsnip")
""", unsup=WHY)
T.add("traceback_extract_stack_names", """
import traceback
def inner():
    return [fs.name for fs in traceback.extract_stack(limit=2)]
def make(): return ()
def program():
    return inner()
""", unsup=WHY)
T.add("warnings_stacklevel_location", """
import warnings
def deprecated():
    warnings.warn("old", DeprecationWarning, stacklevel=2)
def make(): return ()
def program():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        deprecated()
    return [(str(x.message), x.lineno, x.filename.startswith("<tfsnip")) for x in w]
""", unsup=WHY)
T.add("super_zero_arg_outside_class", """
def make(): return ()
def program():
    def f():
        return super()
    try:
        f()
    except RuntimeError as e:
        return str(e)
""")
T.add("super_zero_arg_in_nested_function_in_method", """
class A:
    def m(self): return "A"
class B(A):
    def m(self):
        def inner():
            return super().m()
        try:
            return inner()
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e)
def make(): return (B(),)
def program(b):
    return b.m()
""")
T.add("exception_traceback_frames_names", """
def deep():
    raise ValueError("x")
def mid():
    deep()
def make(): return ()
def program():
    try:
        mid()
    except ValueError as e:
        tb = e.__traceback__
        names = []
        while tb is not None:
            names.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        return names
""")
T.add("exception_traceback_line_numbers", """
def deep():
    x = 1
    raise ValueError(x)
def make(): return ()
def program():
    try:
        deep()
    except ValueError as e:
        tb = e.__traceback__
        lines = []
        while tb is not None:
            lines.append(tb.tb_lineno)
            tb = tb.tb_next
        return lines
""")
T.add("function_code_attributes", """
def make(): return ()
def program():
    def f(a, b=1, *c, d, **e): pass
    co = f.__code__
    return co.co_argcount, co.co_kwonlyargcount, co.co_varnames, co.co_name
""")

if __name__ == "__main__":
    T.main()
