"""Snippets: object lifetime inside the traced call. CPython frees an object the moment
its last reference goes; __del__ and weakref callbacks then log. A tracer that keeps an
extra reference (on its stack, in a provenance record, in the attribute cache, in the
trace) moves those events and the LOG shows it (STYLE.md: records hold no strong
reference to traced objects)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("lifetime")

FIN = """
class Fin:
    def __init__(self, tag): self.tag = tag
    def __del__(self): LOG.append(("del", self.tag))
"""

T.add("del_local_runs_finalizer_now", FIN + """
def make(): return ()
def program():
    a = Fin("a")
    LOG.append("before")
    del a
    LOG.append("after")
""")
T.add("rebind_local_runs_finalizer_now", FIN + """
def make(): return ()
def program():
    a = Fin(1)
    a = Fin(2)
    LOG.append("mid")
    a = None
    LOG.append("end")
""")
T.add("temporary_dies_in_expression", FIN + """
def make(): return ()
def program():
    n = len([Fin("t")])
    LOG.append(("len", n))
    return n
""")
T.add("attribute_overwrite_frees_old", FIN + """
class C: pass
def make(): return (C(),)
def program(c):
    c.x = Fin("first")
    c.x.tag
    c.x = Fin("second")
    LOG.append("overwritten")
    del c.x
    LOG.append("deleted")
""")
T.add("attribute_read_then_dict_drop", FIN + """
class C: pass
def make(): return (C(),)
def program(c):
    c.x = Fin("x")
    v = c.x.tag
    c.__dict__.clear()
    LOG.append(("cleared", v))
""")
T.add("property_result_dropped", FIN + """
class C:
    @property
    def p(self): return Fin("prop")
def make(): return (C(),)
def program(c):
    c.p
    LOG.append("after bare read")
    t = c.p.tag
    LOG.append(("after tag", t))
""")
T.add("cached_property_invalidated_frees", FIN + """
import functools
class C:
    @functools.cached_property
    def v(self): return Fin("cached")
def make(): return (C(),)
def program(c):
    c.v; c.v
    del c.v
    LOG.append("invalidated")
""")
T.add("list_pop_frees", FIN + """
def make(): return ()
def program():
    l = [Fin(0), Fin(1)]
    l.pop()
    LOG.append("popped")
    l.clear()
    LOG.append("cleared")
""")
T.add("dict_value_replaced_frees", FIN + """
def make(): return ({},)
def program(d):
    d["k"] = Fin("old")
    d["k"] = Fin("new")
    LOG.append("replaced")
    return sorted(d)
""")
T.add("exception_object_freed_after_handler", FIN + """
class E(Exception):
    def __del__(self): LOG.append("exc freed")
def make(): return ()
def program():
    try:
        raise E()
    except E:
        LOG.append("handled")
    LOG.append("after")
""")
T.add("loop_variable_rebinding_frees", FIN + """
def make(): return ()
def program():
    for i in range(3):
        x = Fin(i)
    LOG.append("loop done")
""")
T.add("weakref_callback_timing", """
import weakref
class Obj: pass
def make(): return ()
def program():
    o = Obj()
    r = weakref.ref(o, lambda ref: LOG.append("callback"))
    LOG.append(r() is o)
    del o
    LOG.append(("dead", r() is None))
""")
T.add("weakref_to_attribute_value", """
import weakref
class Obj: pass
class C: pass
def make(): return (C(),)
def program(c):
    c.o = Obj()
    r = weakref.ref(c.o)
    alive = r() is not None
    c.o = None
    return alive, r() is None
""")
T.add("closure_cell_release", FIN + """
def make(): return ()
def program():
    x = Fin("cell")
    def f(): return x.tag
    t = f()
    del f
    x = None
    LOG.append(("released", t))
""")
T.add("argument_dropped_by_program", FIN + """
def make(): return ([Fin("arg")],)
def program(box):
    box.clear()
    LOG.append("arg list cleared")
""")
T.add("with_block_frees_manager", FIN + """
class CM(Fin):
    def __enter__(self): return self.tag
    def __exit__(self, *a): return False
def make(): return ()
def program():
    with CM("cm") as t:
        LOG.append(("inside", t))
    LOG.append("after with")
""")
T.add("comprehension_temporaries", FIN + """
def make(): return ()
def program():
    tags = [Fin(i).tag for i in range(3)]
    LOG.append(("tags", tags))
