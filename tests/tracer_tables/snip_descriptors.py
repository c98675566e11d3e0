"""Snippets: the 25 descriptor kinds of DESIGN.md (inst_attr ... module_like), each read
with several access patterns (repeat_read, identity, write_read, delete_read,
getattr_default, hasattr, super_read, class_read, method_call, try_attrerror, loop)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("descriptors")

# --- inst_attr
T.add("inst_attr_repeat", """
class C:
    def __init__(self): self.x = [1]
def make(): return (C(),)
def program(c):
    a = c.x; b = c.x
    return a, b, a is b
""")
T.add("inst_attr_write_read", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    c.x = c.x + 1
    c.y = [c.x]
    return c.x, c.y
""")
T.add("inst_attr_delete_read", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    del c.x
    try:
        return c.x
    except AttributeError as e:
        LOG.append(str(e))
        return getattr(c, "x", "dflt"), hasattr(c, "x")
""")
T.add("inst_attr_between_shadow", """
class C:
    x = "class"
def make(): return (C(),)
def between(c): c.x = "inst"
def program(c):
    return c.x, type(c).x
""")

# --- class_attr / class_attr_mut
T.add("class_attr_read", """
class C:
    x = 7
def make(): return (C(),)
def program(c):
    return c.x, C.x, type(c).x, c.x is C.x
""")
T.add("class_attr_rebind_between", """
class C:
    x = 7
def make(): return (C(),)
def between(c): C.x = 8
def program(c):
    LOG.append(c.x)
    return c.x
""")
T.add("class_attr_delete_between", """
class B:
    x = "base"
class C(B):
    x = "derived"
def make(): return (C(),)
def between(c): del C.x
def program(c):
    return c.x
""")
T.add("class_attr_mut_append", """
class C:
    items = []
def make(): return (C(),)
def program(c):
    c.items.append(len(c.items))
    return c.items, C.items is c.items
""")
T.add("class_attr_mut_dict", """
class C:
    d = {}
def make(): return (C(),)
def program(c):
    c.d[len(c.d)] = c
    return dict(c.d), list(C.d)
""", calls=1)

# --- prop_fresh / prop_stable / prop_counter
T.add("prop_fresh_motivating", """
class Test:
    @property
    def test(self):
        return object()
def make(): return (Test(),)
def program(t):
    return t.test, t.test
""")
T.add("prop_fresh_identity", """
class C:
    @property
    def p(self):
        LOG.append("get")
        return []
def make(): return (C(),)
def program(c):
    return c.p is c.p, c.p == c.p
""")
T.add("prop_fresh_in_container", """
class C:
    @property
    def p(self):
        return {"k": []}
def make(): return (C(),)
def program(c):
    lst = [c.p, c.p]
    return lst, lst[0] is lst[1], lst[0]["k"] is lst[1]["k"]
""")
T.add("prop_stable", """
class C:
    def __init__(self): self._v = [1]
    @property
    def v(self):
        LOG.append("v")
        return self._v
def make(): return (C(),)
def program(c):
    return c.v, c.v is c.v
""")
T.add("prop_counter", """
class C:
    def __init__(self): self.n = 0
    @property
    def tick(self):
        self.n += 1
        LOG.append(self.n)
        return self.n
def make(): return (C(),)
def program(c):
    return c.tick, c.tick, c.tick + c.tick, c.n
""")
T.add("prop_counter_loop", """
class C:
    def __init__(self): self.n = 0
    @property
    def tick(self):
        self.n += 1
        return self.n
def make(): return (C(),)
def program(c):
    out = []
    for _ in range(4):
        out.append(c.tick)
    return out
""")
T.add("prop_counter_branch", """
class C:
    def __init__(self): self.n = 0
    @property
    def tick(self):
        self.n += 1
        return self.n
def make(): return (C(),)
def program(c):
    if c.tick % 2:
        return "odd", c.tick
    return "even", c.tick
""")

# --- prop_attrerror / prop_raises
T.add("prop_attrerror_no_getattr", """
class C:
    @property
    def p(self):
        LOG.append("p")
        raise AttributeError("inner")
def make(): return (C(),)
def program(c):
    try:
        return c.p
    except AttributeError as e:
        return "caught", str(e), e.args
""")
T.add("prop_attrerror_falls_to_getattr", """
class C:
    @property
    def p(self):
        LOG.append("prop")
        raise AttributeError("nope")
    def __getattr__(self, name):
        LOG.append(("getattr", name))
        return [name]
def make(): return (C(),)
def program(c):
    a = c.p
    return a, c.p is a, getattr(c, "p", None)
""")
T.add("prop_attrerror_hasattr", """
class C:
    @property
    def p(self):
        raise AttributeError("x")
def make(): return (C(),)
def program(c):
    return hasattr(c, "p"), getattr(c, "p", 5)
""")
T.add("prop_raises_other", """
class C:
    @property
    def p(self):
        LOG.append("p")
        raise KeyError("boom")
    def __getattr__(self, n):
        LOG.append("never")
        return 1
def make(): return (C(),)
def program(c):
    return c.p
""")
T.add("prop_raises_hasattr_propagates", """
class C:
    @property
    def p(self):
        raise ValueError("v")
def make(): return (C(),)
def program(c):
    try:
        hasattr(c, "p")
    except ValueError as e:
        return "propagated", e.args
    return "swallowed"
""")

# --- prop_setdel
T.add("prop_setdel_roundtrip", """
class C:
    def __init__(self): self._x = 0
    @property
    def x(self):
        LOG.append("get")
        return self._x
    @x.setter
    def x(self, v):
        LOG.append(("set", v))
        self._x = v * 2
    @x.deleter
    def x(self):
        LOG.append("del")
        self._x = None
def make(): return (C(),)
def program(c):
    c.x = 5
    a = c.x
    del c.x
    return a, c.x, c._x
""")
T.add("prop_readonly_set_raises", """
class C:
    @property
    def x(self): return 1
def make(): return (C(),)
def program(c):
    try:
        c.x = 2
    except AttributeError as e:
        return str(e)
""")
T.add("prop_no_deleter", """
class C:
    @property
    def x(self): return 1
    @x.setter
    def x(self, v): LOG.append(v)
def make(): return (C(),)
def program(c):
    c.x = 3
    del c.x
""")
T.add("prop_shadows_inst_dict", """
class C:
    @property
    def x(self): return "prop"
def make():
    c = C()
    c.__dict__["x"] = "dict"
    return (c,)
def program(c):
    return c.x, c.__dict__["x"]
""")

# --- cached_prop
T.add("cached_prop_once", """
import functools
class C:
    @functools.cached_property
    def v(self):
        LOG.append("compute")
        return [len(LOG)]
def make(): return (C(),)
def program(c):
    a = c.v
    b = c.v
    return a, b, a is b, "v" in c.__dict__
""")
T.add("cached_prop_delete_recompute", """
import functools
class C:
    @functools.cached_property
    def v(self):
        LOG.append("compute")
        return object()
def make(): return (C(),)
def program(c):
    a = c.v
    del c.v
    b = c.v
    return a is b, a, b
""")
T.add("cached_prop_class_read", """
import functools
class C:
    @functools.cached_property
    def v(self): return 1
def make(): return (C(),)
def program(c):
    d = C.v
    return type(d).__name__, d.attrname, c.v
""")

# --- method / classmethod / staticmethod
T.add("method_fresh_bound", """
class C:
    def m(self): return self
def make(): return (C(),)
def program(c):
    a = c.m; b = c.m
    return a is b, a == b, a.__self__ is c, a() is c, c.m() is c
""")
T.add("method_stored_then_called", """
class C:
    def __init__(self): self.k = 3
    def m(self, x): return self.k * x
def make(): return (C(),)
def program(c):
    f = c.m
    c.k = 4
    return f(2), c.m(2)
""")
T.add("method_shadowed_by_dict", """
class C:
    def m(self): return "method"
def make(): return (C(),)
def between(c): c.m = lambda: "inst"
def program(c):
    return c.m()
""")
T.add("classmethod_calls", """
class C:
    n = 1
    @classmethod
    def make_one(cls, k):
        LOG.append(cls.__name__)
        return cls.n + k
class D(C):
    n = 10
def make(): return (C(), D())
def program(c, d):
    return c.make_one(1), d.make_one(1), C.make_one(2), D.make_one(2), c.make_one is c.make_one
""")
T.add("staticmethod_calls", """
class C:
    @staticmethod
    def s(a, b=2): return (a, b)
def make(): return (C(),)
def program(c):
    return c.s(1), C.s(1, b=3), c.s is C.s, c.s is c.s
""")

# --- data_desc / nondata_desc / set_name
T.add("data_desc_get_set_delete", """
class D:
    def __get__(self, obj, owner=None):
        if obj is None: return self
        LOG.append("get")
        return obj.__dict__.get("_d", "none")
    def __set__(self, obj, v):
        LOG.append(("set", v))
        obj.__dict__["_d"] = v
    def __delete__(self, obj):
        LOG.append("del")
        obj.__dict__.pop("_d", None)
class C:
    d = D()
def make(): return (C(),)
def program(c):
    a = c.d
    c.d = 4
    b = c.d
    del c.d
    return a, b, c.d, type(C.d).__name__
""")
T.add("data_desc_beats_inst_dict", """
class D:
    def __get__(self, obj, owner=None): return "desc"
    def __set__(self, obj, v): LOG.append(v)
class C:
    x = D()
def make():
    c = C()
    c.__dict__["x"] = "dict"
    return (c,)
def program(c):
    c.x = "assigned"
    return c.x, c.__dict__
""")
T.add("data_desc_set_only", """
class D:
    def __set__(self, obj, v):
        LOG.append(("set", v))
        obj.__dict__["y"] = v
class C:
    y = D()
def make(): return (C(),)
def program(c):
    first = c.y
    c.y = 9
    second = c.y
    return type(first).__name__, second
""")
T.add("data_desc_get_raises_attrerror", """
class D:
    def __get__(self, obj, owner=None):
        raise AttributeError("desc says no")
    def __set__(self, obj, v): pass
class C:
    x = D()
    def __getattr__(self, n):
        LOG.append(n)
        return "fallback"
def make(): return (C(),)
def program(c):
    return c.x
""")
T.add("nondata_desc_fresh", """
class N:
    def __get__(self, obj, owner=None):
        LOG.append(obj is None)
        return [owner.__name__]
class C:
    n = N()
def make(): return (C(),)
def program(c):
    a = c.n; b = c.n
    return a, b, a is b, C.n
""")
T.add("nondata_desc_shadowed", """
class N:
    def __get__(self, obj, owner=None):
        return "desc"
class C:
    n = N()
def make(): return (C(),)
def program(c):
    a = c.n
    c.n = "inst"
    b = c.n
    del c.n
    return a, b, c.n
""")
T.add("set_name_descriptor", """
class Field:
    def __set_name__(self, owner, name):
        LOG.append((owner.__name__, name))
        self.key = "_" + name
    def __get__(self, obj, owner=None):
        if obj is None: return self
        return getattr(obj, self.key, "unset")
    def __set__(self, obj, v):
        setattr(obj, self.key, v)
class C:
    a = Field()
    b = Field()
def make(): return (C(),)
def program(c):
    c.a = 1
    return c.a, c.b, C.a.key, c.__dict__
""")
T.add("set_name_class_in_program", """
def make(): return (3,)
def program(k):
    class F:
        def __set_name__(self, owner, name):
            LOG.append(name)
            self.name = name
        def __get__(self, obj, owner=None):
            return self.name * k
    class C:
        alpha = F()
    return C().alpha, C.alpha
""")

# --- slot
T.add("slot_set_unset", """
class S:
    __slots__ = ("a", "b")
    def __init__(self): self.a = 1
def make(): return (S(),)
def program(s):
    r = [s.a]
    try:
        r.append(s.b)
    except AttributeError as e:
        r.append(str(e))
    s.b = [2]
    r.append(s.b)
    del s.a
    r.append(hasattr(s, "a"))
    return r
""")
T.add("slot_no_dict", """
class S:
    __slots__ = ("a",)
def make(): return (S(),)
def program(s):
    try:
        s.z = 1
    except AttributeError as e:
        return "no", str(e)
""")
T.add("slot_inherited_and_class_attr", """
class A:
    __slots__ = ("x",)
class B(A):
    __slots__ = ("y",)
    z = "cls"
def make():
    b = B(); b.x = 1; b.y = 2
    return (b,)
def program(b):
    b.x += 10
    return b.x, b.y, b.z, type(B.__dict__["y"]).__name__
""")
T.add("slot_toggle_between", """
class S:
    __slots__ = ("a",)
def make():
    s = S(); s.a = "set"
    return (s,)
def between(s): del s.a
def program(s):
    return getattr(s, "a", "gone")
""")

# --- getattr_hook / getattribute_hook
T.add("getattr_hook_fresh", """
class C:
    def __getattr__(self, n):
        LOG.append(n)
        return [n]
def make(): return (C(),)
def program(c):
    a = c.foo; b = c.foo
    return a, b, a is b
""")
T.add("getattr_hook_stable", """
class C:
    def __init__(self): self._cache = {}
    def __getattr__(self, n):
        if n.startswith("_"): raise AttributeError(n)
        return self._cache.setdefault(n, [n])
def make(): return (C(),)
def program(c):
    return c.foo is c.foo, c.foo, c._cache
""")
T.add("getattr_hook_raising", """
class C:
    def __getattr__(self, n):
        raise AttributeError(f"{type(self).__name__} has no {n}")
def make(): return (C(),)
def program(c):
    return hasattr(c, "q"), getattr(c, "q", "dflt")
""")
T.add("getattr_hook_not_for_found", """
class C:
    x = 1
    def __getattr__(self, n):
        LOG.append(n)
        return 2
def make(): return (C(),)
def program(c):
    return c.x, c.y
""")
T.add("getattribute_total", """
class C:
    def __init__(self): self.x = 1
    def __getattribute__(self, n):
        LOG.append(n)
        if n == "x":
            return object.__getattribute__(self, n) + 100
        return object.__getattribute__(self, n)
def make(): return (C(),)
def program(c):
    return c.x, c.__class__.__name__
""")
T.add("getattribute_selective_with_getattr", """
class C:
    def __getattribute__(self, n):
        if n == "secret":
            raise AttributeError(n)
        return super().__getattribute__(n)
    def __getattr__(self, n):
        LOG.append(("fallback", n))
        return "fb:" + n
    def m(self): return "m"
def make(): return (C(),)
def program(c):
    return c.secret, c.m(), c.other
""")
T.add("getattribute_raises_other", """
class C:
    def __getattribute__(self, n):
        raise RuntimeError(n)
    def __getattr__(self, n):
        return "never"
def make(): return (C(),)
def program(c):
    return c.anything
""")

# --- mro_override
T.add("mro_override_property", """
class A:
    @property
    def p(self): return "A"
class B(A):
    @property
    def p(self): return "B+" + super().p
def make(): return (B(), A())
def program(b, a):
    return b.p, a.p
""")
T.add("mro_diamond_super_chain", """
class Base:
    def who(self): return ["Base"]
class L(Base):
    def who(self): return ["L"] + super().who()
class R(Base):
    def who(self): return ["R"] + super().who()
class D(L, R):
    def who(self): return ["D"] + super().who()
def make(): return (D(),)
def program(d):
    return d.who(), [k.__name__ for k in D.__mro__]
""")
T.add("mro_middle_change_between", """
class A:
    x = "A"
class B(A):
    pass
class C(B):
    pass
def make(): return (C(),)
def between(c): B.x = "B"
def program(c):
    return c.x
""")
T.add("mro_class_swap_between", """
class A:
    def who(self): return "A"
class B:
    def who(self): return "B"
def make(): return (A(),)
def between(a): a.__class__ = B
def program(a):
    return a.who(), type(a).__name__
""")

# --- meta_prop / meta_data_desc
T.add("meta_prop_class_access", """
class Meta(type):
    @property
    def info(cls):
        LOG.append(cls.__name__)
        return [cls.__name__]
class C(metaclass=Meta):
    pass
def make(): return (C(),)
def program(c):
    a = C.info; b = type(c).info
    return a, b, a is b, hasattr(c, "info")
""")
T.add("meta_data_desc_vs_class_dict", """
class MD:
    def __get__(self, obj, owner=None):
        return "meta-desc"
    def __set__(self, obj, v):
        LOG.append(v)
class Meta(type):
    x = MD()
class C(metaclass=Meta):
    x = "class-dict"
def make(): return (C(),)
def program(c):
    C.x = "assign"
    return C.x, c.x, C.__dict__["x"]
""")
T.add("meta_nondata_vs_class_dict", """
class Meta(type):
    y = "meta"
    def hello(cls): return "hello " + cls.__name__
class C(metaclass=Meta):
    y = "class"
def make(): return (C(),)
def program(c):
    return C.y, C.hello(), hasattr(c, "hello")
""")

# --- callable_attr / partialmethod
T.add("callable_attr_partial", """
import functools
def add(a, b): return a + b
class C:
    inc = functools.partial(add, 1)
def make(): return (C(),)
def program(c):
    return c.inc(5), c.inc is C.inc
""")
T.add("callable_attr_object_call", """
class Cal:
    def __call__(self, *a):
        LOG.append(a)
        return len(a)
class C:
    f = Cal()
def make(): return (C(),)
def program(c):
    return c.f(1, 2), c.f()
""")
T.add("partialmethod_bound", """
import functools
class C:
    def __init__(self): self.base = 10
    def add(self, a, b): return self.base + a + b
    add5 = functools.partialmethod(add, 5)
def make(): return (C(),)
def program(c):
    return c.add5(1), c.add5(b=2)
""")

# --- module_like
MODULE_LIKE = """
class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)
    def __getattr__(self, name):
        LOG.append(("getattr", name))
        if name in self._parameters:
            return self._parameters[name]
        if name in self._modules:
            return self._modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    def __setattr__(self, name, value):
        LOG.append(("setattr", name))
        if isinstance(value, list):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            super().__setattr__(name, value)
    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        else:
            super().__delattr__(name)
