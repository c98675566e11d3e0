"""Snippets: the identity-preserving attribute cache under pressure. Each reads an
attribute, changes what CPython would return by a route the cache must notice (a store,
a delete, a write through __dict__, an escaping C call, a class or MRO change, a
__class__ swap, a getter with side effects on other objects), and reads again."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("cache")

T.add("dict_write_then_read", """
class C:
    def __init__(self): self.x = [1]
def make(): return (C(),)
def program(c):
    a = c.x
    c.__dict__["x"] = [2]
    return a, c.x, a is c.x
""")
T.add("dict_pop_then_read", """
class C:
    x = "class"
    def __init__(self): self.x = "inst"
def make(): return (C(),)
def program(c):
    a = c.x
    c.__dict__.pop("x")
    return a, c.x
""")
T.add("dict_clear_via_vars", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    a = c.x
    vars(c).clear()
    return a, getattr(c, "x", "gone")
""")
T.add("dict_update_via_c_method", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    a = c.x
    d = c.__dict__
    d.update({"x": 2})
    return a, c.x
""")
T.add("setattr_builtin_then_read", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    a = c.x
    setattr(c, "x", [a])
    return c.x
""")
T.add("getattr_dynamic_name", """
class C:
    def __init__(self): self.a = 1; self.b = 2
def make(): return (C(), ["a", "b", "a"])
def program(c, names):
    out = []
    for n in names:
        out.append(getattr(c, n))
        setattr(c, n, getattr(c, n) * 10)
    return out
""")
T.add("alias_two_names_same_object", """
class C:
    def __init__(self): self.x = 1
def make():
    c = C()
    return (c, c)
def program(a, b):
    r = [a.x]
    b.x = 2
    r.append(a.x)
    del b.x
    r.append(getattr(a, "x", None))
    return r
""")
T.add("shared_value_two_instances", """
class C:
    def __init__(self, v): self.v = v
def make():
    shared = [0]
    return (C(shared), C(shared))
def program(a, b):
    a.v.append(1)
    b.v = [9]
    return a.v, b.v, a.v is b.v
""")
T.add("getter_mutates_other_object", """
class Other:
    def __init__(self): self.val = "old"
class C:
    def __init__(self, o): self.o = o
    @property
    def poke(self):
        self.o.val = "new"
        return 1
def make():
    o = Other()
    return (C(o), o)
def program(c, o):
    a = o.val
    c.poke
    return a, o.val
""")
T.add("method_call_mutates_state", """
class C:
    def __init__(self): self.n = 0
    def bump(self): self.n += 1
def make(): return (C(),)
def program(c):
    a = c.n
    c.bump()
    b = c.n
    c.bump()
    return a, b, c.n
""")
T.add("c_call_mutates_via_callback", """
class C:
    def __init__(self): self.x = 0
def make(): return (C(),)
def program(c):
    a = c.x
    list(map(lambda v: setattr(c, "x", v), [5]))
    return a, c.x
""")
T.add("class_attr_rebind_inside", """
class C:
    x = "v1"
def make(): return (C(),)
def program(c):
    a = c.x
    C.x = "v2"
    b = c.x
    type(c).x = "v3"
    return a, b, c.x
""")
T.add("class_attr_delete_inside_falls_to_base", """
class B:
    x = "base"
class C(B):
    x = "derived"
def make(): return (C(),)
def program(c):
    a = c.x
    del C.x
    b = c.x
    C.x = "again"
    return a, b, c.x
""")
T.add("mro_middle_set_inside", """
class A:
    x = "A"
class B(A):
    pass
class C(B):
    pass
def make(): return (C(),)
def program(c):
    a = c.x
    B.x = "B"
    return a, c.x
""")
T.add("class_attr_becomes_property_inside", """
class C:
    x = "plain"
def make(): return (C(),)
def program(c):
    a = c.x
    C.x = property(lambda self: "prop")
    b = c.x
    c.__dict__["x"] = "dict"
    return a, b, c.x
""")
T.add("nondata_shadowed_inside", """
class C:
    def m(self): return "method"
def make(): return (C(),)
def program(c):
    a = c.m()
    c.m = lambda: "shadow"
    b = c.m()
    del c.m
    return a, b, c.m()
""")
T.add("class_swap_inside", """
class A:
    x = "A"
    def who(self): return "A"
class B:
    x = "B"
    def who(self): return "B"
def make(): return (A(),)
def program(o):
    r = [o.x, o.who()]
    o.__class__ = B
    r += [o.x, o.who()]
    return r
""")
T.add("getattr_added_inside", """
class C:
    pass
def make(): return (C(),)
def program(c):
    r = [getattr(c, "zz", "none")]
    C.__getattr__ = lambda self, n: "hooked:" + n
    r.append(c.zz)
    del C.__getattr__
    r.append(hasattr(c, "zz"))
    return r
""")
T.add("slot_rewrite_inside", """
class S:
    __slots__ = ("a",)
def make():
    s = S(); s.a = [1]
    return (s,)
def program(s):
    first = s.a
    S.a.__set__(s, [2])
    return first, s.a, first is s.a
""")
T.add("loop_reads_with_write_every_other", """
class C:
    def __init__(self): self.v = 0
def make(): return (C(),)
def program(c):
    seen = []
    for i in range(6):
        seen.append(c.v)
        if i % 2:
            c.v = i
    return seen
""")
T.add("prop_becomes_stable_after_cached_property", """
import functools
class C:
    def __init__(self): self.calls = 0
    @functools.cached_property
    def v(self):
        self.calls += 1
        return object()
def make(): return (C(),)
def program(c):
    a = c.v
    b = c.v
    c.__dict__["v"] = "replaced"
    return a is b, c.v, c.calls
""")
T.add("module_attribute_reread", """
import types
def make():
    m = types.ModuleType("fake")
    m.x = 1
    return (m,)
def program(m):
    a = m.x
    m.x = 2
    setattr(m, "x", m.x + 1)
    return a, m.x
""")
T.add("between_prop_to_value", """
class C:
    @property
    def p(self): return "prop"
def make(): return (C(),)
def between(c):
    C.p = "value"
def program(c):
    return c.p
""")
T.add("between_add_getattr", """
class C:
    pass
def make(): return (C(),)
def between(c):
    C.__getattr__ = lambda self, n: "late"
def program(c):
    return getattr(c, "missing", "default")
""")
T.add("between_shadow_in_dict", """
class N:
    def __get__(self, obj, owner=None): return "desc"
class C:
    n = N()
def make(): return (C(),)
def between(c):
    c.__dict__["n"] = "shadow"
def program(c):
    return c.n
""")
T.add("make_other_subclass_world", """
class C:
    @property
    def p(self): return "C"
class D(C):
    p = "D-plain"
def make(): return (C(),)
def make_other(): return (D(),)
def program(c):
    return c.p
""")
T.add("make_other_dict_shadows", """
class C:
    def m(self): return "method"
def make(): return (C(),)
def make_other():
    c = C()
    c.m = lambda: "inst"
    return (c,)
def program(c):
    return c.m()
""")

if __name__ == "__main__":
    T.main()
