"""Snippets: calls with every binding form (positional, keyword, defaults, keyword-only,
positional-only, *args, **kwargs, f(*a, **k)), binding errors with CPython's messages,
method calls, classmethod/staticmethod calls, super() forms, class instantiation
(__new__/__init__), builtins the tracer models (getattr, setattr, delattr, hasattr,
type, vars, isinstance) and C calls."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("calls")

F = """
def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, sorted(kw.items()))
"""
T.add("bind_positional", F + """
def make(): return ()
def program():
    return f(1, c=3), f(1, 5, 6, 7, c=3)
""")
T.add("bind_keywords_any_order", F + """
def make(): return ()
def program():
    return f(c=3, a=1), f(d=0, c=1, b=2, a=3)
""")
T.add("bind_extra_kwargs", F + """
def make(): return ()
def program():
    return f(1, c=2, z=3, y=4)
""")
T.add("bind_star_args_call", F + """
def make(): return ([1, 2, 3], {"c": 9, "x": 0})
def program(a, k):
    return f(*a, **k), f(*a, *a, c=1), f(0, **k, d=8)
""")
T.add("bind_star_args_tuple_and_generator_arg", F + """
def make(): return ((1,),)
def program(t):
    return f(*t, c=t), f(*range(3), c=None)
""")
T.add("bind_posonly", """
def g(a, b, /, c, *, d):
    return a, b, c, d
def make(): return ()
def program():
    r = [g(1, 2, 3, d=4), g(1, 2, c=3, d=4)]
    try:
        g(1, b=2, c=3, d=4)
    except TypeError as e:
        r.append(str(e))
    return r
""")
T.add("bind_posonly_name_in_kwargs", """
def g(a, /, **kw):
    return a, kw
def make(): return ()
def program():
    return g(1, a=2)
""")
T.add("err_missing_positional", F + """
def make(): return ()
def program():
    return f(c=1)
""")
T.add("err_missing_two", """
def g(x, y, z): pass
def make(): return ()
def program():
    return g(1)
""")
T.add("err_missing_kwonly", F + """
def make(): return ()
def program():
    return f(1)
""")
T.add("err_too_many_positional", """
def g(a, b=1): pass
def make(): return ()
def program():
    return g(1, 2, 3)
""")
T.add("err_unexpected_keyword", """
def g(a): pass
def make(): return ()
def program():
    return g(1, z=2)
""")
T.add("err_multiple_values", """
def g(a, b): pass
def make(): return ()
def program():
    return g(1, 2, a=3)
""")
T.add("err_star_non_iterable", """
def g(*a): return a
def make(): return ()
def program():
    return g(*5)
""")
T.add("err_double_star_non_mapping", """
def g(**k): return k
def make(): return ()
def program():
    return g(**[1])
""")
T.add("err_double_star_duplicate", """
def g(**k): return k
def make(): return ()
def program():
    return g(**{"a": 1}, **{"a": 2})
""")
T.add("err_call_non_callable", """
def make(): return (3,)
def program(n):
    return n()
""")
T.add("err_method_missing_arg", """
class C:
    def m(self, x): return x
def make(): return (C(),)
def program(c):
    return c.m()
""")
T.add("kwargs_mapping_subclass", """
class M(dict):
    pass
def g(**k): return k
def make(): return (M(a=1),)
def program(m):
    return g(**m)
""")
T.add("kwargs_custom_mapping", """
class Map:
    def keys(self):
        LOG.append("keys")
        return ["x", "y"]
    def __getitem__(self, k):
        LOG.append(k)
        return k * 2
def g(**k): return k
def make(): return (Map(),)
def program(m):
    return g(**m), dict(**m)
""")
T.add("defaults_mutable_shared", """
def g(x, acc=[]):
    acc.append(x)
    return acc
def make(): return ()
def program():
    a = g(1)
    b = g(2)
    return a is b, list(a)
""", calls=1)
T.add("method_call_forms", """
class C:
    def __init__(self, k): self.k = k
    def m(self, a, *, b=0): return self.k + a + b
