"""Snippets: corners of the attribute and call protocols: descriptor __get__ signatures,
class-level hooks on metaclasses, module __getattr__, classmethod over property,
__getattr__ recursion, __set_name__ errors, __slots__ with __dict__, dict __missing__,
NotImplemented fallbacks, broken dunder results, __class_getitem__, singledispatch,
functools.wraps, exceptions raised inside getters called by C code."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("protocol")

T.add("descriptor_get_args", """
class D:
    def __get__(self, *args):
        LOG.append(tuple(type(a).__name__ for a in args))
        return len(args)
class C:
    d = D()
def make(): return (C(),)
def program(c):
    return c.d, C.d, D.__get__(C.__dict__["d"], c), C.__dict__["d"].__get__(None, C)
""")
T.add("descriptor_on_metaclass_getattr_hook", """
class Meta(type):
    def __getattr__(cls, name):
        LOG.append(("meta getattr", name))
        return name.upper()
class C(metaclass=Meta):
    present = "here"
def make(): return (C(),)
def program(c):
    return C.present, C.absent, getattr(C, "other", None), hasattr(c, "absent")
""")
T.add("metaclass_getattribute", """
class Meta(type):
    def __getattribute__(cls, name):
        if name == "magic":
            return "from meta getattribute"
        return super().__getattribute__(name)
class C(metaclass=Meta):
    x = 1
def make(): return ()
def program():
    return C.magic, C.x, C.__name__
""")
T.add("module_getattr_pep562", """
import types
def make():
    m = types.ModuleType("lazy")
    m.__getattr__ = lambda name: "lazy:" + name
    m.real = 1
    return (m,)
def program(m):
    return m.real, m.anything, getattr(m, "x", None)
""")
T.add("classmethod_over_property", """
import warnings
class C:
    _n = "cls-value"
    @classmethod
    @property
    def n(cls): return cls._n + ":" + cls.__name__
class D(C):
    _n = "d-value"
def make(): return (D(),)
def program(d):
    return C.n, D.n, d.n
""")
T.add("getattr_recursion_guarded", """
class C:
    def __init__(self): self.data = {"a": 1}
    def __getattr__(self, name):
        if name == "data":
            raise AttributeError("data")
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(name) from None
def make(): return (C(), C.__new__(C))
def program(c, bare):
    return c.a, getattr(c, "b", "nob"), getattr(bare, "a", "bare")
""")
T.add("set_name_raises", """
class Bad:
    def __set_name__(self, owner, name):
        raise ValueError("no name for " + name)
def make(): return ()
def program():
    try:
        class C:
            attr = Bad()
    except Exception as e:
        return type(e).__name__, str(e), type(e.__cause__).__name__ if e.__cause__ else None
    return "created"
""")
T.add("slots_with_dict", """
class S:
    __slots__ = ("a", "__dict__")
def make(): return (S(),)
def program(s):
    s.a = 1
    s.b = 2
    return s.a, s.b, s.__dict__, hasattr(S, "__weakref__")
""")
T.add("dict_missing", """
class Dflt(dict):
    def __missing__(self, key):
        LOG.append(("missing", key))
        return key * 2
def make(): return (Dflt(a=1),)
def program(d):
    return d["a"], d["zz"], d.get("zz", "get-does-not-call"), "zz" in d
""")
T.add("binary_op_notimplemented_fallback", """
class A:
    def __add__(self, o):
        LOG.append("A.add")
        return NotImplemented
class B:
    def __radd__(self, o):
        LOG.append("B.radd")
        return "B wins"
class Neither:
    def __eq__(self, o): return NotImplemented
def make(): return (A(), B(), Neither())
def program(a, b, n):
    r = [a + b, n == n, n != Neither()]
    try:
        a + a
    except TypeError as e:
        r.append(str(e))
    return r
""")
T.add("subclass_reflected_priority", """
class Base:
    def __add__(self, o): return "Base.add"
    def __radd__(self, o): return "Base.radd"
class Sub(Base):
    def __radd__(self, o): return "Sub.radd"
def make(): return (Base(), Sub())
def program(b, s):
    return b + s, s + b
""")
T.add("broken_dunder_results", """
class BadBool:
    def __bool__(self): return 1
class BadLen:
    def __len__(self): return -1
class BadIndex:
    def __index__(self): return "x"
class BadIter:
    def __iter__(self): return 5
class BadHash:
    __hash__ = None