""")
T.add("refcount_of_arguments", """
import sys
class C: pass
def make(): return (C(),)
def program(c):
    before = sys.getrefcount(c)
    c.self_ref = c
    mid = sys.getrefcount(c)
    del c.self_ref
    return mid - before, sys.getrefcount(c) - before
""")

T.add("traceback_keeps_frame_locals", FIN + """
def f():
    x = Fin("local")
    raise ValueError("v")
def make(): return ()
def program():
    try:
        f()
    except ValueError as e:
        saved = e
    LOG.append("caught")
    del saved
    LOG.append("dropped")
""")
T.add("subscript_then_attribute_temporary", FIN + """
def make(): return ()
def program():
    d = {"k": Fin("v")}
    t = d["k"].tag
    d.clear()
    LOG.append(("cleared", t))
""")
T.add("binary_op_result_temporary", FIN + """
class Num(Fin):
    def __add__(self, o): return Num(self.tag + o)
def make(): return ()
def program():
    n = Num(1)
    m = (n + 1).tag
    LOG.append(("sum tag", m))
    del n
    LOG.append("end")
""")
T.add("method_call_result_discarded", FIN + """
class Factory:
    def build(self, t): return Fin(t)
def make(): return (Factory(),)
def program(f):
    f.build("discarded")
    LOG.append("after discard")
    kept = f.build("kept")
    LOG.append("holding")
    return kept.tag
""")
T.add("exception_context_released", FIN + """
class E(Exception):
    def __init__(self, payload):
        super().__init__()
        self.payload = payload
def make(): return ()
def program():
    try:
        try:
            raise E(Fin("first"))
        except E:
            raise KeyError("second")
    except KeyError as k:
        LOG.append(("caught", type(k.__context__).__name__))
    LOG.append("after")
""")

# Operands are released in ceval's order, deepest first (lhs before rhs, the item before
# the container, the container before the key, the stored value first), and before an
# error propagates. The program is replayable: calls 2 and 3 pin the replayer too.
OPS = """
class Op:
    def __init__(self, tag): self.tag = tag
    def __del__(self): LOG.append(("del", self.tag))
    def __add__(self, o): return 1
    def __lt__(self, o): return True
    def __getitem__(self, k): return 2
    def __setitem__(self, k, v): pass
    def __delitem__(self, k): pass
    def __contains__(self, k): return True
"""
T.add("operand_release_order", FIN + OPS + """
def make(): return ()
def program():
    r = [Op("a") + Op("b")]
    LOG.append("|")
    r.append(Op("c") < Op("d"))
    LOG.append("|")
    r.append(Op("e")[Op("f")])
    LOG.append("|")
    Op("g")[Op("h")] = Op("i")
    LOG.append("|")
    del Op("j")[Op("k")]
    LOG.append("|")
    r.append(Op("l") in Op("m"))
    LOG.append("|")
    r.append(Op("n") is Op("o"))
    return r
""")
T.add("operand_release_order_on_error", FIN + OPS + """
def make(): return ()
def program():
    try:
        Fin("a") + Fin("b")
    except TypeError:
        LOG.append("caught +")
    try:
        Fin("c") < Fin("d")
    except TypeError:
        LOG.append("caught <")
    try:
        Fin("e")[Fin("f")]
    except TypeError:
        LOG.append("caught []")
    try:
        Fin("g") in Fin("h")
    except TypeError:
        LOG.append("caught in")
    try:
        Fin("i")[Fin("j")] = Fin("k")
    except TypeError:
        LOG.append("caught []=")
    return "done"
""")

# CALL releases the function, then self and the arguments in order; CALL_FUNCTION_EX
# the function, the positional tuple, then the keyword dict (ceval 3.11).
T.add("call_release_order", FIN + """
def make(): return ()
def program():
    r = [Fin("a").__eq__(Fin("b"))]
    LOG.append("|")
    r.append(getattr(Fin("c"), "tag", Fin("d")))
    LOG.append("|")
    try:
        isinstance(Fin("e"), Fin("f"))
    except TypeError:
        LOG.append("caught")
    return r
""")
T.add("call_ex_release_order", FIN + """
def make(): return ()
def program():
    return "{0.tag}{k.tag}".format(*[Fin("g")], **{"k": Fin("h")})
""")

if __name__ == "__main__":
    T.main()