"""
T.add("module_like_params", MODULE_LIKE + """
class Lin(Module):
    def __init__(self):
        super().__init__()
        self.weight = [1.0, 2.0]
        self.scale = 3
    def forward(self, x):
        return [w * x * self.scale for w in self.weight]
def make(): return (Lin(),)
def program(m):
    return m.forward(2), m.weight is m.weight, m.__dict__.keys() - {"_parameters"} == {"_modules", "training", "scale"}
""")
T.add("module_like_submodules", MODULE_LIKE + """
class Leaf(Module):
    def __init__(self):
        super().__init__()
        self.w = [2]
class Tree(Module):
    def __init__(self):
        super().__init__()
        self.left = Leaf()
        self.right = Leaf()
def make(): return (Tree(),)
def program(t):
    t.left.w = [5]
    return t.left.w, t.right.w, t.left is t.left, sorted(t._modules)
""")
T.add("module_like_missing_and_delete", MODULE_LIKE + """
class M(Module):
    pass
def make():
    m = M(); m.p = [1]
    return (m,)
def program(m):
    del m.p
    try:
        m.p
    except AttributeError as e:
        return "missing", str(e), hasattr(m, "p")
""")
T.add("module_like_training_toggle", MODULE_LIKE + """
class M(Module):
    def eval(self):
        self.training = False
        return self
def make(): return (M(),)
def program(m):
    before = m.training
    return before, m.eval().training, m.__dict__["training"]
""")

if __name__ == "__main__":
    T.main()