def make(): return ()
def program():
    r = []
    for f in (lambda: bool(BadBool()), lambda: len(BadLen()), lambda: [1][BadIndex()],
              lambda: iter(BadIter()), lambda: {BadHash()}, lambda: not BadBool()):
        try:
            r.append(f())
        except Exception as e:
            r.append((type(e).__name__, str(e)))
    return r
""")
T.add("contains_falls_back_to_iter", """
class It:
    def __iter__(self):
        LOG.append("iter")
        return iter([1, 2])
def make(): return (It(),)
def program(it):
    return 2 in it, 3 in it
""")
T.add("class_getitem", """
class G:
    def __class_getitem__(cls, item):
        return f"{cls.__name__}[{item!r}]"
def make(): return ()
def program():
    return G[int], G["x"], list[int], dict[str, list[int]]
""")
T.add("singledispatch_function", """
import functools
@functools.singledispatch
def describe(x): return "object"
@describe.register
def _(x: int): return "int"
@describe.register
def _(x: list): return "list of " + str(len(x))
def make(): return ()
def program():
    return describe(1), describe([1, 2]), describe("s"), describe(True)
""")
T.add("functools_wraps_and_lru_cache", """
import functools
def deco(f):
    @functools.wraps(f)
    def w(*a):
        LOG.append(f.__name__)
        return f(*a)
    return w
@deco
def sq(x):
    "square"
    return x * x
def make(): return ()
def program():
    @functools.lru_cache(maxsize=None)
    def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
    return sq(3), sq.__name__, sq.__doc__, sq.__wrapped__(4), fib(20), fib.cache_info().hits
""")
T.add("getter_raising_inside_c_sorted_key", """
class P:
    def __init__(self, v): self.v = v
    @property
    def key(self):
        if self.v == 2:
            raise KeyError("bad key")
        return self.v
def make(): return ([P(3), P(2), P(1)],)
def program(ps):
    try:
        return sorted(ps, key=lambda p: p.key)
    except KeyError as e:
        return "sort failed", e.args
""")
T.add("getattr_builtin_with_property_raising_attrerror_default", """
class C:
    @property
    def p(self):
        LOG.append("p")
        return self.missing
def make(): return (C(),)
def program(c):
    return getattr(c, "p", "default"), hasattr(c, "p")
""")
T.add("attrerror_attributes_name_obj", """
class C: pass
def make(): return (C(),)
def program(c):
    try:
        c.nope
    except AttributeError as e:
        return e.name, e.obj is c, str(e)
""")
T.add("init_raises_after_new", """
class C:
    def __new__(cls, *a):
        LOG.append("new")
        return super().__new__(cls)
    def __init__(self, v):
        raise ValueError(v)
def make(): return ()
def program():
    try:
        C(5)
    except ValueError as e:
        return e.args
""")
T.add("object_new_extra_args_errors", """
class A: pass
class B:
    def __init__(self): pass
def make(): return ()
def program():
    r = []
    for f in (lambda: A(1), lambda: B(1), lambda: object(1)):
        try:
            f()
        except TypeError as e:
            r.append(str(e))
    return r
""")
T.add("super_in_classmethod_and_staticmethod_class", """
class A:
    @classmethod
    def create(cls): return ("A.create", cls.__name__)
class B(A):
    @classmethod
    def create(cls):
        base = super().create()
        return ("B.create",) + base
def make(): return ()
def program():
    return B.create(), B().create()
""")
T.add("super_property_setter_not_supported", """
class A:
    @property
    def x(self): return getattr(self, "_x", 0)
    @x.setter
    def x(self, v): self._x = v
class B(A):
    @property
    def x(self): return super().x
    @x.setter
    def x(self, v):
        try:
            super().x = v
        except AttributeError as e:
            LOG.append(str(e))
            A.x.fset(self, v)
def make(): return (B(),)
def program(b):
    b.x = 5
    return b.x
""")
T.add("bound_method_equality_and_hash", """
class C:
    def m(self): pass
def make(): return (C(), C())
def program(a, b):
    return a.m == a.m, a.m == b.m, hash(a.m) == hash(a.m), a.m.__func__ is C.m
""")
T.add("instance_callable_attr_not_bound", """
def free(*a): return a
class C:
    pass
def make():
    c = C()
    c.f = free
    return (c,)
def program(c):
    return c.f(1), C.__dict__.get("f")
""")
T.add("type_attribute_on_instance_vs_class", """
class C:
    __doc__ = "doc"
    def m(self): pass
def make(): return (C(),)
def program(c):
    return c.__class__ is C, c.__doc__, C.__name__, type(C).__name__, c.m.__name__, C.__dict__["m"].__name__
""")

if __name__ == "__main__":
    T.main()
