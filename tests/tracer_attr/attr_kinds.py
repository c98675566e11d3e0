"""Every descriptor kind of DESIGN.md, eager vs tfjit.jit (results, LOG, state and
exceptions compared exactly). Usage: tfpython attr_kinds.py [kind ...]; one ctest
per kind (tests/tracer_attr/CMakeLists.txt)."""
import sys

from attr_common import main

CASES = {
    "inst_attr": [
        ("repeat_identity", """
class C:
    def __init__(self): self.x = [1]
def make(): return (C(),)
def program(c): return c.x, c.x, c.x is c.x
def between(c): c.x = [2]
"""),
        ("write_read_delete", """
class C: pass
def make(): return (C(),)
def program(c):
    c.y = object()
    a = c.y
    c.y = object()
    b = c.y
    del c.y
    return a is b, hasattr(c, "y"), getattr(c, "y", "dflt")
"""),
        ("delete_missing", """
class C: pass
def make(): return (C(),)
def program(c):
    del c.nothere
"""),
        ("read_missing", """
class C: pass
def make(): return (C(),)
def program(c):
    try:
        return c.missing
    except AttributeError as e:
        return ("caught", e.args)
"""),
        ("vars_write_between_reads", """
class C:
    def __init__(self): self.x = 1
def make(): return (C(),)
def program(c):
    a = c.x
    vars(c)["x"] = 2
    c.__dict__["x"] = 3
    return a, c.x
"""),
    ],
    "class_attr": [
        ("read_and_class_read", """
class C:
    k = 7
    s = "str"
def make(): return (C(),)
def program(c): return c.k, type(c).k, C.s, c.k is C.k
def between(c): C.k = 8
"""),
        ("shadow_in_dict", """
class C:
    k = 1
def make(): return (C(),)
def program(c):
    a = c.k
    c.k = 2
    b = c.k
    del c.k
    return a, b, c.k
"""),
        ("class_store_from_inside", """
class C:
    k = 1
def make(): return (C(),)
def program(c):
    a = c.k
    type(c).k = a + 1
    return a, c.k, C.k
"""),
    ],
    "class_attr_mut": [
        ("shared_list", """
class C:
    items = []
def make(): return (C(), C())
def program(a, b):
    a.items.append(len(b.items))
    return a.items is b.items, list(b.items)
"""),
        ("dict_attr", """
class C:
    table = {}
def make(): return (C(),)
def program(c):
    c.table["k"] = c.table.get("k", 0) + 1
    return c.table, C.table is c.table
"""),
    ],
    "prop_fresh": [
        ("motivating", """
class Test:
    @property
    def test(self):
        return object()
def make(): return (Test(),)
def program(t): return t.test, t.test
"""),
        ("identity", """
class C:
    @property
    def p(self):
        return [len(LOG)]
LOG = []
def make(): return (C(),)
def program(c):
    a = c.p
    LOG.append("read")
    return a is c.p, a == c.p
"""),
    ],
    "prop_stable": [
        ("same_object", """
class C:
    def __init__(self): self._v = object()
    @property
    def v(self):
        LOG.append("get")
        return self._v
LOG = []
def make(): return (C(),)
def program(c): return c.v is c.v, c.v
"""),
    ],
    "prop_counter": [
        ("side_effect", """
class C:
    def __init__(self): self.n = 0
    @property
    def tick(self):
        self.n += 1
        LOG.append(self.n)
        return self.n
LOG = []
def make(): return (C(),)
def program(c): return c.tick, c.tick, c.tick + c.tick
"""),
    ],
    "prop_attrerror": [
        ("no_getattr", """
class C:
    @property
    def p(self):
        LOG.append("p")
        raise AttributeError("inner")
LOG = []
def make(): return (C(),)
def program(c):
    return hasattr(c, "p"), getattr(c, "p", "dflt")
"""),
        ("falls_back_to_getattr", """
class C:
    @property
    def p(self):
        LOG.append("p")
        raise AttributeError("inner")
    def __getattr__(self, name):
        LOG.append(("ga", name))
        return "fallback:" + name
LOG = []
def make(): return (C(),)
def program(c): return c.p, c.p
"""),
        ("uncaught", """
class C:
    @property
    def p(self):
        raise AttributeError("from the getter")
def make(): return (C(),)
def program(c): return c.p
"""),
    ],
    "prop_raises": [
        ("value_error", """
class C:
    @property
    def p(self):
        LOG.append("p")
        raise ValueError("bad", 1)
LOG = []
def make(): return (C(),)
def program(c):
    try:
        c.p
    except ValueError as e:
        return e.args
"""),
        ("not_swallowed_by_getattr", """
class C:
    @property
    def p(self):
        raise KeyError("k")
    def __getattr__(self, name):
        return "never"
def make(): return (C(),)
def program(c): return c.p
"""),
    ],
    "prop_setdel": [
        ("setter_deleter", """
class C:
    def __init__(self): self._v = 0
    @property
    def v(self): return self._v
    @v.setter
    def v(self, x):
        LOG.append(("set", x))
        self._v = x
    @v.deleter
    def v(self):
        LOG.append("del")
        self._v = None
LOG = []
def make(): return (C(),)
def program(c):
    c.v = c.v + 1
    a = c.v
    del c.v
    return a, c.v
"""),
        ("no_setter_no_getter", """
class C:
    ro = property(lambda self: 1)
    wo = property(None, lambda self, v: LOG.append(v))
LOG = []
def make(): return (C(),)
def program(c):
    out = []
    for f in (lambda: setattr(c, "ro", 2), lambda: delattr(c, "ro"), lambda: c.wo):
        try:
            f()
        except AttributeError as e:
            out.append(e.args)
    c.wo = 5
    return out
"""),
    ],
    "cached_prop": [
        ("computed_once", """
import functools
class C:
    @functools.cached_property
    def v(self):
        LOG.append("compute")
        return object()
LOG = []
def make(): return (C(),)
def program(c): return c.v is c.v, c.v
"""),
        ("invalidate_and_recompute", """
import functools
class C:
    @functools.cached_property
    def v(self):
        LOG.append("compute")
        return [len(LOG)]
LOG = []
def make(): return (C(),)
def program(c):
    a = c.v
    del c.v
    b = c.v
    return a, b, a is b
"""),
    ],
    "method": [
        ("bound_fresh", """
class C:
    def m(self, x=1):
        LOG.append(x)
        return self
LOG = []
def make(): return (C(),)
def program(c):
    a = c.m
    return a is c.m, a == c.m, c.m(2) is c, a.__self__ is c
"""),
        ("shadowed_by_instance", """
class C:
    def m(self): return "method"
def make(): return (C(),)
def program(c):
    a = c.m()
    c.m = lambda: "instance"
    return a, c.m()
"""),
    ],
    "classmethod": [
        ("on_instance_and_class", """
class C:
    @classmethod
    def make_one(cls, x):
        LOG.append(cls.__name__)
        return (cls, x)
class D(C): pass
LOG = []
def make(): return (D(),)
def program(d): return d.make_one(1), D.make_one(2), C.make_one(3), d.make_one is d.make_one
"""),
    ],
    "staticmethod": [
        ("same_function", """
class C:
    @staticmethod
    def f(x): return x * 2
def make(): return (C(),)
def program(c): return c.f(2), C.f(3), c.f is C.f, c.f is c.f
"""),
    ],
    "data_desc": [
        ("get_set_delete", """
class D:
    def __get__(self, obj, cls=None):
        LOG.append(("get", obj is None))
        return self if obj is None else obj.__dict__.get("_d", 0)
    def __set__(self, obj, v):
        LOG.append(("set", v))
        obj.__dict__["_d"] = v
    def __delete__(self, obj):
        LOG.append("delete")
        obj.__dict__.pop("_d", None)
class C:
    d = D()
def make(): return (C(),)
def program(c):
    c.d = 5
    c.__dict__["d"] = "ignored: data descriptors win"
    a = c.d
    del c.d
    return a, c.d, type(C.d).__name__
"""),
        ("set_only", """
class S:
    def __set__(self, obj, v):
        LOG.append(("set", v))
class C:
    s = S()
LOG = []
def make(): return (C(),)
def program(c):
    c.s = 1
    c.__dict__["s"] = "dict"
    r = [type(c.s).__name__]
    try:
        del c.s
    except AttributeError as e:
        r.append(e.args)
    return r
"""),
    ],
    "nondata_desc": [
        ("shadowable", """
class N:
    def __get__(self, obj, cls=None):
        LOG.append(obj is None)
        return "from __get__"
class C:
    n = N()
LOG = []
def make(): return (C(),)
def program(c):
    a = c.n
    c.n = "instance"
    b = c.n
    del c.n
    return a, b, c.n, C.n
"""),
    ],
    "set_name": [
        ("named", """
class Field:
    def __set_name__(self, owner, name):
        self.name = "_" + name
    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return getattr(obj, self.name, "unset")
    def __set__(self, obj, v):
        LOG.append((self.name, v))
        setattr(obj, self.name, v)
class C:
    a = Field()
    b = Field()
LOG = []
def make(): return (C(),)
def program(c):
    c.a = 1
    return c.a, c.b, C.a.name
"""),
    ],
    "slot": [
        ("set_unset", """
class C:
    __slots__ = ("a", "b")
def make():
    c = C()
    c.a = [1]
    return (c,)
def program(c):
    r = [c.a, c.a is c.a, hasattr(c, "b")]
    c.b = 2
    r.append(c.b)
    del c.a
    r.append(getattr(c, "a", "gone"))
    try:
        del c.a
    except AttributeError as e:
        r.append(e.args)
    try:
        c.z = 1
    except AttributeError as e:
        r.append(e.args)
    return r
def between(c):
    c.a = "back"
"""),
    ],
    "getattr_hook": [
        ("fresh_stable_raising", """
class C:
    def __init__(self): self._stable = object()
    def __getattr__(self, name):
        LOG.append(name)
        if name == "stable":
            return self._stable
        if name == "fresh":
            return object()
        raise AttributeError(f"no {name}")
LOG = []
def make(): return (C(),)
def program(c):
    return (c.stable is c.stable, c.fresh is c.fresh, getattr(c, "nope", "dflt"),
            hasattr(c, "x"))
"""),
        ("not_called_when_found", """
class C:
    k = 1
    def __getattr__(self, name):
        LOG.append(name)
        return 0
LOG = []
def make():
    c = C()
    c.x = 2
    return (c,)
def program(c): return c.k, c.x, c.y
"""),
    ],
    "getattribute_hook": [
        ("selective", """
class C:
    x = "class"
    def __getattribute__(self, name):
        LOG.append(name)
        if name.startswith("h_"):
            return "hooked " + name
        return object.__getattribute__(self, name)
LOG = []
def make(): return (C(),)
def program(c): return c.h_a, c.x, getattr(c, "y", "dflt")
"""),
        ("metaclass_generic_getattribute", """
class M(type):
    __getattribute__ = object.__getattribute__
class C(metaclass=M):
    k = [1]
    @property
    def p(self): return "prop"
def make(): return (C(),)
def program(c):
    cls = type(c)
    a = cls.k
    cls.k = [2]
    return a is cls.k, cls.k is cls.k, cls.k, type(cls.p).__name__, c.p
"""),
        ("total_with_getattr", """
class C:
    def __getattribute__(self, name):
        LOG.append(("ga", name))
        raise AttributeError(name)
    def __getattr__(self, name):
        LOG.append(("fallback", name))
        return len(name)
LOG = []
def make(): return (C(),)
def program(c): return c.abc, c.q
"""),
    ],
    "mro_override": [
        ("subclass_and_super", """
class A:
    @property
    def p(self):
        LOG.append("A.p")
        return "A"
    def m(self): return "A.m"
class B(A):
    @property
    def p(self):
        LOG.append("B.p")
        return "B+" + super().p
    def m(self): return "B.m/" + super().m()
class X:
    def m(self): return "X.m"
class C(B, X):
    def m(self): return "C.m/" + super().m()
LOG = []
def make(): return (C(),)
def program(c): return c.p, c.m(), super(B, c).m(), super(C, c).p
"""),
        ("super_object_reused", """
class A:
    k = [1]
    def m(self): return "A.m"
class B(A):
    k = [2]
class C(B): pass
def make(): return (C(),)
def program(c):
    s = super(B, c)
    t = super(C, C)
    return s.k is s.k, s.k, t.k is t.k, t.k, s.m(), s.m is s.m
def between(c):
    A.k = [3]
"""),
        ("diamond_class_attr", """
class A: k = "A"
class B(A): pass
class C(A): k = "C"
class D(B, C): pass
def make(): return (D(),)
def program(d): return d.k, D.k, super(D, d).k, super(C, d).k
"""),
    ],
    "meta_prop": [
        ("class_access", """
class Meta(type):
    @property
    def info(cls):
        LOG.append(cls.__name__)
        return ("meta", cls.__name__)
class C(metaclass=Meta):
    pass
LOG = []
def make(): return (C(),)
def program(c): return type(c).info, C.info, hasattr(c, "info")
"""),
    ],
    "meta_data_desc": [
        ("wins_over_class_dict", """
class MD:
    def __get__(self, obj, cls=None):
        LOG.append(("get", obj.__name__ if obj is not None else None))
        return "meta descriptor"
    def __set__(self, obj, v):
        LOG.append(("set", v))
class Meta(type):
    shadow = MD()
    plain = "meta plain"
class C(metaclass=Meta):
    shadow = "class dict"
    plain = "class plain"
LOG = []
def make(): return (C(),)
def program(c):
    C.shadow = 3
    return C.shadow, c.shadow, C.plain, Meta.plain
"""),
    ],
    "callable_attr": [
        ("partial_and_callable", """
import functools
class Call:
    def __call__(self, *a):
        LOG.append(a)
        return len(a)
class C:
    p = functools.partial(max, 0)
    k = Call()
LOG = []
def make(): return (C(),)
def program(c): return c.p(5), c.k(1, 2), c.k is c.k, c.p is C.p
"""),
    ],
    "partialmethod": [
        ("bound", """
import functools
class C:
    def f(self, a, b):
        LOG.append((a, b))
        return a + b
    g = functools.partialmethod(f, 10)
LOG = []
def make(): return (C(),)
def program(c): return c.g(1), c.g(2)
"""),
    ],
    "module_like": [
        ("nn_module_pattern", """
class Param:
    def __init__(self, v): self.v = v
class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
    def __setattr__(self, name, value):
        LOG.append(("setattr", name))
        if isinstance(value, Param):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)
    def __getattr__(self, name):
        LOG.append(("getattr", name))
        if name in self._parameters:
            return self._parameters[name]
        if name in self._modules:
            return self._modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    def __delattr__(self, name):
        LOG.append(("delattr", name))
        if name in self._parameters:
            del self._parameters[name]
        else:
            object.__delattr__(self, name)
class Linear(Module):
    def __init__(self):
        super().__init__()
        self.weight = Param(2)
        self.scale = 3
    def forward(self, x):
        return x * self.weight.v * self.scale
LOG = []
def make():
    m = Linear()
    m.sub = Linear()
    return (m,)
def program(m):
    a = m.forward(1)
    w = m.weight
    m.weight = Param(5)
    b = m.forward(1)
    del m.weight
    return a, b, w is m.sub.weight, hasattr(m, "weight"), m.sub.forward(2)
"""),
    ],
    # Not a kind of DESIGN.md: the exceptions of the protocol itself, which the
    # harness compares by type and args.
    "errors": [
        ("messages", """
class S:
    __slots__ = ("a",)
class SetOnly:
    def __set__(self, o, v): pass
class C:
    so = SetOnly()
    ro = property(lambda self: 1)
class Meta(type): pass
class K(metaclass=Meta): pass
def make(): return (C(), S())
def program(c, s):
    out = []
    tries = [
        lambda: setattr(c, 2, 0),
        lambda: delattr(c, 2),
        lambda: c.missing,
        lambda: C.missing,
        lambda: K.missing,
        lambda: s.a,
        lambda: s.zz,
        lambda: setattr(s, "zz", 1),
        lambda: delattr(s, "a"),
        lambda: delattr(c, "so"),
        lambda: delattr(c, "missing"),
        lambda: delattr(C, "missing"),
        lambda: setattr(c, "ro", 1),
        lambda: setattr(int, "x", 1),
        lambda: setattr((1).__class__, "real", 1),
        lambda: setattr(c, "__class__", 1),
        lambda: setattr(c, "__class__", S),
        lambda: setattr(c, "__dict__", 1),
        lambda: object.__setattr__(C, "x", 1),
        lambda: (3).zz,
        lambda: setattr(3, "real", 1),
    ]
    for f in tries:
        try:
            f()
            out.append("no error")
        except Exception as e:
            out.append((type(e).__name__, e.args))
    return out
"""),
        ("attribute_error_context", """
class C:
    @property
    def p(self):
        raise AttributeError("inner")
def make(): return (C(),)
def program(c):
    out = []
    for name in ("missing", "p"):
        try:
            getattr(c, name)
        except AttributeError as e:
            out.append((e.name, e.obj is c))
    return out
"""),
    ],
    # The builtins' own checks before the protocol runs (getattr/hasattr/setattr with
    # a non-str name: CPython 3.11 leaves the message to PyObject_GetAttr).
    "errors_builtins": [
        ("getattr_nonstr_name", """
class C: pass
def make(): return (C(),)
def program(c):
    out = []
    for f in (lambda: getattr(c, 1), lambda: getattr(c, 1, "dflt"), lambda: hasattr(c, 1)):
        try:
            out.append(f())
        except TypeError as e:
            out.append(e.args)
    return out
"""),
    ],
}

if __name__ == "__main__":
    sys.exit(main(CASES))
