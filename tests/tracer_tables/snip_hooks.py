"""Snippets: how CPython finds and calls the attribute hooks themselves. Hooks that are
not plain functions (staticmethod, functools.partial, callable objects) are bound by
the slot wrappers in their own way (slot_tp_getattr_hook / call_attribute bind through
tp_descr_get, slot_tp_descr_get calls __get__ unbound); instance dicts with str-subclass
keys run user __eq__ during a lookup; C descriptors on builtin types; properties whose
getter is C."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("hooks")

T.add("getattr_hook_staticmethod", """
class C:
    __getattr__ = staticmethod(lambda name: ("static", name))
def make(): return (C(),)
def program(c):
    return c.foo, getattr(c, "bar", None)
""")
T.add("getattr_hook_partial", """
import functools
def hook(tag, name):
    LOG.append((tag, name))
    return tag + ":" + name
class C:
    __getattr__ = functools.partial(hook, "p")
def make(): return (C(),)
def program(c):
    return c.foo
""")
T.add("getattr_hook_callable_object", """
class Hook:
    def __call__(self, *args):
        LOG.append(len(args))
        return "called with %d" % len(args)
class C:
    __getattr__ = Hook()
def make(): return (C(),)
def program(c):
    return c.anything
""")
T.add("getattribute_hook_classmethod", """
class C:
    @classmethod
    def __getattribute__(cls, name):
        return ("cm", cls.__name__, name)
def make(): return (C(),)
def program(c):
    return c.x
""")
T.add("setattr_hook_partial", """
import functools
def setter(tag, obj, name, value):
    LOG.append((tag, name, value))
    object.__setattr__(obj, name, (tag, value))
class C:
    pass
C.__setattr__ = functools.partial(setter, "t")
def make(): return (C(),)
def program(c):
    try:
        c.a = 1
    except TypeError as e:
        return "TypeError", str(e)
    return c.__dict__
""")
T.add("descriptor_get_is_partial", """
import functools
def get(tag, *args):
    LOG.append((tag, len(args)))
    return tag
class D:
    __get__ = functools.partial(get, "pget")
class C:
    d = D()
def make(): return (C(),)
def program(c):
    return c.d, C.d
""")
T.add("descriptor_get_is_staticmethod", """
class D:
    @staticmethod
    def __get__(*args):
        LOG.append(len(args))
        return "static-get"
class C:
    d = D()
def make(): return (C(),)
def program(c):
    return c.d
""")
T.add("descriptor_set_is_callable_object", """
class Setter:
    def __call__(self, *args):
        LOG.append(len(args))
class D:
    __set__ = Setter()
    def __get__(self, obj, owner=None): return "get"
class C:
    d = D()
def make(): return (C(),)
def program(c):
    c.d = 5
    return c.d, c.__dict__
""")
T.add("property_with_c_getter", """
import operator
class C:
    def __init__(self): self._v = [3]
    v = property(operator.attrgetter("_v"))
    n = property(len)
    def __len__(self): return 7
def make(): return (C(),)
def program(c):
    return c.v, c.v is c._v, c.n
""")
T.add("property_without_getter", """
class C:
    x = property(None, lambda self, v: LOG.append(v))
def make(): return (C(),)
def program(c):
    c.x = 1
    try:
        return c.x
    except AttributeError as e:
        return str(e)
""")
T.add("property_subclass_get_override", """
class LoggedProperty(property):
    def __get__(self, obj, owner=None):
        LOG.append("LoggedProperty.__get__")
        return super().__get__(obj, owner)
class C:
    @LoggedProperty
    def p(self): return "value"
def make(): return (C(),)
def program(c):
    return c.p, type(C.__dict__["p"]).__name__
""")
T.add("inst_dict_str_subclass_key_eq_runs", """
class Key(str):
    def __eq__(self, other):
        LOG.append(("eq", str(self), other))
        return str.__eq__(self, other)
    __hash__ = str.__hash__
class C: pass
def make():
    c = C()
    c.__dict__[Key("x")] = "found"
    return (c,)
def program(c):
    return c.x, getattr(c, "x")
""")
T.add("inst_dict_non_string_keys", """
class C: pass
def make():
    c = C()
    c.__dict__[1] = "one"
    c.a = "a"
    return (c,)
def program(c):
    return c.a, sorted(map(str, vars(c))), getattr(c, "a")
""")
T.add("builtin_type_descriptors", """
def make(): return (3, "ab", [1, 2])
def program(n, s, l):
    return n.real, n.imag, (2.5).is_integer(), s.upper(), str.upper(s), l.__len__(), list.__len__(l), dict.fromkeys("ab"), int.__name__
""")
T.add("method_descriptor_retrieval", """
def make(): return ([3, 1],)
def program(l):
    sort = list.sort
    sort(l)
    app = l.append
    app(0)
    return l, type(sort).__name__, type(app).__name__, app.__self__ is l
""")
T.add("nested_class_attribute_not_bound", """
class Outer:
    class Inner:
        def who(self): return "inner"
    fn = len
def make(): return (Outer(),)
def program(o):
    return o.Inner().who(), o.Inner is Outer.Inner, o.fn("abc")
""")
T.add("attribute_of_none_and_ints", """
def make(): return (None, 5)
def program(n, i):
    r = [i.bit_length(), i.__class__.__name__, hasattr(n, "x")]
    try:
        n.x
    except AttributeError as e:
        r.append(str(e))
    try:
        i.x = 1
    except AttributeError as e:
        r.append(str(e))
    return r
""")
T.add("type_of_instance_swapped_by_hook", """
class A:
    def __getattribute__(self, name):
        if name == "__class__":
            return int
        return object.__getattribute__(self, name)
def make(): return (A(),)
def program(a):
    return a.__class__.__name__, type(a).__name__, isinstance(a, int), isinstance(a, A)
""")

if __name__ == "__main__":
    T.main()