def make(): return (C(1),)
def program(c):
    return c.m(1), c.m(a=2), c.m(3, b=4), C.m(c, 5), getattr(c, "m")(6)
""")
T.add("method_call_on_builtin", """
def make(): return ([3, 1], {"a": 1}, "x-y")
def program(l, d, s):
    l.append(2); l.sort()
    return l, d.get("a"), d.get("b", 0), s.split("-"), "".join(reversed(s))
""")
T.add("bound_method_of_builtin_stored", """
def make(): return ([],)
def program(l):
    push = l.append
    for i in range(3):
        push(i)
    return l, push.__self__ is l
""")
T.add("classmethod_staticmethod_calls", """
class C:
    @classmethod
    def cm(cls, *a): return (cls.__name__, a)
    @staticmethod
    def sm(*a, **k): return (a, k)
class D(C): pass
def make(): return (D(),)
def program(d):
    return d.cm(1), D.cm(), C.cm(x := 2), d.sm(1, k=2), C.sm()
""")
T.add("super_zero_arg_forms", """
class A:
    def __init__(self): self.log = ["A"]
    def m(self): return "A.m"
    @classmethod
    def c(cls): return "A.c/" + cls.__name__
    @property
    def p(self): return "A.p"
class B(A):
    def __init__(self):
        super().__init__()
        self.log.append("B")
    def m(self): return "B>" + super().m()
    @classmethod
    def c(cls): return "B>" + super().c()
    @property
    def p(self): return "B>" + super().p
def make(): return (B(),)
def program(b):
    return b.log, b.m(), b.c(), B.c(), b.p
""")
T.add("super_two_arg", """
class A:
    def m(self): return "A"
class B(A):
    def m(self): return "B"
class C(B):
    def m(self): return "C"
def make(): return (C(),)
def program(c):
    return super(C, c).m(), super(B, c).m(), super(C, C).m(c)
""")
T.add("super_attribute_missing", """
class A: pass
class B(A):
    def m(self): return super().nothing
def make(): return (B(),)
def program(b):
    return b.m()
""")
T.add("super_setattr_route", """
class A:
    def __setattr__(self, n, v):
        LOG.append(("A.setattr", n))
        object.__setattr__(self, n, v)
class B(A):
    def __setattr__(self, n, v):
        LOG.append(("B.setattr", n))
        super().__setattr__(n, v * 2)
def make(): return (B(),)
def program(b):
    b.x = 3
    return b.x, b.__dict__
""")
T.add("instantiate_new_and_init", """
class C:
    def __new__(cls, *a):
        LOG.append(("new", a))
        inst = super().__new__(cls)
        inst.made = True
        return inst
    def __init__(self, x, y=0):
        LOG.append(("init", x, y))
        self.s = x + y
def make(): return ()
def program():
    c = C(1, y=2)
    return c.s, c.made, type(c).__name__
""")
T.add("instantiate_new_returns_other", """
class Other:
    pass
class C:
    def __new__(cls):
        return Other()
    def __init__(self):
        LOG.append("init must not run")
def make(): return ()
def program():
    return type(C()).__name__
""")
T.add("instantiate_init_returns_value", """
class C:
    def __init__(self): return 5
def make(): return ()
def program():
    return C()
""")
T.add("instantiate_builtin_subclass", """
class L(list):
    def total(self): return sum(self)
class S(str):
    pass
def make(): return ()
def program():
    l = L([1, 2]); l.append(3)
    s = S("ab")
    return l.total(), l, s, s.upper(), type(s.upper()).__name__
""")
T.add("instantiate_metaclass_call", """
class Meta(type):
    def __call__(cls, *a):
        LOG.append(("meta call", a))
        return super().__call__(*a)
class C(metaclass=Meta):
    def __init__(self, v): self.v = v
def make(): return ()
def program():
    return C(3).v
""")
T.add("builtin_getattr_setattr_delattr", """
class C:
    pass
