"""Snippets: trace reuse. The second call runs on the same world after between() changed
it, the third on another world from make_other(): a tracer replaying a recorded trace
must notice every change its guards are meant to cover (argument types, globals,
builtins shadowing, function defaults and code, closure cells, class dicts, MRO,
__class__, instance dict shadowing, slots)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("reuse")

T.add("arg_type_changes", """
def make(): return (2,)
def make_other(): return ("ab",)
def program(x):
    return x * 2, type(x).__name__
""")
T.add("arg_container_type_changes", """
def make(): return ([1, 2],)
def make_other(): return ((1, 2),)
def program(x):
    try:
        x.append(3)
    except AttributeError as e:
        return "immutable", str(e)
    return x
""")
T.add("arg_other_class_same_attr", """
class A:
    def __init__(self): self.v = "plain"
class B:
    @property
    def v(self):
        LOG.append("B.v")
        return "property"
def make(): return (A(),)
def make_other(): return (B(),)
def program(o):
    return o.v, o.v
""")
T.add("arg_subclass_overrides_method", """
class A:
    def who(self): return "A"
class B(A):
    def who(self): return "B>" + super().who()
def make(): return (A(),)
def make_other(): return (B(),)
def program(o):
    return o.who()
""")
T.add("arg_count_of_items_changes_loop", """
def make(): return ([1, 2, 3],)
def make_other(): return ([],)
def program(xs):
    total = 0
    for x in xs:
        total += x
    return total, len(xs)
""")
T.add("branch_taken_changes", """
class C:
    def __init__(self, flag): self.flag = flag
def make(): return (C(True),)
def make_other(): return (C(False),)
def program(c):
    if c.flag:
        return "yes"
    return "no"
""")
T.add("global_rebound_between", """
K = 1
def make(): return ()
def between():
    global K
    K = 2
def program():
    return K * 10
""")
T.add("global_deleted_between", """
K = 1
def make(): return ()
def between():
    global K
    del K
def program():
    try:
        return K
    except NameError as e:
        return str(e)
""")
T.add("builtin_shadowed_between", """
def make(): return ([1, 2, 3],)
def between(xs):
    globals()["len"] = lambda x: "shadow"
def program(xs):
    return len(xs)
""")
T.add("defaults_changed_between", """
def helper(x, k=1): return x * k
def make(): return (5,)
def between(x):
    helper.__defaults__ = (3,)
def program(x):
    return helper(x)
""")
T.add("program_defaults_changed_between", """
def make(): return (5,)
def between(x):
    program.__defaults__ = (100,)
def program(x, k=1):
    return x + k
""")
T.add("helper_code_swapped_between", """
def helper(): return "old"
def other(): return "new"
def make(): return ()
def between():
    helper.__code__ = other.__code__
def program():
    return helper()
""")
T.add("program_code_swapped_between", """
def alt(x): return ("alt", x)
def make(): return (1,)
def between(x):
    program.__code__ = alt.__code__
def program(x):
    return ("orig", x)
""")
T.add("closure_cell_changed_between", """
def outer():
    state = ["first"]
    def inner(): return state[0]
    def setter(v): state[0] = v
    return inner, setter
INNER, SETTER = outer()
def make(): return ()
def between():
    SETTER("second")
def program():
    return INNER()
""")
T.add("closure_cell_rebound_between", """
def outer():
    v = "first"
    def inner(): return v
    def rebind(x):
        nonlocal v
        v = x
    return inner, rebind
INNER, REBIND = outer()
def make(): return ()
def between():
    REBIND("second")
def program():
    return INNER()
""")
T.add("method_replaced_on_class_between", """
class C:
    def m(self): return "old"
def make(): return (C(),)
def between(c):
    C.m = lambda self: "new"
def program(c):
    return c.m()
""")
T.add("property_replaced_between", """
class C:
    @property
    def p(self): return "p1"
def make(): return (C(),)
def between(c):
    C.p = property(lambda self: "p2")
def program(c):
    return c.p
""")
T.add("base_class_changed_between", """
class A:
    def who(self): return "A"
class A2:
    def who(self): return "A2"
class B(A):
    pass
def make(): return (B(),)
def between(b):
    B.__bases__ = (A2,)
def program(b):
    return b.who(), [k.__name__ for k in type(b).__mro__]
""")
T.add("slot_toggled_between", """
class S:
    __slots__ = ("a",)
def make():
    s = S(); s.a = 1
    return (s,)
def between(s):
    del s.a
def program(s):
    return getattr(s, "a", "unset")
""")
T.add("class_swapped_between_with_slots_compat", """
class A:
    def f(self): return "A"
class B:
    def f(self): return "B"
    x = "B.x"
def make(): return (A(),)
def between(o):
    o.__class__ = B
def program(o):
    return o.f(), getattr(o, "x", None)
""")
T.add("getattr_added_between", """
class C:
    pass
def make(): return (C(),)
def between(c):
    C.__getattr__ = lambda self, n: "hook:" + n
def program(c):
    return getattr(c, "q", "absent")
""")
T.add("getattribute_added_between", """
class C:
    def __init__(self): self.x = "dict"
def make(): return (C(),)
def between(c):
    C.__getattribute__ = lambda self, n: "ga:" + n
def program(c):
    return c.x
""")
T.add("setattr_added_between", """
class C:
    pass
def make(): return (C(),)
def between(c):
    def sa(self, n, v):
        LOG.append(("routed", n))
        object.__setattr__(self, n, v * 2)
    C.__setattr__ = sa
def program(c):
    c.v = 21
    return c.v
""")
T.add("metaclass_attr_changed_between", """
class Meta(type):
    @property
    def info(cls): return "meta-prop"
class C(metaclass=Meta):
    pass
def make(): return ()
def between():
    Meta.info = property(lambda cls: "meta-prop-2")
def program():
    return C.info
""")
T.add("dict_key_order_changes", """
def make(): return ({"a": 1, "b": 2},)
def make_other(): return ({"b": 2, "a": 1},)
def program(d):
    return list(d), [k for k, v in d.items() if v]
""")
T.add("exception_on_second_world", """
class C:
    def __init__(self, v): self.v = v
def make(): return (C(4),)
def make_other(): return (C(0),)
def program(c):
    return 100 // c.v
""")

if __name__ == "__main__":
    T.main()
