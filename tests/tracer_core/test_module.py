"""The tfjit module: the jit wrapper (method binding, __wrapped__), faults, lookasides,
and nothing of a run outliving it."""
import gc
import weakref

import tfjit
from tc_util import check, expect, finish


class P:
    def __init__(self):
        self.v = 1
    @tfjit.jit
    def traced_method(self, k):
        return self.v + k
    def __setattr__(self, n, v):
        object.__setattr__(self, n, v * 10 if n == "w" else v)


p = P()
expect(p.traced_method(2) == 3, "jit wrapper binds as a method")
expect(P.traced_method.__wrapped__.__name__ == "traced_method", "__wrapped__")
expect(P.traced_method.__name__ == "traced_method", "__name__ read through")
expect("tfjit.jit" in repr(P.traced_method), "repr")

tfjit.set_faults("")
expect(tfjit.faults() == [], "no faults by default")
try:
    tfjit.set_faults("no_such_fault")
    expect(False, "unknown fault rejected")
except ValueError:
    expect(True, "unknown fault rejected")


# Lookasides compared with eager runs.
class G:
    x = 1
    def __getattr__(self, n):
        if n == "dyn":
            return "dynamic"
        raise AttributeError(n)
class H(G):
    def __init__(self):
        super().__init__()
        self.y = 2
    def get(self):
        return super().__getattribute__("y"), super(H, self).x
def lookasides(o):
    setattr(o, "z", 3)
    r = [getattr(o, "x"), getattr(o, "dyn"), getattr(o, "nope", "d"), hasattr(o, "nope"),
         hasattr(o, "z"), type(o).__name__, sorted(vars(o)), o.get()]
    delattr(o, "z")
    r.append(hasattr(o, "z"))
    return r
check(lookasides, H())
def setattr_override():
    q = P()
    q.w = 2
    object.__setattr__(q, "u", 5)
    object.__delattr__(q, "u")
    return q.w, object.__getattribute__(q, "v"), hasattr(q, "u")
check(setattr_override)
def locals_and_globals(a):
    b = a + 1
    def inner(): return b
    return sorted(locals()), "tfjit" in globals(), inner()
check(locals_and_globals, 1)
def namespaces(a):
    b = a * 2
    r = [eval("a + b"), eval("a", None, {"a": 9}), eval("x", {"x": 3}), dir()]
    exec("c = a + 1")
    exec("d = 2", None)
    l1 = locals()
    del b
    return r, sorted(l1), l1 is locals(), "b" in locals()
check(namespaces, 1)
def getattr_errors():
    out = []
    for args in [(1,), (1, 2), (1, "real", 3, 4)]:
        try:
            getattr(*args)
        except TypeError as e:
            out.append(str(e))
    return out
check(getattr_errors)


# warnings.warn takes its location from the interpreted frames; sys._getframe() shows
# them as frame-like objects (live line numbers and locals, f_back chain).
import sys
import warnings
def deprecated(level):
    warnings.warn("old", DeprecationWarning, stacklevel=level)
def warns(level):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        deprecated(level)
        warnings.warn(UserWarning("inst"))
    return [(str(x.message), x.category.__name__, x.lineno, x.filename) for x in w]
check(warns, 1)
check(warns, 2)
try:
    tfjit.jit(warns)(5)
    expect(False, "stacklevel beyond the traced frames is Unsupported")
except tfjit.Unsupported:
    expect(True, "stacklevel beyond the traced frames is Unsupported")
def helper_peek():
    f = sys._getframe(1)
    return f.f_code.co_name, sorted(f.f_locals), f.f_lineno, f is sys._getframe(1)
def getframe(a):
    secret = a
    here = sys._getframe()
    line_then = here.f_lineno
    peek = helper_peek()
    return (here.f_code.co_name, line_then, here.f_lineno, peek, "secret" in here.f_locals,
            here.f_back is not None, here.f_globals is globals())
check(getframe, 1)
import inspect
import traceback
def introspect():
    return (inspect.currentframe().f_code.co_name,
            [fs.name for fs in traceback.extract_stack(limit=2)])
check(introspect)


# Nothing of a run outlives it: the arguments, their attributes and results of
# intermediate operations are collectable once the call returns.
class W:
    @property
    def p(self):
        return W2()
class W2:
    pass
def touch(w):
    a = w.p
    b = w.p
    return a is b
w = W()
ref = weakref.ref(w)
expect(tfjit.jit(touch)(w) is False, "property read twice")
del w
gc.collect()
expect(ref() is None, "the traced argument is collectable after the call")
finish()