def make(): return (C(),)
def program(c):
    setattr(c, "a", 1)
    r = [getattr(c, "a"), getattr(c, "b", None), hasattr(c, "a")]
    delattr(c, "a")
    r.append(hasattr(c, "a"))
    try:
        getattr(c, "a")
    except AttributeError as e:
        r.append(str(e))
    return r
""")
T.add("builtin_getattr_nonstring", """
class C: pass
def make(): return (C(),)
def program(c):
    return getattr(c, 5)
""")
T.add("builtin_type_vars_isinstance", """
class A: pass
class B(A):
    def __init__(self): self.q = 1
def make(): return (B(),)
def program(b):
    return type(b) is B, vars(b), isinstance(b, A), issubclass(B, (int, A)), type(b).__mro__
""")
T.add("builtin_len_iter_next_on_user", """
class Bag:
    def __init__(self): self.items = [1, 2, 3]
    def __len__(self):
        LOG.append("len")
        return len(self.items)
    def __iter__(self):
        LOG.append("iter")
        return iter(self.items)
def make(): return (Bag(),)
def program(b):
    return len(b), list(b), sorted(b, reverse=True), min(b)
""")
T.add("builtin_sorted_key_python", """
class P:
    def __init__(self, n): self.n = n
def make(): return ([P(3), P(1), P(2)],)
def program(ps):
    return [p.n for p in sorted(ps, key=lambda p: p.n)]
""")
T.add("builtin_map_filter_python_fn", """
def make(): return ([1, 2, 3, 4],)
def program(xs):
    return list(map(lambda x: x * 10, xs)), list(filter(lambda x: x % 2, xs))
""")
T.add("dunder_methods_operators", """
class V:
    def __init__(self, x): self.x = x
    def __add__(self, o):
        LOG.append("add")
        return V(self.x + o.x)
    def __radd__(self, o):
        LOG.append("radd")
        return V(self.x + o)
    def __eq__(self, o): return isinstance(o, V) and self.x == o.x
    def __lt__(self, o): return self.x < o.x
    def __neg__(self): return V(-self.x)
    def __bool__(self): return self.x != 0
    __hash__ = None
def make(): return (V(1), V(2))
def program(a, b):
    s = a + b
    return s.x, (1 + a).x, a == V(1), a < b, (-a).x, bool(V(0)), sum([a, b], 0).x
""")
T.add("dunder_getitem_setitem_contains", """
class Box:
    def __init__(self): self.d = {}
    def __getitem__(self, k):
        LOG.append(("get", k))
        return self.d[k]
    def __setitem__(self, k, v): self.d[k] = v
    def __delitem__(self, k): del self.d[k]
    def __contains__(self, k): return k in self.d
def make(): return (Box(),)
def program(b):
    b["a"] = 1
    b[1:2] = "slice"
    r = [b["a"], "a" in b, b[1:2]]
    del b["a"]
    r.append("a" in b)
    return r
""")
T.add("dunder_call_and_repr_format", """
class C:
    def __call__(self, x): return x + 1
    def __repr__(self): return "C()"
    def __format__(self, spec): return "fmt:" + spec
def make(): return (C(),)
def program(c):
    return c(1), repr(c), f"{c:xy}", str(c), format(c, "q")
""")
T.add("call_returned_function", """
def adder(n):
    return lambda x: x + n
def make(): return (3,)
def program(n):
    return adder(n)(4), adder(adder(1)(1))(n)
""")
T.add("call_via_dict_and_list", """
def a(): return "a"
def b(): return "b"
def make(): return ({"x": a, "y": b}, [b, a])
def program(d, l):
    return d["x"](), l[0](), [f() for f in l]
""")
T.add("call_with_many_args", """
def g(*a, **k): return len(a), len(k)
def make(): return ()
def program():
    return g(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
             a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8)
""")
T.add("recursion_depth_error", """
def r(n): return r(n + 1)
def make(): return ()
def program():
    try:
        r(0)
    except RecursionError:
        return "recursion"
""", calls=1)

if __name__ == "__main__":
    T.main()
